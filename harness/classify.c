/*
 * classify.c: verdicts and mismatch kinds.  Only runs element by element when the fast
 * compare_outputs() found a difference, so its loops favour clarity over speed.
 *
 * An element's class (nan / denormal / padding_window) is read from the inputs that decide
 * it: the reduction of an arg-reduce element or the window of a pooling element.  The kind
 * of a differing element is read from the inputs at the expected and the returned index:
 * equal values mean the tie went the other way; a value that no real window element holds
 * means padding won; and so on (see kind_of_arg_element / kind_of_pool_element).
 */
#include "classify.h"

#include "op_module.h"

#include <string.h>

#include "dtype.h"

static const char *const kind_names[KIND_COUNT] = {
    [KIND_NONE] = NULL,
#define X(name) [KIND_##name] = #name,
#define F(name, status) X(name)
    MISMATCH_KINDS(X, F)
#undef F
#undef X
};

const char *mismatch_kind_name(mismatch_kind k)
{
    return k < KIND_COUNT ? kind_names[k] : "?";
}

mismatch_kind mismatch_kind_from_name(const char *name)
{
    for (int k = 1; k < KIND_COUNT; k++)
        if (!strcmp(kind_names[k], name))
            return (mismatch_kind)k;
    return KIND_COUNT;
}

const char *verdict_name(verdict v)
{
    static const char *const names[VERDICT_COUNT] = { "pass", "fail", "unspecified", "skip", "error" };
    return v < VERDICT_COUNT ? names[v] : "?";
}

/* ---- Values ------------------------------------------------------------------------- */

/* Numeric equality of two elements of type t (+0 == -0; NaN equals nothing). */
static bool values_equal(DML_TENSOR_DATA_TYPE t, uint64_t a, uint64_t b)
{
    if (dtype_is_float(t))
        return dtype_bits_to_double(t, a) == dtype_bits_to_double(t, b);
    return a == b;
}

static uint64_t element_bits(const uint8_t *buf, const case_tensor *t, uint64_t logical)
{
    tensor_view v;
    case_tensor_view(t, &v);
    return dtype_load_bits(buf, v.type, tensor_view_offset(&v, logical));
}

static uint64_t input_bits_at(const dml_case *c, const uint32_t *coords)
{
    tensor_view v;
    case_tensor_view(&c->input, &v);
    return dtype_load_bits(c->input_data, v.type, tensor_view_offset_coords(&v, coords));
}

static void output_coords(const dml_case *c, uint64_t out_logical, uint32_t *coords)
{
    tensor_view v;
    case_tensor_view(&c->output, &v);
    tensor_view_coords(&v, out_logical, coords);
}

/* ---- Deciders (the operator's module says which inputs decide an output element) ------ */

typedef struct find_bits { uint64_t bits; } find_bits;
typedef struct find_index { uint64_t logical; } find_index;

static bool visit_nan(const dml_case *c, const uint32_t *in, void *ctx)
{
    (void)ctx;
    return dtype_bits_is_nan(c->input.type, input_bits_at(c, in));
}

static bool visit_find_bits(const dml_case *c, const uint32_t *in, void *ctx)
{
    return input_bits_at(c, in) == ((find_bits *)ctx)->bits;
}

static bool visit_find_index(const dml_case *c, const uint32_t *in, void *ctx)
{
    return op_logical_of_coords(&c->input, in) == ((find_index *)ctx)->logical;
}

/* ---- Picked inputs ------------------------------------------------------------------ */

picked_input classify_picked_input(const dml_case *c, uint64_t out_logical, uint64_t index_bits)
{
    picked_input p = { .valid = false };
    uint32_t out[DML_MAX_RANK], in[DML_MAX_RANK];
    output_coords(c, out_logical, out);
    if (!case_module(c)->input_of_index(c, out, index_bits, in))
        return p;
    p.valid = true;
    p.logical = op_logical_of_coords(&c->input, in);
    p.bits = input_bits_at(c, in);
    return p;
}

/* ---- Kinds of differing elements ---------------------------------------------------- */

/* Facts about one differing logical element of the output (and indices). */
typedef struct element_case {
    uint64_t logical;
    bool output_differs, indices_differs;
    uint64_t exp_out, got_out, exp_idx, got_idx;
    bool nan_class, padding_window_class, denormal_class;
    decider_facts deciders;
    uint32_t coords[DML_MAX_RANK];
} element_case;

