"""ONNX files: check a model's Slice, Split and Concat nodes by ONNX's semantics, explain its cuts.

`read_onnx` reads a ``.onnx`` file with the optional ``onnx`` package (``pip install
'datamove[onnx]'``), through datamove's file opening (`datamove._files`: a regular file, at most
2 GiB, protobuf's own limit). It never reads another file: tensors stored as external data are
taken as values known only at run time.

`ONNXModel.check` walks the graph in its order, as `datamove.ir.Model.check` walks an IR, and
returns the same `CheckReport`. A node whose operator the model's opsets do not hold, as
onnx.checker looks it up in ONNX's registry (`unknown_operator`), or whose inputs, outputs or
attributes that operator's schema refuses (`schema_fault`), is a problem and opaque (these
faults, and ONNX's inference's, are read by `datamove.ir._onnx_faults`).
Otherwise a node of the default domain is one of:

- **checked** (`CHECKED`, SplitToSequence then SequenceAt of a constant position, read as a
  split: `SEQUENCE_NODES`, a Reshape whose shape is known or bounded, a Transpose, a data
  Gather of constant or bounded indices and a GatherND that is one: `ONE_OUTPUT`): its outputs
  inferred by ONNX's rules
  (`Slicing.from_onnx`, `Splitting.from_onnx`, `datamove.infer_concat`'s rule,
  `datamove.ir._onnx_rules`, `datamove.ir._onnx_gather`) and compared with the file's;
- a **constant** (an initializer, a ``Constant`` node): its values read where small;
- of a **shape subgraph** (`datamove.ir._onnx_shapes`): translated into the IR layer that
  computes the same and evaluated by `datamove.ir._bounds.bound_layer`, exactly or as interval
  bounds, which the checked nodes carry through; one that fails at run time whatever its input
  sizes is a note (`SHAPE_NOTE`). So in a subgraph and a function too (`_shape_node`);
- **opaque** (every other, and every node of another domain): its outputs as the file declares
  them, else as ONNX's own shape inference gives them. Its subgraphs' checked nodes, and
  those of the model-local function it calls, are checked (`ONNXModel._bodies`,
  `ONNXModel._call`), their faults the node's problems (a function's fault once, on the first
  call with it, naming the others: `once_per_fault`).

`ONNXModel.explain` writes each Slice, Split, Unsqueeze, Squeeze, SplitToSequence and SequenceAt
node, and each data Gather of constant or computed indices (a GatherND that is one too:
`nd_as_gather`), as NumPy on its data input
``x``, and each Concat node as where each input lands in its output, in the form
`datamove.ir._explain.explain_layers` gives IR layers; a parameter a shape subgraph computes
as the expression of dims it is (``x[:, :x.shape[1]//2]``, ``x[:, x.shape[1]-1]``). Those of the
subgraphs and functions check walks are listed after the node that holds or calls them, named
as check's problems name them (``place``), a function's once per distinct inputs its calls pass.
Each node's entry is written by `datamove.ir._onnx_explain`.

docs/ir.md ("ONNX files") gives the rules node by node: the versions read, the problem kinds, the
limits, and where onnxruntime and ``onnx.reference`` differ.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
import os
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from datamove._errors import ValidationError, show
from datamove._files import read_regular
from datamove._shape import Dimension, PartialShape, as_partial_shape
from datamove.ir._errors import ONNXError
from datamove.ir._errors import where as place_of
from datamove.ir._explain import (
    VIEWS,
    gathers,
    runtime_name,
    unlisted,
)
from datamove.ir._model import CheckReport, Problem, given_shapes
from datamove.ir._offsets import Link, link_of
from datamove.ir._onnx_explain import (
    explain_concat,
    explain_cut,
    explain_gather,
    explain_sequence_at,
    explain_split_to_sequence,
    explain_view,
)
from datamove.ir._onnx_faults import (
    LOADS_NOT_RUNS,
    RUNS_ONNX_INFERENCE,
    Chains,
    Known,
    Within,
    any_misread,
    clash,
    inference_faults,
    inner_fault,
    narrowed_split,
    newer_opsets,
    once_per_fault,
    schema_fault,
    slice_misread,
    split_fault,
    truncated_split,
    unknown_operator,
)
from datamove.ir._onnx_gather import (
    gather_nd_value,
    gather_value,
    nd_as_gather,
    range_span,
    unsqueezed_span,
)
from datamove.ir._onnx_rules import (
    ONE_OUTPUT,
    concat,
    empty_squeeze,
    link_value,
    linked_slice,
    sequence_at,
    sequence_parts,
    slice_value,
    split_shapes,
    squeezed,
    view_axes,
    view_data_shape,
)
from datamove.ir._onnx_shapes import (
    ETYPES,
    SHAPE_NODES,
    etype_name,
    render,
    shape_terms,
    shape_values,
    view_shape,
)
from datamove.ir._onnx_value import (
    Node,
    Value,
    node_kind,
    node_name,
    onnx_package,
    shape_of,
    subgraphs,
)
from datamove.ir._ops import (
    SMALL,
    bounds_of,
)

__all__ = ["ONNXModel", "read_onnx"]

_MAX_BYTES: Final = 2**31 - 1  # protobuf's limit on one message: no .onnx file is larger
_MAX_VALUES: Final = 1 << 16  # constants read as parameters at most this many values
CHECKED: Final = ("Slice", "Split", "Concat")
_JOINS_AND_VIEWS: Final = ("Concat", *VIEWS)  # listed by explain where their output is data
# Read where they make parts datamove knows: SplitToSequence, then SequenceAt of a constant
# position (torch's tensor_split export); any other use of a sequence is opaque.
SEQUENCE_NODES: Final = ("SplitToSequence", "SequenceAt")
# the node types explain lists (a Gather where its indices are constant, a GatherND that is
# such a Gather: `nd_as_gather`)
EXPLAINED_NODES: Final = (*CHECKED, *VIEWS, *SEQUENCE_NODES, "Gather", "GatherND")
SHAPE_NOTE: Final = "shape-subgraph"  # a note: a shape subgraph's node fails at run time
# The element types whose constants are read: those a shape subgraph folds (datamove.ir._fold),
# the others' (floats, booleans) only where small.
_INDICES: Final = frozenset({"i64", "i32", "i16", "i8", "u8"})
_READ: Final = _INDICES | {"u64", "u32", "u16", "boolean", "f32", "f64"}


def _shape_node(
    node: Any, ins: list[Value], opset: int | None, *, read: bool = True
) -> tuple[list[Value | None], str | None]:
    """A shape-subgraph node's value or bounds for each output, with its terms, and a note.

    `shape_values` and `shape_terms` of a node of `SHAPE_NODES` (``None`` for an output where
    neither is known, for every output of another node or one not ``read``); the note where it
    fails at run time whatever its inputs. The graph's walk and a body's or function's read
    it alike (`ONNXModel._walk`, `ONNXModel._inner_nodes`), ``opset`` that graph's.
    """
    shaped: list[Value | None] = [None] * len(node.output)
    if node.op_type not in SHAPE_NODES or node.domain or not read:
        return shaped, None
    infos = [v.info() for v in ins]
    got_infos, note = shape_values(node, infos, opset or 0)
    for k, g in enumerate(got_infos):
        if g is not None:  # a folded or bounded Info, as the walk holds it
            said = shape_terms(node, infos, [v.terms for v in ins], g, k, opset or 0)
            shaped[k] = Value.of(g, g.etype.name if g.etype else None, said)
    if node.op_type == "Range" and shaped[0] is None and note is None:
        shaped[0] = range_span(ins)
    if node.op_type == "Unsqueeze" and shaped[0] is None and note is None:
        shaped[0] = unsqueezed_span(node, ins, opset or 0)
    return shaped, note


def _bytes(value: np.ndarray[Any, Any] | None) -> tuple[str, tuple[int, ...], bytes] | None:
    """A constant value as a key: its type, shape and bytes."""
    return None if value is None else (value.dtype.str, value.shape, value.tobytes())


def _call_key(v: Value) -> tuple[Any, ...]:
    """What a function's walk reads of an input a call passes: a key of `ONNXModel._call`.

    Its shape, type and value, else a shape subgraph's bounds, reach and terms, and then its
    maker (explain names it): two calls passing ``x.shape[0]`` and ``min(y.shape[0], 2)`` are
    walked apart. Not a data value's maker: calls on other tensors of one shape are walked once.
    """
    reach = None if v.reach is None else tuple(repr(r.tolist()) for r in v.reach)
    computed = v.value is None and (v.lower is not None or v.terms is not None)
    key = (v.shape, v.etype, _bytes(v.value), _bytes(v.lower), _bytes(v.upper), reach, v.terms)
    span = None if v.span is None else tuple(_call_key(end) for end in v.span)
    return (*key, span, v.maker if computed or span else None)


def _dims_read(values: Iterable[Value]) -> set[str]:
    """The tensors whose dims the terms of ``values`` read (a Range's ends' too)."""
    found: set[str] = set()
    for v in values:
        for t in (*(v.terms or ()), *(t for end in v.span or () for t in end.terms or ())):
            found.update(p[0] for p in t[1] if not isinstance(p, str))
    return found


def _call_value(v: Value) -> str | None:
    """An input's value as a call passes it, for explain: ``[3]``, ``[x.shape[0]]``; else ``None``.

    A constant's values (`show`, so a long one cut short), a shape subgraph's as the expressions
    of dims it is, each tensor named as explain's ``runtime`` names it (``_x`` for ``'x'``);
    ``None`` where neither is known.
    """
    if v.value is not None:
        return show(v.value.tolist())
    if v.terms is None:
        return None
    texts = [render(t, "", lambda tensor: runtime_name(tensor, "value")) for t in v.terms]
    return texts[0] if v.shape.rank == 0 and len(texts) == 1 else "[" + ", ".join(texts) + "]"


_Types = dict[str, Any]  # a value's name -> its TypeProto
# ONNX's inference: types, with data propagation (called when needed), faults, subgraph nodes
_Inferred = tuple[_Types, Callable[[], _Types], list[Problem], dict[int, Any]]


def _typed(values: Iterable[Any]) -> dict[str, tuple[PartialShape, str | None]]:
    """Name -> shape and element type, of the values of a tensor type."""
    return {v.name: found for v in values if (found := shape_of(v.type)) is not None}


@dataclass(slots=True)
class _Inner:
    """A walk of a subgraph's or a function's nodes: each fault (kind, rule), each node listed.

    And each note of a shape-subgraph node there that fails at run time (`SHAPE_NOTE`); each
    Split there ONNX's inference reads in 32 bits (`truncated_split`), under the nodes ONNX's
    faults name down to it, ``(op_type, name)`` each (``(("If", "if"), ("Split", "cut"))``:
    its place and why); each Split there onnxruntime's kernel cannot run (`narrowed_split`),
    its place and why; and the outputs of the node holding or calling it that ONNX infers from
    a value it misreads there (`any_misread`), by index.
    """

    faults: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    nodes: list[Node] = dataclasses.field(default_factory=list)
    checked: Counter[str] = dataclasses.field(default_factory=Counter)  # kind -> nodes checked
    truncated: Chains = dataclasses.field(default_factory=dict)
    misread: set[int] = dataclasses.field(default_factory=set)
    narrowed: list[str] = dataclasses.field(default_factory=list)

    def add(self, where: str, other: _Inner, nodes: bool = True, node: Any = None) -> None:
        """``other``'s faults (and ``nodes``, their count and notes) within the node ``where``.

        And its truncated Splits, under ``node`` (the node of ``where``), and those it cannot run.
        """
        self.faults += [(kind, f"{where}: {rule}") for kind, rule in other.faults]
        self.narrowed += [f"{where}: {why}" for why in other.narrowed]
        step = () if node is None else ((node.op_type, node.name),)
        for chain, why in other.truncated.items():
            self.truncated[(*step, *chain)] = f"{where}: {why}"
        if nodes:
            self.notes += [f"{where}: {note}" for note in other.notes]
            self.nodes += [dataclasses.replace(n, place=f"{where}: {n.place}") for n in other.nodes]
            self.checked.update(other.checked)


class ONNXModel:
    """An ONNX model read by `read_onnx`: `check` and `explain` its data-movement nodes.

    Attributes
    ----------
    name : str
        The graph's name (or the file's name).
    opset : int or None
        The version of the default domain the model imports (its last import).
    inputs : dict
        Input name -> ``(PartialShape, element type)``, as the graph declares them
        (initializers excluded).
    outputs : list of str
        The graph's output names.
    """

    def __init__(self, proto: Any, path: str) -> None:
        self._proto = proto
        graph = proto.graph
        self.name = graph.name or Path(path).name
        # The last import of a domain wins, as in onnx.checker and onnxruntime; "ai.onnx" is
        # the default domain "" where none imports "", as onnx.checker reads it (onnxruntime:
        # the last of either); a node of domain "ai.onnx": `unknown_operator`
        self._imports = {o.domain: int(o.version) for o in proto.opset_import}
        if (aliased := self._imports.pop("ai.onnx", None)) is not None:
            self._imports.setdefault("", aliased)
        self.opset = self._imports.get("")
        self._refused = {  # node index -> why ONNX has no such operator
            i: why
            for i, node in enumerate(graph.node)
            if (why := unknown_operator(node, self._imports)) is not None
        }
        functions = {(f.domain, f.name, f.overload): f for f in proto.functions}
        self._functions = functions
        self._calls: dict[Any, _Inner] = {}  # (function, inputs) -> its walk
        self._as_declared: dict[str, Value] | None = None  # the values on the file's shapes
        self._refused_at_load: bool | None = None  # `_unloaded`, once known
        known: Known = {}  # each function's fault, and the inputs its nodes need
        self._faults = {  # node index -> (kind, rule) of a fault its schema (or a subgraph) has
            i: fault
            for i, node in enumerate(graph.node)
            if i not in self._refused
            and (
                fault := schema_fault(node, self._imports)
                or inner_fault(node, self._imports, functions, known)
            )
        }
        self._inits = {t.name: t for t in graph.initializer}
        self.inputs: dict[str, tuple[PartialShape, str | None]] = {}
        for v in graph.input:
            if v.name in self._inits:
                continue
            found = shape_of(v.type)
            if found is not None and found[1] is None:  # the checker and onnxruntime refuse it
                rule = "is UNDEFINED, no element type; the graph is not a valid ONNX graph"
                raise ONNXError(f"input {v.name!r} elem_type", 0, rule)
            self.inputs[v.name] = found if found is not None else (PartialShape(None), None)
        self.outputs = [v.name for v in graph.output]
        made = {
            *self._inits,
            *(v.name for v in graph.input),
            *(o for n in graph.node for o in n.output),
        }
        lost = next((o for o in self.outputs if o not in made), None)
        if lost is not None:  # onnx.checker, onnxruntime and OpenVINO refuse it
            rule = (
                "names no value of the graph (a graph input, an initializer, or a node's output); "
                "the graph is not a valid ONNX graph"
            )
            raise ONNXError("graph output", lost, rule)
        self._declared = _typed((*graph.value_info, *graph.output))
        self._types = {v.name: v.type for v in (*graph.value_info, *graph.output)}  # as written

    def __repr__(self) -> str:
        return (
            f"<datamove.ir.ONNXModel {self.name!r}: opset {self.opset}, "
            f"{len(self._proto.graph.node)} nodes, inputs {list(self.inputs)}, "
            f"outputs {self.outputs}>"
        )

    # -- values ----------------------------------------------------------------------------
    def _onnx_inferred(self, overrides: Mapping[str, PartialShape]) -> _Inferred:
        """ONNX's own shape inference of opaque nodes' outputs (none if it fails), and its faults.

        And each node with subgraphs as inferred (node index -> the node, its subgraphs'
        ``value_info`` filled in), for `_bodies`.

        Without its data propagation, as ``onnx.checker.check_model(full_check=True)`` infers
        the types a node's declared outputs must agree with; then (the function, called once
        an undeclared output needs it) with: a Reshape or Expand by a shape computed from
        static dims gets a static output, as the checked nodes after it need. Without new input
        shapes (``overrides``) it runs strict and checking types first, as onnx.checker runs
        it: each node it refuses is a problem (`inference_faults`); then again, lenient.

        Run on a copy without the declared ``value_info`` and output types, so that what it
        infers is its own, never an echo of the file, without the nodes onnx.checker refuses
        (`unknown_operator`, `schema_fault`: ONNX's inference may end the process on one, a
        segmentation fault in onnx 1.23, or hide the other nodes' faults after it), and without
        the data of the initializers but small integer ones (`_bare_copy`: 200 MB of weights
        are not copied). Without data propagation where an integer or a 1-D tensor may have
        more than `_MAX_VALUES` elements (`_many_values`): it allocates for each element a
        Gather's indices claim, 600 MB for a 330-byte file whose indices claim 4 million,
        whether or not the file holds them, and for each of a 1-D x that a Slice reads.
        """
        onnx = onnx_package()
        left = self._refused.keys() | self._faults.keys()
        copy = _bare_copy(self._proto, left)
        for v in copy.graph.input:
            for d in v.type.tensor_type.shape.dim if v.type.HasField("tensor_type") else ():
                if d.HasField("dim_value") and d.dim_value < 0:  # unknown, as shape_of reads it
                    d.ClearField("dim_value")  # (ONNX's Slice inference aborts on it)
            shape = overrides.get(v.name)
            if shape is not None and v.type.HasField("tensor_type"):
                v.type.tensor_type.ClearField("shape")
                if shape.rank is not None:
                    dims = v.type.tensor_type.shape.dim
                    for d in shape.dims:
                        if d.is_static:
                            dims.add().dim_value = d.get_length()
                        else:
                            dims.add()

        faults: list[Problem] = []

        def infer(*, propagate: bool, strict: bool = False) -> Any:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return onnx.shape_inference.infer_shapes(
                        copy, check_type=strict, strict_mode=strict, data_prop=propagate
                    )
            except Exception as exc:  # noqa: BLE001 - onnx raises many kinds; nothing is inferred
                if strict and isinstance(exc, onnx.shape_inference.InferenceError):
                    faults.extend(inference_faults(self._proto.graph, str(exc), bool(left)))
                return None

        def types(model: Any) -> _Types:
            return {v.name: v.type for v in (*model.graph.value_info, *model.graph.output)}

        plain = infer(propagate=False, strict=not overrides)
        if plain is None and not overrides:  # strict refused: lenient, what it infers
            plain = infer(propagate=False)
        if plain is None:
            return {}, dict, faults, {}
        kept = (i for i in range(len(self._proto.graph.node)) if i not in left)
        nodes = {i: n for i, n in zip(kept, plain.graph.node, strict=True) if subgraphs(n)}
        if _many_values(copy.graph, plain.graph):
            return types(plain), lambda: types(plain), faults, nodes
        propagated = functools.cache(lambda: types(infer(propagate=True) or plain))
        return types(plain), propagated, faults, nodes

    def _constant(self, tensor: Any) -> Value:
        """An initializer or a Constant's tensor: its shape, type and (small) numbers."""
        onnx = onnx_package()
        shape = PartialShape(list(tensor.dims))
        etype = etype_name(tensor.data_type)
        size = int(np.prod(tensor.dims, dtype=np.int64)) if len(tensor.dims) else 1
        external = tensor.data_location == onnx.TensorProto.EXTERNAL
        limit = _MAX_VALUES if etype in _INDICES else SMALL  # index inputs can be long
        if external or size > limit or etype not in _READ:
            return Value(shape, etype, None, tensor.name)
        try:
            value = onnx.numpy_helper.to_array(tensor)
        except Exception:  # noqa: BLE001 - a tensor whose data does not match its dims
            return Value(PartialShape(None), etype, None, tensor.name)  # neither is known
        return Value(shape, etype, np.asarray(value), tensor.name)

    def _constant_node(self, node: Any) -> Value | None:
        onnx = onnx_package()
        for attr in node.attribute:
            if attr.name == "value" and attr.type == onnx.AttributeProto.TENSOR:
                return self._constant(attr.t)
            if attr.name == "value_int":
                return Value(PartialShape([]), "i64", np.asarray(attr.i, dtype=np.int64))
            if attr.name == "value_ints":
                ints = np.asarray(list(attr.ints), dtype=np.int64)
                return Value(PartialShape([len(ints)]), "i64", ints)
            if attr.name == "value_float":
                return Value(PartialShape([]), "f32", np.asarray(attr.f, dtype=np.float32))
            if attr.name == "value_floats":
                count = len(attr.floats)
                floats = np.asarray(attr.floats, dtype=np.float32) if count <= SMALL else None
                return Value(PartialShape([count]), "f32", floats)
        return None

    # -- check -----------------------------------------------------------------------------
    def check(self, input_shapes: Mapping[str, Any] | None = None) -> CheckReport:
        """Infer every checked node's outputs and report every problem found.

        ``input_shapes`` gives new shapes for some inputs (``{"x": "[?,3,224,224]"}``); then the
        shapes the file declares elsewhere are not compared, as `datamove.ir.Model.check` does.
        Unlike an IR's, they are held to the inputs' declared shapes, as onnxruntime holds its
        inputs (`_accepted`): another rank, or another size on a static declared dim, is a
        problem of the model (kind ``shape``); a ``?`` on a static declared dim is that dim.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from datamove.ir._examples import write_onnx_example
        >>> model = read_onnx(write_onnx_example(pathlib.Path(tempfile.mkdtemp())))
        >>> print(model.check())
        example: 4 nodes
          input  x: [2,6] f32
          output a: [2,2] f32
          output b: [2,4] f32
          output c: [2,6] f32
        checked 3 nodes (Slice 1, Split 1, Concat 1); 1 opaque (Relu 1)
        OK: no problems found
        """
        given = self._given(input_shapes)
        overrides = {n: shape for n, (shape, _) in given.items()}
        walk = self._walk(overrides, compare=not overrides)
        values, problems, notes, ports, _, read, inner = walk
        problems[:0] = [p for _, p in given.values() if p is not None]
        kinds = [node_kind(node) for node in self._proto.graph.node]
        known = [k for i, k in enumerate(kinds) if i not in self._refused | self._faults.keys()]
        split_1 = (self.opset or 0) < 2  # unsupported, not checked
        checked = Counter(k for k in known if k in CHECKED and not (k == "Split" and split_1))
        checked.update(read)
        opaque = Counter(k for k in known if k not in CHECKED and k != "Constant")
        opaque.update(kinds[i] for i in self._refused | self._faults.keys())
        opaque.subtract(read)
        notes[:0] = newer_opsets(self._imports)
        problems = once_per_fault(problems)
        checked, opaque = +checked, +opaque  # no kind counted 0 times
        inputs = {n: (values[n].shape, values[n].etype) for n in self.inputs}
        none = Value(PartialShape(None), None)
        outputs = {n: (values.get(n, none).shape, values.get(n, none).etype) for n in self.outputs}
        return CheckReport(
            self.name,
            len(self._proto.graph.node),
            tuple(dataclasses.replace(p, unit="node") for p in problems),
            inputs,
            outputs,
            dict(checked),
            dict(opaque),
            ports,
            tuple(dataclasses.replace(p, unit="node") for p in notes),
            unit="node",
            inner=dict(inner),
        )

    def _walk(
        self, overrides: Mapping[str, PartialShape], *, compare: bool
    ) -> tuple[
        dict[str, Value],
        list[Problem],
        list[Problem],
        dict[tuple[str, int], PartialShape],
        list[Node],
        list[str],
        Counter[str],
    ]:
        """Each value, the problems and notes, each port's shape, the nodes explain lists.

        And the kinds of the sequence nodes read, one per node.
        """
        graph = self._proto.graph
        values: dict[str, Value] = {}
        problems: list[Problem] = []
        notes: list[Problem] = []
        ports: dict[tuple[str, int], PartialShape] = {}
        walked: list[Node] = []
        sequences: dict[str, list[Value]] = {}  # a SplitToSequence's output -> its parts
        read: list[str] = []  # the kinds of the sequence nodes read
        inner_checked: Counter[str] = Counter()  # the checked nodes of bodies and functions
        links: dict[str, Link] = {}  # one-element values that are another's plus c (_offsets)
        for name, tensor in self._inits.items():
            v = self._constant(tensor)
            values[name] = Value(v.shape, v.etype, v.value, name, f"initializer {name!r}")
        for name, (shape, etype) in self.inputs.items():
            values[name] = Value(overrides.get(name, shape), etype, None, name, f"input {name!r}")
        inferred: _Inferred | None = None
        misread: set[str] = set()  # the values ONNX infers from an input it misreads
        truncated: dict[int, Chains] = {}  # a node's truncated Splits inside (`_Inner`)
        narrowed: dict[int, list[str]] = {}  # the Splits onnxruntime cannot run, by node
        seen: set[int] = set()  # the function calls walked (by their `_call`), listed once
        # a view or join of these is no data movement
        indices = _index_only(graph.node, [o.name for o in graph.output])
        for i, node in enumerate(graph.node):
            where = lid, lname, kind = str(i), node_name(node), node_kind(node)
            ins: list[Value] = []
            for k, name in enumerate(node.input):
                if not name:  # an optional input left out
                    ins.append(Value(PartialShape(None), None, None, None))
                    continue
                if name not in values:
                    raise ONNXError(
                        f"node {i} {lname!r} ({kind}) input {k}",
                        name,
                        "names no value defined before it (a graph input, an initializer, or "
                        "an output of an earlier node); the graph is not a valid ONNX graph",
                    )
                ins.append(values[name])
            outs: list[Value] | None = None
            refused = self._refused.get(i)  # ONNX has no such operator: the node is opaque
            fault = self._faults.get(i)  # its schema refuses the node: it is not read
            # a shape subgraph node's value or bounds, for each output
            shaped, note = _shape_node(node, ins, self.opset, read=not (fault or refused))
            if note is not None:
                notes.append(Problem(SHAPE_NOTE, note, *where))
            if refused is not None:
                problems.append(Problem("unsupported", refused, *where))
            elif kind == "Constant":
                const = self._constant_node(node)
                outs = [const] if const is not None else None
            elif kind in SEQUENCE_NODES and fault is None:
                try:
                    outs = self._sequence(node, kind, ins, sequences, read)
                except ValidationError as exc:
                    problems.append(Problem(getattr(exc, "kind", "operator"), str(exc), *where))
                    read.append(kind)
            elif kind in CHECKED and fault is None:
                try:
                    outs = self._infer(node, kind, ins, self.opset)
                    if kind == "Slice":  # ends of one value plus constants: bounded
                        outs = [linked_slice(node, ins, outs[0], links)]
                except ValidationError as exc:
                    problems.append(Problem(getattr(exc, "kind", "operator"), str(exc), *where))
            elif kind in ONE_OUTPUT and fault is None:  # checked where its parameter is known
                try:
                    rule = ONE_OUTPUT[kind]
                    if kind in ("Gather", "GatherND"):  # its index's terms name this graph's
                        read_by = gather_value if kind == "Gather" else gather_nd_value
                        rule = functools.partial(read_by, scope=values)
                    view = rule(node, ins, self.opset or 0)
                    outs = [view] if view else None
                except ValidationError as exc:
                    problems.append(Problem(getattr(exc, "kind", "operator"), str(exc), *where))
                    outs = []  # its output as declared
                read.extend([kind] if outs is not None else [])
            if fault is not None:
                problems.append(Problem(*fault, *where))
                outs = None
            inner: list[_Inner] = []  # its subgraphs' nodes, its function's
            if refused is None and fault is None and subgraphs(node):  # as ONNX infers them
                inferred = inferred or self._onnx_inferred(overrides)
                body, taken = inferred[3].get(i, node), bool(overrides)
                types = inferred[0]
                inner.append(
                    self._bodies(
                        body, values, seen, taken=taken, source=node, said=types, misread=misread
                    )
                )
            called = None if refused or fault else self._call(node, ins)
            if called is not None:  # nodes listed once per inputs
                if id(called) not in seen:
                    inner.append(called)
                    seen.add(id(called))
                else:
                    inner.append(  # (its nodes listed once)
                        _Inner(
                            called.faults,
                            truncated=called.truncated,
                            misread=called.misread,
                            narrowed=called.narrowed,
                        )
                    )
            wrongs = {k for walk in inner for k in walk.misread}  # ONNX misreads a value there
            for k, out in enumerate(node.output):
                declared = self._declared.get(out)
                if outs is not None and k < len(outs):
                    got = outs[k]
                    if compare and declared is not None:
                        _compare(problems, notes, where, k, declared, got)
                    fold = shaped[k]  # a checked node's part of a shape subgraph (Split)
                    if fold is not None and _fits(fold, got.shape, got.etype):
                        got = fold
                else:  # opaque: as declared; else (or with new input shapes) as ONNX infers
                    ask = overrides or declared is None or None in (declared[0].rank, declared[1])
                    if inferred is None and (ask or compare):
                        inferred = self._onnx_inferred(overrides)
                    plain, propagated, _, _ = inferred or ({}, dict, [], {})
                    wrong = k in wrongs or any_misread(node.input, values, plain, misread)
                    said = None if wrong else plain.get(out)  # (most often as declared)
                    if compare and declared is not None and said not in (None, self._types[out]):
                        clash(problems, where, k, declared, shape_of(said))
                    type_proto = propagated().get(out) if ask else None
                    found = None if type_proto is None else shape_of(type_proto)
                    if wrong:  # its element type, not its shape
                        misread.add(out)
                        found = None if found is None else (PartialShape(None), found[1])
                    shape, etype = found or declared or (PartialShape(None), None)
                    got = Value(shape, etype)
                    fold = shaped[k] if k < len(shaped) else None
                    if fold is not None and _fits(fold, shape, etype):
                        got = fold  # a shape subgraph's value or bounds
                if got.maker is None:  # named after the node (and the output, of several)
                    many = len(node.output) > 1
                    source = f"{lname}_{k}" if many else lname
                    maker = f"node {i} {lname!r} ({kind})" + (f" output {k}" if many else "")
                    got = got.named(source, maker)
                if out in values:  # onnx.checker and onnxruntime refuse it ("SSA form")
                    raise ONNXError(
                        f"node {i} {lname!r} ({kind}) output {k}",
                        out,
                        "names a value defined before it (a graph input, an initializer, or an "
                        "output of an earlier node); the graph is not a valid ONNX graph",
                    )
                if out:
                    values[out] = got
                ports[(lid, k)] = got.shape
            if refused is not None or fault is not None:  # not read, so not explained
                continue
            if node.output and node.output[0] in values:
                link_value(node, ins, values[node.output[0]], links)
            if (on := _listed(node, kind, ins, values, indices)) is not None:
                tied = tuple(link_of(links, n) for n in node.input) if kind == "Slice" else ()
                walked.append(Node(i, node, self.opset or 0, on, _outs(node, values), links=tied))
            for walk in inner:
                top = place_of(*where, None, "node")  # as check's problems name it
                problems.extend(Problem(kind, rule, *where) for kind, rule in walk.faults)
                notes.extend(Problem(SHAPE_NOTE, note, *where) for note in walk.notes)
                walked += [
                    dataclasses.replace(n, index=i, place=f"{top}: {n.place}") for n in walk.nodes
                ]
                inner_checked.update(walk.checked)
                truncated.setdefault(i, {}).update(walk.truncated)
                narrowed.setdefault(i, []).extend(walk.narrowed)
            if kind == "Split" and (why := narrowed_split(node, values)) is not None:
                narrowed.setdefault(i, []).append(why)
        if compare:  # the nodes ONNX's strict inference refuses, as onnx.checker does
            named = {p.layer_id for p in problems}  # (datamove's own words first)
            faults = (inferred or self._onnx_inferred(overrides))[2]
            within: Within | None = None  # the nodes the last fault is inside
            for p in faults:
                if p.layer_id is not None and p.layer_id in named:
                    continue
                at, why, within = split_fault(graph, p, values, truncated, within)
                if not why:
                    problems.append(p)
                else:  # ONNX's Split rule is wrong there: the spec's (datamove's) decides
                    node, said = graph.node[at], f"{why}; {RUNS_ONNX_INFERENCE}"
                    notes.append(
                        Problem("onnxruntime", said, str(at), node_name(node), node_kind(node))
                    )
            self._refused_at_load = any(n.kind == "onnxruntime" for n in notes)
        # a Split onnxruntime cannot run on these shapes (new input shapes too: where it runs,
        # the sizes known), where it loads the file
        if any(narrowed.values()) and (compare or overrides) and not self._unloaded():
            for i, whys in narrowed.items():
                if whys:
                    node, said = graph.node[i], f"{'; '.join(whys)}; {LOADS_NOT_RUNS}"
                    notes.append(
                        Problem("onnxruntime", said, str(i), node_name(node), node_kind(node))
                    )
        return values, problems, notes, ports, walked, read, inner_checked

    def _unloaded(self) -> bool:
        """Whether onnxruntime refuses the file at load: ONNX's inference refuses a Split.

        As the walk on the file's shapes finds (`split_fault`), whatever the shapes it then
        runs on (``input_shapes``): onnxruntime loads the file as it declares them.
        """
        if self._refused_at_load is None:
            self._walk({}, compare=True)
        return bool(self._refused_at_load)

    def _sequence(
        self,
        node: Any,
        kind: str,
        ins: list[Value],
        sequences: dict[str, list[Value]],
        read: list[str],
    ) -> list[Value] | None:
        """A SequenceAt's part (its output), where its sequence's parts are known.

        A SplitToSequence's parts are kept under its output's name (``None``: the node is
        opaque, its output a sequence). `ValidationError` for a rule broken.
        """
        if kind == "SplitToSequence":
            parts = sequence_parts(node, ins)
            if parts is not None:
                read.append(kind)
                if node.output and node.output[0]:
                    sequences[node.output[0]] = [Value(p, ins[0].etype) for p in parts]
            return None
        if node.input[0] not in sequences:
            return None
        got = sequence_at(ins, sequences[node.input[0]])
        if got is None:
            return None
        read.append(kind)
        return [got]

    def _bodies(
        self,
        node: Any,
        outer: MutableMapping[str, Value],
        seen: set[int],
        *,
        taken: bool = False,
        source: Any = None,
        said: MutableMapping[str, Any] | None = None,
        misread: AbstractSet[str] = frozenset(),
    ) -> _Inner:
        """The faults of the checked nodes in ``node``'s subgraphs, and the nodes explain lists.

        An If's branches, a Loop's or Scan's body, at any depth (each walked once), their
        values of ``outer`` scopes seen, walked by `_inner_nodes`; the outputs of nodes it does
        not check are as ONNX's inference gives them (``value_info`` of the subgraph), but
        after a value ONNX misreads (`any_misread`; ``said``: ONNX's types of the outer scopes,
        ``misread`` their values it misreads), as the file declares them (``source``: ``node``
        as the file holds it), else unknown. ``node``'s outputs ONNX infers from such a value
        are the walk's ``misread``: an If's of either branch, a Loop's of its body's outputs
        after the condition, a Scan's of its body's. With
        ``taken`` (new input shapes: where it runs, not as declared), an If of the graph whose
        condition is known there (``x.shape[1] == 1``) but not on the file's shapes runs one
        branch, the other is not walked: torch's ``squeeze(1)`` squeezes in the branch it
        skips at a dim of 0. (A condition known on the file's shapes too, a Constant: both
        branches, as onnxruntime infers both when it reads the model.)
        """
        found = _Inner()
        cond = (
            outer.get(node.input[0]) if taken and node_kind(node) == "If" and node.input else None
        )
        skip = None
        if cond is not None and cond.value is not None and cond.value.size == 1:
            if self._as_declared is None:
                self._as_declared = self._walk({}, compare=False)[0]
            declared = self._as_declared.get(node.input[0])
            if declared is not None and declared.value is None:
                skip = "else_branch" if cond.value.item() else "then_branch"
        sources = subgraphs(node if source is None else source)
        for (attr, graph), (_, held) in zip(subgraphs(node), sources, strict=True):
            if attr == skip:
                continue
            scope = collections.ChainMap({}, outer)
            for v in graph.input:
                scope[v.name] = Value(*(shape_of(v.type) or (PartialShape(None), None)))
            for t in graph.initializer:
                scope[t.name] = self._constant(t)
            types: MutableMapping[str, Any] = {
                v.name: v.type for v in (*graph.value_info, *graph.output)
            }
            types = types if said is None else collections.ChainMap(types, said)
            at = f"its {attr}'s"
            walk = self._inner_nodes(
                graph.node,
                at,
                scope,
                types,
                self.opset,
                seen,
                taken=taken,
                source=held,
                misread=set(misread),
            )
            found.faults += walk.faults
            found.notes += walk.notes
            found.nodes += walk.nodes
            found.checked.update(walk.checked)
            found.truncated |= walk.truncated
            found.narrowed += walk.narrowed
            # a Loop's body outputs its condition first
            lead = 1 if node_kind(node) == "Loop" else 0
            found.misread |= {k - lead for k in walk.misread if k >= lead}
        return found

    def _call(self, node: Any, ins: list[Value]) -> _Inner | None:
        """The walk of the model-local function ``node`` calls (``None``: it calls none).

        On the values ``ins`` it passes, walked by `_inner_nodes` once per function and
        distinct input shapes, types and constant values (a model calls one thousands of
        times): a function reads no outer scope, and its nodes' outputs it does not check are
        unknown. Its nodes explain lists carry the shapes the call passes.
        """
        if not self._functions:  # most models: no lookup per node
            return None
        func = self._functions.get((node.domain, node.op_type, node.overload))
        if func is None:
            return None
        key = (id(func), *(_call_key(v) for v in ins))
        if key not in self._calls:
            scope = dict(zip(func.input, ins, strict=False))  # inputs left out: unknown
            call = {name: str(v.shape) for name, v in scope.items()}
            passed = {name: got for name, v in scope.items() if (got := _call_value(v))}
            opset = next((o.version for o in func.opset_import if o.domain == ""), self.opset)
            at = f"its function {node_kind(node)}'s"
            walk = self._inner_nodes(func.node, at, scope, {}, opset, set(), source=func)
            # the caller's tensors whose dims the values passed read, named in the function too
            local = {*func.input, *(o for n in func.node for o in n.output)}
            clash = frozenset(_dims_read(ins) & local)
            for n in walk.nodes:  # (a node of a function it calls has that call's)
                if n.call is None:
                    n.call, n.passed, n.clash = call, passed, clash
            self._calls[key] = walk
        return self._calls[key]

    def _inner_nodes(
        self,
        nodes: Iterable[Any],
        at: str,
        scope: MutableMapping[str, Value],
        types: MutableMapping[str, Any],
        opset: int | None,
        seen: set[int],
        *,
        taken: bool = False,
        source: Any,
        misread: set[str] | None = None,
    ) -> _Inner:
        """Each fault (kind, rule) of a checked node of ``nodes``, and the nodes explain lists.

        The nodes of a subgraph or a function, named ``at`` (``its then_branch's``), ``scope``
        their values so far. A checked node (`CHECKED`) is inferred as in the graph, a shape
        subgraph's node evaluated as there (`_shape_node`; its note one of ``notes``), an
        Unsqueeze's or Squeeze's axes checked (`view_data_shape`) and its output's shape inferred
        where its axes are known (`view_shape`; a Squeeze of none, `squeezed`), and the
        others' outputs are ``types``' (else unknown); each node's subgraphs and the function
        it calls, in turn (its nodes listed once per distinct inputs: ``seen``, the calls
        walked). A function's node with an attribute its call sets (``ref_attr_name``) is not
        checked, nor evaluated, nor listed.
        SplitToSequence and SequenceAt are read as in the graph (`_sequence`), of the
        sequences made in ``nodes`` (one of an outer graph's is not read). The nodes explain
        lists are listed as the graph's are (`_listed`, an Unsqueeze, Squeeze or Concat whose
        outputs only indices read there left out: `_index_only`).
        ``taken``: `_bodies`'. ``source``: the subgraph or function as the file holds it.

        A Split there ONNX's inference reads in 32 bits (`truncated_split`) is ``truncated``;
        its parts, a Slice's output ONNX infers otherwise where ``types`` has none of it
        (`slice_misread`: a function's), and the values ONNX infers from one it misreads are
        ``misread`` (those of the outer scopes so given): an opaque node's outputs after one
        are as the file declares them (not ONNX's ``types``), else unknown, and the walk's
        ``misread`` holds the outputs of ``source`` among them.
        """
        unknown = Value(PartialShape(None), None)
        found = _Inner()
        sequences: dict[str, list[Value]] = {}  # a SplitToSequence's output -> its parts
        misread = set() if misread is None else misread
        function = isinstance(source, onnx_package().FunctionProto)  # its outputs are names
        declared = {} if function else _typed((*source.value_info, *source.output))
        outputs = [o if function else o.name for o in source.output]
        indices = _index_only(source.node, outputs)  # as in the graph
        for inner, held in zip(nodes, source.node, strict=True):
            kind, where = node_kind(inner), f"{at} node {node_name(inner)!r} ({node_kind(inner)})"
            ins = [scope.get(name, unknown) for name in inner.input]
            outs: list[Value | None] = []
            if kind == "Constant":
                outs = [self._constant_node(inner)]
            by_call = any(a.ref_attr_name for a in inner.attribute)  # its attribute is the call's
            shaped, note = _shape_node(inner, ins, opset, read=not by_call)  # as in the graph
            if note is not None:
                found.notes.append(f"{where}: {note}")
            try:
                if by_call:
                    pass
                elif kind in CHECKED:
                    found.checked[kind] += 1
                    outs = [*self._infer(inner, kind, ins, opset)]
                elif kind in ONE_OUTPUT:  # checked where read (a rule broken too: below)
                    outs = [ONE_OUTPUT[kind](inner, ins, opset or 0)]
                    found.checked.update([kind] if outs[0] else [])
                elif kind in SEQUENCE_NODES:  # read as in the graph
                    read: list[str] = []
                    outs = [*(self._sequence(inner, kind, ins, sequences, read) or [])]
                    found.checked.update(read)
                elif kind in VIEWS and (shape := ins[0].shape).rank is not None:
                    axes = view_axes(inner, ins, opset or 0)
                    view = shape if isinstance(axes, str) else view_data_shape(kind, axes, shape)
                    if isinstance(view, str):
                        found.faults.append(("operator", f"{where}: ONNX {kind}: {view}"))
                    elif empty_squeeze(kind, axes, opset or 0):  # its input, as in the graph
                        outs = [Value(shape, ins[0].etype)]
                    elif axes is not None and not isinstance(axes, str):  # its output's shape
                        moved = view_shape(kind, Value(view, ins[0].etype).info(), axes)
                        outs = [Value(moved.shape, ins[0].etype)] if moved is not None else []
                    elif axes is None and shape.is_static:  # a Squeeze of no axes (`squeezed`)
                        outs = [Value(squeezed(shape), ins[0].etype)]
            except ValidationError as exc:
                found.faults.append((getattr(exc, "kind", "operator"), f"{where}: {exc}"))
                found.checked.update([kind] if kind in (*ONE_OUTPUT, *SEQUENCE_NODES) else [])
            truncated = None if by_call else truncated_split(inner, scope)
            if truncated is not None:
                found.truncated[((inner.op_type, inner.name),)] = f"{where}: {truncated}"
            wrong = (
                truncated is not None
                or any_misread(inner.input, scope, types, misread)
                or (not by_call and slice_misread(inner, ins, outs, types, opset))
            )
            bodies = self._bodies(
                inner, scope, seen, taken=taken, source=held, said=types, misread=misread
            )
            called = self._call(inner, ins)
            wrongs = bodies.misread | (called.misread if called is not None else set())
            for k, out in enumerate(inner.output):
                got = outs[k] if k < len(outs) else None
                said = shape_of(types[out]) if out in types else None
                if (wrong or k in wrongs) and out:  # ONNX's shape of it is not taken
                    misread.add(out)
                    etype = None if said is None else said[1]
                    said = declared.get(out) or (PartialShape(None), etype)
                got = got or (Value(*said) if said else unknown)
                fold = shaped[k] if k < len(shaped) else None
                scope[out] = fold if fold is not None and _fits(fold, got.shape, got.etype) else got
            if not by_call and (on := _listed(inner, kind, ins, scope, indices)) is not None:
                found.nodes.append(Node(-1, inner, opset or 0, on, _outs(inner, scope), where))
            if kind == "Split" and not by_call and (why := narrowed_split(inner, scope)):
                found.narrowed.append(f"{where}: {why}")
            found.add(where, bodies, node=inner)
            if called is not None:
                found.add(where, called, id(called) not in seen, node=inner)
                seen.add(id(called))
        found.misread = {
            k for k, o in enumerate(outputs) if any_misread([o], scope, types, misread)
        }
        return found

    def _infer(self, node: Any, kind: str, ins: list[Value], opset: int | None) -> list[Value]:
        """A checked node's outputs; `ValidationError` (with ``kind``) for a broken rule."""
        opset = opset or 0
        if kind == "Concat":
            return [concat(node, ins)]
        if kind == "Slice":
            return [slice_value(node, ins, opset)]
        return [Value(s, ins[0].etype) for s in split_shapes(node, ins, opset)]

    # -- explain ---------------------------------------------------------------------------
    def _overrides(self, input_shapes: Any) -> dict[str, PartialShape]:
        """``input_shapes`` of `check` or `explain`: each named input -> its shape.

        As `_accepted` holds it to the file's declared shape (a refused shape as given).
        """
        return {n: shape for n, (shape, _) in self._given(input_shapes).items()}

    def _given(self, input_shapes: Any) -> dict[str, tuple[PartialShape, Problem | None]]:
        """Each named input -> its shape (`_accepted`) and the problem of a refused one."""
        given = given_shapes(input_shapes, self.inputs, self.inputs, ONNXError)
        found = {}
        for n, s in given:
            shape = as_partial_shape(s, "ONNX", f"input_shapes[{n!r}]")
            found[n] = _accepted(n, self.inputs[n][0], shape)
        return found

    def explain(
        self, layer: str | None = None, input_shapes: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Each Slice, Split, Concat, Unsqueeze, Squeeze, SplitToSequence, SequenceAt and Gather.

        (A Gather where its indices are constant, computed from dims or a Range, and its data
        is not a shape subgraph's: `datamove.ir._explain.gather_expression`. An Unsqueeze,
        Squeeze or Concat whose outputs only indices read is not listed: `_index_only`.)

        Its id (index), name, shapes, NumPy expression, and a note where it has none. A
        Concat's entry is an IR Concat layer's (`datamove.ir._explain.concat_entry`), each
        input's source named by the node or graph input that makes it; a Concat, Unsqueeze or
        Squeeze of a shape subgraph (its value computed) is left out, as in an IR. A
        SplitToSequence's ``output_shapes`` and ``numpy`` are its parts', a SequenceAt's its
        part's, on the SplitToSequence's data ``x`` (named under ``sequence``).

        A node of an If's, Loop's or Scan's subgraph or of a model-local function a node
        calls (at any depth) is listed after that node, with its ``place`` as check's problems
        name it (``node 0 'if' (If): its then_branch's node 'cut' (Slice)``) and, in a
        function, the shapes the call passes (``call_inputs``) and the values where known
        (``call_values``: ``[3]``, ``[x.shape[0]]``), once per distinct ones; its id
        is that node's. A node onnx.checker refuses (its operator, or its schema:
        `schema_fault`) is not read, so not listed. ``layer`` picks them by index (a holding
        or calling node's picks its inner ones) or name; `ValidationError` if none matches
        (saying why, where it names a node not listed). ``input_shapes`` gives new shapes for
        some inputs, as `check` takes them: the nodes are explained on the shapes inferred.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from datamove.ir._examples import write_onnx_example
        >>> model = read_onnx(write_onnx_example(pathlib.Path(tempfile.mkdtemp())))
        >>> [(i["name"], i["numpy"]) for i in model.explain()]
        [('cut', 'x[:, ::-2]'), ('parts', ['x[:, :2]', 'x[:, 2:]']),
         ('join', 'np.concatenate([x0, x1], axis=1)')]
        """
        values, _, _, _, walked, _, _ = self._walk(self._overrides(input_shapes), compare=False)
        found = []
        # (its graph, named as place names it; a sequence) -> its maker's name and entry
        sequences: dict[tuple[str | None, str], tuple[str, dict[str, Any]]] = {}
        for node in walked:
            name = node_name(node.proto)
            graph = None  # the graph's; else a body's or function's (its nodes' place, cut)
            if node.place is not None:
                graph = node.place.removesuffix(f" node {name!r} ({node_kind(node.proto)})")
            if node.proto.op_type == "SplitToSequence":
                info = explain_split_to_sequence(node)
                maker = node.place or f"node {node.index} {name!r} (SplitToSequence)"
                sequences |= {(graph, o): (maker, info) for o in node.proto.output[:1] if o}
            elif node.proto.op_type == "SequenceAt":
                info = explain_sequence_at(node, sequences.get((graph, node.proto.input[0])))
            elif node.proto.op_type == "Concat":
                info = explain_concat(node)
            elif node.proto.op_type in VIEWS:
                info = explain_view(node)
            elif node.proto.op_type in ("Gather", "GatherND"):
                info = explain_gather(node)
            else:
                info = explain_cut(node)
            if node.place is not None:
                info["place"] = node.place
            if node.call is not None:
                info["call_inputs"] = node.call
            if node.passed:
                info["call_values"] = node.passed
            if layer is None or layer in (str(node.index), name):
                found.append(info)
        if layer is not None and not found:
            nodes = enumerate(self._proto.graph.node)
            other = next(((i, n) for i, n in nodes if layer in (str(i), node_name(n))), None)
            what = ""
            rule = None
            if other is not None:
                i, n = other
                why = f", a {n.op_type}"
                if i in self._refused:
                    why = f": {self._refused[i]}"
                elif i in self._faults:
                    why += f" onnx.checker refuses: {self._faults[i][1]}"
                else:  # a kind it explains, not listed: why not
                    ins = [values[v].info() for v in n.input if v in values]
                    made = values.get(n.output[0]) if n.output else None
                    reason = unlisted(node_kind(n), ins, None if made is None else made.info())
                    if reason is not None:
                        rule = f"names node {i} {node_name(n)!r}, a {n.op_type} {reason}"
                what = f" (it names node {i} {node_name(n)!r}{why})"
            raise ValidationError(
                "explain",
                "--layer",
                layer,
                rule
                or f"names no {', '.join(EXPLAINED_NODES[:-1])} or {EXPLAINED_NODES[-1]} node "
                f"of the model (by index or name){what}",
                hint="datamove explain MODEL lists the nodes it explains, with their indices",
            )
        return found


_INTEGER_CODES: Final = frozenset(
    code for code, name in ETYPES.items() if name[0] in "iu" and name[1:].isdigit()
)


def _accepted(
    name: str, declared: PartialShape, given: PartialShape
) -> tuple[PartialShape, Problem | None]:
    """The shape input ``name`` takes where ``given``, and a problem where onnxruntime refuses it.

    ``declared`` is the shape the file declares for it.

    onnxruntime (unlike OpenVINO's ``reshape``) never changes a model's input shapes: at run
    time it refuses an input of another rank than declared ("Invalid rank for input") or
    whose size on an axis of a static declared dim is another ("Got invalid dimensions for
    input"). A symbolic or unnamed dim takes any size, each on its own (a name shared by
    two inputs ties nothing), and a declared rank 0 any shape: it checks the rank only of
    inputs of rank 1 or more. A given dim that holds the declared size (``?``, ``2..10`` on
    a declared 8) is that size; a given shape of dynamic rank is the declared one.
    """
    if declared.rank is None or declared.rank == 0:
        return given, None
    if given.rank is None:
        return declared, None
    if given.rank != declared.rank:
        rule = (
            f"input {name!r} is declared {declared}, of rank {declared.rank}; the shape given, "
            f"{given}, is of rank {given.rank}: onnxruntime refuses such an input "
            f'("Invalid rank for input: {name} Got: {given.rank} Expected: {declared.rank}")'
        )
        return given, Problem("shape", rule)
    dims: list[Dimension] = []
    refused: list[str] = []
    for axis, (want, got) in enumerate(zip(declared.dims, given.dims, strict=True)):
        if not want.is_static:
            dims.append(got)
        elif want.get_length() in got:
            dims.append(want)
        else:
            dims.append(got)
            word = "not" if got.is_static else "never"
            refused.append(f"{got} on axis {axis}, {word} {want.get_length()}")
    if not refused:
        return PartialShape(dims), None
    rule = (
        f"input {name!r} is declared {declared}; the shape given, {given}, has "
        f"{', '.join(refused)}: onnxruntime refuses such an input "
        f'("Got invalid dimensions for input: {name}")'
    )
    return given, Problem("shape", rule)


def _bare_copy(model: Any, left: AbstractSet[int]) -> Any:
    """The copy of ``model`` ONNX's inference runs on: no value_info, output types, nodes ``left``.

    Its initializers keep their data only where integers of at most `_MAX_VALUES` elements (the
    rest: name, type and dims), as the inference reads them (a Reshape's shape; a weight's dims),
    and their ``value_info``, which it checks them against. A node left out gives its outputs as
    graph inputs of the tensor types the file declares (else none: the nodes reading them are
    left untyped).
    """
    copy = type(model)()
    _copy_fields(model, copy, skip="graph")
    _copy_fields(model.graph, copy.graph, skip=("initializer", "value_info", "node"))
    graph, nodes = model.graph, model.graph.node
    made = {o for i in left for o in nodes[i].output}
    declared = {v.name: v for v in (*graph.value_info, *graph.output) if v.name in made}
    copy.graph.node.extend(n for i, n in enumerate(nodes) if i not in left)
    inits = {t.name for t in graph.initializer}
    copy.graph.value_info.extend(v for v in graph.value_info if v.name in inits)
    copy.graph.input.extend(v for v in declared.values() if (t := shape_of(v.type)) and t[1])
    inputs = {v.name for v in copy.graph.input}
    for v in copy.graph.output:
        # No type, never an empty one: that overrides an input's, and a node reading the
        # output of a node ONNX refuses stops its typed inference ("Invalid tensor data type 0")
        if v.name in inputs or v.name in made or v.type.HasField("tensor_type"):
            v.ClearField("type")
    for t in model.graph.initializer:
        if t.data_type in _INTEGER_CODES and math.prod(t.dims) <= _MAX_VALUES:
            copy.graph.initializer.add().CopyFrom(t)
        else:
            copy.graph.initializer.add(name=t.name, data_type=t.data_type, dims=t.dims)
    return copy


def _copy_fields(source: Any, target: Any, skip: str | tuple[str, ...]) -> None:
    """Copy each field of a protobuf message ``source`` set, but those named in ``skip``."""
    for field, value in source.ListFields():
        if field.name in skip:
            continue
        held = getattr(target, field.name)
        if hasattr(held, "extend"):  # a repeated field
            held.extend(value)
        elif field.message_type is not None:
            held.CopyFrom(value)
        else:
            setattr(target, field.name, value)


def _many_values(graph: Any, inferred: Any) -> bool:
    """Whether an integer or a 1-D tensor of ``graph`` may have more than `_MAX_VALUES` elements.

    By the dims it declares or ONNX infers for it (``inferred``, without data propagation): a
    graph input or output, a value, an initializer, a ``Constant`` node's tensor (1-D of any
    element type: not an initializer's or a Constant's, whose data is in the file). ONNX's data
    propagation allocates for each element of an integer tensor where a Gather reads it as
    indices, and of a 1-D one that a Slice, Concat, Gather, Squeeze or Unsqueeze reads (onnx
    1.23: a float x of ``[INT64_MAX]`` ends the process).
    """

    def many(dims: Iterable[int]) -> bool:
        return math.prod(max(int(d), 0) for d in dims) > _MAX_VALUES

    for v in (*inferred.input, *inferred.value_info, *inferred.output):
        found = v.type.tensor_type if v.type.HasField("tensor_type") else None
        if found is None:
            continue
        dims = found.shape.dim
        if (found.elem_type in _INTEGER_CODES or len(dims) == 1) and many(
            d.dim_value for d in dims if d.HasField("dim_value")
        ):
            return True
    tensors = [*graph.initializer]
    tensors += [a.t for n in graph.node for a in n.attribute if a.HasField("t")]
    return any(t.data_type in _INTEGER_CODES and many(t.dims) for t in tensors)


def _fits(got: Value, shape: PartialShape, etype: str | None) -> bool:
    """Whether a folded value agrees with the shape and element type the file gives its port."""
    return shape.compatible(got.shape) and etype in (None, got.etype)


def _compare(
    problems: list[Problem],
    notes: list[Problem],
    where: tuple[str, str, str],
    port: int,
    declared: tuple[PartialShape, str | None],
    got: Value,
) -> None:
    """The problems (and note) of a node's output ``port`` declared ``declared``."""
    shape, etype = declared
    if not shape.compatible(got.shape):
        rule = f"declares {shape}, but the shape is {got.shape}"
        problems.append(Problem("shape", rule, *where, port))
    elif (
        shape.rank is not None
        and shape != got.shape
        and got.shape.rank == shape.rank
        and all(m in t for t, m in zip(shape.dims, got.shape.dims, strict=True))
    ):
        rule = f"declares {shape}; datamove infers {got.shape}"
        notes.append(Problem("looser", rule, *where, port))
    if etype is not None and got.etype is not None and etype != got.etype:
        rule = f"declares element type {etype}, but the element type is {got.etype}"
        problems.append(Problem("element-type", rule, *where, port))


# -- explain -------------------------------------------------------------------------------------
def _outs(node: Any, values: Mapping[str, Value]) -> list[PartialShape]:
    """The shapes of ``node``'s outputs, as ``values`` holds them (else unknown)."""
    return [values[o].shape if o in values else PartialShape(None) for o in node.output]


def _moves_data(kind: str, ins: list[Value], values: Mapping[str, Value], outs: Any) -> bool:
    """Whether a Concat, Unsqueeze or Squeeze moves data, not a shape subgraph's values.

    Its output is neither known nor bounded, nor are its data inputs (a view's first, every
    input of a Concat): a shape subgraph's node whose value is not computed is not listed.
    """
    data = ins if kind == "Concat" else ins[:1]
    out = values.get(outs[0])
    unbounded = [v for v in data if bounds_of(v.info()) is None]
    return bool(unbounded) and (out is None or bounds_of(out.info()) is None)


def _gathers(ins: list[Value], values: Mapping[str, Value], outs: Any) -> bool:
    """Whether a Gather takes data by constant or computed indices: explain lists it.

    Constant integer indices (`gathers`), indices a shape subgraph computes as expressions
    of dims (`_computed`), or a Range of unknown length (`range_span`).
    """
    return (
        len(ins) == 2
        and (gathers([v.info() for v in ins]) or _computed(ins) or _ranged(ins))
        and _moves_data("Gather", ins, values, outs)
    )


def _listed(
    node: Any, kind: str, ins: list[Value], values: Mapping[str, Value], indices: AbstractSet[str]
) -> list[Value] | None:
    """The inputs explain writes ``node`` on, where it lists the node; else ``None``.

    A Slice, Split or sequence node; a Concat, Unsqueeze or Squeeze that moves data
    (`_moves_data`), unless only indices read its outputs (``indices``: `_index_only`); a data
    Gather (`_gathers`); a GatherND that is one, on that Gather's inputs (`nd_as_gather`). The
    graph's nodes and a body's or function's alike, ``values`` those of their scope.
    """
    if kind in ("Slice", "Split", *SEQUENCE_NODES):
        return ins
    if kind in _JOINS_AND_VIEWS:
        moves = _moves_data(kind, ins, values, node.output) and not set(node.output) <= indices
        return ins if moves else None
    taken = ins if kind == "Gather" else nd_as_gather(node, ins) if kind == "GatherND" else None
    return taken if taken and _gathers(taken, values, node.output) else None


def _index_only(nodes: Iterable[Any], outputs: Iterable[str]) -> set[str]:
    """The values of ``nodes`` that only a Gather's or GatherND's indices read, at last.

    Each read as indices (input 1), or by a Concat, Unsqueeze, Squeeze, Reshape or Cast whose
    every output is such a value: the dynamo exporter's ``Unsqueeze(Range(...), [-1])`` for a
    GatherND computes indices, moving no data. One of ``outputs`` (the graph's, a body's or a
    function's), or a value a subgraph reads, is not one.
    """
    nodes = list(nodes)
    uses: dict[str, list[tuple[Any, int]]] = collections.defaultdict(list)
    for node in nodes:
        for k, name in enumerate(node.input):
            uses[name].append((node, k))
    read = set(outputs)
    read.update(n for node in nodes for _, g in subgraphs(node) for n in _reads(g))
    only: set[str] = set()

    def as_indices(user: Any, k: int) -> bool:
        if user.domain not in ("", "ai.onnx"):  # another domain's node: what it reads is unknown
            return False
        if user.op_type in ("Gather", "GatherND"):
            return k == 1
        passing = user.op_type in (*_JOINS_AND_VIEWS, "Reshape", "Cast")
        return passing and all(o in only for o in user.output)

    for node in reversed(nodes):  # each value's readers come after its maker
        for out in node.output:
            if out and out not in read and uses[out] and all(as_indices(*u) for u in uses[out]):
                only.add(out)
    return only


def _reads(graph: Any) -> Iterator[str]:
    """Every value name a graph's nodes read, in its subgraphs too."""
    for node in graph.node:
        yield from node.input
        for _, g in subgraphs(node):
            yield from _reads(g)


def _ranged(ins: list[Value]) -> bool:
    """Whether a Gather's indices are a Range of unknown length (`range_span`), on data."""
    data, indices = ins
    return indices.span is not None and data.value is None and bounds_of(data.info()) is None


def _computed(ins: list[Value]) -> bool:
    """Whether a Gather's indices are a shape subgraph's, each element a term, on data."""
    data, indices = ins
    return (
        indices.value is None
        and indices.terms is not None
        and indices.shape.rank in (0, 1)
        and data.value is None
        and bounds_of(data.info()) is None
    )


def _texts(proto: Any) -> Iterator[Any]:
    """Every name the checker reads: graph, nodes, values, attributes, domains."""
    graph = proto.graph
    yield graph.name
    for o in proto.opset_import:
        yield o.domain
    for v in (*graph.input, *graph.output, *graph.value_info, *graph.initializer):
        yield v.name
    for node in graph.node:
        yield from (node.name, node.op_type, node.domain, *node.input, *node.output)
        for a in node.attribute:
            yield a.name
            if a.HasField("t"):
                yield a.t.name


def _tensors(graph: Any) -> Iterator[Any]:
    """The graph's initializers and its nodes' tensor attributes (a ``Constant``'s value)."""
    yield from graph.initializer
    for node in graph.node:
        yield from (a.t for a in node.attribute if a.HasField("t"))


def read_onnx(path: str | os.PathLike[str]) -> ONNXModel:
    """Read an ONNX model (``.onnx``) to check and explain it; needs the ``onnx`` package.

    Raises
    ------
    ONNXError
        Where ``onnx`` is not installed, or for a file that is not an ONNX model (not a
        regular file, larger than 2 GiB, not a ModelProto, no graph, a node reading a value
        defined nowhere before it, a tensor with a negative dim).
    """
    onnx = onnx_package()
    name = os.fspath(path) if isinstance(path, str | os.PathLike) else path

    def error(rule: str) -> ONNXError:
        return ONNXError("path", name, rule)

    data = read_regular(path, error, max_bytes=_MAX_BYTES, what="an ONNX model")
    try:
        proto = onnx.load_model_from_string(data)  # never reads external data files
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError, and whatever else
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise error(f"is not an ONNX model: {reason}") from None
    if proto.ir_version < 1 or not proto.HasField("graph"):
        raise error("is not an ONNX model: it has no ir_version or no graph")
    bad = next((t for t in _texts(proto) if not isinstance(t, str)), None)
    if bad is not None:  # protobuf gives a string field that is not UTF-8 as bytes
        raise error(f"is not an ONNX model: it holds a name that is not UTF-8 text ({bad!r:.60})")
    for tensor in _tensors(proto.graph):
        if any(d < 0 for d in tensor.dims):
            dims = ",".join(map(str, tensor.dims))
            low = min(tensor.dims)
            raise error(
                f"holds the tensor {tensor.name!r}, which has a negative dim, {low} ([{dims}]): "
                "it is not a valid ONNX model"
            )
    model = ONNXModel(proto, os.fspath(path))
    if model.opset is None and any(not n.domain for n in proto.graph.node):
        raise error(
            "is not a valid ONNX model: it has nodes of the default domain but imports no "
            "opset of it (opset_import)"
        )
    return model
