"""Per-call cost of the core operators against peers, side by side in one process.

The issue's targets, as ratios measured in this run (lower is better):
  dm.split(x, 1, 3)              <= 0.3 x numpy.split(x, 3, axis=1)
  dm.variadic_split(x, 0, [-1,2]) <= 0.5 x numpy.split(x, [4], axis=0)
  dm.strided_slice               <= 6 x the raw NumPy index expression (lists and arrays)
  dm.slice                        <= 6 x (aim <= 3 x) the raw NumPy index expression, and
                                  faster than building and running OpenVINO's Slice
  infer_* on static shapes        >= 5 x faster than building the OpenVINO node
  a view costs the same for 1 KB and 1 GB
Peers that are not installed are skipped.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

import datamove as dm
from bench._timing import paired


def _openvino_builders() -> dict[str, Callable[[], Any]]:
    try:
        import openvino as ov
        from openvino import opset1
    except ImportError:
        return {}
    p4 = ov.op.Parameter(ov.Type.f32, ov.PartialShape([6, 12, 10, 24]))
    p3 = ov.op.Parameter(ov.Type.f32, ov.PartialShape([2, 3, 4]))
    # The same inputs a datamove user passes (Python ints and lists) become OpenVINO Constants.
    return {
        "split": lambda: opset1.split(p4, opset1.constant(1, ov.Type.i64), 3),
        "variadic": lambda: opset1.variadic_split(
            p4, opset1.constant(0, ov.Type.i64), opset1.constant([-1, 2], ov.Type.i64)
        ),
        "strided": lambda: opset1.strided_slice(
            p3,
            opset1.constant([1, 0, 0], ov.Type.i64),
            opset1.constant([0, 0, 2], ov.Type.i64),
            opset1.constant([1, 1, 1], ov.Type.i64),
            [0, 1, 1],
            [1, 1, 0],
        ),
        "slice": lambda: _slice_node(p3),
    }


def _slice_node(data: Any) -> Any:
    """OpenVINO's Slice of y[1:, :, :2] (start, stop, step, axes as i64 Constants)."""
    from openvino import opset1, opset8

    return opset8.slice(
        data,
        opset1.constant([1, 0], np.int64),
        opset1.constant([2**63 - 1, 2], np.int64),
        opset1.constant([1, 1], np.int64),
        opset1.constant([0, 2], np.int64),
    )


def _openvino_slice(y: np.ndarray) -> dict[str, Callable[[], Any]]:
    """Building OpenVINO's Slice and running it (the reference evaluate), and a compiled one."""
    try:
        import openvino as ov
    except ImportError:
        return {}
    parameter = ov.op.Parameter(ov.Type.f32, ov.PartialShape(list(y.shape)))
    tensors = [ov.Tensor(y)] + [
        ov.Tensor(np.array(v, np.int64)) for v in ([1, 0], [2**63 - 1, 2], [1, 1], [0, 2])
    ]

    def build_and_evaluate() -> Any:
        out = [ov.Tensor(ov.Type.f32, ov.Shape([]))]
        _slice_node(parameter).evaluate(out, tensors)
        return out

    model = ov.Model([_slice_node(parameter).output(0)], [parameter])
    req = ov.Core().compile_model(model, "CPU").create_infer_request()
    return {
        "build": build_and_evaluate,
        "compiled": lambda: req.infer(y, share_inputs=True, share_outputs=True),
    }


def _compiled_openvino() -> dict[str, Callable[[], Any]]:
    try:
        import openvino as ov
        from openvino import opset1
    except ImportError:
        return {}
    core = ov.Core()
    x = np.zeros((6, 12, 10, 24), np.float32)
    p = ov.op.Parameter(ov.Type.f32, ov.PartialShape([6, 12, 10, 24]))
    node = opset1.split(p, opset1.constant(np.int64(1)), 3)
    model = ov.Model([opset1.result(o) for o in node.outputs()], [p])
    req = core.compile_model(model, "CPU").create_infer_request()
    return {"split": lambda: req.infer(x, share_inputs=True, share_outputs=True)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_core")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--plan-path",
        choices=["compiled", "python"],
        help="the plan path to time (default: compiled where built); python is the path of "
        "installs without a C compiler",
    )
    args = parser.parse_args(argv)
    if args.plan_path:
        from datamove import _plan

        with _plan.plan_path(args.plan_path):
            return _run(quick=args.quick)
    return _run(quick=args.quick)


