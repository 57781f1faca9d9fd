"""Slicings with wide values, run: INT32 and INT64 extremes, 2**32, 2**40, 2**62 as bounds and
steps, on static, interval and unknown shapes.

The other property tests draw bounds in -9..9 with the INT64 sentinels and steps in -4..4. A
differential hunt with these wider draws found steps near INT64_MAX that PyTorch's int64 slice
arithmetic overflows on (``to_torch``), a composition that listed 3 * 2**63 sizes (``compose``),
an undecidable rank taken for one where ``a`` then ``b`` cannot run, and an index of INT64_MAX
written with an end of 2**63. Here every emitter that takes shapes that are not static is run at
every allowed size (unbounded ones up to 8), ``compose`` against ``a`` then ``b``, and
``difference`` must name an allowed shape; the NumPy form and equivalence also at the sizes
where the values take effect, on ``hollow`` views. Example counts scale with
``DATAMOVE_EXAMPLES``.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import datamove as dm
from strategies import fixed_settings, hollow, numpy_indices, view_key, wide_shapes
from test_compose import index_of, numbers, on_hollow
from test_dialects import apply_ops, run_torch, same

pytest.importorskip("torch", reason="torch (the backends extra) is not installed")

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
BIG = [
    INT64_MIN,
    INT64_MIN + 1,
    INT64_MAX,
    INT64_MAX - 1,
    2**31 - 1,
    -(2**31),
    2**32,
    -(2**32),
    2**40,
    -(2**40),
    2**62,
    -(2**62),
    -(2**62) - 5,
]
BIG_STEPS = [INT64_MIN, INT64_MAX, -INT64_MAX, 2**31 - 1, -(2**31), 2**32, 2**40, 2**62, -(2**62)]
TOP = 8  # sizes tried on an unbounded axis: up to here

bounds = st.one_of(st.none(), st.integers(-6, 6), st.sampled_from(BIG))
steps = st.one_of(st.none(), st.integers(-3, 3).filter(bool), st.sampled_from(BIG_STEPS))


def indices() -> st.SearchStrategy[tuple[Any, ...]]:
    ints = st.integers(-3, 2) | st.sampled_from([INT64_MIN, INT64_MAX])
    return numpy_indices(bounds, steps, ints, most=3)


@st.composite
def slicings(draw: Any) -> dm.Slicing:
    """NumPy's clamping, or the same numbers read with OpenVINO's."""
    s = dm.Slicing.from_numpy(draw(indices()))
    if draw(st.booleans()):
        s = dm.Slicing.from_strided_slice(**s._strided_slice(list(s.entries)))
    return s


@st.composite
def dims(draw: Any) -> dm.Dimension:
    lo = draw(st.integers(0, 5))
    kind = draw(st.sampled_from(["static", "interval", "unbounded"]))
    if kind == "static":
        return dm.Dimension(lo, lo)
    return dm.Dimension(lo, draw(st.integers(lo, TOP)) if kind == "interval" else None)


def sizes(shape: dm.PartialShape | None, base: list[int]) -> list[tuple[int, ...]]:
    """Every allowed static shape (unbounded axes up to ``TOP``); for no shape, ranks 0 to 5."""
    if shape is None:
        return [tuple(base[:rank]) for rank in range(6)]
    ranges = [range(d.min, (TOP if d.max is None else d.max) + 1) for d in shape.dims]
    return list(itertools.product(*ranges))


def run(s: dm.Slicing, x: np.ndarray) -> np.ndarray | None:
    try:
        return s(x)
    except dm.ValidationError:
        return None


def running(dialect: str, written: Any) -> Any:
    if dialect == "numpy":
        return lambda x: eval(written, {"x": x})  # noqa: S307 - our own output, in a test
    if dialect == "strided_slice":
        return lambda x: dm.strided_slice(x, **written)
    if dialect == "slice":
        return lambda x: apply_ops(x, written)
    return lambda x: run_torch(x, written)


@fixed_settings(400)
@given(
    s=slicings(),
    ds=st.lists(dims(), max_size=3),
    unknown=st.booleans(),
    base=st.lists(st.integers(0, 4), min_size=5, max_size=5),
    dialect=st.sampled_from(["numpy", "strided_slice", "slice", "torch"]),
)
def test_emitters_of_wide_values_hold_on_every_allowed_size(
    s: dm.Slicing,
    ds: list[dm.Dimension],
    unknown: bool,
    base: list[int],
    dialect: str,
) -> None:
    shape = None if unknown else dm.PartialShape(ds)
    emit = {
        "numpy": s.to_numpy,
        "strided_slice": s.to_strided_slice,
        "slice": s.to_slice,
        "torch": s.to_torch,
    }[dialect]
    refused: dm.ValidationError | None = None
    try:
        written = emit(shape)
    except dm.NotExpressible as exc:
        w = exc.witness
        assert shape is None or w is None or w in shape
        return
    except dm.ValidationError as exc:  # runs on no allowed shape
        refused = exc
    if refused is not None:  # with no shape: an index no size below INT64_MAX holds
        assert shape is not None or refused.rule.endswith("(NumPy raises IndexError)"), refused
        return
    go = running(dialect, written)
    big = dialect == "torch" and any(p["step"] > 2**31 - 1 for n, p in written if n == "getitem")
    for w in sizes(shape, base):
        x = np.arange(int(np.prod(w))).reshape(w)
        want = run(s, x)
        if want is None:
            continue
        try:
            got = go(x)
        except RuntimeError:  # PyTorch's stride * step overflows (docs/dialects.md)
            got = None
        assert got is not None or big, (s, shape, w, written)
        assert got is None or same(got, want), (s, shape, w, written)


@fixed_settings(300)
@given(
    a=slicings(),
    b=slicings(),
    ds=st.lists(dims(), max_size=3),
    unknown=st.booleans(),
    base=st.lists(st.integers(0, 4), min_size=5, max_size=5),
)
def test_compose_of_wide_values_is_a_then_b(
    a: dm.Slicing, b: dm.Slicing, ds: list[dm.Dimension], unknown: bool, base: list[int]
) -> None:
    shape = None if unknown else dm.PartialShape(ds)
    try:
        f = dm.compose(a, b, shape)
    except dm.NotExpressible as exc:
        w = exc.witness
        assert shape is None or w in shape
        return
    except dm.ValidationError:
        return
    for w in sizes(shape, base):
        x = np.arange(int(np.prod(w))).reshape(w)
        y = run(a, x)
        want = None if y is None else run(b, y)
        got = run(f, x)
        assert (got is None) == (want is None), (a, b, shape, w, f)
        assert want is None or same(got, want), (a, b, shape, w, f)


@fixed_settings(300)
@given(a=slicings(), b=slicings(), ds=st.lists(dims(), max_size=3))
def test_difference_of_wide_values_names_an_allowed_shape(
    a: dm.Slicing, b: dm.Slicing, ds: list[dm.Dimension]
) -> None:
    shape = dm.PartialShape(ds)
    others = [b]
    with contextlib.suppress(dm.ValidationError):  # a rewritten: often equivalent
        others.append(dm.Slicing.from_strided_slice(**a.to_strided_slice(shape)))
    for t in others:
        try:
            w = a.difference(t, shape)
        except dm.ValidationError:  # steps that repeat past what is checked
            continue
        if w is None:
            for v in sizes(shape, []):
                x = np.arange(int(np.prod(v))).reshape(v)
                ra, rt = run(a, x), run(t, x)
                assert (ra is None) == (rt is None), (a, t, shape, v)
                assert ra is None or same(ra, rt), (a, t, shape, v)
        else:
            assert w in shape, (a, t, shape, w)


@fixed_settings(200)
@given(s=slicings(), t=slicings(), ds=st.lists(dims(), max_size=3))
def test_numpy_form_and_equivalence_hold_at_sizes_too_big_to_allocate(
    s: dm.Slicing, t: dm.Slicing, ds: list[dm.Dimension]
) -> None:
    # The tests above run unbounded sizes up to 8; here the sizes where these values take
    # effect (2**31, 2**62, INT64_MAX - 1), on views NumPy slices unread.
    shape = dm.PartialShape(ds)
    with contextlib.suppress(dm.ValidationError):  # often equivalent
        t = dm.Slicing.from_strided_slice(**s.to_strided_slice(shape)) if ds else t
    try:
        index = index_of(s.to_numpy(shape))
    except dm.ValidationError:  # NotExpressible, or an index out of range on every size
        index = None
    try:
        equal = s.difference(t, shape) is None
    except dm.ValidationError:  # steps that repeat past what is checked
        equal = False
    for w in wide_shapes([(d.min, d.max) for d in ds], numbers(s, t)):
        x = hollow(w)
        want = on_hollow(s, x)
        if equal:
            other = on_hollow(t, x)
            assert (other is None) == (want is None), (s, t, shape, w)
            assert want is None or view_key(other, x) == view_key(want, x), (s, t, shape, w)
        if index is not None and want is not None:
            got = x[index]
            assert view_key(got, x) == view_key(want, x), (s, shape, w, s.to_numpy(shape))


@fixed_settings(200)
@given(
    start=st.one_of(
        st.none(),
        st.integers(-3, 3),
        st.integers(INT64_MIN, INT64_MIN + 3),
        st.integers(INT64_MAX - 3, INT64_MAX),
    ),
    stop=st.one_of(
        st.none(),
        st.integers(-3, 3),
        st.integers(INT64_MIN, INT64_MIN + 3),
        st.integers(INT64_MAX - 3, INT64_MAX),
    ),
    step=st.sampled_from([1, 2, -1, -2]),
)
# The stop INT64_MIN + 2 counts back to index 0 on the largest size an unbounded axis holds,
# INT64_MAX - 1, so x[:INT64_MIN + 2:-1] leaves element 0 out there (it was read as x[::-1])
@example(start=None, stop=INT64_MIN + 2, step=-1)
# x[:] on every size below INT64_MAX, but not on INT64_MAX, where it leaves element 0 out
@example(start=-(2**63 - 2), stop=None, step=1)
def test_bounds_near_the_int64_ends_at_every_size_an_axis_holds(
    start: int | None, stop: int | None, step: int
) -> None:
    s = dm.Slicing.from_numpy((slice(start, stop, step),))
    for d in (*range(6), INT64_MAX - 3, INT64_MAX - 2, INT64_MAX - 1):
        x = hollow((d,))
        want = view_key(x[start:stop:step], x)
        got = view_key(s(x), x)  # keys, not views: a failing assert must never print x
        assert got == want, (s, d)
        for shape in (None, "[?]", [d]):
            got = view_key(x[index_of(s.to_numpy(shape))], x)
            assert got == want, (s, d, shape)
    # A size of INT64_MAX, which no unbounded axis holds: the normal form's bounds stand for the
    # sizes below it (x[-(2**63 - 2):] is x[:], which took element 0 too on INT64_MAX elements,
    # in s(x) and s.infer), so each refuses it; dm.strided_slice keeps the numbers and is exact.
    x = hollow((INT64_MAX,))
    want = view_key(x[start:stop:step], x)
    if not (step < 0 and start == INT64_MIN):  # OpenVINO's corner: index 0, NumPy's nothing
        masks = {"begin_mask": [int(start is None)], "end_mask": [int(stop is None)]}
        got = view_key(dm.strided_slice(x, [start or 0], [stop or 0], [step], **masks), x)
        assert got == want, (start, stop, step)
    for call in (s, s.infer, s.to_numpy, s.to_strided_slice, s.canonical, s.is_identity):
        arg = x if call is s else [INT64_MAX]
        with pytest.raises(dm.ValidationError, match="normal form holds for sizes below INT64_MAX"):
            call(arg)
