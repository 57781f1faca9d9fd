"""The OpenVINO emitters run by OpenVINO itself (issue 20): ``to_slice`` as a chain of Slice-8,
Unsqueeze and Squeeze nodes, ``to_strided_slice`` as one StridedSlice-1 node, saved as IR and run
by the CPU plugin and by the reference implementation (``Model.evaluate``), in the oracle's
worker process (a crash there fails the test, not the run).
"""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import datamove as dm
import openvino_oracle
from datamove import ir
from test_dialects import emitted_runs_as_sliced, numpy_indices, same, shapes, slicing_from

ov = pytest.importorskip("openvino", reason="openvino (the test extra) is not installed")
import openvino.opset1 as ops1  # noqa: E402 - after the skip
import openvino.opset8 as ops8  # noqa: E402


def _const(values: list[int]) -> Any:
    if not values:  # opset1.constant refuses an empty array
        return ov.op.Constant(ov.Type.i64, ov.Shape([0]), [])
    return ops1.constant(np.array(values, dtype=np.int64).reshape(-1))


def _model(shape: Any, s: dm.Slicing, given: Any = "shape", only: int | None = None) -> Any:
    """One Parameter ``x`` of ``shape`` (static, or an OpenVINO partial shape); output 0 is
    ``to_slice``'s chain, output 1 ``to_strided_slice``, both emitted for ``given`` (by default
    ``shape``; ``None``: for no shape); ``only=0`` or ``1``: that output alone."""
    given = shape if given == "shape" else given
    x = ops1.parameter(
        ov.PartialShape(str(shape)) if isinstance(shape, dm.PartialShape) else list(shape),
        np.int64,
        name="x",
    )
    results = []
    if only != 1:
        node: Any = x
        for name, p in s.to_slice(given):
            if name == "Slice":
                node = ops8.slice(
                    node,
                    _const(p["start"]),
                    _const(p["stop"]),
                    _const(p["step"]),
                    _const(p["axes"]),
                )
            elif name == "Unsqueeze":
                node = ops1.unsqueeze(node, _const(p["axes"]))
            else:
                assert name == "Squeeze"
                node = ops1.squeeze(node, _const(p["axes"]))
        identity = ops1.convert(node, "i64")  # a Result never reads the Parameter directly
        results.append(ops1.result(identity))
    if only != 0:
        p = s.to_strided_slice(given)
        strided = ops1.strided_slice(
            x,
            _const(p["begin"]),
            _const(p["end"]),
            _const(p["stride"]),
            begin_mask=p["begin_mask"],
            end_mask=p["end_mask"],
            new_axis_mask=p["new_axis_mask"],
            shrink_axis_mask=p["shrink_axis_mask"],
            ellipsis_mask=p["ellipsis_mask"],
        )
        results.append(ops1.result(ops1.convert(strided, "i64")))
    return ov.Model(results, [x], "emitted")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(index=numpy_indices(), shape=shapes, source=st.sampled_from(["numpy", "strided_slice"]))
def test_openvino_runs_what_to_slice_and_to_strided_slice_write(
    tmp_path: Path, index: tuple[Any, ...], shape: tuple[int, ...], source: str
) -> None:
    s = slicing_from(index, source)
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    try:
        want = s(x)
    except dm.ValidationError:
        return
    xml = tmp_path / "emitted.xml"
    ov.save_model(_model(shape, s), str(xml))
    cpu = [array for _, array in openvino_oracle.run_ir(xml, {"x": x})]
    reference = openvino_oracle.evaluate_ir(xml, {"x": x})
    if not shape:  # evaluate's StridedSlice on scalar data: garbage (docs/semantics.md, 10)
        reference = reference[:1]
    for got in (*cpu, *reference):
        assert same(got, want), (s, shape, s.to_slice(shape), s.to_strided_slice(shape))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(index=numpy_indices(), shape=shapes, source=st.sampled_from(["numpy", "strided_slice"]))
