"""ONNX `check` knows which operators the model's opsets hold, as onnx.checker and onnxruntime do.

Every operator ONNX's registry holds, at a few opsets each, misspelt and with its case changed,
as one node ``x[4] -> node -> y[4]``: datamove's problem (kind ``unsupported``) against
``onnx.checker.check_model(full_check=True)`` and onnxruntime's ``InferenceSession``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from datamove import ir
from datamove.cli import main

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402 - after the skip

import onnx_graphs  # noqa: E402 - needs onnx
from strategies import examples  # noqa: E402

# What onnx.checker and onnxruntime say where the operator is not in the imported opset
REFUSED = ("No Op registered for", "is deprecated in domain_version", "No opset import for")
# onnxruntime reads these below their first ONNX version by schemas of its own (contrib and
# experimental ones registered in the default domain), and GroupNormalization-18, which ONNX
# deprecates, as ONNX first wrote it; datamove reads ONNX's registry, as onnx.checker does.
ORT_OWN = {
    "LayerNormalization",
    "MeanVarianceNormalization",
    "ThresholdedRelu",
    "GroupNormalization",
}


def _model(op: str, domain: str, imports: list[tuple[str, int]]) -> Any:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], domain=domain)], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(*i) for i in imports])
    model.ir_version = 8
    return model


def _one(op: str, domain: str, version: int) -> Any:
    """``op`` of ``domain`` at ``version`` (the default domain at 13 where it is another)."""
    imports = [("", version if domain == "" else 13)] + ([(domain, version)] if domain else [])
    return _model(op, domain, imports)


def _refusal(model: Any) -> str | None:
    """datamove's problem that the node's operator is not in the model's opset, if any."""
    found = [p for p in ir.ONNXModel(model, "m").check().problems if "onnx.checker" in p.message]
    assert all(p.kind == "unsupported" for p in found)
    return found[0].message if found else None


def _checker_refuses(model: Any) -> bool:
    """Whether onnx.checker refuses the model for a node's operator (not its inputs...)."""
    error = onnx_graphs.checker_error(model)
    return error is not None and any(r in error for r in REFUSED)


def _cases() -> list[tuple[str, str, int]]:
    """Each (domain, op, version): every operator at its first version, the one before, its
    last version and the domain's newest; misspelt and case-changed at the newest."""
    first: dict[tuple[str, str], int] = {}
    last: dict[tuple[str, str], int] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        key = (s.domain, s.name)
        first[key] = min(first.get(key, s.since_version), s.since_version)
        last[key] = max(last.get(key, 0), s.since_version)
    newest = {d: max(v for (e, _), v in last.items() if e == d) for d, _ in last}
    cases = set()
    for (domain, op), since in first.items():
        top = newest[domain]
        cases |= {(domain, op, v) for v in (since - 1, since, last[(domain, op)], top)}
        cases |= {(domain, name, top) for name in (op.lower(), op.upper(), op[:-1], op + "s")}
    return sorted(cases)


CASES = _cases()


def test_every_operator_is_refused_where_onnx_checker_refuses_it() -> None:
    wrong = [
        f"{domain or 'ai.onnx'}:{op} at opset {version}: datamove {said!r}"
        for domain, op, version in CASES
        if ((said := _refusal(model := _one(op, domain, version))) is not None)
        != _checker_refuses(model)
    ]
    assert not wrong, wrong[:20]
    assert len(CASES) > 1000


def test_every_operator_is_refused_where_onnxruntime_refuses_it() -> None:
    wrong = []
    for domain, op, version in CASES:
        model = _one(op, domain, version)
        said, error = _refusal(model), onnx_graphs.ort_error(model)
        ort_refuses = error is not None and any(r in error for r in REFUSED)
        if domain in ("", "ai.onnx.ml") and op in ORT_OWN and not ort_refuses:
            continue
        if (said is not None and error is None) or (said is None and ort_refuses):
            wrong.append(f"{domain or 'ai.onnx'}:{op} at opset {version}: {said!r}, {error!r}")
    assert not wrong, wrong[:20]


@settings(max_examples=examples(40), deadline=None)
@given(st.text("abcdefgGLMNRSZ_", min_size=1, max_size=10), st.integers(-1, 30))
def test_any_name_is_refused_where_onnx_checker_refuses_it(op: str, version: int) -> None:
    model = _one(op, "", version)
    assert (_refusal(model) is not None) == _checker_refuses(model), (op, version)


