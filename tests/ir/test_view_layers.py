"""``run`` computes data Unsqueeze and Squeeze (views: PyTorch's ``x[None]``, ``x.unsqueeze(1)``,
``x.squeeze(0)``), as OpenVINO's CPU plugin does: models built with the opset API and converted
from PyTorch, at several sizes including 0; invalid axes are check problems and run refusals."""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_slice_models import _arange, _assert_same

import datamove as dm
from datamove import ir

ov_models = pytest.importorskip("ov_models")
openvino_oracle = pytest.importorskip("openvino_oracle")
torch = pytest.importorskip("torch")
torch_models = pytest.importorskip("torch_models")
ov = ov_models.ov
ops = ov_models.ops
ops15 = __import__("openvino.opset15", fromlist=["opset15"])

pytestmark = pytest.mark.openvino


def _model(
    build: Any, shape: list[int], tmp_path: Path, dtype: Any = np.float32, name: str = "model"
) -> Path:
    x = ops.parameter(shape, dtype, name="x")
    out = build(x)
    out.output(0).get_tensor().set_names({"y"})
    return ov_models.save(ov.Model([out], [x]), tmp_path, name)


def _axes(values: Any, dtype: Any = np.int64) -> Any:
    return ops.constant(np.array(values, dtype=dtype))


# (name, build, input shape in the model, run shapes): the axes rules of each operator
OPSET = [
    ("unsqueeze [0, -1]", lambda x: ops.unsqueeze(x, _axes([0, -1])), [2, 3], [(2, 3)]),
    ("unsqueeze repeated [0, 0]", lambda x: ops.unsqueeze(x, _axes([0, 0])), [2, 3], [(2, 3)]),
    ("unsqueeze [-1, 3] (one axis)", lambda x: ops.unsqueeze(x, _axes([-1, 3])), [2, 3], [(2, 3)]),
    ("unsqueeze [2, -2]", lambda x: ops.unsqueeze(x, _axes([2, -2])), [2, 3], [(2, 3)]),
    ("unsqueeze [-1, -1]", lambda x: ops.unsqueeze(x, _axes([-1, -1])), [2, 3], [(2, 3)]),
    ("unsqueeze [0, -3]", lambda x: ops.unsqueeze(x, _axes([0, -3])), [2, 3], [(2, 3)]),
    ("unsqueeze [4, 0] i32", lambda x: ops.unsqueeze(x, _axes([4, 0], np.int32)), [2, 0, 3], []),
    ("unsqueeze scalar axis", lambda x: ops.unsqueeze(x, _axes(1)), [2, 3], [(2, 3)]),
    ("unsqueeze of a scalar", lambda x: ops.unsqueeze(x, _axes([0, -1])), [], [()]),
    ("unsqueeze dynamic", lambda x: ops.unsqueeze(x, _axes([1, -1])), [-1, -1], [(2, 3), (0, 4)]),
    ("squeeze [0, -3]", lambda x: ops.squeeze(x, _axes([0, -3])), [1, 2, 1], [(1, 2, 1)]),
    ("squeeze a dim of 2: kept", lambda x: ops.squeeze(x, _axes([1, 2])), [1, 2, 1], []),
    ("squeeze a dim of 0: kept", lambda x: ops.squeeze(x, _axes([0, 1])), [0, 1], []),
    ("squeeze of a scalar [-1]", lambda x: ops.squeeze(x, _axes([-1])), [], [()]),
    ("squeeze of a scalar [0]", lambda x: ops.squeeze(x, _axes(0)), [], [()]),
    ("squeeze dynamic", lambda x: ops.squeeze(x, _axes([0])), [1, -1], [(1, 3), (1, 0)]),
    ("squeeze-15 [0, 1]", lambda x: ops15.squeeze(x, _axes([0, 1])), [1, 2, 1], []),
    ("squeeze-15 no axes", ops15.squeeze, [1, 2, 1, 1], []),
    (
        "squeeze-15 allow_axis_skip",
        lambda x: ops15.squeeze(x, _axes([0, 1]), allow_axis_skip=True),
        [1, 2, 1],
        [],
    ),
]


@pytest.mark.parametrize(("name", "build", "shape", "sizes"), OPSET, ids=[o[0] for o in OPSET])
def test_run_computes_unsqueeze_and_squeeze_as_openvino(
    name: str, build: Any, shape: list[int], sizes: list[tuple[int, ...]], tmp_path: Path
) -> None:
    # Fixed: run refused these models ("datamove does not compute Unsqueeze layers").
    runs_as_openvino(_model(build, shape, tmp_path), shape, sizes)


