/*
 * report_load.c: fills a report_model from a dmlcheck results database and reads expectation
 * files.  The database is read through results/reader.h, which owns every statement, opens
 * the file read-only and refuses one that is not ours or is newer; this file turns the rows
 * it walks into the model (names into operators and types, coverage into display order).
 */
#include "report_model.h"

#include "op_module.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "dtype.h"
#include "gen.h"
#include "replay.h"
#include "reader.h"

/* ---- rows into the model ------------------------------------------------------------ */

static bool parse_key(const reader_cell_key *row, report_cell_key *k, dmlc_error *err)
{
    k->op = op_from_name(row->op);
    k->input = dtype_from_name(row->input);
    k->output = dtype_from_name(row->output);
    k->indices = row->indices[0] ? dtype_from_name(row->indices) : DML_TENSOR_DATA_TYPE_UNKNOWN;
    if (!fl_from_name(row->fl, &k->fl) || k->op == OP_COUNT
        || k->input == DML_TENSOR_DATA_TYPE_UNKNOWN || k->output == DML_TENSOR_DATA_TYPE_UNKNOWN
        || (row->indices[0] && k->indices == DML_TENSOR_DATA_TYPE_UNKNOWN))
        return err_set(err, "unknown level/operator/type in the database: %s %s %s %s %s",
                       row->fl, row->op, row->input, row->output, row->indices);
    return true;
}

/* The cell a row names; NULL with err set. */
static report_cell *cell_of_row(const reader_cell_key *row, report_model *m, dmlc_error *err)
{
    report_cell_key k;
    if (!parse_key(row, &k, err))
        return NULL;
    report_cell *c = report_model_cell(m, &k);
    if (!c)
        err_set(err, "out of memory");
    return c;
}

/* Each cell's most common skip reason (the reader gives them most common first). */
static bool add_skip_reason(void *ctx, const reader_skip *row, dmlc_error *err)
{
    report_cell *c = cell_of_row(&row->key, ctx, err);
    if (!c)
        return false;
    if (!c->skip_reason && !(c->skip_reason = report_strdup(row->detail)))
        return err_set(err, "out of memory");
    return true;
}

static bool add_cell(void *ctx, const reader_cell *row, dmlc_error *err)
{
    report_cell *c = cell_of_row(&row->key, ctx, err);
    if (!c)
        return false;
    c->n.run += row->cases;
    c->n.passed += row->passed;
    c->n.failed += row->failed;
    c->n.differs += row->unspecified;
    c->n.skipped += row->skipped;
    c->n.errors += row->errors;
    c->n.seconds += row->seconds;
    return true;
}

static bool add_nan_print(void *ctx, const reader_nan_print *row, dmlc_error *err)
{
    report_nan_fingerprint *f = report_model_add_nan_print(ctx);
    if (!f || !(f->subject = report_strdup(row->subject)))
        return err_set(err, "out of memory");
    f->op = op_from_name(row->op);
    f->input = dtype_from_name(row->input);
    if (f->op == OP_COUNT)
        return err_set(err, "unknown operator in the database: %s", row->op);
    f->cases = row->cases;
    f->left_out = row->left_out;
    for (unsigned p = 0; p < NAN_POLICY_COUNT; p++)
        f->explained[p] = row->explained[p];
    return true;
}

/* One family whose root cause is another bug than a NaN policy: its NaN cases leave the
 * fingerprint of their subject, operator and type. */
typedef struct nan_leaver {
    report_model *m;
    const char *cause;
} nan_leaver;

static bool leave_out_nan_cases(void *ctx, const family_nan_cases *row, dmlc_error *err)
{
    nan_leaver *l = ctx;
    (void)err;
    for (size_t i = 0; i < l->m->nan_print_count; i++) {
        report_nan_fingerprint *f = &l->m->nan_prints[i];
        if (strcmp(f->subject, row->subject) || f->op != op_from_name(row->op)
            || f->input != dtype_from_name(row->input) || row->cases > f->cases)
            continue;
        f->cases -= row->cases;
        for (unsigned p = 0; p < NAN_POLICY_COUNT; p++)
            f->explained[p] -= row->explained[p] < f->explained[p] ? row->explained[p] : f->explained[p];
        if (!f->changed_by_bug)
            snprintf(f->changed_by, sizeof f->changed_by, "%s", l->cause);
        f->changed_by_bug += row->cases;
        break;
    }
    return true;
}

