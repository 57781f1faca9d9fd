"""``datamove check`` and ``datamove explain`` on ONNX files (``.onnx``).

Graphs made with ``onnx.helper`` (tests/onnx_graphs.py): every Slice, Split and Concat node is
checked with ONNX's semantics, the others are opaque; a declared dim edited is a ``shape``
problem on that node; each explained expression, evaluated on the node's input as onnxruntime
computes it, gives onnxruntime's output. Broken files are one error line and exit 1.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from datamove import PartialShape, ValidationError, ir
from datamove.cli import main
from datamove.ir._examples import write_onnx_example
from strategies import examples
from test_cli_ir import refused_alike
from test_splitting_onnx import onnx_splits, run_ort, split_model

onnx_graphs = pytest.importorskip("onnx_graphs")
onnx = onnx_graphs.onnx
helper, TensorProto = onnx.helper, onnx.TensorProto


def _check_json(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["check", str(path), "--json", *args])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert code == (0 if report["ok"] else 1)
    return report


def _explained(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert main(["explain", str(path), "--json", *args]) == 0
    layers: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return layers


def _arange(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


@pytest.mark.parametrize("name", list(onnx_graphs.GRAPHS))
def test_onnx_graphs_check_every_data_movement_node(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    build, shape = onnx_graphs.GRAPHS[name]
    model = build(shape)
    path = onnx_graphs.save(model, tmp_path)
    report = _check_json(path, capsys)
    assert report["ok"], report["problems"]
    moves, others = onnx_graphs.move_counts(model)
    assert (report["checked"], report["opaque"]) == (moves, others)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    n, m = sum(moves.values()), sum(others.values())
    assert f"\nchecked {n} node{'s' if n != 1 else ''} (" in out
    assert f"; {m} opaque" in out
    assert out.endswith("OK: no problems found\n")
    # the declared outputs of the graph are what datamove infers
    declared = {v.name: v for v in model.graph.output}
    for out_name, info in report["outputs"].items():
        assert declared[out_name].type.tensor_type.HasField("shape")
        dims = [d.dim_value for d in declared[out_name].type.tensor_type.shape.dim]
        assert info["shape"] == "[" + ",".join(map(str, dims)) + "]"


@pytest.mark.parametrize("name", list(onnx_graphs.GRAPHS))
def test_explained_expressions_give_what_onnxruntime_gives(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    build, shape = onnx_graphs.GRAPHS[name]
    model = build(shape)
    path = onnx_graphs.save(model, tmp_path)
    values = onnx_graphs.run_onnxruntime(model, _arange(tuple(shape)))
    values["x"] = _arange(tuple(shape))
    nodes = list(model.graph.node)
    layers = _explained(path, capsys)
    listed = ("Slice", "Split", "Concat", "Unsqueeze", "Squeeze")
    assert [i["name"] for i in layers] == [n.name for n in nodes if n.op_type in listed]
    for info in layers:
        node = nodes[int(info["layer_id"])]
        if info["layer_type"] == "Concat":
            _check_concat_parts(info, node, values)
            continue
        x = values[node.input[0]]
        assert info["input_shape"] == "[" + ",".join(map(str, x.shape)) + "]"
        texts = info["numpy"] if isinstance(info["numpy"], list) else [info["numpy"]]
        assert None not in texts, info
        assert not info["runtime"]
        assert len(texts) == len(node.output)
        for text, out, declared in zip(texts, node.output, info["output_shapes"], strict=True):
            got = eval(text, {"x": x})  # noqa: S307 - the expression under test
            want = values[out]
            assert got.shape == want.shape, (text, info)
            assert declared == "[" + ",".join(map(str, want.shape)) + "]"
            np.testing.assert_array_equal(got, want)


def _check_concat_parts(info: dict[str, Any], node: Any, values: dict[str, np.ndarray]) -> None:
    """Each part a Concat's entry writes, taken of onnxruntime's output, is that input."""
    out = values[node.output[0]]
    (declared,) = info["output_shapes"]
    assert PartialShape.parse(declared).compatible(out.shape)
    assert len(info["parts"]) == len(info["sources"]) == len(node.input)
    names = {f"x{k}": values[name] for k, name in enumerate(node.input)}  # x0.shape[1]
    for part, name in zip(info["parts"], node.input, strict=True):
        np.testing.assert_array_equal(eval(part, {"out": out, **names}), values[name])  # noqa: S307


def _views_and_joins(opset: int) -> Any:
    """Unsqueeze, Squeeze (of listed axes, of every 1) and Concat, and a shape subgraph's Concat."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    axes = {"axes": [0, -1]}, {"axes": [0]}
    inits = [helper.make_tensor("shape_tail", i64, [1], [-1])]
    if opset >= 13:
        inits += [
            helper.make_tensor(n, i64, [len(v)], v) for n, v in (("ua", [0, -1]), ("sa", [0]))
        ]
        axes = {}, {}
    nodes = [
        helper.make_node("Unsqueeze", ["x", *(["ua"] if opset >= 13 else [])], ["u"], **axes[0]),
        helper.make_node("Squeeze", ["u", *(["sa"] if opset >= 13 else [])], ["s"], **axes[1]),
        helper.make_node("Squeeze", ["u"], ["every"]),
        helper.make_node("Concat", ["every", "x"], ["joined"], axis=-1),
        helper.make_node("Shape", ["x"], ["dims"]),  # a shape subgraph's Concat: not listed
        helper.make_node("Concat", ["dims", "shape_tail"], ["target"], axis=0),
        helper.make_node("Reshape", ["joined", "target"], ["y"]),
    ]
    for k, node in enumerate(nodes):
        node.name = f"{node.op_type.lower()}{k}"
    outputs = [helper.make_tensor_value_info(n, f32, None) for n in ("s", "y")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", f32, ["n", 3])], outputs, inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


@pytest.mark.parametrize("opset", [11, 13])
def test_explain_lists_concat_unsqueeze_and_squeeze_nodes_as_an_ir_s_layers(
    tmp_path: Path, opset: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # fixed: explain MODEL.onnx listed no Concat, Unsqueeze or Squeeze node, explain MODEL.xml did
    model = _views_and_joins(opset)
    x = _arange((2, 3))
    values = onnx_graphs.run_onnxruntime(model, x) | {"x": x}
    layers = _explained(onnx_graphs.save(model, tmp_path), capsys)
    nodes = list(model.graph.node)
    assert [i["name"] for i in layers] == ["unsqueeze0", "squeeze1", "squeeze2", "concat3"]
    unsqueeze, squeeze, every, concat = layers
    # on x of shape [?,3]: one index for every size where one is, as an IR's layers
    assert (unsqueeze["numpy"], squeeze["numpy"]) == ("x[None, :, :, None]", "x[0]")
    assert every["numpy"] is None
    assert every["note"] == "which dims it drops depends on the sizes [1,?,3,1] allows"
    for info in (unsqueeze, squeeze):
        node = nodes[int(info["layer_id"])]
        got = eval(info["numpy"], {"x": values[node.input[0]]})  # noqa: S307
        np.testing.assert_array_equal(got, values[node.output[0]])
    assert concat["sources"] == ["node 2 'squeeze2' (Squeeze)", "input 'x'"]
    assert concat["parts"] == ["out[:, :x0.shape[1]]", "out[:, x0.shape[1]:]"]
    _check_concat_parts(concat, nodes[3], values)
    assert main(["explain", str(tmp_path / "model.onnx"), "--layer", "concat3"]) == 0
    assert "x1 from input 'x': out[" in capsys.readouterr().out


def test_a_squeeze_of_no_axes_is_written_in_other_dialects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # fixed: --as said "it cannot be read: None" of a Squeeze without axes (no values read)
    node = helper.make_node("Squeeze", ["x"], ["y"], name="every")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 1])
    graph = helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("y", 1, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    path = onnx_graphs.save(model, tmp_path)
    assert main(["explain", str(path), "--as", "numpy,onnx", "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert info["numpy"] == "x[0, :, 0]"
    assert info["as"]["onnx"]["value"] == [["Squeeze", {"axes": [0, 2]}]]
    x_value = _arange((1, 3, 1))
    got = onnx_graphs.run_onnxruntime(model, x_value)["y"]
    for text in (info["numpy"], info["as"]["numpy"]["value"]):  # x[0, 0:3, 0]
        np.testing.assert_array_equal(eval(text, {"x": x_value}), got)  # noqa: S307


def _edited(model: Any, value: str, dim: int) -> Any:
    """A copy whose declared shape of ``value`` (value_info or output) has ``dim`` one larger."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for v in (*copy.graph.value_info, *copy.graph.output):
        if v.name == value:
            d = v.type.tensor_type.shape.dim[dim]
            d.dim_value += 1
            return copy
    msg = f"{value} is not declared"
    raise AssertionError(msg)


@pytest.mark.parametrize("name", list(onnx_graphs.GRAPHS))
def test_a_wrong_declared_dim_is_a_shape_problem_on_that_node(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    build, shape = onnx_graphs.GRAPHS[name]
    model = build(shape)
    declared = {v.name for v in (*model.graph.value_info, *model.graph.output)}
    edited = 0
    for i, node in enumerate(model.graph.node):
        if node.op_type not in onnx_graphs.MOVES:
            continue
        k, out = next((k, o) for k, o in enumerate(node.output) if o in declared)
        path = onnx_graphs.save(_edited(model, out, 0), tmp_path, f"edited{i}")
        problems = ir.read_onnx(path).check().problems
        assert [(p.kind, p.layer_id, p.layer_name, p.port) for p in problems] == [
            ("shape", str(i), node.name, k)
        ], problems
        assert main(["check", str(path)]) == 1
        out_text = capsys.readouterr().out
        assert "\n1 problem:\n" in out_text
        assert f"node {i} {node.name!r} ({node.op_type}) output {k}: declares [" in out_text
        edited += 1
    assert edited


@pytest.mark.parametrize(("shape", "text"), [([2, 3, 1], "x[:, 1:]"), ([2, 3, 2], "x[:, 1:, :1]")])
def test_a_slice_exact_on_its_static_shape_alone_is_written_shortest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: list[int], text: str
) -> None:
    # x[:, 1:, -2::-2] has no one NumPy index for every size; on a static shape it was written
    # with to_numpy(shape)'s in-range numbers (x[0:2, 1:3, 0:1]), where a model's layer and
    # datamove explain write the shortest exact index.
    model = onnx_graphs.slices(shape)
    layers = _explained(onnx_graphs.save(model, tmp_path), capsys)
    assert layers[3]["numpy"] == text
    values = onnx_graphs.run_onnxruntime(model, _arange(tuple(shape)))
    got = eval(text, {"x": _arange(tuple(shape))})  # noqa: S307
    np.testing.assert_array_equal(got, values["v"])


def test_check_verbose_names_a_node_s_outputs_not_ports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ONNX has no ports: "ports:" and "node 2 'parts' (Split) port 1" were the IR's words
    assert main(["check", str(write_onnx_example(tmp_path)), "-v"]) == 0
    out = capsys.readouterr().out
    assert "\nnode outputs:\n  node 0 'relu' (Relu) output 0: [2,6]\n" in out
    assert "\n  node 2 'parts' (Split) output 1: [2,4]\n" in out


def test_explain_takes_input_shapes_as_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # explain MODEL had no --input-shape: a dynamic model's nodes were explained on the
    # declared shapes alone. x[:, 1:, -2::-2] has no one NumPy index on [N,H,W], one on [2,3,2].
    path = onnx_graphs.save(onnx_graphs.slices(["N", "H", "W"]), tmp_path)
    layer = _explained(path, capsys)[3]
    assert (layer["input_shape"], layer["numpy"]) == ("[?,?,?]", None)
    layers = _explained(path, capsys, "--input-shape", "x=[2,3,2]")
    assert (layers[3]["input_shape"], layers[3]["numpy"]) == ("[2,3,2]", "x[:, 1:, :1]")
    assert ir.read_onnx(path).explain(input_shapes={"x": "[2,3,2]"}) == layers
    refused_alike(path, capsys, "x")


def test_dynamic_dims_are_checked_and_explained_for_every_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = onnx_graphs.slices(["N", "H", "W"])
    path = onnx_graphs.save(model, tmp_path)
    report = _check_json(path, capsys)
    assert report["ok"]
    assert report["checked"] == {"Slice": 4, "Concat": 1}
    layers = _explained(path, capsys)
    # x[:, 1:, -2::-2]: on size 1 the start -2 is before the first element; ONNX clamps it to
    # 0 and takes x[0], NumPy takes nothing: no one NumPy index for every size, and explain says
    # so. The others are written as they are (the INT32_MAX end kept: sizes past it exist).
    assert [i["numpy"] for i in layers] == [
        "x[::-1]",
        "x[:, 1:]",
        "x[:, :, :2147483647:2]",
        None,
        "np.concatenate([x0, x1], axis=2)",
    ]
    note = "-2::-2 selects 1 element(s) by OpenVINO's clamping and 0 by NumPy's"
    assert note in layers[3]["note"]
    for shape in [(1, 2, 1), (3, 4, 6), (2, 1, 5), (0, 3, 2)]:
        values = onnx_graphs.run_onnxruntime(model, _arange(shape))
        values["x"] = _arange(shape)
        nodes = list(model.graph.node)
        for info in layers[:3]:
            node = nodes[int(info["layer_id"])]
            got = eval(info["numpy"], {"x": values[node.input[0]]})  # noqa: S307
            np.testing.assert_array_equal(got, values[node.output[0]])
        _check_concat_parts(layers[4], nodes[4], values)
    np.testing.assert_array_equal(values["v"], _arange((0, 3, 2))[:, 1:, -2::-2])
    values = onnx_graphs.run_onnxruntime(model, _arange((2, 3, 1)))
    np.testing.assert_array_equal(values["v"], _arange((2, 3, 1))[:, 1:, 0:1])  # x[0], clamped
    # with a static shape for the symbolic one, the outputs are static
    report = _check_json(path, capsys, "--input-shape", "x=[3,4,6]")
    assert report["outputs"]["z"]["shape"] == "[3,3,6]"


def test_split_18_on_a_dynamic_dim_is_written_with_the_spec_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = onnx_graphs.split18([2, 3, "W"])
    path = onnx_graphs.save(model, tmp_path)
    info, _ = _explained(path, capsys)  # the Split and a Concat
    assert info["numpy"] == [
        "x[:, :, :-(-x.shape[2]//3)]",
        "x[:, :, -(-x.shape[2]//3):-(-x.shape[2]//3)*2]",
        "x[:, :, -(-x.shape[2]//3)*2:]",
    ]
    for w in (0, 2, 4, 6, 7, 9):  # valid sizes; 5 into 3 is too (2, 2, 1)
        x = _arange((2, 3, w))
        values = onnx_graphs.run_onnxruntime(model, x)
        for text, out in zip(info["numpy"], ("p0", "p1", "p2"), strict=True):
            np.testing.assert_array_equal(eval(text, {"x": x}), values[out])  # noqa: S307


@pytest.mark.parametrize(("rows", "known"), [(6, True), ("n", False)], ids=["[6,2]", "[n,2]"])
def test_split_18_of_neither_split_nor_num_outputs_is_refused_as_the_spec_says(
    tmp_path: Path, rows: int | str, known: bool
) -> None:
    """The spec: Split-18 takes ``split`` or ``num_outputs``. onnx.checker (full_check) and
    onnxruntime refuse a node of neither where the axis's size is known, and onnxruntime runs it
    where not (as OpenVINO and onnx.reference do everywhere: parts by the number of outputs);
    datamove refuses it everywhere (docs/ir.md, ONNX files)."""
    ov = pytest.importorskip("openvino")
    graph = helper.make_graph(
        [helper.make_node("Split", ["x"], ["a", "b"], name="cut", axis=0)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, 2])],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, [None, 2]) for o in "ab"],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    path = onnx_graphs.save(model, tmp_path)
    x = _arange((6, 2))
    error = onnx_graphs.checker_error(model)
    assert (error is None) == (not known), error
    assert (run_ort(model, x) is None) == known
    (want, _) = onnx.reference.ReferenceEvaluator(model).run(None, {"x": x})
    got = ov.Core().compile_model(str(path), "CPU")({0: x})
    np.testing.assert_array_equal(next(iter(got.values())), want)
    np.testing.assert_array_equal(want, x[:3])
    (problem,) = ir.read_onnx(path).check().problems
    assert (problem.kind, problem.layer_name) == ("operator", "cut")
    assert problem.message.endswith("Split-18 needs split or num_outputs")


def test_run_time_parameters_are_named_after_their_maker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # x[:, :n] with n = Shape(x)[0] computed at run time: written as an expression of x's
    # dims; and a Split whose split is an input
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape_of"),
        helper.make_node("Slice", ["shape", "zero", "one"], ["n"], name="first_dim"),
        helper.make_node("Slice", ["x", "zero", "n", "one"], ["y"], name="cut"),
        helper.make_node("Split", ["x", "lens"], ["a", "b"], name="parts", axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["A", "B"]),
            helper.make_tensor_value_info("lens", TensorProto.INT64, [2]),
        ],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in ("y", "a", "b")],
        initializer=[
            helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
            helper.make_tensor("one", TensorProto.INT64, [1], [1]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = onnx_graphs.save(model, tmp_path)
    assert _check_json(path, capsys)["checked"] == {"Slice": 2, "Split": 1}
    layers = {i["name"]: i for i in _explained(path, capsys)}
    assert layers["first_dim"]["numpy"] == "x[:1]"
    assert layers["cut"]["numpy"] == "x[:, :x.shape[0]]"
    assert layers["cut"]["runtime"] == {
        "first_dim": "ends: node 1 'first_dim' (Slice) = [x.shape[0]]"
    }
    assert layers["cut"]["expressions"] == {"ends": ["x.shape[0]"]}
    assert layers["parts"]["numpy"] == ["x[:, :lens[0]]", "x[:, lens[0]:]"]
    assert layers["parts"]["runtime"] == {"lens": "split: input 'lens'"}
    assert main(["explain", str(path), "--layer", "cut"]) == 0
    out = capsys.readouterr().out
    assert "first_dim = ends: node 1 'first_dim' (Slice) = [x.shape[0]], known at run time" in out


def _single(node: Any, shape: list[int] | None, opset: int, inits: list[Any], outs: int = 1) -> Any:
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, None) for k in range(outs)],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _i64(name: str, values: list[int]) -> Any:
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


@pytest.mark.parametrize(
    ("model", "kind", "text"),
    [
        pytest.param(
            _single(
                helper.make_node("Split", ["x"], ["y0", "y1", "y2", "y3"], num_outputs=4),
                [5],
                18,
                [],
                4,
            ),
            "operator",
            "cannot be split by the 'onnx' rule with 4: ONNX Split-18's num_outputs makes parts",
            id="split-18 5 into 4",
        ),
        pytest.param(
            _single(helper.make_node("Split", ["x"], ["y0", "y1"]), [4], 1, [], 2),
            "unsupported",
            "Split-1",
            id="split-1",
        ),
        pytest.param(
            _single(
                helper.make_node("Slice", ["x", "s", "e", "a", "k"], ["y0"]),
                [4],
                13,
                [_i64("s", [0]), _i64("e", [2]), _i64("a", [0]), _i64("k", [0])],
            ),
            "operator",
            "steps[0]=0 is zero",
            id="slice step 0",
        ),
        pytest.param(
            _single(
                helper.make_node("Slice", ["x", "s", "e", "a"], ["y0"]),
                [4],
                13,
                [_i64("s", [0]), _i64("e", [2]), _i64("a", [3])],
            ),
            "operator",
            "holds 3, out of range for rank 1",
            id="slice axis 3",
        ),
        pytest.param(
            _single(helper.make_node("Concat", ["x", "x"], ["y0"], axis=2), [4], 13, []),
            "operator",
            "Concat",
            id="concat axis 2",
        ),
        pytest.param(
            _single(helper.make_node("Concat", ["x", "x"], ["y0"]), [4], 13, []),
            "attribute",
            "Concat-13 needs the attribute 'axis'",
            id="concat no axis",
        ),
        pytest.param(
            _single(helper.make_node("Slice", ["x", "s"], ["y0"]), [4], 13, [_i64("s", [0])]),
            "ports",
            "takes 3 to 5",
            id="slice 2 inputs",
        ),
        pytest.param(
            _single(
                helper.make_node("Split", ["x", "s"], ["y0", "y1"]),
                [4],
                13,
                [_i64("s", [1, 1])],
                2,
            ),
            "operator",
            "cannot be split by the 'lengths' rule",
            id="split sum",
        ),
        pytest.param(
            _single(
                helper.make_node("Slice", ["x", "s", "e"], ["y0", "y1"]),
                [4],
                13,
                [_i64("s", [0]), _i64("e", [2])],
                2,
            ),
            "ports",
            "has 2 outputs, but Slice-13 gives 1",
            id="slice 2 outputs",
        ),
        pytest.param(
            _single(helper.make_node("Slice", [], ["y0"]), [4], 13, []),
            "ports",
            "has 0 inputs, but Slice-13 takes 3 to 5",
            id="slice no input",
        ),
        pytest.param(
            _single(helper.make_node("Slice", ["x", "", "e"], ["y0"]), [4], 13, [_i64("e", [2])]),
            "ports",
            "leaves input 1 (starts) out (''), which Slice-13 requires",
            id="slice starts left out",
        ),
        pytest.param(
            _single(
                helper.make_node("Slice", ["x", "s", "e"], ["y0"]),
                [4],
                13,
                [helper.make_tensor("s", TensorProto.INT64, [1, 1], [0]), _i64("e", [2])],
            ),
            "operator",
            "must be a 1-D tensor of integers, not 2-D int64",
            id="slice 2-D starts",
        ),
        pytest.param(
            _single(
                helper.make_node("Slice", ["x", "x"], ["y0"], starts=[0], ends=[2]), [4], 9, []
            ),
            "ports",
            "has 2 inputs, but Slice-1 takes 1",
            id="slice-1 2 inputs",
        ),
        pytest.param(
            _single(helper.make_node("Slice", ["x"], ["y0"], starts=[0]), [4], 9, []),
            "attribute",
            "Slice-1 needs the attribute 'ends'",
            id="slice-1 no ends",
        ),
        pytest.param(
            _single(helper.make_node("Slice", ["x"], ["y0"], starts=[0.5], ends=[2]), [4], 9, []),
            "attribute",
            "attribute 'starts' is of type FLOATS, but Slice-1 takes INTS",
            id="slice-1 float starts",
        ),
        pytest.param(
            _single(helper.make_node("Split", ["x"], ["y0", "y1"], split=[2, 2]), [4], 13, [], 2),
            "attribute",
            "Split-13 has no attribute 'split' (the model imports opset 13): split is an input of "
            "Split-13",
            id="split-13 split attribute",
        ),
        pytest.param(
            _single(
                helper.make_node("Split", ["x", "s", "s"], ["y0", "y1"]),
                [4],
                13,
                [_i64("s", [2, 2])],
                2,
            ),
            "ports",
            "has 3 inputs, but Split-13 takes 1 or 2",
            id="split-13 3 inputs",
        ),
        pytest.param(
            _single(
                helper.make_node("Split", ["x", "s"], ["y0", "y1"]), [4], 11, [_i64("s", [2, 2])], 2
            ),
            "ports",
            "has 2 inputs, but Split-11 takes 1",
            id="split-11 2 inputs",
        ),
        pytest.param(
            _single(helper.make_node("Split", ["x"], ["y0", "y1"], axis=1), [4], 13, [], 2),
            "operator",
            "is out of range for rank 1",
            id="split axis 1",
        ),
        pytest.param(
            _single(helper.make_node("Concat", [], ["y0"], axis=0), [4], 13, []),
            "ports",
            "has 0 inputs, but Concat-13 takes at least 1",
            id="concat no inputs",
        ),
        pytest.param(
            _single(
                helper.make_node("Concat", ["x", "s"], ["y0"], axis=0), [4], 13, [_i64("s", [1])]
            ),
            "operator",
            "have different element types",
            id="concat f32 and i64",
        ),
        # on data of unknown rank, an axis far out of every rank (a MemoryError after 10 s)
        pytest.param(
            _single(
                helper.make_node("Slice", ["x", "s", "e", "a"], ["y0"]),
                None,  # unknown rank
                13,
                [_i64("s", [0]), _i64("e", [1]), _i64("a", [-141836999983105])],
            ),
            "operator",
            "out of range for every rank",
            id="slice axis far out of every rank",
        ),
        # an int attribute given as a list of ints, and the other way round (a TypeError
        # went out of check and explain): of the wrong type by the operator's schema
        pytest.param(
            _single(helper.make_node("Split", ["x"], ["y0", "y1"], axis=[0]), [4], 13, [], 2),
            "attribute",
            "attribute 'axis' is of type INTS, but Split-13 takes INT",
            id="split axis of ints",
        ),
        pytest.param(
            _single(helper.make_node("Concat", ["x", "x"], ["y0"], axis=[0]), [4], 13, []),
            "attribute",
            "attribute 'axis' is of type INTS, but Concat-13 takes INT",
            id="concat axis of ints",
        ),
        pytest.param(
            _single(
                helper.make_node("Split", ["x"], ["y0", "y1"], num_outputs=[2]), [4], 18, [], 2
            ),
            "attribute",
            "attribute 'num_outputs' is of type INTS, but Split-18 takes INT",
            id="split num_outputs of ints",
        ),
        pytest.param(
            _single(helper.make_node("Unsqueeze", ["x"], ["y0"]), [2, 3], 11, []),
            "attribute",
            "Unsqueeze-11 needs the attribute 'axes'",
            id="unsqueeze-11 no axes",
        ),
        pytest.param(
            _single(helper.make_node("Squeeze", ["x"], ["y0"], axes=0), [1, 3], 11, []),
            "attribute",
            "attribute 'axes' is of type INT, but Squeeze-11 takes INTS",
            id="squeeze-11 axes=0, an int",
        ),
        pytest.param(
            _single(helper.make_node("Split", ["x"], ["y0", "y1"], split=2), [4], 11, [], 2),
            "attribute",
            "attribute 'split' is of type INT, but Split-11 takes INTS",
            id="split-11 split of an int",
        ),
        pytest.param(
            _single(helper.make_node("Slice", ["x"], ["y0"], starts=0, ends=[2]), [4], 9, []),
            "attribute",
            "attribute 'starts' is of type INT, but Slice-1 takes INTS",
            id="slice-1 starts of an int",
        ),
    ],
)
def test_broken_nodes_are_problems_of_their_kind(
    tmp_path: Path, model: Any, kind: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = onnx_graphs.save(model, tmp_path)
    report = ir.read_onnx(path).check()
    assert [p.kind for p in report.problems] == [kind], report.problems
    assert text in report.problems[0].message
    assert main(["check", str(path)]) == 1
    assert text in capsys.readouterr().out
    assert main(["explain", str(path)]) == 0  # explain says why instead of an expression
    capsys.readouterr()
    if kind in ("ports", "attribute"):  # its schema refuses it: not read, so not explained
        assert ir.read_onnx(path).explain() == []
        assert main(["explain", str(path), "--layer", "0"]) == 1
        assert f"onnx.checker refuses: {report.problems[0].message})" in capsys.readouterr().err


def test_a_declared_element_type_that_differs_is_an_element_type_problem(tmp_path: Path) -> None:
    node = helper.make_node("Concat", ["x", "x"], ["y0"], axis=0)
    model = _single(node, [2], 13, [])
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.INT32
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert [(p.kind, p.message) for p in report.problems] == [
        ("element-type", "declares element type i32, but the element type is f32")
    ]


def _declared_opaque(etype: int, dims: list[int | None], where: str) -> Any:
    """x [3,2] -> Sigmoid (opaque) -> Relu; its output declared ``etype``, ``dims``."""
    nodes = [helper.make_node("Sigmoid", ["x"], ["r"], name="rs")]
    declared = helper.make_tensor_value_info("r", etype, dims)
    outs, infos = [declared], []
    if where == "value_info":
        nodes.append(helper.make_node("Relu", ["r"], ["y"], name="re"))
        outs, infos = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])], [declared]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
        outs,
        [],
        value_info=infos,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("where", ["output", "value_info"])
@pytest.mark.parametrize(
    ("etype", "dims", "problem"),
    [
        pytest.param(
            TensorProto.BOOL,
            [3, 2],
            "declares element type boolean, but ONNX's type inference gives f32",
            id="bool",
        ),
        pytest.param(
            TensorProto.FLOAT,
            [3],
            "declares [3], but ONNX's shape inference gives [3,2]",
            id="rank",
        ),
        pytest.param(
            TensorProto.FLOAT,
            [3, 5],
            "declares [3,5], but ONNX's shape inference gives [3,2]",
            id="dim",
        ),
        pytest.param(TensorProto.FLOAT, [3, None], None, id="dynamic dim"),
        pytest.param(TensorProto.FLOAT, [3, 2], None, id="as inferred"),
    ],
)
def test_an_opaque_node_s_output_declared_other_than_onnx_infers_it_is_a_problem(
    tmp_path: Path, where: str, etype: int, dims: list[int | None], problem: str | None
) -> None:
    """onnx.checker (full_check) refuses a declared rank, static dim or element type that ONNX's
    own inference contradicts (onnxruntime the element type alone): a problem on that node."""
    model = _declared_opaque(etype, dims, where)
    path = onnx_graphs.save(model, tmp_path)
    report = ir.read_onnx(path).check()
    found = [(p.kind, p.message, p.layer_name, p.port) for p in report.problems]
    kind = "element-type" if etype == TensorProto.BOOL else "shape"
    assert found == ([] if problem is None else [(kind, problem, "rs", 0)])
    assert (onnx_graphs.checker_error(model) is None) == (problem is None)
    ran = run_ort(model, _arange((3, 2)))
    assert (ran is None) == (etype == TensorProto.BOOL)


@pytest.mark.parametrize(("columns", "ok"), [(1024, True), (1023, False)])
def test_onnx_s_inference_reads_a_weight_s_dims_without_its_data(
    tmp_path: Path, columns: int, ok: bool
) -> None:
    """ONNX's inference runs on a copy whose float initializers keep their dims alone (a
    model's weights are not copied): a MatMul by a [256,1024] weight declared [8,1024] is OK,
    as onnx.checker finds it, and declared [8,1023] a shape problem."""
    weight = np.ones((256, 1024), np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, columns])],
        [onnx.numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = onnx_graphs.save(model, tmp_path)
    assert (onnx_graphs.checker_error(model) is None) == ok
    problems = [(p.kind, p.layer_name) for p in ir.read_onnx(path).check().problems]
    assert problems == ([] if ok else [("shape", "mm")])


@pytest.mark.parametrize(
    ("content", "rule"),
    [
        pytest.param(b"", "is not an ONNX model: it has no ir_version or no graph", id="empty"),
        pytest.param(b"<?xml version='1.0'?><net/>", "is not an ONNX model", id="xml"),
        pytest.param(b"\xff" * 64, "is not an ONNX model", id="junk"),
    ],
)
def test_a_file_that_is_no_onnx_model_is_one_error_line(
    tmp_path: Path, content: bytes, rule: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    with pytest.raises(ir.ONNXError, match=rule):
        ir.read_onnx(path)
    for command in ("check", "explain"):
        assert main([command, str(path)]) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith("datamove: error: ONNX: path=")
        assert rule in captured.err
        assert captured.err.count("\n") == 1


def test_a_cut_short_model_and_other_files_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = onnx_graphs.slices([3, 4, 6])
    data = model.SerializeToString()
    for cut in (len(data) // 3, len(data) // 2, len(data) - 5):
        path = tmp_path / f"cut{cut}.onnx"
        path.write_bytes(data[:cut])
        with contextlib.suppress(ValidationError):  # some prefixes parse, and check
            ir.read_onnx(path).check()
        code = main(["check", str(path)])
        assert code in (0, 1)
        assert "Traceback" not in capsys.readouterr().err
    (tmp_path / "dir.onnx").mkdir()
    assert main(["check", str(tmp_path / "dir.onnx")]) == 1
    assert "is a directory, not a regular file" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.onnx")]) == 1
    assert "does not exist" in capsys.readouterr().err
    path = onnx_graphs.save(model, tmp_path)
    assert main(["check", str(path), "--bin", "w.bin"]) == 1
    assert "--bin='w.bin' is for IR models" in capsys.readouterr().err


def _claiming(elements: int, where: str) -> Any:
    """A model whose Gather indices claim ``elements`` elements, then Unsqueeze: ONNX's data
    propagation allocates for every element claimed.

    The indices an initializer or a Constant (8 bytes of data), a graph input, or a
    ConstantOfShape of a 1-element shape.
    """
    indices = onnx.numpy_helper.from_array(np.array([1], dtype=np.int64), "i0")
    indices.dims[:] = [elements]
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["d"], axis=0),
        helper.make_node("Unsqueeze", ["d", "ax"], ["e"]),
        helper.make_node("Slice", ["x", "zero", "e", "ax"], ["y"]),
    ]
    inits = [onnx.numpy_helper.from_array(np.array([0], dtype=np.int64), n) for n in ("ax", "zero")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "M"])]
    if where == "Constant":
        nodes.insert(0, helper.make_node("Constant", [], ["i0"], value=indices))
    elif where == "input":
        inputs.append(helper.make_tensor_value_info("i0", TensorProto.INT64, [elements]))
    elif where == "ConstantOfShape":
        one = onnx.numpy_helper.from_array(np.array([0], dtype=np.int64), "v")
        nodes.insert(0, helper.make_node("ConstantOfShape", ["n"], ["i0"], value=one))
        inits.append(onnx.numpy_helper.from_array(np.array([elements], dtype=np.int64), "n"))
    else:
        inits.append(indices)
    graph = helper.make_graph(
        nodes,
        "g",
        inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("where", ["initializer", "Constant", "input", "ConstantOfShape"])
def test_a_tensor_claiming_more_elements_than_it_holds_costs_no_memory(
    tmp_path: Path, where: str
) -> None:
    # a 330-byte file whose indices claim 4 million elements: ONNX's shape inference (with data
    # propagation, for opaque nodes) allocated for each, 600 MB (50 million: 5.5 GB, and the
    # process killed past that); now it runs without data propagation on such a file
    path = onnx_graphs.save(_claiming(4_000_000, where), tmp_path)
    assert path.stat().st_size < 400
    script = (
        "import resource, sys; from datamove.cli import main; import onnx.shape_inference;"
        "peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024;"
        "before = peak(); code = main(['check', sys.argv[1]]); print(peak() - before);"
        "sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "OK: no problems found" in done.stdout
    assert int(done.stdout.split()[-1]) < 100, done.stdout  # MB more than the imports' peak


def _slice_of(dims: list[Any], starts: int, ends: int, steps: int, axis: int) -> Any:
    """``y = Slice(x, [starts], [ends], [axis], [steps])`` of a float x declared ``dims``, and
    an opaque ``z = Neg(y)`` (its output as ONNX's inference gives it)."""
    inits = [_i64("s", [starts]), _i64("e", [ends]), _i64("a", [axis]), _i64("k", [steps])]
    graph = helper.make_graph(
        [
            helper.make_node("Slice", ["x", "s", "e", "a", "k"], ["y"], name="cut"),
            helper.make_node("Neg", ["y"], ["z"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in "yz"],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def test_a_1_d_tensor_of_many_elements_is_inferred_without_data_propagation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ONNX's data propagation allocates for each element of a 1-D tensor a Slice (or Concat,
    # Gather, Squeeze, Unsqueeze) reads, whatever its element type: 280 MB for a float x of 4
    # million (onnx 1.23), and a dim of INT64_MAX ended the process
    asked: list[bool] = []
    infer = onnx.shape_inference.infer_shapes

    def spy(model: Any, *args: Any, data_prop: bool = False, **kwargs: Any) -> Any:
        asked.append(data_prop)
        return infer(model, *args, data_prop=data_prop, **kwargs)

    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", spy)
    for n, propagated in ((65_536, True), (65_537, False)):
        asked.clear()
        report = ir.read_onnx(onnx_graphs.save(_slice_of([n], 1, 3, 1, 0), tmp_path)).check()
        assert report.ok
        assert str(report.outputs["z"][0]) == "[2]"  # Neg: as ONNX infers it
        assert any(asked) is propagated


INT64_MAX = 2**63 - 1
INT32_MAX = onnx_graphs.INT32_MAX


@pytest.mark.parametrize(
    ("starts", "ends", "steps"),
    [
        (0, 5, 1),
        (1, INT64_MAX, 1),
        (-3, INT64_MAX, 1),
        (5, -5, 1),
        (0, INT64_MAX, 2),
        (INT64_MAX, 0, -1),
        (-1, -(2**63), -1),
        (INT64_MAX, -(2**63), -(2**62)),
        (3, 2, 1),
    ],
)
@pytest.mark.parametrize("rank", [1, 2])
def test_a_slice_of_a_dim_of_int64_max_is_the_spec_s_length(
    tmp_path: Path, starts: int, ends: int, steps: int, rank: int
) -> None:
    # A dim of INT64_MAX is legal ONNX (onnxruntime loads it): no problem, and the output is
    # the spec's length, Python's on a range of that size (the spec clamps as Python does for
    # int64 values). ONNX's own inference gives [2,0] for x[1:INT64_MAX] (its arithmetic
    # overflows), and the slice algebra refuses the size: check's rule is the operator's.
    dims = [INT64_MAX] if rank == 1 else [2, INT64_MAX]
    model = _slice_of(dims, starts, ends, steps, rank - 1)
    if rank == 2:  # (rank 1: its inference's data propagation would take INT64_MAX elements)
        assert onnx_graphs.ort_error(model) is None
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.problems == ()
    length = len(range(INT64_MAX)[starts:ends:steps])
    assert report.outputs["y"][0] == PartialShape([*dims[:-1], length])


_WIDE_DIMS = st.integers(onnx_graphs.INT32_MAX + 1, INT64_MAX) | st.sampled_from(
    [INT64_MAX, INT64_MAX - 1, 2**62, 2**32, onnx_graphs.INT32_MAX + 1]
)


@settings(max_examples=examples(60), deadline=None)
@given(dim=_WIDE_DIMS, rule=st.sampled_from(["split", "even", "num_outputs"]), data=st.data())
@example(dim=INT64_MAX, rule="split", data=(13, [1, INT64_MAX - 1]))
@example(dim=INT64_MAX, rule="split", data=(18, [INT64_MAX, 0]))
@example(dim=INT64_MAX, rule="even", data=(13, 7))
@example(dim=INT64_MAX, rule="num_outputs", data=(18, 2))
@example(dim=2**32, rule="split", data=(2, [2**31, 2**31]))
@example(dim=2**32, rule="num_outputs", data=(18, 3))
def test_a_split_of_a_dim_past_int32_is_the_spec_s_where_onnx_truncates_it(
    tmp_path_factory: pytest.TempPathFactory, dim: int, rule: str, data: Any
) -> None:
    # ONNX's Split inference reads the axis's dim as a C int (32 bits): INT64_MAX as -1, 2**32
    # as 0. It refuses split=[1, INT64_MAX - 1] ("Mismatch between the sum of 'split'") and 7
    # equal parts of INT64_MAX ("not evenly splittable", though 7 divides it), and gives parts
    # [2,0] of 2**32. onnx.checker and onnxruntime run it when they read the model, so refuse
    # what it refuses; onnx.reference loads it. The spec's lengths decide check's verdict; a
    # note (kind onnxruntime) says what onnxruntime refuses.
    if isinstance(data, tuple):  # an @example's
        opset, param = data
    elif rule == "split":
        opset = data.draw(st.sampled_from([2, 11, 13, 18]))
        cuts = sorted(data.draw(st.lists(st.integers(0, dim), min_size=1, max_size=3)))
        param = [b - a for a, b in itertools.pairwise([0, *cuts, dim])]
    else:
        opset = data.draw(st.sampled_from([2, 11, 13] if rule == "even" else [18]))
        param = data.draw(st.integers(1, 7))
    if rule == "split":
        lengths: list[int] | None = param
        model = split_model((2, dim), 1, len(param), split=param, opset=opset)
    elif rule == "even":  # the spec: equal parts, the dim a multiple of their count
        lengths = [dim // param] * param if dim % param == 0 else None
        model = split_model((2, dim), 1, param, opset=opset)
    else:  # Split-18: parts of ceil(dim / n), the last the rest
        size = -(-dim // param)
        lengths = [size] * (param - 1) + [dim - size * (param - 1)]
        model = split_model((2, dim), -1, param, num_outputs=param, opset=opset)
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path_factory.mktemp("split"))).check()
    refused = onnx_graphs.ort_error(model)
    notes = [n for n in report.notes if n.kind == "onnxruntime"]
    if lengths is None:  # a real problem, datamove's own words
        assert [p.kind for p in report.problems] == ["operator"]
        assert "cannot be split" in report.problems[0].message
        return
    assert report.problems == (), report.problems
    got = [report.outputs[f"y{k}"][0] for k in range(len(lengths))]
    assert got == [PartialShape([2, n]) for n in lengths]
    # one note: onnxruntime refuses the model at load, else its kernel cannot run the node
    # (the dim on the last axis past INT32_MAX: `test_a_split_onnxruntime_loads_past_int32...`)
    (note,) = notes
    assert (note.layer_id, note.layer_type) == ("0", "Split")
    assert ("narrowing_error" in note.message) == (refused is None), (note, refused)
    if refused is not None:
        assert onnx_graphs.checker_error(model) is not None
        assert refused.split("[ShapeInferenceError] ")[-1].strip() in note.message


# dims about INT32_MAX and its square root (46341**2 is past it, 46340**2 is not)
_NARROW_DIMS = st.sampled_from(
    [0, 1, 2, 3, 46340, 46341, 2**15, 2**16, 2**30, INT32_MAX, INT32_MAX + 1, 2**32]
) | st.integers(2, 2**34)


@settings(max_examples=examples(80), deadline=None)
@given(
    dims=st.lists(_NARROW_DIMS | _WIDE_DIMS, min_size=1, max_size=3),
    zero=st.integers(0, 3),
    axis=st.integers(0, 3),
    rule=st.sampled_from(["even", "num_outputs", "split"]),
    parts=st.integers(1, 8),
    given_shapes=st.booleans(),
)
@example(dims=[2**32], zero=0, axis=0, rule="even", parts=2, given_shapes=False)
@example(dims=[2**32], zero=0, axis=0, rule="even", parts=1, given_shapes=True)
@example(dims=[INT32_MAX], zero=0, axis=0, rule="even", parts=1, given_shapes=False)
@example(dims=[INT32_MAX + 1], zero=0, axis=0, rule="even", parts=1, given_shapes=False)
@example(dims=[65536, 65536], zero=0, axis=1, rule="even", parts=2, given_shapes=False)
@example(dims=[65536, 32768], zero=0, axis=1, rule="split", parts=2, given_shapes=True)
@example(dims=[46340, 46340], zero=0, axis=1, rule="even", parts=1, given_shapes=False)
@example(dims=[46341, 46341], zero=0, axis=1, rule="even", parts=1, given_shapes=False)
@example(dims=[2, 2**30], zero=2, axis=2, rule="even", parts=1, given_shapes=False)
@example(dims=[2, 2**30 - 1], zero=2, axis=2, rule="even", parts=1, given_shapes=False)
@example(dims=[2**32], zero=1, axis=1, rule="even", parts=1, given_shapes=False)
@example(dims=[2**32], zero=1, axis=0, rule="even", parts=4, given_shapes=False)
@example(dims=[2**32], zero=1, axis=0, rule="even", parts=2, given_shapes=True)
@example(dims=[2**32, 3], zero=0, axis=2, rule="num_outputs", parts=4, given_shapes=False)
@example(dims=[2**32], zero=0, axis=1, rule="split", parts=2, given_shapes=False)
@example(dims=[2**32], zero=0, axis=1, rule="split", parts=2, given_shapes=True)
def test_a_split_onnxruntime_loads_past_int32_fails_at_run_where_noted(
    tmp_path_factory: pytest.TempPathFactory,
    dims: list[int],
    zero: int,
    axis: int,
    rule: str,
    parts: int,
    given_shapes: bool,
) -> None:
    # onnxruntime's Split kernel (CPU) takes the count of elements before the axis, from the
    # axis on and after it, and each part's length, as a C int: past INT32_MAX it fails at run
    # time ("narrowing_error"), even on an empty tensor (an int8 x with a dim of 0), where it
    # loads the model, on whichever axis the large dims lie ([0,2**32] on axis 0). A note of
    # kind onnxruntime exactly where it so fails, naming the first count past INT32_MAX; none
    # where it refuses the model at load (that note stays), none where it runs ([2**32,0] on
    # axis 0 in 4 parts of 2**30). With input_shapes (the file declares dims by name), on the
    # shapes given: where the sizes become known.
    shape = [*dims[:zero], 0, *dims[zero:]]
    axis = min(axis, len(shape) - 1)
    assume(math.prod(d for d in shape if d) <= INT64_MAX)  # (NumPy makes no array larger)
    dim = shape[axis]
    declared: list[Any] = [f"d{k}" for k in range(len(shape))] if given_shapes else shape
    x = helper.make_tensor_value_info("x", TensorProto.INT8, declared)
    names = [f"y{k}" for k in range(parts)]
    ys = [helper.make_tensor_value_info(n, TensorProto.INT8, None) for n in names]
    inputs, inits, attrs, opset = ["x"], [], {"axis": axis}, 13
    if rule == "num_outputs":  # (the spec's last part of ceil(dim / parts) each: not < 0)
        assume(dim - -(-dim // parts) * (parts - 1) >= 0)
        attrs["num_outputs"], opset = parts, 18
    elif rule == "split":
        size = dim // parts
        lengths = [size] * (parts - 1) + [dim - size * (parts - 1)]
        inits.append(helper.make_tensor("split", TensorProto.INT64, [parts], lengths))
        inputs.append("split")
    else:
        assume(dim % parts == 0)
    node = helper.make_node("Split", inputs, names, **attrs)
    graph = helper.make_graph([node], "g", [x], ys, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path_factory.mktemp("split")))
    report = read.check({"x": PartialShape(shape)} if given_shapes else None)
    assert report.problems == (), report.problems
    notes = [n for n in report.notes if n.kind == "onnxruntime"]
    assert [(n.layer_id, n.layer_type) for n in notes] in ([], [("0", "Split")])
    refused = onnx_graphs.ort_error(model)
    if refused is not None:  # at load: its note, as before
        assert not given_shapes
        (note,) = notes
        assert "narrowing_error" not in note.message, note
        return
    try:
        onnx_graphs.ort_session(model).run(None, {"x": np.zeros(shape, np.int8)})
    except Exception as exc:  # noqa: BLE001 - onnxruntime's errors have no common base
        failed: str | None = str(exc)
    else:
        failed = None
    assert len(notes) == (failed is not None), (notes, failed)
    if failed is not None:
        assert "narrowing_error" in failed
        counts = {
            f"before axis {axis}": math.prod(shape[:axis]),
            f"from axis {axis} on": math.prod(shape[axis:]),
            f"after axis {axis}": math.prod(shape[axis + 1 :]),
        }
        past = [f"the {n} elements {what}" for what, n in counts.items() if n > INT32_MAX]
        said = past[0] if past else "a part of "
        assert notes[0].message.startswith(
            f"its input {PartialShape(shape)} on axis {axis}: onnxruntime's Split kernel takes "
            f"{said}"
        ), notes
        assert 'as a C int, 32 bits ("narrowing_error"); onnxruntime, where it loads' in (
            notes[0].message
        )


@pytest.mark.parametrize("declared", [False, True], ids=["inferred", "declared"])
@pytest.mark.parametrize(
    ("node", "dim", "want"),
    [
        pytest.param("Slice", INT64_MAX, INT64_MAX - 1, id="x[:, 1:] of [2,INT64_MAX]"),
        pytest.param("Split", 2**32, 2**31, id="Split-18 of [2,2**32] in 2"),
    ],
)
def test_an_opaque_node_after_a_value_onnx_misreads_is_not_onnx_s_shape(
    tmp_path: Path, node: str, dim: int, want: int, declared: bool
) -> None:
    # ONNX's inference gives [2,0] for both (its Slice arithmetic overflows; its Split reads
    # the dim in 32 bits), which check corrects; the opaque Neg and Relu after it were listed
    # as ONNX infers them from that, [2,0], and a correct declaration of them was a problem
    # ("declares [2,...], but ONNX's shape inference gives [2,0]"). Now ONNX's inference is
    # not taken after a value whose shape it gives otherwise than check: as declared, else
    # unknown.
    if node == "Slice":
        model = _slice_of([2, dim], 1, dim, 1, 1)  # y = x[:, 1:], z = Neg(y)
    else:
        model = split_model((2, dim), 1, 2, num_outputs=2)
        model.graph.node.append(helper.make_node("Neg", ["y1"], ["z"]))
        model.graph.output.append(helper.make_tensor_value_info("z", TensorProto.INT64, None))
    model.graph.node.append(helper.make_node("Relu", ["z"], ["w"]))
    elem = model.graph.output[-1].type.tensor_type.elem_type
    model.graph.output.append(helper.make_tensor_value_info("w", elem, None))
    if declared:  # (graph outputs z and w)
        for out in model.graph.output[-2:]:
            out.CopyFrom(helper.make_tensor_value_info(out.name, elem, [2, want]))
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.problems == ()
    for name in "zw":
        got = report.outputs[name][0]
        assert got == (PartialShape([2, want]) if declared else PartialShape(None)), name


def _negative_dim_model(where: str) -> Any:
    """A Slice (and an opaque Add) of x; a dim of -5 in x's declared shape or in a tensor."""
    inits = [_i64("s", [0]), _i64("e", [2]), _i64("a", [1])]
    x_dims = [3, -5] if where == "input" else [3, 4]
    w = onnx.numpy_helper.from_array(np.zeros(2, dtype=np.float32), "w")
    w.dims[:] = [3, -4]
    nodes = [
        helper.make_node("Slice", ["w" if where != "input" else "x", "s", "e", "a"], ["y"]),
        helper.make_node("Add", ["y", "y"], ["z"]),
    ]
    if where == "initializer":
        inits.append(w)
    elif where == "Constant":
        nodes.insert(0, helper.make_node("Constant", [], ["w"], value=w))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_dims)],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.mark.parametrize("where", ["input", "initializer", "Constant"])
def test_a_negative_dim_never_reaches_onnx_s_shape_inference(tmp_path: Path, where: str) -> None:
    # ONNX's Slice inference asserts on a negative dim (std::clamp with hi < lo) and aborts the
    # process: `datamove check` of such a file died with SIGABRT. A declared input dim of -5 is
    # read as unknown (as before, now in what ONNX infers from too); a tensor's is not an ONNX
    # model (before: "Dimension: min=-4 must be in [0, ...]", naming no tensor)
    path = onnx_graphs.save(_negative_dim_model(where), tmp_path)
    script = "import sys; from datamove.cli import main; sys.exit(main(['check', sys.argv[1]]))"
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=False
    )
    if where == "input":
        assert done.returncode == 0, done.stderr
        assert "input  x: [3,?] f32" in done.stdout
        return
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "has a negative dim, -4 ([3,-4]): it is not a valid ONNX model" in done.stderr
    with pytest.raises(ir.ONNXError, match="tensor 'w'"):
        ir.read_onnx(path)


def test_a_node_reading_an_undefined_value_is_an_error(tmp_path: Path) -> None:
    model = _single(helper.make_node("Relu", ["nowhere"], ["y0"], name="r"), [2], 13, [])
    with pytest.raises(ir.ONNXError, match="names no value defined before it"):
        ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()


@pytest.mark.parametrize(
    ("defines", "reads"),
    [
        pytest.param(["x"], "x", id="a graph input"),
        pytest.param(["w"], "w", id="an initializer"),
        pytest.param(["t", "t"], "t", id="an earlier node's output"),
    ],
)
def test_a_node_defining_a_value_defined_before_is_an_error(
    defines: list[str], reads: str, tmp_path: Path
) -> None:
    """A value defined twice (the graph not in SSA form): onnx.checker and onnxruntime refuse
    the model, and datamove too (fixed: the later definition was read, and check said OK)."""
    ort = pytest.importorskip("onnxruntime")
    nodes = [helper.make_node("Neg", ["x"], [name], name=f"n{k}") for k, name in enumerate(defines)]
    nodes.append(helper.make_node("Add", ["x", reads], ["y0"], name="add"))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [2])],
        initializer=[helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])],
    )
    path = onnx_graphs.save(helper.make_model(graph), tmp_path)
    with pytest.raises(onnx.checker.ValidationError, match="single static assignment"):
        onnx.checker.check_model(onnx.load(path), full_check=True)
    with pytest.raises(Exception, match="Duplicate definition of name"):
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    k = len(defines) - 1
    said = f"node {k} 'n{k}' (Neg) output 0={reads!r} names a value defined before it"
    with pytest.raises(ir.ONNXError, match=re.escape(said)):
        ir.read_onnx(path).check()
    assert main(["check", str(path)]) == 1


