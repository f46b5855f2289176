/*
 * fuzz_case_builder.c: draws a valid case from fuzz bytes, or records the bytes of a given
 * valid case (see fuzz_case_builder.h).  Every step is one function run in both directions;
 * repairs only change what a rule or the budget forbids, so they are the identity on a valid
 * case inside the budget and the writer's bytes rebuild the case it was given.
 */
#include "fuzz_case_builder.h"
#include "op_module.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "fuzz_oracle.h"
#include "half.h"
#include "validate.h"

#define DT(type) DML_TENSOR_DATA_TYPE_##type
#define FL(level) DML_FEATURE_LEVEL_##level

/* How input values are drawn from the head of the input. */
typedef enum values_mode {
    VALUES_RAW,     /* every buffer slot, padding included, as raw bits (dtype_size bytes) */
    VALUES_SPECIAL, /* one byte per logical element: an entry of the type's special values */
    VALUES_TIES,    /* one byte per logical element: +0, -0, 1 or -1 (heavy ties) */
    VALUES_SMALL,   /* one byte per logical element: a small signed integer in the type */
    VALUES_MODE_COUNT
} values_mode;

/* ARGMIN/ARGMAX output types (SPEC "Tensor support": the same at every level). */
static const DML_TENSOR_DATA_TYPE index_types[] = { DT(INT32), DT(INT64), DT(UINT32), DT(UINT64) };

DML_FEATURE_LEVEL fuzz_input_type_since(op_id op, DML_TENSOR_DATA_TYPE t)
{
    for (size_t i = 0; i < FL_TESTED_COUNT && t < 32; i++)
        if ((op_types_at(op, fl_tested[i]).input >> t) & 1)
            return fl_tested[i];
    return 0;
}

/* A size-like value: small ones (the common, cheap case) cost a flag and one byte. */
static uint32_t draw_size(fuzz_io *io, uint32_t value, uint32_t lo, uint32_t small_hi, uint32_t big_hi)
{
    bool big = fuzz_io_bool(io, value > small_hi);
    if (big)
        return (uint32_t)fuzz_io_range(io, value, small_hi + 1, big_hi);
    return (uint32_t)fuzz_io_range(io, value, lo, small_hi);
}

static unsigned index_of_level(DML_FEATURE_LEVEL fl)
{
    for (unsigned i = 0; i < FL_TESTED_COUNT; i++)
        if (fl_tested[i] == fl)
            return i;
    return 0;
}

static unsigned index_of_type(const DML_TENSOR_DATA_TYPE *types, unsigned count, DML_TENSOR_DATA_TYPE t)
{
    for (unsigned i = 0; i < count; i++)
        if (types[i] == t)
            return i;
    return 0;
}

static void raise_level(dml_case *c, DML_FEATURE_LEVEL needed)
{
    if (c->feature_level < needed)
        c->feature_level = needed;
}

/* Operator, feature level and input type; a type the level lacks raises the level. */
static void draw_op_and_type(fuzz_io *io, dml_case *c)
{
    c->op = (op_id)fuzz_io_range(io, c->op, 0, OP_COUNT - 1);
    unsigned level = (unsigned)fuzz_io_range(io, index_of_level(c->feature_level), 0,
                                             FL_TESTED_COUNT - 1);
    DML_TENSOR_DATA_TYPE all[16];
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        all[i] = dtype_table[i].type;
    unsigned type = (unsigned)fuzz_io_range(io, index_of_type(all, DTYPE_COUNT, c->input.type), 0,
                                            DTYPE_COUNT - 1);
    DML_TENSOR_DATA_TYPE t = all[type];
    if (!fuzz_input_type_since(c->op, t))
        t = DT(FLOAT32); /* FLOAT64 is no operator's input type */
    c->feature_level = fl_tested[level];
    raise_level(c, fuzz_input_type_since(c->op, t));
    c->input.present = c->output.present = true;
    c->input.type = t;
}

