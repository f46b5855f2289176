/*
 * test_validate.c: one test per validator rule.  Each rule has a case that must be accepted
 * and a case that breaks exactly that rule and must be rejected with that rule's message
 * (a distinctive substring is checked, so a case rejected for the wrong reason fails).  Also:
 * every feature-level data-type transition, the data-type tables against the spec's tables
 * (written here independently, as the spec prints them), overflow, NULL fields, aliasing
 * outputs and validate_case's level search.
 *
 * Descriptors are built on the stack by a small fixture; each builder makes a valid
 * descriptor and then breaks (or keeps) one thing.  The fixture's arrays hold exactly
 * DML_MAX_RANK entries so that ASan reports a validator that reads past a count it should
 * have rejected.
 */
#include <stdio.h>
#include <string.h>

#include "case.h"
#include "dtype.h"
#include "tap.h"
#include "tensor.h"
#include "validate.h"

#define FL(level) DML_FEATURE_LEVEL_##level
#define DT(type) DML_TENSOR_DATA_TYPE_##type
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------------------- */
/* Fixture                                                                                   */
/* ---------------------------------------------------------------------------------------- */

typedef struct fixture_tensor {
    UINT sizes[DML_MAX_RANK];
    UINT strides[DML_MAX_RANK];
    DML_BUFFER_TENSOR_DESC buffer;
    DML_TENSOR_DESC desc;
} fixture_tensor;

typedef struct fixture {
    fixture_tensor in, out, idx;
    UINT axes[DML_MAX_RANK];
    DML_ARGMAX_OPERATOR_DESC arg;
    UINT strides[DML_MAX_SPATIAL], window[DML_MAX_SPATIAL], start[DML_MAX_SPATIAL],
        end[DML_MAX_SPATIAL], dilations[DML_MAX_SPATIAL];
    DML_MAX_POOLING2_OPERATOR_DESC pool;
} fixture;

/* Recomputes TotalTensorSizeInBytes after sizes, strides or the type changed. */
static void tensor_refresh(fixture_tensor *t)
{
    t->buffer.TotalTensorSizeInBytes = dml_calc_buffer_tensor_size(
        t->buffer.DataType, t->buffer.DimensionCount, t->buffer.Sizes, t->buffer.Strides);
}

static void tensor_make(fixture_tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    t->buffer = (DML_BUFFER_TENSOR_DESC){ .DataType = type, .DimensionCount = rank, .Sizes = t->sizes };
    t->desc = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &t->buffer };
    tensor_refresh(t);
}

static void tensor_set_strides(fixture_tensor *t, const UINT *strides)
{
    memcpy(t->strides, strides, t->buffer.DimensionCount * sizeof *strides);
    t->buffer.Strides = t->strides;
    tensor_refresh(t);
}

static void tensor_set_type(fixture_tensor *t, DML_TENSOR_DATA_TYPE type)
{
    t->buffer.DataType = type;
    tensor_refresh(t);
}

/* ARGMIN/ARGMAX: output sizes are the input's with reduced axes set to 1. */
static const void *arg_make(fixture *f, DML_TENSOR_DATA_TYPE in_type, DML_TENSOR_DATA_TYPE out_type,
                            UINT rank, const UINT *sizes, UINT axis_count, const UINT *axes)
{
    UINT out_sizes[DML_MAX_RANK];
    memcpy(out_sizes, sizes, rank * sizeof *sizes);
    for (UINT i = 0; i < axis_count; i++)
        out_sizes[axes[i]] = 1;
    memcpy(f->axes, axes, axis_count * sizeof *axes);
    tensor_make(&f->in, in_type, rank, sizes);
    tensor_make(&f->out, out_type, rank, out_sizes);
    f->arg = (DML_ARGMAX_OPERATOR_DESC){ &f->in.desc, &f->out.desc, axis_count, f->axes,
                                         DML_AXIS_DIRECTION_INCREASING };
    return &f->arg;
}

/* The spec pages' example: FLOAT32 {3,3} -> UINT32. */
static const void *spec_3x3(fixture *f, UINT axis_count, const UINT *axes)
{
    static const UINT sizes[] = { 3, 3 };
    return arg_make(f, DT(FLOAT32), DT(UINT32), 2, sizes, axis_count, axes);
}

static const void *spec_rows(fixture *f) { return spec_3x3(f, 1, (const UINT[]){ 1 }); }
static const void *spec_columns(fixture *f) { return spec_3x3(f, 1, (const UINT[]){ 0 }); }
static const void *spec_all_axes(fixture *f) { return spec_3x3(f, 2, (const UINT[]){ 0, 1 }); }

/* Rank-3 argmax over the last axis: {2,3,4} -> {2,3,1}, for output-layout tests. */
static const void *arg_rank3(fixture *f, DML_TENSOR_DATA_TYPE in_type, UINT d0, UINT d1)
{
    const UINT sizes[] = { d0, d1, 4 };
    return arg_make(f, in_type, DT(UINT32), 3, sizes, 1, (const UINT[]){ 2 });
}

/* MAX_POOLING2 with the same window/stride/padding/dilation on every spatial axis; output
 * sizes by the floor formula of SEMANTICS D8, computed here independently. */
static const void *pool_make(fixture *f, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT *sizes,
                             UINT window, UINT stride, UINT start, UINT end, UINT dilation,
                             bool with_indices)
{
    UINT spatial = rank - 2, out_sizes[DML_MAX_RANK];
    memcpy(out_sizes, sizes, rank * sizeof *sizes);
    for (UINT i = 0; i < spatial; i++) {
        f->window[i] = window, f->strides[i] = stride, f->dilations[i] = dilation;
        f->start[i] = start, f->end[i] = end;
        UINT dilated = (window - 1) * dilation + 1;
        out_sizes[i + 2] = (sizes[i + 2] + start + end - dilated) / stride + 1;
    }
    tensor_make(&f->in, type, rank, sizes);
    tensor_make(&f->out, type, rank, out_sizes);
    tensor_make(&f->idx, DT(UINT32), rank, out_sizes);
    f->pool = (DML_MAX_POOLING2_OPERATOR_DESC){
        &f->in.desc, &f->out.desc, with_indices ? &f->idx.desc : NULL, spatial,
        f->strides, f->window, f->start, f->end, f->dilations,
    };
    return &f->pool;
}

/* FLOAT32 {1,2,5,5}, 3x3 window, stride 2, no padding -> {1,2,2,2} with UINT32 indices. */
static const void *pool_base(fixture *f)
{
    static const UINT sizes[] = { 1, 2, 5, 5 };
    return pool_make(f, DT(FLOAT32), 4, sizes, 3, 2, 0, 0, 1, true);
}

/* One spatial axis under test: {1,1,1,in} with the given window parameters on W. */
static const void *pool_1d(fixture *f, UINT in, UINT window, UINT stride, UINT start, UINT end,
                           UINT dilation)
{
    const UINT sizes[] = { 1, 1, 1, in };
    pool_make(f, DT(FLOAT32), 4, sizes, 1, 1, 0, 0, 1, true);
    f->window[1] = window, f->strides[1] = stride, f->start[1] = start, f->end[1] = end;
    f->dilations[1] = dilation;
    return &f->pool;
}

/* Sets the W output size (and the indices' to match). */
static const void *pool_out_w(fixture *f, UINT w)
{
    f->out.sizes[3] = f->idx.sizes[3] = w;
    tensor_refresh(&f->out);
    tensor_refresh(&f->idx);
    return &f->pool;
}

/* pool_1d with the W output size set to out_w. */
static const void *pool_1d_out(fixture *f, UINT in, UINT window, UINT stride, UINT start, UINT end,
                               UINT dilation, UINT out_w)
{
    pool_1d(f, in, window, stride, start, end, dilation);
    return pool_out_w(f, out_w);
}

/* ---------------------------------------------------------------------------------------- */
/* ARGMIN / ARGMAX builders                                                                  */
/* ---------------------------------------------------------------------------------------- */

