"""``dm.compose``: one slicing equal to ``a`` then ``b``, checked by execution (issue 21).

Every claim is checked against running ``a`` then ``b``: on static shapes, on every size of
interval shapes (sampled inside unbounded ones), with every mask and negative steps, on NumPy and
over the ``xp`` fixture (PyTorch and the other installed libraries). A ``NotExpressible`` is
checked too: its witness is allowed, and on one axis (``test_not_expressible_is_proved``) no
single cut at all agrees with ``a`` then ``b`` on every allowed size up to a bound, found by
trying every cut that can differ on those sizes, a proof that no slicing exists.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove import _compose
from datamove._dialects import CLAMP, NUMPY, Cut, addressed, index_at, selection
from strategies import fixed_settings, hollow, numpy_indices, view_key, wide_shapes

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

S = dm.Slicing.from_numpy
small = st.integers(-9, 9)
bounds = st.one_of(
    st.none(), small, small, st.sampled_from([INT64_MIN, INT64_MAX, 2**31 - 1, -(2**31), 10**6])
)
steps = st.one_of(st.none(), st.integers(-4, 4).filter(bool), st.sampled_from([7, -9]))


def indices() -> st.SearchStrategy[tuple[Any, ...]]:
    return numpy_indices(bounds, steps, st.integers(-4, 3))


@st.composite
def slicings(draw: Any) -> dm.Slicing:
    """NumPy indexing, or ONNX Slice (OpenVINO's clamping) over a few axes."""
    if draw(st.integers(0, 4)) == 0:
        n = draw(st.integers(1, 3))
        axes = draw(st.permutations(range(n)))
        starts = [draw(st.one_of(small, st.sampled_from([INT64_MIN, INT64_MAX]))) for _ in axes]
        ends = [draw(st.one_of(small, st.sampled_from([INT64_MIN, INT64_MAX]))) for _ in axes]
        stp = [draw(st.integers(-3, 3).filter(bool)) for _ in axes]
        return dm.Slicing.from_onnx(starts, ends, list(axes), stp)
    return S(draw(indices()))


def same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool((a == b).all())


def run(s: dm.Slicing, x: Any) -> Any:
    try:
        return s(x)
    except dm.ValidationError:
        return None


def both(a: dm.Slicing, b: dm.Slicing, x: Any) -> Any:
    """``a`` then ``b``, or None where either cannot run."""
    y = run(a, x)
    return None if y is None else run(b, y)


def allowed(shape: dm.PartialShape, top: int = 9) -> Iterator[tuple[int, ...]]:
    """Every static shape inside ``shape``, sizes of unbounded dimensions up to ``top``."""
    assert shape.rank is not None
    ranges = [
        range(d.min, (d.max if d.max is not None else max(top, d.min + 3)) + 1) for d in shape
    ]
    return itertools.product(*ranges)


def check(a: dm.Slicing, b: dm.Slicing, shape: Any, w: tuple[int, ...]) -> None:
    x = np.arange(int(np.prod(w))).reshape(w)
    want = both(a, b, x)
    got = run(dm.compose(a, b, shape), x)
    if want is None:
        assert got is None, (a, b, shape, w)
    else:
        assert got is not None, (a, b, shape, w)
        assert same(got, want), (a, b, shape, w, dm.compose(a, b, shape))


def witness_is_allowed(exc: dm.NotExpressible, shape: Any) -> None:
    w = exc.witness
    assert w is not None
    if shape is not None:
        ps = shape if isinstance(shape, dm.PartialShape) else dm.PartialShape(shape)
        assert w in ps, (w, ps)


# -- static shapes --------------------------------------------------------------------------------
@fixed_settings(400)
@given(a=slicings(), b=slicings(), shape=st.lists(st.integers(0, 5), max_size=4).map(tuple))
def test_compose_on_a_static_shape_is_a_then_b(
    a: dm.Slicing, b: dm.Slicing, shape: tuple[int, ...]
) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape)
    want = both(a, b, x)
    try:
        f = dm.compose(a, b, shape)
    except dm.NotExpressible as exc:  # only a new axis sliced empty
        assert "length 0" in str(exc)  # noqa: PT017 - the message says which refusal it is
        assert want is not None
        assert want.size == 0
        return
    except dm.ValidationError:
        assert want is None, (a, b, shape)
        return
    assert want is not None, (a, b, shape, f)
    assert same(f(x), want), (a, b, shape, f)


