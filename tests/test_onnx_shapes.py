"""ONNX shape subgraphs (datamove.ir._onnx_shapes): folded, bounded and written as expressions.

Every folded value is compared with onnxruntime running the same subgraph; every bound and
every inferred output shape of a checked node with onnxruntime's at sampled input sizes (and
with ONNX's own shape inference where it gives a value). Models are built with ``onnx.helper``
and exported by ``torch.onnx.export`` (the TorchScript exporter: it works offline).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datamove import PartialShape, ValidationError, ir
from datamove.cli import main
from datamove.ir._onnx_shapes import SHAPE_NODES
from datamove.ir._ops import SMALL
from strategies import examples

onnx_graphs = pytest.importorskip("onnx_graphs")
ort = pytest.importorskip("onnxruntime")
onnx = onnx_graphs.onnx
helper, TensorProto, numpy_helper = onnx.helper, onnx.TensorProto, onnx.numpy_helper
from onnx.reference import ReferenceEvaluator  # noqa: E402 - after the skip

I64, I32, I8, F32, BOOL = (
    TensorProto.INT64,
    TensorProto.INT32,
    TensorProto.INT8,
    TensorProto.FLOAT,
    TensorProto.BOOL,
)


def _c(name: str, values: Any, dtype: Any = np.int64) -> Any:
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def _model(
    nodes: list[Any],
    inits: list[Any],
    outputs: list[tuple[str, int]],
    opset: int,
    x_shape: list[Any] | None = None,
) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F32, x_shape or [3, 8, 5])],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _session(model: Any) -> Any:
    return onnx_graphs.ort_session(model)


def _walked(model: Any, tmp_path: Path, shapes: dict[str, str] | None = None) -> dict[str, Any]:
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    overrides = {n: PartialShape.parse(s) for n, s in (shapes or {}).items()}
    values, *_ = read._walk(overrides, compare=not overrides)
    return values


def _node(kind: str, ins: list[str], out: str, **attrs: Any) -> Any:
    return helper.make_node(kind, ins, [out], **attrs)


SHAPE = _node("Shape", ["x"], "s")
DIM1 = _node("Gather", ["s", "one"], "d", axis=0)  # a scalar: 8
ONE = _c("one", 1)  # 0-D
# name -> (nodes after Shape, initializers, element type of v, opset)
CASES: dict[str, tuple[list[Any], list[Any], int, int]] = {
    "Shape": ([_node("Identity", ["s"], "v")], [], I64, 13),
    "Shape-15 start": ([_node("Shape", ["x"], "v", start=1)], [], I64, 15),
    "Shape-15 start end negative": ([_node("Shape", ["x"], "v", start=-2, end=-1)], [], I64, 15),
    "Shape-15 start past the rank": ([_node("Shape", ["x"], "v", start=7)], [], I64, 15),
    "Gather scalar": ([DIM1, _node("Identity", ["d"], "v")], [ONE], I64, 13),
    "Gather negative indices": (
        [_node("Gather", ["s", "ix"], "v")],
        [_c("ix", [-1, 0, -3])],
        I64,
        13,
    ),
    "Unsqueeze-11 attribute": ([DIM1, _node("Unsqueeze", ["d"], "v", axes=[0])], [ONE], I64, 11),
    "Unsqueeze-13 input": (
        [DIM1, _node("Unsqueeze", ["d", "ax"], "v")],
        [ONE, _c("ax", [0])],
        I64,
        13,
    ),
    "Squeeze-13 input": (
        [_node("Reshape", ["s", "r"], "m"), _node("Squeeze", ["m", "ax"], "v")],
        [_c("r", [1, 3]), _c("ax", [0])],
        I64,
        13,
    ),
    "Squeeze-11 every 1": (
        [_node("Reshape", ["s", "r"], "m"), _node("Squeeze", ["m"], "v")],
        [_c("r", [3, 1])],
        I64,
        11,
    ),
    "Cast to i32": ([_node("Cast", ["s"], "v", to=I32)], [], I32, 13),
    "Cast wraps to i8": (
        [_node("Mul", ["s", "k"], "m"), _node("Cast", ["m"], "v", to=I8)],
        [_c("k", 100)],
        I8,
        13,
    ),
    "Cast to f32 and back": (
        [
            _node("Cast", ["s"], "f", to=F32),
            _node("Div", ["f", "two"], "h"),
            _node("Floor", ["h"], "fl"),
            _node("Cast", ["fl"], "v", to=I64),
        ],
        [_c("two", 2.0, np.float32)],
        I64,
        13,
    ),
    "Cast of fractions truncates": (
        [
            _node("Sub", ["s", "k"], "m"),
            _node("Cast", ["m"], "f", to=F32),
            _node("Div", ["f", "three"], "q"),  # [-5, 3, -2] / [3, 3, -3]: [-1.67, 1, 0.67]
            _node("Cast", ["q"], "v", to=I64),
        ],
        [_c("k", [8, 5, 7]), _c("three", [3.0, 3.0, -3.0], np.float32)],
        I64,
        13,
    ),
    "Cast to bool": (
        [_node("Sub", ["s", "k"], "m"), _node("Cast", ["m"], "v", to=BOOL)],
        [_c("k", 3)],
        BOOL,
        13,
    ),
    "Add Sub Mul broadcast": (
        [
            _node("Add", ["s", "k"], "a"),
            _node("Sub", ["a", "k2"], "b"),
            _node("Mul", ["b", "s"], "v"),
        ],
        [_c("k", [1]), _c("k2", [4, 0, -2])],
        I64,
        13,
    ),
    "Div truncates": (
        [_node("Sub", ["s", "k"], "m"), _node("Div", ["m", "two"], "v")],
        [_c("k", 10), _c("two", [2, -2, 3])],
        I64,
        13,
    ),
    "Mod as Python": (
        [_node("Sub", ["s", "k"], "m"), _node("Mod", ["m", "three"], "v")],
        [_c("k", 10), _c("three", [3, -3, 3])],
        I64,
        13,
    ),
    "Mod fmod": (
        [_node("Sub", ["s", "k"], "m"), _node("Mod", ["m", "three"], "v", fmod=1)],
        [_c("k", 10), _c("three", [3, -3, 3])],
        I64,
        13,
    ),
    "Neg": ([_node("Neg", ["s"], "v")], [], I64, 13),
    "Abs": (
        [_node("Sub", ["s", "k"], "m"), _node("Abs", ["m"], "v")],
        [_c("k", [5])],
        I64,
        13,
    ),
    "Min Max of three": (
        [_node("Min", ["s", "k", "k2"], "m"), _node("Max", ["m", "k3"], "v")],
        [_c("k", [4, 4, 4]), _c("k2", 6), _c("k3", [1, 5, 0])],
        I64,
        13,
    ),
    "Greater Less Equal Where": (
        [
            _node("Greater", ["s", "k"], "g"),
            _node("Less", ["s", "k"], "l"),
            _node("Equal", ["s", "k"], "e"),
            _node("Where", ["g", "s", "k"], "w1"),
            _node("Where", ["l", "w1", "s"], "w2"),
            _node("Where", ["e", "k2", "w2"], "v"),
        ],
        [_c("k", 5), _c("k2", -1)],
        I64,
        13,
    ),
    "Not And Or Xor": (
        [
            _node("Greater", ["s", "k"], "g"),
            _node("Less", ["s", "k2"], "l"),
            _node("Not", ["g"], "n"),
            _node("And", ["n", "l"], "a"),
            _node("Or", ["a", "g"], "o"),
            _node("Xor", ["o", "l"], "v"),
        ],
        [_c("k", 4), _c("k2", [6, 9, 1])],
        BOOL,
        13,
    ),
    "Range": (
        [DIM1, _node("Range", ["zero", "d", "three"], "v")],
        [ONE, _c("zero", 0), _c("three", 3)],
        I64,
        13,
    ),
    "Reshape with a 0": (
        [_node("Reshape", ["s", "r"], "m"), _node("Reshape", ["m", "r2"], "v")],
        [_c("r", [1, 3]), _c("r2", [0, -1])],
        I64,
        13,
    ),
    "Expand": (
        [DIM1, _node("Expand", ["d", "to"], "v")],
        [ONE, _c("to", [2, 2])],
        I64,
        13,
    ),
    "ConstantOfShape": (
        [
            _node("Slice", ["s", "a", "b"], "m"),
            helper.make_node("ConstantOfShape", ["m"], ["v"], value=_c("val", [7])),
        ],
        [_c("a", [0]), _c("b", [2])],
        I64,
        13,
    ),
    "Size": ([_node("Size", ["x"], "v")], [], I64, 13),
    "Tile of a shape": ([_node("Tile", ["s", "reps"], "v")], [_c("reps", [3])], I64, 13),
    "Tile-6 of a 2-D value, once empty": (
        [_node("Reshape", ["s", "r"], "m"), _node("Tile", ["m", "reps"], "v")],
        [_c("r", [3, 1]), _c("reps", [2, 0])],
        I64,
        6,
    ),
    "Tile of a scalar by no repeats": (
        [DIM1, _node("Tile", ["d", "empty"], "v")],
        [ONE, _c("empty", np.zeros(0, dtype=np.int64))],
        I64,
        13,
    ),
    "Size of a scalar": (
        [DIM1, _node("Size", ["d"], "v")],
        [ONE],
        I64,
        13,
    ),
    "Constant floats": (
        [
            helper.make_node("Constant", [], ["c"], value_floats=[1.5, 2.5, 3.5]),
            helper.make_node("Constant", [], ["c1"], value_float=2.0),
            _node("Mul", ["c", "c1"], "f"),
            _node("Cast", ["f"], "v", to=I64),
        ],
        [],
        I64,
        13,
    ),
    "ReduceProd-13 all": ([_node("ReduceProd", ["s"], "v", keepdims=0)], [], I64, 13),
    "ReduceProd-18 axes": (
        [_node("ReduceProd", ["s", "ax"], "v")],
        [_c("ax", [0])],
        I64,
        18,
    ),
    "Ceil, of negative halves too": (
        [
            _node("Sub", ["s", "k"], "m"),  # [-3, 2, -1]
            _node("Cast", ["m"], "f", to=F32),
            _node("Div", ["f", "two"], "h"),  # [-1.5, 1, -0.5]
            _node("Ceil", ["h"], "c"),  # [-1, 1, -0]
            _node("Cast", ["c"], "v", to=I64),
        ],
        [_c("k", 6), _c("two", 2.0, np.float32)],
        I64,
        13,
    ),
    "Ceil of a scale": (
        [
            _node("Cast", ["s"], "f", to=F32),
            _node("Mul", ["f", "k"], "m"),  # [2.1, 5.6, 3.5]
            _node("Ceil", ["m"], "v"),
        ],
        [_c("k", 0.7, np.float32)],
        F32,
        13,
    ),
    "Clip-11 floats": (
        [_node("Cast", ["s"], "f", to=F32), _node("Clip", ["f", "lo", "hi"], "v")],
        [_c("lo", 4.0, np.float32), _c("hi", 6.0, np.float32)],
        F32,
        11,
    ),
    "Clip-13 max only": ([_node("Clip", ["s", "", "hi"], "v")], [_c("hi", 6)], I64, 13),
    "Clip-13 min only": ([_node("Clip", ["s", "lo"], "v")], [_c("lo", 4)], I64, 13),
    "Clip-13 min above max": (
        [_node("Clip", ["s", "lo", "hi"], "v")],
        [_c("lo", 7), _c("hi", 4)],
        I64,
        13,
    ),
    "Clip-13 neither": ([_node("Clip", ["s"], "v")], [], I64, 13),
    "Split of a shape into dims": (
        [
            helper.make_node("Split", ["s"], ["d0", "d1", "d2"], axis=0),
            _node("Concat", ["d2", "d0", "d1"], "v", axis=0),
        ],
        [],
        I64,
        13,
    ),
    "Split-13 lengths, a scalar dim after": (
        [
            helper.make_node("Split", ["s", "lens"], ["a", "b"]),
            _node("Squeeze", ["a", "ax"], "a0"),  # [3] to 3
            _node("Mul", ["b", "a0"], "v"),
        ],
        [_c("lens", [1, 2]), _c("ax", [0])],
        I64,
        13,
    ),
    "Split-13 with an empty part": (
        [
            helper.make_node("Split", ["s", "lens"], ["a", "b", "c"]),
            _node("Concat", ["c", "a", "b"], "v", axis=0),
        ],
        [_c("lens", [0, 2, 1])],
        I64,
        13,
    ),
    "Split-11 split attribute": (
        [
            helper.make_node("Split", ["s"], ["a", "b"], axis=-1, split=[2, 1]),
            _node("Concat", ["b", "a"], "v", axis=0),
        ],
        [],
        I64,
        11,
    ),
    "Split-18 num_outputs": (
        [
            helper.make_node("Split", ["s"], ["a", "b"], num_outputs=2),  # [3, 8], [5]
            _node("Concat", ["b", "a"], "v", axis=0),
        ],
        [],
        I64,
        18,
    ),
    "ConstantOfShape of an empty shape": (
        [helper.make_node("ConstantOfShape", ["empty"], ["v"], value=_c("seven", [7]))],
        [_c("empty", [])],
        I64,
        13,
    ),
    "Slice and Concat": (
        [
            _node("Slice", ["s", "a", "b"], "m"),
            DIM1,
            _node("Unsqueeze", ["d", "ax"], "u"),
            _node("Concat", ["u", "m", "s"], "v", axis=0),
        ],
        [_c("a", [-1]), _c("b", [0]), _c("st", [-1]), ONE, _c("ax", [0])],
        I64,
        13,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_folded_node_gives_what_onnxruntime_and_the_reference_give(
    name: str, tmp_path: Path
) -> None:
    nodes, inits, etype, opset = CASES[name]
    model = _model([SHAPE, *nodes], inits, [("v", etype)], opset)
    x = np.zeros((3, 8, 5), dtype=np.float32)
    (want,) = _session(model).run(["v"], {"x": x})
    (reference,) = ReferenceEvaluator(model).run(["v"], {"x": x})
    np.testing.assert_array_equal(np.asarray(reference), want)  # the two references agree
    got = _walked(model, tmp_path)["v"]
    assert got.value is not None, name
    assert got.value.dtype == want.dtype
    np.testing.assert_array_equal(got.value, want)
    assert got.shape == PartialShape(list(want.shape))


def _intermediates(model: Any) -> Any:
    """The model with every node's output a graph output too (its element type inferred)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info}
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    known = {o.name for o in copy.graph.output}
    for node in copy.graph.node:
        for out in node.output:
            if out in types and out not in known:
                copy.graph.output.append(helper.make_tensor_value_info(out, types[out], None))
    return copy


