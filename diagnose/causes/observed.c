/*
 * causes/observed.c: root causes first seen in real libraries (reports/published/), each
 * checked by hand on a tiny input calling the library directly before it was written here.
 * They keep a file of their own so that the catalogue's topic groups stay as they were; each
 * entry says which library showed it and on which input.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cause.h"
#include "dtype.h"
#include "probe.h"

/* Elements of one N, C plane of c's input: the spatial sizes' product. */
static uint64_t plane_elements(const dml_case *c)
{
    uint64_t plane = 1;
    for (unsigned d = c->input.rank - c->spatial_count; d < c->input.rank; d++)
        plane *= c->input.sizes[d];
    return plane;
}

/* The input's channel dimension (C of N, C, spatial...). */
static unsigned channel_axis(const dml_case *c)
{
    return c->input.rank - c->spatial_count - 1;
}

/* ---- best_seeded_at_plane_start ------------------------------------------------------
 * OpenVINO 2026.4.1's MaxPool-8 with its indices output (checked by hand): FLOAT32
 * {5, -inf, -inf, -inf, 6, -inf, -inf, -inf} as 1x2x1x4, window and stride 1x2, gives values
 * {5, -FLT_MAX, 6, -FLT_MAX} and indices {0, 0, 4, 4}; FLOAT16 the same with -inf; INT8 and
 * INT32 windows of their minimum, UINT8 windows of 0, likewise.  (INT16 and UINT16 are right:
 * they run through i32, whose minimum their elements beat.) */

static bool pooling_with_indices(const dml_case *c)
{
    return c->indices.present;
}

/* float32's lowest finite value in the input's type (FLOAT16: -inf, what -FLT_MAX rounds
 * to); an integer type's minimum. */
static uint64_t lowest_seed_bits(DML_TENSOR_DATA_TYPE t)
{
    return t == DML_TENSOR_DATA_TYPE_FLOAT32 ? probe_value_bits(t, -FLT_MAX) : dtype_lowest_bits(t);
}

/* The seed indexed as the first element of the output's N, C plane, on the path with an
 * indices output only: without one (a probe that drops it) the cause says nothing, and the
 * value seed there is best_seeded_with_lowest_finite's.  A window wholly in padding answers
 * the seed too (OpenVINO: FLOAT32 -FLT_MAX at the plane's first index), which D7 leaves open:
 * no evidence, but what makes such a failing case this cause's candidate. */
static bool plane_start_seed(const scan_env *e, const scan_item *first, scan_item *best)
{
    (void)first;
    const dml_case *c = e->seen;
    if (!c->indices.present)
        return false;
    uint64_t n = e->out[0], channel = e->out[channel_axis(c)];
    *best = (scan_item){ .index = (n * c->input.sizes[channel_axis(c)] + channel) * plane_elements(c),
                         .bits = lowest_seed_bits(c->input.type) };
    best->key = scan_final_key(e, scan_spec_number_key(e, best->bits, &best->is_nan), false);
    return true;
}

/* No padding, two channels, and planes at least twice a dilated window on each axis: most
 * windows then start away from their plane's first element, where the seed's index parts
 * from the spec's and from every seed that leaves its index unset. */
static bool planes_wider_than_windows(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    sizes[channel_axis(probe)] = sizes[channel_axis(probe)] > 2 ? sizes[channel_axis(probe)] : 2;
    for (unsigned s = 0; s < probe->spatial_count; s++) {
        UINT dilated = (probe->window[s] - 1) * probe->dilations[s] + 1;
        unsigned d = probe->input.rank - probe->spatial_count + s;
        probe->start_padding[s] = probe->end_padding[s] = 0;
        sizes[d] = sizes[d] > 2 * dilated ? sizes[d] : 2 * dilated;
    }
    return probe_resize(probe, sizes);
}

/* Windows of the lowest value (the minimum integer; NaNs, which never beat the seed) next to
 * windows with -1 and 2. */
