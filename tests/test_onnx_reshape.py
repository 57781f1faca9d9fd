"""ONNX `check` of a data Reshape whose shape is known, against onnxruntime and onnx.reference.

One node ``x -> Reshape(x, s) -> y``, ``s`` an initializer, at random input shapes, shape
vectors (0, -1, repeated -1, values below -1, zeros past the rank) and ``allowzero``: check's
verdict is whether onnxruntime runs it (and onnx.reference with it), its output shape the one
they give; on interval shapes, a problem only where no size in the box runs.
"""

from __future__ import annotations

import itertools
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


def _ort_shapes(model: Any, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...] | None]:
    """The output's shape at each input shape as onnxruntime gives it, ``None`` where it
    refuses (the model, at load: ``-2``; or that input)."""
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
    except Exception:  # noqa: BLE001 - onnxruntime's Fail
        return [None] * len(shapes)
    found: list[tuple[int, ...] | None] = []
    for shape in shapes:
        try:
            found.append(tuple(session.run(None, {"x": np.zeros(shape, np.float32)})[0].shape))
        except Exception:  # noqa: BLE001 - onnxruntime's Fail, InvalidArgument
            found.append(None)
    return found


def _reference_shape(model: Any, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    from onnx.reference import ReferenceEvaluator

    try:
        return tuple(
            ReferenceEvaluator(model).run(None, {"x": np.zeros(shape, np.float32)})[0].shape
        )
    except Exception:  # noqa: BLE001 - NumPy's ValueError, IndexError
        return None


_shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3)
_targets = st.lists(st.sampled_from([-2, -1, -1, 0, 0, 1, 2, 3, 4, 6]), min_size=1, max_size=4)


@settings(max_examples=examples(120), deadline=None)
@given(_shapes, _targets, st.sampled_from([0, 1]), st.sampled_from(_OPSETS))
def test_a_reshape_is_a_problem_where_onnxruntime_refuses_it(
    tmp_path_factory: Any, shape: list[int], target: list[int], allowzero: int, opset: int
) -> None:
    allowzero = allowzero if opset >= 14 else 0
    model = _model(target, allowzero, len(shape), opset)
    path = tmp_path_factory.mktemp("reshape") / "m.onnx"
    onnx.save(model, path)
    report = ir.read_onnx(path).check({"x": shape})
    (want,) = _ort_shapes(model, [tuple(shape)])
    repro = f"Reshape({shape}, {target}, allowzero={allowzero}) opset {opset}: {report.problems}"
    assert report.checked == {"Reshape": 1}, repro
    assert report.ok == (want is not None), repro
    if want is None:
        (problem,) = report.problems
        assert (problem.layer_id, problem.layer_name, problem.kind) == ("0", "view", "operator")
        assert problem.message.startswith(f"Reshape: shape={target}"), problem.message
    else:
        assert report.outputs["y"][0] == dm.PartialShape(list(want)), repro
    # onnx.reference agrees, but where NumPy takes a value below -1 as a -1
    if min(target) >= -1:
        assert _reference_shape(model, tuple(shape)) == want, repro


_boxes = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=1, max_size=3)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes, _targets, st.sampled_from([0, 1]))
def test_a_reshape_on_interval_dims_is_a_problem_only_where_no_size_runs(
    tmp_path_factory: Any, box: list[tuple[int, int]], target: list[int], allowzero: int
) -> None:
    model = _model(target, allowzero, len(box), 14)
    path = tmp_path_factory.mktemp("reshape") / "m.onnx"
    onnx.save(model, path)
    text = "[" + ",".join(f"{lo}..{lo + width}" for lo, width in box) + "]"
    report = ir.read_onnx(path).check({"x": text})
    sizes = list(itertools.product(*(range(lo, lo + width + 1) for lo, width in box)))
    runs = dict(zip(sizes, _ort_shapes(model, sizes), strict=True))
    repro = f"Reshape({text}, {target}, allowzero={allowzero}): {report.problems}"
    if not report.ok:
        assert all(got is None for got in runs.values()), repro
    inferred = report.outputs["y"][0]
    for got in filter(None, runs.values()):
        assert inferred.compatible(dm.PartialShape(list(got))), repro
        assert inferred.rank is None or all(
            g in d for g, d in zip(got, inferred.dims, strict=True)
        ), repro
