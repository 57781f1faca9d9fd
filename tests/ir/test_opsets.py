"""A layer's ``version``: the opsets OpenVINO 2026.4 reads each layer type in (`_opsets`).

OpenVINO refuses a file where a layer's version names an opset it does not have (``opset99``,
``opset01``) or one that does not hold the layer's type (``Gelu`` as ``opset1``), and reads
any other version (``extension``, ``custom``) only with an extension registering the type
there. `check` reports the first two as ``unsupported`` problems, which `run` refuses, and the
third as an ``extension`` note. The table is compared with OpenVINO's reader on every type and
every opset, and hand cases go through `Model.check`, `Model.run` and ``datamove check``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import openvino_oracle
from datamove import ir
from datamove.cli import main
from datamove.ir import _opsets
from datamove.ir._model import type_names
from datamove.ir._ops import LAYER_OPS

# Every type the table names, and a few in no opset (an internal type of OpenVINO's plugins).
TYPES = [t for t in _opsets._TABLE.split() if not t.endswith(":")]
TYPES += ["Foo", "TypeRelaxed", "FullyConnected"]
VERSIONS = [f"opset{n}" for n in range(_opsets.NEWEST_OPSET + 2)]
VERSIONS += ["opset01", "", "opset", "OPSET1", "extension", "experimental", "custom"]
# The reader's refusals of a layer's opset; any other error comes after it read the type.
OPSET_ERRORS = ("doesn't contain the operation with type", "from unsupported opset")


def _xml(layer_type: str, version: str) -> str:
    """A Parameter, a layer of this type and version of one input and one output, a Result.

    ``variable_id`` and the others keep Assign-6 and ReadValue-6 from crashing the reader.
    """
    port = '<port id="{}" precision="FP32"><dim>4</dim></port>'
    return f"""<?xml version="1.0"?>
