"""PyTorch indexing idioms as users convert them: by ``openvino.convert_model`` on dynamic
inputs (IR) and by ``torch.onnx.export`` with dynamic axes (ONNX), each fed several sizes.

At each size, ``check`` is OK exactly where the peer runs the model (OpenVINO's CPU plugin,
onnxruntime); ``run`` gives the peer's outputs and PyTorch's; and each layer's ``explain``
NumPy index, applied to the layer's input as the peer computes it, gives the peer's output of
that layer. A differential hunt's idioms (tests/ir/test_converted_slicing.py has its finds on
shape subgraphs), one conversion each.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir

torch = pytest.importorskip("torch")
onnx_graphs = pytest.importorskip("onnx_graphs")
ov_models = pytest.importorskip("ov_models")
torch_models = pytest.importorskip("torch_models")
openvino_oracle = pytest.importorskip("openvino_oracle")
ov = ov_models.ov

pytestmark = pytest.mark.openvino
BIG = 2**62

# name: (the idiom, the example it is traced on); every axis converted dynamic
IDIOMS: dict[str, tuple[Any, tuple[int, ...]]] = {
    "x[..., None, ::2]": (lambda x: x[..., None, ::2], (2, 6)),
    "x[:, :2**62]": (lambda x: x[:, :BIG], (2, 6)),
    "x[:, -2**62:]": (lambda x: x[:, -BIG:], (2, 6)),
    "x[:, 3:2**62:2]": (lambda x: x[:, 3:BIG:2], (2, 6)),
    "x[:, 4:2]": (lambda x: x[:, 4:2], (2, 6)),
    "x[:, -1]": (lambda x: x[:, -1], (2, 6)),
    "x[:, x.shape[1] - 1]": (lambda x: x[:, x.shape[1] - 1], (2, 6)),
    "x[0]": (lambda x: x[0], (2, 6)),
    "x[..., 2]": (lambda x: x[..., 2], (2, 6)),
    "x[:, [0, 2, 4]]": (lambda x: x[:, [0, 2, 4]], (2, 6)),
    "x[1:, ..., :1]": (lambda x: x[1:, ..., :1], (3, 2, 6)),
    "x[None, :, None]": (lambda x: x[None, :, None], (2, 6)),
    "flip(x, [0, 1])[:, 1:]": (lambda x: torch.flip(x, [0, 1])[:, 1:], (2, 6)),
    "flip(x[:, 1:], [1])[:, ::2]": (lambda x: torch.flip(x[:, 1:], [1])[:, ::2], (2, 6)),
    "x[:, 2:][:, 1:][:, ::2]": (lambda x: x[:, 2:][:, 1:][:, ::2], (2, 6)),
    "outputs sharing x[:, 1:]": (lambda x: (x[:, 1:], x[:, 1:] * 2, x[:, :1]), (2, 6)),
    "x.unflatten(1, (2, -1))[:, :, 1:]": (lambda x: x.unflatten(1, (2, -1))[:, :, 1:], (2, 6)),
    "x.view(b, 2, -1)[:, 1, ::2]": (lambda x: x.view(x.shape[0], 2, -1)[:, 1, ::2], (2, 6)),
    "x.tensor_split([1, 4], 1)": (lambda x: x.tensor_split([1, 4], 1), (2, 7)),
    "cat([x[:, 1:], x[:, :1], x[:, -2:]], 1)": (
        lambda x: torch.cat([x[:, 1:], x[:, :1], x[:, -2:]], 1),
        (2, 6),
    ),
    "roll(x, 2, 1)": (lambda x: torch.roll(x, 2, 1), (2, 6)),
    "x[:, 1:] - x[:, :-1]": (lambda x: x[:, 1:] - x[:, :-1], (2, 6)),
    "x.movedim(1, 0)[::2]": (lambda x: x.movedim(1, 0)[::2], (2, 6)),
    "x.flatten()[-3:]": (lambda x: x.flatten()[-3:], (2, 6)),
    "x[:, -2**62:2**62:3]": (lambda x: x[:, -BIG:BIG:3], (2, 6)),
    "x[:, x.shape[0]:]": (lambda x: x[:, x.shape[0] :], (2, 6)),
    "cat([x[:, :0], x, x[:, 6:]], 1)": (lambda x: torch.cat([x[:, :0], x, x[:, 6:]], 1), (2, 6)),
}
# the example, a few sizes (dim 1 odd, of 1, of 0, wide) of the other axes alike
SIZES = [(2, 6), (3, 9), (1, 1), (4, 0), (1, 13)]


def _sizes(example: tuple[int, ...]) -> list[tuple[int, ...]]:
    return [size + example[2:] for size in SIZES]


def _arange(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def _eager(fn: Any, x: np.ndarray, peer: list[np.ndarray]) -> list[np.ndarray]:
    """PyTorch's outputs of the idiom, the source model's; ``peer`` where PyTorch raises (an
    index out of range: ``x[:, -1]`` of no columns, where a Gather gives zeros)."""
    try:
        got = fn(torch.from_numpy(x.copy()))
    except IndexError:
        return peer
    return [t.numpy() for t in (got if isinstance(got, tuple) else (got,))]


def _evaluated(info: dict[str, Any], ins: list[np.ndarray]) -> list[Any]:
    """Each of the layer's NumPy expressions on its inputs (``x``; a Concat's ``x0``...)."""
    texts = info["numpy"] if isinstance(info["numpy"], list) else [info["numpy"]]
    assert None not in texts, info
    scope = {"np": np, "x": ins[0]} | {f"x{k}": v for k, v in enumerate(ins)}
    return [eval(text, scope) for text in texts]  # noqa: S307 - the expressions under test


def _with_layer_ports(xml: Path, names: list[str], tmp_path: Path) -> tuple[Path, list[Any]]:
    """A copy of the IR with each named layer's input and output ports as outputs too, and
    per layer (its input indices, its output indices) into the copy's outputs."""
    model = ov.Core().read_model(str(xml))
    ops = {op.get_friendly_name(): op for op in model.get_ordered_ops()}
    per_layer = []
    for name in names:
        op = ops[name]
        ins = [op.input_value(k) for k in range(op.get_input_size())]
        per_layer.append((ins, list(op.outputs())))
        model.add_outputs([*ins, *op.outputs()])

    def key(port: Any) -> tuple[str, int]:
        return port.get_node().get_friendly_name(), port.get_index()

    index: dict[tuple[str, int], int] = {}
    for k, result in enumerate(model.get_results()):
        index.setdefault(key(result.input_value(0)), k)
    where = [([index[key(p)] for p in i], [index[key(p)] for p in o]) for i, o in per_layer]
    return ov_models.save(model, tmp_path, "ports"), where


