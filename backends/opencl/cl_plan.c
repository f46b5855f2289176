/* cl_plan.c: the parameter words every operator family shares (cl_plan.h). */
#include "cl_plan.h"

#include "dtype.h"

/* The NaN key and orientation words order.cl expects (its header says what they mean).  The
 * backend derives them itself: the system under test shares no constant with the reference. */
static int64_t cl_nan_key(nan_policy policy)
{
    return policy == NAN_POLICY_PROPAGATE ? INT64_MAX : INT64_MIN;
}

static int64_t cl_orient_mask(bool minimize)
{
    return minimize ? -1 : 0;
}

void cl_plan_common(cl_plan *plan, const dml_case *c, const exec_options *opt, bool minimize)
{
    for (unsigned i = 0; i < CLP_WORDS; i++)
        plan->params[i] = 0;
    uint64_t *p = plan->params;
    p[CLP_DTYPE] = c->input.type;
    p[CLP_OUT_BYTES] = dtype_size(c->output.type);
    p[CLP_OUT_TOTAL] = case_tensor_bytes(&c->output);
    p[CLP_IN_TOTAL] = case_tensor_bytes(&c->input);
    p[CLP_IDX_BYTES] = c->indices.present ? dtype_size(c->indices.type) : 0;
    p[CLP_NAN_KEY] = (uint64_t)cl_nan_key(opt->nan);
    p[CLP_ORIENT] = (uint64_t)cl_orient_mask(minimize);
    p[CLP_FLUSH] = opt->flush_denormals;
}
