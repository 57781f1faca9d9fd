"""StridedSlice-1: plan, shape inference and execution.

One source of truth. The caller's parameters are checked once (``checked_params``); the masks
become an *axis walk* (``axis_walk``) that says, for every output axis, whether it is a new axis, a
kept input axis (under the ellipsis or after the addressed axes) or a sliced one, and which input
axes are shrunk. Each sliced axis is clamped by one function (``clamp_bounds``, Slice-8's too).
Shape inference evaluates the walk on ``Dimension`` intervals; execution turns it into a NumPy
basic index.

Precedence on one index follows OpenVINO's shape inference: ellipsis, then new axis, then shrink,
then begin/end. Bits at indices ``>= len(begin)`` are ignored (the spec's zero-padding), except
that a second ellipsis bit anywhere is an error, as in OpenVINO.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

import numpy as np

from datamove import _backends, _plan
from datamove._errors import BackendError, ValidationError, plural, show
from datamove._memo import memoize
from datamove._shape import (
    HUGE_LENGTH,
    INT64_MAX,
    INT64_MIN,
    Dimension,
    PartialShape,
    ShapeLike,
    Unknown,
    as_partial_shape,
)
from datamove._validation import Vector, as_mask, check_concrete, index_vector, vector_length

__all__ = [
    "checked_params",
    "infer_strided_slice",
    "numpy_index",
    "plan_strided_slice",
    "strided_slice",
]

OP: Final = "StridedSlice"
MASKS: Final = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")

# NumPy's most dimensions (NPY_MAXDIMS, no public name holds it): 64 in NumPy 2, which
# pyproject.toml requires (32 before).
NUMPY_MAXDIMS: Final = 64
# The one wording of that limit, after what passed it ("has rank 65, ..."), in every message
# that refuses a rank NumPy cannot hold: execution here and in Slice, the IR's checks, the CLI.
PAST_NUMPY_RANK: Final = f"more than NumPy's limit of {NUMPY_MAXDIMS} dimensions"

# Kinds of output axes in the walk.
NEW: Final = 0  # a new axis of length 1 (new_axis_mask)
KEEP: Final = 1  # an input axis copied whole (covered by the ellipsis, or trailing)
SLICE: Final = 2  # an input axis sliced by begin[i]:end[i]:stride[i]
SHRINK: Final = 3  # an input axis indexed by begin[i] and removed (shrink_axis_mask)


class Step(NamedTuple):
    """One entry of the axis walk."""

    kind: int
    axis: int  # the input axis (-1 for NEW)
    i: int  # the index into begin/end/stride and the masks (-1 for KEEP)


class Params(NamedTuple):
    """Checked, normalised StridedSlice parameters."""

    begin: Vector
    end: Vector
    stride: Vector  # all ones when absent and the length is known
    addressed: int | None  # the number of addressed axes: len(begin), when known
    begin_mask: tuple[int, ...]  # the five masks, cut or zero-padded to `addressed` (if known)
    end_mask: tuple[int, ...]
    new_axis_mask: tuple[int, ...]
    shrink_axis_mask: tuple[int, ...]
    ellipsis_mask: tuple[int, ...]


def _fit(mask: tuple[int, ...], addressed: int | None) -> tuple[int, ...]:
    if addressed is None:
        return mask
    return (mask + (0,) * addressed)[:addressed]


def checked_params(
    begin: Any,
    end: Any,
    stride: Any = None,
    begin_mask: Any = (),
    end_mask: Any = (),
    new_axis_mask: Any = (),
    shrink_axis_mask: Any = (),
    ellipsis_mask: Any = (),
) -> Params:
    """The checked StridedSlice-1 parameters, masks fitted to ``len(begin)`` (the dialects' entry).

    Examples
    --------
    >>> checked_params([1, 0], [0, 2], begin_mask=[0, 1, 1]).begin_mask
    (0, 1)
    """
    b = index_vector(OP, "begin", begin)
    e = index_vector(OP, "end", end)
    s = None if stride is None else index_vector(OP, "stride", stride)
    given = (begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask)
    masks = [as_mask(OP, name, value) for name, value in zip(MASKS, given, strict=True)]
    lb, le = vector_length(b), vector_length(e)
    if lb is not None and le is not None and lb != le:
        raise ValidationError(
            OP,
            "end",
            end,
            f"has {plural(le, 'value')}, but begin has {lb}; begin and end need to have the same "
            "number of values",
        )
    addressed = lb if lb is not None else le
    if s is None:
        s = Unknown() if addressed is None else (1,) * addressed
    else:
        ls = vector_length(s)
        if addressed is None:
            addressed = ls
        elif ls is not None and ls != addressed:
            raise ValidationError(
                OP,
                "stride",
                stride,
                f"has {plural(ls, 'value')}, but begin and end have {addressed}; stride needs to "
                "have the same number of values as begin and end",
            )
    if sum(masks[4]) > 1:
        raise ValidationError(
            OP,
            "ellipsis_mask",
            ellipsis_mask,
            "sets more than one bit; at most one ellipsis is allowed",
        )
    return Params(b, e, s, addressed, *[_fit(mask, addressed) for mask in masks])


def axis_walk(
    rank: int,
    addressed: int,
    new_axis: tuple[int, ...],
    shrink: tuple[int, ...],
    ellipsis: tuple[int, ...],
) -> tuple[Step, ...]:
    """The axis walk: which output axis comes from where (masks already fitted to ``addressed``)."""
    steps: list[Step] = []
    j = 0  # the input axis cursor
    for i in range(addressed):
        if ellipsis[i]:
            before = sum(1 for k in range(i) if not new_axis[k])
            after = sum(1 for k in range(i + 1, addressed) if not new_axis[k])
            hidden = rank - before - after
            if hidden < 0:
                raise ValidationError(
                    OP,
                    "begin",
                    None,
                    f"addresses {plural(before + after, 'axis', 'axes')} around the ellipsis, but "
                    f"data has rank {rank}",
                )
            steps.extend(Step(KEEP, j + h, -1) for h in range(hidden))
            j += hidden
        elif new_axis[i]:
            steps.append(Step(NEW, -1, i))
        else:
            steps.append(Step(SHRINK if shrink[i] else SLICE, j, i))
            j += 1
    if j > rank:
        raise ValidationError(
            OP,
            "begin",
            None,
            f"addresses {plural(j, 'axis', 'axes')} of data, but data has rank {rank} (input rank "
            "plus number of new axes has to be at least the size of begin and end)",
        )
    steps.extend(Step(KEEP, k, -1) for k in range(j, rank))
    return tuple(steps)


def _walk_for(p: Params, rank: int, begin: Any) -> tuple[Step, ...]:
    """The axis walk of ``p`` (its errors naming the caller's ``begin``); strides checked."""
    assert p.addressed is not None
    try:
        steps = axis_walk(rank, p.addressed, p.new_axis_mask, p.shrink_axis_mask, p.ellipsis_mask)
    except ValidationError as exc:  # name the caller's value in the message
        raise ValidationError(exc.op, exc.argument, begin, exc.rule) from None
    _zero_strides(p, [step.i for step in steps if step.kind == SLICE])
    return steps


def _zero_strides(p: Params, sliced: list[int] | None = None) -> None:
    """Refuse a zero stride on a sliced index (one of ``sliced``).

    Where the rank is unknown (``sliced`` None), every index that slices an axis on any rank
    is checked: those with no ellipsis, new-axis or shrink bit.
    """
    if isinstance(p.stride, Unknown) or p.addressed is None:
        return
    if sliced is None:
        masks = (p.ellipsis_mask, p.new_axis_mask, p.shrink_axis_mask)
        sliced = [i for i in range(p.addressed) if not any(m[i] for m in masks)]
    for i in sliced:
        if p.stride[i] == 0:
            raise ValidationError(
                OP,
                f"stride[{i}]",
                0,
                "is zero on a sliced axis; stride must be non-zero",
                hint="a zero stride is allowed only on new and shrunk axes",
            )


# -- one axis --------------------------------------------------------------------------------------
def clamp_bounds(d: int, b: int, e: int, s: int, begin_mask: int, end_mask: int) -> tuple[int, int]:
    """OpenVINO's clamp of one sliced axis of size ``d >= 1``: ``(start, stop)`` for ``range``.

    With a negative stride, ``begin`` clamps into ``[0, d - 1]`` (so a begin below ``-d`` starts
    at index 0, unlike NumPy) and ``stop == -1`` means "through index 0".
    """
    if s > 0:
        start = 0 if begin_mask else min(max(b + d if b < 0 else b, 0), d)
        stop = d if end_mask else min(max(e + d if e < 0 else e, 0), d)
    else:
        start = d - 1 if begin_mask else min(max(b + d if b < 0 else b, 0), d - 1)
        stop = -1 if end_mask else min(max(e + d if e < 0 else e, -1), d)
    return start, stop


def takes_whole(b: int, e: int, s: int, begin_mask: int, end_mask: int) -> bool:
    """Whether `clamp_bounds` gives the whole axis in order for every size ``d``, unread.

    An axis whose size is not known (a Dask array's after boolean indexing) can be sliced so.
    """
    return (
        s == 1 and (bool(begin_mask) or b in (0, INT64_MIN)) and (bool(end_mask) or e == INT64_MAX)
    )


def _count(start: int, stop: int, s: int) -> int:
    """``len(range(start, stop, s))`` without the ssize_t limit."""
    if s > 0:
        return max(0, -((start - stop) // s))
    return max(0, -((stop - start) // -s))


def _shrink_index(d: int, b: int, i: int) -> int:
    k = b + d if b < 0 else b
    if not 0 <= k < d:
        raise ValidationError(
            OP,
            f"begin[{i}]",
            b,
            f"is out of range for the axis shrunk by shrink_axis_mask[{i}]: data has size {d} "
            f"there, so the index must be in [{-d}, {d - 1}]"
            if d
            else f"cannot index the axis shrunk by shrink_axis_mask[{i}]: data has size 0 there",
        )
    return k


# -- shape inference -----------------------------------------------------------------------------
def range_length(
    dim: Dimension, b: int | None, e: int | None, s: int | None, begin_mask: int, end_mask: int
) -> Dimension:
    """Exact hull of the sliced length over every size in ``dim`` (``None``: value unknown).

    For a fixed size the length is monotone in start and in stop, and both are piecewise affine
    in the size with breakpoints near ``0``, ``|begin|`` and ``|end|``; so the extremes lie at
    those breakpoints or at the ends of the interval.
    """
    if begin_mask:
        b = 0
    if end_mask:
        e = 0
    signs = (1, -1) if s is None else (s,)

    def ends(d: int, sign: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        known_b = begin_mask or b is not None
        known_e = end_mask or e is not None
        start, stop = clamp_bounds(d, b or 0, e or 0, sign, begin_mask, end_mask)
        starts = (start,) if known_b else ((0, d) if sign > 0 else (0, d - 1))
        stops = (stop,) if known_e else ((0, d) if sign > 0 else (-1, d))
        return starts, stops

    def lengths(d: int, magnitude: int) -> list[int]:
        # Every extreme length at size d >= 1; an unknown stride has this magnitude.
        found = []
        for sign in signs:
            starts, stops = ends(d, sign)
            step = sign * magnitude if s is None else s
            found += [_count(a, z, step) for a in starts for z in stops]
        return found

    def longest(d: int) -> int:
        return max(lengths(d, 1)) if d else 0

    def shortest(d: int) -> int:
        return min(lengths(d, d)) if d else 0

    lo, hi = dim.min, dim.max
    # An unbounded dimension holds any size below INT64_MAX (OpenVINO's mark for "unbounded"),
    # and the hull is exact over [lo, INT64_MAX - 1]; but a huge upper bound (HUGE_LENGTH or
    # more) that still grows past the last breakpoint, reached only at sizes near INT64_MAX,
    # prints as unbounded. A small one (a stride near 2**62) is exact: a length of 2 is 2.
    top = INT64_MAX - 1 if hi is None else hi
    points = {0, 1, 2}
    for v in (b, e):
        if v is not None:
            a = abs(v)
            points.update((a - 1, a, a + 1, a + 2))
    candidates = {lo, top} | {p for p in points if lo <= p <= top}
    out_lo = min(shortest(d) for d in candidates)
    out_hi = max(longest(d) for d in candidates)
    if hi is None and out_hi >= HUGE_LENGTH:
        tail = max((p for p in candidates if p < top), default=top - 1) + 1
        if longest(top) > longest(tail):
            return Dimension(out_lo, None)
    return Dimension(out_lo, out_hi)


@memoize
def infer_strided_slice(
    shape: ShapeLike,
    begin: Any,
    end: Any,
    stride: Any = None,
    *,
    begin_mask: Any = (),
    end_mask: Any = (),
    new_axis_mask: Any = (),
    shrink_axis_mask: Any = (),
    ellipsis_mask: Any = (),
) -> PartialShape:
    """Infer the output shape of StridedSlice-1 on a static or dynamic input shape.

    Parameters
    ----------
    shape : PartialShape, sequence or str
        The shape of ``data``: ints, ``Dimension`` s, strings (``"2..10"``, ``"?"``), or a string
        in OpenVINO's notation such as ``"[?,2..10,12]"`` or ``"[...]"`` (dynamic rank).
    begin, end, stride : sequence of int, integer array, or Unknown
        As for :func:`strided_slice`; ``UNKNOWN`` (or ``Unknown(n)``, of known length ``n``)
        for a value only known at run time. ``stride=None`` means all ones.
    begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask : sequence of 0/1
        As for :func:`strided_slice`.

    Returns
    -------
    PartialShape
        The output shape. Each dimension is the exact range of lengths over every input size
        that ``shape`` allows (tighter than OpenVINO, which often answers ``?``). ``[...]`` when
        the input rank is unknown, or the number of addressed axes is and a new-axis or shrink
        bit may change the rank.

    Raises
    ------
    ValidationError
        For every input that OpenVINO rejects, and where no input size could run (a shrink
        index beyond every possible size).

    Examples
    --------
    >>> print(infer_strided_slice([2, 3, 4], [1, 0, 0], [0, 0, 2],
    ...                           begin_mask=[0, 1, 1], end_mask=[1, 1, 0]))
    [1,3,2]
    >>> print(infer_strided_slice("[?,2..10,12]", [0, 1], [0, 5], begin_mask=[1, 0],
    ...                           end_mask=[1, 0]))
    [?,1..4,12]
    >>> from datamove import UNKNOWN
    >>> print(infer_strided_slice([10, 20, 30], [0, 0, 0], [5, 5, 5], UNKNOWN))
    [..5,..5,..5]
    """
    ps = as_partial_shape(shape, OP, "shape")
    p = checked_params(
        begin, end, stride, begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask
    )
    if ps.rank is None:
        _zero_strides(p)  # on every rank
        return PartialShape(None)
    if p.addressed is None:
        return _unknown_count(ps.dims, p)
    steps = _walk_for(p, ps.rank, begin)
    b = None if isinstance(p.begin, Unknown) else p.begin
    e = None if isinstance(p.end, Unknown) else p.end
    s = None if isinstance(p.stride, Unknown) else p.stride
    dims = ps.dims
    out: list[Dimension] = []
    for step in steps:
        if step.kind == NEW:
            out.append(Dimension(1))
        elif step.kind == KEEP:
            out.append(dims[step.axis])
        elif step.kind == SHRINK:
            dim = dims[step.axis]
            if b is None:
                if dim.max == 0:  # no begin can index an axis of size 0
                    raise ValidationError(
                        OP,
                        f"shrink_axis_mask[{step.i}]",
                        1,
                        f"shrinks data.shape[{step.axis}], of size 0: no begin can index it",
                    )
            elif dim.max is not None:  # some size in dim must take the index
                _shrink_index(dim.max, b[step.i], step.i)
            elif not -INT64_MAX < b[step.i] < INT64_MAX - 1:  # sizes below INT64_MAX take it
                raise ValidationError(
                    OP,
                    f"begin[{step.i}]",
                    b[step.i],
                    f"is out of range for the axis shrunk by shrink_axis_mask[{step.i}]: no size "
                    f"in data.shape[{step.axis}]={dim} takes it",
                    hint="an unbounded dimension holds the sizes below 2**63 - 1",
                )
        else:
            i = step.i
            out.append(
                range_length(
                    dims[step.axis],
                    None if b is None else b[i],
                    None if e is None else e[i],
                    None if s is None else s[i],
                    p.begin_mask[i],
                    p.end_mask[i],
                )
            )
    return PartialShape._of(tuple(out))


def _unknown_count(dims: tuple[Dimension, ...], p: Params) -> PartialShape:
    """The output shape where the number of addressed axes ``n`` (``len(begin)``) is unknown.

    A new-axis or shrink bit at index ``i`` acts only where ``n > i``, so then the rank itself
    is unknown (``[...]``). Without them the output has the input's rank, and each input axis
    is kept whole (``n`` can be 0) or sliced, with unknown values, by one of the indices that
    can reach it: index ``j`` for axis ``j``; with an ellipsis bit at ``e``, any of
    ``e + 1 .. j + 1`` for an axis ``j >= e`` (the ellipsis, when ``n > e``, keeps
    ``rank - n + 1`` axes from ``e``). Each index brings its begin and end mask bits.
    """
    if any(p.new_axis_mask) or any(p.shrink_axis_mask):
        return PartialShape(None)
    e = p.ellipsis_mask.index(1) if any(p.ellipsis_mask) else None

    def bits(mask: tuple[int, ...], i: int) -> int:
        return mask[i] if i < len(mask) else 0

    out = []
    for j, d in enumerate(dims):
        indices = range(j, j + 1) if e is None or j < e else range(e + 1, j + 2)
        hull = d
        for i in indices:
            got = range_length(d, None, None, None, bits(p.begin_mask, i), bits(p.end_mask, i))
            hull = hull.union(got)
        out.append(hull)
    return PartialShape._of(tuple(out))


# -- execution -----------------------------------------------------------------------------------
def past_numpy_rank(op: str, infer: str, argument: str, value: Any, made: str) -> BackendError:
    """An output past NumPy's rank: a ``BackendError``, the one wording of every operator.

    The limit is the executing library's (NumPy's), not a rule of the operator: shape inference
    (``infer``) has none. ``made`` says what made the output's rank, ``argument`` (its ``value``)
    the parameter that did: ``data.shape`` (``"has rank 65"``), or new axes (StridedSlice).
    """
    rule = f"{made}, {PAST_NUMPY_RANK}"
    hint = f"{infer} gives the shape of any rank; execution is NumPy's"
    return BackendError(op, argument, value, rule, hint=hint)


def _over_numpy_rank(
    shape: tuple[int, ...], steps: tuple[Step, ...], rank: int, new_axis_mask: Any
) -> BackendError:
    """The output's ``rank`` is past NumPy's: named by what made it, new axes or the data's own."""
    new = sum(1 for step in steps if step.kind == NEW)
    shrunk = len(shape) + new - rank
    if new:
        argument, value = "new_axis_mask", new_axis_mask
        made = f"adds {new} {'axis' if new == 1 else 'axes'} to data.shape={show(list(shape))}"
    else:
        argument, value, made = "data.shape", list(shape), f"has rank {len(shape)}"
    if shrunk:
        made += f" and shrink_axis_mask removes {shrunk}"
    if new or shrunk:  # the output's rank is not the data's: say it
        made += f": the output would have rank {rank}"
    return past_numpy_rank(OP, "infer_strided_slice", argument, value, made)


def numpy_index(
    shape: tuple[int, ...],
    begin: Any,
    end: Any,
    stride: Any = None,
    begin_mask: Any = (),
    end_mask: Any = (),
    new_axis_mask: Any = (),
    shrink_axis_mask: Any = (),
    ellipsis_mask: Any = (),
) -> _plan.Index:
    """The NumPy basic index that StridedSlice-1 is equivalent to, for a concrete shape.

    Examples
    --------
    >>> numpy_index((2, 3, 4), [1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0])
    (slice(1, 2, None), slice(None, None, None), slice(0, 2, None))
    """
    hint = "UNKNOWN is for shape inference (infer_strided_slice)"
    check_concrete(OP, hint, begin=begin, end=end, stride=stride)
    p = checked_params(
        begin, end, stride, begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask
    )
    steps = _walk_for(p, len(shape), begin)
    assert not isinstance(p.begin, Unknown)
    assert not isinstance(p.end, Unknown)
    assert not isinstance(p.stride, Unknown)
    index: list[Any] = []
    for step in steps:
        if step.kind == NEW:
            index.append(None)
        elif step.kind == KEEP:
            index.append(slice(None))
        elif step.kind == SHRINK:
            d = shape[step.axis]
            index.append(_shrink_index(d, p.begin[step.i], step.i))
        else:
            i = step.i
            s = p.stride[i]
            if takes_whole(p.begin[i], p.end[i], s, p.begin_mask[i], p.end_mask[i]):
                index.append(slice(None))  # its size unread: Dask may not know it
                continue
            d = shape[step.axis]
            if d == 0:
                index.append(slice(0, 0, 1))
            else:
                start, stop = clamp_bounds(
                    d, p.begin[i], p.end[i], s, p.begin_mask[i], p.end_mask[i]
                )
                if s == 1:
                    index.append(slice(None) if start == 0 and stop == d else slice(start, stop))
                else:
                    # |stride| >= d selects at most one element: clamp it so NumPy cannot overflow.
                    s = max(min(s, d), -d)
                    index.append(slice(start, None if stop < 0 else stop, s))
    if all(step.kind == KEEP for step in steps):  # trailing whole axes need no index entry
        return (Ellipsis,)
    rank = sum(1 for step in steps if step.kind != SHRINK)
    if rank > NUMPY_MAXDIMS:
        raise _over_numpy_rank(shape, steps, rank, new_axis_mask)
    while index and index[-1] == slice(None):
        index.pop()
    if rank == 0:  # every axis shrunk: keep a 0-d array, not a NumPy scalar
        index.append(Ellipsis)
    return tuple(index)


def _build(shape: tuple[int, ...], *params: Any) -> _plan.Plan:
    """The plan of StridedSlice-1 on ``shape``: one NumPy basic index (``params`` in order)."""
    return _plan.single(numpy_index(shape, *params))


_CODE: Final = _plan.STRIDED_SLICE
_NDARRAY: Final = np.ndarray


def plan_strided_slice(
    shape: tuple[int, ...],
    begin: Any,
    end: Any,
    stride: Any = None,
    *,
    begin_mask: Any = (),
    end_mask: Any = (),
    new_axis_mask: Any = (),
    shrink_axis_mask: Any = (),
    ellipsis_mask: Any = (),
) -> _plan.Plan:
    """The (cached) plan of StridedSlice-1 on a concrete shape.

    Examples
    --------
    >>> plan = plan_strided_slice((2, 3), [1, 0], [0, 2], begin_mask=[0, 1], end_mask=[1, 0])
    >>> plan.indices
    ((slice(1, 2, None), slice(0, 2, None)),)
    """
    params = (begin, end, stride, begin_mask, end_mask, new_axis_mask, shrink_axis_mask)
    return _plan.plan_for(_CODE, shape, (*params, ellipsis_mask), _build)


def strided_slice(
    data: Any,
    begin: Any,
    end: Any,
    stride: Any = None,
    *,
    begin_mask: Any = (),
    end_mask: Any = (),
    new_axis_mask: Any = (),
    shrink_axis_mask: Any = (),
    ellipsis_mask: Any = (),
    copy: bool | None = None,
    out: Any = None,
) -> Any:
    """Extract a strided slice of ``data``, exactly as OpenVINO's StridedSlice-1.

    Parameters
    ----------
    data : array
        A NumPy array (or any array the backend layer supports; see the README).
    begin, end : sequence of int or 1-D integer array
        Start and end index per addressed axis. Out-of-range values are clamped as OpenVINO
        clamps them; negative values count from the end.
    stride : sequence of int or 1-D integer array, optional
        Step per addressed axis; ``None`` means all ones. Zero only on new or shrunk axes.
    begin_mask, end_mask : sequence of 0/1, optional
        1 ignores ``begin[i]`` / ``end[i]`` and takes the whole extent in the stride's direction.
    new_axis_mask : sequence of 0/1, optional
        1 inserts an axis of length 1 at output position ``i``.
    shrink_axis_mask : sequence of 0/1, optional
        1 takes the single element ``begin[i]`` and removes the axis (``end``, ``stride`` and
        the begin/end masks are ignored there; the index must be in range).
    ellipsis_mask : sequence of 0/1, optional
        At most one 1: the input axes not addressed elsewhere are kept whole at that position.
    copy : bool or None, optional
        ``None``: a view sharing memory with ``data`` where the library allows it (NumPy always
        does). ``True``: an independent, C-contiguous array. ``False``: a view or an error.
    out : array, optional
        A preallocated array of the output's shape and dtype to copy the result into. It must
        not share memory with ``data``.

    Returns
    -------
    array
        The slice, of the same element type as ``data``. Masks shorter than ``begin`` are
        zero-padded and bits beyond ``len(begin)`` are ignored.

    Raises
    ------
    ValidationError
        With the operator, the argument, the value and the rule broken.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(24).reshape(2, 3, 4)
    >>> strided_slice(x, [1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0]).shape
    (1, 3, 2)
    >>> strided_slice(np.arange(6), [-100], [-200], [-1])   # NumPy's x[-100:-200:-1] is empty
    array([0])
    >>> strided_slice(x, [0, 1], [0, 0], shrink_axis_mask=[0, 1], new_axis_mask=[1, 0]).shape
    (1, 3, 4)
    """
    if type(data) is _NDARRAY and copy is None and out is None:  # a stored NumPy plan; never
        # asked for a tensor, which dynamo would meet under torch.compile and cannot trace
        result = _plan.hit(
            _plan.PLANS,
            _NDARRAY,
            _CODE,
            data,
            begin,
            end,
            stride,
            begin_mask,
            end_mask,
            new_axis_mask,
            shrink_axis_mask,
            ellipsis_mask,
        )
        if result is not None:
            return result
    backend, arr, shape = _backends.prepare(OP, data)
    plan = plan_strided_slice(
        shape,
        begin,
        end,
        stride,
        begin_mask=begin_mask,
        end_mask=end_mask,
        new_axis_mask=new_axis_mask,
        shrink_axis_mask=shrink_axis_mask,
        ellipsis_mask=ellipsis_mask,
    )
    return _backends.take_single(OP, backend, plan, arr, copy, out)
