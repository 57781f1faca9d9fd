"""Running split and join over byte buffers: the spec's examples, round trips, layouts, 4-bit."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove
import datamove.directml as dml
from datamove.directml import JoinDesc, SplitDesc, TensorDataType, TensorDesc, _execute

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
        pytest.param(lambda: dml.split(Z23, 2, [3]), datamove.AxisError, "axis", id="axis"),
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


@settings(max_examples=150, deadline=None)
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


@settings(max_examples=150, deadline=None)
@given(problems(broadcast_parts=True))
def test_join_then_split_is_the_identity(problem):
    whole, parts, axis, seed = problem
    buffers = [random_buffer(p, seed + i) for i, p in enumerate(parts)]
    joined = dml.run_join(JoinDesc(parts, whole, axis), buffers)
    dense = [TensorDesc(p.data_type, p.sizes) for p in parts]  # outputs may not broadcast
    pieces = dml.run_split(SplitDesc(whole, dense, axis), joined)
    for part, buffer, desc, piece in zip(parts, buffers, dense, pieces, strict=True):
        assert logical(desc, piece) == logical(part, buffer)


@settings(max_examples=100, deadline=None)
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


@settings(max_examples=100, deadline=None)
@given(problems(broadcast_parts=False))
def test_four_bit_byte_fast_path_agrees_with_nibbles(problem):
    whole, parts, axis, seed = problem
    whole = whole.replace(data_type="UINT4")
    parts = [p.replace(data_type="UINT4") for p in parts]
    data = random_buffer(whole, seed)
    desc = SplitDesc(whole, parts, axis)
    fast = dml.run_split(
        desc, data, outputs=[np.full(p.total_tensor_size_in_bytes, 0x5A, np.uint8) for p in parts]
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_execute, "_byte_forms", lambda _tensors: None)
        slow = dml.run_split(
            desc,
            data,
            outputs=[np.full(p.total_tensor_size_in_bytes, 0x5A, np.uint8) for p in parts],
        )
    assert [f.tolist() for f in fast] == [s.tolist() for s in slow]


def test_four_bit_byte_fast_path_is_taken_when_it_can_be():
    even = [TensorDesc("INT4", [3, 4]), TensorDesc("INT4", [3, 2], [4, 1])]
    assert [t.sizes for t in _execute._byte_forms(even)] == [(3, 2), (3, 1)]
    assert _execute._byte_forms([TensorDesc("INT4", [3, 3])]) is None
    assert _execute._byte_forms([TensorDesc("INT4", [3, 2], [3, 1])]) is None
    values = np.array([[-8, 1, 2, 3], [4, 5, 6, 7], [-1, -2, -3, -4]], np.int8)
    whole = TensorDesc("INT4", [3, 4])
    desc = SplitDesc(whole, [TensorDesc("INT4", [3, 2])] * 2, 1)
    left, right = (
        dml.read_tensor(t, b)
        for t, b in zip(
            desc.outputs, dml.run_split(desc, dml.write_tensor(whole, values)), strict=True
        )
    )
    assert left.tolist() == values[:, :2].tolist()
    assert right.tolist() == values[:, 2:].tolist()
