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

import operator
from typing import TYPE_CHECKING, Any, Final, Self

from datamove import _plan
from datamove._backends._base import Backend, normalized, shown_out
from datamove._errors import BackendError, ValidationError, ViewError
from datamove._layout import Layout
from datamove._plan import Index

if TYPE_CHECKING:
    from collections.abc import Sequence

    from datamove._plan import Plan

__all__ = [
    "DASK_UNKNOWN_CHUNKS",
    "CuPyBackend",
    "DaskBackend",
    "JaxBackend",
    "PartlyKnownShape",
    "StrictBackend",
    "TorchBackend",
]

_TORCH_NEGATIVE_STEP = "https://github.com/pytorch/pytorch/issues/59786"
DASK_UNKNOWN_CHUNKS = "https://github.com/dask/dask/issues/6586"


def positive_steps(key: Index, shape: tuple[int, ...]) -> tuple[Index, list[int]]:
    """The same elements with positive steps, and the output axes to reverse afterwards.

    ``key`` holds ints, slices and ``None``: the builders put an ``Ellipsis`` only in an index
    with no slice (``(...,)``, or one of ints alone: `datamove._strided_slice`, `_slice`).
    """
    positive: list[Any] = []
    flips: list[int] = []
    axis = 0  # input axis
    at = 0  # output axis
    for k in key:
        if k is None:
            positive.append(k)
            at += 1
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


class StrictBackend(Backend):
    """array-api-strict wraps NumPy: basic indexing returns views, ``__setitem__`` writes."""

    name = "array-api-strict"
    views = True

    def layout(self, dst: Any) -> Layout | None:
        """The NumPy array it wraps (``_array``, a private attribute; ``None`` if it is gone)."""
        a = getattr(dst, "_array", None)
        if a is None or not hasattr(a, "ctypes"):
            return None
        return a.ctypes.data, a.shape, a.strides, a.itemsize

    def check_out(self, op: str, results: Sequence[Any], out: Any) -> None:
        """As any backend, and no ``out`` over a read-only NumPy array, before any is written.

        ``asarray`` wraps a read-only NumPy array as it is.
        """
        super().check_out(op, results, out)
        for k, dst in enumerate(out):
            flags = getattr(getattr(dst, "_array", None), "flags", None)
            if flags is not None and not flags.writeable:
                raise ValidationError(op, f"out[{k}]", "<read-only array>", "is read-only")


class CuPyBackend(Backend):
    """CuPy: NumPy's view semantics (negative steps included) on a GPU.

    Untested here (no GPU on the machines this was written on); only generic array API calls.
    """

    name = "CuPy"
    views = True

    def layout(self, dst: Any) -> Layout | None:
        """``dst.data.ptr``: the device address of element 0; strides in bytes, as NumPy's."""
        return int(dst.data.ptr), tuple(dst.shape), tuple(dst.strides), int(dst.itemsize)


