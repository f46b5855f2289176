/*
 * causes/order.c: root causes in how values are compared (SEMANTICS D3-D5): which equal
 * element wins, whether -0 ties +0, how float bits are ordered, where the running best
 * starts, what a NaN does to a plain `>`.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cause.h"
#include "dtype.h"
#include "op_module.h"
#include "probe.h"

static bool float_input(const dml_case *c)
{
    return dtype_is_float(c->input.type);
}

/* Pooling probes without padding (each input axis at least the dilated window): a seeded
 * best then parts from padding read as a value, which a seed otherwise resembles in every
 * window that reaches into padding.  ARGMIN/ARGMAX probes keep their shape. */
static bool without_padding(dml_case *probe)
{
    if (case_module(probe)->output_is_index)
        return true;
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    for (unsigned s = 0; s < probe->spatial_count; s++) {
        UINT dilated = (probe->window[s] - 1) * probe->dilations[s] + 1;
        unsigned d = probe->input.rank - probe->spatial_count + s;
        probe->start_padding[s] = probe->end_padding[s] = 0;
        sizes[d] = sizes[d] > dilated ? sizes[d] : dilated;
    }
    return probe_resize(probe, sizes);
}

/* ---- tie_direction_flipped ---------------------------------------------------------- */

/* A larger key, or an equal one where the spec keeps the running best. */
static bool tie_flipped_replaces(const scan_env *e, const scan_item *cand, const scan_item *best)
{
    return cand->key > best->key || (cand->key == best->key && !e->decreasing);
}

