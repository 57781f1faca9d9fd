"""ONNX's rules for the nodes `datamove.ir._onnx` checks: Slice, Split, Concat, and more.

Each infers a node's outputs from its inputs' `Value` as onnxruntime and ``onnx.reference``
run it: Slice (`slice_value`, by `Slicing.from_onnx`; its parameters known, else bounded: the
hull over their corners), Split (`split_shapes`, by `Splitting.from_onnx`), Concat (`concat`),
SplitToSequence then SequenceAt of a constant position (`sequence_parts`, `sequence_at`), and
the nodes of one output (`ONE_OUTPUT`: a Reshape, a Transpose, a data Gather or a GatherND that
is one: `datamove.ir._onnx_gather`).
A Slice whose ends are one run-time value plus ``a`` and plus ``b`` (`linked_slice`: the links
`link_value` keeps, `datamove.ir._offsets`) is at most ``ceil((b - a) / step)`` long.
An Unsqueeze's or Squeeze's axes (`view_axes`) checked (`view_data_shape`; a Squeeze of none:
`squeezed`, of an empty axes input: `empty_squeeze`).
A rule broken is a `ValidationError`, which the walk reports as the node's problem.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, Final

import numpy as np

from datamove._concat import concat_shape
from datamove._dialects import Slicing
from datamove._dml_webnn import check_lengths
from datamove._errors import ValidationError, plural, show
from datamove._shape import INT64_MAX, Dimension, PartialShape
from datamove._slice import infer_slice
from datamove._splitting import Splitting, onnx_split_version
from datamove.ir._bounds import reshaped, wide_bounds
from datamove.ir._explain import runtime_name
from datamove.ir._offsets import ONNX_KINDS, Link, bounded_slice, link_of, linked, one_element
from datamove.ir._onnx_gather import gather_nd_value, gather_value
from datamove.ir._onnx_shapes import axes_fault, node_attr, reshape_layer, value_terms
from datamove.ir._onnx_value import Value
from datamove.ir._ops import (
    SMALL,
    bounds_of,
    interval_chunks,
    over_corners,
    reach_of,
    reshape_shape,
    reshape_values,
    with_bounds,
)
from datamove.ir._reshape_count import check_reshape_count

__all__ = [
    "EMPTY_SQUEEZE",
    "MAX_PARTS",
    "ONE_OUTPUT",
    "concat",
    "empty_squeeze",
    "ints",
    "link_value",
    "linked_slice",
    "many_parts",
    "normal_axes",
    "position_error",
    "sequence_at",
    "sequence_parts",
    "slice_params",
    "slice_value",
    "slicing",
    "split_shapes",
    "splitting",
    "squeezed",
    "view_axes",
    "view_data_shape",
]

MAX_PARTS: Final = 1 << 16  # a SplitToSequence read where it makes at most this many parts


def ints(node: Any, ins: list[Value], k: int, name: str) -> list[int] | str | None:
    """Input ``k``'s numbers (a 1-D integer tensor), its run-time name, or ``None`` if absent."""
    if k >= len(node.input) or not node.input[k]:
        return None
    v = ins[k]
    if v.value is None:
        return runtime_name(v.source or node.input[k], "value")
    if v.value.ndim != 1 or v.value.dtype.kind not in "iu":
        raise ValidationError(
            f"ONNX {node.op_type}",
            name,
            v.value.tolist(),
            f"must be a 1-D tensor of integers, not {v.value.ndim}-D {v.value.dtype}",
        )
    return [int(x) for x in v.value]


_SLICE_PARAMS: Final = ("starts", "ends", "axes", "steps")


def slice_params(node: Any, ins: list[Value], opset: int) -> tuple[Any, Any, Any, Any]:
    """starts, ends, axes, steps: each a list of ints, a run-time name, or ``None`` (absent)."""
    if opset < 10:  # Slice-1: attributes
        starts, ends, axes = (node_attr(node, k) for k in ("starts", "ends", "axes"))
        return starts, ends, axes, None
    starts, ends, axes, steps = (
        ints(node, ins, k, name) for k, name in enumerate(("starts", "ends", "axes", "steps"), 1)
    )
    params = list(zip(_SLICE_PARAMS, (starts, ends, axes, steps), strict=True))
    lists = [(n, p, p) for n, p in params if isinstance(p, list)]  # with one known at run time
    tail = "; they need the same number of values"
    if lists:
        check_lengths("ONNX Slice", lists[0][0], len(lists[0][2]), lists[1:], tail)
    if any(isinstance(p, str) for _, p in params):
        _check_run_time_lengths(params, ins, tail)
    return starts, ends, axes, steps


