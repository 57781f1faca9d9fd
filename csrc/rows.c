/* Byte row loops: copy_rows (the contract, the routing and the figures: kernels.h).
 *
 * Every loop below copies rows [row0, row1) of its parts and returns, or returns 0 where its
 * layout does not apply; dm_copy_rows, at the end, tries them in order. With streaming (large
 * copies; x86-64 only), whole 8- and 16-byte words of the destination are written with
 * non-temporal stores, as glibc's memcpy does above its threshold: the destination's cache
 * lines are not read first, which saves a third of the memory traffic. Every choice below
 * (streaming, blocks of rows, row by row) was measured on the reference machine with 256 MiB
 * copies on two threads; bench/HISTORY.md has the figures.
 */
#include "kernels.h"

#define DM_LINE_BYTES 64
#define DM_LONG_RUN_BYTES 4096

#if DM_STREAMING
/* n bytes from s to d, whole aligned words of d written with non-temporal stores. */
static inline void stream_run(char *d, const char *s, Py_ssize_t n)
{
    if (n < 8) {
        memcpy(d, s, (size_t)n);
        return;
    }
    Py_ssize_t head = (Py_ssize_t)((8 - ((uintptr_t)d & 7)) & 7);
    if (head) {
        memcpy(d, s, (size_t)head);
        d += head;
        s += head;
        n -= head;
    }
    if (n >= 32) {
        if (((uintptr_t)d & 15) != 0 && n >= 8) {
            long long w;
            memcpy(&w, s, 8);
            _mm_stream_si64((long long *)d, w);
            d += 8;
            s += 8;
            n -= 8;
        }
        for (; n >= 16; d += 16, s += 16, n -= 16) {
            _mm_stream_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
        }
    }
    for (; n >= 8; d += 8, s += 8, n -= 8) {
        long long w;
        memcpy(&w, s, 8);
        _mm_stream_si64((long long *)d, w);
    }
    if (n) {
        memcpy(d, s, (size_t)n);
    }
}
#endif

/* One part, fixed small run: a loop the compiler turns into plain moves. */
#define DM_FIXED(N)                                                   \
    case N:                                                           \
        for (Py_ssize_t i = row0; i < row1; i++, d += ds, s += ss) { \
            memcpy(d, s, N);                                          \
        }                                                             \
        return;

static void copy_one(Part p, Py_ssize_t row0, Py_ssize_t row1)
{
    char *d = p.dst + row0 * p.dst_stride;
    const char *s = p.src + row0 * p.src_stride;
    const Py_ssize_t ds = p.dst_stride, ss = p.src_stride;
    switch (p.run) {
        DM_FIXED(1)
        DM_FIXED(2)
        DM_FIXED(4)
        DM_FIXED(8)
        DM_FIXED(16)
        default:
            break;
    }
    for (Py_ssize_t i = row0; i < row1; i++, d += ds, s += ss) {
        memcpy(d, s, (size_t)p.run);
    }
}

/* One run: plain (mode 0), streamed with unaligned edges (1), or streamed in whole aligned
 * words (2), 16 bytes at a time where the destination allows. */
static inline void put(char *d, const char *s, Py_ssize_t run, int mode)
{
#if DM_STREAMING
    if (mode == 2) {
        if (run == 8) {
            long long w;
            memcpy(&w, s, 8);
            _mm_stream_si64((long long *)d, w);
            return;
        }
        if ((((uintptr_t)d | (uintptr_t)run) & 15) == 0) {
            for (Py_ssize_t j = 0; j < run; j += 16) {
                _mm_stream_si128((__m128i *)(d + j), _mm_loadu_si128((const __m128i *)(s + j)));
            }
            return;
        }
        for (Py_ssize_t j = 0; j < run; j += 8) {
            long long w;
            memcpy(&w, s + j, 8);
            _mm_stream_si64((long long *)(d + j), w);
        }
        return;
    }
    if (mode == 1) {
        stream_run(d, s, run);
        return;
    }
#else
    (void)mode;
#endif
    memcpy(d, s, (size_t)run);
}

