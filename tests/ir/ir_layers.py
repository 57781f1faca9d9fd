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


def encode(array: np.ndarray[Any, Any], etype: ElementType) -> bytes:
    """The bytes OpenVINO stores for ``array`` of element type ``etype`` (inverse of `decode`).

    Examples
    --------
    >>> from datamove.ir._types import ELEMENT_TYPES
    >>> encode(np.array([1, -2, 3, -8, 7]), ELEMENT_TYPES["i4"]).hex()
    'e18307'
    """
    flat = np.ascontiguousarray(array).reshape(-1)
    if etype.bits == 4:
        nibbles = flat.astype(np.int8).view(np.uint8) & 0x0F
        if nibbles.size % 2:
            nibbles = np.append(nibbles, np.uint8(0))
        return bytes(nibbles[0::2] | (nibbles[1::2] << 4))
    if etype.bits == 1:
        return np.packbits(flat.astype(bool), bitorder="big").tobytes()
    return flat.astype(etype.dtype, copy=False).tobytes()
