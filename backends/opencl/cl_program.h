/*
 * cl_program.h: the dmlcheck OpenCL program (every kernel of every operator family), built
 * once per context.  A built program's binary is cached on disk per device and driver:
 * the file name is a 128-bit hash of the embedded sources, the build options, the platform
 * and device names, the device version and the driver version, so a driver update or an
 * edited kernel never loads a stale binary.  A cache that cannot be read or written only
 * costs time: the program is then built from source.
 *
 * Cache folder: $DMLCHECK_CL_CACHE_DIR, else $XDG_CACHE_HOME/dmlcheck, else
 * ~/.cache/dmlcheck.  DMLCHECK_CL_CACHE=0 turns the cache off.
 */
#ifndef DMLCHECK_CL_PROGRAM_H
#define DMLCHECK_CL_PROGRAM_H

#include <stdbool.h>

#include <CL/cl.h>

#include "cl_device.h"
#include "cl_error.h"

typedef struct cl_program_result {
    cl_program program;
    bool from_cache;       /* loaded from a cached binary */
    bool saved;            /* built from source and its binary written to the cache */
    char cache_path[512];  /* "" when the cache is off */
} cl_program_result;

/* Builds (or loads) the program for dev in ctx.  extra_options are appended to the build
 * options (tests use them to compile fault-injection variants).  On a build failure the
 * full build log goes to stderr and err names the failed call. */
bool cl_program_build(cl_context ctx, const cl_device_entry *dev, const char *extra_options,
                      cl_program_result *res, cl_msg *err);

#endif
