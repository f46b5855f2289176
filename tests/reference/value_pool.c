/* value_pool.c: see value_pool.h. */
#include "value_pool.h"

#include <stddef.h>

static const uint64_t pool_f32[] = {
    0x7fc00000, 0x7f800001, 0xffc00123, /* quiet NaN, signalling NaN, negative NaN */
    0xff800000, 0x7f800000,             /* -inf, +inf */
    0xff7fffff, 0x7f7fffff,             /* -FLT_MAX, FLT_MAX */
    0xbf800000, 0x3f800000,             /* -1, 1 */
    0x80000000, 0x00000000,             /* -0, +0 */
    0x80000001, 0x00000001, 0x007fffff, /* denormals */
    0x00800000,                         /* smallest normal */
};
static const uint64_t pool_f16[] = {
    0x7e00, 0x7c01, 0xfe11, 0xfc00, 0x7c00, 0xfbff, 0x7bff, 0xbc00, 0x3c00,
    0x8000, 0x0000, 0x8001, 0x0001, 0x03ff, 0x0400,
};
static const uint64_t pool_u8[] = { 0, 1, 0x7f, 0x80, 0xfe, 0xff };
static const uint64_t pool_u16[] = { 0, 1, 0x7fff, 0x8000, 0xfffe, 0xffff };
static const uint64_t pool_u32[] = { 0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
static const uint64_t pool_u64[] = {
    0, 1, 0x7fffffffffffffff, 0x8000000000000000, 0xfffffffffffffffe, 0xffffffffffffffff,
};
/* Signed pools as raw bits: min, min+1, -1, 0, 1, max. */
static const uint64_t pool_i8[] = { 0x80, 0x81, 0xff, 0, 1, 0x7f };
static const uint64_t pool_i16[] = { 0x8000, 0x8001, 0xffff, 0, 1, 0x7fff };
static const uint64_t pool_i32[] = { 0x80000000, 0x80000001, 0xffffffff, 0, 1, 0x7fffffff };
static const uint64_t pool_i64[] = {
    0x8000000000000000, 0x8000000000000001, 0xffffffffffffffff, 0, 1, 0x7fffffffffffffff,
};

#define COUNT(a) (unsigned)(sizeof a / sizeof a[0])

const uint64_t *value_pool(DML_TENSOR_DATA_TYPE t, unsigned *count)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: *count = COUNT(pool_f32); return pool_f32;
    case DML_TENSOR_DATA_TYPE_FLOAT16: *count = COUNT(pool_f16); return pool_f16;
    case DML_TENSOR_DATA_TYPE_UINT8: *count = COUNT(pool_u8); return pool_u8;
    case DML_TENSOR_DATA_TYPE_UINT16: *count = COUNT(pool_u16); return pool_u16;
    case DML_TENSOR_DATA_TYPE_UINT32: *count = COUNT(pool_u32); return pool_u32;
    case DML_TENSOR_DATA_TYPE_UINT64: *count = COUNT(pool_u64); return pool_u64;
    case DML_TENSOR_DATA_TYPE_INT8: *count = COUNT(pool_i8); return pool_i8;
    case DML_TENSOR_DATA_TYPE_INT16: *count = COUNT(pool_i16); return pool_i16;
    case DML_TENSOR_DATA_TYPE_INT32: *count = COUNT(pool_i32); return pool_i32;
    case DML_TENSOR_DATA_TYPE_INT64: *count = COUNT(pool_i64); return pool_i64;
    default: *count = 0; return NULL;
    }
}

void value_pool_pick(DML_TENSOR_DATA_TYPE t, prng *p, unsigned k, uint64_t *picks)
{
    unsigned n;
    const uint64_t *pool = value_pool(t, &n);
    for (unsigned i = 0; i < k; i++)
        picks[i] = pool[prng_below(p, n)];
}

const DML_TENSOR_DATA_TYPE arg_input_types[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64,
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_UINT8,
};
const unsigned ARG_INPUT_TYPE_COUNT = COUNT(arg_input_types);
const DML_TENSOR_DATA_TYPE arg_output_types[] = {
    DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT64,
    DML_TENSOR_DATA_TYPE_UINT32,
};
const unsigned ARG_OUTPUT_TYPE_COUNT = COUNT(arg_output_types);
/* SEMANTICS: FL 2.1 FLOAT32/FLOAT16, 3.0 INT8/UINT8, 5.0 the other integer types. */
const DML_TENSOR_DATA_TYPE pool_types[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_INT64,
    DML_TENSOR_DATA_TYPE_UINT64,
};
const unsigned POOL_TYPE_COUNT = COUNT(pool_types);
