/*
 * kernels_x86.c: AVX2 (+F16C) versions of the kernels of kernels.h, with the contracts of
 * the portable ones in kernels.c, which tests/reference holds them to bit for bit.  Compiled
 * for the baseline target; only the functions marked KERNEL use AVX2, and
 * ref_kernels_select() calls them only on a CPU that has it.  Elsewhere this file is empty.
 */
#include "kernels.h"

#ifdef REF_HAVE_X86_KERNELS

#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "half.h"

#define KERNEL __attribute__((target("avx2,f16c")))
#define INLINE_KERNEL static inline __attribute__((always_inline, target("avx2,f16c")))

/* The comparison predicate of f32_takes(v, best) for one orientation and tie direction;
 * unordered predicates, so a NaN v is taken, as in f32_takes. */
#define TAKES_MAX_FIRST _CMP_NLE_UQ /* !(v <= best) */
#define TAKES_MAX_LAST _CMP_NLT_UQ  /* !(v <  best) */
#define TAKES_MIN_FIRST _CMP_NGE_UQ /* !(v >= best) */
#define TAKES_MIN_LAST _CMP_NGT_UQ  /* !(v >  best) */

/* Elements per step of the scan: four vectors in flight keep enough loads outstanding to
 * run at memory bandwidth; a step with no candidate costs four compares and one test. */
#define SCAN_STEP 32

/* Floats a scan asks for ahead of its loads (8 KiB): measured 10% faster than leaving it to
 * the hardware prefetcher on a 64 MiB input.  Prefetching past the end is harmless. */
#define PREFETCH_AHEAD 2048

/* The scan: whole steps are tested against the running best; a step holding a candidate
 * (rare on real data: about ln(n) of them in a run of n) is walked element by element with
 * f32_takes itself, which keeps the first-or-last rule and the NaN check in one place. */
#define SCAN_BODY(name, predicate, minimize, later_wins)                                       \
    static KERNEL bool name(const uint8_t *p, uint64_t n, uint64_t base, f32_best *best)     \
    {                                                                                         \
        float value = best->value;                                                            \
        uint64_t at = best->at, i = 0;                                                        \
        __m256 bv = _mm256_set1_ps(value);                                                   \
        for (; i + SCAN_STEP <= n; i += SCAN_STEP) {                                          \
            const float *q = (const float *)(p + i * sizeof(float));                          \
            _mm_prefetch((const char *)(q + PREFETCH_AHEAD), _MM_HINT_T0);                    \
            _mm_prefetch((const char *)(q + PREFETCH_AHEAD + 16), _MM_HINT_T0);               \
            __m256 m0 = _mm256_cmp_ps(_mm256_loadu_ps(q), bv, predicate);                     \
            __m256 m1 = _mm256_cmp_ps(_mm256_loadu_ps(q + 8), bv, predicate);                 \
            __m256 m2 = _mm256_cmp_ps(_mm256_loadu_ps(q + 16), bv, predicate);                \
            __m256 m3 = _mm256_cmp_ps(_mm256_loadu_ps(q + 24), bv, predicate);                \
            __m256 any = _mm256_or_ps(_mm256_or_ps(m0, m1), _mm256_or_ps(m2, m3));            \
            if (__builtin_expect(_mm256_testz_ps(any, any), 1))                               \
                continue;                                                                     \
            for (unsigned k = 0; k < SCAN_STEP; k++) {                                        \
                float v;                                                                      \
                memcpy(&v, q + k, sizeof v);                                                  \
                if (f32_takes(v, value, minimize, later_wins)) {                              \
                    if (isnan(v))                                                             \
                        return false;                                                         \
                    value = v;                                                                \
                    at = base + i + k;                                                        \
                }                                                                             \
            }                                                                                 \
            bv = _mm256_set1_ps(value);                                                       \
        }                                                                                     \
        for (; i < n; i++) {                                                                  \
            float v;                                                                          \
            memcpy(&v, p + i * sizeof(float), sizeof v);                                      \
            if (f32_takes(v, value, minimize, later_wins)) {                                  \
                if (isnan(v))                                                                 \
                    return false;                                                             \
                value = v;                                                                    \
                at = base + i;                                                                \
            }                                                                                 \
        }                                                                                     \
        *best = (f32_best){ value, at };                                                      \
        return true;                                                                          \
    }
SCAN_BODY(scan_max_first, TAKES_MAX_FIRST, false, false)
SCAN_BODY(scan_max_last, TAKES_MAX_LAST, false, true)
SCAN_BODY(scan_min_first, TAKES_MIN_FIRST, true, false)
SCAN_BODY(scan_min_last, TAKES_MIN_LAST, true, true)

/* The row merge, eight slots per step: blends keep the exact bits of the element taken.
 * Rows go one at a time: merging two or four rows per pass over the bests (kept in
 * registers between them) measured slower on the benchmarks, whose rows lie 64 KiB apart and
 * so compete for the same cache sets. */
