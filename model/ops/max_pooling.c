/*
 * max_pooling.c: the max-pooling module (op_module.h): MAX_POOLING2 (with Dilations,
 * OPF_DILATIONS) and MAX_POOLING1, which is MAX_POOLING2 with every dilation 1 (its page:
 * docs/SEMANTICS.md "MAX_POOLING1").  A MAX_POOLING1 case keeps dilations of 1 in its plain
 * fields, so the geometry, the reference and the backends need not know which it is.
 *
 * Geometry (SEMANTICS D7, D8): output element (n, c, o...) pools the window whose tap k of
 * spatial dimension s sits at o[s] * Strides[s] + k * Dilations[s] - StartPadding[s]; taps
 * outside the input are padding, which never wins.  Indices count the whole input as one
 * flat row-major array.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "dtype.h"
#include "op_module.h"
#include "tensor.h"

/* SPEC MAX_POOLING2 "Tensor support": FLOAT32, FLOAT16 from its introduction (MAX_POOLING1:
 * FL 2_0, MAX_POOLING2: 2_1; ops.def gates the operator first); FL 3_0 adds INT8, UINT8;
 * SEMANTICS: FL 5_0 adds the wider integers (newest doc edition). */
static const dtype_since pooling_value_types[] = {
    { DT(FLOAT32), FL(2_0) }, { DT(FLOAT16), FL(2_0) }, { DT(INT8), FL(3_0) },
    { DT(UINT8), FL(3_0) },   { DT(INT32), FL(5_0) },   { DT(INT16), FL(5_0) },
    { DT(UINT32), FL(5_0) },  { DT(UINT16), FL(5_0) },  { DT(INT64), FL(5_0) },
    { DT(UINT64), FL(5_0) },  { DT(UNKNOWN), 0 },
};
/* SPEC MAX_POOLING1/2: indices UINT32; SEMANTICS: UINT64 from FL 5_0. */
static const dtype_since pooling_index_types[] = {
    { DT(UINT32), FL(2_0) }, { DT(UINT64), FL(5_0) }, { DT(UNKNOWN), 0 },
};

/* SPEC MAX_POOLING2 "Supported dimension counts": 4 to 5 for all three tensors. */
static const tensor_rule pooling_input = { "InputTensor", false, 4, 5, pooling_value_types };
static const tensor_rule pooling_output = { "OutputTensor", true, 4, 5, pooling_value_types };
static const tensor_rule pooling_indices = { "OutputIndicesTensor", true, 4, 5, pooling_index_types };


/* SPEC: DimensionCount is 2 for 4-D and 3 for 5-D input (checked before any array is read);
 * every pooling array is required; all three tensors share the rank. */
