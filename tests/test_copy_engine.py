"""The NumPy copy engine (datamove._backends._copy): every path against ``np.copyto``.

As shipped, the compiled row loop and the thread pool only take copies of a MiB or more; the
``engine`` fixture lowers the thresholds so that small random layouts take each path: NumPy's
loops alone, NumPy's loops on two threads (cut into pieces, widened; as built without a C
compiler), the row loop on one thread, on two, and with streaming stores.
"""

from __future__ import annotations

import itertools
import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove._backends import _copy, _numpy
from strategies import examples

ENGINES = [
    "numpy",
    "numpy, two threads",
    "rows",
    "rows, two threads",
    "rows, streaming, two threads",
]
needs_kernels = pytest.mark.skipif(_copy._kernels is None, reason="built without a C compiler")


@pytest.fixture(
    params=[p if p.startswith("numpy") else pytest.param(p, marks=needs_kernels) for p in ENGINES]
)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    name: str = request.param
    for module in (_copy, _numpy):  # every copy through the engine, however small
        monkeypatch.setattr(module, "SMALL_BYTES", 0)
    if name.startswith("numpy"):  # as built without a C compiler
        monkeypatch.setattr(_copy, "_kernels", None)
        # pieces of a few bytes, interleaved every 64: the cuts of a large copy on small ones
        monkeypatch.setattr(_copy, "_STEP_BYTES", 64)
        monkeypatch.setattr(_copy, "_MIN_PIECE_BYTES", 8)
    else:
        monkeypatch.setattr(_copy, "_KERNEL_MIN_BYTES", 0)
    if "two threads" in name:
        monkeypatch.setenv("DATAMOVE_NUM_THREADS", "2")
        monkeypatch.setattr(_copy, "PARALLEL_MIN_BYTES", 0)
    else:
        monkeypatch.setenv("DATAMOVE_NUM_THREADS", "1")
    if "streaming" in name:
        monkeypatch.setattr(_copy, "_STREAM_MIN_BYTES", 0)
    return name


DTYPES = ["u1", "<i2", ">i4", "f8", "c16", "V3", "S5"]


@st.composite
def views(draw: st.DrawFn) -> tuple[np.ndarray, tuple[slice, ...], tuple[int, ...] | None]:
    """A random array, a basic index into it (any steps), and maybe an axis order."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=0, max_size=4)))
    size = int(np.prod(shape))
    base = np.frombuffer(np.random.default_rng(size).bytes(size * dtype.itemsize), dtype)
    base = base.reshape(shape)
    index = tuple(
        slice(
            draw(st.none() | st.integers(-n - 1, n + 1)),
            draw(st.none() | st.integers(-n - 1, n + 1)),
            draw(st.sampled_from([None, 1, 2, 3, -1, -2])),
        )
        for n in shape
    )
    order = tuple(draw(st.permutations(range(len(shape))))) if draw(st.booleans()) else None
    return base, index, order


def _sevens(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A new array of ``shape`` whose every byte is 7."""
    nbytes = int(np.prod(shape)) * dtype.itemsize
    return np.frombuffer(b"\x07" * nbytes, dtype).reshape(shape).copy()


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=views(), several=st.booleans())
def test_copy_pairs_match_np_copyto(engine: str, case, several: bool) -> None:
    base, index, order = case
    src = base[index]
    if order is not None:
        src = src.transpose(order)
    sources = [src, src[..., ::-1]] if several and src.ndim else [src]
    before = base.copy()
    dsts = [np.zeros(s.shape, s.dtype) for s in sources]
    # a destination with gaps: every other element of a wider buffer, the gaps untouched
    gappy = [
        _sevens((*s.shape[:-1], 2 * s.shape[-1]), s.dtype)[..., ::2] if s.ndim else d
        for s, d in zip(sources, dsts, strict=True)
    ]
    _copy.copy_pairs(list(zip(dsts, sources, strict=True)))
    _copy.copy_pairs(list(zip(gappy, sources, strict=True)))
    for d, g, s in zip(dsts, gappy, sources, strict=True):
        assert d.tobytes() == np.ascontiguousarray(s).tobytes()
        assert g.tobytes() == np.ascontiguousarray(s).tobytes()
        if s.ndim:
            gaps = g.base[..., 1::2]
            assert gaps.tobytes() == b"\x07" * gaps.nbytes  # untouched
    assert base.tobytes() == before.tobytes()  # the source is never written


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("parts", [2, 3, 8])
def test_split_and_slice_through_every_engine(engine: str, axis: int, parts: int) -> None:
    a = np.arange(4 * 6 * 48, dtype=np.float32).reshape(4, 6, 48)
    sections = a.shape[axis] // parts * parts
    x = np.take(a, range(sections), axis=axis) if a.shape[axis] % parts else a
    want = np.split(x, parts, axis)
    for got in (
        dm.split(x, axis, parts, copy=True),
        dm.split(x, axis, parts, out=[np.empty_like(w) for w in want]),
    ):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
            assert g.flags.c_contiguous
    y = np.empty((4, 6, 24), np.float32)
    dm.strided_slice(
        a, [0, 0], [0, 0], [1, 2], ellipsis_mask=[1], begin_mask=[0, 1], end_mask=[0, 1], out=y
    )
    np.testing.assert_array_equal(y, a[..., ::2])
    z = np.empty((), np.float32)  # one element: a 0-d pair, never cut
    dm.strided_slice(a, [1, 2, 3], [2, 3, 4], [1, 1, 1], shrink_axis_mask=[1, 1, 1], out=z)
    assert z == a[1, 2, 3]


