/*
 * cl_case.h: a case as the OpenCL core sees it, read from DirectML's own descriptor
 * (dmlcheck/directml.h) and nothing else: the core is also the OpenCL plug-in, so it shares
 * no type with the harness.  Tensors become views with effective element strides (packed
 * when the descriptor has none).
 */
#ifndef DMLCHECK_CL_CASE_H
#define DMLCHECK_CL_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dmlcheck/directml.h>

#define CL_MAX_RANK 8
#define CL_MAX_SPATIAL 3

typedef struct cl_view {
    bool present;
    DML_TENSOR_DATA_TYPE type;
    unsigned rank;
    uint32_t sizes[CL_MAX_RANK];
    uint64_t strides[CL_MAX_RANK];
    uint64_t elements;
    uint64_t total_bytes; /* TotalTensorSizeInBytes */
} cl_view;

typedef enum cl_family { CL_FAMILY_ARG_REDUCE, CL_FAMILY_MAX_POOLING } cl_family;

typedef struct cl_case {
    cl_family family;
    cl_view input, output, indices; /* indices.present: pooling's OutputIndicesTensor */
    /* ARGMIN / ARGMAX */
    bool minimize;
    unsigned axis_count;
    uint32_t axes[CL_MAX_RANK];
    bool decreasing;
    /* MAX_POOLING1 / MAX_POOLING2 (dilations 1 for MAX_POOLING1) */
    unsigned spatial_count;
    uint32_t pool_strides[CL_MAX_SPATIAL], window[CL_MAX_SPATIAL];
    uint32_t start_padding[CL_MAX_SPATIAL], dilations[CL_MAX_SPATIAL];
} cl_case;

/* The case a descriptor describes; false with a reason in why when the core cannot hold it
 * (an operator it does not implement, a rank or count beyond its arrays). */
bool cl_case_from_desc(const DML_OPERATOR_DESC *desc, cl_case *c, char *why, size_t size);
/* Bytes of one element of type t (0 for an unknown type). */
unsigned cl_dtype_size(DML_TENSOR_DATA_TYPE t);

#endif
