"""Mistyped or hostile input to the DirectML package: clear errors naming it, never a wrong result.

Layouts that make two elements share an address, switches of the wrong type, a NumPy type where
a DirectML data type belongs, and Dask arrays whose sizes Dask does not know. (JSON text:
``test_hostile_json.py``.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import datamove
import datamove.directml as dml

# write_tensor ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data_type", "sizes", "strides"),
    [("UINT8", [2], [0]), ("UINT4", [2], [0]), ("FLOAT32", [2, 2], [1, 1])],
    ids=["uint8 stride 0", "uint4 stride 0", "float32 diagonal overlap"],
)
def test_write_tensor_refuses_layouts_that_share_addresses(data_type, sizes, strides) -> None:
    desc = dml.TensorDesc(data_type, sizes, strides)
    with pytest.raises(dml.DirectMLValidationError, match=r"\[T12\] desc.strides=") as info:
        dml.write_tensor(desc, np.ones(sizes, np.uint8))
    assert [v.rule for v in info.value.violations] == ["T12"]


def test_write_tensor_still_broadcasts_along_size_one_dims() -> None:
    # A stride of 0 on a dimension of size 1 shares nothing.
    assert dml.write_tensor(dml.TensorDesc("UINT8", [1, 3], [0, 1]), [[1, 2, 3]]).tolist() == [
        1,
        2,
        3,
        0,
    ]


# ValidationOptions and options= ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dword_aligned_total_size": "no"}, datamove.DTypeError, "must be True or False"),
        ({"reject_output_aliasing": 1}, datamove.DTypeError, "must be True or False"),
        ({"join_rank_at_3_1": ["table"]}, datamove.DTypeError, '"table" or "history"'),
        ({"element_limit": None}, datamove.DTypeError, '"both", "last_element" or'),
        ({"element_limit": "all"}, datamove.ValidationError, '"both", "last_element" or'),
    ],
    ids=["dword 'no'", "aliasing 1", "join rank list", "element limit None", "element 'all'"],
)
def test_validation_options_are_type_checked(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        dml.ValidationOptions(**kwargs)


def test_validation_options_take_numpy_bools_as_bools() -> None:
    options = dml.ValidationOptions(dword_aligned_total_size=np.False_)
    assert options.dword_aligned_total_size is False


@pytest.mark.parametrize("options", [{"a": 1}, "table", dml.ValidationOptions], ids=str)
def test_options_argument_is_type_checked(options) -> None:
    desc = dml.SplitDesc(dml.TensorDesc("UINT8", [2]), [dml.TensorDesc("UINT8", [2])], 0)
    with pytest.raises(datamove.DTypeError, match=r"DML_SPLIT: options=.* must be a datamove"):
        desc.validate(options=options)
    with pytest.raises(datamove.DTypeError, match="options="):
        dml.run_split(desc, bytes(4), options=options)


# TensorDesc's data type --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        (np.float32, "for NumPy's float32, write 'FLOAT32'"),
        (np.dtype("int8"), "for NumPy's int8, write 'INT8'"),
        (1.5, None),
    ],
    ids=["np.float32", "dtype int8", "1.5"],
)
def test_tensor_desc_names_a_wrong_data_type(value, hint) -> None:
    with pytest.raises(datamove.DTypeError) as info:
        dml.TensorDesc(value, [1])
    message = str(info.value)
    assert message.startswith("TensorDesc: data_type=")
    assert "must be a DML tensor data type: a name such as 'FLOAT32'" in message
    assert info.value.hint == hint


# Dask arrays of unknown sizes --------------------------------------------------------------------


def test_dask_unknown_sizes_name_the_argument_and_the_axis() -> None:
    da = pytest.importorskip("dask.array")
    v = da.from_array(np.arange(20.0).reshape(4, 5), chunks=2)
    y = v[v[:, 0] > 5]  # 2 rows, but Dask does not know it
    with pytest.raises(datamove.BackendError, match=r"array=.* unknown size .* axis 0") as info:
        dml.split(y, 1, [2, 3])
    assert "compute_chunk_sizes()" in str(info.value.hint)
    with pytest.raises(datamove.BackendError, match=r"arrays\[1\]=.* unknown size .* axis 0"):
        dml.join([v[:2], y], 1)
    y.compute_chunk_sizes()
    parts = dml.split(y, 1, [2, 3])
    np.testing.assert_array_equal(parts[1].compute(), np.arange(20.0).reshape(4, 5)[2:, 2:])


# Feature levels ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["1_" + "9" * 5000, "99_99"], ids=["5000-digit minor", "99_99"])
def test_feature_level_text_that_is_no_level_is_reported_as_written(text: str) -> None:
    # 5000 digits raised int()'s ValueError; 99_99 was reported as the number 422656.
    with pytest.raises(datamove.ValidationError, match=f"feature_level='{text[:20]}"):
        dml.FeatureLevel.parse(text)


@pytest.mark.parametrize(
    ("sizes", "error", "message"),
    [
        ([True, 3], datamove.DTypeError, "DirectML: sizes[0]=True must be an integer, not a bool"),
        ([1, 3.0], datamove.DTypeError, "DirectML: sizes[1]=3.0 must be an integer, not a float"),
        (
            [2**70, 3],
            datamove.ValidationError,
            "DirectML: sizes[0]=1180591620717411303424 must be in [0, 4294967295] (a UINT field)",
        ),
        (
            [1, -1],
            datamove.ValidationError,
            "DirectML: sizes[1]=-1 must be in [0, 4294967295] (a UINT field)",
        ),
    ],
)
def test_split_names_the_length_that_is_wrong(sizes, error, message) -> None:
    """An error in ``sizes`` names its index there, not the desc's axis (``sizes[1]`` on axis 1)."""
    with pytest.raises(error) as info:
        dml.split(np.zeros((2, 4), np.int16), 1, sizes)
    assert str(info.value) == message


