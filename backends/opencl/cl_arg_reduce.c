/*
 * cl_arg_reduce.c: plans ARGMIN and ARGMAX for arg_reduce.cl.
 *
 * The input's axes split into kept axes (they address an output element) and reduced axes
 * (they address an element inside the reduction).  Size-1 axes are dropped and neighbours
 * in each list merged when their strides allow it (for kept axes both input and output
 * strides must allow it); neither changes the output's logical order nor the reduced index
 * k, which stays row-major over the reduced axes in ascending order (SEMANTICS D2).
 *
 * Long reductions over few outputs are split: S work-items share one output and a second
 * kernel folds their partial results, so a 10^8-element argmax uses every core instead of
 * one work-item.  S never changes the answer (the order is total; see arg_reduce.cl).
 */
#include "cl_plan.h"

/* Below this many input elements a case runs as one launch: a second enqueue costs more
 * than the parallelism saves. */
#define SPLIT_MIN_ELEMENTS 65536
/* A work-item of a split reduction scans at least this many elements. */
#define SPLIT_MIN_PER_ITEM 256
#define SPLIT_TARGET_ITEMS 8192
/* arg_reduce_columns: a work-item takes up to AR_COLUMN_VECTORS vectors of AR_LANES
 * neighbouring outputs (arg_reduce.cl). */
#define AR_LANES 16
#define AR_COLUMN_VECTORS 4

typedef struct ar_dim {
    uint64_t size, in_stride, out_stride;
} ar_dim;

/* Appends d to dims, merged into the last one when their strides make them one axis. */
static void push_dim(ar_dim *dims, unsigned *rank, ar_dim d, bool check_out)
{
    if (*rank > 0) {
        ar_dim *outer = &dims[*rank - 1];
        if (outer->in_stride == d.in_stride * d.size
            && (!check_out || outer->out_stride == d.out_stride * d.size)) {
            outer->size *= d.size;
            outer->in_stride = d.in_stride;
            outer->out_stride = d.out_stride;
            return;
        }
    }
    dims[(*rank)++] = d;
}

static uint64_t choose_split(uint64_t outputs, uint64_t reduced, const cl_tuning *tuning)
{
    if (tuning->split)
        return tuning->split < reduced ? tuning->split : reduced;
    if (outputs * reduced < SPLIT_MIN_ELEMENTS)
        return 1;
    uint64_t target = tuning->target_items ? tuning->target_items : SPLIT_TARGET_ITEMS;
    uint64_t split = (target + outputs - 1) / outputs;
    uint64_t most = reduced / SPLIT_MIN_PER_ITEM;
    if (split > most)
        split = most;
    return split ? split : 1;
}

/* Column blocks (arg_reduce_columns) pay off on CPUs when neighbouring outputs read
 * neighbouring input elements and the reduction itself is strided, with outputs enough to
 * need no split. */
static bool use_columns(const ar_dim *kept, unsigned kept_rank, const ar_dim *red,
                        unsigned red_rank, uint64_t split, const cl_tuning *tuning)
{
    return !tuning->no_columns && tuning->split_mode == CL_SPLIT_CHUNKED && split == 1
           && kept_rank > 0 && red_rank > 0 && kept[kept_rank - 1].in_stride == 1
           && kept[kept_rank - 1].size >= AR_LANES && red[red_rank - 1].in_stride != 1;
}

/* Vectors of outputs per work-item of arg_reduce_columns: as many as the row holds, up to
 * AR_COLUMN_VECTORS (several cache lines per step let the CPU's prefetchers see a stream). */
static uint64_t column_vectors(uint64_t width)
{
    return width / AR_LANES < AR_COLUMN_VECTORS ? width / AR_LANES : AR_COLUMN_VECTORS;
}

void cl_plan_arg_reduce(cl_plan *plan, const cl_case *c, const cl_exec *opt,
                        const cl_tuning *tuning)
{
    cl_plan_common(plan, c, opt);
    uint64_t *p = plan->params;
    cl_view in = c->input, out = c->output;
    bool reduced[CL_MAX_RANK] = { false };
    for (UINT a = 0; a < c->axis_count; a++)
        reduced[c->axes[a]] = true;

    ar_dim kept_dims[CL_MAX_RANK], red_dims[CL_MAX_RANK];
    unsigned kept_rank = 0, red_rank = 0;
    uint64_t outputs = 1, count = 1;
    for (unsigned a = 0; a < in.rank; a++) {
        if (in.sizes[a] == 1)
            continue;
        ar_dim d = { in.sizes[a], in.strides[a], out.strides[a] };
        if (reduced[a]) {
            push_dim(red_dims, &red_rank, d, false);
            count *= in.sizes[a];
        } else {
            push_dim(kept_dims, &kept_rank, d, true);
            outputs *= in.sizes[a];
        }
    }
    p[CLP_AR_OUT_COUNT] = outputs;
    p[CLP_AR_RED_COUNT] = count;
    /* SEMANTICS D3: DECREASING returns the last extreme element. */
    p[CLP_AR_DECREASING] = c->decreasing;
    p[CLP_AR_KEPT_RANK] = kept_rank;
    p[CLP_AR_RED_RANK] = red_rank;
    for (unsigned d = 0; d < kept_rank; d++) {
        p[CLP_AR_KEPT_SIZE + d] = kept_dims[d].size;
        p[CLP_AR_KEPT_IN_STRIDE + d] = kept_dims[d].in_stride;
        p[CLP_AR_KEPT_OUT_STRIDE + d] = kept_dims[d].out_stride;
    }
    for (unsigned d = 0; d < red_rank; d++) {
        p[CLP_AR_RED_SIZE + d] = red_dims[d].size;
        p[CLP_AR_RED_IN_STRIDE + d] = red_dims[d].in_stride;
    }

    uint64_t split = choose_split(outputs, count, tuning);
    p[CLP_AR_SPLIT] = split;
    p[CLP_AR_CHUNK] = tuning->split_mode == CL_SPLIT_CHUNKED ? (count + split - 1) / split : 0;
    plan->launch_count = 1;
    plan->launches[0].kernel = CL_KERNEL_ARG_REDUCE;
    plan->launches[0].work_items = outputs * split;
    plan->scratch_bytes = 0;
    if (use_columns(kept_dims, kept_rank, red_dims, red_rank, split, tuning)) {
        uint64_t width = kept_dims[kept_rank - 1].size;
        uint64_t columns = column_vectors(width) * AR_LANES;
        p[CLP_AR_COLUMN_VECTORS] = column_vectors(width);
        plan->launches[0].kernel = CL_KERNEL_ARG_REDUCE_COLUMNS;
        plan->launches[0].work_items = outputs / width * ((width + columns - 1) / columns);
        return;
    }
    if (split > 1) {
        plan->scratch_bytes = outputs * split * (sizeof(int64_t) + sizeof(uint64_t));
        plan->launch_count = 2;
        plan->launches[1].kernel = CL_KERNEL_ARG_REDUCE_COMBINE;
        plan->launches[1].work_items = outputs;
    }
}
