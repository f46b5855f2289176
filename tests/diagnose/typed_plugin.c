/*
 * typed_plugin.c: a plain-loop plug-in (dmlcheck/plugin.h) of ARGMIN, ARGMAX, MAX_POOLING1 and
 * MAX_POOLING2 on every input type DirectML allows (FLOAT32, FLOAT16, INT8 to UINT32, INT64,
 * UINT64), for measuring diagnosis by probing (tests/diagnose/test_diagnose.c,
 * docs/DIAGNOSIS.md) beyond the FLOAT32-only example.  Its structure follows
 * tests/plugin/reference_plugin.c (descriptors read through case_from_desc); the operators are
 * its own loops over logical coordinates, so each bug= argument plants one root cause where
 * real code of this kind goes wrong, named after the catalogue id it must be confirmed as:
 *
 *   bug=seed_zero        running best starts at 0, index unset     best_seeded_with_zero
 *   bug=seed_type_min    running best starts at the type's lowest  best_seeded_with_type_min
 *   bug=unsigned_signed  unsigned elements loaded sign-extended    unsigned_read_as_signed
 *   bug=int64_32         64-bit elements loaded into 32 bits       int64_compared_as_32_bits
 *   bug=fp16_bits        FLOAT16 compared as its int16 bits        float_compared_as_int_bits
 *   bug=ftz              denormals flushed (inputs and output)     denormals_flushed
 *   bug=daz              denormals compared as 0, own bits out     denormals_compared_as_zero
 *   bug=nan_first        `isnan(v) || v > best`, NaN best kept      nan_propagates_first
 *   bug=nan_last         `isnan(v) || v > best`                     nan_propagates_last
 *   bug=nan_restarts     `!(v <= best)`                             nan_restarts
 *   bug=ties             `>=` where `>` was meant                   tie_direction_flipped
 *   bug=window_index     pooling index = position in the window    pool_index_within_window
 *   bug=out_index        pooling index flattened with the output's strides
 *                                                                   pool_index_from_output_strides
 *   bug=idx_strides      indices' Strides ignored (the size test)  indices_strides_ignored
 *   bug=stride0          a 0 stride taken as "packed"              zero_stride_read_as_packed
 *   bug=pad_lowest       padding read as the type's lowest value   padding_as_lowest_value
 *   bug=dilation_w       the last axis's dilation ignored          dilation_ignored_last_axis
 *   bug=stride_w         the last axis's window stride ignored     window_stride_ignored_last_axis
 *   bug=ceil             outputs counted with the floor formula    ceil_output_never_written
 *   bug=launch64         work launched in groups of 64, rounded down
 *                                                                   outputs_rounded_down_64
 *   bug=u64_as_i32       UINT64 elements loaded into a signed 32-bit int
 *                                                                   uint64_read_as_int32
 *   bug=pad_window_zero  a window wholly in padding writes 0 and index 0 (OpenVINO's INT16
 *                        MaxPool): unspecified (D7), so no cause may be confirmed from it
 *   bug=seed_plane_start pooling with indices: the running best starts at the type's lowest
 *                        (FLOAT32 -FLT_MAX) indexed at the plane's first element (OpenVINO)
 *                                                                   best_seeded_at_plane_start
 *   bug=int_via_f32      32/64-bit integer pooling without indices rounded through float32
 *                        with 2+ channels or padding >= the window (OpenVINO)
 *                                                                   integers_pooled_as_float32
 * Built for tests only: it links dmlcheck's model for descriptors and element bits.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmlcheck/plugin.h"
#include "dtype.h"
#include "half.h"
#include "op_module.h"

#define BUGS(X) X(NONE, "") X(SEED_ZERO, "seed_zero") X(SEED_TYPE_MIN, "seed_type_min")        \
    X(UNSIGNED_SIGNED, "unsigned_signed") X(INT64_32, "int64_32") X(FP16_BITS, "fp16_bits")    \
    X(FTZ, "ftz") X(DAZ, "daz") X(NAN_FIRST, "nan_first") X(NAN_LAST, "nan_last")              \
    X(NAN_RESTARTS, "nan_restarts") X(TIES, "ties") X(WINDOW_INDEX, "window_index")            \
    X(OUT_INDEX, "out_index") X(IDX_STRIDES, "idx_strides") X(STRIDE0, "stride0")              \
    X(PAD_LOWEST, "pad_lowest") X(DILATION_W, "dilation_w") X(STRIDE_W, "stride_w")            \
    X(CEIL, "ceil") X(LAUNCH64, "launch64") X(PAD_WINDOW_ZERO, "pad_window_zero")         \
    X(U64_AS_I32, "u64_as_i32") X(SEED_PLANE_START, "seed_plane_start") X(INT_VIA_F32, "int_via_f32")

typedef enum bug {
#define X(id, name) BUG_##id,
    BUGS(X)
#undef X
    BUG_COUNT
} bug;

static const char *const bug_names[] = {
#define X(id, name) name,
    BUGS(X)
#undef X
};

typedef struct context {
    unsigned bugs; /* bit (1u << BUG_x) per planted bug */
} context;

