"""ONNX `check` of a data Reshape whose shape is known, against onnxruntime and onnx.reference.

One node ``x -> Reshape(x, s) -> y``, ``s`` an initializer, at random input shapes, shape
vectors (0, -1, repeated -1, values below -1, zeros past the rank) and ``allowzero``: check's
verdict is whether onnxruntime runs it (and onnx.reference with it), its output shape the one
they give; on interval shapes, a problem only where no size in the box runs.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import datamove as dm
from strategies import examples

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
onnx_graphs = pytest.importorskip("onnx_graphs")
helper = onnx.helper
_OPSETS = (5, 13, 14, 21)  # Reshape-5, -13, -14 (allowzero), -21


def _model(target: list[int], allowzero: int, rank: int, opset: int) -> Any:
    dims = [f"d{k}" for k in range(rank)]
    attrs = {"allowzero": allowzero} if opset >= 14 else {}
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="view", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [helper.make_tensor("s", onnx.TensorProto.INT64, [len(target)], target)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


_shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3)
_targets = st.lists(st.sampled_from([-2, -1, -1, 0, 0, 1, 2, 3, 4, 6]), min_size=1, max_size=4)


@settings(max_examples=examples(120), deadline=None)
@given(_shapes, _targets, st.sampled_from([0, 1]), st.sampled_from(_OPSETS))
def test_a_reshape_is_a_problem_where_onnxruntime_refuses_it(
    tmp_path_factory: Any, shape: list[int], target: list[int], allowzero: int, opset: int
) -> None:
    allowzero = allowzero if opset >= 14 else 0
    model = _model(target, allowzero, len(shape), opset)
    repro = f"Reshape({shape}, {target}, allowzero={allowzero}) opset {opset}"
    says = f"Reshape: shape={target}"
    directory = tmp_path_factory.mktemp("reshape")
    _, want = onnx_graphs.check_as_onnxruntime(model, shape, directory, says, repro)
    # onnx.reference agrees, but where NumPy takes a value below -1 as a -1
    if min(target) >= -1:
        assert onnx_graphs.reference_shape(model, tuple(shape)) == want, repro


_boxes = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=1, max_size=3)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes, _targets, st.sampled_from([0, 1]))
def test_a_reshape_on_interval_dims_is_a_problem_only_where_no_size_runs(
    tmp_path_factory: Any, box: list[tuple[int, int]], target: list[int], allowzero: int
) -> None:
    model = _model(target, allowzero, len(box), 14)
    report, text, runs = onnx_graphs.check_box(model, box, tmp_path_factory.mktemp("reshape"))
    repro = f"Reshape({text}, {target}, allowzero={allowzero}): {report.problems}"
    if not report.ok:
        assert all(got is None for got in runs.values()), repro
    inferred = report.outputs["y"][0]
    for got in filter(None, runs.values()):
        assert inferred.compatible(dm.PartialShape(list(got))), repro
        assert inferred.rank is None or all(
            g in d for g, d in zip(got, inferred.dims, strict=True)
        ), repro
