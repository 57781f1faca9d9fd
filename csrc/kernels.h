/* datamove._kernels: datamove's optional compiled part, and the contract of each of its loops.
 *
 * One extension module, built by setup.py from the files of this directory where the machine has
 * a C compiler; without it datamove runs the same on NumPy's loops and Python's plan caches, only
 * slower (bench/RESULTS.md). Its files, one concern each:
 *
 *   rows.c          copy_rows: the copy engine's byte row loops (datamove._backends._copy, for
 *                   copy=True and out=, and DirectML's byte splits and joins): plain moves,
 *                   SSE2 streaming stores and 16-byte vectors, and the dispatch among them.
 *   nibbles.c       copy_nibble_rows: the same for 4-bit elements (directml/_nibbles.py), as
 *                   streams of nibbles and shifted 16-byte vectors.
 *   shuffle_vbmi.c  the AVX-512 VBMI programs that rows.c and nibbles.c hand some layouts to:
 *                   shuffle programs (runs of 1-3 bytes, of under 32 nibbles), slot programs
 *                   (runs of up to 15 nibbles) and line splits (runs of 64 bytes to 4 KiB). The
 *                   only file with target("avx512...") attributes; chosen at run time.
 *   plans.c         plan_key and plan_hit: the key of datamove's plan cache, and the answer to
 *                   a repeated operator call from that cache (datamove._plan).
 *   module.c        the bindings: parsing and checking the arguments, releasing the GIL around
 *                   the loops, the module's constants and its (multi-phase) initialisation.
 *
 * Rules every loop file keeps (as numpy's lowlevel_strided_loops.h): the loops take plain C
 * structs, touch no Python object, allocate only with PyMem_Raw*, and run without the GIL; only
 * module.c and plans.c see Python objects. Nothing is aligned for them: every address, stride
 * and run is any byte (or nibble) count, and each loop handles its own edges.
 *
 * Building: setup.py compiles every .c here into the one module. `make sanitize` runs the
 * kernels' tests under AddressSanitizer. `CFLAGS=-DDM_PORTABLE` builds the portable C only (no
 * SSE2, no streaming stores, no VBMI), which is what a CPU other than x86-64 runs; `make
 * portable` runs the same tests against that build, so those code paths are tested here too.
 */
#ifndef DATAMOVE_KERNELS_H
#define DATAMOVE_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* CPU features ------------------------------------------------------------------------------
 *
 * DM_STREAMING  non-temporal stores (x86-64: SSE2 is part of every x86-64 CPU).
 * DM_SSE2       16-byte vectors (x86-64).
 * DM_SHUFFLE    the AVX-512 VBMI programs are compiled (x86-64 with GCC or clang); they run
 *               only where dm_have_vbmi() says the CPU has AVX-512 F, BW and VBMI (Intel since
 *               Ice Lake, AMD since Zen 4). Elsewhere the row loops do the same work, slower.
 * Each is 0 in a DM_PORTABLE build. */
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(DM_PORTABLE)
#include <emmintrin.h>
#define DM_STREAMING 1
#define DM_SSE2 1
#else
#define DM_STREAMING 0
#define DM_SSE2 0
#endif

#if DM_SSE2 && (defined(__GNUC__) || defined(__clang__))
#define DM_SHUFFLE 1
#else
#define DM_SHUFFLE 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define DM_INLINE static inline __attribute__((always_inline))
#define DM_HIDDEN __attribute__((visibility("hidden"))) /* shared by the files, not exported */
#define DM_ATOMIC_NIBBLES 1 /* __atomic builtins: copy_nibble_rows may run on several threads */
#elif defined(_MSC_VER)
#define DM_INLINE static __forceinline
#define DM_HIDDEN
#define DM_ATOMIC_NIBBLES 0
#else
#define DM_INLINE static inline
#define DM_HIDDEN
#define DM_ATOMIC_NIBBLES 0
#endif

#define DM_BLOCK_BYTES 512 /* a split of short runs: bytes of each part per block of rows */
#define DM_SHORT_RUN 4096  /* bytes: runs shorter than this may go as 16-byte vectors */
#define DM_LINE_RUN 64     /* bytes: line splits only where every run is this long or more */
#define DM_PROGRAMS 6      /* kinds of VBMI program counted for shuffle_counts() */

