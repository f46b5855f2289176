/*
 * classify.c: verdicts and mismatch kinds.  Only runs element by element when the fast
 * compare_outputs() found a difference, so its loops favour clarity over speed.
 *
 * A differing element's facts come from one walk of the inputs that decide it (the
 * reduction of an arg-reduce element or the window of a pooling element) and from both
 * answers: its classes (nan only when a NaN decided an answer), and what the table
 * `explanations` reads from them: each row is one root cause, tried in order, and names the
 * kind only when its evidence holds; otherwise the kind is generic (wrong_index,
 * value_bits_differ).  A row also says in which classes its evidence fails the element all
 * the same (an index outside the window is wrong under every NaN policy), so the classes
 * excuse only what a policy could explain.
 */
#include "classify.h"

#include "op_module.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "order.h"

static const char *const kind_names[KIND_COUNT] = {
    [KIND_NONE] = NULL,
#define X(name) [KIND_##name] = #name,
#define F(name, status) X(name)
    MISMATCH_KINDS(X, F)
#undef F
#undef X
};

const char *mismatch_kind_name(mismatch_kind k)
{
    return k < KIND_COUNT ? kind_names[k] : "?";
}

mismatch_kind mismatch_kind_from_name(const char *name)
{
    for (int k = 1; k < KIND_COUNT; k++)
        if (!strcmp(kind_names[k], name))
            return (mismatch_kind)k;
    return KIND_COUNT;
}

bool mismatch_kind_from_outputs(mismatch_kind k)
{
    return k >= KIND_wrong_index && k <= KIND_output_not_written;
}

_Static_assert(KIND_COUNT <= 32, "judgement.also_kinds holds one bit per kind");

const char *mismatch_kinds_text(uint32_t kinds, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (unsigned k = 0; k < KIND_COUNT && k < 32 && used < size; k++)
        if ((kinds >> k) & 1u)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "", kind_names[k]);
    return buf[0] ? buf : NULL;
}

const char *verdict_name(verdict v)
{
    static const char *const names[VERDICT_COUNT] = { "pass", "fail", "unspecified", "skip", "error" };
    return v < VERDICT_COUNT ? names[v] : "?";
}

/* ---- Values ------------------------------------------------------------------------- */

/* Numeric equality of two elements of type t (+0 == -0; NaN equals nothing). */
static bool values_equal(DML_TENSOR_DATA_TYPE t, uint64_t a, uint64_t b)
{
    if (dtype_is_float(t))
        return dtype_bits_to_double(t, a) == dtype_bits_to_double(t, b);
    return a == b;
}

static uint64_t element_bits(const uint8_t *buf, const case_tensor *t, uint64_t logical)
{
    tensor_view v;
    case_tensor_view(t, &v);
    return dtype_load_bits(buf, v.type, tensor_view_offset(&v, logical));
}

static uint64_t input_bits_at(const dml_case *c, const uint32_t *coords)
{
    tensor_view v;
    case_tensor_view(&c->input, &v);
    return dtype_load_bits(c->input_data, v.type, tensor_view_offset_coords(&v, coords));
}

static void output_coords(const dml_case *c, uint64_t out_logical, uint32_t *coords)
{
    tensor_view v;
    case_tensor_view(&c->output, &v);
    tensor_view_coords(&v, out_logical, coords);
}

/* ---- Picked inputs ------------------------------------------------------------------ */

picked_input classify_picked_input(const dml_case *c, uint64_t out_logical, uint64_t index_bits)
{
    picked_input p = { .valid = false };
    uint32_t out[DML_MAX_RANK], in[DML_MAX_RANK];
    output_coords(c, out_logical, out);
    if (!case_module(c)->input_of_index(c, out, index_bits, in))
        return p;
    p.valid = true;
    p.logical = op_logical_of_coords(&c->input, in);
    p.bits = input_bits_at(c, in);
    return p;
}

/* ---- Order (reference/order.h is the one home of the rule; only its keys are used) ---- */

/* The key of a number of type t: larger keys are larger values, +0 and -0 share key 0. */
static int64_t number_key(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT32)
        return order_key_f32((uint32_t)bits, false);
    if (t == DML_TENSOR_DATA_TYPE_FLOAT16)
        return order_key_f16((uint16_t)bits);
    return dtype_is_signed_int(t) ? order_key_signed(dtype_bits_to_i64(t, bits)) : order_key_unsigned(bits);
}

/* All ones in the width of type t. */
static uint64_t width_mask(DML_TENSOR_DATA_TYPE t)
{
    unsigned bytes = dtype_size(t);
    return bytes >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
}

