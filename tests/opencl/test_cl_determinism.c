/*
 * test_cl_determinism.c: the same case gives identical bits run after run and under every
 * work-group size and reduction split, and those bits are the reference's.  The cases are
 * built to stress the cross-work-item combine: long reductions full of ties (so the tie
 * rule decides almost every output), NaNs under both policies, both axis directions, and
 * generated cases of every operator.  Tunings are forced through cl_backend_set_tuning.
 * "The reference's" is the one exact check of harness/check.h, run once per tuning.
 */
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

/* Work-group size, split, target work-items, pooling run, split mode, no column blocks;
 * all-zero is the automatic choice.  Four work-group sizes only (64 is the default): PoCL
 * compiles every kernel once per work-group size, which dominates a cold run. */
static const cl_tuning tunings[] = {
    { 0, 0, 0, 0, CL_SPLIT_AUTO, false },
    { 1, 0, 0, 1, CL_SPLIT_AUTO, false },
    { 7, 0, 0, 3, CL_SPLIT_CHUNKED, false },
    { 256, 0, 0, 0, CL_SPLIT_INTERLEAVED, false },
    { 0, 1, 0, 0, CL_SPLIT_AUTO, true },
    { 0, 3, 0, 5, CL_SPLIT_CHUNKED, false },
    { 7, 1000, 0, 0, CL_SPLIT_INTERLEAVED, false },
    { 0, 0, 100000, 64, CL_SPLIT_CHUNKED, true },
    { 1, 77, 0, 2, CL_SPLIT_CHUNKED, false },
    { 256, 0, 0, 0, CL_SPLIT_CHUNKED, false },
};
#define TUNING_COUNT (sizeof tunings / sizeof tunings[0])

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
                      check_buffers *buf, check_answer *a, size_t k, const char *name)
{
    check_result r;
    cl_backend_set_tuning(b, &tunings[k]);
    check_run(&opencl_backend, b, c, &opt->exec, buf, a);
    check_judge(c, oracle, a, opt, &r);
    if (r.j.verdict == VERDICT_PASS)
        return true;
    tap_diag("%s: tuning %zu (local %" PRIu64 ", split %" PRIu64 "):", name, k, tunings[k].local_size,
             tunings[k].split);
    check_print(stdout, "# ", c, &r, replay);
    return false;
}

static bool same_bytes(const case_outputs *a, const case_outputs *b)
{
    return !memcmp(a->output, b->output, a->output_bytes)
        && (!a->indices || !memcmp(a->indices, b->indices, a->indices_bytes));
}

/* Runs c under every tuning; all must match the reference and each other, twice over. */
static void check_tunings(tap *t, backend *b, const dml_case *c, const exec_options *exec,
                          const char *name)
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
    for (size_t k = 0; k < TUNING_COUNT && ok; k++)
        for (int repeat = 0; repeat < 2 && ok; repeat++) {
            ok = run_tuned(b, c, &oracle, &opt, &buf, &a, k, name);
            if (ok && k == 0 && repeat == 0) {
                memcpy(first.output, a.outputs.output, first.output_bytes);
                if (first.indices)
                    memcpy(first.indices, a.outputs.indices, first.indices_bytes);
            } else if (ok && !same_bytes(&a.outputs, &first)) {
                tap_diag("%s: tuning %zu gives different bytes than the first run", name, k);
                ok = false;
            }
        }
    static const cl_tuning automatic = { 0, 0, 0, 0, CL_SPLIT_AUTO, false };
    cl_backend_set_tuning(b, &automatic);
    tap_ok(t, ok, "%s: identical bits under %zu tunings, twice each", name, TUNING_COUNT);
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
                check_tunings(t, b, &c, &opt, name);
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
        check_tunings(t, b, &c, &opt, name);
        case_free(&c);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    backend *b;
    cl_test_open_result r = cl_test_open(NULL, &b);
    if (r != CL_TEST_OPENED)
        return cl_test_open_exit_code(r);
    backend_info info;
    opencl_backend.info(b, &info);
    device_flushes = info.flushes_denormals;
    replay_append_arg(replay, sizeof replay, argv[0]);
    memmove(replay, replay + 1, strlen(replay)); /* the separating space it put first */
    tap t;
    tap_plan(&t, 0);
    check_long_reductions(&t, b);
    check_generated(&t, b, 24);
    cl_test_close(&t, b);
    return tap_done(&t);
}
