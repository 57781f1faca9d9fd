"""DirectML's enums and constants, with the names and values of ``DirectML.h`` (DirectML 1.15).

Python names drop DirectML's prefix (``TensorDataType.FLOAT32`` is
``DML_TENSOR_DATA_TYPE_FLOAT32``); ``.dml_name`` gives the C name back and ``parse`` reads
either spelling. Feature-level members are spelled ``LEVEL_4_1`` because a Python name cannot
start with a digit.
"""

from __future__ import annotations

import contextlib
import enum
import re
from typing import Any, ClassVar, Self, TypeVar

from datamove._errors import DTypeError, ValidationError, a_kind
from datamove._memo import keep

__all__ = [
    "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT",
    "DML_TENSOR_DIMENSION_COUNT_MAX",
    "DML_TENSOR_DIMENSION_COUNT_MAX1",
    "FeatureLevel",
    "OperatorType",
    "TensorDataType",
    "TensorFlags",
    "TensorType",
]

#: Maximum rank when ``DML_TARGET_VERSION`` < 0x3000.
DML_TENSOR_DIMENSION_COUNT_MAX = 5
#: Maximum rank when ``DML_TARGET_VERSION`` >= 0x3000.
DML_TENSOR_DIMENSION_COUNT_MAX1 = 8
#: Minimum base-offset alignment, in bytes, of every bound buffer tensor.
DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16

UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1

_E = TypeVar("_E", bound=enum.IntEnum)


def _parse_member(cls: type[_E], value: Any, prefix: str, what: str) -> _E:
    """Read an enum member from a member, its value, its short name or its C name."""
    if isinstance(value, cls):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        with contextlib.suppress(ValueError):
            return cls(value)
    elif isinstance(value, str):
        name = value.strip().upper().removeprefix(prefix)
        if name in cls.__members__:
            return cls.__members__[name]
    else:  # a bool too
        rule = f"must be {_a(cls.__name__)}, a name or an int, not {a_kind(value)}"
        raise DTypeError("DirectML", what, value, rule)
    known = ", ".join(cls.__members__)
    raise ValidationError(
        "DirectML", what, value, f"is not {_a(cls.__name__)}", hint=f"one of {known}"
    )


def _a(name: str) -> str:
    """``name`` with its article: ``an OperatorType``, ``a FeatureLevel``."""
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


