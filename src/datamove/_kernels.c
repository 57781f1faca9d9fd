/* datamove._kernels: the copy engine's one compiled loop (optional; NumPy is the fallback).
 *
 * copy_rows(parts, row0, row1, streaming) copies, for every row i in [row0, row1) and every
 * part (dst, dst_stride, src, src_stride, run) in order, `run` bytes from src + i*src_stride to
 * dst + i*dst_stride. Splits (all sources in the same input row) and joins (all destinations in
 * the same output row) are both this loop: each row of the input is read once, in memory order,
 * while every output is written in memory order, which NumPy's one-copy-per-output cannot do.
 *
 * With streaming true (large copies; x86-64 only), whole 8- and 16-byte words of the
 * destination are written with non-temporal stores, as glibc's memcpy does above its threshold:
 * the destination's cache lines are not read first, which saves a third of the memory traffic.
 * Every choice below (streaming, blocks of rows, row by row) was measured on the reference
 * machine with 256 MiB copies on two threads; bench/RESULTS.md has the figures.
 *
 * The caller (datamove._backends._copy) derives every address, stride and count from live NumPy
 * arrays that it keeps alive for the call, and checks that the pieces fit; the loop itself runs
 * without the GIL and touches no Python object.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define DM_STREAMING 1 /* non-temporal stores */
#define DM_SSE2 1      /* 16-byte vectors: part of every x86-64 CPU */
#else
#define DM_STREAMING 0
#define DM_SSE2 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define DM_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define DM_INLINE static __forceinline
#else
#define DM_INLINE static inline
#endif

#define DM_BLOCK_BYTES 512
#define DM_LINE_BYTES 64
#define DM_LONG_RUN_BYTES 4096
#define DM_PROGRAMS 6 /* kinds of program counted for shuffle_counts() */

typedef struct {
    char *dst;
    const char *src;
    Py_ssize_t dst_stride;
    Py_ssize_t src_stride;
    Py_ssize_t run;
} Part;

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

#if DM_SSE2
/* Runs of fewer than DM_SHORT_RUN bytes that are not all whole aligned words, where each part's
 * rows follow each other in its destination (a split) or the parts fill each destination row in
 * order and the rows follow each other (a join): each run is copied as whole 16-byte vectors,
 * and the bytes a vector writes past its run are written again by the next run, as in the 4-bit
 * vectors below. Only rows whose vectors stay inside the bytes the call reads and writes go this
 * way; the rest are copied exactly. Streamed whole words with byte-wise edges (mode 1 of put)
 * ran at 0.05-0.13 of memcpy on runs of 21 bytes, 0.12 on runs of 65 and 0.18 on runs of 125:
 * the lines at run edges written by both kinds of store (bench/RESULTS.md). Longer runs keep
 * mode 1, whose few mixed lines no longer matter. Returns 0 where it does not apply. */
#define DM_SHORT_RUN 4096

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

/* Shuffle programs: short runs by whole 64-byte vectors of every stream ---------------------
 *
 * A split of packed rows of W units (bytes, or nibbles) into parts of L_k units each, with
 * packed outputs, repeats every 64 rows (128 for nibbles, so that every period starts on a
 * whole byte): the period's input is W vectors of 64 bytes, and part k's output L_k vectors.
 * Each output vector is a fixed gather from a few input vectors, the same in every period: one
 * two-vector byte permute (AVX-512 VBMI vpermt2b: 128 bytes in, 64 out) for each pair of
 * neighbouring input vectors its lanes come from, merged under a lane mask. A join is the same
 * with the roles swapped: the output's vectors gather from the parts' vectors. The program,
 * built once per call, lists those permutes; running it splits 1-byte runs 7 ways in 4 permutes
 * per 64 bytes out, where the row loops above move one run at a time (a load and a store or
 * more for each run). A block of periods of the sources is first staged in L1: copied to
 * aligned scratch (no load splits a line), or for nibbles spread one to a byte, to be packed
 * back two to a byte after the permutes. A period reads exactly its rows' bytes and writes
 * exactly its rows' bytes, which start on whole bytes (the caller picks such rows for nibbles),
 * so threads may take any ranges of whole periods. Only CPUs with AVX-512 VBMI (Intel since Ice
 * Lake, AMD since Zen 4) take this path, chosen when the module loads; elsewhere the row loops
 * do the work. Rows of bytes up to DM_DENSE_WIDTH wide take a dense program instead (see
 * build_dense): no staging, each source vector loaded once per period, the outputs' vectors
 * kept in registers. Runs of 1 byte split 7 ways: 0.1-0.3 of memcpy in the row loops, 0.5-0.8
 * as sparse programs, 1.1-1.5 as dense ones; runs of 3 bytes 0.6-0.8, 0.85-1.3 and 0.95-1.75
 * (bench/RESULTS.md). 4-bit runs of 10-15 nibbles mostly take slot programs (see "Slot
 * programs" below): no spreading, each source vector loaded once for all the parts. */

#if DM_SSE2 && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DM_SHUFFLE 1
#define DM_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#else
#define DM_SHUFFLE 0
#endif

#if DM_SHUFFLE
#define DM_SHUFFLE_WIDTH 64    /* the widest row, in units */
#define DM_SCRATCH_BYTES 16384 /* the sources of a block of periods, staged */
#define DM_SHUFFLE_RUN 4       /* bytes: only where a run is shorter */
#define DM_SHUFFLE_MIN_BYTES (128 << 10) /* and only calls this large: building takes ~5 us */
#define DM_DENSE_WIDTH 16      /* bytes: rows this wide or less take dense programs */

static int have_vbmi;
/* Programs run: dense, sparse on bytes, sparse on nibbles, slots, line splits in place and
 * staged (for tests of the routing) */
static Py_ssize_t programs_run[DM_PROGRAMS];

typedef struct {
    unsigned char idx[64]; /* lane t takes unit idx[t] of the two vectors from `off` */
    uint64_t lanes;        /* the lanes this permute fills */
    int32_t off, second;   /* its two vectors' first bytes in a staged period of the sources */
    int32_t pad[12];
} ShuffleOp;

typedef struct {
    Py_ssize_t rows;                        /* a period: 64 rows, 128 for nibbles */
    Py_ssize_t nsrc, ndst;                  /* streams: 1 and the parts, or the reverse */
    Py_ssize_t width;                       /* W */
    Py_ssize_t len[DM_SHUFFLE_WIDTH];       /* the parts' L_k */
    Py_ssize_t at[DM_SHUFFLE_WIDTH];        /* the parts' first unit in a row */
    Py_ssize_t count;                       /* permutes per output vector, some doing nothing */
    ShuffleOp *ops;                         /* count for each vector of each stream in turn */
    int join, nibbles;
    /* Dense programs (bytes, rows of up to DM_DENSE_WIDTH): the period's source vectors in
     * pairs, each pair permuted once for every output vector; ops holds groups x vectors. */
    Py_ssize_t groups, vectors;
    int32_t pair[DM_DENSE_WIDTH][2];  /* a pair's two vectors, as stream * 64 + vector */
    unsigned char owner[DM_DENSE_WIDTH]; /* the destination stream of each output vector */
} Program;

/* The units of a row of source (is_src) or destination stream s: also the bytes it has in a
 * period, divided by 64. */
static inline Py_ssize_t stream_units(const Program *pg, int is_src, Py_ssize_t s)
{
    return (pg->join == is_src) ? pg->len[s] : pg->width;
}

/* Unit u of destination stream d's period comes from unit *v of source stream *s's. */
static inline void source_of(const Program *pg, Py_ssize_t d, Py_ssize_t u, Py_ssize_t *s,
                             Py_ssize_t *v)
{
    if (!pg->join) {
        *s = 0;
        *v = u / pg->len[d] * pg->width + pg->at[d] + u % pg->len[d];
        return;
    }
    const Py_ssize_t r = u / pg->width, col = u % pg->width;
    Py_ssize_t k = 0;
    while (col >= pg->at[k] + pg->len[k]) {
        k++;
    }
    *s = k;
    *v = r * pg->len[k] + col - pg->at[k];
}

/* Builds the permutes, at most `limit`; 0 where there would be more (or no memory). Each
 * output vector's lanes are taken in order; a lane not yet filled opens a permute of its source
 * vector and the next (the one before, for a stream's last vector), which fills every lane
 * whose unit is in either. Every vector gets as many permutes as the one that needs most (the
 * others take permutes of no lanes), so that the loop that runs them has no branch. */
static int build_program(Program *pg, Py_ssize_t limit)
{
    const Py_ssize_t per = pg->rows / 64; /* vectors of a period per unit of a row */
    Py_ssize_t total = 0;                 /* output vectors of a period */
    for (Py_ssize_t d = 0; d < pg->ndst; d++) {
        total += per * stream_units(pg, 0, d);
    }
    ShuffleOp *ops = PyMem_RawMalloc(sizeof(ShuffleOp) * (size_t)limit);
    Py_ssize_t *ends = PyMem_RawMalloc(sizeof(Py_ssize_t) * (size_t)total);
    pg->ops = NULL;
    if (ops == NULL || ends == NULL || limit < total) {
        goto fail;
    }
    Py_ssize_t at[DM_SHUFFLE_WIDTH]; /* each source's first byte in a staged period */
    for (Py_ssize_t s = 0, a = 0; s < pg->nsrc; s++) {
        at[s] = a;
        a += 64 * per * stream_units(pg, 1, s);
    }
    Py_ssize_t n = 0, vec = 0;
    for (Py_ssize_t d = 0; d < pg->ndst; d++) {
        const Py_ssize_t vectors = per * stream_units(pg, 0, d);
        for (Py_ssize_t j = 0; j < vectors; j++, vec++) {
            Py_ssize_t src[64], unit[64];
            int done[64] = {0};
            for (Py_ssize_t t = 0; t < 64; t++) {
                source_of(pg, d, 64 * j + t, &src[t], &unit[t]);
            }
            for (Py_ssize_t t = 0; t < 64; t++) {
                if (done[t]) {
                    continue;
                }
                if (n == limit) {
                    goto fail;
                }
                const Py_ssize_t count = per * stream_units(pg, 1, src[t]); /* its vectors */
                Py_ssize_t v = unit[t] >> 6;
                v = v + 1 < count ? v : v > 0 ? v - 1 : v; /* the pair's first vector */
                const Py_ssize_t w = v + 1 < count ? v + 1 : v;
                ShuffleOp *op = &ops[n++];
                memset(op, 0, sizeof *op);
                op->off = (int32_t)(at[src[t]] + 64 * v);
                op->second = (int32_t)(at[src[t]] + 64 * w);
                for (Py_ssize_t t2 = t; t2 < 64; t2++) {
                    const Py_ssize_t u = unit[t2] >> 6;
                    if (!done[t2] && src[t2] == src[t] && (u == v || u == w)) {
                        op->idx[t2] = (unsigned char)((u == v ? 0 : 64) + (unit[t2] & 63));
                        op->lanes |= (uint64_t)1 << t2;
                        done[t2] = 1;
                    }
                }
            }
            ends[vec] = n;
        }
    }
    pg->count = 0;
    for (Py_ssize_t i = 0; i < total; i++) {
        const Py_ssize_t c = ends[i] - (i ? ends[i - 1] : 0);
        pg->count = c > pg->count ? c : pg->count;
    }
    if (pg->count * total > limit) {
        goto fail;
    }
    pg->ops = PyMem_RawMalloc(sizeof(ShuffleOp) * (size_t)(pg->count * total));
    if (pg->ops == NULL) {
        goto fail;
    }
    memset(pg->ops, 0, sizeof(ShuffleOp) * (size_t)(pg->count * total));
    for (Py_ssize_t i = 0; i < total; i++) {
        const Py_ssize_t a = i ? ends[i - 1] : 0;
        memcpy(&pg->ops[i * pg->count], &ops[a], sizeof(ShuffleOp) * (size_t)(ends[i] - a));
    }
    PyMem_RawFree(ops);
    PyMem_RawFree(ends);
    return 1;
fail:
    PyMem_RawFree(ops);
    PyMem_RawFree(ends);
    return 0;
}

