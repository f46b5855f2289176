/*
 * report_load.c: fills a report_model from a dmlcheck results database (results/schema.sql)
 * and reads expectation files.  The database is opened with SQLITE_OPEN_READONLY and only
 * read: a report never re-runs a case and never changes the store.  Every statement lives
 * in one table (load_sql), is prepared on first use and takes bound parameters only; the
 * selection of runs is always the bound range ?1..?2 of run ids.
 *
 * Before any other statement, the database is checked to be ours: a schema version we know
 * (PRAGMA user_version) and the tables the schema defines.  A missing file, an empty file,
 * someone else's database and a newer dmlcheck's database each get their own message.
 */
#include "report_model.h"

#include "op_module.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dtype.h"
#include "gen.h"
#include "replay.h"
#include "store.h"

/* The newest schema this binary understands: the one its store writes. */
#define REPORT_SCHEMA_VERSION STORE_SCHEMA_VERSION

typedef enum load_query {
    Q_USER_VERSION,
    Q_SCHEMA_OBJECTS,
    Q_RUN_RANGE,
    Q_RUN_EXISTS,
    Q_RUNS,
    Q_CELLS,
    Q_SIGNATURES,
    Q_COV_RANK,
    Q_COV_ELEMENTS,
    Q_COV_LAYOUT,
    Q_COV_DISTRIBUTION,
    Q_COV_CLASSES,
    Q_COV_PARAMS,
    Q_CELL_SKIPS,
    Q_NAN_PRINTS,
    Q_COUNT
} load_query;

