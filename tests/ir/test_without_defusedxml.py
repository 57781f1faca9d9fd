"""Reading IR files needs the optional ``ir`` extra (defusedxml); without it, a clear error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from datamove import ir
from datamove.cli import main
from datamove.ir._examples import write_example


def test_a_missing_defusedxml_is_an_ir_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = write_example(tmp_path)
    for name in [m for m in sys.modules if m == "defusedxml" or m.startswith("defusedxml.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "defusedxml", None)  # import defusedxml -> ImportError
    with pytest.raises(ir.IRError, match=r"needs defusedxml.*pip install 'datamove\[ir\]'"):
        ir.read_model(xml)
    assert main(["check", str(xml)]) == 1
    assert "needs defusedxml, which is not installed" in capsys.readouterr().err
