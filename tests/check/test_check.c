/*
 * test_check.c: the one differential check (harness/check.h) and its explanation.  A fake
 * backend computes the reference answer and then commits one fault on request: it reports
 * an error or an unsupported case, writes past an output buffer or into the input without
 * saying so, patches one output element, or answers as a device that flushes fp32 denormals.
 * Each test states the verdict, the kind and the words a person would read.  The last test
 * runs `dmlcheck run`'s runner with a tie-flipping backend and reads its signature lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../reference/case_builder.h"
#include "check.h"
#include "dtype.h"
#include "reference.h"
#include "replay.h"
#include "runner.h"
#include "tap.h"

typedef enum fault { FAULT_NONE, FAULT_ERROR, FAULT_UNSUPPORTED, FAULT_REPORTED_OOB, FAULT_SILENT_OOB,
                     FAULT_INPUT, FAULT_PATCH, FAULT_FLUSH, FAULT_REPORTED_RACE } fault;

struct backend {
    fault fault;
    bool patch_indices;  /* FAULT_PATCH: the indices tensor instead of the output */
    uint64_t patch_logical, patch_bits;
};

static backend fake; /* the one fake device; tests set its fault */

static backend *fake_open(const char *device, const char *args, dmlc_error *err)
{
    (void)args;
    (void)device;
    (void)err;
    return &fake;
}

static void patch(const dml_case *c, backend *b, case_outputs *out)
{
    const case_tensor *t = b->patch_indices ? &c->indices : &c->output;
    tensor_view v;
    case_tensor_view(t, &v);
    dtype_store_bits(b->patch_indices ? out->indices : out->output, t->type,
                     tensor_view_offset(&v, b->patch_logical), b->patch_bits);
}

static run_status fake_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                           dmlc_error *err)
{
    exec_options flushed = *opt;
    flushed.flush_denormals = b->fault == FAULT_FLUSH;
    ref_run(c, &flushed, out);
    switch (b->fault) {
    case FAULT_ERROR: err_set(err, "clBuildProgram failed"); return RUN_BACKEND_ERROR;
    case FAULT_UNSUPPORTED: err_set(err, "device lacks this type"); return RUN_UNSUPPORTED;
    case FAULT_REPORTED_OOB: err_set(err, "guard band overwritten"); return RUN_OUT_OF_BOUNDS_WRITE;
    case FAULT_REPORTED_RACE:
        err_set(err, "Oclgrind: Write-write data race at global memory address 0x2000000000000");
        return RUN_DATA_RACE;
    case FAULT_SILENT_OOB: out->output[out->output_bytes] = 0; return RUN_OK;
    case FAULT_INPUT: ((dml_case *)c)->input_data[0] ^= 1; return RUN_OK;
    case FAULT_PATCH: patch(c, b, out); return RUN_OK;
    case FAULT_FLUSH: case FAULT_NONE: return RUN_OK;
    }
    return RUN_OK;
}

static void fake_info(backend *b, backend_info *info)
{
    memset(info, 0, sizeof *info);
    info->flushes_denormals = b->fault == FAULT_FLUSH;
}

static void fake_close(backend *b) { (void)b; }

static const backend_vtable fake_backend = {
    .name = "fake", .summary = "misbehaves on request", .open = fake_open, .run = fake_run,
    .info = fake_info, .close = fake_close,
};

/* ---- Cases -------------------------------------------------------------------------- */