def test_openvino_runs_what_the_emitters_write_for_no_shape_on_every_rank(
    tmp_path: Path, index: tuple[Any, ...], shape: tuple[int, ...], source: str
) -> None:
    """``to_slice`` and ``to_strided_slice`` emitted for no shape, run by OpenVINO on
    ranks 0 to 6 (inputs of known rank, sizes unknown): the slicing's result where it runs,
    refused where it has too few axes (the
    Slice-8 node lists the axes that fix the rank: ``x[2:, :, ..., :, 1:]`` is
    ``axes=[0, 1, -2, -1]``, refused on ranks 2 and 3 as two axes meet)."""
    s = slicing_from(index, source)
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)

    def emit(given: Any) -> Any:
        s.to_slice(given), s.to_strided_slice(given)  # NotExpressible: nothing to run
        return given

    def run_one(y: np.ndarray, given: Any, only: int) -> np.ndarray:
        # The CPU plugin takes no Parameter of dynamic rank: one of y's rank, sizes unknown.
        # OpenVINO refuses what does not fit that rank when the model is built.
        xml = tmp_path / f"emitted{only}.xml"
        ov.save_model(_model(dm.PartialShape.dynamic(y.ndim), s, given, only), str(xml))
        ((_, cpu),) = openvino_oracle.run_ir(xml, {"x": y})
        (reference,) = openvino_oracle.evaluate_ir(xml, {"x": y})
        if only == 1 and (not y.shape or (0 in y.shape and not cpu.size)):
            # evaluate's StridedSlice on scalar data, or reversing a zero-length axis (x[::-1]
            # on [0]): an uninitialised element (divergence 10)
            reference = cpu
        if not reference.size:  # the CPU plugin's shape of an empty result (24)
            cpu = cpu.reshape(reference.shape)
        assert same(cpu, reference), (s, y.shape, given, only)
        return reference

    def run(y: np.ndarray, given: Any) -> np.ndarray:
        """The Slice-8 chain and the StridedSlice, each alone: both run alike or both refuse."""
        got: list[Any] = []
        for only in (0, 1):
            try:
                got.append(run_one(y, given, only))
            except (RuntimeError, openvino_oracle.OpenVINOError) as exc:
                got.append(exc)
        refused = [isinstance(g, Exception) for g in got]
        assert refused[0] == refused[1], (s, y.shape, given, got)
        if refused[0]:
            raise got[0]
        assert same(got[0], got[1]), (s, y.shape, given)
        return got[0]

    emitted_runs_as_sliced(s, x, emit, run)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    index=numpy_indices(),
    dims=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=3),
    source=st.sampled_from(["numpy", "strided_slice"]),
)
def test_one_model_of_interval_shapes_runs_right_at_every_size(
    tmp_path: Path, index: tuple[Any, ...], dims: list[tuple[int, int]], source: str
) -> None:
    """Parameters emitted for an interval shape, compiled once with a dynamic input, give the
    slicing's result at every size the interval allows, on the CPU plugin and in evaluate."""
    s = slicing_from(index, source)
    shape = dm.PartialShape([dm.Dimension(min(a, b), max(a, b)) for a, b in dims])
    try:
        model = _model(shape, s)
    except dm.ValidationError:  # NotExpressible (its witness is tested elsewhere), or no rank
        return
    xml = tmp_path / "emitted.xml"
    ov.save_model(model, str(xml))
    for size in itertools.product(*(range(d.min, d.max + 1) for d in shape.dims)):
        x = np.arange(int(np.prod(size)), dtype=np.int64).reshape(size)
        try:
            want = s(x)
        except dm.ValidationError:
            continue
        cpu = [array for _, array in openvino_oracle.run_ir(xml, {"x": x})]
        reference = openvino_oracle.evaluate_ir(xml, {"x": x})
        if want.size == 0:
            # The CPU plugin's shape of an empty result (divergence 24); evaluate's StridedSlice
            # reversing a zero-length axis (divergence 10): compared by size, and not at all.
            assert all(got.size == 0 for got in cpu), (s, shape, size)
            cpu = [got.reshape(want.shape) for got in cpu]
            reference = reference[:1]
        for got in (*cpu, *reference):
            assert same(got, want), (s, shape, size)


def test_cpu_plugin_runs_a_new_axis_beside_a_shrink_wrong_unless_every_axis_is_addressed() -> None:
    """Divergence 23: ``x[1, None]`` on ``[3, 2]`` as OpenVINO writes it (begin [1, 0], shrink
    [1, 0], new axis [0, 1], the last input axis left to the implicit rest) reads the wrong
    elements, past its input, on the CPU plugin; ``evaluate`` and datamove are right, and so is
    the CPU plugin once an ellipsis addresses the rest, which ``to_strided_slice`` writes."""
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    bare = {
        "begin": [1, 0],
        "end": [2, 0],
        "stride": [1, 1],
        "shrink_axis_mask": [1, 0],
        "new_axis_mask": [0, 1],
        "begin_mask": [0, 0],
        "end_mask": [0, 0],
        "ellipsis_mask": [0, 0],
    }
    want = x[1, None]
    assert same(dm.strided_slice(x, **bare), want)
    node = openvino_oracle.strided_slice((3, 2), **bare)
    assert same(node.evaluate(x)[0], want)
    assert not same(openvino_oracle.run_cpu(node, x)[0], want)  # the bug; fixed: update the docs
    emitted = dm.Slicing.from_numpy("x[1, None]").to_strided_slice((3, 2))
    assert emitted["ellipsis_mask"] == [0, 0, 1]
    node = openvino_oracle.strided_slice((3, 2), **emitted)
    assert same(openvino_oracle.run_cpu(node, x)[0], want)


