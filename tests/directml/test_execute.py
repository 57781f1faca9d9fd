"""Running split and join over byte buffers: the spec's examples, round trips, layouts, 4-bit."""

from __future__ import annotations

import itertools
import math
import warnings
from concurrent.futures import ThreadPoolExecutor

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import datamove
import datamove.directml as dml
from datamove._backends import _copy
from datamove.directml import JoinDesc, SplitDesc, TensorDataType, TensorDesc, _nibbles
from strategies import examples

SPEC_INPUT = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)


def test_spec_example_1_axis_2():
    desc = SplitDesc(
        TensorDesc("FLOAT32", [1, 1, 6, 2]),
        [TensorDesc("FLOAT32", [1, 1, n, 2]) for n in (2, 1, 3)],
        axis=2,
    )
    outputs = dml.run_split(desc, SPEC_INPUT)
    got = [dml.read_tensor(t, b).tolist() for t, b in zip(desc.outputs, outputs, strict=True)]
    assert got == [
        [[[[1, 2], [3, 4]]]],
        [[[[5, 6]]]],
        [[[[7, 8], [9, 10], [11, 12]]]],
    ]
    assert [b.size for b in outputs] == [16, 8, 24]


def test_spec_example_2_axis_3():
    desc = SplitDesc(
        TensorDesc("FLOAT32", [1, 1, 6, 2]), [TensorDesc("FLOAT32", [1, 1, 6, 1])] * 2, axis=3
    )
    outputs = dml.run_split(desc, SPEC_INPUT.tobytes())
    assert outputs[0].view(np.float32).tolist() == [1, 3, 5, 7, 9, 11]
    assert outputs[1].view(np.float32).tolist() == [2, 4, 6, 8, 10, 12]
    assert [p.tolist() for p in dml.split(SPEC_INPUT, 3, [1, 1])] == [
        [[[[1], [3], [5], [7], [9], [11]]]],
        [[[[2], [4], [6], [8], [10], [12]]]],
    ]


def test_S9_single_output_is_a_copy_and_can_change_layout():
    src = TensorDesc("INT16", [2, 3])
    transposed = TensorDesc("INT16", [2, 3], strides=[1, 2])
    data = dml.write_tensor(src, [[1, 2, 3], [4, 5, 6]])
    (out,) = dml.run_split(SplitDesc(src, [transposed], 0), data)
    assert out.view(np.int16).tolist() == [1, 4, 2, 5, 3, 6]
    assert not np.shares_memory(out, data)


def test_J8_single_input_is_a_copy():
    src = TensorDesc("UINT8", [5])
    data = np.array([9, 8, 7, 6, 5, 0, 0, 0], np.uint8)
    out = dml.run_join(JoinDesc([src], src, 0), [data])
    assert out.tolist() == data.tolist()
    assert not np.shares_memory(out, data)


def test_broadcast_input_and_padded_output():
    row = TensorDesc("FLOAT32", [3, 2], strides=[0, 1])  # one row, read three times
    padded = [TensorDesc("FLOAT32", [3, 1], strides=[3, 1]), TensorDesc("FLOAT32", [3, 1])]
    outputs = [np.full(p.total_tensor_size_in_bytes, 0xAA, np.uint8) for p in padded]
    dml.run_split(SplitDesc(row, padded, 1), np.array([5.0, 6.0], np.float32), outputs=outputs)
    assert dml.read_tensor(padded[0], outputs[0]).tolist() == [[5.0], [5.0], [5.0]]
    assert dml.read_tensor(padded[1], outputs[1]).tolist() == [[6.0], [6.0], [6.0]]
    # the padding between the rows of the first output is left as it was
    words = outputs[0].view(np.uint32)
    assert words[[1, 2, 4, 5]].tolist() == [0xAAAAAAAA] * 4
    assert padded[0].total_tensor_size_in_bytes == 28


def test_four_bit_spec_packing_and_odd_offsets():
    # DirectML's UINT4 example: [1, 2, 3, 4, 5] -> 0x21 0x43 0x05
    whole = TensorDesc("UINT4", [5])
    data = dml.write_tensor(whole, [1, 2, 3, 4, 5])
    assert data[:3].tolist() == [0x21, 0x43, 0x05]
    parts = [TensorDesc("UINT4", [1]), TensorDesc("UINT4", [3]), TensorDesc("UINT4", [1])]
    outputs = [np.full(4, 0xEE, np.uint8) for _ in parts]
    dml.run_split(SplitDesc(whole, parts, 0), data, outputs=outputs)
    assert [o.tolist() for o in outputs] == [
        [0xE1, 0xEE, 0xEE, 0xEE],
        [0x32, 0xE4, 0xEE, 0xEE],
        [0xE5, 0xEE, 0xEE, 0xEE],
    ]
    joined = dml.run_join(JoinDesc(parts, whole, 0), outputs)
    assert dml.read_tensor(whole, joined).tolist() == [1, 2, 3, 4, 5]


def test_int4_values_and_ml_dtypes():
    values = np.array([[-8, -1, 0, 7, 3]], dtype=ml_dtypes.int4)
    first, second = dml.split(values, 1, [2, 3])
    assert first.dtype == ml_dtypes.int4
    assert first.astype(np.int8).tolist() == [[-8, -1]]
    assert second.astype(np.int8).tolist() == [[0, 7, 3]]
    assert dml.join([first, second], 1).astype(np.int8).tolist() == [[-8, -1, 0, 7, 3]]
    small = np.array([1, -2, 3], np.int8)
    assert dml.split(small, 0, [1, 2], data_type="INT4")[1].tolist() == [-2, 3]
    with pytest.raises(datamove.ValidationError, match=r"\[-8, 7\]"):
        dml.split(np.array([9], np.int8), 0, [1], data_type="INT4")


# Every NumPy dtype the convenience forms take, with values that tell a conversion from a
# reinterpretation: int4's -8 and -1 are not the nibbles 8 and 15, uint4's 15 is no INT4.
SOURCES = {
    "int4": np.array([-8, -1, 0, 7, 3, 5], ml_dtypes.int4),
    "uint4": np.array([0, 15, 9, 1, 2, 3], ml_dtypes.uint4),
    "bool": np.array([False, True, True, False, True, True]),
    **{
        name: np.array([0, 1, 2, 3, 4, 5], name)
        for name in ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
    },
    **{name: np.array([0.5, -1.0, 2.0, 3.0, 4.0, 5.0], name) for name in ["float16", "float32"]},
    "float64": np.array([0.5, -1.0, 2.0, 3.0, 4.0, 5.0]),
}
OWN = {"int4": "INT4", "uint4": "UINT4", "bool": "UINT8"}
NUMPY_OF = {"INT4": np.int8, "UINT4": np.uint8}
RANGES = {"INT4": (-8, 7), "UINT4": (0, 15)}