def runs_as_openvino(xml: Path, shape: list[int], sizes: list[tuple[int, ...]]) -> ir.Model:
    """Check a model of views of ``x`` (its output ``y``) and run it against OpenVINO's plugin.

    Checked with no opaque layer, its output inferred as OpenVINO declares it (dims moved, a
    dim of 1 inserted or not); run at each size (the shape itself where none), on NumPy (the
    checked path, then the shape plan made, then used) and PyTorch: OpenVINO's values, views.
    """
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok, report
    assert not report.opaque
    assert str(report.outputs["y"][0]) == ov_models.openvino_shapes(xml)["y"]
    for size in sizes or [tuple(shape)]:
        inputs = {"x": _arange(size)}
        want = ov_models.run_openvino(xml, inputs)
        for _ in range(3):  # the checked path, then the shape plan is made, then used
            got = model.run(inputs)
            _assert_same(got, want)
            assert np.shares_memory(got["y"], inputs["x"]) or not inputs["x"].size  # a view
        tensor = torch.from_numpy(_arange(size))
        got = model.run({"x": tensor})
        _assert_same({k: v.numpy() for k, v in got.items()}, want)
        if tensor.numel():
            assert got["y"].data_ptr() == tensor.data_ptr()  # a torch view
    return model


# PyTorch's views, converted with dynamic dims: in the middle of slicing
TORCH = {
    "x[None]": lambda x: x[None],
    "x.unsqueeze(1)[..., 1:]": lambda x: x.unsqueeze(1)[..., 1:],
    "x[:1].squeeze(0)": lambda x: x[:1].squeeze(0),
    "x[:, None, :2].unsqueeze(-1)": lambda x: x[:, None, :2].unsqueeze(-1),
    "x[:, :1].squeeze(1)[None]": lambda x: x[:, :1].squeeze(1)[None],
}
# The input dim that the one Squeeze of a model takes, where it can be 0
EMPTY_SQUEEZE = {"x[:1].squeeze(0)": 0, "x[:, :1].squeeze(1)[None]": 1}
TORCH_SIZES = [(2, 3, 4), (1, 5, 2), (0, 3, 4), (3, 0, 2), (2, 4, 0)]


@pytest.mark.parametrize("name", list(TORCH))
def test_run_computes_converted_pytorch_views(name: str, tmp_path: Path) -> None:
    xml = torch_models.convert_fn(TORCH[name], (2, 3, 4), [-1, -1, -1], tmp_path)
    model = ir.read_model(xml)
    assert not {"Unsqueeze", "Squeeze"} & set(model.check().opaque)
    for size in TORCH_SIZES:
        inputs = {"x": _arange(size)}
        empty = EMPTY_SQUEEZE.get(name)
        if empty is not None and size[empty] == 0:
            # the dim squeezed is 0, not 1: Squeeze keeps it, as OpenVINO's rule on a static
            # shape does (`squeeze a dim of 0: kept` above); its CPU plugin, which declared the
            # dim squeezed, refuses ("Can not clone with new dims")
            with pytest.raises(openvino_oracle.OpenVINOError, match="Can not clone"):
                ov_models.run_openvino(xml, inputs)
            assert all(0 in y.shape for y in model.run(inputs).values())
            continue
        want = ov_models.run_openvino(xml, inputs)
        for _ in range(2):
            _assert_same(model.run(inputs), want)
    got = model.run({"x": torch.from_numpy(_arange((2, 3, 4)))})
    want = ov_models.run_openvino(xml, {"x": _arange((2, 3, 4))})
    _assert_same({k: v.numpy() for k, v in got.items()}, want)


BAD = [
    ("unsqueeze axis past the output", "Unsqueeze", lambda x: ops.unsqueeze(x, _axes([3])), [2, 3]),
    ("unsqueeze [3, 3]", "Unsqueeze", lambda x: ops.unsqueeze(x, _axes([3, 3])), [2, 3]),
    ("unsqueeze [-4, -4]", "Unsqueeze", lambda x: ops.unsqueeze(x, _axes([-4, -4])), [2, 3]),
    ("squeeze axis past the data", "Squeeze", lambda x: ops.squeeze(x, _axes([-4])), [1, 2, 1]),
]


