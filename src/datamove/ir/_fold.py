"""Shape subgraphs: the small integer layers converters write for slice bounds and split lengths.

A converter computes a Slice's ``stop`` or a VariadicSplit's ``split_lengths`` from shapes:
``ShapeOf -> Gather -> Divide -> ... -> Concat``. datamove does not model these layers (they are
opaque, and `Model.run` does not compute them; Squeeze and Unsqueeze, checked layers that it
runs, fold here too), but `Model.check` evaluates them as OpenVINO's constant folding does, on
constants and static shapes, so that on a model with static inputs the layers they feed are
checked with every parameter known.

`FOLDERS` holds one function per layer type: ``(layer, inputs) -> value``, where ``inputs`` is
each input's `Info` (its value where known). A function returns ``None`` (or raises a
`ValueError`, a broken rule's `ValidationError` included, which every caller reads as ``None``)
wherever it cannot give OpenVINO's exact answer: an input not known, an element type other
than the integers, boolean, f32 and f64, a result of more than `SMALL` elements, an attribute
it does not read, or what OpenVINO's specification leaves undefined (a division by zero, an
integer overflow, a float-to-integer conversion of a value with a fraction). The value is then
unknown, never guessed; `fold_failure` says which of these last rules a fold breaks, or that
its value is past `SMALL` (`Model.run` names it).
ShapeOf has none: its bounds (`datamove.ir._bounds`) meet, and are its value, where its input's
shape is static.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from typing import Any, Final, NamedTuple

import numpy as np

from datamove._shape import PartialShape
from datamove.ir._errors import IRError
from datamove.ir._graph import Layer
from datamove.ir._ops import SMALL, Info, reshape_shape, transpose_order
from datamove.ir._types import ELEMENT_TYPES, OPENVINO_TYPE_NAMES, ElementType

__all__ = [
    "FOLDERS",
    "TYPE_ATTRIBUTES",
    "attribute_refusal",
    "attribute_type",
    "axes_of",
    "batch_dims",
    "broadcast_inputs",
    "fold_failure",
    "fold_layer",
    "int_or_none",
    "opset_number",
]

Array = np.ndarray[Any, Any]
Folder = Callable[[Layer, Sequence[Info]], Array | None]

# The element types folded: exact in NumPy as in OpenVINO's reference implementation.
_INTEGERS: Final = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})
_FLOATS: Final = frozenset({"f32", "f64"})
_TYPES: Final = _INTEGERS | _FLOATS | {"boolean"}
_BY_DTYPE: Final = {ELEMENT_TYPES[name].dtype: ELEMENT_TYPES[name] for name in _TYPES}
_UNDEFINED: Final = "which OpenVINO's specification leaves undefined"


class _Undefined(Exception):  # noqa: N818 - not an error: a fold's value the spec leaves open
    """A value OpenVINO's specification leaves undefined, or one past `SMALL`: the message says."""


def _small(count: int) -> None:
    """Raise `_Undefined` where a folded value would have more than `SMALL` elements."""
    if count > SMALL:
        raise _Undefined(f"has {count} elements, more than the {SMALL} datamove folds")


def opset_number(layer: Layer) -> int:
    """The number of the layer's opset (``opset8`` -> 8; 0 where not of that form)."""
    version = layer.version
    digits = version.removeprefix("opset")
    return int(digits) if version.startswith("opset") and digits.isdigit() else 0


def int_or_none(layer: Layer, key: str, default: int | None = None) -> int | None:
    """The layer's integer attribute (`Layer.int_attr`); ``None`` where it has none it reads."""
    try:
        return layer.int_attr(key, default)
    except IRError:  # (check reports it: `attribute_refusal`, or the layer's inference)
        return None


def batch_dims(layer: Layer) -> int | None:
    """A Gather's ``batch_dims``: 0 before Gather-7 (which reads none) or where left out."""
    return int_or_none(layer, "batch_dims", 0) if opset_number(layer) >= 7 else 0


