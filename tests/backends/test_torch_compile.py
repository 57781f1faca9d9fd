"""The operators on PyTorch tensors under ``torch.compile`` and ``torch.export``.

Dynamo traces each operator whole (``fullgraph=True``): the compiled key and hit of the plan
cache are not called while it traces, and the plan is built in Python from the static shape
(docs/backends.md, "torch.compile and torch.export"). The compiled results are the eager ones
and NumPy's. Compiling costs a fraction of a second per trace, so the property runs few
examples, and ``backend="eager"`` keeps Inductor out: what is tested is dynamo's trace.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import datamove as dm
from datamove import ValidationError
from strategies import fixed_settings

torch = pytest.importorskip("torch")

Op = Callable[[Any], Any]


def _outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple) else [result]


def _same(compiled: Any, eager: Any, reference: Any) -> None:
    """The compiled outputs are the eager ones and NumPy's: shapes and values."""
    got, want, ref = _outputs(compiled), _outputs(eager), _outputs(reference)
    assert len(got) == len(want) == len(ref)
    for g, w, r in zip(got, want, ref, strict=True):
        assert tuple(g.shape) == tuple(w.shape) == r.shape
        np.testing.assert_array_equal(g.numpy(), r)
        np.testing.assert_array_equal(w.numpy(), r)


def _full(fn: Op, **kw: Any) -> Op:
    """``fn`` compiled whole by dynamo (no graph break allowed), after a reset of its caches."""
    torch._dynamo.reset()
    return torch.compile(fn, fullgraph=True, backend="eager", **kw)  # type: ignore[no-any-return]


@st.composite
def _calls(draw: st.DrawFn) -> tuple[tuple[int, ...], Op]:
    """A shape and one operator call on it with valid Python-int parameters."""
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    size = shape[axis]
    kind = draw(st.sampled_from(["split", "variadic", "strided", "slice", "concat"]))
    if kind == "split":
        n = draw(st.sampled_from([d for d in range(1, size + 1) if size % d == 0]))
        return shape, lambda x: dm.split(x, axis, n)
    if kind == "variadic":
        cut = draw(st.integers(0, size))
        lengths = draw(st.sampled_from([[cut, size - cut], [cut, -1], [-1, 0, size - cut]]))
        return shape, lambda x: dm.variadic_split(x, axis, lengths)
    if kind == "strided":
        begin = [draw(st.integers(-d - 1, d)) for d in shape]
        end = [draw(st.integers(-d - 1, d)) for d in shape]
        stride = [draw(st.sampled_from([-2, -1, 1, 3])) for _ in shape]
        masks = draw(st.lists(st.integers(0, 1), min_size=rank, max_size=rank))
        return shape, lambda x: dm.strided_slice(x, begin, end, stride, begin_mask=masks)
    if kind == "slice":
        start, stop = draw(st.integers(-size, size)), draw(st.integers(-size - 1, size))
        step = draw(st.sampled_from([-1, 1, 2]))
        return shape, lambda x: dm.slice(x, [start], [stop], [step], [axis])
    return shape, lambda x: dm.concat([x, x[..., :1], x], -1)


@fixed_settings(12)
@given(_calls())
def test_each_operator_traces_whole_and_gives_the_eager_results(call: Any) -> None:
    shape, fn = call
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = torch.from_numpy(a.copy())
    _same(_full(fn)(x), fn(x), fn(a))


def test_one_trace_serves_a_pipeline_of_every_operator() -> None:
    def fn(x: Any) -> Any:
        a, b = dm.split(x, 1, 2)
        c = dm.strided_slice(a, [0, 2], [3, 0], [1, -1], end_mask=[0, 1])
        d, e = dm.variadic_split(b, 0, [1, -1])
        f = dm.slice(x, [3], [0], [-2], [0])
        return dm.concat([a, b], 0), c, d, e, f

    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = torch.from_numpy(a.copy())
    _same(_full(fn)(x), fn(x), fn(a))


def test_copy_traces_whole_and_out_breaks_the_graph() -> None:
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = torch.from_numpy(a.copy())

    def copied(x: Any) -> Any:
        return dm.split(x, 1, 2, copy=True), dm.strided_slice(x, [3], [0], [-1], copy=True)

    (first, second), flipped = _full(copied)(x)
    _same((first, second, flipped), (*copied(x)[0], copied(x)[1]), (a[:, :3], a[:, 3:], a[3:0:-1]))
    assert first.is_contiguous()
    assert first.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()

    def written(x: Any) -> Any:
        return dm.split(x, 0, 2, out=[torch.empty(2, 6), torch.empty(2, 6)])

    with pytest.raises(torch._dynamo.exc.Unsupported):
        _full(written)(x)
    torch._dynamo.reset()
    _same(torch.compile(written, backend="eager")(x), written(x), (a[:2], a[2:]))


