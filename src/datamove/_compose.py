"""Composing two slicings into one: ``dm.compose(a, b, shape)`` is ``b(a(x))`` as one slicing.

The layout (which input axis each entry of ``b`` lands on) is decided on the entries: ``a``'s
output is its front entries' axes, the axes its ellipsis keeps whole, and its back entries' axes;
``b``'s front entries address the first of them, its back entries the last, its ellipsis the
rest. Where ``b`` reaches into ``a``'s ellipsis, the axes it reaches are made explicit, and on an
unknown rank every smaller rank is checked by composing on it explicitly.

Each input axis then carries one entry of ``a`` and at most one of ``b``: a new axis of ``a`` with
``b``'s index or cut on it, or a cut of ``a`` with ``b``'s index or cut on its result. On a
static size the result is read off the selected indices. On an interval the result is a cut (or
an index) that selects the same indices on every allowed size, found in two steps:

1. candidates: every size checked constrains the start and the stop of a single cut (a value
   counted from the front, one counted from the back, or none), and the constraints of all the
   sizes are intersected;
2. proof: a candidate is accepted when it selects the same indices on every allowed size. Both
   sides are piecewise affine in the size: the clamped bounds of ``a``'s cut and of the
   candidate change form only near the absolute values of their parameters (and their sums and
   differences), and those of ``b``'s cut only where the length of ``a``'s result crosses
   ``b``'s parameters (found by bisection: that length is monotonic between ``a``'s
   breakpoints). Between breakpoints, first index and count are affine in the size on each
   residue class modulo the product of the steps, so three periods decide a piece (a cut that
   selects one element at most on every size adds no period: a step past every allowed size,
   or bounds counted from one end no farther apart than the step). More than ``_BUDGET``
   sizes on one axis are refused as undecidable, counted before any is listed; a candidate
   whose own period is past it is skipped, and refused as undecidable if no other holds.

When no candidate survives, no single slicing is equivalent on every allowed size and
:class:`~datamove.NotExpressible` names a witness size; ``shape`` narrowed past it gives the
composition valid there.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, Final

from datamove._dialects import (
    CLAMP,
    NUMPY,
    SAME,
    WHOLE,
    Cut,
    Selection,
    Slicing,
    addressed,
    as_slicing,
    bisect_first,
    breakpoints,
    dim_at,
    edges,
    entries_text,
    expand,
    index_at,
    selection,
    shape_dims,
    witness_of,
)
from datamove._errors import NotExpressible, ValidationError, pass_the_shape, plural
from datamove._shape import INT64_MAX, INT64_MIN, Dimension, PartialShape, ShapeLike, largest

__all__ = ["compose"]

OP: Final = "compose"
_BUDGET: Final = 50_000  # sizes checked per axis before the answer is refused as undecidable
_SMALL: Final = 64  # intervals this short are checked size by size


# -- one axis ------------------------------------------------------------------------------------
def _then(c: Cut, e: Cut, d: int) -> Selection:
    """What ``e`` selects of what ``c`` selects, on size ``d``."""
    r = c.range(d)
    idx = e.range(len(r))
    n = len(idx)
    if n == 0:
        return (0, 0, 0)
    if n == 1:
        return (r[idx[0]], 1, 0)
    return (r[idx[0]], n, r.step * idx.step)


def _pick(c: Cut, i: int, d: int) -> int | None:
    """The index ``c``'s ``i``-th element has on size ``d`` (None: out of range)."""
    r = c.range(d)
    return r[i] if -len(r) <= i < len(r) else None


def _first_in_range(c: Cut, i: int, dim: Dimension) -> int | None:
    """The smallest size of ``dim`` on which ``c`` has an ``i``-th element, or None.

    The length of ``c``'s result is monotonic between its breakpoints: where it rises past
    ``i`` is found by bisection (``_crossings``); where it falls, the piece's first size.
    """
    lo, top = dim.min, largest(dim)
    if top - lo <= _SMALL:
        sizes = set(range(lo, top + 1))
    else:
        starts = edges(lo, top, breakpoints((c.start, c.stop)))
        sizes = set(starts) | _crossings(c, lo, top, starts, {i + 1 if i >= 0 else -i})
    return next((d for d in sorted(sizes) if _pick(c, i, d) is not None), None)


