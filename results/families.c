/*
 * families.c: families from a results database (families.h).  Every query reads cases joined
 * with results over a range of runs; the dimensions compared are one table, so adding one is
 * adding a row.  A dimension sets a family apart when the family's failures all share one of
 * its values (or, for numbers, lie above or below a bound) while at least FAMILY_CONTRAST of
 * the operator's judged cases outside it ran without this failure: one lucky case is no
 * evidence that the others would not fail.  A bound on a number must also set apart a tenth
 * of the judged cases ("input elements >= 2" says nothing), and a family of fewer than
 * FAMILY_MIN_CASES cases gets no needs: two cases share too much by chance.
 */
#include "families.h"
#include "cause.h"
#include "store.h"

#include "op.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAMILY_CONTRAST 5
#define FAMILY_MIN_CASES 3

/* The generator dimensions compared: how a person reads them and their SQL over
 * temp.family_cases c (constants: never built from input; the JSON ones were evaluated once
 * when the table was filled, see fill_family_cases). */
static const struct {
    const char *label, *expr;
    bool numeric;
} dimensions[] = {
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

/* Each reads temp.family_cases.  ?3 is the family's module ("*": every operator), ?4 its
 * kinds (",a,b,"), ?5 its verdicts (",fail,": one; a root cause's row may hold both). */
#define IN_VERDICTS(column) "instr(?5, ',' || " column " || ',') > 0"
#define IN_KINDS(column) "instr(?4, ',' || " column " || ',') > 0"
/* ?8 its groups (family.groups): the cases of a group of the first grouping, whose module is
 * '*' for the process kinds, carry their signature's root-cause key. */
#define IN_GROUPS(t, key)                                                                    \
    "instr(?8, ',' || " t ".module || ':' || " t ".kind || ':' || " t ".verdict || ':' || "    \
    key " || ',') > 0"
#define FROM_FAMILY " FROM temp.family_failing c WHERE " IN_GROUPS("c", "c.cause_key")
/* The family's rows, as describe() copied them for its questions (temp.family_rows): the
 * same conditions, over the family alone. */
#define FROM_OWN                                                                             \
    " FROM temp.family_rows c WHERE " IN_GROUPS("c", "c.cause_key")
/* The family's signatures (temp.family_signatures t, with their keys). */
#define FROM_SIGNATURES " FROM temp.family_signatures t WHERE " IN_GROUPS("t", "t.key")
/* A family's own judged cases (its hits). */
#define FROM_HITS FROM_OWN " AND c.verdict IN ('pass', 'fail', 'unspecified')"
/* The judged cases of the family's operators per value of dimension ?6 (family_judged). */
#define FROM_DIMENSION                                                                       \
    " FROM temp.family_judged j WHERE j.d = ?6 AND (?3 = '*' OR j.module = ?3)"
/* Kinds the harness sees in the worker process, whichever operator ran: one family each. */
#define PROCESS_KINDS "('crash', 'hang')"

typedef struct reader {
    sqlite3 *db;
    int64_t lo, hi;
    dmlc_error *err;
    char module_of[512]; /* SQL: c.op's operator family, from op_table */
    char module_of_signature[512]; /* the same of s.op */
    bool has_nondeterministic;     /* signatures.nondeterministic exists (schema 3) */
    bool has_shrunk_mismatch;      /* signatures.shrunk_mismatch exists (schema 4) */
    bool has_also_kinds;           /* results.also_kinds exists (schema 4) */
    bool has_cause;                /* signatures.cause and .diagnosis exist (schema 5) */
} reader;

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

static void module_operators(const char *module, char *buf, size_t size)
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
static sqlite3_stmt *prepare(const reader *rd, const char *sql, const family *f)
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
static bool step(const reader *rd, sqlite3_stmt *s, bool *failed)
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
static bool run_statement(const reader *rd, const char *sql, const family *f)
{
    sqlite3_stmt *s = prepare(rd, sql, f);
    bool failed = !s;
    if (s)
        step(rd, s, &failed);
    sqlite3_finalize(s);
    return !failed;
}

static const char *text_at(sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    return t ? (const char *)t : "";
}

static void append_need(family *f, const char *text)
{
    size_t used = strlen(f->needs);
    snprintf(f->needs + used, sizeof f->needs - used, "%s%s", used ? "; " : "", text);
}

/* "only LABEL VALUE" when the family's failures all share one value of a text dimension. */
/* Values of one dimension a family's failures need: the one value, or a set of up to
 * NEED_SET_MAX ("only axes several_shuffled or all_shuffled"), when the operators' judged
 * cases of every other value (at least FAMILY_CONTRAST of them) all passed.  A set is named
 * only for a family of NEED_SET_MIN_CASES or more whose every value in it failed
 * FAMILY_MIN_CASES times: a few cases spread over two values of five say nothing. */
#define NEED_SET_MAX 3
#define NEED_SET_MIN_CASES 30
static bool text_need(const reader *rd, family *f, size_t d)
{
    char sql[1400], need[160], values[NEED_SET_MAX * 40] = "";
    /* Per value: the family's hits, and the judged cases of its operators (counted once
     * for every family in family_judged). */
    snprintf(sql, sizeof sql, "SELECT v, SUM(hits), SUM(n) FROM (SELECT j.v AS v, 0 AS hits,"
             " j.n AS n" FROM_DIMENSION " UNION ALL SELECT %s AS v, COUNT(*), 0" FROM_HITS
             " GROUP BY 1) WHERE v IS NOT NULL GROUP BY v", dimensions[d].expr);
    sqlite3_stmt *s = prepare(rd, sql, f);
    if (!s)
        return false;
    sqlite3_bind_int(s, 6, (int)d);
    unsigned hit_values = 0;
    uint64_t contrast = 0, fewest_hits = UINT64_MAX;
    bool failed = false;
    while (step(rd, s, &failed)) {
        uint64_t hits = (uint64_t)sqlite3_column_int64(s, 1);
        if (hits > 0) {
            fewest_hits = hits < fewest_hits ? hits : fewest_hits;
            if (hit_values++ < NEED_SET_MAX)
                snprintf(values + strlen(values), sizeof values - strlen(values), "%s%.38s",
                         hit_values > 1 ? " or " : "", text_at(s, 0));
        } else {
            contrast += (uint64_t)sqlite3_column_int64(s, 2);
        }
    }
    sqlite3_finalize(s);
    bool telling_set = hit_values <= NEED_SET_MAX && f->cases >= NEED_SET_MIN_CASES
                       && fewest_hits >= FAMILY_MIN_CASES;
    if (!failed && (hit_values == 1 || telling_set) && contrast >= FAMILY_CONTRAST) {
        snprintf(need, sizeof need, "only %s %s", dimensions[d].label, values);
        append_need(f, need);
    }
    return !failed;
}

/* "LABEL >= N" / "LABEL <= N" when the family's failures lie past a bound of a number. */
static bool numeric_need(const reader *rd, family *f, size_t d)
{
    char sql[1800], need[160];
    snprintf(sql, sizeof sql,
             "WITH h AS (SELECT MIN(%s) AS lo, MAX(%s) AS hi" FROM_HITS "), "
             "j AS (SELECT j.v AS v, j.n AS n" FROM_DIMENSION ") "
             "SELECT h.lo, h.hi, (SELECT ifnull(SUM(n), 0) FROM j WHERE v < h.lo), "
             "(SELECT ifnull(SUM(n), 0) FROM j WHERE v > h.hi), (SELECT ifnull(SUM(n), 0) FROM j) FROM h",
             dimensions[d].expr, dimensions[d].expr);
    sqlite3_stmt *s = prepare(rd, sql, f);
    if (!s)
        return false;
    sqlite3_bind_int(s, 6, (int)d);
    bool failed = false;
    if (step(rd, s, &failed) && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        int64_t tenth = sqlite3_column_int64(s, 4) / 10;
        int64_t contrast = tenth > FAMILY_CONTRAST ? tenth : FAMILY_CONTRAST;
        if (sqlite3_column_int64(s, 2) >= contrast) {
            snprintf(need, sizeof need, "%s >= %lld", dimensions[d].label, sqlite3_column_int64(s, 0));
            append_need(f, need);
        }
        if (sqlite3_column_int64(s, 3) >= contrast) {
            snprintf(need, sizeof need, "%s <= %lld", dimensions[d].label, sqlite3_column_int64(s, 1));
            append_need(f, need);
        }
    }
    sqlite3_finalize(s);
    return !failed;
}

/* The breakdown's dimensions: how a person reads them and their SQL over `cases c`. */
static const struct {
    const char *label, *expr;
} spreads[] = {
    { "input", "c.input_type" }, { "layout", "c.layout" }, { "values", "c.distribution" },
};
#define SPREAD_VALUES 4

/* "LABEL V1 N1, V2 N2, ..." for the family's most common values of one dimension. */
static bool spread(const reader *rd, family *f, const char *label, const char *expr)
{
    char sql[1400];
    snprintf(sql, sizeof sql, "SELECT %s, COUNT(*)" FROM_OWN " GROUP BY 1 ORDER BY 2 DESC, 1",
             expr);
    sqlite3_stmt *s = prepare(rd, sql, f);
    if (!s)
        return false;
    size_t used = strlen(f->breakdown), shown = 0, rest = 0;
    used += (size_t)snprintf(f->breakdown + used, sizeof f->breakdown - used, "%s%s",
                             used ? "; " : "", label);
    bool failed = false;
    while (step(rd, s, &failed) && used < sizeof f->breakdown) {
        if (shown++ < SPREAD_VALUES)
            used += (size_t)snprintf(f->breakdown + used, sizeof f->breakdown - used, "%s %s %lld",
                                     shown > 1 ? "," : "", text_at(s, 0), sqlite3_column_int64(s, 1));
        else
            rest++;
    }
    if (rest && used < sizeof f->breakdown)
        snprintf(f->breakdown + used, sizeof f->breakdown - used, ", %zu more", rest);
    sqlite3_finalize(s);
    return !failed;
}

/* Signatures and the smallest case of the family. */
static bool describe(const reader *rd, family *f)
{
    char sql[1400];
    /* Some 25 questions read the family's rows: they read a copy of them alone. */
    if (!run_statement(rd, "DROP TABLE IF EXISTS temp.family_rows", NULL))
        return false;
    if (!run_statement(rd, "CREATE TEMP TABLE family_rows AS SELECT *" FROM_FAMILY, f))
        return false;
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM (SELECT DISTINCT c.op, c.feature_level, "
             "c.input_type, c.output_type, c.indices_type, c.layout, c.distribution" FROM_OWN ")");
    sqlite3_stmt *s = prepare(rd, sql, f);
    bool failed = false;
    if (!s)
        return false;
    if (step(rd, s, &failed))
        f->signatures = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    snprintf(sql, sizeof sql, "SELECT c.run_id, c.case_index, c.elements" FROM_OWN
             " ORDER BY c.elements, c.run_id, c.case_index LIMIT 1");
    s = failed ? NULL : prepare(rd, sql, f);
    if (!s)
        return false;
    if (step(rd, s, &failed)) {
        f->run_id = sqlite3_column_int64(s, 0);
        f->case_index = (uint64_t)sqlite3_column_int64(s, 1);
        f->elements = (uint64_t)sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    snprintf(sql, sizeof sql, "SELECT t.shrunk_case, t.shrunk_mismatch" FROM_SIGNATURES
             " AND t.shrunk_case IS NOT NULL"
             /* Of the family's own verdict and kind first: its shrunk case fails as it says. */
             " ORDER BY t.verdict = ?6 DESC, t.kind = ?7 DESC, length(t.shrunk_case) LIMIT 1");
    s = failed ? NULL : prepare(rd, sql, f);
    if (!s)
        return false;
    sqlite3_bind_text(s, 6, f->verdict, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, f->kind, -1, SQLITE_STATIC);
    if (step(rd, s, &failed)) {
        f->shrunk_case = strdup(text_at(s, 0));
        f->shrunk_mismatch = sqlite3_column_type(s, 1) == SQLITE_NULL ? NULL : strdup(text_at(s, 1));
        if (!f->shrunk_case || (sqlite3_column_type(s, 1) != SQLITE_NULL && !f->shrunk_mismatch))
            failed = !err_set(rd->err, "out of memory reading a shrunk case");
    }
    sqlite3_finalize(s);
    snprintf(sql, sizeof sql, "SELECT count(*)" FROM_SIGNATURES " AND t.nondeterministic = 1");
    s = failed ? NULL : prepare(rd, sql, f);
    if (!s)
        return false;
    if (s && step(rd, s, &failed))
        f->nondeterministic = sqlite3_column_int64(s, 0) > 0;
    sqlite3_finalize(s);
    for (size_t d = 0; !failed && d < sizeof spreads / sizeof spreads[0]; d++)
        failed = !spread(rd, f, spreads[d].label, spreads[d].expr);
    if (!failed && strchr(f->kinds + 1, ',') != strrchr(f->kinds, ','))
        failed = !spread(rd, f, "kind", "c.kind");
    for (size_t d = 0; !failed && f->cases >= FAMILY_MIN_CASES
                       && d < sizeof dimensions / sizeof dimensions[0]; d++)
        failed = !(dimensions[d].numeric ? numeric_need(rd, f, d) : text_need(rd, f, d));
    return !failed;
}

/* Adds to set `into` (",a,b,": kinds, root-cause keys) each item of set `more` it lacks;
 * false, leaving `into` as it was, when the union would not fit.  A set, not a list: a row
 * that absorbs many families of the same kinds (one cause over every operator) must not run
 * out of room and stay split. */
static bool set_union(char *into, size_t size, const char *more)
{
    char merged[sizeof ((family *)0)->kinds];
    snprintf(merged, sizeof merged, "%s", into);
    for (const char *k = more + 1; *k; ) {
        const char *end = strchr(k, ',');
        size_t n = end ? (size_t)(end - k) : strlen(k);
        char item[sizeof ((family *)0)->cause + 4];
        if (n + 3 > sizeof item)
            return false;
        snprintf(item, sizeof item, ",%.*s,", (int)n, k);
        size_t used = strlen(merged);
        if (!strstr(merged, item)) {
            if (used + n + 2 > sizeof merged || used + n + 2 > size)
                return false;
            snprintf(merged + used, sizeof merged - used, "%.*s,", (int)n, k);
        }
        k = end ? end + 1 : k + n;
    }
    snprintf(into, size, "%s", merged);
    return true;
}

/* Whether every case of f shows the evidence of `kind` too (results.also_kinds). */
static bool all_explained_by(const reader *rd, family *f, const char *kind, bool *yes)
{
    char sql[1400];
    snprintf(sql, sizeof sql, "SELECT COUNT(*)" FROM_FAMILY " AND instr(',' || ifnull(c.also_kinds, '')"
             " || ',', ',' || ?6 || ',') > 0");
    sqlite3_stmt *s = prepare(rd, sql, f);
    bool failed = false;
    if (!s)
        return false;
    sqlite3_bind_text(s, 6, kind, -1, SQLITE_STATIC);
    *yes = step(rd, s, &failed) && (uint64_t)sqlite3_column_int64(s, 0) == f->cases;
    sqlite3_finalize(s);
    return !failed;
}

/* Moves f's groups to the end of g's (f joins g); false when memory runs out. */
static bool move_groups(const reader *rd, family *g, family *f)
{
    size_t have = g->groups ? strlen(g->groups) : 0, more = f->groups ? strlen(f->groups) : 0;
    char *joined = more ? realloc(g->groups, have + more + 1) : g->groups;
    if (more && !joined)
        return err_set(rd->err, "out of memory reading families");
    if (more)
        memcpy(joined + have, f->groups + (have ? 1 : 0), more + (have ? 0 : 1));
    g->groups = joined;
    free(f->groups);
    f->groups = NULL;
    return true;
}

/* Judged failures first, then by case count (the list's order). */
static int family_order(const void *pa, const void *pb)
{
    const family *a = pa, *b = pb;
    bool fa = !strcmp(a->verdict, "fail"), fb = !strcmp(b->verdict, "fail");
    if (fa != fb)
        return fa ? -1 : 1;
    return (a->cases < b->cases) - (a->cases > b->cases);
}

/* Puts the list in family_order.  An empty list's items may be NULL, which qsort must not
 * get even for 0 elements (its arguments are declared nonnull: UBSan reports it). */
static void sort_families(family_list *l)
{
    if (l->count)
        qsort(l->items, l->count, sizeof *l->items, family_order);
}

/* 2 for a diagnosis with its probes, 1 for one that names the bug explaining it (a signature
 * another's bug explains stores no probes: run_diagnose.c), 0 for none. */
static int probed_rank(const char *diagnosis)
{
    return !diagnosis ? 0 : strstr(diagnosis, "\"same_bug_as\"") ? 1 : 2;
}

/* When f joins g (the same cause: joins never mix causes), g keeps the evidence that shows the
 * most, its probes before another's verdict; f's is freed. */
static void keep_best_diagnosis(family *g, family *f)
{
    if (probed_rank(f->diagnosis) > probed_rank(g->diagnosis)) {
        free(g->diagnosis);
        g->diagnosis = f->diagnosis;
        f->diagnosis = NULL;
    }
    free(f->diagnosis);
    f->diagnosis = NULL;
}

/* Joins each family whose every case another family's kind explains too (same operator family
 * and verdict) to that family: one bug, one row.  Smallest first, each to the largest family
 * that explains it and has not joined another; a family's kind is then that of most of its
 * cases. */
static bool join_explained(const reader *rd, family_list *l)
{
    if (!rd->has_also_kinds || l->count < 2)
        return true;
    bool *joined = calloc(l->count, sizeof *joined);
    uint64_t *own = calloc(l->count, sizeof *own); /* cases of the kind it is named by */
    if (!joined || !own) {
        free(joined);
        free(own);
        return err_set(rd->err, "out of memory reading families");
    }
    for (size_t i = 0; i < l->count; i++)
        own[i] = l->items[i].cases;
    bool ok = true;
    for (size_t i = l->count; ok && i-- > 0;) { /* the list is largest first */
        family *f = &l->items[i];
        size_t host = l->count;
        for (size_t j = 0; ok && j < l->count; j++) {
            family *g = &l->items[j];
            bool yes = false;
            if (j == i || joined[j] || strcmp(g->module, f->module) || strcmp(g->verdict, f->verdict)
                || strcmp(g->cause, f->cause)
                || (host < l->count && l->items[host].cases >= g->cases))
                continue;
            ok = all_explained_by(rd, f, g->kind, &yes);
            host = yes ? j : host;
        }
        family *g = host < l->count ? &l->items[host] : NULL;
        if (!ok || !g || !set_union(g->kinds, sizeof g->kinds, f->kinds))
            continue;
        if (!(ok = move_groups(rd, g, f)))
            break;
        g->cases += f->cases;
        if (own[i] > own[host]) {
            snprintf(g->kind, sizeof g->kind, "%s", f->kind);
            own[host] = own[i];
        }
        keep_best_diagnosis(g, f);
        joined[i] = true;
    }
    size_t kept = 0;
    for (size_t i = 0; i < l->count; i++)
        if (!joined[i])
            l->items[kept++] = l->items[i];
    l->count = kept;
    sort_families(l);
    free(joined);
    free(own);
    return ok;
}

/* Kinds that name no root cause: what is left when no evidence shows (classify.c's fallback;
 * wrong_index is also a root-cause row, whose evidence is weak: an index and a value that
 * disagree). */
static bool weak_kind(const family *f)
{
    return !strcmp(f->kinds, ",wrong_index,") || !strcmp(f->kinds, ",value_bits_differ,");
}

/* Whether every "; "-separated item of `items` is one of `of`'s. */
static bool needs_include(const char *of, const char *items)
{
    char want[sizeof ((family *)0)->needs], have[sizeof want + 4];
    snprintf(have, sizeof have, "; %s; ", of);
    for (const char *at = items; *at;) {
        const char *end = strstr(at, "; ");
        size_t len = end ? (size_t)(end - at) : strlen(at);
        snprintf(want, sizeof want, "; %.*s; ", (int)len, at);
        if (!strstr(have, want))
            return false;
        at += len + (end ? 2 : 0);
    }
    return true;
}

/* Whether needs name a feature beyond the operators ("only operator X" alone says little). */
static bool telling_needs(const char *needs)
{
    for (const char *at = needs; *at;) {
        if (strncmp(at, "only operator ", 14))
            return true;
        const char *end = strstr(at, "; ");
        at = end ? end + 2 : at + strlen(at);
    }
    return false;
}

/* Whether f, by its needs, is the bug of host g: the same operator family and verdict, and g's
 * needs tell something beyond the operators; then a family of a weak kind that needs all g
 * needs (and maybe more), or one of a root-cause kind that needs exactly what g needs. */
static bool same_bug_by_needs(const family *f, const family *g)
{
    if (strcmp(g->module, f->module) || strcmp(g->verdict, f->verdict) || strcmp(g->cause, f->cause)
        || weak_kind(g)
        || !telling_needs(g->needs) || !needs_include(f->needs, g->needs))
        return false;
    return weak_kind(f) || needs_include(g->needs, f->needs);
}

/* Family i of l joins host g (one bug): its kinds and cases are g's, g is described again
 * over the whole (its smallest case, needs and spread), and i leaves the list. */
static bool absorb(const reader *rd, family_list *l, size_t i, family *g)
{
    family *f = &l->items[i];
    if (!move_groups(rd, g, f))
        return false;
    g->cases += f->cases;
    g->nondeterministic |= f->nondeterministic;
    free(g->shrunk_case);
    free(g->shrunk_mismatch);
    g->shrunk_case = g->shrunk_mismatch = NULL;
    g->needs[0] = g->breakdown[0] = 0;
    bool ok = describe(rd, g);
    keep_best_diagnosis(g, f);
    free(f->shrunk_case);
    free(f->shrunk_mismatch);
    memmove(f, f + 1, (l->count - i - 1) * sizeof *f);
    l->count--;
    return ok;
}

/* A family that by its needs is the bug of a larger family joins it (same_bug_by_needs):
 * bug=dilation returns a smaller element of the window as often as one from outside it, and
 * every family of it needs a dilated window.  The host is described again over its cases. */
static bool join_by_needs(const reader *rd, family_list *l)
{
    bool ok = true;
    for (size_t i = l->count; ok && i-- > 0;) {
        family *f = &l->items[i];
        for (size_t j = 0; j < i; j++) { /* larger families come first */
            family *g = &l->items[j];
            if (!same_bug_by_needs(f, g) || !set_union(g->kinds, sizeof g->kinds, f->kinds))
                continue;
            ok = absorb(rd, l, i, g);
            break;
        }
    }
    if (ok)
        sort_families(l);
    return ok;
}

/* Whether any of f's signatures was diagnosed, and the evidence of one (the first probed):
 * a family is keyed by its signatures' root cause (fill_family_cases), so any holds it. */
static bool read_diagnosis(const reader *rd, family *f)
{
    /* One with probes first: a signature another's bug explains stores no probes. */
    sqlite3_stmt *s = prepare(rd, "SELECT t.diagnosis" FROM_SIGNATURES " AND t.diagnosis IS NOT NULL"
                              " ORDER BY instr(t.diagnosis, '\"same_bug_as\"') > 0, t.id LIMIT 1", f);
    bool failed = !s;
    if (s && step(rd, s, &failed)) {
        f->diagnosed = true;
        if (!(f->diagnosis = strdup(text_at(s, 0))))
            failed = !err_set(rd->err, "out of memory reading a diagnosis");
    }
    sqlite3_finalize(s);
    return !failed;
}

/* "A, B" of two "/"-joined operator lists, each operator once. */
static void join_operators(char *into, size_t size, const char *more)
{
    char item[48];
    for (const char *at = more; *at;) {
        size_t len = strcspn(at, "/");
        snprintf(item, sizeof item, "%.*s", (int)len, at);
        bool have = false;
        for (const char *p = strstr(into, item); p && !have; p = strstr(p + 1, item))
            have = (p == into || p[-1] == '/') && (p[len] == 0 || p[len] == '/');
        if (!have && strlen(into) + len + 2 < size)
            snprintf(into + strlen(into), size - strlen(into), "/%s", item);
        at += len + (at[len] == '/');
    }
}

/* Families whose signatures probing confirmed as the same root cause are one bug: one row,
 * across operator families (a shared compare touches ARGMAX and MAX_POOLING2 alike) and
 * verdicts (its NaN cases are unspecified, its others judged).  The larger family hosts; its
 * smallest case and needs are read again over the whole. */
static bool join_by_cause(const reader *rd, family_list *l)
{
    bool ok = true;
    for (size_t i = l->count; ok && i-- > 0;) {
        family *f = &l->items[i];
        for (size_t j = 0; f->cause[0] && j < i; j++) { /* larger and judged families first */
            family *g = &l->items[j];
            if (!cause_keys_same_bug(g->cause, f->cause)
                || !set_union(g->kinds, sizeof g->kinds, f->kinds))
                continue;
            if (cause_key_preferred(g->cause, f->cause) == f->cause) /* named by one bug */
                snprintf(g->cause, sizeof g->cause, "%s", f->cause);
            if (!strstr(g->verdicts, f->verdict))
                snprintf(g->verdicts + strlen(g->verdicts), sizeof g->verdicts - strlen(g->verdicts),
                         "%s,", f->verdict);
            if (strcmp(g->module, f->module)) {
                snprintf(g->module, sizeof g->module, "*");
                join_operators(g->op, sizeof g->op, f->op);
            }
            ok = absorb(rd, l, i, g);
            break;
        }
    }
    if (ok)
        sort_families(l);
    return ok;
}

static bool grow(family_list *l, size_t *cap)
{
    if (l->count < *cap)
        return true;
    size_t n = *cap ? 2 * *cap : 16;
    family *items = realloc(l->items, n * sizeof *items);
    if (!items)
        return false;
    l->items = items;
    *cap = n;
    return true;
}

/* Whether `table` has column `name` (the run range binds to nothing here, which SQLite
 * allows). */
static bool has_column(reader *rd, const char *table, const char *name, bool *has)
{
    sqlite3_stmt *probe = prepare(rd, "SELECT count(*) FROM pragma_table_info(?3) WHERE name = ?4",
                                  NULL);
    bool probe_failed = false;
    if (probe) {
        sqlite3_bind_text(probe, 3, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(probe, 4, name, -1, SQLITE_STATIC);
    }
    *has = probe && step(rd, probe, &probe_failed) && sqlite3_column_int(probe, 0);
    sqlite3_finalize(probe);
    return probe && !probe_failed;
}


/* Drops the temporary tables of families_find: the connection may be the run's own store,
 * which lives on. */
static bool drop_family_tables(const reader *rd)
{
    return run_statement(rd, "DROP TABLE IF EXISTS temp.family_cases", NULL)
           && run_statement(rd, "DROP TABLE IF EXISTS temp.family_failing", NULL)
           && run_statement(rd, "DROP TABLE IF EXISTS temp.family_judged", NULL)
           && run_statement(rd, "DROP TABLE IF EXISTS temp.family_rows", NULL)
           && run_statement(rd, "DROP TABLE IF EXISTS temp.family_signatures", NULL)
           && run_statement(rd, "DROP TABLE IF EXISTS temp.family_inherited", NULL);
}

/* temp.family_signatures: the range's signatures with their operator family and root-cause
 * key (see family.groups): their own when diagnosed ("" undiagnosed), else the key most
 * signatures of their operator family, kind and verdict got, a confirmed one first (as one
 * family took its cause before signatures were diagnosed one by one). */
static bool fill_family_signatures(const reader *rd)
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
    return run_statement(rd, sql, NULL)
           && run_statement(rd, "CREATE TEMP TABLE family_inherited AS SELECT module, kind, verdict,"
                                " key FROM (SELECT module, kind, verdict, key, row_number() OVER"
                                " (PARTITION BY module, kind, verdict ORDER BY key = '',"
                                " count(*) DESC, key) AS rank FROM temp.family_signatures"
                                " WHERE key IS NOT NULL GROUP BY module, kind, verdict, key)"
                                " WHERE rank = 1", NULL)
           && run_statement(rd, "UPDATE temp.family_signatures SET key = ifnull((SELECT i.key FROM"
                                " temp.family_inherited i WHERE i.module = family_signatures.module"
                                " AND i.kind = family_signatures.kind AND i.verdict ="
                                " family_signatures.verdict), '') WHERE key IS NULL", NULL)
           && run_statement(rd, "CREATE INDEX temp.family_signatures_case ON family_signatures(op,"
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
static bool fill_family_cases(const reader *rd)
{
    char sql[4096];
    snprintf(sql, sizeof sql, FAMILY_CASES_SQL, rd->module_of,
             rd->has_also_kinds ? "r.also_kinds" : "NULL");
    bool ok = drop_family_tables(rd) && run_statement(rd, sql, NULL) && fill_family_signatures(rd)
              && run_statement(rd, "CREATE TEMP TABLE family_failing AS SELECT c.*,"
                                   CAUSE_KEY_OF_CASE("c.kind", "c.verdict") " AS cause_key"
                                   " FROM temp.family_cases c WHERE c.kind IS NOT NULL", NULL)
              /* The process kinds are one family across operators (module '*'). */
              && run_statement(rd, "UPDATE temp.family_failing SET module = '*' WHERE kind IN "
                                   PROCESS_KINDS, NULL)
              && run_statement(rd, "CREATE TEMP TABLE family_judged (d, module, v, n)", NULL);
    for (size_t d = 0; ok && d < sizeof dimensions / sizeof dimensions[0]; d++) {
        snprintf(sql, sizeof sql, "INSERT INTO temp.family_judged SELECT %zu, c.module, %s,"
                 " COUNT(*) FROM temp.family_cases c WHERE c.verdict IN ('pass', 'fail',"
                 " 'unspecified') GROUP BY 2, 3", d, dimensions[d].expr);
        ok = run_statement(rd, sql, NULL);
    }
    return ok && run_statement(rd, "CREATE INDEX temp.family_judged_d ON family_judged(d, module)", NULL);
}

/* Drops the temporary tables; keeps ok (and the error that made it false). */
static bool drop_family_cases(const reader *rd, bool ok)
{
    dmlc_error ignored = { "" }, *err = rd->err;
    reader quiet = *rd;
    quiet.err = ok ? err : &ignored;
    return drop_family_tables(&quiet) && ok;
}

/* Whether the range holds a failure a family is made of: a run without one (the common case
 * of a long run) needs none of the tables every family reads, which cost a JSON walk a case. */
static bool has_failures(const reader *rd, bool *found)
{
    sqlite3_stmt *s = prepare(rd, "SELECT 1 FROM cases c JOIN results r ON r.case_id = c.id"
                              " WHERE c.run_id BETWEEN ?1 AND ?2 AND r.kind IS NOT NULL"
                              " AND r.verdict IN ('fail', 'unspecified') LIMIT 1", NULL);
    bool failed = !s;
    *found = s && step(rd, s, &failed);
    sqlite3_finalize(s);
    return !failed;
}

/* The family whose groups hold ",module:kind:verdict:key,", or l->count. */
static size_t family_of_group(const family_list *l, const char *group)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].groups && strstr(l->items[i].groups, group))
            return i;
    return l->count;
}

/* Each failing signature's family (family_list.signature_family), by its group: the key it
 * was grouped by, its own or the one it took (temp.family_signatures). */
static bool map_signatures(const reader *rd, family_list *l)
{
    sqlite3_stmt *s = prepare(rd, "SELECT id, module, kind, verdict, key FROM temp.family_signatures"
                              " WHERE verdict IN ('fail', 'unspecified') ORDER BY id", NULL);
    bool failed = !s;
    size_t cap = 0;
    while (!failed && step(rd, s, &failed)) {
        char group[sizeof l->items->module + sizeof l->items->kind + sizeof l->items->cause + 32];
        snprintf(group, sizeof group, ",%s:%s:%s:%s,", text_at(s, 1), text_at(s, 2),
                 text_at(s, 3), text_at(s, 4));
        size_t at = family_of_group(l, group);
        if (at == l->count)
            continue;
        if (l->signature_count == cap) {
            size_t more = cap ? 2 * cap : 64;
            int64_t *ids = realloc(l->signature_ids, more * sizeof *ids);
            if (ids)
                l->signature_ids = ids;
            size_t *of = ids ? realloc(l->signature_family, more * sizeof *of) : NULL;
            if (!of) {
                failed = !err_set(rd->err, "out of memory reading families");
                break;
            }
            l->signature_family = of;
            cap = more;
        }
        l->signature_ids[l->signature_count] = sqlite3_column_int64(s, 0);
        l->signature_family[l->signature_count++] = at;
    }
    sqlite3_finalize(s);
    return !failed;
}

/* A reader of the run range, with the columns the file's schema version has. */
static bool open_reader(sqlite3 *db, int64_t run_lo, int64_t run_hi, dmlc_error *err, reader *rd)
{
    *rd = (reader){ db, run_lo, run_hi, err, "", "", false, false, false, false };
    module_expression("c.op", rd->module_of, sizeof rd->module_of);
    module_expression("s.op", rd->module_of_signature, sizeof rd->module_of_signature);
    /* Columns of schema versions 3 and 4; report reads older files too. */
    return has_column(rd, "signatures", "nondeterministic", &rd->has_nondeterministic)
           && has_column(rd, "signatures", "shrunk_mismatch", &rd->has_shrunk_mismatch)
           && has_column(rd, "results", "also_kinds", &rd->has_also_kinds)
           && has_column(rd, "signatures", "cause", &rd->has_cause);
}

bool families_find(sqlite3 *db, int64_t run_lo, int64_t run_hi, family_list *out, dmlc_error *err)
{
    reader rd;
    if (!open_reader(db, run_lo, run_hi, err, &rd))
        return false;
    *out = (family_list){ 0 };
    bool any = false;
    if (!has_failures(&rd, &any))
        return false;
    if (!any)
        return true;
    if (!fill_family_cases(&rd))
        return false;
    sqlite3_stmt *s = prepare(&rd, "SELECT c.module, c.kind, c.verdict, COUNT(*), c.cause_key"
                              " FROM temp.family_failing c WHERE c.verdict IN ('fail', 'unspecified')"
                              " GROUP BY c.module, c.kind, c.verdict, c.cause_key ORDER BY"
                              " c.verdict = 'fail' DESC, COUNT(*) DESC, c.module, c.kind, c.cause_key", NULL);
    if (!s)
        return drop_family_cases(&rd, false);
    size_t cap = 0;
    bool failed = false;
    while (!failed && step(&rd, s, &failed)) {
        if (!grow(out, &cap)) {
            failed = !err_set(err, "out of memory reading families");
            break;
        }
        family *f = &out->items[out->count++];
        memset(f, 0, sizeof *f);
        snprintf(f->module, sizeof f->module, "%s", text_at(s, 0));
        module_operators(f->module, f->op, sizeof f->op);
        snprintf(f->kind, sizeof f->kind, "%s", text_at(s, 1));
        snprintf(f->kinds, sizeof f->kinds, ",%s,", f->kind);
        snprintf(f->verdict, sizeof f->verdict, "%s", text_at(s, 2));
        snprintf(f->verdicts, sizeof f->verdicts, ",%s,", f->verdict);
        f->cases = (uint64_t)sqlite3_column_int64(s, 3);
        snprintf(f->cause, sizeof f->cause, "%s", text_at(s, 4));
        if (asprintf(&f->groups, ",%s:%s:%s:%s,", f->module, f->kind, f->verdict, f->cause) < 0) {
            f->groups = NULL;
            failed = !err_set(err, "out of memory reading families");
        }
    }
    sqlite3_finalize(s);
    for (size_t i = 0; !failed && i < out->count; i++)
        failed = !read_diagnosis(&rd, &out->items[i]);
    failed = failed || !join_explained(&rd, out);
    for (size_t i = 0; !failed && i < out->count; i++)
        failed = !describe(&rd, &out->items[i]);
    failed = failed || !join_by_needs(&rd, out) || !join_by_cause(&rd, out)
             || !map_signatures(&rd, out);
    if (failed)
        families_free(out);
    return drop_family_cases(&rd, !failed);
}

void families_free(family_list *l)
{
    for (size_t i = 0; i < l->count; i++)
    {
        free(l->items[i].shrunk_case);
        free(l->items[i].shrunk_mismatch);
        free(l->items[i].diagnosis);
        free(l->items[i].groups);
    }
    free(l->items);
    free(l->signature_ids);
    free(l->signature_family);
    *l = (family_list){ 0 };
}

const family *families_holding(const family_list *l, int64_t id)
{
    size_t lo = 0, hi = l->signature_count;
    while (lo < hi) { /* signature_ids ascend */
        size_t mid = lo + (hi - lo) / 2;
        if (l->signature_ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->signature_count && l->signature_ids[lo] == id ? &l->items[l->signature_family[lo]]
                                                                 : NULL;
}

bool families_read_file(const char *path, int64_t run_id, bool all_runs, family_list *out,
                        dmlc_error *err)
{
    sqlite3 *db = NULL;
    *out = (family_list){ 0 };
    if (!store_open_read_only_db(path, &db, err))
        return false;
    sqlite3_stmt *s = NULL;
    int64_t lo = run_id, hi = run_id;
    bool ok = sqlite3_prepare_v2(db, "SELECT min(id), max(id) FROM runs", -1, &s, NULL) == SQLITE_OK
              && sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 1) != SQLITE_NULL;
    if (ok && (all_runs || !run_id)) {
        lo = all_runs ? sqlite3_column_int64(s, 0) : sqlite3_column_int64(s, 1);
        hi = sqlite3_column_int64(s, 1);
    }
    if (!ok)
        err_set(err, "%s: no runs to read (%s)", path, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    ok = ok && families_find(db, lo, hi, out, err);
    sqlite3_close(db);
    return ok;
}

bool families_nan_cases(sqlite3 *db, int64_t run_lo, int64_t run_hi, const family *f,
                        bool (*each)(void *ctx, const family_nan_cases *row, dmlc_error *err),
                        void *ctx, dmlc_error *err)
{
    reader rd;
    char sql[4000];
    if (!open_reader(db, run_lo, run_hi, err, &rd) || !drop_family_tables(&rd)
        || !fill_family_signatures(&rd))
        return drop_family_cases(&rd, false);
    /* As reader.c's Q_NAN_PRINTS (the same subject, operator and type), of the family's cases
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
    sqlite3_stmt *s = prepare(&rd, sql, f);
    if (!s)
        return drop_family_cases(&rd, false);
    bool failed = false;
    while (!failed && step(&rd, s, &failed)) {
        family_nan_cases row = { text_at(s, 0), text_at(s, 1), text_at(s, 2),
                                 (uint64_t)sqlite3_column_int64(s, 3), { 0 } };
        for (unsigned p = 0; p < FAMILY_NAN_POLICIES; p++)
            row.explained[p] = (uint64_t)sqlite3_column_int64(s, 4 + (int)p);
        failed = !each(ctx, &row, err);
    }
    sqlite3_finalize(s);
    return drop_family_cases(&rd, !failed);
}
