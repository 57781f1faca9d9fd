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
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

import datamove as dm
import openvino_oracle
from datamove import ir
from datamove._dialects import NUMPY, openvino_declared
from strategies import examples
from test_dialects import emitted_runs_as_sliced, numpy_indices, same, shapes, slicing_from

ov = pytest.importorskip("openvino", reason="openvino (the test extra) is not installed")
import openvino.opset1 as ops1  # noqa: E402 - after the skip
import openvino.opset8 as ops8  # noqa: E402


def _const(values: list[int]) -> Any:
    if not values:  # opset1.constant refuses an empty array
        return ov.op.Constant(ov.Type.i64, ov.Shape([0]), [])
    return ops1.constant(np.array(values, dtype=np.int64).reshape(-1))


def _chain(x: Any, chain: list[tuple[str, dict[str, Any]]]) -> Any:
    """The nodes of a ``to_slice`` chain (or ``to_onnx``'s, its numbers as given) on ``x``."""
    node: Any = x
    for name, p in chain:
        if name == "Slice":
            bounds = [p[k] for k in ("start", "stop", "step") if k in p]
            bounds = bounds or [p["starts"], p["ends"], p["steps"]]
            node = ops8.slice(node, *(_const(v) for v in (*bounds, p["axes"])))
        elif name == "Unsqueeze":
            node = ops1.unsqueeze(node, _const(p["axes"]))
        else:
            assert name == "Squeeze"
            node = ops1.squeeze(node, _const(p["axes"]))
    return ops1.convert(node, "i64")  # a Result never reads the Parameter directly


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
        results.append(ops1.result(_chain(x, s.to_slice(given))))
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
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
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
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
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
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
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
    inputs, wants = [], []
    for size in itertools.product(*(range(d.min, d.max + 1) for d in shape.dims)):
        x = np.arange(int(np.prod(size)), dtype=np.int64).reshape(size)
        try:
            wants.append(s(x))
        except dm.ValidationError:
            continue
        inputs.append({"x": x})
    # One compiled model for every size, as a model of dynamic input shape is run
    runs = zip(
        inputs,
        wants,
        openvino_oracle.run_ir_each(xml, inputs),
        openvino_oracle.evaluate_ir_each(xml, inputs),
        strict=True,
    )
    for feed, want, outputs, evaluated in runs:
        size = feed["x"].shape
        cpu = [array for _, array in outputs]
        reference = evaluated
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
    (problem,) = ir.read_model(xml).check().problems
    assert "addresses 2 axes around the ellipsis, but data has rank 1" in problem.message
    with pytest.raises(openvino_oracle.OpenVINOError, match="ellipsis"):
        openvino_oracle.evaluate_ir(xml, {"x": x})
    try:  # a dim past the rank: what comes of it hangs on memory (here SIGSEGV)
        openvino_oracle.run_ir(xml, {"x": x})
    except openvino_oracle.OpenVINOCrashError:
        return
    except openvino_oracle.OpenVINOError:  # a refusal: right
        pass
    openvino_oracle.skip_where_right(True, "6", "it reads a dim past the data's rank")


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
        with pytest.raises(dm.ValidationError, match="is out of range"):
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


