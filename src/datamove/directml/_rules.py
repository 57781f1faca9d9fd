"""Feature-level tables, the validation switches, and the per-tensor rules that depend on them."""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from datamove._errors import DTypeError, ValidationError
from datamove.directml._enums import (
    DML_TENSOR_DIMENSION_COUNT_MAX,
    DML_TENSOR_DIMENSION_COUNT_MAX1,
    UINT32_MAX,
    FeatureLevel,
    OperatorType,
    TensorDataType,
    TensorFlags,
    TensorType,
)
from datamove.directml._errors import Violation
from datamove.directml._tensor import TensorDesc

__all__ = ["TensorSupport", "ValidationOptions", "tensor_support"]

_T = TensorDataType
_FL = FeatureLevel
_A = frozenset({_T.FLOAT32, _T.FLOAT16, _T.INT32, _T.INT16, _T.UINT32, _T.UINT16})
_B = _A | {_T.INT8, _T.UINT8}
_C = _B | {_T.FLOAT64, _T.INT64, _T.UINT64}


class TensorSupport(NamedTuple):
    """One row of an operator's "Tensor support" table: ranks ``[min_rank, max_rank]`` and types."""

    since: FeatureLevel
    min_rank: int
    max_rank: int
    data_types: frozenset[TensorDataType]


# The "Tensor support" tables of DML_SPLIT_OPERATOR_DESC and DML_JOIN_OPERATOR_DESC; a row
# applies from its level up to the next row. The same for every tensor of the operator.
_TABLES: dict[OperatorType, tuple[TensorSupport, ...]] = {
    OperatorType.SPLIT: (
        TensorSupport(_FL.LEVEL_1_0, 4, 4, _A),
        TensorSupport(_FL.LEVEL_2_1, 4, 4, _B),
        TensorSupport(_FL.LEVEL_3_0, 1, 8, _B),
        TensorSupport(_FL.LEVEL_4_1, 1, 8, _C),
    ),
    OperatorType.JOIN: (
        TensorSupport(_FL.LEVEL_1_0, 4, 4, _A),
        TensorSupport(_FL.LEVEL_2_1, 4, 4, _B),
        TensorSupport(_FL.LEVEL_3_0, 4, 5, _B),
        TensorSupport(_FL.LEVEL_4_1, 1, 8, _C),
    ),
}
# dml-feature-level-history.md lists JOIN under 3_1 as "increased from 4 to 8" dimensions; the
# JOIN page has no 3_1 row. With join_rank_at_3_1="history" this row is added.
_JOIN_HISTORY_ROW = TensorSupport(_FL.LEVEL_3_1, 4, 8, _B)


# The verdicts kept on one desc or tensor desc (per feature level and options object): cleared
# whole when full, so a caller passing a new options object on every call holds at most these.
VERDICTS_MAX = 64


_CHOICES: dict[str, tuple[str, tuple[str, ...]]] = {
    "join_rank_at_3_1": ('"table" or "history"', ("table", "history")),
    "element_limit": (
        '"both", "last_element" or "total_size"',
        ("both", "last_element", "total_size"),
    ),
}


def check_choice(op: str, name: str, value: object) -> None:
    """A switch's value: a str among its choices (``_CHOICES[name]``), else the error."""
    words, allowed = _CHOICES[name]
    if not isinstance(value, str) or value not in allowed:
        error = ValidationError if isinstance(value, str) else DTypeError
        raise error(op, name, value, f"must be {words}")


