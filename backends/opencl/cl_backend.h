/*
 * cl_backend.h: the OpenCL backend beyond its backend_vtable (opencl_backend): opening with
 * extra build options, tuning knobs and start-up figures.  The tests and `dmlcheck bench`
 * use these; the harness needs only the vtable.
 */
#ifndef DMLCHECK_CL_BACKEND_H
#define DMLCHECK_CL_BACKEND_H

#include <stdbool.h>

#include "backend.h"
#include "cl_plan.h"

extern const backend_vtable opencl_backend;

typedef struct cl_open_options {
    const char *device;        /* --device selector; NULL for the default */
    const char *build_options; /* appended to the program's build options (tests only:
                                  -DDMLCHECK_FAULT_WRITE_PAST_END, -DDMLCHECK_FAULT_WRITE_INPUT) */
} cl_open_options;

/* Where the time of opening went, and how the program was obtained. */
typedef struct cl_open_stats {
    double context_seconds; /* platform/device query, context and queue */
    double program_seconds; /* program build or binary load, kernel objects */
    bool program_from_cache;
    bool program_saved;
    char cache_path[512];
} cl_open_stats;

backend *cl_backend_open(const cl_open_options *options, dmlc_error *err);
/* Sets the tuning knobs (0 = automatic) for later runs. */
void cl_backend_set_tuning(backend *b, const cl_tuning *tuning);
const cl_open_stats *cl_backend_open_stats(const backend *b);

#endif