def _session(model: Any) -> Any:
    return onnx_graphs.ort_session(model, log_severity_level=3)


def test_an_if_s_branch_not_taken_at_the_given_shapes_is_not_checked(tmp_path: Path) -> None:
    # A hunt's find: torch exports x[:, :1].squeeze(1) on dynamic axes as an If on
    # x.shape[1] == 1 whose then branch squeezes. At [4,0] the condition is known false and
    # onnxruntime runs the else branch (an Identity: [4,0], as PyTorch's no-op squeeze), yet
    # check walked the then branch too and reported its Squeeze ("dim 1 of [4,0] is not 1").
    model = onnx_graphs.torch_export(
        torch_models.Fn(lambda x: x[:, :1].squeeze(1)), (2, 6), tmp_path / "m.onnx"
    )
    assert "If" in [n.op_type for n in model.graph.node]
    read = ir.read_onnx(tmp_path / "m.onnx")
    for size, want in [((4, 0), (4, 0)), ((4, 3), (4,)), ((1, 1), (1,))]:
        x = np.zeros(size, np.float32)
        (got,) = _session(model).run(None, {"x": x})
        assert got.shape == want == tuple(torch.zeros(size)[:, :1].squeeze(1).shape)
        report = read.check({"x": list(size)})
        assert report.ok, (size, report.problems)
    # where the condition is not known, both branches are checked, as before
    assert read.check().ok


