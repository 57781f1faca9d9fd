"""ONNX `explain` lists the slicing nodes of model-local functions and of If/Loop bodies.

Each model is built here with ``onnx.helper``; each NumPy index explain prints is run on the
values onnxruntime computes for that node's input and compared with its output: a function's
nodes in the model inlined (``onnx.inliner``), every value a graph output; a branch's as the
If's outputs. docs/ir.md ("ONNX files") gives the rules.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import PartialShape, ir
from datamove.cli import main

onnx_graphs = pytest.importorskip("onnx_graphs")
onnx = onnx_graphs.onnx
helper, TensorProto = onnx.helper, onnx.TensorProto
inliner = pytest.importorskip("onnx.inliner")
F32 = TensorProto.FLOAT
_OPSETS = [("", 18), ("local", 1)]


def _tensor(name: str, shape: list[Any] | None, etype: int = F32) -> Any:
    return helper.make_tensor_value_info(name, etype, shape)


def _ints(name: str, values: list[int] | int) -> Any:
    return onnx.numpy_helper.from_array(np.asarray(values, np.int64), name)


def _local_model(
    nodes: list[Any],
    inputs: list[Any],
    outputs: list[Any],
    functions: list[Any],
    initializer: list[Any] | None = None,
) -> Any:
    """A model of graph ``nodes``, importing the default domain and local, and ``functions``."""
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=initializer or [])
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    model = helper.make_model(graph, opset_imports=opsets, functions=functions)
    model.ir_version = 10
    return model


def _function() -> Any:
    """local.F(a, s, e, ax, st): a slice of ``a``, halved on axis 0, a half lifted, the halves
    joined in reverse."""
    body = [
        helper.make_node("Slice", ["a", "s", "e", "ax", "st"], ["t"], name="cut"),
        helper.make_node("Split", ["t"], ["h0", "h1"], name="halves", axis=0, num_outputs=2),
        helper.make_node("Unsqueeze", ["h0", "one"], ["u"], name="lift"),
        helper.make_node("Concat", ["h1", "h0"], ["j"], name="join", axis=0),
    ]
    one = helper.make_node("Constant", [], ["one"], value=_ints("one", [1]))
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    return helper.make_function(
        "local", "F", ["a", "s", "e", "ax", "st"], ["u", "j"], [one, *body], opsets
    )


def _calls(shapes: list[list[Any]]) -> Any:
    """One call of local.F per shape (x0, x1...), each on the graph's slice -1::-2 of axis 1."""
    inits = [_ints("s", [-1]), _ints("e", [-(2**63)]), _ints("ax", [1]), _ints("st", [-2])]
    calls = [
        helper.make_node(
            "F",
            [f"x{k}", "s", "e", "ax", "st"],
            [f"u{k}", f"j{k}"],
            domain="local",
            name=f"call{k}",
        )
        for k in range(len(shapes))
    ]
    inputs = [_tensor(f"x{k}", s) for k, s in enumerate(shapes)]
    outputs = [
        _tensor(f"{o}{k}", [None] * r) for k in range(len(shapes)) for o, r in (("u", 3), ("j", 2))
    ]
    graph = helper.make_graph(calls, "g", inputs, outputs, initializer=inits)
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    model = helper.make_model(graph, opset_imports=opsets, functions=[_function()])
    model.ir_version = 10
    return model


def _run(model: Any, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every node output's value (and the feeds), as onnxruntime computes them."""
    session = onnx_graphs.ort_session(onnx_graphs.with_every_value_as_output(model))
    names = [o.name for o in session.get_outputs()]
    return feeds | dict(zip(names, session.run(None, feeds), strict=True))


def _agrees(info: dict[str, Any], node: Any, values: dict[str, np.ndarray]) -> None:
    """Each output of ``node`` is what the index explain wrote takes of its inputs."""
    if info["layer_type"] == "Concat":
        scope = {f"x{k}": values[name] for k, name in enumerate(node.input)}
        got = [eval(info["numpy"], {"np": np, **scope})]  # noqa: S307
    else:
        texts = info["numpy"] if isinstance(info["numpy"], list) else [info["numpy"]]
        got = [eval(text, {"x": values[node.input[0]]}) for text in texts]  # noqa: S307
    assert len(got) == len(node.output)
    for value, out in zip(got, node.output, strict=True):
        np.testing.assert_array_equal(value, values[out])


_NODES = ["cut", "halves", "lift", "join"]


def test_explain_lists_a_function_s_nodes_once_per_distinct_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three calls of local.F, the first two on [4,6], the third on [6,7]: each of F's Slice,
    Split, Unsqueeze and Concat nodes listed for the first and the third call, named as check
    names them, with the shapes the call passes, its index what onnxruntime computes of the
    model inlined (fixed: explain listed nothing, "no Slice, ... nodes")."""
    shapes = [[4, 6], [4, 6], [6, 7]]
    model = _calls(shapes)
    assert onnx_graphs.checker_error(model) is None
    path = onnx_graphs.save(model, tmp_path)
    layers = ir.read_onnx(path).explain()
    at = "its function local.F's node"
    assert [i["place"] for i in layers] == [
        f"node {k} 'call{k}' (local.F): {at} {name!r} ({kind})"
        for k in (0, 2)
        for name, kind in zip(_NODES, ["Slice", "Split", "Unsqueeze", "Concat"], strict=True)
    ]
    assert [i["layer_id"] for i in layers] == ["0"] * 4 + ["2"] * 4
    assert layers[0]["call_inputs"] == {
        "a": "[4,6]", "s": "[1]", "e": "[1]", "ax": "[1]", "st": "[1]"
    }  # fmt: skip
    assert layers[4]["call_inputs"]["a"] == "[6,7]"
    assert layers[4]["call_values"] == {
        "s": "[-1]",
        "e": "[-9223372036854775808]",
        "ax": "[1]",
        "st": "[-2]",
    }
    assert [i["numpy"] for i in layers[:3]] == ["x[:, ::-2]", ["x[:2]", "x[2:]"], "x[:, None]"]
    assert layers[4]["numpy"] == "x[:, ::-2]"
    inlined = inliner.inline_local_functions(model)
    rng = np.random.default_rng(0)
    feeds = {f"x{k}": rng.standard_normal(s).astype(np.float32) for k, s in enumerate(shapes)}
    values = _run(inlined, feeds)
    body = [n.name for n in model.functions[0].node]
    for info in layers:  # the inlined nodes: each call's in turn, each in F's order
        node = inlined.graph.node[int(info["layer_id"]) * len(body) + body.index(info["name"])]
        assert node.op_type == info["layer_type"]
        _agrees(info, node, values)
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        f"node 2 'call2' (local.F): {at} 'cut' (Slice): x [6,7] -> [6,4]\n"
        "  called with a [6,7], s [1] = [-1], e [1] = [-9223372036854775808], ax [1] = [1], "
        "st [1] = [-2]\n"
        "  x[:, ::-2]\n"
    ) in out
    assert main(["explain", str(path), "--json", "--layer", "halves"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(i["place"], i["numpy"]) for i in got] == [
        (layers[1]["place"], ["x[:2]", "x[2:]"]),
        (layers[5]["place"], ["x[:3]", "x[3:]"]),
    ]
    assert main(["explain", str(path), "--json", "--layer", "2"]) == 0  # the calling node
    assert [i["name"] for i in json.loads(capsys.readouterr().out)] == _NODES


def test_explain_of_many_calls_lists_each_distinct_one_once(tmp_path: Path) -> None:
    """300 calls of local.F on two shapes: F's four nodes, twice (check walks F twice too)."""
    model = _calls([[4, 6] if k % 3 else [2, "N"] for k in range(300)])
    layers = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert [(i["layer_id"], i["name"]) for i in layers] == [
        (k, name) for k in ("0", "1") for name in _NODES
    ]
    assert layers[0]["call_inputs"]["a"] == "[2,?]"
    assert layers[0]["numpy"] == "x[:, ::-2]"  # every size's, as on the graph


def _branches() -> Any:
    """An If whose then branch halves x (Split), and in an If within it slices x (Slice) and
    calls local.F; the else branches copy x."""
    params = ["x", "s", "e", "ax", "st"]
    inner_then = helper.make_graph(
        [
            helper.make_node("Slice", params, ["w"], name="cut"),
            helper.make_node("F", params, ["fu", "fj"], domain="local", name="call"),
        ],
        "b2", [], [_tensor("w", None)],
    )  # fmt: skip
    inner_else = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["w"])], "o2", [], [_tensor("w", None)]
    )
    then = helper.make_graph(
        [
            helper.make_node("Split", ["x"], ["p", "q"], name="halves", axis=1, num_outputs=2),
            helper.make_node(
                "If", ["c"], ["w"], name="if2", then_branch=inner_then, else_branch=inner_else
            ),
        ],
        "b", [], [_tensor(v, None) for v in "pqw"],
    )  # fmt: skip
    copies = [helper.make_node("Identity", ["x"], [v]) for v in "pqw"]
    other = helper.make_graph(copies, "o", [], [_tensor(v, None) for v in "pqw"])
    top = helper.make_node(
        "If", ["c"], ["yp", "yq", "yw"], name="if", then_branch=then, else_branch=other
    )
    inits = [_ints("s", [0]), _ints("e", [-1]), _ints("ax", [0]), _ints("st", [1])]
    inputs = [_tensor("x", [3, 4]), _tensor("c", [], TensorProto.BOOL)]
    outputs = [_tensor(v, [None, None]) for v in ("yp", "yq", "yw")]
    graph = helper.make_graph([top], "g", inputs, outputs, initializer=inits)
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    model = helper.make_model(graph, opset_imports=opsets, functions=[_function()])
    model.ir_version = 10
    return model


