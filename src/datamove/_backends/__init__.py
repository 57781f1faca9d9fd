"""The edge between the operators and array libraries: one backend object per library.

:func:`prepare` finds the backend of what the caller passed as ``data`` and its shape;
``backend.take(op, plan, data, copy, out)`` applies a :class:`~datamove._plan.Plan`. NumPy
(:mod:`._numpy`, with the copy engine :mod:`._copy`) is a backend like PyTorch, JAX, Dask,
CuPy and array-api-strict (:mod:`._foreign`); any other array API library gets the generic
:class:`._base.Backend`. Libraries are recognised with ``array_api_compat``'s ``is_*``
predicates, which look only at modules already imported, so ``import datamove`` imports no
array library but NumPy. To add a library: a subclass of ``Backend`` and its branch in
:func:`_new_backend`.
"""

from __future__ import annotations

import sys
from typing import Any, Final

import numpy as np

from datamove import _plan
from datamove._backends._base import Backend
from datamove._backends._numpy import NumpyBackend
from datamove._errors import BackendError, DTypeError, ValidationError, a_kind

__all__ = [
    "AS_NUMPY",
    "BACKENDS",
    "NUMPY",
    "Backend",
    "as_numpy",
    "backend_for",
    "foreign_backend",
    "prepare",
    "single_out",
    "take",
    "take_single",
    "traced",
]

NUMPY: Final = NumpyBackend(np)

# Array type -> its backend, filled on the first array of each type.
BACKENDS: Final[dict[type, Backend]] = {np.ndarray: NUMPY}

# What datamove turns into a NumPy array itself (anything else must be an array API array).
AS_NUMPY: Final = (np.generic, int, float, complex, bool, list, tuple)


def backend_for(op: str, data: Any) -> Backend:
    """The backend for ``data``'s library, found once per array type."""
    kind = type(data)
    backend = BACKENDS.get(kind)
    if backend is not None:
        return backend
    backend = NUMPY if isinstance(data, np.ndarray) else _new_backend(op, data)
    BACKENDS[kind] = backend
    return backend


def foreign_backend(op: str, data: Any) -> Backend | None:
    """The backend of an array of another library than NumPy; ``None`` for what NumPy reads.

    For callers that take anything ``np.asarray`` takes (DirectML's ``split`` and ``join``):
    NumPy arrays, scalars, sequences, buffers and objects with ``__array__`` give ``None``; an
    array API array of another library (PyTorch, JAX, Dask, CuPy ...) gives its backend, found
    once per array type as :func:`backend_for` finds it.
    """
    backend = BACKENDS.get(type(data))
    if backend is not None:
        return None if backend is NUMPY else backend
    if data is None or isinstance(data, (np.ndarray, *AS_NUMPY)):
        return None
    import array_api_compat as compat  # noqa: PLC0415 - only for values NumPy does not know

    return backend_for(op, data) if compat.is_array_api_obj(data) else None


def _new_backend(op: str, data: Any) -> Backend:
    import array_api_compat as compat  # noqa: PLC0415 - only for foreign arrays

    from datamove._backends import _foreign  # noqa: PLC0415 - only for foreign arrays

    kind = type(data)
    if _plan.compiling():  # dynamo warns on array_api_compat's lru_caches: a tensor, by type
        torch = sys.modules["torch"]
        if isinstance(data, torch.Tensor):
            from array_api_compat import torch as xp  # noqa: PLC0415 - only for tensors

            return _foreign.TorchBackend(xp)
    if not compat.is_array_api_obj(data):
        raise DTypeError(op, "data", data, f"must be an array, not {a_kind(data)}")
    try:
        xp = compat.array_namespace(data)
    except TypeError as exc:
        raise BackendError(
            op, "data", f"<{kind.__name__}>", f"comes from an unsupported array library ({exc})"
        ) from None
    if compat.is_torch_array(data):
        return _foreign.TorchBackend(xp)
    if compat.is_jax_array(data):
        return _foreign.JaxBackend(xp)
    if compat.is_dask_array(data):
        return _foreign.DaskBackend(xp)
    if compat.is_cupy_array(data):
        return _foreign.CuPyBackend(xp)
    if compat.is_array_api_strict_namespace(xp):
        return _foreign.StrictBackend(xp)
    return Backend(xp)