static bool planted(const context *ctx, bug b)
{
    return (ctx->bugs >> b) & 1u;
}

/* A tensor as the loops read it: sizes and element strides. */
typedef struct tensor {
    DML_TENSOR_DATA_TYPE type;
    unsigned rank;
    uint32_t sizes[DML_MAX_RANK];
    uint64_t strides[DML_MAX_RANK];
    uint64_t elements, bytes;
} tensor;

typedef struct op {
    dml_case c;           /* the descriptor as dmlcheck's model reads it */
    tensor in, out, idx;
    bool pooling, minimize, decreasing, has_idx;
    bool reduced[DML_MAX_RANK]; /* ARGMIN/ARGMAX: the axes Axes lists */
} op;

/* A number as this plug-in compares it: a double for floats, 64-bit integers otherwise. */
typedef enum number_kind { NUM_FLOAT, NUM_SIGNED, NUM_UNSIGNED } number_kind;
typedef struct number {
    number_kind kind;
    bool nan;
    double f;
    int64_t i;
    uint64_t u;
} number;

static dmlcheck_status say(char *message, size_t size, dmlcheck_status s, const char *text)
{
    snprintf(message, size, "%s", text);
    return s;
}

/* ---- reading values ----------------------------------------------------------------- */

static int64_t sign_extend(uint64_t bits, unsigned width)
{
    return width == 64 ? (int64_t)bits : (int64_t)(bits << (64 - width)) >> (64 - width);
}

/* All ones in the type's width. */
static uint64_t type_mask(DML_TENSOR_DATA_TYPE t)
{
    return dtype_size(t) == 8 ? UINT64_MAX : (1ull << dtype_size(t) * 8) - 1;
}

/* The bits of a float type's zero of the same sign where bits is a denormal (exponent 0). */
static uint64_t flushed(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    uint64_t sign = 1ull << (dtype_size(t) * 8 - 1);
    uint64_t exponent = t == DML_TENSOR_DATA_TYPE_FLOAT16 ? 0x7C00u : 0x7F800000u;
    return (bits & exponent) ? bits : bits & sign;
}

/* A float type's value; bug=ftz and bug=daz compare a denormal as the zero of its sign. */
static number load_float(const context *ctx, DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT16 && planted(ctx, BUG_FP16_BITS)) /* a radix key's bug */
        return (number){ .kind = NUM_SIGNED, .i = sign_extend(bits, 16) };
    if (planted(ctx, BUG_FTZ) || planted(ctx, BUG_DAZ))
        bits = flushed(t, bits);
    double f = t == DML_TENSOR_DATA_TYPE_FLOAT16 ? half_to_float((uint16_t)bits)
                                                 : float_from_bits((uint32_t)bits);
    return (number){ .kind = NUM_FLOAT, .nan = isnan(f), .f = f };
}

