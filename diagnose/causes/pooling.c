/*
 * causes/pooling.c: root causes in pooling windows and indices (SEMANTICS D7: padding never
 * wins; D8: dilated windows; indices are flat logical indices over the whole input).
 */
#include <math.h>
#include <string.h>

#include "cause.h"
#include "dtype.h"
#include "op_module.h"
#include "probe.h"

/* ---- padding_as_zero_value ---------------------------------------------------------- */

/* Whether some window reaches padding: explicit, or past the end of an axis whose output
 * count is the ceil size (D8), where an implementation that reads padding as a value reads
 * that overhang the same way. */
static bool has_padding(const dml_case *c)
{
    for (unsigned s = 0; s < c->spatial_count; s++) {
        unsigned d = c->input.rank - c->spatial_count + s;
        uint64_t reach = (uint64_t)(c->output.sizes[d] - 1) * c->pool_strides[s]
                         + (uint64_t)(c->window[s] - 1) * c->dilations[s] + 1;
        if (c->start_padding[s] || c->end_padding[s] || reach > c->input.sizes[d])
            return true;
    }
    return false;
}

/* Each spatial axis long enough for windows wholly inside the input next to those that reach
 * into padding: there a padding value is no candidate while a seeded best still is, so the
 * padding causes part from the seed causes, which resemble them in windows with padding.
 * A padded axis's window reaches past its padding, so windows mix padding and elements: only
 * those are evidence (diagnose.c), and a window of 1 next to padding of 1 never mixes. */
static bool windows_inside_too(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    sizes[0] = sizes[1] = 1; /* N = C = 1: the budget goes to the planes, which shrinking keeps */
    for (unsigned s = 0; s < probe->spatial_count; s++) {
        UINT pad = probe->start_padding[s] > probe->end_padding[s] ? probe->start_padding[s]
                                                                   : probe->end_padding[s];
        UINT reaching = (pad + probe->dilations[s] - 1) / probe->dilations[s] + 1;
        if (pad && probe->window[s] < reaching)
            probe->window[s] = reaching;
    }
    for (unsigned s = 0; s < probe->spatial_count; s++) {
        UINT dilated = (probe->window[s] - 1) * probe->dilations[s] + 1;
        UINT want = probe->start_padding[s] + dilated * 2;
        unsigned d = probe->input.rank - probe->spatial_count + s;
        sizes[d] = sizes[d] > want ? sizes[d] : want;
    }
    return probe_resize(probe, sizes);
}

/* A padding value that only ties the window's elements (0 on an unsigned type, the minimum
 * of a signed one) shows in the index alone: the probe asks for the indices, and a padding
 * winner (met before an equal element) is predicted to write all ones, D7's index of no
 * element (an implementation writing another index there stays unconfirmed: explained means
 * bit-exact). */
static bool windows_inside_too_indexed(dml_case *probe)
{
    case_tensor_set(&probe->indices, DML_TENSOR_DATA_TYPE_UINT32, probe->output.rank,
                    probe->output.sizes, NULL);
    return windows_inside_too(probe);
}

/* Floats and signed integers: an unsigned type's lowest value is 0, where padding read as 0
 * and as the lowest value predict the same answer on every probe; padding_as_lowest_value
 * names that bug there. */
static bool signed_with_padding(const dml_case *c)
{
    return dtype_get(c->input.type)->kind != DTYPE_KIND_UNSIGNED && has_padding(c);
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
                "window's negative elements (D7: padding never wins; on an unsigned type, whose "
                "lowest value is 0, this bug is named padding_as_lowest_value)",
    .families = CAUSE_POOLING,
    .applies = signed_with_padding,
    .named_instead_by = "padding_as_lowest_value",
    .variant = { .padding_bits = zero_padding },
    /* The index written for a padding winner is the implementation's own: ask values only. */
    .plan = { .indices = PROBE_INDICES_DROP, .shape = windows_inside_too, .fill = fill_mostly_negative },
};

/* ---- dilation_ignored --------------------------------------------------------------- */

static unsigned last_axis(const dml_case *c)
{
    return c->spatial_count - 1;
}

/* Every spatial axis but the last dilated (2 where it was 1), its window at least 2 wide (a
 * dilation does nothing to a window of 1), and every axis's input grown to hold its dilated
 * window (a last axis of 1 element under a window of 4 reads padding either way), so
 * dilation_ignored and dilation_ignored_last_axis predict different windows. */
