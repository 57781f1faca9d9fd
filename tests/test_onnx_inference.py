"""ONNX `check` runs ONNX's strict shape inference as onnx.checker (``full_check``) runs it.

Each model is built here with ``onnx.helper`` and given to onnx.checker, onnxruntime and
OpenVINO (read and compiled for the CPU) where installed: datamove says OK only where they
accept it, or gives the documented answer where they disagree (docs/ir.md, ONNX files).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir

onnx_graphs = pytest.importorskip("onnx_graphs")
onnx = onnx_graphs.onnx
helper, TensorProto = onnx.helper, onnx.TensorProto
F32 = TensorProto.FLOAT


def _tensor(name: str, shape: list[int] | None, etype: int = F32) -> Any:
    return helper.make_tensor_value_info(name, etype, shape)


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], **graph: Any) -> Any:
    imports = graph.pop("imports", [("", 17)])
    model = helper.make_model(
        helper.make_graph(nodes, "g", inputs, outputs, **graph),
        opset_imports=[helper.make_opsetid(*i) for i in imports],
    )
    model.ir_version = 8
    return model


def _ov_error(path: Path) -> str | None:
    ov = pytest.importorskip("openvino")
    try:
        ov.Core().compile_model(str(path), "CPU")
    except Exception as exc:  # noqa: BLE001 - OpenVINO's errors have no common base
        return str(exc)
    return None


def _problems(model: Any, tmp_path: Path) -> list[tuple[str, str | None, str]]:
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    return [(p.kind, p.layer_name, p.message) for p in report.problems]


def test_a_graph_input_that_is_a_graph_output_keeps_its_type(tmp_path: Path) -> None:
    """A Relu of an input also the graph's output: every tool takes it (fixed: ONNX's
    inference saw the output's type emptied over the input's, "Element type of input 0
    unknown")."""
    x = _tensor("x", [2, 3])
    model = _model([helper.make_node("Relu", ["x"], ["r"])], [x], [x, _tensor("r", [2, 3])])
    assert onnx_graphs.checker_error(model) is None
    assert onnx_graphs.ort_error(model) is None
    assert _ov_error(onnx_graphs.save(model, tmp_path)) is None
    assert _problems(model, tmp_path) == []


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "undeclared"])
@pytest.mark.parametrize(
    ("bad", "good"),
    [
        pytest.param(
            helper.make_node("Cast", ["x"], ["c"], name="bad"),
            helper.make_node("Cast", ["x"], ["c"], name="bad", to=F32),
            id="Cast without 'to'",
        ),
        pytest.param(
            helper.make_node("Foo", ["x"], ["c"], name="bad"),
            helper.make_node("Relu", ["x"], ["c"], name="bad"),
            id="Foo",
        ),
        pytest.param(
            helper.make_node("Relu", ["x"], ["c"], name="bad", domain="zz"),
            helper.make_node("Relu", ["x"], ["c"], name="bad"),
            id="a domain not imported",
        ),
    ],
)
def test_the_other_nodes_faults_are_found_beside_a_node_onnx_checker_refuses(
    tmp_path: Path, bad: Any, good: Any, declared: bool
) -> None:
    """A node onnx.checker refuses (its schema, its operator) before a Relu of its output and
    a MatMul [2,3] x [4,5]: ONNX's inference runs on the graph without it (its output a graph
    input of the type declared, else none: the Relu left untyped is not refused), so the
    MatMul's fault, which the checker finds once the node is right, is found too (fixed: none
    was, ONNX's inference was not run or stopped at the node)."""
    w = onnx.numpy_helper.from_array(np.zeros((4, 5), np.float32), "w")

    def model(node: Any) -> Any:
        nodes = [node, helper.make_node("Relu", ["c"], ["r"], name="relu")]
        nodes.append(helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"))
        value_info = [_tensor("c", [2, 3])] if declared else []
        outputs = [_tensor("r", [2, 3]), _tensor("y", [2, 5])]
        return _model(
            nodes, [_tensor("x", [2, 3])], outputs, initializer=[w], value_info=value_info
        )

    rule = "Incompatible dimensions for matrix multiplication"
    assert rule in str(onnx_graphs.checker_error(model(good)))
    assert onnx_graphs.ort_error(model(bad)) is not None
    found = _problems(model(bad), tmp_path)
    assert [p[1] for p in found] == ["bad", "mm"]
    assert found[1] == ("operator", "mm", f"ONNX's shape inference refuses it: {rule}")


@pytest.mark.parametrize(
    ("where", "shape", "etype", "rule"),
    [
        pytest.param(
            "input", [2, 3], TensorProto.INT64, "Inferred elem type differs", id="input i64"
        ),
        pytest.param(
            "input", [4, 3], F32, "Inferred shape and existing shape differ", id="input [4,3]"
        ),
        pytest.param(
            "value_info", [2, 3], TensorProto.INT64, "Inferred elem type differs", id="value_info"
        ),
    ],
)
def test_a_fault_onnx_names_no_node_for_is_a_problem_of_the_model(
    tmp_path: Path, where: str, shape: list[int], etype: int, rule: str
) -> None:
    """An initializer [2,3] f32 that a graph input (or a value_info) declares other: ONNX's
    strict inference refuses the graph, its words naming no node; onnx.checker refuses each,
    onnxruntime the input's, OpenVINO none: datamove follows the checker (fixed: each was OK)."""
    w = onnx.numpy_helper.from_array(np.zeros((2, 3), np.float32), "w")
    inputs, graph = [_tensor("x", [2, 3])], {"initializer": [w]}
    if where == "input":
        inputs.append(_tensor("w", shape, etype))
    else:
        graph["value_info"] = [_tensor("w", shape, etype)]
    model = _model(
        [helper.make_node("Add", ["x", "w"], ["y"])], inputs, [_tensor("y", [2, 3])], **graph
    )
    assert rule in str(onnx_graphs.checker_error(model))
    assert (onnx_graphs.ort_error(model) is None) == (where == "value_info")
    assert _ov_error(onnx_graphs.save(model, tmp_path)) is None
    [(kind, at, message)] = _problems(model, tmp_path)
    assert (kind, at) == ("element-type" if etype != F32 else "shape", None)
    assert message.startswith(f"ONNX's shape inference refuses the model: {rule}")
    if etype != F32:  # onnx writes the types by number, "(1) vs (7)"
        assert message.endswith("elem type: (FLOAT) vs (INT64)")


@pytest.mark.parametrize(("dim", "openvino"), [(-1, "[?,3]"), (-5, "[0,3]")])
def test_a_negative_dim_declared_is_unknown_as_the_runtimes_read_it(
    tmp_path: Path, dim: int, openvino: str
) -> None:
    """A graph input declared ``[-1,3]``, its Relu's output ``[2,3]``: onnx.checker takes the
    dim, but its inference (full_check) reads it as a size, -1, and refuses the output;
    onnxruntime reads ``[?,3]`` and runs it, OpenVINO too (a dim below -1: ``0``). datamove
    reads ``?``, OK, as the runtimes."""
    ov = pytest.importorskip("openvino")
    pytest.importorskip("onnxruntime")
    relu = helper.make_node("Relu", ["x"], ["y"])
    model = _model([relu], [_tensor("x", [dim, 3])], [_tensor("y", [2, 3])])
    onnx.checker.check_model(model)
    rule = f"Inferred shape and existing shape differ in dimension 0: ({dim}) vs (2)"
    assert rule in str(onnx_graphs.checker_error(model))
    session = onnx_graphs.ort_session(model)
    assert session.get_inputs()[0].shape == [None, 3]
    assert session.run(None, {"x": np.ones((2, 3), np.float32)})[0].shape == (2, 3)
    path = onnx_graphs.save(model, tmp_path)
    assert str(ov.Core().read_model(path).inputs[0].get_partial_shape()) == openvino
    report = ir.read_onnx(path).check()
    assert report.ok, report.problems
    assert [str(report.inputs["x"][0]), str(report.outputs["y"][0])] == ["[?,3]", "[2,3]"]


def test_a_graph_output_of_no_value_is_an_error(tmp_path: Path) -> None:
    """A graph output no node, input or initializer makes: onnx.checker, onnxruntime and
    OpenVINO refuse the model, and datamove too (fixed: check said OK)."""
    x = _tensor("x", [2, 3])
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [x], [_tensor("z", [2, 3])])
    assert "Graph output 'z' is not an output of any node" in str(onnx_graphs.checker_error(model))
    assert "Graph output (z) does not exist in the graph" in str(onnx_graphs.ort_error(model))
    path = onnx_graphs.save(model, tmp_path)
    assert "is not produced by any operation" in str(_ov_error(path))
    with pytest.raises(ir.ONNXError, match=r"graph output='z' names no value of the graph"):
        ir.read_onnx(path)


