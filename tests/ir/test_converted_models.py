"""Models converted from PyTorch by ``openvino.convert_model``: Python slicing becomes Slice-8,
``torch.cat`` Concat-1, ``torch.split`` and ``chunk`` (Variadic)Split. datamove checks and runs them
as OpenVINO does, on static and dynamic inputs, and writes them back for OpenVINO to run."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from test_slice_models import _arange, _assert_same, _planned

from datamove import ir
from datamove.cli import main

ov_models = pytest.importorskip("ov_models")
torch = pytest.importorskip("torch")
ov = ov_models.ov

pytestmark = pytest.mark.openvino


class _Module(torch.nn.Module):
    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: Any) -> Any:
        return self.fn(x)


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
    example = torch.zeros(SHAPES[0])
    shape = ov.PartialShape([-1, -1, -1] if dynamic else list(SHAPES[0]))
    with warnings.catch_warnings():  # convert_model traces, which torch 2.13 deprecates
        warnings.filterwarnings("ignore", r"`torch\.jit\.trace", DeprecationWarning)
        converted = ov.convert_model(_Module(fn), example_input=example, input=[shape])
    converted.inputs[0].get_tensor().set_names({"x"})
    for k, out in enumerate(converted.outputs):  # convert_model names none of them
        out.get_tensor().set_names({f"y{k}"})
    return ov_models.save(converted, tmp_path)


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


def test_check_names_only_the_layers_datamove_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # x[:, : x.shape[1] // 2] on a dynamic shape: ShapeOf, Gather, Divide... compute the stop.
    # Those are reported unsupported; the Slice they feed is checked with its stop unknown.
    xml = _convert(lambda x: x[:, : x.shape[1] // 2], tmp_path, dynamic=True)
    report = ir.read_model(xml).check()
    kinds = {(p.kind, p.layer_type) for p in report.problems}
    assert kinds == {
        ("unsupported", t) for t in ("ShapeOf", "Gather", "Divide", "Floor", "Reshape")
    }
    assert [str(s) for s, _ in report.outputs.values()] == ["[?,?,?]"]
    report = ir.read_model(xml).check({"x": "[2,4,6]"})  # the stop unknown: 0 to 4 rows
    assert [str(s) for s, _ in report.outputs.values()] == ["[2,..4,6]"]
    assert main(["check", str(xml)]) == 1
    assert "(Slice)" not in capsys.readouterr().out