/* Halves the largest entry until the product fits the budget. */
static void shrink_to_budget(UINT *sizes, UINT n, uint64_t budget)
{
    while (tensor_element_count(n, sizes) > budget) {
        UINT largest = 0;
        for (UINT i = 1; i < n; i++)
            if (sizes[i] > sizes[largest])
                largest = i;
        sizes[largest] = (sizes[largest] + 1) / 2;
    }
}

/* ARGMIN/ARGMAX: rank, sizes, a non-empty axis set in a drawn array order (SEMANTICS D2:
 * duplicates and AxisCount 0 are invalid, so the set is a bit mask), direction, index type. */
static void draw_arg_reduce(fuzz_io *io, dml_case *c)
{
    bool writing = io->out != NULL;
    UINT rank = (UINT)fuzz_io_range(io, c->input.rank, 1, DML_MAX_RANK);
    c->input.rank = c->output.rank = rank;
    for (UINT i = 0; i < rank; i++)
        c->input.sizes[i] = draw_size(io, c->input.sizes[i], 1, 16, 65535);
    shrink_to_budget(c->input.sizes, rank, FUZZ_MAX_ELEMENTS);

    unsigned mask = 0;
    for (UINT i = 0; writing && i < c->axis_count && i < DML_MAX_RANK; i++)
        mask |= 1u << (c->axes[i] % DML_MAX_RANK);
    mask = (unsigned)fuzz_io_range(io, mask, 1, (1u << rank) - 1);
    UINT axes[DML_MAX_RANK], n = 0;
    for (UINT a = 0; a < rank; a++)
        if (mask & (1u << a))
            axes[n++] = a;
    /* Fisher-Yates: step i brings the drawn remaining axis to position i. */
    for (UINT i = 0; i < n; i++) {
        UINT want = i;
        for (UINT j = i; writing && j < n; j++)
            if (axes[j] == c->axes[i])
                want = j;
        UINT j = (UINT)fuzz_io_range(io, want, i, n - 1), swap = axes[i];
        axes[i] = axes[j];
        axes[j] = swap;
    }
    memcpy(c->axes, axes, sizeof axes);
    c->axis_count = n;
    c->direction = fuzz_io_bool(io, c->direction == DML_AXIS_DIRECTION_DECREASING)
                       ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    unsigned out_type = (unsigned)fuzz_io_range(io, index_of_type(index_types, 4, c->output.type), 0, 3);
    c->output.type = index_types[out_type];
    for (UINT i = 0; i < rank; i++)
        c->output.sizes[i] = (mask & (1u << i)) ? 1 : c->input.sizes[i];
    c->indices.present = false;
    c->spatial_count = 0;
}

/* SEMANTICS D8: floor output size, or one more when asked for, the division has a remainder
 * and the extra window still starts inside In + StartPadding (D9 holds: dilated <= padded). */
/* Output size of spatial dimension i, floor or ceil (SEMANTICS D8), from the module's
 * formula; every window fits (fit_window ran on each; when re-encoding a case, the
 * dimensions not drawn yet still hold that valid case's parameters). */
static UINT pool_out_size(const dml_case *c, UINT i, bool ceil)
{
    UINT rank, sizes[DML_MAX_RANK];
    if (!case_module(c)->output_sizes(c, ceil, &rank, sizes))
        return 1;
    return sizes[c->input.rank - c->spatial_count + i];
}

/* SEMANTICS D9: shrink the dilation, then the window, until the dilated window fits. */
static void fit_window(dml_case *c, UINT i)
{
    uint64_t padded = (uint64_t)c->input.sizes[2 + i] + c->start_padding[i] + c->end_padding[i];
    while (((uint64_t)c->window[i] - 1) * c->dilations[i] + 1 > padded) {
        if (c->dilations[i] > 1)
            c->dilations[i]--;
        else
            c->window[i]--;
    }
}

/* Halves the largest of N, C, the spatial sizes and the paddings (one step); false when
 * nothing can shrink any more. */
