"""The supported layer types: one `LayerOp` record each, in the one registry `LAYER_OPS`.

A layer of any other type is *opaque* (`is_opaque`): datamove does not model it, takes its
outputs as the file declares them, and checks the layers around it.

A record says what datamove does with a layer type: how many inputs it takes and which are
data, how its outputs are inferred (shape, element type, and value when a small constant), how
it runs on arrays, and, where its outputs depend on its input shapes alone, its shape plan:
what each output takes (a NumPy basic index of the data, or a `Join` of the inputs). Reading,
inference, run and shape plans dispatch through the registry (`LAYER_OPS` itself, `runner`,
`shape_planner`...), so adding a layer type is one record here. `explain`, the CPU plugin's
notes (`_cpu`) and check's Concat witness search name the types they describe. Split,
VariadicSplit, StridedSlice, Slice and Concat call datamove's operators and their cached plans
(one source of truth for their rules); Unsqueeze and Squeeze are views, a basic index of the
data (`unsqueeze_index`, `squeeze_index`) for run and the shape plans alike, and Reshape and
Transpose the data's ``reshape`` and ``transpose`` (`reshape_shape`, `transpose_order`; `Method`
in a shape plan), their shapes inferred by check's shape-subgraph rules.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import numpy as np

from datamove._backends import traced
from datamove._backends._numpy import subclass_result
from datamove._concat import concat, concat_shape
from datamove._errors import BackendError, DTypeError, ValidationError, plural
from datamove._plan import Index
from datamove._shape import INT64_MAX, Dimension, PartialShape, Unknown
from datamove._slice import infer_slice, plan_slice
from datamove._slice import slice as slice_op
from datamove._split import (
    infer_split,
    infer_variadic_split,
    plan_split,
    plan_variadic_split,
    split,
    variadic_split,
)
from datamove._strided_slice import (
    MASKS,
    NUMPY_MAXDIMS,
    PAST_NUMPY_RANK,
    infer_strided_slice,
    plan_strided_slice,
    strided_slice,
)
from datamove._validation import check_length
from datamove.ir._graph import Layer, parse_shape_attr
from datamove.ir._offsets import Link, bounded_slice, one_element
from datamove.ir._opsets import held, version_rule
from datamove.ir._reshape_count import check_reshape_count
from datamove.ir._types import ELEMENT_TYPES, ElementType

__all__ = [
    "LAYER_OPS",
    "Context",
    "Fixed",
    "Info",
    "Join",
    "LayerOp",
    "Layout",
    "Method",
    "Planner",
    "Runner",
    "bounds_of",
    "check_input_count",
    "const_layout",
    "data_ports",
    "extension_note",
    "interval_chunks",
    "is_opaque",
    "numpy_limit",
    "over_corners",
    "reach_of",
    "runner",
    "shape_planner",
    "unsupported_reason",
    "with_bounds",
]

MAX_INPUTS: Final = 5  # the most inputs a supported type takes (Slice)
SMALL: Final = 4096  # constants up to this many elements are folded during inference
CORNERS_MAX: Final = 64  # index-value combinations tried for a hull over intervals
# NumPy's limit on an array's bytes, counting every dim but the zeros (even when one is zero).
MAX_SPAN: Final = int(np.iinfo(np.intp).max)


class Info(NamedTuple):
    """What inference knows about one port (a tuple: made 2x as fast as a frozen dataclass)."""

    shape: PartialShape
    etype: ElementType | None
    value: np.ndarray[Any, Any] | None = None
    # Where the value is not known: per-element bounds, in the element type (datamove.ir._bounds)
    lower: np.ndarray[Any, Any] | None = None
    upper: np.ndarray[Any, Any] | None = None
    # And how far the values reach with each unbounded dim at `datamove.ir._bounds.HUGE` (object
    # arrays of Python ints, where tracked): an unbounded side of ``INT32_MAX * x.shape[0]``
    # reaches 2**62, not HUGE, where an overflow is looked for
    reach: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None


def bounds_of(info: Info) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """A port's ``(lower, upper)`` bounds: its value twice where known; ``None`` where neither."""
    if info.value is not None:
        return info.value, info.value
    if info.lower is not None and info.upper is not None:
        return info.lower, info.upper
    return None


def reach_of(info: Info) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """A port's reach (`Info.reach`) as Python ints.

    Its value twice where known; ``None`` where not tracked.
    """
    if info.value is not None and info.value.dtype.kind in "iu":
        exact = info.value.astype(object)
        return exact, exact
    return None if info.value is not None else info.reach


def with_bounds(
    shape: PartialShape,
    etype: ElementType | None,
    lower: np.ndarray[Any, Any],
    upper: np.ndarray[Any, Any],
    reach: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None,
) -> Info:
    """An `Info` with these bounds: its value where they meet (copies of their own, read-only).

    ``reach`` (`Info.reach`) is kept where it has their shape.
    """
    lower, upper = np.array(lower), np.array(upper)
    lower.flags.writeable = upper.flags.writeable = False
    if lower.shape == upper.shape and bool((lower == upper).all()):
        return Info(shape, etype, lower)
    if reach is not None and not reach[0].shape == reach[1].shape == lower.shape:
        reach = None
    return Info(shape, etype, None, lower, upper, reach)


class Join(NamedTuple):
    """A shape plan's output that joins every input of its layer along ``axis`` (Concat)."""

    axis: int


class Method(NamedTuple):
    """A shape plan's output that is ``data.<name>(arg)`` (Reshape, Transpose: NumPy's method)."""

    name: str
    arg: tuple[int, ...]


class Context(NamedTuple):
    """What the inference of a source layer may need besides the layer itself."""

    parameter_shape: PartialShape | None = None  # a Parameter's new shape (Model.check)
    # A Const's port, its layout checked and its value read where small (`Model._const`)
    const: Callable[[Layer], Info] | None = None
    # Model.check gave the inputs new shapes: the ports' declared shapes are not OpenVINO's
    # inference of this graph (it infers again after a reshape)
    reshaped: bool = False
    # check's shape-subgraph rules for a one-output layer (datamove.ir._bounds, which imports
    # this module): its value or bounds, else its output shape from its input's dims, or None
    moved: Callable[[Layer, list[Info]], Info | None] | None = None
    # A Slice's or StridedSlice's: each input's link (`datamove.ir._offsets`): stop = start + c
    links: tuple[Link, ...] = ()


Fixed = list[list[int] | None]  # each input's values when a small constant, else None
Runner = Callable[[list[Any]], tuple[Any, ...]]  # input arrays -> output arrays
Planner = Callable[[tuple[int, ...]], tuple[Index | Join | Method, ...]]  # data shape -> outputs


