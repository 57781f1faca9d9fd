"""ONNX models read by datamove against onnxruntime, node by node, at sampled input sizes.

Random shape subgraphs (Shape, Gather, integer arithmetic with extreme constants, Cast, Where,
Clip) feeding a Slice, on inputs of symbolic dims: every value datamove knows or bounds, and
every inferred shape, holds what onnxruntime computes at each size the dims take; where a
Slice's expression is written, it gives onnxruntime's output. Witnesses of the bugs found so
are pinned beside.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datamove import ir
from strategies import examples

onnx_graphs = pytest.importorskip("onnx_graphs")
ort = pytest.importorskip("onnxruntime")
onnx = onnx_graphs.onnx
helper, TensorProto, numpy_helper = onnx.helper, onnx.TensorProto, onnx.numpy_helper

I64, I32 = TensorProto.INT64, TensorProto.INT32
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)
INT32_MAX = 2**31 - 1


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


def _divides_int64_min_by_minus_one(model: Any, x: np.ndarray) -> bool:
    """Whether a Div of this run divides INT64_MIN by -1, which kills onnxruntime's process
    (SIGFPE: the whole test run). ``onnx.reference`` tells: it computes what onnxruntime does
    for these nodes (Div truncates as C++ does), without dying; every node output is a graph
    output (`_model`)."""
    if not any(n.op_type == "Div" for n in model.graph.node):
        return False
    from onnx.reference import ReferenceEvaluator

    try:
        with np.errstate(all="ignore"):
            got = ReferenceEvaluator(model).run(None, {"x": x})
    except Exception:  # noqa: BLE001 - what it refuses, onnxruntime refuses too (or runs)
        return False
    values = {o.name: v for o, v in zip(model.graph.output, got, strict=True)}
    values |= {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for node in (n for n in model.graph.node if n.op_type == "Div"):
        a, b = (values.get(name) for name in node.input)
        if a is not None and b is not None:
            a, b = np.broadcast_arrays(a, b)
            if bool(((a == INT64_MIN) & (b == -1)).any()):
                return True
    return False


def _run(model: Any, x: np.ndarray) -> dict[str, np.ndarray] | None:
    """Every output as onnxruntime computes it; ``None`` where it refuses the model or input,
    or would die of it (`_divides_int64_min_by_minus_one`)."""
    if _divides_int64_min_by_minus_one(model, x):
        return None
    try:
        session = onnx_graphs.ort_session(model)
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


def _sentinel_slices(nodes: list[Any], values: dict[str, np.ndarray]) -> set[str]:
    """The outputs of Slices whose end onnxruntime reads otherwise than the spec in this run.

    An end of exactly INT64_MAX or INT32_MAX with a negative step: onnxruntime reads it as "to
    the first" (docs/dialects.md), datamove as the spec.
    """
    out = set()
    for node in nodes:
        if node.op_type != "Slice" or len(node.input) < 5:
            continue
        ends, steps = values.get(node.input[2]), values.get(node.input[4])
        if ends is None or steps is None:
            continue
        ends, steps = np.broadcast_arrays(ends.reshape(-1), steps.reshape(-1))
        if any(e in (INT64_MAX, 2**31 - 1) and k < 0 for e, k in zip(ends, steps, strict=True)):
            out.add(node.output[0])
    return out


def _compare(model: Any, tmp_path: Path, sizes: list[tuple[int, ...]]) -> int:
    """Datamove's values and explained Slice against onnxruntime at each size; how many ran."""
    path = onnx_graphs.save(model, tmp_path)
    read = ir.read_onnx(path)
    values, *_ = read._walk({}, compare=True)
    explained = {int(i["layer_id"]): i for i in read.explain()}
    nodes = list(model.graph.node)
    constants = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    ran = 0
    for size in sizes:
        x = np.arange(math.prod(size), dtype=np.float32).reshape(size)
        got = _run(model, x)
        if got is None:
            continue
        ran += 1
        misread = _sentinel_slices(nodes, {**constants, **got})
        for name, array in got.items():
            if name in misread:
                continue
            why = _holds(values[name], array)
            assert why is None, (name, size, why, onnx.printer.to_text(model.graph))
        for index, info in explained.items():
            if nodes[index].output[0] in misread:
                continue
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