class _Typed(NamedTuple):
    """An element-type attribute, as OpenVINO 2026.4 reads it (`attribute_refusal`)."""

    key: str
    since: int  # the first opset that reads it
    ports: tuple[int, ...]  # the outputs whose element type it is
    default: str | None  # its value where left out ("": no type); None: the file is refused
    allowed: frozenset[str]  # the types the operator takes
    rule: str = ""  # the rule where it refuses another type it knows


_INDEX: Final = frozenset({"i32", "i64"})
_NOT_INDEX: Final = "is not i32 or i64"
_CONCRETE: Final = OPENVINO_TYPE_NAMES - {"dynamic", "undefined"}  # what a value can be of

# The element-type attributes: of shape-subgraph layers, and of layers whose values are never
# folded (NonZero, TopK, ...). RandomUniform's and ReadValue's type must also be their inputs'
# (OpenVINO refuses an i32 RandomUniform of f32 bounds): that rule is not read here.
TYPE_ATTRIBUTES: Final = {
    "Convert": (_Typed("destination_type", 1, (0,), None, _CONCRETE, "is not a value's type"),),
    "ShapeOf": (_Typed("output_type", 3, (0,), None, _INDEX, _NOT_INDEX),),
    "Range": (
        _Typed("output_type", 4, (0,), None, _CONCRETE - {"boolean"}, "is not a numeric type"),
    ),
    "NonZero": (_Typed("output_type", 3, (0,), "i64", _INDEX, _NOT_INDEX),),
    "TopK": (_Typed("index_element_type", 1, (1,), "i32", _INDEX, _NOT_INDEX),),
    "NonMaxSuppression": (_Typed("output_type", 3, (0, 2), "i64", _INDEX, _NOT_INDEX),),
    "Unique": (
        _Typed("index_element_type", 10, (1, 2), "i64", _INDEX, _NOT_INDEX),
        _Typed("count_element_type", 10, (3,), "i64", _INDEX, _NOT_INDEX),
    ),
    "Bucketize": (_Typed("output_type", 3, (0,), None, _INDEX, _NOT_INDEX),),
    "Eye": (_Typed("output_type", 9, (0,), "", OPENVINO_TYPE_NAMES),),
    "Multinomial": (_Typed("convert_type", 13, (0,), "", OPENVINO_TYPE_NAMES),),
    "RandomUniform": (_Typed("output_type", 8, (0,), None, OPENVINO_TYPE_NAMES),),
    "ReadValue": (_Typed("variable_type", 6, (0,), "", OPENVINO_TYPE_NAMES),),
}


def _typed(layer: Layer) -> tuple[_Typed, ...]:
    """The element-type attributes the layer's type and opset read."""
    reads = TYPE_ATTRIBUTES.get(layer.type, ())
    return tuple(read for read in reads if opset_number(layer) >= read.since)


def attribute_type(layer: Layer, port: int) -> ElementType | None:
    """The element type an attribute gives the layer's output ``port`` (`TYPE_ATTRIBUTES`).

    OpenVINO 2026.4 gives the output that type whatever precision the port declares (a
    Convert's ``destination_type="i64"`` on a port of precision ``FP32`` gives i64). ``None``
    where no attribute decides it, or `attribute_refusal` refuses it.
    """
    for read in _typed(layer):
        name = layer.data.get(read.key, read.default)
        if port in read.ports and name in read.allowed:
            return ELEMENT_TYPES.get(name)
    return None


_CONVERT_TO_DYNAMIC: Final = (
    "OpenVINO reads it as dynamic, then refuses the file if a layer it feeds needs a type, "
    "else its CPU plugin refuses to compile it"
)


