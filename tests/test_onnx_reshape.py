"""ONNX `check` of a data Reshape whose shape is known, against onnxruntime and onnx.reference.

One node ``x -> Reshape(x, s) -> y``, ``s`` an initializer, at random input shapes, shape
vectors (0, -1, repeated -1, values below -1, zeros past the rank) and ``allowzero``: check's
verdict is whether onnxruntime runs it (and onnx.reference with it), its output shape the one
they give; on interval shapes, a problem only where no size in the box runs.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove import ir
from strategies import examples

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
onnx_graphs = pytest.importorskip("onnx_graphs")
helper = onnx.helper
_OPSETS = (5, 13, 14, 21)  # Reshape-5, -13, -14 (allowzero), -21


def _model(target: list[int], allowzero: int, rank: int, opset: int) -> Any:
    dims = [f"d{k}" for k in range(rank)]
    attrs = {"allowzero": allowzero} if opset >= 14 else {}
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="view", **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [helper.make_tensor("s", onnx.TensorProto.INT64, [len(target)], target)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


_shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3)
_targets = st.lists(st.sampled_from([-2, -1, -1, 0, 0, 1, 2, 3, 4, 6]), min_size=1, max_size=4)


@settings(max_examples=examples(120), deadline=None)
@given(_shapes, _targets, st.sampled_from([0, 1]), st.sampled_from(_OPSETS))
def test_a_reshape_is_a_problem_where_onnxruntime_refuses_it(
    tmp_path_factory: Any, shape: list[int], target: list[int], allowzero: int, opset: int
) -> None:
    allowzero = allowzero if opset >= 14 else 0
    model = _model(target, allowzero, len(shape), opset)
    repro = f"Reshape({shape}, {target}, allowzero={allowzero}) opset {opset}"
    says = f"Reshape: shape={target}"
    directory = tmp_path_factory.mktemp("reshape")
    _, want = onnx_graphs.check_as_onnxruntime(model, shape, directory, says, repro)
    # onnx.reference agrees, but where NumPy takes a value below -1 as a -1
    if min(target) >= -1:
        assert onnx_graphs.reference_shape(model, tuple(shape)) == want, repro


_boxes = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=1, max_size=3)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes, _targets, st.sampled_from([0, 1]))
def test_a_reshape_on_interval_dims_is_a_problem_only_where_no_size_runs(
    tmp_path_factory: Any, box: list[tuple[int, int]], target: list[int], allowzero: int
) -> None:
    model = _model(target, allowzero, len(box), 14)
    report, text, runs = onnx_graphs.check_box(model, box, tmp_path_factory.mktemp("reshape"))
    repro = f"Reshape({text}, {target}, allowzero={allowzero}): {report.problems}"
    if not report.ok:
        assert all(got is None for got in runs.values()), repro
    inferred = report.outputs["y"][0]
    for got in filter(None, runs.values()):
        assert inferred.compatible(dm.PartialShape(list(got))), repro
        assert inferred.rank is None or all(
            g in d for g, d in zip(got, inferred.dims, strict=True)
        ), repro


def _reshape_by_a_dim_of_another_tensor() -> Any:
    """``t = Reshape(z, Concat(Shape(y)[0:1], [4]))`` of ``z`` ``[3,4]``: valid only where ``y``
    has 3 rows (Shape-15's ``start`` and ``end``)."""
    nodes = [
        helper.make_node("Shape", ["y"], ["rows"], start=0, end=1),
        helper.make_node("Concat", ["rows", "four"], ["s"], axis=0),
        helper.make_node("Reshape", ["z", "s"], ["t"]),
    ]
    f32 = onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("y", f32, ["m", 4]),
            helper.make_tensor_value_info("z", f32, [3, 4]),
        ],
        [helper.make_tensor_value_info("t", f32, None)],
        [helper.make_tensor("four", onnx.TensorProto.INT64, [1], [4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def test_onnxruntime_s_default_optimizations_run_a_reshape_the_spec_refuses(
    tmp_path: Path,
) -> None:
    # onnxruntime 1.32's ReshapeFusion (ORT_ENABLE_BASIC on, so by default) folds
    # Concat(Shape(y)[0:1], [4]) into the constant [-1, 4], as if the one dim it cannot know
    # were the one the element count gives: z [3,4] comes out [3,4] whatever y's rows. Without
    # optimizations it refuses a y of 1 row, as onnx.reference and the spec do, and so does
    # datamove. The tests' oracle (onnx_graphs.ort_session) runs onnxruntime unoptimized.
    from onnx.reference import ReferenceEvaluator

    model = _reshape_by_a_dim_of_another_tensor()
    path = onnx_graphs.save(model, tmp_path)
    z = np.arange(12, dtype=np.float32).reshape(3, 4)
    ok = {"y": np.zeros((3, 4), np.float32), "z": z}
    for session in (onnx_graphs.ort_session(model), onnx_graphs.ort_session(model, optimized=True)):
        assert session.run(None, ok)[0].shape == (3, 4)
    assert ir.read_onnx(path).check({"y": [3, 4]}).ok

    bad = {"y": np.zeros((1, 4), np.float32), "z": z}
    with pytest.raises(Exception, match="cannot be reshaped to the requested shape"):
        onnx_graphs.ort_session(model).run(None, bad)
    with pytest.raises(ValueError, match="cannot reshape array of size 12"):
        ReferenceEvaluator(model).run(None, bad)
    (problem,) = ir.read_onnx(path).check({"y": [1, 4]}).problems
    assert problem.kind == "operator"
    assert problem.message.startswith("Reshape: shape=[1, 4] gives [1, 4] (4 elements)")
    try:
        (t,) = onnx_graphs.ort_session(model, optimized=True).run(None, bad)
    except Exception as exc:  # noqa: BLE001 - onnxruntime's errors have no common base
        pytest.skip(f"onnxruntime {ort.__version__} optimized refuses it too, fixed: {exc}")
    np.testing.assert_array_equal(t, z)


def _reshape_by_dims_of_y(z: list[int], entries: list[int | str], allowzero: int) -> Any:
    """``Reshape(z, Concat(...))`` of ``z`` of static shape, each entry a constant or ``"y<i>"``
    (``Shape(y)[i:i+1]``, ``y`` of 3 dynamic dims)."""
    nodes, names, inits = [], [], []
    for k, e in enumerate(entries):
        names.append(f"e{k}")
        if isinstance(e, str):
            i = int(e[1:])
            nodes.append(helper.make_node("Shape", ["y"], [f"e{k}"], start=i, end=i + 1))
        else:
            inits.append(helper.make_tensor(f"e{k}", onnx.TensorProto.INT64, [1], [e]))
    nodes += [
        helper.make_node("Concat", names, ["s"], axis=0),
        helper.make_node("Reshape", ["z", "s"], ["t"], allowzero=allowzero),
    ]
    f32 = onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("y", f32, ["a", "b", "c"]),
            helper.make_tensor_value_info("z", f32, z),
        ],
        [helper.make_tensor_value_info("t", f32, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def _runs(run: Any, y: tuple[int, ...], z: list[int]) -> bool:
    try:
        run({"y": np.zeros(y, np.float32), "z": np.zeros(z, np.float32)})
    except Exception:  # noqa: BLE001 - onnxruntime's and NumPy's errors have no common base
        return False
    return True


def test_a_reshape_no_size_of_its_bounded_shape_runs_is_a_problem(tmp_path: Path) -> None:
    # z [3,5] by [y.shape[0], 4]: 4N is never 15, and a 0 copies z's 3 (12 elements); on main
    # check was OK. onnxruntime (unoptimized) and onnx.reference refuse it at every N.
    from onnx.reference import ReferenceEvaluator

    model = _reshape_by_dims_of_y([3, 5], ["y0", 4], 0)
    path = onnx_graphs.save(model, tmp_path)
    session, reference = onnx_graphs.ort_session(model), ReferenceEvaluator(model)
    for n in range(8):
        assert not _runs(lambda feeds: session.run(None, feeds), (n, 1, 1), [3, 5]), n
        assert not _runs(lambda feeds: reference.run(None, feeds), (n, 1, 1), [3, 5]), n
    (problem,) = ir.read_onnx(path).check().problems
    assert problem.kind == "operator"
    assert problem.message.startswith(
        "Reshape: shape='[0.., 4]' keeps the element count of the data's [3,5] at no size of its"
    )
    # z [3,4] runs at N = 3 (and a 0 copies 3): not a problem
    path = onnx_graphs.save(_reshape_by_dims_of_y([3, 4], ["y0", 4], 0), tmp_path, "ok")
    assert ir.read_onnx(path).check().ok


def test_an_exported_torch_view_by_another_tensor_s_dim_that_never_fits_is_a_problem(
    tmp_path: Path,
) -> None:
    torch = pytest.importorskip("torch")
    import warnings

    class View(torch.nn.Module):
        def forward(self, y: Any, z: Any) -> Any:
            return z.view(y.shape[0], 4)

    path = tmp_path / "view.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            View(),
            (torch.zeros(3, 4), torch.zeros(3, 4)),
            str(path),
            input_names=["y", "z"],
            dynamic_axes={"y": {0: "n"}},
            dynamo=False,
            opset_version=17,
        )
    model = onnx.load(str(path))
    z = model.graph.input[1].type.tensor_type.shape.dim
    z[1].dim_value = 5  # z [3,5]: exported at [3,4], where it ran
    onnx.save(model, path)
    session = onnx_graphs.ort_session(model)
    for n in range(1, 6):
        assert not _runs(lambda feeds: session.run(None, feeds)[0], (n, 4), [3, 5]), n
    problems = ir.read_onnx(path).check().problems
    assert [p.kind for p in problems] == ["operator"], problems
    assert "and no value within these bounds" in problems[0].message


@pytest.mark.parametrize(
    ("box", "target", "runs"),
    [
        pytest.param([(1, 1), (3, 0)], [4], False, id="[1..2,3] by [4]"),
        pytest.param([(1, 1), (3, 0)], [-1, 4], False, id="[1..2,3] by [-1, 4]"),
        pytest.param([(2, 1), (4, 0)], [-1, 5], False, id="[2..3,4] by [-1, 5]"),
        pytest.param([(1, 2), (4, 0)], [3, 4], True, id="[1..3,4] by [3, 4]"),
        pytest.param([(0, 2), (5, 0)], [-1, 4], True, id="[0..2,5] by [-1, 4]"),
    ],
)
def test_a_known_reshape_no_size_of_the_data_runs_is_a_problem(
    tmp_path: Path, box: list[tuple[int, int]], target: list[int], runs: bool
) -> None:
    # the element count over an interval box (on main: OK whatever the sizes)
    model = _model(target, 0, len(box), 14)
    report, text, shapes = onnx_graphs.check_box(model, box, tmp_path)
    assert any(shapes.values()) == runs == report.ok, (text, report.problems)
    if not runs:
        (problem,) = report.problems
        assert problem.message.startswith(f"Reshape: shape={target} keeps the element count")


_entries = st.lists(
    st.sampled_from([-1, 0, 1, 2, 3, 4, 6, "y0", "y1", "y2"]), min_size=1, max_size=3, unique=True
)
_y_box = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=3, max_size=3)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 4), min_size=1, max_size=3), _entries, _y_box, st.integers(0, 1))
def test_a_reshape_by_bounded_dims_is_a_problem_exactly_where_no_size_runs(
    tmp_path_factory: Any,
    z: list[int],
    entries: list[int | str],
    box: list[tuple[int, int]],
    allowzero: int,
) -> None:
    # each of y's dims at most once (unique entries), z static: the bounds are exact, so check's
    # verdict is onnxruntime's over the whole box, and onnx.reference's. Not a -1 of allowzero=1:
    # beside a 0 computed at run time onnxruntime runs it (it refuses a constant one at load),
    # which the spec calls invalid and datamove refuses
    from onnx.reference import ReferenceEvaluator

    assume(not (allowzero and -1 in entries))

    model = _reshape_by_dims_of_y(z, entries, allowzero)
    path = onnx_graphs.save(model, tmp_path_factory.mktemp("reshape"))
    text = "[" + ",".join(f"{lo}..{lo + width}" for lo, width in box) + "]"
    report = ir.read_onnx(path).check({"y": text})
    session, reference = onnx_graphs.ort_session(model), ReferenceEvaluator(model)
    sizes = list(itertools.product(*(range(lo, lo + w + 1) for lo, w in box)))
    ort_runs = [_runs(lambda feeds: session.run(None, feeds), y, z) for y in sizes]
    repro = f"Reshape({z}, {entries}, allowzero={allowzero}) y {text}: {report.problems}"
    assert report.ok == any(ort_runs), repro
    ref_runs = [_runs(lambda feeds: reference.run(None, feeds), y, z) for y in sizes]
    assert ref_runs == ort_runs, repro