def test_cpu_plugin_crashes_on_an_ellipsis_with_too_many_axes_of_dynamic_sizes(
    tmp_path: Path,
) -> None:
    """Divergence 6: ``to_strided_slice()`` of ``x[0, None, 0]`` (no shape: an ellipsis at the
    end) on data of rank 1 and a dynamic size addresses two axes of one. ``evaluate`` refuses
    it; the CPU plugin crashes (SIGSEGV); datamove's ``check`` reports the layer."""
    s = dm.Slicing.from_numpy("x[0, None, 0]")
    xml = tmp_path / "m.xml"
    ov.save_model(_model(dm.PartialShape.dynamic(1), s, None, only=1), str(xml))
    x = np.arange(3, dtype=np.int64)
    with pytest.raises(openvino_oracle.OpenVINOError, match="ellipsis"):
        openvino_oracle.evaluate_ir(xml, {"x": x})
    with pytest.raises(openvino_oracle.OpenVINOCrashError):  # fixed: update the docs
        openvino_oracle.run_ir(xml, {"x": x})
    (problem,) = ir.read_model(xml).check().problems
    assert "addresses 2 axes around the ellipsis, but data has rank 1" in problem.message


def test_openvino_squeezes_an_empty_axis_of_a_dynamic_shape(tmp_path: Path) -> None:
    """``to_slice``'s chain for an index (Slice of one element, then Squeeze) in a model of
    dynamic input shape: OpenVINO's Squeeze takes an axis that came out empty, so where the
    index is out of range (NumPy refuses) the chain still runs. ``x[0]`` on ``[?,?]``, input
    ``[0,2]``: ``evaluate`` keeps the axis (``[0,2]``), the CPU plugin drops it (``[0]``);
    ``x[3]`` on ``[?]``, input ``[2]``: ``evaluate`` gives ``[0]``. ONNX runtimes refuse."""
    for text, rank, x, outs in (
        ("x[0]", 2, np.zeros((0, 2), np.int64), {"evaluate": (0, 2), "cpu": (0,)}),
        ("x[3]", 1, np.arange(2, dtype=np.int64), {"evaluate": (0,)}),
    ):
        s = dm.Slicing.from_numpy(text)
        with pytest.raises(dm.ValidationError, match="shrink_axis_mask"):
            s(x)
        with pytest.raises(IndexError):
            x[0 if text == "x[0]" else 3]
        xml = tmp_path / "m.xml"
        ov.save_model(_model(dm.PartialShape.dynamic(rank), s, None, only=0), str(xml))
        (got,) = openvino_oracle.evaluate_ir(xml, {"x": x})
        assert got.shape == outs["evaluate"]  # fixed: refused; update docs/dialects.md
        if "cpu" in outs:
            ((_, got),) = openvino_oracle.run_ir(xml, {"x": x})
            assert got.shape == outs["cpu"]


def test_evaluate_of_an_empty_strided_slice_on_a_scalar_is_not_run() -> None:
    """Divergence 10: StridedSlice with begin, end and stride of length 0 on scalar data gives
    the scalar; OpenVINO's ``evaluate`` returns an uninitialised value there (seen: 0, 3,
    94446106847264 for 7), so only the CPU plugin is compared."""
    x = np.array(7.0, dtype=np.float32)
    empty = dm.Slicing.from_numpy("x[()]").to_strided_slice(())
    assert empty["begin"] == []
    assert same(dm.strided_slice(x, **empty), x)
    node = openvino_oracle.strided_slice((), **empty)
    assert same(openvino_oracle.run_cpu(node, x)[0], x)


