/*
 * run_internal.h: what the files of one run share (harness/runner.c and its rooms): the run's
 * state and the helpers its rooms call.  Not an interface: only runner.c, run_options.c,
 * run_record.c, run_shrink.c, run_diagnose.c, run_summary.c, run_coverage.c and run_jobs*.c
 * include it.
 *
 *   runner.c       the case loop: batches asked of the session, oracles, answers recorded
 *   run_options.c  runner_options: defaults, the replay arguments, the options JSON
 *   run_record.c   a judged case as a row, a new signature as a row and its live line
 *   run_shrink.c   after the loop: re-checking new families, shrinking their first cases
 *   run_diagnose.c after shrinking: each new family's root cause, confirmed by probing
 *   run_summary.c  the progress line and the summary
 *   run_coverage.c --dry-run: the generator's coverage, no backend
 *   run_jobs.c     --jobs N: N shard processes, one merged run, one progress line
 *   run_jobs_after.c  --jobs N, merged: shrinking and diagnosis once, the summary
 */
#ifndef DMLCHECK_RUN_INTERNAL_H
#define DMLCHECK_RUN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "check.h"
#include "recorder.h"
#include "runner.h"
#include "session.h"
#include "store.h"

#define RUNNER_PROGRESS_INTERVAL_S 0.1

typedef struct slot_case {
    dml_case c;
    gen_info info;
    bool valid;
    char error[ERR_MSG_MAX];
    check_oracle oracle;     /* the reference side of the check */
} slot_case;

typedef struct slot {
    uint64_t first;
    uint32_t count;
    slot_case *cases;
} slot;


typedef struct seen_signature {
    int64_t id;
    bool is_new;
    uint64_t index;         /* first case of this run with it */
    verdict verdict;
    mismatch_kind kind;
    op_id op;
    DML_FEATURE_LEVEL feature_level;
    DML_TENSOR_DATA_TYPE input_type;
    uint64_t input_elements; /* of its first case of this run (0: not known, a --jobs merge) */
    uint64_t count;         /* in this run */
    bool nondeterministic;  /* its first case passed when run again */
    dml_case *shrunk;       /* its family's shrunk case (run_shrink.c), or NULL */
    bool diagnosed;         /* run_diagnose.c asked the backend about it */
    bool probed;            /* ... by probing its case (not as another signature's bug) */
    char cause[2 * 64 + 2]; /* the root-cause key diagnosed ("": none) */
    json_t *confirmed;      /* when probing confirmed cause: its diagnosis without the
                             * probes (status, causes), kept parsed for the signatures its
                             * bug explains; else NULL */
} seen_signature;

typedef struct runner {
    const runner_options *o;
    runner_report *rep;
    store *db;
    recorder *rec;          /* case rows and commits go through its writer thread */
    session *s;             /* the backend in its worker, the oracle, the judgement */
    backend_info info;
    int64_t device_id;
    char replay_args[RUNNER_REPLAY_ARGS_MAX];
    char backend_text[RUNNER_BACKEND_TEXT]; /* --backend as given: stored with the run */
    seen_signature *sigs;
    size_t sig_count, sig_cap;
    uint64_t uncommitted;
    uint64_t case_target;   /* o->cases, then what o->more_cases asked for; 0: no count */
    double start, last_commit, last_progress;
    bool progress_shown;
    bool stopped;           /* the stop flag ended a wait for the worker: record no more */
} runner;

/* The distance between a shard's consecutive indices (1: the whole run). */
uint64_t runner_index_step(const runner_options *o);
/* How many of the first `cases` indices are this run's (all of them without a shard). */
uint64_t runner_shard_cases(const runner_options *o, uint64_t cases);
/* The id of case `index` of this run: gN:SEED:INDEX with this generator's version. */
const char *runner_case_name(uint64_t seed, uint64_t index, char buf[GEN_CASE_ID_SIZE]);
static inline bool runner_stop_raised(const runner_options *o)
{
    return o->stop && *o->stop;
}

/* The slot of fl's effective level in fl_tested (counts per level). */
size_t runner_fl_slot(DML_FEATURE_LEVEL fl);

/* run_record.c: records a judged case (and, for a failure, its signature, printing the live
 * line of a new family). */
bool runner_record_case(runner *r, const slot_case *sc, uint64_t index, const check_result *res,
                        double time_us, const char *detail, dmlc_error *err);
/* Same family (families.h: one bug, one row): operator family, kind and verdict. */
bool runner_same_family(const seen_signature *a, const seen_signature *b);

/* run_shrink.c: after the loop. */
bool runner_recheck_new_families(runner *r, dmlc_error *err);
bool runner_shrink_new_signatures(runner *r, dmlc_error *err);

/* run_diagnose.c: after shrinking. */
bool runner_diagnose_new_families(runner *r, dmlc_error *err);
/* Frees what the run kept of its signatures. */
void runner_free_signatures(runner *r);

/* run_summary.c */
void runner_clear_progress(runner *r);
void runner_show_progress(runner *r, bool force);
void runner_print_summary(runner *r);

/* run_jobs_after.c: --jobs, once the shards are merged into o->db_path as run rep->run_id:
 * the new families re-checked, shrunk and diagnosed as runner_run does after its loop,
 * then the summary (unless quiet). */
bool runner_jobs_after(const runner_options *o, unsigned jobs, double merge_s,
                       runner_report *rep, dmlc_error *err);

/* run_coverage.c: --dry-run. */
int runner_dry_run(const runner_options *o, dmlc_error *err);

#endif