def test_explain_lists_the_nodes_of_an_if_s_branches_at_any_depth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Split of an If's then branch, the Slice of an If within it, and the nodes of the
    function that branch calls: named branch by branch as check names a fault there, each
    index what onnxruntime computes (the If's outputs, the branches taken)."""
    model = _branches()
    assert onnx_graphs.checker_error(model) is None
    path = onnx_graphs.save(model, tmp_path)
    layers = ir.read_onnx(path).explain()
    branch = "node 0 'if' (If): its then_branch's node"
    inner = f"{branch} 'if2' (If): its then_branch's node"
    assert [i["place"] for i in layers] == [
        f"{branch} 'halves' (Split)",
        f"{inner} 'cut' (Slice)",
        *(f"{inner} 'call' (local.F): its function local.F's node {n!r} ({kind})"
          for n, kind in zip(_NODES, ["Slice", "Split", "Unsqueeze", "Concat"], strict=True)),
    ]  # fmt: skip
    assert "call_inputs" not in layers[0]
    assert layers[2]["call_inputs"]["a"] == "[3,4]"
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    values = _run(model, {"x": x, "c": np.asarray(True)})
    split, cut = layers[:2]
    assert split["numpy"] == ["x[:, :2]", "x[:, 2:]"]
    assert cut["numpy"] == "x[:2]"  # explain slice's text on [3,4], as at the top level
    for text, out in zip(split["numpy"], ("yp", "yq"), strict=True):
        np.testing.assert_array_equal(eval(text, {"x": x}), values[out])  # noqa: S307
    np.testing.assert_array_equal(eval(cut["numpy"], {"x": x}), values["yw"])  # noqa: S307
    assert main(["explain", str(path), "--layer", "cut"]) == 0
    out = capsys.readouterr().out
    assert f"{inner} 'cut' (Slice): x [3,4] -> [2,4]\n  x[:2]\n" in out
    assert "ONNX Slice clamps as OpenVINO's Slice-8" in out


def test_check_s_faults_and_explain_name_an_inner_node_alike(tmp_path: Path) -> None:
    """A Slice of axis 5 in the branch: check's problem and explain's entry name one node."""
    model = _branches()
    model.graph.initializer[2].CopyFrom(_ints("ax", [5]))
    path = onnx_graphs.save(model, tmp_path)
    read = ir.read_onnx(path)
    (problem, *_) = read.check().problems
    cut = next(i for i in read.explain() if i["name"] == "cut")
    assert problem.message.startswith(cut["place"].removeprefix("node 0 'if' (If): "))
    assert cut["note"] == "ONNX Slice: axes=[5] holds 5, out of range for rank 2"


@pytest.mark.parametrize(
    ("model", "summary"),
    [
        (lambda: _calls([[4, 6], [4, 6], [6, 7]]),
         ("checked 0 nodes and 6 in functions and bodies (Slice 2, Split 2, Concat 2); "
          "3 opaque (local.F 3)")),
        (_branches,
         ("checked 0 nodes and 5 in functions and bodies (Split 2, Slice 2, Concat 1); "
          "1 opaque (If 1)")),
    ],
    ids=["three calls", "branches"],
)  # fmt: skip
def test_check_counts_the_nodes_explain_lists_in_functions_and_bodies(
    tmp_path: Path, model: Any, summary: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Slice, Split and Concat nodes of functions and bodies, counted apart from the
    graph's, one per entry explain gives them (fixed: "checked 0 nodes")."""
    path = onnx_graphs.save(model(), tmp_path)
    read = ir.read_onnx(path)
    report = read.check()
    assert report.summary() == summary
    kinds = [
        i["layer_type"] for i in read.explain() if i["layer_type"] in ("Slice", "Split", "Concat")
    ]
    assert report.inner == dict(collections.Counter(kinds))
    assert main(["check", str(path), "--json"]) == 1 - report.ok
    assert json.loads(capsys.readouterr().out)["checked_in_functions_and_bodies"] == report.inner


def test_explain_lists_a_loop_s_body_nodes(tmp_path: Path) -> None:
    """A Loop of one trip whose body slices the outer x [3,4] (its scan output): the Slice
    listed as the body's node, its index what onnxruntime stacks (fixed: not listed)."""
    relay = helper.make_node("Identity", ["cin"], ["cout"])
    cut = helper.make_node("Slice", ["x", "s", "e", "ax", "st"], ["w"], name="cut")
    inputs = [_tensor("i", [], TensorProto.INT64), _tensor("cin", [], TensorProto.BOOL)]
    outputs = [_tensor("cout", [], TensorProto.BOOL), _tensor("w", None)]
    body = helper.make_graph([relay, cut], "l", inputs, outputs)
    loop = helper.make_node("Loop", ["n", "c"], ["ys"], name="loop", body=body)
    inits = [_ints("n", 1), _ints("s", [-1]), _ints("e", [0]), _ints("ax", [1]), _ints("st", [-1])]
    inputs = [_tensor("x", [3, 4]), _tensor("c", [], TensorProto.BOOL)]
    graph = helper.make_graph([loop], "g", inputs, [_tensor("ys", [1, 3, None])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    assert onnx_graphs.checker_error(model) is None
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert info["place"] == "node 0 'loop' (Loop): its body's node 'cut' (Slice)"
    assert (info["input_shape"], info["output_shapes"], info["numpy"]) == (
        "[3,4]", ["[3,3]"], "x[:, :0:-1]"
    )  # fmt: skip
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    ys = _run(model, {"x": x, "c": np.asarray(True)})["ys"]
    np.testing.assert_array_equal(eval(info["numpy"], {"x": x})[None], ys)  # noqa: S307


def _starts_model(starts: list[Any]) -> Any:
    """z [3,4] through local.F(a, s) = a[:, s:] once per ``starts``: graph values the calls
    pass as s, ``x.shape[0]`` (sx), ``min(y.shape[0], 2)`` (sy2) or an initializer (s1, s3)."""
    body = [
        helper.make_node("Constant", [], ["ax"], value=_ints("ax", [1])),
        helper.make_node("Constant", [], ["e"], value=_ints("e", [2**62])),
        helper.make_node("Slice", ["a", "s", "e", "ax"], ["t"], name="cut"),
    ]
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    func = helper.make_function("local", "F", ["a", "s"], ["t"], body, opsets)
    shapes = [
        helper.make_node("Shape", ["x"], ["sx"], start=0, end=1),
        helper.make_node("Shape", ["y"], ["sy"], start=0, end=1),
        helper.make_node("Min", ["sy", "two"], ["sy2"]),
    ]
    calls = [
        helper.make_node("F", ["z", s], [f"t{k}"], domain="local", name=f"call{k}")
        for k, s in enumerate(starts)
    ]
    inits = [_ints("two", [2]), _ints("s1", [1]), _ints("s3", [3])]
    inputs = [_tensor("x", ["N", 4]), _tensor("y", ["M", 4]), _tensor("z", [3, 4])]
    outputs = [_tensor(f"t{k}", [None, None]) for k in range(len(starts))]
    return _local_model([*shapes, *calls], inputs, outputs, [func], inits)


def test_calls_passing_other_values_of_one_shape_are_listed_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four calls of local.F on z [3,4], each passing s of shape [1]: x.shape[0], then
    min(y.shape[0], 2), then the constants 1 and 3. Each is listed, with the values it passes
    (``call_values``), its index what onnxruntime computes of the model inlined (fixed: the
    second call, equal to the first in shape, type and constant value, was not listed, nor
    counted, its bounds and expressions not read: x[:, _x.shape[0]:] stood for both)."""
    model = _starts_model(["sx", "sy2", "s1", "s3"])
    assert onnx_graphs.checker_error(model) is None
    path = onnx_graphs.save(model, tmp_path)
    read = ir.read_onnx(path)
    layers = read.explain()
    assert [(i["layer_id"], i["output_shapes"], i["numpy"]) for i in layers] == [
        ("3", ["[3,..4]"], "x[:, _x.shape[0]:]"),
        ("4", ["[3,2..4]"], "x[:, min(y.shape[0], 2):]"),
        ("5", ["[3,3]"], "x[:, 1:]"),
        ("6", ["[3,1]"], "x[:, 3:]"),
    ]
    assert [i["call_values"] for i in layers] == [
        {"s": "[_x.shape[0]]"}, {"s": "[min(y.shape[0], 2)]"}, {"s": "[1]"}, {"s": "[3]"}
    ]  # fmt: skip
    assert read.check().inner == {"Slice": 4}
    inlined = inliner.inline_local_functions(model)
    session = onnx_graphs.ort_session(inlined)
    rng = np.random.default_rng(0)
    z = rng.standard_normal((3, 4)).astype(np.float32)
    for n, m in ((0, 1), (2, 5), (4, 3)):
        x, y = np.zeros((n, 4), np.float32), np.zeros((m, 4), np.float32)
        got = session.run(None, {"x": x, "y": y, "z": z})
        for info, value in zip(layers, got, strict=True):
            np.testing.assert_array_equal(eval(info["numpy"], {"x": z, "_x": x, "y": y}), value)  # noqa: S307
    assert main(["explain", str(path), "--layer", "4"]) == 0
    assert "  called with a [3,4], s [1] = [min(y.shape[0], 2)]\n" in capsys.readouterr().out


def _views_model(axis: int) -> Any:
    """y = local.F(x), x [2,3]: F lifts a (Unsqueeze axis 0), drops that axis again (Squeeze),
    then slices the first element of ``axis``."""
    body = [
        helper.make_node("Constant", [], ["zero"], value=_ints("zero", [0])),
        helper.make_node("Constant", [], ["one"], value=_ints("one", [1])),
        helper.make_node("Constant", [], ["ax"], value=_ints("ax", [axis])),
        helper.make_node("Unsqueeze", ["a", "zero"], ["u"], name="lift"),
        helper.make_node("Squeeze", ["u", "zero"], ["v"], name="drop"),
        helper.make_node("Slice", ["v", "zero", "one", "ax"], ["t"], name="cut"),
    ]
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    func = helper.make_function("local", "F", ["a"], ["u", "v", "t"], body, opsets)
    call = helper.make_node("F", ["x"], ["u", "v", "t"], domain="local", name="call")
    outputs = [_tensor(o, None) for o in "uvt"]
    return _local_model([call], [_tensor("x", [2, 3])], outputs, [func])


def test_a_function_s_unsqueeze_and_squeeze_give_their_output_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An Unsqueeze and a Squeeze in a function: explain gives their output shapes, those
    onnxruntime's values have, and a Slice of their output is checked on its rank (fixed: both
    printed `-> [...]`, the Squeeze `x [...]` with no index, and a Slice of axis 2 of the rank-2
    output, which onnxruntime refuses, was refused in ONNX's inference's words alone)."""
    model = _views_model(1)
    path = onnx_graphs.save(model, tmp_path)
    layers = ir.read_onnx(path).explain()
    assert [(i["name"], i["input_shape"], i["output_shapes"], i["numpy"]) for i in layers] == [
        ("lift", "[2,3]", ["[1,2,3]"], "x[None]"),
        ("drop", "[1,2,3]", ["[2,3]"], "x[0]"),
        ("cut", "[2,3]", ["[2,1]"], "x[:, :1]"),
    ]
    values = _run(model, {"x": np.arange(6, dtype=np.float32).reshape(2, 3)})
    for info, (data, out) in zip(layers, [("x", "u"), ("u", "v"), ("v", "t")], strict=True):
        assert info["output_shapes"] == [str(list(values[out].shape)).replace(" ", "")]
        np.testing.assert_array_equal(eval(info["numpy"], {"x": values[data]}), values[out])  # noqa: S307
    assert main(["explain", str(path), "--layer", "drop"]) == 0
    assert "(Squeeze): x [1,2,3] -> [2,3]\n" in capsys.readouterr().out
    broken = _views_model(2)
    assert "Unexpected axis value: 2" in str(onnx_graphs.ort_error(broken))
    (problem,) = ir.read_onnx(onnx_graphs.save(broken, tmp_path)).check().problems
    assert str(problem) == (
        "node 0 'call' (local.F): its function local.F's node 'cut' (Slice): "
        "ONNX Slice: axes=[2] holds 2, out of range for rank 2"
    )


def _sequence_nodes(where: str, split: list[int], position: int) -> Any:
    """SplitToSequence(x, split) on axis 1 of x [2,5], then SequenceAt(position) as y, in a
    function local.F(a) (its numbers Constant nodes) or an If's then branch (the graph's
    initializers; the else branch copies x)."""
    numbers = [
        helper.make_node("Constant", [], [n], value=_ints(n, v))
        for n, v in (("split", split), ("k", position))
    ]
    data = "a" if where == "function" else "x"
    nodes = [
        helper.make_node("SplitToSequence", [data, "split"], ["seq"], name="parts", axis=1),
        helper.make_node("SequenceAt", ["seq", "k"], ["y"], name="at"),
    ]
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    functions, inputs = [], [_tensor("x", [2, 5])]
    if where == "function":
        functions = [helper.make_function("local", "F", ["a"], ["y"], numbers + nodes, opsets)]
        top = helper.make_node("F", ["x"], ["y"], domain="local", name="call")
    else:
        then = helper.make_graph(numbers + nodes, "b", [], [_tensor("y", None)])
        other = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["w"])], "o", [], [_tensor("w", None)]
        )
        top = helper.make_node("If", ["c"], ["y"], name="if", then_branch=then, else_branch=other)
        inputs.append(_tensor("c", [], TensorProto.BOOL))
    return _local_model([top], inputs, [_tensor("y", None)], functions)


@pytest.mark.parametrize("where", ["function", "if"])
@pytest.mark.parametrize(
    ("split", "position", "problem"),
    [
        ([2, 3], -1, None),
        ([1, 1, 3], 1, None),
        ([2, 2], 0, "ONNX SplitToSequence: split=[2, 2] sums to 4, but the axis has size 5"),
        ([2, 3], 2, "ONNX SequenceAt: position=2 is out of range for a sequence of 2 tensors"),
    ],
)
def test_sequence_nodes_of_functions_and_bodies_are_read_as_the_graph_s(
    tmp_path: Path, where: str, split: list[int], position: int, problem: str | None
) -> None:
    """A SplitToSequence and a SequenceAt in a function or a branch: read as the graph's, a
    broken one a problem naming it where onnxruntime refuses to run the model, and listed by
    explain with the part onnxruntime gives (fixed: neither read, nor listed; a position out
    of range was OK, a split of the wrong sum refused in ONNX's inference's words alone)."""
    model = _sequence_nodes(where, split, position)
    path = onnx_graphs.save(model, tmp_path)
    read = ir.read_onnx(path)
    report = read.check()
    top = "node 0 'call' (local.F): its function local.F's" if where == "function" else (
        "node 0 'if' (If): its then_branch's"
    )  # fmt: skip
    layers = read.explain()
    assert [i["place"] for i in layers] == [
        f"{top} node 'parts' (SplitToSequence)",
        f"{top} node 'at' (SequenceAt)",
    ]
    assert layers[1]["sequence"] == layers[0]["place"]
    broken = problem is not None and problem.startswith("ONNX SplitToSequence")
    assert report.inner == {"SplitToSequence": 1} | ({} if broken else {"SequenceAt": 1})
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    feeds = {"x": x} | ({"c": np.asarray(True)} if where == "if" else {})
    try:
        y = onnx_graphs.ort_session(model).run(None, feeds)[0]
    except Exception:  # noqa: BLE001 - onnxruntime's errors have no common base
        y = None
    if y is None:  # onnxruntime refuses to run it
        assert problem is not None
        place = layers[0 if broken else 1]["place"]
        assert [str(p) for p in report.problems] == [f"{place}: {problem}"]
        return
    assert problem is None
    assert report.ok, report.problems
    assert layers[1]["output_shapes"] == [str(list(y.shape)).replace(" ", "")]
    np.testing.assert_array_equal(eval(layers[1]["numpy"], {"x": x}), y)  # noqa: S307


def _run_or_refuse(model: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray] | None:
    """The outputs onnxruntime gives, ``None`` where it refuses the model or the run: its graph
    optimizations off (on, they run an invalid Reshape whose shape a Shape and a Concat make)."""
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 4  # its refusals are expected here: no log lines
    try:
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        return list(session.run(None, feeds))
    except Exception:  # noqa: BLE001 - onnxruntime's errors have no common base
        return None


def _reference_or_refuse(model: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray] | None:
    """The outputs ``onnx.reference`` gives, ``None`` where it raises."""
    from onnx.reference import ReferenceEvaluator

    try:
        return list(ReferenceEvaluator(model).run(None, feeds))
    except Exception:  # noqa: BLE001 - NumPy's ValueError, and the reference's own
        return None


def _placed(
    where: str, body: list[Any], reads: list[str], out: str, inputs: list[Any], etype: int = F32
) -> Any:
    """A model whose output ``out`` is ``body``'s ``out`` (of the rank of ``reads[0]``, element
    type ``etype``): ``body`` in a function local.F of the graph inputs ``reads``, an If's then
    branch (input ``c``; the else branch copies ``reads[0]``), or the body of a Loop of one trip
    (its scan output, ``[1, ...]``)."""
    rank = len(inputs[0].type.tensor_type.shape.dim)
    result = _tensor("out", [None] * (rank + (where == "loop")), etype)
    if where == "function":
        opsets = [helper.make_opsetid(*i) for i in _OPSETS]
        func = helper.make_function("local", "F", reads, [out], body, opsets)
        call = helper.make_node("F", reads, ["out"], domain="local", name="call")
        return _local_model([call], inputs, [result], [func])
    flag = _tensor("c", [], TensorProto.BOOL)
    if where == "if":
        then = helper.make_graph(body, "b", [], [_tensor(out, [None] * rank, etype)])
        copy = helper.make_node("Identity", [reads[0]], ["w"])
        other = helper.make_graph([copy], "o", [], [_tensor("w", [None] * rank, etype)])
        top = helper.make_node("If", ["c"], ["out"], name="if", then_branch=then, else_branch=other)
        return _local_model([top], [*inputs, flag], [result], [])
    relay = helper.make_node("Identity", ["cin"], ["cout"])
    trip = [_tensor("i", [], TensorProto.INT64), _tensor("cin", [], TensorProto.BOOL)]
    outs = [_tensor("cout", [], TensorProto.BOOL), _tensor(out, [None] * rank, etype)]
    loop_body = helper.make_graph([*body, relay], "l", trip, outs)
    loop = helper.make_node("Loop", ["trips", "c"], ["out"], name="loop", body=loop_body)
    return _local_model([loop], [*inputs, flag], [result], [], [_ints("trips", 1)])


def _numbers(**values: list[int]) -> list[Any]:
    """A Constant node of int64 ``values`` per name."""
    return [helper.make_node("Constant", [], [n], value=_ints(n, v)) for n, v in values.items()]


def _reshape_body() -> list[Any]:
    """r = z.reshape(y.shape[0], 4): Shape, a Slice of it, a Concat with 4, the Reshape."""
    return [
        *_numbers(c0=[0], c1=[1], four=[4]),
        helper.make_node("Shape", ["y"], ["sy"]),
        helper.make_node("Slice", ["sy", "c0", "c1"], ["n"], name="first"),
        helper.make_node("Concat", ["n", "four"], ["target"], axis=0),
        helper.make_node("Reshape", ["z", "target"], ["r"], name="re"),
    ]


def _split_body() -> list[Any]:
    """p, q = a.split([y.shape[1] * 1, y.shape[1]], 1): Shape, Gather, Mul, Unsqueeze, Concat."""
    return [
        *_numbers(one=[1], zero=[0]),
        helper.make_node("Constant", [], ["k"], value=_ints("k", 1)),
        helper.make_node("Shape", ["y"], ["sy"]),
        helper.make_node("Gather", ["sy", "k"], ["w"], name="width"),
        helper.make_node("Unsqueeze", ["w", "zero"], ["w1"]),
        helper.make_node("Mul", ["w1", "one"], ["w2"]),
        helper.make_node("Concat", ["w2", "w1"], ["lengths"], axis=0),
        helper.make_node("Split", ["a", "lengths"], ["p", "q"], name="parts", axis=1),
    ]


@pytest.mark.parametrize("where", ["function", "if", "loop"])
@pytest.mark.parametrize(
    ("kind", "data", "y", "node"),
    [
        ("reshape", [3, 4], [3, 5], None),
        ("reshape", [3, 4], [2, 5], "'re' (Reshape): Reshape: shape=[2, 4] gives [2, 4]"),
        ("reshape", [3, 4], [6, 1], "'re' (Reshape): Reshape: shape=[6, 4] gives [6, 4]"),
        ("split", [2, 6], [2, 3], None),
        (
            "split",
            [2, 6],
            [2, 4],
            "'parts' (Split): Splitting: size=6 cannot be split by the 'lengths' rule with (4, 4)",
        ),
    ],
    ids=["reshape ok", "reshape short", "reshape long", "split ok", "split of 8 on 6"],
)
def test_a_shape_subgraph_of_a_function_or_body_feeds_the_nodes_it_checks(
    tmp_path: Path, where: str, kind: str, data: list[int], y: list[int], node: str | None
) -> None:
    """Shape, Slice and Concat (a Reshape's shape), or Shape, Gather, Unsqueeze, Mul and Concat
    (a Split's lengths) in a function, an If's branch or a Loop's body are evaluated as the
    graph's are: the Reshape or Split they feed is checked there, a problem exactly where
    onnxruntime refuses to run the model (onnx.reference, a Reshape), naming the node (fixed: the
    values were unknown there, the nodes opaque, the model OK)."""
    body, out, name = (
        (_reshape_body(), "r", "z") if kind == "reshape" else (_split_body(), "q", "a")
    )
    inputs = [_tensor(name, data), _tensor("y", y)]
    model = _placed(where, body, [name, "y"], out, inputs)
    assert onnx_graphs.checker_error(model) is None
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    rng = np.random.default_rng(0)
    feeds = {name: rng.standard_normal(data).astype(np.float32), "y": np.zeros(y, np.float32)}
    feeds |= {} if where == "function" else {"c": np.asarray(True)}
    runs = _run_or_refuse(model, feeds)
    assert report.ok == (runs is not None) == (node is None), report.problems
    # onnx.reference splits as NumPy does, whatever the lengths' sum: [4, 2] of 6 by [4, 4]
    # (docs/semantics.md, "ONNX Split"); it refuses the Reshapes onnxruntime refuses
    reference = _reference_or_refuse(model, feeds)
    assert (reference is not None) == (runs is not None or kind == "split")
    shapes = {"Slice": 1, "Concat": 1} if kind == "reshape" else {"Concat": 1}
    assert report.inner == shapes | ({"Reshape": 1} if kind == "reshape" else {"Split": 1})
    if node is not None:
        (problem,) = report.problems
        top = {
            "function": "its function local.F's",
            "if": "its then_branch's",
            "loop": "its body's",
        }
        assert problem.message.startswith(f"{top[where]} node {node}"), problem.message


def _half_body() -> list[Any]:
    """t = a[:, :y.shape[1] // 2]: Shape, Gather, Div, Unsqueeze give the Slice's end."""
    return [
        *_numbers(zero=[0], ax=[1]),
        helper.make_node("Constant", [], ["k"], value=_ints("k", 1)),
        helper.make_node("Constant", [], ["two"], value=_ints("two", 2)),
        helper.make_node("Shape", ["y"], ["sy"]),
        helper.make_node("Gather", ["sy", "k"], ["w"]),
        helper.make_node("Div", ["w", "two"], ["h"]),
        helper.make_node("Unsqueeze", ["h", "zero"], ["end"]),
        helper.make_node("Slice", ["a", "zero", "end", "ax"], ["t"], name="cut"),
    ]


@pytest.mark.parametrize("where", ["function", "if", "loop"])
def test_a_slice_whose_end_a_shape_makes_in_a_function_or_body_is_explained(
    tmp_path: Path, where: str
) -> None:
    """A Slice whose end is y.shape[1] // 2, computed in the function or body: explain gives
    its output shape, onnxruntime's, and the index as the expression it is, which takes what
    onnxruntime computes at each size of y (fixed: `-> [3,..6]`, `x[:, :end]`, its end known
    only at run time, and the Unsqueeze of the shape listed as if it moved data)."""
    model = _placed(
        where, _half_body(), ["a", "y"], "t", [_tensor("a", [3, 6]), _tensor("y", [2, 4])]
    )
    assert onnx_graphs.checker_error(model) is None
    path = onnx_graphs.save(model, tmp_path)
    (info,) = ir.read_onnx(path).explain()
    assert (info["output_shapes"], info["numpy"]) == (["[3,2]"], "x[:, :2]")
    a = np.arange(18, dtype=np.float32).reshape(3, 6)
    flag = {} if where == "function" else {"c": np.asarray(True)}
    runs = _run_or_refuse(model, {"a": a, "y": np.zeros((2, 4), np.float32)} | flag)
    assert runs is not None
    (t,) = runs
    t = t[0] if where == "loop" else t
    assert info["output_shapes"] == [str(list(t.shape)).replace(" ", "")]
    np.testing.assert_array_equal(eval(info["numpy"], {"x": a}), t)  # noqa: S307
    model.graph.input[1].CopyFrom(_tensor("y", ["N", "M"]))  # y of any shape: an expression
    dynamic = onnx_graphs.save(model, tmp_path, "dynamic")
    (info,) = ir.read_onnx(dynamic).explain()
    assert (info["output_shapes"], info["numpy"]) == (["[3,..6]"], "x[:, :y.shape[1]//2]")
    for m in (0, 3, 9, 20):
        y = np.zeros((1, m), np.float32)
        runs = _run_or_refuse(model, {"a": a, "y": y} | flag)
        assert runs is not None
        t = runs[0][0] if where == "loop" else runs[0]
        np.testing.assert_array_equal(eval(info["numpy"], {"x": a, "y": y}), t)  # noqa: S307


def _squeeze_model(
    where: str, shape: list[Any], opset: int, axis: int | None, *, empty: bool = False
) -> Any:
    """y = Squeeze(x) of no axes (opset 11: no attribute; 13: no input, or with ``empty`` an
    input of none, a Constant's), then, with ``axis``, its first element on that axis (a
    Slice): in a function local.F, or the graph's own."""
    body = [helper.make_node("Squeeze", ["x"], ["s"], name="drop")]
    if empty:
        body.insert(0, helper.make_node("Constant", [], ["none"], value=_ints("none", [])))
        body[-1].input.append("none")
    out = "s"
    if axis is not None:
        body += _numbers(zero=[0], one=[1], ax=[axis])
        body.append(helper.make_node("Slice", ["s", "zero", "one", "ax"], ["t"], name="cut"))
        out = "t"
    inputs, outputs = [_tensor("x", shape)], [_tensor("y", None)]
    opsets = [helper.make_opsetid("", opset), helper.make_opsetid("local", 1)]
    if where == "graph":
        body.append(helper.make_node("Identity", [out], ["y"]))
        graph = helper.make_graph(body, "g", inputs, outputs)
        return helper.make_model(graph, opset_imports=opsets, ir_version=10)
    func = helper.make_function("local", "F", ["x"], [out], body, opsets)
    call = helper.make_node("F", ["x"], ["y"], domain="local", name="call")
    graph = helper.make_graph([call], "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=opsets, functions=[func], ir_version=10)


@pytest.mark.parametrize("opset", [11, 13])
@pytest.mark.parametrize(
    "shape", [[1, 3, 1, 2], [1, 1], [2, 3], [1, "N", 1], ["N", 3]], ids=str
)  # fmt: skip
def test_a_function_s_squeeze_of_no_axes_is_the_graph_s(
    tmp_path: Path, opset: int, shape: list[Any]
) -> None:
    """A Squeeze without axes in a function: its output shape is the graph's own Squeeze's,
    every dim of 1 dropped where the dims are static (onnxruntime's shape), unknown where one
    is not (ONNX's inference gives none; fixed: `[...]` on static dims too)."""
    shapes = []
    for where in ("graph", "function"):
        path = onnx_graphs.save(_squeeze_model(where, shape, opset, None), tmp_path, where)
        (info,) = ir.read_onnx(path).explain()
        shapes.append(info["output_shapes"])
    assert shapes[0] == shapes[1]
    if all(isinstance(d, int) for d in shape):
        model = _squeeze_model("function", shape, opset, None)
        runs = _run_or_refuse(model, {"x": np.zeros(shape, np.float32)})
        assert runs is not None
        assert shapes[1] == [str(list(runs[0].shape)).replace(" ", "")]
    else:
        assert shapes[1] == ["[...]"]


@pytest.mark.parametrize(
    "shape", [[1, 3, 1, 2], [1, 1], [2, 3], [1, "N", 1], ["N", 3]], ids=str
)  # fmt: skip
def test_a_function_s_squeeze_of_an_empty_axes_input_is_the_graph_s(
    tmp_path: Path, shape: list[Any]
) -> None:
    """A Squeeze-13 whose axes input is empty, in a function: its output shape and index are
    the graph's own Squeeze's (fixed: `[...]`, unknown). The spec's reading, onnx.reference's and
    ONNX's inference's: it squeezes no dim, so its output is its input (`x[...]`); onnxruntime
    drops every dim of 1, as without axes: where a dim may be 1, no index, a note says so."""
    infos = []
    for where in ("graph", "function"):
        model = _squeeze_model(where, shape, 13, None, empty=True)
        (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path, where)).explain()
        infos.append({k: info[k] for k in ("input_shape", "output_shapes", "numpy", "note")})
    assert infos[0] == infos[1]
    assert infos[1]["output_shapes"] == [infos[1]["input_shape"]]
    ones = any(d == 1 or isinstance(d, str) for d in shape)
    assert infos[1]["numpy"] == (None if ones else "x[...]")
    assert (infos[1]["note"] is None) is not ones
    if ones:
        assert "onnxruntime drops every dim of 1" in infos[1]["note"]
    if all(isinstance(d, int) for d in shape):
        feeds = {"x": np.zeros(shape, np.float32)}
        spec = _reference_or_refuse(model, feeds)
        runs = _run_or_refuse(model, feeds)
        assert spec is not None
        assert runs is not None
        assert infos[1]["output_shapes"] == [str(list(spec[0].shape)).replace(" ", "")]
        squeezed = [d for d in shape if d != 1]
        assert list(runs[0].shape) == (squeezed if ones else shape)


@pytest.mark.parametrize("opset", [11, 13])
@pytest.mark.parametrize("axis", [1, 2])
def test_a_slice_after_a_function_s_squeeze_of_no_axes_is_checked_on_its_rank(
    tmp_path: Path, opset: int, axis: int
) -> None:
    """x [1,3,1,2] squeezed to [3,2] in a function, then sliced on axis 1 (OK) or 2, which
    onnxruntime and onnx.reference refuse: a problem in datamove's words, on the Squeeze's
    rank (fixed: in ONNX's inference's words alone)."""
    model = _squeeze_model("function", [1, 3, 1, 2], opset, axis)
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    feeds = {"x": np.zeros([1, 3, 1, 2], np.float32)}
    runs = _run_or_refuse(model, feeds)
    assert (runs is None) == (_reference_or_refuse(model, feeds) is None)
    assert report.ok == (runs is not None) == (axis == 1), report.problems
    if axis == 2:
        (problem,) = report.problems
        assert str(problem) == (
            "node 0 'call' (local.F): its function local.F's node 'cut' (Slice): "
            "ONNX Slice: axes=[2] holds 2, out of range for rank 2"
        )
    else:
        assert report.inner == {"Slice": 1}


@pytest.mark.parametrize("where", ["function", "if", "loop"])
def test_a_shape_node_of_a_function_or_body_that_fails_at_run_time_is_a_note(
    tmp_path: Path, where: str
) -> None:
    """A Gather of index 5 of the shape of a [2,3] in a function or body, which onnxruntime
    fails to run: a note of kind shape-subgraph on the node holding or calling it, naming the
    node, as for the graph's own (fixed: none)."""
    body = [
        helper.make_node("Constant", [], ["k"], value=_ints("k", [5])),
        helper.make_node("Shape", ["a"], ["sa"]),
        helper.make_node("Gather", ["sa", "k"], ["g"], name="pick"),
        helper.make_node("Cast", ["g"], ["f"], to=F32),
        helper.make_node("Add", ["a", "f"], ["t"]),
    ]
    model = _placed(where, body, ["a"], "t", [_tensor("a", [2, 3])])
    assert onnx_graphs.checker_error(model) is None
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    flag = {} if where == "function" else {"c": np.asarray(True)}
    assert _run_or_refuse(model, {"a": np.zeros((2, 3), np.float32)} | flag) is None
    (note,) = report.notes
    top = {"function": "its function local.F's", "if": "its then_branch's", "loop": "its body's"}
    assert (note.kind, note.layer_id) == ("shape-subgraph", "0")
    assert note.message == (
        f"{top[where]} node 'pick' (Gather): indices holds 5, out of range for an axis of 2 "
        "values: onnxruntime fails at run time"
    )


_INT64_MAX = 2**63 - 1


@pytest.mark.parametrize("where", ["function", "if", "loop"])
@pytest.mark.parametrize(
    ("dim", "split", "parts"),
    [
        pytest.param(_INT64_MAX, [1, _INT64_MAX - 1], 2, id="[1, INT64_MAX-1] of INT64_MAX"),
        pytest.param(2**32, [2**31, 2**31], 2, id="[2**31, 2**31] of 2**32"),
        pytest.param(2**32, None, 2, id="2 of 2**32 (num_outputs)"),
        pytest.param(_INT64_MAX, None, 3, id="3 of INT64_MAX (num_outputs)"),
    ],
)
def test_a_split_past_int32_in_a_function_or_body_is_the_spec_s(
    tmp_path: Path, where: str, dim: int, split: list[int] | None, parts: int
) -> None:
    """ONNX's Split inference reads a dim past INT32_MAX in 32 bits (docs/ir.md, Split), in a
    function, an If's branch or a Loop's body too: it refuses split=[1, INT64_MAX - 1] and
    [2**31, 2**31] of 2**32 ("Mismatch between the sum of 'split'"), so onnxruntime refuses
    the model at load, and gives parts of 0 for 2 of 2**32. onnx.reference runs each (an int8
    x of [0, dim]: no elements). As in the graph: no problem (fixed: one on the node holding
    or calling it, ONNX's words), a note of kind onnxruntime exactly where onnxruntime
    refuses, and where it loads the model, as its kernel fails at run time on the count of
    elements from the axis on past INT32_MAX ("narrowing_error"), the Split's parts the
    spec's, the Concat after the opaque Neg of a part checked on none of ONNX's misread
    shapes (fixed: a problem of [0,0] against [0,2**31]), the node's output as declared and
    the Neg after it unknown, not ONNX's (fixed: [?,0,0] after a Loop, [0,0] after a
    call)."""
    names = [f"p{k}" for k in range(parts)]
    cut = helper.make_node("Split", ["a", "lens"], names, name="cut", axis=1)
    if split is None:
        cut = helper.make_node("Split", ["a"], names, name="cut", axis=1, num_outputs=parts)
    body = [
        *(_numbers(lens=split) if split is not None else []),
        cut,
        helper.make_node("Neg", [names[-1]], ["n"], name="neg"),
        helper.make_node("Concat", ["n", names[-1]], ["j"], name="join", axis=0),
    ]
    inputs = [_tensor("a", [0, dim], TensorProto.INT8)]
    model = _placed(where, body, ["a"], "j", inputs, TensorProto.INT8)
    model.graph.node.append(helper.make_node("Neg", ["out"], ["r"], name="after"))
    model.graph.output.append(_tensor("r", None, TensorProto.INT8))  # r: not declared
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    refused = onnx_graphs.ort_error(model)  # at load
    feeds = {"a": np.zeros((0, dim), np.int8)} | ({} if where == "function" else {"c": True})
    feeds = {k: np.asarray(v) for k, v in feeds.items()}
    reference, _ = _reference_or_refuse(model, feeds) or [None, None]
    assert reference is not None
    assert report.problems == (), report.problems
    notes = [n for n in report.notes if n.kind == "onnxruntime"]
    assert (refused is not None) == (split is not None), refused
    top = {"function": "its function local.F's", "if": "its then_branch's", "loop": "its body's"}
    (note,) = notes  # onnxruntime refuses the model at load, else fails at run time
    assert (note.layer_id, note.layer_name) == ("0", {"function": "call"}.get(where, where))
    if refused is None:  # its kernel takes the elements from the axis on as a C int
        with pytest.raises(Exception, match="narrowing_error"):
            onnx_graphs.ort_session(model).run(None, feeds)
        assert note.message.startswith(
            f"{top[where]} node 'cut' (Split): its input [0,{dim}] on axis 1: onnxruntime's "
            f"Split kernel takes the {dim} elements from axis 1 on as a C int"
        ), note.message
    else:
        assert onnx_graphs.checker_error(model) is not None
        assert note.message.startswith(
            f"{top[where]} node 'cut' (Split): ONNX's Split inference reads the dim {dim} on "
            "axis 1 in 32 bits"
        ), note.message
        said = refused.splitlines()[0].split("[ShapeInferenceError] ")[-1].strip()
        assert f"in 32 bits, as {(dim + 2**31) % 2**32 - 2**31}, and refuses it: {said};" in (
            note.message
        )
    size = -(-dim // parts)
    want = split or [size] * (parts - 1) + [dim - size * (parts - 1)]
    listed = {e["name"]: e for e in ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()}
    assert listed["cut"]["output_shapes"] == [f"[0,{n}]" for n in want]
    assert listed["join"]["place"].endswith(f"{top[where]} node 'join' (Concat)")
    assert PartialShape(list(reference.shape[-2:])) == PartialShape([0, want[-1]])
    joined = PartialShape(listed["join"]["output_shapes"][0])
    assert joined.compatible(PartialShape(list(reference.shape[-2:])))
    declared = [None] * (2 + (where == "loop"))  # (a Loop's: its scan output, [1,0,...])
    assert report.outputs["out"] == (PartialShape(declared), "i8")
    assert report.outputs["r"] == (PartialShape(None), "i8")  # not ONNX's, from misread parts


def test_each_split_past_int32_of_a_branch_in_a_loop_is_a_note(tmp_path: Path) -> None:
    """Three Splits of [0, 2**32] by [1, 2**32 - 1] in an If's branch in a Loop's body, one
    nameless: onnx names the first under the Loop and the If, the others bare, after it; each
    is a note of kind onnxruntime on the Loop naming its place, none a problem (fixed: a
    problem of the Loop, and one per other Split, "a Split node 'cut2'"); onnxruntime refuses
    the model at load, onnx.reference runs it."""
    dim = 2**32
    cuts = [
        helper.make_node("Split", ["a", "lens"], [f"h{k}", f"t{k}"], name=name, axis=1)
        for k, name in enumerate(["cut", "cut2", ""])
    ]
    body = [*_numbers(lens=[1, dim - 1]), *cuts, helper.make_node("Neg", ["t0"], ["n"])]
    inputs = [_tensor("a", [0, dim], TensorProto.INT8)]
    model = _placed("if", body, ["a"], "n", inputs, TensorProto.INT8)
    branch = model.graph.node[0]
    branch.output[0] = "z"
    trip = [_tensor("i", [], TensorProto.INT64), _tensor("cin", [], TensorProto.BOOL)]
    outs = [_tensor("cout", [], TensorProto.BOOL), _tensor("z", [None, None], TensorProto.INT8)]
    relay = helper.make_node("Identity", ["cin"], ["cout"])
    loop_body = helper.make_graph([branch, relay], "l", trip, outs)
    loop = helper.make_node("Loop", ["trips", "c"], ["out"], name="loop", body=loop_body)
    model.graph.ClearField("node")
    model.graph.node.append(loop)
    model.graph.initializer.append(_ints("trips", 1))
    model.graph.output[0].CopyFrom(_tensor("out", [None] * 3, TensorProto.INT8))
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.problems == ()
    assert onnx_graphs.ort_error(model) is not None
    feeds = {"a": np.zeros((0, dim), np.int8), "c": np.asarray(True)}
    assert _reference_or_refuse(model, feeds) is not None
    place = "its body's node 'if' (If): its then_branch's node"
    assert [(n.kind, n.layer_id, n.message.split(": ONNX's")[0]) for n in report.notes] == [
        ("onnxruntime", "0", f"{place} {name!r} (Split)") for name in ("cut", "cut2", "h2")
    ]


@pytest.mark.parametrize("split", [None, [1, 2**32 - 1]], ids=["num_outputs", "split"])
def test_each_call_of_a_function_splitting_past_int32_is_as_the_first(
    tmp_path: Path, split: list[int] | None
) -> None:
    """Two calls of local.F (a Split of [0,2**32] in two, a Neg of the second part) on the
    same shapes, walked once: each call is as the first, a Neg after it unknown (fixed:
    [0,0], ONNX's from parts of 0) and a note on each call: where ONNX refuses the Split, as
    onnxruntime refuses the model at load, else as its kernel fails at run time (the 2**32
    elements from the axis on: "narrowing_error"); onnx.reference runs it."""
    dim = 2**32
    cut = helper.make_node("Split", ["a"], ["p", "q"], name="cut", axis=1, num_outputs=2)
    if split is not None:
        cut = helper.make_node("Split", ["a", "lens"], ["p", "q"], name="cut", axis=1)
    body = [*(_numbers(lens=split) if split else []), cut, helper.make_node("Neg", ["q"], ["n"])]
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    func = helper.make_function("local", "F", ["a"], ["n"], body, opsets)
    calls = [helper.make_node("F", ["x"], [f"y{k}"], domain="local", name=f"c{k}") for k in (0, 1)]
    after = [helper.make_node("Neg", [f"y{k}"], [f"r{k}"]) for k in (0, 1)]
    outputs = [_tensor(f"r{k}", None, TensorProto.INT8) for k in (0, 1)]
    inputs = [_tensor("x", [0, dim], TensorProto.INT8)]
    model = _local_model([*calls, *after], inputs, outputs, [func])
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    runs = _reference_or_refuse(model, {"x": np.zeros((0, dim), np.int8)})
    assert runs is not None
    assert [r.shape for r in runs] == [(0, 2**31 if split is None else dim - 1)] * 2
    assert report.problems == ()
    assert report.outputs == {f"r{k}": (PartialShape(None), "i8") for k in (0, 1)}
    refused = onnx_graphs.ort_error(model)
    assert (refused is not None) == (split is not None)
    assert [(n.kind, n.layer_name) for n in report.notes] == (  # at load, else at run time
        [("onnxruntime", "c0"), ("onnxruntime", "c1")]
    )
    assert all(("narrowing_error" in n.message) == (refused is None) for n in report.notes)
    if refused is None:  # onnxruntime loads it, its kernel takes 2**32 elements as a C int
        with pytest.raises(Exception, match="narrowing_error"):
            onnx_graphs.ort_session(model).run(None, {"x": np.zeros((0, dim), np.int8)})


@pytest.mark.parametrize("declared", [False, True], ids=["inferred", "declared"])
@pytest.mark.parametrize("where", ["graph", "function", "if", "loop"])
def test_a_slice_onnx_overflows_at_int64_max_is_misread_in_a_function_too(
    tmp_path: Path, where: str, declared: bool
) -> None:
    """n = Neg(a[:, 1:]) of a [2,INT64_MAX], in the graph, a function local.F, an If's branch
    or a Loop's body, and r = Neg(n) after it. ONNX's Slice arithmetic overflows there: its
    inference gives [2,0], check the spec's [2,INT64_MAX-1]. In the graph, an opaque node after
    such a value is not taken as ONNX infers it: r unknown, or as declared with no problem. In
    a function ONNX types none of the nodes, so the misreading was not seen and the call's
    output was ONNX's: r [2,0], and declaring it [2,INT64_MAX-1] a problem ("declares ...,
    but ONNX's shape inference gives [2,0]"), where onnxruntime loads it. Now each placement
    gives the graph's answer."""
    body = [
        *_numbers(s=[1], e=[_INT64_MAX], ax=[1]),
        helper.make_node("Slice", ["a", "s", "e", "ax"], ["y"], name="cut"),
        helper.make_node("Neg", ["y"], ["n"], name="neg"),
    ]
    inputs = [_tensor("a", [2, _INT64_MAX])]
    if where == "graph":
        outputs = [_tensor("out", [None, None])]
        relay = helper.make_node("Identity", ["n"], ["out"])
        model = _local_model([*body, relay], inputs, outputs, [])
    else:
        model = _placed(where, body, ["a"], "n", inputs)
    model.graph.node.append(helper.make_node("Neg", ["out"], ["r"], name="after"))
    lead = [1] if where == "loop" else []  # the Loop's scan output: [1, ...]
    dims = [*lead, 2, _INT64_MAX - 1]
    model.graph.output.append(_tensor("r", dims if declared else None))
    if not declared:  # ONNX's own: [..,2,0] (an If's [2,?]: merged with the else branch's)
        said = onnx.shape_inference.infer_shapes(model).graph.output[-1].type.tensor_type
        last = said.shape.dim[-1]
        assert (last.dim_value if last.HasField("dim_value") else None) == (
            None if where == "if" else 0
        )
    assert onnx_graphs.ort_error(model) is None  # onnxruntime loads it, declared or not
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.problems == (), report.problems
    assert report.notes == ()
    assert report.outputs["r"] == (PartialShape(dims if declared else None), "f32")


@pytest.mark.parametrize("dim", [2**31 - 1, 2**31, 2**32])
def test_a_function_s_split_onnxruntime_cannot_run_on_the_input_shapes_given_is_a_note(
    tmp_path: Path, dim: int
) -> None:
    """local.F halves a on axis 0 (Split-18); the graph calls it on x declared [d0,d1]. Its
    kernel takes the count of elements after the axis as a C int (docs/ir.md, Split): given
    [0,dim], onnxruntime runs the call at 2**31-1 and fails past it ("narrowing_error").
    check on the file's shapes notes nothing (the sizes are unknown there); with input_shapes
    a note on the call exactly where onnxruntime fails, naming the Split in the function."""
    cut = helper.make_node("Split", ["a"], ["p", "q"], name="cut", axis=0, num_outputs=2)
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    func = helper.make_function("local", "F", ["a"], ["q"], [cut], opsets)
    call = helper.make_node("F", ["x"], ["y"], domain="local", name="call")
    inputs = [_tensor("x", ["d0", "d1"], TensorProto.INT8)]
    model = _local_model([call], inputs, [_tensor("y", None, TensorProto.INT8)], [func])
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    assert read.check().notes == ()
    report = read.check({"x": PartialShape([0, dim])})
    assert report.problems == ()
    try:
        onnx_graphs.ort_session(model).run(None, {"x": np.zeros((0, dim), np.int8)})
    except Exception as exc:  # noqa: BLE001 - onnxruntime's errors have no common base
        failed: str | None = str(exc)
    else:
        failed = None
    assert (failed is not None) == (dim > 2**31 - 1)
    assert [(n.kind, n.layer_name) for n in report.notes] == (
        [("onnxruntime", "call")] if failed else []
    )
    if failed is not None:
        assert "narrowing_error" in failed
        assert report.notes[0].message.startswith(
            f"its function local.F's node 'cut' (Split): its input [0,{dim}] on axis 0: "
            f"onnxruntime's Split kernel takes the {dim} elements after axis 0 as a C int"
        )


def _gather_body(case: str) -> tuple[list[Any], str]:
    """A data Gather of x [a,b] named 'take' (its output g): of constant indices, a computed
    index unsqueezed ('lift'), a Range of unknown length (of a delta computed from dims too),
    or the dynamo exporter's GatherND of a Range unsqueezed ('lift') on x transposed ('turn');
    and its NumPy text."""
    ends = {"range": ("zero", "m", "one"), "delta": ("zero", "three", "step")}
    nodes = [
        *_numbers(last=[-1], k=[2, 0]),
        *(helper.make_node("Constant", [], [n], value=_ints(n, v))
          for n, v in (("zero", 0), ("one", 1), ("two", 2), ("three", 3))),
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n0"], axis=0),
        helper.make_node("Gather", ["s", "one"], ["n1"], axis=0),
        helper.make_node("Sub", ["n1", "two"], ["m"]),
        helper.make_node("Sub", ["n1", "one"], ["end"]),
        helper.make_node("Add", ["n0", "one"], ["step"]),
    ]  # fmt: skip
    if case == "constant":
        nodes.append(helper.make_node("Gather", ["x", "k"], ["g"], name="take", axis=1))
        return nodes, "np.take(x, [2, 0], axis=1)"
    if case == "computed":  # its Unsqueeze only indices read: not listed
        nodes.append(helper.make_node("Unsqueeze", ["end", "last"], ["ends"], name="lift"))
        nodes.append(helper.make_node("Gather", ["x", "ends"], ["g"], name="take", axis=1))
        return nodes, "np.take(x, [x.shape[1]-1], axis=1)"
    nodes.append(helper.make_node("Range", list(ends.get(case, ends["range"])), ["r"]))
    if case != "nd":
        nodes.append(helper.make_node("Gather", ["x", "r"], ["g"], name="take", axis=1))
        return nodes, "x[:, :3:x.shape[0]+1]" if case == "delta" else "x[:, :max(x.shape[1]-2, 0)]"
    nodes += [
        helper.make_node("Unsqueeze", ["r", "last"], ["u"], name="lift"),
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0], name="turn"),
        helper.make_node("GatherND", ["t", "u"], ["g"], name="take"),
    ]
    return nodes, "x[:max(_x.shape[1]-2, 0)]"


