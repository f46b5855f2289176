/*
 * argmax.c: DML_OPERATOR_ARGMAX.  The index of the largest element of each reduced
 * sub-tensor (SEMANTICS D2 for the index, D3-D6 through order.h); the engine is shared with
 * ARGMIN in arg_reduce.c.
 */
#include "arg_reduce.h"
#include "reference.h"

unsigned ref_argmax(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    return arg_reduce_run(c, opt, out, false);
}
