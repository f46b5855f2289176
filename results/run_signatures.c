/*
 * run_signatures.c: the signatures one run saw (run_signatures.h).  A signature is the run's
 * when a failing or unspecified case of the run has its key (schema.sql: signatures_key);
 * the run's first such case orders them, the order runner.c meets them in.
 */
#include "run_signatures.h"

#include <sqlite3.h>

static const char run_signatures_sql[] =
    "WITH f AS (SELECT c.op, c.feature_level, c.input_type, c.output_type,"
    " ifnull(c.indices_type, '') AS indices, c.layout, c.distribution, x.kind, x.verdict,"
    " min(c.case_index) AS first_index, count(*) AS n FROM cases c"
    " JOIN results x ON x.case_id = c.id WHERE c.run_id = ?1"
    " AND x.verdict IN ('fail', 'unspecified') GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9)"
    " SELECT s.id, s.op, s.feature_level, s.kind, s.verdict, s.first_seen_run = ?1,"
    " f.first_index, f.n, s.input_type FROM signatures s JOIN runs r ON r.id = ?1"
    " JOIN f ON f.op = s.op AND f.feature_level = s.feature_level"
    " AND f.input_type = s.input_type AND f.output_type = s.output_type"
    " AND f.indices = ifnull(s.indices_type, '') AND f.layout = s.layout"
    " AND f.distribution = s.distribution AND f.kind = s.kind AND f.verdict = s.verdict"
    " WHERE s.backend = r.backend AND ifnull(s.device_id, 0) = ifnull(r.device_id, 0)"
    " ORDER BY f.first_index, s.id";

bool run_signatures_each(store *s, int64_t run_id,
                         bool (*fn)(void *ctx, const run_signature_row *row, dmlc_error *err),
                         void *ctx, dmlc_error *err)
{
    sqlite3 *db = store_connection(s);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, run_signatures_sql, -1, &st, NULL) != SQLITE_OK)
        return err_set(err, "reading the run's signatures: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, run_id);
    bool ok = true;
    int rc;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        run_signature_row row = {
            .id = sqlite3_column_int64(st, 0),
            .op = (const char *)sqlite3_column_text(st, 1),
            .feature_level = (const char *)sqlite3_column_text(st, 2),
            .kind = (const char *)sqlite3_column_text(st, 3),
            .verdict = (const char *)sqlite3_column_text(st, 4),
            .is_new = sqlite3_column_int(st, 5) != 0,
            .first_index = (uint64_t)sqlite3_column_int64(st, 6),
            .count = (uint64_t)sqlite3_column_int64(st, 7),
            .input_type = (const char *)sqlite3_column_text(st, 8),
        };
        ok = fn(ctx, &row, err);
    }
    if (ok && rc != SQLITE_DONE)
        ok = err_set(err, "reading the run's signatures: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return ok;
}
