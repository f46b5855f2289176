/*
 * validate.c: DirectML's validation rules for ARGMIN, ARGMAX and MAX_POOLING2, per feature
 * level, as the spec pages (shared/spec/) and SEMANTICS.md state them.
 *
 * Invariants:
 * - Nothing in a descriptor is trusted.  Every pointer is checked before it is followed and
 *   every count is range-checked before an array it sizes is read, so a raw descriptor with
 *   NULLs, DimensionCount 0xffffffff or an AxisCount larger than its array is reported, never
 *   followed out of bounds.
 * - All size arithmetic is 64-bit and overflow-checked (__builtin_*_overflow or bounds that
 *   make overflow impossible, stated where used).
 * - The rules are data: rules_table (one row per ops.def row) gives each operator its
 *   introduction level and checker; dtype_since tables give, per tensor of each operator, the
 *   level at which each data type became legal.  A later feature level behaves as its highest
 *   known predecessor (fl_effective); messages quote the level the caller asked for.
 * - Every failure names the field, what was found, what is required and why, e.g.
 *   "OutputTensor.Sizes[1] is 3 but axis 1 is reduced, so it must be 1".
 * - No global mutable state; the only allocation is the bitmap of the exact output-alias
 *   check, freed before returning.
 */
#include "validate.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "tensor.h"

#define FL(level) DML_FEATURE_LEVEL_##level
#define DT(type) DML_TENSOR_DATA_TYPE_##type

/* The highest element count DirectML accepts in one tensor (SEMANTICS "Tensors"). */
#define MAX_TENSOR_ELEMENTS UINT64_C(0xffffffff)
/* The exact output-alias check marks one bit per element offset of the layout's span; spans
 * beyond this (16 Mi offsets, a 2 MiB bitmap) are not enumerated (see check_alias_exact). */
#define ALIAS_BITMAP_MAX_SPAN (UINT64_C(1) << 24)

/* ARGMIN and ARGMAX share one checker, which reads both through the ARGMAX type. */
_Static_assert(sizeof(DML_ARGMIN_OPERATOR_DESC) == sizeof(DML_ARGMAX_OPERATOR_DESC)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, InputTensor) == offsetof(DML_ARGMAX_OPERATOR_DESC, InputTensor)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, OutputTensor) == offsetof(DML_ARGMAX_OPERATOR_DESC, OutputTensor)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, AxisCount) == offsetof(DML_ARGMAX_OPERATOR_DESC, AxisCount)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, Axes) == offsetof(DML_ARGMAX_OPERATOR_DESC, Axes)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, AxisDirection) == offsetof(DML_ARGMAX_OPERATOR_DESC, AxisDirection),
               "ARGMIN and ARGMAX descriptors must share a layout");

/* ---------------------------------------------------------------------------------------- */
/* Rule tables                                                                               */
/* ---------------------------------------------------------------------------------------- */

/* A data type one tensor of one operator accepts, and the feature level that added it. */
typedef struct dtype_since {
    DML_TENSOR_DATA_TYPE type;
    DML_FEATURE_LEVEL since;
} dtype_since;

/* What one tensor of an operator must satisfy beyond the generic buffer-tensor rules. */
typedef struct tensor_rule {
    const char *field; /* "InputTensor": the descriptor member, used in messages */
    bool is_output;
    UINT min_rank, max_rank;
    const dtype_since *types; /* terminated by DML_TENSOR_DATA_TYPE_UNKNOWN */
} tensor_rule;

/* SPEC ARGMIN/ARGMAX "Tensor support": FL 3_0 table, FL 4_1 adds INT64 and UINT64 inputs. */
static const dtype_since arg_reduce_input_types[] = {
    { DT(FLOAT32), FL(3_0) }, { DT(FLOAT16), FL(3_0) }, { DT(INT32), FL(3_0) },
    { DT(INT16), FL(3_0) },   { DT(INT8), FL(3_0) },    { DT(UINT32), FL(3_0) },
    { DT(UINT16), FL(3_0) },  { DT(UINT8), FL(3_0) },   { DT(INT64), FL(4_1) },
    { DT(UINT64), FL(4_1) },  { DT(UNKNOWN), 0 },
};
static const dtype_since arg_reduce_output_types[] = {
    { DT(INT32), FL(3_0) },  { DT(INT64), FL(3_0) }, { DT(UINT32), FL(3_0) },
    { DT(UINT64), FL(3_0) }, { DT(UNKNOWN), 0 },
};
/* SPEC MAX_POOLING2 "Tensor support": FL 2_1 FLOAT32, FLOAT16; FL 3_0 adds INT8, UINT8;
 * SEMANTICS: FL 5_0 adds the wider integers (newest doc edition). */
