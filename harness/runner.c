/*
 * runner.c: the differential run loop (see runner.h).
 *
 * Pipeline: cases travel in batches of consecutive indices.  While the worker runs batch k
 * on the backend, this process generates batch k's cases itself and computes the reference
 * answers; batch k+1 is requested before batch k's answers are read, so the worker never
 * waits for the parent.  Answers are judged in index order and recorded; the transaction
 * is committed every `commit_cases` cases or every second, together with the run's
 * counters, so the database is always a consistent prefix of the run.
 *
 * A crash or hang is charged to the case whose answer was due; the worker is restarted and
 * the lost requests are sent again.  One that ends a backend batch (worker.h) is charged to no
 * case: the batch's cases are run again one by one, and the one that dies alone is charged;
 * when none does, the worker charges the batch's last case.  The stop flag is checked between batches and, through
 * the worker, every 100 ms while an answer is awaited: the case in flight and the rest of its
 * batch are dropped, what was recorded is committed, and the run is marked interrupted.
 */
#include "runner.h"

#include "op_module.h"

#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>

#include "check.h"
#include "classify.h"
#include "compare.h"
#include "dtype.h"
#include "error.h"
#include "recorder.h"
#include "oracle_guard.h"
#include "reference.h"
#include "replay.h"
#include "casefile.h"
#include "families.h"
#include "shrink.h"
#include "store.h"
#include "worker.h"

#define DEFAULT_BATCH 128
#define DEFAULT_COMMIT_CASES 4096
#define COMMIT_INTERVAL_S 1.0
#define PROGRESS_INTERVAL_S 0.1

/* ---- Options ------------------------------------------------------------------------ */

void runner_options_default(runner_options *o)
{
    memset(o, 0, sizeof *o);
    gen_options_default(&o->gen);
    o->nan = NAN_POLICY_IGNORE;
    o->batch = DEFAULT_BATCH;
    o->commit_cases = DEFAULT_COMMIT_CASES;
    o->case_timeout_ms = 10000;
    o->reference_timeout_ms = 300000;
    o->open_timeout_ms = 300000;
    o->shrink_budget = 300;
    o->shrink_seconds = 60;
    o->out = stdout;
}

/* The distance between a shard's consecutive indices (1: the whole run). */
static uint64_t index_step(const runner_options *o)
{
    return o->shard_count ? o->shard_count : 1;
}

/* How many of the first `cases` indices are this run's (all of them without a shard). */
static uint64_t shard_cases(const runner_options *o, uint64_t cases)
{
    uint64_t step = index_step(o);
    return cases > o->shard_index ? (cases - o->shard_index + step - 1) / step : 0;
}

static bool parse_u64_text(const char *text, uint64_t *v)
{
    char *end;
    if (!text || !*text || *text == '-')
        return false;
    *v = strtoull(text, &end, 0);
    return *end == 0;
}

/* Splits a comma list and calls add for each item; false on the first unknown item. */
static bool parse_list(const char *value, bool (*add)(runner_options *, const char *),
                       runner_options *o, const char *what, dmlc_error *err)
{
    char *copy = strdup(value), *save = NULL;
    if (!copy)
        return err_set(err, "out of memory");
    bool ok = true;
    for (char *item = strtok_r(copy, ",", &save); item && ok; item = strtok_r(NULL, ",", &save))
        if (!add(o, item))
            ok = err_set(err, "unknown %s '%s'", what, item);
    free(copy);
    return ok;
}

static bool add_op(runner_options *o, const char *name)
{
    op_id op = op_from_name(name);
    if (op == OP_COUNT)
        return false;
    o->gen.op_mask |= 1u << op;
    return true;
}

static bool add_type(runner_options *o, const char *name)
{
    DML_TENSOR_DATA_TYPE t = dtype_from_name(name);
    if (t == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return false;
    o->gen.input_type_mask |= 1u << t;
    return true;
}

/* A decimal number of at most 9 digits (shard numbers), nothing before or after it. */
static bool parse_shard_number(const char *text, size_t len, uint64_t *v)
{
    if (len == 0 || len > 9)
        return false;
    *v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        *v = *v * 10 + (uint64_t)(text[i] - '0');
    }
    return true;
}

bool runner_parse_shard(runner_options *o, const char *text, dmlc_error *err)
{
    const char *slash = strchr(text, '/');
    uint64_t k, n;
    if (!slash || !parse_shard_number(text, (size_t)(slash - text), &k)
        || !parse_shard_number(slash + 1, strlen(slash + 1), &n))
        return err_set(err, "--shard '%s' is not K/N (shard K of N, numbered from 0: --shard 0/4 "
                       "... --shard 3/4)", text);
    if (n == 0 || n > RUNNER_SHARDS_MAX)
        return err_set(err, "--shard '%s': N must be 1 to %d", text, RUNNER_SHARDS_MAX);
    if (k >= n)
        return err_set(err, "--shard '%s': shards are numbered from 0, so K must be below N "
                       "(the shards of %" PRIu64 " are 0/%" PRIu64 " ... %" PRIu64 "/%" PRIu64 ")",
                       text, n, n, n - 1, n);
    o->shard_index = k;
    o->shard_count = n;
    return true;
}

bool runner_parse_common(runner_options *o, const char *name, const char *value, dmlc_error *err)
{
    uint64_t n;
    if (!strcmp(name, "backend")) {
        o->backend = backend_select(value, &o->backend_args);
        if (o->backend)
            return true;
        char names[256] = "";
        for (size_t i = 0; backend_registry[i]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), " %s",
                     backend_registry[i]->name);
        return err_set(err, "unknown backend '%s'; this build has:%s", value, names);
    }
    if (!strcmp(name, "device")) {
        o->device = value;
        return true;
    }
    if (!strcmp(name, "feature-level")) {
        if (!fl_from_name(value, &o->gen.feature_level) || !fl_effective(o->gen.feature_level))
            return err_set(err, "unknown feature level '%s' (tested: 2_1, 3_0, 4_1, 5_0)", value);
        return true;
    }
    if (!strcmp(name, "ops"))
        return parse_list(value, add_op, o, "operator", err);
    if (!strcmp(name, "types"))
        return parse_list(value, add_type, o, "data type", err);
    if (!strcmp(name, "max-elements")) {
        if (!parse_u64_text(value, &n) || n < 1)
            return err_set(err, "--max-elements wants a count >= 1, not '%s'", value);
        o->gen.max_elements = n;
        return true;
    }
    if (!strcmp(name, "inputs-per-desc")) {
        if (!parse_u64_text(value, &n) || n < 1 || n > 1000000)
            return err_set(err, "--inputs-per-desc wants a count from 1 to 1000000, not '%s'", value);
        o->gen.inputs_per_desc = (unsigned)n;
        return true;
    }
    if (!strcmp(name, "reject-rate")) {
        if (!parse_u64_text(value, &n) || n > 1000)
            return err_set(err, "--reject-rate wants cases per thousand, 0 to 1000, not '%s'", value);
        o->gen.reject_per_mille = (unsigned)n;
        return true;
    }
    if (!strcmp(name, "nan-policy")) {
        if (!nan_policy_from_name(value, &o->nan))
            return err_set(err, "--nan-policy is 'ignore' or 'propagate', not '%s'", value);
        return true;
    }
    if (!strcmp(name, "strict")) {
        o->strict = true;
        return true;
    }
    if (!strcmp(name, "case-timeout")) {
        if (!parse_u64_text(value, &n) || n < 1 || n > UINT32_MAX)
            return err_set(err, "--case-timeout wants milliseconds >= 1, not '%s'", value);
        o->case_timeout_ms = (unsigned)n;
        return true;
    }
    if (!strcmp(name, "reference-timeout")) {
        if (!parse_u64_text(value, &n) || n < 1 || n > UINT32_MAX)
            return err_set(err, "--reference-timeout wants milliseconds >= 1, not '%s'", value);
        o->reference_timeout_ms = (unsigned)n;
        return true;
    }
    return err_set(err, "unknown option --%s", name);
}

