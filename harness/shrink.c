/*
 * shrink.c: greedy case minimization (see shrink.h).  Each round lists candidates from the
 * current case, biggest reductions first, and takes the first one the predicate accepts;
 * rounds repeat until none is accepted or the budget is spent.
 *
 * Every candidate is rebuilt from scratch by a `reshape`: each new dimension reads an old
 * dimension at an offset, dropped dimensions are read at a fixed coordinate, and the output
 * sizes are recomputed from the operator's rules.  The layouts (model/layout.h: permuted,
 * padded, broadcast, oversized) and a ceil output size go through the reshape as properties
 * of the dimensions that remain, so a bug that needs one keeps it; try_simpler_layout drops
 * them one at a time, like any other simplification.  Invariants: a candidate is valid at
 * the original feature level (validate_case) before the predicate sees it; a candidate always
 * weighs less than the current case (shrink_weight counts layout properties too), so the
 * search terminates.
 */
#include "shrink.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "half.h"
#include "layout.h"
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

/* The layouts a candidate keeps (layout.h), in the current case's dimensions, and whether its
 * pooling outputs take the ceil size (D8): a bug that needs a strided, broadcast or permuted
 * tensor, or a last window running past the end padding, keeps them in every candidate, and
 * try_simpler_layout drops them one property at a time. */
typedef struct case_layouts {
    tensor_layout input, output, indices;
    bool ceil;
} case_layouts;

static void tensor_layout_of(const case_tensor *t, tensor_layout *l)
{
    if (!t->present || !layout_describe(t, l))
        layout_init(l, t->rank);
}

/* Whether the outputs take the ceil size where it differs from the floor size. */
static bool uses_ceil(const dml_case *c)
{
    UINT rank, floor_sizes[DML_MAX_RANK], ceil_sizes[DML_MAX_RANK];
    const op_module *m = case_module(c);
    if (!m->output_sizes(c, false, &rank, floor_sizes) || !m->output_sizes(c, true, &rank, ceil_sizes)
        || rank != c->output.rank)
        return false;
    return memcmp(floor_sizes, ceil_sizes, sizeof(UINT) * rank) != 0
        && memcmp(c->output.sizes, ceil_sizes, sizeof(UINT) * rank) == 0;
}

static void layouts_of(const dml_case *c, case_layouts *l)
{
    tensor_layout_of(&c->input, &l->input);
    tensor_layout_of(&c->output, &l->output);
    tensor_layout_of(&c->indices, &l->indices);
    l->ceil = uses_ceil(c);
}

/* Gives t the reshaped sizes and the layout `l` (old dimensions) carried through the
 * reshape; a tensor whose dimensions are not the input's is packed. */
