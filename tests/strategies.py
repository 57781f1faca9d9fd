"""Hypothesis strategies shared by the differential and dynamic-shape tests.

Shapes are plain data here, never datamove objects, so that the same draw can be handed to
datamove and to OpenVINO: a static shape is a tuple of ints, an interval shape a tuple of
``(min, max)`` pairs (``max`` None = unbounded), or None for a dynamic rank.

Example counts scale with the environment variable ``DATAMOVE_EXAMPLES`` (a factor, default 1;
``DATAMOVE_EXAMPLES=0.05`` while iterating). Runs are derandomized (the same examples on every
run, so CI is reproducible) unless ``DATAMOVE_RANDOM=1``.
"""

from __future__ import annotations

import itertools
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st

import datamove as dm

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
MASK_NAMES = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


def available_memory() -> int:
    """The bytes Linux says are available (``MemAvailable``), 0 where it does not say: tests of
    inputs of several GiB skip below what they need."""
    try:
        with Path("/proc/meminfo").open() as f:
            info = dict(line.split(":", 1) for line in f)
    except OSError:
        return 0
    return int(info["MemAvailable"].split()[0]) * 1024


Interval = tuple[int, int | None]


def examples(n: int) -> int:
    """``n`` scaled by ``DATAMOVE_EXAMPLES``, at least 1."""
    return max(1, round(n * float(os.environ.get("DATAMOVE_EXAMPLES", "1"))))


def fixed_settings(n: int) -> settings:
    """Settings for a property run of about ``n`` examples: no database, no deadline."""
    return settings(
        max_examples=examples(n),
        deadline=None,
        database=None,
        derandomize=os.environ.get("DATAMOVE_RANDOM", "") != "1",
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        print_blob=False,
    )


# -- shapes --------------------------------------------------------------------------------------


def static_shapes(min_rank: int = 0, max_rank: int = 5, max_dim: int = 7) -> st.SearchStrategy:
    """Tuples of ints: rank ``min_rank..max_rank``, each dim ``0..max_dim`` (0 is rarer)."""
    dim = st.one_of(st.integers(1, max_dim), st.just(0)) if max_dim > 0 else st.just(0)
    return st.integers(min_rank, max_rank).flatmap(
        lambda rank: st.lists(dim, min_size=rank, max_size=rank).map(tuple)
    )


@st.composite
def interval_dims(draw: st.DrawFn, max_dim: int = 12) -> Interval:
    """One dimension as ``(min, max)``: static, ``lo..hi``, ``..hi``, ``lo..`` or ``?``."""
    kind = draw(st.sampled_from(["static", "interval", "interval", "upper", "lower", "any"]))
    if kind == "static":
        d = draw(st.integers(0, max_dim))
        return (d, d)
    if kind == "interval":
        lo = draw(st.integers(0, max_dim))
        return (lo, draw(st.integers(lo, max_dim)))
    if kind == "upper":
        return (0, draw(st.integers(0, max_dim)))
    if kind == "lower":
        return (draw(st.integers(1, max_dim)), None)
    return (0, None)


@st.composite
def partial_shapes(
    draw: st.DrawFn, min_rank: int = 0, max_rank: int = 4, dynamic_rank: bool = True
) -> tuple[Interval, ...] | None:
    """Interval shapes (tuples of ``(min, max)``), or None (dynamic rank) now and then."""
    if dynamic_rank and draw(st.integers(0, 15)) == 0:
        return None
    return tuple(draw(st.lists(interval_dims(), min_size=min_rank, max_size=max_rank)))


def dim_text(lo: int, hi: int | None) -> str:
    """OpenVINO's notation for one dimension."""
    if hi == lo:
        return str(lo)
    if hi is None:
        return "?" if lo == 0 else f"{lo}.."
    return f"..{hi}" if lo == 0 else f"{lo}..{hi}"


def shape_text(shape: Sequence[Interval] | None) -> str:
    """OpenVINO's notation for an interval shape (``[...]`` for dynamic rank)."""
    if shape is None:
        return "[...]"
    return "[" + ",".join(dim_text(lo, hi) for lo, hi in shape) + "]"


UNBOUNDED_SPAN = 9  # how far above min an unbounded dim is sampled


def concrete_shapes(
    draw: st.DrawFn, shape: Sequence[Interval] | None, count: int = 4
) -> list[tuple[int, ...]]:
    """Concrete shapes inside ``shape``: both corners, then random points (unbounded: min+9)."""
    if shape is None:
        rank = draw(st.integers(0, 4))
        shape = [(0, None)] * rank
    bounded = [(lo, lo + UNBOUNDED_SPAN if hi is None else hi) for lo, hi in shape]
    out = [tuple(lo for lo, _ in bounded), tuple(hi for _, hi in bounded)]
    out += [tuple(draw(st.integers(lo, hi)) for lo, hi in bounded) for _ in range(count)]
    return list(dict.fromkeys(out))


