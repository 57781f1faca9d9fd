"""TensorFlow slicing against the real ``tf.strided_slice`` (issue 20), TensorFlow's CPU wheel.

``to_tf`` keyword arguments are run by TensorFlow on random slicings and static shapes, and on
interval shapes at sampled sizes (the same arguments for each size); ``from_tf`` is checked on
random raw arguments (int bit fields, bits past ``len(begin)``, int64 extremes) against what
TensorFlow runs, or refuses. TensorFlow is imported once for the module (it is slow to import).
"""

from __future__ import annotations

import itertools
import os
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove._dialects import NUMPY
from datamove.cli import _dialect_text
from strategies import MASK_NAMES, examples
from test_dialects import (
    _with_rule,
    emitted_runs_as_sliced,
    numpy_indices,
    same,
    shapes,
    slicing_from,
)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # its own import-time deprecations; the tests warn as errors
    tf = pytest.importorskip(
        "tensorflow", reason="TensorFlow (tensorflow-cpu, in the test extra) is not installed"
    )

INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)
REFUSED = (tf.errors.OpError, ValueError, TypeError)


def run_tf(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """``tf.strided_slice(x, **p)`` with int64 indices, on the CPU."""
    vectors = {k: np.array(p[k], dtype=np.int64).reshape(-1) for k in ("begin", "end", "strides")}
    masks = {k: v for k, v in p.items() if k.endswith("_mask")}
    with tf.device("/CPU:0"):
        return tf.strided_slice(tf.constant(x), **vectors, **masks).numpy()


@settings(max_examples=examples(200), deadline=None)
@given(index=numpy_indices(), shape=shapes, source=st.sampled_from(["numpy", "strided_slice"]))
def test_to_tf_runs_in_tensorflow(
    index: tuple[Any, ...], shape: tuple[int, ...], source: str
) -> None:
    s = slicing_from(index, source)
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    emitted_runs_as_sliced(s, x, s.to_tf, run_tf)


@settings(max_examples=examples(100), deadline=None)
@given(
    index=numpy_indices(),
    dims=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=3),
    source=st.sampled_from(["numpy", "strided_slice"]),
)
def test_to_tf_on_interval_shapes_holds_at_every_size(
    index: tuple[Any, ...], dims: list[tuple[int, int]], source: str
) -> None:
    s = slicing_from(index, source)
    shape = dm.PartialShape([dm.Dimension(min(a, b), max(a, b)) for a, b in dims])
    try:
        p = s.to_tf(shape)
    except dm.NotExpressible as exc:
        w = exc.witness
        assert w is not None
        xw = np.arange(int(np.prod(w))).reshape(w)
        assert not same(s(xw), _with_rule(s, NUMPY)(xw))
        return
    except dm.ValidationError:
        return
    sizes = list(itertools.product(*(range(d.min, (d.max or 0) + 1) for d in shape.dims)))
    for w in sizes[:: max(1, len(sizes) // 8)]:
        x = np.arange(int(np.prod(w)), dtype=np.int32).reshape(w)
        try:
            want = s(x)
        except dm.ValidationError:
            continue
        assert same(run_tf(x, p), want), (s, shape, w, p)


bound = st.one_of(st.integers(-9, 9), st.sampled_from([INT64_MIN, INT64_MAX, 2**31 - 1]))


@st.composite
def tf_arguments(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(0, 4))
    vec = st.lists(bound, min_size=n, max_size=n)
    mask = st.integers(0, 2 ** (n + 1) - 1)  # one bit past len(begin) too
    return {
        "begin": draw(vec),
        "end": draw(vec),
        "strides": draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)),
        "begin_mask": draw(mask),
        "end_mask": draw(mask),
        "ellipsis_mask": draw(st.sampled_from([0, 0, 1, 2, 4, 3])),
        "new_axis_mask": draw(mask),
        "shrink_axis_mask": draw(mask),
    }


@settings(max_examples=examples(400), deadline=None)
@given(p=tf_arguments(), shape=shapes)
def test_from_tf_reads_what_tensorflow_runs_or_refuses(
    p: dict[str, Any], shape: tuple[int, ...]
) -> None:
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    p64 = {k: np.int64(v) if isinstance(v, list) else v for k, v in p.items()}  # as run_tf runs
    try:
        want = run_tf(x, p)
    except REFUSED:
        with pytest.raises(dm.ValidationError):
            dm.Slicing.from_tf(**p64)(x)
        return
    s = dm.Slicing.from_tf(**p64)
    assert same(s(x), want), (p, shape, want)
    assert same(run_tf(x, s.to_tf(shape)), want)


