"""Feature-level tables, the validation switches, and the per-tensor rules that depend on them."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal, NamedTuple

from datamove._errors import ValidationError
from datamove.directml._enums import (
    DML_TENSOR_DIMENSION_COUNT_MAX,
    UINT32_MAX,
    FeatureLevel,
    OperatorType,
    TensorDataType,
    TensorFlags,
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
        """Check the switch values."""
        if self.join_rank_at_3_1 not in {"table", "history"}:
            raise ValidationError(
                "ValidationOptions", "join_rank_at_3_1", self.join_rank_at_3_1,
                'must be "table" or "history"',
            )  # fmt: skip
        if self.element_limit not in {"both", "last_element", "total_size"}:
            raise ValidationError(
                "ValidationOptions", "element_limit", self.element_limit,
                'must be "both", "last_element" or "total_size"',
            )  # fmt: skip


DEFAULT_OPTIONS = ValidationOptions()


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
    return table_row(
        OperatorType.parse(operator), FeatureLevel.parse(feature_level), join_rank_at_3_1
    )


@functools.cache
def table_row(op: OperatorType, level: FeatureLevel, join_rank_at_3_1: str) -> TensorSupport:
    rows = _TABLES[op]
    if op is OperatorType.JOIN and join_rank_at_3_1 == "history":
        rows = (*rows[:3], _JOIN_HISTORY_ROW, rows[3])
    row = rows[0]
    for candidate in rows:
        if candidate.since <= level:
            row = candidate
    return row


_64_BIT = frozenset({_T.FLOAT64, _T.UINT64, _T.INT64})
_4_BIT = frozenset({_T.UINT4, _T.INT4})
_OWNED = int(TensorFlags.OWNED_BY_DML)  # a plain int: IntFlag's own & builds a new flag, slowly


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
    if level is not None:
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
    table: TensorSupport | None,
    op_name: str,
    level: FeatureLevel,
    found: list[Violation],
) -> None:
    dtype = tensor.data_type
    if dtype in _4_BIT and level < FeatureLevel.LEVEL_6_3:
        found.append(
            Violation("T2", "data_type", dtype.dml_name,
                      f"does not exist before feature level 6_3 (this is {level})")
        )  # fmt: skip
    elif dtype in _64_BIT and level < FeatureLevel.LEVEL_3_0:
        found.append(
            Violation("T2", "data_type", dtype.dml_name,
                      f"does not exist before feature level 3_0 (this is {level})")
        )  # fmt: skip
    if level < FeatureLevel.LEVEL_3_0 and tensor.rank > DML_TENSOR_DIMENSION_COUNT_MAX:
        found.append(
            Violation("T4", "rank", tensor.rank,
                      f"must be at most {DML_TENSOR_DIMENSION_COUNT_MAX} before feature level 3_0 "
                      "(DML_TENSOR_DIMENSION_COUNT_MAX)")
        )  # fmt: skip
    if table is None:
        return
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