/* ARGMAX over FLOAT32 values given as raw bits, one axis of n elements. */
static void argmax_case(dml_case *c, const uint64_t *bits, UINT n)
{
    UINT sizes[1] = { n }, axes[1] = { 0 };
    case_init(c);
    cb_arg_case(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL, 1, axes,
                DML_AXIS_DIRECTION_INCREASING, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(c);
    for (UINT i = 0; i < n; i++)
        cb_set_input(c, i, bits[i]);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

/* {3, 1, 3}: the maximum ties at 0 and 2; INCREASING picks 0 (SEMANTICS D3). */
static void tie_case(dml_case *c)
{
    static const uint64_t v[3] = { 0x40400000, 0x3f800000, 0x40400000 };
    argmax_case(c, v, 3);
}

/* {+0, smallest denormal}: exactly the denormal (index 1) wins; flushed, the two tie and
 * index 0 wins, so the case has class denormal (SEMANTICS D6). */
static void denormal_case(dml_case *c)
{
    static const uint64_t v[2] = { 0x00000000, 0x00000001 };
    argmax_case(c, v, 2);
}

/* 1x1x1x4 pooling, window 2, stride 2, with indices: {5, 5, 1, 2} -> 5 at index 0, 2 at 3. */
static void pool_tie_case(dml_case *c)
{
    UINT sizes[4] = { 1, 1, 1, 4 }, out[2] = { 1, 2 };
    cb_pool_axis axes[2] = { { 1, 1, 0, 0, 1 }, { 2, 2, 0, 0, 1 } };
    static const uint64_t v[4] = { 0x40a00000, 0x40a00000, 0x3f800000, 0x40000000 };
    case_init(c);
    cb_pool_case(c, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL, axes, out, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(c);
    for (unsigned i = 0; i < 4; i++)
        cb_set_input(c, i, v[i]);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

/* ---- Helpers ------------------------------------------------------------------------ */

static check_options options(bool device_flushes, bool exact)
{
    return (check_options){ .rules = { .device_flushes = device_flushes }, .exact = exact };
}

/* Checks c on the fake with fault f; the explanation (replay `replay`) goes into text. */
static check_result run_check(fault f, const dml_case *c, const check_options *opt, const char *replay,
                              char *text, size_t size)
{
    checker k;
    check_result r;
    dmlc_error err = { "" };
    fake.fault = f;
    check_init(&k, &fake_backend, &fake, opt);
    if (!check_case(&k, c, &r, &err))
        r = (check_result){ .j.verdict = VERDICT_ERROR };
    check_fini(&k);
    check_explain(c, &r, replay, text, size);
    return r;
}

/* Verdict, kind, exit code and up to two phrases of the explanation. */
static bool expect(const check_result *r, const char *text, verdict v, mismatch_kind kind, int code,
                   const char *phrase1, const char *phrase2)
{
    bool ok = r->j.verdict == v && r->j.kind == kind && check_exit_code(r) == code
        && (!phrase1 || strstr(text, phrase1)) && (!phrase2 || strstr(text, phrase2));
    if (!ok)
        tap_diag("verdict %s kind %s exit %d; explanation:\n%s", verdict_name(r->j.verdict),
                 r->j.kind ? mismatch_kind_name(r->j.kind) : "none", check_exit_code(r), text);
    return ok;
}

/* ---- Run statuses ------------------------------------------------------------------- */

static void test_statuses(tap *t)
{
    dml_case c;
    char text[4096];
    check_options opt = options(false, false);
    tie_case(&c);
    check_result r = run_check(FAULT_NONE, &c, &opt, "dmlcheck x", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_PASS, KIND_NONE, 0, "pass\n", NULL) && !strstr(text, "replay"),
           "check_agreeing_backend_passes_without_replay_line");
    r = run_check(FAULT_ERROR, &c, &opt, "dmlcheck x", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_backend_error, 1,
                     "fail: backend_error: clBuildProgram failed\n", "replay: dmlcheck x\n"),
           "check_backend_error_fails_with_message_and_replay");
    r = run_check(FAULT_UNSUPPORTED, &c, &opt, "dmlcheck x", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_SKIP, KIND_NONE, 0,
                     "skip: the backend cannot run this case: device lacks this type", NULL)
           && !strstr(text, "replay"), "check_unsupported_is_a_skip");
    r = run_check(FAULT_REPORTED_OOB, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_out_of_bounds_write, 1, "guard band overwritten", NULL),
           "check_reported_out_of_bounds_write_fails");
    r = run_check(FAULT_SILENT_OOB, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_out_of_bounds_write, 1,
                     "a byte just outside an output buffer was written", NULL),
           "check_guard_band_catches_an_unreported_write_past_the_output");
    r = run_check(FAULT_INPUT, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_input_modified, 1,
                     "input_modified: the input buffer changed during the run", NULL),
           "check_catches_an_unreported_input_change");
    r = run_check(FAULT_REPORTED_RACE, &c, &opt, "dmlcheck x --device oclgrind", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_data_race, 1,
                     "fail: data_race: Oclgrind: Write-write data race at global memory address",
                     "replay: dmlcheck x --device oclgrind\n"),
           "check_reported_data_race_fails_with_the_device_line_and_replay");
    case_free(&c);
}

/* What a checking device reports (backend.h RUN_FINDINGS): each status fails as the kind of
 * its own name, which the store and the reports read back by that name. */
