/*
 * reader_digest.c: one read of the cases x results join for a report (reader_digest.h).
 *
 * Every answer is a group of cases under a key of a few short texts; a group is a hash-map
 * entry keyed by the texts joined with KEY_SEP.  Each walk lists its groups in the order its
 * SQL statement listed them (GROUP BY: ascending keys, a NULL before any text), so the
 * reports read the same rows as before.  The signatures and skip reasons keep their SQL:
 * the digest hands them its groups as temporary tables (a few rows per failing key), which
 * the statements in reader.c join instead of the cases.
 */
#include "reader_digest.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Joins a key's texts: below every printable character, so joined keys sort as their texts
 * do field by field.  Names and JSON never hold it. */
#define KEY_SEP '\x01'

/* ---- a hash map from joined keys to fixed-size values ------------------------------ */

typedef struct group {
    char *key;
    size_t len;
    uint64_t hash;
} group;

typedef struct group_map {
    group *groups;
    unsigned char *values; /* value_size bytes per group, zeroed when the group is new */
    size_t value_size, count, cap;
    size_t *slots;         /* a group's index + 1, 0 for an empty slot */
    size_t slot_count;     /* a power of two, at least twice count */
} group_map;

static uint64_t key_hash(const char *key, size_t len)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211u;
    return h;
}

static size_t *map_slot(const group_map *m, const char *key, size_t len, uint64_t hash)
{
    size_t mask = m->slot_count - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        size_t at = m->slots[i];
        if (!at)
            return &m->slots[i];
        const group *g = &m->groups[at - 1];
        if (g->hash == hash && g->len == len && !memcmp(g->key, key, len))
            return &m->slots[i];
    }
}

static bool map_grow(group_map *m)
{
    if (m->count == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        group *groups = realloc(m->groups, cap * sizeof *groups);
        if (!groups)
            return false;
        m->groups = groups;
        unsigned char *values = realloc(m->values, cap * m->value_size);
        if (!values)
            return false;
        m->values = values;
        m->cap = cap;
    }
    if (2 * (m->count + 1) <= m->slot_count)
        return true;
    size_t n = m->slot_count ? 2 * m->slot_count : 64;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    free(m->slots);
    m->slots = slots;
    m->slot_count = n;
    for (size_t i = 0; i < m->count; i++)
        *map_slot(m, m->groups[i].key, m->groups[i].len, m->groups[i].hash) = i + 1;
    return true;
}

static void *map_value(const group_map *m, size_t i)
{
    return m->values + i * m->value_size;
}

/* The value of key's group, a zeroed one when the key is new; NULL when out of memory. */
static void *map_get(group_map *m, const char *key, size_t len)
{
    uint64_t hash = key_hash(key, len);
    size_t *slot = m->slot_count ? map_slot(m, key, len, hash) : NULL;
    if (slot && *slot)
        return map_value(m, *slot - 1);
    if (!map_grow(m))
        return NULL;
    slot = map_slot(m, key, len, hash);
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, key, len);
    copy[len] = 0;
    m->groups[m->count] = (group){ copy, len, hash };
    memset(map_value(m, m->count), 0, m->value_size);
    *slot = ++m->count;
    return map_value(m, m->count - 1);
}

static void map_free(group_map *m)
{
    for (size_t i = 0; i < m->count; i++)
        free(m->groups[i].key);
    free(m->groups);
    free(m->values);
    free(m->slots);
}

