"""``Model.run``'s shape plans: from the third run on NumPy inputs of the same shapes and dtypes,
``run`` reuses the indices computed for them. A planned run must return what the checked path
returns (values, dtypes, views), check its inputs on every call, and never use a plan made for
other shapes."""

from __future__ import annotations

import itertools
import re
import sys
import threading
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest

from datamove import ir
from datamove.ir._examples import _XML


def _checked(model: ir.Model, inputs: dict[str, Any]) -> dict[str, Any]:
    """The path without shape plans: a mapping that is not a ``dict`` takes it every time."""
    return model.run(MappingProxyType(inputs))


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except ir.IRError as exc:
        return "error", (type(exc), str(exc))


def _assert_same(got: dict[str, Any], want: dict[str, Any], inputs: dict[str, Any]) -> None:
    assert list(got) == list(want)
    for name, w in want.items():
        g = got[name]
        assert type(g) is type(w), name
        assert (g.dtype, g.shape) == (w.dtype, w.shape), name
        np.testing.assert_array_equal(g, w, err_msg=name)
        assert g.flags.writeable == w.flags.writeable, name
        for array in inputs.values():  # a view of an input in one path is a view in the other
            assert np.shares_memory(g, array) == np.shares_memory(w, array), name


def _planned(model: ir.Model) -> int:
    return model.shape_plan_info().planned


def _compare(model: ir.Model, inputs: dict[str, Any]) -> str:
    """Run ``inputs`` on the checked path, then 3 times as a dict (seen, planned, plan used)."""
    want = _outcome(_checked, model, inputs)
    for _ in range(3):
        got = _outcome(model.run, inputs)
        assert got[0] == want[0], (got, want)
        if want[0] == "ok":
            _assert_same(got[1], want[1], inputs)
        else:
            assert got[1] == want[1]
    return want[0]


def _dynamic_example(tmp_path: Path) -> ir.Model:
    """x [?,?] f32 -> VariadicSplit(axis 1, [2, -1]): two views of x."""
    xml = re.sub(r"<dim>[246]</dim>", "<dim>-1</dim>", _XML.replace('shape="2,6"', 'shape="?,?"'))
    path = tmp_path / "dynamic.xml"
    path.write_text(xml, encoding="utf-8")
    path.with_suffix(".bin").write_bytes(np.array([1, 2, -1], dtype="<i8").tobytes())
    model = ir.read_model(path)
    assert model.check().ok
    return model


def test_each_shape_gets_its_own_plan(tmp_path: Path) -> None:
    model = _dynamic_example(tmp_path)
    shapes = [(2, 6), (3, 2), (2, 6), (1, 9), (2, 1), (3, 2), (0, 4), (1, 9), (2, 1)]
    for shape in shapes:
        x = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape)
        status = _compare(model, {"x": x})
        assert status == ("error" if shape == (2, 1) else "ok"), shape
        if status == "ok":
            out = model.run({"x": x})
            np.testing.assert_array_equal(out["parts_a"], x[:, :2])
            np.testing.assert_array_equal(out["parts_b"], x[:, 2:])
    assert _planned(model) == 4  # (2, 6), (3, 2), (1, 9), (0, 4); none for the error
    assert model.shape_plan_info().shapes == 4
    # Same shape, other memory layout: the same plan, the right values.
    x = np.asfortranarray(np.arange(18, dtype=np.float32).reshape(2, 9)[:, ::-1][:, :6])
    _compare(model, {"x": x})
    assert model.run({"x": x})["parts_b"].tolist() == x[:, 2:].tolist()


def test_the_shapes_remembered_are_bounded_and_dropped_together(tmp_path: Path) -> None:
    model = _dynamic_example(tmp_path)
    limit = model.shape_plan_info().maxsize
    for rows in range(1, limit + 1):  # each shape twice: remembered, then planned
        for _ in range(2):
            model.run({"x": np.zeros((rows, 3), np.float32)})
    assert model.shape_plan_info()[:3] == (limit, limit, limit)
    x = np.arange(6, dtype=np.float32).reshape(1, 6)  # one shape more: all are dropped
    out = model.run({"x": x})
    assert model.shape_plan_info()[:2] == (1, 0)
    np.testing.assert_array_equal(out["parts_b"], x[:, 2:])
    assert _compare(model, {"x": np.zeros((1, 3), np.float32)}) == "ok"  # planned again
    assert model.shape_plan_info()[:2] == (2, 1)