def attribute_refusal(
    layer: Layer, variables: Collection[tuple[str | None, int]]
) -> IRError | None:
    """Why OpenVINO refuses a layer's element-type attribute (`TYPE_ATTRIBUTES`) or batch_dims.

    OpenVINO 2026.4 refuses the file where the name is none of `OPENVINO_TYPE_NAMES` in any
    case (``"xyz"``, ``"fp32"``, ``"bool"``; the reader lowers a known one), names a type the
    operator does not take (a ShapeOf-3's ``output_type="f32"``), or is left out where the
    operator has no default (a ShapeOf-3's, a Bucketize's). So is a Gather-7/8's
    ``batch_dims`` that is not an integer (`Layer.int_attr`: ``"x"``, ``""``, ``"+1"``), an
    Assign's ``variable_id`` that is none of ``variables`` (those of the ReadValue layers it
    reads, with their opsets; an Assign-3's, of a ReadValue-3: "map::at", "Can't find
    variable"), and what `_reader_crash` names. A Convert's type
    left out, ``dynamic`` or ``undefined`` it reads, as ``dynamic``: it refuses the file where
    a layer the Convert feeds checks its type (a Reshape's shape), else its CPU plugin refuses
    to compile it ("cpu_convert can't convert ... to: dyn"); the hint says so.
    """
    if (crash := _reader_crash(layer)) is not None:
        return crash
    if layer.type == "Assign":
        three = opset_number(layer) < 6  # an Assign-3 finds a ReadValue-3's variable alone
        if (variable := layer.data.get("variable_id")) not in {
            v for v, opset in variables if opset < 6 or not three
        }:
            kind = "ReadValue-3" if three else "ReadValue"
            rule = f"is the variable_id of no {kind} OpenVINO reads"
            return layer.error("variable_id", variable, rule, hint="OpenVINO refuses the file")
    if layer.type == "Gather" and opset_number(layer) >= 7:
        try:
            layer.int_attr("batch_dims", 0)
        except IRError as exc:
            return exc
    for read in _typed(layer):
        name = layer.data.get(read.key)
        known = name is None or name in OPENVINO_TYPE_NAMES
        if name is None and read.default is None:
            rule = "is missing from <data>"
        elif name is None or name in read.allowed:
            continue
        else:
            rule = read.rule if known else "is not an element type OpenVINO knows"
        hint = "OpenVINO refuses the file"
        if known and layer.type == "Convert":
            hint = _CONVERT_TO_DYNAMIC
        return layer.error(read.key, name, rule, hint=hint)
    return None


def _reader_crash(layer: Layer) -> IRError | None:
    """Where OpenVINO's reader crashes (or refuses) a layer datamove would take as declared.

    OpenVINO 2026.4's ``read_model`` kills the process (SIGSEGV) on an Assign-6 or ReadValue-6
    without ``variable_id``, and on a Broadcast-1 of fewer than 2 inputs (but one of mode
    ``pdpd``); it refuses any other Broadcast of other than 2 or 3 (docs/semantics.md, IR-30).
    A Slice of too few inputs is the Slice operator's own refusal (IR-5).
    """
    version = opset_number(layer)
    if layer.type in ("Assign", "ReadValue") and version >= 6 and "variable_id" not in layer.data:
        rule = "is missing from <data>"
        return layer.error("variable_id", None, rule, hint="OpenVINO crashes reading the file")
    count = len(layer.sources)
    if layer.type == "Broadcast" and count not in (2, 3):
        modes = ("numpy", "explicit", "none")  # (a Broadcast-1's others: refused)
        crash = version < 3 and count < 2 and layer.data.get("mode", "numpy") in modes
        how = "crashes reading" if crash else "refuses"
        rule = "is the wrong number of inputs: Broadcast takes 2 or 3"
        return layer.error("inputs", count, rule, hint=f"OpenVINO {how} the file")
    return None


def _values(ins: Sequence[Info], count: int | None = None) -> list[Array] | None:
    """Every input's value, or ``None`` if one is unknown, too big or of another type."""
    if count is not None and len(ins) != count:
        return None
    values = []
    for info in ins:
        value = info.value
        if value is None or info.etype is None or info.etype.name not in _TYPES:
            return None
        if value.size > SMALL:
            return None
        values.append(value)
    return values