@pytest.mark.parametrize(("name", "op", "build", "shape"), BAD, ids=[b[0] for b in BAD])
def test_invalid_axes_are_check_problems_and_run_refusals(
    name: str, op: str, build: Any, shape: list[int], tmp_path: Path
) -> None:
    # OpenVINO refuses these axes when it builds the model; datamove reads the file written
    # with valid axes and the value changed (the Const's data)
    good = {"Unsqueeze": lambda x: ops.unsqueeze(x, _axes([0] * len(_bad_axes(name)))),
            "Squeeze": lambda x: ops.squeeze(x, _axes([0]))}[op]  # fmt: skip
    xml = _model(good, shape, tmp_path)
    bin_path = xml.with_suffix(".bin")
    data = bytearray(bin_path.read_bytes())
    axes = np.array(_bad_axes(name), dtype=np.int64).tobytes()
    start = bytes(data).rfind(np.zeros(len(_bad_axes(name)), np.int64).tobytes())
    data[start : start + len(axes)] = axes
    bin_path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError):
        ov.Core().read_model(str(xml)).validate_nodes_and_infer_types()
    model = ir.read_model(xml)
    report = model.check()
    assert not report.ok
    assert any(p.layer_type == op and "axes" in p.message for p in report.problems), report
    with pytest.raises(ir.IRError, match="axes"):
        model.run({"x": _arange(tuple(shape))})


def _bad_axes(name: str) -> list[int]:
    return {
        "unsqueeze axis past the output": [3],
        "unsqueeze [3, 3]": [3, 3],
        "unsqueeze [-4, -4]": [-4, -4],
    }.get(name, [-4])


@pytest.mark.parametrize("op", ["Unsqueeze", "Squeeze"])
def test_axes_read_at_run_time(op: str, tmp_path: Path) -> None:
    # Axes from an input are read at each run (the CPU plugin refuses such a model, "dynamic
    # rank": the reference is the model of those axes as a constant); out of range, run refuses
    # with the layer named and the operator's rule (never NumPy's IndexError)
    x = ops.parameter([-1, -1, -1], np.float32, name="x")
    axes = ops.parameter([2], np.int64, name="axes")
    out = ops.unsqueeze(x, axes) if op == "Unsqueeze" else ops.squeeze(x, axes)
    out.output(0).get_tensor().set_names({"y"})
    xml = ov_models.save(ov.Model([out], [x, axes]), tmp_path)
    model = ir.read_model(xml)
    assert model.check().ok
    build = ops.unsqueeze if op == "Unsqueeze" else ops.squeeze
    for values in ([0, -1], [2, 2], [-3, 0]):
        inputs = {"x": _arange((1, 3, 1)), "axes": np.array(values, np.int64)}
        ref = _model(lambda x, v=values: build(x, _axes(v)), [1, 3, 1], tmp_path, name="ref")
        want = ov_models.run_openvino(ref, {"x": inputs["x"]})
        _assert_same(model.run(inputs), want)
    bad = {"x": _arange((1, 3, 1)), "axes": np.array([0, 9], np.int64)}
    with pytest.raises(ir.IRError, match=rf"failed at run time: {op}: axes=\[0, 9\] must each"):
        model.run(bad)


@pytest.mark.parametrize(
    ("op", "count", "new", "want"),
    [
        ("Unsqueeze", 1, "[4,3,5]", "[1..5,1..5,1..5,1..5]"),  # OpenVINO: [...]
        ("Unsqueeze", 1, "[0,2..6]", "[..6,..6,..6]"),
        ("Unsqueeze", 2, "[4,3,5]", "[...]"),  # [0, 0] adds one axis, [0, 1] two
        ("Squeeze", 1, "[4,3,5]", "[4,3,5]"),  # OpenVINO's: no dim to squeeze
        ("Squeeze", 2, "[4,3..6,5]", "[4,3..6,5]"),
        ("Squeeze", 1, "[4,1,5]", "[...]"),  # [1] squeezes, [0] is ignored: either rank
        ("Squeeze", 1, "[4,0..2,5]", "[...]"),
    ],
)
def test_new_input_shapes_keep_what_the_count_of_axes_fixes(
    op: str, count: int, new: str, want: str, tmp_path: Path
) -> None:
    # Under check(input_shapes), axes read at run time are no shape, but their count can fix
    # one; every output OpenVINO gives for each axes value at each size lies inside it
    x = ops.parameter([-1] * (new.count(",") + 1), np.float32, name="x")
    axes = ops.parameter([count], np.int64, name="axes")
    build = ops.unsqueeze if op == "Unsqueeze" else ops.squeeze
    out = build(x, axes)
    out.output(0).get_tensor().set_names({"y"})
    xml = ov_models.save(ov.Model([out], [x, axes]), tmp_path)
    got, _ = ir.read_model(xml).check(input_shapes={"x": new}).outputs["y"]
    assert str(got) == want
    rank = new.count(",") + 1 + (count if op == "Unsqueeze" else 0)
    sizes = [
        [d.min, d.max if d.max is not None else d.min + 3] for d in dm.PartialShape.parse(new).dims
    ]
    for shape in {tuple(s) for s in itertools.product(*sizes)}:
        for values in itertools.product(range(-rank, rank), repeat=count) if count else []:
            try:  # axes OpenVINO refuses (out of range for the rank they give) give nothing
                ref = _model(lambda x, v=values: build(x, _axes(list(v))), list(shape), tmp_path)
            except RuntimeError:
                continue
            model = ov.Core().read_model(ref)
            assert tuple(model.output("y").get_partial_shape().to_shape()) in got


