"""``tf.split`` in ``dm.Splitting`` (``from_tf``, ``to_tf``), against TensorFlow's CPU wheel.

``from_tf`` is checked on raw arguments (counts, sizes with ``-1``s, NumPy arrays of several
element types, 0-D arrays, ``num``, axes out of range) against what ``tf.split`` runs or
refuses; ``to_tf`` of splittings read from every other dialect is run by TensorFlow on static
shapes and at every size of interval shapes. TensorFlow is imported once (it is slow to import).
"""

from __future__ import annotations

import os
import re
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from strategies import available_memory, examples
from test_splitting import any_rule, same_parts

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # its own import-time deprecations; the tests warn as errors
    tf = pytest.importorskip(
        "tensorflow", reason="TensorFlow (tensorflow-cpu, in the test extra) is not installed"
    )

REFUSED = (tf.errors.OpError, ValueError, TypeError)


def run_tf(x: np.ndarray, arg: Any, axis: Any = 0, num: Any = None) -> list[np.ndarray] | None:
    """``tf.split(x, arg, axis, num)`` on the CPU; None where TensorFlow refuses."""
    try:
        with tf.device("/CPU:0"):
            return [p.numpy() for p in tf.split(tf.constant(x), arg, axis, num)]
    except REFUSED:
        return None


def run_emitted(emitted: tuple[str, dict[str, Any]], x: np.ndarray) -> list[np.ndarray] | None:
    name, p = emitted
    assert name == "split"
    assert set(p) == {"num_or_size_splits", "axis"}
    return run_tf(x, p["num_or_size_splits"], p["axis"])


def ours(x: np.ndarray, arg: Any, axis: Any = 0, num: Any = None) -> list[Any] | None:
    """``Splitting.from_tf(...)(x)``; None where datamove refuses (a ValidationError)."""
    try:
        return dm.Splitting.from_tf(arg, axis, num)(x)
    except dm.ValidationError:
        return None


size = st.integers(-3, 6) | st.just(-1)


@st.composite
def tf_split_arguments(draw: Any) -> tuple[Any, Any, Any]:
    """(num_or_size_splits, axis, num) as a caller of ``tf.split`` might write them."""
    kind = draw(st.sampled_from(["count", "list", "array", "0-d"]))
    n = draw(st.integers(0, 4))
    sizes = draw(st.lists(size, min_size=n, max_size=n))
    arg: Any
    if kind == "count":
        arg = draw(st.integers(-1, 6))
        if draw(st.booleans()):
            arg = np.int64(arg)
    elif kind == "list":
        arg = sizes if draw(st.booleans()) else tuple(sizes)
    elif kind == "array":
        dtype = draw(st.sampled_from(["int8", "int32", "int64", "uint8", "int16"]))
        arg = np.array([abs(v) if dtype[0] == "u" else v for v in sizes], dtype=dtype)
    else:
        arg = np.array(draw(st.integers(1, 4)))
    num = draw(st.none() | st.integers(0, 5) | st.just(n))
    return arg, draw(st.integers(-4, 3)), num


@settings(max_examples=examples(300), deadline=None)
@given(args=tf_split_arguments(), shape=st.lists(st.integers(0, 6), min_size=1, max_size=3))
def test_from_tf_splits_as_tensorflow_or_both_refuse(
    args: tuple[Any, Any, Any], shape: list[int]
) -> None:
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    want = run_tf(x, *args)
    got = ours(x, *args)
    assert same_parts(got, want), (args, shape, want, got)
    if want is not None:  # what it read writes back as the call it was read from
        s = dm.Splitting.from_tf(*args[:2])
        emitted = s.to_tf(tuple(shape))
        assert same_parts(run_emitted(emitted, x), want)
        d = shape[s.axis]
        assert dm.Splitting.from_tf(**emitted[1]).lengths(d) == s.lengths(d)


@pytest.mark.parametrize(
    ("arg", "axis", "num", "match"),
    [
        (0, 0, None, "num_or_size_splits=0 must be at least 1"),
        (np.array(2), 0, None, "is a 0-D tensor"),
        ([], 0, None, "is empty"),
        ([-1], 0, None, "is [-1]: one output must have the axis' size"),
        ([2, -1, -1], 0, None, "holds -1 at indices 1 and 2; at most one length can be"),
        ([2, -2, 5], 0, None, "holds -2 at index 1; every length must be >= -1"),
        ([2, 3], 0, 3, "num=3 is not the count of num_or_size_splits' 2 sizes"),
        (np.array([2, 3], np.uint8), 0, None, "element type uint8"),
        ([[2, 3]], 0, None, "must be 1-D"),
        ([2.0, 3.0], 0, None, "float"),
        (2, [0], None, "axis=[0] must be an integer"),
        (2, 1, None, "out of range"),
        (2, 0, None, "size=5 cannot be split by the 'even' rule with 2"),
        ([2, 2], 0, None, "size=5 cannot be split by the 'lengths' rule"),
        ([6, -1], 0, None, "size=5 cannot be split by the 'lengths' rule"),
    ],
)
def test_what_tensorflow_refuses_is_refused_naming_the_argument_and_rule(
    arg: Any, axis: Any, num: Any, match: str
) -> None:
    x = np.arange(5, dtype=np.int32)
    assert run_tf(x, arg, axis, num) is None
    with pytest.raises(dm.ValidationError, match=re.escape(match)):
        dm.Splitting.from_tf(arg, axis, num)(x)


