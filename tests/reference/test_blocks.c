/*
 * test_blocks.c: the fast reference engine against the naive spec-literal oracle (naive.c)
 * on shapes that straddle every block size of the engine, so a bug that only a long run or
 * row shows is caught without an OpenCL platform.  test_naive.c keeps to tiny shapes, which
 * never leave the first block.
 *
 * The block sizes of reference/ (private there, restated here; a change of either should
 * change the lengths below):
 *   - KEY_BLOCK = 1024 (arg_reduce.c): elements converted to keys per typed call, in the
 *     exact scan of a reduced run (every type but FLOAT16, FLOAT32 when the float scan gives
 *     up: a NaN, an all-(-inf) run, flushed denormals) and in the merge of a kept row (every
 *     type but unflushed FLOAT32);
 *   - the float kernels (kernels.c SCAN_BLOCK = 16, kernels_x86.c SCAN_STEP = 32 and rows
 *     of 8): every length here is also on either side of a multiple of 16 and 32; packed
 *     FLOAT16 runs are widened to float32 in blocks of KEY_BLOCK;
 *   - every check also runs the portable kernel table where the CPU selects a faster one
 *     (ref_check.c), so both tables meet every edge below;
 *   - max_pooling.c has no block: it keys a whole N,C plane, one W row per call; its rows
 *     and planes are still taken past 1,024 and 2,048 elements.
 * Lengths are k*1024-1, k*1024 and k*1024+1 for k = 1, 2 (and 3 for runs), along contiguous,
 * strided (padded), permuted, broadcast and multi-axis (coalesced and not) reductions, kept
 * rows, pooling rows and planes; every data type; both operators and directions; both NaN
 * policies; the extreme placed on block edges (first and last of a block, only in the last
 * partial block, tied across a boundary, NaN beside it).
 *
 * Shown to fail: each bug below was planted by hand in reference/arg_reduce.c, this test run,
 * and the plant reverted.  The other reference tests (test_naive, test_metamorphic,
 * test_classes) passed with every plant; only two large inputs of the fuzz corpora (the
 * invariant checks of fuzz_validate and fuzz_reference, suite fuzz-corpus) noticed them.
 *   1. run_exact skips the last partial block after a full one (loop condition
 *      `start + KEY_BLOCK <= n || start == 0`): 18 groups fail, 913 of their 3,996 cases:
 *      arg_runs_* and arg_multi_axis_* of every type but FLOAT16, which has its own unblocked
 *      scan (FLOAT32 through its NaN, all-(-inf) and flushed runs);
 *   2. run_exact ranks ties by position within the block (`order_tie_rank(i, ...)` for
 *      `order_tie_rank(start + i, ...)`): the same 18 groups, 1,591 cases;
 *   3. reduce_row skips the last partial block (the same loop condition over d->size):
 *      arg_rows_* of every type fail, 22 of their 25 cases (the rows of 1,023, 1,024 and
 *      2,048, which have no partial block, pass, as they must); FLOAT32 through its flushed
 *      rows;
 *   4. (max_pooling.c has no block, so one was planted: each W row keyed in blocks of 1,024,
 *      the last partial one skipped): every max_pooling2_long_rows_planes_* group fails.
 * Usage: test_blocks [SEED].
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "case_builder.h"
#include "dtype.h"
#include "prng.h"
#include "ref_check.h"
#include "tap.h"
#include "value_pool.h"

#define DEFAULT_SEED 20240917u
#define KEY_BLOCK 1024 /* reference/arg_reduce.c */
#define NO_POSITION UINT64_MAX

/* Run lengths: either side of one, two and three key blocks. */
static const UINT run_lengths[] = {
    KEY_BLOCK - 1, KEY_BLOCK, KEY_BLOCK + 1, 2 * KEY_BLOCK - 1, 2 * KEY_BLOCK, 2 * KEY_BLOCK + 1,
    3 * KEY_BLOCK + 1,
};
#define RUN_LENGTHS (sizeof run_lengths / sizeof run_lengths[0])

/* Values of one type as raw bits: the best and worst for ARGMAX (swapped for ARGMIN), an
 * ordinary one in between, and a NaN (0 for integer types, which have none). */
typedef struct type_values {
    uint64_t high, mid, low, nan;
} type_values;

