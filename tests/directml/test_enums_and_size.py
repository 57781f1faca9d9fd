"""Enums (exact DirectML names and values) and DMLCalcBufferTensorSize."""

from __future__ import annotations

import pickle
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import datamove
import datamove.directml as dml
from datamove.directml import FeatureLevel, TensorDataType, TensorFlags, _enums

DATA_TYPE_VALUES = {
    "UNKNOWN": 0, "FLOAT32": 1, "FLOAT16": 2, "UINT32": 3, "UINT16": 4, "UINT8": 5, "INT32": 6,
    "INT16": 7, "INT8": 8, "FLOAT64": 9, "UINT64": 10, "INT64": 11, "UINT4": 12, "INT4": 13,
}  # fmt: skip
LEVELS = {
    "1_0": 0x1000, "2_0": 0x2000, "2_1": 0x2100, "3_0": 0x3000, "3_1": 0x3100, "4_0": 0x4000,
    "4_1": 0x4100, "5_0": 0x5000, "5_1": 0x5100, "5_2": 0x5200, "6_0": 0x6000, "6_1": 0x6100,
    "6_2": 0x6200, "6_3": 0x6300, "6_4": 0x6400,
}  # fmt: skip


def test_data_type_names_and_values():
    assert {t.name: t.value for t in TensorDataType} == DATA_TYPE_VALUES
    assert TensorDataType.UINT4.dml_name == "DML_TENSOR_DATA_TYPE_UINT4"
    for name, value in DATA_TYPE_VALUES.items():
        assert TensorDataType.parse(f"DML_TENSOR_DATA_TYPE_{name}").value == value
        assert TensorDataType.parse(value).name == name


def test_flags_types_operators():
    assert (TensorFlags.NONE, TensorFlags.OWNED_BY_DML) == (0, 1)
    assert TensorFlags.parse(["DML_TENSOR_FLAG_NONE", "OWNED_BY_DML"]) == TensorFlags.OWNED_BY_DML
    assert TensorFlags.parse("DML_TENSOR_FLAG_NONE").dml_name == "DML_TENSOR_FLAG_NONE"
    assert TensorFlags.parse(TensorFlags.OWNED_BY_DML) is TensorFlags.OWNED_BY_DML
    assert (dml.TensorType.INVALID, dml.TensorType.BUFFER) == (0, 1)
    assert (dml.OperatorType.SPLIT, dml.OperatorType.JOIN) == (62, 63)
    assert dml.OperatorType.parse("DML_OPERATOR_SPLIT") is dml.OperatorType.SPLIT
    assert (dml.DML_TENSOR_DIMENSION_COUNT_MAX, dml.DML_TENSOR_DIMENSION_COUNT_MAX1) == (5, 8)
    assert dml.DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16


@pytest.mark.parametrize(("text", "value"), LEVELS.items())
def test_feature_levels_parse_and_compare(text, value):
    level = FeatureLevel.parse(text)
    assert level.value == value
    assert FeatureLevel.parse(value) is level
    assert FeatureLevel.parse(hex(value)) is level
    assert FeatureLevel.parse(f"DML_FEATURE_LEVEL_{text}") is level
    assert FeatureLevel.parse(text.replace("_", ".")) is level
    assert str(level) == text
    assert level.dml_name == f"DML_FEATURE_LEVEL_{text}"


class _SlowText(str):
    """A text whose hashing lets other threads run (a dict lookup of it can be cut short)."""

    __slots__ = ()

    def __hash__(self) -> int:
        time.sleep(0)
        return str.__hash__(self)


def test_feature_level_texts_parse_while_other_threads_clear_their_cache(monkeypatch):
    # parse stored a text, then read it back from the cache: another thread's store into a
    # full cache could clear it in between, and the read raised KeyError.
    monkeypatch.setattr(_enums, "_LEVEL_CACHE_MAX", 2)
    barrier = threading.Barrier(8)

    def run(t: int) -> set[FeatureLevel]:
        barrier.wait()
        return {FeatureLevel.parse(_SlowText(" " * k + "4_1" + " " * t)) for k in range(100)}

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(8) as pool:
            assert set().union(*pool.map(run, range(8))) == {FeatureLevel.LEVEL_4_1}
    finally:
        sys.setswitchinterval(interval)
        _enums._LEVEL_CACHE.clear()


def test_feature_levels_are_ordered():
    assert list(FeatureLevel) == sorted(FeatureLevel)
    assert FeatureLevel.LEVEL_3_1 > FeatureLevel.LEVEL_3_0 > 0x2100


@pytest.mark.parametrize(
    ("cls", "value", "error"),
    [
        pytest.param(FeatureLevel, "4_2", datamove.ValidationError, id="level 4_2"),
        pytest.param(FeatureLevel, 0x4200, datamove.ValidationError, id="level 0x4200"),
        pytest.param(FeatureLevel, 4.1, datamove.DTypeError, id="level float"),
        pytest.param(TensorDataType, "BFLOAT16", datamove.ValidationError, id="bfloat16"),
        pytest.param(TensorDataType, True, datamove.DTypeError, id="bool type"),
        pytest.param(TensorFlags, "OWNED", datamove.ValidationError, id="flag name"),
    ],
)
def test_bad_enum_values(cls, value, error):
    with pytest.raises(error):
        cls.parse(value)