class TorchBackend(Backend):
    """PyTorch: views, except for negative steps, which PyTorch cannot express.

    PyTorch has no negative strides, so ``t[::-1]`` raises "step must be greater than zero"
    (https://github.com/pytorch/pytorch/issues/59786): a negative-step slice becomes the same
    elements taken with a positive step, then ``torch.flip`` along those axes, which copies.
    A cached plan keeps its PyTorch form (``narrow`` calls, or the sizes of one
    ``split_with_sizes``) with it.
    """

    name = "PyTorch"
    views = True

    def __init__(self, xp: Any) -> None:
        """Keep ``torch.strided``: every call compares a tensor's layout with it."""
        super().__init__(xp)
        import torch  # noqa: PLC0415 - only when a tensor arrives

        self._strided = torch.strided

    def shape(self, op: str, data: Any) -> tuple[int, ...]:
        """The shape of a strided tensor; sparse and other layouts have no basic indexing."""
        if data.layout is not self._strided or data.is_nested:
            _dense(op, "data", data)
        return tuple(data.shape)  # a torch.Size holds ints only

    def index(self, op: str, data: Any, index: Index, copy: bool | None) -> tuple[Any, bool]:
        """``data[index]``; a flip for negative steps (a copy: ``ViewError`` if copy=False)."""
        return self._apply(op, data, _torch_form(index, tuple(data.shape)), copy)

    def _apply(
        self, op: str, data: Any, form: tuple[Any, list[int]], copy: bool | None
    ) -> tuple[Any, bool]:
        positive, flips = form
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
        return (self.copy(flipped) if copy and not flipped.is_contiguous() else flipped), True

    def take(self, op: str, plan: Plan, data: Any, copy: bool | None, out: Any) -> tuple[Any, ...]:
        """Chunks as one ``split_with_sizes`` call (views, a C++ loop); otherwise as any backend.

        ``data`` is strided and not nested: :meth:`shape` refused the others in ``prepare``.
        """
        if copy is None and out is None:
            if plan.axis >= 0 and plan.indices:
                sizes = _plan.lowered(plan, self.name, _chunk_sizes, 8 * len(plan.indices))
                return tuple(data.split_with_sizes(sizes, plan.axis))
            shape = tuple(data.shape)
            forms = _plan.lowered(
                plan,
                self.name,
                lambda p: [_torch_form(i, shape) for i in p.indices],
                plan.cost,
            )
            return tuple([self._apply(op, data, form, None)[0] for form in forms])
        return super().take(op, plan, data, copy, out)

    def join(self, parts: Sequence[Any], axis: int) -> Any:
        """``torch.cat``; the types it has no kernel for join as their bytes.

        The bit types uint1..7 and int1..7 ("copy_kernel") and float4_e2m1fn_x2
        ("cat_serial_kernel") have none on CPU but along the first axis.
        """
        import torch  # noqa: PLC0415 - only when a tensor arrives

        try:
            return torch.cat(list(parts), dim=axis)
        except NotImplementedError:  # raised before anything is written
            return torch.cat([_as_ints(p) for p in parts], dim=axis).view(parts[0].dtype)

    def device(self, a: Any) -> Any:
        """``a.device`` (a tenth of the cost of ``array_api_compat.device``)."""
        return a.device

    def copy(self, result: Any) -> Any:
        """``clone`` into a C-contiguous tensor on the same device (torch copies in parallel)."""
        import torch  # noqa: PLC0415 - only when a tensor arrives

        try:
            return result.clone(memory_format=torch.contiguous_format)
        except NotImplementedError:  # a bit type (uint1..7, int1..7): its bytes
            return _as_ints(result).clone(memory_format=torch.contiguous_format).view(result.dtype)

    def layout(self, dst: Any) -> Layout | None:
        """``data_ptr()`` is element 0's address; PyTorch counts strides in elements.

        ``None`` for tensors without memory (the meta device) or without storage of their own
        (inside ``torch.vmap``: "Cannot access data pointer of Tensor that doesn't have
        storage").
        """
        if dst.device.type == "meta":
            return None
        try:
            address = dst.data_ptr()
        except RuntimeError:
            return None
        size = dst.element_size()
        return address, tuple(dst.shape), tuple(s * size for s in dst.stride()), size

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
        # inside a torch.func transform (the results are views of one tensor, or one join)
        if results and _no_storage(results[0]):
            _try_writes(op, results, out)

    def assign(self, dst: Any, src: Any) -> None:
        """``copy_``: one multi-threaded kernel, no temporary (bit types: their bytes)."""
        try:
            dst.copy_(src)
        except NotImplementedError:  # raised before anything is written
            _as_ints(dst).copy_(_as_ints(src))


def _no_storage(t: Any) -> bool:
    """Whether ``t`` has no storage of its own (inside ``torch.vmap``, ``torch.func.grad``)."""
    if t.device.type == "meta":
        return False
    try:
        t.data_ptr()
    except RuntimeError:
        return True
    return False


def _try_writes(op: str, results: Sequence[Any], out: Any) -> None:
    """Each out written with none of its elements: what PyTorch refuses, before any is written.

    Inside ``torch.vmap`` PyTorch does not write a batched result into a tensor it does not
    batch (one closed over, not an argument): its RuntimeError ("vmap: inplace
    arithmetic(self, *extra_args) is not possible") came at that out's ``copy_``, after the
    outs before it were written. A ``copy_`` of no elements meets the same check and writes
    nothing (torch.func's "Mutation: in-place PyTorch operations" limitation,
    https://pytorch.org/docs/stable/func.ux_limitations.html).
    """
    for k, (dst, src) in enumerate(zip(out, results, strict=True)):
        try:
            dst.reshape(-1)[:0].copy_(src.reshape(-1)[:0])
        except RuntimeError as exc:
            shown = f"<Tensor of shape {list(dst.shape)}>"
            if "vmap" in str(exc):
                rule = (
                    "is not batched by torch.vmap, but the result written into it is: PyTorch "
                    "writes no batched result into it in place"
                )
                hint = "pass the out tensors as arguments vmap batches, or leave out= out"
                raise ValidationError(op, f"out[{k}]", shown, rule, hint=hint) from None
            rule = f"cannot be written in place here: PyTorch refuses it ({exc})"
            raise ValidationError(op, f"out[{k}]", shown, rule) from None


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


def _torch_form(index: Index, shape: tuple[int, ...]) -> tuple[Any, list[int]]:
    """``(positive, flips)``: ``index`` as PyTorch can take it, and the axes to flip after.

    ``positive`` is a list of ``(axis, start, length)`` for ``narrow`` where every entry is a
    unit-step slice, else an index with positive steps only.
    """
    key = index if isinstance(index, tuple) else (index,)
    if all(type(k) is slice and k.step in (None, 1) for k in key):
        narrow = []
        for axis, k in enumerate(key):
            if k.start is not None or k.stop is not None:
                start, stop, _ = k.indices(shape[axis])
                narrow.append((axis, start, max(stop - start, 0)))
        return narrow, []
    if not any(isinstance(k, slice) and k.step is not None and k.step < 0 for k in key):
        return key, []
    return positive_steps(key, shape)