/* Every statement the loader runs.  ?1..?2 is the range of selected run ids. */
static const char *const load_sql[Q_COUNT] = {
    [Q_USER_VERSION] = "PRAGMA user_version",
    [Q_SCHEMA_OBJECTS] =
        "SELECT count(*) FROM sqlite_master WHERE (type = 'table' AND name IN"
        " ('runs', 'devices', 'cases', 'results', 'signatures'))"
        " OR (type = 'view' AND name = 'verdict_counts')",
    [Q_RUN_RANGE] = "SELECT count(*), min(id), max(id) FROM runs",
    [Q_RUN_EXISTS] = "SELECT count(*) FROM runs WHERE id = ?1",
    [Q_RUNS] =
        "SELECT r.id, r.dmlcheck_version, r.git_revision, r.host, r.options, r.command_line,"
        " r.backend, r.status, r.nan_policy, r.seed, r.started_at, r.finished_at, r.elapsed_s,"
        " r.cases_done, r.strict, d.platform, d.device, d.driver, d.c_version, d.fp_config,"
        /* The shard (run --shard K/N): "1/4", or a merged set "0, 1, 3 of 4 (merged; 1
         * missing)"; '' for a whole run. */
        " CASE WHEN NOT json_valid(r.options) OR json_type(r.options, '$.shard') IS NOT 'object'"
        "  THEN '' WHEN json_array_length(r.options, '$.shard.indices') = 1"
        "  THEN json_extract(r.options, '$.shard.indices[0]') || '/' || json_extract(r.options, '$.shard.count')"
        "  ELSE (SELECT group_concat(value, ', ') FROM json_each(r.options, '$.shard.indices'))"
        "  || ' of ' || json_extract(r.options, '$.shard.count') || ' (merged'"
        "  || CASE WHEN json_array_length(r.options, '$.shard.indices') < json_extract(r.options, '$.shard.count')"
        "  THEN '; ' || (json_extract(r.options, '$.shard.count')"
        "  - json_array_length(r.options, '$.shard.indices')) || ' missing' ELSE '' END || ')' END"
        " FROM runs r LEFT JOIN devices d ON d.id = r.device_id"
        " WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id",
    /* Why cells' cases were skipped, the most common reason first. */
    [Q_CELL_SKIPS] =
        "SELECT c.feature_level, c.op, c.input_type, c.output_type, c.indices_type, x.detail,"
        " count(*) FROM cases c JOIN results x ON x.case_id = c.id"
        " WHERE c.run_id BETWEEN ?1 AND ?2 AND x.verdict = 'skip' AND x.detail IS NOT NULL"
        " GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 7 DESC",
    [Q_CELLS] =
        "SELECT feature_level, op, input_type, output_type, indices_type, sum(cases),"
        " sum(passed), sum(failed), sum(unspecified), sum(skipped), sum(errors)"
        " FROM verdict_counts WHERE run_id BETWEEN ?1 AND ?2"
        " GROUP BY feature_level, op, input_type, output_type, indices_type",
    /* Signatures with their case count in the selected runs.  A result belongs to a
     * signature when every key field of the signature (schema: signatures_key) matches. */
    [Q_SIGNATURES] =
        "SELECT s.feature_level, s.op, s.input_type, s.output_type, s.indices_type, s.layout,"
        " s.distribution, s.kind, s.verdict, s.first_seen_at, s.last_seen_at,"
        " s.representative, s.rep_elements, s.backend, s.replay, s.shrunk_case IS NOT NULL,"
        " json_extract(s.first_mismatch, '$.tensor'), json_extract(s.first_mismatch, '$.element'),"
        " json_extract(s.first_mismatch, '$.expected'), json_extract(s.first_mismatch, '$.got'),"
        " count(*) AS n, group_concat(DISTINCT nullif(c.classes, '')), min(x.detail),"
        " json_extract(s.first_mismatch, '$.explanation')"
        " FROM signatures s"
        " JOIN runs r ON r.backend = s.backend AND ifnull(r.device_id, 0) = ifnull(s.device_id, 0)"
        " JOIN cases c ON c.run_id = r.id AND c.op = s.op AND c.feature_level = s.feature_level"
        "  AND c.input_type = s.input_type AND c.output_type = s.output_type"
        "  AND ifnull(c.indices_type, '') = ifnull(s.indices_type, '')"
        "  AND c.layout = s.layout AND c.distribution = s.distribution"
        " JOIN results x ON x.case_id = c.id AND x.verdict = s.verdict AND x.kind = s.kind"
        " WHERE r.id BETWEEN ?1 AND ?2"
        " GROUP BY s.id ORDER BY s.verdict, n DESC, s.id",
#define COVERAGE_FROM                                                                      \
    " count(*), sum(x.verdict = 'fail') FROM cases c JOIN results x ON x.case_id = c.id" \
    " WHERE c.run_id BETWEEN ?1 AND ?2"
    [Q_COV_RANK] = "SELECT c.rank," COVERAGE_FROM " GROUP BY 1 ORDER BY 1",
    [Q_COV_ELEMENTS] =
        "SELECT CASE WHEN c.elements <= 1 THEN '1' WHEN c.elements <= 16 THEN '2-16'"
        " WHEN c.elements <= 256 THEN '17-256' WHEN c.elements <= 4096 THEN '257-4096'"
        " WHEN c.elements <= 65536 THEN '4097-65536' WHEN c.elements <= 1048576"
        " THEN '65537-1048576' ELSE '> 1048576' END," COVERAGE_FROM
        " GROUP BY 1 ORDER BY min(c.elements)",
    [Q_COV_LAYOUT] = "SELECT c.layout," COVERAGE_FROM " GROUP BY 1",
    [Q_COV_DISTRIBUTION] = "SELECT c.distribution," COVERAGE_FROM " GROUP BY 1",
    [Q_COV_CLASSES] = "SELECT c.classes," COVERAGE_FROM " GROUP BY 1",
    /* Parameter coverage: each operator's module reads its own rows (op_case_from_params). */
    [Q_COV_PARAMS] =
        "SELECT c.op, c.params, c.input_sizes, c.output_sizes," COVERAGE_FROM " GROUP BY 1, 2, 3, 4",
#undef COVERAGE_FROM
    /* NaN-policy fingerprints (schema version 4): per backend and device, operator and float
     * input type, the cases with a fingerprint and how many each policy explains (one column
     * per bit of nan_policies.h). */
    [Q_NAN_PRINTS] =
        "SELECT r.backend || ifnull(' on ' || nullif(d.device, ''), ''), c.op, c.input_type,"
        " count(x.nan_policies), sum(x.nan_policies & 1 != 0), sum(x.nan_policies & 2 != 0),"
        " sum(x.nan_policies & 4 != 0), sum(x.nan_policies & 8 != 0), sum(x.nan_policies & 16 != 0)"
        " FROM cases c JOIN results x ON x.case_id = c.id JOIN runs r ON r.id = c.run_id"
        " LEFT JOIN devices d ON d.id = r.device_id"
        " WHERE c.run_id BETWEEN ?1 AND ?2 AND c.input_type IN ('FLOAT32', 'FLOAT16')"
        "  AND x.verdict <> 'skip'"
        " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
};
_Static_assert(NAN_POLICY_COUNT == 5, "Q_NAN_PRINTS sums one column per NaN policy");

