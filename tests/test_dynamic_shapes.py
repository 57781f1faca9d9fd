"""Dynamic shapes: datamove's inference is sound, and at least as tight as OpenVINO's.

For random interval shapes (``lo..hi``, ``..hi``, ``lo..``, ``?``, dynamic rank) and parameters:

* **soundness** (no OpenVINO needed): executing datamove on concrete shapes sampled inside the
  intervals (both corners and random points; an unbounded dim is sampled up to ``min + 9``) gives
  outputs whose shapes lie inside the inferred ones; where inference rejects, every sampled
  concrete shape is rejected too (datamove may only reject what no concrete shape could run);
* **tightness** (against OpenVINO's shape inference on the same interval shape): OpenVINO rejects
  => datamove rejects; both accept => every datamove dim lies inside OpenVINO's (an OpenVINO
  ``Dimension(lo, hi)`` with lo > hi prints ``?`` and reads as ``0..inf``), with the same rank
  where OpenVINO knows it;
* **UNKNOWN parameters** (``dm.UNKNOWN`` / ``dm.Unknown(n)`` against OpenVINO ``Parameter``
  inputs): the same two properties, sampling concrete parameter values as well as shapes.

StridedSlice masks reach OpenVINO normalised (``openvino_oracle.normalise_masks``). Only its
shape inference runs here, which is safe on any masks; nothing is run in the oracle's worker.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from hypothesis import event, example, given, note
from hypothesis import strategies as st

import datamove as dm
import openvino_oracle as ov
from strategies import (
    MASK_NAMES,
    concrete_shapes,
    fixed_settings,
    index_values,
    masks,
    partial_shapes,
    shape_text,
    stride_values,
    witness_sizes,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SPLIT_EXAMPLES = 1500
VARIADIC_EXAMPLES = 1500
STRIDED_EXAMPLES = 2500
UNKNOWN_EXAMPLES = 600


# -- helpers -------------------------------------------------------------------------------------


def outcome(call: Callable[[], Any]) -> tuple[Any, dm.ValidationError | None]:
    try:
        return call(), None
    except dm.ValidationError as exc:
        return None, exc


def as_list(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple) else [result]


def dim_inside(size: int, dim: Any) -> bool:
    return size >= dim.min and (dim.max is None or size <= dim.max)


def assert_contains(inferred: list[Any], arrays: list[np.ndarray], where: str) -> None:
    """Every executed array's shape lies inside the inferred shape."""
    assert len(arrays) == len(inferred), f"{where}: {len(arrays)} outputs, inferred {inferred}"
    for shape, array in zip(inferred, arrays, strict=True):
        if shape.rank is None:
            continue
        assert shape.rank == array.ndim, f"{where}: {array.shape} outside {shape}"
        assert all(dim_inside(n, d) for n, d in zip(array.shape, shape, strict=True)), (
            f"{where}: {array.shape} outside {shape}"
        )


def check_sound(
    inferred: tuple[Any, dm.ValidationError | None],
    runs: Sequence[tuple[str, Callable[[], Any]] | tuple[str, Callable[[], Any], bool]],
    *,
    openvino_rule: bool = False,
) -> None:
    """Soundness: each concrete run lands inside the inferred shapes, or inference rejected.

    ``openvino_rule``: the rejection is one of OpenVINO's interval rules, which datamove keeps
    for the same verdict even where a concrete shape inside could run.
    """
    result, error = inferred
    ran = 0
    for where, run, *excused in runs:
        arrays, run_error = outcome(run)
        if error is not None:
            if run_error is None and any(excused):
                event("known datamove bug: excused run")
                continue
            assert run_error is not None or openvino_rule, (
                f"inference rejects ({error}), but {where} runs"
            )
            continue
        if run_error is None:
            ran += 1
            assert_contains(as_list(result), as_list(arrays), where)
    event("inference rejects" if error is not None else f"inference accepts, {min(ran, 3)}+ ran")


def ov_intervals(node: ov.Inferred) -> list[list[ov.Interval] | None]:
    return [node.intervals(i) for i in range(node.node.get_output_size())]


