"""The OpenVINO runtime as a test oracle for Split-1, VariadicSplit-1 and StridedSlice-1.

Each builder makes one ``opset1`` node whose ``data`` input is a ``Parameter`` of the given
(partial) shape, and whose other inputs are ``Constant`` nodes, or ``Parameter`` nodes where the
caller passes :class:`Param` (OpenVINO's "non-constant input", datamove's ``dm.UNKNOWN``). The
result is an :class:`Inferred`: the inferred output shapes in OpenVINO's notation, or the
normalised error. ``Inferred.evaluate`` runs the node's reference ``Node.evaluate`` (the code the
TEMPLATE plugin and constant folding use); :func:`run_cpu` compiles the same graph for the CPU
plugin, which has known bugs (``research/openvino-semantics.md`` section 2.4) and is therefore used
only where it agrees with the reference.

``openvino`` is imported lazily, on the first build, so that collecting the tests never needs it;
a test that reaches it without openvino installed is skipped (``pytest.importorskip``).

Where OpenVINO is unsafe, the oracle refuses to call it: :func:`run_cpu` raises ``ValueError``
for a StridedSlice with an ellipsis bit and a new-axis bit on the same index (the CPU plugin of
2026.4.1 corrupts its heap and aborts the process) and for an ``INT64_MIN`` constant stride
(SIGFPE).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
MASK_NAMES = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")

Interval = tuple[int, int | None]  # (min, max); max None = unbounded


@dataclass(frozen=True)
class Param:
    """A runtime (non-constant) input: an OpenVINO ``Parameter``.

    ``shape`` is a partial shape in OpenVINO's notation or a sequence of ints (``()`` is a
    scalar, ``(3,)`` a 1-D tensor of 3 values, ``"[?]"`` 1-D of unknown length); ``None`` means
    dynamic rank.
    """

    shape: str | Sequence[int] | None = ()
    dtype: str = "int64"


# -- OpenVINO, imported on first use -------------------------------------------------------------


@functools.cache
def _ov() -> Any:
    # A test that reaches the oracle without openvino installed is skipped, never an error.
    import pytest

    return pytest.importorskip("openvino")


@functools.cache
def _factory() -> Any:
    from openvino.utils.node_factory import NodeFactory

    return NodeFactory("opset1")


@functools.cache
def core() -> Any:
    """The one ``ov.Core`` of the test session."""
    return _ov().Core()


def partial_shape(shape: str | Sequence[int | str] | None) -> Any:
    """An ``ov.PartialShape`` from OpenVINO's notation, a sequence of ints/strings, or None."""
    ov = _ov()
    if shape is None:
        return ov.PartialShape.dynamic()
    if isinstance(shape, str):
        return ov.PartialShape(shape)
    return ov.PartialShape("[" + ",".join(str(d) for d in shape) + "]")


def _element_type(dtype: Any) -> Any:
    ov = _ov()
    return ov.Type(np.dtype(dtype))


def _input(value: Any, default_dtype: Any = np.int64) -> tuple[Any, np.ndarray | None]:
    """A node for one operator input, and the value to feed it when evaluating."""
    ov = _ov()
    if isinstance(value, Param):
        node = ov.op.Parameter(_element_type(value.dtype), partial_shape(value.shape))
        return node, None
    array = value if isinstance(value, np.ndarray) else np.array(value, dtype=default_dtype)
    if array.dtype == object:
        array = np.array(value, dtype=default_dtype)
    return ov.op.Constant(array), array


# -- errors --------------------------------------------------------------------------------------

# OpenVINO's messages, mapped to a short rule name (first match wins).
_RULES: tuple[tuple[str, str], ...] = (
    (r"'num_splits' must be greater than zero", "num_splits > 0"),
    (r"must be evenly divisible by 'num_splits'", "divisible"),
    (
        r"interval maximum of the dimension .* must be greater or equal",
        "interval max >= num_splits",
    ),
    (r"out of the tensor rank range", "axis in range"),
    (r"Accessing out-of-range dimension", "out-of-range dimension"),
    (r"'axis' input must be a scalar", "axis scalar"),
    (r"Element type of 'axis' input must be integer", "axis integer"),
    (r"Axis should be a scalar or of shape \[1\]", "axis scalar or [1]"),
    (r"a scalar axis value is expected", "one axis value"),
    (r"Split lengths should be a 1-D tensor", "split_lengths 1-D"),
    (r"Invalid value .* in split lengths input", "split_lengths >= -1"),
    (r"multiple -1 values", "one -1"),
    (r"Total length of splits", "split_lengths sum"),
    (r"to_shape was called on a dynamic shape", "dynamic output"),
    (r"must be an integral number", "index integer"),
    (r"must have be 0 or 1", "mask 0/1"),
    (r"must have the same size", "mask sizes"),
    (r"input must be 1D|Begin input must be 1D", "index 1-D"),
    (r"Begin and end need to have same number of values", "begin/end length"),
    (r"Stride needs to have same number of values", "stride length"),
    (r"At most one ellipsis is allowed", "one ellipsis"),
    (r"Input rank plus number of new axis", "rank + new axes >= len(begin)"),
    (r"Stride must be non-zero", "stride non-zero"),
    (r"slice_plan\.cpp:108|begin >= -\(int64_t\(input_shape", "shrink index in range"),
    (r"num_real_axes <= input_shape", "ellipsis: too many axes"),
    (r"Element not supported", "element type"),
    (r"overflow while accumulating element count", "overflow"),
)