/* Builds a dense program (bytes, width <= DM_DENSE_WIDTH): the period's W source vectors, in
 * stream order, are taken in pairs (the last with itself where W is odd), and every pair gets
 * a permute for every output vector, with the lanes it fills (none, for some). The loop that
 * runs it loads each source vector once and keeps the W output vectors in registers; a sparse
 * program loads two source vectors and an index for each permute, and pairs vectors of one
 * stream only (a join of 1-byte runs: 7 permutes per output vector, against 4 here). */
static int build_dense(Program *pg)
{
    Py_ssize_t first[DM_DENSE_WIDTH], list = 0; /* each source's first vector in the list */
    for (Py_ssize_t s = 0; s < pg->nsrc; s++) {
        first[s] = list;
        for (Py_ssize_t v = 0; v < stream_units(pg, 1, s); v++, list++) {
            pg->pair[list / 2][list % 2] = (int32_t)(s * 64 + v);
        }
    }
    if (list % 2) {
        pg->pair[list / 2][1] = pg->pair[list / 2][0];
    }
    pg->groups = (list + 1) / 2;
    pg->vectors = 0;
    for (Py_ssize_t d = 0; d < pg->ndst; d++) {
        for (Py_ssize_t j = 0; j < stream_units(pg, 0, d); j++) {
            pg->owner[pg->vectors++] = (unsigned char)d;
        }
    }
    const size_t bytes = sizeof(ShuffleOp) * (size_t)(pg->groups * pg->vectors);
    pg->ops = PyMem_RawMalloc(bytes);
    if (pg->ops == NULL) {
        return 0;
    }
    memset(pg->ops, 0, bytes);
    for (Py_ssize_t d = 0, vec = 0; d < pg->ndst; d++) {
        for (Py_ssize_t j = 0; j < stream_units(pg, 0, d); j++, vec++) {
            for (Py_ssize_t t = 0; t < 64; t++) {
                Py_ssize_t src, unit;
                source_of(pg, d, 64 * j + t, &src, &unit);
                const Py_ssize_t at = first[src] + (unit >> 6); /* in the list */
                ShuffleOp *op = &pg->ops[at / 2 * pg->vectors + vec];
                op->idx[t] = (unsigned char)(64 * (at % 2) + (unit & 63));
                op->lanes |= (uint64_t)1 << t;
            }
        }
    }
    pg->count = 0; /* not a sparse program */
    return 1;
}

/* A destination stream's writes. Plain: 64-byte stores where the stream is. Streaming: whole
 * aligned 64-byte lines with non-temporal stores, as memcpy writes large copies (the lines are
 * not read first); a stream `m` bytes past a line's start puts each vector's last m bytes in
 * the next line (carried to the next vector), and its first and last line take masked stores
 * of its own bytes only. */
typedef struct {
    unsigned char *line; /* the next line (streaming) or byte (plain) to write */
    __m512i carry;       /* the last vector (streaming, m > 0) */
    __m512i shift;       /* lane t of a line: byte t + 64 - m of (carry, vector) */
    Py_ssize_t m;
    int started;
} Out;

DM_VBMI static void out_begin(Out *o, unsigned char *p, int streaming)
{
    o->m = streaming ? (Py_ssize_t)((uintptr_t)p & 63) : 0;
    o->line = p - o->m;
    o->started = 0;
    o->carry = _mm512_setzero_si512();
    unsigned char idx[64];
    for (int t = 0; t < 64; t++) {
        idx[t] = (unsigned char)(t + 64 - o->m);
    }
    o->shift = _mm512_loadu_si512((const void *)idx);
}

DM_VBMI static inline void out_put(Out *o, __m512i v, int streaming)
{
    if (!streaming) {
        _mm512_storeu_si512((void *)o->line, v);
    }
    else if (o->m == 0) {
        _mm512_stream_si512((void *)o->line, v);
    }
    else {
        const __m512i w = _mm512_permutex2var_epi8(o->carry, o->shift, v);
        if (o->started) {
            _mm512_stream_si512((void *)o->line, w);
        }
        else { /* the lanes before m are not the stream's */
            _mm512_mask_storeu_epi8((void *)o->line, ~(__mmask64)0 << o->m, w);
            o->started = 1;
        }
        o->carry = v;
    }
    o->line += 64;
}

DM_VBMI static void out_end(Out *o)
{
    if (o->m != 0 && o->started) { /* the last vector's last m bytes */
        const __m512i w = _mm512_permutex2var_epi8(o->carry, o->shift, _mm512_setzero_si512());
        _mm512_mask_storeu_epi8((void *)o->line, ~(~(__mmask64)0 << o->m), w);
    }
}

/* One output vector: `c` permutes from *o on, merged; *o moves past them. */
DM_VBMI DM_INLINE __m512i gather(const ShuffleOp **op, const unsigned char *base,
                                 const Py_ssize_t c)
{
    const ShuffleOp *o = *op;
    __m512i acc = _mm512_setzero_si512();
    for (Py_ssize_t k = 0; k < c; k++, o++) {
        const __m512i x = _mm512_load_si512((const void *)(base + o->off));
        const __m512i y = _mm512_load_si512((const void *)(base + o->second));
        const __m512i idx = _mm512_loadu_si512((const void *)o->idx);
        acc = _mm512_mask_mov_epi8(acc, (__mmask64)o->lanes, _mm512_permutex2var_epi8(x, idx, y));
    }
    *op = o;
    return acc;
}

/* 32 bytes from 64 spread nibbles. */
DM_VBMI DM_INLINE __m256i pack_nibbles(__m512i a)
{
    const __m512i z = _mm512_or_si512(
        _mm512_and_si512(a, _mm512_set1_epi16(0x000F)),
        _mm512_and_si512(_mm512_srli_epi16(a, 4), _mm512_set1_epi16(0x00F0)));
    return _mm512_cvtepi16_epi8(z);
}

/* Periods [b, e) of the program from their sources staged at `staged`, each period's output
 * vectors in turn; c: the permutes of a vector. */
DM_VBMI DM_INLINE void run_periods(const Program *pg, const unsigned char *staged, Py_ssize_t in,
                                   Out *outs, Py_ssize_t b, Py_ssize_t e, int streaming,
                                   const Py_ssize_t c)
{
    for (Py_ssize_t t = b; t < e; t++) {
        const unsigned char *base = staged + (t - b) * in;
        const ShuffleOp *o = pg->ops;
        for (Py_ssize_t d = 0; d < pg->ndst; d++) {
            const Py_ssize_t vectors = stream_units(pg, 0, d); /* of 64 bytes, in memory */
            for (Py_ssize_t j = 0; j < vectors; j++) {
                __m512i v;
                if (!pg->nibbles) {
                    v = gather(&o, base, c);
                }
                else { /* two vectors of spread nibbles: word k holds nibbles 2k, 2k+1 */
                    const __m512i x = gather(&o, base, c);
                    const __m512i y = gather(&o, base, c);
                    v = _mm512_inserti64x4(_mm512_castsi256_si512(pack_nibbles(x)),
                                           pack_nibbles(y), 1);
                }
                out_put(&outs[d], v, streaming);
            }
        }
    }
}

/* Periods [0, periods) of a dense program of `w` output vectors (a constant in each copy of
 * the loop, so that they stay in registers): each pair of source vectors is loaded once, as it
 * lies in the sources (no staging: a period's few loads do not gain from it), and permuted
 * for every output vector. */
DM_VBMI DM_INLINE void dense_periods(const Program *pg, const unsigned char *const *src,
                                     Out *outs, Py_ssize_t periods, int streaming,
                                     const Py_ssize_t w)
{
    const unsigned char *at[2 * DM_DENSE_WIDTH]; /* each pair's two vectors in period 0 */
    Py_ssize_t step[2 * DM_DENSE_WIDTH];         /* and the bytes from one period to the next */
    for (Py_ssize_t g = 0; g < pg->groups; g++) {
        for (int h = 0; h < 2; h++) {
            const Py_ssize_t s = pg->pair[g][h] / 64, v = pg->pair[g][h] % 64;
            step[2 * g + h] = 64 * stream_units(pg, 1, s);
            at[2 * g + h] = src[s] + 64 * v;
        }
    }
    for (Py_ssize_t t = 0; t < periods; t++) {
        __m512i acc[DM_DENSE_WIDTH];
        const ShuffleOp *o = pg->ops;
        __m512i x = _mm512_loadu_si512((const void *)(at[0] + t * step[0]));
        __m512i y = _mm512_loadu_si512((const void *)(at[1] + t * step[1]));
#pragma GCC unroll 16
        for (Py_ssize_t d = 0; d < w; d++) {
            const __m512i idx = _mm512_loadu_si512((const void *)o[d].idx);
            acc[d] = _mm512_maskz_permutex2var_epi8((__mmask64)o[d].lanes, x, idx, y);
        }
        o += w;
        for (Py_ssize_t g = 1; g < pg->groups; g++, o += w) {
            x = _mm512_loadu_si512((const void *)(at[2 * g] + t * step[2 * g]));
            y = _mm512_loadu_si512((const void *)(at[2 * g + 1] + t * step[2 * g + 1]));
#pragma GCC unroll 16
            for (Py_ssize_t d = 0; d < w; d++) {
                const __m512i idx = _mm512_loadu_si512((const void *)o[d].idx);
                acc[d] = _mm512_mask_mov_epi8(acc[d], (__mmask64)o[d].lanes,
                                              _mm512_permutex2var_epi8(x, idx, y));
            }
        }
#pragma GCC unroll 16
        for (Py_ssize_t d = 0; d < w; d++) {
            out_put(&outs[pg->owner[d]], acc[d], streaming);
        }
    }
}

/* Periods [0, periods) of the program: sources src[s], destinations dst[d] (each at its first
 * period's first byte). In blocks of periods: the block's sources are staged in L1 (copied,
 * aligned, so that no load splits a line; or nibbles spread to a byte each), period after
 * period, then each period's output vectors made and written. */
