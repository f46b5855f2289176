/*
 * kernels.h: the reference engine's inner loops that have a faster version for some CPUs,
 * as one table of function pointers (the dav1d pattern).  The portable table (kernels.c,
 * plain C) is the specification; kernels_x86.c fills a second table with AVX2/F16C versions
 * of the same contracts.  ref_kernels_select() picks one per execution: the fast table when
 * the CPU has every feature it needs and DMLCHECK_REFERENCE_PORTABLE is unset (or "0"), else
 * the portable one, which is therefore always built and always testable on any machine.
 * tests/reference runs every reference check on both tables and demands identical bits.
 *
 * The float kernels compare IEEE floats instead of order keys (order.h).  For numbers the two
 * agree: float comparison orders values exactly (denormals included: nothing here sets
 * flush-to-zero), and +0 == -0 is the tie of SEMANTICS D3.  A NaN is where they part, so
 * every float kernel reports a NaN and its caller redoes the work through keys.
 */
#ifndef DMLCHECK_REF_KERNELS_H
#define DMLCHECK_REF_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The running best of a float32 scan: its value and position; at == F32_NONE until an
 * element is taken. */
#define F32_NONE UINT64_MAX
typedef struct f32_best {
    float value;
    uint64_t at;
} f32_best;

/* Does v replace best in a scan that visits positions in increasing order?  ARGMAX keeps the
 * first maximum with a strict comparison (SEMANTICS D3, INCREASING), the last with a
 * non-strict one (DECREASING); ARGMIN likewise.  Written as "not (v loses or ties)" so that
 * a NaN v is always taken, which is how a kernel notices it. */
static inline __attribute__((always_inline)) bool
f32_takes(float v, float best, bool minimize, bool later_wins)
{
    return minimize ? (later_wins ? !(v > best) : !(v >= best))
                    : (later_wins ? !(v < best) : !(v <= best));
}

/* Scans n contiguous float32 at p (any alignment), whose first has position `base`, into
 * *best under f32_takes.  Returns false as soon as it takes a NaN (best is then
 * meaningless).  A scan that starts from best = -inf (ARGMAX) takes nothing from a run of
 * -inf; the caller sees at == F32_NONE and decides exactly. */
typedef bool (*f32_scan_fn)(const uint8_t *p, uint64_t n, uint64_t base, f32_best *best);

/* Merges `rows` rows of n contiguous float32 into n running bests: row r starts at
 * p + r*row_stride and has reduced index index + r*index_step; best[j] and at[j] take its
 * element j and its index where f32_takes says so.  The caller visits a slot's candidates in
 * increasing index.  Returns false when a row holds a NaN (the bests are then
 * meaningless). */
typedef bool (*f32_rows_fn)(const uint8_t *p, uint64_t row_stride, uint64_t rows, uint64_t n,
                            uint32_t index, uint32_t index_step, float *best, uint32_t *at);

/* n packed float16 at p (any alignment) to float32, exactly (half.h). */
typedef void (*f16_widen_fn)(const uint8_t *p, size_t n, float *out);

/* Folds one pooling input row of n float32, `stride` bytes apart, into per-column bests:
 * when `first`, best[w] and at[w] take element w and position + w; otherwise only where
 * the element is strictly larger (a later row holds later flat indices, which lose ties:
 * SEMANTICS D3).  Returns false when the row holds a NaN (the bests are then
 * meaningless). */
typedef bool (*pool_fold_fn)(const uint8_t *p, uint64_t n, uint64_t stride, uint32_t position,
                             bool first, float *best, uint32_t *at);

/* The window winners of `outputs` output columns over one row of column bests (pool_fold's
 * best and at): output o reads columns start[o] + t*dilation, t < taps[o] (taps[o] >= 1;
 * an output with taps[o] == 0 gets something meaningless, which the caller overwrites).
 * The winner is the largest value and, among equal values, the smallest position
 * (SEMANTICS D3: the smallest flat input index; columns' bests come from different rows, so
 * column order alone would not do).  Positions are below 2^31; no value is a NaN. */
typedef void (*pool_pick_fn)(const float *best, const uint32_t *at, uint64_t outputs,
                             const uint32_t *start, const uint32_t *taps, uint32_t dilation,
                             float *value, uint32_t *position);

/* One pooling window of a layout whose channels are packed (NHWC): the taps, in row-major
 * order, as counts and steps along depth, height and width, in input bytes and in plane
 * positions (SEMANTICS D7: only taps inside the input; every count >= 1). */
typedef struct pool_taps {
    uint32_t count[3];
    uint64_t bytes[3];
    uint32_t positions[3];
    uint32_t first_position;
} pool_taps;

/* The window winners of `lanes` consecutive channels, whose first tap is at p and whose
 * channels are 4 bytes apart: value[k] and position[k] for channel k, the largest value and
 * the first of equal ones in row-major tap order (SEMANTICS D3).  Returns false when a tap
 * is a NaN (the answers are then meaningless). */
typedef bool (*pool_lanes_fn)(const uint8_t *p, uint64_t lanes, const pool_taps *taps,
                              float *value, uint32_t *position);

typedef struct ref_kernels {
    const char *name;
    f32_scan_fn f32_scan[2][2]; /* [minimize][later_wins] */
    f32_rows_fn f32_rows[2][2]; /* [minimize][later_wins] */
    f16_widen_fn f16_widen;
    pool_fold_fn pool_fold;     /* with pool_pick: NULL where pooling goes through keys */
    pool_pick_fn pool_pick;
    pool_lanes_fn pool_lanes;
} ref_kernels;

/* The portable table: plain C, always built. */
extern const ref_kernels ref_kernels_portable;

/* Its pool_fold, pool_pick and pool_lanes, which the AVX2 ones call for strided rows and
 * tails. */
bool ref_pool_fold_portable(const uint8_t *p, uint64_t n, uint64_t stride, uint32_t position,
                            bool first, float *best, uint32_t *at);
void ref_pool_pick_portable(const float *best, const uint32_t *at, uint64_t outputs,
                            const uint32_t *start, const uint32_t *taps, uint32_t dilation,
                            float *value, uint32_t *position);
bool ref_pool_lanes_portable(const uint8_t *p, uint64_t lanes, const pool_taps *taps,
                             float *value, uint32_t *position);

#if defined(__x86_64__) || defined(__i386__)
#define REF_HAVE_X86_KERNELS 1
/* AVX2 + F16C versions; the portable table where a kernel has none. */
extern const ref_kernels ref_kernels_avx2;
#endif

/* The table for one execution (see above). */
const ref_kernels *ref_kernels_select(void);

#endif