/* Byte rows: rows.c --------------------------------------------------------------------------
 *
 * A Part is one run of bytes repeated over rows: row i of the part is the `run` bytes at
 * src + i*src_stride, copied to dst + i*dst_stride. A call's parts share their rows. A split
 * (one input row, every output) and a join (every input, one output row) are both a list of
 * parts; the loop takes each row of every part in turn, so each input row is read once, in
 * memory order, while every output is written in memory order, which NumPy's one copy per
 * output cannot do. */
typedef struct {
    char *dst;
    const char *src;
    Py_ssize_t dst_stride; /* bytes, any sign */
    Py_ssize_t src_stride;
    Py_ssize_t run; /* bytes, >= 0 */
} Part;

/* Copies rows [row0, row1) of every part, row0 <= row1, nparts >= 1.
 *
 * The caller guarantees (datamove._backends._copy.row_plan, which DirectML's byte copies go
 * through too): every run of rows [row0, row1) lies inside live memory; no destination run
 * overlaps a source run or another destination run. Nothing else: no alignment, any strides.
 * Reads: only bytes between the first and the last byte of each part's source rows in the
 * call (vectors may read the bytes between two rows).
 * Writes: only the bytes of the destination runs of rows [row0, row1); some are written twice
 * (a vector past its run, then the next run), the last write being the copy's. So threads may
 * take any disjoint ranges of rows at once, as share_rows does.
 * streaming: the call's bytes do not fit the cache (the caller's threshold: 16 MiB); x86-64
 * writes then use non-temporal stores where they pay, and an sfence before returning makes
 * them visible to other threads. Ignored where DM_STREAMING is 0.
 * No GIL needed; touches no Python object; allocates nothing (VBMI programs: PyMem_Raw*, and
 * where that fails the row loops do the work).
 *
 * Routing, in order (each step returns where it applies; measured choices, see "What each
 * specialisation buys" below):
 *   1. VBMI shuffle programs: runs of 1-3 bytes, 2-64 parts of packed rows, 128 KiB or more;
 *      dense in rows of up to 16 bytes; sparse in wider rows only where they pay (a split of
 *      rows of at most 24 bytes into runs all of 1 or all of 2 bytes, or of 3 where the call
 *      does not stream; a join of rows of at most 32 bytes, of 4 parts or more where it
 *      streams; sparse_pays in shuffle_vbmi.c).
 *   2. Streaming, one part of 4- or 8-byte elements into a contiguous destination (a strided
 *      slice): gathered 16 bytes per streaming store.
 *   3. Streaming, two parts or more, runs of 8 bytes in every part: two runs per 16-byte
 *      streaming store.
 *   4. One part whose run is at most 16 bytes, or that does not stream: copy_one (fixed-size
 *      moves for runs of 1, 2, 4, 8 and 16 bytes).
 *   5. Streaming, VBMI, a split of runs of 64 bytes to 4 KiB that are not whole words: line
 *      splits (whole 64-byte lines with streaming stores).
 *   6. Runs under DM_SHORT_RUN not all whole words, packed split or join: 16-byte vectors.
 *   7. Streaming, a split into 8-64 packed outputs at 16-byte-aligned addresses whose runs are
 *      whole 16-byte words: stream_lines (row by row, each output as whole 64-byte lines, the
 *      words past a row's last line held for the part's next row).
 *   8. Everything else: one run at a time (put), plain or streamed; a split of runs under a
 *      cache line in blocks of rows, everything else row by row. */
DM_HIDDEN void dm_copy_rows(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0,
                            Py_ssize_t row1, int streaming);

/* 4-bit rows: nibbles.c ----------------------------------------------------------------------
 *
 * A NibblePart is one run of 4-bit elements repeated over rows: row i is the `run` nibbles from
 * nibble src_first + i*src_stride of the buffer at src, copied to nibble dst_first +
 * i*dst_stride of the buffer at dst. Nibble 2k is the low half of byte k, as DirectML packs
 * 4-bit tensors. Offsets, strides and runs count nibbles. */
typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    Py_ssize_t dst_first, dst_stride; /* dst_first >= 0 */
    Py_ssize_t src_first, src_stride; /* src_first >= 0 */
    Py_ssize_t run;                   /* >= 0 */
} NibblePart;