DM_VBMI static void run_program(const Program *pg, const unsigned char *const *src,
                                unsigned char *const *dst, Py_ssize_t periods, int streaming)
{
    const Py_ssize_t per = pg->nibbles ? 128 : 64; /* staged bytes of a period, per unit */
    Py_ssize_t in = 0;                             /* of a period of every source */
    for (Py_ssize_t s = 0; s < pg->nsrc; s++) {
        in += per * stream_units(pg, 1, s);
    }
    const Py_ssize_t block = DM_SCRATCH_BYTES / in; /* in <= 128 * DM_SHUFFLE_WIDTH */
    _Alignas(64) unsigned char scratch[DM_SCRATCH_BYTES];
    Out outs[DM_SHUFFLE_WIDTH];
    for (Py_ssize_t d = 0; d < pg->ndst; d++) {
        out_begin(&outs[d], dst[d], streaming);
    }
    __atomic_fetch_add(&programs_run[pg->count == 0 ? 0 : 1 + pg->nibbles], 1, __ATOMIC_RELAXED);
    if (pg->count == 0) { /* dense */
        switch (pg->vectors) {
#define DM_DENSE_CASE(n)                                                                          \
    case n:                                                                                       \
        dense_periods(pg, src, outs, periods, streaming, n);                                      \
        break;
            DM_DENSE_CASE(2)
            DM_DENSE_CASE(3)
            DM_DENSE_CASE(4)
            DM_DENSE_CASE(5)
            DM_DENSE_CASE(6)
            DM_DENSE_CASE(7)
            DM_DENSE_CASE(8)
            DM_DENSE_CASE(9)
            DM_DENSE_CASE(10)
            DM_DENSE_CASE(11)
            DM_DENSE_CASE(12)
            DM_DENSE_CASE(13)
            DM_DENSE_CASE(14)
            DM_DENSE_CASE(15)
            DM_DENSE_CASE(16)
#undef DM_DENSE_CASE
        }
    }
    const __m512i low = _mm512_set1_epi16(0x000F), high = _mm512_set1_epi16(0x0F00);
    for (Py_ssize_t b = pg->count ? 0 : periods; b < periods; b += block) { /* sparse */
        const Py_ssize_t e = b + block < periods ? b + block : periods;
        for (Py_ssize_t t = b; t < e; t++) {
            unsigned char *w = scratch + (t - b) * in;
            for (Py_ssize_t s = 0; s < pg->nsrc; s++) {
                const Py_ssize_t units = stream_units(pg, 1, s);
                const unsigned char *r = src[s] + t * 64 * units;
                if (!pg->nibbles) {
                    for (Py_ssize_t i = 0; i < units; i++, r += 64, w += 64) {
                        _mm512_store_si512((void *)w, _mm512_loadu_si512((const void *)r));
                    }
                    continue;
                }
                for (Py_ssize_t i = 0; i < 2 * units; i++, r += 32, w += 64) {
                    /* byte k of r: nibbles 2k and 2k+1, the low and high byte of word k */
                    const __m256i raw = _mm256_loadu_si256((const __m256i *)r);
                    const __m512i x = _mm512_cvtepu8_epi16(raw);
                    const __m512i y = _mm512_or_si512(
                        _mm512_and_si512(x, low), _mm512_and_si512(_mm512_slli_epi16(x, 4), high));
                    _mm512_store_si512((void *)w, y);
                }
            }
        }
        switch (pg->count) { /* a constant in each loop */
#define DM_SPARSE_CASE(n)                                                                         \
    case n:                                                                                       \
        run_periods(pg, scratch, in, outs, b, e, streaming, n);                                   \
        break;
            DM_SPARSE_CASE(1)
            DM_SPARSE_CASE(2)
            DM_SPARSE_CASE(3)
            DM_SPARSE_CASE(4)
#undef DM_SPARSE_CASE
        default:
            run_periods(pg, scratch, in, outs, b, e, streaming, pg->count);
            break;
        }
    }
    for (Py_ssize_t d = 0; d < pg->ndst; d++) {
        out_end(&outs[d]);
    }
    if (streaming) {
        _mm_sfence();
    }
}

/* Sets up a split (join 0: packed input rows, packed outputs) or a join (packed sources, packed
 * output rows) of parts of runs[k] units; 0 where rows are wider than DM_SHUFFLE_WIDTH units or
 * more than `limit` permutes would be needed (more work than the row loops). */
static int plan_program(Program *pg, const Py_ssize_t *runs, Py_ssize_t nparts, int join,
                        int nibbles, Py_ssize_t limit)
{
    /* the callers checked have_vbmi and 2 <= nparts <= DM_SHUFFLE_WIDTH */
    pg->rows = nibbles ? 128 : 64;
    pg->nibbles = nibbles;
    pg->join = join;
    pg->width = 0;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        if (runs[k] < 1 || runs[k] > DM_SHUFFLE_WIDTH - pg->width) {
            return 0;
        }
        pg->at[k] = pg->width;
        pg->len[k] = runs[k];
        pg->width += runs[k];
    }
    pg->nsrc = join ? nparts : 1;
    pg->ndst = join ? 1 : nparts;
    if (!nibbles && pg->width <= DM_DENSE_WIDTH) {
        return build_dense(pg);
    }
    return build_program(pg, limit);
}

/* Bytes: rows [row0, returned row) of a split or join copied by a shuffle program. */
static Py_ssize_t shuffle_rows(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0,
                               Py_ssize_t row1, int streaming)
{
    const Py_ssize_t periods = (row1 - row0) / 64;
    if (!have_vbmi || nparts < 2 || nparts > DM_SHUFFLE_WIDTH || periods < 4) {
        return row0;
    }
    Py_ssize_t runs[DM_SHUFFLE_WIDTH], width = 0, shortest = parts[0].run;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        runs[k] = parts[k].run;
        width += runs[k];
        shortest = runs[k] < shortest ? runs[k] : shortest;
    }
    if (shortest >= DM_SHUFFLE_RUN || (row1 - row0) * width < DM_SHUFFLE_MIN_BYTES) {
        return row0;
    }
    int split = 1, join = 1;
    for (Py_ssize_t k = 0, at = 0; k < nparts; at += runs[k], k++) {
        const Part *p = &parts[k];
        split = split && p->dst_stride == p->run && p->src_stride == width &&
                p->src == parts[0].src + at;
        join = join && p->src_stride == p->run && p->dst_stride == width &&
               p->dst == parts[0].dst + at;
    }
    Program pg;
    if (!(split || join) || !plan_program(&pg, runs, nparts, !split, 0, 32 * nparts)) {
        return row0;
    }
    const unsigned char *src[DM_SHUFFLE_WIDTH];
    unsigned char *dst[DM_SHUFFLE_WIDTH];
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        src[k] = (const unsigned char *)p->src + row0 * p->src_stride;
        dst[k] = (unsigned char *)p->dst + row0 * p->dst_stride;
    }
    run_program(&pg, src, dst, periods, streaming);
    PyMem_RawFree(pg.ops);
    return row0 + 64 * periods;
}
#endif

#if DM_SHUFFLE && DM_STREAMING
/* Line splits: runs of a cache line or more, into packed outputs ----------------------------
 *
 * A split whose runs are all 64 bytes or more (and not whole aligned words, which the streamed
 * words of put handle), in a call that streams, writes each output as whole aligned 64-byte
 * lines with non-temporal stores, reading the input in memory order, row by row. The row loops
 * wrote such runs with plain 16-byte stores, each output line read before it is written: 0.5-0.6
 * of memcpy from memory on runs of 125-500 bytes into 2-8 (one thread); the streamed words of
 * put with byte-wise edges ran at 0.18 on runs of 125 (the edge lines written by both kinds of
 * store). Two ways, by the runs' mean length (bench/RESULTS.md, "Line splits"):
 * - line_rows: each output line built in place from at most two rows of the input (every run
 *   is a line or more), two loads merged under a lane mask. 1.1-1.3 of memcpy on runs of 180-500
 *   bytes, but 0.74 on runs of 125 into 8, where each row's runs give only one or two lines.
 * - line_stage: a block of rows of each output staged in L1, each run as 64-byte vectors, the
 *   last ending at the run's end, then written as bursts of lines. 1.1-1.15 on runs of 100-125
 *   (into 3 to 8), 0.65 on runs of 500, where staging costs more stores than it saves.
 * Reading a block of rows one output at a time instead (strided over the input) ran at 0.35-0.7:
 * the prefetcher follows the input best in memory order. Calls that do not stream (their bytes
 * fit in cache) keep the row loops, which ran there at 0.3-0.5 of memcpy against 0.15-0.4. An
 * output's bytes before its first whole line and after its last are written exactly (copied,
 * or masked stores), so threads may take any ranges of rows. */
#define DM_LINE_RUN 64          /* bytes: only where every run is this long or more */
#define DM_STAGE_RUN 160        /* bytes: runs shorter than this on average are staged */
#define DM_STAGE_BYTES 2048     /* a block of rows of input, staged */
#define DM_STAGE_SLACK (DM_SHUFFLE_WIDTH * 128) /* and each output's carried partial line */

/* Bytes [a, b) of part p's output for rows from row0, copied exactly. */
static void output_bytes(const Part *p, Py_ssize_t row0, Py_ssize_t a, Py_ssize_t b)
{
    char *d = p->dst + row0 * p->run;
    while (a < b) {
        const Py_ssize_t r = a / p->run, c = a - r * p->run;
        const Py_ssize_t n = p->run - c < b - a ? p->run - c : b - a;
        memcpy(d + a, p->src + (row0 + r) * p->src_stride + c, (size_t)n);
        a += n;
    }
}

DM_VBMI static void line_rows(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0,
                              Py_ssize_t row1)
{
    unsigned char *line[DM_SHUFFLE_WIDTH]; /* each output's next whole line */
    unsigned char *last[DM_SHUFFLE_WIDTH]; /* and the end of its whole lines */
    const char *row[DM_SHUFFLE_WIDTH];     /* the input row that line starts in */
    Py_ssize_t col[DM_SHUFFLE_WIDTH];      /* and the byte of the run it starts at */
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        unsigned char *d = (unsigned char *)p->dst + row0 * p->run;
        unsigned char *e = d + (row1 - row0) * p->run;
        unsigned char *first = (unsigned char *)(((uintptr_t)d + 63) & ~(uintptr_t)63);
        last[k] = (unsigned char *)((uintptr_t)e & ~(uintptr_t)63);
        if (first >= last[k]) { /* no whole line */
            first = last[k] = e;
        }
        output_bytes(p, row0, 0, first - d);
        output_bytes(p, row0, last[k] - d, e - d);
        const Py_ssize_t r = (first - d) / p->run;
        line[k] = first;
        row[k] = p->src + (row0 + r) * p->src_stride;
        col[k] = (first - d) - r * p->run;
    }
    for (Py_ssize_t i = row0; i < row1; i++) {
        for (Py_ssize_t k = 0; k < nparts; k++) {
            const Part *p = &parts[k];
            const Py_ssize_t run = p->run, stride = p->src_stride;
            unsigned char *end = (unsigned char *)p->dst + (i + 1) * run; /* row i's output */
            end = end < last[k] ? end : last[k];
            unsigned char *l = line[k];
            const char *r = row[k];
            Py_ssize_t c = col[k];
            for (; l + 64 <= end; l += 64) {
                const Py_ssize_t left = run - c; /* bytes of this row's run */
                __m512i v = _mm512_loadu_si512((const void *)(r + c));
                if (left < 64) { /* the rest from the next row's */
                    const __m512i w = _mm512_loadu_si512((const void *)(r + stride - left));
                    v = _mm512_mask_blend_epi8(~(__mmask64)0 << left, v, w);
                }
                _mm512_stream_si512((void *)l, v);
                c += 64;
                if (c >= run) {
                    c -= run;
                    r += stride;
                }
            }
            line[k] = l;
            row[k] = r;
            col[k] = c;
        }
    }
}

DM_VBMI static void line_stage(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0,
                               Py_ssize_t row1, Py_ssize_t width)
{
    _Alignas(64) unsigned char stage[DM_STAGE_BYTES + DM_STAGE_SLACK];
    unsigned char *at[DM_SHUFFLE_WIDTH];   /* each output's staged bytes */
    unsigned char *line[DM_SHUFFLE_WIDTH]; /* the output line the first of them go to */
    Py_ssize_t fill[DM_SHUFFLE_WIDTH];     /* staged bytes, from that line's start */
    Py_ssize_t lead[DM_SHUFFLE_WIDTH];     /* bytes of the first line not this call's */
    const Py_ssize_t block = DM_STAGE_BYTES / width;
    unsigned char *next = stage;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        unsigned char *d = (unsigned char *)p->dst + row0 * p->run;
        at[k] = next;
        next += (block * p->run + 127) & ~(Py_ssize_t)63;
        lead[k] = fill[k] = (Py_ssize_t)((uintptr_t)d & 63);
        line[k] = d - lead[k];
    }
    for (Py_ssize_t b = row0; b < row1; b += block) {
        const Py_ssize_t e = b + block < row1 ? b + block : row1;
        for (Py_ssize_t i = b; i < e; i++) { /* rows in order, the runs of a row in order */
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const Part *p = &parts[k];
                const char *s = p->src + i * p->src_stride;
                unsigned char *t = at[k] + fill[k];
                const Py_ssize_t tail = p->run - 64;
                for (Py_ssize_t j = 0; j < tail; j += 64) {
                    _mm512_storeu_si512((void *)(t + j), _mm512_loadu_si512((const void *)(s + j)));
                }
                _mm512_storeu_si512((void *)(t + tail),
                                    _mm512_loadu_si512((const void *)(s + tail)));
                fill[k] += p->run;
            }
        }
        for (Py_ssize_t k = 0; k < nparts; k++) { /* each output's whole lines */
            const Py_ssize_t lines = fill[k] >> 6;
            Py_ssize_t j = 0;
            if (lead[k] && lines) { /* the first line starts before the call's bytes */
                _mm512_mask_storeu_epi8((void *)line[k], ~(__mmask64)0 << lead[k],
                                        _mm512_load_si512((const void *)at[k]));
                lead[k] = 0;
                j = 1;
            }
            for (; j < lines; j++) {
                _mm512_stream_si512((void *)(line[k] + 64 * j),
                                    _mm512_load_si512((const void *)(at[k] + 64 * j)));
            }
            if (lines) { /* the partial line left: to the front */
                const __m512i rest = _mm512_load_si512((const void *)(at[k] + 64 * lines));
                _mm512_store_si512((void *)at[k], rest);
                line[k] += 64 * lines;
                fill[k] -= 64 * lines;
            }
        }
    }
    for (Py_ssize_t k = 0; k < nparts; k++) { /* the last partial line: the call's bytes only */
        if (fill[k] > lead[k]) {
            const __mmask64 own = (~(__mmask64)0 << lead[k]) & ~(~(__mmask64)0 << fill[k]);
            _mm512_mask_storeu_epi8((void *)line[k], own, _mm512_load_si512((const void *)at[k]));
        }
    }
}

