"""Element-type attributes, read as OpenVINO reads them.

A Convert's ``destination_type``, a ShapeOf-3's or a Range-4's ``output_type`` names an element
type; OpenVINO 2026.4 matches the name ignoring case (``"I32"`` is i32), and refuses to read the
file where it names none (``"xyz"``, ``"fp32"``, ``"bool"``), a type the operator does not take
(ShapeOf-3, NonZero-3, TopK, NonMaxSuppression, Unique, Bucketize: i32 or i64; Range-4: not
boolean), or none where the operator has no default (ShapeOf-3, Bucketize, RandomUniform).
``check`` reports those as ``attribute`` problems and ``run`` refuses them, naming the layer.
OpenVINO gives the output the type the attribute names whatever precision its port declares:
``check`` reports such a port (kind ``element-type``) and ``run`` goes on as OpenVINO does. Each
model is written with the opset API, its attribute then edited in the XML text, and OpenVINO
asked whether it reads it.
A Parameter's or a Const's ``element_type`` is matched ignoring case as well.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir

ov = pytest.importorskip("openvino")
o1 = pytest.importorskip("openvino.opset1")
o8 = pytest.importorskip("openvino.opset8")
o3, o9 = pytest.importorskip("openvino.opset3"), pytest.importorskip("openvino.opset9")
o10, o13 = pytest.importorskip("openvino.opset10"), pytest.importorskip("openvino.opset13")

pytestmark = pytest.mark.openvino

X = np.arange(12, dtype=np.float32).reshape(2, 6)


def _x() -> Any:
    return o8.parameter([-1, 6], np.float32, name="x")


def _shape_of() -> Any:
    """Reshape(x, ShapeOf-3(x) as i32): x [?,6] -> [?,6]."""
    x = _x()
    return ov.Model([o8.reshape(x, o8.shape_of(x, "i32"), special_zero=False)], [x], "m")


def _convert() -> Any:
    """Reshape(x, Convert(ShapeOf(x), i64))."""
    x = _x()
    shape = o8.convert(o8.shape_of(x, "i32"), "i64")
    return ov.Model([o8.reshape(x, shape, special_zero=False)], [x], "m")


def _convert_data() -> Any:
    """Convert(x, i64): OpenVINO reads it, and its plugin compiles it or not."""
    x = _x()
    return ov.Model([o8.convert(x, "i64")], [x], "m")


def _range() -> Any:
    """Slice-8(x, start=Range(0, 1, 1), stop=[3], step=[1], axes=[1]): x [?,6] -> [?,3]."""
    x = _x()
    c = [o8.constant(np.array(v, np.int64)) for v in (0, 1, 1, [3], [1], [1])]
    return ov.Model([o8.slice(x, o1.range(*c[:3]), *c[3:])], [x], "m")


def _non_zero() -> Any:
    x = _x()
    return ov.Model([o8.non_zero(x, "i64")], [x], "m")


def _top_k() -> Any:
    x = _x()
    k = o8.constant(np.array(2, np.int64))
    return ov.Model([o1.topk(x, k, 1, "max", "value", "i32").output(1)], [x], "m")


def _c(value: Any, dtype: Any = np.int64) -> Any:
    return o8.constant(np.array(value, dtype))


def _nms() -> Any:
    boxes = o8.parameter([1, 4, 4], np.float32, name="x")
    scores = o8.parameter([1, 1, 4], np.float32, name="scores")
    return ov.Model(
        o9.non_max_suppression(boxes, scores, output_type="i64").outputs(), [boxes, scores]
    )


def _unique() -> Any:
    """Unique-10's counts (its output 3, the last) of x."""
    x = _x()
    unique = o10.unique(x, index_element_type="i64", count_element_type="i64")
    return ov.Model([unique.output(3)], [x], "m")


def _bucketize() -> Any:
    x = _x()
    return ov.Model([o3.bucketize(x, _c([1.0, 2.0], np.float32), "i64")], [x], "m")


def _eye() -> Any:
    return ov.Model([o9.eye(_c(3), _c(3), _c(0), "f32")], [_x()], "m")


def _multinomial() -> Any:
    x = _x()
    return ov.Model([o13.multinomial(x, _c([3]), "i32", False, False)], [x], "m")


