/* cl_plugin_entry.c: the one exported symbol of libdmlcheck_opencl.so (dmlcheck/plugin.h). */
#include "cl_plugin.h"

DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t harness_abi_version)
{
    return harness_abi_version == DMLCHECK_PLUGIN_ABI_VERSION ? cl_plugin_table() : NULL;
}
