/*
 * case_builder.h: builds dml_case values for the reference tests by setting the plain
 * fields, allocating input_data by TotalTensorSizeInBytes and calling case_link().  Values
 * are written and read by LOGICAL row-major index, so a test states its data once and lays
 * it out under any strides (padded, permuted, broadcast) without changing its meaning.
 */
#ifndef DMLCHECK_TESTS_CASE_BUILDER_H
#define DMLCHECK_TESTS_CASE_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "case.h"

/* An ARGMIN/ARGMAX case; input_strides NULL means packed; output packed. */
void cb_arg_case(dml_case *c, op_id op, DML_TENSOR_DATA_TYPE in_type, unsigned rank,
                 const UINT *sizes, const UINT *input_strides, unsigned axis_count,
                 const UINT *axes, DML_AXIS_DIRECTION direction, DML_TENSOR_DATA_TYPE out_type);

/* One spatial axis of a pooling case. */
typedef struct cb_pool_axis {
    UINT window, stride, start_padding, end_padding, dilation;
} cb_pool_axis;

/* Output size along one axis (SEMANTICS D8), floor or ceil; 0 when no such size is valid
 * (the dilated window exceeds the padded input, D9, or the ceil size would start a window
 * beyond input + StartPadding, or ceil equals floor). */
UINT cb_pool_out_size(UINT in_size, const cb_pool_axis *a, bool ceil_mode);

/* A MAX_POOLING2 case of rank 4 or 5; input_strides NULL means packed; out_sizes are the
 * spatial output sizes; index_type UNKNOWN means no OutputIndicesTensor. */
void cb_pool_case(dml_case *c, DML_TENSOR_DATA_TYPE type, unsigned rank, const UINT *sizes,
                  const UINT *input_strides, const cb_pool_axis *axes, const UINT *out_sizes,
                  DML_TENSOR_DATA_TYPE index_type);

/* Gives the output (and indices) tensor explicit strides, e.g. padded. */
void cb_set_output_strides(dml_case *c, const UINT *strides, const UINT *index_strides);

/* Allocates input_data (TotalTensorSizeInBytes, filled with 0xEE so unwritten padding bytes
 * are visible) after the descriptor is final; calls case_link.  Aborts on OOM. */
void cb_alloc_input(dml_case *c);

/* Writes / reads the raw bits of logical input element `logical`. */
void cb_set_input(dml_case *c, uint64_t logical, uint64_t bits);
uint64_t cb_get_input(const dml_case *c, uint64_t logical);

/* Reads the raw bits of logical element `logical` of the output / indices buffer. */
uint64_t cb_output_at(const dml_case *c, const case_outputs *o, uint64_t logical);
uint64_t cb_index_at(const dml_case *c, const case_outputs *o, uint64_t logical);

/* Runs the validator on the case; false with the message in err when it rejects it. */
bool cb_validate(dml_case *c, char *err, unsigned err_size);

/* Packed row-major strides of sizes (elements). */
void cb_packed_strides(unsigned rank, const UINT *sizes, UINT *strides);

#endif