static const void *semantics_d2_example(fixture *f)
{
    static const UINT sizes[] = { 2, 3, 4, 5 };
    return arg_make(f, DT(FLOAT32), DT(UINT32), 4, sizes, 2, (const UINT[]){ 3, 1 });
}
static const void *axes_descending_order(fixture *f) { return spec_3x3(f, 2, (const UINT[]){ 1, 0 }); }
static const void *decreasing(fixture *f)
{
    spec_rows(f);
    f->arg.AxisDirection = DML_AXIS_DIRECTION_DECREASING;
    return &f->arg;
}
static const void *zero_axis_count(fixture *f)
{
    spec_rows(f);
    f->arg.AxisCount = 0;
    return &f->arg;
}
static const void *null_axes(fixture *f)
{
    spec_rows(f);
    f->arg.Axes = NULL;
    return &f->arg;
}
static const void *axis_count_above_rank(fixture *f)
{
    spec_all_axes(f);
    f->axes[2] = 0;
    f->arg.AxisCount = 3;
    return &f->arg;
}
static const void *axis_count_huge(fixture *f)
{
    spec_rows(f);
    f->arg.AxisCount = 0xffffffffu;
    return &f->arg;
}
static const void *axis_out_of_range(fixture *f)
{
    spec_rows(f);
    f->axes[0] = 2;
    return &f->arg;
}
static const void *duplicate_axes(fixture *f) { return spec_3x3(f, 2, (const UINT[]){ 1, 1 }); }
static const void *bad_direction(fixture *f)
{
    spec_rows(f);
    f->arg.AxisDirection = (DML_AXIS_DIRECTION)2;
    return &f->arg;
}
static const void *reduced_output_size_not_1(fixture *f)
{
    spec_rows(f);
    f->out.sizes[1] = 3;
    tensor_refresh(&f->out);
    return &f->arg;
}
static const void *kept_output_size_differs(fixture *f)
{
    spec_columns(f);
    f->out.sizes[1] = 2;
    tensor_refresh(&f->out);
    return &f->arg;
}
static const void *output_rank_differs(fixture *f)
{
    spec_rows(f);
    f->out.sizes[2] = 1;
    f->out.buffer.DimensionCount = 3;
    tensor_refresh(&f->out);
    return &f->arg;
}
static const void *rank_1(fixture *f)
{
    return arg_make(f, DT(INT8), DT(INT32), 1, (const UINT[]){ 7 }, 1, (const UINT[]){ 0 });
}
static const void *rank_8(fixture *f)
{
    static const UINT sizes[] = { 2, 1, 3, 1, 2, 2, 1, 3 };
    return arg_make(f, DT(FLOAT16), DT(UINT64), 8, sizes, 3, (const UINT[]){ 7, 0, 4 });
}
static const void *input_rank(fixture *f, UINT rank)
{
    spec_rows(f);
    f->in.buffer.DimensionCount = rank;
    return &f->arg;
}
static const void *input_rank_0(fixture *f) { return input_rank(f, 0); }
static const void *input_rank_9(fixture *f) { return input_rank(f, 9); }
static const void *input_rank_huge(fixture *f) { return input_rank(f, 0xffffffffu); }
static const void *output_rank_9(fixture *f)
{
    spec_rows(f);
    f->out.buffer.DimensionCount = 9;
    return &f->arg;
}
static const void *null_desc(fixture *f)
{
    (void)f;
    return NULL;
}
static const void *null_input_tensor(fixture *f)
{
    spec_rows(f);
    f->arg.InputTensor = NULL;
    return &f->arg;
}
static const void *null_output_tensor(fixture *f)
{
    spec_rows(f);
    f->arg.OutputTensor = NULL;
    return &f->arg;
}
static const void *invalid_tensor_type(fixture *f)
{
    spec_rows(f);
    f->in.desc.Type = DML_TENSOR_TYPE_INVALID;
    return &f->arg;
}
static const void *null_buffer_desc(fixture *f)
{
    spec_rows(f);
    f->in.desc.Desc = NULL;
    return &f->arg;
}
static const void *null_sizes(fixture *f)
{
    spec_rows(f);
    f->in.buffer.Sizes = NULL;
    return &f->arg;
}
static const void *zero_size(fixture *f)
{
    spec_rows(f);
    f->in.sizes[1] = 0;
    return &f->arg;
}

/* Data types. */
static const void *arg_input_type(fixture *f, DML_TENSOR_DATA_TYPE t)
{
    spec_rows(f);
    tensor_set_type(&f->in, t);
    return &f->arg;
}
static const void *arg_output_type(fixture *f, DML_TENSOR_DATA_TYPE t)
{
    spec_rows(f);
    tensor_set_type(&f->out, t);
    return &f->arg;
}
static const void *input_int64(fixture *f) { return arg_input_type(f, DT(INT64)); }
static const void *input_uint64(fixture *f) { return arg_input_type(f, DT(UINT64)); }
static const void *input_float16(fixture *f) { return arg_input_type(f, DT(FLOAT16)); }
static const void *input_float64(fixture *f) { return arg_input_type(f, DT(FLOAT64)); }
static const void *input_type_unknown(fixture *f) { return arg_input_type(f, DT(UNKNOWN)); }
static const void *input_type_99(fixture *f)
{
    spec_rows(f);
    f->in.buffer.DataType = (DML_TENSOR_DATA_TYPE)99;
    return &f->arg;
}
static const void *output_float32(fixture *f) { return arg_output_type(f, DT(FLOAT32)); }
static const void *output_int64(fixture *f) { return arg_output_type(f, DT(INT64)); }

/* Storage: TotalTensorSizeInBytes, strides, element counts, alignment, flags. */
static const void *input_total_bytes(fixture *f, UINT64 total)
{
    spec_rows(f); /* FLOAT32 {3,3}: 36 bytes */
    f->in.buffer.TotalTensorSizeInBytes = total;
    return &f->arg;
}
static const void *total_bytes_40(fixture *f) { return input_total_bytes(f, 40); }
static const void *total_bytes_32(fixture *f) { return input_total_bytes(f, 32); }
static const void *total_bytes_38(fixture *f) { return input_total_bytes(f, 38); }
/* SEMANTICS: FLOAT32 {2,3} strides {4,1} -> 28 bytes. */
static const void *padded_strides(fixture *f, UINT64 total)
{
    static const UINT sizes[] = { 2, 3 };
    arg_make(f, DT(FLOAT32), DT(UINT32), 2, sizes, 1, (const UINT[]){ 1 });
    tensor_set_strides(&f->in, (const UINT[]){ 4, 1 });
    f->in.buffer.TotalTensorSizeInBytes = total;
    return &f->arg;
}
static const void *padded_strides_28(fixture *f) { return padded_strides(f, 28); }
static const void *padded_strides_24(fixture *f) { return padded_strides(f, 24); }
/* SEMANTICS: FLOAT32 {4,4} strides {0,0} -> 4 bytes (a broadcast input). */
static const void *broadcast_input(fixture *f)
{
    static const UINT sizes[] = { 4, 4 };
    arg_make(f, DT(FLOAT32), DT(UINT32), 2, sizes, 1, (const UINT[]){ 0 });
    tensor_set_strides(&f->in, (const UINT[]){ 0, 0 });
    return f->in.buffer.TotalTensorSizeInBytes == 4 ? &f->arg : NULL;
}
/* SEMANTICS: FLOAT16 {1,1,1,3} packed -> 8 bytes. */
static const void *f16_packed(fixture *f, UINT64 total)
{
    static const UINT sizes[] = { 1, 1, 1, 3 };
    arg_make(f, DT(FLOAT16), DT(UINT32), 4, sizes, 1, (const UINT[]){ 3 });
    f->in.buffer.TotalTensorSizeInBytes = total;
    return &f->arg;
}
static const void *f16_packed_8(fixture *f) { return f16_packed(f, 8); }
static const void *f16_packed_4(fixture *f) { return f16_packed(f, 4); }
/* SEMANTICS: UINT8 {5} -> 8 bytes. */
static const void *u8_5(fixture *f, UINT64 total)
{
    arg_make(f, DT(UINT8), DT(UINT32), 1, (const UINT[]){ 5 }, 1, (const UINT[]){ 0 });
    f->in.buffer.TotalTensorSizeInBytes = total;
    return &f->arg;
}
static const void *u8_5_total_8(fixture *f) { return u8_5(f, 8); }
static const void *u8_5_total_5(fixture *f) { return u8_5(f, 5); }
/* INT64 {0xffffffff} with stride 0xffffffff: (2^32-2)(2^32-1)+1 elements of 8 bytes > 2^64. */
static const void *buffer_size_overflow(fixture *f)
{
    arg_make(f, DT(INT64), DT(UINT32), 1, (const UINT[]){ 0xffffffffu }, 1, (const UINT[]){ 0 });
    tensor_set_strides(&f->in, (const UINT[]){ 0xffffffffu });
    f->in.buffer.TotalTensorSizeInBytes = UINT64_MAX & ~(UINT64)3;
    return &f->arg;
}
static const void *elements_2_32(fixture *f)
{
    static const UINT sizes[] = { 65536, 65536 };
    return arg_make(f, DT(UINT8), DT(UINT32), 2, sizes, 1, (const UINT[]){ 1 });
}
static const void *elements_2_32_minus_1(fixture *f)
{
    return arg_make(f, DT(UINT8), DT(UINT32), 1, (const UINT[]){ 0xffffffffu }, 1, (const UINT[]){ 0 });
}
static const void *elements_overflow_64(fixture *f)
{
    static const UINT sizes[] = { 0xffffffffu, 0xffffffffu, 0xffffffffu };
    arg_make(f, DT(UINT8), DT(UINT32), 3, sizes, 1, (const UINT[]){ 0 });
    f->in.buffer.TotalTensorSizeInBytes = UINT64_MAX & ~(UINT64)3;
    return &f->arg;
}
static const void *input_alignment(fixture *f, DML_TENSOR_DATA_TYPE t, UINT align)
{
    arg_input_type(f, t);
    f->in.buffer.GuaranteedBaseOffsetAlignment = align;
    return &f->arg;
}
static const void *align_16(fixture *f) { return input_alignment(f, DT(FLOAT32), 16); }
static const void *align_6(fixture *f) { return input_alignment(f, DT(FLOAT32), 6); }
static const void *align_2_f32(fixture *f) { return input_alignment(f, DT(FLOAT32), 2); }
static const void *align_2_f16(fixture *f) { return input_alignment(f, DT(FLOAT16), 2); }
static const void *align_4_int64_output(fixture *f)
{
    output_int64(f);
    f->out.buffer.GuaranteedBaseOffsetAlignment = 4;
    return &f->arg;
}
static const void *owned_by_dml_input(fixture *f)
{
    spec_rows(f);
    f->in.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    return &f->arg;
}
static const void *owned_by_dml_output(fixture *f)
{
    spec_rows(f);
    f->out.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    return &f->arg;
}
static const void *unknown_flag(fixture *f)
{
    spec_rows(f);
    f->in.buffer.Flags = (DML_TENSOR_FLAGS)0x3;
    return &f->arg;
}

