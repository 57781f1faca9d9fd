"""Backends: per-call cost against each library's own equivalent, and the copy path in GB/s.

Two sections, printed as ratios side by side (nothing here asserts a timing):

1. Per call on small inputs, each backend against its native equivalent (issue 4: within 1.5x):
   ``dm.split`` vs ``torch.split`` / ``jnp.split`` / a tuple of basic indices, and
   ``dm.strided_slice`` vs the basic index it is equivalent to.
2. The copy path on ``[N, 64, 256, 256]`` float32 (256 MiB; and 1 GiB unless ``--quick``):
   split along the first and the last axis into 2, 4 and 16, and ``[..., ::2]``. GB/s count
   bytes read + written (2x size for splits, 1.5x input for the stride-2 slice). Columns:
   datamove ``out=`` and ``copy=True``; a plain copy of the same bytes in the same chunks on the
   same threads (``np.copyto`` of contiguous halves on 2 threads, the yardstick of "0.9 of a
   plain copy"); NumPy ``np.copyto`` into preallocated outputs and ``.copy()``; torch
   ``out.copy_`` and ``split`` + ``.contiguous()``/``clone``; OpenVINO's compiled Split /
   StridedSlice with shared outputs. Peers that are not installed are skipped. GB/s are
   medians over the rounds; ``copy=True`` / best fresh peer is the median over the rounds of
   its speed against the faster of NumPy's and torch's fresh copies in the same round (a fresh
   output's first writes fault in new pages, whose cost swings from round to round on a VM).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

import datamove as dm
from bench._timing import paired
from datamove._backends._copy import num_threads

MiB = 1 << 20


def interleaved(methods: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Median seconds of single calls, each method once per round (after one warm-up each).

    Rounds interleave the methods, so a machine whose speed drifts (a shared VM) slows them
    alike instead of whichever ran during the slow minute. Results are dropped untimed.
    """
    return {name: statistics.median(v) for name, v in rounds(methods, repeats).items()}


def rounds(methods: dict[str, Callable[[], Any]], repeats: int) -> dict[str, list[float]]:
    """Seconds of each method's single call in each round, as `interleaved` times them."""
    for fn in methods.values():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(repeats):
        for name, fn in methods.items():
            t0 = time.perf_counter()
            r = fn()
            samples[name].append(time.perf_counter() - t0)
            del r
    return samples


# -- 1. per-call latency -------------------------------------------------------------------------
def latency(quick: bool) -> None:
    a = np.random.default_rng(0).random((6, 12, 10, 24), dtype=np.float32)
    idx = (slice(None), slice(11, None, -2), slice(None), slice(2, 20))  # the StridedSlice below
    ss = {
        "begin": [0, 11, 0, 2],
        "end": [0, 0, 0, 20],
        "stride": [1, -2, 1, 1],
        "begin_mask": [1, 0, 1, 0],
        "end_mask": [1, 1, 1, 0],
    }
    parts = tuple((slice(None), slice(4 * k, 4 * k + 4)) for k in range(3))
    libs: list[tuple[str, Any, Callable[[Any], Any], Callable[[Any], Any] | None]] = [
        ("numpy", a, lambda x: tuple(x[p] for p in parts), lambda x: x[idx])
    ]
    try:
        import torch

        libs.append(("torch", torch.from_numpy(a.copy()), lambda t: torch.split(t, 4, 1), None))
    except ImportError:
        pass
    try:
        import jax.numpy as jnp

        libs.append(("jax", jnp.asarray(a), lambda x: jnp.split(x, 3, 1), lambda x: x[idx]))
    except ImportError:
        pass
    try:
        import dask.array as da

        libs.append(
            (
                "dask",
                da.from_array(a, chunks=(3, 12, 10, 24)),
                lambda x: tuple(x[p] for p in parts),
                lambda x: x[idx],
            )
        )
    except ImportError:
        pass
    try:
        import array_api_strict as xs

        libs.append(
            (
                "array_api_strict",
                xs.asarray(a),
                lambda x: tuple(x[(*p, ...)] for p in parts),
                lambda x: x[(*idx, ...)],
            )
        )
    except ImportError:
        pass
    print("\n## Per call, [6,12,10,24] float32: datamove / the library's own call (target <= 1.5)")
    print(f"| backend | op | datamove µs | native µs | native | ratio |\n|{'---|' * 6}")
    for name, x, native_split, native_ss in libs:
        t_dm, t_nat, ratio = paired(
            lambda x=x: dm.split(x, 1, 3), lambda x=x, f=native_split: f(x), quick
        )
        native = "torch.split" if name == "torch" else "jnp.split" if name == "jax" else "x[idx]"
        print(
            f"| {name} | split(axis=1, 3) | {t_dm * 1e6:.2f} | {t_nat * 1e6:.2f} | {native} "
            f"| {ratio:.2f} |"
        )
        if name == "torch":
            # torch has no negative-step index; the native equivalent is index + flip
            def native_ss_fn(t: Any) -> Any:
                return t[:, 1::2, :, 2:20].flip(1)
        else:
            assert native_ss is not None
            native_ss_fn = native_ss
        t_dm, t_nat, ratio = paired(
            lambda x=x: dm.strided_slice(x, **ss), lambda x=x, f=native_ss_fn: f(x), quick
        )
        native = "x[idx].flip(1)" if name == "torch" else "x[idx]"
        print(
            f"| {name} | strided_slice(stride -2) | {t_dm * 1e6:.2f} | {t_nat * 1e6:.2f} "
            f"| {native} | {ratio:.2f} |"
        )