#if DM_STREAMING
/* One part of single 4- or 8-byte elements (a strided slice), gathered 16 bytes at a time into
 * streaming stores; the destination must be contiguous. Returns 0 where it does not apply. */
static int stream_elements(Part p, Py_ssize_t row0, Py_ssize_t row1)
{
    if ((p.run != 4 && p.run != 8) || p.dst_stride != p.run) {
        return 0;
    }
    char *d = p.dst + row0 * p.dst_stride;
    const char *s = p.src + row0 * p.src_stride;
    const Py_ssize_t ss = p.src_stride, run = p.run;
    Py_ssize_t i = row0;
    for (; i < row1 && ((uintptr_t)d & 15) != 0; i++, d += run, s += ss) {
        memcpy(d, s, (size_t)run);
    }
    if (((uintptr_t)d & (uintptr_t)(run - 1)) != 0) { /* never 16-aligned: plain moves */
        for (; i < row1; i++, d += run, s += ss) {
            memcpy(d, s, (size_t)run);
        }
        return 1;
    }
    if (run == 4) {
        for (; i + 4 <= row1; i += 4, d += 16, s += 4 * ss) {
            int a, b, c, e;
            memcpy(&a, s, 4);
            memcpy(&b, s + ss, 4);
            memcpy(&c, s + 2 * ss, 4);
            memcpy(&e, s + 3 * ss, 4);
            _mm_stream_si128((__m128i *)d, _mm_set_epi32(e, c, b, a));
        }
    } else {
        for (; i + 2 <= row1; i += 2, d += 16, s += 2 * ss) {
            long long a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + ss, 8);
            _mm_stream_si128((__m128i *)d, _mm_set_epi64x(b, a));
        }
    }
    for (; i < row1; i++, d += run, s += ss) {
        memcpy(d, s, (size_t)run);
    }
    _mm_sfence();
    return 1;
}
#endif

#if DM_STREAMING
static inline long long load8(const char *s)
{
    long long w;
    memcpy(&w, s, 8);
    return w;
}

/* Runs of 8 bytes in every part, streamed 16 bytes at a time: two rows of one part where its
 * rows follow each other (a split, in blocks of rows as below), or two parts side by side in
 * a row (a join into a packed output). One 8-byte streaming store per run, as `put` makes,
 * measured 0.45-0.85 of memcpy for 8 parts. Returns 0 where it does not apply. */
