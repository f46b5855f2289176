/*
 * argmin.c: DML_OPERATOR_ARGMIN.  The index of the smallest element of each reduced
 * sub-tensor: the ARGMAX engine with the order reversed (order_orient_mask), so ties, NaN
 * and infinities follow the same clauses of order.h.
 */
#include "arg_reduce.h"
#include "reference.h"

unsigned ref_argmin(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    return arg_reduce_run(c, opt, out, true);
}