def _fits(result: Array, etype: ElementType) -> Array | None:
    """``result`` (Python ints) as the integer ``etype``; `_Undefined` where a value overflows."""
    info = np.iinfo(etype.dtype)
    for v in result.reshape(-1):
        if not info.min <= int(v) <= info.max:
            raise _Undefined(f"gives {int(v)}: an overflow of {etype.name}, {_UNDEFINED}")
    return np.asarray(result, dtype=etype.dtype)


def broadcast_inputs(layer: Layer, *values: Array) -> list[Array] | None:
    """The inputs broadcast by the layer's ``auto_broadcast`` (numpy or none; pdpd not read)."""
    mode = layer.data.get("auto_broadcast", "numpy")
    shapes = [v.shape for v in values]
    if mode == "none":
        return list(values) if all(s == shapes[0] for s in shapes) else None
    if mode != "numpy":
        return None
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return None
    if math.prod(shape) > SMALL:
        return None
    return [np.broadcast_to(v, shape) for v in values]


def _exact(value: Array) -> Array:
    """An integer array as Python ints (object dtype): arithmetic that never wraps."""
    return value.astype(object) if value.dtype.kind in "iu" else value


# -- shapes ------------------------------------------------------------------------------------
def _gather(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 3)
    if values is None:
        return None
    data, indices, axis_value = values
    if indices.dtype.kind not in "iu" or axis_value.dtype.kind not in "iu" or axis_value.size != 1:
        return None
    version = opset_number(layer)  # Gather-1, Gather-7 (batch_dims), Gather-8 (negative indices)
    bdims = batch_dims(layer)
    if bdims is None or version < 1:
        return None
    axis = int(axis_value.reshape(-1)[0])
    if bdims < 0:
        bdims += indices.ndim
    if axis < 0:
        axis += data.ndim
    if not (0 <= bdims <= min(data.ndim, indices.ndim) and bdims <= axis < data.ndim):
        return None
    if data.shape[:bdims] != indices.shape[:bdims]:
        return None
    size = data.shape[axis]
    index = indices.astype(np.int64)
    if version >= 8:  # negative indices count from the end; others give zeros
        index = np.where(index < 0, index + size, index)
        outside = (index < 0) | (index >= size)
    elif (index < 0).any() or (index >= size).any():
        return None  # undefined before Gather-8
    else:
        outside = np.zeros(index.shape, dtype=bool)
    out_shape = data.shape[:axis] + indices.shape[bdims:] + data.shape[axis + 1 :]
    _small(math.prod(out_shape))
    out = np.zeros(out_shape, dtype=data.dtype)
    clipped = np.where(outside, 0, index)
    inner = axis - bdims  # the axis within one batch
    for batch in np.ndindex(*data.shape[:bdims]):
        if size == 0:
            break
        taken = np.take(data[batch], clipped[batch], axis=inner)
        mask = outside[batch].reshape(
            (1,) * inner + outside[batch].shape + (1,) * (data.ndim - axis - 1)
        )
        out[batch] = np.where(mask, 0, taken)
    return out


def _new_shape(layer: Layer, data: Array, target: Array) -> tuple[int, ...] | None:
    """Reshape's output shape (`reshape_shape`, as `Model.run` computes it), ``None`` if none."""
    special = layer.data.get("special_zero")
    if special not in ("true", "false") or target.ndim > 1 or target.dtype.kind not in "iu":
        return None
    return reshape_shape(data.shape, [int(d) for d in target.reshape(-1)], special == "true")


def _reshape(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 2)
    if values is None:
        return None
    shape = _new_shape(layer, values[0], values[1])
    return None if shape is None else values[0].reshape(shape)