@pytest.mark.parametrize("run", [4, 8, 12])
@pytest.mark.parametrize("parts", [2, 3, 8])
@pytest.mark.parametrize("shift", [0, 8])
def test_splits_and_joins_of_short_runs(engine: str, run: int, parts: int, shift: int) -> None:
    # Runs of 8 bytes take their own streamed loops (two rows of a part, or two parts of a row,
    # per 16-byte store); `shift` moves the destinations off 16-byte alignment, and an odd
    # number of rows leaves a last row alone.
    rows = 1001
    whole = np.frombuffer(np.random.default_rng(run).bytes(rows * run * parts), np.uint8)
    whole = whole.reshape(rows, run * parts)
    pieces = [whole[:, k * run : (k + 1) * run] for k in range(parts)]
    store = np.zeros(rows * run * parts + 64, np.uint8)
    outs = [
        store[shift + k * rows * run : shift + (k + 1) * rows * run].reshape(rows, run)
        for k in range(parts)
    ]
    _copy.copy_pairs(list(zip(outs, pieces, strict=True)))  # a split
    for out, piece in zip(outs, pieces, strict=True):
        assert out.tobytes() == piece.tobytes()
    joined = np.zeros(rows * run * parts + 64, np.uint8)
    target = joined[shift : shift + whole.size].reshape(whole.shape)
    _copy.copy_pairs([(target[:, k * run : (k + 1) * run], outs[k]) for k in range(parts)])
    assert target.tobytes() == whole.tobytes()
    assert not joined[:shift].any()
    assert not joined[shift + whole.size :].any()


