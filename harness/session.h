/*
 * session.h: one implementation under test, checked case after case.  A session owns the
 * worker process that runs the backend (worker.h), computes the oracle in this process
 * meanwhile (oracle_guard.h, with its guard child for big cases), judges each answer
 * (check.h) and restarts the worker after a crash or hang, asking again for what the dead
 * worker owed.  `run`, `exec`, `replay` and the shrinker all check cases through it, so a
 * case gets the same verdict whichever command runs it.
 *
 * Two ways to ask:
 *   - session_check: one explicit case (a case file, a shrink candidate).
 *   - session_request, then session_receive in the same order: generated cases SEED:INDEX by
 *     range, pipelined (the worker draws each case itself while this process computes the
 *     oracle).  The session remembers what it asked and has not received, so after a death
 *     it asks again for exactly that; a backend batch that died as a whole is run again case
 *     by case to find the case to blame.
 * Explicit cases are checked only while no range is owed.
 */
#ifndef DMLCHECK_SESSION_H
#define DMLCHECK_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "case.h"
#include "check.h"
#include "diagnose.h"
#include "gen.h"
#include "oracle_guard.h"
#include "worker.h"

typedef struct session_config {
    worker_config worker;           /* backend, generator, timeouts, stop flag */
    check_options check;            /* how answers are judged; rules.device_flushes is
                                     * taken from the backend's info at the start */
    unsigned reference_timeout_ms;  /* one case's oracle in this process */
} session_config;

typedef enum session_status {
    SESSION_JUDGED,      /* the case's check_result is filled */
    SESSION_NOT_CHECKED, /* no oracle: it outlived --reference-timeout or had no memory
                          * (err says which); no verdict */
    SESSION_STOPPED,     /* the stop flag came first; the case in flight is abandoned */
    SESSION_FAILED,      /* out of memory, a protocol breach, or a backend that cannot be
                          * opened again (err says which) */
} session_status;

/* Both sides of one checked case: the oracle, the backend's answer (its outputs owned here)
 * and the judgement. */
typedef struct session_case {
    check_oracle oracle;
    check_answer answer;
    check_result result;
    /* The backend died on this case and could not be opened again (err says why): the case
     * is judged, and no further case will run. */
    bool backend_lost;
} session_case;
void session_case_free(session_case *sc);

typedef struct session session;

/* Forks the worker, which opens the backend; *info (may be NULL) gets the device facts.
 * NULL with err when the backend cannot be opened or memory runs out. */
session *session_start(const session_config *cfg, backend_info *info, dmlc_error *err);
/* Stops the worker and frees the session.  Accepts NULL. */
void session_stop(session *s);
/* Whether the backend could not be opened again after a death: nothing more will run. */
bool session_broken(const session *s);
/* The options answers are judged with (device_flushes filled in). */
const check_options *session_check_options(const session *s);

/* The generator's case SEED:INDEX, exactly as the worker draws it. */
bool session_generate(const session *s, uint64_t index, dml_case *c, gen_info *info,
                      dmlc_error *err);
/* The oracle of c within --reference-timeout and the stop flag (oracle_guard.h). */
oracle_outcome session_oracle(const session *s, const dml_case *c, check_oracle *o,
                              dmlc_error *err);

/* Checks one explicit, validated case: sends it to the worker, computes the oracle while the
 * backend runs, receives and judges the answer; a worker that died or broke the protocol is
 * restarted for the next case. */
session_status session_check(session *s, const dml_case *c, session_case *out, dmlc_error *err);

/* Asks the worker for generated cases first, first+step, ... (count of them; step is the
 * worker config's index_step).  A worker that died is noticed by the next receive. */
void session_request(session *s, uint64_t first, uint32_t count);
/* Receives the answer owed for the next requested index, which the caller generated as c,
 * and judges it against oracle (NULL: a case the caller could not prepare; the answer is
 * received and dropped, so the pipeline goes on, and SESSION_NOT_CHECKED is returned).
 * *index gets the case's index. */
session_status session_receive(session *s, const dml_case *c, const check_oracle *oracle,
                               check_answer *a, check_result *r, uint64_t *index, dmlc_error *err);
/* Diagnoses a failing case (diagnose.h) by asking the backend its probes through the session,
 * each checked as session_check checks a case; probes are judged by the session's NaN policy.
 * seed picks the probes' values (a hash of the case's id: the same case, the same probes).
 * *d is filled (diagnosis_free it, also after a failure).  False with err when asking failed
 * (a stop, a backend that cannot be opened again, memory). */
bool session_diagnose(session *s, const dml_case *failing, uint64_t seed, diagnosis *d,
                      dmlc_error *err);
/* Whether a bug of stored keys, each confirmed by probing on another failure of this run, is
 * failing's too, or two of them together (diagnose_same_bug): asks the case once at most,
 * counted as a probe.  False with err when asking failed. */
bool session_same_bug(session *s, const dml_case *failing, const char *const *keys, size_t count,
                      same_bug_check *out, dmlc_error *err);
/* Probes asked by session_diagnose since the session started. */
uint64_t session_probes_asked(const session *s);

/* Kills the worker at once: what was owed will not come (a stop, or an oracle that failed
 * while the worker was busy).  The next request or check starts a new one. */
void session_abandon(session *s);

#endif
