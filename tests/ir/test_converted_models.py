"""Models converted from PyTorch by ``openvino.convert_model``: Python slicing becomes Slice-8,
``torch.cat`` Concat-1, ``torch.split`` and ``chunk`` (Variadic)Split. datamove checks and runs them
as OpenVINO does, on static and dynamic inputs, and writes them back for OpenVINO to run.

Real architectures (``torch_models.REAL``: GPT-2 attention, Swin patch merging, a
MatMul/Add/Softmax block, an LSTM cell, RoPE, a YOLO head, flips and narrow) mix data movement
with compute: datamove checks every data-movement layer and takes the others as the file declares
them (opaque), counted against OpenVINO's own op list."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import defusedxml.ElementTree as ET  # noqa: N817 - as the standard library's is named
import numpy as np
import pytest
from test_slice_models import _arange, _assert_same, _planned

from datamove import PartialShape, ir
from datamove.cli import main

ov_models = pytest.importorskip("ov_models")
torch = pytest.importorskip("torch")
openvino_oracle = pytest.importorskip("openvino_oracle")
ov = ov_models.ov

pytestmark = pytest.mark.openvino


def _swin_patch_merging(x: Any) -> Any:
    parts = [x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]]
    return torch.cat(parts, -1)


MODULES = {
    "x[:, 1:, ::2]": lambda x: x[:, 1:, ::2],
    "flip(x, [0])[:, ::2]": lambda x: torch.flip(x, [0])[:, ::2],
    "x.narrow(1, 1, 2)": lambda x: x.narrow(1, 1, 2),
    "x[..., -2:]": lambda x: x[..., -2:],
    "cat([x, x[:, :1]], 1)": lambda x: torch.cat([x, x[:, :1]], 1),
    "swin patch merging": _swin_patch_merging,
    "cat((x[..., 2:], x[..., :2]), -1)": lambda x: torch.cat((x[..., 2:], x[..., :2]), -1),
    "split, cat": lambda x: torch.cat(torch.split(x, [1, 3], dim=1)[::-1], dim=1),
}
SHAPES = [(2, 4, 6), (1, 4, 4), (3, 4, 2), (2, 4, 8), (0, 4, 2)]  # dim 1: 4 for split([1, 3])


def _convert(fn: Any, tmp_path: Path, *, dynamic: bool) -> Path:
    dims = [-1, -1, -1] if dynamic else list(SHAPES[0])
    return torch_models.convert_fn(fn, SHAPES[0], dims, tmp_path)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(MODULES))
def test_converted_pytorch_slicing_runs_as_openvino(
    tmp_path: Path, name: str, dynamic: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _convert(MODULES[name], tmp_path, dynamic=dynamic)
    types = {t for t in ("Slice", "Concat") if f'type="{t}"' in xml.read_text()}
    assert types, "the converted model has a Slice or a Concat"
    assert main(["check", str(xml)]) == 0
    assert capsys.readouterr().out.endswith("OK: no problems found\n")
    model = ir.read_model(xml)
    copy = tmp_path / "copy.xml"
    ir.save_model(model, copy)  # datamove writes, OpenVINO reads and runs
    for shape in SHAPES if dynamic else SHAPES[:1]:
        inputs = {"x": _arange(shape)}
        want = ov_models.run_openvino(xml, inputs)
        for _ in range(3):  # the checked path, then the shape plan is made, then used
            _assert_same(model.run(inputs), want)
        _assert_same(ov_models.run_openvino(copy, inputs), want)
    assert _planned(model) == (len(SHAPES) if dynamic else 1)


def test_layers_that_compute_a_slice_bound_are_opaque(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # x[:, : x.shape[1] // 2] on a dynamic shape: ShapeOf, Gather, Divide... compute the stop.
    # They are opaque (taken as declared); the Slice they feed is checked with its stop unknown,
    # an Unknown of the length its port declares. With a static input shape they are folded
    # (docs/ir.md, "Shape subgraphs"): the stop is known, the output static.
    xml = _convert(lambda x: x[:, : x.shape[1] // 2], tmp_path, dynamic=True)
    report = ir.read_model(xml).check()
    assert report.ok
    assert report.checked == {"Reshape": 1, "Slice": 1}  # the Reshape: of the stop's value
    assert set(report.opaque) == {"ShapeOf", "Gather", "Divide", "Floor"}
    assert [str(s) for s, _ in report.outputs.values()] == ["[?,?,?]"]
    report = ir.read_model(xml).check({"x": "[2,4,6]"})  # the stop folded: 4 // 2 rows
    assert [str(s) for s, _ in report.outputs.values()] == ["[2,2,6]"]
    report = ir.read_model(xml).check({"x": "[2,?,6]"})  # ShapeOf of a dynamic dim: unknown
    assert [str(s) for s, _ in report.outputs.values()] == ["[2,?,6]"]
    assert main(["check", str(xml)]) == 0
    out = capsys.readouterr().out
    assert "checked 2 layers (Reshape 1, Slice 1); 4 opaque (" in out
    assert out.endswith("OK: no problems found\n")
    model = ir.read_model(xml)  # run folds the stop at each input's shape (docs/ir.md)
    for shape in SHAPES:
        inputs = {"x": _arange(shape)}
        _assert_same(model.run(inputs), ov_models.run_openvino(xml, inputs))


@pytest.mark.parametrize(
    ("fn", "dims"),
    [
        pytest.param(lambda x: torch.chunk(x, 3, -1), [-1, -1, 6], id="chunk(3, -1)"),
        pytest.param(
            lambda x: torch.cat(torch.chunk(x, 2, 1)[::-1], -1), [-1, 4, -1], id="chunk(2, 1)"
        ),
    ],
)
def test_run_takes_what_a_shape_subgraph_folds_to_on_every_input(
    fn: Any, dims: list[int], tmp_path: Path
) -> None:
    # The split lengths PyTorch's converter computes for chunk from ShapeOf are known on every
    # input the declared shape allows where the dim they read is static: `check` folds them,
    # and `run` takes them as constants rather than refusing the model for its ShapeOf (a
    # dynamic batch included).
    xml = torch_models.convert_fn(fn, SHAPES[0], dims, tmp_path)
    model = ir.read_model(xml)
    assert "ShapeOf" in model.check().opaque
    shapes = [s for s in SHAPES if s in PartialShape(dims)]
    for shape in shapes:
        inputs = {"x": _arange(shape)}
        want = ov_models.run_openvino(xml, inputs)
        for _ in range(3):  # the checked path, then the shape plan is made, then used
            _assert_same(model.run(inputs), want)
    # the lengths a Concat joins are known too, so the split is planned (fixed: it was not)
    assert _planned(model) == len(shapes)


# -- real architectures: data movement among compute (MatMul, Add, Softmax...) --------------------
torch_models = pytest.importorskip("torch_models")
REAL, MOVES, _convert_real = torch_models.REAL, torch_models.MOVES, torch_models.convert_real


def _openvino_counts(xml: Path) -> tuple[dict[str, int], dict[str, int]]:
    """The model's own op list, lower-case (the IR writes 'SoftMax' for Softmax): data-movement
    types, and the others (Parameter, Constant and Result are in neither)."""
    ops = Counter(op.get_type_name().lower() for op in ov.Core().read_model(xml).get_ordered_ops())
    for end in ("parameter", "constant", "result"):
        ops.pop(end, None)
    moves = {t.lower() for t in MOVES}
    return (
        {t: n for t, n in ops.items() if t in moves},
        {t: n for t, n in ops.items() if t not in moves},
    )


def _lower(counts: dict[str, int]) -> dict[str, int]:
    return {t.lower(): n for t, n in counts.items()}


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(REAL))
def test_real_models_check_their_data_movement(
    tmp_path: Path, name: str, dynamic: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _convert_real(name, tmp_path, dynamic=dynamic)
    assert main(["check", str(xml), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"]
    checked, opaque = _openvino_counts(xml)
    assert checked, "the model moves data"
    assert opaque, "the model computes"
    assert (_lower(report["checked"]), _lower(report["opaque"])) == (checked, opaque)
    assert main(["check", str(xml)]) == 0
    out = capsys.readouterr().out
    n, m = sum(checked.values()), sum(opaque.values())
    assert f"\nchecked {n} layer{'s' if n != 1 else ''} (" in out
    assert f"; {m} opaque (" in out
    assert out.endswith("OK: no problems found\n")

    model = ir.read_model(xml)
    inputs = {next(iter(model.inputs)): _arange(REAL[name][1])}
    if name == "flips and narrow":  # its opaque layers compute x.shape[1] - 2: folded, it runs
        got = model.run(inputs)
        if dynamic:  # IR-18: OpenVINO's CPU plugin fails on it; datamove runs it as PyTorch
            with pytest.raises(openvino_oracle.OpenVINOError, match="out-of-range dimension"):
                ov_models.run_openvino(xml, inputs)
            want = {"": REAL[name][0]()(torch.from_numpy(inputs["x"])).numpy()}
        else:
            want = ov_models.run_openvino(xml, inputs)
        for have, ref in zip(got.values(), want.values(), strict=True):  # the output is unnamed
            np.testing.assert_array_equal(have, ref)
        return
    with pytest.raises(ir.UnsupportedOperatorError) as info:  # datamove computes no MatMul
        model.run(inputs)
    assert info.value.layer_type is not None
    assert info.value.layer_type.lower() in opaque
    assert "cannot run: datamove does not compute" in str(info.value)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(REAL))
def test_a_wrong_dim_on_a_data_movement_layer_is_a_shape_problem(
    tmp_path: Path, name: str, dynamic: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each data-movement layer in turn: its first output dim that datamove infers as a number
    # is written one larger. (Dims that only the shape subgraph fixes, such as chunk's
    # split_lengths on a dynamic input, datamove knows by the subgraph's bounds.)
    xml = _convert_real(name, tmp_path, dynamic=dynamic)
    assert edit_each_move(xml, tmp_path, capsys), (
        "the model has a data-movement layer whose output dims datamove knows"
    )


def edit_each_move(xml: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    """Edit each data-movement layer's first known output dim in a copy; each copy must have
    exactly one problem, a ``shape`` problem on that layer and port. The number of copies."""
    text = xml.read_text()
    inferred = ir.read_model(xml).check().ports
    edited = 0
    for layer in ET.fromstring(text).iter("layer"):
        if layer.get("type") not in MOVES:
            continue
        lid = layer.get("id") or ""
        spot = next(
            (
                (int(port.get("id") or 0), i)
                for port in layer.iterfind("output/port")
                for i, dim in enumerate(inferred[(lid, int(port.get("id") or 0))].dims)
                if dim.is_static
            ),
            None,
        )
        if spot is None:
            continue
        pid, i = spot
        # The layer's text, its output port, the dim: only that <dim> changes.
        begin = text.index(f'<layer id="{lid}"')
        end = text.index("</layer>", begin)
        at = text.index(f'<port id="{pid}"', text.index("<output>", begin, end), end)
        for _ in range(i + 1):
            at = text.index("<dim>", at, end) + len("<dim>")
        close = text.index("</dim>", at)
        copy = tmp_path / f"edited{lid}.xml"
        copy.write_text(f"{text[:at]}{int(text[at:close]) + 1}{text[close:]}")
        shutil.copyfile(xml.with_suffix(".bin"), copy.with_suffix(".bin"))
        problems = ir.read_model(copy).check().problems
        assert [(p.kind, p.layer_id, p.port) for p in problems] == [("shape", lid, pid)], problems
        assert main(["check", str(copy)]) == 1
        assert "\n1 problem:\n" in capsys.readouterr().out
        edited += 1
    return edited