static void test_device_findings(tap *t)
{
    static const struct {
        run_status status;
        const char *name;
    } findings[] = {
        { RUN_INVALID_ACCESS, "invalid_access" },
        { RUN_DATA_RACE, "data_race" },
        { RUN_UNINITIALISED_READ, "uninitialised_read" },
    };
    for (size_t i = 0; i < sizeof findings / sizeof findings[0]; i++) {
        judgement j;
        judge_status(findings[i].status, KIND_NONE, &j);
        const char *kind = mismatch_kind_name(j.kind);
        tap_ok(t, j.verdict == VERDICT_FAIL && kind && !strcmp(kind, findings[i].name)
                  && mismatch_kind_from_name(findings[i].name) == j.kind
                  && !strcmp(run_status_name(findings[i].status), findings[i].name),
               "check_device_finding_%s_is_its_own_kind", findings[i].name);
    }
}

/* Databases store kinds by name: every name an older version wrote still reads back. */
static void test_old_kind_names(tap *t)
{
    static const char *const written_before[] = {
        "wrong_index", "tie_other_way", "padding_selected", "value_bits_differ", "nan_handling",
        "out_of_bounds_write", "input_modified", "invalid_access", "data_race", "uninitialised_read",
        "backend_error", "crash", "hang", "rejected_valid", "unsupported_required", "accepted_invalid",
    };
    bool ok = true;
    for (size_t i = 0; i < sizeof written_before / sizeof written_before[0]; i++) {
        mismatch_kind k = mismatch_kind_from_name(written_before[i]);
        ok = ok && k < KIND_COUNT && !strcmp(mismatch_kind_name(k), written_before[i]);
    }
    tap_ok(t, ok, "check_kind_names_written_before_root_causes_still_read_back");
}

/* The runner's split: the oracle here, the answer from elsewhere (a worker that died). */
static void test_halves(tap *t)
{
    dml_case c;
    char text[4096];
    check_options opt = options(false, false);
    check_oracle oracle;
    dmlc_error err;
    tie_case(&c);
    check_prepare(&c, &opt.exec, &oracle, &err);
    check_answer died = { .died = KIND_crash, .message = "killed by signal 11 (SIGSEGV)" };
    check_result r;
    check_judge(&c, &oracle, &died, &opt, &r);
    check_explain(&c, &r, "dmlcheck replay 1:2", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_crash, 1, "fail: crash: killed by signal 11", NULL),
           "check_judge_fails_a_crashed_worker");

    /* The same answer judged in halves and by check_case gives the same result. */
    fake.fault = FAULT_PATCH;
    fake.patch_indices = false;
    fake.patch_logical = 0;
    fake.patch_bits = 2;
    check_buffers buf = { 0 };
    check_answer a;
    check_result whole;
    check_run(&fake_backend, &fake, &c, &opt.exec, &buf, &a);
    check_judge(&c, &oracle, &a, &opt, &r);
    whole = run_check(FAULT_PATCH, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, r.j.verdict == whole.j.verdict && r.j.kind == whole.j.kind && r.j.count == whole.j.count
           && r.j.verdict == VERDICT_FAIL, "check_halves_judge_as_check_case_does");
    check_buffers_free(&buf);
    check_oracle_free(&oracle);
    case_free(&c);
}

/* ---- Denormals (SEMANTICS D6) ------------------------------------------------------- */

static void test_denormals(tap *t)
{
    dml_case c;
    char text[4096];
    denormal_case(&c);
    check_options flushing = options(true, true), exact_device = options(false, false);
    check_options exact_device_exact = options(false, true);
    check_result r = run_check(FAULT_FLUSH, &c, &flushing, "dmlcheck x", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_PASS, KIND_NONE, 0, "matches the answer with fp32 denormals flushed",
                     NULL) && r.flushed_pass && (r.classes & CASE_CLASS_DENORMAL),
           "check_flushing_device_passes_with_the_flushed_answer");
    r = run_check(FAULT_NONE, &c, &flushing, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_PASS, KIND_NONE, 0, NULL, NULL) && !r.flushed_pass,
           "check_flushing_device_passes_with_the_exact_answer");
    r = run_check(FAULT_FLUSH, &c, &exact_device, "dmlcheck x", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_UNSPECIFIED, KIND_wrong_index, 0, "case classes: denormal",
                     "not a failure"), "check_exact_device_with_flushed_answer_is_unspecified");
    r = run_check(FAULT_FLUSH, &c, &exact_device_exact, "dmlcheck x", text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_wrong_index, 1, "case classes: denormal", "replay: "),
           "check_exact_device_with_flushed_answer_fails_an_exact_check");
    fake.patch_indices = false;
    fake.patch_logical = 0;
    fake.patch_bits = 7; /* neither answer: no such input element */
    r = run_check(FAULT_PATCH, &c, &flushing, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_index_out_of_window, 1,
                     "the returned index names no input element", NULL),
           "check_flushing_device_with_a_third_answer_fails_an_exact_check");
    case_free(&c);
}

