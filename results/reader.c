/*
 * reader.c: the read side of a results database (reader.h, schema.sql).  The database is
 * opened with SQLITE_OPEN_READONLY and only read: a report never re-runs a case and never
 * changes the store.  Every statement lives in one table (reader_sql), is prepared on first
 * use and takes bound parameters only; the selection of runs is always the bound range
 * ?1..?2 of run ids.  Column numbers stay in this file: each walk turns its statement's
 * columns into a row struct of reader.h.
 *
 * Before any other statement, the database is checked to be ours: a schema version we know
 * (PRAGMA user_version) and the tables the schema defines.
 */
#include "reader.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader_digest.h"
#include "store.h"

typedef enum reader_query {
    Q_USER_VERSION,
    Q_SCHEMA_OBJECTS,
    Q_RUN_RANGE,
    Q_RUN_EXISTS,
    Q_RUNS,
    Q_RUNS_V4,
    Q_SIGNATURES,
    Q_CELL_SKIPS,
    Q_COUNT
} reader_query;

/* Every statement the loader runs.  ?1..?2 is the range of selected run ids. */
static const char *const reader_sql[Q_COUNT] = {
    [Q_USER_VERSION] = "PRAGMA user_version",
    [Q_SCHEMA_OBJECTS] =
        "SELECT count(*) FROM sqlite_master WHERE (type = 'table' AND name IN"
        " ('runs', 'devices', 'cases', 'results', 'signatures'))"
        " OR (type = 'view' AND name = 'verdict_counts')",
    [Q_RUN_RANGE] = "SELECT count(*), min(id), max(id) FROM runs",
    [Q_RUN_EXISTS] = "SELECT count(*) FROM runs WHERE id = ?1",
#define RUNS_SELECT(claims)                                                                   \
        "SELECT r.id, r.dmlcheck_version, r.git_revision, r.host, r.options, r.command_line,"  \
        " r.backend, r.status, r.nan_policy, r.seed, r.started_at, r.finished_at, r.elapsed_s,"  \
        " r.cases_done, r.strict, d.platform, d.device, d.driver, d.c_version, d.fp_config,"   \
        RUNS_SHARD ", " claims                                                                \
        " FROM runs r LEFT JOIN devices d ON d.id = r.device_id"                               \
        " WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id"
    /* The shard (run --shard K/N): "1/4", or a merged set "0, 1, 3 of 4 (merged; 1 missing)";
     * '' for a whole run. */
#define RUNS_SHARD                                                                            \
        " CASE WHEN NOT json_valid(r.options) OR json_type(r.options, '$.shard') IS NOT 'object'" \
        "  THEN '' WHEN json_array_length(r.options, '$.shard.indices') = 1"                    \
        "  THEN json_extract(r.options, '$.shard.indices[0]') || '/' || json_extract(r.options, '$.shard.count')" \
        "  ELSE (SELECT group_concat(value, ', ') FROM json_each(r.options, '$.shard.indices'))" \
        "  || ' of ' || json_extract(r.options, '$.shard.count') || ' (merged'"                \
        "  || CASE WHEN json_array_length(r.options, '$.shard.indices') < json_extract(r.options, '$.shard.count')" \
        "  THEN '; ' || (json_extract(r.options, '$.shard.count')"                              \
        "  - json_array_length(r.options, '$.shard.indices')) || ' missing' ELSE '' END || ')' END"
    /* runs.claims since schema version 5; before, every run claimed everything. */
    [Q_RUNS] = RUNS_SELECT("r.claims"),
    [Q_RUNS_V4] = RUNS_SELECT("NULL"),
#undef RUNS_SELECT
#undef RUNS_SHARD
    /* The digest's skip reasons (reader_digest.h), the most common first. */
    [Q_CELL_SKIPS] =
        ("SELECT feature_level, op, input_type, output_type, indices_type, detail, cases"
         " FROM temp.digest_skip_rows ORDER BY 7 DESC"),
    /* Signatures with their case count in the selected runs.  A case belongs to a signature
     * when every key field of the signature (schema: signatures_key) matches: the digest
     * counted the cases of each such key in each run (temp.digest_signature_rows, whose
     * indices_type is '' for none).  Its family is families_holding's, by s.id. */
    [Q_SIGNATURES] =
        ("SELECT s.feature_level, s.op, s.input_type, s.output_type, s.indices_type, s.layout,"
         " s.distribution, s.kind, s.verdict, s.first_seen_at, s.last_seen_at,"
         " s.representative, s.rep_elements, s.backend, s.replay, s.shrunk_case IS NOT NULL,"
         " json_extract(s.first_mismatch, '$.tensor'), json_extract(s.first_mismatch, '$.element'),"
         " json_extract(s.first_mismatch, '$.expected'), json_extract(s.first_mismatch, '$.got'),"
         " sum(a.cases) AS n, group_concat(a.classes), min(a.detail),"
         " json_extract(s.first_mismatch, '$.explanation'), s.id"
         " FROM signatures s"
         " JOIN runs r ON r.backend = s.backend AND ifnull(r.device_id, 0) = ifnull(s.device_id, 0)"
         " JOIN temp.digest_signature_rows a ON a.run_id = r.id AND a.op = s.op"
         "  AND a.feature_level = s.feature_level AND a.input_type = s.input_type"
         "  AND a.output_type = s.output_type AND a.indices_type = ifnull(s.indices_type, '')"
         "  AND a.layout = s.layout AND a.distribution = s.distribution"
         "  AND a.verdict = s.verdict AND a.kind = s.kind"
         " WHERE r.id BETWEEN ?1 AND ?2"
         " GROUP BY s.id ORDER BY s.verdict, n DESC, s.id"),
};

