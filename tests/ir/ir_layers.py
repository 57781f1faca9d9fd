"""A bare IR layer for the rules that read one layer alone (bounds, folding)."""

from __future__ import annotations

from datamove._shape import PartialShape
from datamove.ir._graph import Layer, Port


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
