"""``TensorDesc`` (``DML_BUFFER_TENSOR_DESC``) and ``DMLCalcBufferTensorSize``."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Generic, Literal, Self, TypeVar, overload

import numpy as np

from datamove import _layout
from datamove._errors import DTypeError, ValidationError, a_kind
from datamove._validation import check_array
from datamove.directml._enums import (
    DML_TENSOR_DIMENSION_COUNT_MAX1,
    UINT32_MAX,
    UINT64_MAX,
    TensorDataType,
    TensorFlags,
    TensorType,
)
from datamove.directml._errors import BufferSizeOverflowError, DirectMLValidationError, Violation

__all__ = ["TensorDesc", "calc_buffer_tensor_size", "packed_strides"]

# Above this many elements, T12's brute-force address check gives up and reports possible aliasing.
_ALIAS_BRUTE_FORCE_LIMIT = 1 << 22


def integer(op: str, name: str, value: Any) -> int:
    """``value`` as an int: a Python or NumPy integer, not a bool (a desc's integer fields)."""
    if isinstance(value, bool | np.bool_):
        raise DTypeError(op, name, value, f"must be an integer, not {a_kind(value)}")
    check_array(op, name, value, 0, "an integer (Python or NumPy)")  # as the operators read one
    try:
        return operator.index(value)
    except TypeError:
        raise DTypeError(op, name, value, f"must be an integer, not {a_kind(value)}") from None


def uint(op: str, name: str, value: Any, limit: int = UINT32_MAX) -> int:
    """``value`` as an int in ``[0, limit]`` (DirectML's UINT / UINT64 fields)."""
    if type(value) is int and 0 <= value <= limit:  # the common case, at once
        return value
    number = integer(op, name, value)
    if not 0 <= number <= limit:
        kind = "UINT" if limit == UINT32_MAX else "UINT64"
        raise ValidationError(op, name, value, f"must be in [0, {limit}] (a {kind} field)")
    return number


_INT = frozenset({int})


def _uint_tuple(op: str, name: str, values: Any) -> tuple[int, ...]:
    # The common case, checked at once: plain ints (not bools, not NumPy scalars) in range.
    if type(values) is tuple or type(values) is list:
        numbers = tuple(values)
        if not numbers or (
            set(map(type, numbers)) == _INT and min(numbers) >= 0 and max(numbers) <= UINT32_MAX
        ):
            return numbers
    check_array(op, name, values, 1, "a sequence of integers or a NumPy integer array")
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        rule = f"must be a sequence of integers, not {a_kind(values)}"  # ranks: check_array
        raise DTypeError(op, name, values, rule)
    return tuple(uint(op, f"{name}[{i}]", v) for i, v in enumerate(values))


_T = TypeVar("_T")


class _cached(Generic[_T]):  # noqa: N801 - a decorator, named like the cached_property it replaces
    """``functools.cached_property`` without the lock Python 3.11 takes on each first access.

    That lock cost about 1 us per derived value of every new desc. The desc is frozen, so two
    threads computing a value at once compute the same one, and no lock is needed.
    """

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> Self | _T:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)  # found there next time
        return value


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides, in elements, of a packed tensor (what ``Strides == nullptr`` means).

    Examples
    --------
    >>> packed_strides([1, 1, 6, 2])
    (12, 12, 2, 1)
    """
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    return tuple(strides)


def _last_index(sizes: tuple[int, ...], strides: tuple[int, ...] | None) -> int | None:
    """``dot(sizes - 1, strides)``, exact; ``None`` when undefined (no sizes, a zero size, T6)."""
    if not sizes or 0 in sizes:
        return None
    if strides is None:  # packed: the dot product telescopes to prod(sizes) - 1
        return math.prod(sizes) - 1
    if len(strides) != len(sizes):
        return None
    dot: int = sum(map(operator.mul, sizes, strides))
    return dot - sum(strides)


def _round_bits_to_bytes(bits: int) -> int:
    """DirectMLX's last two steps: whole bytes, then a whole number of DWORDs."""
    return ((bits + 7) // 8 + 3) & ~3


def _minimum_size(sizes: tuple[int, ...], strides: tuple[int, ...] | None, bits: int) -> int | None:
    """``DMLCalcBufferTensorSize`` with unbounded integers; ``None`` when undefined."""
    last = _last_index(sizes, strides)
    return None if last is None or not bits else _round_bits_to_bytes((last + 1) * bits)


def calc_buffer_tensor_size(
    data_type: TensorDataType | str | int,
    sizes: Sequence[int],
    strides: Sequence[int] | None = None,
    *,
    mode: Literal["exact", "dmlx"] = "exact",
) -> int:
    """``DMLCalcBufferTensorSize``: the minimum ``TotalTensorSizeInBytes`` of a buffer tensor.

    DirectMLX's algorithm (``Libraries/DirectMLX.h``, with int4 support): the size is counted
    in bits, so 4-bit types work, then rounded up to whole bytes and to a multiple of 4.

    Parameters
    ----------
    data_type : TensorDataType or str or int
        The element type.
    sizes : sequence of int
        ``Sizes``, each at least 1.
    strides : sequence of int, optional
        ``Strides`` in elements; ``None`` means packed row-major.
    mode : {"exact", "dmlx"}
        ``"exact"`` (default) computes with unbounded integers and raises where DirectML
        cannot represent the answer: the last element's index past ``UINT`` (2**32 - 1,
        the 32-bit accumulator of the strided path) or a size in bits past ``UINT64``.
        ``"dmlx"`` reproduces DirectMLX before microsoft/DirectML#734 bit for bit: the strided
        index wraps modulo 2**32 and an unknown data type gives 0.

    Returns
    -------
    int
        The size in bytes.

    Raises
    ------
    BufferSizeOverflowError
        In ``"exact"`` mode, when the size does not fit DirectML's integers.
    DirectMLValidationError
        For a zero size (T5), rank 0 (T4), ``UNKNOWN`` type (T2) or strides of the wrong
        length (T6), in ``"exact"`` mode.

    Examples
    --------
    >>> calc_buffer_tensor_size("FLOAT16", [1, 1, 3, 5])
    32
    >>> calc_buffer_tensor_size("FLOAT32", [1, 1, 2, 3], [0, 0, 5, 1])
    32
    >>> calc_buffer_tensor_size("INT4", [7]), calc_buffer_tensor_size("INT4", [9])
    (4, 8)
    >>> calc_buffer_tensor_size("FLOAT32", [65536, 65537], [65537, 1], mode="dmlx")
    262144
    """
    op, dtype = "DMLCalcBufferTensorSize", TensorDataType.parse(data_type)
    size_tuple = _uint_tuple(op, "sizes", sizes)
    stride_tuple = None if strides is None else _uint_tuple(op, "strides", strides)
    if mode not in {"exact", "dmlx"}:
        raise ValidationError(op, "mode", mode, 'must be "exact" or "dmlx"')
    bits = dtype.bits
    problems = _size_problems(dtype, size_tuple, stride_tuple)
    if mode == "dmlx":  # DirectMLX reads sizes[0]: for no sizes there is nothing to return
        problems = [p for p in problems if p.rule == "T4"]
    if problems:
        raise DirectMLValidationError(op, problems)
    if stride_tuple is None:
        total_bits = math.prod(size_tuple) * bits
        if total_bits > UINT64_MAX:
            if mode == "dmlx":
                total_bits &= UINT64_MAX
            else:
                raise BufferSizeOverflowError(
                    op,
                    [Violation("T7", "sizes", size_tuple,
                               f"hold {total_bits} bits, more than a UINT64 can count")],
                )  # fmt: skip
        return _round_bits_to_bytes(total_bits)
    if mode == "dmlx":
        index = 0
        for size, stride in zip(size_tuple, stride_tuple, strict=False):
            index = (index + ((size - 1) & UINT32_MAX) * stride) & UINT32_MAX
        return _round_bits_to_bytes((index + 1) * bits) if bits else 0
    index = sum((s - 1) * t for s, t in zip(size_tuple, stride_tuple, strict=True))
    exact = _round_bits_to_bytes((index + 1) * bits)
    if index > UINT32_MAX:
        raise BufferSizeOverflowError(
            op,
            [Violation("T8", "strides", stride_tuple,
                       f"put the last element at index {index}, past the 32-bit UINT DirectML "
                       f"counts it in (the exact size would be {exact} bytes)")],
        )  # fmt: skip
    return exact


def _size_problems(
    dtype: TensorDataType, sizes: tuple[int, ...], strides: tuple[int, ...] | None
) -> list[Violation]:
    problems = []
    if dtype is TensorDataType.UNKNOWN:
        problems.append(Violation("T2", "data_type", dtype.dml_name, "is never valid"))
    if not sizes:
        problems.append(Violation("T4", "sizes", sizes, "must not be empty"))
    if 0 in sizes:
        problems.extend(
            Violation("T5", f"sizes[{i}]", 0, "must be at least 1")
            for i, s in enumerate(sizes)
            if s == 0
        )
    if strides is not None and len(strides) != len(sizes):
        problems.append(
            Violation("T6", "strides", strides, f"must have one entry per dimension ({len(sizes)})")
        )
    return problems


@dataclass(frozen=True, init=False)
class TensorDesc:
    """``DML_TENSOR_DESC`` of type ``DML_TENSOR_TYPE_BUFFER``: a frozen value object.

    The constructor checks only what a C struct could hold (unsigned integers of the right
    width); DirectML's rules are checked by the operator descs' ``validate``, all at once.

    Parameters
    ----------
    data_type : TensorDataType or str or int
        ``DataType``, as a member, a name (``"FLOAT32"``, ``"DML_TENSOR_DATA_TYPE_FLOAT32"``)
        or its value.
    sizes : sequence of int
        ``Sizes``; the rank is ``len(sizes)``.
    strides : sequence of int, optional
        ``Strides`` in elements, or ``None`` for packed row-major. 0 broadcasts; larger than
        packed pads.
    flags : TensorFlags or str or int, optional
        ``Flags``; ``OWNED_BY_DML`` is allowed on inputs only.
    total_tensor_size_in_bytes : int, optional
        ``TotalTensorSizeInBytes``; defaults to :func:`calc_buffer_tensor_size` of the desc
        (0 when that cannot be computed, for a desc that breaks other rules).
    guaranteed_base_offset_alignment : int, optional
        ``GuaranteedBaseOffsetAlignment``; 0 means no guarantee.
    tensor_type : TensorType, optional
        ``DML_TENSOR_DESC.Type``; ``BUFFER`` is the only valid value.

    Examples
    --------
    >>> t = TensorDesc("FLOAT32", [1, 1, 6, 2])
    >>> t.data_type, t.sizes, t.strides, t.total_tensor_size_in_bytes
    (<TensorDataType.FLOAT32: 1>, (1, 1, 6, 2), None, 48)
    >>> TensorDesc("FLOAT16", [1, 1, 3, 5], strides=[15, 1, 5, 1]).total_tensor_size_in_bytes
    32
    """

    data_type: TensorDataType
    sizes: tuple[int, ...]
    strides: tuple[int, ...] | None
    flags: TensorFlags
    total_tensor_size_in_bytes: int
    guaranteed_base_offset_alignment: int
    tensor_type: TensorType = field(default=TensorType.BUFFER)

    def __init__(
        self,
        data_type: TensorDataType | str | int,
        sizes: Sequence[int],
        strides: Sequence[int] | None = None,
        *,
        flags: TensorFlags | str | int = TensorFlags.NONE,
        total_tensor_size_in_bytes: int | None = None,
        guaranteed_base_offset_alignment: int = 0,
        tensor_type: TensorType | str | int = TensorType.BUFFER,
    ) -> None:
        # Checked in the order of the fields, so the first bad one is the one reported.
        try:
            data_type = TensorDataType.parse(data_type)
            sizes = _uint_tuple("TensorDesc", "sizes", sizes)
            strides = None if strides is None else _uint_tuple("TensorDesc", "strides", strides)
            if type(flags) is not TensorFlags:  # members, the defaults included, need no parsing
                flags = TensorFlags.parse(flags)
            if type(tensor_type) is not TensorType:
                tensor_type = TensorType.parse(tensor_type)
        except ValidationError as exc:  # the enums' parsers say "DirectML": say which struct
            if exc.op == "TensorDesc":
                raise
            raise type(exc)(
                "TensorDesc", exc.argument, exc.value, exc.rule, hint=exc.hint
            ) from None
        alignment = uint(
            "TensorDesc", "guaranteed_base_offset_alignment", guaranteed_base_offset_alignment
        )
        if total_tensor_size_in_bytes is None:
            minimum = _minimum_size(sizes, strides, data_type.bits)
            total = minimum if minimum is not None and minimum <= UINT64_MAX else 0
        else:
            total = uint(
                "TensorDesc", "total_tensor_size_in_bytes", total_tensor_size_in_bytes, UINT64_MAX
            )
        self.__dict__.update(  # frozen: the fields are written once, here
            data_type=data_type,
            sizes=sizes,
            strides=strides,
            flags=flags,
            total_tensor_size_in_bytes=total,
            guaranteed_base_offset_alignment=alignment,
            tensor_type=tensor_type,
        )

    def replace(self, **changes: Any) -> TensorDesc:
        """A copy with some fields changed; the total size is recomputed unless given.

        Examples
        --------
        >>> TensorDesc("UINT8", [2, 3]).replace(sizes=[4, 3]).total_tensor_size_in_bytes
        12
        """
        kept = {f.name: getattr(self, f.name) for f in fields(self)}
        del kept["total_tensor_size_in_bytes"]
        return TensorDesc(**(kept | changes))

    # Derived values, computed once per desc (the desc is frozen).

    @property
    def rank(self) -> int:
        """``DimensionCount``."""
        return len(self.sizes)

    @_cached
    def effective_strides(self) -> tuple[int, ...] | None:
        """``strides``, or the packed strides when absent; ``None`` if their count is wrong."""
        if self.strides is None:
            return packed_strides(self.sizes)
        return self.strides if len(self.strides) == len(self.sizes) else None

    @_cached
    def index_of_last_element(self) -> int | None:
        """``dot(sizes - 1, strides)``, exact; ``None`` when undefined (zero size, bad strides)."""
        return _last_index(self.sizes, self.strides)

    @_cached
    def provably_disjoint(self) -> bool:
        """Whether the sorted-strides test proves that no two elements share an address.

        Sorted by stride, each dimension's stride must pass the reach of all smaller ones
        (``datamove._layout.self_overlapping``, in elements).
        """
        strides = self.strides
        if strides is None or len(strides) != len(self.sizes):  # packed, or T6: no layout to test
            return True
        return not _layout.self_overlapping(self.sizes, strides, 1)

    @_cached
    def self_overlapping(self) -> bool:
        """Whether two logical elements share an address (T12), conservatively.

        Exact for up to 2**22 elements; past that, a layout that cannot be proved free of
        overlap by the sorted-strides test is reported as overlapping.
        """
        if self.provably_disjoint:
            return False
        return _layout.self_overlapping(
            self.sizes, self.effective_strides, 1, exact_up_to=_ALIAS_BRUTE_FORCE_LIMIT
        )

    @_cached
    def intrinsic_violations(self) -> tuple[Violation, ...]:
        """The rules this desc breaks on its own, whatever the level, role and options.

        T1, T2 (``UNKNOWN``), T3, T4 (rank outside [1, 8]), T5, T6, T7 and T9, with paths
        relative to the desc (``"sizes[2]"``). Computed once; the operator descs add the
        rules that depend on the feature level, the tensor's role and the options.
        """
        found: list[Violation] = []
        if self.tensor_type is not TensorType.BUFFER:
            found.append(
                Violation(
                    "T1", "tensor_type", self.tensor_type.dml_name, "must be DML_TENSOR_TYPE_BUFFER"
                )
            )
        found.extend(_size_problems(self.data_type, self.sizes, self.strides))
        if self.rank > DML_TENSOR_DIMENSION_COUNT_MAX1:
            found.append(
                Violation("T4", "rank", self.rank,
                          f"must be at most {DML_TENSOR_DIMENSION_COUNT_MAX1} "
                          "(DML_TENSOR_DIMENSION_COUNT_MAX1)")
            )  # fmt: skip
        if int(self.flags) & ~int(TensorFlags.OWNED_BY_DML):
            found.append(
                Violation("T3", "flags", int(self.flags),
                          "may hold only DML_TENSOR_FLAG_OWNED_BY_DML (0x1)")
            )  # fmt: skip
        minimum = _minimum_size(self.sizes, self.strides, self.data_type.bits)
        if minimum is not None and self.total_tensor_size_in_bytes < minimum:
            found.append(
                Violation("T7", "total_tensor_size_in_bytes", self.total_tensor_size_in_bytes,
                          f"must be at least DMLCalcBufferTensorSize(...) = {minimum}")
            )  # fmt: skip
        alignment = self.guaranteed_base_offset_alignment
        element_bytes = max(1, self.data_type.bits // 8)
        if alignment and (alignment & (alignment - 1) or alignment < element_bytes):
            found.append(
                Violation("T9", "guaranteed_base_offset_alignment", alignment,
                          f"must be 0 or a power of two of at least the element size "
                          f"({element_bytes} bytes)")
            )  # fmt: skip
        return tuple(found)