/* Copies rows [row0, row1) of every part (nparts >= 0). Returns 0, or -1 where it could not
 * allocate its streams' state, before copying anything.
 *
 * The caller guarantees (_nibble_rows in directml/_nibbles.py): every run lies inside its
 * buffer; destination runs overlap no source run and no other destination run.
 * Reads: only bytes between the first and the last byte holding a nibble of each part's
 * source rows in the call.
 * Writes: only nibbles of the destination runs of rows [row0, row1). Bytes whose two nibbles
 * are both the call's may be written whole, twice (vectors past a run); a byte shared with
 * nibbles outside the call (a row's first or last nibble, at the call's first and last row)
 * is written with atomic and/or on its own nibble's bits where DM_ATOMIC_NIBBLES (exported as
 * ATOMIC_NIBBLES: only then may threads take disjoint ranges of rows at once). Inside the
 * call a row's edge nibbles are plain read-modify-writes, so threads also need every byte that
 * two destination runs share to belong to rows of one index or of neighbouring ones: true of
 * DirectML's layouts (strides >= 0, one tensor's rows in order), which _nibble_rows passes;
 * not of parts whose rows run in different orders (destination strides of both signs, or one
 * part's row i beside another's row i + m). Those rows are copied right on one thread; on
 * several, a nibble can be lost (found by a fuzzer with mixed-sign strides).
 * No GIL needed; touches no Python object; allocates with PyMem_Raw*.
 *
 * Routing: a split into packed outputs (every dst_stride == run) or a join into one packed
 * output (the parts fill each row in order) is written as streams, a run's odd last nibble
 * held for the next run's first; rows inside the call go as 1-4 shifted 16-byte vectors per
 * run (SSE2); on VBMI CPUs, runs under 32 nibbles in large calls go to slot or shuffle
 * programs first. Other layouts go row by row, bytes shifted as 64-bit words. */
DM_HIDDEN int dm_copy_nibble_rows(const NibblePart *parts, Py_ssize_t nparts, Py_ssize_t row0,
                                  Py_ssize_t row1);

/* AVX-512 VBMI programs: shuffle_vbmi.c --------------------------------------------------------
 *
 * Called by the dispatch of rows.c and nibbles.c only; each checks dm_have_vbmi() itself and
 * does nothing where the CPU lacks it, so the callers need not. The same contracts as their
 * callers' (reads, writes, threads): every program reads and writes whole bytes of its own
 * rows only, its first and last bytes exactly (masked stores), so threads may take any ranges. */
#if DM_SHUFFLE
/* Whether the CPU has AVX-512 F, BW and VBMI: a read of the CPU model that libgcc (or
 * compiler-rt) fills once when the library loads, so no flag of ours to initialise or share. */
DM_HIDDEN int dm_have_vbmi(void);

/* A split of packed input rows into packed outputs, or a join of packed sources into packed
 * rows, whose shortest run is under 4 bytes, in 2-64 parts, in calls of 128 KiB or more: the
 * rows from row0 in whole periods of 64 rows. Returns the first row not copied (row0 where it
 * does not apply); the caller copies the rest. */
DM_HIDDEN Py_ssize_t dm_shuffle_rows(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0,
                                     Py_ssize_t row1, int streaming);

/* Streaming splits into packed outputs (dst_stride == run) of 64-byte to 4 KiB runs, at most
 * 64 parts: every row of [row0, row1), each output written as whole aligned 64-byte lines with
 * streaming stores (its partial first and last lines exactly). Returns 0 where it does not
 * apply (nothing copied), 1 when done (after an sfence). */
DM_HIDDEN int dm_line_split(const Part *parts, Py_ssize_t nparts, Py_ssize_t row0,
                            Py_ssize_t row1);

/* 4-bit splits (each: packed outputs from packed input rows) and joins (one: a packed output
 * from packed sources) with runs under 32 nibbles, in large calls: sets [*g0, *g1) to the rows
 * it copied, which start where every stream starts on a whole byte; leaves them as they were
 * where it does not apply. The rows before and after are the caller's. */
