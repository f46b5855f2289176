/*
 * bench_nan_fingerprint.c: what the NaN-policy fingerprint costs a float run (`meson test
 * --benchmark --suite runner`, or run the binary).  Draws the cases of `dmlcheck run --types
 * FLOAT32,FLOAT16 --seed 9` and checks each on the reference backend in this process, as a
 * run's two processes do between them (generate, oracle, backend, judge; no fork, no SQLite):
 * check_judge computes the fingerprint for the cases of class nan.  Two passes over the same
 * cases in the same process, each timed as a whole in CPU time (the fastest of three): the
 * first as a run does, the second computing each fingerprint once more on the answer just
 * judged.  Their difference is
 * the fingerprint's cost, printed against the first pass without it: an upper bound on what
 * it costs a run's cases/s, since a run also pays for the worker's copy of the case, the pipe
 * and SQLite.  Optional arguments: cases (default 20000), seed (default 9).  Never asserts on
 * time; exits 1 when a fingerprint computed twice differs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "check.h"
#include "gen.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One pass over the cases; with `again`, each fingerprint is computed a second time.  The
 * CPU seconds it took, or a negative number on an error. */
static double pass(checker *k, uint64_t seed, uint64_t cases, bool again, uint64_t *nan_cases,
                   uint64_t *nan_rows, bool *same)
{
    gen_options gen;
    gen_options_default(&gen);
    gen.input_type_mask = (1u << DML_TENSOR_DATA_TYPE_FLOAT32) | (1u << DML_TENSOR_DATA_TYPE_FLOAT16);
    dmlc_error err = { "" };
    *nan_cases = *nan_rows = 0;
    double start = cpu_now();
    for (uint64_t i = 0; i < cases; i++) {
        dml_case c;
        gen_info info;
        check_result r;
        if (!gen_case(seed, i, &gen, &c, &info, &err) || !check_case(k, &c, &r, &err)) {
            fprintf(stderr, "bench_nan_fingerprint: case %" PRIu64 ":%" PRIu64 ": %s\n", seed, i, err.msg);
            return -1;
        }
        if (again && (r.classes & CASE_CLASS_NAN) && k->last.status == RUN_OK) {
            nan_fingerprint f = nan_fingerprint_case(&c, &k->last.outputs);
            *same = *same && f.nan_rows == r.nan.nan_rows && f.policies == r.nan.policies;
        }
        *nan_cases += (r.classes & CASE_CLASS_NAN) != 0;
        *nan_rows += r.nan.nan_rows;
        case_free(&c);
    }
    return cpu_now() - start;
}

int main(int argc, char **argv)
{
    uint64_t cases = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 9;
    dmlc_error err = { "" };
    const backend_vtable *vt = backend_find("reference");
    backend *b = vt ? vt->open(NULL, NULL, &err) : NULL;
    if (!b) {
        fprintf(stderr, "bench_nan_fingerprint: cannot open the reference backend: %s\n", err.msg);
        return 2;
    }
    checker k;
    check_options opt = { .exact = false };
    check_init(&k, vt, b, &opt);
    uint64_t nan_cases = 0, nan_rows = 0;
    bool same = true;
    /* Each pass three times, alternating; the fastest of each (what other processes on the
     * machine cost a pass only ever adds). */
    double run = 1e30, twice = 1e30;
    for (int round = 0; round < 3 && run >= 0 && twice >= 0; round++) {
        double a = pass(&k, seed, cases, false, &nan_cases, &nan_rows, &same);
        double b = a < 0 ? a : pass(&k, seed, cases, true, &nan_cases, &nan_rows, &same);
        run = a < 0 || a < run ? a : run;
        twice = b < 0 || b < twice ? b : twice;
    }
    check_fini(&k);
    vt->close(b);
    if (run < 0 || twice < 0)
        return 2;
    double fingerprint = twice - run, without = run - fingerprint;
    printf("%" PRIu64 " FLOAT32/FLOAT16 cases (seed %" PRIu64 "): %.2f us CPU per case (generate, "
           "oracle, reference backend, judge); %" PRIu64 " of class nan (%" PRIu64 " rows or windows "
           "with a NaN), their fingerprints %.1f us CPU each\n",
           cases, seed, 1e6 * run / (double)cases, nan_cases, nan_rows,
           nan_cases ? 1e6 * fingerprint / (double)nan_cases : 0.0);
    printf("fingerprint: %.3f s of %.3f s; a case costs %.1f%% more with it than without\n",
           fingerprint, run, without > 0 ? 100 * fingerprint / without : 0.0);
    if (!same) {
        fprintf(stderr, "bench_nan_fingerprint: a fingerprint computed twice differs\n");
        return 1;
    }
    return 0;
}
