/* op_module.c: the helpers every operator module shares (op_module.h). */
#include "op_module.h"

#include <stdio.h>
#include <string.h>

uint64_t op_logical_of_coords(const case_tensor *t, const uint32_t *coords)
{
    uint64_t logical = 0;
    for (unsigned d = 0; d < t->rank; d++)
        logical = logical * t->sizes[d] + coords[d];
    return logical;
}

const char *op_uints_text(const UINT *v, UINT n, char *buf, size_t size)
{
    size_t used = 0;
    int k = snprintf(buf, size, "[");
    used += k > 0 ? (size_t)k : 0;
    for (UINT i = 0; i < n && used < size; i++) {
        k = snprintf(buf + used, size - used, i ? ",%u" : "%u", v[i]);
        used += k > 0 ? (size_t)k : 0;
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
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
