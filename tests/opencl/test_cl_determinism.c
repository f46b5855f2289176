/*
 * test_cl_determinism.c: the same case gives identical bits run after run and under every
 * work-group size and reduction split, and those bits are the reference's.  The cases are
 * built to stress the cross-work-item combine: long reductions full of ties (so the tie
 * rule decides almost every output), NaNs under both policies, both axis directions, and
 * generated cases of every operator; and rows whose chunk boundaries (splits 4 and 7), 64-element
 * blocks and moved-back last vectors have ties, NaNs and all-NaN chunks on both sides, for
 * every integer width and both float types.  Tunings are forced through cl_backend_set_tuning.
 * "The reference's" is the one exact check of harness/check.h, run once per tuning.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reference/case_builder.h"
#include "check.h"
#include "cl_test.h"
#include "dtype.h"
#include "gen.h"
#include "prng.h"
#include "replay.h"
#include "validate.h"

/* Work-group size, split, target work-items, pooling run, split mode, no column blocks,
 * transfer; all-zero is the automatic choice.  Four work-group sizes only (64 is the
 * default): PoCL compiles every kernel once per work-group size, which dominates a cold
 * run.  Every way of moving the image (cl_transfer) is among them: the answer must not
 * depend on it either. */
static const cl_tuning tunings[] = {
    { 0, 0, 0, 0, CL_SPLIT_AUTO, false, CL_TRANSFER_AUTO },
    { 1, 0, 0, 1, CL_SPLIT_AUTO, false, CL_TRANSFER_MAPPED },
    { 7, 0, 0, 3, CL_SPLIT_CHUNKED, false, CL_TRANSFER_STAGED },
    { 256, 0, 0, 0, CL_SPLIT_INTERLEAVED, false, CL_TRANSFER_PINNED },
    { 0, 1, 0, 0, CL_SPLIT_AUTO, true, CL_TRANSFER_MAPPED },
    { 0, 3, 0, 5, CL_SPLIT_CHUNKED, false, CL_TRANSFER_PINNED },
    { 7, 1000, 0, 0, CL_SPLIT_INTERLEAVED, false, CL_TRANSFER_STAGED },
    { 0, 0, 100000, 64, CL_SPLIT_CHUNKED, true, CL_TRANSFER_AUTO },
    { 1, 77, 0, 2, CL_SPLIT_CHUNKED, false, CL_TRANSFER_MAPPED },
    { 256, 0, 0, 0, CL_SPLIT_CHUNKED, false, CL_TRANSFER_PINNED },
    /* chunks of 250 and 143 elements of a 1000-element row: check_chunk_boundaries puts
     * ties and NaNs on both sides of their boundaries */
    { 0, 4, 0, 0, CL_SPLIT_CHUNKED, false, CL_TRANSFER_AUTO },
    { 0, 7, 0, 0, CL_SPLIT_CHUNKED, false, CL_TRANSFER_STAGED },
};

/* Tunings a check runs under, each `rounds` times. */
typedef struct tuning_set {
    const cl_tuning *list;
    size_t count;
    int rounds;
} tuning_set;

static const tuning_set all_tunings = { tunings, sizeof tunings / sizeof tunings[0], 2 };

/* --boundaries (Oclgrind, which simulates every work-item): the automatic choice, the two
 * splits whose chunk boundaries the boundary cases aim at, and interleaved work-items. */
static const cl_tuning boundary_list[] = {
    { 0, 0, 0, 0, CL_SPLIT_AUTO, false, CL_TRANSFER_AUTO },
    { 0, 4, 0, 0, CL_SPLIT_CHUNKED, false, CL_TRANSFER_AUTO },
    { 0, 7, 0, 0, CL_SPLIT_CHUNKED, false, CL_TRANSFER_AUTO },
    { 0, 7, 0, 0, CL_SPLIT_INTERLEAVED, false, CL_TRANSFER_AUTO },
};
static const tuning_set boundary_tunings = { boundary_list,
                                             sizeof boundary_list / sizeof boundary_list[0], 1 };

/* backend_info.flushes_denormals of the device (SEMANTICS D6, judged by the check). */
static bool device_flushes;

