/*
 * cl_max_pooling.c: plans the max-pooling family (MAX_POOLING2, and every dilation 1 for its predecessors) for max_pooling2.cl.  A 4-D case {N, C, H, W}
 * becomes 5-D {N, C, 1, H, W} with a depth window of 1, stride 1, no padding, dilation 1,
 * exactly as the reference pools it, so one kernel serves both ranks.  Work-items take runs
 * of neighbouring outputs along the output's last axis (see max_pooling2.cl).
 */
#include "cl_plan.h"

/* Outputs of a row one work-item pools: enough to amortise dividing out the row's
 * coordinates, few enough to leave thousands of work-items on real sizes. */
#define DEFAULT_RUN 8

/* Copies a 4-D or 5-D view into 5-D form (depth 1, stride 0 when the case is 4-D). */
static void as_5d(const cl_view *v, uint64_t sizes[5], uint64_t strides[5])
{
    unsigned skip = v->rank == 4 ? 1 : 0;
    sizes[2] = 1;
    strides[2] = 0;
    for (unsigned i = 0; i < v->rank; i++) {
        unsigned j = i < 2 ? i : i + skip;
        sizes[j] = v->sizes[i];
        strides[j] = v->strides[i];
    }
}

void cl_plan_max_pooling(cl_plan *plan, const cl_case *c, const cl_exec *opt,
                          const cl_tuning *tuning)
{
    cl_plan_common(plan, c, opt);
    uint64_t *p = plan->params;
    cl_view in = c->input, out = c->output, idx;
    as_5d(&in, &p[CLP_MP_IN_SIZE], &p[CLP_MP_IN_STRIDE]);
    as_5d(&out, &p[CLP_MP_OUT_SIZE], &p[CLP_MP_OUT_STRIDE]);
    if (c->indices.present) {
        uint64_t idx_sizes[5];
        idx = c->indices;
        as_5d(&idx, idx_sizes, &p[CLP_MP_IDX_STRIDE]);
    }
    unsigned first = 3 - c->spatial_count; /* 1 for 4-D: depth is the unit axis */
    for (unsigned s = 0; s < 3; s++) {
        bool real = s >= first;
        unsigned k = s - first;
        p[CLP_MP_STRIDE + s] = real ? c->pool_strides[k] : 1;
        p[CLP_MP_WINDOW + s] = real ? c->window[k] : 1;
        p[CLP_MP_START_PAD + s] = real ? c->start_padding[k] : 0;
        p[CLP_MP_DILATION + s] = real ? c->dilations[k] : 1;
    }
    uint64_t width = p[CLP_MP_OUT_SIZE + 4];
    uint64_t run = tuning->pool_run ? tuning->pool_run : DEFAULT_RUN;
    p[CLP_MP_ROWS] = out.elements / width;
    p[CLP_MP_RUN] = run;
    p[CLP_MP_RUNS_PER_ROW] = (width + run - 1) / run;
    plan->scratch_bytes = 0;
    plan->launch_count = 1;
    plan->launches[0].kernel = CL_KERNEL_MAX_POOLING2;
    plan->launches[0].work_items = p[CLP_MP_ROWS] * p[CLP_MP_RUNS_PER_ROW];
}