static void fill_lowest_windows(prng *p, dml_case *probe)
{
    static const double pool[] = { -INFINITY, NAN, -1, 2 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_best_seeded_at_plane_start = {
    .id = "best_seeded_at_plane_start",
    .sentence = "With an indices output, the pooling running best starts at the type's lowest "
                "value (FLOAT32 -FLT_MAX, "
                "FLOAT16 -inf, an integer's minimum) indexed as the first element of the "
                "window's N, C plane, and only a greater element replaces it: a window whose "
                "maximum is that value (or -inf, or only NaNs) answers the plane's first index "
                "(OpenVINO's MaxPool with indices)",
    .families = CAUSE_POOLING,
    .applies = pooling_with_indices,
    .variant = { .seed = plane_start_seed },
    .plan = { .shape = planes_wider_than_windows, .fill = fill_lowest_windows },
};

/* ---- integers_pooled_as_float32 ------------------------------------------------------
 * OpenVINO 2026.4.1's MaxPool-8 without its indices output (checked by hand): INT32, INT64
 * and UINT32 {16777217, 16777217} as 1x2x1x1, window 1x1, give {16777216, 16777216};
 * 16777219 gives 16777220 (nearest, ties to even); as 1x1x1x1, as 2x1x1x1 or with the indices
 * output, 16777217.  With one channel, a StartPadding or EndPadding at least the window's size
 * on some axis takes the same path ({5, 16777217}, window 1x1, StartPadding 1 column:
 * 16777216).  2147483647 comes back as 2147483520, the largest float32 below 2^31. */

static bool wide_integer_without_indices(const dml_case *c)
{
    DML_TENSOR_DATA_TYPE t = c->input.type;
    return !dtype_is_float(t) && dtype_size(t) >= 4 && !c->indices.present;
}

/* Whether the case takes the float32 path: two or more channels, or padding at least the
 * window's size on some axis. */
static bool float32_path(const dml_case *c)
{
    if (c->input.sizes[channel_axis(c)] >= 2)
        return true;
    for (unsigned s = 0; s < c->spatial_count; s++)
        if (c->start_padding[s] >= c->window[s] || c->end_padding[s] >= c->window[s])
            return true;
    return false;
}

/* An integer's bits through float32 and back: the nearest float32 (ties to even), held within
 * the largest float32 the type can hold, converted back exactly. */
static uint64_t float32_rounded_bits(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    unsigned width = dtype_size(t) * 8;
    bool is_signed = dtype_is_signed_int(t);
    float f = is_signed ? (float)dtype_bits_to_i64(t, bits) : (float)bits;
    float highest = nextafterf(ldexpf(1.0f, (int)width - is_signed), 0.0f);
    f = f > highest ? highest : f;
    uint64_t back = is_signed ? (uint64_t)(int64_t)f : (uint64_t)f;
    return width == 64 ? back : back & ((1ull << width) - 1);
}

static uint64_t float32_value(const scan_env *e, const scan_item *winner)
{
    return float32_path(e->seen) ? float32_rounded_bits(e->seen->input.type, winner->bits) : winner->bits;
}

/* Two channels: the float32 path whatever the padding. */
static bool two_channels(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    sizes[channel_axis(probe)] = sizes[channel_axis(probe)] > 2 ? sizes[channel_axis(probe)] : 2;
    return probe_resize(probe, sizes);
}

/* Odd values past 2^24 (float32 rounds them: 2^24 + 1 down, 2^24 + 3 up, 2^25 + 3 up) next to
 * ones it holds exactly, all below 2^30: no sign bit for an unsigned reading to flip. */
static void fill_past_float32_precision(prng *p, dml_case *probe)
{
    static const double pool[] = { 16777217, 16777219, 5, 33554435, 16777216, -16777221 };
    probe_fill_values(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_integers_pooled_as_float32 = {
    .id = "integers_pooled_as_float32",
    .sentence = "32- and 64-bit integer max pooling without an indices output is computed in "
                "float32 on inputs of two or more channels (or with padding at least the "
                "window's size), so values past 2^24 come back rounded (OpenVINO's MaxPool)",
    .families = CAUSE_POOLING,
    .applies = wide_integer_without_indices,
    .variant = { .value_of = float32_value },
    .plan = { .shape = two_channels, .fill = fill_past_float32_precision },
};
