"""OpenVINO element types: names in the IR, port precisions, NumPy dtypes and packing.

``i4``/``u4`` hold two values a byte, the first in the low nibble; ``u1`` holds eight, the first
in the most significant bit (as OpenVINO writes them). The 4-bit, bfloat16 and float8 types use
``ml_dtypes``, imported only when such a constant is met.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from datamove.ir._errors import IRError

__all__ = ["ELEMENT_TYPES", "OPENVINO_TYPE_NAMES", "ElementType", "decode"]


@dataclass(frozen=True)
class ElementType:
    """One element type: its IR name, port precision, bits a value and NumPy dtype name."""

    name: str
    precision: str
    bits: int
    dtype_name: str  # a numpy name, or "ml_dtypes.<name>"
    is_integer: bool = False

    @property
    def dtype(self) -> np.dtype[Any]:
        """The NumPy dtype values of this type are held in."""
        if self.dtype_name.startswith("ml_dtypes."):
            try:
                import ml_dtypes  # noqa: PLC0415 - optional dependency, only for these types
            except ImportError:
                raise IRError(
                    "element_type",
                    self.name,
                    "needs ml_dtypes, which is not installed",
                    hint="pip install 'datamove[dtypes]'",
                ) from None

            extra: np.dtype[Any] = np.dtype(
                getattr(ml_dtypes, self.dtype_name.removeprefix("ml_dtypes."))
            )
            return extra
        return np.dtype(self.dtype_name)

    def nbytes(self, count: int) -> int:
        """Bytes that ``count`` values take in a ``.bin`` file."""
        return (count * self.bits + 7) // 8

    @property
    def itemsize(self) -> int:
        """Bytes one value takes in a NumPy array (a 1-bit or 4-bit value takes a whole byte)."""
        return (self.bits + 7) // 8


_TABLE: Final = (
    ElementType("f64", "FP64", 64, "float64"),
    ElementType("f32", "FP32", 32, "float32"),
    ElementType("f16", "FP16", 16, "float16"),
    ElementType("bf16", "BF16", 16, "ml_dtypes.bfloat16"),
    ElementType("f8e4m3", "F8E4M3", 8, "ml_dtypes.float8_e4m3fn"),
    ElementType("f8e5m2", "F8E5M2", 8, "ml_dtypes.float8_e5m2"),
    ElementType("i64", "I64", 64, "int64", is_integer=True),
    ElementType("i32", "I32", 32, "int32", is_integer=True),
    ElementType("i16", "I16", 16, "int16", is_integer=True),
    ElementType("i8", "I8", 8, "int8", is_integer=True),
    ElementType("i4", "I4", 4, "ml_dtypes.int4", is_integer=True),
    ElementType("u64", "U64", 64, "uint64", is_integer=True),
    ElementType("u32", "U32", 32, "uint32", is_integer=True),
    ElementType("u16", "U16", 16, "uint16", is_integer=True),
    ElementType("u8", "U8", 8, "uint8", is_integer=True),
    ElementType("u4", "U4", 4, "ml_dtypes.uint4", is_integer=True),
    ElementType("u1", "BIN", 1, "uint8", is_integer=True),
    ElementType("boolean", "BOOL", 8, "bool"),
)

ELEMENT_TYPES: Final = {t.name: t for t in _TABLE}
"""Element types by IR name (``"f32"``, ``"i4"``, ``"boolean"``, ...)."""

PRECISIONS: Final = {t.precision: t for t in _TABLE}
"""Element types by port precision (``"FP32"``, ``"I4"``, ``"BOOL"``, ...)."""

_UNREAD: Final = ("u2", "u3", "u6", "nf4", "string", "f4e2m1", "f8e8m0")  # types not in _TABLE

OPENVINO_PRECISIONS: Final = frozenset(
    {*ELEMENT_TYPES, *PRECISIONS, *_UNREAD, *(name.upper() for name in _UNREAD)}
    | {"undefined", "dynamic", "UNSPECIFIED", "bin", "U1"}  # "bin" and "U1": u1 as well as BIN
)
"""Every port precision OpenVINO 2026.4 reads; others (``fp32``, ``bool``, ``XYZ``) make it refuse
the file (``tests/ir/test_run_refuses.py``)."""

OPENVINO_TYPE_NAMES: Final = frozenset({*ELEMENT_TYPES, *_UNREAD, "undefined", "dynamic"})
"""Every name of an element type OpenVINO 2026.4 reads in an attribute (``destination_type``,
``output_type``), matched ignoring case (``"I32"`` too: the reader lowers it); others (``fp32``,
``bool``, ``bin``) make it refuse the file (``tests/ir/test_type_attributes.py``)."""


def decode(
    raw: bytes | memoryview | np.ndarray[Any, Any], etype: ElementType, shape: tuple[int, ...]
) -> np.ndarray[Any, Any]:
    """Turn the bytes of a constant into an array (a copy, never a view of the file).

    Examples
    --------
    >>> decode(bytes([0xE1, 0x83, 0x07]), ELEMENT_TYPES["i4"], (5,)).astype(int).tolist()
    [1, -2, 3, -8, 7]
    >>> decode(bytes([0xB0, 0xC0]), ELEMENT_TYPES["u1"], (10,)).tolist()
    [1, 0, 1, 1, 0, 0, 0, 0, 1, 1]
    """
    count = math.prod(shape)
    data = np.frombuffer(raw, dtype=np.uint8, count=etype.nbytes(count))
    if etype.bits == 4:
        nibbles = np.empty(data.size * 2, dtype=np.uint8)
        nibbles[0::2] = data & 0x0F
        nibbles[1::2] = data >> 4
        values = nibbles[:count]
        if etype.name == "i4":
            return ((values.astype(np.int8) ^ 8) - 8).astype(etype.dtype).reshape(shape)
        return values.astype(etype.dtype).reshape(shape)
    if etype.bits == 1:
        return np.unpackbits(data, bitorder="big")[:count].reshape(shape)
    return data.view(etype.dtype)[:count].reshape(shape).copy()
