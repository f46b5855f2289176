/*
 * casefile_notation.h: how a case file writes one value (model/casefile_notation.c), shared by
 * the reader (casefile.c) and the writer (casefile_write.c).  Not an interface of the model.
 */
#ifndef DMLCHECK_CASEFILE_NOTATION_H
#define DMLCHECK_CASEFILE_NOTATION_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "error.h"

uint64_t notation_type_mask(DML_TENSOR_DATA_TYPE t);
uint64_t notation_sign_bit(DML_TENSOR_DATA_TYPE t);
/* The quiet NaN with an empty payload: what "nan" means. */
uint64_t notation_canonical_nan(DML_TENSOR_DATA_TYPE t);
uint64_t notation_infinity(DML_TENSOR_DATA_TYPE t);
void notation_int_range(DML_TENSOR_DATA_TYPE t, int64_t *min, uint64_t *max);
bool notation_parse_string(const char *s, DML_TENSOR_DATA_TYPE t, const char *path,
                                 uint64_t *bits, dmlc_error *err);

#endif