# -- interval and unknown shapes ------------------------------------------------------------------
@st.composite
def interval_shapes(draw: Any) -> dm.PartialShape:
    dims = []
    for _ in range(draw(st.integers(0, 3))):
        lo = draw(st.integers(0, 6))
        kind = draw(st.sampled_from(["static", "bounded", "unbounded"]))
        hi = (
            lo
            if kind == "static"
            else None
            if kind == "unbounded"
            else lo + draw(st.integers(1, 6))
        )
        dims.append(dm.Dimension(lo, hi))
    return dm.PartialShape(dims)


@fixed_settings(300)
@given(a=slicings(), b=slicings(), shape=interval_shapes())
def test_compose_on_intervals_is_a_then_b_on_every_size_or_raises_with_a_witness(
    a: dm.Slicing, b: dm.Slicing, shape: dm.PartialShape
) -> None:
    try:
        dm.compose(a, b, shape)
    except dm.NotExpressible as exc:
        witness_is_allowed(exc, shape)
        return
    except dm.ValidationError as exc:
        if "cannot be decided" in str(exc):
            return
        # b cannot apply to a's result: it cannot on any allowed shape
        for w in itertools.islice(allowed(shape), 200):
            assert both(a, b, np.zeros(w)) is None, (a, b, shape, w)
        return
    for w in itertools.islice(allowed(shape), 300):
        check(a, b, shape, w)


@fixed_settings(300)
@given(a=slicings(), b=slicings(), rank=st.integers(0, 4))
def test_compose_on_an_unknown_shape_is_a_then_b_on_every_rank_and_size(
    a: dm.Slicing, b: dm.Slicing, rank: int
) -> None:
    try:
        f = dm.compose(a, b)
    except dm.NotExpressible as exc:
        witness_is_allowed(exc, None)
        return
    except dm.ValidationError as exc:
        if "cannot be decided" not in str(exc):  # b cannot apply to a's result, on any shape
            for w in itertools.islice(allowed(dm.PartialShape.dynamic(rank), 5), 120):
                assert both(a, b, np.zeros(w)) is None, (a, b, w)
        return
    for w in itertools.islice(allowed(dm.PartialShape.dynamic(rank), 7), 120):
        x = np.arange(int(np.prod(w))).reshape(w)
        want = both(a, b, x)
        got = run(f, x)
        assert (got is None) == (want is None), (a, b, f, w)
        assert want is None or same(got, want), (a, b, f, w)


def numbers(*slicings: dm.Slicing) -> list[int]:
    """The bounds, steps and indices of ``slicings``: where their lengths change."""
    out: list[int] = []
    for s in slicings:
        for x in s.entries:
            if isinstance(x, int):
                out.append(x)
            elif isinstance(x, Cut):
                out += [v for v in (x.start, x.stop, x.step) if v is not None]
    return out


class _Index:
    def __getitem__(self, index: Any) -> tuple[Any, ...]:
        return index if isinstance(index, tuple) else (index,)


def index_of(text: str) -> tuple[Any, ...]:
    """The index of a NumPy expression ``x[...]``, with an ellipsis at the end where it has
    none (the same selection, but a view even where every axis is indexed)."""
    index = eval(text, {"x": _Index()})  # noqa: S307 - our own output, in a test
    return index if Ellipsis in index else (*index, ...)


def on_hollow(s: dm.Slicing, x: np.ndarray) -> Any:
    """``s`` run by NumPy on ``x`` (``hollow``), through its in-range numbers for ``x.shape``."""
    try:
        return x[index_of(s.to_numpy(x.shape))]
    except dm.ValidationError:
        return None