def openvino_witness(
    build: Callable[[str], ov.Inferred] | None,
    shape: Sequence[ov.Interval] | None,
    hints: Sequence[int],
    output: int,
    axis: int,
    lo: int,
    hi: int | None,
) -> tuple[int, ...] | None:
    """A concrete shape inside ``shape`` on which OpenVINO's own static inference gives a size
    outside the interval ``lo..hi`` it inferred for ``shape``: proof that OpenVINO is unsound."""
    if build is None or shape is None:
        return None
    for concrete in witness_sizes(shape, hints):
        node = build(shape_text([(n, n) for n in concrete]))
        if not node.ok:
            continue
        dims = node.intervals(output)
        if dims is None or axis >= len(dims):
            continue
        size = dims[axis][0]
        if size < lo or (hi is not None and size > hi):
            return concrete
    return None


NEAR_INT64_MAX = 2**50  # OpenVINO's bounds computed at INT64_MAX on an unbounded dim


def check_tight(
    inferred: tuple[Any, dm.ValidationError | None],
    node: ov.Inferred,
    forced_rule: str | None,
    *,
    build: Callable[[str], ov.Inferred] | None = None,
    shape: Sequence[ov.Interval] | None = None,
    hints: Sequence[int] = (),
) -> None:
    """Tightness against OpenVINO's shape inference (the soundness check covers dm's rejections)."""
    result, error = inferred
    rule = forced_rule or node.rule
    if rule is not None:
        event(f"OpenVINO rejects: {rule}")
        assert error is not None, f"OpenVINO rejects ({rule}), datamove infers {result}"
        return
    if error is not None:
        event("OpenVINO accepts, datamove rejects")
        return
    event("both accept")
    shapes = as_list(result)
    theirs = ov_intervals(node)
    assert len(shapes) == len(theirs), f"{[str(s) for s in shapes]} vs {node.shapes}"
    for index, (mine, other, text) in enumerate(zip(shapes, theirs, node.shapes, strict=True)):
        if other is None:
            continue
        assert mine.rank == len(other), f"{mine} vs OpenVINO {text}"
        for axis, (d, (lo, hi)) in enumerate(zip(mine, other, strict=True)):
            if d.max is None and hi is not None and hi >= NEAR_INT64_MAX and d.min == lo:
                # docs/semantics.md: a bound reached only by sizes near INT64_MAX is unbounded
                event("OpenVINO bound near INT64_MAX, datamove unbounded")
                continue
            inside = d.min >= lo and (hi is None or (d.max is not None and d.max <= hi))
            if not inside:
                witness = openvino_witness(build, shape, hints, index, axis, lo, hi)
                assert witness is not None, f"{mine} is not inside OpenVINO's {text}"
                # OpenVINO's interval is unsound; datamove's wider one is right.
                event("OpenVINO unsound (witness found)")
                note(f"OpenVINO unsound: {text}, but its own inference on {witness} disagrees")
        if str(mine) != text:
            event("datamove tighter")


def zeros(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, np.int8)


def index_vector(values: Sequence[int]) -> np.ndarray:
    return np.array(values, np.int64)


# -- Split -------------------------------------------------------------------------------------


@st.composite
def split_cases(draw: st.DrawFn) -> tuple[Any, int, int, list[tuple[int, ...]]]:
    shape = draw(partial_shapes(min_rank=1))
    rank = len(shape) if shape is not None else 3
    axis = draw(st.integers(-rank - 1, rank))
    num_splits = draw(st.one_of(st.integers(1, 4), st.integers(1, 4), st.integers(0, 13)))
    return shape, axis, num_splits, concrete_shapes(draw, shape)


@pytest.mark.openvino
@fixed_settings(SPLIT_EXAMPLES)
@given(case=split_cases())
def test_split_intervals(case: tuple[Any, int, int, list[tuple[int, ...]]]) -> None:
    shape, axis, num_splits, samples = case
    text = shape_text(shape)
    note(f"dm.infer_split({text!r}, {axis}, {num_splits})")
    inferred = outcome(lambda: dm.infer_split(text, axis, num_splits))
    # OpenVINO's rule "interval maximum >= num_splits" rejects [..1] split in 2, although a
    # size of 0 splits into any number of parts; datamove keeps the rule (OpenVINO's verdict).
    openvino_rule = (
        shape is not None
        and -len(shape) <= axis < len(shape)
        and shape[axis][1] is not None
        and shape[axis][0] != shape[axis][1]
        and shape[axis][1] < num_splits
    )
    check_sound(
        inferred,
        [(f"split{s}", lambda s=s: dm.split(zeros(s), axis, num_splits)) for s in samples],
        openvino_rule=openvino_rule,
    )
    if num_splits > 0:
        check_tight(inferred, ov.split(text, np.int64(axis), num_splits), None)


