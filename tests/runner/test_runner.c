/*
 * test_runner.c: the differential runner and its results database, end to end.
 *
 * Fault injection: backends that exist only in this test binary wrap the reference and
 * break it one way each (ties resolved the other way, padding that wins, a SIGSEGV on some
 * cases, a hang on some cases).  `run` must find each within 1,000 cases and record it
 * under the right signature kind and feature level, and keep going after crashes and hangs.
 * Also: a run killed with SIGKILL leaves a valid database holding its committed cases and
 * a second run appends; a database with a newer schema is refused; a run on PoCL (when an
 * OpenCL platform exists) has no judged mismatch.
 */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "op_module.h"
#include "classify.h"
#include "dtype.h"
#include "reference.h"
#include "report_model.h"
#include "runner.h"
#include "store.h"
#include "tap.h"

/* ---- Faulty backends ---------------------------------------------------------------- */

struct backend {
    int unused;
};

static backend *fault_open(const char *device, const char *args, dmlc_error *err)
{
    (void)args;
    (void)device;
    backend *b = calloc(1, sizeof *b);
    if (!b)
        err_set(err, "out of memory");
    return b;
}

static void fault_info(backend *b, backend_info *info)
{
    (void)b;
    memset(info, 0, sizeof *info);
    strcpy(info->platform, "test");
    strcpy(info->device, "fault injection");
    strcpy(info->driver, "test_runner");
    strcpy(info->fp_config, "denorm,inf_nan");
}

static void fault_close(backend *b) { free(b); }

/* ARGMIN/ARGMAX with the direction flipped: the first extreme becomes the last, which only
 * changes the answer where the extreme value ties. */
static run_status ties_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                           dmlc_error *err)
{
    (void)b;
    dml_case flipped;
    if (!(op_table[c->op].module == &op_module_arg_reduce) || !case_copy(&flipped, c)) {
        ref_run(c, opt, out);
        return RUN_OK;
    }
    flipped.direction = c->direction == DML_AXIS_DIRECTION_INCREASING ? DML_AXIS_DIRECTION_DECREASING
                                                                      : DML_AXIS_DIRECTION_INCREASING;
    case_link(&flipped);
    ref_run(&flipped, opt, out);
    case_free(&flipped);
    (void)err;
    return RUN_OK;
}

/* Whether the window of pooled element `out` reaches into padding, and whether it holds
 * any real element (computed per spatial dimension, so huge windows stay cheap). */
static void window_padding(const dml_case *c, const uint32_t *out, bool *padding, bool *real)
{
    unsigned first = c->input.rank - c->spatial_count;
    *padding = false;
    *real = true;
    for (unsigned s = 0; s < c->spatial_count; s++) {
        int64_t in = c->input.sizes[first + s], dil = c->dilations[s], w = c->window[s];
        int64_t p0 = (int64_t)out[first + s] * c->pool_strides[s] - c->start_padding[s];
        int64_t k0 = p0 >= 0 ? 0 : (-p0 + dil - 1) / dil; /* first position inside */
        *padding |= p0 < 0 || p0 + (w - 1) * dil >= in;
        *real &= k0 < w && p0 + k0 * dil < in;
    }
}

/* MAX_POOLING2 as if padding held zeros: a window that touches padding and whose real
 * elements are all negative yields +0. */
static run_status padding_run(backend *b, const dml_case *c, const exec_options *opt,
                              case_outputs *out, dmlc_error *err)
{
    (void)b;
    (void)err;
    ref_run(c, opt, out);
    if (c->op != OP_MAX_POOLING2)
        return RUN_OK;
    tensor_view v;
    case_tensor_view(&c->output, &v);
    for (uint64_t i = 0; i < v.elements; i++) {
        bool padding, real;
        uint32_t coords[DML_MAX_RANK];
        tensor_view_coords(&v, i, coords);
        window_padding(c, coords, &padding, &real);
        uint64_t offset = tensor_view_offset(&v, i);
        uint64_t bits = dtype_load_bits(out->output, v.type, offset);
        if (padding && real && !dtype_bits_is_nan(v.type, bits) && dtype_bits_to_double(v.type, bits) < 0)
            dtype_store_bits(out->output, v.type, offset, 0);
    }
    return RUN_OK;
}

static run_status crash_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                            dmlc_error *err)
{
    (void)b;
    (void)err;
    if (c->op == OP_ARGMIN && c->input.rank == 3)
        raise(SIGSEGV);
    ref_run(c, opt, out);
    return RUN_OK;
}

