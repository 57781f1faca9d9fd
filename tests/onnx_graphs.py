"""Small ONNX graphs made with ``onnx.helper``, for tests/test_onnx_models.py and
tests/ir/test_converted_onnx.py: Split-13/18, Slice with negative steps and INT64 sentinels,
Concat, among opaque nodes (MatMul, Add, Relu).

Each builder takes the input shape (ints, or names for symbolic dims) and returns a model whose
``value_info`` ONNX's shape inference filled in: the "declared" shapes a checker compares with.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402 - after the skip

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
INT32_MAX = 2**31 - 1
F32 = TensorProto.FLOAT
MOVES = ("Slice", "Split", "Concat")


def _ints(name: str, values: list[int], dtype: Any = np.int64) -> Any:
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def _model(
    nodes: list[Any],
    shape: list[Any],
    outputs: list[str],
    inits: list[Any],
    opset: int,
) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F32, shape)],
        [helper.make_tensor_value_info(o, F32, None) for o in outputs],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)


def split13_concat(shape: list[Any]) -> Any:
    """x.split([1, 3], dim=1) reversed and joined, plus a MatMul on the last axis."""
    c = int(shape[2])  # static: the MatMul's weights
    w = numpy_helper.from_array(np.linspace(-1, 1, c * c, dtype=np.float32).reshape(c, c), "w")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"], name="mm"),
        helper.make_node("Split", ["m", "lens"], ["a", "b"], name="split13", axis=1),
        helper.make_node("Concat", ["b", "a"], ["y"], name="join", axis=1),
    ]
    return _model(nodes, shape, ["y"], [w, _ints("lens", [1, 3])], 13)


def split18(shape: list[Any]) -> Any:
    """Split-18 num_outputs=3 on the last axis (7: 3, 3, 1), each part through Relu or Add."""
    nodes = [
        helper.make_node("Split", ["x"], ["p0", "p1", "p2"], name="thirds", axis=-1, num_outputs=3),
        helper.make_node("Relu", ["p0"], ["y0"], name="relu"),
        helper.make_node("Add", ["p1", "p1"], ["y1"], name="add"),
        helper.make_node("Concat", ["p2", "p2"], ["y2"], name="twice", axis=-1),
    ]
    return _model(nodes, shape, ["y0", "y1", "y2"], [], 18)


def slices(shape: list[Any]) -> Any:
    """Slices with negative steps and INT64/INT32 sentinels, a Concat of two of them."""
    nodes = [
        # x[::-1] on axis 0: the end INT64_MIN, "to the start"
        helper.make_node("Slice", ["x", "s0", "e0", "a0", "k0"], ["r"], name="flip0"),
        # x[:, 1:] on axis 1, the end INT64_MAX; x[..., ::2] the end INT32_MAX (int32 inputs)
        helper.make_node("Slice", ["r", "s1", "e1", "a1"], ["t"], name="from1"),
        helper.make_node("Slice", ["t", "s2", "e2", "a2", "k2"], ["u"], name="evens"),
        # x[:, 1:, -2::-2]: ends INT64_MAX and INT64_MIN
        helper.make_node("Slice", ["x", "s3", "e3", "a3", "k3"], ["v"], name="back2"),
        helper.make_node("Concat", ["u", "v"], ["y"], name="join", axis=2),
        helper.make_node("Add", ["y", "y"], ["z"], name="double"),
    ]
    inits = [
        _ints("s0", [-1]),
        _ints("e0", [INT64_MIN]),
        _ints("a0", [0]),
        _ints("k0", [-1]),
        _ints("s1", [1]),
        _ints("e1", [INT64_MAX]),
        _ints("a1", [-2]),
        _ints("s2", [0], np.int32),
        _ints("e2", [INT32_MAX], np.int32),
        _ints("a2", [2], np.int32),
        _ints("k2", [2], np.int32),
        _ints("s3", [1, -2]),
        _ints("e3", [INT64_MAX, INT64_MIN]),
        _ints("a3", [1, 2]),
        _ints("k3", [1, -2]),
    ]
    return _model(nodes, shape, ["z"], inits, 13)


def constant_nodes(shape: list[Any]) -> Any:
    """Slice parameters from Constant nodes, Slice-10 (opset 10), and a Concat of three."""
    nodes = [
        helper.make_node("Constant", [], ["st"], value=_ints("v", [-3])),
        helper.make_node("Constant", [], ["en"], value=_ints("v", [-INT64_MAX])),
        helper.make_node("Constant", [], ["ax"], value=_ints("v", [-1])),
        helper.make_node("Constant", [], ["sp"], value=_ints("v", [-1])),
        helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["a"], name="tail_rev"),
        helper.make_node("Concat", ["a", "x", "a"], ["y"], name="sandwich", axis=1),
    ]
    return _model(nodes, shape, ["y"], [], 10)


def old_opsets(shape: list[Any]) -> Any:
    """Opset 9: Slice-1 (attributes), Split-2 with and without split, Concat-4."""
    nodes = [
        helper.make_node(
            "Slice", ["x"], ["y"], name="slice1", starts=[1, 0], ends=[INT64_MAX, -1], axes=[0, 2]
        ),
        helper.make_node("Split", ["x"], ["a", "b"], name="split2", axis=1, split=[1, 3]),
        helper.make_node("Concat", ["b", "a"], ["z"], name="join", axis=1),
        helper.make_node("Split", ["x"], ["p", "q", "r"], name="thirds", axis=0),
        helper.make_node("Add", ["p", "r"], ["w"], name="add"),
    ]
    return _model(nodes, shape, ["y", "z", "q", "w"], [], 9)


GRAPHS = {
    "split-13, concat, matmul": (split13_concat, [2, 4, 3]),
    "split-18 num_outputs, relu, add": (split18, [2, 3, 7]),
    "slices: negative steps, sentinels": (slices, [3, 4, 6]),
    "constant nodes, slice-10": (constant_nodes, [2, 5]),
    "slice-1, split-2 (opset 9)": (old_opsets, [3, 4, 5]),
}


def one_slice(
    shape: list[Any], starts: list[int], ends: list[int], axes: list[int], steps: list[int]
) -> Any:
    """One Slice-13 ``y`` of ``x``, its four parameters initializers."""
    inits = [_ints(n, v) for n, v in zip("seak", (starts, ends, axes, steps), strict=True)]
    node = helper.make_node("Slice", ["x", "s", "e", "a", "k"], ["y"], name="slice")
    return _model([node], shape, ["y"], inits, 13)


def gather(indices: Any, axis: int, rank: int, opset: int) -> Any:
    """``x`` of ``rank`` symbolic dims -> Gather(x, i, axis) -> y, ``i`` an int64 initializer."""
    value = np.asarray(indices, np.int64)
    dims = [f"d{k}" for k in range(rank)]
    node = helper.make_node("Gather", ["x", "i"], ["y"], name="take", axis=axis)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(value, "i")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def linear_gather(elements: Any, axis: int, rank: int) -> Any:
    """``x`` of ``rank`` symbolic dims -> Gather(x, i, axis) -> y, ``i`` linear in the axis's own
    dim ``d = Shape(x)[axis]``, as a shape subgraph writes it: ``elements`` one ``(k, c, form)``
    (a scalar index) or a list of them (1-D), ``form`` ``"d*k+c"`` (Mul(d, k), Add),
    ``"k*d+c"`` (Mul(k, d), Add) or ``"c-k*d"`` (Mul(k, d), Sub(c, .))."""
    scalar = isinstance(elements, tuple)
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "a"], ["n"], axis=0),
    ]
    inits = [numpy_helper.from_array(np.asarray(axis, np.int64), "a"), _ints("z", [0])]
    for e, (k, c, form) in enumerate([elements] if scalar else elements):
        for name, v in ((f"k{e}", k), (f"c{e}", c)):
            inits.append(numpy_helper.from_array(np.asarray(v, np.int64), name))
        times = ["n", f"k{e}"] if form == "d*k+c" else [f"k{e}", "n"]
        nodes.append(helper.make_node("Mul", times, [f"m{e}"]))
        if form == "c-k*d":
            nodes.append(helper.make_node("Sub", [f"c{e}", f"m{e}"], [f"t{e}"]))
        else:
            nodes.append(helper.make_node("Add", [f"m{e}", f"c{e}"], [f"t{e}"]))
        nodes.append(helper.make_node("Unsqueeze", [f"t{e}", "z"], [f"u{e}"]))
    count = 1 if scalar else len(elements)
    if not scalar:
        nodes.append(helper.make_node("Concat", [f"u{e}" for e in range(count)], ["i"], axis=0))
    return _taking(nodes, inits, "t0" if scalar else "i", axis, rank)


def _taking(nodes: list[Any], inits: list[Any], index: str, axis: int, rank: int) -> Any:
    """The model of ``nodes`` (computing ``index`` from ``x``) then Gather(x, index, axis) -> y,
    ``x`` of ``rank`` symbolic dims, at opset 13."""
    nodes.append(helper.make_node("Gather", ["x", index], ["y"], axis=axis, name="take"))
    inputs = [helper.make_tensor_value_info("x", F32, [f"d{k}" for k in range(rank)])]
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("y", F32, None)], inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def range_gather(ends: Any, axis: int, rank: int) -> Any:
    """``x`` of ``rank`` symbolic dims -> Gather(x, Range(start, limit, delta), axis) -> y, as
    torch exports ``x[:, torch.arange(x.shape[1] - 2)]``: ``ends`` the three, each an int (an
    int64 constant) or ``(dim, op, c)``, ``Shape(x)[dim] op c`` (`computed_gather`'s)."""
    nodes = [helper.make_node("Shape", ["x"], ["s"])]
    inits = []
    for k, end in enumerate(ends):
        if isinstance(end, int):
            inits.append(numpy_helper.from_array(np.asarray(end, np.int64), f"t{k}"))
            continue
        dim, op, c = end
        for name, v in ((f"d{k}", dim), (f"c{k}", c)):
            inits.append(numpy_helper.from_array(np.asarray(v, np.int64), name))
        nodes.append(helper.make_node("Gather", ["s", f"d{k}"], [f"n{k}"], axis=0))
        nodes.append(helper.make_node(op, [f"n{k}", f"c{k}"], [f"t{k}"]))
    nodes.append(helper.make_node("Range", ["t0", "t1", "t2"], ["i"]))
    return _taking(nodes, inits, "i", axis, rank)


def computed_gather(terms: Any, axis: int, rank: int) -> Any:
    """``x`` of ``rank`` symbolic dims -> Gather(x, i, axis) -> y, each index computed from a
    dim: ``terms`` one ``(dim, op, c)`` (a scalar index) or a list of them (1-D), each
    ``Shape(x)[dim] op c`` (op ``Add``, ``Sub``, ``Mul``, ``Div``), as torch exports
    ``x[:, x.shape[1] - 1]``."""
    scalar = isinstance(terms, tuple)
    nodes = [helper.make_node("Shape", ["x"], ["s"])]
    inits = []
    for k, (dim, op, c) in enumerate([terms] if scalar else terms):
        for name, v in ((f"d{k}", dim), (f"c{k}", c)):  # 0-D: scalars
            inits.append(numpy_helper.from_array(np.asarray(v, np.int64), name))
        nodes.append(helper.make_node("Gather", ["s", f"d{k}"], [f"n{k}"], axis=0))
        nodes.append(helper.make_node(op, [f"n{k}", f"c{k}"], [f"t{k}"]))
        if not scalar:
            inits.append(_ints(f"a{k}", [0]))
            nodes.append(helper.make_node("Unsqueeze", [f"t{k}", f"a{k}"], [f"u{k}"]))
    parts = ["t0"] if scalar else [f"u{k}" for k in range(len(terms))]
    if not scalar:
        nodes.append(helper.make_node("Concat", parts, ["i"], axis=0))
    take = helper.make_node("Gather", ["x", parts[0] if scalar else "i"], ["y"], axis=axis)
    take.name = "take"
    nodes.append(take)
    dims = [f"d{k}" for k in range(rank)]
    inputs = [helper.make_tensor_value_info("x", F32, dims)]
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("y", F32, None)], inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def save(model: Any, directory: Path, name: str = "model") -> Path:
    path = directory / f"{name}.onnx"
    onnx.save_model(model, path)
    return path


