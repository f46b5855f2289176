/*
 * gen.h: the seeded random case generator.  A case is named by gN:SEED:INDEX (generator
 * version N, see GEN_VERSION) and regenerates bit-identically on any machine: the PRNG is
 * reseeded per case from (seed, index), so a filtered or resumed run reproduces the same
 * cases as the full run.  Every generated case is valid at its feature level
 * (c->feature_level is always set).
 */
#ifndef DMLCHECK_GEN_H
#define DMLCHECK_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "case_id.h"
#include "error.h"

/* Tensor layout kinds, in the order reports list them. */
#define GEN_LAYOUTS(X) X(packed) X(padded) X(permuted) X(broadcast) X(oversized)
/* Value distributions (see docs/USAGE.md "Differential runs"), in the order reports list them. */
#define GEN_DISTRIBUTIONS(X)                                                              \
    X(uniform) X(ties) X(all_equal) X(extreme_at_both_ends) X(signed_zero) X(inf)         \
    X(nan_some) X(nan_all) X(denormal) X(int_extremes) X(padding_window)                 \
    X(must_reject) /* never drawn as values: the label of a descriptor that must be refused */

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
    /* Input element budget per case; 0: the version's default (gen_max_elements). */
    uint64_t max_elements;
    /* The generator version drawing the cases: GEN_VERSION, or an older supported one
     * (gen_version_supported) to replay the ids it printed; 0 reads as GEN_VERSION. */
    unsigned version;
    /* Cases per thousand whose descriptor is broken so that DirectML requires refusing it at
     * the case's level (dml_case.must_reject; default GEN_DEFAULT_REJECT_PER_MILLE). */
    unsigned reject_per_mille;
    /* Consecutive cases sharing one descriptor, each with inputs of its own (1: every case
     * its own descriptor).  Cases k*N ... k*N+N-1 share the descriptor of group k, so an
     * implementation that compiles per descriptor compiles once per group. */
    unsigned inputs_per_desc;
    DML_FEATURE_LEVEL feature_level;   /* 0: draw among fl_tested */
    unsigned op_mask;                  /* bit (1u << op_id) per allowed op; 0: all */
    uint32_t input_type_mask;          /* bit (1u << DML_TENSOR_DATA_TYPE) per allowed input type; 0: all */
} gen_options;

#define GEN_DEFAULT_REJECT_PER_MILLE 20

typedef struct gen_info {
    gen_layout layout;        /* the input's layout kind */
    gen_distribution dist;    /* the value distribution */
} gen_info;

void gen_options_default(gen_options *opt);

/* The generator draws the types op_types_at (op_module.h) gives for the drawn level. */
/* Generates case (seed, index) into c (initialised or freed by the caller).  False, with err,
 * when the options exclude every case (e.g. an op mask and a feature level that allow no data
 * type), or when the input buffer cannot be allocated (gen_out_of_memory). */
bool gen_case(uint64_t seed, uint64_t index, const gen_options *opt, dml_case *c,
              gen_info *info, dmlc_error *err);
/* After gen_case failed on c: whether it was the input's allocation (the case is drawn, its
 * buffer is not), which ends a run, unlike options that exclude every case. */
bool gen_out_of_memory(const dml_case *c);

/* Since version 3 all but the large size tiers stay within this many input elements (and
 * --max-elements); version 2 had no other tier. */
#define GEN_SMALL_TIERS_ELEMENTS 4096
/* The input element budget gen_case uses: --max-elements, or the version's default
 * (4096 for version 2, 3 * 2^20 since version 3), clamped to 2^28. */
uint64_t gen_max_elements(const gen_options *opt);

/* gen_case's must-reject step (gen_reject.c): with probability reject_per_mille / 1000, from
 * a stream of its own (per descriptor group: gen_options.inputs_per_desc), breaks c (linked,
 * no input buffer yet) into a descriptor the validator
 * refuses at c->feature_level and sets c->must_reject.  True when it did. */
bool gen_reject_maybe(uint64_t seed, uint64_t group, const gen_options *opt, dml_case *c);
/* Room for any gen_options_text. */
#define GEN_OPTIONS_TEXT_SIZE 256
/* The options that decide what is drawn, as stable text whose equality means "same cases":
 * "feature-level=any max-elements=4096 ops=any types=any", keys in this order, names as the
 * command line spells them (--ops argmax,argmin; --types FLOAT16,...), each value reduced to
 * what gen_case uses (a mask of every op is "any", max-elements is clamped like the budget).
 * Stored with every run (runs.gen_options) so replay --db can name an option that differs. */
const char *gen_options_text(const gen_options *opt, char *buf, size_t size);

#endif