int runner_parse_case_command(const char *command, int argc, char **argv,
                              void (*usage)(FILE *f), runner_options *o, uint64_t *index)
{
    /* One table for replay and export, so a replay line's options work for both. */
    static const struct option options[] = {
        { "backend", required_argument, NULL, 0 },   { "device", required_argument, NULL, 0 },
        { "feature-level", required_argument, NULL, 0 }, { "ops", required_argument, NULL, 0 },
        { "types", required_argument, NULL, 0 },     { "max-elements", required_argument, NULL, 0 },
        { "reject-rate", required_argument, NULL, 0 }, { "inputs-per-desc", required_argument, NULL, 0 },
        { "nan-policy", required_argument, NULL, 0 }, { "strict", no_argument, NULL, 0 },
        { "case-timeout", required_argument, NULL, 0 }, { "help", no_argument, NULL, 'h' },
        { "db", required_argument, NULL, 'd' },      { 0, 0, 0, 0 },
    };
    dmlc_error err;
    int which, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, &which)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == 'd') {
            o->db_path = optarg;
            continue;
        }
        if (c != 0) {
            usage(stderr);
            return 2;
        }
        if (!runner_parse_common(o, options[which].name, optarg, &err)) {
            fprintf(stderr, "dmlcheck %s: %s\n", command, err.msg);
            return 2;
        }
    }
    gen_case_id id;
    if (optind != argc - 1 || !gen_parse_case_id(argv[optind], &id)) {
        fprintf(stderr, "dmlcheck %s: give one case id gN:SEED:INDEX (e.g. g%d:7:49)\n", command,
                GEN_VERSION);
        usage(stderr);
        return 2;
    }
    o->seed = id.seed;
    *index = id.index;
    /* An older generator still supported draws its own ids' cases (gen.h GEN_OLDEST_VERSION). */
    if (gen_version_supported(id.version))
        o->gen.version = id.version;
    return runner_check_case_id(command, &id, o);
}

/* "argmax,max_pooling2" / "f16,u8" lists of the masks, into buf. */
static void mask_list(char *buf, size_t size, unsigned op_mask, uint32_t type_mask)
{
    buf[0] = 0;
    for (int op = 0; op < OP_COUNT; op++)
        if (op_mask & (1u << op))
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "," : "", op_table[op].stem);
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (type_mask & (1u << dtype_table[i].type))
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "," : "",
                     dtype_table[i].name);
}

const char *runner_backend_text(const runner_options *o, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", o->backend->name, o->backend_args ? ":" : "",
             o->backend_args ? o->backend_args : "");
    return buf;
}

const char *runner_replay_args(const runner_options *o, char *buf, size_t size)
{
    char list[256];
    gen_options def;
    gen_options_default(&def);
    buf[0] = 0;
    replay_append_arg(buf, size, "--backend");
    char backend[RUNNER_BACKEND_TEXT];
    replay_append_arg(buf, size, o->backend ? runner_backend_text(o, backend, sizeof backend) : "reference");
    if (o->device) {
        replay_append_arg(buf, size, "--device");
        replay_append_arg(buf, size, o->device);
    }
    if (o->gen.feature_level) {
        replay_append_arg(buf, size, "--feature-level");
        replay_append_arg(buf, size, fl_name(o->gen.feature_level));
    }
    if (o->gen.op_mask) {
        mask_list(list, sizeof list, o->gen.op_mask, 0);
        replay_append_arg(buf, size, "--ops");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.input_type_mask) {
        mask_list(list, sizeof list, 0, o->gen.input_type_mask);
        replay_append_arg(buf, size, "--types");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.max_elements != def.max_elements) {
        snprintf(list, sizeof list, "%" PRIu64, o->gen.max_elements);
        replay_append_arg(buf, size, "--max-elements");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.inputs_per_desc > 1) {
        snprintf(list, sizeof list, "%u", o->gen.inputs_per_desc);
        replay_append_arg(buf, size, "--inputs-per-desc");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.reject_per_mille != def.reject_per_mille) {
        snprintf(list, sizeof list, "%u", o->gen.reject_per_mille);
        replay_append_arg(buf, size, "--reject-rate");
        replay_append_arg(buf, size, list);
    }
    if (o->nan != NAN_POLICY_IGNORE) {
        replay_append_arg(buf, size, "--nan-policy");
        replay_append_arg(buf, size, nan_policy_name(o->nan));
    }
    if (o->strict)
        replay_append_arg(buf, size, "--strict");
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return NULL;
    if (buf[0] == ' ')
        memmove(buf, buf + 1, used);
    return buf;
}

static json_t *mask_json(unsigned op_mask, uint32_t type_mask)
{
    if (!op_mask && !type_mask)
        return json_null();
    json_t *a = json_array();
    for (int op = 0; op < OP_COUNT; op++)
        if (op_mask & (1u << op))
            json_array_append_new(a, json_string(op_table[op].name));
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (type_mask & (1u << dtype_table[i].type))
            json_array_append_new(a, json_string(dtype_table[i].name));
    return a;
}

char *runner_options_json(const runner_options *o)
{
    char seed[24], backend[RUNNER_BACKEND_TEXT];
    snprintf(seed, sizeof seed, "%" PRIu64, o->seed);
    json_t *j = json_pack("{s:s, s:s?, s:s, s:s?, s:o, s:o, s:I, s:I, s:I, s:s, s:b, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:f}",
                          "backend", o->backend ? runner_backend_text(o, backend, sizeof backend) : "?",
                          "device", o->device,
                          "seed", seed,
                          "feature_level", o->gen.feature_level ? fl_name(o->gen.feature_level) : NULL,
                          "ops", mask_json(o->gen.op_mask, 0),
                          "types", mask_json(0, o->gen.input_type_mask),
                          "max_elements", (json_int_t)gen_max_elements(&o->gen),
                          "reject_per_mille", (json_int_t)o->gen.reject_per_mille,
                          "inputs_per_desc", (json_int_t)o->gen.inputs_per_desc,
                          "nan_policy", nan_policy_name(o->nan),
                          "strict", o->strict,
                          "cases", o->cases ? json_integer((json_int_t)o->cases) : json_null(),
                          "time_s", o->time_s > 0 ? json_real(o->time_s) : json_null(),
                          "batch", (json_int_t)o->batch,
                          "commit_cases", (json_int_t)o->commit_cases,
                          "case_timeout_ms", (json_int_t)o->case_timeout_ms,
                          "shrink_budget", (json_int_t)o->shrink_budget,
                          "reference_timeout_ms", (json_int_t)o->reference_timeout_ms,
                          "shrink_time_s", o->shrink_seconds);
    if (j && o->more_cases && o->more_cases_rule
        && json_object_set_new(j, "go_on", json_string(o->more_cases_rule)) != 0) {
        json_decref(j);
        j = NULL;
    }
    /* A shard names itself as `dmlcheck merge` combines shards: {"count":N,"indices":[K]}. */
    if (j && o->shard_count)
        json_object_set_new(j, "shard", json_pack("{s:I, s:[I]}", "count", (json_int_t)o->shard_count,
                                                  "indices", (json_int_t)o->shard_index));
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return text;
}

