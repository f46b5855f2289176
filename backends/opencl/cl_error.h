/*
 * cl_error.h: OpenCL error codes by name.  Every failing OpenCL call is reported as
 * "<call>: <CL_NAME> (<code>)" so a person can look the code up without a table.
 */
#ifndef DMLCHECK_CL_ERROR_H
#define DMLCHECK_CL_ERROR_H

#include <stdbool.h>

#include <CL/cl.h>

#include "error.h"

/* "CL_OUT_OF_RESOURCES"; "CL_UNKNOWN_ERROR" for a code outside the OpenCL 1.2-3.0 lists. */
const char *cl_error_name(cl_int code);
/* Sets err to "<call> failed: <name> (<code>)" and returns false. */
bool cl_fail(dmlc_error *err, const char *call, cl_int code);

#endif
