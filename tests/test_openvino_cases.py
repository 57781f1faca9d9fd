"""OpenVINO's own test cases for Split-1, VariadicSplit-1 and StridedSlice-1, ported.

Sources (openvinotoolkit/openvino; the commit of the stored snapshot read is given):

* ``src/core/tests/type_prop/split.cpp`` @49785a05: ``SPLIT_TYPE_PROP``, ``SPLIT_ERRORS``
* ``src/core/tests/type_prop/variadic_split.cpp`` @c71f901e: ``VARIADIC_TYPE_PROP``
* ``src/core/tests/type_prop/strided_slice.cpp`` @3a33e0d0: ``STRIDED_TYPE_PROP``,
  ``STRIDED_ERRORS``
* ``src/plugins/template/tests/functional/op_reference/split.cpp`` @1ba5f211: ``SPLIT_REFERENCE``
* ``.../op_reference/variadic_split.cpp`` @0b2dc709: ``VARIADIC_REFERENCE``
* ``.../op_reference/strided_slice.cpp`` @14c6e3c3: ``STRIDED_REFERENCE``

The VariadicSplit error cases are not in the type_prop snapshot any more; they come from its 2022
revision, re-checked on the runtime (``research/openvino-semantics.md`` section 2.2).

Each table row carries what OpenVINO's test expects (``ov``). Where datamove's inference is
tighter on an interval (it computes the exact hull; OpenVINO often gives up), the row also
carries datamove's ``exact`` answer, and the test checks ``exact`` and that it lies inside ``ov``.
Rows that hit a documented divergence say so in their id. ``test_*_runtime`` re-checks each
``ov`` column against the installed OpenVINO (skipped without it), so a ported expectation that
the runtime no longer holds is noticed.

Not ported: the symbol/label propagation tests and the ``ShapeOf``-bounded begin/end/axis cases
(``*_is_shape_of_with_bounds``, ``StridedSliceIntervalTest``, ``SplitBoundTest``,
``VariadicSplitBoundTest``): they test value propagation through other nodes, which datamove
(parameters are values, ``UNKNOWN`` or ``Unknown(n)``) has no way to express.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import datamove as dm
import openvino_oracle as ov

U = dm.UNKNOWN
I64_MIN = -(2**63)
I64_MAX = 2**63 - 1


# -- helpers -------------------------------------------------------------------------------------


def needs_openvino() -> None:
    pytest.importorskip("openvino")


def within(inner: Any, outer: str) -> bool:
    """Whether every dim of ``inner`` (a dm.PartialShape) lies inside ``outer`` (OV notation)."""
    outer_shape = dm.PartialShape.parse(outer)
    if outer_shape.rank is None:
        return True
    if inner.rank != outer_shape.rank:
        return False
    for d, o in zip(inner, outer_shape, strict=True):
        if d.min < o.min:
            return False
        if o.max is not None and (d.max is None or d.max > o.max):
            return False
    return True


def strs(shapes: Any) -> list[str]:
    return [str(s) for s in shapes]


def to_ov(value: Any, dtype: str = "int32") -> Any:
    """A datamove parameter as an OpenVINO input: UNKNOWN -> Parameter of dynamic rank."""
    if value is U:
        return ov.Param(None, dtype)
    if isinstance(value, dm.Unknown):
        return ov.Param([value.length] if value.length is not None else "[?]", dtype)
    return value if isinstance(value, np.ndarray) else np.array(value, np.int64)


def iota(shape: tuple[int, ...], dtype: Any, start: int = 0) -> np.ndarray:
    values = np.arange(start, start + int(np.prod(shape, dtype=np.int64)))
    return values.astype(dtype).reshape(shape)


# -- Split: type_prop ----------------------------------------------------------------------------

# shape, axis, num_splits, ov (each output), exact (datamove; None = same as ov)
SPLIT_TYPE_PROP = [
    pytest.param("[2,3,4]", np.int64(1), 3, "[2,1,4]", None, id="split_v1_axis_const_positive"),
    pytest.param("[2,6]", np.int64(-2), 2, "[1,6]", None, id="split_v1_axis_const_negative"),
    pytest.param(
        "[2,12,?]", np.int32(1), 3, "[2,4,?]", None, id="split_v1_axis_const_data_axis_dim_known"
    ),
    pytest.param(
        "[2,?,?]",
        np.int16(0),
        2,
        "[1,?,?]",
        None,
        id="split_v1_axis_const_only_data_axis_dim_known",
    ),
    pytest.param(
        "[4,?,3,5]",
        np.int8(1),
        3,
        "[4,?,3,5]",
        None,
        id="split_v1_axis_const_data_axis_dim_unknown",
    ),
    pytest.param(
        "[4,3..6,3..6,5]",
        np.int8(1),
        2,
        "[4,1..3,3..6,5]",
        "[4,2..3,3..6,5]",  # exact: only 4 and 6 divide by 2
        id="split_v1_axis_const_data_axis_dim_interval_known_divisible(tighter)",
    ),
    pytest.param(
        "[4,2..4,3,5]",
        np.int8(1),
        3,
        "[4,..1,3,5]",
        "[4,1,3,5]",  # exact: only 3 divides by 3
        id="split_v1_axis_const_data_axis_dim_interval_known_upper_bound_divisible(tighter)",
    ),
    pytest.param(
        "[?,?,?,?]",
        np.uint64(1),
        3,
        "[?,?,?,?]",
        None,
        id="split_v1_axis_const_only_data_rank_known",
    ),
    pytest.param(
        "[?,?,?,?]", U, 3, "[?,?,?,?]", None, id="split_v1_axis_param_only_data_rank_known"
    ),
    pytest.param(
        "[...]", np.uint16(2), 3, "[...]", None, id="split_v1_axis_const_data_rank_unknown"
    ),
    pytest.param("[...]", U, 3, "[...]", None, id="split_v1_axis_param_data_rank_unknown"),
    # SplitTest, type_prop_static_shape
    pytest.param("[6,2]", 0, 1, "[6,2]", None, id="SplitTest/static/[6,2],0,1"),
    pytest.param("[6]", 0, 2, "[3]", None, id="SplitTest/static/[6],0,2"),
    pytest.param("[3,6,7,3]", 1, 2, "[3,3,7,3]", None, id="SplitTest/static/[3,6,7,3],1,2"),
    # SplitTest, type_prop_dynamic_shape
    pytest.param("[2..6,2]", 0, 1, "[2..6,2]", None, id="SplitTest/dynamic/[2..6,2],0,1"),
    pytest.param(
        "[4..8]", 0, 2, "[2..4]", None, id="SplitTest/dynamic/[4..8],0,2"
    ),  # 4, 6, 8 -> 2..4
    pytest.param(
        "[3,6,10..20,1..3]",
        2,
        2,
        "[3,6,5..10,1..3]",
        None,
        id="SplitTest/dynamic/[3,6,10..20,1..3],2,2",
    ),
]


@pytest.mark.parametrize(("shape", "axis", "num_splits", "ov_shape", "exact"), SPLIT_TYPE_PROP)
def test_split_type_prop(shape: str, axis: Any, num_splits: int, ov_shape: str, exact: str) -> None:
    got = dm.infer_split(shape, axis, num_splits)
    assert strs(got) == [exact or ov_shape] * num_splits
    assert all(within(s, ov_shape) for s in got)


@pytest.mark.parametrize(("shape", "axis", "num_splits", "ov_shape", "exact"), SPLIT_TYPE_PROP)
def test_split_type_prop_runtime(
    shape: str, axis: Any, num_splits: int, ov_shape: str, exact: str
) -> None:
    needs_openvino()
    axis_ov = ov.Param((), "uint32") if axis is U else np.asarray(axis)
    assert ov.split(shape, axis_ov, num_splits).shapes == (ov_shape,) * num_splits


def test_split_axis_param_dynamic_ranks() -> None:
    """split_v1_axis_param_dynamic_ranks: an axis Parameter of dynamic rank (datamove: UNKNOWN)."""
    assert strs(dm.infer_split("[...]", U, 3)) == ["[...]"] * 3


# shape, axis, num_splits, datamove's exception, message pattern, OpenVINO's rule
SPLIT_ERRORS = [
    pytest.param(
        [2, 6], np.float32(1), 2, dm.DTypeError, r"^Split: axis=.*float", "axis integer",
        id="split_v1_invalid_axis_et_f32",
    ),
    pytest.param(
        [2, 6], np.True_, 2, dm.DTypeError, r"^Split: axis=.*bool", "axis integer",
        id="split_v1_invalid_axis_et_boolean",
    ),
    pytest.param(
        [2, 6], np.array([0, 1]), 1, dm.ValidationError, r"^Split: axis=.* must be a scalar",
        "axis scalar", id="split_v1_invalid_axis_not_a_scalar",
    ),
    pytest.param(
        [2, 6], 1, 0, dm.ValidationError, r"^Split: num_splits=0 must be greater than zero",
        "num_splits > 0", id="split_v1_invalid_num_splits",
    ),
    pytest.param(
        [2, 6], -5, 4, dm.AxisError, r"^Split: axis=-5 .*range \[-2, 1\]", "axis in range",
        id="split_v1_invalid_axis_value",
    ),
    pytest.param(
        [2, 6], 1, 4, dm.ValidationError, r"^Split: num_splits=4 .*6", "divisible",
        id="split_v1_incompatible_data_shape_with_num_splits",
    ),
    pytest.param(
        "[4,1..2,3,5]", np.int8(1), 3, dm.ValidationError, r"^Split: num_splits=3 .*1\.\.2",
        "interval max >= num_splits", id="split_v1_axis_const_invalid_data_axis_dim_interval_known",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "axis", "num_splits", "exc", "match", "rule"), SPLIT_ERRORS)
def test_split_errors(
    shape: Any, axis: Any, num_splits: int, exc: type[Exception], match: str, rule: str
) -> None:
    with pytest.raises(exc, match=match):
        dm.infer_split(shape, axis, num_splits)
    if isinstance(shape, list):
        with pytest.raises(exc, match=match):
            dm.split(np.zeros(shape), axis, num_splits)


@pytest.mark.parametrize(("shape", "axis", "num_splits", "exc", "match", "rule"), SPLIT_ERRORS)
def test_split_errors_runtime(
    shape: Any, axis: Any, num_splits: int, exc: type[Exception], match: str, rule: str
) -> None:
    needs_openvino()
    assert ov.split(shape, np.asarray(axis), num_splits).rule == rule


# -- Split: op_reference -------------------------------------------------------------------------

SPLIT_DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32,
]  # fmt: skip

# data shape, first data value, axis, num_splits, [(output shape, values), ...]
SPLIT_REFERENCE = [
    pytest.param(
        (6,), 1, np.int64(0), 3, [((2,), [1, 2]), ((2,), [3, 4]), ((2,), [5, 6])], id="split_1d"
    ),
    pytest.param(
        (6, 2), 0, np.int64(0), 2,
        [((3, 2), [0, 1, 2, 3, 4, 5]), ((3, 2), [6, 7, 8, 9, 10, 11])],
        id="split_2d_axis_0",
    ),
    pytest.param(
        (6, 2), 0, np.int64(1), 2,
        [((6, 1), [0, 2, 4, 6, 8, 10]), ((6, 1), [1, 3, 5, 7, 9, 11])],
        id="split_2d_axis_1",
    ),
    pytest.param(
        (2, 2, 3), 0, np.int64(0), 2,
        [((1, 2, 3), [0, 1, 2, 3, 4, 5]), ((1, 2, 3), [6, 7, 8, 9, 10, 11])],
        id="split_3d_axis_0",
    ),
    pytest.param(
        (2, 8, 2), 0, np.int64(1), 4,
        [
            ((2, 2, 2), [0, 1, 2, 3, 16, 17, 18, 19]),
            ((2, 2, 2), [4, 5, 6, 7, 20, 21, 22, 23]),
            ((2, 2, 2), [8, 9, 10, 11, 24, 25, 26, 27]),
            ((2, 2, 2), [12, 13, 14, 15, 28, 29, 30, 31]),
        ],
        id="split_3d_axis_1",
    ),
    pytest.param(
        (2, 1, 6), 0, np.int64(2), 2,
        [((2, 1, 3), [0, 1, 2, 6, 7, 8]), ((2, 1, 3), [3, 4, 5, 9, 10, 11])],
        id="split_3d_axis_2",
    ),
    pytest.param(
        (3, 2, 3, 1), 0, np.int64(0), 3,
        [
            ((1, 2, 3, 1), [0, 1, 2, 3, 4, 5]),
            ((1, 2, 3, 1), [6, 7, 8, 9, 10, 11]),
            ((1, 2, 3, 1), [12, 13, 14, 15, 16, 17]),
        ],
        id="split_4d_axis_0",
    ),
    pytest.param(
        (2, 8, 2, 2), 0, np.int64(1), 4,
        [
            ((2, 2, 2, 2), [0, 1, 2, 3, 4, 5, 6, 7, 32, 33, 34, 35, 36, 37, 38, 39]),
            ((2, 2, 2, 2), [8, 9, 10, 11, 12, 13, 14, 15, 40, 41, 42, 43, 44, 45, 46, 47]),
            ((2, 2, 2, 2), [16, 17, 18, 19, 20, 21, 22, 23, 48, 49, 50, 51, 52, 53, 54, 55]),
            ((2, 2, 2, 2), [24, 25, 26, 27, 28, 29, 30, 31, 56, 57, 58, 59, 60, 61, 62, 63]),
        ],
        id="split_4d_axis_1",
    ),
    pytest.param(
        (2, 1, 6, 2), 0, np.int64(2), 3,
        [
            ((2, 1, 2, 2), [0, 1, 2, 3, 12, 13, 14, 15]),
            ((2, 1, 2, 2), [4, 5, 6, 7, 16, 17, 18, 19]),
            ((2, 1, 2, 2), [8, 9, 10, 11, 20, 21, 22, 23]),
        ],
        id="split_4d_axis_2",
    ),
    pytest.param(
        (2, 1, 2, 6), 0, np.int64(3), 3,
        [
            ((2, 1, 2, 2), [0, 1, 6, 7, 12, 13, 18, 19]),
            ((2, 1, 2, 2), [2, 3, 8, 9, 14, 15, 20, 21]),
            ((2, 1, 2, 2), [4, 5, 10, 11, 16, 17, 22, 23]),
        ],
        id="split_4d_axis_3",
    ),
    pytest.param(
        (2, 1, 4, 1), 0, np.int32(-2), 2,
        [((2, 1, 2, 1), [0, 1, 4, 5]), ((2, 1, 2, 1), [2, 3, 6, 7])],
        id="split_4d_axis_negative_2",
    ),
]  # fmt: skip


@pytest.mark.parametrize("dtype", SPLIT_DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize(("shape", "start", "axis", "num_splits", "outputs"), SPLIT_REFERENCE)
def test_split_reference(
    shape: tuple[int, ...], start: int, axis: Any, num_splits: int, outputs: list[Any], dtype: Any
) -> None:
    data = iota(shape, dtype, start)
    got = dm.split(data, axis, num_splits)
    assert len(got) == len(outputs)
    for array, (out_shape, values) in zip(got, outputs, strict=True):
        want = np.array(values).astype(dtype).reshape(out_shape)
        np.testing.assert_array_equal(array, want, strict=True)
    assert strs(dm.infer_split(list(shape), axis, num_splits)) == [
        "[" + ",".join(map(str, out_shape)) + "]" for out_shape, _ in outputs
    ]


@pytest.mark.parametrize(("shape", "start", "axis", "num_splits", "outputs"), SPLIT_REFERENCE)
def test_split_reference_runtime(
    shape: tuple[int, ...], start: int, axis: Any, num_splits: int, outputs: list[Any]
) -> None:
    """The expected values hold on the reference evaluate and on the CPU plugin."""
    needs_openvino()
    data = iota(shape, np.float32, start)
    node = ov.split(list(shape), np.asarray(axis), num_splits)
    for results in (node.evaluate(data), ov.run_cpu(node, data)):
        for got, (out_shape, values) in zip(results, outputs, strict=True):
            np.testing.assert_array_equal(got, np.array(values, np.float32).reshape(out_shape))


# -- VariadicSplit: type_prop --------------------------------------------------------------------

# shape, axis, split_lengths, ov (one per output), exact (datamove; None = same as ov)
VARIADIC_TYPE_PROP = [
    # type_prop_static_shape
    pytest.param("[6,2]", 0, [6], ["[6,2]"], None, id="static/[6,2],0,[6]"),
    pytest.param(
        "[6,2,10]", -1, [6, -1, 3], ["[6,2,6]", "[6,2,1]", "[6,2,3]"], None,
        id="static/[6,2,10],-1,[6,-1,3]",
    ),
    pytest.param(
        "[1,20,3]", 1, [-1, 10, 3, 5], ["[1,2,3]", "[1,10,3]", "[1,3,3]", "[1,5,3]"], None,
        id="static/[1,20,3],1,[-1,10,3,5]",
    ),
    # type_prop_dynamic_shape
    pytest.param("[2..6,2]", 0, [4], ["[4,2]"], None, id="dynamic/[2..6,2],0,[4]"),
    pytest.param(
        "[2..6,2]", 0, [4, 1, -1], ["[4,2]", "[1,2]", "[?,2]"],
        ["[4,2]", "[1,2]", "[..1,2]"],  # exact: the axis is 5 or 6, so the rest is 0 or 1
        id="dynamic/[2..6,2],0,[4,1,-1](tighter)",
    ),
    pytest.param(
        "[12,?]", -2, [7, -1, 2], ["[7,?]", "[3,?]", "[2,?]"], None,
        id="dynamic/[12,?],-2,[7,-1,2]",
    ),
    pytest.param(
        "[?,?,6]", 2, [3, 1, 2], ["[?,?,3]", "[?,?,1]", "[?,?,2]"], None,
        id="dynamic/[?,?,6],2,[3,1,2]",
    ),
    pytest.param("[?,6]", 1, [6, 0], ["[?,6]", "[?,0]"], None, id="dynamic/[?,6],1,[6,0]"),
    pytest.param(
        "[2..4,?]", 1, [4, 1, -1, 3], ["[2..4,4]", "[2..4,1]", "[2..4,?]", "[2..4,3]"], None,
        id="dynamic/[2..4,?],1,[4,1,-1,3]",
    ),
]  # fmt: skip

# The three axis forms of the OpenVINO test: i16 scalar, i32 of shape [1], i64 scalar.
AXIS_FORMS = [
    pytest.param(np.int16, id="axis_scalar_i16"),
    pytest.param(lambda a: np.array([a], np.int32), id="axis_1d_i32"),
    pytest.param(lambda a: a, id="axis_int"),
]


@pytest.mark.parametrize("axis_form", AXIS_FORMS)
@pytest.mark.parametrize(("shape", "axis", "lengths", "ov_shapes", "exact"), VARIADIC_TYPE_PROP)
def test_variadic_split_type_prop(
    shape: str,
    axis: int,
    lengths: list[int],
    ov_shapes: list[str],
    exact: list[str] | None,
    axis_form: Any,
) -> None:
    got = dm.infer_variadic_split(shape, axis_form(axis), np.array(lengths, np.int16))
    assert strs(got) == (exact or ov_shapes)
    assert all(within(s, o) for s, o in zip(got, ov_shapes, strict=True))


@pytest.mark.parametrize(("shape", "axis", "lengths", "ov_shapes", "exact"), VARIADIC_TYPE_PROP)
def test_variadic_split_type_prop_runtime(
    shape: str, axis: int, lengths: list[int], ov_shapes: list[str], exact: list[str] | None
) -> None:
    needs_openvino()
    assert list(ov.variadic_split(shape, np.int16(axis), np.array(lengths, np.int16)).shapes) == (
        ov_shapes
    )


# shape, axis, split_lengths, datamove's exception, message pattern, OpenVINO's rule
VARIADIC_ERRORS = [
    pytest.param(
        [2, 6], np.array([1, 1]), [2, 4], dm.ValidationError, r"^VariadicSplit: axis=.*shape \[2\]",
        "axis scalar or [1]", id="axis_shape_[2]",
    ),
    pytest.param(
        [2, 6], np.array([[1]]), [2, 4], dm.ValidationError,
        r"^VariadicSplit: axis=.*shape \[1, 1\]", "axis scalar or [1]", id="axis_shape_[1,1]",
    ),
    pytest.param(
        [2, 6], 1, np.array([[2, 4]]), dm.ValidationError, r"^VariadicSplit: split_lengths=.*1-D",
        "split_lengths 1-D", id="split_lengths_2d",
    ),
    pytest.param(
        [2, 6], 1, np.array(6), dm.ValidationError, r"^VariadicSplit: split_lengths=.*1-D",
        "split_lengths 1-D", id="split_lengths_scalar",
    ),
    pytest.param(
        [2, 6], -5, [2, 4], dm.AxisError, r"^VariadicSplit: axis=-5 .*\[-2, 1\]",
        "axis in range", id="axis_out_of_range",
    ),
    pytest.param(
        [2, 6], 1, [-2, 4], dm.ValidationError, r"^VariadicSplit: split_lengths=\[-2, 4\] .*-2",
        "split_lengths >= -1", id="length_-2",
    ),
    pytest.param(
        [2, 6], 1, np.array([-1, -1]), dm.ValidationError,
        r"^VariadicSplit: split_lengths=.* -1 at indices 0 and 1", "one -1", id="two_-1",
    ),
    pytest.param(
        [2, 6], 1, [-1, -1, 3], dm.ValidationError,
        r"^VariadicSplit: split_lengths=.* -1 at indices 0 and 1", "one -1", id="two_-1_and_3",
    ),
    pytest.param(
        [2, 6], 1, [1, 6], dm.ValidationError, r"^VariadicSplit: split_lengths=\[1, 6\] sum to 7",
        "split_lengths sum", id="sum_7_on_6",
    ),
    pytest.param(
        [6], 0, [0, 0], dm.ValidationError, r"^VariadicSplit: split_lengths=\[0, 0\] sum to 0",
        "split_lengths sum", id="sum_0_on_6",
    ),
    pytest.param(
        [], 0, [1], dm.AxisError, r"^VariadicSplit: axis=0", "out-of-range dimension",
        id="scalar_data",
    ),
    pytest.param(
        [12, 6], np.True_, [2, 4], dm.DTypeError, r"^VariadicSplit: axis=.*bool",
        "element type", id="axis_bool",
    ),
    # Divergences: OpenVINO truncates floats (1.7 -> 1; [3.5, 8.6] -> [3, 8]); datamove rejects.
    pytest.param(
        [12, 6], np.float32(1.7), [2, 4], dm.DTypeError, r"^VariadicSplit: axis=.*float",
        None, id="axis_float(divergence:OV_truncates)",
    ),
    pytest.param(
        [12, 6], 0, np.array([3.5, 8.6], np.float32), dm.DTypeError,
        r"^VariadicSplit: split_lengths=.*float", "split_lengths sum",
        id="lengths_float(divergence:OV_truncates)",
    ),
    # Divergence: a -1 that resolves to a negative length. OpenVINO accepts [2,8],[2,0] and
    # reads out of bounds ([8,-1]) or fails at evaluate ([7,-1]); datamove rejects.
    pytest.param(
        [2, 6], 1, [8, -1], dm.ValidationError,
        r"^VariadicSplit: split_lengths=\[8, -1\] sum to 8 without the -1", None,
        id="[8,-1]_on_6(divergence:negative_-1)",
    ),
    pytest.param(
        [2, 6], 1, [7, -1], dm.ValidationError,
        r"^VariadicSplit: split_lengths=\[7, -1\] sum to 7 without the -1", None,
        id="[7,-1]_on_6(divergence:negative_-1)",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "axis", "lengths", "exc", "match", "rule"), VARIADIC_ERRORS)
def test_variadic_split_errors(
    shape: list[int], axis: Any, lengths: Any, exc: type[Exception], match: str, rule: str | None
) -> None:
    with pytest.raises(exc, match=match):
        dm.infer_variadic_split(shape, axis, lengths)
    with pytest.raises(exc, match=match):
        dm.variadic_split(np.zeros(shape), axis, lengths)


@pytest.mark.parametrize(("shape", "axis", "lengths", "exc", "match", "rule"), VARIADIC_ERRORS)
def test_variadic_split_errors_runtime(
    shape: list[int], axis: Any, lengths: Any, exc: type[Exception], match: str, rule: str | None
) -> None:
    needs_openvino()
    lengths_ov = lengths if isinstance(lengths, np.ndarray) else np.array(lengths, np.int64)
    node = ov.variadic_split(shape, np.asarray(axis), lengths_ov)
    if rule is None:  # a divergence: OpenVINO's shape inference accepts
        assert node.ok
    else:
        assert node.rule == rule


def test_variadic_split_two_minus_ones() -> None:
    """``dm.variadic_split(np.arange(6), 0, [-1, -1])`` raises like OpenVINO does.

    Regression: the fast path (int axis, list of ints) once skipped the "at most one -1" check
    and returned ``(arange(6), [])``, found by test_differential_openvino.py.
    """
    with pytest.raises(dm.ValidationError, match=r"-1 at indices 0 and 1"):
        dm.variadic_split(np.arange(6), 0, [-1, -1])


# -- VariadicSplit: op_reference -----------------------------------------------------------------

VARIADIC_DTYPES = [
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32,
]  # fmt: skip

_DATA_2864 = (2, 8, 2, 2)
_OUT_2864 = [
    ((2, 1, 2, 2), [0, 1, 2, 3, 32, 33, 34, 35]),
    ((2, 3, 2, 2), [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 36, 37, 38, 39, 40, 41, 42, 43, 44,
                    45, 46, 47]),
    ((2, 2, 2, 2), [16, 17, 18, 19, 20, 21, 22, 23, 48, 49, 50, 51, 52, 53, 54, 55]),
    ((2, 2, 2, 2), [24, 25, 26, 27, 28, 29, 30, 31, 56, 57, 58, 59, 60, 61, 62, 63]),
]  # fmt: skip
_OUT_1_2_3 = [
    ((2, 1, 2, 1), [0, 6, 12, 18]),
    ((2, 1, 2, 2), [1, 2, 7, 8, 13, 14, 19, 20]),
    ((2, 1, 2, 3), [3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23]),
]

# data shape, first data value, axis, split_lengths, [(output shape, values), ...]
# ("_dynamic" cases: OpenVINO feeds axis and lengths as runtime Parameters; datamove takes values)
VARIADIC_REFERENCE = [
    pytest.param(
        (10,), 1, np.array([0], np.int32), np.array([5, 3, 2], np.int32),
        [((5,), [1, 2, 3, 4, 5]), ((3,), [6, 7, 8]), ((2,), [9, 10])],
        id="variadic_split_1d_static/dynamic",
    ),
    pytest.param(
        (6, 2), 1, np.int32(0), np.array([4, 2], np.int32),
        [((4, 2), [1, 2, 3, 4, 5, 6, 7, 8]), ((2, 2), [9, 10, 11, 12])],
        id="variadic_split_2d_axis_0_static/dynamic",
    ),
    pytest.param(
        (4, 3), 1, np.int32(1), np.array([1, 2], np.int32),
        [((4, 1), [1, 4, 7, 10]), ((4, 2), [2, 3, 5, 6, 8, 9, 11, 12])],
        id="variadic_split_2d_axis_1_static/dynamic",
    ),
    pytest.param(
        (6, 2, 3, 1), 0, np.array([0], np.int32), np.array([3, 1, 2], np.int32),
        [
            ((3, 2, 3, 1), list(range(18))),
            ((1, 2, 3, 1), [18, 19, 20, 21, 22, 23]),
            ((2, 2, 3, 1), list(range(24, 36))),
        ],
        id="variadic_split_4d_axis_0_static/dynamic",
    ),
    pytest.param(
        _DATA_2864, 0, np.array([1], np.uint64), np.array([1, 3, 2, 2], np.uint64), _OUT_2864,
        id="variadic_split_4d_axis_1_static",
    ),
    pytest.param(
        _DATA_2864, 0, np.array([1], np.int64), np.array([1, 3, 2, 2], np.int64), _OUT_2864,
        id="variadic_split_4d_axis_1_dynamic",
    ),
    pytest.param(
        (2, 1, 6, 2), 0, np.array([2], np.uint32), np.array([3, 1, 2], np.uint32),
        [
            ((2, 1, 3, 2), [0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17]),
            ((2, 1, 1, 2), [6, 7, 18, 19]),
            ((2, 1, 2, 2), [8, 9, 10, 11, 20, 21, 22, 23]),
        ],
        id="variadic_split_4d_axis_2_static",
    ),
    pytest.param(
        (2, 1, 6, 2), 0, np.array([2], np.int32), np.array([-1, 1, 2], np.int32),
        [
            ((2, 1, 3, 2), [0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17]),
            ((2, 1, 1, 2), [6, 7, 18, 19]),
            ((2, 1, 2, 2), [8, 9, 10, 11, 20, 21, 22, 23]),
        ],
        id="variadic_split_4d_axis_2_dynamic",
    ),
    pytest.param(
        (2, 1, 2, 6), 0, np.array([3], np.int32), np.array([1, -1, 3], np.int32), _OUT_1_2_3,
        id="variadic_split_4d_axis_neg1_static",
    ),
    pytest.param(
        (2, 1, 2, 6), 0, np.array([-1], np.int32), np.array([1, 2, -1], np.int32), _OUT_1_2_3,
        id="variadic_split_4d_axis_3_dynamic",
    ),
]  # fmt: skip


@pytest.mark.parametrize("dtype", VARIADIC_DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize(("shape", "start", "axis", "lengths", "outputs"), VARIADIC_REFERENCE)
def test_variadic_split_reference(
    shape: tuple[int, ...], start: int, axis: Any, lengths: Any, outputs: list[Any], dtype: Any
) -> None:
    data = iota(shape, dtype, start)
    got = dm.variadic_split(data, axis, lengths)
    assert len(got) == len(outputs)
    for array, (out_shape, values) in zip(got, outputs, strict=True):
        np.testing.assert_array_equal(
            array, np.array(values).astype(dtype).reshape(out_shape), strict=True
        )
    assert strs(dm.infer_variadic_split("[...]", axis, lengths)) == ["[...]"] * len(outputs)


@pytest.mark.parametrize(("shape", "start", "axis", "lengths", "outputs"), VARIADIC_REFERENCE)
def test_variadic_split_reference_runtime(
    shape: tuple[int, ...], start: int, axis: Any, lengths: Any, outputs: list[Any]
) -> None:
    """The expected values hold on the reference evaluate and on the CPU plugin."""
    needs_openvino()
    data = iota(shape, np.float32, start)
    node = ov.variadic_split(list(shape), axis, lengths)
    for results in (node.evaluate(data), ov.run_cpu(node, data)):
        for got, (out_shape, values) in zip(results, outputs, strict=True):
            np.testing.assert_array_equal(got, np.array(values, np.float32).reshape(out_shape))


# -- StridedSlice: type_prop ---------------------------------------------------------------------


def masks(
    bm: Any = (), em: Any = (), nm: Any = (), sm: Any = (), el: Any = ()
) -> dict[str, list[int]]:
    return {
        "begin_mask": list(bm),
        "end_mask": list(em),
        "new_axis_mask": list(nm),
        "shrink_axis_mask": list(sm),
        "ellipsis_mask": list(el),
    }


_Z3 = [0, 0, 0]
_4x8 = "[4,4,4,4,4,4,4,4]"
_3x8 = "[3,3,3,3,3,3,3,3]"
_B8 = [0, 2, 4, 10, -1, -2, -4, -10]
_E8 = [1, 3, 4, 5, -1, -3, -4, -5]
_P4 = dm.Unknown(length=4)
_P3 = dm.Unknown(length=3)

# shape, begin, end, stride (None: 3-input form), masks, ov, exact (None = same as ov)
# UNKNOWN is an OpenVINO Parameter of dynamic rank; Unknown(n) a Parameter of shape [n].
STRIDED_TYPE_PROP = [
    pytest.param(
        "[2,4,6,8]", U, dm.Unknown(length=2), None, masks([0, 0], [0, 0]), "[..2,..4,6,8]", None,
        id="strided_slice_default_stride_dynamic_shape_input",
    ),
    pytest.param(
        "[3,4,5]", [10, 2], [-10, -10], [-1, -1], masks(_Z3, _Z3), "[3,3,5]", None,
        id="strided_slice_reverse_out_of_bounds_on_dims_0_1",
    ),
    pytest.param(
        _4x8, [0, 2, 4, 10, -1, -2, -4, 10], _E8, [1] * 8, masks([1] * 8, [0] * 8),
        "[1,3,4,4,3,1,0,0]", None, id="strided_slice_ignore_begin_mask_stride_pos_1",
    ),
    pytest.param(
        _4x8, _B8, _E8, [-1] * 8, masks([1] * 8, [0] * 8), "[2,0,0,0,0,2,3,4]", None,
        id="strided_slice_ignore_begin_mask_stride_neg_1",
    ),
    pytest.param(
        _4x8, _B8, _E8, [1] * 8, masks([0] * 8, [1] * 8), "[4,2,0,0,1,2,4,4]", None,
        id="strided_slice_ignore_end_mask_stride_pos_1",
    ),
    pytest.param(
        _4x8, _B8, _E8, [-1] * 8, masks([0] * 8, [1] * 8), "[1,3,4,4,4,3,1,1]", None,
        id="strided_slice_ignore_end_mask_stride_neg_1",
    ),
    pytest.param(
        _4x8, _B8, _E8, [1, 2, 3, 10, -1, -2, -3, -10], masks([1] * 8, [1] * 8),
        "[4,2,2,1,4,2,2,1]", None, id="strided_slice_ignore_begin_end_masks_variadic_stride",
    ),
    pytest.param(
        _3x8, [0, 0, 0, 0, 1, 1, 1, 1], [1, 2, 3, 4, 1, 2, 3, 4], [1] * 8, masks([0] * 8, [0] * 8),
        "[1,2,3,3,0,1,2,2]", None, id="strided_slice_end_over_dimension_size",
    ),
    pytest.param(
        _3x8, [-1, -1, -1, -1, -2, -2, -2, -2], [1, 2, 3, 4, 1, 2, 3, 4], [1] * 8,
        masks([0] * 8, [0] * 8), "[0,0,1,1,0,1,2,2]", None,
        id="strided_slice_begin_over_dimension_size",
    ),
    pytest.param(
        "[5,5,5,5,5]", [5] * 5, [5] * 5, [1, 2, 5, -2, -5], masks([0] * 5, [0] * 5),
        "[0,0,0,0,0]", None, id="strided_slice_out_of_bounds_different_stride",
    ),
    pytest.param(
        "[..20,?]", [20, 20], [I64_MIN, I64_MIN], [-1, -1], masks([0, 0], [0, 0]), "[..20,..21]",
        None, id="strided_slice_reverse_end_is_int64_min",
    ),
    pytest.param(
        "[10,11,12]", [0, 0, 0, 0], [1, 5, 20, 20], [1, 1, 1, 1],
        masks(_Z3, _Z3, [1, 0, 0], [0, 0, 1], _Z3), "[1,5,12]", None,
        id="strided_slice_use_default_ctor",
    ),
    pytest.param(
        "[1,256,?]", [0, 0, -7], [0, 0, I64_MAX], [1, 1, 1], masks([1, 1, 0], [1, 1, 0]),
        "[1,256,..7]", None, id="strided_slice_inf_dim_start_from_last_N_to_end",
    ),
    pytest.param(
        "[1,2,3,4]", [0], [I64_MAX], None, masks([1] * 5, [0] * 5), "[1,2,3,4]", None,
        id="strided_slice_different_ranks",
    ),
    pytest.param(
        "[1,2,3,4]", [0, 0, 0, 0], [2, 2, 2, 2], None, masks([1, 1, 0, 1, 1], [0, 0, 1, 0, 0]),
        "[1,2,3,2]", None, id="strided_slice_different_ranks_long_masks",
    ),
    # StridedSliceShapeInferTest: begin, end and strides are i32 Parameters
    pytest.param(
        "[1,200,300,3]", _P4, _P4, _P4, masks([0] * 4, [0] * 4, [0] * 4, [0, 1, 0, 0], [0] * 4),
        "[..1,..300,..3]", None, id="StridedSliceShapeInferTest/shrink_2nd_dim",
    ),
    pytest.param(
        "[1,200,300,3]", _P4, _P4, _P4, masks([1, 0, 0, 0], [1, 0, 0, 0], [0] * 4, [0, 1, 0, 1]),
        "[..1,..300]", "[1,..300]",  # exact: both masks set, so any stride takes the 1 element
        id="StridedSliceShapeInferTest/shrink_output_shape_by_axes(tighter)",
    ),
    pytest.param(
        "[1,200,200,3]", _P4, _P4, _P4, masks([1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]),
        "[..1,..200,1,..200,3]", "[1,..200,1,..200,3]",
        id="StridedSliceShapeInferTest/extend_output_shape_by_new_axes(tighter)",
    ),
    pytest.param(
        "[1,200,200,3]", _P4, _P4, _P4, masks([1, 0, 0, 0], [1, 0, 0, 0]),
        "[..1,..200,..200,..3]", "[1,..200,..200,..3]",
        id="StridedSliceShapeInferTest/there_are_empty_masks(tighter)",
    ),
    pytest.param(
        "[8..,200,200,3]", _P4, _P4, _P4, masks([0] * 4, [0] * 4), "[?,..200,..200,..3]", None,
        id="StridedSliceShapeInferTest/when_input_has_dynamic_dimension",
    ),
    pytest.param(
        "[8..40,200,100..200,3]", _P4, _P4, _P4, masks([0] * 4, [0] * 4, [0] * 4, [1, 0, 0, 0]),
        "[..200,..200,..3]", None,
        id="StridedSliceShapeInferTest/input_has_dynamic_dimensions_and_shrink_one",
    ),
    pytest.param(
        "[...]", _P4, _P4, _P4, masks([1, 0, 1, 0], [0] * 4, [1, 0, 0, 0]), "[...]", None,
        id="StridedSliceShapeInferTest/input_is_dynamic_rank",
    ),
    pytest.param(
        "[?,?,?,?]", _P4, _P4, _P4, masks([1, 0, 1, 0], [0] * 4, [1, 0, 0, 0]), "[1,?,?,?,?]",
        None, id="StridedSliceShapeInferTest/extend_input_with_static_rank_and_all_dynamic_dims",
    ),
    pytest.param(
        "[3,5,4]", U, _P3, U, masks([1, 0, 1, 0], [0] * 4), "[..3,..5,..4]", None,
        id="StridedSliceShapeInferTest/begin_strides_are_dynamic_rank",
    ),
    pytest.param(
        "[3,5,4]", U, _P3, _P3, masks([0, 0, 1, 0], [0] * 4, el=[0, 1, 0, 0]), "[..3,5,..4]", None,
        id="StridedSliceShapeInferTest/begin_strides_are_dynamic_rank_and_ellipsis_mask_present",
    ),
    pytest.param(
        "[3,5,4]", U, U, U, masks([1, 0, 1, 0], [0] * 4), "[...]", "[..3,..5,..4]",
        id="StridedSliceShapeInferTest/begin_end_strides_are_dynamic_rank",
    ),
]  # fmt: skip


def _is_concrete(*values: Any) -> bool:
    return not any(v is U or isinstance(v, dm.Unknown) for v in values)


@pytest.mark.parametrize(
    ("shape", "begin", "end", "stride", "mask", "ov_shape", "exact"), STRIDED_TYPE_PROP
)
def test_strided_slice_type_prop(
    shape: str,
    begin: Any,
    end: Any,
    stride: Any,
    mask: dict[str, list[int]],
    ov_shape: str,
    exact: str | None,
) -> None:
    got = dm.infer_strided_slice(shape, begin, end, stride, **mask)
    assert str(got) == (exact or ov_shape)
    assert within(got, ov_shape)
    data_shape = dm.PartialShape.parse(shape)
    if data_shape.is_static and _is_concrete(begin, end, stride):
        executed = dm.strided_slice(np.zeros(data_shape.to_shape()), begin, end, stride, **mask)
        assert executed.shape == got.to_shape()


@pytest.mark.parametrize(
    ("shape", "begin", "end", "stride", "mask", "ov_shape", "exact"), STRIDED_TYPE_PROP
)
def test_strided_slice_type_prop_runtime(
    shape: str,
    begin: Any,
    end: Any,
    stride: Any,
    mask: dict[str, list[int]],
    ov_shape: str,
    exact: str | None,
) -> None:
    needs_openvino()
    stride_ov = None if stride is None else to_ov(stride)
    node = ov.strided_slice(shape, to_ov(begin), to_ov(end), stride_ov, **mask)
    assert node.shapes == (ov_shape,)


def test_strided_slice_default_stride_begin_end_of_dynamic_rank() -> None:
    """strided_slice_default_stride_dynamic_shape_input_begin_not_1d (documented difference).

    OpenVINO's 3-input form builds its default strides from ``ShapeOf(begin)``, so a ``begin`` of
    dynamic rank fails ("Begin input must be 1D", an AssertFailure). datamove's ``UNKNOWN`` is
    1-D by definition (only its values and length are unknown): the number of addressed axes is
    unknown, and with no new-axis or shrink bit each axis is kept or sliced (the rank is the
    input's); a bit that can change the rank leaves it dynamic.
    """
    got = dm.infer_strided_slice("[2,4,6,8]", U, U, None, begin_mask=[0, 0])
    assert str(got) == "[..2,..4,..6,..8]"
    assert str(dm.infer_strided_slice("[2,4,6,8]", U, U, None, new_axis_mask=[0, 1])) == "[...]"


def test_strided_slice_default_stride_begin_end_of_dynamic_rank_runtime() -> None:
    needs_openvino()
    node = ov.strided_slice(
        [2, 4, 6, 8], ov.Param(None), ov.Param(None), None, begin_mask=[0, 0], end_mask=[0, 0]
    )
    assert node.rule == "index 1-D"


# shape, begin, end, stride, masks, datamove's exception, message pattern, OpenVINO's rule
STRIDED_ERRORS = [
    pytest.param(
        [2, 4, 6, 8], np.zeros(4, np.float16), np.zeros(4, np.int64), None,
        masks([1, 0, 1, 0], [1, 0, 1, 0]), dm.DTypeError, r"^StridedSlice: begin=.*float16",
        "index integer", id="strided_slice_begin_incorrect_type",
    ),
    pytest.param(
        [2, 4, 6, 8], np.zeros(4, np.int64), np.zeros(4, np.bool_), None,
        masks([1, 0, 1, 0], [1, 0, 1, 0]), dm.DTypeError, r"^StridedSlice: end=.*bool",
        "index integer", id="strided_slice_end_incorrect_type",
    ),
    pytest.param(
        [2, 4, 6, 8], np.zeros((4, 5), np.int64), np.zeros(4, np.int64), None,
        masks([1, 0, 1, 0], [1, 0, 1, 2]), dm.ValidationError, r"^StridedSlice: (begin|end_mask)=",
        "mask 0/1", id="strided_slice_mask_incorrect_value",
    ),
    pytest.param(
        [2, 4, 6, 8], np.zeros((4, 5), np.int64), np.zeros(4, np.int64), None,
        masks([1, 0, 1, 0], [1, 0, 1, 0]), dm.ValidationError, r"^StridedSlice: begin=.* 1-D",
        "index 1-D", id="strided_slice_begin_incorrect_shape",
    ),
    pytest.param(
        [2, 4, 6, 8], np.zeros(4, np.int64), np.zeros((4, 5), np.int64), None,
        masks([1, 0, 1, 0], [1, 0, 1, 0]), dm.ValidationError, r"^StridedSlice: end=.* 1-D",
        "index 1-D", id="strided_slice_end_incorrect_shape",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("shape", "begin", "end", "stride", "mask", "exc", "match", "rule"), STRIDED_ERRORS
)
def test_strided_slice_errors(
    shape: list[int],
    begin: Any,
    end: Any,
    stride: Any,
    mask: dict[str, list[int]],
    exc: type[Exception],
    match: str,
    rule: str,
) -> None:
    with pytest.raises(exc, match=match):
        dm.infer_strided_slice(shape, begin, end, stride, **mask)
    with pytest.raises(exc, match=match):
        dm.strided_slice(np.zeros(shape), begin, end, stride, **mask)


@pytest.mark.parametrize(
    ("shape", "begin", "end", "stride", "mask", "exc", "match", "rule"), STRIDED_ERRORS
)
def test_strided_slice_errors_runtime(
    shape: list[int],
    begin: Any,
    end: Any,
    stride: Any,
    mask: dict[str, list[int]],
    exc: type[Exception],
    match: str,
    rule: str,
) -> None:
    needs_openvino()
    # OpenVINO's test feeds Parameters of these shapes and types; constants check the same rule.
    begin_ov = ov.Param(list(begin.shape), str(begin.dtype))
    end_ov = ov.Param(list(end.shape), str(end.dtype))
    assert ov.strided_slice(shape, begin_ov, end_ov, None, **mask).rule == rule


def test_strided_slice_incompatible_size_of_masks_attr() -> None:
    """strided_slice_incompatible_size_of_masks_attr (divergence: masks of unequal length).

    OpenVINO 2026.4.1 rejects ``new_axis_mask`` of 5 bits beside 4-bit begin/end masks ("All
    masks of StridedSlice must have the same size"); the spec zero-pads masks, so datamove
    accepts, and the fifth bit (past ``len(begin)``) never counts.
    """
    got = dm.infer_strided_slice(
        [2, 4, 6, 8], _P4, _P4, None, **masks([1, 0, 1, 0], [1, 0, 1, 0], [1, 0, 1, 0, 1])
    )
    assert str(got) == "[1,..2,1,..4,6,8]"


def test_strided_slice_incompatible_size_of_masks_attr_runtime() -> None:
    needs_openvino()
    raw = masks([1, 0, 1, 0], [1, 0, 1, 0], [1, 0, 1, 0, 1])
    p = ov.Param([4])
    assert ov.strided_slice([2, 4, 6, 8], p, p, None, **raw).rule == "mask sizes"
    normalised = ov.normalise_masks(4, raw)
    assert ov.strided_slice([2, 4, 6, 8], p, p, None, **normalised).shapes == ("[1,..2,1,..4,6,8]",)


# -- StridedSlice: op_reference ------------------------------------------------------------------

STRIDED_SMALL_DTYPES = [np.int8, np.uint8, ml_dtypes.bfloat16, np.float16]
STRIDED_DTYPES = [np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64, np.float32,
                  np.float64]  # fmt: skip
STRIDED_OPTIONAL_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                           np.uint64, np.float32, np.float64]  # fmt: skip

_SS1_VALUES = [
    185, 187, 189, 191, 169, 171, 173, 175, 313, 315, 317, 319, 297, 299, 301, 303, 569, 571, 573,
    575, 553, 555, 557, 559, 697, 699, 701, 703, 681, 683, 685, 687, 953, 955, 957, 959, 937, 939,
    941, 943, 1081, 1083, 1085, 1087, 1065, 1067, 1069, 1071, 1337, 1339, 1341, 1343, 1321, 1323,
    1325, 1327, 1465, 1467, 1469, 1471, 1449, 1451, 1453, 1455, 1721, 1723, 1725, 1727, 1705, 1707,
    1709, 1711, 1849, 1851, 1853, 1855, 1833, 1835, 1837, 1839, 2105, 2107, 2109, 2111, 2089, 2091,
    2093, 2095, 2233, 2235, 2237, 2239, 2217, 2219, 2221, 2223, 2489, 2491, 2493, 2495, 2473, 2475,
    2477, 2479, 2617, 2619, 2621, 2623, 2601, 2603, 2605, 2607, 2873, 2875, 2877, 2879, 2857, 2859,
    2861, 2863, 3001, 3003, 3005, 3007, 2985, 2987, 2989, 2991,
]  # fmt: skip

_SS0 = (
    (2, 3, 4), [1, 0], [0, 0], [1, 1], masks(_Z3, _Z3, [0, 1, 0], [1, 0, 0], _Z3),
    (1, 3, 4), list(range(12, 24)),
)  # fmt: skip
_SS1 = (
    (2, 4, 6, 8, 2, 2, 2), [0, 0, 2, 7, 0, 0, 1], [0, 4, 6, 3, 0, 0, 0], [1, 1, 2, -2, 1, 1, 1],
    masks([0, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0],
          [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1, 0]),
    (2, 4, 2, 2, 1, 2, 2), _SS1_VALUES,
)  # fmt: skip
_SS_OPTIONAL = (
    (2, 3, 4), [-1, -1, 0], [0, 0, 0], None, masks(_Z3, _Z3, [0, 0, 1], [1, 1, 0], _Z3),
    (1, 4), [20, 21, 22, 23],
)  # fmt: skip
_SS_OPTIONAL_EMPTY = (
    (2, 3, 4), [0, 0], [-1, 0], None, masks([1, 0], [1, 0]), (2, 0, 4), [],
)  # fmt: skip

# (data shape, begin, end, stride, masks, output shape, values), dtypes. Each "_dynamic" twin in
# OpenVINO feeds begin/end/stride as runtime Parameters to data of dynamic rank: the same values.
STRIDED_REFERENCE = [
    pytest.param(_SS0, STRIDED_SMALL_DTYPES + STRIDED_DTYPES, id="strided_slice_0(+_dynamic)"),
    pytest.param(_SS1, STRIDED_DTYPES, id="strided_slice_1(+_dynamic)"),
    pytest.param(
        _SS_OPTIONAL, STRIDED_OPTIONAL_DTYPES, id="strided_slice_stride_optional(+_dynamic)"
    ),
    pytest.param(
        _SS_OPTIONAL_EMPTY,
        STRIDED_OPTIONAL_DTYPES,
        id="strided_slice_stride_optional_dynamic_empty_output_tensor",
    ),
]


@pytest.mark.parametrize(("case", "dtypes"), STRIDED_REFERENCE)
def test_strided_slice_reference(case: tuple[Any, ...], dtypes: list[Any]) -> None:
    shape, begin, end, stride, mask, out_shape, values = case
    for dtype in dtypes:
        got = dm.strided_slice(iota(shape, dtype), begin, end, stride, **mask)
        want = np.array(values, np.int64).astype(dtype).reshape(out_shape)
        np.testing.assert_array_equal(got, want, strict=True, err_msg=np.dtype(dtype).name)
        # the same values as NumPy arrays of another integer type
        got32 = dm.strided_slice(
            iota(shape, dtype),
            np.array(begin, np.int32),
            np.array(end, np.int32),
            None if stride is None else np.array(stride, np.int32),
            **mask,
        )
        np.testing.assert_array_equal(got32, want, strict=True)
    assert str(dm.infer_strided_slice(list(shape), begin, end, stride, **mask)) == (
        "[" + ",".join(map(str, out_shape)) + "]"
    )
    assert str(dm.infer_strided_slice("[...]", begin, end, stride, **mask)) == "[...]"


@pytest.mark.parametrize(("case", "dtypes"), STRIDED_REFERENCE)
def test_strided_slice_reference_runtime(case: tuple[Any, ...], dtypes: list[Any]) -> None:
    """The expected values hold on the reference evaluate (not on the CPU plugin: see below)."""
    needs_openvino()
    shape, begin, end, stride, mask, out_shape, values = case
    data = iota(shape, np.float32)
    node = ov.strided_slice(
        list(shape),
        np.array(begin),
        np.array(end),
        None if stride is None else np.array(stride),
        **mask,
    )
    (got,) = node.evaluate(data)
    np.testing.assert_array_equal(got, np.array(values, np.float32).reshape(out_shape))
