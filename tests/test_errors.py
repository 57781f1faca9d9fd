"""How errors show the values they name: as the caller wrote them, in bounded time and space."""

from __future__ import annotations

import array
import collections

import numpy as np
import pytest

import datamove as dm
from datamove import ir
from datamove._errors import show


def test_small_values_are_shown_as_written() -> None:
    assert show(np.arange(3, dtype=np.int8)) == "array([0, 1, 2], dtype=int8)"
    assert show(np.int64(2)) == "np.int64(2)"
    assert show([1, -2]) == "[1, -2]"
    assert show(np.float32) == "<class 'numpy.float32'>"


def test_a_type_passed_as_a_value_is_named_as_a_type() -> None:
    with pytest.raises(dm.DTypeError, match=r"axis=<class 'numpy.int64'> must be an integer"):
        dm.split(np.zeros(6), np.int64, 2)  # type: ignore[arg-type]


def test_big_values_show_their_head_and_size_only() -> None:
    big = np.zeros(1_000_000, np.float32)
    text = show(big)
    assert (
        text
        == "array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, ...], shape=[1000000], dtype=float32)"
    )
    assert show(list(range(10**6))) == "[0, 1, 2, 3, 4, 5, 6, 7, ... (1000000 items)]"
    with pytest.raises(dm.DTypeError) as info:
        dm.split(big, 0, 2, out=big)  # out must be a sequence: the whole array is not listed
    assert "shape=[1000000]" in str(info.value)
    assert len(str(info.value)) < 300


def test_other_libraries_arrays_are_never_read_to_show_them() -> None:
    """Listing a GPU array copies it to the host; listing a Dask array computes its graph."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")

    def boom() -> np.ndarray:
        raise AssertionError("the error message computed the Dask graph")

    lazy = da.from_delayed(dask.delayed(boom)(), shape=(3,), dtype=np.int64)
    assert show(lazy) == "<Array of shape [3] and dtype int64>"
    rule = r"must be a scalar, but has shape \[3\]"  # as a NumPy array of that shape
    with pytest.raises(
        dm.ValidationError, match=rf"axis=<Array of shape \[3\] and dtype int64> {rule}"
    ):
        dm.split(np.zeros(6), lazy, 2)
    with pytest.raises(dm.DTypeError, match="is a Dask array, but must be a list of integers"):
        dm.variadic_split(np.zeros(6), 0, lazy)
    torch = pytest.importorskip("torch")
    assert show(torch.arange(3)) == "<Tensor of shape [3] and dtype torch.int64>"


def test_ints_python_will_not_write_out_are_shown_by_size() -> None:
    huge = 10**5000  # repr() raises ValueError past 4300 digits
    assert show(huge) == "<int of 16610 bits>"
    assert show([1, huge]) == "[1, <int of 16610 bits>]"
    with pytest.raises(dm.ValidationError, match=r"<int of 16610 bits>"):
        dm.split(np.zeros(4), 0, huge)
    with pytest.raises(dm.ValidationError, match="is not a shape"):
        dm.PartialShape.parse("[" + "9" * 5000 + "]")


class _BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class _BrokenShape:
    dtype = "float32"

    @property
    def shape(self) -> tuple[int, ...]:
        raise RuntimeError("no sizes")


def test_showing_a_value_never_raises_and_stays_bounded() -> None:
    """The error must reach the caller whatever the value: a broken repr, deep nesting, ..."""
    assert show(_BrokenRepr()) == "<_BrokenRepr>"
    assert show([1, _BrokenRepr()]) == "<list>"
    assert show(np.array([_BrokenRepr()], object)) == "<ndarray>"
    assert show(_BrokenShape()) == "<_BrokenShape>"
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert show(deep) == "[[[[[...]]]]]"
    assert show(np.array([10**5000], object)) == "array([<int of 16610 bits>], dtype=object)"
    assert show("a" * 10**7).endswith("... (10000000 characters)")
    assert show(np.str_("a" * 10**7)).endswith("... (10000000 characters)")
    assert show(set(range(10**6))) == "{0, 1, 2, 3, 4, 5, 6, 7, ... (1000000 items)}"
    assert show({0: 1, 2: 3}) == "{0: 1, 2: 3}"
    assert show(frozenset({1})) == "frozenset({1})"
    assert show((1,)) == "(1,)"
    many = collections.deque(range(10**6))
    assert show(many) == "<deque of 1000000 items: 0, 1, 2, 3, 4, 5, 6, 7, ...>"
    assert show(array.array("b", bytes(10**6))).startswith("<array of 1000000 items: 0, 0,")
    assert show(dict.fromkeys(range(10**6)).keys()).startswith("<dict_keys of 1000000 items:")
    assert show(collections.deque([1, 2])) == "deque([1, 2])"
    assert show([[2, 4]]) == "[[2, 4]]"
    with pytest.raises(dm.DTypeError, match=r"num_splits=<_BrokenRepr>"):
        dm.split(np.zeros(4), 0, _BrokenRepr())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "err",
    [
        dm.AxisError("Split", "axis", 5, "is out of the tensor rank range [-1, 0]"),
        dm.ViewError("Slice", "copy", False, "cannot be honoured", hint="pass copy=None"),
        dm.NotExpressible("ONNX Slice", "begin", [1, 2], "is odd", hint="h", witness=(3, 4)),
        ir.ONNXError("path", "m.onnx", "is not an ONNX model", hint="h", op="ONNX check"),
        ir.UnsupportedOperatorError(None, None, "cannot run", hint="h", runnable=["y0"]),
        ir.MissingInputError("inputs", {}, "has no array", missing="x", needed=["x", "y"]),
    ],
    ids=["AxisError", "ViewError", "NotExpressible", "ONNXError", "Unsupported", "MissingInput"],
)
def test_errors_pickle_with_their_fields(err: dm.ValidationError) -> None:
    import pickle

    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err)
    assert str(again) == str(err)
    fields = ("op", "argument", "value", "rule", "hint", "witness", "runnable", "missing", "needed")
    assert [getattr(again, f, None) for f in fields] == [getattr(err, f, None) for f in fields]