/* ---- Small helpers ------------------------------------------------------------------ */

/* The id of case `index` of this run: gN:SEED:INDEX with this generator's version. */
static const char *case_name(uint64_t seed, uint64_t index, char buf[GEN_CASE_ID_SIZE])
{
    gen_case_id id = { .version = GEN_VERSION, .seed = seed, .index = index };
    return gen_format_case_id(&id, buf, GEN_CASE_ID_SIZE);
}

static bool stop_raised(const runner_options *o)
{
    return o->stop && *o->stop;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *utc_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

static const char *host_text(char *buf, size_t size)
{
    struct utsname u;
    if (uname(&u) < 0)
        return NULL;
    snprintf(buf, size, "%s %s %s %s", u.nodename, u.sysname, u.release, u.machine);
    return buf;
}

static size_t fl_slot(DML_FEATURE_LEVEL fl)
{
    DML_FEATURE_LEVEL eff = fl_effective(fl);
    for (size_t i = 0; i < FL_TESTED_COUNT; i++)
        if (fl_tested[i] == eff)
            return i;
    return 0;
}

/* ---- Case rows ---------------------------------------------------------------------- */

/* Per-case JSON columns (sizes, strides, params) hold only numbers, booleans and fixed key
 * and enum names, so they are written straight into a reusable buffer: going through jansson
 * (a tree, malloc per node, snprintf per integer) cost more than the SQLite insert itself.
 * The text is what json_dumps(..., JSON_COMPACT) gives for the same object (insertion order,
 * no spaces); never append a string that may need escaping here. */
typedef struct json_text {
    char buf[768];
    size_t len;
    bool overflow;
} json_text;

static void jt_raw(json_text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n >= sizeof t->buf) {
        t->overflow = true;
        return;
    }
    memcpy(t->buf + t->len, s, n + 1);
    t->len += n;
}

static void jt_uint(json_text *t, uint64_t v)
{
    char digits[24], *p = digits + sizeof digits;
    *--p = 0;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    jt_raw(t, p);
}

/* "[1,2,3]" */
static void jt_uint_array(json_text *t, const UINT *v, unsigned n)
{
    jt_raw(t, "[");
    for (unsigned i = 0; i < n; i++) {
        if (i)
            jt_raw(t, ",");
        jt_uint(t, v[i]);
    }
    jt_raw(t, "]");
}

/* The array as JSON text in t, or NULL when it does not fit (never for rank <= 8). */
static const char *uint_array_text(json_text *t, const UINT *v, unsigned n)
{
    t->len = 0;
    t->overflow = false;
    t->buf[0] = 0;
    jt_uint_array(t, v, n);
    return t->overflow ? NULL : t->buf;
}

static const char *params_text(json_text *t, const dml_case *c)
{
    t->len = 0;
    t->overflow = !case_module(c)->params_json(c, t->buf, sizeof t->buf);
    return t->overflow ? NULL : t->buf;
}

/* The module's axes coverage value (ARGMIN/ARGMAX), stored per case in cases.axis_kind. */
static const char *axis_kind(const dml_case *c)
{
    const char *dims[OP_COVERAGE_MAX], *values[OP_COVERAGE_MAX];
    unsigned n = case_module(c)->coverage(c, dims, values, OP_COVERAGE_MAX);
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(dims[i], OP_COVERAGE_AXES))
            return values[i];
    return NULL;
}

/* ---- The run ------------------------------------------------------------------------ */

typedef struct slot_case {
    dml_case c;
    gen_info info;
    bool valid;
    char error[ERR_MSG_MAX];
    check_oracle oracle;     /* the reference side of the check */
} slot_case;

typedef struct slot {
    uint64_t first;
    uint32_t count;
    slot_case *cases;
} slot;

/* The index of a batch's i-th case. */
static uint64_t slot_index(const runner_options *o, const slot *s, uint32_t i)
{
    return s->first + i * index_step(o);
}

typedef struct seen_signature {
    int64_t id;
    bool is_new;
    uint64_t index;         /* first case of this run with it */
    verdict verdict;
    mismatch_kind kind;
    op_id op;
    DML_FEATURE_LEVEL feature_level;
    uint64_t count;         /* in this run */
    bool nondeterministic;  /* its first case passed when run again */
} seen_signature;

typedef struct runner {
    const runner_options *o;
    runner_report *rep;
    store *db;
    recorder *rec;          /* case rows and commits go through its writer thread */
    worker *w;
    worker_config wcfg;
    backend_info info;
    int64_t device_id;
    check_options check;    /* how the worker's answers are judged */
    char replay_args[RUNNER_REPLAY_ARGS_MAX];
    char backend_text[RUNNER_BACKEND_TEXT]; /* --backend as given: stored with the run */
    seen_signature *sigs;
    size_t sig_count, sig_cap;
    uint64_t fl_counts[8][VERDICT_COUNT];
    uint64_t uncommitted;
    uint64_t case_target;   /* o->cases, then what o->more_cases asked for; 0: no count */
    double start, last_commit, last_progress;
    bool progress_shown;
    bool stopped;           /* the stop flag ended a wait for the worker: record no more */
} runner;

static void clear_progress(runner *r)
{
    if (r->progress_shown) {
        fputs("\r\033[K", r->o->out);
        r->progress_shown = false;
    }
}

static void show_progress(runner *r, bool force)
{
    if (!r->o->progress)
        return;
    double now = now_s();
    if (!force && now - r->last_progress < PROGRESS_INTERVAL_S)
        return;
    r->last_progress = now;
    double elapsed = now - r->start;
    double rate = elapsed > 0 ? (double)r->rep->cases / elapsed : 0;
    char eta[32] = "-";
    if (r->case_target && rate > 0)
        snprintf(eta, sizeof eta, "%.0fs", (double)(shard_cases(r->o, r->case_target) - r->rep->cases) / rate);
    else if (r->o->time_s > 0)
        snprintf(eta, sizeof eta, "%.0fs", r->o->time_s > elapsed ? r->o->time_s - elapsed : 0);
    fprintf(r->o->out, "\r\033[K%" PRIu64 " cases  %.0f/s  %" PRIu64 " failed  %" PRIu64
            " unspecified  %zu signatures  ETA %s", r->rep->cases, rate,
            r->rep->by_verdict[VERDICT_FAIL], r->rep->by_verdict[VERDICT_UNSPECIFIED], r->sig_count, eta);
    fflush(r->o->out);
    r->progress_shown = true;
}

static void free_slot_case(slot_case *sc)
{
    case_free(&sc->c);
    check_oracle_free(&sc->oracle);
    sc->valid = false;
}

static exec_options reference_exec(const runner_options *o)
{
    return (exec_options){ .nan = o->nan, .flush_denormals = false };
}


/* Generates, validates and runs the reference for one case of the batch.  A case whose
 * reference outlives its limit is not valid (recorded as not checked); ORACLE_STOPPED and
 * ORACLE_FAILED (out of memory for the input or the reference's outputs, err says what and
 * how big) end the run. */
static oracle_outcome prepare_case(runner *r, uint64_t index, slot_case *sc, dmlc_error *err)
{
    memset(sc, 0, sizeof *sc);
    if (!worker_generate(&r->wcfg, index, &sc->c, &sc->info, err)) {
        memcpy(sc->error, err->msg, sizeof sc->error - 1);
        return gen_out_of_memory(&sc->c) ? ORACLE_FAILED : ORACLE_READY;
    }
    exec_options exec = reference_exec(r->o);
    oracle_limits limits = { .limit_ms = r->o->reference_timeout_ms, .stop = r->o->stop };
    oracle_outcome got = oracle_prepare(&sc->c, &exec, &limits, &sc->oracle, err);
    if (got == ORACLE_OUT_OF_TIME)
        memcpy(sc->error, err->msg, sizeof sc->error - 1);
    sc->valid = got == ORACLE_READY;
    return got == ORACLE_OUT_OF_TIME ? ORACLE_READY : got;
}