@dataclass(frozen=True, slots=True)
class ValidationOptions:
    """The switches for the places where DirectML's documents disagree or say nothing.

    Parameters
    ----------
    join_rank_at_3_1 : {"table", "history"}
        JOIN's ranks at feature levels 3_1 and 4_0. ``"table"`` (default) follows the JOIN page
        (4 to 5 until 4_1); ``"history"`` follows dml-feature-level-history.md, which says the
        maximum rose from 4 to 8 at 3_1 (the minimum stays 4).
    element_limit : {"both", "last_element", "total_size"}
        T8's "(2^32 - 1) elements": the index of the last element plus one, the total size
        divided by the element size, or (default) both.
    dword_aligned_total_size : bool
        T11: require ``total_tensor_size_in_bytes % 4 == 0`` (default ``True``).
    reject_output_aliasing : bool
        T12: reject output layouts where two elements share an address (default ``True``).

    Examples
    --------
    >>> ValidationOptions(join_rank_at_3_1="history").join_rank_at_3_1
    'history'
    """

    join_rank_at_3_1: Literal["table", "history"] = "table"
    element_limit: Literal["both", "last_element", "total_size"] = "both"
    dword_aligned_total_size: bool = True
    reject_output_aliasing: bool = True

    def __post_init__(self) -> None:
        """Check the switch values: each a str of its choices or a bool, nothing else."""
        for name in _CHOICES:
            check_choice("ValidationOptions", name, getattr(self, name))
        for name in ("dword_aligned_total_size", "reject_output_aliasing"):
            value = getattr(self, name)
            if not isinstance(value, bool | np.bool_):  # "no" would count as True
                raise DTypeError("ValidationOptions", name, value, "must be True or False")
            object.__setattr__(self, name, bool(value))  # frozen: np.True_ becomes True


DEFAULT_OPTIONS = ValidationOptions()


def check_options(op: str, options: object) -> ValidationOptions:
    """``options`` itself, ``DEFAULT_OPTIONS`` for ``None``, a ``DTypeError`` for anything else."""
    if options is None:
        return DEFAULT_OPTIONS
    if not isinstance(options, ValidationOptions):
        raise DTypeError(
            op, "options", options, "must be a datamove.directml.ValidationOptions or None"
        )
    return options


def tensor_support(
    operator: OperatorType | str | int,
    feature_level: FeatureLevel | str | int,
    *,
    join_rank_at_3_1: Literal["table", "history"] = "table",
) -> TensorSupport:
    """The row of the operator's "Tensor support" table that applies at ``feature_level``.

    Examples
    --------
    >>> row = tensor_support("SPLIT", "2_1")
    >>> row.since, row.min_rank, row.max_rank, TensorDataType.INT8 in row.data_types
    (<FeatureLevel.LEVEL_2_1: 8448>, 4, 4, True)
    >>> tensor_support("JOIN", "3_1").max_rank
    5
    >>> tensor_support("JOIN", "3_1", join_rank_at_3_1="history").max_rank
    8
    """
    check_choice("tensor_support", "join_rank_at_3_1", join_rank_at_3_1)
    return table_row(
        OperatorType.parse(operator), FeatureLevel.parse(feature_level), join_rank_at_3_1
    )


@functools.cache
def table_row(op: OperatorType, level: FeatureLevel, join_rank_at_3_1: str) -> TensorSupport:
    rows = _TABLES[op]
    if op is OperatorType.JOIN and join_rank_at_3_1 == "history":
        rows = (*rows[:3], _JOIN_HISTORY_ROW, rows[3])
    return [row for row in rows if row.since <= level][-1]  # the first row is since 1_0


# T2: the types that do not exist before a level (4-bit from 6_3, 64-bit from 3_0).
_SINCE = dict.fromkeys((_T.UINT4, _T.INT4), _FL.LEVEL_6_3)
_SINCE |= dict.fromkeys((_T.FLOAT64, _T.UINT64, _T.INT64), _FL.LEVEL_3_0)
_OWNED = int(TensorFlags.OWNED_BY_DML)  # a plain int: IntFlag's own & builds a new flag, slowly


# The fast pass ---------------------------------------------------------------------------------
#
# Validating a valid desc is the common case. ``fine`` answers "does this desc break no rule?"
# over plain ints, building no Violation. Only when the answer is no are the violations worded,
# and then the rule-by-rule evaluation below (``check_tensor``) runs only on the tensors that
# ``tensor_fine`` does not pass. Both passes must agree with the rules exactly:
# tests/directml/test_rules.py checks that with Hypothesis.