def _modules() -> dict[str, Any]:
    torch = pytest.importorskip("torch")

    class Half(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x[:, : x.shape[1] // 2]

    class Parts(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            n = x.shape[1] // 3
            return torch.split(x, [n, x.shape[1] - n], dim=1)

    class Narrow(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x[1:, 2 : x.shape[1] - 1], x[:, -(x.shape[1] // 2) :]

    class Halves(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x.chunk(2, dim=-1)

    class Floor(torch.nn.Module):  # torch's floor division: Div, Less, Xor, Mod, Not, Where...
        def forward(self, x: Any) -> Any:
            n = torch.div(x.shape[1], 3, rounding_mode="floor")
            return x[:, n : 2 * n]

    class View(torch.nn.Module):  # a data Reshape by a computed shape: ONNX's inference
        def forward(self, x: Any) -> Any:
            return x.view(x.shape[0], -1)[:, :10]

    modules = {"half": Half(), "parts": Parts(), "narrow": Narrow(), "halves": Halves()}
    return modules | {"floor": Floor(), "view": View()}


def _helper_models() -> dict[str, Any]:
    """Shape subgraphs torch does not write: Split lengths from Div, a Slice-15 Shape."""
    split = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "d"),
        _node("Div", ["d", "four"], "q"),
        _node("Sub", ["d", "q"], "r"),
        _node("Unsqueeze", ["q", "ax"], "qu"),
        _node("Unsqueeze", ["r", "ax"], "ru"),
        _node("Concat", ["qu", "ru"], "lens", axis=0),
        helper.make_node("Split", ["x", "lens"], ["p", "q2"], axis=1),
    ]
    inits = [_c("one", 1), _c("four", 4), _c("ax", [0])]
    tail = [
        helper.make_node("Shape", ["x"], ["t"], start=-1),
        _node("Sub", ["t", "k"], "e"),
        helper.make_node("Slice", ["x", "zero", "e", "last"], ["y"]),
    ]
    scale = [  # x[:, :int(x.shape[1] * 0.7)] through floats, as interpolate's sizes are
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "d"),
        _node("Cast", ["d"], "f", to=F32),
        _node("Mul", ["f", "k"], "m"),
        _node("Cast", ["m"], "n", to=I64),
        _node("Unsqueeze", ["n", "ax"], "e"),
        helper.make_node("Slice", ["x", "zero", "e", "last"], ["y"]),
    ]
    scale_inits = [_c("one", 1), _c("k", 0.7, np.float32), _c("ax", [0])]
    scale_inits += [_c("zero", [0]), _c("last", [-1])]
    dims = [  # x[:, :min(max(x.shape[1], 2), 4)], the dim split off the shape
        _node("Shape", ["x"], "s"),
        helper.make_node("Split", ["s"], ["sa", "sb"], axis=0),
        _node("Clip", ["sb", "lo", "hi"], "e"),
        helper.make_node("Slice", ["x", "zero", "e", "last"], ["y"]),
    ]
    dims_inits = [_c("lo", 2), _c("hi", 4), _c("zero", [0]), _c("last", [-1])]
    ceil = [  # x[:, :min(ceil(x.shape[1] * 0.7), 5)], Split-18 and a Clip without a min
        _node("Shape", ["x"], "s"),
        helper.make_node("Split", ["s"], ["sa", "sb"], num_outputs=2),
        _node("Cast", ["sb"], "f", to=F32),
        _node("Mul", ["f", "k"], "m"),
        _node("Ceil", ["m"], "c"),
        _node("Cast", ["c"], "n", to=I64),
        _node("Clip", ["n", "", "hi"], "e"),
        helper.make_node("Slice", ["x", "zero", "e", "last"], ["y"]),
    ]
    ceil_inits = [_c("k", 0.7, np.float32), _c("hi", 5), _c("zero", [0]), _c("last", [-1])]
    tile = [  # x[: x.shape[1] // 2, : x.shape[1] // 2], both ends a Tile of one
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "d"),
        _node("Div", ["d", "two"], "q"),
        _node("Unsqueeze", ["q", "ax"], "u"),
        _node("Tile", ["u", "two1"], "e"),
        helper.make_node("Slice", ["x", "zeros", "e", "axes"], ["y"]),
    ]
    tile_inits = [_c("one", 1), _c("two", 2), _c("ax", [0]), _c("two1", [2])]
    tile_inits += [_c("zeros", [0, 0]), _c("axes", [0, 1])]
    tiles = [  # torch's tensor_split lengths, 3 parts: [q, q, b - 2q] with q = b // 3
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "d"),
        _node("Div", ["d", "three"], "q"),
        _node("Unsqueeze", ["q", "ax"], "u"),
        _node("Tile", ["u", "two1"], "t"),
        _node("Mul", ["q", "two"], "q2"),
        _node("Sub", ["d", "q2"], "r"),
        _node("Unsqueeze", ["r", "ax"], "ru"),
        _node("Concat", ["t", "ru"], "lens", axis=0),
        helper.make_node("Split", ["x", "lens"], ["p0", "p1", "p2"], axis=1),
    ]
    tiles_inits = [_c("one", 1), _c("two", 2), _c("three", 3), _c("ax", [0]), _c("two1", [2])]
    parts = [("p0", F32), ("p1", F32), ("p2", F32)]
    return {
        "tile ends": _model(tile, tile_inits, [("y", F32)], 13, ["a", "b"]),
        "tile split lengths": _model(tiles, tiles_inits, parts, 13, ["a", "b"]),
        "split dims clip": _model(dims, dims_inits, [("y", F32)], 13, ["a", "b"]),
        "ceil clip": _model(ceil, ceil_inits, [("y", F32)], 18, ["a", "b"]),
        "float scale": _model(scale, scale_inits, [("y", F32)], 13, ["a", "b"]),
        "split lengths": _model(split, inits, [("p", F32), ("q2", F32)], 13, ["a", "b"]),
        "shape-15 end": _model(
            tail, [_c("k", [3]), _c("zero", [0]), _c("last", [-1])], [("y", F32)], 15, ["a", "b"]
        ),
    }


def _all_models(tmp_path: Path) -> dict[str, Any]:
    models = {
        n: onnx_graphs.torch_export(m, (4, 9), tmp_path / f"{n}.onnx")
        for n, m in _modules().items()
    }
    return models | _helper_models()


SIZES = [(1, 1), (2, 4), (3, 5), (4, 9), (6, 12), (5, 7), (2, 3)]


def test_bounds_and_inferred_shapes_hold_onnxruntime_s_at_sampled_sizes(tmp_path: Path) -> None:
    interval = "[1..6,1..12]"
    for name, model in _all_models(tmp_path).items():
        outputs = [o.name for o in model.graph.output]
        wide = _intermediates(model)
        session = _session(wide)
        names = [o.name for o in wide.graph.output]
        bounded = _walked(model, tmp_path, {"x": interval})
        report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": interval})
        assert report.ok, (name, report.problems)
        for size in SIZES:
            x = np.zeros(size, dtype=np.float32)
            got = dict(zip(names, session.run(names, {"x": x}), strict=True))
            exact = _walked(model, tmp_path, {"x": f"[{size[0]},{size[1]}]"})
            static = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": str(list(size))})
            for out in outputs:  # the checked nodes' outputs: inferred as onnxruntime's
                assert got[out].shape in report.outputs[out][0], (name, size, out)
                assert static.outputs[out][0] == PartialShape(list(got[out].shape))
            for n, value in got.items():  # every shape-subgraph value within its bounds
                v = bounded.get(n)
                if v is None or value.dtype.kind not in "iub":
                    continue
                if v.value is not None:
                    np.testing.assert_array_equal(v.value, value, err_msg=f"{name} {n}")
                elif v.lower is not None:
                    assert (v.lower <= value).all(), (name, n, size)
                    assert (value <= v.upper).all(), (name, n, size)
                if exact.get(n) is not None and exact[n].value is not None:
                    np.testing.assert_array_equal(exact[n].value, value, err_msg=f"{name} {n}")


def _onnx_inferred(model: Any, size: tuple[int, ...]) -> dict[str, list[int | None]]:
    """ONNX's own shape inference (with data propagation) at a static input size."""
    static = onnx.ModelProto()
    static.CopyFrom(model)
    del static.graph.value_info[:]
    for v in static.graph.output:
        v.type.tensor_type.ClearField("shape")
    dims = static.graph.input[0].type.tensor_type.shape.dim
    for d, n in zip(dims, size, strict=True):
        d.Clear()
        d.dim_value = n
    done = onnx.shape_inference.infer_shapes(static, data_prop=True)
    return {
        v.name: [
            d.dim_value if d.HasField("dim_value") else None for d in v.type.tensor_type.shape.dim
        ]
        for v in (*done.graph.value_info, *done.graph.output)
        if v.type.tensor_type.HasField("shape")
    }


def test_inferred_shapes_agree_with_onnx_shape_inference(tmp_path: Path) -> None:
    # ONNX infers no Slice or Split whose parameters are computed, but does infer an Expand
    # or a ConstantOfShape by a computed shape: that shape's folded value is compared with it
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "ix"], "g"),
        _node("Mul", ["g", "k"], "h"),
        _node("Concat", ["h", "s"], "t", axis=0),
        _node("Expand", ["ones", "t"], "e"),
        helper.make_node("ConstantOfShape", ["h"], ["z"]),
        _node("Slice", ["s", "zero", "one"], "n"),
        helper.make_node("Split", ["x", "n"], ["p"], axis=0),
    ]
    inits = [
        _c("ix", [1, 0]),
        _c("k", [2, 1]),
        _c("ones", [1.0], np.float32),
        _c("zero", [0]),
        _c("one", [1]),
    ]
    model = _model(nodes, inits, [("e", F32), ("z", F32), ("p", F32)], 13, ["a", "b"])
    compared = 0
    for size in SIZES:
        theirs = _onnx_inferred(model, size)
        values = _walked(model, tmp_path, {"x": str(list(size))})
        report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check({"x": str(list(size))})
        pairs = [(values[v].value.tolist(), theirs.get(o)) for v, o in (("t", "e"), ("h", "z"))]
        pairs.append((report.outputs["p"][0].to_shape(), theirs.get("p")))  # the checked Split
        for mine, onnx_dims in pairs:
            if onnx_dims is None:
                continue
            assert len(mine) == len(onnx_dims), size
            for a, b in zip(mine, onnx_dims, strict=True):
                if b is not None:  # where ONNX gives a value
                    assert a == b, (size, mine, onnx_dims)
                    compared += 1
    assert compared >= 2 * len(SIZES)  # ONNX gives the dims Shape and Concat carry


