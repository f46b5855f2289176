/*
 * merge.c: `dmlcheck merge A.sqlite B.sqlite ... -o OUT.sqlite` (merge.h).  This file owns the
 * statements that copy one database into another (schema.sql's header says so); they are
 * constants in `merge_sql`, with bound parameters only.
 *
 * The output is built in a temporary file beside OUT, created by store_open (the current
 * schema), inside one transaction, and renamed over OUT once committed.  Each input is
 * checked read-only first (store_check_readable: ours, not newer, intact); one of an older
 * schema version is copied and migrated (store_copy_migrated), never changed itself.  The
 * input is then attached read-only as `src` and copied:
 *   - devices: inserted unless the same identity is there; temp.merge_device_map maps ids;
 *   - runs: a run with a shard ({"count":N,"indices":[K,...]} in its options) joins the run
 *     already written whose options but the shard, seed, backend, device, NaN policy,
 *     strictness, generator version and options, dmlcheck version and git revision are its
 *     own, if their shard indices are disjoint (overlap is an error: the cases would count
 *     twice); the joined run's row then holds the union of the indices, the earliest start,
 *     the latest finish (none while a shard has none), the longest elapsed time (shards run
 *     side by side), summed cases_done and failures, the status of an unfinished shard if
 *     any, every host, and the command line of its lowest shard.  Every other run is copied
 *     as a new run.  temp.merge_run_map maps ids;
 *   - cases and results: copied with their ids shifted by one offset per input (case_index
 *     is kept: a case id gN:SEED:INDEX names the same case after the merge);
 *   - signatures: deduplicated by their key (schema.sql's signatures_key, with the device
 *     remapped): counts summed, the earliest first sighting and the latest last one, the
 *     representative chosen by store_representative_better (a shard set's is then its
 *     lowest-index smallest case, as the unsharded run's), the shortest shrunk case, and
 *     nondeterministic when any input says so.  At the end the signatures are renumbered in
 *     the order of their first case (first run, then lowest index), the order a single run
 *     writes them in, so a report lists them as it lists the unsharded run's.
 */
#include "merge.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

typedef enum merge_stmt {
    M_BEGIN,
    M_COMMIT,
    M_ATTACH,
    M_DETACH,
    M_MAPS,
    M_MAPS_CLEAR,
    M_DEVICES_COPY,
    M_DEVICE_MAP,
    M_SRC_RUNS,
    M_FIND_SHARD_SET,
    M_SAME_RUN,
    M_RUN_COPY,
    M_RUN_JOIN,
    M_RUN_MAP,
    M_RUN_ORIGIN,
    M_CASE_OFFSET,
    M_CASES_COPY,
    M_RESULTS_COPY,
    M_SRC_SIGNATURES,
    M_SIGNATURE_FIND,
    M_SIGNATURE_INSERT,
    M_SIGNATURE_UPDATE,
    M_RENUMBER,
    M_COUNTS,
    M_COUNT
} merge_stmt;

#define SIGNATURE_COLUMNS                                                                     \
    "backend, device_id, op, feature_level, input_type, output_type, indices_type, layout,"  \
    " distribution, kind, verdict, count, first_seen_run, first_seen_at, last_seen_run,"      \
    " last_seen_at, representative, rep_elements, first_mismatch, shrunk_case, replay,"       \
    " nondeterministic, shrunk_mismatch, cause, diagnosis"
#define SIGNATURE_COLUMN_COUNT 25
#define RUN_COLUMNS                                                                           \
    "started_at, finished_at, elapsed_s, seed, options, command_line, git_revision,"          \
    " dmlcheck_version, host, backend, device_id, nan_policy, strict, cases_requested,"       \
    " time_requested_s, cases_done, failures, status, gen_version, gen_options, claims"

