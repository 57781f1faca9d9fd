"""Slice-8 and Concat-1 (issue 18): each rule pinned, every array library, inference sound.

OpenVINO's side of these rules is ``test_slice_concat_openvino.py`` (the runtime is the
reference where the specs are silent). Here datamove's own answers are pinned, with readable
ids, including where OpenVINO is wrong or crashes (docs/semantics.md, divergences S-1 to S-7):
values against a plain model of OpenVINO's runtime rule (``taken``, written out from ONNX
Slice's text, not from datamove's code), error messages in full, every installed array library
(the ``xp`` fixture), both plan paths (``plan_path``), and the soundness of the interval shapes
both ``infer_*`` return.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import datamove as dm
import datamove.directml as dml
from datamove._shape import MAX_LENGTH
from strategies import (
    INT64_MAX,
    INT64_MIN,
    concrete_shapes,
    fixed_settings,
    index_container,
    index_values,
    partial_shapes,
    shape_text,
    static_shapes,
    stride_values,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from conftest import Lib

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def taken(d: int, start: int, stop: int, step: int) -> list[int]:
    """The indices Slice-8 takes on an axis of size ``d``: OpenVINO's runtime rule, which is
    ONNX Slice's. Negative start and stop count from the end; then with a positive step both
    clamp into ``[0, d]``, with a negative step start clamps into ``[0, d - 1]`` and stop into
    ``[-1, d - 1]`` (-1: through index 0)."""
    if d == 0:
        return []
    start += d if start < 0 else 0
    stop += d if stop < 0 else 0
    if step > 0:
        return list(range(min(max(start, 0), d), min(max(stop, 0), d), step))
    return list(range(min(max(start, 0), d - 1), min(max(stop, -1), d - 1), step))


def sliced(x: np.ndarray, start: Any, stop: Any, step: Any, axes: Any = None) -> np.ndarray:
    """``x`` sliced by ``taken`` on each listed axis (an independent model of Slice-8)."""
    start, stop, step = list(start), list(stop), list(step)
    listed = range(len(start)) if axes is None else [int(a) % x.ndim for a in axes]
    for i, axis in enumerate(listed):
        x = np.take(x, taken(x.shape[axis], int(start[i]), int(stop[i]), int(step[i])), axis)
    return x


# -- Slice-8: the rules on one axis ----------------------------------------------------------------

A6 = np.arange(6)


@pytest.mark.parametrize(
    ("data", "start", "stop", "step", "expected"),
    [
        pytest.param(A6, 1, 5, 2, [1, 3], id="1:5:2"),
        pytest.param(A6, 5, 0, -2, [5, 3, 1], id="5:0:-2"),
        pytest.param(np.arange(1), -3, -6, -3, [0], id="-3:-6:-3 on one element (Python: [])"),
        pytest.param(A6, -100, -200, -1, [0], id="-100:-200:-1 starts at 0 (Python: [])"),
        pytest.param(A6, -7, -8, -1, [0], id="-7:-8:-1 (Python: [])"),
        pytest.param(A6, 0, -100, -1, [0], id="0:-100:-1"),
        pytest.param(A6, 3, -1, -1, [], id="3:-1:-1 is empty: -1 is the last index"),
        pytest.param(A6, 100, -100, -3, [5, 2], id="100:-100:-3"),
        pytest.param(A6, 1, 6, 10, [1], id="1:6:10 takes one"),
        pytest.param(A6, INT64_MIN, INT64_MAX, 1, [0, 1, 2, 3, 4, 5], id="INT64_MIN:INT64_MAX"),
        pytest.param(A6, INT64_MAX, INT64_MIN, -1, [5, 4, 3, 2, 1, 0], id="INT64_MAX:INT64_MIN:-1"),
        pytest.param(A6, INT64_MAX, 0, -1, [5, 4, 3, 2, 1], id="INT64_MAX:0:-1"),
        pytest.param(A6, INT64_MIN, INT64_MIN, -1, [0], id="INT64_MIN:INT64_MIN:-1 (Python: [])"),
        pytest.param(A6, INT32_MIN, INT32_MAX, 1, [0, 1, 2, 3, 4, 5], id="INT32_MIN:INT32_MAX"),
        pytest.param(A6, INT32_MAX, INT32_MIN, -1, [5, 4, 3, 2, 1, 0], id="INT32_MAX:INT32_MIN:-1"),
        pytest.param(A6, 0, 6, INT64_MAX, [0], id="step INT64_MAX"),
        pytest.param(
            A6, 5, -7, INT64_MIN, [5], id="step INT64_MIN (OpenVINO's CPU plugin: SIGFPE)"
        ),
        pytest.param(
            A6, 4, -10, INT32_MIN, [4], id="step INT32_MIN (OpenVINO's CPU plugin: SIGFPE)"
        ),
        pytest.param(A6, INT64_MAX - 1, -8, -INT64_MAX, [5], id="step -INT64_MAX (CPU: garbage)"),
        pytest.param(A6, 1, 2**32 + 3, 1, [1, 2, 3, 4, 5], id="stop 2**32 + 3 (CPU: reads 3)"),
        pytest.param(A6, 2, 2, 1, [], id="2:2 empty"),
        pytest.param(A6, 4, 2, 1, [], id="4:2 empty"),
        pytest.param(A6, 2, 4, -1, [], id="2:4:-1 empty"),
        pytest.param(np.arange(0), -1, INT64_MIN, -1, [], id="zero-size axis, reversed"),
        pytest.param(np.arange(0), 0, 1, 1, [], id="zero-size axis"),
    ],
)
def test_one_axis(data, start, stop, step, expected):
    assert dm.slice(data, [start], [stop], [step]).tolist() == expected
    assert taken(len(data), start, stop, step) == expected  # the model agrees
    assert dm.infer_slice(data.shape, [start], [stop], [step]) == (len(expected),)


# The spec's examples (slice-8.rst, Examples 1 to 12): data, start, stop, step, axes, output.
R10 = np.arange(10)
SPEC_EXAMPLES = [
    pytest.param(R10, [1], [8], [1], [0], list(range(1, 8)), id="1 basic"),
    pytest.param(R10, [1], [8], [1], None, list(range(1, 8)), id="2 axes default"),
    pytest.param(R10, [1], [8], [2], [0], [1, 3, 5, 7], id="3 step 2"),
    pytest.param(R10, [-100], [100], [1], [0], list(range(10)), id="4 out of the dimension"),
    pytest.param(R10, [9], [-11], [-1], [0], list(range(9, -1, -1)), id="5 backward, stop -11"),
    pytest.param(R10, [9], [0], [-1], [0], list(range(9, 0, -1)), id="6 backward, stop 0"),
    pytest.param(R10, [9], [-10], [-1], [0], list(range(9, 0, -1)), id="7 backward, stop -10"),
    pytest.param(R10, [9], [-11], [-2], [0], [9, 7, 5, 3, 1], id="8 backward, step -2"),
    pytest.param(R10, [100], [-100], [-1], [0], list(range(9, -1, -1)), id="9 out, backward"),
    pytest.param(R10.reshape(2, 5), [0, 1], [2, 4], [1, 2], [0, 1], [[1, 3], [6, 8]], id="10 2-D"),
]


@pytest.mark.parametrize(("data", "start", "stop", "step", "axes", "expected"), SPEC_EXAMPLES)
def test_spec_examples(data, start, stop, step, axes, expected):
    assert dm.slice(data, start, stop, step, axes).tolist() == expected
    assert dm.infer_slice(data.shape, start, stop, step, axes) == np.shape(expected)


@pytest.mark.parametrize(
    ("stop", "axes"),
    [
        pytest.param([4, 10, 5], [0, 1, 2], id="11 3-D, all axes"),
        pytest.param([4, 10], None, id="12 last axes default"),
    ],
)
def test_spec_examples_3d(stop, axes):
    x = np.arange(20 * 10 * 5).reshape(20, 10, 5)
    n = len(stop)
    got = dm.slice(x, [0] * n, stop, [1] * n, axes)
    np.testing.assert_array_equal(got, x[:4])
    assert dm.infer_slice("[20,10,5]", [0] * n, stop, [1] * n, axes) == (4, 10, 5)


# -- Slice-8: axes ---------------------------------------------------------------------------------

X = np.arange(24).reshape(2, 3, 4)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(([1], [3], [1], [-1]), X[..., 1:3], id="axes=[-1]"),
        pytest.param(([0, 1], [1, 3], [1, 1], [-3, -2]), X[0:1, 1:3], id="axes=[-3, -2]"),
        pytest.param(
            ([3, 1], [0, 2], [-2, 1], [2, 0]), X[1:2, :, 3:0:-2], id="axes=[2, 0] unordered"
        ),
        pytest.param(([1], [2], [1], None), X[1:2], id="axes=None, one value: the first axis"),
        pytest.param(
            ([1, 2], [3, 0], [1, -1], None), X[1:3, 2:0:-1], id="axes=None: the first two"
        ),
        pytest.param(([], [], [], None), X, id="no values: data whole"),
        pytest.param(([], [], [], []), X, id="no values, axes=[]"),
        pytest.param(([0, 0, 0], [1, 1, 1], [1, 1, 1], [1, 2, 0]), X[:1, :1, :1], id="every axis"),
    ],
)
def test_axes(args, expected):
    got = dm.slice(X, *args)
    np.testing.assert_array_equal(got, expected, strict=True)
    np.testing.assert_array_equal(got, sliced(X, *args))
    assert dm.infer_slice(X.shape, *args) == expected.shape
    assert np.shares_memory(got, X)  # a view


def test_index_inputs_of_different_integer_types():
    # start, stop, step and axes each of its own integer type (OpenVINO's T_IND and T_AXIS):
    # only the values count.
    args = (
        np.array([3, 1], np.int8),
        np.array([0, 2], np.uint16),
        [np.int64(-2), 1],
        np.array([2, 0], np.uint32),
    )
    np.testing.assert_array_equal(dm.slice(X, *args), X[1:2, :, 3:0:-2])
    assert dm.infer_slice(X.shape, *args) == (1, 3, 2)
    i32 = np.array([INT32_MAX, INT32_MIN], np.int32)
    np.testing.assert_array_equal(
        dm.slice(X, i32, i32[::-1], np.array([-1, 1], np.int16)), X[::-1, :]
    )


@pytest.mark.parametrize(
    ("shape", "args", "expected"),
    [
        pytest.param((0, 3), ([0, 1], [5, 3], [1, 1], None), (0, 2), id="a zero-size axis sliced"),
        pytest.param((0, 3), ([-1], [INT64_MIN], [-1], None), (0, 3), id="reversed zero-size axis"),
        pytest.param((2, 0, 4), ([1], [3], [1], [2]), (2, 0, 2), id="another axis zero-size"),
        pytest.param((2, 3), ([2, 1], [0, 1], [1, 1], None), (0, 0), id="empty result"),
        pytest.param((2, 3), ([0], [2], [-1], [1]), (2, 0), id="empty result, negative step"),
    ],
)
def test_zero_size_and_empty(shape, args, expected):
    x = np.zeros(shape, np.float32)
    got = dm.slice(x, *args)
    assert got.shape == expected
    assert got.dtype == x.dtype
    assert dm.infer_slice(shape, *args) == expected
    assert dm.slice(x, *args, copy=True).shape == expected


# -- Slice-8: errors, pinned in full ---------------------------------------------------------------

Z = np.zeros((2, 3))
RANK0_RULE = "Slice: data.shape=[] is a scalar (rank 0); Slice needs data of rank 1 or more"


@pytest.mark.parametrize(
    ("args", "exc", "message"),
    [
        pytest.param(
            ([0], [1], [0]),
            dm.ValidationError,
            "Slice: step[0]=0 is zero; step must be non-zero",
            id="step 0",
        ),
        pytest.param(
            ([0, 0], [1, 1], [1, 1], [0, -2]),
            dm.ValidationError,
            "Slice: axes=[0, -2] lists axis 0 twice; each axis can be sliced once",
            id="axes=[0, -2] twice",
        ),
        pytest.param(
            ([0], [1], [1], [2]),
            dm.AxisError,
            "Slice: axes[0]=2 is out of the tensor rank range [-2, 1]",
            id="axes=[2] out of range",
        ),
        pytest.param(
            ([0], [1], [1], [-3]),
            dm.AxisError,
            "Slice: axes[0]=-3 is out of the tensor rank range [-2, 1]",
            id="axes=[-3] out of range",
        ),
        pytest.param(
            ([0], [1, 2], [1]),
            dm.ValidationError,
            "Slice: stop=[1, 2] has 2 values, but start has 1; start, stop and step need the "
            "same number of values",
            id="stop longer than start",
        ),
        pytest.param(
            ([0, 0], [1, 2], [1]),
            dm.ValidationError,
            "Slice: step=[1] has 1 value, but start has 2; start, stop and step need the same "
            "number of values",
            id="step shorter than start",
        ),
        pytest.param(
            ([0], [1], [1], [0, 1]),
            dm.ValidationError,
            "Slice: axes=[0, 1] has 2 values, but start, stop and step have 1",
            id="axes longer than start",
        ),
        pytest.param(
            ([0, 0, 0], [1, 1, 1], [1, 1, 1]),
            dm.ValidationError,
            "Slice: start=[0, 0, 0] has 3 values, more than the 2 axes of data",
            id="more values than axes",
        ),
        pytest.param(
            ([True], [1], [1]),
            dm.DTypeError,
            "Slice: start=[True] holds a bool at index 0; integers only",
            id="bool start",
        ),
        pytest.param(
            ([0], [1.0], [1]),
            dm.DTypeError,
            "Slice: stop=[1.0] holds a float at index 0; integers only",
            id="float stop",
        ),
        pytest.param(
            ([0], [1], np.array([1.0])),
            dm.DTypeError,
            "Slice: step=array([1.0], dtype=float64) has element type float64, but must be of an "
            "integer type",
            id="float array step",
        ),
        pytest.param(
            ([0], [1], [1], np.array([True])),
            dm.DTypeError,
            "Slice: axes=array([True], dtype=bool) has element type bool, but must be of an "
            "integer type",
            id="bool array axes",
        ),
        pytest.param(
            (0, [1], [1]),
            dm.ValidationError,
            "Slice: start=0 must be 1-D, but is a scalar (hint: write [0])",
            id="a scalar start",
        ),
        pytest.param(
            (np.zeros((1, 1), np.int64), [1], [1]),
            dm.ValidationError,
            "Slice: start=array([[0]], dtype=int64) must be 1-D, but has shape [1, 1]",
            id="2-D start",
        ),
        pytest.param(
            ([0], np.array([2**64 - 1], np.uint64), [1]),
            dm.ValidationError,
            "Slice: stop=array([18446744073709551615], dtype=uint64) holds "
            "18446744073709551615, which does not fit in int64 (hint: no OpenVINO index type "
            "holds it; values are never wrapped)",
            id="uint64 stop past int64 (OpenVINO wraps it to -1)",
        ),
        pytest.param(
            ([2**63], [1], [1]),
            dm.ValidationError,
            "Slice: start=[9223372036854775808] holds 9223372036854775808, which does not fit in "
            "int64 (hint: no OpenVINO index type holds it; values are never wrapped)",
            id="start 2**63",
        ),
    ],
)
def test_errors(args, exc, message):
    for call in (lambda: dm.slice(Z, *args), lambda: dm.infer_slice(Z.shape, *args)):
        with pytest.raises(exc) as info:
            call()
        assert str(info.value) == message
        assert isinstance(info.value, ValueError)


def test_scalar_data_is_rejected():
    # Slice-8's data has "shape rank greater or equal to 1"; OpenVINO: "Slice `data` input can't
    # be a scalar." datamove once returned the scalar for empty start/stop/step.
    for call in (
        lambda: dm.slice(np.float32(1), [], [], []),
        lambda: dm.slice(np.zeros(()), [], [], [], []),
        lambda: dm.infer_slice([], [], [], []),
        lambda: dm.infer_slice("[]", dm.UNKNOWN, dm.UNKNOWN, dm.UNKNOWN),
    ):
        with pytest.raises(dm.ValidationError) as info:
            call()
        assert str(info.value) == RANK0_RULE
    assert str(dm.infer_slice("[...]", [0], [1], [1])) == "[...]"


def test_unknown_in_execution_is_an_error():
    for i, name in enumerate(["start", "stop", "step", "axes"]):
        args: list[Any] = [[0], [1], [1], [0]]
        args[i] = dm.UNKNOWN
        with pytest.raises(dm.ValidationError) as info:
            dm.slice(Z, *args)
        assert str(info.value) == (
            f"Slice: {name}=UNKNOWN must be a concrete value to execute "
            "(hint: UNKNOWN is for shape inference (infer_slice))"
        )


@pytest.mark.parametrize(
    ("out", "exc", "message"),
    [
        pytest.param(
            np.zeros((1, 3)),
            dm.ValidationError,
            "Slice: out='<array of shape [1, 3]>' has shape [1, 3], but the output has shape "
            "[2, 3]",
            id="shape",
        ),
        pytest.param(
            np.zeros((2, 3), np.float32),
            dm.DTypeError,
            "Slice: out='<array of dtype float32>' has dtype float32, but the output has dtype "
            "float64; values are never converted",
            id="dtype",
        ),
    ],
)
def test_out_errors(out, exc, message):
    with pytest.raises(exc) as info:
        dm.slice(Z, [0], [2], [1], out=out)
    assert str(info.value) == message
    with pytest.raises(dm.ValidationError, match="overlaps the input"):
        dm.slice(Z, [1], [0], [-1], out=Z[:1])


# -- Slice-8: parameters known at run time only ----------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "args", "expected"),
    [
        pytest.param(
            "[10,20,30]", (dm.UNKNOWN,) * 3, "[..10,..20,..30]", id="all UNKNOWN: any axis"
        ),
        pytest.param(
            "[10,20,30]",
            (dm.Unknown(1),) * 3,
            "[..10,20,30]",
            id="Unknown(1), axes default: the first axis",
        ),
        pytest.param(
            "[10,20,30]",
            ([0], [5], [1], dm.Unknown(1)),
            "[5..10,5..20,5..30]",
            id="axes unknown: each axis sliced [0:5] or not",
        ),
        pytest.param(
            "[10,20]",
            ([0, 0], [5, 5], [1, 1], dm.Unknown(2)),
            "[5,5]",
            id="axes unknown, as many as the rank: every axis sliced",
        ),
        pytest.param("[10,20]", ([0], [5], dm.UNKNOWN), "[..5,20]", id="step unknown"),
        pytest.param("[10,20]", ([2], dm.UNKNOWN, [1]), "[..8,20]", id="stop unknown"),
        pytest.param("[10,20]", (dm.UNKNOWN, [3], [-1]), "[..6,20]", id="start unknown, step -1"),
        pytest.param(
            "[?,4..8]", (dm.Unknown(2),) * 3, "[?,..8]", id="intervals, every value unknown"
        ),
        pytest.param("[...]", (dm.UNKNOWN,) * 3, "[...]", id="dynamic rank"),
        pytest.param(
            "[2..5,4]", ([0], [2], [1], [1]), "[2..5,2]", id="an interval kept where not sliced"
        ),
    ],
)
def test_unknown_parameters(shape, args, expected):
    # The rank, the axes not sliced and the bounds the known values give are kept.
    assert str(dm.infer_slice(shape, *args)) == expected


def test_unknown_length_checked_against_the_rank():
    with pytest.raises(dm.ValidationError, match="has 3 values, more than the 2 axes of data"):
        dm.infer_slice("[4,5]", dm.Unknown(3), dm.UNKNOWN, dm.UNKNOWN)
    with pytest.raises(dm.ValidationError, match="axes=Unknown\\(2\\) has 2 values, but"):
        dm.infer_slice("[4,5]", [0], [1], [1], dm.Unknown(2))


def test_openvino_unsound_interval_witness():
    # docs/semantics.md S-6: OpenVINO declares [0,4]; sizes 1 to 3 give one row.
    assert str(dm.infer_slice("[?,4]", [-4], [-4], [-1])) == "[..1,4]"
    rows = [dm.slice(np.zeros((d, 4)), [-4], [-4], [-1]).shape[0] for d in range(7)]
    assert rows == [0, 1, 1, 1, 0, 0, 0]


# -- Slice-8: properties ---------------------------------------------------------------------------

# The strategies the slices below draw from, made once: made in each draw, each was a new object
# whose properties Hypothesis worked out again.
_SMALL_SHAPES = static_shapes(min_rank=1, max_rank=4, max_dim=6)
_INTERVAL_SHAPES = partial_shapes(min_rank=1, dynamic_rank=True)
_VALUES, _VALUES_13, _VALUES_16 = index_values(), index_values(span=13), index_values(span=16)
_NONZERO_STEPS = stride_values().filter(bool)


@st.composite
def valid_slices(draw: st.DrawFn) -> tuple[np.ndarray, tuple[Any, ...]]:
    shape = draw(_SMALL_SHAPES)
    rank = len(shape)
    n = draw(st.integers(0, rank))
    step = st.lists(_NONZERO_STEPS, min_size=n, max_size=n)
    values = st.lists(_VALUES, min_size=n, max_size=n)
    axes = None
    if draw(st.booleans()):
        axes = [a - rank if draw(st.booleans()) else a for a in draw(st.permutations(range(rank)))]
        axes = draw(index_container(axes[:n]))
    x = np.arange(int(np.prod(shape))).reshape(shape)
    return x, (
        draw(index_container(draw(values))),
        draw(index_container(draw(values))),
        draw(index_container(draw(step))),
        axes,
    )


@fixed_settings(1500)
@given(case=valid_slices())
def test_slice_is_the_plain_model(case):
    x, args = case
    note(f"dm.slice(np.arange({x.size}).reshape{x.shape}, {args})")
    got = dm.slice(x, *args)
    np.testing.assert_array_equal(got, sliced(x, *args), strict=True)
    assert dm.infer_slice(x.shape, *args) == got.shape
    assert np.shares_memory(got, x) or got.size == 0
    np.testing.assert_array_equal(dm.slice(x, *args, copy=True), got, strict=True)


@st.composite
def interval_slices(draw: st.DrawFn) -> dict[str, Any]:
    """Interval shapes with parameters, some known only at run time, and concrete runs."""
    shape = draw(_INTERVAL_SHAPES)
    rank = 3 if shape is None else len(shape)
    n = draw(st.integers(0, rank))
    values = _VALUES_13
    steps = _NONZERO_STEPS

    def draw_params() -> dict[str, Any]:
        axes = [a - rank if draw(st.booleans()) else a for a in draw(st.permutations(range(rank)))]
        return {
            "start": draw(st.lists(values, min_size=n, max_size=n)),
            "stop": draw(st.lists(values, min_size=n, max_size=n)),
            "step": draw(st.lists(steps, min_size=n, max_size=n)),
            "axes": axes[:n],
        }

    fixed = draw_params()
    has_axes = draw(st.booleans())
    unknown = {k: draw(st.sampled_from(["known", "known", "Unknown(n)", "UNKNOWN"])) for k in fixed}
    runs = []
    for s in concrete_shapes(draw, shape):
        if shape is None and len(s) < n:
            continue
        run = draw_params() if len(s) == rank else fixed
        runs.append((s, {k: fixed[k] if unknown[k] == "known" else run[k] for k in fixed}))
    params = {
        k: fixed[k] if how == "known" else dm.Unknown(n) if how == "Unknown(n)" else dm.UNKNOWN
        for k, how in unknown.items()
    }
    if not has_axes:
        params["axes"] = None
        for _, run in runs:
            run["axes"] = None
    return {"shape": shape, "params": params, "runs": runs}


@fixed_settings(1500)
@given(case=interval_slices())
def test_infer_slice_is_sound(case):
    # Every concrete shape inside the intervals, with any values for the unknown parameters,
    # gives an output inside the inferred shape; where inference rejects, no such run runs.
    text, p = shape_text(case["shape"]), case["params"]
    note(f"dm.infer_slice({text!r}, {p['start']!r}, {p['stop']!r}, {p['step']!r}, {p['axes']!r})")
    try:
        inferred = dm.infer_slice(text, p["start"], p["stop"], p["step"], p["axes"])
    except dm.ValidationError as exc:
        inferred, error = None, exc
    for s, run in case["runs"]:
        args = (run["start"], run["stop"], run["step"], run["axes"])
        try:
            got = dm.slice(np.zeros(s, np.int8), *args)
        except dm.ValidationError:
            continue
        assert inferred is not None, f"inference rejects ({error}), but slice{s} {args} runs"
        if inferred.rank is None:
            continue
        assert inferred.rank == got.ndim
        for size, dim in zip(got.shape, inferred, strict=True):
            assert dim.min <= size, f"slice{s} {args} gives {got.shape}, outside {inferred}"
            assert dim.max is None or size <= dim.max, f"{got.shape} outside {inferred}"


@st.composite
def bounded_slices(draw: st.DrawFn) -> tuple[list[tuple[int, int]], tuple[Any, ...]]:
    rank = draw(st.integers(1, 3))
    lows = draw(st.lists(st.integers(0, 12), min_size=rank, max_size=rank))
    shape = [(lo, draw(st.integers(lo, 14))) for lo in lows]
    n = draw(st.integers(0, rank))
    values = st.lists(_VALUES_16, min_size=n, max_size=n)
    steps = st.lists(_NONZERO_STEPS, min_size=n, max_size=n)
    axes = [a - rank if draw(st.booleans()) else a for a in draw(st.permutations(range(rank)))]
    return shape, (draw(values), draw(values), draw(steps), axes[:n])


@fixed_settings(1000)
@given(case=bounded_slices())
def test_infer_slice_is_exact_on_bounded_intervals(case):
    # Each sliced dimension is exactly the range of lengths over every size in its interval.
    shape, (start, stop, step, axes) = case
    text = shape_text(shape)
    note(f"dm.infer_slice({text!r}, {start}, {stop}, {step}, {axes})")
    got = dm.infer_slice(text, start, stop, step, axes)
    expected = list(shape)
    for i, axis in enumerate(a % len(shape) for a in axes):
        lo, hi = shape[axis]
        lengths = [len(taken(d, start[i], stop[i], step[i])) for d in range(lo, hi + 1)]
        expected[axis] = (min(lengths), max(lengths))
    assert str(got) == shape_text(expected)


# -- Slice-8: every array library ------------------------------------------------------------------

SLICES = [
    pytest.param(([1, 3], [3, 0], [1, -2], [0, 2]), id="[1:3, :, 3:0:-2]"),
    pytest.param(([-1], [INT64_MIN], [-1], [-2]), id="[:, ::-1]"),
    pytest.param(([0, 1], [2, 2], [1, 1], None), id="[0:2, 1:2]"),
    pytest.param(([-3], [-6], [-3], [0]), id="[-3:-6:-3] takes index 0"),
    pytest.param(([2], [2], [1], [1]), id="empty"),
]


@pytest.mark.parametrize("args", SLICES)
@pytest.mark.parametrize("copy", [None, True])
def test_slice_on_every_library(xp: Lib, args, copy):
    from array_api_compat import array_namespace

    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = xp.asarray(a)
    got = dm.slice(x, *args, copy=copy)
    assert array_namespace(got) is array_namespace(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), sliced(a, *args), strict=True)
    np.testing.assert_array_equal(xp.to_numpy(x), a)  # never mutated
    assert tuple(got.shape) == dm.infer_slice(a.shape, *args)


def test_slice_views_where_the_library_has_them(xp: Lib):
    if not xp.mutable or xp.name in ("jax", "dask"):
        pytest.skip("no mutable views")
    x = xp.asarray(np.zeros((4, 3), np.float32))
    got = dm.slice(x, [1], [3], [1])
    x[1, ...] = 7
    assert float(xp.to_numpy(got)[0, 0]) == 7
    independent = dm.slice(x, [1], [3], [1], copy=True)
    x[1, ...] = 8
    assert float(xp.to_numpy(independent)[0, 0]) == 7


def test_slice_copy_false(xp: Lib):
    x = xp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    if xp.name == "jax":
        with pytest.raises(dm.ViewError, match="copy=False cannot be honoured"):
            dm.slice(x, [1], [3], [1], copy=False)
        return
    np.testing.assert_array_equal(
        xp.to_numpy(dm.slice(x, [1], [3], [1], copy=False)), [[3, 4, 5], [6, 7, 8]]
    )
    if xp.name == "torch":
        with pytest.raises(dm.ViewError, match="negative-step views"):
            dm.slice(x, [-1], [INT64_MIN], [-1], copy=False)
        return
    got = dm.slice(x, [-1], [INT64_MIN], [-1], copy=False)
    np.testing.assert_array_equal(xp.to_numpy(got), np.arange(12).reshape(4, 3)[::-1])


def test_slice_out(xp: Lib):
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = xp.asarray(a)
    if not xp.mutable:
        with pytest.raises(dm.BackendError, match="out="):
            dm.slice(x, [3], [0], [-2], out=x)
        return
    out = xp.asarray(np.full((2, 3), -1, np.float32))
    got = dm.slice(x, [3], [0], [-2], out=out)
    assert got is out
    np.testing.assert_array_equal(xp.to_numpy(out), a[3:0:-2])


@pytest.mark.parametrize(
    "form",
    [list, tuple, *[(lambda v, t=t: np.array(v, t)) for t in ("i1", "i2", "i4", "i8")]],
    ids=["list", "tuple", "int8", "int16", "int32", "int64"],
)
def test_slice_plans_cached_answer_as_fresh_ones(plan_path, form):
    x = np.arange(24).reshape(2, 3, 4)
    args = (form([3, 1]), form([0, 2]), form([-2, 1]), form([2, 0]))
    first = dm.slice(x, *args)
    stored = dm.cache_info().stored
    again = dm.slice(x, *args)
    np.testing.assert_array_equal(again, first, strict=True)
    np.testing.assert_array_equal(again, X[1:2, :, 3:0:-2])
    assert stored == 1
    assert dm.cache_info().stored == 1  # the second call was answered from the first's plan
    assert np.shares_memory(again, x)
    # look-alikes of the cached call are never answered from its plan
    for alike in ([3.0, 1], [True, 1]):
        with pytest.raises(dm.DTypeError):
            dm.slice(x, alike, *args[1:])
    # a list changed after the call does not change the plan stored for it
    start = [3, 1]
    dm.slice(x, start, *args[1:])
    start[0] = 2
    np.testing.assert_array_equal(dm.slice(x, start, *args[1:]), X[1:2, :, 2:0:-2])


# -- Concat-1 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shapes", "axis", "expected"),
    [
        pytest.param([(2, 3), (1, 3)], 0, (3, 3), id="axis 0"),
        pytest.param([(2, 3), (2, 1), (2, 0), (2, 4)], 1, (2, 8), id="axis 1, a zero-size input"),
        pytest.param([(2, 3), (2, 1)], -1, (2, 4), id="axis -1"),
        pytest.param([(1, 2, 3), (1, 5, 3)], -2, (1, 7, 3), id="axis -2"),
        pytest.param([(2, 3)], 0, (2, 3), id="one input"),
        pytest.param([(2, 3)], -2, (2, 3), id="one input, axis -2"),
        pytest.param([(0, 3), (0, 3)], 0, (0, 3), id="every input empty"),
        pytest.param([(0, 3), (0, 3)], 1, (0, 6), id="zero rows joined on axis 1"),
        pytest.param([(5,), (0,), (7,)], 0, (12,), id="rank 1"),
    ],
)
def test_concat(shapes, axis, expected):
    arrays = [np.arange(int(np.prod(s))).reshape(s) + 100 * k for k, s in enumerate(shapes)]
    got = dm.concat(arrays, axis)
    assert got.shape == expected
    np.testing.assert_array_equal(got, np.concatenate(arrays, axis), strict=True)
    assert dm.infer_concat(shapes, axis) == expected
    assert not any(np.shares_memory(got, a) for a in arrays)  # a new array
    out = np.empty(expected, arrays[0].dtype)
    assert dm.concat(arrays, axis, out=out) is out
    np.testing.assert_array_equal(out, got)


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        pytest.param(
            lambda: dm.concat([np.float32(1), np.float32(2)], 0),
            dm.ValidationError,
            "Concat: arrays=['<array of shape []>', '<array of shape []>'] are scalars; Concat "
            "needs rank 1 or more",
            id="rank 0",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(2), np.zeros(2, np.float32)], 0),
            dm.DTypeError,
            "Concat: arrays=['<array of dtype float64>', '<array of dtype float32>'] mix element "
            "types (float32, float64); Concat never converts values",
            id="mixed element types",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(2), np.zeros((2, 1))], 0),
            dm.ValidationError,
            "Concat: arrays=['<array of shape [2]>', '<array of shape [2, 1]>'] must all have "
            "the same rank",
            id="mixed ranks",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros((2, 3)), np.zeros((2, 4))], 0),
            dm.ValidationError,
            "Concat: arrays=['<array of shape [2, 3]>', '<array of shape [2, 4]>'] differ in "
            "dimension 1, which is not the concatenation axis 0",
            id="dims differ off the axis",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(2)], 1),
            dm.AxisError,
            "Concat: axis=1 is out of the tensor rank range [-1, 0]",
            id="axis 1 of rank 1",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(2)], -2),
            dm.AxisError,
            "Concat: axis=-2 is out of the tensor rank range [-1, 0]",
            id="axis -2 of rank 1",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(2)], True),
            dm.DTypeError,
            "Concat: axis=True must be an integer, not a bool",
            id="bool axis",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(2)], 0.0),
            dm.DTypeError,
            "Concat: axis=0.0 must be an integer, not a float",
            id="float axis",
        ),
        pytest.param(
            lambda: dm.concat([], 0),
            dm.ValidationError,
            "Concat: arrays=[] must hold at least one input",
            id="no input",
        ),
        pytest.param(
            lambda: dm.concat(np.zeros((2, 3)), 0),
            dm.DTypeError,
            "Concat: arrays=array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype=float64) must be a "
            "sequence (a list or a tuple), not a NumPy array",
            id="an array, not a sequence",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(2), "ab"], 0),
            dm.DTypeError,
            "Concat: arrays[1]='ab' must be an array, not a string",
            id="an input that is no array is named arrays[k], not data",
        ),
        pytest.param(
            lambda: dm.concat([[2**70], [1]], 0),
            dm.DTypeError,
            "Concat: arrays[0]=[1180591620717411303424] is not an array of numbers: NumPy could "
            "hold it only as Python objects (ints beyond 64 bits, None, or other objects)",
            id="an input list of objects is named arrays[k]",
        ),
        pytest.param(
            lambda: dm.infer_concat(["[2,3]", "[...]", "[1,2,3]"], 0),
            dm.ValidationError,
            "Concat: shapes=['[2,3]', '[...]', '[1,2,3]'] must all have the same rank",
            id="infer: mixed ranks beside a dynamic one",
        ),
        pytest.param(
            lambda: dm.infer_concat(["[2..3,3]", "[4..8,3]"], 1),
            dm.ValidationError,
            "Concat: shapes=['[2..3,3]', '[4..8,3]'] differ in dimension 0, which is not the "
            "concatenation axis 1",
            id="infer: intervals with no size in common",
        ),
        pytest.param(
            lambda: dm.infer_concat([[2**62], [2**62]], 0),
            dm.ValidationError,
            "Concat: shapes=['[4611686018427387904]', '[4611686018427387904]'] have sizes on the "
            "concatenation axis 0 that sum to at least 9223372036854775808, past "
            "INT64_MAX=9223372036854775807: no sizes they allow can be joined",
            id="infer: sizes that sum past INT64_MAX (OpenVINO wraps them to [?])",
        ),
        pytest.param(
            lambda: dm.infer_concat([[2, 3]], dm.UNKNOWN),
            dm.DTypeError,
            "Concat: axis=UNKNOWN must be an integer, not an Unknown",
            id="infer: axis UNKNOWN (an attribute, never an input)",
        ),
        pytest.param(
            lambda: dm.concat([np.zeros(1)] * (MAX_LENGTH + 1), 0),
            dm.ValidationError,
            f"Concat: arrays='<{MAX_LENGTH + 1} inputs>' holds more than {MAX_LENGTH} inputs",
            id="more inputs than MAX_LENGTH",
        ),
        pytest.param(
            lambda: dm.infer_concat([[1]] * (MAX_LENGTH + 1), 0),
            dm.ValidationError,
            f"Concat: shapes='<{MAX_LENGTH + 1} inputs>' holds more than {MAX_LENGTH} inputs",
            id="infer: more shapes than MAX_LENGTH",
        ),
    ],
)
def test_concat_errors(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("count", [2, 8, 9], ids=["2 inputs", "8: keyed", "9: past a key"])
def test_concat_plans_cached_answer_as_fresh_ones(plan_path, count):
    # A join is keyed by its shapes and axis under the one key rule (at most 8 inputs); a
    # repeated call reuses the plan, the results are fresh arrays, and look-alikes of the
    # axis (True, 1.0, a NumPy integer) never reuse it.
    arrays = [np.arange(6).reshape(2, 3) + 10 * k for k in range(count)]
    want = np.concatenate(arrays, 1)
    first = dm.concat(arrays, 1)
    stored = dm.cache_info().stored
    again = dm.concat(arrays, 1)
    for got in (first, again):
        np.testing.assert_array_equal(got, want, strict=True)
        assert got.flags.c_contiguous
        assert not any(np.shares_memory(got, a) for a in arrays)
    assert stored == (1 if count <= 8 else 0)
    assert dm.cache_info().stored == stored  # the second call took the first's plan
    with pytest.raises(dm.DTypeError, match="axis=True"):
        dm.concat(arrays, True)
    with pytest.raises(dm.DTypeError, match=r"axis=1\.0"):
        dm.concat(arrays, 1.0)
    np.testing.assert_array_equal(dm.concat(arrays, np.int64(1)), want, strict=True)
    # other shapes, or another element type of the same shapes: their own checks
    with pytest.raises(dm.ValidationError, match="differ in dimension 0"):
        dm.concat([*arrays[:-1], np.zeros((3, 3), np.int64)], 1)
    with pytest.raises(dm.DTypeError, match="mix element types"):
        dm.concat([*arrays[:-1], arrays[-1].astype(np.float32)], 1)
    big = [np.zeros((512, 1024), np.float32), np.ones((512, 1024), np.float32)]  # past 1 MiB
    np.testing.assert_array_equal(dm.concat(big, 0), np.concatenate(big, 0), strict=True)


def test_concat_out_errors():
    x = np.arange(24).reshape(2, 3, 4)
    for out, pattern in [
        (np.zeros((2, 6, 3), np.int64), "has shape \\[2, 6, 3\\], but the output has shape"),
        (np.zeros((2, 6, 4), np.int32), "has dtype int32, but the output has dtype int64"),
    ]:
        with pytest.raises(dm.ValidationError, match=pattern):
            dm.concat([x, x], 1, out=out)
    with pytest.raises(dm.ValidationError, match=r"overlaps an input; out must not alias arrays$"):
        dm.concat([x[:, :1], x[:, 1:]], 1, out=x)
    read_only = np.zeros((2, 6, 4), np.int64)
    read_only.flags.writeable = False
    with pytest.raises(dm.ValidationError, match="is read-only"):
        dm.concat([x, x], 1, out=read_only)


@pytest.mark.parametrize(
    ("shapes", "axis", "expected"),
    [
        pytest.param(
            ["[2,?,4]", "[1..3,5,4]"], 0, "[3..5,5,4]", id="merge off the axis, add on it"
        ),
        pytest.param(["[2..5,3]", "[4..8,3]"], 1, "[4..5,6]", id="intersection off the axis"),
        pytest.param(["[1..,3]", "[..5,3]"], 1, "[1..5,6]", id="half-open intervals"),
        pytest.param(["[?,3]", "[4..8,?]"], 1, "[4..8,3..]", id="axis unbounded"),
        pytest.param(["[2,3]", "[...]"], 1, "[2,3..]", id="a dynamic rank input"),
        pytest.param(["[...]", "[...]"], 1, "[...]", id="every rank dynamic"),
        pytest.param(["[0,3]", "[2,3]"], 0, "[2,3]", id="a zero-size input"),
        pytest.param(["[2..3,4]"], -2, "[2..3,4]", id="one input"),
        pytest.param(
            ["[..9223372036854775806]", "[1..2]"],
            0,
            "[1..9223372036854775807]",
            id="a largest sum past INT64_MAX is bounded by it (OpenVINO: [1..])",
        ),
        pytest.param(
            ["[9223372036854775807]", "[..5]", "[...]"],
            0,
            "[9223372036854775807]",
            id="a smallest sum of INT64_MAX is the only size",
        ),
    ],
)
def test_infer_concat(shapes, axis, expected):
    assert str(dm.infer_concat(shapes, axis)) == expected


def test_an_unbounded_size_on_the_axis_leaves_the_sum_unbounded():
    # docs/semantics.md, Concat-1: as OpenVINO. `?` holds the sizes below INT64_MAX, so `[?]` and
    # `[1]` reach INT64_MAX itself, which `[1..]` leaves out: kept so, on purpose. Exact, a KV
    # cache's Concat would read [1,32,1..9223372036854775807,128], and the slice algebra (which
    # holds below INT64_MAX) would refuse the x[:, :, 1:] that follows it.
    kv = dm.infer_concat(["[1,32,?,128]", "[1,32,1,128]"], 2)
    assert str(kv) == "[1,32,1..,128]"
    assert str(dm.infer_concat(["[?]", "[1]"], 0)) == "[1..]"
    assert str(dm.infer_concat(["[2..4611686018427387904]", "[2..]"], 0)) == "[4..]"
    drop_first = dm.Slicing.from_numpy("x[:, :, 1:]")
    assert drop_first.to_numpy(kv) == "x[0:1, 0:32, 1:]"
    assert str(drop_first.infer(kv)) == "[1,32,?,128]"


def test_every_element_type_is_moved_as_it_is():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    kinds = [np.bool_, np.int8, np.uint64, np.float16, np.complex128, ml_dtypes.bfloat16]
    arrays = [np.arange(6).reshape(2, 3).astype(t) for t in kinds]
    arrays += [np.arange(6).reshape(2, 3).astype(t) for t in (ml_dtypes.int4, "M8[ns]")]
    arrays += [
        np.array([["a", "bc", ""], ["d", "e", "f"]]),
        np.array([[b"a", b"bc", b""]] * 2),
        np.array([[object(), None, 1]] * 2, dtype=object),
        np.zeros((2, 3), [("a", "i4"), ("b", "f2")]),
    ]
    for a in arrays:
        got = dm.concat([a, a[:, :1]], 1)
        assert got.dtype == a.dtype
        assert got.tolist() == np.concatenate([a, a[:, :1]], 1).tolist()
        for copy in (None, True):
            s = dm.slice(a, [-1, 2], [INT64_MIN, 0], [-1, -2], copy=copy)
            assert s.dtype == a.dtype
            assert s.tolist() == a[::-1, 2:0:-2].tolist()


def test_concat_of_non_contiguous_inputs_and_into_views():
    x = np.arange(60).reshape(3, 4, 5)
    parts = [x[:, ::2], x[::-1, 1:3, ::-1], np.asfortranarray(x)[:, 1:2]]
    buffer = np.zeros((3, 10, 10), np.int64)
    out = buffer[:, ::2, 2:7]
    assert dm.concat(parts, 1, out=out) is out
    np.testing.assert_array_equal(out, np.concatenate(parts, 1))
    assert buffer.sum() == out.sum()  # nothing written outside out
    wide = np.zeros((3, 4, 14), np.int64)
    dm.concat([x[:, :, :2], x], 2, out=wide[:, :, 7:])  # into columns of a wider buffer
    np.testing.assert_array_equal(wide[:, :, 7:], np.concatenate([x[:, :, :2], x], 2))
    assert not wide[:, :, :7].any()


KEPT_DTYPES = [
    np.dtype(">i4"),
    np.dtype(">f2"),
    np.dtype(">c8"),
    np.dtype(">U3"),
    np.dtype(">M8[s]"),
    np.dtype([("a", ">i2"), ("b", "<f4")]),
    np.dtype({"names": ["a", "b"], "formats": ["u1", "<f4"], "offsets": [0, 8], "itemsize": 16}),
]


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix's
@pytest.mark.parametrize("dtype", KEPT_DTYPES, ids=str)
@pytest.mark.parametrize("rows", [2, 1 << 16], ids=["small", "large"])
def test_concat_keeps_the_inputs_dtype_at_every_size(dtype, rows):
    """``np.concatenate`` gives the native byte order and packs a padded record; small joins
    were its own, large ones the copy engine's into ``np.empty`` of the inputs' dtype, so
    ``dm.concat`` of ``>i4`` arrays was ``<i4`` below 1 MiB and ``>i4`` above it (and ``out=``
    demands ``>i4`` at every size). The join never converts: the inputs' dtype, always."""
    a = (np.arange(rows * 4) % 250).reshape(rows, 4).astype(dtype)
    parts = [a[:1], a[1:]]
    for join in (
        dm.concat(parts, 0),
        dm.concat([a[:, :1], a[:, 1:]], 1),
        dm.concat([np.ma.masked_array(p, mask=np.zeros(p.shape, bool)) for p in parts], 0),
        dm.concat([np.matrix(p) for p in parts], 0) if dtype.names is None else a,
    ):
        assert join.dtype == dtype
        np.testing.assert_array_equal(join, a, strict=False)
    out = np.empty_like(a)
    assert dm.concat(parts, 0, out=out) is out
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_is_the_inverse_of_every_split(axis):
    x = np.arange(2 * 6 * 4).reshape(2, 6, 4)
    dim = x.shape[axis]
    for parts in (
        dm.split(x, axis, dim // 2),
        dm.variadic_split(x, axis, [1, -1, 0]),
        dm.split(x, axis, 1),
    ):
        np.testing.assert_array_equal(dm.concat(parts, axis), x, strict=True)


@st.composite
def concat_cases(draw: st.DrawFn) -> tuple[list[Any], int, list[list[tuple[int, ...]]]]:
    """Interval shapes of one rank (dynamic now and then) and concrete shapes inside them."""
    rank = draw(st.integers(1, 3))
    k = draw(st.integers(1, 4))
    shapes = [draw(partial_shapes(min_rank=rank, max_rank=rank)) for _ in range(k)]
    axis = draw(st.integers(-rank, rank - 1))
    samples = []
    for _ in range(4):  # each input inside its intervals; off the axis, one size where possible
        bounded = [
            [(lo, lo + 9 if hi is None else hi) for lo, hi in (s or [(0, None)] * rank)]
            for s in shapes
        ]
        common = []
        for d in range(rank):
            lo = max(b[d][0] for b in bounded)
            hi = min(b[d][1] for b in bounded)
            common.append(draw(st.integers(lo, hi)) if lo <= hi else None)
        concrete = []
        for b in bounded:
            dims = [
                draw(st.integers(*b[d])) if d == axis % rank or common[d] is None else common[d]
                for d in range(rank)
            ]
            concrete.append(tuple(dims))
        samples.append(concrete)
    return [shape_text(s) for s in shapes], axis, samples


@fixed_settings(1000)
@given(case=concat_cases())
def test_infer_concat_is_sound(case):
    shapes, axis, samples = case
    note(f"dm.infer_concat({shapes!r}, {axis})")
    try:
        inferred = dm.infer_concat(shapes, axis)
    except dm.ValidationError as exc:
        inferred, error = None, exc
    for concrete in samples:
        try:
            got = dm.concat([np.zeros(s, np.int8) for s in concrete], axis)
        except dm.ValidationError:
            continue
        assert inferred is not None, f"inference rejects ({error}), but {concrete} joins"
        if inferred.rank is None:
            continue
        for size, dim in zip(got.shape, inferred, strict=True):
            assert dim.min <= size, f"{concrete} gives {got.shape}, outside {inferred}"
            assert dim.max is None or size <= dim.max, f"{got.shape} outside {inferred}"


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("with_out", [False, True], ids=["fresh", "out="])
def test_concat_on_every_library(xp: Lib, axis, with_out):
    from array_api_compat import array_namespace

    arrays = [np.arange(12, dtype=np.float32).reshape(3, 4) + 100 * k for k in range(3)]
    arrays[1] = arrays[1][:, :2] if axis == -1 else arrays[1][:2]
    expected = np.concatenate(arrays, axis)
    xs = [xp.asarray(a) for a in arrays]
    if with_out and not xp.mutable:
        with pytest.raises(dm.BackendError, match="out="):
            dm.concat(xs, axis, out=xs[0])
        return
    out = xp.asarray(np.zeros(expected.shape, np.float32)) if with_out else None
    got = dm.concat(xs, axis, out=out)
    if with_out:
        assert got is out
    assert array_namespace(got) is array_namespace(xs[0])
    assert got.dtype == xs[0].dtype
    np.testing.assert_array_equal(xp.to_numpy(got), expected, strict=True)
    for x, a in zip(xs, arrays, strict=True):
        np.testing.assert_array_equal(xp.to_numpy(x), a)  # never mutated


def test_a_join_of_one_array_is_a_copy_on_every_library(xp: Lib):
    """``jnp.concat`` and ``da.concatenate`` of one array return that array itself: writing
    into ``dm.concat([x], 0)`` changed ``x`` on Dask, and deleting a JAX ``x`` deleted the
    join (``dml.join`` alike). One input gives a copy of it, as on NumPy and PyTorch."""
    a = np.arange(6.0).reshape(2, 3)
    for join in (lambda x: dm.concat([x], 0), lambda x: dml.join([x], 1)):
        x = xp.asarray(a)
        got = join(x)
        assert got is not x
        if xp.name == "jax":
            x.delete()  # its buffer: the join must not be it
        else:
            got[0, ...] = 99
            np.testing.assert_array_equal(xp.to_numpy(x), a)
        assert xp.to_numpy(got)[1].tolist() == [3.0, 4.0, 5.0]


def test_concat_out_must_not_overlap_any_input(xp: Lib):
    # out over arrays[1] (not arrays[0]): NumPy refused it, PyTorch and array-api-strict wrote
    # it (the check of the other libraries looked at arrays[0] alone).
    if not xp.mutable:
        pytest.skip("out= is refused as a whole (test_concat_on_every_library)")
    buf = xp.asarray(np.zeros((6, 4), np.float32))
    head = xp.asarray(np.ones((3, 4), np.float32))
    with pytest.raises(dm.ValidationError, match=r"out=.* overlaps an input; .* alias arrays$"):
        dm.concat([head, buf[3:, ...]], 0, out=buf)
    assert xp.to_numpy(buf).sum() == 0  # nothing written


def test_concat_of_arrays_on_two_devices_is_refused():
    # PyTorch's own RuntimeError ("Tensor on device meta is not on the expected device cpu!")
    # and array-api-strict's ValueError came through; dml.join said which input, as now.
    torch = pytest.importorskip("torch")
    with pytest.raises(dm.ValidationError, match=r"arrays\[1\]=.* is on device meta, but arrays"):
        dm.concat([torch.zeros(2, 3), torch.zeros(2, 3, device="meta")], 0)
    strict = pytest.importorskip("array_api_strict")
    other = strict.asarray(np.zeros((2, 3)), device=strict.Device("device1"))
    with pytest.raises(dm.ValidationError, match=r"arrays\[2\]=.* is on device .*device1"):
        dm.concat([strict.zeros((2, 3)), strict.zeros((1, 3)), other], 0)


def test_concat_out_errors_name_arrays_not_data():
    # fixed: an out= on another device or of another library said "but data is on cpu" and
    # "like data"; Concat has no data argument, its inputs are arrays
    torch = pytest.importorskip("torch")
    xs = [torch.zeros(2, 3), torch.zeros(1, 3)]
    with pytest.raises(dm.ValidationError) as info:
        dm.concat(xs, 0, out=torch.zeros(3, 3, device="meta"))
    assert str(info.value) == (
        "Concat: out='<array on meta>' is on device meta, but arrays[0] is on cpu"
    )
    with pytest.raises(dm.DTypeError) as info:
        dm.concat(xs, 0, out=np.zeros((3, 3), np.float32))
    assert str(info.value) == "Concat: out='<ndarray>' must be a Tensor, like arrays[0]"
    with pytest.raises(dm.ValidationError) as info:
        dm.split(xs[0], 0, 2, out=[torch.zeros(1, 3, device="meta"), torch.zeros(1, 3)])
    assert str(info.value).endswith("is on device meta, but data is on cpu")  # split's input


def test_concat_never_mixes_libraries(xp: Lib):
    if xp.name == "numpy":
        pytest.skip("the other library is NumPy")
    x = xp.asarray(np.zeros((2, 3), np.float32))
    with pytest.raises(dm.DTypeError, match="datamove never moves data between libraries"):
        dm.concat([x, np.zeros((2, 3), np.float32)], 0)


# -- DirectML: dml.join is Concat; dml.split + dm.concat round-trip --------------------------------

DML_DTYPES = (np.float32, np.float16, np.int8, np.uint8, np.int32, np.uint16, np.int64)


@st.composite
def dml_cases(draw: st.DrawFn) -> tuple[np.ndarray, int, list[int]]:
    rank = draw(st.integers(1, 4))
    shape = list(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    axis = draw(st.integers(-rank, rank - 1))
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    shape[axis] = sum(sizes)
    dtype = draw(st.sampled_from(DML_DTYPES))
    x = (np.arange(int(np.prod(shape))) % 100).astype(dtype).reshape(shape)
    return x, axis, sizes


@fixed_settings(300)
@given(case=dml_cases())
def test_directml_join_and_concat_agree(case):
    x, axis, sizes = case
    note(f"dml.split(x of {x.shape} {x.dtype}, {axis}, {sizes})")
    parts = dml.split(x, axis, sizes)
    assert [p.shape[axis] for p in parts] == sizes
    joined = dm.concat(parts, axis)
    np.testing.assert_array_equal(joined, x, strict=True)  # dml.split + dm.concat round-trip
    np.testing.assert_array_equal(dml.join(parts, axis), joined, strict=True)
    assert dm.infer_concat([p.shape for p in parts], axis) == x.shape
    views = dm.variadic_split(x, axis, sizes)
    np.testing.assert_array_equal(dml.join(list(views), axis), x, strict=True)


def test_directml_join_and_concat_agree_on_every_library(xp: Lib):
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 1), np.float32)]
    xs = [xp.asarray(a) for a in arrays]
    got = dm.concat(xs, -1)
    np.testing.assert_array_equal(xp.to_numpy(dml.join(xs, -1)), xp.to_numpy(got))
    parts = dml.split(got, 1, [1, 3])
    np.testing.assert_array_equal(xp.to_numpy(dm.concat(parts, 1)), np.concatenate(arrays, -1))


# -- threads ---------------------------------------------------------------------------------------


def test_calls_from_many_threads_agree_with_serial_calls():
    from concurrent.futures import ThreadPoolExecutor

    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    calls: list[Callable[[], Any]] = [
        lambda b=b, e=e, s=s: dm.slice(x, [b, b], [e, e], [s, s], [3, 1]).tolist()
        for b, e, s in itertools.product([-5, 0, 2], [INT64_MIN, 3], [-2, 1])
    ]
    calls += [lambda k=k: dm.concat(list(dm.split(x, 1, 3))[:k], 1).tolist() for k in (1, 2, 3)]
    serial = [c() for c in calls]
    with ThreadPoolExecutor(8) as pool:
        for _ in range(20):
            assert list(pool.map(lambda c: c(), calls)) == serial
