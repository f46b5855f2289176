/*
 * cl_core.c: the OpenCL backend's engine (cl_core.h).
 *
 * Opening picks a device (cl_device.c), creates one context and in-order queue, and builds
 * the program once (cl_program.c, with its on-disk binary cache); the kernel objects live
 * as long as the backend.  A batch of cases (one case is a batch of one) then costs one
 * write, one launch per kernel its cases use and one read:
 *
 *   arena = [ dispatch block | case tables ][ case 1 ][ case 2 ]... [ scratch 1 ][ scratch 2 ]...
 *   case  = [ parameter block | input | guard | output | guard | indices | guard ]
 *           '------------------------- the image (read back) ------------------------'
 *
 * Each kernel's launch covers the work-items of every case that uses it, one after the other;
 * a work-item looks its case up in the kernel's table (cl_params.h, order.cl's batch_case).
 * The host builds the image (dispatch block, then per case its parameters, the input bytes,
 * the caller's canary-filled output buffers, GUARD_BYTE everywhere else), writes it, runs the
 * kernels and reads the image back.  Every byte of a case's region outside its output and
 * indices buffers must read back as written: a changed guard or parameter byte is that case's
 * CL_RUN_OUT_OF_BOUNDS_WRITE, a changed input byte its CL_RUN_INPUT_MODIFIED (both checks are
 * memcmp over bytes already read, so they cost no transfer of their own); a changed byte of
 * the dispatch block fails the whole batch.  Bytes of the outputs the kernels leave alone
 * come back as the caller's own canary.  The arena and the host images grow geometrically
 * and are reused across runs; kernel arguments are set only when the arena is reallocated.
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

#include <sys/mman.h>

#include <CL/cl.h>

#include "cl_oclgrind.h"
#include "cl_program.h"

/* Canary bytes around each output buffer: catches any write past the end by a few
 * elements; every other stray write lands in some checked byte of the image as well. */
#define GUARD_BYTES 256
/* What the guards and the parameter block's padding hold. */
#define GUARD_BYTE 0xA5
/* Batches whose inputs are larger than this are built in the mapped arena and read back by
 * mapping it where the device's memory is the host's (transfer_of); smaller ones are staged:
 * one write and one read are cheaper than two maps and two unmaps for a tiny case. */
#define MAPPED_TRANSFER_BYTES (64u << 10)
/* Default work-group size: a multiple of every common SIMD width, small enough for any
 * device's CL_KERNEL_WORK_GROUP_SIZE. */
#define DEFAULT_LOCAL_SIZE 64

static const char *const kernel_names[CL_KERNEL_COUNT] = {
#define X(id, name) #name,
    CL_KERNELS(X)
#undef X
};

/* Host memory of an image: malloc'd, or pinned (a CL_MEM_ALLOC_HOST_PTR buffer mapped for
 * as long as it lives), which a discrete GPU's DMA engine reads and writes at full speed
 * where pageable memory goes through a bounce buffer of the driver's. */
typedef struct host_image {
    uint8_t *bytes;
    uint64_t capacity;
    cl_mem pinned; /* NULL: bytes is malloc'd */
} host_image;

struct cl_core {
    cl_device_entry dev;
    bool flushes_denormals;
    size_t max_item_size; /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernels[CL_KERNEL_COUNT];
    size_t kernel_work_group[CL_KERNEL_COUNT]; /* CL_KERNEL_WORK_GROUP_SIZE */
    bool host_unified; /* CL_DEVICE_HOST_UNIFIED_MEMORY, or a CPU device */
    bool checking_device; /* Oclgrind, however it was registered */
    cl_mem arena;
    uint64_t arena_capacity;
    void *arena_host; /* the arena's memory on a CPU device (arena_host_alloc); else NULL */
    /* What was written (the whole image when staged; the dispatch block and tables alone
     * when the image is built in the mapped arena) and what was read back. */
    host_image image_in, image_out;
    cl_tuning tuning;
    cl_open_stats stats;
    cl_oclgrind *oclgrind; /* --device oclgrind: its log; NULL on any other device */
    struct batch_slot *slots; /* one per case of the batch being run, reused */
    size_t slot_capacity;
    cl_batch_profile profile; /* the last batch's */
};

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

/* ---- opening and closing ---- */

static void host_image_release(cl_core *b, host_image *img)
{
    if (img->pinned) {
        clEnqueueUnmapMemObject(b->queue, img->pinned, img->bytes, 0, NULL, NULL);
        clFinish(b->queue);
        clReleaseMemObject(img->pinned);
    } else {
        free(img->bytes);
    }
    *img = (host_image){ NULL, 0, NULL };
}