class _CEnum(enum.IntEnum):
    """An enum whose C names are a prefix (a class keyword) and the member's name."""

    _prefix: ClassVar[str]
    _argument: ClassVar[str]  # what an error calls the value parsed: TensorDesc's parameter

    def __init_subclass__(cls, prefix: str = "", argument: str = "type", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._prefix, cls._argument = prefix, argument

    @property
    def dml_name(self) -> str:
        """The C name: ``DML_TENSOR_TYPE_BUFFER`` for ``TensorType.BUFFER``."""
        return self._prefix + self.name

    @classmethod
    def parse(cls, value: Any) -> Self:
        """Read a member from a member, its value or a name (short or C)."""
        return _parse_member(cls, value, cls._prefix, cls._argument)


class TensorDataType(_CEnum, prefix="DML_TENSOR_DATA_TYPE_"):
    """``DML_TENSOR_DATA_TYPE``: the element type of a tensor.

    Examples
    --------
    >>> TensorDataType.FLOAT32.value, TensorDataType.FLOAT32.dml_name
    (1, 'DML_TENSOR_DATA_TYPE_FLOAT32')
    >>> TensorDataType.parse("DML_TENSOR_DATA_TYPE_INT4"), TensorDataType.parse("uint8")
    (<TensorDataType.INT4: 13>, <TensorDataType.UINT8: 5>)
    >>> TensorDataType.INT4.bits, TensorDataType.FLOAT16.bits
    (4, 16)
    """

    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11
    UINT4 = 12
    INT4 = 13

    @property
    def bits(self) -> int:
        """Bits per element as DirectMLX counts them (the name's number); 0 for ``UNKNOWN``."""
        return _BITS[self]

    @classmethod
    def parse(cls, value: Any) -> TensorDataType:
        """Read a data type from a member, its value, or a name (short or C)."""
        if type(value) is str and value in _DATA_TYPE_NAMES:  # the usual spellings, at once
            return _DATA_TYPE_NAMES[value]
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise DTypeError(
                "DirectML", "data_type", value,
                "must be a DML tensor data type: a name such as 'FLOAT32' or "
                "'DML_TENSOR_DATA_TYPE_FLOAT32', a TensorDataType, or its int value",
                hint=_numpy_hint(value),
            )  # fmt: skip
        return _parse_member(cls, value, "DML_TENSOR_DATA_TYPE_", "data_type")


def _numpy_hint(value: Any) -> str | None:
    """For a NumPy type or dtype (``np.float32``), the DirectML name to write instead."""
    import numpy as np  # noqa: PLC0415 - only on this error's path

    if value is None:  # np.dtype(None) is float64
        return None
    try:
        name = np.dtype(value).name.upper()
    except (TypeError, ValueError):
        return None
    if name in TensorDataType.__members__:
        return f"for NumPy's {name.lower()}, write {name!r}"
    return None


_DATA_TYPE_NAMES = {
    name: member
    for member in TensorDataType
    for name in (member.name, member.dml_name, member.name.lower())
}
_BITS = {t: int(re.sub(r"\D", "", t.name) or 0) for t in TensorDataType}  # FLOAT16: 16; UNKNOWN: 0


class TensorFlags(enum.IntFlag):
    """``DML_TENSOR_FLAGS``: ``NONE`` (0) or ``OWNED_BY_DML`` (1), which only inputs may carry.

    Examples
    --------
    >>> TensorFlags.OWNED_BY_DML.dml_name
    'DML_TENSOR_FLAG_OWNED_BY_DML'
    >>> TensorFlags.parse("DML_TENSOR_FLAG_OWNED_BY_DML") is TensorFlags.OWNED_BY_DML
    True
    """

    NONE = 0x0
    OWNED_BY_DML = 0x1

    @property
    def dml_name(self) -> str:
        """The C name; unknown bits are written as a hexadecimal number."""
        if self.value in (0, 1):  # NONE, OWNED_BY_DML
            return f"DML_TENSOR_FLAG_{self.name}"
        return hex(self.value)

    @classmethod
    def parse(cls, value: Any) -> TensorFlags:
        """Read flags from an int, a name (C or short), or a list of names OR'd together."""
        if isinstance(value, cls):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value <= UINT32_MAX:
                raise ValidationError("DirectML", "flags", value, "must fit in a UINT")
            return cls(value)
        if isinstance(value, str):
            result = cls.NONE
            for part in value.split("|"):
                name = part.strip().upper().removeprefix("DML_TENSOR_FLAG_")
                if name not in cls.__members__:
                    raise ValidationError(
                        "DirectML", "flags", value, "is not a DML_TENSOR_FLAGS name",
                        hint="DML_TENSOR_FLAG_NONE or DML_TENSOR_FLAG_OWNED_BY_DML",
                    )  # fmt: skip
                result |= cls.__members__[name]
            return result
        if isinstance(value, list | tuple):
            result = cls.NONE
            for part in value:
                result |= cls.parse(part)
            return result
        rule = f"must be TensorFlags, a name or an int, not {a_kind(value)}"
        raise DTypeError("DirectML", "flags", value, rule)


class TensorType(_CEnum, prefix="DML_TENSOR_TYPE_", argument="tensor_type"):
    """``DML_TENSOR_TYPE``: ``BUFFER`` (1) is the only valid one."""

    INVALID = 0
    BUFFER = 1


class OperatorType(_CEnum, prefix="DML_OPERATOR_"):
    """``DML_OPERATOR_TYPE`` values of the operators this package models.

    Examples
    --------
    >>> int(OperatorType.SPLIT), int(OperatorType.JOIN), OperatorType.JOIN.dml_name
    (62, 63, 'DML_OPERATOR_JOIN')
    """

    SPLIT = 62
    JOIN = 63


_LEVEL_CACHE: dict[str, int] = {}  # text -> value, for the texts that parsed
_LEVEL_CACHE_MAX = 256  # texts kept (cleared whole when full: spellings with spaces are endless)
# Up to 9 digits a part (levels have one): a longer run is no level, and int() of 4300+ digits
# raises ValueError.
_LEVEL_TEXT = re.compile(r"^(?:DML_FEATURE_LEVEL_|FL)?_?(\d{1,9})[_.](\d{1,9})$")


class FeatureLevel(_CEnum, prefix="DML_FEATURE_"):
    """``DML_FEATURE_LEVEL``: the hex value encodes major.minor, so levels compare as ints.

    Examples
    --------
    >>> FeatureLevel.parse("4_1") is FeatureLevel.LEVEL_4_1
    True
    >>> FeatureLevel.parse(0x4100) == FeatureLevel.parse("DML_FEATURE_LEVEL_4_1")
    True
    >>> FeatureLevel.LEVEL_3_0 < FeatureLevel.LEVEL_4_1, str(FeatureLevel.LEVEL_6_4)
    (True, '6_4')
    """

    LEVEL_1_0 = 0x1000
    LEVEL_2_0 = 0x2000
    LEVEL_2_1 = 0x2100
    LEVEL_3_0 = 0x3000
    LEVEL_3_1 = 0x3100
    LEVEL_4_0 = 0x4000
    LEVEL_4_1 = 0x4100
    LEVEL_5_0 = 0x5000
    LEVEL_5_1 = 0x5100
    LEVEL_5_2 = 0x5200
    LEVEL_6_0 = 0x6000
    LEVEL_6_1 = 0x6100
    LEVEL_6_2 = 0x6200
    LEVEL_6_3 = 0x6300
    LEVEL_6_4 = 0x6400

    def __str__(self) -> str:
        """``"4_1"``, the way DirectML's docs write a level."""
        return self.name.removeprefix("LEVEL_")

    @classmethod
    def parse(cls, value: Any) -> Self:
        """Read a level from a member, an int (``0x4100``) or text (``"4_1"``, ``"0x4100"``)."""
        if type(value) is cls:
            return value
        if isinstance(value, str):
            level = _LEVEL_CACHE.get(value)  # read once: another thread may clear it
            if level is None:
                level = cls._parse_text(value).value
                keep(_LEVEL_CACHE, value, level, _LEVEL_CACHE_MAX)
            return cls(level)
        return _parse_member(cls, value, "LEVEL_", "feature_level")

    @classmethod
    def _parse_text(cls, value: str) -> Self:
        text = value.strip().upper()
        match = _LEVEL_TEXT.match(text)
        number: int | str = value
        if match:
            with contextlib.suppress(ValueError):  # not a level: report the text as written
                return cls(int(match[1]) << 12 | int(match[2]) << 8)
        elif text.startswith("0X"):
            with contextlib.suppress(ValueError):
                number = int(text, 16)
        return _parse_member(cls, number, "LEVEL_", "feature_level")
