"""The NumPy copy engine: ``copy=True`` and ``out=`` in one pass, on every core.

A copy of ``(destination, source)`` pairs is cut into pieces along the outermost axes and the
pieces are handed to a small thread pool (``np.copyto`` releases the GIL), so both cores of a
two-core machine stream at once. Three things make it fast, each measured on the reference
machine (``bench/HISTORY.md``, "Copy path"; current figures in ``bench/RESULTS.md``):

* **Few, large pieces where both sides are contiguous.** glibc's ``memcpy`` switches to
  non-temporal stores above a threshold (181.5 MiB here), which is worth ~1.7x; so a contiguous
  pair is cut into exactly one piece per thread, never into small blocks. (Where the compiled
  loops are built, such pairs stream from ``_STREAM_MIN_BYTES``: see below.)
* **Wide elements for strided sources.** When the innermost axis is contiguous on both sides
  (a split along the last axis), both are viewed as one ``void`` element per row, so NumPy
  moves 64-byte or 512-byte elements in one long inner loop instead of calling its inner loop
  once per short row (1.5-2x on a last-axis split into 16).
* **Cache-sized steps across outputs.** Pieces of different outputs that read the same input
  rows (a split along an inner axis) are interleaved, about 8 MiB of input per step, so each
  input cache line comes from memory once and is reused from the shared L3 by the other
  outputs. Steps of 1 MiB (to stay in L2) cost more in ``np.copyto`` calls than they saved:
  a last-axis split into 16 ran at 13-17 GB/s with them and 19-21 GB/s with 8 MiB.

Small copies (under ``PARALLEL_MIN_BYTES`` in all) run inline: no pool, no cutting. A forked
child makes its own pool: the parent's threads are not in it.

**The compiled row loop.** Where the C extension ``datamove._kernels`` was built (it is optional,
see ``setup.py``), a copy whose every pair is a run of bytes repeated over the same number of
rows (a split or a join along an inner axis, a strided slice of one axis) skips all of the above:
one loop reads each input row once and writes every output's piece of it, rows shared out
between the threads, with non-temporal stores above ``_STREAM_MIN_BYTES`` (as glibc's ``memcpy``
does). NumPy's copy loops cannot do that: they copy one output at a time, one short row at a
time. A large copy whose every pair is one contiguous block (a join or a split along the first
axis) is cut into equal byte shares, one per thread, streamed by the same loop. Pairs that may
overlap, object arrays and other layouts keep the NumPy path.
"""

from __future__ import annotations

import itertools
import os
import threading
from types import ModuleType
from typing import TYPE_CHECKING, Final

import numpy as np

from datamove._layout import Part, rows_apart

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "PARALLEL_MIN_BYTES",
    "SMALL_BYTES",
    "compiled_loops",
    "copy_pairs",
    "num_threads",
    "row_plan",
    "rows_form",
    "share_rows",
]

PARALLEL_MIN_BYTES: Final = 8 << 20  # below this, one thread: a pool hand-off costs ~20-50 us
_STEP_BYTES: Final = 8 << 20  # input bytes per interleaved step (fits L3 with the outputs)
_MIN_PIECE_BYTES: Final = 1 << 20  # never cut finer: np.copyto costs ~1-4 us per call
_MAX_WIDE_BYTES: Final = 128  # longer rows: NumPy's own contiguous inner loop is faster
_MAX_THREADS: Final = 8  # memory bandwidth saturates long before this
_KERNEL_MIN_BYTES: Final = 1 << 20  # below this, planning the row loop costs more than it saves
SMALL_BYTES: Final = min(PARALLEL_MIN_BYTES, _KERNEL_MIN_BYTES)  # plain np.copyto below this
_STREAM_MIN_BYTES: Final = 16 << 20  # from here the outputs no longer fit the cache anyway

_kernels: ModuleType | None
try:
    from datamove import _kernels
except ImportError:  # pragma: no cover - built without a C compiler: NumPy's loops do it all
    _kernels = None

Pair = tuple[np.ndarray, np.ndarray]  # (destination, source), same shape and dtype


def compiled_loops() -> ModuleType | None:
    """The compiled loops (:mod:`datamove._kernels`), or ``None`` where they were not built."""
    return _kernels


_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def _after_fork_in_child() -> None:
    """A forked child makes its own pool, under a lock of its own.

    The parent's pool threads do not exist in the child: a copy handed to them would wait
    forever, and so would one waiting on a lock a parent's thread held as it forked.
    """
    global _pool, _pool_size, _pool_lock
    _pool, _pool_size, _pool_lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
    if total < SMALL_BYTES:  # below both thresholds: skip asking for threads (~1.4 us)
        for dst, src in pairs:
            np.copyto(dst, src, casting="no")
        return
    threads = num_threads()
    if _kernels is not None and total >= _KERNEL_MIN_BYTES:
        plan = row_plan(pairs, min_rows=threads)
        if plan is not None:
            _copy_rows(*plan, total=total, threads=threads)
            return
        if total >= _STREAM_MIN_BYTES:
            runs = _whole_runs(pairs)
            if runs is not None:
                _stream_runs(runs, total, threads)
                return
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
        if d.flags.c_contiguous and s.flags.c_contiguous:  # (as a 0-d pair is)
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


