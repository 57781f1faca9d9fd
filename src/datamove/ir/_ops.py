"""The supported layer types: shape and element-type inference, and execution, per layer.

Split, VariadicSplit and StridedSlice call datamove's operators (one source of truth for their
rules); Concat-1, needed to invert Split, is implemented here. ``Info`` is what inference knows
about one output port: its shape, its element type, and its value when it is a small constant.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from datamove._errors import AxisError, DTypeError, ValidationError
from datamove._shape import Dimension, PartialShape, Unknown
from datamove._split import (
    infer_split,
    infer_variadic_split,
    plan_split,
    plan_variadic_split,
    split,
    variadic_split,
)
from datamove._strided_slice import infer_strided_slice, numpy_index, strided_slice
from datamove._validation import check_length
from datamove.ir._errors import IRError
from datamove.ir._graph import MAX_OPSET, MAX_OPSET_OF, Layer, parse_shape_attr
from datamove.ir._types import ELEMENT_TYPES, ElementType

__all__ = [
    "SUPPORTED",
    "Info",
    "check_input_count",
    "concat",
    "const_layout",
    "infer_concat",
    "infer_layer",
    "numpy_indexer",
    "output_count",
    "runner",
    "unsupported_reason",
]

SMALL: Final = 4096  # constants up to this many elements are folded during inference
MASKS: Final = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")
MAX_RANK: Final = 64  # NumPy's limit on dimensions (numpy.ndarray cannot hold more)
# NumPy's limit on an array's bytes, counting every dim but the zeros (even when one is zero).
MAX_SPAN: Final = int(np.iinfo(np.intp).max)
_OPSET_VERSION: Final = re.compile(r"opset([1-9][0-9]{0,2})")  # "opset01" is refused by OpenVINO

# type -> allowed numbers of inputs
SUPPORTED: Final[dict[str, tuple[int, ...]]] = {
    "Parameter": (0,),
    "Const": (0,),
    "Result": (1,),
    "Split": (2,),
    "VariadicSplit": (3,),
    "StridedSlice": (3, 4),
    "Concat": (),  # one or more
}


@dataclass(frozen=True, slots=True)
class Info:
    """What inference knows about one port."""

    shape: PartialShape
    etype: ElementType | None
    value: np.ndarray[Any, Any] | None = None


def unsupported_reason(layer: Layer) -> str | None:
    """Why datamove cannot handle this layer (type or version), or ``None`` if it can."""
    if layer.type not in SUPPORTED:
        return f"layer type {layer.type!r} is not supported"
    version = layer.version
    match = _OPSET_VERSION.fullmatch(version)
    newest = MAX_OPSET_OF.get(layer.type, MAX_OPSET)
    if match is None or int(match[1]) > newest:
        return (
            f"version {version!r} of {layer.type} is not supported "
            f"(datamove implements {layer.type}-1, as in opset1 to opset{newest})"
        )
    return None


def _etype(layer: Layer, key: str = "element_type") -> ElementType:
    name = layer.data.get(key)
    if name is None:
        raise layer.error(key, None, "is missing from <data>")
    if name not in ELEMENT_TYPES:
        raise layer.error(
            key,
            name,
            "is not an element type datamove supports",
            hint="supported: " + ", ".join(ELEMENT_TYPES),
        )
    return ELEMENT_TYPES[name]


def _numpy_limit(dims: tuple[int, ...], etype: ElementType) -> str | None:
    """Why no NumPy array can have these dims and element type, or ``None`` when one can.

    NumPy holds at most `MAX_RANK` dims, and its itemsize times the product of the dims that
    are not zero must not pass `MAX_SPAN`, even for an array with no elements.

    Examples
    --------
    >>> print(_numpy_limit((0, 2**62), ELEMENT_TYPES["f32"]))
    needs 2**64 bytes or more as f32: NumPy allows 2**63 - 1, and counts every dim but the zeros...
    >>> _numpy_limit((0, 2**62), ELEMENT_TYPES["i8"]) is None
    True
    """
    if len(dims) > MAX_RANK:
        return f"has {len(dims)} dimensions, more than the {MAX_RANK} a NumPy array can have"
    span = etype.itemsize
    for dim in dims:
        span *= dim or 1
        if span > MAX_SPAN:
            return (
                f"needs 2**{span.bit_length() - 1} bytes or more as {etype.name}: NumPy allows "
                "2**63 - 1, and counts every dim but the zeros even in an empty array"
            )
    return None


def const_layout(layer: Layer) -> tuple[PartialShape, ElementType]:
    """A Const's static shape and element type, checked against its ``size`` and NumPy.

    The one check of a Const before anything is read or allocated for it: inference and
    `Model._load_const` both call it.
    """
    text = layer.data.get("shape", "")
    shape = parse_shape_attr(text, "shape", layer)
    etype = _etype(layer)
    if not shape.is_static:
        raise layer.error("shape", layer.data.get("shape"), "must be static for a Const")
    need = etype.nbytes(math.prod(shape.to_shape()))
    size = layer.extent_attr("size")
    if size < need:
        raise layer.error(
            "size", size, f"is too small: shape {shape} of {etype.name} needs {need} bytes"
        )
    reason = _numpy_limit(shape.to_shape(), etype)
    if reason is not None:
        raise layer.error("shape", text, reason, hint="datamove holds constants as NumPy arrays")
    return shape, etype


def _index_value(info: Info, op: str, argument: str, *, integer: bool = True) -> Any:
    """A constant index input as ints (or floats, which the operator then rejects)."""
    if info.value is None:
        length = None
        if info.shape.rank == 1 and info.shape[0].is_static:
            length = info.shape[0].get_length()
            check_length(op, argument, length)  # named here, not as Unknown's own length
        return Unknown(length)
    if info.etype is not None and info.etype.name in ("u1", "boolean"):  # OpenVINO refuses both
        raise DTypeError(op, argument, info.etype.name, "must be of an integer element type")
    if integer and info.etype is not None and not info.etype.is_integer:
        raise DTypeError(op, argument, info.etype.name, "must be of an integer element type")
    return info.value.tolist()


def _check_rank(info: Info, op: str, argument: str, ranks: tuple[int, ...], rule: str) -> None:
    r = info.shape.rank
    if r is not None and r not in ranks:
        raise ValidationError(op, argument, str(info.shape), rule)


def infer_concat(shapes: Sequence[PartialShape], axis: int) -> PartialShape:
    """Concat-1's output shape: the axis dims add up, every other dim must agree.

    Examples
    --------
    >>> print(infer_concat([PartialShape("[2,?,4]"), PartialShape("[1..3,5,4]")], 0))
    [3..5,5,4]
    >>> infer_concat([PartialShape("[2,3]"), PartialShape("[2,4]")], 0)
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: Concat: inputs=['[2,3]', '[2,4]'] differ in dimension 1, ...
    """
    if not shapes:
        raise ValidationError("Concat", "inputs", [], "must hold at least one input")
    ranks = {s.rank for s in shapes if s.rank is not None}
    if len(ranks) > 1:
        raise ValidationError(
            "Concat", "inputs", [str(s) for s in shapes], "must all have the same rank"
        )
    if not ranks:
        return PartialShape(None)
    rank = ranks.pop()
    if not -rank <= axis < rank:
        raise AxisError(
            "Concat", "axis", axis, f"is out of the tensor rank range [{-rank}, {rank - 1}]"
        )
    a = axis + rank if axis < 0 else axis
    dims: list[Dimension] = []
    for k in range(rank):
        known = [s[k] for s in shapes if s.rank is not None]
        if k == a:
            lo = sum(d.min for d in known)
            his = [d.max for d in known]
            if len(known) < len(shapes) or None in his:
                dims.append(Dimension(lo, None))
            else:
                dims.append(Dimension(lo, sum(h for h in his if h is not None)))
            continue
        lo = max(d.min for d in known)
        bounded = [d.max for d in known if d.max is not None]
        hi = min(bounded) if bounded else None
        if hi is not None and hi < lo:
            raise ValidationError(
                "Concat",
                "inputs",
                [str(s) for s in shapes],
                f"differ in dimension {k}, which is not the concatenation axis {a}",
            )
        dims.append(Dimension(lo, hi))
    return PartialShape(dims)


def concat(arrays: Sequence[Any], axis: int) -> Any:
    """Concat-1: join arrays along ``axis`` (NumPy, or any array-API library).

    Examples
    --------
    >>> concat([np.zeros((1, 2)), np.ones((2, 2))], 0).tolist()
    [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    """
    first = arrays[0]
    if type(first) is np.ndarray:
        try:
            return np.concatenate(arrays, axis=axis)
        except (ValueError, TypeError) as exc:  # say why in Concat-1's words
            shapes = [PartialShape(a.shape) for a in arrays]
            infer_concat(shapes, axis)
            cls = DTypeError if isinstance(exc, TypeError) else ValidationError
            raise cls(
                "Concat",
                "inputs",
                [f"{s} {a.dtype}" for s, a in zip(shapes, arrays, strict=True)],
                f"cannot be joined by NumPy ({exc})",
            ) from exc
    infer_concat([PartialShape(a.shape) for a in arrays], axis)
    from array_api_compat import array_namespace  # noqa: PLC0415 - only for foreign arrays

    xp = array_namespace(*arrays)
    return xp.concat(list(arrays), axis=axis)


def _masks(layer: Layer) -> dict[str, tuple[int, ...]]:
    return {key: layer.int_list_attr(key) for key in MASKS}


def check_input_count(layer: Layer, count: int) -> None:
    """Raise unless a supported layer has as many inputs as its operator takes."""
    allowed = SUPPORTED[layer.type]
    if (allowed and count not in allowed) or (not allowed and not count):
        want = " or ".join(map(str, allowed)) if allowed else "at least 1"
        raise layer.error(
            "inputs", count, f"is the wrong number of inputs: {layer.type} takes {want}"
        )


def output_count(layer: Layer, ins: Sequence[Info]) -> int | None:
    """How many outputs the operator has, where that is known without inferring any shape.

    ``num_splits`` for Split, the length of ``split_lengths`` for VariadicSplit (when its shape is
    static). The caller compares it with the declared output ports *before* inference, so that a
    hostile ``num_splits="100000000"`` costs nothing. ``None`` when unknown or not applicable.
    """
    if layer.type == "Split":
        return layer.int_attr("num_splits")
    if layer.type == "VariadicSplit" and len(ins) == 3:
        shape = ins[2].shape
        if shape.rank == 1 and shape[0].is_static:
            return shape[0].get_length()
    return None


def _check_ranks(layer: Layer, shapes: Sequence[PartialShape]) -> None:
    for k, shape in enumerate(shapes):
        if shape.rank is not None and shape.rank > MAX_RANK:
            raise ValidationError(
                layer.type,
                f"output {k} rank",
                shape.rank,
                f"is more than the {MAX_RANK} dimensions a NumPy array can have",
                hint="datamove runs models on NumPy (and array libraries with the same limit)",
            )


def infer_layer(
    layer: Layer,
    ins: list[Info],
    *,
    parameter_shape: PartialShape | None = None,
    load_const: Callable[[Layer], np.ndarray[Any, Any]] | None = None,
) -> list[Info]:
    """Infer the outputs of one supported layer from its inputs (raises on broken rules)."""
    check_input_count(layer, len(ins))
    t = layer.type
    if t == "Parameter":
        shape = (
            parameter_shape
            if parameter_shape is not None
            else parse_shape_attr(layer.data.get("shape", ""), "shape", layer)
        )
        return [Info(shape, _etype(layer))]
    if t == "Const":
        shape, etype = const_layout(layer)
        count = math.prod(shape.to_shape())
        value = load_const(layer) if load_const is not None and count <= SMALL else None
        return [Info(shape, etype, value)]
    if t == "Result":
        return []
    data = ins[0]
    if t == "Split":
        n = layer.int_attr("num_splits")
        _check_rank(ins[1], t, "axis", (0,), "must be a scalar")
        axis = _index_value(ins[1], t, "axis")
        if isinstance(axis, list):
            axis = axis[0] if axis else axis
        shapes = infer_split(data.shape, axis, n)
    elif t == "VariadicSplit":
        _check_rank(ins[1], t, "axis", (0, 1), "must be a scalar or of shape [1]")
        _check_rank(ins[2], t, "split_lengths", (1,), "must be a 1-D tensor")
        axis = _index_value(ins[1], t, "axis", integer=False)
        if isinstance(axis, list):
            axis = axis[0] if len(axis) == 1 else axis
        lengths = _index_value(ins[2], t, "split_lengths", integer=False)
        shapes = infer_variadic_split(data.shape, axis, lengths)
    elif t == "StridedSlice":
        names = ("begin", "end", "stride")
        for info, name in zip(ins[1:], names, strict=False):
            _check_rank(info, t, name, (1,), "must be a 1-D tensor")
        begin, end = (
            _index_value(info, t, name) for info, name in zip(ins[1:3], names[:2], strict=True)
        )
        stride = _index_value(ins[3], t, "stride", integer=False) if len(ins) == 4 else None
        shapes = (infer_strided_slice(data.shape, begin, end, stride, **_masks(layer)),)
    else:  # Concat
        etypes = {i.etype.name for i in ins if i.etype is not None}
        if len(etypes) > 1:
            raise ValidationError(
                "Concat", "inputs", sorted(etypes), "must all have the same element type"
            )
        shapes = (infer_concat([i.shape for i in ins], layer.int_attr("axis")),)
    _check_ranks(layer, shapes)
    outs = [Info(s, data.etype) for s in shapes]
    if all(i.value is not None for i in ins):  # fold small constants (axis, begin, ...)
        try:
            values = runner(layer)([i.value for i in ins])
        except ValidationError:
            return outs
        outs = [
            Info(o.shape, o.etype, v) if v.size <= SMALL else o
            for o, v in zip(outs, values, strict=True)
        ]
    return outs


def _ints(value: Any) -> list[int]:
    """The values of a (1-D or scalar) index array as Python ints."""
    if type(value) is not np.ndarray:
        value = np.asarray(value.tolist() if hasattr(value, "tolist") else value)
    return (
        [int(v) for v in value.reshape(-1)]
        if value.dtype.kind in "iub"
        else value.reshape(-1).tolist()
    )


def _fixed(known: Sequence[np.ndarray[Any, Any] | None]) -> list[list[int] | None]:
    """The values of the small constant inputs (``None`` for the others), padded to 4 inputs."""
    fixed = [None if k is None or k.size > SMALL else _ints(k) for k in known]
    return fixed + [None] * (4 - len(fixed))


def _scalar(values: list[int]) -> Any:
    return values[0] if len(values) == 1 else values


def numpy_indexer(
    layer: Layer, known: Sequence[np.ndarray[Any, Any] | None]
) -> Callable[[tuple[int, ...]], tuple[Any, ...]] | None:
    """Data shape -> the NumPy basic index of each output, for a layer that only indexes its data.

    That is Split, VariadicSplit and StridedSlice with constant integer index inputs. The indices
    are the operators' own plans (those `runner` applies to a NumPy array), so ``data[index]``
    is what the layer returns. ``None`` for any other layer, or where an index input is not a
    constant of Python ints (`runner` then does the work on every call).
    """
    t = layer.type
    fixed = _fixed(known)
    if t == "Split" and fixed[1] is not None:
        axis, n = _scalar(fixed[1]), layer.int_attr("num_splits")
        if type(axis) is int:
            return lambda shape: plan_split(shape, axis, n).indices
    elif t == "VariadicSplit" and fixed[1] is not None and fixed[2] is not None:
        axis, lengths = _scalar(fixed[1]), tuple(fixed[2])
        if type(axis) is int and all(type(v) is int for v in lengths):
            return lambda shape: plan_variadic_split(shape, axis, lengths).indices
    elif t == "StridedSlice":
        begin, end, stride = fixed[1], fixed[2], fixed[3] if len(layer.inputs) == 4 else None
        given = [v for v in (begin, end, stride) if v is not None]
        if (
            begin is not None
            and end is not None
            and (stride is not None or len(layer.inputs) == 3)
            and all(type(v) is int for vs in given for v in vs)
        ):
            masks = {key: list(v) for key, v in _masks(layer).items()}
            return lambda shape: (numpy_index(shape, begin, end, stride, **masks),)
    return None


def runner(
    layer: Layer, known: Sequence[np.ndarray[Any, Any] | None] = ()
) -> Callable[[list[Any]], tuple[Any, ...]]:
    """A function that executes this (supported, non-source) layer on its input arrays.

    ``known`` holds the constant inputs (``None`` for the others): their index values (axis,
    split_lengths, begin, end, stride) are read once here instead of on every run.
    """
    t = layer.type
    fixed = _fixed(known)

    def ints(xs: list[Any], i: int) -> list[int]:
        value = fixed[i]
        return value if value is not None else _ints(xs[i])

    if t == "Result":
        return lambda _xs: ()
    if t == "Split":
        n = layer.int_attr("num_splits")
        if fixed[1] is not None:
            axis = _scalar(fixed[1])
            return lambda xs: tuple(split(xs[0], axis, n))
        return lambda xs: tuple(split(xs[0], _scalar(_ints(xs[1])), n))
    if t == "VariadicSplit":
        if fixed[1] is not None and fixed[2] is not None:
            axis, lengths = _scalar(fixed[1]), fixed[2]
            return lambda xs: tuple(variadic_split(xs[0], axis, lengths))
        return lambda xs: tuple(variadic_split(xs[0], _scalar(ints(xs, 1)), ints(xs, 2)))
    if t == "StridedSlice":
        bm, em, nm, sm, el = (list(v) for v in _masks(layer).values())
        has_stride = len(layer.inputs) == 4

        def run_slice(xs: list[Any]) -> tuple[Any, ...]:
            stride = ints(xs, 3) if has_stride else None
            return (
                strided_slice(
                    xs[0],
                    ints(xs, 1),
                    ints(xs, 2),
                    stride,
                    begin_mask=bm,
                    end_mask=em,
                    new_axis_mask=nm,
                    shrink_axis_mask=sm,
                    ellipsis_mask=el,
                ),
            )

        return run_slice
    if t == "Concat":
        axis = layer.int_attr("axis")
        return lambda xs: (concat(xs, axis),)
    raise layer.error("type", t, "cannot be executed", cls=_unsupported())


def _unsupported() -> type[IRError]:
    from datamove.ir._errors import UnsupportedOperatorError  # noqa: PLC0415

    return UnsupportedOperatorError
