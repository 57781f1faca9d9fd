"""Running split and join on byte buffers laid out exactly as the ``TensorDesc`` s say.

Each part is one copy between its tensor and its slice of the whole, planned once per desc
(see "Moves" below) and carried out with NumPy arrays over the buffers: no Python loop over
elements or rows. Element bits are moved, not values, so NaN payloads and ``-0.0`` survive.
4-bit types (two per byte, the first in the low nibble) move as bytes where every element keeps
its nibble, and otherwise by nibble parity class; a byte shared with padding or another part
keeps its other nibble. ``read_tensor`` and ``write_tensor`` unpack 4-bit buffers to one
nibble per byte, move the values with NumPy strided views, and pack them back.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from datamove._backends import AS_NUMPY, backend_for
from datamove._backends import _copy as _engine
from datamove._backends._copy import (
    PARALLEL_MIN_BYTES,
    _executor,
    copy_pairs,
    num_threads,
    rows_form,
    share_rows,
)
from datamove._errors import AxisError, BackendError, DTypeError, ValidationError
from datamove._layout import rows_apart
from datamove.directml._desc import JoinDesc, SplitDesc, check_count
from datamove.directml._enums import FeatureLevel, TensorDataType
from datamove.directml._errors import DirectMLValidationError, Violation
from datamove.directml._rules import ValidationOptions
from datamove.directml._tensor import TensorDesc

__all__ = ["join", "read_tensor", "run_join", "run_split", "split", "write_tensor"]

Bytes = npt.NDArray[np.uint8]

_UINT_OF_BYTES: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}

_NUMPY_OF: dict[TensorDataType, np.dtype[Any]] = {
    TensorDataType.FLOAT32: np.dtype(np.float32),
    TensorDataType.FLOAT16: np.dtype(np.float16),
    TensorDataType.FLOAT64: np.dtype(np.float64),
    TensorDataType.UINT8: np.dtype(np.uint8),
    TensorDataType.UINT16: np.dtype(np.uint16),
    TensorDataType.UINT32: np.dtype(np.uint32),
    TensorDataType.UINT64: np.dtype(np.uint64),
    TensorDataType.INT8: np.dtype(np.int8),
    TensorDataType.INT16: np.dtype(np.int16),
    TensorDataType.INT32: np.dtype(np.int32),
    TensorDataType.INT64: np.dtype(np.int64),
    # 4-bit values are handed out one per byte (the wider type that holds them).
    TensorDataType.UINT4: np.dtype(np.uint8),
    TensorDataType.INT4: np.dtype(np.int8),
}
_DML_OF = {v: k for k, v in _NUMPY_OF.items() if k.bits != 4}


# Buffers ---------------------------------------------------------------------------------


def _as_bytes(buffer: Any, name: str, *, writable: bool) -> Bytes:
    """A 1-D ``uint8`` view of a buffer-protocol object (bytes, bytearray, memoryview, ndarray)."""
    if isinstance(buffer, np.ndarray):
        if buffer.dtype.hasobject:
            raise DTypeError(
                "DirectML", name, buffer, f"must hold bytes, not Python objects ({buffer.dtype})"
            )
        if not buffer.flags.c_contiguous:
            raise ValidationError(
                "DirectML", name, buffer, "must be a contiguous buffer",
                hint="use np.ascontiguousarray, or pass the buffer the view was taken from",
            )  # fmt: skip
        array = buffer.reshape(-1).view(np.uint8)
    else:
        try:
            view = memoryview(buffer)
        except TypeError:
            raise DTypeError("DirectML", name, buffer, "must support the buffer protocol") from None
        if not view.c_contiguous:
            raise ValidationError("DirectML", name, buffer, "must be a contiguous buffer")
        array = np.frombuffer(view.cast("B"), dtype=np.uint8)
    if writable and not array.flags.writeable:
        raise ValidationError("DirectML", name, buffer, "must be writable (not bytes)")
    return array


def _check_binding(tensor: TensorDesc, data: Bytes, path: str, found: list[Violation]) -> None:
    if data.size < tensor.total_tensor_size_in_bytes:
        found.append(
            Violation("T10", path, data.size,
                      "bytes are fewer than total_tensor_size_in_bytes="
                      f"{tensor.total_tensor_size_in_bytes}")
        )  # fmt: skip


def _new_buffer(tensor: TensorDesc) -> Bytes:
    return np.zeros(tensor.total_tensor_size_in_bytes, dtype=np.uint8)


# Views -----------------------------------------------------------------------------------


def _view(tensor: TensorDesc, data: Bytes, item: int) -> np.ndarray[Any, Any]:
    """The tensor's elements as a strided view over ``data`` (one element = ``item`` bytes)."""
    strides = tensor.effective_strides
    assert strides is not None  # validated
    return np.ndarray(
        tensor.sizes,
        dtype=_UINT_OF_BYTES[item],
        buffer=data,
        strides=tuple(s * item for s in strides),
    )


def _unpack_nibbles(data: Bytes) -> Bytes:
    """One nibble per byte, low nibble first: element ``i`` of a 4-bit buffer is ``out[i]``."""
    out = np.empty(data.size * 2, dtype=np.uint8)
    np.bitwise_and(data, 0x0F, out=out[0::2])
    np.right_shift(data, 4, out=out[1::2])
    return out


def _pack_nibbles(nibbles: Bytes, out: Bytes) -> None:
    np.left_shift(nibbles[1::2], 4, out=out)
    np.bitwise_or(out, nibbles[0::2] & 0x0F, out=out)