typedef struct reader {
    sqlite3 *db;
    int version; /* the file's schema version */
    sqlite3_stmt *stmt[Q_COUNT];
    const char *path;
    reader_digest *digest; /* the range's cases read once (reader_scan) */
} reader;

static void db_close(reader *d)
{
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(d->stmt[i]);
    digest_free(d->digest, d->db);
    sqlite3_close(d->db);
    memset(d, 0, sizeof *d);
}

/* The statement for q, prepared on first use and reset with ?1..?2 bound to the range. */
static sqlite3_stmt *query(reader *d, reader_query q, int64_t lo, int64_t hi, dmlc_error *err)
{
    if (!d->stmt[q] && sqlite3_prepare_v2(d->db, reader_sql[q], -1, &d->stmt[q], NULL) != SQLITE_OK) {
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
static bool next_row(reader *d, sqlite3_stmt *s, bool *failed, dmlc_error *err)
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
static bool reopen_immutable(reader *d)
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

static bool db_open(reader *d, const char *path, dmlc_error *err)
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
static bool db_check(reader *d, dmlc_error *err)
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
    if (version > STORE_SCHEMA_VERSION)
        return err_set(err, "%s: written by a newer dmlcheck (schema version %d; this dmlcheck "
                       "reads up to %d): use that dmlcheck's `report`", d->path, version,
                       STORE_SCHEMA_VERSION);
    s = query(d, Q_SCHEMA_OBJECTS, 0, 0, err);
    if (!s || !next_row(d, s, &failed, err))
        return false;
    if (version < 1 || sqlite3_column_int(s, 0) != 6)
        return err_set(err, "%s: not a dmlcheck results database (schema version %d, dmlcheck's "
                       "tables missing)", d->path, version);
    return true;
}

/* ---- the entry points ---------------------------------------------------------------- */

reader *reader_open(const char *path, dmlc_error *err)
{
    reader *r = calloc(1, sizeof *r);
    if (!r) {
        err_set(err, "out of memory");
        return NULL;
    }
    if (!db_open(r, path, err)) {
        free(r);
        return NULL;
    }
    if (!db_check(r, err)) {
        reader_close(r);
        return NULL;
    }
    return r;
}

void reader_close(reader *r)
{
    if (!r)
        return;
    db_close(r);
    free(r);
}

int reader_version(const reader *r)
{
    return r->version;
}

bool reader_select(reader *d, int64_t run_id, bool all_runs, reader_range *range, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = query(d, Q_RUN_RANGE, 0, 0, err);
    if (!s || !next_row(d, s, &failed, err))
        return false;
    int64_t runs = sqlite3_column_int64(s, 0), first = sqlite3_column_int64(s, 1),
            last = sqlite3_column_int64(s, 2);
    if (runs == 0)
        return err_set(err, "%s: the database holds no run yet", d->path);
    if (all_runs) {
        range->lo = first;
        range->hi = last;
        snprintf(range->text, sizeof range->text, "all runs (%" PRId64 " runs, ids %" PRId64
                 "-%" PRId64 ")", runs, first, last);
        return true;
    }
    range->lo = range->hi = run_id ? run_id : last;
    s = query(d, Q_RUN_EXISTS, range->lo, 0, err);
    if (!s || !next_row(d, s, &failed, err))
        return false;
    if (sqlite3_column_int64(s, 0) == 0)
        return err_set(err, "%s: no run %" PRId64 " (runs are %" PRId64 "-%" PRId64 ")", d->path,
                       run_id, first, last);
    snprintf(range->text, sizeof range->text, "run %" PRId64 "%s", range->lo,
             run_id ? "" : " (the latest)");
    return true;
}

/* The statement for q over the range; NULL with err set. */
static sqlite3_stmt *walk(reader *d, reader_query q, const reader_range *range, dmlc_error *err)
{
    return query(d, q, range->lo, range->hi, err);
}

/* The cell key in a row's first five columns. */
static reader_cell_key cell_key(sqlite3_stmt *s)
{
    return (reader_cell_key){ col_text(s, 0), col_text(s, 1), col_text(s, 2), col_text(s, 3),
                              col_text(s, 4) };
}

static reader_run run_row(sqlite3_stmt *s)
{
    return (reader_run){
        .id = sqlite3_column_int64(s, 0), .version = col_text(s, 1),
        .git_revision = col_text(s, 2), .host = col_text(s, 3), .options = col_text(s, 4),
        .command_line = col_text(s, 5), .backend = col_text(s, 6), .status = col_text(s, 7),
        .nan_policy = col_text(s, 8), .seed = strtoull(col_text(s, 9), NULL, 10),
        .started = col_text(s, 10), .finished = col_text(s, 11),
        .seconds = sqlite3_column_double(s, 12), .cases = col_u64(s, 13),
        .strict = sqlite3_column_int(s, 14) != 0, .platform = col_text(s, 15),
        .device = col_text(s, 16), .driver = col_text(s, 17), .runtime = col_text(s, 18),
        .fp_config = col_text(s, 19), .shard = col_text(s, 20), .claims = col_text(s, 21),
    };
}

bool reader_runs(reader *d, const reader_range *range,
                 bool (*each)(void *ctx, const reader_run *row, dmlc_error *err), void *ctx,
                 dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = walk(d, d->version >= 5 ? Q_RUNS : Q_RUNS_V4, range, err);
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        reader_run row = run_row(s);
        if (!each(ctx, &row, err))
            return false;
    }
    return !failed;
}