def _tree_ensemble_t() -> tuple[Any, list[tuple[str, int]]]:
    """The TreeEnsemble-5 without its input 0, its output named 't', and its model's imports."""
    from test_onnx_operators import tree_ensemble_without_input_0

    inner = tree_ensemble_without_input_0()
    (node,) = inner.graph.node
    node.output[0] = "t"
    return node, [(o.domain, o.version) for o in inner.opset_import]


@pytest.mark.parametrize("case", ["TreeEnsemble-5 without input 0", "Foo, two Ifs deep"])
def test_a_fault_onnx_checker_finds_in_a_subgraph_is_its_node_s(tmp_path: Path, case: str) -> None:
    """A node onnx.checker refuses in an If's branch (its schema; its operator, in an If in a
    branch): onnx.checker and onnxruntime refuse the model, datamove the top If, with the
    inner node named (fixed: OK; ONNX's inference of the TreeEnsemble ended the process)."""
    y = _tensor("t", None)
    if case.startswith("TreeEnsemble"):
        node, imports = _tree_ensemble_t()
        rule = "its then_branch's node 't' (ai.onnx.ml.TreeEnsemble): leaves input 0 (X) out ('')"
    else:
        imports = [("", 17)]
        node = helper.make_node("If", ["c"], ["t"], name="deep")
        foo = helper.make_graph([helper.make_node("Foo", ["x"], ["t"], name="foo")], "f", [], [y])
        node.attribute.extend(
            [helper.make_attribute(b, foo) for b in ("then_branch", "else_branch")]
        )
        rule = "its then_branch's node 'deep' (If): its then_branch's node 'foo' (Foo): 'Foo' is in"
    then = helper.make_graph([node], "t", [], [y])
    other = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "e", [], [y])
    top = helper.make_node("If", ["c"], ["y"], name="if", then_branch=then, else_branch=other)
    c = onnx.numpy_helper.from_array(np.asarray(True), "c")
    model = _model(
        [top], [_tensor("x", [4])], [_tensor("y", [4])], initializer=[c], imports=imports
    )
    assert onnx_graphs.checker_error(model) is not None
    assert onnx_graphs.ort_error(model) is not None
    path = onnx_graphs.save(model, tmp_path)
    done = onnx_graphs.check_in_subprocess(path)
    assert done.returncode == 1, done.stderr
    assert f"node 0 'if' (If): {rule}" in done.stdout


