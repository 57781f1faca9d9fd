"""Shape subgraphs (docs/ir.md): the small integer layers converters write for slice bounds and
split lengths are folded during check as OpenVINO's constant folding folds them.

Each op is built with ``openvino.opset*`` on constants and on the ShapeOf of a static Parameter,
saved, read by datamove, and its folded value compared with OpenVINO's own ``ConstantFolding``
pass on the same model. What OpenVINO leaves undefined (a division by zero, an overflow, a
fraction converted to an integer) stays unknown. Converted LSTM and slicing models are checked
with every slicing parameter known."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir
from datamove.cli import main

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")
o8 = pytest.importorskip("openvino.opset8")
o13 = pytest.importorskip("openvino.opset13")
passes = pytest.importorskip("openvino.passes")

pytestmark = pytest.mark.openvino

X_SHAPE = (2, 16, 3, 1)


def _c(values: Any, dtype: Any = np.int64) -> Any:
    return o13.constant(np.array(values, dtype=dtype))


def _shape(x: Any, out: str = "i64") -> Any:
    return o13.shape_of(x, out)


def _divide(a: Any, b: Any, *, python: bool) -> Any:
    node = o1.divide(a, b)
    node.set_attribute("m_pythondiv", python)
    return node


# name -> the graph: x (a Parameter of shape X_SHAPE) -> the node whose value is folded
CASES: dict[str, Callable[[Any], Any]] = {
    "shapeof i64": _shape,
    "shapeof i32": lambda x: _shape(x, "i32"),
    "shapeof-1": o1.shape_of,
    "gather-8 negative": lambda x: o8.gather(_shape(x), _c([-1, 0, -4]), _c(0)),
    "gather-8 out of range is 0": lambda x: o8.gather(_shape(x), _c([4, -5, 1]), _c(0)),
    "gather-8 scalar index": lambda x: o8.gather(_shape(x), _c(-3), _c([0])),
    "gather-8 batch_dims": lambda _x: o8.gather(
        _c([[1, 2, 3], [4, 5, 6]]), _c([[2, 0], [-1, 1]]), _c(1), 1
    ),
    "gather-8 batch_dims -1 axis 2": lambda _x: o8.gather(
        _c(np.arange(24).reshape(2, 3, 4)), _c([[0, 3], [1, 1]]), _c(-1), -1
    ),
    "gather-8 of an empty axis is 0": lambda _x: o8.gather(
        _c(np.zeros((2, 0))), _c([0, -1]), _c(1)
    ),
    "gather-1": lambda x: o1.gather(_shape(x), _c([2, 1]), _c(0)),
    "divide python": lambda x: _divide(_shape(x), _c([-3, 5, 2, -1]), python=True),
    "divide truncated": lambda x: _divide(
        o13.subtract(_shape(x), _c(7)), _c([2, -3, 2, 4]), python=False
    ),
    "divide i32 by scalar": lambda x: _divide(_shape(x, "i32"), _c(4, np.int32), python=True),
    "divide f32": lambda x: o13.divide(o13.convert(_shape(x), "f32"), _c(4.0, np.float32)),
    "floor f32": lambda x: o13.floor(o13.divide(o13.convert(_shape(x), "f32"), _c(-3, np.float32))),
    "floor i64": lambda x: o13.floor(_shape(x)),
    "mod": lambda x: o13.mod(o13.subtract(_shape(x), _c(9)), _c([-4, 3, 2, 5])),
    "floormod": lambda x: o13.floor_mod(o13.subtract(_shape(x), _c(9)), _c([-4, 3, 2, 5])),
    "add broadcast": lambda x: o13.add(_c([[1], [2]]), _shape(x)),
    "multiply": lambda x: o13.multiply(_shape(x), _c([3, -1, 0, 7])),
    "minimum maximum": lambda x: o13.maximum(o13.minimum(_shape(x), _c(3)), _c([2, 0, 2, 2])),
    "greater": lambda x: o13.greater(_shape(x), _c([1, 16, 2, 0])),
    "less": lambda x: o13.less(_shape(x), _c(3)),
    "equal": lambda x: o13.equal(_shape(x), _c([2, 1, 3, 1])),
    "select": lambda x: o13.select(o13.greater(_shape(x), _c(2)), _shape(x), _c([-1])),
    "convert bool to i32": lambda x: o13.convert(o13.greater(_shape(x), _c(2)), "i32"),
    "convert i64 to i8 wraps": lambda x: o13.convert(o13.multiply(_shape(x), _c(100)), "i8"),
    "convert i64 to u8 wraps": lambda x: o13.convert(o13.subtract(_shape(x), _c(3)), "u8"),
    "convert to boolean": lambda x: o13.convert(o13.subtract(_shape(x), _c(2)), "boolean"),
    "convert whole f32 to i64": lambda x: o13.convert(o13.convert(_shape(x), "f32"), "i64"),
    "squeeze axes": lambda x: o13.squeeze(o13.unsqueeze(_shape(x), _c([0, -1])), _c([0])),
    "squeeze all": lambda x: o1.squeeze(o13.unsqueeze(_shape(x), _c([0, 2])), _c([], np.int64)),
    "unsqueeze scalar": lambda x: o13.unsqueeze(o8.gather(_shape(x), _c(1), _c(0)), _c(0)),
    "reshape special_zero": lambda x: o13.reshape(
        o13.reshape(_shape(x), _c([2, 2]), False), _c([0, -1]), True
    ),
    "reshape -1": lambda x: o13.reshape(_shape(x), _c([-1, 1]), False),
    "transpose": lambda x: o1.transpose(o13.reshape(_shape(x), _c([2, 2]), False), _c([1, 0])),
    "transpose, empty order": lambda x: o1.transpose(
        o13.reshape(_shape(x), _c([1, 2, 2]), False), _c([], np.int64)
    ),
    "broadcast numpy": lambda _x: o13.broadcast(_c([7]), _c([2, 3])),
    "broadcast bidirectional": lambda _x: o13.broadcast(
        _c([[1], [2]]), _c([1, 3]), broadcast_spec="BIDIRECTIONAL"
    ),
    "broadcast shape": lambda x: o13.broadcast(_c(5), o8.gather(_shape(x), _c([0]), _c(0))),
    "range-4": lambda x: o13.range(_c(10), o8.gather(_shape(x), _c(0), _c(0)), _c(-3), "i32"),
    "range-1": lambda x: o1.range(_c(1), o8.gather(_shape(x), _c(1), _c(0)), _c(4)),
    "reduceprod": lambda x: o13.reduce_prod(_shape(x), _c([0]), False),
    "reduceprod keep_dims": lambda x: o13.reduce_prod(
        o13.reshape(_shape(x), _c([2, 2]), False), _c([-1]), True
    ),
    "concat of folded": lambda x: o13.concat([_shape(x), _c([-1])], 0),
    # PyTorch's tensor_split writes its lengths with Tiles (a hunt's find)
    "tile": lambda x: o1.tile(_shape(x), _c([2])),
    "tile of more repeats than dims": lambda x: o1.tile(_shape(x), _c([2, 1])),
    "tile of fewer repeats than dims": lambda x: o1.tile(
        o13.reshape(_shape(x), _c([2, 2]), False), _c([3])
    ),
    "tile of repeats from a shape": lambda x: o1.tile(
        _c([5]), o13.subtract(o8.gather(_shape(x), _c([3]), _c(0)), _c([1]))
    ),
}


def _of_dynamic(_x: Any) -> Any:  # ShapeOf of the Parameter "dynamic" of shape [?,3]
    raise AssertionError("_save builds it")


# name -> a graph whose value datamove leaves unknown: OpenVINO leaves it undefined, or it is
# more than 4096 elements
UNKNOWN: dict[str, Callable[[Any], Any]] = {
    "divide by zero": lambda x: _divide(_shape(x), _c([1, 0, 1, 1]), python=True),
    "mod by zero": lambda x: o13.mod(_shape(x), _c(0)),
    "i64 overflow": lambda x: o13.multiply(_shape(x), _c(2**62)),
    "i32 overflow": lambda x: o13.add(_shape(x, "i32"), _c(2**31 - 2, np.int32)),
    "a fraction to i64": lambda x: o13.convert(
        o13.divide(o13.convert(_shape(x), "f32"), _c(3.0, np.float32)), "i64"
    ),
    "more than 4096 elements": lambda _x: o13.broadcast(_c(1), _c([65, 64])),
    "a dynamic dim": _of_dynamic,
}


def _save(make: Callable[[Any], Any], tmp_path: Path) -> tuple[Path, Any]:
    x = o13.parameter(list(X_SHAPE), np.float32, name="x")
    dynamic = o13.parameter([-1, 3], np.float32, name="dynamic")
    node = make(x) if make is not _of_dynamic else o13.shape_of(dynamic)
    model = ov.Model([node], [x, dynamic], "fold")
    xml = tmp_path / "fold.xml"
    ov.save_model(model, xml, compress_to_fp16=False)
    return xml, model


def _datamove_value(xml: Path) -> Any:
    model = ir.read_model(xml)
    infos, problems, _ = model._infer({}, compare=True)
    assert not problems
    return infos[model._results[0].sources[0]]


def _openvino_value(model: Any) -> np.ndarray:
    folded = model.clone()
    manager = passes.Manager()
    manager.register_pass(passes.ConstantFolding())
    manager.run_passes(folded)
    node = folded.get_results()[0].input_value(0).get_node()
    assert node.get_type_name() == "Constant", "OpenVINO folds it"
    return np.asarray(node.get_data())


@pytest.mark.parametrize("name", list(CASES))
def test_folds_as_openvino(tmp_path: Path, name: str) -> None:
    xml, model = _save(CASES[name], tmp_path)
    info = _datamove_value(xml)
    want = _openvino_value(model)
    assert info.value is not None, "datamove folds it"
    assert info.value.dtype == want.dtype
    assert info.value.shape == want.shape
    assert info.value.tolist() == want.tolist()
    assert str(info.shape) == str(list(want.shape)).replace(" ", "")


def test_a_transpose_of_a_shape_is_bounded_as_openvino_bounds_it(tmp_path: Path) -> None:
    # fixed: a Transpose of a shape subgraph's values was neither folded nor bounded (a
    # Reshape's was), so the data Reshape it feeds had no shape beyond its declared [?,8,?,6]
    x = o13.parameter([ov.Dimension(1, 4), ov.Dimension(2, 10), 8, 6], np.float32, name="x")
    dims = o1.transpose(o13.reshape(_shape(x), _c([2, 2]), False), _c([1, 0]))
    y = o13.reshape(x, o13.reshape(dims, _c([4]), False), False)  # [a, 8, b, 6]
    model = ov.Model([y], [x], "moved")
    xml = tmp_path / "moved.xml"
    ov.save_model(model, xml, compress_to_fp16=False)
    want = str(model.output(0).get_partial_shape())  # OpenVINO's own shape inference
    assert want == "[1..4,8,2..10,6]"
    report = ir.read_model(xml).check()
    assert report.ok, report.problems
    ((shape, _),) = report.outputs.values()
    assert str(shape) == want


@pytest.mark.parametrize("name", list(UNKNOWN))
def test_undefined_or_large_stays_unknown(tmp_path: Path, name: str) -> None:
    xml, _ = _save(UNKNOWN[name], tmp_path)
    info = _datamove_value(xml)
    assert info.value is None


def test_a_fold_is_of_openvino_s_type_whatever_the_port_declares(tmp_path: Path) -> None:
    # A ShapeOf declaring precision I32: OpenVINO reads it and folds it as i64, its own type.
    # datamove kept the port's I32, the value unknown; it reports the port, and folds.
    xml, _ = _save(_shape, tmp_path)
    text = xml.read_text().replace('precision="I64"', 'precision="I32"')
    xml.write_text(text)
    want = _openvino_value(ov.Core().read_model(xml))
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert problem.message == "declares precision I32, but the element type is i64"
    got = model._infer({}, compare=True)[0][model._results[0].sources[0]].value
    assert got is not None
    assert (got.dtype, got.tolist()) == (want.dtype, want.tolist())


# -- converted models: every slicing parameter known -------------------------------------------
def _torch() -> Any:
    return pytest.importorskip("torch")


def _convert(module: Any, shape: tuple[int, ...], tmp_path: Path, dims: list[int]) -> Path:
    converted = pytest.importorskip("torch_models").convert(module, shape, dims)
    xml = tmp_path / "converted.xml"
    ov.save_model(converted, xml, compress_to_fp16=False)
    return xml


def _lstm_cell() -> Any:
    _torch()
    return pytest.importorskip("torch_models").LstmCell()


def _split_outputs(report: Any, xml: Path) -> list[str]:
    model = ir.read_model(xml)
    (split,) = [x for x in model._graph.layers if x.type == "VariadicSplit"]
    return [str(report.ports[(split.id, p.id)]) for p in split.outputs]


def test_lstm_chunk_split_lengths_are_known(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # chunk(4) converts to ShapeOf -> Gather -> Divide -> Mod -> Greater -> Convert -> Add ->
    # Broadcast -> Concat -> VariadicSplit: on a static input every length is folded.
    xml = _convert(_lstm_cell(), (2, 6), tmp_path, [2, 6])
    text = xml.read_text()
    for op in ("ShapeOf", "Gather", "Divide", "Mod", "Greater", "Convert", "Broadcast"):
        assert f'type="{op}"' in text
    report = ir.read_model(xml).check()
    assert report.ok
    assert report.checked == {"Concat": 1, "VariadicSplit": 1}
    assert _split_outputs(report, xml) == ["[2,4]"] * 4  # [2,..16] each, were they unknown
    assert main(["check", "-v", str(xml)]) == 0
    assert "[2,..16]" not in capsys.readouterr().out
    # A dynamic batch: ShapeOf of [?,16] gives dim 1 as 16 by its bounds (datamove.ir._bounds,
    # as OpenVINO's bound evaluation), so every length is known still.
    xml = _convert(_lstm_cell(), (2, 6), tmp_path, [-1, 6])
    report = ir.read_model(xml).check()
    assert report.ok
    assert _split_outputs(report, xml) == ["[?,4]"] * 4


def test_half_slice_stop_is_known(tmp_path: Path) -> None:
    torch = _torch()

    class Half(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x[:, : x.shape[1] // 2]

    xml = _convert(Half(), (2, 4, 6), tmp_path, [-1, -1, -1])
    assert 'type="ShapeOf"' in xml.read_text()
    # a dynamic dim elsewhere leaves the stop known by its bounds; a dynamic dim 1 an interval
    for shape, want in [
        ("[2,4,6]", "[2,2,6]"),
        ("[3,7,1]", "[3,3,1]"),
        ("[?,9,2]", "[?,4,2]"),
        ("[2,4..9,?]", "[2,2..4,?]"),
        ("[2,?,3]", "[2,?,3]"),
    ]:
        report = ir.read_model(xml).check({"x": shape})
        assert report.ok
        assert [str(s) for s, _ in report.outputs.values()] == [want]
