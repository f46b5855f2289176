/*
 * causes/chunks.c: root causes that only long ARGMIN/ARGMAX reductions show, where a winner
 * lies deep inside the reduction (generator version 4 draws such winners): a rank held in 16
 * bits from the end the scan starts at, and chunk winners merged by their rank in the chunk.
 */
#include <string.h>

#include "cause.h"
#include "dtype.h"
#include "op_module.h"
#include "probe.h"

/* Elements one ARGMIN/ARGMAX output reduces over. */
static uint64_t reduction_length(const dml_case *c)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < c->axis_count; i++)
        n *= c->input.sizes[c->axes[i]];
    return n;
}

static bool decreasing(const dml_case *c)
{
    return c->direction == DML_AXIS_DIRECTION_DECREASING;
}

/* One reduced axis of `length` elements, every other size 1. */
static bool one_long_row(dml_case *probe, UINT length)
{
    UINT sizes[DML_MAX_RANK];
    for (unsigned d = 0; d < probe->input.rank; d++)
        sizes[d] = 1;
    sizes[probe->axes[0]] = length;
    return probe_resize(probe, sizes);
}

/* ---- rank_narrowed_16_from_scan_start ----------------------------------------------- */

#define RANK16_LIMIT 65536u
#define RANK16_PROBE (RANK16_LIMIT + 300u)

/* The winner's rank from the end the scan starts at (the last element under DECREASING),
 * held in 16 bits, turned back into an index over the whole reduction. */
static uint64_t rank_low_16_bits(const scan_env *e, uint64_t index)
{
    uint64_t last = reduction_length(e->seen) - 1;
    return e->decreasing ? last - ((last - index) & 0xFFFF) : index & 0xFFFF;
}

/* Under INCREASING the rank is the index and this cause is index_narrowed_16: its probes are
 * DECREASING (so are that cause's), where the two part. */
static bool rank16_shape(dml_case *probe)
{
    probe->direction = DML_AXIS_DIRECTION_DECREASING;
    return one_long_row(probe, RANK16_PROBE);
}

/* Distinct values with the extreme in the first few elements: more than 2^16 from the end. */
static void fill_early_winner(prng *p, dml_case *probe)
{
    probe_fill_distinct(p, probe);
    probe_plant(probe, prng_below(p, 64), 1e6);
}

const cause cause_rank_narrowed_16_from_scan_start = {
    .id = "rank_narrowed_16_from_scan_start",
    .sentence = "The winner's rank is counted from the end the scan starts at (the reduction's "
                "last element under DECREASING) and held in 16 bits: an index more than 65535 "
                "from that end comes back wrong",
    .families = CAUSE_ARG_REDUCE,
    .variant = { .stored_index = rank_low_16_bits },
    .plan = { .max_elements = 2 * RANK16_PROBE, .shape = rank16_shape, .fill = fill_early_winner },
};

/* ---- chunk_ties_merged_by_rank ------------------------------------------------------ */

/* The chunk length this cause models (the example plug-in's; other lengths stay undiagnosed). */
#define MERGE_CHUNK 4096u
#define MERGE_PROBE (3u * MERGE_CHUNK + 64u)

/* Equal values from different chunks ordered by their rank within their chunk: the lower
 * rank wins (DECREASING: the higher, the later of equal ranks).  Within one chunk that is the
 * reduction's order, the spec's.  Two NaNs tie as well (a row of NaNs: unspecified, D4). */
static bool merge_by_chunk_rank(const scan_env *e, const scan_item *cand, const scan_item *best)
{
    if (cand->is_nan != best->is_nan || cand->key != best->key || reduction_length(e->seen) <= MERGE_CHUNK)
        return scan_spec_replaces(e, cand, best);
    uint64_t rank = cand->index % MERGE_CHUNK, best_rank = best->index % MERGE_CHUNK;
    return e->decreasing ? rank >= best_rank : rank < best_rank;
}

static bool merge_shape(dml_case *probe)
{
    return one_long_row(probe, MERGE_PROBE);
}

/* Distinct values and the extreme three times, once in each of the first three chunks, the
 * middle one at the rank that wins the merge (INCREASING: the lowest; DECREASING: the highest)
 * while the spec takes the first (the last) and a flipped tie the last (the first). */
static void fill_ties_across_chunks(prng *p, dml_case *probe)
{
    probe_fill_distinct(p, probe);
    uint64_t half = MERGE_CHUNK / 2, middle = prng_below(p, half / 2);
    uint64_t outer[2] = { half + prng_below(p, half), half + prng_below(p, half) };
    if (decreasing(probe)) {
        middle = MERGE_CHUNK - 1 - middle;
        outer[0] = MERGE_CHUNK - 1 - outer[0];
        outer[1] = MERGE_CHUNK - 1 - outer[1];
    }
    probe_plant(probe, outer[0], 1e6);
    probe_plant(probe, MERGE_CHUNK + middle, 1e6);
    probe_plant(probe, 2 * MERGE_CHUNK + outer[1], 1e6);
}

const cause cause_chunk_ties_merged_by_rank = {
    .id = "chunk_ties_merged_by_rank",
    .sentence = "The reduction is split into chunks of 4096 elements whose winners are merged "
                "with equal values ordered by their rank within their chunk, not in the "
                "reduction: a tie between chunks goes to the lowest rank (DECREASING: the "
                "highest) instead of the first (the last) element (D3)",
    .families = CAUSE_ARG_REDUCE,
    .variant = { .replaces = merge_by_chunk_rank },
    .plan = { .max_elements = 2 * MERGE_PROBE, .shape = merge_shape, .fill = fill_ties_across_chunks },
};
