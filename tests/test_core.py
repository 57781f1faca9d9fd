"""Core operators: spec examples, values, copies, element types, threads, imports.

The value and shape tests run over the ``xp`` fixture (every installed array library, data of
32-bit types that each of them holds as is); what only NumPy has (``np.shares_memory``, flags,
every element type, array-likes) and the cache properties run on NumPy.
"""

from __future__ import annotations

import array
import contextlib
import gc
import importlib
import inspect
import os
import pickle
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove import _dialect_memo, _memo, _plan
from datamove._shape import MAX_LENGTH
from datamove.cli import main
from datamove.cli._examples import EXAMPLES
from forking import fork_holding
from strategies import examples

try:
    from datamove import _kernels as kernels
except ImportError:  # pragma: no cover - built without a C compiler
    kernels = None


def _back(xp, x, got):
    """``got`` (an output of an operator on ``x``) as NumPy, checking it is of ``x``'s library."""
    assert type(got) is type(x), (type(got), type(x))
    return xp.to_numpy(got)


# -- the specs' examples -------------------------------------------------------------------------
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_spec_example(example, xp):
    data = np.arange(int(np.prod(example.shape)), dtype=np.float32).reshape(example.shape)
    x = xp.asarray(data)
    executed = tuple(tuple(r.shape) for r in example.execute(x))
    inferred = tuple(p.to_shape() for p in example.infer(example.shape))
    assert executed == example.expected
    assert inferred == example.expected


def test_the_examples_command_prints_each_example_through_both_faces(capsys):
    # `datamove examples` as text: only a closed-pipe test ran it, and stopped at its first line.
    assert main(["examples"]) == 0
    out = capsys.readouterr().out
    for example in EXAMPLES:
        assert f"{example.name}   ({example.source})\n" in out
        assert f"  call      : {example.call}\n" in out
    assert "  spec      : 3 x [6,4,10,24]\n  inferred  : 3 x [6,4,10,24]\n" in out  # one shape
    assert "  spec      : [4,12,10,24], [2,12,10,24]\n" in out  # several
    assert out.count("  verdict   : ok") == len(EXAMPLES)
    assert out.endswith(
        f"{len(EXAMPLES)} of {len(EXAMPLES)} spec examples agree with the specs: all agree\n"
    )


def test_split_spec_example_values(xp):
    # Split-1.en.txt: [6,12,10,24] into 3 along axis 1: consecutive blocks of 4.
    a = np.arange(6 * 12 * 10 * 24, dtype=np.int32).reshape(6, 12, 10, 24)
    x = xp.asarray(a)
    parts = dm.split(x, 1, 3)
    for k, part in enumerate(parts):
        np.testing.assert_array_equal(_back(xp, x, part), a[:, 4 * k : 4 * (k + 1)])


def test_variadic_split_spec_example_values(xp):
    a = np.arange(6 * 12 * 10 * 24, dtype=np.int32).reshape(6, 12, 10, 24)
    x = xp.asarray(a)
    first, second, third = dm.variadic_split(x, 0, [1, 2, 3])
    np.testing.assert_array_equal(_back(xp, x, first), a[:1])
    np.testing.assert_array_equal(_back(xp, x, second), a[1:3])
    np.testing.assert_array_equal(_back(xp, x, third), a[3:])
    first, second = dm.variadic_split(x, 0, [-1, 2])
    np.testing.assert_array_equal(_back(xp, x, first), a[:4])
    np.testing.assert_array_equal(_back(xp, x, second), a[4:])


def test_strided_slice_spec_example_values(xp):
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = xp.asarray(a)
    got = dm.strided_slice(
        x, [1, 0, 0], [0, 0, 2], [1, 1, 1], begin_mask=[0, 1, 1], end_mask=[1, 1, 0]
    )
    np.testing.assert_array_equal(_back(xp, x, got), a[1:, :, :2])


# -- OpenVINO's rules that differ from NumPy (research §2.3, observed on the runtime) ------------
A6 = np.arange(6, dtype=np.int32)


@pytest.mark.parametrize(
    ("begin", "end", "stride", "masks", "expected"),
    [
        pytest.param(1, 5, 2, {}, [1, 3], id="1:5:2"),
        pytest.param(5, 0, -2, {}, [5, 3, 1], id="5:0:-2"),
        pytest.param(-1, -7, -1, {}, [5, 4, 3, 2, 1, 0], id="-1:-7:-1"),
        pytest.param(100, -100, -3, {}, [5, 2], id="100:-100:-3"),
        pytest.param(-100, -200, -1, {}, [0], id="-100:-200:-1 starts at 0 (numpy: empty)"),
        pytest.param(-7, -8, -1, {}, [0], id="-7:-8:-1 (numpy: empty)"),
        pytest.param(0, -100, -1, {}, [0], id="0:-100:-1"),
        pytest.param(3, 0, -1, {"end_mask": [1]}, [3, 2, 1, 0], id="3::-1 through index 0"),
        pytest.param(0, 3, -1, {"begin_mask": [1]}, [5, 4], id="::3:-1 from the end"),
        pytest.param(4, 0, -2, {"end_mask": [1]}, [4, 2, 0], id="4::-2"),
        pytest.param(1, 6, 10, {}, [1], id="1:6:10"),
        pytest.param(-(2**63), 2**63 - 1, 1, {}, [0, 1, 2, 3, 4, 5], id="INT64_MIN:INT64_MAX"),
        pytest.param(2**63 - 1, -(2**63), -1, {}, [5, 4, 3, 2, 1, 0], id="INT64_MAX:INT64_MIN:-1"),
        pytest.param(0, 6, 2**63 - 1, {}, [0], id="stride INT64_MAX"),
        pytest.param(5, -7, -(2**63), {}, [5], id="stride INT64_MIN"),
        pytest.param(2, 2, 1, {}, [], id="2:2 empty"),
        pytest.param(7, 9, -1, {}, [], id="7:9:-1 empty"),
    ],
)
def test_one_axis_clamping(begin, end, stride, masks, expected, xp):
    x = xp.asarray(A6)
    got = dm.strided_slice(x, [begin], [end], [stride], **masks)
    assert _back(xp, x, got).tolist() == expected
    assert dm.infer_strided_slice([6], [begin], [end], [stride], **masks).to_shape() == (
        len(expected),
    )


@pytest.mark.parametrize(
    ("kwargs", "shape", "values"),
    [
        pytest.param(
            dict(
                begin=[1, 0],
                end=[0, 0],
                stride=[1, 1],
                new_axis_mask=[0, 1, 0],
                shrink_axis_mask=[1, 0, 0],
            ),
            (1, 3, 4),
            list(range(12, 24)),
            id="nm=010 sm=100",
        ),
        pytest.param(
            dict(
                begin=[-1, -1, 0],
                end=[0, 0, 0],
                new_axis_mask=[0, 0, 1],
                shrink_axis_mask=[1, 1, 0],
            ),
            (1, 4),
            [20, 21, 22, 23],
            id="no stride, nm=001 sm=110",
        ),
        pytest.param(
            dict(begin=[1, 0, 2], end=[2, 0, 3], ellipsis_mask=[0, 1, 0]),
            (1, 3, 1),
            [14, 18, 22],
            id="[1:2, ..., 2:3]",
        ),
        pytest.param(
            dict(begin=[0, 1], end=[0, 2], ellipsis_mask=[1, 0]),
            (2, 3, 1),
            [1, 5, 9, 13, 17, 21],
            id="[..., 1:2]",
        ),
        pytest.param(
            dict(begin=[1, 1, 0, 2], end=[2, 2, 0, 3], ellipsis_mask=[0, 0, 1, 0]),
            (1, 1, 1),
            [18],
            id="ellipsis covering no axis",
        ),
        pytest.param(
            dict(
                begin=[1, 0, -1], end=[0, 0, 0], shrink_axis_mask=[1, 0, 1], ellipsis_mask=[0, 1, 0]
            ),
            (3,),
            [15, 19, 23],
            id="[1, ..., -1]",
        ),
        pytest.param(
            dict(begin=[0, 0, 0], end=[0, 0, 0], new_axis_mask=[1, 0, 1], ellipsis_mask=[0, 1, 0]),
            (1, 2, 3, 4, 1),
            None,
            id="[None, ..., None]",
        ),
        pytest.param(
            dict(
                begin=[0, 0, 0],
                end=[0, 0, 0],
                ellipsis_mask=[1, 0, 0],
                new_axis_mask=[0, 1, 0],
                shrink_axis_mask=[0, 0, 1],
            ),
            (2, 3, 1),
            [0, 4, 8, 12, 16, 20],
            id="[..., None, 0]",
        ),
        pytest.param(
            dict(begin=[1, 2, 3], end=[0, 0, 0], shrink_axis_mask=[1, 1, 1]),
            (),
            [23],
            id="shrink every axis gives a 0-d array",
        ),
        pytest.param(
            dict(begin=[1, 1, 1], end=[2, 2, 2], begin_mask=[1], end_mask=[1]),
            (2, 1, 1),
            [5, 17],
            id="masks shorter than begin are zero-padded",
        ),
        pytest.param(
            dict(
                begin=[1],
                end=[2],
                new_axis_mask=[0, 1, 1, 1, 1],
                shrink_axis_mask=[0, 1],
                ellipsis_mask=[0, 0, 1],
            ),
            (1, 3, 4),
            None,
            id="bits beyond len(begin) are ignored",
        ),
        pytest.param(
            dict(begin=[1, -2, -1], end=[2, 0, -5], stride=[1, -1, -1], end_mask=[0, 1, 0]),
            (1, 2, 4),
            [19, 18, 17, 16, 15, 14, 13, 12],
            id="negative strides with end_mask",
        ),
        pytest.param(
            dict(
                begin=[1, 0, 3, 0],
                end=[0, 0, 0, 0],
                stride=[1, 1, -2, 1],
                new_axis_mask=[0, 1, 0, 0],
                shrink_axis_mask=[1, 0, 0, 0],
                end_mask=[0, 0, 1, 0],
            ),
            (1, 2, 0),
            None,
            id="nm=0100 sm=1000",
        ),
    ],
)
def test_multi_axis(kwargs, shape, values, xp):
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = xp.asarray(a)
    got = _back(xp, x, dm.strided_slice(x, **kwargs))
    assert isinstance(got, np.ndarray)
    assert got.shape == shape
    if values is not None:
        assert got.ravel().tolist() == values
    assert dm.infer_strided_slice(a.shape, **kwargs).to_shape() == shape


def test_new_axis_beats_shrink_on_the_same_index(xp):
    x = xp.asarray(A6)
    got = dm.strided_slice(x, [3, 1], [0, 2], new_axis_mask=[1, 0], shrink_axis_mask=[1, 0])
    assert _back(xp, x, got).tolist() == [[1]]


@pytest.mark.parametrize(
    "masks",
    [
        pytest.param(dict(ellipsis_mask=[1], new_axis_mask=[1]), id="ellipsis+new same index"),
        pytest.param(
            dict(ellipsis_mask=[1], shrink_axis_mask=[1]), id="ellipsis+shrink same index"
        ),
    ],
)
def test_ellipsis_wins_on_the_same_index(masks, xp):
    # OpenVINO's shape inference lets the ellipsis win; its CPU plugin aborts on the first case.
    x = xp.asarray(A6)
    got = dm.strided_slice(x, [0], [0], **masks)
    assert _back(xp, x, got).tolist() == A6.tolist()
    assert dm.infer_strided_slice([6], [0], [0], **masks).to_shape() == (6,)


def test_ellipsis_wins_on_the_same_index_issue_23_witness(xp):
    # OpenVINO's CPU plugin aborts on this input and its evaluate can corrupt its heap
    # (docs/semantics.md, divergence 5; test_differential_openvino.py skips it there). As the spec
    # reads it, and as OpenVINO's shape inference says: the ellipsis wins index 1 and covers no
    # axis (indices 0, 2, 3 address the 3 axes); axis 0 [4:4] has 0 elements, axis 1 [8:6]
    # clamps to [4:4], 0 elements; axis 2 [8:-2:-2] on size 1 runs from 0 down to -1: 1 element.
    args = ([4, 5, 8, 8], [4, -2, 6, -2], [1, 1, 1, -2])
    masks = dict(new_axis_mask=[0, 1, 0, 0], ellipsis_mask=[0, 1, 0, 0])
    data = np.zeros((0, 4, 1), np.int8)
    assert str(dm.infer_strided_slice(data.shape, *args, **masks)) == "[0,0,1]"
    x = xp.asarray(data)
    got = _back(xp, x, dm.strided_slice(x, *args, **masks))
    assert (got.shape, got.dtype) == ((0, 0, 1), np.int8)
    # The same slice of data with elements: [1:2, ..., 1:3, 8:-3:-2] on shape (2, 4, 3).
    a = np.arange(24, dtype=np.int8).reshape(2, 4, 3)
    x = xp.asarray(a)
    args = ([1, 5, 1, 8], [2, -2, 3, -3], [1, 1, 1, -2])
    assert str(dm.infer_strided_slice(a.shape, *args, **masks)) == "[1,2,1]"
    got = _back(xp, x, dm.strided_slice(x, *args, **masks))
    assert got.tolist() == a[1:2, ..., 1:3, 8:-3:-2].tolist() == [[[17], [20]]]


