/*
 * worker.h: the process that owns the backend under test.  The runner forks it BEFORE any
 * backend is opened and the child opens the backend itself, so OpenCL state never crosses a
 * fork.  The parent feeds it case ids over a pipe (the child regenerates each case from
 * SEED:INDEX, which is cheaper than shipping inputs) or, for shrinking, whole cases; the
 * child answers one message per case with the run status, the backend time and the raw
 * output bytes.
 *
 * A crash (the child dies) or a hang (no answer within the per-case limit: the child is
 * killed) is reported for the case whose answer was due; the caller restarts the worker and
 * resends what was lost.  A backend that batches (backend_info.batches) gets consecutive
 * small cases of a range in one run_batch call; the child announces each batch before the
 * call, with the batch's time limit, so a death during it is reported as the batch's
 * (worker_batch_lost) and the caller runs its cases again one by one to find the culprit; if
 * none dies alone, the death is charged to the batch's last case.  The child runs each case through check_run (check.h), the backend
 * half of the one differential check, which also checks what a host backend could break: a
 * guard band around every output buffer (out_of_bounds_write) and the input bytes
 * (input_modified).  The parent judges the answer with check_judge.
 */
#ifndef DMLCHECK_WORKER_H
#define DMLCHECK_WORKER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "case.h"
#include "check.h"
#include "classify.h"
#include "gen.h"

typedef struct worker_config {
    const backend_vtable *backend;
    const char *backend_args;  /* after "NAME:" in --backend; the worker opens (dlopens) it */
    const char *device;
    uint64_t seed;
    /* The distance between the indices of one range (a run's shard: --shard K/N gives N);
     * 0 and 1 mean consecutive indices. */
    uint64_t index_step;
    gen_options gen;
    exec_options exec;
    unsigned open_timeout_ms;  /* opening the backend (kernel builds) */
    unsigned case_timeout_ms;  /* one case's floor; longer than worker_case_limit_ms: hang */
    /* The caller's stop flag (set from a signal handler), or NULL: while waiting for an
     * answer the parent looks at it every 100 ms, so a stop never waits for a long case. */
    const volatile sig_atomic_t *stop;
} worker_config;

typedef struct worker worker;

/* Forks the worker and waits until it opened the backend; *info gets the device facts.
 * NULL with err when the fork or the backend open failed (err carries the backend's
 * message, e.g. "no OpenCL platform"). */
worker *worker_start(const worker_config *cfg, backend_info *info, dmlc_error *err);
/* Closes the pipes, lets the child close its backend within --case-timeout (a stop cuts
 * that short), reaps it and kills what it left behind.  False with err when the backend did
 * not close in time (it was killed).  Frees w; accepts NULL. */
bool worker_stop(worker *w, dmlc_error *err);
/* Kills and reforks after a crash or hang.  False with err when the backend cannot be
 * opened again. */
bool worker_restart(worker *w, dmlc_error *err);

/* Asks for generated cases first, first+step, ..., count of them (step: cfg.index_step, 1
 * when 0), one answer each, in order. */
bool worker_send_range(worker *w, uint64_t first, uint32_t count, dmlc_error *err);
/* As worker_send_range, but each case is its own backend call, never part of a batch: to
 * find the case to blame after a batch died (worker_batch_lost).  Sent right after that death
 * for the batch's cases, it arms the batch's charge: if none of them dies alone, the answer
 * to the last one arrives as the batch's death (died: crash or hang, as the batch died; the
 * message says how, the batch's first and last case, and that it did not recur alone), so
 * a death that needs its batch, or is flaky, is still one case's recorded failure. */
bool worker_send_range_alone(worker *w, uint64_t first, uint32_t count, dmlc_error *err);
/* Asks for one explicit case (shrinking); one answer. */
bool worker_send_case(worker *w, const dml_case *c, dmlc_error *err);

/* One case's answer: the backend half of a check (check.h), with the outputs owned by the
 * answer when status is RUN_OK, RUN_OUT_OF_BOUNDS_WRITE or RUN_INPUT_MODIFIED. */
typedef check_answer worker_answer;

/* Waits for the next answer (for case c, which the caller sent in that order), at most
 * worker_case_limit_ms(c) from the call on.  False with
 * err on a protocol breach (malformed answer), or when cfg.stop was raised first: then the
 * worker is killed, the case in flight has no answer and worker_interrupted is true (restart
 * the worker to go on).  A crash or hang is a true return with `died` set. */
bool worker_receive(worker *w, const dml_case *c, worker_answer *a, dmlc_error *err);
/* Time a backend gets per input element on top of --case-timeout: generous (a slow but
 * correct backend, Oclgrind or an interpreted adapter, runs at microseconds per element),
 * because a false hang is a false failure while a true hang costs only time. */
#define WORKER_CASE_US_PER_ELEMENT 10
/* The time limit for case c: case_timeout_ms (--case-timeout) plus WORKER_CASE_US_PER_ELEMENT
 * for each input element, so --case-timeout is the floor and a case of 2^20 elements gets
 * 10.5 s more (docs/USAGE.md "Time limits").  Never more than UINT32_MAX ms. */
unsigned worker_case_limit_ms(unsigned case_timeout_ms, const dml_case *c);
/* Kills the worker at once (the caller stopped while the worker was busy): no answer in
 * flight arrives, worker_interrupted is true, and worker_restart starts it again. */
void worker_abandon(worker *w);
/* After worker_receive reported a death (crash or hang): how many cases of one backend batch
 * were left without an answer, the awaited case first.  More than 1: the batch died as a
 * whole (the worker runs small cases in batches on a backend that says backend_info.batches)
 * and no case is to blame yet; send those cases again with worker_send_range_alone. */
uint32_t worker_batch_lost(const worker *w);
/* Whether the last worker_receive ended on the stop flag. */
bool worker_interrupted(const worker *w);
void worker_answer_free(worker_answer *a);

/* The generator's case for an index in the worker (also used by the runner so both sides
 * draw the same case). */
bool worker_generate(const worker_config *cfg, uint64_t index, dml_case *c, gen_info *info,
                     dmlc_error *err);

#endif
