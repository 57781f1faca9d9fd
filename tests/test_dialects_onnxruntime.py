"""ONNX slicing against the real runtimes (issue 20): onnxruntime (CPU) and ``onnx.reference``.

``to_onnx`` is run as an ONNX model (opset 13: Slice, Unsqueeze, Squeeze with their parameters as
initializers) on random slicings and static shapes, and on interval shapes at sampled sizes (one
model, many sizes: the parameters must hold for each). ``from_onnx`` is checked on random raw
Slice parameters, sentinels included, against onnxruntime; every disagreement between the two
runtimes and the spec is one of the two recorded in docs/dialects.md, checked here by name.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove._dialects import NUMPY
from test_dialects import (
    _with_rule,
    emitted_runs_as_sliced,
    numpy_indices,
    same,
    shapes,
    slicing_from,
)

onnx = pytest.importorskip("onnx", reason="onnx (the test extra) is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime (the test extra) is not installed")
from onnx import TensorProto, helper  # noqa: E402 - after the skip
from onnx.reference import ReferenceEvaluator  # noqa: E402

INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)
INT32_MAX, INT32_MIN = 2**31 - 1, -(2**31)


def onnx_model(ops: list[tuple[str, dict[str, Any]]]) -> Any:
    """An opset-13 model of the operations, its input of any shape."""
    nodes, inits, name = [], [], "x"
    for k, (op, p) in enumerate(ops):
        keys = ("starts", "ends", "axes", "steps") if op == "Slice" else ("axes",)
        ins = [name]
        for key in keys:
            inits.append(helper.make_tensor(f"{key}{k}", TensorProto.INT64, [len(p[key])], p[key]))
            ins.append(f"{key}{k}")
        name = f"y{k}"
        nodes.append(helper.make_node(op, ins, [name]))
    if not nodes:
        nodes.append(helper.make_node("Identity", ["x"], ["y"]))
        name = "y"
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.INT64, None)],
        [helper.make_tensor_value_info(name, TensorProto.INT64, None)],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


class Runtimes:
    """One model in onnxruntime (CPU) and in onnx.reference."""

    def __init__(self, ops: list[tuple[str, dict[str, Any]]]) -> None:
        model = onnx_model(ops)
        options = ort.SessionOptions()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        self.reference = ReferenceEvaluator(model)

    def ort(self, x: np.ndarray) -> np.ndarray:
        return self.session.run(None, {"x": x})[0]

    def ref(self, x: np.ndarray) -> np.ndarray:
        return self.reference.run(None, {"x": x})[0]


@settings(max_examples=150, deadline=None)
@given(index=numpy_indices(), shape=shapes, source=st.sampled_from(["numpy", "strided_slice"]))
def test_to_onnx_runs_in_onnxruntime_and_the_reference(
    index: tuple[Any, ...], shape: tuple[int, ...], source: str
) -> None:
    s = slicing_from(index, source)
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    emitted_runs_as_sliced(s, x, s.to_onnx, lambda x, ops: Runtimes(ops).ort(x))
    # onnx.reference runs a Slice axis listed twice (undefined in ONNX): docs/dialects.md
    emitted_runs_as_sliced(
        s, x, s.to_onnx, lambda x, ops: Runtimes(ops).ref(x), refuses_repeats=False
    )


@settings(max_examples=100, deadline=None)
@given(
    index=numpy_indices(),
    dims=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=3),
    source=st.sampled_from(["numpy", "strided_slice"]),
)
def test_to_onnx_on_interval_shapes_holds_at_every_size_in_both_runtimes(
    index: tuple[Any, ...], dims: list[tuple[int, int]], source: str
) -> None:
    s = slicing_from(index, source)
    shape = dm.PartialShape([dm.Dimension(min(a, b), max(a, b)) for a, b in dims])
    try:
        ops = s.to_onnx(shape)
    except dm.NotExpressible as exc:
        w = exc.witness
        assert w is not None
        xw = np.arange(int(np.prod(w))).reshape(w)
        assert not same(s(xw), _with_rule(s, NUMPY)(xw)) or not same(
            s(xw), _with_rule(s, "clamp")(xw)
        )
        return
    except dm.ValidationError:
        return
    run = Runtimes(ops)
    sizes = list(itertools.product(*(range(d.min, (d.max or 0) + 1) for d in shape.dims)))
    for w in sizes[:: max(1, len(sizes) // 12)]:  # a dozen sizes: one model for all of them
        x = np.arange(int(np.prod(w)), dtype=np.int64).reshape(w)
        try:
            want = s(x)
        except dm.ValidationError:
            continue
        assert same(run.ort(x), want), (s, shape, w, ops)
        assert same(run.ref(x), want), (s, shape, w, ops)


bound = st.one_of(
    st.integers(-9, 9),
    st.sampled_from([INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, INT32_MAX + 1, INT64_MAX - 1]),
)


@st.composite
def onnx_slices(draw: Any) -> tuple[tuple[int, ...], list[int], list[int], list[int], list[int]]:
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=1, max_size=3)))
    axes = draw(st.permutations(range(len(shape))))[: draw(st.integers(1, len(shape)))]
    n = len(axes)
    starts = draw(st.lists(bound, min_size=n, max_size=n))
    ends = draw(st.lists(bound, min_size=n, max_size=n))
    steps = draw(st.lists(st.integers(-4, 4).filter(bool), min_size=n, max_size=n))
    return shape, starts, ends, list(axes), steps


def _numpy_reading(
    x: np.ndarray, starts: list[int], ends: list[int], axes: list[int], steps: list[int]
) -> np.ndarray:
    index = [slice(None)] * x.ndim
    for a, b, ax, c in zip(starts, ends, axes, steps, strict=True):
        index[ax] = slice(a, b, c)
    return x[tuple(index)]


def _ort_reading(
    x: np.ndarray, starts: list[int], ends: list[int], axes: list[int], steps: list[int]
) -> np.ndarray:
    """The spec's clamping but onnxruntime's sentinel: an end of exactly INT32_MAX or INT64_MAX
    with a negative step runs to the first element (read as INT64_MIN)."""
    sentinels = (INT32_MAX, INT64_MAX)
    ends = [INT64_MIN if e in sentinels and c < 0 else e for e, c in zip(ends, steps, strict=True)]
    return dm.Slicing.from_onnx(starts, ends, axes, steps)(x)


@settings(max_examples=200, deadline=None)
@given(p=onnx_slices())
def test_from_onnx_reads_what_onnxruntime_runs_but_its_sentinel(p: Any) -> None:
    shape, starts, ends, axes, steps = p
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    s = dm.Slicing.from_onnx(starts, ends, axes, steps)
    run = Runtimes([("Slice", {"starts": starts, "ends": ends, "axes": axes, "steps": steps})])
    got, spec, ref = run.ort(x), s(x), run.ref(x)
    # onnx.reference is NumPy slicing with the raw numbers (its spec clamps otherwise).
    assert same(ref, _numpy_reading(x, starts, ends, axes, steps))
    # onnxruntime is the spec but for its sentinel.
    assert same(got, _ort_reading(x, starts, ends, axes, steps)), (p, got, spec)
    sentinel = any(e in (INT32_MAX, INT64_MAX) and c < 0 for e, c in zip(ends, steps, strict=True))
    if not sentinel:
        assert same(got, spec)
    # Where emitted for this shape, the parameters mean the same in both runtimes.
    run2 = Runtimes(s.to_onnx(shape))
    assert same(run2.ort(x), spec)
    assert same(run2.ref(x), spec)


def test_the_two_recorded_disagreements() -> None:
    # 1. onnxruntime's sentinel: ends=INT64_MAX (or INT32_MAX) with a negative step.
    x = np.array([0, 1], dtype=np.int64)
    for end in (INT64_MAX, INT32_MAX):
        run = Runtimes([("Slice", {"starts": [7], "ends": [end], "axes": [0], "steps": [-2]})])
        assert run.ort(x).tolist() == [1]
        assert run.ref(x).tolist() == []
        assert dm.Slicing.from_onnx([7], [end], [0], [-2])(x).tolist() == []  # the spec
    # One past it is read as the spec says, in both.
    run = Runtimes(
        [("Slice", {"starts": [7], "ends": [INT32_MAX + 1], "axes": [0], "steps": [-2]})]
    )
    assert run.ort(x).tolist() == run.ref(x).tolist() == []
    # 2. onnx.reference clamps as NumPy: a negative step from before the first element.
    x = np.array([0], dtype=np.int64)
    run = Runtimes([("Slice", {"starts": [-3], "ends": [-6], "axes": [0], "steps": [-3]})])
    assert run.ort(x).tolist() == [0]
    assert run.ref(x).tolist() == []
    assert dm.Slicing.from_onnx([-3], [-6], [0], [-3])(x).tolist() == [0]
    # The emitter writes neither corner: each is refused without a shape, in range with one.
    with pytest.raises(dm.NotExpressible, match="onnxruntime"):
        dm.Slicing.from_onnx([7], [INT64_MAX], [0], [-2]).to_onnx()
    with pytest.raises(dm.NotExpressible, match=r"sizes 1\.\.2"):
        dm.Slicing.from_onnx([-3], [-6], [0], [-3]).to_onnx()
    ops = dm.Slicing.from_onnx([-3], [-6], [0], [-3]).to_onnx([1])
    run = Runtimes(ops)
    assert run.ort(x).tolist() == run.ref(x).tolist() == [0]


def test_to_onnx_keeps_a_cut_only_where_both_clampings_agree() -> None:
    # OpenVINO's x[-3::-1] (start clamped to 0) on sizes 1..2 gives x[0]; NumPy's gives nothing.
    # onnxruntime reads the numbers as OpenVINO, onnx.reference as NumPy: the emitter refuses
    # sizes where they differ instead of writing numbers that split the runtimes.
    s = dm.Slicing.from_strided_slice([-3], [0], [-1], end_mask=[1])
    with pytest.raises(dm.NotExpressible, match=r"onnx\.reference as NumPy") as info:
        s.to_onnx("[1..5]")
    assert info.value.witness == (1,)
    x = np.array([0], dtype=np.int64)
    raw = Runtimes([("Slice", {"starts": [-3], "ends": [INT64_MIN], "axes": [0], "steps": [-1]})])
    assert raw.ort(x).tolist() == [0]
    assert raw.ref(x).tolist() == []
    run = Runtimes(s.to_onnx("[3..5]"))
    for n in (3, 4, 5):
        x = np.arange(n, dtype=np.int64)
        assert run.ort(x).tolist() == run.ref(x).tolist() == s(x).tolist()
