/*
 * cl_core.c: the OpenCL backend's engine (cl_core.h).
 *
 * Opening picks a device (cl_device.c), creates one context and in-order queue, and builds
 * the program once (cl_program.c, with its on-disk binary cache); the kernel objects live
 * as long as the backend.  A run then costs one write, one or two kernel launches and one
 * read, whatever the case:
 *
 *   arena = [ parameter block | input | guard | output | guard | indices | guard ] [scratch]
 *           '------------------------- the image ----------------------------'
 *
 * The host builds the image (parameters, the input bytes, the caller's canary-filled output
 * buffers, GUARD_BYTE everywhere else), writes it, runs the kernels and reads the image back.
 * Every byte outside the output and indices buffers must read back as written: a changed
 * guard or parameter byte is CL_RUN_OUT_OF_BOUNDS_WRITE, a changed input byte
 * CL_RUN_INPUT_MODIFIED (both checks are memcmp over bytes already read, so they cost no
 * transfer of their own).  Bytes of the outputs the kernels leave alone come back as the
 * caller's own canary.  The arena and the host images grow geometrically and are reused across runs;
 * kernel arguments are set only when the arena is reallocated.
 *
 * A device without CL_FP_DENORM is reported as flushing denormals, and its runs judge fp32
 * denormals as flushed (cl_exec.flush_denormals), which is the answer the harness
 * holds such a device to (SEMANTICS D6).  The kernels themselves compare raw bits, so on
 * every other device they are exact.
 */
#include "cl_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <CL/cl.h>

#include "cl_oclgrind.h"
#include "cl_program.h"

/* Canary bytes around each output buffer: catches any write past the end by a few
 * elements; every other stray write lands in some checked byte of the image as well. */
#define GUARD_BYTES 256
/* What the guards and the parameter block's padding hold. */
#define GUARD_BYTE 0xA5
/* Inputs larger than this are read back by mapping the arena (see read_back); smaller
 * ones by one read, which is the cheaper command for a tiny case. */
#define MAP_READ_BACK_BYTES (64u << 10)
/* Default work-group size: a multiple of every common SIMD width, small enough for any
 * device's CL_KERNEL_WORK_GROUP_SIZE. */
#define DEFAULT_LOCAL_SIZE 64

static const char *const kernel_names[CL_KERNEL_COUNT] = {
#define X(id, name) #name,
    CL_KERNELS(X)
#undef X
};

struct cl_core {
    cl_device_entry dev;
    bool flushes_denormals;
    size_t max_item_size; /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernels[CL_KERNEL_COUNT];
    size_t kernel_work_group[CL_KERNEL_COUNT]; /* CL_KERNEL_WORK_GROUP_SIZE */
    cl_mem arena;
    uint64_t arena_capacity;
    uint8_t *image_in, *image_out; /* what was written, what was read back */
    uint64_t image_capacity;
    cl_tuning tuning;
    cl_open_stats stats;
    cl_oclgrind *oclgrind; /* --device oclgrind: its log; NULL on any other device */
};

/* Byte ranges of one run's arena. */
typedef struct arena_layout {
    uint64_t in_offset, in_bytes;
    uint64_t out_offset, out_bytes;
    uint64_t idx_offset, idx_bytes; /* idx_bytes 0: no indices tensor */
    uint64_t image_bytes;           /* read back and checked: everything before the scratch */
    uint64_t scratch_offset;
    uint64_t total_bytes;           /* written: the image and the scratch */
    bool map_read_back;             /* the image is mapped for the read-back, not read */
} arena_layout;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t align_up(uint64_t x)
{
    return (x + CLP_ALIGN - 1) / CLP_ALIGN * CLP_ALIGN;
}

static void layout_compute(arena_layout *l, const cl_case *c, const cl_io *out,
                           uint64_t scratch_bytes)
{
    l->in_offset = align_up(CLP_WORDS * sizeof(uint64_t));
    l->in_bytes = c->input.total_bytes;
    l->out_offset = align_up(l->in_offset + l->in_bytes + GUARD_BYTES);
    l->out_bytes = out->output_bytes;
    uint64_t end = l->out_offset + l->out_bytes;
    l->idx_offset = 0;
    l->idx_bytes = 0;
    if (c->indices.present && out->indices) {
        l->idx_offset = align_up(end + GUARD_BYTES);
        l->idx_bytes = out->indices_bytes;
        end = l->idx_offset + l->idx_bytes;
    }
    l->image_bytes = align_up(end + GUARD_BYTES);
    l->scratch_offset = l->image_bytes;
    l->total_bytes = l->scratch_offset + align_up(scratch_bytes);
    l->map_read_back = l->in_bytes > MAP_READ_BACK_BYTES;
}