static const char *const merge_sql[M_COUNT] = {
    [M_BEGIN] = "BEGIN IMMEDIATE",
    [M_COMMIT] = "COMMIT",
    [M_ATTACH] = "ATTACH ?1 AS src",
    [M_DETACH] = "DETACH src",
    [M_MAPS] = "CREATE TEMP TABLE merge_device_map (src INTEGER PRIMARY KEY, dst INTEGER);"
               "CREATE TEMP TABLE merge_run_map (src INTEGER PRIMARY KEY, dst INTEGER);"
               "CREATE TEMP TABLE merge_run_origin (dst INTEGER PRIMARY KEY, input TEXT)",
    [M_MAPS_CLEAR] = "DELETE FROM temp.merge_device_map; DELETE FROM temp.merge_run_map",
    [M_DEVICES_COPY] =
        "INSERT INTO main.devices (backend, platform, device, driver, c_version, fp_config,"
        " flushes_denormals) SELECT backend, platform, device, driver, c_version, fp_config,"
        " flushes_denormals FROM src.devices WHERE true ORDER BY id ON CONFLICT DO NOTHING",
    [M_DEVICE_MAP] =
        "INSERT INTO temp.merge_device_map SELECT s.id, d.id FROM src.devices s"
        " JOIN main.devices d ON d.backend = s.backend AND d.platform = s.platform"
        " AND d.device = s.device AND d.driver = s.driver AND d.c_version = s.c_version"
        " AND d.fp_config = s.fp_config AND d.flushes_denormals = s.flushes_denormals",
    [M_SRC_RUNS] = "SELECT id, json_extract(options, '$.shard.indices') FROM src.runs ORDER BY id",
    /* The run already written that src run ?1 is another shard of. */
    [M_FIND_SHARD_SET] =
        "SELECT d.id, json_extract(d.options, '$.shard.indices') FROM src.runs s JOIN main.runs d"
        " ON json_extract(d.options, '$.shard.count') = json_extract(s.options, '$.shard.count')"
        " AND json_remove(d.options, '$.shard') = json_remove(s.options, '$.shard')"
        " AND d.seed = s.seed AND d.backend = s.backend"
        " AND d.device_id IS (SELECT dst FROM temp.merge_device_map WHERE src = s.device_id)"
        " AND d.nan_policy = s.nan_policy AND d.strict = s.strict"
        " AND d.gen_version = s.gen_version AND d.gen_options IS s.gen_options"
        " AND d.claims IS s.claims AND d.dmlcheck_version = s.dmlcheck_version AND d.git_revision IS s.git_revision"
        " WHERE s.id = ?1 ORDER BY d.id LIMIT 1",
    /* A run already written that src run ?1 is (the same database given twice, or a copy):
     * two runs never share their start, elapsed time, host and command line. */
    [M_SAME_RUN] =
        "SELECT d.id FROM src.runs s JOIN main.runs d ON d.started_at IS s.started_at"
        " AND d.elapsed_s IS s.elapsed_s AND d.seed = s.seed AND d.options IS s.options"
        " AND d.command_line IS s.command_line AND d.host IS s.host AND d.backend = s.backend"
        " AND d.cases_done = s.cases_done WHERE s.id = ?1 LIMIT 1",
    [M_RUN_COPY] =
        "INSERT INTO main.runs (" RUN_COLUMNS ") SELECT started_at, finished_at, elapsed_s, seed,"
        " options, command_line, git_revision, dmlcheck_version, host, backend,"
        " (SELECT dst FROM temp.merge_device_map WHERE src = device_id), nan_policy, strict,"
        " cases_requested, time_requested_s, cases_done, failures, status, gen_version,"
        " gen_options, claims FROM src.runs WHERE id = ?1",
    /* Src run ?1 joins run ?2 as more shards: ?3 the union of their indices (JSON), ?4 1
     * when src's lowest shard is below the run's (its command line is kept). */
    [M_RUN_JOIN] =
        "UPDATE main.runs SET options = json_set(main.runs.options, '$.shard.indices', json(?3)),"
        " started_at = min(main.runs.started_at, s.started_at),"
        " finished_at = CASE WHEN main.runs.finished_at IS NULL OR s.finished_at IS NULL"
        "  THEN NULL ELSE max(main.runs.finished_at, s.finished_at) END,"
        " elapsed_s = max(ifnull(main.runs.elapsed_s, 0), ifnull(s.elapsed_s, 0)),"
        " cases_done = main.runs.cases_done + s.cases_done,"
        " failures = main.runs.failures + s.failures,"
        " status = CASE WHEN main.runs.status <> 'finished' THEN main.runs.status ELSE s.status END,"
        " host = CASE WHEN main.runs.host IS NULL THEN s.host WHEN s.host IS NULL"
        "  OR instr('; ' || main.runs.host || '; ', '; ' || s.host || '; ') THEN main.runs.host"
        "  ELSE main.runs.host || '; ' || s.host END,"
        " command_line = CASE WHEN ?4 THEN s.command_line ELSE main.runs.command_line END"
        " FROM src.runs s WHERE main.runs.id = ?2 AND s.id = ?1",
    [M_RUN_MAP] = "INSERT INTO temp.merge_run_map VALUES (?1, ?2)",
    /* The input a run was first copied from, for merge_sets.c's messages. */
    [M_RUN_ORIGIN] = "INSERT INTO temp.merge_run_origin VALUES (?1, ?2)",
    /* What the input's case ids are shifted by: past every case written so far. */
    [M_CASE_OFFSET] =
        "SELECT (SELECT ifnull(max(id), 0) FROM main.cases) + 1 - (SELECT ifnull(min(id), 0) FROM src.cases)",
    [M_CASES_COPY] =
        "INSERT INTO main.cases (id, run_id, case_index, op, feature_level, input_type,"
        " output_type, indices_type, rank, elements, input_sizes, input_strides, output_sizes,"
        " params, axis_kind, layout, distribution, classes)"
        " SELECT c.id + ?1, m.dst, c.case_index, c.op, c.feature_level, c.input_type,"
        " c.output_type, c.indices_type, c.rank, c.elements, c.input_sizes, c.input_strides,"
        " c.output_sizes, c.params, c.axis_kind, c.layout, c.distribution, c.classes"
        " FROM src.cases c JOIN temp.merge_run_map m ON m.src = c.run_id ORDER BY c.id",
    [M_RESULTS_COPY] =
        "INSERT INTO main.results (case_id, verdict, kind, mismatch_count, first_mismatch,"
        " detail, time_us, nan_policies, also_kinds) SELECT x.case_id + ?1, x.verdict, x.kind,"
        " x.mismatch_count, x.first_mismatch, x.detail, x.time_us, x.nan_policies, x.also_kinds"
        " FROM src.results x"
        " JOIN src.cases c ON c.id = x.case_id JOIN temp.merge_run_map m ON m.src = c.run_id"
        " ORDER BY x.case_id",
    [M_SRC_SIGNATURES] =
        "SELECT s.backend, dm.dst, s.op, s.feature_level, s.input_type, s.output_type,"
        " s.indices_type, s.layout, s.distribution, s.kind, s.verdict, s.count, rf.dst,"
        " s.first_seen_at, rl.dst, s.last_seen_at, s.representative, s.rep_elements,"
        " s.first_mismatch, s.shrunk_case, s.replay, s.nondeterministic, s.shrunk_mismatch,"
        " s.cause, s.diagnosis FROM src.signatures s"
        " LEFT JOIN temp.merge_device_map dm ON dm.src = s.device_id"
        " JOIN temp.merge_run_map rf ON rf.src = s.first_seen_run"
        " JOIN temp.merge_run_map rl ON rl.src = s.last_seen_run ORDER BY s.id",
    [M_SIGNATURE_FIND] =
        "SELECT id, " SIGNATURE_COLUMNS " FROM main.signatures WHERE backend = ?1"
        " AND ifnull(device_id, 0) = ifnull(?2, 0) AND op = ?3 AND feature_level = ?4"
        " AND input_type = ?5 AND output_type = ?6 AND ifnull(indices_type, '') = ifnull(?7, '')"
        " AND layout = ?8 AND distribution = ?9 AND kind = ?10 AND verdict = ?11",
    [M_SIGNATURE_INSERT] =
        "INSERT INTO main.signatures (" SIGNATURE_COLUMNS ") VALUES"
        " (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,"
        " ?24,?25)",
    [M_SIGNATURE_UPDATE] =
        "UPDATE main.signatures SET count = ?12, first_seen_run = ?13, first_seen_at = ?14,"
        " last_seen_run = ?15, last_seen_at = ?16, representative = ?17, rep_elements = ?18,"
        " first_mismatch = ?19, shrunk_case = ?20, replay = ?21, nondeterministic = ?22,"
        " shrunk_mismatch = ?23, cause = ?24, diagnosis = ?25 WHERE id = ?26",
    /* Each signature's first case: its first run, the lowest index there. */
    [M_RENUMBER] =
        "CREATE TEMP TABLE merge_first AS SELECT c.run_id, c.op, c.feature_level, c.input_type,"
        " c.output_type, ifnull(c.indices_type, '') AS indices, c.layout, c.distribution,"
        " x.kind, x.verdict, min(c.case_index) AS first_index FROM main.cases c"
        " JOIN main.results x ON x.case_id = c.id WHERE x.verdict IN ('fail', 'unspecified')"
        " GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;"
        "CREATE TEMP TABLE merge_signatures AS SELECT s.*, f.first_index FROM main.signatures s"
        " LEFT JOIN temp.merge_first f ON f.run_id = s.first_seen_run AND f.op = s.op"
        " AND f.feature_level = s.feature_level AND f.input_type = s.input_type"
        " AND f.output_type = s.output_type AND f.indices = ifnull(s.indices_type, '')"
        " AND f.layout = s.layout AND f.distribution = s.distribution AND f.kind = s.kind"
        " AND f.verdict = s.verdict;"
        "DELETE FROM main.signatures;"
        "INSERT INTO main.signatures (" SIGNATURE_COLUMNS ") SELECT " SIGNATURE_COLUMNS
        " FROM temp.merge_signatures ORDER BY first_seen_run, first_index, id;"
        "DROP TABLE temp.merge_first; DROP TABLE temp.merge_signatures",
    /* Parenthesised: clang's -Wstring-concatenation takes two adjacent literals in an array
     * initializer for a missing comma. */
    [M_COUNTS] = ("SELECT (SELECT count(*) FROM main.runs), (SELECT count(*) FROM main.cases),"
                  " (SELECT count(*) FROM main.signatures), (SELECT count(*) FROM main.devices)"),
};

