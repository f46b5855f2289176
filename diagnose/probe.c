/*
 * probe.c: shaping, laying out and filling probes (probe.h).
 */
#include "probe.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "half.h"
#include "layout.h"
#include "op_module.h"
#include "validate.h"

/* probe_resize with the output's rounding chosen (D8: floor, or ceil where allowed). */
static bool resize_rounded(dml_case *probe, const UINT *sizes, bool ceil)
{
    UINT rank = probe->input.rank, out_rank, out_sizes[DML_MAX_RANK];
    case_tensor_set(&probe->input, probe->input.type, rank, sizes, NULL);
    if (!case_module(probe)->output_sizes(probe, ceil, &out_rank, out_sizes))
        return false;
    case_tensor_set(&probe->output, probe->output.type, out_rank, out_sizes, NULL);
    if (probe->indices.present)
        case_tensor_set(&probe->indices, probe->indices.type, out_rank, out_sizes, NULL);
    case_link(probe);
    dmlc_error err;
    return validate_case(probe, &err);
}

bool probe_resize(dml_case *probe, const UINT *sizes)
{
    return resize_rounded(probe, sizes, false);
}

/* Whether some output element has a real input element among its deciders: a probe whose
 * every pooling window lies in padding asks nothing the spec decides. */
static bool some_output_decided(const dml_case *c)
{
    const op_module *m = case_module(c);
    tensor_view out;
    case_tensor_view(&c->output, &out);
    for (uint64_t logical = 0; logical < out.elements; logical++) {
        uint32_t coords[DML_MAX_RANK];
        decider_facts facts;
        tensor_view_coords(&out, logical, coords);
        m->visit_deciders(c, coords, NULL, NULL, &facts);
        if (!facts.all_padding)
            return true;
    }
    return false;
}

/* Halves one dimension, the largest that can be halved and still give a valid case. */
static bool halve_one(dml_case *probe, UINT *sizes)
{
    bool tried[DML_MAX_RANK] = { false };
    for (unsigned attempt = 0; attempt < probe->input.rank; attempt++) {
        unsigned d = DML_MAX_RANK;
        for (unsigned i = 0; i < probe->input.rank; i++)
            if (!tried[i] && sizes[i] > 1 && (d == DML_MAX_RANK || sizes[i] > sizes[d]))
                d = i;
        if (d == DML_MAX_RANK)
            return false;
        tried[d] = true;
        UINT trial[DML_MAX_RANK];
        memcpy(trial, sizes, sizeof trial);
        trial[d] /= 2;
        if (probe_resize(probe, trial) && some_output_decided(probe)) {
            memcpy(sizes, trial, sizeof trial);
            return true;
        }
    }
    return false;
}

/* Shrinks the input to the budget, halving dimensions; false when no valid shape exists. */
static bool shrink_to(dml_case *probe, uint64_t budget)
{
    UINT sizes[DML_MAX_RANK] = { 0 };
    memcpy(sizes, probe->input.sizes, sizeof(UINT) * probe->input.rank);
    while (tensor_element_count(probe->input.rank, sizes) > budget && halve_one(probe, sizes))
        ;
    return probe_resize(probe, sizes);
}

/* Rows an ARGMIN/ARGMAX probe of one output element gets: on one row a look-alike often
 * predicts the same index whatever the values (-0 before +0: signed_zero_not_tied and
 * float_compared_as_int_bits both pick the -0), while on several rows drawn apart one row
 * can show one cause and another row the other. */
#define PROBE_ROWS 4

/* The probe's descriptor before a reshape is tried, to restore when it is invalid. */
typedef struct saved_shape {
    UINT rank, sizes[DML_MAX_RANK], axis_count, axes[DML_MAX_RANK];
} saved_shape;

static void save_shape(const dml_case *probe, saved_shape *s)
{
    s->rank = probe->input.rank;
    memcpy(s->sizes, probe->input.sizes, sizeof s->sizes);
    s->axis_count = probe->axis_count;
    memcpy(s->axes, probe->axes, sizeof s->axes);
}

static bool restore_shape(dml_case *probe, const saved_shape *s)
{
    probe->input.rank = s->rank;
    probe->axis_count = s->axis_count;
    memcpy(probe->axes, s->axes, sizeof s->axes);
    return probe_resize(probe, s->sizes);
}

static bool is_reduced(const dml_case *probe, unsigned d)
{
    for (unsigned a = 0; a < probe->axis_count; a++)
        if (probe->axes[a] == d)
            return true;
    return false;
}

/* Rows for an ARGMIN/ARGMAX probe of one output element, the reduction of each row as it
 * was: a kept axis of size 1 grown, else a new leading axis (the listed axes move up one),
 * else a reduced axis of size 1 (reducing it changed nothing) dropped from Axes and grown. */