/* Returns 0 where a line split does not apply. */
static int line_split(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0, Py_ssize_t row1)
{
    if (!have_vbmi || nparts > DM_SHUFFLE_WIDTH) {
        return 0;
    }
    Py_ssize_t width = 0;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const Part *p = &parts[k];
        if (p->run < DM_LINE_RUN || p->run >= DM_SHORT_RUN || p->dst_stride != p->run ||
            p->src_stride < p->run) {
            return 0;
        }
        width += p->run;
    }
    const int staged = width < DM_STAGE_RUN * nparts && width <= DM_STAGE_BYTES;
    if (staged) {
        line_stage(parts, nparts, row0, row1, width);
    }
    else {
        line_rows(parts, nparts, row0, row1);
    }
    __atomic_fetch_add(&programs_run[4 + staged], 1, __ATOMIC_RELAXED);
    _mm_sfence(); /* make the streamed stores visible before the call returns */
    return 1;
}
#endif

static void copy_rows_impl(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0,
                           Py_ssize_t row1, int streaming)
{
#if DM_SHUFFLE
    const Py_ssize_t done = shuffle_rows(parts, nparts, row0, row1, streaming && DM_STREAMING);
    if (done > row0) { /* the rows left over, fewer than a period: the loops below */
        if (done < row1) {
            copy_rows_impl(parts, nparts, done, row1, streaming);
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
        line_split(parts, nparts, row0, row1)) {
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

static PyObject *copy_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq;
    Py_ssize_t row0, row1;
    int streaming;
    if (!PyArg_ParseTuple(args, "Onnp:copy_rows", &seq, &row0, &row1, &streaming)) {
        return NULL;
    }
    PyObject *fast = PySequence_Fast(seq, "copy_rows: parts must be a sequence");
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t nparts = PySequence_Fast_GET_SIZE(fast);
    Part *parts = PyMem_Malloc(sizeof(Part) * (size_t)(nparts > 0 ? nparts : 1));
    if (parts == NULL) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, k);
        Py_ssize_t dst, dst_stride, src, src_stride, run;
        if (!PyArg_ParseTuple(item, "nnnnn:copy_rows part", &dst, &dst_stride, &src, &src_stride,
                              &run)) {
            PyMem_Free(parts);
            Py_DECREF(fast);
            return NULL;
        }
        if (run < 0) {
            PyMem_Free(parts);
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "copy_rows: negative run");
            return NULL;
        }
        parts[k].dst = (char *)dst;
        parts[k].src = (const char *)src;
        parts[k].dst_stride = dst_stride;
        parts[k].src_stride = src_stride;
        parts[k].run = run;
    }
    Py_DECREF(fast);
    if (row0 < row1 && nparts > 0) {
        Py_BEGIN_ALLOW_THREADS
        copy_rows_impl(parts, nparts, row0, row1, streaming);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(parts);
    Py_RETURN_NONE;
}

/* 4-bit elements: rows of nibbles --------------------------------------------------------
 *
 * copy_nibble_rows(parts, row0, row1) copies, for every row i in [row0, row1) and every part
 * (dst, dst_first, dst_stride, src, src_first, src_stride, run), `run` nibbles from nibble
 * src_first + i*src_stride of the buffer at src to nibble dst_first + i*dst_stride of the buffer
 * at dst. Nibble 2k is the low half of byte k, as DirectML packs 4-bit tensors. Whole bytes in
 * the middle of a row are copied, or shifted by half a byte as 64-bit words. A row's first and
 * last nibble may share a byte with the row before or after (or, in a join, with another part
 * of the same row); in the first and last row of a call, which border another thread's rows,
 * they are written with atomic and/or, each touching only its own nibble's bits, so threads
 * may take any ranges of rows. (Atomics on every row cost 3x: 0.3 against 1.0 of memcpy.) */

static inline unsigned nibble_at(const unsigned char *b, Py_ssize_t n)
{
    return (unsigned)(b[n >> 1] >> ((n & 1) * 4)) & 15u;
}

static inline void nibble_put(unsigned char *b, Py_ssize_t n, unsigned v, int atomic)
{
    unsigned char *p = b + (n >> 1);
    const unsigned char keep = (n & 1) ? 0x0F : 0xF0;
    const unsigned char bits = (unsigned char)((n & 1) ? v << 4 : v);
#if defined(__GNUC__) || defined(__clang__)
    if (atomic) {
        __atomic_fetch_and(p, keep, __ATOMIC_RELAXED);
        __atomic_fetch_or(p, bits, __ATOMIC_RELAXED);
        return;
    }
#else
    (void)atomic; /* one thread only: see ATOMIC_NIBBLES */
#endif
    *p = (unsigned char)((*p & keep) | bits);
}

static inline void bytes_from_nibbles(unsigned char *db, const unsigned char *src, Py_ssize_t q,
                                      Py_ssize_t m)
{
    /* m whole bytes from nibble q of src (all inside the run being copied): copied, or
     * shifted by half a byte as 64-bit words */
    const unsigned char *sb = src + (q >> 1);
#if DM_SSE2
    if (m >= 16) { /* SSE2, 16 bytes at a time, the last 16 again (the same values) */
        const __m128i low = _mm_set1_epi8(0x0F), high = _mm_set1_epi8((char)0xF0);
        for (Py_ssize_t j = 0;; j += 16) {
            if (j + 16 > m) {
                j = m - 16;
            }
            const __m128i a = _mm_loadu_si128((const __m128i *)(sb + j));
            __m128i w = a;
            if (q & 1) { /* db[j] = sb[j] >> 4 | sb[j + 1] << 4; sb[m] is the run's last byte */
                const __m128i b = _mm_loadu_si128((const __m128i *)(sb + j + 1));
                w = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(a, 4), low),
                                 _mm_and_si128(_mm_slli_epi16(b, 4), high));
            }
            _mm_storeu_si128((__m128i *)(db + j), w);
            if (j + 16 >= m) {
                return;
            }
        }
    }
#endif
    if (!(q & 1)) {
        if (m >= 8) {
            Py_ssize_t j = 0;
            for (; j + 8 <= m; j += 8) {
                memcpy(db + j, sb + j, 8);
            }
            if (j < m) {
                memcpy(db + m - 8, sb + m - 8, 8);
            }
        }
        else {
            for (Py_ssize_t j = 0; j < m; j++) {
                db[j] = sb[j];
            }
        }
        return;
    }
    Py_ssize_t j = 0; /* db[j] = sb[j] >> 4 | sb[j + 1] << 4; sb[m] is the run's last byte */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; j + 8 <= m; j += 8) {
        uint64_t w;
        memcpy(&w, sb + j, 8);
        w = (w >> 4) | ((uint64_t)sb[j + 8] << 60);
        memcpy(db + j, &w, 8);
    }
    if (j < m && m >= 8) { /* the last 8 bytes again, as one word: the same values */
        uint64_t w;
        memcpy(&w, sb + m - 8, 8);
        w = (w >> 4) | ((uint64_t)sb[m] << 60);
        memcpy(db + m - 8, &w, 8);
        j = m;
    }
#endif
    for (; j < m; j++) {
        db[j] = (unsigned char)((sb[j] >> 4) | (sb[j + 1] << 4));
    }
}

/* One row; `atomic`: its edge nibbles may share a byte with a row of another thread. */
static void nibble_row(unsigned char *dst, Py_ssize_t d, const unsigned char *src, Py_ssize_t s,
                       Py_ssize_t n, int atomic)
{
    if (n > 0 && (d & 1)) {
        nibble_put(dst, d, nibble_at(src, s), atomic);
        d++, s++, n--;
    }
    const Py_ssize_t m = n >> 1; /* whole destination bytes */
    bytes_from_nibbles(dst + (d >> 1), src, s, m);
    if (n & 1) {
        nibble_put(dst, d + 2 * m, nibble_at(src, s + 2 * m), atomic);
    }
}

typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    Py_ssize_t dst_first, dst_stride, src_first, src_stride, run;
} NibblePart;

/* Streams of nibbles. When every part's rows follow each other in its destination (a split
 * into packed outputs: dst_stride == run), or the parts of a row fill the destination row in
 * order and the rows follow each other (a join into a packed output), the destination is
 * written as one or more sequential streams: a run's odd last nibble waits in a register for
 * the next run's first to make a whole byte. So the only read-modify-write is of a stream's
 * first and last nibble, which may share a byte with the range of another thread (atomic, as
 * above); the row loop above reads a destination byte at each row's end, which stalls on a
 * cache miss at the front of the writes. Rows of 63 nibbles
 * split into 2: 5.4-6.5 ns per part-row on one thread, against 7.5-10 (bench/RESULTS.md). */

typedef struct {
    unsigned char *dst; /* the next whole byte to write */
    unsigned pend;      /* a nibble waiting for the high half of *dst (when `has`) */
    int has;
    int odd; /* the stream starts in the high half of dst[-1]: put it first */
} NibbleStream;

static inline void stream_push(NibbleStream *st, const unsigned char *src, Py_ssize_t q,
                               Py_ssize_t n, int atomic)
{
    /* Append n nibbles from nibble q of src. */
    if (n <= 0) {
        return;
    }
    if (st->odd) {
        nibble_put(st->dst - 1, 1, nibble_at(src, q), atomic);
        st->odd = 0;
        q++, n--;
    }
    unsigned char *out = st->dst;
    st->dst += st->has + ((n - st->has) >> 1); /* the whole bytes this run ends */
    if (st->has) { /* complete the waiting byte: no read of the destination */
        *out++ = (unsigned char)(st->pend | (nibble_at(src, q) << 4));
        st->has = 0;
        q++, n--;
    }
    const Py_ssize_t whole = n >> 1;
    bytes_from_nibbles(out, src, q, whole);
    if (n & 1) {
        st->pend = nibble_at(src, q + 2 * whole);
        st->has = 1;
    }
}

static void stream_begin(NibbleStream *st, unsigned char *base, Py_ssize_t pos)
{
    st->dst = base + (pos >> 1) + (pos & 1);
    st->pend = 0;
    st->has = 0;
    st->odd = (int)(pos & 1);
}

static void stream_end(NibbleStream *st, int atomic)
{
    if (st->has) { /* the low half of a byte whose high half follows the stream */
        nibble_put(st->dst, 0, st->pend, atomic);
    }
}