@dataclass(frozen=True, slots=True)
class LayerOp:
    """Everything datamove does with one layer type; `LAYER_OPS` holds one per supported type.

    ``infer(layer, ins, context)`` returns the outputs' `Info` (raising ``ValidationError``
    for a broken rule); ``run(layer, fixed)`` a function of the input arrays that returns the
    outputs; ``plan(layer, fixed)`` a `Planner`, or ``None`` where an output's shape depends
    on values. ``fixed`` holds the values of the inputs that are small constants.
    """

    name: str  # the type, as OpenVINO spells it
    inputs: tuple[int, ...]  # the allowed numbers of inputs; () for one or more
    infer: Callable[[Layer, list[Info], Context], list[Info]]
    run: Callable[[Layer, Fixed], Runner] | None = None  # None: a source (Parameter, Const)
    plan: Callable[[Layer, Fixed], Planner | None] | None = None  # None: never planned
    data_ports: tuple[int, ...] | None = None  # the inputs that are data; None: all of them
    # The number of outputs, where known without inferring any shape (num_splits, the length of
    # split_lengths): compared with the declared ports first, a hostile num_splits costs nothing.
    output_count: Callable[[Layer, Sequence[Info]], int | None] | None = None
    # Counted in CheckReport.checked; False for the ends of the graph (Parameter, Const, Result).
    counted: bool = True
    # Each output dim is an input dim or a constant one, so every input shape gives one output
    # shape and back (check looks for witnesses past it); False for Reshape, whose dims are
    # products of its input's (`datamove.ir._model`: its outputs are related to those dims).
    free: bool = True


def _etype(layer: Layer) -> ElementType:
    name = layer.data.get("element_type")
    if name is None:
        raise layer.error("element_type", None, "is missing from <data>")
    if name not in ELEMENT_TYPES:
        hint = "supported: " + ", ".join(ELEMENT_TYPES)
        if layer.type == "Parameter" and name.lower() in ("dynamic", "undefined"):
            hint = _UNTYPED_INPUT
        rule = "is not an element type datamove supports"
        raise layer.error("element_type", name, rule, hint=hint)
    return ELEMENT_TYPES[name]


# IR-37: OpenVINO reads such a Parameter, but nothing of it runs
_UNTYPED_INPUT: Final = (
    "OpenVINO reads it as dynamic, but runs no model with it: its CPU plugin refuses to compile "
    "or to run it, evaluate to run it"
)


def numpy_limit(dims: tuple[int, ...], itemsize: int, name: str) -> str | None:
    """Why no NumPy array has these dims and item type (``name``), or ``None`` when one can.

    NumPy holds at most ``NUMPY_MAXDIMS`` dims, and the product of the dims that are not zero,
    times the itemsize, must not pass `MAX_SPAN`, even for an array with no elements (an IR's
    Const or Reshape, a ``.npy`` file's header: ``np.load`` refuses it).

    Examples
    --------
    >>> print(numpy_limit((0, 2**62), 4, "f32"))
    needs 2**64 bytes or more as f32: NumPy allows 2**63 - 1, and counts every dim but the zeros...
    >>> numpy_limit((0, 2**62), 1, "i8") is None
    True
    """
    if len(dims) > NUMPY_MAXDIMS:
        return f"has rank {len(dims)}, {PAST_NUMPY_RANK}"
    span = max(itemsize, 1) * math.prod(dim or 1 for dim in dims)
    if span > MAX_SPAN:
        return (
            f"needs 2**{span.bit_length() - 1} bytes or more as {name}: NumPy allows "
            "2**63 - 1, and counts every dim but the zeros even in an empty array"
        )
    return None


Layout = tuple[PartialShape, ElementType]  # a Const's static shape and element type


def const_layout(layer: Layer) -> Layout:
    """A Const's static shape and element type, checked against its ``size`` and NumPy.

    The one check of a Const before anything is read or allocated for it: `Model._const`
    calls it.
    """
    etype = _etype(layer)  # OpenVINO's order: element_type, then shape (no default: refused)
    text = layer.data.get("shape")
    if text is None:
        raise layer.error("shape", None, "is missing from <data>")
    shape = parse_shape_attr(text, "shape", layer)
    if not shape.is_static:
        raise layer.error("shape", layer.data.get("shape"), "must be static for a Const")
    need = etype.nbytes(math.prod(shape.to_shape()))
    size = layer.extent_attr("size")
    if size < need:
        raise layer.error(
            "size", size, f"is too small: shape {shape} of {etype.name} needs {need} bytes"
        )
    reason = numpy_limit(shape.to_shape(), etype.itemsize, etype.name)
    if reason is not None:
        raise layer.error("shape", text, reason, hint="datamove holds constants as NumPy arrays")
    return shape, etype


def _check_integer(info: Info, op: str, argument: str, *, floats: bool = False) -> None:
    """Raise unless an index input's element type is an integer type OpenVINO takes as one.

    u1 and boolean never are (OpenVINO refuses both); floats only where ``floats`` (the
    operator then rejects a float value itself).
    """
    etype = info.etype
    if etype is not None and (etype.name in ("u1", "boolean") or not (floats or etype.is_integer)):
        raise DTypeError(op, argument, etype.name, "must be of an integer element type")


def _index_value(info: Info, op: str, argument: str, *, integer: bool = True) -> Any:
    """A constant index input as ints (or floats, which the operator then rejects)."""
    if info.value is None:
        length = None
        if info.shape.rank == 1 and info.shape[0].is_static:
            length = info.shape[0].get_length()
            check_length(op, argument, length)  # named here, not as Unknown's own length
        return Unknown(length)
    _check_integer(info, op, argument, floats=not integer)
    return info.value.tolist()


def _check_rank(info: Info, op: str, argument: str, ranks: tuple[int, ...], rule: str) -> None:
    r = info.shape.rank
    if r is not None and r not in ranks:
        raise ValidationError(op, argument, str(info.shape), rule)


def _masks(layer: Layer) -> dict[str, Any]:
    """The five masks, as keyword arguments.

    Each given has begin_mask's length, as OpenVINO requires of a file (datamove's operator
    pads them: divergence 1 of docs/semantics.md).
    """
    masks = {key: layer.int_list_attr(key) for key in MASKS}
    begin = len(masks["begin_mask"])
    for key, mask in masks.items():
        if mask and len(mask) != begin:
            rule = f"has {len(mask)} item(s), but begin_mask has {begin}"
            hint = "OpenVINO refuses the file: all masks of StridedSlice must have the same size"
            raise layer.error(key, layer.data.get(key), rule, hint=hint)
    return masks


def _check_ranks(layer: Layer, shapes: Sequence[PartialShape]) -> None:
    for k, shape in enumerate(shapes):
        if shape.rank is not None and shape.rank > NUMPY_MAXDIMS:
            raise ValidationError(
                layer.type,
                f"output {k} rank",
                shape.rank,
                f"is {PAST_NUMPY_RANK}",
                hint="datamove runs models on NumPy (and array libraries with the same limit)",
            )


def _outputs(layer: Layer, ins: Sequence[Info], shapes: Sequence[PartialShape]) -> list[Info]:
    """An operator's outputs: these shapes, the data's element type, small constants folded."""
    _check_ranks(layer, shapes)
    outs = [Info(s, ins[0].etype) for s in shapes]
    if outs and all(i.value is not None for i in ins):  # fold small constants (axis, begin...)
        try:
            values = runner(layer)([i.value for i in ins])
        except ValidationError:
            return outs
        return [
            Info(o.shape, o.etype, v) if v.size <= SMALL else o
            for o, v in zip(outs, values, strict=True)
        ]
    # Bounds (datamove.ir._bounds): these layers only move elements, so the lower bounds moved
    # are the output's lower bounds, and likewise the upper, where the index inputs are known.
    data = data_ports(layer)
    bounds = [bounds_of(info) for info in ins]
    if not outs or any(b is None for b in bounds):
        return outs
    if any(ins[k].value is None for k in range(len(ins)) if k not in data):
        return outs
    try:
        lows = runner(layer)([b[0] if b is not None else None for b in bounds])
        highs = runner(layer)([b[1] if b is not None else None for b in bounds])
    except ValidationError:
        return outs
    return [
        with_bounds(o.shape, o.etype, lo, hi) if lo.size <= SMALL else o
        for o, lo, hi in zip(outs, lows, highs, strict=True)
    ]


