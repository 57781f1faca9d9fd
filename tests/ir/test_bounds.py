"""Interval bounds through shape subgraphs (``datamove.ir._bounds``, as OpenVINO's lower and upper
bound evaluation), on models with dynamic and interval input shapes.

For each model: ``check`` is ok; every data-movement port's inferred shape lies inside the one
OpenVINO's own inference declares in the saved IR (as tight or tighter); and it is sound: at
static input shapes inside the input's intervals, every such port's exact shape lies inside the
dynamic inference (as OpenVINO's own static inference declares it, or as its reference evaluate
runs it). Where OpenVINO's bounds exclude what it computes, the test pins the witness
(docs/semantics.md, IR-7 to IR-12)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir
from datamove._shape import PartialShape

ov_models = pytest.importorskip("ov_models")
ov = ov_models.ov
torch = pytest.importorskip("torch")
o13 = pytest.importorskip("openvino.opset13")
openvino_oracle = pytest.importorskip("openvino_oracle")
torch_models = pytest.importorskip("torch_models")

pytestmark = pytest.mark.openvino

# The slicing layers, whose shapes these tests hold to OpenVINO's: not the views (Reshape,
# Transpose...), which take an opaque layer's declared -1 and whose dims OpenVINO relates where
# datamove does not (docs/ir.md, Shape subgraphs)
MOVES = ("Split", "VariadicSplit", "StridedSlice", "Slice", "Concat")


class _RopeCache(torch.nn.Module):
    """RoPE's cos/sin cache cut to the sequence length: ``cos[: x.shape[1]]``."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cos", torch.arange(16 * 4, dtype=torch.float32).view(16, 4))

    def forward(self, x: Any) -> Any:
        return x * self.cos[: x.shape[1]]


