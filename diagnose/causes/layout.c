/*
 * causes/layout.c: root causes in where elements are read and written (SEMANTICS D1: strides
 * say where bytes live, never what anything means) and in how wide an index is held.
 */
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

static uint64_t low_16_bits(const scan_env *e, const scan_item *winner)
{
    (void)e;
    return winner->index & 0xFFFF;
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
        sizes[probe->axes[0]] = INDEX16_PROBE;
        return probe_resize(probe, sizes);
    }
    uint64_t plane = 1;
    for (unsigned d = 2; d + 1 < rank; d++) {
        sizes[d] = probe->input.sizes[d] < 8 ? probe->input.sizes[d] : 8;
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

const cause cause_index_narrowed_16 = {
    .id = "index_narrowed_16",
    .sentence = "Indices are held in 16 bits: an index past 65535 comes back modulo 65536",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .variant = { .index_of = low_16_bits },
    .plan = { .indices = PROBE_INDICES_ADD, .max_elements = 2 * INDEX16_PROBE,
              .shape = index16_shape, .fill = fill_late_winner },
};