/* A long reduction over axis 1 (contiguous) or 0 (strided: neighbouring outputs read
 * neighbouring elements) of a {rows, length} tensor whose values come from a tiny set, so
 * ties are everywhere. */
static void long_reduction(dml_case *c, op_id op, DML_TENSOR_DATA_TYPE type, UINT rows,
                           UINT length, UINT axis, DML_AXIS_DIRECTION direction, uint64_t seed,
                           bool with_nan)
{
    UINT sizes[2] = { rows, length }, axes[1] = { axis };
    cb_arg_case(c, op, type, 2, sizes, NULL, 1, axes, direction, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(c);
    prng p;
    prng_seed(&p, seed);
    static const uint64_t f32_values[] = { 0x3f800000, 0x40000000, 0x80000000, 0x00000000,
                                           0x40000000, 0x7fc00000 };
    static const uint64_t f16_values[] = { 0x3c00, 0x4000, 0x8000, 0x0000, 0x4000, 0x7e00 };
    unsigned choices = with_nan ? 6 : 5;
    for (uint64_t i = 0; i < (uint64_t)rows * length; i++) {
        unsigned k = (unsigned)(prng_next(&p) % choices);
        uint64_t bits = type == DML_TENSOR_DATA_TYPE_FLOAT32   ? f32_values[k]
                        : type == DML_TENSOR_DATA_TYPE_FLOAT16 ? f16_values[k]
                                                               : k % 3;
        cb_set_input(c, i, bits);
    }
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

/* The command that reruns this test (every case in it is fixed). */
static char replay[1024];

/* One run under tuning k: the check against the reference must pass exactly. */
static bool run_tuned(backend *b, const dml_case *c, const check_oracle *oracle, const check_options *opt,
                      check_buffers *buf, check_answer *a, const tuning_set *set, size_t k,
                      const char *name)
{
    check_result r;
    cl_backend_set_tuning(b, &set->list[k]);
    check_run(&opencl_backend, b, c, &opt->exec, buf, a);
    check_judge(c, oracle, a, opt, &r);
    if (r.j.verdict == VERDICT_PASS)
        return true;
    tap_diag("%s: tuning %zu (local %" PRIu64 ", split %" PRIu64 "):", name, k,
             set->list[k].local_size, set->list[k].split);
    check_print(stdout, "# ", c, &r, replay);
    return false;
}

static bool same_bytes(const case_outputs *a, const case_outputs *b)
{
    return !memcmp(a->output, b->output, a->output_bytes)
        && (!a->indices || !memcmp(a->indices, b->indices, a->indices_bytes));
}

/* Runs c under every tuning of the set; all must match the reference and each other. */
static void check_tunings(tap *t, backend *b, const dml_case *c, const exec_options *exec,
                          const char *name, const tuning_set *set)
{
    check_options opt = { .exec = *exec, .rules = { .device_flushes = device_flushes }, .exact = true };
    check_oracle oracle;
    case_outputs first;
    dmlc_error err;
    if (!check_prepare(c, exec, &oracle, &err) || !case_outputs_alloc(&first, c)) {
        tap_ok(t, false, "%s: allocate outputs", name);
        return;
    }
    check_buffers buf = { 0 };
    check_answer a;
    bool ok = true;
    for (size_t k = 0; k < set->count && ok; k++)
        for (int repeat = 0; repeat < set->rounds && ok; repeat++) {
            ok = run_tuned(b, c, &oracle, &opt, &buf, &a, set, k, name);
            if (ok && k == 0 && repeat == 0) {
                memcpy(first.output, a.outputs.output, first.output_bytes);
                if (first.indices)
                    memcpy(first.indices, a.outputs.indices, first.indices_bytes);
            } else if (ok && !same_bytes(&a.outputs, &first)) {
                tap_diag("%s: tuning %zu gives different bytes than the first run", name, k);
                ok = false;
            }
        }
    static const cl_tuning automatic = { 0, 0, 0, 0, CL_SPLIT_AUTO, false, CL_TRANSFER_AUTO };
    cl_backend_set_tuning(b, &automatic);
    tap_ok(t, ok, "%s: identical bits under %zu tunings, %d time(s) each", name, set->count,
           set->rounds);
    check_buffers_free(&buf);
    check_oracle_free(&oracle);
    case_outputs_free(&first);
}

static void check_long_reductions(tap *t, backend *b)
{
    static const struct {
        op_id op;
        DML_TENSOR_DATA_TYPE type;
        UINT rows, length, axis;
        bool nan;
    } shapes[] = {
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, 1, 300000, 1, false },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, 3, 70001, 1, true },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_FLOAT16, 2, 100003, 1, true },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_INT8, 5, 40000, 1, false },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT64, 1, 131072, 1, false },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, 20000, 3, 1, true },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, 3000, 37, 0, true },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_INT16, 513, 100, 0, false },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_FLOAT16, 1000, 16, 0, true },
        /* 32-bit keys in lanes: unsigned and wide integers over the contiguous axis, and
         * column blocks of 4, 4 (the last moved back by 6), 2 and 1 vectors of 16 */
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT32, 2, 100000, 1, false },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_UINT16, 3, 65600, 1, false },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_INT32, 1, 70000, 1, false },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT8, 300, 130, 0, false },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_FLOAT32, 257, 70, 0, true },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_INT32, 100, 40, 0, false },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT16, 64, 20, 0, false },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int dir = 0; dir < 2; dir++)
            for (int policy = 0; policy < (shapes[s].nan ? 2 : 1); policy++) {
                dml_case c;
                case_init(&c);
                long_reduction(&c, shapes[s].op, shapes[s].type, shapes[s].rows,
                               shapes[s].length, shapes[s].axis, (DML_AXIS_DIRECTION)dir, 1000 + s,
                               shapes[s].nan);
                dmlc_error err;
                if (!validate_case(&c, &err)) {
                    tap_ok(t, false, "long reduction %zu is valid: %s", s, err.msg);
                    case_free(&c);
                    continue;
                }
                exec_options opt = { policy ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
                char name[128];
                snprintf(name, sizeof name, "%s_%s_%ux%u_axis%u_%s_%s", op_table[c.op].stem,
                         dtype_stem(c.input.type), shapes[s].rows, shapes[s].length, shapes[s].axis,
                         dir ? "decreasing" : "increasing", nan_policy_name(opt.nan));
                check_tunings(t, b, &c, &opt, name, &all_tunings);
                case_free(&c);
            }
}

