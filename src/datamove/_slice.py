"""Slice-8: plan, shape inference and execution.

Slice-8 takes ``start``, ``stop`` and ``step`` per listed axis (``axes``, by default the first
``len(start)`` axes). Each listed axis is clamped as OpenVINO's runtime clamps it, which is
ONNX Slice's rule and StridedSlice-1's without masks (``_strided_slice.clamp_bounds``): with a
negative step a start below ``-dim`` starts at index 0, where Python's slicing gives nothing
(the spec's "the rules follow python language slicing" is a divergence, docs/semantics.md).
So one function clamps both operators, and one interval rule (``_strided_slice.range_length``)
infers both.
"""

from __future__ import annotations

import builtins
from typing import Any, Final

import numpy as np

from datamove import _backends, _plan
from datamove._errors import ValidationError, plural
from datamove._memo import memoize
from datamove._shape import PartialShape, ShapeLike, Unknown, as_partial_shape
from datamove._strided_slice import (
    NUMPY_MAXDIMS,
    clamp_bounds,
    past_numpy_rank,
    range_length,
    takes_whole,
)
from datamove._validation import Vector, check_concrete, index_vector, normalize_axis, vector_length

__all__ = ["infer_slice", "plan_slice", "slice"]

OP: Final = "Slice"
_CODE: Final = _plan.SLICE
_NDARRAY: Final = np.ndarray
_py_slice: Final = builtins.slice  # this module's `slice` is the operator


def _params(
    start: Any, stop: Any, step: Any, axes: Any
) -> tuple[Vector, Vector, Vector, Vector | None, int | None]:
    """The checked vectors and their common length (``None`` while unknown)."""
    b, e, s = (
        index_vector(OP, n, v) for n, v in (("start", start), ("stop", stop), ("step", step))
    )
    a = None if axes is None else index_vector(OP, "axes", axes)
    n = None
    for name, given, v in (("start", start, b), ("stop", stop, e), ("step", step, s)):
        k = vector_length(v)
        if k is None:
            continue
        if n is None:
            n = k
        elif k != n:
            raise ValidationError(
                OP,
                name,
                given,
                f"has {plural(k, 'value')}, but start has {n}; start, stop and step need the same "
                "number of values",
            )
    k = vector_length(a)
    if k is not None and n is not None and k != n:
        raise ValidationError(
            OP, "axes", axes, f"has {plural(k, 'value')}, but start, stop and step have {n}"
        )
    if n is None:
        n = k
    if not isinstance(s, Unknown):
        for i, x in enumerate(s):
            if x == 0:
                raise ValidationError(OP, f"step[{i}]", 0, "is zero; step must be non-zero")
    return b, e, s, a, n


def _check_rank(rank: int) -> None:
    """Slice-8 takes data of rank 1 or more (the spec; OpenVINO: "can't be a scalar")."""
    if rank == 0:
        raise ValidationError(
            OP, "data.shape", [], "is a scalar (rank 0); Slice needs data of rank 1 or more"
        )


def _axes(start: Any, axes: Any, a: Vector | None, n: int, rank: int) -> tuple[int, ...]:
    """The listed axes, each in ``[0, rank)``, none twice (``axes=None``: the first ``n``)."""
    if n > rank:
        raise ValidationError(
            OP,
            "start",
            start,
            f"has {plural(n, 'value')}, more than the {plural(rank, 'axis', 'axes')} of data",
        )
    if a is None:
        return tuple(range(n))
    assert not isinstance(a, Unknown)
    out = tuple(normalize_axis(OP, f"axes[{i}]", v, v, rank) for i, v in enumerate(a))
    if len(set(out)) != len(out):
        first = next(v for v in out if out.count(v) > 1)
        raise ValidationError(
            OP, "axes", axes, f"lists axis {first} twice; each axis can be sliced once"
        )
    return out


@memoize
def infer_slice(
    shape: ShapeLike, start: Any, stop: Any, step: Any, axes: Any = None
) -> PartialShape:
    """Infer the output shape of Slice-8 on a static or dynamic input shape.

    Parameters
    ----------
    shape : PartialShape, sequence or str
        The shape of ``data``, e.g. ``"[?,2..10,12]"``: rank 1 or more (or dynamic).
    start, stop, step : sequence of int, integer array, or Unknown
        One value per sliced axis; ``UNKNOWN`` or ``Unknown(n)`` for values known only at run
        time. ``step`` must not hold 0.
    axes : sequence of int, integer array, Unknown or None
        The axes sliced, in any order, none twice; ``None``: the first ``len(start)`` axes.

    Returns
    -------
    PartialShape
        Each sliced dimension is the exact range of lengths over every size the input allows
        (an interval); the other dimensions are the input's.

    Examples
    --------
    >>> print(infer_slice([2, 3, 4], [1, -1], [2, -4], [1, -1], axes=[0, 2]))
    [1,3,3]
    >>> print(infer_slice("[?,4]", [-4], [-4], [-1]))
    [..1,4]
    """
    ps = as_partial_shape(shape, OP, "shape")
    b, e, s, a, n = _params(start, stop, step, axes)
    if ps.rank is None:
        if a is not None and not isinstance(a, Unknown) and len(set(a)) != len(a):
            first = next(v for v in a if a.count(v) > 1)  # twice on every rank
            raise ValidationError(
                OP, "axes", axes, f"lists axis {first} twice; each axis can be sliced once"
            )
        return PartialShape(None)
    dims = list(ps.dims)
    rank = len(dims)
    _check_rank(rank)

    def value(v: Vector, i: int | None) -> int | None:
        return None if isinstance(v, Unknown) or i is None else v[i]

    if n is not None and (a is None or not isinstance(a, Unknown)):
        for i, axis in enumerate(_axes(start, axes, a, n, rank)):
            dims[axis] = range_length(dims[axis], value(b, i), value(e, i), value(s, i), 0, 0)
        return PartialShape._of(tuple(dims))
    # Which axes are sliced is not known: each may be sliced (by any of the n entries) or not.
    if n is not None and n > rank:
        _axes(start, None, None, n, rank)
    entries: list[int | None] = list(range(n)) if n is not None else [None]
    out = []
    for d in dims:
        hull = None if n == rank else d  # n distinct axes of n: every one is sliced
        for entry in entries:
            got = range_length(d, value(b, entry), value(e, entry), value(s, entry), 0, 0)
            hull = got if hull is None else hull.union(got)
        out.append(d if hull is None else hull)
    return PartialShape._of(tuple(out))