def test_torch_s_tensor_split_tiles_hold_onnxruntime_s_values(tmp_path: Path) -> None:
    # torch writes tensor_split's lengths as a Concat of two Tiles of [q + 1] and [q], by
    # repeats d % n and n - d % n: exact at a static size, and the same values as onnxruntime's
    torch = pytest.importorskip("torch")

    class Thirds(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x.tensor_split(3, 1)

    model = onnx_graphs.torch_export(Thirds(), (4, 9), tmp_path / "thirds.onnx")
    tiles = [n.output[0] for n in model.graph.node if n.op_type == "Tile"]
    assert len(tiles) == 2  # what this test is about: torch writes them
    wide = onnx.ModelProto()
    wide.CopyFrom(model)
    wide.graph.output.extend(helper.make_tensor_value_info(t, I64, None) for t in tiles)
    session = _session(wide)
    for size in SIZES:
        ran = session.run(tiles, {"x": np.zeros(size, np.float32)})
        got = dict(zip(tiles, ran, strict=True))
        values = _walked(model, tmp_path, {"x": str(list(size))})
        for name in tiles:
            assert values[name].value is not None, (size, name)
            np.testing.assert_array_equal(values[name].value, got[name], err_msg=f"{size}")


def test_explain_writes_a_tile_of_a_shape_value(tmp_path: Path) -> None:
    model = _helper_models()["tile ends"]
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (info,) = read.explain()
    assert info["numpy"] == "x[:x.shape[1]//2, :x.shape[1]//2]"


def test_a_static_export_folds_to_constants(tmp_path: Path) -> None:
    half = _modules()["half"]
    model = onnx_graphs.torch_export(half, (4, 9), tmp_path / "static.onnx", dynamic=False)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (info,) = read.explain()
    assert info["numpy"] == "x[:, :4]"
    assert info["runtime"] == {}
    assert info["values"]["ends"] == [4]


def test_explain_writes_a_dynamic_export_s_expression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = _all_models(tmp_path)
    path = onnx_graphs.save(models["half"], tmp_path, "half")
    assert main(["explain", str(path), "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert info["numpy"] == "x[:, :x.shape[1]//2]"
    assert info["expressions"] == {"ends": ["x.shape[1]//2"]}
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "x[:, :x.shape[1]//2]" in out
    texts = {
        n: [i["numpy"] for i in ir.read_onnx(onnx_graphs.save(m, tmp_path, n)).explain()]
        for n, m in models.items()
    }
    assert texts["narrow"][-1] == "x[:, -(x.shape[1]//2):]"
    assert texts["parts"][0] == "x[:, :x.shape[1]//3]"
    assert texts["split lengths"] == [["x[:, :x.shape[1]//4]", "x[:, x.shape[1]//4:]"]]
    assert texts["shape-15 end"] == ["x[:, :x.shape[1]-3]"]
    assert texts["floor"] == ["x[:, x.shape[1]//3:x.shape[1]//3*2]"]
    assert texts["split dims clip"][-1] == "x[:, :min(max(x.shape[1], 2), 4)]"
    # each written expression gives onnxruntime's output at every sampled size (narrow's
    # first output is two Slices: its last is compared)
    texts["narrow"] = texts["narrow"][1:]
    assert texts["narrow"][0] == "x[:, 2:_x.shape[1]-1]"
    read = ir.read_onnx(onnx_graphs.save(models["narrow"], tmp_path, "narrow"))
    assert read.explain()[1]["runtime"]["_x"] == "the tensor 'x', whose dims it reads"
    texts["split dims clip"] = texts["split dims clip"][-1:]  # its Slice (not the Split of s)
    names = ("half", "narrow", "parts", "split lengths", "shape-15 end", "floor", "split dims clip")
    for name in names:
        model = models[name]
        session = _session(model)
        for size in SIZES:
            x = np.arange(np.prod(size), dtype=np.float32).reshape(size)
            got = session.run(None, {"x": x})
            flat = [t for ts in texts[name] for t in (ts if isinstance(ts, list) else [ts])]
            for k, (text, want) in enumerate(zip(flat, got, strict=True)):
                # narrow's second Slice slices x[1:], with the dims of the input x (as _x)
                scope = {"x": x[1:], "_x": x} if name == "narrow" and k == 0 else {"x": x}
                np.testing.assert_array_equal(eval(text, scope), want)  # noqa: S307


def test_explain_names_a_split_whose_lengths_read_another_tensor_s_dims(tmp_path: Path) -> None:
    # split = [len(r), x.shape[1] - len(r)] with r = Range(x.shape[1] - 7, -5, -1): the
    # expressions read r's dims, so runtime names r beside the split (explain raised)
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "d"),
        _node("Sub", ["d", "seven"], "m"),
        _node("Range", ["m", "lim", "neg"], "r"),
        _node("Shape", ["r"], "n"),
        _node("Unsqueeze", ["d", "ax"], "du"),
        _node("Sub", ["du", "n"], "rest"),
        _node("Concat", ["n", "rest"], "parts", axis=0),
        helper.make_node("Split", ["x", "parts"], ["y", "z"], axis=1),
    ]
    inits = [ONE, _c("seven", 7), _c("lim", -5), _c("neg", -1), _c("ax", [0])]
    model = _model(nodes, inits, [("y", F32), ("z", F32)], 13, ["a", "b"])
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert info["numpy"] == ["x[:, :r.shape[0]]", "x[:, r.shape[0]:]"]
    assert info["runtime"]["r"] == "the tensor 'r', whose dims it reads"
    session = _session(model)
    for size in ((2, 3), (3, 9), (1, 12)):
        x = np.arange(np.prod(size), dtype=np.float32).reshape(size)
        want = session.run(None, {"x": x})
        r = np.zeros(len(range(size[1] - 7, -5, -1)))
        for text, got in zip(info["numpy"], want, strict=True):
            np.testing.assert_array_equal(eval(text, {"x": x, "r": r}), got)  # noqa: S307


def test_a_division_of_a_negative_value_is_not_written_as_floor_division(tmp_path: Path) -> None:
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "ax"], "b", axis=0),  # [b]: one end, as starts and axes
        _node("Sub", ["b", "k"], "m"),  # may be negative: ONNX truncates, // floors
        _node("Div", ["m", "two"], "e"),
        helper.make_node("Slice", ["x", "zero", "e", "ax"], ["y"]),
    ]
    inits = [_c("k", [5]), _c("two", [2]), _c("zero", [0]), _c("ax", [1])]
    model = _model(nodes, inits, [("y", F32)], 13, ["a", "b"])
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (info,) = read.explain()
    assert info["numpy"] == "x[:, :e]"
    assert "expressions" not in info


