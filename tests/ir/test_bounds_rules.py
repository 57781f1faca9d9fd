"""The bound rules of ``datamove.ir._bounds`` and the interval reading of Slice, StridedSlice and
VariadicSplit are sound: every value (every output shape) that inputs inside the bounds give lies
inside the bounds datamove infers. Hypothesis draws the intervals, with the int64 extremes (the
mark of an unbounded side) among them; each sample is computed exactly (``datamove.ir._fold``, or
the operator's own inference on static shapes and values). No OpenVINO needed."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_layers import bare_layer

from datamove._errors import ValidationError
from datamove._shape import Dimension, PartialShape
from datamove._slice import infer_slice
from datamove._split import infer_variadic_split
from datamove._strided_slice import infer_strided_slice
from datamove.ir._bounds import bound_layer, elementwise, reshaped
from datamove.ir._fold import fold_layer
from datamove.ir._graph import Layer
from datamove.ir._ops import (
    CORNERS_MAX,
    LAYER_OPS,
    SMALL,
    Context,
    Info,
    bounds_of,
    over_corners,
    with_bounds,
)
from datamove.ir._types import ELEMENT_TYPES
from strategies import examples

I64 = ELEMENT_TYPES["i64"]
MIN, MAX = -(2**63), 2**63 - 1
F32 = ELEMENT_TYPES["f32"]


def _layer(kind: str, data: dict[str, str] | None = None, inputs: int = 2, outputs: int = 1) -> Any:
    return bare_layer(kind, data, inputs, outputs)


def _bounded(pairs: list[tuple[int, int]], etype: Any = I64) -> Info:
    lo = np.array([a for a, _ in pairs], dtype=etype.dtype)
    hi = np.array([b for _, b in pairs], dtype=etype.dtype)
    return with_bounds(PartialShape([len(pairs)]), etype, lo, hi)


def _exact(values: list[int], etype: Any = I64) -> Info:
    value = np.array(values, dtype=etype.dtype)
    return Info(PartialShape([len(values)]), etype, value)


small = st.integers(-40, 40)
ends = st.one_of(small, small, small, st.sampled_from([MIN, MAX, MIN + 1, MAX - 1, 2**62]))


@st.composite
def intervals(draw: Any, n: int) -> list[tuple[int, int]]:
    out = []
    for _ in range(n):
        a, b = sorted((draw(ends), draw(ends)))
        out.append((a, b))
    return out


@st.composite
def inside(draw: Any, pairs: list[tuple[int, int]]) -> list[int]:
    """Values inside the intervals: their ends or any value between, near the ends first."""
    out = []
    for a, b in pairs:
        near = st.one_of(st.integers(a, min(b, a + 3)), st.integers(max(a, b - 3), b))
        out.append(draw(st.one_of(near, st.integers(a, b))))
    return out


BINARY = [
    ("Add", {}),
    ("Subtract", {}),
    ("Multiply", {}),
    ("Divide", {"m_pythondiv": "true"}),
    ("Divide", {"m_pythondiv": "false"}),
    ("Minimum", {}),
    ("Maximum", {}),
    ("Greater", {}),
    ("Less", {}),
    ("Equal", {}),
]


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), which=st.sampled_from(range(len(BINARY))), n=st.integers(1, 3))
def test_binary_bounds_hold_every_value(data: Any, which: int, n: int) -> None:
    kind, attrs = BINARY[which]
    layer = _layer(kind, attrs)
    a, b = data.draw(intervals(n)), data.draw(intervals(n))
    got = bound_layer(layer, [_bounded(a), _bounded(b)])
    for _ in range(4):
        x, y = data.draw(inside(a)), data.draw(inside(b))
        exact = fold_layer(layer, [_exact(x), _exact(y)])
        if exact is None or exact.value is None:
            continue  # undefined there (an overflow, a zero divisor): any answer is sound
        if got is None:  # no bounds: only for a divisor that may be 0, or unbounded
            assert kind == "Divide", (kind, a, b)
            assert any(lo <= 0 <= hi or {lo, hi} & {MIN, MAX} for lo, hi in b)
            continue
        bounds = bounds_of(got)
        assert bounds is not None
        lo, hi = (v.astype(object) for v in bounds)
        value = exact.value.astype(object)
        assert ((lo <= value) & (value <= hi)).all(), (kind, a, b, x, y, lo, hi, value)


def test_a_sum_past_the_range_from_an_extreme_is_the_whole_range() -> None:
    # an exactly known extreme is a number, not an unbounded side: INT64_MIN - [0, 30] passes
    # the range at every value but 0 (it was the exact INT64_MIN); so does INT64_MAX + a dim
    whole = (MIN, MAX)
    cases = [
        ("Subtract", [MIN], [(0, 30)], whole),
        ("Add", [MAX], [(0, 30)], whole),
        ("Add", [MAX], [(0, MAX)], whole),
        ("Multiply", [2**62], [(0, 30)], whole),
        ("Add", [MAX - 1], [(0, 1)], (MAX - 1, MAX)),
        ("Maximum", [MAX], [(0, MAX)], (MAX, MAX)),
        ("Minimum", [MIN], [(MIN, 5)], (MIN, MIN)),
    ]
    for kind, value, pairs, (lo, hi) in cases:
        got = bound_layer(_layer(kind), [_exact(value), _bounded(pairs)])
        bounds = bounds_of(got) if got is not None else None
        assert bounds is not None
        assert (int(bounds[0][0]), int(bounds[1][0])) == (lo, hi), (kind, value, pairs)


def test_arithmetic_on_an_unbounded_side_that_may_wrap_is_the_whole_range() -> None:
    # an unbounded side is taken to reach HUGE (2**31; half the type's maximum for i32): a dim
    # times INT64_MAX wraps at 2 (onnxruntime gives -2; the bounds said 0..INT64_MAX), a dim plus
    # INT64_MAX - 1 at 2, a dim times 2**32 at 2**31; a dim times 2, the product of two dims and
    # an i32 dim plus 1 are taken not to
    i32 = ELEMENT_TYPES["i32"]
    whole, dim = (MIN, MAX), [(0, MAX)]
    cases = [
        ("Multiply", [MAX], dim, whole),
        ("Multiply", [2**62], dim, whole),
        ("Multiply", [2**32], dim, whole),
        ("Multiply", [MIN], dim, whole),
        ("Add", [MAX - 1], dim, whole),
        ("Subtract", [MIN + 2], dim, whole),
        ("Multiply", [2], dim, (0, MAX)),
        ("Add", [-3], dim, (-3, MAX)),
        ("Multiply", [-(2**31)], dim, (MIN, 0)),
    ]
    for kind, value, pairs, (lo, hi) in cases:
        got = bound_layer(_layer(kind), [_exact(value), _bounded(pairs)])
        bounds = bounds_of(got) if got is not None else None
        assert bounds is not None
        assert (int(bounds[0][0]), int(bounds[1][0])) == (lo, hi), (kind, value, pairs)
    i32_max = 2**31 - 1
    prod = _layer("ReduceProd", {"keep_dims": "false"})
    others = [
        (_layer("Multiply"), [_bounded(dim), _bounded(dim)], [0, MAX]),
        (_layer("Add"), [_bounded([(0, i32_max)], i32), _exact([1], i32)], [1, i32_max]),
        # ReduceProd alike: [dim, 2**62] passes the range at 2
        (prod, [_bounded([(0, MAX), (2**62, 2**62)]), _exact([0])], [MIN, MAX]),
    ]
    for layer, ins, want in others:
        got = bound_layer(layer, ins)
        bounds = bounds_of(got) if got is not None else None
        assert bounds is not None
        assert [int(b.reshape(-1)[0]) for b in bounds] == want, layer.type


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data(), target=st.sampled_from(["i8", "u8", "i32", "i64", "boolean"]))
def test_convert_bounds_hold_every_value(data: Any, target: str) -> None:
    layer = _layer("Convert", {"destination_type": target}, inputs=1)
    a = data.draw(intervals(2))
    got = bound_layer(layer, [_bounded(a)])
    for _ in range(4):
        exact = fold_layer(layer, [_exact(data.draw(inside(a)))])
        assert exact is not None
        assert exact.value is not None
        bounds = bounds_of(got) if got is not None else None
        assert bounds is not None
        lo, hi = (v.astype(object) for v in bounds)
        value = exact.value.astype(object)
        assert ((lo <= value) & (value <= hi)).all(), (target, a, lo, hi, value)


def test_shape_of_gives_each_dim_its_interval() -> None:
    data = Info(PartialShape("[?,2..10,16]"), F32)
    got = bound_layer(_layer("ShapeOf", {"output_type": "i32"}, inputs=1), [data])
    assert got is not None
    assert got.value is None
    assert (got.lower.tolist(), got.upper.tolist()) == ([0, 2, 16], [2**31 - 1, 10, 16])
    gathered = bound_layer(_layer("Gather", inputs=3), [got, _exact([2]), _exact([0])])
    assert gathered is not None
    assert gathered.value is not None
    assert gathered.value.tolist() == [16]  # known exactly: the static dim


def test_shape_of_1_reads_no_output_type() -> None:
    # opset2's ShapeOf is ShapeOf-1: OpenVINO gives i64 whatever output_type says.
    layer = _layer("ShapeOf", {"output_type": "i32"}, inputs=1)
    layer.version = "opset2"
    got = bound_layer(layer, [Info(PartialShape("[?,3]"), F32)])
    assert got is not None
    assert got.etype == I64


# -- the layers that read intervals --------------------------------------------------------------
dims = st.integers(0, 12)


@st.composite
def dimension(draw: Any) -> tuple[int, int]:
    lo = draw(dims)
    return lo, draw(st.integers(lo, lo + 8))


def _hull(layer: Layer, ins: list[Info]) -> list[PartialShape] | None:
    try:
        return [o.shape for o in LAYER_OPS[layer.type].infer(layer, ins, Context())]
    except ValidationError:
        return None


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), step=st.sampled_from([1, 2, -1, -3]), strided=st.booleans())
def test_slice_hull_over_interval_parameters_is_sound(data: Any, step: int, strided: bool) -> None:
    lo, hi = data.draw(dimension())
    start, stop = data.draw(intervals(1)), data.draw(intervals(1))
    shape = PartialShape([Dimension(lo, hi), 3])
    ins = [Info(shape, F32), _bounded(start), _bounded(stop), _exact([step])]
    layer = _layer("StridedSlice" if strided else "Slice", {}, inputs=4)
    if strided:
        layer.data.update(dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask"), "0"))
        layer.data.update(dict.fromkeys(("new_axis_mask", "shrink_axis_mask"), "0"))
    got = _hull(layer, ins)
    assert got is not None
    (out,) = got
    for _ in range(5):
        d = data.draw(st.integers(lo, hi))
        (s,), (e,) = data.draw(inside(start)), data.draw(inside(stop))
        if strided:
            exact = infer_strided_slice([d, 3], [s], [e], [step], begin_mask=[0], end_mask=[0])
        else:
            exact = infer_slice([d, 3], [s], [e], [step])
        assert exact.to_shape() in out, (lo, hi, start, stop, step, d, s, e, exact, out)


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), rest=st.booleans())
def test_variadic_split_chunks_over_interval_lengths_are_sound(data: Any, rest: bool) -> None:
    lo, hi = data.draw(dimension())
    lengths = [sorted((data.draw(dims), data.draw(dims))) for _ in range(2)]
    pairs = [(a, b) for a, b in lengths] + ([(-1, -1)] if rest else [])
    ins = [Info(PartialShape([Dimension(lo, hi)]), F32), _exact([0]), _bounded(pairs)]
    layer = _layer("VariadicSplit", inputs=3, outputs=len(pairs))
    got = _hull(layer, ins)
    for _ in range(5):
        d = data.draw(st.integers(lo, hi))
        values = data.draw(inside(pairs))
        try:
            exact = infer_variadic_split([d], 0, values)
        except ValidationError:
            continue  # lengths that do not fit d: the layer fails there
        assert got is not None, (lo, hi, pairs, d, values)
        for e, o in zip(exact, got, strict=True):
            assert e.to_shape() in o, (lo, hi, pairs, d, values, exact, got)


# -- Mod, FloorMod, Abs, ReduceProd ------------------------------------------------------------
def _ends(got: Info | None) -> tuple[Any, Any]:
    """The bounds as lists (numbers for a scalar); an exact value twice."""
    bounds = bounds_of(got) if got is not None else None
    assert bounds is not None
    return bounds[0].tolist(), bounds[1].tolist()


divisors = st.one_of(
    st.integers(-9, 9).filter(bool).map(lambda m: [(m, m)]),  # a constant, as converters write
    intervals(1),
)
MODULO = [
    ("Mod", lambda x, y: abs(x) % abs(y) * (-1 if x < 0 else 1)),
    ("FloorMod", lambda x, y: x % y),
]


@settings(max_examples=examples(400), deadline=None)
@given(data=st.data(), which=st.sampled_from([0, 1]), dtype=st.sampled_from(["i64", "i32", "u8"]))
def test_modulo_bounds_hold_every_value(data: Any, which: int, dtype: str) -> None:
    kind, _ = MODULO[which]
    etype = ELEMENT_TYPES[dtype]
    info = np.iinfo(etype.dtype)
    a = [tuple(sorted(max(info.min, min(info.max, v)) for v in p)) for p in data.draw(intervals(1))]
    b = [tuple(sorted(max(info.min, min(info.max, v)) for v in p)) for p in data.draw(divisors)]
    layer = _layer(kind)
    got = bound_layer(layer, [_bounded(a, etype), _bounded(b, etype)])
    if got is None:  # only for a divisor that may be 0
        assert b[0][0] <= 0 <= b[0][1], (kind, a, b)
        return
    bounds = bounds_of(got)
    assert bounds is not None
    lo, hi = (int(v[0]) for v in bounds)
    for _ in range(6):
        x, y = data.draw(inside(a)), data.draw(inside(b))
        exact = fold_layer(layer, [_exact(x, etype), _exact(y, etype)])
        assert exact is not None
        assert exact.value is not None
        assert lo <= int(exact.value[0]) <= hi, (kind, a, b, x, y, lo, hi, exact.value)


@pytest.mark.parametrize("kind", ["Mod", "FloorMod"])
def test_a_divisor_just_above_int64_min_is_bounded(kind: str) -> None:
    # A soak's witness: 0 mod [INT64_MIN, INT64_MIN + 1] had no bounds, where it is 0. The
    # lower side at the type's minimum reads as unbounded, and taken to reach -HUGE, above the
    # upper side: an interval running backwards, on which the rule failed
    divisor = _bounded([(-(2**63), -(2**63) + 1)])
    got = bound_layer(_layer(kind), [_exact([0]), divisor])
    assert got is not None
    assert _ends(got) == ([0], [0])


@settings(max_examples=examples(300), deadline=None)
@given(
    which=st.sampled_from([0, 1]),
    a0=st.integers(-30, 30),
    width=st.integers(0, 25),
    b0=st.integers(-12, 12),
    b_width=st.integers(0, 6),
)
def test_modulo_bounds_are_exact_on_narrow_intervals(
    which: int, a0: int, width: int, b0: int, b_width: int
) -> None:
    # A divisor interval narrower than 64 values is walked through: each bound is a value the
    # layer gives (as tight as can be; OpenVINO's Mod is no tighter).
    kind, op = MODULO[which]
    a, b = (a0, a0 + width), (b0, b0 + b_width)
    got = bound_layer(_layer(kind), [_bounded([a]), _bounded([b])])
    if b[0] <= 0 <= b[1]:
        assert got is None
        return
    values = [op(x, y) for x in range(a[0], a[1] + 1) for y in range(b[0], b[1] + 1)]
    assert _ends(got) == ([min(values)], [max(values)]), (kind, a, b)


def _openvino_mod_interval(v1: int, v2: int, m1: int, m2: int) -> tuple[int, int]:
    """OpenVINO's bounds of Mod (reference ``mod_interval``, for ``0 <= v1`` and ``0 < m1``):
    the remainders at the divisor's two ends, widened to a whole period where the values span
    one, and for one value over many divisors ``0`` and the remainder by ``v2 // 2 + 1``."""

    def one(m: int) -> tuple[int, int]:
        r = (v1 % m, v2 % m)
        return (0, m - 1) if r[1] < r[0] or (v2 != v1 and v2 - v1 >= m) else r

    lo, hi = one(m1)
    if v2 != 0 and m1 != m2:
        lo, hi = min(lo, one(m2)[0]), max(hi, one(m2)[1])
        half = v2 // 2
        if v1 == v2 and m2 - m1 != 1 and (m1 < half or m1 < v2 < m2):
            lo = 0
            hi = v2 % (half + 1) if half < m2 < v2 else m2 - 1
    return lo, hi


