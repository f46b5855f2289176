/*
 * nan_fingerprint.c: one walk of every output element's deciders (the module's
 * visit_deciders), feeding a nan_scan per row or window; a row that holds a NaN keeps the
 * policies whose pick is the backend's answer.
 */
#include "nan_fingerprint.h"

#include "classify.h"
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

static uint64_t bits_at(const uint8_t *buf, const case_tensor *t, uint64_t logical)
{
    tensor_view v;
    case_tensor_view(t, &v);
    return dtype_load_bits(buf, v.type, tensor_view_offset(&v, logical));
}

/* Does the backend's answer at output element `out` name the element `pick`?  An index must
 * name it; a pooled value must be its bits (a NaN: any NaN, SEMANTICS D4). */
static bool answer_is(const dml_case *c, const row_walk *w, const case_outputs *got, uint64_t out,
                      const nan_pick *pick)
{
    if (case_module(c)->output_is_index) {
        picked_input at = classify_picked_input(c, out, bits_at(got->output, &c->output, out));
        return at.valid && at.logical == pick->position;
    }
    uint64_t value = bits_at(got->output, &c->output, out);
    bool value_ok = pick->is_nan ? dtype_bits_is_nan(w->type, value)
                                 : value == dtype_load_bits(c->input_data, w->type,
                                                            tensor_view_offset(&w->in, pick->position));
    if (!value_ok || !c->indices.present)
        return value_ok;
    picked_input at = classify_picked_input(c, out, bits_at(got->indices, &c->indices, out));
    return at.valid && at.logical == pick->position;
}

nan_fingerprint nan_fingerprint_case(const dml_case *c, const case_outputs *got)
{
    nan_fingerprint f = { 0, NAN_POLICIES_ALL };
    row_walk w = { .type = c->input.type,
                   .orient = order_orient_mask(op_table[c->op].flags & OPF_MINIMIZES) };
    if (!dtype_is_float(w.type))
        return f;
    case_tensor_view(&c->input, &w.in);
    tensor_view out_view;
    case_tensor_view(&c->output, &out_view);
    uint64_t n = case_tensor_elements(&c->output);
    for (uint64_t out = 0; out < n && f.policies && w.visits < NAN_FINGERPRINT_MAX_VISITS; out++) {
        uint32_t coords[DML_MAX_RANK];
        tensor_view_coords(&out_view, out, coords);
        nan_scan_init(&w.scan, c->direction == DML_AXIS_DIRECTION_DECREASING);
        case_module(c)->visit_deciders(c, coords, visit_element, &w, NULL);
        if (!w.scan.saw_nan)
            continue;
        f.nan_rows++;
        for (unsigned p = 0; p < NAN_POLICY_COUNT; p++) {
            nan_pick pick = nan_scan_answer(&w.scan, (nan_policy_id)p);
            if (!answer_is(c, &w, got, out, &pick))
                f.policies &= ~(1u << p);
        }
    }
    return f;
}