typedef struct merger {
    sqlite3 *db;
    sqlite3_stmt *stmt[M_COUNT];
    const char *input;  /* the input being merged, for messages */
    size_t runs_read;
    int64_t last_run;   /* the output's id of the last run copied or joined */
    const merge_rules *rules;
    dmlc_error *err;
} merger;

static bool sql_failed(merger *m, const char *what)
{
    return err_set(m->err, "%s: %s: %s", m->input, what, sqlite3_errmsg(m->db));
}

/* Statement q, reset and unbound, prepared on first use. */
static sqlite3_stmt *stmt(merger *m, merge_stmt q)
{
    if (!m->stmt[q] && sqlite3_prepare_v2(m->db, merge_sql[q], -1, &m->stmt[q], NULL) != SQLITE_OK) {
        sql_failed(m, "preparing a statement");
        return NULL;
    }
    sqlite3_reset(m->stmt[q]);
    sqlite3_clear_bindings(m->stmt[q]);
    return m->stmt[q];
}

/* Runs a statement with no rows to the end (bound as given). */
static bool done(merger *m, sqlite3_stmt *st, const char *what)
{
    return st && (sqlite3_step(st) == SQLITE_DONE || sql_failed(m, what));
}

/* Runs the several statements of merge_sql[q] (no parameters). */
static bool exec_all(merger *m, merge_stmt q, const char *what)
{
    return sqlite3_exec(m->db, merge_sql[q], NULL, NULL, NULL) == SQLITE_OK || sql_failed(m, what);
}

