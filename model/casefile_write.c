/*
 * casefile_write.c: dml_case -> JSON case file (see casefile.c): the notation the reader reads
 * back bit for bit.
 */
#include "casefile.h"
#include "casefile_notation.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "dtype.h"
#include "op_module.h"

/* ---- Writer ------------------------------------------------------------------------------- */

static json_t *hex_bits_json(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    char buf[32];
    snprintf(buf, sizeof buf, "0x%0*" PRIx64, (int)dtype_size(t) * 2, bits);
    return json_string(buf);
}

/* The shortest decimal (at most 9 digits, the dump precision) that reads back to bits. */
static json_t *float_json(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    uint64_t sign = bits & notation_sign_bit(t), magnitude = bits & ~notation_sign_bit(t);
    if (dtype_bits_is_nan(t, bits))
        return magnitude == notation_canonical_nan(t) ? json_string(sign ? "-nan" : "nan")
                                                  : hex_bits_json(t, bits);
    if (magnitude == notation_infinity(t))
        return json_string(sign ? "-inf" : "inf");
    double d = dtype_bits_to_double(t, bits);
    if (d == 0 && sign)
        return hex_bits_json(t, bits); /* JSON readers disagree on -0; raw bits do not */
    if (d == trunc(d) && fabs(d) < 0x1p53)
        return json_integer((json_int_t)d);
    char text[40];
    for (int digits = 1; digits <= CASEFILE_REAL_DIGITS; digits++) {
        uint64_t back;
        snprintf(text, sizeof text, "%.*g", digits, d);
        if (casefile_number_to_float_bits(text, t, &back) && back == bits)
            return json_real(strtod(text, NULL));
    }
    return hex_bits_json(t, bits);
}

static json_t *element_json(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    if (dtype_is_float(t))
        return float_json(t, bits);
    if (dtype_is_signed_int(t))
        return json_integer((json_int_t)dtype_bits_to_i64(t, bits));
    if (bits <= INT64_MAX)
        return json_integer((json_int_t)bits);
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, bits);
    return json_string(buf);
}

/* Logical elements of a strided buffer (or of a logical array when buf is NULL). */
static json_t *values_json(const case_tensor *t, const uint8_t *buf, const uint64_t *logical)
{
    tensor_view v;
    case_tensor_view(t, &v);
    json_t *array = json_array();
    for (uint64_t i = 0; array && i < v.elements; i++) {
        uint64_t bits = buf ? dtype_load_bits(buf, v.type, tensor_view_offset(&v, i)) : logical[i];
        if (json_array_append_new(array, element_json(v.type, bits))) {
            json_decref(array);
            return NULL;
        }
    }
    return array;
}

static json_t *uint_array_json(const UINT *values, UINT count)
{
    json_t *array = json_array();
    for (UINT i = 0; array && i < count; i++)
        if (json_array_append_new(array, json_integer(values[i]))) {
            json_decref(array);
            return NULL;
        }
    return array;
}

static json_t *tensor_json(const case_tensor *t)
{
    json_t *obj = json_object();
    if (!obj)
        return NULL;
    int failed = json_object_set_new(obj, "DataType", json_string(dtype_name(t->type)))
        | json_object_set_new(obj, "Sizes", uint_array_json(t->sizes, t->rank));
    if (t->has_strides)
        failed |= json_object_set_new(obj, "Strides", uint_array_json(t->strides, t->rank));
    if (t->has_total_bytes)
        failed |= json_object_set_new(obj, "TotalTensorSizeInBytes", json_integer((json_int_t)t->total_bytes));
    failed |= json_object_set_new(obj, "Flags", json_integer(t->flags))
        | json_object_set_new(obj, "GuaranteedBaseOffsetAlignment", json_integer(t->base_alignment));
    if (failed) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static json_t *direction_json(DML_AXIS_DIRECTION d)
{
    return d == DML_AXIS_DIRECTION_INCREASING ? json_string("INCREASING")
        : d == DML_AXIS_DIRECTION_DECREASING ? json_string("DECREASING")
                                             : json_integer(d);
}

static int set_operator_fields(json_t *root, const dml_case *c)
{
    int failed = 0;
    for (const op_field *f = op_table[c->op].module->fields; f->name; f++) {
        const void *at = (const char *)c + f->offset;
        if (!op_field_exists(f, c->op))
            continue;
        if (f->kind == OP_FIELD_TENSOR && ((const case_tensor *)at)->present)
            failed |= json_object_set_new(root, f->name, tensor_json(at));
        else if (f->kind == OP_FIELD_DIRECTION)
            failed |= json_object_set_new(root, f->name, direction_json(*(const DML_AXIS_DIRECTION *)at));
        else if (f->kind == OP_FIELD_UINTS)
            failed |= json_object_set_new(root, f->name, uint_array_json(at,
                                          *(const UINT *)((const char *)c + f->count_offset)));
    }
    return failed;
}

/* {"output": [...], "indices": [...]} from buffers, or from c's expected arrays. */
static json_t *outputs_json(const dml_case *c, const case_outputs *o)
{
    json_t *obj = json_object();
    if (!obj)
        return NULL;
    int failed = 0;
    if (o || c->has_expected_output)
        failed |= json_object_set_new(obj, "output",
                                      values_json(&c->output, o ? o->output : NULL, c->expected_output));
    if (c->indices.present && (o ? o->indices != NULL : c->has_expected_indices))
        failed |= json_object_set_new(obj, "indices",
                                      values_json(&c->indices, o ? o->indices : NULL, c->expected_indices));
    if (failed) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static char *dump(json_t *root)
{
    char *text = root ? json_dumps(root, JSON_REAL_PRECISION(CASEFILE_REAL_DIGITS)) : NULL;
    json_decref(root);
    return text;
}

/* The case's header and descriptor in case-file names: op, feature_level, comment (when
 * given), must_reject, the tensors and the operator's fields.  NULL on failure. */
static json_t *descriptor_root(const dml_case *c, const char *comment)
{
    if (c->op >= OP_COUNT)
        return NULL;
    json_t *root = json_object();
    if (!root)
        return NULL;
    int failed = json_object_set_new(root, "op", json_string(op_table[c->op].name));
    if (c->feature_level) {
        const char *name = fl_name(c->feature_level);
        failed |= json_object_set_new(root, "feature_level", strcmp(name, "?")
                                      ? json_string(name) : json_integer(c->feature_level));
    }
    if (comment)
        failed |= json_object_set_new(root, "comment", json_string(comment));
    if (c->must_reject)
        failed |= json_object_set_new(root, "must_reject", json_true());
    failed |= json_object_set_new(root, "InputTensor", tensor_json(&c->input))
        | json_object_set_new(root, "OutputTensor", tensor_json(&c->output))
        | set_operator_fields(root, c);
    if (failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

char *casefile_write(const dml_case *c, const case_outputs *expected)
{
    json_t *root = descriptor_root(c, c->comment);
    if (!root)
        return NULL;
    int failed = json_object_set_new(root, "input", values_json(&c->input, c->input_data, NULL));
    if (expected || c->has_expected_output || c->has_expected_indices)
        failed |= json_object_set_new(root, "expected", outputs_json(c, expected));
    if (failed) {
        json_decref(root);
        return NULL;
    }
    return dump(root);
}

json_t *casefile_descriptor_json(const dml_case *c)
{
    return descriptor_root(c, NULL);
}

char *casefile_outputs_json(const dml_case *c, const case_outputs *o)
{
    return dump(outputs_json(c, o));
}

json_t *casefile_outputs_object(const dml_case *c, const case_outputs *o)
{
    return outputs_json(c, o);
}

