"""Junk in every argument of every public entry point: only datamove's ValidationError comes out.

The property tests throw values of every kind (None, bools, huge ints, NaN, strings, bytes,
NumPy scalars and arrays of every dtype, ragged nests, dicts, plain objects) at one argument at a
time, the others valid. Whatever the call does, it may only succeed or raise a
``datamove.ValidationError`` (which names the argument), and never change its input. The named
cases below are what such runs found, each once a NumPy or Python error escaping.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import datamove as dm
import datamove.directml as dml
from datamove import DTypeError, ValidationError
from strategies import fixed_settings

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-5, 30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.sampled_from(
        [b"ab", 1j, np.int8(3), np.float32(2.0), np.bool_(True), np.uint64(2**64 - 1), Ellipsis]
    ),
    st.sampled_from([slice(1, 2), object()]),
)
ARRAYS = st.one_of(
    st.lists(st.integers(-5, 30), max_size=5).map(lambda v: np.array(v, dtype=np.int64)),
    st.lists(st.integers(0, 30), max_size=5).map(lambda v: np.array(v, dtype=np.uint8)),
    st.lists(st.floats(-5, 5), max_size=4).map(np.array),
    st.sampled_from(
        [
            np.zeros((2, 2), np.int64),
            np.array(3),
            np.array([2], np.uint8),
            np.array(["a"]),
            np.array([1, "a"], dtype=object),
            np.array([True, False]),
        ]
    ),
)
JUNK = st.recursive(
    st.one_of(SCALARS, ARRAYS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=2), inner, max_size=2),
    ),
    max_leaves=8,
)

X = np.arange(2 * 6 * 4, dtype=np.float32).reshape(2, 6, 4)
SLICE_ARGS = ("begin", "end", "stride", "begin_mask", "end_mask", "new_axis_mask")
SLICE_ARGS += ("shrink_axis_mask", "ellipsis_mask", "copy")


def only_validation_errors(call: Any, *args: Any, **kwargs: Any) -> None:
    before = X.copy()
    with contextlib.suppress(ValidationError):  # anything else fails the test
        call(*args, **kwargs)
    assert np.array_equal(X, before)


@fixed_settings(150)
@given(junk=JUNK, other=JUNK, place=st.sampled_from(SLICE_ARGS))
def test_operators_and_shape_inference_take_junk(junk: Any, other: Any, place: str) -> None:
    args: dict[str, Any] = {"begin": [0, 1], "end": [2, 5], "stride": [1, 2]}
    args |= {"begin_mask": [0, 0], "end_mask": [0, 0], place: junk}
    begin, end, stride = args.pop("begin"), args.pop("end"), args.pop("stride")
    only_validation_errors(dm.strided_slice, X, begin, end, stride, **args)
    args.pop("copy", None)
    only_validation_errors(dm.infer_strided_slice, X.shape, begin, end, stride, **args)
    only_validation_errors(dm.split, X, junk, 2)
    only_validation_errors(dm.split, X, 1, junk)
    only_validation_errors(dm.split, X, 1, 2, copy=junk)
    only_validation_errors(dm.split, X, 1, 2, out=junk)
    only_validation_errors(dm.variadic_split, X, 1, junk)
    only_validation_errors(dm.variadic_split, X, junk, [2, 4])
    only_validation_errors(dm.infer_split, junk, 0, 2)
    only_validation_errors(dm.infer_split, [4, 6], other, junk)
    only_validation_errors(dm.infer_variadic_split, [4, "?", "2..10"], other, junk)
    only_validation_errors(dm.PartialShape, junk)
    only_validation_errors(dm.Dimension, junk)
    only_validation_errors(dm.Dimension, other, junk)
    only_validation_errors(dm.strided_slice, junk, [0], [1])
    only_validation_errors(dm.split, junk, 0, 1)


@fixed_settings(150)
@given(junk=JUNK, other=JUNK)
def test_directml_entry_points_take_junk(junk: Any, other: Any) -> None:
    whole = dml.TensorDesc("FLOAT32", [1, 2, 6, 4])
    half = dml.TensorDesc("FLOAT32", [1, 2, 3, 4])
    split = dml.SplitDesc(whole, [half, half], 2)
    buffer = np.zeros(192, np.uint8)
    only_validation_errors(dml.TensorDesc, junk, [2, 3])
    only_validation_errors(dml.TensorDesc, "FLOAT32", junk)
    only_validation_errors(dml.TensorDesc, "FLOAT32", [2, 3], junk)
    only_validation_errors(dml.TensorDesc, "FLOAT32", [2, 3], flags=junk)
    only_validation_errors(dml.TensorDesc, "FLOAT32", [2, 3], total_tensor_size_in_bytes=junk)
    only_validation_errors(dml.TensorDesc, "FLOAT32", [2, 3], guaranteed_base_offset_alignment=junk)
    only_validation_errors(dml.calc_buffer_tensor_size, "UINT8", junk, other)
    only_validation_errors(lambda: dml.SplitDesc(whole, junk, 2).validate())
    only_validation_errors(lambda: dml.SplitDesc(whole, [half, half], junk).validate())
    only_validation_errors(lambda: dml.JoinDesc(junk, whole, 2).validate())
    only_validation_errors(dml.split, X, junk, [3, 3])
    only_validation_errors(dml.split, X, 1, junk)
    only_validation_errors(dml.split, X, 1, [3, 3], data_type=junk)
    only_validation_errors(dml.join, junk, 0)
    only_validation_errors(dml.join, [X, X], junk)
    only_validation_errors(dml.run_split, split, junk)
    only_validation_errors(dml.run_split, split, buffer, outputs=junk)
    only_validation_errors(dml.run_split, split, buffer, feature_level=junk)
    only_validation_errors(dml.loads, junk if isinstance(junk, str) else repr(junk))
    only_validation_errors(dml.desc_from_json, junk)
    only_validation_errors(dml.tensor_from_json, junk)
    only_validation_errors(dml.read_tensor, whole, junk)
    only_validation_errors(dml.write_tensor, whole, junk)
    only_validation_errors(dml.split_desc_from_openvino, junk, other)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from datamove.ir import read_model
    from datamove.ir._examples import write_example

    return read_model(write_example(tmp_path_factory.mktemp("ir")))


@fixed_settings(150)
@given(junk=JUNK)
def test_ir_model_run_and_check_take_junk(model: Any, junk: Any) -> None:
    only_validation_errors(model.run, junk)
    only_validation_errors(model.run, {"x": junk})
    only_validation_errors(model.check, junk)
    only_validation_errors(model.check, {"x": junk})


RAGGED = ({}, [])
FOUND = [
    # (call, error class, words the message must hold)
    (lambda: dm.split(RAGGED, 0, 1), DTypeError, "data=({}, []) cannot be read as an array"),
    (lambda: dm.strided_slice(RAGGED, [0], [1]), DTypeError, "cannot be read as an array"),
    (lambda: dm.split(X, [[1], 2], 2), ValidationError, "must be a scalar, but is a ragged"),
    (lambda: dm.variadic_split(X, [[1], 2], [2, 4]), ValidationError, "but is a ragged sequence"),
    (lambda: dm.split(X, 1, 2, copy=np.array([])), DTypeError, "must be None, True or False"),
    (lambda: dm.Dimension(np.array([2], np.uint8)), DTypeError, "must be an integer"),
    (lambda: dm.PartialShape([np.array([1, 2])]), DTypeError, "must be an int, a Dimension"),
    (lambda: dml.run_split(_SPLIT, np.zeros(192, np.uint8), outputs=2), DTypeError, "sequence"),
    (lambda: dml.run_split(_SPLIT, np.array([1, "a"], object)), DTypeError, "Python objects"),
    (lambda: dml.write_tensor(_HALF, [1, 2]), ValidationError, "does not broadcast"),
    (lambda: dml.join([X, RAGGED], 0), DTypeError, "arrays[1]=({}, []) cannot be read"),
    (lambda: dm.split(X, 0, np.uint64(2**64 - 1)), ValidationError, "does not fit in int64"),
    (lambda: dm.split(X, 0, 2**64), ValidationError, "num_splits=18446744073709551616 does not"),
    (lambda: dml.split(X, 1, np.array(3)), ValidationError, "must be 1-D, but has shape []"),
    (lambda: dml.calc_buffer_tensor_size("UINT8", [], np.array(3)), ValidationError, "1-D"),
]
_HALF = dml.TensorDesc("FLOAT32", [1, 2, 3, 4])
_SPLIT = dml.SplitDesc(dml.TensorDesc("FLOAT32", [1, 2, 6, 4]), [_HALF, _HALF], 2)


@pytest.mark.parametrize(("call", "error", "words"), FOUND)
def test_inputs_that_once_escaped_as_numpy_or_python_errors(
    call: Any, error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_copy_takes_numpy_bools() -> None:
    parts = dm.split(X, 1, 2, copy=np.bool_(True))
    assert not np.shares_memory(parts[0], X)
    assert np.shares_memory(dm.split(X, 1, 2, copy=np.bool_(False))[0], X)