def check_in_subprocess(path: Path) -> subprocess.CompletedProcess[str]:
    """``datamove check PATH`` in a process of its own: a crash of ONNX's code (a segmentation
    fault) fails the test instead of ending the test run."""
    return subprocess.run(
        [sys.executable, "-m", "datamove", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def checker_error(model: Any) -> str | None:
    """What ``onnx.checker.check_model(full_check=True)`` says of ``model``, or ``None``."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as exc:  # noqa: BLE001 - onnx's checker and inference errors
        return str(exc)
    return None


def ort_session(model: Any, *, optimized: bool = False, log_severity_level: int = 4) -> Any:
    """onnxruntime's ``InferenceSession`` (CPU) of ``model``: the oracle of every ONNX test.

    Its graph optimizations are off unless ``optimized``: they can run a model the spec refuses
    (ReshapeFusion, even at ``ORT_ENABLE_BASIC``, folds ``Concat(Shape(y)[0:1], [4])`` into
    ``[-1, 4]`` and so reshapes a ``[3,4]`` whatever ``y``; docs/ir.md, pinned by
    tests/test_onnx_reshape.py), so a verdict, "runs" or "refuses", is taken unoptimized.
    ``log_severity_level`` 4 (fatal only): its refusals are expected here, no log lines.
    """
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.log_severity_level = log_severity_level
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def ort_error(model: Any) -> str | None:
    """What onnxruntime (`ort_session`) says of ``model``, or ``None``."""
    try:
        ort_session(model)
    except Exception as exc:  # noqa: BLE001 - onnxruntime's errors have no common base
        return str(exc)
    return None


def checker_node_error(node: Any, model: Any) -> str | None:
    """What ``onnx.checker.check_node`` says of ``node`` in ``model`` (its imports), or ``None``."""
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version = model.ir_version
    ctx.opset_imports = {o.domain: o.version for o in model.opset_import}
    try:
        onnx.checker.check_node(node, ctx)
    except onnx.checker.ValidationError as exc:
        return str(exc)
    return None


def move_counts(model: Any) -> tuple[dict[str, int], dict[str, int]]:
    """The node types of ``model``: data-movement ones, and the others (not Constant)."""
    moves: dict[str, int] = {}
    others: dict[str, int] = {}
    for node in model.graph.node:
        if node.op_type == "Constant":
            continue
        counts = moves if node.op_type in MOVES else others
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return moves, others


def with_every_value_as_output(model: Any) -> Any:
    """A copy whose graph outputs every node output, to read each node's values in a run."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    have = {o.name for o in copy.graph.output}
    declared = {v.name: v for v in copy.graph.value_info}
    for node in copy.graph.node:
        for out in node.output:
            if out and out not in have:
                if out in declared:
                    copy.graph.output.append(declared[out])
                else:
                    copy.graph.output.append(helper.make_tensor_value_info(out, F32, None))
                have.add(out)
    return copy


def run_onnxruntime(model: Any, x: np.ndarray) -> dict[str, np.ndarray]:
    """Every node output's value, as onnxruntime computes it."""
    session = ort_session(with_every_value_as_output(model), log_severity_level=3)
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {"x": x}), strict=True))