def test_zero_stride_on_new_and_shrink_axes(xp):
    x = xp.asarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    a6 = xp.asarray(A6)
    assert _back(xp, a6, dm.strided_slice(a6, [2], [0], [0], shrink_axis_mask=[1])).tolist() == 2
    assert tuple(
        dm.strided_slice(x, [0, 0], [0, 0], [0, 1], new_axis_mask=[1, 0], end_mask=[0, 1]).shape
    ) == (1, 2, 3, 4)


def test_zero_size_and_scalar_data(xp):
    def shape(got):
        return tuple(got.shape)

    z = xp.asarray(np.zeros((0, 3, 4), np.float32))
    assert shape(dm.strided_slice(z, [0, 1, 0], [0, 3, 0], end_mask=[1, 0, 1])) == (0, 2, 4)
    assert shape(dm.strided_slice(z, [5, 0, 0], [9, 3, 4])) == (0, 3, 4)
    assert shape(
        dm.strided_slice(
            z, [0, 0, 0], [0, 0, 0], [-1, -1, 1], begin_mask=[1, 1, 1], end_mask=[1, 1, 1]
        )
    ) == (0, 3, 4)
    assert shape(dm.strided_slice(z, [0], [0], new_axis_mask=[1])) == (1, 0, 3, 4)
    assert shape(dm.strided_slice(z, [0, 1], [0, 0], shrink_axis_mask=[0, 1])) == (0, 4)
    s = xp.asarray(np.array(5.0, np.float32))
    empty = np.zeros(0, dtype=np.int64)
    got = _back(xp, s, dm.strided_slice(s, empty, empty, empty))
    assert got.shape == ()
    assert isinstance(got, np.ndarray)
    assert _back(xp, s, dm.strided_slice(s, [0], [0], new_axis_mask=[1])).tolist() == [5.0]
    z = xp.asarray(np.zeros((0, 4), np.float32))
    assert shape(dm.split(z, 0, 3)[0]) == (0, 4)
    assert [shape(p) for p in dm.variadic_split(z, 1, [1, -1, 0])] == [(0, 1), (0, 3), (0, 0)]


def test_split_values_and_negative_axis(xp):
    x = xp.asarray(np.arange(12, dtype=np.int32).reshape(2, 6))
    assert [_back(xp, x, p).tolist() for p in dm.split(x, 1, 3)] == [
        [[0, 1], [6, 7]],
        [[2, 3], [8, 9]],
        [[4, 5], [10, 11]],
    ]
    assert [tuple(p.shape) for p in dm.split(x, -2, 2)] == [(1, 6), (1, 6)]
    for axis in (np.int8(-1), np.uint8(1), np.array(1, dtype=np.int32)):
        assert [tuple(p.shape) for p in dm.split(x, axis, 2)] == [(2, 3), (2, 3)]


def test_variadic_split_values(xp):
    a = np.arange(12, dtype=np.int32).reshape(2, 6)
    x = xp.asarray(a)

    def shapes(parts):
        return [tuple(p.shape) for p in parts]

    parts = dm.variadic_split(x, 1, [0, 6, 0])
    assert shapes(parts) == [(2, 0), (2, 6), (2, 0)]
    np.testing.assert_array_equal(_back(xp, x, parts[1]), a)
    parts = dm.variadic_split(x, 1, [1, -1, 2])
    assert [_back(xp, x, p).tolist() for p in parts] == [
        [[0], [6]],
        [[1, 2, 3], [7, 8, 9]],
        [[4, 5], [10, 11]],
    ]
    assert shapes(dm.variadic_split(x, np.array([1]), np.array([2, -1], np.int8))) == [
        (2, 2),
        (2, 4),
    ]
    assert shapes(dm.variadic_split(x, [1], [-1])) == [(2, 6)]


def test_integer_parameter_types_are_all_accepted(xp):
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = xp.asarray(a)
    want = a[1:2, 0:2, 1:3]
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        b = np.array([1, 0, 1], dtype=dtype)
        e = np.array([2, 2, 3], dtype=dtype)
        got = dm.strided_slice(x, b, e, np.ones(3, dtype))
        np.testing.assert_array_equal(_back(xp, x, got), want)
    np.testing.assert_array_equal(_back(xp, x, dm.strided_slice(x, (1, 0, 1), (2, 2, 3))), want)
    got = dm.strided_slice(x, [np.int64(1), 0, 1], [2, np.uint8(2), 3])
    np.testing.assert_array_equal(_back(xp, x, got), want)
    # u8 begin 255 is 255, not -1 (OpenVINO observed: [4,6] with begin u8 [255,0] gives [0,6]).
    y = xp.asarray(np.zeros((4, 6), np.float32))
    got = dm.strided_slice(y, np.array([255, 0], np.uint8), np.array([255, 6], np.uint8))
    assert tuple(got.shape) == (0, 6)


