/*
 * diagnose.c: the diagnosis procedure (diagnose.h).
 *   1. Rivals: every cause of the catalogue that could touch the failing case; candidates:
 *      the rivals whose prediction on the failing case itself differs from the spec.
 *   2. For each candidate, probes: drawn until the candidate's prediction differs from the
 *      spec (the probe can tell them apart) and, best of a few draws, from as many rivals'
 *      predictions as possible; asked; a candidate gets probes until it has
 *      DIAGNOSE_CONFIRMATIONS that hold or one that does not.
 *   3. Confirmation: a cause whose prediction differs from the spec and is what came back,
 *      with every other rival's prediction not what came back, on at least
 *      DIAGNOSE_CONFIRMATIONS probes.  Every probe counts, whichever cause it was built for.
 */
#include "diagnose.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "dtype.h"
#include "layout.h"
#include "op_module.h"
#include "probe.h"
#include "reference.h"

/* Value draws tried per probe, keeping the one that parts the cause from most rivals. */
#define DRAWS_PER_PROBE 24
/* Draws for a cause whose probes are large (max_elements past PROBE_ELEMENTS): each draw
 * costs every rival's scan of tens of thousands of elements, and their values are planted
 * where only that cause's prediction moves. */
#define DRAWS_PER_LARGE_PROBE 4
/* Probes asked for one candidate at most (a draw may find no probe that parts it). */
#define PROBES_PER_CAUSE (DIAGNOSE_CONFIRMATIONS + 1)

/* One drawn probe with the spec's answer and every rival's prediction. */
typedef struct drawn {
    dml_case probe;
    case_outputs spec;
    case_outputs predicted[CAUSE_COUNT];
    uint64_t predicts, differs;
    uint8_t *decided; /* decided_windows of the probe */
} drawn;

static void drawn_free(drawn *w)
{
    case_free(&w->probe);
    case_outputs_free(&w->spec);
    free(w->decided);
    w->decided = NULL;
    for (size_t k = 0; k < CAUSE_COUNT; k++)
        case_outputs_free(&w->predicted[k]);
    w->predicts = w->differs = 0;
}

static bool same_outputs(const dml_case *c, const case_outputs *a, const case_outputs *b)
{
    return compare_outputs(c, a, b, NULL);
}

/* Whether output element `logical` of a pooling case has a real input element among its
 * deciders (false: its window lies wholly in padding). */
static bool window_decided(const dml_case *c, const tensor_view *out, uint64_t logical)
{
    uint32_t coords[DML_MAX_RANK];
    decider_facts facts;
    tensor_view_coords(out, logical, coords);
    case_module(c)->visit_deciders(c, coords, NULL, NULL, &facts);
    return !facts.all_padding;
}

/* Whether every output of c has a real element among its deciders, known without a walk:
 * ARGMIN/ARGMAX, and pooling without padding (a window starts inside the input, D8). */
static bool every_window_decided(const dml_case *c)
{
    if (case_module(c)->output_is_index)
        return true;
    for (unsigned s = 0; s < c->spatial_count; s++)
        if (c->start_padding[s] || c->end_padding[s])
            return false;
    return true;
}

/* Which outputs of c have a real element among their deciders, one byte each; NULL when
 * every one has (*failed set when memory runs out).  Made once per probe: a walk of every
 * window per rival's prediction was most of the cost of a large probe. */
static uint8_t *decided_windows(const dml_case *c, bool *failed)
{
    *failed = false;
    if (every_window_decided(c))
        return NULL;
    tensor_view out;
    case_tensor_view(&c->output, &out);
    uint8_t *decided = malloc(out.elements ? out.elements : 1);
    for (uint64_t logical = 0; decided && logical < out.elements; logical++)
        decided[logical] = window_decided(c, &out, logical);
    *failed = !decided;
    return decided;
}

