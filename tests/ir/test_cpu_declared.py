"""IR-6: ``check()`` notes a cut OpenVINO's shape inference declares otherwise on an interval.

OpenVINO declares a Slice's or StridedSlice's length from the lengths at the interval's two
ends (S-6, `datamove._dialects.openvino_declared`); its CPU plugin refuses a size whose length
lies outside (or, where the cut is declared empty, leaves it out of a Concat). Each model is
built with OpenVINO's API: ``check`` names the smallest such size, and the plugin (in the
oracle's worker process) indeed refuses it; sound cuts get no note and run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir

ov_models = pytest.importorskip("ov_models")
openvino_oracle = pytest.importorskip("openvino_oracle")
_cpu = openvino_oracle.run_ir_one  # the output, or why the plugin gave none
ov, ops, ops8 = ov_models.ov, ov_models.ops, ov_models.ops8

pytestmark = pytest.mark.openvino


def _c(values: Any) -> Any:
    return ops.constant(np.array(values, dtype=np.int64))


def _data(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)


def _interval(op: str, shape: str, start: int, stop: int, step: int, axis: int = 0) -> Any:
    """x of an interval shape -> one Slice (axes ``[axis]``) or StridedSlice on that axis."""
    x = ops.parameter(ov.PartialShape(shape), np.float32, name="x")
    if op == "Slice":
        y = ops8.slice(x, _c([start]), _c([stop]), _c([step]), _c([axis]))
    else:
        n = axis + 1
        pad = [0] * axis
        y = ops.strided_slice(
            x, _c([*pad, start]), _c([*pad, stop]), _c([1] * axis + [step]),
            begin_mask=[1] * axis + [0], end_mask=[1] * axis + [0], new_axis_mask=[0] * n,
            shrink_axis_mask=[0] * n, ellipsis_mask=[0] * n,
        )  # fmt: skip
    return ov.Model([ops.result(y)], [x], "m")


# (shape, start, stop, step, axis, the size the note names or None: no note); OpenVINO declares
# the lengths at the interval's ends, an empty interval where the first is the longer (S-6)
IR6_CASES: dict[str, tuple[str, int, int, int, int, int | None]] = {
    "x[-5:3] on [5..6,2]: an empty interval": ("[5..6,2]", -5, 3, 1, 0, 5),
    "x[:, -9:2] on [2,5..10]: an empty interval": ("[2,5..10]", -9, 2, 1, 1, 5),
    "x[-4:-4:-1] on [?,4]: declared 0, one row at 1": ("[?,4]", -4, -4, -1, 0, 1),
    "x[-4:7:2] on [2..10]: declared 1, two at 3": ("[2..10]", -4, 7, 2, 0, 3),
    "x[-5:-3:-1] on [?]: declared 0, one at 1": ("[?]", -5, -3, -1, 0, 1),
    "x[1:3] on [5..6,2]: sound": ("[5..6,2]", 1, 3, 1, 0, None),
    "x[-2:] on [2..9]: sound": ("[2..9]", -2, 2**62, 1, 0, None),
    "x[-4:7:2] on [1..]: only empty results outside": ("[1..]", -4, 7, 2, 0, None),
}


@pytest.mark.parametrize("op", ["Slice", "StridedSlice"])
@pytest.mark.parametrize("name", list(IR6_CASES))
def test_check_notes_a_cut_openvino_declares_otherwise_on_an_interval(
    tmp_path: Path, op: str, name: str
) -> None:
    # IR-6: the CPU plugin refuses a size whose length lies outside what OpenVINO's shape
    # inference declares; check names the smallest, and the plugin indeed refuses it
    shape, start, stop, step, axis, size = IR6_CASES[name]
    xml = ov_models.save(_interval(op, shape, start, stop, step, axis), tmp_path, "m")
    report = ir.read_model(xml).check()
    # where the file declares OpenVINO's static length, check finds that wrong too
    assert all(p.kind == "shape" for p in report.problems), report.problems
    notes = [n for n in report.notes if n.kind == "openvino-cpu"]
    dims = [int(d.get_min_length()) for d in ov.PartialShape(shape)]
    if size is None:
        assert notes == []
        dims[axis] = {"[1..]": 100}.get(shape, dims[axis])  # an empty result it runs
    else:
        (note,) = notes
        assert note.message.startswith("divergence IR-6 (docs/semantics.md): ")
        assert f"size {size} on axis {axis}" in note.message, note.message
        dims[axis] = size
    x = _data(tuple(dims))
    (want,) = openvino_oracle.evaluate_ir(xml, {"x": x})
    cpu = _cpu(xml, {"x": x})
    if size is None:
        assert not isinstance(cpu, str), cpu
        np.testing.assert_array_equal(cpu, want)
    else:
        assert isinstance(cpu, str), f"OpenVINO's CPU plugin now runs IR-6 right ({cpu})"
        assert want.shape[axis] > 0


def test_the_cpu_plugin_leaves_such_a_cut_out_of_a_concat_that_takes_it(tmp_path: Path) -> None:
    # IR-6, run wrong instead of refused: x[:, -7:-7:-1] on [2,?] is declared [2,0], though one
    # column comes out at 1 to 6 columns. Alone, the plugin refuses those sizes; concatenated
    # to x, it runs them and leaves the column out, [2,6] for evaluate's [2,7]. The note says so.
    x = ops.parameter(ov.PartialShape("[2,?]"), np.float32, name="x")
    cut = ops8.slice(x, _c([-7]), _c([-7]), _c([-1]), _c([1]))
    model = ov.Model([ops.result(ops.concat([x, cut], 1))], [x], "m")
    xml = ov_models.save(model, tmp_path, "m")
    data = _data((2, 6))
    (want,) = openvino_oracle.evaluate_ir(xml, {"x": data})
    np.testing.assert_array_equal(want, np.concatenate([data, data[:, :1]], 1))
    np.testing.assert_array_equal(next(iter(ir.read_model(xml).run({"x": data}).values())), want)
    cpu = _cpu(xml, {"x": data})
    assert not isinstance(cpu, str), cpu
    np.testing.assert_array_equal(cpu, data)  # the column left out
    (note,) = [n for n in ir.read_model(xml).check().notes if n.kind == "openvino-cpu"]
    assert note.message.startswith("divergence IR-6 (docs/semantics.md): ")
    assert "outside, or leaves its elements out of a Concat that takes it (size 1 " in note.message