static bool with_ids(merger *m, merge_stmt q, int64_t a, int64_t b, const char *what)
{
    sqlite3_stmt *st = stmt(m, q);
    if (st) {
        sqlite3_bind_int64(st, 1, a);
        sqlite3_bind_int64(st, 2, b);
    }
    return done(m, st, what);
}

/* ---- Runs --------------------------------------------------------------------------- */

/* Whether j is a shard list as run writes it: non-negative integers, strictly increasing.
 * A list damaged by hand or by a tool is refused, not merged into nonsense. */
static bool shard_list_sound(const json_t *j)
{
    if (!json_is_array(j) || !json_array_size(j))
        return false;
    json_int_t last = -1;
    for (size_t i = 0; i < json_array_size(j); i++) {
        const json_t *v = json_array_get(j, i);
        if (!json_is_integer(v) || json_integer_value(v) <= last)
            return false;
        last = json_integer_value(v);
    }
    return true;
}

static bool shard_text_sound(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    bool sound = shard_list_sound(j);
    json_decref(j);
    return sound;
}

/* The union of two shard index lists (JSON arrays) as a sorted JSON array (malloc'd) into
 * *merged; false when they share an index (its number in *shared) or are not sound lists. */
static bool shard_union(const char *a, const char *b, char **merged, int64_t *shared, bool *a_lower)
{
    json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL), *out = json_array();
    bool ok = shard_list_sound(ja) && shard_list_sound(jb) && out;
    size_t i = 0, k = 0, na = ok ? json_array_size(ja) : 0, nb = ok ? json_array_size(jb) : 0;
    *a_lower = na && (!nb || json_integer_value(json_array_get(ja, 0))
                                 < json_integer_value(json_array_get(jb, 0)));
    /* Each list is sorted: a run writes one index, and every union is written sorted. */
    while (ok && (i < na || k < nb)) {
        json_int_t x = i < na ? json_integer_value(json_array_get(ja, i)) : INT64_MAX;
        json_int_t y = k < nb ? json_integer_value(json_array_get(jb, k)) : INT64_MAX;
        if (x == y) {
            *shared = x;
            ok = false;
        } else {
            json_array_append_new(out, json_integer(x < y ? x : y));
            i += x < y;
            k += y < x;
        }
    }
    *merged = ok ? json_dumps(out, JSON_COMPACT) : NULL;
    json_decref(ja);
    json_decref(jb);
    json_decref(out);
    return ok && *merged;
}

