"""Slice-8 and Concat-1 against the OpenVINO runtime (``tests/openvino_oracle.py``).

For every drawn case datamove and OpenVINO must give

* the same verdict: OpenVINO rejects where its shape inference (building the node) or its
  reference ``Node.evaluate`` rejects, and then both ``dm.slice`` and ``dm.infer_slice`` raise a
  ``ValidationError`` with the same message;
* the same output shape (OpenVINO's inferred shape, ``dm.infer_*`` and the executed array);
* the same values (exact) and element type, the input left unchanged.

OpenVINO kills its own process on some Slice inputs (the CPU plugin divides by zero on a step of
``INT32_MIN`` or below: SIGFPE; docs/semantics.md, divergence S-3), so everything that runs a
kernel runs in the oracle's worker process; cases go there in batches (``evaluate_all``, and
``run_cpu_all``: one compiled model per batch), so that thousands run in seconds. The CPU plugin
is compared, with the parameters as constants (how converted models usually hold them) and as
run-time inputs (computed from ``ShapeOf`` in real models), on the cases the reference accepts,
except its known bugs (``openvino_oracle.known_bug``), each skipped with its reason and pinned
with a witness below. Interval shapes: datamove's inference is at least as tight as OpenVINO's,
or OpenVINO is shown unsound by a witness (its own static inference on a shape inside). A
failing case prints a one-line repro (Hypothesis ``note``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from hypothesis import event, given, note
from hypothesis import strategies as st

import datamove as dm
import openvino_oracle as ov
from strategies import (
    DATA_DTYPES,
    INT64_MAX,
    INT64_MIN,
    available_memory,
    concrete_shapes,
    fixed_settings,
    index_container,
    index_values,
    interval_dims,
    iota,
    shape_text,
    static_shapes,
    stride_values,
    witness_sizes,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

pytest.importorskip("openvino")

pytestmark = pytest.mark.openvino

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

BATCH = 25  # cases per call to the oracle's worker
SLICE_EXAMPLES = 160  # x BATCH cases against the reference
CONCAT_EXAMPLES = 80
CPU_EXAMPLES = 20  # x CPU_BATCH cases per compiled model
CPU_BATCH = 60
INTERVAL_EXAMPLES = 1200
UNKNOWN_EXAMPLES = 400
CONCAT_INTERVAL_EXAMPLES = 600

Interval = tuple[int, int | None]
Answer = list[np.ndarray] | Exception  # what evaluate_all and run_cpu_all give for one node


# -- helpers ---------------------------------------------------------------------------------------


def outcome(call: Callable[[], Any]) -> tuple[Any, dm.ValidationError | None]:
    """(result, None) or (None, the ValidationError). Anything else propagates: a crash."""
    try:
        return call(), None
    except dm.ValidationError as exc:
        return None, exc


def fmt(value: Any) -> str:
    """A value as it would be typed in a repro."""
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype=np.{value.dtype})"
    return repr(value)


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ",".join(map(str, shape)) + "]"


def as_index_array(value: Any) -> np.ndarray:
    """A parameter as OpenVINO gets it: an array keeps its element type, a list is i64."""
    if isinstance(value, np.ndarray):
        return value
    return np.array(list(value), dtype=np.int64).reshape(len(value))


def same_values(got: Any, want: np.ndarray, dtype: Any) -> None:
    assert isinstance(got, np.ndarray)
    assert got.dtype == dtype
    assert got.shape == want.shape, f"{got.shape} != OpenVINO's {want.shape}"
    if got.size:
        np.testing.assert_array_equal(got, want.astype(dtype), strict=True)


# -- Slice-8: static shapes, values and verdicts ---------------------------------------------------


@dataclass(frozen=True)
class SliceCase:
    data: np.ndarray
    start: Any
    stop: Any
    step: Any
    axes: Any = None

    def params(self) -> tuple[Any, ...]:
        return (self.start, self.stop, self.step, self.axes)

    def ov_params(self) -> tuple[np.ndarray, ...]:
        given = self.params() if self.axes is not None else self.params()[:3]
        return tuple(as_index_array(p) for p in given)

    def node(self, *, runtime: bool = False) -> tuple[ov.Inferred, tuple[np.ndarray, ...]]:
        """OpenVINO's node, and the values of its run-time inputs: the parameters as constants,
        or (``runtime``) as Parameters of their element types."""
        params = self.ov_params()
        if not runtime:
            return ov.slice(self.data.shape, *params, dtype=self.data.dtype), ()
        inputs = [ov.Param((len(p),), str(p.dtype)) for p in params]
        return ov.slice(self.data.shape, *inputs, dtype=self.data.dtype), params

    def __repr__(self) -> str:
        args = ", ".join(fmt(p) for p in self.params()[: 4 if self.axes is not None else 3])
        return f"dm.slice(iota({self.data.shape}, np.{self.data.dtype}), {args})"


# Values the CPU plugin reads right at run time (it truncates to 32 bits; INT32_MIN kills it).
INT32_VALUES = st.one_of(
    st.integers(-9, 9), st.sampled_from([-100, 100, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1])
)
INT32_STEPS = st.one_of(
    st.sampled_from([1, 1, -1, -1, 2, -2, 3, -3, 0]),
    st.sampled_from([100, -100, INT32_MAX, INT32_MIN + 1]),
)
# The strategies slice_cases draws from, made once: made in each draw, each was a new object
# whose properties Hypothesis worked out again.
_RANKS = static_shapes(min_rank=1, max_dim=6)
_ANY_RANK = st.one_of(*[_RANKS] * 12, static_shapes(0, 0))
_VALUES, _STEPS = index_values(), stride_values()
_NONZERO_STEPS, _INT32_NONZERO_STEPS = _STEPS.filter(bool), INT32_STEPS.filter(bool)


@st.composite
def slice_cases(draw: st.DrawFn, *, cpu: bool = False) -> SliceCase:
    """Mostly valid slices; now and then a scalar, too many values, mismatched lengths, a step
    of 0, an axis out of range or twice. ``cpu``: valid slices of at least one axis, with values
    the CPU plugin reads right at run time (within int32, steps above INT32_MIN) 3 times in 4.
    """
    broken = not cpu
    shape = draw(_ANY_RANK if broken else _RANKS)
    rank = len(shape)
    n = draw(
        st.one_of(st.integers(0, rank), st.integers(0, rank), st.integers(0, rank + 1))
        if broken
        else st.integers(1, rank)
    )
    values, steps, nonzero = _VALUES, _STEPS, _NONZERO_STEPS
    if cpu and draw(st.integers(0, 3)):
        values, steps, nonzero = INT32_VALUES, INT32_STEPS, _INT32_NONZERO_STEPS
    start = draw(st.lists(values, min_size=n, max_size=n))
    stop = draw(st.lists(values, min_size=n, max_size=n))
    step = draw(st.lists(steps if broken else nonzero, min_size=n, max_size=n))
    axes: list[int] | None = None
    if draw(st.integers(0, 2)):
        pool = draw(st.permutations(range(rank)))[:n] if n <= rank else list(range(n))
        axes = [a - rank if draw(st.booleans()) else a for a in pool]
        breakage = draw(st.integers(0, 15)) if broken else -1
        if breakage == 0 and axes:  # an axis twice
            axes[draw(st.integers(0, len(axes) - 1))] = axes[0] - rank if axes[0] >= 0 else 0
        elif breakage == 1 and axes:  # out of range
            axes[draw(st.integers(0, len(axes) - 1))] = draw(st.sampled_from([rank, -rank - 1]))
        elif breakage == 2:  # another length
            axes = axes[:-1] if axes else [0]
    if broken and draw(st.integers(0, 30)) == 0:
        stop = [*stop, 0] if draw(st.booleans()) else stop[:-1]
    return SliceCase(
        iota(shape, draw(st.sampled_from(DATA_DTYPES))),
        draw(index_container(start)),
        draw(index_container(stop)),
        draw(index_container(step)),
        None if axes is None else draw(index_container(axes)),
    )


def check_slice(case: SliceCase, inferred: ov.Inferred, answer: Answer) -> None:
    """datamove's execution and inference against OpenVINO's verdict, shape and values."""
    assert not isinstance(answer, ov.OpenVINOCrashError), f"{answer} {case!r}"
    assert not isinstance(answer, ov.KnownBugError), f"{answer} {case!r}"
    data = case.data
    before = data.copy()
    result, error = outcome(lambda: dm.slice(data, *case.params()))
    shape, infer_error = outcome(lambda: dm.infer_slice(data.shape, *case.params()))
    np.testing.assert_array_equal(data, before, strict=True)
    if isinstance(answer, Exception):
        event("OpenVINO rejects")
        assert error is not None, f"OpenVINO rejects ({answer}), dm.slice returned"
        assert infer_error is not None, f"OpenVINO rejects ({answer}), dm.infer_slice not"
        assert str(error) == str(infer_error), "execution and inference word it alike"
        return
    event("OpenVINO accepts")
    (want,) = answer
    assert error is None, f"OpenVINO accepts ({inferred.shapes}), dm.slice raised {error}"
    assert infer_error is None, f"OpenVINO accepts ({inferred.shapes}), dm.infer_slice raised"
    assert (str(shape),) == inferred.shapes
    assert (shape_str(result.shape),) == inferred.shapes
    same_values(result, want, data.dtype)


@fixed_settings(SLICE_EXAMPLES)
@given(batch=st.lists(slice_cases(), min_size=BATCH, max_size=BATCH))
def test_slice_matches_openvino_reference(batch: list[SliceCase]) -> None:
    nodes = [case.node()[0] for case in batch]
    answers = ov.evaluate_all([(n, c.data, ()) for n, c in zip(nodes, batch, strict=True)])
    for case, inferred, answer in zip(batch, nodes, answers, strict=True):
        note(repr(case))
        check_slice(case, inferred, answer)


@pytest.mark.parametrize("runtime", [False, True], ids=["constant parameters", "run-time inputs"])
@fixed_settings(CPU_EXAMPLES)
@given(batch=st.lists(slice_cases(cpu=True), min_size=CPU_BATCH, max_size=CPU_BATCH))
def test_slice_cpu_plugin_agrees(runtime: bool, batch: list[SliceCase]) -> None:
    calls, cases = [], []
    for case in batch:
        inferred, values = case.node(runtime=runtime)
        reason = ov.known_bug(inferred, "cpu", values)
        if reason is not None:
            event(f"skipped: {reason.split(';')[0]}")
        elif outcome(lambda case=case: dm.slice(case.data, *case.params()))[1] is None:
            calls.append((inferred, case.data, values))  # compared where the reference accepts
            cases.append(case)
    event(f"{len(cases) // 10 * 10}+ of {CPU_BATCH} cases compared")
    for case, answer in zip(cases, ov.run_cpu_all(calls), strict=True):
        note(f"{case!r}, {'run-time' if runtime else 'constant'} parameters")
        assert not isinstance(answer, Exception), f"the CPU plugin: {answer}"
        (want,) = answer
        same_values(dm.slice(case.data, *case.params()), want, case.data.dtype)


# -- Slice-8: intervals ----------------------------------------------------------------------------

NEAR_INT64_MAX = 2**50  # OpenVINO's bounds computed at INT64_MAX on an unbounded dim (#19)


def inside(dim: Any, lo: int, hi: int | None) -> bool:
    return dim.min >= lo and (hi is None or (dim.max is not None and dim.max <= hi))


def tight_or_witness(
    mine: Any, theirs: ov.Inferred, witness: Callable[[int, int, int | None], str | None]
) -> None:
    """Every dimension datamove infers lies inside OpenVINO's, or OpenVINO is unsound there:
    ``witness(axis, lo, hi)`` finds a concrete input on which OpenVINO's own static inference
    gives a size outside ``lo..hi``."""
    (text,) = theirs.shapes
    dims = theirs.intervals()
    if dims is None:
        return
    assert mine.rank == len(dims), f"{mine} vs OpenVINO {text}"
    for axis, (d, (lo, hi)) in enumerate(zip(mine, dims, strict=True)):
        if inside(d, lo, hi):
            continue
        if d.max is None and hi is not None and hi >= NEAR_INT64_MAX and d.min == lo:
            event("OpenVINO bound near INT64_MAX, datamove unbounded (#19)")
            continue
        found = witness(axis, lo, hi)
        assert found is not None, f"{mine} is not inside OpenVINO's {text} (axis {axis})"
        event("OpenVINO unsound (witness found)")
        note(f"OpenVINO unsound: {text}, but its own inference on {found} disagrees")
    if str(mine) != text:
        event("datamove tighter")


def outside(node: ov.Inferred, axis: int, lo: int, hi: int | None) -> int | None:
    """The size OpenVINO's static inference gives on ``axis``, where it is outside ``lo..hi``."""
    if not node.ok:
        return None
    dims = node.intervals()
    assert dims is not None
    size = dims[axis][0]
    return size if size < lo or (hi is not None and size > hi) else None