class _UndecidedError(Exception):
    """More sizes to check than the budget allows."""


def _undecided(dim: Dimension, what: str) -> ValidationError:
    """The error for an axis of ``dim`` whose sizes to check (``what`` repeats) are too many."""
    rule = f"cannot be decided for every size: {what}"
    return ValidationError(
        OP, "shape", str(dim), rule, hint="pass a static shape or a smaller interval"
    )


def _crossings(c: Cut, lo: int, top: int, edges: list[int], levels: set[int]) -> set[int]:
    """Sizes where the length of ``c``'s result crosses each of ``levels``.

    Between consecutive ``edges`` the clamped bounds of ``c`` are affine, so the length is
    monotonic there and each crossing is found by bisection.
    """
    out: set[int] = set()
    bounds = [*edges, top + 1]
    for u, nxt in itertools.pairwise(bounds):
        v = nxt - 1  # edges are distinct sizes up to top: v >= u
        lu, lv = len(c.range(u)), len(c.range(v))
        if lu == lv:
            continue
        rising = lv > lu
        for t in levels:
            if not (min(lu, lv) < t <= max(lu, lv)):
                continue
            # the first size whose length is >= t (rising) or < t (falling); B023: run at once
            a = bisect_first(lambda d: (len(c.range(d)) >= t) == rising, u, v)  # noqa: B023
            out.update(x for x in (a - 1, a, a + 1) if lo <= x <= top)
    return out


def _sizes(top: int, edges: list[int], period: int) -> list[int]:
    """Three periods of sizes from each edge (the whole piece when shorter)."""
    out: list[int] = []
    for u, nxt in itertools.pairwise([*edges, top + 1]):
        piece = range(u, min(nxt, u + 3 * period))
        if len(out) + len(piece) > _BUDGET:  # counted before any is listed
            raise _UndecidedError
        out.extend(piece)
    return out


def _period(c: Cut | None, top: int) -> int:
    """The period ``c``'s step gives: none (1) where ``c`` takes one element at most.

    It does on every size with a step past the largest size, or with both bounds counted from
    one end no farther apart than the step (clamping brings bounds no farther apart). A missing
    start is the first element in the step's direction (0, or -1 from the back), a missing stop
    the end past the last (0 from the back, or -1 from the front).
    """
    if c is None:
        return 1
    k = abs(c.step)
    if k > top:
        return 1
    first, past = ((True, 0), (False, 0)) if c.step > 0 else ((False, -1), (True, -1))
    a = first if c.start is None else (c.start >= 0, c.start)
    b = past if c.stop is None else (c.stop >= 0, c.stop)
    return 1 if a[0] == b[0] and abs(b[1] - a[1]) <= k else k


class _Axis:
    """The sizes to check for one axis: ``a``'s cut ``c`` then ``b``'s entry ``e``."""

    def __init__(self, c: Cut, e: Cut | int, dim: Dimension) -> None:
        self.lo = dim.min
        self.top = largest(dim)
        if isinstance(e, Cut):
            ev = [abs(v) for v in (e.start, e.stop) if v is not None]
            levels = (
                set(ev) | {a + b for a in ev for b in ev} | {abs(a - b) for a in ev for b in ev}
            )
            self.period = _period(c, self.top) * _period(e, self.top)
        else:
            levels = {abs(e)}
            self.period = _period(c, self.top)
        levels = {t + k for t in levels | {0, 1, 2} for k in (-2, -1, 0, 1, 2) if t + k > 0}
        if self.top - self.lo <= _SMALL:  # small intervals: every size
            self.edges = [self.lo]
            self.period = self.top - self.lo + 1
        else:
            starts = edges(self.lo, self.top, breakpoints((c.start, c.stop)))
            cross = _crossings(c, self.lo, self.top, starts, levels)
            self.edges = sorted(set(starts) | cross)

    def sizes(self, extra: list[int], f: Cut | None) -> list[int]:
        """The sizes that decide ``c`` then ``e`` against ``f`` (bounds ``extra``; None: alone).

        ``c`` then ``e`` repeats with the product of their periods: ``e``'s first element
        and count are affine in the length of ``c``'s result on each residue class of ``e``'s
        step, and that length in the size on each residue class of ``c``'s.
        """
        if len(self.edges) == 1 and self.period == self.top - self.lo + 1:
            return list(range(self.lo, self.top + 1))
        starts = sorted(set(self.edges) | set(edges(self.lo, self.top, breakpoints(extra))))
        period = math.lcm(self.period, _period(f, self.top))
        return _sizes(self.top, starts, period)


