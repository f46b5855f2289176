/*
 * test_kernels.c: the reference's faster kernel table (reference/kernels.h) against the
 * portable one and the naive oracle, on the shapes that reach each fast kernel's vector body
 * and tails: float32 pooling planes whose rows are many vectors wide (NCHW and NHWC, padded,
 * dilated, ceil, 5-D), packed float32 and float16 runs and rows, with heavy ties (±0, equal
 * values in different rows and columns), denormals, infinities, and, in one variant of
 * each, NaNs.  Every case goes through check_against_naive (ref_check.c), which demands
 * the selected table's bits equal the portable table's and the naive oracle's.  On a CPU
 * without AVX2/F16C (or with DMLCHECK_REFERENCE_PORTABLE=1) both tables are the portable
 * one and this test checks the portable engine against the naive oracle only; its first
 * diagnostic line says which.
 *
 * Shown to fail: planted in reference/kernels_x86.c, each alone: pool_pick_avx2 breaking
 * ties towards the larger position; pool_fold_avx2 taking equal values (_CMP_GE_OQ);
 * pool_lanes_avx2 taking equal values; the row kernel storing index + 1; the scan recording
 * the wrong position in a step.
 * Usage: test_kernels [SEED].
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "case_builder.h"
#include "kernels.h"
#include "prng.h"
#include "ref_check.h"
#include "tap.h"

#define DEFAULT_SEED 20261123u

/* Float32 values that tie heavily and order exactly only if the rule is right: -0 and +0,
 * two denormals, ±inf, 1 and -1.  NaN is added by the NaN variant. */
static const uint32_t f32_ties[] = { 0x80000000, 0x00000000, 0x00000001, 0x80000001,
                                     0x7f800000, 0xff800000, 0x3f800000, 0xbf800000 };
static const uint16_t f16_ties[] = { 0x8000, 0x0000, 0x0001, 0x8001, 0x7c00, 0xfc00, 0x3c00,
                                     0xbc00 };
#define TIES 8

/* Logical element i's bits: one of the first `spread` tie values (a small spread makes long
 * runs of equal values), and a NaN at one element in 4,096 when nan is set. */
static uint64_t tie_value(DML_TENSOR_DATA_TYPE type, prng *p, unsigned spread, bool nan)
{
    bool f16 = type == DML_TENSOR_DATA_TYPE_FLOAT16;
    if (nan && prng_below(p, 4096) == 0)
        return f16 ? 0x7e00 : 0x7fc00000;
    unsigned k = (unsigned)prng_below(p, spread);
    return f16 ? f16_ties[k] : f32_ties[k];
}

static void fill(dml_case *c, prng *p, unsigned spread, bool nan)
{
    for (uint64_t i = 0; i < case_tensor_elements(&c->input); i++)
        cb_set_input(c, i, tie_value(c->input.type, p, spread, nan));
}

typedef struct pool_shape {
    const char *name;
    UINT sizes[5];
    cb_pool_axis axes[3];
    bool nhwc;
} pool_shape;

/* {N,C,H,W} (or {N,C,D,H,W}) with rows of 37 to 113 columns: several 8-wide steps plus a
 * tail in both the fold (input columns) and the pick (output columns); NHWC ones with 9 to
 * 75 channels: 8-wide steps and a tail in the channel kernel, and more channels than one
 * call takes (64). */
static const pool_shape pool_shapes[] = {
    { "3x3_s2_p1", { 2, 3, 29, 113 }, { { 3, 2, 1, 1, 1 }, { 3, 2, 1, 1, 1 } }, false },
    { "3x3_s2_p1_nhwc", { 2, 19, 23, 61 }, { { 3, 2, 1, 1, 1 }, { 3, 2, 1, 1, 1 } }, true },
    { "2x2_s2_nhwc_wide", { 1, 75, 9, 12 }, { { 2, 2, 0, 0, 1 }, { 2, 2, 0, 0, 1 } }, true },
    { "2x2_s1", { 1, 2, 17, 67 }, { { 2, 1, 0, 0, 1 }, { 2, 1, 0, 0, 1 } }, false },
    { "3x5_dilated_padded", { 1, 2, 19, 71 }, { { 3, 1, 2, 1, 2 }, { 5, 3, 2, 4, 2 } }, false },
    { "window_wider_than_taps", { 1, 9, 9, 37 }, { { 4, 3, 3, 3, 1 }, { 7, 2, 6, 6, 1 } }, true },
    { "5d", { 1, 2, 5, 9, 45 }, { { 2, 2, 1, 0, 1 }, { 3, 2, 1, 1, 1 }, { 3, 2, 1, 1, 1 } }, false },
};
#define POOL_SHAPES (sizeof pool_shapes / sizeof pool_shapes[0])

