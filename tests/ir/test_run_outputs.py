"""``Model.run(inputs, outputs=[...])`` and ``datamove run --output``: the outputs datamove can
compute, of a model whose other outputs need compute layers (MatMul, Add...) it never runs.

Models are converted from PyTorch by ``openvino.convert_model`` or built with OpenVINO's opset
builders, and each chosen output is compared with OpenVINO's compiled model on the same inputs,
on the checked path, as its shape plan is made, and by the shape plan (third run on).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir
from datamove.cli import main

ov_models = pytest.importorskip("ov_models")
torch = pytest.importorskip("torch")
torch_models = pytest.importorskip("torch_models")
ov = ov_models.ov
ops = ov.opset8

pytestmark = pytest.mark.openvino


def _mixed(x: Any) -> Any:
    """The witness: two outputs datamove computes, and ``x + 1`` (an Add)."""
    return x[:, 1:], torch.chunk(x, 2, 1)[0], x + 1


def _arange(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def _same(got: dict[str, Any], want: dict[str, np.ndarray], names: list[str]) -> None:
    assert list(got) == names  # named and ordered as passed
    for name in names:
        have = np.asarray(got[name])
        assert (have.dtype, have.shape) == (want[name].dtype, want[name].shape), name
        np.testing.assert_array_equal(have, want[name], err_msg=name)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The witness converted with a static input, and with a dynamic one (its chunk's lengths
    are then a shape subgraph that reads a dynamic dim, folded at each run's shapes)."""
    out = {}
    for kind, dims in (("static", [2, 4]), ("dynamic", [-1, -1])):
        folder = tmp_path_factory.mktemp(kind)
        out[kind] = torch_models.convert_fn(_mixed, (2, 4), dims, folder)
    return out


@pytest.mark.parametrize("kind", ["static", "dynamic"])
def test_the_runnable_outputs_run_as_openvino_does(mixed: dict[str, Path], kind: str) -> None:
    model = ir.read_model(mixed[kind])
    with pytest.raises(ir.UnsupportedOperatorError, match="Add") as caught:
        model.run({"x": _arange((2, 4))})
    assert "pass outputs=['y0', 'y1'] to run the outputs that need none" in str(caught.value)
    assert caught.value.runnable == ("y0", "y1")  # as data too: datamove run says --output
    shapes = [(2, 4)] if kind == "static" else [(2, 4), (3, 6), (1, 8)]
    sets = [["y0", "y1"], ["y1"], ["y1", "y0"], ["y0"]]
    for shape in shapes:
        x = _arange(shape)
        want = ov_models.run_openvino(mixed[kind], {"x": x})
        for _ in range(3):  # the checked path, the shape plan made, the shape plan run
            for names in sets:  # output sets alternating on one model: each its own plan
                _same(model.run({"x": x}, outputs=names), want, names)
    assert model.shape_plan_info().planned == len(shapes) * len(sets)
    with pytest.raises(ir.UnsupportedOperatorError, match="output 'y2' needs this one"):
        model.run({"x": _arange((2, 4))}, outputs=["y0", "y2"])


def _split_model(tmp_path: Path) -> Path:
    """x [2,6] -> Split(axis 1, 2 parts) -> y0, y1; y [3] -> Concat(y, y) -> z; x + x -> w."""
    x = ops.parameter([2, 6], np.float32, name="x")
    y = ops.parameter([3], np.int32, name="y")
    parts = ops.split(x, ops.constant(np.int64(1)), 2)
    outs = [parts.output(0), parts.output(1), ops.concat([y, y], 0).output(0)]
    outs.append(ops.add(x, x).output(0))
    results = [ops.result(o) for o in outs]
    for result, names in zip(results, [{"y0", "y_first"}, {"y1"}, {"z"}, {"w"}], strict=True):
        result.output(0).get_tensor().set_names(names)
    x.output(0).get_tensor().set_names({"x"})
    y.output(0).get_tensor().set_names({"y"})
    return ov_models.save(ov.Model(results, [x, y], "split"), tmp_path)


