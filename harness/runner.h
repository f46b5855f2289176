/*
 * runner.h: the differential runner behind `dmlcheck run`.  For each case SEED:INDEX it
 * generates and validates the case, computes the reference answer (and its classes) in this
 * process while a worker process runs the backend on the same case, judges the pair
 * (classify.h), and records case, result and signature in the results database (store.h)
 * in batched transactions.  New signatures are shrunk at the end of the run.
 *
 * No global state: everything lives in runner_options (inputs) and runner_report (outputs);
 * the only shared thing is the caller's stop flag, set from a signal handler.
 */
#ifndef DMLCHECK_RUNNER_H
#define DMLCHECK_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "case.h"
#include "gen.h"
#include "session.h"

/* `git describe --always --dirty` at build time ("" when unknown); generated file. */
extern const char dmlcheck_git_revision[];

struct runner_report; /* below */

typedef struct runner_options {
    /* The implementation under test: a registry entry, or a test's own vtable (fault
     * injection) which the worker uses exactly like a registered one. */
    const backend_vtable *backend;
    const char *backend_args;    /* what followed "NAME:" in --backend (a plug-in's path), or NULL */
    const char *device;          /* --device, or NULL */
    uint64_t seed;
    gen_options gen;
    nan_policy nan;
    bool strict;
    uint64_t cases;              /* stop after this many (0: no count limit); with a shard,
                                  * the whole run's count: the shard runs its share of
                                  * indices 0..cases-1 */
    /* --shard K/N: this run takes the indices i with i mod N == K (shard_count 0: every
     * index).  Case ids stay gN:SEED:INDEX of the whole run; `dmlcheck merge` combines the
     * shards' databases into one run. */
    uint64_t shard_index, shard_count;
    double time_s;               /* stop after this long (0: no time limit) */
    const char *db_path;
    bool dry_run;                /* generate only: print the coverage table, no backend, no db */
    unsigned batch;              /* cases per worker request */
    unsigned commit_cases;       /* cases per transaction (at most; also every second) */
    unsigned case_timeout_ms;    /* one case on the backend; longer is a hang */
    unsigned reference_timeout_ms; /* one case's reference in this process (oracle_guard.h) */
    unsigned open_timeout_ms;    /* opening the backend */
    unsigned shrink_budget;      /* candidate runs per new signature; 0: no shrinking */
    double shrink_seconds;       /* shrinking stops starting new signatures after this long */
    bool diagnose;               /* after shrinking, each new family's root cause is probed
                                  * (diagnose.h); default on, --no-diagnose turns it off */
    bool progress;               /* a \r progress line (on a terminal) */
    bool quiet;                  /* no per-signature lines and no summary (tests) */
    FILE *out;                   /* where lines go (stdout) */
    const volatile sig_atomic_t *stop; /* set asynchronously: stop within ~100 ms, keep what was recorded */
    const char *command_line;    /* recorded with the run */
    /* Asked each time `cases` cases are done (committed, so a reader of db_path sees them
     * all): the case count to go on to, or 0 to end.  The run keeps its seed and options, so
     * the further cases are the same run, named and replayed alike.  NULL: end at `cases`.
     * `dmlcheck run` goes on until every required cell has its judged cases. */
    uint64_t (*more_cases)(void *ctx, const char *db, int64_t run_id, uint64_t cases_done);
    void *more_cases_ctx;
    const char *more_cases_rule; /* what more_cases asks, for the run's options JSON ("go_on") */
    /* With progress set: called where the progress line would be drawn, instead of drawing
     * it (a --jobs shard tells its parent, which draws one line for the whole run). */
    void (*on_progress)(void *ctx, const struct runner_report *rep, uint64_t signatures);
    void *on_progress_ctx;
    /* Recorded in the run's options as "jobs" (run_jobs.c: the merged run of N shards). */
    unsigned jobs;
} runner_options;

/* Defaults for everything but backend, seed and db_path. */
void runner_options_default(runner_options *o);

typedef struct runner_report {
    int64_t run_id;
    uint64_t cases;                         /* cases recorded */
    uint64_t by_verdict[5];                 /* classify.h verdict order */
    uint64_t by_level[8][5];                /* per tested level (runner_fl_slot), by verdict */
    unsigned signatures, new_signatures;    /* distinct signatures seen in this run */
    double seconds;                         /* wall time of the case loop */
    double store_seconds;                   /* inside SQLite, on the writer thread (overlaps) */
    double store_wait_seconds;              /* of the wall time, waiting for the writer */
    double parent_cpu_s, worker_cpu_s;      /* CPU time of this process and of the workers */
    uint64_t probes;                        /* asked of the backend to diagnose new families */
    double diagnosis_seconds;               /* wall time of that, after the case loop */
    bool interrupted;
} runner_report;

/* The exit code of a run that the stop flag ended (128 + SIGINT, as shells report Ctrl-C). */
#define RUNNER_EXIT_INTERRUPTED 130

/* Runs the whole thing.  Returns the exit code: 0 no judged mismatch, 1 some, 2 usage or
 * setup error (message in err, already printed nowhere), RUNNER_EXIT_INTERRUPTED when the
 * stop flag ended the run (what was recorded is committed, the run marked interrupted). */
int runner_run(const runner_options *o, runner_report *report, dmlc_error *err);

/* `run --jobs N` (run_jobs.c): the run as N shard processes (--shard K/N each, as
 * runner_run), writing databases in a private folder beside o->db_path, merged into
 * o->db_path as one run (options say "jobs": N, no shard) when they end.  One progress line
 * and one summary; a stop (o->stop) reaches every shard; a shard's error ends the others
 * and is returned in err.  Exit codes as runner_run's.  jobs >= 2; o has no shard. */
int runner_run_jobs(const runner_options *o, unsigned jobs, runner_report *report,
                    dmlc_error *err);

/* The options that make `dmlcheck replay/export SEED:INDEX` regenerate and judge a case
 * exactly as the run did ("--backend opencl --max-elements 4096 ..."), into buf; NULL when
 * they do not fit in size bytes (a cut replay line would replay something else). */
const char *runner_replay_args(const runner_options *o, char *buf, size_t size);
/* Room for runner_replay_args, and for a whole replay line. */
#define RUNNER_REPLAY_ARGS_MAX 8192
#define RUNNER_REPLAY_LINE_MAX (RUNNER_REPLAY_ARGS_MAX + 128)
/* The whole replay line of case id under o's options: "dmlcheck replay gN:SEED:INDEX ...",
 * into buf (replay_case_line).  Returns buf. */
const char *runner_replay_line(const runner_options *o, const gen_case_id *id, char *buf,
                               size_t size);
/* How a run with o checks its cases: the session's worker, judgement and time limits, so
 * that replay checks a case as the run did. */
session_config runner_session_config(const runner_options *o);
/* The run's options as compact JSON (malloc'd; NULL on allocation failure). */
char *runner_options_json(const runner_options *o);

#define RUNNER_BACKEND_TEXT 1024
/* The backend as --backend names it ("opencl", "plugin:/x/libimpl.so,k=v") into buf: stored
 * with the run, shown in reports, replayed. */
const char *runner_backend_text(const runner_options *o, char *buf, size_t size);

#endif
