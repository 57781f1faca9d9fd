"""The array API backend: what every array library's backend does unless it says otherwise.

A backend applies a :class:`~datamove._plan.Plan` (one NumPy-style basic index per output:
ints, slices with any step, ``None``, ``Ellipsis``) to one library's arrays and honours
``copy=`` and ``out=``. Subclasses (:mod:`datamove._backends._numpy`,
:mod:`datamove._backends._foreign`) change only what their library does differently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from datamove import _layout
from datamove._errors import BackendError, DTypeError, ValidationError, ViewError, plural
from datamove._layout import Layout
from datamove._plan import Index
from datamove._validation import check_out, out_overlaps_input, out_overlaps_itself, out_source

if TYPE_CHECKING:
    from collections.abc import Sequence

    from datamove._plan import Plan

__all__ = ["Backend", "normalized", "out_count", "shown_out"]


def normalized(index: Any) -> Index:
    """A tuple with an ``Ellipsis``: the array API does not pad a short index as NumPy does.

    array-api-strict rejects ``x[0:2]`` on a 3-d array ("add a trailing ellipsis"); see
    https://data-apis.org/array-api/latest/API_specification/indexing.html#multi-axis-indexing
    """
    key = index if isinstance(index, tuple) else (index,)
    if Ellipsis in key:  # the index holds only ints, slices and None: `in` compares safely
        return key
    return (*key, Ellipsis)


def out_count(op: str, out: Any, outputs: int) -> None:
    """``out`` is a list or tuple of one array per output, or the error saying which it is not."""
    if not isinstance(out, list | tuple):
        raise DTypeError(op, "out", out, "must be a sequence of arrays, one per output")
    if len(out) != outputs:
        raise ValidationError(
            op,
            "out",
            f"<{plural(len(out), 'array')}>",
            f"has {plural(len(out), 'array')}, but there are {plural(outputs, 'output')}",
        )


def shown_out(out: Any) -> str:
    """``out`` as an error shows it when it is refused as a whole: ``<1 array>``, ``<3 arrays>``."""
    if isinstance(out, list | tuple):
        return f"<{plural(len(out), 'array')}>"
    return f"<{type(out).__name__}>"


class Backend:
    """One array library: indexing, copying and writing into ``out`` (the array API way)."""

    name: ClassVar[str] = "array API"
    views: ClassVar[bool] = False  # basic indexing is known to return views: copy=False holds
    mutable: ClassVar[bool] = True  # arrays can be written into (``out=``)

    def __init__(self, xp: Any) -> None:
        self.xp = xp

    def shape(self, op: str, data: Any) -> tuple[int, ...]:
        """The concrete shape, or a ``BackendError`` for sizes that are not known."""
        shape = tuple(data.shape)
        for size in shape:
            if not isinstance(size, int):
                raise BackendError(
                    op,
                    "data",
                    f"<{type(data).__name__} of shape {shape}>",
                    f"has a size that is not known ({size!r})",
                )
        return shape

    def index(self, op: str, data: Any, index: Index, copy: bool | None) -> tuple[Any, bool]:
        """``data[index]``, and whether the result is known to be fresh memory (not ``data``'s).

        Never here: any library's basic indexing may give views, whether or not datamove can
        promise them (`views`); so ``copy=True`` copies (``xp.asarray(copy=True)``).
        """
        del op, copy
        return data[normalized(index)], False

    def take(self, op: str, plan: Plan, data: Any, copy: bool | None, out: Any) -> tuple[Any, ...]:
        """Apply every index of ``plan``; honour ``copy`` and ``out`` (see :func:`take`)."""
        if out is not None:  # results are written into out: copy= has no say (as on NumPy)
            copy = None
        if copy is False and not self.views:
            raise self.no_views(op, data)
        taken = [self.index(op, data, idx, copy) for idx in plan.indices]
        if out is not None:
            return self.write(op, (data,), [r for r, _ in taken], out)
        if copy:
            return tuple(r if fresh else self.copy(r) for r, fresh in taken)
        return tuple(r for r, _ in taken)

    def concat(self, op: str, parts: Sequence[Any], axis: int, out: Any) -> Any:
        """The inputs, all on one device, joined along ``axis`` (``xp.concat``), or into ``out``."""
        self.one_device(op, parts)
        result = self.join(parts, axis)
        if out is None:
            return result
        (written,) = self.write(op, parts, [result], [out])
        return written

    def join(self, parts: Sequence[Any], axis: int) -> Any:
        """``xp.concat`` of arrays that :meth:`concat` checked: a new array.

        JAX's and Dask's ``concat`` of one array return that array itself; a copy of it then
        (a Dask result can be written into with ``__setitem__``, a JAX input deleted).
        """
        result = self.xp.concat(list(parts), axis=axis)
        return self.copy(result) if any(result is p for p in parts) else result

    def device(self, a: Any) -> Any:
        """The device ``a`` is on (``array_api_compat.device``)."""
        from array_api_compat import device  # noqa: PLC0415 - only for foreign arrays

        return device(a)

    def one_device(self, op: str, arrays: Sequence[Any]) -> None:
        """The arrays of a join are all on ``arrays[0]``'s device, or the error naming one not.

        A join across devices is the library's own error otherwise (PyTorch's ``RuntimeError``).
        """
        first = self.device(arrays[0])
        for k, a in enumerate(arrays[1:], 1):
            on = self.device(a)
            if on != first:
                raise ValidationError(
                    op,
                    f"arrays[{k}]",
                    f"<array on {on}>",
                    f"is on device {on}, but arrays[0] is on {first}",
                )

    def no_views(self, op: str, data: Any) -> ViewError:
        """The error for ``copy=False`` on a library without views."""
        return ViewError(
            op,
            "copy",
            False,
            f"cannot be honoured: datamove cannot promise views for {self.name} arrays "
            f"({type(data).__name__})",
            hint="pass copy=None to get whatever indexing returns",
        )

    def copy(self, result: Any) -> Any:
        """An independent copy of one result."""
        return self.xp.asarray(result, copy=True)

    def check_out(self, op: str, results: Sequence[Any], out: Any) -> None:
        """Check ``out``: a sequence, one array per output, same shape, dtype and device."""
        out_count(op, out, len(results))
        for k, (dst, src) in enumerate(zip(out, results, strict=True)):
            if not isinstance(dst, type(src)):
                name = type(src).__name__
                article = "an" if name[:1].lower() in "aeiou" else "a"
                raise DTypeError(
                    op,
                    f"out[{k}]",
                    f"<{type(dst).__name__}>",
                    f"must be {article} {name}, like {out_source(op)}",
                )
            check_out(op, k, dst, src.shape, src.dtype)
            on = self.device(dst)
            if on != self.device(src):
                raise ValidationError(
                    op,
                    f"out[{k}]",
                    f"<array on {on}>",
                    f"is on device {on}, but {out_source(op)} is on {self.device(src)}",
                )

    def write(
        self, op: str, inputs: Sequence[Any], results: Sequence[Any], out: Any
    ) -> tuple[Any, ...]:
        """Copy each result into its ``out`` array; return ``out`` as a tuple.

        ``inputs`` are the arrays the results were read from (``data``, or every input of a
        join): no ``out`` array may share memory with any of them.
        """
        if not self.mutable:
            raise BackendError(
                op,
                "out",
                shown_out(out),
                f"cannot be written: {self.name} arrays are immutable",
                hint="use the returned arrays",
            )
        self.check_out(op, results, out)
        for k, dst in enumerate(out):
            for data in inputs:
                if self.overlaps(dst, data):
                    raise out_overlaps_input(op, k)
            layout = self.layout(dst)
            if layout is not None and _layout.self_overlapping(
                *layout[1:], exact_up_to=_layout.OUT_EXACT_ELEMENTS
            ):
                raise out_overlaps_itself(op, k, layout[2])
        _layout.outs_apart(op, [self.layout(dst) for dst in out])
        for dst, src in zip(out, results, strict=True):
            self.assign(dst, src)
        return tuple(out)

    def overlaps(self, dst: Any, data: Any) -> bool:
        """Whether ``dst`` shares memory with ``data``: NumPy's exact test on their layouts.

        Any two arrays over the same memory count, whatever object owns it (two PyTorch tensors
        made by ``from_numpy`` on one buffer have different storages). ``False`` where the
        library does not tell its layout (the array API has no way to ask).
        """
        la, lb = self.layout(dst), self.layout(data)
        if la is None or lb is None:
            return False
        sa, sb = _layout.span(*la), _layout.span(*lb)
        if sa is None or sb is None or sa[1] <= sb[0] or sb[1] <= sa[0]:
            return False
        return _layout.layouts_overlap(la, lb)

    def layout(self, dst: Any) -> Layout | None:
        """``(address, shape, byte strides, itemsize)`` of ``dst``; ``None`` where unknown."""
        del dst
        return None

    def assign(self, dst: Any, src: Any) -> None:
        """``dst[...] = src``: in-place assignment, as the array API standard defines it."""
        dst[...] = src
