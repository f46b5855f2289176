/*
 * families.c: families from a results database (families.h): how failures group into rows
 * (one bug each) and what sets each apart.  Every query reads the temporary tables of
 * family_sql.c over a range of runs; the dimensions compared are one table there, so adding
 * one is adding a row.  A dimension sets a family apart when the family's failures all share one of
 * its values (or, for numbers, lie above or below a bound) while at least FAMILY_CONTRAST of
 * the operator's judged cases outside it ran without this failure: one lucky case is no
 * evidence that the others would not fail.  A bound on a number must also set apart a tenth
 * of the judged cases ("input elements >= 2" says nothing), and a family of fewer than
 * FAMILY_MIN_CASES cases gets no needs: two cases share too much by chance.
 */
#include "families.h"
#include "cause.h"
#include "family_sql.h"
#include "store.h"

#include "op.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAMILY_CONTRAST 5
#define FAMILY_MIN_CASES 3

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
static bool text_need(const family_reader *rd, family *f, size_t d)
{
    char sql[1400], need[160], values[NEED_SET_MAX * 40] = "";
    /* Per value: the family's hits, and the judged cases of its operators (counted once
     * for every family in family_judged). */
    snprintf(sql, sizeof sql, "SELECT v, SUM(hits), SUM(n) FROM (SELECT j.v AS v, 0 AS hits,"
             " j.n AS n" FROM_DIMENSION " UNION ALL SELECT %s AS v, COUNT(*), 0" FROM_HITS
             " GROUP BY 1) WHERE v IS NOT NULL GROUP BY v", family_dimensions[d].expr);
    sqlite3_stmt *s = family_sql_prepare(rd, sql, f);
    if (!s)
        return false;
    sqlite3_bind_int(s, 6, (int)d);
    unsigned hit_values = 0;
    uint64_t contrast = 0, fewest_hits = UINT64_MAX;
    bool failed = false;
    while (family_sql_step(rd, s, &failed)) {
        uint64_t hits = (uint64_t)sqlite3_column_int64(s, 1);
        if (hits > 0) {
            fewest_hits = hits < fewest_hits ? hits : fewest_hits;
            if (hit_values++ < NEED_SET_MAX)
                snprintf(values + strlen(values), sizeof values - strlen(values), "%s%.38s",
                         hit_values > 1 ? " or " : "", family_sql_text(s, 0));
        } else {
            contrast += (uint64_t)sqlite3_column_int64(s, 2);
        }
    }
    sqlite3_finalize(s);
    bool telling_set = hit_values <= NEED_SET_MAX && f->cases >= NEED_SET_MIN_CASES
                       && fewest_hits >= FAMILY_MIN_CASES;
    if (!failed && (hit_values == 1 || telling_set) && contrast >= FAMILY_CONTRAST) {
        snprintf(need, sizeof need, "only %s %s", family_dimensions[d].label, values);
        append_need(f, need);
    }
    return !failed;
}

