"""A layer's ``type`` in any case, read as OpenVINO 2026.4 reads it.

OpenVINO looks a layer's type up in its opset ignoring the case of ASCII letters:
``type="shapeof"``, ``"CONVERT"``, ``"sPLIT"`` are ShapeOf, Convert and Split, in IR v10 and
v11 and whatever the version. datamove's reader gives such a layer the name it knows the type
by, so the model reads, checks, folds, runs and saves as the one spelled right. Two types
OpenVINO reads in one spelling alone: a ``Const`` spelled otherwise (or ``Constant``) it refuses
to read, and a ``Result`` spelled otherwise it reads as no output of the model (IR-28); datamove
refuses both with an `IRError` naming the layer and the spelling. So are the bool attributes
datamove reads (``"True"``, ``"1"``, ``"0"``) and ``auto_broadcast`` (``"NUMPY"``); a bool
OpenVINO does not know it reads as the operator's default, which datamove does not (IR-29).
Each model is written with the opset API, its types or attributes then edited in the XML text.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import openvino_oracle
from datamove import ir
from datamove.ir import _model as reader

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")
o3 = pytest.importorskip("openvino.opset3")
o8 = pytest.importorskip("openvino.opset8")

pytestmark = pytest.mark.openvino

X = np.arange(12, dtype=np.float32).reshape(2, 6)
# The types of the model, but Const and Result (each spelled in one way alone)
TYPES = (*("Parameter", "ShapeOf", "Gather", "Convert", "Concat", "Slice", "StridedSlice"),)
TYPES += ("Split", "VariadicSplit", "Reshape")
SPELLINGS = (str.lower, str.upper, str.swapcase)


def _c(value: Any) -> Any:
    return o8.constant(np.array(value, np.int64))


def _model() -> Any:
    """Slice, StridedSlice, Split, Concat of x [?,6] by a stop that a shape subgraph computes
    (ShapeOf-3, Gather, two Converts), a VariadicSplit, a Reshape by a ShapeOf-1, and a ShapeOf-1
    as an output: 14 layer types."""
    x = o8.parameter([-1, 6], np.float32, name="x")
    rows = o8.gather(o8.shape_of(x, "i64"), _c([0]), _c(0))
    stop = o8.concat([o8.convert(o8.convert(rows, "i32"), "i64"), _c([4])], 0)
    cut = o8.slice(x, _c([0, 0]), stop, _c([1, 1]))
    mid = o1.strided_slice(cut, _c([0, 1]), _c([0, 3]), _c([1, 1]), [1, 0], [1, 0])
    halves = o1.split(mid, _c(1), 2)
    parts = o1.variadic_split(x, _c(1), _c([2, 4]))
    flat = o1.reshape(parts.output(1), o1.shape_of(parts.output(1)), special_zero=False)
    joined = o1.concat([halves.output(0), halves.output(1)], 1)
    outs = [joined.output(0), flat.output(0), parts.output(0), o1.shape_of(x).output(0)]
    return ov.Model(outs, [x], "m")


def _file(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """The model saved as ``right.xml``, and as ``m.xml`` with each ``type`` ``old`` ``new``."""
    right = tmp_path / "right.xml"
    if not right.exists():
        ov.save_model(_model(), str(right), compress_to_fp16=False)
    text = right.read_text()
    for old, new in edits:
        assert f'type="{old}" version' in text
        text = text.replace(f'type="{old}" version', f'type="{new}" version')
    path = tmp_path / "m.xml"
    path.write_text(text)
    path.with_suffix(".bin").write_bytes(right.with_suffix(".bin").read_bytes())
    return path


def _report(path: Path) -> tuple[Any, ...]:
    report = ir.read_model(path).check()
    found = (report.problems, report.inputs, report.outputs, report.ports)
    return (*found, report.checked, report.opaque)


@pytest.mark.parametrize("spell", SPELLINGS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", TYPES)
def test_a_type_in_any_case_reads_checks_and_runs_as_in_openvino(
    tmp_path: Path, name: str, spell: Any
) -> None:
    cased = _file(tmp_path, (name, spell(name)))
    right = tmp_path / "right.xml"
    want = [np.asarray(v) for _, v in openvino_oracle.run_ir(right, {"x": X})]
    got = [np.asarray(v) for _, v in openvino_oracle.run_ir(cased, {"x": X})]
    assert len(got) == len(want) == 4
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    # datamove: the same report (ShapeOf, Gather, Convert folded), outputs and values
    assert _report(cased) == _report(right)
    out = ir.read_model(cased).run({"x": X})
    assert len(out) == 4
    for a, b in zip(out.values(), want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_every_type_in_another_case_at_once(tmp_path: Path) -> None:
    path = _file(tmp_path, *[(name, name.upper()) for name in TYPES])
    model = ir.read_model(path)
    want = [np.asarray(v) for _, v in openvino_oracle.run_ir(path, {"x": X})]
    for a, b in zip(model.run({"x": X}).values(), want, strict=True):
        np.testing.assert_array_equal(a, b)
    report = model.check()
    assert report.opaque == {"ShapeOf": 3, "Gather": 1, "Convert": 2}
    assert not report.problems


def test_save_model_writes_the_type_s_name(tmp_path: Path) -> None:
    path = _file(tmp_path, *[(name, name.lower()) for name in TYPES])
    saved = tmp_path / "saved.xml"
    ir.save_model(ir.read_model(path), saved)
    types = set(re.findall(r' type="([^"]*)"', saved.read_text()))
    assert types == {*TYPES, "Const", "Result"}
    want = openvino_oracle.run_ir(tmp_path / "right.xml", {"x": X})
    for (_, a), (_, b) in zip(openvino_oracle.run_ir(saved, {"x": X}), want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("spelling", ["const", "CONST", "cONST", "Constant", "constant"])
def test_a_const_spelled_otherwise_is_refused_as_openvino_refuses_it(
    tmp_path: Path, spelling: str
) -> None:
    path = _file(tmp_path, ("Const", spelling))
    with pytest.raises(openvino_oracle.OpenVINOError):
        openvino_oracle.run_ir(path, {"x": X})
    with pytest.raises(ir.IRError, match=f"type={spelling!r} is not 'Const': OpenVINO refuses it"):
        ir.read_model(path)


@pytest.mark.parametrize("spelling", ["result", "RESULT"])
def test_a_result_spelled_otherwise_is_refused_where_openvino_drops_the_output(
    tmp_path: Path, spelling: str
) -> None:
    # IR-28: OpenVINO reads the layer, and the model has one output fewer (none where every
    # Result is spelled so); datamove refuses it
    path = _file(tmp_path)
    path.write_text(path.read_text().replace('type="Result"', f'type="{spelling}"', 1))
    assert len(ov.Core().read_model(str(path)).outputs) == 3
    assert len(openvino_oracle.run_ir(path, {"x": X})) == 3
    with pytest.raises(ir.IRError, match="is not 'Result': OpenVINO reads it as no output") as info:
        ir.read_model(path)
    assert (info.value.argument, info.value.value, info.value.layer_type) == (
        "type",
        spelling,
        spelling,
    )


def test_relu_and_softmax_are_spelled_as_openvino_writes_them(tmp_path: Path) -> None:
    x = o8.parameter([2, 6], np.float32, name="x")
    model = ov.Model([o8.softmax(o1.relu(x), 1)], [x], "m")
    path = tmp_path / "m.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    text = path.read_text()
    assert {'type="ReLU"', 'type="SoftMax"'} <= set(re.findall(r'type="[^"]*"', text))
    for relu, softmax in (("relu", "softmax"), ("Relu", "Softmax"), ("RELU", "SOFTMAX")):
        path.write_text(text.replace('"ReLU"', f'"{relu}"').replace('"SoftMax"', f'"{softmax}"'))
        ov.Core().read_model(str(path))  # read as ReLU and SoftMax
        assert ir.read_model(path).check().opaque == {"ReLU": 1, "SoftMax": 1}


def test_only_ascii_letters_are_matched_in_any_case(tmp_path: Path) -> None:
    # "TopK" with a Kelvin sign (which Python lowers to "k"): OpenVINO does not read it as TopK
    x = o8.parameter([2, 6], np.float32, name="x")
    path = tmp_path / "m.xml"
    top_k = o3.topk(x, _c(2), 1, "max", "value", "i32")
    ov.save_model(ov.Model([top_k.output(0)], [x], "m"), str(path), compress_to_fp16=False)
    path.write_text(path.read_text().replace('type="TopK"', 'type="Top\u212a"'))
    with pytest.raises(RuntimeError, match="doesn't contain the operation"):
        ov.Core().read_model(str(path))
    assert ir.read_model(path).check().opaque == {"Top\u212a": 1}


def _compared_names(tree: ast.AST, module: Any) -> set[str]:
    """The strings a ``.type`` is compared with (``==``, ``!=``, ``in``), literal or named."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)):
            continue
        if node.left.attr != "type":
            continue
        for other in node.comparators:
            if isinstance(other, ast.Name):
                values = getattr(module, other.id, ())
                if isinstance(values, tuple | frozenset | dict):
                    names |= {v for v in values if isinstance(v, str)}
            elif isinstance(other, ast.Constant | ast.Tuple | ast.Set):
                values = [other] if isinstance(other, ast.Constant) else other.elts
                names |= {v.value for v in values if isinstance(v, ast.Constant)}
    return {n for n in names if isinstance(n, str)}


