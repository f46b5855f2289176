/*
 * causes/layout.c: root causes in where elements are read and written (SEMANTICS D1: strides
 * say where bytes live, never what anything means) and in how wide an index is held.
 */
#include <string.h>

#include "cause.h"
#include "dtype.h"
#include "op_module.h"
#include "probe.h"

/* ---- input_strides_ignored ---------------------------------------------------------- */

/* The logical element's packed position: the buffer read as if it had no strides. */
static uint64_t packed_input_offset(const scan_env *e, const uint32_t *in)
{
    return op_logical_of_coords(&e->seen->input, in);
}

const cause cause_input_strides_ignored = {
    .id = "input_strides_ignored",
    .sentence = "The input's Strides are ignored: its buffer is read as if it were packed "
                "row-major (D1)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .variant = { .input_offset = packed_input_offset },
    .plan = { .input_layout = PROBE_STRIDED, .fill = probe_fill_distinct },
};

/* ---- output_strides_ignored --------------------------------------------------------- */

static uint64_t packed_output_offset(const scan_env *e, const case_tensor *t, uint64_t logical)
{
    (void)e;
    (void)t;
    return logical;
}

const cause cause_output_strides_ignored = {
    .id = "output_strides_ignored",
    .sentence = "The output's Strides are ignored: results are written packed row-major, so "
                "elements land at other elements' addresses and some are never written (D1)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .variant = { .output_offset = packed_output_offset },
    .plan = { .output_layout = PROBE_STRIDED, .fill = probe_fill_distinct },
};

/* ---- index_narrowed_16 -------------------------------------------------------------- */

/* Past this many elements an index no longer fits 16 bits. */
#define INDEX16_LIMIT 65536u
/* Elements a probe of index_narrowed_16 reaches: past the limit by a few rows' worth. */
#define INDEX16_PROBE (INDEX16_LIMIT + 300u)

/* Every index written, all ones for a window wholly in padding included. */
static uint64_t low_16_bits(const scan_env *e, uint64_t index)
{
    (void)e;
    return index & 0xFFFF;
}

/* Pooling: an axis other than the last keeps up to 8 of its elements, and at least enough
 * for two windows past its start padding (a failing case whose windows all lie in padding,
 * where its indices differ, still gets windows of elements: only those are evidence). */
static UINT index16_axis(const dml_case *probe, unsigned s)
{
    UINT kept = probe->input.sizes[probe->input.rank - probe->spatial_count + s];
    UINT dilated = (probe->window[s] - 1) * probe->dilations[s] + 1;
    uint64_t reach = (uint64_t)probe->start_padding[s] + 2u * probe->pool_strides[s] + dilated;
    kept = kept < 8 ? kept : 8;
    return reach > kept && reach <= 64 ? (UINT)reach : kept;
}

/* ARGMIN/ARGMAX: one reduced axis longer than 2^16, every other size 1.  Pooling: one image
 * plane of more than 2^16 elements (N = C = 1, the last spatial axis stretched). */
static bool index16_shape(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    unsigned rank = probe->input.rank;
    for (unsigned d = 0; d < rank; d++)
        sizes[d] = 1;
    if (case_module(probe)->output_is_index) {
        /* DECREASING, where rank_narrowed_16_from_scan_start (the same answers under
         * INCREASING) returns this late winner's index right. */
        probe->direction = DML_AXIS_DIRECTION_DECREASING;
        sizes[probe->axes[0]] = INDEX16_PROBE;
        return probe_resize(probe, sizes);
    }
    uint64_t plane = 1;
    for (unsigned d = 2; d + 1 < rank; d++) {
        sizes[d] = index16_axis(probe, d - (rank - probe->spatial_count));
        plane *= sizes[d];
    }
    sizes[rank - 1] = (UINT)((INDEX16_PROBE + plane - 1) / plane);
    return probe_resize(probe, sizes);
}

/* Distinct values with the extreme planted in the last few elements: the winner's index
 * lies past 2^16 in every row. */
static void fill_late_winner(prng *p, dml_case *probe)
{
    probe_fill_distinct(p, probe);
    uint64_t count = case_tensor_elements(&probe->input);
    probe_plant(probe, count - 1 - prng_below(p, 64), 1e6);
}

/* Only an input past 2^16 elements has an index past 65535.  A smaller case differs from the
 * spec only in the all-ones index of a window wholly in padding (65535), which is no evidence
 * (D7), yet would make this cause, with its probes of 65,836 elements, a candidate for every
 * failing pooling case with such a window. */