def test_empty_unsqueeze_axes_are_refused_as_openvino_refuses_them(tmp_path: Path) -> None:
    # The spec is silent; OpenVINO's shape inference refuses a Const of no axes, and evaluate
    # run-time ones ("'axes' input is mandatory"). Fixed: datamove returned the data unchanged.
    rule = r"Unsqueeze: axes=\[\] must not be empty"
    for length in (0, -1):  # axes of shape [0]: a check problem; of [?]: a run refusal
        x = ops.parameter([4, 1, 5], np.float32, name="x")
        axes = ops.parameter([length], np.int64, name="axes")
        out = ops.unsqueeze(x, axes)
        out.output(0).get_tensor().set_names({"y"})
        xml = ov_models.save(ov.Model([out], [x, axes]), tmp_path, f"m{-length}")
        inputs = {"x": _arange((4, 1, 5)), "axes": np.zeros(0, np.int64)}
        with pytest.raises(openvino_oracle.OpenVINOError, match="'axes' input is mandatory"):
            openvino_oracle.evaluate_ir(xml, inputs)
        model = ir.read_model(xml)
        problems = model.check().problems
        assert [p.layer_type for p in problems] == (["Unsqueeze"] if length == 0 else [])
        assert all(re.search(rule, p.message) for p in problems)
        with pytest.raises(ir.IRError, match=rule):
            model.run(inputs)


@pytest.mark.parametrize(("version", "declared"), [("Squeeze-1", "[?,?]"), ("Squeeze-15", "[...]")])
def test_a_squeeze_of_run_time_axes_keeps_a_dim_openvino_declares_dropped(
    version: str, declared: str, tmp_path: Path
) -> None:
    # IR-24 (docs/semantics.md): a Squeeze of one run-time axis on [4,1,5] is declared [?,?] by
    # OpenVINO (a Squeeze-15: [...]), yet axes [0] (at the 4) is ignored, as the spec and its
    # model of those axes as a constant give, rank 3; the CPU plugin (which makes a Squeeze-15
    # without allow_axis_skip a Squeeze-1) refuses that run. datamove runs it as the constant
    # model (under new input shapes it infers either rank: the test above).
    build = ops.squeeze if version == "Squeeze-1" else ops15.squeeze
    x = ops.parameter([4, 1, 5], np.float32, name="x")
    axes = ops.parameter([1], np.int64, name="axes")
    out = build(x, axes)
    out.output(0).get_tensor().set_names({"y"})
    xml = ov_models.save(ov.Model([out], [x, axes]), tmp_path)
    assert ov_models.openvino_shapes(xml) == {"y": declared}
    model = ir.read_model(xml)
    data = _arange((4, 1, 5))
    for values, shape in (([0], (4, 1, 5)), ([1], (4, 5)), ([-2], (4, 5))):
        inputs = {"x": data, "axes": np.array(values, np.int64)}
        ref = _model(lambda x, v=values: build(x, _axes(v)), [4, 1, 5], tmp_path, name="c")
        want = ov_models.run_openvino(ref, {"x": data})
        assert want["y"].shape == shape
        _assert_same(model.run(inputs), want)
        (evaluated,) = openvino_oracle.evaluate_ir(xml, inputs)
        _assert_same(model.run(inputs), {"y": evaluated})
        if values == [0]:
            with pytest.raises(openvino_oracle.OpenVINOError, match="Can not clone"):
                ov_models.run_openvino(xml, inputs)
        else:
            _assert_same(ov_models.run_openvino(xml, inputs), want)
    report = model.check()
    assert str(report.outputs["y"][0]) == declared  # the file's port, taken as declared
    assert not [n for n in report.notes if n.kind == "openvino-cpu"]  # the plugin compiles it


