/*
 * session.c: one implementation under test, checked case after case (see session.h).
 *
 * What the worker owes is a queue of index ranges in request order.  An answer settles the
 * first index of the first range.  After a death the worker is restarted and the whole queue
 * is asked for again; a backend batch that died as a whole first becomes a range of its own
 * whose cases run alone (worker_send_range_alone), so the case that dies alone is blamed.
 */
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

typedef struct owed_range {
    uint64_t first;
    uint32_t count;
    bool alone;        /* each case its own backend call: a dead batch being re-run */
} owed_range;

struct session {
    session_config cfg;
    worker *w;
    uint64_t step;
    owed_range *owed;  /* owed[head..count-1], in request order */
    size_t head, count, cap;
    bool broken;       /* the backend could not be opened again: nothing more runs */
    bool abandoned;    /* the worker was killed on purpose: start a new one before asking */
    uint64_t probes;   /* asked by session_diagnose */
};

void session_case_free(session_case *sc)
{
    check_oracle_free(&sc->oracle);
    worker_answer_free(&sc->answer);
    memset(sc, 0, sizeof *sc);
}

session *session_start(const session_config *cfg, backend_info *info, dmlc_error *err)
{
    session *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "out of memory for the session");
        return NULL;
    }
    s->cfg = *cfg;
    s->step = cfg->worker.index_step ? cfg->worker.index_step : 1;
    backend_info facts;
    if (!(s->w = worker_start(&s->cfg.worker, &facts, err))) {
        free(s);
        return NULL;
    }
    s->cfg.check.rules.device_flushes = facts.flushes_denormals;
    if (info)
        *info = facts;
    return s;
}

void session_stop(session *s)
{
    if (!s)
        return;
    dmlc_error err;
    if (!worker_stop(s->w, &err)) /* every case is judged: said, not failed */
        fprintf(stderr, "dmlcheck: warning: %s\n", err.msg);
    free(s->owed);
    free(s);
}

bool session_broken(const session *s)
{
    return s->broken;
}

const check_options *session_check_options(const session *s)
{
    return &s->cfg.check;
}

bool session_generate(const session *s, uint64_t index, dml_case *c, gen_info *info,
                      dmlc_error *err)
{
    return worker_generate(&s->cfg.worker, index, c, info, err);
}

oracle_outcome session_oracle(const session *s, const dml_case *c, check_oracle *o,
                              dmlc_error *err)
{
    oracle_limits limits = { .limit_ms = s->cfg.reference_timeout_ms, .stop = s->cfg.worker.stop };
    return oracle_prepare(c, &s->cfg.check.exec, &limits, o, err);
}

/* ---- What the worker owes ----------------------------------------------------------- */

static bool owe(session *s, owed_range r)
{
    if (s->head == s->count)
        s->head = s->count = 0;
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        owed_range *grown = realloc(s->owed, cap * sizeof *grown);
        if (!grown)
            return false;
        s->owed = grown;
        s->cap = cap;
    }
    s->owed[s->count++] = r;
    return true;
}

/* A failed write means the worker died: the answer due next reports it. */
static void ask(session *s, const owed_range *r)
{
    dmlc_error ignored;
    if (r->alone)
        worker_send_range_alone(s->w, r->first, r->count, &ignored);
    else
        worker_send_range(s->w, r->first, r->count, &ignored);
}

/* A new worker after session_abandon; false (and broken) when it cannot be opened. */
static bool ready(session *s, dmlc_error *err)
{
    if (s->abandoned && !s->broken) {
        if (!worker_restart(s->w, err))
            s->broken = true;
        s->abandoned = false;
    }
    return !s->broken;
}

void session_request(session *s, uint64_t first, uint32_t count)
{
    owed_range r = { .first = first, .count = count };
    dmlc_error err;
    if (!count || !ready(s, &err))
        return;
    if (!owe(s, r)) { /* nothing remembered, nothing asked: the receive reports it */
        s->broken = true;
        return;
    }
    ask(s, &r);
}

/* The first owed index, taken off the queue. */
static uint64_t settle_first(session *s)
{
    owed_range *r = &s->owed[s->head];
    uint64_t index = r->first;
    r->first += s->step;
    if (--r->count == 0)
        s->head++;
    return index;
}

/* After a death: a new worker, asked again for everything still owed. */
static bool restart_and_ask_again(session *s, dmlc_error *err)
{
    if (!worker_restart(s->w, err)) {
        s->broken = true;
        return err_prefix(err, "the backend cannot be opened again after a crash or hang");
    }
    for (size_t i = s->head; i < s->count; i++)
        ask(s, &s->owed[i]);
    return true;
}

/* A backend batch died with `lost` owed cases unanswered, the first owed one first: they
 * become a range of their own, run alone, ahead of the rest. */
static bool split_lost_batch(session *s, uint32_t lost)
{
    owed_range *r = &s->owed[s->head];
    if (lost > r->count)
        lost = r->count;
    owed_range alone = { .first = r->first, .count = lost, .alone = true };
    r->first += lost * s->step;
    r->count -= lost;
    if (!r->count) {
        *r = alone;
        return true;
    }
    if (!owe(s, alone))
        return false;
    /* Move the new range from the back to the head. */
    memmove(&s->owed[s->head + 1], &s->owed[s->head], (s->count - 1 - s->head) * sizeof *s->owed);
    s->owed[s->head] = alone;
    return true;
}

