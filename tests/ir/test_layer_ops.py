"""The layer-type registry: a supported type is one `LayerOp` record in ``LAYER_OPS``, and
everything the IR reader does with a layer (read, check, run, shape plans) goes through it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_run_refuses import X, _one_op, _write

from datamove import ir
from datamove.ir import _opsets
from datamove.ir._fold import FOLDERS
from datamove.ir._onnx_shapes import SHAPE_NODES
from datamove.ir._ops import LAYER_OPS, Context, Info, LayerOp


def _flip_infer(layer: Any, ins: list[Info], context: Context) -> list[Info]:
    del layer, context
    return [Info(ins[0].shape, ins[0].etype)]


# A made-up type: reverse the last axis. A record is all it takes.
FLIP = LayerOp(
    "Flip",
    (1,),
    _flip_infer,
    run=lambda _layer, _fixed: lambda xs: (xs[0][..., ::-1],),
    plan=lambda _layer, _fixed: lambda _shape: ((..., slice(None, None, -1)),),
    data_ports=(0,),
)


def test_each_record_is_filed_under_its_name() -> None:
    assert {name for name, op in LAYER_OPS.items() if op.name == name} == set(LAYER_OPS)
    assert set(LAYER_OPS) == {
        "Parameter",
        "Const",
        "Result",
        "Split",
        "VariadicSplit",
        "StridedSlice",
        "Slice",
        "Concat",
        "Unsqueeze",
        "Squeeze",
        "Reshape",
        "Transpose",
    }


ROOT = Path(__file__).resolve().parents[2]
# Each place the docs list the layer types (start, end of the list) and whether it lists them
# all or only the counted ones (`CheckReport.checked`: no Parameter, Const or Result).
TYPE_LISTS = [
    ("src/datamove/ir/__init__.py", "Supported layer types:", "A model with other", True),
    ("src/datamove/ir/_ops.py", "adding a layer type is one record here.", '"""', False),
    ("src/datamove/ir/_model.py", "its data-movement operators:", ")", False),
    ("docs/ir.md", "## What is supported", "- Slice with 4 inputs", True),
    ("docs/ir.md", "on a checked layer (", ")", False),
    ("docs/cli.md", "the layers datamove checked (", ")", False),
    ("README.md", "declares them and counted.", "among them is checked", False),
]


@pytest.mark.parametrize(
    ("path", "start", "end", "every"), TYPE_LISTS, ids=[f"{p}: {s}" for p, s, _, _ in TYPE_LISTS]
)
def test_the_docs_list_every_supported_layer_type(
    path: str, start: str, end: str, *, every: bool
) -> None:
    # Unsqueeze and Squeeze became checked layers after these lists were written: a type added
    # to LAYER_OPS is named in each of them.
    text = (ROOT / path).read_text(encoding="utf-8")
    assert start in text
    passage = text.split(start, 1)[1].split(end, 1)[0]
    named = set(re.findall(r"\w+", passage))
    want = {name for name, op in LAYER_OPS.items() if every or op.counted}
    assert sorted(want - named) == []


def test_a_new_layer_type_is_one_registry_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Flip is no OpenVINO type: here it is one of opset1, as a real new type is in _opsets.
    monkeypatch.setitem(_opsets._HELD, "flip", _opsets.held("Negative"))
    xml, blob = _one_op("flip", [], "", [[2, 6]])  # any case, as OpenVINO looks types up
    path = _write(tmp_path, xml, blob)
    report = ir.read_model(path).check()
    assert report.ok  # opaque: taken as declared
    assert (report.checked, report.opaque) == ({}, {"flip": 1})

    monkeypatch.setitem(LAYER_OPS, "Flip", FLIP)
    model = ir.read_model(path)
    report = model.check()
    assert (report.ok, report.checked, report.opaque) == (True, {"Flip": 1}, {})
    seen = []
    for _ in range(4):  # the checked path, then the shape plan is built, then used
        (out,) = model.run({"x": X}).values()
        np.testing.assert_array_equal(out, X[:, ::-1])
        assert np.shares_memory(out, X)
        seen.append(model.shape_plan_info().planned)
    assert seen == [0, 1, 1, 1]


def test_an_unplannable_layer_keeps_the_model_on_the_checked_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(_opsets._HELD, "flip", _opsets.held("Negative"))
    monkeypatch.setitem(LAYER_OPS, "Flip", dataclasses.replace(FLIP, plan=None))
    model = ir.read_model(_write(tmp_path, *_one_op("Flip", [], "", [[2, 6]])))
    for _ in range(3):
        (out,) = model.run({"x": X}).values()
        np.testing.assert_array_equal(out, X[:, ::-1])
    assert model.shape_plan_info().shapes == 0


def test_the_docs_say_which_folded_types_are_checked_and_which_opaque() -> None:
    # docs/ir.md, Shape subgraphs: the types check() folds are listed as opaque, and those of
    # them that are checked layers (Squeeze, Unsqueeze and Reshape since they became views) apart.
    text = (ROOT / "docs/ir.md").read_text(encoding="utf-8")
    folded = text.split("ShapeOf's in `_bounds.py`):", 1)[1].split("are checked layers", 1)[0]
    opaque, checked = folded.rsplit(";", 1)
    folders = {*FOLDERS, "ShapeOf"}
    assert set(re.findall(r"\w+", opaque)) >= folders - set(LAYER_OPS)
    assert set(re.findall(r"\w+", opaque)) & set(LAYER_OPS) == set()
    assert set(re.findall(r"\w+", checked)) >= folders & set(LAYER_OPS)


def test_the_docs_table_of_onnx_shape_nodes_is_the_registry() -> None:
    # docs/ir.md, ONNX shape subgraphs: "a node of any other type ... gives no value", so the
    # table's first column names exactly the types _onnx_shapes translates (Identity was left out).
    text = (ROOT / "docs/ir.md").read_text(encoding="utf-8")
    table = text.split("| ONNX | IR layer |", 1)[1].split("\n\n", 1)[0]
    cells = [row.split("|")[1] for row in table.splitlines() if row.startswith("| ")]
    named = set(re.findall(r"[A-Z]\w+", " ".join(re.sub(r"\(.*?\)", "", c) for c in cells)))
    assert named == set(SHAPE_NODES)
