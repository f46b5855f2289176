/*
 * cl_bench.h: the OpenCL-specific figures of `dmlcheck bench --backend opencl`: start-up
 * time (context + queue, program from source or from the binary cache) and the per-case
 * overhead of tiny cases.  Large-tensor throughput is timed by cmd_bench.c like any backend.
 */
#ifndef DMLCHECK_CL_BENCH_H
#define DMLCHECK_CL_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "error.h"

typedef struct cl_bench_startup {
    /* "cold": our binary cache off, so the program is compiled from source (the driver's
     * own cache, e.g. PoCL's, may still serve it: POCL_KERNEL_CACHE=0 makes it truly cold). */
    double cold_context_ms, cold_program_ms;
    /* "warm": the program comes from our binary cache (filled by the cold open). */
    double warm_context_ms, warm_program_ms;
    bool warm_from_cache;
} cl_bench_startup;

/* Opens the backend twice on `device` (NULL: default) and reports where the time went. */
bool cl_bench_measure_startup(const char *device, cl_bench_startup *out, dmlc_error *err);

typedef struct cl_bench_overhead {
    double argmax_us;   /* wall time per run of a 16-element FLOAT32 ARGMAX (best batch) */
    double pooling_us;  /* mean wall time per run of a 1x1x4x4 MAX_POOLING2 with indices */
    double reference_us; /* the same ARGMAX on the reference, for scale */
} cl_bench_overhead;

/* Times `runs` runs of tiny cases on b (after a warm-up). */
bool cl_bench_measure_overhead(backend *b, unsigned runs, cl_bench_overhead *out,
                               dmlc_error *err);

/* Prints both, as `dmlcheck bench --backend opencl` shows them. */
bool cl_bench_report_runs(FILE *f, const char *device, backend *b, unsigned runs,
                          dmlc_error *err);
/* backend_vtable.bench_extra: cl_bench_report_runs with 2,000 runs. */
bool cl_bench_report(FILE *f, const char *device, backend *b, dmlc_error *err);

#endif
