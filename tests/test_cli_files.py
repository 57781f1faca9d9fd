"""Every file argument: regular files only, never waiting, bounded; a file cut short is an error.

``check``, ``dml check`` and ``run --input`` waited forever on a FIFO with no writer, ``dml check
/dev/zero`` read until memory ran out, and ``datamove split`` of an input truncated meanwhile
died of SIGBUS, leaving its temporary files behind. Each file argument now goes through
``datamove._files``: the same checks, the same words.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from datamove import ir
from datamove._errors import ValidationError
from datamove.cli import main
from datamove.cli._dml import MAX_JSON_BYTES
from datamove.cli._split_file import split_file
from datamove.ir._examples import write_example
from datamove.ir._graph import MAX_XML_BYTES
from forking import fork_holding

if TYPE_CHECKING:
    from collections.abc import Iterator

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, /dev/zero and alarms are POSIX")


class Hang(BaseException):
    """Raised by SIGALRM: not an OSError (TimeoutError is one), so no ``except`` swallows it."""


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """Fail, not hang, if a command waits on a FIFO: SIGALRM interrupts the blocked open."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def timeout(*_: object) -> None:
        raise Hang("waited on a file argument")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, 20, 1)  # then every second, until the test ends
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _not_regular(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Paths that are no regular file, by name: (path, the rule the error states)."""
    os.mkfifo(tmp_path / "fifo")  # no writer: opening it to read would wait for one
    (tmp_path / "folder").mkdir()
    return {
        "fifo": (str(tmp_path / "fifo"), "is a FIFO, not a regular file"),
        "dev-zero": ("/dev/zero", "is a character device, not a regular file"),
        "directory": (str(tmp_path / "folder"), "is a directory, not a regular file"),
        "missing": (str(tmp_path / "missing"), "does not exist"),
    }


KINDS = ["fifo", "dev-zero", "directory", "missing"]


def _commands(tmp_path: Path, bad: str) -> dict[str, tuple[list[str], str]]:
    """Each command with ``bad`` as one of its file arguments, and the error's first words."""
    xml = write_example(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    out = str(tmp_path / "out")
    run = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", out]
    return {
        "check MODEL": (["check", bad], f"IR: xml_path={bad!r} "),
        "run MODEL": (["run", bad, "--output-dir", out], f"IR: xml_path={bad!r} "),
        "run --input": (
            ["run", str(xml), "--input", f"x={bad}", "--output-dir", out],
            f"run: --input={'x=' + bad!r} ",
        ),
        "dml check FILE": (["dml", "check", bad], f"dml check: file={bad!r} "),
        "split FILE": (
            ["split", bad, "--axis", "0", "--num-splits", "1", "--out", str(tmp_path / "a.npy")],
            f"split: file={bad!r} ",
        ),
        # --bin is checked by its kind (stat), never opened: the model's Const reports it
        "check --bin": (["check", str(xml), "--bin", bad], "IR: layer 1 'axis' (Const): "),
        "run --bin": ([*run, "--bin", bad], "IR: layer 1 'axis' (Const): "),
    }


# The limit is set by the child itself: a preexec_fn is unsafe once the test process has
# threads (the copy engine's pool, JAX's), and could deadlock the fork.
_LIMITED = (
    "import resource, runpy, sys; "
    "resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31)); "
    "sys.argv[0] = 'datamove'; "
    "runpy.run_module('datamove', run_name='__main__')"
)


def _in_subprocess(argv: list[str]) -> tuple[int, str]:
    """Run ``datamove ARGV`` with 2 GiB of address space and a time limit: a regression that
    reads a device until memory runs out fails, and takes nothing from the machine.
    """
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return done.returncode, done.stderr


COMMANDS = [
    "check MODEL",
    "run MODEL",
    "run --input",
    "dml check FILE",
    "split FILE",
    "check --bin",
    "run --bin",
]


@posix_only
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_file_argument_refuses_what_is_no_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str
) -> None:
    bad, rule = _not_regular(tmp_path)[kind]
    argv, head = _commands(tmp_path, bad)[command]
    before = sorted(p.name for p in tmp_path.iterdir())
    if kind == "dev-zero":  # read whole, /dev/zero would take all memory: limit it
        code, err = _in_subprocess(argv)
    else:
        code, err = main(argv), capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"datamove: error: {head}")
    assert err.count("\n") == 1  # one line, no traceback
    if "--bin" in command:  # the .bin is found by stat when the model is read
        assert ("does not exist" if kind == "missing" else rule) in err
    else:
        assert f"{head}{rule}\n" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