static int stream_pairs8(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0, Py_ssize_t row1)
{
    int dense = 1, joined = 1;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        if (p->run != 8 || ((uintptr_t)p->dst & 7) != 0) {
            return 0;
        }
        dense = dense && p->dst_stride == 8;
        joined = joined && p->dst_stride == 8 * nparts &&
                 (k == 0 || p->dst == parts[k - 1].dst + 8);
    }
    if (dense) {
        const Py_ssize_t block = DM_BLOCK_BYTES / 8;
        for (Py_ssize_t b = row0; b < row1; b += block) {
            const Py_ssize_t e = b + block < row1 ? b + block : row1;
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const Part p = parts[k];
                char *d = p.dst + b * 8;
                const char *s = p.src + b * p.src_stride;
                const Py_ssize_t ss = p.src_stride;
                Py_ssize_t i = b;
                if (((uintptr_t)d & 15) != 0 && i < e) {
                    _mm_stream_si64((long long *)d, load8(s));
                    i++, d += 8, s += ss;
                }
                for (; i + 2 <= e; i += 2, d += 16, s += 2 * ss) {
                    _mm_stream_si128((__m128i *)d, _mm_set_epi64x(load8(s + ss), load8(s)));
                }
                if (i < e) {
                    _mm_stream_si64((long long *)d, load8(s));
                }
            }
        }
    }
    else if (joined && nparts > 1) {
        const Py_ssize_t ds = parts[0].dst_stride;
        Py_ssize_t i = row0;
        int packed = (nparts & 1) == 0 && (ds & 15) == 0 &&
                     ((uintptr_t)(parts[0].dst + i * ds) & 15) == 0;
        for (Py_ssize_t k = 0; k < nparts; k++) {
            packed = packed && parts[k].src_stride == 8;
        }
        if (packed) { /* two rows of two parts: two 16-byte loads, two 16-byte stores */
            for (; i + 2 <= row1; i += 2) {
                char *d = parts[0].dst + i * ds;
                for (Py_ssize_t k = 0; k < nparts; k += 2, d += 16) {
                    const __m128i a = _mm_loadu_si128((const __m128i *)(parts[k].src + i * 8));
                    const __m128i c =
                        _mm_loadu_si128((const __m128i *)(parts[k + 1].src + i * 8));
                    _mm_stream_si128((__m128i *)d, _mm_unpacklo_epi64(a, c));
                    _mm_stream_si128((__m128i *)(d + ds), _mm_unpackhi_epi64(a, c));
                }
            }
        }
        for (; i < row1; i++) {
            char *d = parts[0].dst + i * ds;
            Py_ssize_t k = 0;
            if (((uintptr_t)d & 15) != 0) {
                _mm_stream_si64((long long *)d, load8(parts[0].src + i * parts[0].src_stride));
                k = 1, d += 8;
            }
            for (; k + 2 <= nparts; k += 2, d += 16) {
                const Part *a = &parts[k], *c = &parts[k + 1];
                _mm_stream_si128((__m128i *)d, _mm_set_epi64x(load8(c->src + i * c->src_stride),
                                                              load8(a->src + i * a->src_stride)));
            }
            if (k < nparts) {
                _mm_stream_si64((long long *)d, load8(parts[k].src + i * parts[k].src_stride));
            }
        }
    }
    else {
        return 0;
    }
    _mm_sfence();
    return 1;
}
#endif

#if DM_STREAMING
/* A split into packed outputs (every dst_stride == run) whose runs are whole 16-byte words at
 * 16-byte-aligned addresses, in DM_LINE_MIN_PARTS to DM_LINE_PARTS parts: row by row, each
 * output written as whole aligned 64-byte lines. A NumPy array starts 16 bytes into a cache
 * line, so each row of a part ends mid-line; written as it comes, that line is finished only by
 * the part's next row, after every other part's stores, and with 8 parts or more the open
 * lines outnumber the CPU's write-combining buffers, which then flush partial lines (float32
 * rows of 1 KiB into 16: 0.78-0.97 of the plain copy, against 1.08-1.38 here; bench/HISTORY.md,
 * "The last-axis split into 16"). Here a row's words past its last whole line wait
 * (Lines.carry, at most three) until the part's next row completes the line, which then goes
 * as four streaming stores in a row. The words before a part's first line boundary in the call
 * and those still waiting at its end are written with plain stores: those lines hold bytes of
 * other rows, which other threads may write. With 2-4 parts the block and row loops below ran
 * as fast or faster (u8 rows of 64 B into 2: 1.24-1.41 of memcpy there, 0.68-0.71 here).
 * Returns 0 where it does not apply. */
#define DM_LINE_MIN_PARTS 8 /* fewer open lines than that, the other loops write as fast */
#define DM_LINE_PARTS 64

typedef struct {
    __m128i carry[3];
    char *at;        /* where the part's next byte goes */
    Py_ssize_t held; /* words in carry, the open line's first (at - 16*held is on a line) */
} Lines;

