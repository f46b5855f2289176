/*
 * compare.h: bit-exact comparison of outputs by logical element.  Float elements compare by
 * raw bits, except that two NaNs are equal whatever their payloads (SEMANTICS D4).  Bytes of
 * a buffer that belong to no logical element are never compared (SEMANTICS "Tensors").
 */
#ifndef DMLCHECK_COMPARE_H
#define DMLCHECK_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "case.h"

typedef struct mismatch {
    const char *tensor;      /* "output" or "indices" */
    uint64_t logical_index;  /* row-major logical index of the first differing element */
    uint32_t coords[DML_MAX_RANK];
    unsigned rank;
    uint64_t expected_bits, got_bits;
    uint64_t count;          /* differing elements in all compared tensors */
} mismatch;

/* Compares two executions of c; returns true when every logical element agrees.  On
 * disagreement fills *first (may be NULL) with the first difference (output before indices). */
bool compare_outputs(const dml_case *c, const case_outputs *expected, const case_outputs *got,
                     mismatch *first);
/* Compares an execution with the case's expected arrays (case files). */
bool compare_with_expected(const dml_case *c, const case_outputs *got, mismatch *first);
/* Equality of two elements of type t under the NaN-by-NaN-ness rule. */
bool compare_bits_equal(DML_TENSOR_DATA_TYPE t, uint64_t a, uint64_t b);
/* Formats a value of type t for a person: floats as "%a (0x%08x)" style, ints in decimal. */
const char *compare_format_value(DML_TENSOR_DATA_TYPE t, uint64_t bits, char *buf, unsigned size);

#endif