def test_the_reader_knows_every_type_datamove_tests_for() -> None:
    # every registry, and every type compared by name in datamove.ir, is given its name by the
    # reader: none is left matched in the file's own spelling
    known = set(reader.type_names().values())
    root = Path(reader.__file__).parent
    compared: set[str] = set()
    for path in sorted(root.glob("*.py")):
        module = importlib.import_module(f"datamove.ir.{path.stem}")
        compared |= _compared_names(ast.parse(path.read_text()), module)
    assert {"Abs", "Const", "Convert", "Result", "ShapeOf", "StridedSlice"} <= compared
    assert compared - known == set()
    assert all(name.lower() == low for low, name in reader.type_names().items())


# -- attribute values in any case ----------------------------------------------------------------
def _attribute_model(which: str) -> Any:
    """x [?,6] through a Reshape (special_zero), a Slice whose stop a Divide (m_pythondiv,
    auto_broadcast) or a Broadcast (mode) computes, or a Reshape by a ReduceProd (keep_dims)."""
    x = o8.parameter([-1, 6], np.float32, name="x")
    if which == "special_zero":
        return ov.Model([o1.reshape(x, _c([0, 3, -1]), special_zero=True)], [x], "m")
    if which == "keep_dims":
        rows = o1.reduce_prod(o8.shape_of(x), _c([0]), keep_dims=True)
        return ov.Model([o1.reshape(x, o8.concat([rows, _c([1])], 0), False)], [x], "m")
    cols = o8.gather(o8.shape_of(x), _c([1]), _c(0))
    if which == "broadcast":  # stop [6, 6]
        stop = o3.broadcast(cols, _c([2]), broadcast_spec="bidirectional")
        return ov.Model([o8.slice(x, _c([0, 0]), stop, _c([1, 1]), _c([0, 1]))], [x], "m")
    stop = o1.divide(o1.multiply(cols, _c([-1])), _c([4]))  # -6 / 4: -2 floored, -1 truncated
    return ov.Model([o8.slice(x, _c([0]), stop, _c([1]), _c([1]))], [x], "m")