@pytest.mark.parametrize("where", ["function", "if", "loop"])
@pytest.mark.parametrize("case", ["constant", "computed", "range", "delta", "nd"])
def test_a_data_gather_of_a_function_or_body_is_explained_as_onnxruntime_runs_it(
    tmp_path: Path, where: str, case: str
) -> None:
    """A data Gather in a function, an If's branch or a Loop's body is listed as the graph's
    is, named by its place, with the graph's NumPy text; the dynamo exporter's GatherND of
    x[:, torch.arange(x.shape[1] - 2)] as that Gather; an Unsqueeze that only indices read
    (the GatherND's, a computed index's) not listed. Each text, on x (the GatherND's on x
    transposed, _x its x), gives the body's output onnxruntime computes at every size it runs
    (fixed: none was listed, and the Unsqueeze listed as a data Unsqueeze, x[:, None])."""
    body, text = _gather_body(case)
    model = _placed(where, body, ["x"], "g", [_tensor("x", ["a", "b"])])
    assert onnx_graphs.checker_error(model) is None
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    top = {
        "function": "node 0 'call' (local.F): its function local.F's",
        "if": "node 0 'if' (If): its then_branch's",
        "loop": "node 0 'loop' (Loop): its body's",
    }
    kind = "GatherND" if case == "nd" else "Gather"
    place = f"{top[where]} node 'take' ({kind})"
    assert (info["place"], info["numpy"], info["note"]) == (place, text, None), info
    flag = {} if where == "function" else {"c": np.asarray(True)}
    ran = 0
    for size in [(a, b) for a in range(4) for b in range(6)]:
        x = np.arange(int(np.prod(size)), dtype=np.float32).reshape(size)
        runs = _run_or_refuse(model, {"x": x} | flag)
        if runs is None:  # an index out of range: onnxruntime refuses the run
            continue
        ran += 1
        got = runs[0][0] if where == "loop" else runs[0]
        scope = {"np": np, "x": x.T, "_x": x} if case == "nd" else {"np": np, "x": x}
        np.testing.assert_array_equal(eval(text, scope), got, err_msg=f"at {size}")  # noqa: S307
    assert ran >= 6, ran