@fixed_settings(150)
@given(a=slicings(), b=slicings(), shape=interval_shapes())
def test_compose_holds_at_sizes_too_big_to_allocate(
    a: dm.Slicing, b: dm.Slicing, shape: dm.PartialShape
) -> None:
    # Unbounded axes are run above up to 9 elements; here at the sizes where lengths change
    # (near the slicings' numbers and their sums, 2**31, INT64_MAX - 1), on views NumPy slices
    # without reading them.
    try:
        f = dm.compose(a, b, shape)
    except dm.ValidationError:
        return
    dims = [(d.min, d.max) for d in shape]
    for w in wide_shapes(dims, numbers(a, b)):
        x = hollow(w)
        y = on_hollow(a, x)
        want = None if y is None else on_hollow(b, y)
        got = on_hollow(f, x)
        assert (got is None) == (want is None), (a, b, shape, w, f)
        assert want is None or view_key(got, x) == view_key(want, x), (a, b, shape, w, f)


# -- one axis: proofs of what cannot be said ----------------------------------------------------
tiny = st.one_of(st.none(), st.integers(-7, 7))


@st.composite
def cuts(draw: Any) -> dm.Slicing:
    start, stop = draw(tiny), draw(tiny)
    step = draw(st.integers(-3, 3).filter(bool))
    if draw(st.booleans()):
        return dm.Slicing.from_onnx(
            [INT64_MIN if start is None else start],
            [INT64_MIN if stop is None and step < 0 else INT64_MAX if stop is None else stop],
            [0],
            [step],
        )
    return S((slice(start, stop, step),))


LIMIT = 16  # sizes tried by the proofs; bounds beyond +-(LIMIT + 1) act as the edge there


def _every_cut(step: int | None, top: int) -> Iterator[Cut]:
    """Every cut that can select differently on sizes up to ``top`` (others act as these)."""
    values: list[int | None] = [None, *range(-top - 1, top + 2)]
    for k in [step] if step is not None else [*range(-top, 0), *range(1, top + 1)]:
        for a in values:
            for b in values:
                for rule in (NUMPY, CLAMP):
                    yield Cut(a, b, k, rule)


def _selection(r: range) -> tuple[int, int, int]:
    return selection(r)


@fixed_settings(80)
@given(
    a=cuts(),
    b=st.one_of(cuts(), st.integers(-4, 4).map(lambda i: S((i,)))),
    lo=st.integers(0, 8),
    hi=st.one_of(st.none(), st.integers(0, 8)),
)
def test_not_expressible_is_proved(a: dm.Slicing, b: dm.Slicing, lo: int, hi: int | None) -> None:
    """One axis: a result runs on every allowed size, a refusal means no cut or index can."""
    top = LIMIT if hi is None else lo + hi
    shape = [dm.Dimension(lo, None if hi is None else lo + hi)]
    try:
        dm.compose(a, b, shape)
    except dm.NotExpressible as exc:
        assert exc.witness is not None  # noqa: PT017 - the witness is what is checked
        w = exc.witness[0]
        assert lo <= w
        assert hi is None or w <= top
        if hi is None:  # the sizes past the witness that fix the form it breaks
            top = max(top, w + 12)
        sizes = range(lo, top + 1)
        c = a.entries[0]
        e = b.entries[0]
        if isinstance(e, Cut):
            want = {d: _compose._then(c, e, d) for d in sizes}
            many = [s[2] for s in want.values() if s[1] > 1]
            agree = [
                f
                for f in _every_cut(many[0] if many else None, top)
                if _selection(f.range(w)) == want[w]
                and all(_selection(f.range(d)) == want[d] for d in sizes)
            ]
        else:
            picks = {d: _compose._pick(c, e, d) for d in sizes}
            agree = [
                k  # type: ignore[misc]
                for k in range(-top - 2, top + 2)
                if all(index_at(k, d) == picks[d] for d in sizes)
            ]
        assert not agree, (a, b, shape, agree[:3])
        return
    except dm.ValidationError:
        return
    for d in range(lo, top + 1):
        check(a, b, shape, (d,))


