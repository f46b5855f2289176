/*
 * scan.h: the variant oracle.  A hypothesis about a bug is "the spec, with one step done
 * another way"; this plain loop runs the spec's steps (which input elements decide an output,
 * in which order, what each is worth, which one wins, what index is written where), and a
 * scan_variant replaces the steps a hypothesis changes.  With every hook NULL it is the spec
 * itself, which diagnose.c checks against the reference engine on every probe before it
 * trusts a prediction there.
 *
 * The deciders of an output element come from the operator module (visit_deciders for
 * ARGMIN/ARGMAX, visit_grid for pooling, whose cells include padding), so the window and axis
 * formulas keep their one home in model/ops/; a hypothesis that changes the geometry changes
 * the case the module is asked about (reshape), not the formula.
 */
#ifndef DMLCHECK_DIAGNOSE_SCAN_H
#define DMLCHECK_DIAGNOSE_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "case.h"
#include "error.h"

/* One candidate of an output element as the scan sees it. */
typedef struct scan_item {
    uint64_t bits;      /* the element's raw bits (a padding cell: the value it is taken as) */
    int64_t key;        /* oriented: larger is better (ARGMIN reversed), NaN by policy */
    bool is_nan;
    bool padding;       /* a padding cell taken as a value */
    uint64_t index;     /* the spec's index: D2 position (arg reduce), flat input index (pooling) */
    uint64_t tap;       /* its position among the window's positions, row-major, padding
                         * included (pooling); the D2 position (arg reduce) */
    uint32_t in[DML_MAX_RANK]; /* input coordinates (for padding: clamped, not meaningful) */
} scan_item;

typedef struct scan_variant scan_variant;

/* What a hook sees: the case as the implementation is taken to see it and how it runs. */
typedef struct scan_env {
    const dml_case *seen;      /* the probe, or the variant's reshaped copy of it */
    const exec_options *exec;
    bool minimize;             /* ARGMIN */
    bool decreasing;           /* ARGMIN/ARGMAX DECREASING */
    bool pooling;              /* the family with windows (output holds values) */
    const uint32_t *out;       /* the coordinates of the output element being scanned (its
                                * N, C plane for a window with no candidate) */
} scan_env;

/* Every hook may be NULL: the spec's step.  Each catalogue entry fills the ones its root
 * cause changes, so everything about that cause stays in its entry. */
struct scan_variant {
    /* The case the implementation is taken to have seen: the probe with its geometry or
     * layout read another way (the same buffers, the same output addresses).  False: this
     * variant cannot predict the probe. */
    bool (*reshape)(const dml_case *probe, dml_case *seen);
    /* Element offset the input element at coordinates `in` is read from. */
    uint64_t (*input_offset)(const scan_env *e, const uint32_t *in);
    /* Padding cells are candidates holding these bits (false: padding is skipped, D7). */
    bool (*padding_bits)(const scan_env *e, uint64_t *bits);
    /* The unoriented order key of a number and whether it is NaN (spec: order.h's keys). */
    int64_t (*number_key)(const scan_env *e, uint64_t bits, bool *is_nan);
    /* Scan the candidates last to first (spec: first to last, ascending index). */
    bool (*backwards)(const scan_env *e);
    /* The running best before any candidate is looked at (first: the first candidate in
     * scan order, NULL when there is none, a window wholly in padding); false: none (the
     * spec: the first candidate is taken as it is). */
    bool (*seed)(const scan_env *e, const scan_item *first, scan_item *best);
    /* Whether cand replaces the running best (spec: a larger key, or an equal key where D3
     * prefers the later one). */
    bool (*replaces)(const scan_env *e, const scan_item *cand, const scan_item *best);
    /* The index written for the winner (spec: winner->index). */
    uint64_t (*index_of)(const scan_env *e, const scan_item *winner);
    /* The bits a pooling output holds for the winner (spec: winner->bits, D3's exact bits). */
    uint64_t (*value_of)(const scan_env *e, const scan_item *winner);
    /* Element offset at which logical output element `logical` of tensor t is written
     * (spec: t's strides). */
    uint64_t (*output_offset)(const scan_env *e, const case_tensor *t, uint64_t logical);
    /* Whether output element `logical` (at output coordinates `out`) is written at all (spec:
     * every one); one never written keeps the canary the outputs were filled with. */
    bool (*written)(const scan_env *e, uint64_t logical, const uint32_t *out);
    /* The index as the implementation's storage holds it, applied to every index written,
     * all ones for no element included (spec: the index as it is). */
    uint64_t (*stored_index)(const scan_env *e, uint64_t index);
};

/* The spec's steps, for hooks that change only part of one. */
int64_t scan_spec_number_key(const scan_env *e, uint64_t bits, bool *is_nan);
/* A number key oriented for the operator with the NaN key of the policy (order.h). */
int64_t scan_final_key(const scan_env *e, int64_t key, bool is_nan);
bool scan_spec_replaces(const scan_env *e, const scan_item *cand, const scan_item *best);
uint64_t scan_strided_offset(const case_tensor *t, const uint32_t *coords);

/* Both variants at once (two bugs in one implementation): every hook either one sets.  False
 * when both set the same hook (their bugs change the same step: no one composition). */
bool scan_variant_compose(const scan_variant *a, const scan_variant *b, scan_variant *out);

/* Runs probe under v into out (allocated here, canary-filled like the backend's, freed by the
 * caller with case_outputs_free).  False when the variant cannot predict this probe (err
 * says why) or memory runs out. */
bool scan_predict(const scan_variant *v, const dml_case *probe, const exec_options *exec,
                  case_outputs *out, dmlc_error *err);

#endif