@pytest.mark.parametrize(
    ("text", "given", "size", "names", "chain_shape", "want"),
    [
        ("x[:0, None]", "[?,?]", (3, 4), ["Slice", "Unsqueeze"], (0, 1, 0), (0, 1, 4)),
        # with an index, a Squeeze after the Slice (found by running every size of random
        # interval shapes: x[9:6, 0] on [?,6,4..6] too); a static input shape runs right
        ("x[:0, 0]", "[?,?,?]", (2, 6, 5), ["Slice", "Squeeze"], (0, 0), (0, 5)),
        ("x[:0, 0]", "[?,6,4..6]", (2, 6, 5), ["Slice", "Squeeze"], (0, 0), (0, 5)),
        ("x[:0, 0]", "[2,6,5]", (2, 6, 5), ["Slice", "Squeeze"], (0, 5), (0, 5)),
    ],
)
def test_cpu_plugin_gives_an_empty_slice_then_unsqueeze_the_wrong_shape(
    text: str,
    given: str,
    size: tuple[int, ...],
    names: list[str],
    chain_shape: tuple[int, ...],
    want: tuple[int, ...],
) -> None:
    """Divergence 24: in a model of dynamic input shape, ``to_slice``'s chain for ``x[:0, None]``
    (Slice to an empty result, then Unsqueeze) gives ``[0, 1, 0]`` on the CPU plugin for an input
    of ``[3, 4]``, where ``evaluate`` and datamove give ``[0, 1, 4]``; for ``x[:0, 0]`` (then
    Squeeze) ``[0, 0]``, not ``[0, 5]``. Only the shape of an empty result is wrong;
    StridedSlice's form of the same slicing is right."""
    s = dm.Slicing.from_numpy(text)
    shape = dm.PartialShape.parse(given)
    x = np.arange(int(np.prod(size)), dtype=np.int64).reshape(size)
    assert s(x).shape == want
    assert [name for name, _ in s.to_slice(shape)] == names
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "emitted.xml"
        ov.save_model(_model(shape, s), str(xml))
        (_, chain), (_, strided) = openvino_oracle.run_ir(xml, {"x": x})
        reference = openvino_oracle.evaluate_ir(xml, {"x": x})
    assert chain.shape == chain_shape  # the bug; fixed: update docs/semantics.md
    assert strided.shape == want
    assert [r.shape for r in reference] == [want, want]


@pytest.mark.parametrize(
    ("index", "text", "want"),
    [
        *(((slice(None), None, slice(b, b)), "[?,?]", (3, 1, 0)) for b in (2**31, -(2**31), 2**62)),
        ((slice(-(2**62), -(2**62)), 0), "[?,?,?]", (0, 5)),
        ((slice(2**63 - 2, 6, 2**32), 0), "[?,6,4..6]", (0, 5)),
    ],
    ids=str,
)
def test_cpu_plugin_refuses_an_empty_slice_of_big_bounds_beside_an_unsqueeze_or_squeeze(
    index: tuple[Any, ...], text: str, want: tuple[int, ...]
) -> None:
    """Divergence 24, compiling: the chain for ``x[:, None, b:b]`` with ``|b|`` from ``2**31`` on
    ``[?,?]``, its numbers as given (a Slice declared ``[?,0]``, then an Unsqueeze; ``to_onnx``
    writes them so), or for an index beside such an empty cut (a Squeeze after it), is refused by
    the CPU plugin ("product.get_static_in() == 0", its Reshape shape inference), where
    ``evaluate`` runs it right and small bounds (``x[:, None, 5:5]``) compile (found by running
    the emitters' chains over random interval shapes with wide bounds: ``x[2**63 - 2:6:2**32, 0]``
    on ``[?,6,4..6]``). The Slice alone compiles, and so does StridedSlice's form; ``to_slice``
    writes such a cut, empty on every allowed size, as ``0:0:1``, which the plugin compiles."""
    s = dm.Slicing.from_numpy(index)
    shape = dm.PartialShape.parse(text)
    x = (
        np.arange(12, dtype=np.int64).reshape(3, 4)
        if text == "[?,?]"
        else np.zeros((2, 6, 5), np.int64)
    )
    assert s(x).shape == want
    given = s.to_onnx(shape)
    assert given[0][0] == "Slice"
    assert max(abs(v) for v in given[0][1]["starts"]) >= 2**31  # the numbers as given
    param = ops1.parameter(ov.PartialShape(text), np.int64, name="x")
    raw = ov.Model([ops1.result(_chain(param, given))], [param], "given")
    core = ov.Core()
    with pytest.raises(RuntimeError, match=r"product\.get_static_in\(\) == 0"):
        core.compile_model(raw, "CPU")  # the bug; fixed: update the docs
    assert s.to_slice(shape)[0][1]["start"][:1] == [0]  # the empty cut, as to_slice writes it
    emitted = core.compile_model(_model(shape, s), "CPU")({0: x})
    assert [emitted[k].size for k in (0, 1)] == [0, 0]
    assert emitted[1].shape == want
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "given.xml"
        ov.save_model(raw, str(xml))
        reference = openvino_oracle.evaluate_ir(xml, {"x": x})
    assert [r.shape for r in reference] == [want]


