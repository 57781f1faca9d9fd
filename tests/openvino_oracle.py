"""The OpenVINO runtime as a test oracle for Split-1, VariadicSplit-1, StridedSlice-1, Slice-8
and Concat-1.

Each builder makes one node (``opset1``; Slice from ``opset8``) whose ``data`` input is a
``Parameter`` of the given
(partial) shape, and whose other inputs are ``Constant`` nodes, or ``Parameter`` nodes where the
caller passes :class:`Param` (OpenVINO's "non-constant input", datamove's ``dm.UNKNOWN``). The
result is an :class:`Inferred`: the inferred output shapes in OpenVINO's notation, or the
normalised error. ``Inferred.evaluate`` runs the node's reference ``Node.evaluate`` (the code the
TEMPLATE plugin and constant folding use); :func:`run_cpu` compiles the same graph for the CPU
plugin, which has known bugs (``research/openvino-semantics.md`` section 2.4) and is therefore used
only where it agrees with the reference; :func:`run_ir` compiles and runs an IR file (its
outputs preset to a sentinel where asked, to show what the plugin leaves unwritten), and
:func:`evaluate_ir` runs one with the reference implementation (:func:`run_ir_each` and
:func:`evaluate_ir_each`: one file on many inputs, compiled or read once). :func:`evaluate_all` and
:func:`run_cpu_all` run many nodes in one call to the worker (the CPU plugin: one compiled model
for all of them), for differential tests of thousands of cases.

**Running OpenVINO is isolated.** Shape inference (building the node, ``ov.PartialShape``) runs in
the test process. Everything that runs a kernel (``Node.evaluate``, ``compile_model`` and
inference) runs in one long-lived worker process, started on first use, which rebuilds the node
from its recipe (plain data) and speaks pickles over pipes. Where OpenVINO aborts or segfaults on an
input, only the worker dies: the call raises :class:`OpenVINOCrashError` ("openvino crashed on this
input", with the signal and OpenVINO's last words), and the next call starts a fresh worker.

**Known bugs are refused, with the reason.** :func:`known_bug` names the inputs on which OpenVINO
is known to crash or to run wrong; ``evaluate`` and :func:`run_cpu` refuse them
with :class:`KnownBugError` (tests skip them: ``pytest.skip(reason)`` or ``hypothesis.assume``). See
``docs/semantics.md``, divergences 5, 9, S-3 to S-5 and S-8.

``openvino`` is imported lazily, on the first build, so that collecting the tests never needs it;
a test that reaches it without openvino installed is skipped (``pytest.importorskip``). Run as a
script (``python openvino_oracle.py --worker``), this module is the worker.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import os
import pickle
import re
import select
import signal
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

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
    try:
        import openvino
    except ImportError:
        # A test that reaches the oracle without openvino installed is skipped, never an error.
        import pytest

        return pytest.importorskip("openvino")
    return openvino


@functools.cache
def _factory(opset: str = "opset1") -> Any:
    from openvino.utils.node_factory import NodeFactory

    return NodeFactory(opset)


_OPSETS = {"Slice": "opset8"}  # the operators not in opset1, and the opset that has them


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


# -- recipes: a node as plain data, built in the test process and again in the worker ------------

# One input of a node: ("Parameter", dtype, shape as given to partial_shape) or ("Constant", array).
Spec = tuple[Any, ...]
# A node: (operator name, its inputs, its attributes). Plain tuples, so that it pickles as is.
Recipe = tuple[str, tuple[Spec, ...], dict[str, Any]]


def _spec(value: Any, default_dtype: Any = np.int64) -> Spec:
    """The spec of one operator input: a :class:`Param`, or a value for a ``Constant``."""
    if isinstance(value, Param):
        return ("Parameter", np.dtype(value.dtype), value.shape)
    array = value if isinstance(value, np.ndarray) else np.array(value, dtype=default_dtype)
    if array.dtype == object:
        array = np.array(value, dtype=default_dtype)
    return ("Constant", array)


def _input_node(spec: Spec) -> Any:
    ov = _ov()
    if spec[0] == "Parameter":
        return ov.op.Parameter(_element_type(spec[1]), partial_shape(spec[2]))
    return ov.op.Constant(spec[1])


def _build(recipe: Recipe) -> Any:
    """The node of ``recipe`` (shape inference runs here; raises RuntimeError where it rejects)."""
    op, specs, attributes = recipe
    nodes = [_input_node(spec) for spec in specs]
    return _factory(_OPSETS.get(op, "opset1")).create(op, [n.output(0) for n in nodes], attributes)


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
    (r"Step must be non-zero", "step non-zero"),
    (r"values in `axes` input must be unique", "axes unique"),
    (r"`data` input can't be a scalar", "data not a scalar"),
    (r"`start` input dim size can't be bigger than `data` rank", "len(start) <= rank"),
    (r"Argument shapes are inconsistent", "concat shapes"),
    (r"Argument element types are inconsistent", "concat element types"),
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
    recipe: Recipe | None = field(default=None, compare=False, repr=False)

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
        """Run the reference ``Node.evaluate`` (in the worker): ``data``, then a value for each
        :class:`Param`.

        Raises :class:`OpenVINOError` when OpenVINO rejects the values, :class:`KnownBugError` on an
        input :func:`known_bug` names, :class:`OpenVINOCrashError` when OpenVINO crashes.
        """
        if not self.ok or self.recipe is None:
            raise OpenVINOError(self.error or "")
        _refuse_known_bug(self, "evaluate", runtime)
        return _call("evaluate", self.recipe, data, runtime)  # type: ignore[no-any-return]


def _infer(recipe: Recipe) -> Inferred:
    try:
        node = _build(recipe)
    except RuntimeError as exc:
        message, rule = normalise_error(str(exc))
        return Inferred(error=message, rule=rule)
    shapes = tuple(str(node.get_output_partial_shape(i)) for i in range(node.get_output_size()))
    return Inferred(shapes=shapes, node=node, recipe=recipe)


def split(shape: Any, axis: Any, num_splits: int, *, dtype: Any = np.float32) -> Inferred:
    """Split-1 on ``data`` of ``shape``; ``axis`` an int (i64 scalar), array, or Param."""
    data = ("Parameter", np.dtype(dtype), shape)
    return _infer(("Split", (data, _spec(axis)), {"num_splits": num_splits}))


def variadic_split(
    shape: Any, axis: Any, split_lengths: Any, *, dtype: Any = np.float32
) -> Inferred:
    """VariadicSplit-1; ``axis`` and ``split_lengths`` values, arrays or Params."""
    data = ("Parameter", np.dtype(dtype), shape)
    return _infer(("VariadicSplit", (data, _spec(axis), _spec(split_lengths)), {}))


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
    specs = [("Parameter", np.dtype(dtype), shape), _spec(begin), _spec(end)]
    if stride is not None:
        specs.append(_spec(stride))
    attributes = {
        "begin_mask": _bits(begin_mask),
        "end_mask": _bits(end_mask),
        "new_axis_mask": _bits(new_axis_mask),
        "shrink_axis_mask": _bits(shrink_axis_mask),
        "ellipsis_mask": _bits(ellipsis_mask),
    }
    return _infer(("StridedSlice", tuple(specs), attributes))


def slice(  # noqa: A001 - the operator's name, as dm.slice
    shape: Any, start: Any, stop: Any, step: Any, axes: Any = None, *, dtype: Any = np.float32
) -> Inferred:
    """Slice-8 (opset8); ``axes=None`` builds the 4-input form. Each index input a value (an
    array keeps its element type; other values are i64) or a Param."""
    specs = [("Parameter", np.dtype(dtype), shape), _spec(start), _spec(stop), _spec(step)]
    if axes is not None:
        specs.append(_spec(axes))
    return _infer(("Slice", tuple(specs), {}))


def concat(shapes: Sequence[Any], axis: int, *, dtypes: Sequence[Any] | None = None) -> Inferred:
    """Concat-1 of Parameters of ``shapes`` (and element types ``dtypes``, float32 by default):
    evaluate and run it with the first input's value as ``data``, the others' as run-time values."""
    kinds = dtypes if dtypes is not None else [np.float32] * len(shapes)
    specs = tuple(("Parameter", np.dtype(t), s) for s, t in zip(shapes, kinds, strict=True))
    return _infer(("Concat", specs, {"axis": axis}))


def pad_masks(count: int, masks: dict[str, Sequence[int]]) -> dict[str, list[int]]:
    """Every mask padded with zeros or cut to ``count`` = len(begin): OpenVINO demands masks of
    equal lengths (divergence 1), and bits past ``len(begin)`` never count (divergence 2)."""
    return {
        name: ([int(b) for b in masks.get(name, ())] + [0] * count)[:count] for name in MASK_NAMES
    }


def normalise_masks(count: int, masks: dict[str, Sequence[int]]) -> dict[str, list[int]]:
    """Masks as OpenVINO accepts them and as the spec reads them, for ``count`` = len(begin).

    :func:`pad_masks`, then new-axis / shrink bits cleared where the ellipsis bit is set (shape
    inference's precedence: ellipsis wins). The masks that come out are never a :func:`known_bug`.
    """
    out = pad_masks(count, masks)
    for i, bit in enumerate(out["ellipsis_mask"]):
        if bit:
            out["new_axis_mask"][i] = 0
            out["shrink_axis_mask"][i] = 0
    return out


# -- known bugs ----------------------------------------------------------------------------------

ELLIPSIS_SHARES_INDEX = (
    "OpenVINO 2026.4.1 runs a StridedSlice wrong where an ellipsis bit shares its index with a "
    "new-axis or shrink bit: its slice plan never expands the ellipsis, so evaluate gives wrong "
    "shapes, values and errors, and where the ellipsis covers no axis evaluate and the CPU plugin "
    "write past the plan (heap corruption: abort or segfault); docs/semantics.md, divergence 5"
)
STEP_INT32_MIN = (
    "a constant StridedSlice stride or Slice step of INT32_MIN or below kills OpenVINO's CPU "
    "plugin (SIGFPE) where the output has elements (Slice's -INT64_MAX: garbage values "
    "instead); docs/semantics.md, divergences 9 and S-3"
)
SLICE_RUN_TIME_INT32 = (
    "OpenVINO's CPU plugin truncates run-time Slice start, stop and step to 32 bits, and a "
    "step of INT32_MIN (after truncation) kills it (SIGFPE); docs/semantics.md, divergence S-4"
)
AXIS_PAST_INT32_SIZE = 2**31  # S-8: a data axis this long or longer
AXIS_PAST_INT32 = (
    "OpenVINO's CPU plugin reads a Slice's or StridedSlice's data axis size in 32 bits: on an "
    "axis of 2**31 elements or more it gives other elements or kills the process (SIGSEGV); "
    "docs/semantics.md, divergence S-8"
)
SLICE_RUN_TIME_EMPTY = (
    "OpenVINO's CPU plugin fails on run-time Slice inputs with no values ('ptr is Null'); "
    "docs/semantics.md, divergence S-5"
)


class KnownBugError(Exception):
    """The oracle refuses to run OpenVINO on an input where it is known to be wrong or to crash."""


def skip_where_right(right: bool, divergence: str, why: str, who: str = "the CPU plugin") -> None:
    """The last step of a witness test whose divergence hangs on the machine, not on OpenVINO's
    version (``why``: a kernel chosen by the CPU's vector instructions, memory read past an end
    or never written): where OpenVINO ran the witness ``right`` here, skip, saying so. The test
    asserts datamove's answer before; a divergence that is the same on every CPU is asserted."""
    if right:
        import pytest

        pytest.skip(
            f"{who} runs this witness of divergence {divergence} right on this CPU ({why}; "
            "docs/semantics.md): its misbehaviour is not seen here"
        )


def ellipsis_shares_index(masks: dict[str, Sequence[int]], count: int | None = None) -> bool:
    """Whether an ellipsis bit shares its index with a new-axis or a shrink bit, at an index below
    ``count`` = len(begin) (None: unknown, any index) where OpenVINO reads the masks."""
    ellipsis = list(masks.get("ellipsis_mask", ()))[:count]
    others = [masks.get("new_axis_mask", ()), masks.get("shrink_axis_mask", ())]
    return any(e and any(i < len(m) and m[i] for m in others) for i, e in enumerate(ellipsis))


def _constant_step_kills_cpu(spec: Spec) -> bool:
    """Whether a StridedSlice stride or Slice step is a constant with a value at or below
    INT32_MIN: the CPU plugin dies on each (SIGFPE), INT64_MIN, -2**62 and INT32_MIN alike."""
    return spec[0] == "Constant" and any(int(v) <= -(2**31) for v in np.asarray(spec[1]).flat)


def _slice_known_bug(specs: Sequence[Spec], where: str, runtime: Sequence[Any]) -> str | None:
    """Slice's known bugs: all on the CPU plugin; ``runtime`` the values of its Parameters."""
    if where != "cpu":
        return None
    given = iter(runtime)
    values = [next(given, None) if s[0] == "Parameter" else s[1] for s in specs[1:4]]
    if _constant_step_kills_cpu(specs[3]):
        return STEP_INT32_MIN
    if any(s[0] == "Parameter" for s in specs[1:4]) and all(v is not None for v in values):
        start, stop, step = ([int(x) for x in np.asarray(v).flat] for v in values)
        if any(not -(2**31) <= v < 2**31 for v in start + stop + step) or -(2**31) in step:
            return SLICE_RUN_TIME_INT32
        if not start:
            return SLICE_RUN_TIME_EMPTY
    return None


def known_bug(
    inferred: Inferred,
    where: str = "evaluate",
    runtime: Sequence[Any] = (),
    data_shape: Sequence[int] | None = None,
) -> str | None:
    """Why OpenVINO's reference ``evaluate`` (``where="evaluate"``) or its CPU plugin
    (``where="cpu"``) cannot be run on this node (with these values for its Parameters after
    ``data``, and data of ``data_shape``: by default the node's static data dims), or None."""
    if inferred.recipe is None:
        return None
    op, specs, attributes = inferred.recipe
    if where == "cpu" and op in ("Slice", "StridedSlice"):
        if data_shape is None and inferred.node is not None:
            dims = inferred.node.get_input_partial_shape(0)
            data_shape = [] if dims.rank.is_dynamic else [d.get_min_length() for d in dims]
        if any(d >= AXIS_PAST_INT32_SIZE for d in data_shape or ()):
            return AXIS_PAST_INT32
    if op == "Slice":
        return _slice_known_bug(specs, where, runtime)
    if op != "StridedSlice":
        return None
    begin = specs[1]
    count = np.asarray(begin[1]).size if begin[0] == "Constant" else None
    if ellipsis_shares_index(attributes, count):
        return ELLIPSIS_SHARES_INDEX
    stride = specs[3] if len(specs) == 4 else ("Parameter",)
    if where == "cpu" and _constant_step_kills_cpu(stride):
        return STEP_INT32_MIN
    return None


def _refuse_known_bug(
    inferred: Inferred,
    where: str,
    runtime: Sequence[Any] = (),
    data_shape: Sequence[int] | None = None,
) -> None:
    reason = known_bug(inferred, where, runtime, data_shape)
    if reason is not None:
        raise KnownBugError(f"refusing to run OpenVINO ({where}): {reason}")


# -- running: the CPU plugin and IR files --------------------------------------------------------


def run_cpu(inferred: Inferred, data: np.ndarray, *runtime: np.ndarray) -> list[np.ndarray]:
    """Compile the node's graph for the CPU plugin and run it on ``data`` (and Param values), in
    the worker. Raises as :meth:`Inferred.evaluate` does."""
    if not inferred.ok or inferred.recipe is None:
        raise OpenVINOError(inferred.error or "")
    _refuse_known_bug(inferred, "cpu", runtime, np.shape(data))
    return _call("run_cpu", inferred.recipe, data, runtime)  # type: ignore[no-any-return]


def run_cpu_each(
    inferred: Inferred, datas: Sequence[np.ndarray]
) -> list[list[np.ndarray] | OpenVINOError]:
    """:func:`run_cpu` of one node on each of ``datas``, in one worker call and one compiled
    model: the CPU plugin runs a node of dynamic input shape at every size its interval allows
    without compiling it again. For each, its outputs or the :class:`OpenVINOError` run_cpu
    raises; raises the rest as run_cpu does."""
    if not inferred.ok or inferred.recipe is None:
        return [OpenVINOError(inferred.error or "") for _ in datas]
    for data in datas:
        _refuse_known_bug(inferred, "cpu", (), np.shape(data))
    if not datas:
        return []
    replies = _call("run_cpu_each", inferred.recipe, list(datas))
    return [value if status == "ok" else OpenVINOError(value) for status, value in replies]


Call = tuple[Inferred, np.ndarray, tuple[np.ndarray, ...]]  # a node, its data, its run-time values


def evaluate_all(calls: Sequence[Call]) -> list[list[np.ndarray] | Exception]:
    """:meth:`Inferred.evaluate` of many nodes in one worker call: for each, its outputs or the
    exception evaluate raises (:class:`OpenVINOError`, :class:`KnownBugError`, or
    :class:`OpenVINOCrashError`, found by running the calls of a crashed batch one by one)."""
    return _all("evaluate", calls)


def run_cpu_all(calls: Sequence[Call]) -> list[list[np.ndarray] | Exception]:
    """:func:`run_cpu` of many nodes: one model of all of them, compiled once for the CPU plugin
    and run once (where that fails, each node in a model of its own); answers as
    :func:`evaluate_all`."""
    return _all("cpu", calls)


def _all(where: str, calls: Sequence[Call]) -> list[list[np.ndarray] | Exception]:
    answers: list[list[np.ndarray] | Exception | None] = []
    runnable = []
    for inferred, data, runtime in calls:
        if not inferred.ok or inferred.recipe is None:
            answers.append(OpenVINOError(inferred.error or ""))
            continue
        reason = known_bug(inferred, where, runtime, np.shape(data))
        if reason is not None:
            answers.append(KnownBugError(f"refusing to run OpenVINO ({where}): {reason}"))
            continue
        answers.append(None)
        runnable.append((inferred.recipe, data, tuple(runtime)))
    got = iter(_run_all(f"{where}_all", runnable))
    return [next(got) if a is None else a for a in answers]


def _run_all(kind: str, items: list[Any]) -> list[list[np.ndarray] | Exception]:
    if not items:
        return []
    try:
        replies = _call(kind, items)
    except OpenVINOCrashError as exc:
        if len(items) == 1:
            return [exc]
        return [r for item in items for r in _run_all(kind, [item])]
    return [value if status == "ok" else OpenVINOError(value) for status, value in replies]


def run_ir(
    xml: str | os.PathLike[str], inputs: dict[str, np.ndarray], *, sentinel: float | None = None
) -> list[tuple[Any, Any]]:
    """Compile an IR file for the CPU plugin and run it on ``inputs``, in the worker.

    Returns ``(name, array)`` per output, in OpenVINO's order; ``name`` is the output's
    ``get_any_name()``, or None where it has no name. Raises :class:`OpenVINOError` where OpenVINO
    refuses the file or the inputs, :class:`OpenVINOCrashError` where it crashes.

    With a ``sentinel``, each output is a tensor of that value, set on the infer request before
    it runs: an element the plugin leaves unwritten comes back as the sentinel (IR-38), where
    any other run gives whatever the plugin's memory held. The plugin writes into that tensor
    only where the output is of static shape (it computes a dynamic one in a buffer of its own
    and copies that over the tensor), so an output of dynamic shape raises ValueError; and a
    type the plugin runs as another (i64 data as i32, f16 as f32) it converts into the tensor
    from a buffer of its own too.
    """
    return _call("run_ir", os.fspath(xml), inputs, sentinel)  # type: ignore[no-any-return]


def run_ir_each(
    xml: str | os.PathLike[str], inputs: Sequence[dict[str, np.ndarray]]
) -> list[list[tuple[Any, Any]]]:
    """:func:`run_ir` on each of ``inputs``, in one worker call and one compiled model: the CPU
    plugin runs a model of dynamic input shape at every size its interval allows without
    compiling it again. Raises as :func:`run_ir` where any of them fails."""
    if not inputs:
        return []
    return _call("run_ir_each", os.fspath(xml), list(inputs))  # type: ignore[no-any-return]


def run_ir_one(
    xml: str | os.PathLike[str], inputs: dict[str, np.ndarray], *, sentinel: float | None = None
) -> np.ndarray | str:
    """:func:`run_ir` of a model of one output (its output preset to ``sentinel`` where one is
    given): that output, or why the CPU plugin gave none (the error, or the crash of its
    process), as text."""
    try:
        ((_, out),) = run_ir(xml, inputs, sentinel=sentinel)
    except (OpenVINOError, OpenVINOCrashError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return np.asarray(out)


def evaluate_ir(xml: str | os.PathLike[str], inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """Run an IR file with OpenVINO's reference implementation (``Model.evaluate``, no plugin),
    in the worker: one array per output, in OpenVINO's order. Raises as :func:`run_ir` does."""
    return _call("evaluate_ir", os.fspath(xml), inputs)  # type: ignore[no-any-return]


def evaluate_ir_each(
    xml: str | os.PathLike[str], inputs: Sequence[dict[str, np.ndarray]]
) -> list[list[np.ndarray]]:
    """:func:`evaluate_ir` on each of ``inputs``, the file read once, in one worker call."""
    if not inputs:
        return []
    return _call("evaluate_ir_each", os.fspath(xml), list(inputs))  # type: ignore[no-any-return]


def read_ir_texts(xmls: Sequence[str]) -> list[str | None]:
    """``Core.read_model`` of each IR text (no weights), in the worker: ``None`` where OpenVINO
    reads it, else its error's text, or a :class:`OpenVINOCrashError`'s where it crashed (each
    text is then read again alone, so one crash costs the others nothing)."""
    try:
        return _call("read_ir_texts", list(xmls))  # type: ignore[no-any-return]
    except OpenVINOCrashError as exc:
        if len(xmls) == 1:
            return [f"OpenVINOCrashError: {exc}"]
        return [r for xml in xmls for r in read_ir_texts([xml])]


# -- the worker process --------------------------------------------------------------------------


class OpenVINOCrashError(Exception):
    """OpenVINO crashed (or hung) on this input: its worker process died and was replaced."""


# A call that takes longer is a hang: the worker is killed. No test input comes near it.
HANG_SECONDS = 300


class _Worker:
    """One worker process: pickled ``(kind, args)`` in, pickled ``(status, value)`` out."""

    def __init__(self) -> None:
        # The worker's stderr, for its last words; closed in close().
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )

    def call(self, kind: str, args: tuple[Any, ...]) -> tuple[str, Any]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        request = pickle.dumps((kind, args), protocol=pickle.HIGHEST_PROTOCOL)
        logged = self.log.seek(0, os.SEEK_END)
        try:
            stdin.write(request)
            stdin.flush()
            self._wait_for_reply(stdout)
            reply: tuple[str, Any] = pickle.load(stdout)
        except (BrokenPipeError, EOFError, pickle.UnpicklingError):
            raise OpenVINOCrashError(self._obituary(logged)) from None
        return reply

    def _wait_for_reply(self, stdout: IO[bytes]) -> None:
        # The worker's death is watched as well as the pipe: a process it forked may hold the
        # pipe open after it died.
        waited = 0.0
        while not select.select([stdout], [], [], 0.5)[0]:
            if self.process.poll() is not None:
                raise EOFError
            waited += 0.5
            if waited >= HANG_SECONDS:
                self.process.kill()
                raise OpenVINOCrashError(f"openvino hung on this input ({HANG_SECONDS} s, killed)")

    def _obituary(self, logged: int) -> str:
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        how = f"exit status {code}"
        if code < 0:
            try:
                how = signal.Signals(-code).name
            except ValueError:
                how = f"signal {-code}"
        self.log.seek(logged)
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        last = f": {lines[-1].strip()!r}" if lines else ""
        return f"openvino crashed on this input ({how}){last}"

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()  # the worker ends on end of input
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        self.log.close()


_worker: _Worker | None = None


def _close_worker() -> None:
    global _worker  # noqa: PLW0603 (one worker per test session)
    if _worker is not None:
        _worker.close()
        _worker = None


atexit.register(_close_worker)


def _call(kind: str, *args: Any) -> Any:
    """Run ``kind`` in the worker (started on first use, replaced after a crash)."""
    global _worker  # noqa: PLW0603 (one worker per test session)
    _ov()  # skips the test where openvino is not installed
    if _worker is None or _worker.process.poll() is not None:
        _close_worker()
        _worker = _Worker()
    try:
        status, value = _worker.call(kind, args)
    except OpenVINOCrashError:
        _close_worker()
        raise
    if status == "error":
        raise OpenVINOError(value)
    if status == "raise":  # another exception, raised again here with the worker's traceback
        exc, where = value
        exc.add_note(f"raised in the openvino worker:\n{where}")
        raise exc
    return value


# -- in the worker -------------------------------------------------------------------------------


def _evaluate(recipe: Recipe, data: np.ndarray, runtime: Sequence[Any]) -> list[np.ndarray]:
    ov = _ov()
    node = _build(recipe)
    given = iter(runtime)
    inputs = [ov.Tensor(np.array(data, order="C", copy=True))]
    for spec in recipe[1][1:]:
        value = np.asarray(next(given)) if spec[0] == "Parameter" else spec[1]
        inputs.append(ov.Tensor(np.array(value, order="C", copy=True)))
    if recipe[0] == "Slice" and len(inputs) == 4:  # evaluate reads axes: the default ones
        inputs.append(ov.Tensor(np.arange(inputs[1].data.size, dtype=np.int64)))
    elif node.get_input_size() > len(inputs):  # StridedSlice's 3-input form: strides of ones
        inputs.append(ov.Tensor(np.ones(inputs[1].data.shape, np.int64)))
    if node.get_output_size() == 0:
        return []
    element = node.get_output_element_type(0)
    outputs = [ov.Tensor(element, ov.Shape([])) for _ in range(node.get_output_size())]
    if not node.evaluate(outputs, inputs):
        raise RuntimeError("Node.evaluate returned False")
    return [np.array(t.data, copy=True).reshape(tuple(t.shape)) for t in outputs]


@functools.cache
def _core() -> Any:
    return _ov().Core()


def _run_cpu(recipe: Recipe, data: np.ndarray, runtime: Sequence[Any]) -> list[np.ndarray]:
    ov = _ov()
    node = _build(recipe)
    parameters = []
    for i in range(node.get_input_size()):
        source = node.input_value(i).get_node()
        if source.get_type_name() == "Parameter":
            parameters.append(source)
    model = ov.Model([node.output(i) for i in range(node.get_output_size())], parameters)
    compiled = _core().compile_model(model, "CPU")
    results = compiled([np.array(data, order="C", copy=True), *runtime])
    return [np.array(results[compiled.output(i)], copy=True) for i in range(len(compiled.outputs))]


def _run_cpu_each(recipe: Recipe, datas: Sequence[np.ndarray]) -> list[tuple[str, Any]]:
    """One node compiled once, run on each of ``datas``: its outputs or its error, for each."""
    ov = _ov()
    node = _build(recipe)
    parameters = [node.input_value(0).get_node()]  # data alone: run_cpu_each takes no Param
    model = ov.Model([node.output(i) for i in range(node.get_output_size())], parameters)
    try:
        compiled = _core().compile_model(model, "CPU")
    except RuntimeError as exc:
        return [("error", str(exc))] * len(datas)
    replies: list[tuple[str, Any]] = []
    for data in datas:
        try:
            results = compiled([np.array(data, order="C", copy=True)])
        except RuntimeError as exc:
            replies.append(("error", str(exc)))
            continue
        outputs = range(len(compiled.outputs))
        replies.append(("ok", [np.array(results[compiled.output(i)], copy=True) for i in outputs]))
    return replies


def _each(run: Callable[..., Any], items: Sequence[Any]) -> list[tuple[str, Any]]:
    replies: list[tuple[str, Any]] = []
    for item in items:
        try:
            replies.append(("ok", run(*item)))
        except RuntimeError as exc:
            replies.append(("error", str(exc)))
    return replies


def _evaluate_all(items: Sequence[Any]) -> list[tuple[str, Any]]:
    return _each(_evaluate, items)


def _run_cpu_all(items: Sequence[Any]) -> list[tuple[str, Any]]:
    """Every node in one model, compiled and run once; where that fails, one by one."""
    ov = _ov()
    outputs, parameters, feeds, counts = [], [], [], []
    try:
        for recipe, data, runtime in items:
            node = _build(recipe)
            inputs = [node.input_value(i).get_node() for i in range(node.get_input_size())]
            parameters += [n for n in inputs if n.get_type_name() == "Parameter"]
            feeds += [np.array(data, order="C", copy=True), *runtime]
            outputs += [node.output(i) for i in range(node.get_output_size())]
            counts.append(node.get_output_size())
        compiled = _core().compile_model(ov.Model(outputs, parameters), "CPU")
        results = compiled(feeds)
    except RuntimeError:
        return _each(_run_cpu, items)
    arrays = [np.array(results[compiled.output(i)], copy=True) for i in range(len(outputs))]
    at = itertools.accumulate([0, *counts])
    return [("ok", arrays[a:z]) for a, z in itertools.pairwise(at)]


def _run_ir(
    xml: str, inputs: dict[str, np.ndarray], sentinel: float | None = None
) -> list[tuple[Any, Any]]:
    compiled = _core().compile_model(xml, "CPU")
    if sentinel is None:
        return _run_compiled(compiled, inputs)
    ov = _ov()
    request = compiled.create_infer_request()
    for i, output in enumerate(compiled.outputs):
        shape = output.get_partial_shape()
        if shape.is_dynamic:
            raise ValueError(
                f"run_ir: sentinel={sentinel!r} cannot reach output {i} of dynamic shape "
                f"{shape}: the CPU plugin copies its own buffer over it"
            )
        dtype = output.get_element_type().to_dtype()
        request.set_output_tensor(i, ov.Tensor(np.full(list(shape.to_shape()), sentinel, dtype)))
    request.infer(inputs)
    arrays = [request.get_output_tensor(i).data for i in range(len(compiled.outputs))]
    return _named(compiled, arrays)


def _run_ir_each(xml: str, inputs: Sequence[dict[str, np.ndarray]]) -> list[Any]:
    compiled = _core().compile_model(xml, "CPU")
    return [_run_compiled(compiled, one) for one in inputs]


def _run_compiled(compiled: Any, inputs: dict[str, np.ndarray]) -> list[tuple[Any, Any]]:
    results = compiled(inputs)
    return _named(compiled, [results[output] for output in compiled.outputs])


def _named(compiled: Any, arrays: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Each output's name (None where it has none) and a copy of its array."""
    named = []
    for output, array in zip(compiled.outputs, arrays, strict=True):
        try:
            name = output.get_any_name()
        except RuntimeError:  # an output without a name
            name = None
        named.append((name, np.array(array, copy=True)))
    return named


def _evaluate_ir(xml: str, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    return _evaluate_model(_core().read_model(xml), inputs)


def _evaluate_ir_each(xml: str, inputs: Sequence[dict[str, np.ndarray]]) -> list[Any]:
    model = _core().read_model(xml)
    return [_evaluate_model(model, one) for one in inputs]


def _read_ir_texts(xmls: Sequence[str]) -> list[str | None]:
    ov = _ov()
    weights = ov.Tensor(ov.Type.u8, [0])
    errors: list[str | None] = []
    for xml in xmls:
        try:
            _core().read_model(model=xml, weights=weights)
            errors.append(None)
        except RuntimeError as exc:
            errors.append(str(exc))
    return errors


def _evaluate_model(model: Any, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    ov = _ov()
    tensors = [ov.Tensor(np.array(inputs[p.get_any_name()], order="C")) for p in model.inputs]
    outputs = [ov.Tensor(o.get_element_type(), ov.Shape([])) for o in model.outputs]
    if not model.evaluate(outputs, tensors):
        raise RuntimeError("Model.evaluate returned False")
    return [np.array(t.data, copy=True).reshape(tuple(t.shape)) for t in outputs]


def _serve() -> None:
    """The worker's loop: one request, one reply, until the test process closes the pipe."""
    # Replies go to a copy of file descriptor 1; 1 itself goes to stderr, so that nothing
    # OpenVINO prints can corrupt them.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for pytest, which then closes stdin
    # `import openvino` starts its telemetry, which forks a sender from a thread; a fork taken
    # while this thread holds a lock can hang forever, holding the reply pipe. OpenVINO falls
    # back to a stub where the package cannot be imported.
    sys.modules["openvino_telemetry"] = None  # type: ignore[assignment]
    _ov()
    requests = sys.stdin.buffer
    handlers: dict[str, Callable[..., Any]] = {
        "evaluate": _evaluate,
        "run_cpu": _run_cpu,
        "run_cpu_each": _run_cpu_each,
        "run_ir": _run_ir,
        "evaluate_ir": _evaluate_ir,
        "run_ir_each": _run_ir_each,
        "evaluate_ir_each": _evaluate_ir_each,
        "evaluate_all": _evaluate_all,
        "cpu_all": _run_cpu_all,
        "read_ir_texts": _read_ir_texts,
    }
    while True:
        try:
            kind, args = pickle.load(requests)
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", handlers[kind](*args))
        except RuntimeError as exc:
            reply = ("error", str(exc))
        except Exception as exc:  # noqa: BLE001 (raised again in the test that called)
            reply = ("raise", (exc, traceback.format_exc()))
        try:
            reply_bytes = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 (an exception that does not pickle: its text then)
            reply_bytes = pickle.dumps(("raise", (RuntimeError(reply[1][1]), reply[1][1])))
        replies.write(reply_bytes)
        replies.flush()


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    _serve()