# -- VariadicSplit -------------------------------------------------------------------------------


@st.composite
def lengths_for(draw: st.DrawFn, dim: int) -> list[int]:
    """Lengths that often sum to a size near ``dim``, sometimes with a -1, sometimes broken."""
    k = draw(st.integers(1, 4))
    parts = [draw(st.integers(0, max(dim, 1))) for _ in range(k)]
    if draw(st.booleans()):
        parts[draw(st.integers(0, k - 1))] = -1
    if draw(st.integers(0, 9)) == 0:
        parts.append(draw(st.sampled_from([-1, -2])))
    return parts


@st.composite
def variadic_cases(draw: st.DrawFn) -> tuple[Any, int, list[int], list[tuple[int, ...]]]:
    shape = draw(partial_shapes(min_rank=1))
    rank = len(shape) if shape is not None else 3
    axis = draw(st.integers(-rank - 1, rank))
    near = 6
    if shape is not None and -rank <= axis < rank:
        lo, hi = shape[axis]
        near = draw(st.integers(lo, lo + 9 if hi is None else hi))
    return shape, axis, draw(lengths_for(near)), concrete_shapes(draw, shape)


@pytest.mark.openvino
@fixed_settings(VARIADIC_EXAMPLES)
@given(case=variadic_cases())
def test_variadic_split_intervals(case: tuple[Any, int, list[int], list[tuple[int, ...]]]) -> None:
    shape, axis, lengths, samples = case
    text = shape_text(shape)
    note(f"dm.infer_variadic_split({text!r}, {axis}, {lengths})")
    inferred = outcome(lambda: dm.infer_variadic_split(text, axis, lengths))
    check_sound(
        inferred,
        [
            (f"variadic_split{s}", lambda s=s: dm.variadic_split(zeros(s), axis, lengths))
            for s in samples
        ],
    )
    check_tight(inferred, ov.variadic_split(text, np.int64(axis), index_vector(lengths)), None)


# -- StridedSlice --------------------------------------------------------------------------------


@st.composite
def strided_cases(draw: st.DrawFn) -> dict[str, Any]:
    shape = draw(partial_shapes())
    rank = len(shape) if shape is not None else 3
    count = draw(st.one_of(st.integers(0, rank), st.integers(0, rank + 2)))
    values = index_values(span=13)
    return {
        "shape": shape,
        "begin": draw(st.lists(values, min_size=count, max_size=count)),
        "end": draw(st.lists(values, min_size=count, max_size=count)),
        "stride": draw(
            st.one_of(st.none(), st.lists(stride_values(), min_size=count, max_size=count))
        ),
        "masks": draw(masks(count)),
        "samples": concrete_shapes(draw, shape),
    }


def ov_strided(text: str, begin: Any, end: Any, stride: Any, count: int, mask: Any) -> Any:
    return ov.strided_slice(text, begin, end, stride, **ov.normalise_masks(count, mask))


def forced_ellipsis_rule(mask: dict[str, list[int]]) -> str | None:
    """OpenVINO counts ellipsis bits past len(begin) (as datamove does); the normalised masks
    sent to it do not carry them, so that verdict is applied here."""
    return "one ellipsis" if sum(mask["ellipsis_mask"]) > 1 else None


