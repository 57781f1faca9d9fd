"""A bare IR layer for the rules that read one layer alone (bounds, folding), and the bytes
OpenVINO stores for a constant (to write models by hand)."""

from __future__ import annotations

from typing import Any

import numpy as np

from datamove._shape import PartialShape
from datamove.ir._graph import Layer, Port
from datamove.ir._types import ElementType


def bare_layer(
    kind: str,
    data: dict[str, str] | None = None,
    inputs: int = 2,
    outputs: int = 1,
    version: str = "opset13",
) -> Layer:
    """Layer 0 of type ``kind``: ports of no declared shape, ``data`` its attributes."""

    def port(k: int) -> Port:
        return Port(k, None, PartialShape(None), False, ())

    return Layer(
        0,
        "0",
        "l",
        kind,
        version,
        data or {},
        {},
        tuple(port(k) for k in range(inputs)),
        tuple(port(inputs + k) for k in range(outputs)),
    )


def encode(values: Any, etype: ElementType) -> bytes:
    """The bytes OpenVINO stores for ``values`` (an array, or nested lists of Python numbers) of
    element type ``etype`` (inverse of `decode`).

    Lists are converted to the element type at once, never through NumPy's default dtype (which
    makes float64 of ``[2, 2**64 - 1]``: stored as ``[2, 0]``); a value the type cannot hold
    raises ``OverflowError``.

    Examples
    --------
    >>> from datamove.ir._types import ELEMENT_TYPES, decode
    >>> encode([1, -2, 3, -8, 7], ELEMENT_TYPES["i4"]).hex()
    'e18307'
    >>> u64 = ELEMENT_TYPES["u64"]
    >>> decode(encode([2, 2**64 - 1], u64), u64, (2,)).tolist()
    [2, 18446744073709551615]
    """
    flat = np.asarray(values, dtype=etype.dtype if etype.bits >= 8 else None).reshape(-1)
    if etype.bits == 4:
        nibbles = flat.astype(np.int8).view(np.uint8) & 0x0F
        if nibbles.size % 2:
            nibbles = np.append(nibbles, np.uint8(0))
        return bytes(nibbles[0::2] | (nibbles[1::2] << 4))
    if etype.bits == 1:
        return np.packbits(flat.astype(bool), bitorder="big").tobytes()
    return flat.tobytes()