def test_tensorflow_divergences_datamove_keeps() -> None:
    x = np.arange(5, dtype=np.int32)
    # TensorFlow reads a bool count as an int (True: one part); datamove refuses bools
    assert same_parts(run_tf(x, True), [x])
    with pytest.raises(dm.ValidationError, match="not a bool"):
        dm.Splitting.from_tf(True)
    # num is ignored with a count, by both
    assert same_parts(run_tf(x, 5, 0, "junk"), ours(x, 5, 0, "junk"))
    # [5, -1] gives an empty rest; [0] on an empty axis is that axis
    assert same_parts(ours(x, [5, -1]), run_tf(x, [5, -1]))
    assert dm.Splitting.from_tf([0]).lengths(0) == (0,)
    # int32 sizes whose sum overflows: TensorFlow 2.21 crashes (a segfault, so not run here)
    # on [2**31 - 1, 2**31 - 1, -1]; datamove sums exactly and refuses
    with pytest.raises(dm.ValidationError, match="'lengths' rule"):
        dm.Splitting.from_tf([2**31 - 1, 2**31 - 1, -1])(x)


@st.composite
def every_dialect(draw: Any) -> dm.Splitting:
    """A splitting of axis 1 read from any dialect: OpenVINO, NumPy, PyTorch, ONNX, WebNN..."""
    which = draw(st.sampled_from(["others", "webnn", "dml", "tf"]))
    if which == "others":
        return draw(any_rule())
    lengths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    if which == "webnn":
        return dm.Splitting.from_webnn(draw(st.integers(1, 4) | st.just(lengths)), 1)
    if which == "dml":
        return dm.Splitting.from_dml(1, [[2, v] for v in lengths])
    if draw(st.booleans()):
        return dm.Splitting.from_tf(draw(st.integers(1, 4)), 1)
    sizes = [v - 1 for v in lengths]
    if len(sizes) > 1 and draw(st.booleans()):
        sizes[draw(st.integers(0, len(sizes) - 1))] = -1
    return dm.Splitting.from_tf(sizes, 1)


def expected(s: dm.Splitting, x: np.ndarray) -> list[Any] | None:
    try:
        return s(x)
    except dm.ValidationError:
        return None


@settings(max_examples=examples(200), deadline=None)
@given(s=every_dialect(), shape=st.tuples(st.integers(0, 3), st.integers(0, 9)))
def test_every_splitting_written_by_to_tf_runs_alike_in_tensorflow_on_static_shapes(
    s: dm.Splitting, shape: tuple[int, int]
) -> None:
    x = np.arange(shape[0] * shape[1], dtype=np.int32).reshape(shape)
    want = expected(s, x)
    try:
        emitted = s.to_tf(shape)
    except dm.NotExpressible as exc:  # numpy.split's indices going back: parts overlap
        w = exc.witness
        assert s.rule == "indices"
        assert w == (shape[1],)
        assert want is not None
        assert sum(p.shape[1] for p in want) != shape[1]
        return
    except dm.ValidationError:
        assert want is None, (s, shape)
        return
    assert same_parts(run_emitted(emitted, x), want), (s, shape, emitted)


@settings(max_examples=examples(150), deadline=None)
@given(s=every_dialect(), bounds=st.tuples(st.integers(0, 10), st.integers(0, 10)))
def test_on_interval_sizes_to_tf_is_exact_for_every_size_or_raises_with_a_witness(
    s: dm.Splitting, bounds: tuple[int, int]
) -> None:
    lo, hi = min(bounds), max(bounds)
    shape = dm.PartialShape([2, dm.Dimension(lo, hi)])
    try:
        emitted = s.to_tf(shape)
    except dm.NotExpressible as exc:
        found = exc.witness
        assert found is not None, (s, shape)  # bounded sizes: every one was checked
        (w,) = found
        assert lo <= w <= hi, (s, shape)
        x = np.arange(2 * w, dtype=np.int32).reshape(2, w)
        if lo == hi:  # static: only overlapping indices
            assert s.rule == "indices"
            return
        # the closest call, tf.split of as many parts, splits the witness otherwise
        closest = run_tf(x, s._closest_count(), 1)
        assert not same_parts(closest, expected(s, x)), (s, shape, w)
        return
    except dm.ValidationError:  # the split refuses every allowed size
        for d in range(lo, hi + 1):
            with pytest.raises(dm.ValidationError):
                s.lengths(d)
        return
    for d in range(lo, hi + 1):
        x = np.arange(2 * d, dtype=np.int32).reshape(2, d)
        assert same_parts(run_emitted(emitted, x), expected(s, x)), (s, d, emitted)


