/*
 * fuzz_raw_desc.c: draws a raw descriptor field by field (see fuzz_raw_desc.h).  One
 * function per DirectML struct, run in both directions; nothing is repaired, so writing then
 * reading gives back the same descriptor.  Invariant: every array the descriptor points at
 * holds min(count, RAW_ARRAY_CAP) entries (at least 1).
 */
#include "fuzz_raw_desc.h"
#include "op_module.h"

#include <stdlib.h>
#include <string.h>

#include "tensor.h"

/* UINT values that sit on a boundary of some rule or of 32/64-bit arithmetic. */
static const UINT edge_values[] = {
    0, 1, 2, 3, 4, 5, 8, 9, 16, 255, 256, 65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
};
#define EDGE_COUNT (sizeof edge_values / sizeof edge_values[0])

static const DML_FEATURE_LEVEL known_levels[] = {
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4,
};
#define LEVEL_COUNT (sizeof known_levels / sizeof known_levels[0])

enum { U32_SMALL, U32_EDGE, U32_RAW };

/* A UINT: small (0..15), an edge value, or raw 32 bits. */
static UINT draw_u32(fuzz_io *io, UINT value)
{
    unsigned edge = 0;
    while (edge < EDGE_COUNT && edge_values[edge] != value)
        edge++;
    unsigned kind = value <= 15 ? U32_SMALL : edge < EDGE_COUNT ? U32_EDGE : U32_RAW;
    kind = (unsigned)fuzz_io_range(io, kind, U32_SMALL, U32_RAW);
    if (kind == U32_SMALL)
        return (UINT)fuzz_io_range(io, value, 0, 15);
    if (kind == U32_EDGE)
        return edge_values[fuzz_io_range(io, edge, 0, EDGE_COUNT - 1)];
    return (UINT)fuzz_io_range(io, value, 0, UINT32_MAX);
}

/* An array of `count` entries behind a pointer that may be NULL. */
static bool draw_array(fuzz_io *io, UINT **array, UINT count)
{
    bool present = fuzz_io_bool(io, *array != NULL);
    UINT entries = count < RAW_ARRAY_CAP ? count : RAW_ARRAY_CAP;
    if (!present) {
        free(*array);
        *array = NULL;
        return true;
    }
    if (io->in) {
        free(*array);
        if (!(*array = malloc((entries ? entries : 1) * sizeof **array)))
            return false;
        for (UINT i = 0; i < entries; i++)
            (*array)[i] = 1;
    }
    for (UINT i = 0; i < entries && i < RAW_DRAWN_ENTRIES; i++)
        (*array)[i] = draw_u32(io, (*array)[i]);
    return true;
}

enum { TOTAL_EXACT, TOTAL_OVERSIZED, TOTAL_UNDERSIZED, TOTAL_RAW };

/* TotalTensorSizeInBytes relative to what Sizes and Strides address (when they can be read):
 * exact, up to 1020 bytes more, 1..16 bytes less, or raw 64 bits. */
static UINT64 draw_total_bytes(fuzz_io *io, const DML_BUFFER_TENSOR_DESC *b)
{
    UINT64 computed = 0, value = b->TotalTensorSizeInBytes;
    if (b->Sizes && b->DimensionCount <= RAW_ARRAY_CAP)
        computed = dml_calc_buffer_tensor_size(b->DataType, b->DimensionCount, b->Sizes, b->Strides);
    unsigned kind = value == computed ? TOTAL_EXACT
        : value > computed && (value - computed) % 4 == 0 && value - computed <= 1020 ? TOTAL_OVERSIZED
        : value < computed && computed - value <= 16 ? TOTAL_UNDERSIZED : TOTAL_RAW;
    kind = (unsigned)fuzz_io_range(io, kind, TOTAL_EXACT, TOTAL_RAW);
    switch (kind) {
    case TOTAL_EXACT: return computed;
    case TOTAL_OVERSIZED: return computed + 4 * fuzz_io_range(io, (value - computed) / 4, 0, 255);
    case TOTAL_UNDERSIZED: return computed - fuzz_io_range(io, computed - value, 1, 16);
    default: return fuzz_io_range(io, value, 0, UINT64_MAX);
    }
}