void session_abandon(session *s)
{
    worker_abandon(s->w);
    s->head = s->count = 0;
    s->abandoned = true;
}

/* ---- Receiving and judging ---------------------------------------------------------- */

static session_status lost_worker(session *s)
{
    if (worker_interrupted(s->w)) {
        s->head = s->count = 0;
        s->abandoned = true;
        return SESSION_STOPPED;
    }
    return SESSION_FAILED; /* a protocol breach: err says what */
}

session_status session_receive(session *s, const dml_case *c, const check_oracle *oracle,
                               check_answer *a, check_result *r, uint64_t *index, dmlc_error *err)
{
    memset(a, 0, sizeof *a);
    if (s->broken || s->head == s->count)
        return err_set(err, s->broken ? "the backend could not be opened again"
                                      : "no case is owed by the worker"), SESSION_FAILED;
    for (;;) {
        if (!worker_receive(s->w, c, a, err))
            return lost_worker(s); /* err says why */
        uint32_t lost = worker_batch_lost(s->w);
        if (a->died == KIND_NONE || lost <= 1)
            break;
        worker_answer_free(a);
        if (!split_lost_batch(s, lost))
            return err_set(err, "out of memory re-running a batch"), SESSION_FAILED;
        if (!restart_and_ask_again(s, err))
            return SESSION_FAILED;
    }
    *index = settle_first(s);
    if (a->died != KIND_NONE && !restart_and_ask_again(s, err))
        return SESSION_FAILED;
    if (!oracle)
        return SESSION_NOT_CHECKED;
    check_judge(c, oracle, a, &s->cfg.check, r);
    return SESSION_JUDGED;
}

/* After a protocol breach or an abandoned case: a fresh worker for the next case. */
static void renew_worker(session *s, dmlc_error *err)
{
    dmlc_error restart_err;
    if (!worker_restart(s->w, &restart_err)) {
        s->broken = true;
        err_set(err, "%s; the backend cannot be opened again: %s", err->msg, restart_err.msg);
    }
}

session_status session_check(session *s, const dml_case *c, session_case *out, dmlc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ready(s, err))
        return err_set(err, "not run: the backend could not be opened again"), SESSION_FAILED;
    if (s->head != s->count)
        return err_set(err, "an explicit case while generated cases are owed"), SESSION_FAILED;
    dmlc_error ignored; /* a failed send is a death, which the answer reports as a crash */
    worker_send_case(s->w, c, &ignored);
    oracle_outcome prepared = session_oracle(s, c, &out->oracle, err);
    if (prepared != ORACLE_READY) { /* nothing to judge by: the answer is not waited for */
        session_abandon(s);
        return prepared == ORACLE_STOPPED ? SESSION_STOPPED : SESSION_NOT_CHECKED;
    }
    if (!worker_receive(s->w, c, &out->answer, err)) {
        if (worker_interrupted(s->w)) {
            s->abandoned = true;
            return SESSION_STOPPED;
        }
        renew_worker(s, err);
        return SESSION_FAILED;
    }
    if (out->answer.died != KIND_NONE && !worker_restart(s->w, err)) {
        s->broken = true; /* this case is judged; the next one is not run */
        out->backend_lost = true;
    }
    check_judge(c, &out->oracle, &out->answer, &s->cfg.check, &out->result);
    return SESSION_JUDGED;
}

/* ---- Diagnosis ---------------------------------------------------------------------- */

/* A probe through session_check: the backend's outputs when it ran the probe (a refusal, an
 * error or a death is an answer too: it did not run).  False only when asking failed. */
static bool ask_probe(void *ctx, const dml_case *probe, probe_answer *got, dmlc_error *err)
{
    session *s = ctx;
    session_case sc;
    session_status status = session_check(s, probe, &sc, err);
    s->probes++;
    bool ok = status == SESSION_JUDGED || status == SESSION_NOT_CHECKED;
    const check_answer *a = &sc.answer;
    got->ran = status == SESSION_JUDGED && a->died == KIND_NONE && a->status == RUN_OK;
    if (got->ran) {
        memcpy(got->outputs.output, a->outputs.output, got->outputs.output_bytes);
        if (got->outputs.indices)
            memcpy(got->outputs.indices, a->outputs.indices, got->outputs.indices_bytes);
    }
    if (status == SESSION_STOPPED)
        err_set(err, "stopped while diagnosing");
    session_case_free(&sc);
    return ok && !s->broken;
}

bool session_diagnose(session *s, const dml_case *failing, uint64_t seed, diagnosis *d,
                      dmlc_error *err)
{
    diagnose_options opt = { .exec = s->cfg.check.exec, .seed = seed };
    return diagnose_case(failing, &opt, ask_probe, s, d, err);
}

bool session_same_bug(session *s, const dml_case *failing, const char *const *keys, size_t count,
                      same_bug_check *out, dmlc_error *err)
{
    diagnose_options opt = { .exec = s->cfg.check.exec };
    return diagnose_same_bug(failing, keys, count, &opt, ask_probe, s, out, err);
}

uint64_t session_probes_asked(const session *s)
{
    return s->probes;
}
