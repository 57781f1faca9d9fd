"""ONNX `check` of a data Gather of constant indices, against onnxruntime and onnx.reference.

PyTorch exports ``x[:, -1]``, ``x[..., 2]`` and ``x[0]`` as a Gather of a constant index:
check's verdict at each input shape is whether onnxruntime runs the model (it refuses an index
out of ``[-d, d - 1]`` at run time, an ``axis`` out of range at load; onnx.reference, NumPy's
``take``, alike), its output shape the one they give; on interval shapes, a problem only where
no size in the box runs. So too where the indices are computed from the shape (torch's
``x[:, x.shape[1] - 1]``), sound: a problem only where no size runs, silent where the bounds
cannot tell. A Gather of a shape (``Shape -> Gather``) stays a shape subgraph's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove import ir
from strategies import examples

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
onnx_graphs = pytest.importorskip("onnx_graphs")
helper = onnx.helper
_OPSETS = (1, 11, 13)  # Gather-1, -11, -13


_shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3)
_indices = st.one_of(
    st.integers(-5, 5),  # a scalar: x[:, i]
    st.lists(st.integers(-5, 5), max_size=3),  # 1-D, empty among them
    st.lists(st.lists(st.integers(-5, 5), min_size=2, max_size=2), min_size=1, max_size=2),
)


@settings(max_examples=examples(120), deadline=None)
@given(_shapes, _indices, st.integers(-4, 3), st.sampled_from(_OPSETS))
def test_a_gather_is_a_problem_where_onnxruntime_refuses_it(
    tmp_path_factory: Any, shape: list[int], indices: Any, axis: int, opset: int
) -> None:
    model = onnx_graphs.gather(indices, axis, len(shape), opset)
    repro = f"Gather({shape}, {indices}, axis={axis}) opset {opset}"
    says = ("Gather: indices=", "Gather: axis=")
    directory = tmp_path_factory.mktemp("gather")
    report, want = onnx_graphs.check_as_onnxruntime(model, shape, directory, says, repro)
    # onnx.reference agrees, but where NumPy's take has no element to take (another dim 0)
    reference = onnx_graphs.reference_shape(model, tuple(shape))
    if want is None and reference is not None:
        assert 0 in reference, repro
        assert report.problems[0].message.startswith("Gather: indices="), repro
    else:
        assert reference == want, repro


def test_onnx_reference_runs_an_index_out_of_range_where_the_output_is_empty(
    tmp_path: Path,
) -> None:
    # x[:, 7] of [0,4]: NumPy's take checks no index where it takes no element, so
    # onnx.reference gives [0]; onnxruntime refuses it, as the spec says ("It is an error if
    # any of the index values are out of bounds"), and datamove with it
    model = onnx_graphs.gather(7, 1, 2, 13)
    assert onnx_graphs.reference_shape(model, (0, 4)) == (0,)
    assert onnx_graphs.ort_shapes(model, [(0, 4), (1, 8)]) == [None, (1,)]
    (problem,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": [0, 4]}).problems
    assert problem.message == (
        "Gather: indices=7 holds 7, out of range [-4, 3] of data.shape[1] = 4: onnxruntime "
        "refuses it at run time"
    )


_boxes = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=1, max_size=3)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes, _indices, st.integers(-3, 2))
def test_a_gather_on_interval_dims_is_a_problem_only_where_no_size_runs(
    tmp_path_factory: Any, box: list[tuple[int, int]], indices: Any, axis: int
) -> None:
    model = onnx_graphs.gather(indices, axis, len(box), 13)
    report, text, runs = onnx_graphs.check_box(model, box, tmp_path_factory.mktemp("gather"))
    repro = f"Gather({text}, {indices}, axis={axis}): {report.problems}"
    assert report.ok == any(got is not None for got in runs.values()), repro
    inferred = report.outputs["y"][0]
    for got in filter(None, runs.values()):
        assert inferred.rank is not None, repro
        assert all(g in d for g, d in zip(got, inferred.dims, strict=True)), repro


def test_a_gather_on_an_unbounded_dim_is_checked_but_no_problem(tmp_path: Path) -> None:
    # x[:, 7] of [3,?]: some size runs it; the output's dims are the data's around the index
    path = onnx_graphs.save(onnx_graphs.gather(7, 1, 2, 13), tmp_path)
    report = ir.read_onnx(path).check({"x": "[3,?]"})
    assert report.ok
    assert report.checked == {"Gather": 1}
    assert report.outputs["y"][0] == dm.PartialShape([3])
    (problem,) = ir.read_onnx(path).check({"x": "[3,2..7]"}).problems
    assert problem.message == (
        "Gather: indices=7 holds 7, out of range [-d, d - 1] of data.shape[1] = d for every d "
        "in 2..7: onnxruntime refuses it at run time"
    )


# PyTorch's indexing idioms exported (dynamo=False, every axis dynamic): a Gather of a constant
# index, or of one computed from the shape (Shape -> Gather -> Sub); the sizes at which
# onnxruntime refuses it (no columns; x[0] of no rows)
TORCH_INDEXING = {
    "x[:, -1]": (lambda x: x[:, -1], (2, 6)),
    "x[..., 2]": (lambda x: x[..., 2], (2, 6)),
    "x[0]": (lambda x: x[0], (2, 6)),
    "x[:, -2]": (lambda x: x[:, -2], (2, 6)),
    "x[1, :, 0]": (lambda x: x[1, :, 0], (2, 3, 4)),
    "x[:, x.shape[1] - 1]": (lambda x: x[:, x.shape[1] - 1], (2, 6)),
    "x[:, x.size(1) // 2]": (lambda x: x[:, x.size(1) // 2], (2, 6)),
    "x[x.shape[0] - 2, :, 1]": (lambda x: x[x.shape[0] - 2, :, 1], (2, 3, 4)),
}
_SIZES = [(2, 6), (3, 0), (0, 4), (4, 1), (1, 3)]


@pytest.mark.parametrize("name", list(TORCH_INDEXING))
def test_exported_torch_indexing_is_a_problem_where_onnxruntime_refuses_it(
    tmp_path: Path, name: str
) -> None:
    fn, example = TORCH_INDEXING[name]
    torch = pytest.importorskip("torch")

    class Fn(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return fn(x)

    model = onnx_graphs.torch_export(Fn(), example, tmp_path / "m.onnx")
    read = ir.read_onnx(tmp_path / "m.onnx")
    assert read.check().ok
    assert "Gather" in read.check().checked
    sizes = [s + example[2:] for s in _SIZES]
    for size, want in zip(sizes, onnx_graphs.ort_shapes(model, sizes), strict=True):
        report = read.check({"x": list(size)})
        try:  # PyTorch refuses where onnxruntime does (an IndexError)
            eager: tuple[int, ...] | None = tuple(fn(torch.zeros(size)).shape)
        except IndexError:
            eager = None
        assert eager == want, (name, size)
        assert report.ok == (want is not None), (name, size, report.problems)
        if want is None:
            assert {p.layer_type for p in report.problems} == {"Gather"}, report.problems
            continue
        (output,) = model.graph.output
        assert report.outputs[output.name][0] == dm.PartialShape(list(want)), (name, size)


def test_a_gather_of_a_shape_stays_a_shape_subgraph_s(tmp_path: Path) -> None:
    # Shape -> Gather(-1) -> Unsqueeze -> Slice's end: the Gather's value is x.shape[1], it is
    # opaque in the counts (a shape subgraph's node), and an index out of the shape's range is
    # a note, as before; the Slice is checked on the value
    init = [onnx.numpy_helper.from_array(np.asarray(v, np.int64), n) for n, v in
            [("k", -1), ("far", 5), ("zero", [0]), ("ax", [0])]]  # fmt: skip
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "k"], ["n"], name="last"),
        helper.make_node("Gather", ["s", "far"], ["m"], name="far"),
        helper.make_node("Unsqueeze", ["n", "ax"], ["e"]),
        helper.make_node("Slice", ["x", "zero", "e", "zero"], ["y"], name="cut"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["a", "b"])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": [6, 4]})
    assert report.ok
    assert report.checked == {"Slice": 1}
    assert report.opaque == {"Shape": 1, "Gather": 2, "Unsqueeze": 1}
    assert report.outputs["y"][0] == dm.PartialShape([4, 4])  # x[:x.shape[1]]
    (note,) = report.notes
    assert (note.kind, note.layer_name) == ("shape-subgraph", "far")


def test_a_gather_in_a_branch_is_checked_there(tmp_path: Path) -> None:
    # If(c) then Gather(x, -1, axis 1) of the outer x, else x: at [3,0] the branch's Gather is
    # a problem of the If, counted checked in the branch's nodes (as at [3,4], where it is OK)
    f32 = onnx.TensorProto.FLOAT
    k = onnx.numpy_helper.from_array(np.asarray(-1, np.int64), "k")
    take = helper.make_node("Gather", ["x", "k"], ["w"], name="take", axis=1)
    out = [helper.make_tensor_value_info("w", f32, None)]
    then = helper.make_graph([take], "t", [], out, [k])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["w"])], "e", [], out)
    branch = helper.make_node("If", ["c"], ["y"], name="if", then_branch=then, else_branch=other)
    inputs = [
        helper.make_tensor_value_info("x", f32, ["a", "b"]),
        helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
    ]
    graph = helper.make_graph(
        [branch], "g", inputs, [helper.make_tensor_value_info("y", f32, None)]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    assert read.check({"x": [3, 4]}).ok
    report = read.check({"x": [3, 0]})
    assert report.inner == {"Gather": 1}
    (problem,) = report.problems
    assert problem.layer_name == "if"
    assert problem.message == (
        "its then_branch's node 'take' (Gather): Gather: indices=-1 holds -1, out of range "
        "[0, -1] of data.shape[1] = 0: onnxruntime refuses it at run time"
    )
    c = np.asarray(True)
    assert onnx_graphs.ort_error(model) is None
    with pytest.raises(Exception, match="indices element out of data bounds"):
        onnx_graphs.ort_session(model).run(None, {"x": np.zeros((3, 0), np.float32), "c": c})


# An index a shape subgraph computes, Shape(x)[dim] op c: torch's x[:, x.shape[1] - 1]
_OFFSETS = {"Add": st.integers(-4, 4), "Sub": st.integers(-4, 4), "Mul": st.integers(-2, 2)}
_OFFSETS["Div"] = st.sampled_from([-3, -2, -1, 1, 2, 3])  # (by 0 it fails: no value, a note)
_terms = st.sampled_from(sorted(_OFFSETS)).flatmap(
    lambda op: st.tuples(st.integers(0, 2), st.just(op), _OFFSETS[op])
)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes, st.one_of(_terms, st.lists(_terms, min_size=1, max_size=2)), st.integers(-3, 2))
def test_a_gather_of_computed_indices_is_a_problem_only_where_no_size_runs(
    tmp_path_factory: Any, box: list[tuple[int, int]], terms: Any, axis: int
) -> None:
    rank = len(box)
    axis = axis % rank if -rank <= axis < rank else axis
    terms = (terms[0] % rank, *terms[1:]) if isinstance(terms, tuple) else terms
    terms = terms if isinstance(terms, tuple) else [(d % rank, op, c) for d, op, c in terms]
    model = onnx_graphs.computed_gather(terms, axis, rank)
    report, text, runs = onnx_graphs.check_box(model, box, tmp_path_factory.mktemp("gather"))
    repro = f"computed_gather({terms}, {axis}, {rank}) on {text}: {report.problems}"
    runs_some = any(got is not None for got in runs.values())
    assert runs_some <= report.ok, repro  # sound: a problem only where no size runs
    # exact where the index's bounds say all: a scalar of another dim than the axis's (its
    # values, a monotone function of that dim, reach each end), or the axis's own dim times a
    # k plus c (x.shape[1]*2 never runs), but divided (no linear expression)
    own = isinstance(terms, tuple) and terms[0] == axis % rank
    if isinstance(terms, tuple) and (not own or terms[1] != "Div"):
        assert report.ok == runs_some, repro
    if -rank <= axis < rank:
        assert report.checked.get("Gather") == 1, repro  # not opaque
    inferred = report.outputs["y"][0]
    for size, got in runs.items():
        if got is None:  # onnx.reference too, but where NumPy takes no element
            reference = onnx_graphs.reference_shape(model, size)
            assert reference is None or 0 in reference, repro
            continue
        assert onnx_graphs.reference_shape(model, size) == got, repro
        assert inferred.rank is not None, repro
        assert all(g in d for g, d in zip(got, inferred.dims, strict=True)), repro


# x[:, index] at x of a shape no size of which runs it: (terms, shape, check's message)
_NEVER_RUNS = {
    "x[:, x.shape[1]]": (
        (1, "Add", 0),
        "[3,?]",
        (
            "indices='x.shape[1]' holds x.shape[1], out of range [-d, d - 1] of data.shape[1] = d "
            "for every d in ?"
        ),
    ),
    "x[:, x.shape[1] - 5] of 1..2": (
        (1, "Sub", 5),
        "[3,1..2]",
        (
            "indices='x.shape[1]-5' holds x.shape[1]-5, out of range [-d, d - 1] of data.shape[1] "
            "= d for every d in 1..2"
        ),
    ),
    "x[:, x.shape[0] + 2] of 1..3,0..2": (
        (0, "Add", 2),
        "[1..3,0..2]",
        (
            "indices='x.shape[0]+2' holds x.shape[0]+2, within 3..5, out of range [-d, d - 1] of "
            "data.shape[1] = d for every d in ..2"
        ),
    ),
    "x[:, x.shape[1] * 2]": (
        (1, "Mul", 2),
        "[3,?]",
        (
            "indices='x.shape[1]*2' holds x.shape[1]*2, out of range [-d, d - 1] of "
            "data.shape[1] = d for every d in ?"
        ),
    ),
    "x[:, x.shape[1] * -2]": (
        (1, "Mul", -2),
        "[3,?]",
        (
            "indices='x.shape[1]*(-2)' holds x.shape[1]*(-2), out of range [-d, d - 1] of "
            "data.shape[1] = d for every d in ?"
        ),
    ),
    "x[:, x.shape[0] / -1] of 1..3,0": (  # truncated: no expression, its bounds alone
        (0, "Div", -1),
        "[1..3,0]",
        ("indices='-3..-1' holds a value within -3..-1, out of range [0, -1] of data.shape[1] = 0"),
    ),
}


@pytest.mark.parametrize("name", list(_NEVER_RUNS))
def test_a_computed_index_no_size_runs_is_a_problem(tmp_path: Path, name: str) -> None:
    terms, shape, message = _NEVER_RUNS[name]
    model = onnx_graphs.computed_gather(terms, 1, 2)
    (problem,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": shape}).problems
    assert (problem.kind, problem.layer_name) == ("operator", "take")
    assert problem.message == f"Gather: {message}: onnxruntime refuses it at run time"
    smallest = tuple(d.min for d in dm.PartialShape.parse(shape).dims)  # onnxruntime refuses
    assert onnx_graphs.ort_shapes(model, [smallest]) == [None]


def test_a_computed_index_in_a_function_is_read_by_its_bounds_alone(tmp_path: Path) -> None:
    # F(i, x) = Gather(x, i, axis=1), called with i = x.shape[1] of the caller's x and F's x the
    # caller's z: the index's term names the caller's x, not F's, so it is not x.shape[1] of
    # the data (which never runs): z of [2,5] takes column 3 of x of [2,3]
    f32 = onnx.TensorProto.FLOAT
    take = helper.make_node("Gather", ["x", "i"], ["y"], name="take", axis=1)
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)]
    func = helper.make_function("local", "F", ["i", "x"], ["y"], [take], opsets[:1])
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["n"], axis=0),
        helper.make_node("F", ["n", "z"], ["y"], domain="local", name="call"),
    ]
    one = onnx.numpy_helper.from_array(np.asarray(1, np.int64), "one")
    inputs = [helper.make_tensor_value_info(n, f32, [2, None]) for n in "xz"]
    out = [helper.make_tensor_value_info("y", f32, None)]
    graph = helper.make_graph(nodes, "g", inputs, out, [one])
    model = helper.make_model(graph, opset_imports=opsets, functions=[func])
    model.ir_version = 8
    feed = {"x": np.zeros((2, 3), np.float32), "z": np.zeros((2, 5), np.float32)}
    assert onnx_graphs.ort_session(model).run(None, feed)[0].shape == (2,)
    path = onnx_graphs.save(model, tmp_path)
    report = ir.read_onnx(path).check({"x": "[2,1..4]", "z": "[2,1..6]"})
    assert report.ok, report.problems
    assert report.inner == {"Gather": 1}
    (problem,) = ir.read_onnx(path).check({"x": "[2,3..4]", "z": "[2,1..3]"}).problems
    assert problem.message == (
        "its function local.F's node 'take' (Gather): Gather: indices='x.shape[1]' holds "
        "x.shape[1], within 3..4, out of range [-d, d - 1] of data.shape[1] = d for every d in "
        "1..3: onnxruntime refuses it at run time"
    )


def test_a_linear_computed_index_runs_on_a_run_of_sizes_alone(tmp_path: Path) -> None:
    # x[:, 2 * x.shape[1] - 3] is in [-d, d - 1] at d of 1 and 2 alone: a problem from 3 on
    consts = {"one": 1, "two": 2, "three": 3}
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["n"], axis=0),
        helper.make_node("Mul", ["n", "two"], ["m"]),
        helper.make_node("Sub", ["m", "three"], ["i"]),
        helper.make_node("Gather", ["x", "i"], ["y"], axis=1, name="take"),
    ]
    inits = [onnx.numpy_helper.from_array(np.asarray(v, np.int64), n) for n, v in consts.items()]
    model = onnx_graphs.gather(0, 1, 2, 13)
    model.graph.ClearField("node")
    model.graph.ClearField("initializer")
    model.graph.node.extend(nodes)
    model.graph.initializer.extend(inits)
    sizes = [(2, d) for d in range(6)]
    assert onnx_graphs.ort_shapes(model, sizes) == [None, (2,), (2,), None, None, None]
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    assert read.check({"x": "[2,?]"}).ok
    assert read.check({"x": "[2,2..]"}).ok
    (problem,) = read.check({"x": "[2,3..]"}).problems
    assert problem.message == (
        "Gather: indices='x.shape[1]*2-3' holds x.shape[1]*2-3, out of range [-d, d - 1] of "
        "data.shape[1] = d for every d in 3..: onnxruntime refuses it at run time"
    )


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _boxes,
    st.integers(-3, 3),
    st.integers(-5, 5),
    st.sampled_from(["d*k+c", "k*d+c", "c-k*d"]),
    st.integers(0, 2),
)
def test_a_computed_index_linear_in_the_axis_s_own_dim_is_weighed_exactly(
    tmp_path_factory: Any, box: list[tuple[int, int]], k: int, c: int, form: str, axis: int
) -> None:
    # x[:, 2 * x.shape[1] - 3], x[:, x.shape[1] * -2], x[:, 1 - x.shape[1]]: a multiplier of
    # any sign, written first or second, the dim subtracted: a problem exactly where no size
    # of the box runs it
    axis %= len(box)
    model = onnx_graphs.linear_gather((k, c, form), axis, len(box))
    report, text, runs = onnx_graphs.check_box(model, box, tmp_path_factory.mktemp("linear"))
    repro = f"linear_gather({k}, {c}, {form!r}, {axis}, {len(box)}) on {text}: {report.problems}"
    assert report.ok == any(got is not None for got in runs.values()), repro


_linear = st.tuples(
    st.integers(-3, 3), st.integers(-5, 5), st.sampled_from(["d*k+c", "k*d+c", "c-k*d"])
)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes, st.lists(_linear, min_size=1, max_size=3), st.integers(0, 2))
def test_a_1d_computed_index_whose_elements_fit_apart_is_weighed_at_one_size(
    tmp_path_factory: Any, box: list[tuple[int, int]], elements: Any, axis: int
) -> None:
    # x[:, [2 * x.shape[1] - 3, x.shape[1] - 5]]: each element fits some sizes (1..2; 3..),
    # but no size takes both: a problem exactly where no size of the box runs it
    axis %= len(box)
    model = onnx_graphs.linear_gather(elements, axis, len(box))
    report, text, runs = onnx_graphs.check_box(model, box, tmp_path_factory.mktemp("linear"))
    repro = f"linear_gather({elements}, {axis}, {len(box)}) on {text}: {report.problems}"
    assert report.ok == any(got is not None for got in runs.values()), repro


def test_elements_that_fit_apart_but_at_no_one_size_are_a_problem(tmp_path: Path) -> None:
    # 2*d - 3 is in [-d, d - 1] at d of 1 and 2, d - 5 from 3 on, 7 from 8 on: apart each
    # runs, together none does
    elements = [(2, -3, "k*d+c"), (1, -5, "d*k+c")]
    model = onnx_graphs.linear_gather(elements, 1, 2)
    sizes = [(2, d) for d in range(8)]
    assert onnx_graphs.ort_shapes(model, sizes) == [None] * 8
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (problem,) = read.check({"x": "[2,?]"}).problems
    assert problem.message == (
        "Gather: indices='[2*x.shape[1]-3, x.shape[1]-5]' holds elements each in range "
        "[-d, d - 1] of data.shape[1] = d at some d in ?, but at no one d (1..2, 3..): "
        "onnxruntime refuses it at run time"
    )
    assert onnx_graphs.ort_shapes(onnx_graphs.linear_gather(elements[:1], 1, 2), sizes[1:3]) == [
        (2, 1),
        (2, 1),
    ]


# Range(start, limit, delta) of ends computed from dims: torch's x[:, torch.arange(n - 2)]
_ends = st.one_of(st.integers(-4, 4), _terms.filter(lambda t: t[1] != "Div"))
_deltas = st.one_of(st.sampled_from([-2, -1, 1, 2, 3]), _terms.filter(lambda t: t[1] == "Add"))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes, _ends, _ends, _deltas, st.integers(-2, 2))
def test_a_gather_of_a_range_of_unknown_length_is_a_problem_only_where_no_size_runs(
    tmp_path_factory: Any, box: list[tuple[int, int]], start: Any, limit: Any, delta: Any, axis: int
) -> None:
    rank = len(box)
    axis %= rank
    ends = [e if isinstance(e, int) else (e[0] % rank, *e[1:]) for e in (start, limit, delta)]
    model = onnx_graphs.range_gather(ends, axis, rank)
    report, text, runs = onnx_graphs.check_box(model, box, tmp_path_factory.mktemp("range"))
    repro = f"range_gather({ends}, {axis}, {rank}) on {text}: {report.problems}"
    runs_some = any(got is not None for got in runs.values())
    assert runs_some <= report.ok, repro  # sound: a problem only where no size runs
    if not report.ok:
        assert {p.layer_type for p in report.problems} == {"Gather"}, repro
    inferred = report.outputs["y"][0]
    for got in filter(None, runs.values()):
        assert inferred.rank is not None, repro
        assert all(g in d for g, d in zip(got, inferred.dims, strict=True)), repro
    if ends[2] in (1, -1) and all(isinstance(e, int) or e[0] == axis for e in ends[:2]):
        assert report.ok == runs_some, repro  # exact: the ends linear in the axis's own dim
    computed = [e for e in ends if not isinstance(e, int)]
    if all(runs.values()) and isinstance(ends[2], int) and len(computed) <= 1:
        # one end computed (a monotone function of one dim, reaching each of its bounds),
        # delta known: the inferred length is exactly the least and greatest of the runs'
        lengths = [got[axis] for got in runs.values() if got is not None]
        assert inferred.dims[axis] == dm.Dimension(min(lengths), max(lengths)), repro


def test_exported_torch_arange_indexing_is_read_by_the_range_s_bounds(tmp_path: Path) -> None:
    # x[:, torch.arange(x.shape[1] - 2)] exported on dynamic axes: Shape -> Gather -> Sub ->
    # Cast -> Range -> Gather; its output's dim the Range's length, max(x.shape[1] - 2, 0)
    torch = pytest.importorskip("torch")

    class Fn(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x[:, torch.arange(x.shape[1] - 2)]

    model = onnx_graphs.torch_export(Fn(), (2, 6), tmp_path / "m.onnx")
    read = ir.read_onnx(tmp_path / "m.onnx")
    sizes = [(2, d) for d in range(3, 6)]
    assert onnx_graphs.ort_shapes(model, sizes) == [(2, 1), (2, 2), (2, 3)]
    report = read.check({"x": "[2,3..5]"})
    assert report.checked == {"Gather": 1}
    (output,) = model.graph.output
    assert report.outputs[output.name][0] == dm.PartialShape("[2,1..3]")
    assert read.check({"x": "[2,0..2]"}).outputs[output.name][0] == dm.PartialShape([2, 0])


def test_a_range_never_empty_and_out_of_range_is_a_problem(tmp_path: Path) -> None:
    # x[:, arange(5, x.shape[0] + 9)] of x of [1..3,1..4]: never empty, its first value 5 out
    # of range of every size of the axis; of [1..3,6] it runs
    model = onnx_graphs.range_gather([5, (0, "Add", 9), 1], 1, 2)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (problem,) = read.check({"x": "[1..3,1..4]"}).problems
    assert (problem.kind, problem.layer_name) == ("operator", "take")
    assert problem.message == (
        "Gather: indices='Range(5, x.shape[0]+9, 1)' holds its first value 5, of 5..7 values, "
        "out of range [-d, d - 1] of data.shape[1] = d for every d in 1..4: onnxruntime refuses it"
    )
    assert onnx_graphs.ort_shapes(model, [(1, 4), (3, 1)]) == [None, None]
    assert read.check({"x": "[1..3,6..20]"}).ok


def test_a_range_of_the_axis_s_own_dim_is_weighed_exactly(tmp_path: Path) -> None:
    # torch.arange(x.shape[1] + 1) and arange(x.shape[1], -1, -1) take column x.shape[1] at
    # every size (PyTorch cannot trace them: no size runs); arange(x.shape[1] - 1, -1, -1), the
    # columns reversed, runs at every size
    torch = pytest.importorskip("torch")
    never = {
        "torch.arange(x.shape[1] + 1)": ([0, (1, "Add", 1), 1], "Range(0, x.shape[1]+1, 1)"),
        "torch.arange(x.shape[1], -1, -1)": (
            [(1, "Add", 0), -1, -1],
            "Range(x.shape[1], -1, -1)",
        ),
    }
    sizes = [(2, d) for d in range(6)]
    for name, (ends, shown) in never.items():
        with pytest.raises(IndexError):
            torch.zeros(2, 3)[:, eval(name, {"torch": torch, "x": torch.zeros(2, 3)})]  # noqa: S307
        model = onnx_graphs.range_gather(ends, 1, 2)
        assert onnx_graphs.ort_shapes(model, sizes) == [None] * 6, name
        (problem,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": "[2,?]"}).problems
        assert problem.message == (
            f"Gather: indices={shown!r} is not empty and holds a value out of range [-d, d - 1] "
            "of data.shape[1] = d for every d in ?: onnxruntime refuses it at run time"
        )

    class Flip(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x[:, torch.arange(x.shape[1] - 1, -1, -1)]

    model = onnx_graphs.torch_export(Flip(), (2, 3), tmp_path / "flip.onnx")
    assert onnx_graphs.ort_shapes(model, sizes) == sizes
    report = ir.read_onnx(tmp_path / "flip.onnx").check({"x": "[2,1..5]"})
    assert report.ok, report.problems
    (output,) = model.graph.output
    assert report.outputs[output.name][0] == dm.PartialShape("[2,1..5]")


def _gather_nd(indices: Any, rank: int, batch_dims: int | None, perm: Any = False) -> Any:
    """``x`` of ``rank`` symbolic dims -> GatherND(x, i) -> y; ``perm`` other than ``False``: a
    Transpose of that ``perm`` (``None``: none given) before it, the dynamo exporter's form of
    ``x[:, [0, 2]]``."""
    value = np.asarray(indices, np.int64)
    attrs = {} if batch_dims is None else {"batch_dims": batch_dims}
    nodes = [helper.make_node("GatherND", ["t" if perm is not False else "x", "i"], ["y"],
                              name="take", **attrs)]  # fmt: skip
    if perm is not False:
        attrs = {} if perm is None else {"perm": perm}
        nodes.insert(0, helper.make_node("Transpose", ["x"], ["t"], name="turn", **attrs))
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info(
                "x", onnx.TensorProto.FLOAT, [f"d{k}" for k in range(rank)]
            )
        ],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(value, "i")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


_ND_SIZES = [(0, 3), (1, 3), (2, 0), (3, 2), (4, 4)]


@pytest.mark.parametrize(
    ("indices", "perm"),
    [
        ([[0], [2]], [1, 0]),  # x[:, [0, 2]] as torch.onnx.export(dynamo=True) writes it
        ([[1], [0]], False),  # x[[1, 0]]
        ([[-1]], None),  # x[:, [-1]], Transpose's default perm
        ([[[0]], [[-2]]], False),  # 3-D indices
        ([3], False),  # 1-D: a scalar index, the axis removed
        (np.zeros((0, 1), np.int64), False),  # no index: empty
    ],
    ids=str,
)
def test_a_gather_nd_that_is_a_gather_on_axis_0_is_checked_as_onnxruntime_runs_it(
    tmp_path: Path, indices: Any, perm: Any
) -> None:
    # GatherND of batch_dims 0 and indices [..., 1] takes data[i] for each i, a Gather on axis
    # 0: a problem exactly where onnxruntime refuses it (an index out of range), else its
    # shape; the Transpose before it read by its perm (fixed: both were opaque). onnx.reference
    # agrees, but where each slice data[i] is empty: there onnxruntime checks no index (pinned
    # by the test below)
    model = _gather_nd(indices, 2, 0, perm)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    assert read.check().checked == {"GatherND": 1} | ({"Transpose": 1} if perm is not False else {})
    for size, want in zip(_ND_SIZES, onnx_graphs.ort_shapes(model, _ND_SIZES), strict=True):
        report = read.check({"x": list(size)})
        reference = onnx_graphs.reference_shape(model, size)
        assert reference == want or (reference is None and want and 0 in want), (size, want)
        assert report.ok == (want is not None), (size, report.problems)
        if want is None:
            (problem,) = report.problems
            assert (problem.layer_type, problem.layer_name) == ("GatherND", "take")
            assert problem.message.startswith(f"GatherND: indices={np.asarray(indices).tolist()}")
            continue
        assert report.outputs["y"][0] == dm.PartialShape(list(want)), size
        (info,) = [i for i in read.explain(input_shapes={"x": list(size)}) if i["name"] == "take"]
        if info["numpy"] is None:  # an index out of range of empty slices: NumPy refuses it
            assert info["note"], info
            assert 0 in want, size
            continue
        data = np.arange(int(np.prod(size)), dtype=np.float32).reshape(size)
        data = data if perm is False else np.transpose(data, perm)
        (got,) = onnx_graphs.ort_session(model).run(None, {"x": np.arange(data.size,
            dtype=np.float32).reshape(size)})  # fmt: skip
        np.testing.assert_array_equal(eval(info["numpy"], {"np": np, "x": data}), got)  # noqa: S307


def test_a_gather_nd_out_of_range_names_its_indices(tmp_path: Path) -> None:
    model = _gather_nd([[0], [2]], 2, None, [1, 0])
    (problem,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": [3, 2]}).problems
    assert problem.message == (
        "GatherND: indices=[[0], [2]] holds 2, out of range [-2, 1] of data.shape[0] = 2: "
        "onnxruntime refuses it at run time"
    )
    assert onnx_graphs.ort_shapes(model, [(3, 2), (3, 3)]) == [None, (2, 3)]


@pytest.mark.parametrize(
    ("indices", "batch_dims"),
    [([[0, 1]], 0), ([[0], [1]], 1), ([0, 0], 0)],
    ids=["indices of 2 per row", "batch_dims 1", "1-D of 2"],
)
def test_any_other_gather_nd_is_opaque(tmp_path: Path, indices: Any, batch_dims: int) -> None:
    # a row of indices naming more than one axis, or batch dims: not one Gather; opaque, its
    # output as ONNX infers it, and no problem where onnxruntime refuses it
    model = _gather_nd(indices, 2, batch_dims)
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": [2, 2]})
    assert report.opaque == {"GatherND": 1}
    assert report.ok


def test_onnxruntime_runs_a_gather_nd_out_of_range_of_empty_slices(tmp_path: Path) -> None:
    # x[:, [0, 2]] of x [0,2] as the dynamo exporter writes it: GatherND(x.T, [[0], [2]]) of
    # data [2,0]. onnxruntime 1.32 checks no index where each slice data[i] is empty and gives
    # [2,0], as PyTorch gives [0,2] (its Gather checks every index: a problem where the output
    # is empty too); the spec ("It is an error if any of the index values are out of bounds")
    # and onnx.reference refuse index 2 of 2 rows. datamove says OK, as onnxruntime runs it;
    # with a row, where onnxruntime refuses it, a problem
    torch = pytest.importorskip("torch")
    model = _gather_nd([[0], [2]], 2, 0, [1, 0])
    assert onnx_graphs.ort_shapes(model, [(0, 2), (1, 2)]) == [(2, 0), None]
    assert onnx_graphs.reference_shape(model, (0, 2)) is None
    assert tuple(torch.zeros(0, 2)[:, [0, 2]].shape) == (0, 2)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    assert read.check({"x": [0, 2]}).outputs["y"][0] == dm.PartialShape([2, 0])
    assert read.check({"x": "[0..1,2]"}).ok  # (0 rows run it)
    (problem,) = read.check({"x": [1, 2]}).problems
    assert problem.message == (
        "GatherND: indices=[[0], [2]] holds 2, out of range [-2, 1] of data.shape[0] = 2: "
        "onnxruntime refuses it at run time"
    )


@pytest.mark.parametrize(
    ("ends", "axis", "text"),
    [
        ([0, (1, "Sub", 2), 1], 1, "x[:, :max(x.shape[1]-2, 0)]"),  # torch.arange(n - 2)
        ([0, (1, "Add", 0), 2], 1, "x[:, :x.shape[1]:2]"),  # torch.arange(0, n, 2)
        ([1, (0, "Mul", 2), 1], 1, "x[:, 1:x.shape[0]*2]"),
        ([(0, "Add", 0), 0, -1], 1, "x[:, x.shape[0]:0:-1]"),
        ([(0, "Add", 0), -1, -1], 1, "x[:, x.shape[0]::-1]"),
        ([(1, "Sub", 3), -1, -1], 1, "np.take(x, np.arange(x.shape[1]-3, -1, -1), axis=1)"),
        ([(1, "Sub", 1), -1, -1], 1, "np.take(x, np.arange(x.shape[1]-1, -1, -1), axis=1)"),
        ([(1, "Div", 2), 4, 1], 0, "x[x.shape[1]//2:4]"),
        ([-2, (1, "Sub", 1), 1], 1, "np.take(x, np.arange(-2, x.shape[1]-1, 1), axis=1)"),
        ([0, 3, (0, "Add", 1)], 1, "x[:, :3:x.shape[0]+1]"),  # a delta of 1..
        ([1, (1, "Add", 0), (0, "Add", 2)], 1, "x[:, 1:x.shape[1]:x.shape[0]+2]"),
        ([-1, 3, (0, "Add", 1)], 1, "np.take(x, np.arange(-1, 3, x.shape[0]+1), axis=1)"),
    ],
    ids=str,
)
def test_a_gather_of_a_range_of_unknown_length_is_explained_as_onnxruntime_runs_it(
    tmp_path: Path, ends: Any, axis: int, text: str
) -> None:
    # torch's x[:, torch.arange(x.shape[1] - 2)] exported with dynamo=False: Gather(x,
    # Range(...)) of unknown length; explain lists it (fixed: not listed; one of a delta
    # computed from dims, unbounded, neither), a slice where the Range is one at every size (a
    # delta of one sign, a start never negative, a limit never negative or -1 going down),
    # else np.take of np.arange; its text gives onnxruntime's output at every size it runs
    model = onnx_graphs.range_gather(ends, axis, 2)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (info,) = [i for i in read.explain() if i["name"] == "take"]
    assert (info["numpy"], info["note"]) == (text, None), info
    assert "Range(" in next(iter(info["runtime"].values()))
    session = onnx_graphs.ort_session(model)
    ran = 0
    for size in [(a, b) for a in range(5) for b in range(6)]:
        x = np.arange(int(np.prod(size)), dtype=np.float32).reshape(size)
        try:
            (want,) = session.run(None, {"x": x})
        except Exception:  # noqa: BLE001 - onnxruntime's Fail: an index out of range
            want = None
        if want is None:
            continue
        ran += 1
        got = eval(text, {"np": np, "x": x})  # noqa: S307 - explain's own text
        np.testing.assert_array_equal(got, want, err_msg=f"{text} at {size}")
    assert ran >= 5, ran  # (sizes that run: a Range of values in range)


def _arange_gather_nd(*, index_output: bool = False) -> Any:
    """``x[:, torch.arange(x.shape[1] - 2)]`` as the dynamo exporter writes it: Range ->
    Unsqueeze(-1) -> GatherND of ``x`` transposed -> Transpose; ``index_output``: the
    Unsqueeze's output an output of the graph too."""
    ints = [
        onnx.numpy_helper.from_array(np.asarray(v, np.int64), n)
        for n, v in (("one", 1), ("two", 2), ("zero", 0), ("last", [-1]))
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["n"], axis=0),
        helper.make_node("Sub", ["n", "two"], ["m"]),
        helper.make_node("Range", ["zero", "m", "one"], ["r"]),
        helper.make_node("Unsqueeze", ["r", "last"], ["u"], name="lift"),
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0], name="turn"),
        helper.make_node("GatherND", ["t", "u"], ["g"], name="take"),
        helper.make_node("Transpose", ["g"], ["y"], perm=[1, 0], name="back"),
    ]
    outputs = [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)]
    if index_output:
        outputs.append(helper.make_tensor_value_info("u", onnx.TensorProto.INT64, None))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["b", "w"])],
        outputs,
        ints,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def test_an_unsqueeze_of_a_range_that_only_indices_read_is_not_listed(tmp_path: Path) -> None:
    # the dynamo exporter's Unsqueeze(Range(...), [-1]) feeding a GatherND's indices computes
    # indices and moves no data: explain lists the GatherND (on the transposed x, named _x's
    # dims) and not the Unsqueeze (fixed: listed as a data Unsqueeze, x[:, None]); where the
    # Unsqueeze's output is an output of the graph too, it is listed
    model = _arange_gather_nd()
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    listed = {i["name"]: i for i in read.explain()}
    assert set(listed) == {"take"}, listed
    text = listed["take"]["numpy"]
    assert text == "x[:max(_x.shape[1]-2, 0)]"
    values = onnx_graphs.with_every_value_as_output(onnx.shape_inference.infer_shapes(model))
    session = onnx_graphs.ort_session(values)
    names = [o.name for o in session.get_outputs()]
    for size in [(2, w) for w in range(5)] + [(0, 3), (3, 1)]:
        x = np.arange(int(np.prod(size)), dtype=np.float32).reshape(size)
        got = dict(zip(names, session.run(None, {"x": x}), strict=True))
        evaluated = eval(text, {"x": got["t"], "_x": x})  # noqa: S307 - explain's own text
        np.testing.assert_array_equal(evaluated, got["g"], err_msg=str(size))
    shown = ir.read_onnx(onnx_graphs.save(_arange_gather_nd(index_output=True), tmp_path, "o"))
    assert {i["name"] for i in shown.explain()} == {"lift", "take"}


