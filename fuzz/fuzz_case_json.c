/*
 * fuzz_case_json.c: libFuzzer target.  Bytes -> casefile_parse -> validate_case, which must
 * never crash, leak or hit undefined behaviour on any text.  Every case the parser accepts
 * must also round-trip: casefile_write then casefile_parse gives the same case (operator,
 * feature level, every descriptor field, the input's logical elements bit for bit, the
 * expected outputs and the comment); a difference aborts naming the field.
 */
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "op_module.h"
#include "dtype.h"
#include "fuzz_common.h"
#include "validate.h"

/* Fails with both texts when the round trip changed field `what`. */
static void roundtrip_check(bool same, const char *what, const char *text)
{
    if (!same)
        fuzz_fail("case-file round trip changed %s; the written text was:\n%s", what, text);
}

static bool tensors_equal(const case_tensor *a, const case_tensor *b)
{
    if (a->present != b->present)
        return false;
    if (!a->present)
        return true;
    bool same = a->type == b->type && a->rank == b->rank && a->has_strides == b->has_strides
        && a->has_total_bytes == b->has_total_bytes && case_tensor_bytes(a) == case_tensor_bytes(b)
        && a->base_alignment == b->base_alignment && a->flags == b->flags
        && !memcmp(a->sizes, b->sizes, a->rank * sizeof a->sizes[0]);
    return same && (!a->has_strides || !memcmp(a->strides, b->strides, a->rank * sizeof a->strides[0]));
}

/* The input's logical elements, bit for bit (bytes that belong to no element are free). */
static bool inputs_equal(const dml_case *a, const dml_case *b)
{
    tensor_view v;
    case_tensor_view(&a->input, &v);
    for (uint64_t i = 0; i < v.elements; i++) {
        uint64_t offset = tensor_view_offset(&v, i);
        if (dtype_load_bits(a->input_data, v.type, offset) != dtype_load_bits(b->input_data, v.type, offset))
            return false;
    }
    return true;
}

static bool arrays_equal(const uint64_t *a, const uint64_t *b, uint64_t n)
{
    return !n || !memcmp(a, b, n * sizeof *a);
}

/* One operator field of the module's table (op_module.h) agrees between a and b. */
static bool field_equal(const op_field *f, const dml_case *a, const dml_case *b)
{
    const char *pa = (const char *)a + f->offset, *pb = (const char *)b + f->offset;
    switch (f->kind) {
    case OP_FIELD_TENSOR:
        return tensors_equal((const case_tensor *)pa, (const case_tensor *)pb);
    case OP_FIELD_DIRECTION:
        return *(const DML_AXIS_DIRECTION *)pa == *(const DML_AXIS_DIRECTION *)pb;
    case OP_FIELD_UINTS: {
        UINT na = *(const UINT *)((const char *)a + f->count_offset);
        UINT nb = *(const UINT *)((const char *)b + f->count_offset);
        return na == nb && !memcmp(pa, pb, na * sizeof(UINT));
    }
    }
    return false;
}

static void check_roundtrip(const dml_case *a, const dml_case *b, const char *text)
{
    roundtrip_check(a->op == b->op, "op", text);
    roundtrip_check(a->feature_level == b->feature_level, "feature_level", text);
    roundtrip_check(tensors_equal(&a->input, &b->input), "InputTensor", text);
    roundtrip_check(tensors_equal(&a->output, &b->output), "OutputTensor", text);
    roundtrip_check(tensors_equal(&a->indices, &b->indices), "OutputIndicesTensor", text);
    for (const op_field *f = op_table[a->op].module->fields; f->name; f++)
        roundtrip_check(field_equal(f, a, b), f->name, text);
    roundtrip_check(inputs_equal(a, b), "the input values", text);
    roundtrip_check(a->has_expected_output == b->has_expected_output
                    && (!a->has_expected_output
                        || arrays_equal(a->expected_output, b->expected_output, case_tensor_elements(&a->output))),
                    "expected.output", text);
    roundtrip_check(a->has_expected_indices == b->has_expected_indices
                    && (!a->has_expected_indices
                        || arrays_equal(a->expected_indices, b->expected_indices, case_tensor_elements(&a->indices))),
                    "expected.indices", text);
    roundtrip_check((!a->comment && !b->comment) || (a->comment && b->comment && !strcmp(a->comment, b->comment)),
                    "comment", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dml_case c, again;
    dmlc_error err;
    case_init(&c);
    case_init(&again);
    if (!casefile_parse((const char *)data, size, &c, &err))
        return 0;
    char *text = casefile_write(&c, NULL);
    if (!text)
        fuzz_fail("casefile_write failed on a case casefile_parse accepted");
    if (!casefile_parse(text, strlen(text), &again, &err))
        fuzz_fail("casefile_parse rejects what casefile_write wrote (%s):\n%s", err.msg, text);
    check_roundtrip(&c, &again, text);
    free(text);
    validate_case(&c, &err);
    case_free(&c);
    case_free(&again);
    return 0;
}