def _check_run_time_lengths(params: list[tuple[str, Any]], ins: list[Value], tail: str) -> None:
    """What onnxruntime refuses of a Slice with a parameter known at run time, whatever it is.

    A run-time parameter's length is its input's static shape, where it has one: the lengths
    must agree, and address no more axes than the data has; constant axes must be distinct on
    the data's rank (with constant parameters alone, `Slicing` checks as much).
    """
    known: list[tuple[str, str, int]] = []  # (name, as a message says it, its length)
    for k, (name, p) in enumerate(params, 1):
        if isinstance(p, list):
            known.append((name, f"{name}={show(p)}", len(p)))
        elif isinstance(p, str):
            shape = ins[k].shape
            if shape.rank == 1 and shape.dims[0].is_static:
                said = f"{name} (known at run time, made by {ins[k].maker})"
                known.append((name, said, shape.dims[0].get_length()))
    if not known:
        return
    first, said, n = known[0]
    for _, other, m in known[1:]:
        if m != n:
            rule = f"{other} has {plural(m, 'value')}, but {first} has {n}{tail}"
            raise ValidationError("ONNX Slice", None, None, rule)
    rank = ins[0].shape.rank
    axes = params[2][1]
    if rank is None:
        return
    if isinstance(axes, list):  # the other parameters at run time: Slicing never sees these
        normal = normal_axes(axes, rank, "ONNX Slice")
        twice = next((a for a in normal if normal.count(a) > 1), None)
        if twice is not None:
            raise ValidationError("ONNX Slice", "axes", normal, f"lists axis {twice} twice")
    elif n > rank and axes is None:
        rule = (
            f"has {plural(n, 'value')}: the Slice addresses {plural(n, 'axis', 'axes')} of data, "
            f"but data has rank {rank}"
        )
        raise ValidationError("ONNX Slice", None, None, f"{said} {rule}")
    elif n > rank:  # n distinct axes in range: at most the rank
        said = next((text for name, text, _ in known if name == "axes"), f"{said}, and so axes,")
        rule = (
            f"has {n} values, but data has rank {rank}: one of them is out of range or listed twice"
        )
        raise ValidationError("ONNX Slice", None, None, f"{said} {rule}")


def normal_axes(axes: list[int], rank: int | None, op: str) -> list[int]:
    if rank is None:
        return axes
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValidationError(op, "axes", axes, f"holds {a}, out of range for rank {rank}")
        out.append(a + rank if a < 0 else a)
    return out


def slicing(starts: Any, ends: Any, axes: Any, steps: Any, rank: int | None) -> Slicing:
    """The Slice as a `Slicing`, its axes made non-negative where the rank is known."""
    if axes is not None:
        axes = normal_axes(axes, rank, "ONNX Slice")
    return Slicing.from_onnx(starts, ends, axes, steps)


