/*
 * causes/axes.c: root causes of ARGMIN/ARGMAX over several axes (SEMANTICS D2: the index is
 * the row-major position with the reduced axes in ascending order, however Axes lists them).
 * Both read the reduction in another order; the prediction renumbers the dimensions so the
 * spec's ascending walk of the renumbered case is the implementation's walk of the probe.
 */
#include <string.h>

#include "cause.h"
#include "probe.h"

static bool several_axes(const dml_case *c)
{
    return c->axis_count >= 2;
}

/* The reduced axes in ascending order; returns how many. */
static unsigned ascending_axes(const dml_case *c, unsigned *sorted)
{
    bool reduced[DML_MAX_RANK] = { false };
    unsigned n = 0;
    for (unsigned i = 0; i < c->axis_count; i++)
        reduced[c->axes[i]] = true;
    for (unsigned d = 0; d < c->input.rank; d++)
        if (reduced[d])
            sorted[n++] = d;
    return n;
}

/* t with its dimensions renumbered (new d is old old_of_new[d]), strides explicit and the
 * buffer size kept, so every logical element keeps its address. */
static void permute_tensor(const case_tensor *from, const unsigned *old_of_new, case_tensor *to)
{
    tensor_view view;
    case_tensor_view(from, &view);
    UINT sizes[DML_MAX_RANK], strides[DML_MAX_RANK];
    for (unsigned d = 0; d < from->rank; d++) {
        sizes[d] = from->sizes[old_of_new[d]];
        strides[d] = (UINT)view.strides[old_of_new[d]];
    }
    UINT64 bytes = case_tensor_bytes(from);
    case_tensor_set(to, from->type, from->rank, sizes, strides);
    to->has_total_bytes = true;
    to->total_bytes = bytes;
}

/* seen: probe with the reduced dimensions renumbered so that new reduced position
 * sorted[i] holds old dimension walk[i]; the reduced set of positions stays the same. */
static bool renumber_reduced(const dml_case *probe, const unsigned *walk, dml_case *seen)
{
    unsigned sorted[DML_MAX_RANK], old_of_new[DML_MAX_RANK];
    unsigned n = ascending_axes(probe, sorted);
    for (unsigned d = 0; d < probe->input.rank; d++)
        old_of_new[d] = d;
    for (unsigned i = 0; i < n; i++)
        old_of_new[sorted[i]] = walk[i];
    permute_tensor(&probe->input, old_of_new, &seen->input);
    permute_tensor(&probe->output, old_of_new, &seen->output);
    case_link(seen);
    return true;
}

/* Four dimensions, three reduced, one kept (two answers per probe), listed as `axes`. */
static bool four_dims_listed(dml_case *probe, const UINT *axes)
{
    static const UINT sizes[] = { 2, 3, 2, 4 };
    probe->input.rank = 4;
    probe->axis_count = 3;
    memcpy(probe->axes, axes, 3 * sizeof(UINT));
    return probe_resize(probe, sizes);
}

/* ---- axes_in_listed_order ----------------------------------------------------------- */

/* The walk in Axes' order: the last listed axis counts fastest. */
static bool listed_order(const dml_case *probe, dml_case *seen)
{
    unsigned walk[DML_MAX_RANK];
    for (unsigned i = 0; i < probe->axis_count; i++)
        walk[i] = probe->axes[i];
    return renumber_reduced(probe, walk, seen);
}

/* Listed neither ascending nor descending, so this cause and the column-major one part. */
static bool shuffled_axes(dml_case *probe)
{
    static const UINT axes[] = { 3, 1, 2 };
    return four_dims_listed(probe, axes);
}

const cause cause_axes_in_listed_order = {
    .id = "axes_in_listed_order",
    .sentence = "Several reduced axes are walked in the order Axes lists them, not ascending: "
                "the index counts another row-major order and ties break in it (D2, WebNN #629)",
    .families = CAUSE_ARG_REDUCE,
    .applies = several_axes,
    .variant = { .reshape = listed_order },
    .plan = { .shape = shuffled_axes, .fill = probe_fill_distinct },
};

/* ---- reduced_index_column_major ----------------------------------------------------- */

/* The walk with the first reduced axis fastest. */
static bool column_major(const dml_case *probe, dml_case *seen)
{
    unsigned sorted[DML_MAX_RANK], walk[DML_MAX_RANK];
    unsigned n = ascending_axes(probe, sorted);
    for (unsigned i = 0; i < n; i++)
        walk[i] = sorted[n - 1 - i];
    return renumber_reduced(probe, walk, seen);
}

/* Listed ascending: the listed order is the spec's, so only column-major parts from it. */
static bool ascending_listed_axes(dml_case *probe)
{
    static const UINT axes[] = { 1, 2, 3 };
    return four_dims_listed(probe, axes);
}

const cause cause_reduced_index_column_major = {
    .id = "reduced_index_column_major",
    .sentence = "The reduced sub-tensor is counted column-major (its first axis fastest), so "
                "the index and the tie order are another position than D2's row-major one",
    .families = CAUSE_ARG_REDUCE,
    .applies = several_axes,
    .variant = { .reshape = column_major },
    .plan = { .shape = ascending_listed_axes, .fill = probe_fill_distinct },
};
