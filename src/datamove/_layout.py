"""Memory-layout geometry: which bytes an array touches, and whether two arrays share any.

Every module that must know whether memory overlaps asks here: the backends (``out=`` may
not alias ``data``, itself or another ``out``), the copy engine (its row loop runs only on
parts that are apart) and DirectML (tensors over one buffer). A *layout* is
``(address, shape, byte strides, itemsize)``; the address may be a GPU's, since nothing here
reads memory.

* :func:`span` -- the byte range ``[lo, hi)`` a layout touches;
* :func:`self_overlapping` -- whether two elements of one layout may share a byte;
* :func:`shares_memory` / :func:`layouts_overlap` -- NumPy's exact test, on arrays or layouts;
* :func:`ranges_apart` -- no two byte ranges ``[lo, hi)`` meet;
* :func:`outs_apart` -- no two of many layouts share a byte, in near-linear time;
* :func:`rows_apart` -- the same for the copy engine's row parts, against its sources too.

Property tests hold :func:`outs_apart` to NumPy's pairwise ``shares_memory``
(``tests/backends/test_backends.py``) and :func:`self_overlapping` to a brute-force count
(``tests/test_layout.py``).
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from datamove._errors import ValidationError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = [
    "OUT_EXACT_ELEMENTS",
    "Layout",
    "layouts_overlap",
    "outs_apart",
    "ranges_apart",
    "rows_apart",
    "self_overlapping",
    "shared_outputs",
    "shares_memory",
    "span",
]

Layout = tuple[int, tuple[int, ...], tuple[int, ...], int]  # address, shape, byte strides, item

# An ``out`` array whose strides interleave (``as_strided``) is proved apart from itself by
# listing its elements' addresses up to this many elements (a sort of 8 MiB, tens of ms); past
# it, it counts as overlapping. Layouts whose strides nest are decided without listing.
OUT_EXACT_ELEMENTS: Final = 1 << 20


def span(address: int, shape: Any, strides: Any, itemsize: int) -> tuple[int, int] | None:
    """The byte range ``[lo, hi)`` that an array of ``shape`` and byte ``strides`` touches.

    ``None`` for an array without elements.

    >>> span(1000, (2, 3), (-24, 8), 8)
    (976, 1024)
    """
    lo = hi = address
    for n, st in zip(shape, strides, strict=True):
        if n == 0:
            return None
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return lo, hi + itemsize


def self_overlapping(shape: Any, strides: Any, itemsize: int, *, exact_up_to: int = 0) -> bool:
    """Whether two elements of an array of ``shape`` and byte ``strides`` may share a byte.

    Exact for every layout indexing and transposing make (the axes nest: each stride, in
    magnitude, at least the extent of the smaller ones); other layouts (a stride of 0 on an axis
    longer than 1, interleaved strides from ``as_strided``) count as overlapping, unless they
    have at most ``exact_up_to`` elements: then every element's address is computed and the
    answer is exact (DirectML's T12 asks that up to 2**22 elements).

    >>> self_overlapping((3, 2), (2, 3), 1)  # elements at 0, 2, 4 and 3, 5, 7: apart, unproved
    True
    >>> self_overlapping((3, 2), (2, 3), 1, exact_up_to=6), self_overlapping((3,), (0,), 1)
    (False, True)
    """
    if 0 in shape:
        return False
    extent = itemsize
    axes = sorted(zip(map(abs, strides), shape, strict=True))
    for st, n in axes:  # equal strides in any order: the second one always overlaps
        if n > 1:
            if st < extent:
                return exact_up_to <= 0 or _addresses_meet(axes, itemsize, exact_up_to)
            extent += st * (n - 1)
    return False


def _addresses_meet(axes: list[tuple[int, int]], itemsize: int, limit: int) -> bool:
    """Whether two of the elements at ``sum(i_k * stride_k)`` share a byte, by listing them.

    ``axes`` are ``(stride, size)`` pairs with strides made positive, which shifts all the
    addresses alike. ``True`` (may overlap) past ``limit`` elements or 2**62 bytes.
    """
    axes = [(st, n) for st, n in axes if n > 1]
    if math.prod(n for _, n in axes) > limit or sum(st * (n - 1) for st, n in axes) >= 1 << 62:
        return True
    addresses = np.zeros((), dtype=np.int64)
    for st, n in axes:
        addresses = np.add.outer(addresses, np.arange(n, dtype=np.int64) * st)
    starts = np.sort(addresses, axis=None)
    return bool((np.diff(starts) < itemsize).any())


def ranges_apart(ranges: Iterable[tuple[int, int]]) -> bool:
    """Whether no two of these byte ranges ``[lo, hi)``, none of them empty, share a byte.

    >>> ranges_apart([(4, 8), (0, 4)]), ranges_apart([(0, 5), (4, 8)])
    (True, False)
    """
    return all(b[0] >= a[1] for a, b in itertools.pairwise(sorted(ranges)))


# Work NumPy may spend proving two arrays apart; beyond it they count as overlapping.
_MAX_WORK: Final = 100_000


def shares_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` share an element (``True`` where NumPy cannot tell in time)."""
    try:
        # NumPy's stubs allow only -1 and 0, its docs any bound (solved exactly up to it).
        return bool(np.shares_memory(a, b, max_work=_MAX_WORK))  # type: ignore[arg-type]
    except np.exceptions.TooHardError:
        return True


class _Bytes:
    """Memory of another library described to NumPy, for :func:`shares_memory` only.

    NumPy's overlap test reads addresses, never the bytes, so any address does (a GPU's too).
    """

    def __init__(self, address: int, shape: Any, strides: Any, itemsize: int) -> None:
        self.__array_interface__ = {
            "data": (address, False),
            "shape": (*shape, itemsize),
            "strides": (*strides, 1),
            "typestr": "|u1",
            "version": 3,
        }


def layouts_overlap(a: Layout, b: Layout) -> bool:
    """:func:`shares_memory` of two layouts."""
    return shares_memory(np.asarray(_Bytes(*a)), np.asarray(_Bytes(*b)))


def shared_outputs(op: str, j: int, k: int, part: str = "") -> ValidationError:
    """The error for ``out[j]`` and ``out[k]`` sharing memory (or their ``part``: ``.mask``)."""
    first, second = sorted((j, k))
    return ValidationError(
        op,
        f"out[{second}]{part}",
        "<array>",
        f"shares memory with out[{first}]{part}; each output needs memory of its own",
    )


def outs_apart(op: str, layouts: Sequence[Layout | None], part: str = "") -> None:
    """No two of these layouts share a byte (``None``: not known, not checked); exact.

    The error names the two outputs (their ``part``, ``.mask``, where the layouts are of it).

    Outputs are the columns of one buffer as often as separate arrays, and the address ranges
    of columns all meet, so comparing ranges alone would test every pair. Instead each layout
    is read as a *lattice* of rows (its axes but the contiguous innermost ones, sizes and
    strides) and a *run* of bytes at each lattice point. Layouts on the same lattice whose runs
    all fit in one window that the lattice repeats without overlap (the columns of a buffer,
    whatever their widths) are apart exactly when their runs are, as intervals: one sort. What
    remains (one window per lattice, layouts on no shared lattice) is swept by address range
    and tested exactly, with NumPy's ``shares_memory``, where ranges meet.
    """
    lattices: dict[tuple[tuple[int, int], ...], list[tuple[int, int, int]]] = {}
    for k, layout in enumerate(layouts):
        points = None if layout is None else _lattice(layout)
        if points is not None:
            address, lattice, run = points
            lattices.setdefault(lattice, []).append((address, run, k))
    windows: list[tuple[Layout, list[tuple[Layout, int]]]] = []  # a window and its members
    for lattice, members in lattices.items():
        sizes = tuple(n for n, _ in lattice)
        steps = tuple(st for _, st in lattice)
        members.sort()
        lo = members[0][0]
        width = max(a + run for a, run, _ in members) - lo
        rows = [((a, (*sizes, run), (*steps, 1), 1), k) for a, run, k in members]
        if len(members) > 1 and self_overlapping((*sizes, width), (*steps, 1), 1):
            windows.extend(((layout, [(layout, k)]) for layout, k in rows))  # one by one
            continue
        end, last = -1, -1
        for a, run, k in members:
            if a < end:
                raise shared_outputs(op, last, k, part)
            if a + run > end:
                end, last = a + run, k
        windows.append(((lo, (*sizes, width), (*steps, 1), 1), rows))

    # The windows swept in address order (those far apart cost one comparison each); where
    # two meet, the two outputs that share a byte, if two do. Each window's members are apart.
    spans = sorted((*s, k) for k, (w, _) in enumerate(windows) if (s := span(*w)) is not None)
    open_: list[tuple[int, int]] = []  # (hi, k) of the windows that may still meet the next one
    for lo, hi, k in spans:
        open_ = [(h, j) for h, j in open_ if h > lo]
        for _, j in open_:
            first, second = windows[j][1], windows[k][1]
            if not layouts_overlap(windows[j][0], windows[k][0]) or (
                len(first) * len(second) > _PAIRS_MAX and _mapped_apart(op, first, second, part)
            ):
                continue
            for one, m in first:
                for other, n in second:
                    if layouts_overlap(one, other):
                        raise shared_outputs(op, m, n, part)
        open_.append((hi, k))


def _mapped_apart(
    op: str, first: list[tuple[Layout, int]], second: list[tuple[Layout, int]], part: str
) -> bool:
    """Whether no output of ``first`` shares a byte with one of ``second``, by a map of bytes.

    ``False`` where the two cover too wide a range for a map (the caller then tests pairs).
    A shared byte raises the error naming the two outputs.
    """
    spans = [span(*layout) for layout, _ in (*first, *second)]
    lo = min(s[0] for s in spans if s is not None)
    hi = max(s[1] for s in spans if s is not None)
    if hi - lo > _MAP_MAX_BYTES:
        return False
    taken = np.zeros(hi - lo, np.bool_)

    def cover(layout: Layout) -> np.ndarray:
        address, shape, strides, itemsize = layout
        return np.lib.stride_tricks.as_strided(
            taken[address - lo :], (*shape, itemsize), (*strides, 1), writeable=True
        )

    for layout, _ in first:
        cover(layout)[...] = True
    for layout, k in second:
        if cover(layout).any():
            j = next(j for a, j in first if layouts_overlap(a, layout))
            raise shared_outputs(op, j, k, part)
    return True


# Pairs of outputs from two meeting lattices tested one by one; above, a map of their bytes.
_PAIRS_MAX: Final = 4096
_MAP_MAX_BYTES: Final = 64 << 20


def _lattice(layout: Layout) -> tuple[int, tuple[tuple[int, int], ...], int] | None:
    """``(address, ((size, stride), ...), run)``: a run of bytes at each point of a lattice."""
    address, shape, strides, itemsize = layout
    if 0 in shape:
        return None
    axes = [(n, st) for n, st in zip(shape, strides, strict=True) if n != 1]
    run = itemsize
    while axes and axes[-1][1] == run:
        run *= axes.pop()[0]
    return address, tuple(axes), run


# A part of the copy engine's row loop: (dst address, dst row stride, src address, src row
# stride, run bytes): ``rows`` runs of ``run`` bytes on each side.
Part = tuple[int, int, int, int, int]


def rows_apart(parts: Sequence[Part], rows: int) -> bool:
    """Whether no destination may share a byte with another destination or with any source.

    Byte ranges that overlap are still apart when their runs interleave: the parts of a join
    write the same rows at the same stride, each at its own offset within the row.
    """

    def rows_span(at: int, stride: int, run: int) -> tuple[int, int]:
        s = span(at, (rows,), (stride,), run)
        assert s is not None  # rows >= 1
        return s

    sources = sorted(rows_span(src, src_stride, run) for _, _, src, src_stride, run in parts)
    merged: list[list[int]] = []
    for lo, hi in sources:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    spans = sorted(
        (*rows_span(dst, stride, run), stride, dst, run) for dst, stride, _, _, run in parts
    )
    k = 0
    for lo, hi, *_ in spans:
        while k < len(merged) and merged[k][1] <= lo:
            k += 1
        if k < len(merged) and merged[k][0] < hi:
            return False  # may overlap a source
    # Destinations: clusters of overlapping ranges must interleave at one stride.
    cluster: list[tuple[int, int, int, int, int]] = []
    end = -1
    for s in [*spans, None]:
        if s is not None and s[0] < end:
            cluster.append(s)
            end = max(end, s[1])
            continue
        if len(cluster) > 1 and not _interleave(cluster):
            return False
        if s is not None:
            cluster, end = [s], s[1]
    return True


def _interleave(cluster: list[tuple[int, int, int, int, int]]) -> bool:
    """Whether runs at one stride sit at disjoint offsets within the stride (mod the stride)."""
    stride = abs(cluster[0][2])
    if stride == 0 or any(abs(s) != stride for _, _, s, _, _ in cluster):
        return False
    phases = sorted((at % stride, run) for _, _, _, at, run in cluster)
    ends = [phase + run for phase, run in phases]
    if any(end > nxt for end, (nxt, _) in zip(ends, phases[1:], strict=False)):
        return False
    return ends[-1] <= stride + phases[0][0]