def _transpose(_layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 2)
    if values is None:
        return None
    data, order = values
    # a 1-D integer order (the layer's inference refuses any other before a fold), moved as
    # Model.run moves the data: a permutation, or empty (the dims reversed)
    return data.transpose(transpose_order(data.ndim, [int(v) for v in order]))


def axes_of(value: Array, rank: int) -> list[int] | None:
    """An axes input, normalised against ``rank``; ``None`` where one is out of range or twice."""
    if value.ndim > 1 or value.dtype.kind not in "iu":
        return None
    axes = [int(a) + rank if int(a) < 0 else int(a) for a in value.reshape(-1)]
    if len(set(axes)) != len(axes) or not all(0 <= a < rank for a in axes):
        return None
    return axes


def _squeeze(_layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins)
    if values is None or len(values) not in (1, 2):
        return None
    data = values[0]
    if len(values) == 1 or values[1].size == 0:  # no axes, or empty ones: every dim of 1
        return data.reshape(tuple(d for d in data.shape if d != 1))
    axes = axes_of(values[1], data.ndim)
    if axes is None or any(data.shape[a] != 1 for a in axes):
        return None  # a listed dim other than 1: an error (or skipped, Squeeze-15): not guessed
    return data.reshape(tuple(d for k, d in enumerate(data.shape) if k not in axes))


def _unsqueeze(_layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 2)
    if values is None:
        return None
    data, value = values
    axes = axes_of(value, data.ndim + value.size)
    if axes is None:
        return None
    dims = list(data.shape)
    for a in sorted(axes):
        dims.insert(a, 1)
    return data.reshape(dims)


# -- element-wise ------------------------------------------------------------------------------
def _convert(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 1)
    target = attribute_type(layer, 0)
    if values is None or target is None or target.name not in _TYPES:
        return None
    value = values[0]
    if target.name == "boolean":
        return np.asarray(value != 0, dtype=bool)
    if target.name in _FLOATS:  # only where exactly held
        exact = value.astype(target.dtype)
        if value.dtype.kind == "f":
            return exact if (exact == value).all() else None
        pairs = zip(exact.reshape(-1), value.reshape(-1), strict=True)
        return exact if all(int(f) == int(v) for f, v in pairs) else None
    if value.dtype.kind == "f":
        for v in value.reshape(-1):  # a fraction: rounded or truncated, the spec does not say
            if not np.isfinite(v) or v != np.trunc(v):
                kind = "a value with a fraction" if np.isfinite(v) else "a value not finite"
                raise _Undefined(f"converts {v!s}, {kind}, to {target.name}, {_UNDEFINED}")
        value = np.array([int(v) for v in value.reshape(-1)], dtype=object).reshape(value.shape)
    bits = target.bits  # modulo 2**N, as C++ converts (the spec's rule)
    wrapped = [int(v) % (1 << bits) for v in value.reshape(-1)]
    if target.name.startswith("i"):
        wrapped = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in wrapped]
    return np.array(wrapped, dtype=target.dtype).reshape(value.shape)


def _arith(op: Callable[[Any, Any], Any]) -> Folder:
    """An element-wise binary arithmetic op: exact on integers (overflow unknown), IEEE floats."""

    def fold(layer: Layer, ins: Sequence[Info]) -> Array | None:
        values = _values(ins, 2)
        if values is None or values[0].dtype != values[1].dtype or values[0].dtype == bool:
            return None
        both = broadcast_inputs(layer, *values)
        if both is None:
            return None
        a, b = both
        etype = ins[0].etype
        assert etype is not None  # _values checked it
        if a.dtype.kind == "f":
            with np.errstate(all="raise"):
                try:
                    result = op(a, b)
                except (FloatingPointError, ZeroDivisionError):
                    return None
            return np.asarray(result, dtype=a.dtype)
        try:
            result = np.asarray(op(_exact(a), _exact(b)), dtype=object)
        except ZeroDivisionError:
            return None
        return _fits(result, etype)

    return fold


