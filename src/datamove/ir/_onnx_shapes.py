"""ONNX shape subgraphs, folded and bounded by the IR's machinery (`datamove.ir._bounds`).

A model exported with dynamic axes computes its Slice ends and Split lengths from shapes:
``Shape -> Gather -> Div -> Unsqueeze -> Concat -> Slice``. `shape_values` translates one such
ONNX node into the IR layer that computes the same (Shape -> ShapeOf, Cast -> Convert, Div ->
Divide, Where -> Select...) and calls `bound_layer`: its exact value where its inputs are known
(static dims), else per-element interval bounds (a dynamic dim), else nothing.

Where ONNX's semantics differ from OpenVINO's (integer ``Div`` truncates, ``Gather`` refuses
an index out of range...), the translation follows ONNX (onnxruntime and ``onnx.reference``):
each translator says how, and docs/ir.md ("ONNX shape subgraphs") tables them. A node that fails
at run time whatever its inputs (an integer division by zero) gives no value, and a note.

Anything else (another node type, a legacy broadcast, more than `datamove.ir._ops.SMALL`
elements, an arithmetic overflow) gives no value: never a guess. A node its operator's schema
refuses (its inputs, outputs, attributes: `datamove.ir._onnx_faults.schema_fault`) is never
translated, so a translation takes their number and types as the schema gives them.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from datamove._errors import plural
from datamove._shape import PartialShape
from datamove._splitting import Splitting
from datamove.ir._bounds import HUGE, bound_layer, moved, wide_bounds
from datamove.ir._graph import Layer, Port
from datamove.ir._ops import SMALL, Info, bounds_of, with_bounds
from datamove.ir._types import ELEMENT_TYPES

__all__ = [
    "ETYPES",
    "SHAPE_NODES",
    "Term",
    "axes_fault",
    "dim_term",
    "etype_name",
    "gather_index_fault",
    "gather_layer",
    "gather_shape",
    "literal",
    "node_attr",
    "onnx_type",
    "render",
    "reshape_layer",
    "shape_terms",
    "shape_values",
    "value_terms",
]

# ONNX TensorProto data types by number, written as OpenVINO names them (f32, i64...).
ETYPES: Final = {
    1: "f32",
    2: "u8",
    3: "i8",
    4: "u16",
    5: "i16",
    6: "i32",
    7: "i64",
    8: "string",
    9: "boolean",
    10: "f16",
    11: "f64",
    12: "u32",
    13: "u64",
    14: "complex64",
    15: "complex128",
    16: "bf16",
    17: "f8e4m3",
    19: "f8e5m2",
    21: "u4",
    22: "i4",
}

_INTS: Final = 7  # AttributeProto.INTS
_OUT: Final = (Port(0, None, PartialShape(None), False, ()),)


def etype_name(code: int) -> str | None:
    """An ONNX element type's name as OpenVINO writes it (``None`` for 0, undefined)."""
    return None if code == 0 else ETYPES.get(code, f"onnx type {onnx_type(code)}")


def onnx_type(code: int) -> str:
    """An ONNX element type's own name (``FLOAT``, ``INT64``); its number where onnx has none."""
    from onnx import TensorProto  # noqa: PLC0415 - the optional 'onnx' extra, read by now

    try:
        return str(TensorProto.DataType.Name(code))
    except ValueError:
        return str(code)


class _Refused(Exception):  # noqa: N818 - internal: the node gives no value
    """The translation stops: the value is unknown (with a note where it fails at run time)."""

    def __init__(self, note: str | None = None) -> None:
        super().__init__(note)
        self.note = note


def node_attr(node: Any, name: str, default: Any = None) -> Any:
    """An int or ints attribute's value (a list of ints), or ``default`` where the node has none.

    Of the type the operator's schema gives it: a node of another is not read (`schema_fault`
    in `datamove.ir._onnx_faults`).
    """
    for a in node.attribute:
        if a.name == name:
            return [int(v) for v in a.ints] if a.type == _INTS else int(a.i)
    return default


def _layer(kind: str, version: int, **data: str) -> Layer:
    """An IR layer of one output, as `bound_layer` reads it."""
    return Layer(0, "0", "", kind, f"opset{version}", data, {}, (), _OUT)


def _const(values: Any) -> Info:
    value = np.array(values, dtype=np.int64)
    value.flags.writeable = False
    return Info(PartialShape(list(value.shape)), ELEMENT_TYPES["i64"], value)


def _ints(info: Info) -> list[int]:
    """An exactly known integer input's values (flattened); `_Refused` otherwise."""
    if info.value is None or info.value.dtype.kind not in "iu" or info.value.size > SMALL:
        raise _Refused
    return [int(v) for v in info.value.reshape(-1)]


def _axes(node: Any, ins: Sequence[Info], opset: int, since: int) -> list[int] | None:
    """The axes of Squeeze, Unsqueeze or ReduceProd: an attribute before ``since``, else input 1."""
    if opset < since:
        axes: list[int] | None = node_attr(node, "axes")
        return axes
    if len(ins) < 2 or not node.input[1]:
        return None
    return _ints(ins[1])


