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
from strategies import available_memory, examples
from test_cli_convert import convert
from test_dialects import (
    AXES_CUT,
    _with_rule,
    allowed_sizes,
    emitted_runs_as_sliced,
    numpy_indices,
    ort_range,
    same,
    shapes,
    slicing_from,
)

onnx = pytest.importorskip("onnx", reason="onnx (the test extra) is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime (the test extra) is not installed")
from onnx import TensorProto, helper  # noqa: E402 - after the skip
from onnx.reference import ReferenceEvaluator  # noqa: E402

import onnx_graphs  # noqa: E402 - needs onnx

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
        self.session = onnx_graphs.ort_session(model, log_severity_level=3)
        self.reference = ReferenceEvaluator(model)

    def ort(self, x: np.ndarray) -> np.ndarray:
        return self.session.run(None, {"x": x})[0]

    def ref(self, x: np.ndarray) -> np.ndarray:
        return self.reference.run(None, {"x": x})[0]


@settings(max_examples=examples(150), deadline=None)
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


@pytest.mark.parametrize(
    ("text", "shape", "names"),
    [
        pytest.param("x[:, None]", None, ["Unsqueeze"], id="x[:, None]"),
        pytest.param("x[:, :, None]", None, ["Unsqueeze"], id="x[:, :, None]"),
        pytest.param("x[:, None, :]", "[2,3]", ["Unsqueeze"], id="x[:, None, :] on [2,3]"),
        pytest.param("x[None, :, :]", "[?,3]", ["Unsqueeze"], id="x[None, :, :] on [?,3]"),
        pytest.param("x[0, :, -1]", "[1,3,1]", ["Squeeze"], id="x[0, :, -1] on [1,3,1]"),
        pytest.param("x[0, None]", "[1,3]", ["Unsqueeze", "Squeeze"], id="x[0, None] on [1,3]"),
        # an index of a dim that may be another size, or out of range: the Slice says it
        pytest.param("x[0]", "[?,3]", ["Slice", "Squeeze"], id="x[0] on [?,3]"),
        pytest.param("x[1]", "[1..2,3]", ["Slice", "Squeeze"], id="x[1] on [1..2,3]"),
        # Unsqueeze(axes=[0]) runs on every rank: the Slice says the rank is 2 or more
        pytest.param("x[None, :, :]", None, ["Slice", "Unsqueeze"], id="x[None, :, :]"),
        pytest.param("x[1:, None]", None, ["Slice", "Unsqueeze"], id="x[1:, None]"),
    ],
)
def test_no_slice_of_whole_axes_alone_before_an_unsqueeze_or_squeeze(
    text: str, shape: str | None, names: list[str]
) -> None:
    # fixed: x[:, None] was a Slice of axis 0 whole, then Unsqueeze(axes=[1]); the Unsqueeze
    # alone refuses the ranks the slicing refuses (a scalar) and is the slicing on the others.
    # On a known rank such a Slice is the identity, before a Squeeze too.
    s = dm.Slicing.from_numpy(text)
    assert [op for op, _ in s.to_onnx(shape)] == names
    assert [op for op, _ in s.to_slice(shape)] == names  # OpenVINO's Slice-8 alike
    for dims in [(2,), (2, 3), (2, 3, 4), (1, 3), (1, 3, 1)]:
        x = np.arange(int(np.prod(dims)), dtype=np.int64).reshape(dims)
        emitted_runs_as_sliced(s, x, s.to_onnx, lambda x, ops: Runtimes(ops).ort(x))
        emitted_runs_as_sliced(
            s, x, s.to_onnx, lambda x, ops: Runtimes(ops).ref(x), refuses_repeats=False
        )


@settings(max_examples=examples(100), deadline=None)
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


@pytest.mark.parametrize(("text", "shape"), [(t, s) for t, s, _ in AXES_CUT], ids=str)
def test_the_axes_left_out_are_whole_in_both_runtimes(text: str, shape: Any) -> None:
    # An axis is left out where its cut takes all of it in order on every allowed size
    # (x[::-1] on [0..1] was listed): one model, run at each size.
    s = dm.Slicing.from_numpy(text)
    run = Runtimes(s.to_onnx(shape))
    for w in allowed_sizes(shape):
        x = np.arange(int(np.prod(w)), dtype=np.int64).reshape(w)
        assert same(run.ort(x), s(x)), w
        assert same(run.ref(x), s(x)), w


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


