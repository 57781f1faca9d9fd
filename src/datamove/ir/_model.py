"""``read_model`` and ``Model``: check an IR graph's shapes, and run it on arrays."""

from __future__ import annotations

import copy
import io
import itertools
import math
import os
import threading
import weakref
from collections import Counter
from collections.abc import (
    Callable,
    Container,
    Hashable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any, Final, NamedTuple, NoReturn, cast

import numpy as np

from datamove._backends import prepare, traced
from datamove._backends._copy import PARALLEL_MIN_BYTES
from datamove._backends._foreign import DASK_UNKNOWN_CHUNKS
from datamove._concat import concat, infer_concat
from datamove._errors import DTypeError, ValidationError, a_kind, plural
from datamove._files import open_regular, read_exactly
from datamove._memo import keep
from datamove._shape import Dimension, PartialShape, as_partial_shape
from datamove.ir._bounds import (
    BOUNDERS,
    ELEMENTWISE,
    bound_layer,
    elementwise,
    meet,
    moved,
    reshaped,
)
from datamove.ir._cpu import KIND as CPU_NOTE
from datamove.ir._cpu import Seen, cpu_notes
from datamove.ir._errors import (
    InputTypeError,
    IRError,
    MissingInputError,
    UnsupportedOperatorError,
    where,
)
from datamove.ir._fold import (
    FOLDERS,
    TYPE_ATTRIBUTES,
    attribute_refusal,
    attribute_type,
    fold_failure,
    opset_number,
)
from datamove.ir._graph import (
    Graph,
    Layer,
    Port,
    gc_paused,
    parse_graph,
    parse_shape_attr,
    split_names,
)
from datamove.ir._offsets import IR_KINDS as LINKED
from datamove.ir._offsets import Link, link_of, linked
from datamove.ir._ops import (
    LAYER_OPS,
    SMALL,
    Context,
    Info,
    Join,
    Layout,
    Method,
    Planner,
    Runner,
    check_input_count,
    const_layout,
    data_ports,
    extension_note,
    is_opaque,
    runner,
    shape_planner,
    unsupported_reason,
)
from datamove.ir._opsets import most_outputs
from datamove.ir._sizes import witness_shapes
from datamove.ir._types import ELEMENT_TYPES, PRECISIONS, ElementType, decode

INT64: Final = ELEMENT_TYPES["i64"]

__all__ = ["CheckReport", "Model", "Problem", "ShapePlanInfo", "given_shapes", "read_model"]

_CONST_KEYS: Final = ("offset", "size", "shape", "element_type")  # what makes a Const's value
_SHAPE_PLANS_MAX: Final = 64  # input shapes remembered per model (all dropped when full)
_WITNESS_RUNS: Final = 32  # model input shapes tried for a witness (each a whole inference)
_WITNESS_VALUES: Final = 8  # the smallest integer constants whose breakpoints are tried


class ShapePlanInfo(NamedTuple):
    """What :meth:`Model.shape_plan_info` reports, as ``functools.lru_cache``'s ``cache_info``."""

    shapes: int  # input shapes and dtypes remembered
    planned: int  # of those, the ones run by a shape plan (from their second run)
    maxsize: int  # shapes remembered at most (all are dropped when it is reached)
    plannable: bool  # whether this model's runs can be planned at all


# Problems of check() that make OpenVINO refuse the model, so run() refuses it too. Declared dims
# and precisions that disagree with the inferred ones ("shape", "element-type") OpenVINO ignores.
_FATAL_KINDS: Final = frozenset({"unsupported", "operator", "attribute", "ports"})


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem `Model.check` found, and where: layer id, name, type and port.

    ``kind`` is one of ``"unsupported"`` (a version OpenVINO refuses: one naming no opset it
    has, or an opset without the layer's type, ``datamove.ir._opsets``; or a version datamove
    does not implement of a layer type it models; a layer of a type it does not model is
    otherwise *opaque*, not a problem),
    ``"operator"`` (an operator's rule is broken), ``"attribute"`` (a layer's attributes cannot be
    read), ``"shape"`` (a declared port shape disagrees with the inferred one, or excludes a
    shape the layer really gives), ``"element-type"`` (likewise for a port's precision) and
    ``"ports"`` (a wrong number of ports).

    ``witness``, for a declared shape that excludes one the layer gives: ``(input shape, output
    shape)``, a static shape of the layer's data input and what the port then has; running the
    layer on such an input gives that shape. ``None`` otherwise. For a Concat, whose inputs are
    all data, ``witness_inputs`` holds every input's shape (``witness[0]`` is the first's).
    Where the layer's index inputs are computed from shapes (a shape subgraph), the witness is
    found over the model's inputs instead: ``model_inputs`` holds their shapes (name -> shape),
    at which the layer's data input has ``witness[0]`` and the port ``witness[1]``.
    A *note* (`CheckReport.notes`) has kind ``"looser"``, ``"openvino-cpu"``, ``"extension"`` or
    ``"unread"`` (and, of an ONNX model, ``"shape-subgraph"``, ``"opset"`` or ``"onnxruntime"``).
    ``unit`` is what its text calls the place: ``"node"`` in an ONNX model (``node 1 'cut'
    (Slice): ...``).
    """

    kind: str
    message: str
    layer_id: str | None = None
    layer_name: str | None = None
    layer_type: str | None = None
    port: int | None = None
    witness: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    witness_inputs: tuple[tuple[int, ...], ...] | None = None
    model_inputs: dict[str, tuple[int, ...]] | None = None
    unit: str = field(default="layer", repr=False, compare=False)  # an ONNX model's: "node"

    def __str__(self) -> str:
        place = where(self.layer_id, self.layer_name, self.layer_type, self.port, self.unit)
        return f"{place}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {
            "kind": self.kind,
            "message": self.message,
            "layer_id": self.layer_id,
            "layer_name": self.layer_name,
            "layer_type": self.layer_type,
            "port": self.port,
            "witness": None
            if self.witness is None
            else {
                "input_shape": list(self.witness[0]),
                "output_shape": list(self.witness[1]),
                "input_shapes": [list(s) for s in (self.witness_inputs or (self.witness[0],))],
                "model_inputs": None
                if self.model_inputs is None
                else {n: list(s) for n, s in self.model_inputs.items()},
            },
        }


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What `Model.check` found: every problem, and every inferred input and output shape.

    Attributes
    ----------
    model : str
        The model's name (or its file name).
    layers : int
        The number of layers in the file.
    problems : tuple of Problem
        Every problem found, in graph order; none means ``ok``.
    inputs, outputs : dict
        Name -> ``(PartialShape, element type name)``, as inferred.
    checked : dict of str to int
        Layer type -> how many layers of it datamove checked (its data-movement operators:
        Split, VariadicSplit, StridedSlice, Slice, Concat, Unsqueeze, Squeeze, Reshape,
        Transpose), in the order met in the file.
        Parameter, Const and Result are in neither mapping.
    inner : dict of str to int
        Node type -> how many nodes of an ONNX model's If, Loop and Scan bodies and
        model-local functions datamove checked (Slice, Split and Concat, and the Reshape, Gather
        and sequence nodes it reads as in the graph), a function's once per distinct
        inputs a call passes (as ``explain`` lists them); in neither count above. Empty for an
        IR.
    opaque : dict of str to int
        Layer type -> how many layers of a type datamove does not model (MatMul, Add...) it took
        as the file declares them, in the order met in the file. They are not problems.
    ports : dict
        ``(layer id, port id)`` -> the inferred shape of every port.
    aliases : dict of str to tuple of str
        Input name -> its other names, which ``run`` takes too (a model converted from
        PyTorch names an input by a number, its tensor name, and by the argument's name);
        inputs without any are left out.
    unit : str
        What the report's text calls a layer: ``"node"`` for an ONNX model (its problems' too).
    notes : tuple of Problem
        Where a checked layer's port declares dims looser than datamove infers (``[?]`` where
        the shape is ``[..1]``), kind ``"looser"``; where OpenVINO's CPU plugin runs a checked
        layer otherwise than the spec (a divergence of docs/semantics.md that the file
        decides), kind ``"openvino-cpu"``, its message naming the divergence; in an ONNX model,
        where a shape-subgraph node fails at run time whatever the input sizes (a Gather index
        out of range, an integer division by zero), kind ``"shape-subgraph"``, and where it
        imports an opset newer than the installed ``onnx`` knows, kind ``"opset"``; where an
        opaque layer's version is no opset (``extension``), which OpenVINO reads only with an
        extension that registers its type there, kind ``"extension"``; where a layer no
        Result or Assign needs has a problem, which OpenVINO never meets (it does not read the
        layer), kind ``"unread"``. Not problems: ``ok`` ignores them, and `Model.run` runs.
    """

    model: str
    layers: int
    problems: tuple[Problem, ...]
    inputs: dict[str, tuple[PartialShape, str | None]]
    outputs: dict[str, tuple[PartialShape, str | None]]
    checked: dict[str, int]
    opaque: dict[str, int]
    ports: dict[tuple[str, int], PartialShape] = field(repr=False)
    notes: tuple[Problem, ...] = field(default=(), repr=False)
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    unit: str = field(default="layer", repr=False, compare=False)  # an ONNX model's: "node"
    inner: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """Whether no problem was found."""
        return not self.problems

    def __str__(self) -> str:
        lines = [f"{self.model}: {plural(self.layers, self.unit)}"]
        for n, (s, t) in self.inputs.items():
            also = f" (or {', '.join(self.aliases[n])})" if self.aliases.get(n) else ""
            lines.append(f"  input  {n}{also}: {s} {t or '?'}")
        lines += [f"  output {n}: {s} {t or '?'}" for n, (s, t) in self.outputs.items()]
        lines.append(self.summary())
        if self.ok:
            lines.append("OK: no problems found")
        else:
            lines.append(f"{plural(len(self.problems), 'problem')}:")
            lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)

    def summary(self) -> str:
        """What was checked and what taken as declared, by layer type, on one line.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from datamove.ir._examples import write_example
        >>> path = write_example(pathlib.Path(tempfile.mkdtemp()))
        >>> read_model(path).check().summary()
        'checked 1 layer (VariadicSplit 1); 0 opaque'
        """

        def counts(by_type: dict[str, int]) -> str:
            listed = ", ".join(f"{t} {n}" for t, n in by_type.items())
            return f" ({listed})" if listed else ""

        n = sum(self.checked.values())
        line = f"checked {plural(n, self.unit)}{counts(self.checked)}"
        if self.inner:
            line += f" and {sum(self.inner.values())} in functions and bodies{counts(self.inner)}"
        return f"{line}; {sum(self.opaque.values())} opaque{counts(self.opaque)}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {
            "model": self.model,
            "layers": self.layers,
            "ok": self.ok,
            "checked": dict(self.checked),
            "checked_in_functions_and_bodies": dict(self.inner),
            "opaque": dict(self.opaque),
            "inputs": {
                n: {"shape": str(s), "element_type": t, "aliases": list(self.aliases.get(n, ()))}
                for n, (s, t) in self.inputs.items()
            },
            "outputs": {
                n: {"shape": str(s), "element_type": t} for n, (s, t) in self.outputs.items()
            },
            "problems": [p.to_dict() for p in self.problems],
            "notes": [p.to_dict() for p in self.notes],
        }


