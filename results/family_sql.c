/*
 * family_sql.c: the SQL every family query shares (family_sql.h): the reader of a run range,
 * the temporary tables families_find fills once and every family reads, and the NaN cases
 * of a family.  The grouping itself is families.c's.
 */
#include "family_sql.h"

#include "op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generator dimensions compared: how a person reads them and their SQL over
 * temp.family_cases c (constants: never built from input; the JSON ones were evaluated once
 * when the table was filled, see family_tables_fill). */
const family_dimension family_dimensions[] = {
    { "operator", "c.op", false },
    { "level", "c.feature_level", false },
    { "input", "c.input_type", false },
    { "output", "c.output_type", false },
    { "indices", "COALESCE(c.indices_type, 'none')", false },
    { "layout", "c.layout", false },
    { "values", "c.distribution", false },
    { "direction", "c.direction", false },
    { "dilated window", "c.dilated", false },
    { "explicit padding", "c.padded", false },
    { "axes", "c.axis_kind", false },
    { "rank", "c.rank", true },
    { "input elements", "c.elements", true },
};

const size_t family_dimension_count = sizeof family_dimensions / sizeof family_dimensions[0];

/* The rows every family query reads, copied once per families_find: the cases of the run
 * range joined with their results, judged or of a kind, with the operator family and the
 * parameters' JSON already evaluated.  Each family asks about 20 questions of every case;
 * asking them of the join itself cost a full join of the file per question (26 us of CPU per
 * case per report format at 1,000,000 cases, issue 22).  Pooling windows: dilated (a
 * dilation > 1), with explicit padding (start or end; a ceil size pads implicitly, so this
 * one can only say yes or no of the descriptor). */
#define FAMILY_CASES_SQL                                                                    \
    "CREATE TEMP TABLE family_cases AS SELECT c.run_id, c.case_index, c.elements, c.op,"    \
    " c.feature_level, c.input_type, c.output_type, c.indices_type, c.layout,"              \
    " c.distribution, c.axis_kind, c.rank, %s AS module, r.kind, r.verdict, %s AS also_kinds," \
    " json_extract(c.params, '$.direction') AS direction,"                                  \
    " CASE WHEN json_type(c.params, '$.dilations') IS NULL THEN NULL ELSE"                  \
    " (SELECT CASE WHEN max(value) > 1 THEN 'yes' ELSE 'no' END"                            \
    " FROM json_each(c.params, '$.dilations')) END AS dilated,"                             \
    " CASE WHEN json_type(c.params, '$.start_padding') IS NULL THEN NULL ELSE"              \
    " (SELECT CASE WHEN max(value) > 0 THEN 'yes' ELSE 'no' END FROM (SELECT value FROM"    \
    " json_each(c.params, '$.start_padding') UNION ALL SELECT value FROM"                   \
    " json_each(c.params, '$.end_padding'))) END AS padded"                                 \
    " FROM cases c JOIN results r ON r.case_id = c.id WHERE c.run_id BETWEEN ?1 AND ?2"    \
    " AND (r.verdict IN ('pass', 'fail', 'unspecified') OR r.kind IS NOT NULL)"

/* "CASE c.op WHEN 'ARGMIN' THEN 'arg_reduce' ... END" (of `column`), and the operators of a
 * family. */
static void module_expression(const char *column, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "CASE %s", column);
    for (int op = 0; op < OP_COUNT && used < size; op++)
        used += (size_t)snprintf(buf + used, size - used, " WHEN '%s' THEN '%s'", op_table[op].name,
                                 op_table[op].module_name);
    if (used < size)
        snprintf(buf + used, size - used, " ELSE %s END", column);
}

void family_sql_module_operators(const char *module, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (int op = 0; op < OP_COUNT && used < size; op++)
        if (!strcmp(op_table[op].module_name, module))
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "/" : "", op_table[op].name);
    if (!buf[0])
        snprintf(buf, size, "%s", strcmp(module, "*") ? module : "any operator");
}

/* sql prepared with the run range and, when f is given, the family's op, kinds, verdicts and
 * root-cause keys (a statement that reads none of them ignores the binding). */