@needs_kernels
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["split", "join", "packed join", "gappy"]),
    runs=st.lists(st.one_of(st.integers(1, 70), st.integers(1, 300)), min_size=1, max_size=4),
    rows=st.integers(1, 40),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    streaming=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_row_loop_of_short_runs_matches_a_reference(
    kind: str, runs: list[int], rows: int, cuts: list[int], streaming: bool, seed: int
) -> None:
    # copy_rows takes runs shorter than 4 KiB (not all whole words) as whole 16-byte vectors
    # where each part's rows follow each other in its destination (split) or the parts fill
    # each row (join): a vector writes past its run, and the next run writes those bytes again.
    # The last row of a call, and rows whose vectors would leave the call's bytes, are copied
    # exactly. Row ranges are cut at random, as between threads; the source has no spare bytes
    # (for make sanitize), and the bytes around each destination must be kept.
    rng = np.random.default_rng(seed)
    total = sum(runs)
    if kind == "packed join":  # each part from its own packed source, as a join has them
        srcs = [rng.integers(0, 256, rows * r, dtype=np.uint8) for r in runs]
        sources = [(x, 0, r) for x, r in zip(srcs, runs, strict=True)]
    else:  # every part from one source, its rows side by side
        whole = rng.integers(0, 256, rows * total, dtype=np.uint8)
        sources = [(whole, sum(runs[:k]), total) for k in range(len(runs))]
    if kind in ("join", "packed join"):
        dsts = [rng.integers(0, 256, rows * total + 40, dtype=np.uint8)]
        places = [(dsts[0], 8 + sum(runs[:k]), total) for k in range(len(runs))]
    else:
        step = [r + (3 if kind == "gappy" else 0) for r in runs]
        dsts = [rng.integers(0, 256, rows * d + 40, dtype=np.uint8) for d in step]
        places = [(d, 8, t) for d, t in zip(dsts, step, strict=True)]
    expect = [d.copy() for d in dsts]
    args = []
    for (dst, first, stride), (src, f, s_stride), run in zip(places, sources, runs, strict=True):
        k = next(j for j, d in enumerate(dsts) if d is dst)
        for i in range(rows):
            a, b = first + i * stride, f + i * s_stride
            expect[k][a : a + run] = src[b : b + run]
        args.append((dst.ctypes.data + first, stride, src.ctypes.data + f, s_stride, run))
    bounds = sorted({0, rows, *(c % (rows + 1) for c in cuts)})
    for row0, row1 in itertools.pairwise(bounds):
        _copy._kernels.copy_rows(args, row0, row1, streaming)
    assert [d.tolist() for d in dsts] == [e.tolist() for e in expect]


def _cpu_flags() -> set[str]:
    try:
        with Path("/proc/cpuinfo").open(encoding="ascii", errors="replace") as f:
            return next((set(line.split()[2:]) for line in f if line.startswith("flags")), set())
    except OSError:
        return set()


@needs_kernels
def test_shuffle_programs_are_on_where_the_cpu_has_them() -> None:
    # Short runs go by shuffle programs on CPUs with AVX-512 VBMI; elsewhere the row loops do
    # the same work, slower. A build or CPU check that silently failed would only be slower.
    flags = _cpu_flags()
    if not flags:
        pytest.skip("no /proc/cpuinfo flags to compare with")
    has = {"avx512f", "avx512bw", "avx512vbmi"} <= flags
    assert bool(_copy._kernels.SHUFFLE) == has


SHUFFLE_MIN_BYTES = 128 << 10  # DM_SHUFFLE_MIN_BYTES: smaller calls take the row loops