static type_values values_of(DML_TENSOR_DATA_TYPE t)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return (type_values){ 0x7f800000, 0x3f800000, 0xff800000, 0x7fc00001 };
    case DML_TENSOR_DATA_TYPE_FLOAT16: return (type_values){ 0x7c00, 0x3c00, 0xfc00, 0x7e01 };
    case DML_TENSOR_DATA_TYPE_INT8: return (type_values){ 0x7f, 1, 0x80, 0 };
    case DML_TENSOR_DATA_TYPE_INT16: return (type_values){ 0x7fff, 1, 0x8000, 0 };
    case DML_TENSOR_DATA_TYPE_INT32: return (type_values){ 0x7fffffff, 1, 0x80000000, 0 };
    case DML_TENSOR_DATA_TYPE_INT64: return (type_values){ INT64_MAX, 1, 0x8000000000000000u, 0 };
    case DML_TENSOR_DATA_TYPE_UINT8: return (type_values){ 0xff, 0x80, 0, 0 };
    case DML_TENSOR_DATA_TYPE_UINT16: return (type_values){ 0xffff, 0x8000, 0, 0 };
    case DML_TENSOR_DATA_TYPE_UINT32: return (type_values){ 0xffffffff, 0x80000000, 0, 0 };
    default: return (type_values){ UINT64_MAX, 0x8000000000000000u, 0, 0 };
    }
}

/* Where the extreme (and a NaN) sits in a run of length n, by position along the run. */
enum {
    PAT_TIE_ACROSS_EDGE,  /* extreme at the last of block 0 and the first of block 1 */
    PAT_LAST_ONLY,        /* extreme only at the run's last element (the last partial block) */
    PAT_BLOCK_STARTS,     /* extreme at the first element of every block but block 0 */
    PAT_BLOCK_ENDS,       /* extreme at the last element of every full block */
    PAT_BOTH_ENDS,        /* extreme at the first and the last element: a tie across blocks */
    PAT_ALL_EQUAL,        /* every element the same ordinary value */
    PAT_ALL_WORST,        /* every element the worst value (-inf for float ARGMAX) */
    PAT_NAN_AT_EDGE,      /* extreme at a block's last element, NaNs at the next and the end */
    PAT_RANDOM_TIES,      /* two or three values of the type's pool, at random */
    PAT_COUNT
};

static bool extreme_at(unsigned pattern, uint64_t i, uint64_t n)
{
    switch (pattern) {
    case PAT_TIE_ACROSS_EDGE: return i == KEY_BLOCK - 1 || i == KEY_BLOCK;
    case PAT_LAST_ONLY: return i == n - 1;
    case PAT_BLOCK_STARTS: return i > 0 && i % KEY_BLOCK == 0;
    case PAT_BLOCK_ENDS: return i % KEY_BLOCK == KEY_BLOCK - 1;
    case PAT_BOTH_ENDS: return i == 0 || i == n - 1;
    case PAT_NAN_AT_EDGE: return i == KEY_BLOCK - 1;
    default: return false;
    }
}

/* The bits of element i of a run of length n under a pattern (not PAT_RANDOM_TIES). */
static uint64_t pattern_bits(unsigned pattern, uint64_t i, uint64_t n, const type_values *v,
                             bool minimize)
{
    uint64_t best = minimize ? v->low : v->high, worst = minimize ? v->high : v->low;
    if (pattern == PAT_ALL_WORST)
        return worst;
    if (pattern == PAT_NAN_AT_EDGE && v->nan && (i == KEY_BLOCK || i == n - 1))
        return v->nan + (i & 0xff); /* distinct payloads: the chosen NaN is visible */
    return extreme_at(pattern, i, n) ? best : v->mid;
}

/* Fills the input of an ARGMIN/ARGMAX case whose reduction runs along `run` positions, each
 * `inner` logical elements apart: element i of the input takes the pattern at position
 * i / inner % run (for the last axis, or coalesced trailing axes, inner is 1). */
static void fill_runs(dml_case *c, unsigned pattern, uint64_t run, uint64_t inner, prng *p)
{
    type_values v = values_of(c->input.type);
    bool minimize = c->op == OP_ARGMIN;
    uint64_t picks[3];
    value_pool_pick(c->input.type, p, 3, picks);
    unsigned distinct = 2 + (unsigned)prng_below(p, 2);
    for (uint64_t i = 0; i < case_tensor_elements(&c->input); i++) {
        uint64_t at = i / inner % run;
        cb_set_input(c, i, pattern == PAT_RANDOM_TIES ? picks[prng_below(p, distinct)]
                                                       : pattern_bits(pattern, at, run, &v, minimize));
    }
}

