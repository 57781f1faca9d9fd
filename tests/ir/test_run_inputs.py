"""What `Model.run` takes as inputs: arrays of the declared element type, in linear time.

Anything that is not an array, or an array of another element type (NumPy's or another
library's), is an `InputTypeError`: an `IRError` naming the Parameter and a `DTypeError`, as
`datamove.split` answers for the same data. A u1 input is 0/1 ``uint8`` or bool.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import datamove as dm
from datamove import ir
from datamove.cli import main
from datamove.ir._errors import InputTypeError
from datamove.ir._examples import _XML, write_example
from datamove.ir._graph import Layer

X = np.arange(12, dtype=np.float32).reshape(2, 6)
BIN = np.array([1, 2, -1], dtype="<i8").tobytes()
PRECISION = {"f32": "FP32", "u1": "BIN", "bf16": "BF16"}


def _pairs(tmp_path: Path, n: int, shape: str = "2", etype: str = "f32") -> Path:
    """``n`` Parameter -> Result pairs: Parameters ``p{k}``, tensors ``x{k}`` of ``shape``."""
    dims = "" if shape in ("", "...") else "".join(f"<dim>{d}</dim>" for d in shape.split(","))
    prec = PRECISION[etype]
    layers = "".join(
        f'<layer id="{2 * k}" name="p{k}" type="Parameter" version="opset1">'
        f'<data shape="{shape}" element_type="{etype}"/><output><port id="0" '
        f'precision="{prec}" names="x{k}">{dims}</port></output></layer>'
        f'<layer id="{2 * k + 1}" name="r{k}" type="Result" version="opset1"><input>'
        f'<port id="0" precision="{prec}">{dims}</port></input></layer>'
        for k in range(n)
    )
    edges = "".join(
        f'<edge from-layer="{2 * k}" from-port="0" to-layer="{2 * k + 1}" to-port="0"/>'
        for k in range(n)
    )
    path = tmp_path / f"pairs{n}_{etype}.xml"
    path.write_text(
        f'<?xml version="1.0"?><net name="pairs" version="11"><layers>{layers}</layers>'
        f"<edges>{edges}</edges></net>",
        encoding="utf-8",
    )
    return path


# -- inputs that are not arrays --------------------------------------------------------------

NOT_ARRAYS = [
    pytest.param(lambda: memoryview(np.zeros((2, 6), np.float32)), "a memoryview", id="memoryview"),
    pytest.param(lambda: "abc", "a string", id="str"),
    pytest.param(lambda: b"x", "a bytes object", id="bytes"),
    pytest.param(lambda: {"a": 1}, "a dict", id="dict"),
    pytest.param(object, "an object", id="object"),
    pytest.param(lambda: None, "None", id="None"),
]


@pytest.mark.parametrize("shape", ["2,6", "", "..."], ids=["[2,6]", "scalar", "dynamic rank"])
@pytest.mark.parametrize(("make", "kind"), NOT_ARRAYS)
def test_an_input_that_is_not_an_array_is_an_input_type_error(
    tmp_path: Path, shape: str, make: Any, kind: str
) -> None:
    # Each was a raw TypeError (memoryview) or, on a scalar or dynamic-rank Parameter, accepted
    # and returned as the output (None, "abc", ...).
    model = ir.read_model(write_example(tmp_path) if shape == "2,6" else _pairs(tmp_path, 1, shape))
    name = "x" if shape == "2,6" else "x0"
    for _ in range(3):  # the checked path each time: no shape plan is keyed by such inputs
        with pytest.raises(
            InputTypeError, match=rf"inputs\['{name}'\]=.* must be an array, not {kind}"
        ) as info:
            model.run({name: make()})
        err = info.value
        assert isinstance(err, ir.IRError)
        assert isinstance(err, dm.DTypeError)
        assert isinstance(err, TypeError)
        assert (err.layer_type, err.layer_name) == ("Parameter", "x" if name == "x" else "p0")


def test_dm_split_and_run_refuse_the_same_data() -> None:
    with pytest.raises(dm.DTypeError, match="must be an array, not a memoryview"):
        dm.split(memoryview(np.zeros(4)), 0, 2)


@pytest.mark.parametrize("shape", ["", "..."], ids=["scalar", "dynamic rank"])
def test_a_python_scalar_is_read_as_numpy_reads_it(tmp_path: Path, shape: str) -> None:
    model = ir.read_model(_pairs(tmp_path, 1, shape))
    with pytest.raises(InputTypeError, match=r"dtype='complex128' is not the declared element"):
        model.run({"x0": 1 + 2j})
    with pytest.raises(InputTypeError, match=r"dtype='float64' is not the declared element"):
        model.run({"x0": 1.5})
    out = model.run({"x0": np.float32(1.5)})["x0"]
    assert (out.dtype, out.shape, out.tolist()) == (np.float32, (), 1.5)


def test_a_list_of_objects_is_refused(tmp_path: Path) -> None:
    model = ir.read_model(_pairs(tmp_path, 1, "2"))
    with pytest.raises(InputTypeError, match="is not an array of numbers"):
        model.run({"x0": [None, 1]})


def test_mixed_input_names_in_an_error_are_shown_not_sorted(tmp_path: Path) -> None:
    model = ir.read_model(write_example(tmp_path))
    with pytest.raises(ir.IRError, match=r"inputs=\{1: array\(.*'y': array\(.* has no array for"):
        model.run({1: X, "y": X})  # type: ignore[dict-item]


def test_a_missing_input_shows_the_mapping_passed(tmp_path: Path) -> None:
    # it showed the names as a list (inputs=[] for run({})), not what the caller passed
    model = ir.read_model(write_example(tmp_path))
    with pytest.raises(ir.IRError) as e:
        model.run({})
    assert "inputs={} has no array for input 'x' (hint: pass every input: 'x')" in str(e.value)
    with pytest.raises(ir.IRError) as e:
        model.run({"y": np.zeros(2, np.int8)})
    assert "inputs={'y': array([0, 0], dtype=int8)} has no array for input 'x'" in str(e.value)


# -- arrays of other libraries must have the declared element type too -------------------------


def test_a_torch_tensor_of_another_dtype_is_refused(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    model = ir.read_model(write_example(tmp_path))
    out = model.run({"x": torch.from_numpy(X.copy())})
    assert out["parts_b"].dtype == torch.float32
    for dtype in (torch.float64, torch.int64, torch.bool):
        with pytest.raises(
            InputTypeError,
            match=rf"inputs\['x'\].dtype='{dtype}' is not the declared element type f32",
        ):
            model.run({"x": torch.zeros((2, 6), dtype=dtype)})


# -- u1 inputs --------------------------------------------------------------------------------

U1_XML = """<?xml version="1.0"?>
<net name="u1" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="3" element_type="u1"/>
<output><port id="0" precision="BIN" names="x"><dim>3</dim></port></output></layer>
<layer id="1" name="c" type="Const" version="opset1">
<data element_type="u1" shape="3" offset="0" size="1"/>
<output><port id="0" precision="BIN"><dim>3</dim></port></output></layer>
<layer id="2" name="cat" type="Concat" version="opset1"><data axis="0"/>
<input><port id="0" precision="BIN"><dim>3</dim></port><port id="1" precision="BIN"><dim>3</dim>
</port></input><output><port id="2" precision="BIN" names="y"><dim>6</dim></port></output></layer>
<layer id="3" name="r" type="Result" version="opset1">
<input><port id="0" precision="BIN"><dim>6</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges></net>"""


def _u1_model(tmp_path: Path) -> Path:
    path = tmp_path / "u1.xml"
    path.write_text(U1_XML, encoding="utf-8")
    path.with_suffix(".bin").write_bytes(bytes([0b10100000]))  # 1, 0, 1 (first bit first)
    return path


@pytest.mark.parametrize(
    "value",
    [np.array([1, 0, 1], np.uint8), np.array([True, False, True])],
    ids=["uint8", "bool"],
)
def test_u1_takes_0_1_uint8_or_bool(tmp_path: Path, value: np.ndarray) -> None:
    model = ir.read_model(_u1_model(tmp_path))
    for _ in range(3):
        out = model.run({"x": value})["y"]
        assert (out.dtype, out.tolist()) == (np.uint8, [1, 0, 1, 1, 0, 1])


U1_REFUSED = [
    pytest.param(np.array([1.0, 0.0, 1.0]), "float64", id="float64"),
    pytest.param(np.array(["a", "b", "c"]), "<U1", id="str"),
    pytest.param(np.array([1, 0, 1], dtype=object), "object", id="object"),
    pytest.param(np.array([1 + 1j, 0, 0]), "complex128", id="complex"),
    pytest.param(np.array(["2020-01-01"] * 3, dtype="datetime64[D]"), "datetime64[D]", id="date"),
    pytest.param(np.array([1, 0, 1], np.int8), "int8", id="int8"),
    pytest.param([1, 0, 1], "int64", id="list"),
]


@pytest.mark.parametrize(("value", "dtype"), U1_REFUSED)
def test_u1_refuses_other_element_types(tmp_path: Path, value: Any, dtype: str) -> None:
    # Each was accepted (the output came back float64, str, ...); datetime64 failed in Concat
    # with a raw DTypePromotionError.
    model = ir.read_model(_u1_model(tmp_path))
    for _ in range(3):
        with pytest.raises(
            InputTypeError,
            match=rf"inputs\['x'\].dtype='{dtype.replace('[', '.').replace(']', '.')}' is not "
            "the declared element type u1 \\(hint: pass uint8 of 0 and 1, or bool\\)",
        ):
            model.run({"x": value})


def test_u1_refuses_values_other_than_0_and_1(tmp_path: Path) -> None:
    model = ir.read_model(_u1_model(tmp_path))
    for _ in range(3):  # a u1 input is never planned: its values are checked on every run
        with pytest.raises(ir.IRError, match=r"holds 2, but a u1 value is 0 or 1") as info:
            model.run({"x": np.array([1, 2, 0], np.uint8)})
        assert not isinstance(info.value, dm.DTypeError)  # a value, not a type, is wrong
    assert model.run({"x": np.zeros(3, np.uint8)})["y"].tolist() == [0, 0, 0, 1, 0, 1]
    assert model.shape_plan_info().shapes == 0


def test_u1_of_no_elements(tmp_path: Path) -> None:
    model = ir.read_model(_pairs(tmp_path, 1, "0", "u1"))
    for value in (np.zeros(0, np.uint8), np.zeros(0, bool)):
        out = model.run({"x0": value})["x0"]
        assert (out.dtype, out.shape) == (np.uint8, (0,))


def test_u1_torch_tensors(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    model = ir.read_model(_pairs(tmp_path, 1, "3", "u1"))
    for value in (torch.tensor([1, 0, 1], dtype=torch.uint8), torch.tensor([True, False, True])):
        out = model.run({"x0": value})["x0"]
        assert (out.dtype, out.tolist()) == (torch.uint8, [1, 0, 1])
    with pytest.raises(ir.IRError, match="holds 3, but a u1 value is 0 or 1"):
        model.run({"x0": torch.tensor([3, 0, 1], dtype=torch.uint8)})
    with pytest.raises(InputTypeError, match=r"dtype='torch\.float32' is not the declared"):
        model.run({"x0": torch.tensor([1.0, 0.0, 1.0])})


def test_u1_inputs_that_are_lazy_or_traced(tmp_path: Path) -> None:
    # The 0/1 check read int(xp.max(x)): it computed a Dask input, and under jax.jit it raised
    # JAX's ConcretizationTypeError. A Dask input is checked block by block when it is computed;
    # a traced one has no values to check.
    da = pytest.importorskip("dask.array")
    from dask.callbacks import Callback

    model = ir.read_model(_pairs(tmp_path, 1, "3", "u1"))
    computed = []
    with Callback(start=computed.append):
        good = model.run({"x0": da.from_array(np.array([1, 0, 1], np.uint8), chunks=2)})["x0"]
        bad = model.run({"x0": da.from_array(np.array([0, 1, 3], np.uint8), chunks=2)})["x0"]
    assert computed == []
    assert good.compute().tolist() == [1, 0, 1]
    with pytest.raises(ir.IRError, match=r"='<dask array of shape \(3,\)>' holds 3, but a u1"):
        bad.compute()
    jax = pytest.importorskip("jax")
    run = jax.jit(lambda x: model.run({"x0": x})["x0"])
    for value in (np.array([1, 0, 1], np.uint8), np.array([True, False, True])):
        assert run(jax.numpy.asarray(value)).tolist() == [1, 0, 1]


def test_cli_u1_input_out_of_range_is_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = _u1_model(tmp_path)
    np.save(tmp_path / "x.npy", np.array([1, 2, 0], np.uint8))
    argv = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir"]
    assert main([*argv, str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "holds 2, but a u1 value is 0 or 1" in err
    assert "Traceback" not in err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())
    np.save(tmp_path / "x.npy", np.array([True, False, False]))
    assert main([*argv, str(tmp_path / "o")]) == 0
    assert np.load(tmp_path / "o" / "y.npy").tolist() == [1, 0, 0, 1, 0, 1]


# -- element types that need ml_dtypes ------------------------------------------------------------


def test_a_missing_ml_dtypes_is_an_ir_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ir.read_model(_pairs(tmp_path, 1, "2", "bf16"))
    const = tmp_path / "bf16_const.xml"
    const.write_text(
        _XML.replace(
            'element_type="i64" shape="2" offset="8" size="16"',
            'element_type="bf16" shape="2" offset="8" size="4"',
        ),
        encoding="utf-8",
    )
    const.with_suffix(".bin").write_bytes(BIN)
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # import ml_dtypes -> ImportError
    with pytest.raises(
        ir.IRError, match=r"element_type='bf16' needs ml_dtypes.*datamove\[dtypes\]"
    ):
        model.run({"x0": np.zeros(2, np.float32)})
    problems = ir.read_model(const).check().problems
    assert [(p.kind, p.layer_name) for p in problems] == [("attribute", "lengths")]
    assert "needs ml_dtypes, which is not installed" in problems[0].message


# -- many inputs: linear time ---------------------------------------------------------------------


def test_run_of_many_inputs_never_compares_layers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run() once looked each given input's Parameter up with _params.index(layer), comparing
    # Layer dataclasses field by field: cubic in the number of inputs (31 s for 1,000 inputs,
    # 248 s for 2,000). Now each name is one dict lookup, and no Layer is ever compared.
    n = 2000
    model = ir.read_model(_pairs(tmp_path, n))

    def no_comparison(self: Layer, other: object) -> bool:
        raise AssertionError(f"layer {self.id} compared with {other!r}")

    monkeypatch.setattr(Layer, "__eq__", no_comparison)
    inputs = {f"x{k}": np.full(2, k, np.float32) for k in range(n)}
    assert model.check().ok
    for _ in range(3):  # the checked path, the plan built, the plan
        out = model.run(inputs)
        assert len(out) == n
        assert out["x1999"].tolist() == [1999.0, 1999.0]
    with pytest.raises(ir.IRError, match="has no array for input 'x1999'"):
        model.run({k: v for k, v in inputs.items() if k != "x1999"})
    with pytest.raises(ir.IRError, match=r"inputs=\['x5', 'p5'\] name the same input"):
        model.run({**inputs, "p5": inputs["x5"]})  # its tensor name and its layer name


_NAMELESS_TWIN = """<?xml version="1.0"?>
<net name="two" version="11">
  <layers>
    <layer id="0" name="a" type="Parameter" version="opset1">
      <data shape="2" element_type="f32"/>
      <output><port id="0" precision="FP32" names="b"><dim>2</dim></port></output>
    </layer>
    <layer id="1" name="b" type="Parameter" version="opset1">
      <data shape="2" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>2</dim></port></output>
    </layer>
    <layer id="2" name="ra" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim></port></input>
    </layer>
    <layer id="3" name="rb" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="3" to-port="0"/>
  </edges>