/* ---- Case-file expected arrays ------------------------------------------------------ */

static void expect_output(dml_case *c, uint64_t bits)
{
    free(c->expected_output);
    c->expected_output = malloc(sizeof *c->expected_output);
    c->expected_output[0] = bits;
    c->has_expected_output = true;
}

static void test_case_file(tap *t)
{
    dml_case c;
    char text[4096];
    check_options opt = options(false, false);
    tie_case(&c);
    expect_output(&c, 0);
    check_result r = run_check(FAULT_NONE, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_PASS, KIND_NONE, 0, NULL, NULL), "check_file_expectation_met_passes");
    expect_output(&c, 2); /* the file claims the other tie */
    r = run_check(FAULT_NONE, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_tie_other_way, 1,
                     "output[0] (logical element 0): expected 2, got 0; 1 element differs from the case "
                     "file's expected outputs", NULL) && r.against_file,
           "check_file_expectation_checked_even_when_the_reference_agrees");
    case_free(&c);

    /* Expectations are judged as the reference's answer is: the flushed answer of a device
     * that does not flush differs only in class denormal, unspecified unless strict. */
    denormal_case(&c);
    expect_output(&c, 1);
    r = run_check(FAULT_FLUSH, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_UNSPECIFIED, KIND_wrong_index, 0, NULL, "case classes: denormal"),
           "check_file_expectation_unspecified_class_stays_unspecified");
    check_options strict = opt;
    strict.rules.strict = true;
    r = run_check(FAULT_FLUSH, &c, &strict, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_wrong_index, 1, "case file", "case classes: denormal"),
           "check_file_expectation_strict_fails_a_device_that_does_not_flush");
    opt = options(true, false);
    r = run_check(FAULT_FLUSH, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_PASS, KIND_NONE, 0, "fp32 denormals flushed", NULL),
           "check_file_expectation_accepts_a_flushing_device_s_flushed_answer");
    case_free(&c);
}

/* ---- The explanation ---------------------------------------------------------------- */

static void test_explanation(tap *t)
{
    dml_case c;
    char text[4096], replay[256] = "dmlcheck exec --backend fake";
    replay_append_arg(replay, sizeof replay, "it's here.json");
    check_options opt = options(false, false);
    tie_case(&c);
    fake.patch_indices = false;
    fake.patch_logical = 0;
    fake.patch_bits = 2;
    check_result r = run_check(FAULT_PATCH, &c, &opt, replay, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_tie_other_way, 1,
                     "fail: tie_other_way: output[0] (logical element 0): expected 0, got 2; 1 element "
                     "differs from the reference\n"
                     "  input at the expected index: input[0] (flat 0) = 0x1.8p+1 (0x40400000)\n"
                     "  input at the returned index: input[2] (flat 2) = 0x1.8p+1 (0x40400000)\n"
                     "  the two input values are equal: a tie-rule difference (SEMANTICS D3)\n",
                     "replay: dmlcheck exec --backend fake 'it'\\''s here.json'\n"),
           "check_explains_an_index_mismatch_with_both_input_values_and_a_quoted_replay");
    char *json = check_first_json(&c, &r);
    tap_ok(t, json && strstr(json, "\"input_at_expected\":{\"index\":0,\"bits\":\"0x40400000\"")
           && strstr(json, "\"explanation\":\"fail: tie_other_way: output[0]"),
           "check_first_json_holds_the_inputs_and_the_explanation: %s", json ? json : "(null)");
    free(json);
    case_free(&c);

    /* Pooling: the indices differ; the same generic lines name both window elements. */
    pool_tie_case(&c);
    fake.patch_indices = true;
    fake.patch_logical = 0;
    fake.patch_bits = 1;
    r = run_check(FAULT_PATCH, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, expect(&r, text, VERDICT_FAIL, KIND_tie_other_way, 1,
                     "indices[0,0,0,0] (logical element 0): expected 0, got 1",
                     "  input at the returned index: input[0,0,0,1] (flat 1) = 0x1.4p+2 (0x40a00000)\n"),
           "check_explains_a_pooling_index_mismatch_with_the_window_elements");
    case_free(&c);
}

/* ---- Root causes: each planted in the fake's answer, each read back as its kind ------- */

