"""Where OpenVINO's IR reader crashes, and the layers it never reads.

OpenVINO 2026.4's ``read_model`` kills the process (SIGSEGV) on a few malformed layers of the
types datamove folds or takes as declared: an Assign-6 or ReadValue-6 without ``variable_id``,
a Broadcast-1 of fewer than 2 inputs (IR-30), a Slice of 2 or 3 inputs (IR-5). `check`
reports each as a problem naming the layer, the argument and the rule, and `run` refuses it;
the crash is observed in the oracle's worker. A survey of every type datamove models or
folds, of 0 to 5 inputs, 1 or 2 output ports and no ``<data>``, found no other crash. An
Assign whose ``variable_id`` no ReadValue OpenVINO reads declares it refuses (IR-33): a problem.

The reader builds only the layers a Result or an Assign needs (and the Parameters): a layer
no output needs is never read, so what OpenVINO would refuse there, or crash on, does not stop
it (IR-31). `check` reports such a layer's problem as an ``"unread"`` note, and `run` runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import openvino_oracle
from datamove import ir
from datamove.cli import main

X = np.arange(4)
_PORT = '<port id="{}" precision="I64"><dim>4</dim></port>'


def _xml(layer_type: str, version: str, inputs: int, data: str = "", *, dead: bool = False) -> str:
    """Parameters ``x``, ``x1``... of ``[4]`` i64 into one layer ``r``, whose output 0 a Result
    reads; or, ``dead``, a Result of ``x`` itself, and ``r`` feeding nothing."""
    names = ["x"] + [f"x{k}" for k in range(1, inputs)]
    layers = [
        f'<layer id="{k}" name="{n}" type="Parameter" version="opset1">'
        f'<data shape="4" element_type="i64"/><output><port id="0" precision="I64" names="{n}">'
        "<dim>4</dim></port></output></layer>"
        for k, n in enumerate(names)
    ]
    edges = [
        f'<edge from-layer="{k}" from-port="0" to-layer="10" to-port="{k}"/>' for k in range(inputs)
    ]
    ins = "".join(_PORT.format(k) for k in range(inputs))
    layers.append(
        f'<layer id="10" name="r" type="{layer_type}" version="{version}">{data}'
        f"<input>{ins}</input><output>{_PORT.format(inputs)}</output></layer>"
    )
    layers.append(
        f'<layer id="20" name="o" type="Result" version="opset1"><input>{_PORT.format(0)}</input>'
        "</layer>"
    )
    source = ("0", "0") if dead else ("10", str(inputs))
    edges.append(
        f'<edge from-layer="{source[0]}" from-port="{source[1]}" to-layer="20" to-port="0"/>'
    )
    return (
        f'<?xml version="1.0"?><net name="n" version="11"><layers>{"".join(layers)}</layers>'
        f"<edges>{''.join(edges)}</edges></net>"
    )


CRASHES = [
    pytest.param(
        ("Assign", "opset6", 1, ""),
        "variable_id=None is missing from <data> (hint: OpenVINO crashes reading the file)",
        id="Assign-6 without variable_id",
    ),
    pytest.param(
        ("ReadValue", "opset6", 1, ""),
        "variable_id=None is missing from <data> (hint: OpenVINO crashes reading the file)",
        id="ReadValue-6 without variable_id",
    ),
    pytest.param(
        ("ReadValue", "opset6", 0, ""),
        "variable_id=None is missing from <data> (hint: OpenVINO crashes reading the file)",
        id="ReadValue-6 of no input without variable_id",
    ),
    pytest.param(
        ("Broadcast", "opset1", 1, ""),
        "inputs=1 is the wrong number of inputs: Broadcast takes 2 or 3 "
        "(hint: OpenVINO crashes reading the file)",
        id="Broadcast-1 of one input",
    ),
    pytest.param(
        ("Broadcast", "opset1", 1, '<data mode="explicit"/>'),
        "inputs=1 is the wrong number of inputs: Broadcast takes 2 or 3 "
        "(hint: OpenVINO crashes reading the file)",
        id="Broadcast-1 explicit of one input",
    ),
    pytest.param(
        ("Broadcast", "opset1", 0, ""),
        "inputs=0 is the wrong number of inputs: Broadcast takes 2 or 3 "
        "(hint: OpenVINO crashes reading the file)",
        id="Broadcast-1 of no input",
    ),
    pytest.param(
        ("Slice", "opset8", 2, ""),
        "inputs=2 is the wrong number of inputs: Slice takes 4 or 5",
        id="Slice of two inputs",
    ),
]


@pytest.mark.openvino
@pytest.mark.parametrize(("layer", "message"), CRASHES)
def test_a_layer_openvino_crashes_on_is_a_problem(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    layer: tuple[str, str, int, str],
    message: str,
) -> None:
    text = _xml(*layer)
    (error,) = openvino_oracle.read_ir_texts([text])
    assert error is not None
    assert error.startswith("OpenVINOCrashError")
    path = tmp_path / "m.xml"
    path.write_text(text)
    model = ir.read_model(path)
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_name, problem.message) == ("attribute", "r", message)
    inputs = dict.fromkeys(model.inputs, X)
    with pytest.raises(ir.IRError, match=r"layer 10 'r'.*cannot run"):
        model.run(inputs)
    assert main(["check", str(path)]) == 1
    assert message in capsys.readouterr().out


@pytest.mark.openvino
def test_their_neighbours_openvino_reads_or_refuses_and_so_does_check(tmp_path: Path) -> None:
    # The crashes' nearest neighbours: OpenVINO reads them, or refuses them without a crash,
    # and check agrees on which (a refusal is a problem that says OpenVINO refuses the file).
    refused = "inputs={} is the wrong number of inputs: Broadcast takes 2 or 3 (hint: OpenVINO "
    cases = [
        (("Broadcast", "opset1", 2, ""), None),
        (("ReadValue", "opset6", 1, '<data variable_id="v"/>'), None),
        (("ReadValue", "opset6", 0, '<data variable_id="v"/>'), None),
        (("Broadcast", "opset3", 1, ""), refused.format(1) + "refuses the file)"),
        (("Broadcast", "opset1", 4, ""), refused.format(4) + "refuses the file)"),
        (
            ("Broadcast", "opset1", 1, '<data mode="pdpd"/>'),
            refused.format(1) + "refuses the file)",
        ),
    ]
    errors = openvino_oracle.read_ir_texts([_xml(*layer) for layer, _ in cases])
    path = tmp_path / "m.xml"
    for (layer, message), error in zip(cases, errors, strict=True):
        assert (error is None) == (message is None), layer
        assert "Crash" not in str(error), layer
        path.write_text(_xml(*layer))
        problems = ir.read_model(path).check().problems
        assert [p.message for p in problems] == ([message] if message else []), layer


UNREAD = [
    pytest.param(
        ("Foo", "opset1", 1, ""),
        "opset1 does not contain the operation with type Foo, so OpenVINO refuses the file "
        "(no opset holds Foo)",
        id="Foo as opset1",
    ),
    pytest.param(
        ("VariadicSplit", "opset99", 1, ""),
        "version 'opset99' of VariadicSplit is not supported (datamove implements "
        "VariadicSplit-1, as in opset1 to opset16)",
        id="VariadicSplit as opset99",
    ),
    pytest.param(
        ("VariadicSplit", "opset1", 1, ""),
        "inputs=1 is the wrong number of inputs: VariadicSplit takes 3",
        id="VariadicSplit of one input",
    ),
    pytest.param(
        ("Broadcast", "opset1", 1, ""),
        "inputs=1 is the wrong number of inputs: Broadcast takes 2 or 3 "
        "(hint: OpenVINO crashes reading the file)",
        id="Broadcast-1 of one input",
    ),
]


@pytest.mark.openvino
@pytest.mark.parametrize(("layer", "message"), UNREAD)
def test_a_layer_no_output_needs_is_an_unread_note_and_run_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    layer: tuple[str, str, int, str],
    message: str,
) -> None:
    # IR-31: OpenVINO reads, compiles and runs the file; the layer is never built.
    path = tmp_path / "m.xml"
    path.write_text(_xml(*layer, dead=True))
    ((_, want),) = openvino_oracle.run_ir(path, {"x": X})
    model = ir.read_model(path)
    report = model.check()
    (note,) = report.notes
    assert (report.problems, note.kind, note.layer_name) == ((), "unread", "r")
    assert note.message == f"feeds no Result or Assign, so OpenVINO does not read it: {message}"
    (got,) = model.run({"x": X}).values()
    assert got.tolist() == np.asarray(want).tolist() == X.tolist()
    assert main(["check", str(path), "-v"]) == 0
    out = capsys.readouterr().out
    assert "notes (problems of layers OpenVINO does not read: no output needs them):" in out
    assert main(["check", str(path), "--json"]) == 0
    assert [n["kind"] for n in json.loads(capsys.readouterr().out)["notes"]] == ["unread"]


@pytest.mark.openvino
def test_a_layer_an_assign_needs_is_read(tmp_path: Path) -> None:
    # An Assign is a sink: OpenVINO reads it, and what feeds it, though no Result needs them.
    # Here an Assign-6 without variable_id, fed by x and feeding nothing, crashes the reader.
    text = _xml("Relu", "opset1", 1, dead=True).replace(
        "</layers>",
        '<layer id="30" name="a" type="Assign" version="opset6">'
        f"<input>{_PORT.format(0)}</input></layer></layers>",
    )
    text = text.replace(
        "</edges>", '<edge from-layer="10" from-port="1" to-layer="30" to-port="0"/></edges>'
    )
    (error,) = openvino_oracle.read_ir_texts([text])
    assert str(error).startswith("OpenVINOCrashError")
    path = tmp_path / "m.xml"
    path.write_text(text)
    model = ir.read_model(path)
    report = model.check()
    ((problem,), notes) = (report.problems, report.notes)
    assert (problem.layer_name, problem.message, notes) == (
        "a",
        "variable_id=None is missing from <data> (hint: OpenVINO crashes reading the file)",
        (),
    )
    with pytest.raises(ir.IRError, match=r"layer 30 'a'.*cannot run"):
        model.run({"x": X})


def _assign_xml(
    version: str, read_value: str | None, feeds: str, read_version: str = "opset6"
) -> str:
    """`_xml`'s dead ``r`` file, plus an Assign of ``version`` writing variable ``v`` and, where
    ``read_value`` names a variable, a ReadValue of ``read_version`` of it: feeding the Assign
    (``feeds="assign"``), or nothing (``"nothing"``), the Assign then fed by ``x``."""
    text = _xml("Relu", "opset1", 1, dead=True)
    layers = (
        f'<layer id="30" name="a" type="Assign" version="{version}"><data variable_id="v"/>'
        f"<input>{_PORT.format(0)}</input></layer>"
    )
    edges = [("0", "0", "30")]
    if read_value is not None:
        layers += (
            f'<layer id="40" name="rv" type="ReadValue" version="{read_version}"><data variable_id='
            f'"{read_value}" variable_type="i64" variable_shape="4"/><input>{_PORT.format(0)}'
            f"</input><output>{_PORT.format(1)}</output></layer>"
        )
        edges.append(("0", "0", "40"))
        if feeds == "assign":
            edges[0] = ("40", "1", "30")
    text = text.replace("</layers>", f"{layers}</layers>")
    return text.replace(
        "</edges>",
        "".join(
            f'<edge from-layer="{a}" from-port="{p}" to-layer="{b}" to-port="0"/>'
            for a, p, b in edges
        )
        + "</edges>",
    )


ASSIGNS = [  # (Assign's version, ReadValue's variable, what the ReadValue feeds), OpenVINO's error
    pytest.param(("opset6", None, ""), "map::at", id="Assign-6, no ReadValue"),
    pytest.param(("opset3", None, ""), "Can't find variable with id = v", id="Assign-3"),
    pytest.param(("opset6", "w", "assign"), "map::at", id="ReadValue of another variable"),
    pytest.param(("opset6", "v", "nothing"), "map::at", id="ReadValue OpenVINO does not read"),
    # fixed: an Assign-3 finds a ReadValue-3's variable alone, and check said OK
    pytest.param(("opset3", "v", "assign"), "Can't find variable", id="Assign-3 of a ReadValue-6"),
]
# Those OpenVINO reads: an Assign-6 of a ReadValue-6 or -3, an Assign-3 of a ReadValue-3
FINE = [("opset6", "v", "assign"), ("opset6", "v", "assign", "opset3")]
FINE += [("opset3", "v", "assign", "opset3")]


@pytest.mark.openvino
@pytest.mark.parametrize(("assign", "refusal"), ASSIGNS)
def test_an_assign_of_a_variable_no_read_value_declares_is_a_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], assign: tuple[str, Any, str], refusal: str
) -> None:
    # IR-33: OpenVINO refuses the file (at read); datamove's check reported nothing.
    text = _assign_xml(*assign)
    fine = [_assign_xml(*f) for f in FINE]
    error, *read = openvino_oracle.read_ir_texts([text, *fine])
    assert refusal in str(error)
    assert "Crash" not in str(error)
    assert read == [None] * len(fine)
    path = tmp_path / "m.xml"
    for one in fine:
        path.write_text(one)
        assert ir.read_model(path).check().ok
    path.write_text(text)
    model = ir.read_model(path)
    (problem,) = model.check().problems
    kind = "ReadValue-3" if assign[0] == "opset3" else "ReadValue"
    message = (
        f"variable_id='v' is the variable_id of no {kind} OpenVINO reads "
        "(hint: OpenVINO refuses the file)"
    )
    assert (problem.kind, problem.layer_name, problem.message) == ("attribute", "a", message)
    with pytest.raises(ir.IRError, match=r"layer 30 'a' \(Assign\): cannot run: variable_id='v'"):
        model.run({"x": X})
    assert main(["check", str(path)]) == 1
    assert message in capsys.readouterr().out
