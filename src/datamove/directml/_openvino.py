"""From OpenVINO's Split-1 / VariadicSplit-1 on a shape to a ``DML_SPLIT`` desc, or why not.

OpenVINO allows what DirectML does not: dynamic dimensions, zero-length chunks, negative axes,
element types DirectML lacks. The core's shape inference (``datamove.infer_split``,
``datamove.infer_variadic_split``) resolves the chunks (``-1`` included); the desc is then
checked against DirectML's rules, and every reason it has no DirectML equivalent is reported
as a :class:`Violation`. Two reasons are not in DirectML's checklists and have ids of their own:
``X1`` (a dimension is not static) and ``X2`` (the element type has no DirectML data type).
"""

from __future__ import annotations

from typing import Any

from datamove._errors import ValidationError
from datamove.directml._desc import SplitDesc
from datamove.directml._enums import UINT32_MAX, FeatureLevel, TensorDataType
from datamove.directml._errors import DirectMLValidationError, Violation
from datamove.directml._rules import ValidationOptions
from datamove.directml._tensor import TensorDesc

__all__ = ["explain_openvino_split", "split_desc_from_openvino"]

# OpenVINO element types (their IR names) that have a DirectML data type: the kind's letter
# and the bits (f32, i64, u4).
_FROM_OPENVINO = {f"{t.name[0].lower()}{t.bits}": t for t in TensorDataType if t.bits}
_HINTS = {
    "boolean": "DirectML carries booleans as UINT8",
    "bf16": "DirectML has no bfloat16; move the bits as UINT16",
}


def _data_type(element_type: Any, found: list[Violation]) -> TensorDataType | None:
    if isinstance(element_type, TensorDataType):
        return element_type
    name = str(getattr(element_type, "type_name", element_type)).strip()
    if name.lower() in _FROM_OPENVINO:
        return _FROM_OPENVINO[name.lower()]
    try:
        return TensorDataType.parse(name)
    except ValidationError:
        hint = _HINTS.get(name.lower(), "DirectML has FLOAT16/32/64, (U)INT8/16/32/64 and (U)INT4")
        found.append(Violation("X2", "element_type", name, f"has no DirectML data type ({hint})"))
        return None


def _build(
    shape: Any,
    axis: Any,
    num_splits: Any,
    split_lengths: Any,
    element_type: Any,
    feature_level: FeatureLevel | str | int | None,
    options: ValidationOptions | None,
) -> tuple[SplitDesc | None, list[Violation]]:
    import datamove  # noqa: PLC0415 - the core imports nothing of this package; keep it so

    if (num_splits is None) == (split_lengths is None):
        raise ValidationError(
            "DML_SPLIT",
            "num_splits",
            num_splits,
            "or split_lengths must be given, not both or neither",
        )
    if num_splits is not None:
        parts = datamove.infer_split(shape, axis, num_splits)
    else:
        parts = datamove.infer_variadic_split(shape, axis, split_lengths)
    whole = datamove.PartialShape(shape)  # text is parsed, as PartialShape.parse does
    found: list[Violation] = []
    data_type = _data_type(element_type, found)
    if whole.rank is None or not whole.is_static or not all(p.is_static for p in parts):
        found.append(
            Violation("X1", "shape", str(whole),
                      "is not static; DirectML fixes every size when the operator is created")
        )  # fmt: skip
    if found or data_type is None:
        return None, found
    sizes = whole.to_shape()
    found.extend(
        Violation(
            "T8", f"shape[{i}]", n, f"does not fit DirectML's 32-bit sizes (max {UINT32_MAX})"
        )
        for i, n in enumerate(sizes)
        if n > UINT32_MAX
    )
    if found:
        return None, found
    rank = len(sizes)
    desc = SplitDesc(
        TensorDesc(data_type, sizes),
        [TensorDesc(data_type, p.to_shape()) for p in parts],
        int(axis) % rank if rank else int(axis),
    )
    return desc, desc.violations(feature_level, options=options)


def explain_openvino_split(
    shape: Any,
    axis: Any,
    *,
    num_splits: Any = None,
    split_lengths: Any = None,
    element_type: Any = "f32",
    feature_level: FeatureLevel | str | int | None = None,
    options: ValidationOptions | None = None,
) -> list[Violation]:
    """Why an OpenVINO Split / VariadicSplit has no ``DML_SPLIT`` equivalent (empty if it has one).

    Parameters
    ----------
    shape : PartialShape, sequence or str
        The input shape, in OpenVINO's notation (``"[?,6]"``, ``[2, 7]``).
    axis : int
        OpenVINO's axis; negative values count from the end.
    num_splits : int, optional
        Split-1's number of equal chunks.
    split_lengths : sequence of int, optional
        VariadicSplit-1's lengths; one ``-1`` takes the rest.
    element_type : str or TensorDataType, optional
        OpenVINO's element type (``"f32"``, ``"u4"``, ``"boolean"``) or a DirectML type.
    feature_level : FeatureLevel or str or int, optional
        Also check the feature-level tables at this level.
    options : ValidationOptions, optional
        The validation switches.

    Returns
    -------
    list of Violation
        Every reason, with its rule id (``S6`` for a zero-length chunk, ``X1`` for a dynamic
        dimension, ``X2`` for an element type, ``S7``/``T4`` for the tables ...).

    Raises
    ------
    datamove.ValidationError
        When the OpenVINO split itself is invalid (the core's error).

    Examples
    --------
    >>> [str(v) for v in explain_openvino_split([2, 7], 1, split_lengths=[7, 0])]
    ['[S6] outputs[1].sizes[1]=0 must be at least 1']
    >>> [v.rule for v in explain_openvino_split("[?,6]", -1, num_splits=3, element_type="boolean")]
    ['X2', 'X1']
    >>> explain_openvino_split([1, 6, 2], 1, num_splits=2, feature_level="3_0")
    []
    """
    return _build(shape, axis, num_splits, split_lengths, element_type, feature_level, options)[1]


def split_desc_from_openvino(
    shape: Any,
    axis: Any,
    *,
    num_splits: Any = None,
    split_lengths: Any = None,
    element_type: Any = "f32",
    feature_level: FeatureLevel | str | int | None = None,
    options: ValidationOptions | None = None,
) -> SplitDesc:
    """The ``DML_SPLIT`` desc of an OpenVINO Split / VariadicSplit on a static shape.

    ``-1`` in ``split_lengths`` is resolved and a negative axis normalised; the desc is packed
    row-major. Parameters are those of :func:`explain_openvino_split`.

    Raises
    ------
    DirectMLValidationError
        Listing every reason the split has no DirectML equivalent (zero-length chunks,
        dynamic dimensions, an element type DirectML lacks, the feature-level tables).
    datamove.ValidationError
        When the OpenVINO split itself is invalid.

    Examples
    --------
    >>> desc = split_desc_from_openvino([2, 7], -1, split_lengths=[2, -1], element_type="i8")
    >>> [t.sizes for t in desc.outputs], desc.axis, desc.input.data_type.name
    ([(2, 2), (2, 5)], 1, 'INT8')
    """
    desc, found = _build(
        shape, axis, num_splits, split_lengths, element_type, feature_level, options
    )
    if found or desc is None:
        raise DirectMLValidationError(
            "DML_SPLIT", found, context=" (OpenVINO split has no DirectML equivalent)"
        )
    return desc
