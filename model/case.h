/*
 * case.h: one test case: an operator, its DirectML descriptor, a feature level, the input
 * bytes and (from case files) the expected outputs.  The case owns every array its DML
 * descriptors point into; case_link() rebuilds those pointers and must be called after the
 * plain fields change or the struct is copied.  Everything a backend or the reference needs
 * is reachable from `dml` / `op_desc` or from the plain fields, whichever is handier.
 */
#ifndef DMLCHECK_CASE_H
#define DMLCHECK_CASE_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlcheck/directml.h"
#include "op.h"
#include "tensor.h"

typedef struct case_tensor {
    bool present;
    DML_TENSOR_DATA_TYPE type;
    UINT rank;
    UINT sizes[DML_MAX_RANK];
    bool has_strides;
    UINT strides[DML_MAX_RANK];
    bool has_total_bytes; /* false: TotalTensorSizeInBytes is the computed size */
    UINT64 total_bytes;
    UINT base_alignment; /* GuaranteedBaseOffsetAlignment */
    DML_TENSOR_FLAGS flags;
    /* DML views, rebuilt by case_link(). */
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} case_tensor;

typedef struct dml_case {
    op_id op;
    DML_FEATURE_LEVEL feature_level; /* 0: not given, use the lowest level where valid */
    /* The descriptor is one DirectML requires to be refused at feature_level: a backend
     * passes by refusing it (create -> INVALID), fails by running it (accepted_invalid). */
    bool must_reject;
    case_tensor input, output, indices; /* indices: MAX_POOLING2's optional OutputIndicesTensor */

    /* ARGMIN / ARGMAX */
    UINT axis_count;
    UINT axes[DML_MAX_RANK];
    DML_AXIS_DIRECTION direction;

    /* MAX_POOLING2 (spatial dimensions) */
    UINT spatial_count;
    UINT pool_strides[DML_MAX_SPATIAL];
    UINT window[DML_MAX_SPATIAL];
    UINT start_padding[DML_MAX_SPATIAL];
    UINT end_padding[DML_MAX_SPATIAL];
    UINT dilations[DML_MAX_SPATIAL];

    /* DML views, rebuilt by case_link(). */
    union {
        DML_ARGMIN_OPERATOR_DESC argmin;
        DML_ARGMAX_OPERATOR_DESC argmax;
        DML_MAX_POOLING2_OPERATOR_DESC max_pooling2;
    } dml;
    DML_OPERATOR_DESC op_desc;

    /* Input buffer: TotalTensorSizeInBytes bytes laid out by input strides.  Every byte is
     * initialised, gaps between logical elements included (their value is the creator's
     * choice: the generator puts would-be winners there), so whole-buffer scans are defined. */
    uint8_t *input_data;

    /* Expected outputs from a case file: raw bits per logical element, row-major. */
    bool has_expected_output, has_expected_indices;
    uint64_t *expected_output;   /* output element count entries */
    uint64_t *expected_indices;  /* indices element count entries */

    char *comment; /* free text from the case file, or NULL */
} dml_case;

/* Zeroes the case. */
void case_init(dml_case *c);
/* Frees owned memory and zeroes the case. */
void case_free(dml_case *c);
/* Deep copy; dst must be initialised or freed.  False only on allocation failure. */
bool case_copy(dml_case *dst, const dml_case *src);
/* True when a and b describe the same operator descriptor at the same feature level (values,
 * expected outputs and comments aside).  Exact but conservative: fields an operator does not
 * use are compared too, so a difference there only costs a reuse. */
bool case_same_descriptor(const dml_case *a, const dml_case *b);
/* Rebuilds every DML pointer from the plain fields (TotalTensorSizeInBytes is the computed
 * size where has_total_bytes is false). */
void case_link(dml_case *c);
/* Makes t a present tensor of the given type and sizes; strides NULL means packed.  Every other
 * field (TotalTensorSizeInBytes, alignment, flags) is left at its default. */
void case_tensor_set(case_tensor *t, DML_TENSOR_DATA_TYPE type, unsigned rank, const UINT *sizes,
                     const UINT *strides);
/* TotalTensorSizeInBytes of a tensor as the descriptor states it. */
UINT64 case_tensor_bytes(const case_tensor *t);
uint64_t case_tensor_elements(const case_tensor *t);
void case_tensor_view(const case_tensor *t, tensor_view *v);

/* How the outputs are judged. */
typedef enum nan_policy { NAN_POLICY_IGNORE, NAN_POLICY_PROPAGATE } nan_policy;
const char *nan_policy_name(nan_policy p);
bool nan_policy_from_name(const char *name, nan_policy *out);

typedef struct exec_options {
    nan_policy nan;
    bool flush_denormals; /* judge fp32 denormals as flushed to signed zero */
} exec_options;

/* Case classes: where the spec is silent (SEMANTICS.md); a mismatch there is "unspecified". */
enum {
    CASE_CLASS_NAN = 1u << 0,            /* a NaN took part in a decision */
    CASE_CLASS_DENORMAL = 1u << 1,       /* flushing fp32 denormals changes the answer */
    CASE_CLASS_PADDING_WINDOW = 1u << 2, /* a pooling window lies entirely in padding */
};
/* "nan,denormal" style list into buf; "" for none. */
const char *case_classes_str(unsigned classes, char *buf, unsigned size);

/* Output buffers of one execution, each of its tensor's TotalTensorSizeInBytes. */
typedef struct case_outputs {
    uint8_t *output;
    UINT64 output_bytes;
    uint8_t *indices; /* NULL when the case has no indices tensor */
    UINT64 indices_bytes;
} case_outputs;

#define CASE_CANARY_BYTE 0xA5
/* Allocates output buffers for c, filled with CASE_CANARY_BYTE.  False on allocation failure. */
bool case_outputs_alloc(case_outputs *o, const dml_case *c);
void case_outputs_free(case_outputs *o);

#endif
