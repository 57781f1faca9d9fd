"""Argument checks shared by every operator, so the wording never drifts between them.

Integer inputs (axis, begin, end, stride, split_lengths) accept Python ints and sequences of them,
NumPy integer scalars and integer arrays of any integer dtype: the specs' "any integer type".
Bool and float values are rejected (OpenVINO would truncate floats silently). Values must fit in
int64, the widest index type of every runtime datamove speaks for; the hint names the operator's.
Sets, mappings, strings and bytes are no vectors. A vector holds at most ``MAX_LENGTH`` values.

Another library's array (PyTorch, JAX, array-api-strict, Dask, CuPy ...) is never read as a
parameter: its values may live on a device, be traced (``jax.jit``) or be a Dask graph. Its
element type and rank are checked first, with NumPy's wording (`describe`), so the same mistake
reads alike whichever library made the array; an integer one of the right rank is then refused
as that library's array.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

import numpy as np

from datamove._errors import AxisError, DTypeError, ValidationError, a_kind
from datamove._layout import OUT_EXACT_ELEMENTS
from datamove._shape import INT64_MAX, INT64_MIN, MAX_LENGTH, NOT_A_SEQUENCE, Unknown

__all__ = [
    "MAX_LENGTH",
    "Vector",
    "as_int",
    "as_int_vector",
    "as_mask",
    "check_array",
    "check_concrete",
    "check_length",
    "check_out",
    "describe",
    "index_vector",
    "normalize_axis",
    "out_loses_mask",
    "out_overlaps_input",
    "out_overlaps_itself",
    "out_source",
    "vector_length",
]


# The runtime an operator's name belongs to, by its first word ("tf.split", "ONNX Slice"), for the
# int64 hint; the others (Split, StridedSlice, Slice, Concat, ...) are OpenVINO's.
_RUNTIMES: Final = {
    "tf": "TensorFlow",
    "torch": "PyTorch",
    "numpy": "NumPy",
    "ONNX": "ONNX",
    "DirectML": "DirectML",
    "WebNN": "WebNN",
}


def _check_range(
    op: str, argument: str, value: Any, ints: tuple[int, ...], *, scalar: bool = False
) -> None:
    for v in ints:
        if v < INT64_MIN or v > INT64_MAX:
            runtime = _RUNTIMES.get(op.replace(".", " ").split()[0], "OpenVINO")
            raise ValidationError(
                op,
                argument,
                value,
                "does not fit in int64" if scalar else f"holds {v}, which does not fit in int64",
                hint=f"no {runtime} index type holds it; values are never wrapped",
            )


# The libraries whose arrays a parameter may be by mistake, by the top module of the array's type.
_LIBRARIES: Final = {
    "numpy": "NumPy",
    "torch": "PyTorch",
    "jax": "JAX",
    "jaxlib": "JAX",
    "array_api_strict": "array-api-strict",
    "dask": "Dask",
    "cupy": "CuPy",
}


class Described(NamedTuple):
    """What an array is, in words that do not depend on its library."""

    library: str  # "NumPy", "PyTorch", ... or the top module's name
    element: str  # its element type without the library's prefix: "int64", "float32", "bool"
    shape: list[Any]  # Dask's unknown sizes are NaN

    @property
    def kind(self) -> str:
        """``"i"`` (signed or unsigned integers), ``"b"`` (bool) or ``"?"`` (anything else)."""
        if self.element.startswith(("int", "uint")) and self.element[-1].isdigit():
            return "i"
        return "b" if self.element == "bool" else "?"


def describe(value: Any) -> Described | None:
    """``value`` as an array of any library (its shape and dtype read, never its values).

    ``None`` for what is no array (a NumPy scalar is a number, not an array). An array is a
    NumPy one (a subclass too), one of the array API or DLPack, or one of a library listed in
    ``_LIBRARIES``: a sequence of another kind with a shape (a pandas Series) is read as one.

    Examples
    --------
    >>> describe(np.zeros((2, 3), np.float32))
    Described(library='NumPy', element='float32', shape=[2, 3])
    >>> describe([1, 2]) is None, describe(np.int64(1)) is None
    (True, True)
    """
    if isinstance(value, (np.generic, list, tuple, *NOT_A_SEQUENCE)):
        return None
    kind = type(value)
    top = "numpy" if isinstance(value, np.ndarray) else kind.__module__.partition(".")[0]
    if not (
        top in _LIBRARIES or hasattr(kind, "__array_namespace__") or hasattr(kind, "__dlpack__")
    ):
        return None
    try:
        shape, dtype = list(value.shape), value.dtype
    except Exception:  # noqa: BLE001 - no array, or one whose attributes fail: not an array
        return None
    element = str(dtype).rpartition(".")[2]  # torch.int64, array_api_strict.int64: int64
    return Described(_LIBRARIES.get(top, top), element, shape)


def check_array(op: str, argument: str, value: Any, ndim: int, wanted: str) -> bool:
    """Whether ``value`` is an array of any library, checked as a parameter of ``ndim`` dims.

    A NumPy array of an integer type and ``ndim`` (0 or 1) dimensions passes. Each is checked
    in this order, in one wording for every library; ``wanted`` names what the parameter may be,
    for another library's array (the operators' and DirectML's fields read this way).
    """
    d = describe(value)
    if d is None:
        return False
    if d.kind != "i":
        raise DTypeError(
            op, argument, value, f"has element type {d.element}, but must be of an integer type"
        )
    if len(d.shape) != ndim:
        rank = "a scalar" if ndim == 0 else "1-D"
        raise ValidationError(op, argument, value, f"must be {rank}, but has shape {d.shape}")
    if d.library != "NumPy":
        raise _not_read(op, argument, value, d, wanted)
    return True


def _not_read(op: str, argument: str, value: Any, d: Described, wanted: str) -> DTypeError:
    """The error for another library's array where datamove reads NumPy's alone."""
    return DTypeError(
        op,
        argument,
        value,
        f"is {'an' if d.library[:1].lower() in 'aeiou' else 'a'} {d.library} array, but must "
        f"be {wanted}",
        hint="parameters are read on the host: convert it with .tolist() or np.asarray",
    )


def as_int(op: str, argument: str, value: Any) -> int:
    """A scalar integer input: an int, a NumPy integer or a 0-d integer array."""
    if type(value) is int:
        if INT64_MIN <= value <= INT64_MAX:
            return value
        _check_range(op, argument, value, (value,), scalar=True)
    if isinstance(value, bool | np.bool_):
        raise DTypeError(op, argument, value, f"must be an integer, not {a_kind(value)}")
    check_array(op, argument, value, 0, "an integer (Python or NumPy)")
    if isinstance(value, int | np.integer | np.ndarray):  # an int subclass (IntEnum, ...) too
        v = int(value)
        _check_range(op, argument, value, (v,), scalar=True)  # uint64 above 2**63 - 1
        return v
    raise DTypeError(op, argument, value, f"must be an integer, not {a_kind(value)}")


def check_length(op: str, argument: str, n: int) -> None:
    """A 1-D parameter of ``n`` values: at most ``MAX_LENGTH``, before anything is allocated."""
    if n > MAX_LENGTH:
        raise ValidationError(
            op,
            argument,
            f"<{n} values>",
            f"has {n} values, more than {MAX_LENGTH} (MAX_LENGTH), the longest parameter "
            "datamove takes",
        )


def _item(op: str, argument: str, value: Any, i: int, v: Any, *, mask: bool = False) -> int:
    """Item ``i`` of a list given as an integer vector, or as a mask (``mask``: bools allowed).

    The one rule for both: Python and NumPy integers, and 0-d NumPy integer arrays, are read;
    a float, a sequence, another library's array (0-d or not) or anything else is refused, by
    index, ending in what the parameter holds.
    """
    only = "a mask is a list of 0 and 1 (ints or bools)" if mask else "integers only"
    if isinstance(v, bool | np.bool_):
        if mask:
            return int(v)
        raise DTypeError(op, argument, value, f"holds {a_kind(v)} at index {i}; {only}")
    if isinstance(v, int | np.integer):
        return int(v)
    if (d := describe(v)) is not None:
        if len(d.shape) != 0:
            rule = f"must be 1-D, but holds a {len(d.shape)}-D {d.library} array at index {i}"
            raise ValidationError(op, argument, value, rule)
        if d.kind != "i" and not (mask and d.kind == "b"):
            rule = f"holds a 0-d {d.library} array of element type {d.element} at index {i}"
            raise DTypeError(op, argument, value, f"{rule}; {only}")
        if d.library != "NumPy":
            which = f"{only[:-1]}, Python or NumPy)" if mask else f"{only} (Python or NumPy)"
            rule = f"holds a 0-d {d.library} array at index {i}; {which}"
            raise DTypeError(op, argument, value, rule)
        return int(v)  # a 0-d NumPy array is its one value
    if isinstance(v, list | tuple):
        raise ValidationError(
            op, argument, value, f"must be 1-D, but holds a sequence at index {i}"
        )
    raise DTypeError(op, argument, value, f"holds {a_kind(v)} at index {i}; {only}")


def as_int_vector(op: str, argument: str, value: Any) -> tuple[int, ...]:
    """A 1-D integer input: a sequence of ints or a 1-D integer array."""
    if check_array(op, argument, value, 1, "a list of integers or a NumPy integer array"):
        check_length(op, argument, value.shape[0])
        ints = tuple(int(v) for v in value.tolist())
        if value.dtype == np.uint64:
            _check_range(op, argument, value, ints)
        return ints
    if isinstance(value, NOT_A_SEQUENCE) or not hasattr(value, "__len__"):
        if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
            raise ValidationError(
                op, argument, value, "must be 1-D, but is a scalar", hint=f"write [{int(value)}]"
            )
        raise DTypeError(
            op,
            argument,
            value,
            f"must be a sequence of integers, not {a_kind(value)}",
        )
    check_length(op, argument, len(value))
    out = [v if type(v) is int else _item(op, argument, value, i, v) for i, v in enumerate(value)]
    ints = tuple(out)
    _check_range(op, argument, value, ints)
    return ints


Vector = tuple[int, ...] | Unknown  # an index input's values, or shape inference's unknown ones


def index_vector(op: str, argument: str, value: Any) -> Vector:
    """`as_int_vector`, or an `Unknown` (values known at run time) as it is."""
    if isinstance(value, Unknown):
        return value
    return as_int_vector(op, argument, value)


def vector_length(v: Vector | None) -> int | None:
    """How many values a `Vector` has (``None`` where not known, or for no vector)."""
    if v is None:
        return None
    return v.length if isinstance(v, Unknown) else len(v)


def as_mask(op: str, argument: str, value: Any) -> tuple[int, ...]:
    """A StridedSlice mask: a sequence of 0/1 (bools allowed), of any length."""
    if (d := describe(value)) is not None:
        if d.kind == "?":
            rule = f"has element type {d.element}; a mask is a list of 0 and 1"
            raise DTypeError(op, argument, value, rule)
        if len(d.shape) != 1:
            rule = f"must be 1-D (a list of 0 and 1), but has shape {d.shape}"
            raise ValidationError(op, argument, value, rule)
        if d.library != "NumPy":
            raise _not_read(op, argument, value, d, "a list of 0 and 1 or a NumPy array")
        check_length(op, argument, value.shape[0])
        items: list[Any] = value.tolist()
    elif isinstance(value, list | tuple | range):
        check_length(op, argument, len(value))
        items = list(value)
    else:
        hint = None
        if isinstance(value, int) and not isinstance(value, bool):
            hint = "masks are lists such as [0, 1, 1], not TensorFlow's integer bit masks"
        elif isinstance(value, str):
            hint = "write [0, 1, 1]; the IR's '0,1,1' string form is read by datamove.ir"
        rule = f"must be a list of 0 and 1, not {a_kind(value)}"
        raise DTypeError(op, argument, value, rule, hint=hint)
    bits = []
    for i, v in enumerate(items):
        bit = v if type(v) is int else _item(op, argument, value, i, v, mask=True)
        if bit not in (0, 1):
            raise ValidationError(
                op,
                argument,
                value,
                f"holds {v!r} at index {i}; all masks of StridedSlice must be 0 or 1",
            )
        bits.append(bit)
    return tuple(bits)


def check_concrete(op: str, hint: str | None = None, **values: Any) -> None:
    """No ``Unknown`` among ``values`` (named as the caller names them): execution needs all."""
    for name, value in values.items():
        if isinstance(value, Unknown):
            raise ValidationError(op, name, value, "must be a concrete value to execute", hint=hint)


def normalize_axis(op: str, argument: str, value: Any, axis: int, rank: int) -> int:
    """Map ``axis`` in ``[-rank, rank - 1]`` to ``[0, rank - 1]``; OpenVINO's wording on failure."""
    if -rank <= axis < rank:
        return axis + rank if axis < 0 else axis
    if rank == 0:
        raise AxisError(
            op, argument, value, "cannot address an axis of a scalar (rank 0 data has no axes)"
        )
    raise AxisError(op, argument, value, f"is out of the tensor rank range [{-rank}, {rank - 1}]")