def ort_shapes(model: Any, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...] | None]:
    """The first output's shape as onnxruntime gives it for ``x`` of zeros of each of
    ``shapes``; ``None`` where it refuses (the model, at load; or that input, at run time)."""
    try:
        session = ort_session(model)
    except Exception:  # noqa: BLE001 - onnxruntime's Fail
        return [None] * len(shapes)
    found: list[tuple[int, ...] | None] = []
    for shape in shapes:
        try:
            found.append(tuple(session.run(None, {"x": np.zeros(shape, np.float32)})[0].shape))
        except Exception:  # noqa: BLE001 - onnxruntime's Fail, InvalidArgument
            found.append(None)
    return found


def check_as_onnxruntime(
    model: Any, shape: list[int], directory: Path, says: str | tuple[str, ...], repro: str
) -> tuple[Any, tuple[int, ...] | None]:
    """``check`` of a model of one node (output ``y``) at input ``x`` of ``shape``, held to
    onnxruntime: the node checked, a problem there exactly where onnxruntime refuses (its
    message starting with ``says``), else ``y``'s shape its. The report, and onnxruntime's
    shape (``None``: refused)."""
    import datamove as dm

    path = directory / "m.onnx"
    onnx.save(model, path)
    report = dm.ir.read_onnx(path).check({"x": shape})
    (want,) = ort_shapes(model, [tuple(shape)])
    repro += f": {report.problems}"
    assert report.checked == {model.graph.node[-1].op_type: 1}, repro
    assert report.ok == (want is not None), repro
    if want is None:
        (problem,) = report.problems
        name = model.graph.node[-1].name
        assert (problem.layer_id, problem.layer_name, problem.kind) == ("0", name, "operator")
        assert problem.message.startswith(says), problem.message
    else:
        assert report.outputs["y"][0] == dm.PartialShape(list(want)), repro
    return report, want