/* The shapes of a reduction whose reduced run is `n` elements long. */
enum {
    RUN_CONTIGUOUS,  /* {n}, axis 0 */
    RUN_PADDED,      /* {2, n} with strides {2n+3, 2}, axis 1: a strided run */
    RUN_PERMUTED,    /* {n, 2} with strides {1, n}, axis 0: memory-innermost, logically outer */
    RUN_BROADCAST,   /* {2, n} with strides {1, 0}, axis 1: one element n times, all tied */
    RUN_LAYOUT_COUNT
};

/* Builds the case of one layout; the values are filled by the caller. */
static void build_run_case(dml_case *c, op_id op, DML_TENSOR_DATA_TYPE type, unsigned layout,
                           UINT n, DML_AXIS_DIRECTION dir, DML_TENSOR_DATA_TYPE out_type)
{
    UINT axis0[1] = { 0 }, axis1[1] = { 1 };
    switch (layout) {
    case RUN_CONTIGUOUS:
        cb_arg_case(c, op, type, 1, (UINT[]){ n }, NULL, 1, axis0, dir, out_type);
        break;
    case RUN_PADDED:
        cb_arg_case(c, op, type, 2, (UINT[]){ 2, n }, (UINT[]){ 2 * n + 3, 2 }, 1, axis1, dir, out_type);
        break;
    case RUN_PERMUTED:
        cb_arg_case(c, op, type, 2, (UINT[]){ n, 2 }, (UINT[]){ 1, n }, 1, axis0, dir, out_type);
        break;
    default:
        cb_arg_case(c, op, type, 2, (UINT[]){ 2, n }, (UINT[]){ 1, 0 }, 1, axis1, dir, out_type);
        break;
    }
    cb_alloc_input(c);
}

static const DML_TENSOR_DATA_TYPE index_types[] = {
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_INT32,
    DML_TENSOR_DATA_TYPE_UINT64,
};

/* NaN policies and flushing: flushing sends FLOAT32 runs and rows through the key blocks. */
static exec_options options_for(DML_TENSOR_DATA_TYPE type, unsigned variant)
{
    exec_options o = { variant & 1 ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE,
                       type == DML_TENSOR_DATA_TYPE_FLOAT32 && (variant & 2) };
    return o;
}

/* Every run length, layout and pattern of one type; operator, direction, output type and
 * options cycle with the variant so that each pattern meets all of them. */
static void runs_of_type(tap *t, DML_TENSOR_DATA_TYPE type, uint64_t seed, const char *replay)
{
    ref_group g = { 0 };
    prng p;
    prng_seed2(&p, seed, prng_hash_str(dtype_stem(type)) ^ 0xb10c);
    unsigned variant = 0;
    for (unsigned layout = 0; layout < RUN_LAYOUT_COUNT; layout++)
        for (unsigned li = 0; li < RUN_LENGTHS; li++)
            for (unsigned pattern = 0; pattern < PAT_COUNT; pattern++, variant++) {
                unsigned combo = variant + li; /* shifts the cycle from length to length */
                dml_case c;
                build_run_case(&c, combo & 1 ? OP_ARGMIN : OP_ARGMAX, type, layout, run_lengths[li],
                               (DML_AXIS_DIRECTION)(combo >> 1 & 1), index_types[combo % 4]);
                fill_runs(&c, pattern, run_lengths[li], layout == RUN_PERMUTED ? 2 : 1, &p);
                for (unsigned o = 0; o < (dtype_is_float(type) ? 4u : 1u); o++) {
                    exec_options opt = options_for(type, o);
                    ref_group_check(&g, &c, &opt);
                }
                case_free(&c);
            }
    char name[64];
    snprintf(name, sizeof name, "arg_runs_%s", dtype_stem(type));
    ref_group_report(t, &g, replay, name);
}

/* Reductions over two axes: {2, 3, n} reducing axes {1, 2} coalesces into one run of 3n
 * (crossing more block edges than n does), and {3, 2, n} reducing {0, 2} keeps runs of n
 * apart, whose reduced indices are offset by the outer axis's weight. */