typedef struct report_db {
    sqlite3 *db;
    int version; /* the file's schema version */
    sqlite3_stmt *stmt[Q_COUNT];
    const char *path;
} report_db;

static void db_close(report_db *d)
{
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(d->stmt[i]);
    sqlite3_close(d->db);
    memset(d, 0, sizeof *d);
}

/* The statement for q, prepared on first use and reset with ?1..?2 bound to the range. */
static sqlite3_stmt *query(report_db *d, load_query q, int64_t lo, int64_t hi, dmlc_error *err)
{
    if (!d->stmt[q] && sqlite3_prepare_v2(d->db, load_sql[q], -1, &d->stmt[q], NULL) != SQLITE_OK) {
        err_set(err, "%s: %s", d->path, sqlite3_errmsg(d->db));
        return NULL;
    }
    sqlite3_stmt *s = d->stmt[q];
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    int params = sqlite3_bind_parameter_count(s);
    if (params >= 1)
        sqlite3_bind_int64(s, 1, lo);
    if (params >= 2)
        sqlite3_bind_int64(s, 2, hi);
    return s;
}

/* Steps s; true with a row, false at the end (err set when it was an error). */
static bool next_row(report_db *d, sqlite3_stmt *s, bool *failed, dmlc_error *err)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE) {
        *failed = true;
        err_set(err, "%s: %s", d->path, sqlite3_errmsg(d->db));
    }
    return false;
}

static const char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : "";
}

static uint64_t col_u64(sqlite3_stmt *s, int i)
{
    sqlite3_int64 v = sqlite3_column_int64(s, i);
    return v > 0 ? (uint64_t)v : 0;
}

/* ---- opening and checking ----------------------------------------------------------- */

/* "file:PATH?immutable=1" with the URI's special characters of PATH escaped; NULL when out
 * of memory. */
static char *immutable_uri(const char *path)
{
    char *uri = malloc(3 * strlen(path) + 32), *o = uri;
    if (!uri)
        return NULL;
    o += sprintf(o, "file:");
    for (const char *p = path; *p; p++)
        o += strchr("%?#", *p) ? sprintf(o, "%%%02X", (unsigned char)*p) : sprintf(o, "%c", *p);
    strcpy(o, "?immutable=1");
    return uri;
}

/* A cleanly closed WAL database in a folder we cannot write (a read-only mount, another user's
 * files) cannot be opened read-only the normal way: SQLite needs to create its -shm file.
 * With no -wal file there is nothing uncommitted, and nobody who could write is writing
 * through WAL, so reading the file as immutable sees exactly its committed content. */
static bool reopen_immutable(report_db *d)
{
    if ((sqlite3_extended_errcode(d->db) & 0xff) != SQLITE_READONLY
        && (sqlite3_extended_errcode(d->db) & 0xff) != SQLITE_CANTOPEN)
        return false;
    char wal[4096];
    struct stat st;
    if (snprintf(wal, sizeof wal, "%s-wal", d->path) >= (int)sizeof wal || stat(wal, &st) == 0)
        return false;
    char *uri = immutable_uri(d->path);
    if (!uri)
        return false;
    const char *path = d->path;
    db_close(d);
    d->path = path;
    bool ok = sqlite3_open_v2(uri, &d->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK;
    free(uri);
    return ok;
}

static bool db_open(report_db *d, const char *path, dmlc_error *err)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    struct stat st;
    if (stat(path, &st) != 0)
        return err_set(err, "%s: %s (run `dmlcheck run --db %s` first)", path, strerror(errno),
                       path);
    if (st.st_size == 0)
        return err_set(err, "%s: empty file, not a dmlcheck results database", path);
    if (sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        err_set(err, "%s: cannot open: %s", path, d->db ? sqlite3_errmsg(d->db) : "out of memory");
        db_close(d);
        return false;
    }
    sqlite3_busy_timeout(d->db, 5000); /* a run may be committing a batch right now */
    return true;
}

