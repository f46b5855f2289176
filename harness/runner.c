/*
 * runner.c: the differential run loop (see runner.h); run_internal.h lists its other rooms.
 *
 * Pipeline: cases travel in batches of consecutive indices.  While the worker runs batch k
 * on the backend, this process generates batch k's cases itself and computes the reference
 * answers; batch k+1 is requested before batch k's answers are read, so the worker never
 * waits for the parent.  Answers are judged in index order and recorded; the transaction
 * is committed every `commit_cases` cases or every second, together with the run's
 * counters, so the database is always a consistent prefix of the run.
 *
 * Cases are checked through a session (session.h): a crash or hang is charged to the case
 * whose answer was due and the session asks a new worker again for what was lost; one that
 * ends a backend batch is charged to the case that dies when the batch's cases run alone;
 * when none does, the worker charges the batch's last case.
 * The stop flag is checked between batches and, through
 * the worker, every 100 ms while an answer is awaited: the case in flight and the rest of its
 * batch are dropped, what was recorded is committed, and the run is marked interrupted.
 */
#include "runner.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "clock.h"
#include "error.h"
#include "replay.h"
#include "run_internal.h"

#define COMMIT_INTERVAL_S 1.0

/* The index of a batch's i-th case. */
static uint64_t slot_index(const runner_options *o, const slot *s, uint32_t i)
{
    return s->first + i * runner_index_step(o);
}

static void free_slot_case(slot_case *sc)
{
    case_free(&sc->c);
    check_oracle_free(&sc->oracle);
    sc->valid = false;
}


/* Generates, validates and runs the reference for one case of the batch.  A case whose
 * reference outlives its limit is not valid (recorded as not checked); ORACLE_STOPPED and
 * ORACLE_FAILED (out of memory for the input or the reference's outputs, err says what and
 * how big) end the run. */
static oracle_outcome prepare_case(runner *r, uint64_t index, slot_case *sc, dmlc_error *err)
{
    memset(sc, 0, sizeof *sc);
    if (!session_generate(r->s, index, &sc->c, &sc->info, err)) {
        memcpy(sc->error, err->msg, sizeof sc->error - 1);
        return gen_out_of_memory(&sc->c) ? ORACLE_FAILED : ORACLE_READY;
    }
    oracle_outcome got = session_oracle(r->s, &sc->c, &sc->oracle, err);
    if (got == ORACLE_OUT_OF_TIME)
        memcpy(sc->error, err->msg, sizeof sc->error - 1);
    sc->valid = got == ORACLE_READY;
    return got == ORACLE_OUT_OF_TIME ? ORACLE_READY : got;
}

/* Prepares every case of a batch.  False when a stop or an allocation failure ends the run:
 * the worker, busy with this batch, is killed (r->stopped says which). */
static bool prepare_slot(runner *r, slot *s, dmlc_error *err)
{
    for (uint32_t i = 0; i < s->count; i++) {
        oracle_outcome got = prepare_case(r, slot_index(r->o, s, i), &s->cases[i], err);
        if (got == ORACLE_READY)
            continue;
        r->stopped = got == ORACLE_STOPPED;
        if (got == ORACLE_FAILED) {
            char name[GEN_CASE_ID_SIZE];
            err_prefix(err, "case %s", runner_case_name(r->o->seed, slot_index(r->o, s, i), name));
        }
        session_abandon(r->s);
        return false;
    }
    return true;
}

static bool commit_if_due(runner *r, bool force, dmlc_error *err)
{
    double now = clock_seconds();
    if (!force && r->uncommitted < r->o->commit_cases && now - r->last_commit < COMMIT_INTERVAL_S)
        return true;
    if (!recorder_commit(r->rec, r->rep->run_id, r->rep->cases, r->rep->by_verdict[VERDICT_FAIL],
                         now - r->start, err))
        return false;
    r->uncommitted = 0;
    r->last_commit = now;
    return true;
}