def _chunk_sizes(plan: Plan) -> list[int]:
    """The chunk lengths of a split plan (each index ends with its unit-step cut)."""
    return [k[-1].stop - k[-1].start for k in plan.indices]


# Integer types of each width, to move the types PyTorch has no kernel for as their bits: flip
# on CPU lacks uint16/32/64, float8 and complex32 ("flip_cpu" not implemented); the bit types
# uint1..7 and int1..7 have no copy either ("copy_kernel" not implemented), and cat lacks them
# and float4_e2m1fn_x2 but along the first axis.
_TORCH_BITS: Final = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


def _as_ints(t: Any) -> Any:
    """``t`` viewed as integers of its width (a view: the same memory)."""
    import torch  # noqa: PLC0415 - only when a tensor arrives

    bits = getattr(torch, _TORCH_BITS.get(t.element_size(), ""), None)
    if bits is None:  # pragma: no cover - every torch type is 1, 2, 4 or 8 bytes wide
        raise NotImplementedError(f"no integer type of {t.element_size()} bytes for {t.dtype}")
    return t.view(bits)


def _torch_flip(t: Any, dims: list[int]) -> Any:
    try:
        return t.flip(dims)
    except NotImplementedError:
        # A conjugate or negative view has no view as another dtype: its values first (a copy;
        # https://github.com/pytorch/pytorch/issues/59946)
        return _as_ints(t.resolve_conj().resolve_neg()).flip(dims).view(t.dtype)


class JaxBackend(Backend):
    """JAX arrays are immutable and never views of each other.

    Indexing makes a new buffer eagerly, and inside ``jax.jit`` XLA decides
    (https://github.com/jax-ml/jax/issues/11585); so ``copy=False`` raises ``ViewError`` and
    ``out=`` raises ``BackendError``. Shapes are concrete ints even for tracers under
    ``jax.jit``, so the operators run there with static parameters.
    """

    name = "JAX"
    mutable = False

    def take(self, op: str, plan: Plan, data: Any, copy: bool | None, out: Any) -> tuple[Any, ...]:
        """All outputs from one jitted function, kept with the cached plan.

        Eager JAX dispatches every op separately (~15-40 us each, more for ``x[idx]``); one
        compiled function taking every index costs one dispatch. Inside an outer ``jax.jit``
        the inner one is inlined. A plan that is not cached (its parameters have no key) is
        indexed eagerly instead: compiling costs more than it saves once.
        """
        if out is not None:
            return self.write(op, (data,), [], out)
        if copy is False:
            raise self.no_views(op, data)
        if plan.key is None:
            return tuple(data[normalized(index)] for index in plan.indices)
        return tuple(_plan.lowered(plan, self.name, _jax_take, _JAX_BYTES)(data))


# What a jitted function and its compiled executable hold, by estimate, for the cache's bound.
_JAX_BYTES: Final = 256 << 10


def _jax_take(plan: Plan) -> Any:
    import jax  # noqa: PLC0415 - only when a JAX array arrives

    keys = [normalized(index) for index in plan.indices]
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
    views = True  # not views in NumPy's sense, but slices of a graph copy nothing
    mutable = False

    def shape(self, op: str, data: Any) -> tuple[int, ...]:
        """The shape, with unknown (NaN) sizes readable only by the axes that do not need them."""
        shape = tuple(data.shape)
        if all(isinstance(size, int) for size in shape):
            return shape
        return PartlyKnownShape(op, shape)

    def concat(self, op: str, parts: Sequence[Any], axis: int, out: Any) -> Any:
        """The lazy join; every size off ``axis`` must be known, for Concat compares them."""
        for k, part in enumerate(parts):
            for i, size in enumerate(part.shape):
                if i != axis and not isinstance(size, int):
                    raise BackendError(
                        op,
                        f"arrays[{k}]",
                        f"<dask array of shape {tuple(part.shape)}>",
                        f"has an unknown size (NaN) along axis {i}, which the operator needs: "
                        f"the sizes off the concatenation axis {axis} must agree",
                        hint=f"call arrays[{k}].compute_chunk_sizes() first (it computes); "
                        f"only the concatenation axis can be of unknown size "
                        f"({DASK_UNKNOWN_CHUNKS})",
                    )
        return super().concat(op, parts, axis, out)

    def copy(self, result: Any) -> Any:
        """A lazy copy of every block."""
        return result.map_blocks(operator.methodcaller("copy"), dtype=result.dtype)

    def write(
        self, op: str, inputs: Sequence[Any], results: Sequence[Any], out: Any
    ) -> tuple[Any, ...]:
        """Dask arrays are lazy: writing into ``out`` would compute."""
        del inputs, results
        raise BackendError(
            op,
            "out",
            shown_out(out),
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
                f"size can only be kept whole ({DASK_UNKNOWN_CHUNKS})",
            )
        return value