static void lay_out(case_tensor *t, unsigned rank, const UINT *sizes, const tensor_layout *l,
                    unsigned old_rank, unsigned old_input_rank, const reshape *r)
{
    t->rank = rank;
    memcpy(t->sizes, sizes, sizeof(UINT) * rank);
    tensor_layout kept;
    if (old_rank == old_input_rank && rank == r->rank)
        layout_select(l, old_rank, r->src_dim, r->rank, &kept);
    else
        layout_init(&kept, rank);
    layout_apply(&kept, t);
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

/* Output sizes of the reshaped case n (floor or ceil as l says); false when there is none. */
static bool derive_outputs(dml_case *n, const dml_case *c, const reshape *r, const case_layouts *l)
{
    UINT rank, out[DML_MAX_RANK];
    if (!case_module(n)->output_sizes(n, l->ceil, &rank, out))
        return false;
    lay_out(&n->output, rank, out, &l->output, c->output.rank, c->input.rank, r);
    if (n->indices.present)
        lay_out(&n->indices, rank, out, &l->indices, c->indices.rank, c->input.rank, r);
    return true;
}

/* The bits of c's input buffer that no logical element owns (the generator puts a would-be
 * winner in every gap and in an oversized tail): a candidate fills its own gaps with them, so
 * a backend that reads a gap still reads a winner.  False when the buffer has no gap. */
static bool gap_bits(const dml_case *c, const tensor_view *v, uint64_t *bits)
{
    uint64_t slots = case_tensor_bytes(&c->input) / dtype_size(v->type);
    if (slots <= v->elements && !c->input.has_strides)
        return false;
    uint8_t *owned = calloc(slots ? slots : 1, 1);
    if (!owned)
        return false;
    for (uint64_t i = 0; i < v->elements; i++) {
        uint64_t at = tensor_view_offset(v, i);
        if (at < slots)
            owned[at] = 1;
    }
    uint64_t gap = 0;
    while (gap < slots && owned[gap])
        gap++;
    free(owned);
    if (gap == slots)
        return false;
    *bits = dtype_load_bits(c->input_data, v->type, gap);
    return true;
}

/* Fills the candidate's input: gaps as c's gaps, each logical element from the old
 * coordinate the reshape maps it to. */
static bool copy_input(const dml_case *c, const reshape *r, dml_case *n)
{
    tensor_view old_v, new_v;
    case_tensor_view(&c->input, &old_v);
    case_tensor_view(&n->input, &new_v);
    uint64_t bytes = case_tensor_bytes(&n->input), gap;
    n->input_data = calloc(1, bytes + 1);
    if (!n->input_data)
        return false;
    if (gap_bits(c, &old_v, &gap))
        for (uint64_t i = 0; i < bytes / dtype_size(new_v.type); i++)
            dtype_store_bits(n->input_data, new_v.type, i, gap);
    for (uint64_t i = 0; i < new_v.elements; i++) {
        uint32_t coords[DML_MAX_RANK], old[DML_MAX_RANK];
        tensor_view_coords(&new_v, i, coords);
        for (unsigned d = 0; d < c->input.rank; d++)
            old[d] = r->dropped[d] ? r->fixed[d] : 0;
        for (unsigned d = 0; d < r->rank; d++)
            old[r->src_dim[d]] = coords[d] + r->offset[d];
        uint64_t bits = dtype_load_bits(c->input_data, old_v.type,
                                        tensor_view_offset_coords(&old_v, old));
        dtype_store_bits(n->input_data, new_v.type, tensor_view_offset(&new_v, i), bits);
    }
    return true;
}

/* Builds the candidate with layouts l; false when it is not a valid case. */
static bool build(const dml_case *c, const reshape *r, const case_layouts *l, dml_case *n)
{
    case_init(n);
    n->op = c->op;
    n->feature_level = c->feature_level;
    n->direction = c->direction;
    n->input = c->input;
    n->output = c->output;
    n->indices = c->indices;
    lay_out(&n->input, r->rank, r->sizes, &l->input, c->input.rank, c->input.rank, r);
    if (!map_parameters(c, r, n) || !derive_outputs(n, c, r, l))
        return false;
    case_link(n);
    if (!copy_input(c, r, n))
        return false;
    dmlc_error err;
    return validate_case(n, &err);
}

/* Layout properties and the ceil size count too: each one dropped is a simpler case. */
uint64_t shrink_weight(const dml_case *c)
{
    case_layouts l;
    layouts_of(c, &l);
    uint64_t w = case_tensor_elements(&c->input) * 64 + c->input.rank * 8 + c->axis_count
               + layout_complexity(&l.input, c->input.rank)
               + layout_complexity(&l.output, c->output.rank)
               + layout_complexity(&l.indices, c->indices.rank) + l.ceil;
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

static bool try_built(search *s, const reshape *r, const case_layouts *l, bool must_weigh_less)
{
    dml_case n;
    if (!build(&s->current, r, l, &n)) {
        case_free(&n);
        return false;
    }
    return offer(s, &n, must_weigh_less);
}

/* A reshape keeps the current layouts and the ceil size; a candidate that would lose it (the
 * new sizes divide evenly) is not offered: try_simpler_layout drops the ceil size on its own. */
static bool try_reshape(search *s, const reshape *r, bool must_weigh_less)
{
    case_layouts l;
    layouts_of(&s->current, &l);
    dml_case n;
    if (!build(&s->current, r, &l, &n) || (l.ceil && !uses_ceil(&n))) {
        case_free(&n);
        return false;
    }
    return offer(s, &n, must_weigh_less);
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

/* The sizes to try for a dimension of `size`, smallest first: 1, 2, 3, then size less a half,
 * a quarter, ... of it (a bisection: a bug that needs a bound is found in a few rounds), and
 * size - 2 (a neighbouring parity keeps a ceil-sized pooling output).  Returns the count. */
static unsigned size_targets(UINT size, UINT *targets)
{
    unsigned n = 0;
    UINT fixed[3] = { 1, 2, 3 };
    for (unsigned i = 0; i < 3; i++)
        targets[n++] = fixed[i];
    for (UINT step = size / 2; step >= 1; step /= 2)
        targets[n++] = size - step;
    if (size > 2)
        targets[n++] = size - 2;
    /* insertion sort, then drop repeats and what does not shrink */
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && targets[j - 1] > targets[j]; j--) {
            UINT t = targets[j];
            targets[j] = targets[j - 1];
            targets[j - 1] = t;
        }
    unsigned kept = 0;
    for (unsigned i = 0; i < n; i++)
        if (targets[i] >= 1 && targets[i] < size && (!kept || targets[kept - 1] != targets[i]))
            targets[kept++] = targets[i];
    return kept;
}

/* Smaller sizes (size_targets), keeping the front or the back. */
static bool try_smaller_sizes(search *s)
{
    for (unsigned d = 0; d < s->current.input.rank; d++) {
        UINT size = s->current.input.sizes[d], targets[40];
        unsigned count = size_targets(size, targets);
        for (unsigned t = 0; t < count; t++) {
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
    reshape same;
    case_layouts l;
    reshape_identity(c, &same);
    layouts_of(c, &l);
    for (unsigned k = 0;; k++) {
        dml_case n;
        if (!case_copy(&n, c))
            return false;
        dmlc_error err;
        if (!case_module(c)->simplify(c, k, &n)) {
            case_free(&n);
            return false;
        }
        if (!derive_outputs(&n, c, &same, &l) || (case_link(&n), !validate_case(&n, &err))) {
            case_free(&n);
            continue;
        }
        if (offer(s, &n, true))
            return true;
    }
}

/* One layout property dropped (layout.h): a whole tensor packed first, then each property
 * alone, then the floor size instead of the ceil size. */
static bool try_layout_edits(search *s, case_layouts *l, tensor_layout *t, unsigned rank)
{
    reshape same;
    reshape_identity(&s->current, &same);
    tensor_layout was = *t;
    bool found = false;
    for (unsigned edit = 0; !found && edit < 5 + 2 * rank; edit++) {
        *t = was;
        if (edit == 0)
            layout_init(t, rank);
        else if (edit == 1)
            t->pitch = 1;
        else if (edit == 2)
            t->extra_bytes = 0;
        else if (edit == 3)
            layout_unpermute(t, rank);
        else if (edit == 4)
            t->explicit_strides = layout_complexity(t, rank) > 1;
        else if (edit < 5 + rank)
            t->pad[edit - 5] = 0;
        else
            t->broadcast &= ~(1u << (edit - 5 - rank));
        found = memcmp(t, &was, sizeof was) != 0 && try_built(s, &same, l, true);
    }
    *t = was;
    return found;
}

static bool try_simpler_layout(search *s)
{
    const dml_case *c = &s->current;
    case_layouts l;
    layouts_of(c, &l);
    if (try_layout_edits(s, &l, &l.input, c->input.rank)
        || try_layout_edits(s, &l, &l.output, c->output.rank)
        || (c->indices.present && try_layout_edits(s, &l, &l.indices, c->indices.rank)))
        return true;
    if (!l.ceil)
        return false;
    reshape same;
    reshape_identity(c, &same);
    l.ceil = false;
    return try_built(s, &same, &l, true);
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
    if (s->values_done)
        return false;
    s->values_done = true;
    DML_TENSOR_DATA_TYPE t = c->input.type;
    tensor_view v;
    case_tensor_view(&c->input, &v);
    uint64_t n_el = v.elements, distinct = 0;
    double *keys = malloc(sizeof(double) * (n_el ? n_el : 1));
    if (!keys)
        return false;
    for (uint64_t i = 0; i < n_el; i++)
        if (value_key(t, dtype_load_bits(c->input_data, t, tensor_view_offset(&v, i)), &keys[distinct]))
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
            uint64_t slot = tensor_view_offset(&v, i);
            if (!value_key(t, dtype_load_bits(c->input_data, t, slot), &key))
                continue;
            double *at = bsearch(&key, keys, unique, sizeof *keys, cmp_double);
            dtype_store_bits(n.input_data, t, slot, small_value_bits(t, (uint64_t)(at - keys)));
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
    while (s.stats->tried < budget) {
        if (try_drop_dims(&s) || try_simpler_parameters(&s) || try_smaller_sizes(&s)
            || try_simpler_layout(&s) || try_simpler_values(&s))
            continue;
        break;
    }
    case_free(out);
    *out = s.current;
    case_link(out);
    return true;
}