/* What an output element holds when nobody wrote it (check.c fills outputs with the canary). */
static uint64_t canary_bits(DML_TENSOR_DATA_TYPE t)
{
    return (UINT64_C(0x0101010101010101) * CASE_CANARY_BYTE) & width_mask(t);
}

/* How the operator orders the elements of one case: the key that wins is the largest
 * oriented key (ARGMIN reverses), and equal keys go to the first (the last under DECREASING;
 * pooling cases leave direction INCREASING: the first element of the window wins). */
typedef struct case_order {
    DML_TENSOR_DATA_TYPE type;
    int64_t orient;
    bool later_wins;
} case_order;

static case_order order_of(const dml_case *c)
{
    return (case_order){ .type = c->input.type,
                         .orient = order_orient_mask(op_table[c->op].flags & OPF_MINIMIZES),
                         .later_wins = c->direction == DML_AXIS_DIRECTION_DECREASING };
}

static int64_t oriented_key(const case_order *o, uint64_t bits)
{
    return number_key(o->type, bits) ^ o->orient;
}

/* The two values a running extreme is seeded with: the losing end of the type (-inf, the
 * minimum integer; +inf and the maximum for ARGMIN) and, for floats, the finite value next
 * to it (-FLT_MAX, -65504...), the seed that loses -inf.  Returns how many; the last is the
 * one nearest the other values. */
static unsigned seed_values(const dml_case *c, uint64_t *seeds)
{
    DML_TENSOR_DATA_TYPE t = c->input.type;
    uint64_t lowest = dtype_lowest_bits(t);
    seeds[0] = lowest;
    if (op_table[c->op].flags & OPF_MINIMIZES) /* +inf: -inf without its sign; the maximum integer */
        seeds[0] = dtype_is_float(t) ? lowest & (width_mask(t) >> 1) : lowest ^ width_mask(t);
    if (!dtype_is_float(t))
        return 1;
    seeds[1] = seeds[0] - 1; /* sign-magnitude: one step towards zero is the largest finite */
    return 2;
}

/* ---- Narrowed comparisons (a 64-bit or unsigned value compared in a smaller or signed type) */

typedef struct narrowing {
    uint32_t types;                                       /* 1u << DML_TENSOR_DATA_TYPE_* */
    int64_t (*key)(DML_TENSOR_DATA_TYPE t, uint64_t bits); /* the value as compared */
    uint64_t (*stored)(uint64_t bits);                    /* the value as written back */
} narrowing;

#define TYPE_BIT(name) (1u << DML_TENSOR_DATA_TYPE_##name)

static int64_t low32_signed(DML_TENSOR_DATA_TYPE t, uint64_t bits) { (void)t; return (int32_t)(uint32_t)bits; }
static int64_t low32_unsigned(DML_TENSOR_DATA_TYPE t, uint64_t bits) { (void)t; return (uint32_t)bits; }
static uint64_t stored_low32_signed(uint64_t bits) { return (uint64_t)(int64_t)(int32_t)(uint32_t)bits; }
static uint64_t stored_low32_unsigned(uint64_t bits) { return (uint32_t)bits; }
static uint64_t stored_same(uint64_t bits) { return bits; }

/* Unsigned bits read as the signed integer of their width. */
static int64_t as_signed(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    uint64_t sign = (width_mask(t) >> 1) + 1;
    return (int64_t)((bits ^ sign) - sign);
}

/* The comparisons seen in real implementations: 64-bit values held in 32 bits, and unsigned
 * values compared as signed (OpenVINO compares UINT32 so).  Signed values read as unsigned
 * are left out on purpose: that order puts the negatives on top, so it names the answer of
 * an ARGMIN-for-ARGMAX bug too often to be evidence. */
static const narrowing narrowings[] = {
    { TYPE_BIT(INT64) | TYPE_BIT(UINT64), low32_signed, stored_low32_signed },
    { TYPE_BIT(INT64) | TYPE_BIT(UINT64), low32_unsigned, stored_low32_unsigned },
    { TYPE_BIT(UINT64) | TYPE_BIT(UINT32), as_signed, stored_same },
};
#define NARROWING_COUNT (sizeof narrowings / sizeof narrowings[0])

static bool narrowing_applies(const narrowing *n, DML_TENSOR_DATA_TYPE t)
{
    return (unsigned)t < 32 && (n->types & (1u << t));
}

/* ---- Facts about one differing element ---------------------------------------------- */

/* One side's answer as an input element: its value (arg reduce: the value at the index;
 * pooling: the output) and, when an index names one, the element. */