static bool has_index_past_16_bits(const dml_case *c)
{
    return case_tensor_elements(&c->input) > INDEX16_LIMIT;
}

const cause cause_index_narrowed_16 = {
    .id = "index_narrowed_16",
    .sentence = "Indices are held in 16 bits: an index past 65535 comes back modulo 65536",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = has_index_past_16_bits,
    .variant = { .stored_index = low_16_bits },
    .plan = { .indices = PROBE_INDICES_ADD, .max_elements = 2 * INDEX16_PROBE,
              .shape = index16_shape, .fill = fill_late_winner },
};

/* ---- indices_strides_ignored -------------------------------------------------------- */

/* The indices written packed, the pooled values where their Strides say. */
static uint64_t packed_indices_offset(const scan_env *e, const case_tensor *t, uint64_t logical)
{
    if (t == &e->seen->indices)
        return logical;
    tensor_view view;
    case_tensor_view(t, &view);
    return tensor_view_offset(&view, logical);
}

const cause cause_indices_strides_ignored = {
    .id = "indices_strides_ignored",
    .sentence = "The pooling indices tensor's Strides are ignored (its values' are not): indices "
                "are written packed, at other indices' addresses (D1)",
    .families = CAUSE_POOLING,
    .variant = { .output_offset = packed_indices_offset },
    /* Values and indices both laid out: output_strides_ignored moves both. */
    .plan = { .output_layout = PROBE_STRIDED, .indices_layout = PROBE_STRIDED,
              .indices = PROBE_INDICES_ADD, .fill = probe_fill_distinct },
};

/* ---- zero_stride_read_as_packed ----------------------------------------------------- */

static bool broadcast_input(const dml_case *c)
{
    for (unsigned d = 0; c->input.has_strides && d < c->input.rank; d++)
        if (c->input.strides[d] == 0 && c->input.sizes[d] > 1)
            return true;
    return false;
}

/* A 0 stride taken for "not given": that dimension read at its packed stride, the others at
 * theirs. */
static uint64_t zero_as_packed_offset(const scan_env *e, const uint32_t *in)
{
    const case_tensor *t = &e->seen->input;
    uint64_t packed[DML_MAX_RANK], offset = 0;
    tensor_packed_strides(t->rank, t->sizes, packed);
    for (unsigned d = 0; d < t->rank; d++)
        offset += in[d] * (t->has_strides && t->strides[d] ? t->strides[d] : packed[d]);
    return offset;
}

/* At least two dimensions, so the broadcast one is not the only one read another way than
 * input_strides_ignored reads them: a rank-1 ARGMIN/ARGMAX becomes 3 rows of its axis. */
static bool two_dims(dml_case *probe)
{
    if (probe->input.rank > 1)
        return true;
    UINT sizes[2] = { 3, probe->input.sizes[0] };
    probe->input.rank = 2;
    probe->axes[0] = 1;
    return probe_resize(probe, sizes);
}

const cause cause_zero_stride_read_as_packed = {
    .id = "zero_stride_read_as_packed",
    .sentence = "A Strides entry of 0 (a broadcast dimension) is taken for \"not given\" and "
                "replaced by the packed stride, so the broadcast dimension walks the buffer (D1)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = broadcast_input,
    .variant = { .input_offset = zero_as_packed_offset },
    .plan = { .input_layout = PROBE_BROADCAST, .shape = two_dims, .fill = probe_fill_distinct },
};

/* ---- outputs_rounded_down_64 -------------------------------------------------------- */

#define LAUNCH_GROUP 64u
/* Output elements of the probe: past one group, not a whole number of them. */
#define LAUNCH_PROBE_OUTPUTS 97u
/* Input elements a probe may hold. */
#define LAUNCH_PROBE_INPUTS (64u * LAUNCH_PROBE_OUTPUTS)

/* Whole groups of 64 output elements are launched, at least one: the tail past the last
 * whole group is never written. */
static bool in_launched_group(const scan_env *e, uint64_t logical, const uint32_t *out)
{
    (void)out;
    uint64_t count = case_tensor_elements(&e->seen->output);
    return count < LAUNCH_GROUP || logical < count / LAUNCH_GROUP * LAUNCH_GROUP;
}

/* Whether some output past the last whole group of 64 has a real input element among its
 * deciders: a tail of pooling windows wholly in padding is no evidence (D7). */
