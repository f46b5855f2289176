/*
 * gen.h: the seeded random case generator.  A case is named by SEED:INDEX and regenerates
 * bit-identically on any machine: the PRNG is reseeded per case from (seed, index), so a
 * filtered or resumed run reproduces the same cases as the full run.  Every generated case
 * is valid at its feature level (c->feature_level is always set).
 */
#ifndef DMLCHECK_GEN_H
#define DMLCHECK_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "case.h"
#include "error.h"

/* Tensor layout kinds, in the order reports list them. */
#define GEN_LAYOUTS(X) X(packed) X(padded) X(permuted) X(broadcast) X(oversized)
/* Value distributions (see README "Generator"), in the order reports list them. */
#define GEN_DISTRIBUTIONS(X)                                                              \
    X(uniform) X(ties) X(all_equal) X(extreme_at_both_ends) X(signed_zero) X(inf)         \
    X(nan_some) X(nan_all) X(denormal) X(int_extremes) X(padding_window)

typedef enum gen_layout {
#define X(name) GEN_LAYOUT_##name,
    GEN_LAYOUTS(X)
#undef X
    GEN_LAYOUT_COUNT
} gen_layout;

typedef enum gen_distribution {
#define X(name) GEN_DIST_##name,
    GEN_DISTRIBUTIONS(X)
#undef X
    GEN_DIST_COUNT
} gen_distribution;

const char *gen_layout_name(gen_layout l);
const char *gen_distribution_name(gen_distribution d);

typedef struct gen_options {
    uint64_t max_elements;             /* input element budget per case; default 4096 */
    DML_FEATURE_LEVEL feature_level;   /* 0: draw among fl_tested */
    unsigned op_mask;                  /* bit (1u << op_id) per allowed op; 0: all */
    uint32_t input_type_mask;          /* bit (1u << DML_TENSOR_DATA_TYPE) per allowed input type; 0: all */
} gen_options;

typedef struct gen_info {
    gen_layout layout;        /* the input's layout kind */
    gen_distribution dist;    /* the value distribution */
} gen_info;

void gen_options_default(gen_options *opt);

/* The generator draws the types op_types_at (op_module.h) gives for the drawn level. */
/* Generates case (seed, index) into c (initialised or freed by the caller).  False, with err,
 * only when the options exclude every case (e.g. an op mask and a feature level that allow
 * no data type). */
bool gen_case(uint64_t seed, uint64_t index, const gen_options *opt, dml_case *c,
              gen_info *info, dmlc_error *err);
/* Parses "SEED:INDEX" (decimal or 0x-hex seed). */
bool gen_parse_case_id(const char *text, uint64_t *seed, uint64_t *index);

#endif
