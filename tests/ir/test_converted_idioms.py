"""PyTorch indexing idioms as users convert them: by ``openvino.convert_model`` on dynamic
inputs (IR) and by ``torch.onnx.export`` with dynamic axes (ONNX), each fed several sizes.

At each size, ``check`` is OK exactly where the peer runs the model (OpenVINO's CPU plugin,
onnxruntime); ``run`` gives the peer's outputs and PyTorch's; and each layer's ``explain``
NumPy index, applied to the layer's input as the peer computes it, gives the peer's output of
that layer. A differential hunt's idioms (tests/ir/test_converted_slicing.py has its finds on
shape subgraphs), one conversion each.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir

torch = pytest.importorskip("torch")
onnx_graphs = pytest.importorskip("onnx_graphs")

pytestmark = pytest.mark.openvino


def _export(fn: Any, example: tuple[int, ...], path: Path) -> Any:
    """``torch.onnx.export`` (the TorchScript exporter: it works offline) of ``fn``, every
    axis of its input ``x`` dynamic."""
    torch_models = pytest.importorskip("torch_models")
    axes = {"x": {k: f"d{k}" for k in range(len(example))}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            torch_models.Fn(fn),
            (torch.zeros(example),),
            str(path),
            input_names=["x"],
            dynamic_axes=axes,
            dynamo=False,
            opset_version=17,
        )
    return onnx_graphs.onnx.load(str(path))


def _session(model: Any) -> Any:
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def test_an_if_s_branch_not_taken_at_the_given_shapes_is_not_checked(tmp_path: Path) -> None:
    # A hunt's find: torch exports x[:, :1].squeeze(1) on dynamic axes as an If on
    # x.shape[1] == 1 whose then branch squeezes. At [4,0] the condition is known false and
    # onnxruntime runs the else branch (an Identity: [4,0], as PyTorch's no-op squeeze), yet
    # check walked the then branch too and reported its Squeeze ("dim 1 of [4,0] is not 1").
    model = _export(lambda x: x[:, :1].squeeze(1), (2, 6), tmp_path / "m.onnx")
    assert "If" in [n.op_type for n in model.graph.node]
    read = ir.read_onnx(tmp_path / "m.onnx")
    for size, want in [((4, 0), (4, 0)), ((4, 3), (4,)), ((1, 1), (1,))]:
        x = np.zeros(size, np.float32)
        (got,) = _session(model).run(None, {"x": x})
        assert got.shape == want == tuple(torch.zeros(size)[:, :1].squeeze(1).shape)
        report = read.check({"x": list(size)})
        assert report.ok, (size, report.problems)
    # where the condition is not known, both branches are checked, as before
    assert read.check().ok
