/*
 * run_record.c: a judged case becomes a row (the cases and results tables, through the
 * recorder's writer thread); a failure also becomes a signature row, and the first signature
 * of a family in this run prints its live line with the check's explanation and replay line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dtype.h"
#include "op_module.h"
#include "replay.h"
#include "run_internal.h"

/* Per-case JSON columns (sizes, strides, params) hold only numbers, booleans and fixed key
 * and enum names, so they are written straight into a reusable buffer: going through jansson
 * (a tree, malloc per node, snprintf per integer) cost more than the SQLite insert itself.
 * The text is what json_dumps(..., JSON_COMPACT) gives for the same object (insertion order,
 * no spaces); never append a string that may need escaping here. */
typedef struct json_text {
    char buf[768];
    size_t len;
    bool overflow;
} json_text;

static void jt_raw(json_text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len + n >= sizeof t->buf) {
        t->overflow = true;
        return;
    }
    memcpy(t->buf + t->len, s, n + 1);
    t->len += n;
}

static void jt_uint(json_text *t, uint64_t v)
{
    char digits[24], *p = digits + sizeof digits;
    *--p = 0;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    jt_raw(t, p);
}

/* "[1,2,3]" */
static void jt_uint_array(json_text *t, const UINT *v, unsigned n)
{
    jt_raw(t, "[");
    for (unsigned i = 0; i < n; i++) {
        if (i)
            jt_raw(t, ",");
        jt_uint(t, v[i]);
    }
    jt_raw(t, "]");
}

/* The array as JSON text in t, or NULL when it does not fit (never for rank <= 8). */
static const char *uint_array_text(json_text *t, const UINT *v, unsigned n)
{
    t->len = 0;
    t->overflow = false;
    t->buf[0] = 0;
    jt_uint_array(t, v, n);
    return t->overflow ? NULL : t->buf;
}

static const char *params_text(json_text *t, const dml_case *c)
{
    t->len = 0;
    t->overflow = !case_module(c)->params_json(c, t->buf, sizeof t->buf);
    return t->overflow ? NULL : t->buf;
}

/* The module's axes coverage value (ARGMIN/ARGMAX), stored per case in cases.axis_kind. */
static const char *axis_kind(const dml_case *c)
{
    const char *dims[OP_COVERAGE_MAX], *values[OP_COVERAGE_MAX];
    unsigned n = case_module(c)->coverage(c, dims, values, OP_COVERAGE_MAX);
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(dims[i], OP_COVERAGE_AXES))
            return values[i];
    return NULL;
}


static seen_signature *remember_signature(runner *r, int64_t id, bool is_new, uint64_t index,
                                          const dml_case *c, const judgement *j)
{
    for (size_t i = 0; i < r->sig_count; i++)
        if (r->sigs[i].id == id) {
            r->sigs[i].count++;
            return &r->sigs[i];
        }
    if (r->sig_count == r->sig_cap) {
        size_t cap = r->sig_cap ? 2 * r->sig_cap : 16;
        seen_signature *s = realloc(r->sigs, cap * sizeof *s);
        if (!s)
            return NULL;
        r->sigs = s;
        r->sig_cap = cap;
    }
    seen_signature *s = &r->sigs[r->sig_count++];
    *s = (seen_signature){ .id = id, .is_new = is_new, .index = index, .verdict = j->verdict,
                           .kind = j->kind, .op = c->op, .feature_level = c->feature_level,
                           .input_type = c->input.type,
                           .input_elements = case_tensor_elements(&c->input), .count = 1 };
    r->rep->signatures = (unsigned)r->sig_count;
    r->rep->new_signatures += is_new;
    return s;
}

/* Same family (families.h: one bug, one row): operator family, kind and verdict. */
bool runner_same_family(const seen_signature *a, const seen_signature *b)
{
    return op_table[a->op].module == op_table[b->op].module && a->kind == b->kind
           && a->verdict == b->verdict;
}

/* True when no earlier signature of this run is of the same family. */
static bool first_of_family(const runner *r, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (runner_same_family(&r->sigs[k], &r->sigs[i]))
            return false;
    return true;
}

static const char *type_or_null(const case_tensor *t)
{
    return t->present ? dtype_name(t->type) : NULL;
}

/* The signature's first line, then the check's explanation of its first case, replay last. */
static void print_signature_line(runner *r, const slot_case *sc, uint64_t index, const check_result *res,
                                 const char *replay, bool is_new)
{
    if (r->o->quiet)
        return;
    runner_clear_progress(r);
    const dml_case *c = &sc->c;
    char name[GEN_CASE_ID_SIZE];
    runner_case_name(r->o->seed, index, name);
    /* A kind read from one element is a guess until probing confirms the root cause. */
    bool suspected = r->o->diagnose && mismatch_kind_from_outputs(res->j.kind);
    fprintf(r->o->out, "%s %s kind=%s%s op=%s fl=%s input=%s output=%s indices=%s layout=%s "
            "dist=%s case=%s\n", is_new ? "new-signature" : "signature",
            verdict_name(res->j.verdict), mismatch_kind_name(res->j.kind),
            suspected ? " (suspected)" : "", op_table[c->op].name,
            fl_name(c->feature_level), dtype_name(c->input.type), dtype_name(c->output.type),
            c->indices.present ? dtype_name(c->indices.type) : "-", gen_layout_name(sc->info.layout),
            gen_distribution_name(sc->info.dist), name);
    char params[512]; /* the descriptor's parameters: axes and direction, window, strides... */
    case_module(c)->describe(c, params, sizeof params);
    fprintf(r->o->out, "  descriptor: input sizes [");
    for (unsigned d = 0; d < c->input.rank; d++)
        fprintf(r->o->out, "%s%u", d ? "," : "", c->input.sizes[d]);
    fprintf(r->o->out, "]; %s\n", params);
    check_print(r->o->out, "  ", c, res, replay);
}