def test_an_input_of_no_element_type_is_an_error(tmp_path: Path) -> None:
    """A graph input of elem_type 0 (UNDEFINED): onnx.checker and onnxruntime refuse the model,
    and datamove too (fixed: check said OK)."""
    ort = pytest.importorskip("onnxruntime")
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y0"], name="r")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.UNDEFINED, [2])],
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [2])],
    )
    path = onnx_graphs.save(helper.make_model(graph), tmp_path)
    with pytest.raises(Exception, match="Element type of input 0 unknown"):
        onnx.checker.check_model(onnx.load(path), full_check=True)
    with pytest.raises(Exception, match="Invalid tensor data type 0"):
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    with pytest.raises(ir.ONNXError, match=r"input 'x' elem_type=0 is UNDEFINED, no element type"):
        ir.read_onnx(path)
    assert main(["check", str(path)]) == 1


@pytest.mark.parametrize(
    ("edit", "checker", "ort_loads"),
    [
        pytest.param("elem_type 0", None, False, id="elem_type 0"),
        pytest.param("no shape", "Field 'shape' of 'type' is required", True, id="no shape"),
        pytest.param("both", "Field 'shape' of 'type' is required", False, id="both"),
        pytest.param("no type", "Field 'type' of 'value_info' is required", True, id="no type"),
    ],
)
def test_a_graph_output_of_no_element_type_or_no_shape_is_read_as_openvino_runs_it(
    tmp_path: Path, edit: str, checker: str | None, ort_loads: bool
) -> None:
    """A graph output's declared type left out in part: onnx.checker refuses an output of no
    shape field (without full_check too), onnxruntime one of elem_type 0; OpenVINO and
    onnx.reference run each: datamove follows them, OK (docs/ir.md, ONNX files)."""
    ov = pytest.importorskip("openvino")
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    if edit in ("elem_type 0", "both"):
        out.type.tensor_type.elem_type = TensorProto.UNDEFINED
    if edit in ("no shape", "both"):
        out.type.tensor_type.ClearField("shape")
    if edit == "no type":
        out.ClearField("type")
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [out],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = onnx_graphs.save(model, tmp_path)
    x = _arange((2, 3))
    error = onnx_graphs.checker_error(model)
    assert error is None if checker is None else checker in str(error)
    plain = None  # without full_check: the same
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as exc:
        plain = str(exc)
    assert (plain is None) == (checker is None), plain
    assert (run_ort(model, x) is not None) == ort_loads
    (y,) = onnx.reference.ReferenceEvaluator(model).run(None, {"x": x})
    got = ov.Core().compile_model(str(path), "CPU")({0: x})
    np.testing.assert_array_equal(next(iter(got.values())), y)
    report = ir.read_onnx(path).check()
    assert report.ok, report.problems
    assert report.outputs["y"] == (PartialShape([2, 3]), "f32")


