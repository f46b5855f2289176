/*
 * run_summary.c: what a run prints about itself: the progress line on a terminal and, at the
 * end, the summary (cases, CPU, per feature level, signatures, families with the command
 * that replays or exports each).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cause.h"
#include "clock.h"
#include "error.h"
#include "families.h"
#include "op_module.h"
#include "replay.h"
#include "run_internal.h"

void runner_clear_progress(runner *r)
{
    if (r->progress_shown) {
        fputs("\r\033[K", r->o->out);
        r->progress_shown = false;
    }
}

void runner_show_progress(runner *r, bool force)
{
    if (!r->o->progress)
        return;
    double now = clock_seconds();
    if (!force && now - r->last_progress < RUNNER_PROGRESS_INTERVAL_S)
        return;
    r->last_progress = now;
    if (r->o->on_progress) { /* a --jobs shard: its parent draws the line */
        r->o->on_progress(r->o->on_progress_ctx, r->rep, r->sig_count);
        return;
    }
    double elapsed = now - r->start;
    double rate = elapsed > 0 ? (double)r->rep->cases / elapsed : 0;
    char eta[32] = "-";
    if (r->case_target && rate > 0)
        snprintf(eta, sizeof eta, "%.0fs", (double)(runner_shard_cases(r->o, r->case_target) - r->rep->cases) / rate);
    else if (r->o->time_s > 0)
        snprintf(eta, sizeof eta, "%.0fs", r->o->time_s > elapsed ? r->o->time_s - elapsed : 0);
    fprintf(r->o->out, "\r\033[K%" PRIu64 " cases  %.0f/s  %" PRIu64 " failed  %" PRIu64
            " unspecified  %zu signatures  ETA %s", r->rep->cases, rate,
            r->rep->by_verdict[VERDICT_FAIL], r->rep->by_verdict[VERDICT_UNSPECIFIED], r->sig_count, eta);
    fflush(r->o->out);
    r->progress_shown = true;
}

/* The family's root cause: confirmed by probing, or undiagnosed (probed, and no cause of the
 * catalogue explained the answers); nothing when it was not probed. */
static void print_root_cause(FILE *f, const family *fam)
{
    const cause *c = fam->cause[0] ? cause_find(fam->cause) : NULL;
    const cause *either = strchr(fam->cause, '|') ? cause_key_first(fam->cause) : NULL;
    if (c)
        fprintf(f, "    root cause: %s, confirmed by probing: %s\n", c->id, c->sentence);
    else if (either) /* two causes whose predictions are the same on every case of the row */
        fprintf(f, "    root cause: %s, confirmed by probing as either (they answer alike on these "
                "cases): %s\n", fam->cause, either->sentence);
    else if (fam->cause[0]) /* a cause of a newer catalogue */
        fprintf(f, "    root cause: %s, confirmed by probing\n", fam->cause);
    else if (fam->diagnosed)
        fprintf(f, "    root cause: undiagnosed (no cause of the catalogue explains its probes; "
                "the kind above is a guess from its first difference)\n");
}

/* How to get the probes that named (or failed to name) the family's cause, as case files. */
static void print_probe_command(runner *r, const family *fam, size_t number)
{
    json_t *d = fam->diagnosis ? json_loads(fam->diagnosis, 0, NULL) : NULL;
    size_t probes = json_array_size(json_object_get(d, "evidence"));
    json_decref(d);
    if (!probes)
        return;
    char line[RUNNER_REPLAY_LINE_MAX];
    snprintf(line, sizeof line, "dmlcheck export --family %zu --probe K --run %" PRId64 " --db",
             number, r->rep->run_id);
    replay_append_arg(line, sizeof line, r->o->db_path);
    fprintf(r->o->out, "    its %zu probe%s (case files for `dmlcheck exec`, K = 1..%zu): %s > "
            "probe-K.json\n", probes, probes == 1 ? "" : "s", probes, line);
}

/* One line per family of this run (families.h), with what its failures need and the
 * command that replays its smallest case. */