static bool want_more(const runner *r, uint64_t next_index)
{
    if (runner_stop_raised(r->o))
        return false;
    if (r->case_target && next_index >= r->case_target)
        return false;
    if (r->o->time_s > 0 && clock_seconds() - r->start >= r->o->time_s)
        return false;
    return true;
}

/* The next batch: up to --batch of this run's indices (a shard's: every Nth) from
 * *next_index on, below --cases. */
static void plan_slot(const runner *r, slot *s, uint64_t *next_index)
{
    uint64_t step = runner_index_step(r->o);
    s->first = *next_index;
    s->count = 0;
    if (!want_more(r, *next_index))
        return;
    uint64_t n = r->o->batch;
    if (r->case_target && (r->case_target - *next_index + step - 1) / step < n)
        n = (r->case_target - *next_index + step - 1) / step;
    s->count = (uint32_t)n;
    *next_index += n * step;
}


/* A case the generator made but dmlcheck could not check (its reference outlived
 * --reference-timeout): an error row, and the message with its replay line. */
static bool record_unchecked(runner *r, const slot_case *sc, uint64_t index, dmlc_error *err)
{
    check_result res = { .j.verdict = VERDICT_ERROR };
    if (!sc->c.input.present)
        r->rep->by_verdict[VERDICT_ERROR]++; /* nothing to describe: count only */
    else if (!runner_record_case(r, sc, index, &res, 0, sc->error, err))
        return false;
    runner_clear_progress(r);
    char name[GEN_CASE_ID_SIZE], replay[RUNNER_REPLAY_LINE_MAX];
    runner_case_name(r->o->seed, index, name);
    fprintf(stderr, "dmlcheck: case %s not checked: %s\n  replay: %s\n", name, sc->error,
            replay_case_line(replay, sizeof replay, name, r->replay_args));
    return true;
}

/* Receives, judges and records the answers of one batch, in the order they were asked. */
static bool finish_slot(runner *r, slot *cur, dmlc_error *err)
{
    for (uint32_t i = 0; i < cur->count; i++) {
        slot_case *sc = &cur->cases[i];
        check_answer a;
        check_result res;
        uint64_t index;
        session_status got = session_receive(r->s, &sc->c, sc->valid ? &sc->oracle : NULL, &a,
                                             &res, &index, err);
        bool ok = got == SESSION_JUDGED || got == SESSION_NOT_CHECKED;
        if (ok && index != slot_index(r->o, cur, i))
            ok = err_set(err, "the worker answered case %" PRIu64 " where %" PRIu64 " was due",
                         index, slot_index(r->o, cur, i));
        else if (got == SESSION_JUDGED)
            ok = runner_record_case(r, sc, index, &res, a.time_us, a.message[0] ? a.message : NULL, err);
        else if (got == SESSION_NOT_CHECKED)
            ok = record_unchecked(r, sc, index, err);
        worker_answer_free(&a);
        if (got == SESSION_STOPPED) {
            r->stopped = true;
            return true;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* At the case target: asks the caller for more cases (o->more_cases reads the committed
 * database) and plans the next slot when it wants some; *more says so.  False on error. */
static bool go_on(runner *r, slot *s, uint64_t *next_index, bool *more, dmlc_error *err)
{
    *more = false;
    if (!r->o->more_cases || !r->case_target || runner_stop_raised(r->o))
        return true;
    if (!commit_if_due(r, true, err) || !recorder_drain(r->rec, err))
        return false;
    runner_clear_progress(r);
    uint64_t target = r->o->more_cases(r->o->more_cases_ctx, r->o->db_path, r->rep->run_id,
                                      r->rep->cases);
    if (target <= r->case_target)
        return true;
    r->case_target = target;
    plan_slot(r, s, next_index);
    session_request(r->s, s->first, s->count);
    *more = s->count > 0;
    return true;
}

static bool run_loop(runner *r, dmlc_error *err)
{
    slot slots[2] = { { 0 } };
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++)
        ok = (slots[k].cases = calloc(r->o->batch, sizeof(slot_case))) != NULL;
    if (!ok) {
        free(slots[0].cases);
        return err_set(err, "out of memory for batches");
    }
    uint64_t next_index = r->o->shard_index;
    int cur = 0;
    plan_slot(r, &slots[cur], &next_index);
    session_request(r->s, slots[cur].first, slots[cur].count);
    bool more = true;
    while (ok && !r->stopped && (slots[cur].count
                                 || ((ok = go_on(r, &slots[cur], &next_index, &more, err)) && more))) {
        slot *s = &slots[cur], *n = &slots[!cur];
        if (!prepare_slot(r, s, err)) {
            ok = r->stopped;
            break;
        }
        plan_slot(r, n, &next_index);
        session_request(r->s, n->first, n->count);
        ok = finish_slot(r, s, err);
        for (uint32_t i = 0; i < s->count; i++)
            free_slot_case(&s->cases[i]);
        ok = ok && commit_if_due(r, false, err);
        runner_show_progress(r, false);
        cur = !cur;
    }
    /* On an error the next batch may be prepared or half-received: drop it. */
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < r->o->batch; i++)
            free_slot_case(&slots[k].cases[i]);
        free(slots[k].cases);
    }
    r->rep->interrupted = runner_stop_raised(r->o);
    return ok;
}

