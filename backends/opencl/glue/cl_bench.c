/*
 * cl_bench.c: start-up and tiny-case overhead of the OpenCL backend (cl_bench.h).  Wall
 * times from CLOCK_MONOTONIC; overhead is the mean over many runs of the whole
 * backend_vtable.run call (plan, image build, write, launch, read, guard and input checks),
 * exactly what a harness pays per case.
 */
#include "cl_bench.h"
#include "clock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl_link.h"
extern const backend_vtable reference_backend; /* backends/backend.c's registry */

/* Opens and closes once with the binary cache on or off; records the open's split. */
static bool open_once(const char *device, bool cache, double *context_ms, double *program_ms,
                      bool *from_cache, dmlc_error *err)
{
    const char *saved = getenv("DMLCHECK_CL_CACHE");
    char *saved_copy = saved ? strdup(saved) : NULL;
    if (!cache)
        setenv("DMLCHECK_CL_CACHE", "0", 1);
    cl_open_options options = { .device = device, .build_options = NULL };
    backend *b = cl_backend_open(&options, err);
    if (saved_copy)
        setenv("DMLCHECK_CL_CACHE", saved_copy, 1);
    else
        unsetenv("DMLCHECK_CL_CACHE");
    free(saved_copy);
    if (!b)
        return false;
    const cl_open_stats *st = cl_backend_open_stats(b);
    *context_ms = st->context_seconds * 1e3;
    *program_ms = st->program_seconds * 1e3;
    if (from_cache)
        *from_cache = st->program_from_cache;
    opencl_backend.close(b);
    return true;
}

bool cl_bench_measure_startup(const char *device, cl_bench_startup *out, dmlc_error *err)
{
    memset(out, 0, sizeof *out);
    /* The first cached open fills the cache when it is empty; the second is the warm one. */
    double ignored_context, ignored_program;
    return open_once(device, false, &out->cold_context_ms, &out->cold_program_ms, NULL, err)
           && open_once(device, true, &ignored_context, &ignored_program, NULL, err)
           && open_once(device, true, &out->warm_context_ms, &out->warm_program_ms,
                        &out->warm_from_cache, err);
}

static void tiny_tensor(case_tensor *t, DML_TENSOR_DATA_TYPE type, unsigned rank,
                        const UINT *sizes)
{
    memset(t, 0, sizeof *t);
    t->present = true;
    t->type = type;
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
}

/* A 16-element FLOAT32 ARGMAX over its only axis. */
static bool tiny_argmax(dml_case *c)
{
    case_init(c);
    c->op = OP_ARGMAX;
    c->feature_level = DML_FEATURE_LEVEL_5_0;
    UINT in_sizes[1] = { 16 }, out_sizes[1] = { 1 };
    tiny_tensor(&c->input, DML_TENSOR_DATA_TYPE_FLOAT32, 1, in_sizes);
    tiny_tensor(&c->output, DML_TENSOR_DATA_TYPE_UINT32, 1, out_sizes);
    c->axis_count = 1;
    c->axes[0] = 0;
    case_link(c);
    c->input_data = calloc(1, case_tensor_bytes(&c->input));
    for (unsigned i = 0; c->input_data && i < 16; i++)
        memcpy(c->input_data + 4 * i, &(float){ (float)((i * 7) % 16) }, 4);
    return c->input_data != NULL;
}

/* A 1x1x4x4 FLOAT32 MAX_POOLING2, 2x2 window, stride 2, with UINT32 indices. */
static bool tiny_pooling(dml_case *c)
{
    case_init(c);
    c->op = OP_MAX_POOLING2;
    c->feature_level = DML_FEATURE_LEVEL_5_0;
    UINT in_sizes[4] = { 1, 1, 4, 4 }, out_sizes[4] = { 1, 1, 2, 2 };
    tiny_tensor(&c->input, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes);
    tiny_tensor(&c->output, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes);
    tiny_tensor(&c->indices, DML_TENSOR_DATA_TYPE_UINT32, 4, out_sizes);
    c->spatial_count = 2;
    for (unsigned s = 0; s < 2; s++) {
        c->pool_strides[s] = 2;
        c->window[s] = 2;
        c->dilations[s] = 1;
    }
    case_link(c);
    c->input_data = calloc(1, case_tensor_bytes(&c->input));
    for (unsigned i = 0; c->input_data && i < 16; i++)
        memcpy(c->input_data + 4 * i, &(float){ (float)((i * 5) % 16) }, 4);
    return c->input_data != NULL;
}