_EMPTY_BOUNDS = st.one_of(
    st.integers(-7, 7),
    st.sampled_from([2**31, -(2**31), 2**32, -(2**32), 2**62, -(2**62), 2**63 - 2, -(2**63)]),
)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(
    start=_EMPTY_BOUNDS,
    stop=_EMPTY_BOUNDS,
    step=st.sampled_from([1, 2, -1, -3, 2**32, -(2**32)]),
    cut_dim=st.tuples(st.integers(0, 3), st.sampled_from([None, 1, 4])),
    other=st.sampled_from(["?", "1..", "1..2"]),
    around=st.lists(st.sampled_from(["new", "index"]), max_size=2),
    at=st.integers(0, 2),
)
@example(start=2**31, stop=2**31, step=1, cut_dim=(0, None), other="?", around=["new"], at=1)
@example(start=2**63 - 2, stop=6, step=2**32, cut_dim=(0, None), other="?", around=["index"], at=0)
def test_to_slice_writes_an_always_empty_cut_the_cpu_plugin_compiles_and_runs(
    tmp_path: Path,
    start: int,
    stop: int,
    step: int,
    cut_dim: tuple[int, int | None],
    other: str,
    around: list[str],
    at: int,
) -> None:
    """Divergence 24: a cut empty on every size its interval allows, of big or small bounds,
    with new axes and indices (Unsqueeze, Squeeze; their axes of ``other`` size, 1 or more)
    around it and a whole axis of ``other`` size after them: ``to_slice``'s chain and
    ``to_strided_slice``, compiled once on the CPU plugin with a dynamic input, give an empty
    result of the slicing's size at every allowed size up to two past the least (its shape:
    ``evaluate`` and StridedSlice's form; the chain's empty shape is the plugin's bug), and the
    chain cuts that axis ``0:0:1``. main's chains wrote the numbers as given, which the plugin
    refused to compile (the examples)."""
    lo, hi = cut_dim[0], None if cut_dim[1] is None else max(cut_dim)
    cut = slice(start, stop, step)
    dim = dm.Dimension(lo, hi)
    assume(dm.Slicing.from_numpy((cut,)).is_empty(dm.PartialShape([dim])))
    entries: list[Any] = [None if a == "new" else 0 for a in around]
    entries.insert(min(at, len(entries)), cut)
    held = dm.Dimension.parse("1.." if other == "?" else other)  # an index's axis holds it
    dims = [dim if x is cut else held for x in entries if x is not None]
    shape = dm.PartialShape([*dims, dm.Dimension.parse(other)])
    s = dm.Slicing.from_numpy(tuple(entries))
    try:
        chain = s.to_slice(shape)
    except dm.NotExpressible:  # OpenVINO's clamping takes an element on some size
        event("not expressible")
        return
    xml = tmp_path / "emitted.xml"
    ov.save_model(_model(shape, s), str(xml))
    inputs, wants = [], []
    sizes = (range(d.min, (d.min + 2 if d.max is None else d.max) + 1) for d in shape.dims)
    for size in itertools.product(*sizes):
        x = np.arange(int(np.prod(size)), dtype=np.int64).reshape(size)
        inputs.append({"x": x})
        wants.append(s(x))
    runs = zip(
        inputs,
        wants,
        openvino_oracle.run_ir_each(xml, inputs),  # main's chains: "product.get_static_in() == 0"
        openvino_oracle.evaluate_ir_each(xml, inputs),
        strict=True,
    )
    for feed, want, outputs, evaluated in runs:
        size = feed["x"].shape
        assert want.size == 0, (s, shape, size)
        (_, chained), (_, strided) = outputs
        assert chained.size == 0, (s, shape, size)
        assert strided.shape == want.shape, (s, shape, size)
        assert [r.shape for r in evaluated] == [want.shape, want.shape], (s, shape, size)
    k = [x for x in entries if x is not None].index(cut)  # the cut's input axis
    cuts = chain[0][1]
    row = cuts["axes"].index(k)
    assert (cuts["start"][row], cuts["stop"][row], cuts["step"][row]) == (0, 0, 1)