typedef struct answer {
    bool has_value, has_element;
    uint64_t value, logical, bits_at_index; /* bits_at_index: of the element named */
} answer;

/* An element that the rule (or a variant of it) would pick. */
typedef struct candidate {
    bool found;
    int64_t key;
    uint64_t logical, bits;
} candidate;

/* What the element's deciders (reduction or window) hold, from one walk. */
typedef struct window_facts {
    uint64_t real;                      /* real elements (padding is none) */
    bool has_nan;
    bool got_value_held;                /* some element has the returned value's bits */
    bool zero_held, canary_held;        /* ... bits 0 (what zero padding gives); the canary */
    bool got_element_inside;            /* the returned index names one of them */
    candidate best;                     /* the number the tie rule picks, NaNs left out */
    candidate worst;                    /* the number the reversed order picks */
    candidate first_equal, last_equal;  /* the first and last equal to the expected value */
    candidate narrowed[NARROWING_COUNT]; /* what each narrowed comparison would pick */
    bool got_wins_a_nan_run;            /* the returned element is the best number of a run of
                                         * numbers that a NaN or an end bounds */
} window_facts;

/* Facts about one differing logical element of the output (and indices). */
typedef struct element_case {
    uint64_t logical;
    bool output_differs, indices_differs;
    uint64_t exp_out, got_out, exp_idx, got_idx;
    unsigned classes;                   /* CASE_CLASS_* of this element */
    decider_facts deciders;
    uint32_t coords[DML_MAX_RANK];
    answer exp, got;
    window_facts w;
} element_case;

typedef struct window_walk {
    const element_case *e;
    case_order order;
    window_facts *f;
    candidate run;                      /* the best number since the last NaN */
} window_walk;

/* Ends the run of numbers since the last NaN: does the returned answer win it? */
static void close_nan_run(window_walk *w)
{
    const answer *got = &w->e->got;
    const candidate *r = &w->run;
    if (r->found && (got->has_element ? got->logical == r->logical : got->has_value && got->value == r->bits))
        w->f->got_wins_a_nan_run = true;
    w->run.found = false;
}

/* Keeps (key, element) when the rule prefers it to what cand holds. */
static void keep_if_wins(const case_order *o, candidate *cand, int64_t key, uint64_t logical, uint64_t bits)
{
    if (!cand->found || key > cand->key || (key == cand->key && o->later_wins))
        *cand = (candidate){ .found = true, .key = key, .logical = logical, .bits = bits };
}

static bool equals_expected(const window_walk *w, uint64_t bits)
{
    const answer *exp = &w->e->exp;
    return exp->has_value && (compare_bits_equal(w->order.type, exp->value, bits)
                              || values_equal(w->order.type, exp->value, bits));
}

static void note_equal(window_walk *w, uint64_t logical, uint64_t bits)
{
    if (!equals_expected(w, bits))
        return;
    if (!w->f->first_equal.found)
        w->f->first_equal = (candidate){ .found = true, .logical = logical, .bits = bits };
    w->f->last_equal = (candidate){ .found = true, .logical = logical, .bits = bits };
}

static void note_narrowed(window_walk *w, uint64_t logical, uint64_t bits)
{
    for (size_t n = 0; n < NARROWING_COUNT; n++)
        if (narrowing_applies(&narrowings[n], w->order.type))
            keep_if_wins(&w->order, &w->f->narrowed[n],
                         narrowings[n].key(w->order.type, bits) ^ w->order.orient, logical, bits);
}

static bool visit_window_fact(const dml_case *c, const uint32_t *in, void *ctx)
{
    window_walk *w = ctx;
    window_facts *f = w->f;
    const element_case *e = w->e;
    uint64_t bits = input_bits_at(c, in), logical = op_logical_of_coords(&c->input, in);
    bool is_nan = dtype_bits_is_nan(w->order.type, bits);
    f->real++;
    f->has_nan |= is_nan;
    f->got_value_held |= e->got.has_value && compare_bits_equal(w->order.type, bits, e->got.value);
    f->zero_held |= bits == 0;
    f->canary_held |= bits == canary_bits(w->order.type);
    f->got_element_inside |= e->got.has_element && logical == e->got.logical;
    if (is_nan)
        close_nan_run(w);
    else {
        keep_if_wins(&w->order, &f->best, oriented_key(&w->order, bits), logical, bits);
        keep_if_wins(&w->order, &f->worst, ~oriented_key(&w->order, bits), logical, bits);
        keep_if_wins(&w->order, &w->run, oriented_key(&w->order, bits), logical, bits);
    }
    note_equal(w, logical, bits);
    note_narrowed(w, logical, bits);
    return false;
}