/* ARGMIN or ARGMAX of n raw values of type t along one axis. */
static void arg_values(dml_case *c, op_id op, DML_TENSOR_DATA_TYPE t, DML_AXIS_DIRECTION direction,
                       const uint64_t *bits, UINT n)
{
    UINT sizes[1] = { n }, axes[1] = { 0 };
    case_init(c);
    cb_arg_case(c, op, t, 1, sizes, NULL, 1, axes, direction, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(c);
    for (UINT i = 0; i < n; i++)
        cb_set_input(c, i, bits[i]);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

/* 1x1x1xW FLOAT32 pooling along W (window, stride, start padding), UINT32 indices. */
static void pool_row(dml_case *c, const uint64_t *bits, UINT w, UINT window, UINT stride, UINT start)
{
    UINT sizes[4] = { 1, 1, 1, w }, out[2] = { 1, 0 };
    cb_pool_axis axes[2] = { { 1, 1, 0, 0, 1 }, { window, stride, start, 0, 1 } };
    out[1] = cb_pool_out_size(w, &axes[1], false);
    case_init(c);
    cb_pool_case(c, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL, axes, out, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(c);
    for (UINT i = 0; i < w; i++)
        cb_set_input(c, i, bits[i]);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

#define F32_NEG_INF 0xff800000u
#define F32_NEG_MAX 0xff7fffffu /* -FLT_MAX */
#define F32_NAN 0x7fc00000u
#define F32_NEG_ZERO 0x80000000u

static void argmax_min_float_values(dml_case *c)
{
    static const uint64_t v[2] = { F32_NEG_INF, F32_NEG_MAX }; /* -FLT_MAX (index 1) wins */
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_INCREASING, v, 2);
}

static void pool_all_minus_inf(dml_case *c)
{
    static const uint64_t v[2] = { F32_NEG_INF, F32_NEG_INF };
    pool_row(c, v, 2, 2, 2, 0);
}

static void argmax_signed_zeros(dml_case *c)
{
    static const uint64_t v[3] = { F32_NEG_ZERO, 0, F32_NEG_ZERO }; /* the first, -0, wins (D3) */
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_INCREASING, v, 3);
}

/* {+0, -0} pooled by one window, no indices: +0 (the first) wins. */
static void pool_plus_then_minus_zero(dml_case *c)
{
    static const uint64_t v[2] = { 0, F32_NEG_ZERO };
    UINT sizes[4] = { 1, 1, 1, 2 }, out[2] = { 1, 1 };
    cb_pool_axis axes[2] = { { 1, 1, 0, 0, 1 }, { 2, 2, 0, 0, 1 } };
    case_init(c);
    cb_pool_case(c, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL, axes, out, DML_TENSOR_DATA_TYPE_UNKNOWN);
    cb_alloc_input(c);
    for (UINT i = 0; i < 2; i++)
        cb_set_input(c, i, v[i]);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

static void argmax_zeros_tie(dml_case *c)
{
    static const uint64_t v[2] = { 0, F32_NEG_ZERO };
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_INCREASING, v, 2);
}

static void argmax_three_ties(dml_case *c)
{
    static const uint64_t v[3] = { 0x40400000, 0x40400000, 0x40400000 };
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_INCREASING, v, 3);
}

/* {pad, -3 | -3, -4}: window 2, stride 1, one position of start padding: -3 twice. */
static void pool_padded_negatives(dml_case *c)
{
    static const uint64_t v[2] = { 0xc0400000, 0xc0800000 };
    pool_row(c, v, 2, 2, 1, 1);
}

/* {pad, +0 | +0, -1}: +0 at index 0 in both windows. */
static void pool_padded_zero(dml_case *c)
{
    static const uint64_t v[2] = { 0, 0xbf800000 };
    pool_row(c, v, 2, 2, 1, 1);
}

/* {pad, -0, +0}: window 3, one position of start padding: -0 at index 0. */
static void pool_padded_signed_zeros(dml_case *c)
{
    static const uint64_t v[2] = { F32_NEG_ZERO, 0 };
    pool_row(c, v, 2, 3, 1, 1);
}

/* {pad, NaN | NaN, -1}: the first window's answer is the NaN (class nan). */
static void pool_padded_nan(dml_case *c)
{
    static const uint64_t v[2] = { F32_NAN, 0xbf800000 };
    pool_row(c, v, 2, 2, 1, 1);
}

/* {pad, -inf | -inf, -1}: the first window's answer is -inf. */
static void pool_padded_minus_inf(dml_case *c)
{
    static const uint64_t v[2] = { F32_NEG_INF, 0xbf800000 };
    pool_row(c, v, 2, 2, 1, 1);
}

/* {pad | 7}: the first window lies wholly in padding (class padding_window). */
static void pool_all_padding_window(dml_case *c)
{
    static const uint64_t v[1] = { 0x40e00000 };
    pool_row(c, v, 1, 1, 1, 1);
}

/* {3, NaN, 1, 2}: 3 wins (policy ignore); NaN splits the numbers into runs {3} and {1, 2}. */
static void argmax_nan_split(dml_case *c)
{
    static const uint64_t v[4] = { 0x40400000, F32_NAN, 0x3f800000, 0x40000000 };
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_INCREASING, v, 4);
}