def _trunc_div(a: Any, b: Any) -> Any:
    return np.vectorize(
        lambda x, y: abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1), otypes=[object]
    )(a, b)


def _trunc_mod(a: Any, b: Any) -> Any:
    return np.vectorize(lambda x, y: abs(x) % abs(y) * (-1 if x < 0 else 1), otypes=[object])(a, b)


def _no_zero(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def safe(a: Any, b: Any) -> Any:
        if (np.asarray(b) == 0).any():
            raise _Undefined(f"divides by zero, {_UNDEFINED}")
        return op(a, b)

    return safe


def _divide(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 2)
    if values is None:
        return None
    if values[0].dtype.kind == "f":
        return _arith(_no_zero(np.divide))(layer, ins)
    python = layer.data.get("m_pythondiv", "true")
    if python not in ("true", "false"):
        return None
    return _arith(_no_zero(np.floor_divide if python == "true" else _trunc_div))(layer, ins)


def _integer_only(op: Callable[[Any, Any], Any]) -> Folder:
    arith = _arith(_no_zero(op))

    def fold(layer: Layer, ins: Sequence[Info]) -> Array | None:
        values = _values(ins, 2)
        if values is None or values[0].dtype.kind not in "iu":
            return None
        return arith(layer, ins)

    return fold


def _floor(_layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 1)
    if values is None or values[0].dtype == bool:
        return None
    return np.floor(values[0]) if values[0].dtype.kind == "f" else values[0]


def _compare(op: Callable[[Any, Any], Any]) -> Folder:
    def fold(layer: Layer, ins: Sequence[Info]) -> Array | None:
        values = _values(ins, 2)
        if values is None or values[0].dtype != values[1].dtype:
            return None
        both = broadcast_inputs(layer, *values)
        return None if both is None else np.asarray(op(both[0], both[1]), dtype=bool)

    return fold


def _select(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 3)
    if values is None or values[0].dtype != bool or values[1].dtype != values[2].dtype:
        return None
    all3 = broadcast_inputs(layer, *values)
    return None if all3 is None else np.where(all3[0], all3[1], all3[2])


# -- Broadcast, Tile, Range, ReduceProd --------------------------------------------------------
def _broadcast_op(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 2)  # the explicit mode's axes_mapping input is not read
    mode = layer.data.get("mode", "numpy")
    if values is None or mode not in ("numpy", "bidirectional"):
        return None
    if mode == "bidirectional" and opset_number(layer) < 3:
        return None
    data, target = values
    if target.ndim != 1 or target.dtype.kind not in "iu":
        return None
    dims = tuple(int(d) for d in target)
    if any(d < 0 for d in dims):
        return None
    _small(math.prod(dims))
    shape = np.broadcast_shapes(data.shape, dims) if mode == "bidirectional" else dims
    _small(math.prod(shape))
    return np.broadcast_to(data, shape).copy()


def _tile(_layer: Layer, ins: Sequence[Info]) -> Array | None:
    """``np.tile``: the shorter of the data's shape and ``repeats`` padded with 1s in front."""
    values = _values(ins, 2)
    if values is None or values[1].ndim != 1 or values[1].dtype.kind not in "iu":
        return None
    data, repeats = values[0], [int(r) for r in values[1]]
    if any(r < 0 for r in repeats):
        return None
    _small(math.prod(repeats) * data.size)
    return np.tile(data, repeats) if repeats else data.copy()


def _range(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 3)
    if values is None or any(v.size != 1 or v.dtype.kind not in "iu" for v in values):
        return None
    if opset_number(layer) >= 4:
        etype = attribute_type(layer, 0)
    elif opset_number(layer) >= 1 and len({v.dtype for v in values}) == 1:
        etype = ins[0].etype
    else:
        return None
    if etype is None or etype.name not in _INTEGERS:
        return None
    start, stop, step = (int(v.reshape(-1)[0]) for v in values)
    if step == 0:
        return None
    _small(-(-(stop - start) // step))
    return _fits(np.array(list(range(start, stop, step)), dtype=object), etype)


def _reduce_prod(layer: Layer, ins: Sequence[Info]) -> Array | None:
    values = _values(ins, 2)
    keep = layer.data.get("keep_dims", "false")
    if values is None or keep not in ("true", "false") or values[0].dtype.kind not in "iu":
        return None
    data, value = values
    axes = axes_of(value, data.ndim)
    if not axes:  # empty axes: not read (the spec's versions differ on it)
        return None
    etype = ins[0].etype
    assert etype is not None
    result = np.prod(_exact(data), axis=tuple(axes), keepdims=keep == "true", dtype=object)
    return _fits(np.asarray(result, dtype=object), etype)


# -- the table ---------------------------------------------------------------------------------
_EXPLAINED: Final[dict[str, Folder]] = {
    "Gather": _gather,
    "Squeeze": _squeeze,
    "Unsqueeze": _unsqueeze,
    "Reshape": _reshape,
    "Transpose": _transpose,
    "Convert": _convert,
    "Add": _arith(lambda a, b: a + b),
    "Subtract": _arith(lambda a, b: a - b),
    "Multiply": _arith(lambda a, b: a * b),
    "Divide": _divide,
    "Floor": _floor,
    "Mod": _integer_only(_trunc_mod),
    "FloorMod": _integer_only(np.mod),
    "Minimum": _arith(np.minimum),
    "Maximum": _arith(np.maximum),
    "Greater": _compare(np.greater),
    "Less": _compare(np.less),
    "Equal": _compare(np.equal),
    "Select": _select,
    "Broadcast": _broadcast_op,
    "Tile": _tile,
    "Range": _range,
    "ReduceProd": _reduce_prod,
}


def _quiet(fold: Folder) -> Folder:
    def quiet(layer: Layer, ins: Sequence[Info]) -> Array | None:
        try:
            return fold(layer, ins)
        except _Undefined:
            return None

    return quiet


FOLDERS: Final[dict[str, Folder]] = {name: _quiet(f) for name, f in _EXPLAINED.items()}
"""Layer type -> its fold: ``(layer, inputs) -> value``, ``None`` where not exactly known."""


def fold_failure(layer: Layer, ins: Sequence[Info]) -> str | None:
    """Why `fold_layer` gives no value, where OpenVINO's specification leaves it undefined.

    ``"divides by zero, which OpenVINO's specification leaves undefined"``, an integer
    overflow, a float with a fraction converted to an integer, or a value of more than `SMALL`
    elements (``"has 4225 elements, more than the 4096 datamove folds"``); ``None`` for another
    reason (an input not known, a type or attribute not read) or where the layer folds.
    """
    fold = _EXPLAINED.get(layer.type)
    if fold is None or len(layer.outputs) != 1:
        return None
    try:
        value = fold(layer, ins)
        if value is not None:
            _small(value.size)
    except _Undefined as exc:
        return str(exc)
    except (ValueError, TypeError, IndexError, OverflowError):
        return None
    return None


def fold_layer(layer: Layer, ins: Sequence[Info]) -> Info | None:
    """The value of a one-output shape-subgraph layer (`FOLDERS`), where exactly known.

    ``None`` for another type, a layer of more than one output, or a value `FOLDERS` cannot
    give exactly. The `Info` has the value's shape and element type.
    """
    fold = FOLDERS.get(layer.type)
    if fold is None or len(layer.outputs) != 1:
        return None
    try:
        value = fold(layer, ins)
    except (ValueError, TypeError, IndexError, OverflowError):  # an input NumPy refuses
        return None
    if value is None or value.size > SMALL:
        return None
    etype = _BY_DTYPE[value.dtype]
    value = np.array(value)  # a copy of its own (never a view of a constant), 0-d kept
    value.flags.writeable = False
    return Info(PartialShape(list(value.shape)), etype, value)