def test_an_unsqueeze_of_indices_a_function_outputs_too_is_listed(tmp_path: Path) -> None:
    """The dynamo exporter's GatherND in a function whose Unsqueeze's output is an output of
    the function too: that Unsqueeze is listed, as the graph's is where the graph outputs it."""
    body, _ = _gather_body("nd")
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    func = helper.make_function("local", "F", ["x"], ["g", "u"], body, opsets)
    call = helper.make_node("F", ["x"], ["g", "u"], domain="local", name="call")
    outputs = [_tensor("g", [None, None]), _tensor("u", [None, 1], TensorProto.INT64)]
    model = _local_model([call], [_tensor("x", ["a", "b"])], outputs, [func])
    assert onnx_graphs.checker_error(model) is None
    layers = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert [(i["name"], i["numpy"]) for i in layers] == [
        ("lift", "x[:, None]"), ("take", "x[:max(_x.shape[1]-2, 0)]")
    ]  # fmt: skip


def _namesake_model(kind: str) -> Any:
    """local.F(x, i) of the graph's z and x.shape[0] (its x): a Gather of column i of F's x, or
    the Slice F's x[:, i:]; F's data is named x, as the graph's x whose dims i reads."""
    nodes = [helper.make_node("Shape", ["x"], ["sx"], start=0, end=1)]
    if kind == "Gather":
        body = [helper.make_node("Gather", ["x", "i"], ["t"], name="take", axis=1)]
        nodes.append(helper.make_node("Squeeze", ["sx"], ["n"]))
    else:
        body = [
            *_numbers(ax=[1], e=[2**62]),
            helper.make_node("Slice", ["x", "i", "e", "ax"], ["t"], name="take"),
        ]
    opsets = [helper.make_opsetid(*i) for i in _OPSETS]
    func = helper.make_function("local", "F", ["x", "i"], ["t"], body, opsets)
    passed = "n" if kind == "Gather" else "sx"
    nodes.append(helper.make_node("F", ["z", passed], ["t"], domain="local", name="call"))
    inputs = [_tensor("x", ["N", 4]), _tensor("z", [3, 9])]
    return _local_model(
        nodes, inputs, [_tensor("t", [3, None] if kind == "Slice" else [3])], [func]
    )


