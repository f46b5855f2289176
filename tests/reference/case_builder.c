/*
 * case_builder.c: see case_builder.h.  Only plain dml_case fields are set here; every
 * descriptor pointer comes from case_link(), as for cases read from files.
 */
#include "case_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "validate.h"

void cb_packed_strides(unsigned rank, const UINT *sizes, UINT *strides)
{
    UINT s = 1;
    for (unsigned i = rank; i-- > 0;) {
        strides[i] = s;
        s *= sizes[i];
    }
}

void cb_arg_case(dml_case *c, op_id op, DML_TENSOR_DATA_TYPE in_type, unsigned rank,
                 const UINT *sizes, const UINT *input_strides, unsigned axis_count,
                 const UINT *axes, DML_AXIS_DIRECTION direction, DML_TENSOR_DATA_TYPE out_type)
{
    case_init(c);
    c->op = op;
    case_tensor_set(&c->input, in_type, rank, sizes, input_strides);
    UINT out_sizes[DML_MAX_RANK];
    memcpy(out_sizes, sizes, rank * sizeof *sizes);
    for (unsigned a = 0; a < axis_count; a++)
        out_sizes[axes[a]] = 1;
    case_tensor_set(&c->output, out_type, rank, out_sizes, NULL);
    c->axis_count = axis_count;
    memcpy(c->axes, axes, axis_count * sizeof *axes);
    c->direction = direction;
    case_link(c);
}

UINT cb_pool_out_size(UINT in_size, const cb_pool_axis *a, bool ceil_mode)
{
    uint64_t padded = (uint64_t)in_size + a->start_padding + a->end_padding;
    uint64_t dilated = (uint64_t)(a->window - 1) * a->dilation + 1;
    if (dilated > padded)
        return 0;
    uint64_t floor_size = (padded - dilated) / a->stride + 1;
    if (!ceil_mode)
        return (UINT)floor_size;
    uint64_t ceil_size = (padded - dilated + a->stride - 1) / a->stride + 1;
    /* SEMANTICS D8: the extra window must start inside input + StartPadding. */
    if (ceil_size == floor_size || (ceil_size - 1) * a->stride >= (uint64_t)in_size + a->start_padding)
        return 0;
    return (UINT)ceil_size;
}

void cb_pool_case(dml_case *c, DML_TENSOR_DATA_TYPE type, unsigned rank, const UINT *sizes,
                  const UINT *input_strides, const cb_pool_axis *axes, const UINT *out_sizes,
                  DML_TENSOR_DATA_TYPE index_type)
{
    case_init(c);
    c->op = OP_MAX_POOLING2;
    case_tensor_set(&c->input, type, rank, sizes, input_strides);
    UINT osizes[DML_MAX_RANK] = { sizes[0], sizes[1] };
    c->spatial_count = rank - 2;
    for (unsigned s = 0; s < c->spatial_count; s++) {
        osizes[2 + s] = out_sizes[s];
        c->window[s] = axes[s].window;
        c->pool_strides[s] = axes[s].stride;
        c->start_padding[s] = axes[s].start_padding;
        c->end_padding[s] = axes[s].end_padding;
        c->dilations[s] = axes[s].dilation;
    }
    case_tensor_set(&c->output, type, rank, osizes, NULL);
    if (index_type != DML_TENSOR_DATA_TYPE_UNKNOWN)
        case_tensor_set(&c->indices, index_type, rank, osizes, NULL);
    case_link(c);
}

void cb_set_output_strides(dml_case *c, const UINT *strides, const UINT *index_strides)
{
    c->output.has_strides = true;
    memcpy(c->output.strides, strides, c->output.rank * sizeof *strides);
    if (index_strides && c->indices.present) {
        c->indices.has_strides = true;
        memcpy(c->indices.strides, index_strides, c->indices.rank * sizeof *index_strides);
    }
    case_link(c);
}

void cb_alloc_input(dml_case *c)
{
    case_link(c);
    UINT64 bytes = case_tensor_bytes(&c->input);
    free(c->input_data);
    c->input_data = calloc(bytes ? bytes : 1, 1); /* case.h: every byte initialised */
    if (!c->input_data) {
        fprintf(stderr, "case_builder: out of memory (%llu bytes)\n", (unsigned long long)bytes);
        abort();
    }
    memset(c->input_data, 0xEE, bytes);
}

static uint64_t element_offset(const case_tensor *t, uint64_t logical)
{
    tensor_view v;
    case_tensor_view(t, &v);
    return tensor_view_offset(&v, logical);
}

void cb_set_input(dml_case *c, uint64_t logical, uint64_t bits)
{
    dtype_store_bits(c->input_data, c->input.type, element_offset(&c->input, logical), bits);
}

uint64_t cb_get_input(const dml_case *c, uint64_t logical)
{
    return dtype_load_bits(c->input_data, c->input.type, element_offset(&c->input, logical));
}

uint64_t cb_output_at(const dml_case *c, const case_outputs *o, uint64_t logical)
{
    return dtype_load_bits(o->output, c->output.type, element_offset(&c->output, logical));
}

uint64_t cb_index_at(const dml_case *c, const case_outputs *o, uint64_t logical)
{
    return dtype_load_bits(o->indices, c->indices.type, element_offset(&c->indices, logical));
}

bool cb_validate(dml_case *c, char *err, unsigned err_size)
{
    dmlc_error e = { { 0 } };
    DML_FEATURE_LEVEL given = c->feature_level;
    bool ok = validate_case(c, &e);
    c->feature_level = given;
    if (!ok)
        snprintf(err, err_size, "%s", e.msg);
    return ok;
}