/* An index read as an answer: the element it names and its value. */
static answer answer_at(const dml_case *c, uint64_t out_logical, uint64_t index_bits, picked_input *picked)
{
    *picked = classify_picked_input(c, out_logical, index_bits);
    return (answer){ .has_element = picked->valid, .has_value = picked->valid, .value = picked->bits,
                     .logical = picked->logical, .bits_at_index = picked->bits };
}

/* Both sides' answers; the judgement keeps the inputs an index picked for the explanation. */
static void read_answers(const dml_case *c, element_case *e, judgement *j)
{
    picked_input pe = { .valid = false }, pg = { .valid = false };
    if (case_module(c)->output_is_index) {
        e->exp = answer_at(c, e->logical, e->exp_out, &pe);
        e->got = answer_at(c, e->logical, e->got_out, &pg);
        j->at_expected = pe;
        j->at_got = pg;
        return;
    }
    if (c->indices.present) {
        e->exp = answer_at(c, e->logical, e->exp_idx, &pe);
        e->got = answer_at(c, e->logical, e->got_idx, &pg);
        if (e->indices_differs) {
            j->at_expected = pe;
            j->at_got = pg;
        }
    }
    e->exp.has_value = e->got.has_value = true;
    e->exp.value = e->exp_out;
    e->got.value = e->got_out;
}

/* The element's classes (SEMANTICS "Classes"): nan only when a NaN decided one side's answer
 * (a NaN among the deciders, chosen by the reference or by the backend). */
static unsigned element_classes(const dml_case *c, const element_case *e)
{
    DML_TENSOR_DATA_TYPE t = c->input.type;
    bool nan_answer = (e->exp.has_value && dtype_bits_is_nan(t, e->exp.value))
        || (e->got.has_value && dtype_bits_is_nan(t, e->got.value));
    return (e->w.has_nan && nan_answer ? CASE_CLASS_NAN : 0)
        | (e->deciders.all_padding ? CASE_CLASS_PADDING_WINDOW : 0) | (e->classes & CASE_CLASS_DENORMAL);
}

/* Reads both answers and walks the element's deciders once. */
static void gather_facts(const dml_case *c, element_case *e, judgement *j)
{
    output_coords(c, e->logical, e->coords);
    read_answers(c, e, j);
    window_walk w = { e, order_of(c), &e->w, { .found = false } };
    memset(&e->w, 0, sizeof e->w);
    case_module(c)->visit_deciders(c, e->coords, visit_window_fact, &w, &e->deciders);
    close_nan_run(&w);
    e->classes = element_classes(c, e);
}

/* ---- Explanations: one row per root cause ------------------------------------------- */

static bool values_output(const dml_case *c) { return !case_module(c)->output_is_index; }

/* The index tensor of the family differs here: its returned bits. */
static bool returned_index(const dml_case *c, const element_case *e, uint64_t *bits, DML_TENSOR_DATA_TYPE *t)
{
    if (case_module(c)->output_is_index) {
        *bits = e->got_out;
        *t = c->output.type;
        return e->output_differs;
    }
    *bits = e->got_idx;
    *t = c->indices.type;
    return e->indices_differs;
}

/* Pooling with indices: the returned index names a window element holding the returned value. */
static bool index_stands_for_value(const dml_case *c, const element_case *e)
{
    return e->w.got_element_inside && compare_bits_equal(c->output.type, e->got.bits_at_index, e->got_out);
}

static bool output_not_written(const dml_case *c, const element_case *e)
{
    bool value_canary = e->output_differs && e->got_out == canary_bits(c->output.type)
        && (case_module(c)->output_is_index || !e->w.canary_held);
    return value_canary || (e->indices_differs && e->got_idx == canary_bits(c->indices.type));
}

static bool tie_other_way(const dml_case *c, const element_case *e);
static bool value_not_in_window(const dml_case *c, const element_case *e);

/* SPEC D5: the expected answer is the type's losing end or the seed next to it, and the
 * backend returned a seed no element holds or left its index at 0 or all ones. */
static bool extreme_not_selectable(const dml_case *c, const element_case *e)
{
    uint64_t seeds[2], index;
    DML_TENSOR_DATA_TYPE index_type;
    unsigned n = seed_values(c, seeds);
    case_order o = order_of(c);
    if (!e->w.real || !e->exp.has_value || dtype_bits_is_nan(o.type, e->exp.value)
        || oriented_key(&o, e->exp.value) > oriented_key(&o, seeds[n - 1]))
        return false;
    bool seed_returned = false;
    for (unsigned i = 0; i < n; i++)
        seed_returned |= e->got_out == seeds[i];
    if (values_output(c) && e->output_differs && seed_returned && !e->w.got_value_held)
        return true;
    if (!returned_index(c, e, &index, &index_type))
        return false;
    /* An index left at 0 that is also the other end of a tie of the extreme is the tie's. */
    return index == width_mask(index_type) || (index == 0 && !tie_other_way(c, e));
}