def _expected(source: np.ndarray, data_type: str) -> tuple[np.dtype, str | None]:
    """The outputs' dtype, and the error message a conversion that changes values gets."""
    own = OWN.get(source.dtype.name, source.dtype.name.upper())
    dtype = np.dtype(NUMPY_OF.get(data_type, data_type.lower()))
    if own == data_type:
        return source.dtype, None
    if dtype.kind == "f":
        return dtype, None
    if source.dtype.kind == "f":
        return dtype, f"has element type {source.dtype}, which cannot be stored as"
    low, high = RANGES.get(data_type) or (np.iinfo(dtype).min, np.iinfo(dtype).max)
    values = source.astype(np.int64)
    if values.min() < low:
        return dtype, f"holds {values.min()}, outside .*'s range \\[{low}, {high}\\]"
    if values.max() > high:
        return dtype, f"holds {values.max()}, outside .*'s range \\[{low}, {high}\\]"
    return dtype, None


@pytest.mark.parametrize("data_type", [t.name for t in TensorDataType if t.bits])
@pytest.mark.parametrize("source", list(SOURCES))
def test_convenience_forms_output_data_types_dtype(source, data_type):
    # The outputs keep the array's dtype when data_type is the type it travels as (or is left
    # out), and take data_type's NumPy dtype otherwise, 4-bit arrays included; a conversion
    # that would change a value is a DTypeError naming the argument, never a reinterpretation
    # of nibbles or bytes.
    array = SOURCES[source]
    dtype, error = _expected(array, data_type)
    if error is not None:
        with pytest.raises(datamove.DTypeError, match=rf"^DirectML: array=.* {error}"):
            dml.split(array, 0, [2, 4], data_type=data_type)
        with pytest.raises(datamove.DTypeError, match=rf"^DirectML: arrays\[0\]=.* {error}"):
            dml.join([array[:2], array[2:]], 0, data_type=data_type)
        return
    parts = dml.split(array, 0, [2, 4], data_type=data_type)
    joined = dml.join([array[:2], array[2:]], 0, data_type=data_type)
    again = dml.join(parts, 0, data_type=data_type)
    assert [p.dtype for p in parts] == [dtype, dtype]
    assert joined.dtype == dtype
    assert again.dtype == dtype
    # the values round-trip: the same numbers, whatever the dtype (float16 holds these exactly)
    want = array.astype(np.float64).tolist()
    assert np.concatenate(parts).astype(np.float64).tolist() == want
    assert joined.astype(np.float64).tolist() == want
    assert again.astype(np.float64).tolist() == want
    if data_type == OWN.get(source, source.upper()):  # the same as leaving data_type out
        plain = dml.split(array, 0, [2, 4])
        assert [p.tobytes() for p in plain] == [p.tobytes() for p in parts]
        assert [p.dtype for p in plain] == [dtype, dtype]


@pytest.mark.parametrize("data_type", [t.name for t in TensorDataType if t.bits])
def test_a_true_is_1_whatever_byte_holds_it(data_type):
    # NumPy reads any nonzero byte of a bool array as True (uint8 2 viewed as bool): True goes
    # to every type as 1, as bool.astype gives, never as the byte that holds it.
    flags = np.array([2, 0, 1, 255], np.uint8).view(np.bool_)
    want = [1, 0, 1, 1]
    desc = TensorDesc(data_type, [4])
    assert dml.read_tensor(desc, dml.write_tensor(desc, flags)).tolist() == want
    parts = dml.split(flags, 0, [1, 3], data_type=data_type)
    assert np.concatenate(parts).astype(np.float64).tolist() == want
    joined = dml.join([flags[:2], flags[2:]], 0, data_type=data_type)
    assert joined.astype(np.float64).tolist() == want
    if data_type == "UINT8":  # the type bool travels as: the outputs are bools, of bytes 0 and 1
        assert parts[1].dtype == np.bool_
        assert np.concatenate(parts).view(np.uint8).tolist() == want
        assert joined.view(np.uint8).tolist() == want


@pytest.mark.parametrize("name", ["i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8"])
def test_arrays_in_the_other_byte_order_travel_as_their_type(name):
    # >i4 holds int32 values: it travels as INT32 and the outputs keep its dtype, as for <i4
    # (it was "has no DirectML data type"); another data_type gives that type's dtype.
    swapped = np.dtype(name).newbyteorder()
    array = np.array([[1, 2, 3], [4, 5, 6]]).astype(swapped)
    parts = dml.split(array, 1, [1, 2])
    assert [p.dtype for p in parts] == [swapped, swapped]
    assert [p.tolist() for p in parts] == [[[1], [4]], [[2, 3], [5, 6]]]
    joined = dml.join([array, array[:1]], 0)
    assert joined.dtype == swapped
    assert joined.tolist() == [[1, 2, 3], [4, 5, 6], [1, 2, 3]]
    assert dml.split(array, 0, [1, 1], data_type=_own_name(name))[0].dtype == swapped
    other = "FLOAT32" if name == "f8" else "FLOAT64"
    (part,) = dml.split(array, 0, [2], data_type=other)
    assert part.dtype == np.dtype(other.lower())
    assert part.tolist() == array.tolist()


@pytest.mark.parametrize("name", ["i2", "u4", "i8", "f2", "f8"])
def test_a_join_of_one_type_in_both_byte_orders_is_native(name):
    # >i4 and <i4 are both INT32 (a DirectML type has no byte order): they join, and the output
    # is in the native order, as np.concatenate gives it (it was "must match arrays[0]'s >i4")
    native = np.dtype(name)
    swapped = native.newbyteorder()
    a, b = np.array([[1, 2]], swapped), np.array([[3, 4], [5, 6]], native)
    for arrays in ([a, b], [b, a], [a, b, a]):
        want = np.concatenate(arrays)
        for data_type in (None, dml.TensorDataType.parse(_own_name(name))):
            joined = dml.join(arrays, 0, data_type=data_type)
            assert joined.dtype == want.dtype == native
            assert joined.tolist() == want.tolist()
    assert dml.join([a, b], 0, data_type="FLOAT32").dtype == np.float32
    with pytest.raises(datamove.DTypeError, match=r"must match arrays\[0\]'s .* byte order"):
        dml.join([a, b.astype(np.int8)], 0)


def _own_name(name):
    own = name.upper().replace("I", "INT").replace("U", "UINT").replace("F", "FLOAT")
    return own[:-1] + str(8 * np.dtype(name).itemsize)


def test_write_tensor_takes_ml_dtypes_four_bit_values():
    values = np.array([-8, -1, 0, 7, 3], ml_dtypes.int4)
    data = dml.write_tensor(TensorDesc("INT4", [5]), values)
    assert dml.read_tensor(TensorDesc("INT4", [5]), data).tolist() == [-8, -1, 0, 7, 3]
    with pytest.raises(datamove.DTypeError, match=r"values=.* holds -8, outside UINT4's range"):
        dml.write_tensor(TensorDesc("UINT4", [5]), values)
    with pytest.raises(datamove.DTypeError, match="float64, which cannot be stored as INT4"):
        dml.write_tensor(TensorDesc("INT4", [1]), [0.5])