@pytest.mark.parametrize(
    ("op", "version", "text"),
    [
        pytest.param("Foo", 13, "'Foo' is in no opset of the default domain that onnx", id="Foo"),
        pytest.param("Gelu", 13, "'Gelu' is not in opset 13 of the default domain: it is in "
                     "opset 20 on, so onnx.checker refuses the model", id="Gelu-13"),
        pytest.param("relu", 13, "(names are case-sensitive: Relu)", id="relu"),
        pytest.param("Upsample", 13, "'Upsample' is deprecated in opset 13 of the default "
                     "domain (since opset 10)", id="Upsample-13"),
    ],
)  # fmt: skip
def test_an_operator_not_in_the_opset_is_an_unsupported_problem(
    tmp_path: Path, op: str, version: int, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = onnx_graphs.save(_one(op, "", version), tmp_path)
    report = ir.read_onnx(path).check()
    assert [(p.kind, p.layer_id) for p in report.problems] == [("unsupported", "0")]
    assert text in report.problems[0].message
    assert report.opaque == {op: 1}
    assert main(["check", str(path)]) == 1
    assert text in capsys.readouterr().out


def test_a_refused_slice_is_neither_checked_nor_explained(tmp_path: Path) -> None:
    model = _one("Slice", "", 0)  # no opset 0 holds Slice (nor any operator)
    model.graph.node[0].input.extend(["s", "e"])
    model.graph.initializer.extend(helper.make_tensor(n, TensorProto.INT64, [1], [1]) for n in "se")
    path = onnx_graphs.save(model, tmp_path)
    report = ir.read_onnx(path).check()
    assert [p.kind for p in report.problems] == ["unsupported"]
    assert "'Slice' is not in opset 0 of the default domain" in report.problems[0].message
    assert (report.checked, report.opaque) == ({}, {"Slice": 1})
    assert ir.read_onnx(path).explain() == []


def test_other_domains_are_not_known_but_must_be_imported(tmp_path: Path) -> None:
    """onnx.checker takes any operator of a domain it does not know, and refuses a node whose
    domain the model does not import, where onnxruntime reads it at the newest version it
    knows: datamove follows onnx.checker (the spec requires the import)."""
    known = _one("FastGelu", "com.microsoft", 1)  # onnxruntime's contrib operator
    unknown = _one("Foo", "custom", 1)  # onnxruntime refuses it; no one but it would know
    bare = _model("FastGelu", "com.microsoft", [("", 13)])
    for model in (known, unknown):
        assert _refusal(model) is None
        assert not _checker_refuses(model)
    rule = "the model imports no opset of domain 'com.microsoft', so onnx.checker refuses it"
    assert _refusal(bare) == rule
    assert _checker_refuses(bare)
    # onnxruntime (skipped where not installed) reads both, and refuses custom:Foo
    assert onnx_graphs.ort_error(known) is None
    assert onnx_graphs.ort_error(bare) is None
    assert "is not a registered function/op" in str(onnx_graphs.ort_error(unknown))


@pytest.mark.parametrize(
    ("imports", "refused"),
    [([13, 20], False), ([20, 13], True)],
    ids=["13-then-20", "20-then-13"],
)
def test_the_last_import_of_a_domain_is_the_one_read(imports: list[int], refused: bool) -> None:
    model = _model("Gelu", "", [("", v) for v in imports])
    assert _checker_refuses(model) is refused
    assert (_refusal(model) is not None) is refused
    assert ir.ONNXModel(model, "m").opset == imports[-1]


def test_an_opset_newer_than_onnx_knows_is_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """onnx.checker reads opset 99 as its newest; onnxruntime refuses an opset it does not know."""
    model = _one("Relu", "", 99)
    newest = onnx.defs.onnx_opset_version()
    assert not _checker_refuses(model)
    path = onnx_graphs.save(model, tmp_path)
    report = ir.read_onnx(path).check()
    assert report.problems == ()
    assert [(n.kind, n.layer_id) for n in report.notes] == [("opset", None)]
    newer = f"newer than onnx {onnx.__version__} knows ({newest})"
    assert f"imports opset 99 of the default domain, {newer}" in report.notes[0].message
    assert main(["check", "-v", str(path)]) == 0
    out = capsys.readouterr().out
    assert "notes (ONNX opsets newer than the installed onnx knows):\n  model: the model " in out
    error = onnx_graphs.ort_error(model)
    assert error is not None
    assert "Opset 99" in error


@pytest.mark.parametrize(
    ("imports", "op", "domain", "named"),
    [
        ([("ai.onnx", 99)], "Relu", "", "the default domain"),
        ([("", 13), ("ai.onnx.ml", 99)], "Binarizer", "ai.onnx.ml", "domain 'ai.onnx.ml'"),
    ],
    ids=["ai.onnx", "ai.onnx.ml"],
)
def test_each_domain_s_newer_opset_is_a_note(
    imports: list[tuple[str, int]], op: str, domain: str, named: str
) -> None:
    model = _model(op, domain, imports)
    assert not _checker_refuses(model)
    report = ir.ONNXModel(model, "m").check()
    assert report.problems == ()
    assert [n.message.split(", newer")[0] for n in report.notes] == [
        f"the model imports opset 99 of {named}"
    ]


@pytest.mark.parametrize("imports", [[("", 13)], [("ai.onnx", 13)], [("", 13), ("ai.onnx", 13)]])
def test_a_node_of_domain_ai_onnx_is_refused_as_onnx_checker_and_openvino_refuse_it(
    imports: list[tuple[str, int]], tmp_path: Path
) -> None:
    """``ai.onnx`` names the default domain in an opset import, not in a node: onnx.checker
    refuses a node of that domain (it looks its import and operator up under that name), and
    OpenVINO converts none; onnxruntime reads it as ``""``. datamove refuses it (fixed: OK)."""
    ov = pytest.importorskip("openvino")
    relu = _model("Relu", "ai.onnx", imports)
    assert str(_refusal(relu)).startswith("its domain 'ai.onnx' names the default domain in an")
    assert _checker_refuses(relu)  # "No opset import for domain 'ai.onnx'", "No Op registered"
    assert onnx_graphs.ort_error(relu) is None
    with pytest.raises(Exception, match=r"No conversion rule found for operations: ai\.onnx\.Relu"):
        ov.Core().compile_model(str(onnx_graphs.save(relu, tmp_path)), "CPU")


@pytest.mark.parametrize(
    ("imports", "refused"),
    [
        ([("ai.onnx", 13)], True),
        ([("", 20), ("ai.onnx", 13)], False),
        ([("ai.onnx", 13), ("", 20)], False),
        ([("ai.onnx", 20), ("", 13)], True),
    ],
)
def test_an_import_of_ai_onnx_is_of_the_default_domain_where_it_has_none(
    imports: list[tuple[str, int]], refused: bool
) -> None:
    """onnx.checker reads an import of ``ai.onnx`` as the default domain's where the model
    imports no ``""``: a Gelu (opset 20 on) of the default domain is refused as it refuses it
    (fixed: the last import of either name was read, as onnxruntime reads it, which refuses the
    second model)."""
    gelu = _model("Gelu", "", imports)
    assert _checker_refuses(gelu) == refused
    assert (_refusal(gelu) is not None) == refused


# -- a node's inputs, outputs and attributes, by its operator's schema -----------------------

_ONE = helper.make_tensor("t", TensorProto.FLOAT, [1], [1.0])
_GRAPH = helper.make_graph([], "body", [], [])
_VALUES: dict[str, Any] = {  # a value of each attribute type
    "FLOAT": 1.0,
    "INT": 1,
    "STRING": "a",
    "TENSOR": _ONE,
    "GRAPH": _GRAPH,
    "TYPE_PROTO": helper.make_tensor_type_proto(TensorProto.FLOAT, [1]),
    "SPARSE_TENSOR": helper.make_sparse_tensor(
        _ONE, helper.make_tensor("i", TensorProto.INT64, [1], [0]), [2]
    ),
    "FLOATS": [1.0, 2.0],
    "INTS": [1, 2],
    "STRINGS": ["a", "b"],
    "TENSORS": [_ONE],
    "GRAPHS": [_GRAPH],
    "TYPE_PROTOS": [helper.make_tensor_type_proto(TensorProto.FLOAT, [1])],
}


def _attribute(name: str, kind: str) -> Any:
    return helper.make_attribute(
        name, _VALUES[kind], attr_type=onnx.AttributeProto.AttributeType.Value(kind)
    )


def _node_model(schema: Any, inputs: list[str], outputs: int, attributes: dict[str, str]) -> Any:
    """One node of ``schema``'s operator, its inputs and outputs graph values of type [4] f32."""
    node = helper.make_node(schema.name, inputs, [f"o{k}" for k in range(outputs)])
    node.domain = schema.domain
    node.attribute.extend(_attribute(n, kind) for n, kind in attributes.items())
    x = [
        helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in dict.fromkeys(inputs) if n
    ]
    y = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in node.output]
    imports = [("", 23)] if schema.domain else []
    imports.append((schema.domain, schema.since_version))
    graph = helper.make_graph([node], "g", x, y)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(*i) for i in imports])
    model.ir_version = 10
    return model