# -- errors: class and message pinned --------------------------------------------------------------
X = np.zeros((2, 6))


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        pytest.param(
            lambda: dm.split(X, 1, 4),
            dm.ValidationError,
            "Split: num_splits=4 must divide data.shape[1]=6 evenly",
            id="split(n=4)",
        ),
        pytest.param(
            lambda: dm.split(X, 1, 0),
            dm.ValidationError,
            "Split: num_splits=0 must be greater than zero",
            id="split(n=0)",
        ),
        pytest.param(
            lambda: dm.split(X, 2, 2),
            dm.AxisError,
            "Split: axis=2 is out of the tensor rank range [-2, 1]",
            id="split(axis=2)",
        ),
        pytest.param(
            lambda: dm.split(X, -3, 2),
            dm.AxisError,
            "Split: axis=-3 is out of the tensor rank range [-2, 1]",
            id="split(axis=-3)",
        ),
        pytest.param(
            lambda: dm.split(X, [1], 2),
            dm.ValidationError,
            "Split: axis=[1] must be a scalar, but has shape [1] (hint: Split-1 takes "
            "a scalar axis; VariadicSplit-1 also accepts shape [1])",
            id="split(axis=[1])",
        ),
        pytest.param(
            lambda: dm.split(X, 1.0, 2),
            dm.DTypeError,
            "Split: axis=1.0 must be an integer, not a float",
            id="split(axis=1.0)",
        ),
        pytest.param(
            lambda: dm.split(X, True, 2),
            dm.DTypeError,
            "Split: axis=True must be an integer, not a bool",
            id="split(axis=True)",
        ),
        pytest.param(
            lambda: dm.split(X, 1, 2.0),
            dm.DTypeError,
            "Split: num_splits=2.0 must be an integer, not a float",
            id="split(n=2.0)",
        ),
        pytest.param(
            lambda: dm.split(np.array(1.0), 0, 1),
            dm.AxisError,
            "Split: axis=0 cannot address an axis of a scalar (rank 0 data has no axes)",
            id="split(scalar)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 1, [1, 2]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[1, 2] sum to 3, but data.shape[1] is 6",
            id="variadic_split(sum)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 1, [-2, 4]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[-2, 4] holds -2 at index 0; every length must be >= -1",
            id="variadic_split(-2)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 1, [-1, -1, 3]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[-1, -1, 3] holds -1 at indices 0 and 1; at "
            "most one length can be inferred",
            id="variadic_split(two -1)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 1, [8, -1]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[8, -1] sum to 8 without the -1, more than "
            "data.shape[1]=6; the -1 would be -2",
            id="variadic_split(-1 negative)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, [1, 1], [6]),
            dm.ValidationError,
            "VariadicSplit: axis=[1, 1] must be a scalar or of shape [1], but has shape [2]",
            id="variadic_split(axis shape [2])",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 1, [[2, 4]]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[[2, 4]] must be 1-D, but holds a sequence at index 0",
            id="variadic_split(2-D lengths)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 1, np.array([2.0, 4.0])),
            dm.DTypeError,
            "VariadicSplit: split_lengths=array([2.0, 4.0], dtype=float64) has element "
            "type float64, but must be of an integer type",
            id="variadic_split(float)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 1.5, [2, 4]),
            dm.DTypeError,
            "VariadicSplit: axis=1.5 must be an integer, not a float",
            id="variadic_split(axis=1.5)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, np.int64(2), [6]),
            dm.AxisError,
            "VariadicSplit: axis=np.int64(2) is out of the tensor rank range [-2, 1]",
            id="variadic_split(axis=np.int64(2))",
        ),
        pytest.param(
            lambda: dm.split(X, 1, np.int32(4)),
            dm.ValidationError,
            "Split: num_splits=np.int32(4) must divide data.shape[1]=6 evenly",
            id="split(num_splits=np.int32(4))",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 2, [6]),
            dm.AxisError,
            "VariadicSplit: axis=2 is out of the tensor rank range [-2, 1]",
            id="variadic_split(axis=2)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0, 0], [1]),
            dm.ValidationError,
            "StridedSlice: end=[1] has 1 value, but begin has 2; begin and end need "
            "to have the same number of values",
            id="strided_slice(len end)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0, 0], [1, 1], [1]),
            dm.ValidationError,
            "StridedSlice: stride=[1] has 1 value, but begin and end have 2; stride "
            "needs to have the same number of values as begin and end",
            id="strided_slice(len stride)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0, 0], [1, 1], [1, 0]),
            dm.ValidationError,
            "StridedSlice: stride[1]=0 is zero on a sliced axis; stride must be "
            "non-zero (hint: a zero stride is allowed only on new and shrunk axes)",
            id="strided_slice(stride 0)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0, 0, 0], [1, 1, 1]),
            dm.ValidationError,
            "StridedSlice: begin=[0, 0, 0] addresses 3 axes of data, but data has rank "
            "2 (input rank plus number of new axes has to be at least the size of "
            "begin and end)",
            id="strided_slice(too many axes)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0, 0, 0, 0], [1, 1, 1, 1], ellipsis_mask=[0, 1, 0, 0]),
            dm.ValidationError,
            "StridedSlice: begin=[0, 0, 0, 0] addresses 3 axes around the ellipsis, but "
            "data has rank 2",
            id="strided_slice(ellipsis, too many axes)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0, 6], [0, 0], shrink_axis_mask=[0, 1]),
            dm.ValidationError,
            "StridedSlice: begin[1]=6 is out of range for the axis shrunk by "
            "shrink_axis_mask[1]: data has size 6 there, so the index must be in "
            "[-6, 5]",
            id="strided_slice(shrink out of range)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0], [0], ellipsis_mask=[1, 1]),
            dm.ValidationError,
            "StridedSlice: ellipsis_mask=[1, 1] sets more than one bit; at most one "
            "ellipsis is allowed",
            id="strided_slice(two ellipses)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0], [0], begin_mask=[2]),
            dm.ValidationError,
            "StridedSlice: begin_mask=[2] holds 2 at index 0; all masks of StridedSlice must be 0 "
            "or 1",
            id="strided_slice(mask 2)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0], [0], begin_mask=5),
            dm.DTypeError,
            "StridedSlice: begin_mask=5 must be a list of 0 and 1, not an int (hint: masks are "
            "lists such as [0, 1, 1], not TensorFlow's integer bit masks)",
            id="strided_slice(int mask)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [1.0], [2]),
            dm.DTypeError,
            "StridedSlice: begin=[1.0] holds a float at index 0; integers only",
            id="strided_slice(float begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0], [2], [1.0]),
            dm.DTypeError,
            "StridedSlice: stride=[1.0] holds a float at index 0; integers only",
            id="strided_slice(float stride)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [True], [2]),
            dm.DTypeError,
            "StridedSlice: begin=[True] holds a bool at index 0; integers only",
            id="strided_slice(bool begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, [0], [2**63]),
            dm.ValidationError,
            "StridedSlice: end=[9223372036854775808] holds 9223372036854775808, which "
            "does not fit in int64 (hint: no OpenVINO index type holds it; values are "
            "never wrapped)",
            id="strided_slice(end > int64)",
        ),
        pytest.param(
            lambda: dm.infer_split([4], 0, 2**64),
            dm.ValidationError,
            "Split: num_splits=18446744073709551616 does not fit in int64 (hint: no OpenVINO "
            "index type holds it; values are never wrapped)",
            id="split(num_splits > int64)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, 0, 1),
            dm.ValidationError,
            "StridedSlice: begin=0 must be 1-D, but is a scalar (hint: write [0])",
            id="strided_slice(scalar begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, np.zeros((1, 1), np.int64), [1]),
            dm.ValidationError,
            "StridedSlice: begin=array([[0]], dtype=int64) must be 1-D, but has shape [1, 1]",
            id="strided_slice(2-D begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice("abc", [0], [1]),
            dm.DTypeError,
            "StridedSlice: data='abc' must be an array, not a string",
            id="strided_slice(data str)",
        ),
        pytest.param(
            lambda: dm.strided_slice(X, dm.UNKNOWN, [1]),
            dm.ValidationError,
            "StridedSlice: begin=UNKNOWN must be a concrete value to execute (hint: "
            "UNKNOWN is for shape inference (infer_strided_slice))",
            id="strided_slice(UNKNOWN)",
        ),
        pytest.param(
            lambda: dm.split(X, dm.UNKNOWN, 2),
            dm.ValidationError,
            "Split: axis=UNKNOWN must be a concrete value to execute",
            id="split(axis UNKNOWN)",
        ),
        pytest.param(
            lambda: dm.variadic_split(X, 0, dm.Unknown(2)),
            dm.ValidationError,
            "VariadicSplit: split_lengths=Unknown(2) must be a concrete value to execute",
            id="variadic_split(split_lengths Unknown(2))",
        ),
        pytest.param(
            lambda: dm.split(X, 1, 2, copy="yes"),
            dm.DTypeError,
            "Split: copy='yes' must be None, True or False",
            id="split(copy='yes')",
        ),
        pytest.param(
            lambda: dm.infer_variadic_split([6], 0, dm.UNKNOWN),
            dm.ValidationError,
            "VariadicSplit: split_lengths=UNKNOWN has an unknown length, so the number "
            "of outputs is unknown (hint: pass Unknown(n) when split_lengths is a 1-D "
            "value of known length n)",
            id="infer_variadic_split(UNKNOWN lengths)",
        ),
        pytest.param(
            lambda: dm.infer_split("[1..2]", 0, 3),
            dm.ValidationError,
            "Split: num_splits=3 is larger than the interval maximum of data.shape[0]=1..2",
            id="infer_split(interval max < n)",
        ),
        pytest.param(
            lambda: dm.infer_split("[4..5]", 0, 3),
            dm.ValidationError,
            "Split: num_splits=3 divides no size in data.shape[0]=4..5",
            id="infer_split(no multiple)",
        ),
        pytest.param(
            lambda: dm.infer_variadic_split("[2..6]", 0, [4, 4]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[4, 4] sum to 8, which no size in "
            "data.shape[0]=2..6 matches",
            id="infer_variadic_split(sum outside)",
        ),
        pytest.param(
            lambda: dm.infer_strided_slice("[..3]", [5], [0], shrink_axis_mask=[1]),
            dm.ValidationError,
            "StridedSlice: begin[0]=5 is out of range for the axis shrunk by "
            "shrink_axis_mask[0]: data has size 3 there, so the index must be in "
            "[-3, 2]",
            id="infer_strided_slice(shrink beyond every size)",
        ),
        pytest.param(
            lambda: dm.PartialShape.parse("[1,x]"),
            dm.ValidationError,
            "PartialShape: shape='[1,x]' is not a shape in OpenVINO's notation (hint: "
            "write e.g. '[?,2..10,12]', '1,3,224,224', '[]' or '[...]')",
            id="PartialShape.parse('[1,x]')",
        ),
        pytest.param(
            lambda: dm.Dimension(5, 2),
            dm.ValidationError,
            "Dimension: max=2 is smaller than min=5 (hint: an interval is min..max)",
            id="Dimension(5, 2)",
        ),
        pytest.param(
            lambda: dm.PartialShape.parse("[2,5..2]"),
            dm.ValidationError,
            "PartialShape: shape='[2,5..2]' has dim '5..2', which is an empty interval: its "
            "lower bound 5 is above its upper bound 2 (hint: an interval is min..max, min <= max)",
            id="PartialShape.parse('[2,5..2]')",
        ),
        # -- found by the audit: each once a raw Python or NumPy error, or a silent acceptance --
        pytest.param(
            lambda: dm.strided_slice(np.zeros((2, 3)), [0] * 63, [0] * 63, new_axis_mask=[1] * 63),
            dm.BackendError,
            "StridedSlice: new_axis_mask=[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
            "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
            "1, 1, 1, 1, 1, 1 ...] adds 63 axes to data.shape=[2, 3]: the output would have rank "
            "65, more than NumPy's limit of 64 dimensions (hint: infer_strided_slice gives the "
            "shape of any rank; execution is NumPy's)",
            id="strided_slice(output rank 65)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.zeros((1,) * 64), [0], [0], new_axis_mask=[1]),
            dm.BackendError,
            "StridedSlice: new_axis_mask=[1] adds 1 axis to data.shape=[1, 1, 1, 1, 1, 1, 1, 1, "
            "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
            "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 ...]: the output would have rank 65, "
            "more than NumPy's limit of 64 dimensions (hint: infer_strided_slice gives the "
            "shape of any rank; execution is NumPy's)",
            id="strided_slice(rank-64 data, one new axis)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), np.array([1], object), [3]),
            dm.DTypeError,
            "StridedSlice: begin=array([1], dtype=object) has element type object, but must be "
            "of an integer type",
            id="strided_slice(object begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), [0], [4], np.array([2], object)),
            dm.DTypeError,
            "StridedSlice: stride=array([2], dtype=object) has element type object, but must "
            "be of an integer type",
            id="strided_slice(object stride)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), np.array([]), np.array([])),
            dm.DTypeError,
            "StridedSlice: begin=array([], dtype=float64) has element type float64, but must be "
            "of an integer type",
            id="strided_slice(empty float begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), [0], np.array([], bool), copy=True),
            dm.DTypeError,
            "StridedSlice: end=array([], dtype=bool) has element type bool, but must be of an "
            "integer type",
            id="strided_slice(empty bool end, copy=True)",
        ),
        pytest.param(
            lambda: dm.strided_slice(
                np.arange(4), np.array([1], object), [3], out=np.empty(2, np.int64)
            ),
            dm.DTypeError,
            "StridedSlice: begin=array([1], dtype=object) has element type object, but must be "
            "of an integer type",
            id="strided_slice(object begin, out=)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(20).reshape(4, 5), {3, 0}, {4, 5}),
            dm.DTypeError,
            "StridedSlice: begin={0, 3} must be a sequence of integers, not a set",
            id="strided_slice(set begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), {0: 1}, [1]),
            dm.DTypeError,
            "StridedSlice: begin={0: 1} must be a sequence of integers, not a dict",
            id="strided_slice(dict begin)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), np.ndarray, [1]),
            dm.DTypeError,
            "StridedSlice: begin=<class 'numpy.ndarray'> must be a sequence of integers, not a "
            "class",
            id="strided_slice(begin=np.ndarray)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), bytearray(b"\x01"), [3]),
            dm.DTypeError,
            "StridedSlice: begin=bytearray(b'\\x01') must be a sequence of integers, not a "
            "bytearray",
            id="strided_slice(bytearray begin)",
        ),
        pytest.param(
            lambda: dm.variadic_split(np.zeros(3), 0, {3: "x"}),
            dm.DTypeError,
            "VariadicSplit: split_lengths={3: 'x'} must be a sequence of integers, not a dict",
            id="variadic_split(dict lengths)",
        ),
        pytest.param(
            lambda: dm.variadic_split(np.zeros(3), 0, np.ndarray),
            dm.DTypeError,
            "VariadicSplit: split_lengths=<class 'numpy.ndarray'> must be a sequence of "
            "integers, not a class",
            id="variadic_split(lengths=np.ndarray)",
        ),
        pytest.param(
            lambda: dm.variadic_split(np.zeros(3), 0, frozenset({3})),
            dm.DTypeError,
            "VariadicSplit: split_lengths=frozenset({3}) must be a sequence of integers, not "
            "a frozenset",
            id="variadic_split(frozenset lengths)",
        ),
        pytest.param(
            lambda: dm.infer_split(b"\x04\x06", 0, 2),
            dm.DTypeError,
            "Split: shape=b'\\x04\\x06' must be a PartialShape, a sequence of dimensions or a "
            "string, not a bytes object",
            id="infer_split(bytes shape)",
        ),
        pytest.param(
            lambda: dm.infer_split({4, 6}, 0, 2),
            dm.DTypeError,
            "Split: shape={4, 6} must be a PartialShape, a sequence of dimensions or a string, "
            "not a set",
            id="infer_split(set shape)",
        ),
        pytest.param(
            lambda: dm.PartialShape(b"12"),
            dm.DTypeError,
            "PartialShape: shape=b'12' must be a PartialShape, a sequence of dimensions or a "
            "string, not a bytes object",
            id="PartialShape(bytes)",
        ),
        pytest.param(
            lambda: dm.Dimension.parse(3),
            dm.DTypeError,
            "Dimension: text=3 must be a string such as '2..10'",
            id="Dimension.parse(3)",
        ),
        pytest.param(
            lambda: dm.Dimension.parse(b"3"),
            dm.DTypeError,
            "Dimension: text=b'3' must be a string such as '2..10'",
            id="Dimension.parse(b'3')",
        ),
        pytest.param(
            lambda: dm.PartialShape.dynamic(2.0),
            dm.DTypeError,
            "PartialShape.dynamic: rank=2.0 must be an int or None",
            id="PartialShape.dynamic(2.0)",
        ),
        pytest.param(
            lambda: dm.PartialShape.dynamic(np.True_),
            dm.DTypeError,
            "PartialShape.dynamic: rank=np.True_ must be an int or None",
            id="PartialShape.dynamic(np.True_)",
        ),
        pytest.param(
            lambda: dm.PartialShape.dynamic(-2),
            dm.ValidationError,
            "PartialShape.dynamic: rank=-2 must be in [0, 1048576], or -1 or None for a dynamic "
            "rank",
            id="PartialShape.dynamic(-2)",
        ),
        pytest.param(
            lambda: dm.PartialShape.parse("[\u0663]"),
            dm.ValidationError,
            "PartialShape: shape='[\u0663]' is not a shape in OpenVINO's notation (hint: "
            "write e.g. '[?,2..10,12]', '1,3,224,224', '[]' or '[...]')",
            id="PartialShape.parse(arabic-indic digit)",
        ),
        pytest.param(
            lambda: dm.split(np.zeros(0), 0, 10**9),
            dm.ValidationError,
            "Split: num_splits=1000000000 is more than 1048576 (MAX_LENGTH), the most outputs "
            "datamove makes",
            id="split(num_splits=10**9)",
        ),
        pytest.param(
            lambda: dm.infer_split("[...]", 0, 2**62),
            dm.ValidationError,
            "Split: num_splits=4611686018427387904 is more than 1048576 (MAX_LENGTH), the most "
            "outputs datamove makes",
            id="infer_split(num_splits=2**62)",
        ),
        pytest.param(
            lambda: dm.Unknown(2**70),
            dm.ValidationError,
            "Unknown: length=1180591620717411303424 is more than 1048576 (MAX_LENGTH), the "
            "longest parameter datamove takes",
            id="Unknown(2**70)",
        ),
        pytest.param(
            lambda: dm.infer_strided_slice([2, 3], np.zeros(2**20 + 1, np.int64), [0, 0]),
            dm.ValidationError,
            "StridedSlice: begin='<1048577 values>' has 1048577 values, more than 1048576 "
            "(MAX_LENGTH), the longest parameter datamove takes",
            id="infer_strided_slice(begin of 2**20 + 1 values)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.zeros(3), [0], [1], end_mask=range(2**30)),
            dm.ValidationError,
            "StridedSlice: end_mask='<1073741824 values>' has 1073741824 values, more than "
            "1048576 (MAX_LENGTH), the longest parameter datamove takes",
            id="strided_slice(end_mask of 2**30 values)",
        ),
        pytest.param(
            lambda: dm.infer_variadic_split("[?]", 0, [2**63 - 1, 2**63 - 1]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[9223372036854775807, 9223372036854775807] sum to "
            "18446744073709551614, which no size in data.shape[0]=? matches (hint: an unbounded "
            "dimension holds the sizes below 2**63 - 1)",
            id="infer_variadic_split(sum past int64)",
        ),
        pytest.param(
            lambda: dm.infer_variadic_split("[?]", 0, [2**62, 2**62, -1]),
            dm.ValidationError,
            "VariadicSplit: split_lengths=[4611686018427387904, 4611686018427387904, -1] sum to "
            "9223372036854775808 without the -1, more than any size in data.shape[0]=? (hint: "
            "an unbounded dimension holds the sizes below 2**63 - 1)",
            id="infer_variadic_split(-1 past int64)",
        ),
        pytest.param(
            lambda: dm.infer_strided_slice([0], dm.UNKNOWN, [0], shrink_axis_mask=[1]),
            dm.ValidationError,
            "StridedSlice: shrink_axis_mask[0]=1 shrinks data.shape[0], of size 0: no begin "
            "can index it",
            id="infer_strided_slice(shrink size 0, begin UNKNOWN)",
        ),
        pytest.param(
            lambda: dm.infer_strided_slice("[?]", [2**63 - 2], [0], shrink_axis_mask=[1]),
            dm.ValidationError,
            "StridedSlice: begin[0]=9223372036854775806 is out of range for the axis shrunk "
            "by shrink_axis_mask[0]: no size in data.shape[0]=? takes it (hint: an unbounded "
            "dimension holds the sizes below 2**63 - 1)",
            id="infer_strided_slice(shrink beyond every size of an unbounded axis)",
        ),
        pytest.param(
            lambda: dm.infer_strided_slice("[...]", [0, 0], [1, 1], [1, 0]),
            dm.ValidationError,
            "StridedSlice: stride[1]=0 is zero on a sliced axis; stride must be non-zero (hint: "
            "a zero stride is allowed only on new and shrunk axes)",
            id="infer_strided_slice(stride 0 on a sliced index, dynamic rank)",
        ),
        pytest.param(
            lambda: dm.infer_slice("[...]", [0, 0], [1, 1], [1, 1], axes=[-1, -1]),
            dm.ValidationError,
            "Slice: axes=[-1, -1] lists axis -1 twice; each axis can be sliced once",
            id="infer_slice(an axis twice, dynamic rank)",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(4), [np.array(1.0)], [3]),
            dm.DTypeError,
            "StridedSlice: begin=[array(1.0, dtype=float64)] holds a 0-d NumPy array of element "
            "type float64 at index 0; integers only",
            id="strided_slice(0-d float array in begin)",
        ),
    ],
)
def test_error_table(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_numpy_index_refuses_run_time_values_as_the_operator_does():
    # It was an AssertionError: numpy_index skipped the plan builder's Unknown check.
    from datamove._strided_slice import numpy_index

    with pytest.raises(dm.ValidationError, match="begin=UNKNOWN must be a concrete value"):
        numpy_index((3,), dm.UNKNOWN, [1])
    with pytest.raises(dm.ValidationError, match=r"stride=Unknown\(1\) must be a concrete"):
        numpy_index((3,), [0], [1], dm.Unknown(1))


def test_errors_carry_data_and_pickle():
    import pickle

    with pytest.raises(dm.ValidationError) as info:
        dm.variadic_split(X, 1, [1, 2])
    err = info.value
    assert (err.op, err.argument, err.value) == ("VariadicSplit", "split_lengths", [1, 2])
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err)
    assert str(again) == str(err)


