"""The faults ONNX's tools find in a model, attributed to the node they name, for ONNX's check.

`datamove.ir._onnx`'s walk reports them as problems and notes; this module holds the rules it
reads them by, each taking what it needs (the graph, a node, the walk's values), no state:

- what onnx.checker refuses of a node before anything runs: an operator the model's opsets do
  not hold (`unknown_operator`), a node its operator's schema refuses (`schema_fault`), such a
  node inside a subgraph or a model-local function a node calls (`inner_fault`), and an opset
  newer than the installed onnx knows (`newer_opsets`, a note);
- ONNX's strict shape inference's error, read node by node (`inference_faults`), an opaque
  node's output declared otherwise than it infers (`clash`), and a function's fault once for
  all its calls (`once_per_fault`);
- where that inference is wrong rather than the model: its Split rule reads a dim in 32 bits
  (`truncated_split`, the fault it makes: `split_fault`), its Slice arithmetic overflows
  (`slice_misread`), and what it infers from such a value (`any_misread`); and a Split
  onnxruntime's kernel cannot run (`narrowed_split`, a count past ``INT32_MAX``).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Final

import numpy as np

from datamove._errors import plural
from datamove._shape import PartialShape
from datamove.ir._errors import where as place_of
from datamove.ir._model import Problem
from datamove.ir._onnx_shapes import ETYPES, node_attr, onnx_type
from datamove.ir._onnx_value import Value, node_kind, node_name, onnx_package, shape_of, subgraphs

__all__ = [
    "LOADS_NOT_RUNS",
    "RUNS_ONNX_INFERENCE",
    "Chains",
    "Known",
    "Within",
    "any_misread",
    "clash",
    "inference_faults",
    "inner_fault",
    "narrowed_split",
    "newer_opsets",
    "once_per_fault",
    "schema_fault",
    "slice_misread",
    "split_fault",
    "truncated_split",
    "unknown_operator",
]

_INT32_MAX: Final = 2**31 - 1  # ONNX's Split inference reads a dim past it wrong (C int)
# The domains whose operators onnx.checker requires to be in ONNX's registry (checker.cc)
_CHECKER_DOMAINS: Final = ("", "ai.onnx.ml", "ai.onnx.training")
# the nodes ONNX's fault names down to a node inside a subgraph or function, (op_type, name)
# each -> its place, as check names it, and why
Chains = dict[tuple[tuple[str, str], ...], str]
# a model-local function's (domain, name, overload) -> its fault, the inputs its nodes need
Known = dict[tuple[str, str, str], tuple[tuple[str, str] | None, dict[str, str]]]
_NAMED_CALLS: Final = 5  # the other calls a function's fault names, at most


def once_per_fault(problems: list[Problem]) -> list[Problem]:
    """``problems``, a fault within a function (``its function local.F's ...``) once.

    Its calls are walked once per distinct inputs and onnx.checker reads a function once, so
    each call has its fault: the first call's problem stands for all of them, naming the other
    calls with the same kind and words (``; the same fault in 2 other calls: node 1 'call1'
    (local.F), ...``). A fault of the call itself (its inputs: ``has 2 inputs, but ...``), or
    in its function with other words (a Split on other shapes), stays a problem of its own.
    """
    first: dict[tuple[str, str], int] = {}  # (kind, message) -> its problem's index in kept
    others: dict[int, list[str]] = collections.defaultdict(list)
    kept: list[Problem] = []
    for p in problems:
        if p.message.startswith("its function ") and p.layer_id is not None:
            key = (p.kind, p.message)
            if key in first:
                place = place_of(p.layer_id, p.layer_name, p.layer_type, None, "node")
                others[first[key]].append(place)
                continue
            first[key] = len(kept)
        kept.append(p)
    for k, places in others.items():
        named = ", ".join(places[:_NAMED_CALLS])
        more = len(places) - _NAMED_CALLS
        named += f" and {more} more" if more > 0 else ""
        tail = f"; the same fault in {plural(len(places), 'other call')}: {named}"
        kept[k] = dataclasses.replace(kept[k], message=kept[k].message + tail)
    return kept


_INFERENCE_FAULT = re.compile(r"\(op_type:([^,)]*)(?:, node name: ([^)]*))?\): (?:\[\w+\] )?(.*)")
# onnx's "Inferred elem type differs from existing elem type: (1) vs (7)", its types by number
_ELEM_TYPES = re.compile(r"(elem type[^:()]*: )\((\d+)\) vs \((\d+)\)")


def inference_faults(graph: Any, message: str, left: bool) -> list[Problem]:
    """The problems of ONNX's strict inference's error ``message``: one per node it names.

    onnx gives each node's fault as ``(op_type:MatMul, node name: mm): ...`` (no name for a
    nameless node); the first one of a node is kept, of a node of the graph where its type and
    name tell it (else the model's, naming the type and name). A node whose input ONNX left
    untyped after a fault before it, or where nodes were ``left`` out (`_onnx._bare_copy`), is
    not refused for itself ("Input 0 expected to have type but instead is null", "Input type
    for input at index 0 is null").
    """
    message = _ELEM_TYPES.sub(
        lambda m: f"{m[1]}({onnx_type(int(m[2]))}) vs ({onnx_type(int(m[3]))})", message
    )
    matches = list(_INFERENCE_FAULT.finditer(message))
    if not matches:  # the graph's own: an initializer's type other than an input's declares
        kind = "element-type" if message.startswith("[TypeInferenceError]") else "shape"
        why = re.sub(r"^\[\w+\] ", "", message.strip())
        return [Problem(kind, f"ONNX's shape inference refuses the model: {why}")]
    found: dict[tuple[str, str], Problem] = {}
    for match in matches:
        op, name, why = match[1], match[2] or "", match[3].strip()
        if (op, name) in found or ((found or left) and " is null" in why):
            continue
        nodes = [i for i, n in enumerate(graph.node) if (n.op_type, n.name) == (op, name)]
        where: tuple[str | None, str | None, str]
        if len(nodes) == 1:
            node = graph.node[nodes[0]]
            rule, where = "it", (str(nodes[0]), node_name(node), node_kind(node))
        else:  # nameless nodes of one type (one problem for them), or a subgraph's node
            rule, where = f"a {op} node {name!r}", (None, name or None, op)
        found[(op, name)] = Problem(
            "operator", f"ONNX's shape inference refuses {rule}: {why}", *where
        )
    return list(found.values())


RUNS_ONNX_INFERENCE: Final = (
    "onnx.checker and onnxruntime, which run it when they read the model, refuse the model; "
    "datamove reads the spec"
)


def truncated_split(node: Any, values: Mapping[str, Value]) -> str | None:
    """Why ONNX's inference of a Split ``node`` misreads its data, or ``None``.

    ONNX's Split rule (onnx 1.23, Split-2, 11, 13, 18) reads the dim on the axis as a C ``int``, 32
    bits: ``INT64_MAX`` as -1, ``2**32`` as 0. On a dim past ``INT32_MAX`` it refuses a legal
    node (``split=[1, INT64_MAX - 1]``: "Mismatch between the sum of 'split'"; 7 equal parts of
    ``INT64_MAX``: "not evenly splittable") or gives parts of the wrong size, never checked
    here: the spec's rule (`_onnx_rules.split_shapes`) gives its outputs.
    """
    if node_kind(node) != "Split" or not node.input or node.input[0] not in values:
        return None
    shape = values[node.input[0]].shape
    axis = node_attr(node, "axis", 0)
    if shape.rank is None or not -shape.rank <= axis < shape.rank:
        return None
    dim = shape.dims[axis]
    if not dim.is_static or dim.get_length() <= _INT32_MAX:
        return None
    n = dim.get_length()
    read = (n + 2**31) % 2**32 - 2**31
    return f"ONNX's Split inference reads the dim {n} on axis {axis} in 32 bits, as {read}"


LOADS_NOT_RUNS: Final = (
    "onnxruntime, where it loads the model, fails on the node at run time, even on an empty "
    "tensor; datamove reads the spec"
)


def narrowed_split(node: Any, values: Mapping[str, Value]) -> str | None:
    """Why onnxruntime's Split kernel cannot run a Split ``node``: a count past INT32_MAX.

    Its kernel (onnxruntime 1.32, CPU) takes the count of elements before the axis, from the
    axis on and after it, then each part's length on the axis, as a C ``int``, 32 bits: past
    ``INT32_MAX`` it fails, ``narrowing_error``, even on an empty tensor, whatever the axis
    (``[0,2**32]`` on axis 0: ``2**32`` elements after it). The first one past it, by the dims'
    least sizes (a dynamic dim may be 0: ``[65536,65536,?]`` on axis 0 may run), else ``None``.
    """
    if not node.input or node.input[0] not in values:
        return None
    shape = values[node.input[0]].shape
    axis = node_attr(node, "axis", 0)
    if shape.rank is None or not -shape.rank <= axis < shape.rank:
        return None
    axis %= shape.rank
    least = [d.min for d in shape.dims]
    counts = {
        f"the {{}} elements before axis {axis}": math.prod(least[:axis]),
        f"the {{}} elements from axis {axis} on": math.prod(least[axis:]),
        f"the {{}} elements after axis {axis}": math.prod(least[axis + 1 :]),
        "a part of {}": max(
            (
                v.shape.dims[axis].min
                for o in node.output
                if (v := values.get(o)) is not None and v.shape.rank == shape.rank
            ),
            default=0,
        ),
    }
    said = next((what.format(n) for what, n in counts.items() if n > _INT32_MAX), None)
    if said is None:
        return None
    return (
        f"its input {shape} on axis {axis}: onnxruntime's Split kernel takes {said} as a C "
        'int, 32 bits ("narrowing_error")'
    )


# onnx's words of a fault inside a node's subgraph or function: the node inside it names
_INNER_FAULT = re.compile(r"Inference error\(s\): \(op_type:([^,)]*)(?:, node name: ([^)]*))?\): ")
Within = tuple[int, tuple[tuple[str, str], ...]]  # a node of the graph, the nodes inside it


def _inside(why: str) -> tuple[tuple[tuple[str, str], ...], str]:
    """The nodes inside a node onnx's fault ``why`` names, ``(op_type, name)`` each, and why."""
    chain: list[tuple[str, str]] = []
    while (match := _INNER_FAULT.match(why)) is not None:
        chain.append((match[1], match[2] or ""))
        why = re.sub(r"^\[\w+\] ", "", why[match.end() :])
    return tuple(chain), why


def split_fault(
    graph: Any,
    fault: Problem,
    values: Mapping[str, Value],
    truncated: Mapping[int, Chains],
    within: Within | None,
) -> tuple[int, str, Within | None]:
    """Where and why ONNX's strict inference's ``fault`` is its Split rule's 32 bits, else why not.

    Of a Split of the graph (`truncated_split`) or inside a node's subgraphs or function
    (``truncated``, a node's by the nodes onnx names down to it). onnx lists the other faults
    of a graph inside, after the first, without the nodes holding it (``within``, the last
    fault's, else ``None``). The node of the graph, its place and why (empty: a fault of its
    own, not the Split rule's), and the nodes the next fault is inside.
    """
    if fault.layer_id is None:  # (one inside the node of the fault before it, or the graph's)
        op, name = fault.layer_type or "", fault.layer_name or ""
        rule = f"ONNX's shape inference refuses a {op} node {name!r}: "
        if within is None or not fault.message.startswith(rule):
            return -1, "", within
        i, chain = within[0], (*within[1][:-1], (op, name))
        why = fault.message.removeprefix(rule)
    else:
        i = int(fault.layer_id)
        chain, why = _inside(fault.message.removeprefix("ONNX's shape inference refuses it: "))
        if not chain:
            place = truncated_split(graph.node[i], values)
            return i, "" if place is None else f"{place}, and refuses it: {why}", None
    place = truncated.get(i, {}).get(chain)
    return i, "" if place is None else f"{place}, and refuses it: {why}", (i, chain)


def any_misread(
    names: Iterable[str],
    values: Mapping[str, Value],
    plain: Mapping[str, Any],
    misread: AbstractSet[str],
) -> bool:
    """Whether ONNX's inference reads one of the values ``names`` otherwise than check has it.

    One whose shape it infers incompatible with check's (its Slice arithmetic overflows on a dim
    of ``INT64_MAX``, its Split reads a dim in 32 bits: both give ``[2,0]``), or one it infers
    from such a value (``misread``): what it infers of a node reading it is then not taken.
    """
    for name in names:
        if name in misread:
            return True
        said = plain.get(name)
        got = None if said is None or name not in values else shape_of(said)
        if got is not None and not got[0].compatible(values[name].shape):
            return True
    return False


def slice_misread(
    node: Any,
    ins: list[Value],
    outs: list[Value | None],
    types: Mapping[str, Any],
    opset: int | None,
) -> bool:
    """Whether ONNX's inference gives a Slice ``node``'s output otherwise than check, ``outs``.

    Where ONNX's type of it is not at hand (``types``: a function's node, whose values ONNX
    infers only for its call), on data of a dim past ``INT32_MAX``: ONNX's Slice arithmetic
    overflows on a dim of ``INT64_MAX`` (``[2,0]`` for ``x[:, 1:]`` of ``[2,INT64_MAX]``).
    ONNX's rule for that node alone (``infer_node_outputs``) on check's inputs and constant
    values, as `any_misread` weighs the graph's values: the call's outputs are then not ONNX's.
    """
    got = outs[0] if outs else None
    if node_kind(node) != "Slice" or got is None or node.output[0] in types or not ins:
        return False
    data = ins[0].shape
    if data.rank is None or not any(d.is_static and d.min > _INT32_MAX for d in data.dims):
        return False
    onnx = onnx_package()
    codes = {name: code for code, name in ETYPES.items()}
    given, values = {}, {}
    for name, v in zip(node.input, ins, strict=False):
        if not name or v.shape.rank is None:
            continue
        dims = [d.get_length() if d.is_static else None for d in v.shape.dims]
        code = codes.get(v.etype or "", onnx.TensorProto.FLOAT)
        given[name] = onnx.helper.make_tensor_type_proto(code, dims)
        if v.value is not None:
            values[name] = onnx.numpy_helper.from_array(np.asarray(v.value), name)
    try:
        schema = onnx.defs.get_schema("Slice", opset or onnx.defs.onnx_opset_version())
        said = onnx.shape_inference.infer_node_outputs(schema, node, given, values)
    except Exception:  # noqa: BLE001 - onnx's inference errors: no misreading to weigh
        return False
    found = shape_of(said[node.output[0]]) if node.output[0] in said else None
    return found is not None and not found[0].compatible(got.shape)


def clash(
    problems: list[Problem],
    where: tuple[str, str, str],
    port: int,
    declared: tuple[PartialShape, str | None],
    inferred: tuple[PartialShape, str | None] | None,
) -> None:
    """The problems of an opaque node's output ``port`` declared other than ONNX infers it.

    As ``onnx.checker.check_model(full_check=True)`` refuses them (onnxruntime refuses an
    element type too): a rank or a static dim that differs, an element type that differs.
    """
    if inferred is None:
        return
    (shape, etype), (got, got_etype) = declared, inferred
    if not shape.compatible(got):
        rule = f"declares {shape}, but ONNX's shape inference gives {got}"
        problems.append(Problem("shape", rule, *where, port))
    if etype is not None and got_etype is not None and etype != got_etype:
        rule = f"declares element type {etype}, but ONNX's type inference gives {got_etype}"
        problems.append(Problem("element-type", rule, *where, port))


@functools.cache
def _schemas() -> dict[tuple[str, str], list[Any]]:
    """ONNX's operator schemas, (domain, name) -> every version's, oldest first."""
    found: dict[tuple[str, str], list[Any]] = {}
    for schema in onnx_package().defs.get_all_schemas_with_history():
        found.setdefault((schema.domain, schema.name), []).append(schema)
    for versions in found.values():
        versions.sort(key=lambda s: s.since_version)
    return found


def _domain(domain: str) -> str:
    return f"domain {domain!r}" if domain else "the default domain"


def unknown_operator(node: Any, imports: Mapping[str, int]) -> str | None:
    """Why onnx.checker refuses a node's operator at the version the model imports, or ``None``.

    Where the model imports (``imports``: domain -> version, ``""`` the default) no opset of
    the node's domain; or where the domain is one whose operators onnx.checker looks up in
    ONNX's registry (`_CHECKER_DOMAINS`) and its opset at that version has no such operator, or
    one deprecated there. Operators of other domains (onnxruntime's ``com.microsoft``, custom
    ones) are not known here: ``None``. A node of domain ``ai.onnx`` is refused: for
    onnx.checker and OpenVINO that names the default domain in an import, not in a node
    (onnxruntime reads it as ``""``).
    """
    if node.domain == "ai.onnx":
        return (
            "its domain 'ai.onnx' names the default domain in an opset import, not in a node "
            "(write ''), so onnx.checker and OpenVINO refuse it"
        )
    domain, op = node.domain, node.op_type
    version = imports.get(domain)
    if version is None:
        return f"the model imports no opset of {_domain(domain)}, so onnx.checker refuses it"
    if domain not in _CHECKER_DOMAINS:
        return None  # onnx.checker takes any operator of another domain
    schemas = _schemas()
    versions = schemas.get((domain, op))
    if versions is None:
        alike = sorted(n for d, n in schemas if d == domain and n.lower() == op.lower())
        hint = f" (names are case-sensitive: {alike[0]})" if alike else ""
        rule = (
            f"is in no opset of {_domain(domain)} that onnx {onnx_package().__version__} "
            f"knows{hint}"
        )
    elif version < versions[0].since_version:
        first = versions[0].since_version
        rule = f"is not in opset {version} of {_domain(domain)}: it is in opset {first} on"
    elif (at := [s for s in versions if s.since_version <= version][-1]).deprecated:
        since = at.since_version
        rule = f"is deprecated in opset {version} of {_domain(domain)} (since opset {since})"
    else:
        return None
    return f"{op!r} {rule}, so onnx.checker refuses the model"


def newer_opsets(imports: Mapping[str, int]) -> list[Problem]:
    """Notes (kind ``opset``) of each imported opset newer than the installed onnx knows."""
    notes = []
    for domain, version in imports.items():
        known = [s.since_version for (d, _), v in _schemas().items() if d == domain for s in v]
        if known and version > max(known):
            rule = (
                f"the model imports opset {version} of {_domain(domain)}, newer than onnx "
                f"{onnx_package().__version__} knows ({max(known)}): its nodes are read as of "
                f"opset {max(known)}, as onnx.checker reads them; onnxruntime refuses an opset "
                "newer than it knows"
            )
            notes.append(Problem("opset", rule))
    return notes


def inner_fault(
    node: Any,
    imports: Mapping[str, int],
    functions: Mapping[tuple[str, str, str], Any],
    known: Known,
    seen: AbstractSet[tuple[str, str, str]] = frozenset(),
) -> tuple[str, str] | None:
    """The first fault onnx.checker finds in a node of ``node``'s subgraphs, or ``None``.

    An If's branches, a Loop's body, the nodes of the model-local function it calls (of
    ``functions``, by domain, name and overload; read with the function's imports, once:
    ``known`` keeps each function's fault, as a model calls one thousands of times), at any
    depth: an operator `unknown_operator` refuses, a node `schema_fault` refuses (ONNX's
    inference of the If or the call may end the process on it), or a call of a function from
    within itself.
    """
    for attr, graph in subgraphs(node):
        found = _fault_in(graph.node, f"{attr}'s", imports, functions, known, seen)
        if found is not None:
            return found
    key = (node.domain, node.op_type, node.overload) if functions else None
    if key is None or key not in functions:
        return None
    if key in seen:  # a cycle of calls, entered once
        rule = "must not be recursive, so onnx.checker and onnxruntime refuse the model"
        return "unsupported", f"a call of {node_kind(node)} within it: model-local functions {rule}"
    func = functions[key]
    if key not in known:
        own = {**imports, **{o.domain: int(o.version) for o in func.opset_import}}
        scope = f"function {node_kind(node)}'s"
        inputs = set(func.input)
        fault = _fault_in(func.node, scope, own, functions, known, seen | {key}, inputs)
        made = {o for n in func.node for o in n.output}
        lost = next((o for o in func.output if o not in made), None)
        if fault is None and lost is not None:  # onnxruntime: "!(it.GetName().empty())"
            rule = "is made by none of its nodes (a function's input is not), so onnxruntime"
            fault = "ports", f"its {scope} output {lost!r} {rule} refuses the model"
        known[key] = fault, _required_reads(func, own)
    fault, required = known[key]
    for what, names, formal in (
        ("input", node.input, func.input),
        ("output", node.output, func.output),
    ):
        if len(names) > len(formal):
            verb = "takes" if what == "input" else "gives"
            rule = f"its function {node_kind(node)} {verb} {len(formal)}: onnxruntime refuses more"
            return "ports", f"has {plural(len(names), what)}, but {rule}"
    for k, name in enumerate(func.input):
        if (k >= len(node.input) or not node.input[k]) and name in required:
            return (
                "ports",
                f"leaves input {k} ({name!r}) of {node_kind(node)} out, {required[name]}",
            )
    return fault


def _required_reads(func: Any, imports: Mapping[str, int]) -> dict[str, str]:
    """Each input of a function a node of it reads where its schema requires an input.

    Input name -> why: a call leaving that input out (fewer inputs, or ``''``: absent, as
    trailing inputs of an operator may be, ONNX IR) is refused by onnxruntime ("input 1 is
    marked single but has an empty string").
    """
    single = onnx_package().defs.OpSchema.FormalParameterOption.Single
    found: dict[str, str] = {}
    for inner in func.node:
        schema = _schema_at(inner, imports)
        for k, name in enumerate(inner.input if schema is not None else ()):
            formal = schema.inputs[k] if k < len(schema.inputs) else None
            if name in func.input and name not in found and formal and formal.option == single:
                found[name] = (
                    f"which its node {node_name(inner)!r} ({node_kind(inner)}) reads as input {k} "
                    f"({formal.name}), which {inner.op_type}-{schema.since_version} requires"
                )
    return found


def _fault_in(
    nodes: Iterable[Any],
    scope: str,
    imports: Mapping[str, int],
    functions: Mapping[tuple[str, str, str], Any],
    known: Known,
    seen: AbstractSet[tuple[str, str, str]],
    made: set[str] | None = None,
) -> tuple[str, str] | None:
    """The first fault onnx.checker finds in ``nodes`` (in ``scope``: ``then_branch's``).

    With ``made`` (a function's inputs: its nodes read no other scope), a node reading a value
    none makes before it is one too.
    """
    for inner in nodes:
        lost = None if made is None else next((v for v in inner.input if v and v not in made), None)
        why = unknown_operator(inner, imports)
        fault = (
            ("ports", f"reads {lost!r}, which no input of the function or node before it makes")
            if lost
            else ("unsupported", why)
            if why
            else schema_fault(inner, imports) or inner_fault(inner, imports, functions, known, seen)
        )
        if made is not None:
            made.update(inner.output)
        if fault is not None:
            return (
                fault[0],
                f"its {scope} node {node_name(inner)!r} ({node_kind(inner)}): {fault[1]}",
            )
    return None


def _schema_at(node: Any, imports: Mapping[str, int]) -> Any:
    """ONNX's schema of a node's operator at the version the model imports, or ``None``.

    Of the domains onnx.checker looks up (`_CHECKER_DOMAINS`).
    """
    domain = node.domain
    versions = _schemas().get((domain, node.op_type)) if domain in _CHECKER_DOMAINS else None
    version = imports.get(domain)
    at = [s for s in versions or () if version is not None and s.since_version <= version]
    return at[-1] if at else None


def schema_fault(node: Any, imports: Mapping[str, int]) -> tuple[str, str] | None:
    """The kind and rule of the first fault onnx.checker finds in a node by its schema, or ``None``.

    The schema is ONNX's for the node's operator at the version the model imports, in the
    domains onnx.checker looks up (`_CHECKER_DOMAINS`); a node `unknown_operator` refuses has
    none. As ``OpSchema::Verify`` checks a node, in its order: the number of inputs and outputs
    (kind ``ports``), a required input or output left out (an empty name), then each attribute
    the version lacks (but a name of two underscores first, onnx's internal one) or of another
    type (its value is not looked at), and a required one missing (kind ``attribute``).
    Shape-13 has no ``start``, RotaryEmbedding-23 takes 3 or 4 inputs, Cast needs ``to``.
    onnxruntime refuses every such node too.
    """
    schema = _schema_at(node, imports)
    if schema is None:
        return None
    domain, version = node.domain, imports.get(node.domain)
    named = f"{node.op_type}-{schema.since_version}"
    single = onnx_package().defs.OpSchema.FormalParameterOption.Single
    for what, names, low, high, formal in (
        ("input", node.input, schema.min_input, schema.max_input, schema.inputs),
        ("output", node.output, schema.min_output, schema.max_output, schema.outputs),
    ):
        if not low <= len(names) <= high:
            takes = (
                f"at least {low}"
                if high == 2**31 - 1  # variadic
                else f"{low}"
                if low == high
                else f"{low} or {high}"
                if high == low + 1
                else f"{low} to {high}"
            )
            verb = "takes" if what == "input" else "gives"
            return "ports", f"has {plural(len(names), what)}, but {named} {verb} {takes}"
        for k, name in enumerate(names):
            if not name and k < len(formal) and formal[k].option == single:
                rule = f"leaves {what} {k} ({formal[k].name}) out (''), which {named} requires"
                return "ports", rule
    for a in node.attribute:
        expected = schema.attributes.get(a.name)
        if expected is None and a.name.startswith("__"):  # onnx's internal names: on any node
            continue
        if expected is None and (domain, node.op_type) not in _UNCHECKED_ATTRIBUTES:
            rule = f"{named} has no attribute {a.name!r} (the model imports opset {version})"
            if any(i.name == a.name for i in schema.inputs):
                rule += f": {a.name} is an input of {named}"
            return "attribute", rule
        if expected is None:
            continue
        want = onnx_package().AttributeProto.AttributeType.Name(int(expected.type))
        got = onnx_package().AttributeProto.AttributeType.Name(a.type)
        if got != want:
            return "attribute", f"attribute {a.name!r} is of type {got}, but {named} takes {want}"
    given = {a.name for a in node.attribute}
    missing = [n for n, a in schema.attributes.items() if a.required and n not in given]
    if missing:
        return "attribute", f"{named} needs the attribute {missing[0]!r}"
    return None


# Operators whose schema takes attributes it does not list (onnx's AllowUncheckedAttributes,
# which onnx.defs does not show): LayerNormalization-17 (onnx/defs/nn/defs.cc)
_UNCHECKED_ATTRIBUTES: Final = {("", "LayerNormalization")}