def _calling(body: list[Any], imports: list[tuple[str, int]], more: tuple[Any, ...] = ()) -> Any:
    """y = local.F(x), x [4]: F a model-local function of ``body`` (``a`` in, ``t`` out)."""
    opsets = [helper.make_opsetid(*i) for i in [*imports, ("local", 1)]]
    func = helper.make_function("local", "F", ["a"], ["t"], body, opsets)
    call = helper.make_node("F", ["x"], ["y"], domain="local", name="call")
    graph = helper.make_graph([call], "g", [_tensor("x", [4])], [_tensor("y", [4])])
    model = helper.make_model(graph, opset_imports=opsets, functions=[func, *more])
    model.ir_version = 10
    return model


@pytest.mark.parametrize(
    "case",
    ["TreeEnsemble-5 without input 0", "Foo", "Foo in G in F", "F calling F", "a value of none"],
)
def test_a_fault_onnx_checker_finds_in_a_function_is_its_calling_node_s(
    tmp_path: Path, case: str
) -> None:
    """A node onnx.checker refuses in a model-local function the graph calls: onnx.checker
    refuses the model (onnxruntime too, or it ends the process), datamove the calling node,
    with the inner node named (fixed: OK, or ONNX's inference ended the process). So are a
    function that calls itself and a node reading a value the function does not make, which
    both refuse too."""
    more: tuple[Any, ...] = ()
    if case.startswith("TreeEnsemble"):
        node, imports = _tree_ensemble_t()
        rule = "its function local.F's node 't' (ai.onnx.ml.TreeEnsemble): leaves input 0 (X) out"
    else:
        imports = [("", 17)]
        node = helper.make_node("Foo", ["a"], ["t"], name="foo")
        rule = "its function local.F's node 'foo' (Foo): 'Foo' is in no opset"
        if case == "Foo in G in F":
            opsets = [helper.make_opsetid(*i) for i in imports]
            more = (helper.make_function("local", "G", ["a"], ["t"], [node], opsets),)
            node = helper.make_node("G", ["a"], ["t"], domain="local", name="g")
            rule = "its function local.F's node 'g' (local.G): its function local.G's node 'foo'"
        elif case == "F calling F":
            node = helper.make_node("F", ["a"], ["t"], domain="local", name="again")
            rule = "its function local.F's node 'again' (local.F): a call of local.F within it"
        elif case == "a value of none":
            node = helper.make_node("Relu", ["b"], ["t"], name="r")
            rule = "its function local.F's node 'r' (Relu): reads 'b', which no input of the"
    model = _calling([node], imports, more)
    assert onnx_graphs.checker_error(model) is not None
    if not case.startswith("TreeEnsemble"):  # onnxruntime 1.32 ends the process on that one
        assert onnx_graphs.ort_error(model) is not None
    path = onnx_graphs.save(model, tmp_path)
    done = onnx_graphs.check_in_subprocess(path)
    assert done.returncode == 1, done.stderr
    assert f"node 0 'call' (local.F): {rule}" in done.stdout