sqlite3_stmt *family_sql_prepare(const family_reader *rd, const char *sql, const family *f)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(rd->db, sql, -1, &s, NULL) != SQLITE_OK) {
        err_set(rd->err, "reading families: %s", sqlite3_errmsg(rd->db));
        sqlite3_finalize(s);
        return NULL;
    }
    sqlite3_bind_int64(s, 1, rd->lo);
    sqlite3_bind_int64(s, 2, rd->hi);
    if (f) {
        sqlite3_bind_text(s, 3, f->module, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, f->kinds, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 5, f->verdicts, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 8, f->groups ? f->groups : "", -1, SQLITE_STATIC);
    }
    return s;
}

/* Steps s once more; false at the end, and on an error (with err set). */
bool family_sql_step(const family_reader *rd, sqlite3_stmt *s, bool *failed)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE) {
        *failed = true;
        err_set(rd->err, "reading families: %s", sqlite3_errmsg(rd->db));
    }
    return false;
}

/* Runs one statement of no rows with the run range, and f's fields when given, bound (sql: a
 * constant). */
bool family_sql_run(const family_reader *rd, const char *sql, const family *f)
{
    sqlite3_stmt *s = family_sql_prepare(rd, sql, f);
    bool failed = !s;
    if (s)
        family_sql_step(rd, s, &failed);
    sqlite3_finalize(s);
    return !failed;
}

const char *family_sql_text(sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    return t ? (const char *)t : "";
}

/* Whether `table` has column `name` (the run range binds to nothing here, which SQLite
 * allows). */
