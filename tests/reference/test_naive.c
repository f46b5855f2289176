/*
 * test_naive.c: the reference against the naive implementation (naive.c), bit for bit,
 * classes included.
 *   - ARGMIN/ARGMAX exhaustively: every rank <= 4 with sizes <= 3, every axis subset, both
 *     directions, both NaN policies, value patterns with heavy ties and special values.
 *   - MAX_POOLING2 over grids of window/stride/padding/dilation per spatial axis (floor and
 *     ceil output sizes, windows entirely in padding), with no, UINT32 and UINT64 indices,
 *     4-D and 5-D.
 *   - Random cases of every data type under packed, padded, permuted and broadcast layouts.
 * Every built case must also pass the validator.  Usage: test_naive [SEED].
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_builder.h"
#include "dtype.h"
#include "prng.h"
#include "ref_check.h"
#include "tap.h"
#include "value_pool.h"

#define DEFAULT_SEED 20240601u
/* Float32 value patterns by logical index, chosen to make ties heavy. */
enum { PAT_EQUAL, PAT_ZEROS_ONES, PAT_SPECIALS, PAT_ALL_NAN, PAT_NEG_INF_NAN, PAT_COUNT };

static uint64_t pattern_bits(unsigned pattern, uint64_t i)
{
    static const uint64_t zeros_ones[] = { 0x00000000, 0x80000000, 0x3f800000 };
    unsigned n;
    const uint64_t *pool = value_pool(DML_TENSOR_DATA_TYPE_FLOAT32, &n);
    switch (pattern) {
    case PAT_EQUAL: return 0x3f800000;
    case PAT_ZEROS_ONES: return zeros_ones[(i * 5 + i / 3) % 3];
    case PAT_SPECIALS: return pool[(i * 7 + 3) % n];
    case PAT_ALL_NAN: return 0x7f800001 + i; /* distinct payloads: the index is visible */
    default: return i % 3 == 1 ? 0x7fc00000 + i : 0xff800000;
    }
}

static const exec_options policies[] = { { NAN_POLICY_IGNORE, false }, { NAN_POLICY_PROPAGATE, false } };

static void exhaustive_arg(tap *t, const char *replay)
{
    ref_group g = { 0 };
    for (int op = OP_ARGMIN; op <= OP_ARGMAX; op++)
        for (unsigned rank = 1; rank <= 4; rank++) {
            unsigned shapes = 1;
            for (unsigned i = 0; i < rank; i++)
                shapes *= 3;
            for (unsigned shape = 0; shape < shapes; shape++) {
                UINT sizes[4];
                for (unsigned i = 0, s = shape; i < rank; i++, s /= 3)
                    sizes[i] = 1 + s % 3;
                for (unsigned mask = 1; mask < (1u << rank); mask++) {
                    UINT axes[4];
                    unsigned count = 0;
                    /* Axes listed in descending order: D2 says the order must not matter. */
                    for (unsigned a = rank; a-- > 0;)
                        if (mask & (1u << a))
                            axes[count++] = a;
                    for (int dir = 0; dir < 2; dir++)
                        for (unsigned pat = 0; pat < PAT_COUNT; pat++)
                            for (unsigned pol = 0; pol < 2; pol++) {
                                dml_case c;
                                cb_arg_case(&c, (op_id)op, DML_TENSOR_DATA_TYPE_FLOAT32, rank,
                                            sizes, NULL, count, axes, (DML_AXIS_DIRECTION)dir,
                                            DML_TENSOR_DATA_TYPE_UINT32);
                                cb_alloc_input(&c);
                                for (uint64_t i = 0; i < case_tensor_elements(&c.input); i++)
                                    cb_set_input(&c, i, pattern_bits(pat, i));
                                ref_group_check(&g, &c, &policies[pol]);
                                case_free(&c);
                            }
                }
            }
            char name[64];
            snprintf(name, sizeof name, "%s_exhaustive_rank%u_f32", op_table[op].stem, rank);
            ref_group_report(t, &g, replay, name);
        }
}

/* Long contiguous float32 runs, so the block-wise float scan of arg_reduce.c meets a NaN,
 * an all-(-inf) run, ties and new maxima at every position of a block and of its tail. */