@pytest.mark.parametrize("to", [TensorProto.UINT32, TensorProto.UINT64, TensorProto.INT32])
def test_a_cast_that_may_wrap_is_not_written_as_its_input(to: int, tmp_path: Path) -> None:
    # x.shape[0] - 10 (negative below 10 rows; 2**40 added for int32) as to, then as int64:
    # a wrapped end past every size, so x[:], not x[:x.shape[0]-10]
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "zero"], "d"),
        _node("Sub", ["d", "k"], "m"),
        _node("Unsqueeze", ["m", "ax"], "u"),
        _node("Cast", ["u"], "c", to=to),
        _node("Cast", ["c"], "e", to=I64),
        helper.make_node("Slice", ["x", "ax", "e", "ax"], ["y"]),
    ]
    k = 10 - 2**40 if to == TensorProto.INT32 else 10
    inits = [_c("zero", 0), _c("k", k), _c("ax", [0])]
    model = _model(nodes, inits, [("y", F32)], 13, ["n", 4])
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (info,) = read.explain()
    assert info["numpy"] == "x[:e]"
    assert "expressions" not in info
    session = _session(model)
    for rows in (3, 9, 12):
        x = np.zeros((rows, 4), dtype=np.float32)
        (got,) = session.run(None, {"x": x})
        assert read.check({"x": f"[{rows},4]"}).outputs["y"][0] == PartialShape(list(got.shape))