static bool same_element(const case_tensor *t, const tensor_view *v, const uint8_t *a, const uint8_t *b,
                         uint64_t logical)
{
    uint64_t at = tensor_view_offset(v, logical);
    return !a || !b || compare_bits_equal(t->type, dtype_load_bits(a, t->type, at), dtype_load_bits(b, t->type, at));
}

/* Whether a prediction differs from the spec's answer in some output whose window holds a
 * real element.  A pooling window wholly in padding has no candidate (D7): the spec's
 * answer there is dmlcheck's choice, not DirectML's (SEMANTICS, "Decisions the catalogue
 * needed"), so a prediction that parts from it only there is no evidence; an
 * implementation that writes 0 there (OpenVINO's INT16 MaxPool) was named
 * padding_as_zero_value from such probes. */
static bool differs_where_decided(const dml_case *c, const uint8_t *decided, const case_outputs *predicted,
                                  const case_outputs *spec)
{
    if (same_outputs(c, predicted, spec))
        return false;
    if (!decided)
        return true;
    tensor_view out, idx;
    case_tensor_view(&c->output, &out);
    if (c->indices.present)
        case_tensor_view(&c->indices, &idx);
    for (uint64_t logical = 0; logical < out.elements; logical++)
        if (decided[logical]
            && (!same_element(&c->output, &out, predicted->output, spec->output, logical)
                || (c->indices.present
                    && !same_element(&c->indices, &idx, predicted->indices, spec->indices, logical))))
            return true;
    return false;
}

/* Whether a cause's probes drop indices: padding read as a value, whose prediction for a
 * padding winner's index (all ones) stands for whatever the implementation writes (D7). */
static bool padding_index_open(const cause *h)
{
    return h->plan.indices == PROBE_INDICES_DROP;
}

/* Whether an answer contradicts a prediction: an output of a window holding a real element
 * differs, or an index other than one the prediction leaves open (all ones, with
 * open_padding_index: padding_index_open). */
static bool contradicts(bool open_padding_index, const dml_case *c, const uint8_t *decided,
                        const case_outputs *predicted, const case_outputs *got)
{
    if (same_outputs(c, predicted, got))
        return false;
    if (case_module(c)->output_is_index
        || (!decided && !(open_padding_index && c->indices.present)))
        return true;
    tensor_view out, idx;
    case_tensor_view(&c->output, &out);
    if (c->indices.present)
        case_tensor_view(&c->indices, &idx);
    open_padding_index = open_padding_index && c->indices.present;
    uint64_t none = open_padding_index ? dtype_load_bits(&(uint64_t){ UINT64_MAX }, c->indices.type, 0) : 0;
    for (uint64_t logical = 0; logical < out.elements; logical++) {
        if (decided && !decided[logical])
            continue;
        if (!same_element(&c->output, &out, predicted->output, got->output, logical))
            return true;
        if (c->indices.present && predicted->indices
            && (!open_padding_index
                || dtype_load_bits(predicted->indices, c->indices.type, tensor_view_offset(&idx, logical)) != none)
            && !same_element(&c->indices, &idx, predicted->indices, got->indices, logical))
            return true;
    }
    return false;
}

/* The spec's answer on c; false when memory runs out. */
static bool spec_answer(const dml_case *c, const exec_options *exec, case_outputs *out)
{
    if (!case_outputs_alloc(out, c))
        return false;
    ref_run(c, exec, out);
    return true;
}

/* Cause k's prediction for w->probe, recorded in w; false when it has none. */
static bool predict_one(drawn *w, size_t k, const exec_options *exec)
{
    dmlc_error err;
    if (!scan_predict(&cause_catalogue[k]->variant, &w->probe, exec, &w->predicted[k], &err))
        return false;
    w->predicts |= 1ull << k;
    if (differs_where_decided(&w->probe, w->decided, &w->predicted[k], &w->spec))
        w->differs |= 1ull << k;
    return true;
}

/* Rivals' predictions for w->probe, drawn for cause h, after checking that the variant
 * oracle with no hook is the reference here (else no prediction on this probe is trusted:
 * false).  h goes first: where its prediction is the spec's answer the probe is useless to
 * it, and the other rivals are not asked (the big probes of index_narrowed_16 cost most). */