/* An index that names no element of the reduction or window.  A window wholly in padding
 * has none (SPEC D7): there, an index that names a real input element is outside it, while
 * one that names nothing (the reference's all-ones sentinel, or another value past the
 * input, as PyTorch writes) is a "none" of its own and stays class padding_window. */
static bool index_out_of_window(const dml_case *c, const element_case *e)
{
    if (case_module(c)->output_is_index)
        return e->output_differs && !e->got.has_element;
    if (!e->indices_differs)
        return false;
    return e->deciders.all_padding ? e->got.has_element : !e->w.got_element_inside;
}

/* Weaker than index_out_of_window, for judgement.also_kinds: pooled without indices, a
 * returned value that no element of the window holds is what an index outside the window (or
 * none) shows when there is no index to see. */
static bool value_from_outside_window(const dml_case *c, const element_case *e)
{
    return !c->indices.present && value_not_in_window(c, e);
}

/* The window reaches into padding, the answer is a zero and a zero would beat the expected
 * value (SEMANTICS D7). */
static bool padding_zero_returned(const dml_case *c, const element_case *e)
{
    case_order o = order_of(c);
    if (!values_output(c) || !e->deciders.has_padding || e->got_out != 0)
        return false;
    return !e->w.real || dtype_bits_is_nan(o.type, e->exp_out)
        || oriented_key(&o, e->exp_out) <= oriented_key(&o, 0);
}

/* SPEC D7: the window reaches into padding, a zero would beat the expected value, and the
 * answer is that zero: a value 0 that no real element holds, or a 0 that its index does not
 * stand for (it names no element of the window, or one that holds other bits: a padding
 * position clamped into the input). */
static bool padding_selected(const dml_case *c, const element_case *e)
{
    if (!padding_zero_returned(c, e))
        return false;
    bool value_from_padding = e->output_differs && !e->w.zero_held;
    bool index_from_padding = c->indices.present && !index_stands_for_value(c, e);
    return value_from_padding || index_from_padding;
}

/* Weaker than padding_selected, for judgement.also_kinds: the answer could be the padding's
 * zero.  Without indices a returned +0 cannot say whether it came from the padding or from a
 * real +0 of the window (signed_zero_tie names such an element): both explain it. */
static bool padding_zero_possible(const dml_case *c, const element_case *e)
{
    return padding_zero_returned(c, e) && e->output_differs
        && (!c->indices.present || !index_stands_for_value(c, e));
}

/* The returned element is the one the reversed order picks (ARGMIN for ARGMAX): evidence
 * of a reversed comparison, which a narrowed order or a NaN-split run picks too often. */
static bool got_is_the_worst(const dml_case *c, const element_case *e)
{
    const candidate *worst = &e->w.worst;
    if (!worst->found)
        return false;
    return e->got.has_element ? e->got.logical == worst->logical
                              : values_output(c) && e->got_out == worst->bits;
}

/* The returned element is the one a comparison of narrowed values picks (and the right one
 * is not), and not merely the one the reversed order picks (ARGMIN for ARGMAX), which a
 * narrowed order often picks as well. */
static bool narrowed_integer(const dml_case *c, const element_case *e)
{
    for (size_t n = 0; n < NARROWING_COUNT; n++) {
        const candidate *k = &e->w.narrowed[n];
        if (!k->found || !narrowing_applies(&narrowings[n], c->input.type) || got_is_the_worst(c, e))
            continue;
        bool differs_from_expected = e->exp.has_element ? k->logical != e->exp.logical : k->bits != e->exp_out;
        bool index_matches = e->got.has_element && k->logical == e->got.logical;
        bool value_matches = values_output(c) && e->output_differs
            && (e->got_out == k->bits || e->got_out == (narrowings[n].stored(k->bits) & width_mask(c->output.type)));
        if (differs_from_expected && (index_matches || value_matches))
            return true;
    }
    return false;
}

/* SPEC D4: a number was returned although another number beats it, which no NaN policy
 * allows (ignore picks the best number, propagate a NaN), and a NaN explains it: the number
 * is the best of the run between two NaNs (a NaN restarted the running extreme), or the
 * seed the running extreme started from. */