DM_HIDDEN void dm_shuffle_nibbles(const NibblePart *parts, Py_ssize_t nparts, int each, int one,
                                  Py_ssize_t row0, Py_ssize_t row1, Py_ssize_t *g0,
                                  Py_ssize_t *g1);

/* The programs run so far in this process, by kind: dense, sparse on bytes, sparse on nibbles,
 * slots, line splits in place, staged. Tests read them (shuffle_counts()) to check the
 * routing. Process-wide on purpose: plain counters with atomic adds, no Python object, so
 * safe to share between threads and interpreters. */
DM_HIDDEN void dm_shuffle_counts(Py_ssize_t counts[DM_PROGRAMS]);
#endif

/* Plans: plans.c -------------------------------------------------------------------------------
 *
 * plan_key(ndarray, op, shape, *params) is the key of a call in datamove's plan cache: bytes of
 * int64 words: op, the rank, the shape, then per parameter its kind and length in one word
 * (kind 0 None, 1 an int, 2 a vector: a list, a tuple or a 1-D NumPy integer array, which every
 * operator treats alike; the word is 2 + (length << 8)), then its values. Only exact Python
 * ints within int64 (never bool, float or an integer-like object: those take the Python path,
 * which validates and names them), lists and tuples of them, 1-D NumPy arrays of a native
 * integer type with values in int64, and None, at most 256 words in all. Anything else
 * (including an op that is not an exact int in int64) gives None. The shape's entries are read
 * as integers (__index__): an entry whose __index__ raises an Exception, or past int64, gives
 * None; a KeyboardInterrupt or SystemExit from it goes on to the caller. The key keeps each
 * parameter's kind, so a hit is a call with the same kinds and values as the one that stored
 * the plan. A list is read whole under its lock (free-threaded builds), so a key is a snapshot.
 *
 * plan_hit(plans, ndarray, op, data, *params): when data is exactly an `ndarray` and `plans`
 * (a dict from those keys to datamove._plan.Plan tuples) holds the call's key, the plan's
 * outputs: data[indices[0]] for a single-output plan, else a tuple of data[i] for every i in
 * its indices; otherwise None. The op is only a tag of the key: its meaning lives in the plan.
 * Only validated plans are ever stored, so a hit answers exactly as a miss would. */
typedef struct {
    PyObject *shape; /* the interned name "shape", looked up on every plan_hit */
} ModuleState;