def test_only_the_inputs_the_outputs_need_are_required(tmp_path: Path) -> None:
    xml = _split_model(tmp_path)
    model = ir.read_model(xml)
    x, y = _arange((2, 6)), np.array([1, 2, 3], dtype=np.int32)
    want = ov_models.run_openvino(xml, {"x": x, "y": y})
    for _ in range(3):
        _same(model.run({"x": x}, ["y1", "y0"]), want, ["y1", "y0"])
        _same(model.run({"y": y}, ["z"]), want, ["z"])
        _same(model.run({"x": x, "y": y}, ["z", "y0"]), want, ["z", "y0"])
        _same(model.run({"y": y, "x": x}, ["y0"]), want, ["y0"])  # y given, not needed
    # an output by any of its names: returned under the name passed
    got = model.run({"x": x}, ["y_first"])
    assert list(got) == ["y_first"]
    np.testing.assert_array_equal(got["y_first"], want["y0"])
    with pytest.raises(ir.MissingInputError, match="has no array for input 'x'") as caught:
        model.run({"y": y}, ["z", "y1"])
    assert caught.value.hint == "these outputs need: 'x', 'y'"
    assert (caught.value.missing, caught.value.needed) == ("x", ("x", "y"))
    with pytest.raises(ir.InputTypeError, match=r"inputs\['y'\]\.dtype"):  # given: checked
        model.run({"x": x, "y": y.astype(np.int64)}, ["y0"])
    with pytest.raises(ir.IRError, match=r"inputs\['q'\]=.* names no input"):
        model.run({"x": x, "q": y}, ["y0"])


def test_output_sets_with_the_same_moves_keep_their_own_outputs(tmp_path: Path) -> None:
    """[y0] and [y1] run the same Split (the same moves): never one's shape plan for the other."""
    model = ir.read_model(_split_model(tmp_path))
    x = _arange((2, 6))
    for _ in range(4):
        np.testing.assert_array_equal(model.run({"x": x}, ["y0"])["y0"], x[:, :3])
        np.testing.assert_array_equal(model.run({"x": x}, ["y1"])["y1"], x[:, 3:])


def test_output_plans_are_bounded(tmp_path: Path) -> None:
    x = ops.parameter([2, 10], np.float32, name="x")
    parts = ops.split(x, ops.constant(np.int64(1)), 5)
    results = [ops.result(parts.output(k)) for k in range(5)]
    for k, result in enumerate(results):
        result.output(0).get_tensor().set_names({f"p{k}"})
    model = ir.read_model(ov_models.save(ov.Model(results, [x], "five"), tmp_path))
    data = _arange((2, 10))
    for chosen in itertools.chain(*(itertools.permutations(range(5), n) for n in (2, 3))):
        got = model.run({"x": data}, [f"p{k}" for k in chosen])
        for k in chosen:
            np.testing.assert_array_equal(got[f"p{k}"], data[:, 2 * k : 2 * k + 2])
    assert 0 < len(model._output_plans) <= model.shape_plan_info().maxsize


@pytest.mark.parametrize(
    ("outputs", "argument", "message"),
    [
        ("y0", "outputs='y0'", "must be a sequence of output names, not a string"),
        ({"y0"}, "outputs={'y0'}", "must be a sequence of output names, not a set"),
        ([], "outputs=[]", "is empty"),
        (["y0", "nope"], "outputs[1]='nope'", "names no output of this model"),
        ([0], "outputs[0]=0", "names no output of this model"),
        (
            ["y0", "y1", "y_first"],
            "outputs[2]='y_first'",
            "names the same output as 'y0' before it",
        ),
    ],
)
def test_bad_outputs_are_clear_errors(
    tmp_path: Path, outputs: Any, argument: str, message: str
) -> None:
    model = ir.read_model(_split_model(tmp_path))
    with pytest.raises(ir.IRError, match=message) as caught:
        model.run({"x": _arange((2, 6))}, outputs)
    assert str(caught.value).startswith(f"IR: {argument} ")
    if "no output" in message:
        assert caught.value.hint == "its outputs are 'y0', 'y1', 'z', 'w'"