def check_out(op: str, k: int, dst: Any, shape: Any, dtype: Any) -> None:
    """``out[k]`` must have output ``k``'s exact shape and dtype (values are never converted)."""
    if tuple(dst.shape) != tuple(shape):
        raise ValidationError(
            op,
            f"out[{k}]",
            f"<array of shape {list(dst.shape)}>",
            f"has shape {list(dst.shape)}, but the output has shape {list(shape)}",
        )
    if dst.dtype != dtype:
        raise DTypeError(
            op,
            f"out[{k}]",
            f"<array of dtype {dst.dtype}>",
            f"has dtype {dst.dtype}, but the output has dtype {dtype}; values are never converted",
        )


def out_source(op: str) -> str:
    """The input an ``out`` array is held to, as the caller names it.

    ``data``; for Concat (`datamove.concat`) ``arrays[0]``, whose library and device every
    input shares.
    """
    return "arrays[0]" if op == "Concat" else "data"


def out_loses_mask(op: str, argument: str, out: Any, masked: str, hint: str) -> DTypeError:
    """The error for a plain ``out`` (named ``argument``) where the input ``masked`` is masked.

    Writing into it would lose the mask; ``hint`` says what to pass instead, in the caller's
    words (`datamove.concat` joins, the other operators take).
    """
    return DTypeError(
        op,
        argument,
        f"<{type(out).__name__} of shape {list(out.shape)}>",
        f"is not a masked array, but {masked} is one: its mask would be lost",
        hint=hint,
    )


def out_overlaps_input(op: str, k: int) -> ValidationError:
    """The error for ``out[k]`` sharing memory with ``data`` (or one of Concat's ``arrays``)."""
    rule = (
        "overlaps an input; out must not alias arrays"
        if op == "Concat"
        else ("overlaps the input; out must not alias data")
    )
    return ValidationError(op, f"out[{k}]", "<array>", rule)


def out_overlaps_itself(op: str, k: int, strides: Any) -> ValidationError:
    """The error for ``out[k]`` whose elements share memory (byte ``strides``)."""
    return ValidationError(
        op,
        f"out[{k}]",
        f"<array with byte strides {list(strides)}>",
        "has elements that share memory (a stride of 0?), so writes to it would be lost",
        hint="strides that interleave (as_strided) are proved apart up to "
        f"{OUT_EXACT_ELEMENTS} elements, and count as sharing past that",
    )
