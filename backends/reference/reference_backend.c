/* reference_backend.c: the reference engine seen through the backend interface, so the
 * harness can run it where it runs any implementation (and diff it against itself to
 * measure harness overhead). */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "reference.h"

struct backend {
    int unused;
};

static backend *reference_open(const char *device, const char *args, dmlc_error *err)
{
    if (!backend_no_args("reference", args, err))
        return NULL;
    if (device && *device) {
        err_set(err, "the reference backend has no devices (got --device %s)", device);
        return NULL;
    }
    backend *b = calloc(1, sizeof *b);
    if (!b)
        err_set(err, "out of memory opening the reference backend");
    return b;
}

static run_status reference_run(backend *b, const dml_case *c, const exec_options *opt,
                                case_outputs *out, dmlc_error *err)
{
    (void)b;
    (void)err;
    ref_run(c, opt, out);
    return RUN_OK;
}

static void reference_info(backend *b, backend_info *info)
{
    (void)b;
    memset(info, 0, sizeof *info);
    strcpy(info->platform, "dmlcheck");
    strcpy(info->device, "reference (host C, single thread)");
    strcpy(info->driver, DMLCHECK_VERSION);
    strcpy(info->fp_config, "denorm,inf_nan,exact");
}

static void reference_close(backend *b)
{
    free(b);
}

const backend_vtable reference_backend = {
    .name = "reference",
    .summary = "the bit-exact reference engine (host C)",
    .open = reference_open,
    .run = reference_run,
    .info = reference_info,
    .close = reference_close,
};
