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