static bool check_pool_layout(const validate_ctx *v, const DML_MAX_POOLING2_OPERATOR_DESC *d,
                              const DML_BUFFER_TENSOR_DESC *in,
                              const DML_BUFFER_TENSOR_DESC *out, const DML_BUFFER_TENSOR_DESC *idx,
                              dmlc_error *err)
{
    if (d->DimensionCount != 2 && d->DimensionCount != 3)
        return err_set(err, "DimensionCount is %u but %s pools 2 or 3 spatial dimensions",
                       d->DimensionCount, v->op_name);
    if (d->DimensionCount != in->DimensionCount - 2)
        return err_set(err, "DimensionCount is %u but InputTensor.DimensionCount is %u, which has %u "
                       "spatial dimensions after N and C", d->DimensionCount, in->DimensionCount,
                       in->DimensionCount - 2);
    static const char *const names[] = { "Strides", "WindowSize", "StartPadding", "EndPadding", "Dilations" };
    const UINT *arrays[] = { d->Strides, d->WindowSize, d->StartPadding, d->EndPadding, d->Dilations };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (!arrays[i])
            return err_set(err, "%s is NULL but %s requires DimensionCount (%u) values",
                           names[i], v->op_name, d->DimensionCount);
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
    /* No output: a window that does not fit, or a stride of 0 (an invalid descriptor, which
     * coverage still describes). */
    if (e->dilated > e->padded || d->Strides[i] == 0)
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

/* MAX_POOLING1's descriptor is MAX_POOLING2's without its last member, Dilations. */
_Static_assert(offsetof(DML_MAX_POOLING1_OPERATOR_DESC, EndPadding)
                   == offsetof(DML_MAX_POOLING2_OPERATOR_DESC, EndPadding)
               && offsetof(DML_MAX_POOLING1_OPERATOR_DESC, OutputIndicesTensor)
                   == offsetof(DML_MAX_POOLING2_OPERATOR_DESC, OutputIndicesTensor)
               && sizeof(DML_MAX_POOLING1_OPERATOR_DESC) <= offsetof(DML_MAX_POOLING2_OPERATOR_DESC, Dilations),
               "MAX_POOLING1 must be a prefix of MAX_POOLING2");

/* Every dilation of an operator without Dilations: 1 (DimensionCount is at most 3 by the
 * time an array is read; check_pool_layout checks it first). */
static const UINT unit_dilations[DML_MAX_SPATIAL] = { 1, 1, 1 };

/* MAX_POOLING2's rules; MAX_POOLING1 is read as MAX_POOLING2 with every dilation 1, never
 * past the end of its own (shorter) struct. */
static bool check_max_pooling(const validate_ctx *v, const void *desc, dmlc_error *err)
{
    DML_MAX_POOLING2_OPERATOR_DESC widened;
    if (!(v->op_flags & OPF_DILATIONS)) {
        memcpy(&widened, desc, sizeof(DML_MAX_POOLING1_OPERATOR_DESC));
        widened.Dilations = unit_dilations;
        desc = &widened;
    }
    const DML_MAX_POOLING2_OPERATOR_DESC *d = desc;
    const DML_BUFFER_TENSOR_DESC *in = NULL, *out = NULL, *idx = NULL;
    /* DirectML binds the two outputs as separate buffers; one descriptor for both means the
     * caller meant them to be the same memory, which would alias. */
    if (d->OutputIndicesTensor && d->OutputIndicesTensor == d->OutputTensor)
        return err_set(err, "OutputIndicesTensor is the same DML_TENSOR_DESC as OutputTensor; the two "
                       "outputs are separate buffers and must not alias");
    if (!validate_tensor(v, &pooling_input, d->InputTensor, &in, err)
        || !validate_tensor(v, &pooling_output, d->OutputTensor, &out, err)
        || (d->OutputIndicesTensor && !validate_tensor(v, &pooling_indices, d->OutputIndicesTensor, &idx, err)))
        return false;
    if (out->DataType != in->DataType) /* SPEC "Tensor constraints" */
        return err_set(err, "OutputTensor.DataType %s differs from InputTensor.DataType %s; "
                       "%s outputs the input's data type", dtype_name(out->DataType),
                       dtype_name(in->DataType), v->op_name);
    return check_pool_layout(v, d, in, out, idx, err) && check_pool_params(d, err)
        && check_pool_sizes(d, in, out, idx, err);
}


/* ---- Descriptor and case file ----------------------------------------------------------- */

#define POOL_ARRAY(name, member, flags, param)                                                \
    { name, OP_FIELD_UINTS, true, flags, offsetof(dml_case, member),                          \
      offsetof(dml_case, spatial_count), DML_MAX_SPATIAL, param }
static const op_field max_pooling_fields[] = {
    { "OutputIndicesTensor", OP_FIELD_TENSOR, false, 0, offsetof(dml_case, indices), 0, 0,
      "indices" },
    POOL_ARRAY("Strides", pool_strides, 0, "strides"),
    POOL_ARRAY("WindowSize", window, 0, "window"),
    POOL_ARRAY("StartPadding", start_padding, 0, "start_padding"),
    POOL_ARRAY("EndPadding", end_padding, 0, "end_padding"),
    POOL_ARRAY("Dilations", dilations, OPF_DILATIONS, "dilations"),
    { NULL, 0, false, 0, 0, 0, 0, NULL },
};

static void max_pooling_link(dml_case *c)
{
    /* An operator without Dilations pools with every dilation 1 (a MAX_POOLING1 case file
     * has no Dilations field); MAX_POOLING1's descriptor is a prefix of this one. */
    if (!(op_table[c->op].flags & OPF_DILATIONS))
        for (UINT s = 0; s < DML_MAX_SPATIAL; s++)
            c->dilations[s] = 1;
    c->dml.max_pooling2 = (DML_MAX_POOLING2_OPERATOR_DESC){
        &c->input.desc, &c->output.desc, c->indices.present ? &c->indices.desc : NULL,
        c->spatial_count, c->pool_strides, c->window, c->start_padding, c->end_padding,
        c->dilations,
    };
    c->op_desc.Desc = &c->dml.max_pooling2;
}

static bool max_pooling_from_desc(const void *desc, dml_case *c, dmlc_error *err)
{
    const DML_MAX_POOLING2_OPERATOR_DESC *d = desc; /* MAX_POOLING1: a prefix, see above */
    bool dilations = op_table[c->op].flags & OPF_DILATIONS;
    if (!case_tensor_from_desc(&c->input, d->InputTensor, "InputTensor", err)
        || !case_tensor_from_desc(&c->output, d->OutputTensor, "OutputTensor", err)
        || (d->OutputIndicesTensor
            && !case_tensor_from_desc(&c->indices, d->OutputIndicesTensor, "OutputIndicesTensor", err)))
        return false;
    const UINT *src[] = { d->Strides, d->WindowSize, d->StartPadding, d->EndPadding,
                          dilations ? d->Dilations : unit_dilations };
    UINT *dst[] = { c->pool_strides, c->window, c->start_padding, c->end_padding, c->dilations };
    if (d->DimensionCount > DML_MAX_SPATIAL)
        return err_set(err, "DimensionCount is %u; a case holds at most %u spatial dimensions",
                       d->DimensionCount, DML_MAX_SPATIAL);
    for (size_t a = 0; a < sizeof src / sizeof src[0]; a++) {
        if (!src[a])
            return err_set(err, "a pooling array (#%zu) is NULL", a);
        memcpy(dst[a], src[a], d->DimensionCount * sizeof(UINT));
    }
    c->spatial_count = d->DimensionCount;
    return true;
}

/* ---- Geometry ------------------------------------------------------------------------------ */

/* The pooling parameters of c as DirectML's descriptor (only the arrays are set): the rules
 * read them that way, and c->dml may not be linked yet while a case is being drawn. */
static DML_MAX_POOLING2_OPERATOR_DESC pool_params_of(const dml_case *c)
{
    return (DML_MAX_POOLING2_OPERATOR_DESC){
        NULL, NULL, NULL, c->spatial_count, c->pool_strides, c->window, c->start_padding,
        c->end_padding, c->dilations,
    };
}

static bool max_pooling_output_sizes(const dml_case *c, bool ceil, UINT *rank, UINT *sizes)
{
    const DML_MAX_POOLING2_OPERATOR_DESC d = pool_params_of(c);
    unsigned first = c->input.rank - c->spatial_count;
    *rank = c->input.rank;
    memcpy(sizes, c->input.sizes, sizeof(UINT) * c->input.rank);
    for (unsigned s = 0; s < c->spatial_count; s++) {
        pool_extent e;
        pool_extent_of(&d, c->input.sizes[first + s], s, &e);
        if (!e.floor_size || e.floor_size > UINT32_MAX)
            return false;
        sizes[first + s] = (UINT)(ceil && e.ceil_size ? e.ceil_size : e.floor_size);
    }
    return true;
}

/* Coordinate of tap k of spatial dimension s for output position o (may lie in padding). */
static int64_t tap_position(const dml_case *c, unsigned s, uint32_t o, uint64_t k)
{
    return (int64_t)o * c->pool_strides[s] + (int64_t)k * c->dilations[s]
        - (int64_t)c->start_padding[s];
}

static bool max_pooling_input_of_index(const dml_case *c, const uint32_t *out, uint64_t index,
                                       uint32_t *in)
{
    (void)out;
    if (index >= case_tensor_elements(&c->input))
        return false;
    for (unsigned d = c->input.rank; d-- > 0;) { /* row-major coordinates of the flat index */
        in[d] = (uint32_t)(index % c->input.sizes[d]);
        index /= c->input.sizes[d];
    }
    return true;
}

/* Visits the window of `out` in row-major window order (SEMANTICS D3: the first element of
 * the window wins a tie). */
static bool max_pooling_visit_deciders(const dml_case *c, const uint32_t *out, decider_visit visit,
                                       void *ctx, decider_facts *facts)
{
    unsigned first = c->input.rank - c->spatial_count, spatial = c->spatial_count;
    decider_facts f = { .has_padding = false, .all_padding = true };
    bool stopped = false;
    /* An odometer over the window's taps, the last spatial axis fastest (row-major). */
    uint64_t k[DML_MAX_SPATIAL] = { 0 };
    uint32_t in[DML_MAX_RANK];
    memcpy(in, out, sizeof(uint32_t) * c->input.rank);
    for (;;) {
        bool inside = true;
        for (unsigned s = 0; s < spatial; s++) {
            int64_t pos = tap_position(c, s, out[first + s], k[s]);
            if (pos < 0 || pos >= (int64_t)c->input.sizes[first + s])
                inside = false;
            else
                in[first + s] = (uint32_t)pos;
        }
        f.has_padding |= !inside;
        f.all_padding &= !inside;
        stopped = inside && visit && visit(c, in, ctx);
        unsigned s = spatial;
        while (s-- > 0 && ++k[s] == c->window[s])
            k[s] = 0;
        if (stopped || s == (unsigned)-1)
            break;
    }
    if (facts)
        *facts = f;
    return stopped;
}

/* The window of `out` with one cell of context on each side, as far as the padded input
 * reaches; the spatial dimensions are the grid's axes (depth slices become panels).  A cell
 * decides when it is one of the window's taps (dilations leave cells between taps). */
static void max_pooling_visit_grid(const dml_case *c, const uint32_t *out, decider_grid *grid,
                                   decider_cell_visit visit, void *ctx)
{
    unsigned first = c->input.rank - c->spatial_count;
    int64_t tap0[DML_MAX_SPATIAL];
    *grid = (decider_grid){ .rank = c->spatial_count };
    for (unsigned s = 0; s < c->spatial_count; s++) {
        tap0[s] = tap_position(c, s, out[first + s], 0);
        int64_t last = tap_position(c, s, out[first + s], c->window[s] - 1);
        int64_t lo = tap0[s] - 1, hi = last + 1;
        int64_t padded_lo = -(int64_t)c->start_padding[s];
        int64_t padded_hi = (int64_t)c->input.sizes[first + s] - 1 + c->end_padding[s];
        lo = lo < padded_lo ? (tap0[s] < padded_lo ? tap0[s] : padded_lo) : lo;
        hi = hi > padded_hi ? (last > padded_hi ? last : padded_hi) : hi;
        grid->first[s] = lo;
        grid->extent[s] = (uint64_t)(hi - lo + 1);
    }
    uint64_t cells = 1;
    for (unsigned s = 0; s < c->spatial_count; s++)
        cells *= grid->extent[s];
    decider_cell cell = { .decides = true };
    memcpy(cell.in, out, sizeof(uint32_t) * c->input.rank);
    for (uint64_t k = 0; visit && k < cells; k++) {
        uint64_t rest = k;
        cell.decides = true;
        cell.padding = false;
        for (unsigned s = c->spatial_count; s-- > 0;) {
            cell.at[s] = rest % grid->extent[s];
            rest /= grid->extent[s];
            int64_t pos = grid->first[s] + (int64_t)cell.at[s], from_tap0 = pos - tap0[s];
            cell.decides &= from_tap0 >= 0 && from_tap0 % c->dilations[s] == 0
                && from_tap0 / c->dilations[s] < (int64_t)c->window[s];
            if (pos < 0 || pos >= (int64_t)c->input.sizes[first + s])
                cell.padding = true;
            else
                cell.in[first + s] = (uint32_t)pos;
        }
        if (visit(&cell, ctx))
            return;
    }
}


/* ---- Generation ------------------------------------------------------------------------- */

/* First and last tap of a dilated window that fall inside [0, in); false when none does
 * (the window lies entirely in padding along this dimension). */
static bool window_taps(int64_t start, int64_t window, int64_t dilation, int64_t in,
                        int64_t *first, int64_t *last)
{
    int64_t j_first = start < 0 ? (-start + dilation - 1) / dilation : 0;
    if (in - 1 - start < 0)
        return false;
    int64_t j_last = (in - 1 - start) / dilation;
    if (j_last > window - 1)
        j_last = window - 1;
    if (j_first > j_last)
        return false;
    *first = start + j_first * dilation;
    *last = start + j_last * dilation;
    return true;
}

static bool max_pooling_decider_ends(const dml_case *c, const tensor_view *in, const uint32_t *out,
                                     uint64_t *first, uint64_t *last)
{
    unsigned base = c->input.rank - c->spatial_count;
    *first = *last = 0;
    for (unsigned d = 0; d < base; d++)
        *first += (uint64_t)out[d] * in->strides[d];
    *last = *first;
    for (UINT s = 0; s < c->spatial_count; s++) {
        int64_t lo = 0, hi = 0;
        if (!window_taps(tap_position(c, s, out[base + s], 0), c->window[s], c->dilations[s],
                         c->input.sizes[base + s], &lo, &hi))
            return false;
        *first += (uint64_t)lo * in->strides[base + s];
        *last += (uint64_t)hi * in->strides[base + s];
    }
    return true;
}

static UINT dilated_window(const dml_case *c, unsigned s) { return (c->window[s] - 1) * c->dilations[s] + 1; }

/* D9: the dilated window must fit the padded input; shrinks dilation, then the window. */
static void fit_window(dml_case *c, unsigned s, UINT in)
{
    UINT padded = in + c->start_padding[s] + c->end_padding[s];
    if (dilated_window(c, s) > padded)
        c->dilations[s] = 1;
    if (c->window[s] > padded)
        c->window[s] = padded;
}

/* Window, dilation, stride and padding of spatial dimension s of input size `in`.  Padding
 * is drawn below the dilated window, so windows lie entirely in padding mostly in
 * padding_window cases (elsewhere only when dilation steps over a small input or fit_window
 * shrinks the window; the reference classes those cases all the same). */
static void draw_window(prng *p, dml_case *c, unsigned s, UINT in)
{
    bool global = prng_chance(p, 1, 8);
    c->window[s] = global ? in : 1 + (UINT)prng_below(p, 4);
    c->dilations[s] = global || prng_chance(p, 3, 4) ? 1 : 2 + (UINT)prng_below(p, 2);
    if (!(op_table[c->op].flags & OPF_DILATIONS))
        c->dilations[s] = 1;
    c->pool_strides[s] = prng_chance(p, 1, 2) ? 1 : 1 + (UINT)prng_below(p, 4);
    UINT dw = dilated_window(c, s);
    c->start_padding[s] = prng_chance(p, 1, 2) ? 0 : (UINT)prng_below(p, dw);
    c->end_padding[s] = prng_chance(p, 1, 2) ? 0 : (UINT)prng_below(p, dw);
    fit_window(c, s, in);
}

/* Output sizes by D8 (max_pooling_output_sizes); their element count. */
static uint64_t pool_output_sizes(dml_case *c, bool ceil_mode)
{
    max_pooling_output_sizes(c, ceil_mode, &c->output.rank, c->output.sizes);
    return tensor_element_count(c->output.rank, c->output.sizes);
}

/* Input sizes as rq asks: a plane (the spatial elements of one N,C) past
 * rq->long_extent_over, every dimension at least 2 at 5-D, or drawn freely. */
static void draw_pooling_input(prng *p, const shape_request *rq, dml_case *c)
{
    bool deepest = rq->deepest && rq->budget >> 5;
    c->spatial_count = deepest ? 3 : 2 + (UINT)prng_below(p, 2);
    c->input.rank = c->spatial_count + 2;
    if (rq->long_extent_over && rq->budget > rq->long_extent_over) {
        uint32_t plane = ((1u << c->input.rank) - 1) & ~3u; /* dimensions 2 and up */
        draw_dims(p, c->input.rank, rq->budget / (rq->long_extent_over + 1), c->input.sizes);
        draw_grow_extent(p, c->input.rank, plane, 2 + (unsigned)prng_below(p, c->spatial_count),
                         rq->long_extent_over, rq->budget, c->input.sizes);
    } else if (deepest) {
        draw_dims_split(p, c->input.rank, rq->budget, c->input.sizes);
    } else {
        draw_dims(p, c->input.rank, rq->budget, c->input.sizes);
    }
}

/* Window taps over all outputs: the reference's and any backend's work. */
static uint64_t pool_work(dml_case *c, bool ceil_mode)
{
    uint64_t work = pool_output_sizes(c, ceil_mode);
    for (UINT s = 0; s < c->spatial_count; s++)
        work *= c->window[s];
    return work;
}

static void narrow_window(dml_case *c, UINT s, UINT in_padding, UINT widest)
{
    if (c->window[s] > widest)
        c->window[s] = widest;
    UINT below = dilated_window(c, s) - 1;
    c->start_padding[s] = s == in_padding ? below + 1
                          : c->start_padding[s] < below ? c->start_padding[s] : below;
    c->end_padding[s] = c->end_padding[s] < below ? c->end_padding[s] : below;
    fit_window(c, s, c->input.sizes[s + 2]);
}

/* A large plane keeps its work within `cap` taps: a window as wide as the plane, padded by
 * as much again, would cost the square of the plane.  Dimension by dimension the window
 * narrows to 4 and the padding below it, then to 2 (the padding-window dimension keeps just
 * enough start padding for its all-padding window). */
static void bound_pooling_work(dml_case *c, bool ceil_mode, UINT in_padding, uint64_t cap)
{
    for (UINT widest = 4; widest >= 2; widest /= 2)
        for (UINT s = 0; s < c->spatial_count && pool_work(c, ceil_mode) > cap; s++)
            narrow_window(c, s, in_padding, widest);
}

static void max_pooling_draw_shape(prng *p, const shape_request *rq, dml_case *c)
{
    uint64_t budget = rq->budget;
    bool padding_window = rq->padding_window;
    draw_pooling_input(p, rq, c);
    for (UINT s = 0; s < c->spatial_count; s++)
        draw_window(p, c, s, c->input.sizes[s + 2]);
    UINT in_padding = c->spatial_count; /* none */
    if (padding_window) {
        /* Start padding >= the dilated window: output 0 along this dimension sees only
         * padding (class padding_window, D7). */
        in_padding = (UINT)prng_below(p, c->spatial_count);
        c->start_padding[in_padding] = dilated_window(c, in_padding) + (UINT)prng_below(p, 3);
    }
    bool ceil_mode = prng_chance(p, 1, 3);
    /* Padding can make the output outgrow the input: drop padding dimension by dimension
     * until it fits (keeping just enough to make the padding window).  Without padding no
     * output dimension exceeds its input, and the padding-window one at most doubles, so
     * this always ends within 4x the budget. */
    for (UINT s = 0; s < c->spatial_count; s++) {
        if (pool_output_sizes(c, ceil_mode) <= 4 * budget)
            break;
        c->end_padding[s] = 0;
        c->start_padding[s] = s == in_padding ? dilated_window(c, s) : 0;
        fit_window(c, s, c->input.sizes[s + 2]);
    }
    if (rq->long_extent_over)
        bound_pooling_work(c, ceil_mode, in_padding, 4 * budget);
    pool_output_sizes(c, ceil_mode);
    if (c->indices.present) {
        c->indices.rank = c->output.rank;
        memcpy(c->indices.sizes, c->output.sizes, sizeof c->indices.sizes);
    }
}



/* ---- Shrinking -------------------------------------------------------------------------- */

/* N and C stay; a dropped spatial dimension takes its parameters along; two must remain. */
static bool max_pooling_drop_dims(const dml_case *c, const bool *dropped, const unsigned *new_of_old,
                                  dml_case *n)
{
    (void)new_of_old;
    unsigned first_old = c->input.rank - c->spatial_count, k = 0;
    if (dropped[0] || dropped[1])
        return false;
    for (unsigned s = 0; s < c->spatial_count; s++) {
        if (dropped[first_old + s])
            continue;
        n->window[k] = c->window[s];
        n->pool_strides[k] = c->pool_strides[s];
        n->dilations[k] = c->dilations[s];
        n->start_padding[k] = c->start_padding[s];
        n->end_padding[k] = c->end_padding[s];
        k++;
    }
    n->spatial_count = k;
    return k >= 2;
}

/* Variant k: per spatial dimension, window to 1 or one smaller, stride and dilation to 1,
 * no start or end padding; last, no indices tensor. */
static bool max_pooling_simplify(const dml_case *c, unsigned k, dml_case *n)
{
    if (k > 6 * c->spatial_count)
        return false;
    unsigned sp = k / 6;
    switch (k < 6 * c->spatial_count ? k % 6 : 6) {
    case 0: n->window[sp] = 1; break;
    case 1: n->window[sp] = n->window[sp] > 1 ? n->window[sp] - 1 : 1; break;
    case 2: n->pool_strides[sp] = 1; break;
    case 3: n->dilations[sp] = 1; break;
    case 4: n->start_padding[sp] = 0; break;
    case 5: n->end_padding[sp] = 0; break;
    default: n->indices.present = false; break;
    }
    return true;
}

/* ---- Must-reject cases -------------------------------------------------------------------- */

/* A stride or (MAX_POOLING2) dilation of 0, or a window wider than the padded input (D9). */
static bool max_pooling_invalidate(prng *p, dml_case *c)
{
    unsigned s = (unsigned)prng_below(p, c->spatial_count);
    switch (prng_below(p, 3)) {
    case 0:
        c->pool_strides[s] = 0;
        return true;
    case 1:
        if (!(op_table[c->op].flags & OPF_DILATIONS))
            return false;
        c->dilations[s] = 0;
        return true;
    default:
        c->window[s] = c->input.sizes[c->input.rank - c->spatial_count + s] + c->start_padding[s]
            + c->end_padding[s] + 1;
        return true;
    }
}

/* ---- Coverage --------------------------------------------------------------------------- */

/* "0" ... "3", "4-7", "8+": the size buckets of the largest window, stride, dilation. */
static const char *size_bucket(UINT v)
{
    static const char *const small[] = { "0", "1", "2", "3" };
    return v >= 8 ? "8+" : v >= 4 ? "4-7" : small[v];
}

static UINT largest(const UINT *v, UINT n)
{
    UINT best = 0;
    for (UINT i = 0; i < n; i++)
        best = v[i] > best ? v[i] : best;
    return best;
}

/* SEMANTICS D8 per spatial dimension: whether the division has a remainder (the floor and
 * ceil formulas differ) and whether this output took the ceil size. */
static void rounding_of(const dml_case *c, bool *inexact, bool *ceil_sized)
{
    const DML_MAX_POOLING2_OPERATOR_DESC d = pool_params_of(c);
    unsigned first = c->input.rank - c->spatial_count;
    *inexact = *ceil_sized = false;
    for (unsigned s = 0; c->spatial_count <= c->input.rank && s < c->spatial_count; s++) {
        pool_extent e;
        pool_extent_of(&d, c->input.sizes[first + s], s, &e);
        if (!e.floor_size)
            continue;
        *inexact |= (e.padded - e.dilated) % d.Strides[s] != 0;
        *ceil_sized |= c->output.sizes[first + s] > e.floor_size;
    }
}

/* The size tier of one N,C plane: where pooling kernels tile. */
#define POOLING_PLANE_TIER "pooling elements per N,C plane"

static unsigned max_pooling_coverage(const dml_case *c, const char **dims, const char **values,
                                     unsigned max)
{
    bool padded = false, asymmetric = false, inexact, ceil_sized;
    for (unsigned s = 0; s < c->spatial_count; s++) {
        padded |= c->start_padding[s] + c->end_padding[s] > 0;
        asymmetric |= c->start_padding[s] != c->end_padding[s];
    }
    rounding_of(c, &inexact, &ceil_sized);
    const char *const d[] = { "pooling spatial dims", "pooling window (largest)",
                              "pooling stride (largest)", "pooling dilation (largest)",
                              "pooling padding", "pooling output rounding", "pooling indices tensor",
                              POOLING_PLANE_TIER };
    uint64_t plane = 1; /* a must-reject case's DimensionCount may not fit its rank */
    for (unsigned s = 0; s < c->spatial_count && c->spatial_count <= c->input.rank; s++)
        plane *= c->input.sizes[c->input.rank - c->spatial_count + s];
    const char *const v[] = {
        c->spatial_count == 3 ? "3 (N,C,D,H,W)" : "2 (N,C,H,W)",
        size_bucket(largest(c->window, c->spatial_count)),
        size_bucket(largest(c->pool_strides, c->spatial_count)),
        size_bucket(largest(c->dilations, c->spatial_count)),
        !padded ? "none" : asymmetric ? "asymmetric" : "symmetric",
        ceil_sized ? "ceil" : inexact ? "floor" : "exact (floor = ceil)",
        c->indices.present ? "with" : "without",
        size_tier_name(plane),
    };
    unsigned n = 0;
    for (; n < max && n < sizeof v / sizeof v[0]; n++) {
        dims[n] = d[n];
        values[n] = v[n];
    }
    return n;
}

/* Every value each pooling dimension can take, in reading order, so a report lists them
 * together (and shows the ones no case reached). */
static unsigned max_pooling_coverage_buckets(const char **dims, const char **values, unsigned max)
{
    static const struct { const char *dim, *values[6]; } all[] = {
        { "pooling spatial dims", { "2 (N,C,H,W)", "3 (N,C,D,H,W)" } },
        { "pooling window (largest)", { "1", "2", "3", "4-7", "8+" } },
        { "pooling stride (largest)", { "1", "2", "3", "4-7", "8+" } },
        { "pooling dilation (largest)", { "1", "2", "3", "4-7", "8+" } },
        { "pooling padding", { "none", "symmetric", "asymmetric" } },
        { "pooling output rounding", { "exact (floor = ceil)", "floor", "ceil" } },
        { "pooling indices tensor", { "with", "without" } },
    };
    unsigned n = 0;
    for (size_t d = 0; d < sizeof all / sizeof all[0]; d++)
        for (size_t v = 0; v < 6 && all[d].values[v] && n < max; v++) {
            dims[n] = all[d].dim;
            values[n++] = all[d].values[v];
        }
    unsigned tiers = size_tier_names(values + n, max - n);
    for (unsigned i = 0; i < tiers; i++)
        dims[n + i] = POOLING_PLANE_TIER;
    return n + tiers;
}

/* ---- Text ------------------------------------------------------------------------------- */

/* The parameter arrays in the order the descriptor lists them, with their JSON names. */
typedef struct pool_array { const char *name; const UINT *values; } pool_array;

static void pool_arrays(const dml_case *c, pool_array *a)
{
    a[0] = (pool_array){ "window", c->window };
    a[1] = (pool_array){ "strides", c->pool_strides };
    a[2] = (pool_array){ "dilations", c->dilations };
    a[3] = (pool_array){ "start_padding", c->start_padding };
    a[4] = (pool_array){ "end_padding", c->end_padding };
}

static void max_pooling_describe(const dml_case *c, char *buf, size_t size)
{
    pool_array a[5];
    pool_arrays(c, a);
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < 5 && used < size; i++) {
        char v[96];
        int n = snprintf(buf + used, size - used, "%s%s=%s", i ? " " : "", a[i].name,
                         op_uints_text(a[i].values, c->spatial_count, v, sizeof v));
        used += n > 0 ? (size_t)n : 0;
    }
}

