"""``run`` computes data Reshape-1 and Transpose-1 (PyTorch's ``view``, ``reshape``, ``flatten``,
``permute``, ``transpose``, ``.T``), as OpenVINO's CPU plugin does: models converted from
PyTorch with static and dynamic input shapes and built with the opset API, several sizes
including 0; invalid targets and orders are check problems and run refusals."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_slice_models import _arange, _assert_same
from test_view_layers import runs_as_openvino

import datamove as dm
from datamove import ir
from strategies import examples

ov_models = pytest.importorskip("ov_models")
openvino_oracle = pytest.importorskip("openvino_oracle")
torch = pytest.importorskip("torch")
torch_models = pytest.importorskip("torch_models")
ov = ov_models.ov
ops = ov_models.ops

pytestmark = pytest.mark.openvino


def _qkv_heads(x: Any) -> Any:
    # GPT-2's attention: qkv.split(C, 2), each viewed as heads, then transpose(1, 2)
    b, t, c3 = x.shape
    q, k, v = x.split(c3 // 3, dim=2)
    return tuple(y.view(b, t, 2, c3 // 6).transpose(1, 2) for y in (q, k, v))


# (PyTorch program, example shape, the dims converted dynamic, run shapes)
TORCH = {
    "x.view(2, -1)": (lambda x: x.view(2, -1), (2, 3, 4), [2, -1, 4]),
    "x.reshape(x.shape[0], -1)": (lambda x: x.reshape(x.shape[0], -1), (2, 3, 4), [-1, -1, 4]),
    "x.flatten(1)": (lambda x: x.flatten(1), (2, 3, 4), [-1, -1, -1]),
    "x.flatten()[1:]": (lambda x: x.flatten()[1:], (2, 3, 4), [-1, 3, 4]),
    "x.permute(2, 0, 1)": (lambda x: x.permute(2, 0, 1), (2, 3, 4), [-1, -1, -1]),
    "x.transpose(1, 2)": (lambda x: x.transpose(1, 2), (2, 3, 4), [-1, -1, -1]),
    "x.flatten(1).T": (lambda x: x.flatten(1).T, (2, 3, 4), [-1, -1, -1]),
    "x.chunk(2, -1) viewed": (
        lambda x: tuple(c.reshape(-1, 2) for c in x.chunk(2, -1)),
        (2, 3, 4),
        [-1, -1, 4],
    ),
    "x[:, 1:].permute(0, 2, 1)[..., :2]": (
        lambda x: x[:, 1:].permute(0, 2, 1)[..., :2],
        (2, 3, 4),
        [-1, -1, -1],
    ),
    "qkv split, view, transpose (GPT-2)": (_qkv_heads, (2, 3, 12), [-1, -1, 12]),
}
SIZES = [(2, 3, 4), (1, 5, 4), (0, 3, 4), (3, 0, 4), (2, 3, 12), (1, 4, 12), (2, 0, 12)]


def _same_values(got: dict[str, Any], want: dict[str, np.ndarray]) -> None:
    # in order: the CPU plugin names a converted output after a layer its transformations fuse
    # ('16' for 'y0'), which is no business of these tests (tests/ir/test_result_names.py's)
    assert len(got) == len(want)
    for have, ref in zip(got.values(), want.values(), strict=True):
        assert (have.dtype, have.shape) == (ref.dtype, ref.shape)
        np.testing.assert_array_equal(have, ref)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(TORCH))
def test_run_computes_converted_pytorch_reshapes(name: str, dynamic: bool, tmp_path: Path) -> None:
    # Fixed: run refused these models ("datamove does not compute Reshape layers").
    fn, example, dims = TORCH[name]
    xml = torch_models.convert_fn(fn, example, dims if dynamic else list(example), tmp_path)
    model = ir.read_model(xml)
    report = model.check()
    assert report.ok, report
    assert not {"Reshape", "Transpose"} & set(report.opaque), report.summary()
    assert {"Reshape", "Transpose"} & set(report.checked), report.summary()
    sizes = [s for s in SIZES if s in dm.PartialShape(dims if dynamic else list(example))]
    assert sizes
    for size in sizes:
        inputs = {"x": _arange(size)}
        try:
            want = ov_models.run_openvino(xml, inputs)
        except openvino_oracle.OpenVINOError:
            continue  # torch itself refuses to view an empty tensor as [0, -1] ...
        for _ in range(3):  # the checked path, then the shape plan is made, then used
            got = model.run(inputs)
            _same_values(got, want)
        for y in got.values():  # views of x: every layer here gives one on NumPy
            assert np.shares_memory(y, inputs["x"]) or not y.size
        got = model.run({"x": torch.from_numpy(_arange(size))})
        _same_values({k: v.numpy() for k, v in got.items()}, want)
    assert model.shape_plan_info().planned >= 1


def _model(build: Any, shape: list[int], tmp_path: Path, name: str = "model") -> Path:
    x = ops.parameter(shape, np.float32, name="x")
    out = build(x)
    out.output(0).get_tensor().set_names({"y"})
    return ov_models.save(ov.Model([out], [x]), tmp_path, name)


def _ints(values: Any, dtype: Any = np.int64) -> Any:
    return ov.op.Constant(np.array(values, dtype=dtype))  # empty too (ops.constant refuses)


def _reshape(target: Any, special_zero: bool, dtype: Any = np.int64) -> Any:
    return lambda x: ops.reshape(x, _ints(target, dtype), special_zero)


def _packed(etype: Any, values: list[int]) -> Any:
    return ov.op.Constant(etype, ov.Shape([len(values)]), values)


def _transpose(order: Any, dtype: Any = np.int64) -> Any:
    return lambda x: ops.transpose(x, _ints(order, dtype))


# (name, build, input shape in the model, run shapes: its own where none)
OPSET = [
    ("reshape [0, -1] special_zero", _reshape([0, -1], True), [2, 3, 4], []),
    ("reshape [0, 0, -1] special_zero", _reshape([0, 0, -1], True), [2, 3], []),
    ("reshape [-1, 0] special_zero", _reshape([-1, 0], True), [3, 1, 1], []),
    ("reshape [0, -1] special_zero, a dim of 0", _reshape([0, -1], True), [0, 3], []),
    ("reshape [0, 5]: a dim of 0", _reshape([0, 5], False), [0, 3], []),
    ("reshape [2, -1, 0]: -1 beside 0 (IR-22)", _reshape([2, -1, 0], False), [0, 4], []),
    ("reshape i32 [3, -1]", _reshape([3, -1], False, np.int32), [2, 3], []),
    ("reshape u8 [3, 2]", _reshape([3, 2], False, np.uint8), [2, 3], []),
    # fixed: a target of i4 or u4 (ml_dtypes' types, which NumPy cannot bound) crashed check
    ("reshape i4 [6]", lambda x: ops.reshape(x, _packed(ov.Type.i4, [6]), False), [2, 3], []),
    ("reshape u4 [6]", lambda x: ops.reshape(x, _packed(ov.Type.u4, [6]), False), [2, 3], []),
    ("reshape a scalar [1, 1, -1]", _reshape([1, 1, -1], False), [], []),
    ("reshape [1, 1] to a scalar []", _reshape([], False), [1, 1], []),
    ("reshape [-1]", _reshape([-1], True), [2, 0, 3], []),
    ("reshape dynamic [0, -1]", _reshape([0, -1], True), [-1, 3, 4], [(2, 3, 4), (0, 3, 4)]),
    ("reshape dynamic [-1, 6]", _reshape([-1, 6], False), [-1, 3, -1], [(2, 3, 2), (0, 3, 5)]),
    ("transpose [1, 2, 0]", _transpose([1, 2, 0]), [2, 3, 4], []),
    ("transpose empty order: reversed", _transpose(np.zeros(0)), [2, 3, 4], []),
    ("transpose empty order of a scalar", _transpose(np.zeros(0)), [], []),
    ("transpose i32 [1, 0]", _transpose([1, 0], np.int32), [2, 3], []),
    ("transpose u8 [0, 2, 1]", _transpose([0, 2, 1], np.uint8), [2, 0, 3], []),
    ("transpose dynamic [2, 0, 1]", _transpose([2, 0, 1]), [-1, 3, -1], [(2, 3, 4), (0, 3, 1)]),
]


@pytest.mark.parametrize(("name", "build", "shape", "sizes"), OPSET, ids=[o[0] for o in OPSET])
def test_run_computes_reshape_and_transpose_as_openvino(
    name: str, build: Any, shape: list[int], sizes: list[tuple[int, ...]], tmp_path: Path
) -> None:
    model = runs_as_openvino(_model(build, shape, tmp_path), shape, sizes)
    assert model.shape_plan_info().planned == len(sizes or [shape])


# OpenVINO refuses these when it builds the model; datamove reads the file written with valid
# values, the Const's data changed: (name, build with valid values, bad values, data shape,
# what the message says)
BAD = [
    ("reshape two -1", _reshape([3, 2], False), [-1, -1], [2, 3], r"holds -1 twice"),
    ("reshape -2", _reshape([3, 2], False), [-2, -3], [2, 3], r"holds -2: each is -1, 0"),
    (
        "reshape 0 past the rank (special_zero)",
        _reshape([1, 2, 3], True),
        [0, 0, 0],
        [2, 3],
        r"has a 0 at index 2, which copies no dim \(special_zero\): the data's rank is 2",
    ),
    (
        "reshape element count",
        _reshape([3, 2], False),
        [4, 2],
        [2, 3],
        (
            r"gives \[4, 2\] \(8 elements\), but the data's shape \[2, 3\] has 6 "
            r"\(hint: no element may be added\)"
        ),
    ),
    (  # the hint said "added" in this direction too
        "reshape fewer elements",
        _reshape([3, 2], False),
        [2, 2],
        [2, 3],
        (
            r"gives \[2, 2\] \(4 elements\), but the data's shape \[2, 3\] has 6 "
            r"\(hint: no element may be dropped\)"
        ),
    ),
    (
        "reshape -1 that does not divide",
        _reshape([3, 2], False),
        [4, -1],
        [2, 3],
        r"gives \[4, 1\] \(4 elements\), .* \(hint: no element may be dropped\)",
    ),
    ("transpose repeated", _transpose([2, 1, 0]), [0, 0, 1], [2, 3, 4], "holds 0 twice"),
    ("transpose out of range", _transpose([2, 1, 0]), [0, 1, 3], [2, 3, 4], "holds 3 out of"),
    ("transpose negative", _transpose([2, 1, 0]), [-1, 0, 1], [2, 3, 4], "holds -1 out of"),
]


@pytest.mark.parametrize(("name", "good", "bad", "shape", "says"), BAD, ids=[b[0] for b in BAD])
def test_invalid_values_are_check_problems_and_run_refusals(
    name: str, good: Any, bad: list[int], shape: list[int], says: str, tmp_path: Path
) -> None:
    xml = _model(good, shape, tmp_path)
    bin_path = xml.with_suffix(".bin")
    data = bytearray(bin_path.read_bytes())
    assert len(data) == 8 * len(bad)  # the one Const: its values
    data[:] = np.array(bad, dtype=np.int64).tobytes()
    bin_path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError):
        ov.Core().read_model(str(xml)).validate_nodes_and_infer_types()
    op = "Reshape" if name.startswith("reshape") else "Transpose"
    argument = "shape" if op == "Reshape" else "input_order"
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert (problem.layer_type, problem.kind) == (op, "operator")
    assert f"{op}: {argument}={bad}" in problem.message
    assert __import__("re").search(says, problem.message), problem.message
    with pytest.raises(ir.IRError, match=says):
        model.run({"x": _arange(tuple(shape))})


def _run_time_model(op: str, length: int, tmp_path: Path, special_zero: bool = False) -> Path:
    # the target or order an input of this length (the CPU plugin refuses a Reshape of dynamic
    # rank), read at each run
    x = ops.parameter([-1, -1, -1], np.float32, name="x")
    values = ops.parameter([length], np.int64, name="v")
    out = ops.reshape(x, values, special_zero) if op == "Reshape" else ops.transpose(x, values)
    out.output(0).get_tensor().set_names({"y"})
    return ov_models.save(ov.Model([out], [x, values]), tmp_path, f"{op}_{special_zero}")


@pytest.mark.parametrize(("op", "length"), [("Reshape", 2), ("Reshape", 0), ("Transpose", 3)])
@pytest.mark.parametrize("new", ["[4,3,4]", "[1..5,3,0]", "[?,2,3..6]"])
def test_new_input_shapes_keep_the_rank_the_layer_fixes(
    op: str, length: int, new: str, tmp_path: Path
) -> None:
    # Under check(input_shapes), a target or order read at run time is no shape: OpenVINO
    # infers the graph again and gives a Reshape one dim per target entry, a Transpose the
    # data's rank (each dim any size), where datamove once gave any rank. datamove's Transpose
    # dims are each one of the data's: within their hull.
    xml = _run_time_model(op, length, tmp_path)
    got, _ = ir.read_model(xml).check(input_shapes={"x": new}).outputs["y"]
    model = ov.Core().read_model(xml)
    model.reshape({"x": ov.PartialShape(new)})
    want = dm.PartialShape.parse(str(model.output("y").get_partial_shape()))
    assert got.rank == want.rank
    assert want.compatible(got)
    if op == "Reshape":
        assert got == want == dm.PartialShape.dynamic(length)
    else:
        dims = dm.PartialShape.parse(new).dims
        hull = dims[0].union(dims[1]).union(dims[2])
        assert got == dm.PartialShape([hull] * 3)


def test_a_target_of_any_rank_gives_any_rank(tmp_path: Path) -> None:
    # a run-time target whose rank is not known either: any rank, as OpenVINO, and no problem
    x = ops.parameter([2, 3, 4], np.float32, name="x")
    target = ops.parameter(ov.PartialShape.dynamic(), np.int64, name="v")
    out = ops.reshape(x, target, False)
    out.output(0).get_tensor().set_names({"y"})
    xml = ov_models.save(ov.Model([out], [x, target]), tmp_path, "any_rank")
    model = ir.read_model(xml)
    for report in (model.check(), model.check(input_shapes={"x": "[4,3,4]"})):
        assert report.ok, report.problems
        assert report.outputs["y"][0] == dm.PartialShape(None)


RUN_TIME = [
    ("Reshape", True, (2, 3, 4), [0, -1]),
    ("Reshape", True, (2, 3, 4), [0, 0, 2, 2]),
    ("Reshape", False, (2, 3, 4), [4, -1, 2]),
    ("Reshape", False, (1, 1, 1), []),
    ("Reshape", True, (0, 3, 4), [0, -1]),
    ("Transpose", False, (2, 3, 4), [2, 0, 1]),
    ("Transpose", False, (2, 3, 4), []),
    ("Transpose", False, (0, 3, 1), [1, 2, 0]),
]


@pytest.mark.parametrize(("op", "special_zero", "size", "values"), RUN_TIME)
def test_values_read_at_run_time(
    op: str, special_zero: bool, size: tuple[int, ...], values: list[int], tmp_path: Path
) -> None:
    xml = _run_time_model(op, len(values), tmp_path, special_zero)
    model = ir.read_model(xml)
    assert model.check().ok
    inputs = {"x": _arange(size), "v": np.array(values, np.int64)}
    ref = xml  # an empty order read at run time: the CPU plugin fails ("ptr is Null")
    if not values:
        build = _reshape([], special_zero) if op == "Reshape" else _transpose(np.zeros(0))
        ref = _model(build, list(size), tmp_path, "ref")
    want = ov_models.run_openvino(ref, {"x": inputs["x"]} if not values else inputs)
    for _ in range(3):
        _assert_same(model.run(inputs), want)
    assert model.shape_plan_info().planned == 0  # the shape depends on a value: never planned


@pytest.mark.parametrize(
    ("op", "values", "says"),
    [
        ("Reshape", [-1, -1], r"Reshape: shape=\[-1, -1\] holds -1 twice"),
        (
            "Reshape",
            [5, -1],
            (
                r"Reshape: shape=\[5, -1\] gives \[5, 4\] \(20 elements\), but .* has 24 "
                r"\(hint: no element may be dropped\)"
            ),
        ),
        ("Transpose", [0, 1, 3], r"Transpose: input_order=\[0, 1, 3\] holds 3 out of range"),
        ("Transpose", [0, 1, 1], r"Transpose: input_order=\[0, 1, 1\] holds 1 twice"),
    ],
)
def test_values_read_at_run_time_are_checked(
    op: str, values: list[int], says: str, tmp_path: Path
) -> None:
    # OpenVINO's CPU plugin refuses each of these too; datamove names the layer and the rule
    xml = _run_time_model(op, len(values), tmp_path)
    inputs = {"x": _arange((2, 3, 4)), "v": np.array(values, np.int64)}
    with pytest.raises(ir.IRError, match="failed at run time: " + says):
        ir.read_model(xml).run(inputs)
    with pytest.raises(openvino_oracle.OpenVINOError):
        ov_models.run_openvino(xml, inputs)


def test_minus_one_beside_a_dim_of_0_is_1(tmp_path: Path) -> None:
    # IR-22 (docs/semantics.md): -1 beside a dim of 0 keeps the element count (0) at any size.
    # OpenVINO's shape inference makes it 1 (a constant target: the CPU plugin runs [1, 0]),
    # its CPU plugin 0 where the target is read at run time; datamove 1, as the file declares.
    inputs = {"x": _arange((0, 3))}
    xml = _model(_reshape([-1, 0], False), [0, 3], tmp_path)
    assert ov_models.openvino_shapes(xml)["y"] == "[1,0]"
    assert ov_models.run_openvino(xml, inputs)["y"].shape == (1, 0)
    assert ir.read_model(xml).run(inputs)["y"].shape == (1, 0)
    dynamic = _run_time_model("Reshape", 2, tmp_path)
    inputs = {"x": _arange((0, 3, 1)), "v": np.array([-1, 0], np.int64)}
    assert ov_models.run_openvino(dynamic, inputs)["y"].shape == (0, 0)
    assert ir.read_model(dynamic).run(inputs)["y"].shape == (1, 0)


def test_special_zero_with_more_elements_is_refused(tmp_path: Path) -> None:
    # IR-23 (docs/semantics.md): OpenVINO's shape inference does not count the elements where
    # special_zero copies a dim (or a -1 is given), so it builds [2, 3] -> [0, 5] as [2, 5], and
    # the CPU plugin reads 4 elements past the data; datamove refuses it, check and run.
    xml = _model(_reshape([0, 5], True), [2, 3], tmp_path)
    assert ov_models.openvino_shapes(xml)["y"] == "[2,5]"
    assert ov_models.run_openvino(xml, {"x": _arange((2, 3))})["y"].shape == (2, 5)
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert problem.message == (
        "Reshape: shape=[0, 5] gives [2, 5] (10 elements), but the data's shape [2, 3] has 6 "
        "(hint: no element may be added)"
    )
    with pytest.raises(ir.IRError, match=r"gives \[2, 5\] \(10 elements\)"):
        model.run({"x": _arange((2, 3))})


@st.composite
def _reshapes(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int], bool]:
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    size = int(np.prod(shape))
    dims = draw(st.lists(st.integers(1, 4), min_size=0, max_size=3))
    if size:  # a target of the same element count: the dims drawn, then the rest
        dims = [d for d in dims if size % d == 0]
        rest = size // int(np.prod(dims))
        dims = [*dims, rest] if size % int(np.prod(dims)) == 0 and rest > 1 else dims
    else:
        dims = [*dims, 0]
    special = draw(st.booleans())
    target = list(dims)
    if target and draw(st.booleans()):  # one -1
        target[draw(st.integers(0, len(target) - 1))] = -1
    if special:  # copy dims that are the same
        target = [0 if k < len(shape) and shape[k] == d else d for k, d in enumerate(target)]
    return shape, target, special


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=_reshapes(), order=st.randoms(use_true_random=False))
def test_random_reshapes_and_transposes_run_as_openvino(
    case: tuple[tuple[int, ...], list[int], bool], order: Any, tmp_path: Path
) -> None:
    shape, target, special = case
    if special and 0 in target[len(shape) :]:
        return  # a 0 that copies no dim: the table above pins its refusal
    try:
        want_shape = (
            np.empty(shape)
            .reshape([shape[k] if v == 0 and special else v for k, v in enumerate(target)])
            .shape
        )
    except ValueError:
        return  # a target NumPy does not take (-1 beside 0): the tests above pin those
    if int(np.prod(want_shape)) != int(np.prod(shape)):
        return
    permutation = list(range(len(want_shape)))
    order.shuffle(permutation)

    def build(x: Any) -> Any:
        return ops.transpose(_reshape(target, special)(x), _ints(permutation))

    xml = _model(build, list(shape), tmp_path, name="random")
    inputs = {"x": _arange(shape)}
    want = ov_models.run_openvino(xml, inputs)
    model = ir.read_model(xml)
    assert model.check().ok
    for _ in range(3):
        _assert_same(model.run(inputs), want)


def test_other_libraries_arrays(tmp_path: Path, xp: Any) -> None:
    # split, reshape, transpose on the library's arrays: xp.reshape and xp.permute_dims
    def build(x: Any) -> Any:
        part = ops.split(x, _ints(1), 2).output(1)
        return ops.transpose(ops.reshape(part, _ints([0, -1]), True), _ints([1, 0]))

    xml = _model(build, [2, 4, 3], tmp_path)
    data = _arange((2, 4, 3))
    want = ov_models.run_openvino(xml, {"x": data})["y"]
    got = ir.read_model(xml).run({"x": xp.asarray(data)})["y"]
    np.testing.assert_array_equal(xp.to_numpy(got), want)


def test_an_empty_reshape_numpy_cannot_hold_is_refused(tmp_path: Path) -> None:
    # [0] -> [2**62, 0] keeps the element count; NumPy holds no such array (it counts every
    # dim but the zeros): a check problem and a run refusal, never NumPy's ValueError
    x = ops.parameter([0], np.float32, name="x")
    xml = ov_models.save(ov.Model([ops.reshape(x, _ints([2**62, 0]), False)], [x]), tmp_path)
    (problem,) = ir.read_model(xml).check().problems
    assert problem.message.startswith(
        f"Reshape: shape=[{2**62}, 0] gives [{2**62}, 0], which needs 2**64 bytes or more as f32"
    )
    values = ops.parameter([2], np.int64, name="v")
    y = ops.reshape(ops.parameter([0], np.float32, name="x"), values, False)
    model = ir.read_model(ov_models.save(ov.Model([y], [y.input_value(0).node, values]), tmp_path))
    inputs = {"x": np.zeros(0, np.float32), "v": np.array([2**62, 0])}
    with pytest.raises(ir.IRError, match="which NumPy cannot hold"):
        model.run(inputs)


def test_a_transpose_declared_narrower_has_a_witness(tmp_path: Path) -> None:
    # Its dims are its input's moved (free): a data shape alone is a witness, as for a slice
    x = ops.parameter(ov.PartialShape([ov.Dimension(1, 5), 3]), np.float32, name="x")
    xml = ov_models.save(ov.Model([ops.transpose(x, _ints([1, 0]))], [x]), tmp_path)
    text = xml.read_text()
    start = text.index("<output>", text.index('type="Transpose"'))
    end = text.index("</output>", start)
    xml.write_text(
        text[:start] + text[start:end].replace("<dim>-1</dim>", "<dim>2</dim>") + text[end:]
    )
    (problem,) = ir.read_model(xml).check().problems
    assert problem.message == (
        "declares [3,2], but data of shape [1,3] gives [3,1] (the shape is [3,1..5])"
    )
    assert problem.witness == ((1, 3), (3, 1))


def test_an_order_whose_declared_length_is_not_the_rank_is_a_problem(tmp_path: Path) -> None:
    # An order input declared [2] for data of rank 3: OpenVINO's shape inference refuses the
    # node (the opset API will not build it, so the file is edited), and reading it fails
    xml = _run_time_model("Transpose", 3, tmp_path)
    text = xml.read_text().replace("<dim>3</dim>", "<dim>2</dim>").replace('shape="3"', 'shape="2"')
    xml.write_text(text)
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    says = "Transpose: input_order='[2]' must hold 3 values (the data's rank) or none"
    assert problem.message == says
    inputs = {"x": _arange((2, 3, 4)), "v": np.array([0, 1], np.int64)}
    with pytest.raises(ir.IRError, match=r"cannot run: " + re.escape(says)):
        model.run(inputs)
    with pytest.raises(openvino_oracle.OpenVINOError, match="Input order must have shape"):
        ov_models.run_openvino(xml, inputs)


@pytest.mark.parametrize(("etype", "precision"), [("boolean", "BOOL"), ("f32", "FP32")])
def test_a_constant_order_not_of_integers_is_refused(
    etype: str, precision: str, tmp_path: Path
) -> None:
    # A Const order [1, 0] of booleans or floats (the opset API will not build it, so the file
    # is edited): OpenVINO refuses to read the node; datamove's check has one problem, and run
    # refuses the layer, before any shape-subgraph fold could read the order
    xml = _model(_transpose([1, 0]), [2, 3], tmp_path)
    value = np.array([1, 0], dtype=np.float32 if etype == "f32" else np.bool_).tobytes()
    text = xml.read_text()
    assert text.count('element_type="i64"') == 1  # the one Const: the order
    text = text.replace('element_type="i64"', f'element_type="{etype}"')
    text = text.replace('size="16"', f'size="{len(value)}"').replace('"I64"', f'"{precision}"')
    xml.write_text(text)
    xml.with_suffix(".bin").write_bytes(value)
    with pytest.raises(RuntimeError, match="integral number"):
        ov.Core().read_model(str(xml)).validate_nodes_and_infer_types()
    says = f"Transpose: input_order='{etype}' must be of an integer element type"
    model = ir.read_model(xml)
    (problem,) = model.check().problems
    assert (problem.layer_type, problem.kind, problem.message) == ("Transpose", "operator", says)
    with pytest.raises(ir.IRError, match=r"cannot run: " + re.escape(says)):
        model.run({"x": _arange((2, 3))})


@pytest.mark.parametrize("order", ["constant", "input of any length"])
def test_an_order_of_another_length_than_the_rank_run_is_refused(
    order: str, tmp_path: Path
) -> None:
    # Data of any rank (the CPU plugin takes no Parameter of dynamic rank): check cannot hold
    # the order's length to the rank; run does. OpenVINO's evaluate of order [1, 0] on rank 3
    # gave a (3, 2) of memory it never wrote, or crashed, run to run (not run here: a Const
    # order; read at run time it crashed on rank 2 too): docs/semantics.md, IR-26
    x = ops.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    v = _ints([1, 0]) if order == "constant" else ops.parameter([-1], np.int64, name="v")
    out = ops.transpose(x, v)
    out.output(0).get_tensor().set_names({"y"})
    xml = ov_models.save(ov.Model([out], [x] if order == "constant" else [x, v]), tmp_path)
    model = ir.read_model(xml)
    assert model.check().ok
    runs = {"x": _arange((3, 2))} | ({} if order == "constant" else {"v": np.array([1, 0])})
    _assert_same(model.run(runs), {"y": runs["x"].T})
    says = (
        "Transpose: input_order=[1, 0] has 2 values, but it must be a permutation of 0 to 2 "
        "(the data's rank is 3), or empty"
    )
    with pytest.raises(ir.IRError, match="failed at run time: " + re.escape(says)):
        model.run(runs | {"x": _arange((2, 3, 4))})
    if order == "constant":  # read at run time, evaluate crashed on rank 2 as well
        (want,) = openvino_oracle.evaluate_ir(xml, runs)
        np.testing.assert_array_equal(want, runs["x"].T)
