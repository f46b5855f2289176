/*
 * check.h: the one differential check.  Every loop that holds a backend's answer against
 * the oracle (`dmlcheck run` with its worker, `exec`, `replay`, the fuzz target, the OpenCL
 * tests) goes through these functions, so a case is judged one way and a judgement is
 * explained one way, whoever asks (STYLE.md, "One check, one explanation").
 *
 * A check has two halves that may live in two processes:
 *   - the oracle half (check_prepare): the reference answer, the answer on fp32-denormal-
 *     flushed inputs and the case's classes (ref_classify);
 *   - the backend half (check_run): the backend runs into canary-filled outputs with guard
 *     bands on both sides, and the input bytes are compared afterwards, so a write out of
 *     bounds or into the input is caught whatever the backend reports;
 * and check_judge turns an answer into a check_result: the run status (unsupported is a skip,
 * any other failure fails), then the bit-exact comparison and classification of classify.h
 * against the reference, and, where the case file carries expected arrays, against those.
 * `run`, `replay` and `exec` call the halves themselves (their worker process runs
 * check_run, so a backend's crash or hang costs one case); the tests and fuzz targets call
 * check_case, which does all three in this process.
 *
 * Denormals have one rule (SEMANTICS D6): the caller sets rules.device_flushes from
 * backend_info.flushes_denormals and judge_outputs passes an element that matches the
 * flushed-input answer; nobody runs the reference flushed in its place.
 *
 * check_explain renders a result for a person: the same lines on the terminal, in TAP
 * diagnostics and, as JSON, in the results database.
 */
#ifndef DMLCHECK_CHECK_H
#define DMLCHECK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "case.h"
#include "classify.h"
#include "nan_fingerprint.h"

typedef struct check_options {
    exec_options exec;   /* how both sides run: NaN policy, flushed denormals */
    judge_rules rules;   /* strict; device_flushes = backend_info.flushes_denormals */
    /* A difference on a classed element fails too, instead of being "unspecified": for the
     * tests of our own backend, which implements dmlcheck's policies exactly.  A flushing
     * device's flushed answer still passes (D6).  Case-file expectations are judged by the
     * same rules as the reference's answer (exact only with this flag). */
    bool exact;
    /* Leaves check_result.nan empty: for callers that never record the fingerprint
     * (fuzz_differential, where it was a third of the time on the NaN-heavy corpus). */
    bool skip_nan_fingerprint;
} check_options;

/* The oracle half of one case. */
typedef struct check_oracle {
    case_outputs expected;  /* the reference answer */
    case_outputs flushed;   /* the answer on flushed inputs; output NULL without fp32 input */
    unsigned classes;       /* CASE_CLASS_* of the case */
} check_oracle;

/* Computes the oracle half.  False with err only when memory runs out. */
bool check_prepare(const dml_case *c, const exec_options *exec, check_oracle *o, dmlc_error *err);
void check_oracle_free(check_oracle *o);

/* What the backend half produced, wherever it ran. */
typedef struct check_answer {
    mismatch_kind died;     /* KIND_crash or KIND_hang when the backend's process died */
    run_status status;
    double time_us;         /* backend time */
    case_outputs outputs;   /* meaningful when status is RUN_OK, RUN_OUT_OF_BOUNDS_WRITE or
                             * RUN_INPUT_MODIFIED; owner depends on who filled it */
    char message[512];      /* the backend's message, or how its process died */
    bool out_of_memory;     /* the harness's own buffers could not be allocated: the backend
                             * did not run, and is not to blame (message says what and how big) */
} check_answer;

/* Guarded output blocks and an input copy, reused from case to case. */
typedef struct check_buffers {
    uint8_t *output_block, *indices_block, *input_copy;
    size_t output_cap, indices_cap, input_cap;
} check_buffers;
void check_buffers_free(check_buffers *b);

/* The backend half: runs c on the backend into canary-filled, guard-banded outputs and checks
 * the guards and the input afterwards.  a->outputs point into buf until its next use. */
void check_run(const backend_vtable *vt, backend *b, const dml_case *c, const exec_options *exec,
               check_buffers *buf, check_answer *a);
/* The backend half of count cases in one call of the backend's run_batch (one by one when it
 * has none): each case checked as check_run checks it, in buffers of its own (bufs[i]); the
 * batch's backend time is shared evenly among the cases that ran. */
void check_run_batch(const backend_vtable *vt, backend *b, const dml_case *const *cases,
                     size_t count, const exec_options *exec, check_buffers *bufs,
                     check_answer *answers);

typedef struct check_result {
    judgement j;            /* verdict, kind, count, first difference and the inputs it picked */
    bool against_file;      /* j compares with the case file's expected arrays, not the reference */
    bool flushed_pass;      /* passes as the flushed-input answer of a flushing device (D6) */
    unsigned classes;       /* the case's classes */
    run_status status;      /* the backend's run status */
    char message[512];      /* the backend's message for a status other than RUN_OK */
    /* The NaN policies the answer follows on its rows or windows that hold a NaN (nan_rows
     * 0: none, or the backend gave no answer); computed for cases of class nan only. */
    nan_fingerprint nan;
} check_result;

/* Judges an answer against the oracle (and the case file's expected arrays, if any). */
void check_judge(const dml_case *c, const check_oracle *o, const check_answer *a,
                 const check_options *opt, check_result *r);

/* One backend, opened by the caller, checked case after case in this process. */
typedef struct checker {
    const backend_vtable *vt;
    backend *b;
    check_options opt;
    check_buffers buf;
    check_answer last;      /* the last case's answer; its outputs live in buf */
} checker;

void check_init(checker *k, const backend_vtable *vt, backend *b, const check_options *opt);
void check_fini(checker *k);
/* Prepares, runs and judges one validated case.  False with err only when memory runs out. */
bool check_case(checker *k, const dml_case *c, check_result *r, dmlc_error *err);

/* The process exit code a result deserves: 1 for a judged failure, else 0. */
int check_exit_code(const check_result *r);

/* Writes the explanation of r, one line per '\n': the verdict with the first differing
 * element (coordinates, expected and got: floats as hex-float and raw bits, integers in
 * decimal), the inputs an index picked on each side, the case's classes, and "replay: " with
 * `replay` (a command the caller quoted with replay_append_arg) when it is not NULL and the
 * case did not pass.  Text that does not fit is cut short.  Returns buf. */
const char *check_explain(const dml_case *c, const check_result *r, const char *replay, char *buf,
                          size_t size);
/* One differing element, worded as check_explain words the first: "output[0,1] (logical
 * element 1): expected 0x1p+0 (0x3f800000), got 0x0p+0 (0x00000000)".  Returns buf. */
const char *check_describe_difference(const dml_case *c, const mismatch *m, char *buf, size_t size);
/* check_explain's lines on f, each after `prefix` ("# " for TAP diagnostics). */
void check_print(FILE *f, const char *prefix, const dml_case *c, const check_result *r,
                 const char *replay);
/* The first difference as JSON for the results database (malloc'd; NULL when there is none
 * or memory runs out): tensor, element, coords, expected/got bits and values, the inputs at
 * both indices, and the explanation. */
char *check_first_json(const dml_case *c, const check_result *r);

#endif