static bool predict_all(drawn *w, size_t h, uint64_t rivals, const exec_options *exec)
{
    static const scan_variant spec_variant = { 0 };
    case_outputs check = { 0 };
    dmlc_error err;
    bool trusted = scan_predict(&spec_variant, &w->probe, exec, &check, &err)
                   && same_outputs(&w->probe, &check, &w->spec);
    case_outputs_free(&check);
    if (!trusted || !predict_one(w, h, exec) || !((w->differs >> h) & 1))
        return trusted;
    for (size_t k = 0; k < CAUSE_COUNT; k++)
        if (k != h && ((rivals >> k) & 1))
            predict_one(w, k, exec);
    return true;
}

/* How many rivals predict something other than cause h on w (h's prediction must differ
 * from the spec, else -1: the probe cannot tell h from the spec). */
static int parting_score(const drawn *w, size_t h, uint64_t rivals)
{
    if (!((w->differs >> h) & 1))
        return -1;
    int score = 0;
    for (size_t k = 0; k < CAUSE_COUNT; k++)
        if (k != h && ((rivals >> k) & 1)
            && (!((w->predicts >> k) & 1)
                || !same_outputs(&w->probe, &w->predicted[k], &w->predicted[h])))
            score++;
    return score;
}

/* One draw of cause h's probe into w (shape, values, spec, predictions); false when memory
 * runs out or no probe of h can be shaped from the failing case (err says which). */
static bool draw_once(const dml_case *failing, size_t h, uint64_t rivals, const diagnose_options *opt,
                      uint64_t stream, drawn *w, dmlc_error *err)
{
    const cause *c = cause_catalogue[h];
    *w = (drawn){ 0 };
    if (!probe_shape(failing, c, &w->probe, err))
        return false;
    prng p;
    prng_seed2(&p, opt->seed, stream);
    c->plan.fill(&p, &w->probe);
    bool no_memory;
    if (!spec_answer(&w->probe, &opt->exec, &w->spec)
        || (w->decided = decided_windows(&w->probe, &no_memory), no_memory)) {
        drawn_free(w);
        return err_set(err, "out of memory computing a probe's spec answer");
    }
    if (!predict_all(w, h, rivals, &opt->exec))
        w->differs = 0; /* untrusted: useless to every cause */
    return true;
}

/* The best of DRAWS_PER_PROBE (large probes: DRAWS_PER_LARGE_PROBE) draws for cause h into best; false when none parts h from the
 * spec (best left empty) or shaping failed. */
static bool draw_probe(const dml_case *failing, size_t h, unsigned attempt, uint64_t rivals,
                       const diagnose_options *opt, drawn *best, dmlc_error *err)
{
    int best_score = -1, all = __builtin_popcountll(rivals) - 1;
    *best = (drawn){ 0 };
    unsigned draws = cause_catalogue[h]->plan.max_elements > PROBE_ELEMENTS ? DRAWS_PER_LARGE_PROBE
                                                                             : DRAWS_PER_PROBE;
    for (unsigned k = 0; k < draws && best_score < all; k++) {
        drawn w;
        uint64_t stream = ((uint64_t)h << 32) | ((uint64_t)attempt << 16) | k;
        if (!draw_once(failing, h, rivals, opt, stream, &w, err)) {
            drawn_free(best);
            return false;
        }
        int score = parting_score(&w, h, rivals);
        if (score > best_score) {
            drawn_free(best);
            *best = w;
            case_link(&best->probe); /* moved: its descriptor points into the copy */
            best_score = score;
        } else {
            drawn_free(&w);
        }
    }
    return best_score >= 0;
}

