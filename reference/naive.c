/*
 * naive.c: the spec read literally (see naive.h).  Floats are compared as double (exact for
 * FLOAT16 and FLOAT32), integers as int64 or uint64, with NaN handled by the words of
 * SEMANTICS D4.  (long double was exact on x86 but not under valgrind, which computes it in
 * double precision and so tied INT64_MAX with INT64_MAX-1.)  No keys, no orders, no
 * memory-order walks: shares nothing with reference/ but the harness's bit and half helpers.
 */
#include "naive.h"

#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "half.h"

typedef enum naive_kind { NAIVE_FLOAT, NAIVE_SIGNED, NAIVE_UNSIGNED } naive_kind;

typedef struct naive_value {
    naive_kind kind; /* the same for every value of one case */
    bool is_nan;
    double f;
    int64_t i;
    uint64_t u;
} naive_value;

static uint64_t count_of(unsigned rank, const UINT *sizes)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < rank; i++)
        n *= sizes[i];
    return n;
}

/* Splits a row-major logical index into coordinates. */
static void coords_of(unsigned rank, const UINT *sizes, uint64_t logical, uint64_t *coords)
{
    for (unsigned i = rank; i-- > 0;) {
        coords[i] = logical % sizes[i];
        logical /= sizes[i];
    }
}

/* The next row-major coordinates: the last one counts fastest (coords_of of logical + 1). */
static void coords_next(unsigned rank, const UINT *sizes, uint64_t *coords)
{
    for (unsigned i = rank; i-- > 0;) {
        if (++coords[i] < sizes[i])
            return;
        coords[i] = 0;
    }
}

/* Element offset of coordinates under the tensor's strides (packed when it has none). */
static uint64_t address_of(const case_tensor *t, const uint64_t *coords)
{
    uint64_t offset = 0, packed = 1;
    for (unsigned i = t->rank; i-- > 0;) {
        offset += coords[i] * (t->has_strides ? t->strides[i] : packed);
        packed *= t->sizes[i];
    }
    return offset;
}

static uint64_t input_bits(const dml_case *c, const uint64_t *coords)
{
    return dtype_load_bits(c->input_data, c->input.type, address_of(&c->input, coords));
}

/* "A device without denormals flushes fp32 denormals to signed zero" (SEMANTICS D6). */
static uint64_t maybe_flushed(const dml_case *c, const exec_options *opt, uint64_t bits)
{
    if (opt->flush_denormals && c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32
        && (bits & 0x7f800000u) == 0)
        return bits & 0x80000000u;
    return bits;
}

static naive_value value_of(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    naive_value r = { NAIVE_FLOAT, false, 0, 0, 0 };
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: r.f = float_from_bits((uint32_t)bits); break;
    case DML_TENSOR_DATA_TYPE_FLOAT16: r.f = half_to_float((uint16_t)bits); break;
    case DML_TENSOR_DATA_TYPE_UINT64: r.kind = NAIVE_UNSIGNED; r.u = bits; break;
    case DML_TENSOR_DATA_TYPE_UINT32: r.kind = NAIVE_UNSIGNED; r.u = (uint32_t)bits; break;
    case DML_TENSOR_DATA_TYPE_UINT16: r.kind = NAIVE_UNSIGNED; r.u = (uint16_t)bits; break;
    case DML_TENSOR_DATA_TYPE_UINT8: r.kind = NAIVE_UNSIGNED; r.u = (uint8_t)bits; break;
    case DML_TENSOR_DATA_TYPE_INT64: r.kind = NAIVE_SIGNED; r.i = (int64_t)bits; break;
    case DML_TENSOR_DATA_TYPE_INT32: r.kind = NAIVE_SIGNED; r.i = (int32_t)(uint32_t)bits; break;
    case DML_TENSOR_DATA_TYPE_INT16: r.kind = NAIVE_SIGNED; r.i = (int16_t)(uint16_t)bits; break;
    case DML_TENSOR_DATA_TYPE_INT8: r.kind = NAIVE_SIGNED; r.i = (int8_t)(uint8_t)bits; break;
    default: break;
    }
    r.is_nan = r.kind == NAIVE_FLOAT && isnan(r.f);
    return r;
}

