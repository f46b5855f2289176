/*
 * shrink.c: greedy case minimization (see shrink.h).  Each round lists candidates from the
 * current case, biggest reductions first, and takes the first one the predicate accepts;
 * rounds repeat until none is accepted or the budget is spent.
 *
 * Every candidate is rebuilt from scratch as a packed case by a `reshape`: each new
 * dimension reads an old dimension at an offset, dropped dimensions are read at a fixed
 * coordinate, and the output sizes are recomputed from the operator's rules.  Invariants:
 * a candidate is valid at the original feature level (validate_case) before the predicate
 * sees it; a candidate always weighs less than the current case or removes a one-shot
 * complication (strided layout, raw values), so the search terminates.
 */
#include "shrink.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "half.h"
#include "op_module.h"
#include "validate.h"

typedef struct reshape {
    unsigned rank;
    unsigned src_dim[DML_MAX_RANK];  /* old dimension of each new one */
    UINT offset[DML_MAX_RANK];       /* old coordinate = new coordinate + offset */
    UINT sizes[DML_MAX_RANK];        /* new sizes */
    UINT fixed[DML_MAX_RANK];        /* by old dimension: coordinate when dropped */
    bool dropped[DML_MAX_RANK];      /* by old dimension */
} reshape;

static void reshape_identity(const dml_case *c, reshape *r)
{
    memset(r, 0, sizeof *r);
    r->rank = c->input.rank;
    for (unsigned d = 0; d < r->rank; d++) {
        r->src_dim[d] = d;
        r->sizes[d] = c->input.sizes[d];
    }
}

/* Drops old dimension d, read at coordinate `at`. */
static void reshape_drop(reshape *r, unsigned d, UINT at)
{
    unsigned k = 0;
    for (unsigned i = 0; i < r->rank; i++)
        if (r->src_dim[i] != d) {
            r->src_dim[k] = r->src_dim[i];
            r->offset[k] = r->offset[i];
            r->sizes[k++] = r->sizes[i];
        }
    r->rank = k;
    r->dropped[d] = true;
    r->fixed[d] = at;
}

static void packed_tensor(case_tensor *t, unsigned rank, const UINT *sizes)
{
    t->rank = rank;
    memcpy(t->sizes, sizes, sizeof(UINT) * rank);
    t->has_strides = false;
    t->has_total_bytes = false;
    t->base_alignment = 0;
}

/* Output sizes of the reshaped case (the floor size, D8); false when there is none. */
static bool derive_outputs(dml_case *n)
{
    UINT rank, out[DML_MAX_RANK];
    if (!case_module(n)->output_sizes(n, false, &rank, out))
        return false;
    packed_tensor(&n->output, rank, out);
    if (n->indices.present)
        packed_tensor(&n->indices, rank, out);
    return true;
}

/* Maps axes and pooling parameters through the reshape (the operator's module knows which
 * dimensions its parameters follow). */
static bool map_parameters(const dml_case *c, const reshape *r, dml_case *n)
{
    unsigned new_of_old[DML_MAX_RANK];
    for (unsigned i = 0; i < r->rank; i++)
        new_of_old[r->src_dim[i]] = i;
    return case_module(c)->drop_dims(c, r->dropped, new_of_old, n);
}

/* Builds the packed candidate; false when it is not a valid case. */
static bool build(const dml_case *c, const reshape *r, dml_case *n)
{
    case_init(n);
    n->op = c->op;
    n->feature_level = c->feature_level;
    n->direction = c->direction;
    n->input = c->input;
    n->output = c->output;
    n->indices = c->indices;
    packed_tensor(&n->input, r->rank, r->sizes);
    if (!map_parameters(c, r, n) || !derive_outputs(n))
        return false;
    case_link(n);
    tensor_view old_v, new_v;
    case_tensor_view(&c->input, &old_v);
    case_tensor_view(&n->input, &new_v);
    n->input_data = calloc(1, case_tensor_bytes(&n->input) + 1);
    if (!n->input_data)
        return false;
    for (uint64_t i = 0; i < new_v.elements; i++) {
        uint32_t coords[DML_MAX_RANK], old[DML_MAX_RANK];
        tensor_view_coords(&new_v, i, coords);
        for (unsigned d = 0; d < c->input.rank; d++)
            old[d] = r->dropped[d] ? r->fixed[d] : 0;
        for (unsigned d = 0; d < r->rank; d++)
            old[r->src_dim[d]] = coords[d] + r->offset[d];
        uint64_t bits = dtype_load_bits(c->input_data, old_v.type, tensor_view_offset_coords(&old_v, old));
        dtype_store_bits(n->input_data, new_v.type, i, bits);
    }
    dmlc_error err;
    return validate_case(n, &err);
}

