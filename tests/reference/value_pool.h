/*
 * value_pool.h: hand-picked raw-bit values per data type for the reference tests: the
 * type's extremes, zeros of both signs, NaNs with different payloads and signs, infinities
 * and denormals for the float types.  Tests fill inputs from a few of them so that ties are
 * heavy and every clause of the ordering rule is exercised.
 */
#ifndef DMLCHECK_TESTS_VALUE_POOL_H
#define DMLCHECK_TESTS_VALUE_POOL_H

#include <stdint.h>

#include "dmlcheck/directml.h"
#include "prng.h"

/* The pool of type t: *count entries of raw bits. */
const uint64_t *value_pool(DML_TENSOR_DATA_TYPE t, unsigned *count);

/* Picks `k` values of t's pool (repeats allowed) into picks[0..k). */
void value_pool_pick(DML_TENSOR_DATA_TYPE t, prng *p, unsigned k, uint64_t *picks);

/* Data types each operator accepts at some feature level (no FLOAT64). */
extern const DML_TENSOR_DATA_TYPE arg_input_types[];
extern const unsigned ARG_INPUT_TYPE_COUNT;
extern const DML_TENSOR_DATA_TYPE arg_output_types[];
extern const unsigned ARG_OUTPUT_TYPE_COUNT;
extern const DML_TENSOR_DATA_TYPE pool_types[];
extern const unsigned POOL_TYPE_COUNT;

#endif