/* ---- Entry -------------------------------------------------------------------------- */

static const char *host_text(char *buf, size_t size)
{
    struct utsname u;
    if (uname(&u) < 0)
        return NULL;
    snprintf(buf, size, "%s %s %s %s", u.nodename, u.sysname, u.release, u.machine);
    return buf;
}

/* CPU seconds of this process and of the reaped workers: a load-independent cost figure
 * (the machine may be shared, which distorts cases/s). */
static void cpu_times(runner_report *rep)
{
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    rep->parent_cpu_s = (double)self.ru_utime.tv_sec + self.ru_utime.tv_usec * 1e-6
        + (double)self.ru_stime.tv_sec + self.ru_stime.tv_usec * 1e-6;
    rep->worker_cpu_s = (double)children.ru_utime.tv_sec + children.ru_utime.tv_usec * 1e-6
        + (double)children.ru_stime.tv_sec + children.ru_stime.tv_usec * 1e-6;
}

static bool begin_run(runner *r, dmlc_error *err)
{
    char started[32], host[512], gen_text[GEN_OPTIONS_TEXT_SIZE];
    char *options = runner_options_json(r->o);
    store_run_start start = {
        .started_at = clock_utc_text(started, sizeof started), .seed = r->o->seed, .options_json = options,
        .command_line = r->o->command_line,
        .git_revision = dmlcheck_git_revision[0] ? dmlcheck_git_revision : NULL,
        .host = host_text(host, sizeof host), .backend = r->backend_text,
        .nan_policy = nan_policy_name(r->o->nan), .strict = r->o->strict,
        .cases_requested = r->o->cases ? (int64_t)r->o->cases : -1,
        .time_requested_s = r->o->time_s > 0 ? r->o->time_s : -1,
        .gen_version = GEN_VERSION, .gen_options = gen_options_text(&r->o->gen, gen_text, sizeof gen_text),
    };
    bool ok = options && store_run_begin(r->db, &start, &r->rep->run_id, err)
        && store_run_device(r->db, r->rep->run_id, r->backend_text, &r->info, &r->device_id, err);
    free(options);
    return ok ? true : err->msg[0] ? false : err_set(err, "out of memory");
}

