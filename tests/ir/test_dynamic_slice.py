"""A slice of a run-time start and a constant length (``dynamic_slice``): ``stop = start + c``.

datamove links the stop to the start (`datamove.ir._offsets`) and bounds the slice's length by
``ceil(c / |step|)``, where OpenVINO, and bounds alone, know nothing. Every test runs the model
on OpenVINO's CPU plugin at many (size, start) pairs: each output's size lies in datamove's
interval, and the interval's top is reached.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import Dimension, ir

ov_models = pytest.importorskip("ov_models")
torch = pytest.importorskip("torch")
dynamic_slices = pytest.importorskip("dynamic_slices")
ov = ov_models.ov
ops = ov_models.ops8

pytestmark = pytest.mark.openvino

I64_MAX = 2**63 - 1
I64_MIN = -(2**63)
SIZES = [0, 1, 3, 4, 5, 9]
# negative starts, starts past the dim, and starts whose start + c wraps past either end
STARTS = [-12, -9, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 5, 8, 9, 12, I64_MAX - 1, I64_MIN + 1]


def _sliced_dim(xml: Path) -> Dimension:
    ((shape, _),) = ir.read_model(xml).check().outputs.values()
    return shape[1]


def _lengths(xml: Path, *, rows: int = 2) -> set[int]:
    """The output's axis-1 lengths on the CPU plugin over `SIZES` by `STARTS`."""
    compiled = ov.Core().compile_model(str(xml), "CPU")
    got = set()
    for size, start in itertools.product(SIZES, STARTS):
        x = np.zeros((rows, size), np.float32)
        (out,) = compiled({"x": x, "s": np.array(start, np.int64)}).values()
        assert out.shape[0] == rows
        got.add(out.shape[1])
    return got


def _saved(y: Any, params: list[Any], tmp_path: Path) -> Path:
    model = ov.Model([ops.result(y)], params, "m")
    return ov_models.save(model, tmp_path)


def _slice_model(
    tmp_path: Path, make_stop: Any, step: int, *, start_of: Any = None, dtype: Any = np.int64
) -> Path:
    x = ops.parameter([2, -1], np.float32, name="x")
    s = ops.parameter([], dtype, name="s")
    one = ops.unsqueeze(s, ops.constant(np.int64(0)))
    start = one if start_of is None else start_of(one)
    stop = make_stop(one)
    const = lambda v: ops.constant(np.array([v], dtype))  # noqa: E731
    y = ops.slice(x, start, stop, const(step), ops.constant(np.array([1], np.int64)))
    return _saved(y, [x, s], tmp_path)


def _c(value: int) -> Any:
    return ops.constant(np.array([value], np.int64))


@pytest.mark.parametrize(
    ("name", "make_stop", "step", "start_of", "most"),
    [
        pytest.param("s+4", lambda s: ops.add(s, _c(4)), 1, None, 4, id="stop=start+4"),
        pytest.param("4+s", lambda s: ops.add(_c(4), s), 1, None, 4, id="stop=4+start"),
        pytest.param("s+5,2", lambda s: ops.add(s, _c(5)), 2, None, 3, id="stop=start+5,step=2"),
        pytest.param("s-3,-1", lambda s: ops.subtract(s, _c(3)), -1, None, 3, id="stop=start-3,-1"),
        pytest.param(
            "s+(-4),-2", lambda s: ops.add(s, _c(-4)), -2, None, 2, id="stop=start+(-4),step=-2"
        ),
        pytest.param(
            "(s+7)-3",
            lambda s: ops.subtract(ops.add(s, _c(7)), _c(3)),
            1,
            None,
            4,
            id="stop=(start+7)-3",
        ),
        pytest.param(
            "start=stop-4",
            lambda s: s,
            1,
            lambda s: ops.subtract(s, _c(4)),
            4,
            id="start=stop-4",
        ),
        pytest.param("s+0", lambda s: ops.add(s, _c(0)), 1, None, 0, id="stop=start+0"),
    ],
)
def test_a_stop_of_start_plus_c_bounds_the_length_as_the_cpu_plugin_runs_it(
    tmp_path: Path, name: str, make_stop: Any, step: int, start_of: Any, most: int
) -> None:
    xml = _slice_model(tmp_path, make_stop, step, start_of=start_of)
    dim = _sliced_dim(xml)
    assert dim == Dimension(0, most), name
    got = _lengths(xml)
    assert all(n in dim for n in got), (name, sorted(got))
    assert max(got) == most, name  # the bound is reached