static bool record_signature(runner *r, const slot_case *sc, uint64_t index, const check_result *res,
                             const char *first_json, dmlc_error *err)
{
    const dml_case *c = &sc->c;
    const judgement *j = &res->j;
    char case_id[GEN_CASE_ID_SIZE], replay[RUNNER_REPLAY_LINE_MAX], seen_at[32];
    runner_case_name(r->o->seed, index, case_id);
    replay_case_line(replay, sizeof replay, case_id, r->replay_args);
    store_signature_row row = {
        .backend = r->backend_text, .device_id = r->device_id, .op = op_table[c->op].name,
        .feature_level = fl_name(c->feature_level), .input_type = dtype_name(c->input.type),
        .output_type = dtype_name(c->output.type), .indices_type = type_or_null(&c->indices),
        .layout = gen_layout_name(sc->info.layout), .distribution = gen_distribution_name(sc->info.dist),
        .kind = mismatch_kind_name(j->kind), .verdict = verdict_name(j->verdict),
        .run_id = r->rep->run_id, .seen_at = clock_utc_text(seen_at, sizeof seen_at), .case_id = case_id,
        .elements = case_tensor_elements(&c->input), .first_mismatch = first_json, .replay = replay,
    };
    int64_t id;
    bool is_new;
    if (!store_signature(r->db, &row, &id, &is_new, err))
        return false;
    size_t before = r->sig_count;
    if (!remember_signature(r, id, is_new, index, c, j))
        return err_set(err, "out of memory remembering signatures");
    /* First of its family in this run: say so, with its replay command; the family's other
     * signatures are counted, and the summary lists the families. */
    if (r->sig_count > before && first_of_family(r, r->sig_count - 1))
        print_signature_line(r, sc, index, res, replay, is_new);
    return true;
}

bool runner_record_case(runner *r, const slot_case *sc, uint64_t index, const check_result *res,
                        double time_us, const char *detail, dmlc_error *err)
{
    const dml_case *c = &sc->c;
    const judgement *j = &res->j;
    char classes[64], also[512];
    json_text in_sizes_text, in_strides_text, out_sizes_text, params_buf;
    const char *in_sizes = uint_array_text(&in_sizes_text, c->input.sizes, c->input.rank);
    const char *in_strides = c->input.has_strides
        ? uint_array_text(&in_strides_text, c->input.strides, c->input.rank) : NULL;
    const char *out_sizes = uint_array_text(&out_sizes_text, c->output.sizes, c->output.rank);
    const char *params = params_text(&params_buf, c);
    char *first = check_first_json(c, res);
    store_case_row row = {
        .run_id = r->rep->run_id, .case_index = index, .op = op_table[c->op].name,
        .feature_level = fl_name(c->feature_level), .input_type = dtype_name(c->input.type),
        .output_type = dtype_name(c->output.type), .indices_type = type_or_null(&c->indices),
        .rank = c->input.rank, .elements = case_tensor_elements(&c->input), .input_sizes = in_sizes,
        .input_strides = in_strides, .output_sizes = out_sizes, .params = params,
        .axis_kind = axis_kind(c), .layout = gen_layout_name(sc->info.layout),
        .distribution = gen_distribution_name(sc->info.dist),
        .classes = case_classes_str(res->classes, classes, sizeof classes),
        .verdict = verdict_name(j->verdict), .kind = mismatch_kind_name(j->kind),
        .mismatch_count = j->count, .first_mismatch = first, .detail = detail, .time_us = time_us,
        .has_nan_policies = res->nan.nan_rows > 0, .nan_policies = res->nan.policies,
        .also_kinds = mismatch_kinds_text(j->also_kinds, also, sizeof also),
    };
    bool ok = in_sizes && out_sizes && params && (in_strides || !c->input.has_strides)
        ? recorder_case(r->rec, &row, err) : err_set(err, "a case row's JSON does not fit its buffer");
    /* Signatures need their row id now: the writer is drained, then the store is ours. */
    if (ok && (j->verdict == VERDICT_FAIL || j->verdict == VERDICT_UNSPECIFIED))
        ok = recorder_drain(r->rec, err) && record_signature(r, sc, index, res, first, err);
    free(first);
    r->rep->cases++;
    r->rep->by_verdict[j->verdict]++;
    r->rep->by_level[runner_fl_slot(c->feature_level)][j->verdict]++;
    r->uncommitted++;
    return ok;
}
