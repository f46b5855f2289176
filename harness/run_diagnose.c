/*
 * run_diagnose.c: after shrinking, new signatures are diagnosed (diagnose.h).  Each is first
 * checked against the bugs diagnosed earlier in the run, nearest first: when one of them, or
 * two together, predict the signature's own case (of at most SAME_BUG_MAX_ELEMENTS), asked
 * again, it is that bug (one question).  Otherwise it is probed when it is its family's first
 * to be, or when no bug diagnosed in its family can show in its case (a second bug of the same
 * operator family, kind and verdict: OpenVINO's UINT64 read as int32 in its NaN row), up to
 * PROBED_PER_FAMILY a family: the backend is asked the probes of every root cause that could
 * explain the case (the family's shrunk case when there is one), and a cause is named only
 * when its predictions came back exactly and no other cause's did.  The cause (or none:
 * undiagnosed) and the evidence are stored with the signature; results/families.c keys
 * families by it, so one bug is one row whatever the seed split it into, and two bugs are two
 * rows.  A signature neither explained nor probed, or whose probes name no cause in a family
 * whose cause is known, stays without a diagnosis and goes to the row of its family's
 * commonest cause: a cause's prediction is exact only where its model reaches
 * (float_compared_as_int_bits says nothing of the NaNs it also misorders), and probing every
 * such signature cost minutes a run through a slow library (onnx.reference).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "op_module.h"
#include "run_internal.h"

/* Signatures of one family probed in a run at most: the first, and later ones no bug
 * confirmed before explains (a second bug of the same kind, or a failure outside the
 * catalogue probed again in vain).  A backend with many bugs outside the catalogue pays
 * for this many diagnoses a family, not one a signature. */
#define PROBED_PER_FAMILY 4

