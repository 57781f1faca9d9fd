"""Split-1 and VariadicSplit-1: plans, shape inference and execution.

Both operators cut ``data`` along one axis into consecutive chunks. The per-dimension rules
(``_split_dim``, ``_variadic_dims``) are the one source of truth: shape inference applies them to
``Dimension`` intervals, and execution applies them to the concrete size, then takes one basic
index per chunk.
"""

from __future__ import annotations

import itertools
from typing import Any, Final

import numpy as np

from datamove import _backends, _plan
from datamove._errors import ValidationError
from datamove._memo import memoize
from datamove._shape import (
    HUGE_LENGTH,
    MAX_LENGTH,
    Dimension,
    PartialShape,
    ShapeLike,
    Unknown,
    as_partial_shape,
    largest,
)
from datamove._validation import as_int, as_int_vector, check_concrete, normalize_axis

__all__ = [
    "infer_split",
    "infer_variadic_split",
    "output_count",
    "plan_split",
    "plan_variadic_split",
    "split",
    "variadic_split",
]

SPLIT: Final = "Split"
VARIADIC: Final = "VariadicSplit"
_SPLIT: Final = _plan.SPLIT  # the operators' codes in the plan cache's keys
_VARIADIC: Final = _plan.VARIADIC_SPLIT
_NDARRAY: Final = np.ndarray


# -- arguments -----------------------------------------------------------------------------------
def output_count(op: str, argument: str, value: Any, low: str = "must be greater than zero") -> int:
    """A number of outputs, in ``[1, MAX_LENGTH]``; ``low`` is the rule broken below 1."""
    n = as_int(op, argument, value)
    if n < 1:
        raise ValidationError(op, argument, value, low)
    if n > MAX_LENGTH:
        rule = f"is more than {MAX_LENGTH} (MAX_LENGTH), the most outputs datamove makes"
        raise ValidationError(op, argument, value, rule)
    return n


def _shape_of(value: Any) -> list[int] | None:
    """``value``'s shape, or None for a ragged sequence (NumPy refuses those)."""
    try:
        return list(np.shape(value))
    except ValueError:
        return None


def _shape_words(shape: list[int] | None) -> str:
    return "is a ragged sequence" if shape is None else f"has shape {shape}"


def _split_axis(value: Any) -> int | Unknown:
    if isinstance(value, Unknown):
        return value
    if isinstance(value, list | tuple) or (isinstance(value, np.ndarray) and value.ndim != 0):
        raise ValidationError(
            SPLIT,
            "axis",
            value,
            f"must be a scalar, but {_shape_words(_shape_of(value))}",
            hint="Split-1 takes a scalar axis; VariadicSplit-1 also accepts shape [1]",
        )
    return as_int(SPLIT, "axis", value)


def _variadic_axis(value: Any) -> int | Unknown:
    if isinstance(value, Unknown):
        if value.length not in (None, 1):
            raise ValidationError(VARIADIC, "axis", value, "must be a scalar or of shape [1]")
        return value
    if isinstance(value, list | tuple) or (isinstance(value, np.ndarray) and value.ndim != 0):
        shape = _shape_of(value)
        if shape != [1]:
            raise ValidationError(
                VARIADIC,
                "axis",
                value,
                f"must be a scalar or of shape [1], but {_shape_words(shape)}",
            )
        (only,) = as_int_vector(VARIADIC, "axis", value)
        return only
    return as_int(VARIADIC, "axis", value)


def variadic_lengths(op: str, argument: str, value: Any) -> tuple[int, ...]:
    """VariadicSplit's lengths: each ``>= -1``, ``-1`` once at most (``Splitting`` reads so too)."""
    lengths = as_int_vector(op, argument, value)
    for k, v in enumerate(lengths):
        if v < -1:
            rule = f"holds {v} at index {k}; every length must be >= -1"
            raise ValidationError(op, argument, value, rule)
    minus_ones = [k for k, v in enumerate(lengths) if v == -1]
    if len(minus_ones) > 1:
        raise ValidationError(
            op,
            argument,
            value,
            f"holds -1 at indices {minus_ones[0]} and {minus_ones[1]}; at most one length can "
            "be inferred",
        )
    return lengths


