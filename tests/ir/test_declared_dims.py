"""Declared dims checked in both directions (issue 19): a port that declares dims excluding a
shape its layer really gives is a ``shape`` problem with a witness; one that declares dims looser
than datamove's is a note, shown by ``check -v``, not a problem.

The models are built with OpenVINO and saved with ``openvino.save_model``, so the declared dims
are OpenVINO's own interval inference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir
from datamove.cli import main
from ir_examples import write_unsound_example

ov_models = pytest.importorskip("ov_models")
openvino_oracle = pytest.importorskip("openvino_oracle")
ov = ov_models.ov
o1 = pytest.importorskip("openvino.opset1")
o8 = pytest.importorskip("openvino.opset8")

pytestmark = pytest.mark.openvino


def _const(values: list[int]) -> Any:
    return o1.constant(np.array(values, dtype=np.int64))


def _save(tmp_path: Path, node: Any, x: Any) -> Path:
    return ov_models.save(ov.Model([o1.result(node)], [x], "m"), tmp_path)


def _strided(tmp_path: Path) -> Path:
    # x[-5:-3:-1] on [?]: OpenVINO declares [0], but sizes 1 and 2 give one element
    x = o1.parameter(ov.PartialShape([-1]), np.float32, name="x")
    node = o1.strided_slice(x, _const([-5]), _const([-3]), _const([-1]), [0], [0])
    return _save(tmp_path, node, x)


def _slice8(tmp_path: Path) -> Path:
    # x[-4:-4:-1] on [?,4]: OpenVINO declares [0,4], but 1 to 3 rows give one row
    x = o1.parameter(ov.PartialShape([-1, 4]), np.float32, name="x")
    return _save(tmp_path, o8.slice(x, _const([-4]), _const([-4]), _const([-1])), x)


@pytest.mark.parametrize(
    ("build", "layer_type", "declared", "witness"),
    [
        (_strided, "StridedSlice", "[0]", ((1,), (1,))),
        (_slice8, "Slice", "[0,4]", ((1, 4), (1, 4))),
    ],
)
def test_declared_dims_that_exclude_a_real_shape_are_a_problem_with_a_witness(
    tmp_path: Path, build: Any, layer_type: str, declared: str, witness: Any
) -> None:
    xml = build(tmp_path)
    assert list(ov_models.openvino_shapes(xml).values()) == [declared]  # OpenVINO's own dims
    model = ir.read_model(xml)
    report = model.check()
    (problem,) = report.problems
    assert (problem.kind, problem.layer_type, problem.witness) == ("shape", layer_type, witness)
    given, out = witness
    assert f"declares {declared}, but data of shape {list(given)}".replace(" ", "") in (
        problem.message.replace(" ", "")
    )
    # The witness is real: datamove running the model at that size gives that shape, and so does
    # OpenVINO's own reference evaluation of the file.
    inputs = {"x": np.arange(np.prod(given), dtype=np.float32).reshape(given)}
    (got,) = model.run(inputs).values()
    assert got.shape == out
    (want,) = openvino_oracle.evaluate_ir(xml, inputs)
    np.testing.assert_array_equal(got, want)
    # --json carries it too, and check exits 1
    assert main(["check", str(xml), "--json"]) == 1


def test_the_witness_is_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = _strided(tmp_path)
    assert main(["check", str(xml), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (problem,) = data["problems"]
    assert problem["kind"] == "shape"
    assert problem["witness"] == {
        "input_shape": [1],
        "output_shape": [1],
        "input_shapes": [[1]],
        "model_inputs": None,
    }
    # an axis of size ? is not noted as one of 2**31 (S-8); the cut is IR-6's, declared [0]
    assert [n["message"].split(":")[0] for n in data["notes"]] == [
        "divergence IR-6 (docs/semantics.md)"
    ]


def test_a_layer_after_a_narrow_one_is_not_blamed(tmp_path: Path) -> None:
    # A Slice after the unsound StridedSlice: its declared input is [0] already, so only the
    # StridedSlice is the problem, not the layer that follows it.
    x = o1.parameter(ov.PartialShape([-1]), np.float32, name="x")
    first = o1.strided_slice(x, _const([-5]), _const([-3]), _const([-1]), [0], [0])
    xml = _save(tmp_path, o8.slice(first, _const([0]), _const([5]), _const([1])), x)
    problems = ir.read_model(xml).check().problems
    assert [p.layer_type for p in problems] == ["StridedSlice"]


def test_looser_declared_dims_are_a_note_not_a_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Split of 2..6 in 3: OpenVINO infers ..2 (docs/ir.md) and writes it as -1; datamove 1..2
    x = o1.parameter(ov.PartialShape([ov.Dimension(2, 6)]), np.float32, name="x")
    split = o1.split(x, o1.constant(np.int64(0)), 3)
    xml = ov_models.save(ov.Model([o1.result(p) for p in split.outputs()], [x], "m"), tmp_path)
    assert set(ov_models.openvino_shapes(xml).values()) == {"[..2]"}  # as OpenVINO reads it
    report = ir.read_model(xml).check()
    assert report.ok
    assert [(n.kind, n.layer_type, n.port) for n in report.notes] == [
        ("looser", "Split", 2),
        ("looser", "Split", 3),
        ("looser", "Split", 4),
    ]
    assert report.notes[0].message == "declares [?]; datamove infers [1..2]"
    assert main(["check", str(xml)]) == 0
    assert "looser" not in capsys.readouterr().out
    assert main(["check", str(xml), "-v"]) == 0
    out = capsys.readouterr().out
    assert "notes (declared dims looser than datamove's):" in out
    assert "(Split) port 2: declares [?]; datamove infers [1..2]" in out


def test_the_docs_unsound_example_is_what_openvino_writes(tmp_path: Path) -> None:
    # docs/cli.md's unsound.xml, written by hand: OpenVINO reads it with the same [0] and its
    # reference evaluation gives one element at the witness, as datamove does
    xml = write_unsound_example(tmp_path)
    assert list(ov_models.openvino_shapes(xml).values()) == ["[0]"]
    ours = ir.read_model(xml).check().problems
    theirs = ir.read_model(_strided(tmp_path)).check().problems
    assert [p.witness for p in ours] == [p.witness for p in theirs] == [((1,), (1,))]
    inputs = {"x": np.array([7.0], np.float32)}
    (want,) = openvino_oracle.evaluate_ir(xml, inputs)
    np.testing.assert_array_equal(ir.read_model(xml).run(inputs)["y"], want)
    assert want.shape == (1,)


# -- Concat: the sum along the axis, every input's declared dims ---------------------------------
def _concat(tmp_path: Path, a: Any, b: Any, dim: int, value: str) -> Path:
    """Concat on axis 0 of x of shape ``a`` and y of ``b``, its output's ``<dim>`` number ``dim``
    edited to ``value`` (a file OpenVINO did not write: its Concat inference is exact)."""
    x = o1.parameter(ov.PartialShape(a), np.float32, name="x")
    y = o1.parameter(ov.PartialShape(b), np.float32, name="y")
    model = ov.Model([o1.result(o1.concat([x, y], 0))], [x, y], "m")
    xml = ov_models.save(model, tmp_path)
    text = xml.read_text()
    begin = text.index('type="Concat"')
    at = text.index("<output>", begin)
    for _ in range(dim + 1):
        at = text.index("<dim>", at) + len("<dim>")
    xml.write_text(f"{text[:at]}{value}{text[text.index('</dim>', at) :]}")
    return xml


@pytest.mark.parametrize(
    ("a", "b", "dim", "value", "inputs", "output"),
    [
        # [?,3] and [2..5,3] give [2..,3]: a declared 4 rows excludes 2 (0 and 2 rows)
        ([-1, 3], [ov.Dimension(2, 5), 3], 0, "4", ((0, 3), (2, 3)), (2, 3)),
        # [1..2,3] and [1..2,3] give [2..4,3]: a declared 2 excludes 3 (2 and 1 rows)
        ([ov.Dimension(1, 2), 3], [ov.Dimension(1, 2), 3], 0, "2", ((2, 3), (1, 3)), (3, 3)),
        # [?,?] and [?,2..6]: a declared 2 columns excludes 3 (both inputs 3 columns)
        ([-1, -1], [-1, ov.Dimension(2, 6)], 1, "2", ((0, 3), (0, 3)), (0, 3)),
        # [...] and [2,3] give [2..,3]: a declared 3 rows excludes 2 (x of 0 rows); once a
        # ValidationError out of check(), from the search for a witness at x's shape
        (ov.PartialShape.dynamic(), [2, 3], 0, "3", ((0, 3), (2, 3)), (2, 3)),
    ],
)
def test_a_concat_declared_narrower_than_its_sum_has_a_witness(
    tmp_path: Path, a: Any, b: Any, dim: int, value: str, inputs: Any, output: Any
) -> None:
    xml = _concat(tmp_path, a, b, dim, value)
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_type) == ("shape", "Concat")
    assert (problem.witness, problem.witness_inputs) == ((inputs[0], output), inputs)
    shapes = ", ".join(str(list(s)).replace(" ", "") for s in inputs)
    assert f"but inputs of shapes {shapes} give {str(list(output)).replace(' ', '')}" in (
        problem.message
    )
    # The witness is real: OpenVINO's reference evaluation of the file gives that shape
    feeds = {n: np.zeros(s, np.float32) for n, s in zip("xy", inputs, strict=True)}
    (want,) = openvino_oracle.evaluate_ir(xml, feeds)
    assert want.shape == output
    (got,) = model.run(feeds).values()
    assert got.shape == output


def test_a_concat_whose_input_ports_disagree_off_the_axis_has_a_model_witness(
    tmp_path: Path,
) -> None:
    # x and y [?,?] on axis 0, the Concat's input ports edited to [?,3] and [?,4] and its
    # output to [?,5]: no inputs its ports allow meet off the axis, so the Concat's own witness
    # gives none; the search over the model's inputs finds one, and OpenVINO (which re-infers
    # [?,?]) gives that shape there
    xml = _concat(tmp_path, [-1, -1], [-1, -1], 1, "5")
    text = xml.read_text()
    begin = text.index('type="Concat"')
    at = text.index("<input>", begin)
    for value in ("3", "4"):  # the second dim of each input port
        at = text.index("<dim>", text.index("<dim>", at) + 1) + len("<dim>")
        text = f"{text[:at]}{value}{text[text.index('</dim>', at) :]}"
    xml.write_text(text)
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert (problem.kind, problem.layer_type) == ("shape", "Concat")
    assert problem.witness_inputs is None
    assert problem.model_inputs == {"x": (3, 3), "y": (3, 3)}
    assert "declares [?,5], but with input x of shape [3,3], y of shape [3,3] it gives [6,3]" in (
        problem.message
    )
    feeds = {n: np.zeros((3, 3), np.float32) for n in "xy"}
    (want,) = openvino_oracle.evaluate_ir(xml, feeds)
    ((_, got),) = model.run(feeds).items()
    assert want.shape == got.shape == (6, 3)


def test_a_concat_whose_declared_dims_hold_its_sum_is_ok(tmp_path: Path) -> None:
    xml = _concat(tmp_path, [ov.Dimension(1, 2), 3], [ov.Dimension(1, 2), 3], 0, "-1")
    assert ir.read_model(xml).check().ok


def _opaque(dims: list[Any], name: str) -> tuple[Any, Any]:
    """A Parameter of ``dims`` and its ReduceSum over axis 1 (kept): an opaque layer of no shape
    rule in datamove, that OpenVINO infers through and writes with ``-1`` for every interval,
    so the file loses what it knew."""
    x = o1.parameter(ov.PartialShape(dims), np.float32, name=name)
    return x, o1.reduce_sum(x, _const([1]), keep_dims=True)


def _slice_past_reduce(tmp_path: Path) -> Path:
    # [..2] rows after the ReduceSum, written [?,1]: x[-3:-2] is 0 rows on each, and OpenVINO
    # declares [0,1]; 3 rows would give one, but the ReduceSum never gives 3
    x, t = _opaque([ov.Dimension(0, 2), 4], "x")
    return _save(tmp_path, o8.slice(t, _const([-3]), _const([-2]), _const([1])), x)


def _concat_past_reduces(tmp_path: Path) -> Path:
    # [..2,1] and [2..5,1], each written [?,1]: OpenVINO declares their Concat on axis 1 [2,2]
    x, t = _opaque([ov.Dimension(0, 2), 4], "x")
    y, u = _opaque([ov.Dimension(2, 5), 4], "y")
    model = ov.Model([o1.result(o1.concat([t, u], 1))], [x, y], "m")
    return ov_models.save(model, tmp_path)


def _unsqueeze_cat_slice(tmp_path: Path) -> Path:
    # torch.cat([x[None], x[None]], 2)[..., 1:-2] on [5,4..9,..1], as convert_model writes it
    # (a hunt's find): the Unsqueeze is written [1,5,?,?], OpenVINO declares the slice
    # [1,5,?,0]; a last dim of 4 would give 1, but the Concat never gives more than 2
    x = o1.parameter(ov.PartialShape([5, ov.Dimension(4, 9), ov.Dimension(0, 1)]), np.float32)
    x.output(0).get_tensor().set_names({"x"})
    u = o1.unsqueeze(x, _const([0]))
    joined = o1.concat([u, u], 2)
    return _save(tmp_path, o8.slice(joined, _const([1]), _const([-2]), _const([1]), _const([3])), x)


@pytest.mark.parametrize(
    ("build", "sizes"),
    [
        (_slice_past_reduce, [{"x": (0, 4)}, {"x": (2, 4)}]),
        (_concat_past_reduces, [{"x": (2, 4), "y": (2, 4)}]),
        (_unsqueeze_cat_slice, [{"x": (5, 4, 0)}, {"x": (5, 9, 1)}]),
    ],
)
def test_past_an_opaque_layer_no_data_shape_alone_is_a_witness(
    tmp_path: Path, build: Any, sizes: list[dict[str, tuple[int, ...]]]
) -> None:
    # An opaque layer's output is taken as the file declares it, -1 where OpenVINO knew an
    # interval: a shape of it that the model's inputs never give is no witness (docs/ir.md)
    xml = build(tmp_path)
    report = ir.read_model(xml).check()
    assert report.ok, report.problems
    # and datamove's shapes hold what OpenVINO's reference evaluation gives
    for shapes in sizes:
        feeds = {n: np.zeros(s, np.float32) for n, s in shapes.items()}
        got = openvino_oracle.evaluate_ir(xml, feeds)
        for want, (shape, _) in zip(got, report.outputs.values(), strict=True):
            assert want.shape in shape