def test_a_function_that_onnx_checker_takes_is_ok(tmp_path: Path) -> None:
    model = _calling([helper.make_node("Relu", ["a"], ["t"], name="r")], [("", 17)])
    assert onnx_graphs.checker_error(model) is None
    assert onnx_graphs.ort_error(model) is None
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.ok, report.problems


def test_a_node_refused_whose_output_is_a_graph_output_read_again(tmp_path: Path) -> None:
    """A Squeeze of an axis out of range whose output is a graph output that an Add reads:
    onnx.checker and onnxruntime refuse it, and datamove the Squeeze (fixed: OK; ONNX's typed
    inference stopped at the emptied output type, 'Invalid tensor data type 0.')."""
    axes = onnx.numpy_helper.from_array(np.array([5], np.int64), "axes")
    nodes = [
        helper.make_node("Squeeze", ["x", "axes"], ["s"], name="sq"),
        helper.make_node("Add", ["x", "s"], ["y"], name="add"),
    ]
    x, s, y = (_tensor(n, [2, 3]) for n in "xsy")
    model = _model(nodes, [x], [s, y], initializer=[axes])
    rule = "Unexpected axis value: 5. Expected range [-2, 2)"
    assert rule in str(onnx_graphs.checker_error(model))
    assert rule in str(onnx_graphs.ort_error(model))
    assert _problems(model, tmp_path) == [
        ("operator", "sq", f"ONNX's shape inference refuses it: {rule}")
    ]


def _ov_read_error(model: Any, tmp_path: Path) -> str | None:
    ov = pytest.importorskip("openvino")
    try:
        ov.Core().read_model(str(onnx_graphs.save(model, tmp_path)))
    except Exception as exc:  # noqa: BLE001 - OpenVINO's errors have no common base
        return str(exc)
    return None


_RELU = helper.make_node("Relu", ["a"], ["t"], name="r")
_ADD = helper.make_node("Add", ["a", "b"], ["t"], name="add")
_MADE = "its function local.F's output {!r} is made by none of its nodes"
_LEFT = "leaves input 1 ('b') of local.F out, which its node 'add' (Add) reads as input 1 (B)"
# (function inputs, outputs, body; the call's inputs, outputs; graph outputs; datamove's rule)
_CALLS = {
    "more inputs": (["a"], ["t"], [_RELU], ["x", "x"], ["y"], ["y"],
                    "has 2 inputs, but its function local.F takes 1"),
    "more outputs": (["a"], ["t"], [_RELU], ["x"], ["y", "z"], ["y"],
                     "has 2 outputs, but its function local.F gives 1"),
    "an output no node makes": (["a"], ["t", "u"], [_RELU], ["x"], ["y", "z"], ["y"],
                                _MADE.format("u")),
    "an output that is an input": (["a"], ["a"], [], ["x"], ["y"], ["y"], _MADE.format("a")),
    "fewer inputs, read": (["a", "b"], ["t"], [_ADD], ["x"], ["y"], ["y"], _LEFT),
    "an input left out (''), read": (["a", "b"], ["t"], [_ADD], ["x", ""], ["y"], ["y"], _LEFT),
    "fewer inputs, not read": (["a", "b"], ["t"], [_RELU], ["x"], ["y"], ["y"], None),
}  # fmt: skip


