/*
 * fuzz_differential.c: libFuzzer target.  Bytes -> a valid case (fuzz_case_builder.c, as
 * fuzz_reference) -> the reference and the OpenCL backend; the two must agree bit for bit
 * on every logical output element (NaN by NaN-ness, compare.h).  A device that may flush
 * fp32 denormals is judged against the flushed answer on `denormal` cases (SEMANTICS D6).
 * Any difference, backend error, out-of-bounds write or modified input aborts with a report
 * (case file, coordinates, expected and got as hex-float and raw bits, the input values at
 * both indices for ARGMIN/ARGMAX) so libFuzzer keeps the input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "op_module.h"
#include "compare.h"
#include "dtype.h"
#include "fuzz_case_builder.h"
#include "fuzz_common.h"
#include "fuzz_oracle.h"
#include "reference.h"

/* The device, opened once.  libFuzzer's API passes no context to LLVMFuzzerTestOneInput, so
 * the backend (an OpenCL context, queue and built programs: seconds to create) must live in
 * a static set up by LLVMFuzzerInitialize and is never closed; the process exit releases it. */
static struct {
    const backend_vtable *vt;
    backend *b;
    backend_info info;
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
    device.vt = backend_find("opencl");
    if (!device.vt)
        fuzz_unavailable("this build has no OpenCL backend");
    device.b = device.vt->open(getenv("DMLCHECK_FUZZ_DEVICE"), &err);
    if (!device.b)
        fuzz_unavailable(err.msg);
    device.vt->info(device.b, &device.info);
    atexit(print_summary);
    fprintf(stderr, "fuzz_differential: OpenCL device %s (%s, %s)%s\n", device.info.device,
            device.info.platform, device.info.driver,
            device.info.flushes_denormals ? ", may flush fp32 denormals" : "");
    return 0;
}

/* For ARGMIN/ARGMAX, the input values the two indices name (equal values: a tie-rule bug). */
static void print_indexed_values(const dml_case *c, const mismatch *m)
{
    if (!(op_table[c->op].module == &op_module_arg_reduce) || m->rank == 0)
        return;
    tensor_view in;
    case_tensor_view(&c->input, &in);
    bool reduced[DML_MAX_RANK] = { false };
    uint64_t group = 1;
    for (UINT i = 0; i < c->axis_count; i++)
        reduced[c->axes[i]] = true;
    for (unsigned a = 0; a < in.rank; a++)
        group *= reduced[a] ? in.sizes[a] : 1;
    uint64_t which[2] = { m->expected_bits, m->got_bits };
    const char *label[2] = { "expected", "got" };
    for (int s = 0; s < 2; s++) {
        uint64_t r = dtype_is_signed_int(c->output.type)
            ? (uint64_t)dtype_bits_to_i64(c->output.type, which[s]) : which[s];
        if (r >= group) {
            fprintf(stderr, "fuzz:   %s index %" PRIu64 " is outside the group of %" PRIu64 "\n",
                    label[s], r, group);
            continue;
        }
        uint32_t coords[DML_MAX_RANK];
        for (unsigned a = in.rank; a-- > 0;) { /* SEMANTICS D2: reduced axes ascending */
            coords[a] = m->coords[a];
            if (reduced[a]) {
                coords[a] = (uint32_t)(r % in.sizes[a]);
                r /= in.sizes[a];
            }
        }
        char buf[96];
        uint64_t bits = dtype_load_bits(c->input_data, in.type, tensor_view_offset_coords(&in, coords));
        fprintf(stderr, "fuzz:   input at the %s index: %s\n", label[s],
                compare_format_value(in.type, bits, buf, sizeof buf));
    }
}

static _Noreturn void report_mismatch(const dml_case *c, const exec_options *opt, const mismatch *m,
                                      unsigned classes)
{
    const case_tensor *t = m->tensor[0] == 'i' ? &c->indices : &c->output;
    char e[96], g[96], coords[128] = "", names[64];
    size_t used = 0;
    for (unsigned i = 0; i < m->rank; i++)
        used += (size_t)snprintf(coords + used, sizeof coords - used, "%s%u", i ? "," : "", m->coords[i]);
    fuzz_print_case(c);
    fprintf(stderr, "fuzz: %s %s on %s: %" PRIu64 " element(s) differ; first: %s {%s} (logical %" PRIu64
            ") expected %s got %s (nan policy %s, classes '%s')\n",
            op_table[c->op].name, dtype_name(c->input.type), device.info.device, m->count, m->tensor,
            coords, m->logical_index, compare_format_value(t->type, m->expected_bits, e, sizeof e),
            compare_format_value(t->type, m->got_bits, g, sizeof g), nan_policy_name(opt->nan),
            case_classes_str(classes, names, sizeof names));
    if (t == &c->output && !c->indices.present)
        print_indexed_values(c, m);
    fuzz_fail("the OpenCL backend disagrees with the reference (save the case above as a file and "
              "replay it with: dmlcheck exec --backend opencl --nan-policy %s FILE)",
              nan_policy_name(opt->nan));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dml_case c;
    exec_options opt;
    dmlc_error err = { "" };
    fuzz_build_valid_case(data, size, &c, &opt);
    case_outputs exact, flushed, got;
    if (!case_outputs_alloc(&got, &c) || !case_outputs_alloc(&exact, &c))
        fuzz_fail("out of memory allocating outputs");
    unsigned classes = ref_classify(&c, &opt, &exact, &flushed);
    run_status status = device.vt->run(device.b, &c, &opt, &got, &err);
    if (status == RUN_UNSUPPORTED) {
        /* The device cannot run this case (e.g. no 64-bit integers): nothing to compare. */
        device.unsupported++;
    } else if (status != RUN_OK) {
        fuzz_print_case(&c);
        fuzz_fail("the OpenCL backend returned %s: %s", run_status_name(status), err.msg);
    } else {
        /* SEMANTICS D6: a device without denormals is judged against the flushed answer. */
        bool use_flushed = device.info.flushes_denormals && (classes & CASE_CLASS_DENORMAL);
        mismatch m;
        if (!compare_outputs(&c, use_flushed ? &flushed : &exact, &got, &m))
            report_mismatch(&c, &opt, &m, classes);
        device.compared++;
    }
    case_outputs_free(&exact);
    case_outputs_free(&flushed);
    case_outputs_free(&got);
    case_free(&c);
    return 0;
}