class Limits(NamedTuple):
    """Ranks ``[lo, hi]`` and data types (a bit mask of their values) valid at one level.

    T2 (no ``UNKNOWN``; 4-bit and 64-bit types only from 6_3 and 3_0), T4 (rank 1 to 8, at most
    5 before 3_0) and the operator's table (S7/J6) in one: a tensor whose rank and type pass
    these breaks none of those rules.
    """

    lo: int
    hi: int
    data_types: int


def _limits(row: TensorSupport | None, level: FeatureLevel | None) -> Limits:
    types = set(TensorDataType) - {TensorDataType.UNKNOWN}
    lo, hi = 1, DML_TENSOR_DIMENSION_COUNT_MAX1
    if level is not None and row is not None:
        types &= row.data_types
        lo, hi = max(lo, row.min_rank), min(hi, row.max_rank)
        types = {t for t in types if _SINCE.get(t, level) <= level}
        if level < FeatureLevel.LEVEL_3_0:
            hi = min(hi, DML_TENSOR_DIMENSION_COUNT_MAX)
    return Limits(lo, hi, sum(1 << t for t in types))


#: ``LIMITS[op, level, join_rank_at_3_1]``; ``level`` ``None`` for the level-free rules.
LIMITS: dict[tuple[OperatorType, FeatureLevel | None, str], Limits] = {
    (op, level, join): _limits(None if level is None else table_row(op, level, join), level)
    for op in OperatorType
    for level in (None, *FeatureLevel)
    for join in ("table", "history")
}
#: Bits per element, indexed by the data type's value (they run 0, 1, 2 ...).
BITS: tuple[int, ...] = tuple(t.bits for t in sorted(TensorDataType))
_BUFFER = TensorType.BUFFER
_mul = operator.mul


def fine(
    op: OperatorType,
    parts_are_outputs: bool,
    whole: TensorDesc,
    parts: tuple[TensorDesc, ...],
    axis: int,
    level: FeatureLevel | None,
    options: ValidationOptions,
) -> bool:
    """Whether a split or join breaks no rule at all (what ``_desc._violations`` would find).

    Each part must have the whole's type, rank and sizes but for a length of at least 1 on the
    axis, so the level's limits on rank and type and T5 are checked on the whole alone. Then
    every tensor, the whole first, must pass ``_layout_fine`` in its role, and the parts'
    lengths must add up to the whole's.
    """
    sizes = whole.sizes
    rank = len(sizes)
    lo, hi, types = LIMITS[op, level, options.join_rank_at_3_1]
    dtype = whole.data_type
    if not (parts and lo <= rank <= hi and 0 <= axis < rank and types >> dtype & 1):
        return False  # S1/J1, T4, S7/J6, S3/J3, T2
    if 0 in sizes:  # T5
        return False
    bits = BITS[dtype]
    last_max, total_max, dword = _bounds(bits, options)
    before, after = sizes[:axis], sizes[axis + 1 :]
    others = math.prod(before) * math.prod(after)  # elements per unit of length on the axis
    # By role: the largest Flags value allowed (OWNED_BY_DML, 1, on inputs only), and T12.
    owned, part_owned = parts_are_outputs, not parts_are_outputs
    aliasing = options.reject_output_aliasing
    aliasing, part_aliasing = aliasing and not parts_are_outputs, aliasing and parts_are_outputs
    lengths = 0  # the whole's length and then the parts': twice the whole's when they add up
    for tensor in (whole, *parts):
        own = tensor.sizes
        if tensor.data_type is not dtype or len(own) != rank:  # S2/J2
            return False
        length = own[axis]
        if not length or own[:axis] != before or own[axis + 1 :] != after:  # S6/J5, S4/J4
            return False
        elements = others * length
        if not _layout_fine(
            tensor, rank, bits, elements, owned, aliasing, last_max, total_max, dword
        ):
            return False
        lengths += length
        owned, aliasing = part_owned, part_aliasing
    return lengths == 2 * sizes[axis]  # S5/J4