static bool draw_tensor(fuzz_io *io, raw_tensor *t)
{
    DML_BUFFER_TENSOR_DESC *b = &t->buffer;
    t->present = fuzz_io_bool(io, t->present);
    if (!t->present)
        return true;
    bool is_buffer = fuzz_io_bool(io, t->desc.Type == DML_TENSOR_TYPE_BUFFER);
    t->desc.Type = is_buffer ? DML_TENSOR_TYPE_BUFFER : (DML_TENSOR_TYPE)draw_u32(io, t->desc.Type);
    t->has_buffer = fuzz_io_bool(io, t->has_buffer);
    b->DataType = (DML_TENSOR_DATA_TYPE)draw_u32(io, b->DataType);
    b->Flags = (DML_TENSOR_FLAGS)draw_u32(io, b->Flags);
    b->DimensionCount = draw_u32(io, b->DimensionCount);
    if (!draw_array(io, &t->sizes, b->DimensionCount) || !draw_array(io, &t->strides, b->DimensionCount))
        return false;
    b->Sizes = t->sizes;
    b->Strides = t->strides;
    b->TotalTensorSizeInBytes = draw_total_bytes(io, b);
    b->GuaranteedBaseOffsetAlignment = draw_u32(io, b->GuaranteedBaseOffsetAlignment);
    return true;
}

static void link_tensor(raw_tensor *t)
{
    t->buffer.Sizes = t->sizes;
    t->buffer.Strides = t->strides;
    t->desc.Desc = t->has_buffer ? &t->buffer : NULL;
}

static const DML_TENSOR_DESC *tensor_pointer(const raw_tensor *t)
{
    return t->present ? &t->desc : NULL;
}

/* Rebuilds every pointer of the descriptor from r's fields. */
static void link_desc(raw_desc *r)
{
    link_tensor(&r->input);
    link_tensor(&r->output);
    link_tensor(&r->indices);
    r->arg = (DML_ARGMAX_OPERATOR_DESC){ tensor_pointer(&r->input), tensor_pointer(&r->output),
                                         r->arg.AxisCount, r->axes, r->arg.AxisDirection };
    const DML_TENSOR_DESC *indices = r->indices_kind == RAW_INDICES_OWN ? tensor_pointer(&r->indices)
        : r->indices_kind == RAW_INDICES_SAME_AS_OUTPUT ? tensor_pointer(&r->output) : NULL;
    r->pool = (DML_MAX_POOLING2_OPERATOR_DESC){
        tensor_pointer(&r->input), tensor_pointer(&r->output), indices, r->pool.DimensionCount,
        r->pool_arrays[RAW_POOL_STRIDES], r->pool_arrays[RAW_POOL_WINDOW],
        r->pool_arrays[RAW_POOL_START], r->pool_arrays[RAW_POOL_END],
        r->pool_arrays[RAW_POOL_DILATIONS],
    };
    bool arg = r->op.Type == DML_OPERATOR_ARGMIN || r->op.Type == DML_OPERATOR_ARGMAX;
    r->op.Desc = !r->has_desc ? NULL : arg ? (const void *)&r->arg : (const void *)&r->pool;
}

/* Operator type: one of ours, or raw 32 bits (mostly unknown types). */
static DML_OPERATOR_TYPE draw_op_type(fuzz_io *io, DML_OPERATOR_TYPE value)
{
    op_id op = op_from_dml_type(value);
    unsigned kind = (unsigned)fuzz_io_range(io, op, 0, OP_COUNT);
    return kind < OP_COUNT ? op_table[kind].dml_type : (DML_OPERATOR_TYPE)draw_u32(io, value);
}

static DML_FEATURE_LEVEL draw_level(fuzz_io *io, DML_FEATURE_LEVEL value)
{
    unsigned level = 0;
    while (level < LEVEL_COUNT && known_levels[level] != value)
        level++;
    level = (unsigned)fuzz_io_range(io, level, 0, LEVEL_COUNT);
    return level < LEVEL_COUNT ? known_levels[level] : (DML_FEATURE_LEVEL)draw_u32(io, value);
}