def _random_uniform() -> Any:
    bounds = _c(0.0, np.float32), _c(1.0, np.float32)
    return ov.Model([o8.random_uniform(_c([2, 3]), *bounds, "f32")], [_x()], "m")


def _read_value() -> Any:
    from openvino.op.util import Variable, VariableInfo

    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([-1, 6]), ov.Type.f32, "v"
    x = _x()
    return ov.Model([o8.read_value(x, Variable(info))], [x], "m")


# (builder, the attribute as saved, the same with another value: as a Range-4 writes it). The
# values read differ from the saved ones in case only: the ports' precisions stay true.
_EDITS = {
    "ShapeOf": (_shape_of, 'output_type="i32"', 'output_type="{}"'),
    "Convert": (_convert, 'destination_type="i64"', 'destination_type="{}"'),
    "Convert data": (_convert_data, 'destination_type="i64"', 'destination_type="{}"'),
    "Range": (
        _range,
        'type="Range" version="opset1">',
        'type="Range" version="opset4">\n<data output_type="{}"/>',
    ),
    "NonZero": (_non_zero, 'output_type="i64"', 'output_type="{}"'),
    "TopK": (_top_k, 'index_element_type="i32"', 'index_element_type="{}"'),
    "NonMaxSuppression": (_nms, 'output_type="i64"', 'output_type="{}"'),
    "Unique index": (_unique, 'index_element_type="i64"', 'index_element_type="{}"'),
    "Unique count": (_unique, 'count_element_type="i64"', 'count_element_type="{}"'),
    "Bucketize": (_bucketize, 'output_type="i64"', 'output_type="{}"'),
    "Eye": (_eye, 'output_type="f32"', 'output_type="{}"'),
    "Multinomial": (_multinomial, 'convert_type="i32"', 'convert_type="{}"'),
    "RandomUniform": (_random_uniform, 'output_type="f32"', 'output_type="{}"'),
    "ReadValue": (_read_value, 'variable_type="f32"', 'variable_type="{}"'),
}


def _file(tmp_path: Path, layer: str, value: str | None) -> Path:
    """The model of ``layer`` with its attribute set to ``value`` (``None``: left out)."""
    build, old, new = _EDITS[layer]
    path = tmp_path / "m.xml"
    ov.save_model(build(), str(path), compress_to_fp16=False)
    text = path.read_text()
    assert text.count(old) == 1, text
    path.write_text(text.replace(old, "" if value is None else new.format(value)))
    return path


def _openvino_reads(path: Path) -> bool:
    try:
        ov.Core().read_model(str(path))
    except RuntimeError:
        return False
    return True


REFUSED = [
    pytest.param("ShapeOf", "f32", "output_type='f32' is not i32 or i64", id="ShapeOf f32"),
    pytest.param(
        "ShapeOf", "boolean", "output_type='boolean' is not i32 or i64", id="ShapeOf bool"
    ),
    pytest.param("ShapeOf", "xyz", "output_type='xyz' is not an element type", id="ShapeOf xyz"),
    pytest.param("ShapeOf", "FP32", "output_type='FP32' is not an element type", id="ShapeOf FP32"),
    pytest.param("Convert", "xyz", "destination_type='xyz' is not an element type", id="Cv xyz"),
    pytest.param("Convert", "bool", "destination_type='bool' is not an element type", id="Cv bool"),
    pytest.param("Convert", "bin", "destination_type='bin' is not an element type", id="Cv bin"),
    pytest.param("Convert", "", "destination_type='' is not an element type", id="Convert ''"),
    pytest.param("Convert", " i64", "destination_type=' i64' is not an element", id="Cv ' i64'"),
    pytest.param(
        "Range", "boolean", "output_type='boolean' is not a numeric type", id="Range bool"
    ),
    pytest.param("Range", "xyz", "output_type='xyz' is not an element type", id="Range xyz"),
]