def slice_value(node: Any, ins: list[Value], opset: int) -> Value:
    """A Slice's output: its shape, and its value or bounds where its data is a shape's."""
    data = ins[0]
    shape = data.shape
    starts, ends, axes, steps = slice_params(node, ins, opset)
    params = (starts, ends, axes, steps)
    if not any(isinstance(p, str) for p in params):
        s = slicing(starts, ends, axes, steps, shape.rank)
        if shape.rank is not None and any(d.max == INT64_MAX for d in shape.dims):
            # Legal ONNX that the algebra's normal form refuses (it holds below INT64_MAX):
            # the operator's rule, the spec's clamping, stays exact at that size.
            step = [1] * len(starts) if steps is None else steps
            normal = None if axes is None else normal_axes(axes, shape.rank, "ONNX Slice")
            return Value(infer_slice(shape, starts, ends, step, normal), data.etype)
        out = Value(s.infer(shape), data.etype)
        got = bounds_of(data.info())
        if got is None or got[0].ndim == 0:
            return out
        lower, upper = np.asarray(s(got[0])), np.asarray(s(got[1]))
        near = reach_of(data.info())
        reach = None if near is None else (np.asarray(s(near[0])), np.asarray(s(near[1])))
        bounded = with_bounds(out.shape, None, lower, upper, reach)
        terms = value_terms(data.terms, data.info())
        if terms is not None and bounded.value is None and got[0].ndim == 1:
            terms = tuple(terms[k] for k in np.asarray(s(np.arange(len(terms)))).tolist())
        return Value.of(bounded, data.etype, terms)
    if shape.rank is None:
        return Value(shape, data.etype)
    if not isinstance(axes, str):
        hull = _slice_hull(node, ins, axes, shape)
        if hull is not None:
            return Value(hull, data.etype)
    listed = None
    if isinstance(axes, list):
        listed = set(normal_axes(axes, shape.rank, "ONNX Slice"))
    elif axes is None:
        n = next((len(p) for p in params if isinstance(p, list)), None)
        listed = set(range(n)) if n is not None else None
    return Value(
        PartialShape(
            [
                d if listed is not None and a not in listed else Dimension(0, d.max)
                for a, d in enumerate(shape.dims)
            ]
        ),
        data.etype,
    )


def _one_i64(name: str, v: Value, links: Mapping[str, Link]) -> bool:
    """Whether a value is one i64 element (`datamove.ir._offsets` links those)."""
    shape = v.shape
    if name in links:
        return True
    return v.etype == "i64" and shape.is_static and math.prod(shape.to_shape()) == 1


def link_value(node: Any, ins: list[Value], out: Value, links: MutableMapping[str, Link]) -> None:
    """Keep the link of a node's one output where `datamove.ir._offsets` has a rule for it."""
    kind = node.op_type
    if kind not in ONNX_KINDS or node.domain not in ("", "ai.onnx") or len(node.output) != 1:
        return
    if out.value is not None or out.etype != "i64" or not node.output[0]:
        return
    names = list(node.input)
    link = linked(
        kind,
        names,
        [v.value for v in ins],
        [_one_i64(n, v, links) for n, v in zip(names, ins, strict=True)],
        links,
    )  # (an Add or Sub of one element and one is one element, whatever ONNX infers)
    if link is not None and (_one_i64("", out, links) or kind in ("Add", "Sub")):
        links[node.output[0]] = link


def linked_slice(node: Any, ins: list[Value], out: Value, links: Mapping[str, Link]) -> Value:
    """A Slice's output bounded where its ends are one value plus constants (positive steps).

    A negative step is left as it is: onnxruntime reads an end of exactly INT32_MAX or
    INT64_MAX as "to the first" (docs/dialects.md), so ``ends = starts - 4`` of
    ``starts = INT32_MAX + 4`` takes the whole axis there, where the spec takes nothing.
    """
    given = [k < len(node.input) and bool(node.input[k]) for k in range(5)]
    if not (given[1] and given[2]) or out.shape.rank is None:
        return out
    axis = one_element(ins[3].value) if given[3] else 0
    step = one_element(ins[4].value) if given[4] else 1
    if step is None or step < 0:
        return out
    pair = (link_of(links, node.input[1]), link_of(links, node.input[2]))
    shape = bounded_slice(out.shape, (ins[1].shape, ins[2].shape), pair, step, axis)
    return out if shape == out.shape else dataclasses.replace(out, shape=shape)