def prepare(op: str, data: Any) -> tuple[Backend, Any, tuple[int, ...]]:
    """``(backend, array, shape)`` for what the caller passed as ``data``.

    NumPy arrays (and subclasses) pass through; Python scalars, lists and tuples become NumPy
    arrays; any other object must be an array API array. A Dask array with unknown (NaN) sizes
    gets a shape whose unknown entries raise ``BackendError`` when an operator reads them.
    """
    backend = BACKENDS.get(type(data))
    if backend is None:
        if isinstance(data, AS_NUMPY):
            data = as_numpy(op, "data", data)
            return NUMPY, data, data.shape
        backend = backend_for(op, data)
    return backend, data, backend.shape(op, data)


def traced(value: Any) -> bool:
    """Whether ``value`` is a JAX tracer (an argument inside ``jax.jit``): a shape, no values.

    Reading its values (``tolist``, ``int``) raises JAX's ``ConcretizationTypeError``.
    """
    jax = sys.modules.get("jax")  # never imported here: a tracer comes only where JAX is
    return jax is not None and isinstance(value, jax.core.Tracer)


def as_numpy(op: str, argument: str, value: Any) -> np.ndarray:
    """A Python scalar, list or tuple (or NumPy scalar) as a NumPy array, or ``DTypeError``."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nesting, objects that refuse
        raise DTypeError(op, argument, value, f"cannot be read as an array: {exc}") from None
    if arr.dtype == object and isinstance(value, list | tuple):
        raise DTypeError(
            op,
            argument,
            value,
            "is not an array of numbers: NumPy could hold it only as Python objects (ints "
            "beyond 64 bits, None, or other objects)",
        )
    return arr


def take(op: str, backend: Backend, plan: Any, data: Any, copy: Any, out: Any) -> tuple[Any, ...]:
    """``backend.take`` once ``copy`` is checked: ``None``, ``True`` or ``False`` (NumPy's too).

    ``copy=None``: views where the library has them. ``True``: independent arrays (C order for
    NumPy and PyTorch). ``False``: views, or ``ViewError`` where the library has none. ``out``:
    one preallocated array per output, of its shape, dtype and device, written in one pass
    (``copy`` then has no say); it may not share memory with ``data`` or another ``out``.
    """
    if not (copy is None or isinstance(copy, bool | np.bool_)):
        raise DTypeError(op, "copy", copy, "must be None, True or False")
    if copy is not None:
        copy = bool(copy)  # np.False_ is False: the backends test `copy is False`
    return backend.take(op, plan, data, copy, out)


def take_single(op: str, backend: Backend, plan: Any, data: Any, copy: Any, out: Any) -> Any:
    """:func:`take` of a one-output plan with one ``out`` array: errors call it ``out``.

    The caller passed ``out``, not a sequence of them, so an error about ``out[0]`` is raised
    again naming ``out``.
    """
    try:
        (result,) = take(op, backend, plan, data, copy, None if out is None else (out,))
    except ValidationError as exc:
        raise single_out(exc) from None
    return result


def single_out(exc: ValidationError) -> ValidationError:
    """``exc`` naming ``out`` where it names ``out[0]``, the one out array of one output.

    ``out[0].mask`` (a masked array's) becomes ``out.mask``.
    """
    argument = exc.argument or ""
    if argument != "out[0]" and not argument.startswith("out[0]."):
        return exc
    return type(exc)(exc.op, "out" + argument[6:], exc.value, exc.rule, hint=exc.hint)