@pytest.mark.parametrize(
    ("make_stop", "step", "dtype", "longer"),
    [
        pytest.param(lambda s: ops.add(s, _c(-2)), 1, np.int64, True, id="stop behind start"),
        pytest.param(lambda s: ops.add(s, _c(2)), -1, np.int64, True, id="step against c"),
        pytest.param(
            lambda s: ops.add(s, ops.constant(np.array([4], np.int32))),
            1,
            np.int32,
            False,
            id="i32",
        ),
        pytest.param(lambda s: ops.multiply(s, _c(2)), 1, np.int64, False, id="not an Add"),
    ],
)
def test_no_bound_where_the_stop_may_be_read_past_the_start(
    tmp_path: Path, make_stop: Any, step: int, dtype: Any, longer: bool
) -> None:
    # stop = start - 2 with step 1 takes d - 2 at start 1 (stop -1 is the last but one); an
    # i32 start + c may wrap where a dim of 2**31 elements is sliced: neither is bounded
    xml = _slice_model(tmp_path, make_stop, step, dtype=dtype)
    dim = _sliced_dim(xml)
    assert dim.max is None
    if longer:
        assert max(_lengths(xml)) > 4


def _convert(module: Any, tmp_path: Path) -> Path:
    with warnings.catch_warnings():  # convert_model traces, which torch 2.13 deprecates
        warnings.filterwarnings("ignore", r"`torch\.jit\.trace", DeprecationWarning)
        warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
        converted = ov.convert_model(
            module.eval(),
            example_input=(torch.zeros(2, 10), torch.tensor(3)),
            input=[([-1, -1], ov.Type.f32), ([], ov.Type.i64)],
        )
    for port, name in zip(converted.inputs, ("x", "s"), strict=True):
        port.get_tensor().set_names({name})
    converted.outputs[0].get_tensor().set_names({"y"})
    return ov_models.save(converted, tmp_path)


@pytest.mark.parametrize(
    "module",
    [dynamic_slices.Narrow, dynamic_slices.Sliced],
    ids=["x.narrow(1, s, 4)", "x[:, s:s+4]"],
)
def test_converted_torch_dynamic_slices_are_at_most_4_long(tmp_path: Path, module: Any) -> None:
    xml = _convert(module(), tmp_path)
    text = xml.read_text()
    assert 'type="Slice"' in text
    assert 'type="Add"' in text
    dim = _sliced_dim(xml)
    assert dim == Dimension(0, 4)
    assert ov_models.openvino_shapes(xml) == {"y": "[?,?]"}  # OpenVINO: any length
    got = _lengths(xml)
    assert all(n in dim for n in got), sorted(got)
    assert max(got) == 4
    for size, start in itertools.product(SIZES, [-6, -2, 0, 1, 7]):  # as torch slices it
        if module is dynamic_slices.Narrow and not 0 <= start % max(size, 1) <= size - 4:
            continue  # narrow refuses a start past the dim
        x = torch.zeros(2, size)
        want = module()(x, torch.tensor(start)).shape[1]
        compiled = ov.Core().compile_model(str(xml), "CPU")
        (out,) = compiled({"x": x.numpy(), "s": np.array(start, np.int64)}).values()
        assert out.shape[1] == want, (size, start)


@pytest.mark.parametrize(
    ("masks", "most"),
    [
        pytest.param({}, 4, id="masks 0"),
        pytest.param({"begin_mask": [1]}, None, id="begin ignored"),
        pytest.param({"end_mask": [1]}, None, id="end ignored"),
    ],
)
def test_a_strided_slice_of_end_begin_plus_c_is_bounded_where_both_are_read(
    tmp_path: Path, masks: dict[str, list[int]], most: int | None
) -> None:
    # StridedSlice on x transposed to put the sliced axis first: [?,2] -> axis 0
    x = ops.parameter([2, -1], np.float32, name="x")
    s = ops.parameter([], np.int64, name="s")
    begin = ops.unsqueeze(s, ops.constant(np.int64(0)))
    end = ops.add(begin, _c(4))
    data = ops.transpose(x, ops.constant(np.array([1, 0], np.int64)))
    given = {"begin_mask": [0], "end_mask": [0], **masks}
    y = ops.strided_slice(data, begin, end, _c(1), given["begin_mask"], given["end_mask"])
    y = ops.transpose(y, ops.constant(np.array([1, 0], np.int64)))
    xml = _saved(y, [x, s], tmp_path)
    dim = _sliced_dim(xml)
    assert dim.max == most
    got = _lengths(xml)
    assert all(n in dim for n in got), sorted(got)
    assert max(got) == (4 if most is not None else max(SIZES))


# the CPU plugin runs a run-time i64 start as 32 bits (docs/semantics.md, #9): starts in i32
STARTS_32 = [s for s in STARTS if abs(s) < 2**31] + [2**31 - 9, -(2**31)]