@posix_only
@pytest.mark.parametrize("kind", KINDS)
def test_the_library_refuses_them_too(tmp_path: Path, kind: str) -> None:
    bad, rule = _not_regular(tmp_path)[kind]
    with pytest.raises(ir.IRError, match=f"xml_path=.* {rule}$"):
        ir.read_model(bad)
    xml = write_example(tmp_path)
    with pytest.raises(ir.IRError, match=rf"layer 1 'axis' \(Const\): reads weights, .* {rule} "):
        ir.read_model(xml, bin_path=bad)
    with pytest.raises(ValidationError, match=f"file=.* {rule}$"):
        split_file(bad, 0, [tmp_path / "a.npy"], num_splits=1)


@posix_only
def test_a_bin_replaced_by_a_fifo_after_read_model_is_never_opened(tmp_path: Path) -> None:
    # np.memmap opened the .bin when a Const was first read: a FIFO there waited for a writer.
    # read_model opens it: the model keeps its own weights, and the FIFO is never opened.
    model = ir.read_model(write_example(tmp_path))
    (tmp_path / "example.bin").unlink()
    os.mkfifo(tmp_path / "example.bin")
    out = model.run({"x": np.arange(12, dtype=np.float32).reshape(2, 6)})
    assert [a.shape for a in out.values()] == [(2, 2), (2, 4)]


def test_a_bin_replaced_after_read_model_keeps_the_model_s_weights(tmp_path: Path) -> None:
    # The .bin was opened when a Const was first needed: a model read before save_model (or
    # openvino.save_model) replaced its files ran with the new file's weights, split_lengths
    # [3, -1] for the [2, -1] it was read with. OpenVINO keeps the weights it read.
    xml = write_example(tmp_path)
    model = ir.read_model(xml)
    (tmp_path / "other").mkdir()
    other = write_example(tmp_path / "other")
    other.with_suffix(".bin").write_bytes(np.array([1, 3, -1], "<i8").tobytes())
    ir.save_model(ir.read_model(other), xml)  # replaces example.xml and example.bin
    out = model.run({"x": np.arange(12, dtype=np.float32).reshape(2, 6)})
    assert [a.shape for a in out.values()] == [(2, 2), (2, 4)]
    assert [
        a.shape for a in ir.read_model(xml).run({"x": np.zeros((2, 6), np.float32)}).values()
    ] == [
        (2, 3),
        (2, 3),
    ]


@pytest.mark.parametrize("path", [123, None, b"model.xml", ["model.xml"]], ids=repr)
def test_a_path_that_is_no_path_is_an_error(tmp_path: Path, path: Any) -> None:
    # read_model(123) was a TypeError from pathlib
    with pytest.raises(ir.IRError, match=r"is not a path \(a str or an os\.PathLike\)"):
        ir.read_model(path)
    with pytest.raises(ir.IRError, match=r"bin_path=.* is not a path"):
        ir.read_model(write_example(tmp_path), bin_path=path if path is not None else 1.5)
    with pytest.raises(ValidationError, match=r"file=.* is not a path"):
        split_file(path, 0, [tmp_path / "a.npy"], num_splits=1)


