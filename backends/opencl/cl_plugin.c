/*
 * cl_plugin.c: the plug-in table of the OpenCL backend (cl_plugin.h): descriptors become
 * cl_case at create, buffers cl_io at execute, and the engine's statuses dmlcheck_status.
 */
#include "cl_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dmlcheck_status say(char *message, size_t size, dmlcheck_status s, const char *text)
{
    snprintf(message, size, "%s", text);
    return s;
}

static dmlcheck_status cl_open(const char *const *args, void **context, char *message, size_t size)
{
    cl_open_options options = { .device = NULL, .build_options = NULL };
    for (size_t i = 0; args && args[i]; i++) {
        if (!strncmp(args[i], "device=", 7))
            options.device = args[i] + 7;
        else if (!strncmp(args[i], "build_options=", 14))
            options.build_options = args[i] + 14;
        else {
            snprintf(message, size, "unknown argument '%s' (device=SEL, build_options=TEXT)", args[i]);
            return DMLCHECK_ERROR;
        }
    }
    cl_msg err = { "" };
    cl_core *core = cl_core_open(&options, &err);
    if (!core)
        return say(message, size, DMLCHECK_ERROR, err.msg);
    *context = core;
    return DMLCHECK_OK;
}

static const DML_OPERATOR_TYPE cl_operators[] = {
    DML_OPERATOR_ARGMIN, DML_OPERATOR_ARGMAX, DML_OPERATOR_MAX_POOLING1, DML_OPERATOR_MAX_POOLING2,
};

static dmlcheck_status cl_capabilities(void *context, dmlcheck_capabilities *caps)
{
    caps->max_feature_level = DML_FEATURE_LEVEL_5_0;
    caps->operators = cl_operators;
    caps->operator_count = sizeof cl_operators / sizeof cl_operators[0];
    caps->input_types = 0;
    caps->flags = cl_core_flushes_denormals(context) ? DMLCHECK_CAP_FLUSHES_DENORMALS : 0;
    return DMLCHECK_OK;
}

static void cl_info(void *context, dmlcheck_info *info)
{
    const cl_device_entry *d = cl_core_device(context);
    snprintf(info->platform, sizeof info->platform, "%s", d->platform_name);
    snprintf(info->device, sizeof info->device, "%s", d->name);
    snprintf(info->driver, sizeof info->driver, "%s", d->driver);
    if (info->struct_size >= offsetof(dmlcheck_info, fp_config) + sizeof info->fp_config) {
        snprintf(info->runtime, sizeof info->runtime, "%s", d->c_version);
        cl_fp_config_str(d->fp_config, info->fp_config, sizeof info->fp_config);
    }
}

static dmlcheck_status cl_create(void *context, const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL fl,
                                 void **op, char *message, size_t size)
{
    (void)context;
    (void)fl;
    cl_case *c = malloc(sizeof *c);
    if (!c)
        return say(message, size, DMLCHECK_ERROR, "out of memory");
    if (!cl_case_from_desc(desc, c, message, size)) {
        free(c);
        return DMLCHECK_UNSUPPORTED;
    }
    *op = c;
    return DMLCHECK_OK;
}

static dmlcheck_status cl_execute(void *context, void *op, const dmlcheck_buffers *b, char *message,
                                  size_t size)
{
    const cl_case *c = op;
    if (b->input_size != c->input.total_bytes)
        return say(message, size, DMLCHECK_ERROR, "the input buffer is not TotalTensorSizeInBytes long");
    cl_io io = { b->input, b->output, b->output_size, c->indices.present ? b->output_indices : NULL,
                 c->indices.present ? b->output_indices_size : 0 };
    cl_exec exec = { .nan_propagate = b->hints & DMLCHECK_HINT_NAN_PROPAGATE,
                     .flush_denormals = b->hints & DMLCHECK_HINT_FLUSH_DENORMALS };
    cl_msg err = { "" };
    static const dmlcheck_status statuses[] = {
        [CL_RUN_OK] = DMLCHECK_OK, [CL_RUN_ERROR] = DMLCHECK_ERROR,
        [CL_RUN_UNSUPPORTED] = DMLCHECK_UNSUPPORTED,
        [CL_RUN_OUT_OF_BOUNDS_WRITE] = DMLCHECK_OUT_OF_BOUNDS_WRITE,
        [CL_RUN_INPUT_MODIFIED] = DMLCHECK_INPUT_MODIFIED,
        [CL_RUN_INVALID_ACCESS] = DMLCHECK_INVALID_ACCESS,
        [CL_RUN_DATA_RACE] = DMLCHECK_DATA_RACE,
        [CL_RUN_UNINITIALISED_READ] = DMLCHECK_UNINITIALISED_READ,
    };
    cl_status s = cl_core_run(context, c, &io, &exec, &err);
    if (s != CL_RUN_OK)
        snprintf(message, size, "%s", err.msg);
    return statuses[s];
}

static void cl_destroy(void *context, void *op)
{
    (void)context;
    free(op);
}

static void cl_close(void *context)
{
    cl_core_close(context);
}

static const dmlcheck_plugin cl_table = {
    .abi_version = DMLCHECK_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(dmlcheck_plugin),
    .name = "opencl",
    .version = "1.0",
    .open = cl_open,
    .capabilities = cl_capabilities,
    .info = cl_info,
    .create = cl_create,
    .execute = cl_execute,
    .destroy = cl_destroy,
    .close = cl_close,
};

const dmlcheck_plugin *cl_plugin_table(void)
{
    return &cl_table;
}

cl_core *cl_plugin_core(void *context)
{
    return context;
}