@st.composite
def slice_interval_cases(draw: st.DrawFn) -> dict[str, Any]:
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(interval_dims(), min_size=rank, max_size=rank)))
    n = draw(st.integers(0, rank))
    values = index_values(span=13)
    axes = None
    if draw(st.booleans()):
        axes = [a - rank if draw(st.booleans()) else a for a in draw(st.permutations(range(rank)))]
        axes = axes[:n]
    return {
        "shape": shape,
        "start": draw(st.lists(values, min_size=n, max_size=n)),
        "stop": draw(st.lists(values, min_size=n, max_size=n)),
        "step": draw(st.lists(stride_values().filter(bool), min_size=n, max_size=n)),
        "axes": axes,
    }


def ov_vector(value: Any) -> Any:
    """A parameter for the oracle: a list as i64, or a Param (datamove's Unknown) as is."""
    return value if isinstance(value, ov.Param) else as_index_array(value)


def slice_node(shape: str, params: Sequence[Any]) -> ov.Inferred:
    return ov.slice(shape, *[ov_vector(p) for p in params if p is not None])


@fixed_settings(INTERVAL_EXAMPLES)
@given(case=slice_interval_cases())
def test_slice_intervals_at_least_as_tight_as_openvino(case: dict[str, Any]) -> None:
    text = shape_text(case["shape"])
    params = [case["start"], case["stop"], case["step"], case["axes"]]
    note(f"dm.infer_slice({text!r}, {', '.join(map(repr, params))})")
    mine, error = outcome(lambda: dm.infer_slice(text, *params))
    theirs = slice_node(text, params)
    if not theirs.ok:
        event("OpenVINO rejects")
        assert error is not None, f"OpenVINO rejects ({theirs.error}), datamove infers {mine}"
        return
    assert error is None, f"OpenVINO infers {theirs.shapes}, datamove raised {error}"

    def witness(axis: int, lo: int, hi: int | None) -> str | None:
        for s in witness_sizes(case["shape"], [*case["start"], *case["stop"]]):
            size = outside(slice_node(shape_str(s), params), axis, lo, hi)
            if size is not None:
                return f"{shape_str(s)} (size {size} on axis {axis})"
        return None

    tight_or_witness(mine, theirs, witness)