def test_an_overflow_from_an_extreme_constant_holds_onnxruntime_s_shape(tmp_path: Path) -> None:
    # step INT64_MIN - x.shape[1]: onnxruntime wraps it to a large positive step (one
    # element) at every width but 0; the exact INT64_MIN (nothing kept) is not claimed
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "ix"], "d"),
        _node("Sub", ["low", "d"], "step"),
        helper.make_node("Slice", ["x", "zero", "end", "ix", "step"], ["y"]),
    ]
    inits = [_c("ix", [1]), _c("low", [-(2**63)]), _c("zero", [0]), _c("end", [2**62])]
    model = _model(nodes, inits, [("y", F32)], 13, ["a", "b"])
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    report = read.check({"x": "[1..9,0..30]"})
    session = _session(model)
    for size in ((2, 5), (3, 1), (1, 30)):
        (got,) = session.run(None, {"x": np.zeros(size, dtype=np.float32)})
        assert report.outputs["y"][0].compatible(list(got.shape)), (size, got.shape)


@pytest.mark.parametrize("last", ["Sub", "Neg"])
def test_arithmetic_that_may_wrap_is_not_written_as_python_s(last: str, tmp_path: Path) -> None:
    # x.shape[1] - INT64_MAX - 5 wraps below 5 columns (onnxruntime: a large end, the whole
    # axis), which Python's x.shape[1]-9223372036854775807-5 never does; so does the Neg of
    # the least of -2 and x.shape[1], less INT64_MAX
    first = "d" if last == "Sub" else "m"
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "ix"], "d"),
        _node("Min", ["two", "d"], "m"),
        _node("Sub", [first, "big"], "t"),
        _node("Sub", ["t", "five"], "e") if last == "Sub" else _node("Neg", ["t"], "e"),
        helper.make_node("Slice", ["x", "zero", "e", "ix"], ["y"]),
    ]
    inits = [_c("ix", [1]), _c("two", [-2]), _c("big", [2**63 - 1]), _c("five", [5])]
    model = _model(nodes, [*inits, _c("zero", [0])], [("y", F32)], 13, ["a", "b"])
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert info["numpy"] == "x[:, :e]"
    assert "expressions" not in info
    x = np.zeros((2, 2), dtype=np.float32)
    (got,) = _session(model).run(None, {"x": x})
    python = 2 - (2**63 - 1) - 5 if last == "Sub" else -(-2 - (2**63 - 1))
    assert got.shape != x[:, :python].shape  # what the expression would have said


def test_a_product_of_a_dynamic_dim_that_may_wrap_is_not_written(tmp_path: Path) -> None:
    # step x.shape[1] * INT64_MAX wraps past 1 column (onnxruntime: -INT64_MAX at 2 columns,
    # a reverse step); a dim times 2 and the product of two dims are written
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "ix"], "d"),
        _node("Mul", ["d", "big"], "step"),
        _node("Gather", ["s", "zero"], "r"),
        _node("Mul", ["d", "two"], "e"),
        _node("Mul", ["e", "r"], "e2"),
        helper.make_node("Slice", ["x", "zero", "e2", "ix", "step"], ["y"]),
    ]
    inits = [_c("ix", [1]), _c("zero", [0]), _c("big", [2**63 - 1]), _c("two", [2])]
    model = _model(nodes, inits, [("y", F32)], 13, ["a", "b"])
    (info,) = ir.read_onnx(onnx_graphs.save(model, tmp_path)).explain()
    assert info["numpy"] == "x[:, 0:x.shape[1]*2*x.shape[0]:step]"
    assert info["expressions"] == {"ends": ["x.shape[1]*2*x.shape[0]"]}


def _notes(model: Any, tmp_path: Path) -> list[Any]:
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    return [n for n in report.notes if n.kind == "shape-subgraph"]


# name -> (a node with an attribute its version lacks, its opset, the attribute, an opset whose
# version has it or None): each node makes the Slice's ends ``e`` (or is the Slice)
VERSIONED: dict[str, tuple[Any, int, str, int | None]] = {
    "Shape-13 start": (_node("Shape", ["x"], "e", start=-1), 13, "start", 15),
    "Shape-14 end": (_node("Shape", ["x"], "e", end=1), 14, "end", 15),
    "Reshape-13 allowzero": (
        _node("Reshape", ["two", "one"], "e", allowzero=1),
        13,
        "allowzero",
        14,
    ),
    "ReduceProd-17 noop": (
        _node("ReduceProd", ["two"], "e", noop_with_empty_axes=0),
        17,
        "noop_with_empty_axes",
        18,
    ),
    "Unsqueeze-13 axes": (_node("Unsqueeze", ["one", "zero"], "e", axes=[0]), 13, "axes", None),
    "Slice-13 starts": (
        helper.make_node("Slice", ["x", "zero", "two"], ["y"], starts=[0]),
        13,
        "starts",
        None,
    ),
    "Slice-13 unknown": (
        helper.make_node("Slice", ["x", "zero", "two"], ["y"], foo=1),
        13,
        "foo",
        None,
    ),
}


@pytest.mark.parametrize("name", list(VERSIONED))
def test_an_attribute_its_version_lacks_is_a_problem_and_never_read(
    name: str, tmp_path: Path
) -> None:
    node, opset, attribute, since = VERSIONED[name]
    nodes = (
        [node]
        if node.op_type == "Slice"
        else [node, helper.make_node("Slice", ["x", "zero", "e"], ["y"])]
    )
    inits = [_c("zero", [0]), _c("one", [1]), _c("two", [2])]

    def read(opset: int) -> Any:  # 1-D data: every version's Shape gives the one end
        model = _model(nodes, inits, [("y", F32)], opset, ["a"])
        return model, ir.read_onnx(onnx_graphs.save(model, tmp_path))

    model, refused = read(opset)
    with pytest.raises(Exception, match=f"Unrecognized attribute: {attribute}"):  # InvalidGraph
        _session(model)
    (problem,) = refused.check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", node.op_type)
    assert f"has no attribute {attribute!r} (the model imports opset {opset})" in problem.message
    if node.op_type != "Slice":  # its value is never read: the ends are known at run time only
        assert refused.explain()[0]["numpy"] == "x[:e]"
    if since is not None:  # the version that has it is read
        model, read_ok = read(since)
        _session(model)
        assert read_ok.check().ok
        assert read_ok.explain()[0]["numpy"] != "x[:e]"


def test_a_gather_index_out_of_range_is_a_note_and_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "ix"], "e"),
        helper.make_node("Slice", ["x", "zero", "e"], ["y"]),
    ]
    model = _model(nodes, [_c("ix", [5]), _c("zero", [0])], [("y", F32)], 13)
    (note,) = _notes(model, tmp_path)
    assert "indices holds 5, out of range for an axis of 3 values" in note.message
    assert note.layer_type == "Gather"
    assert _walked(model, tmp_path)["e"].value is None
    path = onnx_graphs.save(model, tmp_path)
    assert main(["check", str(path), "-v"]) == 0
    out = capsys.readouterr().out
    assert "notes (ONNX shape-subgraph nodes that fail at run time):" in out