def _run_time(shape: list[int]) -> Any:
    return ops.parameter(shape, np.int64, name="axes")


# IR-34: (name, build, data shape, axes: a list for a Const, a shape for run-time ones, the
# run-time value, what the CPU plugin says where it refuses to compile the model, or None)
RANK = "operation with dynamic rank"
SKIP = functools.partial(ops15.squeeze, allow_axis_skip=True)
VIEWS_REFUSED = [
    ("unsqueeze, run-time axes [1]", ops.unsqueeze, [4, 1, 5], [1], [0], RANK),
    ("unsqueeze, a run-time scalar axis", ops.unsqueeze, [4, 1, 5], [], 3, RANK),
    ("unsqueeze, run-time axes [2], data [?,?]", ops.unsqueeze, [-1, -1], [2], [0, 1], RANK),
    ("squeeze, run-time axes [2]", ops.squeeze, [4, 1, 5], [2], [1, 1], RANK),
    ("squeeze, run-time axes of a scalar", ops.squeeze, [], [1], [0], RANK),
    ("squeeze-15, run-time axes [?]", ops15.squeeze, [4, 1, 5], [-1], [1], RANK),
    ("squeeze-15, no axes on [?,3]", ops15.squeeze, [-1, 3], None, None, RANK),
    ("squeeze-15 skip, run-time axes [1]", SKIP, [4, 1, 5], [1], [1], RANK),
    ("squeeze-15 skip, data [4,?,5]", SKIP, [4, -1, 5], [0], None, "not implemented"),
    # near misses: the plugin compiles and runs them as evaluate
    ("unsqueeze, constant axes", ops.unsqueeze, [4, 1, 5], [0], None, None),
    ("squeeze, one run-time axis", ops.squeeze, [4, 1, 5], [1], [1], None),
    ("squeeze-15, a run-time scalar axis", ops15.squeeze, [4, 1, 5], [], 1, None),
    ("squeeze-15, no axes on [2,1,3]", ops15.squeeze, [2, 1, 3], None, None, None),
    ("squeeze-15 skip, run-time axes [1], no dim of 1", SKIP, [2, 3], [1], [0], None),
    ("squeeze-15 skip, static data", SKIP, [4, 1, 5], [1], None, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "build", "shape", "axes", "value", "refusal"),
    VIEWS_REFUSED,
    ids=[v[0] for v in VIEWS_REFUSED],
)
def test_check_notes_a_view_the_cpu_plugin_refuses_to_compile(
    name: str, build: Any, shape: list[int], axes: Any, value: Any, refusal: str | None,
    tmp_path: Path,
) -> None:  # fmt: skip
    # IR-34 (docs/semantics.md): an Unsqueeze or Squeeze whose output OpenVINO reads as of
    # dynamic rank (or a Squeeze-15 with allow_axis_skip on data of a shape not static): the
    # CPU plugin refuses to compile the model. datamove runs it as evaluate and the spec, and
    # check notes the layer (kind openvino-cpu); a near miss gets no note, and the plugin runs it.
    x = ops.parameter(shape, np.float32, name="x")
    params, inputs = [x], {"x": _arange(tuple(d if d >= 0 else 1 + k for k, d in enumerate(shape)))}
    if axes is None:
        out = build(x)
    elif value is None:
        out = build(x, _axes(axes))
    else:
        params.append(_run_time(axes))
        inputs["axes"] = np.array(value, np.int64)
        out = build(x, params[1])
    out.output(0).get_tensor().set_names({"y"})
    xml = ov_models.save(ov.Model([out], params), tmp_path)
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok  # a note is not a problem
    notes = [n for n in report.notes if n.kind == "openvino-cpu"]
    (want,) = openvino_oracle.evaluate_ir(xml, inputs)  # the spec's answer
    _assert_same(model.run(inputs), {"y": want})
    cpu = openvino_oracle.run_ir_one(xml, inputs)
    if refusal is None:
        assert notes == []
        _assert_same({"y": cpu}, {"y": want})
        return
    (note,) = notes
    assert note.message.startswith("divergence IR-34 (docs/semantics.md): ")
    assert note.layer_type == ("Unsqueeze" if "unsqueeze" in name else "Squeeze")
    assert isinstance(cpu, str)
    assert refusal in cpu, cpu