/* Output aliasing. */
static const void *arg_output_strides(fixture *f, UINT d0, UINT d1, const UINT *strides)
{
    arg_rank3(f, DT(FLOAT32), d0, d1);
    tensor_set_strides(&f->out, strides);
    return &f->arg;
}
static const void *output_stride_0(fixture *f) { return arg_output_strides(f, 2, 3, (const UINT[]){ 3, 0, 1 }); }
static const void *output_stride_0_on_size_1(fixture *f) { return arg_output_strides(f, 2, 3, (const UINT[]){ 3, 1, 0 }); }
static const void *output_permuted(fixture *f) { return arg_output_strides(f, 2, 3, (const UINT[]){ 1, 2, 1 }); }
static const void *output_padded(fixture *f) { return arg_output_strides(f, 2, 3, (const UINT[]){ 8, 2, 1 }); }
static const void *output_equal_strides(fixture *f) { return arg_output_strides(f, 2, 2, (const UINT[]){ 1, 1, 1 }); }
/* {4,3} strides {2,3}: 3*2 == 2*3, so (3,0) and (0,2) both land on offset 6. */
static const void *output_interleaved_collision(fixture *f) { return arg_output_strides(f, 4, 3, (const UINT[]){ 2, 3, 1 }); }
/* {3,2} strides {2,3}: offsets 0,3,2,5,4,7, all distinct although the dimensions interleave. */
static const void *output_interleaved_distinct(fixture *f) { return arg_output_strides(f, 3, 2, (const UINT[]){ 2, 3, 1 }); }
/* The same layout scaled by 2^24: exact after dividing by the gcd. */
static const void *output_interleaved_scaled(fixture *f)
{
    return arg_output_strides(f, 3, 2, (const UINT[]){ 2u << 24, 3u << 24, 1 });
}
/* Interleaved, coprime, span ~3*2^24: too large to enumerate, so conservatively rejected. */
static const void *output_interleaved_huge(fixture *f)
{
    return arg_output_strides(f, 3, 2, (const UINT[]){ 1u << 24, (1u << 24) + 1, 1 });
}
/* 2^26 elements over a span of about 2^25 offsets: aliasing by pigeonhole. */
static const void *output_pigeonhole(fixture *f)
{
    return arg_output_strides(f, 8192, 8192, (const UINT[]){ 1, 4096, 1 });
}
/* A nested layout peels even when the outer dimension's span is large. */
static const void *output_nested_large(fixture *f)
{
    return arg_output_strides(f, 1000, 1000, (const UINT[]){ 1, 1u << 20, 1 });
}

/* ---------------------------------------------------------------------------------------- */
/* MAX_POOLING2 builders                                                                     */
/* ---------------------------------------------------------------------------------------- */

static const void *pool_without_indices(fixture *f)
{
    pool_base(f);
    f->pool.OutputIndicesTensor = NULL;
    return &f->pool;
}
static const void *pool_5d(fixture *f)
{
    static const UINT sizes[] = { 2, 1, 4, 5, 6 };
    return pool_make(f, DT(FLOAT16), 5, sizes, 2, 2, 1, 0, 1, true);
}
static const void *pool_input_rank(fixture *f, UINT rank)
{
    pool_base(f);
    f->in.buffer.DimensionCount = rank;
    return &f->pool;
}
static const void *pool_input_rank_3(fixture *f) { return pool_input_rank(f, 3); }
static const void *pool_input_rank_6(fixture *f) { return pool_input_rank(f, 6); }
static const void *pool_spatial_count(fixture *f, UINT n)
{
    pool_base(f);
    f->pool.DimensionCount = n;
    return &f->pool;
}
static const void *pool_spatial_count_4(fixture *f) { return pool_spatial_count(f, 4); }
static const void *pool_spatial_count_huge(fixture *f) { return pool_spatial_count(f, 0xffffffffu); }
static const void *pool_spatial_count_3_for_4d(fixture *f) { return pool_spatial_count(f, 3); }
static const void *pool_spatial_count_2_for_5d(fixture *f)
{
    pool_5d(f);
    f->pool.DimensionCount = 2;
    return &f->pool;
}
static const void *pool_output_rank_differs(fixture *f)
{
    pool_without_indices(f);
    f->out.sizes[4] = 1;
    f->out.buffer.DimensionCount = 5;
    tensor_refresh(&f->out);
    return &f->pool;
}
static const void *pool_indices_rank_differs(fixture *f)
{
    pool_base(f);
    f->idx.sizes[4] = 1;
    f->idx.buffer.DimensionCount = 5;
    tensor_refresh(&f->idx);
    return &f->pool;
}
static const void *pool_indices_sizes_differ(fixture *f)
{
    pool_base(f);
    f->idx.sizes[3] = 3;
    tensor_refresh(&f->idx);
    return &f->pool;
}
static const void *pool_null_array(fixture *f, const UINT **field)
{
    pool_base(f);
    *field = NULL;
    return &f->pool;
}
static const void *pool_null_strides(fixture *f) { return pool_null_array(f, &f->pool.Strides); }
static const void *pool_null_window(fixture *f) { return pool_null_array(f, &f->pool.WindowSize); }
static const void *pool_null_start(fixture *f) { return pool_null_array(f, &f->pool.StartPadding); }
static const void *pool_null_end(fixture *f) { return pool_null_array(f, &f->pool.EndPadding); }
static const void *pool_null_dilations(fixture *f) { return pool_null_array(f, &f->pool.Dilations); }
static const void *pool_null_input(fixture *f)
{
    pool_base(f);
    f->pool.InputTensor = NULL;
    return &f->pool;
}
static const void *pool_null_output(fixture *f)
{
    pool_base(f);
    f->pool.OutputTensor = NULL;
    return &f->pool;
}
static const void *pool_null_indices_sizes(fixture *f)
{
    pool_base(f);
    f->idx.buffer.Sizes = NULL;
    return &f->pool;
}
static const void *pool_zero(fixture *f, UINT *field)
{
    pool_base(f);
    *field = 0;
    return &f->pool;
}
static const void *pool_zero_stride(fixture *f) { return pool_zero(f, &f->strides[1]); }
static const void *pool_zero_window(fixture *f) { return pool_zero(f, &f->window[0]); }
static const void *pool_zero_dilation(fixture *f) { return pool_zero(f, &f->dilations[1]); }
static const void *pool_nc_differs(fixture *f, UINT dim)
{
    pool_without_indices(f);
    f->out.sizes[dim] += 1;
    tensor_refresh(&f->out);
    return &f->pool;
}
static const void *pool_batch_differs(fixture *f) { return pool_nc_differs(f, 0); }
static const void *pool_channel_differs(fixture *f) { return pool_nc_differs(f, 1); }
/* In 5, window 3, stride 2: (5-3)/2+1 = 2 exactly, so no ceil size. */
static const void *pool_floor_plus_one_exact(fixture *f) { return pool_1d_out(f, 5, 3, 2, 0, 0, 1, 3); }
static const void *pool_floor_minus_one(fixture *f) { return pool_1d_out(f, 5, 3, 2, 0, 0, 1, 1); }
/* In 6, window 3, stride 2: floor (6-3)/2+1 = 2, ceil 3, last window starts at 4 < 6. */
static const void *pool_ceil(fixture *f) { return pool_1d_out(f, 6, 3, 2, 0, 0, 1, 3); }
static const void *pool_floor_of_ceil_case(fixture *f) { return pool_1d_out(f, 6, 3, 2, 0, 0, 1, 2); }
static const void *pool_ceil_plus_one(fixture *f) { return pool_1d_out(f, 6, 3, 2, 0, 0, 1, 4); }
/* In 5, window 2, stride 2, end padding 2: padded 7, floor 3; a 4th window would start at
 * 6 >= 5 + 0, inside the end padding, so no ceil size. */
