"""A reader that goes away (``datamove examples | head -1``): exit 141 quietly, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from datamove.cli import _ir, main
from datamove.ir._examples import _XML, write_example


def run_into_closed_pipe(*argv: str) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m datamove ARGV`` with stdout a pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)  # every write now fails with EPIPE (Python ignores SIGPIPE)
    try:
        return subprocess.run(
            [sys.executable, "-m", "datamove", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "argv",
    [
        ("examples",),
        ("explain", "split", "--shape", "6,12", "--axis", "1", "--num-splits", "3"),
    ],
    ids=" ".join,
)
def test_closed_pipe_exits_141_without_a_traceback(argv: tuple[str, ...]) -> None:
    # It printed a BrokenPipeError traceback and exited 1 (3 of 4 tries with `| head -1`).
    result = run_into_closed_pipe(*argv)
    assert result.stderr.decode() == ""
    assert result.returncode == 141  # 128 + SIGPIPE, as a shell reports `yes | head -1`


class _GoneReader:
    """A stdout whose reader has gone: every write fails as a closed pipe does."""

    def write(self, text: str) -> int:
        del text
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_main_returns_141_for_every_subcommand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _GoneReader())
    assert main(["examples", "--json"]) == 141
    argv = ["explain", "variadic-split", "--shape", "4", "--axis", "0", "--lengths", "1,-1"]
    assert main(argv) == 141
    assert main(["explain", "split", "--shape", "4", "--axis", "0", "--num-splits", "2"]) == 141


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv",
    [("examples",), ("explain", "split", "--shape", "6", "--axis", "0", "--num-splits", "2")],
)
def test_a_stdout_that_cannot_be_written_is_one_line_and_exit_1(argv: tuple[str, ...]) -> None:
    # A full disk (/dev/full) ended in an OSError traceback, exit 1.
    with open("/dev/full", "wb") as full:  # noqa: PTH123 - a device, not a path to handle
        result = subprocess.run(
            [sys.executable, "-m", "datamove", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    err = result.stderr.decode()
    assert err == "datamove: error: stdout cannot be written (No space left on device)\n"
    assert result.returncode == 1


def _with_closed(fd: int, *argv: str) -> list[str]:
    """``argv`` run with ``fd`` closed, by the shell (``>&-``): no ``preexec_fn``, whose fork
    JAX (imported by other tests) warns of, which the suite turns into an error."""
    return ["sh", "-c", f'exec "$0" "$@" {fd}>&-', *argv]


def test_a_closed_stdout_is_one_line_and_exit_1() -> None:
    # With fd 1 closed (`datamove examples >&-`) sys.stdout is None: an AttributeError
    # traceback from main's flush.
    result = subprocess.run(
        _with_closed(1, sys.executable, "-m", "datamove", "examples"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        timeout=120,
    )
    assert result.stderr.decode() == "datamove: error: stdout cannot be written (it is closed)\n"
    assert result.returncode == 1


class _FullDisk:
    def write(self, text: str) -> int:
        del text
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass


def test_main_returns_1_when_stdout_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    assert main(["examples", "--json"]) == 1
    assert capsys.readouterr().err == (
        "datamove: error: stdout cannot be written (No space left on device)\n"
    )


def test_a_closed_stderr_drops_messages_and_changes_nothing_else(tmp_path: Path) -> None:
    # With fd 2 closed (`2>&-`) sys.stderr is None: split died on sys.stderr.isatty() (exit 1,
    # nothing written), and an error went to stdout, as print(file=None) writes there.
    np.save(tmp_path / "x.npy", np.arange(6))

    def run(*argv: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            _with_closed(2, sys.executable, "-m", "datamove", *argv),
            capture_output=True,
            check=False,
            timeout=120,
            cwd=tmp_path,
        )

    done = run("split", "x.npy", "--axis", "0", "--num-splits", "2", "--out", "a.npy", "b.npy")
    assert (done.returncode, done.stdout) == (
        0,
        b"a.npy: [3] (3 elements)\nb.npy: [3] (3 elements)\n",
    )
    assert np.load(tmp_path / "b.npy").tolist() == [3, 4, 5]
    done = run("check", "missing.xml")
    assert (done.returncode, done.stdout) == (1, b"")


def test_ctrl_c_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Ctrl-C in any command but split was a KeyboardInterrupt traceback (run, check, explain
    # of a large model); run leaves nothing behind then (its files are renamed at the end).
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_ir, "load_npy", interrupted)
    xml, out = str(write_example(tmp_path)), tmp_path / "out"  # run reads the model first
    assert main(["run", xml, "--input", "x=x.npy", "--output-dir", str(out)]) == 130
    assert capsys.readouterr().err == "datamove: interrupted\n"
    assert not out.exists()


def test_text_stdout_cannot_encode_is_written_escaped(tmp_path: Path) -> None:
    # An output name (or a file name) that stdout's encoding cannot hold was a
    # UnicodeEncodeError traceback and exit 1, after the files were written: with
    # PYTHONIOENCODING=ascii, or =utf-8 (strict) and a file name that is not UTF-8.
    write_example(tmp_path)
    (tmp_path / "m.xml").write_text(_XML.replace('names="parts_a"', 'names="\u65e5\u672c"'))
    (tmp_path / "m.bin").write_bytes((tmp_path / "example.bin").read_bytes())
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    argv = ["run", "m.xml", "--input", "x=x.npy", "--output-dir", "o"]
    done = subprocess.run(
        [sys.executable, "-m", "datamove", *argv],
        capture_output=True,
        check=False,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.startswith(b"\\u65e5\\u672c: float32 [2, 2] -> o/__.npy\n")


class _Collecting:
    """A caller's stdout whose write returns None, as many file-like objects' do."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)

    def flush(self) -> None:
        pass


def test_main_writes_to_any_stdout_a_caller_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout = _Collecting()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["explain", "split", "--shape", "6", "--axis", "0", "--num-splits", "2"]) == 0
    assert "".join(stdout.parts).startswith("Split on x of shape [6], axis 0, num_splits 2\n")
    assert sys.stdout is stdout