/* ---- opening and closing ---- */

static void release_all(cl_core *b)
{
    for (int k = 0; k < CL_KERNEL_COUNT; k++)
        if (b->kernels[k])
            clReleaseKernel(b->kernels[k]);
    if (b->arena)
        clReleaseMemObject(b->arena);
    if (b->program)
        clReleaseProgram(b->program);
    if (b->queue)
        clReleaseCommandQueue(b->queue);
    if (b->context)
        clReleaseContext(b->context);
    cl_oclgrind_close(b->oclgrind);
    free(b->image_in);
    free(b->image_out);
    free(b);
}

/* Checks what the kernels rely on: 64-bit integers and the host's byte order. */
static bool device_usable(cl_core *b, cl_msg *err)
{
    if (!b->dev.int64)
        return cl_msg_set(err, "device '%s' (%s) has no 64-bit integers in kernels (embedded "
                            "profile without cles_khr_int64); the OpenCL backend needs them",
                       b->dev.name, b->dev.profile);
    cl_bool little = CL_FALSE;
    cl_int rc = clGetDeviceInfo(b->dev.device, CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little,
                                NULL);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clGetDeviceInfo(CL_DEVICE_ENDIAN_LITTLE)", rc);
    if (!little)
        return cl_msg_set(err, "device '%s' is big-endian; the OpenCL backend moves raw bits "
                            "in the host's (little-endian) byte order", b->dev.name);
    size_t sizes[3] = { 0 };
    rc = clGetDeviceInfo(b->dev.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, NULL);
    if (rc != CL_SUCCESS && rc != CL_INVALID_VALUE)
        return cl_fail(err, "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)", rc);
    b->max_item_size = sizes[0] ? sizes[0] : 1;
    return true;
}