static const void *pool_ceil_in_end_padding(fixture *f) { return pool_1d_out(f, 5, 2, 2, 0, 2, 1, 4); }
/* In 4, window 2, stride 2, end padding 1: padded 5, floor 2; a 3rd window would start at
 * 4 == 4 + 0, the first end-padding position: the boundary, not allowed. */
static const void *pool_ceil_at_end_padding_boundary(fixture *f) { return pool_1d_out(f, 4, 2, 2, 0, 1, 1, 3); }
/* With StartPadding 2, EndPadding 0 the same 4th window starts at 6 < 5 + 2: ceil allowed. */
static const void *pool_ceil_with_start_padding(fixture *f) { return pool_1d_out(f, 5, 2, 2, 2, 0, 1, 4); }
/* SEMANTICS D8: In 7, window 3, dilation 2: dilated 5, (7-5)/1+1 = 3 (the doc's undilated
 * formula would say 5). */
static const void *pool_dilated(fixture *f) { return pool_1d_out(f, 7, 3, 1, 0, 0, 2, 3); }
static const void *pool_dilated_doc_formula(fixture *f) { return pool_1d_out(f, 7, 3, 1, 0, 0, 2, 5); }
/* SEMANTICS D9: In 3, window 3, dilation 2 spans 5 > 3. */
static const void *pool_window_too_large(fixture *f) { return pool_1d_out(f, 3, 3, 1, 0, 0, 2, 1); }
static const void *pool_window_too_large_padded(fixture *f) { return pool_1d_out(f, 3, 3, 1, 1, 0, 2, 1); }
static const void *pool_window_fits_padding(fixture *f) { return pool_1d_out(f, 3, 3, 1, 1, 1, 2, 1); }
static const void *pool_symmetric_padding(fixture *f) { return pool_1d_out(f, 5, 3, 2, 1, 1, 1, 3); }
static const void *pool_asymmetric_padding(fixture *f) { return pool_1d_out(f, 5, 3, 2, 2, 0, 1, 3); }
/* In 2, StartPadding 3, window 2: the first windows lie entirely in padding (D7 class). */
static const void *pool_window_in_padding_only(fixture *f) { return pool_1d_out(f, 2, 2, 1, 3, 0, 1, 4); }
/* Huge parameters: every step of the output-size arithmetic must stay exact in 64 bits. */
static const void *pool_huge_padding(fixture *f)
{
    return pool_1d_out(f, 5, 3, 2, 0xffffffffu, 0xffffffffu, 1, 1);
}
static const void *pool_huge_window(fixture *f)
{
    return pool_1d_out(f, 5, 0xffffffffu, 1, 0, 0, 0xffffffffu, 1);
}
static const void *pool_huge_stride(fixture *f) { return pool_1d_out(f, 5, 3, 0xffffffffu, 0, 0, 1, 1); }

/* Data types. */
static const void *pool_values_type(fixture *f, DML_TENSOR_DATA_TYPE t)
{
    pool_base(f);
    tensor_set_type(&f->in, t);
    tensor_set_type(&f->out, t);
    return &f->pool;
}
static const void *pool_int8(fixture *f) { return pool_values_type(f, DT(INT8)); }
static const void *pool_uint8(fixture *f) { return pool_values_type(f, DT(UINT8)); }
static const void *pool_int32(fixture *f) { return pool_values_type(f, DT(INT32)); }
static const void *pool_uint64(fixture *f) { return pool_values_type(f, DT(UINT64)); }
static const void *pool_float64(fixture *f) { return pool_values_type(f, DT(FLOAT64)); }
static const void *pool_output_type_differs(fixture *f)
{
    pool_base(f);
    tensor_set_type(&f->out, DT(FLOAT16));
    return &f->pool;
}
static const void *pool_indices_type(fixture *f, DML_TENSOR_DATA_TYPE t)
{
    pool_base(f);
    tensor_set_type(&f->idx, t);
    return &f->pool;
}
static const void *pool_indices_uint64(fixture *f) { return pool_indices_type(f, DT(UINT64)); }
static const void *pool_indices_int32(fixture *f) { return pool_indices_type(f, DT(INT32)); }

/* Output aliasing. */
static const void *pool_same_output_desc(fixture *f)
{
    pool_values_type(f, DT(UINT32)); /* at 5_0 the one descriptor passes both type checks */
    f->pool.OutputIndicesTensor = f->pool.OutputTensor;
    return &f->pool;
}
static const void *pool_indices_stride_0(fixture *f)
{
    pool_base(f);
    tensor_set_strides(&f->idx, (const UINT[]){ 8, 4, 2, 0 });
    return &f->pool;
}
static const void *pool_output_stride_0(fixture *f)
{
    pool_base(f);
    tensor_set_strides(&f->out, (const UINT[]){ 8, 0, 2, 1 });
    return &f->pool;
}
/* Output {1,2,2,2} stored NHWC: strides {8,1,4,2}. */
static const void *pool_output_nhwc(fixture *f)
{
    pool_base(f);
    tensor_set_strides(&f->out, (const UINT[]){ 8, 1, 4, 2 });
    tensor_set_strides(&f->idx, (const UINT[]){ 8, 1, 4, 2 });
    return &f->pool;
}
static const void *pool_indices_total_small(fixture *f)
{
    pool_base(f);
    f->idx.buffer.TotalTensorSizeInBytes -= 4;
    return &f->pool;
}
static const void *pool_indices_owned_by_dml(fixture *f)
{
    pool_base(f);
    f->idx.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    return &f->pool;
}

/* ---------------------------------------------------------------------------------------- */
/* The table of rule tests                                                                   */
/* ---------------------------------------------------------------------------------------- */

typedef struct rule_test {
    const char *name;
    op_id op;
    DML_FEATURE_LEVEL fl;
    const void *(*build)(fixture *f);
    const char *reject; /* NULL: must be accepted; else a substring of the expected message */
} rule_test;

#define ACCEPT(name, op, fl, build) { #name, OP_##op, FL(fl), build, NULL }
#define REJECT(name, op, fl, build, msg) { #name, OP_##op, FL(fl), build, msg }

