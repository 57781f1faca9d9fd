"""ONNX models read by datamove against onnxruntime, node by node, at sampled input sizes.

Shape subgraphs (Shape, Gather, integer arithmetic with extreme constants) feeding a Slice, on
inputs of symbolic dims: every value datamove knows or bounds, and every inferred shape, holds
what onnxruntime computes at each size the dims take; where a Slice's expression is written, it
gives onnxruntime's output.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir

onnx_graphs = pytest.importorskip("onnx_graphs")
ort = pytest.importorskip("onnxruntime")
onnx = onnx_graphs.onnx
helper, TensorProto, numpy_helper = onnx.helper, onnx.TensorProto, onnx.numpy_helper

I64, I32 = TensorProto.INT64, TensorProto.INT32
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)


def _c(name: str, values: Any, dtype: Any = np.int64) -> Any:
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def _model(nodes: list[Any], inits: list[Any], x_shape: list[Any], opset: int = 13) -> Any:
    """Every node output a graph output of no declared type (datamove infers them all)."""
    outs = [o for n in nodes for o in n.output if o]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [onnx.ValueInfoProto(name=o) for o in outs],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _run(model: Any, x: np.ndarray) -> dict[str, np.ndarray] | None:
    """Every output as onnxruntime computes it; ``None`` where it refuses the model or input."""
    so = ort.SessionOptions()
    so.log_severity_level = 4
    try:
        session = ort.InferenceSession(
            model.SerializeToString(), so, providers=["CPUExecutionProvider"]
        )
        names = [o.name for o in session.get_outputs()]
        return dict(zip(names, session.run(None, {"x": x}), strict=True))
    except Exception:  # noqa: BLE001 - onnxruntime's own errors: a refused model or size
        return None


def _holds(value: Any, got: np.ndarray) -> str | None:
    """Why datamove's value (shape, value or bounds) does not admit ``got``; ``None`` if it does."""
    shape = value.shape
    if shape.rank is not None and (
        shape.rank != got.ndim
        or any(n not in d for d, n in zip(shape.dims, got.shape, strict=True))
    ):
        return f"shape {shape}, onnxruntime {got.shape}"
    if value.value is not None and not np.array_equal(np.asarray(value.value), got):
        return f"value {value.value!r}, onnxruntime {got!r}"
    if value.value is None and value.lower is not None and got.dtype.kind in "iu":
        lower = np.broadcast_to(value.lower, got.shape)
        upper = np.broadcast_to(value.upper, got.shape)
        if not ((lower <= got) & (got <= upper)).all():
            return f"bounds {value.lower!r}..{value.upper!r}, onnxruntime {got!r}"
    return None


def _compare(model: Any, tmp_path: Path, sizes: list[tuple[int, ...]]) -> int:
    """Datamove's values and explained Slice against onnxruntime at each size; how many ran."""
    path = onnx_graphs.save(model, tmp_path)
    read = ir.read_onnx(path)
    values, *_ = read._walk({}, compare=True)
    explained = {int(i["layer_id"]): i for i in read.explain()}
    nodes = list(model.graph.node)
    ran = 0
    for size in sizes:
        x = np.arange(math.prod(size), dtype=np.float32).reshape(size)
        got = _run(model, x)
        if got is None:
            continue
        ran += 1
        for name, array in got.items():
            why = _holds(values[name], array)
            assert why is None, (name, size, why, onnx.printer.to_text(model.graph))
        for index, info in explained.items():
            text = info["numpy"]
            if text is None or (info["runtime"] and "expressions" not in info):
                continue
            try:
                mine = eval(text, {"x": x})  # noqa: S307 - the expression under test
            except NameError:  # a run-time value named, not written
                continue
            want = got[nodes[index].output[0]]
            assert mine.shape == want.shape, (text, size, onnx.printer.to_text(model.graph))
            np.testing.assert_array_equal(mine, want)
    return ran


