/*
 * test_cl_guard.c: the backend's own checks catch what they claim to.  The program is
 * built with test-only fault defines (order.cl's fault_inject): with
 * DMLCHECK_FAULT_WRITE_PAST_END the first work-item writes one element just past the end
 * of the output buffer, which must come back as RUN_OUT_OF_BOUNDS_WRITE; with
 * DMLCHECK_FAULT_WRITE_INPUT it changes an input byte, which must come back as
 * RUN_INPUT_MODIFIED; DMLCHECK_FAULT_WRITE_BEFORE_START (the guard byte before the output)
 * and DMLCHECK_FAULT_WRITE_PARAMS (a parameter word) must come back as
 * RUN_OUT_OF_BOUNDS_WRITE.  Each case runs under every transfer (cl_transfer: mapped,
 * staged, pinned), whose checks read different memory.  The unfaulted program runs the
 * same cases cleanly, so the checks do not fire on correct kernels.  Every kernel is covered: a single-pass ARGMAX, a split
 * ARGMIN (its combine kernel does the final write), MAX_POOLING2 with indices, and an
 * ARGMIN over a strided axis (column blocks on CPU devices); then the four together in one
 * batch (run_batch), where each case's own guards must catch its own write.  Last, a program that does not
 * compile (DMLCHECK_FAULT_BUILD) must fail to open with the build log in the message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reference/case_builder.h"
#include "cl_test.h"
#include "validate.h"

typedef struct guard_case {
    const char *name;
    cl_tuning tuning;
} guard_case;

/* Case k of the three kernel paths. */
static void build_case(dml_case *c, int k)
{
    if (k != 2) {
        UINT sizes[2] = { 3, 1000 }, axes[1] = { 1 };
        if (k == 1) /* 120 KB: mapped, not staged, where the transfer is automatic */
            sizes[1] = 10000;
        if (k == 3) { /* reduce the strided axis: column blocks on CPU devices */
            sizes[0] = 100;
            sizes[1] = 40;
            axes[0] = 0;
        }
        cb_arg_case(c, k == 0 ? OP_ARGMAX : OP_ARGMIN, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes,
                    NULL, 1, axes, DML_AXIS_DIRECTION_INCREASING, DML_TENSOR_DATA_TYPE_INT64);
    } else {
        UINT sizes[4] = { 1, 2, 5, 5 }, out_sizes[2] = { 4, 4 };
        cb_pool_axis axes[2] = { { 2, 1, 0, 0, 1 }, { 2, 1, 0, 0, 1 } };
        cb_pool_case(c, DML_TENSOR_DATA_TYPE_UINT8, 4, sizes, NULL, axes, out_sizes,
                     DML_TENSOR_DATA_TYPE_UINT32);
    }
    cb_alloc_input(c);
    uint64_t n = case_tensor_elements(&c->input);
    for (uint64_t i = 0; i < n; i++)
        cb_set_input(c, i, c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32
                               ? 0x3f800000u + (uint32_t)((i * 7919) % 1000)
                               : (i * 37) % 251);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

/* Every way the image travels (cl_transfer) must keep every check: the mapped one checks
 * the arena in place, the staged ones a copy read back. */
static const struct {
    cl_transfer transfer;
    const char *name;
} transfers[] = {
    { CL_TRANSFER_AUTO, "automatic" },
    { CL_TRANSFER_MAPPED, "mapped" },
    { CL_TRANSFER_STAGED, "staged" },
    { CL_TRANSFER_PINNED, "pinned" },
};
#define TRANSFER_COUNT (sizeof transfers / sizeof transfers[0])

static const guard_case cases[] = {
    { "argmax single pass", { .split = 1 } },
    { "argmin split + combine", { .split = 8 } },
    { "max_pooling2 with indices", { .split = 0 } },
    { "argmin over a strided axis", { .split = 0 } },
};
#define GUARD_CASES (sizeof cases / sizeof cases[0])

/* The same cases in one run_batch call (one arena, one launch per kernel): each case's own
 * guards and input are checked, so each must end with status `want` on its own. */
static void expect_batch_status(tap *t, backend *b, const char *options, run_status want)
{
    dml_case c[GUARD_CASES];
    case_outputs out[GUARD_CASES];
    backend_batch_item items[GUARD_CASES];
    for (size_t k = 0; k < GUARD_CASES; k++) {
        case_init(&c[k]);
        build_case(&c[k], (int)k);
        if (!case_outputs_alloc(&out[k], &c[k])) {
            tap_ok(t, false, "outputs for the batch");
            return;
        }
        items[k] = (backend_batch_item){ .c = &c[k], .exec = { NAN_POLICY_IGNORE, false },
                                         .out = &out[k] };
    }
    for (size_t m = 0; m < TRANSFER_COUNT; m++) {
        cl_backend_set_tuning(b, &(cl_tuning){ .split_mode = CL_SPLIT_AUTO,
                                               .transfer = transfers[m].transfer });
        opencl_backend.run_batch(b, items, GUARD_CASES);
        for (size_t k = 0; k < GUARD_CASES; k++) {
            if (!tap_ok(t, items[k].status == want, "in one batch, %s%s%s, %s transfer: %s",
                        cases[k].name, options ? " with " : "", options ? options : "",
                        transfers[m].name, run_status_name(want)))
                tap_diag("got %s: %s", run_status_name(items[k].status), items[k].err.msg);
            else if (items[k].status != RUN_OK)
                tap_diag("reported as: %s", items[k].err.msg);
        }
    }
    for (size_t k = 0; k < GUARD_CASES; k++) {
        case_outputs_free(&out[k]);
        case_free(&c[k]);
    }
}

/* Runs every case on a backend built with `options`; each must end with status `want`. */
static void expect_status(tap *t, const char *options, run_status want)
{
    backend *b;
    cl_test_open_result r = cl_test_open(options, &b);
    if (!tap_ok(t, r == CL_TEST_OPENED, "open with build options '%s'", options ? options : ""))
        return;
    for (int k = 0; k < (int)GUARD_CASES; k++) {
        dml_case c;
        case_init(&c);
        build_case(&c, k);
        dmlc_error err = { "" };
        case_outputs out;
        bool valid = validate_case(&c, &err) && case_outputs_alloc(&out, &c);
        if (!tap_ok(t, valid, "%s is a valid case", cases[k].name)) {
            tap_diag("%s", err.msg);
            case_free(&c);
            continue;
        }
        for (size_t m = 0; m < TRANSFER_COUNT; m++) {
            cl_tuning tuning = cases[k].tuning;
            tuning.transfer = transfers[m].transfer;
            cl_backend_set_tuning(b, &tuning);
            run_status s = opencl_backend.run(b, &c, &(exec_options){ NAN_POLICY_IGNORE, false },
                                              &out, &err);
            if (!tap_ok(t, s == want, "%s%s%s, %s transfer: %s", cases[k].name,
                        options ? " with " : "", options ? options : "", transfers[m].name,
                        run_status_name(want)))
                tap_diag("got %s: %s", run_status_name(s), err.msg);
            else if (s != RUN_OK)
                tap_diag("reported as: %s", err.msg);
        }
        case_outputs_free(&out);
        case_free(&c);
    }
    expect_batch_status(t, b, options, want);
    cl_test_close(t, b);
}

/* A program that does not compile: open fails, naming the call, the code and the log. */
static void expect_build_failure(tap *t)
{
    dmlc_error err = { "" };
    cl_open_options options = { .device = getenv("DMLCHECK_TEST_DEVICE"),
                                .build_options = "-DDMLCHECK_FAULT_BUILD" };
    backend *b = cl_backend_open(&options, &err);
    if (b)
        opencl_backend.close(b);
    tap_ok(t, !b, "a program that does not compile fails to open");
    if (!tap_ok(t, strstr(err.msg, "clBuildProgram") && strstr(err.msg, "CL_BUILD_PROGRAM_FAILURE")
                       && strstr(err.msg, "dmlcheck test-only build failure"),
                "the error names the call, the code and quotes the build log"))
        tap_diag("got: %s", err.msg);
}

int main(void)
{
    backend *probe;
    cl_test_open_result r = cl_test_open(NULL, &probe);
    if (r != CL_TEST_OPENED)
        return cl_test_open_exit_code(r);
    opencl_backend.close(probe);
    tap t;
    tap_plan(&t, 0);
    expect_status(&t, NULL, RUN_OK);
    expect_status(&t, "-DDMLCHECK_FAULT_WRITE_PAST_END", RUN_OUT_OF_BOUNDS_WRITE);
    expect_status(&t, "-DDMLCHECK_FAULT_WRITE_INPUT", RUN_INPUT_MODIFIED);
    expect_status(&t, "-DDMLCHECK_FAULT_WRITE_BEFORE_START", RUN_OUT_OF_BOUNDS_WRITE);
    expect_status(&t, "-DDMLCHECK_FAULT_WRITE_PARAMS", RUN_OUT_OF_BOUNDS_WRITE);
    expect_build_failure(&t);
    return tap_done(&t);
}