static void multi_axis_of_type(tap *t, DML_TENSOR_DATA_TYPE type, uint64_t seed, const char *replay)
{
    ref_group g = { 0 };
    prng p;
    prng_seed2(&p, seed, prng_hash_str(dtype_stem(type)) ^ 0xa5e5);
    unsigned variant = 0;
    for (unsigned li = 0; li < RUN_LENGTHS - 1; li++)
        for (unsigned pattern = 0; pattern < PAT_COUNT; pattern++, variant++)
            for (unsigned shape = 0; shape < 2; shape++) {
                UINT n = run_lengths[li];
                UINT sizes[3] = { shape ? 3 : 2, shape ? 2 : 3, n };
                UINT axes[2] = { 2, shape ? 0 : 1 }; /* listed descending: D2 ignores order */
                unsigned combo = variant + li + shape;
                dml_case c;
                cb_arg_case(&c, combo & 1 ? OP_ARGMIN : OP_ARGMAX, type, 3, sizes, NULL, 2, axes,
                            (DML_AXIS_DIRECTION)(combo >> 1 & 1), index_types[combo % 4]);
                cb_alloc_input(&c);
                /* Coalesced: one run of 3n; apart: runs of n. */
                fill_runs(&c, pattern, shape ? n : 3ull * n, 1, &p);
                exec_options opt = options_for(type, combo);
                ref_group_check(&g, &c, &opt);
                case_free(&c);
            }
    char name[64];
    snprintf(name, sizeof name, "arg_multi_axis_%s", dtype_stem(type));
    ref_group_report(t, &g, replay, name);
}

/* Kept rows: {2, n} reducing axis 0 makes a row of n running bests merged in key blocks;
 * {n, 2} with strides {1, n} reducing axis 1 makes the same row memory-innermost but
 * logically outer.  The naive oracle costs outputs x inputs (4n^2 steps here), so every type
 * gets both layouts one element past a block, and INT16 (the same typed key loop as every
 * type but FLOAT32) the other five lengths as well. */
static void rows_of_type(tap *t, DML_TENSOR_DATA_TYPE type, uint64_t seed, const char *replay)
{
    static const UINT all[] = { KEY_BLOCK + 1, KEY_BLOCK - 1, KEY_BLOCK,
                                2 * KEY_BLOCK - 1, 2 * KEY_BLOCK, 2 * KEY_BLOCK + 1 };
    unsigned count = type == DML_TENSOR_DATA_TYPE_INT16 ? sizeof all / sizeof all[0] : 1;
    ref_group g = { 0 };
    prng p;
    prng_seed2(&p, seed, prng_hash_str(dtype_stem(type)) ^ 0x5043);
    for (unsigned li = 0; li < count; li++)
        for (unsigned permuted = 0; permuted < (li ? 1u : 2u); permuted++) {
            UINT n = all[li];
            unsigned combo = li + permuted + (unsigned)type;
            UINT sizes[2] = { permuted ? n : 2, permuted ? 2 : n };
            UINT strides[2] = { 1, n }, axes[1] = { permuted ? 1 : 0 };
            dml_case c;
            cb_arg_case(&c, combo & 1 ? OP_ARGMIN : OP_ARGMAX, type, 2, sizes,
                        permuted ? strides : NULL, 1, axes,
                        (DML_AXIS_DIRECTION)(combo >> 1 & 1), index_types[combo % 4]);
            cb_alloc_input(&c);
            fill_runs(&c, PAT_RANDOM_TIES, n, 1, &p);
            exec_options opt = options_for(type, 2 | combo);
            ref_group_check(&g, &c, &opt);
            case_free(&c);
        }
    char name[64];
    snprintf(name, sizeof name, "arg_rows_%s", dtype_stem(type));
    ref_group_report(t, &g, replay, name);
}

/* Pooling shapes whose W rows or whole planes pass 1,024 and 2,048 elements. */
typedef struct pool_shape {
    unsigned rank;
    UINT sizes[5];
    cb_pool_axis axes[3];
} pool_shape;