@pytest.mark.parametrize(
    ("s", "shape", "want"),
    [
        (dm.Splitting.from_variadic_split(1, [2, -1]), "[?,2..99]", [2, -1]),
        (dm.Splitting.from_variadic_split(0, [-1]), "[3..5]", 1),  # tf.split refuses [-1]
        (dm.Splitting.from_split(0, 3), "[?]", 3),
        (dm.Splitting.from_torch(3, function="chunk"), [7], [3, 3, 1]),
        (dm.Splitting.from_torch(4, function="split"), "[5..8]", [4, -1]),
        (dm.Splitting.from_torch(2, function="chunk"), "[3..4]", [2, -1]),
        (dm.Splitting.from_numpy([1, 3]), "[4..6]", [1, 2, -1]),
        (dm.Splitting.from_torch(1, function="chunk"), "[?]", 1),
        (dm.Splitting.from_onnx(0, num_outputs=3, reading="reference"), "[7..9]", [3, 3, -1]),
    ],
)
def test_to_tf_writes_a_count_or_sizes(s: dm.Splitting, shape: Any, want: Any) -> None:
    assert s.to_tf(shape) == ("split", {"num_or_size_splits": want, "axis": s.axis})


@pytest.mark.parametrize(
    ("s", "shape", "bounded", "want"),
    [
        (dm.Splitting.from_variadic_split(1, [2, -1]), None, "[?,2..2147483647]", [2, -1]),
        (
            dm.Splitting.from_variadic_split(0, [2, -1]),
            "[2..2147483648]",
            "[2..2147483647]",
            [2, -1],
        ),
        (dm.Splitting.from_torch([2**31 - 1, 1], function="split"), None, None, [2**31 - 1, 1]),
        (dm.Splitting.from_torch(4, function="chunk"), [2**32 + 8], None, [2**30 + 2] * 4),
    ],
)
def test_to_tf_writes_int64_sizes_where_the_axis_may_pass_int32_max(
    s: dm.Splitting, shape: Any, bounded: Any, want: list[int]
) -> None:
    # SplitV reads the axis' size in the sizes' type: a list of small ints (int32) wraps past
    # INT32_MAX, see test_tensorflow_runs_int32_sizes_on_an_axis_past_int32_wrong
    name, kwargs = s.to_tf(shape)
    sizes = kwargs["num_or_size_splits"]
    assert (name, type(sizes), sizes.dtype, sizes.tolist()) == ("split", np.ndarray, "int64", want)
    if bounded is not None:  # on sizes up to INT32_MAX, a list
        assert s.to_tf(bounded) == ("split", {"num_or_size_splits": want, "axis": s.axis})
    x = np.arange(24, dtype=np.int32).reshape(2, 12)
    if shape is None and sum(want) < 12:  # TensorFlow runs the int64 sizes as the split
        assert same_parts(run_tf(x, sizes, s.axis), list(s(x)))


def test_to_tf_names_the_closest_count_and_its_witness() -> None:
    s = dm.Splitting.from_torch(3, function="chunk")
    with pytest.raises(dm.NotExpressible) as info:
        s.to_tf("[3..10]")
    assert info.value.witness == (4,)
    assert (
        "TensorFlow has no 'chunk' rule, and the closest call split({'num_or_size_splits': 3, "
        "'axis': 0}) refuses size 4 where this split gives (2, 2)"
    ) in str(info.value)
    # torch.split(x, 4) on [5..]: [4, -1] holds up to 8, not on 9
    with pytest.raises(dm.NotExpressible) as info:
        dm.Splitting.from_torch(4, function="split").to_tf("[5..]")
    assert info.value.witness == (5,)


def test_tensorflow_runs_int32_sizes_on_an_axis_past_int32_wrong() -> None:
    # SplitV's kernel reads the axis' size in the sizes' type (Tlen): a list of small ints is
    # int32, so on 2**32 + 8 elements [5, -1] gives the rest 3; its shape inference, int64
    # sizes and datamove give 2**32 + 3 (docs/dialects.md, Splits).
    n = 2**32 + 8
    f = tf.function(lambda v: tf.split(v, [5, -1])).get_concrete_function(
        tf.TensorSpec([n], tf.bool)
    )
    assert [o.shape[0] for o in f.structured_outputs] == [5, n - 5]
    assert dm.Splitting.from_tf([5, -1]).lengths(n) == (5, n - 5)
    if available_memory() < 16 * 2**30:
        pytest.skip("an axis past INT32_MAX needs a 4 GiB input and 16 GiB of free memory")
    with tf.device("/CPU:0"):
        x = tf.zeros([n], tf.bool)
        assert [p.shape[0] for p in tf.split(x, [5, -1])] == [5, 3]
        assert [p.shape[0] for p in tf.split(x, np.int64([5, -1]))] == [5, n - 5]
        # what to_tf writes for it, shapeless (int64 sizes), and its count form, run right
        sizes = dm.Splitting.from_tf([5, -1]).to_tf()[1]["num_or_size_splits"]
        assert [p.shape[0] for p in tf.split(x, sizes)] == [5, n - 5]
        assert [p.shape[0] for p in tf.split(x, 4)] == [n // 4] * 4