@st.composite
def slice_unknown_cases(draw: st.DrawFn) -> dict[str, Any]:
    """Interval shapes with some of start, stop, step and axes known only at run time, and
    concrete runs: shapes inside the intervals with values for the unknown parameters."""
    case = draw(slice_interval_cases())
    n = len(case["start"])
    rank = len(case["shape"])
    names = ["start", "stop", "step", "axes"]
    unknown = {name for name in names if draw(st.integers(0, 2)) == 0}
    unknown_length = {name for name in unknown if draw(st.integers(0, 3)) == 0}
    if case["axes"] is None:
        unknown.discard("axes")
    runs = []
    for s in concrete_shapes(draw, case["shape"]):
        run = dict(case)
        for name in unknown:
            if name == "axes":
                perm = draw(st.permutations(range(rank)))[:n]
                run[name] = [a - rank if draw(st.booleans()) else a for a in perm]
            elif name == "step":
                run[name] = draw(st.lists(stride_values().filter(bool), min_size=n, max_size=n))
            else:
                run[name] = draw(st.lists(index_values(span=13), min_size=n, max_size=n))
        runs.append((s, [run[k] for k in names]))
    dm_params = [
        (dm.UNKNOWN if name in unknown_length else dm.Unknown(n)) if name in unknown else case[name]
        for name in names
    ]
    ov_params = [
        (ov.Param("[?]" if name in unknown_length else (n,))) if name in unknown else case[name]
        for name in names
    ]
    return {**case, "dm": dm_params, "ov": ov_params, "runs": runs}