# -- 2. the copy path ----------------------------------------------------------------------------
def _threaded_copyto(pairs: list[tuple[np.ndarray, np.ndarray]], pool: ThreadPoolExecutor) -> None:
    """Plain copy of contiguous pairs, each cut in halves on 2 threads (the yardstick)."""
    jobs = []
    for dst, src in pairs:
        h = dst.shape[0] // 2
        jobs.append(pool.submit(np.copyto, dst[h:], src[h:]))
        np.copyto(dst[:h], src[:h])
    for j in jobs:
        j.result()


def _openvino(a: np.ndarray, case: tuple[str, int, int]) -> Callable[[], Any] | None:
    try:
        import openvino as ov
        from openvino import opset1
    except ImportError:
        return None
    kind, axis, k = case
    p = ov.op.Parameter(ov.Type.f32, ov.PartialShape(list(a.shape)))
    if kind == "split":
        node = opset1.split(p, opset1.constant(np.int64(axis)), k)
    else:
        node = opset1.strided_slice(
            p,
            opset1.constant(np.array([0, 0], np.int64)),
            opset1.constant(np.array([0, 0], np.int64)),
            opset1.constant(np.array([1, 2], np.int64)),
            begin_mask=[0, 1],
            end_mask=[0, 1],
            ellipsis_mask=[1, 0],
        )
    model = ov.Model(node.outputs(), [p])
    req = ov.Core().compile_model(model, "CPU").create_infer_request()
    return lambda: req.infer(a, share_inputs=True, share_outputs=True)