static bool all_axes_dilated(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    for (unsigned s = 0; s <= last_axis(probe); s++) {
        if (s < last_axis(probe)) {
            probe->dilations[s] = probe->dilations[s] > 1 ? probe->dilations[s] : 2;
            probe->window[s] = probe->window[s] > 1 ? probe->window[s] : 2;
        }
        UINT dilated = (probe->window[s] - 1) * probe->dilations[s] + 1;
        sizes[2 + s] = sizes[2 + s] > dilated ? sizes[2 + s] : dilated;
    }
    return probe_resize(probe, sizes);
}


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
    .plan = { .shape = all_axes_dilated, .fill = probe_fill_distinct },
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

/* At least three channels, so most winners lie past the first plane, and planes larger than
 * a window, so an index within the plane is not one within the window
 * (pool_index_within_window). */
static bool two_channels(dml_case *probe)
{
    if (!windows_inside_too(probe))
        return false;
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof(UINT) * probe->input.rank);
    sizes[1] = 3;
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

/* ---- pool_index_within_window ------------------------------------------------------- */

static uint64_t window_position_index(const scan_env *e, const scan_item *winner)
{
    (void)e;
    return winner->tap;
}

const cause cause_pool_index_within_window = {
    .id = "pool_index_within_window",
    .sentence = "Pooling indices are the winner's position within its window (row-major over "
                "WindowSize), not its flat index over the whole input",
    .families = CAUSE_POOLING,
    .variant = { .index_of = window_position_index },
    /* Planes larger than a window: else the position in the window is the one in the plane. */
    .plan = { .indices = PROBE_INDICES_ADD, .shape = windows_inside_too, .fill = probe_fill_distinct },
};

/* ---- pool_index_from_output_strides ------------------------------------------------- */

/* The winner's input coordinates flattened with the output tensor's strides. */
static uint64_t output_strides_index(const scan_env *e, const scan_item *winner)
{
    return scan_strided_offset(&e->seen->output, winner->in);
}

const cause cause_pool_index_from_output_strides = {
    .id = "pool_index_from_output_strides",
    .sentence = "Pooling indices flatten the winner's input coordinates with the output "
                "tensor's strides (its sizes) instead of the input's sizes",
    .families = CAUSE_POOLING,
    .variant = { .index_of = output_strides_index },
    .plan = { .indices = PROBE_INDICES_ADD, .fill = probe_fill_distinct },
};

/* ---- padding_as_lowest_value -------------------------------------------------------- */

static bool lowest_padding(const scan_env *e, uint64_t *bits)
{
    *bits = dtype_lowest_bits(e->seen->input.type);
    return true;
}

/* windows_inside_too; an integer's lowest value ties at most (windows_inside_too_indexed). */
static bool lowest_padding_shape(dml_case *probe)
{
    return dtype_is_float(probe->input.type) ? windows_inside_too(probe) : windows_inside_too_indexed(probe);
}

/* NaNs, which the padding's -inf beats under `ignore`, among -inf and numbers.  Integers:
 * windows of the lowest value alone (padding met first wins their tie) next to others. */
static void fill_nans_and_lowest(prng *p, dml_case *probe)
{
    static const double float_pool[] = { NAN, -INFINITY, -NAN, -1, 2 };
    static const double int_pool[] = { -INFINITY, -INFINITY, -1, 2 };
    if (dtype_is_float(probe->input.type))
        probe_fill_pool(p, probe, float_pool, sizeof float_pool / sizeof float_pool[0]);
    else
        probe_fill_pool(p, probe, int_pool, sizeof int_pool / sizeof int_pool[0]);
}

const cause cause_padding_as_lowest_value = {
    .id = "padding_as_lowest_value",
    .sentence = "Padding positions are read as the type's lowest value (-inf, the minimum "
                "integer, an unsigned type's 0) and compete, so a window of NaNs next to padding "
                "returns -inf and a window whose elements all hold an integer's lowest value "
                "returns the padding's index (D7: padding is no element)",
    .families = CAUSE_POOLING,
    .applies = has_padding,
    .variant = { .padding_bits = lowest_padding },
    /* A float padding winner's index is the implementation's own: ask values only. */
    .plan = { .indices = PROBE_INDICES_DROP, .shape = lowest_padding_shape, .fill = fill_nans_and_lowest },
};