@settings(max_examples=examples(200), deadline=None)
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
    # The emitter writes neither corner: the first with an end one less (read alike by both),
    # the second refused without a shape, in range with one.
    ops = dm.Slicing.from_onnx([7], [INT64_MAX], [0], [-2]).to_onnx()
    assert ops[0][1]["ends"] == [INT64_MAX - 1]
    for n in range(4):
        x = np.arange(n, dtype=np.int64)
        assert Runtimes(ops).ort(x).tolist() == Runtimes(ops).ref(x).tolist() == []
    # The second takes one element at most on every size: written with a forward step
    # (x[-3::3]), which both read alike; one that takes two on some size is refused.
    second = dm.Slicing.from_onnx([-3], [-6], [0], [-3])
    ops = second.to_onnx()
    assert ops[0][1]["steps"] == [3]
    for n in range(8):
        y = np.arange(n, dtype=np.int64)
        assert Runtimes(ops).ort(y).tolist() == Runtimes(ops).ref(y).tolist() == second(y).tolist()
    with pytest.raises(dm.NotExpressible, match=r"sizes 1\.\.2"):
        dm.Slicing.from_onnx([-3], [-7], [0], [-3]).to_onnx()
    ops = dm.Slicing.from_onnx([-3], [-6], [0], [-3]).to_onnx([2])  # on [1]: no Slice
    run = Runtimes(ops)
    assert run.ort(np.arange(2)).tolist() == run.ref(np.arange(2)).tolist() == [0]


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


# -- ends onnxruntime reads as "to the last" -------------------------------------------------------
near = [INT32_MAX + k for k in range(-2, 3)] + [INT64_MAX - 1, INT64_MAX]
wide = st.one_of(st.none(), st.integers(-4, 4), st.sampled_from(near))
wide_step = st.one_of(st.integers(-3, 3).filter(bool), st.sampled_from([-(2**31), 2**40]))


