/*
 * merge_sets.c: which sets of shards a merge accepts (merge.h: merge_rules), checked on the
 * output before it is committed.  merge.c joins shards whose seed, build, options, backend
 * and device are all the same; a shard that differs in any of them stays a run of its own.
 * Such a leftover is nearly always a mistake (a shard of another seed, of a build one commit
 * older, with another --case-timeout, or a stale file of an earlier run with another shard
 * count), and its report would show one partial run or another.  So, unless the caller allows
 * mixed runs, an output whose shard runs are not all complete sets is refused when it holds
 * more than one shard run, naming the first field in which two of them differ and the inputs
 * they came from.  Complete sets of different runs stay allowed, as whole runs of two seeds
 * are: nothing is partial there.
 */
#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

/* The fields that make two shards one run, in the order a difference is named. */
static const char *const field_names[] = {
    "shard count", "seed", "git revision (build)", "dmlcheck version", "backend", "device",
    "NaN policy", "strictness", "generator version", "generator options", "claims",
};
#define FIELD_COUNT (sizeof field_names / sizeof field_names[0])
#define COL_OPTIONS (1 + FIELD_COUNT)
#define COL_HELD (COL_OPTIONS + 1)
#define COL_INDICES (COL_HELD + 1)
#define COL_ORIGIN (COL_INDICES + 1)
#define COL_STATUS (COL_ORIGIN + 1)

static const char shard_runs_sql[] =
    "SELECT r.id, json_extract(r.options, '$.shard.count'), r.seed, r.git_revision,"
    " r.dmlcheck_version, r.backend, (SELECT d.device FROM main.devices d WHERE d.id = r.device_id),"
    " r.nan_policy, r.strict, r.gen_version, r.gen_options, r.claims,"
    " json_remove(r.options, '$.shard'), json_array_length(r.options, '$.shard.indices'),"
    " json_extract(r.options, '$.shard.indices'), o.input, r.status FROM main.runs r"
    " LEFT JOIN temp.merge_run_origin o ON o.dst = r.id"
    " WHERE json_extract(r.options, '$.shard') IS NOT NULL ORDER BY r.id";

/* One shard run of the output: its columns as text (copied: the statement moves on). */
typedef struct shard_run {
    char col[COL_STATUS + 1][512];
    bool null[COL_STATUS + 1];
} shard_run;

static void read_run(sqlite3_stmt *st, shard_run *r)
{
    for (int c = 0; c <= (int)COL_STATUS; c++) {
        const unsigned char *t = sqlite3_column_text(st, c);
        r->null[c] = t == NULL;
        snprintf(r->col[c], sizeof r->col[c], "%s", t ? (const char *)t : "none");
    }
}

static bool complete(const shard_run *r)
{
    return !strcmp(r->col[1], r->col[COL_HELD]);
}

/* "shards 0, 1 of 4 (a.sqlite)" */
static const char *describe(const shard_run *r, char *buf, size_t size)
{
    snprintf(buf, size, "shard%s %.100s of %.20s (%s%.160s)", strchr(r->col[COL_INDICES], ',') ? "s" : "",
             r->col[COL_INDICES], r->col[1], r->null[COL_ORIGIN] ? "run " : "",
             r->null[COL_ORIGIN] ? r->col[0] : r->col[COL_ORIGIN]);
    return buf;
}

/* The first option whose value differs, "option case_timeout_ms: 10000 vs 5000", into buf;
 * false when the options are the same. */
