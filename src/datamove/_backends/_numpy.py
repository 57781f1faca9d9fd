"""NumPy's backend: views by basic indexing, copies and ``out=`` by the parallel copy engine.

NumPy is a backend like any other library's, with the fast paths its arrays allow: indexing
returns views for every step, ``copy=True`` and ``out=`` go through :mod:`._copy` (one pass
over the input, on every core), and memory overlap is decided exactly by
:mod:`datamove._layout`.

Subclasses of ``ndarray`` are indexed as themselves (a masked array keeps its mask), except
where their indexing or copying changes the shape NumPy's basic indexing gives: ``np.matrix``
keeps results 2-D, so they would not have the shape inference promises, and its ``m[None]`` is
a 3-D matrix that any view or copy of makes 2-D again (`keeps_shape`). There datamove indexes
(or copies) the base ``ndarray`` (``np.asarray(data)``) and returns plain arrays. ``dm.concat``
of subclasses follows the same rule (`datamove._concat`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from datamove import _layout
from datamove._backends._base import Backend, out_count
from datamove._backends._copy import SMALL_BYTES, Pair, copy_pairs
from datamove._errors import DTypeError, ValidationError
from datamove._validation import (
    check_out,
    out_loses_mask,
    out_overlaps_input,
    out_overlaps_itself,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from datamove._plan import Plan

__all__ = ["NumpyBackend", "keeps_shape", "subclass_result"]


class NumpyBackend(Backend):
    """NumPy arrays and their subclasses."""

    name: ClassVar[str] = "NumPy"
    views: ClassVar[bool] = True

    def shape(self, op: str, data: Any) -> tuple[int, ...]:
        """NumPy's shape: always known."""
        del op
        return data.shape  # type: ignore[no-any-return]

    def take(self, op: str, plan: Plan, data: Any, copy: bool | None, out: Any) -> tuple[Any, ...]:
        """Views; C-ordered copies (``copy=True``); or writes into ``out`` in one pass."""
        if type(data) is np.ndarray:
            views = [data[index] for index in plan.indices]
        else:
            views = _subclass_views(data, plan)
        if out is not None:
            return self.write(op, (data,), views, out)
        if copy:
            if type(data) is not np.ndarray:  # a subclass copies what it adds (a mask, ...)
                return tuple(_subclass_copy(v) for v in views)
            if sum(v.nbytes for v in views) < SMALL_BYTES:  # small copies need no engine
                return tuple(v.copy(order="C") for v in views)
            fresh = [np.empty(v.shape, v.dtype) for v in views]
            copy_pairs(list(zip(fresh, views, strict=True)))
            return tuple(fresh)
        return tuple(views)

    def write(
        self, op: str, inputs: Sequence[Any], results: Sequence[Any], out: Any
    ) -> tuple[Any, ...]:
        """Check every ``out`` array, then copy all results in one pass of the copy engine."""
        out_count(op, out, len(results))
        for k, (dst, src) in enumerate(zip(out, results, strict=True)):
            if not isinstance(dst, np.ndarray):
                raise DTypeError(op, f"out[{k}]", dst, "must be a NumPy array, like data")
            check_out(op, k, dst, src.shape, src.dtype)
            if not dst.flags.writeable:
                raise ValidationError(op, f"out[{k}]", "<read-only array>", "is read-only")
            flags = dst.flags
            if not (flags.c_contiguous or flags.f_contiguous) and _layout.self_overlapping(
                dst.shape, dst.strides, dst.itemsize, exact_up_to=_layout.OUT_EXACT_ELEMENTS
            ):
                raise out_overlaps_itself(op, k, dst.strides)
            # Against the whole input, not only output k's part of it: writing out[k] first
            # must not change what a later output reads.
            for data in inputs:
                if np.may_share_memory(dst, data) and _layout.shares_memory(dst, data):
                    raise out_overlaps_input(op, k)
        _outs_apart(op, out)
        pairs = list(zip(out, results, strict=True))
        if any(isinstance(a, np.ma.MaskedArray) for a in (*inputs, *out)):
            pairs = self._masked_pairs(op, inputs[0], pairs)
        copy_pairs(pairs)
        return tuple(out)

    def _masked_pairs(self, op: str, data: Any, pairs: list[Pair]) -> list[Pair]:
        """The pairs of data and of masks to copy where ``data`` or an ``out`` is masked.

        As ``dm.concat`` writes a join: a masked ``data`` needs masked ``out`` arrays (its mask
        would be lost); a masked ``out`` gets its data and its whole mask written (a hard mask
        too, a mask made where it had none, all False from plain ``data``). Its mask is
        checked as its data is, before anything is written.
        """
        own = np.ma.getmask(data)
        layouts: list[_layout.Layout | None] = []
        for k, (dst, _) in enumerate(pairs):
            if not isinstance(dst, np.ma.MaskedArray) and isinstance(data, np.ma.MaskedArray):
                hint = "pass masked arrays as out, or take the data alone (np.ma.getdata)"
                raise out_loses_mask(op, f"out[{k}]", dst, "data", hint)
            mask: Any = np.ma.getmask(dst)
            if mask is np.ma.nomask:
                layouts.append(None)
                continue
            try:
                inputs = [] if own is np.ma.nomask else [own]
                self.check_out_array(op, mask, dst.shape, mask.dtype, inputs)
            except ValidationError as exc:
                raise type(exc)(op, f"out[{k}].mask", exc.value, exc.rule, hint=exc.hint) from None
            layouts.append((mask.ctypes.data, mask.shape, mask.strides, mask.itemsize))
        _layout.outs_apart(op, layouts, ".mask")
        written: list[Pair] = []
        for dst, src in pairs:
            if not isinstance(dst, np.ma.MaskedArray):
                written.append((dst, src))
                continue
            if np.ma.getmask(dst) is np.ma.nomask:
                dst.mask = False  # a mask of its own to write into
            written.append((dst.view(np.ndarray), src.view(np.ndarray)))
            written.append((np.ma.getmaskarray(dst), np.ma.getmaskarray(src)))
        return written

    def check_out_array(
        self, op: str, out: Any, shape: tuple[int, ...], dtype: Any, inputs: Sequence[Any]
    ) -> None:
        """``out`` of this shape and dtype, writeable, apart from itself and every input."""
        if not isinstance(out, np.ndarray):
            raise DTypeError(op, "out", out, "must be a NumPy array, like the inputs")
        check_out(op, 0, out, shape, dtype)
        if not out.flags.writeable:
            raise ValidationError(op, "out[0]", "<read-only array>", "is read-only")
        flags = out.flags
        if not (flags.c_contiguous or flags.f_contiguous) and _layout.self_overlapping(
            out.shape, out.strides, out.itemsize, exact_up_to=_layout.OUT_EXACT_ELEMENTS
        ):
            raise out_overlaps_itself(op, 0, out.strides)
        for data in inputs:
            if np.may_share_memory(out, data) and _layout.shares_memory(out, data):
                raise out_overlaps_input(op, 0)