/* ---- dilation_ignored_last_axis, window_stride_ignored_last_axis -------------------- */

static bool last_axis_dilated(const dml_case *c)
{
    return c->dilations[last_axis(c)] > 1;
}

static bool last_axis_undilated(const dml_case *probe, dml_case *seen)
{
    (void)probe;
    seen->dilations[last_axis(seen)] = 1;
    case_link(seen);
    return true;
}

const cause cause_dilation_ignored_last_axis = {
    .id = "dilation_ignored_last_axis",
    .sentence = "The last spatial axis's dilation is ignored (the other axes' are not): windows "
                "read adjacent columns while the output size counts the dilated window (D8)",
    .families = CAUSE_POOLING,
    .applies = last_axis_dilated,
    .variant = { .reshape = last_axis_undilated },
    .plan = { .shape = all_axes_dilated, .fill = probe_fill_distinct },
};

static bool last_axis_strided(const dml_case *c)
{
    return c->pool_strides[last_axis(c)] > 1;
}

static bool last_axis_unstrided(const dml_case *probe, dml_case *seen)
{
    (void)probe;
    seen->pool_strides[last_axis(seen)] = 1;
    case_link(seen);
    return true;
}

const cause cause_window_stride_ignored_last_axis = {
    .id = "window_stride_ignored_last_axis",
    .sentence = "The last spatial axis's window stride is ignored: windows step one column at a "
                "time while the output size counts the stride",
    .families = CAUSE_POOLING,
    .applies = last_axis_strided,
    .variant = { .reshape = last_axis_unstrided },
    .plan = { .fill = probe_fill_distinct },
};

/* ---- ceil_output_never_written ------------------------------------------------------ */

/* Whether output coordinates `out` lie inside the floor-sized output (D8) on every axis. */
static bool inside_floor_output(const dml_case *c, const uint32_t *out)
{
    UINT rank, floor_sizes[DML_MAX_RANK];
    if (!case_module(c)->output_sizes(c, false, &rank, floor_sizes))
        return true;
    for (unsigned d = 0; d < rank; d++)
        if (out[d] >= floor_sizes[d])
            return false;
    return true;
}

static bool floor_output_written(const scan_env *e, uint64_t logical, const uint32_t *out)
{
    (void)logical;
    return inside_floor_output(e->seen, out);
}

static bool ceil_sized(const dml_case *c)
{
    UINT rank, floor_sizes[DML_MAX_RANK];
    if (!case_module(c)->output_sizes(c, false, &rank, floor_sizes))
        return false;
    for (unsigned d = 0; d < rank; d++)
        if (c->output.sizes[d] > floor_sizes[d])
            return true;
    return false;
}

/* Whether the probe with its axis s of size n has a ceil-sized output there. */
static bool ceil_allowed(dml_case *probe, UINT *sizes, unsigned s, UINT n)
{
    UINT rank, floor_sizes[DML_MAX_RANK], ceil_sizes[DML_MAX_RANK];
    sizes[2 + s] = n;
    if (!probe_resize(probe, sizes))
        return false;
    return case_module(probe)->output_sizes(probe, false, &rank, floor_sizes)
           && case_module(probe)->output_sizes(probe, true, &rank, ceil_sizes)
           && ceil_sizes[2 + s] > floor_sizes[2 + s];
}

/* N = 1, at most 2 channels, each spatial axis the smallest size up to 48 that has a ceil
 * output (else the smallest valid), so probe_shape's ceil sizing adds outputs. */
static bool ceil_shape(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    bool some = false;
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    sizes[0] = 1;
    sizes[1] = sizes[1] < 2 ? sizes[1] : 2;
    for (unsigned s = 0; s < probe->spatial_count; s++) {
        UINT keep = sizes[2 + s], n = 1;
        while (n <= 48 && !ceil_allowed(probe, sizes, s, n))
            n++;
        some |= n <= 48;
        sizes[2 + s] = n <= 48 ? n : keep;
    }
    return some && probe_resize(probe, sizes);
}

const cause cause_ceil_output_never_written = {
    .id = "ceil_output_never_written",
    .sentence = "The ceil-sized output's last row or column (D8) is never written: the "
                "implementation counts its outputs with the floor formula",
    .families = CAUSE_POOLING,
    .applies = ceil_sized,
    .variant = { .written = floor_output_written },
    .plan = { .ceil_output = true, .shape = ceil_shape, .fill = probe_fill_distinct },
};
