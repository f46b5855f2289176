/*
 * fuzz_validate.c: libFuzzer target.  Bytes -> a raw DirectML descriptor (fuzz_raw_desc.c:
 * any operator type, feature level, rank, sizes, strides, axes, pooling parameters, enum
 * values, NULL pointers and absurd counts) -> validate_operator and validate.
 *
 * Invariants:
 * - the validator never crashes, reads out of bounds or hits UB, whatever the descriptor;
 * - validate_operator and validate(op, Desc) agree, and a rejection always has a message;
 * - whatever it accepts is representable (rank <= 8, AxisCount <= rank, 2-3 spatial
 *   dimensions), and validate_case accepts the same descriptor rebuilt as a dml_case;
 * - an accepted descriptor is safe to execute: within the size cap below, the reference
 *   runs it on buffers of exactly TotalTensorSizeInBytes (ASan catches any access past
 *   them) with input bytes from the head of the input, and fuzz_oracle.c checks the result.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "op_module.h"
#include "fuzz_oracle.h"
#include "fuzz_raw_desc.h"
#include "reference.h"
#include "validate.h"

/* Accepted descriptors larger than this are validated but not executed. */
#define RUN_MAX_ELEMENTS 65536u
#define RUN_MAX_BYTES (1u << 20)
/* Pooling work (outputs x in-input taps per window) and oracle work bound. */
#define RUN_MAX_WORK (1u << 22)

/* The accepted raw descriptor as a case (case_from_desc), failing if the validator accepted
 * something no valid descriptor can be. */
static void case_from_raw(dml_case *c, const raw_desc *r, op_id op)
{
    dmlc_error err;
    if (r->indices_kind == RAW_INDICES_SAME_AS_OUTPUT)
        fuzz_fail("the validator accepted OutputIndicesTensor == OutputTensor (aliasing outputs)");
    if (!case_from_desc(op, r->op.Desc, r->feature_level, c, &err))
        fuzz_fail("the validator accepted a descriptor no case can hold: %s", err.msg);
}

static bool tensor_small(const case_tensor *t)
{
    return !t->present || (case_tensor_elements(t) <= RUN_MAX_ELEMENTS && t->total_bytes <= RUN_MAX_BYTES);
}

/* Outputs times the in-input taps of a window (at most), so pathological windows are skipped. */
static bool work_small(const dml_case *c)
{
    uint64_t work = case_tensor_elements(&c->output);
    unsigned first = c->input.rank - c->spatial_count; /* spatial_count 0 outside pooling */
    for (unsigned a = 0; a < c->spatial_count; a++) {
        uint64_t in = c->input.sizes[first + a], taps = c->window[a] < in ? c->window[a] : in;
        work *= taps;
        if (work > RUN_MAX_WORK)
            return false;
    }
    return work <= RUN_MAX_WORK && case_tensor_elements(&c->input) <= RUN_MAX_WORK;
}

/* Runs an accepted case on exact-size buffers and checks the answer. */
static void run_accepted(dml_case *c, fuzz_input *in, nan_policy nan)
{
    UINT64 bytes = c->input.total_bytes;
    c->input_data = malloc(bytes ? bytes : 1);
    if (!c->input_data)
        fuzz_fail("out of memory for %llu input bytes", (unsigned long long)bytes);
    for (UINT64 i = 0; i < bytes; i++)
        c->input_data[i] = (uint8_t)fuzz_head_bits(in, 1);
    case_outputs out;
    if (!case_outputs_alloc(&out, c))
        fuzz_fail("out of memory for outputs");
    exec_options opt = { .nan = nan, .flush_denormals = false };
    ref_run(c, &opt, &out);
    fuzz_oracle_check(c, &opt, &out, "reference");
    case_outputs_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in;
    fuzz_io io = { &in, NULL };
    raw_desc r;
    dmlc_error err = { "" }, direct_err = { "" };
    fuzz_input_init(&in, data, size);
    fuzz_raw_desc_init(&r);
    if (!fuzz_raw_desc_draw(&io, &r))
        fuzz_fail("out of memory drawing a descriptor");

    bool accepted = validate_operator(&r.op, r.feature_level, &err);
    op_id op = op_from_dml_type(r.op.Type);
    if (op != OP_COUNT && validate(op, r.op.Desc, r.feature_level, &direct_err) != accepted)
        fuzz_fail("validate_operator and validate(%s) disagree: validate_operator %s%s, validate %s%s",
                  op_table[op].name, accepted ? "accepts" : "rejects: ", err.msg,
                  accepted ? "rejects: " : "accepts", direct_err.msg);
    if (!accepted && !err.msg[0])
        fuzz_fail("the validator rejected a descriptor without saying why");
    if (accepted) {
        dml_case c;
        case_init(&c);
        case_from_raw(&c, &r, op);
        if (!validate_case(&c, &err)) {
            fuzz_print_case(&c);
            fuzz_fail("validate accepted the raw descriptor but validate_case rejects it as a case: %s",
                      err.msg);
        }
        if (tensor_small(&c.input) && tensor_small(&c.output) && tensor_small(&c.indices) && work_small(&c))
            run_accepted(&c, &in, r.nan);
        case_free(&c);
    }
    fuzz_raw_desc_free(&r);
    return 0;
}