/* Prepares every case of a batch.  False when a stop or an allocation failure ends the run:
 * the worker, busy with this batch, is killed (r->stopped says which). */
static bool prepare_slot(runner *r, slot *s, dmlc_error *err)
{
    for (uint32_t i = 0; i < s->count; i++) {
        oracle_outcome got = prepare_case(r, slot_index(r->o, s, i), &s->cases[i], err);
        if (got == ORACLE_READY)
            continue;
        r->stopped = got == ORACLE_STOPPED;
        if (got == ORACLE_FAILED) {
            char name[GEN_CASE_ID_SIZE];
            err_prefix(err, "case %s", case_name(r->o->seed, slot_index(r->o, s, i), name));
        }
        worker_abandon(r->w);
        return false;
    }
    return true;
}

static seen_signature *remember_signature(runner *r, int64_t id, bool is_new, uint64_t index,
                                          const dml_case *c, const judgement *j)
{
    for (size_t i = 0; i < r->sig_count; i++)
        if (r->sigs[i].id == id) {
            r->sigs[i].count++;
            return &r->sigs[i];
        }
    if (r->sig_count == r->sig_cap) {
        size_t cap = r->sig_cap ? 2 * r->sig_cap : 16;
        seen_signature *s = realloc(r->sigs, cap * sizeof *s);
        if (!s)
            return NULL;
        r->sigs = s;
        r->sig_cap = cap;
    }
    seen_signature *s = &r->sigs[r->sig_count++];
    *s = (seen_signature){ .id = id, .is_new = is_new, .index = index, .verdict = j->verdict,
                           .kind = j->kind, .op = c->op, .feature_level = c->feature_level,
                           .count = 1 };
    r->rep->signatures = (unsigned)r->sig_count;
    r->rep->new_signatures += is_new;
    return s;
}

/* Same family (families.h: one bug, one row): operator family, kind and verdict. */
static bool same_family(const seen_signature *a, const seen_signature *b)
{
    return op_table[a->op].module == op_table[b->op].module && a->kind == b->kind
           && a->verdict == b->verdict;
}

/* True when no earlier signature of this run is of the same family. */
static bool first_of_family(const runner *r, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (same_family(&r->sigs[k], &r->sigs[i]))
            return false;
    return true;
}

static const char *type_or_null(const case_tensor *t)
{
    return t->present ? dtype_name(t->type) : NULL;
}

/* The signature's first line, then the check's explanation of its first case, replay last. */
static void print_signature_line(runner *r, const slot_case *sc, uint64_t index, const check_result *res,
                                 const char *replay, bool is_new)
{
    if (r->o->quiet)
        return;
    clear_progress(r);
    const dml_case *c = &sc->c;
    char name[GEN_CASE_ID_SIZE];
    case_name(r->o->seed, index, name);
    fprintf(r->o->out, "%s %s kind=%s op=%s fl=%s input=%s output=%s indices=%s layout=%s "
            "dist=%s case=%s\n", is_new ? "new-signature" : "signature",
            verdict_name(res->j.verdict), mismatch_kind_name(res->j.kind), op_table[c->op].name,
            fl_name(c->feature_level), dtype_name(c->input.type), dtype_name(c->output.type),
            c->indices.present ? dtype_name(c->indices.type) : "-", gen_layout_name(sc->info.layout),
            gen_distribution_name(sc->info.dist), name);
    check_print(r->o->out, "  ", c, res, replay);
}

static bool record_signature(runner *r, const slot_case *sc, uint64_t index, const check_result *res,
                             const char *first_json, dmlc_error *err)
{
    const dml_case *c = &sc->c;
    const judgement *j = &res->j;
    char case_id[GEN_CASE_ID_SIZE], replay[RUNNER_REPLAY_LINE_MAX], seen_at[32];
    case_name(r->o->seed, index, case_id);
    snprintf(replay, sizeof replay, "dmlcheck replay %s %s", case_id, r->replay_args);
    store_signature_row row = {
        .backend = r->backend_text, .device_id = r->device_id, .op = op_table[c->op].name,
        .feature_level = fl_name(c->feature_level), .input_type = dtype_name(c->input.type),
        .output_type = dtype_name(c->output.type), .indices_type = type_or_null(&c->indices),
        .layout = gen_layout_name(sc->info.layout), .distribution = gen_distribution_name(sc->info.dist),
        .kind = mismatch_kind_name(j->kind), .verdict = verdict_name(j->verdict),
        .run_id = r->rep->run_id, .seen_at = utc_now(seen_at, sizeof seen_at), .case_id = case_id,
        .elements = case_tensor_elements(&c->input), .first_mismatch = first_json, .replay = replay,
    };
    int64_t id;
    bool is_new;
    if (!store_signature(r->db, &row, &id, &is_new, err))
        return false;
    size_t before = r->sig_count;
    if (!remember_signature(r, id, is_new, index, c, j))
        return err_set(err, "out of memory remembering signatures");
    /* First of its family in this run: say so, with its replay command; the family's other
     * signatures are counted, and the summary lists the families. */
    if (r->sig_count > before && first_of_family(r, r->sig_count - 1))
        print_signature_line(r, sc, index, res, replay, is_new);
    return true;
}

static bool record_case(runner *r, const slot_case *sc, uint64_t index, const check_result *res,
                        double time_us, const char *detail, dmlc_error *err)
{
    const dml_case *c = &sc->c;
    const judgement *j = &res->j;
    char classes[64], also[512];
    json_text in_sizes_text, in_strides_text, out_sizes_text, params_buf;
    const char *in_sizes = uint_array_text(&in_sizes_text, c->input.sizes, c->input.rank);
    const char *in_strides = c->input.has_strides
        ? uint_array_text(&in_strides_text, c->input.strides, c->input.rank) : NULL;
    const char *out_sizes = uint_array_text(&out_sizes_text, c->output.sizes, c->output.rank);
    const char *params = params_text(&params_buf, c);
    char *first = check_first_json(c, res);
    store_case_row row = {
        .run_id = r->rep->run_id, .case_index = index, .op = op_table[c->op].name,
        .feature_level = fl_name(c->feature_level), .input_type = dtype_name(c->input.type),
        .output_type = dtype_name(c->output.type), .indices_type = type_or_null(&c->indices),
        .rank = c->input.rank, .elements = case_tensor_elements(&c->input), .input_sizes = in_sizes,
        .input_strides = in_strides, .output_sizes = out_sizes, .params = params,
        .axis_kind = axis_kind(c), .layout = gen_layout_name(sc->info.layout),
        .distribution = gen_distribution_name(sc->info.dist),
        .classes = case_classes_str(res->classes, classes, sizeof classes),
        .verdict = verdict_name(j->verdict), .kind = mismatch_kind_name(j->kind),
        .mismatch_count = j->count, .first_mismatch = first, .detail = detail, .time_us = time_us,
        .has_nan_policies = res->nan.nan_rows > 0, .nan_policies = res->nan.policies,
        .also_kinds = mismatch_kinds_text(j->also_kinds, also, sizeof also),
    };
    bool ok = in_sizes && out_sizes && params && (in_strides || !c->input.has_strides)
        ? recorder_case(r->rec, &row, err) : err_set(err, "a case row's JSON does not fit its buffer");
    /* Signatures need their row id now: the writer is drained, then the store is ours. */
    if (ok && (j->verdict == VERDICT_FAIL || j->verdict == VERDICT_UNSPECIFIED))
        ok = recorder_drain(r->rec, err) && record_signature(r, sc, index, res, first, err);
    free(first);
    r->rep->cases++;
    r->rep->by_verdict[j->verdict]++;
    r->fl_counts[fl_slot(c->feature_level)][j->verdict]++;
    r->uncommitted++;
    return ok;
}

