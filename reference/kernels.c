/*
 * kernels.c: the portable kernel table (plain C, the specification of every faster table)
 * and the choice of table for an execution.  Each kernel is written once as an always-inline
 * body whose orientation and tie direction become constants in its four instances.
 */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "half.h"
#include "reference.h"

/* Elements tested as a whole before any is looked at: a fixed-length loop the compiler turns
 * into vector compares on any target, so the plain path is not needlessly slow. */
#define SCAN_BLOCK 16

static inline __attribute__((always_inline)) bool
scan_portable(const uint8_t *p, uint64_t n, uint64_t base, f32_best *best, bool minimize,
              bool later_wins)
{
    float value = best->value;
    uint64_t at = best->at, i = 0;
    for (; i + SCAN_BLOCK <= n; i += SCAN_BLOCK) {
        float block[SCAN_BLOCK];
        memcpy(block, p + i * sizeof(float), sizeof block);
        unsigned any = 0;
        for (unsigned k = 0; k < SCAN_BLOCK; k++)
            any |= f32_takes(block[k], value, minimize, later_wins);
        if (__builtin_expect(!any, 1))
            continue;
        for (unsigned k = 0; k < SCAN_BLOCK; k++)
            if (f32_takes(block[k], value, minimize, later_wins)) {
                if (isnan(block[k]))
                    return false;
                value = block[k];
                at = base + i + k;
            }
    }
    for (; i < n; i++) {
        float v;
        memcpy(&v, p + i * sizeof(float), sizeof v);
        if (f32_takes(v, value, minimize, later_wins)) {
            if (isnan(v))
                return false;
            value = v;
            at = base + i;
        }
    }
    *best = (f32_best){ value, at };
    return true;
}

static inline __attribute__((always_inline)) bool
rows_portable(const uint8_t *p, uint64_t row_stride, uint64_t rows, uint64_t n, uint32_t index,
              uint32_t index_step, float *best, uint32_t *at, bool minimize, bool later_wins)
{
    bool any_nan = false;
    for (uint64_t r = 0; r < rows; r++, p += row_stride, index += index_step)
        for (uint64_t j = 0; j < n; j++) {
            float v;
            memcpy(&v, p + j * sizeof(float), sizeof v);
            bool take = f32_takes(v, best[j], minimize, later_wins);
            any_nan |= isnan(v);
            best[j] = take ? v : best[j];
            at[j] = take ? index : at[j];
        }
    return !any_nan;
}

#define F32_INSTANCES(prefix, body)                                                          \
    static bool prefix##_max_first(const uint8_t *p, uint64_t n, uint64_t base, f32_best *b) \
    { return body(p, n, base, b, false, false); }                                            \
    static bool prefix##_max_last(const uint8_t *p, uint64_t n, uint64_t base, f32_best *b)  \
    { return body(p, n, base, b, false, true); }                                             \
    static bool prefix##_min_first(const uint8_t *p, uint64_t n, uint64_t base, f32_best *b) \
    { return body(p, n, base, b, true, false); }                                             \
    static bool prefix##_min_last(const uint8_t *p, uint64_t n, uint64_t base, f32_best *b)  \
    { return body(p, n, base, b, true, true); }
F32_INSTANCES(scan, scan_portable)

#define ROW_INSTANCES(prefix, body)                                                          \
    static bool prefix##_max_first(const uint8_t *p, uint64_t s, uint64_t r, uint64_t n,      \
                                   uint32_t i, uint32_t di, float *b, uint32_t *a)           \
    { return body(p, s, r, n, i, di, b, a, false, false); }                                  \
    static bool prefix##_max_last(const uint8_t *p, uint64_t s, uint64_t r, uint64_t n,       \
                                  uint32_t i, uint32_t di, float *b, uint32_t *a)            \
    { return body(p, s, r, n, i, di, b, a, false, true); }                                   \
    static bool prefix##_min_first(const uint8_t *p, uint64_t s, uint64_t r, uint64_t n,      \
                                   uint32_t i, uint32_t di, float *b, uint32_t *a)           \
    { return body(p, s, r, n, i, di, b, a, true, false); }                                   \
    static bool prefix##_min_last(const uint8_t *p, uint64_t s, uint64_t r, uint64_t n,       \
                                  uint32_t i, uint32_t di, float *b, uint32_t *a)            \
    { return body(p, s, r, n, i, di, b, a, true, true); }
ROW_INSTANCES(rows, rows_portable)

/* pool_fold's loop for one stride, a constant once inlined, so the packed instance is a
 * plain loop over floats that the compiler may vectorize. */
