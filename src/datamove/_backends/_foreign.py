"""Every array library but NumPy: one class per library, each quirk next to its upstream issue.

A backend applies NumPy-style *basic indices* (ints, slices with any step, ``None``,
``Ellipsis``) to one library's arrays and honours ``copy=`` and ``out=``:

============== ===================== ============== ===================== ======================
library        ``copy=None``         ``copy=False`` ``copy=True``         ``out=``
============== ===================== ============== ===================== ======================
PyTorch        views (flip copies)   views or error ``clone()``, C order  ``dst.copy_(src)``
CuPy           views                 views          ``xp.asarray(copy)``  ``dst[...] = src``
array-api-     views                 views          ``xp.asarray(copy)``  ``dst[...] = src``
strict
JAX            new immutable arrays  ``ViewError``  new immutable arrays  ``BackendError``
Dask           lazy slices           lazy slices    lazy ``copy`` blocks  ``BackendError``
other array    what indexing gives   ``ViewError``  ``xp.asarray(copy)``  ``dst[...] = src``
API libraries
============== ===================== ============== ===================== ======================

Nothing here imports a library at module scope: each backend is chosen by
``array_api_compat``'s ``is_*_array`` predicates, which look only at modules already imported.
"""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Any, ClassVar, Final, Self

from datamove._compat import BACKENDS, layouts_overlap, outs_apart
from datamove._errors import BackendError, DTypeError, ValidationError, ViewError
from datamove._validation import (
    check_out,
    out_overlaps_input,
    out_overlaps_itself,
    self_overlapping,
    strided_span,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Backend", "backend_for"]

Index = tuple[Any, ...]

_TORCH_NEGATIVE_STEP = "https://github.com/pytorch/pytorch/issues/59786"
_JAX_NO_VIEWS = "https://github.com/jax-ml/jax/issues/11585"
_DASK_UNKNOWN_CHUNKS = "https://github.com/dask/dask/issues/6586"


def normalized(index: Any) -> Index:
    """A tuple with an ``Ellipsis``: the array API does not pad a short index as NumPy does.

    array-api-strict rejects ``x[0:2]`` on a 3-d array ("add a trailing ellipsis"); see
    https://data-apis.org/array-api/latest/API_specification/indexing.html#multi-axis-indexing
    """
    key = index if isinstance(index, tuple) else (index,)
    if Ellipsis in key:  # the index holds only ints, slices and None: `in` compares safely
        return key
    return (*key, Ellipsis)


def positive_steps(key: Index, shape: tuple[int, ...]) -> tuple[Index, list[int]]:
    """The same elements with positive steps, and the output axes to reverse afterwards."""
    addressed = sum(1 for k in key if k is not None and k is not Ellipsis)
    positive: list[Any] = []
    flips: list[int] = []
    axis = 0  # input axis
    at = 0  # output axis
    for k in key:
        if k is None:
            positive.append(k)
            at += 1
        elif k is Ellipsis:
            positive.append(k)
            hidden = len(shape) - addressed
            axis += hidden
            at += hidden
        elif isinstance(k, slice):
            if k.step is not None and k.step < 0:
                start, stop, step = k.indices(shape[axis])
                n = len(range(start, stop, step))
                last = start + (n - 1) * step
                positive.append(slice(last, start + 1, -step) if n else slice(0, 0))
                flips.append(at)
            else:
                positive.append(k)
            axis += 1
            at += 1
        else:  # an int: the axis goes away
            positive.append(k)
            axis += 1
    return tuple(positive), flips


class Backend:
    """One array library: indexing, copying and writing into ``out`` (the array API way)."""

    name: ClassVar[str] = "array API"
    views: ClassVar[bool] = False  # basic indexing returns views (writes show through)
    known_sizes: ClassVar[bool] = True  # every size in ``data.shape`` is an int (not Dask)
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
        """``data[index]``, and whether the result is fresh memory (not shared with ``data``)."""
        del op, copy
        return data[normalized(index)], not self.views

    def take(
        self,
        op: str,
        data: Any,
        indices: Sequence[Any],
        copy: bool | None,
        out: Any,
        *,
        chunks: bool = False,
    ) -> tuple[Any, ...]:
        """Apply every index; honour ``copy`` and ``out`` (``chunks``: see ``_compat.take``)."""
        del chunks
        if out is not None:  # results are written into out: copy= has no say (as on NumPy)
            copy = None
        if copy is False and not self.views:
            raise self.no_views(op, data)
        taken = [self.index(op, data, idx, copy) for idx in indices]
        if out is not None:
            return self.write(op, data, [r for r, _ in taken], out)
        if copy:
            return tuple(r if fresh else self.copy(r) for r, fresh in taken)
        return tuple(r for r, _ in taken)

    def take_one(self, op: str, data: Any, index: Index) -> Any:
        """``take`` of one index with ``copy=None`` and no ``out`` (the operators' fast path)."""
        return self.take(op, data, (index,), None, None)[0]

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
        from array_api_compat import device  # noqa: PLC0415 - only for foreign arrays

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
            if not isinstance(dst, type(src)):
                raise DTypeError(
                    op,
                    f"out[{k}]",
                    f"<{type(dst).__name__}>",
                    f"must be a {type(src).__name__}, like data",
                )
            check_out(op, k, dst, src)
            if device(dst) != device(src):
                raise ValidationError(
                    op,
                    f"out[{k}]",
                    f"<array on {device(dst)}>",
                    f"is on device {device(dst)}, but data is on {device(src)}",
                )

    def write(self, op: str, data: Any, results: Sequence[Any], out: Any) -> tuple[Any, ...]:
        """Copy each result into its ``out`` array; return ``out`` as a tuple."""
        if not self.mutable:
            raise BackendError(
                op,
                "out",
                f"<{len(out) if isinstance(out, list | tuple) else '?'} arrays>",
                f"cannot be written: {self.name} arrays are immutable",
                hint="use the returned arrays",
            )
        self.check_out(op, results, out)
        for k, dst in enumerate(out):
            if self.overlaps(dst, data):
                raise out_overlaps_input(op, k)
            layout = self.layout(dst)
            if layout is not None and self_overlapping(*layout[1:]):
                raise out_overlaps_itself(op, k, layout[2])
        outs_apart(op, [self.layout(dst) for dst in out])
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
        sa, sb = strided_span(*la), strided_span(*lb)
        if sa is None or sb is None or sa[1] <= sb[0] or sb[1] <= sa[0]:
            return False
        return layouts_overlap(la, lb)

    def layout(self, dst: Any) -> tuple[int, tuple[int, ...], tuple[int, ...], int] | None:
        """``(address, shape, byte strides, itemsize)`` of ``dst``; ``None`` where unknown."""
        del dst
        return None

    def assign(self, dst: Any, src: Any) -> None:
        """``dst[...] = src``: in-place assignment, as the array API standard defines it."""
        dst[...] = src


class StrictBackend(Backend):
    """array-api-strict wraps NumPy: basic indexing returns views, ``__setitem__`` writes."""

    name = "array-api-strict"
    views = True

    def layout(self, dst: Any) -> tuple[int, tuple[int, ...], tuple[int, ...], int] | None:
        """The NumPy array it wraps (``_array``, a private attribute; ``None`` if it is gone)."""
        a = getattr(dst, "_array", None)
        if a is None or not hasattr(a, "ctypes"):
            return None
        return a.ctypes.data, a.shape, a.strides, a.itemsize


class CuPyBackend(Backend):
    """CuPy: NumPy's view semantics (negative steps included) on a GPU.

    Untested here (no GPU on the machines this was written on); only generic array API calls.
    """

    name = "CuPy"
    views = True

    def layout(self, dst: Any) -> tuple[int, tuple[int, ...], tuple[int, ...], int] | None:
        """``dst.data.ptr``: the device address of element 0; strides in bytes, as NumPy's."""
        return int(dst.data.ptr), tuple(dst.shape), tuple(dst.strides), int(dst.itemsize)


_TORCH_PLANS_MAX: Final = 1024


class TorchBackend(Backend):
    """PyTorch: views, except for negative steps, which PyTorch cannot express.

    PyTorch has no negative strides, so ``t[::-1]`` raises "step must be greater than zero"
    (https://github.com/pytorch/pytorch/issues/59786): a negative-step slice becomes the same
    elements taken with a positive step, then ``torch.flip`` along those axes, which copies.
    """

    name = "PyTorch"
    views = True

    def shape(self, op: str, data: Any) -> tuple[int, ...]:
        """The shape of a strided tensor; sparse and other layouts have no basic indexing."""
        _dense(op, "data", data)
        return super().shape(op, data)

    # Plans (the operators cache their index objects) turned into PyTorch calls, by id(index):
    # the entry holds the index itself, so its id cannot be reused while the entry lives.
    _plans: ClassVar[dict[int, tuple[Any, tuple[int, ...], Any, list[int]]]] = {}

    def index(self, op: str, data: Any, index: Index, copy: bool | None) -> tuple[Any, bool]:
        """``data[index]``; a flip for negative steps (a copy: ``ViewError`` if copy=False)."""
        shape = data.shape
        hit = self._plans.get(id(index))
        if hit is None or hit[0] is not index or hit[1] != shape:
            hit = self._plan(index, tuple(shape))
        positive, flips = hit[2], hit[3]
        if not flips:
            if type(positive) is list:  # unit-step slices: narrow() costs a third of []
                result = data
                for axis, start, length in positive:
                    result = result.narrow(axis, start, length)
                return result, False
            return data[positive], False
        if copy is False:
            raise ViewError(
                op,
                "copy",
                False,
                "cannot be honoured: the slice has a negative step, and PyTorch has no "
                f"negative-step views ({_TORCH_NEGATIVE_STEP})",
                hint="pass copy=None or copy=True to get a flipped copy",
            )
        flipped = _torch_flip(data[positive], flips)
        # flip keeps the input's layout; copy=True promises C order, and the flip is the copy.
        return (flipped.contiguous() if copy else flipped), True

    def _plan(self, index: Index, shape: tuple[int, ...]) -> tuple[Any, Any, Any, list[int]]:
        key = index if isinstance(index, tuple) else (index,)
        positive: Any
        flips: list[int] = []
        if all(type(k) is slice and k.step in (None, 1) for k in key):
            positive = []
            for axis, k in enumerate(key):
                if k.start is not None or k.stop is not None:
                    start, stop, _ = k.indices(shape[axis])
                    positive.append((axis, start, max(stop - start, 0)))
        elif not any(isinstance(k, slice) and k.step is not None and k.step < 0 for k in key):
            positive = key
        else:
            positive, flips = positive_steps(key, shape)
        if len(self._plans) >= _TORCH_PLANS_MAX:
            self._plans.clear()
        hit = (index, shape, positive, flips)
        self._plans[id(index)] = hit
        return hit

    def take(
        self,
        op: str,
        data: Any,
        indices: Sequence[Any],
        copy: bool | None,
        out: Any,
        *,
        chunks: bool = False,
    ) -> tuple[Any, ...]:
        """Chunks as one ``split_with_sizes`` call (views, a C++ loop); otherwise as any backend."""
        if data.is_nested:
            _dense(op, "data", data)
        try:
            if copy is None and out is None:
                if chunks and indices:
                    first = indices[0]
                    axis = len(first) - 1 if type(first) is tuple else 0
                    cuts = [(k[-1] if type(k) is tuple else k) for k in indices]
                    return tuple(data.split_with_sizes([c.stop - c.start for c in cuts], axis))
                return tuple([self.index(op, data, index, None)[0] for index in indices])
            return super().take(op, data, indices, copy, out)
        except (NotImplementedError, RuntimeError):  # a sparse or nested tensor on a fast path
            self.shape(op, data)
            raise

    def take_one(self, op: str, data: Any, index: Index) -> Any:
        """``index`` with ``copy=None``: a view, or a flipped copy for negative steps."""
        if data.is_nested:  # some nested tensors could take this index: refuse all alike
            _dense(op, "data", data)
        try:
            return self.index(op, data, index, None)[0]
        except (NotImplementedError, RuntimeError):
            self.shape(op, data)
            raise

    def copy(self, result: Any) -> Any:
        """``clone`` into a C-contiguous tensor on the same device (torch copies in parallel)."""
        import torch  # noqa: PLC0415 - only when a tensor arrives

        return result.clone(memory_format=torch.contiguous_format)

    def layout(self, dst: Any) -> tuple[int, tuple[int, ...], tuple[int, ...], int] | None:
        """``data_ptr()`` is element 0's address; PyTorch counts strides in elements.

        ``None`` for tensors without memory (the meta device).
        """
        if dst.device.type == "meta":
            return None
        size = dst.element_size()
        return dst.data_ptr(), tuple(dst.shape), tuple(s * size for s in dst.stride()), size

    def check_out(self, op: str, results: Sequence[Any], out: Any) -> None:
        """As any backend, and tensors PyTorch refuses to write in place (before any is written).

        A leaf tensor that requires grad (an ``nn.Parameter``), or a view of one, can be written
        only under ``torch.no_grad()``; an inference tensor only inside ``torch.inference_mode()``.
        """
        if isinstance(out, list | tuple):  # before the shapes are read: nested ones have none
            for k, dst in enumerate(out):
                if getattr(dst, "is_nested", False) or getattr(dst, "is_sparse", False):
                    _dense(op, f"out[{k}]", dst)
        super().check_out(op, results, out)
        import torch  # noqa: PLC0415 - only when a tensor arrives

        grad = torch.is_grad_enabled()
        for k, dst in enumerate(out):
            _dense(op, f"out[{k}]", dst)
            base = dst._base if dst._is_view() else dst  # autograd tests the view's base
            if grad and base is not None and base.is_leaf and base.requires_grad:
                raise ValidationError(
                    op,
                    f"out[{k}]",
                    f"<Tensor of shape {list(dst.shape)} that requires grad>",
                    f"is {'a view of ' if base is not dst else ''}a leaf tensor that requires "
                    "grad, which PyTorch does not let be written in place",
                    hint="write under torch.no_grad(), or pass tensors that do not require grad",
                )
            if dst.is_inference() and not torch.is_inference_mode_enabled():
                raise ValidationError(
                    op,
                    f"out[{k}]",
                    f"<inference Tensor of shape {list(dst.shape)}>",
                    "is an inference tensor, which PyTorch lets be written only inside "
                    "torch.inference_mode()",
                    hint="call inside torch.inference_mode(), or pass ordinary tensors",
                )

    def assign(self, dst: Any, src: Any) -> None:
        """``copy_``: one multi-threaded kernel, no temporary."""
        dst.copy_(src)


def _dense(op: str, argument: str, t: Any) -> None:
    """A strided (dense), not nested, tensor, or ``BackendError``: the others have no views."""
    import torch  # noqa: PLC0415 - only when a tensor arrives

    kind = "nested" if t.is_nested else None if t.layout == torch.strided else str(t.layout)
    if kind is not None:
        raise BackendError(
            op,
            argument,
            f"<{kind} Tensor>",
            f"is a {kind} tensor; only strided (dense) tensors can be sliced and written",
            hint="call .to_dense() first" if kind != "nested" else "pass each tensor alone",
        )


# Integer types of each width, to flip the types torch.flip lacks on CPU (uint16/32/64, float8,
# complex32: "flip_cpu" not implemented) as their bits.
_TORCH_BITS: Final = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


def _torch_flip(t: Any, dims: list[int]) -> Any:
    try:
        return t.flip(dims)
    except NotImplementedError:
        import torch  # noqa: PLC0415 - only when a tensor arrives

        bits = getattr(torch, _TORCH_BITS.get(t.element_size(), ""), None)
        if bits is None:  # pragma: no cover - every torch type is 1, 2, 4 or 8 bytes wide
            raise
        return t.view(bits).flip(dims).view(t.dtype)


class JaxBackend(Backend):
    """JAX arrays are immutable and never views of each other.

    Indexing makes a new buffer eagerly, and inside ``jax.jit`` XLA decides
    (https://github.com/jax-ml/jax/issues/11585); so ``copy=False`` raises ``ViewError`` and
    ``out=`` raises ``BackendError``. Shapes are concrete ints even for tracers under
    ``jax.jit``, so the operators run there with static parameters.
    """

    name = "JAX"
    mutable = False

    def take(
        self,
        op: str,
        data: Any,
        indices: Sequence[Any],
        copy: bool | None,
        out: Any,
        *,
        chunks: bool = False,
    ) -> tuple[Any, ...]:
        """All outputs from one jitted function, cached per distinct indices (``chunks`` unused).

        Eager JAX dispatches every op separately (~15-40 us each, more for ``x[idx]``); one
        compiled function taking every index costs one dispatch. Inside an outer ``jax.jit``
        the inner one is inlined.
        """
        del chunks
        if out is not None:
            return self.write(op, data, [], out)
        if copy is False:
            raise self.no_views(op, data)
        return tuple(_jax_take(tuple(map(_freeze, indices)))(data))

    def copy(self, result: Any) -> Any:
        """JAX results are already independent."""
        return result


def _freeze(index: Any) -> Any:
    """A hashable form of a basic index (slices are unhashable before Python 3.12)."""
    key = index if isinstance(index, tuple) else (index,)
    return tuple(("s", k.start, k.stop, k.step) if isinstance(k, slice) else k for k in key)


def _thaw(frozen: Any) -> Index:
    return tuple(slice(*k[1:]) if isinstance(k, tuple) else k for k in frozen)


@functools.lru_cache(maxsize=256)
def _jax_take(frozen: tuple[Any, ...]) -> Any:
    import jax  # noqa: PLC0415 - only when a JAX array arrives

    keys = [_thaw(f) for f in frozen]
    return jax.jit(lambda x: tuple(x[k] for k in keys))


class DaskBackend(Backend):
    """Dask: lazy; indexing builds a graph, nothing is computed or materialised.

    Dask marks chunk sizes it does not know (after boolean indexing, say) as NaN
    (https://github.com/dask/dask/issues/6586). Axes of unknown size that the operator keeps
    whole are fine (the result is lazy); an operator that needs the size of such an axis raises
    ``BackendError`` naming it. ``copy=False`` is honoured: slices of a graph copy nothing.
    ``copy=True`` adds a lazy per-block copy, so computed results never alias the input's
    blocks (``Array.copy`` is a no-op in Dask). ``out=`` would have to compute, so it raises:
    use ``dask.array.store``.
    """

    name = "Dask"
    known_sizes = False
    views = True  # not views in NumPy's sense, but slices of a graph copy nothing
    mutable = False

    def shape(self, op: str, data: Any) -> tuple[int, ...]:
        """The shape, with unknown (NaN) sizes readable only by the axes that do not need them."""
        shape = tuple(data.shape)
        if all(isinstance(size, int) for size in shape):
            return shape
        return PartlyKnownShape(op, shape)

    def copy(self, result: Any) -> Any:
        """A lazy copy of every block."""
        return result.map_blocks(operator.methodcaller("copy"), dtype=result.dtype)

    def write(self, op: str, data: Any, results: Sequence[Any], out: Any) -> tuple[Any, ...]:
        """Dask arrays are lazy: writing into ``out`` would compute."""
        del data, results
        raise BackendError(
            op,
            "out",
            f"<{len(out) if isinstance(out, list | tuple) else '?'} arrays>",
            "cannot be written: the operators keep Dask arrays lazy and never compute",
            hint="dask.array.store(results, targets) writes the lazy results into arrays or "
            "Zarr stores",
        )


class PartlyKnownShape(tuple):  # type: ignore[type-arg]  # noqa: SLOT001 - op, sizes in __dict__
    """A Dask shape with unknown (NaN) sizes: reading one of those raises ``BackendError``.

    The operators read ``shape[axis]`` only for the axes they cut, slice or index, so an axis of
    unknown size kept whole gives a lazy result, and any other use is a clear error.
    """

    op: str
    sizes: tuple[Any, ...]

    def __new__(cls, op: str, sizes: tuple[Any, ...]) -> Self:
        """Keep the sizes; unknown ones are stored as ``None`` so arithmetic on them fails."""
        self = super().__new__(cls, (s if isinstance(s, int) else None for s in sizes))
        self.op = op
        self.sizes = sizes
        return self

    def __getitem__(self, key: Any) -> Any:
        """``shape[k]``: the size, or ``BackendError`` when Dask does not know it."""
        value = super().__getitem__(key)
        if isinstance(key, int) and value is None:
            raise BackendError(
                self.op,
                "data",
                f"<dask array of shape {self.sizes}>",
                f"has an unknown size (NaN) along axis {key}, which the operator needs",
                hint="call x.compute_chunk_sizes() first (it computes); axes of unknown "
                f"size can only be kept whole ({_DASK_UNKNOWN_CHUNKS})",
            )
        return value


_BACKENDS: dict[type, Backend] = BACKENDS


def backend_for(op: str, data: Any) -> Backend:
    """The backend for ``data``'s library, found once per array type."""
    kind = type(data)
    backend = _BACKENDS.get(kind)
    if backend is not None:
        return backend
    import array_api_compat as compat  # noqa: PLC0415 - only for foreign arrays

    if not compat.is_array_api_obj(data):
        raise DTypeError(op, "data", data, f"must be an array, not {kind.__name__}")
    try:
        xp = compat.array_namespace(data)
    except TypeError as exc:
        raise BackendError(
            op, "data", f"<{kind.__name__}>", f"comes from an unsupported array library ({exc})"
        ) from None
    if compat.is_torch_array(data):
        backend = TorchBackend(xp)
    elif compat.is_jax_array(data):
        backend = JaxBackend(xp)
    elif compat.is_dask_array(data):
        backend = DaskBackend(xp)
    elif compat.is_cupy_array(data):
        backend = CuPyBackend(xp)
    elif compat.is_array_api_strict_namespace(xp):
        backend = StrictBackend(xp)
    else:
        backend = Backend(xp)
    _BACKENDS[kind] = backend
    return backend