/* -1, 0 or 1 as a is below, equal to or above b; both numbers of the same kind. */
static int compare_numbers(naive_value a, naive_value b)
{
    switch (a.kind) {
    case NAIVE_SIGNED: return (a.i > b.i) - (a.i < b.i);
    case NAIVE_UNSIGNED: return (a.u > b.u) - (a.u < b.u);
    default: return (a.f > b.f) - (a.f < b.f); /* +0 == -0 */
    }
}

/* Is `a` more extreme than `b`?  want_max: ARGMAX and pooling.  NaN per SEMANTICS D4:
 * under "ignore" a NaN never beats a number and a number always beats a NaN; under
 * "propagate" a NaN beats every number.  Two NaNs are never more extreme than each other. */
static bool more_extreme(naive_value a, naive_value b, bool want_max, nan_policy policy)
{
    if (a.is_nan && b.is_nan)
        return false;
    if (a.is_nan)
        return policy == NAN_POLICY_PROPAGATE;
    if (b.is_nan)
        return policy == NAN_POLICY_IGNORE;
    return want_max ? compare_numbers(a, b) > 0 : compare_numbers(a, b) < 0;
}

/* Equal for the tie rule: two NaNs, or two equal numbers (+0 == -0). */
static bool same_rank(naive_value a, naive_value b)
{
    if (a.is_nan || b.is_nan)
        return a.is_nan && b.is_nan;
    return compare_numbers(a, b) == 0;
}

/* ARGMIN/ARGMAX: for each output element, every input element whose non-reduced
 * coordinates match is a candidate; scanning the input in row-major order visits the
 * candidates in increasing reduced index.  INCREASING keeps the first extreme, DECREASING
 * takes every later equal one, so it ends on the last. */
static unsigned naive_arg(const dml_case *c, const exec_options *opt, uint64_t *output)
{
    bool reduced[DML_MAX_RANK] = { false };
    for (unsigned a = 0; a < c->axis_count; a++)
        reduced[c->axes[a]] = true;
    bool want_max = c->op == OP_ARGMAX;
    unsigned classes = 0;
    uint64_t out_n = count_of(c->output.rank, c->output.sizes);
    uint64_t in_n = count_of(c->input.rank, c->input.sizes);
    for (uint64_t o = 0; o < out_n; o++) {
        uint64_t oc[DML_MAX_RANK], ic[DML_MAX_RANK] = { 0 };
        coords_of(c->output.rank, c->output.sizes, o, oc);
        bool have = false;
        naive_value best = { 0 };
        uint64_t best_index = 0;
        for (uint64_t i = 0; i < in_n; i++, coords_next(c->input.rank, c->input.sizes, ic)) {
            bool member = true;
            uint64_t index = 0;
            for (unsigned a = 0; a < c->input.rank; a++) {
                if (reduced[a])
                    index = index * c->input.sizes[a] + ic[a]; /* D2: ascending axes */
                else if (ic[a] != oc[a])
                    member = false;
            }
            if (!member)
                continue;
            naive_value v = value_of(c->input.type, maybe_flushed(c, opt, input_bits(c, ic)));
            if (v.is_nan)
                classes |= CASE_CLASS_NAN;
            bool take = !have || more_extreme(v, best, want_max, opt->nan)
                        || (c->direction == DML_AXIS_DIRECTION_DECREASING && same_rank(v, best));
            if (take) {
                have = true;
                best = v;
                best_index = index;
            }
        }
        output[o] = best_index;
    }
    return classes;
}

/* MAX_POOLING2: for each output element, the window's taps in row-major order; a tap in
 * padding is skipped; the first of equal maxima stays. */
/* MAX_POOLING1 has no Dilations: every tap is one step apart, whatever the case holds. */
static uint64_t dilation(const dml_case *c, unsigned s)
{
    return c->op == OP_MAX_POOLING1 ? 1 : c->dilations[s];
}