def _explained(xml: Path) -> tuple[str, dict[str, str]]:
    """The slice's NumPy text and its run-time names, as explain gives them."""
    entries = ir.read_model(xml).explain()
    (info,) = (e for e in entries if e["layer_type"] in ("Slice", "StridedSlice"))
    return info["numpy"], info["runtime"]


def _runs_as_the_cpu_plugin(
    xml: Path, text: str, name: str, *, shift: int = 0, transposed: bool = False
) -> None:
    """``text`` evaluated with NumPy (``name``: ``s + shift``) equals the CPU plugin's output."""
    compiled = ov.Core().compile_model(str(xml), "CPU")
    for size, start in itertools.product(SIZES, STARTS_32):
        x = np.arange(2 * size, dtype=np.float32).reshape(2, size)
        (out,) = compiled({"x": x, "s": np.array(start, np.int64)}).values()
        data = x.T if transposed else x
        want = eval(text, {"x": data, name: start + shift})  # noqa: S307 - explain's own text
        want = want.T if transposed else want
        np.testing.assert_array_equal(want, out, err_msg=f"{size=} {start=}")


@pytest.mark.parametrize(
    ("make_stop", "step", "start_of", "written"),
    [
        pytest.param(lambda s: ops.add(s, _c(4)), 1, None, "{s}:{s}+4", id="stop=start+4"),
        pytest.param(lambda s: ops.add(_c(4), s), 1, None, "{s}:{s}+4", id="stop=4+start"),
        pytest.param(lambda s: ops.add(s, _c(5)), 2, None, "{s}:{s}+5:2", id="step=2"),
        pytest.param(
            lambda s: ops.subtract(ops.add(s, _c(7)), _c(3)), 1, None, "{s}:{s}+4", id="(s+7)-3"
        ),
        pytest.param(
            lambda s: s, 1, lambda s: ops.subtract(s, _c(4)), "{s}:{s}+4", id="start=stop-4"
        ),
        # s - 3 past INT64_MIN wraps to a stop past the end, NumPy's is before the start; a
        # stop of the start plus 0 is left alone too
        pytest.param(lambda s: ops.subtract(s, _c(3)), -1, None, None, id="stop=start-3,-1"),
        pytest.param(lambda s: ops.add(s, _c(-2)), 1, None, None, id="stop=start-2"),
        pytest.param(lambda s: ops.add(s, _c(0)), 1, None, None, id="stop=start+0"),
    ],
)
def test_explain_writes_a_stop_of_start_plus_c_as_the_cpu_plugin_runs_it(
    tmp_path: Path, make_stop: Any, step: int, start_of: Any, written: str | None
) -> None:
    xml = _slice_model(tmp_path, make_stop, step, start_of=start_of)
    text, runtime = _explained(xml)
    if written is None:
        assert len(runtime) == 2, text  # the stop keeps its own name
        return
    (name,) = runtime
    assert text == f"x[:, {written.format(s=name)}]"
    _runs_as_the_cpu_plugin(xml, text, name, shift=0 if start_of is None else -4)


@pytest.mark.parametrize(
    ("masks", "written"),
    [
        pytest.param({}, True, id="masks 0"),
        pytest.param({"end_mask": [1]}, False, id="end ignored"),
    ],
)
def test_explain_writes_a_strided_slice_end_of_begin_plus_c_where_both_are_read(
    tmp_path: Path, masks: dict[str, list[int]], written: bool
) -> None:
    x = ops.parameter([2, -1], np.float32, name="x")
    s = ops.parameter([], np.int64, name="s")
    begin = ops.unsqueeze(s, ops.constant(np.int64(0)))
    data = ops.transpose(x, ops.constant(np.array([1, 0], np.int64)))
    given = {"begin_mask": [0], "end_mask": [0], **masks}
    y = ops.strided_slice(
        data, begin, ops.add(begin, _c(4)), _c(1), given["begin_mask"], given["end_mask"]
    )
    xml = _saved(ops.transpose(y, ops.constant(np.array([1, 0], np.int64))), [x, s], tmp_path)
    text, runtime = _explained(xml)
    (name,) = (n for n, what in runtime.items() if what.startswith("begin:"))
    assert text == (f"x[{name}:{name}+4]" if written else f"x[{name}:]")
    _runs_as_the_cpu_plugin(xml, text, name, transposed=True)


@pytest.mark.parametrize(
    "module",
    [dynamic_slices.Narrow, dynamic_slices.Sliced],
    ids=["x.narrow(1, s, 4)", "x[:, s:s+4]"],
)
def test_explain_writes_converted_torch_dynamic_slices_as_s_plus_4(
    tmp_path: Path, module: Any
) -> None:
    xml = _convert(module(), tmp_path)
    text, runtime = _explained(xml)
    (name,) = runtime
    assert text == f"x[:, {name}:{name}+4]"
    _runs_as_the_cpu_plugin(xml, text, name)