def test_an_if_of_a_constant_condition_has_both_branches_checked(tmp_path: Path) -> None:
    # The near miss: a Constant condition (true) is known on the file's shapes too, and
    # onnxruntime infers both branches when it reads the model: it refuses an else branch's
    # Slice of axis 5 whichever branch runs, on the new shapes too (fixed: check on new
    # shapes skipped that branch and said OK).
    helper, numpy_helper = onnx_graphs.onnx.helper, onnx_graphs.onnx.numpy_helper
    f32 = onnx_graphs.onnx.TensorProto.FLOAT
    copy = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["w"])],
        "t",
        [],
        [helper.make_tensor_value_info("w", f32, None)],
    )
    cut = helper.make_graph(
        [helper.make_node("Slice", ["x", "s", "e", "ax"], ["w"])],
        "e",
        [],
        [helper.make_tensor_value_info("w", f32, None)],
    )
    true = numpy_helper.from_array(np.asarray(True))
    nodes = [
        helper.make_node("Constant", [], ["c"], value=true),
        helper.make_node("If", ["c"], ["y"], then_branch=copy, else_branch=cut),
    ]
    inits = [numpy_helper.from_array(np.asarray(v, np.int64), n) for n, v in
             [("s", [0]), ("e", [1]), ("ax", [5])]]  # fmt: skip
    x, y = (helper.make_tensor_value_info(n, f32, s) for n, s in [("x", ["a", 3]), ("y", None)])
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10
    with pytest.raises(Exception, match="Graph attribute inferencing failed"):
        _session(model)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    for shapes in (None, {"x": [2, 3]}):
        (problem,) = read.check(shapes).problems
        assert "its else_branch's node" in problem.message


@pytest.mark.parametrize("name", list(IDIOMS))
def test_converted_idioms_check_run_and_explain_as_openvino_s_cpu_plugin(
    tmp_path: Path, name: str
) -> None:
    fn, example = IDIOMS[name]
    xml = torch_models.convert_fn(fn, example, [-1] * len(example), tmp_path)
    model = ir.read_model(xml)
    assert model.check().ok
    for size in _sizes(example):
        x = _arange(size)
        try:
            want = [a for _, a in openvino_oracle.run_ir(xml, {"x": x})]
        except openvino_oracle.OpenVINOError:  # a view of a size it cannot have
            assert not model.check({"x": list(size)}).ok, size
            with pytest.raises(ir.IRError):
                model.run({"x": x})
            continue
        assert model.check({"x": list(size)}).ok, size
        try:
            got, refused = list(model.run({"x": x}).values()), ""
        except ir.UnsupportedOperatorError as exc:  # x[:, -1] is a Gather: the error names it
            got, refused = want, str(exc)
        opaque = r"layer \d+ '.+' \((\w+)\): cannot run: .* compute \1 "
        assert not refused or re.search(opaque, refused), refused
        for g, w, e in zip(got, want, _eager(fn, x, want), strict=True):
            np.testing.assert_array_equal(g, w)
            np.testing.assert_array_equal(w, e)
        # each layer's NumPy index on its input as the plugin computes it: its output
        infos = [i for i in model.explain(input_shapes={"x": list(size)}) if not i["runtime"]]
        # a Gather-8 of an index out of range (x[:, -1] of no columns) gives zeros: a note
        infos = [i for i in infos if i["layer_type"] != "Gather" or i["numpy"] is not None]
        ports, where = _with_layer_ports(xml, [i["name"] for i in infos], tmp_path)
        values = [a for _, a in openvino_oracle.run_ir(ports, {"x": x})]
        for info, (ins, outs) in zip(infos, where, strict=True):
            count = len(info["output_shapes"]) if info["layer_type"] != "Concat" else 1
            data = [values[k] for k in ins] if info["layer_type"] == "Concat" else [values[ins[0]]]
            for e, k in zip(_evaluated(info, data), outs[:count], strict=True):
                np.testing.assert_array_equal(e, values[k], err_msg=f"{size} {info}")