def _ints(value: Any) -> list[int]:
    """The values of a (1-D or scalar) index array as Python ints."""
    if type(value) is not np.ndarray:
        if traced(value):
            raise BackendError(
                "IR",
                "index input",
                f"<{type(value).__name__}>",
                "is traced by jax.jit, but the operator needs its values now",
                hint="pass index inputs as NumPy arrays, or close over them (static)",
            )
        value = np.asarray(value.tolist() if hasattr(value, "tolist") else value)
    return (
        [int(v) for v in value.reshape(-1)]
        if value.dtype.kind in "iub"
        else value.reshape(-1).tolist()
    )


def _fixed(known: Sequence[np.ndarray[Any, Any] | None]) -> Fixed:
    """The values of the small constant inputs (``None`` for the others), one per input."""
    fixed = [None if k is None or k.size > SMALL else _ints(k) for k in known]
    return fixed + [None] * (MAX_INPUTS - len(fixed))


def _value(fixed: Fixed, xs: list[Any], i: int) -> list[int]:
    """Input ``i``'s values: the constant's, read once, or the array's of this run."""
    value = fixed[i]
    return value if value is not None else _ints(xs[i])


def _scalar(values: list[int]) -> Any:
    return values[0] if len(values) == 1 else values


# -- interval parameters (datamove.ir._bounds) --------------------------------------------------
def _corner_values(info: Info) -> list[list[int]] | None:
    """Per element of a 1-D index input, the values where its slice lengths are extreme.

    A slice's length is monotone in a start or stop (or step) value on each side of 0 (a
    negative one counts from the end): over an interval ``lo..hi``, the extremes are at ``lo``
    and ``hi``, and at ``-1`` and ``0`` where it crosses 0. ``None`` where not bounded.
    """
    bounds = bounds_of(info)
    if bounds is None or bounds[0].ndim != 1 or bounds[0].dtype.kind not in "iu":
        return None
    return [
        sorted({lo, hi} | ({-1, 0} if lo < 0 <= hi else set()))
        for lo, hi in zip(bounds[0].tolist(), bounds[1].tolist(), strict=True)
    ]


def over_corners(
    ins: Sequence[Info], ports: Sequence[int], infer: Callable[[list[list[int]]], PartialShape]
) -> PartialShape | None:
    """The hull of ``infer`` over every corner of the index inputs' intervals, or ``None``.

    Exact where each output dim is monotone in each value between the corners (`_corner_values`)
    and the values are independent. ``None`` where an input is not bounded, the corners are
    more than `CORNERS_MAX`, or a corner breaks the operator's rules (the caller then infers
    with the values unknown). The rank of every caller's output (Slice, StridedSlice) follows
    the data's rank, the masks and the inputs' lengths, never their values: one at every corner.
    """
    choices = []
    for k in ports:
        corners = _corner_values(ins[k])
        if corners is None:
            return None
        choices.append(corners)
    count = math.prod(len(c) for each in choices for c in each)
    if count > CORNERS_MAX:
        return None
    hull: PartialShape | None = None
    for combo in itertools.product(*(itertools.product(*each) for each in choices)):
        try:
            got = infer([list(values) for values in combo])
        except ValidationError:
            return None
        hull = (
            got
            if hull is None or got.rank is None
            else PartialShape(a.union(b) for a, b in zip(hull.dims, got.dims, strict=True))
        )
    return hull


# -- Parameter, Const, Result ------------------------------------------------------------------
def _parameter_infer(layer: Layer, _ins: list[Info], context: Context) -> list[Info]:
    shape = context.parameter_shape
    if shape is None:
        shape = parse_shape_attr(layer.data.get("shape", ""), "shape", layer)
    return [Info(shape, _etype(layer))]


def _const_infer(layer: Layer, _ins: list[Info], context: Context) -> list[Info]:
    return [context.const(layer) if context.const is not None else Info(*const_layout(layer))]


def _result_infer(_layer: Layer, _ins: list[Info], _context: Context) -> list[Info]:
    return []


def _result_outputs(_layer: Layer, _fixed: Fixed) -> Callable[[Any], tuple[()]]:
    """A Result's `Runner`, and its `Planner`: it has no outputs."""
    return lambda _: ()


# -- Split-1 -----------------------------------------------------------------------------------
def _split_count(layer: Layer, _ins: Sequence[Info]) -> int | None:
    n = layer.int_attr("num_splits")
    return n if n > 0 else None  # else not a count: infer_split names the rule it breaks


def _split_infer(layer: Layer, ins: list[Info], context: Context) -> list[Info]:
    _check_rank(ins[1], "Split", "axis", (0,), "must be a scalar")
    axis = _index_value(ins[1], "Split", "axis")  # a scalar's value: an int, not a list
    n = layer.int_attr("num_splits")
    shapes: tuple[PartialShape, ...] | None
    try:
        shapes = infer_split(ins[0].shape, axis, n)
    except ValidationError:
        shapes = None if context.reshaped else _split_of_size_0(layer, ins[0].shape, axis, n)
        if shapes is None:
            raise
    return _outputs(layer, ins, shapes)


def _split_of_size_0(
    layer: Layer, shape: PartialShape, axis: Any, n: int
) -> tuple[PartialShape, ...] | None:
    """The outputs where OpenVINO's interval rule refuses only datamove's tighter interval.

    OpenVINO refuses a Split whose axis has an interval maximum below ``num_splits``
    (divergence 14), but on the interval it infers itself, which the file declares at the
    layer's input port. Where datamove's own interval is tighter, holds 0 and is below
    ``num_splits`` (``x[0:-2:-2]`` on ``[?]`` is ``..1``), while the declared one passes,
    OpenVINO builds the layer and runs it where the size is 0: every output takes 0 there.
    Elsewhere ``None``: the refusal stands (and after `Model.check`'s new input shapes, whose
    intervals OpenVINO infers again).
    """
    port = layer.inputs[0] if layer.inputs else None
    declared = port.shape if port is not None and port.has_dims else PartialShape(None)
    if type(axis) is not int or shape.rank is None or not -shape.rank <= axis < shape.rank:
        return None
    dims = list(shape.dims)
    d = dims[axis]
    if d.min != 0 or d.max is None or d.max >= n:
        return None
    try:
        infer_split(declared, axis, n)
    except ValidationError:
        return None  # OpenVINO's own interval breaks the rule too
    dims[axis] = Dimension(0)
    return (PartialShape(dims),) * n


def _split_run(layer: Layer, fixed: Fixed) -> Runner:
    n = layer.int_attr("num_splits")
    if fixed[1] is not None:
        axis = _scalar(fixed[1])
        return lambda xs: tuple(split(xs[0], axis, n))
    return lambda xs: tuple(split(xs[0], _scalar(_ints(xs[1])), n))


