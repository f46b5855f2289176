/*
 * test_classes.c: the reference reports each class exactly when it should (SEMANTICS D4,
 * D6, D7): `nan` when a NaN was among the candidates of some output, `denormal` when
 * flushing fp32 denormals changes the answer (and ref_classify's flushed outputs are that
 * answer), `padding_window` when a pooling window lies entirely in padding; and never
 * otherwise.
 */
#include <stdlib.h>

#include "case_builder.h"
#include "reference.h"
#include "tap.h"

typedef struct classified {
    unsigned classes;
    uint64_t output0, flushed_output0, index0, flushed_index0;
} classified;

static classified classify(dml_case *c)
{
    case_outputs o, flushed;
    if (!case_outputs_alloc(&o, c))
        abort();
    exec_options opt = { NAN_POLICY_IGNORE, false };
    classified r = { ref_classify(c, &opt, &o, &flushed), 0, 0, 0, 0 };
    r.output0 = cb_output_at(c, &o, 0);
    r.flushed_output0 = cb_output_at(c, &flushed, 0);
    if (c->indices.present) {
        r.index0 = cb_index_at(c, &o, 0);
        r.flushed_index0 = cb_index_at(c, &flushed, 0);
    }
    case_outputs_free(&o);
    case_outputs_free(&flushed);
    return r;
}

static classified arg_1d(op_id op, DML_TENSOR_DATA_TYPE type, unsigned n, const uint64_t *bits)
{
    dml_case c;
    UINT sizes[1] = { n }, axes[1] = { 0 };
    cb_arg_case(&c, op, type, 1, sizes, NULL, 1, axes, DML_AXIS_DIRECTION_INCREASING,
                DML_TENSOR_DATA_TYPE_INT64);
    cb_alloc_input(&c);
    for (unsigned i = 0; i < n; i++)
        cb_set_input(&c, i, bits[i]);
    classified r = classify(&c);
    case_free(&c);
    return r;
}

/* Pooling over {1,1,1,w} with a 1-D window along W; index type UINT32. */
static classified pool_row(DML_TENSOR_DATA_TYPE type, unsigned w, const uint64_t *bits,
                           cb_pool_axis axis, DML_TENSOR_DATA_TYPE index_type)
{
    dml_case c;
    UINT sizes[4] = { 1, 1, 1, w };
    cb_pool_axis axes[2] = { { 1, 1, 0, 0, 1 }, axis };
    UINT out_sizes[2] = { 1, cb_pool_out_size(w, &axis, false) };
    cb_pool_case(&c, type, 4, sizes, NULL, axes, out_sizes, index_type);
    cb_alloc_input(&c);
    for (unsigned i = 0; i < w; i++)
        cb_set_input(&c, i, bits[i]);
    classified r = classify(&c);
    case_free(&c);
    return r;
}

#define ARR(...) (const uint64_t[]){ __VA_ARGS__ }
#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F16 DML_TENSOR_DATA_TYPE_FLOAT16

static void nan_class(tap *t)
{
    tap_ok(t, arg_1d(OP_ARGMAX, F32, 3, ARR(0x3f800000, 0x7fc00000, 0)).classes == CASE_CLASS_NAN
              && arg_1d(OP_ARGMIN, F16, 2, ARR(0x7e00, 0x3c00)).classes == CASE_CLASS_NAN,
           "class_nan_present: a NaN among the candidates is reported");
    tap_ok(t, arg_1d(OP_ARGMAX, F32, 3, ARR(0x3f800000, 0x7f800000, 0xff800000)).classes == 0
              && arg_1d(OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT32, 2, ARR(0x7fc00000, 0xffffffff)).classes == 0
              && arg_1d(OP_ARGMAX, F16, 2, ARR(0x7c00, 0xfc00)).classes == 0,
           "class_nan_absent: infinities and NaN-like integer bits are not NaNs");
    /* Windows of 1 tap with stride 2 never look at element 1, so its NaN takes no part. */
    cb_pool_axis skip = { 1, 2, 0, 0, 1 }, all = { 3, 1, 0, 0, 1 };
    tap_ok(t, pool_row(F32, 3, ARR(0, 0x7fc00000, 0), skip, DML_TENSOR_DATA_TYPE_UINT32).classes == 0
              && pool_row(F32, 3, ARR(0, 0x7fc00000, 0), all, DML_TENSOR_DATA_TYPE_UINT32).classes == CASE_CLASS_NAN,
           "class_nan_pooling: only a NaN inside some window counts");
}

static void denormal_class(tap *t)
{
    classified changed = arg_1d(OP_ARGMAX, F32, 2, ARR(0, 0x00000001));
    classified same = arg_1d(OP_ARGMAX, F32, 2, ARR(0x3f800000, 0x00000001));
    classified half = arg_1d(OP_ARGMAX, F16, 2, ARR(0, 0x0001));
    tap_ok(t, changed.classes == CASE_CLASS_DENORMAL && changed.output0 == 1 && changed.flushed_output0 == 0,
           "class_denormal_argmax: the index changes when flushed; flushed outputs hold that answer");
    tap_ok(t, same.classes == 0 && same.output0 == 0 && same.flushed_output0 == 0
              && half.classes == 0 && half.output0 == 1 && half.flushed_output0 == 1,
           "class_denormal_absent: an unchanged answer or a float16 denormal is not the class");
    cb_pool_axis all = { 2, 1, 0, 0, 1 };
    classified pool = pool_row(F32, 2, ARR(0x80000000, 0x00000005), all, DML_TENSOR_DATA_TYPE_UINT32);
    tap_ok(t, pool.classes == CASE_CLASS_DENORMAL && pool.output0 == 5 && pool.index0 == 1
              && pool.flushed_output0 == 0x80000000 && pool.flushed_index0 == 0,
           "class_denormal_pooling: the flushed answer is -0 at index 0, not the denormal");
}

static void padding_class(tap *t)
{
    /* W=1, start padding 2, window 1, stride 1: outputs 0 and 1 lie in padding. */
    cb_pool_axis pad = { 1, 1, 2, 0, 1 };
    classified p32 = pool_row(F32, 1, ARR(0x3f800000), pad, DML_TENSOR_DATA_TYPE_UINT32);
    classified p64 = pool_row(DML_TENSOR_DATA_TYPE_INT8, 1, ARR(5), pad, DML_TENSOR_DATA_TYPE_UINT64);
    tap_ok(t, p32.classes == CASE_CLASS_PADDING_WINDOW && p32.output0 == 0xff800000
              && p32.index0 == 0xFFFFFFFFu
              && p64.classes == CASE_CLASS_PADDING_WINDOW && p64.output0 == 0x80
              && p64.index0 == UINT64_MAX,
           "class_padding_window: lowest value and all-ones index (UINT32 and UINT64)");
    cb_pool_axis partial = { 3, 1, 2, 2, 1 };
    classified q = pool_row(F32, 1, ARR(0xbf800000), partial, DML_TENSOR_DATA_TYPE_UINT32);
    tap_ok(t, q.classes == 0 && q.output0 == 0xbf800000 && q.index0 == 0,
           "class_padding_window_absent: padding never wins, even against -1");
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    nan_class(&t);
    denormal_class(&t);
    padding_class(&t);
    return tap_done(&t);
}
