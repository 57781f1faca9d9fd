"""The 4-bit engine: copies of 4-bit elements that start or step mid-byte.

:mod:`._moves` moves 4-bit copies as bytes where every offset, stride and run is even; the
others (:class:`~._moves.NibbleCopy`, as :class:`Region` pairs) come here. Where the compiled
loops were built, a copy of one run of nibbles per row goes to ``copy_nibble_rows``. Otherwise
the rows are sorted into classes by the parity of their nibble offsets, which makes every stride
whole bytes. A row of a class is then a first nibble (when it starts in a high nibble), a run of
whole bytes, and a last nibble (when one is left). The run is copied as bytes when the source is
aligned the same way; otherwise it is gathered into scratch memory, shifted by 4 bits as 64-bit
words and scattered. All of it goes in blocks of about ``_BLOCK_BYTES``, every part of a block
together, so each block's source bytes are read from memory once. Small copies, and layouts with
many odd-stride dimensions, are unpacked to a nibble per byte instead. A byte shared with
padding or another part keeps its other nibble.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Iterator
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from datamove._backends._copy import (
    PARALLEL_MIN_BYTES,
    compiled_loops,
    num_threads,
    rows_form,
    share_rows,
)
from datamove._layout import ranges_apart, rows_apart, span
from datamove.directml._buffers import Bytes, pack_nibbles, unpack_nibbles
from datamove.directml._moves import Rows, copy_views, row_copy, rows_of
from datamove.directml._tensor import packed_strides

__all__ = ["Region", "move_nibbles"]

_BLOCK_BYTES = 1 << 20  # 4-bit: source bytes per block (patched by tests to force many blocks)
_MAX_ODD_DIMS: Final = 3  # 4-bit: past this many odd-stride dimensions, unpack instead
_UNPACK_BELOW = 1 << 14  # 4-bit: elements; smaller copies unpack (fewer NumPy calls; tests patch)


class Region(NamedTuple):
    """A tensor's elements in its buffer; ``offset`` and ``strides`` count elements (nibbles)."""

    data: Bytes
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    def restrict(self, key: tuple[int | slice, ...]) -> Region:
        """The elements at ``key`` (indices or slices over the leading dimensions)."""
        offset, shape = self.offset, list(self.shape)
        for dim, index in enumerate(key):
            if isinstance(index, slice):
                offset += index.start * self.strides[dim]
                shape[dim] = index.stop - index.start
            else:
                offset += index * self.strides[dim]
                shape[dim] = 1
        return self._replace(offset=offset, shape=tuple(shape))

    def span(self) -> tuple[int, int]:
        """The nibbles ``[first, end)`` the region touches (``[offset, offset)`` when none)."""
        return span(self.offset, self.shape, self.strides, 1) or (self.offset, self.offset)

    def byte_span(self) -> tuple[int, int]:
        """The bytes ``[lo, hi)`` that hold the region's nibbles."""
        first, end = self.span()
        return first // 2, (end + 1) // 2