def _split_plan(layer: Layer, fixed: Fixed) -> Planner | None:
    # A constant axis is integers (`shape_planner`); not one, the plan raises the operator's
    # error, which explain reports (check and run refuse the layer first).
    if fixed[1] is None:
        return None
    axis, n = _scalar(fixed[1]), layer.int_attr("num_splits")
    return lambda shape: plan_split(shape, axis, n).indices


# -- VariadicSplit-1 ---------------------------------------------------------------------------
def _variadic_split_count(_layer: Layer, ins: Sequence[Info]) -> int | None:
    shape = ins[2].shape if len(ins) == 3 else PartialShape(None)
    return shape[0].get_length() if shape.rank == 1 and shape[0].is_static else None


def _variadic_split_infer(layer: Layer, ins: list[Info], _context: Context) -> list[Info]:
    op = "VariadicSplit"
    _check_rank(ins[1], op, "axis", (0, 1), "must be a scalar or of shape [1]")
    _check_rank(ins[2], op, "split_lengths", (1,), "must be a 1-D tensor")
    axis = _index_value(ins[1], op, "axis", integer=False)
    if isinstance(axis, list):
        axis = axis[0] if len(axis) == 1 else axis
    lengths = _index_value(ins[2], op, "split_lengths", integer=False)
    if isinstance(lengths, Unknown) and lengths.length is None:
        # OpenVINO reads a split_lengths of unknown length as the file's output ports
        lengths = Unknown(len(layer.outputs))
    shapes = infer_variadic_split(ins[0].shape, axis, lengths)
    if isinstance(lengths, Unknown) and type(axis) is int and ins[0].shape.rank is not None:
        a = axis + ins[0].shape.rank if axis < 0 else axis  # infer_variadic_split checked it
        chunks = interval_chunks(ins[0].shape[a], ins[2])
        if chunks is not None:
            shapes = tuple(
                PartialShape((*s.dims[:a], c, *s.dims[a + 1 :]))
                for s, c in zip(shapes, chunks, strict=True)
            )
    return _outputs(layer, ins, shapes)


def interval_chunks(dim: Dimension, lengths: Info) -> list[Dimension] | None:
    """Each chunk's size where ``split_lengths`` is known by bounds only, or ``None``.

    A length within ``lo..hi`` gives a chunk within that and what the others leave of the
    dim's largest size; the ``-1`` (a length known to be -1) what they leave of its sizes. An
    upper bound at the lengths' type's maximum is unbounded (i32's as i64's). Not known where a
    length's interval holds negative values other than an exact -1.
    """
    bounds = bounds_of(lengths)
    if bounds is None or bounds[0].ndim != 1 or bounds[0].dtype.kind not in "iu":
        return None
    los, his = bounds[0].tolist(), bounds[1].tolist()
    rest = [k for k, (lo, hi) in enumerate(zip(los, his, strict=True)) if lo == hi == -1]
    if len(rest) > 1 or any(lo < 0 for k, lo in enumerate(los) if k not in rest):
        return None
    top = dim.max
    unbounded = min(INT64_MAX, int(np.iinfo(bounds[1].dtype).max))  # the type's maximum
    high = [None if h >= unbounded else h for h in his]
    low_sum = sum(lo for k, lo in enumerate(los) if k not in rest)
    chunks = []
    for k, lo in enumerate(los):
        others_hi = [h for j, h in enumerate(high) if j != k and j not in rest]
        if k in rest:
            known = [h for h in others_hi if h is not None]
            spare = dim.min - sum(known) if len(known) == len(others_hi) else 0
            chunks.append(Dimension(max(0, spare), None if top is None else max(0, top - low_sum)))
            continue
        hi = high[k]
        if top is not None:
            cap = top - (low_sum - lo)
            hi = cap if hi is None else min(hi, cap)
        if hi is not None and hi < lo:
            return None  # no size runs: the operator's own rules say so at run time
        chunks.append(Dimension(lo, hi))
    return chunks


def _variadic_split_run(layer: Layer, fixed: Fixed) -> Runner:
    if fixed[1] is not None and fixed[2] is not None:
        axis, lengths = _scalar(fixed[1]), fixed[2]
        return lambda xs: tuple(variadic_split(xs[0], axis, lengths))
    ports = len(layer.outputs)

    def run(xs: list[Any]) -> tuple[Any, ...]:
        lengths = _value(fixed, xs, 2)
        if len(lengths) != ports:  # a split_lengths of unknown length: the file's count
            rule = (
                f"has {plural(len(lengths), 'value')} at run time, but the layer has "
                f"{plural(ports, 'output')}"
            )
            raise ValidationError("VariadicSplit", "split_lengths", lengths, rule)
        return tuple(variadic_split(xs[0], _scalar(_value(fixed, xs, 1)), lengths))

    return run


def _variadic_split_plan(_layer: Layer, fixed: Fixed) -> Planner | None:
    if fixed[1] is None or fixed[2] is None:  # (as _split_plan says)
        return None
    axis, lengths = _scalar(fixed[1]), list(fixed[2])  # its errors name the list, as the IR
    return lambda shape: plan_variadic_split(shape, axis, lengths).indices


# -- StridedSlice-1 ----------------------------------------------------------------------------
def _strided_slice_infer(layer: Layer, ins: list[Info], context: Context) -> list[Info]:
    op, names = "StridedSlice", ("begin", "end", "stride")
    for info, name in zip(ins[1:], names, strict=False):
        _check_rank(info, op, name, (1,), "must be a 1-D tensor")
    begin, end = (_index_value(ins[k], op, names[k - 1]) for k in (1, 2))
    stride = _index_value(ins[3], op, "stride", integer=False) if len(ins) == 4 else None
    masks = _masks(layer)
    shape = infer_strided_slice(ins[0].shape, begin, end, stride, **masks)
    if any(isinstance(v, Unknown) for v in (begin, end, stride)):  # intervals: the corners' hull
        data, ports = ins[0].shape, range(1, len(ins))
        hull = over_corners(
            ins,
            ports,
            lambda v: infer_strided_slice(data, v[0], v[1], v[2] if len(v) > 2 else None, **masks),
        )
        shape = shape if hull is None else hull
    if len(context.links) >= 3 and all(not m or m[0] == 0 for m in masks.values()):
        # one axis, its begin and end read (masks 0): bounded where end = begin + c
        step = one_element(ins[3].value) if len(ins) == 4 else 1
        ends = (ins[1].shape, ins[2].shape)
        shape = bounded_slice(shape, ends, (context.links[1], context.links[2]), step, 0)
    return _outputs(layer, ins, (shape,))


def _strided_slice_run(layer: Layer, fixed: Fixed) -> Runner:
    masks = _masks(layer)
    has_stride = len(layer.inputs) == 4

    def run(xs: list[Any]) -> tuple[Any, ...]:
        begin, end = _value(fixed, xs, 1), _value(fixed, xs, 2)
        stride = _value(fixed, xs, 3) if has_stride else None
        return (strided_slice(xs[0], begin, end, stride, **masks),)

    return run


def _strided_slice_plan(layer: Layer, fixed: Fixed) -> Planner | None:
    begin, end = fixed[1], fixed[2]
    stride = fixed[3] if len(layer.inputs) == 4 else None
    if begin is None or end is None or (stride is None and len(layer.inputs) == 4):
        return None  # (integers, as `shape_planner` says: infer_strided_slice refuses floats)
    masks = _masks(layer)
    return lambda shape: plan_strided_slice(shape, begin, end, stride, **masks).indices