/* SEMANTICS "NaN-policy fingerprint": a NaN case that another bug changed says nothing of
 * the NaN policy, judged failure or not.  Judged failures are left out by the reader; the
 * rest of a family whose root cause is confirmed as a bug other than a NaN policy are left
 * out here (a tie rule flipped in a row holding a NaN differs from the spec only in the
 * unspecified class, and read as no policy at all). */
static bool leave_out_changed_nan_cases(reader *d, const reader_range *range, report_model *m,
                                        dmlc_error *err)
{
    for (size_t i = 0; i < m->families.count; i++) {
        const family *f = &m->families.items[i];
        nan_leaver l = { m, f->cause };
        if (cause_key_is_other_bug(f->cause)
            && !reader_family_nan_cases(d, range, f, leave_out_nan_cases, &l, err))
            return false;
    }
    return true;
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

static bool fill_signature(const reader_signature *row, report_signature *g, dmlc_error *err)
{
    report_cell_key k;
    if (!parse_key(&row->key, &k, err))
        return false;
    g->fl = k.fl;
    g->op = k.op;
    g->input = k.input;
    g->output = k.output;
    g->indices = k.indices;
    g->layout = report_strdup(row->layout);
    g->distribution = report_strdup(row->distribution);
    g->kind = report_strdup(row->kind);
    g->unspecified = !strcmp(row->verdict, "unspecified");
    g->first_seen = report_strdup(row->first_seen);
    g->last_seen = report_strdup(row->last_seen);
    gen_case_id rep;
    if (!gen_parse_case_id(row->representative, &rep))
        return err_set(err, "signature representative '%s' is not a case id gN:SEED:INDEX",
                       row->representative);
    /* Only schema-version-1 stores wrote bare ids, and their runs drew with generator 1. */
    g->gen_version = rep.version ? rep.version : 1;
    g->seed = rep.seed;
    g->index = rep.index;
    g->rep_elements = row->rep_elements;
    g->backend = report_strdup(row->backend);
    g->replay = report_strdup(row->replay);
    g->gen_args = generator_args(row->replay);
    g->has_shrunk_case = row->has_shrunk_case;
    g->tensor = report_strdup(row->tensor);
    g->element = row->element;
    g->element_type = !strcmp(g->tensor, "indices") ? g->indices : g->output;
    g->expected_bits = strtoull(row->expected, NULL, 16);
    g->got_bits = strtoull(row->got, NULL, 16);
    g->count = row->count;
    g->classes = report_strdup(row->classes);
    g->detail = report_strdup(row->detail);
    g->explanation = report_strdup(row->explanation);
    g->id = row->id;
    if (!g->layout || !g->distribution || !g->kind || !g->first_seen || !g->last_seen
        || !g->backend || !g->replay || !g->gen_args || !g->tensor || !g->classes || !g->detail
        || !g->explanation)
        return err_set(err, "out of memory");
    return true;
}

static bool add_signature(void *ctx, const reader_signature *row, dmlc_error *err)
{
    report_model *m = ctx;
    report_signature *g = report_model_add_signature(m);
    if (!g)
        return err_set(err, "out of memory");
    if (!fill_signature(row, g, err))
        return false;
    report_cell_key k = { g->fl, g->op, g->input, g->output, g->indices };
    if (!g->unspecified && !report_model_add_cell_failure(m, &k, m->signature_count - 1, g->count))
        return err_set(err, "out of memory");
    return true;
}

static bool add_run(void *ctx, const reader_run *row, dmlc_error *err)
{
    report_model *m = ctx;
    report_run *r = report_model_add_run(m);
    if (!r)
        return err_set(err, "out of memory");
    r->id = row->id;
    r->seed = row->seed;
    r->seconds = row->seconds;
    r->cases = row->cases;
    r->strict = row->strict;
    char **text[] = { &r->version, &r->git_revision, &r->host, &r->options, &r->command_line,
                      &r->backend, &r->status, &r->nan_policy, &r->started, &r->finished,
                      &r->platform, &r->device, &r->driver, &r->runtime, &r->fp_config,
                      &r->shard, &r->claims };
    const char *from[] = { row->version, row->git_revision, row->host, row->options,
                           row->command_line, row->backend, row->status, row->nan_policy,
                           row->started, row->finished, row->platform, row->device, row->driver,
                           row->runtime, row->fp_config, row->shard, row->claims };
    _Static_assert(sizeof text / sizeof *text == sizeof from / sizeof *from, "one source per field");
    m->total_seconds += r->seconds;
    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        if (!(*text[i] = report_strdup(from[i])))
            return err_set(err, "out of memory");
    return true;
}

/* ---- coverage ----------------------------------------------------------------------- */

/* Coverage rows gathered before they go into the model in display order, with an index by
 * (dimension, value): a big run's parameter coverage adds about ten rows for each of its
 * distinct descriptors, and a scan of every row per add was a third of that walk. */
typedef struct tally {
    report_coverage *rows;
    size_t count, cap;
    size_t *slots;    /* open addressing: a row's index + 1, 0 for an empty slot */
    size_t slot_count; /* a power of two, at least twice count */
} tally;

static size_t tally_hash(const char *dimension, const char *value)
{
    size_t h = 14695981039346656037u; /* FNV-1a over "dimension\0value" */
    for (const char *p = dimension; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    h *= 1099511628211u;
    for (const char *p = value; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    return h;
}

/* The slot of (dimension, value): its row's, or the empty one where it goes. */
static size_t *tally_slot(const tally *t, const char *dimension, const char *value)
{
    size_t mask = t->slot_count - 1, i = tally_hash(dimension, value) & mask;
    for (;; i = (i + 1) & mask) {
        size_t row = t->slots[i];
        if (!row || (!strcmp(t->rows[row - 1].dimension, dimension)
                     && !strcmp(t->rows[row - 1].value, value)))
            return &t->slots[i];
    }
}

/* Room for one more row in the index (false: out of memory). */
static bool tally_reindex(tally *t)
{
    if (2 * (t->count + 1) <= t->slot_count)
        return true;
    size_t n = t->slot_count ? 2 * t->slot_count : 256;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    free(t->slots);
    t->slots = slots;
    t->slot_count = n;
    for (size_t i = 0; i < t->count; i++)
        *tally_slot(t, t->rows[i].dimension, t->rows[i].value) = i + 1;
    return true;
}

static report_coverage *tally_row(tally *t, const char *dimension, const char *value)
{
    if (!tally_reindex(t))
        return NULL;
    size_t *slot = tally_slot(t, dimension, value);
    if (*slot)
        return &t->rows[*slot - 1];
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
    *slot = ++t->count;
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
    free(t->slots);
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

/* A coverage walk's rows into the tally under one dimension's name. */
typedef struct tally_walk {
    tally *t;
    const char *dimension;
} tally_walk;

static bool tally_coverage_row(void *ctx, const reader_coverage *row, dmlc_error *err)
{
    tally_walk *w = ctx;
    return tally_add(w->t, w->dimension, row->value, row->cases, row->failed)
           || err_set(err, "out of memory");
}

static bool tally_dimension(reader *d, tally *t, const reader_range *range,
                            reader_dimension dimension, const char *name, dmlc_error *err)
{
    tally_walk w = { t, name };
    return reader_coverage_of(d, range, dimension, tally_coverage_row, &w, err);
}

/* Splits "nan,denormal" class lists: a case counts once under each of its classes. */
static bool tally_classes_row(void *ctx, const reader_coverage *row, dmlc_error *err)
{
    tally_walk *w = ctx;
    char list[128], *save = NULL;
    snprintf(list, sizeof list, "%s", row->value);
    bool any = false;
    for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        any = true;
        if (!tally_add(w->t, w->dimension, c, row->cases, row->failed))
            return err_set(err, "out of memory");
    }
    if (!any && !tally_add(w->t, w->dimension, "none", row->cases, row->failed))
        return err_set(err, "out of memory");
    return true;
}

/* The operator modules' coverage of one (op, params, input sizes, output sizes) group. */
static bool tally_params_row(void *ctx, const reader_params *row, dmlc_error *err)
{
    tally *t = ctx;
    dml_case c;
    op_id op = op_from_name(row->op);
    bool ok = true;
    if (op_case_from_params(op, row->params, row->input_sizes, row->output_sizes, &c)) {
        const char *dims[OP_COVERAGE_MAX], *values[OP_COVERAGE_MAX];
        unsigned n = case_module(&c)->coverage(&c, dims, values, OP_COVERAGE_MAX);
        for (unsigned i = 0; ok && i < n; i++)
            ok = tally_add(t, dims[i], values[i], row->cases, row->failed);
    }
    case_free(&c);
    return ok || err_set(err, "out of memory");
}

/* The dimensions' coverage into t (which the scan filled with the operator modules'
 * coverage, all of whose values tally_seed_known placed), then t into the model. */
static bool load_coverage(reader *d, report_model *m, const reader_range *range, tally *t,
                          dmlc_error *err)
{
    tally_walk classes = { t, "class (unspecified by DirectML)" };
    bool ok = tally_dimension(d, t, range, READER_RANK, "rank", err)
              && tally_dimension(d, t, range, READER_ELEMENTS, "input elements", err)
              && tally_dimension(d, t, range, READER_LAYOUT, "layout", err)
              && tally_dimension(d, t, range, READER_DISTRIBUTION, "distribution", err)
              && reader_coverage_of(d, range, READER_CLASSES, tally_classes_row, &classes, err);
    for (size_t i = 0; ok && i < t->count; i++)
        ok = report_model_add_coverage(m, t->rows[i].dimension, t->rows[i].value,
                                       t->rows[i].cases, t->rows[i].failed)
             || err_set(err, "out of memory");
    return ok;
}

/* ---- entry points ------------------------------------------------------------------- */

/* The runs and cells (all the verdicts need), and with `everything` the signatures, coverage
 * and families too. */
static bool load(report_model *m, const char *path, int64_t run_id, bool all_runs, bool everything,
                 dmlc_error *err)
{
    reader *d = reader_open(path, err);
    if (!d)
        return false;
    reader_range range;
    tally t = { 0 };
    /* One read of the cases answers every walk below; a report's descriptors go to the
     * tally on the way. */
    bool ok = reader_select(d, run_id, all_runs, &range, err)
              && ((m->selection = report_strdup(range.text)) || err_set(err, "out of memory"))
              && (!everything || tally_seed_known(&t) || err_set(err, "out of memory"))
              && reader_scan(d, &range, everything ? tally_params_row : NULL, &t, err)
              && reader_runs(d, &range, add_run, m, err) && reader_cells(d, &range, add_cell, m, err)
              && reader_skips(d, &range, add_skip_reason, m, err)
              && reader_nan_prints(d, &range, add_nan_print, m, err);
    ok = ok && (!everything
                || (reader_signatures(d, &range, add_signature, m, err)
                    && load_coverage(d, m, &range, &t, err)));
    tally_free(&t);
    /* The verdicts alone (run's outlook) still print the fingerprint: families for it when
     * some case held a NaN. */
    ok = ok && (!(everything || report_has_nan_cases(m)) || reader_families(d, &range, &m->families, err))
         && leave_out_changed_nan_cases(d, &range, m, err);
    reader_close(d);
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
                                        "distribution", "kind", "cause", "reason" };
    char **fields[] = { &e->device, &e->op, &e->input, &e->output, &e->indices, &e->layout,
                        &e->distribution, &e->kind, &e->cause, &e->reason };
    enum { KEYS = sizeof keys / sizeof keys[0] };
    if (!json_is_object(o))
        return err_set(err, "expectations[%zu]: must be an object", i);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        size_t k = 0;
        while (k < KEYS && strcmp(key, keys[k]))
            k++;
        if (k == KEYS)
            return err_set(err, "expectations[%zu].%s: unknown field (fields: device, op, input, "
                           "output, indices, layout, distribution, kind, cause, reason)", i, key);
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