@settings(max_examples=examples(200), deadline=None)
@given(
    p0=st.integers(0, 400),
    width=st.sampled_from([0, 0, 1, 3, 30]),
    m1=st.integers(1, 400),
    m_width=st.integers(0, 400),
)
def test_mod_bounds_over_wide_divisors_are_as_tight_as_openvino_where_it_is_sound(
    p0: int, width: int, m1: int, m_width: int
) -> None:
    # Divisors walked a block of one quotient at a time: exact (so as tight as OpenVINO's
    # bounds wherever those hold every value) over the 64 blocks of the largest divisors.
    a, b = (p0, p0 + width), (m1, m1 + m_width)
    values = {x % m for x in range(a[0], a[1] + 1) for m in range(b[0], b[1] + 1)}
    exact = (min(values), max(values))
    theirs = _openvino_mod_interval(*a, *b)
    for kind in ("Mod", "FloorMod"):
        lo, hi = (v[0] for v in _ends(bound_layer(_layer(kind), [_bounded([a]), _bounded([b])])))
        assert lo <= exact[0] <= exact[1] <= hi, (kind, a, b, (lo, hi), exact)
        if theirs[0] <= exact[0] and exact[1] <= theirs[1]:
            assert theirs[0] <= lo <= hi <= theirs[1], (kind, a, b, (lo, hi), theirs)
        if a[1] <= 256:  # p // m takes at most 2 * sqrt(p) values: 64 blocks for both ends
            assert (lo, hi) == exact, (kind, a, b)