/* "LABEL >= N" / "LABEL <= N" when the family's failures lie past a bound of a number. */
static bool numeric_need(const family_reader *rd, family *f, size_t d)
{
    char sql[1800], need[160];
    snprintf(sql, sizeof sql,
             "WITH h AS (SELECT MIN(%s) AS lo, MAX(%s) AS hi" FROM_HITS "), "
             "j AS (SELECT j.v AS v, j.n AS n" FROM_DIMENSION ") "
             "SELECT h.lo, h.hi, (SELECT ifnull(SUM(n), 0) FROM j WHERE v < h.lo), "
             "(SELECT ifnull(SUM(n), 0) FROM j WHERE v > h.hi), (SELECT ifnull(SUM(n), 0) FROM j) FROM h",
             family_dimensions[d].expr, family_dimensions[d].expr);
    sqlite3_stmt *s = family_sql_prepare(rd, sql, f);
    if (!s)
        return false;
    sqlite3_bind_int(s, 6, (int)d);
    bool failed = false;
    if (family_sql_step(rd, s, &failed) && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        int64_t tenth = sqlite3_column_int64(s, 4) / 10;
        int64_t contrast = tenth > FAMILY_CONTRAST ? tenth : FAMILY_CONTRAST;
        if (sqlite3_column_int64(s, 2) >= contrast) {
            snprintf(need, sizeof need, "%s >= %lld", family_dimensions[d].label, sqlite3_column_int64(s, 0));
            append_need(f, need);
        }
        if (sqlite3_column_int64(s, 3) >= contrast) {
            snprintf(need, sizeof need, "%s <= %lld", family_dimensions[d].label, sqlite3_column_int64(s, 1));
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
static bool spread(const family_reader *rd, family *f, const char *label, const char *expr)
{
    char sql[1400];
    snprintf(sql, sizeof sql, "SELECT %s, COUNT(*)" FROM_OWN " GROUP BY 1 ORDER BY 2 DESC, 1",
             expr);
    sqlite3_stmt *s = family_sql_prepare(rd, sql, f);
    if (!s)
        return false;
    size_t used = strlen(f->breakdown), shown = 0, rest = 0;
    used += (size_t)snprintf(f->breakdown + used, sizeof f->breakdown - used, "%s%s",
                             used ? "; " : "", label);
    bool failed = false;
    while (family_sql_step(rd, s, &failed) && used < sizeof f->breakdown) {
        if (shown++ < SPREAD_VALUES)
            used += (size_t)snprintf(f->breakdown + used, sizeof f->breakdown - used, "%s %s %lld",
                                     shown > 1 ? "," : "", family_sql_text(s, 0), sqlite3_column_int64(s, 1));
        else
            rest++;
    }
    if (rest && used < sizeof f->breakdown)
        snprintf(f->breakdown + used, sizeof f->breakdown - used, ", %zu more", rest);
    sqlite3_finalize(s);
    return !failed;
}

/* Signatures and the smallest case of the family. */
static bool describe(const family_reader *rd, family *f)
{
    char sql[1400];
    /* Some 25 questions read the family's rows: they read a copy of them alone. */
    if (!family_sql_run(rd, "DROP TABLE IF EXISTS temp.family_rows", NULL))
        return false;
    if (!family_sql_run(rd, "CREATE TEMP TABLE family_rows AS SELECT *" FROM_FAMILY, f))
        return false;
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM (SELECT DISTINCT c.op, c.feature_level, "
             "c.input_type, c.output_type, c.indices_type, c.layout, c.distribution" FROM_OWN ")");
    sqlite3_stmt *s = family_sql_prepare(rd, sql, f);
    bool failed = false;
    if (!s)
        return false;
    if (family_sql_step(rd, s, &failed))
        f->signatures = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    snprintf(sql, sizeof sql, "SELECT c.run_id, c.case_index, c.elements" FROM_OWN
             " ORDER BY c.elements, c.run_id, c.case_index LIMIT 1");
    s = failed ? NULL : family_sql_prepare(rd, sql, f);
    if (!s)
        return false;
    if (family_sql_step(rd, s, &failed)) {
        f->run_id = sqlite3_column_int64(s, 0);
        f->case_index = (uint64_t)sqlite3_column_int64(s, 1);
        f->elements = (uint64_t)sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    snprintf(sql, sizeof sql, "SELECT t.shrunk_case, t.shrunk_mismatch" FROM_SIGNATURES
             " AND t.shrunk_case IS NOT NULL"
             /* Of the family's own verdict and kind first: its shrunk case fails as it says. */
             " ORDER BY t.verdict = ?6 DESC, t.kind = ?7 DESC, length(t.shrunk_case) LIMIT 1");
    s = failed ? NULL : family_sql_prepare(rd, sql, f);
    if (!s)
        return false;
    sqlite3_bind_text(s, 6, f->verdict, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 7, f->kind, -1, SQLITE_STATIC);
    if (family_sql_step(rd, s, &failed)) {
        f->shrunk_case = strdup(family_sql_text(s, 0));
        f->shrunk_mismatch = sqlite3_column_type(s, 1) == SQLITE_NULL ? NULL : strdup(family_sql_text(s, 1));
        if (!f->shrunk_case || (sqlite3_column_type(s, 1) != SQLITE_NULL && !f->shrunk_mismatch))
            failed = !err_set(rd->err, "out of memory reading a shrunk case");
    }
    sqlite3_finalize(s);
    snprintf(sql, sizeof sql, "SELECT count(*)" FROM_SIGNATURES " AND t.nondeterministic = 1");
    s = failed ? NULL : family_sql_prepare(rd, sql, f);
    if (!s)
        return false;
    if (s && family_sql_step(rd, s, &failed))
        f->nondeterministic = sqlite3_column_int64(s, 0) > 0;
    sqlite3_finalize(s);
    for (size_t d = 0; !failed && d < sizeof spreads / sizeof spreads[0]; d++)
        failed = !spread(rd, f, spreads[d].label, spreads[d].expr);
    if (!failed && strchr(f->kinds + 1, ',') != strrchr(f->kinds, ','))
        failed = !spread(rd, f, "kind", "c.kind");
    for (size_t d = 0; !failed && f->cases >= FAMILY_MIN_CASES
                       && d < family_dimension_count; d++)
        failed = !(family_dimensions[d].numeric ? numeric_need(rd, f, d) : text_need(rd, f, d));
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
static bool all_explained_by(const family_reader *rd, family *f, const char *kind, bool *yes)
{
    char sql[1400];
    snprintf(sql, sizeof sql, "SELECT COUNT(*)" FROM_FAMILY " AND instr(',' || ifnull(c.also_kinds, '')"
             " || ',', ',' || ?6 || ',') > 0");
    sqlite3_stmt *s = family_sql_prepare(rd, sql, f);
    bool failed = false;
    if (!s)
        return false;
    sqlite3_bind_text(s, 6, kind, -1, SQLITE_STATIC);
    *yes = family_sql_step(rd, s, &failed) && (uint64_t)sqlite3_column_int64(s, 0) == f->cases;
    sqlite3_finalize(s);
    return !failed;
}

/* Moves f's groups to the end of g's (f joins g); false when memory runs out. */
static bool move_groups(const family_reader *rd, family *g, family *f)
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
static bool join_explained(const family_reader *rd, family_list *l)
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
static bool absorb(const family_reader *rd, family_list *l, size_t i, family *g)
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
static bool join_by_needs(const family_reader *rd, family_list *l)
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
 * a family is keyed by its signatures' root cause (family_tables_fill), so any holds it. */
static bool read_diagnosis(const family_reader *rd, family *f)
{
    /* One with probes first: a signature another's bug explains stores no probes. */
    sqlite3_stmt *s = family_sql_prepare(rd, "SELECT t.diagnosis" FROM_SIGNATURES " AND t.diagnosis IS NOT NULL"
                                         " ORDER BY instr(t.diagnosis, '\"same_bug_as\"') > 0, t.id LIMIT 1", f);
    bool failed = !s;
    if (s && family_sql_step(rd, s, &failed)) {
        f->diagnosed = true;
        if (!(f->diagnosis = strdup(family_sql_text(s, 0))))
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
static bool join_by_cause(const family_reader *rd, family_list *l)
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
static bool map_signatures(const family_reader *rd, family_list *l)
{
    sqlite3_stmt *s = family_sql_prepare(rd, "SELECT id, module, kind, verdict, key FROM temp.family_signatures"
                                         " WHERE verdict IN ('fail', 'unspecified') ORDER BY id", NULL);
    bool failed = !s;
    size_t cap = 0;
    while (!failed && family_sql_step(rd, s, &failed)) {
        char group[sizeof l->items->module + sizeof l->items->kind + sizeof l->items->cause + 32];
        snprintf(group, sizeof group, ",%s:%s:%s:%s,", family_sql_text(s, 1), family_sql_text(s, 2),
                 family_sql_text(s, 3), family_sql_text(s, 4));
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

bool families_find(sqlite3 *db, int64_t run_lo, int64_t run_hi, family_list *out, dmlc_error *err)
{
    family_reader rd;
    if (!family_reader_open(db, run_lo, run_hi, err, &rd))
        return false;
    *out = (family_list){ 0 };
    bool any = false;
    if (!family_tables_any_failure(&rd, &any))
        return false;
    if (!any)
        return true;
    if (!family_tables_fill(&rd))
        return false;
    sqlite3_stmt *s = family_sql_prepare(&rd, "SELECT c.module, c.kind, c.verdict, COUNT(*), c.cause_key"
                                         " FROM temp.family_failing c WHERE c.verdict IN ('fail', 'unspecified')"
                                         " GROUP BY c.module, c.kind, c.verdict, c.cause_key ORDER BY"
                                         " c.verdict = 'fail' DESC, COUNT(*) DESC, c.module, c.kind, c.cause_key", NULL);
    if (!s)
        return family_tables_drop(&rd, false);
    size_t cap = 0;
    bool failed = false;
    while (!failed && family_sql_step(&rd, s, &failed)) {
        if (!grow(out, &cap)) {
            failed = !err_set(err, "out of memory reading families");
            break;
        }
        family *f = &out->items[out->count++];
        memset(f, 0, sizeof *f);
        snprintf(f->module, sizeof f->module, "%s", family_sql_text(s, 0));
        family_sql_module_operators(f->module, f->op, sizeof f->op);
        snprintf(f->kind, sizeof f->kind, "%s", family_sql_text(s, 1));
        snprintf(f->kinds, sizeof f->kinds, ",%s,", f->kind);
        snprintf(f->verdict, sizeof f->verdict, "%s", family_sql_text(s, 2));
        snprintf(f->verdicts, sizeof f->verdicts, ",%s,", f->verdict);
        f->cases = (uint64_t)sqlite3_column_int64(s, 3);
        snprintf(f->cause, sizeof f->cause, "%s", family_sql_text(s, 4));
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
    return family_tables_drop(&rd, !failed);
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