def input_list(inputs: Iterable[str], others: Mapping[str, tuple[str, ...]]) -> str:
    """``'30' (or 'x'), 'y'``: each input's name, and its ``others`` (`Model._other_names`)."""
    return ", ".join(
        repr(n) + (f" (or {', '.join(map(repr, others[n]))})" if n in others else "")
        for n in inputs
    )


def _no_input(
    error: Callable[..., ValidationError],
    argument: str,
    value: Any,
    inputs: Iterable[str],
    others: Mapping[str, tuple[str, ...]],
) -> ValidationError:
    """The error (``IRError``, ``ONNXError``) for ``argument``, whose name is no input's.

    ``argument`` is ``inputs['y']`` or ``input_shapes['y']``; ``value`` what the caller gave
    under that name; the hint lists ``inputs`` and their ``others`` (each name taken).
    """
    hint = "its inputs are " + input_list(inputs, others)
    return error(argument, value, "names no input of this model", hint=hint)


def given_shapes(
    input_shapes: Any,
    known: Container[str],
    inputs: Iterable[str],
    error: Callable[..., ValidationError],
    others: Mapping[str, tuple[str, ...]] | None = None,
) -> Iterator[tuple[str, Any]]:
    """Each ``(name, shape)`` of `Model.check`'s ``input_shapes``, its name one of ``known``."""
    if input_shapes is not None and not isinstance(input_shapes, Mapping):
        rule = f"must be a mapping of input names to shapes, not {a_kind(input_shapes)}"
        raise error("input_shapes", input_shapes, rule)
    for name, shape in (input_shapes or {}).items():
        if name not in known:
            raise _no_input(error, f"input_shapes[{name!r}]", shape, inputs, others or {})
        yield name, shape


def _refuse(problem: Problem, others: int) -> NoReturn:
    """Refuse to run for ``problem``, ``others`` more problems of the model said in the hint."""
    raise IRError(
        None,
        None,
        f"cannot run: {problem.message}",
        layer_id=problem.layer_id,
        layer_name=problem.layer_name,
        layer_type=problem.layer_type,
        port=problem.port,
        hint=f"{others} more problem(s): Model.check() lists them all" if others else None,
    )


def _problem(layer: Layer, kind: str, rule: str, port: int | None = None, **found: Any) -> Problem:
    """A `Problem` of ``layer`` (``found``: the witness fields, where one was found)."""
    return Problem(kind, rule, layer.id, layer.name, layer.type, port, **found)


def _attribute_text(exc: IRError) -> str:
    """An attribute problem's message: the error's without "IR: <the layer>: "."""
    return str(ValidationError("", exc.argument, exc.value, exc.rule, hint=exc.hint))


def _moved_or_bound(layer: Layer, ins: list[Info]) -> Info | None:
    """A view layer's value or bounds (`bound_layer`), else its shape (`reshaped`, `moved`)."""
    return bound_layer(layer, ins) or reshaped(layer, ins) or moved(layer, ins)


def _sum_i64(kind: str, out: Info) -> bool:
    """Whether an Add or Subtract gives i64 (of one element where its inputs are each one)."""
    return kind in ("Add", "Subtract") and out.etype == INT64


def _one_i64(info: Info) -> bool:
    """Whether a port is one i64 element (`datamove.ir._offsets` links those)."""
    shape = info.shape
    return info.etype == INT64 and shape.is_static and math.prod(shape.to_shape()) == 1


def _declared(port: Port) -> PartialShape:
    """The shape a port declares; no ``<dim>`` may mean a scalar or (from OpenVINO) any rank."""
    return port.shape if port.has_dims else PartialShape(None)


def _agrees(port: Port, inferred: PartialShape) -> bool:
    if not port.has_dims:
        return inferred.rank in (0, None)
    return port.shape.compatible(inferred)


def _precision_clash(port: Port, etype: ElementType | None) -> str | None:
    """Why ``port``'s declared precision is not ``etype``; ``None`` where it is, or is unknown."""
    declared = PRECISIONS.get(port.precision or "")
    if declared is None or etype is None or declared.name == etype.name:
        return None
    return f"declares precision {port.precision}, but the element type is {etype.name}"


def _counted(layer: Layer) -> bool:
    """Whether ``layer`` is one of the data-movement layers `CheckReport.checked` counts."""
    op = LAYER_OPS.get(layer.type)
    return op is not None and op.counted


def _dims(shape: tuple[int, ...]) -> str:
    return f"[{','.join(map(str, shape))}]"


def _integers(infos: Iterable[Info | None]) -> list[int]:
    """Every value of the integer constants among ``infos``."""
    return [
        int(v)
        for info in infos
        if info is not None and info.value is not None and info.value.dtype.kind in "iu"
        for v in info.value.reshape(-1)
    ]


def _witnesses(
    layer: Layer, ins: list[Info], outputs: list[int]
) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """For each of ``outputs`` whose declared dims exclude a shape the layer gives, a witness.

    A witness is ``(data shape, output shape)``: the first found of `witness_shapes` (the sizes
    at which slicing can change form, smallest first) at which the layer's own plan gives an
    output the port's declared dims do not hold. The data shape is one the layer's data input
    port itself declares possible: an output excluded only because the file's input is (a
    layer after one whose declared dims are too narrow) is that earlier layer's problem.
    Layers without such a plan (index inputs known only at run time), a data input of dynamic
    rank (no static shape of it to try) and Concat (its plan joins: `_concat_witness`) have none.
    """
    if not outputs or not ins or ins[0].shape.rank is None:  # no static shape to try
        return {}
    planner = shape_planner(layer, [None, *(info.value for info in ins[1:])])
    if planner is None:
        return {}
    values = _integers(ins[1:])
    found: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    whole = np.empty((), dtype=bool)
    data = layer.inputs[0] if layer.inputs else None
    for dims in witness_shapes(ins[0].shape, values):
        if data is not None and data.has_dims and dims not in data.shape:
            continue
        try:
            takes = planner(dims)
            view = np.broadcast_to(whole, dims)
        except (ValidationError, ValueError):  # the layer fails there, or NumPy cannot hold it
            continue
        for k in outputs:
            take = takes[k] if k < len(takes) else None
            if k in found or take is None or type(take) is Join:
                continue
            # a Method is a Transpose's here (a Reshape's outputs are related: no witness)
            got = tuple(
                (getattr(view, take.name)(take.arg) if type(take) is Method else view[take]).shape
            )
            if got not in layer.outputs[k].shape:
                found[k] = (dims, got)
        if len(found) == len(outputs):
            break
    return found


def _concat_witness(
    layer: Layer, ins: list[Info]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]] | None:
    """Static input shapes at which a Concat gives an output its declared dims exclude.

    Each input's shape is one its own input port declares possible (and inference allows).
    Along the axis the output is the sum of the inputs' sizes, every sum between the smallest
    and the largest; off it, every size all inputs allow. So the first output dim whose range
    the declared dim does not hold gives a witness: its smallest excluded size, the axis sizes
    from their minimums up, the other dims at their smallest common size. ``None`` where none.
    """
    # Called on a Concat inferred and narrowed (`_infer`): so one input or more, all of the
    # declared output's rank (an input of dynamic rank takes it, each dim any size), and an
    # axis that int_attr reads and that is in range.
    declared = layer.outputs[0].shape
    rank = declared.rank or 0
    shapes: list[list[Dimension]] = []
    for info, port in zip(ins, layer.inputs, strict=False):
        dims = list(info.shape.dims) if info.shape.rank is not None else [Dimension()] * rank
        if port.has_dims and port.shape.rank == len(dims):
            met = [meet(d, p) for d, p in zip(dims, port.shape.dims, strict=True)]
            dims = [d for d in met if d is not None]
            if len(dims) < len(met):
                return None
        shapes.append(dims)
    axis = layer.int_attr("axis")
    a = axis + rank if axis < 0 else axis
    try:  # the output's sizes, by Concat's own rule; none where the inputs cannot meet off it
        joined = infer_concat([PartialShape(s) for s in shapes], axis)
    except ValidationError:
        return None
    ranges = [(d.min, d.max) for d in joined.dims]
    for k, (lo, hi) in enumerate(ranges):
        d = declared[k]
        if lo not in d:
            v = lo
        elif d.max is not None and (hi is None or hi > d.max):
            v = d.max + 1
        else:
            continue
        sizes = [s[a].min for s in shapes]
        if k == a:  # the sum v: each input from its minimum up to its maximum
            left = v - sum(sizes)
            for j, s in enumerate(shapes):
                top = s[a].max
                add = left if top is None else min(left, top - sizes[j])
                sizes[j] += add
                left -= add
        common = [v if j == k else ranges[j][0] for j in range(rank)]
        given = tuple(
            tuple(sizes[i] if j == a else common[j] for j in range(rank))
            for i in range(len(shapes))
        )
        out = tuple(sum(sizes) if j == a else common[j] for j in range(rank))
        return given, out
    return None


def _declared_str(port: Port) -> str:
    return str(port.shape) if port.has_dims else "[] (no dims)"


class _BinFile:
    """A model's ``.bin``, read with ordinary reads (`datamove._files`), never memory-mapped.

    A model with a Const opens it at `read_model` and keeps it open, as OpenVINO keeps the
    weights it read: a ``.bin`` replaced later (``save_model`` onto the same path) is not read.
    One cut short since `read_model` is an `IRError` naming the Const, where a memory map would
    die of ``SIGBUS``. Where it cannot be opened then, the first Const that needs it tries again
    and names the reason; a FIFO is refused, never waited on.
    """

    def __init__(self, path: Path, *, now: bool = False) -> None:
        self.path = path
        self._file: io.FileIO | None = None
        self._lock = threading.Lock()  # one read at a time (a new one in a forked child)
        _BIN_FILES.add(self)
        if now:
            try:
                self._file, _ = open_regular(path, lambda rule: IRError("bin_path", None, rule))
            except IRError:
                return  # missing, not a file, unreadable: said by the first Const that reads
            weakref.finalize(self, self._file.close)

    def read(self, layer: Layer, start: int, stop: int) -> np.ndarray[Any, Any]:
        """Bytes ``start:stop`` of the file, for the Const ``layer``."""

        def error(rule: str) -> IRError:
            return layer.error(
                None,
                None,
                f"reads weights, but the .bin file {os.fspath(self.path)!r} {rule}",
                hint="pass bin_path= (--bin) naming the model's .bin file",
            )

        data = np.empty(stop - start, np.uint8)
        with self._lock:
            if self._file is None:
                self._file, _ = open_regular(self.path, error)
                weakref.finalize(self, self._file.close)
            read_exactly(self._file, data.data, start, error)
        return data