static number load_number(const context *ctx, DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    unsigned width = dtype_size(t) * 8;
    if (dtype_is_float(t))
        return load_float(ctx, t, bits);
    if (width == 64 && planted(ctx, BUG_INT64_32)) { /* held in a 32-bit register */
        bits &= 0xFFFFFFFFu;
        width = 32;
    }
    if (t == DML_TENSOR_DATA_TYPE_UINT64 && planted(ctx, BUG_U64_AS_I32)) /* an int32_t local */
        return (number){ .kind = NUM_SIGNED, .i = sign_extend(bits & 0xFFFFFFFFu, 32) };
    if (dtype_is_signed_int(t) || planted(ctx, BUG_UNSIGNED_SIGNED))
        return (number){ .kind = NUM_SIGNED, .i = sign_extend(bits, width) };
    return (number){ .kind = NUM_UNSIGNED, .u = bits };
}

/* -1, 0, 1 as a is below, equal to or above b (neither NaN); +0 and -0 are equal (D3). */
static int compare_numbers(const number *a, const number *b)
{
    switch (a->kind) {
    case NUM_FLOAT: return (a->f > b->f) - (a->f < b->f);
    case NUM_SIGNED: return (a->i > b->i) - (a->i < b->i);
    default: return (a->u > b->u) - (a->u < b->u);
    }
}

/* ---- the running best --------------------------------------------------------------- */

/* Whether the NaN bugs' scan is in use: they scan DECREASING backwards (strict `>`). */
static bool nan_bug(const context *ctx)
{
    return planted(ctx, BUG_NAN_FIRST) || planted(ctx, BUG_NAN_LAST) || planted(ctx, BUG_NAN_RESTARTS);
}

/* Whether cand replaces best; `later` says that an equal one does (D3). */
static bool beats(const context *ctx, const op *o, const number *cand, const number *best, bool later)
{
    int c = cand->nan || best->nan ? 0 : compare_numbers(cand, best);
    c = o->minimize ? -c : c;
    if (planted(ctx, BUG_NAN_FIRST))
        return !best->nan && (cand->nan || c > 0);
    if (planted(ctx, BUG_NAN_LAST))
        return cand->nan || (!best->nan && c > 0);
    if (planted(ctx, BUG_NAN_RESTARTS))
        return cand->nan || best->nan || c > 0;
    if (cand->nan || best->nan) /* D4, ignore: a NaN never beats a number */
        return cand->nan ? best->nan && later : true;
    return c > 0 || (c == 0 && later);
}

/* The bits a seeded running best starts from: 0, or the type's losing end. */
static bool seed_bits(const context *ctx, const op *o, uint64_t *bits)
{
    DML_TENSOR_DATA_TYPE t = o->in.type;
    if (planted(ctx, BUG_SEED_ZERO)) {
        *bits = 0;
        return true;
    }
    if (!planted(ctx, BUG_SEED_TYPE_MIN))
        return false;
    *bits = dtype_lowest_bits(t);
    if (o->minimize) /* the highest: +inf is -inf's sign flipped; an integer's, all bits flipped */
        *bits ^= dtype_is_float(t) ? 1ull << (dtype_size(t) * 8 - 1) : type_mask(t);
    return true;
}

typedef struct best {
    bool found;
    number value;
    uint64_t bits, index;
} best;

static void best_start(const context *ctx, const op *o, best *b, uint64_t unset_index)
{
    *b = (best){ .index = unset_index };
    b->found = seed_bits(ctx, o, &b->bits);
    if (b->found)
        b->value = load_number(ctx, o->in.type, b->bits);
}

static void best_offer(const context *ctx, const op *o, best *b, uint64_t bits, uint64_t index, bool later)
{
    number v = load_number(ctx, o->in.type, bits);
    if (!b->found || beats(ctx, o, &v, &b->value, later))
        *b = (best){ .found = true, .value = v, .bits = bits, .index = index };
}

/* ---- writing ------------------------------------------------------------------------ */

static uint64_t offset_of(const tensor *t, uint64_t logical)
{
    uint64_t off = 0;
    for (unsigned i = t->rank; i-- > 0;) {
        off += (logical % t->sizes[i]) * t->strides[i];
        logical /= t->sizes[i];
    }
    return off;
}

