/*
 * fuzz_case_builder.h: bytes <-> a VALID case, for the targets that need one (fuzz_reference,
 * fuzz_differential) and for the seed tool that writes their corpora.
 *
 * Reading, every input builds a case that is valid by construction: parameters come from the
 * tail of the input (operator, feature level, types, rank, sizes, axes, pooling parameters,
 * layouts, NaN policy, value distribution), each drawn in a range and then repaired where a
 * combination would break a rule (a type the level lacks raises the level, a dilated window
 * larger than the padded input shrinks, an output layout that could alias becomes packed,
 * sizes over the budget halve).  Values come from the head.  The caller then asserts that
 * validate_case agrees the case is valid: a disagreement is a finding in the builder or in
 * the validator.
 *
 * Writing, the same code records the bytes that rebuild a given case: every repair is the
 * identity on a valid case inside the budget, so any generated case (harness/gen.h) within
 * the budget becomes a seed that rebuilds it exactly (values as raw bits).
 */
#ifndef DMLCHECK_FUZZ_CASE_BUILDER_H
#define DMLCHECK_FUZZ_CASE_BUILDER_H

#include <stdbool.h>

#include "case.h"
#include "fuzz_common.h"

/* Budget of a built case: logical elements of the input and of each output, and element
 * slots of any buffer.  Small, so a target runs thousands of cases per second. */
#define FUZZ_MAX_ELEMENTS 4096u
#define FUZZ_MAX_BUFFER_ELEMENTS 65536u

/* Reading (io->in): builds a valid case into c (initialised by the caller) and its options.
 * Writing (io->out): records the bytes that rebuild c (complete, linked, with input data)
 * under *opt; c and *opt are left as the reader would rebuild them.  False only when an
 * allocation fails (reading). */
bool fuzz_build_case(fuzz_io *io, dml_case *c, exec_options *opt);

/* The oracle targets' first step: builds the case that data describes into c (initialised
 * here) and insists the validator accepts it, aborting otherwise so libFuzzer keeps the input
 * (a builder that makes invalid cases is a bug in the builder or in the validator). */
void fuzz_build_valid_case(const uint8_t *data, size_t size, dml_case *c, exec_options *opt);

/* The lowest tested feature level at which op accepts t as its input type, or 0 if none
 * (from the operator module's type table, op_types_at). */
DML_FEATURE_LEVEL fuzz_input_type_since(op_id op, DML_TENSOR_DATA_TYPE t);

#endif