def test_modulo_of_an_unbounded_dim_is_below_its_divisor() -> None:
    # PyTorch's x.shape[1] % 4 (FloorMod) and torch.fmod (Mod) on a dynamic dim: 0..3
    dim = _bounded([(0, MAX)])
    for kind in ("Mod", "FloorMod"):
        got = bound_layer(_layer(kind), [dim, _exact([4])])
        assert _ends(got) == ([0], [3])
        got = bound_layer(_layer(kind), [dim, _exact([-4])])
        assert _ends(got) == (([0], [3]) if kind == "Mod" else ([-3], [0]))
    # a wide divisor interval: never above the value, nor above the divisor less one
    got = bound_layer(_layer("Mod"), [_bounded([(5, 7)]), _bounded([(1, 1000)])])
    assert _ends(got) == ([0], [7])
    got = bound_layer(_layer("FloorMod"), [_bounded([(-5, 7)]), _bounded([(1, 1000)])])
    assert _ends(got) == ([0], [999])


def test_modulo_of_floats_has_no_bounds() -> None:
    # OpenVINO's Mod is for integers only; a float FloorMod is not read
    x = with_bounds(
        PartialShape([1]), F32, np.array([0.0], np.float32), np.array([9.0], np.float32)
    )
    y = Info(PartialShape([1]), F32, np.array([4.0], np.float32))
    assert bound_layer(_layer("FloorMod"), [x, y]) is None


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), dtype=st.sampled_from(["i64", "i32", "f32"]))
def test_abs_bounds_hold_every_value(data: Any, dtype: str) -> None:
    etype = ELEMENT_TYPES[dtype]
    a = data.draw(intervals(2))
    if dtype != "i64":
        a = [(max(min(a0, 2**31 - 1), -(2**31)), max(min(a1, 2**31 - 1), -(2**31))) for a0, a1 in a]
    got = bound_layer(_layer("Abs", inputs=1), [_bounded(a, etype)])
    assert got is not None
    bounds = bounds_of(got)
    assert bounds is not None
    lo, hi = (v.astype(object) for v in bounds)
    top = np.iinfo(np.int32).max if dtype == "i32" else MAX
    for _ in range(4):
        x = data.draw(inside(a))
        # the minimum's absolute value overflows (undefined): it wraps to itself in C++
        value = [abs(v) if abs(v) <= top or dtype == "f32" else v for v in x]
        if dtype == "f32":
            value = [float(np.abs(np.float32(v))) for v in x]
        assert all(lo[k] <= v <= hi[k] for k, v in enumerate(value)), (a, x, lo, hi)
    for k, (a0, a1) in enumerate(a):  # exact where no overflow: each bound is a value taken
        if dtype == "i64" and a0 > MIN:
            ends = [abs(a0), abs(a1)] + ([0] if a0 <= 0 <= a1 else [])
            assert (lo[k], hi[k]) == (min(ends), max(ends)) or MAX in (abs(a0), abs(a1))