static void coords_of(const tensor *t, uint64_t logical, uint32_t *coords)
{
    for (unsigned i = t->rank; i-- > 0;) {
        coords[i] = (uint32_t)(logical % t->sizes[i]);
        logical /= t->sizes[i];
    }
}

/* Output elements the launch covers: bug=launch64 launches whole groups of 64 (at least
 * one), each thread without a bounds test beyond its group's count. */
static uint64_t launched(const context *ctx, uint64_t elements)
{
    if (!planted(ctx, BUG_LAUNCH64) || elements < 64)
        return elements;
    return elements / 64 * 64;
}

/* ---- ARGMIN / ARGMAX ---------------------------------------------------------------- */

/* Input offset of reduction position r next to output coordinates oc (D2: row-major over the
 * reduced axes in ascending order). */
static uint64_t reduced_offset(const op *o, const uint32_t *oc, uint64_t r)
{
    uint64_t off = 0;
    for (unsigned i = o->in.rank; i-- > 0;) {
        uint32_t coord = oc[i];
        if (o->reduced[i]) {
            coord = (uint32_t)(r % o->in.sizes[i]);
            r /= o->in.sizes[i];
        }
        off += coord * o->in.strides[i];
    }
    return off;
}

static void run_arg_reduce(const context *ctx, const op *o, const dmlcheck_buffers *b)
{
    uint64_t group = o->in.elements / o->out.elements;
    bool backwards = nan_bug(ctx) && o->decreasing;
    bool later = !backwards && (o->decreasing != planted(ctx, BUG_TIES));
    for (uint64_t out = 0; out < launched(ctx, o->out.elements); out++) {
        uint32_t oc[DML_MAX_RANK];
        coords_of(&o->out, out, oc);
        best bst;
        best_start(ctx, o, &bst, 0);
        for (uint64_t step = 0; step < group; step++) {
            uint64_t r = backwards ? group - 1 - step : step;
            uint64_t bits = dtype_load_bits(b->input, o->in.type, reduced_offset(o, oc, r));
            best_offer(ctx, o, &bst, bits, r, later);
        }
        dtype_store_bits(b->output, o->out.type, offset_of(&o->out, out), bst.index);
    }
}

/* ---- pooling ------------------------------------------------------------------------ */

/* Input coordinates of window position k of output oc; false when it lies in padding. */
static bool window_coords(const context *ctx, const op *o, const uint32_t *oc, uint64_t k, uint32_t *ic)
{
    const dml_case *c = &o->c;
    bool inside = true;
    ic[0] = oc[0];
    ic[1] = oc[1];
    for (unsigned s = c->spatial_count; s-- > 0;) {
        bool last = s + 1 == c->spatial_count;
        int64_t dilation = last && planted(ctx, BUG_DILATION_W) ? 1 : c->dilations[s];
        int64_t stride = last && planted(ctx, BUG_STRIDE_W) ? 1 : c->pool_strides[s];
        int64_t pos = oc[2 + s] * stride + (int64_t)(k % c->window[s]) * dilation - c->start_padding[s];
        k /= c->window[s];
        inside &= pos >= 0 && pos < (int64_t)o->in.sizes[2 + s];
        ic[2 + s] = inside ? (uint32_t)pos : 0;
    }
    return inside;
}

/* The index written for the winner at ic, window position k. */
static uint64_t pool_index(const context *ctx, const op *o, const uint32_t *ic, uint64_t k)
{
    if (planted(ctx, BUG_WINDOW_INDEX))
        return k;
    uint64_t flat = 0;
    for (unsigned i = 0; i < o->in.rank; i++)
        flat = planted(ctx, BUG_OUT_INDEX) ? flat + ic[i] * o->out.strides[i]
                                           : flat * o->in.sizes[i] + ic[i];
    return flat;
}

/* bug=ceil: whether the plug-in's own output count, the floor formula, has this output. */
static bool floor_output(const context *ctx, const op *o, const uint32_t *oc)
{
    const dml_case *c = &o->c;
    for (unsigned s = 0; planted(ctx, BUG_CEIL) && s < c->spatial_count; s++) {
        uint64_t dilated = (uint64_t)(c->window[s] - 1) * c->dilations[s] + 1;
        uint64_t padded = o->in.sizes[2 + s] + c->start_padding[s] + c->end_padding[s];
        if (oc[2 + s] >= (padded - dilated) / c->pool_strides[s] + 1)
            return false;
    }
    return true;
}