static bool commit_if_due(runner *r, bool force, dmlc_error *err)
{
    double now = now_s();
    if (!force && r->uncommitted < r->o->commit_cases && now - r->last_commit < COMMIT_INTERVAL_S)
        return true;
    if (!recorder_commit(r->rec, r->rep->run_id, r->rep->cases, r->rep->by_verdict[VERDICT_FAIL],
                         now - r->start, err))
        return false;
    r->uncommitted = 0;
    r->last_commit = now;
    return true;
}

static bool want_more(const runner *r, uint64_t next_index)
{
    if (stop_raised(r->o))
        return false;
    if (r->case_target && next_index >= r->case_target)
        return false;
    if (r->o->time_s > 0 && now_s() - r->start >= r->o->time_s)
        return false;
    return true;
}

/* The next batch: up to --batch of this run's indices (a shard's: every Nth) from
 * *next_index on, below --cases. */
static void plan_slot(const runner *r, slot *s, uint64_t *next_index)
{
    uint64_t step = index_step(r->o);
    s->first = *next_index;
    s->count = 0;
    if (!want_more(r, *next_index))
        return;
    uint64_t n = r->o->batch;
    if (r->case_target && (r->case_target - *next_index + step - 1) / step < n)
        n = (r->case_target - *next_index + step - 1) / step;
    s->count = (uint32_t)n;
    *next_index += n * step;
}


/* Sends a request.  A failed write means the worker died, which the answer that is due
 * next reports (as a crash), so it is not an error here. */
static void request_range(runner *r, uint64_t first, uint32_t count)
{
    dmlc_error ignored;
    if (count)
        worker_send_range(r->w, first, count, &ignored);
}

/* After the worker died at case i of `cur`: restart it and ask again for what it lost. */
static bool resend_after_death(runner *r, const slot *cur, uint32_t i, const slot *next, dmlc_error *err)
{
    if (!worker_restart(r->w, err))
        return err_prefix(err, "restarting the worker after a crash or hang");
    if (i + 1 < cur->count)
        request_range(r, slot_index(r->o, cur, i + 1), cur->count - i - 1);
    request_range(r, next->first, next->count);
    return true;
}

/* Receives the answer to case i of `cur`.  A death inside a backend batch blames no case
 * yet: the worker is restarted, the batch's cases are asked for again, each alone, then the
 * rest, and case i's answer is awaited again (if none dies alone, the last one's answer is
 * the batch's death: worker_send_range_alone).  False as worker_receive, or when the worker
 * cannot be restarted. */
static bool receive_answer(runner *r, const slot *cur, uint32_t i, const slot *next,
                           worker_answer *a, dmlc_error *err)
{
    for (;;) {
        if (!worker_receive(r->w, &cur->cases[i].c, a, err))
            return false;
        uint32_t lost = worker_batch_lost(r->w);
        if (a->died == KIND_NONE || lost <= 1)
            return true;
        worker_answer_free(a);
        if (!worker_restart(r->w, err))
            return err_prefix(err, "restarting the worker after a batch crashed or hung");
        dmlc_error ignored; /* a failed write is a death, which the next answer reports */
        worker_send_range_alone(r->w, slot_index(r->o, cur, i), lost, &ignored);
        if (i + lost < cur->count)
            request_range(r, slot_index(r->o, cur, i + lost), cur->count - i - lost);
        request_range(r, next->first, next->count);
    }
}

/* Receives, judges and records the answers of one batch. */
static bool finish_slot(runner *r, slot *cur, const slot *next, dmlc_error *err)
{
    for (uint32_t i = 0; i < cur->count; i++) {
        slot_case *sc = &cur->cases[i];
        uint64_t index = slot_index(r->o, cur, i);
        worker_answer a;
        if (!receive_answer(r, cur, i, next, &a, err)) {
            r->stopped = worker_interrupted(r->w);
            return r->stopped;
        }
        if (!sc->valid) { /* a dmlcheck bug: the generator made a case it cannot check */
            check_result res = { .j.verdict = VERDICT_ERROR };
            worker_answer_free(&a);
            if (!sc->c.input.present)
                r->rep->by_verdict[VERDICT_ERROR]++; /* nothing to describe: count only */
            else if (!record_case(r, sc, index, &res, 0, sc->error, err))
                return false;
            clear_progress(r);
            char name[GEN_CASE_ID_SIZE];
            case_name(r->o->seed, index, name);
            fprintf(stderr, "dmlcheck: case %s not checked: %s\n  replay: dmlcheck replay %s %s\n",
                    name, sc->error, name, r->replay_args);
            if (a.died != KIND_NONE && !resend_after_death(r, cur, i, next, err))
                return false;
            continue;
        }
        check_result res;
        check_judge(&sc->c, &sc->oracle, &a, &r->check, &res);
        bool ok = record_case(r, sc, index, &res, a.time_us, a.message[0] ? a.message : NULL, err);
        mismatch_kind died = a.died;
        worker_answer_free(&a);
        if (!ok || (died != KIND_NONE && !resend_after_death(r, cur, i, next, err)))
            return false;
    }
    return true;
}

/* At the case target: asks the caller for more cases (o->more_cases reads the committed
 * database) and plans the next slot when it wants some; *more says so.  False on error. */
static bool go_on(runner *r, slot *s, uint64_t *next_index, bool *more, dmlc_error *err)
{
    *more = false;
    if (!r->o->more_cases || !r->case_target || stop_raised(r->o))
        return true;
    if (!commit_if_due(r, true, err) || !recorder_drain(r->rec, err))
        return false;
    clear_progress(r);
    uint64_t target = r->o->more_cases(r->o->more_cases_ctx, r->rep->run_id, r->rep->cases);
    if (target <= r->case_target)
        return true;
    r->case_target = target;
    plan_slot(r, s, next_index);
    request_range(r, s->first, s->count);
    *more = s->count > 0;
    return true;
}

static bool run_loop(runner *r, dmlc_error *err)
{
    slot slots[2] = { { 0 } };
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++)
        ok = (slots[k].cases = calloc(r->o->batch, sizeof(slot_case))) != NULL;
    if (!ok) {
        free(slots[0].cases);
        return err_set(err, "out of memory for batches");
    }
    uint64_t next_index = r->o->shard_index;
    int cur = 0;
    plan_slot(r, &slots[cur], &next_index);
    request_range(r, slots[cur].first, slots[cur].count);
    bool more = true;
    while (ok && !r->stopped && (slots[cur].count
                                 || ((ok = go_on(r, &slots[cur], &next_index, &more, err)) && more))) {
        slot *s = &slots[cur], *n = &slots[!cur];
        if (!prepare_slot(r, s, err)) {
            ok = r->stopped;
            break;
        }
        plan_slot(r, n, &next_index);
        request_range(r, n->first, n->count);
        ok = finish_slot(r, s, n, err);
        for (uint32_t i = 0; i < s->count; i++)
            free_slot_case(&s->cases[i]);
        ok = ok && commit_if_due(r, false, err);
        show_progress(r, false);
        cur = !cur;
    }
    /* On an error the next batch may be prepared or half-received: drop it. */
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < r->o->batch; i++)
            free_slot_case(&slots[k].cases[i]);
        free(slots[k].cases);
    }
    r->rep->interrupted = stop_raised(r->o);
    return ok;
}

