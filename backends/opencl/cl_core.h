/*
 * cl_core.h: the OpenCL backend's engine.  It sees the public headers and OpenCL only: the
 * plug-in table (cl_plugin.c) is its one way in, whether dmlcheck loads it as a shared
 * library (--backend plugin:libdmlcheck_opencl.so) or links it (--backend opencl).  Tests
 * reach the knobs below (build options, tuning, start-up figures) through cl_plugin.h.
 */
#ifndef DMLCHECK_CL_CORE_H
#define DMLCHECK_CL_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "cl_case.h"
#include "cl_device.h"
#include "cl_error.h"
#include "cl_plan.h"

typedef struct cl_core cl_core;

typedef struct cl_open_options {
    const char *device;        /* --device selector; NULL for the default */
    const char *build_options; /* appended to the program's build options (tests only:
                                  -DDMLCHECK_FAULT_WRITE_PAST_END, -DDMLCHECK_FAULT_WRITE_INPUT,
                                  -DDMLCHECK_FAULT_READ_PAST_ARENA) */
} cl_open_options;

typedef struct cl_open_stats {
    double context_seconds; /* platform/device query, context and queue */
    double program_seconds; /* program build or binary load, kernel objects */
    bool program_from_cache;
    bool program_saved;
    char cache_path[512];
} cl_open_stats;

/* What one run reads and writes: the caller's buffers, exactly as big as the descriptor's
 * TotalTensorSizeInBytes; the outputs hold the caller's canary, which bytes the kernels do
 * not write keep. */
typedef struct cl_io {
    const uint8_t *input;
    uint8_t *output;
    uint64_t output_bytes;
    uint8_t *indices;      /* NULL: no indices tensor */
    uint64_t indices_bytes;
} cl_io;

typedef enum cl_status {
    CL_RUN_OK,
    CL_RUN_ERROR,
    CL_RUN_UNSUPPORTED,
    CL_RUN_OUT_OF_BOUNDS_WRITE, /* a guard byte of the device arena changed */
    CL_RUN_INPUT_MODIFIED,      /* an input byte in device memory changed */
    /* What a checking device (--device oclgrind, cl_oclgrind.h) reported during the run. */
    CL_RUN_INVALID_ACCESS,
    CL_RUN_DATA_RACE,
    CL_RUN_UNINITIALISED_READ,
} cl_status;

/* One case of a batch: what cl_core_run takes, and, after the run, what it gives back. */
typedef struct cl_job {
    const cl_case *c;
    cl_io io;
    cl_exec exec;
    cl_status status; /* out */
    cl_msg err;       /* out: why, when status is not CL_RUN_OK */
} cl_job;

/* Where the last batch's time went.  Device-clock figures are -1 when the device gave no
 * times. */
typedef struct cl_batch_profile {
    cl_transfer transfer;
    uint64_t input_bytes;  /* every case's input */
    double map_seconds;    /* host: mapping the arena to build the image in (mapped only) */
    double image_seconds;  /* host: the image built (the input copied into it) */
    double write_seconds;  /* device: the write, or the unmap of the mapped image */
    double kernel_seconds; /* device: first launch's start to last launch's end */
    double read_seconds;   /* device: the read-back, or the map */
    double check_seconds;  /* host: guards, parameters and input compared, outputs copied */
    double total_seconds;  /* host: the whole batch */
} cl_batch_profile;

cl_core *cl_core_open(const cl_open_options *options, cl_msg *err);
void cl_core_close(cl_core *b);
cl_status cl_core_run(cl_core *b, const cl_case *c, const cl_io *io, const cl_exec *opt, cl_msg *err);
/* Runs count cases, each exactly as cl_core_run would (its own NaN and flushing options, its
 * own guard bands and input check, its own status), but with one write, one launch per
 * kernel and one read for as many consecutive cases as fit a few MiB of arena.  On
 * --device oclgrind the cases run one at a time, so each Oclgrind report is charged to its
 * case.  A failure of a shared command (a write, launch or read) fails every case it served. */
void cl_core_run_batch(cl_core *b, cl_job *jobs, size_t count);
const cl_device_entry *cl_core_device(const cl_core *b);
/* fp32 denormals may be flushed: the device lacks CL_FP_DENORM (SEMANTICS D6). */
bool cl_core_flushes_denormals(const cl_core *b);
void cl_core_set_tuning(cl_core *b, const cl_tuning *tuning);
const cl_open_stats *cl_core_open_stats(const cl_core *b);
/* Device time of the last batch's kernels, from the first launch's start to the last one's
 * end (the queue's profiling clock), in seconds; -1 when the device gave no times. */
double cl_core_kernel_seconds(const cl_core *b);
const cl_batch_profile *cl_core_profile(const cl_core *b);
/* Plain blocking copies of `bytes` between pinned host memory and a device buffer, best of
 * `repeat` each way after one warm-up, in bytes per second (dmlcheck bench's yardstick for
 * the transfers a run cannot avoid on a discrete device). */
bool cl_core_measure_transfer(cl_core *b, uint64_t bytes, unsigned repeat, double *to_device,
                              double *from_device, cl_msg *err);

#endif
