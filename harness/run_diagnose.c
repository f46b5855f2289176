/*
 * run_diagnose.c: after shrinking, the first signature of each new family is diagnosed
 * (diagnose.h): the backend is asked the probes of every root cause that could explain the
 * family's case (its shrunk case when there is one), through the run's session, and a cause
 * is named only when its predictions came back exactly and no other cause's did.  The cause
 * (or none: undiagnosed) and the evidence are stored with the signature; results/families.c
 * keys families by confirmed cause, so one bug is one row whatever the seed split it into.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "op_module.h"
#include "run_internal.h"

/* True when an earlier new signature of the same family was diagnosed in this run. */
static bool family_diagnosed(const runner *r, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (r->sigs[k].diagnosed && runner_same_family(&r->sigs[k], &r->sigs[i]))
            return true;
    return false;
}

/* The probes' values follow from the case's id: the same case, the same probes. */
static uint64_t probe_seed(uint64_t seed, uint64_t index)
{
    uint64_t z = seed ^ (index * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 31);
}

static void print_diagnosis(runner *r, const seen_signature *s, const diagnosis *d)
{
    if (r->o->quiet)
        return;
    char name[GEN_CASE_ID_SIZE];
    runner_case_name(r->o->seed, s->index, name);
    const cause *c = diagnosis_cause(d);
    if (d->interacting)
        fprintf(r->o->out, "diagnosed: %s %s %s (case %s) is two bugs together: %s (%s) and %s "
                "(%s); neither explains its probes alone (confirmed by %u probes)\n",
                verdict_name(s->verdict), mismatch_kind_name(s->kind), op_table[s->op].name, name,
                d->confirmed[0]->id, d->confirmed[0]->sentence, d->confirmed[1]->id,
                d->confirmed[1]->sentence, d->probe_count);
    else if (c)
        fprintf(r->o->out, "diagnosed: %s %s %s (case %s) is %s: %s (confirmed by %u probes)\n",
                verdict_name(s->verdict), mismatch_kind_name(s->kind), op_table[s->op].name, name,
                c->id, c->sentence, d->probe_count);
    else
        fprintf(r->o->out, "undiagnosed: %s %s %s (case %s): no root cause of the catalogue "
                "explains its %u probes; it keeps its kind\n", verdict_name(s->verdict),
                mismatch_kind_name(s->kind), op_table[s->op].name, name, d->probe_count);
}

/* Whether probing named the failure: one cause, or two that act together. */
static bool confirmed(const diagnosis *d)
{
    return d->confirmed_count == 1 || d->interacting;
}

/* Asks the probes of one case; false with err when asking failed. */
static bool diagnose_one(runner *r, const seen_signature *s, const dml_case *c, diagnosis *d,
                         dmlc_error *err)
{
    diagnosis_free(d);
    return c->must_reject || session_diagnose(r->s, c, probe_seed(r->o->seed, s->index), d, err);
}

/* Stores the outcome with the signature and says it. */
static bool record_diagnosis(runner *r, const seen_signature *s, const diagnosis *d,
                             dmlc_error *err)
{
    char key[2 * 64 + 2];
    const char *found = diagnosis_key(d, key, sizeof key);
    json_t *evidence = diagnosis_json(d);
    char *text = evidence ? json_dumps(evidence, JSON_COMPACT) : NULL;
    json_decref(evidence);
    bool ok = text ? store_signature_diagnosis(r->db, s->id, found, text, err)
                   : err_set(err, "out of memory writing a diagnosis");
    free(text);
    if (ok)
        print_diagnosis(r, s, d);
    return ok;
}

/* Diagnoses signature s on its shrunk case and, when that leaves it undiagnosed, on the case
 * itself (a case shrunk to two elements leaves probes little room to tell causes apart). */
static bool diagnose_signature(runner *r, seen_signature *s, dmlc_error *err)
{
    dml_case generated;
    gen_info info;
    case_init(&generated);
    diagnosis *d = calloc(1, sizeof *d); /* tens of kilobytes: not on the stack */
    bool ok = d || err_set(err, "out of memory for a diagnosis");
    if (ok && s->shrunk)
        ok = diagnose_one(r, s, s->shrunk, d, err);
    if (ok && !confirmed(d))
        ok = session_generate(r->s, s->index, &generated, &info, err)
             && diagnose_one(r, s, &generated, d, err);
    s->diagnosed = true;
    ok = ok && record_diagnosis(r, s, d, err);
    if (d)
        diagnosis_free(d);
    free(d);
    case_free(&generated);
    if (ok || runner_stop_raised(r->o) || session_broken(r->s)) {
        err->msg[0] = 0; /* a backend that stops answering leaves the family undiagnosed */
        return true;
    }
    return false;
}

bool runner_diagnose_new_families(runner *r, dmlc_error *err)
{
    if (!r->o->diagnose)
        return true;
    double start = clock_seconds();
    for (size_t i = 0; i < r->sig_count && !runner_stop_raised(r->o) && !session_broken(r->s); i++) {
        seen_signature *s = &r->sigs[i];
        if (!s->is_new || !mismatch_kind_from_outputs(s->kind) || family_diagnosed(r, i))
            continue;
        if (!diagnose_signature(r, s, err))
            return false;
    }
    r->rep->probes = session_probes_asked(r->s); /* the summary says them (run_summary.c) */
    r->rep->diagnosis_seconds += clock_seconds() - start;
    return true;
}

void runner_free_signatures(runner *r)
{
    for (size_t i = 0; i < r->sig_count; i++)
        if (r->sigs[i].shrunk) {
            case_free(r->sigs[i].shrunk);
            free(r->sigs[i].shrunk);
        }
    free(r->sigs);
    r->sigs = NULL;
    r->sig_count = 0;
}