class _Fn(torch.nn.Module):
    def __init__(self, fn: Callable[[Any], Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: Any) -> Any:
        return self.fn(x)


# name -> (module, example input shape, input shapes to convert with: -1 dynamic, (lo, hi))
MODELS: dict[str, tuple[Callable[[], Any], tuple[int, ...], list[list[Any]]]] = {
    "lstm chunk": (torch_models.LstmCell, (2, 6), [[-1, 6], [(1, 8), 6]]),
    "rope cache": (_RopeCache, (1, 5, 4), [[-1, -1, 4], [1, (2, 10), 4]]),
    "half": (
        lambda: _Fn(lambda x: x[:, : x.shape[1] // 2]),
        (2, 8, 3),
        [[-1, 8, -1], [2, (4, 9), 3]],
    ),
    "chunk in halves": (
        lambda: _Fn(lambda x: torch.cat(x.chunk(2, dim=-1)[::-1], -1)),
        (2, 3, 8),
        [[-1, -1, 8], [(1, 4), 3, 8]],
    ),
    "all but the last": (
        lambda: _Fn(lambda x: x[:, : x.shape[1] - 1, 1:]),
        (2, 6, 3),
        [[-1, -1, 3], [2, (3, 7), (2, 5)]],
    ),
    # one per rule of Mod, FloorMod, ReduceProd and Abs, as PyTorch's converter writes them
    "remainder": (lambda: _Fn(lambda x: x[:, : x.shape[1] % 4]), (2, 7, 3), [[-1, -1, 3]]),
    "fmod": (
        lambda: _Fn(lambda x: x[:, : torch.fmod(torch.as_tensor(x.shape[1]), 4)]),
        (2, 7, 3),
        [[-1, -1, 3], [2, (4, 9), 3]],
    ),
    "chunk in thirds": (  # FloorMod, Mod and Greater in the lengths
        lambda: _Fn(lambda x: x.chunk(3, dim=1)[0]),
        (2, 7, 3),
        [[-1, (2, 12), 3], [2, (4, 9), 3]],  # 1 row: lengths [1,1,-1], which do not fit
    ),
    "numel": (
        lambda: _Fn(lambda x: x[:, : x.numel() // 40]),
        (2, 7, 8),
        [[(1, 4), (2, 10), 8], [2, (2, 10), 8]],
    ),
    "abs": (
        lambda: _Fn(lambda x: x[:, : abs(x.shape[1] - 5)]),
        (2, 7, 8),
        [[(1, 3), (6, 12), 8]],
    ),
    # tensor_split's lengths: Tiles of values computed from the dim (a hunt's find)
    "tensor_split": (
        lambda: _Fn(lambda x: torch.cat(x.tensor_split(3, dim=1)[1:], 1)),
        (2, 7, 3),
        [[2, 7, 3], [-1, 7, -1], [(1, 3), 7, 3]],  # OpenVINO cannot save a dynamic dim 1
    ),
    # opaque data layers that move dims (a hunt's finds): their output shapes from the input's
    "unsqueeze": (
        lambda: _Fn(lambda x: torch.cat([x[None], x[None]], 2)[..., 1:-2]),
        (5, 7, 1),
        [[5, (4, 9), (0, 1)], [-1, (4, 9), -1]],
    ),
    "gather": (lambda: _Fn(lambda x: x[:, 1][..., :3]), (2, 4, 6), [[(1, 4), (2, 8), (2, 10)]]),
    "permute": (
        lambda: _Fn(lambda x: x.permute(2, 0, 1)[1:, :, ::2]),
        (2, 3, 6),
        [[(1, 4), 3, (2, 10)], [-1, 3, (2, 10)]],
    ),
    # real architectures on interval inputs: MatMul, Add, Sigmoid... between the input and the
    # moves, their output shapes computed from their inputs' (a hunt's find: [?,?,16] for GPT-2's
    # split where OpenVINO declares [1..5,4..8,16])
    **{
        f"real {name}": (
            module,
            example,
            [
                [
                    (max(1, e - 1), e + 3) if d == -1 else d
                    for d, e in zip(dims, example, strict=True)
                ]
            ],
        )
        for name, (module, example, dims) in torch_models.REAL.items()
        if name != "swin patch merging"  # its slices first; odd sizes never run
    },
    # an opaque Reshape between the input and the slice: its output shape from its target
    "flatten": (lambda: _Fn(lambda x: x.flatten()[:5]), (2, 4, 8), [[(1, 4), (2, 10), 8]]),
}
# OpenVINO relates the Reshape's -1 to x.shape[1] (the batch cancels out), so it declares the
# slice [?,2,4]; datamove's [1..4,2,1..4] is looser, and only the model's inputs can tell
RELATED = {
    "view with a zero": (  # special_zero: 0 copies the input's dim
        lambda: _Fn(lambda x: x.reshape(x.shape[0], 2, -1)[:, :, 1:5]),
        (2, 4, 8),
        [[(1, 4), (2, 10), 8]],
    ),
    "view": (
        lambda: _Fn(lambda x: x.reshape(x.shape[0], -1)[:, 3:20]),
        (2, 4, 8),
        [[(1, 4), (2, 10), 8], [-1, (2, 10), 8], [(1, 4), -1, 8]],
    ),
    "view as a Concat's second input": (  # [?,2,5], where [3,2,3] alone would give [3,2,2]
        lambda: _Fn(
            lambda x: torch.cat([x[:, :2, :1], x.reshape(x.shape[0], 2, -1)], dim=2)[:, :, 1:6]
        ),
        (2, 4, 8),
        [[(1, 4), (2, 10), 8]],
    ),
}
# The -1 beside a copied dim is the other input dims over the other target dims (the CPU plugin's
# rule), so x.reshape(x.shape[0], 2, -1) of [1..4,2..10,8] is [1..4,2,8..40]: the slice after it
# is [1..4,2,4] on every input
EXACT_AFTER = ("view with a zero", "view as a Concat's second input")
CASES = [(name, k) for name, (_, _, shapes) in MODELS.items() for k in range(len(shapes))]


def _dims(dims: list[Any]) -> Any:
    return ov.PartialShape([ov.Dimension(*d) if isinstance(d, tuple) else d for d in dims])


def _convert(name: str, k: int, tmp_path: Path) -> Path:
    module, example, shapes = MODELS[name]
    return _convert_module(module(), example, shapes[k], tmp_path)[0]


def _convert_module(module: Any, example: tuple[int, ...], dims: list[Any], tmp_path: Path) -> Any:
    """The module converted on input ``dims``, saved; and OpenVINO's model in memory."""
    converted = torch_models.convert(module, example, _dims(dims))
    converted.inputs[0].get_tensor().set_names({"x"})
    return ov_models.save(converted, tmp_path, "bounded"), converted


def _openvino_shapes(xml: Path, shape: list[Any]) -> dict[tuple[str, int], PartialShape]:
    """(layer name, output) -> the shape OpenVINO infers in memory for each data-movement layer,
    the model reshaped to its input shape (the saved IR writes intervals as -1)."""
    model = ov.Core().read_model(str(xml))
    model.reshape({model.inputs[0]: _dims(shape)})
    moves = {t.lower() for t in MOVES}
    return {
        (op.get_friendly_name(), op.get_input_size() + k): PartialShape(
            str(op.get_output_partial_shape(k))
        )
        for op in model.get_ordered_ops()
        if op.get_type_name().lower() in moves
        for k in range(op.get_output_size())
    }


def _moves(model: ir.Model) -> list[Any]:
    return [x for x in model._graph.layers if x.type in MOVES]


def _inside(mine: PartialShape, theirs: PartialShape) -> bool:
    return mine.rank == theirs.rank and all(
        a in b for a, b in zip(mine.dims, theirs.dims, strict=True)
    )


def _samples(shape: list[Any]) -> list[tuple[int, ...]]:
    """Static shapes inside ``shape``: each dynamic dim at its ends and a middle size."""
    options = []
    for d in shape:
        if isinstance(d, tuple):
            options.append(sorted({d[0], (d[0] + d[1]) // 2, d[1]}))
        elif d == -1:
            options.append([1, 3])
        else:
            options.append([d])
    return list(itertools.product(*options))


def _static(xml: Path, shape: tuple[int, ...], tmp_path: Path) -> Path:
    """The model reshaped by OpenVINO to a static input shape: its declared dims are exact."""
    model = ov.Core().read_model(str(xml))
    model.reshape({model.inputs[0]: ov.PartialShape(list(shape))})
    return ov_models.save(model, tmp_path, "static")


@pytest.mark.parametrize(("name", "k"), CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_bounds_are_as_tight_as_openvino_and_sound(tmp_path: Path, name: str, k: int) -> None:
    xml = _convert(name, k, tmp_path)
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok, report.problems
    inferred = {
        (x.name, p.id): report.ports[(x.id, p.id)] for x in _moves(model) for p in x.outputs
    }
    assert inferred
    theirs = _openvino_shapes(xml, MODELS[name][2][k])
    assert set(theirs) == set(inferred)
    for x in _moves(model):  # as tight as OpenVINO's declared dims, or tighter
        for port in x.outputs:
            assert _inside(inferred[(x.name, port.id)], port.shape), (x.name, port.shape)
            mine, its = inferred[(x.name, port.id)], theirs[(x.name, port.id)]
            # Looser only where the file is: an opaque layer of no shape rule (a Convolution)
            # keeps its declared dims, and the IR writes an interval as -1
            assert _inside(mine, its) or mine == port.shape, (x.name, mine, its)
    _assert_sound(xml, MODELS[name][2][k], inferred, tmp_path)


@pytest.mark.parametrize("name", [n for n in MODELS if n.startswith("real ")])
def test_compute_layers_keep_the_intervals_openvino_keeps(tmp_path: Path, name: str) -> None:
    # MatMul, Add, Sigmoid, SoftMax...: their output shapes from their inputs', so every move
    # after them is as tight as OpenVINO's own inference of the file (datamove took them as the
    # file declares them, -1 for each interval: GPT-2's split [?,?,16], OpenVINO [1..5,4..8,16])
    xml = _convert(name, 0, tmp_path)
    report = ir.read_model(xml).check()
    ov_model = ov.Core().read_model(str(xml))
    ops = {op.get_friendly_name(): op for op in ov_model.get_ordered_ops()}
    moves = [x for x in _moves(ir.read_model(xml)) if x.name in ops]
    assert moves
    for x in moves:
        for k, port in enumerate(x.outputs):
            its = PartialShape(str(ops[x.name].get_output_partial_shape(k)))
            assert _inside(report.ports[(x.id, port.id)], its), (x.name, its)


@pytest.mark.parametrize("name", RELATED)
def test_after_a_reshape_of_related_dims_only_the_model_inputs_give_a_witness(
    tmp_path: Path, name: str
) -> None:
    module, example, shapes = RELATED[name]
    for dims in shapes:
        xml = _convert_module(module(), example, dims, tmp_path)[0]
        model = ir.read_model(xml)
        report = model.check()
        assert report.ok, report.problems  # no data shape alone is a witness here
        inferred = {
            (x.name, p.id): report.ports[(x.id, p.id)] for x in _moves(model) for p in x.outputs
        }
        _assert_sound(xml, dims, inferred, tmp_path)
    # a slice declared too narrow there is found over the model's inputs
    text = xml.read_text()
    start = text.index("<output>", text.rindex('type="Slice"'))  # the last
    end = text.index("</output>", start)
    last = text.rindex("<dim>", start, end)
    xml.write_text(text[:last] + "<dim>2</dim>" + text[text.index("</dim>", last) + 6 :])
    (problem,) = ir.read_model(xml).check().problems
    assert problem.kind == "shape"
    if name in EXACT_AFTER:  # the slice's dim is known: its port disagrees, no witness needed
        assert problem.model_inputs is None
        assert ", but the shape is [1..4,2," in problem.message
    else:
        assert problem.model_inputs is not None, problem


def _assert_sound(
    xml: Path, dims: list[Any], inferred: dict[Any, PartialShape], tmp_path: Path
) -> None:
    """At static shapes inside ``dims``, each exact shape lies inside the inferred one."""
    for shape in _samples(dims):
        static = ir.read_model(_static(xml, shape, tmp_path))
        assert static.check().ok  # datamove agrees with every static dim OpenVINO declares
        for x in _moves(static):  # sound: each exact shape lies inside the dynamic one
            for port in x.outputs:
                assert port.shape.is_static
                bound = inferred[(x.name, port.id)]
                assert _inside(port.shape, bound), (shape, x.name, port.shape, bound)


def _split_shapes(xml: Path) -> list[str]:
    model = ir.read_model(xml)
    report = model.check()
    return [
        str(report.ports[(x.id, p.id)])
        for x in _moves(model)
        if x.type != "Concat"
        for p in x.outputs
    ]


def test_lstm_chunk_lengths_known_on_a_dynamic_batch(tmp_path: Path) -> None:
    # chunk(4)'s split_lengths come from ShapeOf(x)[1] of the Linear's output: 16 by its
    # bounds, whatever the batch. OpenVINO's bound evaluation knows it too.
    xml = _convert("lstm chunk", 0, tmp_path)
    assert _split_shapes(xml) == ["[?,4]"] * 4
    xml = _convert("lstm chunk", 1, tmp_path)  # [1..8,6]: the MatMul's shape from its inputs'
    assert _split_shapes(xml) == ["[1..8,4]"] * 4


def test_a_stop_from_a_dynamic_dim_is_an_interval(tmp_path: Path) -> None:
    xml = _convert("rope cache", 0, tmp_path)  # cos[: x.shape[1]] of 16 rows
    assert _split_shapes(xml) == ["[..16,4]"]
    xml = _convert("rope cache", 1, tmp_path)
    assert _split_shapes(xml) == ["[2..10,4]"]
    xml = _convert("all but the last", 1, tmp_path)  # x[:, : x.shape[1] - 1, 1:]
    assert _split_shapes(xml) == ["[2,2..6,1..4]"]


# -- the rules one by one, each feeding a Slice's stop, against OpenVINO's declared dims ---------
def _c(values: Any, dtype: Any = np.int64) -> Any:
    return o13.constant(np.array(values, dtype=dtype))


def _dim(x: Any, k: int, out: str = "i64") -> Any:
    return o13.gather(o13.shape_of(x, out), _c([k]), _c(0))


def _divide(a: Any, b: Any, *, python: bool) -> Any:
    node = o13.divide(a, b)
    node.set_attribute("m_pythondiv", python)
    return node


STOPS: dict[str, Callable[[Any], Any]] = {
    "subtract": lambda x: o13.subtract(_dim(x, 1), _c([3])),
    "add multiply": lambda x: o13.add(o13.multiply(_dim(x, 1), _c([2])), _c([-9])),
    "negative multiply": lambda x: o13.multiply(_dim(x, 1), _c([-1])),
    "divide python": lambda x: _divide(_dim(x, 1), _c([3]), python=True),
    "divide truncated": lambda x: _divide(o13.subtract(_c([2]), _dim(x, 1)), _c([3]), python=False),
    "minimum maximum": lambda x: o13.maximum(o13.minimum(_dim(x, 1), _c([7])), _c([4])),
    "i32 convert": lambda x: o13.convert(o13.add(_dim(x, 1, "i32"), _c([1], np.int32)), "i64"),
    "f32 floor": lambda x: o13.convert(
        o13.floor(o13.divide(o13.convert(_dim(x, 1), "f32"), _c([2.0], np.float32))), "i64"
    ),
    "select": lambda x: o13.select(
        o13.greater(_dim(x, 1), _c([20])), _c([1]), o13.subtract(_dim(x, 1), _c([1]))
    ),
    "concat unsqueeze squeeze": lambda x: o13.squeeze(
        o13.unsqueeze(o13.concat([_dim(x, 0), _dim(x, 1)], 0), _c([0])), _c([0])
    ),
    "the static dim": lambda x: _dim(x, 2),
    "divisor may be 0": lambda x: _divide(_c([12]), o13.subtract(_dim(x, 1), _c([5])), python=True),
    "i32 batch plus one": lambda x: o13.add(_dim(x, 0, "i32"), _c([1], np.int32)),
    "less select": lambda x: o13.select(o13.less(_dim(x, 1), _c([5])), _c([1]), _c([3])),
    "equal select": lambda x: o13.select(o13.equal(_dim(x, 2), _c([6])), _c([4]), _c([3])),
    "to boolean and back": lambda x: o13.convert(o13.convert(_dim(x, 1), "boolean"), "i64"),
    "u8 that may wrap": lambda x: o13.convert(o13.multiply(_dim(x, 1), _c([30])), "u8"),
    "scalars": lambda x: o13.unsqueeze(  # 0-d bounds (check() crashed on them)
        o13.add(o13.gather(o13.shape_of(x), _c(1), _c(0)), _c(-5)), _c([0])
    ),
    "mod": lambda x: o13.mod(_dim(x, 1), _c([4])),
    "mod of a negative divisor": lambda x: o13.mod(_dim(x, 1), _c([-4])),
    "mod by an interval": lambda x: o13.mod(_c([12]), o13.subtract(_dim(x, 1), _c([1]))),
    "mod of a negative dividend": lambda x: o13.add(
        o13.mod(o13.multiply(_dim(x, 1), _c([-1])), _c([4])), _c([4])
    ),
    "floor mod": lambda x: o13.floor_mod(_dim(x, 1), _c([4])),
    "floor mod of a negative divisor": lambda x: o13.add(
        o13.floor_mod(_dim(x, 1), _c([-4])), _c([4])
    ),
    "floor mod by an interval": lambda x: o13.floor_mod(
        _c([12]), o13.subtract(_dim(x, 1), _c([1]))
    ),
    "abs": lambda x: o13.absolute(o13.subtract(_dim(x, 1), _c([5]))),
    "abs of a negative": lambda x: o13.absolute(o13.subtract(_c([1]), _dim(x, 1))),
    "reduce prod": lambda x: _divide(
        o13.reduce_prod(o13.concat([_dim(x, 1), _dim(x, 2)], 0), _c([0]), True),
        _c([12]),
        python=True,
    ),
    "reduce prod of the whole shape": lambda x: o13.reduce_prod(o13.shape_of(x), _c([0]), True),
}
# The rules checked at every row count of X (a remainder repeats with a period the ends miss)
DENSE = {name for name in STOPS if "mod" in name or "abs" in name or "reduce" in name}
X = [-1, (2, 10), 6]  # the Parameter: a dynamic batch, an interval, a static dim


# Where datamove's bounds are tighter than OpenVINO's: name -> (OpenVINO's, datamove's)
TIGHTER = {
    "f32 floor": ("[?,..10,6]", "[?,1..5,6]"),  # OpenVINO drops the bounds through floats
    "select": ("[?,..10,6]", "[?,1..9,6]"),  # OpenVINO: a Select of unknown condition is 0..max
    "i32 batch plus one": ("[?,..10,6]", "[?,1..10,6]"),  # OpenVINO: a dynamic batch, 0..max
    "less select": ("[?,..10,6]", "[?,1..3,6]"),
    # 60..300 may wrap (it does at 9 and 10 rows): datamove takes u8's whole range, OpenVINO
    # keeps [2..10], which happens to hold here (IR-8 has one where it does not)
    "u8 that may wrap": ("[?,2..10,6]", "[?,..10,6]"),
    "mod of a negative divisor": ("[?,..5,6]", "[?,..3,6]"),  # OpenVINO: |divisor| + 1
}
LOOSER = {"u8 that may wrap"}  # datamove looser than OpenVINO, and sound (IR-8)
# Where OpenVINO's bounds exclude what its reference evaluate gives (docs/semantics.md): name ->
# (OpenVINO's, datamove's). FloorMod's are its remainders of each bound (IR-10), Mod's assume
# a dividend of 0 or more (IR-11), Abs's are the absolute values of each bound (IR-12).
UNSOUND = {
    "floor mod": ("[?,2,6]", "[?,..3,6]"),
    "floor mod of a negative divisor": ("[?,2,6]", "[?,1..4,6]"),
    "floor mod by an interval": ("[?,..3,6]", "[?,..5,6]"),
    "mod of a negative dividend": ("[?,2..7,6]", "[?,1..4,6]"),
    "abs": ("[?,2..5,6]", "[?,..5,6]"),
}


def _stop_model(name: str, tmp_path: Path, make: Callable[[Any], Any] | None = None) -> Any:
    """The Slice fed by the stop, saved; and the output shape OpenVINO infers for it in memory
    (the saved IR writes every dynamic dim as -1, its interval lost)."""
    x = o13.parameter(_dims(X), np.float32, name="x")
    stop = (make or STOPS[name])(x)
    axes = [0, 1] if name == "concat unsqueeze squeeze" else [1]
    n = len(axes)
    out = o13.slice(x, _c([0] * n), stop, _c([1] * n), _c(axes))
    xml = ov_models.save(ov.Model([out], [x], name), tmp_path, "stop")
    return xml, str(out.get_output_partial_shape(0))


@pytest.mark.parametrize("name", list(STOPS))
def test_each_rule_is_as_tight_as_openvino_and_sound(tmp_path: Path, name: str) -> None:
    xml, theirs = _stop_model(name, tmp_path)
    model = ir.read_model(xml)
    report = model.check()
    (layer,) = [x for x in _moves(model) if x.type == "Slice"]
    (port,) = layer.outputs
    mine = report.ports[(layer.id, port.id)]
    if name in UNSOUND:  # a file that keeps OpenVINO's static dim is a problem (test below)
        assert (theirs, str(mine)) == UNSOUND[name]
        assert report.ok != port.shape[1].is_static, report.problems
    else:
        assert report.ok, report.problems
        assert name in LOOSER or _inside(mine, PartialShape(theirs)), (mine, theirs)
        assert (theirs, str(mine)) == TIGHTER.get(name, (theirs, theirs))
    if name == "divisor may be 0":
        return  # stop unknown (not run: a zero divisor at size 5 is undefined)
    outside = []  # the row counts at which OpenVINO's bounds exclude the exact shape
    for shape in [(1, rows, 6) for rows in range(2, 11)] if name in DENSE else _samples(X):
        exact = ir.read_model(xml).check({"x": list(shape)})
        assert exact.ok or name in UNSOUND
        got = exact.ports[(layer.id, port.id)]
        assert got.is_static
        assert _inside(got, mine), (shape, got, mine)
        x = np.zeros(shape, dtype=np.float32)
        (ran,) = openvino_oracle.evaluate_ir(xml, {"x": x})  # the reference (IR-9: CPU)
        assert ran.shape == got.to_shape()
        if not _inside(got, PartialShape(theirs)):
            outside.append(shape[1])
    assert bool(outside) == (name in UNSOUND), outside


def test_openvino_bounds_ignore_an_overflow_its_evaluate_wraps(tmp_path: Path) -> None:
    # stop = x.shape[1] * 2**61 on [?,2..10,6]: OpenVINO declares [?,2..10,6], yet at 4 rows the
    # product wraps to INT64_MIN and its reference evaluate gives 0 rows (the CPU plugin 4).
    # The spec leaves the overflow undefined; datamove takes the stop's whole i64 range, so the
    # slice any of them gives lies inside its [?,..10,6] (docs/semantics.md, IR-7).
    xml, theirs = _stop_model("overflow", tmp_path, lambda x: o13.multiply(_dim(x, 1), _c([2**61])))
    assert theirs == "[?,2..10,6]"
    report = ir.read_model(xml).check()
    assert report.ok
    assert [str(s) for s, _ in report.outputs.values()] == ["[?,..10,6]"]
    (out,) = openvino_oracle.evaluate_ir(xml, {"x": np.zeros((1, 4, 6), np.float32)})
    assert out.shape == (1, 0, 6)
    assert 0 not in PartialShape(theirs)[1]
    (ran,) = ov_models.run_openvino(xml, {"x": np.zeros((1, 4, 6), np.float32)}).values()
    assert ran.shape == (1, 4, 6)


def test_openvino_bounds_of_a_wrapping_convert_exclude_what_its_evaluate_gives(
    tmp_path: Path,
) -> None:
    # stop = Convert(x.shape[1] * k, u8) on [?,2..10,6]; Convert wraps modulo 256 (the spec).
    # k=64: OpenVINO declares [?,2..10,6]; at 4 rows 256 wraps to 0 and its reference evaluate
    # gives 0 rows (its CPU plugin saturates to 255 and gives 4). k=128: it declares [?,0,6],
    # yet at 3 rows 384 wraps to 128 and evaluate gives 3 rows. datamove: [?,..10,6] for both.
    # The file keeps the static 0 of k=128 (an interval is written -1): check finds the witness
    # over the model's input shapes, the stop being computed from them.
    for k, declared, rows, out in [(64, "[?,2..10,6]", 4, 0), (128, "[?,0,6]", 3, 3)]:
        xml, theirs = _stop_model(
            "u8", tmp_path, lambda x, k=k: o13.convert(o13.multiply(_dim(x, 1), _c([k])), "u8")
        )
        assert theirs == declared
        report = ir.read_model(xml).check()
        assert [str(s) for s, _ in report.outputs.values()] == ["[?,..10,6]"]
        if k == 64:
            assert report.ok
        else:
            (problem,) = report.problems
            assert (problem.kind, problem.layer_type) == ("shape", "Slice")
            assert problem.model_inputs == {"x": (3, 3, 6)}
            assert problem.witness == ((3, 3, 6), (3, 3, 6))
            assert problem.message == (
                "declares [?,0,6], but with input x of shape [3,3,6] it gives [3,3,6] "
                "(the shape is [?,..10,6])"
            )
            (got,) = openvino_oracle.evaluate_ir(xml, {"x": np.zeros((3, 3, 6), np.float32)})
            assert got.shape == (3, 3, 6)
        x = np.zeros((1, rows, 6), np.float32)
        (got,) = openvino_oracle.evaluate_ir(xml, {"x": x})
        assert got.shape == (1, out, 6)
        assert out not in PartialShape(declared)[1]
        # datamove folds the static shape as evaluate does (the wrap)
        exact = ir.read_model(xml).check({"x": [1, rows, 6]})
        assert [s.to_shape() for s, _ in exact.outputs.values()] == [(1, out, 6)]


# -- StridedSlice and VariadicSplit read intervals too -----------------------------------------
def test_strided_slice_and_variadic_split_take_interval_parameters(tmp_path: Path) -> None:
    o1 = pytest.importorskip("openvino.opset1")
    x = o13.parameter(_dims(X), np.float32, name="x")
    end = o13.concat([_c([0]), o13.subtract(_dim(x, 1), _c([3]))], 0)
    ss = o1.strided_slice(x, _c([0, 0]), end, _c([1, 1]), [1, 1], [1, 0])
    lengths = o13.concat([o13.subtract(_dim(x, 1), _c([2])), _c([2])], 0)
    vs = o13.variadic_split(x, _c(1), lengths)
    rest = o13.variadic_split(x, _c(1), o13.concat([_c([-1]), _dim(x, 2)], 0))
    outs = [ss.output(0), *vs.outputs(), *rest.outputs()]
    theirs = [str(o.get_partial_shape()) for o in outs]
    xml = ov_models.save(ov.Model(outs, [x], "m"), tmp_path, "m")
    report = ir.read_model(xml).check()
    assert report.ok
    mine = [str(s) for s, _ in report.outputs.values()]
    assert theirs == ["[?,..9,6]", "[?,?,6]", "[?,?,6]", "[?,?,6]", "[?,6,6]"]
    assert mine == ["[?,..9,6]", "[?,..8,6]", "[?,2,6]", "[?,..4,6]", "[?,6,6]"]
    for rows in (6, 8, 10):  # sound: the exact shapes lie inside (fewer than 6 rows: invalid)
        exact = ir.read_model(xml).check({"x": [1, rows, 6]})
        for got, bound in zip(exact.outputs.values(), report.outputs.values(), strict=True):
            assert _inside(got[0], bound[0])


def test_openvino_cpu_plugin_drops_a_convert_to_boolean(tmp_path: Path) -> None:
    # stop = Convert(Convert(x.shape[1], boolean), i64) is 1 (the spec, the reference evaluate
    # and OpenVINO's declared [?,1,6]); the CPU plugin runs it as x.shape[1]: all the rows,
    # outside its own declared dims (IR-9). datamove follows the spec.
    xml, theirs = _stop_model("to boolean and back", tmp_path)
    assert theirs == "[?,1,6]"
    x = np.zeros((1, 3, 6), np.float32)
    (reference,) = openvino_oracle.evaluate_ir(xml, {"x": x})
    (cpu,) = ov_models.run_openvino(xml, {"x": x}).values()
    assert (reference.shape, cpu.shape) == ((1, 1, 6), (1, 3, 6))
    exact = ir.read_model(xml).check({"x": [1, 3, 6]})
    assert [s.to_shape() for s, _ in exact.outputs.values()] == [(1, 1, 6)]


# -- where OpenVINO's bounds are unsound: Mod, FloorMod, Abs (docs/semantics.md) ------------------
def _slice_port(xml: Path, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape OpenVINO's reference evaluate gives the model's output at this input shape."""
    (out,) = openvino_oracle.evaluate_ir(xml, {"x": np.zeros(shape, np.float32)})
    return tuple(out.shape)


def test_openvino_bounds_of_floor_mod_are_the_remainders_of_its_bounds(tmp_path: Path) -> None:
    # IR-10. stop = x.shape[1] % 4 (FloorMod) on [?,2..10,6]: OpenVINO's bounds are the
    # remainders of the bounds 2 and 10, both 2. It declares [?,2,6], yet at 3 rows its reference
    # evaluate gives 3 rows, and its CPU plugin, which folds the stop to 2, gives 2 (against the
    # spec). datamove: the remainders of every value, [?,..3,6]; the file keeps the static 2,
    # and check finds the witness.
    xml, theirs = _stop_model("floor mod", tmp_path)
    assert theirs == "[?,2,6]"
    report = ir.read_model(xml).check()
    assert [str(s) for s, _ in report.outputs.values()] == ["[?,..3,6]"]
    (problem,) = report.problems
    assert (problem.kind, problem.layer_type) == ("shape", "Slice")
    given = problem.model_inputs["x"]
    assert given[1] % 4 != 2
    assert _slice_port(xml, given) == (given[0], given[1] % 4, 6)
    assert _slice_port(xml, (1, 3, 6)) == (1, 3, 6)
    (cpu,) = ov_models.run_openvino(xml, {"x": np.zeros((1, 3, 6), np.float32)}).values()
    assert cpu.shape == (1, 2, 6)
    # PyTorch's x[:, : x.shape[1] % 4] converted on [2,2..10,8]: convert_model folds the stop
    # to the constant 2, the model is wrong at 3 rows (PyTorch: 3), and no reader can tell.
    module = _Fn(lambda x: x[:, : x.shape[1] % 4])
    xml, converted = _convert_module(module, (2, 7, 8), [2, (2, 10), 8], tmp_path)
    assert "FloorMod" not in {op.get_type_name() for op in converted.get_ordered_ops()}
    assert tuple(module(torch.zeros(2, 3, 8)).shape) == (2, 3, 8)
    assert _slice_port(xml, (2, 3, 8)) == (2, 2, 8)
    # on [2,4..9,3] the stop stays a FloorMod: OpenVINO's [2,..1,3] misses 6 rows (2)
    xml, converted = _convert_module(module, (2, 7, 3), [2, (4, 9), 3], tmp_path)
    assert str(converted.outputs[0].get_partial_shape()) == "[2,..1,3]"
    report = ir.read_model(xml).check()
    assert report.ok  # the IR writes the interval as -1
    assert [str(s) for s, _ in report.outputs.values()] == ["[2,..3,3]"]
    assert _slice_port(xml, (2, 6, 3)) == (2, 2, 3)


def test_openvino_bounds_of_mod_take_the_dividend_as_not_negative(tmp_path: Path) -> None:
    # IR-11. stop = (-x.shape[1]) mod 4 + 4 (Mod: the sign of the dividend) on [?,2..10,6]:
    # OpenVINO declares [?,2..7,6], yet at 3 rows -3 mod 4 + 4 = 1 and its reference evaluate
    # gives 1 row. datamove: [?,1..4,6], each value's remainder.
    xml, theirs = _stop_model("mod of a negative dividend", tmp_path)
    assert theirs == "[?,2..7,6]"
    report = ir.read_model(xml).check()
    assert report.ok  # the IR writes the interval as -1
    assert [str(s) for s, _ in report.outputs.values()] == ["[?,1..4,6]"]
    assert _slice_port(xml, (1, 3, 6)) == (1, 1, 6)
    assert 1 not in PartialShape(theirs)[1]


def test_openvino_bounds_of_abs_are_the_absolute_values_of_its_bounds(tmp_path: Path) -> None:
    # IR-12. stop = |x.shape[1] - 5| on [?,2..10,6]: OpenVINO's bounds are |2-5| and |10-5|, and
    # it declares [?,2..5,6]; at 5 rows its reference evaluate gives 0 rows, at 4 rows 1.
    # datamove: 0 where the interval holds 0, [?,..5,6].
    xml, theirs = _stop_model("abs", tmp_path)
    assert theirs == "[?,2..5,6]"
    report = ir.read_model(xml).check()
    assert [str(s) for s, _ in report.outputs.values()] == ["[?,..5,6]"]
    assert [_slice_port(xml, (1, rows, 6))[1] for rows in (4, 5)] == [1, 0]
    # PyTorch's x[:, : abs(x.shape[1] - 5)] on [2,2..10,8] likewise: [2,2..5,8]
    module = _Fn(lambda x: x[:, : abs(x.shape[1] - 5)])
    xml, converted = _convert_module(module, (2, 7, 8), [2, (2, 10), 8], tmp_path)
    assert str(converted.outputs[0].get_partial_shape()) == "[2,2..5,8]"
    report = ir.read_model(xml).check()
    assert report.ok
    (mine,) = [s for s, _ in report.outputs.values()]
    assert str(mine) == "[2,..5,8]"
    assert _slice_port(xml, (2, 5, 8)) == (2, 0, 8) == tuple(module(torch.zeros(2, 5, 8)).shape)
    moves = {
        (x.name, p.id): report.ports[(x.id, p.id)]
        for x in _moves(ir.read_model(xml))
        for p in x.outputs
    }
    _assert_sound(xml, [2, (2, 10), 8], moves, tmp_path)


def test_modulo_numel_and_abs_bound_the_slices_they_feed(tmp_path: Path) -> None:
    # PyTorch's %, torch.fmod, numel() and abs() in a slice's stop, converted: the stop's bounds
    # (FloorMod, Mod, ReduceProd, Abs) bound the slice, where they gave none before.
    expected = {
        ("remainder", 0): "[?,..3,3]",  # OpenVINO: [?,?,3]
        ("fmod", 0): "[?,..3,3]",  # OpenVINO: [?,?,3]
        ("fmod", 1): "[2,..3,3]",
        ("numel", 0): "[1..4,..8,8]",  # OpenVINO: [1..4,..10,8] (it drops Floor's bounds)
        ("numel", 1): "[2,..4,8]",  # OpenVINO: [2,..10,8]
        ("abs", 0): "[1..3,1..7,8]",
    }
    for (name, k), shape in expected.items():
        assert _split_shapes(_convert(name, k, tmp_path)) == [shape], (name, k)
    # chunk(3)'s lengths: x.shape[1] // 3 + (x.shape[1] % 3 > 0), in i32; unbounded where the
    # dim is, not up to i32's maximum
    module = MODELS["chunk in thirds"][0]()
    xml, _ = _convert_module(module, (2, 7, 3), [-1, -1, 3], tmp_path)
    assert _split_shapes(xml) == ["[?,?,3]"] * 3
    assert _split_shapes(_convert("chunk in thirds", 0, tmp_path)) == [
        "[?,..5,3]",  # OpenVINO: [?,?,3]
        "[?,..5,3]",
        "[?,..12,3]",
    ]
    assert _split_shapes(_convert("chunk in thirds", 1, tmp_path)) == [
        "[2,1..4,3]",  # OpenVINO: [2,?,3]
        "[2,1..4,3]",
        "[2,..7,3]",  # what the others leave of 4..9
    ]


# -- element-wise and MatMul shapes: two Parameters, the layer, a Slice after it ----------------
o1 = pytest.importorskip("openvino.opset1")
TWO: dict[str, tuple[list[Any], list[Any], Callable[[Any, Any], Any]]] = {
    "add, one broadcast": ([(1, 5), 4], [3, 4], o13.add),
    # the IR writes Relu as "ReLU" and Softmax as "SoftMax": types are read in any case
    "relu softmax add": ([(1, 5), 4], [1, 4], lambda a, b: o13.add(o13.softmax(o13.relu(a), 1), b)),
    "multiply, both broadcast": ([-1, 1, 4], [(2, 6), 3, 1], o13.multiply),
    "subtract, no broadcast": ([(2, 5), 4], [(3, 8), 4], lambda a, b: o1.subtract(a, b, "none")),
    "matmul": ([(1, 3), (2, 6), 8], [8, 5], lambda a, b: o13.matmul(a, b, False, False)),
    "matmul transpose_b": ([(2, 4), 7], [3, 7], lambda a, b: o13.matmul(a, b, False, True)),
    "matmul transpose_a": ([7, (2, 4)], [7, 3], lambda a, b: o13.matmul(a, b, True, False)),
    # a mode datamove does not read: the shape OpenVINO declares, kept
    "add, pdpd broadcast": ([(1, 5), 4], [4], lambda a, b: o1.add(a, b, "pdpd")),
    "matmul batch": ([1, (2, 5), 6], [3, 6, 2], lambda a, b: o13.matmul(a, b, False, False)),
}


@pytest.mark.parametrize("name", TWO)
def test_element_wise_and_matmul_shapes_are_openvino_s(tmp_path: Path, name: str) -> None:
    a_dims, b_dims, op = TWO[name]
    a = o13.parameter(_dims(a_dims), np.float32, name="a")
    b = o13.parameter(_dims(b_dims), np.float32, name="b")
    node = o13.slice(op(a, b), _c([0]), _c([100]), _c([1]), _c([0]))
    theirs = PartialShape(str(node.get_output_partial_shape(0)))
    xml = ov_models.save(ov.Model([o13.result(node)], [a, b], "m"), tmp_path)
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok, report.problems
    ((mine, _),) = report.outputs.values()
    assert mine == theirs
    for shape_a, shape_b in itertools.product(_samples(a_dims), _samples(b_dims)):
        feeds = {"a": np.zeros(shape_a, np.float32), "b": np.zeros(shape_b, np.float32)}
        try:
            (want,) = openvino_oracle.evaluate_ir(xml, feeds)
        except openvino_oracle.OpenVINOError:  # shapes that do not broadcast
            continue
        assert want.shape in mine