DM_INLINE void lines_row(Lines *st, const char *s, Py_ssize_t n)
{
    char *d = st->at;
    Py_ssize_t j = 0, held = st->held;
    if (held == 0) { /* before the part's first line boundary in the call: plain stores */
        for (; j < n && ((uintptr_t)(d + j) & 63) != 0; j += 16) {
            _mm_storeu_si128((__m128i *)(d + j), _mm_loadu_si128((const __m128i *)(s + j)));
        }
    }
    else if (16 * held + n < 64) { /* the open line takes the whole row and stays open */
        for (; j < n; j += 16) {
            st->carry[held++] = _mm_loadu_si128((const __m128i *)(s + j));
        }
        st->at = d + n;
        st->held = held;
        return;
    }
    else { /* the open line completed: its waiting words, then the row's first */
        char *line = d - 16 * held;
        for (Py_ssize_t k = 0; k < held; k++) {
            _mm_stream_si128((__m128i *)(line + 16 * k), st->carry[k]);
        }
        for (; j < 64 - 16 * held; j += 16) {
            _mm_stream_si128((__m128i *)(d + j), _mm_loadu_si128((const __m128i *)(s + j)));
        }
        held = 0;
    }
    for (; j + 64 <= n; j += 64) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(s + j));
        const __m128i b = _mm_loadu_si128((const __m128i *)(s + j + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *)(s + j + 32));
        const __m128i e = _mm_loadu_si128((const __m128i *)(s + j + 48));
        _mm_stream_si128((__m128i *)(d + j), a);
        _mm_stream_si128((__m128i *)(d + j + 16), b);
        _mm_stream_si128((__m128i *)(d + j + 32), c);
        _mm_stream_si128((__m128i *)(d + j + 48), e);
    }
    for (; j < n; j += 16) { /* past the row's last whole line: wait for the next row */
        st->carry[held++] = _mm_loadu_si128((const __m128i *)(s + j));
    }
    st->at = d + n;
    st->held = held;
}

static int stream_lines(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0, Py_ssize_t row1)
{
    if (nparts < DM_LINE_MIN_PARTS || nparts > DM_LINE_PARTS) {
        return 0;
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        if (p->dst_stride != p->run || ((p->run | (Py_ssize_t)(uintptr_t)p->dst) & 15) != 0) {
            return 0;
        }
    }
    Lines st[DM_LINE_PARTS];
    for (Py_ssize_t k = 0; k < nparts; k++) {
        st[k].at = parts[k].dst + row0 * parts[k].run;
        st[k].held = 0;
    }
    for (Py_ssize_t i = row0; i < row1; i++) {
        for (Py_ssize_t k = 0; k < nparts; k++) {
            lines_row(&st[k], parts[k].src + i * parts[k].src_stride, parts[k].run);
        }
    }
    for (Py_ssize_t k = 0; k < nparts; k++) { /* the open lines' words, exactly */
        char *line = st[k].at - 16 * st[k].held;
        for (Py_ssize_t w = 0; w < st[k].held; w++) {
            _mm_storeu_si128((__m128i *)(line + 16 * w), st[k].carry[w]);
        }
    }
    _mm_sfence();
    return 1;
}
#endif

#if DM_SSE2
/* Runs of fewer than DM_SHORT_RUN bytes that are not all whole aligned words, where each part's
 * rows follow each other in its destination (a split) or the parts fill each destination row in
 * order and the rows follow each other (a join): each run is copied as whole 16-byte vectors,
 * and the bytes a vector writes past its run are written again by the next run, as in the 4-bit
 * vectors of nibbles.c. Only rows whose vectors stay inside the bytes the call reads and writes go this
 * way; the rest are copied exactly. Streamed whole words with byte-wise edges (mode 1 of put)
 * ran at 0.05-0.13 of memcpy on runs of 21 bytes, 0.12 on runs of 65 and 0.18 on runs of 125:
 * the lines at run edges written by both kinds of store (bench/HISTORY.md, "Short runs of
 * bytes as whole vectors", "Runs of 64 bytes to 4 KiB that are not whole words"). Longer runs
 * keep mode 1, whose few mixed lines no longer matter. Returns 0 where it does not apply. */

