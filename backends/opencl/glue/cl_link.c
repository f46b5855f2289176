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
};