def row_plan(pairs: Sequence[Pair], *, min_rows: int = 1) -> tuple[int, list[Part]] | None:
    """The pairs as one row loop, ``(rows, parts)``, or None where the loop cannot do them.

    Every pair must be a run of bytes repeated at fixed strides over the same number of rows
    (at least ``min_rows``, so that every thread gets some), no destination may overlap itself,
    another destination or any source, and the dtype must hold no Python objects.
    """
    rows = -1
    parts: list[Part] = []
    for dst, src in pairs:
        if dst.size == 0:
            continue
        if dst.dtype.hasobject:
            return None
        form = rows_form(dst.shape, dst.strides, src.strides, dst.itemsize)
        if form is None:
            return None
        n, run, dst_stride, src_stride = form
        if rows not in (-1, n) or n < min_rows or (n > 1 and abs(dst_stride) < run):
            return None
        rows = n
        dst_at = dst.__array_interface__["data"][0]
        src_at = src.__array_interface__["data"][0]
        parts.append((dst_at, dst_stride, src_at, src_stride, run))
    if not parts or not rows_apart(parts, rows):
        return None
    return rows, parts


def _whole_runs(pairs: Sequence[Pair]) -> list[Part] | None:
    """The pairs as one run of bytes each (both sides contiguous, apart), or None."""
    parts: list[Part] = []
    for dst, src in pairs:
        if dst.size == 0:
            continue
        if dst.dtype.hasobject or not (dst.flags.c_contiguous and src.flags.c_contiguous):
            return None
        dst_at = dst.__array_interface__["data"][0]
        src_at = src.__array_interface__["data"][0]
        parts.append((dst_at, 0, src_at, 0, dst.nbytes))
    if not parts or not rows_apart(parts, 1):
        return None
    return parts


def _stream_runs(runs: list[Part], total: int, threads: int) -> None:
    """Whole runs (a join or split along the first axis): equal byte shares, streamed.

    ``np.copyto`` of a contiguous piece is glibc's ``memcpy``, whose streaming stores start
    only above 181.5 MiB a call here; the row loop streams every run of a large copy, which is
    worth ~1.3x on two threads (``bench concat``, axis 0).
    """
    kernels = _kernels
    assert kernels is not None
    shares: list[list[Part]] = [[] for _ in range(threads)]
    ends = [(t + 1) * total // threads for t in range(threads)]  # where each share ends
    done = t = 0  # bytes handed out so far, in the runs' order; the thread taking the next
    for dst_at, _, src_at, _, run in runs:
        at = 0
        while at < run:
            while ends[t] <= done:  # ends[-1] == total > done
                t += 1
            n = min(run - at, ends[t] - done)
            # (A run's stride as its row length: one dense row, which the loop streams.)
            shares[t].append((dst_at + at, n, src_at + at, n, n))
            at += n
            done += n
    calls = [share for share in shares if share]
    pool = _executor(threads - 1) if len(calls) > 1 else None
    futures = [pool.submit(kernels.copy_rows, c, 0, 1, True) for c in calls[1:]] if pool else []
    try:
        kernels.copy_rows(calls[0], 0, 1, True)
    finally:
        for future in futures:
            future.result()


def rows_form(
    shape: Sequence[int], dst_strides: Sequence[int], src_strides: Sequence[int], item: int
) -> tuple[int, int, int, int] | None:
    """``(rows, run, dst_stride, src_stride)`` for a copy, or None if it takes two row axes.

    Axes of length 1 are dropped and neighbouring axes merged where both sides step evenly
    across them; what is left must be one run (contiguous on both sides) repeated over at most
    one axis, or single elements repeated over one axis. Strides and the result count in the
    same unit as ``item`` (bytes, or nibbles for 4-bit tensors with ``item=1``).
    """
    merged: list[list[int]] = []  # innermost first: [length, dst stride, src stride]
    for n, ds, ss in zip(shape[::-1], dst_strides[::-1], src_strides[::-1], strict=True):
        if n == 1:
            continue
        if merged:
            inner = merged[-1]
            if ds == inner[0] * inner[1] and ss == inner[0] * inner[2]:
                inner[0] *= n
                continue
        merged.append([n, ds, ss])
    if not merged:
        return 1, item, 0, 0
    n, ds, ss = merged[0]
    if ds == item and ss == item:
        if len(merged) == 1:
            return 1, n * item, 0, 0
        if len(merged) == 2:
            rows, ds, ss = merged[1]
            return rows, n * item, ds, ss
        return None
    if len(merged) == 1:
        return n, item, ds, ss
    return None


def _copy_rows(rows: int, parts: list[Part], *, total: int, threads: int) -> None:
    kernels = _kernels
    assert kernels is not None
    streaming = total >= _STREAM_MIN_BYTES
    share_rows(
        lambda row0, row1: kernels.copy_rows(parts, row0, row1, streaming),
        rows,
        1 if total < PARALLEL_MIN_BYTES else threads,
    )


def share_rows(call: Callable[[int, int], object], rows: int, threads: int) -> None:
    """``call(row0, row1)`` over ``rows`` cut into ``threads`` ranges, one per thread.

    The calling thread takes the first range; the pool's threads take the others.
    """
    threads = max(1, min(threads, rows))
    bounds = [t * rows // threads for t in range(threads + 1)]
    futures = (
        [_executor(threads - 1).submit(call, bounds[t], bounds[t + 1]) for t in range(1, threads)]
        if threads > 1
        else []
    )
    try:
        call(bounds[0], bounds[1])
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
    if dst.ndim == 0:
        yield dst, src
        return
    n = dst.shape[0]
    if n >= parts or dst.ndim == 1:  # (dst[k] of a 1-D array would be a scalar, not a view)
        for k in range(parts):
            a, z = k * n // parts, (k + 1) * n // parts
            yield dst[a:z], src[a:z]
        return
    sub = -(-parts // n)
    for k in range(n):
        yield from _cut(dst[k], src[k], sub)
