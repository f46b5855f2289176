/* case.c: ownership and DML-pointer plumbing of dml_case. */
#include "case.h"

#include "op_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void case_init(dml_case *c)
{
    memset(c, 0, sizeof *c);
    c->op = OP_COUNT;
}

void case_free(dml_case *c)
{
    free(c->input_data);
    free(c->expected_output);
    free(c->expected_indices);
    free(c->comment);
    case_init(c);
}

static bool dup_bytes(void **dst, const void *src, size_t n)
{
    *dst = NULL;
    if (!src)
        return true;
    *dst = malloc(n ? n : 1);
    if (!*dst)
        return false;
    memcpy(*dst, src, n);
    return true;
}

bool case_copy(dml_case *dst, const dml_case *src)
{
    *dst = *src;
    dst->input_data = NULL;
    dst->expected_output = dst->expected_indices = NULL;
    dst->comment = NULL;
    bool ok = dup_bytes((void **)&dst->input_data, src->input_data, case_tensor_bytes(&src->input))
        && dup_bytes((void **)&dst->expected_output, src->expected_output,
                     case_tensor_elements(&src->output) * sizeof(uint64_t))
        && dup_bytes((void **)&dst->expected_indices, src->expected_indices,
                     case_tensor_elements(&src->indices) * sizeof(uint64_t))
        && dup_bytes((void **)&dst->comment, src->comment, src->comment ? strlen(src->comment) + 1 : 0);
    case_link(dst);
    if (!ok)
        case_free(dst);
    return ok;
}

static bool same_uints(const UINT *a, const UINT *b, UINT n)
{
    return !memcmp(a, b, n * sizeof *a);
}

static bool same_tensor(const case_tensor *a, const case_tensor *b)
{
    if (a->present != b->present)
        return false;
    if (!a->present)
        return true;
    return a->type == b->type && a->rank == b->rank && a->rank <= DML_MAX_RANK
        && same_uints(a->sizes, b->sizes, a->rank) && a->has_strides == b->has_strides
        && (!a->has_strides || same_uints(a->strides, b->strides, a->rank))
        && case_tensor_bytes(a) == case_tensor_bytes(b) && a->base_alignment == b->base_alignment
        && a->flags == b->flags;
}

bool case_same_descriptor(const dml_case *a, const dml_case *b)
{
    return a->op == b->op && a->feature_level == b->feature_level
        && a->must_reject == b->must_reject && same_tensor(&a->input, &b->input)
        && same_tensor(&a->output, &b->output) && same_tensor(&a->indices, &b->indices)
        && a->axis_count == b->axis_count && a->axis_count <= DML_MAX_RANK
        && same_uints(a->axes, b->axes, a->axis_count) && a->direction == b->direction
        && a->spatial_count == b->spatial_count && a->spatial_count <= DML_MAX_SPATIAL
        && same_uints(a->pool_strides, b->pool_strides, a->spatial_count)
        && same_uints(a->window, b->window, a->spatial_count)
        && same_uints(a->start_padding, b->start_padding, a->spatial_count)
        && same_uints(a->end_padding, b->end_padding, a->spatial_count)
        && same_uints(a->dilations, b->dilations, a->spatial_count);
}

void case_tensor_set(case_tensor *t, DML_TENSOR_DATA_TYPE type, unsigned rank, const UINT *sizes,
                     const UINT *strides)
{
    memset(t, 0, sizeof *t);
    t->present = true;
    t->type = type;
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides) {
        t->has_strides = true;
        memcpy(t->strides, strides, rank * sizeof *strides);
    }
}

UINT64 case_tensor_bytes(const case_tensor *t)
{
    if (t->has_total_bytes)
        return t->total_bytes;
    return dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes, t->has_strides ? t->strides : NULL);
}

uint64_t case_tensor_elements(const case_tensor *t)
{
    return t->present ? tensor_element_count(t->rank, t->sizes) : 0;
}

void case_tensor_view(const case_tensor *t, tensor_view *v)
{
    tensor_view_from_desc(v, &t->buffer);
}

static void link_tensor(case_tensor *t)
{
    t->buffer = (DML_BUFFER_TENSOR_DESC){
        .DataType = t->type,
        .Flags = t->flags,
        .DimensionCount = t->rank,
        .Sizes = t->sizes,
        .Strides = t->has_strides ? t->strides : NULL,
        .TotalTensorSizeInBytes = case_tensor_bytes(t),
        .GuaranteedBaseOffsetAlignment = t->base_alignment,
    };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
}

void case_link(dml_case *c)
{
    link_tensor(&c->input);
    link_tensor(&c->output);
    link_tensor(&c->indices);
    memset(&c->dml, 0, sizeof c->dml);
    c->op_desc = (DML_OPERATOR_DESC){ DML_OPERATOR_INVALID, NULL };
    if (c->op >= OP_COUNT)
        return;
    c->op_desc.Type = op_table[c->op].dml_type;
    op_table[c->op].module->link(c);
}

const char *nan_policy_name(nan_policy p)
{
    return p == NAN_POLICY_PROPAGATE ? "propagate" : "ignore";
}

bool nan_policy_from_name(const char *name, nan_policy *out)
{
    if (!strcasecmp(name, "ignore"))
        *out = NAN_POLICY_IGNORE;
    else if (!strcasecmp(name, "propagate"))
        *out = NAN_POLICY_PROPAGATE;
    else
        return false;
    return true;
}

const char *case_classes_str(unsigned classes, char *buf, unsigned size)
{
    static const char *const names[] = { "nan", "denormal", "padding_window" };
    buf[0] = 0;
    for (unsigned i = 0, used = 0; i < 3; i++)
        if (classes & (1u << i)) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? "," : "", names[i]);
            if (n < 0 || (unsigned)n >= size - used)
                break;
            used += (unsigned)n;
        }
    return buf;
}

static bool alloc_canary(uint8_t **p, UINT64 bytes)
{
    *p = malloc(bytes ? bytes : 1);
    if (*p)
        memset(*p, CASE_CANARY_BYTE, bytes);
    return *p != NULL;
}

bool case_outputs_alloc(case_outputs *o, const dml_case *c)
{
    memset(o, 0, sizeof *o);
    o->output_bytes = case_tensor_bytes(&c->output);
    if (!alloc_canary(&o->output, o->output_bytes))
        return false;
    if (c->indices.present) {
        o->indices_bytes = case_tensor_bytes(&c->indices);
        if (!alloc_canary(&o->indices, o->indices_bytes)) {
            case_outputs_free(o);
            return false;
        }
    }
    return true;
}

void case_outputs_free(case_outputs *o)
{
    free(o->output);
    free(o->indices);
    memset(o, 0, sizeof *o);
}