@st.composite
def shapes_of(draw: Any) -> tuple[list[int], list[tuple[int, int]]]:
    dims = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    count = int(np.prod(dims))
    ends = st.one_of(st.integers(-3, 12), st.sampled_from([MAX, MIN, 2**40]))
    pairs = [tuple(sorted((draw(ends), draw(ends)))) for _ in range(count)]
    return dims, pairs


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), shaped=shapes_of(), keep=st.booleans())
def test_reduce_prod_bounds_hold_every_value(data: Any, shaped: Any, keep: bool) -> None:
    dims, pairs = shaped
    axes = data.draw(st.lists(st.integers(-len(dims), len(dims) - 1), min_size=1, unique=True))
    if len({a % len(dims) for a in axes}) != len(axes):
        return
    layer = _layer("ReduceProd", {"keep_dims": str(keep).lower()})
    flat = _bounded(pairs)
    lo_in, hi_in = bounds_of(flat)  # type: ignore[misc]
    data_info = with_bounds(PartialShape(dims), I64, lo_in.reshape(dims), hi_in.reshape(dims))
    got = bound_layer(layer, [data_info, _exact(axes)])
    assert got is not None
    bounds = bounds_of(got)
    assert bounds is not None
    lo, hi = (v.astype(object) for v in bounds)
    for _ in range(4):
        x = np.array(data.draw(inside(pairs)), dtype=np.int64).reshape(dims)
        exact = fold_layer(layer, [Info(PartialShape(dims), I64, x), _exact(axes)])
        if exact is None or exact.value is None:
            continue  # an overflow: undefined
        assert exact.value.shape == lo.shape
        value = exact.value.astype(object)
        assert ((lo <= value) & (value <= hi)).all(), (dims, pairs, axes, x, lo, hi, value)