static bool has_column(family_reader *rd, const char *table, const char *name, bool *has)
{
    sqlite3_stmt *probe = family_sql_prepare(rd, "SELECT count(*) FROM pragma_table_info(?3) WHERE name = ?4",
                                             NULL);
    bool probe_failed = false;
    if (probe) {
        sqlite3_bind_text(probe, 3, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(probe, 4, name, -1, SQLITE_STATIC);
    }
    *has = probe && family_sql_step(rd, probe, &probe_failed) && sqlite3_column_int(probe, 0);
    sqlite3_finalize(probe);
    return probe && !probe_failed;
}


/* Drops the temporary tables of families_find: the connection may be the run's own store,
 * which lives on. */
static bool drop_family_tables(const family_reader *rd)
{
    return family_sql_run(rd, "DROP TABLE IF EXISTS temp.family_cases", NULL)
           && family_sql_run(rd, "DROP TABLE IF EXISTS temp.family_failing", NULL)
           && family_sql_run(rd, "DROP TABLE IF EXISTS temp.family_judged", NULL)
           && family_sql_run(rd, "DROP TABLE IF EXISTS temp.family_rows", NULL)
           && family_sql_run(rd, "DROP TABLE IF EXISTS temp.family_signatures", NULL)
           && family_sql_run(rd, "DROP TABLE IF EXISTS temp.family_inherited", NULL);
}

/* temp.family_signatures: the range's signatures with their operator family and root-cause
 * key (see family.groups): their own when diagnosed ("" undiagnosed), else the key most
 * signatures of their operator family, kind and verdict got, a confirmed one first (as one
 * family took its cause before signatures were diagnosed one by one). */
static bool fill_family_signatures(const family_reader *rd)
{
    char sql[4096];
    snprintf(sql, sizeof sql, "CREATE TEMP TABLE family_signatures AS SELECT s.id, s.backend,"
             " ifnull(s.device_id, 0) AS device, s.op, s.feature_level, s.input_type, s.output_type,"
             " ifnull(s.indices_type, '') AS indices_type, s.layout, s.distribution, s.kind,"
             " s.verdict, CASE WHEN s.kind IN " PROCESS_KINDS " THEN '*' ELSE %s END AS module,"
             " %s AS diagnosis, CASE WHEN %s IS NULL THEN NULL ELSE ifnull(%s, '') END AS key,"
             " s.shrunk_case, %s AS shrunk_mismatch, %s AS nondeterministic FROM signatures s"
             " WHERE s.last_seen_run >= ?1 AND s.first_seen_run <= ?2", rd->module_of_signature,
             rd->has_cause ? "s.diagnosis" : "NULL", rd->has_cause ? "s.diagnosis" : "NULL",
             rd->has_cause ? "s.cause" : "NULL", rd->has_shrunk_mismatch ? "s.shrunk_mismatch" : "NULL",
             rd->has_nondeterministic ? "s.nondeterministic" : "0");
    return family_sql_run(rd, sql, NULL)
           && family_sql_run(rd, "CREATE TEMP TABLE family_inherited AS SELECT module, kind, verdict,"
                             " key FROM (SELECT module, kind, verdict, key, row_number() OVER"
                             " (PARTITION BY module, kind, verdict ORDER BY key = '',"
                             " count(*) DESC, key) AS rank FROM temp.family_signatures"
                             " WHERE key IS NOT NULL GROUP BY module, kind, verdict, key)"
                             " WHERE rank = 1", NULL)
           && family_sql_run(rd, "UPDATE temp.family_signatures SET key = ifnull((SELECT i.key FROM"
                             " temp.family_inherited i WHERE i.module = family_signatures.module"
                             " AND i.kind = family_signatures.kind AND i.verdict ="
                             " family_signatures.verdict), '') WHERE key IS NULL", NULL)
           && family_sql_run(rd, "CREATE INDEX temp.family_signatures_case ON family_signatures(op,"
                             " input_type, kind, verdict, layout, distribution)", NULL);
}

/* The root-cause key of case c (a row of cases or temp.family_cases) failing as `kind` and
 * `verdict`: its signature's in temp.family_signatures, "" when it has none. */
#define CAUSE_KEY_OF_CASE(kind, verdict)                                                    \
    "ifnull((SELECT t.key FROM temp.family_signatures t JOIN runs ru ON ru.id = c.run_id"   \
    " WHERE t.op = c.op AND t.input_type = c.input_type AND t.kind = " kind                 \
    " AND t.verdict = " verdict " AND t.layout = c.layout AND t.distribution ="             \
    " c.distribution AND t.feature_level = c.feature_level AND t.output_type ="             \
    " c.output_type AND t.indices_type = ifnull(c.indices_type, '') AND t.backend ="        \
    " ru.backend AND t.device = ifnull(ru.device_id, 0)), '')"

/* temp.family_cases (FAMILY_CASES_SQL) for the run range, in place of any left before; the
 * rows of a kind among them with their signature's root-cause key (temp.family_failing: every
 * question of one family's cases reads only these), and each dimension's judged cases per
 * operator family and value (temp.family_judged: the contrast every family's needs ask of the
 * whole range, counted once instead of once per family). */
bool family_tables_fill(const family_reader *rd)
{
    char sql[4096];
    snprintf(sql, sizeof sql, FAMILY_CASES_SQL, rd->module_of,
             rd->has_also_kinds ? "r.also_kinds" : "NULL");
    bool ok = drop_family_tables(rd) && family_sql_run(rd, sql, NULL) && fill_family_signatures(rd)
              && family_sql_run(rd, "CREATE TEMP TABLE family_failing AS SELECT c.*,"
                                CAUSE_KEY_OF_CASE("c.kind", "c.verdict") " AS cause_key"
                                " FROM temp.family_cases c WHERE c.kind IS NOT NULL", NULL)
              /* The process kinds are one family across operators (module '*'). */
              && family_sql_run(rd, "UPDATE temp.family_failing SET module = '*' WHERE kind IN "
                                PROCESS_KINDS, NULL)
              && family_sql_run(rd, "CREATE TEMP TABLE family_judged (d, module, v, n)", NULL);
    for (size_t d = 0; ok && d < family_dimension_count; d++) {
        snprintf(sql, sizeof sql, "INSERT INTO temp.family_judged SELECT %zu, c.module, %s,"
                 " COUNT(*) FROM temp.family_cases c WHERE c.verdict IN ('pass', 'fail',"
                 " 'unspecified') GROUP BY 2, 3", d, family_dimensions[d].expr);
        ok = family_sql_run(rd, sql, NULL);
    }
    return ok && family_sql_run(rd, "CREATE INDEX temp.family_judged_d ON family_judged(d, module)", NULL);
}

/* Drops the temporary tables; keeps ok (and the error that made it false). */
bool family_tables_drop(const family_reader *rd, bool ok)
{
    dmlc_error ignored = { "" }, *err = rd->err;
    family_reader quiet = *rd;
    quiet.err = ok ? err : &ignored;
    return drop_family_tables(&quiet) && ok;
}

/* Whether the range holds a failure a family is made of: a run without one (the common case
 * of a long run) needs none of the tables every family reads, which cost a JSON walk a case. */
bool family_tables_any_failure(const family_reader *rd, bool *found)
{
    sqlite3_stmt *s = family_sql_prepare(rd, "SELECT 1 FROM cases c JOIN results r ON r.case_id = c.id"
                                         " WHERE c.run_id BETWEEN ?1 AND ?2 AND r.kind IS NOT NULL"
                                         " AND r.verdict IN ('fail', 'unspecified') LIMIT 1", NULL);
    bool failed = !s;
    *found = s && family_sql_step(rd, s, &failed);
    sqlite3_finalize(s);
    return !failed;
}

/* A family_reader of the run range, with the columns the file's schema version has. */
bool family_reader_open(sqlite3 *db, int64_t run_lo, int64_t run_hi, dmlc_error *err, family_reader *rd)
{
    *rd = (family_reader){ db, run_lo, run_hi, err, "", "", false, false, false, false };
    module_expression("c.op", rd->module_of, sizeof rd->module_of);
    module_expression("s.op", rd->module_of_signature, sizeof rd->module_of_signature);
    /* Columns of schema versions 3 and 4; report reads older files too. */
    return has_column(rd, "signatures", "nondeterministic", &rd->has_nondeterministic)
           && has_column(rd, "signatures", "shrunk_mismatch", &rd->has_shrunk_mismatch)
           && has_column(rd, "results", "also_kinds", &rd->has_also_kinds)
           && has_column(rd, "signatures", "cause", &rd->has_cause);
}

bool families_nan_cases(sqlite3 *db, int64_t run_lo, int64_t run_hi, const family *f,
                        bool (*each)(void *ctx, const family_nan_cases *row, dmlc_error *err),
                        void *ctx, dmlc_error *err)
{
    family_reader rd;
    char sql[4000];
    if (!family_reader_open(db, run_lo, run_hi, err, &rd) || !drop_family_tables(&rd)
        || !fill_family_signatures(&rd))
        return family_tables_drop(&rd, false);
    /* As family_reader.c's Q_NAN_PRINTS (the same subject, operator and type), of the family's cases
     * that are not judged failures (those are left out of the fingerprint already): the cases
     * of its groups, so that two rows of one kind do not share theirs. */
    snprintf(sql, sizeof sql,
             "SELECT ru.backend || ifnull(' on ' || nullif(dv.device, ''), ''), c.op, c.input_type,"
             " count(*), sum(r.nan_policies & 1 != 0), sum(r.nan_policies & 2 != 0),"
             " sum(r.nan_policies & 4 != 0), sum(r.nan_policies & 8 != 0),"
             " sum(r.nan_policies & 16 != 0)"
             " FROM cases c JOIN results r ON r.case_id = c.id JOIN runs ru ON ru.id = c.run_id"
             " LEFT JOIN devices dv ON dv.id = ru.device_id WHERE c.run_id BETWEEN ?1 AND ?2"
             " AND r.verdict <> 'pass' AND r.verdict NOT IN ('fail', 'skip')"
             " AND r.nan_policies IS NOT NULL AND c.input_type IN ('FLOAT32', 'FLOAT16')"
             " AND instr(?8, ',' || CASE WHEN r.kind IN " PROCESS_KINDS " THEN '*' ELSE %s END"
             " || ':' || r.kind || ':' || r.verdict || ':' || " CAUSE_KEY_OF_CASE("r.kind", "r.verdict")
             " || ',') > 0 GROUP BY 1, 2, 3",
             rd.module_of);
    sqlite3_stmt *s = family_sql_prepare(&rd, sql, f);
    if (!s)
        return family_tables_drop(&rd, false);
    bool failed = false;
    while (!failed && family_sql_step(&rd, s, &failed)) {
        family_nan_cases row = { family_sql_text(s, 0), family_sql_text(s, 1), family_sql_text(s, 2),
                                 (uint64_t)sqlite3_column_int64(s, 3), { 0 } };
        for (unsigned p = 0; p < FAMILY_NAN_POLICIES; p++)
            row.explained[p] = (uint64_t)sqlite3_column_int64(s, 4 + (int)p);
        failed = !each(ctx, &row, err);
    }
    sqlite3_finalize(s);
    return family_tables_drop(&rd, !failed);
}