def _attribute_file(tmp_path: Path, which: str, old: str, new: str) -> Path:
    path = tmp_path / "m.xml"
    ov.save_model(_attribute_model(which), str(path), compress_to_fp16=False)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


# (model, the attribute as saved, another spelling, the output shape both give)
ATTRIBUTES = [
    *(
        pytest.param("special_zero", 'special_zero="true"', f'special_zero="{v}"', (2, 3, 2), id=v)
        for v in ("True", "TRUE", "1")
    ),
    *(
        pytest.param("divide", 'm_pythondiv="true"', f'm_pythondiv="{v}"', (2, 4), id=f"div {v}")
        for v in ("True", "1")
    ),
    *(
        pytest.param("divide", 'm_pythondiv="true"', f'm_pythondiv="{v}"', (2, 5), id=f"div {v}")
        for v in ("FALSE", "False", "0")
    ),
    pytest.param("divide", 'auto_broadcast="numpy"', 'auto_broadcast="NUMPY"', (2, 4), id="NUMPY"),
    pytest.param("divide", 'auto_broadcast="numpy"', 'auto_broadcast="Numpy"', (2, 4), id="Numpy"),
    *(
        pytest.param("broadcast", 'mode="bidirectional"', f'mode="{v}"', (2, 6), id=f"mode {v}")
        for v in ("BIDIRECTIONAL", "Bidirectional", "NUMPY")
    ),
    *(
        pytest.param("keep_dims", 'keep_dims="true"', f'keep_dims="{v}"', (12, 1), id=f"keep {v}")
        for v in ("TRUE", "1")
    ),
]


