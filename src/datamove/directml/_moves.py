"""Move planning: how each part of a split or join moves between its tensor and the whole.

Split and join are one copy per part, between the part's tensor and its slice of the whole,
planned once per desc (:func:`plan_moves`, kept on the desc). Each (destination, source) pair
is reduced to *rows*: the outer dimensions (size-1 dimensions dropped, neighbours merged where
both sides allow) over a run of units that is contiguous on both sides (:func:`rows_of`).
Byte-sized types then move a row as one ``void`` element (:func:`row_copy`), and the pairs go
to the package's copy engine (both cores, cache-sized steps interleaved across the parts).
4-bit types move the same way, in bytes, when every offset, stride and run is even; the
other 4-bit copies are left to :mod:`._nibbles` as :class:`NibbleCopy` records.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

import numpy as np

from datamove.directml._buffers import UINT_OF_BYTES, Bytes
from datamove.directml._desc import JoinDesc, SplitDesc

__all__ = [
    "Copy",
    "MovePlan",
    "NibbleCopy",
    "Rows",
    "copy_views",
    "plan_moves",
    "row_copy",
    "rows_of",
]

_VOID_ROW_MAX: Final = 1024  # bytes; a longer row moves as an array of wide unsigned integers


class Rows(NamedTuple):
    """A pair as outer dimensions over runs of ``length`` units, contiguous on both sides."""

    shape: tuple[int, ...]
    dst_strides: tuple[int, ...]
    src_strides: tuple[int, ...]
    length: int


def rows_of(
    shape: tuple[int, ...], dst_strides: tuple[int, ...], src_strides: tuple[int, ...], item: int
) -> Rows:
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
    return Rows(
        tuple(n for n, _, _ in outer),
        tuple(a for _, a, _ in outer),
        tuple(b for _, _, b in outer),
        length,
    )


class Copy(NamedTuple):
    """A byte copy: one array on each side, of one shape and dtype (offsets, strides in bytes)."""

    part: int
    dtype: np.dtype[Any]
    shape: tuple[int, ...]
    dst_offset: int
    dst_strides: tuple[int, ...]
    src_offset: int
    src_strides: tuple[int, ...]


def row_copy(rows: Rows, dst_offset: int, src_offset: int, part: int = -1) -> Copy:
    """Byte rows as a copy: a row is one ``void`` element, so NumPy moves it in one step.

    A long row is a run of the widest unsigned integers that divide every offset and stride.
    """
    if rows.length <= _VOID_ROW_MAX:
        dtype = np.dtype((np.void, rows.length))
        return Copy(
            part, dtype, rows.shape, dst_offset, rows.dst_strides, src_offset, rows.src_strides
        )
    unit = 8
    while any(
        x % unit
        for x in (rows.length, dst_offset, src_offset, *rows.dst_strides, *rows.src_strides)
    ):
        unit //= 2
    return Copy(
        part,
        UINT_OF_BYTES[unit],
        (*rows.shape, rows.length // unit),
        dst_offset,
        (*rows.dst_strides, unit),
        src_offset,
        (*rows.src_strides, unit),
    )


def copy_views(
    copy: Copy, dst: Bytes, src: Bytes
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``(destination, source)``: the copy's arrays over the two buffers."""
    return (
        np.ndarray(copy.shape, copy.dtype, dst, copy.dst_offset, copy.dst_strides),
        np.ndarray(copy.shape, copy.dtype, src, copy.src_offset, copy.src_strides),
    )


class NibbleCopy(NamedTuple):
    """A 4-bit copy that is not whole bytes: offsets and strides in nibbles."""

    part: int
    shape: tuple[int, ...]
    dst_offset: int
    dst_strides: tuple[int, ...]
    src_offset: int
    src_strides: tuple[int, ...]


class MovePlan(NamedTuple):
    """How a split or a join moves its bytes, worked out once per desc."""

    split: bool
    copies: tuple[Copy, ...]  # whole bytes
    nibbles: tuple[NibbleCopy, ...]  # 4-bit copies that start or step mid-byte
    lead: int  # the axis: the dimensions before it are shared by every part
    parallel: bool  # no output element may share an address with another: threads may write


def plan_moves(desc: SplitDesc | JoinDesc) -> MovePlan:
    """The plan of a validated desc, kept on the desc."""
    plan: MovePlan | None = desc.__dict__.get("_moves")
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
        rows = rows_of(part.sizes, dst_strides, src_strides, item)
        if bits != 4:
            copies.append(row_copy(rows, dst_offset * item, src_offset * item, i))
        elif any(
            x % 2
            for x in (dst_offset, src_offset, rows.length, *rows.dst_strides, *rows.src_strides)
        ):
            nibbles.append(
                NibbleCopy(i, part.sizes, dst_offset, dst_strides, src_offset, src_strides)
            )
        else:  # every 4-bit element of the copy sits in a byte of the same parity: whole bytes
            halves = Rows(
                rows.shape,
                tuple(t // 2 for t in rows.dst_strides),
                tuple(t // 2 for t in rows.src_strides),
                rows.length // 2,
            )
            copies.append(row_copy(halves, dst_offset // 2, src_offset // 2, i))
    # An output whose elements may share addresses is written by one thread (DirectML leaves
    # its values undefined, but the nibbles beside them must survive).
    parallel = all(t.provably_disjoint for t in (parts if split else [whole]))
    plan = MovePlan(split, tuple(copies), tuple(nibbles), desc.axis, parallel)
    desc.__dict__["_moves"] = plan
    return plan