uint64_t shrink_weight(const dml_case *c)
{
    uint64_t w = case_tensor_elements(&c->input) * 64 + c->input.rank * 8 + c->axis_count;
    for (unsigned s = 0; s < c->spatial_count; s++)
        w += c->window[s] + c->pool_strides[s] + c->dilations[s] + c->start_padding[s] + c->end_padding[s];
    return w + c->indices.present;
}

/* ---- Candidates --------------------------------------------------------------------- */

typedef struct search {
    dml_case current;
    shrink_predicate still_fails;
    void *ctx;
    unsigned budget;
    shrink_stats *stats;
    bool values_done;
} search;

/* Offers a built candidate: true (and it becomes current) when it still fails. */
static bool offer(search *s, dml_case *n, bool must_weigh_less)
{
    if (s->stats->tried >= s->budget
        || (must_weigh_less && shrink_weight(n) >= shrink_weight(&s->current))) {
        case_free(n);
        return false;
    }
    s->stats->tried++;
    if (!s->still_fails(n, s->ctx)) {
        case_free(n);
        return false;
    }
    s->stats->accepted++;
    case_free(&s->current);
    s->current = *n;
    case_link(&s->current);
    return true;
}

static bool try_reshape(search *s, const reshape *r, bool must_weigh_less)
{
    dml_case n;
    if (!build(&s->current, r, &n)) {
        case_free(&n);
        return false;
    }
    return offer(s, &n, must_weigh_less);
}

static bool is_strided(const dml_case *c)
{
    return c->input.has_strides || c->input.has_total_bytes || c->output.has_strides
        || c->output.has_total_bytes || (c->indices.present && (c->indices.has_strides
                                                                || c->indices.has_total_bytes));
}

/* Fewer dimensions: each droppable one, read at its first and at its last coordinate. */
static bool try_drop_dims(search *s)
{
    const dml_case *c = &s->current;
    if (c->input.rank <= 1)
        return false;
    /* Candidates the module refuses (drop_dims) are never offered: they cost no budget. */
    for (unsigned d = 0; d < c->input.rank; d++) {
        UINT ends[2] = { 0, c->input.sizes[d] - 1 };
        for (int e = 0; e < (ends[1] ? 2 : 1); e++) {
            reshape r;
            reshape_identity(&s->current, &r);
            reshape_drop(&r, d, ends[e]);
            if (try_reshape(s, &r, true))
                return true;
        }
    }
    return false;
}

/* Smaller sizes: to 1, to half, one less; keeping the front or the back. */
static bool try_smaller_sizes(search *s)
{
    for (unsigned d = 0; d < s->current.input.rank; d++) {
        UINT size = s->current.input.sizes[d];
        UINT targets[3] = { 1, size / 2, size - 1 };
        for (int t = 0; t < 3; t++) {
            if (targets[t] < 1 || targets[t] >= size)
                continue;
            for (int back = 0; back < 2; back++) {
                reshape r;
                reshape_identity(&s->current, &r);
                r.sizes[d] = targets[t];
                r.offset[d] = back ? size - targets[t] : 0;
                if (try_reshape(s, &r, true))
                    return true;
            }
        }
    }
    return false;
}

