/*
 * bad_plugin.c: plug-ins that are broken the ways real ones are, compiled once per BAD_*
 * define: no entry symbol, another ABI version, a NULL required function, a refused open.
 * dmlcheck must refuse each with a message naming the library, exit 2.
 */
#include <stddef.h>
#include <stdio.h>

#include <dmlcheck/plugin.h>

static dmlcheck_status bad_open(const char *const *args, void **context, char *message, size_t size)
{
    (void)args;
    *context = NULL;
#ifdef BAD_OPEN
    snprintf(message, size, "no such device");
    return DMLCHECK_ERROR;
#else
    (void)message;
    (void)size;
    return DMLCHECK_OK;
#endif
}

static dmlcheck_status bad_caps(void *context, dmlcheck_capabilities *caps)
{
    (void)context;
    (void)caps;
    return DMLCHECK_OK;
}

static void bad_info(void *context, dmlcheck_info *info)
{
    (void)context;
    (void)info;
}

static dmlcheck_status bad_create(void *context, const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL fl,
                                  void **op, char *message, size_t size)
{
    (void)context, (void)desc, (void)fl, (void)op;
    snprintf(message, size, "never");
    return DMLCHECK_UNSUPPORTED;
}

__attribute__((unused)) static dmlcheck_status bad_execute(void *context, void *op, const dmlcheck_buffers *buffers,
                                   char *message, size_t size)
{
    (void)context, (void)op, (void)buffers, (void)message, (void)size;
    return DMLCHECK_ERROR;
}

static void bad_destroy(void *context, void *op)
{
    (void)context, (void)op;
}

static void bad_close(void *context)
{
    (void)context;
}

static const dmlcheck_plugin bad_plugin = {
#ifdef BAD_ABI
    .abi_version = 99,
#else
    .abi_version = DMLCHECK_PLUGIN_ABI_VERSION,
#endif
    .struct_size = sizeof(dmlcheck_plugin),
    .name = "bad",
    .version = "0",
    .open = bad_open,
    .capabilities = bad_caps,
    .info = bad_info,
    .create = bad_create,
#ifdef BAD_NULL_EXECUTE
    .execute = NULL,
#else
    .execute = bad_execute,
#endif
    .destroy = bad_destroy,
    .close = bad_close,
};

#ifndef BAD_NO_ENTRY
DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t harness_abi_version)
#else
/* Same table, under a name dmlcheck does not look for. */
DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *not_the_entry(uint32_t harness_abi_version);
DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *not_the_entry(uint32_t harness_abi_version)
#endif
{
    (void)harness_abi_version;
    return &bad_plugin;
}