/* One run: `span` bytes as 16-byte vectors (past the run), or with span 0 the run exactly. */
static inline void vectors_or_exact(char *d, const char *s, Py_ssize_t span, Py_ssize_t run)
{
    if (span == 0) {
        memcpy(d, s, (size_t)run);
        return;
    }
    for (Py_ssize_t j = 0; j < span; j += 16) {
        _mm_storeu_si128((__m128i *)(d + j), _mm_loadu_si128((const __m128i *)(s + j)));
    }
}

static int short_runs(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0, Py_ssize_t row1)
{
    Py_ssize_t sum = 0, longest = 0;
    int dense = 1, joined = 1;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        if (p->run < 1 || p->run >= DM_SHORT_RUN || p->src_stride < p->run) {
            return 0;
        }
        sum += p->run;
        longest = p->run > longest ? p->run : longest;
        dense = dense && p->dst_stride == p->run;
        joined = joined && (k == 0 || p->dst == parts[k - 1].dst + parts[k - 1].run);
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        joined = joined && parts[k].dst_stride == sum;
    }
    if (!dense && !joined) {
        return 0;
    }
    const Py_ssize_t nvec = (longest + 15) >> 4, span = 16 * nvec;
    /* rows [row0, fast) go as vectors: each part's reads end inside its source's last row and
     * the writes inside the destination's last row of the call */
    Py_ssize_t fast = row1 - 1;
    const Part *last = &parts[nparts - 1];
    for (Py_ssize_t k = 0; k < nparts && fast > row0; k++) {
        const Part *p = &parts[k], *e = joined ? last : p;
        const char *src_end = p->src + (row1 - 1) * p->src_stride + p->run;
        const char *dst_end = e->dst + (row1 - 1) * e->dst_stride + e->run;
        while (fast > row0 && (p->src + (fast - 1) * p->src_stride + span > src_end ||
                               p->dst + (fast - 1) * p->dst_stride + span > dst_end)) {
            fast--;
        }
    }
    if (joined) { /* rows in order, the parts of a row in order */
        Py_ssize_t i = row0;
        if (span == 16) { /* the common case, one vector a run: no inner loop */
            for (; i < fast; i++) {
                for (Py_ssize_t k = 0; k < nparts; k++) {
                    const Part *p = &parts[k];
                    const char *s = p->src + i * p->src_stride;
                    _mm_storeu_si128((__m128i *)(p->dst + i * p->dst_stride),
                                     _mm_loadu_si128((const __m128i *)s));
                }
            }
        }
        for (; i < row1; i++) {
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const Part *p = &parts[k];
                char *d = p->dst + i * p->dst_stride;
                const char *s = p->src + i * p->src_stride;
                vectors_or_exact(d, s, i < fast ? span : 0, p->run);
            }
        }
        return 1;
    }
    const Py_ssize_t block = DM_BLOCK_BYTES / (longest > 0 ? longest : 1) + 1;
    for (Py_ssize_t b = row0; b < row1; b += block) { /* blocks of rows, each part in turn */
        const Py_ssize_t e = b + block < row1 ? b + block : row1;
        const Py_ssize_t v = e < fast ? e : fast; /* rows [b, v) as vectors */
        for (Py_ssize_t k = 0; k < nparts; k++) {
            const Part p = parts[k];
            char *d = p.dst + b * p.dst_stride;
            const char *s = p.src + b * p.src_stride;
            Py_ssize_t i = b;
            if (span == 16) { /* the common case, one vector a run: no inner loop */
                for (; i < v; i++, d += p.dst_stride, s += p.src_stride) {
                    _mm_storeu_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
                }
            }
            for (; i < e; i++, d += p.dst_stride, s += p.src_stride) {
                vectors_or_exact(d, s, i < fast ? span : 0, p.run);
            }
        }
    }
    return 1;
}
#endif

