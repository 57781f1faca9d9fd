"""OpenVINO Split/VariadicSplit to DML_SPLIT, and the public surface of datamove.directml."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import datamove
import datamove.directml as dml


def rules(violations):
    return [(v.rule, v.path) for v in violations]


def test_variadic_split_resolves_minus_one_and_negative_axis():
    desc = dml.split_desc_from_openvino([2, 7], -1, split_lengths=[2, -1])
    assert desc == dml.SplitDesc(
        dml.TensorDesc("FLOAT32", [2, 7]),
        [dml.TensorDesc("FLOAT32", [2, 2]), dml.TensorDesc("FLOAT32", [2, 5])],
        1,
    )
    assert dml.explain_openvino_split([2, 7], -1, split_lengths=[2, -1]) == []


def test_split_of_the_spec_example_at_low_levels():
    desc = dml.split_desc_from_openvino([1, 1, 6, 2], 3, num_splits=2, feature_level="1_0")
    assert [t.sizes for t in desc.outputs] == [(1, 1, 6, 1)] * 2
    # rank 3 needs 3_0; the reason is DirectML's table
    found = dml.explain_openvino_split([1, 6, 2], 1, num_splits=3, feature_level="2_1")
    assert {r for r, _ in rules(found)} == {"S7"}
    assert dml.explain_openvino_split([1, 6, 2], 1, num_splits=3, feature_level="3_0") == []


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        pytest.param(
            {"shape": [2, 7], "axis": 1, "split_lengths": [0, 7]},
            [("S6", "outputs[0].sizes[1]")],
            id="zero chunk",
        ),
        pytest.param({"shape": [0, 4], "axis": 0, "num_splits": 2}, None, id="zero dim"),
        pytest.param(
            {"shape": "[?,6]", "axis": 1, "num_splits": 2}, [("X1", "shape")], id="dynamic"
        ),
        pytest.param(
            {"shape": "[...]", "axis": 0, "num_splits": 2}, [("X1", "shape")], id="dynamic rank"
        ),
        pytest.param(
            {"shape": [4], "axis": 0, "num_splits": 2, "element_type": "bf16"},
            [("X2", "element_type")],
            id="bf16",
        ),
        pytest.param(
            {"shape": [4], "axis": 0, "num_splits": 2, "element_type": "boolean"},
            [("X2", "element_type")],
            id="boolean",
        ),
        pytest.param(
            {"shape": [2**32, 2], "axis": 1, "num_splits": 2}, [("T8", "shape[0]")], id="huge dim"
        ),
        pytest.param({"shape": [1] * 9, "axis": 0, "num_splits": 1}, None, id="rank 9"),
    ],
)
def test_openvino_splits_without_a_directml_equivalent(kwargs, expected):
    found = dml.explain_openvino_split(**kwargs)
    assert found
    if expected is not None:
        assert rules(found) == expected
    with pytest.raises(dml.DirectMLValidationError) as info:
        dml.split_desc_from_openvino(**kwargs)
    assert info.value.violations == found
    assert "no DirectML equivalent" in str(info.value)


def test_zero_dim_and_rank_9_reasons():
    assert {r for r, _ in rules(dml.explain_openvino_split([0, 4], 0, num_splits=2))} == {
        "T5",
        "S6",
    }
    assert {r for r, _ in rules(dml.explain_openvino_split([1] * 9, 0, num_splits=1))} == {"T4"}


def test_element_types():
    for name, dtype in [("u4", "UINT4"), ("i64", "INT64"), ("f16", "FLOAT16"), ("INT8", "INT8")]:
        desc = dml.split_desc_from_openvino([4], 0, num_splits=2, element_type=name)
        assert desc.input.data_type.name == dtype
    given = dml.TensorDataType.UINT16  # DirectML's own type, taken as it is
    desc = dml.split_desc_from_openvino([4], 0, num_splits=2, element_type=given)
    assert desc.input.data_type is given


def test_invalid_openvino_splits_are_the_cores_errors():
    with pytest.raises(datamove.ValidationError):
        dml.split_desc_from_openvino([7], 0, num_splits=3)
    with pytest.raises(datamove.ValidationError, match="not both"):
        dml.split_desc_from_openvino([4], 0, num_splits=2, split_lengths=[2, 2])


def test_all_is_what_the_docs_list():
    docs = (Path(__file__).parents[2] / "docs" / "directml.md").read_text()
    section = docs.split("## Public API", 1)[1].split("\n## ", 1)[0]
    bullets = [line.split(":")[0] for line in section.splitlines() if line.startswith("- ")]
    listed = {name for line in bullets for name in re.findall(r"`([A-Za-z_0-9]+)`", line)}
    assert listed == set(dml.__all__)
    for name in dml.__all__:
        assert hasattr(dml, name)


def test_error_hierarchy():
    assert issubclass(dml.DirectMLValidationError, datamove.ValidationError)
    assert issubclass(dml.BufferSizeOverflowError, OverflowError)
