/*
 * fuzz_differential.c: libFuzzer target.  Bytes -> a valid case (fuzz_case_builder.c, as
 * fuzz_reference) -> the one differential check (harness/check.h) of a backend against the
 * reference: the OpenCL backend, or the one DMLCHECK_FUZZ_BACKEND names as --backend would
 * ("plugin:/path/libimpl.so,ARGS": an implementer's own kernels, built with
 * -fsanitize=fuzzer-no-link,address, get coverage guidance and sanitizers; docs/FUZZING.md): bit for bit on every logical output element (NaN by NaN-ness), an
 * exact check (the backend implements dmlcheck's NaN policies, so a classed difference is a
 * bug too), with guard bands and an input comparison around the run.  A device that may flush
 * fp32 denormals passes with the flushed answer (SEMANTICS D6), by the check's one rule.
 * Any failure aborts after the case file and the check's explanation (coordinates, expected
 * and got as hex-float and raw bits, the inputs at both indices) so libFuzzer keeps the input.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "fuzz_case_builder.h"
#include "fuzz_common.h"
#include "fuzz_oracle.h"
#include "replay.h"

/* The device, opened once.  libFuzzer's API passes no context to LLVMFuzzerTestOneInput, so
 * the backend (an OpenCL context, queue and built programs: seconds to create) must live in
 * a static set up by LLVMFuzzerInitialize and is never closed; the process exit releases it. */
static struct {
    const backend_vtable *vt;
    backend *b;
    const char *spec; /* DMLCHECK_FUZZ_BACKEND, default "opencl" */
    bool exact;       /* every class judged (the OpenCL engine) */
    backend_info info;
    checker check;
    unsigned long compared, unsupported; /* for the summary printed at exit */
} device;

/* So a run that compared nothing (every case unsupported by the device) cannot pass for a
 * clean one. */
static void print_summary(void)
{
    fprintf(stderr, "fuzz_differential: %lu case(s) compared with the reference, %lu unsupported by "
            "the device\n", device.compared, device.unsupported);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    dmlc_error err = { "" };
    const char *args = NULL;
    device.spec = getenv("DMLCHECK_FUZZ_BACKEND");
    if (!device.spec || !device.spec[0])
        device.spec = "opencl";
    device.vt = backend_select(device.spec, &args);
    if (!device.vt)
        fuzz_unavailable(!strncmp(device.spec, "opencl", 6) ? "this build has no OpenCL backend"
                         : "DMLCHECK_FUZZ_BACKEND names no backend of this build");
    device.b = device.vt->open(getenv("DMLCHECK_FUZZ_DEVICE"), args, &err);
    if (!device.b)
        fuzz_unavailable(err.msg);
    device.vt->info(device.b, &device.info);
    /* The verdict is all this target keeps, so the NaN fingerprint is not computed. */
    /* The OpenCL engine implements dmlcheck's NaN policies, so a classed difference is a bug
     * there; another backend is judged as `run` judges it (SEMANTICS: a difference only in a
     * class DirectML leaves open is unspecified, not a failure). */
    device.exact = !strcmp(device.spec, "opencl");
    check_options opt = { .rules = { .device_flushes = device.info.flushes_denormals },
                          .exact = device.exact, .skip_nan_fingerprint = true };
    check_init(&device.check, device.vt, device.b, &opt);
    atexit(print_summary);
    fprintf(stderr, "fuzz_differential: %s on %s (%s, %s)%s\n", device.spec, device.info.device,
            device.info.platform, device.info.driver,
            device.info.flushes_denormals ? ", may flush fp32 denormals" : "");
    return 0;
}

/* The case file, the check's explanation and the command that replays the saved file. */
static _Noreturn void report_failure(const dml_case *c, const check_result *r)
{
    char replay[1024] = "dmlcheck exec";
    replay_append_arg(replay, sizeof replay, "--backend");
    replay_append_arg(replay, sizeof replay, device.spec);
    const char *selector = getenv("DMLCHECK_FUZZ_DEVICE");
    if (selector) {
        replay_append_arg(replay, sizeof replay, "--device");
        replay_append_arg(replay, sizeof replay, selector);
    }
    replay_append_arg(replay, sizeof replay, "--nan-policy");
    replay_append_arg(replay, sizeof replay, nan_policy_name(device.check.opt.exec.nan));
    replay_append_arg(replay, sizeof replay, "case.json");
    fuzz_print_case(c);
    fprintf(stderr, "fuzz: on %s (the case above saved as case.json replays it):\n", device.info.device);
    check_print(stderr, "fuzz: ", c, r, replay);
    fuzz_fail("backend %s disagrees with the reference", device.spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dml_case c;
    dmlc_error err = { "" };
    check_result r;
    fuzz_build_valid_case(data, size, &c, &device.check.opt.exec);
    if (!check_case(&device.check, &c, &r, &err))
        fuzz_fail("%s", err.msg);
    if (r.j.verdict == VERDICT_SKIP)
        device.unsupported++; /* the device cannot run this case (e.g. no 64-bit integers) */
    else if (r.j.verdict != VERDICT_PASS && (device.exact || r.j.verdict != VERDICT_UNSPECIFIED))
        report_failure(&c, &r);
    else
        device.compared++;
    case_free(&c);
    return 0;
}