Interval = tuple[float, float]  # closed; +-inf for unbounded


def _meet(x: Interval, y: Interval) -> Interval:
    return (max(x[0], y[0]), min(x[1], y[1]))


def _ok(x: Interval) -> bool:
    return x[0] <= x[1]


class _Bound:
    """The values one bound of a single cut may take: none, from the front (>= 0), from the back."""

    def __init__(self) -> None:
        self.none = True
        self.front: Interval = (0, math.inf)
        self.back: Interval = (-math.inf, -1)

    def add(self, none: bool, front: Interval, back: Interval) -> None:
        self.none = self.none and none
        self.front = _meet(self.front, front)
        self.back = _meet(self.back, back)

    def feasible(self) -> bool:
        return self.none or _ok(self.front) or _ok(self.back)

    def choices(self) -> list[int | None]:
        out: list[int | None] = []
        if self.none:
            out.append(None)
        # Both ends of each range: sizes where nothing is selected constrain start and stop
        # together, and one end may be the one that keeps those empty.
        lo, hi = self.front
        if _ok(self.front):
            out.extend([int(lo)] if hi in (lo, math.inf) else [int(lo), int(hi)])
        lo, hi = self.back
        if _ok(self.back):
            out.extend([int(hi)] if lo in (hi, -math.inf) else [int(hi), int(lo)])
        return out


def _start(g: int, d: int, k: int, rule: str) -> tuple[bool, Interval, Interval]:
    """Start values putting the first element at ``g`` on size ``d`` (under ``rule``).

    The rules differ in one place: with a negative step, OpenVINO's clamping puts a start before
    the first element (``< -d``) on index 0, NumPy's on nothing.
    """
    if k > 0:
        back: Interval = (-math.inf, -d) if g == 0 else (g - d, g - d)
        return (g == 0, (g, g), back)
    front: Interval = (g, math.inf) if g == d - 1 else (g, g)
    back = (-math.inf, -d) if g == 0 and rule == CLAMP else (g - d, g - d)
    return (g == d - 1, front, back)


def _stop(last: int, d: int, k: int) -> tuple[bool, Interval, Interval]:
    """Stop values ending the selection at ``last`` on size ``d`` (NumPy's clamping)."""
    if k > 0:
        hi = last + k
        front: Interval = (last + 1, hi) if hi < d else (last + 1, math.inf)
        return (hi >= d, front, (last + 1 - d, min(hi - d, -1)))
    lo = last + k  # the wall lies in [last + k, last - 1]; -1 is "before the first"
    if lo <= -1:
        return (True, (0, last - 1), (-math.inf, last - 1 - d))
    return (False, (lo, last - 1), (lo - d, last - 1 - d))


def _candidates(seen: dict[int, Selection], steps: list[int]) -> list[Cut]:
    """Cuts with each step whose start and stop fit every size in ``seen``, NumPy's rule first."""
    out: list[Cut] = []
    for k in steps:
        for rule in (NUMPY, CLAMP) if k < 0 else (NUMPY,):
            start, stop = _Bound(), _Bound()
            for d, (first, n, _) in seen.items():
                if n:
                    start.add(*_start(first, d, k, rule))
                    stop.add(*_stop(first + k * (n - 1), d, k))
            if start.feasible() and stop.feasible():
                out.extend(
                    f
                    for a in start.choices()
                    for b in stop.choices()
                    if (f := Cut.make(a, b, k, rule)) not in out
                )
    return out