# -- Slice-8 -----------------------------------------------------------------------------------
_SLICE_INPUTS: Final = ("start", "stop", "step", "axes")


def _slice_infer(layer: Layer, ins: list[Info], context: Context) -> list[Info]:
    op, names = "Slice", _SLICE_INPUTS[: len(ins) - 1]
    for info, name in zip(ins[1:], names, strict=True):
        _check_rank(info, op, name, (1,), "must be a 1-D tensor")
        _check_integer(info, op, name)  # a constant or not, as OpenVINO checks it
    start, stop, step, *axes = (_index_value(i, op, n) for i, n in zip(ins[1:], names, strict=True))
    shape = infer_slice(ins[0].shape, start, stop, step, axes[0] if axes else None)
    if isinstance(start, Unknown) or isinstance(stop, Unknown) or isinstance(step, Unknown):
        axis_list = axes[0] if axes else None
        if not isinstance(axis_list, Unknown):  # intervals: the hull over their corners
            data = ins[0].shape
            hull = over_corners(
                ins, (1, 2, 3), lambda v: infer_slice(data, v[0], v[1], v[2], axis_list)
            )
            shape = shape if hull is None else hull
    return _outputs(layer, ins, (_linked_slice(shape, ins, context.links),))


def _linked_slice(shape: PartialShape, ins: list[Info], links: tuple[Link, ...]) -> PartialShape:
    """``shape`` bounded where its stop is its start plus a constant (`datamove.ir._offsets`)."""
    if len(links) < 4 or ins[1].value is not None:
        return shape
    axis = one_element(ins[4].value) if len(ins) == 5 else 0
    ends = (ins[1].shape, ins[2].shape)
    return bounded_slice(shape, ends, (links[1], links[2]), one_element(ins[3].value), axis)


def _slice_run(layer: Layer, fixed: Fixed) -> Runner:
    has_axes = len(layer.inputs) == 5
    if all(v is not None for v in fixed[1 : len(layer.inputs)]):
        start, stop, step, axes = fixed[1], fixed[2], fixed[3], fixed[4] if has_axes else None
        return lambda xs: (slice_op(xs[0], start, stop, step, axes),)
    return lambda xs: (
        slice_op(
            xs[0],
            _value(fixed, xs, 1),
            _value(fixed, xs, 2),
            _value(fixed, xs, 3),
            _value(fixed, xs, 4) if has_axes else None,
        ),
    )


def _slice_plan(layer: Layer, fixed: Fixed) -> Planner | None:
    values = fixed[1 : len(layer.inputs)]
    if any(v is None for v in values):
        return None
    start, stop, step, *axes = values
    axis_list = axes[0] if axes else None
    return lambda shape: plan_slice(shape, start, stop, step, axis_list).indices


# -- Concat-1 ----------------------------------------------------------------------------------
def _concat_infer(layer: Layer, ins: list[Info], _context: Context) -> list[Info]:
    etypes = {i.etype.name for i in ins if i.etype is not None}
    if len(etypes) > 1:
        raise ValidationError(
            "Concat", "inputs", sorted(etypes), "must all have the same element type"
        )
    joined = concat_shape([i.shape for i in ins], layer.int_attr("axis"), "inputs")
    return _outputs(layer, ins, (joined,))


def _concat_run(layer: Layer, _fixed: Fixed) -> Runner:
    axis = layer.int_attr("axis")
    return lambda xs: (concat(xs, axis),)


def _concat_plan(layer: Layer, _fixed: Fixed) -> Planner:
    takes = (Join(layer.int_attr("axis")),)
    return lambda _shape: takes


# -- Unsqueeze-1, Squeeze-1 (and Squeeze-15) --------------------------------------------------
# Views: each output is a NumPy basic index of the data (None inserts a dim of 1, 0 drops one),
# so run, the shape plans and NumPy agree, and NumPy and torch give views.
def unsqueeze_index(shape: Sequence[int], axes: Sequence[Any]) -> Index:
    """The basic index that is OpenVINO's Unsqueeze-1 of data of ``shape`` by ``axes``.

    Each axis lies in ``[-r, r - 1]`` for ``r`` the rank plus the number of distinct values
    (a negative one counts from that end); axes that are the same once counted from the start
    insert one dim, so a 1 is inserted at each distinct axis, in increasing order (at the end
    where fewer dims are left), as OpenVINO does: ``[-1, 3]`` on rank 2 is one new last dim.

    Examples
    --------
    >>> unsqueeze_index((2, 3), [0, -1])
    (None, slice(None, None, None), slice(None, None, None), None, Ellipsis)
    >>> unsqueeze_index((2, 3), [-1, 3])  # both 3: one new dim, at the end
    (slice(None, None, None), slice(None, None, None), None, Ellipsis)
    >>> unsqueeze_index((2, 3), [4])
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: Unsqueeze: axes=[4] must each lie in [-3, 2] (the output...)
    """
    rank = len(shape)
    picked = _axes_in("Unsqueeze", axes, rank + len(set(axes)))
    dims: list[Any] = [slice(None)] * rank
    for a in sorted(set(picked)):
        dims.insert(a, None)
    _check_view_rank("Unsqueeze", len(dims))
    return (*dims, ...)  # the trailing ... keeps a 0-d result an array (NumPy: not a scalar)


def squeeze_index(shape: Sequence[int], axes: Sequence[Any] | None) -> Index:
    """The basic index that is OpenVINO's Squeeze of data of ``shape`` by ``axes``.

    Each axis lies in ``[-rank, rank - 1]`` (``[-1, 0]`` for a scalar, which stays one); a dim
    listed that is not 1 is kept, as OpenVINO's Squeeze-1 and Squeeze-15 do on a static shape.
    Without ``axes`` (``None``, or none listed) every dim of 1 is dropped.

    Examples
    --------
    >>> squeeze_index((1, 2, 1), [0, -3])
    (0, slice(None, None, None), slice(None, None, None), Ellipsis)
    >>> squeeze_index((1, 2, 1), [1])  # a dim of 2: kept
    (slice(None, None, None), slice(None, None, None), slice(None, None, None), Ellipsis)
    >>> squeeze_index((1, 2, 1), None)
    (0, slice(None, None, None), 0, Ellipsis)
    """
    rank = len(shape)
    if axes is None or not len(axes):
        picked = set(range(rank))
    else:
        picked = {a % rank if rank else 0 for a in _axes_in("Squeeze", axes, max(rank, 1))}
    kept = (0 if k in picked and d == 1 else slice(None) for k, d in enumerate(shape))
    return (*kept, ...)  # the trailing ... keeps a 0-d result an array (NumPy: not a scalar)


def _unsqueeze_of(shape: Sequence[int], axes: Sequence[Any] | None) -> Index:
    """`unsqueeze_index` of an IR's layer, whose axes must not be empty (`_empty_axes`)."""
    if axes is None or not len(axes):
        raise _empty_axes()
    return unsqueeze_index(shape, axes)


def _empty_axes() -> ValidationError:
    """Unsqueeze's empty axes: the spec is silent; OpenVINO's inference and evaluate refuse."""
    hint = "OpenVINO's shape inference and evaluate refuse them: \"'axes' input is mandatory\""
    return ValidationError("Unsqueeze", "axes", [], "must not be empty", hint=hint)


