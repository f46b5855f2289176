/*
 * diagnose.h: diagnosis by probing.  Given a failing case, dmlcheck asks the implementation
 * follow-up questions (probes): small cases derived from the failing one, each built so that
 * a named root cause of the catalogue (cause.h) predicts an exact wrong answer and the spec
 * another.  A root cause is confirmed only when its predictions hold on at least
 * DIAGNOSE_CONFIRMATIONS probes where they differ from the spec, and on each of those every
 * other cause of the catalogue that could touch the case predicts something else.  Otherwise
 * the failure is undiagnosed, and the caller keeps its generic kind: never a confident wrong
 * name.  docs/DIAGNOSIS.md.
 *
 * This layer never runs a backend: the caller passes an asker that runs one probe wherever the
 * backend lives (in this process for tests, in the session's worker for runs).
 */
#ifndef DMLCHECK_DIAGNOSE_H
#define DMLCHECK_DIAGNOSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "cause.h"
#include "error.h"

/* What the backend answered to one probe. */
typedef struct probe_answer {
    bool ran;              /* it ran the probe and wrote outputs (run status OK) */
    case_outputs outputs;  /* allocated and canary-filled by the diagnosis (case_outputs_alloc
                            * of the probe); the asker writes the backend's outputs here */
} probe_answer;

/* Runs probe on the backend.  False with err only when the asking itself failed (the
 * harness's memory, its worker's pipe): the diagnosis then stops.  A backend that refuses or
 * fails the probe is an answer: ran false. */
typedef bool (*probe_ask)(void *ctx, const dml_case *probe, probe_answer *got, dmlc_error *err);

#define DIAGNOSE_MAX_PROBES 24
#define DIAGNOSE_CONFIRMATIONS 2

typedef struct diagnose_options {
    exec_options exec;   /* the spec: NaN policy, denormals (as the failing case was judged) */
    uint64_t seed;       /* e.g. a hash of the failing case's id: same id, same probes */
    unsigned max_probes; /* probes asked at most; 0: DIAGNOSE_MAX_PROBES */
} diagnose_options;

/* One probe asked, with what each side says. */
typedef struct diagnosis_probe {
    const cause *built_for;             /* the cause it was drawn to test */
    dml_case probe;
    case_outputs spec;                  /* the reference's answer */
    probe_answer got;                   /* the backend's */
    case_outputs predicted[CAUSE_COUNT]; /* each rival's prediction (where it has one) */
    uint64_t predicts;   /* bit k: cause k predicted this probe */
    uint64_t differs;    /* bit k: its prediction differs from the spec */
    uint64_t holds;      /* bit k: its prediction is what came back */
    uint8_t *decided;    /* per output: its window holds a real element (NULL: every one) */
} diagnosis_probe;

typedef struct diagnosis {
    /* The confirmed causes (usually one; two independent bugs may both be confirmed).
     * confirmed_count 0: undiagnosed. */
    const cause *confirmed[CAUSE_COUNT];
    unsigned confirmed_count;
    /* confirmed[0] and [1] are two bugs that explain the answers only together (each
     * cause's prediction with the other's applied too): their composed prediction held on
     * DIAGNOSE_CONFIRMATIONS probes where no single cause's did.  A combination is tried only
     * when no single cause is confirmed. */
    bool interacting;
    /* A cause the probes cannot tell from the one confirmed alone on this case
     * (cause_also_possible): the failure is either bug.  NULL: none. */
    const cause *also_possible;
    uint64_t rivals;      /* causes that could touch the case (their family and applies) */
    uint64_t candidates;  /* rivals whose prediction on the failing case differs from spec */
    diagnosis_probe probes[DIAGNOSE_MAX_PROBES];
    unsigned probe_count;
} diagnosis;

/* Diagnoses failing (a validated case with its input) by asking probes.  d is filled (free it
 * with diagnosis_free, also after a failure).  False with err when memory runs out or ask
 * failed; an undiagnosed failure is a success with confirmed_count 0. */
bool diagnose_case(const dml_case *failing, const diagnose_options *opt, probe_ask ask,
                   void *ask_ctx, diagnosis *d, dmlc_error *err);
void diagnosis_free(diagnosis *d);

/* The cause confirmed alone, or NULL (undiagnosed, or two confirmed). */
const cause *diagnosis_cause(const diagnosis *d);
/* The root cause as stored and keyed: a confirmed cause's id, "a+b" for two interacting
 * causes, or "a|b" for a confirmed and one it cannot be told from (also_possible); NULL when
 * undiagnosed (or two independent causes: no one key). */
const char *diagnosis_key(const diagnosis *d, char *buf, size_t size);

/* The diagnosis and its evidence as JSON (a new reference): status, causes with sentences,
 * and per probe its case, what the spec says, what the confirmed cause (else the cause it was
 * built for) predicts, what came back and which causes' predictions held.  NULL when memory
 * runs out. */
json_t *diagnosis_json(const diagnosis *d);
/* A short text for a person: the verdict and one line per probe.  Returns buf. */
const char *diagnosis_text(const diagnosis *d, char *buf, size_t size);

/* What asking a failing case once more showed of the bugs already confirmed on other cases
 * of the same run (diagnose_same_bug). */
typedef struct same_bug_check {
    bool held;            /* a key's prediction is what the backend answered */
    bool could_show;      /* some single key's prediction parts from the spec here: a bug
                           * confirmed can show in the case (false: it can only be another) */
    size_t first, second; /* the keys it was: keys[first], composed with keys[second] when
                           * that is not SIZE_MAX (two bugs in one case) */
    char key[2 * 64 + 2]; /* the key to store: keys[first] (an either-key narrowed to its cause
                           * where the other applies here), or "a+b" */
} same_bug_check;

/* Two keys' compositions are tried among the first this many, on failing cases of at most
 * this many input elements: each costs a scan of the case. */
#define SAME_BUG_PAIR_KEYS 8
#define SAME_BUG_PAIR_ELEMENTS 65536
/* A failing case of more input elements is not asked again: a large case through a slow
 * library (onnx.reference: seconds) costs more than the probes it would save. */
#define SAME_BUG_MAX_ELEMENTS 65536

/* Whether one of the bugs of stored keys (diagnosis_key's form), each confirmed by probing on
 * another failure of this backend, is this failure too, or two of them together: its
 * prediction for `failing` itself differs from the spec and is what the backend answers when
 * asked the case again (where a window holds a real element, as on probes, and wherever else
 * the prediction parts from the spec).  Keys in order, then pairs.  The case is asked once at
 * most, and not at all when no bug can show in it.  Two bugs that share an operator family, a
 * kind and a verdict (OpenVINO's UINT64 read as 32 bits and its NaN restarts) are told apart
 * by it, each failure named by its own.  False with err only when memory runs out or asking
 * failed. */
bool diagnose_same_bug(const dml_case *failing, const char *const *keys, size_t count,
                       const diagnose_options *opt, probe_ask ask, void *ask_ctx,
                       same_bug_check *out, dmlc_error *err);

#endif
