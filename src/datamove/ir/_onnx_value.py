"""What the ONNX walk (`datamove.ir._onnx`) knows of one value and lists of one node.

`Value`: a value's shape, element type, its numbers where constant, else a shape subgraph's
bounds and terms (`datamove.ir._onnx_shapes`), and a Range's ends (`_onnx_gather.range_span`).
`Node`: one node as the walk saw it, for explain (`ONNXModel.explain`); `node_name`: how
check and explain name a node.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from datamove._shape import PartialShape
from datamove.ir._onnx_shapes import Term
from datamove.ir._ops import Info
from datamove.ir._types import ELEMENT_TYPES

__all__ = ["Node", "Value", "node_name"]


@dataclass(frozen=True, slots=True)
class Value:
    """What the walk knows of one value: shape, element type, its numbers if constant."""

    shape: PartialShape
    etype: str | None
    value: np.ndarray[Any, Any] | None = None
    source: str | None = None  # the node (or input) that makes it, named for explain
    maker: str | None = None  # that node (or input), described: "node 3 'shape_of' (Shape)"
    # Where the value is not known: per-element bounds from a shape subgraph (_onnx_shapes)
    lower: np.ndarray[Any, Any] | None = None
    upper: np.ndarray[Any, Any] | None = None
    terms: tuple[Term, ...] | None = None  # its elements as expressions of dims (explain)
    reach: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None  # (Info.reach)
    # A Range of unknown length (`range_span`): its start, limit and delta, bounded scalars
    span: tuple[Value, Value, Value] | None = None

    def info(self) -> Info:
        """As the IR's machinery reads a port (`datamove.ir._ops.Info`)."""
        etype = ELEMENT_TYPES.get(self.etype or "")
        return Info(self.shape, etype, self.value, self.lower, self.upper, self.reach)

    @classmethod
    def of(cls, info: Info, etype: str | None, terms: tuple[Term, ...] | None) -> Value:
        """A shape subgraph's value or bounds (`Info`) as the walk holds it, with its terms."""
        lower, upper, reach = info.lower, info.upper, info.reach
        return cls(info.shape, etype, info.value, None, None, lower, upper, terms, reach)

    def named(self, source: str | None, maker: str | None) -> Value:
        """The same value, made by ``maker`` (named ``source`` for explain)."""
        return dataclasses.replace(self, source=source, maker=maker)


@dataclass(slots=True)
class Node:
    """One node as the walk saw it: for explain.

    A node of a subgraph or of a function the graph's node ``index`` calls has its ``place``,
    as check names it (``node 0 'if' (If): its then_branch's node 'cut' (Slice)``), and the
    shapes the call passes its function (``call``: each input's name -> its shape), and the
    values where known (``passed``: name -> `_onnx._call_value`).
    """

    index: int
    proto: Any
    version: int
    ins: list[Value]
    outs: list[PartialShape]
    place: str | None = None
    call: dict[str, str] | None = None
    passed: dict[str, str] | None = None  # the values the call passes, where known


def node_name(node: Any) -> str:
    """A node's name; a nameless one is named after its first output."""
    return node.name or (node.output[0] if node.output else "")