def _schema_cases() -> list[Any]:
    """Each operator's every version (but deprecated ones), right and with one fault each."""
    cases = []
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.deprecated or schema.domain not in ("", "ai.onnx.ml", "ai.onnx.training"):
            continue
        kinds = {
            n: onnx.AttributeProto.AttributeType.Name(int(a.type))
            for n, a in schema.attributes.items()
        }
        required = {n: k for n, k in kinds.items() if schema.attributes[n].required}
        low, high = schema.min_input, min(schema.max_input, schema.min_input + 3)
        inputs = [f"i{k}" for k in range(low)]
        outputs = max(schema.min_output, 1) if schema.max_output else 0
        name = f"{schema.domain or 'ai.onnx'}:{schema.name}-{schema.since_version}"
        cases.append((f"{name} right", schema, inputs, outputs, required))
        if low:
            cases.append((f"{name} one input fewer", schema, inputs[:-1], outputs, required))
            cases.append((f"{name} input 0 left out", schema, ["", *inputs[1:]], outputs, required))
        more = [f"i{k}" for k in range(schema.max_input + 1)] if schema.max_input < 8 else None
        if more is not None:
            cases.append((f"{name} one input more", schema, more, outputs, required))
        cases.append(
            (f"{name} all inputs", schema, [f"i{k}" for k in range(high)], outputs, required)
        )
        if outputs:
            cases.append((f"{name} no output", schema, inputs, 0, required))
        if schema.max_output < 8:
            cases.append(
                (f"{name} one output more", schema, inputs, schema.max_output + 1, required)
            )
        for n in required:
            fewer = {m: k for m, k in required.items() if m != n}
            cases.append((f"{name} no {n}", schema, inputs, outputs, fewer))
        for n, kind in kinds.items():
            wrong = "STRING" if kind == "INT" else "INT"
            cases.append((f"{name} {n} {wrong}", schema, inputs, outputs, required | {n: wrong}))
            cases.append((f"{name} {n} right", schema, inputs, outputs, required | {n: kind}))
        cases.append((f"{name} foo", schema, inputs, outputs, required | {"foo": "INT"}))
        # a name of two underscores first is onnx's internal one, taken on any operator
        cases.append((f"{name} __foo", schema, inputs, outputs, required | {"__foo": "INT"}))
    return cases