/* Src run src_id joins run dst_id as more of its shards. */
static bool join_shards(merger *m, int64_t src_id, const char *src_indices, int64_t dst_id,
                        const char *dst_indices)
{
    char *merged = NULL;
    int64_t shared = -1;
    bool src_lower = false;
    if (!shard_union(src_indices, dst_indices, &merged, &shared, &src_lower)) {
        if (shared < 0)
            return err_set(m->err, "%s: run %" PRId64 ": its options' shard list is damaged (not "
                           "a list of increasing non-negative integers): %s", m->input, src_id,
                           src_indices);
        return err_set(m->err, "%s: run %" PRId64 " holds shard %" PRId64 " of a run whose shard %"
                       PRId64 " is already merged (from an earlier input or run): its cases would "
                       "count twice; merge each shard once", m->input, src_id, shared, shared);
    }
    sqlite3_stmt *st = stmt(m, M_RUN_JOIN);
    if (st) {
        sqlite3_bind_int64(st, 1, src_id);
        sqlite3_bind_int64(st, 2, dst_id);
        sqlite3_bind_text(st, 3, merged, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 4, src_lower);
    }
    free(merged);
    return done(m, st, "joining a shard to its run")
        && with_ids(m, M_RUN_MAP, src_id, dst_id, "mapping a run");
}

/* The input the run just copied came from (merge_sets.c names it). */
static bool note_origin(merger *m)
{
    sqlite3_stmt *st = stmt(m, M_RUN_ORIGIN);
    if (st) {
        sqlite3_bind_int64(st, 1, m->last_run);
        sqlite3_bind_text(st, 2, m->input, -1, SQLITE_TRANSIENT);
    }
    return done(m, st, "noting a run's input");
}

