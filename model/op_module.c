/* op_module.c: the helpers every operator module shares (op_module.h). */
#include "op_module.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* Decimal digits of x at p (no terminator); returns the count.  Hand-written because this
 * runs for every recorded case, where snprintf's format parsing was 3% of the run. */
static size_t put_decimal(char *p, UINT x)
{
    char tmp[10];
    size_t n = 0;
    do
        tmp[n++] = (char)('0' + x % 10);
    while ((x /= 10) != 0);
    for (size_t i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

const char *op_uints_text(const UINT *v, UINT n, char *buf, size_t size)
{
    /* Worst case per entry: 10 digits and a comma; cut short when it would not fit. */
    size_t used = 0;
    if (size < 3) {
        if (size)
            buf[0] = 0;
        return buf;
    }
    buf[used++] = '[';
    for (UINT i = 0; i < n && used + 12 < size; i++) {
        if (i)
            buf[used++] = ',';
        used += put_decimal(buf + used, v[i]);
    }
    buf[used++] = ']';
    buf[used] = 0;
    return buf;
}

bool case_tensor_from_desc(case_tensor *t, const DML_TENSOR_DESC *d, const char *field, dmlc_error *err)
{
    if (!d || d->Type != DML_TENSOR_TYPE_BUFFER || !d->Desc)
        return err_set(err, "%s is not a DML_BUFFER_TENSOR_DESC", field);
    const DML_BUFFER_TENSOR_DESC *b = d->Desc;
    if (b->DimensionCount > DML_MAX_RANK || !b->Sizes)
        return err_set(err, "%s has DimensionCount %u (Sizes %s); a case holds at most %u", field,
                       b->DimensionCount, b->Sizes ? "set" : "NULL", DML_MAX_RANK);
    t->present = true;
    t->type = b->DataType;
    t->flags = b->Flags;
    t->rank = b->DimensionCount;
    memcpy(t->sizes, b->Sizes, t->rank * sizeof t->sizes[0]);
    t->has_strides = b->Strides != NULL;
    if (b->Strides)
        memcpy(t->strides, b->Strides, t->rank * sizeof t->strides[0]);
    /* The descriptor states its size; keep it even where it equals the computed one. */
    t->has_total_bytes = true;
    t->total_bytes = b->TotalTensorSizeInBytes;
    t->base_alignment = b->GuaranteedBaseOffsetAlignment;
    return true;
}

bool case_from_desc(op_id op, const void *desc, DML_FEATURE_LEVEL fl, dml_case *c, dmlc_error *err)
{
    if ((unsigned)op >= OP_COUNT || !desc)
        return err_set(err, "no operator descriptor to read");
    c->op = op;
    c->feature_level = fl;
    if (!op_table[op].module->from_desc(desc, c, err))
        return false;
    case_link(c);
    return true;
}

/* A JSON array of at most max unsigned integers into v; its length, or -1. */
static int json_uints(const json_t *a, UINT *v, unsigned max)
{
    if (!json_is_array(a) || json_array_size(a) > max)
        return -1;
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_int_t x = json_integer_value(json_array_get(a, i));
        if (!json_is_integer(json_array_get(a, i)) || x < 0 || x > UINT32_MAX)
            return -1;
        v[i] = (UINT)x;
    }
    return (int)json_array_size(a);
}

/* One operator field from its stored parameter; false when it is malformed. */
static bool field_from_param(const op_field *f, const json_t *v, dml_case *c)
{
    char *at = (char *)c + f->offset;
    switch (f->kind) {
    case OP_FIELD_UINTS: {
        int n = json_uints(v, (UINT *)at, f->max_count);
        if (n >= 0)
            *(UINT *)((char *)c + f->count_offset) = (UINT)n;
        return n >= 0;
    }
    case OP_FIELD_DIRECTION: {
        const char *d = json_string_value(v);
        *(DML_AXIS_DIRECTION *)at = d && !strcmp(d, "DECREASING") ? DML_AXIS_DIRECTION_DECREASING
                                                                    : DML_AXIS_DIRECTION_INCREASING;
        return d != NULL;
    }
    case OP_FIELD_TENSOR: {
        case_tensor *t = (case_tensor *)at;
        t->present = json_is_true(v);
        t->rank = c->output.rank;
        memcpy(t->sizes, c->output.sizes, sizeof t->sizes);
        return json_is_boolean(v);
    }
    }
    return false;
}

bool op_case_from_params(op_id op, const char *params, const char *input_sizes,
                         const char *output_sizes, dml_case *c)
{
    case_init(c);
    if ((unsigned)op >= OP_COUNT || !params || !input_sizes || !output_sizes)
        return false;
    c->op = op;
    json_t *p = json_loads(params, 0, NULL), *in = json_loads(input_sizes, 0, NULL),
           *out = json_loads(output_sizes, 0, NULL);
    int in_rank = json_uints(in, c->input.sizes, DML_MAX_RANK);
    int out_rank = json_uints(out, c->output.sizes, DML_MAX_RANK);
    bool ok = json_is_object(p) && in_rank > 0 && out_rank > 0;
    c->input.present = c->output.present = ok;
    c->input.rank = ok ? (UINT)in_rank : 0;
    c->output.rank = ok ? (UINT)out_rank : 0;
    for (const op_field *f = op_table[op].module->fields; ok && f->name; f++) {
        const json_t *v = json_object_get(p, f->param);
        /* Stored parameters of fields the operator lacks (MAX_POOLING1's unit dilations)
         * are left to link; a missing field is a malformed row. */
        if ((op_table[op].flags & f->needs_flags) == f->needs_flags)
            ok = v && field_from_param(f, v, c);
    }
    json_decref(p);
    json_decref(in);
    json_decref(out);
    if (ok)
        case_link(c);
    return ok;
}

void op_text_init(op_text *t, char *buf, size_t size)
{
    *t = (op_text){ buf, size, 0, size == 0 };
    if (size)
        buf[0] = 0;
}

void op_text_put(op_text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->overflow || t->used + n >= t->size) {
        t->overflow = true;
        return;
    }
    memcpy(t->buf + t->used, s, n + 1);
    t->used += n;
}

void op_text_uints(op_text *t, const UINT *v, UINT n)
{
    char tmp[12 * DML_MAX_RANK + 3];
    if (n > DML_MAX_RANK) {
        t->overflow = true;
        return;
    }
    op_text_put(t, op_uints_text(v, n, tmp, sizeof tmp));
}