def test_tf_documented_example_is_wrong_and_tensorflow_agrees_with_python() -> None:
    # api_def_StridedSlice.pbtxt: "foo = [1,2,3,4]; foo[-2::-1] is [4,3]". TensorFlow runs [3,2,1].
    foo = np.array([1, 2, 3, 4], dtype=np.int32)
    p = {"begin": [-2], "end": [0], "strides": [-1], "end_mask": 1}
    assert run_tf(foo, p).tolist() == [3, 2, 1] == foo[-2::-1].tolist()
    assert dm.Slicing.from_tf(**p)(foo).tolist() == [3, 2, 1]
    assert dm.Slicing.from_numpy("x[-2::-1]").to_tf() == {
        "begin": [-2],
        "end": [0],
        "strides": [-1],
        "begin_mask": 0,
        "end_mask": 1,
        "ellipsis_mask": 0,
        "new_axis_mask": 0,
        "shrink_axis_mask": 0,
    }


def test_tensorflow_clamps_as_numpy_not_as_openvino() -> None:
    # y[-5::-1] on 4 elements: [] in TensorFlow and NumPy, [0] in OpenVINO and the ONNX spec.
    y = np.arange(4, dtype=np.int32)
    assert run_tf(y, {"begin": [-5], "end": [0], "strides": [-1], "end_mask": 1}).tolist() == []
    assert dm.strided_slice(y, [-5], [0], [-1], end_mask=[1]).tolist() == [0]
    with pytest.raises(dm.NotExpressible, match=r"sizes 1\.\.4"):
        dm.Slicing.from_strided_slice([-5], [0], [-1], end_mask=[1]).to_tf()


def test_tensorflow_refuses_a_negative_stride_on_a_shrunk_axis() -> None:
    x = np.arange(3, dtype=np.int32)
    p = {"begin": [1], "end": [2], "strides": [-1], "shrink_axis_mask": 1}
    with pytest.raises(REFUSED, match="only stride 1"):
        run_tf(x, p)
    with pytest.raises(dm.ValidationError, match="only stride 1"):
        dm.Slicing.from_tf(**p)
    assert dm.strided_slice(x, [1], [2], [-1], shrink_axis_mask=[1]).tolist() == 1  # OpenVINO


# Values near the int32 and int64 ends, where TensorFlow's index type decides what it reads.
near_ends = st.one_of(
    st.integers(-9, 9),
    st.sampled_from([2**31 - 1, 2**31, 2**32 + 3, 2**63 - 1]).flatmap(
        lambda v: st.sampled_from([v, -v, -v - 1])
    ),
)