def witness_sizes(shape: Sequence[Interval], hints: Sequence[int]) -> list[tuple[int, ...]]:
    """Concrete shapes inside ``shape`` near the sizes where slicing lengths change: small sizes,
    sums of two hints (``hints`` are begin/start and end/stop values), a hint near an int64 end
    plus a small one (where ``size + INT64_MIN + 4`` meets a begin of 2), and ``INT64_MAX - 1``,
    the largest size an unbounded dimension holds. Witness searches run OpenVINO on each."""
    sizes = set(range(21))
    small = [abs(v) for v in hints if abs(v) < 2**61]
    for a in small:
        for b in [0, *small]:
            sizes |= {a + b - 1, a + b, a + b + 1}
    for v in hints:  # sizes near INT64_MAX, where a value near INT64_MIN or MAX takes effect
        if abs(v) >= 2**61:
            for b in [0, *small]:
                sizes |= {n for n in (abs(v) + b - 1, abs(v) + b, abs(v) + b + 1) if n < INT64_MAX}
    sizes.add(INT64_MAX - 1)  # the largest size an unbounded dimension holds
    out = [
        tuple(max(a, t) if b is None else min(max(a, t), b) for a, b in shape)
        for t in sorted(n for n in sizes if n >= 0)
    ]
    return list(dict.fromkeys(out))


# -- parameter values ----------------------------------------------------------------------------

EXTREMES = (INT64_MIN, INT64_MIN + 1, INT64_MAX - 1, INT64_MAX)
# Strides whose lengths on an unbounded dim stay small up to INT64_MAX (1, 2 or 3 elements).
HUGE_STRIDES = (2**62, -(2**62), 2**62 + 1, -(2**62) - 1, 3 * 2**61, -3 * 2**61, 2**61, -(2**61))


def index_values(span: int = 9) -> st.SearchStrategy[int]:
    """begin/end values: mostly small, sometimes far out of range, now and then INT64 extremes
    or a few steps inside them (sizes near INT64_MAX reach those on an unbounded dim)."""
    return st.one_of(
        st.integers(-span, span),
        st.integers(-span, span),
        st.integers(-span, span),
        st.sampled_from([-100, 100, -(2**31), 2**31 - 1, 2**31]),
        st.sampled_from(EXTREMES),
        st.integers(0, 12).map(lambda k: INT64_MIN + k),
        st.integers(0, 12).map(lambda k: INT64_MAX - k),
    )


def stride_values() -> st.SearchStrategy[int]:
    """Strides: mostly +-1..3, sometimes 0, large, near +-2**62, or INT64 extremes."""
    return st.one_of(
        st.sampled_from([1, 1, 1, -1, -1, 2, -2, 3, -3]),
        st.sampled_from([0, 5, -5, 100, -100]),
        st.sampled_from(HUGE_STRIDES),
        st.sampled_from(EXTREMES),
    )


INDEX_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


@st.composite
def index_container(draw: st.DrawFn, values: Sequence[int]) -> Any:
    """The same integers as a list, a tuple, or an array of any integer dtype that holds them."""
    kind = draw(st.sampled_from(["list", "list", "tuple", "array"]))
    if kind == "list":
        return list(values)
    if kind == "tuple":
        return tuple(values)
    fitting = [
        dt for dt in INDEX_DTYPES if all(np.iinfo(dt).min <= v <= np.iinfo(dt).max for v in values)
    ]
    dtype = draw(st.sampled_from(fitting or [np.int64]))
    return np.array(values, dtype=dtype).reshape(len(values))


@st.composite
def axis_value(draw: st.DrawFn, value: int) -> Any:
    """One axis as a Python int or a NumPy integer scalar of a dtype that holds it."""
    if draw(st.booleans()):
        return value
    fitting = [dt for dt in INDEX_DTYPES if np.iinfo(dt).min <= value <= np.iinfo(dt).max]
    return np.dtype(draw(st.sampled_from(fitting))).type(value)


@st.composite
def masks(draw: st.DrawFn, count: int) -> dict[str, list[int]]:
    """The five masks for ``count`` axes: random lengths (0..count+2) and bit densities.

    Ellipsis bits are rare and usually single; bits past ``count`` appear (they never count).
    """
    out: dict[str, list[int]] = {}
    for name in MASK_NAMES:
        length = draw(st.integers(0, count + 2))
        if name == "ellipsis_mask":
            bits = [0] * length
            if length and draw(st.integers(0, 3)) == 0:
                bits[draw(st.integers(0, length - 1))] = 1
                if draw(st.integers(0, 7)) == 0:
                    bits[draw(st.integers(0, length - 1))] = 1
        else:
            density = {"begin_mask": 4, "end_mask": 4}.get(name, 8)
            bits = [int(draw(st.integers(0, density - 1)) == 0) for _ in range(length)]
        out[name] = bits
    return out