@pytest.mark.parametrize("case", list(_CALLS))
def test_a_call_of_a_function_is_checked_against_its_function(tmp_path: Path, case: str) -> None:
    """Calls that onnx.checker takes and onnxruntime refuses (onnxruntime: 'Number of actual
    parameters cannot exceed number of formal parameters', "output arg (z) type inference
    failed", 'failed validating the check: !(it.GetName().empty())', "input 1 is marked single
    but has an empty string"): datamove the calling node (fixed: OK). A trailing input left
    out is absent, as an '' is (ONNX IR: static-optional): legal where no node needs it.
    OpenVINO 2026.4 reads no call of a model-local function ('No conversion rule found for
    operations: local.F'), however valid: datamove follows onnxruntime."""
    f_in, f_out, body, c_in, c_out, g_out, rule = _CALLS[case]
    opsets = [helper.make_opsetid(*i) for i in [("", 17), ("local", 1)]]
    func = helper.make_function("local", "F", f_in, f_out, body, opsets)
    call = helper.make_node("F", c_in, c_out, domain="local", name="call")
    graph = helper.make_graph([call], "g", [_tensor("x", [4])], [_tensor(o, [4]) for o in g_out])
    model = helper.make_model(graph, opset_imports=opsets, functions=[func])
    model.ir_version = 10
    assert onnx_graphs.checker_error(model) is None
    assert (onnx_graphs.ort_error(model) is None) == (rule is None)
    assert "No conversion rule found for operations: local.F" in str(
        _ov_read_error(model, tmp_path)
    )
    path = onnx_graphs.save(model, tmp_path)
    done = onnx_graphs.check_in_subprocess(path)
    if rule is None:
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        assert done.returncode == 1, done.stderr
        assert f"node 0 'call' (local.F): {rule}" in done.stdout


def _function_model(op: str, numbers: list[str], shapes: list[list[Any]]) -> Any:
    """One call of local.F per shape in ``shapes`` (x0, x1...), F(a, *numbers) -> ``op`` of a
    by the graph's initializers named for their numbers."""
    values = {"s": [0], "e": [1], "axis5": [5], "axis1": [1], "split11": [1, 1], "split12": [1, 2]}
    inits = [onnx.numpy_helper.from_array(np.asarray(v, np.int64), n) for n, v in values.items()]
    formal = [f"p{k}" for k in range(len(numbers))]
    outs = ["t", "u"] if op == "Split" else ["t"]
    attrs = {"axis": 1} if op == "Split" else {}
    body = [helper.make_node(op, ["a", *formal], outs, name="inner", **attrs)]
    opsets = [helper.make_opsetid(*i) for i in [("", 18), ("local", 1)]]
    func = helper.make_function("local", "F", ["a", *formal], ["t"], body, opsets)
    calls = [
        helper.make_node("F", [f"x{k}", *numbers], [f"y{k}"], domain="local", name=f"call{k}")
        for k in range(len(shapes))
    ]
    rank = 3 if op == "Unsqueeze" else 2
    inputs = [_tensor(f"x{k}", s) for k, s in enumerate(shapes)]
    outputs = [_tensor(f"y{k}", [None] * rank) for k in range(len(shapes))]
    graph = helper.make_graph(calls, "g", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=opsets, functions=[func])
    model.ir_version = 10
    return model


_IN_F = "its function local.F's node 'inner' "
_SUM = "Splitting: size=4 cannot be split by the 'lengths' rule with (1, 2): they sum to 3, not 4"