@fixed_settings(UNKNOWN_EXAMPLES)
@given(case=slice_unknown_cases())
def test_slice_unknown_parameters_at_least_as_tight_as_openvino(case: dict[str, Any]) -> None:
    # Soundness (every concrete run inside) is test_slice_concat.py::test_infer_slice_is_sound.
    text = shape_text(case["shape"])
    params = case["dm"]
    note(f"dm.infer_slice({text!r}, {', '.join(map(repr, params))})")
    mine, error = outcome(lambda: dm.infer_slice(text, *params))
    theirs = slice_node(text, case["ov"])
    if not theirs.ok:
        event("OpenVINO rejects")
        assert error is not None, f"OpenVINO rejects ({theirs.error}), datamove infers {mine}"
        return
    if error is not None:
        event("OpenVINO accepts, datamove rejects")
        return

    def witness(axis: int, lo: int, hi: int | None) -> str | None:
        # OpenVINO's own inference with each run's values as constants, on the run's shape and
        # on the shapes near where those values change the length
        for s, values in case["runs"]:
            hints = [v for vector in values[:2] for v in vector]
            for shape in [s, *witness_sizes(case["shape"], hints)]:
                size = outside(slice_node(shape_str(shape), values), axis, lo, hi)
                if size is not None:
                    return f"{shape_str(shape)} with {values} (size {size} on axis {axis})"
        return None

    tight_or_witness(mine, theirs, witness)


