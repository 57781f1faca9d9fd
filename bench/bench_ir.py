"""IR benchmarks: ``Model.run`` of 50 chained operators vs OpenVINO's compiled CPU model, and
``read_model`` + ``check`` of a 1,000-layer IR (target: under 0.5 s). Ratios printed, no asserts."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np


def _best(fn, repeat: int = 5, number: int = 200) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def _chain_model(n_ops: int):
    import openvino as ov
    import openvino.opset1 as ops

    x = ops.parameter([4, 64], np.float32, name="x")
    y = x.output(0)
    count = 0
    while count < n_ops:
        kind = count % 3
        if kind == 0:  # Split + Concat, swapping halves
            s = ops.split(y, ops.constant(np.int64(1)), 2)
            y = ops.concat([s.output(1), s.output(0)], 1).output(0)
            count += 2
        elif kind == 1:  # a reversing StridedSlice
            y = ops.strided_slice(
                y,
                ops.constant(np.array([0, 0])),
                ops.constant(np.array([0, 0])),
                ops.constant(np.array([1, -1])),
                begin_mask=[1, 1],
                end_mask=[1, 1],
            ).output(0)
            count += 1
        else:  # VariadicSplit + Concat
            v = ops.variadic_split(y, ops.constant(np.int64(1)), ops.constant(np.array([16, -1])))
            y = ops.concat([v.output(1), v.output(0)], 1).output(0)
            count += 2
    return ov.Model([ops.result(y)], [x], "chain")


def _wide_model(n_layers: int):
    import openvino as ov
    import openvino.opset1 as ops

    x = ops.parameter([8, 16, 16], np.float32, name="x")
    y = x.output(0)
    for _ in range((n_layers - 2) // 4):  # each StridedSlice brings 3 Consts
        y = ops.strided_slice(
            y,
            ops.constant(np.array([0, 0, 0])),
            ops.constant(np.array([0, 0, 0])),
            ops.constant(np.array([1, 1, -1])),
            begin_mask=[1, 1, 1],
            end_mask=[1, 1, 1],
        ).output(0)
    return ov.Model([ops.result(y)], [x], "wide")


def main() -> None:
    try:
        import openvino as ov
    except ImportError:
        print("bench_ir: openvino is not installed; skipped")
        return
    from datamove import ir

    tmp = Path(tempfile.mkdtemp())
    xml = tmp / "chain.xml"
    ov.save_model(_chain_model(50), str(xml), compress_to_fp16=False)
    x = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)
    model = ir.read_model(xml)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(xml)), "CPU")
    request = compiled.create_infer_request()
    ours = model.run({"x": x})
    theirs = request.infer({"x": x})
    assert np.array_equal(next(iter(ours.values())), next(iter(theirs.values())))
    t_dm = _best(lambda: model.run({"x": x}))
    t_ov = _best(lambda: request.infer({"x": x}))
    n = len(model._graph.layers)
    print(f"ir run, 50 chained ops ({n} layers), x [4,64] f32:")
    print(
        f"  datamove {t_dm * 1e6:8.1f} us   OpenVINO CPU infer {t_ov * 1e6:8.1f} us   "
        f"ratio OpenVINO/datamove {t_ov / t_dm:5.2f}x"
    )

    big = tmp / "wide.xml"
    ov.save_model(_wide_model(1000), str(big), compress_to_fp16=False)
    t0 = time.perf_counter()
    report = ir.read_model(big).check()
    t_check = time.perf_counter() - t0
    t_read = _best(lambda: ir.read_model(big), repeat=3, number=3)
    t_both = _best(lambda: ir.read_model(big).check(), repeat=3, number=3)
    t0 = time.perf_counter()
    core.read_model(str(big))
    t_ov_read = time.perf_counter() - t0
    print(f"ir read_model + check, {report.layers} layers (ok={report.ok}):")
    print(
        f"  first {t_check:.3f} s, best {t_both:.3f} s (read_model alone {t_read:.3f} s; "
        f"target < 0.5 s)   OpenVINO read_model {t_ov_read:.3f} s"
    )


if __name__ == "__main__":
    main()