# DMLCalcBufferTensorSize: the worked values of the research report.
@pytest.mark.parametrize(
    ("data_type", "sizes", "strides", "expected"),
    [
        pytest.param("FLOAT16", [1, 1, 3, 5], None, 32, id="f16 packed 30->32"),
        pytest.param("FLOAT16", [1, 1, 3, 5], [15, 1, 5, 1], 32, id="f16 NHWC"),
        pytest.param("FLOAT32", [1, 1, 2, 3], [0, 0, 5, 1], 32, id="f32 padded rows idx 7"),
        pytest.param("UINT8", [1, 1, 1, 3], None, 4, id="u8 3->4"),
        pytest.param("INT4", [7], None, 4, id="int4 28 bits"),
        pytest.param("INT4", [9], None, 8, id="int4 36 bits"),
        pytest.param("FLOAT32", [2, 3], [0, 1], 12, id="f32 broadcast rows"),
        pytest.param("UINT4", [3], [2], 4, id="uint4 strided 5 nibbles"),
        pytest.param("FLOAT64", [2, 2], None, 32, id="f64 packed"),
    ],
)
def test_calc_buffer_tensor_size_worked_values(data_type, sizes, strides, expected):
    assert dml.calc_buffer_tensor_size(data_type, sizes, strides) == expected
    assert dml.calc_buffer_tensor_size(data_type, sizes, strides, mode="dmlx") == expected
    assert dml.TensorDesc(data_type, sizes, strides).total_tensor_size_in_bytes == expected


def test_calc_buffer_tensor_size_wrap_and_overflow():
    sizes, strides = [65536, 65537], [65537, 1]
    assert dml.calc_buffer_tensor_size("FLOAT32", sizes, strides, mode="dmlx") == 262_144
    with pytest.raises(dml.BufferSizeOverflowError) as info:
        dml.calc_buffer_tensor_size("FLOAT32", sizes, strides)
    assert isinstance(info.value, OverflowError)
    assert [v.rule for v in info.value.violations] == ["T8"]
    assert "17180131328 bytes" in str(info.value)  # the exact answer, stated
    # the packed path counts in UINT64: exact, no wrap, until 2**64 bits
    assert dml.calc_buffer_tensor_size("FLOAT32", sizes) == 65536 * 65537 * 4
    with pytest.raises(dml.BufferSizeOverflowError, match="UINT64"):
        dml.calc_buffer_tensor_size("FLOAT64", [2**32 - 1] * 2)
    # DirectMLX counts those bits in a UINT64 that wraps, then rounds to bytes and to 4
    bits = (2**32 - 1) ** 2 * 64 % 2**64
    wrapped = ((bits + 7) // 8 + 3) // 4 * 4
    assert dml.calc_buffer_tensor_size("FLOAT64", [2**32 - 1] * 2, mode="dmlx") == wrapped
    with pytest.raises(datamove.ValidationError, match='mode=\'exact \' must be "exact" or "dmlx"'):
        dml.calc_buffer_tensor_size("FLOAT32", [2], mode="exact ")


def test_calc_buffer_tensor_size_unknown_type_and_bad_sizes():
    assert dml.calc_buffer_tensor_size("UNKNOWN", [4], [1], mode="dmlx") == 0
    with pytest.raises(dml.DirectMLValidationError) as info:
        dml.calc_buffer_tensor_size("UNKNOWN", [0, 2], [1])
    assert [v.rule for v in info.value.violations] == ["T2", "T5", "T6"]
    with pytest.raises(dml.DirectMLValidationError, match=r"\[T4\]"):
        dml.calc_buffer_tensor_size("FLOAT32", [])
    with pytest.raises(datamove.ValidationError, match="UINT"):
        dml.calc_buffer_tensor_size("FLOAT32", [-1])
    with pytest.raises(datamove.DTypeError):
        dml.calc_buffer_tensor_size("FLOAT32", [2.0])


def test_tensor_desc_is_a_frozen_value():
    t = dml.TensorDesc("FLOAT32", [1, 1, 6, 2])
    assert t == dml.TensorDesc(TensorDataType.FLOAT32, (1, 1, 6, 2), total_tensor_size_in_bytes=48)
    assert hash(t) == hash(dml.TensorDesc("DML_TENSOR_DATA_TYPE_FLOAT32", [1, 1, 6, 2]))
    with pytest.raises(AttributeError):
        t.sizes = (1,)  # type: ignore[misc]
    assert t.effective_strides == (12, 12, 2, 1)
    assert pickle.loads(pickle.dumps(t)) == t


def test_tensor_desc_rejects_what_a_c_struct_cannot_hold():
    with pytest.raises(datamove.ValidationError, match=r"sizes\[1\]"):
        dml.TensorDesc("FLOAT32", [1, 2**32])
    with pytest.raises(datamove.DTypeError):
        dml.TensorDesc("FLOAT32", [True])
    with pytest.raises(datamove.DTypeError):
        dml.TensorDesc("FLOAT32", "12")
    with pytest.raises(datamove.ValidationError, match="UINT64"):
        dml.TensorDesc("FLOAT32", [1], total_tensor_size_in_bytes=2**64)


def test_errors_pickle_with_their_violations():
    err = dml.DirectMLValidationError(
        "DML_SPLIT", [dml.Violation("S3", "axis", 9, "must be in [0, 3]")]
    )
    again = pickle.loads(pickle.dumps(err))
    assert again.violations == err.violations
    assert str(again) == str(err)
    assert isinstance(again, datamove.ValidationError)


def test_violations_are_json_records_as_ir_problems_are():
    from datamove.ir import Problem

    violation = dml.Violation("S3", "axis", (9,), "must be in [0, 3]")
    want = {"rule": "S3", "path": "axis", "value": [9], "message": "must be in [0, 3]"}
    assert violation.to_dict() == want
    assert Problem("ports", "declares 1").to_dict()["message"] == "declares 1"