/* Refuses databases that are not dmlcheck's or are newer than this binary. */
static bool db_check(report_db *d, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_USER_VERSION, 0, 0, err);
    bool have_row = s && next_row(d, s, &failed, err);
    if (!have_row && reopen_immutable(d)) {
        s = query(d, Q_USER_VERSION, 0, 0, err);
        have_row = s && next_row(d, s, &failed, err);
    }
    if (!have_row)
        return err_set(err, "%s: not a dmlcheck results database (%s)", d->path,
                       sqlite3_errmsg(d->db));
    int version = d->version = sqlite3_column_int(s, 0);
    if (version > REPORT_SCHEMA_VERSION)
        return err_set(err, "%s: written by a newer dmlcheck (schema version %d; this dmlcheck "
                       "reads up to %d): use that dmlcheck's `report`", d->path, version,
                       REPORT_SCHEMA_VERSION);
    s = query(d, Q_SCHEMA_OBJECTS, 0, 0, err);
    if (!s || !next_row(d, s, &failed, err))
        return false;
    if (version < 1 || sqlite3_column_int(s, 0) != 6)
        return err_set(err, "%s: not a dmlcheck results database (schema version %d, dmlcheck's "
                       "tables missing)", d->path, version);
    return true;
}

/* Resolves --run ID / --all / the default (latest run) into a range of run ids. */
static bool db_select(report_db *d, int64_t run_id, bool all_runs, int64_t *lo, int64_t *hi,
                      char **selection, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_RUN_RANGE, 0, 0, err);
    if (!s || !next_row(d, s, &failed, err))
        return false;
    int64_t runs = sqlite3_column_int64(s, 0), first = sqlite3_column_int64(s, 1),
            last = sqlite3_column_int64(s, 2);
    if (runs == 0)
        return err_set(err, "%s: the database holds no run yet", d->path);
    char text[96];
    if (all_runs) {
        *lo = first;
        *hi = last;
        snprintf(text, sizeof text, "all runs (%" PRId64 " runs, ids %" PRId64 "-%" PRId64 ")",
                 runs, first, last);
    } else {
        *lo = *hi = run_id ? run_id : last;
        s = query(d, Q_RUN_EXISTS, *lo, 0, err);
        if (!s || !next_row(d, s, &failed, err))
            return false;
        if (sqlite3_column_int64(s, 0) == 0)
            return err_set(err, "%s: no run %" PRId64 " (runs are %" PRId64 "-%" PRId64 ")",
                           d->path, run_id, first, last);
        snprintf(text, sizeof text, "run %" PRId64 "%s", *lo, run_id ? "" : " (the latest)");
    }
    *selection = report_strdup(text);
    return *selection ? true : err_set(err, "out of memory");
}

/* ---- rows into the model ------------------------------------------------------------ */

static bool parse_key(const char *fl, const char *op, const char *in, const char *out,
                      const char *idx, report_cell_key *k, dmlc_error *err)
{
    k->op = op_from_name(op);
    k->input = dtype_from_name(in);
    k->output = dtype_from_name(out);
    k->indices = idx[0] ? dtype_from_name(idx) : DML_TENSOR_DATA_TYPE_UNKNOWN;
    if (!fl_from_name(fl, &k->fl) || k->op == OP_COUNT || k->input == DML_TENSOR_DATA_TYPE_UNKNOWN
        || k->output == DML_TENSOR_DATA_TYPE_UNKNOWN
        || (idx[0] && k->indices == DML_TENSOR_DATA_TYPE_UNKNOWN))
        return err_set(err, "unknown level/operator/type in the database: %s %s %s %s %s", fl,
                       op, in, out, idx);
    return true;
}

/* The cell a row names in its first five columns (level, op, input, output, indices types);
 * NULL with err set. */
static report_cell *cell_of_row(sqlite3_stmt *s, report_model *m, dmlc_error *err)
{
    report_cell_key k;
    if (!parse_key(col_text(s, 0), col_text(s, 1), col_text(s, 2), col_text(s, 3), col_text(s, 4),
                   &k, err))
        return NULL;
    report_cell *c = report_model_cell(m, &k);
    if (!c)
        err_set(err, "out of memory");
    return c;
}