@pytest.mark.parametrize(
    ("repeats", "at_run_time", "note"),
    [
        pytest.param([1, 1], False, "repeats has 2 values, but its data has rank 1", id="2 of 1"),
        pytest.param([], False, "repeats has 0 values, but its data has rank 1", id="none"),
        pytest.param([-1], False, "repeats holds -1, a negative count", id="negative"),
        pytest.param([1, 1], True, "repeats has 2 values, but its data has rank 1", id="run time"),
        pytest.param([[2]], False, "repeats is 2-D; it must be 1-D", id="2-D"),
        pytest.param(2, False, "repeats is 0-D; it must be 1-D", id="0-D"),
    ],
)
def test_an_ill_formed_tile_is_a_note_and_unknown(
    repeats: Any, at_run_time: bool, note: str, tmp_path: Path
) -> None:
    # an ill-formed Tile in a shape subgraph gave no value and said nothing, where a Gather
    # index out of range or a division by zero is a note; onnxruntime refuses each
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Tile", ["s", "r"], "e"),
        helper.make_node("Slice", ["x", "zero", "e"], ["y"]),
    ]
    inputs = [helper.make_tensor_value_info("x", F32, [3])]
    inits = [_c("zero", [0])]
    values = np.asarray(repeats, dtype=np.int64).reshape(np.shape(repeats))
    if at_run_time:
        inputs.append(helper.make_tensor_value_info("r", I64, list(values.shape)))
    else:
        inits.append(_c("r", values))
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("y", F32, None)], initializer=inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    feeds = {"x": np.zeros(3, np.float32)} | ({"r": values} if at_run_time else {})
    with pytest.raises(Exception, match=r"(?i)repeat"):  # at load, or at run time
        _session(model).run(None, feeds)
    (got,) = _notes(model, tmp_path)
    assert got.layer_type == "Tile"
    assert got.message == f"{note}: onnxruntime refuses it"
    assert _walked(model, tmp_path)["e"].value is None


@pytest.mark.parametrize(
    ("nodes", "inits", "note"),
    [
        pytest.param(
            [_node("Gather", ["s", "i0"], "g", axis=0), _node("Unsqueeze", ["g", "ax"], "e")],
            [_c("i0", 0), _c("ax", [5])],
            "axes=[5] holds 5, out of range for output rank 1",
            id="Unsqueeze axis past the rank",
        ),
        pytest.param(
            [_node("Unsqueeze", ["s", "ax"], "e")],
            [_c("ax", [0, -3])],
            "axes=[0, -3] list axis 0 twice (output rank 3)",
            id="Unsqueeze axis twice",
        ),
        pytest.param(
            [helper.make_node("ConstantOfShape", ["n"], ["e"], value=_c("v", np.array([1])))],
            [_c("n", [-1])],
            "input holds -1, a negative dim",
            id="ConstantOfShape of a negative dim",
        ),
    ],
)
def test_other_ill_formed_shape_nodes_are_notes(
    nodes: list[Any], inits: list[Any], note: str, tmp_path: Path
) -> None:
    # the rest of the Tile's class: shape nodes onnxruntime refuses that said nothing
    nodes = [_node("Shape", ["x"], "s"), *nodes, helper.make_node("Slice", ["x", "z", "e"], ["y"])]
    model = _model(nodes, [_c("z", [0]), *inits], [("y", F32)], 13, [3])
    with pytest.raises(Exception, match=r"(?i)axis|shape|negative|dim"):  # at load or run time
        _session(model).run(None, {"x": np.zeros(3, np.float32)})
    (got,) = _notes(model, tmp_path)
    assert got.layer_type == nodes[-2].op_type
    assert got.message == f"{note}: onnxruntime refuses it"


@pytest.mark.parametrize("divide", ["Div", "Mod"])
def test_an_integer_division_by_zero_is_a_note_and_unknown(divide: str, tmp_path: Path) -> None:
    nodes = [
        _node("Shape", ["x"], "s"),
        _node(divide, ["s", "zero"], "e"),
        helper.make_node("Slice", ["x", "zero", "e"], ["y"]),
    ]
    model = _model(nodes, [_c("zero", [0])], [("y", F32)], 13)
    (note,) = _notes(model, tmp_path)
    assert "divides an integer by zero" in note.message
    assert _walked(model, tmp_path)["e"].value is None


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_a_range_of_delta_0_is_a_note_that_names_the_delta(dtype: Any, tmp_path: Path) -> None:
    # onnxruntime refuses it for integers and floats alike (it divides nothing: no division)
    nodes = [
        _node("Range", ["start", "limit", "delta"], "r"),
        _node("Cast", ["r"], "e", to=TensorProto.INT64),
        helper.make_node("Slice", ["x", "z", "e"], ["y"]),
    ]
    inits = [_c("start", 0, dtype), _c("limit", 4, dtype), _c("delta", 0, dtype), _c("z", [0])]
    model = _model(nodes, inits, [("y", F32)], 13, [3])
    with pytest.raises(Exception, match="delta in Range operator can not be zero"):
        _session(model).run(None, {"x": np.zeros(3, np.float32)})
    (note,) = _notes(model, tmp_path)
    assert note.layer_type == "Range"
    assert note.message == "its delta is 0: onnxruntime refuses it"
    assert _walked(model, tmp_path)["r"].value is None


def test_huge_values_and_overflows_are_unknown_not_wrapped(tmp_path: Path) -> None:
    big = 2**62
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Mul", ["s", "big"], "m"),  # overflows int64: undefined, so unknown
        _node("Range", ["zero", "big", "one"], "r"),  # 2**62 elements: not folded
        _node("Cast", ["f"], "c", to=I32),  # 1e20 as int32: undefined
        helper.make_node("Slice", ["x", "zeros", "m"], ["y"]),
    ]
    inits = [
        _c("big", big),
        _c("zero", 0),
        _c("one", 1),
        _c("zeros", [0, 0, 0]),
        _c("f", [1e20], np.float32),
    ]
    model = _model(nodes, inits, [("y", F32), ("r", I64), ("c", I32)], 13)
    values = _walked(model, tmp_path)
    assert values["m"].value is None
    assert values["r"].value is None
    assert values["c"].value is None
    report = ir.read_onnx(onnx_graphs.save(model, tmp_path)).check()
    assert report.ok
    assert str(report.outputs["y"][0]) == "[..3,..8,..5]"