def _build(shape: tuple[int, ...], start: Any, stop: Any, step: Any, axes: Any) -> _plan.Plan:
    """The plan of Slice-8 on ``shape``: one NumPy basic index."""
    hint = "UNKNOWN is for shape inference (infer_slice)"
    check_concrete(OP, hint, start=start, stop=stop, step=step, axes=axes)
    b, e, s, a, n = _params(start, stop, step, axes)
    assert not isinstance(b, Unknown)
    assert not isinstance(e, Unknown)
    assert not isinstance(s, Unknown)
    assert n is not None
    rank = len(shape)
    _check_rank(rank)
    if rank > NUMPY_MAXDIMS:  # no NumPy array's: a JAX array's (dm.slice), explain slice's
        raise past_numpy_rank(OP, "infer_slice", "data.shape", list(shape), f"has rank {rank}")
    index: list[Any] = [_py_slice(None)] * rank
    for i, axis in enumerate(_axes(start, axes, a, n, rank)):
        if takes_whole(b[i], e[i], s[i], 0, 0):
            continue  # its size unread: Dask may not know it
        d = shape[axis]
        if d == 0:
            index[axis] = _py_slice(0, 0, 1)
            continue
        lo, hi = clamp_bounds(d, b[i], e[i], s[i], 0, 0)
        step_i = max(min(s[i], d), -d)  # |step| >= d takes one element: no NumPy overflow
        if step_i == 1:
            index[axis] = _py_slice(None) if lo == 0 and hi == d else _py_slice(lo, hi)
        else:
            index[axis] = _py_slice(lo, None if hi < 0 else hi, step_i)
    while index and index[-1] == _py_slice(None):
        index.pop()
    return _plan.single((*index, Ellipsis) if not index else tuple(index))


def plan_slice(shape: tuple[int, ...], start: Any, stop: Any, step: Any, axes: Any = None) -> Any:
    """The (cached) plan of Slice-8 on a concrete shape."""
    return _plan.plan_for(_CODE, shape, (start, stop, step, axes), _build)


def slice(  # noqa: A001 - the spec's name; datamove.slice, as dm.split
    data: Any,
    start: Any,
    stop: Any,
    step: Any,
    axes: Any = None,
    *,
    copy: bool | None = None,
    out: Any = None,
) -> Any:
    """Slice ``data`` by start, stop and step per axis, exactly as OpenVINO's Slice-8.

    Parameters
    ----------
    data : array
        A NumPy array (or any array the backend layer supports; see the README), of rank 1 or
        more.
    start, stop : sequence of int or 1-D integer array
        One value per sliced axis. Negative values count from the end; values past the ends
        are clamped as OpenVINO clamps them (``INT64_MAX``/``INT64_MIN`` mean "to the end").
    step : sequence of int or 1-D integer array
        One non-zero value per sliced axis; negative steps go backwards.
    axes : sequence of int or 1-D integer array, optional
        The axes sliced, in any order, none twice; by default the first ``len(start)``.
    copy : bool or None, optional
        As for :func:`datamove.strided_slice`.
    out : array, optional
        A preallocated array of the output's shape and dtype to copy the result into.

    Returns
    -------
    array
        The slice, of the same element type as ``data``.

    Raises
    ------
    ValidationError
        With the operator, the argument, the value and the rule broken.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(12).reshape(3, 4)
    >>> slice(x, [1, 3], [3, 0], [1, -2], axes=[0, 1]).tolist()
    [[7, 5], [11, 9]]
    >>> slice(np.arange(1), [-3], [-6], [-3]).tolist()   # Python's x[-3:-6:-3] is empty
    [0]
    """
    if type(data) is _NDARRAY and copy is None and out is None:  # a stored NumPy plan; never
        # asked for a tensor, which dynamo would meet under torch.compile and cannot trace
        result = _plan.hit(_plan.PLANS, _NDARRAY, _CODE, data, start, stop, step, axes)
        if result is not None:
            return result
    backend, arr, shape = _backends.prepare(OP, data)
    plan = plan_slice(shape, start, stop, step, axes)
    return _backends.take_single(OP, backend, plan, arr, copy, out)
