"""DirectML's split and join on arrays: the packed descs built for the caller, then run.

:func:`split` and :func:`join` take NumPy arrays (or anything ``np.asarray`` takes) and arrays
of other array API libraries, found through the backend registry
(:func:`datamove._backends.foreign_backend`). Both kinds are checked against the same packed
descs, so they raise the same errors. NumPy values then go through the buffers
(``write_tensor``, ``run_split``/``run_join``, ``read_tensor``); another library's arrays are
cut or put together by that library (``variadic_split``, its ``concat``), on its device.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, cast

import numpy as np

from datamove._backends import Backend, as_numpy, foreign_backend
from datamove._backends._foreign import DASK_UNKNOWN_CHUNKS, PartlyKnownShape
from datamove._errors import BackendError, DTypeError, ValidationError
from datamove._split import variadic_split
from datamove._validation import check_array, normalize_axis
from datamove.directml._desc import JoinDesc, SplitDesc, check_count
from datamove.directml._enums import TensorDataType
from datamove.directml._run import NUMPY_OF, read_tensor, run_join, run_split, write_values
from datamove.directml._tensor import TensorDesc, integer, uint

__all__ = ["join", "split"]

_DML_OF = {v: k for k, v in NUMPY_OF.items() if k.bits != 4}


def _own_type(dtype: np.dtype[Any]) -> TensorDataType | None:
    """The DirectML type an array of ``dtype`` travels as, if any (bool as UINT8).

    Either byte order: ``>i4`` travels as INT32, its values converted to the native order.
    """
    if dtype == np.bool_:
        return TensorDataType.UINT8
    if dtype.name in {"int4", "uint4"}:  # ml_dtypes
        return TensorDataType.parse(dtype.name)
    return _DML_OF.get(dtype if dtype.isnative else dtype.newbyteorder("="))


def _dml_type(
    array: _Like | np.ndarray[Any, Any], data_type: TensorDataType | str | int | None
) -> TensorDataType:
    if data_type is not None:
        return TensorDataType.parse(data_type)
    found = _own_type(array.dtype)
    if found is None:
        raise DTypeError(
            "DirectML", "array", array.dtype, "has no DirectML data type",
            hint="DirectML has FLOAT16/32/64, (U)INT8/16/32/64 and (U)INT4; bool travels as UINT8",
        )  # fmt: skip
    return found


def _axis(axis: Any, rank: int) -> int:
    """``axis`` in ``[0, rank - 1]``: the shared rule (``normalize_axis``), after a type check.

    The type check is DirectML's own, not ``as_int``'s: any Python or NumPy integer but a bool
    (a 0-d NumPy integer array too), as a desc's integer fields take (`integer`). ``as_int``
    would add the int64 rule and its hint, which mean nothing here (an axis past int64 is out of
    range like any other).
    """
    return normalize_axis("DirectML", "axis", axis, integer("DirectML", "axis", axis), rank)


def _from_numpy_values(
    values: np.ndarray[Any, Any], data_type: TensorDataType, source: np.dtype[Any]
) -> np.ndarray[Any, Any]:
    """An output's values, read as ``data_type``, in the dtype the caller gets back.

    The source's own dtype where ``data_type`` is the type it travels as (``int4`` stays
    ``int4``, ``bool`` stays ``bool``, ``>i4`` stays ``>i4``); otherwise ``data_type``'s NumPy
    dtype, as read (``int8`` for INT4, ``uint8`` for UINT4).
    """
    if _own_type(source) is not data_type or values.dtype == source:
        return values
    if source == np.bool_:
        return values.view(np.bool_)
    return values.astype(source)  # ml_dtypes' 4-bit types, the other byte order


class _Like(NamedTuple):
    """What the descs need of an array of another library."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]


def _source(value: Any, name: str, backend: Backend | None) -> _Like | np.ndarray[Any, Any]:
    """What the descs need of ``value``, whose library's backend is ``backend``.

    A NumPy array for what NumPy reads (``backend`` is ``None``); the shape and dtype of an
    array of another library, whose every size must be known.
    """
    if backend is None:
        return as_numpy("DirectML", name, value)
    shape = backend.shape("DirectML", value)
    if isinstance(shape, PartlyKnownShape):  # Dask: NaN where it does not know a size
        axis = next(k for k, size in enumerate(shape.sizes) if not isinstance(size, int))
        raise BackendError(
            "DirectML", name, f"<dask array of shape {shape.sizes}>",
            f"has an unknown size (NaN) along axis {axis}; a DirectML desc needs every size",
            hint=f"call {name}.compute_chunk_sizes() first (it computes) "
            f"({DASK_UNKNOWN_CHUNKS})",
        )  # fmt: skip
    dtype = value.dtype
    if not isinstance(dtype, np.dtype):  # torch.float32, array_api_strict.int8, ...
        try:
            dtype = np.dtype(str(dtype).rsplit(".", 1)[-1])
        except TypeError:
            raise DTypeError(
                "DirectML", name, str(value.dtype), "has no DirectML data type"
            ) from None
    return _Like(shape, dtype)