def test_reduce_prod_of_a_shape_multiplies_its_dims() -> None:
    # x.numel() on [1..4, 2..10, 8]: 16..320; with a dynamic dim, up to the type's maximum
    for dims, expected in [("[1..4,2..10,8]", ([16], [320])), ("[?,2..10,8]", ([0], [MAX]))]:
        of = _layer("ShapeOf", {"output_type": "i64"}, inputs=1)  # ShapeOf-3 refused without
        shape = bound_layer(of, [Info(PartialShape(dims), F32)])
        assert shape is not None
        layer = _layer("ReduceProd", {"keep_dims": "true"})
        got = bound_layer(layer, [shape, _exact([0])])
        assert _ends(got) == expected
    big = _bounded([(2**32, 2**32), (2**31, 2**32)])  # 2**63 and more: the whole i64 range
    got = bound_layer(_layer("ReduceProd", {"keep_dims": "false"}), [big, _exact([0])])
    assert _ends(got) == (MIN, MAX)


def test_bounds_of_scalars_are_scalars() -> None:
    # A 0-d shape value (a Gather of a scalar index, then Add): check() crashed on its bounds.
    scalar = with_bounds(PartialShape([]), I64, np.array(2, np.int64), np.array(10, np.int64))
    five = Info(PartialShape([]), I64, np.array(-5, np.int64))
    got = bound_layer(_layer("Add"), [scalar, five])
    assert got is not None
    assert (got.shape, _ends(got)) == (PartialShape([]), (-3, 5))
    got = bound_layer(_layer("Abs", inputs=1), [got])
    assert _ends(got) == (0, 5)