static bool add_arg_reduce_rows(dml_case *probe, const saved_shape *was)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, was->sizes, sizeof sizes);
    for (unsigned d = 0; d < was->rank; d++)
        if (sizes[d] == 1 && !is_reduced(probe, d)) {
            sizes[d] = PROBE_ROWS;
            return probe_resize(probe, sizes);
        }
    if (was->rank < DML_MAX_RANK) {
        probe->input.rank = was->rank + 1;
        sizes[0] = PROBE_ROWS;
        memcpy(sizes + 1, was->sizes, sizeof(UINT) * was->rank);
        for (unsigned a = 0; a < probe->axis_count; a++)
            probe->axes[a]++;
        if (probe_resize(probe, sizes))
            return true;
        restore_shape(probe, was);
        memcpy(sizes, was->sizes, sizeof sizes);
    }
    for (unsigned a = 0; probe->axis_count > 1 && a < probe->axis_count; a++)
        if (sizes[probe->axes[a]] == 1) {
            sizes[probe->axes[a]] = PROBE_ROWS;
            memmove(probe->axes + a, probe->axes + a + 1, sizeof(UINT) * (probe->axis_count - a - 1));
            probe->axis_count--;
            return probe_resize(probe, sizes);
        }
    return false;
}

/* A pooling probe whose output has one element along its last axis: that input axis grown
 * by one window stride at a time (at most four) until two windows fit, so a row of outputs
 * shows what carries over from one window to the next. */
static bool add_pooling_row(dml_case *probe, const saved_shape *was)
{
    unsigned last = was->rank - 1, s = probe->spatial_count - 1;
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, was->sizes, sizeof sizes);
    for (unsigned step = 0; step < 4; step++) {
        sizes[last] += probe->pool_strides[s];
        if (probe_resize(probe, sizes) && probe->output.sizes[probe->output.rank - 1] >= 2)
            return true;
    }
    return false;
}

/* A pooling probe of one row of windows (every output axis but the last of size 1): two
 * channels, so the windows of one row can start with what those of the other do not. */
static bool add_pooling_plane(dml_case *probe)
{
    uint64_t rows = case_tensor_elements(&probe->output) / probe->output.sizes[probe->output.rank - 1];
    if (rows > 1)
        return true;
    saved_shape was;
    save_shape(probe, &was);
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, was.sizes, sizeof sizes);
    sizes[1] = 2;
    return probe_resize(probe, sizes) || restore_shape(probe, &was);
}

/* Several output rows where the shrunk probe has one (an ARGMIN/ARGMAX of one output, a
 * pooling probe of one window along its last axis or one row of windows); the probe as it
 * was when none fits. */
static bool add_rows(dml_case *probe)
{
    saved_shape was;
    save_shape(probe, &was);
    bool arg_reduce = case_module(probe)->output_is_index;
    bool one = arg_reduce ? case_tensor_elements(&probe->output) == 1
                          : probe->output.sizes[probe->output.rank - 1] == 1;
    bool added = !one || (arg_reduce ? add_arg_reduce_rows(probe, &was) : add_pooling_row(probe, &was));
    if (!((added && some_output_decided(probe)) || restore_shape(probe, &was)))
        return false;
    return arg_reduce || add_pooling_plane(probe);
}

/* Dimensions stored in reverse order, consecutive elements two apart: every stride differs
 * from the packed one, and the buffer holds more than a packed tensor needs. */
static void lay_out_strided(case_tensor *t)
{
    tensor_layout l;
    layout_init(&l, t->rank);
    l.explicit_strides = true;
    for (unsigned i = 0; i < t->rank; i++)
        l.order[i] = t->rank - 1 - i;
    l.pitch = 2;
    layout_apply(&l, t);
}

/* The probe's outputs at the ceil size where D8 allows one. */
static bool resize_ceil(dml_case *probe)
{
    UINT sizes[DML_MAX_RANK];
    memcpy(sizes, probe->input.sizes, sizeof sizes);
    return resize_rounded(probe, sizes, true);
}

/* PROBE_STRIDED with the largest dimension broadcast (stride 0), and room in the buffer for
 * the tensor packed: a reading that takes the 0 for "packed" stays inside it. */
static void lay_out_broadcast(case_tensor *t)
{
    unsigned widest = 0;
    for (unsigned d = 1; d < t->rank; d++)
        widest = t->sizes[d] > t->sizes[widest] ? d : widest;
    tensor_layout l;
    layout_init(&l, t->rank);
    l.explicit_strides = true;
    for (unsigned i = 0; i < t->rank; i++)
        l.order[i] = t->rank - 1 - i;
    l.pitch = 2;
    l.broadcast = t->sizes[widest] > 1 ? 1u << widest : 0;
    UINT64 packed = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes, NULL);
    l.extra_bytes = 2 * ((packed + 3) / 4 * 4);
    layout_apply(&l, t);
}