def normalise_error(message: str) -> tuple[str, str]:
    """OpenVINO's exception text -> (the meaningful last line, a short rule name)."""
    text = message.strip()
    marker = text.rfind("with friendly_name")
    if marker >= 0:
        text = text[text.find(":\n", marker) + 2 :]
    text = re.sub(r"^Exception from \S+:\d+:\s*", "", text.strip())
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    short = lines[-1] if lines else message.strip()
    for pattern, rule in _RULES:
        if re.search(pattern, message):
            return short, rule
    return short, "other"


class OpenVINOError(Exception):
    """OpenVINO rejected an evaluation or a compiled run; ``rule`` names the rule."""

    def __init__(self, message: str) -> None:
        self.message, self.rule = normalise_error(message)
        super().__init__(f"{self.rule}: {self.message}")


# -- inference -----------------------------------------------------------------------------------


def dim_interval(dim: Any) -> Interval:
    """An ``ov.Dimension`` as (min, max). ``Dimension(lo, hi)`` with lo > hi reads as '?'."""
    lo, hi = dim.get_min_length(), dim.get_max_length()
    if lo < 0:  # OpenVINO's '?' for an empty interval: [0, inf)
        return (0, None)
    return (lo, None if hi < 0 else hi)


@dataclass(frozen=True)
class Inferred:
    """What OpenVINO's shape inference says about one node."""

    shapes: tuple[str, ...] = ()
    error: str | None = None
    rule: str | None = None
    node: Any = field(default=None, compare=False, repr=False)
    feeds: tuple[np.ndarray | None, ...] = field(default=(), compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    def intervals(self, index: int = 0) -> list[Interval] | None:
        """Output ``index`` as a list of (min, max) per dim; None for dynamic rank."""
        shape = self.node.get_output_partial_shape(index)
        if shape.rank.is_dynamic:
            return None
        return [dim_interval(d) for d in shape]

    def evaluate(self, data: np.ndarray, *runtime: np.ndarray) -> list[np.ndarray]:
        """Run the reference ``Node.evaluate``: ``data``, then a value for each :class:`Param`.

        Raises :class:`OpenVINOError` when OpenVINO rejects the values.
        """
        ov = _ov()
        if not self.ok:
            raise OpenVINOError(self.error or "")
        given = iter(runtime)
        inputs = [ov.Tensor(np.array(data, order="C", copy=True))]
        for i, feed in enumerate(self.feeds, start=1):
            value = feed
            if value is None:
                source = self.node.input_value(i).get_node().get_type_name()
                if source == "Parameter":
                    value = np.asarray(next(given))
                else:  # the 3-input form's default strides: ones like begin
                    value = np.ones(inputs[1].data.shape, np.int64)
            inputs.append(ov.Tensor(np.array(value, order="C", copy=True)))
        if self.node.get_output_size() == 0:
            return []
        element = self.node.get_output_element_type(0)
        outputs = [ov.Tensor(element, ov.Shape([])) for _ in range(self.node.get_output_size())]
        try:
            done = self.node.evaluate(outputs, inputs)
        except RuntimeError as exc:
            raise OpenVINOError(str(exc)) from None
        if not done:
            raise OpenVINOError("Node.evaluate returned False")
        return [np.array(t.data, copy=True).reshape(tuple(t.shape)) for t in outputs]


def _infer(op: str, inputs: list[Any], attributes: dict[str, Any] | None = None) -> Inferred:
    nodes, feeds = zip(*inputs, strict=True)
    try:
        node = _factory().create(op, [n.output(0) for n in nodes], attributes or {})
    except RuntimeError as exc:
        message, rule = normalise_error(str(exc))
        return Inferred(error=message, rule=rule)
    if len(feeds) < node.get_input_size():  # StridedSlice's 3-input form: default strides
        feeds = (*feeds, None)
    shapes = tuple(str(node.get_output_partial_shape(i)) for i in range(node.get_output_size()))
    return Inferred(shapes=shapes, node=node, feeds=tuple(feeds[1:]))


def split(shape: Any, axis: Any, num_splits: int, *, dtype: Any = np.float32) -> Inferred:
    """Split-1 on ``data`` of ``shape``; ``axis`` an int (i64 scalar), array, or Param."""
    ov = _ov()
    data = ov.op.Parameter(_element_type(dtype), partial_shape(shape))
    return _infer("Split", [(data, None), _input(axis)], {"num_splits": num_splits})


def variadic_split(
    shape: Any, axis: Any, split_lengths: Any, *, dtype: Any = np.float32
) -> Inferred:
    """VariadicSplit-1; ``axis`` and ``split_lengths`` values, arrays or Params."""
    ov = _ov()
    data = ov.op.Parameter(_element_type(dtype), partial_shape(shape))
    return _infer("VariadicSplit", [(data, None), _input(axis), _input(split_lengths)])


def _bits(mask: Sequence[int] | None) -> list[int]:
    return [int(b) for b in (mask or ())]


def strided_slice(
    shape: Any,
    begin: Any,
    end: Any,
    stride: Any = None,
    *,
    begin_mask: Sequence[int] = (),
    end_mask: Sequence[int] = (),
    new_axis_mask: Sequence[int] = (),
    shrink_axis_mask: Sequence[int] = (),
    ellipsis_mask: Sequence[int] = (),
    dtype: Any = np.float32,
) -> Inferred:
    """StridedSlice-1; ``stride=None`` builds OpenVINO's 3-input form. Masks are passed as given."""
    ov = _ov()
    data = ov.op.Parameter(_element_type(dtype), partial_shape(shape))
    inputs = [(data, None), _input(begin), _input(end)]
    if stride is not None:
        inputs.append(_input(stride))
    attributes = {
        "begin_mask": _bits(begin_mask),
        "end_mask": _bits(end_mask),
        "new_axis_mask": _bits(new_axis_mask),
        "shrink_axis_mask": _bits(shrink_axis_mask),
        "ellipsis_mask": _bits(ellipsis_mask),
    }
    return _infer("StridedSlice", inputs, attributes)


def normalise_masks(count: int, masks: dict[str, Sequence[int]]) -> dict[str, list[int]]:
    """Masks as OpenVINO accepts them and as the spec reads them, for ``count`` = len(begin).

    Every mask padded with zeros or cut to ``count`` (bits past ``len(begin)`` never count), and
    new-axis / shrink bits cleared where the ellipsis bit is set (shape inference's precedence:
    ellipsis wins).
    """
    out = {
        name: ([int(b) for b in masks.get(name, ())] + [0] * count)[:count] for name in MASK_NAMES
    }
    for i, bit in enumerate(out["ellipsis_mask"]):
        if bit:
            out["new_axis_mask"][i] = 0
            out["shrink_axis_mask"][i] = 0
    return out


# -- the CPU plugin ------------------------------------------------------------------------------


def _unsafe_on_cpu(inferred: Inferred) -> str | None:
    node = inferred.node
    if node.get_type_name() != "StridedSlice":
        return None
    attrs = node.get_attributes()
    ellipsis, new_axis = attrs["ellipsis_mask"], attrs["new_axis_mask"]
    if any(e and n for e, n in zip(ellipsis, new_axis, strict=False)):
        return "ellipsis and new axis on the same index abort the CPU plugin (heap corruption)"
    if node.get_input_size() == 4:
        source = node.input_value(3).get_node()
        if source.get_type_name() == "Constant" and INT64_MIN in source.get_data().tolist():
            return "an INT64_MIN constant stride kills the CPU plugin (SIGFPE)"
    return None


def run_cpu(inferred: Inferred, data: np.ndarray, *runtime: np.ndarray) -> list[np.ndarray]:
    """Compile the node's graph for the CPU plugin and run it on ``data`` (and Param values)."""
    ov = _ov()
    if not inferred.ok:
        raise OpenVINOError(inferred.error or "")
    reason = _unsafe_on_cpu(inferred)
    if reason is not None:
        raise ValueError(f"refusing to run on the CPU plugin: {reason}")
    node = inferred.node
    parameters = []
    for i in range(node.get_input_size()):
        source = node.input_value(i).get_node()
        if source.get_type_name() == "Parameter":
            parameters.append(source)
    model = ov.Model([node.output(i) for i in range(node.get_output_size())], parameters)
    try:
        compiled = core().compile_model(model, "CPU")
        results = compiled([np.array(data, order="C", copy=True), *runtime])
    except RuntimeError as exc:
        raise OpenVINOError(str(exc)) from None
    return [np.array(results[compiled.output(i)], copy=True) for i in range(len(compiled.outputs))]