#if DM_SSE2
/* Short runs as whole vectors. A stream's run of n nibbles from nibble q of src to nibble P of
 * dst is stored as nvec 16-byte vectors from the byte holding nibble P, shifted by half a byte
 * where q and P differ in parity: no byte-by-byte edges, no branch on the run's length (nvec is
 * a constant of the loop: 1 to 4, runs of up to 127 nibbles). When P is odd, the low half of its
 * byte takes the stream's nibble before, which the loop carries from the source. The bytes past
 * the run get values that the stream's next run overwrites, so this serves only rows inside a
 * call's range, with every vector inside the bytes the call reads and writes (fast_rows).
 * The vectors of two runs are loaded before either is stored: a load that follows a store in
 * program order waits whenever the core cannot tell them apart (same low 12 address bits),
 * and a join, storing one part while loading the next, ran at half the speed of a split.
 * Rows of 63 nibbles split into 2 and joined back: bench/RESULTS.md. */

#define DM_MAX_VECTORS 4

DM_INLINE __m128i vector_at(const unsigned char *t, Py_ssize_t shifted)
{
    const __m128i a = _mm_loadu_si128((const __m128i *)t);
    if (!shifted) {
        return a;
    }
    /* byte k: the high half of t[k], then the low half of t[k + 1] */
    const __m128i b = _mm_loadu_si128((const __m128i *)(t + 1));
    return _mm_or_si128(_mm_and_si128(_mm_srli_epi16(a, 4), _mm_set1_epi8(0x0F)),
                        _mm_and_si128(_mm_slli_epi16(b, 4), _mm_set1_epi8((char)0xF0)));
}

/* The first byte a part's row reads as vectors, and its first byte written. */
static inline uintptr_t vector_src(const NibblePart *p, Py_ssize_t i)
{
    const Py_ssize_t P = p->dst_first + i * p->dst_stride, q = p->src_first + i * p->src_stride;
    return (uintptr_t)p->src + (uintptr_t)(q >> 1) - (uintptr_t)(((q ^ P) & 1) & (P & 1));
}

static inline uintptr_t vector_dst(const NibblePart *p, Py_ssize_t i)
{
    return (uintptr_t)p->dst + (uintptr_t)((p->dst_first + i * p->dst_stride) >> 1);
}

static inline Py_ssize_t vectors_of(Py_ssize_t run)
{
    return (((run + 2) >> 1) + 15) >> 4; /* bytes from P's byte to past the run, odd P */
}

/* The last nibble of row i of part p. */
static inline unsigned last_nibble(const NibblePart *p, Py_ssize_t i)
{
    return nibble_at(p->src, p->src_first + i * p->src_stride + p->run - 1);
}

typedef struct {
    unsigned char *db;
    __m128i w[DM_MAX_VECTORS];
} Vectors;

/* Row i of part p in registers; `pend`: the stream's nibble before the run. Sets *last to the
 * run's last nibble (the next run's pend) where the next run needs it: the stream's runs follow
 * each other, so the next one starts at nibble P + run. */
DM_INLINE Vectors load_run(const NibblePart *p, Py_ssize_t i, const Py_ssize_t nvec,
                           unsigned pend, unsigned *last)
{
    Vectors v;
    const Py_ssize_t P = p->dst_first + i * p->dst_stride, q = p->src_first + i * p->src_stride;
    const Py_ssize_t odd = P & 1, sh = (q ^ P) & 1;
    const unsigned char *t = p->src + (q >> 1) - (sh & odd);
    v.db = p->dst + (P >> 1);
    for (Py_ssize_t j = 0; j < nvec; j++) {
        v.w[j] = vector_at(t + 16 * j, sh);
    }
    if (odd) {
        const __m128i low = _mm_cvtsi32_si128(0x0F);
        v.w[0] = _mm_or_si128(_mm_andnot_si128(low, v.w[0]), _mm_cvtsi32_si128((int)pend));
    }
    if ((P + p->run) & 1) { /* the stream's next run starts mid-byte: it needs this nibble */
        *last = nibble_at(p->src, q + p->run - 1);
    }
    return v;
}

DM_INLINE void store_run(const Vectors *v, const Py_ssize_t nvec)
{
    for (Py_ssize_t j = 0; j < nvec; j++) {
        _mm_storeu_si128((__m128i *)(v->db + 16 * j), v->w[j]);
    }
}

/* Rows [*f0, *f1) of [row0, row1) whose nvec vectors stay inside what the call reads and
 * writes: each part's source bytes from its first row's to its last row's, and the
 * destination bytes the call alone writes (none before its first nibble, none of a byte shared
 * past its end). Every address grows with the row (positive strides), so the bounds are
 * checked at both ends of the range. Leaves an empty range when there is none. */
static void fast_rows(const NibblePart *parts, Py_ssize_t nparts, int one, Py_ssize_t nvec,
                      Py_ssize_t row0, Py_ssize_t row1, Py_ssize_t *f0, Py_ssize_t *f1)
{
    *f0 = *f1 = row0;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const NibblePart *p = &parts[k];
        if (p->run < 1 || p->src_stride < 1 || p->dst_stride < 1) {
            return;
        }
    }
    const uintptr_t span = 16 * (uintptr_t)nvec;
    Py_ssize_t a = row0 + 1, b = row1 - 1; /* the first and last row to take as vectors */
    for (Py_ssize_t k = 0; k < nparts && a <= b; k++) {
        const NibblePart *p = &parts[k], *e = one ? &parts[nparts - 1] : p;
        const Py_ssize_t first = p->src_first + row0 * p->src_stride;
        const Py_ssize_t last = p->src_first + (row1 - 1) * p->src_stride + p->run - 1;
        const uintptr_t lo = (uintptr_t)p->src + (uintptr_t)(first >> 1);
        const uintptr_t hi = (uintptr_t)p->src + (uintptr_t)(last >> 1) + 1;
        /* the stream's end: bytes below it hold only nibbles of this call */
        const Py_ssize_t stop = e->dst_first + (row1 - 1) * e->dst_stride + e->run;
        const uintptr_t end = (uintptr_t)e->dst + (uintptr_t)(stop >> 1);
        while (a <= b && vector_src(p, a) < lo) {
            a++;
        }
        while (a <= b && (vector_src(p, b) + span + 1 > hi || vector_dst(p, b) + span > end)) {
            b--;
        }
    }
    if (a <= b) {
        *f0 = a, *f1 = b + 1;
    }
}
#endif

/* The streams' rows [row0, row1): each part its own (a split, in blocks of rows, each part in
 * turn, its stream in registers), or all parts one, row by row (a join). */
static void stream_rows(const NibblePart *parts, Py_ssize_t nparts, int each, Py_ssize_t sum,
                        NibbleStream *streams, Py_ssize_t row0, Py_ssize_t row1)
{
    if (each) {
        const Py_ssize_t block = 2 * DM_BLOCK_BYTES / sum + 1;
        for (Py_ssize_t b = row0; b < row1; b += block) {
            const Py_ssize_t e = b + block < row1 ? b + block : row1;
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const NibblePart *p = &parts[k];
                NibbleStream st = streams[k];
                for (Py_ssize_t i = b; i < e; i++) {
                    stream_push(&st, p->src, p->src_first + i * p->src_stride, p->run, 1);
                }
                streams[k] = st;
            }
        }
    }
    else {
        NibbleStream st = streams[0];
        for (Py_ssize_t i = row0; i < row1; i++) {
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const NibblePart *p = &parts[k];
                stream_push(&st, p->src, p->src_first + i * p->src_stride, p->run, 1);
            }
        }
        streams[0] = st;
    }
}

#if DM_SSE2
/* The same rows as whole vectors, in the same order, two runs loaded before either is stored.
 * fast_rows says which rows may: never a call's first row, so every run's nibble before is of
 * the call. */
DM_INLINE void vector_rows_n(const NibblePart *parts, Py_ssize_t nparts, int each, Py_ssize_t sum,
                             Py_ssize_t row0, Py_ssize_t row1, const Py_ssize_t nvec)
{
    if (each) { /* blocks of rows, each part in turn, rows in pairs */
        const Py_ssize_t block = 2 * DM_BLOCK_BYTES / sum + 2;
        for (Py_ssize_t b = row0; b < row1; b += block) {
            const Py_ssize_t e = b + block < row1 ? b + block : row1;
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const NibblePart p = parts[k];
                unsigned pend = last_nibble(&p, b - 1);
                Py_ssize_t i = b;
                for (; i + 1 < e; i += 2) {
                    const Vectors x = load_run(&p, i, nvec, pend, &pend);
                    const Vectors y = load_run(&p, i + 1, nvec, pend, &pend);
                    store_run(&x, nvec);
                    store_run(&y, nvec);
                }
                if (i < e) {
                    const Vectors x = load_run(&p, i, nvec, pend, &pend);
                    store_run(&x, nvec);
                }
            }
        }
    }
    else { /* rows in order, the parts of a row in pairs */
        unsigned pend = last_nibble(&parts[nparts - 1], row0 - 1);
        for (Py_ssize_t i = row0; i < row1; i++) {
            Py_ssize_t k = 0;
            for (; k + 1 < nparts; k += 2) {
                const Vectors x = load_run(&parts[k], i, nvec, pend, &pend);
                const Vectors y = load_run(&parts[k + 1], i, nvec, pend, &pend);
                store_run(&x, nvec);
                store_run(&y, nvec);
            }
            if (k < nparts) {
                const Vectors x = load_run(&parts[k], i, nvec, pend, &pend);
                store_run(&x, nvec);
            }
        }
    }
}

static void vector_rows(const NibblePart *parts, Py_ssize_t nparts, int each, Py_ssize_t sum,
                        Py_ssize_t row0, Py_ssize_t row1, Py_ssize_t nvec)
{
    switch (nvec) { /* a constant in each loop: its vectors stay in registers */
    case 1:
        vector_rows_n(parts, nparts, each, sum, row0, row1, 1);
        break;
    case 2:
        vector_rows_n(parts, nparts, each, sum, row0, row1, 2);
        break;
    case 3:
        vector_rows_n(parts, nparts, each, sum, row0, row1, 3);
        break;
    default:
        vector_rows_n(parts, nparts, each, sum, row0, row1, DM_MAX_VECTORS);
        break;
    }
}
#endif

#if DM_SHUFFLE
#define DM_SHUFFLE_NIBBLES 32            /* nibbles: only where a run is shorter */
#define DM_STREAM_NIBBLE_BYTES (16 << 20) /* non-temporal stores from here, as copy_rows */
/* Runs of 17-31 nibbles take sparse programs only in calls this large. Building such a program
 * costs 20-30 us (build_program compares every lane with every lane), while the stream loops
 * copy those runs at 6-10 GB/s. A/B in one process, one thread, in cache (bench/RESULTS.md,
 * "Long 4-bit runs in mid-sized calls"): calls of 136 KiB took 31-48 us as programs against
 * 14-27 us by the stream loops (runs of 17-31 into 2 or 3); at 512 KiB and more the programs
 * were faster on runs of 17-20 (58-73 against 63-149 us) and even with the loops on longer
 * runs. Shorter runs gain at once: runs of 3 took 20 against 150 us, runs of 16 the same
 * either way at 136 KiB. */
#define DM_SPARSE_NIBBLE_RUN 17
#define DM_SPARSE_NIBBLE_MIN_BYTES (512 << 10)

/* Slot programs: 4-bit splits and joins whose runs are at most 15 nibbles, in rows of at most
 * 60 (bench/RESULTS.md, "Slot programs"). A block of R rows (8; 4 where rows are wider than
 * 30 nibbles) spans at most 120 bytes of packed rows. For a split, each part's R runs of the
 * block are gathered from its (at most two) vectors into 64-bit slots, one byte permute for
 * the part, each shifted down half a byte where its run starts mid-byte and masked to the
 * run's own nibbles: S0. S1 is S0 a nibble up. In the part's output the runs follow each
 * other: byte t takes its low nibble, and the run's next nibble with it, from whichever of
 * S0 and S1 holds the low nibble in a low half; where a run ends in a low half, the next
 * run's first nibble comes from S1's first byte of the next slot (its low half is zero). Two
 * permutes of (S0, S1), or'ed. A join reads the other way: slots from each part's packed
 * stream, then the output's bytes from the parts' slots, two permutes per part and vector.
 * A block's bytes go to an L1 buffer until a group of blocks makes whole 64-byte vectors,
 * which are written as the other programs write theirs (Out). The sparse program loads two
 * staged vectors and an index for every permute and spreads and packs every nibble; here each
 * source vector is loaded once for all the parts, and the loop has a copy for each count of
 * parts (2 to DM_SLOT_PARTS), which keeps the parts' vectors in registers. Rows of 30
 * nibbles split into 2, one thread, in L2: 21 GB/s against 12; joined back: 15 against 11. */