SCHEMA_CASES = _schema_cases()


def _schema_problem(model: Any) -> str | None:
    """datamove's problem of the node's ports or attributes (of kind ``ports`` or ``attribute``:
    not those of the values of a node datamove reads, Split-1 it does not read, or its shapes)."""
    problems = ir.ONNXModel(model, "m").check().problems
    found = [p for p in problems if p.kind in ("ports", "attribute")]
    assert len(found) <= 1, found
    return found[0].message if found else None


def test_a_node_is_refused_by_its_schema_where_onnx_checker_refuses_it() -> None:
    wrong = []
    for case, schema, inputs, outputs, attributes in SCHEMA_CASES:
        model = _node_model(schema, inputs, outputs, attributes)
        said = _schema_problem(model)
        error = onnx_graphs.checker_node_error(model.graph.node[0], model)
        if (said is None) != (error is None):
            wrong.append(f"{case}: datamove {said!r}, onnx.checker {error!r}")
    assert not wrong, wrong[:20]
    assert len(SCHEMA_CASES) > 5000


def tree_ensemble_without_input_0() -> Any:
    """A model of one TreeEnsemble-5 without its input 0 (ONNX's inference of it, and
    onnxruntime 1.32's loading, end the process with a segmentation fault)."""
    name = "ai.onnx.ml:TreeEnsemble-5 input 0 left out"
    [(schema, *rest)] = [c[1:] for c in SCHEMA_CASES if c[0] == name]
    return _node_model(schema, *rest)


def test_onnx_s_inference_never_sees_a_node_its_schema_refuses(tmp_path: Path) -> None:
    """ONNX's shape inference of a TreeEnsemble-5 without its input 0 ends the process (a
    segmentation fault): a graph of a node its schema refuses is not given to it."""
    model = tree_ensemble_without_input_0()
    model.graph.output[0].type.tensor_type.ClearField("shape")  # so its type is asked for
    path = onnx_graphs.save(model, tmp_path)
    done = onnx_graphs.check_in_subprocess(path)
    assert done.returncode == 1, done.stderr
    assert "leaves input 0 (X) out (''), which TreeEnsemble-5 requires" in done.stdout