@pytest.mark.parametrize(
    ("start", "step", "text"),
    [
        # start x.shape[0] - 3, step -1: at 1 row the start is -2, below -1, where onnxruntime
        # starts at row 0 and NumPy's x[-2::-1] takes nothing
        ("sub", "minus1", "x[max(x.shape[0]-3, -x.shape[0])::-1]"),
        # a constant start of -10 and a step known at run time (-1): alike
        ("minus10", "run", "x[max(-10, -x.shape[0]):-9223372036854775808:run]"),
        # a start that is never below -1 is written as it is
        ("dim", "minus1", "x[x.shape[0]::-1]"),
    ],
)
def test_a_start_below_the_size_with_a_negative_step_is_written_as_onnx_reads_it(
    start: str, step: str, text: str, tmp_path: Path
) -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["d"], axis=0),
        helper.make_node("Sub", ["d", "three"], ["v"]),
        helper.make_node("Reshape", ["v", "flat"], ["sub"]),
        helper.make_node("Reshape", ["d", "flat"], ["dim"]),
        helper.make_node("Neg", ["dim"], ["negative"]),
        helper.make_node("Div", ["negative", "dim"], ["run"]),  # -1 (0 rows: refused)
        helper.make_node("Slice", ["x", start, "end", "axis", step], ["y"]),
    ]
    inits = [
        _c("zero", 0),
        _c("three", 3),
        _c("flat", [-1]),
        _c("end", [INT64_MIN]),
        _c("axis", [0]),
        _c("minus1", [-1]),
        _c("minus10", [-10]),
    ]
    model = _model(nodes, inits, ["N"])
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert info["numpy"] == text
    for n in range(1, 6):
        x = np.arange(n, dtype=np.float32)
        got = _run(model, x)
        assert got is not None
        np.testing.assert_array_equal(eval(text, {"x": x, "run": int(got["run"][0])}), got["y"])  # noqa: S307


@pytest.mark.parametrize(
    ("ops", "text"),
    [
        # INT64_MAX - N reaches INT64_MAX at 0 rows, which its bounds read as "unbounded above";
        # plus 2 it wraps to INT64_MIN at 1 row (onnxruntime: no rows; Python's x[:2**63]: all)
        ([("Sub", "big", "d"), ("Add", "two", "v0")], None),
        ([("Sub", "big", "d"), ("Sub", "v0", "two")], "x[:9223372036854775807-x.shape[0]-2]"),
        ([("Sub", "small", "d"), ("Mul", "v0", "two")], None),  # INT64_MIN + 7 - N, times 2
        ([("Neg", "d"), ("Add", "v0", "small")], None),  # -N + INT64_MIN + 7 wraps at 8 rows
        ([("Sub", "d", "big"), ("Neg", "v0")], "x[:-(x.shape[0]-9223372036854775807)]"),
    ],
)
def test_an_expression_whose_python_value_passes_int64_is_not_written(
    ops: list[tuple[str, ...]], text: str | None, tmp_path: Path
) -> None:
    # A Slice end a shape subgraph computes is written as Python (explain): only where Python's
    # numbers and onnxruntime's int64 ones agree at every size, as a random soak found
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["d"], axis=0),
        *(helper.make_node(op, list(ins), [f"v{k}"]) for k, (op, *ins) in enumerate(ops)),
        helper.make_node("Reshape", [f"v{len(ops) - 1}", "flat"], ["e"]),
        helper.make_node("Slice", ["x", "zeros", "e", "zeros"], ["y"]),
    ]
    inits = [
        _c("zero", 0),
        _c("big", INT64_MAX),
        _c("small", INT64_MIN + 7),
        _c("two", 2),
        _c("flat", [-1]),
        _c("zeros", [0]),
    ]
    model = _model(nodes, inits, ["N"])
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert info["numpy"] == (text or "x[:e]")
    assert _compare(model, tmp_path, [(n,) for n in (0, 1, 2, 8, 9)]) == 5


@pytest.mark.parametrize(
    ("first", "via", "second"),
    [
        ("Mul", "Identity", "Mul"),  # INT32_MAX * INT32_MAX * N wraps to a negative at 3 rows
        ("Mul", "Identity", "Add"),  # INT32_MAX * N + INT64_MAX - 2**40: wraps at 2**9 + 1 rows
        ("Add", "Identity", "Mul"),  # (N + INT32_MAX) * INT32_MAX wraps past 1 row
        ("Mul", "Cast", "Mul"),  # through a Cast to int64 (a Convert)
        ("Mul", "Where", "Mul"),  # through a Where of a condition known at run time only
        ("Mul", "Unsqueeze", "Mul"),  # and the structural nodes
    ],
)
def test_arithmetic_on_a_product_of_a_dynamic_dim_that_wraps_is_not_bounded_as_if_not(
    first: str, via: str, second: str, tmp_path: Path
) -> None:
    # A random soak's witness: bounds read "unbounded" (INT32_MAX * N, which reaches 2**62 with
    # N up to 2**31) as reaching 2**31 only where they looked for an overflow, so the second
    # Mul was bounded 0..INT64_MAX where onnxruntime gives -4611686031312289789 at 3 rows
    k2 = {"Add": INT64_MAX - 2**40, "Mul": INT32_MAX}[second]
    between = {
        "Identity": helper.make_node("Identity", ["v0"], ["w"]),
        "Cast": helper.make_node("Cast", ["v0"], ["w"], to=I64),
        "Where": helper.make_node("Where", ["c", "v0", "v0"], ["w"]),
        "Unsqueeze": helper.make_node("Unsqueeze", ["v0", "zeros"], ["w"]),
    }[via]
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["d"], axis=0),
        helper.make_node("Greater", ["d", "zero"], ["c"]),
        helper.make_node(first, ["k1", "d"], ["v0"]),
        between,
        helper.make_node(second, ["k2", "w"], ["v1"]),
        helper.make_node("Reshape", ["v1", "flat"], ["e"]),
        helper.make_node("Slice", ["x", "zeros", "e", "zeros"], ["y"]),
    ]
    inits = [_c("zero", 0), _c("k1", INT32_MAX), _c("k2", k2), _c("flat", [-1]), _c("zeros", [0])]
    model = _model(nodes, inits, ["N"])
    sizes = [(n,) for n in (0, 1, 2, 3, 2**9, 2**9 + 1, 2**10)]
    assert _compare(model, tmp_path, sizes) == len(sizes)


