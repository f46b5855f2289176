/*
 * validate.h: DirectML's rules for the three operators, per feature level, as the spec pages
 * and SEMANTICS.md state them.  A later feature level behaves as its highest known
 * predecessor (2_1, 3_0, 4_1, 5_0).  Each failure names the field and the rule, e.g.
 * "OutputTensor.Sizes[1] is 3 but axis 1 is reduced, so it must be 1".  Never trusts a
 * field: NULL pointers, absurd counts and overflowing sizes are reported, not followed.
 */
#ifndef DMLCHECK_VALIDATE_H
#define DMLCHECK_VALIDATE_H

#include <stdbool.h>

#include "case.h"
#include "error.h"

/* Validates a DirectML operator descriptor at a feature level. */
bool validate(op_id op, const void *desc, DML_FEATURE_LEVEL feature_level, dmlc_error *err);
bool validate_operator(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL feature_level,
                       dmlc_error *err);

#define OP(id, stem, module, since, flags) bool validate_##stem(const void *desc, DML_FEATURE_LEVEL fl, dmlc_error *err);
#include "ops.def"

/* Validates a case at its feature level; when c->feature_level is 0, finds the lowest tested
 * level at which it is valid and stores it (the error is the one at the highest level). */
bool validate_case(dml_case *c, dmlc_error *err);

#endif