@needs_kernels
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["split", "join"]),
    runs=st.lists(st.integers(1, 3), min_size=2, max_size=12),
    extra=st.integers(0, 300),
    cut=st.floats(0, 1),
    misalign=st.integers(0, 63),
    streaming=st.booleans(),
    seed=st.integers(0, 2**16),
)
# Rows of up to 16 bytes take dense programs (DM_DENSE_WIDTH), some wider ones sparse programs.
@example(kind="join", runs=[1] * 7, extra=5, cut=0.5, misalign=3, streaming=True, seed=1)
@example(
    kind="split", runs=[3, 3, 3, 3, 3, 1], extra=0, cut=0.0, misalign=0, streaming=True, seed=2
)
@example(
    kind="split", runs=[3, 3, 3, 3, 3, 2], extra=1, cut=1.0, misalign=9, streaming=False, seed=3
)
@example(kind="join", runs=[2] * 8, extra=63, cut=0.3, misalign=63, streaming=False, seed=4)
def test_shuffle_programs_match_a_reference(
    kind: str, runs: list[int], extra: int, cut: float, misalign: int, streaming: bool, seed: int
) -> None:
    # Runs of 1-3 bytes, in calls of 128 KiB or more, go as shuffle programs of 64 rows at a
    # time where the CPU has AVX-512 VBMI (the rows left over by the row loops): a split of
    # packed rows into packed outputs, or a join of packed sources into packed rows. Calls are
    # cut at a random row, as between two threads, so one side may be too small for a program;
    # destinations start at any byte of a cache line (streaming stores carry bytes between
    # lines) with guard bytes around them, which must be kept.
    rng = np.random.default_rng(seed)
    width = sum(runs)
    rows = 2 * SHUFFLE_MIN_BYTES // width + extra
    at = np.cumsum([0, *runs])
    guard = 64
    if kind == "split":
        whole = rng.integers(0, 256, (rows, width), dtype=np.uint8)
        bufs = [rng.integers(0, 256, rows * r + misalign + 2 * guard, np.uint8) for r in runs]
        want = [b.copy() for b in bufs]
        base = guard + misalign
        for k, r in enumerate(runs):
            want[k][base : base + rows * r] = whole[:, at[k] : at[k + 1]].ravel()
        args = [
            (b.ctypes.data + base, r, whole.ctypes.data + int(at[k]), width, r)
            for k, (b, r) in enumerate(zip(bufs, runs, strict=True))
        ]
        keep = [whole]
    else:
        srcs = [rng.integers(0, 256, (rows, r), dtype=np.uint8) for r in runs]
        bufs = [rng.integers(0, 256, rows * width + misalign + 2 * guard, np.uint8)]
        want = [bufs[0].copy()]
        base = guard + misalign
        want[0][base : base + rows * width] = np.concatenate(srcs, axis=1).ravel()
        args = [
            (bufs[0].ctypes.data + base + int(at[k]), width, s.ctypes.data, r, r)
            for k, (s, r) in enumerate(zip(srcs, runs, strict=True))
        ]
        keep = srcs
    middle = int(cut * rows)
    for row0, row1 in ((0, middle), (middle, rows)):
        _copy._kernels.copy_rows(args, row0, row1, streaming)
    del keep
    for got, expect in zip(bufs, want, strict=True):
        np.testing.assert_array_equal(got, expect)


DENSE, SPARSE = 0, 1  # shuffle_counts(): dense and sparse programs on bytes


@pytest.mark.skipif(
    _copy._kernels is None or not _copy._kernels.SHUFFLE, reason="no shuffle programs here"
)
@pytest.mark.parametrize(
    ("kind", "runs", "streaming", "program"),
    [
        ("split", [1] * 7, True, DENSE),  # rows of up to 16 bytes: dense programs everywhere
        ("join", [3, 1, 3, 1, 3], True, DENSE),
        ("split", [1] * 17, True, SPARSE),  # rows of 17-24 bytes, runs all 1 or all 2 bytes
        ("split", [2] * 12, False, SPARSE),
        ("split", [1, 2] * 7, False, None),  # mixed runs: the row loops
        ("split", [3] * 8, True, None),  # runs of 3 bytes: only in calls that do not stream
        ("split", [3] * 8, False, SPARSE),
        ("split", [2, 2, 14], True, None),
        ("split", [2] * 13, False, None),  # rows over 24 bytes
        ("split", [3] * 16, True, None),
        ("join", [2] * 12, True, SPARSE),  # joins of rows up to 32 bytes, 4 parts or more
        ("join", [1] * 8 + [24], True, SPARSE),
        ("join", [1, 16], True, None),  # a streamed join of 2-3 parts: the row loops
        ("join", [1, 1, 15], True, None),
        ("join", [1, 16], False, SPARSE),  # the same in cache: the program
        ("join", [1, 1, 30], False, SPARSE),
    ],
)
def test_sparse_programs_take_only_the_layouts_where_they_pay(
    kind: str, runs: list[int], streaming: bool, program: int | None
) -> None:
    # Which path a layout takes decides its speed, not its result: the sparse programs ran
    # slower than the row loops on splits of wider rows, of mixed runs or (streamed) of 3-byte
    # runs, and on streamed joins of 2-3 parts (csrc/shuffle_vbmi.c, sparse_pays), so those
    # must take the row loops and the rest the program, with the same bytes either way.
    kernels = _copy._kernels
    rng = np.random.default_rng(len(runs))
    width = sum(runs)
    rows = 2 * SHUFFLE_MIN_BYTES // width
    whole = rng.integers(0, 256, (rows, width), dtype=np.uint8)
    at = np.cumsum([0, *runs])
    pieces = [np.ascontiguousarray(whole[:, at[k] : at[k + 1]]) for k in range(len(runs))]
    if kind == "split":
        got = [np.zeros_like(p) for p in pieces]
        args = [
            (g.ctypes.data, r, whole.ctypes.data + int(at[k]), width, r)
            for k, (g, r) in enumerate(zip(got, runs, strict=True))
        ]
        want = pieces
    else:
        got = [np.zeros_like(whole)]
        args = [
            (got[0].ctypes.data + int(at[k]), width, p.ctypes.data, r, r)
            for k, (p, r) in enumerate(zip(pieces, runs, strict=True))
        ]
        want = [whole]
    before = kernels.shuffle_counts()
    kernels.copy_rows(args, 0, rows, streaming)
    ran = [b - a for a, b in zip(before, kernels.shuffle_counts(), strict=True)]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert ran == [int(i == program) for i in range(len(ran))]