/* bug=int_via_f32: whether OpenVINO's float32 path is taken: 32/64-bit integers without an
 * indices output, with two or more channels or padding at least the window's size. */
static bool through_float32(const context *ctx, const op *o)
{
    DML_TENSOR_DATA_TYPE t = o->in.type;
    if (!planted(ctx, BUG_INT_VIA_F32) || dtype_is_float(t) || dtype_size(t) < 4 || o->has_idx)
        return false;
    bool padded = false;
    for (unsigned s = 0; s < o->c.spatial_count; s++)
        padded |= o->c.start_padding[s] >= o->c.window[s] || o->c.end_padding[s] >= o->c.window[s];
    return o->in.sizes[1] >= 2 || padded;
}

/* An integer held in a float32 (nearest, ties to even), saturated at the largest float32 the
 * type holds, and stored back. */
static uint64_t float32_held(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    unsigned width = dtype_size(t) * 8;
    bool is_signed = dtype_is_signed_int(t);
    float f = is_signed ? (float)sign_extend(bits, width) : (float)bits;
    float highest = nextafterf(ldexpf(1.0f, (int)width - is_signed), 0.0f);
    f = f > highest ? highest : f;
    return (is_signed ? (uint64_t)(int64_t)f : (uint64_t)f) & type_mask(t);
}

/* The bits written for the winner: bug=ftz flushes a denormal result as well. */
static uint64_t pooled_bits(const context *ctx, const op *o, uint64_t bits)
{
    DML_TENSOR_DATA_TYPE t = o->in.type;
    if (through_float32(ctx, o))
        return float32_held(t, bits);
    return planted(ctx, BUG_FTZ) && dtype_is_float(t) ? flushed(t, bits) : bits;
}

/* bug=seed_plane_start: with an indices output, a running best of the type's lowest value
 * (FLOAT32 -FLT_MAX, FLOAT16 -inf, an integer's minimum) at the first element of the output's
 * N, C plane, which only a greater element replaces (OpenVINO's MaxPool-8). */
static void plane_start_seed(const context *ctx, const op *o, const uint32_t *oc, best *bst)
{
    DML_TENSOR_DATA_TYPE t = o->in.type;
    uint64_t plane = 1;
    for (unsigned s = 0; s < o->c.spatial_count; s++)
        plane *= o->in.sizes[2 + s];
    bst->found = true;
    bst->bits = t == DML_TENSOR_DATA_TYPE_FLOAT32 ? float_to_bits(-FLT_MAX) : dtype_lowest_bits(t);
    bst->value = load_number(ctx, t, bst->bits);
    bst->index = ((uint64_t)oc[0] * o->in.sizes[1] + oc[1]) * plane;
}

static void pool_one(const context *ctx, const op *o, const dmlcheck_buffers *b, const uint32_t *oc, best *bst)
{
    uint64_t taps = 1;
    for (unsigned s = 0; s < o->c.spatial_count; s++)
        taps *= o->c.window[s];
    best_start(ctx, o, bst, UINT64_MAX);
    if (o->has_idx && planted(ctx, BUG_SEED_PLANE_START))
        plane_start_seed(ctx, o, oc, bst);
    for (uint64_t k = 0; k < taps; k++) { /* row-major: the first of equals wins (D3) */
        uint32_t ic[DML_MAX_RANK];
        bool inside = window_coords(ctx, o, oc, k, ic);
        if (!inside && !planted(ctx, BUG_PAD_LOWEST))
            continue; /* D7: padding never wins */
        uint64_t off = 0;
        for (unsigned i = 0; inside && i < o->in.rank; i++)
            off += ic[i] * o->in.strides[i];
        uint64_t bits = inside ? dtype_load_bits(b->input, o->in.type, off) : dtype_lowest_bits(o->in.type);
        best_offer(ctx, o, bst, bits, inside ? pool_index(ctx, o, ic, k) : UINT64_MAX, planted(ctx, BUG_TIES));
    }
}