def _axes_in(op: str, axes: Sequence[int], extent: int) -> list[int]:
    """``axes`` (ints) as non-negative ints below ``extent``; a `ValidationError` for any other."""
    values = list(axes)
    bad = [a for a in values if not -extent <= a < extent]
    if bad:
        of = "the output's rank" if op == "Unsqueeze" else "the data's rank"
        rule = f"must each lie in [{-extent}, {extent - 1}] ({of} is {extent})"
        raise ValidationError(op, "axes", values, rule)
    return [a + extent if a < 0 else a for a in values]


def _check_view_rank(op: str, rank: int) -> None:
    if rank > NUMPY_MAXDIMS:
        raise ValidationError(
            op,
            "output rank",
            rank,
            f"is {PAST_NUMPY_RANK}",
            hint="datamove runs models on NumPy (and array libraries with the same limit)",
        )


def _view_infer(layer: Layer, ins: list[Info], context: Context) -> list[Info]:
    op = layer.type
    data = ins[0].shape
    axes: list[int] | None = None
    if len(ins) == 2:
        _check_rank(ins[1], op, "axes", (0, 1), "must be a scalar or a 1-D tensor")
        _check_integer(ins[1], op, "axes")
        if op == "Unsqueeze" and ins[1].shape.is_static and not math.prod(ins[1].shape.to_shape()):
            raise _empty_axes()
        if ins[1].value is not None and data.rank is not None:  # its range, as run checks it
            axes = _ints(ins[1].value)
            dims = [1] * data.rank  # the rank alone decides which axes are allowed
            unsqueeze_index(dims, axes) if op == "Unsqueeze" else squeeze_index(dims, axes)
    if axes is None and not (op == "Squeeze" and len(ins) == 1):
        return [_view_info(layer, ins, context, None, _view_of_unknown_axes(op, data, ins[1]))]

    def dims_of(shape: tuple[int, ...]) -> list[int]:
        unsqueeze = op == "Unsqueeze"
        index = unsqueeze_index(shape, axes or []) if unsqueeze else squeeze_index(shape, axes)
        return _indexed_shape(shape, index)

    return [_view_info(layer, ins, context, dims_of)]


def _view_of_unknown_axes(op: str, data: PartialShape, axes: Info) -> PartialShape | None:
    """An Unsqueeze's or Squeeze's output where the number of its axes alone fixes it.

    A Squeeze of data with no dim that may be 1 keeps it whole (an axis at another dim is
    ignored, as in OpenVINO); an Unsqueeze of one axis adds a dim: the rank plus one, each dim 1
    or one of the data's (OpenVINO gives any rank). ``None`` otherwise.
    """
    if data.rank is None:
        return None
    if op == "Squeeze":
        return None if any(1 in d for d in data.dims) else data
    count = math.prod(axes.shape.to_shape()) if axes.shape.is_static else None
    if count == 1:
        return PartialShape(
            [functools.reduce(Dimension.union, data.dims, Dimension(1))] * (data.rank + 1)
        )
    return None


def _view_info(
    layer: Layer,
    ins: list[Info],
    context: Context,
    dims_of: Callable[[tuple[int, ...]], Sequence[int]] | None,
    unknown: PartialShape | None = None,
) -> Info:
    """The output of a view layer (Unsqueeze, Squeeze, Reshape, Transpose) for check.

    ``dims_of`` gives the output shape of a static data shape (raising `ValidationError` for
    a broken rule), ``None`` where an index input is not known. The values and shapes are
    those of check's shape-subgraph rules (`Context.moved`): a value or its bounds where the
    data's is known, else the data's dims moved (reshaped: intervals); on static data
    ``dims_of``'s where they do not know it (a scalar's Squeeze); else the declared port (a
    Squeeze of a dim that may be another size than 1: OpenVINO's own), or under new input
    shapes ``unknown``: what the layer fixes without its index input's values (a rank), else
    any rank.
    """
    data = ins[0].shape
    static = None
    if dims_of is not None and data.is_static:  # its rules hold on these sizes, or it raises
        static = PartialShape(list(dims_of(data.to_shape())))
    info = None if context.moved is None else context.moved(layer, ins)
    if static is not None and (info is None or (info.value is None and info.lower is None)):
        info = Info(static, ins[0].etype)  # exact, where the rules give a shape alone
    if info is None:
        port = layer.outputs[0] if layer.outputs else None
        shape = PartialShape(None)
        if port is not None and port.has_dims and not context.reshaped:
            shape = port.shape
        elif context.reshaped and unknown is not None:
            shape = unknown
        info = Info(shape, ins[0].etype)
    _check_ranks(layer, (info.shape,))
    return info


def _indexed_shape(shape: Sequence[int], index: Index) -> list[int]:
    """The shape of data of ``shape`` indexed by a view's ``index`` (None, 0, slices, ...)."""
    dims, k = [], 0
    for entry in index:
        if entry is None:
            dims.append(1)
        elif entry is not Ellipsis:  # a slice keeps the dim, a 0 drops it
            if type(entry) is slice:
                dims.append(shape[k])
            k += 1
    return dims


def _view_run(layer: Layer, fixed: Fixed) -> Runner:
    has_axes = len(layer.inputs) == 2
    unsqueeze = layer.type == "Unsqueeze"

    def run(xs: list[Any]) -> tuple[Any, ...]:
        axes = _value(fixed, xs, 1) if has_axes else None
        shape = tuple(int(d) for d in xs[0].shape)
        index = _unsqueeze_of(shape, axes) if unsqueeze else squeeze_index(shape, axes)
        if type(xs[0]) is not np.ndarray and isinstance(xs[0], np.ndarray):  # np.matrix...
            return (subclass_result(xs[0], lambda a: a[index]),)
        return (xs[0][index],)

    return run


def _view_plan(layer: Layer, fixed: Fixed) -> Planner | None:
    has_axes = len(layer.inputs) == 2
    axes = fixed[1] if has_axes else None
    if has_axes and axes is None:
        return None
    if layer.type == "Unsqueeze":
        return lambda shape: (_unsqueeze_of(shape, axes),)
    return lambda shape: (squeeze_index(shape, axes),)


# -- Reshape-1, Transpose-1 --------------------------------------------------------------------
# The data's elements in a new shape (Reshape: a view where NumPy can, as PyTorch's view and
# reshape) or its dims in a new order (Transpose: always a view). A shape plan's output calls
# the data's NumPy method (`Method`), as `run` does (`_reshape_run`, `_transpose_run`).
def reshape_shape(
    shape: Sequence[int], target: Sequence[Any], special_zero: bool
) -> tuple[int, ...]:
    """The shape OpenVINO's Reshape-1 gives data of ``shape`` for the ``shape`` input ``target``.

    Each value is -1 (one at most: the dim that keeps the element count), 0 (with
    ``special_zero``, the data's dim at that index, which must exist; without it, a dim of 0) or
    positive; the element count must not change. The -1 is the data's elements over those of
    the other dims, neither counting a dim a 0 copies; beside a dim of 0 (the data then empty,
    where any size keeps the count) it is 1, as OpenVINO's shape inference makes it
    (docs/semantics.md, IR-22).

    Examples
    --------
    >>> reshape_shape((2, 3, 4), [0, -1], True)
    (2, 12)
    >>> reshape_shape((0, 3), [0, -1], True)  # the copied 0 is not counted: 3 elements a row
    (0, 3)
    >>> reshape_shape((2, 3), [0, 5], True)
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: Reshape: shape=[0, 5] gives [2, 5] (10 elements), but...
    >>> reshape_shape((2, 3), [-1, 4], False)  # -1 is 6 // 4
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: ... has 6 (hint: no element may be dropped)
    """
    values, copied = reshape_values(target, len(shape), special_zero)
    dims = [shape[k] if k in copied else v for k, v in enumerate(values)]
    size = math.prod(shape)
    if -1 in dims:
        rest = math.prod(d for k, d in enumerate(dims) if d != -1 and k not in copied)
        whole = math.prod(d for k, d in enumerate(shape) if k not in copied)
        dims[dims.index(-1)] = whole // rest if rest else 1
    count = math.prod(dims)
    if count != size:
        rule = (
            f"gives {dims} ({plural(count, 'element')}), but the data's shape {list(shape)} "
            f"has {size}"
        )
        hint = f"no element may be {'added' if count > size else 'dropped'}"
        raise ValidationError("Reshape", "shape", values, rule, hint=hint)
    _check_view_rank("Reshape", len(dims))
    return tuple(dims)