<net name="n" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="4" element_type="f32"/>
<output>{port.format(0)}</output></layer>
<layer id="1" name="r" type="{layer_type}" version="{version}">
<data variable_id="v" variable_type="f32" variable_shape="4"/>
<input>{port.format(0)}</input><output>{port.format(1)}</output></layer>
<layer id="2" name="o" type="Result" version="opset1"><input>{port.format(0)}</input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>"""


def _write(tmp_path: Path, layer_type: str, version: str) -> Path:
    path = tmp_path / "m.xml"
    path.write_text(_xml(layer_type, version))
    return path


@pytest.mark.openvino
@pytest.mark.slow
def test_the_table_is_what_openvino_reads() -> None:
    # Every type, in every opset and the next, and versions that are no opset (a few with the
    # type's case swapped): OpenVINO reads the type (any error after it read it: wrong inputs,
    # attributes, or a crash building the node, Broadcast-1 of one input) exactly where
    # version_rule says it does. Const is IR's name of Constant; the reader refuses it spelled
    # otherwise (tests/ir/test_type_case.py).
    wrong = []
    for layer_type in TYPES:
        cases = [(layer_type, v) for v in VERSIONS]
        if layer_type != "Const":  # its case swapped where the reader's special cases differ
            held = _opsets.held(layer_type)
            first = f"opset{min(held.opsets)}" if held else "opset1"
            swapped = layer_type.swapcase()
            cases += [
                (swapped, v) for v in dict.fromkeys(["opset1", "opset2", first, "experimental"])
            ]
        errors = openvino_oracle.read_ir_texts([_xml(t, v) for t, v in cases])
        for (t, v), error in zip(cases, errors, strict=True):
            reads = error is None or not any(e in error for e in OPSET_ERRORS)
            if reads != (_opsets.version_rule(t, v) is None):
                wrong.append((t, v, error))
    assert not wrong


def test_every_type_datamove_knows_is_in_an_opset() -> None:
    assert [t for t in type_names().values() if _opsets.held(t) is None] == []
    assert {t: _opsets.held(t) is not None for t in LAYER_OPS} == dict.fromkeys(LAYER_OPS, True)


@pytest.mark.parametrize(
    ("layer_type", "version", "message"),
    [
        pytest.param(
            "Gelu",
            "opset1",
            "opset1 does not contain the operation with type Gelu, so OpenVINO refuses the file "
            "(Gelu is in opset2 to opset16)",
            id="Gelu opset1",
        ),
        pytest.param(
            "Foo",
            "opset1",
            "opset1 does not contain the operation with type Foo, so OpenVINO refuses the file "
            "(no opset holds Foo)",
            id="Foo opset1",
        ),
        pytest.param(
            "Relu",
            "opset99",
            "OpenVINO has no opset 'opset99', so it refuses the file (it has opset1 to "
            "opset17; Relu is in opset1 to opset16)",
            id="Relu opset99",
        ),
        pytest.param(
            "ShuffleChannels",
            "opset2",
            "opset2 does not contain the operation with type ShuffleChannels, so OpenVINO "
            "refuses the file (ShuffleChannels is in opset1 and opset3 to opset16)",
            id="ShuffleChannels opset2",
        ),
        pytest.param(
            "MatMul",
            "opset17",
            "opset17 does not contain the operation with type MatMul, so OpenVINO refuses the "
            "file (MatMul is in opset1 to opset16)",
            id="MatMul opset17",
        ),
    ],
)
def test_a_version_openvino_refuses_is_unsupported(
    tmp_path: Path, layer_type: str, version: str, message: str
) -> None:
    model = ir.read_model(_write(tmp_path, layer_type, version))
    report = model.check()
    (problem,) = report.problems
    assert (problem.kind, problem.layer_name, problem.message) == ("unsupported", "r", message)
    assert (report.checked, report.opaque) == ({}, {problem.layer_type: 1})
    with pytest.raises(ir.UnsupportedOperatorError, match="1 unsupported layer") as caught:
        model.run({"x": np.zeros(4, np.float32)})
    assert caught.value.hint == message


@pytest.mark.parametrize(
    ("layer_type", "version"),
    [("Gelu", "opset7"), ("gelu", "opset2"), ("Relu", "opset1"), ("GRUCell", "experimental")],
)
def test_a_version_openvino_reads_is_no_problem(
    tmp_path: Path, layer_type: str, version: str
) -> None:
    # GRUCell as "experimental": the reader takes the experimental layers from opset6.
    report = ir.read_model(_write(tmp_path, layer_type, version)).check()
    assert (report.problems, report.notes) == ((), ())


@pytest.mark.parametrize("version", ["extension", "custom", "ie_internal_opset"])
def test_a_version_that_is_no_opset_is_an_extension_note(tmp_path: Path, version: str) -> None:
    path = _write(tmp_path, "Relu", version)
    report = ir.read_model(path).check()
    (note,) = report.notes
    assert report.ok
    assert (note.kind, note.layer_type, note.message) == (
        "extension",
        "ReLU",
        (
            f"{version!r} is no opset: OpenVINO reads the layer only with an extension that "
            "registers Relu in it (Core.add_extension; Relu is in opset1 to opset16)"
        ),
    )


def test_check_lists_extension_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "StringTensorUnpack", "extension")
    assert main(["check", str(path), "-v"]) == 0
    out = capsys.readouterr().out
    assert "notes (layers OpenVINO reads only with an extension):\n  layer 1 'r'" in out
    assert main(["check", str(path), "--json"]) == 0
    (note,) = json.loads(capsys.readouterr().out)["notes"]
    assert note["kind"] == "extension"


def test_a_modelled_type_keeps_its_message(tmp_path: Path) -> None:
    # A type datamove models: refused in an extension's version too (datamove runs its own).
    for version in ("opset17", "extension"):
        (problem,) = ir.read_model(_write(tmp_path, "Squeeze", version)).check().problems
        assert problem.message == (
            f"version {version!r} of Squeeze is not supported "
            "(datamove implements Squeeze-1, as in opset1 to opset16)"
        )


def test_a_refused_layer_is_named_before_what_datamove_does_not_compute(tmp_path: Path) -> None:
    # Foo as opset1 feeds the output: the file OpenVINO refuses, not a layer not computed.
    model = ir.read_model(_write(tmp_path, "Foo", "opset1"))
    with pytest.raises(ir.UnsupportedOperatorError, match="cannot run: 1 unsupported layer"):
        model.run({"x": np.zeros(4, np.float32)})
    model = ir.read_model(_write(tmp_path, "Foo", "extension"))
    with pytest.raises(ir.UnsupportedOperatorError, match="does not compute Foo layers"):
        model.run({"x": np.zeros(4, np.float32)})


def _many_outputs() -> list[tuple[str, object]]:
    """A model of one layer of each type of several outputs, and of two of one output."""
    ov = pytest.importorskip("openvino")
    from openvino import opset1, opset8, opset9, opset10, opset11, opset14

    made: list[object] = []

    def p(shape: list[int], dtype: type = np.float32) -> object:
        made.append(opset1.parameter(shape, dtype))
        return made[-1]

    builders = [
        ("Relu", opset1.relu),
        ("ShapeOf", opset1.shape_of),
        ("MaxPool", lambda x: opset1.max_pool(x, [1, 1], [0, 0], [0, 0], [2, 2])),
        ("MaxPool", lambda x: opset8.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2])),
        ("TopK", lambda x: opset11.topk(x, p([], np.int64), 1, "max", "value")),
        ("Unique", opset10.unique),
        ("AdaptiveMaxPool", lambda x: opset8.adaptive_max_pool(x, p([2], np.int64))),
        ("ConvertPromoteTypes", lambda x: opset14.convert_promote_types(x, p([1], np.float16))),
        (
            "LSTMCell",
            lambda _: opset1.lstm_cell(
                p([2, 3]), p([2, 4]), p([2, 4]), p([16, 3]), p([16, 4]), p([16]), 4
            ),
        ),
        ("NonMaxSuppression", lambda _: opset9.non_max_suppression(p([1, 6, 4]), p([1, 1, 6]))),
    ]
    models = []
    for name, build in builders:
        made.clear()
        node = build(p([1, 2, 4, 4]))
        results = [opset1.result(o) for o in node.outputs()]
        models.append(
            (name, ov.Model(results, [m for m in made if m.output(0).get_target_inputs()]))
        )
    return models


@pytest.mark.openvino
def test_a_layer_of_more_outputs_than_its_type_has_is_refused(tmp_path: Path) -> None:
    """OpenVINO reads a layer declaring as many output ports as its type has, refuses one more
    ("node index is out of range"): a ``ports`` problem (fixed: an opaque layer's were never
    counted, and check said OK; found by mutating IR files at random)."""
    ov = pytest.importorskip("openvino")
    for k, (name, model) in enumerate(_many_outputs()):
        path = tmp_path / f"m{k}.xml"
        ov.save_model(model, str(path))
        text = path.read_text()
        report = ir.read_model(path).check()
        assert not [p for p in report.problems if p.kind == "ports"], name
        spelt = re.search(f'type="({name})"', text, re.IGNORECASE)[1]  # OpenVINO writes ReLU
        outputs = text.split(f'type="{spelt}"')[1].split("</output>")[0]
        last = "<port" + outputs.split("<port")[-1]
        more = last.replace(
            last[last.index('id="') : last.index('" ', last.index('id="'))], 'id="99'
        )
        path.write_text(text.replace(outputs, outputs + more, 1))
        with pytest.raises(openvino_oracle.OpenVINOError, match="node index is out of range"):
            openvino_oracle.run_ir(path, {})
        problems = ir.read_model(path).check().problems
        (problem,) = [p for p in problems if p.kind == "ports"]
        count = outputs.split("<output>")[1].count("<port")
        assert problem.message == (
            f"declares {count + 1} output port(s), but {spelt} has {count}, so OpenVINO refuses "
            "the file"
        ), name