def test_shape_plan_info_while_another_thread_runs(tmp_path: Path) -> None:
    # It iterated the shapes remembered while runs added and dropped them: "RuntimeError:
    # dictionary changed size during iteration" (at every try, 3,000 runs of 200 shapes).
    model = _dynamic_example(tmp_path)
    errors: list[BaseException] = []
    done = threading.Event()

    def ask() -> None:
        while not done.is_set():
            try:
                model.shape_plan_info()
            except Exception as exc:  # noqa: BLE001 - the failure the test looks for
                errors.append(exc)
                return

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often
    asker = threading.Thread(target=ask)
    try:
        asker.start()
        for k in range(3000):
            model.run({"x": np.zeros((k % 200, 6), np.float32)})
    finally:
        done.set()
        asker.join()
        sys.setswitchinterval(switch)
    assert errors == []
    info = model.shape_plan_info()
    assert info.shapes <= info.maxsize


def test_a_model_s_repr_names_its_inputs_and_outputs(tmp_path: Path) -> None:
    assert repr(_dynamic_example(tmp_path)) == (
        "<datamove.ir.Model 'example': IR v11, 6 layers, inputs ['x'], "
        "outputs ['parts_a', 'parts_b']>"
    )


def test_inputs_are_checked_on_every_call(tmp_path: Path) -> None:
    model = _dynamic_example(tmp_path)
    run = model.run
    x = np.zeros((2, 6), np.float32)
    for _ in range(3):  # a plan for x (2, 6) f32 is made, then used
        run({"x": x})
    assert _planned(model) == 1
    with pytest.raises(ir.IRError, match="has no array for input 'x'"):
        run({})
    with pytest.raises(ir.IRError, match="names no input"):
        run({"x": x, "y": x})
    with pytest.raises(ir.IRError, match="names no input"):
        run({"y": x, "x": x})
    with pytest.raises(ir.IRError, match="is not the declared element type f32"):
        run({"x": x.astype(np.float64)})
    with pytest.raises(ir.IRError, match=r"does not fit the declared shape \[\?,\?\]"):
        run({"x": np.zeros((2, 6, 1), np.float32)})
    with pytest.raises(ir.IRError, match="failed at run time"):
        run({"x": np.zeros((2, 1), np.float32)})
    # Inputs that are not plain NumPy arrays take the checked path, as before.
    with pytest.raises(ir.IRError, match="'float64' is not the declared element type f32"):
        run({"x": x.tolist()})
    assert run({"x": np.ma.masked_array(x)})["parts_a"].shape == (2, 2)


@pytest.mark.openvino
@pytest.mark.parametrize("seed", range(40))
def test_random_dynamic_models_plan_like_the_checked_path(tmp_path: Path, seed: int) -> None:
    ov_models = pytest.importorskip("ov_models")
    ov_model, inputs = ov_models.random_model(seed, dynamic=True)
    model = ir.read_model(ov_models.save(ov_model, tmp_path))
    declared, _ = model.inputs["input"]
    base = inputs["input"]
    shapes = [base.shape]
    for axis, delta in itertools.product(range(base.ndim), (-1, 1, 2)):
        shape = list(base.shape)
        shape[axis] = max(0, shape[axis] + delta)
        if tuple(shape) in declared and tuple(shape) not in shapes:
            shapes.append(tuple(shape))
    arrays = [
        (np.arange(int(np.prod(s)), dtype=np.int64).reshape(s) - 3).astype(base.dtype)
        for s in shapes
    ]
    statuses = [_compare(model, {"input": a}) for a in arrays]
    assert statuses[0] == "ok"
    for a in arrays[::-1]:  # every shape again, in another order: no plan made for another shape
        _compare(model, {"input": a})
    assert _planned(model) == statuses.count("ok")