static const rule_test rule_tests[] = {
    /* Spec examples and SEMANTICS D2. */
    ACCEPT(argmax_accept_spec_example_columns, ARGMAX, 3_0, spec_columns),
    ACCEPT(argmax_accept_spec_example_rows, ARGMAX, 3_0, spec_rows),
    ACCEPT(argmax_accept_spec_example_all_axes, ARGMAX, 3_0, spec_all_axes),
    ACCEPT(argmin_accept_spec_example_columns, ARGMIN, 3_0, spec_columns),
    ACCEPT(argmin_accept_spec_example_rows, ARGMIN, 3_0, spec_rows),
    ACCEPT(argmin_accept_spec_example_all_axes, ARGMIN, 3_0, spec_all_axes),
    ACCEPT(argmax_accept_semantics_d2_axes_3_1, ARGMAX, 3_0, semantics_d2_example),
    ACCEPT(argmax_accept_axes_in_any_order, ARGMAX, 3_0, axes_descending_order),
    ACCEPT(argmin_accept_decreasing, ARGMIN, 3_0, decreasing),
    /* Axes and direction. */
    REJECT(argmax_reject_axis_count_0, ARGMAX, 3_0, zero_axis_count, "AxisCount is 0 but ARGMAX needs at least one axis"),
    REJECT(argmax_reject_null_axes, ARGMAX, 3_0, null_axes, "Axes is NULL but AxisCount is 1"),
    REJECT(argmax_reject_axis_count_above_rank, ARGMAX, 3_0, axis_count_above_rank, "AxisCount is 3 but InputTensor.DimensionCount is 2"),
    REJECT(argmin_reject_axis_count_0xffffffff, ARGMIN, 3_0, axis_count_huge, "AxisCount is 4294967295"),
    REJECT(argmax_reject_axis_out_of_range, ARGMAX, 3_0, axis_out_of_range, "Axes[0] is 2 but must be in [0, 1]"),
    REJECT(argmax_reject_duplicate_axes, ARGMAX, 3_0, duplicate_axes, "Axes[1] is 1, which Axes[0] already lists; duplicate axes are invalid"),
    REJECT(argmin_reject_duplicate_axes, ARGMIN, 3_0, duplicate_axes, "duplicate axes are invalid (SEMANTICS D2)"),
    REJECT(argmax_reject_axis_direction_2, ARGMAX, 3_0, bad_direction, "AxisDirection is 2"),
    /* Output sizes and ranks. */
    REJECT(argmax_reject_reduced_output_size, ARGMAX, 3_0, reduced_output_size_not_1, "OutputTensor.Sizes[1] is 3 but axis 1 is reduced, so it must be 1"),
    REJECT(argmax_reject_kept_output_size, ARGMAX, 3_0, kept_output_size_differs, "OutputTensor.Sizes[1] is 2 but axis 1 is not reduced, so it must equal InputTensor.Sizes[1], 3"),
    REJECT(argmin_reject_output_rank_differs, ARGMIN, 3_0, output_rank_differs, "OutputTensor.DimensionCount is 3 but InputTensor.DimensionCount is 2"),
    ACCEPT(argmax_accept_rank_1, ARGMAX, 3_0, rank_1),
    ACCEPT(argmax_accept_rank_8, ARGMAX, 3_0, rank_8),
    REJECT(argmax_reject_input_rank_0, ARGMAX, 3_0, input_rank_0, "InputTensor.DimensionCount is 0 but ARGMAX supports 1 to 8"),
    REJECT(argmax_reject_input_rank_9, ARGMAX, 3_0, input_rank_9, "InputTensor.DimensionCount is 9 but ARGMAX supports 1 to 8"),
    REJECT(argmax_reject_input_rank_0xffffffff, ARGMAX, 3_0, input_rank_huge, "InputTensor.DimensionCount is 4294967295"),
    REJECT(argmax_reject_output_rank_9, ARGMAX, 3_0, output_rank_9, "OutputTensor.DimensionCount is 9 but ARGMAX supports 1 to 8"),
    /* NULL and malformed fields. */
    REJECT(argmax_reject_null_desc, ARGMAX, 3_0, null_desc, "the ARGMAX operator descriptor is NULL"),
    REJECT(max_pooling2_reject_null_desc, MAX_POOLING2, 3_0, null_desc, "the MAX_POOLING2 operator descriptor is NULL"),
    REJECT(argmax_reject_null_input_tensor, ARGMAX, 3_0, null_input_tensor, "InputTensor is NULL"),
    REJECT(argmax_reject_null_output_tensor, ARGMAX, 3_0, null_output_tensor, "OutputTensor is NULL"),
    REJECT(argmax_reject_tensor_type_invalid, ARGMAX, 3_0, invalid_tensor_type, "InputTensor.Type is 0 but only DML_TENSOR_TYPE_BUFFER"),
    REJECT(argmax_reject_null_buffer_desc, ARGMAX, 3_0, null_buffer_desc, "InputTensor.Desc is NULL"),
    REJECT(argmax_reject_null_sizes, ARGMAX, 3_0, null_sizes, "InputTensor.Sizes is NULL"),
    REJECT(argmax_reject_size_0, ARGMAX, 3_0, zero_size, "InputTensor.Sizes[1] is 0 but every size must be at least 1"),
    /* Feature levels and data types. */
    REJECT(argmax_reject_at_2_1, ARGMAX, 2_1, spec_rows, "ARGMAX does not exist at feature level 2_1: it was introduced in 3_0"),
    REJECT(argmin_reject_at_2_1, ARGMIN, 2_1, spec_rows, "ARGMIN does not exist at feature level 2_1"),
    REJECT(argmax_reject_at_1_0, ARGMAX, 1_0, spec_rows, "feature level 1_0 is below 2_0"),
    REJECT(max_pooling2_reject_at_2_0, MAX_POOLING2, 2_0, pool_base, "MAX_POOLING2 does not exist at feature level 2_0: it was introduced in 2_1"),
    { "argmax_reject_feature_level_0x4200", OP_ARGMAX, (DML_FEATURE_LEVEL)0x4200, spec_rows, "feature level 0x4200 is not a DML_FEATURE_LEVEL value" },
    { "argmax_reject_feature_level_0", OP_ARGMAX, (DML_FEATURE_LEVEL)0, spec_rows, "feature level 0x0 is not a DML_FEATURE_LEVEL value" },
    { "validate_reject_unknown_op", OP_COUNT, FL(5_0), spec_rows, "is not one of dmlcheck's operators" },
    REJECT(argmax_reject_int64_input_at_3_0, ARGMAX, 3_0, input_int64, "InputTensor.DataType INT64 is not supported by ARGMAX at feature level 3_0 (needs 4_1)"),
    REJECT(argmax_reject_int64_input_at_4_0, ARGMAX, 4_0, input_int64, "INT64 is not supported by ARGMAX at feature level 4_0 (needs 4_1)"),
    ACCEPT(argmax_accept_int64_input_at_4_1, ARGMAX, 4_1, input_int64),
    REJECT(argmin_reject_uint64_input_at_3_1, ARGMIN, 3_1, input_uint64, "InputTensor.DataType UINT64 is not supported by ARGMIN at feature level 3_1 (needs 4_1)"),
    ACCEPT(argmin_accept_uint64_input_at_4_1, ARGMIN, 4_1, input_uint64),
    ACCEPT(argmax_accept_int64_input_at_6_4_as_5_0, ARGMAX, 6_4, input_int64),
    ACCEPT(argmax_accept_float16_input_at_3_1_as_3_0, ARGMAX, 3_1, input_float16),
    REJECT(argmax_reject_float64_input, ARGMAX, 6_4, input_float64, "InputTensor.DataType FLOAT64 is not supported by ARGMAX at any feature level"),
    REJECT(argmax_reject_input_type_unknown, ARGMAX, 3_0, input_type_unknown, "InputTensor.DataType is DML_TENSOR_DATA_TYPE_UNKNOWN (0)"),
    REJECT(argmax_reject_input_type_99, ARGMAX, 3_0, input_type_99, "InputTensor.DataType is 99, which is not a DML_TENSOR_DATA_TYPE value"),
    REJECT(argmax_reject_float32_output, ARGMAX, 5_0, output_float32, "OutputTensor.DataType FLOAT32 is not supported by ARGMAX at any feature level; at 5_0 it takes INT32, INT64, UINT32, UINT64"),
    ACCEPT(argmax_accept_int64_output_at_3_0, ARGMAX, 3_0, output_int64),
    /* TotalTensorSizeInBytes, element count, overflow. */
    ACCEPT(argmax_accept_total_bytes_above_computed, ARGMAX, 3_0, total_bytes_40),
    REJECT(argmax_reject_total_bytes_below_computed, ARGMAX, 3_0, total_bytes_32, "InputTensor.TotalTensorSizeInBytes is 32 but Sizes need at least 36 bytes"),
    REJECT(argmax_reject_total_bytes_not_multiple_of_4, ARGMAX, 3_0, total_bytes_38, "InputTensor.TotalTensorSizeInBytes is 38 but must be a multiple of 4"),
    ACCEPT(argmax_accept_padded_strides_28_bytes, ARGMAX, 3_0, padded_strides_28),
    REJECT(argmax_reject_padded_strides_24_bytes, ARGMAX, 3_0, padded_strides_24, "is 24 but Sizes and Strides need at least 28 bytes"),
    ACCEPT(argmax_accept_broadcast_input_4_bytes, ARGMAX, 3_0, broadcast_input),
    ACCEPT(argmax_accept_f16_packed_8_bytes, ARGMAX, 3_0, f16_packed_8),
    REJECT(argmax_reject_f16_packed_4_bytes, ARGMAX, 3_0, f16_packed_4, "is 4 but Sizes need at least 8 bytes"),
    ACCEPT(argmax_accept_u8_5_in_8_bytes, ARGMAX, 3_0, u8_5_total_8),
    REJECT(argmax_reject_u8_5_in_5_bytes, ARGMAX, 3_0, u8_5_total_5, "is 5 but Sizes need at least 8 bytes"),
    REJECT(argmax_reject_buffer_size_overflow, ARGMAX, 4_1, buffer_size_overflow, "InputTensor: the buffer size DMLCalcBufferTensorSize computes from Sizes and Strides overflows 64 bits"),
    ACCEPT(argmax_accept_2_32_minus_1_elements, ARGMAX, 3_0, elements_2_32_minus_1),
    REJECT(argmax_reject_2_32_elements, ARGMAX, 3_0, elements_2_32, "InputTensor.Sizes multiply to 4294967296 elements but a tensor may have at most 4294967295"),
    REJECT(argmax_reject_element_count_overflow, ARGMAX, 3_0, elements_overflow_64, "InputTensor.Sizes multiply to more than 2^64 elements"),
    /* Alignment and flags. */
    ACCEPT(argmax_accept_alignment_16, ARGMAX, 3_0, align_16),
    REJECT(argmax_reject_alignment_6, ARGMAX, 3_0, align_6, "GuaranteedBaseOffsetAlignment is 6 but must be 0 or a power of two"),
    REJECT(argmax_reject_alignment_below_element_size, ARGMAX, 3_0, align_2_f32, "GuaranteedBaseOffsetAlignment is 2 but must be 0 or at least the 4-byte element size of FLOAT32"),
    ACCEPT(argmax_accept_alignment_2_f16, ARGMAX, 3_0, align_2_f16),
    REJECT(argmax_reject_output_alignment_4_int64, ARGMAX, 3_0, align_4_int64_output, "OutputTensor.GuaranteedBaseOffsetAlignment is 4 but must be 0 or at least the 8-byte element size of INT64"),
    ACCEPT(argmax_accept_owned_by_dml_input, ARGMAX, 3_0, owned_by_dml_input),
    REJECT(argmax_reject_owned_by_dml_output, ARGMAX, 3_0, owned_by_dml_output, "OutputTensor.Flags has DML_TENSOR_FLAG_OWNED_BY_DML but OutputTensor is an output"),
    REJECT(argmax_reject_unknown_flag, ARGMAX, 3_0, unknown_flag, "InputTensor.Flags is 0x3, which has unknown bits 0x2"),
    /* Outputs never alias. */
    REJECT(argmax_reject_output_stride_0, ARGMAX, 3_0, output_stride_0, "OutputTensor.Strides[1] is 0 but Sizes[1] is 3"),
    ACCEPT(argmax_accept_output_stride_0_on_size_1, ARGMAX, 3_0, output_stride_0_on_size_1),
    ACCEPT(argmax_accept_output_permuted, ARGMAX, 3_0, output_permuted),
    ACCEPT(argmax_accept_output_padded, ARGMAX, 3_0, output_padded),
    REJECT(argmax_reject_output_equal_strides, ARGMAX, 3_0, output_equal_strides, "OutputTensor.Strides make logical elements (0,1,0) and (1,0,0) share an address"),
    REJECT(argmax_reject_output_interleaved_collision, ARGMAX, 3_0, output_interleaved_collision, "logical elements (0,2,0) and (3,0,0) share an address"),
    ACCEPT(argmax_accept_output_interleaved_distinct, ARGMAX, 3_0, output_interleaved_distinct),
    ACCEPT(argmax_accept_output_interleaved_scaled, ARGMAX, 3_0, output_interleaved_scaled),
    REJECT(argmax_reject_output_interleaved_unprovable, ARGMAX, 3_0, output_interleaved_huge, "dmlcheck cannot prove that no two output elements share an address"),
    REJECT(argmax_reject_output_pigeonhole, ARGMAX, 3_0, output_pigeonhole, "OutputTensor.Strides place 67108864 logical elements in only"),
    ACCEPT(argmax_accept_output_nested_large, ARGMAX, 3_0, output_nested_large),
    /* MAX_POOLING2 layout. */
    ACCEPT(max_pooling2_accept_basic, MAX_POOLING2, 2_1, pool_base),
    ACCEPT(max_pooling2_accept_without_indices, MAX_POOLING2, 2_1, pool_without_indices),
    ACCEPT(max_pooling2_accept_5d, MAX_POOLING2, 2_1, pool_5d),
    REJECT(max_pooling2_reject_input_rank_3, MAX_POOLING2, 2_1, pool_input_rank_3, "InputTensor.DimensionCount is 3 but MAX_POOLING2 supports 4 to 5"),
    REJECT(max_pooling2_reject_input_rank_6, MAX_POOLING2, 2_1, pool_input_rank_6, "InputTensor.DimensionCount is 6 but MAX_POOLING2 supports 4 to 5"),
    REJECT(max_pooling2_reject_dimension_count_4, MAX_POOLING2, 2_1, pool_spatial_count_4, "DimensionCount is 4 but MAX_POOLING2 pools 2 or 3 spatial dimensions"),
    REJECT(max_pooling2_reject_dimension_count_0xffffffff, MAX_POOLING2, 2_1, pool_spatial_count_huge, "DimensionCount is 4294967295 but MAX_POOLING2 pools 2 or 3"),
    REJECT(max_pooling2_reject_dimension_count_3_for_4d, MAX_POOLING2, 2_1, pool_spatial_count_3_for_4d, "DimensionCount is 3 but InputTensor.DimensionCount is 4"),
    REJECT(max_pooling2_reject_dimension_count_2_for_5d, MAX_POOLING2, 2_1, pool_spatial_count_2_for_5d, "DimensionCount is 2 but InputTensor.DimensionCount is 5"),
    REJECT(max_pooling2_reject_output_rank_differs, MAX_POOLING2, 2_1, pool_output_rank_differs, "OutputTensor.DimensionCount is 5 but InputTensor.DimensionCount is 4"),
    REJECT(max_pooling2_reject_indices_rank_differs, MAX_POOLING2, 2_1, pool_indices_rank_differs, "OutputIndicesTensor.DimensionCount is 5 but OutputTensor.DimensionCount is 4"),
    REJECT(max_pooling2_reject_indices_sizes_differ, MAX_POOLING2, 2_1, pool_indices_sizes_differ, "OutputIndicesTensor.Sizes[3] is 3 but OutputTensor.Sizes[3] is 2"),
    REJECT(max_pooling2_reject_null_strides, MAX_POOLING2, 2_1, pool_null_strides, "Strides is NULL"),
    REJECT(max_pooling2_reject_null_window_size, MAX_POOLING2, 2_1, pool_null_window, "WindowSize is NULL"),
    REJECT(max_pooling2_reject_null_start_padding, MAX_POOLING2, 2_1, pool_null_start, "StartPadding is NULL"),
    REJECT(max_pooling2_reject_null_end_padding, MAX_POOLING2, 2_1, pool_null_end, "EndPadding is NULL"),
    REJECT(max_pooling2_reject_null_dilations, MAX_POOLING2, 2_1, pool_null_dilations, "Dilations is NULL"),
    REJECT(max_pooling2_reject_null_input, MAX_POOLING2, 2_1, pool_null_input, "InputTensor is NULL"),
    REJECT(max_pooling2_reject_null_output, MAX_POOLING2, 2_1, pool_null_output, "OutputTensor is NULL"),
    REJECT(max_pooling2_reject_null_indices_sizes, MAX_POOLING2, 2_1, pool_null_indices_sizes, "OutputIndicesTensor.Sizes is NULL"),
    REJECT(max_pooling2_reject_stride_0, MAX_POOLING2, 2_1, pool_zero_stride, "Strides[1] is 0 but must be at least 1"),
    REJECT(max_pooling2_reject_window_size_0, MAX_POOLING2, 2_1, pool_zero_window, "WindowSize[0] is 0 but must be at least 1"),
    REJECT(max_pooling2_reject_dilation_0, MAX_POOLING2, 2_1, pool_zero_dilation, "Dilations[1] is 0 but must be at least 1"),
    REJECT(max_pooling2_reject_batch_differs, MAX_POOLING2, 2_1, pool_batch_differs, "OutputTensor.Sizes[0] is 2 but must equal InputTensor.Sizes[0], 1: pooling keeps the batch (N)"),
    REJECT(max_pooling2_reject_channel_differs, MAX_POOLING2, 2_1, pool_channel_differs, "OutputTensor.Sizes[1] is 3 but must equal InputTensor.Sizes[1], 2: pooling keeps the channel (C)"),
    /* MAX_POOLING2 output sizes: SEMANTICS D8 and D9. */
    REJECT(max_pooling2_reject_ceil_size_when_exact, MAX_POOLING2, 2_1, pool_floor_plus_one_exact, "OutputTensor.Sizes[3] is 3 but must be 2: (InputTensor.Sizes[3] 5 + StartPadding[1] 0 + EndPadding[1] 0 - dilated window 3) / Strides[1] 2 + 1, rounded down (SEMANTICS D8)"),
    REJECT(max_pooling2_reject_output_size_too_small, MAX_POOLING2, 2_1, pool_floor_minus_one, "OutputTensor.Sizes[3] is 1 but must be 2:"),
    ACCEPT(max_pooling2_accept_ceil_output_size, MAX_POOLING2, 2_1, pool_ceil),
    ACCEPT(max_pooling2_accept_floor_output_size, MAX_POOLING2, 2_1, pool_floor_of_ceil_case),
    REJECT(max_pooling2_reject_ceil_plus_one, MAX_POOLING2, 2_1, pool_ceil_plus_one, "OutputTensor.Sizes[3] is 4 but must be 2 or 3:"),
    REJECT(max_pooling2_reject_ceil_window_in_end_padding, MAX_POOLING2, 2_1, pool_ceil_in_end_padding, "is 4 but must be 3: (InputTensor.Sizes[3] 5 + StartPadding[1] 0 + EndPadding[1] 2 - dilated window 2) / Strides[1] 2 + 1, rounded down (SEMANTICS D8); rounding up to 4 is not allowed because the last window would start in the end padding"),
    REJECT(max_pooling2_reject_ceil_window_at_end_padding_boundary, MAX_POOLING2, 2_1, pool_ceil_at_end_padding_boundary, "rounding up to 3 is not allowed because the last window would start in the end padding"),
    ACCEPT(max_pooling2_accept_ceil_with_start_padding, MAX_POOLING2, 2_1, pool_ceil_with_start_padding),
    ACCEPT(max_pooling2_accept_dilated_output_size, MAX_POOLING2, 2_1, pool_dilated),
    REJECT(max_pooling2_reject_undilated_doc_formula, MAX_POOLING2, 2_1, pool_dilated_doc_formula, "OutputTensor.Sizes[3] is 5 but must be 3:"),
    REJECT(max_pooling2_reject_window_larger_than_input, MAX_POOLING2, 2_1, pool_window_too_large, "WindowSize[1] 3 with Dilations[1] 2 spans 5 elements but the padded input is only 3"),
    REJECT(max_pooling2_reject_window_larger_than_padded, MAX_POOLING2, 2_1, pool_window_too_large_padded, "spans 5 elements but the padded input is only 4"),
    ACCEPT(max_pooling2_accept_window_fills_padded_input, MAX_POOLING2, 2_1, pool_window_fits_padding),
    ACCEPT(max_pooling2_accept_symmetric_padding, MAX_POOLING2, 2_1, pool_symmetric_padding),
    ACCEPT(max_pooling2_accept_asymmetric_padding, MAX_POOLING2, 2_1, pool_asymmetric_padding),
    ACCEPT(max_pooling2_accept_window_in_padding_only, MAX_POOLING2, 2_1, pool_window_in_padding_only),
    REJECT(max_pooling2_reject_huge_padding_output_size, MAX_POOLING2, 2_1, pool_huge_padding, "OutputTensor.Sizes[3] is 1 but must be 4294967297:"),
    REJECT(max_pooling2_reject_huge_dilated_window, MAX_POOLING2, 2_1, pool_huge_window, "spans 18446744060824649731 elements but the padded input is only 5"),
    ACCEPT(max_pooling2_accept_huge_stride, MAX_POOLING2, 2_1, pool_huge_stride),
    /* MAX_POOLING2 data types per feature level. */
    REJECT(max_pooling2_reject_int8_at_2_1, MAX_POOLING2, 2_1, pool_int8, "InputTensor.DataType INT8 is not supported by MAX_POOLING2 at feature level 2_1 (needs 3_0)"),
    ACCEPT(max_pooling2_accept_int8_at_3_0, MAX_POOLING2, 3_0, pool_int8),
    REJECT(max_pooling2_reject_uint8_at_2_1, MAX_POOLING2, 2_1, pool_uint8, "UINT8 is not supported by MAX_POOLING2 at feature level 2_1 (needs 3_0)"),
    ACCEPT(max_pooling2_accept_uint8_at_3_0, MAX_POOLING2, 3_0, pool_uint8),
    REJECT(max_pooling2_reject_int32_at_4_1, MAX_POOLING2, 4_1, pool_int32, "INT32 is not supported by MAX_POOLING2 at feature level 4_1 (needs 5_0)"),
    ACCEPT(max_pooling2_accept_int32_at_5_0, MAX_POOLING2, 5_0, pool_int32),
    ACCEPT(max_pooling2_accept_uint64_at_6_4_as_5_0, MAX_POOLING2, 6_4, pool_uint64),
    REJECT(max_pooling2_reject_float64, MAX_POOLING2, 5_0, pool_float64, "FLOAT64 is not supported by MAX_POOLING2 at any feature level"),
    REJECT(max_pooling2_reject_output_type_differs, MAX_POOLING2, 2_1, pool_output_type_differs, "OutputTensor.DataType FLOAT16 differs from InputTensor.DataType FLOAT32"),
    REJECT(max_pooling2_reject_uint64_indices_at_4_1, MAX_POOLING2, 4_1, pool_indices_uint64, "OutputIndicesTensor.DataType UINT64 is not supported by MAX_POOLING2 at feature level 4_1 (needs 5_0)"),
    ACCEPT(max_pooling2_accept_uint64_indices_at_5_0, MAX_POOLING2, 5_0, pool_indices_uint64),
    REJECT(max_pooling2_reject_int32_indices, MAX_POOLING2, 5_0, pool_indices_int32, "OutputIndicesTensor.DataType INT32 is not supported by MAX_POOLING2 at any feature level; at 5_0 it takes UINT32, UINT64"),
    /* MAX_POOLING2 outputs never alias; storage rules apply to the indices too. */
    REJECT(max_pooling2_reject_same_output_and_indices_desc, MAX_POOLING2, 5_0, pool_same_output_desc, "OutputIndicesTensor is the same DML_TENSOR_DESC as OutputTensor"),
    REJECT(max_pooling2_reject_indices_stride_0, MAX_POOLING2, 2_1, pool_indices_stride_0, "OutputIndicesTensor.Strides[3] is 0 but Sizes[3] is 2"),
    REJECT(max_pooling2_reject_output_stride_0, MAX_POOLING2, 2_1, pool_output_stride_0, "OutputTensor.Strides[1] is 0 but Sizes[1] is 2"),
    ACCEPT(max_pooling2_accept_nhwc_outputs, MAX_POOLING2, 2_1, pool_output_nhwc),
    REJECT(max_pooling2_reject_indices_total_bytes_small, MAX_POOLING2, 2_1, pool_indices_total_small, "OutputIndicesTensor.TotalTensorSizeInBytes is 28 but Sizes need at least 32"),
    REJECT(max_pooling2_reject_owned_by_dml_indices, MAX_POOLING2, 2_1, pool_indices_owned_by_dml, "OutputIndicesTensor.Flags has DML_TENSOR_FLAG_OWNED_BY_DML"),
};