def test_float_bounds_at_the_extremes_warn_nothing() -> None:
    # Floor of an f32 unbounded below: no rounding step past the type's extreme (NumPy's
    # overflow warning, an exception where warnings are errors)
    low = np.array([np.finfo(np.float32).min], np.float32)
    x = with_bounds(PartialShape([1]), F32, low, np.array([3.5], np.float32))
    got = bound_layer(_layer("Floor", inputs=1), [x])
    assert _ends(got) == ([float(low[0])], [3.0])


@st.composite
def _reshapes(draw: Any) -> tuple[list[Dimension], list[tuple[int, int]], str]:
    """Input dims (static, intervals, unbounded), target entries' bounds, special_zero."""
    dims = []
    for _ in range(draw(st.integers(0, 3))):
        lo = draw(st.integers(0, 6))
        hi = draw(st.one_of(st.integers(lo, 9), st.none()))
        dims.append(Dimension(lo, hi))
    target = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["-1", "0", "static", "interval", "wide"]))
        if kind in ("-1", "0"):
            target.append((int(kind), int(kind)))
        elif kind == "static":
            n = draw(st.integers(1, 6))
            target.append((n, n))
        else:
            lo = draw(st.integers(-1 if kind == "wide" else 1, 4))
            target.append((lo, draw(st.sampled_from([lo + 2, MAX]))))
    return dims, target, draw(st.sampled_from(["true", "false"]))