/* {NaN, 1, 5, 3}: 5 wins; the NaN decides nothing a wrong index returns. */
static void argmax_nan_first(dml_case *c)
{
    static const uint64_t v[4] = { F32_NAN, 0x3f800000, 0x40a00000, 0x40400000 };
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32, DML_AXIS_DIRECTION_INCREASING, v, 4);
}

/* UINT32 {2^31, 5}: 2^31 wins; read as INT32 it is the smallest, so the narrowed winner is
 * also the reversed order's (ARGMIN's): no evidence of narrowing. */
static void argmax_uint32_high_bit_pair(dml_case *c)
{
    static const uint64_t v[2] = { 0x80000000, 5 };
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT32, DML_AXIS_DIRECTION_INCREASING, v, 2);
}

/* {NaN, 2} pooled by one window with indices: 2 at index 1 (policy ignore). */
static void pool_nan_window(dml_case *c)
{
    static const uint64_t v[2] = { F32_NAN, 0x40000000 };
    pool_row(c, v, 2, 2, 2, 0);
}

/* UINT32 {2^31-1, 2^31, 1}: 2^31 wins; read as INT32 it is negative and 2^31-1 wins. */
static void argmax_uint32_high_bit(dml_case *c)
{
    static const uint64_t v[3] = { 0x7fffffff, 0x80000000, 1 };
    arg_values(c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_UINT32, DML_AXIS_DIRECTION_INCREASING, v, 3);
}

typedef struct planted {
    const char *name;
    void (*build)(dml_case *c);
    bool indices;             /* the fault patches the indices tensor instead of the output */
    uint64_t logical, bits;   /* the element patched and the bits written */
    verdict verdict;
    mismatch_kind kind;
} planted;

/* One row per root cause (docs/SEMANTICS.md "Failure kinds"), and the neighbours it must not
 * be mistaken for. */
static const planted planted_causes[] = {
    { "extreme_not_selectable_index_left_at_0", argmax_min_float_values, false, 0, 0,
      VERDICT_FAIL, KIND_extreme_not_selectable },
    { "extreme_not_selectable_seed_returned", pool_all_minus_inf, false, 0, F32_NEG_MAX,
      VERDICT_FAIL, KIND_extreme_not_selectable },
    { "extreme_not_selectable_index_never_set", pool_all_minus_inf, true, 0, 0xffffffff,
      VERDICT_FAIL, KIND_extreme_not_selectable },
    { "signed_zero_tie_plus_zero_for_minus_zero", argmax_signed_zeros, false, 0, 1,
      VERDICT_FAIL, KIND_signed_zero_tie },
    { "signed_zero_tie_pooled_minus_zero_for_plus_zero", pool_plus_then_minus_zero, false, 0, F32_NEG_ZERO,
      VERDICT_FAIL, KIND_signed_zero_tie },
    { "tie_other_way_zeros_at_both_ends", argmax_zeros_tie, false, 0, 1, VERDICT_FAIL, KIND_tie_other_way },
    { "tie_other_way_needs_the_other_end", argmax_three_ties, false, 0, 1, VERDICT_FAIL, KIND_wrong_index },
    { "tie_other_way_at_the_other_end", argmax_three_ties, false, 0, 2, VERDICT_FAIL, KIND_tie_other_way },
    { "value_not_in_window_beside_padding", pool_padded_negatives, false, 0, 0xc0800000,
      VERDICT_FAIL, KIND_value_not_in_window },
    { "padding_selected_zero", pool_padded_negatives, false, 0, 0, VERDICT_FAIL, KIND_padding_selected },
    { "padding_selected_by_its_index", pool_padded_zero, true, 0, 1, VERDICT_FAIL, KIND_padding_selected },
    { "padding_selected_when_its_index_names_another_zero", pool_padded_signed_zeros, false, 0, 0,
      VERDICT_FAIL, KIND_padding_selected },
    { "padding_selected_judged_in_class_nan", pool_padded_nan, false, 0, 0, VERDICT_FAIL, KIND_padding_selected },
    { "padding_selected_in_a_window_of_minus_inf", pool_padded_minus_inf, false, 0, 0,
      VERDICT_FAIL, KIND_padding_selected },
    { "value_not_in_window_minus_zero_for_a_zero", pool_padded_negatives, false, 0, F32_NEG_ZERO,
      VERDICT_FAIL, KIND_value_not_in_window },
    { "index_out_of_window", pool_padded_negatives, true, 0, 1, VERDICT_FAIL, KIND_index_out_of_window },
    { "index_out_of_window_in_a_padding_window", pool_all_padding_window, true, 0, 0,
      VERDICT_FAIL, KIND_index_out_of_window },
    { "padding_window_index_naming_nothing_stays_unspecified", pool_all_padding_window, true, 0, 0xfffffffe,
      VERDICT_UNSPECIFIED, KIND_wrong_index },
    { "padding_window_value_stays_unspecified", pool_all_padding_window, false, 0, 0,
      VERDICT_UNSPECIFIED, KIND_padding_selected },
    { "nan_breaks_order_judged_in_class_nan", argmax_nan_split, false, 0, 3,
      VERDICT_FAIL, KIND_nan_breaks_order },
    { "nan_policy_difference_stays_unspecified", argmax_nan_split, false, 0, 1,
      VERDICT_UNSPECIFIED, KIND_nan_handling },
    { "nan_present_but_not_deciding_is_judged", argmax_nan_first, false, 0, 3,
      VERDICT_FAIL, KIND_wrong_index },
    { "narrowed_integer_uint32_as_int32", argmax_uint32_high_bit, false, 0, 0,
      VERDICT_FAIL, KIND_narrowed_integer },
    { "narrowed_integer_not_for_the_reversed_order", argmax_uint32_high_bit_pair, false, 0, 1,
      VERDICT_FAIL, KIND_wrong_index },
    { "index_disagreeing_with_the_value_judged_in_class_nan", pool_nan_window, false, 0, F32_NAN,
      VERDICT_FAIL, KIND_wrong_index },
    { "output_not_written_index", argmax_three_ties, false, 0, 0xa5a5a5a5,
      VERDICT_FAIL, KIND_output_not_written },
    { "output_not_written_value", pool_padded_negatives, false, 1, 0xa5a5a5a5,
      VERDICT_FAIL, KIND_output_not_written },
};

