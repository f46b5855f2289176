/* test_exec_status.c: `dmlcheck exec` against backends that misbehave on purpose.  A fake
 * backend computes the reference answer and then reports (or commits) one fault: an error, an
 * unsupported case, a write out of bounds, a modified input, a wrong element, or a device that
 * flushes fp32 denormals.  Each test checks exec's exit code and that its message names the
 * fault and ends with a replay line.  The fake backend runs in exec's worker process, opened
 * there with the fault as its argument ("FAULT:FLUSHES"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_exec.h"
#include "reference.h"
#include "tap.h"

typedef enum fault { FAULT_NONE, FAULT_ERROR, FAULT_UNSUPPORTED, FAULT_OOB, FAULT_INPUT, FAULT_WRONG,
                     FAULT_FLUSH } fault;

struct backend {
    fault fault;
    bool device_flushes; /* what info() says: the device flushes fp32 denormals */
};

static backend *fake_open(const char *device, const char *args, dmlc_error *err)
{
    (void)device;
    unsigned f = 0, flushes = 0;
    backend *b = calloc(1, sizeof(backend));
    if (!b || !args || sscanf(args, "%u:%u", &f, &flushes) != 2) {
        free(b);
        err_set(err, "fake backend: give FAULT:FLUSHES");
        return NULL;
    }
    b->fault = (fault)f;
    b->device_flushes = flushes != 0;
    return b;
}

/* The flushed-input answer a device without denormal support gives. */
static void flushed_answer(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    case_outputs exact, flushed;
    case_outputs_alloc(&exact, c);
    ref_classify(c, opt, &exact, &flushed);
    memcpy(out->output, flushed.output, out->output_bytes);
    case_outputs_free(&exact);
    case_outputs_free(&flushed);
}

static run_status fake_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                           dmlc_error *err)
{
    ref_run(c, opt, out);
    switch (b->fault) {
    case FAULT_ERROR: err_set(err, "clBuildProgram failed"); return RUN_BACKEND_ERROR;
    case FAULT_UNSUPPORTED: err_set(err, "device lacks this type"); return RUN_UNSUPPORTED;
    case FAULT_OOB: err_set(err, "guard band after OutputTensor overwritten at byte 4"); return RUN_OUT_OF_BOUNDS_WRITE;
    case FAULT_INPUT: err_set(err, "input byte 0 changed"); return RUN_INPUT_MODIFIED;
    case FAULT_WRONG: out->output[0] ^= 1; return RUN_OK;
    case FAULT_FLUSH: flushed_answer(c, opt, out); return RUN_OK;
    case FAULT_NONE: return RUN_OK;
    }
    return RUN_OK;
}

static void fake_info(backend *b, backend_info *info)
{
    memset(info, 0, sizeof *info);
    info->flushes_denormals = b->device_flushes;
}

static void fake_close(backend *b) { free(b); }

static const backend_vtable fake_backend = {
    .name = "fake", .summary = "misbehaves on request", .open = fake_open, .run = fake_run,
    .info = fake_info, .close = fake_close,
};

/* Runs exec on one file with the fault; returns the exit code, with what exec printed in msg:
 * stderr, then "stdout: " and the outputs' JSON line, if any. */
static int exec_with(fault f, bool device_flushes, bool strict, const char *file, char *msg, size_t size)
{
    /* The outputs' JSON lines would break the TAP stream: they go to a file. */
    char args[32];
    snprintf(args, sizeof args, "%u:%u", (unsigned)f, device_flushes ? 1u : 0u);
    exec_run r = { .vt = &fake_backend, .backend_args = args, .out = tmpfile(), .strict = strict };
    dmlc_error err;
    if (!exec_start(&r, &err)) {
        snprintf(msg, size, "exec_start: %s", err.msg);
        fclose(r.out);
        return -1;
    }
    fflush(stderr);
    int saved = dup(2);
    FILE *capture = tmpfile();
    dup2(fileno(capture), 2);
    int rc = exec_exit_code(exec_case_file(&r, file));
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(capture);
    size_t n = fread(msg, 1, size - 1, capture);
    n += (size_t)snprintf(msg + n, size - n, "stdout: ");
    rewind(r.out);
    n = n < size - 1 ? n + fread(msg + n, 1, size - 1 - n, r.out) : n;
    msg[n] = 0;
    fclose(capture);
    exec_stop(&r);
    fclose(r.out);
    return rc;
}

static bool expect_judged(fault f, bool flushes, bool strict, const char *file, int want_rc,
                          const char *needle1, const char *needle2)
{
    char msg[8192];
    int rc = exec_with(f, flushes, strict, file, msg, sizeof msg);
    bool ok = rc == want_rc && (!needle1 || strstr(msg, needle1)) && (!needle2 || strstr(msg, needle2));
    if (!ok)
        tap_diag("exit %d (want %d); stderr, stdout:\n%s", rc, want_rc, msg);
    return ok;
}

static bool expect(fault f, bool flushes, const char *file, int want_rc, const char *needle1, const char *needle2)
{
    return expect_judged(f, flushes, false, file, want_rc, needle1, needle2);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_exec_status SPEC_EXAMPLE.json DENORMAL_CASE.json\n");
        return 2;
    }
    const char *spec = argv[1], *denormal = argv[2];
    tap t;
    tap_plan(&t, 10);
    tap_ok(&t, expect(FAULT_NONE, false, spec, 0, NULL, NULL), "exec_agreeing_backend_exits_0");
    tap_ok(&t, expect(FAULT_ERROR, false, spec, 1, "fail: backend_error: clBuildProgram failed",
                      "replay: dmlcheck exec --backend fake"), "exec_backend_error_reported_exit_1");
    tap_ok(&t, expect(FAULT_UNSUPPORTED, false, spec, 0, "skip: the backend cannot run this case: device lacks this type", NULL),
           "exec_unsupported_is_skipped_exit_0");
    tap_ok(&t, expect(FAULT_OOB, false, spec, 1, "out_of_bounds_write: guard band", "replay: "),
           "exec_out_of_bounds_write_reported_exit_1");
    /* The worker sends what the backend wrote even when it wrote out of bounds too. */
    tap_ok(&t, expect(FAULT_OOB, false, spec, 1, "stdout: {\"output\": [1, 2, 1]}", NULL),
           "exec_out_of_bounds_write_still_prints_the_outputs");
    tap_ok(&t, expect(FAULT_INPUT, false, spec, 1, "input_modified: input byte 0 changed", "replay: "),
           "exec_input_modified_reported_exit_1");
    tap_ok(&t, expect(FAULT_WRONG, false, spec, 1, "output[0,0] (logical element 0): expected 1, got 0",
                      "replay: dmlcheck exec --backend fake"), "exec_wrong_element_named_exit_1");
    tap_ok(&t, expect(FAULT_FLUSH, true, denormal, 0, "matches the answer with fp32 denormals flushed", NULL),
           "exec_flushing_device_passes_denormal_case_with_flushed_answer");
    /* The file's expected arrays are judged as the reference's answer is (as run and replay
     * judge the case): a flushed answer from a device that says it does not flush differs
     * only in class denormal, unspecified unless --strict. */
    tap_ok(&t, expect(FAULT_FLUSH, false, denormal, 0, "unspecified", "case classes: denormal"),
           "exec_exact_device_flushed_answer_is_unspecified_as_in_run");
    tap_ok(&t, expect_judged(FAULT_FLUSH, false, true, denormal, 1, "case classes: denormal",
                             "--strict"),
           "exec_strict_exact_device_must_match_exact_answer_and_names_class");
    return tap_done(&t);
}
