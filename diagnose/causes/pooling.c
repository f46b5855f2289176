/*
 * causes/pooling.c: root causes in pooling windows and indices (SEMANTICS D7: padding never
 * wins; D8: dilated windows; indices are flat logical indices over the whole input).
 */
#include <string.h>

#include "cause.h"
#include "probe.h"

/* ---- padding_as_zero_value ---------------------------------------------------------- */

static bool has_padding(const dml_case *c)
{
    for (unsigned s = 0; s < c->spatial_count; s++)
        if (c->start_padding[s] || c->end_padding[s])
            return true;
    return false;
}

static bool zero_padding(const scan_env *e, uint64_t *bits)
{
    (void)e;
    *bits = 0;
    return true;
}

/* Mostly negative values, so a zero in the padding beats many windows' elements. */
static void fill_mostly_negative(prng *p, dml_case *probe)
{
    static const double pool[] = { -3, -2, -1, 1 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_padding_as_zero_value = {
    .id = "padding_as_zero_value",
    .sentence = "Padding positions are read as the value 0 and compete, so a zero beats the "
                "window's negative elements (D7: padding never wins)",
    .families = CAUSE_POOLING,
    .applies = has_padding,
    .variant = { .padding_bits = zero_padding },
    /* The index written for a padding winner is the implementation's own: ask values only. */
    .plan = { .indices = PROBE_INDICES_DROP, .fill = fill_mostly_negative },
};

/* ---- dilation_ignored --------------------------------------------------------------- */

static bool dilated(const dml_case *c)
{
    for (unsigned s = 0; s < c->spatial_count; s++)
        if (c->dilations[s] > 1)
            return true;
    return false;
}

/* The same outputs, their windows taken as if every dilation were 1. */
static bool undilated(const dml_case *probe, dml_case *seen)
{
    (void)probe;
    for (unsigned s = 0; s < seen->spatial_count; s++)
        seen->dilations[s] = 1;
    case_link(seen);
    return true;
}

const cause cause_dilation_ignored = {
    .id = "dilation_ignored",
    .sentence = "Dilations are ignored: each window reads adjacent elements instead of every "
                "Dilations-th one, while the output size still counts the dilated window (D8)",
    .families = CAUSE_POOLING,
    .applies = dilated,
    .variant = { .reshape = undilated },
    .plan = { .fill = probe_fill_distinct },
};

/* ---- pool_index_within_plane -------------------------------------------------------- */

/* Elements of one N, C plane: the spatial sizes' product. */
static uint64_t plane_elements(const dml_case *c)
{
    uint64_t plane = 1;
    for (unsigned d = c->input.rank - c->spatial_count; d < c->input.rank; d++)
        plane *= c->input.sizes[d];
    return plane;
}

static uint64_t index_within_plane(const scan_env *e, const scan_item *winner)
{
    return winner->index % plane_elements(e->seen);
}

/* At least two channels, so most winners lie past the first plane. */
static bool two_channels(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof(UINT) * probe->input.rank);
    sizes[1] = sizes[1] < 3 ? 3 : sizes[1];
    return probe_resize(probe, sizes);
}

const cause cause_pool_index_within_plane = {
    .id = "pool_index_within_plane",
    .sentence = "Pooling indices count within the winner's N, C plane instead of over the "
                "whole input, N and C included",
    .families = CAUSE_POOLING,
    .variant = { .index_of = index_within_plane },
    .plan = { .indices = PROBE_INDICES_ADD, .shape = two_channels, .fill = probe_fill_distinct },
};

/* ---- pool_index_is_buffer_offset ---------------------------------------------------- */

static uint64_t buffer_offset_index(const scan_env *e, const scan_item *winner)
{
    return scan_strided_offset(&e->seen->input, winner->in);
}

const cause cause_pool_index_is_buffer_offset = {
    .id = "pool_index_is_buffer_offset",
    .sentence = "Pooling indices are the winner's element offset in the input buffer (through "
                "its Strides), not its logical row-major index (D1)",
    .families = CAUSE_POOLING,
    .variant = { .index_of = buffer_offset_index },
    .plan = { .input_layout = PROBE_STRIDED, .indices = PROBE_INDICES_ADD,
              .fill = probe_fill_distinct },
};