static const pool_shape pool_shapes[] = {
    { 4, { 1, 1, 2, KEY_BLOCK - 1 }, { { 2, 1, 0, 1, 1 }, { 3, 1, 1, 1, 1 } } },
    { 4, { 1, 1, 2, KEY_BLOCK }, { { 2, 1, 0, 0, 1 }, { 2, 2, 0, 0, 1 } } },
    { 4, { 1, 2, 2, KEY_BLOCK + 1 }, { { 1, 1, 0, 0, 1 }, { 3, 2, 1, 0, 2 } } },
    { 4, { 1, 1, 1, 2 * KEY_BLOCK - 1 }, { { 1, 1, 0, 0, 1 }, { 4, 3, 2, 1, 1 } } },
    { 4, { 1, 1, 1, 2 * KEY_BLOCK }, { { 1, 1, 1, 1, 1 }, { 2, 1, 0, 1, 1 } } },
    { 4, { 2, 1, 1, 2 * KEY_BLOCK + 1 }, { { 1, 1, 0, 0, 1 }, { 3, 1, 1, 1, 2 } } },
    { 4, { 1, 1, 2 * KEY_BLOCK + 1, 1 }, { { 3, 2, 1, 0, 1 }, { 1, 1, 0, 0, 1 } } },
    { 4, { 1, 2, 31, 33 }, { { 2, 1, 0, 0, 1 }, { 3, 2, 1, 1, 1 } } },   /* plane 1,023 */
    { 4, { 1, 1, 32, 32 }, { { 3, 3, 1, 1, 1 }, { 2, 2, 0, 0, 2 } } },   /* plane 1,024 */
    { 4, { 1, 1, 41, 25 }, { { 2, 2, 0, 1, 1 }, { 2, 1, 0, 0, 1 } } },   /* plane 1,025 */
    { 4, { 1, 1, 45, 46 }, { { 3, 1, 1, 1, 1 }, { 3, 3, 0, 2, 1 } } },   /* plane 2,070 */
    { 5, { 1, 1, 2, 32, 32 }, { { 2, 1, 0, 0, 1 }, { 2, 2, 1, 0, 1 }, { 3, 2, 1, 1, 1 } } },
    { 5, { 1, 1, 3, 23, 89 }, { { 2, 2, 1, 0, 1 }, { 1, 1, 0, 0, 1 }, { 2, 1, 0, 0, 2 } } },
};
#define POOL_SHAPES (sizeof pool_shapes / sizeof pool_shapes[0])

static const DML_TENSOR_DATA_TYPE pool_index_types[] = {
    DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64,
};

/* Random heavy ties, then the type's highest value on both sides of every 1,024th flat
 * plane position and, for floats, NaNs right after them. */
static void fill_pool(dml_case *c, prng *p)
{
    type_values v = values_of(c->input.type);
    uint64_t picks[3];
    value_pool_pick(c->input.type, p, 3, picks);
    uint64_t n = case_tensor_elements(&c->input);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t edge = (i + 1) % KEY_BLOCK;
        uint64_t bits = picks[prng_below(p, 3)];
        if (edge <= 1)
            bits = v.high;
        else if (edge == 2 && v.nan)
            bits = v.nan;
        cb_set_input(c, i, bits);
    }
}

static void pool_of_type(tap *t, DML_TENSOR_DATA_TYPE type, uint64_t seed, const char *replay)
{
    ref_group g = { 0 };
    prng p;
    prng_seed2(&p, seed, prng_hash_str(dtype_stem(type)) ^ 0x9001);
    for (unsigned s = 0; s < POOL_SHAPES; s++)
        for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++) {
            const pool_shape *ps = &pool_shapes[s];
            UINT out_sizes[3];
            bool valid = true;
            for (unsigned a = 0; a < ps->rank - 2; a++) {
                out_sizes[a] = cb_pool_out_size(ps->sizes[2 + a], &ps->axes[a], ceil_mode);
                if (!out_sizes[a])
                    out_sizes[a] = cb_pool_out_size(ps->sizes[2 + a], &ps->axes[a], false);
                valid &= out_sizes[a] != 0;
            }
            if (!valid)
                continue;
            dml_case c;
            cb_pool_case(&c, type, ps->rank, ps->sizes, NULL, ps->axes, out_sizes,
                         pool_index_types[(s + (unsigned)ceil_mode) % 3]);
            cb_alloc_input(&c);
            fill_pool(&c, &p);
            exec_options opt = options_for(type, s + (unsigned)ceil_mode);
            ref_group_check(&g, &c, &opt);
            case_free(&c);
        }
    char name[64];
    snprintf(name, sizeof name, "max_pooling2_long_rows_planes_%s", dtype_stem(type));
    ref_group_report(t, &g, replay, name);
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : DEFAULT_SEED;
    char replay[512];
    snprintf(replay, sizeof replay, "%s %" PRIu64, argv[0], seed);
    tap t;
    tap_plan(&t, 0);
    tap_diag("seed %" PRIu64 "; replay with: %s", seed, replay);
    for (unsigned i = 0; i < ARG_INPUT_TYPE_COUNT; i++) {
        runs_of_type(&t, arg_input_types[i], seed, replay);
        multi_axis_of_type(&t, arg_input_types[i], seed, replay);
        rows_of_type(&t, arg_input_types[i], seed, replay);
    }
    for (unsigned i = 0; i < POOL_TYPE_COUNT; i++)
        pool_of_type(&t, pool_types[i], seed, replay);
    return tap_done(&t);
}