static run_status hang_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                           dmlc_error *err)
{
    (void)b;
    (void)err;
    if (c->op == OP_ARGMAX && c->input.rank == 2 && (c->input.sizes[0] + c->input.sizes[1]) % 5 == 0)
        for (;;)
            pause();
    ref_run(c, opt, out);
    return RUN_OK;
}

/* Writes one byte just past the output buffer (the worker's guard band catches it). */
static run_status overrun_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                              dmlc_error *err)
{
    (void)b;
    (void)err;
    ref_run(c, opt, out);
    if (c->op == OP_ARGMAX)
        out->output[out->output_bytes] ^= 0xff;
    return RUN_OK;
}

/* Scribbles on the input buffer it was given. */
static run_status scribble_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                               dmlc_error *err)
{
    (void)b;
    (void)err;
    ref_run(c, opt, out);
    if (c->op == OP_ARGMIN)
        ((dml_case *)c)->input_data[0] ^= 0x5a;
    return RUN_OK;
}

static run_status error_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                            dmlc_error *err)
{
    (void)b;
    if (c->input.type == DML_TENSOR_DATA_TYPE_INT16)
        return err_set(err, "test: INT16 kernels failed to build"), RUN_BACKEND_ERROR;
    ref_run(c, opt, out);
    return RUN_OK;
}

/* ARGMAX answered with ARGMIN: wrong indices (except where they coincide). */
static run_status wrong_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                            dmlc_error *err)
{
    (void)b;
    (void)err;
    dml_case other;
    if (c->op != OP_ARGMAX || !case_copy(&other, c)) {
        ref_run(c, opt, out);
        return RUN_OK;
    }
    other.op = OP_ARGMIN;
    case_link(&other);
    ref_run(&other, opt, out);
    case_free(&other);
    return RUN_OK;
}

/* Follows the other NaN policy: differs only where NaN takes part (class nan). */
static run_status nan_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                          dmlc_error *err)
{
    (void)b;
    (void)err;
    exec_options other = *opt;
    other.nan = opt->nan == NAN_POLICY_IGNORE ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE;
    ref_run(c, &other, out);
    return RUN_OK;
}

#define FAULT_BACKEND(stem, text)                                                             \
    static const backend_vtable stem##_backend = {                                            \
        .name = #stem "_fault", .summary = text, .open = fault_open, .run = stem##_run,      \
        .info = fault_info, .close = fault_close,                                             \
    }
FAULT_BACKEND(ties, "resolves ties the other way");
FAULT_BACKEND(padding, "lets zero padding win");
FAULT_BACKEND(crash, "raises SIGSEGV on rank-3 ARGMIN");
FAULT_BACKEND(hang, "hangs on some rank-2 ARGMAX");
FAULT_BACKEND(overrun, "writes past the ARGMAX output buffer");
FAULT_BACKEND(scribble, "modifies the ARGMIN input");
FAULT_BACKEND(error, "fails on INT16 inputs");
FAULT_BACKEND(wrong, "answers ARGMAX with ARGMIN");
FAULT_BACKEND(nan, "follows the other NaN policy");

/* ---- Database helpers --------------------------------------------------------------- */

static int64_t query_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    } else {
        tap_diag("query failed: %s: %s", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return v;
}

static bool query_text(const char *path, const char *sql, char *buf, size_t size)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    bool ok = false;
    buf[0] = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
            snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
            ok = true;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return ok;
}


static void base_options(runner_options *o, const backend_vtable *b, const char *db, uint64_t cases)
{
    runner_options_default(o);
    o->backend = b;
    o->db_path = db;
    o->cases = cases;
    o->seed = 20240601;
    o->quiet = true;
    o->shrink_budget = 40;
    o->case_timeout_ms = 30000; /* generous: valgrind and a busy machine slow cases down */
    o->out = stderr;
    o->gen.reject_per_mille = 0; /* computing cases only; must-reject ones: tests/plugin */
}

/* ---- Tests -------------------------------------------------------------------------- */

typedef struct fault_test {
    const backend_vtable *backend;
    unsigned op_mask;
    const char *kind;
    unsigned case_timeout_ms;
    uint64_t cases;
    bool strict;
    const char *verdict;    /* expected verdict of the signature */
    unsigned shrink_budget;
} fault_test;

/* Every replay line the run printed names its case with this generator's version, and
 * there is at least one (the fault always shows). */
