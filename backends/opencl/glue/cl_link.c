/*
 * cl_link.c: `--backend opencl`, the OpenCL plug-in (cl_plugin.h) linked in.  Every case goes
 * through the plug-in ABI exactly as it would from libdmlcheck_opencl.so: the project's own
 * backend proves the public interface is enough.  Only the harness-side extras live here.
 */
#include "cl_link.h"

#include <stdio.h>

#include "cl_bench.h"
#include "cl_plugin.h"
#include "plugin_backend.h"

backend *cl_backend_open(const cl_open_options *options, dmlc_error *err)
{
    char args[1024] = "";
    if (options->build_options &&
        (size_t)snprintf(args, sizeof args, "build_options=%s", options->build_options) >= sizeof args) {
        err_set(err, "OpenCL build options too long");
        return NULL;
    }
    return plugin_open_table(cl_plugin_table(), "opencl", options->device, args[0] ? args : NULL, err);
}

void cl_backend_set_tuning(backend *b, const cl_tuning *tuning)
{
    cl_core_set_tuning(cl_plugin_core(plugin_context(b)), tuning);
}

const cl_open_stats *cl_backend_open_stats(backend *b)
{
    return cl_core_open_stats(cl_plugin_core(plugin_context(b)));
}

static double opencl_kernel_seconds(backend *b)
{
    return cl_core_kernel_seconds(cl_plugin_core(plugin_context(b)));
}

/* The harness's phases (plugin_run_profile) with the plug-in's execute replaced by the
 * engine's own (cl_core_profile).  A pass over the input: a copy, a transfer, a comparison,
 * the kernels' read; a map of memory the host shares is none. */
static bool opencl_run_profile(backend *b, backend_run_profile *profile)
{
    backend_run_profile harness;
    if (!plugin_run_profile(b, &harness) || harness.count != 3)
        return false;
    const cl_batch_profile *e = cl_core_profile(cl_plugin_core(plugin_context(b)));
    bool mapped = e->transfer == CL_TRANSFER_MAPPED;
    double execute = harness.phases[1].seconds;
    double accounted = e->map_seconds + e->image_seconds + e->check_seconds;
    *profile = (backend_run_profile){ 0 };
    backend_profile_add(profile, harness.phases[0].name, harness.phases[0].seconds, 1);
    if (mapped)
        backend_profile_add(profile, "device: arena mapped for writing (host clock)",
                            e->map_seconds, 0);
    backend_profile_add(profile, mapped ? "engine: image built in the mapped arena"
                                        : "engine: image built in host memory",
                        e->image_seconds, 1);
    if (e->write_seconds >= 0) {
        backend_profile_add(profile, mapped ? "device: unmap (no copy where memory is shared)"
                                            : "device: image written", e->write_seconds,
                            mapped ? 0 : 1);
        accounted += e->write_seconds;
    }
    if (e->kernel_seconds >= 0) {
        backend_profile_add(profile, "device: kernels", e->kernel_seconds, 1);
        accounted += e->kernel_seconds;
    }
    if (e->read_seconds >= 0) {
        backend_profile_add(profile, mapped ? "device: map for the checks (no copy where shared)"
                                            : "device: image read back", e->read_seconds,
                            mapped ? 0 : 1);
        accounted += e->read_seconds;
    }
    backend_profile_add(profile, "engine: guards and input checked, outputs copied",
                        e->check_seconds, 1);
    backend_profile_add(profile, "engine: the rest (planning, command overheads, waits)",
                        execute > accounted ? execute - accounted : 0, 0);
    backend_profile_add(profile, harness.phases[2].name, harness.phases[2].seconds, 1);
    return true;
}

static bool opencl_transfer_bandwidth(backend *b, uint64_t bytes, unsigned repeat,
                                      double *to_device, double *from_device, dmlc_error *err)
{
    cl_msg m = { "" };
    if (cl_core_measure_transfer(cl_plugin_core(plugin_context(b)), bytes, repeat, to_device,
                                 from_device, &m))
        return true;
    return err_set(err, "%s", m.msg);
}

static backend *opencl_open(const char *device, const char *args, dmlc_error *err)
{
    if (!backend_no_args("opencl", args, err))
        return NULL;
    return plugin_open_table(cl_plugin_table(), "opencl", device, NULL, err);
}

static int opencl_list_devices(FILE *f, const char *selector, dmlc_error *err)
{
    cl_msg m = { "" };
    int status = cl_list_devices(f, selector, &m);
    if (status)
        err_set(err, "%s", m.msg);
    return status;
}

const backend_vtable opencl_backend = {
    .name = "opencl",
    .summary = "OpenCL 1.2 kernels on a device the ICD loader finds (--device P:D or NAME)",
    .open = opencl_open,
    .run = plugin_run,
    .info = plugin_info,
    .close = plugin_close,
    .run_batch = plugin_run_batch,
    .list_devices = opencl_list_devices,
    .bench_extra = cl_bench_report,
    .kernel_seconds = opencl_kernel_seconds,
    .run_profile = opencl_run_profile,
    .transfer_bandwidth = opencl_transfer_bandwidth,
};