def _bound(layer: Layer, ins: Sequence[Info]) -> Info | None:
    """`bound_layer`, at no cost where an input is data (neither known nor bounded)."""
    if layer.type != "ShapeOf" and any(bounds_of(i) is None for i in ins):
        return None
    return bound_layer(layer, ins)


# -- the nodes -----------------------------------------------------------------------------------
def _shape_cut(node: Any, rank: int) -> slice:
    """Shape-15's ``start`` and ``end``, clamped as the spec clamps them."""
    start, end = node_attr(node, "start", 0), node_attr(node, "end")  # ints, or it raised
    edges = (start, rank if end is None else end)
    return slice(*(min(max(v + rank if v < 0 else v, 0), rank) for v in edges))


def _shape(node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    got = _bound(_layer("ShapeOf", 3, output_type="i64"), ins[:1])
    start, end = node_attr(node, "start", 0), node_attr(node, "end")
    if opset < 15 or (start == 0 and end is None) or got is None:
        return got
    rank = ins[0].shape.rank
    assert rank is not None  # ShapeOf bounds no data of unknown rank: got is None there
    cut = _shape_cut(node, rank)
    got_bounds = bounds_of(got)
    assert got_bounds is not None  # bound_layer gives a value or bounds
    lo, hi = got_bounds
    reach = None if got.reach is None else (got.reach[0][cut], got.reach[1][cut])
    return with_bounds(PartialShape([len(lo[cut])]), got.etype, lo[cut], hi[cut], reach)


def gather_layer() -> Layer:
    """A Gather (1, 11, 13) as the IR's Gather-8 of ``batch_dims`` 0, its axis its third input."""
    return _layer("Gather", 8, batch_dims="0")


def gather_index_fault(indices: Sequence[int], most: int | None) -> int | None:
    """The first of a Gather's ``indices`` out of range for every size up to ``most`` of its axis.

    ONNX's range (Gather-11 on; onnxruntime and onnx.reference read Gather-1 so too) is
    ``[-size, size - 1]``: an index ``i`` needs a size of at least ``i + 1``, a negative one
    ``-i``, so only the axis's largest size decides (``None``: unbounded, no index is out of
    range of every size). ``None`` where each index fits some size.
    """
    if most is None:
        return None
    return next((i for i in indices if (i + 1 if i >= 0 else -i) > most), None)


def gather_shape(data: Info, indices: Info, axis: int) -> Info | None:
    """A data Gather's output shape on ``axis`` (an axis of the data's rank); ``None`` where not.

    The IR's rule (`moved`): ``data.shape[:axis] + indices.shape + data.shape[axis + 1:]``, of
    indices of static shape.
    """
    return moved(gather_layer(), [data, indices, _const(axis)])


def view_shape(kind: str, data: Info, axes: list[int]) -> Info | None:
    """A data Unsqueeze's or Squeeze's output shape, the IR's rule (`moved`); ``None`` where not.

    ``axes`` are distinct axes of the output's rank (an Unsqueeze's) or the data's; a Squeeze's
    dims listed must be 1 in ``data`` (ONNX's: one of unknown size is 1 wherever it runs).
    """
    return moved(_layer(kind, 1), [data, _const(axes)])


def _gather(node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    axis = node_attr(node, "axis", 0)
    data = bounds_of(ins[0])
    if data is None:
        raise _Refused
    indices = _ints(ins[1])
    rank = data[0].ndim
    if not -rank <= axis < rank:
        raise _Refused(f"axis {axis} is out of range for its data of rank {rank}")
    size = data[0].shape[axis]
    bad = gather_index_fault(indices, size)
    if bad is not None:
        raise _Refused(
            f"indices holds {bad}, out of range for an axis of {size} values: onnxruntime "
            "fails at run time"
        )
    return _bound(gather_layer(), [ins[0], ins[1], _const(axis)])


def axes_fault(axes: list[int], rank: int, of: str = "rank") -> str | None:
    """Why an Unsqueeze's or Squeeze's ``axes`` are not axes of ``rank``, or ``None``.

    One out of range, or one listed twice (``-1`` and ``rank - 1`` are one); ``of`` names the
    rank (an Unsqueeze's is its output's).

    >>> axes_fault([5], 2), axes_fault([1, -3], 3)
    ('axes=[5] holds 5, out of range for rank 2', None)
    >>> axes_fault([0, -4], 4, "output rank")
    'axes=[0, -4] list axis 0 twice (output rank 4)'
    """
    seen: set[int] = set()
    for a in axes:
        if not -rank <= a < rank:
            return f"axes={axes} holds {a}, out of range for {of} {rank}"
        if a % rank in seen:
            return f"axes={axes} list axis {a % rank} twice ({of} {rank})"
        seen.add(a % rank)
    return None


def _unsqueeze(node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    axes = _axes(node, ins, opset, 13)
    if axes is None:
        raise _Refused
    rank = ins[0].shape.rank
    if rank is not None and bounds_of(ins[0]) is not None:  # a shape subgraph's: a note
        fault = axes_fault(axes, rank + len(axes), "output rank")
        if fault is not None:
            raise _Refused(f"{fault}: onnxruntime refuses it")
    return _bound(_layer("Unsqueeze", 1), [ins[0], _const(axes)])


def _squeeze(node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    axes = _axes(node, ins, opset, 13)
    rest = [] if axes is None else [_const(axes)]
    return _bound(_layer("Squeeze", 1), [ins[0], *rest])


def _cast(node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    to = node_attr(node, "to")
    target = ELEMENT_TYPES.get(etype_name(to) or "") if isinstance(to, int) else None
    source = ins[0].etype
    if target is None or source is None:
        raise _Refused
    data = ins[0]
    if source.dtype.kind == "f" and target.dtype.kind in "iu":
        data = _truncated(data, np.iinfo(target.dtype))
    return _bound(_layer("Convert", 1, destination_type=target.name), [data])


def _truncated(info: Info, limits: Any) -> Info:
    """Floats cast to an integer type: rounded toward zero, as onnxruntime and the reference do.

    Truncation is monotone, so bounds truncated stay bounds. `_Refused` where a value may be
    infinite, NaN or outside the integer type (undefined in C++).
    """
    got = bounds_of(info)
    if got is None or not (np.isfinite(got[0]).all() and np.isfinite(got[1]).all()):
        raise _Refused
    lower, upper = np.trunc(got[0]), np.trunc(got[1])
    if any(
        not limits.min <= int(v) <= limits.max for v in (*lower.reshape(-1), *upper.reshape(-1))
    ):
        raise _Refused
    if info.value is not None:
        return Info(info.shape, info.etype, lower)
    return Info(info.shape, info.etype, None, lower, upper)


def _binary(kind: str, **data: str) -> Callable[[Any, Sequence[Info], int], Info | None]:
    """An element-wise binary node; a Divide refuses an integer divisor known to hold 0."""

    def translate(_node: Any, ins: Sequence[Info], opset: int) -> Info | None:
        if opset < 7:  # Add-6 and older: the legacy broadcast attribute
            raise _Refused
        if kind == "Divide":
            _no_zero(ins)
        return _bound(_layer(kind, 1, auto_broadcast="numpy", **data), ins)

    return translate


def _no_zero(ins: Sequence[Info]) -> None:
    """An integer divisor known to hold 0: onnxruntime fails at run time."""
    divisor = ins[1]
    if divisor.etype is not None and divisor.etype.dtype.kind in "iu":
        got = bounds_of(divisor)
        if got is not None and ((got[0] == 0) & (got[1] == 0)).any():
            raise _Refused("divides an integer by zero: onnxruntime fails at run time")


def _mod(node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    fmod = node_attr(node, "fmod", 0)
    if fmod not in (0, 1):
        raise _Refused
    _no_zero(ins)
    return _bound(_layer("FloorMod" if fmod == 0 else "Mod", 1, auto_broadcast="numpy"), ins)


def _extreme(kind: str) -> Callable[[Any, Sequence[Info], int], Info | None]:
    """Min or Max of one or more inputs: pairwise (each pair broadcast as NumPy)."""

    def translate(_node: Any, ins: Sequence[Info], opset: int) -> Info | None:
        if opset < 8 or not ins:  # Min-6 and older do not broadcast
            raise _Refused
        got: Info | None = ins[0]
        for other in ins[1:]:
            if got is None:
                return None
            got = _bound(_layer(kind, 1, auto_broadcast="numpy"), [got, other])
        return got

    return translate


def _unary(kind: str) -> Callable[[Any, Sequence[Info], int], Info | None]:
    def translate(_node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
        return _bound(_layer(kind, 1), ins[:1])

    return translate


def _ceil(node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    """Ceil as ``-floor(-a)``: Neg, Floor, Neg (floats: each exact, so the same numbers)."""
    etype = ins[0].etype
    if etype is None or etype.dtype.kind != "f":
        raise _Refused
    negated = _neg(node, ins, opset)
    floored = None if negated is None else _bound(_layer("Floor", 1), [negated])
    return None if floored is None else _neg(node, [floored], opset)


def _clip(node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    """Clip-11 and later: ``min(max(a, lo), hi)``, a Maximum then a Minimum.

    So ``hi`` where ``lo > hi``, as the spec says; a bound left out (an empty input name) is not
    applied.
    """
    if opset < 11:  # Clip-6: min and max are float attributes
        raise _Refused
    got: Info | None = ins[0]
    for k, kind in ((1, "Maximum"), (2, "Minimum")):
        if k >= len(ins) or not node.input[k]:
            continue
        if ins[k].shape.rank != 0:  # a scalar, as the spec and onnxruntime require
            raise _Refused
        if got is None:
            return None
        got = _bound(_layer(kind, 1, auto_broadcast="numpy"), [got, ins[k]])
    return got


def _split_lengths(node: Any, ins: Sequence[Info], opset: int, size: int) -> tuple[int, ...]:
    """An ONNX Split's parts' lengths on an axis of ``size`` (`Splitting.from_onnx`)."""
    if opset >= 13:
        split = _ints(ins[1]) if len(ins) > 1 else None
    elif len(ins) == 1:
        split = node_attr(node, "split")
    else:
        raise _Refused
    # its ValidationError (the node's own problem, which the walk reports) reads as unknown
    s = Splitting.from_onnx(
        node_attr(node, "axis", 0),
        split,
        num_outputs=node_attr(node, "num_outputs"),
        outputs=len(node.output),
        opset=opset,
    )
    return s.lengths(size)


def _split(node: Any, ins: Sequence[Info], opset: int) -> tuple[Info | None, ...]:
    """Split: each part a Gather of its indices along the axis (``Split(Shape(x))`` to dims)."""
    data = bounds_of(ins[0]) if ins else None
    axis = node_attr(node, "axis", 0)
    if data is None or not isinstance(axis, int) or not -data[0].ndim <= axis < data[0].ndim:
        raise _Refused
    a = axis % data[0].ndim
    cuts = itertools.accumulate(_split_lengths(node, ins, opset, data[0].shape[a]), initial=0)
    gather = _layer("Gather", 8, batch_dims="0")
    return tuple(
        _bound(gather, [ins[0], _const(list(range(lo, hi))), _const(a)])
        for lo, hi in itertools.pairwise(cuts)
    )


def _identity(_node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    return ins[0]


def _neg(_node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    """Neg as a subtraction from 0 (of the input's type: exact, or unknown where it overflows)."""
    etype = ins[0].etype
    if etype is None or etype.dtype.kind not in "if":
        raise _Refused
    zero = np.zeros((), dtype=etype.dtype)
    zero.flags.writeable = False
    return _bound(
        _layer("Subtract", 1, auto_broadcast="numpy"), [Info(PartialShape([]), etype, zero), ins[0]]
    )


def _where(_node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    return _bound(_layer("Select", 1, auto_broadcast="numpy"), [_either(ins[0]), *ins[1:]])


def _either(info: Info) -> Info:
    """A boolean tensor of a static shape: each element false or true, where nothing more is known.

    So that a logical node with one operand known (``False and c``) is known whatever ``c``.
    """
    shape = info.shape
    if bounds_of(info) is not None or info.etype is None or info.etype.name != "boolean":
        return info
    if not shape.is_static or int(np.prod(shape.to_shape(), dtype=np.int64)) > SMALL:
        return info
    dims = shape.to_shape()
    return with_bounds(shape, info.etype, np.zeros(dims, dtype=bool), np.ones(dims, dtype=bool))


def _logical(kind: str) -> Callable[[Any, Sequence[Info], int], Info | None]:
    """Not, And, Or, Xor: on booleans as integers 0 and 1, by the IR's arithmetic layers.

    OpenVINO's IR has no fold for its logical layers here, so each is the arithmetic that is
    non-zero exactly where it is true, converted back to boolean (true where every value of its
    interval is non-zero, false where it is 0): Not is ``1 - a``, And ``a * b``, Or
    ``max(a, b)``, Xor ``a - b``. Exact on known values; sound on bounds.
    """
    arith = {"Not": "Subtract", "And": "Multiply", "Or": "Maximum", "Xor": "Subtract"}[kind]

    def translate(_node: Any, ins: Sequence[Info], opset: int) -> Info | None:
        if opset < 7:  # And-1 and older: the legacy broadcast attribute
            raise _Refused
        if any(i.etype is None or i.etype.name != "boolean" for i in ins):
            raise _Refused
        ints: list[Info | None] = [
            _bound(_layer("Convert", 1, destination_type="i64"), [_either(i)]) for i in ins
        ]
        if kind == "Not":
            ints.insert(0, _const(1))
        if any(i is None for i in ints):
            return None
        known = [i for i in ints if i is not None]
        got = _bound(_layer(arith, 1, auto_broadcast="numpy"), known)
        return (
            None if got is None else _bound(_layer("Convert", 1, destination_type="boolean"), [got])
        )

    return translate


def _range(_node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    if any(i.value is None or i.value.size != 1 for i in ins):
        raise _Refused
    etype = ins[0].etype
    if etype is None or any(i.etype != etype for i in ins):
        raise _Refused
    if ins[2].value is not None and (ins[2].value == 0).all():  # of any type: no division
        raise _Refused("its delta is 0: onnxruntime refuses it")
    return _bound(_layer("Range", 4, output_type=etype.name), ins)


def reshape_layer(node: Any, opset: int) -> Layer | None:
    """A Reshape-5 or later as the IR's Reshape-1 (``None`` before opset 5, or another allowzero).

    A 0 copies the data's dim (``special_zero``) unless ``allowzero=1``.
    """
    allow = node_attr(node, "allowzero", 0)
    if opset < 5 or allow not in (0, 1):
        return None
    return _layer("Reshape", 1, special_zero="true" if allow == 0 else "false")


def _reshape(node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    layer = reshape_layer(node, opset)
    if layer is None:
        raise _Refused
    return _bound(layer, ins)


def _expand(_node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    return _bound(_layer("Broadcast", 3, mode="bidirectional"), ins)


def _tile(_node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    """Tile-6 and later: IR Tile, ``repeats`` one count per axis of the data (none negative).

    ONNX requires as many repeats as the data has axes (onnxruntime refuses others; IR Tile
    would pad the shorter with 1s): another length, a negative count, or Tile-1's ``tiles``
    and ``axis`` inputs give no value. Where the data is a shape subgraph's, ``repeats`` that
    onnxruntime refuses whatever the data's dims (of another length or rank, by their shape or
    their values; a negative count) are a note too.
    """
    if opset < 6:
        raise _Refused
    data, given = ins
    rank = data.shape.rank
    shaped = rank is not None and bounds_of(data) is not None  # a shape subgraph's: a note

    def refuse(rule: str) -> _Refused:
        return _Refused(f"repeats {rule}: onnxruntime refuses it" if shaped else None)

    if given.shape.rank is None:
        raise _Refused
    if given.shape.rank != 1:
        raise refuse(f"is {given.shape.rank}-D; it must be 1-D")
    length = given.shape.dims[0]
    if length.is_static and length.get_length() != rank:
        raise refuse(f"has {plural(length.get_length(), 'value')}, but its data has rank {rank}")
    repeats = _ints(given)  # known: its length is static, so it is the rank
    negative = next((r for r in repeats if r < 0), None)
    if negative is not None:
        raise refuse(f"holds {negative}, a negative count")
    return _bound(_layer("Tile", 1), ins)


def _constant_of_shape(node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    from onnx import numpy_helper  # noqa: PLC0415 - read only where onnx is (read_onnx)

    value = np.zeros(1, dtype=np.float32)
    for a in node.attribute:
        if a.name == "value":
            value = np.asarray(numpy_helper.to_array(a.t)).reshape(-1)
    etype = next((t for t in ELEMENT_TYPES.values() if t.dtype == value.dtype), None)
    if value.size != 1 or etype is None:
        raise _Refused
    dims = _ints(ins[0])
    negative = next((d for d in dims if d < 0), None)
    if negative is not None:
        raise _Refused(f"input holds {negative}, a negative dim: onnxruntime refuses it")
    if not dims:  # an empty shape: a scalar
        return Info(PartialShape([]), etype, value.reshape(()))
    data = Info(PartialShape([1]), etype, value)
    return _bound(_layer("Broadcast", 3, mode="numpy"), [data, ins[0]])


def _size(_node: Any, ins: Sequence[Info], _opset: int) -> Info | None:
    """Size: the product of the shape (ShapeOf, then ReduceProd over its one axis)."""
    shape = _bound(_layer("ShapeOf", 3, output_type="i64"), ins[:1])
    if shape is None:
        return None
    return _bound(_layer("ReduceProd", 1, keep_dims="false"), [shape, _const([0])])


def _reduce_prod(node: Any, ins: Sequence[Info], opset: int) -> Info | None:
    keep = node_attr(node, "keepdims", 1)
    axes = _axes(node, ins, opset, 18)
    rank = ins[0].shape.rank
    if keep not in (0, 1) or rank is None:
        raise _Refused
    if not axes:
        if axes is not None or node_attr(node, "noop_with_empty_axes", 0):
            raise _Refused  # empty axes: the input unchanged (not read)
        axes = list(range(rank))
    layer = _layer("ReduceProd", 1, keep_dims="true" if keep else "false")
    return _bound(layer, [ins[0], _const(axes)])


Translator = Callable[[Any, Sequence[Info], int], Info | tuple[Info | None, ...] | None]
SHAPE_NODES: Final[dict[str, Translator]] = {
    "Shape": _shape,
    "Gather": _gather,
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Cast": _cast,
    "Add": _binary("Add"),
    "Sub": _binary("Subtract"),
    "Mul": _binary("Multiply"),
    "Div": _binary("Divide", m_pythondiv="false"),  # truncation
    "Mod": _mod,
    "Min": _extreme("Minimum"),
    "Max": _extreme("Maximum"),
    "Floor": _unary("Floor"),
    "Ceil": _ceil,
    "Clip": _clip,
    "Split": _split,
    "Abs": _unary("Abs"),
    "Neg": _neg,
    "Greater": _binary("Greater"),
    "Less": _binary("Less"),
    "Equal": _binary("Equal"),
    "Where": _where,
    "Not": _logical("Not"),
    "And": _logical("And"),
    "Or": _logical("Or"),
    "Xor": _logical("Xor"),
    "Range": _range,
    "Reshape": _reshape,
    "Expand": _expand,
    "Tile": _tile,
    "ConstantOfShape": _constant_of_shape,
    "ReduceProd": _reduce_prod,
    "Size": _size,
    "Identity": _identity,
}
"""ONNX node type -> its translation: ``(node, inputs, opset) -> Info`` (value or bounds), a
tuple of them for a node of several outputs (Split)."""
_OPTIONAL: Final = ("Clip",)  # the node types whose translation reads which inputs are left out


def shape_values(
    node: Any, ins: Sequence[Info], opset: int
) -> tuple[tuple[Info | None, ...], str | None]:
    """A shape-subgraph node's value or bounds for each output (`SHAPE_NODES`), and a note.

    ``None`` for an output where neither is known; a note where the node fails at run time
    whatever its inputs (an index out of range, an integer division by zero).
    """
    none = (None,) * len(node.output)
    translate = SHAPE_NODES.get(node.op_type)
    if translate is None or (
        node.op_type not in _OPTIONAL and any(not name for name in node.input)
    ):
        return none, None
    try:
        got = translate(node, ins, opset)
    except _Refused as refused:
        return none, refused.note
    except (ValueError, TypeError, IndexError, OverflowError, ZeroDivisionError, AttributeError):
        return none, None  # an input NumPy refuses (a malformed graph): unknown
    outs = (got,) if got is None or isinstance(got, Info) else got  # an Info is a tuple too
    return (outs, None) if len(outs) == len(node.output) else (none, None)


# -- expressions, for explain ---------------------------------------------------------------------
# A 0-D or 1-D integer value of a shape subgraph, element by element, as a Python expression of
# the dims it reads: ``x.shape[1]//2``. A term is ``(precedence, parts, reach)``, a part either
# text or ``(tensor name, axis)``: that tensor's ``.shape[axis]``, written ``x`` for a node's own
# data. ``reach`` is the range of the expression's Python value, each unbounded dim taken to
# reach just below `datamove.ir._bounds.HUGE` (2**31 - 1, so that the product of two dims and 2
# is written, as before), as the bounds take it: a term is written only where that range lies
# within its type, where Python's numbers and onnxruntime's wrapping ones agree.
# (A value's bounds cannot say so: ``INT64_MAX - x.shape[0]`` reaches INT64_MAX at size 0, which
# its bounds read as unbounded, so ``2 + INT64_MAX - x.shape[0]`` would pass them.)
Part = str | tuple[str, int]
Reach = tuple[int, int]
Term = tuple[int, tuple[Part, ...], Reach]
_SUM: Final = 1
_PRODUCT: Final = 2
_ATOM: Final = 3
_MAX_PARTS: Final = 64  # a term longer than this is not written (no one reads it)


def literal(n: int) -> Term:
    """A number as a term."""
    return (_ATOM if n >= 0 else _SUM, (str(n),), (n, n))


def dim_term(tensor: str, axis: int, lo: int = 0, hi: int | None = None) -> Term:
    """``tensor.shape[axis]`` as a term, of a dim ``lo..hi`` (``None``: unbounded)."""
    return (_ATOM, ((tensor, axis),), (lo, max(lo, HUGE - 1) if hi is None else hi))


def _reach(op: str, a: Reach, b: Reach) -> Reach:
    """The range of ``a op b`` over the ranges ``a`` and ``b`` (``//``: ``b`` positive)."""
    if op in ("min", "max"):
        pick = min if op == "min" else max
        return pick(a[0], b[0]), pick(a[1], b[1])
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "//":  # the divisor is positive wherever it runs (`_whole_division`)
        b = (max(b[0], 1), max(b[1], 1))
    apply = operator.mul if op == "*" else operator.floordiv
    corners = [apply(x, y) for x in a for y in b]
    return min(corners), max(corners)


def _wrap(term: Term, below: int) -> tuple[Part, ...]:
    """A term's parts, in parentheses where its precedence is below ``below``."""
    return ("(", *term[1], ")") if term[0] < below else term[1]


def _combine(op: str, a: Term, b: Term) -> Term | None:
    """``a op b`` (``+``, ``-``, ``*``, ``//``, ``min``, ``max``), or ``None`` where too long."""
    if op in ("+", "-") and len(b[1]) == 1 and str(b[1][0]).startswith("-"):
        op, b = ("-" if op == "+" else "+"), literal(-int(str(b[1][0])))  # a+-1 is a-1
    unit = {"+": "0", "-": "0", "*": "1", "//": "1"}.get(op)
    if unit is not None and b[1] == (unit,):
        return a  # a+0, a-0, a*1, a//1
    if op in ("+", "*") and a[1] == (unit,):
        return b  # 0+b, 1*b
    reach = _reach(op, a[2], b[2])
    if op in ("min", "max"):
        term: Term = (_ATOM, (f"{op}(", *a[1], ", ", *b[1], ")"), reach)
    elif op in ("+", "-"):
        term = (_SUM, (*_wrap(a, _SUM), op, *_wrap(b, _SUM + (op == "-"))), reach)
    else:
        term = (_PRODUCT, (*_wrap(a, _PRODUCT), op, *_wrap(b, _PRODUCT + 1)), reach)
    return term if len(term[1]) <= _MAX_PARTS else None


def value_terms(terms: tuple[Term, ...] | None, info: Info) -> tuple[Term, ...] | None:
    """A value's terms: its own, or its numbers where exactly known (0-D or 1-D integers)."""
    if terms is not None:
        return terms
    value = info.value
    if value is None or value.ndim > 1 or value.dtype.kind not in "iu" or value.size > SMALL:
        return None
    return tuple(literal(int(v)) for v in value.reshape(-1))


_OPS: Final = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "//", "Min": "min", "Max": "max"}
_PASS: Final = ("Unsqueeze", "Squeeze", "Reshape", "Identity")


def shape_terms(
    node: Any,
    ins: Sequence[Info],
    terms: Sequence[tuple[Term, ...] | None],
    out: Info,
    port: int = 0,
    opset: int = 0,
) -> tuple[Term, ...] | None:
    """The terms of a shape-subgraph node's output ``port``: `_shape_terms`, ``None`` where broken.

    ``opset`` is the model's (a Split's parts depend on it).
    """
    try:
        return _shape_terms(node, ins, terms, out, port, opset)
    except (_Refused, ValueError, TypeError, IndexError, OverflowError):
        return None


def _shape_terms(
    node: Any,
    ins: Sequence[Info],
    terms: Sequence[tuple[Term, ...] | None],
    out: Info,
    port: int,
    opset: int,
) -> tuple[Term, ...] | None:
    """The terms of a shape-subgraph node's output (0-D or 1-D, bounded, not exactly known).

    ``terms`` holds each input's own (``None`` where it has none); ``None`` where the node's
    value is not written as an expression (another type, a rank above 1, a division whose
    dividend may be negative, where ONNX's truncation is not Python's ``//``, arithmetic or a
    Cast that may wrap, where Python's numbers do not).
    """
    kind = node.op_type
    if out.value is not None or out.lower is None or out.shape.rank not in (0, 1):
        return None
    if kind == "Shape":
        shape = ins[0].shape
        got = tuple(
            literal(d.get_length()) if d.is_static else dim_term(node.input[0], a, d.min, d.max)
            for a, d in enumerate(shape.dims)
        )
        return got[_shape_cut(node, len(got))]
    mine = [value_terms(t, i) for t, i in zip(terms, ins, strict=False)]
    if kind == "Where":
        return _chosen(ins, mine, out.lower.size)
    if not mine or mine[0] is None:
        return None
    first = mine[0]
    size = out.lower.size
    if kind in _PASS:
        return first if len(first) == size else None
    if kind == "Cast":
        target = ELEMENT_TYPES.get(etype_name(node_attr(node, "to")) or "")
        if target is None or target.name not in ("i32", "i64", "u32", "u64"):
            return None  # (its source has terms: an integer value, as every value with terms)
        limits = np.iinfo(target.dtype)
        if not _held(ins[0], limits):
            return None  # it may wrap
        return first if all(_within(t, limits) for t in first) else None
    if kind == "Gather":
        indices = _ints(ins[1])
        if node_attr(node, "axis", 0) != 0 or ins[0].shape.rank != 1:
            return None
        return tuple(first[i] for i in indices)  # in range: shape_values checked them
    if kind == "Tile":  # of a 1-D value: its elements that many times over
        (repeats,) = _ints(ins[1])
        return first * repeats if ins[0].shape.rank == 1 and len(first) * repeats == size else None
    if kind == "Split":  # of a 1-D value: each part its run of the elements
        cuts = list(itertools.accumulate(_split_lengths(node, ins, opset, len(first)), initial=0))
        return first[cuts[port] : cuts[port + 1]] if ins[0].shape.rank == 1 else None
    if kind == "Clip":  # min(max(a, lo), hi), a bound left out not applied
        clipped: tuple[Term, ...] | None = first
        for k, extreme in ((1, "max"), (2, "min")):
            if k < len(node.input) and node.input[k] and clipped is not None:
                bound = mine[k] if k < len(mine) else None
                clipped = None if bound is None else _each(extreme, clipped, bound)
        return clipped
    if kind == "Neg":
        zero = Info(PartialShape([]), out.etype, np.zeros((), dtype=np.int64))
        if not _no_wrap(operator.sub, [zero, ins[0]], out):
            return None
        negated = tuple((_SUM, ("-", *_wrap(t, _PRODUCT + 1)), (-t[2][1], -t[2][0])) for t in first)
        return _typed(negated, out)
    op = _OPS.get(kind)
    if op is None or len(mine) != 2 or mine[1] is None:
        return None
    second = mine[1]
    if op == "//" and not _whole_division(ins):
        return None
    arith = {"+": operator.add, "-": operator.sub, "*": operator.mul}.get(op)
    if arith is not None and not _no_wrap(arith, ins, out):
        return None
    return _typed(_each(op, first, second, size), out)


def _within(term: Term, limits: Any) -> bool:
    """Whether a term's Python value stays within an integer type's ``limits`` everywhere."""
    return bool(limits.min <= term[2][0] and term[2][1] <= limits.max)


def _typed(terms: tuple[Term, ...] | None, out: Info) -> tuple[Term, ...] | None:
    """``terms`` where each stays within the output's integer type (else it may wrap)."""
    if terms is None or out.etype is None or out.etype.dtype.kind not in "iu":
        return None
    limits = np.iinfo(out.etype.dtype)
    return terms if all(_within(t, limits) for t in terms) else None


def _each(
    op: str, first: tuple[Term, ...], second: tuple[Term, ...], size: int | None = None
) -> tuple[Term, ...] | None:
    """``first op second`` element by element, one side of one element broadcast."""
    size = max(len(first), len(second)) if size is None else size
    if len(first) not in (1, size) or len(second) not in (1, size):
        return None
    out_terms = []
    for k in range(size):
        got_term = _combine(op, first[k % len(first)], second[k % len(second)])
        if got_term is None:
            return None
        out_terms.append(got_term)
    return tuple(out_terms)


def _chosen(
    ins: Sequence[Info], mine: Sequence[tuple[Term, ...] | None], size: int
) -> tuple[Term, ...] | None:
    """Where's terms: each element's from the input its known condition picks."""
    cond = ins[0].value
    if cond is None or cond.ndim > 1 or len(mine) != 3 or mine[1] is None or mine[2] is None:
        return None
    picks, then, other = [bool(c) for c in cond.reshape(-1)], mine[1], mine[2]
    if any(len(p) not in (1, size) for p in (picks, then, other)):
        return None
    out = []
    for k in range(size):
        taken = then if picks[k % len(picks)] else other
        out.append(taken[k % len(taken)])
    return tuple(out)


def _no_wrap(op: Callable[[int, int], int], ins: Sequence[Info], out: Info) -> bool:
    """Whether ``op`` of two bounded integer inputs stays within the output's type everywhere.

    Python's numbers never wrap, onnxruntime's do: a term is written only where no value the
    inputs may take passes the type's range. An unbounded side (the type's extreme on a value
    not exactly known: a dynamic dim) is taken as `datamove.ir._bounds.HUGE` (2**31) whatever the
    output's type, so ``x.shape[1]*2`` and ``x.shape[0]*x.shape[1]`` are written in 64 bits,
    ``x.shape[1]*INT64_MAX`` not. The bounds take it so for 64-bit types only; for narrower
    ones they stop at half the type's maximum (2**30 for int32), where this is stricter: a term
    of int32 or narrower with an unbounded side (``x.shape[1] + 1`` cast to int32) is never
    written, only named after its maker, which is never a wrong expression.
    """
    got = [wide_bounds(i) for i in ins]
    if out.etype is None or out.etype.dtype.kind not in "iu" or any(g is None for g in got):
        return False
    limits = np.iinfo(out.etype.dtype)
    (a_lo, a_hi), (b_lo, b_hi) = ((g[0].reshape(-1), g[1].reshape(-1)) for g in got if g)
    for k in range(max(len(a_lo), len(b_lo))):
        a = (a_lo[k % len(a_lo)], a_hi[k % len(a_hi)])
        b = (b_lo[k % len(b_lo)], b_hi[k % len(b_hi)])
        for corner in itertools.product(a, b):
            x, y = (int(math.copysign(HUGE, v)) if math.isinf(v) else int(v) for v in corner)
            if not limits.min <= op(x, y) <= limits.max:
                return False
    return True


def _held(info: Info, limits: Any) -> bool:
    """Whether every value a bounded input may take lies within an integer type's ``limits``."""
    got = bounds_of(info)
    return got is not None and int(got[0].min()) >= limits.min and int(got[1].max()) <= limits.max


def _whole_division(ins: Sequence[Info]) -> bool:
    """Whether ONNX's truncating division is Python's ``//`` here: no negative operand."""
    a, b = bounds_of(ins[0]), bounds_of(ins[1])
    return a is not None and b is not None and bool((a[0] >= 0).all() and (b[0] > 0).all())


def render(term: Term, data: str, name: Callable[[str], str]) -> str:
    """A term as Python: ``data``'s dims as ``x.shape[a]``, another tensor's after ``name``."""
    return "".join(
        p if isinstance(p, str) else f"{'x' if p[0] == data else name(p[0])}.shape[{p[1]}]"
        for p in term[1]
    )