def reshape_values(
    target: Sequence[Any], rank: int, special_zero: bool
) -> tuple[list[int], set[int]]:
    """Reshape's ``shape`` values checked on data of ``rank``, and the indices of its copies."""
    values = list(target)  # ints: the inputs' element types were checked (`_check_integer`)
    op, argument = "Reshape", "shape"
    bad = next((v for v in values if v < -1), None)
    if bad is not None:
        raise ValidationError(op, argument, values, f"holds {bad}: each is -1, 0 or positive")
    if values.count(-1) > 1:
        raise ValidationError(op, argument, values, "holds -1 twice: one dim at most is inferred")
    copied = {k for k, v in enumerate(values) if v == 0 and special_zero}
    if copied and max(copied) >= rank:
        rule = (
            f"has a 0 at index {max(copied)}, which copies no dim (special_zero): the data's "
            f"rank is {rank}"
        )
        raise ValidationError(op, argument, values, rule)
    return values, copied


def transpose_order(rank: int, order: Sequence[Any]) -> tuple[int, ...]:
    """OpenVINO's Transpose-1 ``input_order`` for data of ``rank``: each output dim's source.

    A permutation of 0 to ``rank - 1`` (no negative values, as OpenVINO); empty, the dims
    reversed.

    Examples
    --------
    >>> transpose_order(3, [2, 0, 1])
    (2, 0, 1)
    >>> transpose_order(3, [])
    (2, 1, 0)
    >>> transpose_order(3, [0, 0, 1])
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: Transpose: input_order=[0, 0, 1] holds 0 twice: it must...
    """
    values = list(order)  # ints: the inputs' element types were checked (`_check_integer`)
    op, argument = "Transpose", "input_order"
    if not values:
        return tuple(range(rank))[::-1]
    rule = f"must be a permutation of 0 to {rank - 1} (the data's rank is {rank}), or empty"
    if len(values) != rank:
        count = plural(len(values), "value")
        raise ValidationError(op, argument, values, f"has {count}, but it {rule}")
    for v in values:
        if not 0 <= v < rank or values.count(v) > 1:
            why = "twice" if 0 <= v < rank else "out of range"
            raise ValidationError(op, argument, values, f"holds {v} {why}: it {rule}")
    return tuple(values)


def _special_zero(layer: Layer) -> bool:
    text = layer.data.get("special_zero")
    if text not in ("true", "false"):
        raise layer.error("special_zero", text, "must be 'true' or 'false'")
    return text == "true"


def _reshape_infer(layer: Layer, ins: list[Info], context: Context) -> list[Info]:
    special = _special_zero(layer)
    _check_rank(ins[1], "Reshape", "shape", (1,), "must be a 1-D tensor")
    _check_integer(ins[1], "Reshape", "shape")
    rank = ins[0].shape.rank
    target = None if ins[1].value is None else _ints(ins[1].value)
    if target is None:  # one output dim per entry, each any size (OpenVINO's own rule)
        _check_reshape_bounds(ins, special)
        length = ins[1].shape[0] if ins[1].shape.rank == 1 else None  # a target of any rank
        unknown = PartialShape.dynamic(length.min) if length and length.is_static else None
        return [_view_info(layer, ins, context, None, unknown)]
    if rank is not None:  # the rules the sizes do not decide, and the count over the sizes
        reshape_values(target, rank, special)
        if not ins[0].shape.is_static:  # static: `reshape_shape` says which count (`dims_of`)
            _check_reshape_bounds(ins, special)
    etype = ins[0].etype

    def dims_of(shape: tuple[int, ...]) -> tuple[int, ...]:
        dims = reshape_shape(shape, target, special)
        # an empty one's dims too
        reason = None if etype is None else numpy_limit(dims, etype.itemsize, etype.name)
        if reason is not None:
            raise ValidationError("Reshape", "shape", target, f"gives {list(dims)}, which {reason}")
        return dims

    return [_view_info(layer, ins, context, dims_of)]


def _check_reshape_bounds(ins: list[Info], special: bool) -> None:
    """The element count over the data's sizes and the target's bounds (`check_reshape_count`).

    A bound at its type's extreme is read as unbounded.
    """
    got = bounds_of(ins[1])
    if got is None or got[0].ndim != 1 or got[0].size > SMALL or ins[1].etype is None:
        return
    info = np.iinfo(ins[1].etype.dtype)
    entries = [
        (-math.inf if lo <= info.min else int(lo), math.inf if hi >= info.max else int(hi))
        for lo, hi in zip(got[0].tolist(), got[1].tolist(), strict=True)
    ]
    check_reshape_count(ins[0].shape, entries, not special, onnx=False)