/* Asks the backend w's probe and keeps it in d as a record; false when asking failed. */
static bool ask_probe(drawn *w, size_t h, probe_ask ask, void *ctx, diagnosis *d, dmlc_error *err)
{
    diagnosis_probe *r = &d->probes[d->probe_count++];
    r->built_for = cause_catalogue[h];
    r->probe = w->probe;
    case_link(&r->probe);
    r->spec = w->spec;
    memcpy(r->predicted, w->predicted, sizeof r->predicted);
    r->predicts = w->predicts;
    r->differs = w->differs;
    r->decided = w->decided;
    *w = (drawn){ 0 }; /* the record owns it all now */
    if (!case_outputs_alloc(&r->got.outputs, &r->probe))
        return err_set(err, "out of memory for a probe's answer");
    if (!ask(ctx, &r->probe, &r->got, err))
        return err_prefix(err, "asking a probe for %s", r->built_for->id);
    for (size_t k = 0; r->got.ran && k < CAUSE_COUNT; k++)
        if (((r->predicts >> k) & 1) && same_outputs(&r->probe, &r->predicted[k], &r->got.outputs))
            r->holds |= 1ull << k;
    return true;
}

/* Probes for candidate h until DIAGNOSE_CONFIRMATIONS hold, one fails, or the budget ends. */
static bool probe_candidate(const dml_case *failing, size_t h, const diagnose_options *opt,
                            probe_ask ask, void *ctx, diagnosis *d, dmlc_error *err)
{
    unsigned max = opt->max_probes ? opt->max_probes : DIAGNOSE_MAX_PROBES;
    unsigned held = 0;
    for (unsigned attempt = 0; attempt < PROBES_PER_CAUSE && held < DIAGNOSE_CONFIRMATIONS
                               && d->probe_count < max && d->probe_count < DIAGNOSE_MAX_PROBES;
         attempt++) {
        drawn w;
        dmlc_error why;
        if (!draw_probe(failing, h, attempt, d->rivals, opt, &w, &why)) {
            drawn_free(&w);
            return true; /* no probe parts this cause here: it stays unconfirmed */
        }
        if (!ask_probe(&w, h, ask, ctx, d, err))
            return false;
        if (!((d->probes[d->probe_count - 1].holds >> h) & 1))
            return true; /* refuted */
        held++;
    }
    return true;
}

/* Rivals and candidates of the failing case (diagnose.c's step 1). */
static bool find_candidates(const dml_case *failing, const exec_options *exec, diagnosis *d,
                            dmlc_error *err)
{
    case_outputs spec = { 0 };
    if (!spec_answer(failing, exec, &spec))
        return err_set(err, "out of memory computing the failing case's spec answer");
    for (size_t k = 0; k < CAUSE_COUNT; k++) {
        if (!cause_applies(cause_catalogue[k], failing))
            continue;
        d->rivals |= 1ull << k;
        case_outputs predicted = { 0 };
        dmlc_error why;
        if (scan_predict(&cause_catalogue[k]->variant, failing, exec, &predicted, &why)
            && !same_outputs(failing, &predicted, &spec)) /* the failure, whatever its windows */
            d->candidates |= 1ull << k;
        case_outputs_free(&predicted);
    }
    case_outputs_free(&spec);
    return true;
}

/* Whether some probe refutes cause h: its prediction differs from the spec there and the
 * answer differs from its prediction, both in windows holding a real element.  An
 * implementation with that bug gives its prediction on every probe, so one refutation
 * outweighs any number of probes it explains (INT8 padding read as -128, index all ones:
 * best_seeded_with_type_min explained the probes with padding, and was refuted by its own
 * probes without padding, where the answers were the spec's). */
static bool refuted(const diagnosis *d, size_t h)
{
    for (unsigned i = 0; i < d->probe_count; i++) {
        const diagnosis_probe *r = &d->probes[i];
        if (r->got.ran && ((r->differs >> h) & 1)
            && contradicts(padding_index_open(cause_catalogue[h]), &r->probe, r->decided, &r->predicted[h],
                           &r->got.outputs))
            return true;
    }
    return false;
}

