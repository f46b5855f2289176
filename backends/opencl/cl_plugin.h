/*
 * cl_plugin.h: the OpenCL backend as a dmlcheck plug-in (dmlcheck/plugin.h).  The same
 * table is exported by libdmlcheck_opencl.so (cl_plugin_entry.c) and linked into dmlcheck
 * as `--backend opencl` (opencl_backend.c), so the backend reaches the harness through the
 * public ABI only.  Arguments: device=SEL, build_options=TEXT (tests: fault kernels).
 */
#ifndef DMLCHECK_CL_PLUGIN_H
#define DMLCHECK_CL_PLUGIN_H

#include <dmlcheck/plugin.h>

#include "cl_core.h"

const dmlcheck_plugin *cl_plugin_table(void);
/* The engine behind a context the table's open returned (tuning and start-up figures). */
cl_core *cl_plugin_core(void *context);

#endif