MALFORMED: dict[str, list[Any]] = {
    "an axis of floats": [helper.make_node("Gather", ["s", "one"], ["e"], axis=1.5)],
    "a Gather axis out of range": [helper.make_node("Gather", ["s", "one"], ["e"], axis=3)],
    "a Gather of one input": [helper.make_node("Gather", ["s"], ["e"])],
    "a Cast to a string": [helper.make_node("Cast", ["s"], ["e"], to=TensorProto.STRING)],
    "a Cast to no type": [helper.make_node("Cast", ["s"], ["e"])],
    "Unsqueeze axes twice": [helper.make_node("Unsqueeze", ["s", "twice"], ["e"])],
    "Squeeze of a dim of 3": [helper.make_node("Squeeze", ["s", "zeros"], ["e"])],
    "a ConstantOfShape of two values": [
        helper.make_node("ConstantOfShape", ["s"], ["e"], value=_c("v", [1, 2]))
    ],
    "a Reshape to a wrong count": [helper.make_node("Reshape", ["s", "twice"], ["e"])],
    "a Range of vectors": [helper.make_node("Range", ["s", "s", "s"], ["e"])],
    "a Range of step 0": [helper.make_node("Range", ["zero", "one", "zero"], ["e"])],
    "an Expand to a negative dim": [helper.make_node("Expand", ["s", "neg"], ["e"])],
    "Shape-15 of a string start": [
        helper.make_node("Shape", ["x"], ["e"], start="one"),
    ],
    "a Where of ints": [helper.make_node("Where", ["s", "s", "s"], ["e"])],
    "an Add of two types": [helper.make_node("Add", ["s", "f"], ["e"])],
    "a Mod with fmod 2": [helper.make_node("Mod", ["s", "one"], ["e"], fmod=2)],
    "a Squeeze with an empty axes name": [helper.make_node("Squeeze", ["s", ""], ["e"])],
    "a Clip of a 1-D bound": [helper.make_node("Clip", ["s", "zeros"], ["e"])],
    "a Clip of four inputs": [helper.make_node("Clip", ["s", "one", "one", "one"], ["e"])],
    "a Ceil of integers": [helper.make_node("Ceil", ["s"], ["e"])],
    "Unsqueeze axes of floats": [helper.make_node("Unsqueeze", ["one", "f"], ["e"])],
    "Shape-15 of a list start": [helper.make_node("Shape", ["x"], ["e"], start=[1, 2])],
    "a Min whose second input is data": [helper.make_node("Min", ["s", "x", "one"], ["e"])],
    "a Split whose lengths do not sum to the size": [
        helper.make_node("Split", ["s", "twice"], ["e", "e2"])
    ],
    "a Neg of two inputs": [helper.make_node("Neg", ["s", "s"], ["e"])],
    "a Where of a large boolean data condition": [
        helper.make_node("Greater", ["x", "x"], ["b"]),
        helper.make_node("Where", ["b", "s", "s"], ["e"]),
    ],
    "an And of a large boolean data input": [
        helper.make_node("Greater", ["x", "x"], ["b"]),
        helper.make_node("And", ["b", "b"], ["e"]),
    ],
    "an Or of one input": [
        helper.make_node("Equal", ["s", "s"], ["b"]),
        helper.make_node("Or", ["b"], ["e"]),
    ],
    "an And of integers": [helper.make_node("And", ["s", "s"], ["e"])],
    "an And of a boolean constant too large to fold": [
        helper.make_node("And", ["many", "many"], ["e"])
    ],
    "a Range of two element types": [helper.make_node("Range", ["zero", "one", "f"], ["e"])],
    "a Reshape with allowzero 2": [helper.make_node("Reshape", ["s", "zeros"], ["e"], allowzero=2)],
    "an Expand of one input": [helper.make_node("Expand", ["s"], ["e"])],
    "a ConstantOfShape of an int attribute": [
        helper.make_node("ConstantOfShape", ["s"], ["e"], value=1)
    ],
    "a ReduceProd with keepdims 2": [helper.make_node("ReduceProd", ["s"], ["e"], keepdims=2)],
    "a Tile of negative repeats": [helper.make_node("Tile", ["s", "neg"], ["e"])],
    "a Tile of more repeats than the rank": [helper.make_node("Tile", ["s", "twice"], ["e"])],
    "a Tile of one input": [helper.make_node("Tile", ["s"], ["e"])],
    "a Min of no input": [helper.make_node("Min", [], ["e"])],
    "a Where of two inputs": [helper.make_node("Where", ["s", "s"], ["e"])],
}
# Node types whose attributes and inputs changed: the same checks at another opset.
MALFORMED_AT: dict[str, tuple[int, list[Any]]] = {
    "Unsqueeze-11 of an int axes": (11, [helper.make_node("Unsqueeze", ["s"], ["e"], axes=0)]),
    "Split-11 of two inputs": (11, [helper.make_node("Split", ["s", "twice"], ["e", "e2"])]),
    "ReduceProd-18 of empty axes": (
        18,
        [helper.make_node("ReduceProd", ["s", "empty"], ["e"], keepdims=0)],
    ),
    "Tile-1 of tiles and an axis": (5, [helper.make_node("Tile", ["s", "one", "zero"], ["e"])]),
    "Max-6, which does not broadcast": (6, [helper.make_node("Max", ["s", "one"], ["e"])]),
    "Where at opset 8, before Where-9": (8, [helper.make_node("Where", ["s", "s", "s"], ["e"])]),
}


def test_a_cast_of_a_boolean_and_a_gather_of_axis_minus_1_are_bounded_not_written(
    tmp_path: Path,
) -> None:
    # Cast writes an expression of an integer source only (a boolean's is not one), and
    # Gather of axis 0 only: both keep their bounds, and explain names the maker instead
    nodes = [
        SHAPE,
        _node("Gather", ["s", "zero"], "d"),
        _node("Equal", ["d", "one"], "b"),
        _node("Cast", ["b"], "v", to=I64),
        _node("Gather", ["s", "zeros"], "g", axis=-1),
        _node("Gather", ["s", "zeros"], "g0"),
    ]
    inits = [_c("zeros", [0]), _c("zero", 0), _c("one", 1)]
    outputs = [(n, I64) for n in ("v", "g", "g0")]
    values = _walked(_model(nodes, inits, outputs, 15, x_shape=["N", 8, 5]), tmp_path)
    assert (values["v"].lower, values["v"].upper, values["v"].terms) == (0, 1, None)
    assert (values["g"].lower.tolist(), values["g"].terms) == ([0], None)
    assert values["g0"].terms is not None  # axis 0: x.shape[0]


def test_a_term_past_64_parts_is_not_written(tmp_path: Path) -> None:
    # d + d doubles the parts of the expression (x.shape[0] + x.shape[0] is 3): 63 are
    # written, 127 are not (no one reads them); the bounds stay
    nodes = [SHAPE, _node("Gather", ["s", "zero"], "a0")]
    nodes += [_node("Add", [f"a{k}", f"a{k}"], f"a{k + 1}") for k in range(6)]
    values = _walked(_model(nodes, [_c("zero", 0)], [("a6", I64)], 15, ["N", 8, 5]), tmp_path)
    parts = [None if v.terms is None else len(v.terms[0][1]) for v in (values["a5"], values["a6"])]
    assert parts == [63, None]
    assert values["a6"].lower == 0


def test_a_size_and_a_shape_cut_of_data_of_unknown_rank_are_unknown(tmp_path: Path) -> None:
    # Shape-15's start and Size read the data's rank: unknown, they give no value and no bounds
    model = _model([_node("Size", ["x"], "n"), _node("Shape", ["x"], "c", start=1)], [], [], 15)
    model.graph.input[0].type.tensor_type.ClearField("shape")  # x of unknown rank
    values = _walked(model, tmp_path)
    assert values["x"].shape.rank is None
    for name in ("n", "c"):
        assert (values[name].value, values[name].lower) == (None, None), name


@pytest.mark.parametrize(
    ("nodes", "opset"),
    [pytest.param(nodes, 15, id=name) for name, nodes in MALFORMED.items()]
    + [pytest.param(nodes, opset, id=name) for name, (opset, nodes) in MALFORMED_AT.items()],
)
def test_malformed_shape_nodes_are_unknown_never_a_traceback(
    nodes: list[Any], opset: int, tmp_path: Path
) -> None:
    nodes = [
        _node("Shape", ["x"], "s"),
        *nodes,
        helper.make_node("Slice", ["x", "zeros", "e"], ["y"]),
    ]
    inits = [
        _c("one", 1),
        _c("zero", 0),
        _c("twice", [0, 0]),
        _c("zeros", [0]),
        _c("neg", [-2]),
        _c("f", [1.0], np.float32),
        _c("empty", []),
        _c("many", np.zeros(SMALL + 1), bool),
    ]
    model = _model(nodes, inits, [("y", F32)], opset)
    for d in ("y0", "y1", "y2"):  # (onnx.checker refuses an output of no shape before inferring)
        model.graph.output[0].type.tensor_type.shape.dim.add(dim_param=d)
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    report = read.check()  # a problem of a Slice, Split or Reshape, or none: never an exception
    # but a node onnx.checker refuses (Where before Where-9, a Neg of two inputs): one problem
    # at it, and opaque, as unknown; and one its strict inference refuses (a Ceil of integers):
    # a problem in onnx's words
    refused = {
        str(k) for k, n in enumerate(model.graph.node) if onnx_graphs.checker_node_error(n, model)
    }
    at = [p.layer_id for p in report.problems if p.layer_id in refused]
    assert sorted(at) == sorted(refused), report.problems
    problems = [p for p in report.problems if p.layer_id not in refused]
    said = onnx_graphs.checker_error(model) or ""
    if refused:  # the checker stops there: ONNX's strict inference of the graph without them
        bare = onnx.ModelProto()
        bare.CopyFrom(model)
        for k in sorted(map(int, refused), reverse=True):
            del bare.graph.node[k]
        try:
            onnx.shape_inference.infer_shapes(bare, check_type=True, strict_mode=True)
        except onnx.shape_inference.InferenceError as exc:
            said += str(exc)
    for p in problems:
        rule = p.message.removeprefix("ONNX's shape inference refuses it: ")
        assert p.layer_type in ("Slice", "Split", "Reshape") or (
            rule != p.message and rule in said
        ), p
    if not problems and str(len(nodes) - 1) not in refused:  # (Slice-1 takes 1 input)
        # the ends unknown, never guessed: dim 0 anything up to 3
        assert str(report.outputs["y"][0]) == "[..3,8,5]"
    read.explain()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_byte_flips_of_a_shape_subgraph_model_are_errors_or_reports(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    directory = tmp_path_factory.mktemp("flip")
    base = data.draw(st.sampled_from(["split lengths", "shape-15 end"]))
    blob = bytearray(_helper_models()[base].SerializeToString())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(blob) - 1))
        blob[at] = data.draw(st.integers(0, 255))
    path = directory / "flipped.onnx"
    path.write_bytes(bytes(blob))
    try:
        model = ir.read_onnx(path)
        model.check()
        model.check({name: "[2..5,3..9]" for name, (s, _) in model.inputs.items() if s.rank == 2})
        model.explain()
    except ValidationError:  # datamove's own errors (ONNXError...): a clear line, no traceback
        pass


