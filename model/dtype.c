/* dtype.c: the data-type table, its index by type value (dtype.h's inline accessors read
 * it), names and raw-bit conversions. */
#include "dtype.h"

#include <string.h>

#include "half.h"

const dtype_info dtype_table[] = {
#define DTYPE(id, stem, bytes, kind) \
    { DML_TENSOR_DATA_TYPE_##id, #id, #stem, bytes, DTYPE_KIND_##kind },
#include "dtypes.def"
};
const size_t DTYPE_COUNT = sizeof dtype_table / sizeof dtype_table[0];

/* Row of each type in dtype_table. */
enum dtype_row {
#define DTYPE(id, stem, bytes, kind) DTYPE_ROW_##id,
#include "dtypes.def"
};

#define DTYPE(id, stem, bytes, kind) \
    _Static_assert(DML_TENSOR_DATA_TYPE_##id < DTYPE_VALUE_LIMIT, "DTYPE_VALUE_LIMIT is too small for " #id);
#include "dtypes.def"

const dtype_info *const dtype_by_value[DTYPE_VALUE_LIMIT] = {
#define DTYPE(id, stem, bytes, kind) [DML_TENSOR_DATA_TYPE_##id] = &dtype_table[DTYPE_ROW_##id],
#include "dtypes.def"
};

DML_TENSOR_DATA_TYPE dtype_from_name(const char *name)
{
    for (size_t i = 0; name && i < DTYPE_COUNT; i++)
        if (!strcmp(name, dtype_table[i].name) || !strcmp(name, dtype_table[i].stem))
            return dtype_table[i].type;
    return DML_TENSOR_DATA_TYPE_UNKNOWN;
}

const char *dtype_name(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d ? d->name : "UNKNOWN";
}

const char *dtype_stem(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d ? d->stem : "unknown";
}

int64_t dtype_bits_to_i64(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_INT8: return (int8_t)(uint8_t)bits;
    case DML_TENSOR_DATA_TYPE_INT16: return (int16_t)(uint16_t)bits;
    case DML_TENSOR_DATA_TYPE_INT32: return (int32_t)(uint32_t)bits;
    default: return (int64_t)bits;
    }
}

uint64_t dtype_lowest_bits(DML_TENSOR_DATA_TYPE t)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return 0xff800000u;
    case DML_TENSOR_DATA_TYPE_FLOAT16: return 0xfc00u;
    case DML_TENSOR_DATA_TYPE_FLOAT64: return 0xfff0000000000000ull;
    case DML_TENSOR_DATA_TYPE_INT8: return 0x80u;
    case DML_TENSOR_DATA_TYPE_INT16: return 0x8000u;
    case DML_TENSOR_DATA_TYPE_INT32: return 0x80000000u;
    case DML_TENSOR_DATA_TYPE_INT64: return 0x8000000000000000ull;
    default: return 0; /* unsigned types */
    }
}

bool dtype_bits_is_nan(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return (bits & 0x7fffffffu) > 0x7f800000u;
    case DML_TENSOR_DATA_TYPE_FLOAT16: return (bits & 0x7fffu) > 0x7c00u;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
        return (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    default: return false;
    }
}

double dtype_bits_to_double(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: { uint32_t u = (uint32_t)bits; float f; memcpy(&f, &u, 4); return f; }
    case DML_TENSOR_DATA_TYPE_FLOAT16: return half_to_float((uint16_t)bits);
    case DML_TENSOR_DATA_TYPE_FLOAT64: { double d; memcpy(&d, &bits, 8); return d; }
    case DML_TENSOR_DATA_TYPE_UINT64: return (double)bits;
    default:
        if (dtype_is_signed_int(t))
            return (double)dtype_bits_to_i64(t, bits);
        return (double)bits;
    }
}
