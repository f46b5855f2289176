/*
 * validate_kit.h: what an operator module (model/ops/) needs to write its validation rules:
 * the per-tensor rule (rank range and the feature level each data type arrived at) and the
 * check of one tensor against it (flags, type per level, rank, sizes, strides, storage, no
 * self-aliasing outputs).  The generic rules live in validate.c; the operator rules in the
 * modules; validate.h is the entry point everyone else uses.
 */
#ifndef DMLCHECK_VALIDATE_KIT_H
#define DMLCHECK_VALIDATE_KIT_H

#include <stdbool.h>

#include "dmlcheck/directml.h"
#include "error.h"

#define FL(level) DML_FEATURE_LEVEL_##level
#define DT(type) DML_TENSOR_DATA_TYPE_##type

/* A data type one tensor of one operator accepts, and the feature level that added it. */
typedef struct dtype_since {
    DML_TENSOR_DATA_TYPE type;
    DML_FEATURE_LEVEL since;
} dtype_since;

/* What one tensor of an operator must satisfy beyond the generic buffer-tensor rules. */
typedef struct tensor_rule {
    const char *field; /* "InputTensor": the descriptor member, used in messages */
    bool is_output;
    UINT min_rank, max_rank;
    const dtype_since *types; /* terminated by DML_TENSOR_DATA_TYPE_UNKNOWN */
} tensor_rule;

/* The operator and levels a validation runs under. */
typedef struct validate_ctx {
    const char *op_name;         /* "ARGMAX" */
    unsigned op_flags;           /* OPF_*: the variant of the family */
    DML_FEATURE_LEVEL requested; /* the caller's level, quoted in messages */
    DML_FEATURE_LEVEL effective; /* the level whose rules apply (fl_effective) */
} validate_ctx;

/* Every rule a single tensor must meet on its own; *out is its buffer description. */
bool validate_tensor(const validate_ctx *v, const tensor_rule *r, const DML_TENSOR_DESC *t,
                     const DML_BUFFER_TENSOR_DESC **out, dmlc_error *err);

#endif
