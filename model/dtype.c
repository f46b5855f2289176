/* dtype.c: the data-type table and raw-bit access.  Loads and stores go through memcpy so
 * unaligned and type-punned buffers stay defined behaviour. */
#include "dtype.h"

#include <string.h>

#include "half.h"

const dtype_info dtype_table[] = {
#define DTYPE(id, stem, bytes, kind) \
    { DML_TENSOR_DATA_TYPE_##id, #id, #stem, bytes, DTYPE_KIND_##kind },
#include "dtypes.def"
};
const size_t DTYPE_COUNT = sizeof dtype_table / sizeof dtype_table[0];

const dtype_info *dtype_get(DML_TENSOR_DATA_TYPE t)
{
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (dtype_table[i].type == t)
            return &dtype_table[i];
    return NULL;
}

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

unsigned dtype_size(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d ? d->bytes : 0;
}

bool dtype_is_float(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d && d->kind == DTYPE_KIND_FLOAT;
}

bool dtype_is_signed_int(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d && d->kind == DTYPE_KIND_SIGNED;
}

uint64_t dtype_load_bits(const void *buf, DML_TENSOR_DATA_TYPE t, uint64_t elem)
{
    const unsigned char *p = (const unsigned char *)buf;
    switch (dtype_size(t)) {
    case 1: return p[elem];
    case 2: { uint16_t v; memcpy(&v, p + elem * 2, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p + elem * 4, 4); return v; }
    case 8: { uint64_t v; memcpy(&v, p + elem * 8, 8); return v; }
    default: return 0;
    }
}

void dtype_store_bits(void *buf, DML_TENSOR_DATA_TYPE t, uint64_t elem, uint64_t bits)
{
    unsigned char *p = (unsigned char *)buf;
    switch (dtype_size(t)) {
    case 1: p[elem] = (unsigned char)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p + elem * 2, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p + elem * 4, &v, 4); break; }
    case 8: memcpy(p + elem * 8, &bits, 8); break;
    default: break;
    }
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