def _transpose_infer(layer: Layer, ins: list[Info], context: Context) -> list[Info]:
    _check_rank(ins[1], "Transpose", "input_order", (1,), "must be a 1-D tensor")
    _check_integer(ins[1], "Transpose", "input_order")
    rank, length = ins[0].shape.rank, ins[1].shape[0] if ins[1].shape.rank == 1 else None
    if rank is not None and length is not None and length.is_static and length.min not in (0, rank):
        rule = f"must hold {plural(rank, 'value')} (the data's rank) or none"  # by its shape
        raise ValidationError("Transpose", "input_order", str(ins[1].shape), rule)
    order = None if ins[1].value is None else _ints(ins[1].value)
    if order is None:  # each output dim is one of the data's: within their hull, at its rank
        dims = ins[0].shape.dims if rank is not None else None
        hull = [functools.reduce(Dimension.union, dims)] if dims else []
        unknown = None if dims is None else PartialShape(hull * len(dims))
        return [_view_info(layer, ins, context, None, unknown)]
    if rank is not None:
        transpose_order(rank, order)

    def moved_dims(shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(shape[k] for k in transpose_order(len(shape), order))

    return [_view_info(layer, ins, context, moved_dims)]


def _reshape_run(layer: Layer, fixed: Fixed) -> Runner:
    special = _special_zero(layer)

    def run(xs: list[Any]) -> tuple[Any, ...]:
        x = xs[0]
        target = _value(fixed, xs, 1)
        shape = reshape_shape(tuple(int(d) for d in x.shape), target, special)
        if not isinstance(x, np.ndarray):
            return (_namespace(x).reshape(x, shape),)
        try:
            if type(x) is np.ndarray:
                return (x.reshape(shape),)  # a view where NumPy can make one
            return (subclass_result(x, lambda a: a.reshape(shape)),)
        except ValueError as exc:  # an empty one's other dims past NumPy's limit
            rule = f"gives {list(shape)}, which NumPy cannot hold ({exc})"
            raise ValidationError("Reshape", "shape", target, rule) from None

    return run


def _transpose_run(_layer: Layer, fixed: Fixed) -> Runner:
    def run(xs: list[Any]) -> tuple[Any, ...]:
        x = xs[0]
        order = transpose_order(len(x.shape), _value(fixed, xs, 1))
        if type(x) is np.ndarray:
            return (x.transpose(order),)  # a view
        if isinstance(x, np.ndarray):
            return (subclass_result(x, lambda a: a.transpose(order)),)
        return (_namespace(x).permute_dims(x, order),)

    return run


def _namespace(x: Any) -> Any:
    """The array API namespace of another library's array (the backend's, found once a type)."""
    from datamove._backends import backend_for  # noqa: PLC0415 - other libraries' arrays only

    return backend_for("IR", x).xp


def _reshape_plan(layer: Layer, fixed: Fixed) -> Planner | None:
    special, target = _special_zero(layer), fixed[1]
    if target is None:
        return None
    return lambda shape: (Method("reshape", reshape_shape(shape, target, special)),)


def _transpose_plan(_layer: Layer, fixed: Fixed) -> Planner | None:
    order = fixed[1]
    if order is None:
        return None
    return lambda shape: (Method("transpose", transpose_order(len(shape), order)),)


# -- the registry ------------------------------------------------------------------------------
# The one place a layer type is declared: every module dispatches on layer.type through it.
LAYER_OPS: Final[dict[str, LayerOp]] = {
    op.name: op
    for op in (
        LayerOp("Parameter", (0,), _parameter_infer, counted=False),
        LayerOp("Const", (0,), _const_infer, counted=False),
        LayerOp(
            "Result",
            (1,),
            _result_infer,
            _result_outputs,
            _result_outputs,
            data_ports=(0,),
            counted=False,
        ),
        LayerOp(
            "Split",
            (2,),
            _split_infer,
            _split_run,
            _split_plan,
            data_ports=(0,),
            output_count=_split_count,
        ),
        LayerOp(
            "VariadicSplit",
            (3,),
            _variadic_split_infer,
            _variadic_split_run,
            _variadic_split_plan,
            data_ports=(0,),
            output_count=_variadic_split_count,
        ),
        LayerOp(
            "StridedSlice",
            (3, 4),
            _strided_slice_infer,
            _strided_slice_run,
            _strided_slice_plan,
            data_ports=(0,),
        ),
        LayerOp("Slice", (4, 5), _slice_infer, _slice_run, _slice_plan, data_ports=(0,)),
        LayerOp("Concat", (), _concat_infer, _concat_run, _concat_plan),
        LayerOp("Unsqueeze", (2,), _view_infer, _view_run, _view_plan, data_ports=(0,)),
        LayerOp("Squeeze", (1, 2), _view_infer, _view_run, _view_plan, data_ports=(0,)),
        LayerOp(
            "Reshape",
            (2,),
            _reshape_infer,
            _reshape_run,
            _reshape_plan,
            data_ports=(0,),
            free=False,
        ),
        LayerOp(
            "Transpose", (2,), _transpose_infer, _transpose_run, _transpose_plan, data_ports=(0,)
        ),
    )
}


# -- dispatch ----------------------------------------------------------------------------------
def is_opaque(layer: Layer) -> bool:
    """Whether datamove does not model this layer's type: it is taken as the file declares it.

    A well-formed layer of any type that `LAYER_OPS` lacks (MatMul, Add, ShapeOf...): its output
    ports keep the dims and element types the file writes, and the layers after it are checked
    with those. It is never executed. A version OpenVINO refuses is a problem whatever the
    type, and so is a version datamove does not implement of a type it models
    (`unsupported_reason`).
    """
    return layer.type not in LAYER_OPS


def unsupported_reason(layer: Layer) -> str | None:
    """Why OpenVINO refuses a layer's version, or datamove that of a type it models; or ``None``.

    Any layer whose version names no opset OpenVINO has, or one that does not hold its type
    (`version_rule`); a layer of a type datamove models also in a version OpenVINO reads only
    with an extension (of an opaque type, that is a note: `extension_note`). Each type datamove
    models, it implements in every opset that holds it.
    """
    rule = version_rule(layer.attrs.get("type", layer.type), layer.version)
    if rule is None or not (rule[0] or layer.type in LAYER_OPS):
        return None
    found = held(layer.type)
    if layer.type not in LAYER_OPS or found is None:
        return rule[1]
    return (
        f"version {layer.version!r} of {layer.type} is not supported (datamove implements "
        f"{layer.type}-{min(found.opsets)}, as in {found.words})"
    )


def extension_note(layer: Layer) -> str | None:
    """Why OpenVINO reads this opaque layer only with an extension, or ``None``."""
    rule = version_rule(layer.attrs.get("type", layer.type), layer.version)
    return rule[1] if rule is not None and not rule[0] and layer.type not in LAYER_OPS else None


def check_input_count(layer: Layer, count: int) -> None:
    """Raise unless a supported layer has as many inputs as its operator takes."""
    allowed = LAYER_OPS[layer.type].inputs
    if (allowed and count not in allowed) or (not allowed and not count):
        want = " or ".join(map(str, allowed)) if allowed else "at least 1"
        raise layer.error(
            "inputs", count, f"is the wrong number of inputs: {layer.type} takes {want}"
        )


def data_ports(layer: Layer) -> range | tuple[int, ...]:
    """The inputs whose arrays are data (those of another array library are converted to)."""
    ports = LAYER_OPS[layer.type].data_ports
    return range(len(layer.inputs)) if ports is None else ports


def runner(layer: Layer, known: Sequence[np.ndarray[Any, Any] | None] = ()) -> Runner:
    """A function that executes this (supported, non-source) layer on its input arrays.

    ``known`` holds the constant inputs (``None`` for the others): their index values (axis,
    split_lengths, begin, end, stride) are read once here instead of on every run.
    """
    run = LAYER_OPS[layer.type].run
    assert run is not None  # _build_plan and _outputs pass operator layers only
    return run(layer, _fixed(known))


def shape_planner(layer: Layer, known: Sequence[np.ndarray[Any, Any] | None]) -> Planner | None:
    """Data shape -> what each output takes, for a layer whose outputs depend on shapes alone.

    Each output takes a NumPy basic index of the data (Split, VariadicSplit and StridedSlice with
    constant integer index inputs: the operators' own cached plans, so ``data[index]`` is what
    `runner` returns), a `Method` of the data (Reshape, Transpose) or a `Join` of every input
    (Concat). ``None`` for any other layer, or where an index input is not a small constant
    (`runner` then does the work on every call). Every caller passes integer constants: those of
    a layer whose inference passed (`Model.check`'s witnesses, a run's plan: `_check_integer`
    refused any other element type, and only a Const or a fold, each of a known type, has a
    value) or explain's (Python ints, as object arrays).
    """
    op = LAYER_OPS[layer.type]
    return None if op.plan is None else op.plan(layer, _fixed(known))