def _reshape_value(node: Any, ins: list[Value], opset: int) -> Value | None:
    """A data Reshape's output where its ``shape`` is known or bounded; else ``None`` (opaque).

    ONNX's rule (Reshape-5 to 21, as onnxruntime and onnx.reference run it) is `reshape_shape`'s
    with a 0 copying the data's dim unless ``allowzero=1``, but a -1 only beside no dim of 0
    (where OpenVINO makes it 1; a 0 of allowzero=1 beside a -1 is invalid by the spec). On
    interval dims: the rules the sizes do not decide, and the output's hull
    (`datamove.ir._bounds.reshaped`, OpenVINO's rule: ONNX's sizes lie within). `ValidationError`
    for a rule broken.
    """
    layer = reshape_layer(node, opset)
    if layer is None or len(ins) != 2 or ins[0].shape.rank is None:
        return None
    (data, target), rank = ins, ins[0].shape.rank
    count = math.prod(d.min for d in data.shape.dims)  # the fewest elements at any size
    if count > INT64_MAX:  # (as onnxruntime: "Dimension product overflow in Reshape")
        static = data.shape.is_static
        rule = (
            f"has {'' if static else 'at least '}{count} elements, more than INT64_MAX: the "
            "count the node keeps has no int64 value, and onnxruntime refuses the node"
        )
        value = list(data.shape.to_shape()) if static else str(data.shape)
        raise ValidationError("Reshape", "data", value, rule)
    special = layer.data["special_zero"] == "true"
    if target.value is not None and target.value.ndim == 1 and target.value.size <= SMALL:
        values = [int(v) for v in target.value]
        if special and values[rank:].count(0):
            k = rank + values[rank:].index(0)
            rule = f"has a 0 at index {k}, which copies no dim (allowzero=0): the data's rank is "
            rule += str(rank)
            raise ValidationError("Reshape", "shape", values, rule)
        reshape_values(values, rank, special)
        zero = Dimension(0)
        if -1 in values and any(
            v == 0 and (not special or data.shape[k] == zero) for k, v in enumerate(values)
        ):
            why = "a copy of the data's dim of 0" if special else "allowzero=1"
            rule = f"holds -1 beside a 0 ({why}): ONNX infers a -1 only beside dims of 1 or more"
            raise ValidationError("Reshape", "shape", values, rule)
        if data.shape.is_static:
            dims = reshape_shape(data.shape.to_shape(), values, special)
            return Value(PartialShape(list(dims)), data.etype)
    bounds = wide_bounds(target.info())
    if bounds is not None and bounds[0].ndim == 1:
        entries = list(zip(bounds[0].tolist(), bounds[1].tolist(), strict=True))
        check_reshape_count(data.shape, entries, not special, onnx=True)
    got = reshaped(layer, [data.info(), target.info()])
    return None if got is None else Value(got.shape, data.etype)


def _transpose_value(node: Any, ins: list[Value], _opset: int) -> Value | None:
    """A Transpose's output: its data's dims in the order of ``perm`` (reversed by default).

    ``None`` (opaque: ONNX's own inference, which refuses a ``perm`` that is not a permutation
    of the data's axes, as onnxruntime does at load, reads it) where the data's rank is not
    known or ``perm`` is not such a permutation. Its data's known dims pass through it (the
    dynamo exporter's ``x[:, torch.arange(...)]`` is ``Transpose -> GatherND -> Transpose``).
    """
    if len(ins) != 1 or ins[0].shape.rank is None or bounds_of(ins[0].info()) is not None:
        return None
    dims = ins[0].shape.dims
    perm = list(node_attr(node, "perm", range(len(dims) - 1, -1, -1)))
    if sorted(perm) != list(range(len(dims))):
        return None
    return Value(PartialShape([dims[p] for p in perm]), ins[0].etype)


# The nodes of one output checked where a parameter is known (else opaque): their rule
ONE_OUTPUT: Final[dict[str, Callable[[Any, list[Value], int], Value | None]]] = {
    "Reshape": _reshape_value,
    "Gather": gather_value,
    "GatherND": gather_nd_value,
    "Transpose": _transpose_value,
}


def _slice_hull(
    node: Any, ins: list[Value], axes: list[int] | None, shape: PartialShape
) -> PartialShape | None:
    """The output's shape where each run-time parameter is bounded (a shape subgraph's).

    The hull over the corners of the parameters' intervals, as the IR's Slice takes it
    (`datamove.ir._ops`); ``None`` where a parameter has no bounds.
    """
    ports = [k for k in (1, 2, 4) if k < len(node.input) and node.input[k]]

    def infer(values: list[list[int]]) -> PartialShape:
        got = dict(zip(ports, values, strict=True))
        return slicing(got[1], got[2], axes, got.get(4), shape.rank).infer(shape)

    return over_corners([v.info() for v in ins], ports, infer)