static bool nan_breaks_order(const dml_case *c, const element_case *e)
{
    case_order o = order_of(c);
    if (!e->w.has_nan || !e->got.has_value || dtype_bits_is_nan(o.type, e->got.value) || !e->w.best.found
        || oriented_key(&o, e->got.value) >= e->w.best.key)
        return false;
    uint64_t seeds[2];
    bool seed_returned = false;
    for (unsigned i = 0, n = seed_values(c, seeds); i < n; i++)
        seed_returned |= e->got.value == seeds[i] && !e->w.got_value_held;
    return seed_returned || (e->w.got_wins_a_nan_run && !got_is_the_worst(c, e));
}

static bool value_not_in_window(const dml_case *c, const element_case *e)
{
    return values_output(c) && e->output_differs && e->w.real && !e->w.got_value_held;
}

static bool nan_decided(const dml_case *c, const element_case *e)
{
    (void)c;
    return e->classes & CASE_CLASS_NAN;
}

static bool is_zero(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    return dtype_is_float(t) && !dtype_bits_is_nan(t, bits) && dtype_bits_to_double(t, bits) == 0;
}

/* SPEC D3: +0 and -0 tie, and the other zero of the window was returned (pooled with
 * indices: the one its index names).  When the two are also the two ends of the tie, the tie
 * rule explains it as well, and tie_other_way says so. */
static bool signed_zero_tie(const dml_case *c, const element_case *e)
{
    DML_TENSOR_DATA_TYPE t = c->input.type;
    if (!e->exp.has_value || !e->got.has_value || !is_zero(t, e->exp.value) || !is_zero(t, e->got.value)
        || e->exp.value == e->got.value || tie_other_way(c, e))
        return false;
    if (case_module(c)->output_is_index)
        return e->got.has_element;
    return e->w.got_value_held && (!c->indices.present || index_stands_for_value(c, e));
}

/* SPEC D3: equal values, and the two indices are the first and the last element holding
 * that value: the tie rule applied the other way, and nothing else explains it. */
static bool tie_other_way(const dml_case *c, const element_case *e)
{
    const window_facts *f = &e->w;
    if (!e->exp.has_element || !e->got.has_element || !values_equal(c->input.type, e->exp.value, e->got.value)
        || !f->first_equal.found || f->first_equal.logical == f->last_equal.logical)
        return false;
    uint64_t a = f->first_equal.logical, b = f->last_equal.logical;
    return (e->exp.logical == a && e->got.logical == b) || (e->exp.logical == b && e->got.logical == a);
}

/* Pooling: the index names a window element that does not hold the returned value. */
static bool index_disagrees_with_value(const dml_case *c, const element_case *e)
{
    return values_output(c) && e->got.has_element && e->w.got_element_inside && !index_stands_for_value(c, e);
}

/* A root cause: when `detect` holds, the element fails as `kind` (the first row that holds
 * names it).  `judged_in`: the classes in which the row's evidence still fails the element,
 * because what it shows is wrong under every NaN policy, and in any window; every row that
 * holds is asked.  `excuse`: the row only says why a class excuses the element, so it never
 * names an element that fails.  `why` is the explanation's line. */
typedef struct explanation {
    mismatch_kind kind;
    bool (*detect)(const dml_case *c, const element_case *e);
    /* What else the element is consistent with (judgement.also_kinds); NULL: detect. */
    bool (*consistent)(const dml_case *c, const element_case *e);
    unsigned judged_in;
    bool excuse;
    const char *why;
} explanation;

#define ALL_CLASSES (CASE_CLASS_NAN | CASE_CLASS_DENORMAL | CASE_CLASS_PADDING_WINDOW)