def _describe(s: Selection) -> str:
    first, n, step = s
    if n == 0:
        return "nothing"
    if n == 1:
        return f"index {first}"
    return f"indices {first}, {first + step}, ... ({n} of them)"


# -- closed forms ---------------------------------------------------------------------------------
# A cut under NumPy's clamping with a negative step is, on the reversed axis, the cut whose bounds
# are ``-1 - v`` with the positive step (``to_torch`` writes it so). There every bound is an
# anchor: ("F", p) is ``min(p, d)``, ("B", q) is ``max(d - q, 0)``; a missing start is ("F", 0),
# a missing stop ("B", 0). With ``c`` = [lo, hi) step k and ``e`` = [lo', hi') step k' on the
# positions 0..L-1 of ``c``'s result (L = ceil((hi - lo) / k)), the element at position m is
# lo + k*m, and since m < L exactly when lo + k*m < hi:
#   e starts at ("F", 0):                  the start is c's;
#   e starts at ("F", p'), c at ("F", p):   the start is ("F", p + k*p');
#   e stops at ("B", 0):                   the stop is c's;
#   e stops at ("B", q'), c at ("B", q):    the stop is ("B", q + k*q')  (m + q' < L iff
#                                           lo + k*(m + q') < hi);
#   e stops at ("F", p'), c runs ("F", p) to ("F", p2): the stop is ("F", min(p2, p + k*p')).
# When e reverses c's result and k == 1, c read backwards is the cut from flip(stop) to
# flip(start) on the reversed axis (flip swaps "F" and "B"). Every other case goes to the search.
Anchor = tuple[str, int]
Oriented = tuple[int, Anchor, Anchor, int]  # orientation, start, stop, step > 0


def _anchor(v: int | None, stop: bool) -> Anchor:
    if v is None:
        return ("B", 0) if stop else ("F", 0)
    return ("F", v) if v >= 0 else ("B", -v)


def _oriented(c: Cut) -> Oriented | None:
    if c.rule not in (SAME, NUMPY):
        return None
    if c.step > 0:
        return (1, _anchor(c.start, False), _anchor(c.stop, True), c.step)
    s = None if c.start is None else -1 - c.start
    t = None if c.stop is None else -1 - c.stop
    return (-1, _anchor(s, False), _anchor(t, True), -c.step)


def _value(x: Anchor, stop: bool) -> int | None:
    side, v = x
    if side == "F":
        return None if v == 0 and not stop else v
    return None if v == 0 and stop else -v


def _unoriented(o: int, s: Anchor, t: Anchor, k: int) -> Cut | None:
    if s == ("B", 0):  # a start at the end: not worth a sentinel here
        return None
    a, b = _value(s, False), _value(t, True)
    if o < 0:
        a = None if a is None else -1 - a
        b = None if b is None else -1 - b
        k = -k
    return Cut.make(a, b, k, NUMPY)


def _flip(x: Anchor) -> Anchor:
    return ("B" if x[0] == "F" else "F", x[1])


def _closed(c: Cut, e: Cut) -> Cut | None:
    """The closed form of ``c`` then ``e`` on every size, where one of the rules above gives it."""
    oc, oe = _oriented(c), _oriented(e)
    if oc is None or oe is None:
        return None
    o, sc, tc, kc = oc
    if oe[0] < 0:
        if kc != 1:
            return None
        o, sc, tc = -o, _flip(tc), _flip(sc)
    _, se, te, ke = oe
    if se == ("F", 0):
        s = sc
    elif se[0] == "F" and sc[0] == "F":
        s = ("F", sc[1] + kc * se[1])
    else:
        return None
    if te == ("B", 0):
        t = tc
    elif te[0] == "B" and tc[0] == "B":
        t = ("B", tc[1] + kc * te[1])
    elif te[0] == "F" and sc[0] == "F" and tc[0] == "F":
        t = ("F", min(tc[1], sc[1] + kc * te[1]))
    else:
        return None
    return _unoriented(o, s, t, kc * ke)