static bool tail_decided(const dml_case *probe)
{
    tensor_view out;
    case_tensor_view(&probe->output, &out);
    for (uint64_t logical = out.elements / LAUNCH_GROUP * LAUNCH_GROUP; logical < out.elements; logical++) {
        uint32_t coords[DML_MAX_RANK];
        decider_facts facts;
        tensor_view_coords(&out, logical, coords);
        case_module(probe)->visit_deciders(probe, coords, NULL, NULL, &facts);
        if (!facts.all_padding)
            return true;
    }
    return false;
}

/* Whether sizes make a probe that can show the rounding: past one group of outputs, not a
 * whole number of them, a tail holding a real element, an input within the cause's budget. */
static bool launch_fits(dml_case *probe, const UINT *sizes)
{
    if (!probe_resize(probe, sizes) || case_tensor_elements(&probe->input) > LAUNCH_PROBE_INPUTS)
        return false;
    uint64_t outputs = case_tensor_elements(&probe->output);
    return outputs > LAUNCH_GROUP && outputs % LAUNCH_GROUP && tail_decided(probe);
}

/* ARGMIN/ARGMAX: 97 outputs along one kept dimension (the reduced ones cut to 3). */
static bool launch_rows(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    bool reduced[DML_MAX_RANK] = { false }, widened = false;
    for (unsigned i = 0; i < probe->axis_count; i++)
        reduced[probe->axes[i]] = true;
    for (unsigned d = 0; d < probe->input.rank; d++) {
        sizes[d] = reduced[d] ? (probe->input.sizes[d] < 3 ? probe->input.sizes[d] : 3)
                 : widened    ? 1
                              : LAUNCH_PROBE_OUTPUTS;
        widened |= !reduced[d];
    }
    return widened && probe_resize(probe, sizes);
}

/* The input extent along spatial axis s that the first window spans past its padding, at
 * least 1, and long enough to reach the window's first tap inside the input: with start
 * padding 1 and a dilation of 3 the taps are -1 and 2, so an extent of 1 or 2 leaves every
 * window wholly in padding (a failing 5-D case of the typed suite had that shape). */
static UINT first_window_extent(const dml_case *probe, unsigned s)
{
    int64_t dilated = (int64_t)(probe->window[s] - 1) * probe->dilations[s] + 1;
    int64_t extent = dilated - probe->start_padding[s] - probe->end_padding[s];
    int64_t taps_in_padding = (probe->start_padding[s] + probe->dilations[s] - 1) / probe->dilations[s];
    int64_t first_tap = -(int64_t)probe->start_padding[s] + taps_in_padding * probe->dilations[s];
    if (taps_in_padding < probe->window[s] && extent < first_tap + 1)
        extent = first_tap + 1;
    return (UINT)(extent > 1 ? extent : 1);
}

/* Pooling: N = 1, each spatial axis as small as the window allows, then planes along C, about
 * 97 outputs.  Padding past the window gives a plane several outputs, some wholly in padding,
 * so C is chosen for a tail holding a whole plane; a window too large for 97 planes within
 * the budget (512 elements with 252 of start padding) grows the last spatial axis instead,
 * one window stride per output. */
static bool launch_planes(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    sizes[0] = sizes[1] = 1;
    for (unsigned s = 0; s < probe->spatial_count; s++)
        sizes[2 + s] = first_window_extent(probe, s);
    if (!probe_resize(probe, sizes))
        return false;
    uint64_t per_plane = case_tensor_elements(&probe->output);
    for (UINT c = (UINT)(LAUNCH_PROBE_OUTPUTS / per_plane > 1 ? LAUNCH_PROBE_OUTPUTS / per_plane : 1);
         c <= LAUNCH_PROBE_OUTPUTS; c++) {
        sizes[1] = c;
        if (launch_fits(probe, sizes))
            return true;
    }
    unsigned last = probe->input.rank - 1;
    sizes[1] = 1;
    for (unsigned step = 0; step < 2 * LAUNCH_PROBE_OUTPUTS; step++) {
        sizes[last] += probe->pool_strides[probe->spatial_count - 1];
        if (launch_fits(probe, sizes))
            return true;
    }
    return false;
}

static bool launch_shape(dml_case *probe)
{
    return case_module(probe)->output_is_index ? launch_rows(probe) : launch_planes(probe);
}

const cause cause_outputs_rounded_down_64 = {
    .id = "outputs_rounded_down_64",
    .sentence = "Work is launched in whole groups of 64 output elements, their count rounded "
                "down: the outputs past the last whole group are never written",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .variant = { .written = in_launched_group },
    .plan = { .max_elements = LAUNCH_PROBE_INPUTS, .shape = launch_shape,
              .fill = probe_fill_distinct },
};