static void lay_out(case_tensor *t, probe_layout how)
{
    if (how == PROBE_STRIDED)
        lay_out_strided(t);
    else if (how == PROBE_BROADCAST)
        lay_out_broadcast(t);
}

static void apply_indices_plan(dml_case *probe, probe_indices plan)
{
    if (case_module(probe)->output_is_index)
        return;
    if (plan == PROBE_INDICES_DROP)
        probe->indices.present = false;
    if (plan == PROBE_INDICES_ADD && !probe->indices.present)
        case_tensor_set(&probe->indices, DML_TENSOR_DATA_TYPE_UINT32, probe->output.rank,
                        probe->output.sizes, NULL);
}

/* The failing case's descriptor alone: no values, no expectations, nothing to refuse. */
static bool copy_descriptor(const dml_case *failing, dml_case *probe)
{
    case_init(probe);
    if (!case_copy(probe, failing))
        return false;
    free(probe->input_data);
    free(probe->expected_output);
    free(probe->expected_indices);
    free(probe->comment);
    probe->input_data = NULL;
    probe->expected_output = probe->expected_indices = NULL;
    probe->comment = NULL;
    probe->has_expected_output = probe->has_expected_indices = false;
    probe->must_reject = false;
    return true;
}

bool probe_shape(const dml_case *failing, const cause *h, dml_case *probe, dmlc_error *err)
{
    if (!copy_descriptor(failing, probe))
        return err_set(err, "out of memory copying the failing case");
    apply_indices_plan(probe, h->plan.indices);
    uint64_t budget = h->plan.max_elements ? h->plan.max_elements : PROBE_ELEMENTS;
    if ((h->plan.shape && !h->plan.shape(probe)) || !shrink_to(probe, budget)
        || (!h->plan.max_elements && !add_rows(probe))
        || (h->plan.ceil_output && !resize_ceil(probe))) {
        case_free(probe);
        return err_set(err, "%s: no valid probe of this shape", h->id);
    }
    lay_out(&probe->input, h->plan.input_layout);
    lay_out(&probe->output, h->plan.output_layout);
    if (probe->indices.present)
        lay_out(&probe->indices, h->plan.indices_layout);
    case_link(probe);
    if (!validate_case(probe, err)) {
        case_free(probe);
        return err_prefix(err, "probe for %s", h->id);
    }
    if (!(probe->input_data = calloc(1, case_tensor_bytes(&probe->input)))) {
        case_free(probe);
        return err_set(err, "out of memory allocating a probe's input");
    }
    return true;
}

static uint64_t float_value_bits(DML_TENSOR_DATA_TYPE t, double v)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT64) {
        uint64_t bits;
        memcpy(&bits, &v, 8);
        return bits;
    }
    double largest = t == DML_TENSOR_DATA_TYPE_FLOAT16 ? 65504.0 : FLT_MAX;
    if (isfinite(v) && fabs(v) > largest)
        v = copysign(largest, v); /* "the largest finite" whatever the type */
    float f = (float)v;
    return t == DML_TENSOR_DATA_TYPE_FLOAT16 ? float_to_half(f) : float_to_bits(f);
}

static uint64_t int_value_bits(DML_TENSOR_DATA_TYPE t, double v)
{
    unsigned bits = dtype_size(t) * 8;
    if (dtype_is_signed_int(t)) {
        double lo = -ldexp(1.0, (int)bits - 1), hi = -lo - 1;
        int64_t i = isnan(v) ? 0 : v <= lo ? (int64_t)lo : v >= hi ? (bits == 64 ? INT64_MAX : (int64_t)hi)
                                                                   : (int64_t)llround(v);
        return bits == 64 ? (uint64_t)i : (uint64_t)i & ((1ull << bits) - 1);
    }
    double hi = ldexp(1.0, (int)bits) - 1;
    if (isnan(v) || v <= 0)
        return 0;
    return v >= hi ? (bits == 64 ? UINT64_MAX : (uint64_t)hi) : (uint64_t)llround(v);
}

uint64_t probe_value_bits(DML_TENSOR_DATA_TYPE t, double v)
{
    return dtype_is_float(t) ? float_value_bits(t, v) : int_value_bits(t, v);
}

double probe_orientation(const dml_case *probe)
{
    return (op_table[probe->op].flags & OPF_MINIMIZES) ? -1.0 : 1.0;
}

