"""DirectML split/join: bandwidth against memcpy, and validation time.

``run_split``/``run_join`` on packed 256 MiB buffers are reported as a fraction of this
machine's memcpy bandwidth (``np.copyto`` of the same number of bytes between two contiguous
buffers), measured in the same run, interleaved, best of several repeats. The goal is >= 0.8.
Validation of a rank-8 split with 8 outputs is reported in microseconds (goal: < 20 us).
"""

from __future__ import annotations

import argparse
import gc
import statistics
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


def cases(total_bytes: int) -> list[tuple[str, dml.SplitDesc]]:
    words = total_bytes // 4
    nibbles = total_bytes * 2
    return [
        ("f32 axis 0 into 4", split_case((words // 4096, 4096), 0, 4, "FLOAT32")),
        ("f32 rows of 16 KiB into 2", split_case((words // 4096, 4096), 1, 2, "FLOAT32")),
        ("f32 rows of 1 KiB into 2", split_case((words // 256, 256), 1, 2, "FLOAT32")),
        ("u8 rows of 64 B into 2", split_case((total_bytes // 64, 64), 1, 2, "UINT8")),
        ("u8 rows of 64 B into 8", split_case((total_bytes // 64, 64), 1, 8, "UINT8")),
        ("u8 rows of 63 B into 3", split_case((total_bytes // 63, 63), 1, 3, "UINT8")),
        ("u8 rows of 21 B into 3", split_case((total_bytes // 21, 21), 1, 3, "UINT8")),
        ("u8 rows of 7 B into 7", split_case((total_bytes // 7, 7), 1, 7, "UINT8")),
        ("u8 rows of 9 B into 3", split_case((total_bytes // 9, 9), 1, 3, "UINT8")),
        ("u8 rows of 130 B into 2", split_case((total_bytes // 130, 130), 1, 2, "UINT8")),
        ("u8 rows of 1000 B into 8", split_case((total_bytes // 1000, 1000), 1, 8, "UINT8")),
        ("uint4 rows of 64 B into 2 (bytes)", split_case((nibbles // 128, 128), 1, 2, "UINT4")),
        ("uint4 rows of 63 B into 2 (nibbles)", split_case((nibbles // 126, 126), 1, 2, "UINT4")),
        ("uint4 rows of 15 B into 2 (nibbles)", split_case((nibbles // 30, 30), 1, 2, "UINT4")),
        (
            "uint4 rows of 1 KiB + 1 into 3 (nibbles)",
            split_case((nibbles // 2049, 2049), 1, 3, "UINT4"),
        ),
    ]


def bandwidth(total_bytes: int, repeats: int, only: str = "") -> None:
    print(
        f"run_split / run_join on packed buffers of {total_bytes // MIB} MiB, as a fraction of"
        " memcpy (np.copyto of the same bytes, timed interleaved; best of each)"
    )
    src = np.ones(total_bytes, np.uint8)
    dst = np.ones(total_bytes, np.uint8)
    print(f"  {'case':42} {'split':>6} {'join':>6}   memcpy")
    for name, desc in cases(total_bytes):
        if only not in name:
            continue
        size = desc.input.total_tensor_size_in_bytes
        data, whole = src[:size], dst[:size]
        outs = [np.ones(t.total_tensor_size_in_bytes, np.uint8) for t in desc.outputs]
        join = dml.JoinDesc(desc.outputs, desc.input, desc.axis)
        memcpy = split = joined = float("inf")
        for _ in range(repeats):  # interleaved, so load on the machine hits all three alike
            memcpy = min(memcpy, best(lambda d=data, w=whole: np.copyto(w, d), 1))
            split = min(
                split, best(lambda d=desc, x=data, o=outs: dml.run_split(d, x, outputs=o), 1)
            )
            joined = min(
                joined, best(lambda j=join, o=outs, w=whole: dml.run_join(j, o, output=w), 1)
            )
        gbs = size / memcpy / 1e9
        print(f"  {name:42} {memcpy / split:6.2f} {memcpy / joined:6.2f}   {gbs:.1f} GB/s")
        del outs


def fresh_split(i: int) -> dml.SplitDesc:
    """The ``i``-th rank-8 split into 8 outputs: new objects, values that differ between ``i``."""
    head = [1 + i % 251, 3, 2, 3, 2, 3, 2]
    lengths = [1 + (i + k) % 16 for k in range(8)]  # 8 lengths, not all equal
    whole = dml.TensorDesc("FLOAT32", [*head, sum(lengths)])
    parts = [dml.TensorDesc("FLOAT32", [*head, n]) for n in lengths]
    return dml.SplitDesc(whole, parts, 7)


def median_each(calls: list[Callable[[], Any]]) -> float:
    """The median time of one call, each call timed on its own (gc off)."""
    clock = time.perf_counter
    times = []
    gc.disable()
    try:
        for call in calls:
            start = clock()
            call()
            times.append(clock() - start)
    finally:
        gc.enable()
    return statistics.median(times)


def validation(repeats: int) -> None:
    level = dml.FeatureLevel.LEVEL_4_1
    n = 2000
    desc = fresh_split(0)
    desc.validate(level)
    again = best(lambda: [desc.validate(level) for _ in range(n)], repeats) / n
    text = best(lambda: [desc.validate("4_1") for _ in range(n)], repeats) / n
    firsts = []
    for batch in range(0, n * repeats, 200):  # each batch built just before, outside the timing
        fresh = [fresh_split(i) for i in range(batch, batch + 200)]
        firsts.append(median_each([lambda d=d: d.validate(level) for d in fresh]))
    first = statistics.median(firsts)
    head = [2, 3, 2, 3, 2, 3, 2]
    tensor = median_each(
        [lambda i=i: dml.TensorDesc("FLOAT32", [*head, 1 + i % 64]) for i in range(n * repeats)]
    )
    built = median_each([lambda i=i: fresh_split(i).validate(level) for i in range(n * repeats)])
    print(f"validation, rank 8, 8 outputs (goal < 20 us; medians of {n * repeats} calls):")
    print(f"  desc.validate(level), first time on a fresh desc   {first * 1e6:7.1f} us")
    print(f"  desc.validate(FeatureLevel.LEVEL_4_1), again       {again * 1e6:7.1f} us")
    print(f"  desc.validate('4_1'), again                        {text * 1e6:7.1f} us")
    print(f"  TensorDesc('FLOAT32', <rank 8>), construction      {tensor * 1e6:7.1f} us")
    print(f"  9 new TensorDescs, a SplitDesc and validate        {built * 1e6:7.1f} us")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_directml", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="16 MiB buffers, few repeats")
    parser.add_argument("--mib", type=int, default=None, help="buffer size in MiB (default 256)")
    parser.add_argument("--repeats", type=int, default=None, help="rounds per case (default 5)")
    parser.add_argument("--validation", action="store_true", help="time validation only")
    parser.add_argument("--only", default="", help="only the cases whose name contains this")
    args = parser.parse_args(argv)
    mib = args.mib or (16 if args.quick else 256)
    repeats = args.repeats or (3 if args.quick else 5)
    if not args.validation:
        bandwidth(mib * MIB, repeats, args.only)
    validation(repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