def test_convenience_forms_keep_dtypes_and_values():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 7, 2)).astype(np.float16)
    parts = dml.split(x, -2, [3, 1, 3])
    assert [p.shape for p in parts] == [(3, 3, 2), (3, 1, 2), (3, 3, 2)]
    assert all(p.dtype == np.float16 for p in parts)
    np.testing.assert_array_equal(np.concatenate(parts, axis=1), x)
    np.testing.assert_array_equal(dml.join(parts, 1), x)
    flags = np.array([[True, False, True]])
    assert dml.split(flags, 1, [1, 2])[1].tolist() == [[False, True]]
    nan = np.array([np.float32("nan"), -0.0], np.float32).view(np.uint32)
    nan[0] |= 0x123  # a NaN payload survives: bits are moved, not values
    moved = dml.join([nan.view(np.float32)[:1], nan.view(np.float32)[1:]], 0)
    assert moved.view(np.uint32).tolist() == nan.tolist()


U8X4 = TensorDesc("UINT8", [4])
Z23 = np.zeros((2, 3))
DMLError, DTypeError = dml.DirectMLValidationError, datamove.DTypeError
C64 = np.zeros(3, np.complex64)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        pytest.param(lambda: dml.split(Z23, 1, [1, 0, 2]), DMLError, r"\[S6\]", id="zero chunk"),
        pytest.param(lambda: dml.split(Z23, 1, [1, 1]), DMLError, r"\[S5\]", id="sum"),
        pytest.param(
            lambda: dml.split(Z23, 2, [3]),
            datamove.AxisError, r"axis=2 is out of the tensor rank range \[-2, 1\]", id="axis",
        ),
        pytest.param(
            lambda: dml.split(3.5, 0, [1]),
            datamove.AxisError, "cannot address an axis of a scalar", id="axis of a scalar",
        ),
        pytest.param(lambda: dml.split(Z23, True, [2]), DTypeError, "integer", id="bool axis"),
        pytest.param(
            lambda: dml.join([[1, None]], 0),
            DTypeError, r"arrays\[0\]=\[1, None\] is not an array of numbers", id="objects",
        ),
        pytest.param(lambda: dml.split(C64, 0, [3]), DTypeError, "no DirectML", id="complex"),
        pytest.param(lambda: dml.split(np.zeros(3), 0, 3), DTypeError, "sizes", id="int sizes"),
        pytest.param(
            lambda: dml.join([np.zeros((2, 1)), np.zeros((3, 1))], 1),
            DMLError, r"\[J4\]", id="join off-axis",
        ),
        pytest.param(lambda: dml.join([], 0), DTypeError, "non-empty", id="join nothing"),
        pytest.param(
            lambda: dml.join([np.zeros(1), np.zeros(1, np.int8)], 0), DTypeError, "match", id="mix"
        ),
        pytest.param(
            lambda: dml.run_split(SplitDesc(U8X4, [U8X4], 0), b"abcd", outputs=[b"wxyz"]),
            datamove.ValidationError, "writable", id="bytes output",
        ),
        pytest.param(
            lambda: dml.run_join(JoinDesc([U8X4], U8X4, 0), b"abcd"),
            DTypeError, "sequence", id="join one buffer",
        ),
        pytest.param(lambda: dml.run_split("desc", b""), DTypeError, "SplitDesc", id="not a desc"),
    ],
)  # fmt: skip
def test_execution_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    ("data_type", "values", "message"),
    [
        ("INT8", [-200], "values=[-200] holds -200, outside int8's range [-128, 127]"),
        ("UINT8", [3, 300], "values=[3, 300] holds 300, outside uint8's range [0, 255]"),
        ("UINT16", [-1], "values=[-1] holds -1, outside uint16's range [0, 65535]"),
        ("INT8", np.array([7, 200], np.uint8), "holds 200, outside int8's range [-128, 127]"),
        ("UINT4", np.array([16], np.int8), "holds 16, outside UINT4's range [0, 15]"),
        ("INT4", np.array([7, -9], np.int64), "holds -9, outside INT4's range [-8, 7]"),
        (
            "INT64", np.array([2**64 - 1], np.uint64),
            "holds 18446744073709551615, outside int64's range",
        ),
        (
            "FLOAT16", [65504.0, 65520.0],
            (
                "values=[65504.0, 65520.0] holds 65520.0, beyond float16's largest finite"
                " value 65504.0; it would become infinite"
            ),
        ),
        ("FLOAT16", [70000], "holds 70000, beyond float16's largest finite value"),
        ("FLOAT32", [1e300], "holds 1e+300, beyond float32's largest finite value"),
        ("INT32", [1.5], "has element type float64, which cannot be stored as int32"),
    ],
)  # fmt: skip
def test_write_tensor_never_changes_a_value_silently(data_type, values, message):
    # NumPy's same_kind cast would wrap -200 to 56 in an int8 and turn 70000 into inf in a
    # float16 with only a RuntimeWarning; write_tensor refuses both, naming the value.
    desc = TensorDesc(data_type, [len(values)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DTypeError) as info:
            dml.write_tensor(desc, values)
    assert message in str(info.value)


def test_write_tensor_keeps_what_fits():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        floats = dml.write_tensor(TensorDesc("FLOAT16", [4]), [np.inf, np.nan, 65519.0, -1e-9])
        ints = dml.write_tensor(TensorDesc("INT8", [3]), np.array([-128, 127, True], np.int64))
    halves = floats.view(np.float16)
    assert np.isposinf(halves[0])
    assert np.isnan(halves[1])
    assert halves[2:].tolist() == [65504.0, -0.0]  # rounding, not overflow
    assert ints.view(np.int8).tolist() == [-128, 127, 1, 0]


def test_run_validates_the_level_only_when_asked():
    desc = SplitDesc(TensorDesc("INT4", [4]), [TensorDesc("INT4", [2])] * 2, 0)
    dml.run_split(desc, bytes(4))
    with pytest.raises(dml.DirectMLValidationError, match=r"\[S7\]"):
        dml.run_split(desc, bytes(4), feature_level="6_4")


def test_join_output_may_not_overlap_an_input_but_inputs_may_share_a_buffer():
    # DxDispatch's dml_join.json binds two inputs to sub-ranges of one buffer
    a = np.arange(1, 11, dtype=np.float32)
    b = np.array([100, 115, 130, 0], np.float32)
    desc = JoinDesc([TensorDesc("FLOAT32", [n]) for n in (3, 2, 5)], TensorDesc("FLOAT32", [10]), 0)
    out = dml.run_join(desc, [a[:3], b, a[4:]])
    assert out.view(np.float32).tolist() == [1, 2, 3, 100, 115, 5, 6, 7, 8, 9]
    with pytest.raises(dml.DirectMLValidationError, match=r"\[S10\] output"):
        dml.run_join(desc, [a[:3], b, a[4:]], output=a)


# Round trips over random shapes, types, strides and paddings --------------------------------

TYPES = [t for t in TensorDataType if t is not TensorDataType.UNKNOWN]


@st.composite
def layouts(draw, sizes, *, broadcast):
    """Strides for ``sizes``: a random dimension order, random padding, maybe broadcast dims."""
    order = draw(st.permutations(range(len(sizes))))
    strides = [0] * len(sizes)
    step = 1
    for dim in reversed(order):
        if broadcast and draw(st.booleans()):
            strides[dim] = 0
            continue
        strides[dim] = step + draw(st.integers(0, 2))
        step = strides[dim] * sizes[dim] + draw(st.integers(0, 3))
    return strides


@st.composite
def tensors(draw, data_type, sizes, *, broadcast=False):
    if draw(st.booleans()) and not broadcast:
        strides = None
    else:
        strides = draw(layouts(sizes, broadcast=broadcast))
    plain = TensorDesc(data_type, sizes, strides)
    extra = 4 * draw(st.integers(0, 2))
    return plain.replace(total_tensor_size_in_bytes=plain.total_tensor_size_in_bytes + extra)


@st.composite
def problems(draw, *, broadcast_parts):
    data_type = draw(st.sampled_from(TYPES))
    rank = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    axis = draw(st.integers(0, rank - 1))
    sizes[axis] = draw(st.integers(1, 7))
    cuts = (
        sorted(draw(st.sets(st.integers(1, sizes[axis] - 1), max_size=4)))
        if sizes[axis] > 1
        else []
    )
    lengths = [b - a for a, b in zip([0, *cuts], [*cuts, sizes[axis]], strict=True)]
    whole = draw(tensors(data_type, sizes))
    parts = [
        draw(tensors(data_type, [*sizes[:axis], n, *sizes[axis + 1 :]], broadcast=broadcast_parts))
        for n in lengths
    ]
    seed = draw(st.integers(0, 2**32 - 1))
    return whole, parts, axis, seed


def random_buffer(tensor, seed):
    return np.random.default_rng(seed).integers(
        0, 256, tensor.total_tensor_size_in_bytes, dtype=np.uint8
    )


def logical(tensor, buffer):
    return dml.read_tensor(tensor, buffer).tobytes()


def slices(axis, lengths):
    start = 0
    for n in lengths:
        yield (slice(None),) * axis + (slice(start, start + n),)
        start += n


@settings(max_examples=examples(150), deadline=None)
@given(problems(broadcast_parts=False))
def test_split_then_join_is_the_identity(problem):
    whole, parts, axis, seed = problem
    data = random_buffer(whole, seed)
    pieces = dml.run_split(SplitDesc(whole, parts, axis), data)
    # each piece is the NumPy slice of the logical input
    values = dml.read_tensor(whole, data)
    for part, piece, where in zip(
        parts, pieces, slices(axis, [p.sizes[axis] for p in parts]), strict=True
    ):
        assert dml.read_tensor(part, piece).tobytes() == values[where].tobytes()
    joined = dml.run_join(JoinDesc(parts, whole, axis), pieces)
    assert logical(whole, joined) == logical(whole, data)


@settings(max_examples=examples(150), deadline=None)
@given(problems(broadcast_parts=True))
def test_join_then_split_is_the_identity(problem):
    whole, parts, axis, seed = problem
    buffers = [random_buffer(p, seed + i) for i, p in enumerate(parts)]
    joined = dml.run_join(JoinDesc(parts, whole, axis), buffers)
    dense = [TensorDesc(p.data_type, p.sizes) for p in parts]  # outputs may not broadcast
    pieces = dml.run_split(SplitDesc(whole, dense, axis), joined)
    for part, buffer, desc, piece in zip(parts, buffers, dense, pieces, strict=True):
        assert logical(desc, piece) == logical(part, buffer)


@settings(max_examples=examples(100), deadline=None)
@given(problems(broadcast_parts=False))
def test_padding_of_outputs_is_left_as_it_was(problem):
    whole, parts, axis, seed = problem
    data = random_buffer(whole, seed)
    zeros = [np.zeros(p.total_tensor_size_in_bytes, np.uint8) for p in parts]
    ones = [np.full(p.total_tensor_size_in_bytes, 0xFF, np.uint8) for p in parts]
    desc = SplitDesc(whole, parts, axis)
    dml.run_split(desc, data, outputs=zeros)
    dml.run_split(desc, data, outputs=ones)
    for part, zero, one in zip(parts, zeros, ones, strict=True):
        a, b = zero, one
        if part.data_type.bits == 4:  # compare nibbles
            a = np.stack([zero & 0xF, zero >> 4], axis=-1).ravel()
            b = np.stack([one & 0xF, one >> 4], axis=-1).ravel()
            covered, high = math.prod(part.sizes), 0xF
        else:
            covered, high = math.prod(part.sizes) * part.data_type.bits // 8, 0xFF
        differ = a != b
        assert (a[differ] == 0).all()
        assert (b[differ] == high).all()
        assert differ.sum() == a.size - covered


# Buffers byte for byte against a straightforward reference ------------------------------
#
# The reference goes through the logical values: read_tensor, NumPy slicing, write_tensor
# (which unpacks 4-bit buffers whole, one nibble per byte). The runs must produce the same
# bytes, padding included, on every path: rows as bytes, 4-bit rows by parity class, many
# small blocks, and blocks on two threads.


def reference_split(desc, data, outputs):
    values = dml.read_tensor(desc.input, data)
    lengths = [t.sizes[desc.axis] for t in desc.outputs]
    for part, out, where in zip(desc.outputs, outputs, slices(desc.axis, lengths), strict=True):
        dml.write_tensor(part, values[where], out=out)


def reference_join(desc, buffers, output):
    values = dml.read_tensor(desc.output, output)
    lengths = [t.sizes[desc.axis] for t in desc.inputs]
    for part, buffer, where in zip(desc.inputs, buffers, slices(desc.axis, lengths), strict=True):
        values[where] = dml.read_tensor(part, buffer)
    dml.write_tensor(desc.output, values, out=output)


PATHS = [
    "as shipped",
    "parity classes",
    "parity classes, small blocks",
    "parity classes, small blocks, two threads",
    "numpy loops only",
    "row loop",
    "row loop, streaming, two threads",
]


@pytest.fixture(params=PATHS)
def paths(request):
    """Patch the thresholds so that small problems take every path.

    As shipped, small 4-bit copies unpack to a nibble per byte; the parity classes are for
    large ones, in blocks, on two threads when the blocks write apart. Where the compiled row
    loop was built, it takes whole-byte copies from a MiB on and 4-bit copies of one run per
    row instead of the parity classes.
    """
    with pytest.MonkeyPatch.context() as patch:
        if "parity classes" in request.param or "row loop" in request.param:
            patch.setattr(_nibbles, "_UNPACK_BELOW", 0)
        if "parity classes" in request.param:
            patch.setattr(_copy, "_kernels", None)
        if "small blocks" in request.param:
            patch.setattr(_nibbles, "_BLOCK_BYTES", 3)
        if "numpy loops only" in request.param:
            patch.setattr(_copy, "_kernels", None)
        if "row loop" in request.param:
            if _copy._kernels is None:
                pytest.skip("built without a C compiler")
            patch.setattr(_copy, "_KERNEL_MIN_BYTES", 0)
            patch.setattr(_copy, "_STREAM_MIN_BYTES", 0)
        if "two threads" in request.param:
            patch.setenv("DATAMOVE_NUM_THREADS", "2")
            patch.setattr(_nibbles, "PARALLEL_MIN_BYTES", 0)
            patch.setattr(_copy, "PARALLEL_MIN_BYTES", 0)
        yield request.param


# the patches are the same for every generated input
SAME_FIXTURE = [HealthCheck.function_scoped_fixture]


def check_against_reference(whole, parts, axis, seed):
    rng = np.random.default_rng(seed)
    data = random_buffer(whole, seed)
    split = SplitDesc(whole, parts, axis)
    start = [rng.integers(0, 256, p.total_tensor_size_in_bytes, dtype=np.uint8) for p in parts]
    got = dml.run_split(split, data, outputs=[b.copy() for b in start])
    want = [b.copy() for b in start]
    reference_split(split, data, want)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    join = JoinDesc(parts, whole, axis)
    buffers = [random_buffer(p, seed + 1 + i) for i, p in enumerate(parts)]
    got_joined = dml.run_join(join, buffers, output=data.copy())
    want_joined = data.copy()
    reference_join(join, buffers, want_joined)
    assert got_joined.tolist() == want_joined.tolist()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=SAME_FIXTURE)
