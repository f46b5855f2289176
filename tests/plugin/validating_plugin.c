/*
 * validating_plugin.c: a plug-in that claims DMLCHECK_CAP_VALIDATES, for the must-reject
 * tests: mode=refuse refuses every descriptor as invalid (right for must-reject cases, wrong
 * for valid ones: rejected_valid), mode=accept creates every descriptor (wrong for
 * must-reject cases: accepted_invalid) and cannot execute any.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmlcheck/plugin.h>

typedef struct context {
    bool accept;
} context;

static dmlcheck_status v_open(const char *const *args, void **out, char *message, size_t size)
{
    context *c = calloc(1, sizeof *c);
    if (!c)
        return DMLCHECK_ERROR;
    for (size_t i = 0; args && args[i]; i++)
        if (!strcmp(args[i], "mode=accept"))
            c->accept = true;
        else if (strcmp(args[i], "mode=refuse")) {
            snprintf(message, size, "unknown argument '%s' (mode=accept or mode=refuse)", args[i]);
            free(c);
            return DMLCHECK_ERROR;
        }
    *out = c;
    return DMLCHECK_OK;
}

static const DML_OPERATOR_TYPE v_ops[] = {
    DML_OPERATOR_ARGMIN, DML_OPERATOR_ARGMAX, DML_OPERATOR_MAX_POOLING1, DML_OPERATOR_MAX_POOLING2,
};

static dmlcheck_status v_caps(void *context_in, dmlcheck_capabilities *caps)
{
    (void)context_in;
    caps->max_feature_level = DML_FEATURE_LEVEL_5_0;
    caps->operators = v_ops;
    caps->operator_count = 4;
    caps->input_types = 0;
    caps->flags = DMLCHECK_CAP_VALIDATES;
    return DMLCHECK_OK;
}

static void v_info(void *context_in, dmlcheck_info *info)
{
    (void)context_in;
    snprintf(info->platform, sizeof info->platform, "validating test plug-in");
}

static dmlcheck_status v_create(void *context_in, const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL fl,
                                void **op, char *message, size_t size)
{
    const context *c = context_in;
    (void)desc;
    (void)fl;
    *op = NULL;
    if (c->accept)
        return DMLCHECK_OK;
    snprintf(message, size, "refused (mode=refuse refuses everything)");
    return DMLCHECK_INVALID;
}

static dmlcheck_status v_execute(void *context_in, void *op, const dmlcheck_buffers *b, char *message,
                                 size_t size)
{
    (void)context_in, (void)op, (void)b;
    snprintf(message, size, "this test plug-in computes nothing");
    return DMLCHECK_ERROR;
}

static void v_destroy(void *context_in, void *op)
{
    (void)context_in, (void)op;
}

static void v_close(void *context_in)
{
    free(context_in);
}

static const dmlcheck_plugin v_plugin = {
    .abi_version = DMLCHECK_PLUGIN_ABI_VERSION, .struct_size = sizeof(dmlcheck_plugin),
    .name = "validating", .version = "1", .open = v_open, .capabilities = v_caps, .info = v_info,
    .create = v_create, .execute = v_execute, .destroy = v_destroy, .close = v_close,
};

DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t abi)
{
    return abi == DMLCHECK_PLUGIN_ABI_VERSION ? &v_plugin : NULL;
}
