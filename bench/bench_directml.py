"""DirectML split/join: bandwidth against memcpy, and validation time.

``run_split``/``run_join`` on packed 256 MiB buffers are reported as a fraction of this
machine's memcpy bandwidth (``np.copyto`` of the same number of bytes between two contiguous
buffers), measured in the same run, interleaved, best of several repeats. The goal is >= 0.8.
Validation of a rank-8 split with 8 outputs is reported in microseconds (goal: < 20 us).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import datamove.directml as dml

MIB = 1024 * 1024


def best(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def split_case(shape: tuple[int, ...], axis: int, parts: int, dtype: str) -> dml.SplitDesc:
    whole = dml.TensorDesc(dtype, shape)
    size = shape[axis] // parts
    part_shape = (*shape[:axis], size, *shape[axis + 1 :])
    return dml.SplitDesc(whole, [dml.TensorDesc(dtype, part_shape)] * parts, axis)


def bandwidth(total_bytes: int, repeats: int) -> None:
    print(
        f"run_split / run_join on packed buffers of {total_bytes // MIB} MiB, vs memcpy (same run)"
    )
    src = np.ones(total_bytes, np.uint8)
    dst = np.ones(total_bytes, np.uint8)
    words = total_bytes // 4
    cases = [
        ("split f32 axis 0 into 4", split_case((words // 4096, 4096), 0, 4, "FLOAT32")),
        ("split f32 rows of 16 KiB into 2", split_case((words // 4096, 4096), 1, 2, "FLOAT32")),
        ("split f32 rows of 1 KiB into 2", split_case((words // 256, 256), 1, 2, "FLOAT32")),
        ("split u8 rows of 64 B into 2", split_case((total_bytes // 64, 64), 1, 2, "UINT8")),
    ]
    print(f"  {'case':36} {'split':>7} {'join':>7}")
    for name, desc in cases:
        outs = [np.ones(t.total_tensor_size_in_bytes, np.uint8) for t in desc.outputs]
        join = dml.JoinDesc(desc.outputs, desc.input, desc.axis)
        memcpy = split = joined = float("inf")
        for _ in range(repeats):  # interleaved, so load on the machine hits all three alike
            memcpy = min(memcpy, best(lambda: np.copyto(dst, src), 1))
            split = min(split, best(lambda d=desc, o=outs: dml.run_split(d, src, outputs=o), 1))
            joined = min(joined, best(lambda j=join, o=outs: dml.run_join(j, o, output=dst), 1))
        gbs = total_bytes / memcpy / 1e9
        print(f"  {name:36} {memcpy / split:7.2f} {memcpy / joined:7.2f}   (memcpy {gbs:.1f} GB/s)")
    quarter = total_bytes // 4  # 4-bit cases on a quarter of the size
    memcpy = best(lambda: np.copyto(dst[:quarter], src[:quarter]), repeats)
    for name, shape in (
        ("uint4 rows of 64 B into 2 (bytes)", (64,)),
        ("uint4 rows of 63 (nibbles)", (63,)),
    ):
        row = shape[0]
        desc = split_case((quarter * 2 // 128, 128), 1, 2, "UINT4")
        if row % 2:
            sizes = [quarter * 2 // 126, 126]
            whole = dml.TensorDesc("UINT4", sizes)
            parts = [dml.TensorDesc("UINT4", [sizes[0], 63])] * 2
            desc = dml.SplitDesc(whole, parts, 1)
        outs = [np.ones(t.total_tensor_size_in_bytes, np.uint8) for t in desc.outputs]
        data = src[: desc.input.total_tensor_size_in_bytes]
        split = best(lambda d=desc, o=outs, x=data: dml.run_split(d, x, outputs=o), repeats)
        print(f"  {'split ' + name:36} {memcpy / split:7.2f}       -")


def validation(repeats: int) -> None:
    sizes = [2, 3, 2, 3, 2, 3, 2, 64]
    whole = dml.TensorDesc("FLOAT32", sizes)
    parts = [dml.TensorDesc("FLOAT32", [*sizes[:7], 8]) for _ in range(8)]
    desc = dml.SplitDesc(whole, parts, 7)
    level = dml.FeatureLevel.LEVEL_4_1
    n = 2000
    warm = best(lambda: [desc.validate(level) for _ in range(n)], repeats) / n
    text = best(lambda: [desc.validate("4_1") for _ in range(n)], repeats) / n

    def fresh() -> None:
        w = dml.TensorDesc("FLOAT32", sizes)
        p = [dml.TensorDesc("FLOAT32", [*sizes[:7], 8]) for _ in range(8)]
        dml.SplitDesc(w, p, 7).validate(level)

    cold = best(lambda: [fresh() for _ in range(200)], repeats) / 200
    print("validation, rank 8, 8 outputs (goal < 20 us):")
    print(f"  desc.validate(FeatureLevel.LEVEL_4_1)  {warm * 1e6:7.1f} us")
    print(f"  desc.validate('4_1')                   {text * 1e6:7.1f} us")
    print(f"  new descs (9 TensorDescs, SplitDesc, validate) {cold * 1e6:7.1f} us")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_directml", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="16 MiB buffers, few repeats")
    parser.add_argument("--mib", type=int, default=None, help="buffer size in MiB (default 256)")
    args = parser.parse_args(argv)
    mib = args.mib or (16 if args.quick else 256)
    repeats = 3 if args.quick else 5
    bandwidth(mib * MIB, repeats)
    validation(repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
