/*
 * op.h: the operator table and feature levels.  op_table is built from ops.def; every
 * module that needs per-operator behaviour builds its own table from the same rows.
 */
#ifndef DMLCHECK_OP_H
#define DMLCHECK_OP_H

#include <stdbool.h>
#include <stddef.h>

#include "dmlcheck/directml.h"

typedef enum op_id {
#define OP(id, stem) OP_##id,
#include "ops.def"
    OP_COUNT
} op_id;

typedef struct op_info {
    op_id id;
    const char *name; /* "ARGMAX": case files, reports */
    const char *stem; /* "argmax": files, tests, kernels */
    DML_OPERATOR_TYPE dml_type;
} op_info;

extern const op_info op_table[OP_COUNT];

/* Accepts name or stem, case-insensitively; OP_COUNT when unknown. */
op_id op_from_name(const char *name);
op_id op_from_dml_type(DML_OPERATOR_TYPE t);
static inline bool op_is_arg_reduce(op_id op) { return op == OP_ARGMIN || op == OP_ARGMAX; }

/* Feature levels dmlcheck knows the rules of, lowest first; a later level behaves as its
 * highest known predecessor (fl_effective). */
extern const DML_FEATURE_LEVEL fl_tested[];
extern const size_t FL_TESTED_COUNT;
/* "4_1" (also "4.1", "DML_FEATURE_LEVEL_4_1") -> value; false when unknown. */
bool fl_from_name(const char *name, DML_FEATURE_LEVEL *out);
/* "4_1"; "?" when not a DML_FEATURE_LEVEL value. */
const char *fl_name(DML_FEATURE_LEVEL fl);
/* Highest tested level <= fl, or 0 when fl is below every tested level. */
DML_FEATURE_LEVEL fl_effective(DML_FEATURE_LEVEL fl);

#endif
