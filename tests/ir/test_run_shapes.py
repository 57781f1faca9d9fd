"""``run`` on models whose shape subgraphs read a dynamic dim: PyTorch's ``chunk``, slicing by
``x.shape[i] // k``, ``narrow``, flips, converted with dynamic dims. The subgraph's value is not
known on every input the declared shapes allow, but at each run's input shapes it is: ``run``
folds it there, as ``check(input_shapes)`` does (docs/ir.md, "Shape subgraphs"), and runs as
OpenVINO's CPU plugin does."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_slice_models import _arange, _assert_same

from datamove import ir

ov_models = pytest.importorskip("ov_models")
torch = pytest.importorskip("torch")
torch_models = pytest.importorskip("torch_models")
ov = ov_models.ov

pytestmark = pytest.mark.openvino


def _flip_half(x: Any) -> Any:
    return torch.flip(x[:, x.shape[1] // 3 :], [1, 2])


def _cat_halves(x: Any) -> Any:
    half = x.shape[1] // 2
    return torch.cat([x[:, half:], x[:, :half]], 1)


# Slicing whose bounds and lengths the converter computes from the input's shape (ShapeOf ->
# Gather -> Divide ...), each read from a dim that is dynamic in the converted model.
BY_SHAPE = {
    "chunk(3, 1)": lambda x: torch.chunk(x, 3, 1),
    "chunk(2, 2)": lambda x: torch.cat(torch.chunk(x, 2, 2)[::-1], 2),
    "split by sizes from the shape": (
        lambda x: torch.split(x, [x.shape[1] // 3, x.shape[1] - x.shape[1] // 3], 1)
    ),
    "x[:, : x.shape[1] // 2]": lambda x: x[:, : x.shape[1] // 2],
    "narrow(1, x.shape[1] // 4, x.shape[1] // 2)": (
        lambda x: x.narrow(1, x.shape[1] // 4, x.shape[1] // 2)
    ),
    "flip(x[:, x.shape[1] // 3 :])": _flip_half,
    "cat of halves": _cat_halves,
    "x[: x.shape[0] - 1, :, x.shape[2] // 2 :]": lambda x: x[
        : x.shape[0] - 1, :, x.shape[2] // 2 :
    ],
}
# Sizes that divide and that do not (7, 5), and 0; chunk(3) of a dim of 1 or 2 is refused below
BY_SHAPE_SIZES = [(2, 6, 4), (1, 7, 4), (3, 5, 3), (2, 0, 4), (0, 6, 2), (2, 9, 6)]


@pytest.mark.parametrize("name", list(BY_SHAPE))
def test_run_folds_shape_subgraphs_at_the_inputs_shapes(name: str, tmp_path: Path) -> None:
    # On a dynamic dim the subgraph's value is not known on every input, but at the shape of
    # each run's input it is: run folds it there (as check(input_shapes) does), runs as
    # OpenVINO runs, and keeps a shape plan per shape. Fixed: run refused the model, naming its
    # ShapeOf (or the Gather, Divide... after it).
    xml = torch_models.convert_fn(BY_SHAPE[name], (2, 6, 4), [-1, -1, -1], tmp_path)
    model = ir.read_model(xml)
    assert "ShapeOf" in model.check().opaque
    for shape in BY_SHAPE_SIZES:
        inputs = {"x": _arange(shape)}
        want = ov_models.run_openvino(xml, inputs)
        for _ in range(3):  # the checked path, then the shape plan is made, then used
            _assert_same(model.run(inputs), want)
    assert model.shape_plan_info()[:2] == (len(BY_SHAPE_SIZES), len(BY_SHAPE_SIZES))
    for shape in BY_SHAPE_SIZES[:2]:  # torch arrays: the checked path, the same plan
        got = model.run({"x": torch.from_numpy(_arange(shape))})
        want = ov_models.run_openvino(xml, {"x": _arange(shape)})
        _assert_same({k: v.numpy() for k, v in got.items()}, want)


def test_run_folds_each_shape_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    xml = torch_models.convert_fn(BY_SHAPE["chunk(3, 1)"], (2, 6, 4), [-1, -1, -1], tmp_path)
    model = ir.read_model(xml)
    folds: list[object] = []
    infer = ir.Model._infer

    def counted(self: ir.Model, overrides: Any, **kw: Any) -> Any:
        folds.append(dict(overrides))
        return infer(self, overrides, **kw)

    monkeypatch.setattr(ir.Model, "_infer", counted)
    for _ in range(4):
        for shape in [(2, 6, 4), (1, 9, 2)]:
            model.run({"x": _arange(shape)})
    # the declared shapes once (the model's plan), then each input shape once
    assert [[list(s) for s in f.values()] for f in folds] == [[], [[2, 6, 4]], [[1, 9, 2]]]
    assert model.shape_plan_info()[:2] == (2, 2)


def test_run_remembers_a_shape_it_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A shape at which the subgraph's values break a rule (chunk(3) of a dim of 1) or do not fold
    # (12 // x.shape[1] at width 0) is refused each time with the same error, inferred once, as
    # a plan is folded once per shape. Fixed: each refused run inferred the model again.
    xml = torch_models.convert_fn(BY_SHAPE["chunk(3, 1)"], (2, 6, 4), [-1, -1, -1], tmp_path)
    ops = ov_models.ops
    x = ops.parameter([-1, -1], np.float32, name="x")
    width = ops.gather(ops.shape_of(x), [1], 0)
    divided = _sliced_by(ops.divide(np.array([12], np.int64), width), x, tmp_path / "divide")
    folds: list[object] = []
    infer = ir.Model._infer

    def counted(self: ir.Model, overrides: Any, **kw: Any) -> Any:
        folds.append([list(s) for s in overrides.values()])
        return infer(self, overrides, **kw)

    monkeypatch.setattr(ir.Model, "_infer", counted)
    for model, shape in [(ir.read_model(xml), (3, 1, 2)), (divided, (2, 0))]:
        folds.clear()
        errors = []
        for _ in range(3):
            with pytest.raises(ir.IRError) as info:
                model.run({"x": _arange(shape)})
            errors.append(info.value)
        assert folds == [[], [list(shape)]]
        assert len({str(e) for e in errors}) == 1
        assert len({type(e) for e in errors}) == 1
        assert len({id(e) for e in errors}) == 3  # each its own, with its own traceback
        assert model.shape_plan_info()[:2] == (0, 0)


def test_run_keeps_the_plans_of_at_most_max_shapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plans folded per input shapes are bounded as the shape plans are: when max are held,
    # the next shape drops them all, so a shape seen before it is folded again.
    xml = torch_models.convert_fn(BY_SHAPE["chunk(3, 1)"], (2, 6, 4), [-1, -1, -1], tmp_path)
    model = ir.read_model(xml)
    folds: list[list[int]] = []
    infer = ir.Model._infer

    def counted(self: ir.Model, overrides: Any, **kw: Any) -> Any:
        folds.extend(list(s) for s in overrides.values())
        return infer(self, overrides, **kw)

    monkeypatch.setattr(ir.Model, "_infer", counted)
    most = model.shape_plan_info().maxsize
    shapes = [(1, 3 * k, 1) for k in range(most)]
    for shape in shapes:
        model.run({"x": _arange(shape)})
    model.run({"x": _arange(shapes[0])})  # held: not folded again
    assert len(folds) == most
    model.run({"x": _arange((1, 3 * most, 1))})  # one more: the plans held are dropped
    model.run({"x": _arange(shapes[0])})
    assert folds[-1] == list(shapes[0])
    assert len(folds) == most + 2


def test_run_refuses_a_shape_the_subgraph_makes_invalid(tmp_path: Path) -> None:
    # chunk(3) of a dim of 1: the converter's lengths are [1, 1, -1], whose -1 is -1. OpenVINO's
    # CPU plugin runs it and returns memory it never wrote; check() at that shape finds the
    # problem, and run refuses it with the same IRError, at that shape only.
    xml = torch_models.convert_fn(BY_SHAPE["chunk(3, 1)"], (2, 6, 4), [-1, -1, -1], tmp_path)
    model = ir.read_model(xml)
    (problem,) = model.check({"x": [3, 1, 2]}).problems
    assert problem.kind == "operator"
    for _ in range(2):
        with pytest.raises(ir.IRError) as info:
            model.run({"x": _arange((3, 1, 2))})
        assert not isinstance(info.value, ir.UnsupportedOperatorError)
        assert info.value.rule == f"cannot run: {problem.message}"
        assert info.value.layer_id == problem.layer_id
    assert [a.shape for a in model.run({"x": _arange((3, 3, 2))}).values()] == [(3, 1, 2)] * 3


def _sliced_by(stop: Any, x: Any, tmp_path: Path) -> ir.Model:
    """A model of ``x[:, :stop]`` (Slice-8 on axis 1), saved and read."""
    ops8 = ov_models.ops8
    i64 = np.int64
    one = np.array([1], i64)
    y = ops8.slice(x, np.array([0], i64), stop, one, one)
    model = ov.Model([ov_models.ops.result(y)], [x], "sliced")
    return ir.read_model(ov_models.save(model, tmp_path))


def test_run_refuses_a_value_that_is_not_known_from_shapes(tmp_path: Path) -> None:
    # A stop that reads the input's values, or one computed by a layer that datamove does not
    # fold (Sqrt): no input shape makes it known, so run refuses the model, naming the layer,
    # before it runs anything.
    ops = ov_models.ops
    x = ops.parameter([-1, -1], np.float32, name="x")
    stop = ops.convert(ops.reshape(ops.reduce_max(x, [0, 1]), [1], False), "i64")
    model = _sliced_by(stop, x, tmp_path)
    with pytest.raises(ir.UnsupportedOperatorError, match="does not compute ReduceMax layers"):
        model.run({"x": _arange((2, 3))})
    x = ops.parameter([-1, -1], np.float32, name="x")
    width = ops.convert(ops.gather(ops.shape_of(x), [1], 0), "f32")
    model = _sliced_by(ops.convert(ops.sqrt(width), "i64"), x, tmp_path)
    with pytest.raises(ir.UnsupportedOperatorError, match="does not compute Sqrt layers"):
        model.run({"x": _arange((2, 4))})


def test_run_refuses_a_shape_at_which_a_subgraph_does_not_fold(tmp_path: Path) -> None:
    # x[:, : 12 // x.shape[1]]: known at every width but 0, where the division is by zero. The
    # model runs at other shapes; at width 0 run names the Divide it cannot compute there.
    ops = ov_models.ops
    x = ops.parameter([-1, -1], np.float32, name="x")
    width = ops.gather(ops.shape_of(x), [1], 0)
    model = _sliced_by(ops.divide(np.array([12], np.int64), width), x, tmp_path)
    assert model.run({"x": _arange((2, 5))})[model.outputs[0]].shape == (2, 2)
    with pytest.raises(ir.UnsupportedOperatorError) as info:
        model.run({"x": _arange((2, 0))})
    assert info.value.layer_type == "Divide"
    assert "cannot run with input shapes (x of shape [2,0]): " in str(info.value)


def _two_inputs(tmp_path: Path) -> ir.Model:
    """x [?,?], y [?,?,2], f [?]: slices of each by the other's dims, a Concat of a folded
    value and a data input (``f``), and a Concat of two slices of ``x``."""
    ops8 = ov_models.ops8
    c = lambda *v: np.array(v, np.int64)  # noqa: E731
    x = ops8.parameter([-1, -1], np.float32, name="x")
    y = ops8.parameter([-1, -1, 2], np.float32, name="y")
    f = ops8.parameter([-1], np.float32, name="f")
    sx, sy = ops8.shape_of(x), ops8.shape_of(y)
    dim = lambda s, k: ops8.gather(s, c(k), 0)  # noqa: E731
    half_x1 = ops8.divide(dim(sx, 1), c(2))
    outs = [
        ops8.slice(x, c(0), ops8.divide(dim(sy, 1), c(2)), c(1), c(1)),  # x[:, : y.shape[1] // 2]
        ops8.slice(y, ops8.floor_mod(dim(sx, 0), c(3)), c(2**62), c(1), c(0)),  # y[x.shape[0] % 3:]
        ops8.concat(  # x[:, -(x.shape[1] // 2):] and x[:, : y.shape[0]] side by side
            [
                ops8.slice(x, ops8.multiply(half_x1, c(-1)), c(2**62), c(1), c(1)),
                ops8.slice(x, c(0), dim(sy, 0), c(1), c(1)),
            ],
            1,
        ),
        ops8.concat([ops8.convert(half_x1, "f32"), f], 0),  # [x.shape[1] // 2, *f]
    ]
    model = ov.Model([ov_models.ops.result(o) for o in outs], [x, y, f], "two")
    return ir.read_model(ov_models.save(model, tmp_path))


def test_run_folds_shapes_that_mix_inputs_at_more_than_max_shapes(tmp_path: Path) -> None:
    # Shape subgraphs that read both inputs, a folded value joined to a data input: every run,
    # in a random order over more distinct shapes than are kept (the folds and shape plans
    # dropped and made again), with the inputs in either order and as torch tensors, gives
    # what NumPy gives (as OpenVINO's CPU plugin did on 40 of them, checked once by hand).
    model = _two_inputs(tmp_path)
    rng = np.random.default_rng(12)
    most = model.shape_plan_info().maxsize
    shapes = {(tuple(rng.integers(0, 7, 2)), tuple(rng.integers(0, 6, 2))) for _ in range(3 * most)}
    order = sorted(shapes) * 3
    rng.shuffle(order)
    assert len(shapes) > most
    for k, ((a, b), (c, d)) in enumerate(order):
        x = _arange((int(a), int(b)))
        y = _arange((int(c), int(d), 2)) + 1000
        f = np.arange(k % 3, dtype=np.float32)
        w = int(b)
        want = [
            x[:, : int(d) // 2],
            y[int(a) % 3 :],
            np.concatenate([x[:, -(w // 2) :], x[:, : int(c)]], 1),
            np.concatenate([np.array([w // 2], np.float32), f]),
        ]
        inputs = [{"x": x, "y": y, "f": f}, {"f": f, "y": y, "x": x}][k % 2]
        if k % 5 == 0:
            inputs = {"x": torch.from_numpy(x), "y": torch.from_numpy(y), "f": torch.from_numpy(f)}
        got = [np.asarray(v) for v in model.run(inputs).values()]
        assert [g.shape for g in got] == [v.shape for v in want], (a, b, c, d)
        for g, v in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, v)


def test_threads_run_a_model_folded_per_shape(tmp_path: Path) -> None:
    xml = torch_models.convert_fn(BY_SHAPE["cat of halves"], (2, 6, 4), [-1, -1, -1], tmp_path)
    model = ir.read_model(xml)
    shapes = [(2, n, 3) for n in range(1, 9)]
    want = {s: ir.read_model(xml).run({"x": _arange(s)}) for s in shapes}
    failures: list[str] = []

    def work(k: int) -> None:
        for j in range(40):
            shape = shapes[(k + j) % len(shapes)]
            got = model.run({"x": _arange(shape)})
            if not all(np.array_equal(got[n], want[shape][n]) for n in got):
                failures.append(f"{shape}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_openvino_cpu_plugin_truncates_a_run_time_floor_division(tmp_path: Path) -> None:
    # IR-17 (docs/semantics.md): where the CPU plugin computes a shape subgraph at run time (a
    # dynamic input), it divides by truncation whatever the Divide's m_pythondiv says. The
    # converter writes PyTorch's -x.shape[2] // 2 as a Python (floor) division.
    fn = lambda x: x[..., -x.shape[2] // 2 :]  # noqa: E731
    xml = torch_models.convert_fn(fn, (2, 3, 4), [-1, -1, -1], tmp_path)
    assert 'm_pythondiv="true"' in xml.read_text()
    model = ir.read_model(xml)
    inputs = {"x": _arange((2, 3, 3))}
    want = fn(torch.from_numpy(inputs["x"])).numpy()  # -3 // 2 = -2: the last 2 columns
    ((got,),) = [list(model.run(inputs).values())]
    np.testing.assert_array_equal(got, want)
    ((static, _),) = model.check({"x": [2, 3, 3]}).outputs.values()
    assert static.to_shape() == want.shape == (2, 3, 2)
    (cpu,) = ov_models.run_openvino(xml, inputs).values()
    assert cpu.shape == (2, 3, 1), "OpenVINO's CPU plugin now floors: IR-17 is gone"
    # the near miss: a size that divides evenly, where truncation and floor agree
    inputs = {"x": _arange((2, 3, 4))}
    (cpu,) = ov_models.run_openvino(xml, inputs).values()
    ((got,),) = [list(model.run(inputs).values())]
    np.testing.assert_array_equal(got, cpu)


def test_openvino_converts_onnx_integer_div_to_a_floor_division(tmp_path: Path) -> None:
    # IR-19 (docs/semantics.md): ONNX's integer Div truncates (onnxruntime; read_onnx writes a
    # Divide with m_pythondiv="false"), but convert_model writes it as a Divide with
    # m_pythondiv="true", a floor division. x[:, -(W // 2):] in ONNX, at W = 3: truncation
    # gives -1 (1 column), floor -2 (2 columns). The CPU plugin truncates at run time (IR-17)
    # and so agrees with onnxruntime; its shape inference at the static shape floors; datamove
    # runs the IR as its attribute says (floor), and the .onnx file as ONNX says (truncation).
    onnx_graphs = pytest.importorskip("onnx_graphs")
    helper = pytest.importorskip("onnx.helper")
    ints = onnx_graphs._ints
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["w"], axis=0),
        helper.make_node("Div", ["w", "minus_two"], ["q"]),  # -(W // 2) as W // -2
        helper.make_node("Slice", ["x", "q", "big", "one"], ["y"]),
    ]
    inits = [ints("one", [1]), ints("minus_two", [-2]), ints("big", [2**62])]
    source = onnx_graphs._model(nodes, ["N", "W"], ["y"], inits, 17)
    path = onnx_graphs.save(source, tmp_path)
    xml = ov_models.save(ov.convert_model(str(path)), tmp_path)
    assert 'm_pythondiv="true"' in xml.read_text()
    x = _arange((2, 3))
    want = onnx_graphs.run_onnxruntime(source, x)["y"]
    assert want.shape == (2, 1)  # ONNX: 3 / -2 truncates to -1
    (cpu,) = ov_models.run_openvino(xml, {"x": x}).values()
    np.testing.assert_array_equal(cpu, want)  # the plugin truncates (IR-17)
    assert ov_models.reshaped_openvino_shapes(xml, "x", "[2,3]") == {"y": "[2,2]"}
    ((got,),) = [list(ir.read_model(xml).run({"x": x}).values())]
    np.testing.assert_array_equal(got, x[:, 1:])  # floor, as the IR's Divide says: -2
    ((onnx_y, _),) = ir.read_onnx(path).check({"x": [2, 3]}).outputs.values()
    assert onnx_y.to_shape() == (2, 1)  # the .onnx file: truncation, as onnxruntime


def _dim(node: Any, k: int) -> Any:
    """``node.shape[k]`` as a 1-element i64 tensor: ShapeOf -> Gather."""
    i64 = np.int64
    return ov_models.ops8.gather(ov_models.ops8.shape_of(node), np.array([k], i64), i64(0))


def test_run_names_the_layer_whose_shape_is_not_known(tmp_path: Path) -> None:
    # A stop read from the shape of a layer whose output shape datamove does not infer (TopK,
    # NonZero: opaque, their declared dims dynamic): at no input shape is it known. run names
    # that layer and says its shape is not known. Fixed: it named the Gather after the ShapeOf.
    ops8 = ov_models.ops8
    x = ops8.parameter([-1, -1], np.float32, name="x")
    top = ops8.topk(x, np.int64(2), 1, "max", "value")
    topk = _sliced_by(_dim(top.output(0), 0), x, tmp_path / "topk")
    x = ops8.parameter([-1, -1], np.float32, name="x")
    nonzero = _sliced_by(_dim(ops8.non_zero(x, "i64"), 1), x, tmp_path / "nonzero")
    for model, kind in [(topk, "TopK"), (nonzero, "NonZero")]:
        with pytest.raises(ir.UnsupportedOperatorError) as info:
            model.run({"x": _arange((2, 5))})
        assert info.value.layer_type == kind
        text = str(info.value)
        assert "with input shapes (x of shape [2,5])" in text
        assert (
            f"its output shape is not known (datamove does not infer the output shapes of {kind} "
            "layers), and layer " in text
        )
        assert "(ShapeOf) reads it; output 'Result_" in text
        assert "needs the value of layer " in text
        assert text.count("(Gather)") == 1


def test_run_says_a_shape_overflows_the_subgraphs_i32(tmp_path: Path) -> None:
    # The converter computes chunk's lengths in i32 (ShapeOf output_type="i32"): a dim past
    # 2**31 - 1 overflows it. run says so and names the ShapeOf. Fixed: it named the Broadcast
    # at the end of the subgraph, its value "not known from the input shapes".
    xml = torch_models.convert_fn(BY_SHAPE["chunk(3, 1)"], (2, 6, 4), [-1, -1, -1], tmp_path)
    model = ir.read_model(xml)
    for width in [2**31, 2**40]:
        x = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (0, width, 1), (4, 4, 4))
        with pytest.raises(ir.UnsupportedOperatorError) as info:
            model.run({"x": x})
        assert info.value.layer_type == "ShapeOf"
        assert f"gives [0,{width},1], which overflows i32 (its output_type)" in str(info.value)
    assert [a.shape for a in model.run({"x": _arange((0, 9, 1))}).values()] == [(0, 3, 1)] * 3


def test_run_says_why_a_fold_is_undefined_at_a_shape(tmp_path: Path) -> None:
    # Folds guarded where OpenVINO's specification leaves the value undefined, or past the 4096
    # elements datamove folds, each at some shapes only: run says which rule, naming the layer.
    # Fixed: "its value is not known from the input shapes" for each.
    ops = ov_models.ops
    x = ops.parameter([-1, -1], np.float32, name="x")
    width = ops.convert(ops.gather(ops.shape_of(x), [1], 0), "f32")
    seventy = ops.convert(ops.multiply(width, np.array([0.7], np.float32)), "i64")
    x32 = ops.parameter([-1, -1], np.float32, name="x")
    width32 = ops.gather(ov_models.ops8.shape_of(x32, "i32"), [1], 0)
    times = ops.convert(ops.multiply(width32, np.array([2**30], np.int32)), "i64")
    x0 = ops.parameter([-1, -1], np.float32, name="x")
    quotient = ops.divide(np.array([12], np.int64), ops.gather(ops.shape_of(x0), [1], 0))
    xr = ops.parameter([-1, -1], np.float32, name="x")
    wide = ops.gather(ops.shape_of(xr), [1], 0)
    squares = ops.range(np.int64(0), ops.squeeze(ops.multiply(wide, wide), [0]), np.int64(1), "i64")
    second = ops.add(ops.gather(squares, [1], 0), np.array([1], np.int64))  # 2, from a Range
    cases = [  # x[:, : stop]: a width it runs at, one it refuses, the layer, the rule
        (
            x,
            seventy,
            10,
            3,
            "Convert",
            "converts 2.1, a value with a fraction, to i64, which OpenVINO",
        ),
        (x32, times, 1, 2, "Multiply", "gives 2147483648: an overflow of i32, which OpenVINO"),
        (x0, quotient, 5, 0, "Divide", "divides by zero"),
        (xr, second, 64, 65, "Range", "has 4225 elements, more than the 4096 datamove folds"),
    ]
    for k, (given, stop, runs, refused, kind, rule) in enumerate(cases):
        model = _sliced_by(stop, given, tmp_path / str(k))
        assert model.run({"x": _arange((2, runs))})[model.outputs[0]].shape[0] == 2
        with pytest.raises(ir.UnsupportedOperatorError) as info:
            model.run({"x": _arange((2, refused))})
        assert info.value.layer_type == kind
        assert f"cannot run with input shapes (x of shape [2,{refused}]): " in str(info.value)
        assert rule in str(info.value)