static bool max_pooling_params_json(const dml_case *c, char *buf, size_t size)
{
    pool_array a[5];
    pool_arrays(c, a);
    op_text t;
    op_text_init(&t, buf, size);
    for (int i = 0; i < 5; i++) {
        op_text_put(&t, i ? ",\"" : "{\"");
        op_text_put(&t, a[i].name);
        op_text_put(&t, "\":");
        op_text_uints(&t, a[i].values, c->spatial_count);
    }
    op_text_put(&t, c->indices.present ? ",\"indices\":true}" : ",\"indices\":false}");
    return !t.overflow;
}

static const op_tensor_rules max_pooling_tensors = { &pooling_input, &pooling_output,
                                                     &pooling_indices, true };

const op_module op_module_max_pooling = {
    .name = "max_pooling",
    .output_is_index = false,
    .fields = max_pooling_fields,
    .tensors = &max_pooling_tensors,
    .link = max_pooling_link,
    .from_desc = max_pooling_from_desc,
    .check = check_max_pooling,
    .output_sizes = max_pooling_output_sizes,
    .input_of_index = max_pooling_input_of_index,
    .visit_deciders = max_pooling_visit_deciders,
    .decider_ends = max_pooling_decider_ends,
    .visit_grid = max_pooling_visit_grid,
    .draw_shape = max_pooling_draw_shape,
    .has_padding = true,
    .channel_dims = true,
    .drop_dims = max_pooling_drop_dims,
    .simplify = max_pooling_simplify,
    .invalidate = max_pooling_invalidate,
    .coverage = max_pooling_coverage,
    .coverage_buckets = max_pooling_coverage_buckets,
    .describe = max_pooling_describe,
    .params_json = max_pooling_params_json,
};