@given(problem=problems(broadcast_parts=False))
def test_runs_match_the_reference_byte_for_byte(paths, problem):
    check_against_reference(*problem)


@st.composite
def four_bit_problems(draw):
    """4-bit splits with odd rows and odd split points, packed or padded, up to rank 4."""
    data_type = draw(st.sampled_from(["UINT4", "INT4"]))
    rank = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    axis = draw(st.integers(0, rank - 1))
    sizes[axis] = draw(st.integers(1, 23))
    sizes[-1] = draw(st.integers(1, 23)) if axis != rank - 1 else sizes[-1]
    cuts = (
        sorted(draw(st.sets(st.integers(1, sizes[axis] - 1), max_size=3)))
        if sizes[axis] > 1
        else []
    )
    lengths = [b - a for a, b in zip([0, *cuts], [*cuts, sizes[axis]], strict=True)]
    whole = draw(tensors(data_type, sizes))
    parts = [draw(tensors(data_type, [*sizes[:axis], n, *sizes[axis + 1 :]])) for n in lengths]
    return whole, parts, axis, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=SAME_FIXTURE)
@given(problem=four_bit_problems())
def test_four_bit_runs_match_the_reference_byte_for_byte(paths, problem):
    check_against_reference(*problem)


@pytest.mark.parametrize(
    ("sizes", "axis", "lengths"),
    [
        pytest.param([1000, 126], 1, [63, 63], id="rows of 63 into 2"),
        pytest.param([999, 7], 1, [1, 3, 3], id="rows of 7 into 1+3+3"),
        pytest.param([5, 333, 3], 1, [101, 232], id="odd middle axis"),
        pytest.param([4001], 0, [1, 2999, 1001], id="rank 1, odd offsets"),
        pytest.param([31, 33], 0, [11, 20], id="axis 0, odd rows"),
    ],
)
def test_four_bit_packed_cases_match_the_reference(paths, sizes, axis, lengths):
    whole = TensorDesc("UINT4", sizes)
    parts = [TensorDesc("UINT4", [*sizes[:axis], n, *sizes[axis + 1 :]]) for n in lengths]
    check_against_reference(whole, parts, axis, seed=7)