@fixed_settings(150)
@given(a=cuts(), b=cuts(), lo=st.integers(0, 6), bounded=st.booleans())
def test_the_search_finds_what_the_closed_forms_find(
    a: dm.Slicing, b: dm.Slicing, lo: int, bounded: bool
) -> None:
    shape = [dm.Dimension(lo, lo + 9 if bounded else None)]
    try:
        fast = dm.compose(a, b, shape)
    except dm.ValidationError:
        fast = None
    with pytest.MonkeyPatch.context() as m:
        for name in ("_closed", "_closed_index"):  # no closed form: the search alone
            m.setattr(_compose, name, lambda *_: None)
        try:
            slow = dm.compose(a, b, shape)
        except dm.NotExpressible:
            assert fast is None, (a, b, shape, fast)
            return
        except dm.ValidationError:
            return
    for d in range(lo, lo + (10 if bounded else 14)):
        x = np.arange(d)
        assert same(slow(x), both(a, b, x)), (a, b, shape, slow)
        if fast is not None:
            assert same(fast(x), slow(x))


# -- other array libraries ----------------------------------------------------------------------
@settings(
    fixed_settings(60),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(a=slicings(), b=slicings(), shape=st.lists(st.integers(0, 4), max_size=4).map(tuple))
def test_compose_runs_on_every_array_library(
    xp: Any, a: dm.Slicing, b: dm.Slicing, shape: tuple[int, ...]
) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        f = dm.compose(a, b)
    except dm.ValidationError:
        try:
            f = dm.compose(a, b, shape)
        except dm.ValidationError:
            return
    want = both(a, b, x)
    if want is None:
        return
    y = xp.asarray(x)
    got = f(y)
    assert same(xp.to_numpy(got), want), (a, b, f, shape)
    assert same(xp.to_numpy(b(a(y))), want)


# -- examples and the bugs of other stacks --------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b", "shape", "want"),
    [
        ("x[1:]", "x[::2]", None, "x[1::2]"),
        ("x[::-1]", "x[::-1]", None, "x[:]"),
        ("x[::-1]", "x[1:]", None, "x[-2::-1]"),
        ("x[2:5]", "x[1:]", None, "x[3:5]"),
        ("x[1:, ::-1]", "x[::2]", None, "x[1::2, ::-1]"),
        ("x[None]", "x[0]", None, "x[()]"),
        ("x[:, 1:]", "x[:, 3]", None, "x[:, 4]"),
        ("x[-3:]", "x[-1]", None, "x[-1]"),
        ("x[:-2]", "x[::3]", None, "x[:-2:3]"),
        ("x[1:, None, :, ::-1, 2]", "x[::2, 0, None, 1:]", None, "x[1::2, None, 1:, ::-1, 2]"),
        ("x[::2]", "x[::-1]", [8], "x[6::-2]"),
        ("x[-3:]", "x[1:]", "[3..]", "x[-2:]"),
        ("x[..., 1:]", "x[..., ::2]", None, "x[..., 1::2]"),
    ],
)
def test_examples(a: str, b: str, shape: Any, want: str) -> None:
    f = dm.compose(S(a), S(b), shape)
    assert f.to_numpy() == want
    for w in itertools.islice(
        allowed(dm.PartialShape(shape) if shape else dm.PartialShape.dynamic(2)), 60
    ):
        check(S(a), S(b), shape, w)


@pytest.mark.parametrize(
    ("a", "b", "shape", "witness"),
    [
        ("x[::2]", "x[::-1]", None, None),  # the first index depends on the parity of the size
        ("x[-3:]", "x[1:]", None, None),  # the start clamps on sizes below 3
        ("x[..., ::-1]", "x[::-1]", None, (1,)),  # rank 1: the two reversals meet
        ("x[None]", "x[1:]", None, None),  # a new axis emptied
    ],
)
def test_what_no_single_slicing_does(a: str, b: str, shape: Any, witness: Any) -> None:
    with pytest.raises(dm.NotExpressible, match="compose") as info:
        dm.compose(S(a), S(b), shape)
    w = info.value.witness
    assert w is not None
    if witness is not None:
        assert w == witness
    # The witness is a shape a then b runs on (or, for a new axis emptied, any shape).
    x = np.arange(int(np.prod(w))).reshape(w)
    assert both(S(a), S(b), x) is not None


