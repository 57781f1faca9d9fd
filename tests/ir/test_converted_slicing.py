"""PyTorch slicing that ``openvino.convert_model`` writes with shape subgraphs (``tensor_split``,
``chunk``...): datamove checks the converted files as OpenVINO reads them, its shapes hold what
OpenVINO's CPU plugin gives at sizes inside the inputs' intervals, and they are at least as tight
as OpenVINO's. The models are a differential hunt's finds (random slicing programs, converted
on static, dynamic and interval inputs), a few conversions each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import PartialShape, ir
from datamove.cli import main

ov_models = pytest.importorskip("ov_models")
torch = pytest.importorskip("torch")
torch_models = pytest.importorskip("torch_models")
ov = ov_models.ov
openvino_oracle = pytest.importorskip("openvino_oracle")

pytestmark = pytest.mark.openvino
CPU = "openvino-cpu"  # the kind of check's notes on layers OpenVINO's CPU plugin runs wrong


def test_a_variadic_split_of_lengths_of_unknown_length_has_the_file_s_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # x.tensor_split(1, 1) on [?,?] (a hunt's find): its split_lengths are a Concat of two
    # Tiles of run-time repeats, of unknown length, and the VariadicSplit has the one output
    # port the file declares. datamove said "the number of outputs is unknown", a problem.
    fn = lambda x: torch.cat(x.tensor_split(1, 1)[::-1], 1)[:, 1:]  # noqa: E731
    xml = torch_models.convert_fn(fn, (2, 5), [-1, -1], tmp_path)
    assert 'type="VariadicSplit"' in xml.read_text()
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok, report.problems
    assert report.checked["VariadicSplit"] == 1
    ((shape, _),) = report.outputs.values()
    assert str(shape) == "[?,?]"
    for size in [(2, 7), (0, 1), (3, 0)]:
        want = fn(torch.zeros(size)).shape  # PyTorch's, the source model's
        assert tuple(want) in shape
        ((exact, _),) = model.check({"x": PartialShape(list(size))}).outputs.values()
        assert exact == PartialShape(list(want))
    assert main(["check", str(xml)]) == 0
    assert capsys.readouterr().out.endswith("OK: no problems found\n")
    # IR-15 (docs/semantics.md): OpenVINO reads the file's VariadicSplit as of dynamic rank
    # (the model convert_model returned had [?,?]), and its CPU plugin refuses the file
    assert ov_models.openvino_shapes(xml) == {"y0": "[...]"}
    with pytest.raises(openvino_oracle.OpenVINOError, match="VariadicSplit operation with dynamic"):
        ov_models.run_openvino(xml, {"x": np.zeros((2, 7), np.float32)})
    # check says so (fixed: no note; datamove knows the length, 1, that OpenVINO does not)
    ((note, layer_type),) = [(n.message, n.layer_type) for n in report.notes if n.kind == CPU]
    assert layer_type == "VariadicSplit"
    assert note.startswith("divergence IR-15 (docs/semantics.md): split_lengths of unknown length")


def test_run_time_split_lengths_of_known_length_get_no_ir_15_note(tmp_path: Path) -> None:
    # The near miss of the above: a Parameter of [2] as split_lengths compiles and runs.
    ops = ov_models.ops
    x = ops.parameter([2, -1], np.float32, name="x")
    lengths = ops.parameter([2], np.int64, name="lengths")
    parts = ops.variadic_split(x, ops.constant(np.int64(1)), lengths)
    model = ov.Model([ops.result(o) for o in parts.outputs()], [x, lengths], "m")
    xml = ov_models.save(model, tmp_path)
    report = ir.read_model(xml).check()
    assert report.ok
    assert [n for n in report.notes if n.kind == CPU] == []
    inputs = {"x": np.arange(10, dtype=np.float32).reshape(2, 5), "lengths": np.array([2, 3])}
    got = ir.read_model(xml).run(inputs)
    want = ov_models.run_openvino(xml, inputs)
    assert list(got) == list(want)
    for name, array in want.items():
        np.testing.assert_array_equal(got[name], array, err_msg=name)


def test_a_squeeze_of_a_dim_that_may_not_be_1_is_taken_as_declared(tmp_path: Path) -> None:
    # torch.stack(x.unbind(1)[:3], 1) traced on [6,4,2]: a Split into 4, each part squeezed.
    # Converted on [6..8,1..8,..6], OpenVINO declares each Squeeze's output with dim 1 gone,
    # yet its CPU plugin keeps a dim of 2 at 8 rows (a hunt's find; docs/ir.md). datamove takes
    # such a Squeeze as declared (it computes one only of dims known to be 1), and the
    # Unsqueeze after it from that.
    fn = lambda x: torch.stack(x.unbind(1)[:3], 1)  # noqa: E731
    dims = [ov.Dimension(6, 8), ov.Dimension(1, 8), ov.Dimension(0, 6)]
    xml = torch_models.convert_fn(fn, (6, 4, 2), dims, tmp_path)
    assert ov_models.openvino_shapes(xml) == {"y0": "[6..8,3,..6]"}
    report = ir.read_model(xml).check()
    assert report.ok, report.problems
    assert [str(s) for s, _ in report.outputs.values()] == ["[?,3,?]"]
    got = ov_models.run_openvino(xml, {"x": np.zeros((6, 8, 2), np.float32)})
    assert got["y0"].shape == (6, 6, 2)  # outside what OpenVINO declares: (6, 3, 2) in PyTorch


@pytest.mark.parametrize(
    ("fn", "dims", "sizes"),
    [
        (lambda x: x[-5:3], [ov.Dimension(5, 6), 2], [(5, 2), (6, 2)]),
        (lambda x: x[:, -9:2], [2, ov.Dimension(5, 10)], [(2, 5), (2, 7), (2, 10)]),
    ],
    ids=["x[-5:3] on [5..6,2]", "x[:, -9:2] on [2,5..10]"],
)
def test_openvino_cpu_refuses_a_slice_whose_interval_it_makes_empty(
    tmp_path: Path, fn: Any, dims: list[Any], sizes: list[tuple[int, ...]]
) -> None:
    # IR-6 (docs/semantics.md), found by the hunt: a start counting from the end on an interval
    # dim. OpenVINO takes the slice's length at each end of the interval (3 at 5 rows, 2 at 6),
    # an empty interval it writes as -1; its CPU plugin then refuses every size, where its
    # reference evaluate, PyTorch and datamove give the rows
    xml = torch_models.convert_fn(
        fn, tuple(d if isinstance(d, int) else d.get_max_length() for d in dims), dims, tmp_path
    )
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok, report.problems
    ((shape, _),) = report.outputs.values()
    for size in sizes:
        x = np.arange(np.prod(size), dtype=np.float32).reshape(size)
        want = fn(torch.from_numpy(x)).numpy()
        assert want.shape in shape
        np.testing.assert_array_equal(model.run({"x": x})["y0"], want)
        (evaluated,) = openvino_oracle.evaluate_ir(xml, {"x": x})
        np.testing.assert_array_equal(evaluated, want)
        with pytest.raises(openvino_oracle.OpenVINOError, match="Can not clone with new dims"):
            ov_models.run_openvino(xml, {"x": x})


def _split_of_a_slice_of_size_0_or_1(tmp_path: Path) -> Path:
    """``x[0:-2:-2]`` on ``[?]`` (size 1 at size 1, else 0), then Split by 2: OpenVINO infers
    the slice as ``?`` and builds the Split; datamove infers ``..1``."""
    ops = ov_models.ops8
    x = ops.parameter([-1], np.float32, name="x")
    cut = ops.slice(x, np.array([0]), np.array([-2]), np.array([-2]))
    parts = ops.split(cut, 0, 2)
    model = ov.Model([ops.result(o) for o in parts.outputs()], [x], "m")
    return ov_models.save(model, tmp_path)


def test_a_split_openvino_builds_on_its_looser_interval_runs_where_the_size_is_0(
    tmp_path: Path,
) -> None:
    # A hunt's find: datamove applied OpenVINO's "interval maximum >= num_splits" rule
    # (divergence 14) to its own tighter interval, ..1, and refused to run a model OpenVINO
    # builds and runs at every size but 1.
    xml = _split_of_a_slice_of_size_0_or_1(tmp_path)
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok, report.problems
    assert [str(shape) for shape, _ in report.outputs.values()] == ["[0]", "[0]"]
    assert model.check({"x": "[?]"}).ok  # the declared shape again: as OpenVINO infers it
    # New shapes: OpenVINO infers again, so the file's ports no longer say what it sees, and
    # datamove keeps the rule on its own interval (OpenVINO, looser, builds this one).
    assert not model.check({"x": "[1..]"}).ok
    assert model.check({"x": [5]}).ok
    for n in (0, 2, 5):
        inputs = {"x": np.zeros(n, np.float32)}
        want = ov_models.run_openvino(xml, inputs)
        for _ in range(3):  # checked, then the shape plan
            got = model.run(inputs)
            assert [a.shape for a in got.values()] == [a.shape for a in want.values()] == [(0,)] * 2
    with pytest.raises(openvino_oracle.OpenVINOError):
        ov_models.run_openvino(xml, {"x": np.zeros(1, np.float32)})
    with pytest.raises(ir.IRError, match=r"failed at run time: Split: num_splits=2 must divide"):
        model.run({"x": np.zeros(1, np.float32)})


def test_a_split_whose_declared_input_breaks_the_interval_rule_is_still_refused(
    tmp_path: Path,
) -> None:
    # The near miss: the file declares the Split's input as OpenVINO would then infer it, ..1,
    # so OpenVINO refuses the Split as before.
    xml = _split_of_a_slice_of_size_0_or_1(tmp_path)
    text = xml.read_text()
    split = text.index('type="Split"')
    dim = text.index("<dim>-1</dim>", split)
    xml.write_text(text[:dim] + "<dim>0..1</dim>" + text[dim + len("<dim>-1</dim>") :])
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_type) == ("operator", "Split")
    rule = "num_splits=2 is larger than the interval maximum of data.shape[0]=..1"
    assert rule in problem.message
    with pytest.raises(ir.IRError, match="cannot run: Split: num_splits=2 is larger"):
        model.run({"x": np.zeros(0, np.float32)})