/* Microseconds per run of c on (vt, b): the best of BATCHES batch means (the machine may be
 * shared, and the best batch is the one least disturbed), after two warm-up runs. */
#define BATCHES 10
static double time_runs(const backend_vtable *vt, backend *b, const dml_case *c, unsigned runs,
                        dmlc_error *err)
{
    exec_options opt = { NAN_POLICY_IGNORE, false };
    case_outputs out;
    if (!case_outputs_alloc(&out, c)) {
        err_set(err, "out of memory");
        return -1;
    }
    unsigned per_batch = runs / BATCHES ? runs / BATCHES : 1;
    double best = -1;
    for (unsigned batch = 0; batch < BATCHES; batch++) {
        double start = 0;
        for (unsigned i = 0; i < per_batch + (batch == 0 ? 2 : 0); i++) {
            if (i == (batch == 0 ? 2u : 0u))
                start = clock_seconds();
            run_status s = vt->run(b, c, &opt, &out, err);
            if (s != RUN_OK) {
                err_prefix(err, "%s", run_status_name(s));
                case_outputs_free(&out);
                return -1;
            }
        }
        double mean = (clock_seconds() - start) / per_batch * 1e6;
        if (best < 0 || mean < best)
            best = mean;
    }
    case_outputs_free(&out);
    return best;
}

bool cl_bench_measure_overhead(backend *b, unsigned runs, cl_bench_overhead *out,
                               dmlc_error *err)
{
    dml_case argmax, pooling;
    if (!tiny_argmax(&argmax) || !tiny_pooling(&pooling)) {
        case_free(&argmax);
        return err_set(err, "out of memory");
    }
    backend *ref = reference_backend.open(NULL, NULL, err);
    out->argmax_us = time_runs(&opencl_backend, b, &argmax, runs, err);
    out->pooling_us = out->argmax_us < 0 ? -1 : time_runs(&opencl_backend, b, &pooling, runs, err);
    out->reference_us = ref ? time_runs(&reference_backend, ref, &argmax, runs, err) : -1;
    if (ref)
        reference_backend.close(ref);
    case_free(&argmax);
    case_free(&pooling);
    return out->argmax_us >= 0 && out->pooling_us >= 0 && out->reference_us >= 0;
}

bool cl_bench_report_runs(FILE *f, const char *device, backend *b, unsigned runs,
                          dmlc_error *err)
{
    cl_bench_overhead o;
    if (!cl_bench_measure_overhead(b, runs, &o, err))
        return false;
    fprintf(f, "tiny-case overhead (whole run call; best of 10 batch means, %u runs):\n", runs);
    fprintf(f, "  argmax    16 x f32               %8.1f us  (reference %.2f us)\n", o.argmax_us,
            o.reference_us);
    fprintf(f, "  max_pooling2 1x1x4x4 + indices   %8.1f us\n", o.pooling_us);
    cl_bench_startup s;
    if (!cl_bench_measure_startup(device, &s, err))
        return false;
    const cl_open_stats *first = cl_backend_open_stats(b);
    fprintf(f, "start-up (open = platforms + context + queue, then program + kernels):\n");
    fprintf(f, "  this process's first open: context %7.1f ms + program %8.1f ms (%s)\n",
            first->context_seconds * 1e3, first->program_seconds * 1e3,
            first->program_from_cache ? "binary cache" : "source build");
    fprintf(f, "  reopened, source build:    context %7.1f ms + program %8.1f ms"
               "  (the driver's own cache may serve it)\n",
            s.cold_context_ms, s.cold_program_ms);
    fprintf(f, "  reopened, binary cache:    context %7.1f ms + program %8.1f ms%s\n",
            s.warm_context_ms, s.warm_program_ms,
            s.warm_from_cache ? "" : "  (cache unusable: built from source)");
    return true;
}

bool cl_bench_report(FILE *f, const char *device, backend *b, dmlc_error *err)
{
    return cl_bench_report_runs(f, device, b, 2000, err);
}