DATA_DTYPES = (np.float32, np.int64, np.int8, np.uint16, np.float16, np.bool_)


@st.composite
def numpy_indices(
    draw: st.DrawFn,
    bounds: st.SearchStrategy[Any],
    steps: st.SearchStrategy[Any],
    ints: st.SearchStrategy[int],
    most: int = 5,
    kinds: Sequence[str] = ("slice", "slice", "slice", "int", "new", "ellipsis"),
) -> tuple[Any, ...]:
    """A NumPy basic index of up to ``most`` items: slices of ``bounds`` and ``steps``,
    integers of ``ints``, ``None`` and at most one ``...``, drawn with the weights of ``kinds``.
    """
    items: list[Any] = []
    for _ in range(draw(st.integers(0, most))):
        kind = draw(st.sampled_from(kinds))
        if kind == "slice":
            items.append(slice(draw(bounds), draw(bounds), draw(steps)))
        elif kind == "int":
            items.append(draw(ints))
        elif kind == "new":
            items.append(None)
        elif Ellipsis not in items:
            items.append(Ellipsis)
    return tuple(items)


def wide_shapes(shape: Sequence[Interval], hints: Sequence[int]) -> list[tuple[int, ...]]:
    """``witness_sizes`` one axis at a time, the others at their smallest size, and at their
    smallest from 2: shapes of fewer than ``INT64_MAX`` elements, for ``hollow``."""
    lows = [lo for lo, _ in shape]
    small = [min(max(lo, 2), lo if hi is None else hi) for lo, hi in shape]
    out = [tuple(small)]
    for k, dim in enumerate(shape):
        for (t,) in witness_sizes([dim], hints):
            for others in (small, lows):
                w = (*others[:k], t, *others[k + 1 :])
                if math.prod(max(d, 1) for d in w) < INT64_MAX:
                    out.append(w)
    return list(dict.fromkeys(out))


def hollow(shape: Sequence[int]) -> np.ndarray:
    """A read-only view of ``shape`` over one byte, never to be read: NumPy's basic indexing
    runs on it at any size (``2**62``) and only moves its offset and strides (``view_key``)."""
    strides: list[int] = []
    step = 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(d, 1)
    base = np.zeros(1, np.int8)
    return np.lib.stride_tricks.as_strided(base, tuple(shape), strides, writeable=False)


def view_key(y: np.ndarray, x: np.ndarray) -> tuple[Any, ...]:
    """What a view ``y`` of ``hollow`` array ``x`` selects: equal keys, the same elements."""
    if 0 in y.shape:
        return (y.shape,)
    offset = y.__array_interface__["data"][0] - x.__array_interface__["data"][0]
    strides = tuple(s if n > 1 else 0 for n, s in zip(y.shape, y.strides, strict=True))
    return (y.shape, offset, strides)


def iota(shape: Sequence[int], dtype: Any = np.float32) -> np.ndarray:
    """``0, 1, 2, ...`` in ``shape``, cast to ``dtype`` (wrapping for narrow integer types)."""
    size = int(np.prod(shape, dtype=np.int64))
    values = np.arange(size, dtype=np.int64)
    if np.dtype(dtype).itemsize < 8 and np.dtype(dtype).kind in "iu":
        values = values % (int(np.iinfo(dtype).max) + 1)
    elif dtype == np.float16:
        values = values % 2048
    return values.astype(dtype).reshape(tuple(shape))


# -- slicings that tile one axis, and the splits that are them (group_into_split's brute force) --

SPLIT_COUNT_RULES = ("even", "array_split", "chunk", "size", "onnx", "onnx_reference")


def _parts(s: slice, d: int) -> tuple[int, ...]:
    return tuple(range(*s.indices(d)))


Form = tuple[tuple[tuple[int, int], ...], tuple[int | None, int | None]]  # ends by size, bounds


def slice_forms(lo: int, hi: int) -> list[Form]:
    """Step-1 slices of an axis of ``lo..hi`` elements, with where each starts and stops on each
    size. Of the slices that select alike on every size, two: the one with the smallest bounds
    and the one with the largest (bounds are None or in ``-(hi + 1)..hi + 1``; past them they
    clamp alike)."""
    bounds = [None, *range(-hi - 1, hi + 2)]
    classes: dict[tuple[tuple[int, int], ...], list[tuple[int | None, int | None]]] = {}
    for a in bounds:
        for b in bounds:
            ends = tuple((e[0], e[1]) for e in (slice(a, b).indices(d) for d in range(lo, hi + 1)))
            classes.setdefault(ends, []).append((a, b))

    def weight(ab: tuple[int | None, int | None]) -> int:
        return sum(0 if v is None else abs(v) + 1 for v in ab)

    return [
        (ends, ab)
        for ends, members in classes.items()
        for ab in dict.fromkeys((min(members, key=weight), max(members, key=weight)))
    ]