static bool open_device(cl_core *b, const char *selector, cl_msg *err)
{
    cl_device_list list;
    if (!cl_devices_list(&list, err))
        return false;
    size_t index;
    bool ok = cl_devices_select(&list, selector, &index, err);
    if (ok)
        b->dev = list.items[index];
    cl_devices_free(&list);
    if (!ok || !device_usable(b, err))
        return false;
    b->flushes_denormals = !(b->dev.fp_config & CL_FP_DENORM);

    cl_int rc;
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)b->dev.platform,
                                      0 };
    b->context = clCreateContext(props, 1, &b->dev.device, NULL, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateContext", rc);
    cl_oclgrind_context_created(b->oclgrind);
    b->queue = clCreateCommandQueue(b->context, b->dev.device, 0, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateCommandQueue", rc);
    return true;
}

static bool open_program(cl_core *b, const char *build_options, cl_msg *err)
{
    cl_program_result res;
    if (!cl_program_build(b->context, &b->dev, build_options, &res, err))
        return false;
    b->program = res.program;
    b->stats.program_from_cache = res.from_cache;
    b->stats.program_saved = res.saved;
    snprintf(b->stats.cache_path, sizeof b->stats.cache_path, "%s", res.cache_path);
    for (int k = 0; k < CL_KERNEL_COUNT; k++) {
        cl_int rc;
        b->kernels[k] = clCreateKernel(b->program, kernel_names[k], &rc);
        if (rc != CL_SUCCESS)
            return cl_fail(err, "clCreateKernel", rc) || cl_msg_prefix(err, "%s", kernel_names[k]);
        rc = clGetKernelWorkGroupInfo(b->kernels[k], b->dev.device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof b->kernel_work_group[k], &b->kernel_work_group[k],
                                      NULL);
        if (rc != CL_SUCCESS)
            return cl_fail(err, "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)", rc);
    }
    return true;
}

/* Work-group size for kernel k: the tuning's, else DEFAULT_LOCAL_SIZE, within the limits
 * of the kernel and the device. */
static size_t local_size(const cl_core *b, cl_kernel_id k)
{
    size_t want = b->tuning.local_size ? (size_t)b->tuning.local_size : DEFAULT_LOCAL_SIZE;
    if (want > b->kernel_work_group[k])
        want = b->kernel_work_group[k];
    if (want > b->max_item_size)
        want = b->max_item_size;
    return want ? want : 1;
}

/* Work-items of the warm-up's wide launch: PoCL compiles one version of a kernel for grids
 * narrower than 65,535 work-items and another for wider ones, and the widest cases need it. */
#define WARM_UP_WIDE_GRID (1u << 20)

/* Launches every kernel on a grid of `work_items` that does nothing (the parameter block
 * counts no outputs, and every kernel returns for a work-item past its outputs). */
static bool warm_up_launches(cl_core *b, cl_mem params, size_t work_items, cl_msg *err)
{
    for (int k = 0; k < CL_KERNEL_COUNT; k++) {
        size_t local = local_size(b, (cl_kernel_id)k);
        size_t global = (work_items + local - 1) / local * local;
        cl_int rc = clSetKernelArg(b->kernels[k], 0, sizeof params, &params);
        if (rc == CL_SUCCESS)
            rc = clEnqueueNDRangeKernel(b->queue, b->kernels[k], 1, NULL, &global, &local, 0,
                                        NULL, NULL);
        if (rc != CL_SUCCESS)
            return cl_fail(err, "clEnqueueNDRangeKernel", rc)
                   || cl_msg_prefix(err, "warming up kernel %s, %zu work-items", kernel_names[k],
                                    global);
    }
    return true;
}

/* Makes the driver compile every kernel the runs may launch, now, while the backend opens
 * (the harness gives opening its own, long time limit) rather than at a case's first
 * launch, inside that case's time limit: PoCL, for one, compiles a kernel for each
 * work-group size and grid width at its first launch, taking seconds, and keeps the result
 * in its own disk cache (POCL_CACHE_DIR), so a restarted worker loads it instead.  The
 * launches use the work-group size every run uses (local_size) on a narrow and a wide grid.
 * Oclgrind (whether --device oclgrind or registered by the ICD loader) compiles nothing per
 * launch and would only spend time simulating a million work-items. */
static bool warm_up_kernels(cl_core *b, cl_msg *err)
{
    if (!strcmp(b->dev.platform_name, CL_OCLGRIND_PLATFORM))
        return true;
    uint64_t words[CLP_WORDS] = { 0 };
    /* arg_reduce_columns divides by the last kept size: one kept axis of size 1, 0 outputs. */
    words[CLP_AR_KEPT_RANK] = 1;
    words[CLP_AR_KEPT_SIZE] = 1;
    cl_int rc;
    cl_mem params = clCreateBuffer(b->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                   sizeof words, words, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateBuffer", rc) || cl_msg_prefix(err, "warming up the kernels");
    bool ok = warm_up_launches(b, params, 1, err)
              && warm_up_launches(b, params, WARM_UP_WIDE_GRID, err);
    rc = clFinish(b->queue);
    clReleaseMemObject(params);
    if (ok && rc != CL_SUCCESS)
        ok = cl_fail(err, "clFinish", rc) || cl_msg_prefix(err, "warming up the kernels");
    return ok;
}

cl_core *cl_core_open(const cl_open_options *options, cl_msg *err)
{
    cl_core *b = calloc(1, sizeof *b);
    if (!b) {
        cl_msg_set(err, "out of memory opening the OpenCL backend");
        return NULL;
    }
    double t0 = now_seconds();
    /* Oclgrind is set up through the environment, before the process's first OpenCL call. */
    if (cl_oclgrind_selected(options->device) && !(b->oclgrind = cl_oclgrind_prepare(err))) {
        release_all(b);
        return NULL;
    }
    if (!open_device(b, options->device, err)) {
        release_all(b);
        return NULL;
    }
    double t1 = now_seconds();
    if (!open_program(b, options->build_options, err) || !warm_up_kernels(b, err)) {
        cl_msg_prefix(err, "OpenCL device '%s'", b->dev.name);
        release_all(b);
        return NULL;
    }
    b->stats.context_seconds = t1 - t0;
    b->stats.program_seconds = now_seconds() - t1;
    return b;
}

void cl_core_set_tuning(cl_core *b, const cl_tuning *tuning)
{
    b->tuning = *tuning;
}

const cl_open_stats *cl_core_open_stats(const cl_core *b)
{
    return &b->stats;
}

void cl_core_close(cl_core *b)
{
    if (b) {
        clFinish(b->queue);
        release_all(b);
    }
}

const cl_device_entry *cl_core_device(const cl_core *b)
{
    return &b->dev;
}

bool cl_core_flushes_denormals(const cl_core *b)
{
    return b->flushes_denormals;
}

/* ---- one run ---- */

/* Grows the arena and the host images to fit layout l. */
static bool ensure_capacity(cl_core *b, const arena_layout *l, cl_msg *err)
{
    if (l->total_bytes > b->image_capacity) {
        uint64_t want = l->total_bytes > 2 * b->image_capacity ? l->total_bytes
                                                               : 2 * b->image_capacity;
        uint8_t *in = realloc(b->image_in, want), *out = in ? realloc(b->image_out, want) : NULL;
        if (in)
            b->image_in = in;
        if (out)
            b->image_out = out;
        if (!in || !out)
            return cl_msg_set(err, "out of host memory for a %llu-byte transfer image",
                           (unsigned long long)want);
        b->image_capacity = want;
    }
    if (l->total_bytes <= b->arena_capacity)
        return true;
    uint64_t want = l->total_bytes > 2 * b->arena_capacity ? l->total_bytes
                                                           : 2 * b->arena_capacity;
    if (want > b->dev.max_alloc)
        want = l->total_bytes;
    if (b->arena) {
        clReleaseMemObject(b->arena);
        b->arena = NULL;
        b->arena_capacity = 0;
    }
    cl_int rc;
    b->arena = clCreateBuffer(b->context, CL_MEM_READ_WRITE, want, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateBuffer", rc)
               || cl_msg_prefix(err, "device buffer of %llu bytes", (unsigned long long)want);
    b->arena_capacity = want;
    for (int k = 0; k < CL_KERNEL_COUNT; k++)
        if ((rc = clSetKernelArg(b->kernels[k], 0, sizeof b->arena, &b->arena)) != CL_SUCCESS)
            return cl_fail(err, "clSetKernelArg", rc);
    return true;
}

/* What is written: parameters, input bytes, canaries everywhere else, the scratch region
 * included.  The scratch needs no value, but Oclgrind's uninitialized-value checker does not
 * carry what one kernel stored over to the next, and would report every read of a partial
 * result by arg_reduce_combine if the host had never written those bytes. */
static void image_build(cl_core *b, const arena_layout *l, const cl_plan *plan, const cl_io *io)
{
    uint8_t *img = b->image_in;
    memcpy(img, plan->params, sizeof plan->params);
    memset(img + sizeof plan->params, GUARD_BYTE, l->in_offset - sizeof plan->params);
    memcpy(img + l->in_offset, io->input, l->in_bytes);
    uint64_t in_end = l->in_offset + l->in_bytes;
    memset(img + in_end, GUARD_BYTE, l->total_bytes - in_end);
    memcpy(img + l->out_offset, io->output, l->out_bytes);
    if (l->idx_bytes)
        memcpy(img + l->idx_offset, io->indices, l->idx_bytes);
}

/* Offset of the first byte in [begin, end) where the two images differ, or end. */
static uint64_t first_difference(const uint8_t *a, const uint8_t *b, uint64_t begin,
                                 uint64_t end)
{
    if (end <= begin || !memcmp(a + begin, b + begin, end - begin))
        return end;
    while (a[begin] == b[begin])
        begin++;
    return begin;
}

/* Every byte outside the output buffers must read back as written; the input as the case
 * holds it. */
static cl_status image_check(const cl_core *b, const arena_layout *l, const cl_io *io,
                             const uint8_t *now, cl_msg *err)
{
    const uint8_t *was = b->image_in;
    uint64_t out_end = l->out_offset + l->out_bytes;
    /* Each checked range, and how to name a byte in it for a person. */
    struct {
        uint64_t begin, end;
        const char *format; /* takes the distance from origin */
        uint64_t origin;
    } guards[] = {
        { 0, l->in_offset, "byte %llu of the parameter block", 0 },
        { l->in_offset + l->in_bytes, l->out_offset,
          "%llu bytes before the start of the output buffer", l->out_offset },
        { out_end, l->idx_bytes ? l->idx_offset : l->image_bytes,
          "byte %llu past the end of the output buffer", out_end },
        { l->idx_offset + l->idx_bytes, l->idx_bytes ? l->image_bytes : 0,
          "byte %llu past the end of the indices buffer", l->idx_offset + l->idx_bytes },
    };
    for (size_t g = 0; g < sizeof guards / sizeof guards[0]; g++) {
        uint64_t at = first_difference(was, now, guards[g].begin, guards[g].end);
        if (at < guards[g].end) {
            char where[96];
            uint64_t distance = at >= guards[g].origin ? at - guards[g].origin
                                                       : guards[g].origin - at;
            snprintf(where, sizeof where, guards[g].format, (unsigned long long)distance);
            cl_msg_set(err, "out-of-bounds write: %s changed (written 0x%02x, read back 0x%02x)",
                    where, was[at], now[at]);
            return CL_RUN_OUT_OF_BOUNDS_WRITE;
        }
    }
    uint64_t at = first_difference(io->input, now + l->in_offset, 0, l->in_bytes);
    if (at < l->in_bytes) {
        cl_msg_set(err, "the input buffer changed during the run: byte %llu was 0x%02x, now 0x%02x",
                (unsigned long long)at, io->input[at], now[l->in_offset + at]);
        return CL_RUN_INPUT_MODIFIED;
    }
    return CL_RUN_OK;
}

/* Writes the image in one command.  (Writing a large input straight from the case in a
 * command of its own would save a host copy, but Oclgrind 21.10's uninitialized-value
 * checker then reports the parameter block as uninitialized.) */
static bool enqueue_write(cl_core *b, const arena_layout *l, cl_msg *err)
{
    cl_int rc = clEnqueueWriteBuffer(b->queue, b->arena, CL_FALSE, 0, l->total_bytes,
                                     b->image_in, 0, NULL, NULL);
    return rc == CL_SUCCESS || cl_fail(err, "clEnqueueWriteBuffer", rc);
}

static bool enqueue_plan(cl_core *b, const cl_plan *plan, cl_msg *err)
{
    for (unsigned i = 0; i < plan->launch_count; i++) {
        cl_kernel_id k = plan->launches[i].kernel;
        size_t local = local_size(b, k);
        size_t global = (size_t)((plan->launches[i].work_items + local - 1) / local * local);
        cl_int rc = clEnqueueNDRangeKernel(b->queue, b->kernels[k], 1, NULL, &global, &local, 0,
                                           NULL, NULL);
        if (rc != CL_SUCCESS)
            return cl_fail(err, "clEnqueueNDRangeKernel", rc)
                   || cl_msg_prefix(err, "kernel %s, %zu work-items in groups of %zu",
                                 kernel_names[k], global, local);
    }
    return true;
}

/* Reads the image back, copies the outputs out and checks the rest.  A large image is
 * mapped rather than read: on CPU devices the map is the device memory itself, so the
 * input check costs one comparison instead of a copy and a comparison. */
static cl_status read_back(cl_core *b, const arena_layout *l, const cl_io *io, cl_msg *err)
{
    cl_int rc;
    const uint8_t *now = b->image_out;
    void *mapped = NULL;
    if (l->map_read_back) {
        mapped = clEnqueueMapBuffer(b->queue, b->arena, CL_TRUE, CL_MAP_READ, 0, l->image_bytes,
                                    0, NULL, NULL, &rc);
        now = mapped;
    } else {
        rc = clEnqueueReadBuffer(b->queue, b->arena, CL_TRUE, 0, l->image_bytes, b->image_out, 0,
                                 NULL, NULL);
    }
    if (rc != CL_SUCCESS) {
        clFinish(b->queue);
        cl_fail(err, l->map_read_back ? "clEnqueueMapBuffer" : "clEnqueueReadBuffer", rc);
        return CL_RUN_ERROR;
    }
    memcpy(io->output, now + l->out_offset, l->out_bytes);
    if (l->idx_bytes)
        memcpy(io->indices, now + l->idx_offset, l->idx_bytes);
    cl_status status = image_check(b, l, io, now, err);
    if (mapped) {
        rc = clEnqueueUnmapMemObject(b->queue, b->arena, mapped, 0, NULL, NULL);
        if (rc != CL_SUCCESS && status == CL_RUN_OK) {
            cl_fail(err, "clEnqueueUnmapMemObject", rc);
            status = CL_RUN_ERROR;
        }
    }
    return status;
}

/* The planner of each operator family. */
static cl_plan_fn planner_of(cl_family f)
{
    return f == CL_FAMILY_ARG_REDUCE ? cl_plan_arg_reduce : cl_plan_max_pooling;
}

/* One run on the device: plan, arena, write, launch, read back and check. */
static cl_status run_on_device(cl_core *b, const cl_case *c, const cl_io *io, const cl_exec *opt,
                               cl_msg *err)
{
    cl_exec effective = *opt;
    if (b->flushes_denormals) /* SEMANTICS D6: judged as the flushing device it is */
        effective.flush_denormals = true;
    cl_tuning tuning = b->tuning;
    if (tuning.split_mode == CL_SPLIT_AUTO)
        tuning.split_mode = (b->dev.type & CL_DEVICE_TYPE_CPU) ? CL_SPLIT_CHUNKED
                                                                : CL_SPLIT_INTERLEAVED;
    cl_plan plan;
    planner_of(c->family)(&plan, c, &effective, &tuning);
    if (!io->indices)
        plan.params[CLP_IDX_BYTES] = 0;

    arena_layout l;
    layout_compute(&l, c, io, plan.scratch_bytes);
    if (l.total_bytes > b->dev.max_alloc) {
        cl_msg_set(err, "case needs a %llu-byte device buffer (input %llu, outputs %llu, scratch "
                        "%llu) but CL_DEVICE_MAX_MEM_ALLOC_SIZE of '%s' is %llu",
                   (unsigned long long)l.total_bytes, (unsigned long long)l.in_bytes,
                   (unsigned long long)(l.out_bytes + l.idx_bytes),
                   (unsigned long long)plan.scratch_bytes, b->dev.name,
                   (unsigned long long)b->dev.max_alloc);
        return CL_RUN_UNSUPPORTED;
    }
    if (!ensure_capacity(b, &l, err))
        return CL_RUN_ERROR;
    plan.params[CLP_IN_OFFSET] = l.in_offset;
    plan.params[CLP_OUT_OFFSET] = l.out_offset;
    plan.params[CLP_IDX_OFFSET] = l.idx_offset;
    plan.params[CLP_SCRATCH_OFFSET] = l.scratch_offset;
    plan.params[CLP_ARENA_BYTES] = b->arena_capacity;
    image_build(b, &l, &plan, io);

    if (!enqueue_write(b, &l, err) || !enqueue_plan(b, &plan, err)) {
        clFinish(b->queue);
        return CL_RUN_ERROR;
    }
    return read_back(b, &l, io, err);
}

/* The run's status once a checking device's reports are in: a report fails a run that
 * otherwise passed; a run that failed on its own keeps its status.  The reports are read
 * (and so dropped) either way, so none is charged to the next case. */
static cl_status with_device_reports(cl_core *b, cl_status status, cl_msg *err)
{
    static const cl_status statuses[] = {
        [CL_OCLGRIND_NOTHING] = CL_RUN_OK,
        [CL_OCLGRIND_INVALID_ACCESS] = CL_RUN_INVALID_ACCESS,
        [CL_OCLGRIND_DATA_RACE] = CL_RUN_DATA_RACE,
        [CL_OCLGRIND_UNINITIALISED_READ] = CL_RUN_UNINITIALISED_READ,
        [CL_OCLGRIND_OTHER] = CL_RUN_ERROR,
    };
    cl_msg report = { "" };
    cl_oclgrind_finding found = cl_oclgrind_findings(b->oclgrind, &report);
    if (status != CL_RUN_OK || found == CL_OCLGRIND_NOTHING)
        return status;
    cl_msg_set(err, "%s", report.msg);
    return statuses[found];
}

cl_status cl_core_run(cl_core *b, const cl_case *c, const cl_io *io, const cl_exec *opt, cl_msg *err)
{
    return with_device_reports(b, run_on_device(b, c, io, opt, err), err);
}