def _own_type_only(source: _Like | np.ndarray[Any, Any], data_type: Any, name: str) -> None:
    """``data_type`` on another library's array: only its own type (no conversion there)."""
    own = _dml_type(source, None)
    if data_type is not None and TensorDataType.parse(data_type) is not own:
        raise ValidationError(
            "DirectML",
            "data_type",
            data_type,
            f"differs from {name}'s own type {own.name}; only NumPy arrays are converted",
            hint="convert the array first, or leave data_type out",
        )


def _packed_descs(dtype: TensorDataType, shapes: list[tuple[Any, ...]]) -> list[TensorDesc]:
    """A packed desc per shape, one object per distinct shape.

    Equal parts then share their desc, and with it its checks and copy plan: a split into a
    million parts of one length validates one tensor, not a million.
    """
    made: dict[object, TensorDesc] = {}
    descs = []
    for shape in shapes:
        try:  # the key tells 2 from 2.0 and np.int8(2): each gets its own desc, or its error
            key: object = tuple((type(n), n) for n in shape)
            desc = made.get(key)
        except TypeError:  # an unhashable size: TensorDesc says what is wrong with it
            key, desc = None, None
        if desc is None:
            desc = TensorDesc(dtype, shape)
            if key is not None:
                made[key] = desc
        descs.append(desc)
    return descs


def split(
    array: Any, axis: int, sizes: Sequence[int], *, data_type: TensorDataType | str | None = None
) -> list[Any]:
    """Split an array with ``DML_SPLIT``, building the packed descs for you.

    Parameters
    ----------
    array : array_like
        The input: a NumPy array (or anything ``np.asarray`` takes), or an array of another
        library with the Python array API (PyTorch, JAX, Dask, CuPy, ...). Its dtype picks the
        DirectML type (bool travels as UINT8; ml_dtypes' ``int4``/``uint4`` as INT4/UINT4;
        either byte order: ``>i4`` as INT32, the outputs ``>i4``).
    axis : int
        May be negative here (NumPy's convention); it is normalised before the desc is built.
    sizes : sequence of int
        Each output's length along ``axis``, each at least 1, summing to the input's.
    data_type : TensorDataType or str, optional
        Force a DirectML type (``"UINT4"`` on an array of small integers, say); the outputs then
        have that type's NumPy dtype (``uint8`` for UINT4, ``int8`` for INT4), whatever the
        array's dtype, ml_dtypes' 4-bit ones included. The type the array travels as anyway
        (INT4 for ``int4``, UINT8 for bool) changes nothing: the outputs keep its dtype. Values
        are converted, never reinterpreted: one the type cannot hold (``int4`` -1 as UINT4, any
        float as an integer type) is a ``DTypeError`` naming ``array``. NumPy arrays only: on
        another library's array it may only name the array's own type.

    Returns
    -------
    list of arrays
        The outputs: NumPy arrays with the input's dtype (or ``data_type``'s), or fresh arrays
        of the input's library on its device (a Dask input stays lazy). Both are checked
        against the same descs, so both raise the same errors.

    Examples
    --------
    >>> import numpy as np
    >>> [p.tolist() for p in split(np.arange(1, 13).reshape(1, 1, 6, 2), 2, [2, 1, 3])]
    [[[[[1, 2], [3, 4]]]], [[[[5, 6]]]], [[[[7, 8], [9, 10], [11, 12]]]]]
    """
    backend = foreign_backend("DirectML", array)
    source = _source(array, "array", backend)
    dtype = _dml_type(source, data_type)
    axis = _axis(axis, len(source.shape))
    check_array("DirectML", "sizes", sizes, 1, "a sequence of lengths or a NumPy integer array")
    if (
        isinstance(sizes, int | str)
        or not isinstance(sizes, Sequence | np.ndarray)
        or getattr(sizes, "ndim", 1) != 1  # a 0-d array is no sequence
    ):
        raise DTypeError("DirectML", "sizes", sizes, "must be a sequence of lengths")
    check_count("DirectML", "sizes", len(sizes), "lengths")
    # Each length checked as the caller wrote it: the descs would name their own axis instead.
    lengths = [uint("DirectML", f"sizes[{i}]", n) for i, n in enumerate(sizes)]
    whole = TensorDesc(dtype, source.shape)
    before, after = source.shape[:axis], source.shape[axis + 1 :]
    parts = _packed_descs(dtype, [(*before, n, *after) for n in lengths])
    desc = SplitDesc(whole, parts, axis)
    desc.validate(None)
    if backend is not None:  # the same parts, cut by the array's own library
        _own_type_only(source, data_type, "array")
        return list(variadic_split(array, axis, lengths, copy=True))
    assert isinstance(source, np.ndarray)  # for the type checker: not foreign
    # The array's values, converted where no value changes (errors name "array")
    buffers = run_split(desc, write_values(whole, source, None, "array"))
    return [
        _from_numpy_values(read_tensor(t, b), dtype, source.dtype)
        for t, b in zip(parts, buffers, strict=True)
    ]