static void run_rule_test(tap *t, const rule_test *rt)
{
    fixture f;
    memset(&f, 0, sizeof f);
    const void *desc = rt->build(&f);
    dmlc_error err = { "" };
    bool valid = validate(rt->op, desc, rt->fl, &err);
    bool pass = rt->reject ? !valid && strstr(err.msg, rt->reject) : valid;
    tap_ok(t, pass, "%s", rt->name);
    if (!pass && rt->reject)
        tap_diag("expected rejection containing \"%s\"; got %s: %s", rt->reject,
                 valid ? "accepted" : "rejected", err.msg);
    else if (!pass)
        tap_diag("expected acceptance; got: %s", err.msg);
    else if (!valid)
        tap_diag("message: %s", err.msg);
}

/* ---------------------------------------------------------------------------------------- */
/* Data-type tables against the spec's tables                                                */
/* ---------------------------------------------------------------------------------------- */

/* The spec pages' "Tensor support" tables (and SEMANTICS.md for FL 5_0 pooling), as text:
 * the types a tensor accepts at each tested level, "" where the operator does not exist. */
typedef struct spec_type_row {
    DML_FEATURE_LEVEL fl;
    const char *types;
} spec_type_row;

static const spec_type_row arg_input_spec[] = {
    { FL(2_1), "" },
    { FL(3_0), "FLOAT32 FLOAT16 INT32 INT16 INT8 UINT32 UINT16 UINT8" },
    { FL(4_1), "FLOAT32 FLOAT16 INT64 INT32 INT16 INT8 UINT64 UINT32 UINT16 UINT8" },
    { FL(5_0), "FLOAT32 FLOAT16 INT64 INT32 INT16 INT8 UINT64 UINT32 UINT16 UINT8" },
};
static const spec_type_row arg_output_spec[] = {
    { FL(2_1), "" },
    { FL(3_0), "INT64 INT32 UINT64 UINT32" },
    { FL(4_1), "INT64 INT32 UINT64 UINT32" },
    { FL(5_0), "INT64 INT32 UINT64 UINT32" },
};
static const spec_type_row pool_values_spec[] = {
    { FL(2_1), "FLOAT32 FLOAT16" },
    { FL(3_0), "FLOAT32 FLOAT16 INT8 UINT8" },
    { FL(4_1), "FLOAT32 FLOAT16 INT8 UINT8" },
    { FL(5_0), "FLOAT32 FLOAT16 INT8 UINT8 INT32 INT16 UINT32 UINT16 INT64 UINT64" },
};
static const spec_type_row pool_indices_spec[] = {
    { FL(2_1), "UINT32" },
    { FL(3_0), "UINT32" },
    { FL(4_1), "UINT32" },
    { FL(5_0), "UINT32 UINT64" },
};