INT32_MIN, INT64_MIN, INT64_MAX = -(2**31), -(2**63), 2**63 - 1


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
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
        # Where OpenVINO would declare a length the rewrite does not give (x[-2:-2:-1] on [?],
        # declared [0], one element at size 1; S-6 and IR-6) the emitters refuse: every
        # model they write runs on the CPU plugin.
        cpu = [array for _, array in openvino_oracle.run_ir(xml, {"x": x})]
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


# -- OpenVINO's declared lengths on intervals (docs/semantics.md, S-6 and IR-6) -----------------

_ENDS = st.one_of(
    st.none(), st.integers(-9, 9), st.sampled_from([INT64_MIN, INT64_MAX, 2**40, -(2**40)])
)
_STEPS = st.one_of(st.integers(-3, 3).filter(bool), st.sampled_from([2**40, -(2**40), 2**62]))
_SOURCES = ("numpy", "tf", "slice", "onnx", "strided_slice")


def _read(source: str, start: int | None, stop: int | None, step: int) -> dm.Slicing:
    """``start:stop:step`` on one axis, written in ``source``'s own numbers and read back."""
    if source in ("numpy", "tf"):  # TensorFlow clamps as NumPy: NumPy runs both
        if source == "numpy":
            return dm.Slicing.from_numpy((slice(start, stop, step),))
        masks = {"begin_mask": int(start is None), "end_mask": int(stop is None)}
        numbers = (np.int64([v]) for v in (start or 0, stop or 0, step))  # lists: int32 (begin)
        return dm.Slicing.from_tf(*numbers, **masks)
    if source == "strided_slice":
        masks = {"begin_mask": [int(start is None)], "end_mask": [int(stop is None)]}
        return dm.Slicing.from_strided_slice([start or 0], [stop or 0], [step], **masks)
    a = (0 if step > 0 else -1) if start is None else start
    b = (INT64_MAX if step > 0 else INT64_MIN) if stop is None else stop
    return (
        dm.Slicing.from_slice([a], [b], [step])
        if source == "slice"
        else (dm.Slicing.from_onnx([a], [b], steps=[step]))
    )


def _want(source: str, x: np.ndarray, start: int | None, stop: int | None, step: int) -> Any:
    """The source's own runtime: NumPy's indexing (NumPy's and TensorFlow's clamping), else
    ``dm.slice``, which the differential tests hold to OpenVINO's reference (and onnxruntime)."""
    if source in ("numpy", "tf"):
        return x[start:stop:step]
    s = _read(source, start, stop, step)
    return s(x)


def _raw(dim: dm.Dimension, s: dm.Slicing, only: int) -> tuple[Any, Any]:
    """The one cut of ``s`` written as the emitter writes it, no check: Slice-8 (``only=0``) or
    StridedSlice-1, and its Parameter ``x`` of ``dim``."""
    (cut,) = s.entries
    x = ops1.parameter(ov.PartialShape(f"[{dim}]"), np.int64, name="x")
    c = cut.step
    if only == 0:
        a = (0 if c > 0 else -1) if cut.start is None else cut.start
        b = (INT64_MAX if c > 0 else INT64_MIN) if cut.stop is None else cut.stop
        return ops8.slice(x, _const([a]), _const([b]), _const([c]), _const([0])), x
    ends = [_const([v or 0]) for v in (cut.start, cut.stop, c)]
    masks = {"begin_mask": [int(cut.start is None)], "end_mask": [int(cut.stop is None)]}
    return ops1.strided_slice(x, *ends, **masks), x