/* One type of check_chunk_boundaries: the extreme and the background value for ARGMAX (ARGMIN
 * swaps them), and the NaN bits (0: an integer type). */
typedef struct boundary_type {
    op_id op;
    DML_TENSOR_DATA_TYPE type;
    uint64_t extreme, background, nan;
} boundary_type;

/* Where row r of a 4 x 1000 boundary case holds the extreme value: both sides of the chunk
 * boundaries of splits 4 and 7 (249|250, 142|143, 499|500), both ends of a row, both sides
 * of a 64-element block and the last 16 (the vector moved back over the block before). */
static bool boundary_extreme(unsigned row, unsigned k)
{
    switch (row) {
    case 0: return k == 142 || k == 143 || k == 249 || k == 250;
    case 1: return k == 0 || k == 999 || k == 499 || k == 500;
    case 2: return k == 249 || k == 250 || k == 620;
    default: return k == 63 || k == 64 || k == 990;
    }
}

/* Where it holds a NaN (float types): one element of the third chunk of split 4 in row 2,
 * the whole third chunk in row 3 (its partial result is a NaN under either policy). */
static bool boundary_nan(unsigned row, unsigned k)
{
    return (row == 2 && k == 620) || (row == 3 && k >= 500 && k < 750);
}

static void check_chunk_boundaries(tap *t, backend *b, const tuning_set *set)
{
    static const boundary_type types[] = {
        /* float32: a tie of -0 and +0 above a background of -1.0 */
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, 0x80000000, 0xbf800000, 0x7fc00000 },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_FLOAT32, 0x3f800000, 0x40000000, 0xffc00000 },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT16, 0x8000, 0xbc00, 0x7e00 },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_FLOAT16, 0xfbff, 0x3c00, 0xfe00 },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_INT8, 0xfe, 0x80, 0 },   /* -2 over -128 */
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_UINT8, 0x00, 0xff, 0 },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_INT16, 0x7fff, 0xffff, 0 },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_UINT16, 0x7fff, 0x8000, 0 },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_INT32, 0x80000001, 0x80000000, 0 },
        { OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT32, 0x80000000, 0x7fffffff, 0 },
        { OP_ARGMIN, DML_TENSOR_DATA_TYPE_INT64, 0x8000000000000000, 5, 0 },
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        for (int dir = 0; dir < 2; dir++)
            for (int policy = 0; policy < (types[i].nan ? 2 : 1); policy++) {
                const boundary_type *bt = &types[i];
                dml_case c;
                case_init(&c);
                UINT sizes[2] = { 4, 1000 }, axes[1] = { 1 };
                cb_arg_case(&c, bt->op, bt->type, 2, sizes, NULL, 1, axes,
                            (DML_AXIS_DIRECTION)dir, DML_TENSOR_DATA_TYPE_UINT32);
                c.feature_level = DML_FEATURE_LEVEL_5_0;
                cb_alloc_input(&c);
                for (unsigned row = 0; row < 4; row++)
                    for (unsigned k = 0; k < 1000; k++)
                        cb_set_input(&c, row * 1000 + k,
                                     bt->nan && boundary_nan(row, k) ? bt->nan
                                     : boundary_extreme(row, k)      ? bt->extreme
                                                                     : bt->background);
                dmlc_error err;
                if (!validate_case(&c, &err)) {
                    tap_ok(t, false, "chunk boundary case %zu is valid: %s", i, err.msg);
                    case_free(&c);
                    continue;
                }
                exec_options opt = { policy ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
                char name[128];
                snprintf(name, sizeof name, "chunk boundaries %s_%s_4x1000_%s_%s",
                         op_table[c.op].stem, dtype_stem(c.input.type),
                         dir ? "decreasing" : "increasing", nan_policy_name(opt.nan));
                check_tunings(t, b, &c, &opt, name, set);
                case_free(&c);
            }
}

