/*
 * test_store_migration.c: results-database schema version 2, which records the generator
 * version of every run.  A version-1 database is made from the version-1 schema text
 * (data/schema_v1.sql: results/schema.sql as it was before generator versions) with a run,
 * a case and a signature as that dmlcheck wrote them (bare SEED:INDEX ids).  Then:
 *   - store_find_case_origin reads it without changing it, its run as generator version 1;
 *   - store_open migrates it to version 2 with the same runs and case_list columns as a
 *     fresh database, the old run reading as gen_version 1 and its case named g1:SEED:INDEX;
 *   - a new run is recorded with GEN_VERSION and its gen_options_text, and the lookup
 *     prefers the run whose version and options match over a newer one whose options differ;
 *   - a version-1 representative gives way to a current one even when that is larger;
 *   - a newer database is refused by the lookup too.
 * argv[1]: the path of data/schema_v1.sql.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "store.h"
#include "tap.h"

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (text = calloc(1, (size_t)n + 1)) && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    return text;
}

/* Runs sql on the database at path (created if absent); false with a diagnostic. */
static bool exec_on(const char *path, const char *sql)
{
    sqlite3 *db;
    char *msg = NULL;
    bool ok = sqlite3_open(path, &db) == SQLITE_OK
              && sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK;
    if (!ok)
        tap_diag("%s: %s", path, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    sqlite3_close(db);
    return ok;
}

/* The first column of the first row of sql, as text ("" when none or NULL). */
static const char *query_text(const char *path, const char *sql, char *buf, size_t size)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    buf[0] = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
        && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    } else {
        tap_diag("query failed: %s: %s", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return buf;
}


/* What a version-1 dmlcheck left: run 1 of seed 5 failed case 5:3 under one signature. */
static const char v1_rows[] =
    "INSERT INTO runs (id, started_at, seed, options, dmlcheck_version, backend, nan_policy,"
    " status) VALUES (1, '2024-01-01T00:00:00Z', '5', '{}', '0.1.0', 'reference', 'ignore',"
    " 'finished');"
    "INSERT INTO cases (id, run_id, case_index, op, feature_level, input_type, output_type,"
    " rank, elements, input_sizes, output_sizes, params, layout, distribution, classes)"
    " VALUES (1, 1, 3, 'ARGMAX', '4_1', 'FLOAT32', 'UINT32', 1, 4, '[4]', '[1]',"
    " '{\"axes\":[0],\"direction\":\"INCREASING\"}', 'packed', 'ties', '');"
    "INSERT INTO results (case_id, verdict, kind, mismatch_count) VALUES (1, 'fail',"
    " 'tie_other_way', 1);"
    "INSERT INTO signatures (backend, op, feature_level, input_type, output_type, layout,"
    " distribution, kind, verdict, count, first_seen_run, first_seen_at, last_seen_run,"
    " last_seen_at, representative, rep_elements, replay) VALUES ('reference', 'ARGMAX', '4_1',"
    " 'FLOAT32', 'UINT32', 'packed', 'ties', 'tie_other_way', 'fail', 1, 1,"
    " '2024-01-01T00:00:00Z', 1, '2024-01-01T00:00:00Z', '5:3', 4,"
    " 'dmlcheck replay 5:3 --backend reference');";

static const char runs_columns[] =
    "SELECT group_concat(name || ':' || type || ':' || \"notnull\" || ':' || ifnull(dflt_value, '-'),"
    " ',') FROM pragma_table_info('runs')";
static const char view_columns[] = "SELECT group_concat(name, ',') FROM pragma_table_info('case_list')";
static const char signature_columns[] =
    "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\" || ' ' || ifnull(dflt_value, ''), ',')"
    " FROM pragma_table_info('signatures')";

static const char result_columns[] =
    "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\" || ' ' || ifnull(dflt_value, ''), ',')"
    " FROM pragma_table_info('results')";

static void test_lookup_unmigrated(tap *t, const char *db)
{
    char text[GEN_OPTIONS_TEXT_SIZE], buf[64];
    gen_options opt;
    gen_options_default(&opt);
    gen_options_text(&opt, text, sizeof text);
    store_case_origin o;
    bool found = false;
    dmlc_error err = { 0 };
    bool ok = store_find_case_origin(db, 5, 3, GEN_VERSION, text, &o, &found, &err);
    tap_ok(t, ok && found && o.run_id == 1 && o.gen_version == 1 && !o.gen_options[0],
           "a version-1 database's run reads as generator version 1 (%s)", ok ? "found" : err.msg);
    ok = store_find_case_origin(db, 5, 4, GEN_VERSION, text, &o, &found, &err);
    tap_ok(t, ok && !found, "a case no run recorded is not found");
    tap_ok(t, !strcmp(query_text(db, "PRAGMA user_version", buf, sizeof buf), "1"),
           "looking a case up leaves the database at version %s", buf);
}

static void test_migrated_like_fresh(tap *t, const char *db, const char *fresh)
{
    char a[2048], b[2048];
    dmlc_error err = { 0 };
    store *s = store_open(fresh, &err);
    store_close(s);
    s = store_open(db, &err);
    tap_ok(t, s && store_found_version(s) == 1, "a version-1 database opens and migrates (%s)",
           s ? "opened" : err.msg);
    store_close(s);
    tap_ok(t, !strcmp(query_text(db, "PRAGMA user_version", a, sizeof a), "5"),
           "it is at schema version %s now", a);
    tap_ok(t, !strcmp(query_text(db, runs_columns, a, sizeof a), query_text(fresh, runs_columns, b, sizeof b)),
           "migrated runs columns are a fresh database's (5: claims): %s", a);
    tap_ok(t, !strcmp(query_text(db, "SELECT ifnull(claims, 'NULL') FROM runs WHERE id = 1", a,
                                 sizeof a), "NULL"),
           "the old run has no claims (reports read it as claiming everything): %s", a);
    tap_ok(t, !strcmp(query_text(db, view_columns, a, sizeof a), query_text(fresh, view_columns, b, sizeof b)),
           "migrated case_list columns are a fresh database's");
    tap_ok(t, !strcmp(query_text(db, signature_columns, a, sizeof a),
                      query_text(fresh, signature_columns, b, sizeof b)),
           "migrated signatures columns are a fresh database's (3: nondeterministic; "
           "4: shrunk_mismatch; 5: cause, diagnosis)");
    tap_ok(t, !strcmp(query_text(db, "SELECT ifnull(shrunk_mismatch, 'NULL') FROM signatures", a,
                                 sizeof a), "NULL"),
           "the old signature has no first difference at a shrunk case: %s", a);
    tap_ok(t, !strcmp(query_text(db, "SELECT ifnull(cause, 'NULL') || ifnull(diagnosis, 'NULL')"
                                     " FROM signatures", a, sizeof a), "NULLNULL"),
           "the old signature was never diagnosed: %s", a);
    tap_ok(t, !strcmp(query_text(db, result_columns, a, sizeof a), query_text(fresh, result_columns, b, sizeof b)),
           "migrated results columns are a fresh database's (4: nan_policies)");
    tap_ok(t, !strcmp(query_text(db, "SELECT ifnull(nan_policies, 'NULL') FROM results WHERE case_id = 1",
                                 a, sizeof a), "NULL"),
           "an old result has no NaN-policy fingerprint: %s", a);
    tap_ok(t, !strcmp(query_text(db, "SELECT gen_version || ':' || ifnull(gen_options, 'NULL') FROM runs"
                                     " WHERE id = 1", a, sizeof a), "1:NULL"),
           "the old run reads as generator version 1 without options: %s", a);
    tap_ok(t, !strcmp(query_text(db, "SELECT case_id FROM case_list WHERE id = 1", a, sizeof a), "g1:5:3"),
           "case_list names its case %s", a);
    s = store_open(db, &err);
    tap_ok(t, s && store_found_version(s) == STORE_SCHEMA_VERSION, "it opens again without migrating");
    store_close(s);
}

/* Records a run of seed 5 with options text `gen_text` that saw case index 3. */
static bool record_run(store *s, const char *gen_text, int64_t *run_id, dmlc_error *err)
{
    store_run_start r = { .started_at = "2024-02-01T00:00:00Z", .seed = 5, .options_json = "{}",
                          .backend = "reference", .nan_policy = "ignore", .cases_requested = 1,
                          .time_requested_s = -1, .gen_version = GEN_VERSION, .gen_options = gen_text };
    store_case_row c = { .case_index = 3, .op = "ARGMAX", .feature_level = "4_1", .input_type = "FLOAT32",
                         .output_type = "UINT32", .rank = 1, .elements = 1000, .input_sizes = "[1000]",
                         .output_sizes = "[1]", .params = "{}", .layout = "packed",
                         .distribution = "ties", .classes = "", .verdict = "fail", .kind = "tie_other_way",
                         .has_nan_policies = true, .nan_policies = 9 };
    if (!store_run_begin(s, &r, run_id, err))
        return false;
    c.run_id = *run_id;
    return store_batch_begin(s, err) && store_case(s, &c, err) && store_batch_commit(s, err);
}

static void test_new_runs(tap *t, const char *db)
{
    char ours[GEN_OPTIONS_TEXT_SIZE], other[GEN_OPTIONS_TEXT_SIZE], buf[GEN_OPTIONS_TEXT_SIZE + 16];
    gen_options opt;
    gen_options_default(&opt);
    gen_options_text(&opt, ours, sizeof ours);
    opt.max_elements = 100;
    gen_options_text(&opt, other, sizeof other);
    dmlc_error err = { 0 };
    int64_t run2 = 0, run3 = 0;
    store *s = store_open(db, &err);
    bool ok = s && record_run(s, ours, &run2, &err) && record_run(s, other, &run3, &err);
    store_close(s);
    tap_ok(t, ok && run2 == 2 && run3 == 3, "two new runs are recorded (%s)", ok ? "ok" : err.msg);
    snprintf(buf, sizeof buf, "%d|%s", GEN_VERSION, ours);
    char got[GEN_OPTIONS_TEXT_SIZE + 16];
    tap_ok(t, !strcmp(query_text(db, "SELECT gen_version || '|' || gen_options FROM runs WHERE id = 2",
                                 got, sizeof got), buf),
           "a new run records its generator version and options: %s", got);
    tap_ok(t, !strcmp(query_text(db, "SELECT x.nan_policies FROM results x JOIN cases c ON c.id = x.case_id"
                                     " WHERE c.run_id = 2", got, sizeof got), "9"),
           "a new result records its NaN-policy fingerprint: %s", got);
    store_case_origin o;
    bool found = false;
    ok = store_find_case_origin(db, 5, 3, GEN_VERSION, ours, &o, &found, &err);
    tap_ok(t, ok && found && o.run_id == 2 && o.gen_version == GEN_VERSION && !strcmp(o.gen_options, ours),
           "the lookup picks the run whose version and options match (run %lld)", (long long)o.run_id);
    ok = store_find_case_origin(db, 5, 3, 99, "x", &o, &found, &err);
    tap_ok(t, ok && found && o.run_id == 3 && !strcmp(o.gen_options, other),
           "with no match it picks the newest run (run %lld: %s)", (long long)o.run_id, o.gen_options);
}

/* The stored representative "5:3" has 4 elements; a current-version occurrence of 1000
 * replaces it. */
static void test_stale_representative(tap *t, const char *db)
{
    char id[GEN_CASE_ID_SIZE], buf[256], replay[128], want[256];
    gen_case_id current = { GEN_VERSION, 5, 9 };
    gen_format_case_id(&current, id, sizeof id);
    snprintf(replay, sizeof replay, "dmlcheck replay %s --backend reference", id);
    snprintf(want, sizeof want, "%s 2 %s", id, replay);
    store_signature_row row = { .backend = "reference", .op = "ARGMAX", .feature_level = "4_1",
                                .input_type = "FLOAT32", .output_type = "UINT32", .layout = "packed",
                                .distribution = "ties", .kind = "tie_other_way", .verdict = "fail",
                                .run_id = 2, .seen_at = "2024-02-01T00:00:00Z", .case_id = id,
                                .elements = 1000, .replay = replay };
    dmlc_error err = { 0 };
    int64_t sig = 0;
    bool is_new = true;
    store *s = store_open(db, &err);
    bool ok = s && store_batch_begin(s, &err) && store_signature(s, &row, &sig, &is_new, &err)
              && store_batch_commit(s, &err);
    store_close(s);
    tap_ok(t, ok && !is_new && sig == 1, "a current occurrence counts under the version-1 signature");
    tap_ok(t, !strcmp(query_text(db, "SELECT representative || ' ' || count || ' ' || replay FROM signatures"
                                     " WHERE id = 1", buf, sizeof buf),
                      want),
           "and replaces its version-1 representative although larger: %s", buf);
}

static void test_newer_refused(tap *t, const char *fresh)
{
    store_case_origin o;
    bool found = false;
    dmlc_error err = { 0 };
    exec_on(fresh, "PRAGMA user_version = 99");
    bool ok = store_find_case_origin(fresh, 5, 3, GEN_VERSION, "", &o, &found, &err);
    tap_ok(t, !ok && strstr(err.msg, "newer") && strstr(err.msg, "99"),
           "the lookup refuses a newer database: %s", ok ? "(read)" : err.msg);
}

int main(int argc, char **argv)
{
    tap t;
    tap_plan(&t, 0);
    char dir[] = "/tmp/dmlcheck-test-migration-XXXXXX", db[600], fresh[600];
    char *schema = argc > 1 ? read_file(argv[1]) : NULL;
    if (!mkdtemp(dir) || !schema) {
        tap_ok(&t, false, "set up: a temporary directory and the version-1 schema (argv[1])");
        free(schema);
        return tap_done(&t);
    }
    snprintf(db, sizeof db, "%s/v1.sqlite", dir);
    snprintf(fresh, sizeof fresh, "%s/fresh.sqlite", dir);
    bool made = exec_on(db, schema) && exec_on(db, v1_rows);
    free(schema);
    tap_ok(&t, made, "a version-1 database is made from the version-1 schema");
    if (made) {
        test_lookup_unmigrated(&t, db);
        test_migrated_like_fresh(&t, db, fresh);
        test_new_runs(&t, db);
        test_stale_representative(&t, db);
        test_newer_refused(&t, fresh);
    }
    store_remove_files(db);
    store_remove_files(fresh);
    rmdir(dir);
    return tap_done(&t);
}
