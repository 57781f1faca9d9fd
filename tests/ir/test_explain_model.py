"""``datamove explain MODEL.xml``: each data-movement layer of a model as NumPy on ``x``.

On converted PyTorch models (static), each expression evaluated on an array of the layer's
declared input shape gives the declared output shape and what datamove's operator gives; on
dynamic ones it holds at every size, or says what is known only at run time. A Concat's
``np.concatenate`` is evaluated on ``x0``, ``x1``... of its inputs' shapes, and each input's
part of the output (``out[:, 2:]``) must give that input back."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from test_converted_models import MODULES, REAL, _convert, _convert_real
from test_run_refuses import _one_op, _write

import datamove as dm
from datamove import ir
from datamove._errors import ValidationError
from datamove._shape import PartialShape
from datamove.cli import main
from datamove.ir._ops import runner
from strategies import fixed_settings, shape_text

ov_models = pytest.importorskip("ov_models")
openvino_oracle = pytest.importorskip("openvino_oracle")
ov = ov_models.ov
o1 = pytest.importorskip("openvino.opset1")
o8 = pytest.importorskip("openvino.opset8")
o15 = pytest.importorskip("openvino.opset15")
onnx_graphs = pytest.importorskip("onnx_graphs")

pytestmark = pytest.mark.openvino


def _explained(xml: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["explain", str(xml), "--json"]) == 0
    layers: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return layers


def _declared(xml: Path) -> dict[str, tuple[list[tuple[int, ...]], list[tuple[int, ...]]]]:
    """Layer id -> its declared input and output shapes (static models)."""
    graph = ir.read_model(xml)._graph
    return {
        x.id: ([p.shape.to_shape() for p in x.inputs], [p.shape.to_shape() for p in x.outputs])
        for x in graph.layers
    }


def _datamove(xml: Path, info: dict[str, Any], *xs: np.ndarray) -> tuple[Any, ...]:
    """The layer run alone by datamove's operator, on ``xs`` and its constant index inputs."""
    graph = ir.read_model(xml)._graph
    layer = next(x for x in graph.layers if x.id == info["layer_id"])
    consts = [np.asarray(v, dtype=np.int64) for v in info["values"].values()]
    return runner(layer, [None] * len(xs) + consts)([*xs, *consts])