@pytest.mark.parametrize(
    ("op", "numbers", "shapes", "problem", "ort"),
    [
        ("Slice", ["s", "e", "axis5"], [[2, 3]],
         (0, f"{_IN_F}(Slice): ONNX Slice: axes=[5] holds 5, out of range for rank 2"),
         "Unexpected axis value: 5"),
        ("Split", ["split11"], [[2, 3]], (0, f"{_IN_F}(Split): Splitting: size=3"),
         "Mismatch between the sum of 'split' (2) and the split dimension of the input (3)"),
        ("Squeeze", ["axis5"], [[2, 3]],
         (0, f"{_IN_F}(Squeeze): ONNX Squeeze: axes=[5] holds 5, out of range for rank 2"),
         "Unexpected axis value: 5"),
        ("Unsqueeze", ["axis5"], [[2, 3]],
         (0, (f"{_IN_F}(Unsqueeze): ONNX Unsqueeze: axes=[5] holds 5, out of range for output"
              " rank 3")), "Unexpected axis value: 5"),
        # one function, two shapes: the third call's alone breaks its Split
        ("Split", ["split12"], [[2, 3], [2, 3], [2, 4]], (2, f"{_IN_F}(Split): {_SUM}"),
         "Mismatch between the sum of 'split' (3) and the split dimension of the input (4)"),
        ("Slice", ["s", "e", "axis1"], [[2, 3]], None, None),
        ("Split", ["split12"], [[2, 3]], None, None),
    ],
)  # fmt: skip
def test_the_nodes_datamove_checks_are_checked_in_a_function_a_node_calls(
    tmp_path: Path,
    op: str,
    numbers: list[str],
    shapes: list[list[Any]],
    problem: tuple[int, str] | None,
    ort: str | None,
) -> None:
    """A model-local function's Slice, Split, Squeeze and Unsqueeze nodes, checked on the
    shapes and numbers each call passes, once per distinct ones: onnx.checker and onnxruntime
    refuse these models (OpenVINO reads no model-local function at all); datamove names the
    calling node and the function's node, in its own words (before: ONNX's inference's, and
    nothing on new input shapes, below)."""
    model = _function_model(op, numbers, shapes)
    ort_error = onnx_graphs.ort_error(model)
    done = onnx_graphs.check_in_subprocess(onnx_graphs.save(model, tmp_path))
    if problem is None:
        assert (onnx_graphs.checker_error(model), ort_error) == (None, None)
        assert done.returncode == 0, done.stdout + done.stderr
        return
    assert ort in str(onnx_graphs.checker_error(model))
    assert ort in str(ort_error)
    assert done.returncode == 1, done.stderr
    k, rule = problem
    assert f"\n1 problem:\n  node {k} 'call{k}' (local.F): {rule}" in done.stdout, done.stdout


def test_a_function_is_checked_on_the_input_shapes_given(tmp_path: Path) -> None:
    """x0 [N,M] through local.F's Split [1, 2] of axis 1: OK; on --input-shape x0=[2,4] the
    Split breaks, as onnxruntime refuses the model declaring x0 [2,4] (fixed: OK, ONNX's
    inference with new shapes is lenient, and only it read function bodies)."""
    path = onnx_graphs.save(_function_model("Split", ["split12"], [["N", "M"]]), tmp_path)
    model = ir.read_onnx(path)
    assert not model.check().problems
    got = model.check(input_shapes={"x0": "[2,4]"}).problems
    assert [(p.layer_name, p.message) for p in got] == [("call0", f"{_IN_F}(Split): {_SUM}")]
    ort_error = onnx_graphs.ort_error(_function_model("Split", ["split12"], [[2, 4]]))
    assert "Mismatch between the sum of 'split' (3)" in str(ort_error)


_SPLIT_3 = (
    "Splitting: size=3 cannot be split by the 'lengths' rule with (1, 1): they sum to 2, not 3"
)


def _also(calls: list[int], more: int = 0) -> str:
    """The words a function's fault ends with, naming the other calls with it."""
    named = ", ".join(f"node {k} 'call{k}' (local.F)" for k in calls)
    n = len(calls) + more
    return f"; the same fault in {n} other call{'s' * (n > 1)}: {named}" + (
        f" and {more} more" if more else ""
    )


_SPLIT_5 = _SPLIT_3.replace("3", "5")