# Layers datamove never computes: check reports the attribute (run refuses them all the same).
NEVER_RUN = [
    pytest.param("NonZero", "f32", "output_type='f32' is not i32 or i64", id="NonZero f32"),
    pytest.param("NonZero", "xyz", "output_type='xyz' is not an element type", id="NonZero xyz"),
    pytest.param("TopK", "f32", "index_element_type='f32' is not i32 or i64", id="TopK f32"),
    pytest.param("TopK", "Bool", "index_element_type='Bool' is not an element", id="TopK Bool"),
    pytest.param("ShapeOf", None, "output_type=None is missing from <data>", id="ShapeOf none"),
    pytest.param("NonMaxSuppression", "f32", "output_type='f32' is not i32 or i64", id="NMS f32"),
    pytest.param("Unique index", "xyz", "index_element_type='xyz' is not an", id="Unique xyz"),
    pytest.param("Unique count", "f32", "count_element_type='f32' is not i32", id="Unique f32"),
    pytest.param("Bucketize", "u8", "output_type='u8' is not i32 or i64", id="Bucketize u8"),
    pytest.param("Bucketize", None, "output_type=None is missing", id="Bucketize none"),
    pytest.param("Eye", "xyz", "output_type='xyz' is not an element type", id="Eye xyz"),
    pytest.param("Multinomial", "", "convert_type='' is not an element", id="Multinomial ''"),
    pytest.param("RandomUniform", None, "output_type=None is missing", id="RandomUniform none"),
    pytest.param("RandomUniform", "bool", "output_type='bool' is not an", id="RandomUniform bool"),
    pytest.param("ReadValue", "xyz", "variable_type='xyz' is not an element", id="ReadValue xyz"),
]

# Values of these attributes OpenVINO reads: no problem for check.
READ_NOT_RUN = [
    pytest.param("NonMaxSuppression", None, id="NMS none"),
    pytest.param("Unique count", None, id="Unique none"),
    pytest.param("Eye", "boolean", id="Eye boolean"),
    pytest.param("Multinomial", "F32", id="Multinomial F32"),
    pytest.param("Multinomial", None, id="Multinomial none"),
    pytest.param("ReadValue", None, id="ReadValue none"),
]

# Names of no type a value can have, and a Convert's left out: OpenVINO reads none of these
# files where a layer checks the type (the Convert feeds a Reshape's shape; Range itself), and
# compiles none where none does (a Convert of data). (layer, value, match, where it fails)
NO_TYPE = [
    pytest.param("Convert", "dynamic", "destination_type='dynamic' is not a", "read", id="Cv dyn"),
    pytest.param("Convert", None, "destination_type=None is missing", "read", id="Convert none"),
    pytest.param("Convert data", "undefined", "type='undefined'", "compile", id="Cv undefined"),
    pytest.param("Convert data", None, "type=None is missing", "compile", id="Cv data none"),
    pytest.param("Range", "dynamic", "output_type='dynamic' is not a", "read", id="Range dynamic"),
]

# (layer, value, the output shape both give for x of shape [2, 6])
READ = [
    pytest.param("ShapeOf", "I32", (2, 6), id="ShapeOf I32"),
    pytest.param("Convert", "I64", (2, 6), id="Convert I64"),
    pytest.param("Range", "I64", (2, 3), id="Range I64"),
]


@pytest.mark.parametrize(("layer", "value", "match"), REFUSED)
def test_openvino_refuses_to_read(tmp_path: Path, layer: str, value: str, match: str) -> None:
    assert not _openvino_reads(_file(tmp_path, layer, value))


@pytest.mark.parametrize(("layer", "value", "match"), NEVER_RUN)
def test_openvino_refuses_to_read_these_too(
    tmp_path: Path, layer: str, value: str, match: str
) -> None:
    assert not _openvino_reads(_file(tmp_path, layer, value))


@pytest.mark.parametrize(("layer", "value", "match"), NEVER_RUN)
def test_check_reports(tmp_path: Path, layer: str, value: str, match: str) -> None:
    (problem,) = ir.read_model(_file(tmp_path, layer, value)).check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", layer.split(maxsplit=1)[0])
    assert match in problem.message


def test_a_layer_type_in_another_case_is_read_as_openvino_reads_it(tmp_path: Path) -> None:
    # OpenVINO reads type="shapeof" as ShapeOf, and refuses its output_type="f32"
    path = _file(tmp_path, "ShapeOf", "f32")
    path.write_text(path.read_text().replace('type="ShapeOf"', 'type="shapeof"'))
    assert not _openvino_reads(path)
    (problem,) = ir.read_model(path).check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", "ShapeOf")  # its name


