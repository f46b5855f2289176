/*
 * test_cl_diff.c: the differential test.  Thousands of seeded random cases (harness/gen.c:
 * every operator x input type valid at FL 5_0, cycled so each pair gets its share, with the
 * generator's spread of layouts and value distributions: ties, +-0, NaN, +-inf, denormals,
 * all-padding windows) go through the exact check of harness/check.h: the OpenCL backend must
 * agree with the reference bit for bit (NaN by NaN-ness), with no out-of-bounds write and an
 * unchanged input, and a device that may flush fp32 denormals passes with the flushed answer.  Every
 * third case uses the `propagate` NaN policy and every seventh judges fp32 denormals as
 * flushed, so both reach the kernels.  Every fourth case also forces a work-group size and an
 * ARGMIN/ARGMAX split (several work-items per output, combined by a second kernel), so the
 * tie-preserving combine meets the same variety of cases.
 *
 * Then the same cases again through the backend's run_batch, BATCH_CASES per call with the
 * automatic tuning, each with its own NaN policy and flushing (per-case hints meet in one
 * launch): one more TAP line, every case must agree as it did alone.
 *
 * One TAP line per (operator, input type); the first failures print the case and the check's
 * explanation, ending with the command that replays exactly that case:
 * test_cl_diff --seed S --case I
 *
 * usage: test_cl_diff [--count N] [--seed S] [--case I] [--max-elements E]
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "check.h"
#include "cl_test.h"
#include "dtype.h"
#include "gen.h"
#include "op_module.h"
#include "reference.h"
#include "replay.h"

#define DEFAULT_SEED 0x0c1d1ffull
#define MAX_REPORTED_FAILURES 5
/* Cases per run_batch call in the batched pass: the worker's batch size (harness/worker.c). */
#define BATCH_CASES 64

typedef struct diff_group {
    op_id op;
    DML_TENSOR_DATA_TYPE type;
    unsigned cases, failures;
} diff_group;

typedef struct diff_run {
    uint64_t seed, max_elements;
    diff_group groups[OP_COUNT * 16];
    unsigned group_count;
    unsigned reported;
    unsigned classes_seen;
    const char *program;
    checker check;          /* the OpenCL backend under the exact check */
} diff_run;

/* Every (operator, input type) pair the generator may draw at the newest tested level. */
static void groups_init(diff_run *r)
{
    r->group_count = 0;
    for (int op = 0; op < OP_COUNT; op++) {
        uint32_t inputs = op_types_at((op_id)op, fl_tested[FL_TESTED_COUNT - 1]).input;
        for (size_t t = 0; t < DTYPE_COUNT; t++)
            if (inputs & (1u << dtype_table[t].type))
                r->groups[r->group_count++] = (diff_group){ (op_id)op, dtype_table[t].type, 0, 0 };
    }
}

static exec_options case_options(uint64_t index)
{
    exec_options opt = { .nan = index % 3 == 2 ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE,
                         .flush_denormals = index % 7 == 6 };
    return opt;
}

/* The automatic tuning, or a forced one for every fourth case. */
static cl_tuning case_tuning(uint64_t index)
{
    cl_tuning t = { 0, 0, 0, 0, CL_SPLIT_AUTO, false, CL_TRANSFER_AUTO };
    if (index % 4 == 3) {
        /* Few distinct sizes: PoCL compiles each kernel once per work-group size. */
        t.local_size = index % 3 == 0 ? 1 : 16;
        t.split = 2 + index % 11;
        t.pool_run = 1 + index % 9;
        t.split_mode = index % 8 == 3 ? CL_SPLIT_CHUNKED : CL_SPLIT_INTERLEAVED;
    }
    return t;
}

/* The case, its generator and tuning facts, and the check's explanation with the command
 * that replays exactly this case. */