static void test_root_causes(tap *t)
{
    char text[4096];
    check_options opt = options(false, false);
    for (size_t i = 0; i < sizeof planted_causes / sizeof planted_causes[0]; i++) {
        const planted *p = &planted_causes[i];
        dml_case c;
        p->build(&c);
        fake.patch_indices = p->indices;
        fake.patch_logical = p->logical;
        fake.patch_bits = p->bits;
        check_result r = run_check(FAULT_PATCH, &c, &opt, NULL, text, sizeof text);
        tap_ok(t, expect(&r, text, p->verdict, p->kind, p->verdict == VERDICT_FAIL, NULL, NULL),
               "check_kind_%s", p->name);
        case_free(&c);
    }
}

/* A differing case is class nan only when a NaN decided a differing element. */
static void test_nan_class_names_only_deciding_nans(tap *t)
{
    char text[4096];
    check_options opt = options(false, false);
    dml_case c;
    argmax_nan_first(&c);
    fake.patch_indices = false;
    fake.patch_logical = 0;
    fake.patch_bits = 3; /* 3 for 5: no NaN involved */
    check_result r = run_check(FAULT_PATCH, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, !(r.classes & CASE_CLASS_NAN) && !strstr(text, "case classes: nan"),
           "check_nan_elsewhere_in_a_case_is_not_its_class");
    fake.patch_bits = 0; /* the NaN for 5: the NaN decided the answer */
    r = run_check(FAULT_PATCH, &c, &opt, NULL, text, sizeof text);
    tap_ok(t, (r.classes & CASE_CLASS_NAN) && strstr(text, "case classes: nan"),
           "check_nan_that_decided_an_answer_is_the_case_s_class");
    case_free(&c);
}

/* ---- The runner's signature lines --------------------------------------------------- */

/* ARGMAX/ARGMIN with the direction flipped: ties go the other way. */
static run_status flipped_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                              dmlc_error *err)
{
    (void)b;
    (void)err;
    dml_case flipped;
    if (!case_copy(&flipped, c))
        return RUN_BACKEND_ERROR;
    flipped.direction = !flipped.direction;
    case_link(&flipped);
    ref_run(&flipped, opt, out);
    case_free(&flipped);
    return RUN_OK;
}

static const backend_vtable flipped_backend = {
    .name = "flipped", .summary = "ties the other way", .open = fake_open, .run = flipped_run,
    .info = fake_info, .close = fake_close,
};