@pytest.mark.parametrize(("layer", "value"), READ_NOT_RUN)
def test_what_openvino_reads_check_reads(tmp_path: Path, layer: str, value: str | None) -> None:
    path = _file(tmp_path, layer, value)
    assert _openvino_reads(path)
    problems = ir.read_model(path).check().problems
    assert {p.kind for p in problems} <= {"element-type"}  # Eye's port stays FP32: reported


@pytest.mark.parametrize(("layer", "value", "match"), REFUSED)
def test_check_reports_and_run_refuses(tmp_path: Path, layer: str, value: str, match: str) -> None:
    model = ir.read_model(_file(tmp_path, layer, value))
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", layer)
    assert match in problem.message
    assert "OpenVINO refuses the file" in problem.message
    with pytest.raises(ir.IRError, match=rf"\({layer}\): cannot run: .*{match}"):
        model.run({"x": X})


@pytest.mark.parametrize(("layer", "value", "match", "where"), NO_TYPE)
def test_no_type_is_reported_and_refused(
    tmp_path: Path, layer: str, value: str | None, match: str, where: str
) -> None:
    path = _file(tmp_path, layer, value)
    assert _openvino_reads(path) == (where == "compile")
    if where == "compile":
        with pytest.raises(RuntimeError, match="can't convert from: f32 precision to: dyn"):
            ov.Core().compile_model(str(path), "CPU")
    model = ir.read_model(path)
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", layer.split(maxsplit=1)[0])
    assert match in problem.message
    hint = "OpenVINO refuses the file"
    if layer.startswith("Convert"):  # the hint names both: the Convert does not know its reader
        hint = "OpenVINO reads it as dynamic, then refuses the file if a layer it feeds needs a "
        hint += "type, else its CPU plugin refuses to compile it"
    assert problem.message.endswith(f"(hint: {hint})")
    with pytest.raises(ir.IRError, match=rf"cannot run: .*{re.escape(hint)}"):
        model.run({"x": X})


@pytest.mark.parametrize(("layer", "value", "shape"), READ)
def test_a_name_openvino_reads_in_any_case_runs(
    tmp_path: Path, layer: str, value: str, shape: tuple[int, ...]
) -> None:
    path = _file(tmp_path, layer, value)
    assert _openvino_reads(path)
    compiled = ov.Core().compile_model(str(path), "CPU")
    expected = next(iter(compiled({"x": X}).values()))
    assert expected.shape == shape
    model = ir.read_model(path)
    assert model.check().ok
    (got,) = model.run({"x": X}).values()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("old", "new"),
    [('element_type="f32"', 'element_type="F32"'), ('element_type="i64"', 'element_type="I64"')],
    ids=["Parameter F32", "Const I64"],
)
def test_a_parameter_or_const_type_in_another_case_is_read(
    tmp_path: Path, old: str, new: str
) -> None:
    # A Parameter's or a Const's element_type in another case: OpenVINO reads and runs it (and
    # refuses "Fp32", no name it knows); datamove refused both as types it does not support.
    x = o8.parameter([2, 6], np.float32, name="x")
    target = o8.constant(np.array([3, 4], np.int64))
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model([o8.reshape(x, target, False)], [x], "m"), str(path))
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    expected = next(iter(ov.Core().compile_model(str(path), "CPU")({"x": X}).values()))
    model = ir.read_model(path)
    assert model.check().ok
    assert model.inputs["x"][1] == "f32"
    (got,) = model.run({"x": X}).values()
    np.testing.assert_array_equal(got, expected)
    path.write_text(text.replace(old, old.replace('"f32"', '"Fp32"').replace('"i64"', '"Fp32"')))
    assert not _openvino_reads(path)
    assert not ir.read_model(path).check().ok