static const explanation explanations[] = {
    { KIND_output_not_written, output_not_written, NULL, ALL_CLASSES, false,
      "the returned element still holds the canary the output was filled with: it was never written" },
    { KIND_padding_selected, padding_selected, padding_zero_possible, CASE_CLASS_NAN, false,
      "the returned value is a zero from the padding (no real element of the window holds it, or "
      "its index names none), and a zero beats the expected value: zero padding won (SEMANTICS D7)" },
    { KIND_extreme_not_selectable, extreme_not_selectable, NULL, 0, false,
      "the answer is the type's extreme (SEMANTICS D5), and the returned value is a seed no element "
      "holds or the index was never set: a running extreme seeded with -FLT_MAX or the type's limit" },
    { KIND_index_out_of_window, index_out_of_window, value_from_outside_window, ALL_CLASSES, false,
      "the returned index names no element of the reduction or window (a window wholly in "
      "padding has none: SEMANTICS D7)" },
    { KIND_narrowed_integer, narrowed_integer, NULL, 0, false,
      "the returned element wins when the values are compared truncated to 32 bits or with the "
      "sign read the other way" },
    { KIND_nan_breaks_order, nan_breaks_order, NULL, CASE_CLASS_NAN, false,
      "a number of the window beats the returned number: no NaN policy allows that (SEMANTICS D4)" },
    { KIND_value_not_in_window, value_not_in_window, NULL, CASE_CLASS_NAN, false,
      "no element of the window holds the returned value" },
    { KIND_nan_handling, nan_decided, NULL, 0, true,
      "a NaN decided this answer (SEMANTICS D4)" },
    { KIND_signed_zero_tie, signed_zero_tie, NULL, 0, false,
      "+0 and -0 tie; the other zero was returned (SEMANTICS D3)" },
    { KIND_tie_other_way, tie_other_way, NULL, 0, false,
      "the two input values are equal: a tie-rule difference (SEMANTICS D3)" },
    { KIND_wrong_index, index_disagrees_with_value, NULL, CASE_CLASS_NAN, false,
      "the returned index names a window element that does not hold the returned value" },
};

/* The kind of a differing element and whether its classes excuse it (SEMANTICS "Classes").
 * An element its classes would excuse fails when a row's evidence survives them; the first
 * row that holds names it, unless that row is only the excuse. */
static bool explain_element(const dml_case *c, const element_case *e, const judge_rules *rules,
                            judgement *j)
{
    bool excusable = !rules->strict && e->classes, judged = !excusable;
    const explanation *named = NULL, *first_not_excuse = NULL;
    uint32_t held = 0;
    for (size_t i = 0; i < sizeof explanations / sizeof explanations[0]; i++) {
        const explanation *x = &explanations[i];
        if (!x->detect(c, e)) {
            held |= x->consistent && x->consistent(c, e) ? 1u << x->kind : 0;
            continue;
        }
        judged |= !(e->classes & ~x->judged_in);
        named = named ? named : x;
        first_not_excuse = first_not_excuse || x->excuse ? first_not_excuse : x;
        held |= x->excuse ? 0 : 1u << x->kind;
    }
    /* Strict mode judges the excuse itself: it still names the element then. */
    const explanation *x = excusable && judged && named && named->excuse ? first_not_excuse : named;
    j->also_kinds = x ? held & ~(1u << x->kind) : 0;
    j->why = x ? x->why : NULL;
    j->kind = x ? x->kind /* no root cause shows: the generic kinds */
        : values_output(c) && e->output_differs && !e->w.got_value_held ? KIND_value_bits_differ
                                                                        : KIND_wrong_index;
    return judged;
}

/* Reads the element's raw bits on every side and whether it differs. */
static bool load_element(const dml_case *c, const case_outputs *exp, const case_outputs *got,
                         uint64_t i, element_case *e)
{
    memset(e, 0, sizeof *e);
    e->logical = i;
    e->exp_out = element_bits(exp->output, &c->output, i);
    e->got_out = element_bits(got->output, &c->output, i);
    e->output_differs = !compare_bits_equal(c->output.type, e->exp_out, e->got_out);
    if (c->indices.present) {
        e->exp_idx = element_bits(exp->indices, &c->indices, i);
        e->got_idx = element_bits(got->indices, &c->indices, i);
        e->indices_differs = !compare_bits_equal(c->indices.type, e->exp_idx, e->got_idx);
    }
    return e->output_differs || e->indices_differs;
}

/* True when got equals the flushed-input answer at element i. */
static bool matches(const dml_case *c, const case_outputs *ref, const element_case *e, bool got_side)
{
    uint64_t out = element_bits(ref->output, &c->output, e->logical);
    if (!compare_bits_equal(c->output.type, out, got_side ? e->got_out : e->exp_out))
        return false;
    if (!c->indices.present)
        return true;
    uint64_t idx = element_bits(ref->indices, &c->indices, e->logical);
    return compare_bits_equal(c->indices.type, idx, got_side ? e->got_idx : e->exp_idx);
}

/* SEMANTICS D6: the element is class denormal when flushing changes its answer (cheap). */
static void element_denormal_class(const dml_case *c, const case_outputs *flushed, element_case *e)
{
    if (flushed && !matches(c, flushed, e, false))
        e->classes |= CASE_CLASS_DENORMAL;
}