static bool shrink_pooling_step(dml_case *c)
{
    UINT *values[2 + 3 * DML_MAX_SPATIAL], n = 0;
    values[n++] = &c->input.sizes[0];
    values[n++] = &c->input.sizes[1];
    for (UINT i = 0; i < c->spatial_count; i++) {
        values[n++] = &c->input.sizes[2 + i];
        values[n++] = &c->start_padding[i];
        values[n++] = &c->end_padding[i];
    }
    UINT *largest = NULL;
    for (UINT k = 0; k < n; k++)
        if (*values[k] >= 2 && (!largest || *values[k] > *largest))
            largest = values[k];
    if (!largest)
        return false;
    *largest /= 2;
    return true;
}

/* MAX_POOLING2: N, C, spatial sizes, window, strides, dilations, paddings, floor or ceil output
 * size per dimension, optional UINT32/UINT64 indices (UINT64 from FL 5_0). */
static void draw_pooling(fuzz_io *io, dml_case *c)
{
    bool writing = io->out != NULL, ceil[DML_MAX_SPATIAL];
    UINT spatial = (UINT)fuzz_io_range(io, c->spatial_count, 2, DML_MAX_SPATIAL);
    UINT rank = spatial + 2;
    c->spatial_count = spatial;
    c->input.rank = c->output.rank = rank;
    c->input.sizes[0] = draw_size(io, c->input.sizes[0], 1, 4, FUZZ_MAX_ELEMENTS);
    c->input.sizes[1] = draw_size(io, c->input.sizes[1], 1, 4, FUZZ_MAX_ELEMENTS);
    for (UINT i = 0; i < spatial; i++) {
        /* Writing: the given case is ceil-sized where its output exceeds the floor size. */
        UINT given_out = c->output.sizes[2 + i];
        c->input.sizes[2 + i] = draw_size(io, c->input.sizes[2 + i], 1, 16, FUZZ_MAX_ELEMENTS);
        c->window[i] = draw_size(io, c->window[i], 1, 4, 64);
        c->pool_strides[i] = draw_size(io, c->pool_strides[i], 1, 4, 64);
        c->dilations[i] = draw_size(io, c->dilations[i], 1, 3, 64);
        if (!(op_table[c->op].flags & OPF_DILATIONS)) /* MAX_POOLING1 */
            c->dilations[i] = 1;
        c->start_padding[i] = draw_size(io, c->start_padding[i], 0, 3, 64);
        c->end_padding[i] = draw_size(io, c->end_padding[i], 0, 3, 64);
        bool was_ceil = false;
        if (writing) {
            fit_window(c, i);
            was_ceil = given_out > pool_out_size(c, i, false);
        }
        ceil[i] = fuzz_io_bool(io, was_ceil);
    }
    for (;;) {
        /* Every window first: the module's formula needs them all to fit. */
        for (UINT i = 0; i < spatial; i++)
            fit_window(c, i);
        for (UINT i = 0; i < spatial; i++)
            c->output.sizes[2 + i] = pool_out_size(c, i, ceil[i]);
        c->output.sizes[0] = c->input.sizes[0];
        c->output.sizes[1] = c->input.sizes[1];
        if ((tensor_element_count(rank, c->input.sizes) <= FUZZ_MAX_ELEMENTS
             && tensor_element_count(rank, c->output.sizes) <= FUZZ_MAX_ELEMENTS)
            || !shrink_pooling_step(c))
            break;
    }
    c->output.type = c->input.type;
    c->indices.present = fuzz_io_bool(io, c->indices.present);
    bool wide = fuzz_io_bool(io, c->indices.type == DT(UINT64));
    c->indices.type = wide ? DT(UINT64) : DT(UINT32);
    if (c->indices.present && wide)
        raise_level(c, FL(5_0));
    c->indices.rank = rank;
    memcpy(c->indices.sizes, c->output.sizes, sizeof c->indices.sizes);
    c->axis_count = 0;
}

/* The byte-driven shape draw of each operator family (the module's draw_shape takes a PRNG;
 * the fuzzer steers by bytes).  A family without a row stops the target, never borrows
 * another family's draw. */
static void draw_family(fuzz_io *io, dml_case *c)
{
    static const struct { const char *module; void (*draw)(fuzz_io *, dml_case *); } draws[] = {
        { "arg_reduce", draw_arg_reduce },
        { "max_pooling", draw_pooling },
    };
    for (size_t i = 0; i < sizeof draws / sizeof draws[0]; i++)
        if (!strcmp(draws[i].module, op_table[c->op].module_name)) {
            draws[i].draw(io, c);
            return;
        }
    fuzz_fail("the fuzz case builder has no draw for operator family %s", op_table[c->op].module_name);
}