def keeps_shape(result: Any, shape: tuple[int, ...]) -> bool:
    """Whether a subclass's ``result`` has NumPy's ``shape`` and keeps it as its own type.

    ``np.matrix`` indexes a 2-D matrix to 2-D results where NumPy's are 1-D, and ``m[None]`` to a
    3-D matrix (NumPy's ``__getitem__`` lets that one through) that every view or copy of it
    turns 2-D again ("shape too large to be a matrix" where it cannot): a view of ``result`` as
    its own type tells, without copying.
    """
    if np.shape(result) != shape:
        return False
    if not isinstance(result, np.ndarray):
        return True
    try:
        return bool(result.view(type(result)).shape == shape)
    except ValueError:
        return False


def subclass_result(data: np.ndarray, take: Callable[[np.ndarray], Any]) -> Any:
    """``take(data)`` of a subclass, where that has the shape the base array's result has.

    A masked array keeps its mask; ``np.matrix``, which stays 2-D, gives the base's result.
    """
    mine, plain = take(data), take(data.view(np.ndarray))
    return mine if keeps_shape(mine, plain.shape) else plain


def _subclass_views(data: np.ndarray, plan: Plan) -> list[np.ndarray]:
    """Each index of a subclass, as the subclass gives it where that keeps NumPy's shape."""
    base = data.view(np.ndarray)
    views = []
    for index in plan.indices:
        plain = base[index]
        mine = data[index]
        if not keeps_shape(mine, plain.shape):  # np.matrix stays 2-D: the base array's result
            return [base[index] for index in plan.indices]
        views.append(mine)
    return views


def _subclass_copy(view: np.ndarray) -> np.ndarray:
    """``view.copy(order="C")`` (or ``view.copy()`` for a subclass whose copy takes no order).

    A copy whose subclass changes its shape (a 3-D ``np.matrix`` view copies to 2-D), or
    cannot make it (an empty 3-D one: "cannot reshape array of size 0"), is made as a plain
    array instead.
    """
    try:
        try:
            fresh = view.copy(order="C")
        except TypeError:
            fresh = view.copy()  # ndarray.copy's own default order is C
    except ValueError:
        return view.view(np.ndarray).copy(order="C")
    if fresh.shape != view.shape:
        return view.view(np.ndarray).copy(order="C")
    return fresh


# Up to this many outputs, every pair is tested (n*n/2 bounds tests cost less than n reads of
# an address, 1.5 us each); above, address ranges are swept in order.
_PAIRWISE_MAX = 16


def _outs_apart(op: str, out: Sequence[np.ndarray]) -> None:
    """No two ``out`` arrays share memory; exact, as NumPy decides it."""
    if len(out) <= _PAIRWISE_MAX:  # a bounds test in C per pair (0.2 us); no addresses
        for k in range(1, len(out)):
            for j in range(k):
                if np.may_share_memory(out[j], out[k]) and _layout.shares_memory(out[j], out[k]):
                    raise _layout.shared_outputs(op, j, k)
        return
    _layout.outs_apart(op, [(a.ctypes.data, a.shape, a.strides, a.itemsize) for a in out])