static void check_printed_replays(tap *t, const char *name, FILE *out)
{
    char line[2048], prefix[64];
    unsigned replays = 0, versioned = 0;
    snprintf(prefix, sizeof prefix, "dmlcheck replay g%d:20240601:", GEN_VERSION);
    if (out)
        rewind(out);
    while (out && fgets(line, sizeof line, out)) {
        const char *r = strstr(line, "replay: ");
        replays += r != NULL;
        versioned += r && !strncmp(r + 8, prefix, strlen(prefix));
    }
    if (out)
        fclose(out);
    tap_ok(t, replays > 0 && versioned == replays, "%s: all %u printed replay lines start \"%s\"",
           name, replays, prefix);
}

static void test_fault(tap *t, const fault_test *f, const char *dir)
{
    char db[512], sql[512], text[256];
    snprintf(db, sizeof db, "%s/%s.sqlite", dir, f->backend->name);
    store_remove_files(db);
    runner_options o;
    base_options(&o, f->backend, db, f->cases);
    o.gen.op_mask = f->op_mask;
    o.strict = f->strict;
    o.shrink_budget = f->shrink_budget;
    if (f->case_timeout_ms)
        o.case_timeout_ms = f->case_timeout_ms;
    o.quiet = false; /* the printed lines, into a file: their replay commands are checked */
    o.out = tmpfile();
    runner_report rep;
    dmlc_error err;
    int code = o.out ? runner_run(&o, &rep, &err) : -1;
    check_printed_replays(t, f->backend->name, o.out);
    int want = strcmp(f->verdict, "fail") ? 0 : 1;
    tap_ok(t, code == want, "%s%s: run exits %d (got %d%s%s)", f->backend->name, f->strict ? " --strict" : "",
           want, code, code == 2 ? ": " : "", code == 2 ? err.msg : "");
    tap_ok(t, rep.cases == o.cases, "%s: every one of %llu cases recorded (%llu)", f->backend->name,
           (unsigned long long)o.cases, (unsigned long long)rep.cases);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM signatures WHERE kind = '%s' AND verdict = '%s'",
             f->kind, f->verdict);
    int64_t sigs = query_int(db, sql);
    tap_ok(t, sigs >= 1, "%s: found as signature kind %s, verdict %s (%lld signatures)", f->backend->name,
           f->kind, f->verdict, (long long)sigs);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM signatures WHERE verdict = 'fail' AND kind <> '%s'",
             f->kind);
    if (!tap_ok(t, query_int(db, sql) == 0, "%s: no failure of another kind", f->backend->name)) {
        char others[2048];
        snprintf(sql, sizeof sql, "SELECT group_concat(kind || ' ' || op || ' ' || feature_level || ' ' ||"
                 " ifnull(first_mismatch, '-') || ' ' || replay, '; ') FROM signatures WHERE verdict = 'fail'"
                 " AND kind <> '%s'", f->kind);
        query_text(db, sql, others, sizeof others);
        tap_diag("%s", others);
        snprintf(sql, sizeof sql, "SELECT group_concat(detail, '; ') FROM results WHERE verdict = 'fail'"
                 " AND kind <> '%s'", f->kind);
        query_text(db, sql, others, sizeof others);
        tap_diag("details: %s", others);
    }
    /* The signature's level is its cases' level: every failing case of that kind sits at a
     * feature level that has a signature of that kind. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM cases c JOIN results r ON r.case_id = c.id WHERE r.kind = '%s'"
             " AND r.verdict <> 'pass' AND NOT EXISTS (SELECT 1 FROM signatures s WHERE s.kind = r.kind"
             " AND s.feature_level = c.feature_level AND s.op = c.op AND s.input_type = c.input_type"
             " AND s.layout = c.layout AND s.distribution = c.distribution)", f->kind);
    tap_ok(t, query_int(db, sql) == 0, "%s: every %s case is under a signature of its feature level",
           f->backend->name, f->kind);
    snprintf(sql, sizeof sql, "SELECT sum(count) FROM signatures WHERE kind = '%s'", f->kind);
    int64_t counted = query_int(db, sql);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM results WHERE kind = '%s'", f->kind);
    tap_ok(t, counted == query_int(db, sql), "%s: signature counts add up to the %s results (%lld)",
           f->backend->name, f->kind, (long long)counted);
    snprintf(sql, sizeof sql, "SELECT replay FROM signatures WHERE kind = '%s' LIMIT 1", f->kind);
    query_text(db, sql, text, sizeof text);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "dmlcheck replay g%d:20240601:", GEN_VERSION);
    tap_ok(t, strstr(text, prefix) != NULL, "%s: replay command recorded: %s",
           f->backend->name, text);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM signatures WHERE kind = '%s' AND shrunk_case IS NOT NULL",
             f->kind);
    if (f->shrink_budget)
        tap_ok(t, query_int(db, sql) >= 1, "%s: a minimized case file is stored", f->backend->name);
    char shown[4096];
    snprintf(sql, sizeof sql, "SELECT representative || ' first=' || ifnull(first_mismatch, '-') || "
             "' shrunk=' || shrunk_case FROM signatures WHERE kind = '%s' AND shrunk_case IS NOT NULL "
             "ORDER BY length(shrunk_case) LIMIT 1", f->kind);
    if (query_text(db, sql, shown, sizeof shown))
        tap_diag("%s: %s", f->backend->name, shown);
    tap_ok(t, query_int(db, "SELECT count(*) FROM runs WHERE status = 'finished'") == 1,
           "%s: the run is marked finished", f->backend->name);
    store_remove_files(db);
}

static void test_newer_schema_refused(tap *t, const char *dir)
{
    char db[512];
    snprintf(db, sizeof db, "%s/newer.sqlite", dir);
    store_remove_files(db);
    dmlc_error err;
    store *s = store_open(db, &err);
    tap_ok(t, s != NULL && store_found_version(s) == 0, "a fresh database is created");
    store_close(s);
    sqlite3 *raw;
    sqlite3_open(db, &raw);
    sqlite3_exec(raw, "PRAGMA user_version = 99", NULL, NULL, NULL);
    sqlite3_close(raw);
    s = store_open(db, &err);
    tap_ok(t, s == NULL && strstr(err.msg, "newer") && strstr(err.msg, "99"),
           "a newer schema is refused: %s", s ? "(opened)" : err.msg);
    store_close(s);
    tap_ok(t, query_int(db, "PRAGMA user_version") == 99, "the refused database is left untouched");
    store_remove_files(db);

    snprintf(db, sizeof db, "%s/foreign.sqlite", dir);
    store_remove_files(db);
    sqlite3_open(db, &raw);
    sqlite3_exec(raw, "CREATE TABLE other (x)", NULL, NULL, NULL);
    sqlite3_close(raw);
    s = store_open(db, &err);
    tap_ok(t, s == NULL && strstr(err.msg, "not a dmlcheck"), "a foreign database is refused: %s",
           s ? "(opened)" : err.msg);
    store_close(s);
    store_remove_files(db);
}

static void test_kill_midway(tap *t, const char *dir)
{
    char db[512];
    snprintf(db, sizeof db, "%s/killed.sqlite", dir);
    store_remove_files(db);
    runner_options o;
    base_options(&o, backend_find("reference"), db, 50000000);
    o.commit_cases = 256;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        runner_report rep;
        dmlc_error err;
        _exit(runner_run(&o, &rep, &err));
    }
    int64_t seen = 0;
    for (int i = 0; i < 600 && seen < 2000; i++) { /* up to a minute */
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        seen = access(db, F_OK) == 0 ? query_int(db, "SELECT count(*) FROM results") : 0;
    }
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    tap_ok(t, WIFSIGNALED(status) && seen >= 2000, "a run was killed with SIGKILL after %lld cases",
           (long long)seen);
    char text[64];
    query_text(db, "PRAGMA integrity_check", text, sizeof text);
    tap_ok(t, !strcmp(text, "ok"), "the database is intact after kill -9 (%s)", text);
    int64_t cases = query_int(db, "SELECT count(*) FROM cases");
    tap_ok(t, cases >= seen && cases == query_int(db, "SELECT count(*) FROM results"),
           "it holds every committed case with its result (%lld)", (long long)cases);
    tap_ok(t, query_int(db, "SELECT cases_done FROM runs WHERE id = 1") == cases,
           "the run row counts exactly the committed cases");
    query_text(db, "SELECT status FROM runs WHERE id = 1", text, sizeof text);
    tap_ok(t, !strcmp(text, "running") && query_int(db, "SELECT finished_at IS NULL FROM runs") == 1,
           "the killed run stays 'running' without an end time (%s)", text);
    report_model m;
    report_model_init(&m);
    dmlc_error rerr = { "" };
    bool loaded = report_load(&m, db, 1, false, &rerr) && report_model_finish(&m, &rerr);
    size_t incomplete = 0, tested = 0;
    for (size_t i = 0; loaded && i < m.verdict_count; i++) {
        tested += m.verdicts[i].kind != REPORT_VERDICT_NOT_TESTED;
        incomplete += m.verdicts[i].kind == REPORT_VERDICT_INCOMPLETE;
    }
    tap_ok(t, loaded && tested > 0 && incomplete == tested,
           "its report calls every tested level INCOMPLETE RUN, never CONFORMANT (%zu of %zu) %s",
           incomplete, tested, rerr.msg);
    report_model_free(&m);

    base_options(&o, backend_find("reference"), db, 500);
    runner_report rep;
    dmlc_error err;
    int code = runner_run(&o, &rep, &err);
    tap_ok(t, code == 0, "a second run on the same database succeeds (%d %s)", code, code ? err.msg : "");
    tap_ok(t, query_int(db, "SELECT count(*) FROM runs") == 2
               && query_int(db, "SELECT count(*) FROM cases") == cases + 500,
           "it appends: 2 runs, %lld + 500 cases", (long long)cases);
    store_remove_files(db);
}