/* OutputTensor holds positions (op_module.output_is_index): a wrong one, or a tie. */
static mismatch_kind kind_of_position_output(const dml_case *c, const element_case *e, judgement *j)
{
    j->at_expected = classify_picked_input(c, e->logical, e->exp_out);
    j->at_got = classify_picked_input(c, e->logical, e->got_out);
    if (!j->at_got.valid)
        return KIND_wrong_index;
    if (e->nan_class)
        return KIND_nan_handling;
    /* SPEC D3: equal values at both indices: the tie rule was applied the other way. */
    if (j->at_expected.valid && values_equal(c->input.type, j->at_expected.bits, j->at_got.bits))
        return KIND_tie_other_way;
    return KIND_wrong_index;
}

/* OutputTensor holds values, positions in an optional OutputIndicesTensor (pooling). */
static mismatch_kind kind_of_value_output(const dml_case *c, const element_case *e, judgement *j)
{
    const op_module *m = case_module(c);
    DML_TENSOR_DATA_TYPE t = c->input.type;
    if (e->nan_class)
        return KIND_nan_handling;
    /* SPEC D7: padding never wins; a window entirely in padding is class padding_window. */
    if (e->deciders.all_padding)
        return KIND_padding_selected;
    find_bits fb = { e->got_out };
    bool got_value_real = m->visit_deciders(c, e->coords, visit_find_bits, &fb, NULL);
    if (e->deciders.has_padding && !got_value_real)
        return KIND_padding_selected;
    if (e->indices_differs) {
        j->at_expected = classify_picked_input(c, e->logical, e->exp_idx);
        j->at_got = classify_picked_input(c, e->logical, e->got_idx);
        find_index fi = { j->at_got.logical };
        if (!j->at_got.valid || !m->visit_deciders(c, e->coords, visit_find_index, &fi, NULL))
            return KIND_wrong_index;
        /* SPEC D3: the first element of the window wins a tie. */
        if (j->at_expected.valid && values_equal(t, j->at_expected.bits, j->at_got.bits))
            return KIND_tie_other_way;
        return KIND_wrong_index;
    }
    /* Only the value differs: -0 for +0 is a tie gone the other way (the value is the exact
     * bits of the chosen element); a smaller window element is a wrong choice. */
    if (values_equal(t, e->exp_out, e->got_out))
        return KIND_tie_other_way;
    return got_value_real ? KIND_wrong_index : KIND_value_bits_differ;
}

/* Reads the element's raw bits on every side and whether it differs. */
static bool load_element(const dml_case *c, const case_outputs *exp, const case_outputs *got,
                         uint64_t i, element_case *e)
{
    memset(e, 0, sizeof *e);
    e->logical = i;
    e->exp_out = element_bits(exp->output, &c->output, i);
    e->got_out = element_bits(got->output, &c->output, i);
    e->output_differs = !compare_bits_equal(c->output.type, e->exp_out, e->got_out);
    if (c->indices.present) {
        e->exp_idx = element_bits(exp->indices, &c->indices, i);
        e->got_idx = element_bits(got->indices, &c->indices, i);
        e->indices_differs = !compare_bits_equal(c->indices.type, e->exp_idx, e->got_idx);
    }
    return e->output_differs || e->indices_differs;
}

/* True when got equals the flushed-input answer at element i. */
static bool matches(const dml_case *c, const case_outputs *ref, const element_case *e, bool got_side)
{
    uint64_t out = element_bits(ref->output, &c->output, e->logical);
    if (!compare_bits_equal(c->output.type, out, got_side ? e->got_out : e->exp_out))
        return false;
    if (!c->indices.present)
        return true;
    uint64_t idx = element_bits(ref->indices, &c->indices, e->logical);
    return compare_bits_equal(c->indices.type, idx, got_side ? e->got_idx : e->exp_idx);
}

/* SEMANTICS D6: the element is class denormal when flushing changes its answer (cheap). */
static void element_denormal_class(const dml_case *c, const case_outputs *flushed, element_case *e)
{
    e->denormal_class = flushed && !matches(c, flushed, e, false);
}

/* The nan and padding_window classes: walks the element's reduction or window. */
static void element_classes(const dml_case *c, element_case *e)
{
    output_coords(c, e->logical, e->coords);
    e->nan_class = case_module(c)->visit_deciders(c, e->coords,
                                                  dtype_is_float(c->input.type) ? visit_nan : NULL,
                                                  NULL, &e->deciders);
    e->padding_window_class = e->deciders.all_padding;
}

