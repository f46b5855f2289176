/*
 * cmd_devices.c: `dmlcheck devices`: lists every OpenCL platform and device the ICD loader
 * finds, with what decides how dmlcheck can use it (OpenCL C version, fp32 denormal support,
 * 64-bit integers, work-group and allocation limits), and marks the device that --device
 * (or the default: first GPU, else first device) selects.  Exit 0 when a device is
 * selected, 2 when there is no platform, no device, or the selector matches nothing.
 */
#include <getopt.h>
#include <stdio.h>

#include "backend.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck devices [--device P:D|NAME]\n\n"
            "Lists the OpenCL platforms and devices found through the ICD loader (OCL_ICD_VENDORS\n"
            "or /etc/OpenCL/vendors) and marks with '*' the one --device selects: P:D by index,\n"
            "the first device of the platform called NAME, else the first whose device or\n"
            "platform name contains NAME (any case).  Without --device: the first GPU, else the\n"
            "first device.  --device oclgrind loads Oclgrind instead of the registered ICDs.\n\n"
            "options:\n"
            "  --device SEL  mark the device SEL selects (fails when it selects none)\n"
            "  -h, --help    this text\n\n"
            "exit status: 0 a device is selected, 2 no platform or device, or no match\n");
}


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
    const backend_vtable *vt = backend_find("opencl");
    if (!vt || !vt->list_devices) {
        fprintf(stderr, "dmlcheck devices: this dmlcheck was built without the OpenCL backend "
                        "(meson -Dopencl=enabled needs pkg-config OpenCL)\n");
        return 2;
    }
    dmlc_error err;
    int status = vt->list_devices(stdout, selector, &err);
    if (status != 0) {
        fprintf(stderr, "dmlcheck devices: %s\n", err.msg);
        fprintf(stderr, "replay: dmlcheck devices%s%s\n", selector ? " --device " : "",
                selector ? selector : "");
    }
    return status;
}