class _Unsupported(ValidationError):  # noqa: N818 - a problem to report, not raised out
    """A checked node datamove does not read (Split-1): a problem of kind ``unsupported``."""

    kind = "unsupported"


def splitting(node: Any, ins: list[Value], opset: int) -> tuple[Splitting | None, Any]:
    """The Split as a `Splitting` (``None`` where ``split`` is known only at run time)."""
    if opset < 2:
        raise _Unsupported(
            "", None, None, "Split-1 is not supported; datamove reads Split-2, 11, 13 and 18"
        )
    version = onnx_split_version(opset)
    axis = node_attr(node, "axis", 0)
    split = ints(node, ins, 1, "split") if version >= 13 else node_attr(node, "split")
    if isinstance(split, str):  # its length, where its shape is static: one per output
        shape = ins[1].shape
        if shape.rank == 1 and shape.dims[0].is_static:
            n, count = shape.dims[0].get_length(), len(node.output)
            if n != count:
                said = f"split (known at run time, made by {ins[1].maker})"
                rule = (
                    f"{said} has {plural(n, 'value')}, but the node has {plural(count, 'output')}"
                )
                raise ValidationError(f"ONNX Split-{version}", None, None, rule)
        return None, axis
    num = node_attr(node, "num_outputs")
    s = Splitting.from_onnx(axis, split, num_outputs=num, outputs=len(node.output), opset=opset)
    return s, axis


def split_shapes(node: Any, ins: list[Value], opset: int) -> list[PartialShape]:
    shape = ins[0].shape
    s, axis = splitting(node, ins, opset)
    count = len(node.output)
    rank = shape.rank
    if rank is None:
        return [shape] * count
    if not -rank <= axis < rank:
        raise ValidationError(
            f"ONNX Split-{onnx_split_version(opset)}",
            "axis",
            axis,
            f"is out of range for rank {rank}",
        )
    a = axis + rank if axis < 0 else axis
    dim = shape.dims[a]
    if s is None:
        parts = _bounded_parts(ins, dim, count) or [Dimension(0, dim.max)] * count
    elif dim.is_static:
        parts = [Dimension(n) for n in s.lengths(dim.get_length())]
    else:
        parts = _dynamic_parts(s, dim, count)
    return [PartialShape([*shape.dims[:a], p, *shape.dims[a + 1 :]]) for p in parts]


def _bounded_parts(ins: list[Value], dim: Dimension, count: int) -> list[Dimension] | None:
    """Each part's length where ``split`` is bounded (a shape subgraph's), or ``None``.

    As the IR's VariadicSplit bounds its chunks (`datamove.ir._ops`), but ONNX's lengths are
    never negative: a length that may be (or -1, VariadicSplit's "the rest") is not read.
    """
    got = bounds_of(ins[1].info()) if len(ins) > 1 else None
    if got is None or got[0].ndim != 1 or len(got[0]) != count or (got[0] < 0).any():
        return None
    return interval_chunks(dim, ins[1].info())