LINE_ROWS, LINE_STAGE = 4, 5  # shuffle_counts(): line splits built in place, and staged


def _guarded_split(
    runs: list[int], gap: int, rows: int, offsets: list[int], seed: int
) -> tuple[list[np.ndarray], list[np.ndarray], list[tuple[int, int, int, int, int]], np.ndarray]:
    """A split of random input rows into packed outputs, for copy_rows.

    Returns ``(bufs, want, args, whole)``: ``args`` (copy_rows' parts) point into ``whole``,
    the input, which the caller keeps alive while it copies. Output k starts ``offsets[k]``
    bytes into a cache line of ``bufs[k]``, with 64 guard bytes of random values around it
    that must be kept (``want`` is each buffer after the split); the input has ``gap`` spare
    bytes after each row but none after the last (for make sanitize).
    """
    rng = np.random.default_rng(seed)
    width = sum(runs) + gap
    whole = rng.integers(0, 256, rows * width - gap, dtype=np.uint8)
    at = np.cumsum([0, *runs])
    guard = 64
    bufs = [rng.integers(0, 256, rows * r + 64 + 2 * guard, np.uint8) for r in runs]
    want = [b.copy() for b in bufs]
    args = []
    for k, (b, r) in enumerate(zip(bufs, runs, strict=True)):
        base = guard + (offsets[k] - b.ctypes.data - guard) % 64
        for i in range(rows):
            want[k][base + i * r : base + (i + 1) * r] = whole[i * width + at[k] :][:r]
        args.append((b.ctypes.data + base, r, whole.ctypes.data + int(at[k]), width, r))
    return bufs, want, args, whole