def _raw_unsound(tmp_path: Path, dim: dm.Dimension, s: dm.Slicing, only: int, n: int) -> None:
    """At size ``n`` the length of `_raw`'s cut lies outside what OpenVINO declares for it,
    and where that length is not 0 the CPU plugin refuses the model (``evaluate`` runs it)."""
    node, x = _raw(dim, s, only)
    declared = node.get_output_partial_shape(0)[0]
    data = {"x": np.arange(n, dtype=np.int64)}
    length = s(data["x"]).size
    low, high = declared.get_min_length(), declared.get_max_length()
    assert low < 0 or length < low or 0 <= high < length, (s, dim, n, str(declared))
    if not length:  # a dynamic declared length: the plugin runs an empty one (S-6)
        return
    xml = tmp_path / f"raw{only}.xml"
    ov.save_model(ov.Model([ops1.result(ops1.convert(node, "i64"))], [x], "raw"), str(xml))
    with pytest.raises(openvino_oracle.OpenVINOError, match="Can not clone with new dims"):
        openvino_oracle.run_ir(xml, data)
    (got,) = openvino_oracle.evaluate_ir(xml, data)
    assert got.size == length


@settings(max_examples=examples(300), deadline=None)
@given(
    start=_ENDS,
    stop=_ENDS,
    step=_STEPS,
    lo=st.integers(0, 12),
    width=st.one_of(st.none(), st.integers(0, 40), st.just(2**40)),
    only=st.sampled_from([0, 1]),
)
def test_openvino_declares_what_datamove_says_it_declares(
    start: int | None, stop: int | None, step: int, lo: int, width: int | None, only: int
) -> None:
    """`openvino_declared` (what the emitters hold OpenVINO's shape inference to) is OpenVINO's
    own declared length, for Slice-8 and StridedSlice-1 as the emitters write them, on bounded
    and unbounded intervals."""
    s = _read("slice", start, stop, step)
    (cut,) = s.entries
    dim = dm.Dimension(lo, None if width is None else lo + width)
    got = _raw(dim, s, only)[0].get_output_partial_shape(0)[0]
    lengths = got.get_min_length(), got.get_max_length()
    theirs = None if lengths[0] < 0 else (lengths[0], None if lengths[1] < 0 else lengths[1])
    assert openvino_declared(cut, dim, ("Slice", "StridedSlice")[only]) == theirs, (cut, dim)


@settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    start=st.one_of(st.none(), st.integers(-9, 9), st.sampled_from([INT64_MIN, INT64_MAX])),
    stop=st.one_of(st.none(), st.integers(-9, 9), st.sampled_from([INT64_MIN, INT64_MAX])),
    step=st.sampled_from([-3, -2, -1, 1, 2, 3]),
    source=st.sampled_from(_SOURCES),
    lo=st.integers(0, 4),
    hi=st.one_of(st.none(), st.integers(0, 10)),
)
@example(start=-2, stop=-2, step=-1, source="slice", lo=0, hi=None)  # written x[0:-2:-1]
@example(start=-4, stop=7, step=2, source="numpy", lo=2, hi=10)  # refused: declared [1]
@example(start=-1, stop=1, step=1, source="onnx", lo=1, hi=None)  # refused: [1], 0 at 2
def test_openvino_runs_what_the_emitters_write_on_every_size_of_an_interval(
    tmp_path: Path,
    start: int | None,
    stop: int | None,
    step: int,
    source: str,
    lo: int,
    hi: int | None,
) -> None:
    """A cut read from NumPy, TensorFlow, Slice-8, ONNX or StridedSlice-1 numbers, emitted for
    an interval (``to_slice``, ``to_strided_slice``), built with a dynamic input of that
    interval: the CPU plugin and ``evaluate`` run it at every size up to 10 (0, 1 and 2
    included where allowed) as the source's runtime does. OpenVINO's shape inference declares
    the lengths at the interval's ends alone (S-6), and the CPU plugin refuses a size whose
    length lies outside (IR-6): where an emitter refuses, its witness is such a size, on which
    the CPU plugin refuses the cut written as it is."""
    dim = dm.Dimension(lo, None if hi is None else max(lo, hi))
    shape = dm.PartialShape([dim])
    s = _read(source, start, stop, step)
    top = 10 if dim.max is None else dim.max
    for only in (0, 1):
        try:
            model = _model(shape, s, only=only)
        except dm.NotExpressible as exc:
            if "S-6" not in str(exc):  # the clamping rules differ (tested elsewhere)
                continue
            event("refused: OpenVINO declares it wrong")
            (w,) = exc.witness
            assert dim.min <= w <= (INT64_MAX - 1 if dim.max is None else dim.max)
            if s.entries[0].rule == NUMPY or w > 100:  # written otherwise, or too big to run
                continue
            _raw_unsound(tmp_path, dim, s, only, w)
            continue
        event("written")
        xml = tmp_path / f"emitted{only}.xml"
        ov.save_model(model, str(xml))
        # One compiled model for every size, as a model of dynamic input shape is run
        inputs = [{"x": np.arange(n, dtype=np.int64)} for n in range(dim.min, top + 1)]
        runs = zip(
            inputs,
            openvino_oracle.run_ir_each(xml, inputs),
            openvino_oracle.evaluate_ir_each(xml, inputs),
            strict=True,
        )
        for feed, ((_, cpu),), (evaluated,) in runs:
            x = feed["x"]
            n = x.size
            want = _want(source, x, start, stop, step)
            reference = evaluated
            if want.size == 0 and only == 1:  # evaluate reversing a zero-length axis (10)
                reference = want
            for got in (cpu, reference):
                assert same(got, want), (source, start, stop, step, dim, n, only)


@pytest.mark.parametrize(
    ("s", "shape", "witness"),
    [
        pytest.param(
            dm.Slicing.from_slice([-2], [-2], [-1]), "[1..5]", 1, id="x[-2:-2:-1] on [1..5]"
        ),
        pytest.param(dm.Slicing.from_slice([-2], [-2], [-1]), "[1..]", 1, id="... on [1..]"),
        pytest.param(dm.Slicing.from_numpy("x[-4:7:2]"), "[2..10]", 3, id="x[-4:7:2] on [2..10]"),
        pytest.param(dm.Slicing.from_onnx([-4], [7], steps=[2]), "[5..]", 9, id="onnx on [5..]"),
        pytest.param(dm.Slicing.from_numpy("x[-4:7:2]"), "[1..]", 11, id="[1..4], 0 at 11"),
        pytest.param(dm.Slicing.from_numpy("x[-1:1]"), "[1..]", 2, id="[1], 0 at 2"),
        # lengths 1 2 3 4 4 3 2 1: the first size past [1] lies inside a piece, found by halving
        pytest.param(dm.Slicing.from_numpy("x[-5:4]"), "[1..8]", 2, id="x[-5:4] on [1..8]"),
        # declared [2..11]; size 40 gives one element, found by halving inside a piece
        pytest.param(
            dm.Slicing.from_numpy("x[30:-13:-3]", clamping="openvino"), "[4..]", 40, id="[2..11]"
        ),
        pytest.param(dm.Slicing.from_numpy(f"x[::{1 - 2**63}]"), "[?]", None, id="x[-1:-2:-1]"),
        pytest.param(dm.Slicing.from_numpy("x[::-2]"), "[?]", None, id="x[::-2] on [?]"),
        pytest.param(dm.Slicing.from_slice([-2], [-2], [-1]), "[?]", None, id="x[-2:-2:-1] on [?]"),
    ],
)
def test_the_openvino_emitters_refuse_a_cut_openvino_declares_wrong(
    tmp_path: Path, s: dm.Slicing, shape: str, witness: int | None
) -> None:
    """The witnesses of S-6 and IR-6 as the emitters see them: ``x[-2:-2:-1]`` (Slice-8 numbers)
    on ``[1..5]`` is declared an empty interval and gives one element at size 1, on ``[1..]``
    ``[1]`` and none from 2; ``x[-4:7:2]`` on
    ``[2..10]`` is declared ``[1]`` and gives two at 3; on ``[5..]``, declared ``[2..4]``, one at
    9; on ``[1..]``, declared ``[1..4]``, none at 11; ``x[-1:1]`` on ``[1..]``, declared
    ``[1]``, none at 2; ``x[-5:4]`` on ``[1..8]``, declared ``[1]``, two at 2. Both emitters
    refuse each with that witness, where the length lies outside OpenVINO's declared one (and
    the CPU plugin refuses the cut written as it is, where that length is not 0). What OpenVINO
    declares soundly is written and runs: ``x[-1:-2:-1]`` (the step rewrite of
    ``x[::-(2**63 - 1)]``, ``[..1]``) and ``x[::-2]`` on ``[?]``; and
    ``x[-2:-2:-1]`` on ``[?]``, declared ``[0]`` as it is (one element at size 1), is written
    ``x[0:-2:-1]``, which selects alike on every size and is declared ``[?]``."""
    ps = dm.PartialShape.parse(shape)
    for only, emit in enumerate((s.to_slice, s.to_strided_slice)):
        if witness is None:
            emit(shape)
            continue
        with pytest.raises(dm.NotExpressible, match=r"S-6 and IR-6") as info:
            emit(shape)
        assert info.value.witness == (witness,)
        _raw_unsound(tmp_path, ps.dims[0], s, only, witness)
    if witness is None:
        if s.entries == dm.Slicing.from_slice([-2], [-2], [-1]).entries:
            assert s.to_slice(shape)[0][1]["start"] == [0]
            assert s.to_strided_slice(shape)["begin"] == [0]
        xml = tmp_path / "emitted.xml"
        ov.save_model(_model(ps, s), str(xml))
        for n in (0, 1, 2, 3, 9, 100):
            x = np.arange(n, dtype=np.int64)
            for _, got in openvino_oracle.run_ir(xml, {"x": x}):
                assert same(got, s(x))