bool fuzz_raw_desc_draw(fuzz_io *io, raw_desc *r)
{
    r->op.Type = draw_op_type(io, r->op.Type);
    r->has_desc = fuzz_io_bool(io, r->has_desc);
    r->feature_level = draw_level(io, r->feature_level);
    r->nan = fuzz_io_bool(io, r->nan == NAN_POLICY_PROPAGATE) ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE;
    if (!draw_tensor(io, &r->input) || !draw_tensor(io, &r->output))
        return false;
    if (r->op.Type == DML_OPERATOR_ARGMIN || r->op.Type == DML_OPERATOR_ARGMAX) {
        r->arg.AxisCount = draw_u32(io, r->arg.AxisCount);
        if (!draw_array(io, &r->axes, r->arg.AxisCount))
            return false;
        r->arg.AxisDirection = (DML_AXIS_DIRECTION)draw_u32(io, r->arg.AxisDirection);
    } else {
        r->indices_kind = (raw_indices)fuzz_io_range(io, r->indices_kind, RAW_INDICES_NONE,
                                                     RAW_INDICES_SAME_AS_OUTPUT);
        if (r->indices_kind == RAW_INDICES_OWN && !draw_tensor(io, &r->indices))
            return false;
        r->pool.DimensionCount = draw_u32(io, r->pool.DimensionCount);
        for (unsigned a = 0; a < RAW_POOL_ARRAYS; a++)
            if (!draw_array(io, &r->pool_arrays[a], r->pool.DimensionCount))
                return false;
    }
    link_desc(r);
    return true;
}

void fuzz_raw_desc_init(raw_desc *r)
{
    memset(r, 0, sizeof *r);
}

static void free_tensor(raw_tensor *t)
{
    free(t->sizes);
    free(t->strides);
}

void fuzz_raw_desc_free(raw_desc *r)
{
    free_tensor(&r->input);
    free_tensor(&r->output);
    free_tensor(&r->indices);
    free(r->axes);
    for (unsigned a = 0; a < RAW_POOL_ARRAYS; a++)
        free(r->pool_arrays[a]);
    fuzz_raw_desc_init(r);
}

static UINT *copy_array(const UINT *values, UINT count)
{
    UINT *copy = malloc((count ? count : 1) * sizeof *copy);
    if (copy && count)
        memcpy(copy, values, count * sizeof *copy);
    return copy;
}

static bool tensor_from_case(raw_tensor *t, const case_tensor *ct)
{
    t->present = ct->present;
    if (!ct->present)
        return true;
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->has_buffer = true;
    t->buffer = ct->buffer;
    t->sizes = copy_array(ct->sizes, ct->rank);
    t->strides = ct->has_strides ? copy_array(ct->strides, ct->rank) : NULL;
    return t->sizes && (!ct->has_strides || t->strides);
}

bool fuzz_raw_desc_from_case(raw_desc *r, const dml_case *c, const exec_options *opt)
{
    r->op.Type = op_table[c->op].dml_type;
    r->has_desc = true;
    r->feature_level = c->feature_level;
    r->nan = opt->nan;
    bool ok = tensor_from_case(&r->input, &c->input) && tensor_from_case(&r->output, &c->output);
    /* The raw structs are DirectML's, one per family; a family without one is not drawn. */
    const char *family = op_table[c->op].module_name;
    if (strcmp(family, "arg_reduce") && strcmp(family, "max_pooling"))
        return false;
    if (!strcmp(family, "arg_reduce")) {
        r->arg.AxisCount = c->axis_count;
        r->arg.AxisDirection = c->direction;
        ok = ok && (r->axes = copy_array(c->axes, c->axis_count));
    } else {
        r->indices_kind = c->indices.present ? RAW_INDICES_OWN : RAW_INDICES_NONE;
        ok = ok && tensor_from_case(&r->indices, &c->indices);
        r->pool.DimensionCount = c->spatial_count;
        const UINT *arrays[RAW_POOL_ARRAYS] = { c->pool_strides, c->window, c->start_padding,
                                                c->end_padding, c->dilations };
        for (unsigned a = 0; a < RAW_POOL_ARRAYS; a++)
            ok = ok && (r->pool_arrays[a] = copy_array(arrays[a], c->spatial_count));
    }
    link_desc(r);
    return ok;
}