static void check_generated(tap *t, backend *b, unsigned count)
{
    gen_options gopt;
    gen_options_default(&gopt);
    gopt.reject_per_mille = 0;
    for (unsigned i = 0; i < count; i++) {
        dml_case c;
        gen_info info;
        dmlc_error err;
        case_init(&c);
        if (!gen_case(0xde7e2u, i, &gopt, &c, &info, &err)) {
            tap_ok(t, false, "generated case %u: %s", i, err.msg);
            continue;
        }
        exec_options opt = { i % 2 ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
        char name[128];
        snprintf(name, sizeof name, "generated %u (%s_%s, %s, %s)", i, op_table[c.op].stem,
                 dtype_stem(c.input.type), gen_layout_name(info.layout),
                 gen_distribution_name(info.dist));
        check_tunings(t, b, &c, &opt, name, &all_tunings);
        case_free(&c);
    }
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        { "boundaries", no_argument, NULL, 'b' },
        { NULL, 0, NULL, 0 },
    };
    bool boundaries_only = false;
    for (int opt; (opt = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        if (opt != 'b') {
            fprintf(stderr, "usage: %s [--boundaries]\n", argv[0]);
            return 2;
        }
        boundaries_only = true;
    }
    backend *b;
    cl_test_open_result r = cl_test_open(NULL, &b);
    if (r != CL_TEST_OPENED)
        return cl_test_open_exit_code(r);
    backend_info info;
    opencl_backend.info(b, &info);
    device_flushes = info.flushes_denormals;
    replay_append_arg(replay, sizeof replay, argv[0]);
    memmove(replay, replay + 1, strlen(replay)); /* the separating space it put first */
    if (boundaries_only)
        replay_append_arg(replay, sizeof replay, "--boundaries");
    tap t;
    tap_plan(&t, 0);
    if (boundaries_only) {
        check_chunk_boundaries(&t, b, &boundary_tunings);
    } else {
        check_long_reductions(&t, b);
        check_chunk_boundaries(&t, b, &all_tunings);
        check_generated(&t, b, 24);
    }
    cl_test_close(&t, b);
    return tap_done(&t);
}