@settings(max_examples=examples(400), deadline=None)
@given(_reshapes())
def test_a_data_reshape_shape_holds_every_shape_it_can_give(case: Any) -> None:
    dims, target, special = case
    layer = _layer("Reshape", {"special_zero": special})
    data = Info(PartialShape(dims), F32)
    got = reshaped(layer, [data, _bounded(target)])
    if got is None:
        return
    sizes = [range(d.min, (d.max if d.max is not None else d.min + 3) + 1) for d in dims]
    values = [range(a, min(b, a + 2) + 1) if b != MAX else (a, a + 1, 50) for a, b in target]
    for shape in itertools.islice(itertools.product(*sizes), 200):
        for value in itertools.islice(itertools.product(*values), 50):
            info = [Info(PartialShape(list(shape)), F32, np.zeros(shape, np.float32))]
            folded = fold_layer(layer, [*info, _exact(list(value))])
            if folded is not None:  # a shape the layer can give, inside datamove's
                assert got.shape.rank == folded.value.ndim
                assert all(n in d for n, d in zip(folded.value.shape, got.shape.dims, strict=True))


@pytest.mark.parametrize(
    ("kind", "data", "shapes", "want"),
    [
        pytest.param("Convert", {}, ["[2,?]"], None, id="Convert of no destination_type"),
        pytest.param("Convert", {"destination_type": "f16"}, ["[2,?]"], "[2,?]", id="Convert"),
        pytest.param("Add", {"auto_broadcast": "none"}, ["[2,3]", "[3]"], None, id="none, 2 ranks"),
        pytest.param("Add", {"auto_broadcast": "none"}, ["[2,1..5]", "[2..3,4..]"], "[2,4..5]"),
        pytest.param("Add", {}, ["[2]", "[3]"], None, id="Add of sizes 2 and 3"),
        pytest.param("Add", {}, ["[1..2,3]", "[4,1]"], "[4,3]", id="Add of 1..2 and 4"),
        pytest.param("Add", {}, ["[2,3]", "[3]"], "[2,3]", id="Add"),
        pytest.param("MatMul", {}, ["[3]", "[3,2]"], None, id="MatMul of a vector"),
        pytest.param("MatMul", {}, ["[2,3]", "[4,5]"], None, id="MatMul of 3 by 4"),
        pytest.param("MatMul", {}, ["[7,2,3]", "[3,5]"], "[7,2,5]", id="MatMul"),
        pytest.param("MatMul", {"transpose_b": "true"}, ["[2,3]", "[5,3]"], "[2,5]"),
    ],
)
def test_elementwise_shapes_and_inputs_that_never_run_together(
    kind: str, data: dict[str, str], shapes: list[str], want: str | None
) -> None:
    # a float layer's output shape for Model.check's related dims; None where no sizes run
    # (and for a MatMul of a vector, which it does not read)
    ins = [Info(PartialShape.parse(s), F32) for s in shapes]
    got = elementwise(_layer(kind, data, inputs=len(ins)), ins)
    assert (None if got is None else str(got[0].shape)) == want
    vector = kind == "MatMul" and min(len(i.shape) for i in ins) < 2
    if not data and not vector and all(i.shape.is_static for i in ins):  # NumPy's: the peer
        arrays = [np.zeros(i.shape.to_shape(), np.float32) for i in ins]
        try:
            numpy = str(
                PartialShape(list((np.matmul if kind == "MatMul" else np.add)(*arrays).shape))
            )
        except ValueError:
            numpy = None
        assert numpy == want