def test_a_run_that_divides_int64_min_by_minus_one_is_not_given_to_onnxruntime(
    tmp_path: Path,
) -> None:
    # A random soak's witness killed the test process: onnxruntime 1.32 dies of SIGFPE on an
    # int64 Div of INT64_MIN by a run-time -1 (here -N at one row); it is not run at that size
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["d"], axis=0),
        helper.make_node("Neg", ["d"], ["m"]),
        helper.make_node("Div", ["big", "m"], ["q"]),
        helper.make_node("Reshape", ["q", "flat"], ["e"]),
        helper.make_node("Slice", ["x", "zeros", "e", "zeros"], ["y"]),
    ]
    inits = [_c("zero", 0), _c("big", INT64_MIN), _c("flat", [-1]), _c("zeros", [0])]
    model = _model(nodes, inits, ["N"])
    assert _run(model, np.zeros(1, dtype=np.float32)) is None
    assert _compare(model, tmp_path, [(n,) for n in range(5)]) == 3  # 0 rows: a Div by 0


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


# -- random shape subgraphs ----------------------------------------------------------------------
CONSTANTS = [0, 1, 2, 3, -1, -3, 7, -7, 255, 2**31 - 1, 2**31, 2**32, INT64_MAX, INT64_MIN, 2**62]
_ARITHMETIC = ["Add", "Sub", "Mul", "Div", "Mod", "Min", "Max"]
_UNARY = ["Neg", "Abs", "Cast"]


@st.composite
def shape_subgraphs(draw: Any) -> tuple[Any, list[tuple[int, ...]]]:
    """A Slice whose end (or start) a random subgraph of x's dims computes; sizes to run it at."""
    rank = draw(st.integers(1, 3))
    dims = draw(st.lists(st.sampled_from(["N", "M", 0, 1, 4]), min_size=rank, max_size=rank))
    nodes = [helper.make_node("Shape", ["x"], ["s"])]
    inits: list[Any] = []
    pool = []
    for k in range(draw(st.integers(1, 2))):
        index = draw(st.integers(-rank, rank - 1))
        inits.append(_c(f"i{k}", index))
        nodes.append(helper.make_node("Gather", ["s", f"i{k}"], [f"g{k}"], axis=0))
        pool.append(f"g{k}")
    for k in range(draw(st.integers(1, 4))):
        a, out = draw(st.sampled_from(pool)), f"v{k}"
        op = draw(st.sampled_from(_ARITHMETIC + _UNARY))
        if op in _UNARY:
            attrs = {"to": draw(st.sampled_from([I32, TensorProto.UINT32, TensorProto.INT8]))}
            if op == "Cast":  # and back, so the pool stays int64
                nodes.append(helper.make_node("Cast", [a], [f"w{k}"], **attrs))
                nodes.append(helper.make_node("Cast", [f"w{k}"], [out], to=I64))
            else:
                nodes.append(helper.make_node(op, [a], [out]))
        else:
            b = draw(st.sampled_from(pool)) if draw(st.booleans()) else f"k{k}"
            if b == f"k{k}":
                inits.append(_c(b, draw(st.sampled_from(CONSTANTS))))
            ins = [a, b] if draw(st.booleans()) else [b, a]
            nodes.append(
                helper.make_node(
                    op, ins, [out], **({"fmod": 1} if op == "Mod" and draw(st.booleans()) else {})
                )
            )
        pool.append(out)
    axis = draw(st.integers(-rank, rank - 1))
    nodes.append(helper.make_node("Reshape", [pool[-1], "flat"], ["bound"]))
    start = draw(st.booleans())
    ins = ["bound", "last"] if start else ["zero1", "bound"]
    nodes.append(helper.make_node("Slice", ["x", *ins, "axis", "step"], ["y"]))
    step = draw(st.sampled_from([1, 2, -1]))
    inits += [_c("flat", [-1]), _c("last", [INT64_MAX if step > 0 else INT64_MIN])]
    inits += [_c("zero1", [0 if step > 0 else -1]), _c("axis", [axis]), _c("step", [step])]
    sizes = [
        tuple(n if d == "N" else m if d == "M" else d for d in dims)
        for n in (0, 1, 2, 3, 6)
        for m in (1, 5)
    ]
    return _model(nodes, inits, dims), sorted(set(sizes))


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=shape_subgraphs())
def test_shape_subgraph_values_and_slices_hold_onnxruntime_s(case: Any, tmp_path: Path) -> None:
    model, sizes = case
    _compare(model, tmp_path, sizes)