def test_limits_are_maxes_not_below():
    # MAX_LENGTH outputs and parameters of MAX_LENGTH values are accepted; one more is not.
    assert dm.Unknown(MAX_LENGTH).length == MAX_LENGTH
    assert len(dm.infer_split("[?]", 0, MAX_LENGTH)) == MAX_LENGTH
    assert dm.PartialShape.dynamic(3).rank == 3
    assert dm.PartialShape.dynamic(-1).rank is None  # OpenVINO's Rank(-1) is dynamic too
    with pytest.raises(dm.ValidationError, match="more than 1048576"):
        dm.infer_split("[?]", 0, MAX_LENGTH + 1)


def test_inference_has_no_rank_limit_but_numpy_execution_has():
    # Only execution hits NumPy's limit of 64 dimensions (a BackendError naming it).
    shape = dm.infer_strided_slice([2, 3], [0] * 63, [0] * 63, new_axis_mask=[1] * 63)
    assert shape.rank == 65
    x = np.zeros((2, 3))
    assert dm.strided_slice(x, [0] * 62, [0] * 62, new_axis_mask=[1] * 62).ndim == 64
    with pytest.raises(dm.BackendError, match="rank 65") as e:
        dm.strided_slice(x, [0] * 63, [0] * 63, new_axis_mask=[1] * 63, copy=True)
    assert (e.value.argument, e.value.value) == ("new_axis_mask", [1] * 63)
    # Shrunk axes count against the new ones: the rule says how many each mask made.
    with pytest.raises(dm.BackendError) as e:
        dm.strided_slice(
            x, [0] * 65, [1] * 65, new_axis_mask=[1] * 64, shrink_axis_mask=[0] * 64 + [1]
        )
    assert e.value.rule.startswith(
        "adds 64 axes to data.shape=[2, 3] and shrink_axis_mask removes 1: the output would "
        "have rank 65"
    )
    jnp = pytest.importorskip("jax.numpy")
    # A JAX array past NumPy's rank: the data's shape made the rank, named as Slice names it.
    with pytest.raises(dm.BackendError) as e:
        dm.strided_slice(jnp.zeros((1,) * 65), [0], [1])
    assert (e.value.argument, e.value.value) == ("data.shape", [1] * 65)
    assert e.value.rule == "has rank 65, more than NumPy's limit of 64 dimensions"


def test_a_slice_past_numpy_s_rank_names_the_data_s_shape():
    # A JAX array may have more than NumPy's 64 dimensions; Slice's plan is NumPy's index. The
    # error named "data=None"; then it was a ValidationError where StridedSlice's is a
    # BackendError: the limit is the library's that executes (NumPy), not a rule of the
    # operator (inference has none), so both raise BackendError in the same words.
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.zeros((2,) + (1,) * 64)
    rule = "has rank 65, more than NumPy's limit of 64 dimensions"
    hint = "infer_slice gives the shape of any rank; execution is NumPy's"
    with pytest.raises(dm.BackendError, match=rf"^Slice: data.shape=\[2, 1, .* {rule} \(hint") as e:
        dm.slice(x, [0], [1], [1])
    assert (e.value.argument, e.value.value, e.value.rule) == ("data.shape", [2] + [1] * 64, rule)
    assert e.value.hint == hint
    with pytest.raises(dm.BackendError) as f:
        dm.strided_slice(x, [0], [1])
    assert (f.value.argument, f.value.value, f.value.rule) == ("data.shape", [2] + [1] * 64, rule)
    assert f.value.hint == hint.replace("infer_slice", "infer_strided_slice")
    assert dm.slice(x[..., 0], [0], [1], [1]).shape == (1,) + (1,) * 63  # 64: NumPy's index


def test_fast_paths_reject_what_inference_rejects():
    # Found by the audit: the cached fast paths read non-integer arrays with .tolist().
    x = np.arange(4)
    for _ in range(2):  # the second call would hit a stored plan, were there one
        for begin in (np.array([1], object), np.array([1.0]), np.array([], np.float64)):
            for kwargs in ({}, {"copy": True}, {"out": np.empty(2, x.dtype)}):
                with pytest.raises(dm.DTypeError, match="must be of an integer type"):
                    dm.strided_slice(x, begin, np.array([3]), **kwargs)
                with pytest.raises(dm.DTypeError, match="must be of an integer type"):
                    dm.strided_slice(x, [1], [3], begin, **kwargs)
        np.testing.assert_array_equal(dm.strided_slice(x, np.array([1]), [3]), [1, 2])


def test_zero_d_integer_arrays_are_integers_in_vectors():
    x = np.arange(6)
    got = dm.strided_slice(x, [np.array(1)], [np.array(5, np.uint8)], [np.int64(2)])
    np.testing.assert_array_equal(got, x[1:5:2])
    assert [c.shape for c in dm.variadic_split(x, 0, [np.array(2), -1])] == [(2,), (4,)]


def test_dimension_and_shape_hash_as_what_they_equal():
    # Found by the audit: Dimension(3) == 3 but hashed apart (same for shapes and tuples).
    assert dm.Dimension(3) == 3
    assert hash(dm.Dimension(3)) == hash(3)
    assert {3: "x"}.get(dm.Dimension(3)) == "x"
    shape = dm.PartialShape([2, 3])
    assert shape == (2, 3)
    assert hash(shape) == hash((2, 3))
    assert {(2, 3): "y"}.get(shape) == "y"
    assert dm.PartialShape("[2,?]") == (2, dm.Dimension())
    assert hash(dm.PartialShape("[2,?]")) == hash((2, dm.Dimension()))
    assert dm.PartialShape("[?]") != ("?",)  # a string is no dimension: unequal, as its hash


def test_shape_values_are_immutable_pickle_and_print_as_written():
    d, shape, unknown = dm.Dimension(2, 5), dm.PartialShape("[2..5,?]"), dm.Unknown(4)
    for obj, name in [(d, "Dimension"), (shape, "PartialShape"), (unknown, "Unknown")]:
        with pytest.raises(AttributeError, match=f"^{name} is immutable; cannot set '_min'$"):
            obj._min = 1  # type: ignore[misc,union-attr]
        again = pickle.loads(pickle.dumps(obj))
        assert (type(again), again) == (type(obj), obj)
    for obj in [dm.Dimension(3), dm.PartialShape("[...]"), dm.UNKNOWN]:
        assert pickle.loads(pickle.dumps(obj)) == obj
    assert [repr(x) for x in (dm.Dimension(3), d, dm.Dimension.dynamic(), shape[1:])] == [
        "Dimension(3)",
        "Dimension(2, 5)",
        "Dimension(0, None)",
        "PartialShape('[?]')",
    ]
    assert (d.is_dynamic, dm.Dimension(3).is_dynamic) == (True, False)
    assert (shape.is_dynamic, dm.PartialShape([2]).is_dynamic) == (True, False)
    with pytest.raises(AttributeError, match=r"^Splitting is immutable$"):
        dm.Splitting.from_split(0, 2).axis = 1  # type: ignore[misc]
    # OpenVINO's -1 is "?" however the int is typed; no rank is "[...]"
    assert str(dm.PartialShape([np.int64(-1), np.int32(3), -1])) == "[?,3,?]"
    assert str(dm.PartialShape.dynamic()) == str(dm.PartialShape.dynamic(None)) == "[...]"