static int compare_groups(const void *a, const void *b)
{
    const group *x = *(const group *const *)a, *y = *(const group *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The map's groups in ascending key order (as GROUP BY lists them); NULL when out of
 * memory, and for an empty map a pointer that holds nothing. */
static const group **map_sorted(const group_map *m)
{
    const group **order = malloc((m->count ? m->count : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (size_t i = 0; i < m->count; i++)
        order[i] = &m->groups[i];
    qsort(order, m->count, sizeof *order, compare_groups);
    return order;
}

/* The index of a sorted group in its map. */
static size_t group_index(const group_map *m, const group *g)
{
    return (size_t)(g - m->groups);
}

/* Splits a copy of key at KEY_SEP into at most max texts; returns how many. */
static unsigned split_key(char *copy, const char **fields, unsigned max)
{
    unsigned n = 0;
    for (char *p = copy; n < max;) {
        fields[n++] = p;
        char *sep = strchr(p, KEY_SEP);
        if (!sep)
            break;
        *sep = 0;
        p = sep + 1;
    }
    return n;
}

/* ---- building keys ------------------------------------------------------------------ */

typedef struct key_buf {
    char *text;
    size_t len, cap;
} key_buf;

static bool key_put(key_buf *k, const char *s, size_t n)
{
    if (k->len + n + 2 > k->cap) {
        size_t cap = 2 * (k->len + n + 2) + 256;
        char *p = realloc(k->text, cap);
        if (!p)
            return false;
        k->text = p;
        k->cap = cap;
    }
    if (k->len)
        k->text[k->len++] = KEY_SEP;
    memcpy(k->text + k->len, s, n);
    k->len += n;
    k->text[k->len] = 0;
    return true;
}

/* ---- the digest --------------------------------------------------------------------- */

typedef struct cell_counts {
    uint64_t cases, passed, failed, unspecified, skipped, errors;
    double time_us;
} cell_counts;

typedef struct judged {
    uint64_t cases, failed;
} judged;

typedef struct nan_counts {
    uint64_t with_print, left_out, explained[NAN_POLICY_COUNT];
} nan_counts;

/* One failing key's cases: its classes, each distinct list once, and its least detail. */
typedef struct failing {
    uint64_t cases;
    char *classes; /* "nan,nan,denormal": reader.c's sorted_classes sorts them out */
    char *detail;  /* NULL while no case had one */
} failing;

typedef struct skipped {
    uint64_t cases;
} skipped;

/* What a run contributes to a row's keys: "backend on device" of its NaN fingerprints. */
typedef struct run_subject {
    int64_t id;
    char *subject;
} run_subject;

#define ELEMENT_BUCKETS 7
static const char *const element_bucket_name[ELEMENT_BUCKETS] = {
    "1", "2-16", "17-256", "257-4096", "4097-65536", "65537-1048576", "> 1048576",
};

struct reader_digest {
    int64_t lo, hi;
    group_map cells, ranks, layouts, distributions, classes, nan_prints, failing, skips;
    judged elements[ELEMENT_BUCKETS];
    bool element_seen[ELEMENT_BUCKETS];
    run_subject *runs;
    size_t run_count;
    bool tables; /* the temporary tables exist */
};

typedef enum verdict { V_PASS, V_FAIL, V_UNSPECIFIED, V_SKIP, V_ERROR, V_OTHER } verdict;

static verdict verdict_of(const char *v)
{
    static const char *const names[] = { "pass", "fail", "unspecified", "skip", "error" };
    for (int i = 0; i < V_OTHER; i++)
        if (!strcmp(v, names[i]))
            return (verdict)i;
    return V_OTHER;
}

static unsigned element_bucket(int64_t elements)
{
    static const int64_t upper[ELEMENT_BUCKETS - 1] = { 1, 16, 256, 4096, 65536, 1048576 };
    unsigned b = 0;
    while (b < ELEMENT_BUCKETS - 1 && elements > upper[b])
        b++;
    return b;
}

/* One scanned row, its columns named. */
enum { COL_RUN, COL_FL, COL_OP, COL_INPUT, COL_OUTPUT, COL_INDICES, COL_RANK, COL_ELEMENTS,
       COL_LAYOUT, COL_DISTRIBUTION, COL_CLASSES, COL_PARAMS, COL_INPUT_SIZES, COL_OUTPUT_SIZES,
       COL_VERDICT, COL_KIND, COL_DETAIL, COL_TIME, COL_NAN_POLICIES };

#define SCAN_SELECT(nan_policies)                                                              \
    "SELECT c.run_id, c.feature_level, c.op, c.input_type, c.output_type, c.indices_type,"     \
    " c.rank, c.elements, c.layout, c.distribution, c.classes, c.params, c.input_sizes,"       \
    " c.output_sizes, x.verdict, x.kind, x.detail, x.time_us, " nan_policies                   \
    " FROM cases c JOIN results x ON x.case_id = c.id WHERE c.run_id BETWEEN ?1 AND ?2"

static const char *text_of(sqlite3_stmt *s, int col, size_t *len)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    *len = t ? (size_t)sqlite3_column_bytes(s, col) : 0;
    return t ? (const char *)t : "";
}

/* Appends column col to k. */
static bool put_col(key_buf *k, sqlite3_stmt *s, int col)
{
    size_t len;
    const char *t = text_of(s, col, &len);
    return key_put(k, t, len);
}

/* The row's cell key (level, operator, input, output, indices) into k. */
static bool cell_key(key_buf *k, sqlite3_stmt *s)
{
    k->len = 0;
    for (int col = COL_FL; col <= COL_INDICES; col++)
        if (!put_col(k, s, col))
            return false;
    return true;
}

static bool add_judged(group_map *m, sqlite3_stmt *s, int col, key_buf *k, bool failed)
{
    k->len = 0;
    judged *j = put_col(k, s, col) ? map_get(m, k->text, k->len) : NULL;
    if (!j)
        return false;
    j->cases++;
    j->failed += failed;
    return true;
}

static const char *subject_of(const reader_digest *g, int64_t run_id)
{
    size_t lo = 0, hi = g->run_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g->runs[mid].id < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->run_count && g->runs[lo].id == run_id ? g->runs[lo].subject : NULL;
}

/* A NaN fingerprint's row: a float input that ran (Q_NAN_PRINTS in reader.c's history:
 * a judged failure's fingerprint is left out and counted). */
static bool add_nan_row(reader_digest *g, sqlite3_stmt *s, key_buf *k, verdict v)
{
    size_t len;
    const char *input = text_of(s, COL_INPUT, &len);
    const char *subject = subject_of(g, sqlite3_column_int64(s, COL_RUN));
    if (v == V_SKIP || !subject || (strcmp(input, "FLOAT32") && strcmp(input, "FLOAT16")))
        return true;
    k->len = 0;
    if (!key_put(k, subject, strlen(subject)) || !put_col(k, s, COL_OP) || !put_col(k, s, COL_INPUT))
        return false;
    nan_counts *n = map_get(&g->nan_prints, k->text, k->len);
    if (!n)
        return false;
    if (sqlite3_column_type(s, COL_NAN_POLICIES) == SQLITE_NULL)
        return true;
    if (v == V_FAIL) {
        n->left_out++;
        return true;
    }
    int64_t policies = sqlite3_column_int64(s, COL_NAN_POLICIES);
    n->with_print++;
    for (unsigned p = 0; p < NAN_POLICY_COUNT; p++)
        n->explained[p] += (policies & ((int64_t)1 << p)) != 0;
    return true;
}

/* A skipped case with a reason. */
static bool add_skip_row(reader_digest *g, sqlite3_stmt *s, key_buf *k)
{
    if (sqlite3_column_type(s, COL_DETAIL) == SQLITE_NULL)
        return true;
    skipped *x = cell_key(k, s) && put_col(k, s, COL_DETAIL) ? map_get(&g->skips, k->text, k->len)
                                                             : NULL;
    if (!x)
        return false;
    x->cases++;
    return true;
}

/* Adds text to a comma list when it is not in it yet; false when out of memory. */
static bool add_distinct(char **list, const char *text)
{
    size_t n = strlen(text);
    if (*list) {
        for (const char *p = *list; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
            if (!strncmp(p, text, n) && (p[n] == '\n' || p[n] == 0))
                return true;
    }
    size_t used = *list ? strlen(*list) : 0;
    char *grown = realloc(*list, used + n + 2);
    if (!grown)
        return false;
    if (used)
        grown[used++] = '\n';
    memcpy(grown + used, text, n + 1);
    *list = grown;
    return true;
}

/* A case with a kind: it counts for the signature of its run's backend and device with its
 * key (results.kind is NULL for a pass, a skip and an error). */
static bool add_failing_row(reader_digest *g, sqlite3_stmt *s, key_buf *k)
{
    if (sqlite3_column_type(s, COL_KIND) == SQLITE_NULL)
        return true;
    char run[24];
    snprintf(run, sizeof run, "%" PRId64, (int64_t)sqlite3_column_int64(s, COL_RUN));
    k->len = 0;
    bool ok = key_put(k, run, strlen(run));
    for (int col = COL_FL; ok && col <= COL_INDICES; col++)
        ok = put_col(k, s, col);
    ok = ok && put_col(k, s, COL_LAYOUT) && put_col(k, s, COL_DISTRIBUTION)
         && put_col(k, s, COL_KIND) && put_col(k, s, COL_VERDICT);
    failing *f = ok ? map_get(&g->failing, k->text, k->len) : NULL;
    if (!f)
        return false;
    f->cases++;
    size_t len;
    const char *classes = text_of(s, COL_CLASSES, &len);
    if (classes[0] && !add_distinct(&f->classes, classes))
        return false;
    if (sqlite3_column_type(s, COL_DETAIL) != SQLITE_NULL) {
        const char *detail = text_of(s, COL_DETAIL, &len);
        if (!f->detail || strcmp(detail, f->detail) < 0) {
            char *copy = strdup(detail);
            if (!copy)
                return false;
            free(f->detail);
            f->detail = copy;
        }
    }
    return true;
}

static bool add_row(reader_digest *g, sqlite3_stmt *s, key_buf *k)
{
    size_t len;
    verdict v = verdict_of(text_of(s, COL_VERDICT, &len));
    bool failed = v == V_FAIL;
    cell_counts *c = cell_key(k, s) ? map_get(&g->cells, k->text, k->len) : NULL;
    if (!c)
        return false;
    c->cases++;
    c->passed += v == V_PASS;
    c->failed += failed;
    c->unspecified += v == V_UNSPECIFIED;
    c->skipped += v == V_SKIP;
    c->errors += v == V_ERROR;
    c->time_us += sqlite3_column_double(s, COL_TIME);
    unsigned b = element_bucket(sqlite3_column_int64(s, COL_ELEMENTS));
    g->elements[b].cases++;
    g->elements[b].failed += failed;
    g->element_seen[b] = true;
    return add_judged(&g->ranks, s, COL_RANK, k, failed)
           && add_judged(&g->layouts, s, COL_LAYOUT, k, failed)
           && add_judged(&g->distributions, s, COL_DISTRIBUTION, k, failed)
           && add_judged(&g->classes, s, COL_CLASSES, k, failed) && add_nan_row(g, s, k, v)
           && (v != V_SKIP || add_skip_row(g, s, k)) && add_failing_row(g, s, k);
}

/* ---- reading ------------------------------------------------------------------------ */

static bool sql_error(sqlite3 *db, const char *path, dmlc_error *err)
{
    return err_set(err, "%s: %s", path, sqlite3_errmsg(db));
}

/* The statement sql with the range bound; NULL with err set. */
static sqlite3_stmt *prepare(sqlite3 *db, const char *path, const char *sql, int64_t lo,
                             int64_t hi, dmlc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        sql_error(db, path, err);
        sqlite3_finalize(s);
        return NULL;
    }
    if (sqlite3_bind_parameter_count(s) >= 2) {
        sqlite3_bind_int64(s, 1, lo);
        sqlite3_bind_int64(s, 2, hi);
    }
    return s;
}

/* Each run's subject, by id. */
static bool read_runs(reader_digest *g, sqlite3 *db, const char *path, dmlc_error *err)
{
    sqlite3_stmt *s = prepare(db, path,
                              "SELECT r.id, r.backend || ifnull(' on ' || nullif(d.device, ''), '')"
                              " FROM runs r LEFT JOIN devices d ON d.id = r.device_id"
                              " WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id", g->lo, g->hi, err);
    if (!s)
        return false;
    int rc;
    bool ok = true;
    while (ok && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        run_subject *runs = realloc(g->runs, (g->run_count + 1) * sizeof *runs);
        const unsigned char *subject = sqlite3_column_text(s, 1);
        ok = runs != NULL;
        if (ok) {
            g->runs = runs;
            runs[g->run_count] = (run_subject){ sqlite3_column_int64(s, 0),
                                                strdup(subject ? (const char *)subject : "") };
            ok = runs[g->run_count++].subject != NULL;
        }
    }
    if (!ok)
        err_set(err, "out of memory");
    else if (rc != SQLITE_DONE)
        ok = sql_error(db, path, err);
    sqlite3_finalize(s);
    return ok;
}

static bool scan(reader_digest *g, sqlite3 *db, const char *path, int version,
                 bool (*each)(void *ctx, const reader_params *row, dmlc_error *err), void *ctx,
                 dmlc_error *err)
{
    /* results.nan_policies since schema version 4 */
    sqlite3_stmt *s = prepare(db, path, version >= 4 ? SCAN_SELECT("x.nan_policies")
                                                     : SCAN_SELECT("NULL"), g->lo, g->hi, err);
    if (!s)
        return false;
    key_buf k = { 0 };
    int rc;
    bool ok = true;
    while (ok && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        ok = add_row(g, s, &k) || err_set(err, "out of memory");
        if (ok && each) {
            size_t len;
            reader_params row = { text_of(s, COL_OP, &len), text_of(s, COL_PARAMS, &len),
                                  text_of(s, COL_INPUT_SIZES, &len),
                                  text_of(s, COL_OUTPUT_SIZES, &len), 1,
                                  !strcmp(text_of(s, COL_VERDICT, &len), "fail") };
            ok = each(ctx, &row, err);
        }
    }
    if (ok && rc != SQLITE_DONE)
        ok = sql_error(db, path, err);
    free(k.text);
    sqlite3_finalize(s);
    return ok;
}

/* Binds texts fields[0..n) to s's parameters 1..n, "" as NULL where null_empty[i]. */
static void bind_fields(sqlite3_stmt *s, const char **fields, unsigned n, const bool *null_empty)
{
    for (unsigned i = 0; i < n; i++) {
        if (null_empty[i] && !fields[i][0])
            sqlite3_bind_null(s, (int)i + 1);
        else
            sqlite3_bind_text(s, (int)i + 1, fields[i], -1, SQLITE_STATIC);
    }
}

static bool step_insert(sqlite3 *db, const char *path, sqlite3_stmt *s, dmlc_error *err)
{
    bool ok = sqlite3_step(s) == SQLITE_DONE || sql_error(db, path, err);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return ok;
}

/* The failing keys as temp.digest_signature_rows: run, cell, layout, distribution, kind,
 * verdict, cases, classes (a comma list, NULL for none) and the least detail. */
static bool write_failing(const reader_digest *g, sqlite3 *db, const char *path, dmlc_error *err)
{
    sqlite3_stmt *s = prepare(db, path,
                              "INSERT INTO temp.digest_signature_rows VALUES"
                              " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)", 0, 0, err);
    if (!s)
        return false;
    static const bool null_empty[10] = { 0 };
    bool ok = true;
    for (size_t i = 0; ok && i < g->failing.count; i++) {
        const group *gr = &g->failing.groups[i];
        const failing *f = map_value(&g->failing, i);
        char *copy = strdup(gr->key);
        const char *fields[10];
        ok = copy && split_key(copy, fields, 10) == 10;
        if (!ok) {
            free(copy);
            return err_set(err, copy ? "a failing key with a separator in a name" : "out of memory");
        }
        bind_fields(s, fields, 10, null_empty);
        sqlite3_bind_int64(s, 11, (sqlite3_int64)f->cases);
        char *classes = f->classes ? strdup(f->classes) : NULL;
        for (char *p = classes; p && *p; p++)
            *p = *p == '\n' ? ',' : *p;
        if (classes)
            sqlite3_bind_text(s, 12, classes, -1, SQLITE_STATIC);
        if (f->detail)
            sqlite3_bind_text(s, 13, f->detail, -1, SQLITE_STATIC);
        ok = (!f->classes || classes) ? step_insert(db, path, s, err) : err_set(err, "out of memory");
        free(classes);
        free(copy);
    }
    sqlite3_finalize(s);
    return ok;
}

/* The skip reasons as temp.digest_skip_rows, in GROUP BY order (so that ORDER BY count
 * breaks ties as it did over the cases). */
static bool write_skips(const reader_digest *g, sqlite3 *db, const char *path, dmlc_error *err)
{
    sqlite3_stmt *s = prepare(db, path, "INSERT INTO temp.digest_skip_rows VALUES"
                                        " (?1, ?2, ?3, ?4, ?5, ?6, ?7)", 0, 0, err);
    const group **order = s ? map_sorted(&g->skips) : NULL;
    bool ok = order || (s && err_set(err, "out of memory"));
    static const bool null_empty[6] = { false, false, false, false, true, false };
    for (size_t i = 0; ok && i < g->skips.count; i++) {
        char *copy = strdup(order[i]->key);
        const char *fields[6];
        ok = copy && split_key(copy, fields, 6) == 6;
        if (!ok) {
            free(copy);
            return err_set(err, copy ? "a skip reason key with a separator in a name" : "out of memory");
        }
        bind_fields(s, fields, 6, null_empty);
        const skipped *x = map_value(&g->skips, group_index(&g->skips, order[i]));
        sqlite3_bind_int64(s, 7, (sqlite3_int64)x->cases);
        ok = step_insert(db, path, s, err);
        free(copy);
    }
    free(order);
    sqlite3_finalize(s);
    return ok;
}

static bool create_tables(reader_digest *g, sqlite3 *db, const char *path, dmlc_error *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db,
                          "DROP TABLE IF EXISTS temp.digest_signature_rows;"
                          "DROP TABLE IF EXISTS temp.digest_skip_rows;"
                          "CREATE TEMP TABLE digest_signature_rows (run_id INTEGER,"
                          " feature_level TEXT, op TEXT, input_type TEXT, output_type TEXT,"
                          " indices_type TEXT, layout TEXT, distribution TEXT, kind TEXT,"
                          " verdict TEXT, cases INTEGER, classes TEXT, detail TEXT);"
                          "CREATE TEMP TABLE digest_skip_rows (feature_level TEXT, op TEXT,"
                          " input_type TEXT, output_type TEXT, indices_type TEXT, detail TEXT,"
                          " cases INTEGER);",
                          NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        err_set(err, "%s: %s", path, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return false;
    }
    g->tables = true;
    return write_failing(g, db, path, err) && write_skips(g, db, path, err);
}

reader_digest *digest_read(sqlite3 *db, const char *path, int version, int64_t lo, int64_t hi,
                           bool (*each)(void *ctx, const reader_params *row, dmlc_error *err),
                           void *ctx, dmlc_error *err)
{
    reader_digest *g = calloc(1, sizeof *g);
    if (!g) {
        err_set(err, "out of memory");
        return NULL;
    }
    g->lo = lo;
    g->hi = hi;
    g->cells.value_size = sizeof(cell_counts);
    g->ranks.value_size = g->layouts.value_size = g->distributions.value_size =
        g->classes.value_size = sizeof(judged);
    g->nan_prints.value_size = sizeof(nan_counts);
    g->failing.value_size = sizeof(failing);
    g->skips.value_size = sizeof(skipped);
    if (!read_runs(g, db, path, err) || !scan(g, db, path, version, each, ctx, err)
        || !create_tables(g, db, path, err)) {
        digest_free(g, db);
        return NULL;
    }
    return g;
}

void digest_free(reader_digest *g, sqlite3 *db)
{
    if (!g)
        return;
    if (g->tables)
        sqlite3_exec(db, "DROP TABLE IF EXISTS temp.digest_signature_rows;"
                         "DROP TABLE IF EXISTS temp.digest_skip_rows;", NULL, NULL, NULL);
    for (size_t i = 0; i < g->failing.count; i++) {
        failing *f = map_value(&g->failing, i);
        free(f->classes);
        free(f->detail);
    }
    group_map *maps[] = { &g->cells, &g->ranks, &g->layouts, &g->distributions, &g->classes,
                          &g->nan_prints, &g->failing, &g->skips };
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        map_free(maps[i]);
    for (size_t i = 0; i < g->run_count; i++)
        free(g->runs[i].subject);
    free(g->runs);
    free(g);
}

bool digest_covers(const reader_digest *g, int64_t lo, int64_t hi)
{
    return g && g->lo == lo && g->hi == hi;
}

/* ---- the walks ---------------------------------------------------------------------- */

bool digest_cells(const reader_digest *g,
                  bool (*each)(void *ctx, const reader_cell *row, dmlc_error *err), void *ctx,
                  dmlc_error *err)
{
    const group **order = map_sorted(&g->cells);
    if (!order)
        return err_set(err, "out of memory");
    bool ok = true;
    for (size_t i = 0; ok && i < g->cells.count; i++) {
        char *copy = strdup(order[i]->key);
        const char *f[5];
        if (!copy || split_key(copy, f, 5) != 5) {
            ok = err_set(err, copy ? "a cell key with a separator in a name" : "out of memory");
            free(copy);
            break;
        }
        const cell_counts *c = map_value(&g->cells, group_index(&g->cells, order[i]));
        reader_cell row = { { f[0], f[1], f[2], f[3], f[4] }, c->cases, c->passed, c->failed,
                            c->unspecified, c->skipped, c->errors, c->time_us * 1e-6 };
        ok = each(ctx, &row, err);
        free(copy);
    }
    free(order);
    return ok;
}

static int compare_rank(const void *a, const void *b)
{
    const group *x = *(const group *const *)a, *y = *(const group *const *)b;
    long long p = strtoll(x->key, NULL, 10), q = strtoll(y->key, NULL, 10);
    return (p > q) - (p < q);
}

/* One dimension's groups as coverage rows, in the order its SQL listed them. */
static bool walk_judged(const group_map *m, bool by_number,
                        bool (*each)(void *ctx, const reader_coverage *row, dmlc_error *err),
                        void *ctx, dmlc_error *err)
{
    const group **order = map_sorted(m);
    if (!order)
        return err_set(err, "out of memory");
    if (by_number)
        qsort(order, m->count, sizeof *order, compare_rank);
    bool ok = true;
    for (size_t i = 0; ok && i < m->count; i++) {
        const judged *j = map_value(m, group_index(m, order[i]));
        reader_coverage row = { order[i]->key, j->cases, j->failed };
        ok = each(ctx, &row, err);
    }
    free(order);
    return ok;
}

bool digest_coverage(const reader_digest *g, reader_dimension dimension,
                     bool (*each)(void *ctx, const reader_coverage *row, dmlc_error *err),
                     void *ctx, dmlc_error *err)
{
    switch (dimension) {
    case READER_RANK: return walk_judged(&g->ranks, true, each, ctx, err);
    case READER_LAYOUT: return walk_judged(&g->layouts, false, each, ctx, err);
    case READER_DISTRIBUTION: return walk_judged(&g->distributions, false, each, ctx, err);
    case READER_CLASSES: return walk_judged(&g->classes, false, each, ctx, err);
    case READER_ELEMENTS: break;
    }
    for (unsigned b = 0; b < ELEMENT_BUCKETS; b++) {
        reader_coverage row = { element_bucket_name[b], g->elements[b].cases, g->elements[b].failed };
        if (g->element_seen[b] && !each(ctx, &row, err))
            return false;
    }
    return true;
}

bool digest_nan_prints(const reader_digest *g,
                       bool (*each)(void *ctx, const reader_nan_print *row, dmlc_error *err),
                       void *ctx, dmlc_error *err)
{
    const group **order = map_sorted(&g->nan_prints);
    if (!order)
        return err_set(err, "out of memory");
    bool ok = true;
    for (size_t i = 0; ok && i < g->nan_prints.count; i++) {
        char *copy = strdup(order[i]->key);
        const char *f[3];
        if (!copy || split_key(copy, f, 3) != 3) {
            ok = err_set(err, copy ? "a NaN fingerprint key with a separator in a name" : "out of memory");
            free(copy);
            break;
        }
        const nan_counts *n = map_value(&g->nan_prints, group_index(&g->nan_prints, order[i]));
        reader_nan_print row = { f[0], f[1], f[2], n->with_print, { 0 }, n->left_out };
        for (unsigned p = 0; p < NAN_POLICY_COUNT; p++)
            row.explained[p] = n->explained[p];
        ok = each(ctx, &row, err);
        free(copy);
    }
    free(order);
    return ok;
}