static bool option_difference(const char *a_text, const char *b_text, char *buf, size_t size)
{
    json_t *a = json_loads(a_text, 0, NULL), *b = json_loads(b_text, 0, NULL);
    const char *key;
    json_t *va;
    bool found = false;
    for (int pass = 0; pass < 2 && !found && json_is_object(a) && json_is_object(b); pass++) {
        json_object_foreach(pass ? b : a, key, va) {
            json_t *vb = json_object_get(pass ? a : b, key);
            if (vb && json_equal(va, vb))
                continue;
            char *ta = json_dumps(json_object_get(a, key), JSON_ENCODE_ANY | JSON_COMPACT);
            char *tb = json_dumps(json_object_get(b, key), JSON_ENCODE_ANY | JSON_COMPACT);
            snprintf(buf, size, "option %s (%.200s vs %.200s)", key, ta ? ta : "absent",
                     tb ? tb : "absent");
            free(ta);
            free(tb);
            found = true;
            break;
        }
    }
    json_decref(a);
    json_decref(b);
    return found;
}

/* What makes a and b two runs, into buf. */
static void difference(const shard_run *a, const shard_run *b, char *buf, size_t size)
{
    for (size_t f = 0; f < FIELD_COUNT; f++)
        if (strcmp(a->col[1 + f], b->col[1 + f]) || a->null[1 + f] != b->null[1 + f]) {
            snprintf(buf, size, "%s (%.200s vs %.200s)", field_names[f], a->col[1 + f],
                     b->col[1 + f]);
            return;
        }
    if (!option_difference(a->col[COL_OPTIONS], b->col[COL_OPTIONS], buf, size))
        snprintf(buf, size, "their shard lists overlap");
}

static bool refuse_mixed(const shard_run *a, const shard_run *b, dmlc_error *err)
{
    char what[600], da[320], db[320];
    difference(a, b, what, sizeof what);
    return err_set(err, "the inputs hold shards of different runs, %s and %s, which differ in "
                   "%s: merge the shards of one run, or pass --allow-mixed to keep each run "
                   "apart", describe(a, da, sizeof da), describe(b, db, sizeof db), what);
}

/* --expect-shards N: one run, finished, with shards 0..N-1. */
static bool expected_set(sqlite3 *db, unsigned n, size_t shard_runs, const shard_run *first,
                         dmlc_error *err)
{
    sqlite3_stmt *st;
    int64_t runs = -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM main.runs", -1, &st, NULL) == SQLITE_OK
        && sqlite3_step(st) == SQLITE_ROW)
        runs = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    char want[24], d[320];
    snprintf(want, sizeof want, "%u", n);
    if (runs != 1 || shard_runs != 1)
        return err_set(err, "--expect-shards %u: the output would hold %" PRId64 " runs, %zu of "
                       "them sharded, not one run of %u shards", n, runs, shard_runs, n);
    if (strcmp(first->col[1], want) || !complete(first))
        return err_set(err, "--expect-shards %u: the output holds %s", n,
                       describe(first, d, sizeof d));
    if (strcmp(first->col[COL_STATUS], "finished"))
        return err_set(err, "--expect-shards %u: the run is %s, not finished (a shard was "
                       "stopped or failed)", n, first->col[COL_STATUS]);
    return true;
}

bool merge_check_sets(sqlite3 *db, const merge_rules *rules, dmlc_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, shard_runs_sql, -1, &st, NULL) != SQLITE_OK)
        return err_set(err, "checking the shard sets: %s", sqlite3_errmsg(db));
    static const shard_run none;
    shard_run *runs = calloc(2, sizeof *runs); /* the first two, or the first and a partial */
    size_t count = 0;
    bool partial = false, ok = runs != NULL;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        shard_run r;
        read_run(st, &r);
        if (count == 0)
            runs[0] = r;
        else if (count == 1 || (complete(&runs[0]) && complete(&runs[1]) && !complete(&r)))
            runs[1] = r; /* named against the first: a partial one when there is one */
        partial = partial || !complete(&r);
        count++;
    }
    sqlite3_finalize(st);
    if (!runs)
        return err_set(err, "out of memory");
    if (!rules->allow_mixed && count > 1 && partial)
        ok = refuse_mixed(&runs[0], &runs[1], err);
    else if (rules->expect_shards)
        ok = expected_set(db, rules->expect_shards, count, count ? &runs[0] : &none, err);
    free(runs);
    return ok;
}