static void print_families(runner *r)
{
    family_list fams;
    dmlc_error err;
    FILE *f = r->o->out;
    if (!families_find(store_connection(r->db), r->rep->run_id, r->rep->run_id, &fams, &err)) {
        fprintf(f, "families: not read (%s)\n", err.msg);
        return;
    }
    if (fams.count)
        fprintf(f, "families: %zu (one bug each, as far as the cases tell)\n", fams.count);
    for (size_t i = 0; i < fams.count; i++) {
        const family *fam = &fams.items[i];
        char name[GEN_CASE_ID_SIZE];
        char replay[RUNNER_REPLAY_LINE_MAX];
        fprintf(f, "  family %zu: %s%s %s %s, %" PRIu64 " case%s in %" PRIu64 " signature%s%s%s\n"
                "    smallest (%" PRIu64 " input elements): %s\n", i + 1,
                fam->verdict, fam->nondeterministic ? " (nondeterministic)" : "", fam->kind, fam->op, fam->cases, fam->cases == 1 ? "" : "s",
                fam->signatures, fam->signatures == 1 ? "" : "s", fam->needs[0] ? "; needs: " : "",
                fam->needs, fam->elements, replay_case_line(replay, sizeof replay,
                runner_case_name(r->o->seed, fam->case_index, name), r->replay_args));
        print_root_cause(f, fam);
        print_probe_command(r, fam, i + 1);
        if (fam->shrunk_case) {
            char line[RUNNER_REPLAY_LINE_MAX], number[24];
            snprintf(number, sizeof number, "%zu", i + 1);
            snprintf(line, sizeof line, "dmlcheck export --family %zu --run %" PRId64 " --db", i + 1,
                     r->rep->run_id);
            replay_append_arg(line, sizeof line, r->o->db_path);
            fprintf(f, "    shrunk case (a case file for `dmlcheck exec`): %s > family-%s.json\n",
                    line, number);
        }
    }
    families_free(&fams);
}

void runner_print_summary(runner *r)
{
    FILE *f = r->o->out;
    runner_report *rep = r->rep;
    runner_clear_progress(r);
    double wall = rep->seconds > 0 ? rep->seconds : 1;
    fprintf(f, "summary: %" PRIu64 " cases in %.2f s (%.0f cases/s; SQLite busy %.1f%% of wall time on "
            "its writer thread, the run waited for it %.1f%%)%s\n", rep->cases, rep->seconds,
            (double)rep->cases / wall, 100 * rep->store_seconds / wall,
            100 * rep->store_wait_seconds / wall, rep->interrupted ? ", interrupted" : "");
    if (rep->probes)
        fprintf(f, "diagnosis: %" PRIu64 " probes asked of the backend in %.2f s after the case loop "
                "(%.1f%% of its wall time)\n", rep->probes, rep->diagnosis_seconds,
                100 * rep->diagnosis_seconds / wall);
    if (rep->cases)
        fprintf(f, "cpu: dmlcheck %.1f us/case, worker %.1f us/case (backend included)\n",
                1e6 * rep->parent_cpu_s / (double)rep->cases, 1e6 * rep->worker_cpu_s / (double)rep->cases);
    for (size_t i = 0; i < FL_TESTED_COUNT; i++) {
        const uint64_t *n = rep->by_level[i];
        uint64_t total = 0;
        for (int v = 0; v < VERDICT_COUNT; v++)
            total += n[v];
        if (total)
            fprintf(f, "feature-level %s: cases=%" PRIu64 " pass=%" PRIu64 " fail=%" PRIu64
                    " unspecified=%" PRIu64 " skip=%" PRIu64 " error=%" PRIu64 "\n",
                    fl_name(fl_tested[i]), total, n[VERDICT_PASS], n[VERDICT_FAIL],
                    n[VERDICT_UNSPECIFIED], n[VERDICT_SKIP], n[VERDICT_ERROR]);
    }
    fprintf(f, "signatures: %zu in this run, %u new (each in the signatures table; `dmlcheck "
               "report` lists them)\n", r->sig_count, rep->new_signatures);
    print_families(r);
    char db[4 * 4096 + 1]; /* a PATH_MAX path, each byte possibly \xHH */
    fprintf(f, "database: %s (run %" PRId64 ")\n", err_printable(r->o->db_path, false, db, sizeof db),
            rep->run_id);
}

