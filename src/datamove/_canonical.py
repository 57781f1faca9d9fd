"""Slice algebra on one slicing: identity and emptiness proofs, a canonical form, splits.

``dm.group_into_split`` and ``dm.group_into_split_with_gaps`` live here; so do the functions
behind ``Slicing.is_identity``/``identity_witness``, ``is_empty``/``empty_witness``,
``canonical`` and ``Splitting.from_slicings``, which reach them through the
``_dialects.ALGEBRA`` registry (this module imports those two, so they cannot import it).

Every answer is about every shape the ``shape`` argument allows (static, intervals, or ``None``:
any rank, any sizes). A slicing "runs" on a shape when the shape has at least as many axes as the
slicing addresses and every index is in range; where it does not run, it neither returns its
input nor an empty array, so such a shape is a witness against both claims.

The decisions reuse the per-axis machinery of :mod:`datamove._dialects` (``expand`` lays a
slicing out on a rank; ``decide`` finds the smallest size of an interval where two piecewise
affine selections differ).

Identity, exactly: on a static shape ``d`` with at least one element, ``s`` returns its input
unchanged if and only if it runs, its output shape is ``d``, and every cut on an axis of size 2
or more has a positive step (output shape ``d`` then forces such a cut to keep the whole axis on
its own position). On a shape with no element, same output shape suffices. Both conditions are
checked position by position over the intervals, each involving at most two axes, which makes
the search for a witness exact.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from datamove._dialects import (
    ALGEBRA,
    CLAMP,
    NUMPY,
    SAME,
    WHOLE,
    Cut,
    Slicing,
    addressed,
    as_slicing,
    axes_of,
    bisect_first,
    decide,
    entries_text,
    expand,
    index_at,
    index_need,
    over_ranks,
    same_cut,
    shape_dims,
    some_size,
)
from datamove._errors import ValidationError, plural
from datamove._shape import INT64_MAX, Dimension, PartialShape, ShapeLike, largest
from datamove._splitting import Splitting, cuts_of_lengths, part_slicing

__all__ = [
    "canonical",
    "empty_witness",
    "group_into_split",
    "group_into_split_with_gaps",
    "identity_witness",
]

EMPTY: Final = Cut(None, 0, 1)

Shape = tuple[int, ...]


# -- small pieces ---------------------------------------------------------------------------------
def _other(d: Dimension, v: int) -> int | None:
    """An allowed size other than ``v``, or None when ``v`` is the only one."""
    if d.min != v:
        return d.min
    if d.max is None or d.max > d.min:
        return d.min + 1
    return None


def _pick(ps: PartialShape, fixed: dict[int, int]) -> Shape:
    return tuple(fixed.get(k, some_size(d)) for k, d in enumerate(ps.dims))


def _first(
    same: Callable[[int], bool], dim: Dimension, x: Cut, period: int | None = None
) -> int | None:
    """The smallest size in ``dim`` where ``same`` (of ``x``'s selections) fails, or None."""
    if dim.is_static:  # as decide answers it, without gathering the bounds first
        return None if same(dim.min) else dim.min
    return decide(same, dim, (x.start, x.stop), x.step if period is None else period)


def _agree(x: Cut, y: Cut, dim: Dimension) -> bool:
    """Whether the two cuts select the same indices on every size ``dim`` allows."""
    try:
        bounds = (x.start, x.stop, y.start, y.stop)
        return decide(same_cut(x, y), dim, bounds, math.lcm(x.step, y.step), (x, y)) is None
    except ValidationError:  # one long step on both sides, undecided: say "not shown equal"
        return False


def _length_is(x: Cut, n: int) -> Callable[[int], bool]:
    return lambda d: len(x.range(d)) == n


def _length_is_size(x: Cut) -> Callable[[int], bool]:
    return lambda d: len(x.range(d)) == d


def _unrunnable(
    s: Slicing, ps: PartialShape
) -> tuple[list[tuple[str, Any, int]] | None, Shape | None]:
    """The layout of ``s`` on ``ps``'s rank, or an allowed shape on which ``s`` cannot run."""
    assert ps.rank is not None
    ex = expand(s, ps.rank)
    if ex is None:
        return None, _pick(ps, {})
    for kind, x, axis in ex:
        if kind == "index" and ps.dims[axis].min < index_need(x):
            return None, _pick(ps, {axis: ps.dims[axis].min})
    return ex, None


# -- identity -------------------------------------------------------------------------------------
def _identity_ranked(s: Slicing, ps: PartialShape) -> Shape | None:
    assert ps.rank is not None
    ex, w = _unrunnable(s, ps)
    if ex is None:
        return w
    out = [(kind, x, axis) for kind, x, axis in ex if kind != "index"]
    if len(out) != ps.rank:
        return _pick(ps, {})
    dims = ps.dims
    for j, (kind, x, axis) in enumerate(out):
        dj = dims[j]
        if kind == "new":
            v = _other(dj, 1)
            if v is not None:
                return _pick(ps, {j: v})
            continue
        da = dims[axis]
        if axis == j:
            if abs(x.step) > 1:  # fewer than d elements on every size d >= 2
                top = 1 if da.max is None else min(da.max, 1)
                small = [d for d in range(da.min, top + 1) if len(x.range(d)) != d]
                v = small[0] if small else max(da.min, 2)
                if da.max is None or v <= da.max:
                    return _pick(ps, {axis: v})
                continue
            size = _first(_length_is_size(x), da, x)
            if size is not None:
                return _pick(ps, {axis: size})
            continue
        first = len(x.range(da.min))
        v = dj.min if first != dj.min else _other(dj, first)
        if v is not None:  # length `first` where the input's axis j has size v: no count needed
            return _pick(ps, {j: v, axis: da.min})
        # Axis j has the one size `first`. No count of elements to decide: the length is that
        # on every size where `axis` is static, and where it is not, the entry at output
        # position `axis` (a new axis, or another axis's cut, of one size each) gives a witness.
    # Output shape equals the input shape on every allowed shape: a reversal of an axis of
    # size 2 or more in an array with elements is the only way left to differ.
    for kind, x, axis in out:
        if kind != "cut" or x.step > 0:
            continue
        fixed = {b: some_size(d) for b, d in enumerate(dims)}
        fixed[axis] = some_size(dims[axis], 2)
        if fixed[axis] >= 2 and all(v >= 1 for v in fixed.values()):
            return _pick(ps, fixed)
    return None


def identity_witness(s: Slicing, shape: ShapeLike | None, op: str) -> Shape | None:
    """An allowed static shape on which ``s`` does not return its input unchanged, or None."""
    ps = shape_dims(shape, op)
    return over_ranks(ps, addressed(s.entries), lambda p: _identity_ranked(s, p))


# -- emptiness ------------------------------------------------------------------------------------
def _empty_ranked(s: Slicing, ps: PartialShape) -> Shape | None:
    ex, w = _unrunnable(s, ps)
    if ex is None:
        return w
    fixed: dict[int, int] = {}
    for kind, x, axis in ex:
        if kind != "cut":
            continue
        da = ps.dims[axis]
        # Emptiness compares the clamped start and stop, affine in the size between the
        # breakpoints: no period to cover, whatever the step.
        size = _first(_length_is(x, 0), da, x, 1)
        if size is None:
            return None  # this axis is empty on every allowed size
        fixed[axis] = size
    return _pick(ps, fixed)


def empty_witness(s: Slicing, shape: ShapeLike | None, op: str) -> Shape | None:
    """An allowed static shape on which ``s`` gives at least one element (or cannot run)."""
    ps = shape_dims(shape, op)
    return over_ranks(ps, addressed(s.entries), lambda p: _empty_ranked(s, p))


# -- canonical form -------------------------------------------------------------------------------
def _static_cut(r: range, d: int) -> Cut:
    """The one cut written for the indices ``r`` of an axis of size ``d``."""
    n = len(r)
    if n == 0:
        return EMPTY
    if n == 1:
        i = r.start
        return Cut.make(i, None if i == d - 1 else i + 1, 1, SAME)
    last, step = r[-1], r.step
    if step > 0:
        start = None if r.start == 0 else r.start
        stop = None if last + step >= d else last + 1
    else:
        start = None if r.start == d - 1 else r.start
        stop = None if last + step < 0 else last - 1
    return Cut.make(start, stop, step, SAME)


def _one_at_most(x: Cut, dim: Dimension) -> Cut | None:
    """``x`` in one form where it takes one element at most on every size, else ``None``.

    Step 1 where a cut counted from the front (``x[3:4]``) or from the back (``x[-2:-1]``)
    selects it, both read off the selection, not off ``x``'s numbers. Else a positive step where
    one does it (OpenVINO's clamping starts ``x[-7::-9]`` at index 0 on small sizes, as
    ``x[-7::7]`` does), the bounds that can go dropped, and the smallest step that still takes
    one element at most (``x[5::-2**31]`` on ``[..19]`` is ``x[5::-6]``).
    """
    if x.step == 1:
        return None
    sign = 1 if x.step > 0 else -1
    far = Cut.make(x.start, x.stop, sign * INT64_MAX, x.rule)
    if far != x and not _agree(x, far, dim):
        return None  # two elements on some size: the step is part of the meaning
    d = _first(_length_is(x, 0), dim, x, 1)  # the smallest size with an element
    assert d is not None  # not empty on every size: _interval_cut answered EMPTY before
    g = x.range(d)[0]
    for one in (Cut.make(g, g + 1, 1, SAME), Cut.make(g - d, g - d + 1 or None, 1, SAME)):
        if _agree(one, x, dim):
            return one
    c = far
    if sign < 0:
        up = Cut.make(x.start, None, INT64_MAX, SAME)
        if _agree(up, x, dim):
            c, sign = up, 1
    c = _unbounded(c, x, dim)
    # It takes one at most with step INT64_MAX: the smallest such step.
    step = bisect_first(
        lambda k: _agree(Cut.make(c.start, c.stop, sign * k, c.rule), x, dim), 1, INT64_MAX
    )
    return Cut.make(c.start, c.stop, sign * step, c.rule)


def _unbounded(c: Cut, x: Cut, dim: Dimension) -> Cut:
    """``c`` without its start, then without its stop, where it selects what ``x`` does without."""
    t = Cut.make(None, c.stop, c.step, c.rule)
    if c.start is not None and _agree(t, x, dim):
        c = t
    t = Cut.make(c.start, None, c.step, c.rule)
    if c.stop is not None and _agree(t, x, dim):
        c = t
    return c


def _rules_agree(c: Cut, dim: Dimension) -> bool:
    """Whether NumPy's and OpenVINO's clamping read ``c`` alike on every size ``dim`` allows.

    They differ only with a negative step from a start before the first element: on sizes below
    ``-start``, where NumPy's takes nothing and OpenVINO's one element at most (from index 0), so
    no period of the step is to be covered there, however long.
    """
    assert c.start is not None  # a tag other than "same" says so (Cut.make)
    top = -c.start - 1 if dim.max is None else min(dim.max, -c.start - 1)
    if top < dim.min:
        return True
    part = Dimension(dim.min, top)
    numpy, clamp = Cut(c.start, c.stop, c.step, NUMPY), Cut(c.start, c.stop, c.step, CLAMP)
    return _first(same_cut(numpy, clamp), part, c, 1) is None


def _simpler(x: Cut, c: Cut, dim: Dimension) -> Cut:
    """One round of simplifications of ``c``, which selects what ``x`` does on ``dim``."""
    one = _one_at_most(c, dim)
    if one is not None:
        c = one
    c = _unbounded(c, x, dim)
    if c.rule != SAME and _rules_agree(c, dim):  # either tag: OpenVINO's, Cut.make's form
        c = Cut.make(c.start, c.stop, c.step, CLAMP)
    return c


def _interval_cut(x: Cut, dim: Dimension) -> Cut:
    """The simplest cut found that selects what ``x`` selects on every size ``dim`` allows.

    The simplifications are repeated until none applies, so that the form is its own form: a
    bound dropped can make a step-1 form possible (``x[7::-2**62]`` on ``[..3]`` is
    ``x[::-2**62]``, which is ``x[-1:]``).
    """
    if _agree(x, EMPTY, dim):
        return EMPTY
    if _agree(x, WHOLE, dim):
        return WHOLE
    c = x
    for _ in range(8):  # each round drops a bound, shortens the step or fixes the tag
        nxt = _simpler(x, c, dim)
        if nxt == c:
            return c
        c = nxt
    return c


def canonical(s: Slicing, shape: ShapeLike | None = None) -> Slicing:
    """One normal form of ``s`` on the shapes ``shape`` allows (see ``Slicing.canonical``)."""
    op = "Slicing.canonical"
    ps = shape_dims(shape, op)
    if ps.rank is None:
        return _canonical_unranked(s)
    ex = expand(s, ps.rank)
    if ex is None:
        raise ValidationError(
            op,
            "shape",
            shape,
            f"has rank {ps.rank}, but the slicing addresses "
            f"{plural(addressed(s.entries), 'axis', 'axes')}; it cannot "
            "run there",
        )
    entries: list[Any] = []
    for kind, x, axis in ex:
        if kind == "new":
            entries.append(None)
            continue
        dim = ps.dims[axis]
        if kind == "index":
            if not dim.is_static:
                entries.append(x)
                continue
            j = index_at(x, dim.min)
            if j is None:
                raise ValidationError(
                    op,
                    "shape",
                    shape,
                    f"has size {dim.min} on axis {axis}, where the index {x} is out of range",
                )
            entries.append(j)
        elif dim.is_static:
            entries.append(_static_cut(x.range(dim.min), dim.min))
        else:
            entries.append(_interval_cut(x, dim))
    while entries and entries[-1] == WHOLE:
        entries.pop()
    return Slicing(entries or (Ellipsis,))


def _canonical_unranked(s: Slicing) -> Slicing:
    any_size = Dimension()
    entries = [_interval_cut(x, any_size) if isinstance(x, Cut) else x for x in s.entries]
    if Ellipsis not in entries:
        entries.append(Ellipsis)
    e = entries.index(Ellipsis)
    before, after = entries[:e], entries[e + 1 :]
    n = 0
    while before and before[-1] == WHOLE:  # whole axes next to the ellipsis may cross it
        before.pop()
        n += 1
    while after and after[0] == WHOLE:
        after.pop(0)
        n += 1
    out = before + [WHOLE] * n + ([Ellipsis, *after] if after else [])
    return Slicing(out or (Ellipsis,))


# -- splits ---------------------------------------------------------------------------------------
def _slots(cuts: Sequence[Cut], d: int) -> list[int] | None:
    """Lengths of hole, part, hole, part, ..., hole on size ``d``.

    None unless the parts are contiguous runs, in order, apart.
    """
    offset = 0
    slots: list[int] = []
    for c in cuts:
        r = c.range(d)
        n = len(r)
        if n > 1 and r.step != 1:
            return None
        start = r.start if n else offset  # an empty part fits anywhere: here
        if start < offset:
            return None
        slots += [start - offset, n]
        offset = start + n
    slots.append(d - offset)
    return slots


def group_into_split_with_gaps(
    slicings: Iterable[Slicing | str], shape: ShapeLike | None = None
) -> tuple[Splitting, tuple[int, ...]] | None:
    """Slicings that tile one axis in order, holes allowed: the split and where each one is.

    Returns ``(splitting, parts)``: the split's parts are the slicings and the holes between
    them (before the first, between two, after the last), in axis order, and ``parts[i]`` is
    the part that ``slicings[i]`` is; the other parts are the holes, for the caller to drop.
    ``None`` where the slicings are not, on every shape ``shape`` allows, parts of one split:
    each keeps every axis but one whole and takes one run of it in increasing order (step 1,
    or at most one element), in the given order. The split is a Split or VariadicSplit where
    one is (on a size that is not static one part grows with the size, VariadicSplit's
    ``-1``, which must fit the smallest allowed size), else a list of indices
    (``numpy.split``'s ``"indices"``), each run's start and stop a point from the front or
    the back (on sizes where such points cross, a hole part is what NumPy gives there).

    Examples
    --------
    >>> import datamove as dm
    >>> parts = [dm.Slicing.from_numpy(t) for t in ("x[1:3]", "x[5:-2]")]
    >>> dm.group_into_split_with_gaps(parts, "[7..]")
    (Splitting(axis=0, rule='lengths', value=(1, 2, 2, -1, 2)), (1, 3))
    >>> dm.group_into_split_with_gaps(parts, "[?]")
    (Splitting(axis=0, rule='indices', value=(1, 3, 5, -2)), (1, 3))
    >>> dm.group_into_split(parts, "[7..]") is None
    True
    """
    return _with_gaps(slicings, shape, "group_into_split_with_gaps")


def _with_gaps(
    slicings: Iterable[Slicing | str], shape: ShapeLike | None, op: str
) -> tuple[Splitting, tuple[int, ...]] | None:
    found = _search(slicings, shape, op, holes=True)
    return None if isinstance(found, str) else found


# A point that stands for the end of the axis on every size below INT64_MAX (rest_indices' end).
_END: Final = INT64_MAX


def _search(
    slicings: Iterable[Slicing | str], shape: ShapeLike | None, op: str, *, holes: bool
) -> tuple[Splitting, tuple[int, ...]] | str:
    """The split and where each slicing is, or why there is none, naming a shape that shows it.

    The lengths (Split, VariadicSplit) first, read on two sizes; else a list of indices
    (``numpy.split``'s), which says any run whose two ends are each a point counted from the
    front or the back. Each is proved by ``Slicing.equivalent`` on every allowed shape.
    ``holes=False``: only a split whose parts are the slicings alone.
    """
    items = [as_slicing(op, f"slicings[{i}]", t) for i, t in enumerate(slicings)]
    if not items:
        raise ValidationError(op, "slicings", items, "is empty; a split has one part at least")
    ps = shape_dims(shape, op)
    rank = max(addressed(t.entries) for t in items) if ps.rank is None else ps.rank
    probe = PartialShape.dynamic(rank) if ps.rank is None else ps
    if rank == 0:
        return "are slicings of a scalar (rank 0), which has no axis to split"
    cut_layouts: list[list[Cut]] = []
    for i, t in enumerate(items):
        ex = expand(t, rank)
        if ex is None or any(kind != "cut" for kind, _, _ in ex):
            why = "does not run on rank" if ex is None else "drops or adds an axis on rank"
            return f"hold slicings[{i}]={entries_text(t.entries)!r}, which {why} {rank}"
        cut_layouts.append([x for _, x, _ in ex])
    moving = sorted(
        {
            a
            for cuts in cut_layouts
            for a, x in enumerate(cuts)
            if not _agree(x, WHOLE, probe.dims[a])
        }
    )
    if len(moving) > 1:
        return f"cut axes {moving[0]} and {moving[1]}; the parts of a split cut one axis"
    if moving:
        (axis,) = moving
    else:
        axis = next((a for a, d in enumerate(probe.dims) if d.max == 0), 0) if len(items) > 1 else 0
    named = axis
    if ps.rank is None:  # the axis as the slicings address it: from the front or the back
        # one addresses it: the one that cuts it, or else one that addresses all `rank` axes
        t = next(t for t in items if axis in axes_of(t, rank))
        found_axis = axes_of(t, None)[axes_of(t, rank).index(axis)]
        assert found_axis is not None
        named = found_axis
    dim = probe.dims[axis]
    cuts = [c[axis] for c in cut_layouts]
    by_lengths = _by_lengths(items, cuts, dim, named, shape)
    if by_lengths is not None and (holes or _no_holes(by_lengths)):
        return by_lengths
    return _by_indices(items, cuts, dim, named, shape, holes)


def _no_holes(found: tuple[Splitting, tuple[int, ...]]) -> bool:
    splitting, parts = found
    n = int(splitting.value) if splitting.rule == "even" else len(splitting.value)
    return parts == tuple(range(n))


def _by_lengths(
    items: list[Slicing], cuts: list[Cut], dim: Dimension, axis: int, shape: ShapeLike | None
) -> tuple[Splitting, tuple[int, ...]] | None:
    """The Split or VariadicSplit (one ``-1``, which fits the smallest size) of the slicings."""
    if dim.is_static:
        found = _slots(cuts, dim.min)
        if found is None:
            return None
        slots, var = found, None
    else:
        s0, s1 = (_slots(cuts, p) for p in _probes(cuts, dim))
        if s0 is None or s1 is None:
            return None
        grown = [k for k, (a, b) in enumerate(zip(s0, s1, strict=True)) if a != b]
        if len(grown) != 1 or s1[grown[0]] != s0[grown[0]] + 1:
            return None
        slots, var = s0, grown[0]
    keep = [k for k, n in enumerate(slots) if k % 2 or n or k == var]
    lengths = [-1 if k == var else slots[k] for k in keep]
    parts = tuple(keep.index(2 * i + 1) for i in range(len(items)))
    if var is None and len(set(lengths)) == 1:
        splitting = Splitting(axis, "even", len(lengths))
    elif var is not None and len(lengths) == 1:
        splitting = Splitting(axis, "even", 1)
    else:
        splitting = Splitting(axis, "lengths", tuple(lengths))
        if var is not None and sum(lengths) + 1 > dim.min:
            return None  # VariadicSplit refuses the smallest sizes, where the slicings run
    expected = [part_slicing(axis, c) for c in cuts_of_lengths(lengths)]
    # Never refused as undecided: equivalent decides a cut against one of another step (here 1)
    if not all(t.equivalent(expected[k], shape) for t, k in zip(items, parts, strict=True)):
        return None
    return splitting, parts


def _probes(cuts: Sequence[Cut], dim: Dimension) -> tuple[int, int]:
    """Two sizes read to see which part grows.

    Past every bound where the interval reaches that far; else its two largest (below
    INT64_MAX where it is unbounded, so that every length is a Python length).
    """
    extra = 2 + sum(abs(v) for c in cuts for v in (c.start, c.stop) if v is not None)
    p = min(dim.min + extra, largest(dim) - 1)
    return p, p + 1


def _point(q: int, dim: Dimension) -> int:
    """One form of a split index on ``dim``: indices that clamp alike on every size are equal.

    At or past the largest size: ``_END``; back past it: 0; on a static size, from the front.
    """
    top = largest(dim)
    if q < 0:
        q = 0 if -q >= top else top + q if dim.is_static else q
    return _END if q >= top else q


def _probe_points(cuts: list[Cut], dim: Dimension) -> list[tuple[int, int]] | None:
    """Each slicing's start and stop as points, read where the slicings tile the axis apart.

    On a static size its positions; else on the two probe sizes a position that stays is a
    point from the front, one that moves with the size one from the back.
    """
    sizes = (dim.min,) if dim.is_static else _probes(cuts, dim)
    ends: list[list[int]] = []
    for d in sizes:
        slots = _slots(cuts, d)
        if slots is None:
            return None
        at = list(itertools.accumulate(slots))  # at[2i]: slicing i's start, at[2i+1]: its stop
        ends.append(at[:-1])
    if len(ends) == 1:
        at = ends[0]
        return [(_point(at[k], dim), _point(at[k + 1], dim)) for k in range(0, len(at), 2)]
    p = sizes[0]
    points = []
    for u, v in zip(*ends, strict=True):
        if v == u:
            points.append(_point(u, dim))
        elif v == u + 1:
            points.append(_END if u == p else _point(u - p, dim))
        else:
            return None
    return [(points[k], points[k + 1]) for k in range(0, len(points), 2)]


def _by_indices(
    items: list[Slicing],
    cuts: list[Cut],
    dim: Dimension,
    axis: int,
    shape: ShapeLike | None,
    holes: bool,
) -> tuple[Splitting, tuple[int, ...]] | str:
    """The list of indices whose parts are the slicings, the fewest holes between them.

    Each slicing's start and stop are tried as the points its own bounds (step 1), its
    neighbours' and the probe sizes say, each pair proved by ``Slicing.equivalent``; then the
    pairs chosen that leave the fewest holes.
    """
    n = len(items)
    own: list[tuple[set[int], set[int]]] = []
    for c in cuts:
        starts, stops = set(), set()
        if c.step > 0:
            starts.add(_point(0 if c.start is None else c.start, dim))
            stops.add(_END if c.stop is None else _point(c.stop, dim))
        own.append((starts, stops))
    probed = _probe_points(cuts, dim)
    if probed is not None:
        for (starts, stops), (a, b) in zip(own, probed, strict=True):
            starts.add(a)
            stops.add(b)
    own[0][0].add(0)
    own[-1][1].add(_END)
    pairs: list[list[tuple[int, int]]] = []
    for i, t in enumerate(items):
        starts = own[i][0] | (own[i - 1][1] if i else set())
        stops = own[i][1] | (own[i + 1][0] if i + 1 < n else set())
        ok = [
            (a, b)
            for a in sorted(starts)
            for b in sorted(stops)
            if t.equivalent(_indices_part(axis, a, b), shape)
        ]
        if not ok:
            a = min(starts, default=0)
            b = max(stops, default=_END)
            closest = _indices_part(axis, a, b)
            w = t.difference(closest, shape)
            return (
                f"hold slicings[{i}]={entries_text(t.entries)!r}, which is no run of axis {axis} "
                f"between two split indices: on shape {w} it differs from "
                f"{closest.to_numpy()!r}, the closest"
            )
        pairs.append(ok)
    # the fewest holes: a hole before slicing i where its start is not the stop before it
    best: dict[int, tuple[int, list[tuple[int, int]]]] = {}  # stop: (holes, pairs so far)
    for a, b in pairs[0]:
        cost = int(a != 0)
        if b not in best or cost < best[b][0]:
            best[b] = (cost, [(a, b)])
    for ok in pairs[1:]:
        nxt: dict[int, tuple[int, list[tuple[int, int]]]] = {}
        for a, b in ok:
            cost, chosen = min(
                ((c + int(a != stop), ch) for stop, (c, ch) in best.items()), key=lambda e: e[0]
            )
            if b not in nxt or cost < nxt[b][0]:
                nxt[b] = (cost, [*chosen, (a, b)])
        best = nxt
    cost, chosen = min(
        ((c + int(stop != _END), ch) for stop, (c, ch) in best.items()), key=lambda e: e[0]
    )
    points: list[int] = []
    parts: list[int] = []
    for i, (a, b) in enumerate(chosen):
        if a != (chosen[i - 1][1] if i else 0):
            points.append(a)  # the hole before slicing i ends here
        parts.append(len(points))
        points.append(b)
    if points[-1] == _END:
        points.pop()  # the last slicing runs to the end: no hole after it
    if cost and not holes:
        k = next(k for k in range(len(points) + 1) if k not in parts)
        lo = points[k - 1] if k else 0
        hi = points[k] if k < len(points) else _END
        hole = _indices_part(axis, lo, hi)
        w = hole.empty_witness(shape)
        return (
            f"leave a hole, {hole.to_numpy()!r}"
            + ("" if w is None else f", which takes elements on shape {w}")
            + "; dm.group_into_split_with_gaps keeps holes as parts"
        )
    if not points:
        return Splitting(axis, "even", 1), (0,)
    return Splitting(axis, "indices", tuple(points)), tuple(parts)


def _indices_part(axis: int, a: int, b: int) -> Slicing:
    """The part ``x[a:b]`` of a list of indices on ``axis``, as ``as_slicings`` writes it."""
    return part_slicing(axis, Cut.make(a or None, None if b == _END else b, 1, SAME))


def group_into_split(
    slicings: Iterable[Slicing | str], shape: ShapeLike | None = None
) -> Splitting | None:
    """Slicings that tile one axis in order, with no hole, as one split.

    ``slicings`` are ``dm.Slicing`` values or NumPy expressions (``"x[:, :4]"``).

    The split's parts are the slicings, in order, on every shape ``shape`` allows: a
    ``"even"`` Split where the parts have one static length, else a VariadicSplit
    (``"lengths"``, whose one ``-1`` is the part that grows with a size that is not static),
    else a list of indices (``"indices"``, ``numpy.split(x, [2, 5])``: each part runs from a
    point to the next, each point counted from the front or the back). ``None`` where no
    split's parts are the slicings (holes included: :func:`group_into_split_with_gaps` keeps
    them as parts); :meth:`Splitting.from_slicings` says why, naming a shape. A VariadicSplit
    refuses the sizes below its lengths' sum, where the slicings run: with ``shape=None``
    (every size) ``x[:3], x[3:]`` is the indices ``[3]``, and so is it on ``[2..]``; on
    ``[3..]`` it is VariadicSplit ``[3, -1]``. ``Splitting.as_slicings`` goes the other way.

    Examples
    --------
    >>> import datamove as dm
    >>> parts = [dm.Slicing.from_numpy(t) for t in ("x[:, :4]", "x[:, 4:8]", "x[:, 8:]")]
    >>> dm.group_into_split(parts, [2, 12])
    Splitting(axis=1, rule='even', value=3)
    >>> dm.group_into_split(parts, "[2,8..]")
    Splitting(axis=1, rule='lengths', value=(4, 4, -1))
    >>> dm.group_into_split(parts, None), dm.group_into_split(parts[::-1], [2, 12])
    (Splitting(axis=1, rule='indices', value=(4, 8)), None)
    """
    found = _grouped(slicings, shape, "group_into_split")
    return None if isinstance(found, str) else found


def _grouped(
    slicings: Iterable[Slicing | str], shape: ShapeLike | None, op: str
) -> Splitting | str:
    """The split of the slicings, or why there is none (``Splitting.from_slicings`` says it)."""
    found = _search(slicings, shape, op, holes=False)
    return found if isinstance(found, str) else found[0]


ALGEBRA.update(
    identity_witness=identity_witness,
    empty_witness=empty_witness,
    canonical=canonical,
    group_into_split=_grouped,
)