@needs_kernels
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    runs=st.lists(st.integers(64, 600), min_size=1, max_size=9),
    gap=st.integers(0, 70),
    rows=st.integers(1, 300),
    misalign=st.lists(st.integers(0, 63), min_size=9, max_size=9),
    cuts=st.lists(st.integers(0, 300), max_size=3),
    seed=st.integers(0, 2**16),
)
@example(runs=[125] * 8, gap=0, rows=200, misalign=[0] * 9, cuts=[], seed=1)  # staged
@example(runs=[500, 500], gap=0, rows=100, misalign=[5] * 9, cuts=[37], seed=2)  # in place
@example(runs=[64, 65], gap=3, rows=1, misalign=[63] * 9, cuts=[], seed=3)  # no whole line
@example(runs=[64, 72], gap=0, rows=50, misalign=[0] * 9, cuts=[], seed=4)  # whole words
def test_line_splits_match_a_reference(
    runs: list[int], gap: int, rows: int, misalign: list[int], cuts: list[int], seed: int
) -> None:
    # Splits into packed outputs whose runs are all 64 bytes or more (not all whole 8-byte
    # words), in calls that stream (16 MiB or more as shipped), write each output as whole
    # aligned lines where the CPU has AVX-512 VBMI: built in place from two rows of the input,
    # or, for runs under 160 bytes on average, staged in blocks of rows. Outputs start at any
    # byte of a line, with guard bytes around them that must be kept; the source has `gap`
    # spare bytes after each row but none after the last (for make sanitize); calls are cut at
    # random rows, as between threads. Which way ran is part of the check.
    kernels = _copy._kernels
    bufs, want, args, _whole = _guarded_split(runs, gap, rows, misalign, seed)
    bounds = sorted({0, rows, *(c % (rows + 1) for c in cuts)})
    before = kernels.shuffle_counts()
    for row0, row1 in itertools.pairwise(bounds):
        kernels.copy_rows(args, row0, row1, True)
    ran = [b - a for a, b in zip(before, kernels.shuffle_counts(), strict=True)]
    for got, expect in zip(bufs, want, strict=True):
        np.testing.assert_array_equal(got, expect)
    words = all((d | r) % 8 == 0 for d, r, *_ in args)  # the streamed words of put instead
    if not kernels.SHUFFLE or words:
        assert sum(ran) == 0
        return
    staged = sum(runs) < 160 * len(runs) and sum(runs) <= 2048
    assert ran[LINE_STAGE if staged else LINE_ROWS] == len(bounds) - 1
    assert sum(ran) == len(bounds) - 1


@needs_kernels
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    words=st.lists(st.integers(1, 20), min_size=2, max_size=70),
    gap=st.integers(0, 40),
    rows=st.integers(1, 120),
    offsets=st.lists(st.sampled_from([0, 16, 32, 48, 8, 40]), min_size=70, max_size=70),
    cuts=st.lists(st.integers(0, 120), max_size=3),
    seed=st.integers(0, 2**16),
)
@example(words=[4] * 16, gap=0, rows=100, offsets=[16] * 70, cuts=[33], seed=1)  # 1 KiB into 16
@example(words=[1, 2, 3], gap=0, rows=90, offsets=[48, 16, 32] * 24, cuts=[1, 7], seed=2)
@example(words=[4] * 65, gap=0, rows=10, offsets=[16] * 70, cuts=[], seed=3)  # over 64 parts
@example(words=[5, 3], gap=8, rows=1, offsets=[32, 0] * 35, cuts=[], seed=4)  # one row
def test_splits_into_lines_match_a_reference(
    words: list[int], gap: int, rows: int, offsets: list[int], cuts: list[int], seed: int
) -> None:
    # Splits whose runs are whole 16-byte words into packed outputs at 16-byte-aligned
    # addresses, in calls that stream, write each output as whole aligned 64-byte lines, a
    # row's words past its last whole line held until the part's next row (rows 16 bytes off a
    # line, as NumPy allocates: one open line per part otherwise). Outputs start 0, 16, 32 or
    # 48 bytes into a line (8 and 40: not on a word, the row loop's other ways), with guard
    # bytes around them that must be kept; calls are cut at random rows, as between threads,
    # so a call starts and ends mid-line; runs shorter than a line leave a line open over rows.
    kernels = _copy._kernels
    runs = [16 * w for w in words]
    bufs, want, args, _whole = _guarded_split(runs, gap, rows, offsets, seed)
    for row0, row1 in itertools.pairwise(sorted({0, rows, *(c % (rows + 1) for c in cuts)})):
        kernels.copy_rows(args, row0, row1, True)
    for got, expect in zip(bufs, want, strict=True):
        np.testing.assert_array_equal(got, expect)