def tensor_fine(
    tensor: TensorDesc, output: bool, limits: Limits, options: ValidationOptions
) -> bool:
    """Whether ``tensor`` breaks none of the rules ``check_tensor`` checks, in its role."""
    sizes = tensor.sizes
    rank = len(sizes)
    lo, hi, types = limits
    if not (lo <= rank <= hi and types >> tensor.data_type & 1) or 0 in sizes:
        return False  # T4, S7/J6, T2, T5 (S6/J5)
    bits = BITS[tensor.data_type]
    aliasing = output and options.reject_output_aliasing
    elements = math.prod(sizes)
    return _layout_fine(tensor, rank, bits, elements, not output, aliasing, *_bounds(bits, options))


def _bounds(bits: int, options: ValidationOptions) -> tuple[float, float, int]:
    """T8 and T11 as bounds: the last element's index, the total size in bytes, its low bits.

    T8's readings: the index of the last element plus one, and the total size over the element
    size (``total * 8 // bits``), at most 2**32 - 1. A reading that is switched off bounds
    nothing. T11 asks the total's two low bits to be 0.
    """
    limit = options.element_limit
    last_max = UINT32_MAX - 1 if limit != "total_size" else math.inf
    total_max = ((UINT32_MAX + 1) * bits - 1) // 8 if limit != "last_element" else math.inf
    return last_max, total_max, 3 if options.dword_aligned_total_size else 0