def run_tf_as_given(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """``tf.strided_slice(x, **p)`` with ``p`` as it is: lists as TensorFlow converts them."""
    with tf.device("/CPU:0"):
        return tf.strided_slice(tf.constant(x), **p).numpy()


def test_tensorflow_reads_end_and_strides_in_begins_type_wrapping() -> None:
    # begin [0] is int32, so end 2**32 + 3 is read as 3; an int64 begin keeps it.
    x = np.arange(24, dtype=np.int32).reshape(8, 3)
    assert run_tf_as_given(x, {"begin": [0], "end": [2**32 + 3], "strides": [1]}).shape == (3, 3)
    assert run_tf_as_given(x, {"begin": np.int64([0]), "end": [2**32 + 3]}).shape == (8, 3)
    assert run_tf_as_given(x, {"begin": [7], "end": [-(2**63)], "strides": [-1]}).shape == (7, 3)
    with pytest.raises(dm.ValidationError, match=r"end\[0\]=4294967299 .* it would read 3"):
        dm.Slicing.from_tf([0], [2**32 + 3], [1])
    with pytest.raises(dm.ValidationError, match=r"strides\[1\]=2147483648 .*int32"):
        dm.Slicing.from_tf([0, 0], [0, -1], [1, 2**31], begin_mask=1, end_mask=1)
    with pytest.raises(dm.ValidationError, match=r"int16, begin's type"):
        dm.Slicing.from_tf(np.int16([0]), np.int64([2**16 + 3]))
    with pytest.raises(dm.DTypeError, match="int16, int32 or int64"):
        dm.Slicing.from_tf(np.uint8([0]), [3])
    with pytest.raises(REFUSED):
        run_tf_as_given(x, {"begin": np.uint8([0]), "end": [3]})
    # TensorFlow ignores a masked end: read as it runs
    assert dm.Slicing.from_tf([0], [2**32 + 3], end_mask=1).to_numpy() == "x[:]"
    p = dm.Slicing.from_numpy("x[:4294967299]").to_tf()
    assert p["end"].dtype == np.int64
    assert run_tf_as_given(x, p).shape == (8, 3)


@settings(max_examples=examples(300), deadline=None)
@given(
    begin=st.lists(near_ends, min_size=1, max_size=3),
    data=st.data(),
    as_array=st.sampled_from([None, np.int32, np.int64]),
    shape=shapes,
)
def test_from_tf_reads_lists_as_tensorflow_runs_them_or_refuses_a_wrapped_value(
    begin: list[int], data: Any, as_array: Any, shape: tuple[int, ...]
) -> None:
    n = len(begin)
    end = data.draw(st.lists(near_ends, min_size=n, max_size=n))
    strides = data.draw(st.lists(near_ends.filter(bool), min_size=n, max_size=n))
    end_mask = data.draw(st.integers(0, 2**n - 1))
    if as_array is not None:
        if as_array is np.int32 and not all(-(2**31) <= v < 2**31 for v in begin):
            return
        begin = np.array(begin, as_array)  # type: ignore[assignment]
    p = {"begin": begin, "end": end, "strides": strides, "end_mask": end_mask}
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    small = as_array is not np.int64 and all(-(2**31) <= v < 2**31 for v in p["begin"])
    half = 2**31 if small else 2**63  # begin's type: int32 or int64
    read = [v for i, v in enumerate(end) if not end_mask >> i & 1] + strides
    if not all(-half <= v < half for v in read):
        with pytest.raises(dm.ValidationError, match="does not fit in int"):
            dm.Slicing.from_tf(**p)
        return
    try:
        s = dm.Slicing.from_tf(**p)
    except dm.ValidationError:
        with pytest.raises(REFUSED):
            run_tf_as_given(x, p)
        return
    try:
        want = run_tf_as_given(x, p)
    except REFUSED:
        with pytest.raises(dm.ValidationError):
            s(x)
        return
    got = s(x)
    assert same(got, want), (p, shape, got, want)


@settings(max_examples=examples(200), deadline=None)
@given(
    cuts=st.lists(st.tuples(near_ends, near_ends, near_ends.filter(bool)), min_size=1, max_size=3),
    shape=shapes,
)
def test_to_tf_runs_as_given_and_as_the_cli_writes_it(
    cuts: list[tuple[int, int, int]], shape: tuple[int, ...]
) -> None:
    if len(cuts) > len(shape):
        return
    s = dm.Slicing.from_numpy(tuple(slice(*c) for c in cuts))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    want = s(x)
    assert same(run_tf_as_given(x, s.to_tf()), want), (s, shape)
    (text,) = _dialect_text.render("tf", _dialect_text.emit(s, "tf", None))
    with tf.device("/CPU:0"):
        pasted = eval(text, {"tf": tf, "x": tf.constant(x)})  # noqa: S307 - datamove's own text
    assert same(pasted.numpy(), want), (text, shape)


@pytest.mark.parametrize("rank", [0, 1, 2, 3])
def test_tensorflow_refuses_an_empty_begin_list_and_runs_an_empty_int_array(rank: int) -> None:
    # An empty list converts to float32, not one of tf.strided_slice's index types; an empty
    # integer array slices nothing (end and strides may then be empty lists).
    x = np.arange(2**rank, dtype=np.int32).reshape((2,) * rank)
    for begin, end in (([], []), ((), ()), ([], np.int64([]))):
        with pytest.raises(REFUSED, match="float"):
            run_tf_as_given(x, {"begin": begin, "end": end})
        with pytest.raises(dm.DTypeError) as info:
            dm.Slicing.from_tf(begin, end)
        assert (info.value.op, info.value.argument, info.value.value) == (
            "tf.strided_slice",
            "begin",
            begin,
        )
        assert "float32" in str(info.value)
    for begin in (np.int64([]), np.int32([]), np.int16([])):
        p = {"begin": begin, "end": [], "strides": []}
        assert same(dm.Slicing.from_tf(**p)(x), run_tf_as_given(x, p))


@pytest.mark.parametrize("mask", ["begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask"])
def test_tensorflow_masks_are_int32_and_a_negative_one_sets_bits_by_twos_complement(
    mask: str,
) -> None:
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    for v in (-1, -2, -(2**31), 2**31 - 1):
        p = {"begin": [0], "end": [1], mask: v}
        assert same(dm.Slicing.from_tf(**p)(x), run_tf_as_given(x, p)), p
    for v in (2**31, 2**32 - 1, -(2**31) - 1):
        p = {"begin": [0], "end": [1], mask: v}
        with pytest.raises(REFUSED):
            run_tf_as_given(x, p)
        with pytest.raises(dm.ValidationError, match=r"int32 bit field, in \[-2\*\*31, 2\*\*31\)"):
            dm.Slicing.from_tf(**p)


def test_tensorflow_takes_at_most_31_positions() -> None:
    x = np.zeros((1,) * 31, dtype=np.int8)
    for n in (31, 32):
        p = {"begin": [0] * n, "end": [1] * n, "strides": [1] * n}
        if n == 31:
            assert same(dm.Slicing.from_tf(**p)(x), run_tf_as_given(x, p))
            continue
        with pytest.raises(REFUSED, match="1D equal size"):
            run_tf_as_given(x, p)
        with pytest.raises(dm.ValidationError, match="at most 31"):
            dm.Slicing.from_tf(**p)
    p = dm.Slicing.from_numpy((0,) * 30 + (None,)).to_tf()  # position 30: the last bit used
    assert p["new_axis_mask"] == 1 << 30
    assert run_tf_as_given(np.zeros((1,) * 30, np.int8), p).shape == (1,)
    for index in ((0,) * 31 + (None,), (slice(-1, 5),) * 40):
        with pytest.raises(dm.NotExpressible, match="at most 31"):
            dm.Slicing.from_numpy(index).to_tf()


# Arguments of every kind tf.strided_slice is handed: lists (of ints, bools, NumPy integers),
# tuples, NumPy arrays of every integer type and bool, empty ones; masks of any int, bools,
# floats. datamove refuses three things TensorFlow runs, each documented (docs/dialects.md):
# a value TensorFlow reads wrapped, a bool index value, a mask that is no int.
_DTYPES = (None, "tuple", np.int8, np.int16, np.int32, np.int64, np.uint32, np.uint64, np.bool_)
_values = st.one_of(
    st.integers(-4, 4),
    st.sampled_from([2**31 - 1, 2**31, -(2**31) - 1, 2**32 + 1, 2**63 - 1, -(2**63), 2**64]),
    st.booleans(),
)


def _vector(draw: Any, n: int) -> Any:
    values = draw(st.lists(_values, min_size=n, max_size=n))
    kind = draw(st.sampled_from(_DTYPES))
    if kind is None:
        return values
    if kind == "tuple":
        return tuple(values)
    info = np.iinfo(kind) if kind is not np.bool_ else None
    ints = [int(v) for v in values]
    if info is not None and not all(info.min <= v <= info.max for v in ints):
        return values
    return np.array(ints, dtype=kind)


@st.composite
def raw_tf_arguments(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(0, 3))
    lengths = draw(st.sampled_from([(n, n, n), (n, n, n), (n, n + 1, n), (n, n, max(n - 1, 0))]))
    mask = st.one_of(
        st.integers(-(2**31) - 1, 2**31).filter(lambda v: abs(v) < 64 or abs(v) > 2**30),
        st.integers(-8, 15),
        st.sampled_from([True, 1.0, 2**32, 2**63]),
    )
    p: dict[str, Any] = {"begin": _vector(draw, lengths[0]), "end": _vector(draw, lengths[1])}
    if draw(st.booleans()):
        p["strides"] = _vector(draw, lengths[2])
    p.update((k, draw(mask)) for k in MASK_NAMES if draw(st.booleans()))
    return p


def _documented_refusal(exc: dm.ValidationError) -> bool:
    text = str(exc)
    return (
        "does not fit in int" in text
        or "bool" in text
        or ("_mask" in str(exc.argument) and not isinstance(exc.value, int | np.integer))
    )


@settings(max_examples=examples(400), deadline=None)
@given(p=raw_tf_arguments(), shape=st.sampled_from([(), (3,), (2, 3), (2, 1, 3), (1, 2, 1, 2)]))
def test_from_tf_refuses_what_tensorflow_refuses_on_raw_arguments_of_every_kind(
    p: dict[str, Any], shape: tuple[int, ...]
) -> None:
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    try:
        want = run_tf_as_given(x, p)
    except (*REFUSED, OverflowError, SystemError):  # a mask of 2**63: TF errs as it can
        with pytest.raises(dm.ValidationError):
            dm.Slicing.from_tf(**p)(x)
        return
    try:
        got = dm.Slicing.from_tf(**p)(x)
    except dm.ValidationError as exc:
        refused = exc
    else:
        assert same(got, want), (p, shape, got, want)
        return
    assert _documented_refusal(refused), (p, shape, refused)