def _every_value(model: Any) -> Any:
    """The model with every node's output a graph output too, of the type ONNX infers."""
    onnx = onnx_graphs.onnx
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info}
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    known = {o.name for o in copy.graph.output}
    for out in (o for node in copy.graph.node for o in node.output):
        if out and out not in known and types.get(out):  # (0: a sequence)
            copy.graph.output.append(onnx.helper.make_tensor_value_info(out, types[out], None))
            known.add(out)
    return copy


@pytest.mark.parametrize("name", list(IDIOMS))
def test_exported_idioms_check_and_explain_as_onnxruntime_runs_them(
    tmp_path: Path, name: str
) -> None:
    fn, example = IDIOMS[name]
    model = onnx_graphs.torch_export(torch_models.Fn(fn), example, tmp_path / "m.onnx")
    read = ir.read_onnx(tmp_path / "m.onnx")
    assert read.check().ok
    session = _session(_every_value(model))
    names = [o.name for o in session.get_outputs()]
    for size in _sizes(example):
        x = _arange(size)
        report = read.check({"x": list(size)})
        try:
            values, error = dict(zip(names, session.run(None, {"x": x}), strict=True)), ""
        except Exception as exc:  # noqa: BLE001 - onnxruntime's Fail, InvalidArgument
            values, error = {}, str(exc)
        if error:  # a node datamove checks is a problem (a Reshape of x.view at an odd
            # width, a data Gather of x[:, -1] at 0 columns); one it takes as opaque it cannot judge
            refused = re.search(r"running (\w+) node", error)
            assert refused, error
            assert not report.ok or refused[1] in report.opaque, (size, error)
            if refused[1] in ("Reshape", "Gather"):
                assert report.problems[0].layer_type == refused[1], (size, report.problems)
            continue
        assert report.ok, (size, report.problems)
        outputs = [values[o.name] for o in model.graph.output]
        for got, want in zip(outputs, _eager(fn, x, outputs), strict=True):
            np.testing.assert_array_equal(got, want)
        # each node's NumPy index on its input as onnxruntime computes it: its output
        nodes = list(model.graph.node)
        for info in read.explain(input_shapes={"x": list(size)}):
            node = nodes[int(info["layer_id"])]
            if info["runtime"] or node.name != info["name"]:  # (a branch's node)
                continue
            if info["numpy"] is None:  # tensor_split's SequenceAt of a Loop's sequence
                assert info["note"], info
                continue
            ins = [values.get(i, x if i == "x" else None) for i in node.input]
            data = ins if node.op_type == "Concat" else ins[:1]
            for e, out in zip(_evaluated(info, data), node.output, strict=False):
                np.testing.assert_array_equal(e, values[out], err_msg=f"{size} {info}")