/* Each cell's most common skip reason (the query orders by count). */
static bool load_skip_reasons(report_db *d, report_model *m, int64_t lo, int64_t hi, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_CELL_SKIPS, lo, hi, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        report_cell *c = cell_of_row(s, m, err);
        if (!c)
            return false;
        if (!c->skip_reason && !(c->skip_reason = report_strdup(col_text(s, 5))))
            return err_set(err, "out of memory");
    }
    return !failed;
}

static bool load_cells(report_db *d, report_model *m, int64_t lo, int64_t hi, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_CELLS, lo, hi, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        report_cell *c = cell_of_row(s, m, err);
        if (!c)
            return false;
        c->n.run += col_u64(s, 5);
        c->n.passed += col_u64(s, 6);
        c->n.failed += col_u64(s, 7);
        c->n.differs += col_u64(s, 8);
        c->n.skipped += col_u64(s, 9);
        c->n.errors += col_u64(s, 10);
    }
    return !failed && load_skip_reasons(d, m, lo, hi, err);
}

/* The NaN-policy fingerprints; a database older than schema version 4 recorded none. */
static bool load_nan_prints(report_db *d, report_model *m, int64_t lo, int64_t hi, dmlc_error *err)
{
    if (d->version < 4)
        return true;
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_NAN_PRINTS, lo, hi, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        report_nan_fingerprint *f = report_model_add_nan_print(m);
        if (!f || !(f->subject = report_strdup(col_text(s, 0))))
            return err_set(err, "out of memory");
        f->op = op_from_name(col_text(s, 1));
        f->input = dtype_from_name(col_text(s, 2));
        if (f->op == OP_COUNT)
            return err_set(err, "unknown operator in the database: %s", col_text(s, 1));
        f->cases = col_u64(s, 3);
        for (unsigned p = 0; p < NAN_POLICY_COUNT; p++)
            f->explained[p] = col_u64(s, 4 + (int)p);
    }
    return !failed;
}

/* "--max-elements 4096" from "dmlcheck replay g2:7:12 --backend opencl --max-elements 4096":
 * the replay's arguments after the case id without --backend/--device, which export lacks. */
static char *generator_args(const char *replay)
{
    char **words;
    size_t count;
    if (!replay_split_args(replay, &words, &count))
        return report_strdup(""); /* not a line the runner wrote: no options to carry */
    /* Re-quoting can lengthen a word at most fourfold (each ' becomes '\''). */
    size_t size = 4 * strlen(replay) + 16;
    char *out = calloc(1, size);
    size_t i = 0;
    while (i < count && !strchr(words[i], ':')) /* "dmlcheck replay" up to the case id */
        i++;
    for (i++; out && i < count; i++) {
        if (!strcmp(words[i], "--backend") || !strcmp(words[i], "--device")) {
            i++;
            continue;
        }
        if (!strncmp(words[i], "--backend=", 10) || !strncmp(words[i], "--device=", 9))
            continue;
        replay_append_arg(out, size, words[i]);
    }
    free(words);
    if (out && out[0] == ' ')
        memmove(out, out + 1, strlen(out));
    return out;
}

static bool fill_signature(sqlite3_stmt *s, report_signature *g, dmlc_error *err)
{
    report_cell_key k;
    if (!parse_key(col_text(s, 0), col_text(s, 1), col_text(s, 2), col_text(s, 3),
                   col_text(s, 4), &k, err))
        return false;
    g->fl = k.fl;
    g->op = k.op;
    g->input = k.input;
    g->output = k.output;
    g->indices = k.indices;
    g->layout = report_strdup(col_text(s, 5));
    g->distribution = report_strdup(col_text(s, 6));
    g->kind = report_strdup(col_text(s, 7));
    g->unspecified = !strcmp(col_text(s, 8), "unspecified");
    g->first_seen = report_strdup(col_text(s, 9));
    g->last_seen = report_strdup(col_text(s, 10));
    gen_case_id rep;
    if (!gen_parse_case_id(col_text(s, 11), &rep))
        return err_set(err, "signature representative '%s' is not a case id gN:SEED:INDEX",
                       col_text(s, 11));
    /* Only schema-version-1 stores wrote bare ids, and their runs drew with generator 1. */
    g->gen_version = rep.version ? rep.version : 1;
    g->seed = rep.seed;
    g->index = rep.index;
    g->rep_elements = col_u64(s, 12);
    g->backend = report_strdup(col_text(s, 13));
    g->replay = report_strdup(col_text(s, 14));
    g->gen_args = generator_args(col_text(s, 14));
    g->has_shrunk_case = sqlite3_column_int(s, 15) != 0;
    g->tensor = report_strdup(col_text(s, 16));
    g->element = col_u64(s, 17);
    g->element_type = !strcmp(g->tensor, "indices") ? g->indices : g->output;
    g->expected_bits = strtoull(col_text(s, 18), NULL, 16);
    g->got_bits = strtoull(col_text(s, 19), NULL, 16);
    g->count = col_u64(s, 20);
    g->classes = report_strdup(col_text(s, 21));
    g->detail = report_strdup(col_text(s, 22));
    g->explanation = report_strdup(col_text(s, 23));
    if (!g->layout || !g->distribution || !g->kind || !g->first_seen || !g->last_seen
        || !g->backend || !g->replay || !g->gen_args || !g->tensor || !g->classes || !g->detail
        || !g->explanation)
        return err_set(err, "out of memory");
    return true;
}