static void release_all(cl_core *b)
{
    for (int k = 0; k < CL_KERNEL_COUNT; k++)
        if (b->kernels[k])
            clReleaseKernel(b->kernels[k]);
    if (b->arena)
        clReleaseMemObject(b->arena);
    free(b->arena_host);
    if (b->queue) {
        host_image_release(b, &b->image_in);
        host_image_release(b, &b->image_out);
    }
    if (b->program)
        clReleaseProgram(b->program);
    if (b->queue)
        clReleaseCommandQueue(b->queue);
    if (b->context)
        clReleaseContext(b->context);
    cl_oclgrind_close(b->oclgrind);
    free(b->slots);
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
    cl_bool unified = CL_FALSE;
    rc = clGetDeviceInfo(b->dev.device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified,
                         NULL);
    b->host_unified = (rc == CL_SUCCESS && unified) || (b->dev.type & CL_DEVICE_TYPE_CPU);
    b->checking_device = b->oclgrind || !strcmp(b->dev.platform_name, CL_OCLGRIND_PLATFORM);
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
    /* Profiling times the launches of each batch (cl_core_kernel_seconds) at the cost of a
     * few clock reads per command. */
    b->queue = clCreateCommandQueue(b->context, b->dev.device, CL_QUEUE_PROFILING_ENABLE, &rc);
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

/* Launches every kernel on a grid of `work_items` that does nothing (the dispatch block gives
 * no kernel a case, so every work-item returns at once). */
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
    /* A dispatch block with no case for any kernel. */
    uint64_t words[CLP_DISPATCH_WORDS] = { 0 };
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
    b->profile.kernel_seconds = -1;
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

double cl_core_kernel_seconds(const cl_core *b)
{
    return b->profile.kernel_seconds;
}

const cl_batch_profile *cl_core_profile(const cl_core *b)
{
    return &b->profile;
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

/* ---- one batch ---- */

/* Byte ranges of one case in a batch's arena: its region [params .. end) is
 * [ parameter block | input | guard | output | guard | indices | guard ], its scratch lies
 * after every region. */
typedef struct case_layout {
    uint64_t params_offset;
    uint64_t in_offset, in_bytes;
    uint64_t out_offset, out_bytes;
    uint64_t idx_offset, idx_bytes; /* idx_bytes 0: no indices tensor */
    uint64_t end;                   /* past the last guard; aligned */
    uint64_t scratch_offset, scratch_bytes;
} case_layout;

/* A case of the batch being run: its job, plan and place. */
typedef struct batch_slot {
    cl_job *job;
    cl_plan plan;
    case_layout l;
} batch_slot;

/* A batch's arena: the dispatch block and tables, the regions, the scratches. */
typedef struct batch_layout {
    uint64_t table_offset[CL_KERNEL_COUNT];
    uint64_t table_cases[CL_KERNEL_COUNT];
    uint64_t work_items[CL_KERNEL_COUNT]; /* of each kernel's launch */
    int position[CL_KERNEL_COUNT];        /* its place in the plans' launch order; -1: none */
    uint64_t tables_end;                  /* the dispatch block, tables and padding end here */
    uint64_t image_bytes;                 /* read back and checked: everything but scratch */
    uint64_t total_bytes;                 /* written: the image and the scratches */
    uint64_t input_bytes;                 /* every case's input */
} batch_layout;

/* Cases are packed into one batch while its arena stays within this size: beyond it a
 * launch's fixed cost is small next to the transfers, and the host images stay modest. */
#define BATCH_ARENA_BYTES (8u << 20)

/* Places a case's region at base (aligned); its scratch is placed later. */
static void case_place(case_layout *l, const cl_case *c, const cl_io *io, uint64_t scratch_bytes,
                       uint64_t base)
{
    l->params_offset = base;
    l->in_offset = align_up(base + CLP_WORDS * sizeof(uint64_t));
    l->in_bytes = c->input.total_bytes;
    l->out_offset = align_up(l->in_offset + l->in_bytes + GUARD_BYTES);
    l->out_bytes = io->output_bytes;
    uint64_t end = l->out_offset + l->out_bytes;
    l->idx_offset = 0;
    l->idx_bytes = 0;
    if (c->indices.present && io->indices) {
        l->idx_offset = align_up(end + GUARD_BYTES);
        l->idx_bytes = io->indices_bytes;
        end = l->idx_offset + l->idx_bytes;
    }
    l->end = align_up(end + GUARD_BYTES);
    l->scratch_bytes = align_up(scratch_bytes);
    l->scratch_offset = 0;
}

/* The bytes a case adds to a batch: its region and its scratch. */
static uint64_t case_footprint(const batch_slot *s)
{
    return s->l.end - s->l.params_offset + s->l.scratch_bytes;
}

/* The dispatch block and one one-case table: what a case alone needs besides its footprint. */
static uint64_t dispatch_bytes(size_t cases)
{
    return align_up((CLP_DISPATCH_WORDS + 2 * cases + CL_KERNEL_COUNT) * sizeof(uint64_t));
}

/* The planner of each operator family. */
static cl_plan_fn planner_of(cl_family f)
{
    return f == CL_FAMILY_ARG_REDUCE ? cl_plan_arg_reduce : cl_plan_max_pooling;
}

/* Plans job j: the plan, and its region's size in s->l (placed at 0). */
static void slot_plan(cl_core *b, batch_slot *s, cl_job *j)
{
    s->job = j;
    cl_exec effective = j->exec;
    if (b->flushes_denormals) /* SEMANTICS D6: judged as the flushing device it is */
        effective.flush_denormals = true;
    cl_tuning tuning = b->tuning;
    if (tuning.split_mode == CL_SPLIT_AUTO)
        tuning.split_mode = (b->dev.type & CL_DEVICE_TYPE_CPU) ? CL_SPLIT_CHUNKED
                                                                : CL_SPLIT_INTERLEAVED;
    planner_of(j->c->family)(&s->plan, j->c, &effective, &tuning);
    if (!j->io.indices)
        s->plan.params[CLP_IDX_BYTES] = 0;
    case_place(&s->l, j->c, &j->io, s->plan.scratch_bytes, 0);
}

/* A case too big for the device on its own is unsupported; false then. */
static bool slot_fits_device(const cl_core *b, batch_slot *s)
{
    uint64_t total = dispatch_bytes(1) + case_footprint(s);
    if (total <= b->dev.max_alloc)
        return true;
    cl_msg_set(&s->job->err, "case needs a %llu-byte device buffer (input %llu, outputs %llu, "
               "scratch %llu) but CL_DEVICE_MAX_MEM_ALLOC_SIZE of '%s' is %llu",
               (unsigned long long)total, (unsigned long long)s->l.in_bytes,
               (unsigned long long)(s->l.out_bytes + s->l.idx_bytes),
               (unsigned long long)s->plan.scratch_bytes, b->dev.name,
               (unsigned long long)b->dev.max_alloc);
    s->job->status = CL_RUN_UNSUPPORTED;
    return false;
}

/* Lays out the batch of slots[0, n): tables, regions, scratches, and each case's offsets in
 * its parameter block. */
static void batch_place(const cl_core *b, batch_slot *slots, size_t n, batch_layout *bl)
{
    memset(bl, 0, sizeof *bl);
    for (int k = 0; k < CL_KERNEL_COUNT; k++)
        bl->position[k] = -1;
    for (size_t i = 0; i < n; i++)
        for (unsigned p = 0; p < slots[i].plan.launch_count; p++) {
            cl_kernel_id k = slots[i].plan.launches[p].kernel;
            bl->table_cases[k]++;
            bl->position[k] = (int)p;
        }
    uint64_t at = CLP_DISPATCH_WORDS * sizeof(uint64_t);
    for (int k = 0; k < CL_KERNEL_COUNT; k++) {
        bl->table_offset[k] = at;
        at += bl->table_cases[k] ? (2 * bl->table_cases[k] + 1) * sizeof(uint64_t) : 0;
    }
    at = bl->tables_end = align_up(at);
    for (size_t i = 0; i < n; i++) {
        const cl_job *j = slots[i].job;
        case_place(&slots[i].l, j->c, &j->io, slots[i].plan.scratch_bytes, at);
        at = slots[i].l.end;
        bl->input_bytes += slots[i].l.in_bytes;
    }
    bl->image_bytes = at;
    for (size_t i = 0; i < n; i++) {
        slots[i].l.scratch_offset = at;
        at += slots[i].l.scratch_bytes;
    }
    bl->total_bytes = at;
    for (size_t i = 0; i < n; i++) {
        uint64_t *p = slots[i].plan.params;
        const case_layout *l = &slots[i].l;
        p[CLP_IN_OFFSET] = l->in_offset;
        p[CLP_OUT_OFFSET] = l->out_offset;
        p[CLP_IDX_OFFSET] = l->idx_offset;
        p[CLP_SCRATCH_OFFSET] = l->scratch_offset;
        p[CLP_ARENA_BYTES] = b->arena_capacity;
    }
}

/* Huge pages: what the arena's memory is aligned to and asks for. */
#define HUGE_PAGE_BYTES ((uint64_t)2 << 20)

/* On a CPU device the arena is host memory the kernels read in place, so the host chooses
 * its pages: 2 MiB aligned and advised as huge pages (transparent huge pages are often
 * "madvise" only).  With 4 KiB pages a read-only pass over 64 MiB here runs at 12 GB/s
 * without software prefetch (which OpenCL C cannot ask for portably) and 28 GB/s with huge
 * pages; the argmax kernels gained 20-25 %.  NULL (the driver allocates) for other devices,
 * whose memory is not the host's, for Oclgrind (it checks accesses against its own copy)
 * and for arenas below one huge page. */
static void *arena_host_alloc(const cl_core *b, uint64_t bytes)
{
    if (!(b->dev.type & CL_DEVICE_TYPE_CPU) || b->checking_device || bytes < HUGE_PAGE_BYTES)
        return NULL;
    uint64_t rounded = (bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    void *p = aligned_alloc(HUGE_PAGE_BYTES, rounded);
#ifdef MADV_HUGEPAGE
    if (p)
        madvise(p, rounded, MADV_HUGEPAGE); /* advice only: without it the kernels are slower */
#endif
    return p;
}

/* How a batch's image reaches the device and comes back (cl_transfer): the tuning's, else
 * mapped where the device's memory is the host's and the inputs are large enough for two
 * more commands to pay, pinned staging on a discrete device, plain staging on a checking
 * device (Oclgrind misreports a buffer written by several commands, and a map is one per
 * region it hands out) and for small batches on the others. */
static cl_transfer transfer_of(const cl_core *b, const batch_layout *bl)
{
    if (b->tuning.transfer != CL_TRANSFER_AUTO)
        return b->tuning.transfer;
    if (b->checking_device)
        return CL_TRANSFER_STAGED;
    if (!b->host_unified)
        return CL_TRANSFER_PINNED;
    return bl->input_bytes > MAPPED_TRANSFER_BYTES ? CL_TRANSFER_MAPPED : CL_TRANSFER_STAGED;
}

/* img holds at least `bytes`, pinned or not as asked; the old contents go. */
static bool host_image_fit(cl_core *b, host_image *img, uint64_t bytes, bool pinned, cl_msg *err)
{
    bool same_kind = pinned == (img->pinned != NULL);
    if (bytes <= img->capacity && same_kind)
        return true;
    /* Geometric growth, but only over an image of the same kind (a tuning may switch). */
    uint64_t grown = same_kind ? 2 * img->capacity : 0;
    uint64_t want = bytes > grown ? bytes : grown;
    if (pinned && want > b->dev.max_alloc)
        want = bytes;
    host_image_release(b, img);
    if (!pinned) {
        img->bytes = malloc(want);
        img->capacity = img->bytes ? want : 0;
        return img->bytes || cl_msg_set(err, "out of host memory for a %llu-byte transfer image",
                                        (unsigned long long)want);
    }
    cl_int rc;
    img->pinned = clCreateBuffer(b->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, want,
                                 NULL, &rc);
    if (rc == CL_SUCCESS)
        img->bytes = clEnqueueMapBuffer(b->queue, img->pinned, CL_TRUE,
                                        CL_MAP_READ | CL_MAP_WRITE, 0, want, 0, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        if (img->pinned)
            clReleaseMemObject(img->pinned);
        *img = (host_image){ NULL, 0, NULL };
        return cl_fail(err, "pinned transfer image", rc)
               || cl_msg_prefix(err, "%llu bytes", (unsigned long long)want);
    }
    img->capacity = want;
    return true;
}

/* The arena's flags: host memory the kernels use in place on a CPU device (arena_host), the
 * driver's host-visible memory on another device that shares the host's (a map is then no
 * copy), plain device memory elsewhere. */
static cl_mem_flags arena_flags(const cl_core *b)
{
    if (b->arena_host)
        return CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR;
    if (b->host_unified && !b->checking_device && !(b->dev.type & CL_DEVICE_TYPE_CPU))
        return CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR;
    return CL_MEM_READ_WRITE;
}

/* Grows the arena to total bytes, and the host images the transfer t uses: both images
 * when staged, only the dispatch block's room in image_in when mapped. */
static bool ensure_capacity(cl_core *b, uint64_t total, uint64_t tables_end, cl_transfer t,
                            cl_msg *err)
{
    bool staged = t != CL_TRANSFER_MAPPED, pinned = t == CL_TRANSFER_PINNED;
    if (!host_image_fit(b, &b->image_in, staged ? total : tables_end, pinned, err)
        || (staged && !host_image_fit(b, &b->image_out, total, pinned, err)))
        return false;
    if (total <= b->arena_capacity)
        return true;
    uint64_t want = total > 2 * b->arena_capacity ? total : 2 * b->arena_capacity;
    if (want > b->dev.max_alloc)
        want = total;
    if (b->arena) {
        clFinish(b->queue); /* the last unmap, before the memory under it goes */
        clReleaseMemObject(b->arena);
        b->arena = NULL;
        b->arena_capacity = 0;
        free(b->arena_host);
        b->arena_host = NULL;
    }
    cl_int rc;
    b->arena_host = arena_host_alloc(b, want);
    b->arena = clCreateBuffer(b->context, arena_flags(b), want, b->arena_host, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateBuffer", rc)
               || cl_msg_prefix(err, "device buffer of %llu bytes", (unsigned long long)want);
    b->arena_capacity = want;
    for (int k = 0; k < CL_KERNEL_COUNT; k++)
        if ((rc = clSetKernelArg(b->kernels[k], 0, sizeof b->arena, &b->arena)) != CL_SUCCESS)
            return cl_fail(err, "clSetKernelArg", rc);
    return true;
}

/* The dispatch block and each kernel's table (cl_params.h) into img. */
static void dispatch_build(uint8_t *img, const batch_slot *slots, size_t n, batch_layout *bl)
{
    uint64_t words[CLP_DISPATCH_WORDS] = { 0 };
    for (int k = 0; k < CL_KERNEL_COUNT; k++) {
        words[2 * k] = bl->table_offset[k];
        words[2 * k + 1] = bl->table_cases[k];
        if (!bl->table_cases[k])
            continue;
        uint64_t *table = (uint64_t *)(img + bl->table_offset[k]);
        uint64_t first = 0, entry = 0;
        for (size_t i = 0; i < n; i++) {
            const cl_plan *plan = &slots[i].plan;
            for (unsigned p = 0; p < plan->launch_count; p++)
                if (plan->launches[p].kernel == (cl_kernel_id)k) {
                    table[2 * entry] = first;
                    table[2 * entry + 1] = slots[i].l.params_offset;
                    entry++;
                    first += plan->launches[p].work_items;
                }
        }
        table[2 * entry] = first;
        bl->work_items[k] = first;
    }
    memcpy(img, words, sizeof words);
}

/* What is written, into img (the staged image, or the mapped arena): the dispatch block,
 * then per case its parameters, input bytes, the caller's canary-filled outputs and
 * GUARD_BYTE everywhere else, the scratch included.  The dispatch block and tables are also
 * kept at the head of image_in, to check them against.  The scratch needs no value, but
 * Oclgrind's uninitialized-value checker does not carry what one kernel stored over to the
 * next, and would report every read of a partial result by arg_reduce_combine if the host
 * had never written those bytes. */
static void image_build(cl_core *b, uint8_t *img, const batch_slot *slots, size_t n,
                        batch_layout *bl)
{
    uint8_t *head = b->image_in.bytes;
    memset(head, GUARD_BYTE, bl->tables_end);
    dispatch_build(head, slots, n, bl);
    if (img != head)
        memcpy(img, head, bl->tables_end);
    for (size_t i = 0; i < n; i++) {
        const case_layout *l = &slots[i].l;
        const cl_io *io = &slots[i].job->io;
        const uint64_t params_end = l->params_offset + sizeof slots[i].plan.params;
        memcpy(img + l->params_offset, slots[i].plan.params, sizeof slots[i].plan.params);
        memset(img + params_end, GUARD_BYTE, l->in_offset - params_end);
        memcpy(img + l->in_offset, io->input, l->in_bytes);
        uint64_t in_end = l->in_offset + l->in_bytes;
        memset(img + in_end, GUARD_BYTE, l->end - in_end);
        memcpy(img + l->out_offset, io->output, l->out_bytes);
        if (l->idx_bytes)
            memcpy(img + l->idx_offset, io->indices, l->idx_bytes);
    }
    memset(img + bl->image_bytes, GUARD_BYTE, bl->total_bytes - bl->image_bytes);
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

/* Offset of the first byte in [begin, end) that is not GUARD_BYTE, or end. */
static uint64_t first_not_guard(const uint8_t *now, uint64_t begin, uint64_t end)
{
    while (begin < end && now[begin] == GUARD_BYTE)
        begin++;
    return begin;
}

/* Every byte of a case's region outside its output buffers must read back as written: the
 * parameter block as planned, the guards and padding as GUARD_BYTE, the input as the case
 * holds it.  A batch's cases have regions of their own, so a stray write is charged to the
 * case whose region it hit. */
static cl_status image_check(const batch_slot *s, const uint8_t *now, cl_msg *err)
{
    const case_layout *l = &s->l;
    const cl_io *io = &s->job->io;
    const uint8_t *params = (const uint8_t *)s->plan.params;
    uint64_t params_end = l->params_offset + sizeof s->plan.params;
    uint64_t at = first_difference(params, now + l->params_offset, 0, sizeof s->plan.params);
    if (at < sizeof s->plan.params) {
        cl_msg_set(err, "out-of-bounds write: byte %llu of the parameter block changed (written "
                   "0x%02x, read back 0x%02x)", (unsigned long long)at, params[at],
                   now[l->params_offset + at]);
        return CL_RUN_OUT_OF_BOUNDS_WRITE;
    }
    uint64_t out_end = l->out_offset + l->out_bytes;
    /* Each guard, and how to name a byte in it for a person. */
    struct {
        uint64_t begin, end;
        const char *format; /* takes the distance from origin */
        uint64_t origin;
    } guards[] = {
        { params_end, l->in_offset, "byte %llu of the parameter block", l->params_offset },
        { l->in_offset + l->in_bytes, l->out_offset,
          "%llu bytes before the start of the output buffer", l->out_offset },
        { out_end, l->idx_bytes ? l->idx_offset : l->end,
          "byte %llu past the end of the output buffer", out_end },
        { l->idx_offset + l->idx_bytes, l->idx_bytes ? l->end : 0,
          "byte %llu past the end of the indices buffer", l->idx_offset + l->idx_bytes },
    };
    for (size_t g = 0; g < sizeof guards / sizeof guards[0]; g++) {
        at = first_not_guard(now, guards[g].begin, guards[g].end);
        if (at < guards[g].end) {
            char where[96];
            uint64_t distance = at >= guards[g].origin ? at - guards[g].origin
                                                       : guards[g].origin - at;
            snprintf(where, sizeof where, guards[g].format, (unsigned long long)distance);
            cl_msg_set(err, "out-of-bounds write: %s changed (written 0x%02x, read back 0x%02x)",
                    where, GUARD_BYTE, now[at]);
            return CL_RUN_OUT_OF_BOUNDS_WRITE;
        }
    }
    at = first_difference(io->input, now + l->in_offset, 0, l->in_bytes);
    if (at < l->in_bytes) {
        cl_msg_set(err, "the input buffer changed during the run: byte %llu was 0x%02x, now 0x%02x",
                (unsigned long long)at, io->input[at], now[l->in_offset + at]);
        return CL_RUN_INPUT_MODIFIED;
    }
    return CL_RUN_OK;
}

/* The launches of a batch, first and last, for their device time. */
typedef struct launch_events {
    cl_event first, last;
} launch_events;

/* Seconds from the start of `first` to the end of `last` by the queue's profiling clock, or
 * -1 when the device does not say. */
static double event_span(cl_event first, cl_event last)
{
    cl_ulong start = 0, end = 0;
    if (first && last
        && clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL)
               == CL_SUCCESS
        && clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL)
               == CL_SUCCESS
        && end >= start)
        return (double)(end - start) * 1e-9;
    return -1;
}

/* event_span of one command, then the event released; -1 without one. */
static double event_seconds(cl_event *e)
{
    double seconds = event_span(*e, *e);
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
    return seconds;
}

/* Seconds from the first launch's start to the last one's end, or -1 when the device does
 * not say; releases the events. */
static double launch_events_seconds(launch_events *e)
{
    double seconds = event_span(e->first, e->last);
    if (e->last && e->last != e->first)
        clReleaseEvent(e->last);
    if (e->first)
        clReleaseEvent(e->first);
    e->first = e->last = NULL;
    return seconds;
}

/* One launch per kernel the batch uses, in the plans' launch order (the combine pass after
 * the partial results it folds; the queue is in order). */
static bool enqueue_launches(cl_core *b, const batch_layout *bl, launch_events *events,
                             cl_msg *err)
{
    for (int position = 0; position < CL_PLAN_MAX_LAUNCHES; position++)
        for (int k = 0; k < CL_KERNEL_COUNT; k++) {
            if (bl->position[k] != position || !bl->work_items[k])
                continue;
            size_t local = local_size(b, (cl_kernel_id)k);
            size_t global = (size_t)((bl->work_items[k] + local - 1) / local * local);
            cl_event done = NULL;
            cl_int rc = clEnqueueNDRangeKernel(b->queue, b->kernels[k], 1, NULL, &global, &local,
                                               0, NULL, &done);
            if (rc != CL_SUCCESS)
                return cl_fail(err, "clEnqueueNDRangeKernel", rc)
                       || cl_msg_prefix(err, "kernel %s, %zu work-items in groups of %zu",
                                        kernel_names[k], global, local);
            if (!events->first)
                events->first = done;
            else if (events->last != events->first)
                clReleaseEvent(events->last);
            events->last = done;
        }
    return true;
}

/* Every case of the batch gets status s and message m. */
static void batch_fail(batch_slot *slots, size_t n, cl_status s, const cl_msg *m)
{
    for (size_t i = 0; i < n; i++) {
        slots[i].job->status = s;
        slots[i].job->err = *m;
    }
}

/* Each case's outputs and checks from the image read back (now). */
static void batch_check(cl_core *b, batch_slot *slots, size_t n, const batch_layout *bl,
                        const uint8_t *now)
{
    const uint8_t *head = b->image_in.bytes;
    uint64_t at = first_difference(head, now, 0, bl->tables_end);
    if (at < bl->tables_end) {
        cl_msg m;
        cl_msg_set(&m, "out-of-bounds write: byte %llu of the batch's dispatch block changed "
                   "(written 0x%02x, read back 0x%02x); it belongs to no one case of the %zu",
                   (unsigned long long)at, head[at], now[at], n);
        batch_fail(slots, n, CL_RUN_OUT_OF_BOUNDS_WRITE, &m);
    }
    for (size_t i = 0; i < n; i++) {
        const case_layout *l = &slots[i].l;
        cl_job *j = slots[i].job;
        memcpy(j->io.output, now + l->out_offset, l->out_bytes);
        if (l->idx_bytes)
            memcpy(j->io.indices, now + l->idx_offset, l->idx_bytes);
        if (j->status == CL_RUN_OK)
            j->status = image_check(&slots[i], now, &j->err);
    }
}

/* A failed command: every case of the batch fails with it (after the queue drains). */
static void batch_command_failed(cl_core *b, batch_slot *slots, size_t n, const char *call,
                                 cl_int rc)
{
    clFinish(b->queue);
    cl_msg m;
    cl_fail(&m, call, rc);
    batch_fail(slots, n, CL_RUN_ERROR, &m);
}

/* The image written: built in image_in and written in one command (staged, pinned), or built
 * in the arena itself, mapped (on a device whose memory is the host's, that is no copy). */
static bool write_image(cl_core *b, cl_transfer t, batch_slot *slots, size_t n, batch_layout *bl,
                        cl_event *written, cl_msg *err)
{
    double t0 = now_seconds();
    if (t != CL_TRANSFER_MAPPED) {
        image_build(b, b->image_in.bytes, slots, n, bl);
        b->profile.image_seconds = now_seconds() - t0;
        cl_int rc = clEnqueueWriteBuffer(b->queue, b->arena, CL_FALSE, 0, bl->total_bytes,
                                         b->image_in.bytes, 0, NULL, written);
        return rc == CL_SUCCESS || cl_fail(err, "clEnqueueWriteBuffer", rc);
    }
    cl_int rc;
    uint8_t *img = clEnqueueMapBuffer(b->queue, b->arena, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                      0, bl->total_bytes, 0, NULL, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clEnqueueMapBuffer(CL_MAP_WRITE_INVALIDATE_REGION)", rc);
    double t1 = now_seconds();
    b->profile.map_seconds = t1 - t0;
    image_build(b, img, slots, n, bl);
    b->profile.image_seconds = now_seconds() - t1;
    rc = clEnqueueUnmapMemObject(b->queue, b->arena, img, 0, NULL, written);
    return rc == CL_SUCCESS || cl_fail(err, "clEnqueueUnmapMemObject", rc);
}

/* Reads the image back and checks every case: into image_out (staged, pinned), or by mapping
 * the arena (on a device whose memory is the host's the map is the device memory itself, so
 * the checks read it in place). */
static void read_back(cl_core *b, cl_transfer t, batch_slot *slots, size_t n,
                      const batch_layout *bl, bool timed)
{
    cl_int rc;
    cl_event read = NULL, *read_event = timed ? &read : NULL;
    const uint8_t *now = b->image_out.bytes;
    void *mapped = NULL;
    bool map = t == CL_TRANSFER_MAPPED;
    if (map)
        now = mapped = clEnqueueMapBuffer(b->queue, b->arena, CL_TRUE, CL_MAP_READ, 0,
                                          bl->image_bytes, 0, NULL, read_event, &rc);
    else
        rc = clEnqueueReadBuffer(b->queue, b->arena, CL_TRUE, 0, bl->image_bytes,
                                 b->image_out.bytes, 0, NULL, read_event);
    b->profile.read_seconds = event_seconds(&read);
    if (rc != CL_SUCCESS) {
        batch_command_failed(b, slots, n, map ? "clEnqueueMapBuffer" : "clEnqueueReadBuffer", rc);
        return;
    }
    double t0 = now_seconds();
    batch_check(b, slots, n, bl, now);
    b->profile.check_seconds = now_seconds() - t0;
    if (mapped) {
        rc = clEnqueueUnmapMemObject(b->queue, b->arena, mapped, 0, NULL, NULL);
        cl_msg m;
        if (rc != CL_SUCCESS && cl_fail(&m, "clEnqueueUnmapMemObject", rc))
            for (size_t i = 0; i < n; i++)
                if (slots[i].job->status == CL_RUN_OK) {
                    slots[i].job->status = CL_RUN_ERROR;
                    slots[i].job->err = m;
                }
    }
}

/* One batch on the device: arena, one write, one launch per kernel, one read, the checks.
 * Its phases go to b->profile (write and read times only for a batch above
 * MAPPED_TRANSFER_BYTES of input). */
static void run_batch_on_device(cl_core *b, batch_slot *slots, size_t n)
{
    double t0 = now_seconds();
    b->profile = (cl_batch_profile){ .kernel_seconds = -1, .write_seconds = -1,
                                     .read_seconds = -1 };
    batch_layout bl;
    batch_place(b, slots, n, &bl);
    cl_transfer t = transfer_of(b, &bl);
    b->profile.transfer = t;
    b->profile.input_bytes = bl.input_bytes;
    cl_msg err = { "" };
    if (!ensure_capacity(b, bl.total_bytes, bl.tables_end, t, &err)) {
        batch_fail(slots, n, CL_RUN_ERROR, &err);
        return;
    }
    batch_place(b, slots, n, &bl); /* CLP_ARENA_BYTES: the capacity may have grown */
    launch_events events = { NULL, NULL };
    cl_event written = NULL;
    /* The transfers are timed for large batches only: two more events cost a tiny case
     * several microseconds on PoCL, and only a large one's profile is read (dmlcheck bench). */
    bool timed = bl.input_bytes > MAPPED_TRANSFER_BYTES;
    bool ok = write_image(b, t, slots, n, &bl, timed ? &written : NULL, &err)
              && enqueue_launches(b, &bl, &events, &err);
    if (!ok) {
        clFinish(b->queue);
        launch_events_seconds(&events);
        event_seconds(&written);
        batch_fail(slots, n, CL_RUN_ERROR, &err);
        return;
    }
    read_back(b, t, slots, n, &bl, timed);
    b->profile.write_seconds = event_seconds(&written);
    b->profile.kernel_seconds = launch_events_seconds(&events);
    b->profile.total_seconds = now_seconds() - t0;
}

/* The run's status once a checking device's reports are in: a report fails a run that
 * otherwise passed; a run that failed on its own keeps its status.  The reports are read
 * (and so dropped) either way, so none is charged to the next case. */
static void with_device_reports(cl_core *b, cl_job *j)
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
    if (j->status != CL_RUN_OK || found == CL_OCLGRIND_NOTHING)
        return;
    j->err = report;
    j->status = statuses[found];
}

static bool grow_slots(cl_core *b, size_t count)
{
    if (count <= b->slot_capacity)
        return true;
    batch_slot *s = realloc(b->slots, count * sizeof *s);
    if (!s)
        return false;
    b->slots = s;
    b->slot_capacity = count;
    return true;
}

void cl_core_run_batch(cl_core *b, cl_job *jobs, size_t count)
{
    if (!grow_slots(b, count)) {
        cl_msg m;
        cl_msg_set(&m, "out of host memory for a batch of %zu cases", count);
        for (size_t i = 0; i < count; i++) {
            jobs[i].status = CL_RUN_ERROR;
            jobs[i].err = m;
        }
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        jobs[i].status = CL_RUN_OK;
        jobs[i].err.msg[0] = 0;
        slot_plan(b, &b->slots[n], &jobs[i]);
        n += slot_fits_device(b, &b->slots[n]);
    }
    /* Consecutive cases share an arena while it stays small.  On --device oclgrind each case
     * runs alone: Oclgrind's reports name addresses in a launch, not cases, and a report is
     * charged to the case that was run. */
    for (size_t first = 0, end; first < n; first = end) {
        uint64_t bytes = dispatch_bytes(1) + case_footprint(&b->slots[first]);
        for (end = first + 1; !b->oclgrind && end < n; end++) {
            uint64_t more = case_footprint(&b->slots[end]) + 2 * sizeof(uint64_t) * CL_PLAN_MAX_LAUNCHES;
            if (bytes + more > BATCH_ARENA_BYTES || bytes + more > b->dev.max_alloc)
                break;
            bytes += more;
        }
        run_batch_on_device(b, &b->slots[first], end - first);
        if (b->oclgrind)
            with_device_reports(b, b->slots[first].job);
    }
}

cl_status cl_core_run(cl_core *b, const cl_case *c, const cl_io *io, const cl_exec *opt, cl_msg *err)
{
    cl_job job = { .c = c, .io = *io, .exec = *opt };
    cl_core_run_batch(b, &job, 1);
    if (job.status != CL_RUN_OK)
        *err = job.err;
    return job.status;
}

/* A plain buffer of `bytes` and pinned host memory of the same size: the transfers a run's
 * image makes, without the image, the kernels or the checks. */
bool cl_core_measure_transfer(cl_core *b, uint64_t bytes, unsigned repeat, double *to_device,
                              double *from_device, cl_msg *err)
{
    *to_device = *from_device = -1;
    host_image host = { NULL, 0, NULL };
    cl_int rc;
    cl_mem device = clCreateBuffer(b->context, CL_MEM_READ_WRITE, bytes, NULL, &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateBuffer", rc)
               || cl_msg_prefix(err, "transfer measurement, %llu bytes", (unsigned long long)bytes);
    bool ok = host_image_fit(b, &host, bytes, true, err);
    if (ok)
        memset(host.bytes, GUARD_BYTE, bytes);
    for (unsigned r = 0; ok && r <= repeat; r++) { /* the first of each warms pages and paths */
        double t0 = now_seconds();
        rc = clEnqueueWriteBuffer(b->queue, device, CL_TRUE, 0, bytes, host.bytes, 0, NULL, NULL);
        double t1 = now_seconds();
        if (rc == CL_SUCCESS)
            rc = clEnqueueReadBuffer(b->queue, device, CL_TRUE, 0, bytes, host.bytes, 0, NULL, NULL);
        double t2 = now_seconds();
        if (rc != CL_SUCCESS)
            ok = cl_fail(err, "transfer measurement", rc);
        else if (r > 0) {
            double to = (double)bytes / (t1 - t0), from = (double)bytes / (t2 - t1);
            *to_device = to > *to_device ? to : *to_device;
            *from_device = from > *from_device ? from : *from_device;
        }
    }
    host_image_release(b, &host);
    clReleaseMemObject(device);
    return ok;
}