static void record_first(const dml_case *c, const element_case *e, judgement *j)
{
    j->has_first = true;
    mismatch *m = &j->first;
    bool on_output = e->output_differs;
    m->tensor = on_output ? "output" : "indices";
    m->logical_index = e->logical;
    m->rank = c->output.rank;
    memcpy(m->coords, e->coords, sizeof m->coords);
    m->expected_bits = on_output ? e->exp_out : e->exp_idx;
    m->got_bits = on_output ? e->got_out : e->got_idx;
}

void judge_outputs(const dml_case *c, const case_outputs *expected, const case_outputs *flushed,
                   const case_outputs *got, const judge_rules *rules, judgement *j)
{
    memset(j, 0, sizeof *j);
    /* Fast path: identical buffers have identical logical elements (both sides start from
     * the same canary fill, so bytes outside the elements agree unless a side wrote them). */
    bool same_bytes = !memcmp(expected->output, got->output, expected->output_bytes)
        && (!c->indices.present || !memcmp(expected->indices, got->indices, expected->indices_bytes));
    if (same_bytes || compare_outputs(c, expected, got, NULL)) {
        j->verdict = VERDICT_PASS;
        return;
    }
    bool judged_seen = false, unjudged_seen = false;
    uint64_t n = case_tensor_elements(&c->output);
    for (uint64_t i = 0; i < n; i++) {
        element_case e;
        if (!load_element(c, expected, got, i, &e))
            continue;
        element_denormal_class(c, flushed, &e);
        /* SEMANTICS D6: a device that may flush fp32 denormals passes the flushed answer. */
        if (!rules->strict && rules->device_flushes && e.denormal_class && matches(c, flushed, &e, true))
            continue;
        j->count += e.output_differs + e.indices_differs;
        if (judged_seen) /* the verdict and the reported element are settled: only count */
            continue;
        element_classes(c, &e);
        bool judged = rules->strict
            || !(e.nan_class || e.padding_window_class || e.denormal_class);
        if (unjudged_seen && !judged)
            continue;
        judgement tmp = *j;
        tmp.kind = case_module(c)->output_is_index ? kind_of_position_output(c, &e, &tmp)
                                                   : kind_of_value_output(c, &e, &tmp);
        record_first(c, &e, &tmp);
        *j = tmp;
        judged_seen |= judged;
        unjudged_seen |= !judged;
    }
    j->first.count = j->count;
    j->verdict = judged_seen ? VERDICT_FAIL : unjudged_seen ? VERDICT_UNSPECIFIED : VERDICT_PASS;
    if (j->verdict == VERDICT_PASS)
        j->kind = KIND_NONE;
}

void judge_status(run_status status, mismatch_kind crash_or_hang, judgement *j)
{
    memset(j, 0, sizeof *j);
    j->verdict = VERDICT_FAIL;
    if (crash_or_hang != KIND_NONE) {
        j->kind = crash_or_hang;
        return;
    }
    switch (status) {
    case RUN_OK: j->verdict = VERDICT_PASS; break;
    case RUN_UNSUPPORTED: j->verdict = VERDICT_SKIP; break;
    case RUN_BACKEND_ERROR: j->kind = KIND_backend_error; break;
#define X(finding, status) case RUN_##status: j->kind = KIND_##finding; break;
    RUN_FINDINGS(X)
#undef X
    /* The harness sends only descriptors DirectML accepts at the case's level. */
    case RUN_REJECTED: j->kind = KIND_rejected_valid; break;
    /* Unsupported within what the backend claims: not a wrong answer, but it blocks
     * conformance at that level, so it fails (issue 10: a backend that skips every rank-8
     * case must not pass). */
    case RUN_UNSUPPORTED_CLAIMED: j->kind = KIND_unsupported_required; break;
    case RUN_CRASHED: j->kind = KIND_crash; break;
    case RUN_HUNG: j->kind = KIND_hang; break;
    }
}

typedef struct window_list {
    picked_input *items;
    unsigned max, count;
} window_list;

static bool visit_list(const dml_case *c, const uint32_t *in, void *ctx)
{
    window_list *l = ctx;
    if (l->count < l->max)
        l->items[l->count] = (picked_input){ .valid = true, .logical = op_logical_of_coords(&c->input, in),
                                             .bits = input_bits_at(c, in) };
    l->count++;
    return false;
}

unsigned classify_window(const dml_case *c, uint64_t out_logical, picked_input *items, unsigned max,
                         bool *has_padding)
{
    uint32_t out[DML_MAX_RANK];
    decider_facts f;
    window_list l = { items, max, 0 };
    output_coords(c, out_logical, out);
    case_module(c)->visit_deciders(c, out, visit_list, &l, &f);
    *has_padding = f.has_padding;
    return l.count;
}