def test_xla_dropped_clamp_jax_40849() -> None:
    """XLA merged two slices by adding their starts and lost the first one's clamp.

    ``x[-3:]`` clamps its start to 0 on sizes below 3, so ``x[-3:][1:]`` is not ``x[-2:]`` there
    (size 2: ``[1]`` against ``[0, 1]``). compose refuses the merge on unknown sizes, with the
    witness, and gives it where it holds.
    """
    a, b = S("x[-3:]"), S("x[1:]")
    naive = S("x[-2:]")
    with pytest.raises(dm.NotExpressible) as info:
        dm.compose(a, b)
    w = info.value.witness
    assert w is not None
    x = np.arange(w[0])
    assert not same(naive(x), b(a(x)))
    assert dm.compose(a, b, "[3..]") == naive
    assert dm.compose(a, b, [2]).to_numpy() == "x[1:]"
    # The same with a start past the end: x[5:] then x[2:] is x[7:] on every size.
    assert dm.compose(S("x[5:]"), S("x[2:]")).to_numpy() == "x[7:]"


def test_same_axis_is_composed_unlike_onnx_optimizer_and_openvino() -> None:
    """onnx-optimizer's and OpenVINO's slice fusions only merge slices on different axes."""
    a = dm.Slicing.from_onnx([1], [8], [0], [1])
    b = dm.Slicing.from_onnx([2], [5], [0], [1])
    f = dm.compose(a, b)
    assert f.to_numpy() == "x[3:6]"
    ops = f.to_onnx()
    assert [name for name, _ in ops] == ["Slice"]
    for d in range(12):
        x = np.arange(d)
        assert same(f(x), b(a(x)))
    # A reversal on the same axis, and a mix of axes.
    g = dm.compose(dm.Slicing.from_onnx([-1], [INT64_MIN], [1], [-1]), S("x[:, 2:]"))
    assert g.to_numpy() == "x[:, -3::-1]"


def test_compose_rejects_what_is_not_a_slicing_and_b_that_cannot_apply() -> None:
    with pytest.raises(dm.ValidationError, match=r"is not a dm\.Slicing"):
        dm.compose(S("x[1:]"), 3)  # type: ignore[arg-type]
    with pytest.raises(dm.ValidationError, match="addresses 2 axes"):
        dm.compose(S("x[0]"), S("x[:, :]"), [3, 4])
    with pytest.raises(dm.ValidationError, match="index 2 of a new axis"):
        dm.compose(S("x[None]"), S("x[2]"))
    with pytest.raises(dm.ValidationError, match="out of range"):
        dm.compose(S("x[:5]"), S("x[7]"), "[?]")
    assert dm.compose("x[1:]", "x[1:]").to_numpy() == "x[2:]"


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ("x[:-9223372036854775808]", "x[:-1]", "x[:-9223372036854775808]"),  # was INT64_MIN - 1
        ("x[9223372036854775807:]", "x[1:]", "x[9223372036854775807:]"),  # was INT64_MAX + 1
        ("x[9223372036854775807::4]", "x[9223372036854775807::2]", "x[9223372036854775807::8]"),
    ],
)
def test_a_composition_past_int64_is_written_in_int64(a: str, b: str, want: str) -> None:
    # A random soak of test_slicing_repr: compose computed bounds past int64, which repr wrote
    # and from_numpy read back clamped, as another Slicing; beyond every size they are the same
    s = dm.compose(a, b)
    assert s.to_numpy() == want
    assert eval(repr(s), {"Slicing": dm.Slicing}) == s  # noqa: S307 - a repr, in the tests
    for n in range(5):
        x = np.arange(n)
        assert np.array_equal(s(x), S(b)(S(a)(x)))


def test_an_index_past_int64_is_out_of_range_on_every_size() -> None:
    # x[:INT64_MIN] selects nothing on every size: b's -3 never runs. compose wrote the index
    # INT64_MIN - 3, which from_numpy refuses ("out of range for every axis")
    for shape in (None, "[?]"):
        with pytest.raises(dm.ValidationError, match="out of range of what a's"):
            dm.compose("x[:-9223372036854775808]", "x[-3]", shape)


