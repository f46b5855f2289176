/* cl_test.c: shared set-up of the OpenCL tests (cl_test.h). */
#include "cl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_device.h"

static void oclgrind_log_truncate(void)
{
    const char *path = getenv("OCLGRIND_LOG");
    if (path && *path) {
        FILE *f = fopen(path, "w");
        if (f)
            fclose(f);
    }
}

cl_test_open_result cl_test_open(const char *build_options, backend **out)
{
    cl_device_list list;
    cl_msg listing = { "" };
    dmlc_error err;
    *out = NULL;
    if (!cl_devices_list(&list, &listing)) {
        printf("1..1\nnot ok 1 - list OpenCL platforms\n# %s\n", listing.msg);
        return CL_TEST_OPEN_FAILED;
    }
    unsigned platforms = list.platform_count;
    cl_devices_free(&list);
    if (platforms == 0) {
        tap_skip_all("no OpenCL platform found by the ICD loader");
        return CL_TEST_NO_PLATFORM;
    }
    oclgrind_log_truncate();
    cl_open_options options = { .device = getenv("DMLCHECK_TEST_DEVICE"),
                                .build_options = build_options };
    *out = cl_backend_open(&options, &err);
    if (!*out) {
        printf("1..1\nnot ok 1 - open the OpenCL backend\n# %s\n", err.msg);
        return CL_TEST_OPEN_FAILED;
    }
    backend_info info;
    opencl_backend.info(*out, &info);
    tap_diag("device: %s / %s (driver %s, %s)", info.platform, info.device, info.driver,
             info.runtime);
    return CL_TEST_OPENED;
}

int cl_test_open_exit_code(cl_test_open_result r)
{
    return r == CL_TEST_NO_PLATFORM ? 0 : 1;
}

void cl_test_close(tap *t, backend *b)
{
    opencl_backend.close(b);
    const char *path = getenv("OCLGRIND_LOG");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "r");
    if (!f) {
        tap_ok(t, false, "oclgrind log %s is readable", path);
        return;
    }
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (tap_ok(t, n == 0, "oclgrind reported nothing"))
        return;
    tap_diag("oclgrind log %s begins:", path);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        tap_diag("  %s", line);
}