def _one_library(arrays: Sequence[Any], backends: list[Backend | None]) -> Backend:
    """The backend of ``arrays``, all of one library (not NumPy) and on one device."""
    for i, (a, backend) in enumerate(zip(arrays, backends, strict=True)):
        if backend is None:
            raise DTypeError(
                "DirectML",
                f"arrays[{i}]",
                _show_type(a),
                "must come from the library of the others",
            )
    first = backends[0]
    assert first is not None  # checked above
    if any(backend is not None and backend.xp is not first.xp for backend in backends):
        raise DTypeError(
            "DirectML", "arrays", [_show_type(a) for a in arrays], "mix array libraries"
        )
    first.one_device("DirectML", arrays)
    return first


def _show_type(value: Any) -> str:
    return f"<{type(value).__module__}.{type(value).__name__}>"


def join(arrays: Sequence[Any], axis: int, *, data_type: TensorDataType | str | None = None) -> Any:
    """Join arrays with ``DML_JOIN``, building the packed descs for you.

    Parameters
    ----------
    arrays : sequence of array_like
        The inputs, all of one dtype and rank: NumPy arrays (or anything ``np.asarray`` takes),
        or arrays of one other library with the Python array API, on one device. The dtype may
        come in either byte order (``>i4`` and ``<i4`` both travel as INT32).
    axis : int
        May be negative (normalised before the desc is built).
    data_type : TensorDataType or str, optional
        Force a DirectML type: the output then has its NumPy dtype, unless it is the type the
        inputs travel as anyway (NumPy arrays only; see :func:`split`).

    Returns
    -------
    array
        The output: a NumPy array with the inputs' dtype (or ``data_type``'s), in the native
        byte order where theirs differ; or an array of the inputs' library on their device
        (``concat``; Dask stays lazy).

    Examples
    --------
    >>> import numpy as np
    >>> join([np.array([[1.0], [3.0]]), np.array([[2.0], [4.0]])], -1).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if not isinstance(arrays, list | tuple) or not arrays:
        raise DTypeError("DirectML", "arrays", arrays, "must be a non-empty sequence of arrays")
    check_count("DirectML", "arrays", len(arrays), "arrays")
    backends = [foreign_backend("DirectML", a) for a in arrays]
    library = None if all(b is None for b in backends) else _one_library(arrays, backends)
    sources = [
        _source(a, f"arrays[{i}]", b) for i, (a, b) in enumerate(zip(arrays, backends, strict=True))
    ]
    dtype = _dml_type(sources[0], data_type)
    native = sources[0].dtype.newbyteorder("=")  # a byte order is no part of a DirectML type
    for i, source in enumerate(sources):
        if source.dtype.newbyteorder("=") != native:
            raise DTypeError(
                "DirectML",
                f"arrays[{i}]",
                source.dtype,
                f"must match arrays[0]'s {sources[0].dtype} (in either byte order)",
            )
    one = all(s.dtype == sources[0].dtype for s in sources)  # else the output's order is native
    first = sources[0].shape
    axis = _axis(axis, len(first))
    parts = _packed_descs(dtype, [s.shape for s in sources])
    total = sum(s.shape[axis] if len(s.shape) == len(first) else 0 for s in sources)
    whole = TensorDesc(dtype, (*first[:axis], total, *first[axis + 1 :]))
    desc = JoinDesc(parts, whole, axis)
    desc.validate(None)
    if library is not None:  # the same whole, put together by the arrays' own library
        _own_type_only(sources[0], data_type, "arrays[0]")
        return library.join(arrays, axis)
    arrays_in = cast("list[np.ndarray[Any, Any]]", sources)  # no library: all NumPy arrays
    buffer = run_join(
        desc,
        [
            write_values(t, a, None, f"arrays[{i}]")
            for i, (t, a) in enumerate(zip(parts, arrays_in, strict=True))
        ],
    )
    return _from_numpy_values(
        read_tensor(whole, buffer), dtype, sources[0].dtype if one else native
    )