# -- Concat-1 --------------------------------------------------------------------------------------


@st.composite
def concat_cases(draw: st.DrawFn) -> tuple[list[np.ndarray], int]:
    """One to four inputs of one rank and element type, equal off the axis; now and then a
    scalar, another rank, another size off the axis, another element type, or a bad axis."""
    shape = list(draw(st.one_of(*[static_shapes(min_rank=1, max_rank=4)] * 15, st.just(()))))
    rank = len(shape)
    axis = draw(st.integers(-rank, max(rank - 1, 0)))
    if draw(st.integers(0, 20)) == 0:
        axis = draw(st.sampled_from([rank, -rank - 1]))
    dtype = draw(st.sampled_from(DATA_DTYPES))
    arrays = []
    for _ in range(draw(st.integers(1, 4))):
        s = list(shape)
        if rank and -rank <= axis < rank:
            s[axis] = draw(st.integers(0, 5))
        broken = draw(st.integers(0, 40))
        t = dtype
        if broken == 0 and s:
            s[draw(st.integers(0, rank - 1))] += 1
        elif broken == 1:
            s = [*s, 1]
        elif broken == 2:
            t = draw(st.sampled_from(DATA_DTYPES))
        arrays.append(iota(s, t) + np.array(len(arrays) * 3).astype(t))
    return arrays, axis


def concat_repr(arrays: list[np.ndarray], axis: int) -> str:
    parts = ", ".join(f"iota({a.shape}, np.{a.dtype})" for a in arrays)
    return f"dm.concat([{parts}], {axis})"


def concat_call(arrays: list[np.ndarray], axis: int) -> ov.Call:
    node = ov.concat([a.shape for a in arrays], axis, dtypes=[a.dtype for a in arrays])
    return node, arrays[0], tuple(arrays[1:])


def check_concat(arrays: list[np.ndarray], axis: int, node: ov.Inferred, answer: Answer) -> None:
    assert not isinstance(answer, ov.OpenVINOCrashError | ov.KnownBugError), str(answer)
    result, error = outcome(lambda: dm.concat(arrays, axis))
    shape, infer_error = outcome(lambda: dm.infer_concat([a.shape for a in arrays], axis))
    if isinstance(answer, Exception):
        event("OpenVINO rejects")
        assert error is not None, f"OpenVINO rejects ({answer}), dm.concat returned"
        # mixed element types: a property of the arrays, not of their shapes
        if len({a.dtype for a in arrays}) == 1:
            assert infer_error is not None, f"OpenVINO rejects ({answer}), inference not"
        return
    event("OpenVINO accepts")
    (want,) = answer
    assert error is None, f"OpenVINO accepts ({node.shapes}), dm.concat raised {error}"
    assert infer_error is None
    assert (str(shape),) == node.shapes
    assert (shape_str(result.shape),) == node.shapes
    same_values(result, want, arrays[0].dtype)


