"""Gather's ``batch_dims`` and a shape Concat's ``axis`` read as integers, as OpenVINO reads them.

OpenVINO 2026.4 reads both as ``int64`` (IR-3's rules, `datamove.ir._graph.parse_attr_int`):
``"00"``, ``"-0"``, ``" 0"``, ``"0.0"``, ``"0e0"`` are 0, and ``"+0"``, ``""``, ``"x"`` refuse
the file. datamove folds, bounds and notes a shape subgraph by those numbers, never by the text:
each spelling of 0 reads, checks and runs as ``"0"`` does, and each spelling OpenVINO refuses is
a check problem naming the layer, the attribute and the value, and a run refusal. (What OpenVINO
cuts short to its leading integer, ``"0x"``, ``"0.5"``, datamove refuses: IR-3.)
The model is written with the opset API, its attributes then edited in the XML text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import openvino_oracle
from datamove import ir

ov = pytest.importorskip("openvino")
o8 = pytest.importorskip("openvino.opset8")

pytestmark = pytest.mark.openvino

X = np.arange(18, dtype=np.float32).reshape(3, 6)
ZEROS = ["0", "00", "-0", "-00", " 0", "0 ", "&#9;0&#10;", "0.0", "0.", "0e0", "0.00E0"]
REFUSED = ["+0", "", " ", "x", "-", ".0"]
CUT_SHORT = ["0x", "0.5", "0 1", "0e5x"]  # OpenVINO reads 0; datamove refuses (IR-3)
ATTRIBUTES = {"batch_dims": "Gather", "axis": "Concat"}


def _c(value: Any) -> Any:
    return o8.constant(np.array(value, np.int64))


def _file(tmp_path: Path, key: str, text: str) -> Path:
    """x[:, : x.shape[0] + 1] joined with itself, its stop a Gather-8 and a Concat of shape
    values (``batch_dims="0"``, ``axis="0"``); ``key`` spelled ``text``."""
    right = tmp_path / "right.xml"
    if not right.exists():
        x = o8.parameter([-1, 6], np.float32, name="x")
        rows = o8.gather(o8.shape_of(x), _c([0]), _c(0), 0)
        stop = o8.concat([_c([4]), o8.add(rows, _c([1]))], 0)
        cut = o8.slice(x, _c([0, 0]), stop, _c([1, 1]))
        ov.save_model(ov.Model([o8.concat([cut, cut], 1)], [x], "m"), str(right))
    xml = right.read_text()
    assert xml.count(f'{key}="0"') == 1
    path = tmp_path / "m.xml"
    path.write_text(xml.replace(f'{key}="0"', f'{key}="{text}"'))
    path.with_suffix(".bin").write_bytes(right.with_suffix(".bin").read_bytes())
    return path


def _right(path: Path) -> ir.CheckReport:
    return ir.read_model(path.with_name("right.xml")).check()


def _openvino(path: Path) -> np.ndarray:
    ((_, out),) = openvino_oracle.run_ir(path, {"x": X})
    return np.asarray(out)


@pytest.mark.parametrize("text", ZEROS)
@pytest.mark.parametrize("key", ATTRIBUTES)
def test_a_spelling_of_0_reads_checks_and_runs_as_in_openvino(
    tmp_path: Path, key: str, text: str
) -> None:
    path = _file(tmp_path, key, text)
    want = _openvino(path)
    assert want.shape == (3, 8)  # x[:, :4] twice
    model = ir.read_model(path)
    report = model.check()
    assert report.ok, report
    # the stop bounded through the Gather and the Concat, as where spelled "0"
    assert str(report).replace(path.name, "") == str(_right(path)).replace("right.xml", "")
    assert [str(s) for s, _ in report.outputs.values()] == ["[..4,2..12]"]
    ((_, got),) = model.run({"x": X}).items()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("text", REFUSED)
@pytest.mark.parametrize("key", ATTRIBUTES)
def test_a_spelling_openvino_refuses_is_a_check_problem_and_a_run_refusal(
    tmp_path: Path, key: str, text: str
) -> None:
    path = _file(tmp_path, key, text)
    with pytest.raises(openvino_oracle.OpenVINOError):
        openvino_oracle.run_ir(path, {"x": X})
    _refused(path, key, text)


@pytest.mark.parametrize("text", CUT_SHORT)
@pytest.mark.parametrize("key", ATTRIBUTES)
def test_a_spelling_openvino_cuts_short_is_refused(tmp_path: Path, key: str, text: str) -> None:
    # IR-3 (docs/semantics.md): OpenVINO reads the leading 0 and ignores the rest
    path = _file(tmp_path, key, text)
    assert _openvino(path).shape == (3, 8)
    _refused(path, key, text, "OpenVINO would read 0 and ignore")


def _refused(path: Path, key: str, text: str, hint: str = "") -> None:
    value = text.replace("&#9;", "\t").replace("&#10;", "\n")
    model = ir.read_model(path)
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_type) == ("attribute", ATTRIBUTES[key])
    assert problem.message.startswith(f"{key}={value!r} is not an integer")
    assert hint in problem.message
    with pytest.raises(ir.IRError) as info:
        model.run({"x": X})
    assert str(info.value).startswith(f"IR: layer {problem.layer_id} ")
    assert f"({ATTRIBUTES[key]}): cannot run: {problem.message}" in str(info.value)


def test_a_gather_1_reads_no_batch_dims(tmp_path: Path) -> None:
    # Gather-1 has no batch_dims: OpenVINO ignores one in its <data>, whatever its text
    x = o8.parameter([-1, 6], np.float32, name="x")
    rows = o8.gather(o8.shape_of(x), _c([0]), _c(0), 0)
    cut = o8.slice(x, _c([0]), rows, _c([1]), _c([1]))
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model([cut], [x], "m"), str(path))
    xml = path.read_text()
    for batch_dims in ("x", "1"):
        one = xml.replace('batch_dims="0" />', f'batch_dims="{batch_dims}" />')
        path.write_text(
            one.replace('type="Gather" version="opset8"', 'type="Gather" version="opset1"')
        )
        want = _openvino(path)
        assert ir.read_model(path).check().ok
        ((_, got),) = ir.read_model(path).run({"x": X}).items()
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("text", ["0", "00", "-0", "0.0", " 0e0"])
def test_a_data_gather_of_batch_dims_0_passes_new_input_shapes_on(
    tmp_path: Path, text: str
) -> None:
    # check(input_shapes) infers past a data Gather of batch_dims 0 (its input's dims moved)
    x = o8.parameter([-1, 6], np.float32, name="x")
    halves = o8.split(o8.gather(x, _c([0, 1, 2, 3]), _c(1), 0), _c(1), 2)
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model([halves.output(0), halves.output(1)], [x], "m"), str(path))
    path.write_text(path.read_text().replace('batch_dims="0"', f'batch_dims="{text}"'))
    model = ov.Core().read_model(str(path))
    model.reshape({"x": [5, 6]})
    assert [str(o.partial_shape) for o in model.outputs] == ["[5,2]", "[5,2]"]
    report = ir.read_model(path).check({"x": [5, 6]})
    assert report.ok
    assert [str(s) for s, _ in report.outputs.values()] == ["[5,2]", "[5,2]"]


# The file's own integers (the IR version, ids, ports, edges, a Const's extent): OpenVINO reads
# them as std::stoll to the end of the text (white space and a sign before it, nothing after).
# id -> (the text, its spelling, whether OpenVINO and datamove read the file)
STRUCTURE = {
    "version='011'": ('version="11"', 'version="011"', True),
    "version=' 11'": ('version="11"', 'version=" 11"', True),
    "version='+11'": ('version="11"', 'version="+11"', True),
    "version='\\t11'": ('version="11"', 'version="&#9;11"', True),
    "version='11 '": ('version="11"', 'version="11 "', False),
    "version='11x'": ('version="11"', 'version="11x"', False),
    "version='11.0'": ('version="11"', 'version="11.0"', False),
    "version='-11'": ('version="11"', 'version="-11"', False),
    "to-port=' +0'": ('to-port="0"', 'to-port=" +0"', True),
    "to-port='-0'": ('to-port="0"', 'to-port="-0"', True),
    "to-port='0 '": ('to-port="0"', 'to-port="0 "', False),
    "from-layer='0 '": ('from-layer="0"', 'from-layer="0 "', False),
    "port id='0 '": ('<port id="0" precision="FP32"', '<port id="0 " precision="FP32"', False),
    "offset='0 '": ('offset="0"', 'offset="0 "', False),
    "offset=' 00'": ('offset="0"', 'offset=" 00"', True),
    # a port's <dim>: OpenVINO reads a number, and refuses the notation of a shape attribute
    # (fixed: datamove read "?" and "..6", and check said OK)
    "dim='?'": ("<dim>-1</dim>", "<dim>?</dim>", False),
    "dim='..6'": ("<dim>-1</dim>", "<dim>..6</dim>", False),
    "dim=' ?'": ("<dim>-1</dim>", "<dim> ?</dim>", False),
    "dim=' -1'": ("<dim>-1</dim>", "<dim> -1</dim>", True),
}


@pytest.mark.parametrize("name", list(STRUCTURE))
def test_the_file_s_integers_are_read_as_in_openvino(tmp_path: Path, name: str) -> None:
    old, new, reads = STRUCTURE[name]
    path = _file(tmp_path, "axis", "0")
    xml = path.read_text()
    assert old in xml
    path.write_text(xml.replace(old, new, 1))
    if reads:
        want = _openvino(path)
        ((_, got),) = ir.read_model(path).run({"x": X}).items()
        np.testing.assert_array_equal(got, want)
    else:
        with pytest.raises(openvino_oracle.OpenVINOError):
            openvino_oracle.run_ir(path, {"x": X})
        with pytest.raises(
            ir.IRError,
            match=r"is not an integer|supported IR version|needs integer|OpenVINO reads in a <dim>",
        ):
            ir.read_model(path)


def _dim_refusal(path: Path) -> str:
    """What datamove says of the file: its read error, or its check problems."""
    try:
        return " ".join(str(p) for p in ir.read_model(path).check().problems)
    except ir.IRError as exc:
        return str(exc)


@pytest.mark.parametrize(
    ("old", "where"),
    [("<dim>-1</dim>", "a port's <dim>"), ('shape="?,6"', "a Parameter's shape")],
)
def test_every_dim_the_hint_names_is_one_openvino_reads_there(
    tmp_path: Path, old: str, where: str
) -> None:
    """The hint of a dim datamove cannot read names only dims OpenVINO reads where it stands:
    a <dim> takes neither ``?`` nor ``..6`` (fixed: its hint named both)."""
    path = _file(tmp_path, "axis", "0")
    xml = path.read_text()
    assert old in xml, where
    dynamic = "-1" if old.startswith("<dim>") else "?"
    path.write_text(xml.replace(old, old.replace(dynamic, "six"), 1))
    found = re.search(r"'six' is not a dimension \(hint: write (.*?)\)", _dim_refusal(path))
    assert found is not None, _dim_refusal(path)
    for dim in re.split(r", | or ", found[1]):
        path.write_text(xml.replace(old, old.replace(dynamic, dim), 1))
        ov.Core().read_model(str(path))
        assert "is not a dimension" not in _dim_refusal(path), dim