#define DM_SLOT_RUN 15   /* nibbles: a run and the half byte before it fill a 64-bit slot */
#define DM_SLOT_WIDTH 60 /* nibbles: a block's rows and its last slot's bytes fit 128 bytes */
#define DM_SLOT_PARTS 8
#define DM_SLOT_BUFFER 1024 /* bytes: a group's chunks of one destination, and a vector more */

typedef struct {
    unsigned char g[64];        /* slot i takes bytes g[8i], ..., g[8i + 7] of its source */
    uint64_t sh[8];             /* and shifts them down by sh[i] bits */
    uint64_t keep;              /* to the run's bits */
    __mmask64 need;             /* a join: the bytes of a block of the part's stream */
    unsigned char a[2][64];     /* vector v's byte t: byte a[v][t] of (S0, S1) */
    unsigned char b[2][64];     /* or'ed with byte b[v][t], in lanes bl[v] */
    __mmask64 al[2], bl[2];     /* the lanes of each (a join: this part's lanes) */
} SlotPart;

typedef struct {
    Py_ssize_t rows, nparts, join;
    Py_ssize_t in[DM_SLOT_PARTS];    /* bytes of a block: of each source */
    Py_ssize_t chunk[DM_SLOT_PARTS]; /* and of each destination */
    Py_ssize_t blocks;               /* of a group: whole vectors of every destination */
    Py_ssize_t vectors;              /* a join: the vectors of a block of the output */
    __mmask64 need[2];               /* a split: the bytes a block reads */
    SlotPart part[DM_SLOT_PARTS];
} SlotProgram;

static Py_ssize_t gcd(Py_ssize_t a, Py_ssize_t b)
{
    while (b) {
        const Py_ssize_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* The slots of a run of `len` nibbles from nibble q + i * step of a block, i < rows. */
static void plan_slots(SlotPart *p, Py_ssize_t rows, Py_ssize_t q, Py_ssize_t step,
                       Py_ssize_t len)
{
    memset(p, 0, sizeof *p);
    for (Py_ssize_t i = 0; i < rows; i++, q += step) {
        for (Py_ssize_t j = 0; j < 8; j++) {
            p->g[8 * i + j] = (unsigned char)(q / 2 + j);
        }
        p->sh[i] = 4 * (uint64_t)(q & 1);
    }
    p->keep = ((uint64_t)1 << (4 * len)) - 1;
}

/* Lane `lane` of output vector v takes nibble m of a block (a low half) from slot i of part
 * p at nibble u of its run, and (where the run ends there) nibble m + 1 from slot i2 of part
 * p2, at the start of its run. */
static void plan_byte(SlotPart *p, SlotPart *p2, Py_ssize_t v, Py_ssize_t lane, Py_ssize_t i,
                      Py_ssize_t u, Py_ssize_t len, Py_ssize_t i2)
{
    p->a[v][lane] = (unsigned char)((u & 1 ? 64 : 0) + 8 * i + (u + 1) / 2);
    p->al[v] |= (__mmask64)1 << lane;
    if (u == len - 1) {
        p2->b[v][lane] = (unsigned char)(64 + 8 * i2);
        p2->bl[v] |= (__mmask64)1 << lane;
    }
}

/* Where slot programs beat the sparse ones. A slot program's work grows with the parts (three
 * permutes for each part of a block, a join more: each part's slots go into both of the
 * block's output vectors), a sparse program's with the pieces in an output vector (short
 * runs). Measured on the reference machine, one thread, in L2, with equal runs: bench/RESULTS.md
 * ("Slot programs"). */
static int slots_pay(const Py_ssize_t *runs, Py_ssize_t nparts, int join)
{
    Py_ssize_t width = 0, shortest = runs[0];
    for (Py_ssize_t k = 0; k < nparts; k++) {
        width += runs[k];
        shortest = runs[k] < shortest ? runs[k] : shortest;
    }
    if (join) {
        return nparts == 2 && width <= DM_SLOT_WIDTH / 2 && shortest >= 10;
    }
    if (width <= DM_SLOT_WIDTH / 2) {
        return shortest >= 10 || (nparts >= 4 && shortest >= 6);
    }
    return shortest >= 11;
}

/* Plans a slot program for a split (join 0) or join of parts of runs[k] nibbles; 0 where it
 * does not apply. */
static int plan_slot_program(SlotProgram *sp, const Py_ssize_t *runs, Py_ssize_t nparts,
                             int join)
{
    Py_ssize_t width = 0, at[DM_SLOT_PARTS];
    if (nparts > DM_SLOT_PARTS) {
        return 0;
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        if (runs[k] < 1 || runs[k] > DM_SLOT_RUN) {
            return 0;
        }
        at[k] = width;
        width += runs[k];
    }
    if (width > DM_SLOT_WIDTH) {
        return 0;
    }
    const Py_ssize_t rows = width <= DM_SLOT_WIDTH / 2 ? 8 : 4;
    sp->rows = rows, sp->nparts = nparts, sp->join = join;
    sp->need[0] = sp->need[1] = 0;
    Py_ssize_t blocks = 1; /* the least common multiple of each destination's */
    for (Py_ssize_t k = 0; k < nparts; k++) {
        SlotPart *p = &sp->part[k];
        const Py_ssize_t len = runs[k], part = rows * len / 2; /* bytes of a block */
        if (!join) {
            plan_slots(p, rows, at[k], width, len);
            for (Py_ssize_t i = 0; i < rows; i++) { /* the bytes its runs are in */
                const Py_ssize_t q = i * width + at[k];
                for (Py_ssize_t byte = q / 2; byte <= (q + len - 1) / 2; byte++) {
                    sp->need[byte / 64] |= (__mmask64)1 << (byte % 64);
                }
            }
            for (Py_ssize_t t = 0; t < part; t++) {
                plan_byte(p, p, 0, t, 2 * t / len, 2 * t % len, len, 2 * t / len + 1);
            }
            sp->in[k] = rows * width / 2;
            sp->chunk[k] = part;
        }
        else {
            plan_slots(p, rows, 0, len, len);
            p->need = ~(__mmask64)0 >> (64 - part);
            sp->in[k] = part;
            sp->chunk[k] = rows * width / 2;
        }
        const Py_ssize_t each = 64 / gcd(sp->chunk[k], 64);
        blocks = blocks / gcd(blocks, each) * each;
    }
    if (join) {
        const Py_ssize_t bytes = rows * width / 2;
        sp->vectors = (bytes + 63) / 64;
        for (Py_ssize_t t = 0; t < bytes; t++) {
            const Py_ssize_t m = 2 * t, i = m / width, col = m % width;
            Py_ssize_t k = 0, k2 = 0;
            while (col >= at[k] + runs[k]) {
                k++;
            }
            const Py_ssize_t i2 = (m + 1) / width, col2 = (m + 1) % width;
            while (col2 >= at[k2] + runs[k2]) {
                k2++;
            }
            plan_byte(&sp->part[k], &sp->part[k2], t / 64, t % 64, i, col - at[k], runs[k], i2);
        }
    }
    /* Whole vectors are loaded from a block's first byte in every group but the last: a group
     * of every source is to hold at least the 128 bytes read from its last block's. */
    for (Py_ssize_t k = 0; k < (join ? nparts : 1); k++) {
        while (blocks * sp->in[k] < 128) {
            blocks *= 2;
        }
    }
    sp->blocks = blocks;
    for (Py_ssize_t k = 0; k < nparts; k++) { /* each block stores whole vectors */
        const Py_ssize_t end = (blocks - 1) * sp->chunk[k] + 64 * (join ? sp->vectors : 1);
        if (end > (join ? DM_SLOT_PARTS : 1) * DM_SLOT_BUFFER) {
            return 0;
        }
    }
    return 1;
}

/* A part's slots, S0 (and S1, a nibble up), from the bytes of its block (in two vectors). */
DM_VBMI DM_INLINE __m512i slots(const SlotPart *p, __m512i x, __m512i y)
{
    const __m512i g = _mm512_loadu_si512((const void *)p->g);
    const __m512i sh = _mm512_loadu_si512((const void *)p->sh);
    return _mm512_and_si512(_mm512_srlv_epi64(_mm512_permutex2var_epi8(x, g, y), sh),
                            _mm512_set1_epi64((long long)p->keep));
}

/* Vector v's lanes of part p from its slots. */
DM_VBMI DM_INLINE __m512i from_slots(const SlotPart *p, Py_ssize_t v, __m512i s0, __m512i s1)
{
    __m512i r = _mm512_setzero_si512();
    if (p->al[v]) {
        const __m512i a = _mm512_loadu_si512((const void *)p->a[v]);
        r = _mm512_maskz_permutex2var_epi8(p->al[v], s0, a, s1);
    }
    if (p->bl[v]) {
        const __m512i b = _mm512_loadu_si512((const void *)p->b[v]);
        r = _mm512_or_si512(r, _mm512_maskz_permutex2var_epi8(p->bl[v], s0, b, s1));
    }
    return r;
}

/* A vector of a block's sources: masked to the bytes the runs are in where it would read past
 * the call's rows (`masked`, a constant: the last group). Masked loads everywhere ran at a
 * third of the speed from memory: they seem not to start the hardware prefetcher. */
DM_VBMI DM_INLINE __m512i block_vector(const unsigned char *s, __mmask64 need, const int masked)
{
    return masked ? _mm512_maskz_loadu_epi8(need, (const void *)s)
                  : _mm512_loadu_si512((const void *)s);
}

/* The blocks of a group, their bytes to buf: destination d's at buf + d * DM_SLOT_BUFFER (a
 * split) or at buf (a join); done[s]: source s's bytes before the group, moved past it. */
DM_VBMI DM_INLINE void slot_group(const SlotProgram *sp, const unsigned char *const *src,
                                  Py_ssize_t *done, unsigned char *buf, const int masked,
                                  const Py_ssize_t n)
{
    for (Py_ssize_t c = 0; c < sp->blocks; c++) {
        if (!sp->join) {
            const unsigned char *s = src[0] + done[0];
            const __m512i x = block_vector(s, sp->need[0], masked);
            const __m512i y = block_vector(s + 64, sp->need[1], masked);
            for (Py_ssize_t k = 0; k < n; k++) {
                const SlotPart *p = &sp->part[k];
                const __m512i s0 = slots(p, x, y);
                const __m512i r = from_slots(p, 0, s0, _mm512_slli_epi64(s0, 4));
                _mm512_storeu_si512((void *)(buf + k * DM_SLOT_BUFFER + c * sp->chunk[k]), r);
            }
            done[0] += sp->in[0];
            continue;
        }
        __m512i s0[DM_SLOT_PARTS], s1[DM_SLOT_PARTS];
        for (Py_ssize_t k = 0; k < n; k++) {
            const SlotPart *p = &sp->part[k];
            const __m512i x = block_vector(src[k] + done[k], p->need, masked);
            s0[k] = slots(p, x, x);
            s1[k] = _mm512_slli_epi64(s0[k], 4);
            done[k] += sp->in[k];
        }
        for (Py_ssize_t v = 0; v < sp->vectors; v++) {
            __m512i r = _mm512_setzero_si512();
            for (Py_ssize_t k = 0; k < n; k++) {
                r = _mm512_or_si512(r, from_slots(&sp->part[k], v, s0[k], s1[k]));
            }
            _mm512_storeu_si512((void *)(buf + c * sp->chunk[0] + 64 * v), r);
        }
    }
}

/* slot_group with its constants: a copy of the loop for each count of parts, so that the
 * compiler unrolls the loops over them and keeps their vectors in registers. */
DM_VBMI static void slot_groups(const SlotProgram *sp, const unsigned char *const *src,
                                Py_ssize_t *done, unsigned char *buf, int last)
{
    switch (sp->nparts * 2 + last) {
#define DM_SLOT_CASE(n)                                                                           \
    case 2 * n:                                                                                   \
        slot_group(sp, src, done, buf, 0, n);                                                     \
        break;                                                                                    \
    case 2 * n + 1:                                                                               \
        slot_group(sp, src, done, buf, 1, n);                                                     \
        break;
        DM_SLOT_CASE(2)
        DM_SLOT_CASE(3)
        DM_SLOT_CASE(4)
        DM_SLOT_CASE(5)
        DM_SLOT_CASE(6)
        DM_SLOT_CASE(7)
        DM_SLOT_CASE(8)
#undef DM_SLOT_CASE
    }
}

/* Groups [0, groups) of blocks: sources src[s], destinations dst[d], at group 0's first byte. */
DM_VBMI static void run_slots(const SlotProgram *sp, const unsigned char *const *src,
                              unsigned char *const *dst, Py_ssize_t groups, int streaming)
{
    const Py_ssize_t ndst = sp->join ? 1 : sp->nparts, nsrc = sp->join ? sp->nparts : 1;
    _Alignas(64) unsigned char buf[2 * DM_SLOT_PARTS * DM_SLOT_BUFFER]; /* two halves */
    Out outs[DM_SLOT_PARTS];
    Py_ssize_t done[DM_SLOT_PARTS];
    for (Py_ssize_t d = 0; d < ndst; d++) {
        out_begin(&outs[d], dst[d], streaming);
    }
    for (Py_ssize_t s = 0; s < nsrc; s++) {
        done[s] = 0;
    }
    __atomic_fetch_add(&programs_run[3], 1, __ATOMIC_RELAXED);
    /* Group g's bytes go to one half of the buffer while group g - 1's are written out from
     * the other: a load that spans stores still in flight waits for them (no forwarding),
     * and reading a group straight after writing it cost a third of the speed in L2. */
    for (Py_ssize_t g = 0; g <= groups; g++) {
        unsigned char *half = buf + (g & 1) * DM_SLOT_PARTS * DM_SLOT_BUFFER;
        if (g < groups) {
            slot_groups(sp, src, done, half, g + 1 == groups);
        }
        if (g == 0) {
            continue;
        }
        half = buf + ((g - 1) & 1) * DM_SLOT_PARTS * DM_SLOT_BUFFER;
        for (Py_ssize_t d = 0; d < ndst; d++) {
            const unsigned char *b = half + d * DM_SLOT_BUFFER;
            for (Py_ssize_t v = 0; v < sp->blocks * sp->chunk[d] / 64; v++) {
                out_put(&outs[d], _mm512_load_si512((const void *)(b + 64 * v)), streaming);
            }
        }
    }
    for (Py_ssize_t d = 0; d < ndst; d++) {
        out_end(&outs[d]);
    }
    if (streaming) {
        _mm_sfence();
    }
}

/* Nibbles: rows [*g0, *g1) of a split (each: packed outputs, from packed input rows) or a join
 * (one: a packed output, from packed sources), copied by a shuffle program. The rows start at
 * a row where every stream starts on a whole byte (row0 or row0 + 1), so the program writes
 * only whole bytes of its rows; the rows before and after are the caller's. Leaves *g0, *g1 as
 * they were where it does not apply. */
static void shuffle_nibbles(const NibblePart *parts, Py_ssize_t nparts, int each, int one,
                            Py_ssize_t row0, Py_ssize_t row1, Py_ssize_t *g0, Py_ssize_t *g1)
{
    if (!have_vbmi || nparts < 2 || nparts > DM_SHUFFLE_WIDTH || !(each || one)) {
        return;
    }
    Py_ssize_t runs[DM_SHUFFLE_WIDTH], width = 0, shortest = parts[0].run;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        runs[k] = parts[k].run;
        width += runs[k];
        shortest = runs[k] < shortest ? runs[k] : shortest;
    }
    const Py_ssize_t bytes = (row1 - row0) * width / 2;
    if (shortest >= DM_SHUFFLE_NIBBLES || bytes < DM_SHUFFLE_MIN_BYTES ||
        (shortest >= DM_SPARSE_NIBBLE_RUN && bytes < DM_SPARSE_NIBBLE_MIN_BYTES)) {
        return;
    }
    int split = each, join = one;
    for (Py_ssize_t k = 0, at = 0; k < nparts; at += runs[k], k++) {
        const NibblePart *p = &parts[k];
        split = split && p->src == parts[0].src && p->src_first == parts[0].src_first + at &&
                p->src_stride == width;
        join = join && p->src_stride == p->run;
    }
    if (!split && !join) {
        return;
    }
    /* The first row where every stream starts on a whole byte: the parts' outputs and the
     * input's rows (a split), or the parts' sources and the output's rows (a join). A part's
     * own place in a row may be mid-byte: the program moves it nibble by nibble. */
    Py_ssize_t start = -1;
    for (Py_ssize_t r = row0; r < row0 + 2 && start < 0; r++) {
        const NibblePart *p0 = &parts[0];
        int whole = ((split ? p0->src_first + r * p0->src_stride
                            : p0->dst_first + r * p0->dst_stride) & 1) == 0;
        for (Py_ssize_t k = 0; k < nparts; k++) {
            const NibblePart *p = &parts[k];
            whole = whole && ((split ? p->dst_first + r * p->dst_stride
                                     : p->src_first + r * p->src_stride) & 1) == 0;
        }
        start = whole ? r : start;
    }
    const unsigned char *src[DM_SHUFFLE_WIDTH];
    unsigned char *dst[DM_SHUFFLE_WIDTH];
    SlotProgram sp;
    if (start >= 0 && slots_pay(runs, nparts, !split) &&
        plan_slot_program(&sp, runs, nparts, !split)) {
        const Py_ssize_t rows = sp.rows * sp.blocks; /* of a group */
        const Py_ssize_t groups = (row1 - start) / rows;
        if (groups >= 2) {
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const NibblePart *p = &parts[k];
                src[k] = p->src + ((p->src_first + start * p->src_stride) >> 1);
                dst[k] = p->dst + ((p->dst_first + start * p->dst_stride) >> 1);
            }
            run_slots(&sp, src, dst, groups, groups * rows * width / 2 >= DM_STREAM_NIBBLE_BYTES);
            *g0 = start;
            *g1 = start + groups * rows;
            return;
        }
    }
    const Py_ssize_t periods = start < 0 ? 0 : (row1 - start) / 128;
    Program pg;
    if (periods < 2 || !plan_program(&pg, runs, nparts, !split, 1, 128 * nparts)) {
        return;
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const NibblePart *p = &parts[k];
        src[k] = p->src + ((p->src_first + start * p->src_stride) >> 1);
        dst[k] = p->dst + ((p->dst_first + start * p->dst_stride) >> 1);
    }
    const int streaming = DM_STREAMING && periods * 64 * width >= DM_STREAM_NIBBLE_BYTES;
    run_program(&pg, src, dst, periods, streaming);
    PyMem_RawFree(pg.ops);
    *g0 = start;
    *g1 = start + 128 * periods;
}
#endif