# What onnx.checker (and onnxruntime, which runs the same OpSchema::Verify) says of such a node
VERIFY = (
    "not in range [min=",
    "is marked single but has an empty string",
    "Unrecognized attribute",
    "Mismatched attribute type",
    "Required attribute",
)


def test_a_node_is_refused_by_its_schema_where_onnxruntime_refuses_it() -> None:
    """At each operator's newest version; onnxruntime reads a Constant node as an initializer,
    whose attributes it does not check by the schema (a ``foo`` attribute, a ``value`` of type
    INT): datamove refuses those, with onnx.checker."""
    newest: dict[tuple[str, str], int] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        key = (s.domain, s.name)
        newest[key] = max(newest.get(key, 0), s.since_version)
    wrong, constants = [], set()
    for case, schema, inputs, outputs, attributes in SCHEMA_CASES:
        if schema.since_version != newest[(schema.domain, schema.name)]:
            continue
        model = _node_model(schema, inputs, outputs, attributes)
        said, error = _schema_problem(model), onnx_graphs.ort_error(model)
        if said is not None and error is None and schema.name == "Constant":
            constants.add(case.split(" ", 1)[1])
        elif (said is not None and error is None) or (
            said is None and any(v in str(error) for v in VERIFY)
        ):
            wrong.append(f"{case}: datamove {said!r}, onnxruntime {error!r}")
    assert not wrong, wrong[:20]
    assert "foo" in constants
    assert "value INT" in constants


def _by_reference(node: Any) -> Any:
    """``node`` with its first attribute a reference to a function's (ONNX's ref_attr_name)."""
    node.attribute[0].ref_attr_name = node.attribute[0].name
    return node


@pytest.mark.parametrize(
    ("node", "kind", "text"),
    [
        # an attribute by reference is of its type too, as onnx.checker says (fixed: not checked)
        pytest.param(_by_reference(helper.make_node("LeakyRelu", ["x"], ["y"], alpha=[0.5])),
                     "attribute", "attribute 'alpha' is of type FLOATS, but LeakyRelu-16 takes "
                     "FLOAT", id="LeakyRelu alpha of floats by reference"),
        pytest.param(_by_reference(helper.make_node("Split", ["x"], ["y"], axis=[0])), "attribute",
                     "attribute 'axis' is of type INTS, but Split-18 takes INT",
                     id="Split axis of ints by reference"),
        pytest.param(helper.make_node("RotaryEmbedding", ["x"], ["y"]), "ports",
                     "has 1 input, but RotaryEmbedding-23 takes 3 or 4", id="RotaryEmbedding"),
        pytest.param(helper.make_node("Cast", ["x"], ["y"]), "attribute",
                     "Cast-23 needs the attribute 'to'", id="Cast"),
        pytest.param(helper.make_node("Relu", ["x"], ["y"], alpha=0.5), "attribute",
                     "Relu-14 has no attribute 'alpha' (the model imports opset 23)", id="Relu"),
        pytest.param(helper.make_node("Cast", ["x"], ["y"], to=1), "attribute",
                     "attribute 'to' is of type UNDEFINED, but Cast-23 takes INT",
                     id="Cast to UNDEFINED"),
        pytest.param(helper.make_node("Slice", ["x", "", "x"], ["y"]), "ports",
                     "leaves input 1 (starts) out (''), which Slice-13 requires", id="Slice"),
    ],
)  # fmt: skip
def test_a_node_its_schema_refuses_is_a_problem(
    tmp_path: Path, node: Any, kind: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    model = helper.make_model(
        helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 23)]
    )
    model.ir_version = 10
    if "UNDEFINED" in text:  # its type unset
        model.graph.node[0].attribute[0].ClearField("type")
        node = model.graph.node[0]
    assert onnx_graphs.checker_node_error(node, model) is not None
    path = onnx_graphs.save(model, tmp_path)
    report = ir.read_onnx(path).check()
    assert [(p.kind, p.layer_id, p.message) for p in report.problems] == [(kind, "0", text)]
    assert (report.checked, report.opaque) == ({}, {node.op_type: 1})  # not read, even a Slice
    assert main(["check", str(path)]) == 1
    assert f"node 0 'y' ({node.op_type}): {text}" in capsys.readouterr().out
