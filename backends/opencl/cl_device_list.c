/*
 * cl_device_list.c: `dmlcheck devices` for the OpenCL backend: every platform and device the
 * ICD loader finds, with what decides how dmlcheck can use it (OpenCL C version, fp32
 * denormal support, 64-bit integers, work-group and allocation limits).
 */
#include <stdio.h>

#include "cl_device.h"
#include "cl_oclgrind.h"

static void print_device(FILE *f, const cl_device_entry *e, bool selected)
{
    char fp[128];
    fprintf(f, "  %c %u:%u  %s [%s]\n", selected ? '*' : ' ', e->platform_index, e->device_index,
           e->name, cl_device_type_str(e->type));
    fprintf(f, "        vendor:              %s\n", e->vendor);
    fprintf(f, "        driver version:      %s\n", e->driver);
    fprintf(f, "        device version:      %s (%s)\n", e->version, e->profile);
    fprintf(f, "        OpenCL C version:    %s\n", e->c_version);
    fprintf(f, "        fp32 denormals:      %s (CL_DEVICE_SINGLE_FP_CONFIG: %s)\n",
           (e->fp_config & CL_FP_DENORM) ? "yes" : "no, judged as flushed",
           cl_fp_config_str(e->fp_config, fp, sizeof fp));
    fprintf(f, "        64-bit integers:     %s\n", e->int64 ? "yes" : "no (backend unusable)");
    fprintf(f, "        max work-group size: %zu\n", e->max_work_group);
    fprintf(f, "        compute units:       %u\n", (unsigned)e->compute_units);
    fprintf(f, "        max allocation:      %llu MiB of %llu MiB\n",
           (unsigned long long)(e->max_alloc >> 20), (unsigned long long)(e->global_mem >> 20));
}

/* backend_vtable.list_devices: every platform and device, '*' on the one `selector` picks. */
int cl_list_devices(FILE *f, const char *selector, cl_msg *err)
{
    cl_device_list list;
    if (cl_oclgrind_selected(selector) && !cl_oclgrind_register(err))
        return 2;
    if (!cl_devices_list(&list, err))
        return 2;
    size_t chosen = 0;
    bool selected = cl_devices_select(&list, selector, &chosen, err);
    unsigned platform = (unsigned)-1;
    for (size_t i = 0; i < list.count; i++) {
        const cl_device_entry *e = &list.items[i];
        if (e->platform_index != platform) {
            platform = e->platform_index;
            fprintf(f, "platform %u: %s\n", platform, e->platform_name);
        }
        print_device(f, e, selected && i == chosen);
    }
    cl_devices_free(&list);
    return selected ? 0 : 2;
}