def test_a_range_of_a_delta_unbounded_above_is_read_by_its_bounds(tmp_path: Path) -> None:
    # x[:, torch.arange(0, 3, x.shape[0] + 1)]: a delta of 1.. takes 3, 2 or 1 columns, one
    # from a delta of 3 on (fixed: the Range's length unread, the Gather opaque, since the
    # delta is unbounded); on rows of 2.. it takes column 0 alone, so x of 1 column runs it
    # there, and never on rows of 0..1
    model = onnx_graphs.range_gather([0, 3, (0, "Add", 1)], 1, 2)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    report = read.check()
    assert report.checked == {"Gather": 1}
    assert report.outputs["y"][0] == dm.PartialShape("[?,1..3]")
    assert read.check({"x": "[2..,1..]"}).outputs["y"][0] == dm.PartialShape("[2..,1]")
    sizes = [(a, 3) for a in range(5)]
    assert onnx_graphs.ort_shapes(model, sizes) == [(0, 3), (1, 2), (2, 1), (3, 1), (4, 1)]
    sizes = [(a, 1) for a in range(4)]
    assert onnx_graphs.ort_shapes(model, sizes) == [None, None, (2, 1), (3, 1)]
    assert read.check({"x": "[?,1]"}).ok
    (problem,) = read.check({"x": "[0..1,1]"}).problems
    assert problem.message.startswith("Gather: indices='Range(0, 3, x.shape[0]+1)' holds")
