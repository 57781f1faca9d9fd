/* AVX-512 VBMI programs for the row loops (their contracts, and the figures that keep them:
 * kernels.h).
 *
 * Three kinds, each for layouts where the row loops of rows.c and nibbles.c move too little per
 * instruction: shuffle programs (runs of 1-3 bytes or of under 32 nibbles, as byte permutes of
 * whole 64-byte vectors, dense or sparse), line splits (runs of 64 bytes to 4 KiB, written as
 * whole streamed lines) and slot programs (4-bit runs of up to 15 nibbles). This is the only file
 * compiled with AVX-512 instructions, in the functions marked DM_VBMI; the rest of it is plain C
 * that builds the programs. Every entry point asks dm_have_vbmi() first and does nothing on a
 * CPU without AVX-512 F, BW and VBMI, so the module loads and runs everywhere.
 */
#include "kernels.h"

#if DM_SHUFFLE
#include <immintrin.h>

#define DM_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

int dm_have_vbmi(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
}

/* Programs run: dense, sparse on bytes, sparse on nibbles, slots, line splits in place and
 * staged (for tests of the routing; kernels.h says why they are process-wide) */
static Py_ssize_t programs_run[DM_PROGRAMS];

void dm_shuffle_counts(Py_ssize_t counts[DM_PROGRAMS])
{
    for (int i = 0; i < DM_PROGRAMS; i++) {
        counts[i] = __atomic_load_n(&programs_run[i], __ATOMIC_RELAXED);
    }
}

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
 * per 64 bytes out, where the row loops (rows.c) move one run at a time (a load and a store or
 * more for each run). A block of periods of the sources is first staged in L1: copied to
 * aligned scratch (no load splits a line), or for nibbles spread one to a byte, to be packed
 * back two to a byte after the permutes. A period reads exactly its rows' bytes and writes
 * exactly its rows' bytes, which start on whole bytes (the caller picks such rows for nibbles),
 * so threads may take any ranges of whole periods. Only CPUs with AVX-512 VBMI (Intel since Ice
 * Lake, AMD since Zen 4) take this path (dm_have_vbmi, on each call); elsewhere the row loops
 * do the work. Rows of bytes up to DM_DENSE_WIDTH wide take a dense program instead (see
 * build_dense): no staging, each source vector loaded once per period, the outputs' vectors
 * kept in registers. Runs of 1 byte split 7 ways: 0.1-0.3 of memcpy in the row loops, 0.5-0.8
 * as sparse programs, 1.1-1.5 as dense ones; runs of 3 bytes 0.6-0.8, 0.85-1.3 and 0.95-1.75
 * (bench/HISTORY.md, "Runs of 1-3 bytes ... as shuffle programs", "Dense shuffle programs").
 * 4-bit runs of 10-15 nibbles mostly take slot programs (see "Slot programs" below): no
 * spreading, each source vector loaded once for all the parts. */

#define DM_SHUFFLE_WIDTH 64    /* the widest row, in units */
#define DM_SCRATCH_BYTES 16384 /* the sources of a block of periods, staged */
#define DM_SHUFFLE_RUN 4       /* bytes: only where a run is shorter */
#define DM_SHUFFLE_MIN_BYTES (128 << 10) /* and only calls this large: building takes ~5 us */
#define DM_DENSE_WIDTH 16      /* bytes: rows this wide or less take dense programs */

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
    /* the callers checked dm_have_vbmi() and 2 <= nparts <= DM_SHUFFLE_WIDTH */
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

/* Whether a sparse program (bytes, rows over DM_DENSE_WIDTH) beats the row loops: a split only
 * where its rows are at most 24 bytes and its runs all have one length, 1 or 2 bytes (3 in
 * calls that do not stream); a join only where its rows are at most 32 bytes and, in calls
 * that stream, it has 4 parts or more. Elsewhere the row loops ran as fast or faster
 * (copy_rows, one thread, 32 MiB streamed and 1 MiB in cache, fractions of memcpy; kernels.h
 * has the table):
 * - a split's output vectors each take W / (2 L) + 1 permutes (L: its shortest run), all of
 *   them as many as the worst one needs, from a table of 128 bytes a permute: wide rows, runs
 *   of 3 bytes (streamed) and mixed runs pay more than the row loops' one move a run. 3 x 16
 *   0.24 as a program, 0.31 as rows (1 MiB: 0.08, 0.15); 2 x 32 0.17, 0.25; 3 x 8 0.29, 0.38
 *   (in cache 0.16 both); [2, 2, 14] 0.31, 0.72.
 * - a streamed join of 2-3 parts is 2-3 moves a row in the row loops: [1, 16] 0.52 against
 *   0.77, [3, 14] 0.54 against 0.72 (in cache the program wins: 0.27 against 0.25). */
