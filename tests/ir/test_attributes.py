"""Operators' integer attributes (``num_splits``, ``axis``, the masks), read as OpenVINO reads them.

OpenVINO 2026.4 reads such an attribute as C++'s ``stream >> int64`` once it has checked that the
text starts with a digit or ``-`` (ASCII white space skipped): the leading integer counts, and
whatever follows is ignored. datamove takes what that reads unambiguously (``"2.0"`` and ``"2e0"``
are 2 to both), refuses with OpenVINO (``"+2"``, empty items in a mask list), and refuses where
OpenVINO silently cuts the text short (``"2abc"``, ``"2.5"``, ``"2e5"`` read as 2): those are
divergence IR-3 of docs/semantics.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_run_refuses import X, _one_op, _write

import openvino_oracle
from datamove import ir


def _split(text: str, parts: int = 2) -> tuple[str, bytes]:
    return _one_op("Split", [("i64", [], 1)], f'num_splits="{text}"', [[2, 6 // parts]] * parts)


def _mask(text: str, out: list[int]) -> tuple[str, bytes]:
    consts = [("i64", [2], [0, 1]), ("i64", [2], [2, 5])]
    return _one_op("StridedSlice", consts, f'begin_mask="{text}" end_mask="0,0"', [out])


def _concat(text: str) -> tuple[str, bytes]:
    return _one_op("Concat", [], f'axis="{text}"', [[2, 6]])


# (model, the output shapes both run to)
AGREE_RUN = [
    pytest.param(_split("2"), [(2, 3)] * 2, id="num_splits='2'"),
    pytest.param(_split("02"), [(2, 3)] * 2, id="num_splits='02'"),
    pytest.param(_split(" 2 "), [(2, 3)] * 2, id="num_splits=' 2 '"),
    pytest.param(_split("&#9;2&#10;"), [(2, 3)] * 2, id="num_splits='\\t2\\n'"),
    pytest.param(_split("2.0"), [(2, 3)] * 2, id="num_splits='2.0'"),
    pytest.param(_split("2."), [(2, 3)] * 2, id="num_splits='2.'"),
    pytest.param(_split("2e0"), [(2, 3)] * 2, id="num_splits='2e0'"),
    pytest.param(_split("2.0E0"), [(2, 3)] * 2, id="num_splits='2.0E0'"),
    pytest.param(_split("3.0", 3), [(2, 2)] * 3, id="num_splits='3.0'"),
    pytest.param(_split("2." + "0" * 40), [(2, 3)] * 2, id="num_splits='2.000...'"),
    pytest.param(_split("0" * 300 + "2"), [(2, 3)] * 2, id="num_splits='000...2' (301 chars)"),
    pytest.param(_split("2." + "0" * 300), [(2, 3)] * 2, id="num_splits='2.000...' (302 chars)"),
    pytest.param(_mask("0," + "0" * 300 + "1", [2, 5]), [(2, 5)], id="begin_mask='0,000...1'"),
    pytest.param(_concat("1.0"), [(2, 6)], id="axis='1.0'"),
    pytest.param(_concat("-1.0"), [(2, 6)], id="axis='-1.0'"),
    pytest.param(_mask("1.0,0", [2, 4]), [(2, 4)], id="begin_mask='1.0,0'"),
    pytest.param(_mask("0,1e0", [2, 5]), [(2, 5)], id="begin_mask='0,1e0'"),
    pytest.param(_mask("0 , 1", [2, 5]), [(2, 5)], id="begin_mask='0 , 1'"),
    pytest.param(_mask("0,1,", [2, 5]), [(2, 5)], id="begin_mask='0,1,' (trailing comma)"),
]

# (model, the message datamove's IRError matches); OpenVINO refuses each as well
AGREE_REFUSE = [
    pytest.param(_split("+2"), r"num_splits='\+2' is not an integer .*'\+' sign", id="'+2'"),
    pytest.param(_split(" +2"), r"num_splits=' \+2' is not an integer", id="' +2'"),
    pytest.param(_split(""), "num_splits='' is not an integer", id="''"),
    pytest.param(_split("abc"), "num_splits='abc' is not an integer", id="'abc'"),
    pytest.param(_split("\u00a02"), r"num_splits='\\xa02' is not an integer", id="nbsp '2'"),
    pytest.param(_split("--2"), "num_splits='--2' is not an integer", id="'--2'"),
    pytest.param(_split(".5"), "num_splits='.5' is not an integer", id="'.5'"),
    pytest.param(_split("2" * 20), "does not fit in int64", id="'222...' (20 digits)"),
    pytest.param(_split("2" * 300), "does not fit in int64", id="'222...' (300 digits)"),
    pytest.param(_concat("+1"), r"axis='\+1' is not an integer", id="axis='+1'"),
    pytest.param(_mask("+1,0", [2, 4]), r"begin_mask='\+1' is not an integer", id="mask '+1,0'"),
    pytest.param(_mask("1,,0", [2, 4]), "begin_mask='1,,0' has an empty item", id="mask '1,,0'"),
    pytest.param(_mask(",0", [2, 4]), "begin_mask=',0' has an empty item", id="mask ',0'"),
    pytest.param(_mask(",", [2, 4]), "begin_mask=',' has an empty item", id="mask ','"),
    pytest.param(_mask("0,1,,", [2, 5]), "has an empty item", id="mask '0,1,,'"),
    pytest.param(_mask(" ,0", [2, 4]), "begin_mask=' ' is not an integer", id="mask ' ,0'"),
    pytest.param(_mask("0, ", [2, 4]), "begin_mask=' ' is not an integer", id="mask '0, '"),
]

# (model, OpenVINO's output shapes, datamove's message): OpenVINO reads the leading integer
DIVERGE = [
    pytest.param(_split("2abc"), [(2, 3)] * 2, "read 2 and ignore 'abc'", id="'2abc'"),
    pytest.param(_split("2.5"), [(2, 3)] * 2, r"read 2 and ignore '\.5'", id="'2.5'"),
    pytest.param(_split("2e5"), [(2, 3)] * 2, "read 2 and ignore 'e5'", id="'2e5'"),
    pytest.param(_split("2 3"), [(2, 3)] * 2, "read 2 and ignore ' 3'", id="'2 3'"),
    pytest.param(_split("2,"), [(2, 3)] * 2, "read 2 and ignore ','", id="'2,'"),
    pytest.param(_concat("1abc"), [(2, 6)], "read 1 and ignore 'abc'", id="axis='1abc'"),
    pytest.param(_concat("0x1"), [(2, 6)], "read 0 and ignore 'x1'", id="axis='0x1'"),
    pytest.param(_mask("1 3,0", [2, 4]), [(2, 4)], "read 1 and ignore ' 3'", id="mask '1 3,0'"),
    pytest.param(_mask("0,1.5", [2, 5]), [(2, 5)], r"read 1 and ignore '\.5'", id="mask '0,1.5'"),
]


def _datamove(tmp_path: Path, model: tuple[str, bytes]) -> list[tuple[int, ...]]:
    outputs = ir.read_model(_write(tmp_path, *model)).run({"x": X})
    return [np.shape(v) for v in outputs.values()]


def _openvino(tmp_path: Path, model: tuple[str, bytes]) -> list[tuple[int, ...]]:
    outputs = openvino_oracle.run_ir(_write(tmp_path, *model, name="ov"), {"x": X})
    return [array.shape for _, array in outputs]


@pytest.mark.parametrize(("model", "shapes"), AGREE_RUN)
def test_attributes_openvino_reads_unambiguously_run(tmp_path: Path, model, shapes) -> None:
    assert _datamove(tmp_path, model) == shapes


@pytest.mark.parametrize(("model", "match"), AGREE_REFUSE)
def test_attributes_openvino_refuses_are_refused(tmp_path: Path, model, match) -> None:
    with pytest.raises(ir.IRError, match=match):
        _datamove(tmp_path, model)


@pytest.mark.parametrize(("model", "shapes", "match"), DIVERGE)
def test_attributes_openvino_cuts_short_are_refused(tmp_path: Path, model, shapes, match) -> None:
    with pytest.raises(ir.IRError, match="is not an integer .*OpenVINO would " + match):
        _datamove(tmp_path, model)


@pytest.mark.parametrize(("model", "shapes"), AGREE_RUN)
def test_openvino_runs_the_same(tmp_path: Path, model, shapes) -> None:
    assert _openvino(tmp_path, model) == shapes


@pytest.mark.parametrize(("model", "match"), AGREE_REFUSE)
def test_openvino_refuses_the_same(tmp_path: Path, model, match) -> None:
    with pytest.raises(openvino_oracle.OpenVINOError):
        _openvino(tmp_path, model)


@pytest.mark.parametrize(("model", "shapes", "match"), DIVERGE)
def test_openvino_reads_the_leading_integer(tmp_path: Path, model, shapes, match) -> None:
    assert _openvino(tmp_path, model) == shapes  # divergence IR-3: datamove refuses these


def test_a_const_begin_past_max_length_names_the_begin_input(tmp_path: Path) -> None:
    n = 2**20 + 1  # more than MAX_LENGTH; the Const is not loaded to infer the shapes
    consts = [("i64", [n], np.zeros(n, np.int64)), ("i64", [n], np.zeros(n, np.int64))]
    path = _write(tmp_path, *_one_op("StridedSlice", consts, "", [[2, 6]]))
    model = ir.read_model(path)
    message = "StridedSlice: begin='<1048577 values>' has 1048577 values, more than 1048576"
    assert message in model.check().problems[0].message
    with pytest.raises(ir.IRError, match=message):
        model.run({"x": X})


@pytest.mark.parametrize("text", ["0", "-1", "-9223372036854775808"])
def test_num_splits_below_one_is_the_operators_rule_not_a_port_count(
    tmp_path: Path, text: str
) -> None:
    # OpenVINO: "Attribute 'num_splits' must be greater than zero. Got: 0" (a negative one is
    # taken as unsigned, and no dim divides by it); the declared ports are not the problem
    model = ir.read_model(_write(tmp_path, *_split(text)))
    problems = [(p.kind, p.message) for p in model.check().problems]
    assert problems == [("operator", f"Split: num_splits={text} must be greater than zero")]
    with pytest.raises(ir.IRError, match=f"num_splits={text} must be greater than zero"):
        model.run({"x": X})
    with pytest.raises(openvino_oracle.OpenVINOError):
        _openvino(tmp_path, _split(text))


# -- attributes left out (IR-32): OpenVINO reads a default where the spec requires one ---------


def test_a_concat_without_axis_is_refused_where_openvino_reads_axis_0(tmp_path: Path) -> None:
    # Concat-1's spec: axis "Required: yes". OpenVINO 2026.4 reads it as 0 and runs; datamove
    # follows the spec (divergence IR-32).
    c = np.arange(100, 112, dtype=np.float32).reshape(2, 6)
    model = _one_op("Concat", [("f32", [2, 6], c)], "", [[4, 6]])
    ((_, got),) = openvino_oracle.run_ir(_write(tmp_path, *model, name="ov"), {"x": X})
    assert np.array_equal(got, np.concatenate([X, c]))
    read = ir.read_model(_write(tmp_path, *model))
    assert [(p.kind, p.message) for p in read.check().problems] == [
        ("attribute", "axis=None is missing from <data>")
    ]
    with pytest.raises(ir.IRError, match=r"\(Concat\): cannot run: axis=None is missing"):
        read.run({"x": X})


def test_a_split_without_num_splits_is_refused_by_both(tmp_path: Path) -> None:
    # Split-1's spec: num_splits "Required: yes". OpenVINO reads it as 0, which it refuses.
    model = _one_op("Split", [("i64", [], 1)], "", [[2, 3]] * 2)
    with pytest.raises(openvino_oracle.OpenVINOError, match=r"must be greater than zero\. Got: 0"):
        _openvino(tmp_path, model)
    with pytest.raises(ir.IRError, match=r"\(Split\): cannot run: num_splits=None is missing"):
        _datamove(tmp_path, model)


@pytest.mark.parametrize("attrs", ["", 'begin_mask="0,0"'])
def test_a_strided_slice_without_masks_runs_as_with_masks_of_0_in_both(
    tmp_path: Path, attrs: str
) -> None:
    # StridedSlice-1's spec: begin_mask and end_mask "Required: yes". OpenVINO reads a mask left
    # out as all 0 (as the optional masks), and so does datamove (IR-32: it agrees with the
    # runtime, not the spec, here). An end_mask="0,0" beside no begin_mask OpenVINO refuses
    # ("All masks of StridedSlice must have the same size"): masks of unequal lengths, which
    # datamove's operator pads with 0 (the StridedSlice table's row 1 in docs/semantics.md), and
    # its check refuses in a file (below).
    model = _one_op("StridedSlice", [("i64", [2], [0, 1]), ("i64", [2], [2, 5])], attrs, [[2, 4]])
    path = _write(tmp_path, *model)
    ((_, want),) = openvino_oracle.run_ir(_write(tmp_path, *model, name="ov"), {"x": X})
    (got,) = ir.read_model(path).run({"x": X}).values()
    assert np.array_equal(got, want)
    assert np.array_equal(got, X[0:2, 1:5])


@pytest.mark.parametrize(
    ("attrs", "refused"),
    [
        ('begin_mask="0" end_mask="1,0"', "end_mask='1,0' has 2 item(s), but begin_mask has 1"),
        ('end_mask="0,0"', "end_mask='0,0' has 2 item(s), but begin_mask has 0"),
        ('begin_mask="0,0" new_axis_mask="0"', "new_axis_mask='0' has 1 item(s), but begin"),
        ('begin_mask="0" end_mask="0" ellipsis_mask="0,0"', "ellipsis_mask='0,0' has 2 item("),
        ('begin_mask="0,0"', None),
        ('begin_mask="0,0" end_mask="1,0" shrink_axis_mask="0,0" ellipsis_mask="0,0"', None),
    ],
)
def test_masks_of_unequal_lengths_are_refused_in_a_file(
    tmp_path: Path, attrs: str, refused: str | None
) -> None:
    # Each mask given has begin_mask's length (an empty one is left out), or OpenVINO refuses
    # the file (fixed: check said OK, and run padded them).
    model = _one_op("StridedSlice", [("i64", [2], [0, 1]), ("i64", [2], [2, 5])], attrs, [[2, 4]])
    path = _write(tmp_path, *model)
    if refused is None:
        openvino_oracle.run_ir(path, {"x": X})
        assert ir.read_model(path).check().ok
        return
    with pytest.raises(openvino_oracle.OpenVINOError, match="must have the same size"):
        openvino_oracle.run_ir(path, {"x": X})
    (problem,) = ir.read_model(path).check().problems
    assert problem.kind == "attribute"
    assert refused in problem.message
    with pytest.raises(ir.IRError, match="must have the same size"):
        ir.read_model(path).run({"x": X})
