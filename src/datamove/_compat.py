"""The edge between the operators and array libraries.

The operators compute, from shapes alone, NumPy-style *basic indices* (tuples of ints, slices
with any step, ``None`` and ``Ellipsis``). This module applies them to the caller's arrays:
``prepare`` finds the array's shape, ``take`` turns indices into results and honours ``copy=``
and ``out=``. NumPy is handled natively; every other library goes through the array API
(``array_api_compat.array_namespace``), imported only when such an array arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from datamove._errors import BackendError, DTypeError, ValidationError, ViewError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ndarray", "prepare", "take"]

ndarray = np.ndarray

Index = tuple[Any, ...]


def prepare(op: str, data: Any) -> tuple[Any, tuple[int, ...]]:
    """Return ``(array, shape)`` for what the caller passed as ``data``.

    NumPy arrays (and subclasses) pass through; Python scalars, lists and tuples become NumPy
    arrays; any other object must be an array API array with a known shape.
    """
    if isinstance(data, np.ndarray):
        return data, data.shape
    if isinstance(data, np.generic | int | float | complex | bool | list | tuple):
        arr = np.asarray(data)
        if arr.dtype == object and isinstance(data, list | tuple):
            raise DTypeError(op, "data", data, "is a ragged sequence, not an array")
        return arr, arr.shape
    if not hasattr(data, "__array_namespace__") and not _is_known_array(data):
        raise DTypeError(op, "data", data, f"must be an array, not {type(data).__name__}")
    shape = tuple(data.shape)
    for size in shape:
        if not isinstance(size, int):
            raise BackendError(
                op,
                "data",
                data,
                f"has shape {shape} with a size that is not known ({size!r})",
                hint="compute the sizes first (Dask: x.compute_chunk_sizes())",
            )
    return data, shape


def _is_known_array(data: Any) -> bool:
    try:
        from array_api_compat import is_array_api_obj  # noqa: PLC0415 - only for foreign arrays
    except ImportError:  # pragma: no cover - array-api-compat is a runtime dependency
        return False
    return bool(is_array_api_obj(data))


def take(
    op: str,
    data: Any,
    indices: Sequence[Index],
    *,
    copy: bool | None,
    out: Sequence[Any] | None,
) -> tuple[Any, ...]:
    """Apply each basic index to ``data``; views, copies or writes into ``out`` as asked."""
    if copy not in (None, True, False):
        raise DTypeError(op, "copy", copy, "must be None, True or False")
    if isinstance(data, np.ndarray):
        views = [data[index] for index in indices]
        if out is not None:
            return _into(op, views, out)
        if copy:
            return tuple(np.array(v, copy=True, order="C") for v in views)
        return tuple(views)
    return _take_foreign(op, data, indices, copy=copy, out=out)


def _into(op: str, results: Sequence[Any], out: Sequence[Any]) -> tuple[Any, ...]:
    if not isinstance(out, list | tuple):
        raise DTypeError(op, "out", out, "must be a sequence of arrays, one per output")
    if len(out) != len(results):
        raise ValidationError(
            op,
            "out",
            f"<{len(out)} arrays>",
            f"has {len(out)} arrays, but there are {len(results)} outputs",
        )
    for k, (dst, src) in enumerate(zip(out, results, strict=True)):
        if not isinstance(dst, np.ndarray):
            raise DTypeError(op, f"out[{k}]", dst, "must be a NumPy array, like data")
        if dst.shape != src.shape:
            raise ValidationError(
                op,
                f"out[{k}]",
                f"<array of shape {list(dst.shape)}>",
                f"has shape {list(dst.shape)}, but output {k} has shape {list(src.shape)}",
            )
        if dst.dtype != src.dtype:
            raise DTypeError(
                op,
                f"out[{k}]",
                f"<array of dtype {dst.dtype}>",
                f"has dtype {dst.dtype}, but output {k} has dtype {src.dtype}; values are "
                "never converted",
            )
        if not dst.flags.writeable:
            raise ValidationError(op, f"out[{k}]", "<read-only array>", "is read-only")
        if np.shares_memory(dst, src):
            raise ValidationError(
                op, f"out[{k}]", "<array>", "overlaps the input; out must not alias data"
            )
    for dst, src in zip(out, results, strict=True):
        np.copyto(dst, src, casting="no")
    return tuple(out)


def _take_foreign(
    op: str, data: Any, indices: Sequence[Index], *, copy: bool | None, out: Sequence[Any] | None
) -> tuple[Any, ...]:
    from array_api_compat import array_namespace  # noqa: PLC0415 - only for foreign arrays

    xp = array_namespace(data)
    results = []
    for index in indices:
        if any(isinstance(k, slice) and (k.step or 1) < 0 for k in index):
            raise BackendError(
                op,
                "data",
                f"<{type(data).__name__}>",
                "needs a negative-step slice, which "
                "this array library's support in datamove does not cover yet",
            )
        results.append(data[index])
    if out is not None:
        raise BackendError(op, "out", out, "is supported for NumPy arrays only so far")
    if copy is False:
        raise ViewError(
            op, "copy", copy, f"cannot promise views for {type(data).__name__} arrays yet"
        )
    if copy:
        return tuple(xp.asarray(r, copy=True) for r in results)
    return tuple(results)