@pytest.mark.parametrize(
    ("fn", "size", "noted"),
    [(lambda x: x[:, -1], (3, 0), True), (lambda x: x[:, 2], (3, 2), False)],
    ids=["x[:, -1] of no columns", "x[:, 2] of 2 columns"],
)
def test_a_converted_index_out_of_range_is_zeros_by_gather_8(
    tmp_path: Path, fn: Any, size: tuple[int, int], noted: bool
) -> None:
    # PyTorch raises an IndexError, and onnxruntime refuses the ONNX export (a Gather problem:
    # tests/test_onnx_gather.py); convert_model makes a Gather-8, which fills an index out of
    # range with zeros by its spec (gather-8.rst, Example 7): the IR's check is OK, its Gather
    # opaque, and datamove's run does not compute it. The CPU plugin gives the zeros, but on an
    # axis of size 0, where it leaves the output unwritten: a note (IR-38, docs/semantics.md).
    # Unwritten, as converted (dynamic shapes), the output is the plugin's buffer as the run
    # before left it (one of 3 columns of 123s); reshaped static, as check(input_shapes) reads
    # it, the oracle's sentinel it was preset to
    with pytest.raises(IndexError):
        fn(torch.zeros(size))
    onnx_graphs.torch_export(torch_models.Fn(fn), (2, 6), tmp_path / "m.onnx")
    (problem,) = ir.read_onnx(tmp_path / "m.onnx").check({"x": list(size)}).problems
    assert problem.layer_type == "Gather"
    xml = torch_models.convert_fn(fn, (2, 6), [-1, -1], tmp_path)
    model = ir.read_model(xml)
    report = model.check({"x": list(size)})
    assert report.ok
    assert report.opaque == {"Gather": 1}
    said = [n.message.split(":")[0] for n in report.notes]
    assert said == ["divergence IR-38 (docs/semantics.md)"] * noted
    with pytest.raises(ir.UnsupportedOperatorError, match="Gather"):
        model.run({"x": _arange(size)})
    (want,) = openvino_oracle.evaluate_ir(xml, {"x": _arange(size) + 1})
    np.testing.assert_array_equal(want, np.zeros(size[:1], np.float32))
    left = np.full(size[:1], 123, np.float32) if noted else want  # what the plugin gives
    before = {"x": np.full((size[0], 3), 123, np.float32)}
    (((_, first),), ((_, got),)) = openvino_oracle.run_ir_each(xml, [before, {"x": _arange(size)}])
    np.testing.assert_array_equal(first, np.full(size[:1], 123, np.float32))
    np.testing.assert_array_equal(got, left)
    static = ov.Core().read_model(xml)
    static.reshape({"x": list(size)})
    ov.save_model(static, tmp_path / "static.xml", compress_to_fp16=False)
    got = openvino_oracle.run_ir_one(tmp_path / "static.xml", {"x": _arange(size)}, sentinel=123)
    np.testing.assert_array_equal(got, left)


def test_a_converted_index_of_no_rows_reshaped_static_kills_the_cpu_plugin(
    tmp_path: Path,
) -> None:
    # IR-39 (docs/semantics.md): x[:, 1] converted on [?,?] runs at [0,3] (its output [0]);
    # reshaped to a static [0,3], as check(input_shapes) reads it, the CPU plugin dies (SIGFPE)
    fn = lambda x: x[:, 1]  # noqa: E731
    xml = torch_models.convert_fn(fn, (2, 6), [-1, -1], tmp_path)
    x = np.zeros((0, 3), np.float32)
    assert openvino_oracle.run_ir_one(xml, {"x": x}).shape == (0,)
    assert ir.read_model(xml).check().notes == ()
    (note,) = ir.read_model(xml).check({"x": [0, 3]}).notes
    assert note.message.startswith("divergence IR-39 (docs/semantics.md): ")
    static = ov.Core().read_model(xml)
    static.reshape({"x": [0, 3]})
    ov.save_model(static, tmp_path / "static.xml", compress_to_fp16=False)
    assert "SIGFPE" in openvino_oracle.run_ir_one(tmp_path / "static.xml", {"x": x})


