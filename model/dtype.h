/*
 * dtype.h: facts about DirectML data types, all drawn from dtypes.def so that every loop
 * over types (generator, validator tables, reports) sees the same list in the same order.
 */
#ifndef DMLCHECK_DTYPE_H
#define DMLCHECK_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* NULL for UNKNOWN or an out-of-range value. */
const dtype_info *dtype_get(DML_TENSOR_DATA_TYPE t);
/* Accepts the DirectML suffix ("FLOAT16") or the stem ("f16"); UNKNOWN when neither. */
DML_TENSOR_DATA_TYPE dtype_from_name(const char *name);
/* "FLOAT32", or "UNKNOWN(<n>)"-style text in a static buffer-free form ("?") when invalid. */
const char *dtype_name(DML_TENSOR_DATA_TYPE t);
const char *dtype_stem(DML_TENSOR_DATA_TYPE t);
unsigned dtype_size(DML_TENSOR_DATA_TYPE t); /* 0 when invalid */
bool dtype_is_float(DML_TENSOR_DATA_TYPE t);
bool dtype_is_signed_int(DML_TENSOR_DATA_TYPE t);

/* Reads the raw bits of element `elem` (an element offset, not bytes) of `buf`,
 * zero-extended to 64 bits. */
uint64_t dtype_load_bits(const void *buf, DML_TENSOR_DATA_TYPE t, uint64_t elem);
/* Writes the low dtype_size(t)*8 bits of `bits` at element offset `elem`. */
void dtype_store_bits(void *buf, DML_TENSOR_DATA_TYPE t, uint64_t elem, uint64_t bits);
/* Sign-extends raw bits of a signed integer type to int64; for other types returns bits. */
int64_t dtype_bits_to_i64(DML_TENSOR_DATA_TYPE t, uint64_t bits);
/* Lowest value of the type as raw bits: -inf for floats, the minimum integer otherwise. */
uint64_t dtype_lowest_bits(DML_TENSOR_DATA_TYPE t);
/* For FLOAT32/FLOAT16/FLOAT64 raw bits: NaN test. False for integer types. */
bool dtype_bits_is_nan(DML_TENSOR_DATA_TYPE t, uint64_t bits);
/* Converts raw bits to double for display only (INT64/UINT64 may lose precision). */
double dtype_bits_to_double(DML_TENSOR_DATA_TYPE t, uint64_t bits);

#endif