@pytest.mark.parametrize(("z", "runs"), [([3, 5], False), ([3, 4], True)])
def test_an_ir_reshape_by_another_tensor_s_dim_that_never_fits_is_a_problem(
    tmp_path: Path, z: list[int], runs: bool
) -> None:
    # IR's ShapeOf(y) -> Gather -> Concat(., [4]) -> Reshape(z, ., special_zero): OpenVINO's
    # CPU plugin folds the shape into [-1, 4] (as openvino.convert_model does: its IR holds the
    # constant) and refuses z [3,5] at compile; on main check was OK
    ov = pytest.importorskip("openvino")
    ops = pytest.importorskip("openvino.opset13")
    y = ops.parameter([-1, 4], np.float32, name="y")
    data = ops.parameter(z, np.float32, name="z")
    first = ops.constant(np.array([0], np.int64))
    rows = ops.gather(ops.shape_of(y), first, ops.constant(np.int64(0)))
    shape = ops.concat([rows, ops.constant(np.array([4], np.int64))], 0)
    model = ov.Model([ops.reshape(data, shape, special_zero=True)], [y, data])
    ov.save_model(model, tmp_path / "m.xml", compress_to_fp16=False)
    report = ir.read_model(tmp_path / "m.xml").check()
    assert report.ok == runs, report.problems
    if not runs:
        (problem,) = report.problems
        assert problem.message.startswith("Reshape: shape='[0.., 4]' keeps the element count")
        with pytest.raises(Exception, match="do not evenly divide"):
            ov.Core().compile_model(model, "CPU")
    else:
        compiled = ov.Core().compile_model(model, "CPU")
        feeds = {"y": np.zeros((3, 4), np.float32), "z": np.zeros(z, np.float32)}
        assert compiled(feeds)[0].shape == (3, 4)