@pytest.mark.parametrize("kind", ["Gather", "Slice"])
def test_a_caller_s_dims_a_function_s_namesake_hides_are_not_written(
    tmp_path: Path, kind: str
) -> None:
    """x.shape[0] of the graph's x passed to a function whose data input is named x too: the
    expression would read as that data's dims, so explain writes none (fixed: the Slice was
    x[:, x.shape[0]:], z's own rows; the Gather, now listed, x[:, x.shape[0]]): the Slice on
    its run-time start, the Gather a note; what onnxruntime computes is z's columns from
    the graph's x.shape[0] on."""
    model = _namesake_model(kind)
    assert onnx_graphs.checker_error(model) is None
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert info["call_values"] == {"i": "_x.shape[0]" if kind == "Gather" else "[_x.shape[0]]"}
    if kind == "Slice":
        assert (info["numpy"], info["note"]) == ("x[:, sx:]", None)
    else:
        assert info["numpy"] is None
        assert info["note"] == (
            "its indices are expressions of the dims of the calling graph's 'x', which the "
            "function names too: not written"
        )
    z = np.arange(27, dtype=np.float32).reshape(3, 9)
    (t,) = _run_or_refuse(model, {"x": np.zeros((2, 4), np.float32), "z": z}) or [None]
    np.testing.assert_array_equal(t, z[:, 2] if kind == "Gather" else z[:, 2:])
