"""ONNX graphs (tests/onnx_graphs.py) converted by ``openvino.convert_model`` and saved as IR.

The same graphs tests/test_onnx_models.py checks as ``.onnx`` files: as IR, ``datamove check``
exits 0 with every data-movement layer counted as checked (against OpenVINO's own op list), a
copy with one output dim of such a layer edited is a ``shape`` problem on that layer, each
layer's ``explain`` expression on an array of its declared input shape gives its declared output
shape and datamove's values, and OpenVINO runs the IR to onnxruntime's outputs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_converted_models import _lower, _openvino_counts, edit_each_move
from test_explain_model import _check_static

from datamove import ir
from datamove.cli import main

ov_models = pytest.importorskip("ov_models")
onnx_graphs = pytest.importorskip("onnx_graphs")
ov = ov_models.ov

pytestmark = pytest.mark.openvino


def _dynamic(shape: list[int]) -> list[Any]:
    """Every dim symbolic but the last (a MatMul's weights need it)."""
    return [f"d{k}" for k in range(len(shape) - 1)] + [shape[-1]]


# OpenVINO's ONNX front end writes Split-18's num_outputs as Split-1, which refuses an uneven
# dim (test_openvino_refuses_an_uneven_split_18): its split graph is converted at 6, not 7.
SHAPES = {n: s for n, (_, s) in onnx_graphs.GRAPHS.items()}
SHAPES["split-18 num_outputs, relu, add"] = [2, 3, 6]


def _converted(name: str, tmp_path: Path, *, dynamic: bool) -> tuple[Any, Path]:
    build, shape = onnx_graphs.GRAPHS[name][0], SHAPES[name]
    model = build(_dynamic(shape) if dynamic else shape)
    path = onnx_graphs.save(model, tmp_path, "source")
    return model, ov_models.save(ov.convert_model(str(path)), tmp_path, "converted")


def _arange(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(onnx_graphs.GRAPHS))
def test_converted_onnx_graphs_check_every_data_movement_layer(
    tmp_path: Path, name: str, dynamic: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    model, xml = _converted(name, tmp_path, dynamic=dynamic)
    assert main(["check", str(xml), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"], report["problems"]
    checked, opaque = _openvino_counts(xml)
    assert checked, "the converted model moves data"
    assert (_lower(report["checked"]), _lower(report["opaque"])) == (checked, opaque)
    assert main(["check", str(xml)]) == 0
    assert capsys.readouterr().out.endswith("OK: no problems found\n")
    if not dynamic:
        assert edit_each_move(xml, tmp_path, capsys)
    # OpenVINO runs the IR to what onnxruntime gives on the .onnx
    shape = tuple(SHAPES[name])
    want = onnx_graphs.run_onnxruntime(model, _arange(shape))
    got = ov_models.run_openvino(xml, {"x": _arange(shape)})
    for out in (o.name for o in model.graph.output):
        np.testing.assert_array_equal(got[out], want[out])


@pytest.mark.parametrize("name", list(onnx_graphs.GRAPHS))
def test_converted_onnx_graphs_are_explained(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, xml = _converted(name, tmp_path, dynamic=False)
    assert ir.read_model(xml).check().ok
    assert _check_static(xml, capsys) >= 1


def test_openvino_refuses_an_uneven_split_18(tmp_path: Path) -> None:
    # Split-18 num_outputs=3 on 7: the spec, onnxruntime and datamove give [3, 3, 1];
    # OpenVINO 2026.4's ONNX front end converts it to Split-1 and fails (docs/semantics.md).
    model = onnx_graphs.split18([2, 3, 7])
    path = onnx_graphs.save(model, tmp_path)
    assert ir.read_onnx(path).check().ok
    got = onnx_graphs.run_onnxruntime(model, _arange((2, 3, 7)))
    assert [got[p].shape[-1] for p in ("p0", "p1", "p2")] == [3, 3, 1]
    with pytest.raises(Exception, match="must be evenly divisible"):
        ov.convert_model(str(path))
