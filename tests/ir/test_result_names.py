"""IR v11 Results' ``output_names``: the inputs and outputs named as OpenVINO 2026.4 names them.

A Result's ``output_names`` are names of the tensor it reads (OpenVINO adds them to that
tensor's): two Results of one tensor may share them, a Result of a Parameter names the input
too, and an empty ``output_names`` is none. ``openvino.save_model`` writes such files for a
model that returns an input as it is, or one tensor twice.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datamove import ir

X = np.arange(8, dtype=np.float32).reshape(2, 4)


def _port(pid: int, names: str | None, dims: list[int]) -> str:
    named = f' names="{names}"' if names is not None else ""
    dim_text = "".join(f"<dim>{d}</dim>" for d in dims)
    return f'<port id="{pid}" precision="FP32"{named}>{dim_text}</port>'


def _model(
    tmp_path: Path, x: str, parts: tuple[str, str], results: list[tuple[str, str | None]]
) -> Path:
    """x [2,4] (tensor names ``x``) -> Split in 2 (``parts``: each part's names) and one Result
    per ``(source, output_names)``: source ``x``, ``t0`` or ``t1``; ``None`` writes none."""
    layers = [
        (
            '<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2,4" '
            f'element_type="f32"/><output>{_port(0, x, [2, 4])}</output></layer>'
        ),
        (
            '<layer id="1" name="axis" type="Const" version="opset1"><data element_type="i64" '
            'shape="" offset="0" size="8"/><output><port id="0" precision="I64"/></output></layer>'
        ),
        (
            '<layer id="2" name="split" type="Split" version="opset1"><data num_splits="2"/>'
            f'<input>{_port(0, None, [2, 4])}<port id="1" precision="I64"/></input><output>'
            f"{_port(2, parts[0], [2, 2])}{_port(3, parts[1], [2, 2])}</output></layer>"
        ),
    ]
    edges = [(0, 0, 2, 0), (1, 0, 2, 1)]
    for k, (source, names) in enumerate(results):
        attr = f' output_names="{names}"' if names is not None else ""
        dims = [2, 4] if source == "x" else [2, 2]
        layers.append(
            f'<layer id="{3 + k}" name="r{k}" type="Result" version="opset1"{attr}><input>'
            f"{_port(0, None, dims)}</input></layer>"
        )
        edges.append((*{"x": (0, 0), "t0": (2, 2), "t1": (2, 3)}[source], 3 + k, 0))
    edge_text = "".join(
        f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
        for a, b, c, d in edges
    )
    path = tmp_path / "m.xml"
    path.write_text(
        f'<?xml version="1.0"?><net name="m" version="11"><layers>{"".join(layers)}</layers>'
        f"<edges>{edge_text}</edges></net>",
        encoding="utf-8",
    )
    path.with_suffix(".bin").write_bytes(np.int64(1).tobytes())
    return path


# (x's names, the parts' names, the Results) -> (input names, output names), OpenVINO 2026.4's
CASES = [
    pytest.param("x", ("t", "u"), [("x", "x")], ["x"], ["x"], id="an input returned as it is"),
    pytest.param("x", ("t", "u"), [("x", "a")], ["a"], ["a"], id="an input returned as 'a'"),
    pytest.param(
        "x", ("t", "u"), [("t0", "a"), ("t0", "a")], ["x"], ["a", "a"], id="one tensor twice"
    ),
    pytest.param(
        "x", ("t", "u"), [("t0", "a"), ("t1", "a")], ["x"], ["a", "a_1"], id="two tensors"
    ),
    pytest.param("x", ("t", "u"), [("t0", "")], ["x"], ["t"], id="empty output_names"),
    pytest.param(
        "x", ("t", "u"), [("t0", "a"), ("t0", "b")], ["x"], ["a", "b"], id="one tensor, 2 names"
    ),
    pytest.param(
        "x,a",
        ("x,a", "a"),
        [("t0", None), ("t0", "a"), ("t1", "b,a_1")],
        ["a"],
        ["a_1", "a_1", "a_1_1"],
        id="renamed alike for each Result",
    ),
    pytest.param(
        "",
        ("x", "a"),
        [("x", "x,a"), ("x", "a,b"), ("x", "b,a_1")],
        ["a"],
        ["a", "a", "a_1"],
        id="an unnamed input named by its Results",
    ),
    pytest.param(
        "x",
        ("x", "a,b"),
        [("t0", "x"), ("x", "x,a")],
        ["a"],
        ["x_1", "a"],
        id="an input's Result's name taken from another tensor",
    ),
]


@pytest.mark.parametrize(("x", "parts", "results", "inputs", "outputs"), CASES)
def test_result_output_names_are_names_of_the_tensor_read(
    tmp_path: Path,
    x: str,
    parts: tuple[str, str],
    results: list[tuple[str, str | None]],
    inputs: list[str],
    outputs: list[str],
) -> None:
    # Fixed: each Result's output_names were a tensor of their own (a Result of the input 'x'
    # named 'x' came out 'x_1', a second Result of a tensor 'a_1'), an empty one named the
    # output after the Result layer, and the input kept its names alone.
    path = _model(tmp_path, x, parts, results)
    model = ir.read_model(path)
    assert (list(model.inputs), model.outputs) == (inputs, outputs)
    out = model.run({inputs[0]: X})
    assert list(out) == list(dict.fromkeys(outputs))
    for (source, _), name in zip(results, outputs, strict=True):
        want = {"x": X, "t0": X[:, :2], "t1": X[:, 2:]}[source]
        np.testing.assert_array_equal(out[name], want)
    copy = tmp_path / "copy.xml"
    ir.save_model(model, copy)
    again = ir.read_model(copy)
    assert (list(again.inputs), again.outputs) == (inputs, outputs)


@pytest.mark.parametrize(("x", "parts", "results", "inputs", "outputs"), CASES)
def test_result_output_names_agree_with_openvino(
    tmp_path: Path,
    x: str,
    parts: tuple[str, str],
    results: list[tuple[str, str | None]],
    inputs: list[str],
    outputs: list[str],
) -> None:
    ov = pytest.importorskip("openvino")
    path = _model(tmp_path, x, parts, results)
    ov_model = ov.Core().read_model(str(path))
    assert [i.get_any_name() for i in ov_model.inputs] == inputs
    assert [o.get_any_name() for o in ov_model.outputs] == outputs
    copy = tmp_path / "copy.xml"
    ir.save_model(ir.read_model(path), copy)
    ov_copy = ov.Core().read_model(str(copy))
    assert [i.get_any_name() for i in ov_copy.inputs] == inputs
    assert [o.get_any_name() for o in ov_copy.outputs] == outputs


@pytest.mark.openvino
def test_openvino_s_own_files_of_an_input_returned_and_a_tensor_returned_twice(
    tmp_path: Path,
) -> None:
    pytest.importorskip("ov_models")
    import openvino as ov
    import openvino.opset1 as ops

    import openvino_oracle

    x = ops.parameter([2, 4], np.float32, name="x")
    parts = ops.split(x, ops.constant(np.int64(1)), 2)
    results = [ops.result(x), ops.result(parts.output(0)), ops.result(parts.output(0))]
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model(results, [x], "m"), str(path), compress_to_fp16=False)
    model = ir.read_model(path)
    ref = openvino_oracle.run_ir(path, {"x": X})
    assert model.outputs == [name for name, _ in ref]
    out = model.run({"x": X})
    for name, want in ref:
        np.testing.assert_array_equal(out[name], want)


# OpenVINO 2026.4 contradicts itself where Results of one tensor name it otherwise: its compiled
# model names each such output by the names of the last of them read, where read_model (and
# datamove) name each by its own. Elsewhere the two agree.
COMPILED = {
    "one tensor, 2 names": ["b", "b"],
    "an unnamed input named by its Results": ["a_1", "a_1", "a_1"],
}


@pytest.mark.openvino
@pytest.mark.parametrize(("x", "parts", "results", "inputs", "outputs"), CASES)
def test_the_compiled_model_s_names_differ_only_for_results_naming_one_tensor_otherwise(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    x: str,
    parts: tuple[str, str],
    results: list[tuple[str, str | None]],
    inputs: list[str],
    outputs: list[str],
) -> None:
    ov = pytest.importorskip("openvino")
    path = _model(tmp_path, x, parts, results)
    compiled = ov.Core().compile_model(str(path), "CPU")
    names = COMPILED.get(request.node.callspec.id, outputs)
    assert [o.get_any_name() for o in compiled.outputs] == names
    assert ir.read_model(path).outputs == outputs  # read_model's, each Result's own
