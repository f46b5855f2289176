/*
 * arg_reduce.h: the engine shared by ARGMIN and ARGMAX (reference/argmin.c, argmax.c).  The
 * two operators differ only in the orientation of the order (order.h), so one engine serves
 * both; each operator's file says which way it points.
 */
#ifndef DMLCHECK_REF_ARG_REDUCE_H
#define DMLCHECK_REF_ARG_REDUCE_H

#include <stdbool.h>

#include "case.h"

/* Runs an ARGMIN (minimize) or ARGMAX case; returns CASE_CLASS_NAN when a NaN was among the
 * candidates of some output element. */
unsigned arg_reduce_run(const dml_case *c, const exec_options *opt, case_outputs *out,
                        bool minimize);

#endif
