"""The command-line sessions shown in README.md and docs/ are real: each is run here.

A ``console`` block holds ``$ datamove ...`` lines (or ``$ python examples/NAME.py``, a script
of the repository), each followed by the exact output (stdout, then stderr), and ``(exit N)``
when the exit status is not 0. The files they name are made first: ``example.xml`` by
``datamove.ir._examples.write_example`` (``unsound.xml`` by ``ir_examples.write_unsound_example``,
``example.onnx`` by ``write_onnx_example`` where ``onnx`` is installed; a session that names it
skips otherwise), ``x.npy`` ([2,6] float32), ``big.npy`` ([1000,4] float32), and
``attention.xml`` by ``examples/attention.py`` (where torch and openvino are installed; skipped
otherwise).
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from datamove.cli import main
from datamove.ir._examples import write_example, write_onnx_example
from ir_examples import write_unsound_example

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```console\n(.*?)```", re.DOTALL)
DOCS = ("README.md", *sorted(f"docs/{p.name}" for p in ROOT.glob("docs/*.md")))


def _sessions() -> list[object]:
    params = []
    for doc in DOCS:
        for block in BLOCK.findall((ROOT / doc).read_text(encoding="utf-8")):
            commands = re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]
            for text in commands:
                line, _, expected = text.partition("\n")
                params.append(pytest.param(line, expected, id=f"{doc}: {line[:60]}"))
    return params


# A file a session names -> the example script that writes it (it needs torch and openvino)
MADE_BY = {"attention.xml": "examples/attention.py"}


def _run_script(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Run ``python examples/NAME.py ARGS...`` in this process, as ``__main__``."""
    assert argv[0] == "python"
    assert argv[1].startswith("examples/")
    pytest.importorskip("torch")
    pytest.importorskip("openvino")
    monkeypatch.setattr(sys, "argv", argv[1:])
    runpy.run_path(str(ROOT / argv[1]), run_name="__main__")


@pytest.mark.parametrize(("line", "expected"), _sessions())
def test_console_session_is_real(
    line: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_example(tmp_path)
    write_unsound_example(tmp_path)
    if ".onnx" in line:
        pytest.importorskip("onnx")
        write_onnx_example(tmp_path)
    np.save("x.npy", np.arange(12, dtype=np.float32).reshape(2, 6))
    np.save("big.npy", np.zeros((1000, 4), np.float32))
    argv = shlex.split(line)
    for name, script in MADE_BY.items():
        if name in argv and argv[:2] != ["python", script]:
            with contextlib.redirect_stdout(io.StringIO()):
                _run_script(["python", script], monkeypatch)
    code = 0
    status = re.search(r"^\(exit (\d+)\)\n?\Z", expected, flags=re.MULTILINE)
    if status:
        code = int(status.group(1))
        expected = expected[: status.start()]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if argv[0] == "python":
            _run_script(argv, monkeypatch)
            got = 0
        else:
            assert argv[0] == "datamove"
            got = main(argv[1:])
    assert got == code
    assert out.getvalue() + err.getvalue() == expected


FENCED = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize("doc", DOCS)
def test_every_example_of_a_doc_is_run(doc: str) -> None:
    # A session is a console block (run above), Python is doctests (pytest's --doctest-glob):
    # a text block that shows a command and its output, or a python block of plain code, is
    # run by nothing and drifts.
    text = (ROOT / doc).read_text(encoding="utf-8")
    unrun = [
        f"{doc}:{text.count(chr(10), 0, block.start()) + 1}"
        for block in FENCED.finditer(text)
        if (block.group(1) != "console" and re.search(r"^\$ ", block.group(2), re.MULTILINE))
        or (block.group(1) == "python" and ">>> " not in block.group(2))
    ]
    assert unrun == []
