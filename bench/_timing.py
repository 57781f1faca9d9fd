"""Timing shared by the benchmarks: per-call medians with gc off (never used in tests)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any


def per_call(fn: Callable[[], Any], quick: bool, repeats: int = 31) -> float:
    """Median seconds per call over batches that each last >= 2 ms (gc off while timing)."""
    fn()
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= 0.002:
            break
        n *= 2
    samples = []
    gc.disable()
    try:
        for _ in range(7 if quick else repeats):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples.append((time.perf_counter() - t0) / n)
    finally:
        gc.enable()
    return statistics.median(samples)


def _batch_size(fn: Callable[[], Any]) -> int:
    fn()
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= 0.002:
            return n
        n *= 2


def paired(
    ours: Callable[[], Any], peer: Callable[[], Any], quick: bool, repeats: int = 31
) -> tuple[float, float, float]:
    """Seconds per call of ``ours`` and ``peer``, and the median of their per-pair ratios.

    The two are timed in alternating batches (each >= 2 ms, gc off), and the ratio is taken
    within each adjacent pair: on a shared machine whose speed drifts from second to second,
    a ratio of two medians taken minutes apart measures the drift, not the code.
    """
    n_ours, n_peer = _batch_size(ours), _batch_size(peer)
    a: list[float] = []
    b: list[float] = []
    gc.disable()
    try:
        for _ in range(7 if quick else repeats):
            t0 = time.perf_counter()
            for _ in range(n_ours):
                ours()
            t1 = time.perf_counter()
            for _ in range(n_peer):
                peer()
            t2 = time.perf_counter()
            a.append((t1 - t0) / n_ours)
            b.append((t2 - t1) / n_peer)
    finally:
        gc.enable()
    ratio = statistics.median(x / y for x, y in zip(a, b, strict=True))
    return statistics.median(a), statistics.median(b), ratio