static void run_pooling(const context *ctx, const op *o, const dmlcheck_buffers *b)
{
    for (uint64_t out = 0; out < launched(ctx, o->out.elements); out++) {
        uint32_t oc[DML_MAX_RANK];
        coords_of(&o->out, out, oc);
        if (!floor_output(ctx, o, oc))
            continue;
        best bst;
        pool_one(ctx, o, b, oc, &bst);
        bool zero = !bst.found && planted(ctx, BUG_PAD_WINDOW_ZERO);
        uint64_t bits = bst.found ? pooled_bits(ctx, o, bst.bits) : zero ? 0 : dtype_lowest_bits(o->in.type);
        dtype_store_bits(b->output, o->out.type, offset_of(&o->out, out), bits);
        if (o->has_idx)
            dtype_store_bits(b->output_indices, o->idx.type, offset_of(&o->idx, out), zero ? 0 : bst.index);
    }
}

/* ---- descriptors -------------------------------------------------------------------- */

static void packed_strides(const tensor *t, uint64_t *strides)
{
    uint64_t packed = 1;
    for (unsigned i = t->rank; i-- > 0; packed *= t->sizes[i])
        strides[i] = packed;
}

/* Whether the buffer holds every element read through `strides`. */
static bool has_room(const tensor *t, const uint64_t *strides)
{
    uint64_t last = 0;
    for (unsigned i = 0; i < t->rank; i++)
        last += (uint64_t)(t->sizes[i] - 1) * strides[i];
    return (last + 1) * dtype_size(t->type) <= t->bytes;
}

static void tensor_from(const case_tensor *ct, tensor *t)
{
    *t = (tensor){ .type = ct->type, .rank = ct->rank, .bytes = case_tensor_bytes(ct),
                   .elements = case_tensor_elements(ct) };
    memcpy(t->sizes, ct->sizes, sizeof(uint32_t) * ct->rank);
    packed_strides(t, t->strides);
    for (unsigned i = 0; ct->has_strides && i < ct->rank; i++)
        t->strides[i] = ct->strides[i];
}

/* bug=stride0: a 0 stride read as "not given", the packed one, where the buffer has room
 * (a reading past it would crash the test rather than answer). */
static void zero_strides_packed(tensor *t)
{
    uint64_t packed[DML_MAX_RANK], strides[DML_MAX_RANK];
    packed_strides(t, packed);
    for (unsigned i = 0; i < t->rank; i++)
        strides[i] = t->strides[i] ? t->strides[i] : packed[i];
    if (has_room(t, strides))
        memcpy(t->strides, strides, sizeof strides);
}

/* bug=idx_strides: the indices taken as packed when the buffer has room for that. */
static void packed_if_room(tensor *t)
{
    uint64_t packed[DML_MAX_RANK];
    packed_strides(t, packed);
    if (has_room(t, packed))
        memcpy(t->strides, packed, sizeof packed);
}

static void op_from_case(const context *ctx, op *o)
{
    const dml_case *c = &o->c;
    o->pooling = !case_module(c)->output_is_index;
    o->minimize = c->op == OP_ARGMIN;
    o->decreasing = !o->pooling && c->direction == DML_AXIS_DIRECTION_DECREASING;
    o->has_idx = o->pooling && c->indices.present;
    for (unsigned i = 0; !o->pooling && i < c->axis_count; i++)
        o->reduced[c->axes[i]] = true;
    tensor_from(&c->input, &o->in);
    tensor_from(&c->output, &o->out);
    if (o->has_idx)
        tensor_from(&c->indices, &o->idx);
    if (planted(ctx, BUG_STRIDE0))
        zero_strides_packed(&o->in);
    if (o->has_idx && planted(ctx, BUG_IDX_STRIDES))
        packed_if_room(&o->idx);
}