def _closed_index(c: Cut, i: int) -> int | None:
    """The closed form of ``c``'s ``i``-th element (in range exactly where ``c[i]`` is)."""
    oc = _oriented(c)
    if oc is None:
        return None
    o, sc, tc, k = oc
    if i >= 0 and sc[0] == "F" and tc == ("B", 0):
        j = sc[1] + k * i  # in range iff j < d, as c[i] is
    elif i < 0 and k == 1 and sc == ("F", 0) and tc[0] == "B":
        j = i - tc[1]  # d - q + i, in range iff d >= q - i
    else:
        return None
    j = j if o > 0 else -1 - j
    # past int64 it is in range on no size (x[:INT64_MIN] then x[-3]): the search says so
    return j if INT64_MIN <= j <= INT64_MAX else None


def _cut_then(c: Cut, e: Cut, dim: Dimension, where: Callable[[int], NotExpressible]) -> Cut:
    """One cut selecting what ``e`` selects of ``c``'s result, on every size of ``dim``."""
    if e == WHOLE:
        return c
    if c == WHOLE:
        return e
    f = _closed(c, e)
    if f is not None:
        return f
    step = c.step * e.step
    ax = _Axis(c, e, dim)
    undecided: Cut | None = None  # a candidate whose own period is past the budget
    try:
        samples = ax.sizes([], None)
        seen: dict[int, Selection] = {}
        broke: int | None = None
        starts = {NUMPY: _Bound(), CLAMP: _Bound()}
        stop = _Bound()
        for d in reversed(samples):  # from the largest: the witness is where a form breaks
            s = seen[d] = _then(c, e, d)
            if s[1] == 0:
                continue
            first, n, _ = s
            for rule, start in starts.items():
                start.add(*_start(first, d, step, rule))
            stop.add(*_stop(first + step * (n - 1), d, step))
            feasible = any(start.feasible() for start in starts.values()) and stop.feasible()
            if broke is None and not feasible:
                broke = d
        candidates: list[Cut] = []
        if all(s[1] == 0 for s in seen.values()):
            candidates.append(Cut(0, 0, 1))
        steps = [step]
        if all(s[1] <= 1 for s in seen.values()):  # one element at most: any step will do
            steps += [-step, INT64_MAX, -INT64_MAX]
        if broke is None or len(steps) > 1:
            candidates.extend(_candidates(seen, steps))
        for f in candidates:
            extra = [v for v in (f.start, f.stop) if v is not None]
            try:
                sizes = ax.sizes(extra, f)
            except _UndecidedError:
                undecided = undecided or f
                continue
            bad = next(
                (
                    d
                    for d in sizes
                    if (seen[d] if d in seen else _then(c, e, d)) != selection(f.range(d))
                ),
                None,
            )
            if bad is None:
                return f
            broke = bad if broke is None else broke
    except _UndecidedError:
        what = f"{c.text()} then {e.text()} repeat every {ax.period} sizes, more than checked"
        raise _undecided(dim, what) from None
    if undecided is not None:  # not proved wrong: no refusal that says no slicing exists
        what = (
            f"{c.text()} then {e.text()} may be {undecided.text()}, which repeats every "
            f"{abs(undecided.step)} sizes, more than checked"
        )
        raise _undecided(dim, what)
    assert broke is not None
    raise where(broke)