def test_dynamic_shapes_trace_whole_with_the_sizes_the_plan_reads_specialised() -> None:
    """``dynamic=True``: still one whole trace per size the plan depends on (right results)."""
    from torch._dynamo.utils import counters

    fns: list[Op] = [
        lambda x: dm.split(x, 1, 2),
        lambda x: dm.variadic_split(x, 0, [1, -1]),
        lambda x: dm.slice(x, [1], [3], [1], [1]),
        lambda x: dm.concat([x, x], 1),
    ]
    for fn in fns:
        compiled = _full(fn, dynamic=True)
        counters.clear()
        for rows, cols in [(4, 6), (6, 8), (8, 10)]:
            a = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
            x = torch.from_numpy(a.copy())
            _same(compiled(x), fn(x), fn(a))
        assert counters["stats"]["unique_graphs"] == 3  # one per size


def test_export_strict_and_not_run_as_eager() -> None:
    class Model(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            a, b = dm.split(x, 1, 2)
            c = dm.strided_slice(a, [0, 1], [3, 3], [1, 2])
            d, e = dm.variadic_split(b, 0, [1, -1])
            return dm.concat([a, b], 0), c, d, e, dm.slice(x, [1], [3], [1], [0])

    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = torch.from_numpy(a.copy())
    for strict in (True, False):
        program = torch.export.export(Model(), (x,), strict=strict)
        _same(program.module()(x), Model()(x), Model().forward(a))


def test_strict_export_keeps_the_axes_the_plan_does_not_read_dynamic() -> None:
    class Model(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return dm.split(x, 1, 2)

    rows = torch.export.Dim("rows", min=2, max=64)
    x = torch.zeros(4, 6)
    program = torch.export.export(Model(), (x,), dynamic_shapes={"x": {0: rows}}, strict=True)
    a = np.arange(60, dtype=np.float32).reshape(10, 6)
    y = torch.from_numpy(a.copy())
    _same(program.module()(y), Model()(y), Model().forward(a))


def test_onnx_export_of_a_model_calling_the_operators_runs_in_onnxruntime(
    tmp_path: Any,
) -> None:
    pytest.importorskip("onnxscript")
    ort = pytest.importorskip("onnxruntime")

    class Model(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            a, b = dm.variadic_split(x, 1, [2, -1])
            return dm.concat([b, a], 1), dm.strided_slice(x, [3], [0], [-2], end_mask=[1])

    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    path = str(tmp_path / "m.onnx")
    with warnings.catch_warnings():  # the exporter's own deprecation and progress warnings
        warnings.simplefilter("ignore")
        torch.onnx.export(Model(), (torch.from_numpy(a.copy()),), path, dynamo=True)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: a})
    for g, r in zip(got, Model().forward(a), strict=True):
        np.testing.assert_array_equal(g, r)


def test_invalid_parameters_raise_datamoves_errors_under_compile_and_export() -> None:
    """Without ``fullgraph`` dynamo breaks the graph at the raise and the call raises ours;
    a non-strict export runs the code itself. With ``fullgraph=True`` dynamo turns any
    exception raised while it traces into its own ``Unsupported`` (PyTorch's rule)."""

    def bad(x: Any) -> Any:
        return dm.split(x, 1, 4)

    x = torch.zeros(4, 6)
    rule = "Split: num_splits=4 must divide data.shape[1]=6 evenly"
    torch._dynamo.reset()
    with pytest.raises(ValidationError, match=rule.replace(".", r"\.").replace("[", r"\[")):
        torch.compile(bad, backend="eager")(x)

    class Model(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return bad(x)

    with pytest.raises(ValidationError) as raised:
        torch.export.export(Model(), (x,), strict=False)
    assert str(raised.value) == rule
    with pytest.raises(torch._dynamo.exc.Unsupported):
        _full(bad)(x)


def test_a_first_call_inside_compile_with_torch_imported_after_datamove() -> None:
    """The tensor backend found while dynamo traces (array_api_compat's caches would warn)."""
    code = (
        "import warnings\n"
        "warnings.simplefilter('error')\n"
        "import datamove as dm\n"
        "import torch\n"
        "f = torch.compile(lambda x: dm.split(x, 1, 2), fullgraph=True, backend='eager')\n"
        "a, b = f(torch.arange(12.0).reshape(2, 6))\n"
        "assert a.shape == b.shape == (2, 3), (a.shape, b.shape)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