@needs_kernels
@pytest.mark.parametrize("offset", [0, 16, 48])
@pytest.mark.parametrize("cut", [0, 1, 37])
def test_splits_into_lines_of_outputs_side_by_side(offset: int, cut: int) -> None:
    # Outputs that are neighbours in one buffer (out= views of one allocation), each ending
    # mid-line where the next begins: a line holds the end of one output and the start of the
    # next, which no part may write whole. 16 parts of 3 words, rows cut at `cut` as between
    # threads.
    kernels = _copy._kernels
    rows, runs = 75, [48] * 16
    rng = np.random.default_rng(cut)
    whole = rng.integers(0, 256, rows * sum(runs), dtype=np.uint8)
    buf = rng.integers(0, 256, rows * sum(runs) + 128, dtype=np.uint8)
    base = 64 + (offset - buf.ctypes.data) % 64
    want = buf.copy()
    want[base : base + whole.size] = whole.reshape(rows, 16, 48).transpose(1, 0, 2).reshape(-1)
    args = [
        (buf.ctypes.data + base + k * rows * 48, 48, whole.ctypes.data + 48 * k, 16 * 48, 48)
        for k in range(16)
    ]
    kernels.copy_rows(args, 0, cut, True)
    kernels.copy_rows(args, cut, rows, True)
    np.testing.assert_array_equal(buf, want)


@needs_kernels
@settings(max_examples=examples(150), deadline=None)
@given(
    sizes=st.lists(st.integers(0, 300), min_size=1, max_size=6),
    shifts=st.lists(st.integers(0, 15), min_size=6, max_size=6),
    threads=st.integers(1, 5),
)
def test_whole_runs_are_shared_out_exactly(
    sizes: list[int], shifts: list[int], threads: int
) -> None:
    """A join or split of contiguous blocks: byte shares cut across runs, nothing else written."""
    src_buf = np.frombuffer(np.random.default_rng(len(sizes)).bytes(sum(sizes) + 100), np.uint8)
    dst_buf = _sevens((sum(sizes) + 100,), np.dtype(np.uint8))
    pairs, at, to = [], 0, 0
    for size, shift in zip(sizes, shifts, strict=False):
        at, to = at + shift % 3, to + shift % 5  # unaligned starts, gaps between destinations
        pairs.append((dst_buf[to : to + size], src_buf[at : at + size]))
        at, to = at + size, to + size
    runs = _copy._whole_runs(pairs)
    if runs is None:  # nothing to copy
        assert sum(sizes) == 0
        return
    before = src_buf.copy()
    _copy._stream_runs(runs, sum(sizes), threads)
    want = _sevens(dst_buf.shape, dst_buf.dtype)
    for d, s in pairs:
        want[d.__array_interface__["data"][0] - dst_buf.ctypes.data :][: s.size] = s
    assert dst_buf.tobytes() == want.tobytes()
    assert src_buf.tobytes() == before.tobytes()