static bool load_signatures(report_db *d, report_model *m, int64_t lo, int64_t hi,
                            dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_SIGNATURES, lo, hi, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        report_signature *g = report_model_add_signature(m);
        if (!g)
            return err_set(err, "out of memory");
        if (!fill_signature(s, g, err))
            return false;
        report_cell_key k = { g->fl, g->op, g->input, g->output, g->indices };
        if (!g->unspecified
            && !report_model_add_cell_failure(m, &k, m->signature_count - 1, g->count))
            return err_set(err, "out of memory");
    }
    return !failed;
}

static bool load_runs(report_db *d, report_model *m, int64_t lo, int64_t hi, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_RUNS, lo, hi, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        report_run *r = report_model_add_run(m);
        if (!r)
            return err_set(err, "out of memory");
        r->id = sqlite3_column_int64(s, 0);
        char **text[] = { &r->version, &r->git_revision, &r->host, &r->options,
                          &r->command_line, &r->backend, &r->status, &r->nan_policy };
        for (int i = 0; i < 8; i++)
            *text[i] = report_strdup(col_text(s, 1 + i));
        r->seed = strtoull(col_text(s, 9), NULL, 10);
        r->started = report_strdup(col_text(s, 10));
        r->finished = report_strdup(col_text(s, 11));
        r->seconds = sqlite3_column_double(s, 12);
        r->cases = col_u64(s, 13);
        r->strict = sqlite3_column_int(s, 14) != 0;
        char **device[] = { &r->platform, &r->device, &r->driver, &r->c_version, &r->fp_config };
        for (int i = 0; i < 5; i++)
            *device[i] = report_strdup(col_text(s, 15 + i));
        r->shard = report_strdup(col_text(s, 20));
        m->total_seconds += r->seconds;
        if (!r->version || !r->git_revision || !r->host || !r->options || !r->command_line
            || !r->backend || !r->status || !r->nan_policy || !r->started || !r->finished
            || !r->platform || !r->device || !r->driver || !r->c_version || !r->fp_config
            || !r->shard)
            return err_set(err, "out of memory");
    }
    return !failed;
}

/* ---- coverage ----------------------------------------------------------------------- */

/* Coverage rows gathered before they go into the model in display order. */
typedef struct tally {
    report_coverage *rows;
    size_t count, cap;
} tally;

static report_coverage *tally_row(tally *t, const char *dimension, const char *value)
{
    for (size_t i = 0; i < t->count; i++)
        if (!strcmp(t->rows[i].dimension, dimension) && !strcmp(t->rows[i].value, value))
            return &t->rows[i];
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        report_coverage *p = realloc(t->rows, cap * sizeof *p);
        if (!p)
            return NULL;
        t->rows = p;
        t->cap = cap;
    }
    report_coverage *r = &t->rows[t->count];
    *r = (report_coverage){ report_strdup(dimension), report_strdup(value), 0, 0 };
    if (!r->dimension || !r->value) {
        free(r->dimension);
        free(r->value);
        return NULL;
    }
    t->count++;
    return r;
}