/* ---- Shrinking ---------------------------------------------------------------------- */

typedef struct shrink_ctx {
    runner *r;
    verdict verdict;
    mismatch_kind kind;
    double until;      /* the shrinking time limit: later candidates are not run */
    bool broken;       /* the worker could not be restarted */
} shrink_ctx;

/* Runs a candidate through the reference and the worker: same verdict and kind?  With
 * first_json, also the first difference of the answer (check_first_json) when it is. */
static bool fails_same_way(shrink_ctx *x, const dml_case *candidate, char **first_json)
{
    runner *r = x->r;
    if (x->broken || now_s() > x->until)
        return false;
    slot_case sc;
    memset(&sc, 0, sizeof sc);
    dmlc_error err;
    exec_options exec = reference_exec(r->o);
    oracle_limits limits = { .limit_ms = r->o->reference_timeout_ms, .stop = r->o->stop };
    oracle_outcome got = case_copy(&sc.c, candidate)
        ? oracle_prepare(&sc.c, &exec, &limits, &sc.oracle, &err) : ORACLE_FAILED;
    if (got != ORACLE_READY) { /* a stop ends shrinking; a candidate without a reference is no help */
        x->broken = got == ORACLE_STOPPED;
        free_slot_case(&sc);
        return false;
    }
    worker_answer a;
    bool same = false;
    if (worker_send_case(r->w, &sc.c, &err) && worker_receive(r->w, &sc.c, &a, &err)) {
        check_result res;
        check_judge(&sc.c, &sc.oracle, &a, &r->check, &res);
        same = res.j.verdict == x->verdict && res.j.kind == x->kind;
        if (same && first_json)
            *first_json = check_first_json(&sc.c, &res);
        if (a.died != KIND_NONE && !worker_restart(r->w, &err))
            x->broken = true;
        worker_answer_free(&a);
    } else if (worker_interrupted(r->w) || !worker_restart(r->w, &err)) {
        x->broken = true; /* stopped: no more candidates */
    }
    free_slot_case(&sc);
    return same;
}

static bool still_fails(const dml_case *candidate, void *opaque)
{
    return fails_same_way(opaque, candidate, NULL);
}

/* True when an earlier new signature is of the same family: one bug usually spans many
 * levels, layouts, types and distributions, and one minimized case per family says what it
 * is. */
static bool family_shrunk(const runner *r, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (r->sigs[k].is_new && same_family(&r->sigs[k], &r->sigs[i]))
            return true;
    return false;
}

/* New signatures whose family has none shrunk before them: the ones shrinking visits. */
static size_t families_to_shrink(const runner *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->sig_count; i++)
        n += r->sigs[i].is_new && !family_shrunk(r, i) && !r->sigs[i].nondeterministic;
    return n;
}

/* Runs the first case of each new family once more: one that passes now is marked
 * nondeterministic (a race, an uninitialised read, state left by an earlier case: news too)
 * and is not shrunk, since no candidate would fail reliably.  Hangs are not re-run (each
 * try costs the whole time limit), nor must-reject cases. */
static bool recheck_new_families(runner *r, dmlc_error *err)
{
    for (size_t i = 0; i < r->sig_count && !stop_raised(r->o); i++) {
        seen_signature *s = &r->sigs[i];
        if (!s->is_new || family_shrunk(r, i) || s->kind == KIND_hang)
            continue;
        dml_case c;
        gen_info info;
        if (!worker_generate(&r->wcfg, s->index, &c, &info, err))
            return false;
        shrink_ctx x = { .r = r, .verdict = s->verdict, .kind = s->kind, .until = 1e300 };
        bool again = c.must_reject || still_fails(&c, &x) || x.broken;
        case_free(&c);
        if (again)
            continue;
        s->nondeterministic = true;
        if (!store_signature_nondeterministic(r->db, s->id, err))
            return false;
        char name[GEN_CASE_ID_SIZE];
        if (!r->o->quiet)
            fprintf(r->o->out, "nondeterministic: case %s (%s %s %s) passed when run again; its "
                    "family is marked so and not shrunk\n", case_name(r->o->seed, s->index, name),
                    verdict_name(s->verdict), mismatch_kind_name(s->kind), op_table[s->op].name);
    }
    return true;
}

/* Minimizes the first case of each new signature family and stores it as a case file,
 * within the run's shrinking time. */
static bool shrink_new_signatures(runner *r, dmlc_error *err)
{
    double until = now_s() + r->o->shrink_seconds;
    size_t families = r->o->shrink_budget ? families_to_shrink(r) : 0, done = 0;
    if (families && !r->o->quiet) {
        clear_progress(r);
        fprintf(r->o->out, "shrinking %zu new signature famil%s: at most %u backend runs each, "
                "%.0f s in all (--shrink-budget, --shrink-time)\n", families,
                families == 1 ? "y" : "ies", r->o->shrink_budget, r->o->shrink_seconds);
        fflush(r->o->out);
    }
    for (size_t i = 0; i < r->sig_count && r->o->shrink_budget; i++) {
        seen_signature *s = &r->sigs[i];
        if (!s->is_new || stop_raised(r->o) || family_shrunk(r, i) || s->nondeterministic)
            continue;
        if (now_s() > until) {
            if (!r->o->quiet)
                fprintf(r->o->out, "shrinking stopped at its time limit (%.0f s): %zu of %zu "
                        "families not shrunk; --shrink-time raises it\n", r->o->shrink_seconds,
                        families - done, families);
            break;
        }
        done++;
        dml_case c, small;
        gen_info info;
        if (!worker_generate(&r->wcfg, s->index, &c, &info, err))
            return false;
        if (c.must_reject) { /* smaller cases are valid ones: nothing smaller to refuse */
            case_free(&c);
            continue;
        }
        shrink_ctx x = { .r = r, .verdict = s->verdict, .kind = s->kind, .until = until };
        /* Hangs cost the whole time limit per try: give them a small budget. */
        unsigned budget = s->kind == KIND_hang ? 6 : r->o->shrink_budget;
        shrink_stats st;
        case_init(&small);
        bool ok = shrink_case(&c, still_fails, &x, budget, &small, &st);
        case_outputs expected = { 0 };
        char *json = NULL, *first = NULL;
        if (ok && case_outputs_alloc(&expected, &small)) {
            exec_options exec = reference_exec(r->o);
            ref_run(&small, &exec, &expected);
            json = casefile_write(&small, &expected);
            /* Run once more for the record: the drawing marks what the backend answered
             * there, and shrinking keeps no answer.  The shrinking time limit does not
             * apply to this one run; a hang (no answer to draw) is not run again. */
            x.until = 1e300;
            if (s->kind != KIND_hang)
                fails_same_way(&x, &small, &first);
        }
        ok = json && store_signature_shrunk(r->db, s->id, json, first, err);
        char name[GEN_CASE_ID_SIZE];
        if (ok && !r->o->quiet)
            fprintf(r->o->out, "shrunk signature %" PRId64 " (case %s): %" PRIu64
                    " -> %" PRIu64 " input elements in %u tries%s\n", s->id,
                    case_name(r->o->seed, s->index, name),
                    case_tensor_elements(&c.input), case_tensor_elements(&small.input), st.tried,
                    now_s() > until ? " (cut short by the time limit)" : "");
        free(json);
        free(first);
        case_outputs_free(&expected);
        case_free(&small);
        case_free(&c);
        if (!ok)
            return err->msg[0] ? false : err_set(err, "out of memory shrinking a case");
    }
    return true;
}