def next_parts(forms: list[Form], at: tuple[int, ...]) -> list[tuple[Form, tuple[int, ...]]]:
    """The slices that can follow parts ending at ``at`` (one end per size): each starts there
    or is empty (an empty part may stand anywhere), with where the parts then end."""
    out = []
    for form in forms:
        ends = form[0]
        if all(s == p or e <= s for (s, e), p in zip(ends, at, strict=True)):
            out.append((form, tuple(e if e > s else p for (s, e), p in zip(ends, at, strict=True))))
    return out


def tilings(lo: int, hi: int, most: int) -> Iterator[tuple[slice, ...]]:
    """Every list of up to ``most`` of ``slice_forms`` that tile an axis, in order, on every
    size in ``lo..hi``."""
    forms = slice_forms(lo, hi)
    full = tuple(range(lo, hi + 1))

    def grow(done: tuple[slice, ...], at: tuple[int, ...]) -> Iterator[tuple[slice, ...]]:
        if at == full and done:
            yield done
        if len(done) < most:
            for (_, (a, b)), after in next_parts(forms, at):
                yield from grow((*done, slice(a, b)), after)

    yield from grow((), (0,) * len(full))


@st.composite
def drawn_tilings(draw: st.DrawFn, most: int = 4, top: int = 5) -> tuple[int, int, list[slice]]:
    """An interval ``lo..hi`` and one of its ``tilings`` of up to ``most`` slices."""
    lo = draw(st.integers(0, top))
    hi = draw(st.integers(lo, top))
    forms = slice_forms(lo, hi)
    full = tuple(range(lo, hi + 1))
    at, done = (0,) * len(full), []
    while True:
        choices = next_parts(forms, at) if len(done) < most else []
        if at == full and done and (not choices or draw(st.booleans())):
            return lo, hi, done
        # only steps from which the tiling can still end within `most` parts
        left = most - len(done) - 1
        choices = [c for c in choices if c[1] == full or left > 0]
        assume(choices)
        (_, (a, b)), at = draw(st.sampled_from(choices))
        done.append(slice(a, b))


def split_parts(rule: str, value: Any, d: int) -> tuple[tuple[int, ...], ...] | None:
    """The parts (indices each takes) of a split on size ``d``; None where it refuses ``d``."""
    if rule == "indices":
        points = [None, *value, None]
        return tuple(_parts(slice(a, b), d) for a, b in itertools.pairwise(points))
    try:
        lengths = dm.Splitting(0, rule, value).lengths(d)
    except dm.ValidationError:
        return None
    at = [0, *itertools.accumulate(lengths)]
    return tuple(tuple(range(a, b)) for a, b in itertools.pairwise(at))


def some_split(slices: Sequence[slice], lo: int, hi: int) -> tuple[str, Any] | None:
    """A split whose parts are ``slices`` on every size in ``lo..hi``, by every rule, searched
    whole: counts up to every part's and size's, lengths read on ``lo`` (a ``-1`` anywhere, or
    none where ``lo == hi``), indices in ``-(hi + 1)..hi + 1`` part by part. None where none is."""
    sizes = range(lo, hi + 1)
    want = {d: tuple(_parts(s, d) for s in slices) for d in sizes}
    n = len(slices)
    candidates: list[tuple[str, Any]] = [
        (rule, k) for rule in SPLIT_COUNT_RULES for k in range(1, n + hi + 2)
    ]
    at_lo = tuple(len(p) for p in want[lo])
    candidates += [("lengths", (*at_lo[:m], -1, *at_lo[m + 1 :])) for m in range(n)]
    if lo == hi:
        candidates.append(("lengths", at_lo))
    for rule, value in candidates:
        if all(split_parts(rule, value, d) == want[d] for d in sizes):
            return rule, value
    # indices: the points that give each part, given the point before it
    points = range(-hi - 1, hi + 2)
    reach: dict[Any, tuple[int, ...]] = {None: ()}  # last point: the points so far
    for i, s in enumerate(slices):
        last = i == n - 1
        nxt: dict[Any, tuple[int, ...]] = {}
        for q, so_far in reach.items():
            for r in [None] if last else points:
                if r not in nxt and all(_parts(slice(q, r), d) == _parts(s, d) for d in sizes):
                    nxt[r] = so_far if r is None else (*so_far, r)
        reach = nxt
    return ("indices", reach[None]) if None in reach else None
