/*
 * cl_sources.h: the OpenCL C sources embedded at build time (embed_cl.py generates
 * cl_sources.c from cl_params.h, order.cl, arg_reduce.cl and max_pooling2.cl, in that
 * order: the program is compiled from all of them together).
 */
#ifndef DMLCHECK_CL_SOURCES_H
#define DMLCHECK_CL_SOURCES_H

#include <stddef.h>

extern const char *const cl_embedded_sources[];
extern const char *const cl_embedded_names[];
extern const size_t cl_embedded_count;

#endif
