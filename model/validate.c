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
 * - The rules are data: ops.def gives each operator its introduction level and module; the
 *   module (model/ops/) gives its checker and, per tensor, the level at which each data type
 *   became legal (dtype_since tables).  A later feature level behaves as its highest
 *   known predecessor (fl_effective); messages quote the level the caller asked for.
 * - Every failure names the field, what was found, what is required and why, e.g.
 *   "OutputTensor.Sizes[1] is 3 but axis 1 is reduced, so it must be 1".
 * - No global mutable state; the only allocation is the bitmap of the exact output-alias
 *   check, freed before returning.
 */
#include "validate.h"

#include "op_module.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "tensor.h"


/* The highest element count DirectML accepts in one tensor (SEMANTICS "Tensors"). */
#define MAX_TENSOR_ELEMENTS UINT64_C(0xffffffff)
/* The exact output-alias check marks one bit per element offset of the layout's span; spans
 * beyond this (16 Mi offsets, a 2 MiB bitmap) are not enumerated (see check_alias_exact). */
#define ALIAS_BITMAP_MAX_SPAN (UINT64_C(1) << 24)


/* ---------------------------------------------------------------------------------------- */
/* Rule tables                                                                               */
/* ---------------------------------------------------------------------------------------- */

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
static bool check_data_type(const validate_ctx *v, const tensor_rule *r, DML_TENSOR_DATA_TYPE type,
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
static bool check_shape(const validate_ctx *v, const tensor_rule *r, const DML_BUFFER_TENSOR_DESC *b,
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
bool validate_tensor(const validate_ctx *v, const tensor_rule *r, const DML_TENSOR_DESC *t,
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
/* Entry points                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* Only DML_FEATURE_LEVEL values at or above the lowest level whose rules dmlcheck knows. */
static bool resolve_level(DML_FEATURE_LEVEL fl, validate_ctx *v, dmlc_error *err)
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
    validate_ctx v = { .op_name = op_table[op].name, .op_flags = op_table[op].flags };
    if (!resolve_level(feature_level, &v, err))
        return false;
    if (v.effective < op_table[op].since) /* SPEC "Availability" */
        return err_set(err, "%s does not exist at feature level %s: it was introduced in %s",
                       v.op_name, fl_name(feature_level), fl_name(op_table[op].since));
    if (!desc)
        return err_set(err, "the %s operator descriptor is NULL", v.op_name);
    return op_table[op].module->check(&v, desc, err);
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
#define OP(id, stem, module, since, flags)                                                  \
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

/* Types from the modules' tables: a type is in the set when it arrived at or before fl. */
static uint32_t types_of(const tensor_rule *r, DML_FEATURE_LEVEL eff)
{
    uint32_t mask = 0;
    for (const dtype_since *t = r ? r->types : NULL; t && t->type != DT(UNKNOWN); t++)
        if (t->since <= eff)
            mask |= 1u << t->type;
    return mask;
}

uint32_t op_input_types_at(op_id op, DML_FEATURE_LEVEL fl)
{
    DML_FEATURE_LEVEL eff = fl_effective(fl);
    if ((unsigned)op >= OP_COUNT || !eff || eff < op_table[op].since)
        return 0;
    return types_of(op_table[op].module->tensors->input, eff);
}

op_type_sets op_types_at(op_id op, DML_FEATURE_LEVEL fl)
{
    op_type_sets s = { 0, 0, 0 };
    DML_FEATURE_LEVEL eff = fl_effective(fl);
    if ((unsigned)op >= OP_COUNT || !eff || eff < op_table[op].since)
        return s;
    const op_tensor_rules *t = op_table[op].module->tensors;
    s.input = types_of(t->input, eff);
    s.output = t->output_is_input_type ? 0 : types_of(t->output, eff);
    s.indices = types_of(t->indices, eff);
    return s;
}
