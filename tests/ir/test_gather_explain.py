"""``explain`` of an IR's Gather of constant indices against OpenVINO's CPU plugin.

``openvino.convert_model`` makes ``x[:, -1]`` a Gather-8. Explain's NumPy text, evaluated on the
input, gives the plugin's output, on the static shape and on a dynamic one (the text for every
size); where an index is out of range of the static axis, Gather-8 gives zeros where NumPy
raises: no text, a note; on a dynamic axis, the text and the sizes where it is so
(``out_of_range``). A Gather of ``batch_dims`` 1 is no basic index: a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datamove import ir
from strategies import examples

ov_models = pytest.importorskip("ov_models")
openvino_oracle = pytest.importorskip("openvino_oracle")
o8 = pytest.importorskip("openvino.opset8")
ov = ov_models.ov

pytestmark = pytest.mark.openvino


def _gather(shape: list[int], indices: Any, axis: int, tmp: Path, batch_dims: int = 0) -> Path:
    """A Gather-8 of ``x`` (every dim dynamic) by constant ``indices``, saved."""
    x = o8.parameter([-1] * len(shape), np.float32, name="x")
    i = o8.constant(np.asarray(indices, np.int64))
    out = o8.gather(x, i, o8.constant(np.int64(axis)), batch_dims)
    out.set_friendly_name("take")
    return ov_models.save(ov.Model([out], [x], "m"), tmp)


def _explained(model: Any, **shapes: Any) -> dict[str, Any]:
    (info,) = [i for i in model.explain(**shapes) if i["layer_type"] == "Gather"]
    return info


def _evaluated(text: str, x: np.ndarray) -> Any:
    return eval(text, {"np": np, "x": x})  # noqa: S307 - the expression under test


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.one_of(
        st.integers(-5, 5),
        st.lists(st.integers(-5, 5), min_size=1, max_size=4),  # (OpenVINO makes no empty one)
        st.lists(st.lists(st.integers(-4, 4), min_size=2, max_size=2), min_size=1, max_size=2),
    ),
    st.integers(-3, 2),
)
def test_an_ir_gather_s_numpy_is_what_the_cpu_plugin_computes(
    tmp_path_factory: Any, shape: list[int], indices: Any, axis: int
) -> None:
    if not -len(shape) <= axis < len(shape):
        return
    xml = _gather(shape, indices, axis, tmp_path_factory.mktemp("g"))
    model = ir.read_model(xml)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    ((_, want),) = openvino_oracle.run_ir(xml, {"x": x})
    repro = f"Gather-8({shape}, {indices}, axis={axis})"
    d = shape[axis]
    inside = all(-d <= i < d for i in np.asarray(indices).reshape(-1).tolist())
    static = _explained(model, input_shapes={"x": shape})
    dynamic = _explained(model)
    if not inside:  # Gather-8 gives zeros, NumPy raises: a note, no text
        assert static["numpy"] is None, (repro, static)
        assert "Gather-8 gives zeros there" in static["note"], static
        assert "out_of_range" in dynamic or dynamic["numpy"] is None, (repro, dynamic)
        return
    np.testing.assert_array_equal(_evaluated(static["numpy"], x), want, err_msg=repro)
    np.testing.assert_array_equal(_evaluated(dynamic["numpy"], x), want, err_msg=repro)


def test_batch_dims_is_no_basic_index(tmp_path: Path) -> None:
    xml = _gather([2, 3], [[0, 2], [1, 1]], 1, tmp_path, batch_dims=1)
    info = _explained(ir.read_model(xml))
    assert info["numpy"] is None
    assert info["note"].startswith("batch_dims=1 takes the indices of each batch"), info
    assert info["attributes"] == {"batch_dims": 1}


def test_an_index_out_of_range_of_a_dynamic_axis_names_the_sizes(tmp_path: Path) -> None:
    info = _explained(ir.read_model(_gather([2, 3], -1, 1, tmp_path)))
    assert info["numpy"] == "x[:, -1]"
    assert info["out_of_range"] == (
        "index -1 is out of range of x.shape[1] of size 0: Gather-8 gives zeros there"
    )


# a shape subgraph's index of d = x.shape[k]: name -> the layers after ShapeOf -> Gather
COMPUTED: dict[str, Any] = {
    "d - c": lambda d, c: o8.add(d, o8.constant(np.int64(-c))),
    "d // c": lambda d, c: o8.divide(d, o8.constant(np.int64(max(c, 1)))),
    "d * c": lambda d, c: o8.multiply(d, o8.constant(np.int64(c))),
    "d - c - d": lambda d, c: o8.subtract(o8.add(d, o8.constant(np.int64(-c))), d),
    "d // 2 - c": lambda d, c: o8.add(o8.divide(d, o8.constant(np.int64(2))), o8.constant(-c)),
    "(d - c) // 2": lambda d, c: o8.divide(o8.add(d, o8.constant(np.int64(-c))), o8.constant(2)),
}


def _computed(dims: list[Any], k: int, op: str, c: int, axis: int, one_d: bool, tmp: Path) -> Path:
    """``x`` of ``dims`` (-1 dynamic, a pair an interval) at ``COMPUTED[op]`` of ``x.shape[k]``
    on ``axis`` by a Gather-8 (a scalar index, or ``[1]``), the index a second output."""
    x = o8.parameter(
        ov.PartialShape([ov.Dimension(*d) if isinstance(d, tuple) else d for d in dims]),
        np.float32,
        name="x",
    )
    d = o8.gather(o8.shape_of(x), o8.constant(np.int64(k)), o8.constant(np.int64(0)))
    index = COMPUTED[op](d, c)
    if one_d:
        index = o8.unsqueeze(index, o8.constant(np.int64(0)))
    index.set_friendly_name("n")
    out = o8.gather(x, index, o8.constant(np.int64(axis)), 0)
    out.set_friendly_name("take")
    return ov_models.save(ov.Model([out, index], [x], "m"), tmp)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(st.just(-1), st.tuples(st.integers(0, 3), st.integers(3, 6))),
        min_size=1,
        max_size=3,
    ),
    st.data(),
)
def test_a_computed_gather_s_numpy_is_what_the_cpu_plugin_computes(
    tmp_path_factory: Any, dims: list[Any], data: Any
) -> None:
    # x[:, x.shape[1] - 1] as convert_model makes it on dynamic axes: a Gather-8 of indices
    # ShapeOf -> Gather -> Add computes. Explain writes x[:, n], n named after its layer; with
    # n the plugin's, NumPy gives the plugin's output at every size where the index is in range
    # of the axis; where the bounds do not rule out one out of range, out_of_range says so
    rank = len(dims)
    k, axis = data.draw(st.integers(0, rank - 1)), data.draw(st.integers(-rank, rank - 1))
    op, c = data.draw(st.sampled_from(list(COMPUTED))), data.draw(st.integers(-2, 3))
    one_d = data.draw(st.booleans())
    xml = _computed(dims, k, op, c, axis, one_d, tmp_path_factory.mktemp("g"))
    info = _explained(ir.read_model(xml))
    repro = f"{dims} {op} of x.shape[{k}], c={c}, axis={axis}, 1-D={one_d}"
    a = axis % rank
    known = "indices" in info["values"]  # (d * 0, a static d: a constant, written as one)
    if not known:
        assert list(info["runtime"]) == ["n"], repro
        want = f"np.take(x, n, axis={a})" if one_d else "x[" + ", ".join([":"] * a + ["n"]) + "]"
        never = info["note"] is not None and "of every size" in info["note"]  # x.shape[a] + 0..
        assert info["numpy"] == (None if never else want), (repro, info)
    sizes = [
        tuple(data.draw(st.integers(*(d if isinstance(d, tuple) else (0, 5)))) for d in dims)
        for _ in range(4)
    ]
    runs = openvino_oracle.run_ir_each(xml, [{"x": _arange(s)} for s in sizes])
    for size, ((_, got), (_, n)) in zip(sizes, runs, strict=True):
        if not all(-size[a] <= i < size[a] for i in np.asarray(n).reshape(-1).tolist()):
            # zeros by Gather-8, where NumPy raises: said (a constant's on a static axis: a note)
            assert "out_of_range" in info or info["numpy"] is None, (repro, size, info)
            continue
        x = _arange(size)
        text = eval(info["numpy"], {"np": np, "x": x, "n": n})  # noqa: S307 - under test
        np.testing.assert_array_equal(text, got, err_msg=f"{repro} at {size}")


def _arange(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_a_computed_index_is_named_with_its_bounds(tmp_path: Path) -> None:
    # PyTorch's x[:, x.shape[1] - 1] converted on [?,?] and on [1..4,2..8]: the axis's own dim
    # less 1, out of range of no column alone, x[:, x.size(1) // 2] alike; x[:, x.shape[0]]
    # (another axis's dim): by its bounds alone
    pytest.importorskip("torch")
    torch_models = pytest.importorskip("torch_models")
    fn = lambda x: x[:, x.shape[1] - 1]  # noqa: E731
    dynamic = _explained(ir.read_model(torch_models.convert_fn(fn, (3, 6), [-1, -1], tmp_path)))
    assert dynamic["numpy"] == "x[:, aten_sub_Subtract]"
    assert dynamic["runtime"] == {
        "aten_sub_Subtract": "indices: layer 6 'aten::sub/Subtract' (Add)"
    }
    assert dynamic["values"] == {"axis": 1}
    assert dynamic["out_of_range"] == (
        "aten_sub_Subtract is x.shape[1]-1, out of range of x.shape[1] of size 0: Gather-8 "
        "gives zeros there"
    )
    dims = [ov.Dimension(1, 4), ov.Dimension(2, 8)]
    (tmp_path / "b").mkdir()
    bounded = _explained(ir.read_model(torch_models.convert_fn(fn, (3, 6), dims, tmp_path / "b")))
    assert bounded["numpy"] == "x[:, aten_sub_Subtract]"
    assert "out_of_range" not in bounded
    half = lambda x: x[:, x.size(1) // 2]  # noqa: E731
    (tmp_path / "h").mkdir()
    halved = _explained(ir.read_model(torch_models.convert_fn(half, (3, 6), dims, tmp_path / "h")))
    assert halved["numpy"] == "x[:, aten_floor_divide_Floor]"
    assert "out_of_range" not in halved
    other = lambda x: x[:, x.shape[0]]  # noqa: E731
    (tmp_path / "o").mkdir()
    rows = _explained(ir.read_model(torch_models.convert_fn(other, (3, 6), dims, tmp_path / "o")))
    assert rows["numpy"] == "x[:, aten_size_Gather]"
    assert rows["out_of_range"] == (
        "aten_size_Gather is within 1..4, which may be out of range of x.shape[1] of sizes 2..4: "
        "Gather-8 gives zeros there"
    )


@pytest.mark.parametrize(
    ("op", "c", "dims", "out"),
    [
        ("d - c", -1, [-1, -1], [0]),
        ("d - c", -3, [-1, -1], [0, 1]),
        ("d - c", -2, [-1, -1], [0]),
        ("d - c", -1, [2, (2, 8)], []),
        ("d - c", -5, [2, (1, 8)], [1, 2]),
        ("d - c", 0, [-1, (0, 8)], list(range(9))),
        ("d // 2 - c", 0, [-1, -1], [0]),
        ("d // 2 - c", 1, [-1, -1], [0, 1, 2]),
        ("d // 2 - c", -4, [-1, -1], [0, 1, 2]),
        ("d // 2 - c", 0, [2, (1, 8)], []),
    ],
    ids=[
        "x.shape[1]-1",
        "x.shape[1]-3",
        "x.shape[1]-2",
        "-1 of 2..8",
        "-5 of 1..8",
        "x.shape[1]",
        "x.shape[1]//2",
        "x.shape[1]//2+1",
        "x.shape[1]//2-4",
        "x.shape[1]//2 of 1..8",
    ],
)
def test_an_index_of_the_axis_s_own_dim_is_out_of_range_exactly_where_it_is(
    tmp_path: Path, op: str, c: int, dims: list[Any], out: list[int]
) -> None:
    # x.shape[1] + c on axis 1 is in range of size d exactly where -d <= d + c <= d - 1, which
    # the index's bounds alone do not say (-1.. for x.shape[1] - 1): the range line names the
    # sizes where it is not, as for the constant x[:, -1]; there the CPU plugin gives zeros.
    # So for x.shape[1] // 2 + c (x.size(1) // 2: of no column alone)
    xml = _computed(dims, 1, op, -c, 1, False, tmp_path)
    info = _explained(ir.read_model(xml))
    low, high = dims[1] if isinstance(dims[1], tuple) else (0, 12)
    term = "x.shape[1]" + ("//2" if "//" in op else "") + (f"{c:+d}" if c else "")
    if out == list(range(low, high + 1)):  # every size: no NumPy index
        assert info["numpy"] is None
        every = f"n is {term}, out of range of x.shape[1] of every size: Gather-8 gives zeros there"
        assert info["note"] == every
    else:
        assert info["numpy"] == "x[:, n]"
        if out:
            sizes = f"size {out[0]}" if len(out) == 1 else f"sizes {out[0]}..{out[-1]}"
            wide = f"n is {term}, out of range of x.shape[1] of {sizes}: Gather-8 gives zeros there"
            assert info["out_of_range"] == wide, info
        else:
            assert "out_of_range" not in info, info
    runs = [(2, d) for d in range(low, high + 1)]
    got = openvino_oracle.run_ir_each(xml, [{"x": _arange(s) + 1} for s in runs])
    for size, ((_, y), (_, n)) in zip(runs, got, strict=True):
        inside = -size[1] <= int(n) < size[1]
        assert inside == (size[1] not in out), (size, int(n))
        if inside:
            np.testing.assert_array_equal(y, _arange(size)[:, int(n)] + 1)
        elif size[1] > 0:  # (of 0 columns the plugin leaves it unwritten: IR-38)
            np.testing.assert_array_equal(y, np.zeros(2, np.float32))