/* Outputs must not alias (SEMANTICS "Tensors").  Sufficient test: taking the dimensions of
 * size > 1 by increasing stride, each stride exceeds the largest offset the smaller ones
 * reach (a mixed-radix layout, as packed, padded and permuted layouts are). */
static bool layout_is_nested(const case_tensor *t)
{
    bool used[DML_MAX_RANK] = { false };
    uint64_t reach = 0;
    for (;;) {
        int next = -1;
        for (UINT i = 0; i < t->rank; i++)
            if (!used[i] && t->sizes[i] > 1 && (next < 0 || t->strides[i] < t->strides[next]))
                next = (int)i;
        if (next < 0)
            return true;
        used[next] = true;
        if (t->strides[next] <= reach)
            return false;
        reach += (uint64_t)(t->sizes[next] - 1) * t->strides[next];
    }
}

/* Strides (broadcast 0 allowed on the input only), oversized TotalTensorSizeInBytes,
 * GuaranteedBaseOffsetAlignment, and DML_TENSOR_FLAG_OWNED_BY_DML (inputs only). */
static void draw_layout(fuzz_io *io, case_tensor *t, bool is_input)
{
    unsigned elem = dtype_size(t->type);
    t->has_strides = fuzz_io_bool(io, t->has_strides);
    for (UINT i = 0; t->has_strides && i < t->rank; i++)
        t->strides[i] = draw_size(io, t->strides[i], 0, 16, 65535);
    if (t->has_strides) {
        UINT64 span = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes, t->strides);
        if (span == 0 || span / elem > FUZZ_MAX_BUFFER_ELEMENTS || (!is_input && !layout_is_nested(t)))
            t->has_strides = false;
    }
    UINT64 computed = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes,
                                                  t->has_strides ? t->strides : NULL);
    bool oversized = fuzz_io_bool(io, t->has_total_bytes);
    uint64_t extra = t->has_total_bytes && t->total_bytes > computed ? (t->total_bytes - computed) / 4 : 0;
    extra = oversized ? fuzz_io_range(io, extra, 0, 1023) : 0;
    t->has_total_bytes = oversized;
    t->total_bytes = computed + 4 * extra;

    unsigned align_code = t->base_alignment ? (unsigned)__builtin_ctz(t->base_alignment) + 1 : 0;
    align_code = (unsigned)fuzz_io_range(io, align_code, 0, 7);
    t->base_alignment = align_code ? 1u << (align_code - 1) : 0;
    if (t->base_alignment && t->base_alignment < elem)
        t->base_alignment = elem;

    bool owned = is_input && fuzz_io_bool(io, t->flags & DML_TENSOR_FLAG_OWNED_BY_DML);
    t->flags = owned ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE;
}

/* A small signed integer as raw bits of type t (exact in every type). */
static uint64_t small_int_bits(DML_TENSOR_DATA_TYPE t, int8_t v)
{
    switch (t) {
    case DT(FLOAT32): return float_to_bits((float)v);
    case DT(FLOAT16): return float_to_half((float)v);
    case DT(FLOAT64): { double d = v; uint64_t u; memcpy(&u, &d, 8); return u; }
    default: {
        unsigned bits = dtype_size(t) * 8;
        uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        int64_t value = dtype_is_signed_int(t) ? v : (uint8_t)v;
        return (uint64_t)value & mask;
    }
    }
}

static uint64_t value_bits(values_mode mode, DML_TENSOR_DATA_TYPE t, const uint64_t *specials,
                           unsigned n_specials, uint8_t byte)
{
    switch (mode) {
    case VALUES_SPECIAL: return specials[byte % n_specials];
    case VALUES_TIES: return specials[byte % 4];
    default: return small_int_bits(t, (int8_t)byte);
    }
}

/* Every slot of the buffer holds `bits`: one element stored, then the filled part copied
 * onto the rest, doubling (the per-slot loop, coverage-instrumented, cost the fuzzers time). */
