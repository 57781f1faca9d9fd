"""What the ONNX walk (`datamove.ir._onnx`) knows of one value and lists of one node.

`Value`: a value's shape, element type, its numbers where constant, else a shape subgraph's
bounds and terms (`datamove.ir._onnx_shapes`), and a Range's ends (`_onnx_gather.range_span`).
`Node`: one node as the walk saw it, for explain (`ONNXModel.explain`); `node_name`: how
check and explain name a node, `node_kind` its operator, `subgraphs` its subgraphs; `shape_of`: a
value's type as the file declares it. `onnx_package`: the optional ``onnx`` package, imported
where first needed, which every module of the walk reads through it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from datamove._shape import Dimension, PartialShape
from datamove.ir._errors import ONNXError
from datamove.ir._offsets import Link
from datamove.ir._onnx_shapes import Term, etype_name
from datamove.ir._ops import Info
from datamove.ir._types import ELEMENT_TYPES

__all__ = ["Node", "Value", "node_kind", "node_name", "onnx_package", "shape_of", "subgraphs"]


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
    values where known (``passed``: name -> `_onnx._call_value`); ``clash``: the tensors
    whose dims the values it passes read that have a namesake in the function, where a
    term's tensor is ambiguous (explain writes no such term).
    """

    index: int
    proto: Any
    version: int
    ins: list[Value]
    outs: list[PartialShape]
    place: str | None = None
    call: dict[str, str] | None = None
    passed: dict[str, str] | None = None  # the values the call passes, where known
    clash: frozenset[str] = frozenset()  # the caller's tensors the function names too
    links: tuple[Link, ...] = ()  # a Slice's: each input's link (`datamove.ir._offsets`)


def node_name(node: Any) -> str:
    """A node's name; a nameless one is named after its first output."""
    return node.name or (node.output[0] if node.output else "")


def onnx_package() -> Any:
    try:
        import onnx  # noqa: PLC0415 - the optional 'onnx' extra
    except ImportError:
        rule = "reading .onnx files needs the optional 'onnx' package: pip install 'datamove[onnx]'"
        raise ONNXError(None, None, rule, op="") from None
    return onnx


def shape_of(type_proto: Any) -> tuple[PartialShape, str | None] | None:
    """A tensor type's shape and element type; ``None`` for other types (sequences, maps)."""
    if type_proto.WhichOneof("value") != "tensor_type":
        return None
    tensor = type_proto.tensor_type
    if not tensor.HasField("shape"):
        return PartialShape(None), etype_name(tensor.elem_type)
    dims = [
        Dimension(d.dim_value) if d.HasField("dim_value") and d.dim_value >= 0 else Dimension()
        for d in tensor.shape.dim
    ]
    return PartialShape(dims), etype_name(tensor.elem_type)


def subgraphs(node: Any) -> list[tuple[str, Any]]:
    """A node's subgraphs (an If's branches, a Loop's body), each with its attribute's name."""
    return [
        (a.name, g)
        for a in node.attribute
        for g in ((a.g, *a.graphs) if a.HasField("g") else a.graphs)
    ]


def node_kind(node: Any) -> str:
    return f"{node.domain}.{node.op_type}" if node.domain else node.op_type