/* Probes on which cause h alone explains what came back, where the spec would not; 0 when
 * a probe refutes it. */
static unsigned sole_explanations(const diagnosis *d, size_t h)
{
    if (refuted(d, h))
        return 0;
    unsigned n = 0;
    for (unsigned i = 0; i < d->probe_count; i++) {
        const diagnosis_probe *r = &d->probes[i];
        bool alone = (r->holds & d->rivals) == 1ull << h;
        n += alone && ((r->differs >> h) & 1);
    }
    return n;
}

/* Probes where causes a and b together explain what came back, where the spec and every
 * single rival do not. */
static unsigned pair_explanations(const diagnosis *d, const scan_variant *both, bool open_padding_index,
                                  const exec_options *exec)
{
    unsigned n = 0;
    for (unsigned i = 0; i < d->probe_count; i++) {
        const diagnosis_probe *r = &d->probes[i];
        if (!r->got.ran || (r->holds & d->rivals))
            continue;
        case_outputs predicted = { 0 };
        dmlc_error why;
        n += scan_predict(both, &r->probe, exec, &predicted, &why)
             && differs_where_decided(&r->probe, r->decided, &predicted, &r->spec)
             && !contradicts(open_padding_index, &r->probe, r->decided, &predicted, &r->got.outputs);
        case_outputs_free(&predicted);
    }
    return n;
}

/* No single cause confirmed: two candidates whose bugs only show together (a window read
 * undilated and padding read as zero) are confirmed as a pair when their composed prediction
 * is what came back on DIAGNOSE_CONFIRMATIONS probes; the first such pair in catalogue
 * order, and only if no other pair also explains them. */
static void confirm_pair(const diagnose_options *opt, diagnosis *d)
{
    unsigned found = 0;
    size_t pair[2] = { 0, 0 };
    for (size_t a = 0; a < CAUSE_COUNT; a++)
        for (size_t b = a + 1; ((d->candidates >> a) & 1) && b < CAUSE_COUNT; b++) {
            scan_variant both;
            if (!((d->candidates >> b) & 1)
                || !scan_variant_compose(&cause_catalogue[a]->variant,
                                         &cause_catalogue[b]->variant, &both)
                || pair_explanations(d, &both,
                                     padding_index_open(cause_catalogue[a])
                                         || padding_index_open(cause_catalogue[b]),
                                     &opt->exec) < DIAGNOSE_CONFIRMATIONS)
                continue;
            if (found++ == 0) {
                pair[0] = a;
                pair[1] = b;
            }
        }
    if (found != 1)
        return;
    d->confirmed[0] = cause_catalogue[pair[0]];
    d->confirmed[1] = cause_catalogue[pair[1]];
    d->confirmed_count = 2;
    d->interacting = true;
}

const char *diagnosis_key(const diagnosis *d, char *buf, size_t size)
{
    if (d->confirmed_count == 1 && d->also_possible)
        snprintf(buf, size, "%s|%s", d->confirmed[0]->id, d->also_possible->id);
    else if (d->confirmed_count == 1)
        snprintf(buf, size, "%s", d->confirmed[0]->id);
    else if (d->interacting)
        snprintf(buf, size, "%s+%s", d->confirmed[0]->id, d->confirmed[1]->id);
    else
        return NULL;
    return buf;
}

bool diagnose_case(const dml_case *failing, const diagnose_options *opt, probe_ask ask,
                   void *ask_ctx, diagnosis *d, dmlc_error *err)
{
    memset(d, 0, sizeof *d);
    if (!find_candidates(failing, &opt->exec, d, err))
        return false;
    for (size_t h = 0; h < CAUSE_COUNT; h++)
        if (((d->candidates >> h) & 1) && !probe_candidate(failing, h, opt, ask, ask_ctx, d, err))
            return false;
    for (size_t h = 0; h < CAUSE_COUNT; h++)
        if (((d->rivals >> h) & 1) && sole_explanations(d, h) >= DIAGNOSE_CONFIRMATIONS)
            d->confirmed[d->confirmed_count++] = cause_catalogue[h];
    if (!d->confirmed_count)
        confirm_pair(opt, d);
    else if (d->confirmed_count == 1)
        d->also_possible = cause_also_possible(d->confirmed[0], failing);
    return true;
}