@pytest.mark.parametrize(
    ("shapes", "found"),
    [
        # one fault in four calls: the first's problem names the other three
        ([[2, 3]] * 4, [(0, f"{_IN_F}(Split): {_SPLIT_3}{_also([1, 2, 3])}")]),
        # other shapes, other words: a fault of its own
        ([[2, 3], [2, 5], [2, 3]],
         [(0, f"{_IN_F}(Split): {_SPLIT_3}{_also([2])}"), (1, f"{_IN_F}(Split): {_SPLIT_5}")]),
        ([[2, 3]] * 9, [(0, f"{_IN_F}(Split): {_SPLIT_3}{_also([1, 2, 3, 4, 5], 3)}")]),
    ],
    ids=["four calls", "two shapes", "nine calls"],
)  # fmt: skip
def test_a_function_s_fault_is_one_problem_naming_every_call(
    tmp_path: Path, shapes: list[list[Any]], found: list[tuple[int, str]]
) -> None:
    """A function whose Split breaks, called several times: one problem per distinct fault,
    on the first call, naming the other calls with that fault (fixed: one problem per call,
    each in the same words). onnxruntime refuses the model (at the first: one is enough)."""
    model = _function_model("Split", ["split11"], shapes)
    assert "Mismatch between the sum of 'split' (2)" in str(onnx_graphs.ort_error(model))
    got = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check().problems
    assert [(p.layer_name, p.message) for p in got] == [(f"call{k}", m) for k, m in found]


def test_a_fault_onnx_checker_finds_in_a_function_is_one_problem_for_every_call(
    tmp_path: Path,
) -> None:
    """A function of a node in no opset, called three times: onnx.checker and onnxruntime
    refuse the model; datamove gives one problem, on the first call, naming the others (fixed:
    one per call), and a call's own fault (more inputs than the function takes) its own."""
    model = _calling([helper.make_node("Foo", ["a"], ["t"], name="foo")], [("", 17)])
    for k in (1, 2):
        model.graph.node.append(
            helper.make_node("F", ["x"], [f"y{k}"], domain="local", name=f"call{k}")
        )
        model.graph.output.append(_tensor(f"y{k}", [4]))
    model.graph.node.append(helper.make_node("F", ["x", "x"], ["y3"], domain="local", name="two"))
    model.graph.output.append(_tensor("y3", [4]))
    assert onnx_graphs.checker_error(model) is not None
    assert onnx_graphs.ort_error(model) is not None
    got = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check().problems
    assert [p.layer_name for p in got] == ["call", "two"]
    assert got[0].message.startswith("its function local.F's node 'foo' (Foo): 'Foo' is in no")
    assert got[0].message.endswith(
        "; the same fault in 2 other calls: node 1 'call1' (local.F), node 2 'call2' (local.F)"
    )
    assert (
        got[1].message == "has 2 inputs, but its function local.F takes 1: onnxruntime refuses more"
    )


def _if_model(op: str, inputs: list[str], loop: bool = False) -> Any:
    """An If (or a Loop, in an If with ``loop``) whose then branch is an ``op`` of x [2,3]
    (``inputs``: x and initializers named for their numbers), outer-scope initializers, which
    ONNX's inference of the branch does not read (onnx.checker takes the model)."""
    numbers = {"s": [0], "e": [1], "axis5": [5], "axis1": [1], "axis0": [0], "axis2": [2]}
    numbers |= {"split11": [1, 1], "split12": [1, 2], "twice": [0, -4]}
    inits = [onnx.numpy_helper.from_array(np.asarray(v, np.int64), n) for n, v in numbers.items()]
    outputs = ["t", "u"] if op == "Split" else ["t"]
    node = helper.make_node(
        op, inputs, outputs, name="inner", **({"axis": 1} if op == "Split" else {})
    )
    body = helper.make_graph([node], "b", [], [_tensor("t", None)])
    if loop:  # a Loop of one trip within the then branch, its body making t
        inputs = [_tensor("i", [], TensorProto.INT64), _tensor("cin", [], TensorProto.BOOL)]
        relay = helper.make_node("Identity", ["cin"], ["cout"])
        outputs = [_tensor("cout", [], TensorProto.BOOL), _tensor("t", None)]
        body = helper.make_graph([relay, node], "l", inputs, outputs)
        trips = helper.make_node("Loop", ["", "c"], ["t"], name="loop", body=body)
        body = helper.make_graph([trips], "b", [], [_tensor("t", None)])
    copy = helper.make_node("Identity", ["x"], ["t"])
    other = helper.make_graph([copy], "o", [], [_tensor("t", None)])
    top = helper.make_node("If", ["c"], ["y"], name="if", then_branch=body, else_branch=other)
    inputs = [_tensor("x", [2, 3]), _tensor("c", [], TensorProto.BOOL)]
    return _model([top], inputs, [_tensor("y", [2, None])], initializer=inits, imports=[("", 18)])