@pytest.mark.parametrize(("which", "old", "new", "shape"), ATTRIBUTES)
def test_a_bool_or_broadcast_mode_in_any_case_runs_as_in_openvino(
    tmp_path: Path, which: str, old: str, new: str, shape: tuple[int, ...]
) -> None:
    path = _attribute_file(tmp_path, which, old, new)
    ((_, want),) = openvino_oracle.run_ir(path, {"x": X})
    assert np.asarray(want).shape == shape
    model = ir.read_model(path)
    # the file declares the output of m_pythondiv="true": [?,4], which false makes [?,5]
    stale = [("shape", "Slice")] if shape == (2, 5) else []
    assert [(p.kind, p.layer_type) for p in model.check().problems] == stale
    (got,) = model.run({"x": X}).values()
    np.testing.assert_array_equal(got, want)
    saved = tmp_path / "saved.xml"
    ir.save_model(model, saved)  # written as OpenVINO writes it
    key, value = new.split('="')
    value = {"1": "true", "0": "false"}.get(value[:-1], value[:-1].lower())
    assert f'{key}="{value}"' in saved.read_text()


@pytest.mark.parametrize("value", ["0", "FALSE"])
def test_special_zero_false_in_any_case_is_refused_by_both(tmp_path: Path, value: str) -> None:
    # [0, 3, -1] without special_zero: a dim of 0 beside a -1, which neither can size
    path = _attribute_file(
        tmp_path, "special_zero", 'special_zero="true"', f'special_zero="{value}"'
    )
    with pytest.raises(openvino_oracle.OpenVINOError):
        openvino_oracle.run_ir(path, {"x": X})
    with pytest.raises(ir.IRError, match="Reshape"):
        ir.read_model(path).run({"x": X})


@pytest.mark.parametrize("value", ["yes", "", " true"])
def test_a_bool_openvino_does_not_know_is_not_taken_as_its_default(
    tmp_path: Path, value: str
) -> None:
    # IR-29: OpenVINO reads special_zero="yes" as false, m_pythondiv="yes" as true (the
    # defaults); datamove refuses the Reshape, and does not fold the Divide
    path = _attribute_file(tmp_path, "divide", 'm_pythondiv="true"', f'm_pythondiv="{value}"')
    assert openvino_oracle.run_ir(path, {"x": X})[0][1].shape == (2, 4)
    with pytest.raises(ir.IRError, match=r"\(Divide\): cannot run with input shapes"):
        ir.read_model(path).run({"x": X})
    (tmp_path / "r").mkdir()
    new = f'special_zero="{value}"'
    target = _attribute_file(tmp_path / "r", "special_zero", 'special_zero="true"', new)
    with pytest.raises(openvino_oracle.OpenVINOError):  # as false: [0, 3, -1] is refused
        openvino_oracle.run_ir(target, {"x": X})
    report = ir.read_model(target).check()
    assert [(p.kind, p.layer_type) for p in report.problems] == [("attribute", "Reshape")]
    assert "special_zero" in report.problems[0].message


def test_a_reshape_without_special_zero_is_refused(tmp_path: Path) -> None:
    # IR-29: OpenVINO reads it as false ([3, -1] on [2,6]: (3, 4)); datamove guesses no default
    x = o8.parameter([-1, 6], np.float32, name="x")
    path = tmp_path / "m.xml"
    reshape = o1.reshape(x, _c([3, -1]), special_zero=False)
    ov.save_model(ov.Model([reshape], [x], "m"), str(path), compress_to_fp16=False)
    path.write_text(path.read_text().replace('special_zero="false"', ""))
    assert openvino_oracle.run_ir(path, {"x": X})[0][1].shape == (3, 4)
    (problem,) = ir.read_model(path).check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", "Reshape")
    assert "special_zero=None" in problem.message