@fixed_settings(CONCAT_EXAMPLES)
@given(batch=st.lists(concat_cases(), min_size=BATCH, max_size=BATCH))
def test_concat_matches_openvino_reference(batch: list[tuple[list[np.ndarray], int]]) -> None:
    calls = [concat_call(*case) for case in batch]
    for (arrays, axis), call, answer in zip(batch, calls, ov.evaluate_all(calls), strict=True):
        note(concat_repr(arrays, axis))
        check_concat(arrays, axis, call[0], answer)


@fixed_settings(CPU_EXAMPLES)
@given(batch=st.lists(concat_cases(), min_size=CPU_BATCH, max_size=CPU_BATCH))
def test_concat_cpu_plugin_agrees(batch: list[tuple[list[np.ndarray], int]]) -> None:
    cases = [c for c in batch if outcome(lambda c=c: dm.concat(*c))[1] is None]
    answers = ov.run_cpu_all([concat_call(*case) for case in cases])
    for (arrays, axis), answer in zip(cases, answers, strict=True):
        note(concat_repr(arrays, axis))
        assert not isinstance(answer, Exception), f"the CPU plugin: {answer}"
        (want,) = answer
        same_values(dm.concat(arrays, axis), want, arrays[0].dtype)


@st.composite
def concat_interval_cases(draw: st.DrawFn) -> tuple[list[str], int]:
    rank = draw(st.integers(1, 3))
    k = draw(st.integers(1, 4))
    shapes = []
    for _ in range(k):
        if draw(st.integers(0, 12)) == 0:
            shapes.append("[...]")
        else:
            dims = draw(st.lists(interval_dims(max_dim=6), min_size=rank, max_size=rank))
            shapes.append(shape_text(dims))
    return shapes, draw(st.integers(-rank - 1, rank))


@fixed_settings(CONCAT_INTERVAL_EXAMPLES)
@given(case=concat_interval_cases())
def test_concat_intervals_match_openvino(case: tuple[list[str], int]) -> None:
    shapes, axis = case
    note(f"dm.infer_concat({shapes!r}, {axis})")
    mine, error = outcome(lambda: dm.infer_concat(shapes, axis))
    theirs = ov.concat(shapes, axis)
    if not theirs.ok:
        event("OpenVINO rejects")
        assert error is not None, f"OpenVINO rejects ({theirs.error}), datamove infers {mine}"
        return
    assert error is None, f"OpenVINO infers {theirs.shapes}, datamove raised {error}"
    assert (str(mine),) == theirs.shapes


# -- OpenVINO's bugs, each with its witness; datamove's answer is pinned in test_slice_concat.py --


def test_openvino_slice_interval_inference_is_unsound() -> None:
    # docs/semantics.md S-6: OpenVINO declares [0,4] for [?,4] sliced [-4:-4:-1] on axis 0, yet
    # its own inference and evaluate on sizes 1 to 3 give one row (the start clamps to 0).
    params = (as_index_array([-4]), as_index_array([-4]), as_index_array([-1]))
    assert ov.slice("[?,4]", *params).shapes == ("[0,4]",)
    static = [ov.slice(f"[{d},4]", *params).shapes for d in (1, 2, 3, 4, 5)]
    assert static == [("[1,4]",), ("[1,4]",), ("[1,4]",), ("[0,4]",), ("[0,4]",)]
    (ran,) = ov.slice([2, 4], *params).evaluate(iota((2, 4)))
    assert ran.tolist() == [[0.0, 1.0, 2.0, 3.0]]  # row 0 of two: -4 + 2 clamps to 0
    assert str(dm.infer_slice("[?,4]", [-4], [-4], [-1])) == "[..1,4]"