@pytest.mark.parametrize(
    ("fn", "size", "noted"),
    [
        (lambda x: x[x.shape[0] - 1], (1, 0), False),
        (lambda x: x[x.shape[0] - 1], (2, 0), False),
        (lambda x: x[:, x.shape[1] - 1], (0, 3), True),
        (lambda x: x[:, x.shape[1] // 2], (0, 3), True),
    ],
    ids=[
        "x[x.shape[0] - 1] of 1 row",
        "x[x.shape[0] - 1] of 2 rows",
        "x[:, x.shape[1] - 1]",
        "x[:, x.shape[1] // 2]",
    ],
)
def test_a_computed_index_of_no_element_reshaped_static_is_noted_as_a_constant_one(
    tmp_path: Path, fn: Any, size: tuple[int, int], noted: bool
) -> None:
    # IR-39 (docs/semantics.md): reshaped to a static shape, OpenVINO folds the shape subgraph
    # ShapeOf -> Gather -> Add into the Gather's index, so a computed index of one element in
    # range on an axis with every dim before it 1 runs as a constant one does (x[x.shape[0]-1]
    # of no columns: [0]; fixed: it was noted); on [0,3] the plugin dies whatever the index
    xml = torch_models.convert_fn(fn, (2, 6), [-1, -1], tmp_path)
    notes = [n.message.split(":")[0] for n in ir.read_model(xml).check({"x": list(size)}).notes]
    assert notes == ["divergence IR-39 (docs/semantics.md)"] * noted
    static = ov.Core().read_model(xml)
    static.reshape({"x": list(size)})
    ov.save_model(static, tmp_path / "static.xml", compress_to_fp16=False)
    x = np.zeros(size, np.float32)
    got = openvino_oracle.run_ir_one(tmp_path / "static.xml", {"x": x})
    if noted:
        assert "SIGFPE" in got, got
    else:
        np.testing.assert_array_equal(got, fn(torch.from_numpy(x)).numpy())


def test_openvino_cpu_refuses_a_narrow_by_a_dim_less_a_constant(tmp_path: Path) -> None:
    # IR-18 (docs/semantics.md), a hunt's find: a narrow whose length is a dim less a
    # constant, converted on [?,?]. The file's stop is [1] (a scalar Gather of the shape plus
    # a Const [1]); the CPU plugin's transformations make it a scalar and refuse to compile
    # the model (x.narrow(0, 0, x.shape[0] - 1) alike). datamove checks it OK and runs it
    # as PyTorch.
    fn = lambda x: x.narrow(1, 1, x.shape[1] - 2)  # noqa: E731
    xml = torch_models.convert_fn(fn, (4, 6), [-1, -1], tmp_path)
    model = ir.read_model(xml)
    assert model.check().ok
    for size in [(4, 6), (3, 9), (2, 2)]:
        x = _arange(size)
        np.testing.assert_array_equal(model.run({"x": x})["y0"], _eager(fn, x, [])[0])
    with pytest.raises(openvino_oracle.OpenVINOError, match="`stop` input must be a 1D tensor"):
        openvino_oracle.run_ir(xml, {"x": _arange((4, 6))})
    # the near miss: the same cut as a slice, x[:, 1 : x.shape[1] - 1], it runs
    near = torch_models.convert_fn(lambda x: x[:, 1 : x.shape[1] - 1], (4, 6), [-1, -1], tmp_path)
    ((_, got),) = openvino_oracle.run_ir(near, {"x": _arange((4, 6))})
    np.testing.assert_array_equal(got, _arange((4, 6))[:, 1:-1])


def test_openvino_cpu_flattens_a_squeezed_dim_that_is_not_1(tmp_path: Path) -> None:
    # IR-21 (docs/semantics.md), a hunt's find: x.unbind(1) traced on [2,3] is a Split in 3
    # and a Squeeze of each part's dim 1, declared [?] on [?,?]. Run on [3,9], each part is
    # [3,3]: the CPU plugin neither refuses (as on an empty part) nor keeps the dim, but
    # gives the part flattened to the declared rank, [9]; datamove keeps the dim, as
    # OpenVINO's rule on a static shape does (check OK, no note).
    xml = torch_models.convert_fn(lambda x: x.unbind(1), (2, 3), [-1, -1], tmp_path)
    x = _arange((3, 9))
    want = [x[:, 3 * k : 3 * k + 3] for k in range(3)]
    cpu = [a for _, a in openvino_oracle.run_ir(xml, {"x": x})]
    for got, part in zip(cpu, want, strict=True):
        np.testing.assert_array_equal(got, part.reshape(-1))
    model = ir.read_model(xml)
    report = model.check({"x": [3, 9]})
    assert report.ok
    assert report.notes == ()
    for got, part in zip(model.run({"x": x}).values(), want, strict=True):
        np.testing.assert_array_equal(got, part)