def test_cpu_plugin_runs_an_empty_result_outside_a_static_declared_length_wrong(
    tmp_path: Path,
) -> None:
    """``x[-1:1]`` on ``[1..]`` (Slice-8) is declared ``[1]``: one element at size 1, none
    from 2. There the CPU plugin fails where a Convert follows ("different elements number in
    input and output buffers"), and after an Unsqueeze gives the shape ``(1, 1)``, where
    ``evaluate`` gives ``(1, 0)`` (docs/semantics.md, S-6); the emitters refuse the cut."""
    x = ops1.parameter(ov.PartialShape("[1..]"), np.int64, name="x")
    cut = ops8.slice(x, _const([-1]), _const([1]), _const([1]), _const([0]))
    assert str(cut.get_output_partial_shape(0)) == "[1]"
    data = {"x": np.arange(2, dtype=np.int64)}
    for tail, xml in (("convert", tmp_path / "c.xml"), ("unsqueeze", tmp_path / "u.xml")):
        end = ops1.convert(cut, "i64") if tail == "convert" else ops1.unsqueeze(cut, _const([0]))
        ov.save_model(ov.Model([ops1.result(end)], [x], tail), str(xml))
        (reference,) = openvino_oracle.evaluate_ir(xml, data)
        assert reference.shape == ((0,) if tail == "convert" else (1, 0))
    with pytest.raises(openvino_oracle.OpenVINOError, match="different elements number"):
        openvino_oracle.run_ir(tmp_path / "c.xml", data)
    ((_, got),) = openvino_oracle.run_ir(tmp_path / "u.xml", data)
    assert got.shape == (1, 1)  # fixed: update docs/semantics.md, S-6
    with pytest.raises(dm.NotExpressible, match="S-6"):
        dm.Slicing.from_numpy("x[-1:1]").to_slice("[1..]")