static const dtype_since pooling_value_types[] = {
    { DT(FLOAT32), FL(2_1) }, { DT(FLOAT16), FL(2_1) }, { DT(INT8), FL(3_0) },
    { DT(UINT8), FL(3_0) },   { DT(INT32), FL(5_0) },   { DT(INT16), FL(5_0) },
    { DT(UINT32), FL(5_0) },  { DT(UINT16), FL(5_0) },  { DT(INT64), FL(5_0) },
    { DT(UINT64), FL(5_0) },  { DT(UNKNOWN), 0 },
};
/* SPEC MAX_POOLING2: indices UINT32; SEMANTICS: UINT64 from FL 5_0. */
static const dtype_since pooling_index_types[] = {
    { DT(UINT32), FL(2_1) }, { DT(UINT64), FL(5_0) }, { DT(UNKNOWN), 0 },
};

/* SPEC ARGMIN/ARGMAX "Supported dimension counts": 1 to 8 for both tensors. */
static const tensor_rule arg_reduce_input = { "InputTensor", false, 1, 8, arg_reduce_input_types };
static const tensor_rule arg_reduce_output = { "OutputTensor", true, 1, 8, arg_reduce_output_types };
/* SPEC MAX_POOLING2 "Supported dimension counts": 4 to 5 for all three tensors. */
static const tensor_rule pooling_input = { "InputTensor", false, 4, 5, pooling_value_types };
static const tensor_rule pooling_output = { "OutputTensor", true, 4, 5, pooling_value_types };
static const tensor_rule pooling_indices = { "OutputIndicesTensor", true, 4, 5, pooling_index_types };

/* The operator and levels a validation runs under. */
typedef struct vctx {
    const char *op_name;         /* "ARGMAX" */
    DML_FEATURE_LEVEL requested; /* the caller's level, quoted in messages */
    DML_FEATURE_LEVEL effective; /* the level whose rules apply (fl_effective) */
} vctx;

typedef bool (*op_checker)(const vctx *v, const void *desc, dmlc_error *err);

typedef struct op_rules {
    DML_FEATURE_LEVEL introduced; /* SPEC "Availability" */
    op_checker check;
} op_rules;

static bool check_arg_reduce(const vctx *v, const void *desc, dmlc_error *err);
static bool check_max_pooling2(const vctx *v, const void *desc, dmlc_error *err);

static const op_rules argmin_rules = { FL(3_0), check_arg_reduce };
static const op_rules argmax_rules = { FL(3_0), check_arg_reduce };
static const op_rules max_pooling2_rules = { FL(2_1), check_max_pooling2 };

/* One row per ops.def row: a new operator without <stem>_rules fails to compile. */
static const op_rules *const rules_table[OP_COUNT] = {
#define OP(id, stem) [OP_##id] = &stem##_rules,
#include "ops.def"
};

/* ---------------------------------------------------------------------------------------- */
/* Small helpers                                                                             */
/* ---------------------------------------------------------------------------------------- */

static bool is_power_of_two(uint64_t x) { return x && !(x & (x - 1)); }

