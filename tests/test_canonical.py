"""Slice algebra (issue 21): is_identity, is_empty, canonical, group_into_split.

Every claim is checked by running: a "yes" on every concrete shape inside the intervals (all of
them, the intervals are small; unbounded ones up to ``min + 5``), a "no" on its witness shape,
on NumPy, and the regression cases and the grouped splits also over the ``xp`` fixture.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove._dialects import CLAMP, Cut, addressed
from strategies import (
    Interval,
    drawn_tilings,
    fixed_settings,
    hollow,
    iota,
    shape_text,
    some_split,
    tilings,
    view_key,
    wide_shapes,
)
from test_compose import numbers, on_hollow

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

S = dm.Slicing.from_numpy

# -- strategies -----------------------------------------------------------------------------------
# Bounds and steps drawn to make the identity, the whole axis and the empty cut frequent.
bounds = st.one_of(
    st.none(), st.integers(-5, 5), st.sampled_from([0, -1, INT64_MAX, INT64_MIN, 2**62])
)
steps = st.one_of(st.none(), st.sampled_from([1, 1, -1, -1, 2, -2, 3, -3]))
wholes = st.sampled_from(
    [slice(None), slice(0, INT64_MAX), slice(None, None, 1), slice(INT64_MIN, None), slice(-9, 9)]
)


@st.composite
def indices(draw: st.DrawFn) -> tuple[Any, ...]:
    items: list[Any] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["whole", "whole", "slice", "int", "new", "ellipsis", "pair"]))
        if kind == "whole":
            items.append(draw(wholes))
        elif kind == "slice":
            items.append(slice(draw(bounds), draw(bounds), draw(steps)))
        elif kind == "int":
            items.append(draw(st.integers(-3, 2)))
        elif kind == "new":
            items.append(None)
        elif kind == "pair":  # x[0, None]: the identity on an axis of size 1
            items += draw(st.sampled_from([[0, None], [None, 0], [-1, None]]))
        elif Ellipsis not in items:
            items.append(Ellipsis)
    return tuple(items)


@st.composite
def small_shapes(draw: st.DrawFn) -> tuple[Interval, ...] | None:
    """Interval shapes whose every concrete shape is run (None now and then: any rank)."""
    if draw(st.integers(0, 9)) == 0:
        return None
    out: list[Interval] = []
    for _ in range(draw(st.integers(0, 3))):
        lo = draw(st.integers(0, 3))
        hi = draw(st.one_of(st.none(), st.integers(lo, lo + 3)))
        out.append((lo, hi))
    return tuple(out)


def every_shape(shape: Sequence[Interval] | None) -> Iterator[tuple[int, ...]]:
    """Every concrete shape inside ``shape`` (unbounded sizes up to min + 5; any rank: 0..3)."""
    if shape is None:
        for rank in range(4):
            yield from itertools.product(range(4), repeat=rank)
        return
    ranges = [range(lo, (lo + 5 if hi is None else hi) + 1) for lo, hi in shape]
    yield from itertools.product(*ranges)


def run(s: dm.Slicing, x: Any) -> Any:
    """``s(x)``, or None where it cannot run."""
    try:
        return s(x)
    except dm.ValidationError:
        return None


def _huge(shape: tuple[int, ...]) -> bool:
    return math.prod(shape) > 2**20 or max(shape, default=0) > 2**20


def same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool((a == b).all())


# -- is_identity ----------------------------------------------------------------------------------
@fixed_settings(250)
@given(index=indices(), shape=small_shapes())
def test_is_identity_is_a_proof_checked_by_running(
    index: tuple[Any, ...], shape: tuple[Interval, ...] | None
) -> None:
    s = S(index)
    text = shape_text(shape)
    w = s.identity_witness(text)
    assert s.is_identity(text) == (w is None)
    if w is None:
        for size in every_shape(shape):
            x = iota(size)
            out = run(s, x)
            assert out is not None, (s, text, size)
            assert same(out, x), (s, text, size)
            assert same(x[index], x)  # NumPy says so too
    else:
        assert w in dm.PartialShape.parse(text), (s, text, w)
        if _huge(w):  # sizes past 2**62: too big to run; the output shape tells
            with contextlib.suppress(dm.ValidationError):
                assert s.infer(w) != w, (s, text, w)
            return
        x = iota(w)
        out = run(s, x)
        assert out is None or not same(out, x), (s, text, w)


@pytest.mark.parametrize(
    ("text", "shape", "identity", "witness"),
    [
        # OpenVINO PR #1177 (2020), onnxscript PR #2478 (2025), OpenVINO GPU #38240 (2026):
        # a slice whose output shape equals its input shape was removed as "useless".
        pytest.param("x[::-1]", "[2..10]", False, (2,), id="reversal-same-shape"),
        pytest.param("x[::-1]", "[5]", False, (5,), id="reversal-static"),
        pytest.param("x[:, ::-1]", "[?,?]", False, (1, 2), id="reversal-inner-axis"),
        pytest.param("x[::-1]", "[0..1]", True, None, id="reversal-of-at-most-one"),
        pytest.param("x[::-1, :]", "[3,0]", True, None, id="reversal-of-nothing"),
        pytest.param("x[0:9223372036854775807]", "[?]", True, None, id="int64-max-end"),
        pytest.param("x[-9223372036854775808:]", "[?,3]", True, None, id="int64-min-start"),
        pytest.param("x[:100]", "[..100]", True, None, id="stop-past-every-size"),
        pytest.param("x[:100]", "[..101]", False, (101,), id="stop-inside-a-size"),
        pytest.param("x[...]", None, True, None, id="ellipsis-any-rank"),
        pytest.param("x[:]", None, False, (), id="cut-cannot-run-on-a-scalar"),
        pytest.param("x[:]", "[...]", False, (), id="cut-cannot-run-on-a-scalar-text"),
        pytest.param("x[0, None]", "[1,5]", True, None, id="index-then-new-axis-on-1"),
        pytest.param("x[0, None]", "[1..2,5]", False, (2, 5), id="index-then-new-axis-on-2"),
        pytest.param("x[None, 0]", "[1,?]", True, None, id="new-axis-then-index"),
        pytest.param("x[None]", "[]", False, (), id="new-axis"),
        pytest.param("x[::2]", "[0..1]", True, None, id="step-2-on-at-most-one"),
        pytest.param("x[::2]", "[0..2]", False, (2,), id="step-2"),
        pytest.param("x[-1]", "[?]", False, (0,), id="index-out-of-range"),
        pytest.param("x[:0:2]", "[..1]", False, (1,), id="step-2-empty-on-1"),
    ],
)
def test_is_identity_cases(
    text: str, shape: str | None, identity: bool, witness: tuple[int, ...] | None
) -> None:
    s = S(text)
    assert s.is_identity(shape) is identity
    assert s.identity_witness(shape) == witness


def test_the_identity_stays_the_identity_in_every_dialect() -> None:
    # What a rewriter reads from another stack means the same here: ONNX's INT64_MAX end,
    # OpenVINO's masks, TensorFlow's bit fields.
    assert dm.Slicing.from_onnx([0], [INT64_MAX]).is_identity("[?]")
    assert dm.Slicing.from_onnx([-1], [INT64_MIN], steps=[-1]).identity_witness("[?]") == (2,)
    assert dm.Slicing.from_strided_slice([0], [0], begin_mask=[1], end_mask=[1]).is_identity("[?]")
    assert dm.Slicing.from_tf([0, 0], [0, 0], begin_mask=3, end_mask=3).is_identity("[?,?]")


# -- is_empty -------------------------------------------------------------------------------------
@fixed_settings(250)
@given(index=indices(), shape=small_shapes())
def test_is_empty_is_a_proof_checked_by_running(
    index: tuple[Any, ...], shape: tuple[Interval, ...] | None
) -> None:
    s = S(index)
    text = shape_text(shape)
    w = s.empty_witness(text)
    assert s.is_empty(text) == (w is None)
    if w is None:
        for size in every_shape(shape):
            out = run(s, iota(size))
            assert out is not None, (s, text, size)
            assert out.size == 0, (s, text, size)
    else:
        assert w in dm.PartialShape.parse(text), (s, text, w)
        if _huge(w):  # sizes past 2**62: too big to run; the output shape tells
            with contextlib.suppress(dm.ValidationError):
                assert math.prod(s.infer(w).to_shape()) > 0, (s, text, w)
            return
        out = run(s, iota(w))
        assert out is None or out.size > 0, (s, text, w)


@fixed_settings(200)
@given(index=indices(), shape=small_shapes())
def test_proofs_and_forms_hold_at_sizes_too_big_to_allocate(
    index: tuple[Any, ...], shape: tuple[Interval, ...] | None
) -> None:
    # Above, unbounded sizes are run up to min + 5; here at the sizes where lengths change
    # (near the slicing's numbers, 2**31, INT64_MAX - 1), on views NumPy slices unread.
    s = S(index)
    text = shape_text(shape)
    identity, empty = s.is_identity(text), s.is_empty(text)
    try:
        form = s.canonical(text)
    except dm.ValidationError:  # a static shape it cannot run on
        form = None
    dims = shape if shape is not None else ((0, None),) * addressed(s.entries)
    for w in wide_shapes(dims, numbers(s)):
        x = hollow(w)
        out = on_hollow(s, x)
        assert out is not None or not (identity or empty), (s, text, w)
        if identity:
            assert view_key(out, x) == view_key(x, x), (s, text, w)
        if empty:
            assert out.size == 0, (s, text, w)
        if form is not None and out is not None:
            assert view_key(on_hollow(form, x), x) == view_key(out, x), (s, text, w, form)


@pytest.mark.parametrize(
    ("s", "shape", "empty", "witness"),
    [
        pytest.param(S("x[3:]"), "[..3]", True, None, id="start-past-every-size"),
        pytest.param(S("x[3:]"), "[..4]", False, (4,), id="start-inside-a-size"),
        pytest.param(S("x[:0]"), "[?]", True, None, id="stop-0"),
        pytest.param(S("x[:0]"), None, False, (), id="cannot-run-on-a-scalar"),
        pytest.param(S("x[-100:-200:-1]"), "[1..99]", True, None, id="numpy-clamping"),
        pytest.param(
            dm.Slicing.from_onnx([-100], [-200], steps=[-1]), "[1..99]", False, (1,), id="onnx"
        ),
        pytest.param(S("x[0]"), "[?]", False, (0,), id="index-out-of-range"),
        pytest.param(S("x[None]"), "[]", False, (), id="scalar-with-new-axis"),
        pytest.param(S("x[:, 5:2]"), "[?,?]", True, None, id="backwards"),
    ],
)
def test_is_empty_cases(
    s: dm.Slicing, shape: str | None, empty: bool, witness: tuple[int, ...] | None
) -> None:
    assert s.is_empty(shape) is empty
    assert s.empty_witness(shape) == witness


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("x[::-1]", "[2..10]"),
        ("x[:, ::-1]", "[3,4]"),
        ("x[0, None]", "[1..2,5]"),
        ("x[3:]", "[..4]"),
    ],
)
def test_witnesses_differ_on_every_array_library(xp: Any, text: str, shape: str) -> None:
    s = S(text)
    for w in (s.identity_witness(shape), s.empty_witness(shape)):
        assert w is not None
        x = iota(w)
        out = xp.to_numpy(s(xp.asarray(x)))
        assert not same(out, x) or out.size > 0
    w = s.identity_witness(shape)
    assert w is not None
    assert not same(xp.to_numpy(s(xp.asarray(iota(w)))), iota(w))


def test_a_proved_identity_runs_unchanged_on_every_array_library(xp: Any) -> None:
    for text, shape in [
        ("x[0:9223372036854775807]", "[1..4]"),
        ("x[..., ::-1]", "[2,0..1]"),
        ("x[None, 0, :]", "[1,3]"),
    ]:
        s = S(text)
        assert s.is_identity(shape)
        for size in every_shape(tuple(_intervals(shape))):
            x = iota(size)
            assert same(xp.to_numpy(s(xp.asarray(x))), x), (text, size)


@settings(fixed_settings(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=indices(), shape=small_shapes())
def test_proofs_and_witnesses_hold_on_every_array_library(
    xp: Any, index: tuple[Any, ...], shape: tuple[Interval, ...] | None
) -> None:
    s = S(index)
    text = shape_text(shape)
    sizes = list(every_shape(shape))
    sizes = sizes[:: max(1, len(sizes) // 8)]
    for kind, witness, holds in (
        ("identity", s.identity_witness(text), lambda x, out: same(out, x)),
        ("empty", s.empty_witness(text), lambda _, out: out.size == 0),
    ):
        for size in [witness] if witness is not None else sizes:
            if math.prod(size) > 1 << 20:  # a witness on an unbounded axis: shown by its shape
                try:
                    got = tuple(s.infer(size).to_shape())
                except dm.ValidationError:
                    continue  # the slicing fails there: a witness too
                if kind == "empty":
                    assert math.prod(got) > 0, (s, text, size)
                # (identity: a shape other than size shows it; an equal one, a reversal's
                # values, cannot be run at this size)
                continue
            x = iota(size)
            try:
                out = xp.to_numpy(s(xp.asarray(x)))
            except dm.ValidationError:
                assert witness is not None
                continue
            assert holds(x, out) == (witness is None), (s, text, size)


def test_a_huge_step_is_decided_for_emptiness() -> None:
    s = S("x[5::4096]")
    assert s.is_empty("[..5]")
    assert s.empty_witness("[..10000]") == (6,)


def _intervals(text: str) -> Iterator[Interval]:
    for d in dm.PartialShape.parse(text).dims:
        yield (d.min, d.max)


# -- canonical ------------------------------------------------------------------------------------
static = st.lists(st.integers(0, 5), max_size=3).map(tuple)


def _relatives(s: dm.Slicing, shape: tuple[int, ...], draw: st.DrawFn) -> dm.Slicing:
    """A slicing often equivalent to ``s`` on ``shape``, written otherwise."""
    how = draw(st.sampled_from(["numpy", "strided", "tf", "trailing", "rule", "other"]))
    with contextlib.suppress(dm.ValidationError):
        if how == "numpy":
            return S(s.to_numpy(shape))
        if how == "strided":
            return dm.Slicing.from_strided_slice(**s.to_strided_slice(shape))
        if how == "tf":
            return dm.Slicing.from_tf(**s.to_tf(shape))
        if how == "trailing":
            return dm.Slicing((*s.entries, Cut(None, None, 1)))
        if how == "rule":
            return dm.Slicing(
                Cut.make(x.start, x.stop, x.step, CLAMP) if isinstance(x, Cut) else x
                for x in s.entries
            )
    return S(draw(indices()))


def _canonical(s: dm.Slicing, shape: Any) -> dm.Slicing | None:
    try:
        return s.canonical(shape)
    except dm.ValidationError:
        return None


@fixed_settings(400)
@given(index=indices(), shape=static, data=st.data())
def test_canonical_forms_are_equal_exactly_when_equivalent_on_static_shapes(
    index: tuple[Any, ...], shape: tuple[int, ...], data: st.DataObject
) -> None:
    a = S(index)
    b = _relatives(a, shape, data.draw)
    ca, cb = _canonical(a, shape), _canonical(b, shape)
    if ca is not None and cb is not None:
        assert (ca == cb) == a.equivalent(b, shape), (a, b, shape, ca, cb)
        assert (ca.to_numpy() == cb.to_numpy()) == (ca == cb)
    elif (ca is None) != (cb is None):
        assert not a.equivalent(b, shape)
    if ca is not None:
        assert ca.canonical(shape) == ca  # a normal form
        assert S(ca.to_numpy()) == ca  # printed, read back: the same
        assert ca.equivalent(a, shape)
        x = iota(shape)
        assert same(ca(x), a(x))


@fixed_settings(300)
@given(index=indices(), shape=small_shapes(), data=st.data())
def test_canonical_forms_on_intervals_are_equivalent_and_equal_only_when_equivalent(
    index: tuple[Any, ...], shape: tuple[Interval, ...] | None, data: st.DataObject
) -> None:
    a = S(index)
    text = shape_text(shape)
    b = S(data.draw(indices())) if data.draw(st.booleans()) else S(a.to_numpy())
    ca, cb = _canonical(a, text), _canonical(b, text)
    if ca is None or cb is None:
        return
    assert ca.canonical(text) == ca  # a normal form
    for size in every_shape(shape):
        x = iota(size)
        ra, rc = run(a, x), run(ca, x)
        assert (ra is None) == (rc is None), (a, ca, size)
        assert ra is None or same(ra, rc), (a, ca, size)
        if ca == cb:
            rb = run(b, x)
            assert (ra is None) == (rb is None), (a, b, size)
            assert ra is None or same(ra, rb), (a, b, size)


@pytest.mark.parametrize(
    ("texts", "shape", "form"),
    [
        (["x[0:9223372036854775807]", "x[:]", "x[...]", "x[::1]", "x[:, ...]"], [5], "x[...]"),
        (["x[:]", "x[::1]", "x[0:9223372036854775807]", "x[..., :]"], None, "x[:]"),
        (["x[...]", "x[()]"], None, "x[...]"),
        (["x[4::-1]", "x[::-1]", "x[-1:-6:-1]", "x[10:-10:-1]"], [5], "x[::-1]"),
        (["x[1:4:2]", "x[1::2]", "x[-4:5:2]", "x[1:-1:2]"], [5], "x[1::2]"),
        (["x[1:3:2]", "x[1:2]", "x[-4:-5:-1]", "x[1::9]"], [5], "x[1:2]"),
        (["x[:, -1]", "x[..., 3]", "x[:, 3, ...]"], [2, 4], "x[:, 3]"),
        (["x[3:]", "x[3:1000]"], "[..50]", "x[3:]"),
        (["x[-20:5]", "x[:5]", "x[-99:5:1]"], "[..10]", "x[:5]"),  # a start that clamps to 0
        (["x[5:6]", "x[5:7]", "x[5:]"], "[0..6]", "x[5:]"),
        (["x[-1:]", "x[0:1]", "x[:]"], "[0..1]", "x[...]"),
        (["x[7:]", "x[:0]", "x[3:1]"], "[..7]", "x[:0]"),
        (["x[1:, ..., :]", "x[1:, :, ...]"], None, "x[1:, :]"),
    ],
)
def test_canonical_cases(texts: list[str], shape: Any, form: str) -> None:
    forms = {S(t).canonical(shape).to_numpy() for t in texts}
    assert forms == {form}


def test_canonical_refuses_a_shape_the_slicing_cannot_run_on() -> None:
    with pytest.raises(dm.ValidationError, match="rank 1, but the slicing addresses 2 axes"):
        S("x[0, 1]").canonical([3])
    with pytest.raises(dm.ValidationError, match="index 3 is out of range"):
        S("x[3]").canonical([3])


def test_equivalent_decides_a_static_size_whatever_the_steps() -> None:
    # The steps' lcm (6000) is over the period the interval decision covers; one size is one check.
    a, b = S("x[::2000]"), S("x[::3000]")
    assert a.equivalent(b, [5])
    assert a.canonical([5]) == b.canonical([5]) == S("x[:1]")


def test_equivalent_decides_axes_cut_alike_whatever_their_steps() -> None:
    # An axis cut the same way on both sides selects alike on every size: no period to cover.
    big = 2**62
    s = S(f"x[::{big}, 1:]")
    assert s.equivalent(s)
    assert s.difference(S(f"x[::{big}, 2:]"), "[?,?]") == (1, 2)
    # cut with another long step: each takes element 0 up to size 2**62, where x[::2**62-1]
    # takes two (it was "the steps repeat every ... sizes, more than the 1024 checked")
    other = S(f"x[::{big - 1}, 1:]")
    assert s.difference(other) == s.difference(other, "[?,?]") == (big, 1)
    assert s.equivalent(other, f"[..{big - 1},?]")
    assert not s.equivalent(other, f"[..{big},?]")
    assert S(f"x[:1:{big}]").equivalent(S(f"x[:1:{big - 1}]"))  # one element at most, always
    # one long step on both sides, bounds that differ only where each takes two: not decided
    with pytest.raises(dm.ValidationError, match=rf"sizes from {big + 2}\): the steps repeat"):
        S(f"x[1::{big}]").equivalent(S(f"x[1:5:{big}]"))


def _cuts(draw: st.DrawFn) -> dm.Slicing:
    bound = st.none() | st.integers(-14, 14)
    start, stop = draw(bound), draw(bound)
    step = draw(st.sampled_from([1, -1])) * draw(st.integers(1, 30))
    if draw(st.booleans()):  # OpenVINO's clamping
        return dm.Slicing.from_onnx([start or 0], [stop or 2**63 - 1], steps=[step])
    return dm.Slicing.from_numpy((slice(start, stop, step),))


@fixed_settings(300)
@given(data=st.data())
def test_long_steps_are_decided_as_running_every_size(data: st.DataObject) -> None:
    # The rule for steps whose lcm is past the period checked, on small analogues: with the
    # period lowered to 3, steps up to 30 on sizes up to 70 answer as running each size does
    a, b = _cuts(data.draw), _cuts(data.draw)
    lo = data.draw(st.integers(0, 40))
    hi = data.draw(st.integers(lo + 1, 70))
    runs = {d: (a(np.arange(d)).tolist(), b(np.arange(d)).tolist()) for d in range(lo, hi + 1)}
    first = next((d for d, (x, y) in runs.items() if x != y), None)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("datamove._dialects._MAX_PERIOD", 3)
            got = a.difference(b, f"[{lo}..{hi}]")
    except dm.ValidationError:  # only one step on both sides, past where one takes two
        (x,), (y,) = a.entries, b.entries
        assert x.step == y.step
        assert abs(x.step) > 3
        pair = min(d for d, (u, v) in runs.items() if max(len(u), len(v)) >= 2)
        assert first is None or first >= pair
        return
    assert got == (None if first is None else (first,))


# -- splits and slicings --------------------------------------------------------------------------
@st.composite
def splits(draw: st.DrawFn) -> tuple[dm.Splitting, tuple[Interval, ...]]:
    rank = draw(st.integers(1, 3))
    axis = draw(st.integers(0, rank - 1))
    lengths = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    dims: list[Interval] = [
        (d, d) for d in draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    ]
    kind = draw(st.sampled_from(["static", "rest", "even"]))
    if kind == "even":
        n = draw(st.integers(1, 4))
        dims[axis] = (n * draw(st.integers(0, 3)),) * 2  # type: ignore[assignment]
        return dm.Splitting(axis, "even", n), tuple(dims)
    if kind == "static":
        dims[axis] = (sum(lengths), sum(lengths))
        return dm.Splitting(axis, "lengths", tuple(lengths)), tuple(dims)
    k = draw(st.integers(0, len(lengths) - 1))
    lengths[k] = -1
    lo = sum(lengths) + 1 + draw(st.integers(0, 2))
    dims[axis] = (lo, draw(st.one_of(st.none(), st.integers(lo, lo + 3))))
    return dm.Splitting(axis, "lengths", tuple(lengths)), tuple(dims)


def _check_split_runs_as_slicings(
    splitting: dm.Splitting, slicings: list[dm.Slicing], shape: Sequence[Interval], xp: Any = None
) -> None:
    for size in every_shape(shape):
        x = iota(size)
        want = [s(x) for s in slicings]
        name, p = splitting.to_openvino(size)
        native = xp.asarray(x) if xp is not None else x
        if name == "Split":
            got = dm.split(native, p["axis"], p["num_splits"])
        else:
            got = dm.variadic_split(native, p["axis"], p["split_lengths"])
        if xp is not None:
            got = [xp.to_numpy(g) for g in got]
        assert len(got) == len(want)
        assert all(same(g, w) for g, w in zip(got, want, strict=True)), (splitting, size)
        assert all(same(g, w) for g, w in zip(splitting(x), want, strict=True))


@fixed_settings(200)
@given(case=splits())
def test_a_split_and_its_slicings_go_both_ways(
    case: tuple[dm.Splitting, tuple[Interval, ...]],
) -> None:
    splitting, shape = case
    text = shape_text(shape)
    slicings = splitting.as_slicings(text)
    found = dm.group_into_split(slicings, text)
    assert found is not None, (splitting, text, [s.to_numpy() for s in slicings])
    again = found.as_slicings(text)
    assert all(a.equivalent(b, text) for a, b in zip(again, slicings, strict=True))
    assert dm.Splitting.from_slicings(slicings, text) == found
    _check_split_runs_as_slicings(found, slicings, shape)


@st.composite
def cut_lists(draw: st.DrawFn) -> tuple[list[dm.Slicing], tuple[Interval, ...] | None]:
    shape = draw(small_shapes())
    rank = 2 if shape is None else len(shape)
    axis = draw(st.integers(0, max(rank - 1, 0)))
    back = draw(st.booleans())
    out = []
    for _ in range(draw(st.integers(1, 4))):
        c = slice(
            draw(st.one_of(st.none(), st.integers(-6, 6))),
            draw(st.one_of(st.none(), st.integers(-6, 6))),
            draw(st.sampled_from([None, 1, 2, -1])),
        )
        out.append(
            S(
                (Ellipsis, c) + (slice(None),) * (rank - 1 - axis)
                if back
                else (slice(None),) * axis + (c,)
            )
        )
    return out, shape


def _tiles(x: np.ndarray, outs: list[np.ndarray]) -> bool:
    """Whether the parts, run, are the input cut along one axis, in order."""
    for axis in range(x.ndim):
        rest = x.shape[:axis] + x.shape[axis + 1 :]
        fits = all(o.ndim == x.ndim and o.shape[:axis] + o.shape[axis + 1 :] == rest for o in outs)
        if fits and same(np.concatenate(outs, axis=axis), x):
            return True
    return False


@fixed_settings(300)
@given(case=cut_lists())
def test_group_into_split_is_checked_by_running(
    case: tuple[list[dm.Slicing], tuple[Interval, ...] | None],
) -> None:
    slicings, shape = case
    text = shape_text(shape)
    found = dm.group_into_split(slicings, text)
    if found is not None:
        if shape is None and found.rule == "lengths":  # every size: a -1 and empty parts only
            assert sum(v for v in found.value if v != -1) == 0, found
        for size in every_shape(shape):
            x = iota(size)
            want = [run(s, x) for s in slicings]
            if any(w is None for w in want):  # then the split cannot run either
                assert all(w is None for w in want), (found, size)
                with pytest.raises(dm.ValidationError):
                    found(x)
                continue
            assert all(same(g, w) for g, w in zip(found(x), want, strict=True)), (found, size)
    elif shape is not None and all(lo == hi for lo, hi in shape):
        x = iota([lo for lo, _ in shape])
        outs = [run(s, x) for s in slicings]
        if x.size and all(o is not None for o in outs):
            assert not _tiles(x, outs), ([s.to_numpy() for s in slicings], shape)


@fixed_settings(200)
@given(case=cut_lists())
def test_group_into_split_with_gaps_is_checked_by_running(
    case: tuple[list[dm.Slicing], tuple[Interval, ...] | None],
) -> None:
    slicings, shape = case
    text = shape_text(shape)
    found = dm.group_into_split_with_gaps(slicings, text)
    if found is None:
        return
    splitting, parts = found
    assert len(parts) == len(slicings)
    assert list(parts) == sorted(set(parts))
    for size in every_shape(shape):
        x = iota(size)
        if any(run(s, x) is None for s in slicings):
            with pytest.raises(dm.ValidationError):
                splitting(x)
            continue
        got = splitting(x)
        for s, k in zip(slicings, parts, strict=True):
            assert same(got[k], s(x)), (splitting, parts, size)


def test_a_step_longer_than_any_size_keeps_its_cut() -> None:
    # x[::10**12] takes element 0 alone up to size 10**12 and two past it, which "[?]" allows:
    # canonical keeps the cut as given (it is neither empty nor whole, nor one element at most),
    # and what it keeps selects what NumPy selects
    big = S("x[::1000000000000]")
    assert big.canonical("[?]") == big
    assert not big.is_identity("[?]")
    assert not big.is_empty("[?]")
    for n in range(4):
        assert same(big.canonical("[?]")(iota((n,))), iota((n,))[::1000000000000])


def test_a_start_kept_where_dropping_it_cannot_be_decided() -> None:
    # x[-3000::2000] and x[::2000] agree below size 2001, where each takes one element, and
    # repeat every 2000 sizes past it, more than decided: canonical keeps the start, which is
    # right (on size 4001 they differ)
    s = S("x[-3000::2000]")
    assert s.canonical("[?]") == s
    x = iota((4001,))
    assert not same(s(x), S("x[::2000]")(x))
    assert same(s.canonical("[?]")(x), x[-3000::2000])


def test_a_split_axis_that_only_a_later_slicing_addresses() -> None:
    # x[:] addresses axis 0 alone; the split is of axis 1, which x[:, 4:4] names. On any rank
    # x[:] runs on rank 1 too, where no split of axis 1 does.
    parts = ["x[:]", "x[:, 4:4]"]
    assert dm.group_into_split_with_gaps(parts) is None
    found = dm.group_into_split_with_gaps(parts, "[?,?]")
    assert found == (dm.Splitting(1, "lengths", (-1, 0)), (0, 1))
    x = iota((2, 5))
    got = found[0](x)
    assert same(got[0], x[:])
    assert same(got[1], x[:, 4:4])


def test_group_into_split_cases() -> None:
    parts = [S("x[:, :4]"), S("x[:, 4:8]"), S("x[:, 8:]")]
    assert dm.group_into_split(parts, [2, 12]) == dm.Splitting(1, "even", 3)
    assert dm.group_into_split(["x[:, :4]", "x[:, 4:8]", "x[:, 8:]"], [2, 12]) == dm.Splitting(
        1, "even", 3
    )
    assert dm.group_into_split(parts, "[2,8..]") == dm.Splitting(1, "lengths", (4, 4, -1))
    # VariadicSplit refuses size 7, where the slicings run: NumPy's indices
    assert dm.group_into_split(parts, "[2,7..]") == dm.Splitting(1, "indices", (4, 8))
    assert dm.group_into_split(parts, None) == dm.Splitting(1, "indices", (4, 8))
    assert dm.group_into_split(parts[::-1], [2, 12]) is None  # not in order
    assert dm.group_into_split([S("x[..., :2]"), S("x[..., 2:]")], "[3,?,2..]") == dm.Splitting(
        2, "lengths", (2, -1)
    )
    assert dm.group_into_split([S("x[..., :-2]"), S("x[..., -2:]")], "[...]") == dm.Splitting(
        -1, "indices", (-2,)
    )
    assert dm.group_into_split([S("x[...]")], None) is None  # a scalar cannot be split
    assert dm.group_into_split([S("x[...]")], "[]") is None  # nor a shape of rank 0
    assert dm.group_into_split([S("x[None]")], "[3]") is None  # a new axis is not a part
    assert dm.group_into_split([S("x[0]")], "[3]") is None  # nor an index that drops the axis
    assert dm.group_into_split([S("x[:]")], None) == dm.Splitting(0, "even", 1)
    assert dm.group_into_split([S("x[:]")], "[?]") == dm.Splitting(0, "even", 1)
    assert dm.group_into_split([S("x[::-1]")], "[2]") is None  # a reversal is not a part
    assert dm.group_into_split([S("x[:2, :2]"), S("x[2:, 2:]")], [4, 4]) is None  # two axes
    assert dm.group_into_split_with_gaps([S("x[1:3]"), S("x[5:-2]")], "[7..]") == (
        dm.Splitting(0, "lengths", (1, 2, 2, -1, 2)),
        (1, 3),
    )
    with pytest.raises(dm.ValidationError, match="are the parts of no split"):
        dm.Splitting.from_slicings([S("x[1:]")], [4])
    with pytest.raises(dm.ValidationError, match=r"slicings\[1\]=5 is not a dm\.Slicing"):
        dm.group_into_split([S("x[:1]"), 5], [4])  # type: ignore[list-item]
    with pytest.raises(dm.ValidationError, match="is empty"):
        dm.group_into_split([], [4])


def slice_text(s: slice) -> str:
    return f"x[{'' if s.start is None else s.start}:{'' if s.stop is None else s.stop}]"


def check_grouping(slices: Sequence[slice], lo: int, hi: int) -> dm.Splitting | None:
    """group_into_split of step-1 slices on ``lo..hi`` against the brute force: a split (of any
    rule) whose parts are the slices on every size exists if and only if it finds one, which
    then runs as the slices on every size; where none does, ``from_slicings`` names a shape."""
    texts = [slice_text(s) for s in slices]
    shape = f"[{lo}..{hi}]"
    found = dm.group_into_split(texts, shape)
    brute = some_split(slices, lo, hi)
    if brute is None:
        assert found is None, (texts, shape, found)
        with pytest.raises(dm.ValidationError, match="are the parts of no split") as info:
            dm.Splitting.from_slicings(texts, shape)
        named = [int(w) for w in re.findall(r"on shape \((\d+),\)", str(info.value))]
        assert named, str(info.value)
        assert all(lo <= w <= hi for w in named), str(info.value)
        return None
    assert found is not None, (texts, shape, brute)
    assert dm.Splitting.from_slicings(texts, shape) == found
    for d in range(lo, hi + 1):
        x = iota((d,))
        got = found(x)
        assert len(got) == len(slices)
        assert all(same(g, x[s]) for g, s in zip(got, slices, strict=True)), (texts, found, d)
    return found


def test_group_into_split_finds_every_split_of_small_tilings() -> None:
    # Every interval up to 3 and every tiling of up to 3 slices (two writings of each
    # selection); 4 slices and sizes up to 5: test_group_into_split_agrees_with_the_brute_force.
    rules = set()
    for lo in range(4):
        for hi in range(lo, 4):
            for slices in tilings(lo, hi, 3):
                found = check_grouping(slices, lo, hi)
                rules.add(None if found is None else found.rule)
    assert rules == {None, "even", "lengths", "indices"}


@fixed_settings(400)
@given(case=drawn_tilings(4, 5))
def test_group_into_split_agrees_with_the_brute_force(case: tuple[int, int, list[slice]]) -> None:
    check_grouping(*(case[2], case[0], case[1]))


def test_group_into_split_finds_splits_by_indices() -> None:
    # Where VariadicSplit refuses a size the slicings run on, numpy.split's indices say them
    parts = ["x[:, :2]", "x[:, 2:5]", "x[:, 5:]"]
    assert dm.group_into_split(parts, "[?,5..9]") == dm.Splitting(1, "lengths", (2, 3, -1))
    for shape in ("[?,3..9]", "[?,0..9]", "[?,?]", None):
        assert dm.group_into_split(parts, shape) == dm.Splitting(1, "indices", (2, 5))
    # points from the front and the back, crossing on small sizes as NumPy's do
    assert dm.group_into_split(["x[:3]", "x[3:-3]", "x[-3:]"], "[0..4]") == dm.Splitting(
        0, "indices", (3, -3)
    )
    assert dm.group_into_split(["x[:-1]", "x[-1:3]", "x[3:]"], "[0..4]") == dm.Splitting(
        0, "indices", (-1, 3)
    )
    with pytest.raises(dm.ValidationError, match=r"leave a hole, 'x\[3:5\]', .* shape \(4,\)"):
        dm.Splitting.from_slicings(["x[:3]", "x[5:]"], "[?]")
    with pytest.raises(dm.ValidationError, match=r"differs from 'x\[:\]', the closest"):
        dm.Splitting.from_slicings(["x[::-1]"], "[2..3]")


def test_as_slicings_on_sizes_that_are_not_static() -> None:
    v = dm.Splitting.from_variadic_split(1, [2, -1, 3])
    assert [s.to_numpy() for s in v.as_slicings("[?,5..]")] == [
        "x[:, :2]",
        "x[:, 2:-3]",
        "x[:, -3:]",
    ]
    assert [s.to_numpy() for s in dm.Splitting.from_split(0, 1).as_slicings()] == ["x[:]"]
    with pytest.raises(dm.NotExpressible):
        dm.Splitting.from_split(0, 2).as_slicings("[2..4]")


@pytest.mark.parametrize("shape", [((6, 6), (3, 3)), ((5, None), (2, 2))])
def test_grouped_splits_run_on_every_array_library(xp: Any, shape: tuple[Interval, ...]) -> None:
    for slicings in (
        [S("x[:2]"), S("x[2:4]"), S("x[4:]")],
        [S("x[:1]"), S("x[1:-2]"), S("x[-2:]")],
    ):
        found = dm.group_into_split(slicings, shape_text(shape))
        if found is not None:
            _check_split_runs_as_slicings(found, slicings, shape, xp)


def test_canonical_decides_two_different_long_steps_as_equivalent_does() -> None:
    # canonical's own comparison of cuts said "not shown equal" where the steps' lcm passes the
    # period checked, though Slicing.equivalent decides two different steps exactly: x[::2**62]
    # and x[::2**62-1] take element 0 alone up to size 2**62, where the second takes two.
    big = 2**62
    a, b = S(f"x[::{big}]"), S(f"x[::{big - 1}]")
    for shape in (f"[..{big - 1}]", f"[1..{big - 1}]"):
        assert a.equivalent(b, shape)
        assert a.canonical(shape) == b.canonical(shape) == S("x[:1]")
    assert not a.equivalent(b, f"[..{big}]")
    assert a.canonical(f"[..{big}]") != b.canonical(f"[..{big}]")
    assert S(f"x[::{big}]").canonical("[..1]") == S("x[...]")  # whole on sizes 0 and 1
    assert S(f"x[::{-big}]").canonical("[..9]") == S("x[-1:]")
    assert S(f"x[3::{big}]").canonical("[..9]") == S("x[3:4]")
    # one long step on both sides stays as written where the comparison is not decided
    assert S(f"x[1::{big}]").canonical("[?]") == S(f"x[1::{big}]")


@pytest.mark.parametrize(
    ("texts", "shape", "form"),
    [
        # a bound dropped made a step-1 form possible: the first form was not its own form
        (["x[7::-4611686018427387904]", "x[12:-10:-3]", "x[::-3]", "x[-1:]"], "[..2]", "x[-1:]"),
        (["x[-2::4]", "x[-9:9:2147483648]", "x[::4]", "x[:1]"], "[..2]", "x[:1]"),
        # one element at most, counted from the back: step 1 (the start was -1 or nothing)
        (["x[-2::1025]", "x[-2::9223372036854775807]", "x[-2:-1]"], "[9..]", "x[-2:-1]"),
        # one element at most with step -1 or +-1: step 1 where a step-1 cut says it
        (["x[0::-1]", "x[:1]", "x[0::-7]"], "[2..]", "x[:1]"),
        (["x[11:10:-2048]", "x[11:10:-1]", "x[11:12]"], "[2..]", "x[11:12]"),
        # no step-1 cut says it: the smallest step that takes one at most
        (["x[5::-2147483648]", "x[5::-9223372036854775807]", "x[5::-100]"], "[..19]", "x[5::-6]"),
        (["x[-8:-2:1024]", "x[-8::1024]", "x[-8::8]"], "[3..30]", "x[-8::8]"),
        (["x[5:-2:-1]", "x[5:-2:-7]"], "[3..]", "x[5:-2:-1]"),
    ],
)
def test_one_element_at_most_has_one_form_on_intervals(
    texts: list[str], shape: str, form: str
) -> None:
    forms = {S(t).canonical(shape) for t in texts}
    assert {f.to_numpy() for f in forms} == {form}
    (f,) = forms
    assert f.canonical(shape) == f  # a normal form
    lo, _, hi = shape.strip("[]").partition("..")
    first = int(lo or 0)
    for size in range(first, first + 40 if not hi else min(int(hi), first + 40) + 1):
        for t in texts:
            assert same(f(iota((size,))), S(t)(iota((size,)))), (t, size)


def test_the_clamping_tag_is_decided_whatever_the_step() -> None:
    # NumPy's and OpenVINO's rules differ only below size -start, where each takes one element at
    # most: the tag is decided there without covering the step's period (it was kept as read)
    numpy, openvino = S("x[-4::-2048]"), S("x[-4::-2048]", clamping="openvino")
    assert numpy.canonical("[10..]") == openvino.canonical("[10..]") == openvino
    assert numpy.canonical("[3..]") != openvino.canonical("[3..]")
    # OpenVINO's clamping starts a negative step before the first element at index 0, as a
    # positive step from there does
    assert S("x[-7::-9223372036854775807]", clamping="openvino").canonical("[2..22]") == S(
        "x[-7::7]"
    )


def test_group_into_split_probes_sizes_below_int64_max() -> None:
    # The two sizes read to see which part grows were past every bound summed, 2**63 and more
    # here: a raw OverflowError from len(range(...)). Sizes stop below INT64_MAX.
    big = 2**62
    parts = [S(f"x[-{big}:-{big}]"), S("x[:]")]  # the first is empty on every size
    assert dm.group_into_split(parts, "[1..]") == dm.Splitting(0, "lengths", (0, -1))
    assert dm.group_into_split([S(f"x[-{big}:-{big}]"), S(f"x[{big}:]")], "[1..]") is None
    # VariadicSplit [big, -1, big] refuses the sizes below 2 * big; NumPy's indices do not
    found = dm.group_into_split_with_gaps([S(f"x[:{big}]"), S(f"x[{big}:-{big}]")], "?")
    assert found == (dm.Splitting(0, "indices", (big, -big)), (0, 1))
    x = iota((5,))
    assert [p.tolist() for p in found[0](x)] == [x.tolist(), [], x.tolist()]


def test_is_identity_needs_no_count_where_a_length_already_differs() -> None:
    # x[1, 4:-4:2**63-1, None] on [2..,2..4,3..5]: output axis 0 is the cut, of length 0 on size
    # 2, where the input's axis 0 is 2 or more. is_identity decided first whether the cut's
    # length is constant over 2..4, with a period of 2**63-1: "cannot be decided".
    s = S("x[1, 4:-4:9223372036854775807, None]")
    w = s.identity_witness("[2..,2..4,3..5]")
    assert w is not None
    x = iota(w)
    assert s(x).shape != x.shape
    # the new axis at position 1 differs from the input's size 6 or more: asked before the count
    u = S("x[0, 5:7:4611686018427387904, None]")
    assert u.identity_witness("[1,6..]") is not None