void dm_copy_rows(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0, Py_ssize_t row1,
                  int streaming)
{
#if DM_SHUFFLE
    const Py_ssize_t done =
        dm_shuffle_rows(parts, nparts, row0, row1, streaming && DM_STREAMING);
    if (done > row0) { /* the rows left over, fewer than a period: the loops below */
        if (done < row1) {
            dm_copy_rows(parts, nparts, done, row1, streaming);
        }
        return;
    }
#endif
#if DM_STREAMING
    if (nparts == 1 && streaming && stream_elements(parts[0], row0, row1)) {
        return;
    }
    if (nparts > 1 && streaming && stream_pairs8(parts, nparts, row0, row1)) {
        return;
    }
#endif
    if (nparts == 1 && (parts[0].run <= 16 || !streaming)) {
        copy_one(parts[0], row0, row1); /* element-sized runs: plain moves are fastest */
        return;
    }
    Py_ssize_t shortest = parts[0].run;
    int words = 1; /* every destination run is whole aligned 8-byte words */
    int dense = 1; /* every destination is one run after another (a split, not a join) */
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        shortest = p->run < shortest ? p->run : shortest;
        dense = dense && p->dst_stride == p->run;
        if ((((uintptr_t)p->dst | (uintptr_t)p->dst_stride | (uintptr_t)p->run) & 7) != 0) {
            words = 0;
        }
    }
#if DM_SHUFFLE && DM_STREAMING
    if (streaming && !words && dense && shortest >= DM_LINE_RUN &&
        dm_line_split(parts, nparts, row0, row1)) {
        return;
    }
#endif
#if DM_SSE2
    if (!words && shortest < DM_SHORT_RUN && short_runs(parts, nparts, row0, row1)) {
        return;
    }
#endif
    /* Streaming stores, except for the long runs of a join, which measured faster with
     * memcpy's own (8 KiB runs: 0.9-1.45 against 0.6-0.97 of memcpy). */
    const int mode = !DM_STREAMING || !streaming || (!dense && shortest >= DM_LONG_RUN_BYTES)
                         ? 0
                         : words ? 2 : 1;
#if DM_STREAMING
    if (mode == 2 && dense && nparts >= DM_LINE_MIN_PARTS &&
        stream_lines(parts, nparts, row0, row1)) {
        return;
    }
#endif
    /* Dense destinations (a split) with runs shorter than a cache line go in blocks of rows,
     * DM_BLOCK_BYTES per part: the block's input rows stay in L1 while each part writes whole
     * cache lines of its own, not 8 bytes to each of 8 outputs in turn, which defeats the
     * write-combining of streaming stores (15 against 38 GB/s). Everything else goes row by
     * row: runs of a line or more, so that the input is read in memory order, which the
     * prefetcher follows (1 KiB rows into 16: 25-33 row by row, 17-18 GB/s in blocks of 8
     * rows), and a join, whose parts fill each output row together. */
    if (!dense || shortest >= DM_LINE_BYTES) {
        for (Py_ssize_t i = row0; i < row1; i++) {
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const Part *p = &parts[k];
                put(p->dst + i * p->dst_stride, p->src + i * p->src_stride, p->run, mode);
            }
        }
    } else {
        const Py_ssize_t block = DM_BLOCK_BYTES / (shortest > 0 ? shortest : 1);
        for (Py_ssize_t b = row0; b < row1; b += block) {
            const Py_ssize_t e = b + block < row1 ? b + block : row1;
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const Part p = parts[k];
                char *d = p.dst + b * p.dst_stride;
                const char *s = p.src + b * p.src_stride;
                for (Py_ssize_t i = b; i < e; i++, d += p.dst_stride, s += p.src_stride) {
                    put(d, s, p.run, mode);
                }
            }
        }
    }
#if DM_STREAMING
    if (mode) {
        _mm_sfence(); /* make the streamed stores visible before the call returns */
    }
#endif
}