_WILD = [0, 1, -1, 2, -2, 3, 2**31, -(2**31), 2**62, -(2**63), 2**63 - 1]


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_wild_values_and_node_types_in_a_shape_subgraph_are_reports(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # values, attributes and node types a hostile file may hold, in a well-formed protobuf
    directory = tmp_path_factory.mktemp("wild")
    models = _helper_models()
    model = models[data.draw(st.sampled_from(sorted(models)))]
    kinds = [*SHAPE_NODES, "Slice", "Concat", "Split"]
    for _ in range(data.draw(st.integers(1, 4))):
        what = data.draw(st.sampled_from(["init", "attr", "kind", "input"]))
        node = data.draw(st.sampled_from(list(model.graph.node)))
        if what == "init":
            init = data.draw(st.sampled_from(list(model.graph.initializer)))
            values = numpy_helper.to_array(init).copy()
            if values.size and values.dtype == np.int64:
                k = data.draw(st.integers(0, values.size - 1))
                values.reshape(-1)[k] = data.draw(st.sampled_from(_WILD))
                init.CopyFrom(numpy_helper.from_array(values, init.name))
        elif what == "attr":
            name = data.draw(st.sampled_from(["axis", "axes", "to", "start", "end", "fmod"]))
            value = data.draw(st.sampled_from([*_WILD, [1, 2], 1.5, "s"]))
            node.attribute.append(helper.make_attribute(name, value))
        elif what == "kind":
            node.op_type = data.draw(st.sampled_from(kinds))
        elif len(node.input):
            del node.input[data.draw(st.integers(0, len(node.input) - 1))]
    path = onnx_graphs.save(model, directory)
    try:
        read = ir.read_onnx(path)
        read.check()
        read.check({"x": "[0..5,3..9]"})
        read.explain()
    except ValidationError:  # a value read before it is made: an ONNXError
        pass


def test_run_time_slice_parameters_past_the_data_s_rank_are_a_problem(tmp_path: Path) -> None:
    # explain raised an IndexError: starts [x.shape[0], x.shape[0]] for a 1-D data; then it
    # was a note of explain alone, and check() said nothing of what onnxruntime refuses
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Slice", ["s", "zero", "one"], "d0"),
        _node("Concat", ["d0", "d0"], "st", axis=0),
        helper.make_node("Slice", ["zeros", "st", "ends"], ["y"]),
    ]
    inits = [_c("zero", [0]), _c("one", [1]), _c("zeros", [0, 0]), _c("ends", [0, 1])]
    model = _model(nodes, inits, [("y", I64)], 13, ["a", "b"])
    with pytest.raises(Exception, match="'axes' has an axis outside of the tensor dimension"):
        _session(model).run(None, {"x": np.zeros((3, 4), np.float32)})
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (problem,) = read.check().problems
    message = (
        "ONNX Slice: starts (known at run time, made by node 2 'st' (Concat)) has 2 values: "
        "the Slice addresses 2 axes of data, but data has rank 1"
    )
    assert (problem.kind, problem.message) == ("operator", message)
    (_, info) = read.explain()
    assert info["numpy"] is None
    assert info["note"] == message


def test_slice_parameters_of_different_lengths_with_one_at_run_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = [helper.make_node("Slice", ["x", "n", "e", "a"], ["y"], name="cut")]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", F32, [4, 5]),
            helper.make_tensor_value_info("n", I64, [2]),
        ],
        [helper.make_tensor_value_info("y", F32, None)],
        initializer=[_c("e", [3]), _c("a", [0, 1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path))
    (problem,) = read.check().problems
    assert problem.kind == "operator"
    assert "axes=[0, 1] has 2 values, but ends has 1" in problem.message
    (info,) = read.explain()
    assert info["numpy"] is None
    assert "has 2 values, but ends has 1" in info["note"]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lo=st.integers(0, 6),
    span=st.integers(0, 8),
    mul=st.integers(-3, 3),
    div=st.sampled_from([1, 2, 3, -2]),
    add=st.integers(-12, 12),
    start=st.integers(-10, 10),
    step=st.sampled_from([1, 2, -1, -3]),
)
def test_bounded_slice_ends_hold_onnxruntime_s_shape_at_every_size(
    lo: int,
    span: int,
    mul: int,
    div: int,
    add: int,
    start: int,
    step: int,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # ends = (x.shape[1] * mul) / div + add, ONNX's truncating division, on sizes lo..lo+span
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "d"),
        _node("Mul", ["d", "mul"], "m"),
        _node("Div", ["m", "div"], "q"),
        _node("Add", ["q", "add"], "e0"),
        _node("Unsqueeze", ["e0", "u0"], "e"),
        helper.make_node("Slice", ["x", "start", "e", "ax", "step"], ["y"]),
    ]
    inits = [
        _c("one", 1),
        _c("mul", mul),
        _c("div", div),
        _c("add", add),
        _c("u0", [0]),
        _c("ax", [1]),
        _c("start", [start]),
        _c("step", [step]),
    ]
    model = _model(nodes, inits, [("y", F32)], 13, [2, "n"])
    path = onnx_graphs.save(model, tmp_path_factory.mktemp("slice"))
    read = ir.read_onnx(path)
    interval = f"[2,{lo}..{lo + span}]"
    inferred = read.check({"x": interval}).outputs["y"][0]
    session = _session(model)
    for n in range(lo, lo + span + 1):  # every size, as the name says (not 1 to 3 drawn)
        (y,) = session.run(["y"], {"x": np.zeros((2, n), dtype=np.float32)})
        assert y.shape in inferred, (interval, n, y.shape, str(inferred))
        assert read.check({"x": f"[2,{n}]"}).outputs["y"][0] == PartialShape(list(y.shape))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lo=st.integers(0, 8),
    span=st.integers(0, 8),
    div=st.sampled_from([1, 2, 3, 5]),
    add=st.integers(-2, 2),
)
def test_bounded_split_lengths_hold_onnxruntime_s_shapes_at_every_size(
    lo: int,
    span: int,
    div: int,
    add: int,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # split = [d / div + add, d - (d / div + add)] on sizes lo..lo+span
    nodes = [
        _node("Shape", ["x"], "s"),
        _node("Gather", ["s", "one"], "d"),
        _node("Div", ["d", "div"], "q"),
        _node("Add", ["q", "add"], "a"),
        _node("Sub", ["d", "a"], "b"),
        _node("Unsqueeze", ["a", "u0"], "au"),
        _node("Unsqueeze", ["b", "u0"], "bu"),
        _node("Concat", ["au", "bu"], "lens", axis=0),
        helper.make_node("Split", ["x", "lens"], ["p", "q2"], axis=1),
    ]
    inits = [_c("one", 1), _c("div", div), _c("add", add), _c("u0", [0])]
    model = _model(nodes, inits, [("p", F32), ("q2", F32)], 13, [2, "n"])
    read = ir.read_onnx(onnx_graphs.save(model, tmp_path_factory.mktemp("split")))
    report = read.check({"x": f"[2,{lo}..{lo + span}]"})
    session = _session(model)
    for n in range(lo, lo + span + 1):  # every size, as the name says (not 1 to 3 drawn)
        try:
            got = session.run(["p", "q2"], {"x": np.zeros((2, n), dtype=np.float32)})
        except Exception:  # noqa: BLE001, S112 - a negative length: onnxruntime refuses it
            continue
        for out, y in zip(("p", "q2"), got, strict=True):
            assert y.shape in report.outputs[out][0], (lo, span, n, out, y.shape)