DM_HIDDEN PyObject *dm_plan_key(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
DM_HIDDEN PyObject *dm_plan_hit(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* What each specialisation buys -------------------------------------------------------------
 *
 * A specialisation stays where a benchmark on the reference machine (2 vCPUs, AVX-512 VBMI)
 * shows a case that misses its target without it and meets it with it: DirectML at 0.8 of
 * memcpy, out= at 0.9 of a plain two-thread copy (one exception, said below). Figures: fraction
 * of memcpy (or of the plain copy), without -> with, from bench/HISTORY.md (section in quotes).
 * That machine's CPU has AVX-512 VBMI, so the tests run every line below there
 * (tests/test_copy_engine.py, tests/directml/test_execute.py; the VBMI tests check which
 * program ran through shuffle_counts(), and skip on other CPUs, where that code is compiled
 * but never runs).
 *
 * rows.c (SSE2, every x86-64 CPU):
 *   - the row loop itself with streaming stores: last-axis out= splits into 2-16, 0.64-1.01 ->
 *     0.95-1.45 of the plain copy ("Copy path ...", "With the compiled row loop"). Kept.
 *   - stream_elements (strided 4- and 8-byte elements, 16 bytes per streaming store):
 *     [..., ::2] 0.44-0.67 -> 0.93-1.00 of the plain copy (same section). Kept.
 *   - stream_pairs8 (runs of 8 bytes, two per store): u8 rows of 64 B into 8, split 0.49-0.76
 *     -> 1.13-1.61, join 0.45-0.86 -> 0.89-1.60 ("Runs of 8 bytes in pairs"). Kept.
 *   - stream_lines (splits of whole 16-byte words into 8-64 packed outputs, as whole lines):
 *     float32 rows of 1 KiB into 16, outputs 16 bytes off a line as NumPy allocates them,
 *     0.78-0.97 -> 1.08-1.38 of the plain copy (bench backends, 256 MiB and 1 GiB); rows of
 *     512 B into 16 (32-byte runs) 0.42-0.48 -> 0.82-1.10 ("The last-axis split into 16").
 *     Kept.
 *   - short_runs (runs under 4 KiB as 16-byte vectors): runs of 21 B 0.07-0.13 -> 0.82-1.43,
 *     of 7 B 0.20-0.32 -> 0.90-1.05, of 65 B 0.10-0.11 -> 0.95-1.65 ("Short runs of bytes as
 *     whole vectors", "Runs of 64 bytes to 4 KiB"). Kept.
 * nibbles.c (SSE2):
 *   - 16-byte shifts and vector rows: 4-bit rows of 63 B, split 0.37-0.44 -> 0.65-1.08
 *     (median 0.92), join 0.37-0.43 -> 0.64-1.15 (0.96) ("Runs of 8 bytes in pairs, 4-bit
 *     streams", "4-bit runs as whole vectors"). Kept.
 * shuffle_vbmi.c (AVX-512 VBMI; 1,190 of the 3,020 lines here):
 *   - dense shuffle programs (rows of up to 16 bytes, runs of 1-3 bytes): u8 rows of 7 B into
 *     7 (interleaved channels), row loops 0.23-0.34 (join 0.13-0.16) -> 1.06-1.46 (0.90-1.56);
 *     rows of 9 B into 3, 0.64-0.83 (0.42-0.46) -> 0.95-1.75 (0.86-1.54) ("Dense shuffle
 *     programs", "Runs of 1-3 bytes ... as shuffle programs"). Kept.
 *   - line splits (180 lines): rows of 1000 B into 8 (125-byte runs) 0.61-0.74 -> 1.17-1.34;
 *     runs of 250 B into 8, 0.51 -> 1.09, of 500 B into 2, 0.58 -> 1.08 (one thread; "Line
 *     splits"). Kept.
 *   - slot programs (4-bit runs of up to 15 nibbles, 330 lines): uint4 rows of 15 B into 2,
 *     split 0.42-0.78 -> 1.09-1.33, join 0.44-0.74 -> 0.86-1.21 ("Slot programs"). Kept.
 *   - sparse programs (the exception): the fallback for runs under 32 nibbles that slot programs
 *     do not take (runs of 1-9 nibbles, rows over 60 nibbles, over 8 parts), and for rows of 17-32
 *     bytes with runs of 1-3 bytes where they beat the row loops (sparse_pays; copy_rows, one
 *     thread, program against row loops in one build, medians of 5 rounds, 32 MiB streamed / 1 MiB
 *     in cache; bench/RESULTS.md, "DirectML: sparse byte programs only where they pay"): splits of
 *     1 x 17 0.23 / 0.09 against 0.14 / 0.05, 1 x 24 0.20 against 0.15; joins of 2 x 12 0.19 /
 *     0.07 against 0.13 / 0.05, [1, 1, 1, 1, 20] 0.29 / 0.14 against 0.21 / 0.07. Elsewhere they
 *     ran slower and the row loops take the layout: splits of 3 x 16 0.24 / 0.08 against 0.31 /
 *     0.15, 2 x 32 0.17 against 0.25, 1 x 64 0.10 against 0.14, [2, 2, 14] 0.31 against 0.72;
 *     streamed joins of [1, 16] 0.52 against 0.77, [3, 14] 0.54 against 0.72. No 256 MiB case of
 *     the benchmark needs them since slot programs took the 15-nibble runs (they had those at
 *     0.31-0.38 -> 0.42-0.78, "A 4-bit program that never ran"). In calls of 136 KiB, 4-bit runs
 *     of 3 nibbles took 150 us in the stream loops and 20 us as a program ("Long 4-bit runs in
 *     mid-sized calls"). Kept for that: about 180 lines of their own (build_program, run_periods,
 *     the staging in run_program), the rest shared with the dense programs.
 * Each of the other VBMI kinds is what holds a case of `python -m bench directml` at 0.8 of
 * memcpy or more: without it that case falls to the row loops' figure above. Building them only
 * on request would drop those cases below target in every default build on the CPUs that have
 * VBMI, while on the CPUs that lack it the code never runs. What ran untested was the portable
 * C of other CPUs; the DM_PORTABLE build above tests it here. */

#endif