_INT64_MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("shape", "target", "want"),
    [
        pytest.param([_INT64_MAX], [-1], [_INT64_MAX], id="[INT64_MAX] -> [-1]"),
        pytest.param([_INT64_MAX, 1], [1, _INT64_MAX], [1, _INT64_MAX], id="[INT64_MAX,1]"),
        pytest.param([_INT64_MAX], [7, -1], [7, _INT64_MAX // 7], id="[INT64_MAX] -> [7,-1]"),
        pytest.param([2**31, 2**31], [-1], [2**62], id="[2**31,2**31] -> [-1]"),
        pytest.param([2**62, 2], [-1], None, id="[2**62,2] -> [-1]"),
        pytest.param([2**62, 2], [2, 2**62], None, id="[2**62,2] -> [2,2**62]"),
        pytest.param([2, _INT64_MAX], [0, 0], None, id="[2,INT64_MAX] -> [0,0]"),
        pytest.param([2**32, 2**32], [-1, 1], None, id="[2**32,2**32] -> [-1,1]"),
    ],
)
@pytest.mark.parametrize("given", [False, True], ids=["declared", "input_shapes"])
def test_a_reshape_of_data_of_more_than_int64_max_elements_is_a_problem(
    tmp_path: Path, shape: list[int], target: list[int], want: list[int] | None, given: bool
) -> None:
    # Its element count, which the node keeps, has no int64 value: onnxruntime refuses the node
    # at load ("Dimension product overflow in Reshape"). check said so only in ONNX's words on
    # the declared shapes, not with input_shapes, and for a -1 it leaked a Dimension's error
    # ("Dimension: min=9223372036854775808 must be in [0, 9223372036854775807]"). A count up
    # to INT64_MAX is exact.
    model = _model(target, 0, len(shape), 13)
    for d, n in zip(model.graph.input[0].type.tensor_type.shape.dim, shape, strict=True):
        d.dim_value = n
    refused = onnx_graphs.ort_error(model)
    assert (refused is None) == (want is not None), refused
    path = onnx_graphs.save(model, tmp_path)
    report = ir.read_onnx(path).check({"x": str(dm.PartialShape(shape))} if given else None)
    if want is not None:
        assert report.problems == ()
        assert report.outputs["y"][0] == dm.PartialShape(want)
        return
    assert "Dimension product overflow in Reshape" in str(refused)
    (problem,) = report.problems
    count = shape[0] * shape[1]
    assert (problem.layer_id, problem.kind) == ("0", "operator")
    assert problem.message == (
        f"Reshape: data={shape!r} has {count} elements, more than INT64_MAX: the count the node "
        "keeps has no int64 value, and onnxruntime refuses the node"
    )


@pytest.mark.parametrize(
    ("box", "refused"),
    [("[4611686018427387904,2..3]", True), ("[4611686018427387904,1..2]", False)],
)
def test_a_reshape_of_more_than_int64_max_elements_at_every_size_is_a_problem(
    tmp_path: Path, box: str, refused: bool
) -> None:
    # At every size of [2**62,2..3] the count passes INT64_MAX (as at [2**62,2], which
    # onnxruntime refuses: above); [2**62,1..2] holds [2**62,1], whose count is 2**62
    path = onnx_graphs.save(_model([-1], 0, 2, 13), tmp_path)
    report = ir.read_onnx(path).check({"x": box})
    said = (
        f"Reshape: data={box!r} has at least 9223372036854775808 elements, more than INT64_MAX: "
        "the count the node keeps has no int64 value, and onnxruntime refuses the node"
    )
    assert [p.message for p in report.problems] == ([said] if refused else [])
    assert refused or 2**62 in report.outputs["y"][0].dims[0]