def _layout_fine(
    tensor: TensorDesc,
    rank: int,
    bits: int,
    elements: int,
    owned: int,
    aliasing: bool,
    last_max: float,
    total_max: float,
    dword: int,
) -> bool:
    """Whether ``tensor`` breaks none of T1, T3, S8/J7, T6, T12, T7, T8, T11 and T9.

    Its sizes are known to be fine: ``rank`` of them, ``elements`` in all, none 0. ``owned`` is
    the largest Flags value its role allows, ``aliasing`` whether T12 applies to it, the rest
    come from ``_bounds``.
    """
    if tensor.tensor_type is not _BUFFER or not 0 <= tensor.flags <= owned:
        return False  # T1, T3, S8/J7
    strides = tensor.strides
    if strides is None:  # packed: dot(sizes - 1, strides) is prod(sizes) - 1
        last = elements - 1
    elif len(strides) != rank:  # T6
        return False
    else:
        last = sum(map(_mul, tensor.sizes, strides)) - sum(strides)  # dot(sizes - 1, strides)
        if aliasing and tensor.self_overlapping:  # T12
            return False
    total = tensor.total_tensor_size_in_bytes
    minimum = (((last + 1) * bits + 7) // 8 + 3) & ~3  # DMLCalcBufferTensorSize
    if not minimum <= total <= total_max or last > last_max or total & dword:
        return False  # T7, T8, T11
    alignment = tensor.guaranteed_base_offset_alignment
    return not alignment or not (alignment & (alignment - 1) or alignment * 8 < bits)  # T9


# Rule by rule ------------------------------------------------------------------------------------


def check_tensor(
    tensor: TensorDesc,
    path: str,
    index: int,
    found: list[Violation],
    key: tuple[bool, int, str, str, TensorSupport | None, str, FeatureLevel | None, int],
    options: ValidationOptions,
) -> None:
    """Append to ``found`` every rule ``tensor`` breaks in its role, under ``path[index]``.

    ``index`` is -1 for a tensor that is not in an array (the path is then ``path`` alone).

    ``key`` is ``(output, axis, axis_rule, owned_rule, table, op_name, level, id(options))``:
    ``axis_rule`` names the rule a zero size on the axis breaks (S6 for split outputs, J5 for
    join inputs; T5 elsewhere), ``owned_rule`` the rule ``OWNED_BY_DML`` on an output breaks.
    The answer depends only on the desc and the key, so it is kept on the (frozen) desc:
    validating the same tensors again costs a dictionary look-up. The options enter the key by
    identity (hashing them is slow), so the entry remembers them to rule out a reused id.
    """
    cache: dict[tuple[object, ...], tuple[ValidationOptions, list[Violation]]]
    cache = tensor.__dict__.setdefault("_check_cache", {})
    hit = cache.get(key)
    if hit is None or hit[0] is not options:
        if len(cache) >= VERDICTS_MAX:  # a new options object per call: no growth past this
            cache.clear()
        hit = cache[key] = (options, _check_tensor(tensor, *key[:-1], options))
    if hit[1]:
        where = path if index < 0 else f"{path}[{index}]"
        found.extend(Violation(v.rule, f"{where}.{v.path}", v.value, v.message) for v in hit[1])


def _check_tensor(
    tensor: TensorDesc,
    output: bool,
    axis: int,
    axis_rule: str,
    owned_rule: str,
    table: TensorSupport | None,
    op_name: str,
    level: FeatureLevel | None,
    options: ValidationOptions,
) -> list[Violation]:
    found: list[Violation] = []
    for v in tensor.intrinsic_violations:
        rule = axis_rule if v.rule == "T5" and v.path == f"sizes[{axis}]" else v.rule
        found.append(Violation(rule, v.path, v.value, v.message))
    if output and int(tensor.flags) & _OWNED:
        found.append(
            Violation(
                owned_rule, "flags", tensor.flags.dml_name, "is allowed on input tensors only"
            )
        )
    _check_element_limit(tensor, options, found)
    if options.dword_aligned_total_size and tensor.total_tensor_size_in_bytes % 4:
        found.append(
            Violation("T11", "total_tensor_size_in_bytes", tensor.total_tensor_size_in_bytes,
                      "must be a multiple of 4 (bound buffers are DWORD-aligned)")
        )  # fmt: skip
    if output and options.reject_output_aliasing and tensor.self_overlapping:
        found.append(
            Violation(
                "T12", "strides", tensor.strides, "make two elements of an output share an address"
            )
        )
    if level is not None and table is not None:  # the one is None where the other is
        _check_level(tensor, table, op_name, level, found)
    return found


def _check_element_limit(
    tensor: TensorDesc, options: ValidationOptions, found: list[Violation]
) -> None:
    if options.element_limit != "total_size":
        index = tensor.index_of_last_element
        if index is not None and index + 1 > UINT32_MAX:
            found.append(
                Violation("T8", "sizes", tensor.sizes,
                          f"address {index + 1} elements; at most 2**32 - 1 are allowed")
            )  # fmt: skip
    if options.element_limit != "last_element" and tensor.data_type.bits:
        elements = tensor.total_tensor_size_in_bytes * 8 // tensor.data_type.bits
        if elements > UINT32_MAX:
            found.append(
                Violation("T8", "total_tensor_size_in_bytes", tensor.total_tensor_size_in_bytes,
                          f"holds {elements} elements; at most 2**32 - 1 are allowed")
            )  # fmt: skip


def _check_level(
    tensor: TensorDesc,
    table: TensorSupport,
    op_name: str,
    level: FeatureLevel,
    found: list[Violation],
) -> None:
    dtype = tensor.data_type
    since = _SINCE.get(dtype, level)
    if level < since:
        found.append(
            Violation("T2", "data_type", dtype.dml_name,
                      f"does not exist before feature level {since} (this is {level})")
        )  # fmt: skip
    if level < FeatureLevel.LEVEL_3_0 and tensor.rank > DML_TENSOR_DIMENSION_COUNT_MAX:
        found.append(
            Violation("T4", "rank", tensor.rank,
                      f"must be at most {DML_TENSOR_DIMENSION_COUNT_MAX} before feature level 3_0 "
                      "(DML_TENSOR_DIMENSION_COUNT_MAX)")
        )  # fmt: skip
    rule = "S7" if op_name == "DML_SPLIT" else "J6"
    if not table.min_rank <= tensor.rank <= table.max_rank:
        ranks = (
            str(table.min_rank)
            if table.min_rank == table.max_rank
            else f"{table.min_rank} to {table.max_rank}"
        )
        found.append(
            Violation(rule, "rank", tensor.rank,
                      f"is not supported by {op_name} at feature level {level} (ranks {ranks})")
        )  # fmt: skip
    if dtype not in table.data_types:
        names = ", ".join(t.name for t in sorted(table.data_types))
        found.append(
            Violation(rule, "data_type", dtype.dml_name,
                      f"is not supported by {op_name} at feature level {level} ({names})")
        )  # fmt: skip
