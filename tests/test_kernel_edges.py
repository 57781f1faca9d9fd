"""The compiled loops at the edges of their buffers: ``copy_rows`` and ``copy_nibble_rows``.

Random layouts of every kind the loops route (splits and joins of packed rows, strided and
broadcast parts, negative strides for bytes, odd nibble offsets, 1 to 70 parts, rows around the
VBMI programs' periods, calls around their size thresholds), each part in a buffer of exactly
the bytes its rows in the call span, so a read or write one byte past an edge is out of bounds:
under AddressSanitizer (``make sanitize``, whose list holds this file) such a byte is a report,
and every buffer is also compared whole with a NumPy reference, so a stray write inside one
fails here on any build. Rows are cut between threads as the engine cuts them.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from datamove._backends import _copy

kernels: Any = _copy._kernels
pytestmark = pytest.mark.skipif(kernels is None, reason="built without a C compiler")

MIB = 1 << 20
# A part: [dst offset, dst stride, src offset, src stride, run] in bytes (nibbles for 4-bit),
# offsets of row 0 from where the part's buffer would start.
Layout = tuple[str, int, list[list[int]]]


def _addr(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def _rows(buf: np.ndarray, at: int, rows: int, stride: int, run: int) -> np.ndarray:
    return as_strided(buf[at:], shape=(rows, run), strides=(stride, 1))


def _runs(rng: random.Random, nparts: int, nibbles: bool) -> list[int]:
    pick = rng.random()
    if not nibbles and pick < 0.3:  # dense and sparse programs: rows of 2-64 runs of 1-3 bytes
        runs = [rng.choice([1, 2, 3, 1]) for _ in range(rng.randint(2, 24))]
        return runs[: rng.choice([5, 8, 16, 24])]
    if nibbles and pick < 0.4:  # the slot programs' runs, into at most 8
        nparts = min(nparts, 8)
        pool = [6, 10, 11, 12, 15]
    elif nibbles:
        pool = [1, 2, 3, 6, 9, 10, 11, 15, 16, 17, 31, 32, 33, 63, 65, 129]
    elif pick < 0.4:  # the shuffle programs' runs, under 4 bytes
        pool = [1, 1, 2, 3, 5, 8]
    elif pick < 0.6:  # the line splits' runs
        pool = [63, 64, 65, 125, 250, 500, 1000, 4095, 4096]
    else:
        pool = [1, 2, 3, 4, 7, 8, 16, 21, 24, 32, 48, 130]
    runs = [rng.choice(pool) for _ in range(nparts)]
    if rng.random() < 0.5:
        runs = [runs[0]] * nparts
    if rng.random() < 0.5:  # rows narrow enough for the programs
        cap = rng.choice([16, 30, 60, 64])
        while len(runs) > 2 and sum(runs) > cap:
            runs.pop()
    return runs


def _layout(rng: random.Random, nibbles: bool) -> Layout:
    kind = rng.choice(["split", "split", "join", "join", "strided"])
    nparts = rng.choice([2, 3, 7, 8, 16, rng.randint(1, 70)])
    runs = _runs(rng, nparts, nibbles)
    width = sum(runs)
    target = rng.choice([4 << 10, 100 << 10, 136 << 10, 200 << 10, 600 << 10, 1 * MIB])
    unit = 2 if nibbles else 1  # units per byte
    rows = max(1, target * unit // width + rng.choice([0, 0, -1, 1, -64, 63, 64, 65, 129]))
    gap = rng.choice([0, 0, 0, 0, 0, 1, 3]) if kind != "strided" else 0
    parts: list[list[int]] = []
    at = 0
    for run in runs:
        if kind == "split":  # packed (or padded) input rows into packed outputs
            parts.append([0, run, at, width + gap, run])
        elif kind == "join":
            parts.append([at, width + gap, 0, run, run])
        else:  # each part its own strides; sources may be broadcast (stride 0)
            src_stride = rng.choice([0, run, run + 1, 2 * run + 5])
            parts.append([0, run + rng.choice([0, 1, 7]), 0, src_stride, run])
        at += run
    if not nibbles:  # negative strides: the rows run backwards from the last
        for p in parts:
            for k in (0, 2):
                if rows > 1 and rng.random() < 0.1:
                    p[k], p[k + 1] = p[k] + (rows - 1) * p[k + 1], -p[k + 1]
    return kind, rows, parts


def _span(at: int, stride: int, run: int, row0: int, row1: int) -> tuple[int, int]:
    first, last = at + row0 * stride, at + (row1 - 1) * stride
    return min(first, last), max(first, last) + run


class _Buffers:
    """Each group of parts in its own buffer of exactly the bytes it spans in the call."""

    def __init__(
        self,
        rng: np.random.Generator,
        groups: list[list[int]],
        spans: list[tuple[int, int]],
        unit: int,
    ) -> None:
        self.base: dict[int, tuple[np.ndarray, int]] = {}  # part -> (buffer, its offset in units)
        self.buffers = []
        for group in groups:
            lo = min(spans[k][0] for k in group)
            hi = max(spans[k][1] for k in group)
            lo_byte, hi_byte = lo // unit, -(-hi // unit)
            buf = rng.integers(0, 256, hi_byte - lo_byte, dtype=np.uint8)
            self.buffers.append(buf)
            for k in group:
                self.base[k] = (buf, -lo_byte * unit)


def _run_threads(
    call: Any, parts: list[tuple[int, ...]], row0: int, row1: int, threads: int
) -> None:
    bounds = [row0 + t * (row1 - row0) // threads for t in range(threads + 1)]
    workers = [
        threading.Thread(target=call, args=(parts, bounds[t], bounds[t + 1]))
        for t in range(1, threads)
    ]
    for w in workers:
        w.start()
    call(parts, bounds[0], bounds[1])
    for w in workers:
        w.join()


def _unpack(b: np.ndarray) -> np.ndarray:
    n = np.empty(2 * len(b), np.uint8)
    n[0::2], n[1::2] = b & 15, b >> 4
    return n


def _pack(n: np.ndarray) -> np.ndarray:
    return (n[0::2] | (n[1::2] << 4)).astype(np.uint8)


def _case(seed: int, nibbles: bool) -> None:
    rng = random.Random(seed)  # noqa: S311 - layouts, not secrets
    fill = np.random.default_rng(seed)
    kind, rows, parts = _layout(rng, nibbles)
    row0, row1 = 0, rows
    if rows > 1 and rng.random() < 0.3:  # a thread's share of a bigger copy
        row0 = rng.randrange(rows - 1)
        row1 = rng.randrange(row0 + 1, rows + 1)
    n = len(parts)
    src_groups = [list(range(n))] if kind == "split" else [[k] for k in range(n)]
    dst_groups = [list(range(n))] if kind == "join" else [[k] for k in range(n)]
    unit = 2 if nibbles else 1
    srcs = _Buffers(fill, src_groups, [_span(p[2], p[3], p[4], row0, row1) for p in parts], unit)
    dsts = _Buffers(fill, dst_groups, [_span(p[0], p[1], p[4], row0, row1) for p in parts], unit)
    want = [_unpack(b) if nibbles else b.copy() for b in dsts.buffers]
    call_parts = []
    for k, (d, ds, s, ss, run) in enumerate(parts):
        dbuf, dat = dsts.base[k]
        sbuf, sat = srcs.base[k]
        out = want[next(i for i, b in enumerate(dsts.buffers) if b is dbuf)]
        source = _unpack(sbuf) if nibbles else sbuf
        _rows(out, dat + d + row0 * ds, row1 - row0, ds, run)[...] = _rows(
            source, sat + s + row0 * ss, row1 - row0, ss, run
        )
        if nibbles:  # addresses of the buffers, offsets of row 0 from them (never negative)
            dshift, sshift = max(0, -(dat + d)) // 2 + 1, max(0, -(sat + s)) // 2 + 1
            call_parts.append(
                (_addr(dbuf) - dshift, dat + d + 2 * dshift, ds,
                 _addr(sbuf) - sshift, sat + s + 2 * sshift, ss, run)
            )  # fmt: skip
        else:
            call_parts.append((_addr(dbuf) + dat + d, ds, _addr(sbuf) + sat + s, ss, run))
    threads = rng.choice([1, 1, 2, 3])
    if nibbles:
        call = kernels.copy_nibble_rows
    else:
        streaming = rng.random() < 0.5

        def call(p: list[tuple[int, ...]], a: int, b: int) -> None:
            kernels.copy_rows(p, a, b, streaming)

    _run_threads(call, call_parts, row0, row1, threads)
    for got, expected in zip(dsts.buffers, want, strict=True):
        assert np.array_equal(got, _pack(expected) if nibbles else expected), (
            seed,
            kind,
            rows,
            row0,
            row1,
            parts[:4],
        )


@pytest.mark.parametrize("block", range(4))
def test_byte_rows_stay_inside_their_buffers(block: int) -> None:
    before = kernels.shuffle_counts()
    for seed in range(block * 400, (block + 1) * 400):
        _case(seed, nibbles=False)
    ran = [b - a for a, b in zip(before, kernels.shuffle_counts(), strict=True)]
    if kernels.SHUFFLE:  # the layouts reach the programs where the CPU has them
        assert ran[0] + ran[1] > 0


@pytest.mark.parametrize("block", range(4))
def test_nibble_rows_stay_inside_their_buffers(block: int) -> None:
    before = kernels.shuffle_counts()
    for seed in range(block * 250, (block + 1) * 250):
        _case(seed, nibbles=True)
    ran = [b - a for a, b in zip(before, kernels.shuffle_counts(), strict=True)]
    if kernels.SHUFFLE:
        assert ran[2] + ran[3] > 0
