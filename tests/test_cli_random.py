"""Random command lines: ``datamove`` exits 0, 1 or 2 with a message, never with a traceback.

Each command line is a random pick of the commands, options and values the CLI knows, and of
files of every kind (an IR model, .npy arrays, a DirectML JSON desc), run in a folder of its
own. Found once: ``datamove dml check`` on a binary file (a UnicodeDecodeError).
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from datamove.cli import main
from datamove.ir._examples import write_example
from strategies import fixed_settings

WORDS = [
    *("examples", "explain", "check", "run", "split", "dml", "strided-slice", "variadic-split"),
    *("--shape", "--begin", "--end", "--stride", "--axis", "--num-splits", "--lengths", "--json"),
    *("--out", "--output-dir", "--input", "--input-shape", "--feature-level", "--begin-mask"),
    *("--end-mask", "--new-axis-mask", "--shrink-axis-mask", "--ellipsis-mask", "--progress"),
    *("--bin", "-h", "--version", "--join-rank-at-3-1", "table", "--element-limit", "both"),
    *("--no-dword-total-size", "--allow-output-aliasing"),
    *("example.xml", "x.npy", "ok.npy", "d.json", "x=x.npy", "x=[2,6]", "x=[?]", "out", "a.npy"),
    *("0", "1", "-1", "2,3", "[?,4]", "1,-1", "4_1", "0x4100", "9_9", "", "a", "1,,2", "..."),
    *("b.npy", "[...]", "99999999999999999999", "nofile.json"),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli")
    write_example(path)
    np.save(path / "x.npy", np.zeros((2, 6), np.float32))
    np.save(path / "ok.npy", np.arange(12).reshape(3, 4))
    (path / "d.json").write_text('{"type": "DML_OPERATOR_SPLIT", "desc": {}}', encoding="utf-8")
    return path


@fixed_settings(400)
@example(command="dml check", words=["x.npy"])  # binary: once a UnicodeDecodeError
@example(command="run", words=["example.xml", "--input", "x=x.npy", "--output-dir", "x.npy"])
@example(command="split", words=["ok.npy", "--axis", "0", "--lengths", "1,,2", "--out", "a.npy"])
@given(
    command=st.sampled_from(["explain", "check", "run", "split", "dml", "dml check", ""]),
    words=st.lists(st.sampled_from(WORDS), max_size=9),
)
def test_random_command_lines_end_in_an_exit_code(folder: Path, command: str, words: Any) -> None:
    argv = [*command.split(), *words]
    here = Path.cwd()
    os.chdir(folder)
    try:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        os.chdir(here)
    assert code in (0, 1, 2), argv
    assert "Traceback" not in err.getvalue(), argv