static void test_runner_lines(tap *t)
{
    char db[] = "/tmp/dmlcheck-check-XXXXXX.sqlite", lines[16384] = "";
    int fd = mkstemps(db, 7);
    close(fd);
    unlink(db);
    FILE *out = tmpfile();
    runner_options o;
    runner_options_default(&o);
    o.backend = &flipped_backend;
    o.seed = 7;
    o.cases = 300;
    o.gen.op_mask = 1u << OP_ARGMAX;
    o.db_path = db;
    o.shrink_budget = 0;
    o.out = out;
    fake.fault = FAULT_NONE;
    runner_report rep;
    dmlc_error err;
    int code = runner_run(&o, &rep, &err);
    rewind(out);
    lines[fread(lines, 1, sizeof lines - 1, out)] = 0;
    fclose(out);
    const char *sig = strstr(lines, "new-signature fail kind=tie_other_way");
    char replay_prefix[64];
    snprintf(replay_prefix, sizeof replay_prefix, "\n  replay: dmlcheck replay g%d:7:", GEN_VERSION);
    const char *next = sig ? strchr(sig, '\n') : NULL;
    /* The descriptor's line comes first, then the check's explanation. */
    bool descriptor = next && !strncmp(next, "\n  descriptor: input sizes [", 28);
    next = descriptor ? strchr(next + 1, '\n') : NULL;
    if (!tap_ok(t, code == 1 && next && !strncmp(next, "\n  fail: tie_other_way: output[", 31)
                && strstr(next, "\n    input at the returned index: input[") && strstr(next, "tie-rule")
                && strstr(next, replay_prefix),
                "run_new_signature_lines_carry_the_check_explanation"))
        tap_diag("exit %d (%s); output:\n%s", code, code == 2 ? err.msg : "", lines);
    for (const char *suffix = ""; suffix; suffix = !*suffix ? "-wal" : !strcmp(suffix, "-wal") ? "-shm" : NULL) {
        char path[64];
        snprintf(path, sizeof path, "%s%s", db, suffix);
        unlink(path);
    }
}

/* replay_split_args reads back every word replay_append_arg writes, and a shell's quoting. */
static void test_replay_words(tap *t)
{
    static const char *const words[] = {
        "plain", "with space", "it's", "$(touch /tmp/x)", "a\"b", "back\\slash", "",
        "tab\there", "line\nbreak", "'", "''", "Intel(R) Xeon", "process:python3 'x y'.py",
        "\033[31mred\033]0;title\a", "del\177", "\n", "x\x01\x1fy'\nz",
    };
    size_t n = sizeof words / sizeof words[0];
    char line[1024] = "dmlcheck";
    for (size_t i = 0; i < n; i++)
        replay_append_arg(line, sizeof line, words[i]);
    char **back = NULL;
    size_t count = 0;
    bool ok = replay_split_args(line, &back, &count) && count == n + 1 && !back[n + 1];
    for (size_t i = 0; ok && i < n; i++)
        ok = !strcmp(back[i + 1], words[i]);
    tap_ok(t, ok, "replay_split_args_reads_back_every_quoted_word (%zu words)", count);
    free(back);
    back = NULL;
    bool printable = true;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++)
        printable &= *p >= 0x20 && *p != 0x7f;
    if (!printable)
        tap_diag("line: %s", line);
    tap_ok(t, printable, "replay_append_arg_writes_control_characters_as_dollar_quotes");
    ok = replay_split_args("$'a\\x1b[1m\\n\\'\\q'b", &back, &count) && count == 1
        && !strcmp(back[0], "a\033[1m\n'\\qb");
    tap_ok(t, ok, "replay_split_args_reads_dollar_quotes");
    free(back);
    back = NULL;

    ok = replay_split_args("a\\ b \"c \\\"d\\\" \\x\"  'e'f\"g\"", &back, &count) && count == 3
        && !strcmp(back[0], "a b") && !strcmp(back[1], "c \"d\" \\x") && !strcmp(back[2], "efg");
    tap_ok(t, ok, "replay_split_args_follows_backslashes_and_double_quotes");
    if (ok)
        free(back);
    tap_ok(t, !replay_split_args("run 'open", &back, &count)
           && !replay_split_args("run \"open", &back, &count),
           "replay_split_args_refuses_an_unterminated_quote");
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    test_statuses(&t);
    test_device_findings(&t);
    test_old_kind_names(&t);
    test_halves(&t);
    test_denormals(&t);
    test_case_file(&t);
    test_explanation(&t);
    test_root_causes(&t);
    test_nan_class_names_only_deciding_nans(&t);
    test_runner_lines(&t);
    test_replay_words(&t);
    return tap_done(&t);
}