# -- witnesses ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("op", "constant", "first"),
    [
        ("Mul", INT64_MAX, True),  # 2 * INT64_MAX wraps to -2
        ("Mul", 2**62, True),  # 2 * 2**62 wraps to INT64_MIN
        ("Mul", INT64_MIN, False),  # INT64_MIN * 1 - 3 (below) wraps to INT64_MAX - 2
        ("Add", INT64_MAX - 1, True),  # 2 + INT64_MAX - 1 wraps to INT64_MIN
        ("Sub", INT64_MIN + 2, True),  # 2 - (INT64_MIN + 2) wraps to INT64_MIN
        ("Sub", INT64_MIN + 2, False),  # INT64_MIN + 2 - 3 wraps to INT64_MAX
    ],
)
def test_arithmetic_on_a_dynamic_dim_that_wraps_is_not_bounded_as_if_it_did_not(
    op: str, constant: int, first: bool, tmp_path: Path
) -> None:
    # onnxruntime wraps int64 arithmetic: x.shape[0] * INT64_MAX is -2 at 2 rows, outside the
    # [0, INT64_MAX] the bounds claimed ("unbounded above"); so did its Min with 1, a Slice end
    # that gave 0..1 columns where onnxruntime keeps 6 at 2 rows
    ins = ["d", "k"] if first else ["k", "d"]
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["d"], axis=0),
        helper.make_node(op, ins, ["v"]),
        helper.make_node("Sub", ["v", "three"], ["w"]),
        helper.make_node("Min", ["w", "one"], ["m"]),
        helper.make_node("Reshape", ["m", "flat"], ["e"]),
        helper.make_node("Slice", ["x", "zeros", "e", "axis1"], ["y"]),
    ]
    inits = [
        _c("zero", 0),
        _c("k", constant),
        _c("three", 3),
        _c("one", 1),
        _c("flat", [-1]),
        _c("zeros", [0]),
        _c("axis1", [1]),
    ]
    model = _model(nodes, inits, ["N", 8])
    assert _compare(model, tmp_path, [(n, 8) for n in range(5)]) == 5


def _product_model(big: int) -> Any:
    """The product of x's dims and ``big`` (ReduceProd of a Concat), plus 3: a Slice's end."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Concat", ["s", "big"], ["t"], axis=0),
        helper.make_node("ReduceProd", ["t"], ["p"], keepdims=1),
        helper.make_node("Add", ["p", "three"], ["q"]),
        helper.make_node("Min", ["q", "one"], ["e"]),
        helper.make_node("Slice", ["x", "zeros", "e", "zeros"], ["y"]),
    ]
    inits = [_c("big", [big]), _c("three", [3]), _c("one", [1]), _c("zeros", [0])]
    return _model(nodes, inits, ["N"])


def test_a_product_of_dims_that_overflows_is_not_bounded_as_if_it_did_not(tmp_path: Path) -> None:
    # ReduceProd of [N, 2**62] passes int64 at 2 rows (onnxruntime saturates it to INT64_MAX,
    # below); plus 3 it wraps to INT64_MIN + 2, outside the 3..INT64_MAX the bounds claimed
    assert _compare(_product_model(2**62), tmp_path, [(n,) for n in range(5)]) == 5


def test_onnxruntime_saturates_an_int64_product_that_the_reference_wraps() -> None:
    # docs/ir.md (ONNX shape subgraphs): the product of [2, 2**62] is INT64_MAX in onnxruntime,
    # INT64_MIN (wrapped, as its Mul wraps) in onnx.reference; datamove bounds it by the whole
    # range
    from onnx.reference import ReferenceEvaluator

    model = _product_model(2**62)
    x = np.zeros(2, dtype=np.float32)
    got = _run(model, x)
    assert got is not None
    assert got["p"].tolist() == [INT64_MAX]
    assert got["q"].tolist() == [INT64_MIN + 2]  # the Add after it wraps
    (p,) = ReferenceEvaluator(model).run(["p"], {"x": x})
    assert p.tolist() == [INT64_MIN]