/* Earlier new signatures of i's family that were probed in this run. */
static unsigned family_probed(const runner *r, size_t i)
{
    unsigned n = 0;
    for (size_t k = 0; k < i; k++)
        n += r->sigs[k].probed && runner_same_family(&r->sigs[k], &r->sigs[i]);
    return n;
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

/* Stores the outcome with the signature and says it; a confirmed cause's evidence stays
 * with s, for later signatures its bug explains. */
static bool record_diagnosis(runner *r, seen_signature *s, const diagnosis *d, dmlc_error *err)
{
    const char *found = diagnosis_key(d, s->cause, sizeof s->cause);
    json_t *evidence = diagnosis_json(d);
    char *text = evidence ? json_dumps(evidence, JSON_COMPACT) : NULL;
    bool ok = text ? store_signature_diagnosis(r->db, s->id, found, text, err)
                   : err_set(err, "out of memory writing a diagnosis");
    free(text);
    /* What later signatures its bug explains store: the verdict without the probes (their case
     * files run to megabytes; the family's row shows this signature's). */
    if (ok && found) {
        json_object_del(evidence, "evidence");
        s->confirmed = evidence;
    } else
        json_decref(evidence);
    if (!found)
        s->cause[0] = 0;
    if (ok)
        print_diagnosis(r, s, d);
    return ok;
}

/* Stores s as the bug confirmed on `by` (check.key), or on `by` and `also` together: by's
 * verdict (its probes stay with by), with the cases they were confirmed on and s's own case,
 * whose answer is the prediction. */
static bool record_same_bug(runner *r, seen_signature *s, const seen_signature *by,
                            const seen_signature *also, const same_bug_check *check,
                            dmlc_error *err)
{
    char name[GEN_CASE_ID_SIZE];
    json_t *d = json_copy(by->confirmed), *as = json_array(); /* shallow: new keys alone */
    bool ok = d && as && !json_array_append_new(as, json_string(runner_case_name(r->o->seed, by->index, name)))
              && (!also || !json_array_append_new(as, json_string(runner_case_name(r->o->seed, also->index, name))))
              && !json_object_set(d, "same_bug_as", as)
              && !json_object_set_new(d, "own_case_answer_predicted", json_string(runner_case_name(r->o->seed, s->index, name)));
    json_decref(as);
    char *text = ok ? json_dumps(d, JSON_COMPACT) : NULL;
    json_decref(d);
    ok = text ? store_signature_diagnosis(r->db, s->id, check->key, text, err)
              : err_set(err, "out of memory writing a diagnosis");
    free(text);
    snprintf(s->cause, sizeof s->cause, "%s", ok ? check->key : "");
    return ok;
}

/* Ends a step of diagnosis: a stop, or a backend that stops answering, leaves the signature
 * undiagnosed and is no error of the run. */
static bool asking_ended(runner *r, bool ok, dmlc_error *err)
{
    if (ok || runner_stop_raised(r->o) || session_broken(r->s)) {
        err->msg[0] = 0;
        return true;
    }
    return false;
}

/* The key diagnosed for an earlier signature of i's family, or NULL. */
static const char *family_cause(const runner *r, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (r->sigs[k].cause[0] && runner_same_family(&r->sigs[k], &r->sigs[i]))
            return r->sigs[k].cause;
    return NULL;
}

/* Says that probing named no cause for s, whose family's cause stays its row's. */
static void print_unconfirmed(runner *r, const seen_signature *s, const diagnosis *d, const char *key)
{
    if (r->o->quiet)
        return;
    char name[GEN_CASE_ID_SIZE];
    runner_case_name(r->o->seed, s->index, name);
    fprintf(r->o->out, "unconfirmed: %s %s %s (case %s): its %u probes name no cause; it stays in "
            "the row of its family's cause, %s\n", verdict_name(s->verdict), mismatch_kind_name(s->kind),
            op_table[s->op].name, name, d->probe_count, key);
}

/* Diagnoses signature s (the i-th) on its shrunk case and, when that leaves it undiagnosed,
 * on the case itself (a case shrunk to two elements leaves probes little room to tell causes
 * apart).  A later signature of a family whose cause is `known` (family_cause), which its
 * probes name no cause for, is left undiagnosed in the file, in that cause's row: its own case
 * is one the cause's model does not reach (the NaNs float_compared_as_int_bits also
 * misorders), and no probe of it says otherwise. */
static bool diagnose_signature(runner *r, size_t i, const char *known, dmlc_error *err)
{
    seen_signature *s = &r->sigs[i];
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
    s->diagnosed = s->probed = true;
    if (ok && known && !confirmed(d))
        print_unconfirmed(r, s, d, known);
    else
        ok = ok && record_diagnosis(r, s, d, err);
    if (d)
        diagnosis_free(d);
    free(d);
    case_free(&generated);
    return asking_ended(r, ok, err);
}

/* Whether key is among the n keys. */
static bool listed(const char *const *keys, size_t n, const char *key)
{
    for (size_t m = 0; m < n; m++)
        if (!strcmp(keys[m], key))
            return true;
    return false;
}

/* How near signature k is to i, 5 to 0: of its family, then of its operator family, then
 * another; within each, of its input type first (OpenVINO's UINT32 read as signed predicts
 * some UINT64 cases' answers too, which its UINT64 read as int32 gives). */
static int nearness(const runner *r, size_t k, size_t i)
{
    const seen_signature *a = &r->sigs[k], *b = &r->sigs[i];
    int code = runner_same_family(a, b) ? 2 : op_table[a->op].module == op_table[b->op].module;
    return 2 * code + (a->input_type == b->input_type);
}

/* The keys confirmed by probing signatures before i, each once, the nearest first (of two
 * bugs that both predict the answer, the one seen in the same code and type is the
 * likelier); from[n] the signature that confirmed keys[n].
 * Returns how many (at most max). */
static size_t confirmed_keys(const runner *r, size_t i, const char **keys, size_t *from, size_t max)
{
    size_t n = 0;
    for (int near = 5; near >= 0; near--)
        for (size_t k = 0; k < i && n < max; k++)
            if (r->sigs[k].confirmed && nearness(r, k, i) == near && !listed(keys, n, r->sigs[k].cause)) {
                keys[n] = r->sigs[k].cause;
                from[n++] = k;
            }
    return n;
}

/* Keys tried on one signature at most (a run's confirmed causes rarely number more). */
#define SAME_BUG_KEYS 16

/* Whether a bug confirmed by probing an earlier signature of the run is i's too, alone or
 * with another (session_same_bug on i's own case); then i is stored as that bug. */
static bool explained_by_known_bug(runner *r, size_t i, same_bug_check *check, dmlc_error *err)
{
    seen_signature *s = &r->sigs[i];
    const char *keys[SAME_BUG_KEYS];
    size_t from[SAME_BUG_KEYS];
    size_t count = confirmed_keys(r, i, keys, from, SAME_BUG_KEYS);
    /* Unknown until asked: a case not checked may be any bug's. */
    *check = (same_bug_check){ .could_show = true };
    if (!count || s->input_elements > SAME_BUG_MAX_ELEMENTS) /* not even drawn again */
        return true;
    dml_case c;
    gen_info info;
    case_init(&c);
    bool ok = session_generate(r->s, s->index, &c, &info, err);
    bool small = ok && !c.must_reject && case_tensor_elements(&c.input) <= SAME_BUG_MAX_ELEMENTS;
    if (small)
        ok = session_same_bug(r->s, &c, keys, count, check, err);
    if (ok && small && check->held) {
        s->diagnosed = true;
        ok = record_same_bug(r, s, &r->sigs[from[check->first]],
                             check->second == SIZE_MAX ? NULL : &r->sigs[from[check->second]],
                             check, err);
    }
    case_free(&c);
    return asking_ended(r, ok, err);
}

bool runner_diagnose_new_families(runner *r, dmlc_error *err)
{
    if (!r->o->diagnose)
        return true;
    double start = clock_seconds();
    for (size_t i = 0; i < r->sig_count && !runner_stop_raised(r->o) && !session_broken(r->s); i++) {
        seen_signature *s = &r->sigs[i];
        same_bug_check check;
        if (!s->is_new || !mismatch_kind_from_outputs(s->kind))
            continue;
        if (!explained_by_known_bug(r, i, &check, err))
            return false;
        if (s->diagnosed || runner_stop_raised(r->o) || session_broken(r->s))
            continue;
        /* Probed: the family's first; a later one only where no bug diagnosed in the family
         * can show in its case (another bug, as UINT64's in OpenVINO's NaN row), up to the
         * budget.  Otherwise a signature is left undiagnosed in the file, and its row is the
         * one most of its family's signatures have (results/families.c): a bug that can show
         * there but whose model does not reach all of the case (NaNs) is no other bug. */
        unsigned probed = family_probed(r, i);
        const char *known = family_cause(r, i);
        bool other_bug = known && !check.could_show;
        if ((probed == 0 || (other_bug && probed < PROBED_PER_FAMILY))
            && !diagnose_signature(r, i, known, err))
            return false;
    }
    r->rep->probes = session_probes_asked(r->s); /* the summary says them (run_summary.c) */
    r->rep->diagnosis_seconds += clock_seconds() - start;
    return true;
}

void runner_free_signatures(runner *r)
{
    for (size_t i = 0; i < r->sig_count; i++) {
        if (r->sigs[i].shrunk) {
            case_free(r->sigs[i].shrunk);
            free(r->sigs[i].shrunk);
        }
        json_decref(r->sigs[i].confirmed);
    }
    free(r->sigs);
    r->sigs = NULL;
    r->sig_count = 0;
}