def test_openvino_cpu_plugin_crashes_on_a_step_of_int32_min_or_below() -> None:
    # docs/semantics.md S-3: a constant step of INT32_MIN or below (INT64_MIN included) kills
    # the process with SIGFPE where the output has elements; the reference evaluate is right.
    data = np.arange(6, dtype=np.float32)
    for step in (INT64_MIN, INT32_MIN, -(2**62)):
        node = ov.slice([6], *(as_index_array(v) for v in ([4], [-10], [step])))
        with pytest.raises(ov.KnownBugError, match="SIGFPE"):
            ov.run_cpu(node, data)
        with pytest.raises(
            ov.OpenVINOCrashError, match=r"^openvino crashed on this input \(SIGFPE"
        ):
            ov._call("run_cpu", node.recipe, data, ())  # past the refusal, on purpose
        assert [a.tolist() for a in node.evaluate(data)] == [[4.0]]
        assert dm.slice(np.arange(6), [4], [-10], [step]).tolist() == [4]
    i32 = ov.slice([6], *(np.array(v, np.int32) for v in ([4], [-10], [INT32_MIN])))
    with pytest.raises(ov.OpenVINOCrashError, match="SIGFPE"):  # an i32 model alike
        ov._call("run_cpu", i32.recipe, data, ())
    empty = ov.slice([6], *(as_index_array(v) for v in ([0], [5], [INT64_MIN])))
    assert ov._call("run_cpu", empty.recipe, data, ())[0].shape == (0,)  # nothing to take: no crash


def test_openvino_cpu_plugin_disagrees_with_its_reference() -> None:
    # docs/semantics.md S-3 and S-4, each against the reference evaluate, which datamove follows.
    x = iota((5, 4), np.float32)
    # S-4: run-time values truncated to 32 bits (a stop of 2**32 + 3 reads as 3)
    values = (as_index_array([1]), as_index_array([2**32 + 3]), as_index_array([1]))
    runtime = ov.slice([5, 4], *[ov.Param((1,))] * 3)
    assert [a.tolist() for a in runtime.evaluate(x, *values)] == [x[1:].tolist()]
    with pytest.raises(ov.KnownBugError, match="truncates"):
        ov.run_cpu(runtime, x, *values)
    (truncated,) = ov._call("run_cpu", runtime.recipe, x, values)
    assert truncated.tolist() == x[1:3].tolist()
    assert dm.slice(x, [1], [2**32 + 3], [1]).tolist() == x[1:].tolist()
    # S-3: a constant step of -INT64_MAX: one row of uninitialised memory, whose values hang on
    # the worker's history (skipped where they come out right)
    garbage = ov.slice([5, 4], *(as_index_array(v) for v in ([INT64_MAX - 1], [-8], [-INT64_MAX])))
    assert [a.tolist() for a in garbage.evaluate(x)] == [[x[4].tolist()]]
    assert dm.slice(x, [INT64_MAX - 1], [-8], [-INT64_MAX]).tolist() == [x[4].tolist()]
    ((cpu,),) = [ov._call("run_cpu", garbage.recipe, x, ())]  # past the refusal, on purpose
    assert cpu.shape == (1, 4)
    why = "it returns a row of memory it never wrote"
    ov.skip_where_right(cpu.tolist() == [x[4].tolist()], "S-3", why)


def test_openvino_cpu_plugin_run_time_verdicts_differ_from_its_reference() -> None:
    # docs/semantics.md S-5: with run-time inputs, the CPU plugin fails on empty start/stop/step
    # in a model of their own (the reference returns the data whole); where the output's shape
    # is known to be empty before the run, it accepts a step of 0 and an axis listed twice (the
    # reference rejects both, as datamove does).
    empty = np.zeros(0, np.int64)
    x = iota((2, 3), np.float32)
    nothing = ov.slice([2, 3], *[ov.Param((0,))] * 4)
    assert [a.tolist() for a in nothing.evaluate(x, *[empty] * 4)] == [x.tolist()]
    with pytest.raises(ov.OpenVINOError, match="ptr is Null"):
        ov._call("run_cpu", nothing.recipe, x, (empty,) * 4)
    assert dm.slice(x, [], [], [], []).tolist() == x.tolist()
    cases = [
        (np.zeros((0, 3), np.float32), [[0], [1], [0]]),
        (np.zeros((0, 0), np.float32), [[0, 0], [1, 1], [1, 1], [0, -2]]),
    ]
    for data, params in cases:
        values = tuple(as_index_array(p) for p in params)
        node = ov.slice(data.shape, *[ov.Param((len(p),)) for p in params])
        with pytest.raises(ov.OpenVINOError, match=r"Step must be non-zero|must be unique"):
            node.evaluate(data, *values)
        (cpu,) = ov.run_cpu(node, data, *values)
        assert cpu.shape == data.shape
        with pytest.raises(dm.ValidationError, match=r"step must be non-zero|lists axis 0 twice"):
            dm.slice(data, *params)