@pytest.mark.openvino
def test_shapes_that_depend_on_values_are_not_planned(tmp_path: Path) -> None:
    pytest.importorskip("ov_models")
    import openvino as ov
    import openvino.opset1 as ops

    x = ops.parameter([-1], np.float32, name="x")
    begin = ops.parameter([1], np.int64, name="begin")
    tail = ops.strided_slice(
        x, begin, ops.constant(np.array([0])), ops.constant(np.array([1])), [0], [1]
    )
    parts = ops.variadic_split(tail, ops.constant(np.int64(0)), ops.constant(np.array([1, -1])))
    path = tmp_path / "m.xml"
    ov.save_model(
        ov.Model([ops.result(parts.output(1))], [x, begin], "m"), str(path), compress_to_fp16=False
    )
    model = ir.read_model(path)
    data = np.arange(8, dtype=np.float32)
    for b in (1, 3, 1, 5, 3):
        inputs = {"x": data, "begin": np.array([b])}
        _compare(model, inputs)
        (out,) = model.run(inputs).values()
        assert out.tolist() == data[b + 1 :].tolist()
    info = model.shape_plan_info()
    assert not info.plannable  # no shape plan: shapes depend on the value of begin
    assert info.shapes == 0


@pytest.mark.openvino
def test_a_split_of_a_run_time_axis_is_not_planned(tmp_path: Path) -> None:
    pytest.importorskip("ov_models")
    import openvino as ov
    import openvino.opset1 as ops

    x = ops.parameter([2, 4], np.float32, name="x")
    axis = ops.parameter([], np.int64, name="axis")
    parts = ops.split(x, axis, 2)
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model(parts.outputs(), [x, axis], "m"), str(path), compress_to_fp16=False)
    model = ir.read_model(path)
    data = np.arange(8, dtype=np.float32).reshape(2, 4)
    for a in (0, 1, -1, 0):
        inputs = {"x": data, "axis": np.array(a)}
        assert _compare(model, inputs) == "ok"
        got = [v.tolist() for v in model.run(inputs).values()]
        assert got == [p.tolist() for p in np.split(data, 2, axis=a)]
    info = model.shape_plan_info()
    assert not info.plannable  # no shape plan: which parts depends on the value of axis
    assert info.shapes == 0


@pytest.mark.openvino
@pytest.mark.parametrize("engine", [False, True], ids=["np.concatenate", "copy engine"])
def test_joins_small_and_large_agree_with_the_checked_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: bool
) -> None:
    # Large joins take dm.concat's copy engine; the shape plan's result must not change.
    pytest.importorskip("ov_models")
    import openvino as ov
    import openvino.opset1 as ops

    from datamove.ir import _model

    if engine:
        monkeypatch.setattr(_model, "JOIN_ENGINE_BYTES", 0)
    x = ops.parameter([2, 3, 4], np.float32, name="x")
    y = ops.parameter([2, 5, 4], np.float32, name="y")
    results = [ops.result(ops.concat([x, y, x], 1)), ops.result(ops.concat([y, x], 1))]
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model(results, [x, y], "m"), str(path))
    model = ir.read_model(path)
    rng = np.random.default_rng(0)
    inputs = {"x": rng.random((2, 3, 4), np.float32), "y": rng.random((2, 5, 4), np.float32)}
    assert _compare(model, inputs) == "ok"
    assert _planned(model) == 1
    got = list(model.run(inputs).values())
    np.testing.assert_array_equal(
        got[0], np.concatenate([inputs["x"], inputs["y"], inputs["x"]], 1)
    )


@pytest.mark.openvino
@pytest.mark.parametrize("with_input", [True, False])
def test_constants_and_odd_names(tmp_path: Path, with_input: bool) -> None:
    # Output names are data, never source: the plan's code only names slots.
    pytest.importorskip("ov_models")
    import openvino as ov
    import openvino.opset1 as ops

    const = ops.constant(np.arange(4, dtype=np.float32).reshape(2, 2))
    params = [ops.parameter([2, 3], np.float32, name="x")] if with_input else []
    joined = ops.concat([*params, const], 1)
    parts = ops.split(joined, ops.constant(np.int64(0)), 2)
    results = [ops.result(const), ops.result(joined), ops.result(parts.output(1))]
    for result, name in zip(results, ["c", "a'b\"}\n)", "__import__('os')"], strict=True):
        result.output(0).get_tensor().set_names({name})
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model(results, params, "m"), str(path), compress_to_fp16=False)
    model = ir.read_model(path)
    inputs = {"x": np.ones((2, 3), np.float32)} if with_input else {}
    assert _compare(model, inputs) == "ok"
    assert _planned(model) == 1
    out = model.run(inputs)
    assert list(out) == ["c", "a'b\"}\n)", "__import__('os')"]
    assert not out["c"].flags.writeable
    assert out["__import__('os')"].tolist() == out["a'b\"}\n)"][1:].tolist()