/* The prediction of a stored key's bug (diagnosis_key's form): its cause's variant, a pair's
 * composed ("a+b"), an either-key's named cause ("a|b"); *open whether it leaves a padding
 * winner's index open.  False when the key names no cause of the catalogue that could touch
 * c, or its pair does not compose. */
static bool key_prediction(const char *key, const dml_case *c, scan_variant *v, bool *open)
{
    const cause *a = cause_key_first(key);
    const char *plus = strchr(key, '+');
    const cause *b = plus ? cause_key_first(plus + 1) : NULL;
    if (!a || !cause_applies(a, c) || (plus && (!b || !cause_applies(b, c))))
        return false;
    *open = padding_index_open(a) || (b && padding_index_open(b));
    *v = a->variant;
    return !b || scan_variant_compose(&a->variant, &b->variant, v);
}

/* Whether an answer is a known bug's prediction on a failing case: where a window holds a
 * real element as on a probe (contradicts), and in a window wholly in padding wherever the
 * prediction's value parts from the spec's (zero padding writes its 0 there; an index there
 * is the implementation's own).  A window wholly in padding where the prediction is the
 * spec's says nothing of the bug: an answer of the implementation's own there is no
 * contradiction (D7). */
static bool answer_predicted(bool open_padding_index, const dml_case *c, const uint8_t *decided,
                             const case_outputs *predicted, const case_outputs *spec,
                             const case_outputs *got)
{
    if (contradicts(open_padding_index, c, decided, predicted, got))
        return false;
    tensor_view out;
    case_tensor_view(&c->output, &out);
    for (uint64_t logical = 0; decided && logical < out.elements; logical++)
        if (!decided[logical]
            && !same_element(&c->output, &out, predicted->output, spec->output, logical)
            && !same_element(&c->output, &out, predicted->output, got->output, logical))
            return false;
    return true;
}

/* The key a failure explained by `key` is stored under: a pair's as it is; one cause's, with
 * the cause it cannot be told from on c when there is one (diagnosis_key's rule). */
static void same_bug_key(const char *key, const dml_case *c, char *buf, size_t size)
{
    const cause *named = cause_key_first(key);
    const cause *also = named ? cause_also_possible(named, c) : NULL;
    if (strchr(key, '+'))
        snprintf(buf, size, "%s", key);
    else if (also)
        snprintf(buf, size, "%s|%s", named->id, also->id);
    else
        snprintf(buf, size, "%.*s", (int)strcspn(key, "|"), key);
}

/* What one failing case is checked with: its spec answer, its decided windows, the backend's
 * answer once asked. */
typedef struct same_bug_state {
    const dml_case *failing;
    const diagnose_options *opt;
    case_outputs spec;
    uint8_t *decided;
    probe_answer got;
    bool asked;
    bool could_show; /* some key's prediction parted from the spec */
} same_bug_state;

/* Whether key's prediction is what the backend answers to the failing case; asks the case
 * the first time a prediction parts from the spec. */
static bool try_key(same_bug_state *st, const char *key, probe_ask ask, void *ctx, bool *held,
                    dmlc_error *err)
{
    scan_variant v;
    bool open = false, ok = true;
    case_outputs predicted = { 0 };
    dmlc_error why;
    *held = false;
    if (!key_prediction(key, st->failing, &v, &open)
        || !scan_predict(&v, st->failing, &st->opt->exec, &predicted, &why)
        || same_outputs(st->failing, &predicted, &st->spec)) {
        case_outputs_free(&predicted);
        return true;
    }
    st->could_show = true;
    if (!st->asked) {
        st->asked = true;
        ok = case_outputs_alloc(&st->got.outputs, st->failing)
             || err_set(err, "out of memory for a failing case's answer");
        ok = ok && (ask(ctx, st->failing, &st->got, err)
                    || err_prefix(err, "asking a failing case again for %s", key));
    }
    *held = ok && st->got.ran
            && answer_predicted(open, st->failing, st->decided, &predicted, &st->spec,
                                &st->got.outputs);
    case_outputs_free(&predicted);
    return ok;
}