def _index_then(c: Cut, i: int, dim: Dimension, where: Callable[[int], NotExpressible]) -> int:
    """One index naming ``c``'s ``i``-th element on every size of ``dim`` (and failing alike)."""
    if _first_in_range(c, i, dim) is None:  # decided whatever the step: no period to cover
        raise ValidationError(
            OP,
            "b",
            i,
            f"is out of range of what a's {c.text()} selects on every allowed size ({dim}) "
            "of its axis",
        )
    if c == WHOLE:
        return i
    k = _closed_index(c, i)
    if k is not None:
        return k
    try:
        ax = _Axis(c, i, dim)
        samples = ax.sizes([], None)
        front: set[int] | None = None
        back: set[int] | None = None
        broke: int | None = None
        for d in reversed(samples):
            j = _pick(c, i, d)
            if j is None:
                continue
            front = {j} if front is None else front & {j}
            back = {j - d} if back is None else back & {j - d}
            if broke is None and not front and not back:
                broke = d
        for k in sorted(front or set()) + sorted(back or set()):
            bad = next(
                (d for d in ax.sizes([k], None) if _pick(c, i, d) != index_at(k, d)),
                None,
            )
            if bad is None:
                return k
            broke = bad if broke is None else broke
    except _UndecidedError:
        raise _undecided(dim, f"{c.text()} repeats every {abs(c.step)} sizes") from None
    assert broke is not None
    raise where(broke)


# -- the layout ----------------------------------------------------------------------------------
def _split(entries: tuple[Any, ...]) -> tuple[list[Any], list[Any], bool]:
    if Ellipsis in entries:
        k = entries.index(Ellipsis)
        return list(entries[:k]), list(entries[k + 1 :]), True
    return list(entries), [], False


def _outputs(entries: list[Any]) -> int:
    return sum(1 for x in entries if type(x) is not int)


