"""``SplitDesc`` and ``JoinDesc``: ``DML_SPLIT_OPERATOR_DESC`` and ``DML_JOIN_OPERATOR_DESC``.

Split and join are one operation seen from both ends: a *whole* tensor (split's input, join's
output) and its *parts* along an axis (split's outputs, join's inputs). One function checks
both, with each operator's rule ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from datamove._errors import DTypeError, ValidationError
from datamove._shape import MAX_LENGTH
from datamove.directml._enums import FeatureLevel, OperatorType
from datamove.directml._errors import DirectMLValidationError, Violation
from datamove.directml._rules import (
    LIMITS,
    VERDICTS_MAX,
    ValidationOptions,
    check_options,
    check_tensor,
    fine,
    table_row,
    tensor_fine,
)
from datamove.directml._tensor import TensorDesc, integer

__all__ = ["JoinDesc", "SplitDesc"]

LATEST = FeatureLevel.LEVEL_6_4


class _Rules(NamedTuple):
    op: OperatorType
    op_name: str
    whole: str  # path of the whole tensor
    parts: str  # path of the parts array
    parts_are_outputs: bool
    nonempty: str
    same: str
    axis: str
    off_axis: str
    total: str
    zero_on_axis: str
    owned: str


_SPLIT = _Rules(OperatorType.SPLIT, "DML_SPLIT", "input", "outputs", True,
                "S1", "S2", "S3", "S4", "S5", "S6", "S8")  # fmt: skip
_JOIN = _Rules(OperatorType.JOIN, "DML_JOIN", "output", "inputs", False,
               "J1", "J2", "J3", "J4", "J4", "J5", "J7")  # fmt: skip


def _tensor(op: str, name: str, value: Any) -> TensorDesc:
    if not isinstance(value, TensorDesc):
        raise DTypeError(op, name, value, "must be a datamove.directml.TensorDesc")
    return value


def check_count(op: str, argument: str, count: int, noun: str) -> None:
    """At most ``MAX_LENGTH`` parts, checked before a desc of each is built.

    DirectML states no limit on ``OutputCount`` or ``InputCount`` (a ``UINT``); datamove takes
    as many parts as its own operators make outputs (``num_splits``, ``split_lengths``).
    """
    if count > MAX_LENGTH:
        raise ValidationError(
            op,
            argument,
            f"<{count} {noun}>",
            f"holds {count} {noun}, more than {MAX_LENGTH} (MAX_LENGTH), the most parts "
            "datamove splits into or joins",
        )


def _tensors(op: str, name: str, values: Any) -> tuple[TensorDesc, ...]:
    if isinstance(values, TensorDesc) or not isinstance(values, Sequence):
        raise DTypeError(op, name, values, "must be a sequence of TensorDesc")
    check_count(op, name, len(values), "tensors")
    tensors = tuple(values)
    for i, value in enumerate(tensors):
        if not isinstance(value, TensorDesc):  # the path is written only for the one reported
            _tensor(op, f"{name}[{i}]", value)
    return tensors


def _violations(
    rules: _Rules,
    whole: TensorDesc,
    parts: tuple[TensorDesc, ...],
    axis: int,
    feature_level: FeatureLevel | str | int | None,
    opts: ValidationOptions,
) -> list[Violation]:
    """Every rule the desc breaks, worded; the tensors ``tensor_fine`` passes are skipped."""
    level = None if feature_level is None else FeatureLevel.parse(feature_level)
    table = None if level is None else table_row(rules.op, level, opts.join_rank_at_3_1)
    limits = LIMITS[rules.op, level, opts.join_rank_at_3_1]
    found: list[Violation] = []
    if not parts:
        found.append(
            Violation(rules.nonempty, rules.parts, [], "must hold at least one tensor (count > 0)")
        )
    rank = whole.rank
    axis_ok = 0 <= axis < rank
    if not axis_ok:
        hint = " (Axis is unsigned: add the rank to a negative axis)" if axis < 0 else ""
        found.append(
            Violation(rules.axis, "axis", axis, f"must be in [0, {rank - 1}] for rank {rank}{hint}")
        )
    whole_out = not rules.parts_are_outputs
    common = (rules.owned, table, rules.op_name, level, id(opts))  # check_tensor key's end
    if not tensor_fine(whole, whole_out, limits, opts):
        check_tensor(whole, rules.whole, -1, found, (whole_out, axis, "T5", *common), opts)
    part_key = (rules.parts_are_outputs, axis, rules.zero_on_axis if axis_ok else "T5", *common)
    sizes = whole.sizes
    before, after = sizes[:axis], sizes[axis + 1 :]
    all_same_rank = True
    for i, part in enumerate(parts):
        if part.data_type is not whole.data_type:
            path = f"{rules.parts}[{i}]"
            found.append(
                Violation(rules.same, f"{path}.data_type", part.data_type.dml_name,
                          f"must equal {rules.whole}.data_type={whole.data_type.dml_name}")
            )  # fmt: skip
        if len(part.sizes) != rank:
            path = f"{rules.parts}[{i}]"
            all_same_rank = False
            found.append(
                Violation(rules.same, f"{path}.rank", part.rank,
                          f"must equal {rules.whole}.rank={rank}")
            )  # fmt: skip
        elif axis_ok and (part.sizes[:axis] != before or part.sizes[axis + 1 :] != after):
            path = f"{rules.parts}[{i}]"
            found.extend(
                Violation(rules.off_axis, f"{path}.sizes[{d}]", got,
                          f"must equal {rules.whole}.sizes[{d}]={want} (all but the axis)")
                for d, (got, want) in enumerate(zip(part.sizes, sizes, strict=True))
                if d != axis and got != want
            )  # fmt: skip
        if not tensor_fine(part, rules.parts_are_outputs, limits, opts):
            check_tensor(part, rules.parts, i, found, part_key, opts)
    if axis_ok and all_same_rank and parts:
        lengths = [p.sizes[axis] for p in parts]
        total = sum(lengths)
        if total != sizes[axis]:
            want = f"{rules.whole}.sizes[{axis}] is {sizes[axis]}"
            found.append(
                Violation(rules.total, f"{rules.parts}[*].sizes[{axis}]", lengths,
                          f"sum to {total}, but {want}")
            )  # fmt: skip
    return found


class _Desc:
    """What split and join share: their rules (``_RULES``), checked and kept on the desc.

    Validating the same desc again (``run_split`` does on every call) is a look-up: the
    violations are kept on the (frozen) desc per feature level and options object. As in
    ``check_tensor``, the options enter the key by identity and the entry remembers them.
    """

    _RULES: ClassVar[_Rules]
    axis: int

    def violations(
        self,
        feature_level: FeatureLevel | str | int | None = LATEST,
        *,
        options: ValidationOptions | None = None,
    ) -> list[Violation]:
        """Every rule this desc breaks at ``feature_level`` (``None``: level-free rules only).

        Parameters
        ----------
        feature_level : FeatureLevel or str or int or None
            The device's level (default 6_4, the last DirectML has). ``None`` skips the rules
            that depend on a level (T2's and T4's level limits, the S7/J6 table).
        options : ValidationOptions, optional
            The switches where DirectML's documents are silent or disagree.

        Returns
        -------
        list of Violation
            Empty when the desc is valid.
        """
        rules = self._RULES
        whole, parts, axis = getattr(self, rules.whole), getattr(self, rules.parts), self.axis
        opts = check_options(rules.op_name, options)
        if isinstance(feature_level, bool) or not isinstance(feature_level, str | int | None):
            return _violations(rules, whole, parts, axis, feature_level, opts)  # raises
        cache: dict[tuple[object, ...], tuple[ValidationOptions | None, tuple[Violation, ...]]]
        cache = self.__dict__.setdefault("_violations_cache", {})
        key = (type(feature_level), feature_level, id(options))
        hit = cache.get(key)
        if hit is None or hit[0] is not options:
            if len(cache) >= VERDICTS_MAX:
                cache.clear()
            level = None if feature_level is None else FeatureLevel.parse(feature_level)
            found: tuple[Violation, ...] = ()
            if not fine(rules.op, rules.parts_are_outputs, whole, parts, axis, level, opts):
                found = tuple(_violations(rules, whole, parts, axis, level, opts))
            hit = cache[key] = (options, found)
        return list(hit[1])

    def validate(
        self,
        feature_level: FeatureLevel | str | int | None = LATEST,
        *,
        options: ValidationOptions | None = None,
    ) -> None:
        """Raise :class:`DirectMLValidationError` listing every violation, if there is one.

        Parameters are those of :meth:`violations`.

        Raises
        ------
        DirectMLValidationError
            With ``violations`` holding every broken rule.
        """
        found = self.violations(feature_level, options=options)
        if found:
            context = (
                ""
                if feature_level is None
                else f" at feature level {FeatureLevel.parse(feature_level)}"
            )
            raise DirectMLValidationError(self._RULES.op_name, found, context=context)


@dataclass(frozen=True, init=False)
class SplitDesc(_Desc):
    """``DML_SPLIT_OPERATOR_DESC``: split ``input`` along ``axis`` into ``outputs``.

    The constructor checks Python types only; :meth:`validate` checks DirectML's rules.

    Parameters
    ----------
    input : TensorDesc
        ``InputTensor``.
    outputs : sequence of TensorDesc
        ``OutputTensors`` (``OutputCount`` is their number).
    axis : int
        ``Axis``: unsigned in DirectML, so a negative axis breaks S3.

    Examples
    --------
    The spec's first example, axis 2 of ``[1, 1, 6, 2]`` into 2 + 1 + 3:

    >>> desc = SplitDesc(
    ...     TensorDesc("FLOAT32", [1, 1, 6, 2]),
    ...     [TensorDesc("FLOAT32", [1, 1, n, 2]) for n in (2, 1, 3)],
    ...     axis=2,
    ... )
    >>> desc.validate("1_0")
    >>> desc.violations("1_0")
    []
    >>> bad = SplitDesc(desc.input, [TensorDesc("FLOAT32", [1, 1, 2, 3])], axis=2)
    >>> for v in bad.violations("4_1"):
    ...     print(v)
    [S4] outputs[0].sizes[3]=3 must equal input.sizes[3]=2 (all but the axis)
    [S5] outputs[*].sizes[2]=[2] sum to 2, but input.sizes[2] is 6
    """

    input: TensorDesc
    outputs: tuple[TensorDesc, ...]
    axis: int

    def __init__(
        self,
        input: TensorDesc,  # noqa: A002 - the spec's name
        outputs: Sequence[TensorDesc],
        axis: int,
    ) -> None:
        object.__setattr__(self, "input", _tensor("DML_SPLIT", "input", input))
        object.__setattr__(self, "outputs", _tensors("DML_SPLIT", "outputs", outputs))
        object.__setattr__(self, "axis", integer("DML_SPLIT", "axis", axis))

    _RULES = _SPLIT
    operator_type = OperatorType.SPLIT


@dataclass(frozen=True, init=False)
class JoinDesc(_Desc):
    """``DML_JOIN_OPERATOR_DESC``: join ``inputs`` along ``axis`` into ``output``.

    Parameters
    ----------
    inputs : sequence of TensorDesc
        ``InputTensors`` (``InputCount`` is their number).
    output : TensorDesc
        ``OutputTensor``.
    axis : int
        ``Axis``, unsigned: a negative axis breaks J3.

    Examples
    --------
    DxDispatch's ``dml_join.json``: ``[3] + [2] + [5] -> [10]`` is rank 1, legal from 4_1:

    >>> parts = [TensorDesc("FLOAT32", [n]) for n in (3, 2, 5)]
    >>> desc = JoinDesc(parts, TensorDesc("FLOAT32", [10]), axis=0)
    >>> desc.validate("4_1")
    >>> [v.rule for v in desc.violations("3_0")]
    ['J6', 'J6', 'J6', 'J6']
    """

    inputs: tuple[TensorDesc, ...]
    output: TensorDesc
    axis: int

    def __init__(self, inputs: Sequence[TensorDesc], output: TensorDesc, axis: int) -> None:
        object.__setattr__(self, "inputs", _tensors("DML_JOIN", "inputs", inputs))
        object.__setattr__(self, "output", _tensor("DML_JOIN", "output", output))
        object.__setattr__(self, "axis", integer("DML_JOIN", "axis", axis))

    _RULES = _JOIN
    operator_type = OperatorType.JOIN