def copy_path(sizes_mib: list[int], quick: bool) -> None:
    threads = num_threads()
    pool = ThreadPoolExecutor(1)
    try:
        import torch
    except ImportError:
        torch = None
    print(f"\n## Copy path, float32, GB/s (bytes read + written); datamove threads = {threads}")
    print(
        "| size | op | dm out= | dm copy=True | plain copy, same chunks, 2 thr | np.copyto "
        "prealloc | np fresh | torch copy_ prealloc | torch fresh | OpenVINO shared | "
        "out= / best prealloc peer | out= / plain copy | copy=True / best fresh peer |"
    )
    print(f"|{'---|' * 13}")
    for size in sizes_mib:
        n = size * MiB // (64 * 256 * 256 * 4)
        a = np.random.default_rng(0).random((n, 64, 256, 256), dtype=np.float32)
        t = torch.from_numpy(a) if torch is not None else None
        repeats = 3 if quick else 5 if size > 256 else 9
        cases: list[tuple[str, int, int]] = [("split", ax, k) for ax in (0, 3) for k in (2, 4, 16)]
        cases.append(("slice", 3, 2))
        for case in cases:
            kind, axis, k = case
            if kind == "split":
                views = np.split(a, k, axis)
                traffic = 2 * a.nbytes
                label = f"split axis {axis} into {k}"

                def dm_out(
                    outs: list[np.ndarray], a: np.ndarray = a, axis: int = axis, k: int = k
                ) -> Any:
                    return dm.split(a, axis, k, out=outs)

                def dm_copy(a: np.ndarray = a, axis: int = axis, k: int = k) -> Any:
                    return dm.split(a, axis, k, copy=True)
            else:
                views = [a[..., ::2]]
                traffic = int(1.5 * a.nbytes)
                label = "strided [..., ::2]"
                kw: dict[str, Any] = {
                    "begin_mask": [0, 1],
                    "end_mask": [0, 1],
                    "ellipsis_mask": [1, 0],
                }

                def dm_out(
                    outs: list[np.ndarray], a: np.ndarray = a, kw: dict[str, Any] = kw
                ) -> Any:
                    return dm.strided_slice(a, [0, 0], [0, 0], [1, 2], out=outs[0], **kw)

                def dm_copy(a: np.ndarray = a, kw: dict[str, Any] = kw) -> Any:
                    return dm.strided_slice(a, [0, 0], [0, 0], [1, 2], copy=True, **kw)

            outs = [np.empty(v.shape, v.dtype) for v in views]
            # the yardstick: the same bytes, in contiguous chunks of the outputs' sizes
            srcs = [np.ascontiguousarray(v) for v in views]
            pairs = list(zip(outs, srcs, strict=True))
            methods: dict[str, Callable[[], Any]] = {
                "out": lambda outs=outs, f=dm_out: f(outs),
                "copy": dm_copy,
                "plain": lambda p=pairs: _threaded_copyto(p, pool),
                "np_pre": lambda o=outs, v=views: [
                    np.copyto(d, s) for d, s in zip(o, v, strict=True)
                ],
                "np_fresh": lambda v=views: [x.copy() for x in v],
            }
            if t is not None:
                tv = torch.split(t, a.shape[axis] // k, axis) if kind == "split" else [t[..., ::2]]
                touts = [torch.from_numpy(o) for o in outs]
                methods["t_pre"] = lambda to=touts, tv=tv: [
                    d.copy_(s) for d, s in zip(to, tv, strict=True)
                ]
                # .contiguous() returns the view itself when it is contiguous: clone those
                methods["t_fresh"] = lambda tv=tv: [
                    x.clone() if x.is_contiguous() else x.contiguous() for x in tv
                ]
            ov = _openvino(a, case)
            if ov is not None:
                methods["ov"] = ov
            # fresh outputs get more rounds: their first writes fault in new pages, whose cost
            # swings between rounds on a VM
            times = rounds(methods, repeats if quick else 3 * repeats)
            g = {name: traffic / statistics.median(v) for name, v in times.items()}
            fresh = [times[x] for x in ("np_fresh", "t_fresh") if x in times]
            # copy=True against the fastest fresh peer of the same round, median of the rounds
            paired = statistics.median(
                min(peers) / mine for mine, *peers in zip(times["copy"], *fresh, strict=True)
            )
            del srcs, pairs, methods, ov
            if t is not None:
                del touts, tv
            gc.collect()
            best_pre = max(g.get(x, 0) for x in ("np_pre", "t_pre", "ov"))

            def f(key: str, g: dict[str, float] = g) -> str:
                return f"{g[key] / 1e9:.1f}" if key in g else "-"

            print(
                f"| {size} MiB | {label} | {f('out')} | {f('copy')} | {f('plain')} | "
                f"{f('np_pre')} | {f('np_fresh')} | {f('t_pre')} | {f('t_fresh')} | {f('ov')} | "
                f"{g['out'] / best_pre:.2f} | {g['out'] / g['plain']:.2f} | "
                f"{paired:.2f} |",
                flush=True,
            )
            del outs, views
        del a, t
        gc.collect()
    pool.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_backends", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="256 MiB only, few repeats")
    parser.add_argument("--section", choices=["latency", "copy", "all"], default="all")
    args = parser.parse_args(argv)
    if args.section in ("latency", "all"):
        latency(args.quick)
    if args.section in ("copy", "all"):
        copy_path([256] if args.quick else [256, 1024], args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
