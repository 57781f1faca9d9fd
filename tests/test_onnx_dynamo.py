"""PyTorch's indexing idioms exported by the dynamo exporter, ``torch.onnx.export(dynamo=True)``,
torch 2.13's default, on dims made dynamic by ``torch.export.Dim`` (with bounds).

Its graphs are not the TorchScript exporter's (tests/ir/test_converted_idioms.py has those):
a Slice of five inputs sharing constants, ``chunk`` as a Split, symbolic dims as ``dim_param``
names (``"2*k"``), shape arithmetic as ``Shape(start, end) -> Squeeze -> Sub``, list indices
as ``Transpose -> GatherND -> Transpose``... At several sizes inside the bounds (0 where
allowed, 1, small, odd and even), ``check`` gives each output the shape onnxruntime gives it
(PyTorch's too) and no problem where onnxruntime runs the model, a problem of the node it names
where it refuses; each node's ``explain`` NumPy index, on its input as onnxruntime computes it,
gives onnxruntime's output of that node; on the ``Dim`` bounds as intervals, onnxruntime's
shapes lie in the inferred ones. Each model is exported once (about 3 s each), several idioms
a model, one output each. Last, where the exporter writes a model that is not PyTorch's at
some size its ``Dim`` allows (docs/ir.md, "PyTorch's dynamo exporter").
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import datamove as dm
from datamove import ir

torch = pytest.importorskip("torch")
pytest.importorskip("onnxscript")  # the dynamo exporter's ONNX writer
onnx_graphs = pytest.importorskip("onnx_graphs")
onnx = onnx_graphs.onnx
Dim = torch.export.Dim


def _module(fn: Callable[[Any], Any]) -> Any:
    """A torch module whose forward is ``fn``."""

    class Fn(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return fn(x)

    return Fn()


def _idioms(*fns: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One function of several idioms: a flat tuple of all their outputs."""

    def every(x: Any) -> tuple[Any, ...]:
        outs: list[Any] = []
        for fn in fns:
            got = fn(x)
            outs.extend(got if isinstance(got, (tuple, list)) else [got])
        return tuple(outs)

    return every