static void test_pocl(tap *t, const char *dir)
{
    const backend_vtable *cl = backend_find("opencl");
    if (!cl) {
        tap_skip(t, "built without OpenCL", "opencl run");
        return;
    }
    char db[512];
    snprintf(db, sizeof db, "%s/opencl.sqlite", dir);
    store_remove_files(db);
    runner_options o;
    base_options(&o, cl, db, 3000);
    o.case_timeout_ms = 60000;
    o.open_timeout_ms = 120000;
    runner_report rep;
    dmlc_error err;
    int code = runner_run(&o, &rep, &err);
    if (code == 2 && (strstr(err.msg, "platform") || strstr(err.msg, "device"))) {
        tap_skip(t, err.msg, "opencl run");
        store_remove_files(db);
        return;
    }
    tap_ok(t, code == 0 && rep.cases == 3000, "3000 cases on OpenCL: exit %d, %llu cases, %llu judged "
           "mismatches%s%s", code, (unsigned long long)rep.cases,
           (unsigned long long)rep.by_verdict[VERDICT_FAIL], code == 2 ? ": " : "", code == 2 ? err.msg : "");
    if (rep.by_verdict[VERDICT_FAIL]) {
        char text[512];
        query_text(db, "SELECT group_concat(kind || ' ' || op || ' ' || feature_level || ' ' || replay, '; ')"
                   " FROM signatures WHERE verdict = 'fail'", text, sizeof text);
        tap_diag("failures: %s", text);
    }
    tap_ok(t, query_int(db, "SELECT sum(cases) FROM verdict_counts") == 3000,
           "the verdict_counts view counts all of them");
    store_remove_files(db);
}