def move_nibbles(pairs: list[tuple[Region, Region]], lead: int, *, parallel: bool) -> None:
    """Move 4-bit copies that are not whole bytes: in blocks of rows by nibble parity class."""
    elements = sum(math.prod(src.shape) for _, src in pairs)
    if elements < _UNPACK_BELOW:
        for dst, src in pairs:
            _copy_unpacked(dst, src)
        return
    total = elements // 2  # bytes
    threads = num_threads() if parallel and total >= PARALLEL_MIN_BYTES else 1
    kernels = compiled_loops()
    if kernels is not None:
        plan = _nibble_rows(pairs)
        if plan is not None:
            rows, parts = plan
            share_rows(
                lambda row0, row1: kernels.copy_nibble_rows(parts, row0, row1),
                rows,
                threads if kernels.ATOMIC_NIBBLES else 1,
            )
            return
    outer = pairs[0][0].shape[:lead]
    if math.prod(outer) > 1:  # blocks across the dimensions before the axis, all parts together
        blocks = [
            [(d.restrict(key), s.restrict(key)) for d, s in pairs]
            for key in _keys(outer, -(-total // _BLOCK_BYTES))
        ]
    else:  # each part is a slab of the whole: blocks along its own axis
        blocks = [
            [(d.restrict(key), s.restrict(key))]
            for d, s in pairs
            for key in _keys(d.shape[: lead + 1], -(-math.prod(d.shape) // (2 * _BLOCK_BYTES)))
        ]
    if threads > 1 and len(blocks) > 1 and _apart(blocks):
        share_rows(lambda first, end: _run_blocks(blocks[first:end]), len(blocks), threads)
    else:
        _run_blocks(blocks)


def _nibble_rows(
    pairs: list[tuple[Region, Region]],
) -> tuple[int, list[tuple[int, int, int, int, int, int, int]]] | None:
    """The 4-bit copies as one compiled row loop over nibbles, or None where it cannot be.

    Every pair must be one run of nibbles per row over the same rows, and no destination may
    share a nibble with another destination or a source (bytes may be shared: the loop writes
    a row's edge nibbles atomically).
    """
    rows = -1
    parts: list[tuple[int, int, int, int, int, int, int]] = []
    nibbles: list[tuple[int, int, int, int, int]] = []  # as the copy engine's parts, in nibbles
    for dst, src in pairs:
        form = rows_form(dst.shape, dst.strides, src.strides, 1)
        if form is None:
            return None
        n, run, dst_stride, src_stride = form
        if rows not in (-1, n) or (n > 1 and dst_stride < run) or src_stride < 0:
            return None
        rows = n
        dst_at = dst.data.__array_interface__["data"][0]
        src_at = src.data.__array_interface__["data"][0]
        parts.append((dst_at, dst.offset, dst_stride, src_at, src.offset, src_stride, run))
        nibbles.append(
            (2 * dst_at + dst.offset, dst_stride, 2 * src_at + src.offset, src_stride, run)
        )
    if not parts or not rows_apart(nibbles, rows):
        return None
    return rows, parts


def _keys(sizes: tuple[int, ...], parts: int) -> Iterator[tuple[int | slice, ...]]:
    """About ``parts`` keys over the leading ``sizes``, in order; slices start at even indices."""
    if parts <= 1 or not sizes:
        yield ()
        return
    n = sizes[0]
    if n >= parts or len(sizes) == 1:
        step = -(-n // parts)
        step += step % 2
        for start in range(0, n, step):
            yield (slice(start, min(start + step, n)),)
        return
    for index in range(n):
        for rest in _keys(sizes[1:], -(-parts // n)):
            yield (index, *rest)


def _apart(blocks: list[list[tuple[Region, Region]]]) -> bool:
    """Whether no two blocks write to one byte (then they may run on different threads).

    Each block's destinations in one buffer count as the one range of bytes that holds them all.
    """
    hulls: dict[int, list[tuple[int, int]]] = {}
    for block in blocks:
        mine: dict[int, tuple[int, int]] = {}
        for dst, _ in block:
            first, end = dst.byte_span()
            lo, hi = mine.get(id(dst.data), (first, end))
            mine[id(dst.data)] = (min(lo, first), max(hi, end))
        for buffer, hull in mine.items():
            hulls.setdefault(buffer, []).append(hull)
    return all(ranges_apart(ranges) for ranges in hulls.values())


class _Scratch:
    """Word buffers for the half-byte shifts, grown as needed and reused across blocks."""

    def __init__(self) -> None:
        self.gathered = self.shifted = np.empty(0, _WORD)

    def take(self, words: int) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        if self.gathered.size < words:
            self.gathered, self.shifted = np.empty(words, _WORD), np.empty(words, _WORD)
        return self.gathered, self.shifted


_WORD = np.dtype("<u8")  # little-endian, so nibble n of a word is bits 4n to 4n + 3
_SCRATCH = threading.local()  # one _Scratch per thread, kept: fresh memory costs page faults


def _run_blocks(blocks: list[list[tuple[Region, Region]]]) -> None:
    scratch = _SCRATCH.__dict__.setdefault("scratch", _Scratch())
    for block in blocks:
        for dst, src in block:
            _copy_nibbles(dst, src, scratch)
    if scratch.gathered.nbytes > 4 * _BLOCK_BYTES:  # a block that could not be cut: let it go
        _SCRATCH.scratch = _Scratch()


def _copy_nibbles(dst: Region, src: Region, scratch: _Scratch) -> None:
    """Copy a 4-bit region, class by class of nibble-offset parities."""
    rows = rows_of(dst.shape, dst.strides, src.strides, 1)
    odd = [
        dim
        for dim, (a, b) in enumerate(zip(rows.dst_strides, rows.src_strides, strict=True))
        if a % 2 or b % 2
    ]
    if len(odd) > _MAX_ODD_DIMS or math.prod(rows.shape) * rows.length < _UNPACK_BELOW:
        _copy_unpacked(dst, src)
        return
    nibbles: list[_Nibble] = []
    for parities in itertools.product((0, 1), repeat=len(odd)):
        shape, dst_strides, src_strides = (
            list(rows.shape),
            list(rows.dst_strides),
            list(rows.src_strides),
        )
        first_dst, first_src = dst.offset, src.offset
        for dim, parity in zip(odd, parities, strict=True):
            first_dst += parity * dst_strides[dim]
            first_src += parity * src_strides[dim]
            shape[dim] = (shape[dim] + 1 - parity) // 2
            dst_strides[dim] *= 2
            src_strides[dim] *= 2
        class_rows = Rows(
            tuple(shape),
            tuple(t // 2 for t in dst_strides),
            tuple(t // 2 for t in src_strides),
            rows.length,
        )
        nibbles += _copy_nibble_rows(dst.data, first_dst, src.data, first_src, class_rows, scratch)
    _write_nibbles(dst.data, src.data, nibbles)


class _Nibble(NamedTuple):
    """A nibble of every row of a class, still to write (offsets in bytes)."""

    dst_byte: int
    src_byte: int
    rows: Rows
    high: bool  # which nibble of the destination byte
    from_high: bool  # which nibble of the source byte


def _copy_nibble_rows(
    dst: Bytes, first_dst: int, src: Bytes, first_src: int, rows: Rows, scratch: _Scratch
) -> list[_Nibble]:
    """Copy the whole bytes of rows of ``rows.length`` nibbles; return the single nibbles left.

    ``first_dst`` and ``first_src`` are nibble offsets; the outer strides of ``rows`` are in
    bytes, so every row starts at the same parity.
    """
    nibbles, length = [], rows.length
    if first_dst % 2:  # the row starts in a high nibble: its first element alone
        nibbles.append(_Nibble(first_dst // 2, first_src // 2, rows, True, bool(first_src % 2)))
        first_dst, first_src, length = first_dst + 1, first_src + 1, length - 1
    run = length // 2
    if run:
        if first_src % 2 == 0:
            copy = row_copy(rows._replace(length=run), first_dst // 2, first_src // 2)
            np.copyto(*copy_views(copy, dst, src))
        else:
            _copy_shifted(
                dst, first_dst // 2, src, first_src // 2, rows._replace(length=run), scratch
            )
    if length % 2:  # one element left, in a low nibble
        last_src = first_src + 2 * run
        nibbles.append(
            _Nibble(first_dst // 2 + run, last_src // 2, rows, False, bool(last_src % 2))
        )
    return nibbles


def _write_nibbles(dst: Bytes, src: Bytes, nibbles: list[_Nibble]) -> None:
    """Write single nibbles, keeping the other nibble of each byte.

    A low and a high nibble that fill the same bytes (the end of one row and the start of the
    next, in a packed tensor with odd rows) are written together, without reading the bytes.
    """

    def values(n: _Nibble) -> np.ndarray[Any, Any]:
        col = np.ndarray(n.rows.shape, np.uint8, src, n.src_byte, n.rows.src_strides)
        if n.high:
            return col & 0xF0 if n.from_high else col << 4
        return col >> 4 if n.from_high else col & 0x0F

    highs: dict[tuple[object, ...], list[_Nibble]] = {}
    for n in nibbles:
        if n.high:
            highs.setdefault((n.dst_byte, n.rows.shape, n.rows.dst_strides), []).append(n)
    lows = [n for n in nibbles if not n.high]
    for low in lows:
        target = np.ndarray(low.rows.shape, np.uint8, dst, low.dst_byte, low.rows.dst_strides)
        same = highs.get((low.dst_byte, low.rows.shape, low.rows.dst_strides))
        if same:
            np.bitwise_or(values(low), values(same.pop()), out=target)
        else:
            np.bitwise_and(target, 0xF0, out=target)
            np.bitwise_or(target, values(low), out=target)
    for high in itertools.chain.from_iterable(highs.values()):
        target = np.ndarray(high.rows.shape, np.uint8, dst, high.dst_byte, high.rows.dst_strides)
        np.bitwise_and(target, 0x0F, out=target)
        np.bitwise_or(target, values(high), out=target)


def _copy_shifted(
    dst: Bytes, dst_byte: int, src: Bytes, src_byte: int, rows: Rows, scratch: _Scratch
) -> None:
    """Fill runs of ``rows.length`` bytes from source runs that start at a high nibble.

    Byte ``j`` of a run is ``src[j] >> 4 | src[j + 1] << 4``: the source rows (one byte longer)
    are gathered side by side, shifted as 64-bit words, and scattered.
    """
    width = rows.length + 1
    count = math.prod(rows.shape)
    words = -(-count * width // 8)
    gathered, shifted = scratch.take(words + 1)
    packed = tuple(width * s for s in packed_strides(rows.shape))
    wide, narrow = np.dtype((np.void, width)), np.dtype((np.void, rows.length))
    np.copyto(
        np.ndarray(rows.shape, wide, gathered, 0, packed),
        np.ndarray(rows.shape, wide, src, src_byte, rows.src_strides),
    )
    np.right_shift(gathered[:words], 4, out=shifted[:words])
    np.left_shift(gathered[1 : words + 1], 60, out=gathered[1 : words + 1])
    np.bitwise_or(shifted[:words], gathered[1 : words + 1], out=shifted[:words])
    np.copyto(
        np.ndarray(rows.shape, narrow, dst, dst_byte, rows.dst_strides),
        np.ndarray(rows.shape, narrow, shifted, 0, packed),
    )


def _copy_unpacked(dst: Region, src: Region) -> None:
    """The general 4-bit copy: both byte spans unpacked to a nibble per byte, copied, packed."""

    def unpacked(region: Region) -> tuple[slice, Bytes, np.ndarray[Any, Any]]:
        """The bytes that hold the region, unpacked, and its elements as a view of them."""
        first, _ = region.span()
        lo, hi = region.byte_span()
        nibbles = unpack_nibbles(region.data[lo:hi])
        view = np.ndarray(region.shape, np.uint8, nibbles, first - 2 * lo, region.strides)
        return slice(lo, hi), nibbles, view

    held, nibbles, target = unpacked(dst)
    np.copyto(target, unpacked(src)[2])
    pack_nibbles(nibbles, dst.data[held])