bool reader_scan(reader *d, const reader_range *range,
                 bool (*each)(void *ctx, const reader_params *row, dmlc_error *err), void *ctx,
                 dmlc_error *err)
{
    /* Statements stepped part-way would hold a read across the temporary tables' creation. */
    for (int q = 0; q < Q_COUNT; q++)
        sqlite3_reset(d->stmt[q]);
    digest_free(d->digest, d->db);
    d->digest = digest_read(d->db, d->path, d->version, range->lo, range->hi, each, ctx, err);
    return d->digest != NULL;
}

/* The range's digest, read now when no scan read it. */
static const reader_digest *digested(reader *d, const reader_range *range, dmlc_error *err)
{
    if (!digest_covers(d->digest, range->lo, range->hi) && !reader_scan(d, range, NULL, NULL, err))
        return NULL;
    return d->digest;
}

bool reader_cells(reader *d, const reader_range *range,
                  bool (*each)(void *ctx, const reader_cell *row, dmlc_error *err), void *ctx,
                  dmlc_error *err)
{
    const reader_digest *g = digested(d, range, err);
    return g && digest_cells(g, each, ctx, err);
}

bool reader_skips(reader *d, const reader_range *range,
                  bool (*each)(void *ctx, const reader_skip *row, dmlc_error *err), void *ctx,
                  dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = digested(d, range, err) ? walk(d, Q_CELL_SKIPS, range, err) : NULL;
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        reader_skip row = { cell_key(s), col_text(s, 5), col_u64(s, 6) };
        if (!each(ctx, &row, err))
            return false;
    }
    return !failed;
}