</net>
"""


def test_a_nameless_input_named_as_another_input_gets_a_name_of_its_own(tmp_path: Path) -> None:
    # Parameter 'a' holds the tensor name 'b'; Parameter 'b' has no tensor name (OpenVINO gives
    # it none). It was listed under 'b' too, hidden, and run({}) ended in a StopIteration.
    path = tmp_path / "two.xml"
    path.write_text(_NAMELESS_TWIN)
    model = ir.read_model(path)
    assert list(model.inputs) == ["b", "b_1"]
    with pytest.raises(ir.IRError, match=r"has no array for input 'b'.*'b' \(or 'a'\), 'b_1'"):
        model.run({})
    one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
    out = model.run({"b": one, "b_1": zero})
    assert out["b"].tolist() == [1, 1]
    assert out["rb"].tolist() == [0, 0]
    assert model.run({"a": one, "b_1": zero})["rb"].tolist() == [0, 0]  # layer name 'a' too
    ov = pytest.importorskip("openvino")
    compiled = ov.Core().compile_model(str(path), "CPU")
    assert compiled.inputs[1].get_names() == set()
    got = compiled({0: one, 1: zero})
    assert [v.tolist() for v in got.values()] == [[1, 1], [0, 0]]


def test_a_constant_joined_to_another_library_s_input_is_that_library_s(
    tmp_path: Path, xp: Any
) -> None:
    # Concat(x, c): the Const c is a NumPy array; on x of another library it is converted to
    # that library first (array_namespace(x).asarray), as that library's concat requires. Once
    # a UserWarning on PyTorch: "The given NumPy array is not writable".
    from test_run_refuses import _one_op, _write

    c = np.arange(4).reshape(2, 2)
    model = ir.read_model(
        _write(
            tmp_path,
            *_one_op("Concat", [("f32", [2, 2], c.ravel().tolist())], 'axis="1"', [[2, 8]]),
        )
    )
    (out,) = model.run({"x": xp.asarray(X)}).values()
    assert type(out) is type(xp.asarray(X))
    np.testing.assert_array_equal(xp.to_numpy(out), np.concatenate([X, c], axis=1))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # NumPy's, on np.matrix
@pytest.mark.parametrize("axis", [0, 1])
def test_a_masked_input_keeps_its_mask_through_a_concat(tmp_path: Path, axis: int) -> None:
    # Fixed: Concat(x, c) of a masked x gave a plain array, the masked elements made data;
    # now the mask is joined with the data, as np.ma.concatenate joins them (and np.matrix
    # comes out as np.concatenate gives it).
    from test_run_refuses import _one_op, _write

    c = np.arange(100, 112, dtype=np.float32).reshape(2, 6)
    shape = [[4, 6], [2, 12]][axis]
    consts = [("f32", [2, 6], c.ravel().tolist())]
    model = ir.read_model(_write(tmp_path, *_one_op("Concat", consts, f'axis="{axis}"', [shape])))
    x = np.ma.masked_array(X, mask=X % 5 == 1)
    (got,) = model.run({"x": x}).values()
    want = np.ma.concatenate([x, c], axis)
    assert type(got) is np.ma.MaskedArray
    np.testing.assert_array_equal(got.data, want.data, strict=True)
    np.testing.assert_array_equal(got.mask, want.mask, strict=True)
    (got,) = model.run({"x": np.asmatrix(X)}).values()
    assert type(got) is np.matrix
    np.testing.assert_array_equal(got, np.concatenate([np.asmatrix(X), c], axis), strict=True)


def test_a_constant_joined_to_an_input_goes_to_the_input_s_device(tmp_path: Path) -> None:
    # The Const was made a CPU tensor whatever the input's device, so Concat(x, c) of a tensor
    # on another device (CUDA; the meta device here) failed with PyTorch's RuntimeError.
    torch = pytest.importorskip("torch")
    from test_run_refuses import _one_op, _write

    c = np.arange(4).reshape(2, 2)
    model = ir.read_model(
        _write(
            tmp_path,
            *_one_op("Concat", [("f32", [2, 2], c.ravel().tolist())], 'axis="1"', [[2, 8]]),
        )
    )
    (out,) = model.run({"x": torch.zeros((2, 6), device="meta")}).values()
    assert (out.device.type, tuple(out.shape)) == ("meta", (2, 8))


def test_writing_to_an_output_never_changes_the_model_s_constants(tmp_path: Path, xp: Any) -> None:
    # Split(c) of a Const, run with x of another library: each output is a view of c converted to
    # that library. PyTorch's asarray of the read-only constant shared its memory, so writing to
    # an output changed c for every later run.
    if not xp.mutable or xp.name == "numpy":  # NumPy: a constant's views come back read-only
        pytest.skip("the library's arrays cannot be written")
    ov_models = pytest.importorskip("ov_models")
    o8 = pytest.importorskip("openvino.opset8")
    c = np.arange(12, dtype=np.float32).reshape(2, 6)
    x = o8.parameter([2, 6], np.float32, name="x")
    parts = o8.split(o8.constant(c), o8.constant(np.int64(0)), 2)
    ov_model = ov_models.ov.Model([o8.result(x), o8.result(parts.output(0))], [x], "m")
    model = ir.read_model(ov_models.save(ov_model, tmp_path))
    for _ in range(2):
        out = model.run({"x": xp.asarray(X)})[model.outputs[1]]
        np.testing.assert_array_equal(xp.to_numpy(out), c[:1])
        out[0, 0] = 99


def _begin_read_at_run_time(tmp_path: Path, dtype: Any, joined: Any = None) -> ir.Model:
    """StridedSlice(data, begin=b, end=[2], stride=[1]) of x [2,6], b a [1] input of ``dtype``;
    the data is Concat(x, joined) along axis 1 where ``joined`` (a constant) is given."""
    ov_models = pytest.importorskip("ov_models")
    o1 = pytest.importorskip("openvino.opset1")
    x = o1.parameter([2, 6], np.float32, name="x")
    b = o1.parameter([1], dtype, name="b")
    data = x if joined is None else o1.concat([x, o1.constant(joined)], 1)
    const = lambda v: o1.constant(np.array(v, dtype))  # noqa: E731
    y = o1.strided_slice(data, b, const([2]), const([1]), begin_mask=[0], end_mask=[0])
    return ir.read_model(ov_models.save(ov_models.ov.Model([o1.result(y)], [x, b], "m"), tmp_path))


def test_an_index_input_s_library_never_decides_the_constants_library(tmp_path: Path) -> None:
    # Concat(x, c) then StridedSlice(begin=b): with x a NumPy array and b a PyTorch tensor, c was
    # made a tensor (the first input of another library decided), and Concat refused to mix.
    torch = pytest.importorskip("torch")
    c = np.arange(4, dtype=np.float32).reshape(2, 2)
    model = _begin_read_at_run_time(tmp_path, np.int64, joined=c)
    for begin in (torch.tensor([1]), np.array([1])):
        for inputs in ({"x": X, "b": begin}, {"b": begin, "x": X}):
            (out,) = model.run(inputs).values()
            assert type(out) is np.ndarray
            np.testing.assert_array_equal(out, np.concatenate([X, c], axis=1)[1:2])
    (out,) = model.run({"b": np.array([1]), "x": torch.from_numpy(X.copy())}).values()
    assert type(out) is torch.Tensor


def test_an_index_input_traced_by_jax_jit_is_a_clear_error(tmp_path: Path) -> None:
    # StridedSlice's begin read by tolist() from a tracer raised JAX's ConcretizationTypeError.
    jax = pytest.importorskip("jax")
    model = _begin_read_at_run_time(tmp_path, np.int32)
    begin = jax.numpy.asarray([1], dtype=np.int32)
    run = jax.jit(lambda x, b: model.run({"x": x, "b": b}))
    with pytest.raises(ir.IRError, match=r"failed at run time: .*traced by jax\.jit"):
        run(jax.numpy.asarray(X), begin)
    (out,) = jax.jit(lambda x: model.run({"x": x, "b": begin}))(jax.numpy.asarray(X)).values()
    np.testing.assert_array_equal(np.asarray(out), X[1:2])


def test_a_dask_input_of_unknown_size_read_by_a_shape_subgraph(tmp_path: Path) -> None:
    # x[: x.shape[0] // 2] on a Dask x of unknown (NaN) length: folding ShapeOf at the run's
    # shapes raised "ValueError: cannot convert float NaN to integer".
    da = pytest.importorskip("dask.array")
    ov_models = pytest.importorskip("ov_models")
    o1 = pytest.importorskip("openvino.opset1")
    x = o1.parameter([-1, 6], np.float32, name="x")
    i64 = lambda v: o1.constant(np.array(v, np.int64))  # noqa: E731
    n = o1.gather(o1.shape_of(x), i64([0]), i64(0))
    y = o1.strided_slice(x, i64([0]), o1.divide(n, i64([2])), i64([1]), [0], [0])
    model = ir.read_model(ov_models.save(ov_models.ov.Model([o1.result(y)], [x], "m"), tmp_path))
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    whole = da.from_array(data, chunks=2)
    (out,) = model.run({"x": whole}).values()
    np.testing.assert_array_equal(out.compute(), data[:2])
    unknown = whole[whole[:, 0] >= 0]  # the same rows, of unknown (NaN) number
    with pytest.raises(ir.IRError, match=r"unknown size \(NaN\) along axis 0.*compute_chunk_sizes"):
        model.run({"x": unknown})


def test_index_inputs_known_at_run_time_may_be_another_library_s(tmp_path: Path, xp: Any) -> None:
    # StridedSlice's begin and VariadicSplit's axis are Parameters: their values are read from
    # the library's arrays on each run (tolist), and the outputs are OpenVINO's.
    if xp.name == "jax":
        pytest.skip("JAX makes int32 of int64 values unless jax_enable_x64 is set")
    ov_models = pytest.importorskip("ov_models")
    openvino_oracle = pytest.importorskip("openvino_oracle")
    o1 = pytest.importorskip("openvino.opset1")
    x = o1.parameter([2, 3, 4], np.float32, name="x")
    b = o1.parameter([1], np.int64, name="b")
    n = o1.parameter([], np.int64, name="n")
    c = lambda v: o1.constant(np.array(v, np.int64))  # noqa: E731
    y = o1.strided_slice(x, b, c([2]), c([1]), begin_mask=[0], end_mask=[0])
    parts = o1.variadic_split(x, n, c([1, 2]))
    results = [o1.result(y), *(o1.result(p) for p in parts.outputs())]
    xml = ov_models.save(ov_models.ov.Model(results, [x, b, n], "m"), tmp_path)
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    inputs = {"x": data, "b": np.array([1]), "n": np.array(1)}
    want = openvino_oracle.evaluate_ir(xml, inputs)
    got = ir.read_model(xml).run({k: xp.asarray(v) for k, v in inputs.items()})
    assert len(got) == len(want) == 3
    for g, w in zip(got.values(), want, strict=True):
        np.testing.assert_array_equal(xp.to_numpy(g), w)
