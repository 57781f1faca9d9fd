"""Concat-1: ``dm.concat`` of 2, 4 and 16 parts against NumPy, PyTorch and a plain copy, in GB/s.

The issue's targets (issue 18), as ratios measured in this run:
  dm.concat, out= and a fresh output  >= np.concatenate and torch.cat (the same kind of output)
  dm.concat                           >= 0.9 of a plain copy of the same bytes on the same threads

The output is float32 ``[16, 64, 256, 256]`` (256 MiB; ``[16, 16, 64, 256]``, 16 MiB, with
``--quick``), joined from 2, 4 and 16 equal contiguous parts along the first and the last axis.
GB/s count bytes read + written (2x the output). Columns: datamove into a preallocated ``out=``
and into a fresh array; ``np.concatenate(..., out=)`` and fresh; ``torch.cat(..., out=)`` and
fresh (tensors sharing the NumPy arrays' memory); and the yardstick, a plain copy of the same
bytes: each part's bytes into a contiguous range of a buffer of the output's size, every part cut
into as many pieces as datamove's copy engine has threads, on that many threads (``np.copyto``).
Each method runs once per round, rounds interleaved (``bench_backends.interleaved``), median per
method. Peers that are not installed are skipped; nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import gc
import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

import datamove as dm
from bench.bench_backends import interleaved
from datamove._backends._copy import num_threads

FULL = (16, 64, 256, 256)  # 256 MiB of float32
QUICK = (16, 16, 64, 256)  # 16 MiB


def plain_copy(
    pairs: list[tuple[np.ndarray, np.ndarray]], pool: ThreadPoolExecutor, threads: int
) -> None:
    """Each (destination, source) pair of flat contiguous arrays in ``threads`` pieces, the
    pieces on ``threads`` threads (this one included)."""
    jobs = []
    for dst, src in pairs:
        cuts = np.linspace(0, len(dst), threads + 1).astype(int)
        for a, z in itertools.pairwise(cuts[1:]):
            jobs.append(pool.submit(np.copyto, dst[a:z], src[a:z]))
        np.copyto(dst[: cuts[1]], src[: cuts[1]])
    for job in jobs:
        job.result()


def parts_of(shape: tuple[int, ...], axis: int, k: int) -> list[np.ndarray]:
    """``k`` equal, separate, contiguous arrays that join to ``shape`` along ``axis``."""
    part = list(shape)
    part[axis] //= k
    rng = np.random.default_rng(k)
    return [rng.random(part, dtype=np.float32) for _ in range(k)]


def run(shape: tuple[int, ...], repeats: int) -> None:
    threads = num_threads()
    pool = ThreadPoolExecutor(max(threads - 1, 1))
    try:
        import torch
    except ImportError:
        torch = None
    size = int(np.prod(shape)) * 4
    print(
        f"\n## Concat, float32 {list(shape)} ({size >> 20} MiB), GB/s (bytes read + written); "
        f"datamove threads = {threads}"
    )
    print(
        "| parts | axis | dm out= | dm fresh | plain copy | np out= | np fresh | torch out= | "
        "torch fresh | out= / plain | out= / best out= peer | fresh / best fresh peer |"
    )
    print(f"|{'---|' * 12}")
    out = np.empty(shape, np.float32)
    for axis in (0, len(shape) - 1):
        for k in (2, 4, 16):
            parts = parts_of(shape, axis, k)
            expected = np.concatenate(parts, axis)
            assert np.array_equal(dm.concat(parts, axis), expected)
            flat = out.reshape(-1)
            offsets = itertools.pairwise(itertools.accumulate([0, *(p.size for p in parts)]))
            pairs = [(flat[a:z], p.reshape(-1)) for (a, z), p in zip(offsets, parts, strict=True)]
            methods: dict[str, Callable[[], Any]] = {
                "dm_out": lambda p=parts, a=axis: dm.concat(p, a, out=out),
                "dm_fresh": lambda p=parts, a=axis: dm.concat(p, a),
                "plain": lambda pairs=pairs: plain_copy(pairs, pool, threads),
                "np_out": lambda p=parts, a=axis: np.concatenate(p, a, out=out),
                "np_fresh": lambda p=parts, a=axis: np.concatenate(p, a),
            }
            if torch is not None:
                tparts = [torch.from_numpy(p) for p in parts]
                tout = torch.from_numpy(out)
                methods["t_out"] = lambda t=tparts, a=axis, o=tout: torch.cat(t, a, out=o)
                methods["t_fresh"] = lambda t=tparts, a=axis: torch.cat(t, a)
            g = {name: 2 * size / s for name, s in interleaved(methods, repeats).items()}
            assert np.array_equal(out, expected)  # the last method wrote it: still right
            del methods, pairs, expected
            gc.collect()
            best_out = max(g.get(m, 0) for m in ("np_out", "t_out"))
            best_fresh = max(g.get(m, 0) for m in ("np_fresh", "t_fresh"))

            def f(key: str, g: dict[str, float] = g) -> str:
                return f"{g[key] / 1e9:.1f}" if key in g else "-"

            print(
                f"| {k} | {axis} | {f('dm_out')} | {f('dm_fresh')} | {f('plain')} | "
                f"{f('np_out')} | {f('np_fresh')} | {f('t_out')} | {f('t_fresh')} | "
                f"{g['dm_out'] / g['plain']:.2f} | {g['dm_out'] / best_out:.2f} | "
                f"{g['dm_fresh'] / best_fresh:.2f} |",
                flush=True,
            )
            del parts
            gc.collect()
    pool.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_concat", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="16 MiB, few repeats")
    args = parser.parse_args(argv)
    run(QUICK if args.quick else FULL, 3 if args.quick else 9)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