/* Whether two stored keys compose: each names one cause, and they are distinct. */
static bool composable(const char *a, const char *b, char *pair, size_t size)
{
    const cause *x = cause_key_first(a), *y = cause_key_first(b);
    if (!x || !y || x == y || strchr(a, '+') || strchr(b, '+'))
        return false;
    size_t ix = 0, iy = 0;
    for (size_t k = 0; k < CAUSE_COUNT; k++) {
        ix = cause_catalogue[k] == x ? k : ix;
        iy = cause_catalogue[k] == y ? k : iy;
    }
    snprintf(pair, size, "%s+%s", ix < iy ? x->id : y->id, ix < iy ? y->id : x->id);
    return true;
}

bool diagnose_same_bug(const dml_case *failing, const char *const *keys, size_t count,
                       const diagnose_options *opt, probe_ask ask, void *ask_ctx,
                       same_bug_check *out, dmlc_error *err)
{
    static const scan_variant spec_variant = { 0 };
    same_bug_state st = { .failing = failing, .opt = opt };
    case_outputs check = { 0 };
    bool no_memory = false, held = false;
    dmlc_error why;
    *out = (same_bug_check){ .first = SIZE_MAX, .second = SIZE_MAX };
    bool ok = spec_answer(failing, &opt->exec, &st.spec)
              && (st.decided = decided_windows(failing, &no_memory), !no_memory);
    if (!ok)
        err_set(err, "out of memory checking a failure against the bugs confirmed");
    /* As for a probe: no prediction is trusted where the variant oracle is not the spec. */
    bool trusted = ok && scan_predict(&spec_variant, failing, &opt->exec, &check, &why)
                   && same_outputs(failing, &check, &st.spec);
    for (size_t i = 0; trusted && ok && !held && i < count; i++)
        if ((ok = try_key(&st, keys[i], ask, ask_ctx, &held, err)) && held) {
            out->first = i;
            same_bug_key(keys[i], failing, out->key, sizeof out->key);
        }
    out->could_show = st.could_show;
    bool pairs = case_tensor_elements(&failing->input) <= SAME_BUG_PAIR_ELEMENTS;
    for (size_t i = 0; pairs && trusted && ok && !held && i < count && i < SAME_BUG_PAIR_KEYS; i++)
        for (size_t j = i + 1; ok && !held && j < count && j < SAME_BUG_PAIR_KEYS; j++) {
            char pair[sizeof out->key];
            if (composable(keys[i], keys[j], pair, sizeof pair)
                && (ok = try_key(&st, pair, ask, ask_ctx, &held, err)) && held) {
                out->first = i;
                out->second = j;
                snprintf(out->key, sizeof out->key, "%s", pair);
            }
        }
    out->held = held;
    case_outputs_free(&st.spec);
    case_outputs_free(&check);
    case_outputs_free(&st.got.outputs);
    free(st.decided);
    return ok;
}

const cause *diagnosis_cause(const diagnosis *d)
{
    return d->confirmed_count == 1 ? d->confirmed[0] : NULL;
}

void diagnosis_free(diagnosis *d)
{
    for (unsigned i = 0; i < d->probe_count; i++) {
        diagnosis_probe *r = &d->probes[i];
        case_free(&r->probe);
        case_outputs_free(&r->spec);
        case_outputs_free(&r->got.outputs);
        free(r->decided);
        for (size_t k = 0; k < CAUSE_COUNT; k++)
            case_outputs_free(&r->predicted[k]);
    }
    memset(d, 0, sizeof *d);
}