static bool tally_add(tally *t, const char *dimension, const char *value, uint64_t cases,
                      uint64_t failed)
{
    report_coverage *r = tally_row(t, dimension, value);
    if (!r)
        return false;
    r->cases += cases;
    r->failed += failed;
    return true;
}

static void tally_free(tally *t)
{
    for (size_t i = 0; i < t->count; i++) {
        free(t->rows[i].dimension);
        free(t->rows[i].value);
    }
    free(t->rows);
}

/* Seeds the values a reader should see even with zero cases, in their display order. */
static bool tally_seed_known(tally *t)
{
    bool ok = true;
    char num[8];
    for (int r = 1; r <= DML_MAX_RANK; r++) {
        snprintf(num, sizeof num, "%d", r);
        ok = ok && tally_row(t, "rank", num);
    }
    for (int l = 0; l < GEN_LAYOUT_COUNT; l++)
        ok = ok && tally_row(t, "layout", gen_layout_name((gen_layout)l));
    for (int v = 0; v < GEN_DIST_COUNT; v++)
        ok = ok && tally_row(t, "distribution", gen_distribution_name((gen_distribution)v));
    static const char *const classes[] = { "none", "nan", "denormal", "padding_window" };
    for (size_t i = 0; i < 4; i++)
        ok = ok && tally_row(t, "class (unspecified by DirectML)", classes[i]);
    /* Each family's known buckets once, in ops.def order. */
    for (int op = 0; op < OP_COUNT; op++) {
        bool first = true;
        for (int k = 0; k < op; k++)
            first &= op_table[k].module != op_table[op].module;
        const char *dims[OP_COVERAGE_MAX], *values[OP_COVERAGE_MAX];
        unsigned n = first ? op_table[op].module->coverage_buckets(dims, values, OP_COVERAGE_MAX) : 0;
        for (unsigned i = 0; i < n; i++)
            ok = ok && tally_row(t, dims[i], values[i]);
    }
    return ok;
}

/* Runs a (value, cases, failed) coverage query into the tally under `dimension`. */
static bool tally_query(report_db *d, tally *t, load_query q, const char *dimension, int64_t lo,
                        int64_t hi, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, q, lo, hi, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err))
        if (!tally_add(t, dimension, col_text(s, 0), col_u64(s, 1), col_u64(s, 2)))
            return err_set(err, "out of memory");
    return !failed;
}

/* Splits "nan,denormal" class lists: a case counts once under each of its classes. */
static bool tally_classes(report_db *d, tally *t, int64_t lo, int64_t hi, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_COV_CLASSES, lo, hi, err);
    if (!s)
        return false;
    const char *dim = "class (unspecified by DirectML)";
    while (next_row(d, s, &failed, err)) {
        char list[128], *save = NULL;
        snprintf(list, sizeof list, "%s", col_text(s, 0));
        bool any = false;
        for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
            any = true;
            if (!tally_add(t, dim, c, col_u64(s, 1), col_u64(s, 2)))
                return err_set(err, "out of memory");
        }
        if (!any && !tally_add(t, dim, "none", col_u64(s, 1), col_u64(s, 2)))
            return err_set(err, "out of memory");
    }
    return !failed;
}

/* The operator modules' coverage of one (op, params, input sizes, output sizes) group. */
static bool tally_params_row(tally *t, sqlite3_stmt *s)
{
    dml_case c;
    op_id op = op_from_name(col_text(s, 0));
    bool ok = true;
    if (op_case_from_params(op, col_text(s, 1), col_text(s, 2), col_text(s, 3), &c)) {
        const char *dims[OP_COVERAGE_MAX], *values[OP_COVERAGE_MAX];
        unsigned n = case_module(&c)->coverage(&c, dims, values, OP_COVERAGE_MAX);
        for (unsigned i = 0; ok && i < n; i++)
            ok = tally_add(t, dims[i], values[i], col_u64(s, 4), col_u64(s, 5));
    }
    case_free(&c);
    return ok;
}

static bool tally_params(report_db *d, tally *t, int64_t lo, int64_t hi, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_COV_PARAMS, lo, hi, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err))
        if (!tally_params_row(t, s))
            return err_set(err, "out of memory");
    return !failed;
}

