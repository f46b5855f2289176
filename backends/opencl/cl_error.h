/*
 * cl_error.h: OpenCL error codes by name.  Every failing OpenCL call is reported as
 * "<call>: <CL_NAME> (<code>)" so a person can look the code up without a table.
 */
#ifndef DMLCHECK_CL_ERROR_H
#define DMLCHECK_CL_ERROR_H

#include <stdbool.h>

#include <CL/cl.h>

/* The OpenCL core's error text.  The core sees only the public headers and OpenCL (it is
 * also the OpenCL plug-in), so it keeps its own message type; the harness glue copies it. */
#define CL_MSG_MAX 1024
typedef struct cl_msg {
    char msg[CL_MSG_MAX];
} cl_msg;

/* Formats into m (when not NULL) and returns false: `return cl_msg_set(m, "...")`. */
bool cl_msg_set(cl_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends "prefix: " to m's message; returns false. */
bool cl_msg_prefix(cl_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "CL_OUT_OF_RESOURCES"; "CL_UNKNOWN_ERROR" for a code outside the OpenCL 1.2-3.0 lists. */
const char *cl_error_name(cl_int code);
/* Sets err to "<call> failed: <name> (<code>)" and returns false. */
bool cl_fail(cl_msg *err, const char *call, cl_int code);

#endif
