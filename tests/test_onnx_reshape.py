"""ONNX `check` of a data Reshape whose shape is known, against onnxruntime and onnx.reference.

One node ``x -> Reshape(x, s) -> y``, ``s`` an initializer, at random input shapes, shape
vectors (0, -1, repeated -1, values below -1, zeros past the rank) and ``allowzero``: check's
verdict is whether onnxruntime runs it (and onnx.reference with it), its output shape the one
they give; on interval shapes, a problem only where no size in the box runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove import ir
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


def _reshape_by_a_dim_of_another_tensor() -> Any:
    """``t = Reshape(z, Concat(Shape(y)[0:1], [4]))`` of ``z`` ``[3,4]``: valid only where ``y``
    has 3 rows (Shape-15's ``start`` and ``end``)."""
    nodes = [
        helper.make_node("Shape", ["y"], ["rows"], start=0, end=1),
        helper.make_node("Concat", ["rows", "four"], ["s"], axis=0),
        helper.make_node("Reshape", ["z", "s"], ["t"]),
    ]
    f32 = onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("y", f32, ["m", 4]),
            helper.make_tensor_value_info("z", f32, [3, 4]),
        ],
        [helper.make_tensor_value_info("t", f32, None)],
        [helper.make_tensor("four", onnx.TensorProto.INT64, [1], [4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def test_onnxruntime_s_default_optimizations_run_a_reshape_the_spec_refuses(
    tmp_path: Path,
) -> None:
    # onnxruntime 1.32's ReshapeFusion (ORT_ENABLE_BASIC on, so by default) folds
    # Concat(Shape(y)[0:1], [4]) into the constant [-1, 4], as if the one dim it cannot know
    # were the one the element count gives: z [3,4] comes out [3,4] whatever y's rows. Without
    # optimizations it refuses a y of 1 row, as onnx.reference and the spec do, and so does
    # datamove. The tests' oracle (onnx_graphs.ort_session) runs onnxruntime unoptimized.
    from onnx.reference import ReferenceEvaluator

    model = _reshape_by_a_dim_of_another_tensor()
    path = onnx_graphs.save(model, tmp_path)
    z = np.arange(12, dtype=np.float32).reshape(3, 4)
    ok = {"y": np.zeros((3, 4), np.float32), "z": z}
    for session in (onnx_graphs.ort_session(model), onnx_graphs.ort_session(model, optimized=True)):
        assert session.run(None, ok)[0].shape == (3, 4)
    assert ir.read_onnx(path).check({"y": [3, 4]}).ok

    bad = {"y": np.zeros((1, 4), np.float32), "z": z}
    with pytest.raises(Exception, match="cannot be reshaped to the requested shape"):
        onnx_graphs.ort_session(model).run(None, bad)
    with pytest.raises(ValueError, match="cannot reshape array of size 12"):
        ReferenceEvaluator(model).run(None, bad)
    (problem,) = ir.read_onnx(path).check({"y": [1, 4]}).problems
    assert problem.kind == "operator"
    assert problem.message.startswith("Reshape: shape=[1, 4] gives [1, 4] (4 elements)")
    try:
        (t,) = onnx_graphs.ort_session(model, optimized=True).run(None, bad)
    except Exception as exc:  # noqa: BLE001 - onnxruntime's errors have no common base
        pytest.skip(f"onnxruntime {ort.__version__} optimized refuses it too, fixed: {exc}")
    np.testing.assert_array_equal(t, z)