def test_compose_of_two_rank_4_slicings_with_masks() -> None:
    a, b = S("x[1:, None, ..., ::-1, 2]"), S("x[::2, 0, ..., None, 1:]")
    f = dm.compose(a, b)
    assert f.to_numpy() == "x[1::2, ..., None, -2::-1, 2]"
    for w in [(3, 4, 5), (5, 1, 2, 3), (6, 2, 7, 3, 4)]:
        x = np.arange(int(np.prod(w))).reshape(w)
        assert same(f(x), b(a(x)))


def test_big_steps_are_decided_or_refused_without_listing_their_sizes() -> None:
    # Three periods of sizes per piece were listed before the budget was counted: a step of
    # 2**40 on a long interval (or INT64_MIN on any) asked for 3 * 2**40 sizes at once.
    with pytest.raises(_compose._UndecidedError):
        _compose._sizes(2**63 - 2, [0], 2**62)  # the largest size an unbounded axis holds
    with pytest.raises(dm.ValidationError, match="cannot be decided"):
        dm.compose(S(f"x[::{2**40}]"), S("x[::-1]"), f"[..{5 * 10**12}]")
    # A step past every allowed size takes one element at most: it has no period to check.
    for a, b in [
        (S(f"x[::{INT64_MAX}]"), S("x[::-1]")),
        (
            dm.Slicing.from_strided_slice([0], [0], [INT64_MIN], begin_mask=[1], end_mask=[1]),
            S("x[:1]"),
        ),
        (S(f"x[2::{-INT64_MAX}]"), S("x[::-1]")),
        (S("x[1:, ::2]"), S(f"x[:, ::{INT64_MAX - 1}]")),
    ]:
        f = dm.compose(a, b)
        for w in itertools.product(range(5), repeat=addressed(f.entries)):
            x = np.arange(int(np.prod(w))).reshape(w)
            assert same(f(x), b(a(x))), (a, b, w, f)
    with pytest.raises(dm.ValidationError, match="out of range"):
        dm.compose(S(f"x[0:0:{INT64_MIN}]"), S("x[0]"))


def test_an_index_of_a_long_step_cut_is_refused_as_undecided_on_an_unbounded_axis() -> None:
    # x[10000:-30000:5000] then x[1]: element 1 is index 15000 from size 45001 on, but the cut
    # repeats every 5000 sizes over pieces too long to check: refused, and exact on a static
    # shape
    a, b = S("x[10000:-30000:5000]"), S("x[1]")
    with pytest.raises(dm.ValidationError, match="repeats every 5000 sizes") as info:
        dm.compose(a, b, "[?]")
    assert info.value.argument == "shape"
    x = np.arange(50000)
    assert same(dm.compose(a, b, [50000])(x), b(a(x)))


def test_a_rank_that_cannot_be_decided_is_not_a_rank_that_cannot_run() -> None:
    # On an unknown rank, compose checks the ranks where b reaches into a's ellipsis; an
    # undecidable rank was taken for one where a then b cannot run, and skipped: x[:0] then
    # x[..., ::-2**31, :] gave x[:0, ..., ::-2**31, :], which refuses rank 2, where a then b
    # runs (on (0, 0), an empty (0, 0)).
    a, b = S("x[:0]"), S(f"x[..., ::{-(2**31)}, :]")
    x = np.zeros((0, 0))
    assert b(a(x)).shape == (0, 0)
    with pytest.raises(dm.ValidationError, match="cannot be decided") as info:
        dm.compose(a, b)
    assert info.value.argument == "shape"
    assert same(dm.compose(a, b, [0, 0])(x), b(a(x)))
    y = np.arange(24).reshape(2, 3, 4)
    assert same(dm.compose(a, b, "[?,?,?]")(y), b(a(y)))