/* Appends "A, B, C" of the types rule `types` allows at `fl` into buf. */
static const char *allowed_types_list(const dtype_since *types, DML_FEATURE_LEVEL fl, char *buf,
                                      size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (const dtype_since *t = types; t->type != DT(UNKNOWN); t++) {
        if (t->since > fl)
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", dtype_name(t->type));
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

/* "(0,2,1)" for error messages. */
static const char *format_coords(const uint64_t *coords, UINT rank, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (UINT i = 0; i < rank && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%llu", i ? "," : "(",
                         (unsigned long long)coords[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (used < size)
        snprintf(buf + used, size - used, ")");
    return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Generic buffer-tensor rules                                                               */
/* ---------------------------------------------------------------------------------------- */

/* Follows DML_TENSOR_DESC to its DML_BUFFER_TENSOR_DESC, refusing NULLs and other kinds. */
static bool unwrap_tensor(const tensor_rule *r, const DML_TENSOR_DESC *t,
                          const DML_BUFFER_TENSOR_DESC **out, dmlc_error *err)
{
    if (!t)
        return err_set(err, "%s is NULL but the operator requires it", r->field);
    if (t->Type != DML_TENSOR_TYPE_BUFFER)
        return err_set(err, "%s.Type is %u but only DML_TENSOR_TYPE_BUFFER (%u) tensors exist",
                       r->field, (unsigned)t->Type, (unsigned)DML_TENSOR_TYPE_BUFFER);
    if (!t->Desc)
        return err_set(err, "%s.Desc is NULL but a DML_TENSOR_TYPE_BUFFER tensor needs a "
                       "DML_BUFFER_TENSOR_DESC", r->field);
    *out = t->Desc;
    return true;
}

/* DML_TENSOR_FLAGS: only OWNED_BY_DML is defined, and "this flag can only be used on input
 * tensors" (DML_TENSOR_FLAGS documentation). */
static bool check_flags(const tensor_rule *r, const DML_BUFFER_TENSOR_DESC *b, dmlc_error *err)
{
    unsigned flags = (unsigned)b->Flags, unknown = flags & ~(unsigned)DML_TENSOR_FLAG_OWNED_BY_DML;
    if (unknown)
        return err_set(err, "%s.Flags is 0x%x, which has unknown bits 0x%x; the only "
                       "DML_TENSOR_FLAGS bit is DML_TENSOR_FLAG_OWNED_BY_DML (0x1)",
                       r->field, flags, unknown);
    if (r->is_output && (flags & DML_TENSOR_FLAG_OWNED_BY_DML))
        return err_set(err, "%s.Flags has DML_TENSOR_FLAG_OWNED_BY_DML but %s is an output; "
                       "that flag can only be used on input tensors", r->field, r->field);
    return true;
}

/* The data type must be a DirectML type that this tensor accepts at the feature level. */
static bool check_data_type(const vctx *v, const tensor_rule *r, DML_TENSOR_DATA_TYPE type,
                            dmlc_error *err)
{
    for (const dtype_since *t = r->types; t->type != DT(UNKNOWN) && type != DT(UNKNOWN); t++)
        if (t->type == type && t->since <= v->effective)
            return true; /* the common case: no message is formatted (runs once per tensor) */
    char allowed[256];
    allowed_types_list(r->types, v->effective, allowed, sizeof allowed);
    if (type == DT(UNKNOWN))
        return err_set(err, "%s.DataType is DML_TENSOR_DATA_TYPE_UNKNOWN (0); %s of %s takes %s at "
                       "feature level %s", r->field, r->field, v->op_name, allowed,
                       fl_name(v->requested));
    if (!dtype_get(type))
        return err_set(err, "%s.DataType is %u, which is not a DML_TENSOR_DATA_TYPE value; %s of %s "
                       "takes %s at feature level %s", r->field, (unsigned)type, r->field,
                       v->op_name, allowed, fl_name(v->requested));
    for (const dtype_since *t = r->types; t->type != DT(UNKNOWN); t++) {
        if (t->type != type)
            continue;
        if (t->since <= v->effective)
            return true;
        return err_set(err, "%s.DataType %s is not supported by %s at feature level %s (needs %s)",
                       r->field, dtype_name(type), v->op_name, fl_name(v->requested),
                       fl_name(t->since));
    }
    return err_set(err, "%s.DataType %s is not supported by %s at any feature level; at %s it "
                   "takes %s", r->field, dtype_name(type), v->op_name, fl_name(v->requested),
                   allowed);
}

/* DimensionCount in the operator's range (checked before Sizes is read), every size >= 1 and
 * at most 2^32-1 elements. */
static bool check_shape(const vctx *v, const tensor_rule *r, const DML_BUFFER_TENSOR_DESC *b,
                        dmlc_error *err)
{
    if (b->DimensionCount < r->min_rank || b->DimensionCount > r->max_rank)
        return err_set(err, "%s.DimensionCount is %u but %s supports %u to %u dimensions for %s",
                       r->field, b->DimensionCount, v->op_name, r->min_rank, r->max_rank, r->field);
    if (!b->Sizes)
        return err_set(err, "%s.Sizes is NULL but DimensionCount is %u", r->field, b->DimensionCount);
    for (UINT i = 0; i < b->DimensionCount; i++)
        if (b->Sizes[i] == 0)
            return err_set(err, "%s.Sizes[%u] is 0 but every size must be at least 1", r->field, i);
    uint64_t elements = tensor_element_count(b->DimensionCount, b->Sizes);
    if (elements == UINT64_MAX)
        return err_set(err, "%s.Sizes multiply to more than 2^64 elements; a tensor may have at "
                       "most 4294967295 (2^32-1)", r->field);
    if (elements > MAX_TENSOR_ELEMENTS)
        return err_set(err, "%s.Sizes multiply to %llu elements but a tensor may have at most "
                       "4294967295 (2^32-1)", r->field, (unsigned long long)elements);
    return true;
}

/* TotalTensorSizeInBytes covers DMLCalcBufferTensorSize and is a multiple of 4;
 * GuaranteedBaseOffsetAlignment is 0 or a power of two >= the element size. */
static bool check_storage(const tensor_rule *r, const DML_BUFFER_TENSOR_DESC *b, dmlc_error *err)
{
    UINT64 need = dml_calc_buffer_tensor_size(b->DataType, b->DimensionCount, b->Sizes, b->Strides);
    if (need == 0) /* sizes are >= 1 and the type is known, so 0 means 64-bit overflow */
        return err_set(err, "%s: the buffer size DMLCalcBufferTensorSize computes from Sizes%s "
                       "overflows 64 bits", r->field, b->Strides ? " and Strides" : "");
    if (b->TotalTensorSizeInBytes < need)
        return err_set(err, "%s.TotalTensorSizeInBytes is %llu but Sizes%s need at least %llu bytes "
                       "(DMLCalcBufferTensorSize)", r->field,
                       (unsigned long long)b->TotalTensorSizeInBytes,
                       b->Strides ? " and Strides" : "", (unsigned long long)need);
    if (b->TotalTensorSizeInBytes % 4)
        return err_set(err, "%s.TotalTensorSizeInBytes is %llu but must be a multiple of 4",
                       r->field, (unsigned long long)b->TotalTensorSizeInBytes);
    UINT align = b->GuaranteedBaseOffsetAlignment;
    unsigned elem = dtype_size(b->DataType);
    if (align != 0 && !is_power_of_two(align))
        return err_set(err, "%s.GuaranteedBaseOffsetAlignment is %u but must be 0 or a power of two",
                       r->field, align);
    if (align != 0 && align < elem)
        return err_set(err, "%s.GuaranteedBaseOffsetAlignment is %u but must be 0 or at least the "
                       "%u-byte element size of %s", r->field, align, elem, dtype_name(b->DataType));
    return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Outputs never alias (SEMANTICS "Tensors")                                                 */
/* ---------------------------------------------------------------------------------------- */

/* One dimension of size > 1 of an output layout. */
typedef struct layout_dim {
    UINT axis;
    uint64_t size, stride;
} layout_dim;

/* Offset span of dims[0..n): the largest offset + 1.  Cannot overflow: the caller has checked
 * that DMLCalcBufferTensorSize, which sums the same terms times the element size, fits. */
static uint64_t layout_span(const layout_dim *dims, UINT n)
{
    uint64_t span = 1;
    for (UINT i = 0; i < n; i++)
        span += (dims[i].size - 1) * dims[i].stride;
    return span;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Advances a row-major odometer over dims[0..n), keeping `off` the element offset; false once
 * it wraps past the last element. */
static bool odometer_step(const layout_dim *dims, UINT n, uint64_t *counter, uint64_t *off)
{
    for (UINT i = n; i-- > 0;) {
        if (++counter[i] < dims[i].size) {
            *off += dims[i].stride;
            return true;
        }
        *off -= (dims[i].size - 1) * dims[i].stride;
        counter[i] = 0;
    }
    return false;
}

/* Full-tensor coordinates (axes outside dims are 0) of an odometer position. */
static void odometer_coords(const layout_dim *dims, UINT n, const uint64_t *counter, uint64_t *coords)
{
    for (UINT i = 0; i < n; i++)
        coords[dims[i].axis] = counter[i];
}

/* Finds the first logical element (row-major over dims) whose offset is `offset`; one exists. */
static void first_with_offset(const layout_dim *dims, UINT n, uint64_t offset, uint64_t *coords)
{
    uint64_t counter[DML_MAX_RANK] = { 0 }, off = 0;
    while (off != offset && odometer_step(dims, n, counter, &off))
        ;
    odometer_coords(dims, n, counter, coords);
}

/* Walks every element of dims[0..n) (strides already reduced, span <= ALIAS_BITMAP_MAX_SPAN),
 * marking offsets; on the first repeat names both elements in full-tensor coordinates. */
static bool check_alias_bitmap(const char *field, UINT rank, const layout_dim *dims, UINT n,
                               uint64_t span, dmlc_error *err)
{
    uint8_t *seen = calloc(span / 8 + 1, 1);
    if (!seen)
        return err_set(err, "%s: out of memory while checking that outputs do not alias", field);
    uint64_t counter[DML_MAX_RANK] = { 0 }, off = 0;
    bool repeat = false;
    do {
        repeat = seen[off / 8] & (1u << (off % 8));
        seen[off / 8] |= (uint8_t)(1u << (off % 8));
    } while (!repeat && odometer_step(dims, n, counter, &off));
    free(seen);
    if (!repeat)
        return true;
    uint64_t a[DML_MAX_RANK] = { 0 }, b[DML_MAX_RANK] = { 0 };
    char sa[128], sb[128];
    first_with_offset(dims, n, off, a);
    odometer_coords(dims, n, counter, b);
    return err_set(err, "%s.Strides make logical elements %s and %s share an address; outputs "
                   "must not alias", field, format_coords(a, rank, sa, sizeof sa),
                   format_coords(b, rank, sb, sizeof sb));
}

/* Sorts by stride, or by axis, ascending (at most 8 entries: insertion sort). */
static void sort_dims(layout_dim *dims, UINT n, bool by_stride)
{
    for (UINT i = 1; i < n; i++)
        for (UINT j = i; j > 0; j--) {
            bool before = by_stride ? dims[j].stride < dims[j - 1].stride : dims[j].axis < dims[j - 1].axis;
            if (!before)
                break;
            layout_dim t = dims[j];
            dims[j] = dims[j - 1];
            dims[j - 1] = t;
        }
}

/*
 * No two logical elements of an output may share an address.  The check is exact:
 * 1. A stride 0 on a dimension of size > 1 aliases (the common mistake; own message).
 * 2. With dimensions sorted by stride, the largest-stride dimension "nests" over the others
 *    when its stride is at least their span (largest offset + 1): each of its steps then
 *    starts a fresh, disjoint block, so the layout is alias-free iff the rest is.  Peel such
 *    dimensions off the top.  Packed, padded and permuted layouts peel completely.
 * 3. What remains interleaves.  Divide its strides by their gcd (which preserves
 *    injectivity) and, if the span has at most ALIAS_BITMAP_MAX_SPAN offsets, enumerate
 *    every element into a bitmap: a repeat names the two colliding elements.  More elements
 *    than offsets alias by pigeonhole.  An interleaved layout with a larger span is rejected
 *    because dmlcheck cannot prove it alias-free cheaply (a deliberate, documented limit:
 *    such layouts do not occur in practice).
 */
static bool check_no_self_alias(const char *field, const DML_BUFFER_TENSOR_DESC *b, dmlc_error *err)
{
    if (!b->Strides)
        return true; /* packed row-major: one element per offset by construction */
    layout_dim dims[DML_MAX_RANK];
    UINT n = 0;
    for (UINT i = 0; i < b->DimensionCount; i++) {
        if (b->Sizes[i] <= 1)
            continue;
        if (b->Strides[i] == 0)
            return err_set(err, "%s.Strides[%u] is 0 but Sizes[%u] is %u, so %u output elements "
                           "would share one address; outputs must not alias", field, i, i,
                           b->Sizes[i], b->Sizes[i]);
        dims[n++] = (layout_dim){ i, b->Sizes[i], b->Strides[i] };
    }
    sort_dims(dims, n, true);
    while (n > 1 && dims[n - 1].stride >= layout_span(dims, n - 1))
        n--;
    if (n <= 1)
        return true;
    uint64_t g = 0, elements = 1;
    for (UINT i = 0; i < n; i++)
        g = gcd_u64(g, dims[i].stride);
    for (UINT i = 0; i < n; i++) {
        dims[i].stride /= g;
        elements *= dims[i].size; /* <= 2^32-1: check_shape bounded the whole tensor */
    }
    uint64_t span = layout_span(dims, n);
    sort_dims(dims, n, false); /* enumerate in logical row-major order: "first" reads naturally */
    if (span <= ALIAS_BITMAP_MAX_SPAN)
        return check_alias_bitmap(field, b->DimensionCount, dims, n, span, err);
    if (elements > span)
        return err_set(err, "%s.Strides place %llu logical elements in only %llu distinct "
                       "offsets, so some share an address; outputs must not alias", field,
                       (unsigned long long)elements, (unsigned long long)span);
    sort_dims(dims, n, true);
    return err_set(err, "%s.Strides interleave dimensions %u and %u over a span of %llu elements; "
                   "dmlcheck cannot prove that no two output elements share an address, so it "
                   "rejects the layout (use strides where each is at least the span of the "
                   "smaller-strided dimensions)", field, dims[0].axis, dims[1].axis,
                   (unsigned long long)((span - 1) * g + 1));
}

/* Every rule a single tensor must meet on its own; *out is its buffer description. */
static bool check_tensor(const vctx *v, const tensor_rule *r, const DML_TENSOR_DESC *t,
                         const DML_BUFFER_TENSOR_DESC **out, dmlc_error *err)
{
    const DML_BUFFER_TENSOR_DESC *b = NULL;
    if (!unwrap_tensor(r, t, &b, err) || !check_flags(r, b, err)
        || !check_data_type(v, r, b->DataType, err) || !check_shape(v, r, b, err)
        || !check_storage(r, b, err))
        return false;
    if (r->is_output && !check_no_self_alias(r->field, b, err))
        return false;
    *out = b;
    return true;
}

/* ---------------------------------------------------------------------------------------- */
/* ARGMIN / ARGMAX                                                                           */
/* ---------------------------------------------------------------------------------------- */

/* SEMANTICS D2: AxisCount >= 1, axes in [0, rank-1], no duplicates.  AxisCount is bounded by
 * the rank before Axes is read, since distinct in-range axes cannot number more. */
static bool check_axes(const vctx *v, const DML_ARGMAX_OPERATOR_DESC *d, UINT rank, dmlc_error *err)
{
    if (d->AxisCount == 0)
        return err_set(err, "AxisCount is 0 but %s needs at least one axis to reduce (SEMANTICS D2)",
                       v->op_name);
    if (!d->Axes)
        return err_set(err, "Axes is NULL but AxisCount is %u", d->AxisCount);
    if (d->AxisCount > rank)
        return err_set(err, "AxisCount is %u but InputTensor.DimensionCount is %u; axes must be "
                       "distinct (SEMANTICS D2), so there can be at most %u", d->AxisCount, rank, rank);
    for (UINT i = 0; i < d->AxisCount; i++) {
        if (d->Axes[i] >= rank)
            return err_set(err, "Axes[%u] is %u but must be in [0, %u] (InputTensor.DimensionCount "
                           "is %u)", i, d->Axes[i], rank - 1, rank);
        for (UINT j = 0; j < i; j++)
            if (d->Axes[j] == d->Axes[i])
                return err_set(err, "Axes[%u] is %u, which Axes[%u] already lists; duplicate axes "
                               "are invalid (SEMANTICS D2)", i, d->Axes[i], j);
    }
    return true;
}

static bool check_direction(DML_AXIS_DIRECTION dir, dmlc_error *err)
{
    if (dir == DML_AXIS_DIRECTION_INCREASING || dir == DML_AXIS_DIRECTION_DECREASING)
        return true;
    return err_set(err, "AxisDirection is %u but must be DML_AXIS_DIRECTION_INCREASING (0) or "
                   "DML_AXIS_DIRECTION_DECREASING (1)", (unsigned)dir);
}

/* SPEC: output rank = input rank; Sizes match the input except reduced axes, which are 1. */
static bool check_reduced_sizes(const vctx *v, const DML_ARGMAX_OPERATOR_DESC *d,
                                const DML_BUFFER_TENSOR_DESC *in, const DML_BUFFER_TENSOR_DESC *out,
                                dmlc_error *err)
{
    if (out->DimensionCount != in->DimensionCount)
        return err_set(err, "OutputTensor.DimensionCount is %u but InputTensor.DimensionCount is "
                       "%u; %s keeps the rank (reduced axes become size 1)", out->DimensionCount,
                       in->DimensionCount, v->op_name);
    bool reduced[DML_MAX_RANK] = { false };
    for (UINT i = 0; i < d->AxisCount; i++)
        reduced[d->Axes[i]] = true; /* in range: check_axes ran first */
    for (UINT i = 0; i < in->DimensionCount; i++) {
        if (reduced[i] && out->Sizes[i] != 1)
            return err_set(err, "OutputTensor.Sizes[%u] is %u but axis %u is reduced, so it must be 1",
                           i, out->Sizes[i], i);
        if (!reduced[i] && out->Sizes[i] != in->Sizes[i])
            return err_set(err, "OutputTensor.Sizes[%u] is %u but axis %u is not reduced, so it must "
                           "equal InputTensor.Sizes[%u], %u", i, out->Sizes[i], i, i, in->Sizes[i]);
    }
    return true;
}

static bool check_arg_reduce(const vctx *v, const void *desc, dmlc_error *err)
{
    const DML_ARGMAX_OPERATOR_DESC *d = desc; /* same layout for ARGMIN: see _Static_assert */
    const DML_BUFFER_TENSOR_DESC *in = NULL, *out = NULL;
    return check_tensor(v, &arg_reduce_input, d->InputTensor, &in, err)
        && check_tensor(v, &arg_reduce_output, d->OutputTensor, &out, err)
        && check_axes(v, d, in->DimensionCount, err)
        && check_direction(d->AxisDirection, err)
        && check_reduced_sizes(v, d, in, out, err);
}

/* ---------------------------------------------------------------------------------------- */
/* MAX_POOLING2                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* SPEC: DimensionCount is 2 for 4-D and 3 for 5-D input (checked before any array is read);
 * every pooling array is required; all three tensors share the rank. */
static bool check_pool_layout(const DML_MAX_POOLING2_OPERATOR_DESC *d, const DML_BUFFER_TENSOR_DESC *in,
                              const DML_BUFFER_TENSOR_DESC *out, const DML_BUFFER_TENSOR_DESC *idx,
                              dmlc_error *err)
{
    if (d->DimensionCount != 2 && d->DimensionCount != 3)
        return err_set(err, "DimensionCount is %u but MAX_POOLING2 pools 2 or 3 spatial dimensions",
                       d->DimensionCount);
    if (d->DimensionCount != in->DimensionCount - 2)
        return err_set(err, "DimensionCount is %u but InputTensor.DimensionCount is %u, which has %u "
                       "spatial dimensions after N and C", d->DimensionCount, in->DimensionCount,
                       in->DimensionCount - 2);
    static const char *const names[] = { "Strides", "WindowSize", "StartPadding", "EndPadding", "Dilations" };
    const UINT *arrays[] = { d->Strides, d->WindowSize, d->StartPadding, d->EndPadding, d->Dilations };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (!arrays[i])
            return err_set(err, "%s is NULL but MAX_POOLING2 requires DimensionCount (%u) values",
                           names[i], d->DimensionCount);
    if (out->DimensionCount != in->DimensionCount)
        return err_set(err, "OutputTensor.DimensionCount is %u but InputTensor.DimensionCount is %u; "
                       "they must match", out->DimensionCount, in->DimensionCount);
    if (idx && idx->DimensionCount != out->DimensionCount)
        return err_set(err, "OutputIndicesTensor.DimensionCount is %u but OutputTensor.DimensionCount "
                       "is %u; they must match", idx->DimensionCount, out->DimensionCount);
    return true;
}

/* SEMANTICS: Strides, WindowSize and Dilations are at least 1. */
static bool check_pool_params(const DML_MAX_POOLING2_OPERATOR_DESC *d, dmlc_error *err)
{
    static const char *const names[] = { "Strides", "WindowSize", "Dilations" };
    const UINT *arrays[] = { d->Strides, d->WindowSize, d->Dilations };
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++)
        for (UINT i = 0; i < d->DimensionCount; i++)
            if (arrays[a][i] == 0)
                return err_set(err, "%s[%u] is 0 but must be at least 1", names[a], i);
    return true;
}

/* One spatial dimension's sizes, all in 64 bits: each input is a UINT, so the sums below
 * stay under 2^34 and (WindowSize-1)*Dilation+1 under 2^64; no step can overflow. */
typedef struct pool_extent {
    uint64_t padded;  /* In + StartPadding + EndPadding */
    uint64_t dilated; /* (WindowSize - 1) * Dilation + 1 */
    uint64_t floor_size, ceil_size; /* ceil_size 0 when no ceil-sized output is allowed */
    bool ceil_starts_in_end_padding; /* a ceil size exists but its last window starts too late */
} pool_extent;

/* SEMANTICS D8: floor size, and the ceil size (one more) when the division has a remainder
 * and the last window still starts inside In + StartPadding. */
static void pool_extent_of(const DML_MAX_POOLING2_OPERATOR_DESC *d, UINT in_size, UINT i,
                           pool_extent *e)
{
    e->padded = (uint64_t)in_size + d->StartPadding[i] + d->EndPadding[i];
    e->dilated = ((uint64_t)d->WindowSize[i] - 1) * d->Dilations[i] + 1;
    e->floor_size = e->ceil_size = 0;
    e->ceil_starts_in_end_padding = false;
    if (e->dilated > e->padded)
        return;
    uint64_t room = e->padded - e->dilated, stride = d->Strides[i];
    e->floor_size = room / stride + 1;
    bool last_starts_inside = e->floor_size * stride < (uint64_t)in_size + d->StartPadding[i];
    if (room % stride && last_starts_inside)
        e->ceil_size = e->floor_size + 1;
    e->ceil_starts_in_end_padding = room % stride && !last_starts_inside;
}

static bool check_pool_spatial(const DML_MAX_POOLING2_OPERATOR_DESC *d, const DML_BUFFER_TENSOR_DESC *in,
                               const DML_BUFFER_TENSOR_DESC *out, UINT i, dmlc_error *err)
{
    pool_extent e;
    UINT dim = i + 2, got = out->Sizes[dim];
    pool_extent_of(d, in->Sizes[dim], i, &e);
    if (e.dilated > e.padded) /* SEMANTICS D9 */
        return err_set(err, "WindowSize[%u] %u with Dilations[%u] %u spans %llu elements but the "
                       "padded input is only %llu (InputTensor.Sizes[%u] %u + StartPadding[%u] %u + "
                       "EndPadding[%u] %u); the dilated window must fit (SEMANTICS D9)", i,
                       d->WindowSize[i], i, d->Dilations[i], (unsigned long long)e.dilated,
                       (unsigned long long)e.padded, dim, in->Sizes[dim], i, d->StartPadding[i], i,
                       d->EndPadding[i]);
    if (got == e.floor_size || (e.ceil_size && got == e.ceil_size))
        return true;
    char allowed[64], why_not_ceil[128] = "";
    if (e.ceil_size)
        snprintf(allowed, sizeof allowed, "%llu or %llu", (unsigned long long)e.floor_size,
                 (unsigned long long)e.ceil_size);
    else
        snprintf(allowed, sizeof allowed, "%llu", (unsigned long long)e.floor_size);
    if (e.ceil_starts_in_end_padding && got == e.floor_size + 1)
        snprintf(why_not_ceil, sizeof why_not_ceil, "; rounding up to %u is not allowed because the "
                 "last window would start in the end padding", got);
    return err_set(err, "OutputTensor.Sizes[%u] is %u but must be %s: (InputTensor.Sizes[%u] %u + "
                   "StartPadding[%u] %u + EndPadding[%u] %u - dilated window %llu) / Strides[%u] %u "
                   "+ 1, rounded down%s (SEMANTICS D8)%s", dim, got, allowed, dim, in->Sizes[dim], i,
                   d->StartPadding[i], i, d->EndPadding[i], (unsigned long long)e.dilated, i,
                   d->Strides[i], e.ceil_size ? " or up" : "", why_not_ceil);
}

/* SPEC: N and C pass through; spatial sizes by D8; indices have the output's sizes. */
static bool check_pool_sizes(const DML_MAX_POOLING2_OPERATOR_DESC *d, const DML_BUFFER_TENSOR_DESC *in,
                             const DML_BUFFER_TENSOR_DESC *out, const DML_BUFFER_TENSOR_DESC *idx,
                             dmlc_error *err)
{
    static const char *const nc[] = { "batch (N)", "channel (C)" };
    for (UINT i = 0; i < 2; i++)
        if (out->Sizes[i] != in->Sizes[i])
            return err_set(err, "OutputTensor.Sizes[%u] is %u but must equal InputTensor.Sizes[%u], "
                           "%u: pooling keeps the %s dimension", i, out->Sizes[i], i, in->Sizes[i], nc[i]);
    for (UINT i = 0; i < d->DimensionCount; i++)
        if (!check_pool_spatial(d, in, out, i, err))
            return false;
    for (UINT i = 0; idx && i < out->DimensionCount; i++)
        if (idx->Sizes[i] != out->Sizes[i])
            return err_set(err, "OutputIndicesTensor.Sizes[%u] is %u but OutputTensor.Sizes[%u] is %u; "
                           "both outputs have the same sizes", i, idx->Sizes[i], i, out->Sizes[i]);
    return true;
}

static bool check_max_pooling2(const vctx *v, const void *desc, dmlc_error *err)
{
    const DML_MAX_POOLING2_OPERATOR_DESC *d = desc;
    const DML_BUFFER_TENSOR_DESC *in = NULL, *out = NULL, *idx = NULL;
    /* DirectML binds the two outputs as separate buffers; one descriptor for both means the
     * caller meant them to be the same memory, which would alias. */
    if (d->OutputIndicesTensor && d->OutputIndicesTensor == d->OutputTensor)
        return err_set(err, "OutputIndicesTensor is the same DML_TENSOR_DESC as OutputTensor; the two "
                       "outputs are separate buffers and must not alias");
    if (!check_tensor(v, &pooling_input, d->InputTensor, &in, err)
        || !check_tensor(v, &pooling_output, d->OutputTensor, &out, err)
        || (d->OutputIndicesTensor && !check_tensor(v, &pooling_indices, d->OutputIndicesTensor, &idx, err)))
        return false;
    if (out->DataType != in->DataType) /* SPEC "Tensor constraints" */
        return err_set(err, "OutputTensor.DataType %s differs from InputTensor.DataType %s; "
                       "MAX_POOLING2 outputs the input's data type", dtype_name(out->DataType),
                       dtype_name(in->DataType));
    return check_pool_layout(d, in, out, idx, err) && check_pool_params(d, err)
        && check_pool_sizes(d, in, out, idx, err);
}

/* ---------------------------------------------------------------------------------------- */
/* Entry points                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* Only DML_FEATURE_LEVEL values at or above the lowest level whose rules dmlcheck knows. */
static bool resolve_level(DML_FEATURE_LEVEL fl, vctx *v, dmlc_error *err)
{
    if (!strcmp(fl_name(fl), "?"))
        return err_set(err, "feature level 0x%x is not a DML_FEATURE_LEVEL value (1_0 0x1000 ... "
                       "6_4 0x6400)", (unsigned)fl);
    v->requested = fl;
    v->effective = fl_effective(fl);
    if (!v->effective)
        return err_set(err, "feature level %s is below %s, the lowest level whose rules dmlcheck "
                       "knows (none of its operators exists there)", fl_name(fl),
                       fl_name(fl_tested[0]));
    return true;
}

bool validate(op_id op, const void *desc, DML_FEATURE_LEVEL feature_level, dmlc_error *err)
{
    if ((unsigned)op >= OP_COUNT)
        return err_set(err, "operator id %d is not one of dmlcheck's operators", (int)op);
    vctx v = { .op_name = op_table[op].name };
    if (!resolve_level(feature_level, &v, err))
        return false;
    const op_rules *rules = rules_table[op];
    if (v.effective < rules->introduced) /* SPEC "Availability" */
        return err_set(err, "%s does not exist at feature level %s: it was introduced in %s",
                       v.op_name, fl_name(feature_level), fl_name(rules->introduced));
    if (!desc)
        return err_set(err, "the %s operator descriptor is NULL", v.op_name);
    return rules->check(&v, desc, err);
}

bool validate_operator(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL feature_level, dmlc_error *err)
{
    if (!desc)
        return err_set(err, "DML_OPERATOR_DESC is NULL");
    op_id op = op_from_dml_type(desc->Type);
    if (op == OP_COUNT) {
        char known[128] = "";
        size_t used = 0;
        for (int i = 0; i < OP_COUNT && used < sizeof known; i++) {
            int n = snprintf(known + used, sizeof known - used, "%s%s %u", i ? ", " : "",
                             op_table[i].name, (unsigned)op_table[i].dml_type);
            used += n > 0 ? (size_t)n : 0;
        }
        return err_set(err, "DML_OPERATOR_DESC.Type is %u, which is not an operator dmlcheck "
                       "covers (%s)", (unsigned)desc->Type, known);
    }
    return validate(op, desc->Desc, feature_level, err);
}

/* validate_argmin, validate_argmax, validate_max_pooling2: one per ops.def row. */
#define OP(id, stem)                                                                       \
    bool validate_##stem(const void *desc, DML_FEATURE_LEVEL fl, dmlc_error *err)          \
    {                                                                                      \
        return validate(OP_##id, desc, fl, err);                                           \
    }
#include "ops.def"

bool validate_case(dml_case *c, dmlc_error *err)
{
    if (!c)
        return err_set(err, "the case is NULL");
    if ((unsigned)c->op >= OP_COUNT)
        return err_set(err, "the case has no operator");
    if (c->op_desc.Type != op_table[c->op].dml_type)
        return err_set(err, "the case's op_desc.Type is %u but its operator is %s (%u); was "
                       "case_link() called?", (unsigned)c->op_desc.Type, op_table[c->op].name,
                       (unsigned)op_table[c->op].dml_type);
    if (c->feature_level)
        return validate(c->op, c->op_desc.Desc, c->feature_level, err);
    /* No level given: the lowest tested level where the case is valid. */
    for (size_t i = 0; i < FL_TESTED_COUNT; i++) {
        bool last = i + 1 == FL_TESTED_COUNT;
        if (validate(c->op, c->op_desc.Desc, fl_tested[i], last ? err : NULL)) {
            c->feature_level = fl_tested[i];
            return true;
        }
    }
    return err_prefix(err, "invalid at every feature level dmlcheck tests (%s to %s); at %s",
                      fl_name(fl_tested[0]), fl_name(fl_tested[FL_TESTED_COUNT - 1]),
                      fl_name(fl_tested[FL_TESTED_COUNT - 1]));
}
