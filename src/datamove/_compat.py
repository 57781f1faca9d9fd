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
    out_overlaps_input,
    out_overlaps_itself,
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
            if type(data) is not np.ndarray:
                return tuple(_subclass_copy(v) for v in views)
            if sum(v.nbytes for v in views) < _SMALL_COPY:
                return tuple(v.copy(order="C") for v in views)
            fresh = [np.empty(v.shape, v.dtype) for v in views]
            copy_pairs(list(zip(fresh, views, strict=True)))
            return tuple(fresh)
        return tuple(views)
    from datamove._backends._foreign import backend_for  # noqa: PLC0415 - foreign arrays only

    return backend_for(op, data).take(op, data, indices, copy, out, chunks=chunks)


def _subclass_copy(view: np.ndarray) -> np.ndarray:
    """``view.copy(order="C")``, or ``view.copy()`` for a subclass whose copy takes no order."""
    try:
        return view.copy(order="C")
    except TypeError:
        return view.copy()  # ndarray.copy's own default order is C


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
            raise out_overlaps_itself(op, k, dst.strides)
        # Against the whole input, not only output k's part of it: writing out[k] first must
        # not change what a later output reads.
        if np.may_share_memory(dst, data) and shares_memory(dst, data):
            raise out_overlaps_input(op, k)
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


Layout = tuple[int, tuple[int, ...], tuple[int, ...], int]  # address, shape, byte strides, item


def _check_outs_apart(op: str, out: Sequence[np.ndarray]) -> None:
    """No two ``out`` arrays share memory; exact, as NumPy decides it (:func:`outs_apart`)."""
    if len(out) <= _PAIRWISE_MAX:  # a bounds test in C per pair (0.2 us); no addresses
        for k in range(1, len(out)):
            for j in range(k):
                if np.may_share_memory(out[j], out[k]) and shares_memory(out[j], out[k]):
                    raise shared_outputs(op, j, k)
        return
    outs_apart(op, [(a.ctypes.data, a.shape, a.strides, a.itemsize) for a in out])


def outs_apart(op: str, layouts: Sequence[Layout | None]) -> None:
    """No two of these layouts share a byte (``None``: not known, not checked); exact.

    Outputs are the columns of one buffer as often as separate arrays, and the address ranges
    of columns all meet, so comparing ranges alone would test every pair. Instead each layout
    is read as a *lattice* of rows (its axes but the contiguous innermost ones, sizes and
    strides) and a *run* of bytes at each lattice point. Layouts on the same lattice whose runs
    all fit in one window that the lattice repeats without overlap (the columns of a buffer,
    whatever their widths) are apart exactly when their runs are, as intervals: one sort. What
    remains (one window per lattice, layouts on no shared lattice) is swept by address range
    and tested exactly, with NumPy's ``shares_memory``, where ranges meet.
    """
    lattices: dict[tuple[tuple[int, int], ...], list[tuple[int, int, int]]] = {}
    for k, layout in enumerate(layouts):
        points = None if layout is None else _lattice(layout)
        if points is not None:
            address, lattice, run = points
            lattices.setdefault(lattice, []).append((address, run, k))
    windows: list[tuple[Layout, list[tuple[Layout, int]]]] = []  # a window and its members
    for lattice, members in lattices.items():
        sizes = tuple(n for n, _ in lattice)
        steps = tuple(st for _, st in lattice)
        members.sort()
        lo = members[0][0]
        width = max(a + run for a, run, _ in members) - lo
        rows = [((a, (*sizes, run), (*steps, 1), 1), k) for a, run, k in members]
        if len(members) > 1 and self_overlapping((*sizes, width), (*steps, 1), 1):
            windows.extend(((layout, [(layout, k)]) for layout, k in rows))  # one by one
            continue
        end, last = -1, -1
        for a, run, k in members:
            if a < end:
                raise shared_outputs(op, last, k)
            if a + run > end:
                end, last = a + run, k
        windows.append(((lo, (*sizes, width), (*steps, 1), 1), rows))

    def meet(w: tuple[Layout, list[tuple[Layout, int]]], v: Any) -> bool:
        if not layouts_overlap(w[0], v[0]):
            return False
        # The windows meet: find the two outputs, if two do. Each window's members are apart.
        if len(w[1]) * len(v[1]) > _PAIRS_MAX and _mapped_apart(op, w[1], v[1]):
            return False
        for a, j in w[1]:
            for b, k in v[1]:
                if layouts_overlap(a, b):
                    raise shared_outputs(op, j, k)
        return False

    check_apart(op, windows, lambda w: strided_span(*w[0]), meet)


def _mapped_apart(
    op: str, first: list[tuple[Layout, int]], second: list[tuple[Layout, int]]
) -> bool:
    """Whether no output of ``first`` shares a byte with one of ``second``, by a map of bytes.

    ``False`` where the two cover too wide a range for a map (the caller then tests pairs).
    A shared byte raises the error naming the two outputs.
    """
    spans = [strided_span(*layout) for layout, _ in (*first, *second)]
    lo = min(s[0] for s in spans if s is not None)
    hi = max(s[1] for s in spans if s is not None)
    if hi - lo > _MAP_MAX_BYTES:
        return False
    taken = np.zeros(hi - lo, np.bool_)

    def cover(layout: Layout) -> np.ndarray:
        address, shape, strides, itemsize = layout
        return np.lib.stride_tricks.as_strided(
            taken[address - lo :], (*shape, itemsize), (*strides, 1), writeable=True
        )

    for layout, _ in first:
        cover(layout)[...] = True
    for layout, k in second:
        if cover(layout).any():
            j = next(j for a, j in first if layouts_overlap(a, layout))
            raise shared_outputs(op, j, k)
    return True


# Pairs of outputs from two meeting lattices tested one by one; above, a map of their bytes.
_PAIRS_MAX: Final = 4096
_MAP_MAX_BYTES: Final = 64 << 20


def _lattice(layout: Layout) -> tuple[int, tuple[tuple[int, int], ...], int] | None:
    """``(address, ((size, stride), ...), run)``: a run of bytes at each point of a lattice."""
    address, shape, strides, itemsize = layout
    if 0 in shape:
        return None
    axes = [(n, st) for n, st in zip(shape, strides, strict=True) if n != 1]
    run = itemsize
    while axes and axes[-1][1] == run:
        run *= axes.pop()[0]
    return address, tuple(axes), run


# Up to this many outputs, every pair is tested (n*n/2 bounds tests cost less than n reads of
# an address, 1.5 us each); above, address ranges are swept in order.
_PAIRWISE_MAX: Final = 16