def element_at(data_type, buffer, index):
    """The bits of element ``index`` of a buffer, from its address alone (not read_tensor)."""
    bits = TensorDataType.parse(data_type).bits
    if bits == 4:
        return int(buffer[index // 2]) >> 4 * (index % 2) & 0xF
    return bytes(buffer[index * bits // 8 : (index + 1) * bits // 8])


def values_at(desc, buffer):
    """Every element of ``desc`` in ``buffer``, at sum(i * stride), as an array of objects."""
    rank = len(desc.sizes)
    strides = desc.strides or [math.prod(desc.sizes[d + 1 :]) for d in range(rank)]
    found = np.empty(math.prod(desc.sizes), object)
    for k, at in enumerate(itertools.product(*map(range, desc.sizes))):
        index = sum(i * n for i, n in zip(at, strides, strict=True))
        found[k] = element_at(desc.data_type, buffer, index)
    return found.reshape(desc.sizes)


@st.composite
def overlapping_layouts(draw):
    """A split's input, or a join's parts, of any strides: broadcast, interleaved, overlapping."""
    data_type = draw(st.sampled_from(TYPES))
    rank = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    axis = draw(st.integers(0, rank - 1))
    sizes[axis] = draw(st.integers(1, 7))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, sizes[axis] - 1)), max_size=3)))
    cuts = [c for c in cuts if c < sizes[axis]]
    lengths = [b - a for a, b in zip([0, *cuts], [*cuts, sizes[axis]], strict=True)]
    shapes = [[*sizes[:axis], n, *sizes[axis + 1 :]] for n in lengths]
    any_strides = st.lists(
        st.sampled_from([0, 1, 2, 3, 5, 7, 13, 64, 65]), min_size=rank, max_size=rank
    )
    whole = TensorDesc(data_type, sizes, draw(any_strides))
    parts = [TensorDesc(data_type, shape, draw(any_strides)) for shape in shapes]
    return whole, parts, axis, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=SAME_FIXTURE)
@given(problem=overlapping_layouts())
def test_inputs_of_any_strides_match_an_address_formula(paths, problem):
    # The round trips above take inputs of distinct addresses, and compare with read_tensor.
    # Here a split's input and a join's inputs have any strides, elements sharing addresses
    # included (inputs may alias), and every element is found from its address alone.
    whole, parts, axis, seed = problem
    data = random_buffer(whole, seed)
    packed = [TensorDesc(p.data_type, p.sizes) for p in parts]
    pieces = dml.run_split(SplitDesc(whole, packed, axis), data)
    values = values_at(whole, data)
    lengths = [p.sizes[axis] for p in parts]
    for part, piece, where in zip(packed, pieces, slices(axis, lengths), strict=True):
        assert values_at(part, piece).tolist() == values[where].tolist()
    buffers = [random_buffer(p, seed + 1 + i) for i, p in enumerate(parts)]
    output = TensorDesc(whole.data_type, whole.sizes)
    joined = dml.run_join(JoinDesc(parts, output, axis), buffers)
    blocks = [values_at(p, b) for p, b in zip(parts, buffers, strict=True)]
    assert values_at(output, joined).tolist() == np.concatenate(blocks, axis).tolist()