def test_two_nodes_of_one_name_are_read_as_onnx_checker_and_openvino_read_them(
    tmp_path: Path,
) -> None:
    """onnxruntime refuses a graph of two nodes of one name; onnx.checker takes it, and
    OpenVINO runs it: datamove follows the checker (docs/ir.md, ONNX files)."""
    ort = pytest.importorskip("onnxruntime")
    ov = pytest.importorskip("openvino")
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="n"),
        helper.make_node("Neg", ["a"], ["y0"], name="n"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [2])],
    )
    path = onnx_graphs.save(helper.make_model(graph), tmp_path)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    with pytest.raises(Exception, match="two nodes with same node name"):
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ran = ov.Core().compile_model(str(path), "CPU")({0: np.array([1, -2], np.float32)})[0]
    assert ran.tolist() == [-1, 0]
    report = ir.read_onnx(path).check()
    assert report.ok, report.problems


@pytest.mark.parametrize(
    ("steps", "said"),
    [
        pytest.param(None, "step=[1, 1]", id="no steps: each 1"),
        pytest.param([1, -2], "step=[1, -2]", id="steps"),
    ],
)
def test_explain_layer_shows_an_onnx_slice_as_slice_8(
    steps: list[int] | None, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inits = [_i64("st", [1, -1]), _i64("en", [2, -4]), _i64("ax", [0, 2])]
    ins = ["x", "st", "en", "ax"]
    if steps is not None:
        inits.append(_i64("sp", steps))
        ins.append("sp")
    model = _single(helper.make_node("Slice", ins, ["y0"], name="cut"), [2, 3, 4], 13, inits)
    assert main(["explain", str(onnx_graphs.save(model, tmp_path)), "--layer", "cut"]) == 0
    out = capsys.readouterr().out
    assert (
        "\nONNX Slice clamps as OpenVINO's Slice-8 (starts, ends, steps: start, stop, step):\n"
        f"Slice on x of shape [2,3,4]\n  start=[1, -1] stop=[2, -4] {said} axes=[0, 2]\n"
    ) in out
    (numpy,) = re.findall(r"^NumPy: +(.*)$", out, re.MULTILINE)
    x = _arange((2, 3, 4))
    (want,) = onnx_graphs.run_onnxruntime(model, x).values()
    np.testing.assert_array_equal(eval(numpy, {"x": x}), want)  # noqa: S307


def test_explain_layer_picks_a_node_by_index_or_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = onnx_graphs.save(onnx_graphs.split18([2, 3, 7]), tmp_path)
    assert main(["explain", str(path), "--layer", "thirds"]) == 0
    out = capsys.readouterr().out
    assert "ONNX Split-18 on x of shape [2,3,7], axis -1, num_outputs 3" in out
    assert "output 2: [2,3,1]" in out
    assert main(["explain", str(path), "--layer", "0"]) == 0
    assert capsys.readouterr().out == out
    assert main(["explain", str(path), "--layer", "relu"]) == 1
    assert (
        "names no Slice, Split, Concat, Unsqueeze, Squeeze, SplitToSequence, SequenceAt, Gather"
        in (capsys.readouterr().err)
    )


def test_explain_of_a_model_with_nothing_to_list_names_the_onnx_node_types(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It named the IR's layer types (StridedSlice, VariadicSplit) before.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    assert main(["explain", str(onnx_graphs.save(model, tmp_path))]) == 0
    assert capsys.readouterr().out == (
        "no Slice, Split, Concat, Unsqueeze, Squeeze, SplitToSequence, SequenceAt, Gather or "
        "GatherND nodes\n"
    )


def test_without_the_onnx_package_reading_onnx_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = onnx_graphs.save(onnx_graphs.split18([2, 3, 7]), tmp_path)
    for name in [m for m in sys.modules if m == "onnx" or m.startswith("onnx.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx -> ImportError
    message = "reading .onnx files needs the optional 'onnx' package: pip install 'datamove[onnx]'"
    with pytest.raises(ir.ONNXError) as info:
        ir.read_onnx(path)
    assert str(info.value) == message
    for command in ("check", "explain"):
        assert main([command, str(path)]) == 1
        assert capsys.readouterr().err == f"datamove: error: {message}\n"


def test_a_name_that_is_not_utf_8_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = onnx_graphs.slices([3, 4, 6]).SerializeToString()
    assert data.count(b"flip0") == 1
    path = tmp_path / "bad.onnx"
    path.write_bytes(data.replace(b"flip0", b"flip\xff"))
    assert main(["check", str(path)]) == 1
    assert "holds a name that is not UTF-8 text" in capsys.readouterr().err


def test_a_model_without_a_default_opset_is_an_error(tmp_path: Path) -> None:
    model = onnx_graphs.split18([2, 3, 7])
    del model.opset_import[:]
    with pytest.raises(ir.ONNXError, match="imports no opset of it"):
        ir.read_onnx(onnx_graphs.save(model, tmp_path))


_BOUNDS = st.sampled_from(
    [
        onnx_graphs.INT64_MAX,
        onnx_graphs.INT64_MIN,
        onnx_graphs.INT32_MAX,
        -onnx_graphs.INT32_MAX - 1,
        -(2**62),
    ]
) | st.integers(-8, 8)


@settings(max_examples=examples(150), deadline=None)
@given(
    shape=st.lists(st.integers(0, 5), min_size=1, max_size=3).map(tuple),
    data=st.data(),
)
def test_checked_slice_shapes_and_explained_values_are_onnxruntime_s(
    tmp_path_factory: pytest.TempPathFactory, shape: tuple[int, ...], data: Any
) -> None:
    rank = len(shape)
    axes = data.draw(
        st.lists(
            st.integers(-rank, rank - 1), min_size=1, max_size=rank, unique_by=lambda a: a % rank
        )
    )
    n = len(axes)
    starts = data.draw(st.lists(_BOUNDS, min_size=n, max_size=n))
    ends = data.draw(st.lists(_BOUNDS, min_size=n, max_size=n))
    steps = data.draw(
        st.lists(
            st.sampled_from([1, 2, 3, -1, -2, -3, onnx_graphs.INT64_MAX]), min_size=n, max_size=n
        )
    )
    # onnxruntime reads an end at or past INT32_MAX with a negative step as "to the start", the
    # spec (and datamove) as past the end (docs/dialects.md): not compared here
    assume(not any(e >= onnx_graphs.INT32_MAX and k < 0 for e, k in zip(ends, steps, strict=True)))
    inits = [_i64("s", starts), _i64("e", ends), _i64("a", axes), _i64("k", steps)]
    node = helper.make_node("Slice", ["x", "s", "e", "a", "k"], ["y0"], name="cut")
    model = _single(node, list(shape), 13, inits)
    path = onnx_graphs.save(model, tmp_path_factory.mktemp("slice"))
    x = _arange(shape)
    want = onnx_graphs.run_onnxruntime(model, x)["y0"]
    report = ir.read_onnx(path).check()
    assert report.ok, report.problems
    assert str(report.outputs["y0"][0]) == "[" + ",".join(map(str, want.shape)) + "]"
    (info,) = ir.read_onnx(path).explain()
    np.testing.assert_array_equal(eval(info["numpy"], {"x": x}), want)  # noqa: S307


@settings(max_examples=examples(150), deadline=None)
@given(
    params=onnx_splits(),
    shape=st.lists(st.integers(0, 9), min_size=1, max_size=3).map(tuple),
    data=st.data(),
)
def test_checked_split_nodes_are_refused_where_onnxruntime_refuses_them(
    tmp_path_factory: pytest.TempPathFactory,
    params: dict[str, Any],
    shape: tuple[int, ...],
    data: Any,
) -> None:
    low = 0 if params["opset"] == 2 else -len(shape)
    axis = data.draw(st.integers(low, len(shape) - 1))
    model = split_model(shape, axis, **params)
    path = onnx_graphs.save(model, tmp_path_factory.mktemp("split"))
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    want = run_ort(model, x)
    report = ir.read_onnx(path).check()
    if want is None:
        assert [p.kind for p in report.problems] == ["operator"]
        return
    assert report.ok, report.problems
    got = [str(report.outputs[f"y{k}"][0]) for k in range(len(want))]
    assert got == ["[" + ",".join(map(str, w.shape)) + "]" for w in want]
    (info,) = ir.read_onnx(path).explain()
    for text, w in zip(info["numpy"], want, strict=True):
        np.testing.assert_array_equal(eval(text, {"x": x}), w)  # noqa: S307


def _graph(nodes: list[Any], x_shape: Any, inits: list[Any], outs: list[str], opset: int) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
        initializer=inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_constant_nodes_and_folded_concats_are_known_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # starts, ends and steps from Concats of Constant(value_ints) nodes; the axes input left
    # out (""), the steps given
    nodes = [
        helper.make_node("Constant", [], ["one"], value_ints=[1]),
        helper.make_node("Constant", [], ["five"], value_ints=[5]),
        helper.make_node("Concat", ["one", "one"], ["starts"], axis=0),
        helper.make_node("Concat", ["five", "five"], ["ends"], axis=0),
        helper.make_node("Constant", [], ["two"], value_int=2),  # a scalar: for Unsqueeze
        helper.make_node("Unsqueeze", ["two", "zero"], ["unused"]),
        helper.make_node("Constant", [], ["half"], value_float=0.5),  # not an int: opaque
        helper.make_node("Constant", [], ["twos"], value_ints=[2]),
        helper.make_node("Concat", ["twos", "one"], ["steps"], axis=0),
        helper.make_node("Slice", ["x", "starts", "ends", "", "steps"], ["y"], name="cut"),
    ]
    model = _graph(nodes, [3, 6], [_i64("zero", [0])], ["y"], 13)
    (info,) = _explained(onnx_graphs.save(model, tmp_path), capsys)
    assert info["numpy"] == "x[1:2, 1:5]"  # 1:5:2 takes row 1 alone of 3
    session = onnx_graphs.ort_session(model)
    x = _arange((3, 6))
    np.testing.assert_array_equal(session.run(["y"], {"x": x})[0], x[1:2, 1:5])
    assert info["values"] == {"starts": [1, 1], "ends": [5, 5], "steps": [2, 1]}


def test_a_constant_whose_data_does_not_match_its_dims_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ends = helper.make_tensor("e", TensorProto.INT64, [1], [2])
    ends.dims[:] = [3]  # 1 value for 3 dims
    model = _graph(
        [helper.make_node("Slice", ["x", "s", "e"], ["y"])], [4], [_i64("s", [0]), ends], ["y"], 13
    )
    (info,) = _explained(onnx_graphs.save(model, tmp_path), capsys)
    assert info["values"] == {"starts": [0]}
    assert list(info["runtime"]) == ["e"]


def test_an_input_of_unknown_rank_or_no_tensor_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = [
        helper.make_node("Slice", ["x", "s", "e", "a"], ["y"], name="const"),
        helper.make_node("Slice", ["x", "n", "e"], ["z"], name="runtime"),
        helper.make_node("Split", ["x"], ["p", "q"], name="halves", axis=0),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, None),  # no shape
            helper.make_tensor_value_info("n", TensorProto.INT64, [1]),
            helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("s", TensorProto.INT64, [1]),  # an initializer too
        ],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in "yzpq"],
        initializer=[_i64("s", [1]), _i64("e", [3]), _i64("a", [-1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx_model = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    assert list(onnx_model.inputs) == ["x", "n", "seq"]
    assert str(onnx_model.inputs["seq"][0]) == "[...]"
    report = onnx_model.check()
    assert report.ok
    assert {n: str(s) for n, (s, _) in report.outputs.items()} == dict.fromkeys("yzpq", "[...]")
    layers = {i["name"]: i for i in onnx_model.explain()}
    assert layers["runtime"]["note"] == "the data's rank is unknown"
    assert layers["const"]["numpy"] == "x[..., 1:3]"  # every rank's (axes [-1])
    assert layers["halves"]["numpy"] == ["x[:x.shape[0]//2]", "x[x.shape[0]//2:]"]  # any rank
    assert layers["const"]["values"] == {"starts": [1], "ends": [3], "axes": [-1]}
    # with a rank: the run-time start is named, the axes (none given: the first) sliced
    report = onnx_model.check({"x": "[4,?]"})
    assert str(report.outputs["z"][0]) == "[..4,?]"
    assert str(report.outputs["p"][0]) == "[2,?]"


def test_a_split_or_slice_on_a_data_of_unknown_rank_is_one_index_for_every_rank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = [
        helper.make_node("Split", ["x"], ["p", "q"], name="halves", axis=0, num_outputs=2),
        helper.make_node("Split", ["x", "lens"], ["r", "s", "t"], name="lengths", axis=-2),
        helper.make_node("Split", ["x"], ["u", "v", "w"], name="thirds", axis=-1, num_outputs=3),
        helper.make_node("Slice", ["x", "b", "e", "a", "k"], ["y"], name="cut"),
        helper.make_node("Slice", ["x", "minus3", "e0", "zero", "k"], ["z"], name="clamped"),
    ]
    inits = [_i64("lens", [1, 3, 2]), _i64("b", [4]), _i64("e", [0]), _i64("a", [-2])]
    inits += [_i64("k", [-2]), _i64("minus3", [-3]), _i64("e0", [-(2**63)]), _i64("zero", [0])]
    model = _graph(nodes, None, inits, list("pqrstuvwyz"), 18)
    layers = {i["name"]: i for i in _explained(onnx_graphs.save(model, tmp_path), capsys)}
    texts = {n: i["numpy"] for n, i in layers.items()}
    # x[-3::-2] as the spec clamps it takes element 0 on sizes 1 and 2, NumPy's nothing
    assert texts.pop("clamped") is None
    assert "allows sizes 1..2 of axis 0, where -3::-2 selects 1" in layers["clamped"]["note"]
    third = "-(-x.shape[-1]//3)"
    assert texts == {
        "halves": ["x[:-(-x.shape[0]//2)]", "x[-(-x.shape[0]//2):]"],
        "lengths": ["x[..., :1, :]", "x[..., 1:4, :]", "x[..., 4:, :]"],
        "thirds": [f"x[..., :{third}]", f"x[..., {third}:{third}*2]", f"x[..., {third}*2:]"],
        "cut": "x[..., 4:0:-2, :]",
    }
    outputs = {"halves": "pq", "lengths": "rst", "thirds": "uvw", "cut": "y"}
    for rank in (2, 3, 4):  # onnxruntime's parts, each the index's at every rank
        x = np.arange(6**rank, dtype=np.float32).reshape((6,) * rank)
        got = onnx_graphs.run_onnxruntime(model, x)
        for name, names in outputs.items():
            written = [texts[name]] if isinstance(texts[name], str) else texts[name]
            for text, out in zip(written, names, strict=True):
                np.testing.assert_array_equal(eval(text, {"x": x}), got[out])  # noqa: S307


def test_run_time_axes_are_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nodes = [helper.make_node("Slice", ["x", "s", "e", "a"], ["y"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5]),
            helper.make_tensor_value_info("a", TensorProto.INT64, [1]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[_i64("s", [1]), _i64("e", [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = onnx_graphs.save(model, tmp_path)
    assert str(ir.read_onnx(path).check().outputs["y"][0]) == "[..4,..5]"
    (info,) = _explained(path, capsys)
    assert info["numpy"] is None
    assert info["note"] == "the axes it slices are known only at run time"


def test_split_on_an_interval_of_sizes(tmp_path: Path) -> None:
    # Split-13 on an axis of sizes 4..8 (input_shapes): 2 equal parts of 2..4; split [3, 3] on
    # 5..8 sums to 6; 3 equal parts of 4..5 (no multiple of 3) and [3, 4] on 4..5 are errors
    def split(outs: int, inits: list[Any]) -> Any:
        inputs = ["x", "s"] if inits else ["x"]
        node = helper.make_node("Split", inputs, [f"y{k}" for k in range(outs)])
        return ir.read_onnx(onnx_graphs.save(_single(node, ["N"], 13, inits, outs), tmp_path))

    even = split(2, []).check({"x": "[4..8]"})
    assert [str(s) for s, _ in even.outputs.values()] == ["[2..4]", "[2..4]"]
    given = split(2, [_i64("s", [3, 3])]).check({"x": "[5..8]"})
    assert [str(s) for s, _ in given.outputs.values()] == ["[3]", "[3]"]
    (problem,) = split(3, []).check({"x": "[4..5]"}).problems
    assert "no size in 4..5 is a multiple of it" in problem.message
    (problem,) = split(2, [_i64("s", [3, 4])]).check({"x": "[4..5]"}).problems
    assert "sums to 7, but the axis has sizes 4..5" in problem.message


def test_concat_1_without_an_axis_joins_on_axis_1(tmp_path: Path) -> None:
    model = _graph([helper.make_node("Concat", ["x", "x"], ["y"])], [2, 3], [], ["y"], 3)
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.ok
    assert str(report.outputs["y"][0]) == "[2,6]"


# name: opset, axis, split (lengths) or None, num_outputs or None, outputs, the input's declared
# shape (names are dynamic dims), a size it allows
DYNAMIC_SPLITS = {
    "Split-13 lengths": (13, 1, [2, 4], None, 2, ["N", 6, 3], (5, 6, 3)),
    "Split-13 equal, last axis": (13, -1, None, None, 3, ["N", "M", 6], (2, 4, 6)),
    "Split-18 uneven": (18, 2, None, 3, 3, ["N", 2, 7], (3, 2, 7)),
    "Split-11 lengths attribute, first axis": (11, 0, [1, 3], None, 2, [4, "N"], (4, 5)),
    "Split-13 lengths, dynamic axis": (13, 1, [2, 4], None, 2, ["N", "K"], (3, 6)),
    "Split-13 equal, dynamic axis": (13, 1, None, None, 2, ["N", "K"], (3, 4)),
    "Split-18 uneven, dynamic axis": (18, -1, None, 3, 3, ["N", "W"], (2, 7)),
}
PART_LINE = re.compile(r"^  output (\d+): (\[[^\]]*\])(?:  = (.*))?$", re.MULTILINE)


def _dynamic_split(
    opset: int, axis: int, split: list[int] | None, num: int | None, count: int, shape: list[Any]
) -> Any:
    outs = [f"p{k}" for k in range(count)]
    extra: dict[str, Any] = {} if num is None else {"num_outputs": num}
    inputs, inits = ["x"], []
    if split is not None and opset >= 13:
        inputs.append("lens")
        inits.append(onnx_graphs._ints("lens", split))
    elif split is not None:
        extra["split"] = split
    node = helper.make_node("Split", inputs, outs, name="cut", axis=axis, **extra)
    return onnx_graphs._model([node], shape, outs, inits, opset)


@pytest.mark.parametrize("case", list(DYNAMIC_SPLITS))
def test_explain_layer_shows_split_parts_on_a_dynamic_input(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The parts along the axis are known where their lengths are (a static axis, or split's
    # constants), whatever the other dims: --layer prints them as for a static input, each
    # output's shape OpenVINO's own, each part what onnxruntime gives at a size allowed.
    opset, axis, split, num, count, shape, size = DYNAMIC_SPLITS[case]
    path = onnx_graphs.save(_dynamic_split(opset, axis, split, num, count, shape), tmp_path)
    assert main(["explain", str(path), "--layer", "cut"]) == 0
    parts = PART_LINE.findall(capsys.readouterr().out)
    assert [int(k) for k, _, _ in parts] == list(range(count))
    ov = pytest.importorskip("openvino")
    declared = ov.Core().read_model(str(path)).outputs
    assert [s for _, s, _ in parts] == [str(o.get_partial_shape()) for o in declared]
    a = axis % len(shape)
    if not isinstance(shape[a], int) and split is None:  # equal parts of a dynamic axis
        # written with the axis's size (x[:, :x.shape[1]//2]), as the model's list writes them
        (info,) = ir.read_onnx(path).explain()
        assert [e for _, _, e in parts] == info["numpy"]
        assert all("x.shape[" in e for _, _, e in parts)
    else:
        static = tmp_path / "static"
        static.mkdir()
        model = _dynamic_split(opset, axis, split, num, count, list(size))
        assert main(["explain", str(onnx_graphs.save(model, static)), "--layer", "cut"]) == 0
        static_parts = PART_LINE.findall(capsys.readouterr().out)
        assert [e for _, _, e in parts] == [e for _, _, e in static_parts]
    x = _arange(size)
    got = onnx_graphs.run_onnxruntime(_dynamic_split(opset, axis, split, num, count, shape), x)
    for k, _, expr in parts:
        np.testing.assert_array_equal(eval(expr, {"x": x}), got[f"p{k}"])  # noqa: S307


def _slice_of_run_time_parameters(
    rank: int, run_time: dict[str, int], constant: dict[str, list[int]]
) -> Any:
    """One Slice on data ``[4]*rank``: each parameter a graph input of static length, or an
    initializer."""
    names = ["x"]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4] * rank)]
    inits = []
    for p in ("starts", "ends", "axes", "steps"):
        if p in run_time:
            inputs.append(helper.make_tensor_value_info(p, TensorProto.INT64, [run_time[p]]))
        elif p in constant:
            inits.append(_i64(p, constant[p]))
        else:
            names.append("")  # an optional input left out
            continue
        names.append(p)
    while not names[-1]:
        names.pop()
    node = helper.make_node("Slice", names, ["y"], name="cut")
    out = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    graph = helper.make_graph([node], "g", inputs, out, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def _onnxruntime_runs(model: Any, feeds: dict[str, np.ndarray]) -> bool:
    try:
        onnx_graphs.ort_session(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - onnxruntime's errors have no common base to import
        return False
    return True


@pytest.mark.parametrize(
    ("rank", "run_time", "constant", "message"),
    [
        pytest.param(
            2,
            {"starts": 3},
            {"ends": [2, 2, 2]},
            "starts (known at run time, made by input 'starts') has 3 values: the Slice "
            "addresses 3 axes of data, but data has rank 2",
            id="starts of 3 at run time on rank 2",
        ),
        pytest.param(
            1,
            {"starts": 2, "ends": 2},
            {},
            "starts (known at run time, made by input 'starts') has 2 values: the Slice "
            "addresses 2 axes of data, but data has rank 1",
            id="starts and ends of 2 at run time on rank 1",
        ),
        pytest.param(
            2,
            {"starts": 2, "axes": 3},
            {"ends": [2, 2]},
            "axes (known at run time, made by input 'axes') has 3 values, but starts has 2; "
            "they need the same number of values",
            id="axes of 3 at run time, starts of 2",
        ),
        pytest.param(
            2,
            {"axes": 3},
            {"starts": [0, 0, 0], "ends": [2, 2, 2]},
            "axes (known at run time, made by input 'axes') has 3 values, but data has rank 2: "
            "one of them is out of range or listed twice",
            id="axes of 3 at run time on rank 2",
        ),
        pytest.param(
            2,
            {"starts": 2},
            {"ends": [2, 2], "axes": [0, -2]},
            "axes=[0, 0] lists axis 0 twice",
            id="constant axes [0, -2] on rank 2, starts at run time",
        ),
        pytest.param(
            2,
            {"steps": 3},
            {"starts": [0, 0], "ends": [2, 2]},
            "steps (known at run time, made by input 'steps') has 3 values, but starts has 2; "
            "they need the same number of values",
            id="steps of 3 at run time, starts of 2",
        ),
    ],
)
def test_run_time_slice_parameters_of_known_length_are_checked(
    rank: int,
    run_time: dict[str, int],
    constant: dict[str, list[int]],
    message: str,
    tmp_path: Path,
) -> None:
    # check() reported nothing for a Slice whose run-time parameters address more axes than the
    # data has (or disagree in length), which onnxruntime refuses whatever their values; with
    # constant parameters it was already a problem.
    model = _slice_of_run_time_parameters(rank, run_time, constant)
    feeds = {"x": np.zeros((4,) * rank, np.float32)}
    for p, n in run_time.items():  # values it would take on a data of rank n: still refused
        feeds[p] = np.arange(n, dtype=np.int64) if p == "axes" else np.ones(n, np.int64)
    assert not _onnxruntime_runs(model, feeds)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (problem,) = read.check().problems
    assert problem.kind == "operator"
    assert problem.message == f"ONNX Slice: {message}"
    (info,) = read.explain()
    assert info["numpy"] is None
    assert message in info["note"]


def test_run_time_slice_parameters_of_a_length_the_data_takes_are_no_problem(
    tmp_path: Path,
) -> None:
    model = _slice_of_run_time_parameters(2, {"starts": 2, "axes": 2}, {"ends": [2, 2]})
    feeds = {
        "x": np.zeros((4, 4), np.float32),
        "starts": np.ones(2, np.int64),
        "axes": np.arange(2, dtype=np.int64),
    }
    assert _onnxruntime_runs(model, feeds)
    assert not ir.read_onnx(onnx_graphs.save(model, tmp_path)).check().problems


@pytest.mark.parametrize(("length", "ok"), [(3, False), (1, False), (2, True)])
def test_a_run_time_split_of_static_length_is_checked(
    length: int, ok: bool, tmp_path: Path
) -> None:
    # Split-13's split known only at run time, of another length than the node's 2 outputs:
    # onnxruntime refuses it whatever its values; with a constant split it was a problem
    nodes = [helper.make_node("Split", ["x", "s"], ["y0", "y1"], name="halves", axis=1)]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
            helper.make_tensor_value_info("s", TensorProto.INT64, [length]),
        ],
        [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None) for i in range(2)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    split = np.full(length, 6 // length, np.int64)
    split[-1] = 6 - split[:-1].sum()  # a split the data takes, but for its length
    assert _onnxruntime_runs(model, {"x": np.zeros((2, 6), np.float32), "s": split}) == ok
    problems = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check().problems
    if ok:
        assert not problems
        return
    (problem,) = problems
    message = (
        f"ONNX Split-13: split (known at run time, made by input 's') has {length} "
        f"value{'s' if length != 1 else ''}, but the node has 2 outputs"
    )
    assert (problem.kind, problem.message) == ("operator", message)


def _view(op: str, opset: int, x_dims: Any, axes: Any) -> Any:
    """One ``op`` node of x (f32, ``x_dims``): axes an attribute (opset < 13), else an
    initializer, ``"input"`` (a graph input: known only at run time) or ``None`` (none)."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    inputs, inits, ins, attrs = ["x"], [], [helper.make_tensor_value_info("x", f32, x_dims)], {}
    if opset < 13 and axes is not None:
        attrs["axes"] = axes
    elif axes == "input":
        inputs.append("axes")
        ins.append(helper.make_tensor_value_info("axes", i64, [1]))
    elif axes is not None:
        inputs.append("axes")
        inits.append(helper.make_tensor("axes", i64, [len(axes)], axes))
    node = helper.make_node(op, inputs, ["y"], name="view", **attrs)
    out = helper.make_tensor_value_info("y", f32, None)
    graph = helper.make_graph([node], "g", ins, [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


# name -> (the node, the note explain gives it, whether onnxruntime refuses it on x)
VIEW_NOTES = {
    "Unsqueeze of run-time axes": (
        ("Unsqueeze", 13, [2, 3], "input"),
        "its axes are known only at run time",
        False,
    ),
    "Squeeze of data of unknown rank": (
        ("Squeeze", 13, None, [0]),
        "the data's rank is unknown",
        False,
    ),
    "Unsqueeze of an axis twice": (
        ("Unsqueeze", 13, [2, 3], [0, -4]),
        "axes=[0, -4] list axis 0 twice (output rank 4)",
        True,
    ),
    "Squeeze of a dim of 2": (
        ("Squeeze", 13, [2, 3], [0]),
        "dim 0 of [2,3] is not 1: onnxruntime refuses the node",
        True,
    ),
}


@pytest.mark.parametrize("name", list(VIEW_NOTES))
def test_explain_notes_why_a_view_node_has_no_expression(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    node, note, refused = VIEW_NOTES[name]
    model = _view(*node)
    (info,) = _explained(onnx_graphs.save(model, tmp_path), capsys)
    assert (info["name"], info["numpy"]) == ("view", None)
    assert note in info["note"]
    feeds = {"x": _arange(tuple(node[2] or (1, 3)))}  # any rank: a dim of 1 to squeeze
    if node[3] == "input":
        feeds["axes"] = np.array([1], np.int64)
    try:
        onnx_graphs.ort_session(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - any refusal, at load or at run
        assert refused
    else:
        assert not refused


def _refused_by_inference(case: str) -> Any:
    """A one-node graph ONNX's strict inference refuses: a MatMul [2,3] x [4,5], a Reshape by a
    float shape (an initializer, or an input: the schema's type constraint), a float Unsqueeze
    axes; or (``"chained"``) a nameless MatMul refused before a Relu; or (``"twice"``) two;
    or (``"branch"``) one in an If's branch."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    floats = onnx.numpy_helper.from_array(np.asarray([3, 2], np.float32), "s")
    weight = onnx.numpy_helper.from_array(np.zeros((4, 5), np.float32), "w")
    inputs, inits = [x], [floats]
    if case == "matmul":
        nodes, inits = [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [weight]
    elif case == "twice":  # two nameless MatMuls: not told apart
        nodes = [helper.make_node("MatMul", ["x", "w"], [o]) for o in ("m", "y")]
        inits = [weight]
    elif case == "branch":  # an If whose then-branch holds the MatMul
        y = helper.make_tensor_value_info("t", TensorProto.FLOAT, None)
        then = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["t"])], "t", [], [y])
        other = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "e", [], [y])
        nodes = [
            helper.make_node("If", ["c"], ["y"], name="if", then_branch=then, else_branch=other)
        ]
        inits = [weight, onnx.numpy_helper.from_array(np.asarray(True), "c")]
    elif case == "chained":
        nodes = [
            helper.make_node("MatMul", ["x", "w"], ["m"]),
            helper.make_node("Relu", ["m"], ["y"]),
        ]
        inits = [weight]
    elif case == "unsqueeze":
        nodes = [helper.make_node("Unsqueeze", ["x", "s"], ["y"], name="rs")]
    else:
        nodes = [helper.make_node("Reshape", ["x", "s"], ["y"], name="rs")]
        if case == "reshape input":
            inputs, inits = [x, helper.make_tensor_value_info("s", TensorProto.FLOAT, [2])], []
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["p", "q"])
    graph = helper.make_graph(nodes, "g", inputs, [output], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    ("case", "layer", "rule"),
    [
        ("matmul", "mm", "Incompatible dimensions for matrix multiplication"),
        ("chained", "m", "Incompatible dimensions for matrix multiplication"),
        ("twice", None, "Incompatible dimensions for matrix multiplication"),
        ("branch", "if", "Incompatible dimensions for matrix multiplication"),
        ("reshape", "rs", "ParseData type mismatch for tensor: s. Expected:int64 Actual:float"),
        ("unsqueeze", "rs", "ParseData type mismatch for tensor: s. Expected:int64 Actual:float"),
        (
            "reshape input",
            "rs",
            "shape typestr: tensor(int64), has unsupported type: tensor(float)",
        ),
    ],
)
def test_a_node_onnx_s_strict_inference_refuses_is_a_problem(
    tmp_path: Path, case: str, layer: str, rule: str
) -> None:
    """onnx.checker (full_check) runs ONNX's inference strict, its types checked: a node it
    refuses is an operator problem naming the node and onnx's words (one per node: the Relu
    after the refused MatMul is not), and none with new input shapes, which it never saw."""
    model = _refused_by_inference(case)
    assert rule in (onnx_graphs.checker_error(model) or "")
    path = onnx_graphs.save(model, tmp_path)
    found = [(p.kind, p.layer_name, p.message) for p in ir.read_onnx(path).check().problems]
    if case == "twice":
        rule = f"ONNX's shape inference refuses a MatMul node '': {rule}"
        assert found == [("operator", None, rule)]
    elif case == "branch":  # the If's, onnx's words of its branch's node
        ((kind, at, message),) = found
        assert (kind, at) == ("operator", layer)
        assert message.endswith(f"(op_type:MatMul): [ShapeInferenceError] {rule}")
    else:
        assert found == [("operator", layer, f"ONNX's shape inference refuses it: {rule}")]
    assert ir.read_onnx(path).check({"x": "[?,3]"}).ok


def test_an_onnx_model_s_outputs_call_its_nodes_nodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # explain said "layer 3 'join'" and, two lines below, "x0 from node 1 'cut'"
    from datamove.ir._examples import write_example, write_onnx_example

    onnx_path = write_onnx_example(tmp_path)
    for argv in (["check", "-v"], ["explain"], ["explain", "--layer", "join"]):
        assert main([argv[0], str(onnx_path), *argv[1:]]) == 0
        out = capsys.readouterr().out
        assert "node 3 'join' (Concat)" in out
        assert "layer" not in out
    assert "example: 4 nodes\n" in str(ir.read_onnx(onnx_path).check())
    xml = write_example(tmp_path)  # an IR keeps its layers
    assert main(["check", "-v", str(xml)]) == 0
    out = capsys.readouterr().out
    assert "layers\n" in out
    assert "node" not in out


def _inputs_model(declared: dict[str, Any]) -> Any:
    """Each input of ``declared`` (name -> dims, ``None``: no shape) through an Identity."""
    graph = helper.make_graph(
        [helper.make_node("Identity", [n], [f"{n}_out"], name=f"pass_{n}") for n in declared],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, d) for n, d in declared.items()],
        [helper.make_tensor_value_info(f"{n}_out", TensorProto.FLOAT, None) for n in declared],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


_DECLARED = {"x": ["b", 8], "y": [3, None], "s": [], "z": ["n"], "w": ["n"], "any": None}
_FITS = {"x": (2, 8), "y": (3, 5), "s": (), "z": (3,), "w": (3,), "any": (1, 2, 3)}


@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("x", (3, 7)),  # a static dim given another size
        ("x", (0, 8)),
        ("x", (3, 8, 1)),  # another rank
        ("x", (8,)),
        ("y", (2, 0)),
        ("y", (3, 0)),  # an unnamed dim: any size
        ("y", (4, 9)),  # both axes named
        ("s", (4,)),  # declared a scalar: onnxruntime checks no rank below 1
        ("s", (2, 3)),
        ("z", (4,)),  # "n" given 4 for z, 3 for w: each dim on its own
        ("w", (7,)),
        ("z", (3, 1)),
        ("any", (0,)),  # no shape declared
    ],
    ids=str,
)
def test_input_shapes_against_declared_dims_are_refused_as_onnxruntime_refuses_them(
    tmp_path: Path, name: str, shape: tuple[int, ...]
) -> None:
    # onnxruntime never reshapes a model's inputs: at run time it refuses one of another rank
    # or another size on a static declared dim, as check (input_shapes) now says (fixed: the
    # given shape replaced the declared one, OK); a symbolic or unnamed dim takes any size,
    # a name shared by two inputs ties nothing, and a declared rank 0 takes any shape
    model = _inputs_model(_DECLARED)
    given = dict(_FITS) | {name: shape}
    session = onnx_graphs.ort_session(model)
    feed = {n: np.zeros(s, np.float32) for n, s in given.items()}
    try:
        session.run(None, feed)
        refused = None
    except Exception as exc:  # noqa: BLE001 - onnxruntime's InvalidArgument
        refused = str(exc)
    from onnx.reference import ReferenceEvaluator

    ReferenceEvaluator(model).run(None, feed)  # it checks no input's shape (docs/ir.md)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    report = read.check({n: list(s) for n, s in given.items()})
    assert report.ok == (refused is None), (refused, report.problems)
    assert report.inputs[name][0] == PartialShape(list(shape))
    if refused is None:
        return
    (problem,) = report.problems
    assert (problem.kind, problem.layer_id) == ("shape", None)
    declared = read.inputs[name][0]
    if len(shape) != declared.rank:
        assert f"Invalid rank for input: {name} Got: {len(shape)}" in refused
        assert problem.message == (
            f"input {name!r} is declared {declared}, of rank {declared.rank}; the shape given, "
            f"{PartialShape(list(shape))}, is of rank {len(shape)}: onnxruntime refuses such an "
            f'input ("Invalid rank for input: {name} Got: {len(shape)} Expected: '
            f'{declared.rank}")'
        )
        return
    assert f"Got invalid dimensions for input: {name}" in refused
    for axis, (want, got) in enumerate(zip(declared.dims, shape, strict=True)):
        if want.is_static and want.get_length() != got:
            assert f"index: {axis} Got: {got} Expected: {want.get_length()}" in refused
            assert f"{got} on axis {axis}, not {want.get_length()}" in problem.message
    assert str(problem).startswith(f"model: input {name!r} is declared {declared}; ")


def test_input_shapes_of_intervals_are_held_to_the_declared_dims(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a given interval that holds the declared size is that size (only it runs); one that
    # does not is refused at every size in it; a dynamic rank is the declared shape
    path = onnx_graphs.save(_inputs_model({"x": ["b", 8]}), tmp_path)
    read = ir.read_onnx(path)
    for shape, inferred in (("[?,?]", "[?,8]"), ("[2,7..9]", "[2,8]"), ("[...]", "[?,8]")):
        report = read.check({"x": shape})
        assert report.ok, (shape, report.problems)
        assert report.inputs["x"][0] == PartialShape(inferred), shape
        assert report.outputs["x_out"][0] == PartialShape(inferred), shape
    (problem,) = read.check({"x": "[?,2..5]"}).problems
    assert problem.message == (
        "input 'x' is declared [?,8]; the shape given, [?,2..5], has 2..5 on axis 1, never 8: "
        'onnxruntime refuses such an input ("Got invalid dimensions for input: x")'
    )
    assert main(["check", str(path), "--input-shape", "x=[3,7]"]) == 1
    assert (
        "  model: input 'x' is declared [?,8]; the shape given, [3,7], has 7 on axis 1, not 8: "
        'onnxruntime refuses such an input ("Got invalid dimensions for input: x")'
    ) in capsys.readouterr().out.splitlines()