static inline __attribute__((always_inline)) bool
fold_portable(const uint8_t *p, uint64_t n, uint64_t stride, uint32_t position, bool first,
              float *best, uint32_t *at)
{
    unsigned nan_seen = 0;
    for (uint64_t w = 0; w < n; w++) {
        float v;
        memcpy(&v, p + w * stride, sizeof v);
        nan_seen |= v != v;
        bool take = first || v > best[w]; /* best[] is not yet written on the first row */
        best[w] = take ? v : best[w];
        at[w] = take ? position + (uint32_t)w : at[w];
    }
    return !nan_seen;
}

bool ref_pool_fold_portable(const uint8_t *p, uint64_t n, uint64_t stride, uint32_t position,
                            bool first, float *best, uint32_t *at)
{
    return stride == sizeof(float) ? fold_portable(p, n, sizeof(float), position, first, best, at)
                                   : fold_portable(p, n, stride, position, first, best, at);
}

void ref_pool_pick_portable(const float *best, const uint32_t *at, uint64_t outputs,
                            const uint32_t *start, const uint32_t *taps, uint32_t dilation,
                            float *value, uint32_t *position)
{
    for (uint64_t o = 0; o < outputs; o++) {
        uint32_t w = start[o];
        float top = best[w];
        uint32_t top_at = at[w];
        for (uint32_t t = 1; t < taps[o]; t++) {
            w += dilation;
            /* Bitwise, not short-circuit: random data would mispredict the branches. */
            bool takes = (best[w] > top) | ((best[w] == top) & (at[w] < top_at));
            top = takes ? best[w] : top;
            top_at = takes ? at[w] : top_at;
        }
        value[o] = top;
        position[o] = top_at;
    }
}

bool ref_pool_lanes_portable(const uint8_t *p, uint64_t lanes, const pool_taps *taps,
                             float *value, uint32_t *position)
{
    bool any_nan = false;
    for (uint64_t k = 0; k < lanes; k++) {
        const uint8_t *plane = p + k * sizeof(float);
        uint32_t plane_position = taps->first_position;
        float top;
        memcpy(&top, plane, sizeof top);
        uint32_t top_at = plane_position;
        for (uint32_t d = 0; d < taps->count[0]; d++) {
            const uint8_t *row = plane;
            uint32_t row_position = plane_position;
            for (uint32_t h = 0; h < taps->count[1]; h++) {
                const uint8_t *tap = row;
                uint32_t tap_position = row_position;
                for (uint32_t w = 0; w < taps->count[2]; w++) {
                    float v;
                    memcpy(&v, tap, sizeof v);
                    any_nan |= isnan(v);
                    bool larger = v > top;
                    top = larger ? v : top;
                    top_at = larger ? tap_position : top_at;
                    tap += taps->bytes[2];
                    tap_position += taps->positions[2];
                }
                row += taps->bytes[1];
                row_position += taps->positions[1];
            }
            plane += taps->bytes[0];
            plane_position += taps->positions[0];
        }
        value[k] = top;
        position[k] = top_at;
    }
    return !any_nan;
}

const ref_kernels ref_kernels_portable = {
    .name = "portable",
    .f32_scan = { { scan_max_first, scan_max_last }, { scan_min_first, scan_min_last } },
    .f32_rows = { { rows_max_first, rows_max_last }, { rows_min_first, rows_min_last } },
    .f16_widen = halves_to_floats,
    /* None: in plain C the key path of max_pooling.c is faster than the float path built
     * from the pooling helpers above (18 against 28 ns per output on the 3x3/s2/p1
     * benchmark, 2026-11-23), so the portable engine pools through keys; the helpers serve
     * the AVX2 kernels' strided rows and tails. */
    .pool_fold = NULL,
    .pool_pick = NULL,
    .pool_lanes = NULL,
};

/* Read per execution, not cached: a test switches tables between two runs with setenv. */
static bool portable_forced(void)
{
    const char *v = getenv("DMLCHECK_REFERENCE_PORTABLE");
    return v && *v && strcmp(v, "0") != 0;
}

const ref_kernels *ref_kernels_select(void)
{
    if (portable_forced())
        return &ref_kernels_portable;
#ifdef REF_HAVE_X86_KERNELS
    if (__builtin_cpu_supports("avx2") && half_cpu_has_f16c())
        return &ref_kernels_avx2;
#endif
    return &ref_kernels_portable;
}

const char *ref_kernels_name(void)
{
    return ref_kernels_select()->name;
}
