/*
 * backend.h: what an implementation under test looks like to the harness.  The reference
 * engine is the first backend; the OpenCL backend is the second.  A backend runs a case the
 * validator accepted and writes each logical output element at its strided address in the
 * caller's buffers (pre-filled with CASE_CANARY_BYTE); bytes that belong to no logical
 * element may be left alone.
 */
#ifndef DMLCHECK_BACKEND_H
#define DMLCHECK_BACKEND_H

#include <stdbool.h>
#include <stdio.h>

#include "case.h"
#include "claims.h"
#include "error.h"

/* What a run can be found to have done wrong besides its answer, one row each:
 * X(kind, STATUS) gives the run status RUN_STATUS, the failure kind `kind` (classify.h) and,
 * from a plug-in, DMLCHECK_STATUS (dmlcheck/plugin.h).  The message says where.
 *   out_of_bounds_write  a guard band around an output buffer was overwritten
 *   input_modified       the input buffer changed during the run
 *   invalid_access       a checking device (Oclgrind) saw a load or store outside every buffer
 *   data_race            ... a data race between work-items
 *   uninitialised_read   ... a value nobody wrote being used */
#define RUN_FINDINGS(X)                                                                      \
    X(out_of_bounds_write, OUT_OF_BOUNDS_WRITE) X(input_modified, INPUT_MODIFIED)            \
    X(invalid_access, INVALID_ACCESS) X(data_race, DATA_RACE)                                \
    X(uninitialised_read, UNINITIALISED_READ)

typedef enum run_status {
    RUN_OK = 0,
    RUN_BACKEND_ERROR,       /* the backend failed (message in err) */
    RUN_UNSUPPORTED,         /* the backend cannot run this case on this device (message) */
#define X(kind, status) RUN_##status,
    RUN_FINDINGS(X)
#undef X
    RUN_REJECTED,            /* the backend refused the descriptor as invalid (message) */
    /* The backend calls the case unsupported although it claims the operator, its types
     * and the feature level (backend_info.claims): a gap in what it claims. */
    RUN_UNSUPPORTED_CLAIMED,
    /* What a backend that runs the implementation in a process of its own saw of it (the
     * process protocol's child): it died, or it did not answer in time.  Recorded as the
     * crash and hang kinds the worker's own death gets. */
    RUN_CRASHED,
    RUN_HUNG,
} run_status;
const char *run_status_name(run_status s);
/* True for the statuses that come with the outputs the backend wrote: RUN_OK and every
 * finding (a write out of bounds, a modified input, what a checking device reported leave
 * outputs worth showing). */
bool run_status_has_outputs(run_status s);

/* What a backend says about the device it runs on, for stores and reports. */
typedef struct backend_info {
    char platform[128];
    char device[128];
    char driver[128];
    char runtime[64];     /* the language or runtime version (the plug-in ABI's
                           * dmlcheck_info.runtime): "OpenCL C 1.2", "CUDA 12.4"; "" when
                           * none.  Stored as devices.c_version (schema.sql) */
    char fp_config[128];  /* e.g. "denorm,inf_nan,round_to_nearest" */
    bool flushes_denormals; /* fp32 denormals may be flushed (no CL_FP_DENORM) */
    bool validates;         /* checks descriptors as DirectML does, so it can be sent ones it
                               must refuse (dml_case.must_reject); run then only creates */
    bool batches;           /* run_batch runs small cases faster together than one by one, so
                               the worker hands it several at once */
    /* What it claims to implement, per operator and data type (claims.h); all zero: every
     * operator and type.  The backend skips a case beyond them; runs store them with the run
     * (runs.claims) and reports judge claimed cells apart. */
    backend_claims claims;
} backend_info;

/* One case of a batch (backend_vtable.run_batch): what run takes, and what it gives back. */
typedef struct backend_batch_item {
    const dml_case *c;
    exec_options exec;
    case_outputs *out;
    run_status status; /* out */
    dmlc_error err;    /* out: why, for a status other than RUN_OK */
} backend_batch_item;

typedef struct backend backend; /* opaque, one per implementation */

/* One phase of a run, as a profile names it: a static name, its seconds, and how many times
 * it passes over the input's bytes (a copy, a comparison or a transfer is one pass; 0 for a
 * phase that does not touch the input). */
typedef struct backend_run_phase {
    const char *name;
    double seconds;
    unsigned input_passes;
} backend_run_phase;

#define BACKEND_PROFILE_PHASES 12
typedef struct backend_run_profile {
    unsigned count;
    backend_run_phase phases[BACKEND_PROFILE_PHASES];
} backend_run_profile;

/* Appends a phase when there is room. */
static inline void backend_profile_add(backend_run_profile *p, const char *name, double seconds,
                                       unsigned input_passes)
{
    if (p->count < BACKEND_PROFILE_PHASES)
        p->phases[p->count++] = (backend_run_phase){ name, seconds, input_passes };
}

typedef struct backend_vtable {
    const char *name;    /* --backend NAME */
    const char *summary; /* one line for --help */
    /* device: --device selector or NULL for the default; args: what followed "NAME:" in
     * --backend (a plug-in's path and key=value list), NULL when nothing did.  NULL return:
     * err says why. */
    backend *(*open)(const char *device, const char *args, dmlc_error *err);
    run_status (*run)(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                      dmlc_error *err);
    void (*info)(backend *b, backend_info *info);
    void (*close)(backend *b);
    /* Optional (NULL when the backend has none): runs count cases, each exactly as run would
     * (own options, status and message). */
    void (*run_batch)(backend *b, backend_batch_item *items, size_t count);
    /* Optional (NULL when the backend has none).  `dmlcheck devices`: lists the devices the
     * backend can open on f, marking the one `device` selects; returns the command's exit
     * status (0 a device is selected, 2 none or no match, err says why). */
    int (*list_devices)(FILE *f, const char *device, dmlc_error *err);
    /* `dmlcheck bench`: figures only this backend has (start-up, per-case overhead), printed
     * after the common scenarios; false with err on failure. */
    bool (*bench_extra)(FILE *f, const char *device, backend *b, dmlc_error *err);
    /* Optional (NULL when the backend has none).  `dmlcheck bench`: the device time of the
     * last run's kernels alone (no transfers, no checks) in seconds; negative when unknown. */
    double (*kernel_seconds)(backend *b);
    /* Optional.  `dmlcheck bench`: where the last single run's time went (backend_run_profile);
     * false when it was not recorded. */
    bool (*run_profile)(backend *b, backend_run_profile *profile);
    /* Optional.  `dmlcheck bench`: plain host-to-device and device-to-host copies of `bytes`
     * bytes (no checks), in bytes per second, best of `repeat`; false with err on failure. */
    bool (*transfer_bandwidth)(backend *b, uint64_t bytes, unsigned repeat, double *to_device,
                               double *from_device, dmlc_error *err);
} backend_vtable;

/* Registered backends, NULL-terminated; the reference first. */
extern const backend_vtable *const backend_registry[];
/* The backend called `name` exactly; NULL when none is. */
const backend_vtable *backend_find(const char *name);
/* --backend TEXT: "NAME" or "NAME:ARGS" (e.g. "plugin:/path/libimpl.so,device=0").  The
 * backend, with *args pointing into text after the colon (NULL without one); NULL when no
 * backend has that name. */
const backend_vtable *backend_select(const char *text, const char **args);
/* Fails with the standard message when a built-in backend is given arguments. */
bool backend_no_args(const char *name, const char *args, dmlc_error *err);

#endif