# name: (the idioms, the example's shape, each axis's Dim (None: static), the sizes checked);
# the sizes span each Dim's bounds: its min (0 or 1 where allowed), small, odd and even
MODELS: dict[str, tuple[Callable[[Any], Any], tuple[int, ...], list[Any], list[tuple[int, ...]]]]
MODELS = {
    "slices": (
        _idioms(
            lambda x: x[:, 1:-1],
            lambda x: x[:, ::2],
            lambda x: x[:, 1::3],
            lambda x: x[:, -3:],
            lambda x: x[:, :-2],
            lambda x: x[1:, -2::2],
        ),
        (2, 6),
        [Dim("b", min=0, max=8), Dim("w", min=0, max=16)],
        [(2, 6), (0, 0), (1, 1), (3, 2), (4, 7), (1, 16), (8, 3)],
    ),
    "flip and negative steps": (
        _idioms(
            lambda x: torch.flip(x, [1]),
            lambda x: torch.flip(x, [0, 1])[:, 1:],
            lambda x: torch.flip(x[:, 1:], [1])[:, ::2],
            lambda x: x[:, 2:][:, 1:][:, ::2],
        ),
        (2, 6),
        [Dim("b", min=0, max=8), Dim("w", min=0, max=16)],
        [(2, 6), (0, 0), (1, 1), (3, 2), (4, 7), (1, 16)],
    ),
    "narrow and select": (
        _idioms(
            lambda x: x.narrow(1, 1, 2),
            lambda x: x[:, -1],
            lambda x: x[..., x.shape[1] - 1],
            lambda x: x[0],
            lambda x: x[:, x.size(1) // 2],
        ),
        (2, 6),
        [Dim("b", min=1, max=8), Dim("w", min=3, max=16)],
        [(2, 6), (1, 3), (3, 4), (8, 7), (1, 16)],
    ),
    "chunk and split on a static axis": (
        _idioms(
            lambda x: x.chunk(2, 1),
            lambda x: x.chunk(3, 1),
            lambda x: x.split(3, 1),
            lambda x: x.split([2, 6], 1),
            lambda x: x.tensor_split([1, 4], 1),
            lambda x: x[:, :4].unbind(1),
        ),
        (3, 8),
        [Dim("b", min=0, max=9), None],
        [(3, 8), (0, 8), (1, 8), (6, 8)],
    ),
    "split on a dynamic axis": (
        _idioms(
            lambda x: x.split([2, x.shape[1] - 2], 1),
            lambda x: x.tensor_split([1, 4], 1),
            lambda x: x.unflatten(1, (2, -1))[:, :, 1:],
            lambda x: x.view(x.shape[0], 2, -1)[:, 1, ::2],
        ),
        (3, 8),
        [Dim("b", min=1, max=9), 2 * Dim("k", min=2, max=8)],
        [(3, 8), (1, 4), (2, 6), (9, 10), (4, 16), (5, 14)],
    ),
    "gathers": (
        _idioms(
            lambda x: x[:, torch.arange(0, x.shape[1], 2)],
            lambda x: x[:, torch.arange(x.shape[1] - 1, -1, -1)],
            lambda x: x[:, [0, 2]],
            lambda x: x[[1, 0]],
            lambda x: x[:, [-1]],
            lambda x: x.index_select(1, torch.tensor([1, 0])),
        ),
        (2, 6),
        [Dim("b", min=2, max=8), Dim("w", min=3, max=16)],
        [(2, 6), (2, 3), (3, 4), (3, 7), (8, 16)],
    ),
    "refused at small sizes": (
        _idioms(
            lambda x: x[:, -1],
            lambda x: x[:, 2],
            lambda x: x[:, [0, 2]],
            lambda x: x[[1, 0]],
            lambda x: x[:, torch.arange(x.shape[1] - 3, x.shape[1])],
        ),
        (3, 6),
        [Dim("b", min=0, max=8), Dim("w", min=0, max=16)],
        [(3, 6), (0, 0), (2, 0), (1, 5), (2, 2), (0, 3), (4, 3), (2, 9)],
    ),
    "list indices refused at small sizes": (
        _idioms(lambda x: x[:, [0, 2]], lambda x: x[[1, 0]], lambda x: x[:, [-2]]),
        (3, 6),
        [Dim("b", min=0, max=8), Dim("w", min=0, max=16)],
        [(3, 6), (0, 0), (2, 0), (1, 5), (2, 2), (0, 3), (4, 3), (2, 9)],
    ),
    "cat, roll and differences": (
        _idioms(
            lambda x: torch.cat([x[:, 1:], x[:, :1], x[:, -2:]], 1),
            lambda x: torch.roll(x, 2, 1),
            lambda x: x[:, 1:] - x[:, :-1],
            lambda x: torch.cat([x[:, :0], x, x[:, 6:]], 1),
            lambda x: x.flatten()[-3:],
        ),
        (2, 6),
        [Dim("b", min=1, max=8), Dim("w", min=2, max=16)],
        [(2, 6), (1, 2), (3, 3), (4, 7), (1, 16)],
    ),
    "three axes": (
        _idioms(
            lambda x: x[1:, ..., :1],
            lambda x: x[..., None, ::2],
            lambda x: x.movedim(2, 0)[::2],
            lambda x: x[:, x.shape[0] :],
            lambda x: x[None, :, None, -1],
        ),
        (3, 2, 6),
        [Dim("a", min=0, max=8), None, Dim("c", min=1, max=16)],
        [(3, 2, 6), (0, 2, 1), (1, 2, 2), (5, 2, 9), (8, 2, 16)],
    ),
}


def _export(fn: Callable[[Any], Any], example: tuple[int, ...], dims: list[Any], path: Path) -> Any:
    """``torch.onnx.export(dynamo=True)`` of ``fn`` on zeros of ``example``, input ``x``, each
    axis of a ``Dim`` in ``dims`` dynamic; the model it writes."""
    shapes = {"x": {axis: dim for axis, dim in enumerate(dims) if dim is not None}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _module(fn),
            (torch.zeros(example),),
            str(path),
            input_names=["x"],
            dynamic_shapes=shapes,
            dynamo=True,
            verbose=False,
        )
    return onnx.load(str(path))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each of `MODELS` exported once by the dynamo exporter, its input named ``x``."""
    directory = tmp_path_factory.mktemp("dynamo")
    paths = {}
    for k, (name, (fn, example, dims, _)) in enumerate(MODELS.items()):
        paths[name] = directory / f"m{k}.onnx"
        _export(fn, example, dims, paths[name])
    return paths


def _evaluated(info: dict[str, Any], ins: list[np.ndarray]) -> list[Any]:
    """Each of the node's NumPy expressions on its inputs (``x``; a Concat's ``x0``...)."""
    texts = info["numpy"] if isinstance(info["numpy"], list) else [info["numpy"]]
    scope = {"np": np, "x": ins[0]} | {f"x{k}": v for k, v in enumerate(ins)}
    return [eval(text, scope) for text in texts]  # noqa: S307 - the expressions under test


def _run(session: Any, x: np.ndarray) -> tuple[dict[str, np.ndarray], str]:
    """Every value onnxruntime computes of ``x``, by name; or what it says where it refuses."""
    names = [o.name for o in session.get_outputs()]
    try:
        return dict(zip(names, session.run(None, {"x": x}), strict=True)), ""
    except Exception as exc:  # noqa: BLE001 - onnxruntime's Fail, InvalidArgument
        return {}, str(exc)


def _eager(fn: Callable[[Any], Any], x: np.ndarray) -> list[np.ndarray] | None:
    """PyTorch's outputs of the idioms on ``x``; ``None`` where it raises (an index out of
    range)."""
    try:
        return [t.numpy() for t in fn(torch.from_numpy(x.copy()))]
    except (IndexError, RuntimeError):
        return None


# the node types explain lists where they move data
_EXPLAINED = ("Slice", "Split", "Concat", "Gather", "GatherND", "Unsqueeze", "Squeeze")


@pytest.mark.parametrize("name", list(MODELS))
def test_dynamo_exports_check_and_explain_as_onnxruntime_runs_them(
    exported: dict[str, Path], name: str
) -> None:
    fn, _, dims, sizes = MODELS[name]
    model = onnx.load(str(exported[name]))
    declared = model.graph.input[0].type.tensor_type.shape.dim
    # each Dim's axis stays dynamic: a name (a guard can make it static without a word:
    # test_the_dynamo_exporter_makes_static_a_dim_torch_export_refuses)
    assert [bool(d.dim_param) for d in declared] == [dim is not None for dim in dims]
    read = ir.read_onnx(exported[name])
    report = read.check()  # the file as written: its dims are names ("b", "w", "2*k")
    assert report.ok, report.problems
    assert not report.opaque.keys() & {*_EXPLAINED[:5], "Transpose"}, report.opaque
    session = onnx_graphs.ort_session(
        onnx_graphs.with_every_value_as_output(model), log_severity_level=3
    )
    nodes = list(model.graph.node)
    for size in sizes:
        x = np.arange(int(np.prod(size)), dtype=np.float32).reshape(size)
        report = read.check({"x": list(size)})
        values, error = _run(session, x)
        eager = _eager(fn, x)
        if error:  # a problem of the node onnxruntime names; PyTorch refuses too
            refused = re.search(r"running (\w+) node", error)
            assert refused, error
            assert refused[1] in {p.layer_type for p in report.problems}, (size, error)
            assert eager is None, (name, size)
            continue
        assert report.ok, (name, size, report.problems)
        if eager is None:  # x[:, [0, 2]] of [0,0]: onnxruntime's GatherND checks no index of
            # empty slices, PyTorch every index on an axis of size 0 (docs/ir.md)
            assert 0 in size, (name, size)
            assert "GatherND" in report.checked, (name, size)
            continue
        for output, want in zip(model.graph.output, eager, strict=True):
            np.testing.assert_array_equal(values[output.name], want)
            got = report.outputs[output.name][0]
            assert got == dm.PartialShape(list(want.shape)), (name, size, output.name, got)
        # each data node's NumPy index on its input as onnxruntime computes it: its output
        listed = set()
        for info in read.explain(input_shapes={"x": list(size)}):
            node = nodes[int(info["layer_id"])]
            assert info["numpy"] is not None, (name, size, info)
            ins = [values.get(i, x if i == "x" else None) for i in node.input]
            data = ins if node.op_type == "Concat" else ins[:1]
            for e, out in zip(_evaluated(info, data), node.output, strict=False):
                np.testing.assert_array_equal(e, values[out], err_msg=f"{name} {size} {info}")
            listed.add(node.name)
        inits = {i.name for i in model.graph.initializer}
        cuts = [n for n in nodes if n.op_type in _EXPLAINED[:3] and n.input[0] == "x"]
        takes = [n for n in nodes if n.op_type in _EXPLAINED[3:5] and n.input[1] in inits]
        assert {n.name for n in cuts + takes} <= listed, (name, size, listed)


@pytest.mark.parametrize("name", list(MODELS))
def test_dynamo_exports_on_their_dims_bounds_hold_what_onnxruntime_gives(
    exported: dict[str, Path], name: str
) -> None:
    # x of the interval dims torch.export.Dim bounds: OK, as some size in them runs, and at
    # each size checked, onnxruntime's output shapes lie inside the inferred ones
    _, example, dims, sizes = MODELS[name]
    box = [
        f"{d.min}..{d.max}" if d is not None else str(n) for d, n in zip(dims, example, strict=True)
    ]
    report = ir.read_onnx(exported[name]).check({"x": "[" + ",".join(box) + "]"})
    assert report.ok, (name, box, report.problems)
    model = onnx.load(str(exported[name]))
    session = onnx_graphs.ort_session(model, log_severity_level=3)
    for size in sizes:
        values, error = _run(session, np.zeros(size, np.float32))
        for output in model.graph.output if not error else []:
            inferred = report.outputs[output.name][0]
            got = values[output.name].shape
            assert inferred.rank == len(got), (name, size, output.name, inferred)
            assert all(g in d for g, d in zip(got, inferred.dims, strict=True)), (
                name,
                size,
                output.name,
                inferred,
            )


def _export_what_torch_export_refuses(fn: Callable[[Any], Any], tmp_path: Path) -> Any:
    """The dynamo exporter's model of ``fn`` on ``x`` of ``[3,8]``, its dims ``b`` of ``1..9``
    and ``w`` of ``4..16``, where ``torch.export.export`` refuses ``w`` ("Constraints violated
    (w)!": its guards do not hold over the whole range); saved as ``m.onnx``."""
    dims = [Dim("b", min=1, max=9), Dim("w", min=4, max=16)]
    with pytest.raises(torch._dynamo.exc.UserError, match=r"Constraints violated \(w\)"):
        torch.export.export(
            _module(fn), (torch.zeros(3, 8),), dynamic_shapes={"x": dict(enumerate(dims))}
        )
    return _export(fn, (3, 8), dims, tmp_path / "m.onnx")


def test_the_dynamo_exporter_keeps_dynamic_a_dim_torch_export_refuses(tmp_path: Path) -> None:
    # x.tensor_split(3, 1) on a Dim w of 4..16: torch.export.export refuses it (its guards need
    # w % 3 > 0 and more: "Constraints violated (w)!"), yet torch.onnx.export(dynamo=True)
    # writes it on a dynamic w all the same, without a word, its parts' ends computed as at
    # the example's width 8 (w//3 + 1, 2*(w//3) + 2, ...). So at w = 6 the ONNX model gives
    # parts [2,3], [2,3], [2,0] where PyTorch gives three [2,2]. The file is checked as it is
    # written: its parts are onnxruntime's (docs/ir.md)
    model = _export_what_torch_export_refuses(lambda x: x.tensor_split(3, 1), tmp_path)
    assert [d.dim_param for d in model.graph.input[0].type.tensor_type.shape.dim] == ["b", "w"]
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    got = onnx_graphs.ort_session(model).run(None, {"x": x})
    assert [g.shape for g in got] == [(2, 3), (2, 3), (2, 0)]
    assert [tuple(t.shape) for t in torch.from_numpy(x).tensor_split(3, 1)] == [(2, 2)] * 3
    report = ir.read_onnx(tmp_path / "m.onnx").check({"x": [2, 6]})
    assert report.ok, report.problems
    outputs = [report.outputs[o.name][0] for o in model.graph.output]
    assert outputs == [dm.PartialShape(list(g.shape)) for g in got]


def test_the_dynamo_exporter_makes_static_a_dim_torch_export_refuses(tmp_path: Path) -> None:
    # x.chunk(2, 1) on a Dim w: torch.export.export refuses it ("Constraints violated (w)!");
    # torch.onnx.export(dynamo=True) writes x of [b,8], the example's width, without a word,
    # and onnxruntime refuses x of another width at the input. check reads the file as it is
    # written: x of [?,8], its Split on a static axis
    model = _export_what_torch_export_refuses(lambda x: x.chunk(2, 1), tmp_path)
    assert onnx_graphs.ort_shapes(model, [(3, 8), (3, 7)]) == [(3, 4), None]
    report = ir.read_onnx(tmp_path / "m.onnx").check()
    assert report.inputs["x"][0] == dm.PartialShape("[?,8]")
    assert report.checked == {"Split": 1}
    assert [report.outputs[o.name][0] for o in model.graph.output] == [dm.PartialShape("[?,4]")] * 2


def test_the_dynamo_exporter_s_view_of_no_rows_is_refused_where_onnxruntime_runs_it(
    tmp_path: Path,
) -> None:
    # x.view(x.shape[0], 2, -1) on a Dim b of 0..8: the dynamo exporter writes a Reshape of
    # allowzero=1 by [b, 2, -1], which the spec calls invalid at b = 0 (a -1 beside a 0),
    # as PyTorch refuses it ("cannot reshape tensor of 0 elements ... ambiguous"); onnxruntime
    # runs it, [0,2,2] of [0,4]. datamove follows the spec and PyTorch (docs/ir.md, Reshape)
    def fn(x: Any) -> Any:
        return x.view(x.shape[0], 2, -1)

    model = _export(
        fn, (2, 6), [Dim("b", min=0, max=8), 2 * Dim("k", min=1, max=8)], tmp_path / "m.onnx"
    )
    (reshape,) = [n for n in model.graph.node if n.op_type == "Reshape"]
    assert onnx.helper.get_node_attr_value(reshape, "allowzero") == 1
    assert onnx_graphs.ort_shapes(model, [(0, 4), (2, 6)]) == [(0, 2, 2), (2, 2, 3)]
    with pytest.raises(RuntimeError, match="ambiguous"):
        fn(torch.zeros(0, 4))
    read = ir.read_onnx(tmp_path / "m.onnx")
    assert read.check({"x": [2, 6]}).ok
    (problem,) = read.check({"x": [0, 4]}).problems
    assert problem.layer_type == "Reshape"
    assert problem.message == (
        "Reshape: shape=[0, 2, -1] holds -1 beside a 0 (allowzero=1): ONNX infers a -1 only "
        "beside dims of 1 or more"
    )