@pytest.mark.openvino
@fixed_settings(STRIDED_EXAMPLES)
@given(case=strided_cases())
@example(  # OpenVINO says [1..3]; its own inference on [INT64_MAX - 1] gives [0], as datamove
    case={
        "shape": ((1, None),),
        "begin": [2],
        "end": [-(2**63) + 4],
        "stride": [-1],
        "masks": {name: [] for name in MASK_NAMES},
        "samples": [(1,), (10,)],
    }
)
def test_strided_slice_intervals(case: dict[str, Any]) -> None:
    text = shape_text(case["shape"])
    begin, end, stride, mask = case["begin"], case["end"], case["stride"], case["masks"]
    mask_args = "".join(f", {k}={v}" for k, v in mask.items() if v)
    note(f"dm.infer_strided_slice({text!r}, {begin}, {end}, {stride}{mask_args})")
    inferred = outcome(lambda: dm.infer_strided_slice(text, begin, end, stride, **mask))
    check_sound(
        inferred,
        [
            (
                f"strided_slice{s}",
                lambda s=s: dm.strided_slice(zeros(s), begin, end, stride, **mask),
            )
            for s in case["samples"]
        ],
    )

    def build(shape_str: str) -> ov.Inferred:
        return ov_strided(
            shape_str,
            index_vector(begin),
            index_vector(end),
            None if stride is None else index_vector(stride),
            len(begin),
            mask,
        )

    check_tight(
        inferred,
        build(text),
        forced_ellipsis_rule(mask),
        build=build,
        shape=case["shape"],
        hints=[*begin, *end],
    )


# -- UNKNOWN parameters --------------------------------------------------------------------------


@st.composite
def unknown_split_cases(draw: st.DrawFn) -> tuple[Any, int, list[tuple[tuple[int, ...], int]]]:
    shape = draw(partial_shapes(min_rank=1))
    num_splits = draw(st.integers(1, 4))
    runs = [(s, draw(st.integers(-len(s) - 1, len(s)))) for s in concrete_shapes(draw, shape)]
    return shape, num_splits, runs


@pytest.mark.openvino
@fixed_settings(UNKNOWN_EXAMPLES)
@given(case=unknown_split_cases())
def test_split_unknown_axis(case: tuple[Any, int, list[tuple[tuple[int, ...], int]]]) -> None:
    shape, num_splits, runs = case
    text = shape_text(shape)
    note(f"dm.infer_split({text!r}, dm.UNKNOWN, {num_splits})")
    inferred = outcome(lambda: dm.infer_split(text, dm.UNKNOWN, num_splits))
    check_sound(
        inferred,
        [
            (
                f"split{s}, axis={a}",
                lambda s=s, a=a: dm.split(zeros(s), a, num_splits),
            )
            for s, a in runs
        ],
    )
    check_tight(inferred, ov.split(text, ov.Param(()), num_splits), None)


@st.composite
def unknown_variadic_cases(draw: st.DrawFn) -> dict[str, Any]:
    shape = draw(partial_shapes(min_rank=1))
    k = draw(st.integers(1, 4))
    axis_unknown = draw(st.booleans())
    lengths_unknown = not axis_unknown or draw(st.booleans())
    rank = len(shape) if shape is not None else 3
    axis = draw(st.integers(-rank - 1, rank))
    lengths = draw(lengths_for(6))[:k] if not lengths_unknown else None
    runs = []
    for s in concrete_shapes(draw, shape):
        a = draw(st.integers(-len(s), max(len(s) - 1, 0))) if axis_unknown else axis
        if lengths_unknown:
            dim = s[a] if -len(s) <= a < len(s) else 3
            cuts = sorted(draw(st.lists(st.integers(0, dim), min_size=k - 1, max_size=k - 1)))
            concrete = [y - x for x, y in zip([0, *cuts], [*cuts, dim], strict=True)]
            if draw(st.booleans()):
                concrete[draw(st.integers(0, k - 1))] = -1
        else:
            concrete = lengths
        runs.append((s, a, concrete))
    return {
        "shape": shape,
        "axis": dm.UNKNOWN if axis_unknown else axis,
        "lengths": dm.Unknown(length=k) if lengths_unknown else lengths,
        "k": k,
        "runs": runs,
    }