class _Space:
    """Where a tensor's elements live: the byte buffer itself, or its nibbles for 4-bit types."""

    def __init__(self, tensor: TensorDesc, data: Bytes) -> None:
        self.data = data
        self.four_bit = tensor.data_type.bits == 4
        if self.four_bit:
            self.elements = _unpack_nibbles(data[: tensor.total_tensor_size_in_bytes])
            self.view = _view(tensor, self.elements, 1)
        else:
            self.elements = data
            self.view = _view(tensor, data, tensor.data_type.bits // 8)

    def flush(self) -> None:
        """Write nibbles back to the byte buffer (no-op for byte-sized types)."""
        if self.four_bit:
            _pack_nibbles(self.elements, self.data[: self.elements.size // 2])


# Moves -----------------------------------------------------------------------------------
#
# Split and join are one copy per part, between the part's tensor and its slice of the whole.
# Each (destination, source) pair is reduced to *rows*: the outer dimensions (size-1 dimensions
# dropped, neighbours merged where both sides allow) over a run of units that is contiguous on
# both sides. Byte-sized types then move a row as one ``void`` element, and the pairs go to the
# package's copy engine (both cores, cache-sized steps interleaved across the parts).
#
# 4-bit types move the same way, in bytes, when every offset, stride and run is even. Otherwise
# the rows are sorted into classes by the parity of their nibble offsets, which makes every
# stride whole bytes. A row of a class is then a first nibble (when it starts in a high nibble),
# a run of whole bytes, and a last nibble (when one is left). The run is copied as bytes when the
# source is aligned the same way; otherwise it is gathered into scratch memory, shifted by 4 bits
# as 64-bit words and scattered. All of it goes in blocks of about _BLOCK_BYTES, every part of a
# block together, so each block's source bytes are read from memory once. Small copies, and
# layouts with many odd-stride dimensions, are unpacked to a nibble per byte instead.

_VOID_ROW_MAX: Final = 1024  # bytes; a longer row moves as an array of wide unsigned integers
_BLOCK_BYTES = 1 << 20  # 4-bit: source bytes per block (patched by tests to force many blocks)
_MAX_ODD_DIMS: Final = 3  # 4-bit: past this many odd-stride dimensions, unpack instead
_UNPACK_BELOW = 1 << 14  # 4-bit: elements; smaller copies unpack (fewer NumPy calls; tests patch)


class _Region(NamedTuple):
    """A tensor's elements in its buffer; ``offset`` and ``strides`` count elements (nibbles)."""

    data: Bytes
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]

    def restrict(self, key: tuple[int | slice, ...]) -> _Region:
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
        """The first element index the region touches, and one past the last."""
        last = self.offset + sum((n - 1) * t for n, t in zip(self.shape, self.strides, strict=True))
        return self.offset, last + 1


class _Rows(NamedTuple):
    """A pair as outer dimensions over runs of ``length`` units, contiguous on both sides."""

    shape: tuple[int, ...]
    dst_strides: tuple[int, ...]
    src_strides: tuple[int, ...]
    length: int


def _rows(
    shape: tuple[int, ...], dst_strides: tuple[int, ...], src_strides: tuple[int, ...], item: int
) -> _Rows:
    """A copy of ``shape`` between these strides as rows, in units of ``1 / item`` element."""
    dims = [
        (n, a * item, b * item)
        for n, a, b in zip(shape, dst_strides, src_strides, strict=True)
        if n != 1
    ]
    merged: list[tuple[int, int, int]] = []
    for n, a, b in [*dims, (item, 1, 1)]:
        if merged and merged[-1][1] == a * n and merged[-1][2] == b * n:
            merged[-1] = (merged[-1][0] * n, a, b)
        else:
            merged.append((n, a, b))
    *outer, (length, _, _) = merged
    return _Rows(
        tuple(n for n, _, _ in outer),
        tuple(a for _, a, _ in outer),
        tuple(b for _, _, b in outer),
        length,
    )


class _Copy(NamedTuple):
    """A byte copy: one array on each side, of one shape and dtype (offsets, strides in bytes)."""

    part: int
    dtype: np.dtype[Any]
    shape: tuple[int, ...]
    dst_offset: int
    dst_strides: tuple[int, ...]
    src_offset: int
    src_strides: tuple[int, ...]


def _row_copy(rows: _Rows, dst_offset: int, src_offset: int, part: int = -1) -> _Copy:
    """Byte rows as a copy: a row is one ``void`` element, so NumPy moves it in one step.

    A long row is a run of the widest unsigned integers that divide every offset and stride.
    """
    if rows.length <= _VOID_ROW_MAX:
        dtype = np.dtype((np.void, rows.length))
        return _Copy(
            part, dtype, rows.shape, dst_offset, rows.dst_strides, src_offset, rows.src_strides
        )
    unit = 8
    while any(
        x % unit
        for x in (rows.length, dst_offset, src_offset, *rows.dst_strides, *rows.src_strides)
    ):
        unit //= 2
    return _Copy(
        part,
        _UINT_OF_BYTES[unit],
        (*rows.shape, rows.length // unit),
        dst_offset,
        (*rows.dst_strides, unit),
        src_offset,
        (*rows.src_strides, unit),
    )


def _arrays(
    copy: _Copy, dst: Bytes, src: Bytes
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    return (
        np.ndarray(copy.shape, copy.dtype, dst, copy.dst_offset, copy.dst_strides),
        np.ndarray(copy.shape, copy.dtype, src, copy.src_offset, copy.src_strides),
    )


def _copy(
    arrays: Sequence[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]], parallel: bool
) -> None:
    if parallel:
        copy_pairs(arrays)  # inline below its thresholds; the row loop and threads above
    else:
        for dst, src in arrays:
            np.copyto(dst, src, casting="no")


class _Pair(NamedTuple):
    """A 4-bit copy that is not whole bytes: offsets and strides in nibbles."""

    part: int
    shape: tuple[int, ...]
    dst_offset: int
    dst_strides: tuple[int, ...]
    src_offset: int
    src_strides: tuple[int, ...]


class _Plan(NamedTuple):
    """How a split or a join moves its bytes, worked out once per desc."""

    split: bool
    copies: tuple[_Copy, ...]  # whole bytes
    nibbles: tuple[_Pair, ...]  # 4-bit copies that start or step mid-byte
    lead: int  # the axis: the dimensions before it are shared by every part
    parallel: bool  # no output element may share an address with another: threads may write


def _plan(desc: SplitDesc | JoinDesc) -> _Plan:
    """The plan of a validated desc, kept on the desc."""
    plan: _Plan | None = desc.__dict__.get("_plan")
    if plan is not None:
        return plan
    split = isinstance(desc, SplitDesc)
    if isinstance(desc, SplitDesc):
        whole, parts = desc.input, desc.outputs
    else:
        whole, parts = desc.output, desc.inputs
    strides = whole.effective_strides
    assert strides is not None  # validated
    bits = whole.data_type.bits
    item = 1 if bits == 4 else bits // 8  # units: nibbles for 4-bit types, else bytes
    copies, nibbles, start = [], [], 0
    for i, part in enumerate(parts):
        own_strides = part.effective_strides
        assert own_strides is not None
        inside = start * strides[desc.axis]
        start += part.sizes[desc.axis]
        dst_offset, dst_strides, src_offset, src_strides = (
            (0, own_strides, inside, strides) if split else (inside, strides, 0, own_strides)
        )
        rows = _rows(part.sizes, dst_strides, src_strides, item)
        if bits != 4:
            copies.append(_row_copy(rows, dst_offset * item, src_offset * item, i))
        elif any(
            x % 2
            for x in (dst_offset, src_offset, rows.length, *rows.dst_strides, *rows.src_strides)
        ):
            nibbles.append(_Pair(i, part.sizes, dst_offset, dst_strides, src_offset, src_strides))
        else:  # every 4-bit element of the copy sits in a byte of the same parity: whole bytes
            halves = _Rows(
                rows.shape,
                tuple(t // 2 for t in rows.dst_strides),
                tuple(t // 2 for t in rows.src_strides),
                rows.length // 2,
            )
            copies.append(_row_copy(halves, dst_offset // 2, src_offset // 2, i))
    # An output whose elements may share addresses is written by one thread (DirectML leaves
    # its values undefined, but the nibbles beside them must survive).
    parallel = all(t.provably_disjoint for t in (parts if split else [whole]))
    plan = _Plan(split, tuple(copies), tuple(nibbles), desc.axis, parallel)
    desc.__dict__["_plan"] = plan
    return plan


def _move(plan: _Plan, whole: Bytes, parts: Sequence[Bytes]) -> None:
    """Carry out a plan: copy each part to its slice of the whole (split) or from it (join)."""

    def sides(part: int) -> tuple[Bytes, Bytes]:
        return (parts[part], whole) if plan.split else (whole, parts[part])

    # never a byte shared between whole-byte copies and nibble copies: no element straddles
    _copy([_arrays(c, *sides(c.part)) for c in plan.copies], plan.parallel)
    if plan.nibbles:
        pairs = []
        for p in plan.nibbles:
            dst, src = sides(p.part)
            pairs.append(
                (
                    _Region(dst, p.dst_offset, p.shape, p.dst_strides),
                    _Region(src, p.src_offset, p.shape, p.src_strides),
                )
            )
        _move_nibbles(pairs, plan.lead, parallel=plan.parallel)


# 4-bit types -------------------------------------------------------------------------------


def _move_nibbles(pairs: list[tuple[_Region, _Region]], lead: int, *, parallel: bool) -> None:
    """Move 4-bit copies that are not whole bytes: in blocks of rows by nibble parity class."""
    elements = sum(math.prod(src.shape) for _, src in pairs)
    if elements < _UNPACK_BELOW:
        for dst, src in pairs:
            _copy_unpacked(dst, src)
        return
    total = elements // 2  # bytes
    kernels = _engine._kernels
    if kernels is not None:
        plan = _nibble_rows(pairs)
        if plan is not None:
            rows, parts = plan
            threads = num_threads() if parallel and total >= PARALLEL_MIN_BYTES else 1
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
    threads = num_threads() if parallel and total >= PARALLEL_MIN_BYTES else 1
    if threads > 1 and len(blocks) > 1 and _apart(blocks):
        count = len(blocks)
        shares = [blocks[t * count // threads : (t + 1) * count // threads] for t in range(threads)]
        futures = [_executor(threads - 1).submit(_run_blocks, share) for share in shares[1:]]
        try:
            _run_blocks(shares[0])
        finally:
            for future in futures:
                future.result()
    else:
        _run_blocks(blocks)


def _nibble_rows(
    pairs: list[tuple[_Region, _Region]],
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
        if 0 in dst.shape:
            continue
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


def _apart(blocks: list[list[tuple[_Region, _Region]]]) -> bool:
    """Whether no two blocks write to one byte (then they may run on different threads)."""
    hulls: dict[int, list[tuple[int, int]]] = {}
    for block in blocks:
        mine: dict[int, tuple[int, int]] = {}
        for dst, _ in block:
            first, end = dst.span()
            lo, hi = mine.get(id(dst.data), (first // 2, (end + 1) // 2))
            mine[id(dst.data)] = (min(lo, first // 2), max(hi, (end + 1) // 2))
        for buffer, hull in mine.items():
            hulls.setdefault(buffer, []).append(hull)
    return all(
        b[0] >= a[1] for spans in hulls.values() for a, b in itertools.pairwise(sorted(spans))
    )


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


def _run_blocks(blocks: list[list[tuple[_Region, _Region]]]) -> None:
    scratch = _SCRATCH.__dict__.setdefault("scratch", _Scratch())
    for block in blocks:
        for dst, src in block:
            _copy_nibbles(dst, src, scratch)
    if scratch.gathered.nbytes > 4 * _BLOCK_BYTES:  # a block that could not be cut: let it go
        _SCRATCH.scratch = _Scratch()


def _copy_nibbles(dst: _Region, src: _Region, scratch: _Scratch) -> None:
    """Copy a 4-bit region, class by class of nibble-offset parities."""
    rows = _rows(dst.shape, dst.strides, src.strides, 1)
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
        if 0 in shape:
            continue
        class_rows = _Rows(
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
    rows: _Rows
    high: bool  # which nibble of the destination byte
    from_high: bool  # which nibble of the source byte


def _copy_nibble_rows(
    dst: Bytes, first_dst: int, src: Bytes, first_src: int, rows: _Rows, scratch: _Scratch
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
            copy = _row_copy(rows._replace(length=run), first_dst // 2, first_src // 2)
            np.copyto(*_arrays(copy, dst, src))
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
    dst: Bytes, dst_byte: int, src: Bytes, src_byte: int, rows: _Rows, scratch: _Scratch
) -> None:
    """Fill runs of ``rows.length`` bytes from source runs that start at a high nibble.

    Byte ``j`` of a run is ``src[j] >> 4 | src[j + 1] << 4``: the source rows (one byte longer)
    are gathered side by side, shifted as 64-bit words, and scattered.
    """
    width = rows.length + 1
    count = math.prod(rows.shape)
    words = -(-count * width // 8)
    gathered, shifted = scratch.take(words + 1)
    packed = _c_strides(rows.shape, width)
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


def _c_strides(shape: tuple[int, ...], item: int) -> tuple[int, ...]:
    strides = []
    for n in reversed(shape):
        strides.append(item)
        item *= n
    return tuple(reversed(strides))


def _copy_unpacked(dst: _Region, src: _Region) -> None:
    """The general 4-bit copy: both byte spans unpacked to a nibble per byte, copied, packed."""
    views = []
    for region in (dst, src):
        first, end = region.span()
        lo, hi = first // 2, (end + 1) // 2
        nibbles = _unpack_nibbles(region.data[lo:hi])
        views.append(
            (
                lo,
                hi,
                nibbles,
                np.ndarray(region.shape, np.uint8, nibbles, first - 2 * lo, region.strides),
            )
        )
    (lo, hi, nibbles, target), (*_, source) = views
    np.copyto(target, source)
    _pack_nibbles(nibbles, dst.data[lo:hi])


def _check_distinct(
    written: Sequence[tuple[str, Bytes]], read: Sequence[tuple[str, Bytes]], found: list[Violation]
) -> None:
    """S10: a written buffer overlapping another of the operator's buffers is undefined."""
    for i, (name, buffer) in enumerate(written):
        for other_name, other in [*written[:i], *read]:
            if np.shares_memory(buffer, other):
                found.append(
                    Violation("S10", name, f"<buffer of {buffer.size} bytes>",
                              f"overlaps {other_name}; DirectML's results are undefined then")
                )  # fmt: skip


# Operators -------------------------------------------------------------------------------


def run_split(
    desc: SplitDesc,
    input_buffer: Any,
    *,
    outputs: Sequence[Any] | None = None,
    feature_level: FeatureLevel | str | int | None = None,
    options: ValidationOptions | None = None,
) -> list[Bytes]:
    """Run ``DML_SPLIT`` on a byte buffer; return one byte buffer per output.

    Parameters
    ----------
    desc : SplitDesc
        The operator; validated first (all violations at once).
    input_buffer : buffer
        Bytes laid out as ``desc.input`` says, at least ``total_tensor_size_in_bytes`` long
        (T10). Stride-0 dimensions broadcast.
    outputs : sequence of writable buffers, optional
        Where to write. Bytes the output tensors do not cover (padding) are left as they
        were; DirectML itself may overwrite anything within ``total_tensor_size_in_bytes``.
        By default new zeroed buffers of ``total_tensor_size_in_bytes`` are made.
    feature_level : FeatureLevel or str or int, optional
        Also check the feature-level rules of this level. By default only the level-free
        rules are checked, so 4-bit and 64-bit types run anywhere.
    options : ValidationOptions, optional
        The validation switches.

    Returns
    -------
    list of numpy.ndarray
        One 1-D ``uint8`` array per output (the given ``outputs``, viewed as bytes).

    Raises
    ------
    DirectMLValidationError
        When the desc breaks a rule, a buffer is too small (T10) or outputs overlap (S10).

    Examples
    --------
    >>> import numpy as np
    >>> data = np.arange(1, 13, dtype=np.float32)
    >>> desc = SplitDesc(TensorDesc("FLOAT32", [1, 1, 6, 2]),
    ...                  [TensorDesc("FLOAT32", [1, 1, 6, 1])] * 2, axis=3)
    >>> [b.view(np.float32).tolist() for b in run_split(desc, data)]
    [[1.0, 3.0, 5.0, 7.0, 9.0, 11.0], [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]]
    """
    if not isinstance(desc, SplitDesc):
        raise DTypeError("DML_SPLIT", "desc", desc, "must be a SplitDesc")
    found = desc.violations(feature_level, options=options)
    source = _as_bytes(input_buffer, "input_buffer", writable=False)
    if outputs is None:
        targets = [_new_buffer(t) for t in desc.outputs]
    else:
        if isinstance(outputs, bytes | bytearray | memoryview | np.ndarray) or not isinstance(
            outputs, Sequence
        ):
            raise DTypeError(
                "DML_SPLIT", "outputs", outputs, "must be a sequence of buffers, one per output"
            )
        if len(outputs) != len(desc.outputs):
            raise ValidationError(
                "DML_SPLIT",
                "outputs",
                outputs,
                f"must hold {len(desc.outputs)} buffers, one per output",
            )
        targets = [_as_bytes(b, f"outputs[{i}]", writable=True) for i, b in enumerate(outputs)]
        _check_distinct(
            [(f"outputs[{i}]", t) for i, t in enumerate(targets)], [("input_buffer", source)], found
        )
    _check_binding(desc.input, source, "input_buffer", found)
    for i, (tensor, target) in enumerate(zip(desc.outputs, targets, strict=True)):
        _check_binding(tensor, target, f"outputs[{i}]", found)
    if found:
        raise DirectMLValidationError("DML_SPLIT", found)
    _move(_plan(desc), source, targets)
    return targets


def run_join(
    desc: JoinDesc,
    input_buffers: Sequence[Any],
    *,
    output: Any | None = None,
    feature_level: FeatureLevel | str | int | None = None,
    options: ValidationOptions | None = None,
) -> Bytes:
    """Run ``DML_JOIN`` on byte buffers; return the output byte buffer.

    Parameters
    ----------
    desc : JoinDesc
        The operator; validated first (all violations at once).
    input_buffers : sequence of buffers
        One per input, laid out as its ``TensorDesc`` says (T10: long enough).
    output : writable buffer, optional
        Where to write; padding bytes are left as they were. By default a new zeroed buffer.
    feature_level, options
        As for :func:`run_split`.

    Returns
    -------
    numpy.ndarray
        The output as a 1-D ``uint8`` array.

    Raises
    ------
    DirectMLValidationError
        When the desc breaks a rule, a buffer is too small (T10) or the output overlaps an
        input (S10's rule, applied to join).

    Examples
    --------
    >>> import numpy as np
    >>> parts = [TensorDesc("INT32", [2]), TensorDesc("INT32", [3])]
    >>> desc = JoinDesc(parts, TensorDesc("INT32", [5]), axis=0)
    >>> run_join(desc, [np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32)]).view(np.int32)
    array([1, 2, 3, 4, 5], dtype=int32)
    """
    if not isinstance(desc, JoinDesc):
        raise DTypeError("DML_JOIN", "desc", desc, "must be a JoinDesc")
    if isinstance(input_buffers, bytes | bytearray | memoryview | np.ndarray) or not isinstance(
        input_buffers, Sequence
    ):
        raise DTypeError(
            "DML_JOIN", "input_buffers", input_buffers, "must be a sequence of buffers"
        )
    if len(input_buffers) != len(desc.inputs):
        raise ValidationError(
            "DML_JOIN",
            "input_buffers",
            input_buffers,
            f"must hold {len(desc.inputs)} buffers, one per input",
        )
    found = desc.violations(feature_level, options=options)
    sources = [
        _as_bytes(b, f"input_buffers[{i}]", writable=False) for i, b in enumerate(input_buffers)
    ]
    if output is None:
        target = _new_buffer(desc.output)
    else:
        target = _as_bytes(output, "output", writable=True)
        _check_distinct(
            [("output", target)], [(f"input_buffers[{i}]", b) for i, b in enumerate(sources)], found
        )
    _check_binding(desc.output, target, "output", found)
    for i, (tensor, source) in enumerate(zip(desc.inputs, sources, strict=True)):
        _check_binding(tensor, source, f"input_buffers[{i}]", found)
    if found:
        raise DirectMLValidationError("DML_JOIN", found)
    _move(_plan(desc), target, sources)
    return target


# Logical values <-> buffers ---------------------------------------------------------------


def read_tensor(desc: TensorDesc, buffer: Any) -> np.ndarray[Any, Any]:
    """The logical values of a tensor stored in ``buffer``, as a new NumPy array of ``desc.sizes``.

    4-bit types come back one value per byte: ``uint8`` in [0, 15] for UINT4, ``int8`` in
    [-8, 7] for INT4.

    Examples
    --------
    >>> read_tensor(TensorDesc("UINT4", [5]), bytes([0x21, 0x43, 0x05, 0]))
    array([1, 2, 3, 4, 5], dtype=uint8)
    """
    _check_layout(desc)
    data = _as_bytes(buffer, "buffer", writable=False)
    found: list[Violation] = []
    _check_binding(desc, data, "buffer", found)
    if found:
        raise DirectMLValidationError("DirectML", found)
    values = _Space(desc, data).view.copy()
    if desc.data_type is TensorDataType.INT4:
        return ((values ^ 8).astype(np.int8) - 8).astype(np.int8)
    return values.view(_NUMPY_OF[desc.data_type])


def write_tensor(desc: TensorDesc, values: Any, out: Any | None = None) -> Bytes:
    """Store ``values`` (broadcast to ``desc.sizes``) in a buffer laid out as ``desc`` says.

    Parameters
    ----------
    desc : TensorDesc
        The layout. Its strides must not make two elements share an address (T12, as for
        outputs: exact up to 2**22 elements; past that, a layout that the sorted-strides
        test cannot prove free of overlap is refused).
    values : array_like
        Cast to the tensor's type by NumPy's ``same_kind`` rule, with no value changed beyond
        a float's rounding: integers must be in the type's range (4-bit ones too), and finite
        values must not overflow a float type to infinity.
    out : writable buffer, optional
        Where to write; bytes the tensor does not cover are left as they were. By default a
        new zeroed buffer of ``total_tensor_size_in_bytes``.

    Returns
    -------
    numpy.ndarray
        The buffer, as 1-D ``uint8``.

    Raises
    ------
    DirectMLValidationError
        When the layout breaks T2, T4 to T7 or T12, or ``out`` is too small (T10).
    datamove.ValidationError
        When ``values`` do not broadcast to the sizes or cannot be stored unchanged
        (a ``DTypeError``).

    Examples
    --------
    >>> write_tensor(TensorDesc("UINT4", [5]), [1, 2, 3, 4, 5]).tolist()
    [33, 67, 5, 0]
    >>> write_tensor(TensorDesc("UINT8", [2, 2], strides=[4, 1]), [[1, 2], [3, 4]]).tolist()
    [1, 2, 0, 0, 3, 4, 0, 0]
    """
    _check_layout(desc)
    if desc.self_overlapping:  # one address, several values: only the last would be kept
        raise DirectMLValidationError(
            "DirectML",
            [Violation("T12", "desc.strides", desc.strides,
                       f"make two elements of sizes {list(desc.sizes)} share an address, so "
                       "write_tensor cannot store a value for each")],
        )  # fmt: skip
    dtype = _NUMPY_OF[desc.data_type]
    array = _as_array(values, "values")
    try:
        np.broadcast_shapes(array.shape, desc.sizes)
    except ValueError:
        raise ValidationError(
            "DirectML",
            "values",
            values,
            f"has shape {list(array.shape)}, which does not broadcast to the tensor's sizes"
            f" {list(desc.sizes)}",
        ) from None
    if desc.data_type.bits == 4:
        low, high = (-8, 7) if desc.data_type is TensorDataType.INT4 else (0, 15)
        if array.size and (
            array.dtype.kind not in "iub" or array.min() < low or array.max() > high
        ):
            raise ValidationError(
                "DirectML",
                "values",
                values,
                f"must be integers in [{low}, {high}] for {desc.data_type.name}",
            )
    target = _new_buffer(desc) if out is None else _as_bytes(out, "out", writable=True)
    found: list[Violation] = []
    _check_binding(desc, target, "out", found)
    if found:
        raise DirectMLValidationError("DirectML", found)
    if desc.data_type.bits == 4:
        typed = np.broadcast_to(array, desc.sizes).astype(np.uint8) & 0x0F
    else:
        typed = _cast(np.broadcast_to(array, desc.sizes), dtype, values)
    space = _Space(desc, target)
    np.copyto(space.view, typed.view(space.view.dtype))
    space.flush()
    return target


def _as_array(value: Any, name: str) -> np.ndarray[Any, Any]:
    """``np.asarray(value)``, or a ``DTypeError`` naming ``name`` where NumPy cannot make one."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nesting, objects that refuse
        raise DTypeError("DirectML", name, value, f"cannot be read as an array: {exc}") from None


def _cast(array: np.ndarray[Any, Any], dtype: np.dtype[Any], values: Any) -> np.ndarray[Any, Any]:
    """``array`` as ``dtype`` where no value changes beyond a float's rounding.

    Integers (and bools) must fit an integer type; anything NumPy casts ``same_kind`` goes to a
    float type, except finite values that would become infinite. Everything else is a
    ``DTypeError`` naming the caller's ``values``.
    """
    if array.dtype.kind in "iub" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if array.size and array.dtype.kind != "b":
            low, high = int(array.min()), int(array.max())
            if low < info.min or high > info.max:
                bad = low if low < info.min else high
                raise DTypeError(
                    "DirectML", "values", values,
                    f"holds {bad}, outside {dtype}'s range [{info.min}, {info.max}]",
                )  # fmt: skip
        return array.astype(dtype, copy=False)
    if dtype.kind == "f" and np.can_cast(array.dtype, dtype, casting="same_kind"):
        try:
            with np.errstate(over="raise", invalid="ignore"):
                return array.astype(dtype, copy=False)
        except FloatingPointError:
            big = float(np.finfo(dtype).max)
            with np.errstate(all="ignore"):
                lost = np.isinf(array.astype(dtype)) & ~np.isinf(array)
            bad = array.ravel()[np.flatnonzero(lost)[0]]
            raise DTypeError(
                "DirectML", "values", values,
                f"holds {bad.item()!r}, beyond {dtype}'s largest finite value {big!r}; it would"
                " become infinite",
            ) from None  # fmt: skip
    raise DTypeError(
        "DirectML", "values", values,
        f"has element type {array.dtype}, which cannot be stored as {dtype} without changing"
        " values",
    )  # fmt: skip


def _check_layout(desc: TensorDesc) -> None:
    if not isinstance(desc, TensorDesc):
        raise DTypeError("DirectML", "desc", desc, "must be a TensorDesc")
    found = [v for v in desc.intrinsic_violations if v.rule in {"T2", "T4", "T5", "T6", "T7"}]
    if found:
        raise DirectMLValidationError("DirectML", found)


# NumPy convenience -------------------------------------------------------------------------


def _dml_type(
    array: _Like | np.ndarray[Any, Any], data_type: TensorDataType | str | int | None
) -> TensorDataType:
    if data_type is not None:
        return TensorDataType.parse(data_type)
    if array.dtype == np.bool_:
        return TensorDataType.UINT8
    name = array.dtype.name
    if name in {"int4", "uint4"}:  # ml_dtypes
        return TensorDataType.parse(name)
    found = _DML_OF.get(array.dtype)
    if found is None:
        raise DTypeError(
            "DirectML", "array", array.dtype, "has no DirectML data type",
            hint="DirectML has FLOAT16/32/64, (U)INT8/16/32/64 and (U)INT4; bool travels as UINT8",
        )  # fmt: skip
    return found


def _normalise_axis(axis: Any, rank: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise DTypeError("DirectML", "axis", axis, "must be an integer")
    if not -rank <= axis < rank:
        raise AxisError(
            "DirectML", "axis", axis, f"must be in [{-rank}, {rank - 1}] for rank {rank}"
        )
    return int(axis) % rank


def _to_numpy_values(
    array: np.ndarray[Any, Any], data_type: TensorDataType
) -> np.ndarray[Any, Any]:
    """What ``write_tensor`` takes: 4-bit ml_dtypes arrays become their integer values."""
    if array.dtype.name in {"int4", "uint4"}:
        nibbles = array.view(np.uint8) & 0x0F
        if data_type is TensorDataType.INT4:
            return ((nibbles ^ 8).astype(np.int8) - 8).astype(np.int8)
        return nibbles
    if array.dtype == np.bool_:
        return array.view(np.uint8)
    return array


def _from_numpy_values(values: np.ndarray[Any, Any], like: np.dtype[Any]) -> np.ndarray[Any, Any]:
    if like.name in {"int4", "uint4"}:
        return (values.view(np.uint8) & 0x0F).view(like)
    if like == np.bool_:
        return values.view(np.bool_)
    return values


class _Like(NamedTuple):
    """What the descs need of an array of another library."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]


def _foreign(value: Any) -> bool:
    """Whether ``value`` is an array of another library (PyTorch, JAX, Dask, CuPy, ...)."""
    if value is None or isinstance(value, (np.ndarray, *AS_NUMPY)):
        return False
    import array_api_compat  # noqa: PLC0415 - only for values NumPy does not know

    return bool(array_api_compat.is_array_api_obj(value))


def _foreign_like(array: Any, name: str) -> _Like:
    from datamove._backends import _foreign  # noqa: PLC0415 - foreign arrays only

    shape = backend_for("DirectML", array).shape("DirectML", array)
    if isinstance(shape, _foreign.PartlyKnownShape):  # Dask: NaN where it does not know a size
        axis = next(k for k, size in enumerate(shape.sizes) if not isinstance(size, int))
        raise BackendError(
            "DirectML", name, f"<dask array of shape {shape.sizes}>",
            f"has an unknown size (NaN) along axis {axis}; a DirectML desc needs every size",
            hint=f"call {name}.compute_chunk_sizes() first (it computes) "
            f"({_foreign.DASK_UNKNOWN_CHUNKS})",
        )  # fmt: skip
    dtype = array.dtype
    if not isinstance(dtype, np.dtype):  # torch.float32, array_api_strict.int8, ...
        try:
            dtype = np.dtype(str(dtype).rsplit(".", 1)[-1])
        except TypeError:
            raise DTypeError(
                "DirectML", name, str(array.dtype), "has no DirectML data type"
            ) from None
    return _Like(shape, dtype)


def _own_type_only(source: _Like | np.ndarray[Any, Any], data_type: Any, name: str) -> None:
    """``data_type`` on another library's array: only its own type (no conversion there)."""
    own = _dml_type(source, None)
    if data_type is not None and TensorDataType.parse(data_type) is not own:
        raise ValidationError(
            "DirectML",
            "data_type",
            data_type,
            f"differs from {name}'s own type {own.name}; only NumPy arrays are converted",
            hint="convert the array first, or leave data_type out",
        )


def _packed_descs(dtype: TensorDataType, shapes: list[tuple[Any, ...]]) -> list[TensorDesc]:
    """A packed desc per shape, one object per distinct shape.

    Equal parts then share their desc, and with it its checks and copy plan: a split into a
    million parts of one length validates one tensor, not a million.
    """
    made: dict[object, TensorDesc] = {}
    descs = []
    for shape in shapes:
        try:  # the key tells 2 from 2.0 and np.int8(2): each gets its own desc, or its error
            key: object = tuple((type(n), n) for n in shape)
            desc = made.get(key)
        except TypeError:  # an unhashable size: TensorDesc says what is wrong with it
            key, desc = None, None
        if desc is None:
            desc = TensorDesc(dtype, shape)
            if key is not None:
                made[key] = desc
        descs.append(desc)
    return descs


def split(
    array: Any, axis: int, sizes: Sequence[int], *, data_type: TensorDataType | str | None = None
) -> list[Any]:
    """Split an array with ``DML_SPLIT``, building the packed descs for you.

    Parameters
    ----------
    array : array_like
        The input: a NumPy array (or anything ``np.asarray`` takes), or an array of another
        library with the Python array API (PyTorch, JAX, Dask, CuPy, ...). Its dtype picks the
        DirectML type (bool travels as UINT8; ml_dtypes' ``int4``/``uint4`` as INT4/UINT4).
    axis : int
        May be negative here (NumPy's convention); it is normalised before the desc is built.
    sizes : sequence of int
        Each output's length along ``axis``, each at least 1, summing to the input's.
    data_type : TensorDataType or str, optional
        Force a DirectML type (``"UINT4"`` on an array of small integers, say); the outputs then
        have that type's NumPy dtype (``uint8`` for UINT4). NumPy arrays only: on another
        library's array it may only name the array's own type.

    Returns
    -------
    list of arrays
        The outputs: NumPy arrays with the input's dtype (or ``data_type``'s), or fresh arrays
        of the input's library on its device (a Dask input stays lazy). Both are checked
        against the same descs, so both raise the same errors.

    Examples
    --------
    >>> import numpy as np
    >>> [p.tolist() for p in split(np.arange(1, 13).reshape(1, 1, 6, 2), 2, [2, 1, 3])]
    [[[[[1, 2], [3, 4]]]], [[[[5, 6]]]], [[[[7, 8], [9, 10], [11, 12]]]]]
    """
    foreign = _foreign(array)
    source = _foreign_like(array, "array") if foreign else _as_array(array, "array")
    dtype = _dml_type(source, data_type)
    axis = _normalise_axis(axis, len(source.shape))
    if (
        isinstance(sizes, int | str)
        or not isinstance(sizes, Sequence | np.ndarray)
        or getattr(sizes, "ndim", 1) != 1  # a 0-d array is no sequence
    ):
        raise DTypeError("DirectML", "sizes", sizes, "must be a sequence of lengths")
    check_count("DirectML", "sizes", len(sizes), "lengths")
    whole = TensorDesc(dtype, source.shape)
    before, after = source.shape[:axis], source.shape[axis + 1 :]
    parts = _packed_descs(dtype, [(*before, n, *after) for n in sizes])
    desc = SplitDesc(whole, parts, axis)
    desc.validate(None)
    if foreign:  # the same parts, cut by the array's own library
        from datamove._split import variadic_split  # noqa: PLC0415 - avoid an import cycle

        _own_type_only(source, data_type, "array")
        lengths = [t.sizes[axis] for t in parts]
        return list(variadic_split(array, axis, lengths, copy=True))
    assert isinstance(source, np.ndarray)  # for the type checker: not foreign
    buffers = run_split(desc, write_tensor(whole, _to_numpy_values(source, dtype)))
    return [
        _from_numpy_values(read_tensor(t, b), source.dtype)
        for t, b in zip(parts, buffers, strict=True)
    ]


def _one_library(arrays: Sequence[Any], foreign: list[bool]) -> Any:
    """The namespace of ``arrays``, all of one library (not NumPy) and on one device."""
    import array_api_compat  # noqa: PLC0415 - foreign arrays only

    for i, (a, f) in enumerate(zip(arrays, foreign, strict=True)):
        if not f:
            raise DTypeError(
                "DirectML",
                f"arrays[{i}]",
                _show_type(a),
                "must come from the library of the others",
            )
    try:
        xp = array_api_compat.array_namespace(*arrays)
    except TypeError:
        raise DTypeError(
            "DirectML", "arrays", [_show_type(a) for a in arrays], "mix array libraries"
        ) from None
    devices = [array_api_compat.device(a) for a in arrays]
    for i, d in enumerate(devices):
        if d != devices[0]:
            raise ValidationError(
                "DirectML",
                f"arrays[{i}]",
                f"<array on {d}>",
                f"is on {d}, arrays[0] on {devices[0]}",
            )
    return xp


def _show_type(value: Any) -> str:
    return f"<{type(value).__module__}.{type(value).__name__}>"


def join(arrays: Sequence[Any], axis: int, *, data_type: TensorDataType | str | None = None) -> Any:
    """Join arrays with ``DML_JOIN``, building the packed descs for you.

    Parameters
    ----------
    arrays : sequence of array_like
        The inputs, all of one dtype and rank: NumPy arrays (or anything ``np.asarray`` takes),
        or arrays of one other library with the Python array API, on one device.
    axis : int
        May be negative (normalised before the desc is built).
    data_type : TensorDataType or str, optional
        Force a DirectML type (NumPy arrays only; see :func:`split`).

    Returns
    -------
    array
        The output: a NumPy array with the inputs' dtype (or ``data_type``'s), or an array of
        the inputs' library on their device (``concat``; Dask stays lazy).

    Examples
    --------
    >>> import numpy as np
    >>> join([np.array([[1.0], [3.0]]), np.array([[2.0], [4.0]])], -1).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if not isinstance(arrays, list | tuple) or not arrays:
        raise DTypeError("DirectML", "arrays", arrays, "must be a non-empty sequence of arrays")
    check_count("DirectML", "arrays", len(arrays), "arrays")
    foreign = [_foreign(a) for a in arrays]
    if any(foreign):
        sources: list[Any] = [_foreign_like(a, f"arrays[{i}]") for i, a in enumerate(arrays)]
        xp = _one_library(arrays, foreign)
    else:
        sources = [_as_array(a, f"arrays[{i}]") for i, a in enumerate(arrays)]
    dtype = _dml_type(sources[0], data_type)
    for i, source in enumerate(sources):
        if source.dtype != sources[0].dtype:
            raise DTypeError(
                "DirectML",
                f"arrays[{i}]",
                source.dtype,
                f"must match arrays[0]'s {sources[0].dtype}",
            )
    first = sources[0].shape
    axis = _normalise_axis(axis, len(first))
    parts = _packed_descs(dtype, [s.shape for s in sources])
    total = sum(s.shape[axis] if len(s.shape) == len(first) else 0 for s in sources)
    whole = TensorDesc(dtype, (*first[:axis], total, *first[axis + 1 :]))
    desc = JoinDesc(parts, whole, axis)
    desc.validate(None)
    if any(foreign):  # the same whole, put together by the arrays' own library
        _own_type_only(sources[0], data_type, "arrays[0]")
        return xp.concat(list(arrays), axis=axis)
    buffer = run_join(
        desc,
        [write_tensor(t, _to_numpy_values(s, dtype)) for t, s in zip(parts, sources, strict=True)],
    )
    return _from_numpy_values(read_tensor(whole, buffer), sources[0].dtype)