class RawSlice:
    """One Slice of int64 parameters given at run time, in onnxruntime and onnx.reference."""

    def __init__(self, dtype: Any = TensorProto.INT64) -> None:
        node = helper.make_node("Slice", ["x", "s", "e", "a", "k"], ["y"])
        graph = helper.make_graph(
            [node],
            "g",
            [helper.make_tensor_value_info("x", dtype, None)]
            + [helper.make_tensor_value_info(n, TensorProto.INT64, [1]) for n in "seak"],
            [helper.make_tensor_value_info("y", dtype, None)],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
        self.session = onnx_graphs.ort_session(model, log_severity_level=3)
        self.reference = ReferenceEvaluator(model)

    @staticmethod
    def _feed(x: np.ndarray, start: int, end: int, step: int) -> dict[str, np.ndarray]:
        values = {"s": start, "e": end, "a": 0, "k": step}
        return {"x": x} | {k: np.array([v], dtype=np.int64) for k, v in values.items()}

    def ort(self, x: np.ndarray, start: int, end: int, step: int) -> np.ndarray:
        return self.session.run(None, self._feed(x, start, end, step))[0]

    def ref(self, x: np.ndarray, start: int, end: int, step: int) -> np.ndarray:
        return self.reference.run(None, self._feed(x, start, end, step))[0]


def test_onnxruntime_reads_only_int32_max_and_int64_max_apart() -> None:
    """Every end near the 32- and 64-bit extremes, every start among them and small ones, steps
    of either sign, on sizes 0 to 6: onnxruntime reads an end as the spec does but for exactly
    INT32_MAX and INT64_MAX with a negative step, which it reads as "to the first" on every
    size from 1 (``ort_range``); ``onnx.reference`` reads every end as NumPy. A positive step's
    INT32_MAX ("to the last") differs only on sizes past it:
    ``test_to_onnx_holds_in_onnxruntime_on_sizes_past_int32_max``."""
    ends = [INT32_MAX + k for k in range(-2, 3)] + [INT64_MAX - 2, INT64_MAX - 1, INT64_MAX]
    ends += [-e for e in ends] + [INT64_MIN, INT32_MIN]
    starts = [*ends, -3, -1, 0, 2]
    run = RawSlice()
    misread = set()
    for start, end, step in itertools.product(starts, ends, (-1, -2, INT64_MIN, 1, 2, 2**31)):
        for n in range(7):
            x = np.arange(n, dtype=np.int64)
            spec = dm.Slicing.from_onnx([start], [end], [0], [step])(x).tolist()
            assert run.ref(x, start, end, step).tolist() == x[start:end:step].tolist()
            got = run.ort(x, start, end, step).tolist()
            assert got == x[ort_range(n, start, end, step)].tolist()
            if got != spec:
                misread.add((end, step < 0, n))
    assert misread == {(e, True, n) for e in (INT32_MAX, INT64_MAX) for n in range(1, 7)}


@settings(max_examples=examples(150), deadline=None)
@given(
    start=wide,
    stop=wide,
    step=wide_step,
    lo=st.integers(0, 4),
    span=st.one_of(st.none(), st.integers(0, 4)),
    source=st.sampled_from(["numpy", "strided_slice"]),
)
def test_to_onnx_of_big_ends_runs_alike_in_both_runtimes_at_every_size(
    start: int | None, stop: int | None, step: int, lo: int, span: int | None, source: str
) -> None:
    """Ends near INT32_MAX and INT64_MAX on interval and unbounded axes: what ``to_onnx``
    writes runs as the slicing in onnxruntime and ``onnx.reference`` at every size up to 8; a
    refusal's witness is a size where onnxruntime runs the slicing's own numbers otherwise."""
    s = slicing_from((slice(start, stop, step),), source)
    shape = dm.PartialShape([dm.Dimension(lo, None if span is None else lo + span)])
    top = 8 if span is None else lo + span
    try:
        ops = s.to_onnx(shape)
    except dm.NotExpressible as exc:
        if "onnxruntime reads the end" not in str(exc):
            return
        witness = exc.witness
        assert witness is not None
        assert witness in shape
        (cut,) = s.entries  # its own numbers: the end onnxruntime misreads
        a, e, c = (-1 if cut.step < 0 else 0) if cut.start is None else cut.start, cut.stop, step
        (w,) = witness
        if w > 64:  # past INT32_MAX: test_to_onnx_holds_in_onnxruntime_on_sizes_past_int32_max
            assert ort_range(w, a, e, c) != cut.range(w)
            return
        x = np.arange(w, dtype=np.int64)
        assert not same(RawSlice().ort(x, a, e, c), s(x))
        return
    run = Runtimes(ops)
    for n in range(lo, top + 1):
        x = np.arange(n, dtype=np.int64)
        assert same(run.ort(x), s(x)), (s, shape, n, ops)
        assert same(run.ref(x), s(x)), (s, shape, n, ops)


BIG = 2**31 + 4  # sizes near INT32_MAX: prefixes of one buffer of BIG bytes


@pytest.fixture(scope="module")
def big_input() -> np.ndarray:
    """``BIG`` bytes, zero but for distinct values near both ends (pages are mapped lazily)."""
    if available_memory() < 6 * 2**30:
        pytest.skip("sizes past INT32_MAX need a 2 GiB input and 6 GiB of free memory")
    x = np.zeros(BIG, dtype=np.uint8)
    x[:100] = np.arange(1, 101)
    x[-200:] = np.arange(200) + 50
    return x


@settings(max_examples=examples(120), deadline=None)
@given(
    start=st.one_of(
        st.none(), st.integers(-6, -1), st.integers(INT32_MAX - 6, INT32_MAX + 4), st.just(0)
    ),
    stop=st.one_of(st.none(), st.integers(INT32_MAX - 3, INT32_MAX + 3), st.just(INT64_MAX)),
    step=st.sampled_from([-3, -2, -1, 1, 2, 3]),
    shape=st.sampled_from(["[?]", f"[..{BIG}]", f"[{INT32_MAX}..]", f"[{INT32_MAX + 3}]", "[5..]"]),
)
def test_to_onnx_holds_in_onnxruntime_on_sizes_past_int32_max(
    big_input: np.ndarray, start: int | None, stop: int | None, step: int, shape: str
) -> None:
    """On sizes ``INT32_MAX - 3 .. INT32_MAX + 5``, onnxruntime reads an end of INT32_MAX as
    "to the last" with a positive step too (``ort_range``), and what ``to_onnx`` writes runs
    as the slicing in onnxruntime and ``onnx.reference`` (only where it takes 64 elements at
    most: the input is mostly untouched zero pages)."""
    s = dm.Slicing.from_numpy((slice(start, stop, step),))
    (cut,) = s.entries
    ps = dm.PartialShape.parse(shape)
    try:
        ops = s.to_onnx(ps)
    except dm.NotExpressible as exc:
        if "onnxruntime reads the end" not in str(exc):
            return
        witness = exc.witness
        assert witness is not None
        assert witness in ps
        ops = None
    run = RawSlice(TensorProto.UINT8)
    own = [(-1 if step < 0 else 0) if cut.start is None else cut.start, cut.stop, step]
    for n in range(INT32_MAX - 3, BIG + 1):
        if n not in dm.Dimension(ps.dims[0].min, ps.dims[0].max) or len(cut.range(n)) > 64:
            continue
        x = big_input[:n]
        want = x[list(cut.range(n))]
        if cut.stop is not None:  # the slicing's own numbers (onnxruntime: small outputs only)
            a, e, c = own
            assert same(run.ref(x, a, e, c), want)
            misread = ort_range(n, a, e, c)
            if len(misread) <= 64:
                assert same(run.ort(x, a, e, c), x[list(misread)])
        if ops:
            p = ops[0][1]
            a, e, c = p["starts"][0], p["ends"][0], p["steps"][0]
            assert same(run.ort(x, a, e, c), want), (s, shape, n, ops)
            assert same(run.ref(x, a, e, c), want), (s, shape, n, ops)


@st.composite
def mixed_axes_slices(
    draw: Any,
) -> tuple[tuple[int, ...], list[int], list[int], list[int], list[int]]:
    """Slice inputs whose axes are each counted from the front or from the back at random."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))
    r = len(shape)
    chosen = draw(st.permutations(range(r)))[: draw(st.integers(1, r))]
    axes = [a - r if draw(st.booleans()) else a for a in chosen]
    n = len(axes)
    starts = draw(st.lists(st.integers(-7, 7), min_size=n, max_size=n))
    ends = draw(st.lists(st.integers(-7, 7), min_size=n, max_size=n))
    steps = draw(st.lists(st.integers(-3, 3).filter(bool), min_size=n, max_size=n))
    return shape, starts, ends, axes, steps


@settings(max_examples=examples(150), deadline=None)
@given(p=mixed_axes_slices(), dynamic=st.booleans())
def test_convert_counts_axes_from_the_back_on_the_rank_of_the_shape(p: Any, dynamic: bool) -> None:
    # ONNX Slice: "Negative value means counting dimensions from the back" (rank + axis); so
    # does datamove convert where --shape gives the rank, however the axes mix (fixed: it
    # refused axes=[-2, 1] on [?,?], asking for normalised axes).
    shape, starts, ends, axes, steps = p
    text = "[" + ",".join("?" if dynamic else str(d) for d in shape) + "]"
    given = {"starts": starts, "ends": ends, "axes": axes, "steps": steps}
    onnx_argv = [a for k, v in given.items() for a in (f"--{k}", ",".join(map(str, v)))]
    names = {"starts": "start", "ends": "stop", "steps": "step", "axes": "axes"}
    slice_argv = [a for k, v in given.items() for a in (f"--{names[k]}", ",".join(map(str, v)))]
    code, out, err = convert(["--from", "onnx", *onnx_argv, "--to", "numpy", "--shape", text])
    # Slice-8 reads its axes as ONNX does
    assert convert(["--from", "slice", *slice_argv, "--to", "numpy", "--shape", text]) == (
        code,
        out,
        err,
    )
    if code == 1:  # only a cut NumPy's clamping cannot say on every size of a dynamic axis
        assert dynamic, err
        assert "witness" in err
        return
    assert (code, err) == (0, "")
    run = Runtimes([("Slice", given)])
    sizes = [shape, tuple(d + 1 for d in shape)] if dynamic else [shape]
    for dims in sizes:
        x = np.arange(int(np.prod(dims)), dtype=np.int64).reshape(dims)
        got = eval(out, {"x": x})  # noqa: S307 - datamove's own text, in a test
        assert same(got, run.ort(x)), (p, dims, out)
        # onnx.reference clamps as NumPy: it differs from the spec on a negative step from a
        # start before the first element (docs/dialects.md)
        corner = any(c < 0 and b < -dims[a] for b, a, c in zip(starts, axes, steps, strict=True))
        if not corner:
            assert same(got, run.ref(x)), (p, dims, out)
