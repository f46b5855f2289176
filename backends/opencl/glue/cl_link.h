/*
 * cl_link.h: the OpenCL plug-in linked into dmlcheck as `--backend opencl` (cl_link.c):
 * the plug-in backend's checks and calls over cl_plugin_table(), plus what only the
 * harness needs (`dmlcheck devices`, `dmlcheck bench`) and the knobs the OpenCL tests turn.
 */
#ifndef DMLCHECK_CL_LINK_H
#define DMLCHECK_CL_LINK_H

#include "backend.h"
#include "cl_core.h"

extern const backend_vtable opencl_backend;

/* Opens the linked OpenCL plug-in with explicit options (tests: fault kernels). */
backend *cl_backend_open(const cl_open_options *options, dmlc_error *err);
void cl_backend_set_tuning(backend *b, const cl_tuning *tuning);
const cl_open_stats *cl_backend_open_stats(backend *b);

#endif