@pytest.mark.parametrize(
    ("op", "inputs", "loop", "rule", "ort", "ov"),
    [
        ("Slice", ["x", "s", "e", "axis5"], False, "its then_branch's node 'inner' (Slice): ",
         "Unexpected axis value: 5", "Axis 5 out of the tensor rank range [-2, 1]"),
        ("Slice", ["x", "s", "e", "axis5"], True,
         "its then_branch's node 'loop' (Loop): its body's node 'inner' (Slice): ",
         "Unexpected axis value: 5", "Axis 5 out of the tensor rank range [-2, 1]"),
        ("Split", ["x", "split11"], False, "its then_branch's node 'inner' (Split): ",
         "Mismatch between the sum of 'split' (2) and the split dimension of the input (3)",
         "Split"),
        ("Squeeze", ["x", "axis5"], False,
         ("its then_branch's node 'inner' (Squeeze): ONNX Squeeze: axes=[5] holds 5, out of range "
          "for rank 2\n"), "Unexpected axis value: 5", "Squeeze"),
        ("Squeeze", ["x", "axis0"], False, "its then_branch's node 'inner' (Squeeze): ",
         "Dimension of input 0 must be 1 instead of 2", None),
        ("Unsqueeze", ["x", "axis5"], False,
         ("its then_branch's node 'inner' (Unsqueeze): ONNX Unsqueeze: axes=[5] holds 5, out of "
          "range for output rank 3\n"), "Unexpected axis value: 5", "Unsqueeze"),
        ("Unsqueeze", ["x", "twice"], False,
         ("its then_branch's node 'inner' (Unsqueeze): ONNX Unsqueeze: axes=[0, -4] list axis 0 "
          "twice (output rank 4)\n"), "Axis 0 is referred to more than once",
         "If operation with dynamic rank"),  # OpenVINO: for another reason
        ("Slice", ["x", "s", "e", "axis1"], False, None, None, None),
        ("Slice", ["x", "s", "e", "axis1"], True, None, None, None),
        ("Split", ["x", "split12"], False, None, None, None),
        ("Unsqueeze", ["x", "axis2"], False, None, None, None),
    ],
)  # fmt: skip
def test_the_nodes_datamove_checks_are_checked_in_an_if_s_branches(
    tmp_path: Path,
    op: str,
    inputs: list[str],
    loop: bool,
    rule: str | None,
    ort: str,
    ov: str | None,
) -> None:
    """A Slice of x [2,3] on axis 5 in an If's branch (a Loop's body in it), a Split of its
    axis 1 into [1, 1]: onnx.checker takes it (its inference does not read the outer-scope
    numbers); onnxruntime ('Graph attribute inferencing failed: ... Unexpected axis value: 5')
    and OpenVINO ('Axis 5 out of the tensor rank range [-2, 1]') refuse the model when read,
    whichever branch runs: datamove the If, naming the branch and the node (fixed: OK)."""
    model = _if_model(op, inputs, loop)
    assert onnx_graphs.checker_error(model) is None
    path = onnx_graphs.save(model, tmp_path)
    ort_error, ov_error = onnx_graphs.ort_error(model), _ov_error(path)
    done = onnx_graphs.check_in_subprocess(path)
    if rule is None:  # (OpenVINO's CPU plugin compiles no If of an output of dynamic rank)
        assert ort_error is None
        assert ov_error is None or "If operation with dynamic rank" in ov_error
        assert done.returncode == 0, done.stdout + done.stderr
        return
    assert ort in str(ort_error)
    assert ov_error is None if ov is None else ov in str(ov_error)
    assert done.returncode == 1, done.stderr
    assert f"node 0 'if' (If): {rule}" in done.stdout