@pytest.mark.openvino
@fixed_settings(UNKNOWN_EXAMPLES)
@given(case=unknown_variadic_cases())
def test_variadic_split_unknown_parameters(case: dict[str, Any]) -> None:
    text, axis, lengths = shape_text(case["shape"]), case["axis"], case["lengths"]
    note(f"dm.infer_variadic_split({text!r}, {axis!r}, {lengths!r})")
    inferred = outcome(lambda: dm.infer_variadic_split(text, axis, lengths))
    check_sound(
        inferred,
        [
            (
                f"variadic_split{s}, {a}, {c}",
                lambda s=s, a=a, c=c: dm.variadic_split(zeros(s), a, c),
            )
            for s, a, c in case["runs"]
        ],
    )
    axis_ov = ov.Param(()) if axis is dm.UNKNOWN else np.int64(axis)
    lengths_ov = ov.Param([case["k"]]) if isinstance(lengths, dm.Unknown) else index_vector(lengths)
    check_tight(inferred, ov.variadic_split(text, axis_ov, lengths_ov), None)


@st.composite
def unknown_strided_cases(draw: st.DrawFn) -> dict[str, Any]:
    shape = draw(partial_shapes())
    rank = len(shape) if shape is not None else 3
    count = draw(st.integers(0, rank + 1))
    # each of begin / end / stride: a value, Unknown(count), or UNKNOWN (length unknown)
    kinds = {
        name: draw(st.sampled_from(["value", "unknown_n", "unknown"]))
        for name in ("begin", "end", "stride")
    }
    stride_absent = draw(st.integers(0, 3)) == 0
    mask = draw(masks(count))
    values = index_values(span=13)
    runs = []
    for s in concrete_shapes(draw, shape):
        run = {
            "begin": draw(st.lists(values, min_size=count, max_size=count)),
            "end": draw(st.lists(values, min_size=count, max_size=count)),
            "stride": draw(st.lists(stride_values(), min_size=count, max_size=count)),
        }
        runs.append((s, run))
    fixed = runs[0][1]
    params = {}
    for name, kind in kinds.items():
        if kind == "value":
            params[name] = fixed[name]
        elif kind == "unknown_n":
            params[name] = dm.Unknown(length=count)
        else:
            params[name] = dm.UNKNOWN
    if stride_absent:
        params["stride"] = None
    # concrete runs keep the known values fixed
    for _, run in runs:
        for name, kind in kinds.items():
            if kind == "value":
                run[name] = fixed[name]
        if stride_absent:
            run["stride"] = None
    return {"shape": shape, "params": params, "masks": mask, "runs": runs, "count": count}


def ov_param(value: Any, count: int) -> Any:
    if value is None:
        return None
    if value is dm.UNKNOWN:
        return ov.Param("[?]")
    if isinstance(value, dm.Unknown):
        return ov.Param([count])
    return index_vector(value)


@pytest.mark.openvino
@fixed_settings(UNKNOWN_EXAMPLES)
@given(case=unknown_strided_cases())
def test_strided_slice_unknown_parameters(case: dict[str, Any]) -> None:
    text, p, mask = shape_text(case["shape"]), case["params"], case["masks"]
    note(f"dm.infer_strided_slice({text!r}, {p['begin']!r}, {p['end']!r}, {p['stride']!r}, {mask})")
    inferred = outcome(
        lambda: dm.infer_strided_slice(text, p["begin"], p["end"], p["stride"], **mask)
    )
    check_sound(
        inferred,
        [
            (
                f"strided_slice{s}, {r}",
                lambda s=s, r=r: dm.strided_slice(
                    zeros(s), r["begin"], r["end"], r["stride"], **mask
                ),
            )
            for s, r in case["runs"]
        ],
    )
    count = case["count"]
    known = any(not (v is dm.UNKNOWN or v is None) for v in p.values())

    def build(shape_str: str) -> ov.Inferred:
        return ov.strided_slice(
            shape_str,
            ov_param(p["begin"], count),
            ov_param(p["end"], count),
            ov_param(p["stride"], count),
            # with no length known, masks are only padded to one length (none can be cut)
            **ov.normalise_masks(count if known else max(map(len, mask.values())), mask),
        )

    node = build(text)
    ellipsis = any(mask["ellipsis_mask"][:count])
    if ellipsis and any(mask["new_axis_mask"][:count]) and not isinstance(p["begin"], list):
        # docs/semantics.md #5 and #16: with begin unknown, OpenVINO puts new axes before the
        # axes an ellipsis keeps ([5] gives [1,5]; with a constant begin, and at run time, [5,1])
        event("OpenVINO self-inconsistent: ellipsis and new axes, begin unknown")
        return
    values = [v for k in ("begin", "end") if isinstance(p[k], list) for v in p[k]]
    check_tight(
        inferred, node, forced_ellipsis_rule(mask), build=build, shape=case["shape"], hints=values
    )


