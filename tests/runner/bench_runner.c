/*
 * bench_runner.c: the runner's speed figures (`meson test --benchmark --suite runner`, or run
 * the binary).  Prints, for default-size generated cases:
 *   - SQLite recording alone: CPU µs per case (one cases row + one results row, prepared
 *     statements, 4096-case WAL transactions);
 *   - differential cases/s, reference against the reference backend (harness overhead: the
 *     reference runs on both sides), and against OpenCL when a platform exists;
 *   - CPU µs per case of dmlcheck (generate, validate, reference, judge, record) and of its
 *     worker (generate, backend), which do not depend on what else the machine runs;
 *   - `run --jobs N` against --jobs 1 in the same process, on the reference backend: cases/s
 *     and its ratio to --jobs 1, for N = 2 and N = the online CPUs (when more than 2).
 * Optional argument: cases per differential run (default 20000).  Never asserts on time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"
#include "store.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


/* Rows shaped like a typical case, written as the runner writes them. */
static bool bench_store(const char *db, unsigned n)
{
    dmlc_error err;
    store *s = store_open(db, &err);
    store_run_start r = { .started_at = "2000-01-01T00:00:00Z", .seed = 1, .options_json = "{}",
                          .backend = "bench", .nan_policy = "ignore", .cases_requested = n,
                          .time_requested_s = -1 };
    int64_t run;
    if (!s || !store_run_begin(s, &r, &run, &err)) {
        fprintf(stderr, "bench_runner: %s\n", err.msg);
        store_close(s);
        return false;
    }
    double t0 = cpu_now();
    bool ok = store_batch_begin(s, &err);
    for (unsigned i = 0; i < n && ok; i++) {
        store_case_row row = {
            .run_id = run, .case_index = i, .op = "ARGMAX", .feature_level = "3_0",
            .input_type = "FLOAT16", .output_type = "UINT32", .rank = 4, .elements = 720,
            .input_sizes = "[3,4,5,12]", .input_strides = "[240,60,12,1]", .output_sizes = "[3,1,5,1]",
            .params = "{\"axes\":[3,1],\"direction\":\"INCREASING\"}", .axis_kind = "several_shuffled",
            .layout = "padded", .distribution = "ties", .classes = "", .verdict = "pass",
            .time_us = 12.5,
        };
        ok = store_case(s, &row, &err);
        if (ok && i % 4096 == 4095)
            ok = store_run_progress(s, run, i + 1, 0, 0, &err) && store_batch_commit(s, &err)
                && store_batch_begin(s, &err);
    }
    ok = ok && store_batch_commit(s, &err);
    double cpu = cpu_now() - t0;
    store_close(s);
    if (!ok)
        fprintf(stderr, "bench_runner: %s\n", err.msg);
    else
        printf("sqlite: %u cases recorded, %.2f us CPU per case (2 rows)\n", n, 1e6 * cpu / n);
    return ok;
}

/* One run of `cases` cases; *rate gets its cases/s. */
static bool bench_run(const char *db, const char *backend, uint64_t cases, unsigned jobs,
                      double *rate)
{
    runner_options o;
    runner_options_default(&o);
    o.backend = backend_find(backend);
    if (!o.backend) {
        printf("%s: not built, skipped\n", backend);
        return true;
    }
    o.db_path = db;
    o.cases = cases;
    o.seed = 42;
    o.quiet = true;
    o.out = stderr;
    o.open_timeout_ms = 600000;
    o.case_timeout_ms = 60000;
    runner_report rep;
    dmlc_error err;
    int code = jobs > 1 ? runner_run_jobs(&o, jobs, &rep, &err) : runner_run(&o, &rep, &err);
    if (code == 2) {
        printf("%s: %s (skipped)\n", backend, err.msg);
        return !strstr(err.msg, "platform") ? false : true;
    }
    *rate = (double)rep.cases / rep.seconds;
    printf("%s --jobs %u: %" PRIu64 " cases in %.2f s wall = %.0f cases/s; CPU per case: dmlcheck %.1f us, "
           "worker %.1f us; SQLite busy %.1f%% of wall (writer thread), run waited for it %.1f%%; "
           "%" PRIu64 " judged mismatches\n", backend, jobs, rep.cases,
           rep.seconds, (double)rep.cases / rep.seconds, 1e6 * rep.parent_cpu_s / (double)rep.cases,
           1e6 * rep.worker_cpu_s / (double)rep.cases, 100 * rep.store_seconds / rep.seconds,
           100 * rep.store_wait_seconds / rep.seconds,
           rep.by_verdict[1]);
    return code == 0;
}

int main(int argc, char **argv)
{
    uint64_t cases = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000;
    char db[] = "/tmp/dmlcheck-bench-runner-XXXXXX";
    int fd = mkstemp(db);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    store_remove_files(db);
    bool ok = bench_store(db, 100000);
    store_remove_files(db);
    double one = 0, rate = 0;
    ok = (!cases || bench_run(db, "reference", cases, 1, &one)) && ok;
    store_remove_files(db);
    ok = (!cases || bench_run(db, "opencl", cases, 1, &rate)) && ok;
    store_remove_files(db);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (unsigned jobs = 2; cases && one > 0 && jobs <= (cpus > 2 ? cpus : 2); jobs = jobs == 2 ? (unsigned)cpus : jobs + 1) {
        ok = bench_run(db, "reference", cases, jobs, &rate) && ok;
        store_remove_files(db);
        printf("reference --jobs %u: %.2fx the cases/s of --jobs 1 on %ld online CPUs\n", jobs,
               rate / one, cpus);
        if (jobs == (unsigned)cpus || cpus <= 2)
            break;
    }
    return ok ? 0 : 1;
}
