"""The edge between the operators and array libraries.

The operators compute, from shapes alone, NumPy-style *basic indices* (tuples of ints, slices
with any step, ``None`` and ``Ellipsis``). This module applies them to the caller's arrays:
``prepare`` finds the array's shape, ``take`` turns indices into results and honours ``copy=``
and ``out=``. NumPy is handled here, natively, with the parallel copy engine of
:mod:`datamove._backends._copy`; every other library goes through one backend object of
:mod:`datamove._backends._foreign` (PyTorch, JAX, Dask, CuPy, array-api-strict, any array API
library), found through ``array_api_compat`` only when such an array arrives, so that
``import datamove`` imports no array library but NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from datamove._backends._copy import copy_pairs
from datamove._errors import DTypeError, ValidationError
from datamove._validation import check_out

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["BACKENDS", "ndarray", "prepare", "take"]

ndarray = np.ndarray

# Array type -> its backend object, filled by ``_backends._foreign.backend_for`` on the first
# array of each type; the operators' fast paths read it to skip ``prepare`` for known types.
BACKENDS: dict[type, Any] = {}

Index = tuple[Any, ...]


# What datamove turns into a NumPy array itself (anything else must be an array API array).
AS_NUMPY: Final = (np.generic, int, float, complex, bool, list, tuple)


def prepare(op: str, data: Any) -> tuple[Any, tuple[int, ...]]:
    """Return ``(array, shape)`` for what the caller passed as ``data``.

    NumPy arrays (and subclasses) pass through; Python scalars, lists and tuples become NumPy
    arrays; any other object must be an array API array. A Dask array with unknown (NaN) sizes
    gets a shape whose unknown entries raise ``BackendError`` when an operator reads them.
    """
    if isinstance(data, np.ndarray):
        return data, data.shape
    if isinstance(data, AS_NUMPY):
        try:
            arr = np.asarray(data)
        except (ValueError, TypeError) as exc:  # ragged nesting, objects that refuse
            raise DTypeError(op, "data", data, f"cannot be read as an array: {exc}") from None
        if arr.dtype == object and isinstance(data, list | tuple):
            raise DTypeError(op, "data", data, "is a ragged sequence, not an array")
        return arr, arr.shape
    from datamove._backends._foreign import backend_for  # noqa: PLC0415 - foreign arrays only

    return data, backend_for(op, data).shape(op, data)


def take(
    op: str,
    data: Any,
    indices: Sequence[Any],
    *,
    copy: bool | None,
    out: Sequence[Any] | None,
    chunks: bool = False,
) -> tuple[Any, ...]:
    """Apply each basic index to ``data``; views, copies or writes into ``out`` as asked.

    Parameters
    ----------
    op : str
        The operator, for error messages.
    data : array
        What :func:`prepare` returned.
    indices : sequence
        One basic index (a tuple, or a bare slice) per output.
    copy : bool or None
        ``None``: views where the library has them. ``True``: independent arrays (C order for
        NumPy and PyTorch). ``False``: views, or ``ViewError`` where the library has none.
    out : sequence of arrays, optional
        One preallocated array per output, of its shape, dtype and device, written in one pass.
    chunks : bool, optional
        The indices cut consecutive unit-step chunks along their last entry's axis (Split and
        VariadicSplit plans): a backend may use its own split call.

    Returns
    -------
    tuple of arrays
        The outputs, of ``data``'s library, dtype and device (``out`` itself when given).

    Raises
    ------
    ViewError
        ``copy=False`` where a view is impossible (JAX; PyTorch with a negative step).
    BackendError
        ``out=`` on a library without in-place writes (JAX, Dask); unknown Dask sizes needed.
    ValidationError
        ``out`` of the wrong length, shape, dtype or device, read-only, or aliasing ``data``.
    """
    if not (copy is None or isinstance(copy, bool | np.bool_)):
        raise DTypeError(op, "copy", copy, "must be None, True or False")
    if isinstance(data, np.ndarray):
        views = [data[index] for index in indices]
        if out is not None:
            return _into(op, views, out)
        if copy:
            fresh = [np.empty(v.shape, v.dtype) for v in views]
            copy_pairs(list(zip(fresh, views, strict=True)))
            return tuple(fresh)
        return tuple(views)
    from datamove._backends._foreign import backend_for  # noqa: PLC0415 - foreign arrays only

    return backend_for(op, data).take(op, data, indices, copy, out, chunks=chunks)


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
        check_out(op, k, dst, src)
        if not dst.flags.writeable:
            raise ValidationError(op, f"out[{k}]", "<read-only array>", "is read-only")
        if np.may_share_memory(dst, src) and np.shares_memory(dst, src):
            raise ValidationError(
                op, f"out[{k}]", "<array>", "overlaps the input; out must not alias data"
            )
    copy_pairs(list(zip(out, results, strict=True)))
    return tuple(out)