class _Composer:
    def __init__(self, a: Slicing, b: Slicing, ps: PartialShape, shape: Any) -> None:
        self.a, self.b, self.ps, self.shape = a, b, ps, shape
        self.pending: NotExpressible | None = None
        self.undecided: ValidationError | None = None  # raised after self.pending
        self.a_front, self.a_back, self.a_el = _split(a.entries)
        self.b_front, self.b_back, _ = _split(b.entries)
        # Axes b reaches into a's ellipsis, from the front and from the back.
        self.k_f = max(0, addressed(self.b_front) - _outputs(self.a_front))
        self.k_b = max(0, addressed(self.b_back) - _outputs(self.a_back))
        self.min_rank = addressed(self.a_front) + addressed(self.a_back) + self.k_f + self.k_b

    def fail(
        self, axis: int, rank: int | None, c: Cut, e: Cut | int
    ) -> Callable[[int], NotExpressible]:
        """The error for axis ``axis`` with the witness size it is given."""

        def make(size: int) -> NotExpressible:
            if isinstance(e, Cut):
                what = _describe(_then(c, e, size))
            else:
                j = _pick(c, e, size)
                what = "nothing (out of range)" if j is None else f"index {j}"
            return NotExpressible(
                OP,
                "shape",
                self.shape,
                f"allows sizes of axis {axis} on which {_show(self.a)} then {_show(self.b)} is "
                f"no single slicing: {c.text()} then {e.text() if isinstance(e, Cut) else e} "
                f"selects {what} on size {size}, and no single "
                f"{'start:stop:step' if isinstance(e, Cut) else 'index'} selects that and what "
                "it selects on the larger allowed sizes",
                hint="pass a shape that leaves that size out (a static shape always composes)",
                witness=self.witness(rank, {axis: size}),
            )

        return make

    def witness(self, rank: int | None, fixed: dict[int, int]) -> tuple[int, ...]:
        if self.ps.rank is not None:
            ps = self.ps
        else:
            ps = PartialShape.dynamic(self.min_rank if rank is None else rank)
        n = ps.rank or 0
        fixed = {(k % n if n else k): v for k, v in fixed.items()}
        sizes = list(witness_of(self.a, ps, fixed))
        # b's indices must be in range on the other axes too, or a then b runs on no shape near
        # the witness and nothing is shown there
        for c, i, axis in self.indexed(n):
            if axis not in fixed and _pick(c, i, sizes[axis]) is None:
                d = _first_in_range(c, i, ps.dims[axis])
                sizes[axis] = sizes[axis] if d is None else d
        return tuple(sizes)

    def indexed(self, rank: int) -> list[tuple[Cut, int, int]]:
        """``(cut, index, axis)`` where ``b``'s index takes element ``index`` of ``a``'s cut."""
        a_out = [(x, axis) for kind, x, axis in expand(self.a, rank) or [] if kind != "index"]
        out = []
        for kind, i, k in expand(self.b, len(a_out)) or []:
            if kind == "index" and isinstance(a_out[k][0], Cut):
                out.append((a_out[k][0], i, a_out[k][1]))
        return out

    def one(self, x: Any, y: Any, axis: int | None, rank: int | None) -> list[Any]:
        """The entries for ``a``'s entry ``x`` (one output axis) under ``b``'s entry ``y``."""
        if x is None:  # a new axis of length 1
            if type(y) is int:
                if y in (0, -1):
                    return []
                raise ValidationError(
                    OP, "b", _show(self.b), f"takes index {y} of a new axis of length 1"
                )
            assert isinstance(y, Cut)
            if len(y.range(1)) == 1:
                return [None]
            # Raised once the other axes are through: an index out of range comes first.
            self.pending = self.pending or NotExpressible(
                OP,
                "b",
                _show(self.b),
                f"empties the new axis of {_show(self.a)} ({y.text()} of length 1): no "
                "single slicing makes an axis of length 0",
                witness=self.witness(rank, {}),
            )
            return [None]
        assert isinstance(x, Cut)
        assert axis is not None
        dim = dim_at(self.ps, axis)
        if type(y) is int and dim.is_static and _pick(x, y, dim.min) is None:
            raise ValidationError(
                OP,
                "b",
                _show(self.b),
                f"takes index {y} of {x.text()} on axis {axis} of size {dim.min}, which selects "
                f"{len(x.range(dim.min))} element(s)",
            )
        try:
            if type(y) is int:
                return [_index_then(x, y, dim, self.fail(axis, rank, x, y))]
            assert isinstance(y, Cut)
            return [_cut_then(x, y, dim, self.fail(axis, rank, x, y))]
        except NotExpressible as exc:
            # Raised once the other axes are through: an index of b out of range on every
            # size there means a then b runs nowhere, which comes first.
            self.pending = self.pending or exc
            return [x]
        except ValidationError as exc:
            if exc.argument != "shape":  # b cannot run on a's result
                raise
            self.undecided = self.undecided or exc  # no single slicing elsewhere comes first
            return [x]

    def index(self, i: int, axis: int) -> None:
        """Refuse ``a``'s index ``i`` where the axis is static and it is out of range."""
        dim = dim_at(self.ps, axis)
        if dim.is_static and index_at(i, dim.min) is None:
            raise ValidationError(
                OP, "a", _show(self.a), f"takes index {i} of axis {axis} of size {dim.min}"
            )

    def pair(
        self, xs: list[Any], ys: list[Any], axis: int, step: int, rank: int | None
    ) -> list[Any]:
        """``b``'s entries ``ys`` over ``a``'s entries ``xs``, whose first addresses ``axis``.

        ``step`` is 1 for the front entries; the back ones are paired from the back, each list
        reversed and ``step`` -1.
        """
        out: list[Any] = []
        j = 0
        for x in xs:
            if type(x) is int:
                self.index(x, axis)
                out.append(x)
            else:
                while j < len(ys) and ys[j] is None:
                    out.append(None)
                    j += 1
                if j < len(ys):
                    out.extend(self.one(x, ys[j], axis if x is not None else None, rank))
                    j += 1
                else:
                    out.append(x)
            axis += step * (x is not None)
        return out + ys[j:]  # new axes only

    def on(self, rank: int | None) -> list[Any]:
        """The composed entries on ``rank`` (``None``: any rank; ``a``'s ellipsis kept)."""
        a_front, a_back, a_el = self.a_front, self.a_back, self.a_el
        b_front, b_back = self.b_front, self.b_back
        k_f, k_b = self.k_f, self.k_b
        if rank is not None:
            addr = self.min_rank - k_f - k_b
            if addr > rank:
                raise ValidationError(
                    OP,
                    "a",
                    _show(self.a),
                    f"addresses {plural(addr, 'axis', 'axes')}, but the rank is {rank}",
                )
            middle = rank - addr
            out_rank = _outputs(a_front) + _outputs(a_back) + middle
            nb = addressed(b_front) + addressed(b_back)
            if nb > out_rank:
                raise ValidationError(
                    OP,
                    "b",
                    _show(self.b),
                    f"addresses {plural(nb, 'axis', 'axes')}, but a's result has rank {out_rank}",
                )
            if middle < k_f + k_b:  # b reaches past a's ellipsis: every axis explicit
                a_front = a_front + [WHOLE] * middle + a_back
                a_back, a_el = [], False
                b_front, b_back = b_front + [WHOLE] * (out_rank - nb) + b_back, []
                k_f = k_b = 0
        a_front = a_front + [WHOLE] * k_f
        a_back = [WHOLE] * k_b + a_back
        self.pending = self.undecided = None
        # b's front entries over a's front, its back entries over a's back (from the last axis).
        out = self.pair(a_front, b_front, 0, 1, rank)
        tail = self.pair(a_back[::-1], b_back[::-1], (0 if rank is None else rank) - 1, -1, rank)
        if a_el or rank is None or a_back or tail:
            out.append(Ellipsis)
        out += tail[::-1]
        if self.pending is not None:
            raise self.pending
        if self.undecided is not None:
            raise self.undecided
        return out