static void report_failure(diff_run *r, uint64_t index, const dml_case *c, const gen_info *info,
                           const cl_tuning *tuning, const check_result *res)
{
    if (r->reported++ >= MAX_REPORTED_FAILURES)
        return;
    const exec_options *opt = &r->check.opt.exec;
    tap_diag("case %" PRIu64 ":%" PRIu64 " (%s %s; layout %s, values %s, nan %s%s, local %" PRIu64
             ", split %" PRIu64 "):", r->seed, index, op_table[c->op].name, dtype_name(c->input.type),
             gen_layout_name(info->layout), gen_distribution_name(info->dist), nan_policy_name(opt->nan),
             opt->flush_denormals ? ", flushed" : "", tuning->local_size, tuning->split);
    char *json = casefile_write(c, NULL);
    if (json && strlen(json) < 2000)
        tap_diag("case file: %s", json);
    free(json);
    char replay[1024] = "", number[24];
    replay_append_arg(replay, sizeof replay, r->program);
    memmove(replay, replay + 1, strlen(replay)); /* the separating space it put first */
    snprintf(number, sizeof number, "%" PRIu64, r->seed);
    replay_append_arg(replay, sizeof replay, "--seed");
    replay_append_arg(replay, sizeof replay, number);
    snprintf(number, sizeof number, "%" PRIu64, index);
    replay_append_arg(replay, sizeof replay, "--case");
    replay_append_arg(replay, sizeof replay, number);
    check_print(stdout, "# ", c, res, replay);
}

/* Case `index`: its group's operator and input type, at most max_elements. */
static bool generate(const diff_run *r, uint64_t index, dml_case *c, gen_info *info, dmlc_error *err)
{
    const diff_group *g = &r->groups[index % r->group_count];
    gen_options gopt;
    gen_options_default(&gopt);
    gopt.reject_per_mille = 0; /* the OpenCL backend does not check descriptors */
    gopt.max_elements = r->max_elements;
    gopt.op_mask = 1u << g->op;
    gopt.input_type_mask = 1u << g->type;
    case_init(c);
    return gen_case(r->seed, index, &gopt, c, info, err);
}

/* Runs case `index` through the exact check; false on any disagreement. */
static bool run_case(diff_run *r, backend *b, uint64_t index)
{
    diff_group *g = &r->groups[index % r->group_count];
    dml_case c;
    gen_info info;
    dmlc_error err;
    g->cases++;
    bool ok = generate(r, index, &c, &info, &err);
    if (!ok) {
        tap_diag("case %" PRIu64 ":%" PRIu64 ": generator: %s", r->seed, index, err.msg);
    } else {
        r->check.opt.exec = case_options(index);
        cl_tuning tuning = case_tuning(index);
        cl_backend_set_tuning(b, &tuning);
        check_result res;
        ok = check_case(&r->check, &c, &res, &err) && res.j.verdict == VERDICT_PASS;
        if (ok)
            r->classes_seen |= res.classes;
        else
            report_failure(r, index, &c, &info, &tuning, &res);
    }
    case_free(&c);
    if (!ok)
        g->failures++;
    return ok;
}

/* Cases [first, first + n) in one run_batch call, each judged exactly against the reference
 * under its own options; the number that disagree. */