def _lengths(value: Any) -> tuple[int, ...] | Unknown:
    if isinstance(value, Unknown):
        if value.length is None:
            raise ValidationError(
                VARIADIC,
                "split_lengths",
                value,
                "has an unknown length, so the number of outputs is unknown",
                hint="pass Unknown(n) when split_lengths is a 1-D value of known length n",
            )
        return value
    return variadic_lengths(VARIADIC, "split_lengths", value)


# -- the per-dimension rules ---------------------------------------------------------------------
def _split_dim(
    d: Dimension, n: int, where: str, value: Any, *, openvino_rule: bool = True
) -> Dimension:
    """The chunk size of Split on a dimension of size ``d`` (an interval: the exact range).

    ``openvino_rule`` keeps OpenVINO's "interval maximum >= num_splits" verdict for a known axis;
    with an unknown axis only the exact rule applies (some size in ``d`` is divisible).
    """
    if d.is_static:
        if d.min % n:
            raise ValidationError(
                SPLIT,
                "num_splits",
                value,
                f"must divide {where}={d.min} evenly",
            )
        return Dimension(d.min // n)
    if openvino_rule and d.max is not None and d.max < n:
        # OpenVINO's rule for intervals, kept for the same verdict (datamove would not need it).
        raise ValidationError(
            SPLIT,
            "num_splits",
            value,
            f"is larger than the interval maximum of {where}={d}",
        )
    lo = -(-d.min // n)
    hi = largest(d) // n
    if lo > hi:
        raise ValidationError(
            SPLIT,
            "num_splits",
            value,
            f"divides no size in {where}={d}",
        )
    return Dimension(lo, _unbounded_if_huge(d, lo, hi))


def _unbounded_if_huge(d: Dimension, lo: int, hi: int) -> int | None:
    """``hi``, the largest chunk ``d`` gives (the smallest is ``lo``), or None for unbounded.

    StridedSlice's rule for lengths (``HUGE_LENGTH``): on an unbounded ``d``, a largest chunk
    that grows up to sizes near ``INT64_MAX`` is unbounded when it is ``2**50`` or more, and
    exact below (``[?]`` split by 10000 gives ``[..922337203685477]``).
    """
    return None if d.max is None and hi >= HUGE_LENGTH and hi > lo else hi


def _variadic_dims(
    d: Dimension, lengths: tuple[int, ...], where: str, value: Any
) -> tuple[Dimension, ...]:
    """The chunk sizes of VariadicSplit on a dimension of size ``d`` (``-1`` resolved).

    An unbounded dimension holds the sizes below ``INT64_MAX`` (OpenVINO's mark for
    "unbounded"): lengths that sum past them run on no size.
    """
    known = sum(v for v in lengths if v != -1)
    has_rest = -1 in lengths
    if d.is_static:
        if has_rest:
            if known > d.min:
                raise ValidationError(
                    VARIADIC,
                    "split_lengths",
                    value,
                    f"sum to {known} without the -1, more than {where}={d.min}; the -1 "
                    f"would be {d.min - known}",
                )
        elif known != d.min:
            raise ValidationError(
                VARIADIC,
                "split_lengths",
                value,
                f"sum to {known}, but {where} is {d.min}",
            )
        return tuple(Dimension(d.min - known) if v == -1 else Dimension(v) for v in lengths)
    top = largest(d)
    hint = "an unbounded dimension holds the sizes below 2**63 - 1" if d.max is None else None
    if has_rest:
        if known > top:
            raise ValidationError(
                VARIADIC,
                "split_lengths",
                value,
                f"sum to {known} without the -1, more than any size in {where}={d}",
                hint=hint,
            )
        rest_lo = max(d.min - known, 0)
        rest = Dimension(rest_lo, _unbounded_if_huge(d, rest_lo, top - known))
    else:
        if not d.min <= known <= top:
            raise ValidationError(
                VARIADIC,
                "split_lengths",
                value,
                f"sum to {known}, which no size in {where}={d} matches",
                hint=hint,
            )
        rest = Dimension(0)
    return tuple(rest if v == -1 else Dimension(v) for v in lengths)


# -- shape inference -----------------------------------------------------------------------------
@memoize
def infer_split(shape: ShapeLike, axis: Any, num_splits: Any) -> tuple[PartialShape, ...]:
    """Infer the output shapes of Split-1 on a static or dynamic input shape.

    Parameters
    ----------
    shape : PartialShape, sequence or str
        The shape of ``data`` (``"[?,2..10,12]"``, ``[6, 12, 10, 24]``, ``"[...]"`` ...).
    axis : int or Unknown
        The scalar axis, or ``UNKNOWN`` when it is only known at run time.
    num_splits : int
        The number of outputs.

    Returns
    -------
    tuple of PartialShape
        ``num_splits`` equal shapes. On an interval the chunk size is the exact range over the
        sizes that ``num_splits`` divides (OpenVINO computes a looser one in float32). With an
        unknown axis, every dimension is the hull of "this axis was split" and "it was not".

    Raises
    ------
    ValidationError
        As OpenVINO: a non-scalar axis, an axis out of range, ``num_splits < 1``, a size
        ``num_splits`` does not divide; and an interval that ``num_splits`` divides nowhere.

    Examples
    --------
    >>> [str(s) for s in infer_split([6, 12, 10, 24], 1, 3)]
    ['[6,4,10,24]', '[6,4,10,24]', '[6,4,10,24]']
    >>> print(infer_split("[2..10,4]", 0, 3)[0])
    [1..3,4]
    >>> from datamove import UNKNOWN
    >>> print(infer_split([4, 6], UNKNOWN, 2)[0])
    [2..4,3..6]
    """
    n = output_count(SPLIT, "num_splits", num_splits)
    ax = _split_axis(axis)
    ps = as_partial_shape(shape, SPLIT, "shape")
    if ps.rank is None:
        return (ps,) * n
    dims = ps.dims
    if isinstance(ax, Unknown):
        out = _unknown_axis(
            dims,
            lambda j, d: (_split_dim(d, n, f"data.shape[{j}]", n, openvino_rule=False),),
            SPLIT,
        )
        return (PartialShape._of(tuple(o[0] for o in out)),) * n
    a = normalize_axis(SPLIT, "axis", axis, ax, ps.rank)
    chunk = _split_dim(dims[a], n, f"data.shape[{a}]", num_splits)
    return (PartialShape._of((*dims[:a], chunk, *dims[a + 1 :])),) * n


@memoize
def infer_variadic_split(
    shape: ShapeLike, axis: Any, split_lengths: Any
) -> tuple[PartialShape, ...]:
    """Infer the output shapes of VariadicSplit-1 on a static or dynamic input shape.

    Parameters
    ----------
    shape : PartialShape, sequence or str
        The shape of ``data``.
    axis : int, sequence of one int, or Unknown
        A scalar or a value of shape ``[1]``; ``UNKNOWN`` when only known at run time.
    split_lengths : sequence of int, 1-D integer array, or Unknown(n)
        The chunk lengths, one of them possibly ``-1`` (the rest). ``Unknown(n)`` when only the
        number of outputs ``n`` is known.

    Returns
    -------
    tuple of PartialShape
        One shape per length. On an interval the ``-1`` chunk is the exact range (OpenVINO
        answers ``?``).

    Raises
    ------
    ValidationError
        As OpenVINO, and where OpenVINO would accept but no input size could run: a ``-1`` that
        resolves to a negative length, lengths whose sum no size in the interval matches.

    Examples
    --------
    >>> [str(s) for s in infer_variadic_split([6, 12, 10, 24], 0, [-1, 2])]
    ['[4,12,10,24]', '[2,12,10,24]']
    >>> [str(s) for s in infer_variadic_split("[2..11]", 0, [2, -1])]
    ['[2]', '[..9]']
    """
    lengths = _lengths(split_lengths)
    ax = _variadic_axis(axis)
    ps = as_partial_shape(shape, VARIADIC, "shape")
    k = lengths.length if isinstance(lengths, Unknown) else len(lengths)
    assert k is not None
    if ps.rank is None:
        return (ps,) * k
    dims = ps.dims

    def chunks(j: int, d: Dimension) -> tuple[Dimension, ...]:
        if isinstance(lengths, Unknown):
            if k == 1:
                return (d,)
            if k == 0 and 0 not in d:
                raise ValidationError(
                    VARIADIC,
                    "split_lengths",
                    split_lengths,
                    f"has no values, but data.shape[{j}]={d} is never 0",
                )
            return (Dimension(0, d.max),) * k
        return _variadic_dims(d, lengths, f"data.shape[{j}]", split_lengths)

    if isinstance(ax, Unknown):
        per_dim = _unknown_axis(dims, chunks, VARIADIC, k)
        return tuple(PartialShape._of(tuple(o[i] for o in per_dim)) for i in range(k))
    a = normalize_axis(VARIADIC, "axis", axis, ax, ps.rank)
    return tuple(PartialShape._of((*dims[:a], c, *dims[a + 1 :])) for c in chunks(a, dims[a]))


def _unknown_axis(
    dims: tuple[Dimension, ...], chunks: Any, op: str, k: int | None = None
) -> list[tuple[Dimension, ...]]:
    """Per input dimension: the hull of "this is the split axis" and "it is not".

    "It is not" is possible only where some other axis can be split; a dimension that is the
    only axis the split can run on is split for sure.
    """
    splits: list[tuple[Dimension, ...] | None] = []
    for j, d in enumerate(dims):
        try:
            splits.append(chunks(j, d))
        except ValidationError:
            splits.append(None)
    runs = [j for j, split in enumerate(splits) if split is not None]
    if not runs:
        raise ValidationError(
            op,
            "axis",
            "UNKNOWN",
            f"cannot be any axis of data of shape "
            f"{PartialShape._of(dims)}: the split is invalid along every one",
        )
    out: list[tuple[Dimension, ...]] = []
    for j, (d, split) in enumerate(zip(dims, splits, strict=True)):
        if split is None:
            out.append((d,) * (k if k is not None else 1))
        elif runs == [j]:
            out.append(split)
        else:
            out.append(tuple(c.union(d) for c in split))
    return out


# -- execution -----------------------------------------------------------------------------------
def _build_split(shape: tuple[int, ...], axis: Any, num_splits: Any) -> _plan.Plan:
    """The plan of Split-1 on ``shape``: ``num_splits`` equal cuts along ``axis``."""
    n = output_count(SPLIT, "num_splits", num_splits)
    ax = _split_axis(axis)
    check_concrete(SPLIT, axis=ax)
    assert not isinstance(ax, Unknown)
    a = normalize_axis(SPLIT, "axis", axis, ax, len(shape))
    size = _split_dim(Dimension(shape[a]), n, f"data.shape[{a}]", num_splits).min
    return _plan.chunks(a, [k * size for k in range(n + 1)])


def _build_variadic_split(shape: tuple[int, ...], axis: Any, split_lengths: Any) -> _plan.Plan:
    """The plan of VariadicSplit-1 on ``shape``: cuts of the given lengths along ``axis``."""
    lengths = _lengths(split_lengths)
    ax = _variadic_axis(axis)
    check_concrete(VARIADIC, axis=ax, split_lengths=lengths)
    assert not isinstance(ax, Unknown)
    assert not isinstance(lengths, Unknown)
    a = normalize_axis(VARIADIC, "axis", axis, ax, len(shape))
    sizes = _variadic_dims(Dimension(shape[a]), lengths, f"data.shape[{a}]", split_lengths)
    return _plan.chunks(a, [0, *itertools.accumulate(s.min for s in sizes)])


def plan_split(shape: tuple[int, ...], axis: Any, num_splits: Any) -> _plan.Plan:
    """The (cached) plan of Split-1 on a concrete shape."""
    return _plan.plan_for(_SPLIT, shape, (axis, num_splits), _build_split)


def plan_variadic_split(shape: tuple[int, ...], axis: Any, split_lengths: Any) -> _plan.Plan:
    """The (cached) plan of VariadicSplit-1 on a concrete shape."""
    return _plan.plan_for(_VARIADIC, shape, (axis, split_lengths), _build_variadic_split)


def split(
    data: Any, axis: Any, num_splits: Any, *, copy: bool | None = None, out: Any = None
) -> Any:
    """Split ``data`` into ``num_splits`` equal chunks along ``axis`` (OpenVINO Split-1).

    Parameters
    ----------
    data : array
        A NumPy array (or any array the backend layer supports; see the README).
    axis : int
        A scalar axis in ``[-rank, rank - 1]``: an int, a NumPy integer or a 0-d integer array.
    num_splits : int
        The number of chunks; it must divide ``data.shape[axis]``.
    copy : bool or None, optional
        ``None``: views sharing memory with ``data`` where the library allows it (NumPy always
        does). ``True``: independent, C-contiguous arrays. ``False``: views or an error.
    out : sequence of arrays, optional
        Preallocated arrays, one per chunk, of the chunk's shape and dtype, to copy into. They
        must not share memory with ``data`` or with each other (the columns of one buffer may
        take the chunks of a last-axis split).

    Returns
    -------
    tuple of arrays
        The chunks in order, of the same element type as ``data``.

    Raises
    ------
    ValidationError
        With the operator, the argument, the value and the rule broken.

    Examples
    --------
    >>> import numpy as np
    >>> a, b, c = split(np.zeros((6, 12, 10, 24)), 1, 3)
    >>> a.shape
    (6, 4, 10, 24)
    >>> split(np.arange(6), 0, 4)
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: Split: num_splits=4 must divide data.shape[0]=6 evenly
    """
    if type(data) is _NDARRAY and copy is None and out is None:  # a stored NumPy plan; never
        # asked for a tensor, which dynamo would meet under torch.compile and cannot trace
        chunks = _plan.hit(_plan.PLANS, _NDARRAY, _SPLIT, data, axis, num_splits)
        if chunks is not None:
            return chunks
    backend, arr, shape = _backends.prepare(SPLIT, data)
    plan = plan_split(shape, axis, num_splits)
    return _backends.take(SPLIT, backend, plan, arr, copy, out)


def variadic_split(
    data: Any, axis: Any, split_lengths: Any, *, copy: bool | None = None, out: Any = None
) -> Any:
    """Split ``data`` along ``axis`` into chunks of the given lengths (OpenVINO VariadicSplit-1).

    Parameters
    ----------
    data : array
        A NumPy array (or any array the backend layer supports; see the README).
    axis : int or sequence of one int
        A scalar or shape-``[1]`` axis in ``[-rank, rank - 1]``.
    split_lengths : sequence of int or 1-D integer array
        The length of each chunk; they sum to ``data.shape[axis]``. One of them may be ``-1``:
        whatever the others leave. Zero lengths give empty chunks.
    copy : bool or None, optional
        As for :func:`split`.
    out : sequence of arrays, optional
        As for :func:`split`.

    Returns
    -------
    tuple of arrays
        One chunk per length, in order.

    Raises
    ------
    ValidationError
        With the operator, the argument, the value and the rule broken.

    Examples
    --------
    >>> import numpy as np
    >>> [c.shape for c in variadic_split(np.zeros((6, 12, 10, 24)), 0, [-1, 2])]
    [(4, 12, 10, 24), (2, 12, 10, 24)]
    >>> variadic_split(np.zeros(6), 0, [1, 2])
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: VariadicSplit: split_lengths=[1, 2] sum to 3, but ...
    """
    if type(data) is _NDARRAY and copy is None and out is None:  # a stored NumPy plan; never
        # asked for a tensor, which dynamo would meet under torch.compile and cannot trace
        chunks = _plan.hit(_plan.PLANS, _NDARRAY, _VARIADIC, data, axis, split_lengths)
        if chunks is not None:
            return chunks
    backend, arr, shape = _backends.prepare(VARIADIC, data)
    plan = plan_variadic_split(shape, axis, split_lengths)
    return _backends.take(VARIADIC, backend, plan, arr, copy, out)