def test_four_bit_paths_are_taken_when_they_can_be(monkeypatch):
    monkeypatch.setattr(_nibbles, "_UNPACK_BELOW", 0)
    monkeypatch.setattr(_copy, "_kernels", None)  # NumPy's paths (the row loop: next test)
    calls = []
    for name in ("_copy_nibbles", "_copy_unpacked", "_copy_shifted"):
        real = getattr(_nibbles, name)
        monkeypatch.setattr(
            _nibbles, name, lambda *a, real=real, name=name: calls.append(name) or real(*a)
        )
    even = SplitDesc(TensorDesc("INT4", [3, 4]), [TensorDesc("INT4", [3, 2])] * 2, 1)
    check_against_reference(even.input, list(even.outputs), 1, seed=1)
    assert calls == []  # even offsets, strides and rows: moved as bytes
    odd = [TensorDesc("INT4", [3, 2]), TensorDesc("INT4", [3, 3])]
    check_against_reference(TensorDesc("INT4", [3, 5]), odd, 1, seed=2)
    assert "_copy_shifted" in calls
    assert "_copy_unpacked" not in calls
    calls.clear()
    # four dimensions with odd nibble strides that do not merge: unpacked, not 16 classes
    whole = TensorDesc("UINT4", [2, 2, 2, 2, 3], [211, 67, 23, 7, 1])
    parts = [TensorDesc("UINT4", [2, 2, 2, 2, 1]), TensorDesc("UINT4", [2, 2, 2, 2, 2])]
    check_against_reference(whole, parts, 4, seed=3)
    assert "_copy_unpacked" in calls


@pytest.mark.skipif(_copy._kernels is None, reason="built without a C compiler")
def test_four_bit_row_loop_is_taken_when_it_can_be(monkeypatch):
    monkeypatch.setattr(_nibbles, "_UNPACK_BELOW", 0)
    real = _copy._kernels
    calls = []

    class Counting:
        ATOMIC_NIBBLES = real.ATOMIC_NIBBLES

        @staticmethod
        def copy_nibble_rows(parts, row0, row1):
            calls.append((len(parts), row0, row1))
            real.copy_nibble_rows(parts, row0, row1)

    monkeypatch.setattr(_copy, "_kernels", Counting)
    odd = [TensorDesc("INT4", [3, 2]), TensorDesc("INT4", [3, 3])]
    check_against_reference(TensorDesc("INT4", [3, 5]), odd, 1, seed=2)
    assert calls == [(2, 0, 3), (2, 0, 3)]  # the split, then the join: 3 rows of 2 parts
    calls.clear()
    # rows that do not merge into one axis: NumPy's parity classes
    whole = TensorDesc("UINT4", [2, 2, 2, 2, 3], [211, 67, 23, 7, 1])
    parts = [TensorDesc("UINT4", [2, 2, 2, 2, 1]), TensorDesc("UINT4", [2, 2, 2, 2, 2])]
    check_against_reference(whole, parts, 4, seed=3)
    assert calls == []


@pytest.mark.skipif(_copy._kernels is None, reason="built without a C compiler")
def test_four_bit_row_loop_edges_from_two_threads():
    # Rows of 5 nibbles: every row starts and ends mid-byte, in bytes shared with its
    # neighbours, which the other thread writes at the same time.
    kernels = _copy._kernels
    rng = np.random.default_rng(11)
    rows, run = 20001, 5
    src = rng.integers(0, 256, rows * run // 2 + 1, dtype=np.uint8)
    for offset in (0, 1):
        dst = np.zeros(rows * run // 2 + 2, np.uint8)
        parts = [(dst.ctypes.data, offset, run, src.ctypes.data, 1, run, run)]
        ranges = [(a, min(a + 97, rows)) for a in range(0, rows, 97)]  # many shared edges
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda r, p=parts: kernels.copy_nibble_rows(p, *r), ranges))
        nibbles = np.stack([src & 15, src >> 4], axis=1).reshape(-1)
        got = np.stack([dst & 15, dst >> 4], axis=1).reshape(-1)
        assert got[offset : offset + rows * run].tolist() == nibbles[1 : 1 + rows * run].tolist()


def _unpack(buf):
    return np.stack([buf & 15, buf >> 4], axis=1).reshape(-1)


