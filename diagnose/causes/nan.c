/*
 * causes/nan.c: the NaN policies of the fingerprint (SEMANTICS "NaN-policy fingerprint",
 * reference/nan_policies.h) other than the run's, each a root cause of its own: a running
 * comparison written another way.  As the fingerprint reads them, DECREASING scans backwards
 * and the first of equal numbers met wins.  (first-sticky is nan_first_sticky, causes/order.c.)
 */
#include <math.h>

#include "cause.h"
#include "dtype.h"
#include "probe.h"

static bool float_input(const dml_case *c)
{
    return dtype_is_float(c->input.type);
}

/* The fingerprint's scan order: DECREASING scans the row backwards. */
static bool direction_order(const scan_env *e)
{
    return e->decreasing;
}

/* NaNs of both signs among numbers (a negative NaN parts these from
 * float_compared_as_int_bits, which reads it as a negative number). */
static void fill_nans(prng *p, dml_case *probe)
{
    static const double pool[] = { NAN, 1, -NAN, 2, 3 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

/* ---- nan_propagates_first ----------------------------------------------------------- */

/* `if (!isnan(best) && (isnan(v) || v > best))`: the first NaN stays. */
static bool first_nan_replaces(const scan_env *e, const scan_item *cand, const scan_item *best)
{
    (void)e;
    return !best->is_nan && (cand->is_nan || cand->key > best->key);
}

const cause cause_nan_propagates_first = {
    .id = "nan_propagates_first",
    .sentence = "A NaN beats every number and the first NaN met stays (NaN policy "
                "propagate-first, numpy's), where the run's policy says otherwise (D4)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = float_input,
    .nan_policy = true,
    .variant = { .backwards = direction_order, .replaces = first_nan_replaces },
    /* Pooling values compare NaNs by NaN-ness, so which NaN stays shows in indices only. */
    .plan = { .indices = PROBE_INDICES_ADD, .fill = fill_nans },
};

/* ---- nan_propagates_last ------------------------------------------------------------ */

/* `if (isnan(v) || v > best)`: every NaN replaces the best, numbers never replace a NaN. */
static bool last_nan_replaces(const scan_env *e, const scan_item *cand, const scan_item *best)
{
    (void)e;
    return cand->is_nan || (!best->is_nan && cand->key > best->key);
}

const cause cause_nan_propagates_last = {
    .id = "nan_propagates_last",
    .sentence = "A NaN beats every number and each later NaN replaces it: the last NaN wins "
                "(NaN policy propagate-last) (D4)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = float_input,
    .nan_policy = true,
    .variant = { .backwards = direction_order, .replaces = last_nan_replaces },
    /* Pooling values compare NaNs by NaN-ness, so which NaN stays shows in indices only. */
    .plan = { .indices = PROBE_INDICES_ADD, .fill = fill_nans },
};

/* ---- nan_restarts ------------------------------------------------------------------- */

/* `if (!(v <= best))`: true whenever a NaN is on either side. */
static bool restart_replaces(const scan_env *e, const scan_item *cand, const scan_item *best)
{
    (void)e;
    return cand->is_nan || best->is_nan || cand->key > best->key;
}

const cause cause_nan_restarts = {
    .id = "nan_restarts",
    .sentence = "The comparison `!(v <= best)` is true whenever a NaN is on either side: a NaN "
                "replaces the best and any number replaces a NaN, so the answer is the best "
                "number after the last NaN (NaN policy nan-restarts) (D4)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = float_input,
    .nan_policy = true,
    .variant = { .backwards = direction_order, .replaces = restart_replaces },
    .plan = { .fill = fill_nans },
};