static unsigned run_batch_of(diff_run *r, backend *b, uint64_t first, size_t n)
{
    dml_case cases[BATCH_CASES];
    gen_info infos[BATCH_CASES];
    check_oracle oracles[BATCH_CASES];
    check_answer answers[BATCH_CASES];
    backend_batch_item items[BATCH_CASES];
    uint64_t index_of[BATCH_CASES];
    size_t m = 0;
    unsigned failures = 0;
    for (size_t i = 0; i < n; i++) {
        dmlc_error err;
        if (!generate(r, first + i, &cases[m], &infos[m], &err)) {
            case_free(&cases[m]);
            failures++;
            continue;
        }
        exec_options exec = case_options(first + i);
        memset(&answers[m], 0, sizeof answers[m]);
        if (!check_prepare(&cases[m], &exec, &oracles[m], &err)
            || !case_outputs_alloc(&answers[m].outputs, &cases[m])) {
            tap_diag("case %" PRIu64 ":%" PRIu64 ": %s", r->seed, first + i, "out of memory");
            check_oracle_free(&oracles[m]);
            case_free(&cases[m]);
            failures++;
            continue;
        }
        items[m] = (backend_batch_item){ .c = &cases[m], .exec = exec, .out = &answers[m].outputs };
        index_of[m++] = first + i;
    }
    opencl_backend.run_batch(b, items, m);
    const cl_tuning automatic = { 0, 0, 0, 0, CL_SPLIT_AUTO, false, CL_TRANSFER_AUTO };
    for (size_t k = 0; k < m; k++) {
        uint64_t index = index_of[k];
        answers[k].status = items[k].status;
        snprintf(answers[k].message, sizeof answers[k].message, "%.*s",
                 (int)sizeof answers[k].message - 1, items[k].err.msg);
        check_options opt = r->check.opt;
        opt.exec = items[k].exec;
        check_result res;
        check_judge(&cases[k], &oracles[k], &answers[k], &opt, &res);
        if (res.j.verdict != VERDICT_PASS) {
            failures++;
            tap_diag("in a batch of %zu from case %" PRIu64 ":%" PRIu64 ":", m, r->seed, first);
            r->check.opt.exec = opt.exec;
            report_failure(r, index, &cases[k], &infos[k], &automatic, &res);
        }
        case_outputs_free(&answers[k].outputs);
        check_oracle_free(&oracles[k]);
        case_free(&cases[k]);
    }
    return failures;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        { "count", required_argument, NULL, 'n' },
        { "seed", required_argument, NULL, 's' },
        { "case", required_argument, NULL, 'c' },
        { "max-elements", required_argument, NULL, 'e' },
        { NULL, 0, NULL, 0 },
    };
    diff_run r = { .seed = DEFAULT_SEED, .max_elements = 4096, .program = argv[0] };
    uint64_t count = 2000, only = UINT64_MAX;
    int ch;
    while ((ch = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (ch) {
        case 'n': count = strtoull(optarg, NULL, 0); break;
        case 's': r.seed = strtoull(optarg, NULL, 0); break;
        case 'c': only = strtoull(optarg, NULL, 0); break;
        case 'e': r.max_elements = strtoull(optarg, NULL, 0); break;
        default:
            fprintf(stderr, "usage: %s [--count N] [--seed S] [--case I] [--max-elements E]\n",
                    argv[0]);
            return 2;
        }
    }
    backend *b;
    cl_test_open_result opened = cl_test_open(NULL, &b);
    if (opened != CL_TEST_OPENED)
        return cl_test_open_exit_code(opened);
    backend_info info;
    opencl_backend.info(b, &info);
    /* SEMANTICS D6: a device that may flush passes with the flushed answer, by the check's rule. */
    check_options copt = { .rules = { .device_flushes = info.flushes_denormals }, .exact = true };
    check_init(&r.check, &opencl_backend, b, &copt);
    groups_init(&r);

    tap t;
    tap_plan(&t, 0);
    tap_diag("seed %" PRIu64 ", %" PRIu64 " cases of at most %" PRIu64 " elements", r.seed,
             only == UINT64_MAX ? count : 1, r.max_elements);
    if (only != UINT64_MAX) {
        tap_ok(&t, run_case(&r, b, only), "case %" PRIu64 ":%" PRIu64,
               r.seed, only);
    } else {
        for (uint64_t i = 0; i < count; i++)
            run_case(&r, b, i);
        for (unsigned g = 0; g < r.group_count; g++) {
            const diff_group *grp = &r.groups[g];
            tap_ok(&t, grp->cases > 0 && grp->failures == 0, "%s_%s: %u cases agree (%u differ)",
                   op_table[grp->op].stem, dtype_stem(grp->type), grp->cases - grp->failures,
                   grp->failures);
        }
        char classes[64];
        tap_diag("case classes met: %s",
                 case_classes_str(r.classes_seen, classes, sizeof classes));
        const cl_tuning automatic = { 0, 0, 0, 0, CL_SPLIT_AUTO, false, CL_TRANSFER_AUTO };
        cl_backend_set_tuning(b, &automatic);
        unsigned failures = 0;
        for (uint64_t i = 0; i < count; i += BATCH_CASES)
            failures += run_batch_of(&r, b, i, count - i < BATCH_CASES ? count - i : BATCH_CASES);
        tap_ok(&t, failures == 0, "batched: %" PRIu64 " cases in run_batch calls of %d, each "
               "with its own NaN policy and flushing, agree (%u differ)", count, BATCH_CASES,
               failures);
    }
    check_fini(&r.check);
    cl_test_close(&t, b);
    return tap_done(&t);
}