@pytest.mark.parametrize(
    ("a", "b", "shape", "lo"),
    [
        ("x[5:6:1000]", "x[::-1000]", "[?]", 0),  # "repeat every 1000000 sizes": refused
        ("x[-3:-2:999]", "x[::-999]", None, 0),
        ("x[2:5:300]", "x[-1::-400]", "[..1000000]", 0),
        ("x[:-1000:-2]", "x[1:2:500]", "[7..]", 7),  # b takes one element at most
        ("x[:26:125]", "x[-355:42:125]", "[..100000]", 0),  # 46,875 sizes were listed
    ],
)
def test_a_cut_taking_one_element_at_most_has_no_period(
    a: str, b: str, shape: Any, lo: int
) -> None:
    # Bounds counted from one end no farther apart than the step take one element at most on
    # every size, as a step past every size does: the step adds no period to check.
    f = dm.compose(a, b, shape)
    for d in [*range(lo, lo + 30), 999, 1000, 1001, 2001, 99_999, 100_000]:
        x = np.arange(d)
        assert same(f(x), S(b)(S(a)(x))), (a, b, d, f)


@pytest.mark.parametrize(
    ("a", "b", "shape", "witness"),
    [
        ("x[:, -3:]", "x[5, 1:]", "[?,?]", (6, 2)),  # was (1, 2): b's index 5 out of range
        ("x[:, -3:]", "x[5, 1:]", None, (6, 2)),
        ("x[:, -3:]", "x[5, 1:]", "[2..,?]", (6, 2)),
        ("x[:-1, -3:]", "x[-2, 1:]", "[?,?]", (3, 2)),  # was (1, 2)
        ("x[-5:3, -3:]", "x[1, 1:]", "[4..,?]", (4, 1)),  # x[-5:3] takes 2 on size 6, 0 on 8
        ("x[-3:, ::-1]", "x[1:, 2]", "[?,?]", (2, 3)),  # the refused axis is 0 here
    ],
)
def test_a_witness_is_a_shape_where_a_then_b_runs(a: str, b: str, shape: Any, witness: Any) -> None:
    # The witness named the refused axis's size and sizes on which a runs on the others, not b:
    # an index of b out of range there, so that no slicing was shown wrong on it.
    with pytest.raises(dm.NotExpressible) as info:
        dm.compose(a, b, shape)
    w = info.value.witness
    assert w == witness
    x = np.arange(int(np.prod(w))).reshape(w)
    S(b)(S(a)(x))  # runs


def test_b_that_runs_on_no_shape_is_refused_as_such_before_any_axis() -> None:
    # x[:0]'s result has no element for b's index -3 on any size: a then b runs nowhere. Axis 0
    # was refused first (NotExpressible, witness (1, 1), where a then b cannot run).
    for a, b, shape in [
        ("x[-2::3, :0]", "x[-1, -3]", None),
        ("x[-2::3, :0]", "x[-1, -3]", "[?,?]"),
        ("x[3::-3, None, -5::-9223372036854775807]", "x[1, :, 2]", "[?,?]"),
    ]:
        with pytest.raises(dm.ValidationError, match="out of range of what a's") as info:
            dm.compose(a, b, shape)
        assert not isinstance(info.value, dm.NotExpressible)
    # Decided whatever the step: x[-5::-2**62] has a third element on no size below INT64_MAX.
    # It was refused as undecidable, its step repeating every 2**62 sizes.
    one = S("x[-5::-4611686018427387904]", clamping="openvino")
    for b in ("x[2]", "x[-3]"):
        with pytest.raises(dm.ValidationError, match="out of range of what a's"):
            dm.compose(one, b)


def test_an_axis_with_no_single_slicing_comes_before_an_undecided_one() -> None:
    # One axis with no single slicing settles the answer, whatever another axis would need
    # checked: NotExpressible, in either order of the axes (the first axis raised first).
    big = f"..{5 * 10**12}"
    for a, b, shape in [
        ("x[-3:, ::1099511627776]", "x[1:, ::-1]", f"[?,{big}]"),
        ("x[::1099511627776, -3:]", "x[::-1, 1:]", f"[{big},?]"),
    ]:
        with pytest.raises(dm.NotExpressible) as info:
            dm.compose(a, b, shape)
        assert info.value.witness is not None
