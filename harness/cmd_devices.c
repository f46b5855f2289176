/*
 * cmd_devices.c: `dmlcheck devices`: lists every OpenCL platform and device the ICD loader
 * finds, with what decides how dmlcheck can use it (OpenCL C version, fp32 denormal support,
 * 64-bit integers, work-group and allocation limits), and marks the device that --device
 * (or the default: first GPU, else first device) selects.  Exit 0 when a device is
 * selected, 2 when there is no platform, no device, or the selector matches nothing.
 */
#include <getopt.h>
#include <stdio.h>

#ifdef DMLCHECK_HAVE_OPENCL
#include "opencl/cl_device.h"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck devices [--device P:D|NAME]\n\n"
            "Lists the OpenCL platforms and devices found through the ICD loader (OCL_ICD_VENDORS\n"
            "or /etc/OpenCL/vendors) and marks with '*' the one --device selects: P:D by index,\n"
            "or the first whose device or platform name contains NAME (any case).  Without\n"
            "--device: the first GPU, else the first device.\n\n"
            "options:\n"
            "  --device SEL  mark the device SEL selects (fails when it selects none)\n"
            "  -h, --help    this text\n\n"
            "exit status: 0 a device is selected, 2 no platform or device, or no match\n");
}

#ifdef DMLCHECK_HAVE_OPENCL
static void print_device(const cl_device_entry *e, bool selected)
{
    char fp[128];
    printf("  %c %u:%u  %s [%s]\n", selected ? '*' : ' ', e->platform_index, e->device_index,
           e->name, cl_device_type_str(e->type));
    printf("        vendor:              %s\n", e->vendor);
    printf("        driver version:      %s\n", e->driver);
    printf("        device version:      %s (%s)\n", e->version, e->profile);
    printf("        OpenCL C version:    %s\n", e->c_version);
    printf("        fp32 denormals:      %s (CL_DEVICE_SINGLE_FP_CONFIG: %s)\n",
           (e->fp_config & CL_FP_DENORM) ? "yes" : "no, judged as flushed",
           cl_fp_config_str(e->fp_config, fp, sizeof fp));
    printf("        64-bit integers:     %s\n", e->int64 ? "yes" : "no (backend unusable)");
    printf("        max work-group size: %zu\n", e->max_work_group);
    printf("        compute units:       %u\n", (unsigned)e->compute_units);
    printf("        max allocation:      %llu MiB of %llu MiB\n",
           (unsigned long long)(e->max_alloc >> 20), (unsigned long long)(e->global_mem >> 20));
}

static int list_devices(const char *selector)
{
    cl_device_list list;
    dmlc_error err;
    if (!cl_devices_list(&list, &err)) {
        fprintf(stderr, "dmlcheck devices: %s\n", err.msg);
        return 2;
    }
    size_t chosen = 0;
    bool selected = cl_devices_select(&list, selector, &chosen, &err);
    unsigned platform = (unsigned)-1;
    for (size_t i = 0; i < list.count; i++) {
        const cl_device_entry *e = &list.items[i];
        if (e->platform_index != platform) {
            platform = e->platform_index;
            printf("platform %u: %s\n", platform, e->platform_name);
        }
        print_device(e, selected && i == chosen);
    }
    cl_devices_free(&list);
    if (!selected) {
        fprintf(stderr, "dmlcheck devices: %s\n", err.msg);
        fprintf(stderr, "replay: dmlcheck devices%s%s\n", selector ? " --device " : "",
                selector ? selector : "");
        return 2;
    }
    return 0;
}
#endif

int cmd_devices(int argc, char **argv)
{
    static const struct option options[] = {
        { "device", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *selector = NULL;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        switch (ch) {
        case 'd':
            selector = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dmlcheck devices: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
#ifdef DMLCHECK_HAVE_OPENCL
    return list_devices(selector);
#else
    (void)selector;
    fprintf(stderr, "dmlcheck devices: this dmlcheck was built without the OpenCL backend "
                    "(meson -Dopencl=enabled needs pkg-config OpenCL)\n");
    return 2;
#endif
}