@pytest.mark.parametrize(
    ("call", "cls", "message"),
    [
        pytest.param(
            lambda: dm.Dimension(2, 5).get_length(),
            dm.ValidationError,
            "Dimension: 2..5 is not static",
            id="Dimension.get_length",
        ),
        pytest.param(
            lambda: dm.PartialShape("[2,?]").to_shape(),
            dm.ValidationError,
            "PartialShape: [2,?] is not static",
            id="PartialShape.to_shape",
        ),
        pytest.param(
            lambda: dm.PartialShape.parse(5),
            dm.DTypeError,
            "PartialShape: shape=5 must be a string",
            id="PartialShape.parse(5)",
        ),
        pytest.param(
            lambda: dm.Unknown(-1),
            dm.ValidationError,
            "Unknown: length=-1 must be a non-negative int or None",
            id="Unknown(-1)",
        ),
        pytest.param(
            lambda: dm.Unknown(True),
            dm.ValidationError,
            "Unknown: length=True must be a non-negative int or None",
            id="Unknown(True)",
        ),
    ],
)
def test_shape_values_refuse_what_they_cannot_be(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("call", "cls", "message"),
    [
        pytest.param(
            lambda: dm.infer_variadic_split([6], dm.Unknown(2), [1, -1]),
            dm.ValidationError,
            "VariadicSplit: axis=Unknown(2) must be a scalar or of shape [1]",
            id="variadic axis of 2 unknown values",
        ),
        pytest.param(
            lambda: dm.infer_variadic_split(["1..3"], 0, dm.Unknown(0)),
            dm.ValidationError,
            "VariadicSplit: split_lengths=Unknown(0) has no values, but data.shape[0]=1..3 is "
            "never 0",
            id="no lengths on an axis never 0",
        ),
        pytest.param(
            lambda: dm.infer_slice("[2,3]", [0, 0, 0], [1, 1, 1], [1, 1, 1], dm.UNKNOWN),
            dm.ValidationError,
            "Slice: start=[0, 0, 0] has 3 values, more than the 2 axes of data",
            id="slice: more values than axes, axes unknown",
        ),
        pytest.param(
            lambda: dm.strided_slice(np.arange(6), [0], [1], begin_mask="0,1"),
            dm.DTypeError,
            "StridedSlice: begin_mask='0,1' must be a list of 0 and 1, not a string (hint: write "
            "[0, 1, 1]; the IR's '0,1,1' string form is read by datamove.ir)",
            id="a mask in the IR's string form",
        ),
    ],
)
def test_rare_arguments_are_refused_with_their_rule(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    assert str(info.value) == message


def test_a_shape_holds_only_shapes_that_fit_it():
    assert (2, 3) in dm.PartialShape("[2,?]")
    assert dm.PartialShape("[2,1..3]") in dm.PartialShape("[2,?]")
    for other in ["ab", ["x"], [True], [-5], (2,), dm.PartialShape("[...]")]:  # not shapes, or
        assert other not in dm.PartialShape("[?,?]")  # not of its rank, or unknown rank
    assert dm.Dimension(0, 5) not in dm.Dimension(1, 5)
    assert "x" not in dm.Dimension(0, 5)
    assert True not in dm.Dimension(0, 5)  # a bool is not a size


# -- copies, views, out= ------------------------------------------------------------------------
def test_views_share_memory_and_copies_do_not():
    x = np.arange(24.0).reshape(2, 3, 4)
    for parts in (
        dm.split(x, 2, 2),
        dm.variadic_split(x, 1, [1, 2]),
        (
            dm.strided_slice(
                x, [0, 0, 3], [0, 0, 0], [1, 1, -2], begin_mask=[1, 1, 0], end_mask=[1, 1, 1]
            ),
        ),
    ):
        assert all(np.shares_memory(p, x) for p in parts)
    for copy_parts in (
        dm.split(x, 2, 2, copy=True),
        dm.variadic_split(x, 1, [1, 2], copy=True),
        (
            dm.strided_slice(
                x,
                [0, 0, 3],
                [0, 0, 0],
                [1, 1, -2],
                begin_mask=[1, 1, 0],
                end_mask=[1, 1, 1],
                copy=True,
            ),
        ),
    ):
        for p in copy_parts:
            assert not np.shares_memory(p, x)
            assert p.flags.c_contiguous
            assert p.flags.owndata
    views = dm.split(x, 0, 2, copy=False)
    assert all(np.shares_memory(v, x) for v in views)


def test_out_receives_the_results(xp):
    if not xp.mutable:
        pytest.skip(f"{xp.name} arrays cannot be written into: out= raises (tests/backends)")
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = xp.asarray(a)
    out = [xp.asarray(np.full((2, 3, 2), -1, np.float32)) for _ in range(2)]
    got = dm.split(x, 2, 2, out=out)
    assert got[0] is out[0]
    assert got[1] is out[1]
    np.testing.assert_array_equal(xp.to_numpy(out[0]), a[..., :2])
    np.testing.assert_array_equal(xp.to_numpy(out[1]), a[..., 2:])
    target = xp.asarray(np.full((1, 3, 2), -1, np.float32))
    assert (
        dm.strided_slice(
            x, [1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0], out=target
        )
        is target
    )
    np.testing.assert_array_equal(xp.to_numpy(target), a[1:, :, :2])
    np.testing.assert_array_equal(xp.to_numpy(x), a)  # the input is never written


@pytest.mark.parametrize(
    ("out", "exc", "message"),
    [
        pytest.param(
            [np.empty((2, 3, 2))],
            dm.ValidationError,
            "Split: out='<1 array>' has 1 array, but there are 2 outputs",
            id="too few",
        ),
        pytest.param(
            [np.empty((2, 3, 2)), np.empty((2, 3, 3))],
            dm.ValidationError,
            "Split: out[1]='<array of shape [2, 3, 3]>' has shape [2, 3, 3], but the "
            "output has shape [2, 3, 2]",
            id="wrong shape",
        ),
        pytest.param(
            [np.empty((2, 3, 2)), np.empty((2, 3, 2), np.float32)],
            dm.DTypeError,
            "Split: out[1]='<array of dtype float32>' has dtype float32, but the "
            "output has dtype float64; values are never converted",
            id="wrong dtype",
        ),
        pytest.param(
            np.empty((2, 2, 3, 2)),
            dm.DTypeError,
            "Split: out=<array> must be a sequence of arrays, one per output",
            id="an array, not a sequence",
        ),
    ],
)
def test_out_errors(out, exc, message):
    x = np.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(exc) as info:
        dm.split(x, 2, 2, out=out)
    assert str(info.value).replace(dm._errors.show(out), "<array>") == message


# -- element types are moved as they are --------------------------------------------------------
def _dtypes():
    kinds = [
        np.bool_,
        np.int8,
        np.uint16,
        np.int32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        np.dtype("U3"),
        np.dtype("S2"),
        object,
        np.dtype("M8[ns]"),
        np.dtype([("a", "i4"), ("b", "f2")]),
    ]
    ml_dtypes = pytest.importorskip("ml_dtypes")
    kinds += [
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.int4,
        ml_dtypes.uint4,
    ]
    return kinds


def test_every_element_type_is_moved_unchanged():
    for dtype in _dtypes():
        x = (
            np.arange(24).reshape(2, 3, 4).astype(dtype)
            if np.dtype(dtype).kind not in "SUOV"
            else np.array(
                [str(i) if np.dtype(dtype).kind in "UO" else (b"%d" % i) for i in range(24)]
            )
            .reshape(2, 3, 4)
            .astype(dtype)
            if np.dtype(dtype).kind != "V"
            else np.zeros((2, 3, 4), dtype)
        )
        for copy in (None, True):
            parts = dm.split(x, 1, 3, copy=copy)
            assert all(p.dtype == x.dtype for p in parts), dtype
            np.testing.assert_array_equal(np.concatenate(parts, axis=1), x)
            s = dm.strided_slice(x, [1, 2, 3], [0, 0, 0], [-1, -1, -1], copy=copy)
            assert s.dtype == x.dtype
            np.testing.assert_array_equal(s, x[1:0:-1, 2:0:-1, 3:0:-1])


def test_inputs_are_never_mutated(xp):
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = xp.asarray(a)
    begin, end, stride, mask = [1, 0, 3], [0, 0, 0], [1, 1, -1], [0, 1, 0]
    for copy in (None, True):
        dm.strided_slice(x, begin, end, stride, begin_mask=mask, end_mask=mask, copy=copy)
        dm.split(x, 2, 2, copy=copy)
        dm.variadic_split(x, 1, [2, -1], copy=copy)
    assert (begin, end, stride, mask) == ([1, 0, 3], [0, 0, 0], [1, 1, -1], [0, 1, 0])
    np.testing.assert_array_equal(xp.to_numpy(x), a)


def test_read_only_input_gives_read_only_views():
    x = np.arange(6)
    x.flags.writeable = False
    assert not dm.split(x, 0, 2)[0].flags.writeable
    assert dm.split(x, 0, 2, copy=True)[0].flags.writeable


def test_array_likes_are_accepted():
    assert [p.tolist() for p in dm.split([1, 2, 3, 4], 0, 2)] == [[1, 2], [3, 4]]
    assert dm.strided_slice([[1, 2], [3, 4]], [1], [2]).tolist() == [[3, 4]]


# -- caches, threads, imports ------------------------------------------------------------------
def test_plan_cache_is_bounded_and_drops_its_oldest_entry(plan_path):
    x = np.arange(10)
    for _ in range(2):
        dm.strided_slice(x, [1], [2])
    assert dm.cache_info()[:3] == (1, dm.cache_info().bytes, 1)  # one plan stored, then a hit
    for k in range(dm.cache_info().max_plans + 50):  # as many different calls, each stored
        dm.strided_slice(x[: k % 10 + 1], [k], [k + 1])
    info = dm.cache_info()
    assert info.plans == info.max_plans
    assert info.stored == info.max_plans + 51
    dm.strided_slice(x[: k % 10 + 1], [k], [k + 1])  # the newest is still held: a hit
    assert dm.cache_info().stored == info.stored
    assert dm.strided_slice(x, [1], [2]).tolist() == [1]  # the oldest went first: a miss
    assert dm.cache_info().stored == info.stored + 1
    assert dm.cache_info().plans == info.max_plans


def test_cache_clear_empties_every_process_wide_cache(plan_path):
    x = np.arange(12).reshape(3, 4)
    dm.split(x, 1, 2)
    shapes = dm.infer_split("[?,4]", 1, 2)
    read = dm.Slicing.from_numpy((slice(1, None),))
    # memoised: the same objects come back
    assert dm.infer_split("[?,4]", 1, 2) is shapes
    assert dm.Slicing.from_numpy((slice(1, None),)) is read
    assert dm.cache_info()[:3] == (1, dm.cache_info().bytes, 1)
    assert dm.cache_info().bytes > 0
    dm.cache_clear()
    assert dm.cache_info() == (0, 0, 0, dm.cache_info().max_plans, dm.cache_info().max_bytes)
    again = dm.infer_split("[?,4]", 1, 2)
    assert again is not shapes
    assert again == shapes
    assert dm.Slicing.from_numpy((slice(1, None),)) is not read
    dm.split(x, 1, 2)
    assert dm.cache_info().stored == 1  # built afresh


def _blocks_held_after(call) -> int:
    """Python memory blocks still allocated once ``call``'s results are dropped.

    What a cache would keep is Python objects (a plan of 2**20 parts holds 2**20 slices, the
    inference memo as many Dimensions), so counting blocks shows it at a fraction of what
    tracing every allocation with ``tracemalloc`` cost (22 s a test).
    """
    gc.collect()
    before = sys.getallocatedblocks()
    call()
    gc.collect()
    return sys.getallocatedblocks() - before


def test_plans_too_large_to_be_worth_it_are_not_cached(plan_path):
    # 2**20 outputs: ~110 MB of slices per plan were kept, 560 MB after five calls (issue 23).
    def calls():
        for k in range(1, 3):
            dm.split(np.zeros(2**20 * k, np.uint8), 0, 2**20)
        dm.variadic_split(np.zeros(2**20, np.uint8), 0, [1] * 2**20)

    assert _blocks_held_after(calls) < 10_000
    assert dm.cache_info()[:3] == (0, 0, 0)


def test_plan_cache_is_bounded_by_the_bytes_it_holds(plan_path):
    # 4096 shapes split into 1000 parts each kept 375 MB (issue 23): now at most MAX_BYTES.
    for n in range(1000, 1000 + 600):
        dm.split(np.empty((1000 * 3, n % 7 + 1), np.uint8), 0, 1000)
        assert dm.cache_info().bytes <= dm.cache_info().max_bytes
    assert 0 < dm.cache_info().plans < 600
    # The count is exact: once small plans have pushed every large one out, the cache holds
    # as many bytes as that many small plans, each as much as the first held alone.
    x = np.arange(10)
    dm.cache_clear()
    dm.strided_slice(x, [0], [1])
    one = dm.cache_info().bytes
    for n in range(1000, 1000 + 600):
        dm.split(np.empty((1000 * 3, n % 7 + 1), np.uint8), 0, 1000)
    for k in range(1, dm.cache_info().max_plans + 1):
        dm.strided_slice(x, [k], [k + 1])
    info = dm.cache_info()
    assert info.plans == info.max_plans
    assert info.bytes == one * info.max_plans


def test_plan_cache_bytes_count_backends_forms_within_the_bound(plan_path, monkeypatch):
    # A plan's torch form was added to the bytes held without making room: NumPy calls filled
    # the cache to its bound, then torch calls of the same plans took it 2.3 MB past 64 MiB.
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(_plan, "MAX_BYTES", 4 << 20)
    a = np.empty((3000, 1), np.uint8)
    for n in range(1000, 1040):
        dm.split(np.broadcast_to(a, (3000, n)), 0, 1000)
    full = dm.cache_info()
    assert full.max_bytes - full.bytes < 200_000  # room for no plan more
    t = torch.from_numpy(a)
    for n in range(1020, 1040):  # cached: each a hit, lowered to its torch form once
        dm.split(t.expand(3000, n), 0, 1000)
        assert dm.cache_info().bytes <= dm.cache_info().max_bytes
    after = dm.cache_info()
    assert after.stored == full.stored
    assert after.plans < full.plans  # the oldest went to make room
    dm.split(np.broadcast_to(a, (3000, 1039)), 0, 1000)  # the newest is still held
    assert dm.cache_info().stored == full.stored


def test_inference_memo_is_bounded_by_what_it_holds():
    # infer_variadic_split with 2**20 lengths kept ~160 MB per call (issue 23).
    lengths = [1] * 2**20
    assert _blocks_held_after(lambda: dm.infer_variadic_split([2**20], 0, lengths)) < 10_000


def test_inference_memo_counts_its_bytes_exactly_under_threads():
    # Threads missing the same keys at once each stored and counted them: the byte count drifted
    # above what was held (and a store racing a clear could leave it below, past the bound).
    infer = dm.infer_slice
    cells = dict(zip(infer.__code__.co_freevars, infer.__closure__, strict=True))

    def run(_: int) -> None:
        for i in range(1, 1001):
            infer([i], [0], [1], [1])

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(3):
            _memo.clear()
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(run, range(8)))
            held = cells["held"].cell_contents
            sizes = [
                _memo._ITEM_BYTES * (_memo._items(k) + _memo._items(v))
                for k, v in infer.cache.items()
            ]
            assert len(sizes) == 1000
            assert held == sum(sizes) <= _memo._MAX_BYTES
    finally:
        sys.setswitchinterval(interval)
        _memo.clear()