static dmlcheck_status typed_create(void *ctx_in, const DML_OPERATOR_DESC *desc,
                                    DML_FEATURE_LEVEL feature_level, void **op_out,
                                    char *message, size_t size)
{
    op_id id = op_from_dml_type(desc->Type);
    if (id == OP_COUNT)
        return say(message, size, DMLCHECK_UNSUPPORTED, "not an operator dmlcheck knows");
    op *o = calloc(1, sizeof *o);
    if (!o)
        return say(message, size, DMLCHECK_ERROR, "out of memory");
    case_init(&o->c);
    dmlc_error err = { 0 };
    if (!case_from_desc(id, desc->Desc, feature_level, &o->c, &err)) {
        case_free(&o->c);
        free(o);
        return say(message, size, DMLCHECK_INVALID, err.msg);
    }
    op_from_case(ctx_in, o);
    *op_out = o;
    return DMLCHECK_OK;
}

static dmlcheck_status typed_execute(void *ctx_in, void *op_in, const dmlcheck_buffers *b,
                                     char *message, size_t size)
{
    const op *o = op_in;
    (void)message;
    (void)size;
    if (o->pooling)
        run_pooling(ctx_in, o, b);
    else
        run_arg_reduce(ctx_in, o, b);
    return DMLCHECK_OK;
}

/* ---- the plug-in table -------------------------------------------------------------- */

static dmlcheck_status unknown_argument(const char *arg, char *message, size_t size)
{
    size_t n = (size_t)snprintf(message, size, "unknown argument '%s' (bug=", arg);
    for (size_t k = 1; k < BUG_COUNT && n < size; k++)
        n += (size_t)snprintf(message + n, size - n, "%s%s", bug_names[k], k + 1 < BUG_COUNT ? ", bug=" : ")");
    return DMLCHECK_ERROR;
}

static dmlcheck_status typed_open(const char *const *args, void **ctx_out, char *message, size_t size)
{
    context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return say(message, size, DMLCHECK_ERROR, "out of memory");
    for (size_t i = 0; args && args[i]; i++) {
        size_t k = 1;
        while (k < BUG_COUNT && (strncmp(args[i], "bug=", 4) || strcmp(args[i] + 4, bug_names[k])))
            k++;
        if (k == BUG_COUNT) {
            free(ctx);
            return unknown_argument(args[i], message, size);
        }
        ctx->bugs |= 1u << k;
    }
    *ctx_out = ctx;
    return DMLCHECK_OK;
}

static dmlcheck_status typed_capabilities(void *ctx_in, dmlcheck_capabilities *caps)
{
    static const DML_OPERATOR_TYPE operators[] = {
        DML_OPERATOR_ARGMIN, DML_OPERATOR_ARGMAX, DML_OPERATOR_MAX_POOLING1, DML_OPERATOR_MAX_POOLING2,
    };
    (void)ctx_in;
    caps->max_feature_level = DML_FEATURE_LEVEL_5_0;
    caps->operators = operators;
    caps->operator_count = sizeof operators / sizeof operators[0];
    caps->input_types = 0; /* every type */
    caps->flags = 0;
    return DMLCHECK_OK;
}

static void typed_info(void *ctx_in, dmlcheck_info *info)
{
    (void)ctx_in;
    snprintf(info->platform, sizeof info->platform, "dmlcheck typed test plug-in");
    snprintf(info->device, sizeof info->device, "host CPU, plain loops");
    snprintf(info->driver, sizeof info->driver, "%s", DMLCHECK_VERSION);
}

static void typed_destroy(void *ctx_in, void *op_in)
{
    op *o = op_in;
    (void)ctx_in;
    case_free(&o->c);
    free(o);
}

static void typed_close(void *ctx_in)
{
    free(ctx_in);
}

static const dmlcheck_plugin typed_plugin = {
    .abi_version = DMLCHECK_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(dmlcheck_plugin),
    .name = "typed",
    .version = DMLCHECK_VERSION,
    .open = typed_open,
    .capabilities = typed_capabilities,
    .info = typed_info,
    .create = typed_create,
    .execute = typed_execute,
    .destroy = typed_destroy,
    .close = typed_close,
};

DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t harness_abi_version)
{
    return harness_abi_version == DMLCHECK_PLUGIN_ABI_VERSION ? &typed_plugin : NULL;
}