static void fill_slots(uint8_t *data, DML_TENSOR_DATA_TYPE t, UINT64 slots, uint64_t bits)
{
    size_t elem = dtype_size(t), filled = elem, total = (size_t)slots * elem;
    if (!slots)
        return;
    dtype_store_bits(data, t, 0, bits);
    for (; filled < total; filled *= 2)
        memcpy(data + filled, data, filled < total - filled ? filled : total - filled);
}

/* The input buffer.  Writing records every slot as raw bits (from `given`, given_bytes long),
 * so padding bytes round-trip too.  Reading in a one-byte mode poisons every slot with a
 * special value first, so a backend that reads padding is likely to be caught. */
static bool draw_values(fuzz_io *io, dml_case *c, const uint8_t *given, UINT64 given_bytes)
{
    DML_TENSOR_DATA_TYPE t = c->input.type;
    unsigned elem = dtype_size(t);
    UINT64 bytes = case_tensor_bytes(&c->input), slots = bytes / elem;
    const uint64_t *specials;
    unsigned n_specials = fuzz_special_values(t, &specials);
    values_mode mode = (values_mode)fuzz_io_range(io, VALUES_RAW, 0, VALUES_MODE_COUNT - 1);
    unsigned poison = (unsigned)fuzz_io_range(io, 0, 0, n_specials - 1);
    uint8_t *data = calloc(bytes ? bytes : 1, 1);
    if (!data)
        return false;
    if (io->out) {
        for (UINT64 s = 0; s < slots; s++) {
            uint64_t bits = (s + 1) * elem <= given_bytes ? dtype_load_bits(given, t, s) : 0;
            fuzz_sink_head_bits(io->out, bits, elem);
            dtype_store_bits(data, t, s, bits);
        }
    } else if (mode == VALUES_RAW) { /* slot s: fuzz_head_bits(elem), little-endian; 0 past the end */
        fuzz_head_copy(io->in, data, slots * elem);
    } else {
        fill_slots(data, t, slots, specials[poison]);
        tensor_view v;
        case_tensor_view(&c->input, &v);
        uint32_t coords[DML_MAX_RANK] = { 0 };
        uint64_t offset = 0;
        for (uint64_t i = 0; i < v.elements; i++, tensor_view_step(&v, coords, &offset))
            dtype_store_bits(data, t, offset, value_bits(mode, t, specials, n_specials,
                                                         (uint8_t)fuzz_head_bits(io->in, 1)));
    }
    free(c->input_data);
    c->input_data = data;
    return true;
}

bool fuzz_build_case(fuzz_io *io, dml_case *c, exec_options *opt)
{
    /* Writing: keep the given input bytes until draw_values has recorded them. */
    uint8_t *given = NULL;
    UINT64 given_bytes = 0;
    if (io->out) {
        given = c->input_data;
        given_bytes = case_tensor_bytes(&c->input);
        c->input_data = NULL;
    }
    draw_op_and_type(io, c);
    draw_family(io, c);
    draw_layout(io, &c->input, true);
    draw_layout(io, &c->output, false);
    if (c->indices.present)
        draw_layout(io, &c->indices, false);
    opt->nan = fuzz_io_bool(io, opt->nan == NAN_POLICY_PROPAGATE) ? NAN_POLICY_PROPAGATE
                                                                   : NAN_POLICY_IGNORE;
    opt->flush_denormals = false;
    case_link(c);
    bool ok = draw_values(io, c, given, given_bytes);
    free(given);
    return ok;
}

void fuzz_build_valid_case(const uint8_t *data, size_t size, dml_case *c, exec_options *opt)
{
    fuzz_input in;
    fuzz_io io = { &in, NULL };
    dmlc_error err = { "" };
    fuzz_input_init(&in, data, size);
    case_init(c);
    if (!fuzz_build_case(&io, c, opt))
        fuzz_fail("out of memory building a case");
    if (!validate_case(c, &err)) {
        fuzz_print_case(c);
        fuzz_fail("the builder made a case the validator rejects: %s", err.msg);
    }
}