def _dynamic_parts(s: Splitting, dim: Dimension, count: int) -> list[Dimension]:
    """Each part's length on an axis of sizes ``dim`` (not static): sound bounds."""
    lo, hi = dim.min, dim.max
    if s.rule == "lengths":
        total = sum(s.value)
        if total not in dim:
            raise ValidationError(
                "ONNX Split",
                "split",
                list(s.value),
                f"sums to {total}, but the axis has sizes {dim}",
            )
        return [Dimension(n) for n in s.value]
    n = int(s.value)
    if s.rule == "even":
        first, last = -(-lo // n), None if hi is None else hi // n
        if last is not None and first > last:
            raise ValidationError(
                "ONNX Split",
                "outputs",
                n,
                f"is the number of equal parts, but no size in {dim} is a multiple of it",
            )
        return [Dimension(first, last)] * count
    top = None if hi is None else -(-hi // n)
    return [Dimension(-(-lo // n), top)] * (count - 1) + [Dimension(0, top)]


def sequence_parts(node: Any, ins: list[Value]) -> list[PartialShape] | None:
    """SplitToSequence-11's parts, in order; ``None`` where their number is not known.

    ONNX's rules, onnxruntime's: without ``split``, parts of one element (with ``keepdims=0``
    the axis removed); a scalar ``split`` ``k >= 1``, parts of ``k``, the last shorter (none on
    size 0); a 1-D ``split``, not empty, of lengths at least 0 summing to the axis (bounds
    where a shape subgraph computes it). More than `MAX_PARTS` parts (each a shape kept) are
    not read. The spec ignores ``keepdims`` where ``split`` is given,
    and so does onnxruntime for a 1-D one; for a scalar one it removes the axis (size 1) or
    fails: that node stays opaque.
    """
    op = "ONNX SplitToSequence"
    shape = ins[0].shape
    axis, keepdims = node_attr(node, "axis", 0), node_attr(node, "keepdims", 1)
    if shape.rank is None:
        return None
    if not -shape.rank <= axis < shape.rank:
        raise ValidationError(op, "axis", axis, f"is out of range for rank {shape.rank}")
    a = axis % shape.rank
    dim = shape.dims[a]
    given = ins[1] if len(ins) > 1 and node.input[1] else None
    lengths: list[Dimension]
    if given is None:  # parts of one element
        if not dim.is_static or dim.get_length() > MAX_PARTS:
            return None
        if keepdims == 0:
            return [PartialShape([*shape.dims[:a], *shape.dims[a + 1 :]])] * dim.get_length()
        lengths = [Dimension(1)] * dim.get_length()
    elif given.value is None:
        got = bounds_of(given.info())
        if got is None or got[0].ndim != 1 or not len(got[0]) or (got[0] < 0).any():
            return None
        chunks = interval_chunks(dim, given.info())
        if chunks is None:
            return None
        lengths = chunks
    elif given.value.ndim == 0:
        k = int(given.value)
        if k < 1:
            raise ValidationError(op, "split", k, "is a scalar below 1; it must be at least 1")
        if keepdims == 0 or not dim.is_static or -(-dim.get_length() // k) > MAX_PARTS:
            return None
        d = dim.get_length()
        lengths = [Dimension(min(k, d - i)) for i in range(0, d, k)]
    elif given.value.ndim == 1:
        values = [int(v) for v in given.value]
        if not values:
            raise ValidationError(op, "split", values, "is empty")
        if any(v < 0 for v in values):
            raise ValidationError(op, "split", values, "holds a negative length")
        if sum(values) not in dim:
            rule = f"sums to {sum(values)}, but the axis has size {dim}"
            raise ValidationError(op, "split", values, rule)
        lengths = [Dimension(v) for v in values]
    else:
        rule = f"is {given.value.ndim}-D; it must be a scalar or 1-D"
        raise ValidationError(op, "split", given.value.tolist(), rule)
    return [PartialShape([*shape.dims[:a], n, *shape.dims[a + 1 :]]) for n in lengths]


def many_parts(node: Any, ins: list[Value]) -> int | None:
    """The number of parts a SplitToSequence makes, where more than `MAX_PARTS` (not read)."""
    shape, axis = ins[0].shape, node_attr(node, "axis", 0)
    if shape.rank is None or not -shape.rank <= axis < shape.rank:
        return None
    dim = shape.dims[axis]
    given = ins[1] if len(ins) > 1 and node.input[1] else None
    k = 1 if given is None else given.value
    if not dim.is_static or k is None or np.ndim(k) != 0 or int(k) < 1:
        return None
    if given is not None and node_attr(node, "keepdims", 1) == 0:  # not read in any case
        return None
    n = -(-dim.get_length() // int(k))
    return n if n > MAX_PARTS else None


def sequence_at(ins: list[Value], parts: list[Value]) -> Value | None:
    """SequenceAt's tensor: part ``position`` (from the back where negative), where constant."""
    position = ins[1].value
    if position is None or position.size != 1 or position.dtype.kind not in "iu":
        return None
    k = int(position.reshape(-1)[0])
    if not -len(parts) <= k < len(parts):
        raise position_error(k, len(parts))
    return parts[k]


def position_error(k: int, n: int) -> ValidationError:
    """SequenceAt's ``position`` out of range for a sequence of ``n`` tensors."""
    rule = f"is out of range for a sequence of {plural(n, 'tensor')}"
    return ValidationError("ONNX SequenceAt", "position", k, rule)


def concat(node: Any, ins: list[Value]) -> Value:
    axis = node_attr(node, "axis", 1)  # required from Concat-4 on
    etypes = {v.etype for v in ins if v.etype is not None}
    if len(etypes) > 1:
        raise ValidationError(
            "ONNX Concat", "inputs", sorted(etypes), "have different element types"
        )
    shape = concat_shape([v.shape for v in ins], axis, "inputs")
    etype = etypes.pop() if etypes else None
    got = [bounds_of(v.info()) for v in ins]
    if not shape.is_static or any(b is None or b[0].ndim == 0 for b in got):
        return Value(shape, etype)
    if math.prod(shape.to_shape()) > SMALL:
        return Value(shape, etype)
    # a shape subgraph's value, or its bounds
    lower = np.concatenate([b[0] for b in got if b is not None], axis)
    upper = np.concatenate([b[1] for b in got if b is not None], axis)
    near = [reach_of(v.info()) for v in ins]
    reach = None
    if all(r is not None for r in near):
        reach = tuple(np.concatenate([r[k] for r in near if r is not None], axis) for k in (0, 1))
    joined = with_bounds(shape, None, lower, upper, reach)  # type: ignore[arg-type]
    parts = [value_terms(v.terms, v.info()) for v in ins]
    terms = None
    if joined.value is None and lower.ndim == 1 and all(p is not None for p in parts):
        terms = tuple(t for p in parts if p is not None for t in p)
    return Value.of(joined, etype, terms)


EMPTY_SQUEEZE: Final = (
    "its axes input is empty: onnx.reference and ONNX's inference squeeze no dim, as the spec "
    "reads it and datamove does; onnxruntime drops every dim of 1, as without axes"
)


def empty_squeeze(kind: str, axes: list[int] | str | None, opset: int) -> bool:
    """Whether a Squeeze-13 (or later) has an axes input of no values: it squeezes no dim.

    So the spec reads it, and onnx.reference and ONNX's inference: its output is its input.
    onnxruntime drops every dim of 1, as without axes (`EMPTY_SQUEEZE`, explain's note).
    """
    return kind == "Squeeze" and opset >= 13 and axes == []


def view_axes(node: Any, ins: list[Value], opset: int) -> list[int] | str | None:
    """An Unsqueeze's or Squeeze's axes: an attribute before opset 13, input 1 from it (`ints`)."""
    return node_attr(node, "axes") if opset < 13 else ints(node, ins, 1, "axes")


def view_data_shape(kind: str, axes: list[int] | None, shape: PartialShape) -> PartialShape | str:
    """The data's ``shape`` (of known rank), a Squeeze's dims listed 1; else why ONNX refuses it.

    ONNX refuses what OpenVINO reads otherwise: an Unsqueeze's axes must be distinct axes of
    its output, and a Squeeze's dims listed must be 1 (OpenVINO keeps one that is not).
    """
    assert shape.rank is not None
    extent = shape.rank + len(axes or []) if kind == "Unsqueeze" else shape.rank
    of = "output rank" if kind == "Unsqueeze" else "rank"
    fault = None if axes is None else axes_fault(axes, extent, of)
    if fault is not None:
        return fault
    normal = sorted({a % extent for a in axes or []})
    if kind == "Unsqueeze":
        return shape
    dims = list(shape.dims)
    for a in normal:
        if dims[a].is_static and dims[a].get_length() != 1:
            return f"dim {a} of {shape} is not 1: onnxruntime refuses the node"
        dims[a] = Dimension(1)
    return PartialShape(dims)


def squeezed(shape: PartialShape) -> PartialShape:
    """A Squeeze of no axes (input 1 left out, or no ``axes`` attribute before opset 13).

    Every dim of 1 dropped, on a static ``shape``: where a dim is not static, ONNX's inference
    gives no shape, and a graph's Squeeze is as it infers it (opaque), so one of a function's is
    unknown too.
    """
    assert shape.is_static
    return PartialShape([d for d in shape.dims if d.get_length() != 1])
