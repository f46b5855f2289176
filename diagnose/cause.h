/*
 * cause.h: one entry of the catalogue of root causes.  An entry holds everything about one
 * cause: its stable id, the sentence a person reads, the operator families it can touch, its
 * prediction (the spec's scan with the steps it changes replaced, scan.h) and how its probes
 * are shaped and planted (probe.h).  causes.def lists the entries; causes/<group>.c defines
 * them, one group of related causes per file.
 */
#ifndef DMLCHECK_DIAGNOSE_CAUSE_H
#define DMLCHECK_DIAGNOSE_CAUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "prng.h"
#include "scan.h"

/* The operator families a cause can touch (a shared code path is one cause in both). */
enum { CAUSE_ARG_REDUCE = 1u << 0, CAUSE_POOLING = 1u << 1 };

/* How the probe's input is laid out in memory. */
typedef enum probe_layout {
    PROBE_PACKED,   /* no strides */
    PROBE_STRIDED,  /* dimensions stored in reverse order, elements two apart */
    PROBE_BROADCAST, /* PROBE_STRIDED with the largest dimension at stride 0 (broadcast), the
                      * buffer large enough for the tensor packed as well */
} probe_layout;

/* What the probe does with pooling's optional indices tensor. */
typedef enum probe_indices {
    PROBE_INDICES_KEEP,  /* as the failing case has it */
    PROBE_INDICES_DROP,  /* the cause leaves some index open (a padding winner's) */
    PROBE_INDICES_ADD,   /* the cause shows in indices only */
} probe_indices;

typedef struct probe_plan {
    probe_layout input_layout, output_layout;
    probe_layout indices_layout; /* pooling's indices tensor (PROBE_BROADCAST: not valid) */
    probe_indices indices;
    /* Pooling outputs of the ceil size (SEMANTICS D8) on every spatial axis that allows one;
     * false: the floor size. */
    bool ceil_output;
    /* Input elements a probe may have: 0 for PROBE_ELEMENTS (probe.h); more for a cause that
     * only sizes past a limit show. */
    uint64_t max_elements;
    /* Reshapes the probe (a copy of the failing case) before it is shrunk and laid out:
     * more axes, a larger plane.  NULL: the failing case's shape.  False: no probe. */
    bool (*shape)(dml_case *probe);
    /* Fills the probe's input buffer (every byte: gaps are read by some hypotheses) with the
     * values this cause needs, drawn from p. */
    void (*fill)(prng *p, dml_case *probe);
} probe_plan;

typedef struct cause {
    const char *id;       /* stable: stored, compared across runs, named in expectations */
    const char *sentence; /* what went wrong, for a person */
    unsigned families;    /* CAUSE_* */
    /* Whether the cause can exist in c (a type it needs, an indices tensor); NULL: every case
     * of its families. */
    bool (*applies)(const dml_case *c);
    scan_variant variant; /* the prediction */
    probe_plan plan;
    /* One of the NaN-policy fingerprint's policies (SEMANTICS "NaN-policy fingerprint"): a
     * family of this cause is NaN behaviour, which the fingerprint describes; a family of any
     * other cause is a bug whose NaN cases the fingerprint leaves out. */
    bool nan_policy;
    /* The id of the cause named instead of this one on the cases this one does not apply to
     * (applies() false) although it would predict the same answers there: pooling of an
     * unsigned type starts from 0, its lowest value, so best_seeded_with_zero is named
     * best_seeded_with_type_min there.  A failure confirmed as that cause on such a case is
     * either bug: its key is "named|this" (diagnosis_key), and a row of either cause is its
     * row (cause_keys_same_bug).  NULL: none. */
    const char *named_instead_by;
} cause;

/* The catalogue, in causes.def order: cause_catalogue[CAUSE_INDEX_name] is cause_name. */
enum {
#define CAUSE(name) CAUSE_INDEX_##name,
#include "causes.def"
#undef CAUSE
    CAUSE_COUNT
};
extern const cause *const cause_catalogue[CAUSE_COUNT];
/* The entry called id; NULL when none is. */
const cause *cause_find(const char *id);
/* Whether a stored root-cause key ("id", or "a+b" for two causes confirmed together) names
 * only causes of the catalogue that are not NaN policies: a bug whose changes to NaN cases
 * say nothing of the NaN policy.  False for an unknown id or an empty key. */
bool cause_key_is_other_bug(const char *key);
/* Whether stored root-cause keys a and b are one bug's row: the same key, a pair of causes
 * confirmed together ("a+b") and one of its two, or a key of either of two causes the probes
 * could not tell apart ("a|b") and one of them.  False when either key is empty. */
bool cause_keys_same_bug(const char *a, const char *b);
/* Of two keys of one bug's row, the one to name it by: a single cause over a pair ("a+b")
 * or an either-key ("a|b"); a when both are alike. */
const char *cause_key_preferred(const char *a, const char *b);
/* The entry of the first cause a stored key names ("a" of "a+b" or "a|b"); NULL when none. */
const cause *cause_key_first(const char *key);
/* The cause a failure of case c confirmed as `named` may be instead: one whose
 * named_instead_by is named's id and that does not apply to c (though its family does); NULL
 * when there is none. */
const cause *cause_also_possible(const cause *named, const dml_case *c);
/* Whether h is a candidate for a case like c: its family, then its applies(). */
bool cause_applies(const cause *h, const dml_case *c);

#endif