def _show(s: Slicing) -> str:
    return entries_text(s.entries)


def _tidy(entries: list[Any]) -> list[Any]:
    if entries and entries[-1] is Ellipsis:
        entries = entries[:-1]
    return entries


def compose(a: Slicing | str, b: Slicing | str, shape: ShapeLike | None = None) -> Slicing:
    """One slicing equivalent to ``a`` then ``b`` (``b(a(x))``) on every shape ``shape`` allows.

    ``shape`` is static, intervals (``"[?,2..10]"``) or ``None`` (any rank, any sizes). Raises
    :class:`~datamove.NotExpressible` with a witness shape where no single slicing is equivalent
    on every allowed shape (pass a narrower shape for the composition valid there), and
    :class:`~datamove.ValidationError` where ``b`` cannot apply to ``a``'s result.

    Examples
    --------
    >>> import datamove as dm
    >>> S = dm.Slicing.from_numpy
    >>> dm.compose(S("x[1:]"), S("x[::2]")).to_numpy()
    'x[1::2]'
    >>> dm.compose(S("x[::-1]"), S("x[1:]")).to_numpy()
    'x[-2::-1]'
    >>> dm.compose(S("x[2:5]"), S("x[1:]"), "[?]").to_numpy()
    'x[3:5]'
    """
    a, b = as_slicing(OP, "a", a), as_slicing(OP, "b", b)
    ps = shape_dims(shape, OP)
    comp = _Composer(a, b, ps, shape)
    if ps.rank is not None:
        return Slicing(_tidy(comp.on(ps.rank)))
    return _any_rank(comp)


def _any_rank(comp: _Composer) -> Slicing:
    a, b = comp.a, comp.b
    candidate = Slicing(_tidy(comp.on(None)))
    if comp.k_f + comp.k_b == 0:
        return candidate
    # b reaches into a's ellipsis: the candidate holds from this rank on; check the smaller ones.
    for rank in range(comp.min_rank):
        here = PartialShape.dynamic(rank)
        sub = _Composer(a, b, here, comp.shape)
        try:
            exact = Slicing(sub.on(rank))
        except NotExpressible:
            raise
        except ValidationError as exc:  # b(a(x)) cannot run on this rank: nor can the candidate,
            # which addresses min_rank axes (a's, and those b reaches in its ellipsis)
            if exc.argument == "shape":  # not decided on this rank (too many sizes): not either
                raise
            continue
        # exact runs on this rank, where the candidate (min_rank axes) cannot: they differ
        raise NotExpressible(
            OP,
            "shape",
            comp.shape,
            f"allows rank {rank}, where {_show(a)} then {_show(b)} is "
            f"{_show(exact)} but on larger ranks {_show(candidate)}; no single "
            "slicing is both",
            hint=pass_the_shape(comp.shape, "a shape of known rank"),
            witness=candidate.difference(exact, here),
        )
    return candidate