/* ---- Summary ------------------------------------------------------------------------ */

/* One line per family of this run (families.h), with what its failures need and the
 * command that replays its smallest case. */
static void print_families(runner *r)
{
    family_list fams;
    dmlc_error err;
    FILE *f = r->o->out;
    if (!families_find(store_connection(r->db), r->rep->run_id, r->rep->run_id, &fams, &err)) {
        fprintf(f, "families: not read (%s)\n", err.msg);
        return;
    }
    if (fams.count)
        fprintf(f, "families: %zu (one bug each, as far as the cases tell)\n", fams.count);
    for (size_t i = 0; i < fams.count; i++) {
        const family *fam = &fams.items[i];
        char name[GEN_CASE_ID_SIZE];
        fprintf(f, "  family %zu: %s%s %s %s, %" PRIu64 " case%s in %" PRIu64 " signature%s%s%s\n"
                "    smallest (%" PRIu64 " input elements): dmlcheck replay %s %s\n", i + 1,
                fam->verdict, fam->nondeterministic ? " (nondeterministic)" : "", fam->kind, fam->op, fam->cases, fam->cases == 1 ? "" : "s",
                fam->signatures, fam->signatures == 1 ? "" : "s", fam->needs[0] ? "; needs: " : "",
                fam->needs, fam->elements, case_name(r->o->seed, fam->case_index, name),
                r->replay_args);
        if (fam->shrunk_case) {
            char line[RUNNER_REPLAY_LINE_MAX], number[24];
            snprintf(number, sizeof number, "%zu", i + 1);
            snprintf(line, sizeof line, "dmlcheck export --family %zu --run %" PRId64 " --db", i + 1,
                     r->rep->run_id);
            replay_append_arg(line, sizeof line, r->o->db_path);
            fprintf(f, "    shrunk case (a case file for `dmlcheck exec`): %s > family-%s.json\n",
                    line, number);
        }
    }
    families_free(&fams);
}

static void print_summary(runner *r)
{
    FILE *f = r->o->out;
    runner_report *rep = r->rep;
    clear_progress(r);
    double wall = rep->seconds > 0 ? rep->seconds : 1;
    fprintf(f, "summary: %" PRIu64 " cases in %.2f s (%.0f cases/s; SQLite busy %.1f%% of wall time on "
            "its writer thread, the run waited for it %.1f%%)%s\n", rep->cases, rep->seconds,
            (double)rep->cases / wall, 100 * rep->store_seconds / wall,
            100 * rep->store_wait_seconds / wall, rep->interrupted ? ", interrupted" : "");
    if (rep->cases)
        fprintf(f, "cpu: dmlcheck %.1f us/case, worker %.1f us/case (backend included)\n",
                1e6 * rep->parent_cpu_s / (double)rep->cases, 1e6 * rep->worker_cpu_s / (double)rep->cases);
    for (size_t i = 0; i < FL_TESTED_COUNT; i++) {
        const uint64_t *n = r->fl_counts[i];
        uint64_t total = 0;
        for (int v = 0; v < VERDICT_COUNT; v++)
            total += n[v];
        if (total)
            fprintf(f, "feature-level %s: cases=%" PRIu64 " pass=%" PRIu64 " fail=%" PRIu64
                    " unspecified=%" PRIu64 " skip=%" PRIu64 " error=%" PRIu64 "\n",
                    fl_name(fl_tested[i]), total, n[VERDICT_PASS], n[VERDICT_FAIL],
                    n[VERDICT_UNSPECIFIED], n[VERDICT_SKIP], n[VERDICT_ERROR]);
    }
    fprintf(f, "signatures: %zu in this run, %u new (each in the signatures table; `dmlcheck "
               "report` lists them)\n", r->sig_count, rep->new_signatures);
    print_families(r);
    char db[4 * 4096 + 1]; /* a PATH_MAX path, each byte possibly \xHH */
    fprintf(f, "database: %s (run %" PRId64 ")\n", err_printable(r->o->db_path, false, db, sizeof db),
            rep->run_id);
}

/* ---- Entry -------------------------------------------------------------------------- */

/* CPU seconds of this process and of the reaped workers: a load-independent cost figure
 * (the machine may be shared, which distorts cases/s). */
static void cpu_times(runner_report *rep)
{
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    rep->parent_cpu_s = (double)self.ru_utime.tv_sec + self.ru_utime.tv_usec * 1e-6
        + (double)self.ru_stime.tv_sec + self.ru_stime.tv_usec * 1e-6;
    rep->worker_cpu_s = (double)children.ru_utime.tv_sec + children.ru_utime.tv_usec * 1e-6
        + (double)children.ru_stime.tv_sec + children.ru_stime.tv_usec * 1e-6;
}

static bool begin_run(runner *r, dmlc_error *err)
{
    char started[32], host[512], gen_text[GEN_OPTIONS_TEXT_SIZE];
    char *options = runner_options_json(r->o);
    store_run_start start = {
        .started_at = utc_now(started, sizeof started), .seed = r->o->seed, .options_json = options,
        .command_line = r->o->command_line,
        .git_revision = dmlcheck_git_revision[0] ? dmlcheck_git_revision : NULL,
        .host = host_text(host, sizeof host), .backend = r->backend_text,
        .nan_policy = nan_policy_name(r->o->nan), .strict = r->o->strict,
        .cases_requested = r->o->cases ? (int64_t)r->o->cases : -1,
        .time_requested_s = r->o->time_s > 0 ? r->o->time_s : -1,
        .gen_version = GEN_VERSION, .gen_options = gen_options_text(&r->o->gen, gen_text, sizeof gen_text),
    };
    bool ok = options && store_run_begin(r->db, &start, &r->rep->run_id, err)
        && store_run_device(r->db, r->rep->run_id, r->backend_text, &r->info, &r->device_id, err);
    free(options);
    return ok ? true : err->msg[0] ? false : err_set(err, "out of memory");
}

static int runner_dry_run(const runner_options *o, dmlc_error *err);

