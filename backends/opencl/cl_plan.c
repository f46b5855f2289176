/* cl_plan.c: the parameter words every operator family shares (cl_plan.h). */
#include "cl_plan.h"


/* The NaN key and orientation words order.cl expects (its header says what they mean).  The
 * backend derives them itself: the system under test shares no constant with the reference. */
static int64_t cl_nan_key(bool propagate)
{
    return propagate ? INT64_MAX : INT64_MIN;
}

static int64_t cl_orient_mask(bool minimize)
{
    return minimize ? -1 : 0;
}

void cl_plan_common(cl_plan *plan, const cl_case *c, const cl_exec *opt)
{
    for (unsigned i = 0; i < CLP_WORDS; i++)
        plan->params[i] = 0;
    uint64_t *p = plan->params;
    p[CLP_DTYPE] = c->input.type;
    p[CLP_OUT_BYTES] = cl_dtype_size(c->output.type);
    p[CLP_OUT_TOTAL] = c->output.total_bytes;
    p[CLP_IN_TOTAL] = c->input.total_bytes;
    p[CLP_IDX_BYTES] = c->indices.present ? cl_dtype_size(c->indices.type) : 0;
    p[CLP_NAN_KEY] = (uint64_t)cl_nan_key(opt->nan_propagate);
    p[CLP_ORIENT] = (uint64_t)cl_orient_mask(c->minimize);
    p[CLP_FLUSH] = opt->flush_denormals;
}