# -- datamove bugs found here: regressions, and the open ones pinned (xfail strict) -------------


def test_strided_slice_unbounded_int64_min() -> None:
    # Regression (found here): the interval arithmetic once overflowed into Dimension(max=2**63).
    # OpenVINO: [0,?]; every concrete shape [0, d] runs in datamove and gives [0, d].
    got = dm.infer_strided_slice("[0,?]", [0, -(2**63)], [0, 0], None, end_mask=[1, 1])
    assert str(got) == "[0,?]"


def test_split_unknown_axis_zero_size() -> None:
    # Regression (found here): axis=UNKNOWN once applied OpenVINO's constant-axis "interval
    # maximum >= num_splits" rule to every candidate axis. OpenVINO: [?,?] twice.
    assert len(dm.split(np.zeros((1, 0)), 1, 2)) == 2
    got = dm.infer_split("[1,..1]", dm.UNKNOWN, 2)
    assert all(dim_inside(0, s[1]) for s in got)


def test_strided_slice_unbounded_near_int64_min_tight() -> None:
    # Regression (found here): the lower bound was 0. Every concrete size d >= 1 gives exactly
    # 1 element (d + INT64_MIN + 1 <= 0 clamps to 0); OpenVINO: [1].
    assert str(dm.infer_strided_slice("[1..]", [-(2**63) + 1], [1])) == "[1]"


def test_strided_slice_bounds_near_int64_max_print_unbounded() -> None:
    # docs/semantics.md: OpenVINO evaluates the unbounded size at INT64_MAX and prints
    # [..1844674407370955142]; the length grows with the size past every breakpoint: unbounded.
    assert str(dm.infer_strided_slice("[?]", [-100], [0], [-5], end_mask=[1])) == "[?]"
    assert str(dm.infer_strided_slice("[?]", [-5], [0], end_mask=[1])) == "[..5]"
    assert str(dm.infer_strided_slice("[3..]", [1], [0], end_mask=[1])) == "[2..]"


@pytest.mark.openvino
def test_strided_slice_huge_strides_tight() -> None:
    # Found by the audit: lengths that grow past the last breakpoint but stay small up to
    # INT64_MAX printed as unbounded ([1..]); OpenVINO gives [1..2] and [1..4]. The true
    # ranges over the sizes below INT64_MAX are 1..2 and 1..3.
    def length(d: int, begin: int, end: int, stride: int) -> int:  # on a static size
        (dim,) = dm.infer_strided_slice([d], [begin], [end], [stride], end_mask=[1]).dims
        assert dim.is_static
        return dim.min

    top = 2**63 - 2
    first = dm.infer_strided_slice("[1..]", [-8], [-3], [-(2**62)], end_mask=[1])
    assert str(first) == "[1..2]"
    assert {length(d, -8, -3, -(2**62)) for d in (1, 2**62 + 7, 2**62 + 8, top)} == {1, 2}
    second = dm.infer_strided_slice("[3..]", [-(2**63) + 7], [-4], [-2], end_mask=[1])
    assert str(second) == "[1..3]"
    assert length(top, -(2**63) + 7, -4, -2) == 3
    for got, shape, begin, end, stride in [
        (first, "[1..]", [-8], [-3], [-(2**62)]),
        (second, "[3..]", [-(2**63) + 7], [-4], [-2]),
    ]:
        vectors = index_vector(begin), index_vector(end), index_vector(stride)
        node = ov_strided(shape, *vectors, 1, {"end_mask": [1]})
        ((lo, hi),) = node.intervals(0)
        assert hi is not None
        assert lo <= got[0].min
        assert got[0].max is not None
        assert got[0].max <= hi