# (layer, its attribute's value, the precision written on its output port instead of that
# type's). ShapeOf, Convert and Range feed a Reshape or a Slice that run computes.
CONTRADICTED = [
    pytest.param("ShapeOf", "i32", "FP32", id="ShapeOf i32 FP32"),
    pytest.param("ShapeOf", "i32", "I64", id="ShapeOf i32 I64"),
    pytest.param("Convert", "i64", "FP32", id="Convert i64 FP32"),
    pytest.param("Convert", "i64", "BOOL", id="Convert i64 BOOL"),
    pytest.param("Range", "i64", "I16", id="Range i64 I16"),
    pytest.param("NonZero", "i64", "FP32", id="NonZero i64 FP32"),
    pytest.param("TopK", "i32", "I64", id="TopK i32 I64"),
    pytest.param("Unique count", "i64", "FP32", id="Unique count i64 FP32"),
]


def _declare(path: Path, layer: str, precision: str) -> None:
    """Write ``precision`` on the last output port of the layer of type ``layer``."""
    text = path.read_text()
    start = text.index(f'type="{layer.split(maxsplit=1)[0]}"')
    end = text.index("</layer>", start)
    head, tail = text[start:end].split("<output>")
    last = list(re.finditer(r'precision="\w+"', tail))[-1]  # a TopK's last: its index output
    tail = f'{tail[: last.start()]}precision="{precision}"{tail[last.end() :]}'
    path.write_text(text[:start] + head + "<output>" + tail + text[end:])


@pytest.mark.parametrize(("layer", "value", "precision"), CONTRADICTED)
def test_a_port_contradicting_the_attribute_is_reported_and_run_as_openvino_does(
    tmp_path: Path, layer: str, value: str, precision: str
) -> None:
    # OpenVINO reads the file and gives the attribute's type; datamove took the port's: a
    # Reshape's shape of precision FP32 was refused, an I64 ShapeOf's value was not known.
    path = _file(tmp_path, layer, value)
    _declare(path, layer, precision)
    compiled = ov.Core().compile_model(str(path), "CPU")
    expected = next(iter(compiled({"x": X}).values()))
    model = ir.read_model(path)
    report = model.check()
    (problem,) = report.problems
    assert (problem.kind, problem.layer_type) == ("element-type", layer.split(maxsplit=1)[0])
    assert problem.message == f"declares precision {precision}, but the element type is {value}"
    if layer not in (
        "ShapeOf",
        "Convert",
        "Range",
    ):  # their output is the model's: of the attribute's type
        (output,) = report.outputs.values()
        assert output[1] == expected.dtype.name.replace("int", "i")
        return
    (got,) = model.run({"x": X}).values()
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype


@pytest.mark.parametrize("value", ["dynamic", "undefined", "Dynamic"])
@pytest.mark.parametrize("joined", [False, True], ids=["Parameter -> Result", "Concat"])
def test_an_input_of_no_element_type_is_read_by_openvino_and_run_by_none(
    tmp_path: Path, value: str, joined: bool
) -> None:
    # IR-37: OpenVINO reads a Parameter of element_type "dynamic" (or "undefined"), but its CPU
    # plugin refuses to compile the model ("Memory has not been allocated") or, of a Concat, to
    # run it ("m_element_type.is_static()"), and evaluate to run it: a problem, whose hint says
    # so (fixed: it listed the types datamove supports).
    openvino_oracle = pytest.importorskip("openvino_oracle")
    x = o8.parameter([2, 6], np.float32, name="x")
    path = tmp_path / "m.xml"
    out = o8.concat([x, x], 0).output(0) if joined else x.output(0)
    ov.save_model(ov.Model([out], [x], "m"), str(path))
    text = path.read_text()
    path.write_text(text.replace('element_type="f32"', f'element_type="{value}"', 1))
    assert ov.Core().read_model(str(path)).input(0).element_type == ov.Type.dynamic
    with pytest.raises(openvino_oracle.OpenVINOError):
        openvino_oracle.run_ir(path, {"x": X})
    with pytest.raises(openvino_oracle.OpenVINOError, match="is_static"):
        openvino_oracle.evaluate_ir(path, {"x": X})
    model = ir.read_model(path)
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", "Parameter")
    assert problem.message.endswith(
        f"element_type={value.lower()!r} is not an element type datamove supports (hint: OpenVINO "
        "reads it as dynamic, but runs no model with it: its CPU plugin refuses to compile or to "
        "run it, evaluate to run it)"
    )
    with pytest.raises(ir.IRError, match="cannot run: element_type="):
        model.run({"x": X})
