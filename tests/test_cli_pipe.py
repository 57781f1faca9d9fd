"""A reader that goes away (``datamove examples | head -1``): exit 141 quietly, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from datamove.cli import main


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