/* Few distinct values: most rows and windows hold several equal extremes. */
static void fill_ties(prng *p, dml_case *probe)
{
    static const double pool[] = { 3, 3, 1, 2 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_tie_direction_flipped = {
    .id = "tie_direction_flipped",
    .sentence = "Equal extremes go to the wrong end: the last equal element wins where the spec "
                "wants the first (INCREASING, pooling), the first where it wants the last "
                "(DECREASING) (D3)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .variant = { .replaces = tie_flipped_replaces },
    /* Equal values look alike: a pooling probe asks for the indices (a case without them
     * fails only on a tie of +0 and -0, which fill_ties never plants). */
    .plan = { .indices = PROBE_INDICES_ADD, .fill = fill_ties },
};

/* ---- signed_zero_not_tied ----------------------------------------------------------- */

/* -0 just below +0 and above every negative number: the spec's keys doubled, -0 one less. */
static int64_t signed_zero_key(const scan_env *e, uint64_t bits, bool *is_nan)
{
    int64_t key = scan_spec_number_key(e, bits, is_nan);
    unsigned sign = dtype_size(e->seen->input.type) * 8 - 1;
    bool negative_zero = key == 0 && ((bits >> sign) & 1);
    return key * 2 - negative_zero;
}

/* The extremes are zeros of both signs, the rest lose; the pool's order makes rows of -0
 * and negatives alone (float_compared_as_int_bits picks the negative there: ARGMAX), rows
 * of both zeros (this cause and the spec part) and rows with a winning 1 (ARGMIN: -1, which
 * float_compared_as_int_bits loses to -0). */
static void fill_signed_zeros(prng *p, dml_case *probe)
{
    static const double pool[] = { -0.0, -1, 0.0, -2, 1 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_signed_zero_not_tied = {
    .id = "signed_zero_not_tied",
    .sentence = "-0 and +0 are compared as different numbers (-0 the smaller), so they do not "
                "tie as D3 says",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = float_input,
    .variant = { .number_key = signed_zero_key },
    .plan = { .fill = fill_signed_zeros },
};

/* ---- float_compared_as_int_bits ----------------------------------------------------- */

/* The raw bits read as a signed integer of the type's width: negative floats in reverse
 * order, -0 below them all, no NaN. */
static int64_t int_bits_key(const scan_env *e, uint64_t bits, bool *is_nan)
{
    unsigned width = dtype_size(e->seen->input.type) * 8;
    *is_nan = false;
    return width == 64 ? (int64_t)bits : (int64_t)(bits << (64 - width)) >> (64 - width);
}

static void fill_mixed_signs(prng *p, dml_case *probe)
{
    static const double pool[] = { -3, -0.5, -2, -1, 0.5, 1 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_float_compared_as_int_bits = {
    .id = "float_compared_as_int_bits",
    .sentence = "Floats are compared by their bit patterns read as signed integers: negative "
                "numbers order backwards (-2 beats -1) and -0 is below them all",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = float_input,
    .variant = { .number_key = int_bits_key },
    .plan = { .fill = fill_mixed_signs },
};

/* ---- best_seeded_with_lowest_finite ------------------------------------------------- */

/* A running best that starts at the lowest finite value (ARGMIN: the largest) with its
 * index unset: position 0 for ARGMIN/ARGMAX (an index must name an element), none (all ones,
 * what D7 writes for no element) for pooling.  An infinity at the losing end never beats it
 * (D5), nor does an element equal to it under INCREASING, and a window without candidates
 * returns it. */
static bool lowest_finite_seed(const scan_env *e, const scan_item *first, scan_item *best)
{
    DML_TENSOR_DATA_TYPE t = e->seen->input.type;
    *best = (scan_item){ .index = e->pooling || !first ? UINT64_MAX : first->index };
    best->bits = probe_value_bits(t, e->minimize ? DBL_MAX : -DBL_MAX);
    best->key = scan_final_key(e, scan_spec_number_key(e, best->bits, &best->is_nan), false);
    return true;
}

/* Rows and windows whose extreme is the losing infinity, next to ones it is not. */
static void fill_losing_infinities(prng *p, dml_case *probe)
{
    static const double pool[] = { -INFINITY, -DBL_MAX, -INFINITY, -1 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_best_seeded_with_lowest_finite = {
    .id = "best_seeded_with_lowest_finite",
    .sentence = "The running best starts at the lowest finite value (-FLT_MAX; ARGMIN: FLT_MAX) "
                "with an unset index instead of at the first element, so a losing infinity can "
                "never be selected (D5)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = float_input,
    .variant = { .seed = lowest_finite_seed },
    .plan = { .shape = without_padding, .fill = fill_losing_infinities },
};

/* ---- nan_first_sticky --------------------------------------------------------------- */

/* The fingerprint's scan order (SEMANTICS): DECREASING scans backwards. */
static bool scan_direction_order(const scan_env *e)
{
    return e->decreasing;
}

/* A plain `>` (ARGMIN `<`): false whenever a NaN is on either side. */
static bool plain_greater(const scan_env *e, const scan_item *cand, const scan_item *best)
{
    (void)e;
    return !cand->is_nan && !best->is_nan && cand->key > best->key;
}

static bool nan_policy_has_nan(const dml_case *c)
{
    return float_input(c);
}

/* NaNs of both signs: a NaN with its sign bit set loses to every number when bits are
 * compared as integers, so these probes part this cause from float_compared_as_int_bits. */
static void fill_some_nans(prng *p, dml_case *probe)
{
    static const double pool[] = { NAN, -NAN, 1, 2, 3 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_nan_first_sticky = {
    .id = "nan_first_sticky",
    .sentence = "The running best starts at the scan's first element and a plain `>` replaces "
                "it: a NaN met first is never replaced and a later NaN never wins "
                "(NaN policy first-sticky, D4)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = nan_policy_has_nan,
    .nan_policy = true,
    .variant = { .backwards = scan_direction_order, .replaces = plain_greater },
    .plan = { .fill = fill_some_nans },
};

/* ---- best_seeded_with_zero ---------------------------------------------------------- */

/* A running best that starts at the value 0 with its index unset (as the lowest finite seed
 * above): a row or window whose best is below 0 (ARGMIN: above it) returns the seed. */
static bool zero_seed(const scan_env *e, const scan_item *first, scan_item *best)
{
    *best = (scan_item){ .index = e->pooling || !first ? UINT64_MAX : first->index };
    best->key = scan_final_key(e, scan_spec_number_key(e, 0, &best->is_nan), false);
    return true;
}

/* Rows and windows wholly on the losing side of 0 next to ones that are not; unsigned types
 * have no losing side for ARGMAX, so their values stand above 0 as they are (ARGMIN). */
static void fill_losing_side_of_zero(prng *p, dml_case *probe)
{
    static const double signed_pool[] = { -3, -1, -2, 1, -5 }, unsigned_pool[] = { 5, 3, 7, 2, 0 };
    if (dtype_get(probe->input.type)->kind == DTYPE_KIND_UNSIGNED)
        probe_fill_values(p, probe, unsigned_pool, sizeof unsigned_pool / sizeof unsigned_pool[0]);
    else
        probe_fill_pool(p, probe, signed_pool, sizeof signed_pool / sizeof signed_pool[0]);
}

/* Pooling of an unsigned type starts from 0 as its lowest value: best_seeded_with_type_min
 * names that bug there (the two predict the same answer on every such probe). */
static bool not_unsigned_pooling(const dml_case *c)
{
    return case_module(c)->output_is_index || dtype_get(c->input.type)->kind != DTYPE_KIND_UNSIGNED;
}

const cause cause_best_seeded_with_zero = {
    .id = "best_seeded_with_zero",
    .sentence = "The running best starts at 0 with an unset index instead of at the first "
                "element, so rows of negative numbers (ARGMIN: positive) return the unset index "
                "and pooling returns 0 (pooling of an unsigned type: named "
                "best_seeded_with_type_min, 0 being its lowest value)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = not_unsigned_pooling,
    .named_instead_by = "best_seeded_with_type_min",
    .variant = { .seed = zero_seed },
    .plan = { .shape = without_padding, .fill = fill_losing_side_of_zero },
};

/* ---- best_seeded_with_type_min ------------------------------------------------------ */

/* A running best that starts at the type's lowest value (-inf, the minimum integer) with no
 * index: a window whose best is that value returns the seed's index (all ones).  On
 * ARGMIN/ARGMAX an unset index 0 is the first element's: no answer shows it there. */
static bool type_min_seed(const scan_env *e, const scan_item *first, scan_item *best)
{
    (void)first;
    *best = (scan_item){ .index = UINT64_MAX, .bits = dtype_lowest_bits(e->seen->input.type) };
    best->key = scan_final_key(e, scan_spec_number_key(e, best->bits, &best->is_nan), false);
    return true;
}

/* Windows of the lowest value (and NaNs, which never beat it) next to ones with -1. */
static void fill_type_min(prng *p, dml_case *probe)
{
    static const double pool[] = { -INFINITY, NAN, -1, -INFINITY };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_best_seeded_with_type_min = {
    .id = "best_seeded_with_type_min",
    .sentence = "The pooling running best starts at the type's lowest value (-inf, the minimum "
                "integer; on an unsigned type 0, where this is also a best seeded with 0) with no "
                "index, so a window whose maximum is that value (or holds only NaNs) returns the "
                "seed's index, all ones, instead of its first element's",
    .families = CAUSE_POOLING,
    .variant = { .seed = type_min_seed },
    .plan = { .indices = PROBE_INDICES_ADD, .shape = without_padding, .fill = fill_type_min },
};