static void long_runs_arg(tap *t, uint64_t seed, const char *replay)
{
    static const UINT lengths[] = { 15, 16, 17, 31, 32, 33, 48, 100 };
    ref_group g = { 0 };
    prng p;
    prng_seed2(&p, seed, prng_hash_str("long_runs"));
    for (unsigned li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
        for (unsigned variant = 0; variant < 120; variant++) {
            UINT sizes[2] = { 2, lengths[li] }, axes[1] = { 1 };
            dml_case c;
            cb_arg_case(&c, variant % 2 ? OP_ARGMAX : OP_ARGMIN, DML_TENSOR_DATA_TYPE_FLOAT32, 2,
                        sizes, NULL, 1, axes, (DML_AXIS_DIRECTION)(variant / 2 % 2),
                        DML_TENSOR_DATA_TYPE_UINT32);
            cb_alloc_input(&c);
            uint64_t picks[3];
            value_pool_pick(DML_TENSOR_DATA_TYPE_FLOAT32, &p, 3, picks);
            uint64_t n = case_tensor_elements(&c.input);
            for (uint64_t i = 0; i < n; i++) /* mostly one value, rare others: late winners */
                cb_set_input(&c, i, picks[prng_chance(&p, 1, 8) ? 1 + prng_below(&p, 2) : 0]);
            exec_options opt = { variant / 4 % 2 ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
            ref_group_check(&g, &c, &opt);
            case_free(&c);
        }
    ref_group_report(t, &g, replay, "arg_long_runs_f32");
}

/* One spatial axis of the pooling grids, with its input size and output-size mode. */
typedef struct grid_axis {
    UINT in_size;
    cb_pool_axis p;
    bool ceil_mode;
} grid_axis;

/* Every (input size, window, stride, start, end, dilation, floor/ceil) combination within
 * the given bounds that has a valid output size. */
static unsigned grid_axes(grid_axis *out, unsigned max, UINT max_in, UINT max_window,
                          UINT max_stride, UINT max_pad, UINT max_dilation)
{
    unsigned n = 0;
    for (UINT in = 1; in <= max_in; in++)
        for (UINT w = 1; w <= max_window; w++)
            for (UINT s = 1; s <= max_stride; s++)
                for (UINT sp = 0; sp <= max_pad; sp++)
                    for (UINT ep = 0; ep <= max_pad; ep++)
                        for (UINT d = 1; d <= max_dilation; d++)
                            for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++) {
                                cb_pool_axis p = { w, s, sp, ep, d };
                                if (n < max && cb_pool_out_size(in, &p, ceil_mode))
                                    out[n++] = (grid_axis){ in, p, ceil_mode };
                            }
    return n;
}

/* A few fixed axes paired with every grid axis on the other dimension. */
static const grid_axis fixed_axes[] = {
    { 3, { 1, 1, 0, 0, 1 }, false },
    { 4, { 2, 2, 1, 0, 1 }, true },
    { 4, { 3, 1, 1, 1, 2 }, false },
    { 2, { 2, 3, 2, 2, 1 }, false }, /* windows entirely in padding */
};
#define FIXED_AXES (sizeof fixed_axes / sizeof fixed_axes[0])

static const DML_TENSOR_DATA_TYPE index_variants[] = {
    DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64,
};

static void pool_grid_case(ref_group *g, unsigned rank, const grid_axis *axes, unsigned variant)
{
    UINT sizes[5] = { 1 + variant % 2, 2 };
    cb_pool_axis p[3];
    UINT out_sizes[3];
    for (unsigned s = 0; s < rank - 2; s++) {
        sizes[2 + s] = axes[s].in_size;
        p[s] = axes[s].p;
        out_sizes[s] = cb_pool_out_size(axes[s].in_size, &axes[s].p, axes[s].ceil_mode);
    }
    dml_case c;
    cb_pool_case(&c, DML_TENSOR_DATA_TYPE_FLOAT32, rank, sizes, NULL, p, out_sizes,
                 index_variants[variant % 3]);
    cb_alloc_input(&c);
    unsigned pattern = (unsigned[]){ PAT_ZEROS_ONES, PAT_SPECIALS, PAT_ALL_NAN, PAT_NEG_INF_NAN }[variant % 4];
    for (uint64_t i = 0; i < case_tensor_elements(&c.input); i++)
        cb_set_input(&c, i, pattern_bits(pattern, i));
    ref_group_check(g, &c, &policies[variant % 2]);
    /* Every dilation 1: the same case is a MAX_POOLING1 case, checked as one too. */
    bool undilated = true;
    for (unsigned s = 0; s < rank - 2; s++)
        undilated &= c.dilations[s] == 1;
    if (undilated) {
        c.op = OP_MAX_POOLING1;
        case_link(&c);
        ref_group_check(g, &c, &policies[variant % 2]);
    }
    case_free(&c);
}

static void exhaustive_pool(tap *t, const char *replay)
{
    static grid_axis grid[4096];
    ref_group g = { 0 };
    unsigned n = grid_axes(grid, 4096, 4, 3, 3, 2, 2);
    for (unsigned i = 0; i < n; i++)
        for (unsigned f = 0; f < FIXED_AXES; f++)
            for (unsigned variant = 0; variant < 6; variant++) {
                grid_axis hw[2] = { grid[i], fixed_axes[f] };
                pool_grid_case(&g, 4, hw, variant);
                grid_axis wh[2] = { fixed_axes[f], grid[i] };
                pool_grid_case(&g, 4, wh, variant + 1);
            }
    ref_group_report(t, &g, replay, "max_pooling2_exhaustive_4d_grid_f32");

    n = grid_axes(grid, 4096, 3, 2, 2, 1, 2);
    for (unsigned i = 0; i < n; i++)
        for (unsigned f = 0; f < FIXED_AXES; f++)
            for (unsigned variant = 0; variant < 3; variant++) {
                grid_axis dhw[3] = { grid[i], fixed_axes[f], fixed_axes[(f + 1) % FIXED_AXES] };
                pool_grid_case(&g, 5, dhw, variant);
                grid_axis hdw[3] = { fixed_axes[f], grid[i], fixed_axes[(f + 2) % FIXED_AXES] };
                pool_grid_case(&g, 5, hdw, variant + 1);
                grid_axis whd[3] = { fixed_axes[(f + 3) % FIXED_AXES], fixed_axes[f], grid[i] };
                pool_grid_case(&g, 5, whd, variant + 2);
            }
    ref_group_report(t, &g, replay, "max_pooling2_exhaustive_5d_grid_f32");
}

/* Random input strides: packed, padded, permuted (with padding) or broadcast (stride 0 on
 * some dimensions).  Returns false for packed (no strides). */
static bool random_layout(prng *p, unsigned rank, const UINT *sizes, UINT *strides)
{
    unsigned kind = (unsigned)prng_below(p, 4);
    if (kind == 0)
        return false;
    unsigned order[DML_MAX_RANK];
    for (unsigned i = 0; i < rank; i++)
        order[i] = i;
    if (kind >= 2) /* permuted memory order */
        for (unsigned i = rank; i > 1; i--) {
            unsigned j = (unsigned)prng_below(p, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    UINT s = 1 + (UINT)prng_below(p, 2);
    for (unsigned k = rank; k-- > 0;) {
        strides[order[k]] = s;
        s = s * sizes[order[k]] + (UINT)prng_below(p, 3);
    }
    if (kind == 3)
        for (unsigned i = 0; i < rank; i++)
            if (prng_chance(p, 1, 3))
                strides[i] = 0;
    return true;
}

/* Fills the input from a few values of the type's pool (heavy ties). */
static void random_values(prng *p, dml_case *c)
{
    uint64_t picks[4];
    unsigned distinct = 1 + (unsigned)prng_below(p, 4);
    value_pool_pick(c->input.type, p, distinct, picks);
    for (uint64_t i = 0; i < case_tensor_elements(&c->input); i++)
        cb_set_input(c, i, picks[prng_below(p, distinct)]);
}

static exec_options random_options(prng *p)
{
    exec_options o = { prng_chance(p, 1, 2) ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE,
                       prng_chance(p, 1, 4) };
    return o;
}

static void random_arg(tap *t, uint64_t seed, const char *replay)
{
    ref_group g = { 0 };
    for (unsigned ti = 0; ti < ARG_INPUT_TYPE_COUNT; ti++) {
        prng p;
        prng_seed2(&p, seed, prng_hash_str(dtype_stem(arg_input_types[ti])));
        for (unsigned n = 0; n < 400; n++) {
            unsigned rank = 1 + (unsigned)prng_below(&p, 5);
            UINT sizes[DML_MAX_RANK], strides[DML_MAX_RANK], axes[DML_MAX_RANK];
            for (unsigned i = 0; i < rank; i++)
                sizes[i] = 1 + (UINT)prng_below(&p, 4);
            unsigned count = 0;
            uint64_t mask = 1 + prng_below(&p, (1u << rank) - 1);
            for (unsigned a = 0; a < rank; a++)
                if (mask & (1u << a))
                    axes[count++] = a;
            for (unsigned i = count; i > 1; i--) { /* D2: Axes order is irrelevant */
                unsigned j = (unsigned)prng_below(&p, i), tmp = axes[i - 1];
                axes[i - 1] = axes[j];
                axes[j] = tmp;
            }
            bool strided = random_layout(&p, rank, sizes, strides);
            dml_case c;
            cb_arg_case(&c, prng_chance(&p, 1, 2) ? OP_ARGMAX : OP_ARGMIN, arg_input_types[ti],
                        rank, sizes, strided ? strides : NULL, count, axes,
                        (DML_AXIS_DIRECTION)prng_below(&p, 2),
                        arg_output_types[prng_below(&p, ARG_OUTPUT_TYPE_COUNT)]);
            cb_alloc_input(&c);
            random_values(&p, &c);
            exec_options opt = random_options(&p);
            ref_group_check(&g, &c, &opt);
            case_free(&c);
        }
        char name[64];
        snprintf(name, sizeof name, "arg_random_layouts_%s", dtype_stem(arg_input_types[ti]));
        ref_group_report(t, &g, replay, name);
    }
}

static void random_pool(tap *t, uint64_t seed, const char *replay)
{
    ref_group g = { 0 };
    for (unsigned ti = 0; ti < POOL_TYPE_COUNT; ti++) {
        prng p;
        prng_seed2(&p, seed, prng_hash_str(dtype_stem(pool_types[ti])) ^ 0x9001);
        for (unsigned n = 0; n < 300; n++) {
            unsigned rank = 4 + (unsigned)prng_below(&p, 2);
            UINT sizes[5], strides[5], out_sizes[3];
            cb_pool_axis axes[3];
            sizes[0] = 1 + (UINT)prng_below(&p, 2);
            sizes[1] = 1 + (UINT)prng_below(&p, 3);
            bool valid = true;
            for (unsigned s = 0; s < rank - 2; s++) {
                sizes[2 + s] = 1 + (UINT)prng_below(&p, 5);
                axes[s] = (cb_pool_axis){ 1 + (UINT)prng_below(&p, 3), 1 + (UINT)prng_below(&p, 3),
                                          (UINT)prng_below(&p, 3), (UINT)prng_below(&p, 3),
                                          1 + (UINT)prng_below(&p, 2) };
                bool ceil_mode = prng_chance(&p, 1, 3);
                out_sizes[s] = cb_pool_out_size(sizes[2 + s], &axes[s], ceil_mode);
                if (!out_sizes[s])
                    out_sizes[s] = cb_pool_out_size(sizes[2 + s], &axes[s], false);
                valid &= out_sizes[s] != 0;
            }
            if (!valid)
                continue;
            bool strided = random_layout(&p, rank, sizes, strides);
            dml_case c;
            cb_pool_case(&c, pool_types[ti], rank, sizes, strided ? strides : NULL, axes,
                         out_sizes, index_variants[prng_below(&p, 3)]);
            cb_alloc_input(&c);
            random_values(&p, &c);
            exec_options opt = random_options(&p);
            ref_group_check(&g, &c, &opt);
            case_free(&c);
        }
        char name[64];
        snprintf(name, sizeof name, "max_pooling2_random_layouts_%s", dtype_stem(pool_types[ti]));
        ref_group_report(t, &g, replay, name);
    }
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : DEFAULT_SEED;
    char replay[512];
    snprintf(replay, sizeof replay, "%s %" PRIu64, argv[0], seed);
    tap t;
    tap_plan(&t, 0);
    tap_diag("seed %" PRIu64 "; replay with: %s", seed, replay);
    exhaustive_arg(&t, replay);
    long_runs_arg(&t, seed, replay);
    exhaustive_pool(&t, replay);
    random_arg(&t, seed, replay);
    random_pool(&t, seed, replay);
    return tap_done(&t);
}