static int sparse_pays(const Py_ssize_t *runs, Py_ssize_t nparts, Py_ssize_t width, int split,
                       int streaming)
{
    if (!split) {
        return width <= 32 && (nparts >= 4 || !streaming);
    }
    for (Py_ssize_t k = 0; k < nparts; k++) {
        if (runs[k] != runs[0]) {
            return 0;
        }
    }
    return width <= 24 && runs[0] <= (streaming ? 2 : 3);
}

/* Bytes: rows [row0, returned row) of a split or join copied by a shuffle program. */
Py_ssize_t dm_shuffle_rows(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0, Py_ssize_t row1,
                           int streaming)
{
    const Py_ssize_t periods = (row1 - row0) / 64;
    if (!dm_have_vbmi() || nparts < 2 || nparts > DM_SHUFFLE_WIDTH || periods < 4) {
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
    if (!(split || join) ||
        (width > DM_DENSE_WIDTH && !sparse_pays(runs, nparts, width, split, streaming)) ||
        !plan_program(&pg, runs, nparts, !split, 0, 32 * nparts)) {
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

#if DM_STREAMING
/* Line splits: runs of a cache line or more, into packed outputs ----------------------------
 *
 * A split whose runs are all 64 bytes or more (and not whole aligned words, which the streamed
 * words of put handle), in a call that streams, writes each output as whole aligned 64-byte
 * lines with non-temporal stores, reading the input in memory order, row by row. The row loops
 * wrote such runs with plain 16-byte stores, each output line read before it is written: 0.5-0.6
 * of memcpy from memory on runs of 125-500 bytes into 2-8 (one thread); the streamed words of
 * put with byte-wise edges ran at 0.18 on runs of 125 (the edge lines written by both kinds of
 * store). Two ways, by the runs' mean length (bench/HISTORY.md, "Line splits"):
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
int dm_line_split(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0, Py_ssize_t row1)
{
    if (!dm_have_vbmi() || nparts > DM_SHUFFLE_WIDTH) {
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

#define DM_SHUFFLE_NIBBLES 32            /* nibbles: only where a run is shorter */
#define DM_STREAM_NIBBLE_BYTES (16 << 20) /* non-temporal stores from here, as copy_rows */
/* Runs of 17-31 nibbles take sparse programs only in calls this large. Building such a program
 * costs 20-30 us (build_program compares every lane with every lane), while the stream loops
 * copy those runs at 6-10 GB/s. A/B in one process, one thread, in cache (bench/HISTORY.md,
 * "Long 4-bit runs in mid-sized calls"): calls of 136 KiB took 31-48 us as programs against
 * 14-27 us by the stream loops (runs of 17-31 into 2 or 3); at 512 KiB and more the programs
 * were faster on runs of 17-20 (58-73 against 63-149 us) and even with the loops on longer
 * runs. Shorter runs gain at once: runs of 3 took 20 against 150 us, runs of 16 the same
 * either way at 136 KiB. */
#define DM_SPARSE_NIBBLE_RUN 17
#define DM_SPARSE_NIBBLE_MIN_BYTES (512 << 10)

/* Slot programs: 4-bit splits and joins whose runs are at most 15 nibbles, in rows of at most
 * 60 (bench/HISTORY.md, "Slot programs"). A block of R rows (8; 4 where rows are wider than
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
 * runs). Measured on the reference machine, one thread, in L2, with equal runs: bench/HISTORY.md
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
void dm_shuffle_nibbles(const NibblePart *parts, Py_ssize_t nparts, int each, int one,
                        Py_ssize_t row0, Py_ssize_t row1, Py_ssize_t *g0, Py_ssize_t *g1)
{
    if (!dm_have_vbmi() || nparts < 2 || nparts > DM_SHUFFLE_WIDTH || !(each || one)) {
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
#else
typedef int dm_no_vbmi_programs; /* a file with no declaration is not ISO C */
#endif
