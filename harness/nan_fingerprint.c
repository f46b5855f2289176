/*
 * nan_fingerprint.c: one walk of every output element's deciders (the module's
 * visit_deciders), feeding a nan_scan per row or window; a row that holds a NaN keeps the
 * policies whose pick is the backend's answer.
 */
#include "nan_fingerprint.h"

#include "dtype.h"
#include "op_module.h"
#include "order.h"

typedef struct row_walk {
    tensor_view in;
    DML_TENSOR_DATA_TYPE type;
    int64_t orient;
    nan_scan scan;
    uint64_t visits;
} row_walk;

static bool visit_element(const dml_case *c, const uint32_t *coords, void *ctx)
{
    row_walk *w = ctx;
    uint64_t bits = dtype_load_bits(c->input_data, w->type, tensor_view_offset_coords(&w->in, coords));
    bool is_f32 = w->type == DML_TENSOR_DATA_TYPE_FLOAT32;
    bool is_nan = is_f32 ? order_f32_is_nan((uint32_t)bits) : order_f16_is_nan((uint16_t)bits);
    int64_t key = is_f32 ? order_key_f32((uint32_t)bits, false) : order_key_f16((uint16_t)bits);
    nan_scan_step(&w->scan, key ^ w->orient, is_nan, op_logical_of_coords(&c->input, coords));
    w->visits++;
    return false;
}

/* The backend's answer at one output element, read once for all the policies. */
typedef struct backend_answer {
    bool names_input; /* its index (index output, or indices) names an input element, */
    uint64_t named;   /* this one (logical) */
    uint64_t value;   /* pooling: the value it wrote */
} backend_answer;

/* The input element an index names, as classify_picked_input finds it, without loading it:
 * only its position is compared. */
static void name_input(const dml_case *c, const uint32_t *out, uint64_t index_bits, backend_answer *a)
{
    uint32_t in[DML_MAX_RANK];
    a->names_input = case_module(c)->input_of_index(c, out, index_bits, in);
    if (a->names_input)
        a->named = op_logical_of_coords(&c->input, in);
}

/* Views of the answer's tensors, made once per case. */
typedef struct answer_views {
    tensor_view output, indices;
} answer_views;

/* The answer at the output element with coordinates `out`. */
static backend_answer read_answer(const dml_case *c, const answer_views *v, const case_outputs *got,
                                  const uint32_t *out)
{
    backend_answer a = { .names_input = false };
    uint64_t output_bits = dtype_load_bits(got->output, v->output.type,
                                           tensor_view_offset_coords(&v->output, out));
    if (case_module(c)->output_is_index)
        name_input(c, out, output_bits, &a);
    else {
        a.value = output_bits;
        if (c->indices.present)
            name_input(c, out, dtype_load_bits(got->indices, v->indices.type,
                                               tensor_view_offset_coords(&v->indices, out)), &a);
    }
    return a;
}

/* Does the backend's answer name the element `pick`?  An index must name it; a pooled value
 * must be its bits (a NaN: any NaN, SEMANTICS D4). */
static bool answer_is(const dml_case *c, const row_walk *w, const backend_answer *a, const nan_pick *pick)
{
    if (case_module(c)->output_is_index)
        return a->names_input && a->named == pick->position;
    bool value_ok = pick->is_nan ? dtype_bits_is_nan(w->type, a->value)
                                 : a->value == dtype_load_bits(c->input_data, w->type,
                                                               tensor_view_offset(&w->in, pick->position));
    if (!value_ok || !c->indices.present)
        return value_ok;
    return a->names_input && a->named == pick->position;
}

nan_fingerprint nan_fingerprint_case(const dml_case *c, const case_outputs *got)
{
    nan_fingerprint f = { 0, NAN_POLICIES_ALL };
    row_walk w = { .type = c->input.type,
                   .orient = order_orient_mask(op_table[c->op].flags & OPF_MINIMIZES) };
    if (!dtype_is_float(w.type))
        return f;
    case_tensor_view(&c->input, &w.in);
    answer_views views;
    case_tensor_view(&c->output, &views.output);
    if (c->indices.present)
        case_tensor_view(&c->indices, &views.indices);
    uint64_t n = case_tensor_elements(&c->output);
    uint32_t coords[DML_MAX_RANK] = { 0 }; /* of output element `out` */
    uint64_t offset = 0; /* unused: read_answer addresses output and indices by coords */
    for (uint64_t out = 0; out < n && f.policies && w.visits < NAN_FINGERPRINT_MAX_VISITS;
         out++, tensor_view_step(&views.output, coords, &offset)) {
        nan_scan_init(&w.scan, c->direction == DML_AXIS_DIRECTION_DECREASING);
        case_module(c)->visit_deciders(c, coords, visit_element, &w, NULL);
        if (!w.scan.saw_nan)
            continue;
        f.nan_rows++;
        backend_answer answer = read_answer(c, &views, got, coords);
        for (unsigned p = 0; p < NAN_POLICY_COUNT; p++) {
            nan_pick pick = nan_scan_answer(&w.scan, (nan_policy_id)p);
            if (!answer_is(c, &w, &answer, &pick))
                f.policies &= ~(1u << p);
        }
    }
    return f;
}