static bool spec_lists(const char *types, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(types, name); p; p = strstr(p + 1, name))
        if ((p == types || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return true;
    return false;
}

/* Which tensor of which operator a table test varies. */
typedef enum table_target { TARGET_ARG_INPUT, TARGET_ARG_OUTPUT, TARGET_POOL_VALUES, TARGET_POOL_INDICES } table_target;

static const void *build_with_type(fixture *f, op_id op, table_target target, DML_TENSOR_DATA_TYPE type)
{
    switch (target) {
    case TARGET_ARG_INPUT: return arg_input_type(f, type);
    case TARGET_ARG_OUTPUT: return arg_output_type(f, type);
    case TARGET_POOL_VALUES: return pool_values_type(f, type);
    case TARGET_POOL_INDICES: return pool_indices_type(f, type);
    }
    (void)op;
    return NULL;
}

/* Every data type (and UNKNOWN) at every tested level: accepted iff the spec table lists it. */
static bool types_match_spec(op_id op, table_target target, const spec_type_row *rows, size_t count)
{
    bool all = true;
    for (size_t r = 0; r < count; r++)
        for (size_t i = 0; i <= DTYPE_COUNT; i++) {
            DML_TENSOR_DATA_TYPE type = i < DTYPE_COUNT ? dtype_table[i].type : DT(UNKNOWN);
            fixture f;
            dmlc_error err = { "" };
            const void *desc = build_with_type(&f, op, target, type);
            bool valid = validate(op, desc, rows[r].fl, &err);
            bool listed = type != DT(UNKNOWN) && spec_lists(rows[r].types, dtype_name(type));
            if (valid != listed) {
                tap_diag("%s at %s: %s but the spec table %s it (%s)", dtype_name(type),
                         fl_name(rows[r].fl), valid ? "accepted" : "rejected",
                         listed ? "lists" : "does not list", err.msg);
                all = false;
            }
        }
    return all;
}

/* ---------------------------------------------------------------------------------------- */
/* Entry points other than validate()                                                        */
/* ---------------------------------------------------------------------------------------- */

static bool operator_desc_dispatch(void)
{
    fixture f;
    dmlc_error err = { "" };
    DML_OPERATOR_DESC op = { DML_OPERATOR_ARGMIN, spec_rows(&f) };
    bool argmin_ok = validate_operator(&op, FL(3_0), &err);
    DML_OPERATOR_DESC pool = { DML_OPERATOR_MAX_POOLING2, pool_base(&f) };
    bool pool_ok = validate_operator(&pool, FL(2_1), &err);
    DML_OPERATOR_DESC bad = { DML_OPERATOR_INVALID, &f.pool };
    bool bad_rejected = !validate_operator(&bad, FL(5_0), &err)
        && strstr(err.msg, "DML_OPERATOR_DESC.Type is 0, which is not an operator dmlcheck covers");
    bool null_rejected = !validate_operator(NULL, FL(5_0), &err) && strstr(err.msg, "DML_OPERATOR_DESC is NULL");
    return argmin_ok && pool_ok && bad_rejected && null_rejected;
}

static bool per_op_entry_points(void)
{
    fixture f;
    const void *arg = spec_rows(&f);
    bool arg_ok = validate_argmin(arg, FL(3_0), NULL) && validate_argmax(arg, FL(3_0), NULL)
        && !validate_argmax(arg, FL(2_1), NULL);
    fixture g;
    const void *pool = pool_base(&g);
    return arg_ok && validate_max_pooling2(pool, FL(2_1), NULL);
}

/* A dml_case for argmax over {2,3} axis 1 with the given input type; linked. */
static void case_argmax(dml_case *c, DML_TENSOR_DATA_TYPE in_type)
{
    case_init(c);
    c->op = OP_ARGMAX;
    c->input = (case_tensor){ .present = true, .type = in_type, .rank = 2, .sizes = { 2, 3 } };
    c->output = (case_tensor){ .present = true, .type = DT(UINT32), .rank = 2, .sizes = { 2, 1 } };
    c->axis_count = 1;
    c->axes[0] = 1;
    case_link(c);
}

/* A dml_case for 2x2/stride-2 pooling of {1,1,4,4} with indices of the given type; linked. */
static void case_pool(dml_case *c, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE index_type)
{
    case_init(c);
    c->op = OP_MAX_POOLING2;
    c->input = (case_tensor){ .present = true, .type = type, .rank = 4, .sizes = { 1, 1, 4, 4 } };
    c->output = (case_tensor){ .present = true, .type = type, .rank = 4, .sizes = { 1, 1, 2, 2 } };
    c->indices = c->output;
    c->indices.type = index_type;
    c->spatial_count = 2;
    for (int i = 0; i < 2; i++)
        c->pool_strides[i] = c->window[i] = 2, c->dilations[i] = 1;
    case_link(c);
}

static bool lowest_level_is(dml_case *c, DML_FEATURE_LEVEL want)
{
    dmlc_error err = { "" };
    bool ok = validate_case(c, &err);
    if (!ok || c->feature_level != want)
        tap_diag("want %s, got %s (%s)", fl_name(want), ok ? fl_name(c->feature_level) : "invalid", err.msg);
    return ok && c->feature_level == want;
}

static bool case_finds_lowest_level(void)
{
    dml_case c;
    bool ok = true;
    case_argmax(&c, DT(FLOAT32));
    ok &= lowest_level_is(&c, FL(3_0));
    case_argmax(&c, DT(INT64));
    ok &= lowest_level_is(&c, FL(4_1));
    case_pool(&c, DT(FLOAT16), DT(UINT32));
    ok &= lowest_level_is(&c, FL(2_1));
    case_pool(&c, DT(UINT8), DT(UINT32));
    ok &= lowest_level_is(&c, FL(3_0));
    case_pool(&c, DT(FLOAT32), DT(UINT64));
    ok &= lowest_level_is(&c, FL(5_0));
    case_pool(&c, DT(INT16), DT(UINT32));
    ok &= lowest_level_is(&c, FL(5_0));
    return ok;
}

static bool case_error_from_highest_level(void)
{
    dml_case c;
    dmlc_error err = { "" };
    case_argmax(&c, DT(FLOAT32));
    c.axis_count = 2;
    c.axes[1] = 1; /* duplicate: invalid at every level */
    case_link(&c);
    bool rejected = !validate_case(&c, &err);
    tap_diag("message: %s", err.msg);
    return rejected && c.feature_level == 0 && strstr(err.msg, "at 5_0")
        && strstr(err.msg, "duplicate axes are invalid");
}

static bool case_uses_given_level(void)
{
    dml_case c;
    dmlc_error err = { "" };
    case_argmax(&c, DT(INT64));
    c.feature_level = FL(3_0);
    bool rejected = !validate_case(&c, &err) && strstr(err.msg, "(needs 4_1)");
    c.feature_level = FL(6_4);
    bool accepted = validate_case(&c, &err);
    return rejected && accepted && c.feature_level == FL(6_4);
}

static bool case_not_linked(void)
{
    dml_case c;
    dmlc_error err = { "" };
    case_argmax(&c, DT(FLOAT32));
    c.op_desc.Type = DML_OPERATOR_INVALID;
    return !validate_case(&c, &err) && strstr(err.msg, "was case_link() called?");
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    for (size_t i = 0; i < COUNT(rule_tests); i++)
        run_rule_test(&t, &rule_tests[i]);
    tap_ok(&t, types_match_spec(OP_ARGMAX, TARGET_ARG_INPUT, arg_input_spec, COUNT(arg_input_spec)),
           "argmax_input_types_match_spec_table");
    tap_ok(&t, types_match_spec(OP_ARGMIN, TARGET_ARG_INPUT, arg_input_spec, COUNT(arg_input_spec)),
           "argmin_input_types_match_spec_table");
    tap_ok(&t, types_match_spec(OP_ARGMAX, TARGET_ARG_OUTPUT, arg_output_spec, COUNT(arg_output_spec)),
           "argmax_output_types_match_spec_table");
    tap_ok(&t, types_match_spec(OP_ARGMIN, TARGET_ARG_OUTPUT, arg_output_spec, COUNT(arg_output_spec)),
           "argmin_output_types_match_spec_table");
    tap_ok(&t, types_match_spec(OP_MAX_POOLING2, TARGET_POOL_VALUES, pool_values_spec, COUNT(pool_values_spec)),
           "max_pooling2_value_types_match_spec_table");
    tap_ok(&t, types_match_spec(OP_MAX_POOLING2, TARGET_POOL_INDICES, pool_indices_spec, COUNT(pool_indices_spec)),
           "max_pooling2_index_types_match_spec_table");
    tap_ok(&t, operator_desc_dispatch(), "validate_operator_dispatches_by_type");
    tap_ok(&t, per_op_entry_points(), "validate_per_op_entry_points");
    tap_ok(&t, case_finds_lowest_level(), "validate_case_finds_lowest_level");
    tap_ok(&t, case_error_from_highest_level(), "validate_case_error_from_highest_level");
    tap_ok(&t, case_uses_given_level(), "validate_case_uses_given_level");
    tap_ok(&t, case_not_linked(), "validate_case_rejects_unlinked_case");
    return tap_done(&t);
}