def _at_once(work: Any, threads: int = 8) -> None:
    """``work(t)`` in ``threads`` threads let go together, switching as often as Python can."""
    barrier = threading.Barrier(threads)

    def run(t: int) -> None:
        barrier.wait()
        work(t)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(run, range(threads)))
    finally:
        sys.setswitchinterval(interval)


def test_cache_bounds_hold_under_threads_missing_distinct_calls(plan_path, monkeypatch):
    # Threads storing at once could each see room for one more (the memo of the Python key's
    # answers and every keep() store checked the count, then stored): a few entries past the
    # bound. Small bounds here, so the threads wrap round them often.
    monkeypatch.setattr(_plan, "MAX_PLANS", 8)
    monkeypatch.setattr(_plan, "_MEMO_MAX", 8)
    monkeypatch.setattr(_dialect_memo, "_MAX_ENTRIES", 8)
    x = np.arange(64)
    plans: list[int] = []
    memo: list[int] = []
    slicings: list[int] = []

    def work(t: int) -> None:
        for k in range(300):  # each (thread, k) a call of its own
            dm.strided_slice(x, [t], [t + k + 1])
            dm.Slicing.from_numpy(f"x[{t}:{t + k + 1}]")
            plans.append(dm.cache_info().plans)
            memo.append(len(_plan._MEMO))  # no public count: the memo is the Python path's
            slicings.append(max(map(len, _dialect_memo._MEMOS)))

    _dialect_memo.clear()
    _at_once(work)
    assert max(plans) <= dm.cache_info().max_plans == 8
    assert max(memo) <= 8
    assert max(slicings) <= 8
    assert dm.cache_info().stored == 8 * 300  # every call missed, and was kept
    _dialect_memo.clear()


class _SlowKey(int):
    """A key whose hashing lets other threads run: between keep()'s check and its store."""

    def __hash__(self) -> int:
        time.sleep(0)
        return int(self)


def test_keep_never_passes_its_limit_under_threads():
    # In CPython 3.11 no thread switches between keep()'s count and its store unless the key's
    # hash runs Python code: this one gives the other threads their turn just there.
    cache: dict[_SlowKey, int] = {}
    held: list[int] = []

    def work(t: int) -> None:
        for k in range(200):
            _memo.keep(cache, _SlowKey(1000 * t + k), k, limit=4)
            held.append(len(cache))

    _at_once(work)
    assert max(held) <= 4


def test_a_child_forked_while_a_thread_holds_the_cache_locks_can_miss():
    # A lock held by another thread as the process forks stays held in the child, where that
    # thread does not exist: its first miss waited forever (and so did its first big copy, on a
    # pool whose threads stayed in the parent). The child gets fresh locks and a fresh pool.
    setup = """
        import numpy as np
        import datamove as dm
        from datamove import _memo, _plan
        from datamove._backends import _copy

        big = np.zeros(8 << 20, np.float32)  # 32 MiB: the copy engine's pool
        dm.split(big, 0, 2, copy=True)
        x = np.arange(10)
        dm.strided_slice(x, [1], [3])
        infer = dm.infer_slice
        memo = dict(zip(infer.__code__.co_freevars, infer.__closure__))["lock"].cell_contents
    """
    child = """
        before = dm.cache_info()
        dm.strided_slice(x, [1], [3])  # the parent's plan: a hit
        assert dm.cache_info() == before, (dm.cache_info(), before)
        dm.strided_slice(x, [2], [3])  # a miss: stored
        assert dm.cache_info().stored == before.stored + 1
        dm.infer_slice([7], [1], [2], [1])  # the inference memo's miss
        dm.Slicing.from_numpy("x[5:]")  # a keep() store
        with _plan.plan_path("python"):
            dm.strided_slice(x, [3], [4])  # the Python key's memo
        assert [p.shape for p in dm.split(big, 0, 2, copy=True)] == [(4 << 20,)] * 2
    """
    locks = "[_plan._LOCK, _memo._KEEP_LOCK, memo, _copy._pool_lock]"
    env = {**os.environ, "DATAMOVE_NUM_THREADS": "2"}
    run = fork_holding(setup, locks, child, seconds=30, env=env)
    assert run.returncode == 0, run.stderr


_X = np.arange(24).reshape(2, 3, 4)
# (begin, end, stride, masks) of calls that succeed, each with look-alikes that compare equal
# (1 == 1.0 == True) or iterate to the same values: a hit must answer each as a miss does.
_GOOD = {
    "lists": ([1, 0, 0], [0, 0, 2], None, {"begin_mask": [0, 1, 1], "end_mask": [1, 1, 0]}),
    "tuples+stride": ((1, 0, 0), (2, 3, 4), (1, 1, 2), {}),
    "arrays": (np.array([1, 0]), np.array([2, 3]), np.array([1, -1]), {"end_mask": [0, 1]}),
    "shrink+new": ([0, 1, 0], [0, 0, 0], None, {"shrink_axis_mask": [0, 1], "new_axis_mask": [1]}),
    "ellipsis": ([0, 1], [0, 3], [1, 1], {"ellipsis_mask": [1, 0]}),
    "small ints": ([1, -1], [2, 4], [1, 2], {"begin_mask": (0, 0), "end_mask": (1,)}),
}


def _look_alikes(begin, end, stride, masks):
    b = [int(v) for v in begin]
    yield "bool begin", ([bool(v) if v in (0, 1) else v for v in b], end, stride, masks)
    yield "float begin", ([float(v) for v in b], end, stride, masks)
    yield "float array end", (begin, np.asarray(end, dtype=float), stride, masks)
    yield "begin as bytes", (bytes(v % 256 for v in b), end, stride, masks)
    yield "begin as np.int64 scalars", ([np.int64(v) for v in b], end, stride, masks)
    yield "begin as a big-endian array", (np.array(b, dtype=">i8"), end, stride, masks)
    yield "begin as a 2-D array", (np.array([b]), end, stride, masks)
    yield "begin as a 0-d array", (np.array(b[0]), end, stride, masks)
    yield "begin as an object array", (np.array(b, dtype=object), end, stride, masks)
    yield "begin as a strided view", (np.repeat(np.array(b), 2)[::2], end, stride, masks)
    for dtype in ("i1", "u1", "i2", "u2", "i4", "u4", "u8"):
        if all(np.iinfo(dtype).min <= v <= np.iinfo(dtype).max for v in b):
            yield f"begin as {dtype}", (np.array(b, dtype=dtype), end, stride, masks)
    yield "begin beyond int64", ([v + 2**64 for v in b], end, stride, masks)
    yield (
        "begin as uint64 beyond int64",
        (np.array([v + 2**63 for v in b], np.uint64), end, stride, masks),
    )
    yield "begin a subclass", (np.array(b).view(np.matrix)[0], end, stride, masks)
    if stride is not None:
        yield "float stride", (begin, end, [float(v) for v in stride], masks)
    for name, mask in masks.items():
        bits = [int(v) for v in mask]
        for alike, value in (
            ("floats", [float(v) for v in bits]),
            ("np.float64", [np.float64(v) for v in bits]),
            ("a dict", dict.fromkeys(bits)),
            ("a memoryview", memoryview(bytes(bits))),
            ("an int", sum(bits)),
            ("bools", [bool(v) for v in bits]),
            ("0-d arrays", [np.array(v) for v in bits]),
            ("a bool array", np.array(bits, dtype=bool)),
        ):
            yield f"{name} as {alike}", (begin, end, stride, {**masks, name: value})


def _outcome(begin, end, stride, masks):
    try:
        return dm.strided_slice(_X, begin, end, stride, **masks).tolist()
    except dm.ValidationError as exc:
        return type(exc)


@pytest.mark.parametrize("good", list(_GOOD.values()), ids=list(_GOOD))
def test_strided_slice_cache_hits_answer_as_misses(good, plan_path):
    for alike, args in _look_alikes(*good):
        with _plan.plan_path(plan_path):  # the same path, with an empty cache
            miss = _outcome(*args)
            _outcome(*good)  # the plan is cached now; (begin, end) of look-alikes compare equal
            hit = _outcome(*args)
        assert hit == miss, alike


_INT_DTYPES = ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8")
_MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


@st.composite
def _planned_calls(draw):
    """(op, data, args, kwargs) of a split, variadic_split or strided_slice, valid or not."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    x = np.arange(int(np.prod(shape))).reshape(shape)

    def given_as(values):  # a list, a tuple or an integer array of a dtype that holds them
        form = draw(st.sampled_from(("list", "tuple", *_INT_DTYPES)))
        if form == "list":
            return list(values)
        if form == "tuple":
            return tuple(values)
        if values and min(values) < np.iinfo(form).min:
            return list(values)
        return np.array(values, dtype=form)

    op = draw(st.sampled_from(("split", "variadic_split", "strided_slice")))
    axis = draw(st.integers(-rank - 1, rank))
    if op == "split":
        return op, x, (axis, draw(st.integers(0, 4))), {}
    if op == "variadic_split":
        lengths = draw(st.lists(st.integers(-1, 4), max_size=4))
        return op, x, (draw(st.just(axis) | st.just([axis])), given_as(lengths)), {}
    n = draw(st.integers(0, rank + 1))
    vector = st.lists(st.integers(-6, 6), min_size=n, max_size=n)
    stride = draw(st.none() | st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    args = (given_as(draw(vector)), given_as(draw(vector)), stride and given_as(stride))
    mask = st.lists(st.integers(0, 1), max_size=n + 1)
    return op, x, args, {name: draw(mask) for name in draw(st.sets(st.sampled_from(_MASKS)))}


@settings(max_examples=examples(600), deadline=None)
@given(_planned_calls(), st.sampled_from(["compiled", "python"]))
def test_cached_plans_answer_as_fresh_ones(call, path):
    op, x, args, kwargs = call
    if path == "compiled" and kernels is None:
        return

    def outcome():
        try:
            out = getattr(dm, op)(x, *args, **kwargs)
        except dm.ValidationError as exc:
            return type(exc), str(exc)
        outs = out if isinstance(out, tuple) else (out,)
        return [(o.shape, o.tolist(), np.shares_memory(o, x) or o.size == 0) for o in outs]

    with _plan.plan_path(path):
        first = outcome()  # a miss, which stores a valid plan
        stored = dm.cache_info().plans
        second = outcome()  # a hit where one was stored
        code = {"strided_slice": _plan.STRIDED_SLICE, "split": _plan.SPLIT}.get(
            op, _plan.VARIADIC_SPLIT
        )
        params = (
            (*args, *(kwargs.get(n, ()) for n in _MASKS)) if code == _plan.STRIDED_SLICE else args
        )
        hit = _plan.hit(_plan.PLANS, np.ndarray, code, x, *params)
    assert second == first
    if isinstance(first, tuple):
        assert stored == 0  # errors are never stored
        assert hit is None
    else:
        assert stored == 1  # every parameter here has a key
        hits = hit if isinstance(hit, tuple) else (hit,)
        assert [(h.shape, h.tolist()) for h in hits] == [(s, v) for s, v, _ in first]


def _key_inputs():
    """Parameters of every kind the key meets, look-alikes and edge cases included."""
    ints = st.integers(-(2**64), 2**64)
    small = st.integers(-(2**63), 2**63 - 1)
    arrays = st.builds(
        lambda vs, dtype: np.array(vs, dtype=np.int64).astype(dtype),  # wraps into the type
        st.lists(st.integers(-(2**63), 2**63 - 1), max_size=6),
        st.sampled_from(["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", ">i4", "<u2", "f8", "?"]),
    )
    atoms = st.one_of(
        st.none(),
        ints,
        st.booleans(),
        st.floats(allow_nan=False),
        st.builds(np.int64, small),
        st.builds(np.array, small),  # 0-d
        st.just(_plan),  # any object
    )
    vectors = st.one_of(
        st.lists(small, max_size=6),
        st.lists(ints, max_size=6).map(tuple),
        st.lists(atoms, max_size=4),
        arrays,
        arrays.map(lambda a: np.stack([a, a])),  # 2-D
        arrays.map(lambda a: np.repeat(a, 2)[::2]),  # strided
        st.builds(lambda v: np.array([2**63 + v], np.uint64), st.integers(0, 2**63 - 1)),
        st.integers(0, 300).map(lambda n: list(range(n))),  # past the key's length
    )
    return st.lists(st.one_of(atoms, vectors), max_size=8)


@pytest.mark.skipif(kernels is None, reason="the compiled part was not built")
@settings(max_examples=examples(1500), deadline=None)
@given(
    st.one_of(st.integers(0, 4), st.integers(-(2**64), 2**64)),
    st.one_of(
        st.lists(st.integers(0, 2**63 - 1), max_size=5).map(tuple),
        st.lists(st.integers(0, 5), max_size=260).map(tuple),
        st.just([2, 3]),
    ),
    _key_inputs(),
)
def test_the_compiled_key_and_its_python_twin_agree(op, shape, params):
    with _plan.plan_path("compiled"):
        compiled = _plan.key(np.ndarray, op, shape, *params)
    with _plan.plan_path("python"):
        assert _plan.key(np.ndarray, op, shape, *params) == compiled


class _FailingIndex:
    """A shape entry whose ``__index__`` raises ``error``."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __index__(self) -> int:
        raise self.error