@pytest.mark.parametrize("spelling", ["True", "1", "false"])
def test_allow_axis_skip_is_read_as_openvino_reads_a_bool(spelling: str, tmp_path: Path) -> None:
    # OpenVINO reads "True" and "1" as true (a Squeeze-15 of run-time axes it then refuses to
    # compile, IR-34), "false" as false (it compiles it): the note follows
    xml = _model(lambda x: ops15.squeeze(x, _axes([1]), allow_axis_skip=True), [4, -1, 5], tmp_path)
    xml.write_text(
        xml.read_text().replace('allow_axis_skip="true"', f'allow_axis_skip="{spelling}"')
    )
    inputs = {"x": _arange((4, 1, 5))}
    refused = isinstance(openvino_oracle.run_ir_one(xml, inputs), str)
    notes = [n for n in ir.read_model(xml).check().notes if n.kind == "openvino-cpu"]
    assert refused == (spelling != "false") == bool(notes)


@pytest.mark.parametrize("op", ["Unsqueeze", "Squeeze"])
def test_float_axes_are_refused_where_openvino_runs_them(op: str, tmp_path: Path) -> None:
    # IR-20 (docs/semantics.md): the spec's axes are integers; OpenVINO builds and runs an f32
    # Const of axes. datamove refuses it, a check problem naming the axes and a run refusal.
    build = {"Unsqueeze": ops.unsqueeze, "Squeeze": ops.squeeze}[op]
    xml = _model(lambda x: build(x, _axes([0.0], np.float32)), [1, 3], tmp_path)
    inputs = {"x": _arange((1, 3))}
    (cpu,) = ov_models.run_openvino(xml, inputs).values()
    assert cpu.shape == {"Unsqueeze": (1, 1, 3), "Squeeze": (3,)}[op]
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert (problem.layer_type, problem.kind) == (op, "operator")
    assert "axes" in problem.message
    with pytest.raises(ir.IRError, match="axes"):
        model.run(inputs)


VIEWS_OF_A_ROW = {
    "squeeze [0]": lambda x: ops.squeeze(x, _axes([0])),
    "unsqueeze [0]": lambda x: ops.unsqueeze(x, _axes([0])),
    "reshape [6]": lambda x: ops.reshape(x, _axes([6]), special_zero=False),
    "reshape [3, 1, 2]": lambda x: ops.reshape(x, _axes([3, 1, 2]), special_zero=False),
    "transpose [1, 0]": lambda x: ops.transpose(x, _axes([1, 0])),
}


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # NumPy's, on np.matrix
@pytest.mark.parametrize("name", list(VIEWS_OF_A_ROW))
def test_a_numpy_subclass_input_gets_numpy_s_shapes(name: str, tmp_path: Path) -> None:
    # A subclass keeps its type where its result has the shape NumPy's basic indexing gives, as
    # the operators do (issue 23 in tests/test_architecture.py); np.matrix stays 2-D, so there
    # the base array's result comes back (fixed: the Squeeze of a [1,6] np.matrix gave [1,6],
    # its Reshape to [6] gave [1,6], OpenVINO's and NumPy's [6]).
    xml = _model(VIEWS_OF_A_ROW[name], [1, 6], tmp_path)
    model = ir.read_model(xml)
    x = _arange((1, 6))
    want = model.run({"x": x})["y"]
    np.testing.assert_array_equal(want, openvino_oracle.run_ir_one(xml, {"x": x}))
    got = model.run({"x": np.matrix(x)})["y"]
    assert got.shape == want.shape
    # Fixed: the Unsqueeze gave NumPy's m[None], a 3-D np.matrix (whose copy is 2-D again).
    assert type(got) is (np.matrix if want.ndim == 2 else np.ndarray)
    np.testing.assert_array_equal(np.asarray(got), want)
    masked = model.run({"x": np.ma.masked_array(x, mask=x > 3)})["y"]
    assert type(masked) is np.ma.MaskedArray
    assert masked.shape == want.shape
    np.testing.assert_array_equal(masked.mask, want > 3)