static uint64_t buffer_elements(const dml_case *probe)
{
    return case_tensor_bytes(&probe->input) / dtype_size(probe->input.type);
}

/* One ARGMIN/ARGMAX row being filled from its own prefix of a pool. */
typedef struct row_fill {
    prng *p;
    dml_case *probe;
    tensor_view view;
    const double *pool;
    size_t used;
    double orientation;
} row_fill;

static bool fill_decider(const dml_case *c, const uint32_t *in, void *ctx)
{
    row_fill *f = ctx;
    double v = f->pool[prng_below(f->p, f->used)] * f->orientation;
    uint64_t at = tensor_view_offset(&f->view, op_logical_of_coords(&c->input, in));
    dtype_store_bits(f->probe->input_data, c->input.type, at, probe_value_bits(c->input.type, v));
    return false;
}

/* Each ARGMIN/ARGMAX row drawn again from a prefix of its own: rows of one probe then differ
 * in which values they hold (one row of zeros of both signs, another of -0 and negatives),
 * so one row can show a cause and another part it from a look-alike.  Pooling windows
 * overlap: they keep the probe's prefix. */
static void fill_rows(prng *p, dml_case *probe, const double *pool, size_t n, double orientation)
{
    const op_module *m = case_module(probe);
    if (!m->output_is_index)
        return;
    row_fill f = { .p = p, .probe = probe, .pool = pool, .orientation = orientation };
    tensor_view out;
    case_tensor_view(&probe->input, &f.view);
    case_tensor_view(&probe->output, &out);
    for (uint64_t logical = 0; out.elements > 1 && logical < out.elements; logical++) {
        uint32_t coords[DML_MAX_RANK];
        decider_facts facts;
        tensor_view_coords(&out, logical, coords);
        f.used = 1 + (size_t)prng_below(p, n);
        m->visit_deciders(probe, coords, fill_decider, &f, &facts);
    }
}

/* Every buffer element from a prefix of the pool, each value times `orientation`; then
 * each row from a prefix of its own (fill_rows). */
static void fill_oriented(prng *p, dml_case *probe, const double *pool, size_t n, double orientation)
{
    uint64_t count = buffer_elements(probe);
    size_t used = 1 + (size_t)prng_below(p, n);
    for (uint64_t e = 0; e < count; e++) {
        double v = pool[prng_below(p, used)] * orientation;
        dtype_store_bits(probe->input_data, probe->input.type, e, probe_value_bits(probe->input.type, v));
    }
    fill_rows(p, probe, pool, n, orientation);
}

void probe_fill_pool(prng *p, dml_case *probe, const double *pool, size_t n)
{
    fill_oriented(p, probe, pool, n, probe_orientation(probe));
}

void probe_fill_values(prng *p, dml_case *probe, const double *pool, size_t n)
{
    fill_oriented(p, probe, pool, n, 1.0);
}

/* Consecutive integers type t holds exactly: past them a fill repeats values (a clamped
 * fill would make most of a large INT8 probe 127 and -128, ties that hide every geometry
 * bug behind the same maximum). */
static uint64_t distinct_integers(DML_TENSOR_DATA_TYPE t)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT16)
        return 4096;
    unsigned bits = dtype_size(t) * 8;
    return dtype_is_float(t) || bits >= 32 ? UINT64_MAX : 1ull << bits;
}

void probe_fill_distinct(prng *p, dml_case *probe)
{
    uint64_t count = buffer_elements(probe);
    bool centred = dtype_get(probe->input.type)->kind != DTYPE_KIND_UNSIGNED;
    uint64_t span = distinct_integers(probe->input.type);
    span = count < span ? count : span;
    for (uint64_t e = 0; e < count; e++) {
        double v = (double)(e % span) - (centred ? (double)(span / 2) : 0.0);
        dtype_store_bits(probe->input_data, probe->input.type, e, probe_value_bits(probe->input.type, v));
    }
    for (uint64_t e = count; e > 1; e--) { /* Fisher-Yates */
        uint64_t k = prng_below(p, e);
        uint64_t a = dtype_load_bits(probe->input_data, probe->input.type, e - 1);
        uint64_t b = dtype_load_bits(probe->input_data, probe->input.type, k);
        dtype_store_bits(probe->input_data, probe->input.type, e - 1, b);
        dtype_store_bits(probe->input_data, probe->input.type, k, a);
    }
}

void probe_plant(dml_case *probe, uint64_t logical, double v)
{
    tensor_view view;
    case_tensor_view(&probe->input, &view);
    dtype_store_bits(probe->input_data, probe->input.type, tensor_view_offset(&view, logical),
                     probe_value_bits(probe->input.type, v * probe_orientation(probe)));
}