@pytest.mark.skipif(kernels is None, reason="the compiled part was not built")
@pytest.mark.parametrize(
    "error", [TypeError("no"), ValueError("no"), OverflowError("no"), ZeroDivisionError()]
)
def test_a_shape_entry_that_fails_as_an_int_has_no_key_on_either_path(error):
    # Any Exception from a shape entry's __index__ means "not an integer": no key, on both
    # paths (the compiled key cleared every error while its twin let all but TypeError out).
    shape = (2, _FailingIndex(error))
    assert kernels.plan_key(np.ndarray, 1, shape, 0) is None
    assert _plan.python_key(np.ndarray, 1, shape, 0) is None


@pytest.mark.skipif(kernels is None, reason="the compiled part was not built")
@pytest.mark.parametrize("key", ["compiled", "python"])
def test_an_interrupt_from_a_shape_entry_is_never_swallowed(key):
    # KeyboardInterrupt is no answer about the value: it reaches the caller on both paths.
    shape = (2, _FailingIndex(KeyboardInterrupt()))
    plan_key = kernels.plan_key if key == "compiled" else _plan.python_key
    with pytest.raises(KeyboardInterrupt):
        plan_key(np.ndarray, 1, shape, 0)


def _alike(value):
    """``value`` in another form that compares or reads alike: bytes, another dtype, bools."""
    if isinstance(value, np.ndarray):
        return st.sampled_from(
            [
                value.tobytes(),
                memoryview(value.tobytes()),
                np.frombuffer(value.tobytes(), np.uint8),
                value.tolist(),
                # the same bytes as another array: 2-D, unsigned, swapped, floats, half as wide
                value.reshape(1, -1),
                value.view(f"u{value.itemsize}"),
                value.view(value.dtype.newbyteorder()),
                value.view(f"f{max(value.itemsize, 2)}") if value.itemsize > 1 else value,
                np.frombuffer(value.tobytes(), np.int16) if value.nbytes % 2 == 0 else value,
            ]
        )
    if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
        return st.sampled_from(
            [
                b"".join(v.to_bytes(8, "little", signed=True) for v in value if abs(v) < 2**63),
                [bool(v) if v in (0, 1) else v for v in value],
                [np.int64(v) if abs(v) < 2**63 else v for v in value],
                type(value)(value),
                np.array(value, dtype=np.int32) if all(abs(v) < 2**31 for v in value) else value,
            ]
        )
    return st.sampled_from([value, [value], (value,), True if value == 1 else value])


@settings(max_examples=examples(1500), deadline=None)
@given(st.data(), st.integers(0, 3), st.lists(st.integers(0, 3), max_size=3), _key_inputs())
def test_the_python_hit_finds_exactly_the_plan_under_python_key(data, op, shape, params):
    # The pure-Python hit memoises python_key's answers: a call must find the plan stored under
    # its python_key, and nothing where python_key gives none (look-alikes never).
    x = np.zeros(shape, np.int8)
    i = data.draw(st.integers(0, len(params)))
    other = list(params)
    if i < len(params):
        other[i] = data.draw(_alike(params[i]))
    listed = [v.tolist() if isinstance(v, np.ndarray) else v for v in (*params, *other)]
    calls = (params, other, listed[: len(params)], listed[len(params) :])

    def python_key(call):
        return _plan.python_key(np.ndarray, op, tuple(shape), *call)

    keys = [k for k in dict.fromkeys(map(python_key, calls)) if k is not None]
    # plan j adds j new axes: which plan answered shows in the output's rank
    plans = {k: _plan.single((*(None,) * j, Ellipsis)) for j, k in enumerate(keys)}
    for call in (*calls, *calls):  # the second time from the memo
        found = _plan.python_hit(plans, np.ndarray, op, x, *call)
        expected = python_key(call)
        if expected is None:
            assert found is None
        else:
            assert found.ndim - x.ndim == keys.index(expected)


@pytest.mark.parametrize("dtype", ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "q", "l"])
def test_the_python_hit_reads_the_bytes_of_an_array_only_as_that_array(dtype):
    # marshal writes an array as its bytes alone: every other reading of the same bytes must find
    # the plan python_key gives it (none for the 2-D, swapped, float, bytes forms), whichever
    # form came first.
    value = np.array([1, -2, 3, 0, 2**40, -1], np.int64).astype(dtype)
    x = np.zeros((2, 3), np.int8)
    forms = [
        value,
        value.reshape(2, -1),
        value.reshape(1, -1),
        value.view(value.dtype.newbyteorder()),
        value.view(f"u{value.itemsize}"),
        value.view(f"i{value.itemsize}"),
        value.view(f"f{max(value.itemsize, 2)}") if value.itemsize > 1 else value.view("?"),
        value.view("i1"),
        value.tobytes(),
        bytearray(value.tobytes()),
        memoryview(value),
        value.tolist(),
    ]
    calls = [(v, [1, 0], None) for v in forms]
    keys = [_plan.python_key(np.ndarray, 0, x.shape, *call) for call in calls]
    stored = [k for k in dict.fromkeys(keys) if k is not None]
    plans = {k: _plan.single((*(None,) * j, Ellipsis)) for j, k in enumerate(stored)}
    for first in range(len(calls)):
        with _plan.plan_path("python"):  # an empty memo: form ``first`` is read first
            for j in (*range(first, len(calls)), *range(len(calls))):
                found = _plan.python_hit(plans, np.ndarray, 0, x, *calls[j])
                if keys[j] is None:
                    assert found is None, forms[j]
                else:
                    assert found.ndim - x.ndim == stored.index(keys[j]), forms[j]


class _Sub(np.ndarray):
    pass


def _forms(values: list[int]) -> list[object]:
    """``values`` in every form a caller may pass: look-alikes whose bytes, items or equality
    match (other dtypes viewing the same bytes, bytes, memoryview, array.array, bools, floats,
    NumPy scalars, 0-d and 1-element arrays, subclasses, another byte order, a dtype equal to
    int64's but another object)."""
    a = np.array(values, np.int64)
    ro = a.copy()
    ro.flags.writeable = False
    forms: list[object] = [list(values), tuple(values), ro, a.view(_Sub), a.reshape(1, -1)]
    with np.errstate(all="ignore"):
        forms += [a.astype(d) for d in ("i1", "u1", "i2", "u4", "q", ">i8", "f8", "?")]
    forms += [a.view(d) for d in ("u8", ">i8", "i4", "u2", "i1", "f8")]  # the same bytes
    forms += [
        np.repeat(a, 2)[::2],  # strided
        np.array(a, np.dtype("i8", metadata={"m": 1})),  # == int64's dtype, another object
        a.tobytes(),
        bytearray(a.tobytes()),
        memoryview(a),
        array.array("q", values),
        [bool(v) if v in (0, 1) else v for v in values],
        [float(v) for v in values],
        [np.int64(v) for v in values],
        [np.array(v) for v in values],
    ]
    if len(values) == 1:
        forms += [values[0], np.int64(values[0]), np.array(values[0]), values[0] == 1]
    return forms


@st.composite
def _calls_in_forms(draw):
    """(op, data, args, kwargs) twice: one call, its parameters in two forms of _forms."""
    rank = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    x = np.arange(int(np.prod(shape))).reshape(shape)
    op = draw(st.sampled_from(("split", "variadic_split", "strided_slice", "slice")))
    n = draw(st.integers(0, rank + 1))
    vector = st.lists(st.integers(-6, 6), min_size=n, max_size=n)
    steps = st.lists(st.sampled_from([1, 2, -1, -2, 0]), min_size=n, max_size=n)
    axis = [draw(st.integers(-rank - 1, rank))]
    kwargs: dict[str, list[int]] = {}
    if op == "split":
        args = [axis, [draw(st.integers(0, 4))]]
    elif op == "variadic_split":
        args = [axis, draw(st.lists(st.integers(-1, 4), max_size=4))]
    else:
        args = [draw(vector), draw(vector), draw(steps)]
    if op == "slice" and draw(st.booleans()):
        args.append(draw(st.lists(st.integers(-rank - 1, rank), min_size=n, max_size=n)))
    if op == "strided_slice":
        for name in sorted(draw(st.sets(st.sampled_from(_MASKS)))):
            kwargs[name] = draw(st.lists(st.integers(0, 1), max_size=n + 1))

    def pick(values):
        forms = _forms(values)
        return forms[draw(st.integers(0, len(forms) - 1))]

    def call():
        return [pick(v) for v in args], {k: pick(v) for k, v in kwargs.items()}

    return op, x, call(), call()


