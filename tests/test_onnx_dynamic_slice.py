"""ONNX Slices of a run-time start and a constant length: ``ends = Add(starts, c)``.

datamove bounds the length by ``ceil(c / step)`` (`datamove.ir._offsets`); onnxruntime runs
each model at many (size, start) pairs, starts negative, past the dim and near INT64_MAX and
INT64_MIN, and every length lies in the interval, its top reached. Also the exporters' forms
of ``x.narrow(1, s, 4)`` and ``x[:, s:s+4]``, and a negative step, which stays unbounded as
onnxruntime runs it.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import Dimension, ir

onnx_graphs = pytest.importorskip("onnx_graphs")
onnx = onnx_graphs.onnx
helper, T, numpy_helper = onnx.helper, onnx.TensorProto, onnx.numpy_helper

I64_MAX, I64_MIN, I32_MAX = 2**63 - 1, -(2**63), 2**31 - 1
SIZES = [0, 1, 3, 4, 5, 9]
STARTS = [-12, -9, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 5, 8, 9, 12, I64_MAX - 1, I64_MIN + 1]


def _model(nodes: list[Any], inits: dict[str, list[int]], s_shape: list[int]) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", T.FLOAT, [2, "n"]),
            helper.make_tensor_value_info("s", T.INT64, s_shape),
        ],
        [helper.make_tensor_value_info("y", T.FLOAT, None)],
        [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _dim(model: Any, tmp_path: Path) -> Dimension:
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.ok, report.problems
    ((shape, _),) = report.outputs.values()
    assert shape[0] == Dimension(2)
    return shape[1]


def _lengths(model: Any, starts: list[int] = STARTS) -> set[int]:
    session = onnx_graphs.ort_session(model)
    s_rank = len(model.graph.input[1].type.tensor_type.shape.dim)
    got = set()
    for size, start in itertools.product(SIZES, starts):
        s = np.array([start] if s_rank else start, np.int64)
        (y,) = session.run(None, {"x": np.zeros((2, size), np.float32), "s": s})
        got.add(y.shape[1])
    return got


def _slice(stop: list[Any], step: int, start: str = "s") -> list[Any]:
    return [*stop, helper.make_node("Slice", ["x", start, "e", "axis", "step"], ["y"])]


@pytest.mark.parametrize(
    ("nodes", "step", "most"),
    [
        pytest.param([helper.make_node("Add", ["s", "c"], ["e"])], 1, 4, id="ends=s+4"),
        pytest.param([helper.make_node("Add", ["c", "s"], ["e"])], 1, 4, id="ends=4+s"),
        pytest.param([helper.make_node("Add", ["s", "c"], ["e"])], 3, 2, id="ends=s+4,step=3"),
        pytest.param([helper.make_node("Sub", ["s", "minus"], ["e"])], 1, 4, id="ends=s-(-4)"),
        pytest.param(
            [
                helper.make_node("Identity", ["s"], ["t"]),
                helper.make_node("Add", ["t", "c"], ["e"]),
            ],
            1,
            4,
            id="ends=Identity(s)+4",
        ),
    ],
)
def test_ends_of_starts_plus_c_bound_the_length_as_onnxruntime_runs_it(
    tmp_path: Path, nodes: list[Any], step: int, most: int
) -> None:
    inits = {"c": [4], "minus": [-4], "axis": [1], "step": [step]}
    model = _model(_slice(nodes, step), inits, [1])
    dim = _dim(model, tmp_path)
    assert dim == Dimension(0, most)
    got = _lengths(model)
    assert all(n in dim for n in got), sorted(got)
    assert max(got) == most


def test_a_negative_step_stays_unbounded_as_onnxruntime_reads_an_end_of_int32_max(
    tmp_path: Path,
) -> None:
    # ends = starts - 4, step -1: at most 4 by the spec, but onnxruntime reads an end of exactly
    # INT32_MAX as "to the first" (docs/dialects.md): starts = INT32_MAX + 4 takes the whole axis
    nodes = [helper.make_node("Sub", ["s", "c"], ["e"])]
    model = _model(_slice(nodes, -1), {"c": [4], "axis": [1], "step": [-1]}, [1])
    assert _dim(model, tmp_path).max is None
    assert max(_lengths(model, [I32_MAX + 4])) == max(SIZES)
    assert max(_lengths(model, [k for k in STARTS if k != I32_MAX + 4])) == 4


def test_ends_behind_the_starts_are_not_bounded(tmp_path: Path) -> None:
    # ends = starts - 2, step 1: starts 1, ends -1 takes all but two
    nodes = [helper.make_node("Add", ["s", "c"], ["e"])]
    model = _model(_slice(nodes, 1), {"c": [-2], "axis": [1], "step": [1]}, [1])
    assert _dim(model, tmp_path).max is None
    assert max(_lengths(model)) > 4


# the torch forms tests/dynamic_slices.py has, each exporter
EXPORTS = pytest.mark.parametrize(
    ("module", "dynamo"),
    [
        pytest.param("Narrow", False, id="x.narrow(1, s, 4)"),
        pytest.param("Sliced", False, id="x[:, s:s+4]"),
        pytest.param("Sliced", True, id="x[:, s:s+4],dynamo"),
    ],
)


@EXPORTS
def test_exported_torch_dynamic_slices_are_at_most_4_long(
    tmp_path: Path, module: str, dynamo: bool
) -> None:
    model = _export(module, dynamo, tmp_path)
    assert "Add" in [n.op_type for n in model.graph.node]
    assert _dim(model, tmp_path) == Dimension(0, 4)
    got = _lengths(model)
    assert max(got) == 4
    assert all(n <= 4 for n in got)


def _export(module: str, dynamo: bool, tmp_path: Path) -> Any:
    # (torch.export refuses x.narrow of a tensor start: "dynamo=True" exports only the slice)
    torch = pytest.importorskip("torch")
    dynamic_slices = pytest.importorskip("dynamic_slices")
    if dynamo:
        pytest.importorskip("onnxscript")
    path = tmp_path / "m.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            getattr(dynamic_slices, module)(),
            (torch.zeros(2, 10), torch.tensor(3)),
            path,
            dynamo=dynamo,
            input_names=["x", "s"],
            output_names=["y"],
            dynamic_shapes=({1: torch.export.Dim("n")}, {}) if dynamo else None,
            dynamic_axes=None if dynamo else {"x": {1: "n"}},
            verbose=False,
        )
    return onnx.load(path)


# around each end of i64 and i32, where the Add wraps or onnxruntime reads an i32 sentinel
EDGES = [
    *range(-20, 20),
    *(I64_MAX - k for k in range(10)),
    *(I64_MIN + k for k in range(10)),
    *(I32_MAX + k for k in range(-9, 9)),
    *(-I32_MAX + k for k in range(-9, 9)),
]


def _explained(model: Any, tmp_path: Path) -> tuple[str, dict[str, str]]:
    """The Slice's NumPy text and its run-time names, as explain gives them."""
    entries = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    (info,) = (e for e in entries if e["layer_type"] == "Slice")
    return info["numpy"], info["runtime"]