/* Rows [row0, row1) of copy_nibble_rows: as streams (each/one), or row by row. */
static void nibble_range(const NibblePart *parts, Py_ssize_t nparts, int each, Py_ssize_t sum,
                         NibbleStream *streams, Py_ssize_t row0, Py_ssize_t row1)
{
    if (streams != NULL) {
        const Py_ssize_t count = each ? nparts : 1;
        for (Py_ssize_t k = 0; k < count; k++) {
            const NibblePart *p = &parts[k];
            stream_begin(&streams[k], p->dst, p->dst_first + row0 * p->dst_stride);
        }
        Py_ssize_t f0 = row1, f1 = row1; /* rows taken as whole vectors: none */
#if DM_SSE2
        Py_ssize_t nvec = 0; /* the vectors of the longest run */
        for (Py_ssize_t k = 0; k < nparts; k++) {
            nvec = vectors_of(parts[k].run) > nvec ? vectors_of(parts[k].run) : nvec;
        }
        if (nvec <= DM_MAX_VECTORS) {
            fast_rows(parts, nparts, !each, nvec, row0, row1, &f0, &f1);
        }
        if (f0 >= f1) {
            f0 = f1 = row1;
        }
#endif
        stream_rows(parts, nparts, each, sum, streams, row0, f0);
#if DM_SSE2
        if (f0 < f1) {
            vector_rows(parts, nparts, each, sum, f0, f1, nvec);
            for (Py_ssize_t k = 0; k < count; k++) {
                const NibblePart *p = &parts[k];
                const Py_ssize_t pos = p->dst_first + f1 * p->dst_stride;
                stream_begin(&streams[k], p->dst, pos);
                if (pos & 1) { /* the low half of the byte before: the previous run's last */
                    streams[k].odd = 0;
                    streams[k].has = 1;
                    streams[k].dst--;
                    streams[k].pend = last_nibble(each ? p : &parts[nparts - 1], f1 - 1);
                }
            }
        }
#endif
        stream_rows(parts, nparts, each, sum, streams, f1, row1);
        for (Py_ssize_t k = 0; k < count; k++) {
            stream_end(&streams[k], 1);
        }
    }
    else {
        for (Py_ssize_t i = row0; i < row1; i++) {
            for (Py_ssize_t k = 0; k < nparts; k++) {
                const NibblePart *p = &parts[k];
                nibble_row(p->dst, p->dst_first + i * p->dst_stride, p->src,
                           p->src_first + i * p->src_stride, p->run, i == row0 || i == row1 - 1);
            }
        }
    }
}

static PyObject *copy_nibble_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *seq;
    Py_ssize_t row0, row1;
    if (!PyArg_ParseTuple(args, "Onn:copy_nibble_rows", &seq, &row0, &row1)) {
        return NULL;
    }
    PyObject *fast = PySequence_Fast(seq, "copy_nibble_rows: parts must be a sequence");
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t nparts = PySequence_Fast_GET_SIZE(fast);
    NibblePart *parts = PyMem_Malloc(sizeof(NibblePart) * (size_t)(nparts > 0 ? nparts : 1));
    if (parts == NULL) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        Py_ssize_t dst, src;
        NibblePart *p = &parts[k];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, k), "nnnnnnn:copy_nibble_rows part",
                              &dst, &p->dst_first, &p->dst_stride, &src, &p->src_first,
                              &p->src_stride, &p->run)) {
            PyMem_Free(parts);
            Py_DECREF(fast);
            return NULL;
        }
        if (p->run < 0 || p->dst_first < 0 || p->src_first < 0) {
            PyMem_Free(parts);
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "copy_nibble_rows: negative run or offset");
            return NULL;
        }
        p->dst = (unsigned char *)dst;
        p->src = (const unsigned char *)src;
    }
    Py_DECREF(fast);
    /* Streams: each part its own (a split), or all parts one (a join), or none. */
    int each = nparts > 0, one = nparts > 0;
    Py_ssize_t sum = 0;
    for (Py_ssize_t k = 0; k < nparts; k++) {
        const NibblePart *p = &parts[k];
        each = each && p->run > 0 && p->dst_stride == p->run;
        if (k > 0) {
            const NibblePart *b = &parts[k - 1];
            one = one && p->dst == b->dst && p->dst_first == b->dst_first + b->run;
        }
        sum += p->run;
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        one = one && parts[k].dst_stride == sum && parts[k].run > 0;
    }
    NibbleStream *streams = NULL;
    if ((each || one) && row1 > row0) {
        streams = PyMem_Malloc(sizeof(NibbleStream) * (size_t)nparts);
        if (streams == NULL) {
            PyMem_Free(parts);
            return PyErr_NoMemory();
        }
    }
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t g0 = row1, g1 = row1; /* rows taken by a shuffle program: none */
#if DM_SHUFFLE
    shuffle_nibbles(parts, nparts, each, one, row0, row1, &g0, &g1);