static void record_first(const dml_case *c, const element_case *e, judgement *j)
{
    j->has_first = true;
    mismatch *m = &j->first;
    bool on_output = e->output_differs;
    m->tensor = on_output ? "output" : "indices";
    m->logical_index = e->logical;
    m->rank = c->output.rank;
    memcpy(m->coords, e->coords, sizeof m->coords);
    m->expected_bits = on_output ? e->exp_out : e->exp_idx;
    m->got_bits = on_output ? e->got_out : e->got_idx;
}

void judge_outputs(const dml_case *c, const case_outputs *expected, const case_outputs *flushed,
                   const case_outputs *got, const judge_rules *rules, judgement *j)
{
    memset(j, 0, sizeof *j);
    /* Fast path: identical buffers have identical logical elements (both sides start from
     * the same canary fill, so bytes outside the elements agree unless a side wrote them). */
    bool same_bytes = !memcmp(expected->output, got->output, expected->output_bytes)
        && (!c->indices.present || !memcmp(expected->indices, got->indices, expected->indices_bytes));
    if (same_bytes || compare_outputs(c, expected, got, NULL)) {
        j->verdict = VERDICT_PASS;
        return;
    }
    bool judged_seen = false, unjudged_seen = false;
    unsigned classes_seen = 0;
    uint64_t n = case_tensor_elements(&c->output);
    for (uint64_t i = 0; i < n; i++) {
        element_case e;
        if (!load_element(c, expected, got, i, &e))
            continue;
        element_denormal_class(c, flushed, &e);
        /* SEMANTICS D6: a device that may flush fp32 denormals passes the flushed answer. */
        if (!rules->strict && rules->device_flushes && (e.classes & CASE_CLASS_DENORMAL)
            && matches(c, flushed, &e, true))
            continue;
        j->count += e.output_differs + e.indices_differs;
        if (judged_seen) /* the verdict and the reported element are settled: only count */
            continue;
        /* Every unsettled element is explained: its evidence may fail it whatever its class. */
        judgement tmp = *j;
        gather_facts(c, &e, &tmp);
        bool judged = explain_element(c, &e, rules, &tmp);
        classes_seen |= e.classes;
        if (unjudged_seen && !judged)
            continue;
        record_first(c, &e, &tmp);
        *j = tmp;
        judged_seen |= judged;
        unjudged_seen |= !judged;
    }
    j->first.count = j->count;
    j->classes = classes_seen;
    j->verdict = judged_seen ? VERDICT_FAIL : unjudged_seen ? VERDICT_UNSPECIFIED : VERDICT_PASS;
    if (j->verdict == VERDICT_PASS)
        j->kind = KIND_NONE;
}

void judge_status(run_status status, mismatch_kind crash_or_hang, judgement *j)
{
    memset(j, 0, sizeof *j);
    j->verdict = VERDICT_FAIL;
    if (crash_or_hang != KIND_NONE) {
        j->kind = crash_or_hang;
        return;
    }
    switch (status) {
    case RUN_OK: j->verdict = VERDICT_PASS; break;
    case RUN_UNSUPPORTED: j->verdict = VERDICT_SKIP; break;
    case RUN_BACKEND_ERROR: j->kind = KIND_backend_error; break;
#define X(finding, status) case RUN_##status: j->kind = KIND_##finding; break;
    RUN_FINDINGS(X)
#undef X
    /* The harness sends only descriptors DirectML accepts at the case's level. */
    case RUN_REJECTED: j->kind = KIND_rejected_valid; break;
    /* Unsupported within what the backend claims: not a wrong answer, but it blocks
     * conformance at that level, so it fails (issue 10: a backend that skips every rank-8
     * case must not pass). */
    case RUN_UNSUPPORTED_CLAIMED: j->kind = KIND_unsupported_required; break;
    case RUN_CRASHED: j->kind = KIND_crash; break;
    case RUN_HUNG: j->kind = KIND_hang; break;
    }
}

typedef struct window_list {
    picked_input *items;
    unsigned max, count;
} window_list;

static bool visit_list(const dml_case *c, const uint32_t *in, void *ctx)
{
    window_list *l = ctx;
    if (l->count < l->max)
        l->items[l->count] = (picked_input){ .valid = true, .logical = op_logical_of_coords(&c->input, in),
                                             .bits = input_bits_at(c, in) };
    l->count++;
    return false;
}

unsigned classify_window(const dml_case *c, uint64_t out_logical, picked_input *items, unsigned max,
                         bool *has_padding)
{
    uint32_t out[DML_MAX_RANK];
    decider_facts f;
    window_list l = { items, max, 0 };
    output_coords(c, out_logical, out);
    case_module(c)->visit_deciders(c, out, visit_list, &l, &f);
    *has_padding = f.has_padding;
    return l.count;
}
