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
