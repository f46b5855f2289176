/*
 * dtype.h: facts about DirectML data types, all drawn from dtypes.def so that every loop
 * over types (generator, validator tables, reports) sees the same list in the same order.
 */
#ifndef DMLCHECK_DTYPE_H
#define DMLCHECK_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dmlcheck/directml.h"

typedef enum dtype_kind { DTYPE_KIND_FLOAT, DTYPE_KIND_SIGNED, DTYPE_KIND_UNSIGNED } dtype_kind;

typedef struct dtype_info {
    DML_TENSOR_DATA_TYPE type;
    const char *name; /* "FLOAT32": DirectML's suffix, used in case files */
    const char *stem; /* "f32": used in test names, kernels and reports */
    unsigned bytes;
    dtype_kind kind;
} dtype_info;

/* Every type in dtypes.def order; DTYPE_COUNT entries. */
extern const dtype_info dtype_table[];
extern const size_t DTYPE_COUNT;

/* One more than the largest DML_TENSOR_DATA_TYPE value in dtypes.def (dtype.c checks it). */
#define DTYPE_VALUE_LIMIT 12
/* dtype_table's row of each type value; NULL for UNKNOWN. */
extern const dtype_info *const dtype_by_value[DTYPE_VALUE_LIMIT];

/* The accessors below are inline: the judge, the comparison, the NaN fingerprint and the fuzz
 * oracles call them per element (out of line, in the fuzzing build's coverage-instrumented
 * model library, they were most of the fuzz oracles' time). */
/* NULL for UNKNOWN or an out-of-range value. */
static inline const dtype_info *dtype_get(DML_TENSOR_DATA_TYPE t)
{
    return (unsigned)t < DTYPE_VALUE_LIMIT ? dtype_by_value[t] : NULL;
}
/* Accepts the DirectML suffix ("FLOAT16") or the stem ("f16"); UNKNOWN when neither. */
DML_TENSOR_DATA_TYPE dtype_from_name(const char *name);
/* "FLOAT32", or "UNKNOWN(<n>)"-style text in a static buffer-free form ("?") when invalid. */
const char *dtype_name(DML_TENSOR_DATA_TYPE t);
const char *dtype_stem(DML_TENSOR_DATA_TYPE t);
/* 0 when invalid. */
static inline unsigned dtype_size(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d ? d->bytes : 0;
}

static inline bool dtype_is_float(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d && d->kind == DTYPE_KIND_FLOAT;
}

static inline bool dtype_is_signed_int(DML_TENSOR_DATA_TYPE t)
{
    const dtype_info *d = dtype_get(t);
    return d && d->kind == DTYPE_KIND_SIGNED;
}

/* Reads the raw bits of element `elem` (an element offset, not bytes) of `buf`,
 * zero-extended to 64 bits.  Loads and stores go through memcpy so unaligned and type-punned
 * buffers stay defined behaviour. */
static inline uint64_t dtype_load_bits(const void *buf, DML_TENSOR_DATA_TYPE t, uint64_t elem)
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

/* Writes the low dtype_size(t)*8 bits of `bits` at element offset `elem`. */
static inline void dtype_store_bits(void *buf, DML_TENSOR_DATA_TYPE t, uint64_t elem, uint64_t bits)
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
/* Sign-extends raw bits of a signed integer type to int64; for other types returns bits. */
int64_t dtype_bits_to_i64(DML_TENSOR_DATA_TYPE t, uint64_t bits);
/* Lowest value of the type as raw bits: -inf for floats, the minimum integer otherwise. */
uint64_t dtype_lowest_bits(DML_TENSOR_DATA_TYPE t);
/* For FLOAT32/FLOAT16/FLOAT64 raw bits: NaN test. False for integer types. */
bool dtype_bits_is_nan(DML_TENSOR_DATA_TYPE t, uint64_t bits);
/* Converts raw bits to double for display only (INT64/UINT64 may lose precision). */
double dtype_bits_to_double(DML_TENSOR_DATA_TYPE t, uint64_t bits);

#endif