int runner_run(const runner_options *o, runner_report *report, dmlc_error *err)
{
    runner r = { .o = o, .rep = report };
    memset(report, 0, sizeof *report);
    err->msg[0] = 0;
    if (o->dry_run)
        return runner_dry_run(o, err);
    if (!o->backend || !o->db_path || !o->batch)
        return err_set(err, "runner: no backend, database or batch size"), 2;
    runner_backend_text(o, r.backend_text, sizeof r.backend_text);
    if (strlen(r.backend_text) + 1 >= sizeof r.backend_text) /* stored cut, it would name another */
        return err_set(err, "--backend: the text is longer than %zu bytes; shorten the path or "
                       "the arguments", sizeof r.backend_text - 2), 2;
    if (!runner_replay_args(o, r.replay_args, sizeof r.replay_args))
        return err_set(err, "the options make a replay command longer than %d bytes: shorten "
                       "--backend or --device", RUNNER_REPLAY_ARGS_MAX), 2;
    r.db = store_open(o->db_path, err);
    if (!r.db)
        return 2;
    struct sigaction ignore = { .sa_handler = SIG_IGN }, old_pipe;
    sigaction(SIGPIPE, &ignore, &old_pipe); /* a dead worker must not kill us on write */
    runner_report at_start;
    cpu_times(&at_start); /* earlier runs in this process are not ours */
    double cpu_start[2] = { at_start.parent_cpu_s, at_start.worker_cpu_s };
    session_config scfg = runner_session_config(o);
    r.s = session_start(&scfg, &r.info, err);
    int code = 2;
    if (r.s && begin_run(&r, err)) {
        r.start = r.last_commit = clock_seconds();
        r.case_target = o->cases;
        bool ok = store_batch_begin(r.db, err) && (r.rec = recorder_start(r.db, err)) != NULL
            && run_loop(&r, err);
        /* Even after an error, keep what was checked: commit the open batch. */
        dmlc_error commit_err;
        bool committed = r.rec && commit_if_due(&r, true, &commit_err)
            && recorder_drain(r.rec, &commit_err) && store_batch_commit(r.db, &commit_err);
        report->seconds = clock_seconds() - r.start;
        report->store_wait_seconds = recorder_wait_seconds(r.rec);
        recorder_stop(r.rec); /* from here on the store is used on this thread only */
        r.rec = NULL;
        if (ok && !committed) {
            *err = commit_err;
            ok = false;
        }
        /* A --jobs shard leaves this to its parent, which does it once on the merged run. */
        ok = ok && (report->interrupted || o->jobs > 1
                    || (runner_recheck_new_families(&r, err) && runner_shrink_new_signatures(&r, err)
                        && runner_diagnose_new_families(&r, err)));
        report->store_seconds = store_seconds(r.db);
        session_stop(r.s); /* the worker is reaped now, so its CPU time is counted below */
        r.s = NULL;
        runner_report before = *report;
        before.parent_cpu_s = cpu_start[0];
        before.worker_cpu_s = cpu_start[1];
        cpu_times(report);
        report->parent_cpu_s -= before.parent_cpu_s;
        report->worker_cpu_s -= before.worker_cpu_s;
        char finished[32];
        dmlc_error ignored;
        store_run_finish(r.db, report->run_id, !ok ? "error" : report->interrupted ? "interrupted"
                         : "finished", clock_utc_text(finished, sizeof finished), &ignored);
        if (!o->quiet && ok)
            runner_print_summary(&r);
        /* A stop during shrinking keeps a finished run finished, but still ends the run. */
        code = !ok ? 2 : runner_stop_raised(o) ? RUNNER_EXIT_INTERRUPTED
                                        : report->by_verdict[VERDICT_FAIL] ? 1 : 0;
    } else if (runner_stop_raised(o)) { /* stopped while the backend opened: nothing was recorded */
        code = RUNNER_EXIT_INTERRUPTED;
    }
    runner_clear_progress(&r);
    session_stop(r.s);
    store_close(r.db);
    sigaction(SIGPIPE, &old_pipe, NULL);
    runner_free_signatures(&r);
    return code;
}