def test_joins_of_large_blocks_stream_on_every_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """dm.concat along axis 0 with out= and fresh: each part one run, streamed (issue 18)."""
    if _copy._kernels is None:
        pytest.skip("built without a C compiler")
    monkeypatch.setenv("DATAMOVE_NUM_THREADS", "2")
    monkeypatch.setattr(_copy, "_STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(_copy, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(_copy, "_KERNEL_MIN_BYTES", 0)
    monkeypatch.setattr(_copy, "SMALL_BYTES", 0)
    taken: list[int] = []
    real = _copy._stream_runs
    monkeypatch.setattr(_copy, "_stream_runs", lambda *a: (taken.append(len(a[0])), real(*a)))
    parts = [np.arange(n * 12, dtype=np.float32).reshape(n, 3, 4) + n for n in (1, 4, 7)]
    want = np.concatenate(parts)
    np.testing.assert_array_equal(dm.concat(parts, 0), want)
    out = np.empty_like(want)
    np.testing.assert_array_equal(dm.concat(parts, 0, out=out), want)
    assert taken == [3, 3]
    # a destination overlapping its source is not a set of whole runs: NumPy's order instead
    buf = np.arange(64, dtype=np.int64)
    assert _copy._whole_runs([(buf[8:40], buf[:32])]) is None


def test_overlapping_pairs_keep_numpy_order() -> None:
    buf = np.arange(64, dtype=np.int64)
    # destination overlaps the source (shifted by one row): not a row loop
    assert _copy.row_plan([(buf[8:].reshape(7, 8), buf[:56].reshape(7, 8))]) is None
    # two destinations on the same bytes: not a row loop either
    src = np.arange(32, dtype=np.int64).reshape(4, 8)
    dst = np.zeros((4, 8), np.int64)
    assert _copy.row_plan([(dst[:, :4], src[:, :4]), (dst[:, 2:6], src[:, 4:])]) is None
    # apart: one loop over 4 rows, one run of 32 bytes per part
    plan = _copy.row_plan([(dst[:, :4], src[:, :4]), (dst[:, 4:], src[:, 4:])])
    assert plan is not None
    rows, parts = plan
    assert rows == 4
    assert [run for *_, run in parts] == [32, 32]


def test_object_arrays_never_take_the_row_loop() -> None:
    objects = np.array([[1, "a"], [None, 2.5]], dtype=object)
    assert _copy.row_plan([(np.empty((2, 1), object), objects[:, :1])]) is None


def test_row_forms() -> None:
    a = np.zeros((6, 10, 4), np.int16)

    def form(dst: np.ndarray, src: np.ndarray) -> tuple[int, int, int, int] | None:
        return _copy.rows_form(dst.shape, dst.strides, src.strides, dst.itemsize)

    # a last-axis piece: 6*10 rows of 4 bytes
    assert form(np.zeros((6, 10, 2), np.int16), a[..., 2:]) == (60, 4, 4, 8)
    # every other element: single elements on one merged axis
    assert form(np.zeros((6, 10, 2), np.int16), a[..., ::2]) == (120, 2, 2, 4)
    # a middle-axis piece: 6 rows of 5*4 elements
    assert form(np.zeros((6, 5, 4), np.int16), a[:, 5:]) == (6, 40, 40, 80)
    # two row axes cannot be one loop
    assert form(np.zeros((3, 5, 2), np.int16), a[::2, ::2, :2]) is None
    # a contiguous whole is one row
    assert form(np.zeros((6, 10, 4), np.int16), a) == (1, 480, 0, 0)


def test_the_row_loop_is_built_where_a_compiler_is() -> None:
    # A missing extension would only make copies slower, silently: say so where it should exist.
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler {cc!r}: datamove runs on NumPy's loops alone")
    assert _copy._kernels is not None, (
        "datamove._kernels was not built: run `make clean test` (pip -v shows why)"
    )


@needs_kernels
def test_kernel_rejects_malformed_parts() -> None:
    kernels = _copy._kernels
    assert kernels is not None
    with pytest.raises(TypeError):
        kernels.copy_rows([(1, 2, 3)], 0, 0, False)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="negative run"):
        kernels.copy_rows([(0, 0, 0, 0, -1)], 0, 0, False)
    kernels.copy_rows([], 0, 10, True)  # nothing to do


def test_interleaved_destinations_are_apart_only_at_disjoint_offsets() -> None:
    src = np.arange(48, dtype=np.int64).reshape(4, 12)
    dst = np.zeros((4, 12), np.int64)
    # three runs of one row, each at its own offset: the layout of a join
    pairs = [(dst[:, a:z], src[:, a:z]) for a, z in ((0, 3), (3, 4), (4, 12))]
    assert _copy.row_plan(pairs) is not None
    # the same, but the last run reaches back into the first one's bytes of the next row
    buf = np.zeros(60, np.int64)
    wide = buf[2:50].reshape(4, 12)  # rows of 12 elements, 2 elements on
    pairs = [(buf[:48].reshape(4, 12)[:, :3], src[:, :3]), (wide[:, 1:], src[:, 1:])]
    assert _copy.row_plan(pairs) is None
    # one destination whose rows overlap each other (a stride shorter than the run)
    flat = np.zeros(40, np.int64)
    rows = np.lib.stride_tricks.as_strided(flat, (4, 8), (16, 8))
    assert _copy.row_plan([(rows, src[:, :8])]) is None
    # a different stride in the same bytes
    assert _copy.row_plan([(dst[:, :3], src[:, :3]), (dst[::2, 3:6], src[:2, 3:6])]) is None