def _arrays(info: dict[str, Any], shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    """The layer's data: ``x``, or a Concat's ``x0``, ``x1``... (each of other values)."""
    count = len(info["input_shapes"]) if "input_shapes" in info else 1
    start = 0
    out = []
    for shape in shapes[:count]:
        n = int(np.prod(shape))
        out.append(np.arange(start, start + n, dtype=np.float32).reshape(shape))
        start += n
    return out


def _evaluated(info: dict[str, Any], xs: list[np.ndarray]) -> list[np.ndarray]:
    """Each of the layer's expressions on ``xs``; a Concat's parts checked against its inputs."""
    texts = info["numpy"] if isinstance(info["numpy"], list) else [info["numpy"]]
    assert None not in texts, info
    scope = {"np": np, "x": xs[0]} | {f"x{k}": x for k, x in enumerate(xs)}
    got = [eval(text, scope) for text in texts]  # noqa: S307 - the expressions under test
    for x, part in zip(xs, info.get("parts", ()), strict=False):  # a Concat's
        np.testing.assert_array_equal(eval(part, scope | {"out": got[0]}), x)  # noqa: S307
    return got


def _check_static(xml: Path, capsys: pytest.CaptureFixture[str]) -> int:
    declared = _declared(xml)
    layers = _explained(xml, capsys)
    for info in layers:
        ins, outs = declared[info["layer_id"]]
        xs = _arrays(info, ins)
        want = _datamove(xml, info, *xs)
        got = _evaluated(info, xs)
        assert len(got) == len(outs) == len(want)
        for g, shape, w in zip(got, outs, want, strict=True):
            assert g.shape == shape, info
            np.testing.assert_array_equal(g, w)
        assert not info["runtime"]
    return len(layers)


@pytest.mark.parametrize("name", list(MODULES))
def test_static_converted_slicing_is_explained(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _convert(MODULES[name], tmp_path, dynamic=False)
    kinds = sum(f'type="{t}"' in xml.read_text() for t in ("Slice", "Split", "VariadicSplit"))
    assert _check_static(xml, capsys) >= kinds


@pytest.mark.parametrize("name", list(REAL))
def test_static_real_models_are_explained(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _convert_real(name, tmp_path, dynamic=False)
    assert _check_static(xml, capsys) >= 1


def _openvino_alone(
    xml: Path, info: dict[str, Any], xs: list[np.ndarray], tmp_path: Path
) -> list[Any]:
    """OpenVINO's reference evaluation of the layer alone: a copy of its node on Parameters of
    ``xs``' shapes, its index inputs the constants explain read (folded from shape subgraphs
    too), each of the element type the file gives it."""
    node = next(
        op
        for op in ov.Core().read_model(str(xml)).get_ordered_ops()
        if op.get_friendly_name() == info["name"]
    )
    params = [o8.parameter(list(x.shape), x.dtype, name=f"x{k}") for k, x in enumerate(xs)]
    consts = [
        o8.constant(np.array(value, dtype=node.input(k + 1).get_element_type().to_dtype()))
        for k, value in enumerate(info["values"].values())
    ]
    assert len(params) + len(consts) == node.get_input_size(), "every index input is known"
    for k, source in enumerate([*params, *consts]):  # the node rewired: nothing else feeds it
        node.input(k).replace_source_output(source.output(0))
    model = ov.Model([o8.result(out) for out in node.outputs()], params, "alone")
    model.validate_nodes_and_infer_types()
    path = ov_models.save(model, tmp_path, f"alone{info['layer_id']}")
    return openvino_oracle.evaluate_ir(path, {f"x{k}": x for k, x in enumerate(xs)})


@pytest.mark.parametrize("name", list(REAL))
def test_static_real_models_explain_as_openvino_runs_each_layer_alone(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each layer's expression on an array of its declared input shape gives its declared output
    # shapes and OpenVINO's values for that layer alone.
    xml = _convert_real(name, tmp_path, dynamic=False)
    declared = _declared(xml)
    layers = _explained(xml, capsys)
    assert layers
    for info in layers:
        ins, outs = declared[info["layer_id"]]
        xs = _arrays(info, ins)
        want = _openvino_alone(xml, info, xs, tmp_path)
        got = _evaluated(info, xs)
        assert len(got) == len(outs) == len(want)
        for g, shape, w in zip(got, outs, want, strict=True):
            assert g.shape == shape == w.shape, info
            np.testing.assert_array_equal(g, w)


def _sizes(shape: str) -> list[tuple[int, ...]]:
    """Static shapes inside a declared shape: each dynamic dim at 1, 2 and 5 (all at once)."""
    dims = PartialShape(shape).dims
    return [
        tuple(d.get_length() if d.is_static else size for d in dims)
        for size in (1, 2, 5)
        if all(d.is_static or size in d for d in dims)
    ]


@pytest.mark.parametrize("name", list(REAL))
def test_dynamic_real_models_are_explained(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # On a dynamic input every slicing parameter is known (folded, or by its bounds) or named;
    # each expression holds at sizes inside the declared input shape and gives an output
    # inside the declared output dims, with datamove's values for the layer.
    xml = _convert_real(name, tmp_path, dynamic=True)
    graph = ir.read_model(xml)._graph
    ports = {x.id: x for x in graph.layers}
    layers = _explained(xml, capsys)
    assert layers
    for info in layers:
        layer = ports[info["layer_id"]]
        texts = info["numpy"] if isinstance(info["numpy"], list) else [info["numpy"]]
        if info["runtime"]:  # a bound known only at run time is named, never guessed
            assert all(n in t for t in texts if t for n in info["runtime"]), info
            continue
        assert None not in texts, info
        declared = [_sizes(str(port.shape)) for port in layer.inputs]
        for k in range(min(map(len, declared))):  # each dynamic dim at one size, in every input
            xs = _arrays(info, [sizes[k] for sizes in declared])
            try:
                want = _datamove(xml, info, *xs)
            except ValidationError:
                continue  # a size the layer refuses (an uneven split, inputs that differ)
            for got, port, w in zip(_evaluated(info, xs), layer.outputs, want, strict=True):
                assert got.shape in port.shape, (texts, got.shape, port.shape)
                np.testing.assert_array_equal(got, w)


def test_a_static_expression_reads_as_pytorch_wrote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _convert(MODULES["x[:, 1:, ::2]"], tmp_path, dynamic=False)
    assert [i["numpy"] for i in _explained(xml, capsys)] == ["x[:, 1:, ::2]"]


@pytest.mark.parametrize("name", list(MODULES))
def test_dynamic_converted_slicing_holds_at_every_size(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _convert(MODULES[name], tmp_path, dynamic=True)
    for info in _explained(xml, capsys):
        texts = info["numpy"] if isinstance(info["numpy"], list) else [info["numpy"]]
        if info["runtime"] or None in texts or info["layer_type"] == "Concat":
            continue  # a Concat's inputs are not x: the real models' tests run it
        for shape in [(2, 4, 6), (1, 4, 4), (3, 4, 1), (0, 4, 9)]:
            x = np.arange(int(np.prod(shape))).reshape(shape).astype(np.float32)
            want = _datamove(xml, info, x)
            for text, w in zip(texts, want, strict=True):
                np.testing.assert_array_equal(eval(text, {"x": x}), w)  # noqa: S307


def test_a_bound_known_at_run_time_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _convert(lambda x: x[:, : x.shape[1] // 2], tmp_path, dynamic=True)
    (info,) = _explained(xml, capsys)
    (name,) = info["runtime"]
    assert info["numpy"] == f"x[:, :{name}]"
    assert info["runtime"][name].startswith("stop: layer ")
    assert main(["explain", str(xml)]) == 0
    out = capsys.readouterr().out
    assert f"  x[:, :{name}]\n" in out
    assert f"  {name} = stop: layer " in out


def _save(tmp_path: Path, out: Any, param: Any) -> Path:
    model = ov.Model([out], [param], "m")
    return ov_models.save(model, tmp_path)


def test_an_int32_sentinel_adds_the_short_form_below_2_31(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # PyTorch's frontend writes x.flip(1) as Slice(-1, -2**31, -1): x[:, ::-1] below 2**31 only
    xml = _convert(lambda x: x.flip(1), tmp_path, dynamic=True)
    (info,) = _explained(xml, capsys)
    assert (info["numpy"], info["numpy_below_2**31"]) == ("x[:, :-2147483648:-1]", "x[:, ::-1]")
    for shape in [(2, 4, 6), (1, 5, 1), (3, 1, 2), (2, 0, 3)]:
        x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        (want,) = ov_models.run_openvino(xml, {"x": x}).values()
        np.testing.assert_array_equal(x[:, ::-1], want)
    assert main(["explain", str(xml)]) == 0
    assert "  x[:, :-2147483648:-1]  (x[:, ::-1] on sizes below 2**31)\n" in capsys.readouterr().out


def test_a_sentinel_short_of_the_end_below_2_31_has_no_short_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # stop -2**31 + 1 leaves element 0 out on a size of 2**31 - 1: not x[::-1] there
    x = o8.parameter([-1], np.float32, name="x")
    xml = _save(tmp_path, o8.slice(x, _c8([-1]), _c8([-(2**31) + 1]), _c8([-1])), x)
    (info,) = _explained(xml, capsys)
    assert info["numpy"] == "x[:-2147483647:-1]"
    assert "numpy_below_2**31" not in info


def test_a_dynamic_strided_slice_is_its_parameters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = o1.parameter([-1, -1], np.float32, name="x")
    c = lambda v: o1.constant(np.array(v, np.int64))  # noqa: E731
    y = o1.strided_slice(x, c([0, 1]), c([0, 0]), c([1, 2]), [1, 0], [1, 1])
    xml = _save(tmp_path, y, x)
    (info,) = _explained(xml, capsys)
    assert info["numpy"] == "x[:, 1::2]"
    assert info["input_shape"] == "[?,?]"


def test_an_index_other_than_the_parameters_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # OpenVINO clamps begin=-5 to index 0 on a size of 1 or 2, where Python's x[-5:-3:-1] is
    # empty: explain said "no one NumPy index", but x[0:-3:-1] takes what it takes on every
    # size, as convert --to numpy writes it.
    x = o1.parameter([-1], np.float32, name="x")
    c = lambda v: o1.constant(np.array(v, np.int64))  # noqa: E731
    y = o1.strided_slice(x, c([-5]), c([-3]), c([-1]), [0], [0])
    xml = _save(tmp_path, y, x)
    (info,) = _explained(xml, capsys)
    assert (info["numpy"], info["note"]) == ("x[0:-3:-1]", None)
    datas = [np.arange(n, dtype=np.float32) for n in range(1, 8)]
    # OpenVINO's evaluate: its CPU plugin refuses sizes 1 and 2 (declared [..1], S-6); at size
    # 0 evaluate gives one element of nothing
    wants = openvino_oracle.evaluate_ir_each(xml, [{"x": d} for d in datas])
    for data, (want,) in zip(datas, wants, strict=True):
        np.testing.assert_array_equal(data[0:-3:-1], want)


def test_no_one_index_fits_every_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # On a size of 1 OpenVINO clamps begin=-2 to index 0; NumPy's x[-2::-2] is empty there, and
    # no other index takes x[0] at size 1 and x[1::-2] at size 3: convert's refusal, its witness.
    x = o1.parameter([-1], np.float32, name="x")
    c = lambda v: o1.constant(np.array(v, np.int64))  # noqa: E731
    y = o1.strided_slice(x, c([-2]), c([0]), c([-2]), [0], [1])
    xml = _save(tmp_path, y, x)
    (info,) = _explained(xml, capsys)
    assert info["numpy"] is None
    assert info["note"].startswith("shape [?] allows sizes 1..1 of axis 0, where -2::-2 selects")
    assert info["note"].endswith("(witness: shape [1])")


def test_model_explain_is_what_the_command_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # IR models had no .explain() (ONNX ones had): a user of the API reached for a private one
    x = o8.parameter([-1, 6], np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    y = o8.slice(x, c([-1]), c([-(2**63)]), c([-1]), c([1]))
    y.set_friendly_name("flip")
    xml = _save(tmp_path, y, x)
    model = ir.read_model(xml)
    assert [i["numpy"] for i in model.explain()] == ["x[:, ::-1]"]
    assert model.explain() == _explained(xml, capsys)
    assert model.explain("flip") == model.explain()
    with pytest.raises(ValidationError, match="flap"):
        model.explain("flap")


def test_layer_adds_the_full_explanation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = o8.parameter([2, 3, 4], np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    y = o8.slice(x, c([1, -1]), c([2, -5]), c([1, -2]), c([0, 2]))
    y.set_friendly_name("cut")
    xml = _save(tmp_path, y, x)
    assert main(["explain", str(xml), "--layer", "cut"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("layer ")
    assert "x[1:, :, ::-2]" in out
    assert "Slice on x of shape [2,3,4]" in out
    assert "elements taken (flat index; · = not taken):" in out


def test_layer_shows_a_strided_slice_with_its_masks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = o8.parameter([2, 3, 4], np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    y = o1.strided_slice(x, c([1, 0]), c([2, -1]), c([1, 2]), begin_mask=[0, 1], end_mask=[0, 0])
    y.set_friendly_name("cut")
    model = ov.Model([o1.result(y)], [x], "m")
    xml = ov_models.save(model, tmp_path)
    assert main(["explain", str(xml), "--layer", "cut"]) == 0
    out = capsys.readouterr().out
    assert "\nStridedSlice on x of shape [2,3,4]\n  begin=[1, 0] end=[2, -1] stride=[1, 2]\n" in out
    # one text for the layer's line and its NumPy line: :2:2 takes row 0 alone, :1
    assert out.startswith("layer 4 'cut' (StridedSlice): x [2,3,4] -> [1,1,4]\n  x[1:, :1]\n")
    assert "  begin_mask=[0, 1]\noutput shape: [1,1,4]\nNumPy:        x[1:, :1]\n" in out
    assert out.endswith("output order: 12 13 14 15\n")
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    (want,) = _openvino_outputs(tmp_path / "ov", model, [data])
    np.testing.assert_array_equal(data[1:, :1], want)


def test_as_writes_slice_and_split_layers_in_each_dialect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = o8.parameter([2, 3, 4], np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    cut = o8.slice(x, c([1]), c([2]), c([1]), c([0]))
    parts = o1.split(x, o8.constant(np.int64(2)), 2)
    model = ov.Model([o1.result(cut), *(o1.result(p) for p in parts.outputs())], [x], "m")
    assert main(["explain", str(ov_models.save(model, tmp_path)), "--as", "numpy,onnx"]) == 0
    out = capsys.readouterr().out
    assert (
        "  in other dialects:\n    numpy (a numpy function):\n"
        "      split(indices_or_sections=2, axis=2)\n    onnx (ONNX Split-18):\n"
        "      Split(axis=2, outputs=2, split=[2, 2])\n"
    ) in out
    assert (
        "  in other dialects:\n    numpy (NumPy basic indexing):\n      x[1:]\n"
        "    onnx (ONNX Slice-13, Unsqueeze, Squeeze, in order):\n"
        "      Slice(starts=[1], ends=[2], steps=[1], axes=[0])\n"
    ) in out
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    want = _openvino_outputs(tmp_path / "ov", model, [data])
    for got, w in zip([data[1:], *np.split(data, 2, axis=2)], want, strict=True):
        np.testing.assert_array_equal(got, w)


def test_as_says_a_layer_of_run_time_parameters_has_no_other_dialect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = o8.parameter([2, 3, 4], np.float32, name="x")
    b = o8.parameter([1], np.int64, name="b")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    y = o1.strided_slice(x, b, c([2]), c([1]), begin_mask=[0], end_mask=[0])
    y.set_friendly_name("cut")
    xml = ov_models.save(ov.Model([o1.result(y)], [x, b], "m"), tmp_path)
    assert main(["explain", str(xml), "--as", "numpy,onnx", "--json"]) == 0
    (info,) = json.loads(capsys.readouterr().out)
    assert info["runtime"] == {"b": "begin: layer 1 'b' (Parameter)"}
    why = {"error": "its parameters are known only at run time"}
    assert info["as"] == {"numpy": why, "onnx": why}


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = o8.parameter([4], np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    xml = _save(tmp_path, o8.slice(x, c([1]), c([3]), c([1])), x)
    assert main(["explain", str(xml), "--layer", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        "--layer='nope' names no Slice, StridedSlice, Split, VariadicSplit, Concat, Unsqueeze, "
        "Squeeze or Gather layer"
    ) in err
    bad = tmp_path / "bad.xml"
    bad.write_text("<net")
    assert main(["explain", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("datamove: error: ")
    assert err.count("\n") == 1
    assert main(["explain", str(tmp_path / "missing.xml")]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_operator_forms_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "split", "--shape", "6", "--axis", "0", "--num-splits", "2"]) == 0
    assert "output 1: [3]  = x[3:]" in capsys.readouterr().out
    assert main(["explain", "nonsense"]) == 2


def test_a_model_says_which_slices_are_the_identity_or_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Three Slice-8 layers on x: [?,2..10]: the whole input (INT64_MAX end), a reversal that
    # keeps the shape (not the identity: OpenVINO PR #1177, #38240), and one past every size.
    x = o8.parameter(ov.PartialShape([-1, ov.Dimension(2, 10)]), np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    whole = o8.slice(x, c([0]), c([2**63 - 1]), c([1]), c([1]))
    rev = o8.slice(x, c([-1]), c([-(2**63)]), c([-1]), c([1]))
    none = o8.slice(x, c([10]), c([20]), c([1]), c([1]))
    for node, name in ((whole, "whole"), (rev, "rev"), (none, "none")):
        node.set_friendly_name(name)
    model = ov.Model([whole, rev, none], [x], "m")
    xml = ov_models.save(model, tmp_path)
    got = {info["name"]: info.get("algebra") for info in _explained(xml, capsys)}
    assert got == {
        "whole": "identity: the output is x unchanged on every shape [?,2..10] allows",
        "rev": None,
        "none": "empty: the output has no element on every shape [?,2..10] allows",
    }
    assert main(["explain", str(xml)]) == 0
    out = capsys.readouterr().out
    assert out.count("  identity: the output is x unchanged") == 1
    assert out.count("  empty: the output has no element") == 1


# -- run-time parameters, dynamic splits, layers that fail -------------------------------------
def _c8(v: Any) -> Any:
    return o8.constant(np.array(v, np.int64))


def _i64(name: str, shape: list[int]) -> Any:
    return o8.parameter(shape, np.int64, name=name)


def _openvino_outputs(tmp_path: Path, model: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO's reference implementation (not the CPU plugin: it has known bugs) run."""
    names = [p.get_friendly_name() for p in model.get_parameters()]
    xml = ov_models.save(model, tmp_path)
    return list(openvino_oracle.evaluate_ir(xml, dict(zip(names, inputs, strict=True))))


def _explain_one(tmp_path: Path, model: Any, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    (info,) = _explained(ov_models.save(model, tmp_path), capsys)
    return info


@pytest.mark.parametrize(
    ("make", "text", "inputs"),
    [
        pytest.param(
            lambda x, n: o8.slice(x, _c8([1]), _c8([6]), n, _c8([1])),
            "x[:, 1:6:step]",
            [np.array([2])],
            id="slice step",
        ),
        pytest.param(
            lambda x, n: o1.strided_slice(
                x, n, _c8([0, 0, 0]), _c8([1, 1, 1]), [0, 1, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]
            ),
            "x[None, :, begin[2]]",
            [np.array([0, 0, -1])],
            id="strided new axis, keep, shrink",
        ),
        pytest.param(
            lambda x, n: o1.strided_slice(
                x, n, _c8([0, 0]), _c8([1, 1]), [0, 0], [0, 1], ellipsis_mask=[1, 0]
            ),
            "x[:, begin[1]:]",
            [np.array([0, 2])],
            id="strided ellipsis",
        ),
        # a start below -d with a negative step: OpenVINO starts at element 0 (docs/semantics.md,
        # S-1), NumPy takes nothing; so the start is written held to -d
        pytest.param(
            lambda x, n: o8.slice(x, n, _c8([-(2**63)]), _c8([-1]), _c8([1])),
            "x[:, max(begin, -x.shape[1])::-1]",
            [np.array([-10])],
            id="slice start below the size",
        ),
        pytest.param(
            lambda x, n: o1.strided_slice(x, n, _c8([0, 0]), _c8([1, -1]), [1, 0], [1, 1]),
            "x[:, max(begin[1], -x.shape[1])::-1]",
            [np.array([0, -10])],
            id="strided begin below the size",
        ),
    ],
)
def test_a_run_time_parameter_is_written_as_its_name(
    tmp_path: Path,
    make: Any,
    text: str,
    inputs: list[np.ndarray],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the name stands for the value the input has at run time; with it, the expression gives
    # what OpenVINO gives
    x = o8.parameter([-1, -1], np.float32, name="x")
    name = "step" if "step" in text else "begin"
    n = _i64(name, [len(inputs[0])])
    model = ov.Model([make(x, n)], [x, n], "m")
    info = _explain_one(tmp_path, model, capsys)
    assert info["numpy"] == text
    assert list(info["runtime"]) == [name]
    data = np.arange(21, dtype=np.float32).reshape(3, 7)
    (want,) = _openvino_outputs(tmp_path, model, [data, *inputs])
    expression = text.replace(name, f"{name}_")
    value = inputs[0][0] if len(inputs[0]) == 1 else inputs[0]  # a name of length 1: its element
    got = eval(expression, {"x": data, f"{name}_": value})  # noqa: S307
    np.testing.assert_array_equal(got, want)


def _dynamic_x() -> tuple[Any, list[Any], Callable[[str, list[int]], Any]]:
    """x of shape [?,?], the model's parameters so far, and a maker of i64 run-time inputs."""
    x = o8.parameter([-1, -1], np.float32, name="x")
    params = [x]

    def p(name: str, shape: list[int]) -> Any:
        params.append(_i64(name, shape))
        return params[-1]

    return x, params, p


@pytest.mark.parametrize(
    ("make", "note"),
    [
        pytest.param(
            lambda x, p: o8.slice(x, _c8([1]), _c8([6]), _c8([1]), p("n", [1])),
            "the axes it slices are known only at run time",
            id="slice axes",
        ),
        pytest.param(
            lambda x, p: o8.slice(x, p("a", [-1]), p("b", [-1]), p("c", [-1])),
            "the axes it slices are known only at run time",
            id="slice of no known length",
        ),
        pytest.param(
            lambda x, p: o1.strided_slice(x, p("a", [-1]), p("b", [-1]), p("c", [-1]), [], []),
            "the axes it slices are known only at run time",
            id="strided of no known length",
        ),
        pytest.param(
            lambda x, p: o1.split(x, p("n", []), 2),
            "the axis is known only at run time",
            id="split axis",
        ),
    ],
)
def test_where_the_axes_are_known_only_at_run_time_a_note_says_so(
    tmp_path: Path, make: Any, note: str, capsys: pytest.CaptureFixture[str]
) -> None:
    x, params, p = _dynamic_x()
    node = make(x, p)
    info = _explain_one(tmp_path, ov.Model(node.outputs(), params, "m"), capsys)
    assert info["note"] == note
    assert info["numpy"] in (None, [None] * len(node.outputs()))


@pytest.mark.parametrize(
    ("make", "texts", "inputs"),
    [
        pytest.param(
            lambda x, _p: o1.split(x, _c8(1), 2),
            ["x[:, :x.shape[1]//2]", "x[:, x.shape[1]//2:]"],
            [],
            id="split",
        ),
        pytest.param(
            lambda x, _p: o1.split(x, _c8(-1), 3),
            [
                "x[:, :x.shape[1]//3]",
                "x[:, x.shape[1]//3:x.shape[1]//3*2]",
                "x[:, x.shape[1]//3*2:]",
            ],
            [],
            id="split in 3",
        ),
        pytest.param(
            lambda x, p: o1.variadic_split(x, _c8(1), p("lens", [2])),
            ["x[:, :lens[0]]", "x[:, lens[0]:]"],
            [np.array([2, 4])],
            id="variadic run-time lengths",
        ),
        pytest.param(
            lambda x, _p: o1.variadic_split(x, _c8(1), _c8([1, -1, 0])),
            ["x[:, :1]", "x[:, 1:]", "x[:, x.shape[1]:]"],
            [],
            id="variadic -1 then 0",
        ),
    ],
)
def test_a_split_on_a_dynamic_dim_is_written_with_its_size(
    tmp_path: Path,
    make: Any,
    texts: list[str],
    inputs: list[np.ndarray],
    capsys: pytest.CaptureFixture[str],
) -> None:
    x, params, p = _dynamic_x()
    model = ov.Model(make(x, p).outputs(), params, "m")
    info = _explain_one(tmp_path, model, capsys)
    assert info["numpy"] == texts
    data = np.arange(18, dtype=np.float32).reshape(3, 6)
    want = _openvino_outputs(tmp_path, model, [data, *inputs])
    scope = {"x": data, "lens": inputs[0] if inputs else None}
    for text, w in zip(texts, want, strict=True):
        np.testing.assert_array_equal(eval(text, scope), w)  # noqa: S307


PART_LINE = re.compile(r"^  output (\d+): (\[[^\]]*\])(?:  = (.*))?$", re.MULTILINE)


@pytest.mark.parametrize(
    ("make", "shape", "size"),
    [
        pytest.param(lambda x: o1.split(x, _c8(1), 3), [-1, 6, -1], (2, 6, 3), id="split"),
        pytest.param(
            lambda x: o1.split(x, _c8(-1), 2),
            ov.PartialShape([-1, ov.Dimension(2, 5), 6]),
            (3, 4, 6),
            id="split, last axis, an interval",
        ),
        pytest.param(
            lambda x: o1.variadic_split(x, _c8(1), _c8([2, -1, 1])),
            [-1, 6],
            (3, 6),
            id="variadic -1",
        ),
        pytest.param(
            lambda x: o1.variadic_split(x, _c8(0), _c8([1, -1, 0])),
            [4, -1],
            (4, 2),
            id="variadic first axis, -1 then 0",
        ),
    ],
)
def test_a_split_on_a_static_axis_of_a_dynamic_shape_is_written_as_on_a_static_one(
    tmp_path: Path, make: Any, shape: Any, size: tuple[int, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    # The parts along a static axis are known whatever the other dims: each output's
    # expression is the static input's (x[:, 2:4], not x[:, 6//3:6//3*2]), and --layer prints
    # each part with its shape, which is OpenVINO's, and takes what OpenVINO's layer takes.
    x = o8.parameter(shape, np.float32, name="x")
    node = make(x)
    node.set_friendly_name("cut")
    model = ov.Model(node.outputs(), [x], "m")
    info = _explain_one(tmp_path, model, capsys)
    static = tmp_path / "static"
    static.mkdir()
    y = o8.parameter(list(size), np.float32, name="x")
    (want,) = _explained(ov_models.save(ov.Model(make(y).outputs(), [y], "m"), static), capsys)
    assert info["numpy"] == want["numpy"]
    xml = tmp_path / "model.xml"
    assert main(["explain", str(xml), "--layer", "cut"]) == 0
    parts = PART_LINE.findall(capsys.readouterr().out)
    declared = ov.Core().read_model(str(xml)).outputs
    assert [s for _, s, _ in parts] == [str(o.get_partial_shape()) for o in declared]
    data = np.arange(int(np.prod(size)), dtype=np.float32).reshape(size)
    outputs = _openvino_outputs(tmp_path, model, [data])
    for (_, _, text), summary, w in zip(parts, info["numpy"], outputs, strict=True):
        np.testing.assert_array_equal(eval(text, {"x": data}), w)  # noqa: S307
        np.testing.assert_array_equal(eval(summary, {"x": data}), w)  # noqa: S307


@pytest.mark.parametrize(
    ("make", "text", "ranks"),
    [
        pytest.param(lambda x: o8.slice(x, _c8([1]), _c8([3]), _c8([1])), "x[1:3]", [1, 3], id="0"),
        pytest.param(
            lambda x: o8.slice(x, _c8([-1]), _c8([-(2**63)]), _c8([-1]), _c8([-2])),
            "x[..., ::-1, :]",
            [2, 3],
            id="-2 reversed",
        ),
        pytest.param(
            lambda x: o1.strided_slice(
                x, _c8([0, 1]), _c8([0, 3]), _c8([1, 1]), [1, 0], [1, 0], [], [], [1, 0]
            ),
            "x[..., 1:3]",
            [1, 2, 4],
            id="strided ellipsis",
        ),
        # OpenVINO clamps a start of -3 to 0 on sizes 1 and 2, NumPy's x[-3::-1] takes nothing
        pytest.param(
            lambda x: o8.slice(x, _c8([-3]), _c8([-(2**63)]), _c8([-1])), None, [], id="clamping"
        ),
        pytest.param(
            lambda x: o8.slice(x, _c8([1]), o8.parameter([1], np.int64, name="n"), _c8([1])),
            None,
            [],
            id="run-time stop",
        ),
    ],
)
def test_a_slice_on_a_dynamic_rank_is_written_where_every_rank_takes_one_index(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Any], Any],
    text: str | None,
    ranks: list[int],
) -> None:
    x = o8.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    y = make(x)
    stop = y.input_value(2).get_node()  # a Parameter where the stop is known at run time
    params = [x, *([stop] if stop.get_type_name() == "Parameter" else [])]
    model = ov.Model([y], params, "m")
    info = _explain_one(tmp_path, model, capsys)
    assert info["numpy"] == text  # each was "the data's rank is unknown"
    assert info["note"] == (None if text else "the data's rank is unknown")
    for rank in ranks:  # OpenVINO's output, at every rank
        data = np.arange(5**rank, dtype=np.float32).reshape((5,) * rank)
        (want,) = _openvino_outputs(tmp_path, model, [data])
        np.testing.assert_array_equal(eval(text, {"x": data}), want)  # noqa: S307


@pytest.mark.parametrize(
    ("make", "texts", "ranks"),
    [
        pytest.param(
            lambda x: o8.split(x, _c8(0), 2),
            ["x[:x.shape[0]//2]", "x[x.shape[0]//2:]"],
            [1, 2, 3],
            id="split axis 0",
        ),
        pytest.param(
            lambda x: o8.split(x, _c8(-1), 3),
            [
                "x[..., :x.shape[-1]//3]",
                "x[..., x.shape[-1]//3:x.shape[-1]//3*2]",
                "x[..., x.shape[-1]//3*2:]",
            ],
            [1, 2, 4],
            id="split axis -1",
        ),
        pytest.param(
            lambda x: o8.variadic_split(x, _c8(-2), _c8([1, -1, 2])),
            ["x[..., :1, :]", "x[..., 1:-2, :]", "x[..., -2:, :]"],
            [2, 3, 4],
            id="variadic split axis -2",
        ),
        pytest.param(
            lambda x: o8.variadic_split(x, _c8(1), _c8([2, 4])),
            ["x[:, :2]", "x[:, 2:]"],
            [2, 3],
            id="variadic split axis 1",
        ),
    ],
)
def test_a_split_on_a_dynamic_rank_is_the_same_index_at_every_rank(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Any], Any],
    texts: list[str],
    ranks: list[int],
) -> None:
    x = o8.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    model = ov.Model(make(x).outputs(), [x], "m")
    info = _explain_one(tmp_path, model, capsys)
    assert (info["numpy"], info["note"]) == (texts, None)
    for rank in ranks:  # the index takes each output at every rank (the sizes the split allows)
        data = np.arange(6**rank, dtype=np.float32).reshape((6,) * rank)
        outputs = _openvino_outputs(tmp_path, model, [data])
        for text, want in zip(texts, outputs, strict=True):
            np.testing.assert_array_equal(eval(text, {"x": data}), want)  # noqa: S307


def test_a_shrink_and_a_new_axis_hold_at_every_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # x[None, 1] on x: [?,?]: the shrink index 1 is taken at every size with more than 1
    # element; at sizes 0 and 1 the layer fails, as OpenVINO does
    x = o8.parameter([-1, -1], np.float32, name="x")
    y = o1.strided_slice(x, _c8([0, 1]), _c8([0, 2]), _c8([1, 1]), [0, 0], [0, 0], [1, 0], [0, 1])
    model = ov.Model([y], [x], "m")
    info = _explain_one(tmp_path, model, capsys)
    assert info["numpy"] == "x[None, 1]"
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    (want,) = _openvino_outputs(tmp_path, model, [data])
    np.testing.assert_array_equal(data[None, 1], want)


def test_a_broken_mask_is_the_note_with_run_time_parameters_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two ellipses: OpenVINO refuses the layer; explain says why, as check() does, though the
    # begin is known only at run time
    x = o8.parameter([-1, -1], np.float32, name="x")
    begin = _i64("begin", [2])
    y = o1.strided_slice(x, begin, _c8([0, 0]), _c8([1, 1]), [0, 0], [0, 0], ellipsis_mask=[1, 0])
    xml = ov_models.save(ov.Model([y], [x, begin], "m"), tmp_path)
    xml.write_text(xml.read_text().replace('ellipsis_mask="1, 0"', 'ellipsis_mask="1, 1"'))
    with pytest.raises(RuntimeError, match="ellipsis"):
        ov.Core().read_model(xml)
    (info,) = _explained(xml, capsys)
    assert info["numpy"] is None
    assert "ellipsis_mask" in info["note"], info["note"]


def test_a_broken_mask_on_a_dynamic_shape_is_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two ellipses with every parameter constant, on a dynamic shape: the layer fails at every
    # size, and explain says why (as check() and a static shape do), not that no one index fits
    x = o8.parameter([-1, -1], np.float32, name="x")
    c = _c8([0, 0])
    y = o1.strided_slice(x, c, c, _c8([1, 1]), [0, 0], [0, 0], ellipsis_mask=[1, 0])
    xml = ov_models.save(ov.Model([y], [x], "m"), tmp_path)
    xml.write_text(xml.read_text().replace('ellipsis_mask="1, 0"', 'ellipsis_mask="1, 1"'))
    with pytest.raises(RuntimeError, match="ellipsis"):
        ov.Core().read_model(xml)
    (problem,) = ir.read_model(xml).check().problems
    (info,) = _explained(xml, capsys)
    assert info["numpy"] is None
    assert "ellipsis_mask" in info["note"], info["note"]
    assert info["note"] in problem.message, (info["note"], problem.message)


def test_a_static_layer_that_fails_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # split lengths of sum 6 on a data input of size 7 (the file edited): OpenVINO refuses it
    x = o8.parameter([6], np.float32, name="x")
    model = ov.Model(o1.variadic_split(x, _c8(0), _c8([2, 4])).outputs(), [x], "m")
    xml = ov_models.save(model, tmp_path)
    text = xml.read_text()
    start = text.index('type="Parameter"')
    end = text.index("</layer>", start)
    xml.write_text(text[:start] + text[start:end].replace("6", "7") + text[end:])
    with pytest.raises(RuntimeError):
        ov.Core().read_model(xml)
    (info,) = _explained(xml, capsys)
    assert info["numpy"] == [None, None]
    # the operator, argument, value and rule, as check() says it; once the rule alone
    assert info["note"].startswith("VariadicSplit: split_lengths="), info["note"]
    assert info["note"].endswith(" sum to 6, but data.shape[0] is 7"), info["note"]


@pytest.mark.parametrize(
    ("model", "rule"),
    [
        pytest.param(
            _one_op("Split", [("i64", [2], [1, 1])], 'num_splits="2"', [[2, 3]] * 2),
            "Split: axis=[1, 1] must be a scalar, but has shape [2]",
            id="split",
        ),
        pytest.param(
            _one_op(
                "VariadicSplit", [("i64", [2], [1, 1]), ("i64", [2], [2, 4])], "", [[2, 2], [2, 4]]
            ),
            "VariadicSplit: axis=[1, 1] must be a scalar or of shape [1], but has shape [2]",
            id="variadic_split",
        ),
    ],
)
def test_a_constant_axis_of_two_values_is_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: tuple[str, bytes], rule: str
) -> None:
    # The layer's plan took a constant axis that is not one integer for one known only at run
    # time: explain said so. It is the operator's rule, as check() refuses the layer.
    xml = _write(tmp_path, *model)
    (info,) = _explained(xml, capsys)
    assert info["numpy"] == [None, None]
    assert info["note"].startswith(rule), info["note"]
    op = rule.partition(":")[0]  # check() names the axis's shape: "axis='[2]' must be..."
    assert any(p.message.startswith(f"{op}: axis=") for p in ir.read_model(xml).check().problems)


@pytest.mark.parametrize(
    ("model", "rule"),
    [
        pytest.param(
            _one_op("Split", [("f32", [], [1.0])], 'num_splits="2"', [[2, 3]] * 2),
            "Split: axis='f32' must be of an integer element type",
            id="split_axis",
        ),
        pytest.param(
            _one_op(
                "VariadicSplit", [("f32", [], [1.0]), ("i64", [2], [2, 4])], "", [[2, 2], [2, 4]]
            ),
            "VariadicSplit: axis=1.0 must be an integer, not a float",
            id="variadic_split_axis",
        ),
        pytest.param(
            _one_op(
                "VariadicSplit", [("i64", [], [1]), ("f32", [2], [2, 4])], "", [[2, 2], [2, 4]]
            ),
            "VariadicSplit: split_lengths=[2.0, 4.0] holds a float at index 0; integers only",
            id="variadic_split_lengths",
        ),
        pytest.param(
            _one_op("Squeeze", [("f32", [1], [0.0])], "", [[6]]),
            "Squeeze: axes='f32' must be of an integer element type",
            id="squeeze_axes",
        ),
    ],
)
def test_a_float_constant_is_check_s_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: tuple[str, bytes], rule: str
) -> None:
    # explain reads integer constants only: one of floats was named as a value known at run
    # time ("the axis is known only at run time"), or written as one (x[:, :c1[0]]).
    xml = _write(tmp_path, *model)
    (info,) = _explained(xml, capsys)
    assert info["note"] == rule
    assert info["numpy"] in (None, [None, None])
    assert info["runtime"] == {}
    assert rule in [p.message for p in ir.read_model(xml).check().problems]


@pytest.mark.parametrize(
    ("model", "rule"),
    [
        pytest.param(
            _one_op("Split", [("u64", [], [2**64 - 1])], 'num_splits="2"', [[2, 3]] * 2),
            "Split: axis=18446744073709551615 does not fit in int64",
            id="split",
        ),
        pytest.param(
            _one_op(
                "VariadicSplit",
                [("u64", [], [2**64 - 1]), ("i64", [2], [2, 4])],
                "",
                [[2, 2], [2, 4]],
            ),
            "VariadicSplit: axis=18446744073709551615 does not fit in int64",
            id="variadic_split",
        ),
        pytest.param(
            _one_op("Squeeze", [("u64", [1], [2**64 - 1])], "", [[2, 6]]),
            "Squeeze: axes=[18446744073709551615] must each lie in [-2, 1]",
            id="squeeze",
        ),
        pytest.param(
            _one_op(
                "StridedSlice",
                [("u64", [1], [2**64 - 1]), ("i64", [1], [5]), ("i64", [1], [1])],
                'begin_mask="0" end_mask="0"',
                [[0, 6]],
            ),
            "StridedSlice: begin=[18446744073709551615] holds 18446744073709551615, which does "
            "not fit in int64",
            id="strided_slice",
        ),
    ],
)
def test_a_u64_constant_past_int64_is_check_s_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: tuple[str, bytes], rule: str
) -> None:
    # explain handed the plan its constants as int64: a u64 one past INT64_MAX raised
    # OverflowError out of `datamove explain`. The plan now raises the rule check reports.
    xml = _write(tmp_path, *model)
    (info,) = _explained(xml, capsys)
    assert info["note"].startswith(rule), info["note"]
    assert info["numpy"] in (None, [None, None])
    assert any(p.message.startswith(rule) for p in ir.read_model(xml).check().problems)


def test_a_slice_of_axes_listed_twice_is_the_note_with_run_time_parameters_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # axes [2, -1] name axis 2 twice (the file's constant edited): OpenVINO refuses the
    # layer; explain says why, though the start is known only at run time
    x = o8.parameter([-1, -1, -1], np.float32, name="x")
    start = _i64("start", [2])
    y = o8.slice(x, start, _c8([7, 7]), _c8([1, 1]), _c8([0, 2]))
    xml = ov_models.save(ov.Model([y], [x, start], "m"), tmp_path)
    data = xml.with_suffix(".bin").read_bytes()
    axes = np.array([0, 2], np.int64).tobytes()
    assert data.count(axes) == 1
    xml.with_suffix(".bin").write_bytes(data.replace(axes, np.array([2, -1], np.int64).tobytes()))
    with pytest.raises(RuntimeError, match="unique"):
        ov.Core().read_model(xml)
    (info,) = _explained(xml, capsys)
    assert info["numpy"] is None
    assert "lists axis 2 twice" in info["note"], info["note"]


@pytest.mark.parametrize(
    ("op", "consts", "attrs", "outs", "message"),
    [
        pytest.param(
            "VariadicSplit",
            [("i64", [], 1), ("i64", [2], [2, 3])],
            "",
            [[2, 2], [2, 3]],
            "VariadicSplit: split_lengths=[2, 3] sum to 5, but data.shape[1] is 6",
            id="VariadicSplit",
        ),
        pytest.param(
            "Split",
            [("i64", [], 1)],
            'num_splits="4"',
            [[2, 1]] * 4,
            "Split: num_splits=4 must divide data.shape[1]=6 evenly",
            id="Split",
        ),
    ],
)
def test_a_static_layer_that_fails_is_named_alike_by_explain_and_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], op, consts, attrs, outs, message
) -> None:
    # the parameters as the IR writes them (a list), in both
    xml = _write(tmp_path, *_one_op(op, consts, attrs, outs))
    (problem,) = ir.read_model(xml).check().problems
    assert problem.message.startswith(message), problem.message
    (layer,) = _explained(xml, capsys)
    assert layer["note"] == problem.message


def test_a_layer_of_another_type_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --layer of a Concat or a Parameter said only "names no Slice ... layer of the model",
    # as for a typo
    x = o8.parameter([4], np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    xml = _save(tmp_path, o8.slice(x, c([1]), c([3]), c([1])), x)
    assert main(["explain", str(xml), "--layer", "x"]) == 1
    err = capsys.readouterr().err
    assert "layer of the model (by id or name) (it names layer 0 'x', a Parameter) (hint: " in err
    assert err.endswith("datamove explain MODEL lists the layers it explains, with their ids)\n")


def test_an_onnx_node_of_another_type_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnx")
    from datamove.ir._examples import write_onnx_example

    model = str(write_onnx_example(tmp_path))
    for layer in ("relu", "0"):
        assert main(["explain", model, "--layer", layer]) == 1
        err = capsys.readouterr().err
        assert "(by index or name) (it names node 0 'relu', a Relu) (hint: " in err


def test_a_gather_of_run_time_indices_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --layer of a Gather whose indices are computed at run time said "names no ... or Gather
    # layer of the model (by id or name) (it names layer 3 'g', a Gather)"; OpenVINO and
    # onnxruntime run it (at one indices value)
    x = o8.parameter([4, 5], np.float32, name="x")
    i = o8.parameter([2], np.int64, name="i")
    g = o8.gather(x, i, o8.constant(np.int64(0)))
    g.set_friendly_name("g")
    ov_model = ov.Model([g], [x, i], "m")
    xml = ov_models.save(ov_model, tmp_path)
    a, idx = np.arange(20, dtype=np.float32).reshape(4, 5), np.array([3, 1])
    got = ov.Core().compile_model(ov_model, "CPU")([a, idx])
    np.testing.assert_array_equal(got[0], a[idx])
    onnx = onnx_graphs.onnx
    h = onnx.helper
    graph = h.make_graph(
        [h.make_node("Gather", ["x", "i"], ["y"], name="g", axis=0)],
        "m",
        [
            h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4, 5]),
            h.make_tensor_value_info("i", onnx.TensorProto.INT64, [2]),
        ],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], ir_version=8)
    (ran,) = onnx_graphs.ort_session(model).run(None, {"x": a, "i": idx})
    np.testing.assert_array_equal(ran, a[idx])
    path = onnx_graphs.save(model, tmp_path)
    rule = "whose indices are computed at run time: there is no NumPy index to print"
    for where, ids, word in ((xml, ("g", "3"), "layer"), (path, ("g", "0"), "node")):
        for layer in ids:
            assert main(["explain", str(where), "--layer", layer]) == 1
            err = capsys.readouterr().err
            number = ids[1]
            assert f"--layer={layer!r} names {word} {number} 'g', a Gather {rule}" in err, err
            assert "names no " not in err
    # a Gather and a Concat of a shape subgraph's values ([x.shape[0], -1]: a Reshape's shape)
    ints = [
        onnx.numpy_helper.from_array(np.array([v], np.int64), n) for n, v in (("k", 0), ("m", -1))
    ]
    nodes = [
        h.make_node("Shape", ["x"], ["s"]),
        h.make_node("Gather", ["s", "k"], ["d"], name="pick", axis=0),
        h.make_node("Concat", ["d", "m"], ["d2"], name="cat", axis=0),
        h.make_node("Reshape", ["x", "d2"], ["y"]),
    ]
    graph = h.make_graph(nodes, "m", graph.input[:1], graph.output, initializer=ints)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], ir_version=8)
    assert onnx_graphs.ort_session(model).run(None, {"x": a})[0].shape == (4, 5)
    path = onnx_graphs.save(model, tmp_path)
    for layer, kind in (("pick", "Gather"), ("cat", "Concat")):
        assert main(["explain", str(path), "--layer", layer]) == 1
        err = capsys.readouterr().err
        assert f"'{layer}', a {kind} of a shape subgraph's values: it moves no data" in err, err


# -- Concat, Unsqueeze, Squeeze ------------------------------------------------------------------
def _concat_model(tmp_path: Path, shapes: list[list[int]], axis: int) -> Path:
    params = [o8.parameter(s, np.float32, name=f"in{k}") for k, s in enumerate(shapes)]
    cat = o1.concat([o1.relu(p) for p in params], axis)  # its inputs are other layers' outputs
    cat.set_friendly_name("cat")
    return ov_models.save(ov.Model([cat], params, "m"), tmp_path)


def test_a_concat_layer_says_where_each_input_lands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _concat_model(tmp_path, [[-1, 2], [-1, 3]], -1)
    assert main(["explain", str(xml)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("layer ")
    assert lines[0].endswith("'cat' (Concat): x0 [?,2], x1 [?,3] -> [?,5]")
    assert lines[1] == "  np.concatenate([x0, x1], axis=1)"
    assert len(lines) == 4
    assert re.fullmatch(r"  x0 from layer \d+ '\w+' \(ReLU\) port \d+: out\[:, :2\]", lines[2])
    assert re.fullmatch(r"  x1 from layer \d+ '\w+' \(ReLU\) port \d+: out\[:, 2:\]", lines[3])
    (info,) = _explained(xml, capsys)
    assert info["input_shape"] is None
    assert info["input_shapes"] == ["[?,2]", "[?,3]"]
    assert info["output_shapes"] == ["[?,5]"]
    assert info["attributes"] == {"axis": -1}
    assert (info["lengths"], info["inverse"]) == ([2, 3], "dm.variadic_split(out, 1, [2, 3])")
    for n in (0, 1, 4):  # what OpenVINO's reference gives, for every batch size
        xs = [np.arange(n * 2).reshape(n, 2), np.arange(n * 3).reshape(n, 3) + 100]
        xs = [x.astype(np.float32) for x in xs]
        (want,) = openvino_oracle.evaluate_ir(xml, {"in0": xs[0], "in1": xs[1]})
        (got,) = _evaluated(info, xs)
        np.testing.assert_array_equal(got, want)


def test_a_concat_on_a_dynamic_axis_writes_each_part_with_the_sizes_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _concat_model(tmp_path, [[2, -1], [2, 3], [2, -1]], 1)
    (info,) = _explained(xml, capsys)
    assert info["parts"] == [
        "out[:, :x0.shape[1]]",
        "out[:, x0.shape[1]:3+x0.shape[1]]",
        "out[:, 3+x0.shape[1]:]",
    ]
    assert info["inverse"] is None
    for a, c in [(0, 0), (1, 4), (5, 2)]:
        xs = [np.full((2, a), 1.0), np.full((2, 3), 2.0), np.full((2, c), 3.0)]
        xs = [x.astype(np.float32) for x in xs]
        (want,) = openvino_oracle.evaluate_ir(xml, {f"in{k}": x for k, x in enumerate(xs)})
        np.testing.assert_array_equal(_evaluated(info, xs)[0], want)


def test_layer_shows_a_concat_in_full_and_as_says_it_has_no_dialect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _concat_model(tmp_path, [[2, 1], [2, 2]], 1)
    assert main(["explain", str(xml), "--layer", "cat", "--as", "onnx"]) == 0
    out = capsys.readouterr().out
    assert (
        "\nConcat of 2 inputs, axis 1\n"
        "  input 0: [2,1]  -> out[:, :1]\n"
        "  input 1: [2,2]  -> out[:, 1:]\n"
        "output shape: [2,3]\n"
        "NumPy:        np.concatenate([x0, x1], axis=1)\n"
        "inverse:      dm.variadic_split(out, 1, [1, 2])\n"
        "elements by input:\n"
        "  0 1 1\n"
        "  0 1 1\n"
    ) in out
    assert out.endswith(
        "' joins its inputs; datamove writes slicings and splits in other dialects\n"
    )
    assert "  in other dialects:\n    onnx: Concat: layer='" in out


def _view_model(tmp_path: Path, shape: list[int], build: Callable[[Any], Any]) -> Path:
    x = o8.parameter(shape, np.float32, name="x")
    y = build(x)
    y.set_friendly_name("view")
    return _save(tmp_path, y, x)


def _c(values: Any) -> Any:
    return o1.constant(np.array(values, np.int64))


@pytest.mark.parametrize(
    ("build", "shape", "numpy"),
    [
        (lambda x: o1.unsqueeze(x, _c([0])), [-1, 3], "x[None]"),
        (lambda x: o1.unsqueeze(x, _c([1, -1])), [2, -1], "x[:, None, :, None]"),
        (lambda x: o1.squeeze(x, _c([1])), [-1, 1, 4], "x[:, 0]"),
        (lambda x: o1.squeeze(x, _c([0])), [1], "x[0, ...]"),  # a 0-d array, not a scalar
        (o15.squeeze, [1, 3, 1], "x[0, :, 0]"),  # no axes: every dim of 1
    ],
    ids=["unsqueeze(0)", "unsqueeze([1, -1])", "squeeze(1)", "squeeze a [1]", "squeeze()"],
)
def test_unsqueeze_and_squeeze_are_their_index(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    build: Callable[[Any], Any],
    shape: list[int],
    numpy: str,
) -> None:
    xml = _view_model(tmp_path, shape, build)
    (info,) = _explained(xml, capsys)
    assert (info["numpy"], info["note"]) == (numpy, None)
    for size in (1, 2, 5):
        dims = tuple(size if d == -1 else d for d in shape)
        x = np.arange(int(np.prod(dims)), dtype=np.float32).reshape(dims)
        (want,) = openvino_oracle.evaluate_ir(xml, {"x": x})
        got = eval(numpy, {"x": x})  # noqa: S307 - the expression under test
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_a_squeeze_of_a_dim_that_may_be_1_or_not_has_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # OpenVINO's Squeeze keeps a listed dim that is not 1: which dims go depends on the size
    xml = _view_model(tmp_path, [2, -1], lambda x: o1.squeeze(x, _c([1])))
    (info,) = _explained(xml, capsys)
    assert info["numpy"] is None
    assert info["note"] == "which dims it drops depends on the sizes [2,?] allows"


def test_layer_and_as_show_a_view_as_its_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _view_model(tmp_path, [2, 3], lambda x: o1.unsqueeze(x, _c([1])))
    assert main(["explain", str(xml), "--layer", "view", "--as", "torch,tf"]) == 0
    out = capsys.readouterr().out
    assert "\nUnsqueeze on x of shape [2,3]: x[:, None]\noutput shape: [2,1,3]\n" in out
    assert out.endswith(
        "  in other dialects:\n"
        "    torch (PyTorch calls on x, in order):\n"
        "      unsqueeze(dim=1)\n"
        "    tf (tf.strided_slice):\n"
        "      tf.strided_slice(x, begin=[0, 0], end=[2, 0], strides=[1, 1], new_axis_mask=2)\n"
    )


def test_a_view_of_run_time_axes_or_of_unknown_rank_has_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = o8.parameter([2, 3], np.float32, name="x")
    axes = o8.parameter([1], np.int64, name="axes")
    y = o1.unsqueeze(x, axes)
    xml = ov_models.save(ov.Model([y], [x, axes], "m"), tmp_path, "runtime")
    (info,) = _explained(xml, capsys)
    assert (info["numpy"], info["note"]) == (None, "its axes are known only at run time")
    assert list(info["runtime"].values()) == ["axes: layer 1 'axes' (Parameter)"]
    x = o8.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    xml = _save(tmp_path, o1.squeeze(x, _c([0])), x)
    (info,) = _explained(xml, capsys)
    assert (info["numpy"], info["note"]) == (None, "the data's rank is unknown")


def test_a_broken_concat_is_listed_with_its_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _concat_model(tmp_path, [[2, 2], [2, 3]], 1)
    text = xml.read_text()
    assert text.count('<data axis="1"') == 1
    xml.write_text(text.replace('<data axis="1"', '<data axis="0"'))  # the dims differ off it
    assert main(["check", str(xml)]) == 1
    capsys.readouterr()
    assert main(["explain", str(xml), "--layer", "cat", "--as", "numpy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("'cat' (Concat): x0 [2,2], x1 [2,3] -> [2,5]")  # as declared
    assert lines[1] == (
        "  no NumPy index: Concat: inputs=['[2,2]', '[2,3]'] differ in dimension 1, which is not "
        "the concatenation axis 0"
    )
    (info,) = _explained(xml, capsys)
    assert (info["input_shape"], info["input_shapes"]) == (None, ["[2,2]", "[2,3]"])


def _printed(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


_KIND_MASKS = {"new_axis_mask": "n", "shrink_axis_mask": "s", "ellipsis_mask": "e"}


@st.composite
def _slices(draw: st.DrawFn) -> tuple[str, list[str], Any, list[tuple[int, int | None]]]:
    """A Slice-8 or StridedSlice (every mask) on random static and interval dims: its kind, its
    CLI options, its node."""
    dims = []
    for _ in range(draw(st.integers(1, 2))):
        lo = draw(st.integers(0, 6))
        dims.append((lo, draw(st.none() | st.just(lo) | st.integers(lo + 1, 12))))
    bound = st.integers(-14, 14) | st.sampled_from([-(2**63), 2**63 - 1])
    step = st.sampled_from([-3, -2, -1, 1, 2, 3])
    ints = lambda v: ",".join(map(str, v))  # noqa: E731
    x = o8.parameter(openvino_oracle.partial_shape(shape_text(dims)), np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    if draw(st.booleans()):
        n = draw(st.integers(1, len(dims)))
        starts, stops = (draw(st.lists(bound, min_size=n, max_size=n)) for _ in "ab")
        steps = draw(st.lists(step, min_size=n, max_size=n))
        axes = draw(st.permutations(range(len(dims))))[:n]
        axes = [a - len(dims) if draw(st.booleans()) else a for a in axes]  # [0, -1] too
        options = ["--start", ints(starts), "--stop", ints(stops), "--step", ints(steps)]
        node = o8.slice(x, c(starts), c(stops), c(steps), c(axes))
        return "slice", [*options, "--axes", ints(axes)], (node, x), dims
    # Each index a cut, a new axis, a shrink or the ellipsis (one kind each: docs/semantics.md,
    # 5), never more addressing the data than its rank; a shrink only where every size holds it,
    # without begin_mask (the CPU plugin's 11).
    kinds = draw(st.lists(st.sampled_from("ccnse"), min_size=1, max_size=len(dims) + 1))
    kinds = [k if k != "e" or kinds.index("e") == i else "c" for i, k in enumerate(kinds)]
    while sum(k in "cs" for k in kinds) > len(dims):
        kinds[max(i for i, k in enumerate(kinds) if k in "cs")] = "n"
    if "n" in kinds and "s" in kinds and "e" not in kinds:  # the CPU plugin's #23: not ours
        kinds.append("e")
    ell = kinds.index("e") if "e" in kinds else len(kinds)
    after = sum(k in "cs" for k in kinds[ell:])
    begin, end, stride = [], [], []
    axis = 0
    for i in range(len(kinds)):
        if i == ell + 1:
            axis = len(dims) - after  # the indices after the ellipsis address the last axes
        lo = dims[axis][0] if kinds[i] in "cs" else 0
        if kinds[i] == "s" and lo == 0:
            kinds[i] = "c"
        k = kinds[i]
        axis += k in "cs"
        b = draw(st.integers(-lo, lo - 1)) if k == "s" else draw(bound) if k == "c" else 0
        begin.append(b)
        end.append(draw(bound) if k == "c" else b + 1 if k == "s" else 0)
        stride.append(draw(step) if k == "c" else 1)
    n = len(kinds)
    masks = {m: [int(k == kind) for k in kinds] for m, kind in _KIND_MASKS.items()}
    for m in ("begin_mask", "end_mask"):
        masks[m] = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    masks["begin_mask"] = [b * (k != "s") for b, k in zip(masks["begin_mask"], kinds, strict=True)]
    options = ["--begin", ints(begin), "--end", ints(end), "--stride", ints(stride)]
    for m, bits in masks.items():
        options += ["--" + m.replace("_", "-"), ints(bits)]
    node = o1.strided_slice(x, c(begin), c(end), c(stride), **masks)
    return "strided-slice", options, (node, x), dims


def _onnx_slice(options: list[str], rank: int) -> Any:
    """The ONNX model of a Slice-8 case's CLI options: one Slice-13 of ``x`` (``[d0,d1...]``)."""
    pairs = zip(options[::2], options[1::2], strict=True)
    ints = {k: [int(v) for v in n.split(",")] for k, n in pairs}
    starts, ends, steps, axes = (ints[k] for k in ("--start", "--stop", "--step", "--axes"))
    return onnx_graphs.one_slice([f"d{k}" for k in range(rank)], starts, ends, axes, steps)


def _ort_sentinel(options: list[str]) -> bool:
    """Whether a Slice-8 case has an end onnxruntime reads otherwise than the ONNX spec: INT64_MAX
    with a negative step, to the first element, not clamped to the last
    (tests/test_dialects_onnxruntime.py)."""
    stops, steps = (
        map(int, options[options.index(k) + 1].split(",")) for k in ("--stop", "--step")
    )
    return any(e == 2**63 - 1 and c < 0 for e, c in zip(stops, steps, strict=True))


def _model_texts(path: Path, shape: str) -> tuple[dict[str, Any], list[str]]:
    """``explain MODEL --as numpy`` of a model of one slice: its entry, and each NumPy text."""
    code, out = _printed(["explain", str(path), "--input-shape", f"x={shape}", "--as", "numpy"])
    assert code == 0, out
    texts = [line.strip() for line in out.splitlines() if line.strip().startswith("x[")]
    code, out = _printed(["explain", str(path), "--input-shape", f"x={shape}", "--json"])
    (info,) = json.loads(out)
    return info, texts


@fixed_settings(40)
@given(case=_slices())
def test_explain_convert_and_a_model_give_one_numpy_answer(
    tmp_path_factory: pytest.TempPathFactory, case: Any
) -> None:
    # explain slice printed no NumPy line on a dynamic shape, and explain MODEL said "no one
    # NumPy index" where convert --to numpy had one (x[0:1] for Slice(-100, -200, -1) on
    # [1..50]); on a static shape a slice got x[:, 0::-1] on its NumPy line, x[0:4, 0:1] under
    # --as numpy, x[0::-1] from explain MODEL and x[:1] from an ONNX node. One text now, on
    # every shape: explain's NumPy line, its --as numpy, explain MODEL's (IR and ONNX, with
    # their --as numpy); exact where convert's index is, refused where convert refuses.
    kind, options, (node, x), dims = case
    shape = shape_text(dims)
    code, said = _printed(["explain", kind, "--shape", shape, *options, "--as", "numpy"])
    assert code == 0, said
    line = next(x for x in said.splitlines() if x.startswith("NumPy:"))
    explained = line.removeprefix("NumPy:").strip()
    # convert counts axes from the back on the shape's rank, as explain does ([-2, 1] too)
    code, converted = _printed(
        ["convert", "--from", kind, *options, "--to", "numpy", "--shape", shape]
    )
    xml = ov_models.save(ov.Model([node], [x], "m"), tmp_path_factory.mktemp("m"))
    layer, texts = _model_texts(xml, shape)
    onnx_model = _onnx_slice(options, len(dims)) if kind == "slice" else None
    if onnx_model is not None:  # ONNX explain of the same Slice (Slice-13): the same answer
        path = onnx_graphs.save(onnx_model, tmp_path_factory.mktemp("onnx"))
        node_info, onnx_texts = _model_texts(path, shape)
        assert (node_info["numpy"], node_info["note"]) == (layer["numpy"], layer["note"])
        assert onnx_texts == texts
    event("refused" if code == 1 else "index")
    event(f"{kind} on a {'static' if '..' not in shape and '?' not in shape else 'dynamic'} shape")
    if code == 1:  # convert refuses: so do the others, in its words
        assert explained.startswith("none: "), explained
        assert layer["numpy"] is None, layer
        reason = explained.removeprefix(f"none: shape {shape} ")
        assert layer["note"] == explained.removeprefix("none: ")
        assert reason.split(" (witness")[0] in converted
        return
    assert code == 0, converted
    under = said.splitlines()[said.splitlines().index("numpy (NumPy basic indexing):") + 1]
    # explain's NumPy line and --as numpy; explain MODEL's: --json, its line, its --as numpy
    printed = [explained, under.strip(), layer["numpy"], *texts]
    assert len(texts) == 2, texts
    assert len(set(printed)) == 1, printed
    # convert's in-range numbers (docs/cli.md): another text of the same index
    assert dm.Slicing.from_numpy(explained).equivalent(converted.strip(), shape), converted
    at = lambda k: tuple(lo + k if hi is None else min(lo + k, hi) for lo, hi in dims)  # noqa: E731
    sizes = [s for s in map(at, (0, 1, 3, 7)) if 0 not in s]  # evaluate: elements of nothing at 0
    datas = [np.arange(int(np.prod(s)), dtype=np.float32).reshape(s) for s in dict.fromkeys(sizes)]
    try:
        got = [out for ((_, out),) in openvino_oracle.run_ir_each(xml, [{"x": d} for d in datas])]
    except openvino_oracle.OpenVINOError:  # the CPU plugin's declared lengths (S-6): evaluate's
        got = [out for (out,) in openvino_oracle.evaluate_ir_each(xml, [{"x": d} for d in datas])]
    for data, want in zip(datas, got, strict=True):
        np.testing.assert_array_equal(eval(explained, {"x": data}), want)  # noqa: S307
    if onnx_model is not None and not _ort_sentinel(options):  # onnxruntime runs the ONNX Slice
        for data in datas:
            want = onnx_graphs.run_onnxruntime(onnx_model, data)["y"]
            np.testing.assert_array_equal(eval(explained, {"x": data}), want)  # noqa: S307


def test_the_three_commands_answer_slice_100_200_alike(tmp_path: Path) -> None:
    # convert said x[0:1], explain slice nothing, explain MODEL "no one NumPy index"; every
    # explain now writes the canonical form's x[:1] (docs/cli.md), convert its own exact x[0:1]
    x = o8.parameter([-1], np.float32, name="x")
    c = lambda v: o8.constant(np.array(v, np.int64))  # noqa: E731
    xml = _save(tmp_path, o8.slice(x, c([-100]), c([-200]), c([-1])), x)
    numbers = ["--start", "-100", "--stop", "-200", "--step", "-1"]
    convert = ["convert", "--from", "slice", *numbers, "--to", "numpy", "--shape", "[1..50]"]
    assert _printed(convert) == (0, "x[0:1]\n")
    code, out = _printed(["explain", "slice", "--shape", "[1..50]", *numbers])
    assert (code, out.splitlines()[-1]) == (0, "NumPy:        x[:1]")
    code, out = _printed(["explain", str(xml), "--input-shape", "x=[1..50]"])
    assert (code, out.splitlines()[1:]) == (0, ["  x[:1]"])
    # and ONNX explain of the same Slice-13 said x[:1], a writer of its own
    onnx_path = onnx_graphs.save(onnx_graphs.one_slice(["N"], [-100], [-200], [0], [-1]), tmp_path)
    code, out = _printed(["explain", str(onnx_path), "--input-shape", "x=[1..50]"])
    assert (code, out.splitlines()[1:]) == (0, ["  x[:1]"])