static bool load_coverage(report_db *d, report_model *m, int64_t lo, int64_t hi, dmlc_error *err)
{
    tally t = { 0 };
    bool ok = tally_seed_known(&t) || err_set(err, "out of memory");
    ok = ok && tally_query(d, &t, Q_COV_RANK, "rank", lo, hi, err)
         && tally_query(d, &t, Q_COV_ELEMENTS, "input elements", lo, hi, err)
         && tally_query(d, &t, Q_COV_LAYOUT, "layout", lo, hi, err)
         && tally_query(d, &t, Q_COV_DISTRIBUTION, "distribution", lo, hi, err)
         && tally_classes(d, &t, lo, hi, err)
         && tally_params(d, &t, lo, hi, err);
    for (size_t i = 0; ok && i < t.count; i++)
        ok = report_model_add_coverage(m, t.rows[i].dimension, t.rows[i].value, t.rows[i].cases,
                                       t.rows[i].failed)
             || err_set(err, "out of memory");
    tally_free(&t);
    return ok;
}

/* ---- entry points ------------------------------------------------------------------- */

/* The runs and cells (all the verdicts need), and with `everything` the signatures, coverage
 * and families too. */
static bool load(report_model *m, const char *path, int64_t run_id, bool all_runs, bool everything,
                 dmlc_error *err)
{
    report_db d;
    if (!db_open(&d, path, err))
        return false;
    int64_t lo = 0, hi = 0;
    bool ok = db_check(&d, err) && db_select(&d, run_id, all_runs, &lo, &hi, &m->selection, err)
              && load_runs(&d, m, lo, hi, err) && load_cells(&d, m, lo, hi, err)
              && load_nan_prints(&d, m, lo, hi, err);
    ok = ok && (!everything
                || (load_signatures(&d, m, lo, hi, err) && load_coverage(&d, m, lo, hi, err)
                    && families_find(d.db, lo, hi, &m->families, err)));
    db_close(&d);
    if (ok && !(m->db_path = report_strdup(path)))
        ok = err_set(err, "out of memory");
    return ok;
}

bool report_load(report_model *m, const char *path, int64_t run_id, bool all_runs,
                 dmlc_error *err)
{
    return load(m, path, run_id, all_runs, true, err);
}

bool report_load_verdicts(report_model *m, const char *path, int64_t run_id, dmlc_error *err)
{
    return load(m, path, run_id, false, false, err);
}

/* ---- expectations ------------------------------------------------------------------- */

static bool expectation_from_json(json_t *o, report_expectation *e, size_t i, dmlc_error *err)
{
    static const char *const keys[] = { "device", "op", "input", "output", "indices", "layout",
                                        "distribution", "kind", "reason" };
    char **fields[] = { &e->device, &e->op, &e->input, &e->output, &e->indices, &e->layout,
                        &e->distribution, &e->kind, &e->reason };
    if (!json_is_object(o))
        return err_set(err, "expectations[%zu]: must be an object", i);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        size_t k = 0;
        while (k < 9 && strcmp(key, keys[k]))
            k++;
        if (k == 9)
            return err_set(err, "expectations[%zu].%s: unknown field (fields: device, op, input, "
                           "output, indices, layout, distribution, kind, reason)", i, key);
        if (!json_is_string(v))
            return err_set(err, "expectations[%zu].%s: must be a string", i, key);
        if (!(*fields[k] = report_strdup(json_string_value(v))))
            return err_set(err, "out of memory");
    }
    if (!e->reason || !e->reason[0])
        return err_set(err, "expectations[%zu].reason: required (say which bug this is)", i);
    return true;
}

bool report_expectations_load(report_model *m, const char *path, dmlc_error *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root)
        return err_set(err, "%s:%d: %s", path, jerr.line, jerr.text);
    json_t *list = json_object_get(root, "expectations");
    bool ok = json_is_array(list)
              || err_set(err, "%s: expected {\"expectations\": [...]}", path);
    size_t i;
    json_t *o;
    json_array_foreach(list, i, o) {
        if (!ok)
            break;
        report_expectation *e = realloc(m->expectations, (m->expectation_count + 1) * sizeof *e);
        if (!e) {
            ok = err_set(err, "out of memory");
            break;
        }
        m->expectations = e;
        e = &m->expectations[m->expectation_count++];
        memset(e, 0, sizeof *e);
        ok = expectation_from_json(o, e, i, err) || err_prefix(err, "%s", path);
    }
    json_decref(root);
    return ok;
}