def check_box(
    model: Any, box: list[tuple[int, int]], directory: Path
) -> tuple[Any, str, dict[tuple[int, ...], tuple[int, ...] | None]]:
    """``check`` of ``model`` at ``x`` of the interval dims ``box`` (each ``(low, width)``), its
    text, and onnxruntime's output shape at each size in the box (`ort_shapes`)."""
    import datamove as dm

    path = directory / "m.onnx"
    onnx.save(model, path)
    text = "[" + ",".join(f"{lo}..{lo + width}" for lo, width in box) + "]"
    report = dm.ir.read_onnx(path).check({"x": text})
    sizes = list(itertools.product(*(range(lo, lo + width + 1) for lo, width in box)))
    return report, text, dict(zip(sizes, ort_shapes(model, sizes), strict=True))


def reference_shape(model: Any, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The first output's shape as onnx.reference gives it for ``x`` of zeros of ``shape``;
    ``None`` where it raises."""
    from onnx.reference import ReferenceEvaluator

    try:
        return tuple(
            ReferenceEvaluator(model).run(None, {"x": np.zeros(shape, np.float32)})[0].shape
        )
    except Exception:  # noqa: BLE001 - NumPy's ValueError, IndexError, AxisError
        return None


def torch_export(module: Any, shape: tuple[int, ...], path: Path, dynamic: bool = True) -> Any:
    """``torch.onnx.export`` of ``module`` on zeros of ``shape``, input ``x``, every axis dynamic
    (unless not ``dynamic``): the TorchScript exporter, which works offline, at opset 17."""
    torch = pytest.importorskip("torch")
    axes = {"x": dict(enumerate("abcdefgh"[: len(shape)]))} if dynamic else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            (torch.zeros(shape),),
            str(path),
            input_names=["x"],
            dynamic_axes=axes,
            dynamo=False,
            opset_version=17,
        )
    return onnx.load(str(path))
