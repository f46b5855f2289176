/*
 * ref_check.h: what the reference tests share: running the reference on a built case,
 * comparing it with the naive implementation element by element (exact bits, classes
 * included), and describing a case for a person when something disagrees.
 */
#ifndef DMLCHECK_TESTS_REF_CHECK_H
#define DMLCHECK_TESTS_REF_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"

/* Runs ref_classify and the naive implementation on c under opt; true when every logical
 * output (and index) element has identical bits and the classes are equal.  On failure
 * `why` names the first difference and describes the case. */
bool check_against_naive(const dml_case *c, const exec_options *opt, char *why, size_t size);

/* One line describing c (op, types, sizes, strides, axes or pooling parameters) and, when
 * it has at most 64 elements, its logical input values as raw bits. */
void describe_case(const dml_case *c, char *buf, size_t size);

/* Reference outputs of c by logical element, as raw bits; indices NULL for ARGMIN/ARGMAX
 * and pooling without indices.  Caller frees both. */
unsigned ref_logical(const dml_case *c, const exec_options *opt, uint64_t **output,
                     uint64_t **indices);

#endif