/* NHWC strides of a 4-D {N,C,H,W}: C innermost. */
static void nhwc_strides(const UINT *sizes, UINT *strides)
{
    strides[1] = 1;
    strides[3] = sizes[1];
    strides[2] = sizes[3] * sizes[1];
    strides[0] = sizes[2] * sizes[3] * sizes[1];
}

static void pool_group(tap *t, const pool_shape *ps, uint64_t seed, const char *replay)
{
    ref_group g = { 0 };
    prng p;
    prng_seed2(&p, seed, prng_hash_str(ps->name));
    unsigned rank = ps->sizes[4] ? 5 : 4;
    for (unsigned variant = 0; variant < 8; variant++) {
        bool ceil_mode = variant & 1, nan = variant == 7;
        UINT out_sizes[3];
        for (unsigned a = 0; a < rank - 2; a++) {
            out_sizes[a] = cb_pool_out_size(ps->sizes[2 + a], &ps->axes[a], ceil_mode);
            if (!out_sizes[a])
                out_sizes[a] = cb_pool_out_size(ps->sizes[2 + a], &ps->axes[a], false);
        }
        UINT strides[4];
        if (ps->nhwc)
            nhwc_strides(ps->sizes, strides);
        dml_case c;
        cb_pool_case(&c, DML_TENSOR_DATA_TYPE_FLOAT32, rank, ps->sizes, ps->nhwc ? strides : NULL,
                     ps->axes, out_sizes,
                     variant & 2 ? DML_TENSOR_DATA_TYPE_UINT64 : DML_TENSOR_DATA_TYPE_UINT32);
        cb_alloc_input(&c);
        fill(&c, &p, 2 + variant % TIES / 2 * 2, nan);
        exec_options opt = { variant & 4 ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
        ref_group_check(&g, &c, &opt);
        case_free(&c);
    }
    char name[96];
    snprintf(name, sizeof name, "max_pooling2_f32_kernels_%s", ps->name);
    ref_group_report(t, &g, replay, name);
}

/* ARGMIN/ARGMAX over packed runs ({rows, n}, axis 1) and rows ({n, cols}, axis 0; and the
 * transposed view), both directions, both operators, with and without NaNs. */
static void arg_group(tap *t, DML_TENSOR_DATA_TYPE type, bool rows, uint64_t seed,
                      const char *replay)
{
    static const UINT lengths[] = { 1, 7, 8, 9, 31, 32, 33, 63, 65, 257, 1025 };
    ref_group g = { 0 };
    prng p;
    prng_seed2(&p, seed, (type << 1 | rows) ^ 0x6b65726eu);
    for (unsigned li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
        for (unsigned variant = 0; variant < 8; variant++) {
            UINT n = lengths[li], other = 3 + variant % 3;
            bool transposed = rows && (variant & 1);
            UINT sizes[2] = { rows ? (transposed ? n : other) : other, rows ? (transposed ? other : n) : n };
            UINT strides[2] = { 1, sizes[0] };
            UINT axis[1] = { rows ? (transposed ? 1u : 0u) : 1u };
            dml_case c;
            cb_arg_case(&c, variant & 2 ? OP_ARGMIN : OP_ARGMAX, type, 2, sizes,
                        transposed ? strides : NULL, 1, axis,
                        (DML_AXIS_DIRECTION)(variant >> 2 & 1), DML_TENSOR_DATA_TYPE_UINT32);
            cb_alloc_input(&c);
            fill(&c, &p, 2 + li % 4 * 2, variant == 5);
            exec_options opt = { variant & 1 ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
            ref_group_check(&g, &c, &opt);
            case_free(&c);
        }
    char name[96];
    snprintf(name, sizeof name, "arg_%s_%s_kernels", type == DML_TENSOR_DATA_TYPE_FLOAT16 ? "f16" : "f32",
             rows ? "rows" : "runs");
    ref_group_report(t, &g, replay, name);
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : DEFAULT_SEED;
    char replay[512];
    snprintf(replay, sizeof replay, "%s %" PRIu64, argv[0], seed);
    tap t;
    tap_plan(&t, 0);
    const ref_kernels *k = ref_kernels_select();
    tap_diag("seed %" PRIu64 "; kernels: %s%s; replay with: %s", seed, k->name,
             k == &ref_kernels_portable ? " (no faster table selected: naive oracle only)"
                                        : " against portable and the naive oracle", replay);
    for (size_t i = 0; i < POOL_SHAPES; i++)
        pool_group(&t, &pool_shapes[i], seed, replay);
    arg_group(&t, DML_TENSOR_DATA_TYPE_FLOAT32, false, seed, replay);
    arg_group(&t, DML_TENSOR_DATA_TYPE_FLOAT32, true, seed, replay);
    arg_group(&t, DML_TENSOR_DATA_TYPE_FLOAT16, false, seed, replay);
    return tap_done(&t);
}
