/*
 * cl_plan.h: how one case runs on the device: the parameter block (cl_params.h), the
 * scratch space it needs and the kernels to enqueue, in order.  Planning is pure host
 * arithmetic on a validated case; cl_core.c then lays out the batch's arena, fills in the
 * CLP_*_OFFSET words and enqueues.  One planner per operator family:
 * cl_arg_reduce.c (ARGMIN, ARGMAX) and cl_max_pooling.c (MAX_POOLING1/2).
 */
#ifndef DMLCHECK_CL_PLAN_H
#define DMLCHECK_CL_PLAN_H

#include <stdint.h>

#include "cl_case.h"
#include "cl_params.h"

/* Every kernel of the program, with its name in the .cl files; its id is the CLK_ number the
 * kernel finds its cases by (cl_params.h). */
#define CL_KERNELS(X) X(ARG_REDUCE, arg_reduce) X(ARG_REDUCE_COMBINE, arg_reduce_combine) \
    X(ARG_REDUCE_COLUMNS, arg_reduce_columns) X(MAX_POOLING2, max_pooling2)

typedef enum cl_kernel_id {
#define X(id, name) CL_KERNEL_##id = CLK_##id,
    CL_KERNELS(X)
#undef X
    CL_KERNEL_COUNT = CLK_COUNT
} cl_kernel_id;

/* How the S work-items of one ARGMIN/ARGMAX output share its reduction (arg_reduce.cl). */
typedef enum cl_split_mode {
    CL_SPLIT_AUTO,        /* chunked on CPU devices, interleaved on the others */
    CL_SPLIT_CHUNKED,     /* contiguous chunks of k */
    CL_SPLIT_INTERLEAVED, /* every S-th k */
} cl_split_mode;

/* How a batch's image travels (cl_core.c, transfer_of). */
typedef enum cl_transfer {
    CL_TRANSFER_AUTO,   /* mapped on host-unified devices for large inputs, pinned on discrete
                           ones, staged on Oclgrind and for small batches */
    CL_TRANSFER_MAPPED, /* built in the mapped arena, read back by mapping it */
    CL_TRANSFER_STAGED, /* built in malloc'd host memory, one write, one read */
    CL_TRANSFER_PINNED, /* the same through pinned (CL_MEM_ALLOC_HOST_PTR) host images */
} cl_transfer;

/* Knobs the tests turn to prove the answer does not depend on them; 0 means automatic. */
typedef struct cl_tuning {
    uint64_t local_size;   /* work-group size of every launch */
    uint64_t split;        /* ARGMIN/ARGMAX work-items per output (S) */
    uint64_t target_items; /* work-items to aim for when splitting long reductions */
    uint64_t pool_run;     /* MAX_POOLING2 outputs per work-item */
    cl_split_mode split_mode; /* never CL_SPLIT_AUTO when it reaches a planner */
    bool no_columns;       /* never use arg_reduce_columns */
    cl_transfer transfer;  /* how images travel; the checks are the same for every way */
} cl_tuning;

/* A plan's launches run in order; a kernel has one position in every plan it is in (the
 * combine pass is always second), so a batch launches each position's kernels once. */
#define CL_PLAN_MAX_LAUNCHES 2

typedef struct cl_plan {
    uint64_t params[CLP_WORDS];
    uint64_t scratch_bytes;
    unsigned launch_count;
    struct {
        cl_kernel_id kernel;
        uint64_t work_items;
    } launches[CL_PLAN_MAX_LAUNCHES];
} cl_plan;

/* The words every operator shares (type, output element sizes, NaN key, orientation,
 * flushing); the arena offsets are left for the backend. */
/* How a run computes: NaN ordering (SEMANTICS D4) and fp32 denormal flushing (D6). */
typedef struct cl_exec {
    bool nan_propagate;
    bool flush_denormals;
} cl_exec;

void cl_plan_common(cl_plan *plan, const cl_case *c, const cl_exec *opt);

typedef void (*cl_plan_fn)(cl_plan *plan, const cl_case *c, const cl_exec *opt,
                           const cl_tuning *tuning);
void cl_plan_arg_reduce(cl_plan *plan, const cl_case *c, const cl_exec *opt,
                        const cl_tuning *tuning);
void cl_plan_max_pooling(cl_plan *plan, const cl_case *c, const cl_exec *opt,
                          const cl_tuning *tuning);

#endif
