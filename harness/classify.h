/*
 * classify.h: turning one differential execution into a verdict and, for a mismatch, a
 * kind that names the root cause when the evidence shows one: a running extreme that cannot
 * select the type's extreme, the tie the other way, padding that won, a value read from
 * outside the window, values compared narrowed...  A thousand failures of one bug then
 * share one signature, whatever the case's window or data type.
 *
 * Judging follows SEMANTICS.md: an element whose answer a NaN decided (class nan), that
 * fp32 denormal flushing changes (class denormal) or that pools a window entirely in padding
 * (class padding_window) is not judged unless strict, or unless its evidence is wrong under
 * every policy (an index outside the window, an output never written, a number returned
 * although another number beats it...); a case whose every differing element is unjudged
 * is "unspecified", not "fail".  A device that may flush fp32 denormals passes an
 * element that matches the flushed-input answer (SEMANTICS D6).
 */
#ifndef DMLCHECK_CLASSIFY_H
#define DMLCHECK_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "case.h"
#include "compare.h"

/* Every failure kind, one row each: X(name) for the kinds the harness reads from an answer
 * or a dead worker, F(name, STATUS) for a run's findings (backend.h RUN_FINDINGS, whose rows
 * are these kinds' only definition).  The kinds of a wrong answer name its root cause when
 * the evidence shows one (classify.c's table `explanations` says how each is detected;
 * docs/SEMANTICS.md "Failure kinds" says what each means), else the generic wrong_index or
 * value_bits_differ.  Kinds are stored by name: a name, once written to a database, stays
 * in this list so that old databases still report. */
#define MISMATCH_KINDS(X, F)                                                                  \
    X(wrong_index) X(tie_other_way) X(padding_selected) X(value_bits_differ) X(nan_handling)  \
    X(extreme_not_selectable) X(signed_zero_tie) X(value_not_in_window)                       \
    X(index_out_of_window) X(nan_breaks_order) X(narrowed_integer) X(output_not_written)      \
    RUN_FINDINGS(F) X(backend_error) X(crash) X(hang)                                         \
    X(rejected_valid) X(unsupported_required) X(accepted_invalid)

typedef enum mismatch_kind {
    KIND_NONE = 0,
#define X(name) KIND_##name,
#define F(name, status) X(name)
    MISMATCH_KINDS(X, F)
#undef F
#undef X
    KIND_COUNT
} mismatch_kind;

/* "wrong_index"...; NULL for KIND_NONE. */
const char *mismatch_kind_name(mismatch_kind k);
/* KIND_COUNT when unknown. */
mismatch_kind mismatch_kind_from_name(const char *name);
/* Whether a kind was read from the outputs (wrong_index ... output_not_written), not from how
 * the backend ran (a crash, a hang, a refusal, a write out of bounds): only such a failure has
 * an answer a root cause can predict (diagnose.h). */
bool mismatch_kind_from_outputs(mismatch_kind k);

typedef enum verdict { VERDICT_PASS, VERDICT_FAIL, VERDICT_UNSPECIFIED, VERDICT_SKIP, VERDICT_ERROR,
                       VERDICT_COUNT } verdict;
const char *verdict_name(verdict v);

/* The input element an arg-reduce index or a pooling index points at. */
typedef struct picked_input {
    bool valid;          /* the index names an element of the input */
    uint64_t logical;    /* its logical row-major index in the input */
    uint64_t bits;       /* its raw bits */
} picked_input;

typedef struct judgement {
    verdict verdict;
    mismatch_kind kind;     /* KIND_NONE for pass/skip/error */
    const char *why;        /* the evidence behind a root-cause kind, one sentence; NULL */
    unsigned classes;       /* CASE_CLASS_* of the differing elements examined (nan: a NaN
                             * decided one of their answers) */
    uint64_t count;         /* differing logical elements */
    /* The other root-cause kinds whose evidence also holds at that element (bit 1u << kind):
     * a family of one kind whose every case another family's kind explains too is that
     * family (families.h), e.g. a +0 from the padding that a real +0 could also have been. */
    uint32_t also_kinds;
    bool has_first;         /* `first` names the element the kind was read from */
    mismatch first;
    /* For index mismatches: the inputs at the expected and at the returned index. */
    picked_input at_expected, at_got;
} judgement;

/* How a case is judged. */
typedef struct judge_rules {
    bool strict;             /* judge every class */
    bool device_flushes;     /* backend_info.flushes_denormals */
} judge_rules;

/* Judges an execution that completed (status RUN_OK) against the reference answer
 * `expected`; `flushed` is the flushed-input answer (NULL when the case has no fp32 input). */
void judge_outputs(const dml_case *c, const case_outputs *expected, const case_outputs *flushed,
                   const case_outputs *got, const judge_rules *rules, judgement *j);
/* kinds (a judgement's also_kinds) as "name,name" into buf; NULL when there are none. */
const char *mismatch_kinds_text(uint32_t kinds, char *buf, size_t size);

/* A judgement for an execution that did not complete: the kind for a backend status or a
 * crash/hang; always "fail" (no class excuses a crash), except RUN_UNSUPPORTED -> skip. */
void judge_status(run_status status, mismatch_kind crash_or_hang, judgement *j);

/* Loads the input element that index `bits` of output element `out_logical` points at.
 * Arg-reduce: the index inside the reduced sub-tensor; pooling: the flat input index. */
picked_input classify_picked_input(const dml_case *c, uint64_t out_logical, uint64_t index_bits);

/* The real input elements of the pooling window of output element `out_logical`, in
 * row-major window order: up to `max` into items; returns how many there are in all.
 * *has_padding tells whether some window position lies in padding. */
unsigned classify_window(const dml_case *c, uint64_t out_logical, picked_input *items, unsigned max,
                         bool *has_padding);

#endif