def test_cpu_plugin_gives_an_empty_slice_then_unsqueeze_the_wrong_shape() -> None:
    """Divergence 24: in a model of dynamic input shape, ``to_slice``'s chain for ``x[:0, None]``
    (Slice to an empty result, then Unsqueeze) gives ``[0, 1, 0]`` on the CPU plugin for an input
    of ``[3, 4]``, where ``evaluate`` and datamove give ``[0, 1, 4]``. Only the shape of an empty
    result is wrong; StridedSlice's form of the same slicing is right."""
    s = dm.Slicing.from_numpy("x[:0, None]")
    shape = dm.PartialShape.parse("[?,?]")
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert s(x).shape == (0, 1, 4)
    assert [name for name, _ in s.to_slice(shape)] == ["Slice", "Unsqueeze"]
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "emitted.xml"
        ov.save_model(_model(shape, s), str(xml))
        (_, chain), (_, strided) = openvino_oracle.run_ir(xml, {"x": x})
        reference = openvino_oracle.evaluate_ir(xml, {"x": x})
    assert chain.shape == (0, 1, 0)  # the bug; fixed: update docs/semantics.md
    assert strided.shape == (0, 1, 4)
    assert [r.shape for r in reference] == [(0, 1, 4), (0, 1, 4)]


INT32_MIN, INT64_MIN = -(2**31), -(2**63)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    start=st.one_of(st.none(), st.integers(-7, 7), st.sampled_from([2**40, -(2**40)])),
    stop=st.one_of(st.none(), st.integers(-7, 7), st.sampled_from([2**40, -(2**40)])),
    step=st.sampled_from([INT32_MIN, -(2**40), -(2**62), 1 - 2**63, INT64_MIN]),
    lo=st.integers(0, 3),
    hi=st.one_of(st.none(), st.integers(0, 6)),
)
def test_openvino_runs_what_the_emitters_write_for_a_step_at_or_below_int32_min(
    tmp_path: Path, start: int | None, stop: int | None, step: int, lo: int, hi: int | None
) -> None:
    """Such a constant step kills the CPU plugin (docs/semantics.md, S-3): on an axis of
    dynamic size the emitters write another, and the model (Slice-8 chain and StridedSlice,
    one model of dynamic input shape) runs on the CPU plugin and in ``evaluate`` as the
    slicing at every size up to 8; where they refuse, nothing is run."""
    s = dm.Slicing.from_strided_slice(
        [start or 0],
        [stop or 0],
        [step],
        begin_mask=[int(start is None)],
        end_mask=[int(stop is None)],
    )
    shape = dm.PartialShape([dm.Dimension(lo, None if hi is None else max(lo, hi))])
    try:
        model = _model(shape, s)
    except dm.NotExpressible:
        return
    xml = tmp_path / "emitted.xml"
    ov.save_model(model, str(xml))
    top = 8 if hi is None else max(lo, hi)
    for n in range(lo, top + 1):
        x = np.arange(n, dtype=np.int64)
        want = s(x)
        refused = ""
        try:
            cpu = [array for _, array in openvino_oracle.run_ir(xml, {"x": x})]
        except openvino_oracle.OpenVINOError as exc:
            refused, cpu = str(exc), []
        if refused:
            # OpenVINO declares no element where the start clamps to index 0 (x[-2:-2:-1] on
            # [?] declared [0], one element at size 1), and the CPU plugin holds to that
            # (docs/semantics.md, S-6 and IR-6): evaluate alone is compared there.
            assert "Can not clone with new dims" in refused
            assert want.size
        reference = openvino_oracle.evaluate_ir(xml, {"x": x})
        if want.size == 0:  # evaluate reversing a zero-length axis (divergence 10)
            reference = reference[:1]
        for got in (*cpu, *reference):
            assert same(got, want), (s, shape, n)


def test_cpu_plugin_crashes_on_the_step_the_emitters_no_longer_write(tmp_path: Path) -> None:
    """``x[::-(2**63 - 1)]`` on ``[?]`` written as it is (the emitters before the fix) kills
    the CPU plugin; what they write now (``x[-1:-2:-1]``) runs."""
    s = dm.Slicing.from_numpy(f"x[::{1 - 2**63}]")
    shape = dm.PartialShape.parse("[?]")
    assert s.to_slice(shape)[0][1]["step"] == [-1]
    x = ops1.parameter(ov.PartialShape("[?]"), np.int64, name="x")
    raw = ops8.slice(x, _const([-1]), _const([INT64_MIN]), _const([1 - 2**63]), _const([0]))
    xml = tmp_path / "raw.xml"
    ov.save_model(ov.Model([ops1.result(ops1.convert(raw, "i64"))], [x], "raw"), str(xml))
    data = np.arange(5, dtype=np.int64)
    with pytest.raises(openvino_oracle.OpenVINOCrashError):  # fixed: update docs/semantics.md
        openvino_oracle.run_ir(xml, {"x": data})
    xml = tmp_path / "emitted.xml"
    ov.save_model(_model(shape, s), str(xml))
    assert [got.tolist() for _, got in openvino_oracle.run_ir(xml, {"x": data})] == [[4], [4]]