@posix_only
def test_a_path_the_system_cannot_open_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    long = str(tmp_path / ("x" * 5000))
    for path, why in [(tmp_path / "loop", "Too many levels of symbolic links"), (long, "too long")]:
        with pytest.raises(ir.IRError, match=rf"xml_path=.* cannot be read \(.*{why}.*\)$"):
            ir.read_model(path)
        assert main(["check", str(path)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("datamove: error: IR: xml_path=")
        assert err.count("\n") == 1


def test_a_path_with_a_nul_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dml", "check", "a\0b"]) == 1
    assert "is not a valid path (it holds a NUL character)" in capsys.readouterr().err
    with pytest.raises(ir.IRError, match="holds a NUL character"):
        ir.read_model("a\0b")


# -- size bounds ---------------------------------------------------------------------------------


def _sparse(path: Path, size: int) -> str:
    with path.open("wb") as f:
        f.truncate(size)  # a sparse file: no disk used, nothing read
    return str(path)


def test_dml_check_reads_at_most_its_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # dml check /dev/zero read 1.85 GB, then printed a MemoryError traceback
    big = _sparse(tmp_path / "big.json", MAX_JSON_BYTES + 1)
    assert main(["dml", "check", big]) == 1
    assert capsys.readouterr().err == (
        f"datamove: error: dml check: file={big!r} is {MAX_JSON_BYTES + 1} bytes, more "
        f"than the {MAX_JSON_BYTES} bytes datamove reads of a DxDispatch JSON file\n"
    )


def test_read_model_reads_at_most_its_bound(tmp_path: Path) -> None:
    big = _sparse(tmp_path / "big.xml", MAX_XML_BYTES + 1)
    with pytest.raises(ir.IRError, match=f"is {MAX_XML_BYTES + 1} bytes, more than the"):
        ir.read_model(big)


def test_read_model_allocates_for_the_file_not_for_its_bound(tmp_path: Path) -> None:
    # read_regular asked FileIO.read for MAX_XML_BYTES + 1: a 256 MiB allocation per model read
    import tracemalloc

    write_example(tmp_path)
    tracemalloc.start()
    try:
        ir.read_model(tmp_path / "example.xml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20


def test_run_input_header_cannot_ask_for_more_memory_than_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # np.load allocated what the header asked: a MemoryError traceback for 745 GiB
    with (tmp_path / "huge.npy").open("wb") as f:
        header = {"descr": "<f4", "fortran_order": False, "shape": (2, 10**11)}
        np.lib.format.write_array_header_1_0(f, header)
    xml = write_example(tmp_path)
    text = f"x={tmp_path / 'huge.npy'}"
    assert main(["run", str(xml), "--input", text, "--output-dir", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err == (
        f"datamove: error: run: --input={text!r} is not a .npy file: its header describes "
        "800000000000 bytes of data, but the file holds 0\n"
    )


def test_run_input_reads_what_np_load_reads(tmp_path: Path) -> None:
    xml = write_example(tmp_path)
    x = np.arange(12, dtype=">f4").reshape(2, 6)
    for order in "CF":
        np.save(tmp_path / "x.npy", np.asarray(x, order=order))
        text = f"x={tmp_path / 'x.npy'}"
        assert main(["run", str(xml), "--input", text, "--output-dir", str(tmp_path / "o")]) == 0
        np.testing.assert_array_equal(np.load(tmp_path / "o" / "parts_b.npy"), x[:, 2:])


# -- a file cut short while it is read -------------------------------------------------------------


def test_a_bin_cut_short_after_read_model_is_an_error(tmp_path: Path) -> None:
    # np.memmap of the .bin: a short slice was a raw ValueError from np.frombuffer, and a .bin
    # cut after it was mapped a SIGBUS
    xml = write_example(tmp_path)
    model = ir.read_model(xml)
    os.truncate(xml.with_suffix(".bin"), 4)
    with pytest.raises(
        ir.IRError, match=r"\(Const\): .*reads weights, but the \.bin file .* was cut short"
    ):
        model.run({"x": np.zeros((2, 6), np.float32)})


# -- a file read by processes forked after it was opened ------------------------------------------
_READ_AFTER_FORK = """
import os, sys
import numpy as np
from datamove._files import open_regular, read_exactly

path = sys.argv[1]
f, _ = open_regular(path, RuntimeError)  # opened once, as a model opens its .bin
pid = os.fork()
rng = np.random.default_rng(pid)
wrong = 0
for _ in range(20000):
    i = int(rng.integers(0, (1 << 20) - 64))
    got = np.empty(256, np.uint8)
    read_exactly(f, got.data, 4 * i, RuntimeError)
    wrong += int(got.view(np.uint32)[0] != i)
if pid == 0:
    os._exit(min(wrong, 100))
_, status = os.waitpid(pid, 0)
print(wrong, os.waitstatus_to_exitcode(status))
"""


@posix_only
def test_processes_forked_after_a_file_was_opened_read_their_own_offsets(tmp_path: Path) -> None:
    # A model's .bin stays open; a forked child shares its file position with the parent. Reads
    # that sought, then read, took each other's offsets now and then: wrong weights, silently
    # (5 to 7 of 30,000 reads in each process measured). Each read names its offset now.
    path = tmp_path / "words.bin"
    path.write_bytes(np.arange(1 << 20, dtype=np.uint32).tobytes())
    run = subprocess.run(
        [sys.executable, "-c", _READ_AFTER_FORK, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert run.stdout.split() == ["0", "0"]  # wrong reads: the parent's, the child's


def test_a_child_forked_mid_read_of_a_bin_reads_it_too(tmp_path: Path) -> None:
    # The .bin's lock, held by a parent's thread as the process forked, stayed held in the
    # child: its first read of a weight waited forever. The child gets a fresh lock.
    setup = """
        import numpy as np
        from datamove import ir

        model = ir.read_model(sys.argv[1])  # its Consts are read on the first run
    """
    child = """
        out = model.run({"x": np.arange(12, dtype=np.float32).reshape(2, 6)})
        assert out["parts_a"].tolist() == [[0.0, 1.0], [6.0, 7.0]]
    """
    run = fork_holding(setup, "[model._bin._lock]", child, str(write_example(tmp_path)))
    assert run.returncode == 0, run.stderr
