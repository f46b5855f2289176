/* test_tensor.c: DMLCalcBufferTensorSize examples from SEMANTICS.md, overflow handling,
 * addressing, the PRNG's determinism and the tables built from the .def files. */
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "op.h"
#include "prng.h"
#include "tap.h"
#include "tensor.h"

static bool sizes_from_semantics(void)
{
    UINT s1[] = { 1, 1, 1, 3 }, s2[] = { 5 }, s3[] = { 2, 3 }, st3[] = { 4, 1 };
    UINT s4[] = { 4, 4 }, st4[] = { 0, 0 };
    return dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT16, 4, s1, NULL) == 8
        && dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT8, 1, s2, NULL) == 8
        && dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, s3, st3) == 28
        && dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 2, s4, st4) == 4;
}

static bool size_overflow_is_zero(void)
{
    UINT big[] = { 0xffffffffu, 0xffffffffu, 0xffffffffu };
    UINT st[] = { 0xffffffffu, 0xffffffffu, 0xffffffffu };
    UINT zero[] = { 3, 0 };
    return dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 3, big, NULL) == 0
        && dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 3, big, st) == 0
        && dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_INT64, 2, zero, NULL) == 0
        && dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UNKNOWN, 1, zero, NULL) == 0;
}

static bool addressing_permuted(void)
{
    /* NCHW logical sizes {1,2,3,4} stored NHWC: strides {24,1,8,2}. */
    UINT sizes[] = { 1, 2, 3, 4 }, strides[] = { 24, 1, 8, 2 };
    DML_BUFFER_TENSOR_DESC d = { DML_TENSOR_DATA_TYPE_FLOAT32, 0, 4, sizes, strides, 96, 0 };
    tensor_view v;
    tensor_view_from_desc(&v, &d);
    uint32_t c[4];
    tensor_view_coords(&v, 23, c); /* last element: (0,1,2,3) */
    return v.elements == 24 && tensor_view_offset(&v, 23) == 1 + 16 + 6
        && c[0] == 0 && c[1] == 1 && c[2] == 2 && c[3] == 3
        && tensor_view_offset_coords(&v, c) == 23;
}

static bool prng_deterministic(void)
{
    prng a, b, c;
    prng_seed2(&a, 42, 7);
    prng_seed2(&b, 42, 7);
    prng_seed2(&c, 42, 8);
    bool same = true, differs = false;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = prng_next(&a), y = prng_next(&b), z = prng_next(&c);
        same &= x == y;
        differs |= x != z;
    }
    /* xoshiro256** from splitmix64(0) seeding: first output pinned so a change of algorithm
     * (which would silently rename every SEED:INDEX) fails here. */
    prng p;
    prng_seed(&p, 0);
    return same && differs && prng_next(&p) == 0x99ec5f36cb75f2b4ull;
}

static bool prng_below_in_range(void)
{
    prng p;
    prng_seed(&p, 3);
    unsigned hist[7] = { 0 };
    for (int i = 0; i < 70000; i++) {
        uint64_t r = prng_below(&p, 7);
        if (r >= 7)
            return false;
        hist[r]++;
    }
    for (int i = 0; i < 7; i++)
        if (hist[i] < 9000 || hist[i] > 11000)
            return false;
    return true;
}

static bool tables_consistent(void)
{
    for (size_t i = 0; i < DTYPE_COUNT; i++) {
        const dtype_info *d = &dtype_table[i];
        if (dtype_from_name(d->name) != d->type || dtype_from_name(d->stem) != d->type
            || dtype_size(d->type) != d->bytes)
            return false;
    }
    for (int i = 0; i < OP_COUNT; i++)
        if ((int)op_from_name(op_table[i].name) != i || (int)op_from_dml_type(op_table[i].dml_type) != i)
            return false;
    DML_FEATURE_LEVEL fl;
    return fl_from_name("4_1", &fl) && fl == DML_FEATURE_LEVEL_4_1 && fl_from_name("3.0", &fl)
        && fl == DML_FEATURE_LEVEL_3_0 && !fl_from_name("9_9", &fl)
        && fl_effective(DML_FEATURE_LEVEL_6_4) == DML_FEATURE_LEVEL_5_0
        && fl_effective(DML_FEATURE_LEVEL_4_0) == DML_FEATURE_LEVEL_3_0
        && fl_effective(DML_FEATURE_LEVEL_1_0) == 0
        && dtype_from_name("FLOAT128") == DML_TENSOR_DATA_TYPE_UNKNOWN;
}

int main(void)
{
    tap t;
    tap_plan(&t, 6);
    tap_ok(&t, sizes_from_semantics(), "calc_buffer_tensor_size_semantics_examples");
    tap_ok(&t, size_overflow_is_zero(), "calc_buffer_tensor_size_overflow_and_zero");
    tap_ok(&t, addressing_permuted(), "tensor_view_addressing_nhwc_strides");
    tap_ok(&t, prng_deterministic(), "prng_same_seed_same_stream_and_pinned_output");
    tap_ok(&t, prng_below_in_range(), "prng_below_uniform");
    tap_ok(&t, tables_consistent(), "dtype_op_feature_level_tables");
    return tap_done(&t);
}