#endif
    if (row0 < g0) {
        nibble_range(parts, nparts, each, sum, streams, row0, g0);
    }
    if (g1 < row1) {
        nibble_range(parts, nparts, each, sum, streams, g1, row1);
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(streams);
    PyMem_Free(parts);
    Py_RETURN_NONE;
}

/* ---- cached plans of the OpenVINO operators -----------------------------------------------
 *
 * A call of split, variadic_split or strided_slice on a NumPy array whose plan (the NumPy
 * index of every output) an earlier call validated is answered here in one C function.
 *
 * plan_key(ndarray, op, shape, *params) is the call's key in the plan cache of
 * datamove._plans: bytes holding int64 words: op, the rank, the shape, then per parameter
 * its kind and length in one word (kind 0 None, 1 an int, 2 a vector: a list, a tuple or a
 * 1-D NumPy integer array, which every operator treats alike), then its values. It is built
 * only from values that are exact Python ints within int64 (never bool, float or an
 * integer-like object: those take the Python path, which validates them and names them),
 * lists and tuples of them, 1-D NumPy arrays of a native integer type, and None, at most
 * DM_KEY_WORDS words in all. Anything else gives None. The key keeps each parameter's kind, so
 * a hit is a call with the same kinds and values as the one that stored the plan.
 *
 * plan_hit(plans, ndarray, op, data, *params): when data is exactly an `ndarray` and `plans`
 * (a dict from those keys to datamove._plan.Plan tuples) holds the call's key, the plan's
 * outputs: data[indices[0]] for a single-output plan, else a tuple of data[i] for every i in
 * its indices; otherwise None. The op is only a tag of the key: its meaning lives in the plan.
 * Only validated plans are ever stored, so a hit answers exactly as a miss would.
 */

#define DM_KEY_WORDS 256
#define DM_MAX_PARAMS 8

static int
key_values(PyObject *value, PyObject *ndarray, long long *words, Py_ssize_t *n)
{
    /* Appends a kind-and-length word, then the values of `value`, to words[*n...]; returns 0,
     * or -1 for a value the key does not take. Never leaves an exception set. */
    if (*n >= DM_KEY_WORDS) {
        return -1;
    }
    Py_ssize_t head = (*n)++;
    if (value == Py_None) {
        words[head] = 0;
        return 0;
    }
    if (PyLong_CheckExact(value)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow || *n >= DM_KEY_WORDS) {
            return -1;
        }
        words[head] = 1;
        words[(*n)++] = x;
        return 0;
    }
    if (PyList_CheckExact(value) || PyTuple_CheckExact(value)) {
        Py_ssize_t len = PySequence_Fast_GET_SIZE(value);
        if (len > DM_KEY_WORDS - *n) {
            return -1;
        }
        PyObject **items = PySequence_Fast_ITEMS(value);
        for (Py_ssize_t i = 0; i < len; i++) {
            int overflow;
            if (!PyLong_CheckExact(items[i])) {
                return -1;
            }
            long long x = PyLong_AsLongLongAndOverflow(items[i], &overflow);
            if (overflow) { /* Python ints beyond int64: the Python path */
                return -1;
            }
            words[(*n)++] = x;
        }
        words[head] = 2 + ((long long)len << 8);
        return 0;
    }
    if ((PyObject *)Py_TYPE(value) != ndarray) {
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(value, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return -1;
    }
    int result = -1;
    const char *f = view.format;
    int is_signed = -1;
    if (view.ndim == 1 && f != NULL && f[0] != '\0' && f[1] == '\0') {
        switch (f[0]) {
        case 'b': case 'h': case 'i': case 'l': case 'q': is_signed = 1; break;
        case 'B': case 'H': case 'I': case 'L': case 'Q': is_signed = 0; break;
        default: break;
        }
    }
    Py_ssize_t size = view.itemsize;
    if (is_signed >= 0 && (size == 1 || size == 2 || size == 4 || size == 8) &&
        view.shape[0] <= DM_KEY_WORDS - *n) {
        Py_ssize_t len = view.shape[0];
        result = 0;
        for (Py_ssize_t i = 0; i < len; i++) {
            const char *p = (const char *)view.buf + i * view.strides[0];
            long long x;
            if (is_signed) {
                switch (size) {
                case 1: { int8_t t; memcpy(&t, p, 1); x = t; break; }
                case 2: { int16_t t; memcpy(&t, p, 2); x = t; break; }
                case 4: { int32_t t; memcpy(&t, p, 4); x = t; break; }
                default: { int64_t t; memcpy(&t, p, 8); x = t; break; }
                }
            }
            else {
                uint64_t u;
                switch (size) {
                case 1: { uint8_t t; memcpy(&t, p, 1); u = t; break; }
                case 2: { uint16_t t; memcpy(&t, p, 2); u = t; break; }
                case 4: { uint32_t t; memcpy(&t, p, 4); u = t; break; }
                default: { memcpy(&u, p, 8); break; }
                }
                if (u > (uint64_t)INT64_MAX) { /* beyond int64: the Python path */
                    result = -1;
                    break;
                }
                x = (long long)u;
            }
            words[(*n)++] = x;
        }
        words[head] = 2 + ((long long)len << 8);
    }
    PyBuffer_Release(&view);
    return result;
}

static PyObject *
build_key(PyObject *ndarray, PyObject *op, PyObject *shape, PyObject *const *params,
          Py_ssize_t nparams)
{
    /* A new reference to the key; Py_None (new reference) when the key does not take these
     * values; NULL with an exception set. */
    long long words[DM_KEY_WORDS];
    Py_ssize_t rank = PyTuple_GET_SIZE(shape);
    if (!PyLong_CheckExact(op) || rank > DM_KEY_WORDS - 2 - nparams) {
        Py_RETURN_NONE;
    }
    Py_ssize_t n = 0;
    words[n++] = PyLong_AsLong(op);
    words[n++] = rank;
    for (Py_ssize_t i = 0; i < rank; i++) {
        long long d = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
        if (d == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        words[n++] = d;
    }
    for (Py_ssize_t i = 0; i < nparams; i++) {
        if (key_values(params[i], ndarray, words, &n) < 0) {
            Py_RETURN_NONE;
        }
    }
    return PyBytes_FromStringAndSize((const char *)words, n * (Py_ssize_t)sizeof(long long));
}

static PyObject *plan_key(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 3 || nargs > 3 + DM_MAX_PARAMS) {
        PyErr_SetString(PyExc_TypeError, "plan_key(ndarray, op, shape, *params)");
        return NULL;
    }
    if (!PyTuple_CheckExact(args[2])) {
        Py_RETURN_NONE;
    }
    return build_key(args[0], args[1], args[2], args + 3, nargs - 3);
}

static PyObject *shape_name;

static PyObject *plan_hit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 4 || nargs > 4 + DM_MAX_PARAMS || !PyDict_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "plan_hit(plans: dict, ndarray, op, data, *params)");
        return NULL;
    }
    PyObject *ndarray = args[1];
    PyObject *data = args[3];
    if ((PyObject *)Py_TYPE(data) != ndarray) {
        Py_RETURN_NONE;
    }
    PyObject *shape = PyObject_GetAttr(data, shape_name);
    if (shape == NULL) {
        return NULL;
    }
    if (!PyTuple_CheckExact(shape)) {
        Py_DECREF(shape);
        Py_RETURN_NONE;
    }
    PyObject *key = build_key(ndarray, args[2], shape, args + 4, nargs - 4);
    Py_DECREF(shape);
    if (key == NULL || key == Py_None) {
        return key;
    }
    PyObject *index = PyDict_GetItemWithError(args[0], key); /* borrowed */
    Py_DECREF(key);
    if (index == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    /* The plan is a datamove._plan.Plan, a tuple: (indices, single, ...). Hold it: another
     * thread may drop the dict's entry while we index. */
    Py_INCREF(index);
    PyObject *out;
    PyObject *indices = PyTuple_Check(index) && PyTuple_GET_SIZE(index) >= 2
                            ? PyTuple_GET_ITEM(index, 0)
                            : NULL;
    if (indices == NULL || !PyTuple_CheckExact(indices)) {
        PyErr_SetString(PyExc_TypeError, "plan_hit: a plan must be (indices: tuple, single, ...)");
        out = NULL;
    }
    else if (PyTuple_GET_ITEM(index, 1) == Py_True) { /* one output: data[indices[0]] */
        out = PyTuple_GET_SIZE(indices) == 1
                  ? PyObject_GetItem(data, PyTuple_GET_ITEM(indices, 0))
                  : (PyErr_SetString(PyExc_TypeError, "plan_hit: a single plan has one index"),
                     NULL);
    }
    else {
        Py_ssize_t count = PyTuple_GET_SIZE(indices);
        out = PyTuple_New(count);
        for (Py_ssize_t i = 0; out != NULL && i < count; i++) {
            PyObject *chunk = PyObject_GetItem(data, PyTuple_GET_ITEM(indices, i));
            if (chunk == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyTuple_SET_ITEM(out, i, chunk);
        }
    }
    Py_DECREF(index);
    return out;
}

static PyObject *shuffle_counts(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *counts = PyTuple_New(DM_PROGRAMS);
    for (Py_ssize_t i = 0; counts != NULL && i < DM_PROGRAMS; i++) {
#if DM_SHUFFLE
        const Py_ssize_t n = __atomic_load_n(&programs_run[i], __ATOMIC_RELAXED);
#else
        const Py_ssize_t n = 0;
#endif
        PyObject *item = PyLong_FromSsize_t(n);
        if (item == NULL) {
            Py_CLEAR(counts);
            break;
        }
        PyTuple_SET_ITEM(counts, i, item);
    }
    return counts;
}

static PyMethodDef methods[] = {
    {"shuffle_counts", shuffle_counts, METH_NOARGS,
     "shuffle_counts(): programs run so far (dense, sparse on bytes, on nibbles, slots, line "
     "splits in place, staged)."},
    {"copy_rows", copy_rows, METH_VARARGS,
     "copy_rows(parts, row0, row1, streaming): copy rows [row0, row1) of every part."},
    {"copy_nibble_rows", copy_nibble_rows, METH_VARARGS,
     "copy_nibble_rows(parts, row0, row1): copy rows [row0, row1) of 4-bit elements."},
    {"plan_key", (PyCFunction)(void (*)(void))plan_key, METH_FASTCALL,
     "plan_key(ndarray, op, shape, *params): the key of a cached plan, or None."},
    {"plan_hit", (PyCFunction)(void (*)(void))plan_hit, METH_FASTCALL,
     "plan_hit(plans, ndarray, op, data, *params): a cached call's outputs, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "datamove._kernels", "The copy engine's compiled row loop.", -1,
    methods,
};

PyMODINIT_FUNC PyInit__kernels(void)
{
    shape_name = PyUnicode_InternFromString("shape");
    if (shape_name == NULL) {
        return NULL;
    }
#if DM_SHUFFLE
    __builtin_cpu_init();
    have_vbmi = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vbmi");
    const int shuffle = have_vbmi;
#else
    const int shuffle = 0;
#endif
    PyObject *m = PyModule_Create(&module);
#if defined(__GNUC__) || defined(__clang__)
    const int atomic_nibbles = 1;
#else
    const int atomic_nibbles = 0;
#endif
    if (m != NULL && (PyModule_AddIntConstant(m, "STREAMING", DM_STREAMING) < 0 ||
                      PyModule_AddIntConstant(m, "ATOMIC_NIBBLES", atomic_nibbles) < 0 ||
                      PyModule_AddIntConstant(m, "SHUFFLE", shuffle) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
