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

/* Per operator (ABI 1.1): each kernel takes every data type DirectML allows it (masks 0), so
 * the claims say so operator by operator rather than leaving it to the old all-types mask. */
static const dmlcheck_operator_claim cl_claims[] = {
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_ARGMIN, 0, 0, 0 },
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_ARGMAX, 0, 0, 0 },
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_MAX_POOLING1, 0, 0, 0 },
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_MAX_POOLING2, 0, 0, 0 },
};

static dmlcheck_status cl_capabilities(void *context, dmlcheck_capabilities *caps)
{
    caps->max_feature_level = DML_FEATURE_LEVEL_5_0;
    caps->operators = cl_operators;
    caps->operator_count = sizeof cl_operators / sizeof cl_operators[0];
    caps->input_types = 0;
    if (DMLCHECK_CAPS_HAS_CLAIMS(caps)) {
        caps->claims = cl_claims;
        caps->claim_count = sizeof cl_claims / sizeof cl_claims[0];
    }
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

static const dmlcheck_status statuses[] = {
    [CL_RUN_OK] = DMLCHECK_OK, [CL_RUN_ERROR] = DMLCHECK_ERROR,
    [CL_RUN_UNSUPPORTED] = DMLCHECK_UNSUPPORTED,
    [CL_RUN_OUT_OF_BOUNDS_WRITE] = DMLCHECK_OUT_OF_BOUNDS_WRITE,
    [CL_RUN_INPUT_MODIFIED] = DMLCHECK_INPUT_MODIFIED,
    [CL_RUN_INVALID_ACCESS] = DMLCHECK_INVALID_ACCESS,
    [CL_RUN_DATA_RACE] = DMLCHECK_DATA_RACE,
    [CL_RUN_UNINITIALISED_READ] = DMLCHECK_UNINITIALISED_READ,
};

/* The engine's job for one execution; false with the message when the buffers do not fit
 * the descriptor. */
static bool job_of(const cl_case *c, const dmlcheck_buffers *b, cl_job *job, char *message,
                   size_t size)
{
    if (b->input_size != c->input.total_bytes) {
        say(message, size, DMLCHECK_ERROR, "the input buffer is not TotalTensorSizeInBytes long");
        return false;
    }
    *job = (cl_job){
        .c = c,
        .io = { b->input, b->output, b->output_size, c->indices.present ? b->output_indices : NULL,
                c->indices.present ? b->output_indices_size : 0 },
        .exec = { .nan_propagate = b->hints & DMLCHECK_HINT_NAN_PROPAGATE,
                  .flush_denormals = b->hints & DMLCHECK_HINT_FLUSH_DENORMALS },
    };
    return true;
}

static dmlcheck_status cl_execute(void *context, void *op, const dmlcheck_buffers *b, char *message,
                                  size_t size)
{
    cl_job job;
    if (!job_of(op, b, &job, message, size))
        return DMLCHECK_ERROR;
    cl_core_run_batch(context, &job, 1);
    if (job.status != CL_RUN_OK)
        snprintf(message, size, "%s", job.err.msg);
    return statuses[job.status];
}

/* Small cases share one write, one launch per kernel and one read (cl_core_run_batch). */
static dmlcheck_status cl_execute_batch(void *context, dmlcheck_batch_entry *const *entries,
                                        uint32_t count)
{
    cl_job *jobs = malloc((count ? count : 1) * sizeof *jobs);
    uint32_t *entry_of = malloc((count ? count : 1) * sizeof *entry_of);
    if (!jobs || !entry_of) {
        free(jobs);
        free(entry_of);
        return DMLCHECK_ERROR; /* dmlcheck then runs the entries one by one */
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        dmlcheck_batch_entry *e = entries[i];
        if (job_of(e->op, e->buffers, &jobs[n], e->message, e->message_size))
            entry_of[n++] = i;
        else
            e->status = DMLCHECK_ERROR;
    }
    cl_core_run_batch(context, jobs, n);
    for (uint32_t j = 0; j < n; j++) {
        dmlcheck_batch_entry *e = entries[entry_of[j]];
        e->status = statuses[jobs[j].status];
        if (jobs[j].status != CL_RUN_OK)
            snprintf(e->message, e->message_size, "%s", jobs[j].err.msg);
    }
    free(jobs);
    free(entry_of);
    return DMLCHECK_OK;
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
    .execute_batch = cl_execute_batch,
};

const dmlcheck_plugin *cl_plugin_table(void)
{
    return &cl_table;
}

cl_core *cl_plugin_core(void *context)
{
    return context;
}