#define ROW_BODY(name, predicate, minimize, later_wins)                                        \
    static KERNEL bool name(const uint8_t *p, uint64_t row_stride, uint64_t rows, uint64_t n, \
                            uint32_t index, uint32_t index_step, float *best, uint32_t *at)   \
    {                                                                                         \
        __m256 nan_seen = _mm256_setzero_ps();                                                \
        bool any_nan = false;                                                                 \
        for (uint64_t r = 0; r < rows; r++, p += row_stride, index += index_step) {           \
            const __m256 row_index = _mm256_castsi256_ps(_mm256_set1_epi32((int)index));      \
            uint64_t j = 0;                                                                   \
            for (; j + 8 <= n; j += 8) {                                                      \
                const float *q = (const float *)p + j;                                        \
                _mm_prefetch((const char *)(q + PREFETCH_AHEAD), _MM_HINT_T0);                \
                __m256 v = _mm256_loadu_ps(q);                                                \
                __m256 b = _mm256_loadu_ps(best + j);                                         \
                __m256 take = _mm256_cmp_ps(v, b, predicate);                                 \
                nan_seen = _mm256_or_ps(nan_seen, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));        \
                _mm256_storeu_ps(best + j, _mm256_blendv_ps(b, v, take));                     \
                __m256 a = _mm256_loadu_ps((const float *)(at + j));                          \
                _mm256_storeu_ps((float *)(at + j), _mm256_blendv_ps(a, row_index, take));    \
            }                                                                                 \
            for (; j < n; j++) {                                                              \
                float v;                                                                      \
                memcpy(&v, p + j * sizeof(float), sizeof v);                                  \
                bool take = f32_takes(v, best[j], minimize, later_wins);                      \
                any_nan |= isnan(v);                                                          \
                best[j] = take ? v : best[j];                                                 \
                at[j] = take ? index : at[j];                                                 \
            }                                                                                 \
        }                                                                                     \
        return !any_nan && _mm256_testz_ps(nan_seen, nan_seen);                               \
    }
ROW_BODY(row_max_first, TAKES_MAX_FIRST, false, false)
ROW_BODY(row_max_last, TAKES_MAX_LAST, false, true)
ROW_BODY(row_min_first, TAKES_MIN_FIRST, true, false)
ROW_BODY(row_min_last, TAKES_MIN_LAST, true, true)

/* pool_fold on a packed row, eight columns per step; strided rows go to the portable fold. */
static KERNEL bool pool_fold_avx2(const uint8_t *p, uint64_t n, uint64_t stride,
                                  uint32_t position, bool first, float *best, uint32_t *at)
{
    if (stride != sizeof(float))
        return ref_pool_fold_portable(p, n, stride, position, first, best, at);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    __m256 nan_seen = _mm256_setzero_ps();
    uint64_t w = 0;
    for (; w + 8 <= n; w += 8) {
        __m256 v = _mm256_loadu_ps((const float *)(p + w * sizeof(float)));
        __m256 b = _mm256_loadu_ps(best + w);
        __m256 take = first ? all : _mm256_cmp_ps(v, b, _CMP_GT_OQ);
        nan_seen = _mm256_or_ps(nan_seen, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        _mm256_storeu_ps(best + w, _mm256_blendv_ps(b, v, take));
        __m256i here = _mm256_add_epi32(_mm256_set1_epi32((int)(position + (uint32_t)w)), lane);
        __m256 a = _mm256_loadu_ps((const float *)(at + w));
        _mm256_storeu_ps((float *)(at + w), _mm256_blendv_ps(a, _mm256_castsi256_ps(here), take));
    }
    bool clean = _mm256_testz_ps(nan_seen, nan_seen);
    return ref_pool_fold_portable(p + w * sizeof(float), n - w, stride, position + (uint32_t)w,
                                  first, best + w, at + w) && clean;
}

/* pool_pick, eight outputs per step: their taps gathered from the (L1-resident) column
 * bests, lanes past their own tap count masked off. */
static KERNEL void pool_pick_avx2(const float *best, const uint32_t *at, uint64_t outputs,
                                  const uint32_t *start, const uint32_t *taps, uint32_t dilation,
                                  float *value, uint32_t *position)
{
    const __m256i step = _mm256_set1_epi32((int)dilation);
    uint64_t o = 0;
    for (; o + 8 <= outputs; o += 8) {
        __m256i column = _mm256_loadu_si256((const __m256i *)(start + o));
        __m256i count = _mm256_loadu_si256((const __m256i *)(taps + o));
        __m256 top = _mm256_i32gather_ps(best, column, 4);
        __m256i top_at = _mm256_i32gather_epi32((const int *)at, column, 4);
        uint32_t most = 0;
        for (unsigned k = 0; k < 8; k++)
            most = taps[o + k] > most ? taps[o + k] : most;
        for (uint32_t t = 1; t < most; t++) {
            column = _mm256_add_epi32(column, step);
            __m256i live = _mm256_cmpgt_epi32(count, _mm256_set1_epi32((int)t));
            __m256 v = _mm256_mask_i32gather_ps(top, best, column, _mm256_castsi256_ps(live), 4);
            __m256i a = _mm256_mask_i32gather_epi32(top_at, (const int *)at, column, live, 4);
            __m256 earlier = _mm256_and_ps(_mm256_cmp_ps(v, top, _CMP_EQ_OQ),
                                           _mm256_castsi256_ps(_mm256_cmpgt_epi32(top_at, a)));
            __m256 takes = _mm256_and_ps(_mm256_castsi256_ps(live),
                                         _mm256_or_ps(_mm256_cmp_ps(v, top, _CMP_GT_OQ), earlier));
            top = _mm256_blendv_ps(top, v, takes);
            top_at = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(top_at),
                                                          _mm256_castsi256_ps(a), takes));
        }
        _mm256_storeu_ps(value + o, top);
        _mm256_storeu_si256((__m256i *)(position + o), top_at);
    }
    ref_pool_pick_portable(best, at, outputs - o, start + o, taps + o, dilation, value + o,
                           position + o);
}