def test_cli_output(
    mixed: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = _arange((2, 4))
    np.save(tmp_path / "x.npy", x)
    base = ["run", str(mixed["dynamic"]), "--input", f"x={tmp_path / 'x.npy'}"]
    assert main([*base, "--output-dir", str(tmp_path / "all")]) == 1
    err = capsys.readouterr().err
    assert "pass --output y0 --output y1 to run the outputs that need none" in err
    assert "outputs=" not in err
    assert not (tmp_path / "all").exists()
    out = tmp_path / "some"
    assert main([*base, "--output-dir", str(out), "--output", "y1", "--output", "y0"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["y0.npy", "y1.npy"]
    want = ov_models.run_openvino(mixed["dynamic"], {"x": x})
    for name in ("y0", "y1"):
        np.testing.assert_array_equal(np.load(out / f"{name}.npy"), want[name])
    assert main([*base, "--output-dir", str(out), "--output", "y2"]) == 1
    assert "output 'y2' needs this one" in capsys.readouterr().err
    # a name no output has, or one output twice: the command's own words, not run's outputs=
    assert main([*base, "--output-dir", str(out), "--output", "y0", "--output", "nope"]) == 1
    err = capsys.readouterr().err
    assert "run: --output='nope' names no output of this model" in err
    assert "its outputs are 'y0', 'y1'" in err
    assert main([*base, "--output-dir", str(out), "--output", "y0", "--output", "y0"]) == 1
    assert "run: --output='y0' names the same output as 'y0' before it" in capsys.readouterr().err


def test_cli_output_needs_only_its_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _split_model(tmp_path)
    np.save(tmp_path / "y.npy", np.array([1, 2, 3], dtype=np.int32))
    base = ["run", str(xml), "--input", f"y={tmp_path / 'y.npy'}", "--output-dir", str(tmp_path)]
    assert main([*base, "--output", "z"]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), [1, 2, 3, 1, 2, 3])
    # --output y0 without x said it in run's words: "inputs={'y': ...} has no array for input 'x'"
    assert main([*base, "--output", "y0"]) == 1
    assert capsys.readouterr().err == (
        "datamove: error: run: no --input gives input 'x' "
        "(hint: pass --input NAME=FILE.npy for each input these outputs need: 'x')\n"
    )
    assert main([*base, "--output", "z", "--output", "y0"]) == 1
    assert capsys.readouterr().err.endswith("each input these outputs need: 'x', 'y')\n")
    # without --output, every output: w needs an Add, refused first (as Model.run refuses it)
    assert main(base) == 1
    assert "pass --output y0 --output y1 --output z to run" in capsys.readouterr().err


def test_an_input_read_only_by_a_shape_subgraph_is_needed(tmp_path: Path) -> None:
    """z = x[:len(y)] on dynamic x and y: z needs y's shape, folded at each run's shapes, so y is
    an input z needs (it was left out of the run's shapes, and every run refused)."""
    x = ops.parameter([-1], np.float32, name="x")
    y = ops.parameter([-1], np.float32, name="y")
    one = ops.constant(np.array([1], np.int64))
    z = ops.slice(x, ops.constant(np.array([0], np.int64)), ops.shape_of(y), one)
    results = [ops.result(z), ops.result(ops.concat([x, y], 0))]
    for node, name in zip([*results, x, y], ["z", "w", "x", "y"], strict=True):
        node.output(0).get_tensor().set_names({name})
    xml = ov_models.save(ov.Model(results, [x, y], "shaped"), tmp_path)
    model = ir.read_model(xml)
    for n in (3, 5):
        inputs = {"x": _arange((6,)), "y": np.zeros(n, np.float32)}
        want = ov_models.run_openvino(xml, inputs)
        for _ in range(3):
            _same(model.run(inputs, ["z"]), want, ["z"])
    with pytest.raises(ir.IRError, match="has no array for input 'y'") as caught:
        model.run({"x": _arange((6,))}, ["z"])
    assert caught.value.hint == "these outputs need: 'x', 'y'"