def test_a_hull_over_more_than_corners_max_corners_is_not_taken() -> None:
    # each bounded element doubles the corners tried; past CORNERS_MAX none is tried, and the
    # caller infers with the values unknown
    tried: list[list[list[int]]] = []

    def infer(values: list[list[int]]) -> PartialShape:
        tried.append(values)
        return PartialShape([sum(values[0])])

    for n in (6, 7):
        tried.clear()
        ins = [Info(PartialShape([2]), F32), _bounded([(0, 1)] * n)]
        got = over_corners(ins, [1], infer)
        fits = 2**n <= CORNERS_MAX
        assert got == (PartialShape([Dimension(0, n)]) if fits else None)
        assert len(tried) == (2**n if fits else 0)


def test_an_unbounded_input_or_too_large_an_output_has_no_bounds() -> None:
    # ReduceProd and Select of a value neither known nor bounded (a data tensor's), an Add
    # that broadcasts [64, 1] and [128] to 8192 elements and a Tile as large, past SMALL: no
    # bounds, never a guess (broadcasting and folding refuse the large ones)
    data = Info(PartialShape([3]), I64)
    pair = _bounded([(0, 5), (1, 6)])

    def ones(*shape: int) -> Info:
        return with_bounds(
            PartialShape(list(shape)), I64, np.zeros(shape, int), np.ones(shape, int)
        )

    cases = [
        ("ReduceProd", {"keep_dims": "false"}, [data, _exact([0])]),
        ("Select", {}, [Info(PartialShape([2]), ELEMENT_TYPES["boolean"]), pair, pair]),
        ("Add", {}, [ones(64, 1), ones(128)]),
        ("Tile", {}, [pair, _exact([SMALL])]),
    ]
    for kind, attrs, ins in cases:
        assert bound_layer(_layer(kind, attrs, inputs=len(ins)), ins) is None, kind
    small = bound_layer(_layer("Add"), [ones(16, 1), ones(16)])  # 256 elements: bounded
    assert small is not None
    assert small.shape == PartialShape([16, 16])
