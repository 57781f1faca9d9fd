"""DxDispatch JSON round trips and the ``datamove dml check`` command."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove
import datamove.directml as dml
from datamove.cli import main
from datamove.directml import JoinDesc, SplitDesc, TensorDesc, Violation
from datamove.directml._json import json_violations
from strategies import examples

# DxDispatch/models/dml_split.json and dml_join.json (microsoft/DirectML), their dispatchables.
DXDISPATCH_SPLIT = {
    "type": "DML_OPERATOR_SPLIT",
    "desc": {
        "Axis": 0,
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [6]},
        "OutputCount": 3,
        "OutputTensors": [
            {"DataType": "FLOAT32", "Sizes": [2]},
            {"DataType": "FLOAT32", "Sizes": [2]},
            {"DataType": "FLOAT32", "Sizes": [2]},
        ],
    },
}
DXDISPATCH_JOIN = {
    "type": "DML_OPERATOR_JOIN",
    "desc": {
        "Axis": 0,
        "InputCount": 3,
        "InputTensors": [
            {"DataType": "FLOAT32", "Sizes": [3]},
            {"DataType": "FLOAT32", "Sizes": [2]},
            {"DataType": "FLOAT32", "Sizes": [5]},
        ],
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [10]},
    },
}


def test_reads_dxdispatch_models():
    split = dml.desc_from_json(DXDISPATCH_SPLIT)
    assert split == SplitDesc(TensorDesc("FLOAT32", [6]), [TensorDesc("FLOAT32", [2])] * 3, 0)
    join = dml.desc_from_json(DXDISPATCH_JOIN)
    assert [t.sizes for t in join.inputs] == [(3,), (2,), (5,)]
    assert join.output.total_tensor_size_in_bytes == 40


def test_full_tensor_desc_form_of_the_dxdispatch_readme():
    full = {
        "Type": "DML_TENSOR_TYPE_BUFFER",
        "Desc": {
            "DataType": "DML_TENSOR_DATA_TYPE_FLOAT32",
            "Flags": "DML_TENSOR_FLAG_NONE",
            "DimensionCount": 4,
            "Sizes": [1, 1, 2, 3],
            "Strides": [6, 6, 3, 1],
            "TotalTensorSizeInBytes": 24,
            "GuaranteedBaseOffsetAlignment": 0,
        },
    }
    tensor = dml.tensor_from_json(full)
    assert tensor == TensorDesc("FLOAT32", [1, 1, 2, 3], [6, 6, 3, 1])
    owned = dml.tensor_from_json(
        {
            "DataType": "FLOAT16",
            "Flags": "DML_TENSOR_FLAG_OWNED_BY_DML",
            "Sizes": [5, 55],
            "TotalTensorSizeInBytes": 0,
        }
    )
    assert owned.flags == dml.TensorFlags.OWNED_BY_DML
    # a Type beside the fields, with no Desc: read as the same tensor
    typed = dml.tensor_from_json({"Type": "BUFFER", "DataType": "FLOAT32", "Sizes": [2, 3]})
    assert typed == TensorDesc("FLOAT32", [2, 3])
    with pytest.raises(datamove.ValidationError, match=r"tensor\.Type='XX' is not a TensorType"):
        dml.tensor_from_json({"Type": "XX", "DataType": "FLOAT32", "Sizes": [2, 3]})
    assert owned.total_tensor_size_in_bytes == 552  # 0 means "computed", as in DxDispatch


def test_writes_the_dxdispatch_layout():
    data = dml.desc_to_json(dml.desc_from_json(DXDISPATCH_JOIN))
    assert data["type"] == "DML_OPERATOR_JOIN"
    assert data["desc"]["InputCount"] == 3
    assert data["desc"]["OutputTensor"] == {
        "DataType": "DML_TENSOR_DATA_TYPE_FLOAT32",
        "Flags": "DML_TENSOR_FLAG_NONE",
        "DimensionCount": 1,
        "Sizes": [10],
        "TotalTensorSizeInBytes": 40,
        "GuaranteedBaseOffsetAlignment": 0,
    }
    assert dml.loads(dml.dumps(dml.desc_from_json(DXDISPATCH_JOIN))) == dml.desc_from_json(
        DXDISPATCH_JOIN
    )


@st.composite
def any_tensor(draw):
    rank = draw(st.integers(0, 3))
    sizes = draw(st.lists(st.integers(0, 5), min_size=rank, max_size=rank))
    strides = draw(st.none() | st.lists(st.integers(0, 9), min_size=rank, max_size=rank + 1))
    total = draw(st.none() | st.integers(1, 2**40))
    return TensorDesc(
        draw(st.sampled_from(list(dml.TensorDataType))),
        sizes,
        strides,
        flags=draw(st.integers(0, 3)),
        total_tensor_size_in_bytes=total,
        guaranteed_base_offset_alignment=draw(st.sampled_from([0, 1, 3, 16])),
        tensor_type=draw(st.sampled_from(list(dml.TensorType))),
    )


@settings(max_examples=examples(150), deadline=None)
@given(any_tensor(), st.lists(any_tensor(), max_size=3), st.integers(-2, 4), st.booleans())
def test_any_desc_round_trips_through_json_even_an_invalid_one(whole, parts, axis, is_split):
    if whole.total_tensor_size_in_bytes == 0:  # DxDispatch reads 0 as "compute it"
        whole = whole.replace(total_tensor_size_in_bytes=4)
    parts = [
        p if p.total_tensor_size_in_bytes else p.replace(total_tensor_size_in_bytes=4)
        for p in parts
    ]
    desc = SplitDesc(whole, parts, axis) if is_split else JoinDesc(parts, whole, axis)
    assert dml.loads(dml.dumps(desc)) == desc
    assert dml.desc_from_json(json.loads(json.dumps(dml.desc_to_json(desc)))) == desc


@pytest.mark.parametrize(
    ("data", "error", "match"),
    [
        pytest.param(
            {"desc": {}}, datamove.ValidationError, r"JSON: type=None is missing", id="no type"
        ),
        pytest.param({"Axis": 0}, datamove.ValidationError, "neither", id="bare unknown"),
        pytest.param(
            {
                "Axis": 0,
                "InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
                "OutputTensors": [{"Sizes": [2]}],
            },
            datamove.ValidationError,
            r"OutputTensors\[0\]\.DataType",
            id="no data type",
        ),
        pytest.param(
            {"Axis": 0, "InputTensor": {"DataType": "F32", "Sizes": [2]}, "OutputTensors": []},
            datamove.ValidationError,
            r"desc\.InputTensor\.DataType=",
            id="bad data type",
        ),
        pytest.param(
            {"Axis": 0, "InputTensor": {"DataType": "FLOAT32", "Sizes": [-2]}, "OutputTensors": []},
            datamove.ValidationError,
            r"desc\.InputTensor\.Sizes\[0\]=",
            id="negative size",
        ),
        pytest.param(
            {
                "Axis": 0,
                "InputTensor": {"DataType": "FLOAT32", "Sizes": [2], "DimensionCount": 3},
                "OutputTensors": [],
            },
            dml.DirectMLValidationError,
            r"\[T4\] desc\.InputTensor\.DimensionCount=3",
            id="DimensionCount",
        ),
        pytest.param(
            {**DXDISPATCH_SPLIT["desc"], "OutputCount": 2},
            dml.DirectMLValidationError,
            r"\[S1\] desc\.OutputCount=2",
            id="OutputCount",
        ),
        pytest.param(
            {**DXDISPATCH_JOIN["desc"], "InputCount": 4},
            dml.DirectMLValidationError,
            r"\[J1\]",
            id="InputCount",
        ),
        pytest.param(
            {**DXDISPATCH_JOIN["desc"], "Axis": "0"}, datamove.DTypeError, "Axis", id="text axis"
        ),
    ],
)
def test_malformed_json(data, error, match):
    with pytest.raises(error, match=match):
        dml.desc_from_json(data)


def test_comments_and_trailing_commas_are_read():
    text = (
        '{"Axis": 0, // the axis\n "InputTensor": {"DataType": "UINT8", "Sizes": [2],},\n'
        '/* two */ "OutputTensors": [{"DataType": "UINT8", "Sizes": [2]},], "x": "//,]", "y": ""}'
    )
    assert dml.loads(text).input.sizes == (2,)
    with pytest.raises(datamove.ValidationError, match="not JSON"):
        dml.loads("{")


# The command line ------------------------------------------------------------------------------


def write(tmp_path, data, name="model.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_cli_valid_model(tmp_path, capsys):
    model = {"resources": {}, "dispatchables": {"split": DXDISPATCH_SPLIT, "join": DXDISPATCH_JOIN}}
    path = write(tmp_path, model)
    assert main(["dml", "check", path, "--feature-level", "4_1"]) == 0
    out = capsys.readouterr().out
    assert f"{path}: split (DML_OPERATOR_SPLIT) at feature level 4_1: valid" in out
    assert f"{path}: join (DML_OPERATOR_JOIN) at feature level 4_1: valid" in out


def test_cli_reports_every_violation_with_rule_and_path(tmp_path, capsys):
    # rank 1 join is legal from 4_1 only (the table), rank 1 split from 3_0
    path = write(tmp_path, DXDISPATCH_JOIN)
    assert main(["dml", "check", path, "--feature-level", "3_0"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: desc (DML_OPERATOR_JOIN) at feature level 3_0: 4 violations"
    assert (
        out[1] == "  [J6] len(desc.OutputTensor.Sizes)=1 is not supported by DML_JOIN at feature "
        "level 3_0 (ranks 4 to 5)"
    )
    # each path as the file names it (JSON names from the top level), not as Python does: a
    # rank is the length of Sizes where the file has no DimensionCount (it had been named so)
    assert [line.split()[1] for line in out[1:]] == [
        "len(desc.OutputTensor.Sizes)=1",
        "len(desc.InputTensors[0].Sizes)=1",
        "len(desc.InputTensors[1].Sizes)=1",
        "len(desc.InputTensors[2].Sizes)=1",
    ]


def test_a_rank_is_named_as_the_file_gives_it(tmp_path, capsys):
    join = json.loads(json.dumps(DXDISPATCH_JOIN))
    join["desc"]["OutputTensor"]["DimensionCount"] = 1
    join["desc"]["InputTensors"][1] = {
        "Type": "DML_TENSOR_TYPE_BUFFER",
        "Desc": {"DataType": "FLOAT32", "Sizes": [2]},
    }
    assert main(["dml", "check", write(tmp_path, join), "--feature-level", "3_0"]) == 1
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()[1:]] == [
        "desc.OutputTensor.DimensionCount=1",
        "len(desc.InputTensors[0].Sizes)=1",
        "len(desc.InputTensors[1].Desc.Sizes)=1",
        "len(desc.InputTensors[2].Sizes)=1",
    ]
    join = {**DXDISPATCH_JOIN, "desc": {**DXDISPATCH_JOIN["desc"], "Axis": 3}}
    found = [Violation("J3", "axis", 3, "must be below output.rank=1")]
    (v,) = json_violations(found, join, "")
    assert str(v) == "[J3] desc.Axis=3 must be below len(OutputTensor.Sizes)=1"


@pytest.mark.parametrize(
    ("axis", "kind"), [(1.0, "a float"), ("0", "a string"), (True, "a bool"), (None, "None")]
)
def test_an_axis_of_another_kind_says_what_it_is(axis, kind):
    with pytest.raises(datamove.DTypeError) as e:
        dml.desc_from_json({**DXDISPATCH_SPLIT["desc"], "Axis": axis})
    assert str(e.value) == f"DirectML JSON: desc.Axis={axis!r} must be an integer, not {kind}"


def test_cli_json_report(tmp_path, capsys):
    bad = {**DXDISPATCH_SPLIT["desc"], "Axis": 1}
    model = {
        "dispatchables": {
            "s": {"type": "DML_OPERATOR_SPLIT", "desc": bad},
            "add": {"type": "ADD", "desc": {}},
        }
    }
    path = write(tmp_path, model)
    assert main(["dml", "check", path, "--feature-level", "0x4100", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["feature_level"] == "DML_FEATURE_LEVEL_4_1"
    assert report["valid"] is False
    assert report["skipped"] == [{"name": "add", "type": "ADD"}]
    (operator,) = report["operators"]
    assert operator["violations"] == [
        {
            "rule": "S3",
            "path": "dispatchables.s.desc.Axis",
            "value": 1,
            "message": "must be in [0, 0] for rank 1",
        }
    ]


def test_cli_text_report_lists_what_it_skipped(tmp_path, capsys):
    model = {
        "dispatchables": {
            "s": {"type": "DML_OPERATOR_SPLIT", "desc": DXDISPATCH_SPLIT["desc"]},
            "add": {"type": "ADD", "desc": {}},
        }
    }
    path = write(tmp_path, model)
    assert main(["dml", "check", path, "--feature-level", "0x4100"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(f"{path}: add (ADD) skipped: not a split or a join\n"), out


def test_cli_reports_a_count_that_disagrees_with_its_array(tmp_path, capsys):
    desc = {**DXDISPATCH_SPLIT["desc"], "OutputCount": 5}
    path = write(tmp_path, {"dispatchables": {"s": {"type": "DML_OPERATOR_SPLIT", "desc": desc}}})
    assert main(["dml", "check", path, "--json"]) == 1
    (operator,) = json.loads(capsys.readouterr().out)["operators"]
    assert operator["type"] == "DML_OPERATOR_SPLIT"  # told by the dispatchable's type
    n = len(DXDISPATCH_SPLIT["desc"]["OutputTensors"])
    assert operator["violations"] == [
        {
            "rule": "S1",
            "path": "dispatchables.s.desc.OutputCount",
            "value": 5,
            "message": f"must equal len(OutputTensors)={n}",
        }
    ]


def test_cli_switches(tmp_path, capsys):
    rank6 = dml.dumps(
        JoinDesc(
            [TensorDesc("FLOAT32", [1] * 5 + [2])] * 2, TensorDesc("FLOAT32", [1] * 5 + [4]), 5
        )
    )
    path = write(tmp_path, rank6)
    assert main(["dml", "check", path, "--feature-level", "3_1"]) == 1
    assert (
        main(["dml", "check", path, "--feature-level", "3_1", "--join-rank-at-3-1", "history"]) == 0
    )
    padded = dml.dumps(
        SplitDesc(
            TensorDesc("UINT8", [3], total_tensor_size_in_bytes=5), [TensorDesc("UINT8", [3])], 0
        )
    )
    path = write(tmp_path, padded, "padded.json")
    assert main(["dml", "check", path]) == 1
    assert main(["dml", "check", path, "--no-dword-total-size"]) == 0
    capsys.readouterr()


def test_cli_bad_input(tmp_path, capsys):
    missing = str(tmp_path / "missing.json")
    assert main(["dml", "check", missing]) == 1
    assert capsys.readouterr().err == (
        f"datamove: error: dml check: file={missing!r} does not exist\n"
    )
    binary = tmp_path / "x.npy"  # once a UnicodeDecodeError traceback
    binary.write_bytes(b"\x93NUMPY\x01\x00")
    assert main(["dml", "check", str(binary)]) == 1
    assert f"file={str(binary)!r} is not a UTF-8 text file" in capsys.readouterr().err
    assert main(["dml", "check", write(tmp_path, "{nope")]) == 1
    assert "[JSON] file=" in capsys.readouterr().out
    assert main(["dml", "check", write(tmp_path, {"Axis": 0})]) == 1
    assert "[JSON]" in capsys.readouterr().out
    assert main(["dml", "check", write(tmp_path, {"dispatchables": {}})]) == 1
    assert "no DML_OPERATOR_SPLIT" in capsys.readouterr().out
    assert main(["dml", "check", "x.json", "--feature-level", "4_2"]) == 2
    assert "not a DirectML feature level" in capsys.readouterr().err


@pytest.mark.parametrize("bare", [False, True], ids=["dispatchable", "bare desc"])
@pytest.mark.parametrize(
    ("base", "count", "rule"),
    [(DXDISPATCH_SPLIT, "OutputCount", "S1"), (DXDISPATCH_JOIN, "InputCount", "J1")],
    ids=["split", "join"],
)
def test_cli_names_the_type_of_a_desc_whose_count_is_wrong(
    tmp_path, capsys, base, count, rule, bare
):
    desc = {**base["desc"], count: 99}
    path = write(tmp_path, desc if bare else {**base, "desc": desc})
    assert main(["dml", "check", path]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: desc ({base['type']}) at feature level 6_4: 1 violation"
    assert out[1].startswith(f"  [{rule}] {'' if bare else 'desc.'}{count}=99 must equal")


def test_cli_names_each_field_as_the_file_does(tmp_path, capsys):
    # The paths mixed the file's names with Python's: "desc.desc.InputTensor.sizes[0]",
    # "outputs[1].data_type", "must equal input.data_type". A wrapped tensor's fields are in Desc.
    wrapped = {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"DataType": "FLOAT32", "Sizes": [0, 2]}}
    bad_split = {
        "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 6]},
        "OutputTensors": [{"DataType": "FLOAT32", "Sizes": [1, 2]}, {"DataType": "FLOAT16",
                          "Sizes": [1, 4]}],
        "Axis": 1,
    }  # fmt: skip
    bad_join = {
        "InputTensors": [wrapped],
        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [0, 2]},
        "Axis": 0,
    }
    negative = {"InputTensor": {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"DataType": "FLOAT32",
                "Sizes": [-1]}}, "OutputTensors": [], "Axis": 0}  # fmt: skip
    model = {
        "dispatchables": {
            "s": {"type": "DML_OPERATOR_SPLIT", "desc": bad_split},
            "my join": {"type": "DML_OPERATOR_JOIN", "desc": bad_join},
            "n": {"type": "DML_OPERATOR_SPLIT", "desc": negative},
        }
    }
    assert main(["dml", "check", write(tmp_path, model), "--json"]) == 1
    operators = json.loads(capsys.readouterr().out)["operators"]
    paths = {v["path"]: v["message"] for o in operators for v in o["violations"]}
    assert paths["dispatchables.s.desc.OutputTensors[1].DataType"] == (
        "must equal InputTensor.DataType=DML_TENSOR_DATA_TYPE_FLOAT32"
    )
    assert 'dispatchables["my join"].desc.InputTensors[0].Desc.Sizes[0]' in paths
    assert "dispatchables.n.desc.InputTensor.Desc.Sizes[0]" in paths
    assert not [p for p in paths if any(c in p for c in ("_", "sizes", "input", "output"))]


def test_json_errors_name_each_field_once_and_where_it_is():
    # A missing DataType was named twice over: "desc.desc.OutputTensors[0].desc.desc.
    # OutputTensors[0].DataType"; a wrapped tensor's fields were named without their "Desc".
    wrapped = {"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"Sizes": [2]}}
    bare = {"InputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "OutputTensors": [wrapped],
            "Axis": 0}  # fmt: skip
    with pytest.raises(datamove.ValidationError) as info:
        dml.desc_from_json({"type": "DML_OPERATOR_SPLIT", "desc": bare})
    assert str(info.value) == "DirectML JSON: desc.OutputTensors[0].Desc.DataType=None is missing"
    with pytest.raises(datamove.ValidationError) as info:  # the bare desc: the same path
        dml.desc_from_json(bare)
    assert str(info.value) == "DirectML JSON: desc.OutputTensors[0].Desc.DataType=None is missing"
    wrapped["Desc"] = {"DataType": "FLOAT32", "Sizes": [2], "DimensionCount": 3}
    with pytest.raises(dml.DirectMLValidationError, match=r"OutputTensors\[0\]\.Desc\.Dimension"):
        dml.desc_from_json(bare)
    with pytest.raises(datamove.ValidationError, match="is not an OperatorType"):
        dml.desc_from_json({"type": "DML_OPERATOR_ADD", "desc": bare})


@pytest.mark.parametrize(
    ("tensor", "field", "argument"),
    [
        ({"Type": "XX", "DataType": "FLOAT32", "Sizes": [2]}, "Type", "tensor_type"),
        ({"Type": "XX", "Desc": {"DataType": "FLOAT32", "Sizes": [2]}}, "Type", "tensor_type"),
        ({"DataType": "FLOAT32", "Sizes": [2], "Flags": "ZZ"}, "Flags", "flags"),
    ],
)
def test_a_tensors_type_and_flags_are_named_as_the_file_spells_them(tensor, field, argument):
    # TensorDesc named a wrong tensor_type "type", so the file's "Type" was written "type"
    with pytest.raises(datamove.ValidationError) as info:
        dml.tensor_from_json(tensor, "tensor")
    assert info.value.argument == f"tensor.{field}"
    with pytest.raises(datamove.ValidationError) as info:
        dml.TensorDesc("FLOAT32", [2], **{argument: "XX"})
    assert (info.value.op, info.value.argument) == ("TensorDesc", argument)


def test_cli_names_the_top_level_and_odd_dispatchable_names(tmp_path, capsys):
    assert main(["dml", "check", write(tmp_path, [1])]) == 1
    assert "  [JSON] (top level)=[1] must be a JSON object" in capsys.readouterr().out
    model = {"dispatchables": {"a.b": {"type": "DML_OPERATOR_JOIN", "desc": {"InputTensors": 3}}}}
    assert main(["dml", "check", write(tmp_path, model)]) == 1
    out = capsys.readouterr().out
    assert '  [JSON] dispatchables["a.b"].desc.InputTensors=3 must be a JSON array' in out