def test_unknown_axis_exact_when_one_axis_can_run() -> None:
    # Found by the audit: with one axis only able to run, "not split here" was still in the
    # hull of the others, and the one axis kept its unsplit sizes too.
    assert [str(s) for s in dm.infer_split("[4..5,6]", dm.UNKNOWN, 3)] == ["[4..5,2]"] * 3
    assert [str(s) for s in dm.infer_split("[..2]", dm.UNKNOWN, 3)] == ["[0]"] * 3
    got = dm.infer_variadic_split("[2,5]", dm.UNKNOWN, [1, 4])
    assert [str(s) for s in got] == ["[2,1]", "[2,4]"]
    # two axes can run: each is the hull of split and not split
    assert [str(s) for s in dm.infer_split("[4,6]", dm.UNKNOWN, 2)] == ["[2..4,3..6]"] * 2


def test_split_chunks_of_unbounded_dims_are_exact_below_huge_length() -> None:
    # Found by hunt8: a chunk of an unbounded dimension was always unbounded, though its
    # largest value over the sizes below INT64_MAX is small: StridedSlice's rule (#19) bounds
    # such a length exactly below 2**50 (x[::10000] on [?] gives [..922337203685478]).
    top = 2**63 - 2  # the largest size an unbounded dimension holds
    assert [str(s) for s in dm.infer_split("[?]", 0, 10000)] == ["[..922337203685477]"] * 10000
    assert top // 10000 == 922337203685477
    assert str(dm.infer_split("[?]", 0, 8192)[0]) == "[..1125899906842623]"  # 2**50 - 1
    assert str(dm.infer_split("[?]", 0, 8191)[0]) == "[?]"  # past 2**50: unbounded, as before
    assert str(dm.infer_split("[?,4]", dm.UNKNOWN, 10000)[0]) == "[..922337203685477,4]"
    rest = dm.infer_variadic_split("[?]", 0, [top - 9, -1])[1]
    assert str(rest) == "[..9]"  # sizes top - 9 to top: a rest of 0 to 9
    assert str(dm.infer_variadic_split("[3..]", 0, [2**62, -1])[1]) == "[?]"
    # a chunk that cannot grow is static, however large
    assert str(dm.infer_split(f"[{top}..]", 0, 2)[0]) == f"[{top // 2}]"


def test_strided_slice_of_unknown_length_keeps_the_rank_without_new_or_shrunk_axes() -> None:
    # Found by hunt8: begin and end of unknown length gave [...] (OpenVINO too), though with no
    # new-axis or shrink bit the output has the input's rank: each axis is kept (len(begin)
    # may be 0) or sliced by an index that reaches it, with that index's mask bits.
    unknown = dm.UNKNOWN
    assert str(dm.infer_strided_slice("[2,3..5,4]", unknown, unknown)) == "[..2,..5,..4]"
    both = dm.infer_strided_slice("[2,3..5,4]", unknown, unknown, begin_mask=[1], end_mask=[1])
    assert str(both) == "[1..2,..5,..4]"  # axis 0 whole, or one element of a huge stride
    # an ellipsis at index 1: axis 2 is kept, or sliced by index 2 or 3 (bits 0 there)
    ellipsis = dm.infer_strided_slice(
        "[2,3,4]", unknown, unknown, begin_mask=[1, 0, 1], end_mask=[1, 0, 1], ellipsis_mask=[0, 1]
    )
    assert str(ellipsis) == "[1..2,1..3,..4]"
    # every rank-changing bit leaves the rank unknown: it acts only where len(begin) > index
    assert dm.infer_strided_slice("[2,3]", unknown, unknown, new_axis_mask=[0, 0, 1]).rank is None
    assert dm.infer_strided_slice("[2,3]", unknown, unknown, shrink_axis_mask=[1]).rank is None
    # sound and exact: the hull of every length, value and size of [2,..3]
    inferred = dm.infer_strided_slice("[2,..3]", unknown, unknown, begin_mask=[0, 1])
    runs = [
        dm.infer_strided_slice([2, size], list(begin), list(end), list(stride), begin_mask=[0, 1])
        for size in range(4)
        for count in range(3)
        for begin in itertools.product((-1, 0, 2), repeat=count)
        for end in itertools.product((-1, 1, 3), repeat=count)
        for stride in itertools.product((1, -1, 2**62), repeat=count)
    ]
    hull = [(min(r[k].min for r in runs), max(r[k].min for r in runs)) for k in range(2)]
    assert [(d.min, d.max) for d in inferred.dims] == hull == [(0, 2), (0, 3)]
