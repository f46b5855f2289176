/*
 * op.h: the operator table and feature levels.  op_table is built from ops.def; everything
 * that differs between operators is reached through op_table[op].module (op_module.h), so
 * nothing outside the modules asks which operator a case is.
 */
#ifndef DMLCHECK_OP_H
#define DMLCHECK_OP_H

#include <stdbool.h>
#include <stddef.h>

#include "dmlcheck/directml.h"

typedef enum op_id {
#define OP(id, stem, module, since, flags) OP_##id,
#include "ops.def"
    OP_COUNT
} op_id;

/* The variant of a family an operator is (ops.def's flags column). */
enum {
    OPF_MINIMIZES = 1u << 0, /* arg_reduce: the smallest element wins (ARGMIN) */
    OPF_DILATIONS = 1u << 1, /* max_pooling: the descriptor has Dilations (MAX_POOLING2) */
};

typedef struct op_module op_module;

typedef struct op_info {
    op_id id;
    const char *name; /* "ARGMAX": case files, reports */
    const char *stem; /* "argmax": files, tests, corpus folders */
    DML_OPERATOR_TYPE dml_type;
    const op_module *module;     /* the family's module (op_module.h) */
    const char *module_name;     /* "arg_reduce": reference/<module>.c, backend tables */
    DML_FEATURE_LEVEL since;     /* SPEC "Availability": the level that introduced it */
    unsigned flags;              /* OPF_* */
} op_info;

extern const op_info op_table[OP_COUNT];

/* Accepts name or stem, case-insensitively; OP_COUNT when unknown. */
op_id op_from_name(const char *name);
op_id op_from_dml_type(DML_OPERATOR_TYPE t);
/* "ARGMIN, ARGMAX or MAX_POOLING2": every operator name, for messages. */
const char *op_names_list(char *buf, size_t size);

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