def _run(*, quick: bool) -> int:
    q = quick
    x = np.zeros((6, 12, 10, 24), np.float32)
    y = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b, e, bm, em = [1, 0, 0], [0, 0, 2], [0, 1, 1], [1, 1, 0]
    begin_a, end_a = np.array(b), np.array(e)
    rows: list[tuple[str, float, str, float, float, str]] = []

    def row(
        name: str, ours: Callable[[], Any], peer_name: str, peer: Callable[[], Any], target: str
    ) -> None:
        t_ours, t_peer, ratio = paired(ours, peer, q)
        rows.append((name, t_ours, peer_name, t_peer, ratio, target))

    row(
        "dm.split(x, 1, 3)",
        lambda: dm.split(x, 1, 3),
        "np.split(x, 3, axis=1)",
        lambda: np.split(x, 3, axis=1),
        "<= 0.30",
    )
    row(
        "dm.variadic_split(x, 0, [-1, 2])",
        lambda: dm.variadic_split(x, 0, [-1, 2]),
        "np.split(x, [4], axis=0)",
        lambda: np.split(x, [4], axis=0),
        "<= 0.50",
    )
    row(
        "dm.strided_slice(lists)",
        lambda: dm.strided_slice(y, b, e, begin_mask=bm, end_mask=em),
        "y[1:, :, :2]",
        lambda: y[1:, :, :2],
        "<= 6",
    )
    row(
        "dm.strided_slice(arrays)",
        lambda: dm.strided_slice(y, begin_a, end_a, begin_mask=bm, end_mask=em),
        "y[1:, :, :2]",
        lambda: y[1:, :, :2],
        "<= 6",
    )
    # Slice-8: y[1:, :, :2] (axes unordered below), and a reversal, y[:, :, ::-1]
    start, stop, step, axes = [0, 1], [2, 2**63 - 1], [1, 1], [2, 0]
    start_a, stop_a, step_a, axes_a = (np.array(v) for v in (start, stop, step, axes))
    row(
        "dm.slice(lists)",
        lambda: dm.slice(y, start, stop, step, axes),
        "y[1:, :, :2]",
        lambda: y[1:, :, :2],
        "<= 6 (aim 3)",
    )
    row(
        "dm.slice(arrays)",
        lambda: dm.slice(y, start_a, stop_a, step_a, axes_a),
        "y[1:, :, :2]",
        lambda: y[1:, :, :2],
        "<= 6 (aim 3)",
    )
    row(
        "dm.slice(reverse last axis)",
        lambda: dm.slice(y, [-1], [-(2**63)], [-1], [-1]),
        "y[:, :, ::-1]",
        lambda: y[:, :, ::-1],
        "<= 6 (aim 3)",
    )
    # Concat-1 of two small inputs: per-call cost (the large joins: bench_concat)
    c0, c1 = np.zeros((2, 3), np.float32), np.ones((2, 4), np.float32)
    row(
        "dm.concat([c0, c1], 1)",
        lambda: dm.concat([c0, c1], 1),
        "np.concatenate([c0, c1], 1)",
        lambda: np.concatenate([c0, c1], 1),
        "<= 6",
    )
    ov_slice = _openvino_slice(y)
    if ov_slice:
        row(
            "dm.slice(lists)",
            lambda: dm.slice(y, start, stop, step, axes),
            "OV build Slice + evaluate",
            ov_slice["build"],
            "< 1",
        )
        row(
            "dm.slice(lists)",
            lambda: dm.slice(y, start, stop, step, axes),
            "OpenVINO compiled Slice",
            ov_slice["compiled"],
            "< 1",
        )
    try:
        import torch

        t = torch.zeros(6, 12, 10, 24)
        row(
            "dm.split(x, 1, 3)",
            lambda: dm.split(x, 1, 3),
            "torch.chunk(t, 3, 1)",
            lambda: torch.chunk(t, 3, 1),
            "< 1",
        )
    except ImportError:
        pass
    compiled = _compiled_openvino()
    if compiled:
        row(
            "dm.split(x, 1, 3)",
            lambda: dm.split(x, 1, 3),
            "OpenVINO compiled Split",
            compiled["split"],
            "< 1",
        )
    builders = _openvino_builders()
    if builders:
        row(
            "dm.infer_split",
            lambda: dm.infer_split((6, 12, 10, 24), 1, 3),
            "OV Constant+Split node",
            builders["split"],
            "<= 0.20",
        )
        row(
            "dm.infer_variadic_split",
            lambda: dm.infer_variadic_split((6, 12, 10, 24), 0, [-1, 2]),
            "OV Constants+VariadicSplit",
            builders["variadic"],
            "<= 0.20",
        )
        row(
            "dm.infer_slice",
            lambda: dm.infer_slice((2, 3, 4), [1, 0], [2**63 - 1, 2], [1, 1], [0, 2]),
            "OV Constants+Slice node",
            builders["slice"],
            "<= 0.20",
        )
        row(
            "dm.infer_strided_slice",
            lambda: dm.infer_strided_slice((2, 3, 4), b, e, [1, 1, 1], begin_mask=bm, end_mask=em),
            "OV Constants+StridedSlice",
            builders["strided"],
            "<= 0.20",
        )
    small = np.zeros(256, np.float32)  # 1 KB
    big = np.empty((2**28,), np.float32)  # 1 GiB, never touched: a view reads no data
    row(
        "dm.split(1 GiB, 0, 4)",
        lambda: dm.split(big, 0, 4),
        "dm.split(1 KB, 0, 4)",
        lambda: dm.split(small, 0, 4),
        "~ 1",
    )

    print(f"{'datamove call':<34} {'us':>7}   {'peer':<28} {'us':>7}   {'ratio':>6}  target")
    for name, ours, peer_name, peer, ratio, target in rows:
        print(
            f"{name:<34} {ours * 1e6:7.2f}   {peer_name:<28} {peer * 1e6:7.2f}   "
            f"{ratio:6.2f}  {target}"
        )
    print("ratio: median over alternating batches of ours / peer (robust to machine drift)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