_BIN_FILES: Final[weakref.WeakSet[_BinFile]] = weakref.WeakSet()  # each model's, while it lives


def _after_fork_in_child() -> None:
    """Fresh ``.bin`` locks in a forked child: a parent's thread may have held one mid-read.

    That thread does not exist in the child, whose next read of the file would wait forever.
    """
    for bin_file in _BIN_FILES:
        bin_file._lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


class Model:
    """An OpenVINO IR model read by `read_model`.

    Attributes
    ----------
    name : str
        The ``<net name=...>``.
    ir_version : int
        10 or 11.
    inputs : dict
        Input name -> ``(PartialShape, element type)``, as the Parameters declare them.
    outputs : list of str
        Output names, in the order of the Result layers; `run` returns them in this order.
    """

    def __init__(self, graph: Graph) -> None:
        self._graph = graph
        self.name = graph.name
        self.ir_version = graph.version
        # Each Const's layout and value (None: not read) by its `_CONST_KEYS` texts (`_const`)
        self._consts: dict[tuple[str | None, ...], tuple[Layout, np.ndarray[Any, Any] | None]] = {}
        self._bin = _BinFile(graph.bin_path, now=any(x.type == "Const" for x in graph.layers))
        self._plan: _Plan | None = None  # the plan of all outputs
        # Output sets `run` was given (the names as passed) -> their plan (`_SHAPE_PLANS_MAX`)
        self._output_plans: dict[tuple[str, ...], _Plan] = {}
        # Input shapes and dtypes seen -> their shape plan (None: seen once, not planned yet);
        # with an output set, the key is (the names as passed, the shape key)
        self._shape_plans: dict[tuple[Any, ...], _ShapePlan | None] = {}
        # (input slots, each move's source and destination slots) -> plan code
        self._programs: dict[tuple[Any, ...], CodeType] = {}
        # A model whose shape subgraphs read dynamic dims (`_Plan.by_shape`): the inputs' shapes
        # (and the output set) -> the plan with those subgraphs folded there, or the refusal
        self._shaped: dict[tuple[Any, ...], _Plan | IRError] = {}
        layers = graph.layers
        self._params = [x for x in layers if x.type == "Parameter"]
        self._results = [x for x in layers if x.type == "Result"]
        # The layers OpenVINO's reader never builds: no Result or Assign needs them (nor are
        # they Parameters). Their problems are "unread" notes, and `run` runs past them.
        read = {x.index for x in self._params}
        todo = [x.index for x in layers if x.type in ("Result", "Assign")]
        while todo:
            if (idx := todo.pop()) not in read:
                read.add(idx)
                todo += [src for src, _ in layers[idx].sources]
        self._unread = frozenset(range(len(layers))) - read
        # The variables an Assign may write: those of the ReadValue layers OpenVINO reads, each
        # with its ReadValue's opset (an Assign-3 finds a ReadValue-3's alone).
        self._variables = {
            (x.data.get("variable_id"), opset_number(x))
            for x in layers
            if x.type == "ReadValue" and x.index in read
        }
        self._assigned = frozenset(x.data.get("variable_id") for x in layers if x.type == "Assign")
        # Each Parameter's place in _params, by layer index (a lookup, never a list search).
        self._param_of = {x.index: k for k, x in enumerate(self._params)}
        # A u1 input's values are checked on every run (0 and 1 only), so no shape plan.
        self._plannable = all(x.data.get("element_type") != "u1" for x in self._params)
        self._names, self._output_names = self._unique_names()
        self._input_aliases: dict[str, int] = {}
        self.inputs: dict[str, tuple[PartialShape, str | None]] = {}
        tensor_names = [self._tensor_names(layer.index, 0) for layer in self._params]
        for k, names in enumerate(tensor_names):  # tensor names first: they are the names
            for alias in names:
                self._input_aliases.setdefault(alias, k)
        for k, layer in enumerate(self._params):
            names = tensor_names[k]
            primary = min(names) if names else layer.name
            j = 0
            while not names and self._input_aliases.get(primary, k) != k:
                j += 1  # a nameless input, named as another: renamed as duplicates are
                primary = f"{layer.name}_{j}"
            self._input_aliases.setdefault(primary, k)
            self._input_aliases.setdefault(layer.name, k)
            try:
                shape = parse_shape_attr(layer.data.get("shape", ""), "shape", layer)
            except IRError:
                shape = _declared(layer.outputs[0]) if layer.outputs else PartialShape(None)
            self.inputs[primary] = (shape, layer.data.get("element_type"))
        self._input_names = tuple(self.inputs)  # Parameter k's name; model.inputs may be changed
        self.outputs: list[str] = [self._output_name(r) for r in self._results]
        self._output_of: dict[str, int] = {}  # each name `run`'s outputs takes -> its Result
        for k, result in enumerate(self._results):
            for name in self._result_names(result) or (result.name,):
                self._output_of.setdefault(name, k)

    # -- names ------------------------------------------------------------------------------
    def _other_names(self) -> dict[str, tuple[str, ...]]:
        """Each input's other names, which `run` takes too, by the name `inputs` gives it.

        Its tensor names and its Parameter's name, where they differ from it; inputs without
        any are left out. `check`'s report and ``datamove run``'s hints list them.
        """
        others: dict[str, tuple[str, ...]] = {}
        for alias, k in self._input_aliases.items():
            name = self._input_names[k]
            if alias != name:
                others[name] = (*others.get(name, ()), alias)
        return others

    def _file_names(self, layer_index: int, output: int) -> tuple[str, ...]:
        """The tensor names the file gives an output port (before duplicates are renamed)."""
        layer = self._graph.layers[layer_index]
        names = list(layer.outputs[output].names)
        if self.ir_version < 11:  # IR v10: the producer's name (.N when it has several outputs)
            names.append(layer.name if len(layer.outputs) == 1 else f"{layer.name}.{output}")
        return tuple(dict.fromkeys(names))

    def _unique_names(
        self,
    ) -> tuple[dict[tuple[int, int], tuple[str, ...]], dict[int, tuple[str, ...]]]:
        """Every tensor's names and every Result's output names, duplicates renamed as OpenVINO.

        OpenVINO keeps a name the first time it meets it and renames each later use to the
        first ``name_1``, ``name_2``, ... that no *other* tensor holds; it meets the Parameters'
        tensors first (in file order), then the Results' (in file order), then the others. A
        tensor may so be renamed onto a name of its own (``a,a_1`` after a Parameter ``a`` is
        just ``a_1``), and a name renamed once is renamed alike for every Result of the tensor.
        An IR v11 Result's ``output_names`` (none where empty) are its own, and they are names
        of the tensor it reads: two Results of one tensor may share them, and those of a
        Result of a Parameter name the input too (OpenVINO adds them to the Parameter's).
        """
        owner: dict[str, object] = {}  # name -> the tensor that holds it
        # name -> the next suffix to try: those below it are held by other tensors for good
        next_suffix: dict[str, int] = {}
        renamed: dict[tuple[str, object], str] = {}  # (name, tensor) -> the name it got

        def unique(names: Iterable[str], who: object) -> tuple[str, ...]:
            kept: dict[str, None] = {}
            for name in sorted(names):
                new = renamed.get((name, who))
                if new is None:
                    new, k = name, next_suffix.get(name, 1)
                    while owner.get(new, who) != who:
                        new, k = f"{name}_{k}", k + 1
                    next_suffix[name] = k
                    owner[new] = who
                    renamed[(name, who)] = new
                kept[new] = None
            return tuple(kept)

        graph = self._graph
        own: dict[int, tuple[str, ...]] = {}  # a Result's output_names, as the file gives them
        if self.ir_version >= 11:
            for result in self._results:
                names = split_names(result.attrs.get("output_names", ""))
                if names:  # an empty output_names is none: the Result shows its tensor's names
                    own[result.index] = names
        fed: dict[tuple[int, int], list[str]] = {}  # a tensor -> the output_names of its Results
        for result in self._results:
            if result.index in own and result.sources:
                fed.setdefault(result.sources[0], []).extend(own[result.index])
        tensors: dict[tuple[int, int], tuple[str, ...]] = {}
        outputs: dict[int, tuple[str, ...]] = {}
        for layer in self._params:
            for k in range(len(layer.outputs)):
                names = (*self._file_names(layer.index, k), *fed.get((layer.index, k), ()))
                tensors[(layer.index, k)] = unique(set(names), (layer.index, k))
        for result in self._results:
            source = result.sources[0] if result.sources else None
            if result.index in own:
                who = result.index if source is None else source
                outputs[result.index] = unique(own[result.index], who)
            elif source is not None:
                if source not in tensors:
                    names = (*self._file_names(*source), *fed.get(source, ()))
                    tensors[source] = unique(set(names), source)
                outputs[result.index] = tensors[source]
        for idx in graph.order:
            for k in range(len(graph.layers[idx].outputs)):
                if (idx, k) not in tensors:
                    tensors[(idx, k)] = unique(self._file_names(idx, k), (idx, k))
        return tensors, outputs

    def _tensor_names(self, layer_index: int, output: int) -> tuple[str, ...]:
        """The tensor names of an output port, as OpenVINO gives them after reading the file."""
        return self._names.get((layer_index, output), ())

    def _result_names(self, result: Layer) -> tuple[str, ...]:
        return self._output_names.get(result.index, ())

    def _output_name(self, result: Layer) -> str:
        # OpenVINO's get_any_name() is the smallest name; a nameless output gets the Result's name.
        names = self._result_names(result)
        return min(names) if names else result.name

    # -- constants --------------------------------------------------------------------------
    def _const(self, layer: Layer, *, whole: bool = False) -> Info:
        """The Const ``layer``'s port: its `const_layout`, and its value where small or ``whole``.

        The value is read where it has `SMALL` elements or fewer (for `check`), or ``whole``
        (for `run`). Checked and read once for all the Consts that write `_CONST_KEYS` alike:
        their checks and bytes are the same, and ``save_model`` writes equal constants once
        (the 10,370 small Consts of a 20,000-layer LLM are 13 values). A value is read-only,
        so shared.
        """
        key = tuple(map(layer.data.get, _CONST_KEYS))
        layout, value = self._consts.get(key) or (const_layout(layer), None)
        shape, etype = layout
        if value is None and (whole or math.prod(shape.to_shape()) <= SMALL):
            dims = shape.to_shape()
            offset = layer.extent_attr("offset")
            need = etype.nbytes(math.prod(dims))
            if need == 0:
                value = np.zeros(dims, dtype=etype.dtype)
            else:
                value = decode(self._bin.read(layer, offset, offset + need), etype, dims)
            value.flags.writeable = False
            self._consts[key] = (layout, value)
        elif value is None:
            self._consts[key] = (layout, None)
        return Info(shape, etype, value)

    def _raw_const(self, layer: Layer) -> bytes:
        offset, size = layer.extent_attr("offset"), layer.extent_attr("size")
        if size == 0:
            return b""
        return bytes(self._bin.read(layer, offset, offset + size))

    # -- check ------------------------------------------------------------------------------
    def check(self, input_shapes: Mapping[str, Any] | None = None) -> CheckReport:
        """Infer every port's shape from the inputs and report every problem found.

        Parameters
        ----------
        input_shapes : mapping of str to shape, optional
            New shapes for some inputs (``{"x": "[?,3,224,224]"}``), as OpenVINO's ``reshape``.
            When given, the dims the file declares on other ports are not compared (they describe
            the file's own input shapes); every operator rule is still checked.

        Returns
        -------
        CheckReport
            ``report.ok``, ``report.problems`` (each with layer id, name, type and port), the
            inferred input and output shapes, and how many layers of each type were checked
            (``report.checked``) or taken as declared (``report.opaque``: a layer of a type
            datamove does not model, such as MatMul, keeps the dims and element types its
            output ports declare, and the layers after it are checked with those; it is not a
            problem). ``str(report)`` is a readable report.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from datamove.ir._examples import write_example
        >>> path = write_example(pathlib.Path(tempfile.mkdtemp()))
        >>> print(read_model(path).check())
        example: 6 layers
          input  x: [2,6] f32
          output parts_a: [2,2] f32
          output parts_b: [2,4] f32
        checked 1 layer (VariadicSplit 1); 0 opaque
        OK: no problems found
        >>> report = read_model(path).check({"x": "[2,1]"})
        >>> print(report.problems[0])
        layer 3 'parts' (VariadicSplit): VariadicSplit: split_lengths=[2, -1] sum to 2 ...
        """
        overrides = self._overrides(input_shapes)
        notes: list[Problem] = []
        unresolved: list[tuple[int, int]] = []
        infos, problems, ports = self._infer(
            overrides, compare=not overrides, notes=notes, unresolved=unresolved
        )
        if unresolved:
            problems += self._model_witnesses(infos, unresolved)
        layers = self._graph.layers
        opaque = dict(Counter(x.type for x in layers if is_opaque(x)))
        checked = dict(Counter(x.type for x in layers if _counted(x) and not unsupported_reason(x)))
        inputs = {}
        for name, p in zip(self._input_names, self._params, strict=True):
            found = infos.get((p.index, 0))
            inputs[name] = (
                (found.shape, found.etype.name if found.etype else None)
                if found
                else self.inputs[name]
            )
        outputs = {}
        for name, r in zip(self.outputs, self._results, strict=True):
            info = infos[r.sources[0]] if r.sources else Info(PartialShape(None), None)
            outputs[name] = (info.shape, info.etype.name if info.etype else None)
        return CheckReport(
            self.name or os.fspath(self._graph.xml_path.name),
            len(self._graph.layers),
            tuple(problems),
            inputs,
            outputs,
            checked,
            opaque,
            ports,
            tuple(notes),
            self._other_names(),
        )

    @gc_paused()  # it allocates an Info or two per port, none of it garbage
    def _infer(
        self,
        overrides: Mapping[int, PartialShape],
        *,
        compare: bool,
        notes: list[Problem] | None = None,
        unresolved: list[tuple[int, int]] | None = None,
        offsets: dict[Hashable, Link] | None = None,
    ) -> tuple[dict[tuple[int, int], Info], list[Problem], dict[tuple[str, int], PartialShape]]:
        """Infer every port from the Parameters; every problem found, in graph order.

        The one validation of a model: `check` reports its problems, and `run` refuses a model
        with any of kind ``_FATAL_KINDS`` before it runs anything. With ``compare``, ``notes``
        (if given) gets the ports that declare dims looser than the inferred ones (and, compared
        or not, the layers OpenVINO's CPU plugin runs wrong: `datamove.ir._cpu`), and
        ``unresolved`` (if given) the ``(layer index, output)`` of those whose declared dims
        exclude part of the inferred ones where the layer alone gives no witness (an index
        input known by its bounds only): `_model_witnesses` searches the model's inputs.
        ``offsets`` (if given) gets the link of each one-element value that is another's plus a
        constant, by port (`datamove.ir._offsets`): the ones a Slice's bound reads.
        """
        graph = self._graph
        infos: dict[tuple[int, int], Info] = {}
        problems: list[Problem] = []
        ports: dict[tuple[str, int], PartialShape] = {}
        links = {} if offsets is None else offsets  # one-element values that are another's plus c

        def report(
            layer: Layer, kind: str, rule: str, port: int | None = None, **found: Any
        ) -> None:
            if layer.index not in self._unread:
                problems.append(_problem(layer, kind, rule, port, **found))
            elif notes is not None:
                text = f"feeds no Result or Assign, so OpenVINO does not read it: {rule}"
                notes.append(_problem(layer, "unread", text, port))

        def feeder(x: Layer, k: int) -> tuple[Layer, Info]:
            return graph.layers[x.sources[k][0]], infos[x.sources[k]]

        # Ports whose shape is not free over its dims: taken as the file declares it where not
        # static (an opaque layer's output: -1 where OpenVINO knew an interval) or computed past
        # a data Reshape (`reshaped`: OpenVINO relates it to the dims it came from), and the
        # checked layers' outputs past them. Only the model's inputs give witnesses there.
        related: set[tuple[int, int]] = set()
        # New input shapes: OpenVINO infers the graph again, so its declared ports are not that
        new_shapes = any(
            shape != _declared(graph.layers[idx].outputs[0]) for idx, shape in overrides.items()
        )
        inputs_seen = "declared"  # the model's input shapes, as the CPU notes see them
        if new_shapes:
            now = [
                overrides.get(p.index, _declared(p.outputs[0]) if p.outputs else PartialShape(None))
                for p in self._params
            ]
            inputs_seen = "static" if all(shape.is_static for shape in now) else "dynamic"

        for idx in graph.order:
            layer = graph.layers[idx]
            ins = [infos[s] for s in layer.sources]
            outs: list[Info] | None = None
            count = None  # the operator's number of outputs, where known
            seen_out = None  # output 0 as the CPU notes see it (`datamove.ir._cpu`)
            reason = unsupported_reason(layer)
            if reason is not None:
                report(layer, "unsupported", reason)
            elif (refused := attribute_refusal(layer, self._variables)) is not None:
                report(layer, "attribute", _attribute_text(refused))
            elif not is_opaque(layer):  # an opaque layer keeps its declared outputs
                try:
                    check_input_count(layer, len(ins))
                    op = LAYER_OPS[layer.type]
                    count = op.output_count(layer, ins) if op.output_count else None
                    if count in (None, len(layer.outputs)):  # never infer 10**8 num_splits
                        context = Context(
                            overrides.get(idx),
                            self._const,
                            new_shapes,
                            _moved_or_bound,
                            tuple(link_of(links, s) for s in layer.sources)
                            if layer.type in ("Slice", "StridedSlice")
                            else (),
                        )
                        outs = op.infer(layer, ins, context)
                        count = len(outs)
                except IRError as exc:
                    report(layer, "attribute", _attribute_text(exc), exc.port)
                except ValidationError as exc:
                    report(layer, "operator", str(exc))
                seen_out = outs[0].shape if outs else None
            elif layer.outputs:  # an opaque layer: as declared
                seen_out = _declared(layer.outputs[0])
                spelt = layer.attrs.get("type", layer.type)
                most = most_outputs(spelt, layer.version)
                if most is not None and len(layer.outputs) > most:
                    rule = f"declares {len(layer.outputs)} output port(s), but {spelt} has"
                    report(layer, "ports", f"{rule} {most}, so OpenVINO refuses the file")
            if notes is not None and reason is None and (needs := extension_note(layer)):
                notes.append(_problem(layer, "extension", needs))
            if notes is not None and seen_out is not None:  # where the CPU plugin runs it wrong
                seen = Seen(layer, ins, seen_out, feeder, self._assigned, inputs_seen)
                notes += [_problem(layer, CPU_NOTE, text) for text in cpu_notes(seen)]
            if count is not None and count != len(layer.outputs):
                rule = f"declares {len(layer.outputs)} output port(s), but the operator has {count}"
                report(layer, "ports", rule)
            folded = shaped = dims_moved = None
            if reason is None and is_opaque(layer):  # a shape subgraph's value, or the shape
                folded = (  # of a data Reshape, Unsqueeze, Squeeze, Transpose or Gather
                    bound_layer(layer, ins)
                    or (shaped := reshaped(layer, ins))
                    or (dims_moved := moved(layer, ins))
                )
                if folded is None and (computed := elementwise(layer, ins)) is not None:
                    folded, free = computed  # an element-wise layer's, or a MatMul's
                    if free:
                        dims_moved = folded
                    else:
                        shaped = folded
                if dims_moved is not None and layer.sources[0] in related:
                    shaped = dims_moved  # its input's dims moved: related where they are
            if outs is not None and (
                not LAYER_OPS[layer.type].free or any(s in related for s in layer.sources)
            ):
                # a checked layer of any input computed past one (a Concat's second too), or
                # whose dims are products of its input's (a Reshape)
                related.update((idx, k) for k in range(len(outs)))
            narrow: list[int] = []  # outputs whose declared dims may exclude real ones
            for k, port in enumerate(layer.outputs):
                etype = PRECISIONS.get(port.precision or "")
                if reason is None and is_opaque(layer):  # OpenVINO's type, not the port's
                    inferred = folded.etype if folded is not None else None
                    etype = attribute_type(layer, k) or inferred or etype
                declared = fallback = Info(_declared(port), etype)
                if folded is not None and (not compare or _agrees(port, folded.shape)):
                    fallback = folded  # a shape subgraph's value (docs/ir.md)
                checked = outs is not None and k < len(outs)
                info = outs[k] if outs is not None and checked else fallback
                if info is shaped or (info is declared and not info.shape.is_static):
                    related.add((idx, k))
                infos[(idx, k)] = info
                ports[(layer.id, port.id)] = info.shape
                if checked and compare and not _agrees(port, info.shape):
                    report(
                        layer,
                        "shape",
                        f"declares {_declared_str(port)}, but the shape is {info.shape}",
                        port.id,
                    )
                elif checked and compare and port.has_dims and port.shape.rank == info.shape.rank:
                    pairs = list(zip(port.shape.dims, info.shape.dims, strict=True))
                    if not all(mine in theirs for theirs, mine in pairs):
                        narrow.append(k)
                    elif notes is not None and port.shape != info.shape and _counted(layer):
                        rule = f"declares {port.shape}; datamove infers {info.shape}"
                        notes.append(_problem(layer, "looser", rule, port.id))
                clash = _precision_clash(port, info.etype)
                if clash:
                    report(layer, "element-type", clash, port.id)
            out = infos.get((idx, 0)) if layer.type in LINKED and reason is None else None
            if out is not None and len(layer.outputs) == 1 and out.value is None:
                link = linked(
                    layer.type,
                    layer.sources,
                    [i.value for i in ins],
                    [_one_i64(i) or s in links for i, s in zip(ins, layer.sources, strict=True)],
                    links,
                )
                if link is not None and (_one_i64(out) or _sum_i64(layer.type, out)):
                    links[(idx, 0)] = link
            witnessed = {} if (idx, 0) in related else _witnesses(layer, ins, narrow)
            for k, (given, got) in witnessed.items():
                port = layer.outputs[k]
                report(
                    layer,
                    "shape",
                    f"declares {port.shape}, but data of shape {_dims(given)} gives "
                    f"{_dims(got)} (the shape is {infos[(idx, k)].shape})",
                    port.id,
                    witness=(given, got),
                )
            concat = layer.type == "Concat" and narrow and (idx, 0) not in related
            found = _concat_witness(layer, ins) if concat else None
            if unresolved is not None:  # left to a search over the model's input shapes
                unresolved += [(idx, k) for k in narrow if k not in witnessed and found is None]
            if found is not None:
                given_all, got = found
                port = layer.outputs[0]
                shapes = ", ".join(map(_dims, given_all))
                report(
                    layer,
                    "shape",
                    f"declares {port.shape}, but inputs of shapes {shapes} give "
                    f"{_dims(got)} (the shape is {infos[(idx, 0)].shape})",
                    port.id,
                    witness=(given_all[0], got),
                    witness_inputs=given_all,
                )
            for k, port in enumerate(layer.inputs):
                info = ins[k]
                ports[(layer.id, port.id)] = info.shape
                src_layer, src_out = layer.sources[k]
                src_port = graph.layers[src_layer].outputs[src_out]
                same_as_src = src_port.has_dims == port.has_dims and src_port.shape == port.shape
                if (
                    compare
                    and not _agrees(port, info.shape)
                    and (same_as_src is False or _agrees(src_port, info.shape))
                ):
                    report(
                        layer,
                        "shape",
                        f"declares {_declared_str(port)}, but its input is {info.shape}",
                        port.id,
                    )
        return infos, problems, ports

    def _model_witnesses(
        self, infos: dict[tuple[int, int], Info], unresolved: list[tuple[int, int]]
    ) -> list[Problem]:
        """Witnesses for declared dims that exclude a shape, found over the model's inputs.

        Where a layer's index inputs are known by their bounds only (computed from shapes by a
        shape subgraph), no shape of its data input alone is a witness. Static shapes of the
        model's inputs are tried instead (`witness_shapes` of each input, at the breakpoints of
        the model's smallest integer constants; `_WITNESS_RUNS` at most), each inferred
        exactly: a port whose static shape there lies outside its declared dims is a ``shape``
        problem, with the inputs' shapes (`Problem.model_inputs`). Shapes at which any layer
        breaks an operator's rule are skipped, and so is a port whose layer's data input there
        has a shape its input port declares impossible (as in `_witnesses`).
        """
        consts = [infos.get((x.index, 0)) for x in self._graph.layers if x.type == "Const"]
        values = sorted({abs(v) for v in _integers(consts) if abs(v) < 2**20})[:_WITNESS_VALUES]
        names = self._input_names
        candidates: list[list[tuple[int, ...]]] = []
        for p in self._params:
            shape = infos[(p.index, 0)].shape
            if shape.rank is None:
                return []
            candidates.append(list(itertools.islice(witness_shapes(shape, values), _WITNESS_RUNS)))
        found: list[Problem] = []
        left = dict.fromkeys(unresolved)
        for run in range(max((len(c) for c in candidates), default=0)):
            if not left:
                break
            shapes = {
                n: c[min(run, len(c) - 1)] for n, c in zip(names, candidates, strict=True) if c
            }
            overrides = {
                self._params[self._input_aliases[n]].index: PartialShape(list(d))
                for n, d in shapes.items()
            }
            exact, problems, _ = self._infer(overrides, compare=False)
            if any(p.kind in _FATAL_KINDS for p in problems):
                continue
            for idx, k in list(left):
                layer = self._graph.layers[idx]
                port, shape = layer.outputs[k], exact[(idx, k)].shape
                if not shape.is_static or shape.to_shape() in port.shape:
                    continue
                data = exact[layer.sources[0]].shape if layer.sources else PartialShape(None)
                given = data.to_shape() if data.is_static else ()
                into = layer.inputs[0] if layer.inputs else None
                if into is not None and into.has_dims and given not in into.shape:
                    continue  # the data its input declares impossible: an earlier layer's problem
                del left[(idx, k)]
                inputs = _shapes_text(shapes)
                got = shape.to_shape()
                rule = (
                    f"declares {port.shape}, but with input {inputs} it gives "
                    f"{_dims(got)} (the shape is {infos[(idx, k)].shape})"
                )
                found.append(
                    _problem(
                        layer, "shape", rule, port.id, witness=(given, got), model_inputs=shapes
                    )
                )
        return found

    # -- run --------------------------------------------------------------------------------
    def _needs(
        self, known: Container[int], results: Iterable[Layer] | None = None
    ) -> dict[int, Layer]:
        """Each layer an output needs (by index) -> the first Result, in file order, needing it.

        Only the outputs of ``results`` (default: all). A layer in ``known`` (its values taken
        as constants) needs none of its sources.
        """
        layers = self._graph.layers
        needs: dict[int, Layer] = {}
        for result in self._results if results is None else results:
            todo = [result.index]
            while todo:
                idx = todo.pop()
                if idx not in needs:
                    needs[idx] = result
                    if idx not in known:
                        todo.extend(src for src, _ in layers[idx].sources if src not in needs)
        return needs

    def _folded(
        self, infos: Mapping[tuple[int, int], Info]
    ) -> dict[int, list[np.ndarray[Any, Any]]]:
        """The opaque layers whose every output a shape subgraph folds to one value.

        ``infos`` is `_infer` from the declared inputs, which `run` requires its inputs to fit:
        each such value (exact, never guessed: docs/ir.md, Shape subgraphs) is the one OpenVINO
        computes on every input `run` accepts, so `run` takes it as a constant, read-only.
        """
        graph = self._graph
        folded: dict[int, list[np.ndarray[Any, Any]]] = {}
        for idx in graph.order:
            layer = graph.layers[idx]
            if layer.type == "Parameter" or not is_opaque(layer) or not layer.outputs:
                continue
            values = [infos[(idx, k)].value for k in range(len(layer.outputs))]
            if all(v is not None for v in values):
                folded[idx] = [_read_only(v) for v in values if v is not None]
        return folded

    def _by_shape(self, folded: Container[int]) -> set[int]:
        """The opaque layers, not in ``folded``, whose value follows from the input shapes alone.

        A ShapeOf (of any layer), and a layer a shape subgraph folds (`FOLDERS`, `BOUNDERS`)
        all of whose inputs are constants, ``folded`` or such values (a checked layer, a Concat
        of them, included). Their value is not known on every input the declared shapes allow
        (a dynamic dim), but at the shapes of one run it may be: `run` folds them there.
        """
        graph = self._graph
        known: set[int] = set()
        shaped: set[int] = set()
        for idx in graph.order:
            layer = graph.layers[idx]
            if layer.type == "Const" or idx in folded:
                known.add(idx)
            elif layer.type == "Parameter" or unsupported_reason(layer) or not layer.outputs:
                continue
            elif is_opaque(layer):
                foldable = layer.type in FOLDERS or layer.type in BOUNDERS
                if layer.type == "ShapeOf" or (
                    foldable and all(s in known for s, _ in layer.sources)
                ):
                    known.add(idx)
                    shaped.add(idx)
            elif all(s in known for s, _ in layer.sources):
                known.add(idx)
        return shaped

    def _build_plan(
        self,
        shapes: Mapping[int, tuple[int, ...]] | None = None,
        shaped: frozenset[int] = frozenset(),
        chosen: tuple[tuple[str, int], ...] | None = None,
    ) -> _Plan:
        """The plan of a run: each step, and the constants (a Const's, a folded subgraph's).

        Without ``shapes``, for every input the declared shapes allow; a plan whose shape
        subgraphs read dynamic dims is then ``by_shape``, and `_shaped_plan` makes one with
        ``shapes`` (Parameter index -> the shape of a run's input) for each run's shapes, where
        every layer of ``shaped`` (that plan's ``by_shape``) must fold. ``chosen``: the outputs
        to run, each ``(name as passed, index in _results)`` (`_chosen`); default: all.
        """
        graph = self._graph
        overrides = {} if shapes is None else {i: PartialShape(list(d)) for i, d in shapes.items()}
        infos, problems, _ = self._infer(overrides, compare=False)
        folded = self._folded(infos)
        if shapes is None:
            shaped = frozenset(self._by_shape(folded))
        results = None if chosen is None else [self._results[k] for _, k in chosen]
        # a shaped layer that did not fold is named
        needs = self._needs(folded.keys() | shaped, results)
        fatal = [p for p in problems if p.kind in _FATAL_KINDS]
        if shapes is not None:  # at a run's shapes: the layers it runs (all were checked)
            ids = {graph.layers[i].id for i in needs}
            fatal = [p for p in fatal if p.layer_id in ids]
        faults = [p for p in fatal if p.kind != "unsupported"]
        if faults and shapes is None:  # the file's problems, before what datamove does not run
            _refuse(faults[0], len(fatal) - 1)
        bad = [x for x in graph.layers if x.index not in self._unread and unsupported_reason(x)]
        if bad:
            first = bad[0]
            listed = "; ".join(f"{where(x.id, x.name, x.type, None)}" for x in bad[:5])
            more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
            raise first.error(
                None,
                None,
                f"cannot run: {plural(len(bad), 'unsupported layer')}: {listed}{more}",
                cls=UnsupportedOperatorError,
                hint=unsupported_reason(first),
            )
        opaque = [
            graph.layers[i]
            for i in graph.order
            if i in needs
            and i not in folded
            and (shapes is not None or i not in shaped)
            and is_opaque(graph.layers[i])
        ]
        if opaque and shapes is not None:  # a shape subgraph that does not fold at these shapes
            raise self._not_folded(opaque[0], needs[opaque[0].index], infos, shapes)
        if opaque:
            first = opaque[0]
            output = self._output_name(needs[first.index])
            modelled = ", ".join(name for name, op in LAYER_OPS.items() if op.counted)
            more = f"; {len(opaque) - 1} more opaque layer(s) are needed" if len(opaque) > 1 else ""
            raise first.error(
                None,
                None,
                f"cannot run: datamove does not compute {first.type} layers, "
                f"and output {output!r} needs this one",
                cls=UnsupportedOperatorError,
                hint=f"datamove runs {modelled}; run this model with OpenVINO (check and explain "
                f"take the other layers as the file declares them){more}",
                runnable=self._runnable() if chosen is None else (),
            )
        if fatal:
            _refuse(fatal[0], len(fatal) - 1)
        slot: dict[tuple[int, int], int] = {}  # a number per output port, in graph order
        steps: list[tuple[Layer, Runner, tuple[int, ...], tuple[int, ...]]] = []
        planners: list[Planner | None] = []
        data_consts: set[int] = set()
        const_values: dict[int, np.ndarray[Any, Any]] = {}
        params: list[tuple[int, Layer, PartialShape, ElementType]] = []
        optional: set[int] = set()
        for idx in graph.order:
            layer = graph.layers[idx]
            outs = tuple(range(len(slot), len(slot) + len(layer.outputs)))
            slot.update(((idx, k), s) for k, s in enumerate(outs))
            ins = tuple(slot[s] for s in layer.sources)  # every source is earlier in the order
            if idx not in needs:  # no output needs it: not run
                if layer.type == "Parameter":  # an input these outputs do not need: optional
                    optional.add(idx)
                else:
                    continue
            # A Parameter or Const has one output port of a known element type: _infer above
            # reports any other as a fatal problem ("ports", "attribute").
            if layer.type == "Parameter":
                shape = parse_shape_attr(layer.data.get("shape", ""), "shape", layer)
                params.append((outs[0], layer, shape, ELEMENT_TYPES[layer.data["element_type"]]))
            elif layer.type == "Const":
                const_values[outs[0]] = cast("np.ndarray", self._const(layer, whole=True).value)
            elif idx in folded:  # a shape subgraph's value: the same on every run
                const_values.update(zip(outs, folded[idx], strict=True))
            elif idx in shaped:  # (by_shape) folded at each run's shapes: nothing to run here
                continue
            else:
                data = data_ports(layer)
                data_consts.update(ins[p] for p in data if p < len(ins))
                # an index input a shape subgraph computes (a Concat of chunk's lengths) is
                # known too: its value is what the layer before it gives on every run
                known = [
                    const_values.get(i, None if p in data else infos[layer.sources[p]].value)
                    for p, i in enumerate(ins)
                ]
                steps.append((layer, runner(layer, known), ins, outs))
                planners.append(shape_planner(layer, known))
        if chosen is not None and shaped:  # a by_shape subgraph reads its inputs' shapes
            optional -= self._needs(folded.keys() - shaped, results).keys()
        outs_of = (
            zip(self.outputs, self._results, strict=True)
            if chosen is None
            else [(name, self._results[k]) for name, k in chosen]
        )
        return _Plan(
            len(slot),
            steps,
            cast("list[Planner]", planners) if None not in planners else None,
            list(const_values.items()),
            data_consts,
            params,
            [(name, slot[r.sources[0]]) for name, r in outs_of],
            by_shape=shaped.intersection(needs) if shapes is None else frozenset(),
            chosen=chosen,
            optional=frozenset(optional) if chosen is not None else frozenset(),
        )

    def _runnable(self) -> list[str]:
        """The outputs that need no opaque layer: the hint of `run`'s refusal of one.

        Made on that error path only.
        """
        infos, _, _ = self._infer({}, compare=False)
        folded = self._folded(infos)
        known = folded.keys() | self._by_shape(folded)
        layers = self._graph.layers
        return [
            self._output_name(result)
            for result in self._results
            if not any(
                i not in known and is_opaque(layers[i]) for i in self._needs(known, [result])
            )
        ]

    def _not_folded(
        self,
        needed: Layer,
        result: Layer,
        infos: Mapping[tuple[int, int], Info],
        shapes: Mapping[int, tuple[int, ...]],
    ) -> IRError:
        """Why a run at ``shapes`` cannot fold ``needed``, a layer of a shape subgraph.

        Named: the first layer (in graph order) of the subgraph behind ``needed`` whose value is
        not known while its inputs' values are: a ShapeOf's input whose shape is not known (a
        layer datamove does not infer, such as TopK), a ShapeOf whose dims overflow its
        ``output_type``, or a layer whose fold is undefined there (`fold_failure`: a division
        by zero, an overflow, a float with a fraction converted to an integer). ``infos``:
        `_infer` at ``shapes``.
        """
        graph = self._graph
        behind: set[int] = set()
        todo = [needed.index]
        while todo:  # the layers of unknown value behind it, up to the ShapeOfs
            idx = todo.pop()
            layer = graph.layers[idx]
            if idx in behind or layer.type in ("Parameter", "Const"):
                continue
            if all(infos[(idx, k)].value is not None for k in range(len(layer.outputs))):
                continue
            behind.add(idx)
            if layer.type != "ShapeOf":
                todo.extend(src for src, _ in layer.sources)
        first = next(graph.layers[i] for i in graph.order if i in behind)
        ins = [infos[s] for s in first.sources]
        named, reason = first, "its value is not known from the input shapes"
        if first.type == "ShapeOf" and ins and not ins[0].shape.is_static:
            named = graph.layers[first.sources[0][0]]
            why = (
                f" (datamove does not infer the output shapes of {named.type} layers)"
                if is_opaque(named)
                else ""
            )
            reading = where(first.id, first.name, first.type, None)
            reason = f"its output shape is not known{why}, and {reading} reads it"
        elif first.type == "ShapeOf" and ins:
            etype = first.data.get("output_type", "i64")
            dims = ins[0].shape.to_shape()
            if etype == "i32" and max(dims, default=0) >= 2**31:
                reason = f"gives {_dims(dims)}, which overflows i32 (its output_type)"
        elif all(i.value is not None for i in ins):  # a rule the fold breaks here, if any
            reason = fold_failure(first, ins) or reason
        given = _shapes_text({self._input_names[self._param_of[i]]: d for i, d in shapes.items()})
        value = (
            "its value"
            if named is needed
            else f"the value of {where(needed.id, needed.name, needed.type, None)}"
        )
        return named.error(
            None,
            None,
            f"cannot run with input shapes ({given}): {reason}; output "
            f"{self._output_name(result)!r} needs {value}",
            cls=UnsupportedOperatorError,
            hint="run folds shape subgraphs at each run's input shapes, as check(input_shapes) "
            "does",
        )

    def _shaped_plan(self, plan: _Plan, values: list[Any]) -> _Plan:
        """The plan of a ``by_shape`` model at the shapes of a run's inputs (in ``values``).

        Its shape subgraphs are folded at those shapes, exactly as `check` folds them with
        ``input_shapes``; once per shapes (`_SHAPE_PLANS_MAX` kept, all dropped when full). A
        refusal there is kept the same way, and raised again (a copy) at those shapes.
        """
        shapes = {
            layer.index: self._known_shape(layer, values[out])
            for out, layer, _, _ in plan.params
            if layer.index not in plan.optional
        }
        key = (plan.chosen, tuple(shapes.values()))
        found = self._shaped.get(key)
        if found is None:
            try:
                found = self._build_plan(shapes, plan.by_shape, plan.chosen)
            except IRError as exc:
                found = copy.copy(exc)  # without its traceback, which holds the frames' values
            keep(self._shaped, key, found, _SHAPE_PLANS_MAX)
        if isinstance(found, IRError):
            raise copy.copy(found)  # each its own traceback: the one kept is never raised
        return found

    def _known_shape(self, layer: Layer, value: Any) -> tuple[int, ...]:
        """The shape of input ``value``, or the error for a size Dask does not know (NaN)."""
        shape = tuple(value.shape)
        for k, size in enumerate(shape):
            if not isinstance(size, int):
                name = self._input_names[self._param_of[layer.index]]
                raise layer.error(
                    f"inputs[{name!r}].shape",
                    shape,
                    f"has an unknown size (NaN) along axis {k}, which a shape subgraph reads",
                    hint=f"call x.compute_chunk_sizes() first (it computes); {DASK_UNKNOWN_CHUNKS}",
                )
        return shape

    def _overrides(self, input_shapes: Any) -> dict[int, PartialShape]:
        """``input_shapes`` of `check` or `explain`: each named input's Parameter -> its shape."""
        overrides: dict[int, PartialShape] = {}
        names, others = self._input_names, self._other_names()
        given = given_shapes(input_shapes, self._input_aliases, names, IRError, others)
        for name, shape in given:
            layer = self._params[self._input_aliases[name]]
            try:
                overrides[layer.index] = as_partial_shape(shape, "IR", f"input_shapes[{name!r}]")
            except ValidationError as exc:
                raise IRError(f"input_shapes[{name!r}]", shape, exc.rule, hint=exc.hint) from None
        return overrides

    def explain(
        self, layer: str | None = None, input_shapes: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Each slicing, split, Concat, Unsqueeze, Squeeze and data Gather layer as NumPy.

        What ``datamove explain MODEL.xml`` prints; a Gather is listed where its indices are
        constant.

        The entries of `datamove.ir._explain.explain_layers`, as `ONNXModel.explain` gives a
        node's; ``layer`` picks one by id or name (``ValidationError`` if none matches).
        ``input_shapes`` gives new shapes for some inputs, as `check` takes them: the layers
        are explained on the shapes inferred from those.
        """
        from datamove.ir._explain import explain_layers  # noqa: PLC0415 - it imports this module

        return explain_layers(self, layer, self._overrides(input_shapes))

    def shape_plan_info(self) -> ShapePlanInfo:
        """How many input shapes this model remembers, and how many it runs by a shape plan.

        A model whose layers only index their data (constant index inputs) replays a run of
        input shapes it has seen twice as a shape plan, skipping every check; see docs/ir.md.
        """
        plan = self._plan
        # a by_shape model is planned per input shapes (a plan each, once folded there)
        planned_by = plan is None or plan.planners is not None or bool(plan.by_shape)
        plannable = self._plannable and planned_by
        # A copy made at once: a run in another thread may add or drop shapes meanwhile
        plans = list(self._shape_plans.values())
        planned = sum(p is not None for p in plans)
        return ShapePlanInfo(len(plans), planned, _SHAPE_PLANS_MAX, plannable)

    def run(
        self, inputs: Mapping[str, Any], outputs: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Run the model on arrays: all its outputs, or those named in ``outputs``.

        Parameters
        ----------
        inputs : mapping of str to array
            One array per input, keyed by any of its tensor names (or its Parameter's name):
            what `datamove.split` takes as data (a NumPy or array-API array, a scalar, a list).
            Each must have the element type the Parameter declares (a u1 input: ``uint8`` of 0
            and 1, or ``bool``) and fit the declared (possibly dynamic) shape. With
            ``outputs``, only the inputs those outputs need must be given (any other given
            is checked all the same).
        outputs : sequence of str, optional
            The outputs to compute, each by any of its tensor names (a nameless one by its
            Result's name); only the layers they need are run, and so checked for being
            runnable: a model's outputs that need only layers datamove computes run even where
            others need a MatMul. Default: all of them.

        Returns
        -------
        dict of str to array
            The outputs, named as OpenVINO's ``read_model`` names them (``get_any_name()``),
            in the order of the Result layers; with ``outputs``, those, named and ordered as
            given there. Outputs may be views of the inputs, as the operators return them;
            constants come back read-only.

        Raises
        ------
        UnsupportedOperatorError
            If an output needs a layer datamove does not compute (an opaque layer such as
            MatMul: the error names the first, and the hint the outputs that need none), or the
            model has a layer of a version datamove does not implement (needed or not: OpenVINO
            reads no such model). Layers that no output needs are not run; nor are those of a
            shape subgraph whose value is known on every input the declared shapes allow
            (``chunk``'s lengths on a static dim): their value is taken as a constant. One
            that reads a dynamic dim is folded at the inputs' shapes (once per shapes); where
            it does not fold there, the error names the layer and the input shapes.
        InputTypeError
            For an input that is not an array, or not of the declared element type (an
            `IRError` and a `datamove.DTypeError`).
        IRError
            For a missing, unknown or ill-shaped input, a u1 value other than 0 and 1, an
            operator rule broken at run time, or ``outputs`` other than a non-empty sequence of
            distinct output names (a ``str`` alone is refused: pass ``[name]``).

        Notes
        -----
        From the third run with a ``dict`` of NumPy arrays of the same names, shapes and dtypes,
        a run is one call of a *shape plan*: every index computed once, no checks to repeat
        (the key is what the checks depend on). The outputs are the same; see ``docs/ir.md``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import numpy as np
        >>> from datamove.ir._examples import write_example
        >>> model = read_model(write_example(pathlib.Path(tempfile.mkdtemp())))
        >>> out = model.run({"x": np.arange(12, dtype=np.float32).reshape(2, 6)})
        >>> out["parts_a"].tolist()
        [[0.0, 1.0], [6.0, 7.0]]
        >>> out["parts_b"].tolist()
        [[2.0, 3.0, 4.0, 5.0], [8.0, 9.0, 10.0, 11.0]]
        """
        if not isinstance(inputs, Mapping):
            raise IRError(
                "inputs",
                inputs,
                f"must be a mapping of input names to arrays, not {a_kind(inputs)}",
                hint="e.g. {" + ", ".join(f"{n!r}: array" for n in self._input_names) + "}",
            )
        key = _shape_key(inputs) if self._plannable else None
        if outputs is not None:
            chosen = self._chosen(outputs)
            names = tuple(name for name, _ in chosen)
            if key is not None:
                key = (names, key)
        plans = self._shape_plans
        if key is not None:
            shape_plan = plans.get(key)
            if shape_plan is not None:
                return shape_plan(*inputs.values())
        if outputs is None:
            plan = self._plan
            if plan is None:
                plan = self._plan = self._build_plan()
        else:
            found = self._output_plans.get(names)
            if found is None:
                found = self._build_plan(chosen=chosen)
                keep(self._output_plans, names, found, _SHAPE_PLANS_MAX)
            plan = found
        plan, values = self._run_plan(plan, inputs)
        if key is not None and plan.planners is not None:  # valid inputs, NumPy arrays only
            if key in plans:  # the second run of these shapes: plan them
                slots = key if outputs is None else key[1]
                planned = self._shape_plan(plan, plan.planners, slots, values)
                keep(plans, key, planned, _SHAPE_PLANS_MAX)
            else:  # a shape run once is not planned: that would triple its cost
                keep(plans, key, None, _SHAPE_PLANS_MAX)
        return {name: values[s] for name, s in plan.results}

    def _chosen(self, outputs: Any) -> tuple[tuple[str, int], ...]:
        """`run`'s ``outputs``: each name as passed, and the index of its Result in _results."""
        if isinstance(outputs, str | bytes) or not isinstance(outputs, Sequence):
            raise IRError(
                "outputs",
                outputs,
                f"must be a sequence of output names, not {a_kind(outputs)}",
                hint=f"pass a list: outputs=[{outputs!r}]" if isinstance(outputs, str) else None,
            )
        if not outputs:
            raise IRError("outputs", outputs, "is empty", hint="pass None for all the outputs")
        chosen: dict[int, int] = {}  # Result -> its place in outputs
        for j, name in enumerate(outputs):
            k = self._output_of.get(name) if isinstance(name, str) else None
            if k is None:
                hint = "its outputs are " + ", ".join(map(repr, self.outputs))
                raise IRError(f"outputs[{j}]", name, "names no output of this model", hint=hint)
            if k in chosen:
                rule = f"names the same output as {outputs[chosen[k]]!r} before it"
                raise IRError(f"outputs[{j}]", name, rule, hint="name each output once")
            chosen[k] = j
        return tuple((outputs[j], k) for k, j in chosen.items())

    def _run_plan(self, plan: _Plan, inputs: Mapping[str, Any]) -> tuple[_Plan, list[Any]]:
        """Check the inputs and run every step; the plan run and the value of every slot.

        The plan run is ``plan``, or for a ``by_shape`` plan the one of the inputs' shapes.
        """
        values: list[Any] = [None] * plan.nslots
        # One pass over the inputs, each name looked up once: (name, value) per Parameter.
        given: dict[int, list[tuple[Any, Any]]] = {}
        unknown = []
        for name, value in inputs.items():
            k = self._input_aliases.get(name)
            if k is None:
                unknown.append(name)
            else:
                given.setdefault(k, []).append((name, value))
        foreign = None
        for out, layer, shape, etype in plan.params:
            named = given.get(self._param_of[layer.index])
            if not named:
                if layer.index in plan.optional:
                    continue
                needed = [
                    self._input_names[self._param_of[x.index]]
                    for _, x, _, _ in plan.params
                    if x.index not in plan.optional
                ]
                missing = self._input_names[self._param_of[layer.index]]
                raise layer.error(
                    "inputs",
                    inputs,  # as passed (shown short: its first items, arrays abbreviated)
                    f"has no array for input {missing!r}",
                    cls=MissingInputError,
                    hint=("pass every input: " if plan.chosen is None else "these outputs need: ")
                    + input_list(needed, self._other_names()),
                    missing=missing,
                    needed=needed,
                )
            if len(named) > 1:
                raise layer.error(
                    "inputs", [n for n, _ in named], "name the same input more than once"
                )
            value = self._take_input(*named[0], layer, shape, etype)
            values[out] = value
            # the constants go to the library of the data, never of an index input's array
            if type(value) is not np.ndarray and foreign is None and out in plan.data_consts:
                foreign = value
        if unknown:  # the array passed under a name that is no input's
            name = unknown[0]
            others = self._other_names()
            raise _no_input(IRError, f"inputs[{name!r}]", inputs[name], self._input_names, others)
        if plan.by_shape:
            plan = self._shaped_plan(plan, values)
        for out, value in plan.consts:
            values[out] = value
        if foreign is not None:
            from array_api_compat import array_namespace, device  # noqa: PLC0415 - foreign only

            xp, on = array_namespace(foreign), device(foreign)
            for out, value in plan.consts:
                if out in plan.data_consts:
                    # a writable copy of its own (the constant is read-only: torch warns), on
                    # the input's device (a join with it needs both on one)
                    values[out] = xp.asarray(np.array(value), device=on)
        k = 0
        try:
            # k names the failed layer in the except below; each step gives one result per
            # port: _build_plan refused a layer whose operator count differs from its ports
            for k, (_, fn, ins, outs) in enumerate(plan.steps):  # noqa: B007
                for o, r in zip(outs, fn([values[i] for i in ins]), strict=True):
                    values[o] = r
        except ValidationError as exc:  # an operator's, never an IRError: runners read no file
            failed = plan.steps[k][0]
            raise failed.error(None, str(exc), f"failed at run time: {exc}") from exc
        return plan, values

    def _shape_plan(
        self, plan: _Plan, planners: list[Planner], key: tuple[Any, ...], values: list[Any]
    ) -> _ShapePlan | None:
        """`plan` as a function of NumPy inputs with the shapes and dtypes in ``key``.

        ``values`` holds the slots of one run of these shapes. The function's code (`_program`)
        is the same for every key with the inputs in the same order and the same moves; its
        globals hold what depends on the shapes. ``None`` where a slot holds something other than
        a NumPy array.
        """
        moves = _moves(plan, planners, values)
        if moves is None:
            return None
        inputs = self._input_slots(plan, key)
        scope: dict[str, Any] = {"concatenate": _join}
        for _, dst, take in moves:
            scope[f"i{dst}"] = take.arg if type(take) is Method else take
        for out, value in plan.consts:
            scope[f"v{out}"] = value
        for k, (name, _) in enumerate(plan.results):
            scope[f"n{k}"] = name
        # The code reads only slots: the same for every key of these inputs and moves (the
        # moves of a by_shape model's plans may differ from shapes to shapes)
        # the outputs' slots too: two output sets may make the same moves
        results = tuple(s for _, s in plan.results)
        layout = (inputs, tuple((src, dst, _method(take)) for src, dst, take in moves), results)
        code = self._programs.get(layout)
        if code is None:
            code = _program(moves, inputs, results)
            keep(self._programs, layout, code, _SHAPE_PLANS_MAX)
        return cast("_ShapePlan", FunctionType(code, scope))

    def _input_slots(self, plan: _Plan, key: tuple[Any, ...]) -> tuple[int, ...]:
        """The slot of each input named in ``key`` (a `_shape_key`), in its order."""
        slot_of = {layer.index: out for out, layer, _, _ in plan.params}
        return tuple(slot_of[self._params[self._input_aliases[name]].index] for name, *_ in key)

    def _take_input(
        self, name: Any, value: Any, layer: Layer, shape: PartialShape, etype: ElementType
    ) -> Any:
        """The input ``inputs[name]`` for Parameter ``layer``, checked (and converted if need be).

        What `datamove.split` takes as data is taken (`prepare` decides: NumPy arrays, Python
        and NumPy scalars, lists and tuples, arrays of array API libraries); anything else, and
        an array of another element type, is an `InputTypeError`.
        """
        argument = f"inputs[{name!r}]"
        if not isinstance(value, np.ndarray):
            try:
                _, value, _ = prepare("IR", value)
            except ValidationError as exc:  # not an array (DTypeError), or a library that fails
                cls = InputTypeError if isinstance(exc, DTypeError) else IRError
                raise layer.error(argument, value, exc.rule, hint=exc.hint, cls=cls) from None
        actual = tuple(getattr(value, "shape", ()))
        if actual not in shape:
            raise layer.error(
                f"{argument}.shape",
                actual,
                f"does not fit the declared shape {shape}",
                port=layer.outputs[0].id,
            )
        if etype.name == "u1":
            return _bits(argument, layer, value)
        if isinstance(value, np.ndarray):
            if value.dtype == etype.dtype:
                return value
            if value.dtype.newbyteorder("=") == etype.dtype:  # e.g. '>f4' for f32: same values
                return value.astype(etype.dtype)
            module = "ml_dtypes" if etype.dtype_name.startswith("ml_dtypes.") else "np"
            hint = f"convert it with .astype({module}.{etype.dtype.name})"
        elif _dtype_is(value, etype.dtype_name.removeprefix("ml_dtypes.")):
            return value
        else:
            hint = f"convert it to {etype.dtype_name.removeprefix('ml_dtypes.')}"
        raise layer.error(
            f"{argument}.dtype",
            str(value.dtype),
            f"is not the declared element type {etype.name}",
            hint=hint,
            cls=InputTypeError,
        )

    def __repr__(self) -> str:
        return (
            f"<datamove.ir.Model {self.name!r}: IR v{self.ir_version}, "
            f"{len(self._graph.layers)} layers, "
            f"inputs {list(self.inputs)}, outputs {self.outputs}>"
        )


def _shapes_text(shapes: Mapping[str, tuple[int, ...]]) -> str:
    """``x of shape [2,3], y of shape [4]``: the input shapes a message names."""
    return ", ".join(f"{name} of shape {_dims(dims)}" for name, dims in shapes.items())


def _read_only(value: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    out = np.array(value)  # a copy: inference keeps its own
    out.flags.writeable = False
    return out


@dataclass(slots=True)
class _Plan:
    nslots: int
    steps: list[tuple[Layer, Runner, tuple[int, ...], tuple[int, ...]]]
    # One per step: data shape -> what each output takes. None where an index input is not a
    # constant, so that an output shape depends on values, not on shapes alone.
    planners: list[Planner] | None
    consts: list[tuple[int, np.ndarray[Any, Any]]]
    data_consts: set[int]
    params: list[tuple[int, Layer, PartialShape, ElementType]]
    results: list[tuple[str, int]]
    # The layers of shape subgraphs an output needs that read a dynamic dim (by index): where
    # any, each run takes the plan made at its inputs' shapes (Model._shaped_plan), where they
    # fold; this plan only checks the inputs.
    by_shape: frozenset[int] = frozenset()
    # The outputs `run` was given (`Model._chosen`), None for all of them; the Parameters (by
    # index) that none of those outputs needs: an input `run` may leave out
    chosen: tuple[tuple[str, int], ...] | None = None
    optional: frozenset[int] = frozenset()


def _shape_key(inputs: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """``(name, shape, dtype)`` of each input, in the caller's order, or ``None``.

    ``None`` unless every input is exactly a ``np.ndarray`` in native byte order and they come
    in a ``dict`` (a ``'>f4'`` input is converted on the checked path).
    Whether `Model.run` accepts its inputs depends on nothing else, so a key that once passed
    the checks passes them again.
    """
    if type(inputs) is not dict:
        return None
    key = tuple(
        [
            (n, a.shape, a.dtype) if type(a) is np.ndarray and a.dtype.isnative else None
            for n, a in inputs.items()
        ]
    )
    return None if None in key else key


_ShapePlan = Callable[..., dict[str, Any]]  # the inputs' arrays, in the order of the key
# (src slot, dst slot, NumPy basic index or Method), or for a Join (src slots, dst slot, axis)
_Move = tuple[Any, int, Any]


def _method(take: Any) -> str | None:
    """The NumPy method a move calls (`Method`), ``None`` for an index or a join."""
    return take.name if type(take) is Method else None


def _dtype_is(value: Any, name: str) -> bool:
    """Whether an array (NumPy's, or another library's) has the dtype NumPy calls ``name``."""
    from array_api_compat import array_namespace  # noqa: PLC0415 - foreign arrays only

    want = getattr(array_namespace(value), name, None)  # float32, bool, bfloat16 ...
    try:
        if want is not None:
            return bool(value.dtype == want)
        return bool(np.dtype(value.dtype).name == name)  # e.g. ml_dtypes in a Dask array
    except TypeError:  # a dtype NumPy does not know, and the library has no such name
        return False


def _bits(argument: str, layer: Layer, value: Any) -> Any:
    """A u1 input as 0/1 ``uint8``, as u1 constants are read: ``uint8`` of 0 and 1, or bool.

    OpenVINO's u1 holds one bit a value; a wider value would be cut to its low bit. A Dask input
    is checked block by block as it is computed (reading it here would compute it); one traced
    by ``jax.jit`` has no values to check.
    """
    import array_api_compat as compat  # noqa: PLC0415 - u1 inputs only

    xp = compat.array_namespace(value)
    if _dtype_is(value, "bool"):
        return xp.astype(value, xp.uint8)
    if not _dtype_is(value, "uint8"):
        raise layer.error(
            f"{argument}.dtype",
            str(value.dtype),
            "is not the declared element type u1",
            hint="pass uint8 of 0 and 1, or bool",
            cls=InputTypeError,
        )
    if compat.is_dask_array(value):
        lazy: Any = value  # (dask's own annotation of map_blocks takes no function)
        shown = f"<dask array of shape {tuple(value.shape)}>"  # (an array argument is blocked)
        return lazy.map_blocks(_bits_checked, argument, layer, shown, dtype=value.dtype)
    return value if traced(value) else _bits_checked(value, argument, layer, value)


def _bits_checked(block: Any, argument: str, layer: Layer, value: Any) -> Any:
    """``block`` of the u1 input ``value`` (or all of it), or the error for a value past 1."""
    from array_api_compat import array_namespace  # noqa: PLC0415 - u1 inputs only

    top = int(array_namespace(block).max(block)) if math.prod(block.shape) else 0
    if top > 1:
        raise layer.error(
            argument, value, f"holds {top}, but a u1 value is 0 or 1", hint="pass 0 and 1 only"
        )
    return block


def _moves(plan: _Plan, planners: list[Planner], values: list[Any]) -> list[_Move] | None:
    """What a shape plan does, given the slots of one run: a *move* per output of each step.

    A move ``(src, dst, take)`` makes slot ``dst`` slot ``src`` indexed by ``take`` (a NumPy
    basic index) or given to its method (a `Method`: ``reshape``, ``transpose``), or, for a
    `Join`, the slots ``src`` concatenated along axis ``take``.
    ``None`` where a step's input is something other than a NumPy array.
    """
    moves: list[_Move] = []
    for (_, _, ins, outs), planner in zip(plan.steps, planners, strict=True):
        if any(type(values[i]) is not np.ndarray for i in ins):
            return None
        for out, take in zip(outs, planner(values[ins[0]].shape), strict=True):
            moves.append((ins, out, take.axis) if type(take) is Join else (ins[0], out, take))
    return moves


def _join(arrays: list[np.ndarray], axis: int) -> np.ndarray:
    """A shape plan's Concat, as fast as each size allows.

    ``np.concatenate`` for small joins (a few microseconds less per call); from
    ``JOIN_ENGINE_BYTES``, ``dm.concat``, whose copy engine uses every thread and streaming
    stores (``bench concat``: 1.5-2.7x ``np.concatenate`` along the last axis).
    """
    if sum(a.nbytes for a in arrays) < JOIN_ENGINE_BYTES:
        return np.concatenate(arrays, axis=axis)
    result: np.ndarray = concat(arrays, axis)
    return result


JOIN_ENGINE_BYTES = PARALLEL_MIN_BYTES


def _program(moves: list[_Move], inputs: tuple[int, ...], results: tuple[int, ...]) -> CodeType:
    """The code of a shape plan: ``def run(<input slots>)``, a line per move, the outputs.

    Slot ``k`` is the variable ``v{k}``: a local for inputs and computed values, a global for
    constants; ``i{k}`` is what computes slot ``k`` (an index, or a join's axis), ``n{j}`` the
    name of output ``j``. Only these names, slot numbers and NumPy's methods that datamove calls
    (`Method`) go into the source; every value from the file (names, indices, axes, shapes,
    orders, constants) is in the globals `Model._shape_plan` gives.

    Generated code, not a loop over the moves: the plain loop took 1.3x as long per run on
    the 50-operator chain of ``bench/bench_ir.py`` (``--only loop``; ``bench/RESULTS.md``).
    """
    lines = [f"def run({', '.join(f'v{s}' for s in inputs)}):"]
    for src, dst, take in moves:
        if type(take) is Method:  # a method of datamove's (reshape, transpose), not the file's
            lines.append(f"    v{dst} = v{src}.{take.name}(i{dst})")
        elif type(src) is int:
            lines.append(f"    v{dst} = v{src}[i{dst}]")
        else:  # a Join: what concat() does for NumPy arrays
            arrays = ", ".join(f"v{s}" for s in src)
            lines.append(f"    v{dst} = concatenate([{arrays}], axis=i{dst})")
    lines.append(f"    return {{{', '.join(f'n{k}: v{s}' for k, s in enumerate(results))}}}")
    scope: dict[str, Any] = {}
    exec(compile("\n".join(lines), "<datamove.ir shape plan>", "exec"), scope)  # noqa: S102 - see above
    return cast("CodeType", scope["run"].__code__)


def type_names() -> dict[str, str]:
    """Every layer type datamove knows, by its lower-case spelling (``{"shapeof": "ShapeOf"}``).

    The reader gives a layer the name here whatever the case of its ASCII letters, as OpenVINO
    reads it, so every registry and every test of a type matches that name exactly
    (`tests/ir/test_type_case.py` checks that it holds every name they test for).
    """
    # Assign: a sink OpenVINO reads though no Result needs it (`Model`), and IR-30's crash
    names = (*LAYER_OPS, *FOLDERS, *BOUNDERS, *TYPE_ATTRIBUTES, *ELEMENTWISE, "Assign")
    return {name.lower(): name for name in names}


def read_model(
    xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None
) -> Model:
    """Read an OpenVINO IR model (``.xml`` and its ``.bin``), as ``openvino.Core.read_model``.

    Parameters
    ----------
    xml_path : path
        The ``.xml`` file (IR v10 or v11).
    bin_path : path, optional
        The weights; by default the ``.xml`` path with the suffix ``.bin``. Needed only when the
        model has ``Const`` layers.

    Returns
    -------
    Model
        Layers of any type are read; `Model.check` reports those datamove does not support.

    Raises
    ------
    IRError
        For a file that is not a well-formed IR: malformed XML, DTDs or entities, an edge that
        points nowhere, a cycle, a ``Const`` past the end of the ``.bin``, a dim that is not an
        int64. The error names the layer (id, name, type) and port.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from datamove.ir._examples import write_example
    >>> model = read_model(write_example(pathlib.Path(tempfile.mkdtemp())))
    >>> model
    <datamove.ir.Model 'example': IR v11, 6 layers, inputs ['x'], outputs ['parts_a', 'parts_b']>
    """
    with gc_paused():  # building the Model allocates as much again, none of it garbage
        return Model(parse_graph(xml_path, bin_path, caseless=type_names()))