def test_array_fields_read_as_the_operators_read_them() -> None:
    # A desc's sizes and dml.split's sizes and axis said "must be a sequence of integers" of a
    # 2-D NumPy array and of any PyTorch tensor, "sizes[0]=np.float64(2.0) must be an integer"
    # of a float array, and read a 0-d PyTorch tensor inside a list; the operators' wording
    # (datamove._validation) says what was given, for every library.
    torch = pytest.importorskip("torch")

    def rule(call):
        with pytest.raises(datamove.ValidationError) as info:
            call()
        return info.value.argument, info.value.rule

    x = np.zeros((2, 6), np.float32)
    two_d = "must be 1-D, but has shape [1, 2]"
    floats = "has element type float64, but must be of an integer type"
    tensor = "is a PyTorch array, but must be a sequence of integers or a NumPy integer array"
    for desc in (
        lambda v: dml.TensorDesc("FLOAT32", v),
        lambda v: dml.calc_buffer_tensor_size("FLOAT32", v),
    ):
        assert rule(lambda d=desc: d(np.array([[2, 3]]))) == ("sizes", two_d)
        assert rule(lambda d=desc: d(np.array([2.0, 3.0]))) == ("sizes", floats)
        assert rule(lambda d=desc: d(torch.tensor([2, 3]))) == ("sizes", tensor)
        assert rule(lambda d=desc: d([torch.tensor(2), 3])) == (
            "sizes[0]",
            "is a PyTorch array, but must be an integer (Python or NumPy)",
        )
    assert dml.TensorDesc("FLOAT32", np.array([2, 3])).sizes == (2, 3)
    assert rule(lambda: dml.split(x, 1, np.array([[2, 4]]))) == ("sizes", two_d)
    assert rule(lambda: dml.split(x, 1, np.array([2.0, 4.0]))) == ("sizes", floats)
    assert rule(lambda: dml.split(x, 1, torch.tensor([2, 4]))) == (
        "sizes",
        "is a PyTorch array, but must be a sequence of lengths or a NumPy integer array",
    )
    assert rule(lambda: dml.split(x, torch.tensor(1), [2, 4])) == (
        "axis",
        "is a PyTorch array, but must be an integer (Python or NumPy)",
    )
    assert rule(lambda: dml.split(x, np.array(1.0), [2, 4])) == ("axis", floats)
    assert [p.shape for p in dml.split(x, np.array(1), np.array([2, 4]))] == [(2, 2), (2, 4)]