def _runs_as_onnxruntime(model: Any, text: str, name: str) -> None:
    """``text`` evaluated with NumPy (``name`` the starts' element) equals onnxruntime's output."""
    session = onnx_graphs.ort_session(model)
    s_rank = len(model.graph.input[1].type.tensor_type.shape.dim)
    for size, start in itertools.product(range(12), EDGES):
        x = np.arange(2 * size, dtype=np.float32).reshape(2, size)
        (y,) = session.run(None, {"x": x, "s": np.array([start] if s_rank else start, np.int64)})
        want = eval(text, {"x": x, name: start})  # noqa: S307 - explain's own text
        np.testing.assert_array_equal(want, y, err_msg=f"{size=} {start=}")


@pytest.mark.parametrize(
    ("nodes", "c", "step", "written"),
    [
        pytest.param([helper.make_node("Add", ["s", "c"], ["e"])], 4, 1, "s:s+4", id="s+4"),
        pytest.param([helper.make_node("Add", ["c", "s"], ["e"])], 4, 1, "s:s+4", id="4+s"),
        pytest.param([helper.make_node("Add", ["s", "c"], ["e"])], 4, 3, "s:s+4:3", id="step=3"),
        pytest.param([helper.make_node("Sub", ["s", "c"], ["e"])], -4, 1, "s:s+4", id="s-(-4)"),
        pytest.param(
            [
                helper.make_node("Identity", ["s"], ["t"]),
                helper.make_node("Add", ["t", "c"], ["e"]),
            ],
            4,
            1,
            "s:s+4",
            id="Identity(s)+4",
        ),
        # s - 2 past INT64_MIN wraps to an end past the dim; a negative step: INT32_MAX's quirk
        pytest.param([helper.make_node("Add", ["s", "c"], ["e"])], -2, 1, None, id="s-2"),
        pytest.param([helper.make_node("Sub", ["s", "c"], ["e"])], 4, -1, None, id="s-4,step=-1"),
    ],
)
def test_explain_writes_ends_of_starts_plus_c_as_onnxruntime_runs_them(
    tmp_path: Path, nodes: list[Any], c: int, step: int, written: str | None
) -> None:
    model = _model(_slice(nodes, step), {"c": [c], "axis": [1], "step": [step]}, [1])
    text, runtime = _explained(model, tmp_path)
    if written is None:
        assert sorted(runtime) == ["e", "s"], text  # the ends keep their own name
        return
    assert (text, list(runtime)) == (f"x[:, {written}]", ["s"])
    _runs_as_onnxruntime(model, text, "s")


@EXPORTS
def test_explain_writes_exported_torch_dynamic_slices_as_s_plus_4(
    tmp_path: Path, module: str, dynamo: bool
) -> None:
    model = _export(module, dynamo, tmp_path)
    text, runtime = _explained(model, tmp_path)
    (name,) = runtime
    assert text == f"x[:, {name}:{name}+4]"
    _runs_as_onnxruntime(model, text, name)
