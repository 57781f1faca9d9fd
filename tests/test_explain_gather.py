"""``explain`` of a data Gather of constant indices: the NumPy it prints does what the peer does.

PyTorch exports ``x[:, -1]`` as an ONNX Gather of a scalar index, ``openvino.convert_model`` as
a Gather-8. Explain writes a scalar index as a basic index, a 1-D progression as a slice where
that is exact, any other as ``np.take``: evaluated with NumPy on the input, each gives
onnxruntime's output (ONNX) and the CPU plugin's (IR), on the static shape and on the model's
dynamic one (the text for every size), over drawn shapes, axes and indices. An ONNX index
computed from the shape (``x[:, x.shape[1] - 1]``) is written as its expression.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datamove import ir
from datamove.cli import main
from strategies import examples

onnx_graphs = pytest.importorskip("onnx_graphs")
pytest.importorskip("onnxruntime")

_shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3)
_indices = st.one_of(
    st.integers(-5, 5),  # a scalar: x[:, i]
    st.lists(st.integers(-5, 5), max_size=4),  # 1-D: a progression (a slice) or not
    st.lists(st.lists(st.integers(-5, 5), min_size=2, max_size=2), min_size=1, max_size=2),
)


def _evaluated(text: str, x: np.ndarray) -> Any:
    return eval(text, {"np": np, "x": x})  # noqa: S307 - the expression under test


def _gather_of(model: Any, **shapes: Any) -> dict[str, Any]:
    (info,) = [i for i in model.explain(**shapes) if i["layer_type"] == "Gather"]
    return info


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_shapes, _indices, st.integers(-3, 2), st.sampled_from((1, 11, 13)))
def test_an_onnx_gather_s_numpy_is_what_onnxruntime_computes(
    tmp_path_factory: Any, shape: list[int], indices: Any, axis: int, opset: int
) -> None:
    if not -len(shape) <= axis < len(shape):
        return  # (an axis out of range: check's problem, tests/test_onnx_gather.py)
    model = onnx_graphs.gather(indices, axis, len(shape), opset)
    repro = f"Gather({shape}, {indices}, axis={axis}) opset {opset}"
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path_factory.mktemp("g")))
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    try:
        want = onnx_graphs.run_onnxruntime(model, x)["y"]
    except Exception:  # noqa: BLE001 - onnxruntime refuses an index out of range: so does check
        assert not read.check({"x": shape}).ok, repro
        return
    static = _gather_of(read, input_shapes={"x": shape})
    assert static["numpy"] is not None, (repro, static)
    np.testing.assert_array_equal(_evaluated(static["numpy"], x), want, err_msg=repro)
    # on the model's dynamic shape: one text for every size, NumPy raising where onnxruntime does
    dynamic = _gather_of(read)
    assert dynamic["numpy"] is not None, (repro, dynamic)
    np.testing.assert_array_equal(_evaluated(dynamic["numpy"], x), want, err_msg=repro)
    if np.ndim(indices) == 0:  # a basic index, as numpy_answer writes a shrunk one
        assert static["numpy"].startswith("x["), static
        assert "-" not in static["numpy"], static  # the position it takes on a static axis


@pytest.mark.parametrize(
    ("indices", "axis", "shape", "text"),
    [
        pytest.param(-1, 1, [2, 4], "x[:, 3]", id="x[:, -1] on 4 columns"),
        pytest.param(-1, 1, ["n", "m"], "x[:, -1]", id="x[:, -1] on a dynamic axis"),
        pytest.param(0, 0, ["n", 3], "x[0]", id="x[0]"),
        pytest.param(2, -1, [2, 3, 5], "x[:, :, 2]", id="x[..., 2]"),
        pytest.param([3, 2, 1, 0], 1, [2, 4], "x[:, ::-1]", id="a reversal"),
        pytest.param([1, 3], 0, [5], "x[1::2]", id="a stride"),
        pytest.param([0, 2], 0, [5], "x[:4:2]", id="a stride short of the end"),
        pytest.param([1], 0, ["n"], "np.take(x, [1], axis=0)", id="in range of some sizes"),
        pytest.param([-2, -1], 0, [5], "x[3:]", id="the last two"),
        pytest.param([], 0, ["n"], "x[:0]", id="none"),
        pytest.param([0, 0], 0, [3], "np.take(x, [0, 0], axis=0)", id="a repeat"),
        pytest.param([[1, 0]], 1, [2, 2], "np.take(x, [[1, 0]], axis=1)", id="2-D indices"),
    ],
)
def test_explain_writes_a_gather_as_numpy(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    indices: Any,
    axis: int,
    shape: list[Any],
    text: str,
) -> None:
    model = onnx_graphs.gather(indices, axis, len(shape), 13)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for d, size in zip(dims, shape, strict=True):
        if isinstance(size, int):
            d.dim_value = size
        else:
            d.dim_param = size
    path = onnx_graphs.save(model, tmp_path)
    assert main(["explain", str(path), "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert (info["layer_type"], info["numpy"], info["note"]) == ("Gather", text, None)
    assert info["values"] == {"indices": indices, "axis": axis}
    assert main(["explain", str(path), "--layer", "take"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"  {text}"


def test_a_gather_of_a_shape_is_not_listed(tmp_path: Path) -> None:
    # Shape -> Gather -> Reshape's shape: a shape subgraph's value, no data moved
    helper = onnx_graphs.helper
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i"], ["n"], axis=0),
        helper.make_node("Reshape", ["x", "n"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", onnx_graphs.F32, ["a", 3])],
        [helper.make_tensor_value_info("y", onnx_graphs.F32, None)],
        [onnx_graphs.numpy_helper.from_array(np.array([1, 0], np.int64), "i")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain() == []


_OFFSETS = {"Add": st.integers(-4, 4), "Sub": st.integers(-4, 4), "Mul": st.integers(-2, 2)}
_OFFSETS["Div"] = st.sampled_from([-2, 1, 2, 3])  # by a negative: truncated, not written
_terms = st.sampled_from(sorted(_OFFSETS)).flatmap(
    lambda op: st.tuples(st.integers(0, 2), st.just(op), _OFFSETS[op])
)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_shapes, st.one_of(_terms, st.lists(_terms, min_size=1, max_size=3)), st.integers(-3, 2))
def test_a_computed_gather_s_numpy_is_what_onnxruntime_computes(
    tmp_path_factory: Any, shape: list[int], terms: Any, axis: int
) -> None:
    # Gather(x, Shape(x)[dim] op c): explain writes the index as its expression on x, one text
    # for every size; NumPy counts it from the end and raises out of range, as onnxruntime
    rank = len(shape)
    if not -rank <= axis < rank:
        return  # (check's problem)
    each = [terms] if isinstance(terms, tuple) else terms
    each = [(d % rank, op, c) for d, op, c in each]
    model = onnx_graphs.computed_gather(each[0] if isinstance(terms, tuple) else each, axis, rank)
    repro = f"computed_gather({terms}, {axis}, {rank}) at {shape}"
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path_factory.mktemp("g")))
    listed = [i for i in read.explain() if i["layer_type"] == "Gather"]
    if all(c >= 0 or op != "Div" for _, op, c in each):  # each index an expression
        assert len(listed) == 1, (repro, listed)
    if not listed:
        return
    (info,) = listed
    assert info["numpy"] is not None, (repro, info)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    session = onnx_graphs.ort_session(model)
    try:
        (want,) = session.run(None, {"x": x})
    except Exception:  # noqa: BLE001 - onnxruntime refuses an index out of range
        try:  # so does NumPy, but np.take where it takes no element (as onnx.reference)
            got = _evaluated(info["numpy"], x)
        except IndexError:
            return
        assert got.size == 0, (repro, info["numpy"])
        assert not isinstance(terms, tuple), (repro, info["numpy"])  # np.take's, not x[:, i]
        return
    np.testing.assert_array_equal(_evaluated(info["numpy"], x), want, err_msg=repro)


@pytest.mark.parametrize(
    ("terms", "axis", "text"),
    [
        pytest.param((1, "Sub", 1), 1, "x[:, x.shape[1]-1]", id="x[:, x.shape[1] - 1]"),
        pytest.param((1, "Div", 2), -1, "x[:, x.shape[1]//2]", id="x[..., x.shape[1] // 2]"),
        pytest.param((1, "Sub", 2), 0, "x[x.shape[1]-2]", id="x[x.shape[1] - 2]"),
        pytest.param(
            [(0, "Add", 0), (1, "Sub", 1)],
            1,
            "np.take(x, [x.shape[0], x.shape[1]-1], axis=1)",
            id="a 1-D index",
        ),
    ],
)
def test_explain_writes_a_computed_index_as_its_expression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], terms: Any, axis: int, text: str
) -> None:
    path = onnx_graphs.save(onnx_graphs.computed_gather(terms, axis, 2), tmp_path)
    assert main(["explain", str(path), "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert (info["layer_type"], info["numpy"], info["note"]) == ("Gather", text, None)
    assert info["values"] == {"axis": axis}
    assert list(info["expressions"]) == ["indices"]
    assert main(["explain", str(path), "--layer", "take"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"  {text}"