@pytest.mark.skipif(_copy._kernels is None, reason="built without a C compiler")
@settings(max_examples=examples(300), deadline=None)
@given(
    kind=st.sampled_from(["split", "join", "packed join", "gappy"]),
    runs=st.lists(st.integers(1, 140), min_size=1, max_size=4),
    rows=st.integers(1, 40),
    offsets=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    seed=st.integers(0, 2**16),
)
def test_four_bit_row_loop_streams_and_rows_match_a_reference(
    kind, runs, rows, offsets, cuts, seed
):
    # copy_nibble_rows writes each destination as a stream where it can (a split into packed
    # outputs, a join into a packed output: from one source or, as run_join has them, from a
    # packed source per part) and row by row elsewhere ("gappy": rows with gaps).
    # Streams of runs up to 127 nibbles go as whole vectors inside a call's rows (1 to 4 of 16
    # bytes each, so runs reach past 127 here), the edge rows byte by byte.
    # Row ranges are cut at random, as between threads; nibbles around the copies are kept.
    kernels = _copy._kernels
    rng = np.random.default_rng(seed)
    total = sum(runs)
    src_stride = total + offsets[1] % 2

    def source(nibbles):  # no spare bytes: under `make sanitize`, a read past them is caught
        return rng.integers(0, 256, (offsets[1] + nibbles) // 2 + 1, dtype=np.uint8)

    if kind == "packed join":  # each part from its own packed source, as run_join has them
        srcs = [source(rows * r) for r in runs]
        sources = [(s, offsets[1], r) for s, r in zip(srcs, runs, strict=True)]
    else:  # every part from one source, its rows side by side
        srcs = [source(rows * src_stride)]
        sources = [(srcs[0], offsets[1] + sum(runs[:k]), src_stride) for k in range(len(runs))]
    if kind in ("join", "packed join"):
        dsts = [rng.integers(0, 256, (offsets[0] + rows * total) // 2 + 8, dtype=np.uint8)]
        places = [(dsts[0], offsets[0] + sum(runs[:k]), total) for k in range(len(runs))]
    else:
        step = [r + (3 if kind == "gappy" else 0) for r in runs]
        dsts = [
            rng.integers(0, 256, (offsets[0] + rows * d) // 2 + 8, dtype=np.uint8) for d in step
        ]
        places = [(d, offsets[0], t) for d, t in zip(dsts, step, strict=True)]
    parts = [
        (d.ctypes.data, d_first, d_stride, s.ctypes.data, s_first, s_stride, r)
        for (d, d_first, d_stride), (s, s_first, s_stride), r in zip(
            places, sources, runs, strict=True
        )
    ]
    expect = [_unpack(d) for d in dsts]
    for (d, d_first, d_stride), (s, s_first, s_stride), run in zip(
        places, sources, runs, strict=True
    ):
        k = next(j for j, x in enumerate(dsts) if x is d)
        nibbles = _unpack(s)
        for i in range(rows):
            a, b = d_first + i * d_stride, s_first + i * s_stride
            expect[k][a : a + run] = nibbles[b : b + run]
    bounds = sorted({0, rows, *(c % (rows + 1) for c in cuts)})
    for row0, row1 in itertools.pairwise(bounds):
        kernels.copy_nibble_rows(parts, row0, row1)
    assert [_unpack(d).tolist() for d in dsts] == [e.tolist() for e in expect]


@pytest.mark.skipif(
    _copy._kernels is None or not _copy._kernels.SHUFFLE, reason="no shuffle programs here"
)
@pytest.mark.parametrize(
    ("dtype", "width", "parts", "program"),
    [
        ("UINT8", 7, 7, 0),  # 1-byte runs in rows of up to 16 bytes: a dense program
        ("UINT8", 9, 3, 0),
        ("UINT8", 20, 20, 1),  # wider rows: a sparse program
        ("UINT4", 30, 2, 3),  # 15-nibble runs (part 1 starts mid-byte in every row): slots
        ("UINT4", 26, 2, 3),  # 13-nibble runs: slots
        ("UINT4", 9, 3, 2),  # runs of 3 nibbles: a sparse program
        ("UINT4", 42, 2, 2),  # runs of 21 nibbles: a sparse program, in calls of 512 KiB or more
        ("UINT4", 6, 3, 0),  # runs of 2 nibbles are whole bytes: the bytes program
        ("UINT4", 126, 2, None),  # 63-nibble runs: the row loops
        ("UINT8", 64, 8, None),  # 8-byte runs: the row loops
    ],
)
def test_short_runs_take_the_shuffle_program_meant_for_them(dtype, width, parts, program):
    # Which path a layout takes decides its speed, not its result, so a wrong routing passes
    # every other test: a split of 15-nibble runs once missed its program because part 1 starts
    # mid-byte. Each call here moves 2 MiB (at least 128 KiB per thread) and must run the
    # program meant for it, once for each direction, and give NumPy's result.
    kernels = _copy._kernels
    rng = np.random.default_rng(width)
    nibbles = dtype == "UINT4"
    rows = (2 << 20) * (2 if nibbles else 1) // width
    whole = TensorDesc(dtype, [rows, width])
    desc = SplitDesc(whole, [TensorDesc(dtype, [rows, width // parts])] * parts, 1)
    data = rng.integers(0, 256, whole.total_tensor_size_in_bytes, dtype=np.uint8)
    before = kernels.shuffle_counts()
    outs = dml.run_split(desc, data)
    back = dml.run_join(JoinDesc(desc.outputs, whole, 1), outs)
    after = kernels.shuffle_counts()
    ran = [b - a for a, b in zip(before, after, strict=True)]
    if program is None:
        assert ran == [0] * len(ran)
    else:
        assert ran[program] >= 2
        assert sum(ran) == ran[program]
    grid = _unpack(data)[: rows * width] if nibbles else data[: rows * width]
    np.testing.assert_array_equal(
        _unpack(back)[: grid.size] if nibbles else back[: grid.size], grid
    )
    for k, out in enumerate(outs):
        got = _unpack(out)[: grid.size // parts] if nibbles else out[: grid.size // parts]
        want = grid.reshape(rows, width)[:, k * (width // parts) : (k + 1) * (width // parts)]
        np.testing.assert_array_equal(got, want.ravel())


def _nibble_call(kind, runs, rows, offsets, rng):
    """copy_nibble_rows parts of a split (packed rows into packed outputs) or a join (packed
    sources into packed rows) with random bytes everywhere, and the buffers it should leave."""
    width = sum(runs)
    at = np.cumsum([0, *runs])
    d0, s0 = offsets

    def buffer(nibbles, first):  # no spare source bytes: make sanitize catches a read past
        return rng.integers(0, 256, (first + nibbles + 1) // 2, dtype=np.uint8)

    if kind == "split":
        src = buffer(rows * width, s0)
        whole = _unpack(src)[s0 : s0 + rows * width].reshape(rows, width)
        dsts = [buffer(rows * r, d0) for r in runs]
        want = [_unpack(d) for d in dsts]
        for k, r in enumerate(runs):
            want[k][d0 : d0 + rows * r] = whole[:, at[k] : at[k + 1]].ravel()
        parts = [
            (d.ctypes.data, d0, r, src.ctypes.data, s0 + int(at[k]), width, r)
            for k, (d, r) in enumerate(zip(dsts, runs, strict=True))
        ]
        return parts, [src], dsts, want
    srcs = [buffer(rows * r, s0) for r in runs]
    pieces = [
        _unpack(x)[s0 : s0 + rows * r].reshape(rows, r) for x, r in zip(srcs, runs, strict=True)
    ]
    dsts = [buffer(rows * width, d0)]
    want = [_unpack(dsts[0])]
    want[0][d0 : d0 + rows * width] = np.concatenate(pieces, axis=1).ravel()
    parts = [
        (dsts[0].ctypes.data, d0 + int(at[k]), width, x.ctypes.data, s0, r, r)
        for k, (x, r) in enumerate(zip(srcs, runs, strict=True))
    ]
    return parts, srcs, dsts, want


@pytest.mark.skipif(_copy._kernels is None, reason="built without a C compiler")
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["split", "join"]),
    runs=st.lists(st.integers(1, 31), min_size=2, max_size=6).filter(lambda r: sum(r) <= 64),
    extra=st.integers(0, 300),
    offsets=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    cut=st.floats(0, 1),
    seed=st.integers(0, 2**16),
)
def test_four_bit_shuffle_programs_match_a_reference(kind, runs, extra, offsets, cut, seed):
    # Runs shorter than 32 nibbles, rows of up to 64, in calls of 128 KiB or more, go as
    # shuffle programs where the CPU has AVX-512 VBMI: 128 rows at a time from the first row
    # where every stream starts on a whole byte (row0 or row0 + 1; none when a stream with an
    # even run starts mid-byte; a part's place inside the rows may be mid-byte), the rows
    # around them by the stream loops. Calls are cut at a
    # random row, as between two threads; nibbles around the copies are kept.
    kernels = _copy._kernels
    rng = np.random.default_rng(seed)
    # runs of 17 nibbles or more take programs only in calls of 512 KiB or more
    rows = 2 * ((256 << 10) if min(runs) < 17 else (1 << 20)) // sum(runs) + extra
    parts, keep, dsts, want = _nibble_call(kind, runs, rows, offsets, rng)
    middle = int(cut * rows)
    for row0, row1 in ((0, middle), (middle, rows)):
        kernels.copy_nibble_rows(parts, row0, row1)
    del keep
    for got, expect in zip(dsts, want, strict=True):
        np.testing.assert_array_equal(_unpack(got), expect)


@pytest.mark.skipif(
    _copy._kernels is None or not _copy._kernels.SHUFFLE, reason="no shuffle programs here"
)
@pytest.mark.parametrize(
    ("runs", "kib", "program"),
    [([21, 21], 256, False), ([21, 21], 640, True), ([16, 16], 256, True), ([3, 3, 3], 256, True)],
)
def test_long_four_bit_runs_take_programs_only_in_large_calls(runs, kib, program):
    # Building a sparse program costs 20-30 us; the stream loops copy runs of 17-31 nibbles
    # faster than that in calls under 512 KiB (DM_SPARSE_NIBBLE_MIN_BYTES), shorter runs not.
    kernels = _copy._kernels
    rows = (kib << 11) // sum(runs)
    parts, keep, dsts, want = _nibble_call("split", runs, rows, (0, 0), np.random.default_rng(5))
    before = kernels.shuffle_counts()
    kernels.copy_nibble_rows(parts, 0, rows)
    ran = [b - a for a, b in zip(before, kernels.shuffle_counts(), strict=True)]
    del keep
    for got, expect in zip(dsts, want, strict=True):
        np.testing.assert_array_equal(_unpack(got), expect)
    assert sum(ran) == (1 if program else 0)


SLOTS = 3  # shuffle_counts(): dense, sparse on bytes, sparse on nibbles, slots, line splits


@pytest.mark.skipif(
    _copy._kernels is None or not _copy._kernels.SHUFFLE, reason="no shuffle programs here"
)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["split", "join"]),
    runs=st.lists(st.integers(11, 15), min_size=2, max_size=5).filter(lambda r: sum(r) <= 60),
    extra=st.integers(0, 300),
    offsets=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    cut=st.floats(0.3, 0.7),
    seed=st.integers(0, 2**16),
)
@example(kind="split", runs=[15, 15], extra=0, offsets=(1, 3), cut=0.5, seed=1)
@example(kind="join", runs=[15, 15], extra=77, offsets=(2, 1), cut=0.3, seed=2)
@example(kind="split", runs=[15, 15, 15, 15], extra=5, offsets=(0, 1), cut=0.7, seed=3)
@example(kind="join", runs=[12, 13], extra=1, offsets=(2, 2), cut=0.6, seed=4)
def test_four_bit_slot_programs_match_a_reference(kind, runs, extra, offsets, cut, seed):
    # Runs of 11 to 15 nibbles in rows of up to 60 take slot programs where the CPU has
    # AVX-512 VBMI (splits; joins of two parts in rows of up to 30): blocks of 8 rows (4 in
    # rows wider than 30), in groups that make whole 64-byte vectors of every destination, from
    # the first row where every stream starts on a whole byte. Two calls, as two threads have
    # them, each of at least 128 KiB; nibbles around the copies are kept. Which program ran is
    # part of the check: a layout that fell back to another would pass on values alone.
    kernels = _copy._kernels
    rng = np.random.default_rng(seed)
    rows = (3 << 20) // sum(runs) + extra  # 1.5 MiB: a call of 0.3 of it is over 128 KiB
    parts, keep, dsts, want = _nibble_call(kind, runs, rows, offsets, rng)
    middle = int(cut * rows)
    before = kernels.shuffle_counts()
    for row0, row1 in ((0, middle), (middle, rows)):
        kernels.copy_nibble_rows(parts, row0, row1)
    ran = [b - a for a, b in zip(before, kernels.shuffle_counts(), strict=True)]
    del keep
    for got, expect in zip(dsts, want, strict=True):
        np.testing.assert_array_equal(_unpack(got), expect)
    # A program starts at row0 or row0 + 1, where every stream starts on a whole byte: the
    # rows of the packed side and each part's packed stream.
    d0, s0 = offsets
    rows_first, part_first = (s0, d0) if kind == "split" else (d0, s0)
    calls = sum(
        any(
            (rows_first + r * sum(runs)) % 2 == 0
            and all((part_first + r * n) % 2 == 0 for n in runs)
            for r in (row0, row0 + 1)
        )
        for row0 in (0, middle)
    )
    if kind == "split" or (len(runs) == 2 and sum(runs) <= 30):
        assert ran[SLOTS] == calls
        assert sum(ran) == calls


@pytest.mark.skipif(
    _copy._kernels is None or not _copy._kernels.SHUFFLE, reason="no shuffle programs here"
)
@pytest.mark.parametrize("kind", ["split", "join"])
def test_four_bit_slot_programs_stream_large_calls(kind):
    # Calls of 16 MiB or more write whole 64-byte lines with streaming stores, carrying bytes
    # between lines where a destination does not start on one (here: 5 bytes past it).
    kernels = _copy._kernels
    rng = np.random.default_rng(7)
    runs = [15, 15]
    rows = (17 << 21) // sum(runs)  # 17 MiB of rows in one call
    parts, keep, dsts, want = _nibble_call(kind, runs, rows, (10, 0), rng)
    before = kernels.shuffle_counts()[SLOTS]
    kernels.copy_nibble_rows(parts, 0, rows)
    assert kernels.shuffle_counts()[SLOTS] == before + 1
    del keep
    for got, expect in zip(dsts, want, strict=True):
        np.testing.assert_array_equal(_unpack(got), expect)


def test_aliasing_outputs_are_written_by_one_thread(monkeypatch):
    monkeypatch.setattr(_nibbles, "_UNPACK_BELOW", 0)
    monkeypatch.setattr(_copy, "_kernels", None)  # the parity classes' threads
    monkeypatch.setenv("DATAMOVE_NUM_THREADS", "2")
    monkeypatch.setattr(_nibbles, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(_nibbles, "_BLOCK_BYTES", 3)
    threads = []
    real = _nibbles.share_rows
    monkeypatch.setattr(
        _nibbles, "share_rows", lambda call, n, t: threads.append(t) or real(call, n, t)
    )
    whole = TensorDesc("UINT4", [64, 9])
    parts = [TensorDesc("UINT4", [64, 4]), TensorDesc("UINT4", [64, 5])]
    check_against_reference(whole, parts, 1, seed=4)
    assert threads  # blocks on two threads
    threads.clear()
    aliased = TensorDesc("UINT4", [64, 5], [0, 1])  # every row at one address
    options = dml.ValidationOptions(reject_output_aliasing=False)
    desc = SplitDesc(whole, [parts[0], aliased], 1)
    dml.run_split(desc, random_buffer(whole, 5), options=options)
    assert threads == []


def test_a_join_into_a_layout_the_stride_test_cannot_prove_apart_copies_in_order():
    # sizes [3, 2] with strides [2, 3] hold elements 0, 3, 2, 5, 4 and 7: apart, but not by the
    # sorted-strides test, so no threads: the plan copies part by part on one thread.
    whole = TensorDesc("UINT16", [3, 2], strides=[2, 3])
    assert not whole.provably_disjoint
    parts = [TensorDesc("UINT16", [1, 2]), TensorDesc("UINT16", [2, 2])]
    values = ([[1, 2]], [[3, 4], [5, 6]])
    inputs = [dml.write_tensor(p, v) for p, v in zip(parts, values, strict=True)]
    out = np.full(whole.total_tensor_size_in_bytes, 0xFF, np.uint8)
    dml.run_join(JoinDesc(parts, whole, 0), inputs, output=out)
    assert dml.read_tensor(whole, out).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert out.view(np.uint16).tolist()[:8] == [1, 0xFFFF, 3, 2, 5, 4, 0xFFFF, 6]
    split = dml.run_split(SplitDesc(whole, parts, 0), out)  # and back, from that layout
    got = [dml.read_tensor(p, b).tolist() for p, b in zip(parts, split, strict=True)]
    assert got == [list(v) for v in values]