/* The operator's own simpler variants (fewer reduced axes; plainer pooling parameters). */
static bool try_simpler_parameters(search *s)
{
    const dml_case *c = &s->current;
    for (unsigned k = 0;; k++) {
        dml_case n;
        if (!case_copy(&n, c))
            return false;
        dmlc_error err;
        if (!case_module(c)->simplify(c, k, &n)) {
            case_free(&n);
            return false;
        }
        if (!derive_outputs(&n) || (case_link(&n), !validate_case(&n, &err))) {
            case_free(&n);
            continue;
        }
        if (offer(s, &n, true))
            return true;
    }
}

/* Numeric order key of an element (floats by value; NaN has none). */
static bool value_key(DML_TENSOR_DATA_TYPE t, uint64_t bits, double *key)
{
    if (dtype_is_float(t)) {
        if (dtype_bits_is_nan(t, bits))
            return false;
        *key = dtype_bits_to_double(t, bits);
        return *key == *key && *key - *key == 0; /* finite only */
    }
    *key = dtype_is_signed_int(t) ? (double)dtype_bits_to_i64(t, bits) : (double)bits;
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Bits of small integer value v in type t. */
static uint64_t small_value_bits(DML_TENSOR_DATA_TYPE t, uint64_t v)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return float_to_bits((float)v);
    case DML_TENSOR_DATA_TYPE_FLOAT16: return float_to_half((float)v);
    case DML_TENSOR_DATA_TYPE_FLOAT64: { double d = (double)v; uint64_t b; memcpy(&b, &d, 8); return b; }
    default: return v;
    }
}

/* Simpler values: each finite value replaced by its rank among the distinct finite values
 * (0, 1, 2, ...), which keeps order and ties; NaN and infinities stay. */
static bool try_simpler_values(search *s)
{
    const dml_case *c = &s->current;
    if (s->values_done || c->input.has_strides || c->input.has_total_bytes)
        return false;
    s->values_done = true;
    DML_TENSOR_DATA_TYPE t = c->input.type;
    uint64_t n_el = case_tensor_elements(&c->input), distinct = 0;
    double *keys = malloc(sizeof(double) * (n_el ? n_el : 1));
    if (!keys)
        return false;
    for (uint64_t i = 0; i < n_el; i++)
        if (value_key(t, dtype_load_bits(c->input_data, t, i), &keys[distinct]))
            distinct++;
    qsort(keys, distinct, sizeof *keys, cmp_double);
    uint64_t unique = 0;
    for (uint64_t i = 0; i < distinct; i++)
        if (!unique || keys[unique - 1] != keys[i])
            keys[unique++] = keys[i];
    uint64_t limit = dtype_size(t) == 1 ? 100 : 2000; /* exact in INT8 and FLOAT16 */
    dml_case n;
    bool ok = unique <= limit && case_copy(&n, c);
    if (ok) {
        for (uint64_t i = 0; i < n_el; i++) {
            double key;
            if (!value_key(t, dtype_load_bits(c->input_data, t, i), &key))
                continue;
            double *at = bsearch(&key, keys, unique, sizeof *keys, cmp_double);
            dtype_store_bits(n.input_data, t, i, small_value_bits(t, (uint64_t)(at - keys)));
        }
        ok = memcmp(n.input_data, c->input_data, case_tensor_bytes(&c->input)) != 0;
        ok = ok ? offer(s, &n, false) : (case_free(&n), false);
    }
    free(keys);
    return ok;
}

bool shrink_case(const dml_case *c, shrink_predicate still_fails, void *ctx, unsigned budget,
                 dml_case *out, shrink_stats *stats)
{
    shrink_stats local;
    search s = { .still_fails = still_fails, .ctx = ctx, .budget = budget,
                 .stats = stats ? stats : &local };
    memset(s.stats, 0, sizeof *s.stats);
    if (!case_copy(&s.current, c))
        return false;
    /* A packed copy first: every later candidate is packed anyway. */
    if (is_strided(&s.current)) {
        reshape r;
        reshape_identity(&s.current, &r);
        try_reshape(&s, &r, false);
    }
    while (s.stats->tried < budget) {
        if (try_drop_dims(&s) || try_simpler_parameters(&s) || try_smaller_sizes(&s)
            || try_simpler_values(&s))
            continue;
        break;
    }
    case_free(out);
    *out = s.current;
    case_link(out);
    return true;
}
