/*
 * run_jobs_after.c: what a `run --jobs` run does once its shards are merged into --db:
 * what runner_run does after its case loop, on the merged run.  The shards leave it
 * undone (runner_options.jobs), so each new family is re-checked, shrunk and diagnosed
 * once, from the whole run's first case of it, exactly as one process would: the same
 * shrunk cases, causes and families, the lines printed once; then the summary.
 *
 * The run's signatures are read back from --db in the order the run met them
 * (run_signatures.h), new when --db had not seen them before this run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "dtype.h"
#include "run_internal.h"
#include "run_signatures.h"

static bool verdict_from_name(const char *name, verdict *v)
{
    for (int i = 0; i < VERDICT_COUNT; i++)
        if (!strcmp(verdict_name((verdict)i), name)) {
            *v = (verdict)i;
            return true;
        }
    return false;
}

/* One row as the run would have remembered it (run_record.c: remember_signature). */
static bool add_signature(void *ctx, const run_signature_row *row, dmlc_error *err)
{
    runner *r = ctx;
    seen_signature s = { .id = row->id, .is_new = row->is_new, .index = row->first_index,
                         .kind = mismatch_kind_from_name(row->kind), .op = op_from_name(row->op),
                         .count = row->count, .input_type = dtype_from_name(row->input_type) };
    if (!verdict_from_name(row->verdict, &s.verdict) || s.op == OP_COUNT
        || !fl_from_name(row->feature_level, &s.feature_level))
        return err_set(err, "signature %" PRId64 ": unknown names %s %s %s", row->id, row->op,
                       row->feature_level, row->verdict);
    if (r->sig_count == r->sig_cap) {
        size_t cap = r->sig_cap ? 2 * r->sig_cap : 16;
        seen_signature *more = realloc(r->sigs, cap * sizeof *more);
        if (!more)
            return err_set(err, "out of memory for the run's signatures");
        r->sigs = more;
        r->sig_cap = cap;
    }
    r->sigs[r->sig_count++] = s;
    r->rep->new_signatures += s.is_new;
    return true;
}

static double children_cpu(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec
           + u.ru_stime.tv_usec * 1e-6;
}

/* Re-checks, shrinks and diagnoses the new families through a session of this process. */
static bool after_loop(runner *r, dmlc_error *err)
{
    bool any_new = false;
    for (size_t i = 0; i < r->sig_count; i++)
        any_new = any_new || r->sigs[i].is_new;
    if (!any_new || r->rep->interrupted || runner_stop_raised(r->o))
        return true;
    double cpu = children_cpu();
    session_config scfg = runner_session_config(r->o);
    r->s = session_start(&scfg, &r->info, err);
    bool ok = r->s && runner_recheck_new_families(r, err) && runner_shrink_new_signatures(r, err)
              && runner_diagnose_new_families(r, err);
    session_stop(r->s); /* reaped: its CPU time is counted below */
    r->s = NULL;
    r->rep->worker_cpu_s += children_cpu() - cpu;
    return ok;
}

bool runner_jobs_after(const runner_options *o, unsigned jobs, double merge_s,
                       runner_report *rep, dmlc_error *err)
{
    runner r = { .o = o, .rep = rep };
    runner_replay_args(o, r.replay_args, sizeof r.replay_args);
    runner_backend_text(o, r.backend_text, sizeof r.backend_text);
    rep->new_signatures = 0;
    r.db = store_open(o->db_path, err);
    bool ok = r.db && run_signatures_each(r.db, rep->run_id, add_signature, &r, err);
    rep->signatures = (unsigned)r.sig_count;
    if (ok && !o->quiet)
        fprintf(o->out, "jobs: %u shard processes (--shard K/%u each), merged into one run in "
                "%.2f s\n", jobs, jobs, merge_s);
    ok = ok && after_loop(&r, err);
    if (ok && !o->quiet)
        runner_print_summary(&r);
    runner_free_signatures(&r);
    store_close(r.db);
    return ok;
}
