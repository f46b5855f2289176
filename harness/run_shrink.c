/*
 * run_shrink.c: after the case loop, the first case of each new signature family is run once
 * more (one that passes now is marked nondeterministic) and then shrunk (shrink.h) through the
 * session, so each family gets a small case file with the verdict and kind of its cases.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "clock.h"
#include "op_module.h"
#include "reference.h"
#include "run_internal.h"
#include "shrink.h"

typedef struct shrink_ctx {
    runner *r;
    verdict verdict;
    mismatch_kind kind;
    double until;      /* the shrinking time limit: later candidates are not run */
    bool broken;       /* the worker could not be restarted */
} shrink_ctx;

/* Checks a candidate through the session: same verdict and kind?  With first_json, also
 * the first difference of the answer (check_first_json) when it is. */
static bool fails_same_way(shrink_ctx *x, const dml_case *candidate, char **first_json)
{
    runner *r = x->r;
    if (x->broken || clock_seconds() > x->until)
        return false;
    session_case sc;
    dmlc_error err;
    session_status got = session_check(r->s, candidate, &sc, &err);
    bool same = got == SESSION_JUDGED && sc.result.j.verdict == x->verdict
        && sc.result.j.kind == x->kind;
    if (same && first_json)
        *first_json = check_first_json(candidate, &sc.result);
    /* A stop, or a backend that cannot be opened again: no more candidates. */
    x->broken = got == SESSION_STOPPED || sc.backend_lost || session_broken(r->s);
    session_case_free(&sc);
    return same;
}

static bool still_fails(const dml_case *candidate, void *opaque)
{
    return fails_same_way(opaque, candidate, NULL);
}

/* True when an earlier new signature is of the same family: one bug usually spans many
 * levels, layouts, types and distributions, and one minimized case per family says what it
 * is. */
static bool family_shrunk(const runner *r, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (r->sigs[k].is_new && runner_same_family(&r->sigs[k], &r->sigs[i]))
            return true;
    return false;
}

/* New signatures whose family has none shrunk before them: the ones shrinking visits. */
static size_t families_to_shrink(const runner *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->sig_count; i++)
        n += r->sigs[i].is_new && !family_shrunk(r, i) && !r->sigs[i].nondeterministic;
    return n;
}

/* Runs the first case of each new family once more: one that passes now is marked
 * nondeterministic (a race, an uninitialised read, state left by an earlier case: news too)
 * and is not shrunk, since no candidate would fail reliably.  Hangs are not re-run (each
 * try costs the whole time limit), nor must-reject cases. */
bool runner_recheck_new_families(runner *r, dmlc_error *err)
{
    for (size_t i = 0; i < r->sig_count && !runner_stop_raised(r->o); i++) {
        seen_signature *s = &r->sigs[i];
        if (!s->is_new || family_shrunk(r, i) || s->kind == KIND_hang)
            continue;
        dml_case c;
        gen_info info;
        if (!session_generate(r->s, s->index, &c, &info, err))
            return false;
        shrink_ctx x = { .r = r, .verdict = s->verdict, .kind = s->kind, .until = 1e300 };
        bool again = c.must_reject || still_fails(&c, &x) || x.broken;
        case_free(&c);
        if (again)
            continue;
        s->nondeterministic = true;
        if (!store_signature_nondeterministic(r->db, s->id, err))
            return false;
        char name[GEN_CASE_ID_SIZE];
        if (!r->o->quiet)
            fprintf(r->o->out, "nondeterministic: case %s (%s %s %s) passed when run again; its "
                    "family is marked so and not shrunk\n", runner_case_name(r->o->seed, s->index, name),
                    verdict_name(s->verdict), mismatch_kind_name(s->kind), op_table[s->op].name);
    }
    return true;
}

/* Minimizes the first case of each new signature family and stores it as a case file,
 * within the run's shrinking time. */
bool runner_shrink_new_signatures(runner *r, dmlc_error *err)
{
    double until = clock_seconds() + r->o->shrink_seconds;
    size_t families = r->o->shrink_budget ? families_to_shrink(r) : 0, done = 0;
    if (families && !r->o->quiet) {
        runner_clear_progress(r);
        fprintf(r->o->out, "shrinking %zu new signature famil%s: at most %u backend runs each, "
                "%.0f s in all (--shrink-budget, --shrink-time)\n", families,
                families == 1 ? "y" : "ies", r->o->shrink_budget, r->o->shrink_seconds);
        fflush(r->o->out);
    }
    for (size_t i = 0; i < r->sig_count && r->o->shrink_budget; i++) {
        seen_signature *s = &r->sigs[i];
        if (!s->is_new || runner_stop_raised(r->o) || family_shrunk(r, i) || s->nondeterministic)
            continue;
        if (clock_seconds() > until) {
            if (!r->o->quiet)
                fprintf(r->o->out, "shrinking stopped at its time limit (%.0f s): %zu of %zu "
                        "families not shrunk; --shrink-time raises it\n", r->o->shrink_seconds,
                        families - done, families);
            break;
        }
        done++;
        dml_case c, small;
        gen_info info;
        if (!session_generate(r->s, s->index, &c, &info, err))
            return false;
        if (c.must_reject) { /* smaller cases are valid ones: nothing smaller to refuse */
            case_free(&c);
            continue;
        }
        shrink_ctx x = { .r = r, .verdict = s->verdict, .kind = s->kind, .until = until };
        /* Hangs cost the whole time limit per try: give them a small budget. */
        unsigned budget = s->kind == KIND_hang ? 6 : r->o->shrink_budget;
        shrink_stats st;
        case_init(&small);
        bool ok = shrink_case(&c, still_fails, &x, budget, &small, &st);
        case_outputs expected = { 0 };
        char *json = NULL, *first = NULL;
        if (ok && case_outputs_alloc(&expected, &small)) {
            ref_run(&small, &session_check_options(r->s)->exec, &expected);
            json = casefile_write(&small, &expected);
            /* Run once more for the record: the drawing marks what the backend answered
             * there, and shrinking keeps no answer.  The shrinking time limit does not
             * apply to this one run; a hang (no answer to draw) is not run again. */
            x.until = 1e300;
            if (s->kind != KIND_hang)
                fails_same_way(&x, &small, &first);
        }
        ok = json && store_signature_shrunk(r->db, s->id, json, first, err);
        if (ok && (s->shrunk = malloc(sizeof *s->shrunk))) { /* diagnosis asks about it */
            *s->shrunk = small;
            case_link(s->shrunk); /* its descriptors point into the struct */
        } else
            case_free(&small);
        char name[GEN_CASE_ID_SIZE];
        if (ok && !r->o->quiet)
            fprintf(r->o->out, "shrunk signature %" PRId64 " (case %s): %" PRIu64
                    " -> %" PRIu64 " input elements in %u tries%s\n", s->id,
                    runner_case_name(r->o->seed, s->index, name),
                    case_tensor_elements(&c.input), case_tensor_elements(&small.input), st.tried,
                    clock_seconds() > until ? " (cut short by the time limit)" : "");
        free(json);
        free(first);
        case_outputs_free(&expected);
        case_free(&c);
        if (!ok)
            return err->msg[0] ? false : err_set(err, "out of memory shrinking a case");
    }
    return true;
}