# the wrong desc, a desc against DirectML's rules, a buffer with gaps ----------------------------
_SPLIT = dml.SplitDesc(dml.TensorDesc("FLOAT32", [2]), [dml.TensorDesc("FLOAT32", [1])] * 2, 0)
_JOIN = dml.JoinDesc([dml.TensorDesc("UINT8", [4])] * 2, dml.TensorDesc("UINT8", [8]), 0)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        pytest.param(
            lambda: dml.run_join(_SPLIT, [np.zeros(8, np.uint8)]),
            datamove.DTypeError,
            "DML_JOIN: desc=SplitDesc.* must be a JoinDesc",
            id="run_join(SplitDesc)",
        ),
        pytest.param(
            lambda: dml.read_tensor(_SPLIT, np.zeros(8, np.uint8)),
            datamove.DTypeError,
            "must be a TensorDesc",
            id="read_tensor(SplitDesc)",
        ),
        pytest.param(
            lambda: dml.read_tensor(dml.TensorDesc("FLOAT32", []), np.zeros(8, np.uint8)),
            dml.DirectMLValidationError,
            r"\[T4\] sizes=\(\) must not be empty",
            id="read_tensor(sizes=[])",
        ),
        pytest.param(
            lambda: dml.write_tensor(dml.TensorDesc("FLOAT32", [0, 2]), 1.0),
            dml.DirectMLValidationError,
            r"\[T5\] sizes\[0\]=0 must be at least 1",
            id="write_tensor(sizes=[0, 2])",
        ),
        pytest.param(
            lambda: dml.desc_to_json(dml.TensorDesc("FLOAT32", [2])),
            datamove.DTypeError,
            "must be a SplitDesc or a JoinDesc",
            id="desc_to_json(TensorDesc)",
        ),
        pytest.param(
            lambda: dml.run_join(_JOIN, [np.zeros(8, np.uint8)[::2], np.zeros(4, np.uint8)]),
            datamove.ValidationError,
            r"input_buffers\[0\]=.* must be a contiguous buffer \(hint",
            id="run_join(strided array)",
        ),
        pytest.param(
            lambda: dml.run_join(
                _JOIN, [memoryview(np.zeros(8, np.uint8)[::2]), np.zeros(4, np.uint8)]
            ),
            datamove.ValidationError,
            r"input_buffers\[0\]=<memory .* must be a contiguous buffer",
            id="run_join(strided memoryview)",
        ),
    ],
)
def test_the_wrong_desc_or_buffer_is_named(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call()


def test_a_torch_dtype_numpy_has_no_name_for_is_refused() -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():  # "ComplexHalf support is experimental", once a process
        warnings.simplefilter("ignore", UserWarning)
        x = torch.zeros(4, dtype=torch.complex32)
    # NumPy may know no complex32 ('torch.complex32' is shown), or one another library made
    with pytest.raises(datamove.DTypeError, match=r"array=.*complex32.* has no DirectML data type"):
        dml.split(x, 0, [2, 2])


def test_a_violations_dict_shows_a_value_json_cannot_hold() -> None:
    found = dml.Violation("S3", "axis", np.int64(9), "must be in [0, 3]").to_dict()
    assert found["value"] == "np.int64(9)"
    assert dml.Violation("S3", "axis", (1, 2), "m").to_dict()["value"] == [1, 2]
