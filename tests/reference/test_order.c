/*
 * test_order.c: one test per clause of reference/order.h, each through the reference's
 * public entry points (ref_run, ref_classify) on tiny hand-made cases whose answers follow
 * from the clause's words, plus an exhaustive check that float16 keys order halves exactly
 * as their float values do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_builder.h"
#include "half.h"
#include "order.h"
#include "reference.h"
#include "tap.h"

#define F32_NAN_A 0x7fc00001u
#define F32_NAN_B 0x7f800002u
#define F32_NAN_C 0xffc00003u
#define F32_NEG_INF 0xff800000u
#define F32_POS_INF 0x7f800000u
#define F32_NEG_ZERO 0x80000000u
#define F32_ONE 0x3f800000u

typedef struct arg_run {
    DML_TENSOR_DATA_TYPE type;
    DML_AXIS_DIRECTION direction;
    nan_policy policy;
    bool flush;
} arg_run;

/* The index ARGMIN/ARGMAX returns for a 1-D input of raw bits. */
static uint64_t arg_index(op_id op, arg_run r, unsigned n, const uint64_t *bits)
{
    dml_case c;
    UINT sizes[1] = { n }, axes[1] = { 0 };
    cb_arg_case(&c, op, r.type, 1, sizes, NULL, 1, axes, r.direction, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(&c);
    for (unsigned i = 0; i < n; i++)
        cb_set_input(&c, i, bits[i]);
    case_outputs o;
    if (!case_outputs_alloc(&o, &c))
        abort();
    exec_options opt = { r.policy, r.flush };
    ref_run(&c, &opt, &o);
    uint64_t index = cb_output_at(&c, &o, 0);
    case_outputs_free(&o);
    case_free(&c);
    return index;
}

/* MAX_POOLING2 over a {1,1,1,n} input with one window covering all of it. */
static void pool_all(DML_TENSOR_DATA_TYPE type, nan_policy policy, unsigned n,
                     const uint64_t *bits, uint64_t *value, uint64_t *index)
{
    dml_case c;
    UINT sizes[4] = { 1, 1, 1, n }, out_sizes[2] = { 1, 1 };
    cb_pool_axis axes[2] = { { 1, 1, 0, 0, 1 }, { n, 1, 0, 0, 1 } };
    cb_pool_case(&c, type, 4, sizes, NULL, axes, out_sizes, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(&c);
    for (unsigned i = 0; i < n; i++)
        cb_set_input(&c, i, bits[i]);
    case_outputs o;
    if (!case_outputs_alloc(&o, &c))
        abort();
    exec_options opt = { policy, false };
    ref_run(&c, &opt, &o);
    *value = cb_output_at(&c, &o, 0);
    *index = cb_index_at(&c, &o, 0);
    case_outputs_free(&o);
    case_free(&c);
}

static const arg_run F32_INC = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_INCREASING, NAN_POLICY_IGNORE, false };
static const arg_run F32_DEC = { DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_DECREASING, NAN_POLICY_IGNORE, false };

static arg_run with_policy(arg_run r, nan_policy p) { r.policy = p; return r; }
static arg_run with_flush(arg_run r) { r.flush = true; return r; }

#define ARR(...) (const uint64_t[]){ __VA_ARGS__ }
#define N(...) (unsigned)(sizeof(ARR(__VA_ARGS__)) / sizeof(uint64_t))

static void clause_nan_ignore(tap *t)
{
    uint64_t v, i;
    pool_all(DML_TENSOR_DATA_TYPE_FLOAT32, NAN_POLICY_IGNORE, 4, ARR(F32_ONE, F32_NAN_A, 0x40400000, F32_NAN_B), &v, &i);
    tap_ok(t, arg_index(OP_ARGMAX, F32_INC, 4, ARR(F32_ONE, F32_NAN_A, 0x40400000, F32_NAN_B)) == 2
              && arg_index(OP_ARGMIN, F32_INC, 3, ARR(F32_NAN_A, 0x40a00000, F32_ONE)) == 2
              && arg_index(OP_ARGMAX, F32_DEC, 3, ARR(F32_ONE, F32_NAN_A, F32_ONE)) == 2
              && arg_index(OP_ARGMAX, (arg_run){ DML_TENSOR_DATA_TYPE_FLOAT16, 0, 0, 0 }, 3,
                           ARR(0x3c00, 0x7e00, 0xbc00)) == 0
              && v == 0x40400000 && i == 2,
           "order_d4_nan_ignore: NaN never beats a number (argmax, argmin, f16, pooling)");
}

static void clause_nan_propagate(tap *t)
{
    arg_run inc = with_policy(F32_INC, NAN_POLICY_PROPAGATE), dec = with_policy(F32_DEC, NAN_POLICY_PROPAGATE);
    uint64_t v, i;
    pool_all(DML_TENSOR_DATA_TYPE_FLOAT32, NAN_POLICY_PROPAGATE, 3, ARR(F32_POS_INF, F32_NAN_B, F32_NAN_A), &v, &i);
    tap_ok(t, arg_index(OP_ARGMAX, inc, 3, ARR(F32_ONE, F32_NAN_A, F32_POS_INF)) == 1
              && arg_index(OP_ARGMIN, inc, 3, ARR(F32_NEG_INF, F32_NAN_A, 0)) == 1
              && arg_index(OP_ARGMAX, inc, 4, ARR(F32_ONE, F32_NAN_A, F32_ONE, F32_NAN_B)) == 1
              && arg_index(OP_ARGMAX, dec, 4, ARR(F32_NAN_A, F32_ONE, F32_NAN_B, F32_ONE)) == 2
              && v == F32_NAN_B && i == 1,
           "order_d4_nan_propagate: NaN beats everything; first NaN, last under DECREASING");
}

static void clause_all_nan(tap *t)
{
    uint64_t v, i;
    pool_all(DML_TENSOR_DATA_TYPE_FLOAT32, NAN_POLICY_IGNORE, 3, ARR(F32_NAN_C, F32_NAN_A, F32_NAN_B), &v, &i);
    tap_ok(t, arg_index(OP_ARGMAX, F32_INC, 3, ARR(F32_NAN_A, F32_NAN_B, F32_NAN_C)) == 0
              && arg_index(OP_ARGMIN, F32_INC, 3, ARR(F32_NAN_A, F32_NAN_B, F32_NAN_C)) == 0
              && v == F32_NAN_C && i == 0,
           "order_d4_all_nan_first: all-NaN picks the first NaN, pooling outputs its bits");
    tap_ok(t, arg_index(OP_ARGMAX, F32_DEC, 3, ARR(F32_NAN_A, F32_NAN_B, F32_NAN_C)) == 2
              && arg_index(OP_ARGMIN, F32_DEC, 3, ARR(F32_NAN_A, F32_NAN_B, F32_NAN_C)) == 2,
           "order_d4_all_nan_last: all-NaN picks the last NaN under DECREASING");
}

static void clause_zero_tie(tap *t)
{
    uint64_t v1, i1, v2, i2;
    pool_all(DML_TENSOR_DATA_TYPE_FLOAT32, NAN_POLICY_IGNORE, 2, ARR(F32_NEG_ZERO, 0), &v1, &i1);
    pool_all(DML_TENSOR_DATA_TYPE_FLOAT16, NAN_POLICY_IGNORE, 2, ARR(0, 0x8000), &v2, &i2);
    tap_ok(t, arg_index(OP_ARGMAX, F32_INC, 2, ARR(F32_NEG_ZERO, 0)) == 0
              && arg_index(OP_ARGMAX, F32_INC, 2, ARR(0, F32_NEG_ZERO)) == 0
              && arg_index(OP_ARGMIN, F32_INC, 2, ARR(0, F32_NEG_ZERO)) == 0
              && v1 == F32_NEG_ZERO && i1 == 0 && v2 == 0 && i2 == 0,
           "order_d3_zero_tie_increasing: +0 and -0 tie, the first wins and keeps its sign");
    tap_ok(t, arg_index(OP_ARGMAX, F32_DEC, 2, ARR(F32_NEG_ZERO, 0)) == 1
              && arg_index(OP_ARGMIN, F32_DEC, 2, ARR(0, F32_NEG_ZERO)) == 1
              && arg_index(OP_ARGMIN, F32_DEC, 3, ARR(F32_NEG_ZERO, 0, F32_ONE)) == 1,
           "order_d3_zero_tie_decreasing: +0 and -0 tie, the last wins under DECREASING");
}

static void clause_infinities(tap *t)
{
    uint64_t v, i;
    pool_all(DML_TENSOR_DATA_TYPE_FLOAT32, NAN_POLICY_IGNORE, 3, ARR(F32_NEG_INF, F32_NEG_INF, F32_NEG_INF), &v, &i);
    tap_ok(t, arg_index(OP_ARGMAX, F32_INC, 2, ARR(F32_NEG_INF, F32_NEG_INF)) == 0
              && arg_index(OP_ARGMAX, F32_DEC, 2, ARR(F32_NEG_INF, F32_NEG_INF)) == 1
              && arg_index(OP_ARGMAX, F32_INC, 2, ARR(F32_NAN_A, F32_NEG_INF)) == 1
              && arg_index(OP_ARGMIN, F32_INC, 2, ARR(0xff7fffff, F32_NEG_INF)) == 1
              && v == F32_NEG_INF && i == 0,
           "order_d5_neg_inf_selectable: -inf is an ordinary value, never a sentinel");
    tap_ok(t, arg_index(OP_ARGMAX, F32_INC, 3, ARR(0x7f7fffff, F32_POS_INF, F32_ONE)) == 1
              && arg_index(OP_ARGMIN, F32_DEC, 2, ARR(F32_POS_INF, F32_POS_INF)) == 1
              && arg_index(OP_ARGMIN, F32_INC, 2, ARR(F32_POS_INF, F32_NAN_A)) == 0,
           "order_d5_pos_inf: +inf is the largest number and still selectable by argmin");
}

static void clause_denormals(tap *t)
{
    uint64_t v, i;
    pool_all(DML_TENSOR_DATA_TYPE_FLOAT32, NAN_POLICY_IGNORE, 2, ARR(0, 1), &v, &i);
    tap_ok(t, arg_index(OP_ARGMAX, F32_INC, 2, ARR(0, 1)) == 1
              && arg_index(OP_ARGMIN, F32_INC, 2, ARR(0, 0x80000001)) == 1
              && arg_index(OP_ARGMAX, F32_INC, 2, ARR(0x00000001, 0x00000002)) == 1
              && v == 1 && i == 1,
           "order_d6_denormal_exact: a denormal is not zero");
    arg_run f16 = { DML_TENSOR_DATA_TYPE_FLOAT16, DML_AXIS_DIRECTION_INCREASING, NAN_POLICY_IGNORE, true };
    tap_ok(t, arg_index(OP_ARGMAX, with_flush(F32_INC), 2, ARR(0, 1)) == 0
              && arg_index(OP_ARGMAX, with_flush(F32_DEC), 2, ARR(0x007fffff, 0x80000001)) == 1
              && arg_index(OP_ARGMAX, with_flush(F32_INC), 2, ARR(0x007fffff, 0x00800000)) == 1
              && arg_index(OP_ARGMAX, f16, 2, ARR(0, 0x0001)) == 1,
           "order_d6_denormal_flushed: flushed fp32 denormals tie with zero; f16 never flushed");
}

static void clause_ties(tap *t)
{
    tap_ok(t, arg_index(OP_ARGMAX, F32_INC, 5, ARR(0x40400000, 0x40000000, F32_ONE, 0x40000000, 0x40400000)) == 0
              && arg_index(OP_ARGMIN, F32_INC, 3, ARR(F32_ONE, 0x40000000, F32_ONE)) == 0,
           "order_d3_ties_increasing: the spec's argmax({3,2,1,2,3}) = 0");
    tap_ok(t, arg_index(OP_ARGMAX, F32_DEC, 5, ARR(0x40400000, 0x40000000, F32_ONE, 0x40000000, 0x40400000)) == 4
              && arg_index(OP_ARGMIN, F32_DEC, 3, ARR(F32_ONE, 0x40000000, F32_ONE)) == 2,
           "order_d3_ties_decreasing: the spec's argmax({3,2,1,2,3}) = 4 under DECREASING");
}

static void clause_integer_keys(tap *t)
{
    arg_run i64 = { DML_TENSOR_DATA_TYPE_INT64, 0, 0, false }, u64 = { DML_TENSOR_DATA_TYPE_UINT64, 0, 0, false };
    arg_run i8 = { DML_TENSOR_DATA_TYPE_INT8, 0, 0, false }, u32 = { DML_TENSOR_DATA_TYPE_UINT32, 0, 0, false };
    tap_ok(t, arg_index(OP_ARGMAX, i64, 3, ARR(0x8000000000000000, 0x7fffffffffffffff, 0)) == 1
              && arg_index(OP_ARGMIN, i64, 3, ARR(0, 0x7fffffffffffffff, 0x8000000000000000)) == 2
              && arg_index(OP_ARGMAX, u64, 3, ARR(0x7fffffffffffffff, 0xffffffffffffffff, 0)) == 1
              && arg_index(OP_ARGMIN, u64, 3, ARR(0x8000000000000000, 0, 0xffffffffffffffff)) == 1
              && arg_index(OP_ARGMAX, i8, 3, ARR(0x80, 0x7f, 0xff)) == 1
              && arg_index(OP_ARGMIN, u32, 2, ARR(0xffffffff, 0x80000000)) == 1,
           "order_integer_keys: signed and unsigned widen exactly, extremes included");
}

/* order_key_f16 must order halves exactly as their float values: sort every non-NaN half
 * by value and check keys rise with it, equal exactly when the floats are equal. */
static int by_float(const void *a, const void *b)
{
    float x = half_to_float(*(const uint16_t *)a), y = half_to_float(*(const uint16_t *)b);
    return x < y ? -1 : x > y;
}

static void clause_f16_keys(tap *t)
{
    static uint16_t halves[65536];
    unsigned n = 0;
    for (unsigned h = 0; h < 65536; h++)
        if (!order_f16_is_nan((uint16_t)h))
            halves[n++] = (uint16_t)h;
    qsort(halves, n, sizeof halves[0], by_float);
    unsigned bad = 0;
    for (unsigned i = 1; i < n; i++) {
        float a = half_to_float(halves[i - 1]), b = half_to_float(halves[i]);
        int64_t ka = order_key_f16(halves[i - 1]), kb = order_key_f16(halves[i]);
        if ((a == b) != (ka == kb) || (a < b) != (ka < kb))
            bad++;
    }
    unsigned nans = 0;
    for (unsigned h = 0; h < 65536; h++)
        nans += order_f16_is_nan((uint16_t)h) == isnan(half_to_float((uint16_t)h));
    tap_ok(t, n == 63490 && bad == 0 && nans == 65536,
           "order_f16_keys_exact: float16 keys order all halves as their float values (%u bad)", bad);
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    clause_nan_ignore(&t);
    clause_nan_propagate(&t);
    clause_all_nan(&t);
    clause_zero_tie(&t);
    clause_infinities(&t);
    clause_denormals(&t);
    clause_ties(&t);
    clause_integer_keys(&t);
    clause_f16_keys(&t);
    return tap_done(&t);
}
