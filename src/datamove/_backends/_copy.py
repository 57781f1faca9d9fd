"""The NumPy copy engine: ``copy=True`` and ``out=`` in one pass, on every core.

A copy of ``(destination, source)`` pairs is cut into pieces along the outermost axes and the
pieces are handed to a small thread pool (``np.copyto`` releases the GIL), so both cores of a
two-core machine stream at once. Three things make it fast, each measured on the reference
machine (see ``bench/RESULTS.md``):

* **Few, large pieces where both sides are contiguous.** glibc's ``memcpy`` switches to
  non-temporal stores above a threshold (181.5 MiB here), which is worth ~1.7x; so a contiguous
  pair is cut into exactly one piece per thread, never into small blocks.
* **Wide elements for strided sources.** When the innermost axis is contiguous on both sides
  (a split along the last axis), both are viewed as one ``void`` element per row, so NumPy
  moves 64-byte or 512-byte elements in one long inner loop instead of calling its inner loop
  once per short row (1.5-2x on a last-axis split into 16).
* **Cache-sized steps across outputs.** Pieces of different outputs that read the same input
  rows (a split along an inner axis) are interleaved, about 8 MiB of input per step, so each
  input cache line comes from memory once and is reused from the shared L3 by the other
  outputs. Steps of 1 MiB (to stay in L2) cost more in ``np.copyto`` calls than they saved:
  a last-axis split into 16 ran at 13-17 GB/s with them and 19-21 GB/s with 8 MiB.

Small copies (under ``PARALLEL_MIN_BYTES`` in all) run inline: no pool, no cutting.
"""

from __future__ import annotations

import itertools
import os
import threading
from typing import TYPE_CHECKING, Final

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["PARALLEL_MIN_BYTES", "copy_pairs", "num_threads"]

PARALLEL_MIN_BYTES: Final = 8 << 20  # below this, one thread: a pool hand-off costs ~20-50 us
_STEP_BYTES: Final = 8 << 20  # input bytes per interleaved step (fits L3 with the outputs)
_MIN_PIECE_BYTES: Final = 1 << 20  # never cut finer: np.copyto costs ~1-4 us per call
_MAX_WIDE_BYTES: Final = 128  # longer rows: NumPy's own contiguous inner loop is faster
_MAX_THREADS: Final = 8  # memory bandwidth saturates long before this

Pair = tuple[np.ndarray, np.ndarray]  # (destination, source), same shape and dtype

_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def num_threads() -> int:
    """Threads the engine uses: ``DATAMOVE_NUM_THREADS``, else the usable cores (at most 8)."""
    env = os.environ.get("DATAMOVE_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, _MAX_THREADS))


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_size  # noqa: PLW0603 - one process-wide pool, made on first big copy
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415 - only for big copies

    with _pool_lock:
        if _pool is None or _pool_size < workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="datamove-copy")
            _pool_size = workers
        return _pool


def copy_pairs(pairs: Sequence[Pair]) -> None:
    """Copy each source into its destination (same shapes and dtypes; checked by the caller)."""
    total = sum(dst.nbytes for dst, _ in pairs)
    threads = num_threads()
    if total < PARALLEL_MIN_BYTES or threads == 1:
        for dst, src in pairs:
            np.copyto(dst, src, casting="no")
        return
    shares: list[list[Pair]] = [[] for _ in range(threads)]
    per_pair: list[list[list[Pair]]] = []
    for dst, src in pairs:
        if dst.size == 0:
            continue
        d, s = _widen(*_squeeze_leading(dst, src))
        if d.ndim == 0 or (d.flags.c_contiguous and s.flags.c_contiguous):
            parts = threads
        else:
            steps = -(-total // (threads * _STEP_BYTES))
            finest = max(1, d.nbytes // (threads * _MIN_PIECE_BYTES))
            parts = threads * max(1, min(steps, finest))
        pieces = list(_cut(d, s, parts))
        n = len(pieces)
        per_pair.append([pieces[t * n // threads : (t + 1) * n // threads] for t in range(threads)])
    for t in range(threads):
        # Round-robin over the outputs: pieces that read the same input rows run back to back.
        for group in itertools.zip_longest(*(p[t] for p in per_pair)):
            shares[t].extend(piece for piece in group if piece is not None)
    pool = _executor(threads - 1)
    futures = [pool.submit(_run, share) for share in shares[1:] if share]
    try:
        _run(shares[0])
    finally:
        for future in futures:
            future.result()


def _run(pieces: list[Pair]) -> None:
    for dst, src in pieces:
        np.copyto(dst, src, casting="no")


def _squeeze_leading(dst: np.ndarray, src: np.ndarray) -> Pair:
    while dst.ndim > 1 and dst.shape[0] == 1:
        dst, src = dst[0], src[0]
    return dst, src


def _widen(dst: np.ndarray, src: np.ndarray) -> Pair:
    """View both sides as one ``void`` element per row when rows are contiguous on both sides.

    Only for strided sources of plain (non-object) dtypes, with a last axis of more than one
    element whose bytes are contiguous in the source and the destination.
    """
    if (
        dst.ndim < 2
        or src.flags.c_contiguous
        or dst.dtype.hasobject
        or dst.shape[-1] < 2
        or dst.itemsize * dst.shape[-1] > _MAX_WIDE_BYTES
        or dst.strides[-1] != dst.itemsize
        or src.strides[-1] != src.itemsize
    ):
        return dst, src
    wide = np.dtype((np.void, dst.itemsize * dst.shape[-1]))
    try:
        return dst.view(wide)[..., 0], src.view(wide)[..., 0]
    except ValueError:  # pragma: no cover - an odd layout NumPy will not reinterpret
        return dst, src


def _cut(dst: np.ndarray, src: np.ndarray, parts: int) -> Iterator[Pair]:
    """About ``parts`` pieces, in memory order, cut along the outermost axes."""
    if parts <= 1 or dst.ndim == 0:
        yield dst, src
        return
    n = dst.shape[0]
    if n >= parts:
        for k in range(parts):
            a, z = k * n // parts, (k + 1) * n // parts
            yield dst[a:z], src[a:z]
        return
    sub = -(-parts // n)
    for k in range(n):
        yield from _cut(dst[k], src[k], sub)