static unsigned naive_pool(const dml_case *c, const exec_options *opt, uint64_t *output,
                           uint64_t *indices)
{
    unsigned rank = c->input.rank, spatial = c->spatial_count, classes = 0;
    uint64_t out_n = count_of(rank, c->output.sizes);
    uint64_t window_n = count_of(spatial, c->window);
    for (uint64_t o = 0; o < out_n; o++) {
        uint64_t oc[DML_MAX_RANK], tap[DML_MAX_SPATIAL], ic[DML_MAX_RANK];
        coords_of(rank, c->output.sizes, o, oc);
        bool have = false;
        naive_value best = { 0 };
        uint64_t best_bits = 0, best_flat = 0;
        for (uint64_t t = 0; t < window_n; t++) {
            coords_of(spatial, c->window, t, tap);
            ic[0] = oc[0];
            ic[1] = oc[1];
            bool inside = true;
            for (unsigned s = 0; s < spatial; s++) {
                int64_t at = (int64_t)(oc[2 + s] * c->pool_strides[s]) - (int64_t)c->start_padding[s]
                           + (int64_t)(tap[s] * dilation(c, s));
                if (at < 0 || at >= (int64_t)c->input.sizes[2 + s])
                    inside = false;
                ic[2 + s] = (uint64_t)at;
            }
            if (!inside)
                continue; /* D7: padding never wins */
            uint64_t bits = maybe_flushed(c, opt, input_bits(c, ic));
            naive_value v = value_of(c->input.type, bits);
            if (v.is_nan)
                classes |= CASE_CLASS_NAN;
            if (!have || more_extreme(v, best, true, opt->nan)) {
                have = true;
                best = v;
                best_bits = bits;
                best_flat = 0;
                for (unsigned a = 0; a < rank; a++)
                    best_flat = best_flat * c->input.sizes[a] + ic[a];
            }
        }
        if (!have) {
            classes |= CASE_CLASS_PADDING_WINDOW;
            best_bits = dtype_lowest_bits(c->input.type);
            best_flat = c->indices.present && c->indices.type == DML_TENSOR_DATA_TYPE_UINT32
                            ? 0xFFFFFFFFull : UINT64_MAX;
        }
        output[o] = best_bits;
        if (indices)
            indices[o] = best_flat;
    }
    return classes;
}

/* This oracle names every operator itself (it shares no table with the engine): a new
 * operator without a case here fails to compile (-Wswitch), never runs another's code. */
static bool is_pooling(op_id op)
{
    switch (op) {
    case OP_ARGMIN:
    case OP_ARGMAX:
        return false;
    case OP_MAX_POOLING1:
    case OP_MAX_POOLING2:
        return true;
    case OP_COUNT:
        break;
    }
    fprintf(stderr, "naive: operator %d has no spec-literal implementation\n", (int)op);
    abort();
}

static unsigned naive_once(const dml_case *c, const exec_options *opt, uint64_t *output,
                           uint64_t *indices)
{
    return is_pooling(c->op) ? naive_pool(c, opt, output, indices) : naive_arg(c, opt, output);
}

static bool same_element(DML_TENSOR_DATA_TYPE t, uint64_t a, uint64_t b)
{
    if (dtype_is_float(t) && dtype_bits_is_nan(t, a) && dtype_bits_is_nan(t, b))
        return true;
    return a == b;
}

void naive_run(const dml_case *c, const exec_options *opt, naive_result *r)
{
    uint64_t n = count_of(c->output.rank, c->output.sizes);
    bool has_indices = is_pooling(c->op) && c->indices.present;
    r->output = calloc(n, sizeof *r->output);
    r->indices = has_indices ? calloc(n, sizeof *r->indices) : NULL;
    if (!r->output || (has_indices && !r->indices))
        abort();
    r->classes = naive_once(c, opt, r->output, r->indices);

    /* D6: the class "denormal" means the answer changes when fp32 denormals are flushed. */
    exec_options flushed = *opt;
    flushed.flush_denormals = true;
    uint64_t *out2 = calloc(n, sizeof *out2), *idx2 = calloc(n, sizeof *idx2);
    if (!out2 || !idx2)
        abort();
    naive_once(c, &flushed, out2, has_indices ? idx2 : NULL);
    for (uint64_t i = 0; i < n; i++)
        if (!same_element(c->output.type, r->output[i], out2[i])
            || (has_indices && r->indices[i] != idx2[i]))
            r->classes |= CASE_CLASS_DENORMAL;
    free(out2);
    free(idx2);
}

void naive_result_free(naive_result *r)
{
    free(r->output);
    free(r->indices);
    memset(r, 0, sizeof *r);
}
