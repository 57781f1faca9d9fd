"""Buffers bound to tensors: byte views of what the caller passes, and element views over them.

A buffer is anything with the buffer protocol (``bytes``, ``bytearray``, ``memoryview``, a
contiguous NumPy array), seen as 1-D ``uint8`` (:func:`as_bytes`). This module checks what
binding a buffer to a tensor asks: long enough (T10), and a written buffer apart from the
operator's other buffers (S10). :func:`elements` is a tensor's elements as a strided NumPy view
over its buffer; 4-bit types (two per byte, the first in the low nibble) are unpacked to a
nibble per byte first (:func:`unpack_nibbles`) and packed back (:func:`pack_nibbles`).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from datamove._errors import DTypeError, ValidationError
from datamove.directml._errors import DirectMLValidationError, Violation
from datamove.directml._tensor import TensorDesc

__all__ = [
    "UINT_OF_BYTES",
    "Bytes",
    "as_bytes",
    "check_bindings",
    "check_distinct",
    "elements",
    "new_buffer",
    "pack_nibbles",
    "unpack_nibbles",
]

Bytes = npt.NDArray[np.uint8]

UINT_OF_BYTES: dict[int, np.dtype[Any]] = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}


def as_bytes(buffer: Any, name: str, *, writable: bool) -> Bytes:
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


def check_bindings(
    op: str,
    tensors: Sequence[TensorDesc],
    buffers: Sequence[Bytes],
    paths: Sequence[str],
    found: list[Violation],
) -> None:
    """T10: each buffer holds at least its tensor's ``total_tensor_size_in_bytes``.

    Each short buffer is reported under its path; if ``found`` then holds anything, it is raised.
    """
    for tensor, data, path in zip(tensors, buffers, paths, strict=True):
        if data.size < tensor.total_tensor_size_in_bytes:
            found.append(
                Violation("T10", path, data.size,
                          "bytes are fewer than total_tensor_size_in_bytes="
                          f"{tensor.total_tensor_size_in_bytes}")
            )  # fmt: skip
    if found:
        raise DirectMLValidationError(op, found)


def new_buffer(tensor: TensorDesc) -> Bytes:
    """A zeroed buffer of the tensor's ``total_tensor_size_in_bytes``."""
    return np.zeros(tensor.total_tensor_size_in_bytes, dtype=np.uint8)


def check_distinct(
    written: Sequence[tuple[str, Bytes]], read: Sequence[tuple[str, Bytes]], found: list[Violation]
) -> None:
    """S10: a written buffer overlapping another of the operator's buffers is undefined.

    Each buffer is one byte range (:func:`as_bytes`), so the overlapping pairs come from one
    sweep over the ranges sorted by start (2,000 outputs: milliseconds, where testing every
    pair took 1.3 s). Reported as a pairwise test would: per written buffer in order, against
    the earlier written buffers and then the read ones.
    """
    buffers = [*written, *read]
    ranges = []
    for k, (_, buffer) in enumerate(buffers):
        if buffer.size:
            lo = buffer.__array_interface__["data"][0]
            ranges.append((lo, lo + buffer.size, k))
    ranges.sort()
    pairs: list[tuple[int, int]] = []  # (written buffer, the buffer it overlaps)
    open_: list[tuple[int, int]] = []  # (end, index) of the ranges that may still overlap
    for lo, hi, k in ranges:
        heapq.heappush(open_, (hi, k))
        while open_[0][0] <= lo:
            heapq.heappop(open_)
        for _, j in open_:
            if j != k:
                first, second = min(j, k), max(j, k)
                if second < len(written):
                    pairs.append((second, first))
                elif first < len(written):
                    pairs.append((first, second))
    for i, j in sorted(pairs):
        name, buffer = buffers[i]
        found.append(
            Violation("S10", name, f"<buffer of {buffer.size} bytes>",
                      f"overlaps {buffers[j][0]}; DirectML's results are undefined then")
        )  # fmt: skip


# Views -----------------------------------------------------------------------------------


def elements(tensor: TensorDesc, data: Bytes) -> tuple[np.ndarray[Any, Any], Bytes]:
    """The tensor's elements as a strided view, and the buffer the view is over.

    That is ``data`` itself, or for 4-bit types its nibbles unpacked one per byte
    (:func:`unpack_nibbles`), which a writer packs back into ``data`` (:func:`pack_nibbles`).
    """
    strides = tensor.effective_strides
    assert strides is not None  # validated
    item = tensor.data_type.bits // 8  # bytes per element; 0 for 4-bit types
    if not item:
        data, item = unpack_nibbles(data[: tensor.total_tensor_size_in_bytes]), 1
    view = np.ndarray(tensor.sizes, UINT_OF_BYTES[item], data, 0, tuple(s * item for s in strides))
    return view, data


def unpack_nibbles(data: Bytes) -> Bytes:
    """One nibble per byte, low nibble first: element ``i`` of a 4-bit buffer is ``out[i]``."""
    out = np.empty(data.size * 2, dtype=np.uint8)
    np.bitwise_and(data, 0x0F, out=out[0::2])
    np.right_shift(data, 4, out=out[1::2])
    return out


def pack_nibbles(nibbles: Bytes, out: Bytes) -> None:
    """The inverse of :func:`unpack_nibbles`, into ``out`` (half as many bytes)."""
    np.left_shift(nibbles[1::2], 4, out=out)
    np.bitwise_or(out, nibbles[0::2] & 0x0F, out=out)
