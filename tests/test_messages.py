"""The wording of error messages: the same mistake reads the same way wherever it is made."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import datamove as dm
from datamove import _split


def _message(call: Any) -> str:
    with pytest.raises(dm.ValidationError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize(
    ("num_splits", "expected"),
    [
        (
            np.array([1, 2]),
            "Split: num_splits=array([1, 2], dtype=int64) must be a scalar, but has shape [2]",
        ),
        ([1, 2], "Split: num_splits=[1, 2] must be an integer, not a list"),
    ],
)
def test_execution_and_inference_name_what_the_caller_passed(
    num_splits: Any, expected: str
) -> None:
    # The plan cache checks a snapshot (a tuple) of a list or an array; its error must name the
    # caller's value and what it is, as shape inference of the same value does.
    assert _message(lambda: dm.split(np.arange(6), 0, num_splits)) == expected
    assert _message(lambda: dm.infer_split([6], 0, num_splits)) == expected


def test_a_list_made_valid_during_the_check_gets_the_snapshots_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The caller's own list is checked again only for the error it would get uncached; where
    # another thread (a hook here) made it valid since the snapshot was checked, the snapshot's
    # error stands, naming the snapshot: an error naming a value, never a crash.
    lengths = [5, 2]
    build = _split._build_variadic_split

    def changing(shape: Any, axis: Any, split_lengths: Any) -> Any:
        lengths[0] = 4
        return build(shape, axis, split_lengths)

    monkeypatch.setattr(_split, "_build_variadic_split", changing)
    with pytest.raises(dm.ValidationError, match=r"split_lengths=\(5, 2\) sum to 7"):
        dm.variadic_split(np.arange(6), 0, lengths)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, "None"),
        (1.5, "a float"),
        (1 + 1j, "a complex number"),
        ("a", "a string"),
        (b"a", "a bytes object"),
        ({1}, "a set"),
        (np.float32(1), "a NumPy float32"),
        (True, "a bool"),
    ],
)
def test_one_word_for_what_a_value_is(value: Any, kind: str) -> None:
    # Each rule that refuses a kind of value names it the same way: "not a bool" and "not a
    # float" were beside "not NoneType", "not str", and a complex number was "not a float".
    assert _message(lambda: dm.infer_split([6], value, 2)).endswith(
        f"must be an integer, not {kind}"
    )
    assert _message(lambda: dm.infer_variadic_split([6], 0, value)).endswith(
        f"must be a sequence of integers, not {kind}"
    )
    assert _message(lambda: dm.infer_variadic_split([6], 0, [2, value])).endswith(
        f"holds {kind} at index 1; integers only"
    )
    if not isinstance(value, str | None):  # a shape's notation; a shape of unknown rank
        assert _message(lambda: dm.infer_split(value, 0, 2)).endswith(
            f"must be a PartialShape, a sequence of dimensions or a string, not {kind}"
        )
    if not isinstance(value, np.generic | bool | float | complex):
        assert _message(lambda: dm.split(value, 0, 2)).endswith(f"must be an array, not {kind}")


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            lambda: dm.infer_slice([4], [0, 0, 0], [1, 1, 1], [1, 1, 1]),
            "Slice: start=[0, 0, 0] has 3 values, more than the 1 axis of data",
        ),
        (
            lambda: dm.infer_strided_slice([], [0], [1]),
            "StridedSlice: begin=[0] addresses 1 axis of data, but data has rank 0",
        ),
        (
            lambda: dm.infer_strided_slice([], [0, 0], [1, 1], ellipsis_mask=[1, 0]),
            "StridedSlice: begin=[0, 0] addresses 1 axis around the ellipsis, but data has rank 0",
        ),
        (
            lambda: dm.Slicing.from_numpy(1).infer([]),
            "Slicing: shape=[] has rank 0, but the slicing addresses 1 axis",
        ),
        (
            lambda: dm.Slicing.from_numpy(1).to_dml([]),
            "Slicing: shape=[] has rank 0, but the slicing addresses 1 axis",
        ),
        (
            lambda: dm.infer_strided_slice([4], [0, 0], [1]),
            "StridedSlice: end=[1] has 1 value, but begin has 2",
        ),
        (
            lambda: dm.Slicing.from_tf([0, 0], [1]),
            "tf.strided_slice: end=[1] has 1 value, but begin has 2; they need the same",
        ),
        (
            lambda: dm.Slicing.from_dml([0], [1], [1], output_sizes=[1, 1]),
            "DirectML SLICE1: output_sizes=[1, 1] has 2 values, but the window has 1 axis",
        ),
        (
            lambda: dm.split(np.arange(4), 0, 2, out=[np.zeros(2)]),
            "Split: out='<1 array>' has 1 array, but there are 2 outputs",
        ),
        (
            lambda: dm.Splitting.from_onnx(0, split=[1, 2], num_outputs=None, outputs=1),
            "has 2 values, but the node has 1 output",
        ),
    ],
)
def test_counts_of_one_are_singular(call: Any, expected: str) -> None:
    # "addresses 1 axes", "more than the 1 axes of data", "has 1 values", "<1 arrays>"
    assert _message(call).startswith(expected) or expected in _message(call)


@pytest.mark.parametrize(
    ("mask", "kind"), [(np.array([1, 0]), "a NumPy array"), ("1", "a string"), (True, "a bool")]
)
def test_a_tf_mask_of_the_wrong_kind_is_a_dtype_error(mask: Any, kind: str) -> None:
    # An array mask was a raw TypeError ("only integer scalar arrays can be converted").
    with pytest.raises(dm.DTypeError, match=f"begin_mask=.* must be an int bit field, not {kind}$"):
        dm.Slicing.from_tf([0, 0], [1, 1], begin_mask=mask)


@pytest.mark.parametrize(
    ("lengths", "rule"),
    [
        ([1, -2], "holds -2 at index 1; every length must be >= -1"),
        ([-1, -1], "holds -1 at indices 0 and 1; at most one length can be inferred"),
    ],
)
def test_variadic_split_lengths_read_alike_in_the_operator_and_splitting(
    lengths: list[int], rule: str
) -> None:
    # Splitting.from_variadic_split said "split_lengths[1]=-2 must be -1 or at least 0" and
    # "has more than one -1" under the same operator name, VariadicSplit.
    expected = f"VariadicSplit: split_lengths={lengths} {rule}"
    assert _message(lambda: dm.variadic_split(np.zeros(4), 0, lengths)) == expected
    assert _message(lambda: dm.Splitting.from_variadic_split(0, lengths)) == expected


def test_a_dim_of_the_wrong_kind_reads_alike() -> None:
    # "must be an int, a Dimension or a string" beside "... or a string like '2..10'"
    rule = "must be an int, a Dimension or a string like '2..10', not"
    assert _message(lambda: dm.infer_split([np.array([2])], 0, 1)).endswith(f"{rule} a NumPy array")
    assert _message(lambda: dm.infer_split([1.5], 0, 1)).endswith(f"{rule} a float")


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (
            lambda: dm.infer_strided_slice([4], [0], [1], new_axis_mask=[0, -1]),
            "StridedSlice: new_axis_mask=[0, -1] holds -1 at index 1; all masks",
        ),
        (
            lambda: dm.infer_strided_slice([4], [0], [1], end_mask=3),
            "StridedSlice: end_mask=3 must be a list of 0 and 1, not an int",
        ),
        (
            lambda: dm.concat(np.zeros(3), 0),
            (
                "Concat: arrays=array([0.0, 0.0, 0.0], dtype=float64) must be a sequence (a list "
                "or a tuple), not a NumPy array"
            ),
        ),
        (
            lambda: dm.Slicing.from_tf([0], [1], [0]),
            "tf.strided_slice: strides[0]=0 is zero; a stride must be non-zero",
        ),
    ],
)
def test_siblings_say_the_same_thing_the_same_way(call: Any, expected: str) -> None:
    # a mask value out of {0, 1} named no index where a float in a mask does; "must be a list
    # of 0 and 1" and "must be a sequence" did not say what was given; tf's zero stride read
    # "must be non-zero" where every other dialect says "is zero; a step must be non-zero".
    assert _message(call).startswith(expected)


def test_ir_messages_read_as_their_siblings(tmp_path: Any) -> None:
    # "1 unsupported layer(s)"; a dim of the IR said "(write 5, -1, ?, 1..10, ..6 or 3..)" in
    # its rule where a PartialShape dim says "(hint: write 5, 2..10, ..6, 3.., ? or -1)".
    from datamove import ir
    from datamove.ir._examples import write_example

    xml = write_example(tmp_path)
    text = xml.read_text()
    xml.write_text(text.replace('version="opset1"', 'version="opset0"', 1))
    with pytest.raises(ir.UnsupportedOperatorError, match=r"cannot run: 1 unsupported layer: "):
        ir.read_model(xml).run({"x": np.zeros((2, 6), np.float32)})
    xml.write_text(text.replace("<dim>6</dim>", "<dim>six</dim>", 1))
    with pytest.raises(ir.IRError, match=r"dim='six' is not a dimension \(hint: write 5, 2\.\.10"):
        ir.read_model(xml)


@pytest.mark.parametrize(
    ("call", "runtime"),
    [
        pytest.param(lambda: dm.strided_slice(np.arange(3), [2**63], [1]), "OpenVINO", id="ov"),
        pytest.param(lambda: dm.Slicing.from_tf([2**63], [1]), "TensorFlow", id="tf"),
        pytest.param(lambda: dm.Splitting.from_tf([2**63, 1]), "TensorFlow", id="tf.split"),
        pytest.param(lambda: dm.Splitting.from_torch(2**63), "PyTorch", id="torch"),
        pytest.param(lambda: dm.Splitting.from_numpy([2**63]), "NumPy", id="numpy"),
        pytest.param(lambda: dm.Slicing.from_onnx([2**63], [1]), "ONNX", id="onnx"),
        pytest.param(lambda: dm.Slicing.from_dml([2**63], [1], [1]), "DirectML", id="dml"),
        pytest.param(lambda: dm.Slicing.from_webnn([2**63], [1]), "WebNN", id="webnn"),
    ],
)
def test_the_int64_hint_names_the_runtime_of_the_operator(call: Any, runtime: str) -> None:
    assert _message(call).endswith(
        f"(hint: no {runtime} index type holds it; values are never wrapped)"
    )