#define READER_CLASSES_MAX 1024

static int compare_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each class of a "nan,denormal,nan" list once, sorted, into buf: group_concat(DISTINCT)
 * lists them in row order, which a merge or another shard count changes. */
static const char *sorted_classes(const char *list, char *buf, size_t size)
{
    char copy[READER_CLASSES_MAX], *names[64], *save = NULL;
    size_t n = 0, used = 0;
    snprintf(copy, sizeof copy, "%s", list);
    for (char *t = strtok_r(copy, ",", &save); t && n < 64; t = strtok_r(NULL, ",", &save))
        names[n++] = t;
    qsort(names, n, sizeof names[0], compare_text);
    buf[0] = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]))
            used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s",
                                     used ? "," : "", names[i]);
    return buf;
}

static reader_signature signature_row(sqlite3_stmt *s)
{
    return (reader_signature){
        .key = cell_key(s), .layout = col_text(s, 5), .distribution = col_text(s, 6),
        .kind = col_text(s, 7), .verdict = col_text(s, 8), .first_seen = col_text(s, 9),
        .last_seen = col_text(s, 10), .representative = col_text(s, 11),
        .rep_elements = col_u64(s, 12), .backend = col_text(s, 13), .replay = col_text(s, 14),
        .has_shrunk_case = sqlite3_column_int(s, 15) != 0, .tensor = col_text(s, 16),
        .element = col_u64(s, 17), .expected = col_text(s, 18), .got = col_text(s, 19),
        .count = col_u64(s, 20), .classes = col_text(s, 21), .detail = col_text(s, 22),
        .explanation = col_text(s, 23), .id = sqlite3_column_int64(s, 24),
    };
}

bool reader_signatures(reader *d, const reader_range *range,
                       bool (*each)(void *ctx, const reader_signature *row, dmlc_error *err),
                       void *ctx, dmlc_error *err)
{
    bool failed = false;
    sqlite3_stmt *s = digested(d, range, err) ? walk(d, Q_SIGNATURES, range, err) : NULL;
    if (!s)
        return false;
    while (next_row(d, s, &failed, err)) {
        reader_signature row = signature_row(s);
        char classes[READER_CLASSES_MAX];
        row.classes = sorted_classes(row.classes, classes, sizeof classes);
        if (!each(ctx, &row, err))
            return false;
    }
    return !failed;
}

bool reader_coverage_of(reader *d, const reader_range *range, reader_dimension dimension,
                        bool (*each)(void *ctx, const reader_coverage *row, dmlc_error *err),
                        void *ctx, dmlc_error *err)
{
    const reader_digest *g = digested(d, range, err);
    return g && digest_coverage(g, dimension, each, ctx, err);
}

bool reader_nan_prints(reader *d, const reader_range *range,
                       bool (*each)(void *ctx, const reader_nan_print *row, dmlc_error *err),
                       void *ctx, dmlc_error *err)
{
    if (d->version < 4) /* recorded since schema version 4 */
        return true;
    const reader_digest *g = digested(d, range, err);
    return g && digest_nan_prints(g, each, ctx, err);
}

bool reader_families(reader *d, const reader_range *range, family_list *out, dmlc_error *err)
{
    /* A statement stepped part-way (a single-row query) would hold a read that keeps the
     * families' temporary table from being dropped. */
    for (int q = 0; q < Q_COUNT; q++)
        sqlite3_reset(d->stmt[q]);
    return families_find(d->db, range->lo, range->hi, out, err);
}

bool reader_family_nan_cases(reader *d, const reader_range *range, const family *f,
                             bool (*each)(void *ctx, const family_nan_cases *row, dmlc_error *err),
                             void *ctx, dmlc_error *err)
{
    return families_nan_cases(d->db, range->lo, range->hi, f, each, ctx, err);
}
