/* 4-bit row loops: copy_nibble_rows (the contract and the figures: kernels.h).
 *
 * Whole bytes in the middle of a row are copied, or shifted by half a byte as 64-bit words (16
 * bytes at a time with SSE2). A row's first and last nibble may share a byte with the row before
 * or after (or, in a join, with another part of the same row); in the first and last row of a
 * call, which border another thread's rows, they are written with atomic and/or, each touching
 * only its own nibble's bits, so threads may take any ranges of rows. (Atomics on every row cost
 * 3x: 0.3 against 1.0 of memcpy.)
 */
#include "kernels.h"

static inline unsigned nibble_at(const unsigned char *b, Py_ssize_t n)
{
    return (unsigned)(b[n >> 1] >> ((n & 1) * 4)) & 15u;
}

static inline void nibble_put(unsigned char *b, Py_ssize_t n, unsigned v, int atomic)
{
    unsigned char *p = b + (n >> 1);
    const unsigned char keep = (n & 1) ? 0x0F : 0xF0;
    const unsigned char bits = (unsigned char)((n & 1) ? v << 4 : v);
#if DM_ATOMIC_NIBBLES
    if (atomic) {
        __atomic_fetch_and(p, keep, __ATOMIC_RELAXED);
        __atomic_fetch_or(p, bits, __ATOMIC_RELAXED);
        return;
    }
#else
    (void)atomic; /* one thread only: ATOMIC_NIBBLES is 0 */
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

/* Streams of nibbles. When every part's rows follow each other in its destination (a split
 * into packed outputs: dst_stride == run), or the parts of a row fill the destination row in
 * order and the rows follow each other (a join into a packed output), the destination is
 * written as one or more sequential streams: a run's odd last nibble waits in a register for
 * the next run's first to make a whole byte. So the only read-modify-write is of a stream's
 * first and last nibble, which may share a byte with the range of another thread (atomic, as
 * above); the row loop above reads a destination byte at each row's end, which stalls on a
 * cache miss at the front of the writes. Rows of 63 nibbles
 * split into 2: 5.4-6.5 ns per part-row on one thread, against 7.5-10 (bench/HISTORY.md,
 * "Runs of 8 bytes in pairs, 4-bit streams"). */

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
 * Rows of 63 nibbles split into 2 and joined back: bench/HISTORY.md, "4-bit runs as whole
 * vectors". */

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

/* Rows [row0, row1) of dm_copy_nibble_rows: as streams (each/one), or row by row. */
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

int dm_copy_nibble_rows(const NibblePart *parts, Py_ssize_t nparts, Py_ssize_t row0,
                        Py_ssize_t row1)
{
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
        streams = PyMem_RawMalloc(sizeof(NibbleStream) * (size_t)nparts);
        if (streams == NULL) {
            return -1;
        }
    }
    Py_ssize_t g0 = row1, g1 = row1; /* rows taken by a shuffle program: none */
#if DM_SHUFFLE
    dm_shuffle_nibbles(parts, nparts, each, one, row0, row1, &g0, &g1);
#endif
    if (row0 < g0) {
        nibble_range(parts, nparts, each, sum, streams, row0, g0);
    }
    if (g1 < row1) {
        nibble_range(parts, nparts, each, sum, streams, g1, row1);
    }
    PyMem_RawFree(streams);
    return 0;
}
