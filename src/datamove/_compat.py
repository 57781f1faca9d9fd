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

from datamove._backends._copy import SMALL_BYTES as _SMALL_COPY
from datamove._backends._copy import copy_pairs
from datamove._errors import DTypeError, ValidationError
from datamove._validation import (
    check_apart,
    check_out,
    self_overlapping,
    shared_outputs,
    strided_span,
)

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
            raise DTypeError(
                op,
                "data",
                data,
                "is not an array of numbers: NumPy could hold it only as Python objects (ints "
                "beyond 64 bits, None, or other objects)",
            )
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
    if copy is not None:
        copy = bool(copy)  # np.False_ is False: the backends test `copy is False`
    if isinstance(data, np.ndarray):
        views = [data[index] for index in indices]
        if out is not None:
            return _into(op, data, views, out)
        if copy:
            # A subclass copies what it adds (a mask, ...); small copies need no engine.
            if type(data) is not np.ndarray or sum(v.nbytes for v in views) < _SMALL_COPY:
                return tuple(v.copy(order="C") for v in views)
            fresh = [np.empty(v.shape, v.dtype) for v in views]
            copy_pairs(list(zip(fresh, views, strict=True)))
            return tuple(fresh)
        return tuple(views)
    from datamove._backends._foreign import backend_for  # noqa: PLC0415 - foreign arrays only

    return backend_for(op, data).take(op, data, indices, copy, out, chunks=chunks)


def _into(op: str, data: Any, results: Sequence[Any], out: Sequence[Any]) -> tuple[Any, ...]:
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
        flags = dst.flags
        if not (flags.c_contiguous or flags.f_contiguous) and self_overlapping(
            dst.shape, dst.strides, dst.itemsize
        ):
            raise ValidationError(
                op,
                f"out[{k}]",
                f"<array with strides {list(dst.strides)}>",
                "has elements that share memory (a stride of 0?), so writes to it would be lost",
            )
        # Against the whole input, not only output k's part of it: writing out[k] first must
        # not change what a later output reads.
        if np.may_share_memory(dst, data) and shares_memory(dst, data):
            raise ValidationError(
                op, f"out[{k}]", "<array>", "overlaps the input; out must not alias data"
            )
    _check_outs_apart(op, out)
    copy_pairs(list(zip(out, results, strict=True)))
    return tuple(out)


# Work NumPy may spend proving two arrays apart; beyond it they count as overlapping.
_MAX_WORK: Final = 100_000


def shares_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` share an element (``True`` where NumPy cannot tell in time)."""
    try:
        # NumPy's stubs allow only -1 and 0, its docs any bound (solved exactly up to it).
        return bool(np.shares_memory(a, b, max_work=_MAX_WORK))  # type: ignore[arg-type]
    except np.exceptions.TooHardError:
        return True


class _Bytes:
    """Memory of another library described to NumPy, for :func:`shares_memory` only.

    NumPy's overlap test reads addresses, never the bytes, so any address does (a GPU's too).
    """

    def __init__(self, address: int, shape: Any, strides: Any, itemsize: int) -> None:
        self.__array_interface__ = {
            "data": (address, False),
            "shape": (*shape, itemsize),
            "strides": (*strides, 1),
            "typestr": "|u1",
            "version": 3,
        }


def layouts_overlap(a: Any, b: Any) -> bool:
    """:func:`shares_memory` of two ``(address, shape, byte strides, itemsize)`` layouts."""
    return shares_memory(np.asarray(_Bytes(*a)), np.asarray(_Bytes(*b)))


def _span(a: np.ndarray) -> tuple[int, int] | None:
    if a.flags.c_contiguous:
        if a.size == 0:
            return None
        start: int = a.ctypes.data
        return start, start + a.nbytes
    return strided_span(a.ctypes.data, a.shape, a.strides, a.itemsize)


def _check_outs_apart(op: str, out: Sequence[np.ndarray]) -> None:
    """No two ``out`` arrays share memory; exact, as NumPy decides it.

    Every pair for a few outputs. For more, their address ranges swept in order
    (:func:`check_apart`): one comparison each for outputs apart. Where many ranges meet (the
    columns of one buffer), a map of the bytes they cover decides instead, in one pass.
    """
    if len(out) <= _PAIRWISE_MAX:  # a bounds test in C per pair (0.2 us); no addresses
        for k in range(1, len(out)):
            for j in range(k):
                if np.may_share_memory(out[j], out[k]) and shares_memory(out[j], out[k]):
                    raise shared_outputs(op, j, k)
        return
    budget = [4 * len(out)]  # exact tests the sweep may make before the map takes over

    def overlap(a: np.ndarray, b: np.ndarray) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooMany
        return shares_memory(a, b)

    try:
        check_apart(op, out, _span, overlap)
    except _TooMany:
        spans = [s for s in map(_span, out) if s is not None]
        lo = min(s[0] for s in spans)
        width = max(s[1] for s in spans) - lo
        if width > _MAP_MAX_BYTES:  # pragma: no cover - interleaved outputs over 256 MiB
            check_apart(op, out, _span, shares_memory)
            return
        taken = np.zeros(width, np.bool_)
        for k, a in enumerate(out):
            if a.size == 0:
                continue
            cover = np.lib.stride_tricks.as_strided(
                taken[a.ctypes.data - lo :],
                (*a.shape, a.itemsize),
                (*a.strides, 1),
                writeable=True,
            )
            if cover.any():  # some earlier output holds one of these bytes: find which
                check_apart(op, out[: k + 1], _span, shares_memory)
            cover[...] = True


class _TooMany(Exception):  # noqa: N818 - a signal, never seen by callers
    """The sweep met more overlapping ranges than it should test one by one."""


# Up to this many outputs, every pair is tested (n*n/2 bounds tests cost less than n reads of
# an address, 1.5 us each); above, address ranges are swept in order.
_PAIRWISE_MAX: Final = 16
# The byte map covers at most this much memory (the outputs' whole address range).
_MAP_MAX_BYTES: Final = 1 << 28