/* False with err when src run src_id is already in the output (M_SAME_RUN). */
static bool run_is_new(merger *m, int64_t src_id)
{
    sqlite3_stmt *st = stmt(m, M_SAME_RUN);
    if (!st)
        return false;
    sqlite3_bind_int64(st, 1, src_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return true;
    if (rc != SQLITE_ROW)
        return sql_failed(m, "looking for the run among those merged");
    return err_set(m->err, "%s: run %" PRId64 " is already merged (the same run from an earlier "
                   "input: the same database given twice, or a copy of it): its cases would count "
                   "twice; merge each database once", m->input, src_id);
}

/* Copies or joins every run of src; fills temp.merge_run_map. */
static bool merge_runs(merger *m)
{
    sqlite3_stmt *runs = stmt(m, M_SRC_RUNS);
    bool ok = runs != NULL;
    int rc;
    while (ok && (rc = sqlite3_step(runs)) == SQLITE_ROW) {
        int64_t src_id = sqlite3_column_int64(runs, 0);
        m->runs_read++;
        char *src_indices = sqlite3_column_type(runs, 1) == SQLITE_NULL ? NULL
                            : strdup((const char *)sqlite3_column_text(runs, 1));
        if (src_indices && !shard_text_sound(src_indices)) {
            ok = err_set(m->err, "%s: run %" PRId64 ": its options' shard list is damaged (not a "
                         "list of increasing non-negative integers): %s", m->input, src_id,
                         src_indices);
            free(src_indices);
            break;
        }
        sqlite3_stmt *find = src_indices ? stmt(m, M_FIND_SHARD_SET) : NULL;
        int found = SQLITE_DONE;
        if (find) {
            sqlite3_bind_int64(find, 1, src_id);
            found = sqlite3_step(find);
        }
        if (found == SQLITE_ROW) {
            char *dst_indices = strdup((const char *)sqlite3_column_text(find, 1));
            m->last_run = sqlite3_column_int64(find, 0);
            ok = dst_indices ? join_shards(m, src_id, src_indices, m->last_run, dst_indices)
                             : err_set(m->err, "out of memory");
            free(dst_indices);
        } else if (found != SQLITE_DONE) {
            ok = sql_failed(m, "looking for a run's other shards");
        } else if (!run_is_new(m, src_id)) {
            ok = false;
        } else {
            sqlite3_stmt *copy = stmt(m, M_RUN_COPY);
            if (copy)
                sqlite3_bind_int64(copy, 1, src_id);
            ok = done(m, copy, "copying a run")
                && with_ids(m, M_RUN_MAP, src_id, m->last_run = sqlite3_last_insert_rowid(m->db),
                            "mapping a run")
                && note_origin(m);
        }
        free(src_indices);
    }
    return ok && (rc == SQLITE_DONE || sql_failed(m, "reading the runs"));
}

/* ---- Signatures --------------------------------------------------------------------- */

static const char *text_of(sqlite3_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(st, col);
}

/* Writes the combination of the stored signature (row `have`, columns from 1 as in
 * SIGNATURE_COLUMNS) and src's (`add`, columns from 0) into update's ?12..?25: a confirmed
 * root cause wins over none (a diagnosis whatever its outcome over no diagnosis). */
static void bind_combined(sqlite3_stmt *update, sqlite3_stmt *have, sqlite3_stmt *add)
{
    enum { COUNT = 11, FIRST_RUN, FIRST_AT, LAST_RUN, LAST_AT, REP, REP_ELEMENTS, FIRST_MISMATCH,
           SHRUNK, REPLAY, NONDETERMINISTIC, SHRUNK_MISMATCH, CAUSE, DIAGNOSIS, COLUMNS };
    sqlite3_bind_int64(update, COUNT + 1, sqlite3_column_int64(have, COUNT + 1)
                                          + sqlite3_column_int64(add, COUNT));
    bool add_first = strcmp(text_of(add, FIRST_AT), text_of(have, FIRST_AT + 1)) < 0;
    /* A tie (one second) goes to the later input: merge_append's input is the newer run. */
    bool add_last = strcmp(text_of(add, LAST_AT), text_of(have, LAST_AT + 1)) >= 0;
    bool add_rep = store_representative_better(text_of(add, REP),
                                               (uint64_t)sqlite3_column_int64(add, REP_ELEMENTS),
                                               text_of(have, REP + 1),
                                               (uint64_t)sqlite3_column_int64(have, REP_ELEMENTS + 1));
    const char *shrunk_have = text_of(have, SHRUNK + 1), *shrunk_add = text_of(add, SHRUNK);
    bool add_shrunk = shrunk_add && (!shrunk_have || strlen(shrunk_add) < strlen(shrunk_have));
    bool add_cause = (!text_of(have, CAUSE + 1) && text_of(add, CAUSE))
        || (!text_of(have, DIAGNOSIS + 1) && text_of(add, DIAGNOSIS));
    struct { int col; bool from_add; } pick[] = {
        { CAUSE, add_cause }, { DIAGNOSIS, add_cause }, { FIRST_RUN, add_first }, { FIRST_AT, add_first }, { LAST_RUN, add_last },
        { LAST_AT, add_last }, { REP, add_rep }, { REP_ELEMENTS, add_rep },
        { FIRST_MISMATCH, add_rep }, { SHRUNK, add_shrunk }, { REPLAY, add_rep },
        { SHRUNK_MISMATCH, add_shrunk },
    };
    for (size_t i = 0; i < sizeof pick / sizeof pick[0]; i++)
        sqlite3_bind_value(update, pick[i].col + 1, pick[i].from_add
                               ? sqlite3_column_value(add, pick[i].col)
                               : sqlite3_column_value(have, pick[i].col + 1));
    sqlite3_bind_int(update, NONDETERMINISTIC + 1,
                     sqlite3_column_int(have, NONDETERMINISTIC + 1)
                         || sqlite3_column_int(add, NONDETERMINISTIC));
    sqlite3_bind_int64(update, COLUMNS + 1, sqlite3_column_int64(have, 0));
}

/* Adds one signature of src (row `add`): inserted, or combined with the one of its key. */
static bool merge_signature(merger *m, sqlite3_stmt *add)
{
    sqlite3_stmt *find = stmt(m, M_SIGNATURE_FIND);
    if (!find)
        return false;
    for (int k = 0; k < 11; k++) /* the key: backend .. verdict */
        sqlite3_bind_value(find, k + 1, sqlite3_column_value(add, k));
    int rc = sqlite3_step(find);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sql_failed(m, "looking up a signature");
    sqlite3_stmt *write = stmt(m, rc == SQLITE_ROW ? M_SIGNATURE_UPDATE : M_SIGNATURE_INSERT);
    if (!write)
        return false;
    if (rc == SQLITE_ROW)
        bind_combined(write, find, add);
    else
        for (int k = 0; k < SIGNATURE_COLUMN_COUNT; k++)
            sqlite3_bind_value(write, k + 1, sqlite3_column_value(add, k));
    return done(m, write, "writing a signature");
}

static bool merge_signatures(merger *m)
{
    sqlite3_stmt *sigs = stmt(m, M_SRC_SIGNATURES);
    bool ok = sigs != NULL;
    int rc;
    while (ok && (rc = sqlite3_step(sigs)) == SQLITE_ROW)
        ok = merge_signature(m, sigs);
    return ok && (rc == SQLITE_DONE || sql_failed(m, "reading the signatures"));
}

/* ---- One input ---------------------------------------------------------------------- */

static bool copy_cases(merger *m)
{
    sqlite3_stmt *st = stmt(m, M_CASE_OFFSET);
    if (!st || sqlite3_step(st) != SQLITE_ROW)
        return sql_failed(m, "numbering the cases");
    int64_t offset = sqlite3_column_int64(st, 0);
    st = stmt(m, M_CASES_COPY);
    if (st)
        sqlite3_bind_int64(st, 1, offset);
    if (!done(m, st, "copying the cases"))
        return false;
    st = stmt(m, M_RESULTS_COPY);
    if (st)
        sqlite3_bind_int64(st, 1, offset);
    return done(m, st, "copying the results");
}

/* Merges the database at `readable` (an input, or its migrated copy) into the output. */
static bool merge_one(merger *m, const char *readable)
{
    char *uri = store_read_uri(readable); /* read-only, so ATTACH never writes the input */
    if (!uri)
        return err_set(m->err, "out of memory");
    sqlite3_stmt *attach = stmt(m, M_ATTACH);
    if (attach)
        sqlite3_bind_text(attach, 1, uri, -1, SQLITE_TRANSIENT);
    free(uri);
    if (!done(m, attach, "attaching it"))
        return false;
    /* One transaction per input (SQLite detaches no database inside one); the output is a
     * temporary file until every input is in, so none of this is seen half-done. */
    bool ok = done(m, stmt(m, M_BEGIN), "starting")
        && exec_all(m, M_MAPS_CLEAR, "clearing the id maps")
        && done(m, stmt(m, M_DEVICES_COPY), "copying the devices")
        && done(m, stmt(m, M_DEVICE_MAP), "mapping the devices")
        && merge_runs(m) && copy_cases(m) && merge_signatures(m);
    /* A statement still reading src keeps it attached: reset them all first. */
    for (int q = 0; q < M_COUNT; q++)
        if (m->stmt[q])
            sqlite3_reset(m->stmt[q]);
    ok = ok && done(m, stmt(m, M_COMMIT), "committing");
    if (!ok)
        sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
    return done(m, stmt(m, M_DETACH), "detaching it") && ok;
}

/* Checks the input and merges it, through a migrated copy when its schema is older. */
static bool merge_input(merger *m, const char *path, const char *copy_path)
{
    int version = 0;
    m->input = path;
    if (!store_check_readable(path, &version, m->err))
        return false;
    if (version == STORE_SCHEMA_VERSION)
        return merge_one(m, path);
    bool ok = store_copy_migrated(path, copy_path, m->err) && merge_one(m, copy_path);
    store_remove_files(copy_path);
    return ok;
}

/* ---- Output ------------------------------------------------------------------------- */

/* No file is given twice, under one name or two (a link): its cases would count twice. */
static bool inputs_distinct(const char *const *inputs, size_t count, dmlc_error *err)
{
    for (size_t i = 0; i < count; i++) {
        struct stat a, b;
        if (stat(inputs[i], &a) != 0)
            continue; /* the input's own check says what is wrong with it */
        for (size_t k = 0; k < i; k++)
            if (stat(inputs[k], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                return err_set(err, "%s and %s are the same database file: its cases would count "
                               "twice; give each database once", inputs[k], inputs[i]);
    }
    return true;
}

/* OUT may be written when it does not exist, is empty, or replace is set; never when it is
 * one of the inputs. */
static bool output_allowed(const char *out, const char *const *inputs, size_t count, bool replace,
                           dmlc_error *err)
{
    struct stat o, in;
    if (stat(out, &o) != 0)
        return errno == ENOENT || err_set(err, "%s: %s", out, strerror(errno));
    for (size_t i = 0; i < count; i++)
        if (stat(inputs[i], &in) == 0 && in.st_dev == o.st_dev && in.st_ino == o.st_ino)
            return err_set(err, "%s is also an input: write the merge to another file", out);
    if (!S_ISREG(o.st_mode))
        return err_set(err, "%s exists and is not a file", out);
    if (o.st_size > 0 && !replace)
        return err_set(err, "%s exists (%lld bytes); merge writes a new file: remove it, name "
                       "another, or pass --force to replace it", out, (long long)o.st_size);
    return true;
}

static void note_missing_shards(merger *m, FILE *notes)
{
    sqlite3_stmt *st;
    if (!notes || sqlite3_prepare_v2(m->db,
            "SELECT id, seed, json_extract(options, '$.shard.count'),"
            " json_array_length(options, '$.shard.indices') FROM main.runs"
            " WHERE json_array_length(options, '$.shard.indices') < json_extract(options, '$.shard.count')",
            -1, &st, NULL) != SQLITE_OK)
        return;
    char seed[96]; /* an input's text: shown on a terminal as text */
    while (sqlite3_step(st) == SQLITE_ROW)
        fprintf(notes, "dmlcheck merge: note: run %" PRId64 " (seed %s) holds %" PRId64 " of its %"
                PRId64 " shards; its report covers those shards' cases only\n",
                (int64_t)sqlite3_column_int64(st, 0),
                err_printable(text_of(st, 1) ? text_of(st, 1) : "", false, seed, sizeof seed),
                (int64_t)sqlite3_column_int64(st, 3), (int64_t)sqlite3_column_int64(st, 2));
    sqlite3_finalize(st);
}

static bool merge_into(merger *m, const char *const *inputs, size_t count, const char *temp,
                       FILE *notes, merge_summary *sum)
{
    char copy_path[4224]; /* temp is below 4200 bytes (merge_databases) */
    snprintf(copy_path, sizeof copy_path, "%s.input", temp);
    m->input = temp;
    bool ok = exec_all(m, M_MAPS, "creating the id maps");
    for (size_t i = 0; ok && i < count; i++)
        ok = merge_input(m, inputs[i], copy_path);
    m->input = temp;
    ok = ok && done(m, stmt(m, M_BEGIN), "starting")
        && merge_check_sets(m->db, m->rules, m->err)
        && exec_all(m, M_RENUMBER, "ordering the signatures");
    sqlite3_stmt *st = ok ? stmt(m, M_COUNTS) : NULL;
    if (st && sqlite3_step(st) == SQLITE_ROW) {
        sum->runs_written = (size_t)sqlite3_column_int64(st, 0);
        sum->cases = (uint64_t)sqlite3_column_int64(st, 1);
        sum->signatures = (size_t)sqlite3_column_int64(st, 2);
        sum->devices = (size_t)sqlite3_column_int64(st, 3);
        sqlite3_reset(st);
    } else if (ok) {
        ok = sql_failed(m, "counting");
    }
    if (ok)
        note_missing_shards(m, notes);
    ok = ok && done(m, stmt(m, M_COMMIT), "committing");
    if (!ok)
        sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
    return ok;
}

static const merge_rules default_rules;

/* SQLite's progress callback: a raised stop flag interrupts the statement running. */
static int stop_raised(void *flag)
{
    const volatile sig_atomic_t *stop = flag;
    return *stop != 0;
}

/* The mode a new file gets from open(2) (0666 less the umask), as run's databases have:
 * mkstemp makes 0600. */
static void give_usual_mode(int fd)
{
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
}

bool merge_databases(const char *const *inputs, size_t count, const char *out_path, bool replace,
                     FILE *notes, const volatile sig_atomic_t *stop, merge_summary *summary,
                     dmlc_error *err)
{
    return merge_databases_checked(inputs, count, out_path, replace, &default_rules, notes, stop,
                                   summary, err);
}

bool merge_databases_checked(const char *const *inputs, size_t count, const char *out_path,
                             bool replace, const merge_rules *rules, FILE *notes,
                             const volatile sig_atomic_t *stop, merge_summary *summary,
                             dmlc_error *err)
{
    memset(summary, 0, sizeof *summary);
    if (!count)
        return err_set(err, "no input databases");
    if (!inputs_distinct(inputs, count, err) || !output_allowed(out_path, inputs, count, replace, err))
        return false;
    char temp[4200];
    if ((size_t)snprintf(temp, sizeof temp, "%s.merging-XXXXXX", out_path) >= sizeof temp - 16)
        return err_set(err, "%s: path too long", out_path);
    int fd = mkstemp(temp);
    if (fd < 0)
        return err_set(err, "cannot create a file beside %s: %s", out_path, strerror(errno));
    give_usual_mode(fd);
    close(fd);
    store *out = store_open(temp, err);
    merger m = { .db = out ? store_connection(out) : NULL, .rules = rules, .err = err };
    if (m.db && stop) /* a stop interrupts SQLite within a few thousand steps */
        sqlite3_progress_handler(m.db, 1000, stop_raised, (void *)(uintptr_t)stop);
    bool ok = out && merge_into(&m, inputs, count, temp, notes, summary);
    for (int q = 0; q < M_COUNT; q++)
        sqlite3_finalize(m.stmt[q]);
    store_close(out); /* the last connection: SQLite folds the WAL into the file */
    if (ok) {
        summary->runs_read = m.runs_read;
        store_remove_files(out_path); /* a stale WAL of a replaced OUT must not apply to ours */
        if (rename(temp, out_path) != 0)
            ok = err_set(err, "cannot rename %s to %s: %s", temp, out_path, strerror(errno));
    }
    if (!ok)
        store_remove_files(temp);
    if (!ok && stop && *stop)
        err_set(err, "stopped by a signal; %s is as it was and no temporary file is left", out_path);
    return ok;
}

bool merge_append(const char *input, const char *out_path, merge_summary *summary,
                  dmlc_error *err)
{
    memset(summary, 0, sizeof *summary);
    store *out = store_open(out_path, err);
    merger m = { .db = out ? store_connection(out) : NULL, .rules = &default_rules, .err = err };
    /* No temporary output: the input goes in as one transaction (merge_one), so a reader of
     * out_path sees all of it or none; out_path's own rows are never rewritten but for the
     * signatures' order (M_RENUMBER). */
    bool ok = out && merge_into(&m, &input, 1, out_path, NULL, summary);
    for (int q = 0; q < M_COUNT; q++)
        sqlite3_finalize(m.stmt[q]);
    store_close(out);
    summary->runs_read = m.runs_read;
    summary->last_run = m.last_run;
    return ok;
}