/* Vectors of eight channels pool_lanes carries at once: their blend chains are independent,
 * so four of them hide each other's latency (one chain alone measured 20% slower). */
#define LANE_VECTORS 4

/* One window for LANE_VECTORS * 8 channels (vectors = LANE_VECTORS) or eight (vectors = 1). */
INLINE_KERNEL __m256 lanes_window(const uint8_t *p, const pool_taps *taps, unsigned vectors,
                                  float *value, uint32_t *position)
{
    __m256 nan_seen = _mm256_setzero_ps(), top[LANE_VECTORS], top_at[LANE_VECTORS];
    const __m256 first_at = _mm256_castsi256_ps(_mm256_set1_epi32((int)taps->first_position));
    for (unsigned v = 0; v < vectors; v++) {
        top[v] = _mm256_loadu_ps((const float *)p + 8 * v);
        top_at[v] = first_at;
    }
    const uint8_t *plane = p;
    uint32_t plane_position = taps->first_position;
    for (uint32_t d = 0; d < taps->count[0]; d++) {
        const uint8_t *row = plane;
        uint32_t row_position = plane_position;
        for (uint32_t h = 0; h < taps->count[1]; h++) {
            const uint8_t *tap = row;
            uint32_t tap_position = row_position;
            for (uint32_t w = 0; w < taps->count[2]; w++) {
                const __m256 here = _mm256_castsi256_ps(_mm256_set1_epi32((int)tap_position));
                for (unsigned v = 0; v < vectors; v++) {
                    __m256 x = _mm256_loadu_ps((const float *)tap + 8 * v);
                    nan_seen = _mm256_or_ps(nan_seen, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
                    __m256 larger = _mm256_cmp_ps(x, top[v], _CMP_GT_OQ);
                    top[v] = _mm256_blendv_ps(top[v], x, larger);
                    top_at[v] = _mm256_blendv_ps(top_at[v], here, larger);
                }
                tap += taps->bytes[2];
                tap_position += taps->positions[2];
            }
            row += taps->bytes[1];
            row_position += taps->positions[1];
        }
        plane += taps->bytes[0];
        plane_position += taps->positions[0];
    }
    for (unsigned v = 0; v < vectors; v++) {
        _mm256_storeu_ps(value + 8 * v, top[v]);
        _mm256_storeu_ps((float *)(position + 8 * v), top_at[v]);
    }
    return nan_seen;
}

/* pool_lanes: LANE_VECTORS * 8 channels per step, then eight, then the rest through the
 * portable kernel.  The first tap is taken as it is; later ones when strictly larger, in
 * row-major order, so the first of equal values wins. */
static KERNEL bool pool_lanes_avx2(const uint8_t *p, uint64_t lanes, const pool_taps *taps,
                                   float *value, uint32_t *position)
{
    __m256 nan_seen = _mm256_setzero_ps();
    uint64_t k = 0;
    for (; k + 8 * LANE_VECTORS <= lanes; k += 8 * LANE_VECTORS)
        nan_seen = _mm256_or_ps(nan_seen, lanes_window(p + k * sizeof(float), taps, LANE_VECTORS,
                                                       value + k, position + k));
    for (; k + 8 <= lanes; k += 8)
        nan_seen = _mm256_or_ps(nan_seen, lanes_window(p + k * sizeof(float), taps, 1, value + k,
                                                       position + k));
    bool clean = _mm256_testz_ps(nan_seen, nan_seen);
    return ref_pool_lanes_portable(p + k * sizeof(float), lanes - k, taps, value + k,
                                   position + k) && clean;
}

const ref_kernels ref_kernels_avx2 = {
    .name = "avx2",
    .f32_scan = { { scan_max_first, scan_max_last }, { scan_min_first, scan_min_last } },
    .f32_rows = { { row_max_first, row_max_last }, { row_min_first, row_min_last } },
    .f16_widen = halves_to_floats_f16c,
    .pool_fold = pool_fold_avx2,
    .pool_pick = pool_pick_avx2,
    .pool_lanes = pool_lanes_avx2,
};

#endif