@settings(max_examples=examples(400), deadline=None)
@given(_calls_in_forms())
def test_both_plan_paths_answer_every_form_alike(call):
    # A call's outcome (values, or the error and its message) is the same on the compiled and
    # the pure-Python path, fresh or after a call of the same values in another form stored a
    # plan (the memo keys arrays by their bytes: a look-alike must never find that plan).
    op, x, (args, kwargs), (args2, kwargs2) = call

    def outcome(args, kwargs):
        try:
            out = getattr(dm, op)(x, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - any error, compared by type and message
            return type(exc).__name__, str(exc)
        return [(o.shape, o.tolist()) for o in (out if isinstance(out, tuple) else (out,))]

    answers = {}
    for path in ("python", "compiled") if kernels is not None else ("python",):
        with _plan.plan_path(path):
            fresh = outcome(args2, kwargs2)
        with _plan.plan_path(path):
            first = outcome(args, kwargs)
            after = [outcome(args2, kwargs2), outcome(args, kwargs), outcome(args2, kwargs2)]
        assert after == [fresh, first, fresh], path
        answers[path] = (first, fresh)
    assert len(set(map(repr, answers.values()))) == 1


def test_the_python_hit_of_a_long_call_past_its_memo():
    # 200 values near 2**62 marshal to ~3 KB, past the memo's bound: python_key answers alone.
    x = np.zeros(3)
    params = ([2**62 - k for k in range(200)], 0)
    k = _plan.python_key(np.ndarray, 0, x.shape, *params)
    plans = {k: _plan.single((Ellipsis,))}
    assert _plan.python_hit(plans, np.ndarray, 0, x, *params) is not None
    assert _plan.python_hit(plans, np.ndarray, 0, x, *params[:1], False) is None


def test_calls_from_many_threads_agree_with_serial_calls(plan_path):
    rng = np.random.default_rng(0)
    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    jobs = []
    for _ in range(400):
        b = rng.integers(-6, 6, 4).tolist()
        e = rng.integers(-6, 6, 4).tolist()
        s = [int(v) or 1 for v in rng.integers(-3, 3, 4)]
        m = rng.integers(0, 2, (2, 4)).tolist()
        jobs.append((b, e, s, m))

    def run(job):
        b, e, s, m = job
        out = dm.strided_slice(x, b, e, s, begin_mask=m[0], end_mask=m[1])
        parts = dm.split(x, len(b) - 1 - (sum(m[0]) % 4), 1)
        return out.tolist(), [p.shape for p in parts]

    serial = [run(j) for j in jobs]
    # an empty cache again: the threads fill it, racing on the misses
    with _plan.plan_path(plan_path), ThreadPoolExecutor(8) as pool:
        threaded = list(pool.map(run, jobs))
    assert threaded == serial


def test_a_list_changed_by_another_thread_never_leaves_a_wrong_plan(plan_path):
    x = np.arange(10)
    begin, lengths = [0], [4, 6]
    stop = threading.Event()

    def change():
        while not stop.is_set():
            begin[0] = 3 - begin[0]  # 0 <-> 3
            lengths.reverse()  # [4, 6] <-> [6, 4]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    changer = threading.Thread(target=change)
    changer.start()
    try:
        for _ in range(300):
            with _plan.plan_path(plan_path):  # an empty cache each round
                assert dm.strided_slice(x, begin, [8]).tolist() in (
                    [0, 1, 2, 3, 4, 5, 6, 7],
                    [3, 4, 5, 6, 7],
                )
                assert [len(c) for c in dm.variadic_split(x, 0, lengths)] in ([4, 6], [6, 4])
                # whatever was stored answers for its own values
                assert dm.strided_slice(x, [0], [8]).tolist() == list(range(8))
                assert dm.strided_slice(x, [3], [8]).tolist() == list(range(3, 8))
                assert [len(c) for c in dm.variadic_split(x, 0, [4, 6])] == [4, 6]
                assert [len(c) for c in dm.variadic_split(x, 0, [6, 4])] == [6, 4]
    finally:
        stop.set()
        changer.join()
        sys.setswitchinterval(interval)


def test_import_datamove_imports_no_optional_dependency():
    code = (
        "import sys, datamove, datamove.directml, datamove.ir\n"
        "bad = [m for m in ('openvino', 'torch', 'jax', 'dask', 'cupy', 'ml_dtypes', "
        "'array_api_strict', 'hypothesis', 'onnx', 'onnxruntime', 'zarr') if m in sys.modules]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_shrink_ignores_begin_mask():
    # OpenVINO's evaluate uses begin[i] on a shrunk axis whatever begin_mask says (the CPU plugin
    # takes index 0 instead: a plugin bug, docs/semantics.md #11).
    assert dm.strided_slice(A6, [3], [0], begin_mask=[1], shrink_axis_mask=[1]).tolist() == 3
    assert dm.infer_strided_slice([6], [3], [0], begin_mask=[1], shrink_axis_mask=[1]) == []


def _api_tables() -> dict[str, list[tuple[str, str]]]:
    """docs/api.md's tables: the section (``""`` for the first) -> its (name, text) rows."""
    from pathlib import Path

    doc = (Path(__file__).parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    tables: dict[str, list[tuple[str, str]]] = {}
    section = ""
    for line in doc.splitlines():
        if line.startswith("## "):
            section = line[3:].strip("`")
        elif line.startswith("| `"):
            name, text = line[1:].split(" | ", 1)
            tables.setdefault(section, []).append((name.strip(" `"), text))
    return tables


def _plain(signature: inspect.Signature, *, bound: bool = False) -> str:
    """A signature as the docs write it: no annotations (and no ``self`` or ``cls``)."""
    params = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=params[bound:], return_annotation=signature.empty))


def _attributes(cls: type) -> set[str]:
    """What an instance of ``cls`` has: class attributes, and what its ``__init__``s set."""
    names = set(dir(cls))
    for base in cls.__mro__:
        if base.__module__.startswith("datamove"):
            names |= set(re.findall(r"self\.(\w+)\s*[:=]", inspect.getsource(base)))
    with contextlib.suppress(TypeError, ValueError):
        names |= set(inspect.signature(cls).parameters)
    return names


def _parameter_names(text: str) -> list[str]:
    """``"a, b=1, *, c=None"`` as ``["a", "b=", "*", "c="]``: the names, and which have defaults."""
    return [p.split("=")[0] + ("=" if "=" in p else "") for p in text.split(", ") if p]


def test_public_names_are_the_documented_ones():
    # docs/api.md lists every public name of datamove and datamove.ir, each function with its
    # signature; each method or attribute a class's row names exists, with the parameters shown.
    import datamove.ir

    tables = _api_tables()
    for module, rows in ((dm, tables[""]), (datamove.ir, tables["datamove.ir"])):
        assert {name for name, _ in rows} == set(module.__all__)
        for name, text in rows:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                written = re.match(rf"`{name}(\(.*?\))`", text)
                assert written, f"{name}: no signature"
                assert written.group(1) == _plain(inspect.signature(obj)), name
            if not isinstance(obj, type):
                continue
            have = _attributes(obj)
            # `Slicing.from_dml(...)`, `s.infer(shape)`, `.to_numpy`, `model.run(inputs)` ...
            member = rf"(?:^|[`\s(])(?:{name}|s|t|model)?\.(\w+)(\(([^()]*)\))?"
            for found in re.finditer(member, text):
                attr, params = found.group(1), found.group(3)
                assert attr in have, f"{name}.{attr}"
                shown = _parameter_names(params or "")
                if found.group(2) and all(re.fullmatch(r"\*|\w+=?", p) for p in shown):
                    method = getattr(obj, attr)
                    real = _plain(inspect.signature(method), bound=inspect.isfunction(method))
                    assert shown == _parameter_names(real[1:-1]), f"{name}.{attr}: {real}"


def test_numpy_ints_are_ranks() -> None:
    assert dm.PartialShape.dynamic(np.int64(3)) == dm.PartialShape("[?,?,?]")
    assert dm.PartialShape.dynamic(np.int8(-1)) == dm.PartialShape(None)


def _a(name: str) -> str:
    return "an" if name == "array-api-strict" else "a"


def _library_arrays() -> list[Any]:
    """(library name, a maker of its arrays from a NumPy one) for each library installed."""
    makers = [pytest.param("NumPy", lambda a: a, id="NumPy")]
    for module, name, make in (
        ("torch", "PyTorch", lambda m: m.from_numpy),
        ("jax.numpy", "JAX", lambda m: m.asarray),
        ("array_api_strict", "array-api-strict", lambda m: m.asarray),
        ("dask.array", "Dask", lambda m: m.from_array),
    ):
        try:
            m = importlib.import_module(module)
        except ImportError:
            continue
        makers.append(pytest.param(name, make(m), id=name))
    return makers


@pytest.mark.parametrize(("library", "make"), _library_arrays())
@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda v: dm.strided_slice(np.arange(6), v, [2]), "begin"),
        (lambda v: dm.slice(np.arange(6), [0], [2], v), "step"),
        (lambda v: dm.variadic_split(np.arange(6), 0, v), "split_lengths"),
        (dm.Splitting.from_torch, "split_size_or_sections"),
    ],
    ids=["strided_slice-begin", "slice-step", "variadic_split-lengths", "from_torch"],
)
def test_an_array_parameter_s_mistake_reads_alike_in_every_library(
    library: str, make: Any, call: Any, argument: str
) -> None:
    # Each mistake names the operator, the argument, what was given and the rule, in one
    # wording whichever library made the array (a PyTorch one said "holds Tensor at index 0",
    # an array-api-strict one "must be a sequence of integers, not Array").
    def rule(v: Any) -> tuple[str | None, str]:
        with pytest.raises(dm.ValidationError) as e:
            call(v)
        assert e.value.argument == argument
        return type(e.value).__name__, e.value.rule

    floats = make(np.array([1.0, 2.0], np.float32))
    assert rule(floats) == (
        "DTypeError",
        "has element type float32, but must be of an integer type",
    )
    assert rule(make(np.ones((1, 1), np.int64))) == (
        "ValidationError",
        "must be 1-D, but has shape [1, 1]",
    )
    assert rule([make(np.array(1.0, np.float32))]) == (
        "DTypeError",
        f"holds a 0-d {library} array of element type float32 at index 0; integers only",
    )
    assert rule([make(np.array([1, 2]))]) == (
        "ValidationError",
        f"must be 1-D, but holds a 1-D {library} array at index 0",
    )
    if library == "NumPy":
        return  # NumPy's integer arrays are read
    wanted = "a list of integers or a NumPy integer array"
    assert rule(make(np.array([1, 2]))) == (
        "DTypeError",
        f"is {_a(library)} {library} array, but must be {wanted}",
    )
    assert rule([make(np.array(1))]) == (
        "DTypeError",
        f"holds a 0-d {library} array at index 0; integers only (Python or NumPy)",
    )


@pytest.mark.parametrize(("library", "make"), _library_arrays())
def test_an_array_scalar_parameter_s_mistake_reads_alike_in_every_library(
    library: str, make: Any
) -> None:
    def rule(v: Any) -> tuple[str | None, str]:
        with pytest.raises(dm.ValidationError) as e:
            dm.split(np.arange(6), v, 2)
        assert (e.value.op, e.value.argument) == ("Split", "axis")
        return type(e.value).__name__, e.value.rule

    assert rule(make(np.array(0.0, np.float32))) == (
        "DTypeError",
        "has element type float32, but must be of an integer type",
    )
    assert rule(make(np.array([0]))) == ("ValidationError", "must be a scalar, but has shape [1]")
    if library != "NumPy":
        assert rule(make(np.array(0))) == (
            "DTypeError",
            f"is {_a(library)} {library} array, but must be an integer (Python or NumPy)",
        )


@pytest.mark.parametrize(("library", "make"), _library_arrays())
def test_an_array_mask_s_mistake_reads_alike_in_every_library(library: str, make: Any) -> None:
    def rule(v: Any) -> tuple[str | None, str]:
        with pytest.raises(dm.ValidationError) as e:
            dm.strided_slice(np.arange(6), [0], [2], begin_mask=v)
        assert (e.value.op, e.value.argument) == ("StridedSlice", "begin_mask")
        return type(e.value).__name__, e.value.rule

    assert rule(make(np.array([1.0], np.float32))) == (
        "DTypeError",
        "has element type float32; a mask is a list of 0 and 1",
    )
    assert rule(make(np.ones((1, 1), np.int64))) == (
        "ValidationError",
        "must be 1-D (a list of 0 and 1), but has shape [1, 1]",
    )
    if library != "NumPy":
        assert rule(make(np.array([1]))) == (
            "DTypeError",
            f"is {_a(library)} {library} array, but must be a list of 0 and 1 or a NumPy array",
        )


@pytest.mark.parametrize(("library", "make"), _library_arrays())
def test_a_mask_s_items_are_read_as_a_vector_s_items(library: str, make: Any) -> None:
    # One rule reads the items of a list, mask or integer vector: a 0-d integer array of another
    # library was accepted inside a mask (read with operator.index), refused inside begin.
    def rules(item: Any) -> list[tuple[str, str]]:
        got = []
        for kwargs in ({"begin_mask": [item, 0]}, {"begin": [item, 0], "end": [2, 2]}):
            with pytest.raises(dm.ValidationError) as e:
                dm.strided_slice(np.zeros((2, 2)), **{"begin": [0, 0], "end": [2, 2], **kwargs})
            assert (e.value.op, e.value.argument) == ("StridedSlice", next(iter(kwargs)))
            got.append((type(e.value).__name__, e.value.rule))
        return got

    mask = "a mask is a list of 0 and 1 (ints or bools)"
    f32 = f"holds a 0-d {library} array of element type float32 at index 0"
    assert rules(make(np.array(1.0, np.float32))) == [
        ("DTypeError", f"{f32}; {mask}"),
        ("DTypeError", f"{f32}; integers only"),
    ]
    assert (
        rules(make(np.array([1])))
        == [("ValidationError", f"must be 1-D, but holds a 1-D {library} array at index 0")] * 2
    )
    assert rules([1]) == [("ValidationError", "must be 1-D, but holds a sequence at index 0")] * 2
    assert rules(1.0) == [
        ("DTypeError", f"holds a float at index 0; {mask}"),
        ("DTypeError", "holds a float at index 0; integers only"),
    ]
    if library == "NumPy":  # NumPy's 0-d integer arrays are read, in both
        assert dm.strided_slice(np.arange(3), [np.array(1)], [2], begin_mask=[np.array(1)]).size
        return
    held = f"holds a 0-d {library} array at index 0"
    assert rules(make(np.array(1))) == [
        ("DTypeError", f"{held}; {mask[:-1]}, Python or NumPy)"),
        ("DTypeError", f"{held}; integers only (Python or NumPy)"),
    ]


def test_a_numpy_subclass_defined_anywhere_is_read_as_numpy() -> None:
    # The library is told by the array's module, but a NumPy subclass of any module is NumPy's.
    class Mine(np.ndarray):
        pass

    begin = np.array([1]).view(Mine)
    assert dm.strided_slice(np.arange(5), begin, [4]).tolist() == [1, 2, 3]
    with pytest.raises(dm.DTypeError, match="has element type float64, but must be of an"):
        dm.strided_slice(np.arange(5), np.array([1.0]).view(Mine), [4])