/* With no argument: everything but the OpenCL run (which has its own test() in the opencl
 * suite, so the valgrind setup leaves it out); with one: only the part of that name
 * ("schema", "kill", "opencl", or a fault backend such as "ties_fault"). */
int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    tap t;
    tap_plan(&t, 0);
    char dir[] = "/tmp/dmlcheck-test-runner-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    if (!only || !strcmp(only, "schema"))
        test_newer_schema_refused(&t, dir);
    const unsigned arg_ops = (1u << OP_ARGMIN) | (1u << OP_ARGMAX);
    const fault_test faults[] = {
        { &ties_backend, arg_ops, "tie_other_way", 0, 1000, false, "fail", 40 },
        { &padding_backend, 1u << OP_MAX_POOLING2, "padding_selected", 0, 1000, false, "fail", 40 },
        { &crash_backend, 1u << OP_ARGMIN, "crash", 0, 1000, false, "fail", 40 },
        { &hang_backend, 1u << OP_ARGMAX, "hang", 200, 300, false, "fail", 3 },
        { &overrun_backend, 1u << OP_ARGMAX, "out_of_bounds_write", 0, 200, false, "fail", 10 },
        { &scribble_backend, 1u << OP_ARGMIN, "input_modified", 0, 200, false, "fail", 10 },
        { &error_backend, arg_ops, "backend_error", 0, 300, false, "fail", 0 },
        { &wrong_backend, 1u << OP_ARGMAX, "wrong_index", 0, 300, false, "fail", 20 },
        { &nan_backend, arg_ops, "nan_handling", 0, 1000, false, "unspecified", 0 },
        { &nan_backend, arg_ops, "nan_handling", 0, 1000, true, "fail", 20 },
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (!only || !strcmp(only, faults[i].backend->name))
            test_fault(&t, &faults[i], dir);
    if (!only || !strcmp(only, "kill"))
        test_kill_midway(&t, dir);
    if (only && !strcmp(only, "opencl"))
        test_pocl(&t, dir);
    rmdir(dir);
    return tap_done(&t);
}