int runner_run(const runner_options *o, runner_report *report, dmlc_error *err)
{
    runner r = { .o = o, .rep = report };
    memset(report, 0, sizeof *report);
    err->msg[0] = 0;
    if (o->dry_run)
        return runner_dry_run(o, err);
    if (!o->backend || !o->db_path || !o->batch)
        return err_set(err, "runner: no backend, database or batch size"), 2;
    runner_backend_text(o, r.backend_text, sizeof r.backend_text);
    if (strlen(r.backend_text) + 1 >= sizeof r.backend_text) /* stored cut, it would name another */
        return err_set(err, "--backend: the text is longer than %zu bytes; shorten the path or "
                       "the arguments", sizeof r.backend_text - 2), 2;
    r.wcfg = (worker_config){ .backend = o->backend, .backend_args = o->backend_args,
                              .device = o->device, .seed = o->seed, .index_step = index_step(o),
                              .gen = o->gen, .exec = reference_exec(o),
                              .open_timeout_ms = o->open_timeout_ms,
                              .case_timeout_ms = o->case_timeout_ms, .stop = o->stop };
    if (!runner_replay_args(o, r.replay_args, sizeof r.replay_args))
        return err_set(err, "the options make a replay command longer than %d bytes: shorten "
                       "--backend or --device", RUNNER_REPLAY_ARGS_MAX), 2;
    r.db = store_open(o->db_path, err);
    if (!r.db)
        return 2;
    struct sigaction ignore = { .sa_handler = SIG_IGN }, old_pipe;
    sigaction(SIGPIPE, &ignore, &old_pipe); /* a dead worker must not kill us on write */
    runner_report at_start;
    cpu_times(&at_start); /* earlier runs in this process are not ours */
    double cpu_start[2] = { at_start.parent_cpu_s, at_start.worker_cpu_s };
    r.w = worker_start(&r.wcfg, &r.info, err);
    int code = 2;
    if (r.w && begin_run(&r, err)) {
        r.check = (check_options){ .exec = reference_exec(o),
                                   .rules = { .strict = o->strict,
                                              .device_flushes = r.info.flushes_denormals } };
        r.start = r.last_commit = now_s();
        r.case_target = o->cases;
        bool ok = store_batch_begin(r.db, err) && (r.rec = recorder_start(r.db, err)) != NULL
            && run_loop(&r, err);
        /* Even after an error, keep what was checked: commit the open batch. */
        dmlc_error commit_err;
        bool committed = r.rec && commit_if_due(&r, true, &commit_err)
            && recorder_drain(r.rec, &commit_err) && store_batch_commit(r.db, &commit_err);
        report->seconds = now_s() - r.start;
        report->store_wait_seconds = recorder_wait_seconds(r.rec);
        recorder_stop(r.rec); /* from here on the store is used on this thread only */
        r.rec = NULL;
        if (ok && !committed) {
            *err = commit_err;
            ok = false;
        }
        ok = ok && (report->interrupted
                    || (recheck_new_families(&r, err) && shrink_new_signatures(&r, err)));
        report->store_seconds = store_seconds(r.db);
        worker_stop(r.w); /* reaped now, so its CPU time is counted below */
        r.w = NULL;
        runner_report before = *report;
        before.parent_cpu_s = cpu_start[0];
        before.worker_cpu_s = cpu_start[1];
        cpu_times(report);
        report->parent_cpu_s -= before.parent_cpu_s;
        report->worker_cpu_s -= before.worker_cpu_s;
        char finished[32];
        dmlc_error ignored;
        store_run_finish(r.db, report->run_id, !ok ? "error" : report->interrupted ? "interrupted"
                         : "finished", utc_now(finished, sizeof finished), &ignored);
        if (!o->quiet && ok)
            print_summary(&r);
        /* A stop during shrinking keeps a finished run finished, but still ends the run. */
        code = !ok ? 2 : stop_raised(o) ? RUNNER_EXIT_INTERRUPTED
                                        : report->by_verdict[VERDICT_FAIL] ? 1 : 0;
    } else if (stop_raised(o)) { /* stopped while the backend opened: nothing was recorded */
        code = RUNNER_EXIT_INTERRUPTED;
    }
    clear_progress(&r);
    worker_stop(r.w);
    store_close(r.db);
    sigaction(SIGPIPE, &old_pipe, NULL);
    free(r.sigs);
    return code;
}

/* ---- Dry run: the generator's coverage ---------------------------------------------- */

/* Counters of one generator dimension, printed as "name: value=count ...". */
typedef struct tally {
    const char *name;
    const char *values[32];
    uint64_t counts[32];
    unsigned n;
} tally;

static void tally_add(tally *t, const char *value)
{
    for (unsigned i = 0; i < t->n; i++)
        if (!strcmp(t->values[i], value)) {
            t->counts[i]++;
            return;
        }
    if (t->n < 32) {
        t->values[t->n] = value;
        t->counts[t->n++] = 1;
    }
}

static void tally_print(FILE *f, const tally *t)
{
    fprintf(f, "%-14s", t->name);
    for (unsigned i = 0; i < t->n; i++)
        fprintf(f, " %s=%" PRIu64, t->values[i], t->counts[i]);
    fputc('\n', f);
}

enum { T_OP_FL, T_INPUT, T_OUTPUT, T_INDICES, T_RANK, T_LAYOUT, T_DIST, T_CLASSES, T_FIXED,
       T_COUNT = T_FIXED + 16 /* room for the modules' parameter dimensions */ };

/* The module's coverage pairs of a case (the same dimensions the report shows), each into
 * the tally of its dimension, added on first sight. */
static void tally_parameters(tally *t, unsigned *used, const dml_case *c)
{
    const char *dims[OP_COVERAGE_MAX], *values[OP_COVERAGE_MAX];
    unsigned n = case_module(c)->coverage(c, dims, values, OP_COVERAGE_MAX);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = T_FIXED;
        while (k < *used && strcmp(t[k].name, dims[i]))
            k++;
        if (k == *used && *used < T_COUNT)
            t[(*used)++].name = dims[i];
        if (k < T_COUNT)
            tally_add(&t[k], values[i]);
    }
}

static int runner_dry_run(const runner_options *o, dmlc_error *err)
{
    static const char *const names[T_FIXED] = { "op@level", "input_type", "output_type",
        "indices_type", "rank", "layout", "distribution", "classes" };
    static const char *const ranks[] = { "0", "1", "2", "3", "4", "5", "6", "7", "8" };
    char labels[OP_COUNT][8][32];
    tally t[T_COUNT];
    memset(t, 0, sizeof t);
    for (int i = 0; i < T_FIXED; i++)
        t[i].name = names[i];
    unsigned used = T_FIXED;
    worker_config cfg = { .seed = o->seed, .gen = o->gen };
    exec_options exec = reference_exec(o);
    uint64_t n = o->cases ? o->cases : 10000, invalid = 0, drawn = 0;
    for (uint64_t i = o->shard_index; i < n && !(o->stop && *o->stop); i += index_step(o), drawn++) {
        dml_case c;
        gen_info info;
        if (!worker_generate(&cfg, i, &c, &info, err)) {
            char name[GEN_CASE_ID_SIZE];
            fprintf(stderr, "dmlcheck: case %s: %s\n", case_name(o->seed, i, name), err->msg);
            invalid++;
            case_free(&c);
            continue;
        }
        char *label = labels[c.op][fl_slot(c.feature_level)];
        snprintf(label, 32, "%s@%s", op_table[c.op].stem, fl_name(c.feature_level));
        tally_add(&t[T_OP_FL], label);
        tally_add(&t[T_INPUT], dtype_name(c.input.type));
        tally_add(&t[T_OUTPUT], dtype_name(c.output.type));
        tally_add(&t[T_INDICES], c.indices.present ? dtype_name(c.indices.type) : "none");
        tally_add(&t[T_RANK], ranks[c.input.rank <= 8 ? c.input.rank : 0]);
        tally_add(&t[T_LAYOUT], gen_layout_name(info.layout));
        tally_add(&t[T_DIST], gen_distribution_name(info.dist));
        tally_parameters(t, &used, &c);
        case_outputs out;
        if (!c.must_reject && case_outputs_alloc(&out, &c)) { /* refused cases have no classes */
            unsigned classes = ref_classify(&c, &exec, &out, NULL);
            tally_add(&t[T_CLASSES], classes & CASE_CLASS_NAN ? "nan" : "no_nan");
            tally_add(&t[T_CLASSES], classes & CASE_CLASS_DENORMAL ? "denormal" : "no_denormal");
            tally_add(&t[T_CLASSES], classes & CASE_CLASS_PADDING_WINDOW ? "padding_window"
                                                                          : "no_padding_window");
            case_outputs_free(&out);
        }
        case_free(&c);
    }
    fprintf(o->out, "dry run: %" PRIu64 " cases of seed %" PRIu64 ", %" PRIu64 " invalid\n", drawn,
            o->seed, invalid);
    for (unsigned i = 0; i < used; i++)
        tally_print(o->out, &t[i]);
    err->msg[0] = 0;
    return invalid ? 1 : 0;
}