# -- an axis of 2**31 elements or more: the CPU plugin's 32-bit offsets --------------------------

_AXIS_PAST_INT32 = r"""
import json, sys
import numpy as np
import openvino as ov
import openvino.opset1 as op1
import openvino.opset8 as op8
import datamove as dm

n, op, begin, end = (int(a) if a.isdigit() else a for a in sys.argv[1:])
x = np.zeros(n, np.uint8)  # zero but for distinct values at both ends (pages mapped lazily)
x[:8], x[-8:] = range(1, 9), range(11, 19)
p = op1.parameter([n], ov.Type.u8)
c = [op1.constant(np.array([v], np.int64)) for v in (begin, end, 1, 0)]
node = op8.slice(p, *c) if op == "Slice" else op1.strided_slice(p, *c[:3], [0], [0])
fn = dm.slice if op == "Slice" else dm.strided_slice
out = ov.Tensor(ov.Type.u8, ov.Shape([end - begin]))
params = [ov.Tensor(k.get_data()) for k in c[: node.get_input_size() - 1]]
node.evaluate([out], [ov.Tensor(x, shared_memory=True), *params])
print(json.dumps({"datamove": fn(x, [begin], [end], [1]).tolist(), "evaluate": out.data.tolist()}))
sys.stdout.flush()
compiled = ov.Core().compile_model(ov.Model([node], [p]), "CPU")
request = compiled.create_infer_request()
request.infer([x], share_inputs=True)
print(json.dumps({"cpu": request.get_output_tensor(0).data.tolist()}))
"""


def _run_past_int32(n: int, op: str, begin: int, end: int) -> tuple[int, list[dict[str, Any]]]:
    """Run ``op`` [begin:end] on uint8 data of ``n`` elements in a process of its own."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-c", _AXIS_PAST_INT32, str(n), op, str(begin), str(end)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.skipif(available_memory() < 8 * 2**30, reason="needs ~8 GiB available")
def test_cpu_plugin_slices_an_axis_of_2_31_elements_or_more_wrong() -> None:
    # docs/semantics.md S-8: Slice-8 and StridedSlice-1 on an axis of 2**31 elements (one past
    # INT32_MAX) give the wrong elements on OpenVINO's CPU plugin; 3 more and it segfaults.
    # Only the axis's size counts (2**30 + 2 by 2 runs right). Shape inference and evaluate are
    # right, and so is datamove. Each run is a process of its own: a crash is a result.
    right = []  # whether the CPU plugin gave the right elements; which it reads instead (memory
    # elsewhere) and whether that segfaults hang on the process's memory, not on the version
    for op in ("Slice", "StridedSlice"):
        rc, (ref, *cpu) = _run_past_int32(2**31, op, 0, 5)
        assert ref == {"datamove": [1, 2, 3, 4, 5], "evaluate": [1, 2, 3, 4, 5]}, op
        right.append(cpu == [{"cpu": [1, 2, 3, 4, 5]}])
    rc, (ref, *cpu) = _run_past_int32(2**31 + 3, "Slice", 2**31 - 2, 2**31 + 3)
    assert ref == {"datamove": [14, 15, 16, 17, 18], "evaluate": [14, 15, 16, 17, 18]}
    right.append(cpu == [{"cpu": [14, 15, 16, 17, 18]}])  # this machine: SIGSEGV (rc -11)
    rc, results = _run_past_int32(2**31 - 1, "Slice", 0, 5)  # INT32_MAX elements: right
    assert (rc, results[1]) == (0, {"cpu": [1, 2, 3, 4, 5]})
    ov.skip_where_right(any(right), "S-8", "which elements it reads past 2**31 hangs on memory")
