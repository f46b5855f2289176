/*
 * arg_reduce.c: the ARGMIN / ARGMAX module (op_module.h).  Both operators share a descriptor
 * layout, rules and geometry; they differ only in which extreme wins (OPF_MINIMIZES).
 *
 * Geometry (SEMANTICS D2): output element `out` reduces the sub-tensor of the input that
 * agrees with `out` on every kept axis; its index counts the positions of that sub-tensor in
 * row-major order over the reduced axes taken in ascending axis order, whatever order Axes
 * lists them in.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "dtype.h"
#include "op_module.h"
#include "tensor.h"

/* ARGMIN and ARGMAX share one checker, which reads both through the ARGMAX type. */
_Static_assert(sizeof(DML_ARGMIN_OPERATOR_DESC) == sizeof(DML_ARGMAX_OPERATOR_DESC)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, InputTensor) == offsetof(DML_ARGMAX_OPERATOR_DESC, InputTensor)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, OutputTensor) == offsetof(DML_ARGMAX_OPERATOR_DESC, OutputTensor)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, AxisCount) == offsetof(DML_ARGMAX_OPERATOR_DESC, AxisCount)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, Axes) == offsetof(DML_ARGMAX_OPERATOR_DESC, Axes)
               && offsetof(DML_ARGMIN_OPERATOR_DESC, AxisDirection) == offsetof(DML_ARGMAX_OPERATOR_DESC, AxisDirection),
               "ARGMIN and ARGMAX descriptors must share a layout");

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
/* SPEC ARGMIN/ARGMAX "Supported dimension counts": 1 to 8 for both tensors. */
static const tensor_rule arg_reduce_input = { "InputTensor", false, 1, 8, arg_reduce_input_types };
static const tensor_rule arg_reduce_output = { "OutputTensor", true, 1, 8, arg_reduce_output_types };

/* SEMANTICS D2: AxisCount >= 1, axes in [0, rank-1], no duplicates.  AxisCount is bounded by
 * the rank before Axes is read, since distinct in-range axes cannot number more. */
static bool check_axes(const validate_ctx *v, const DML_ARGMAX_OPERATOR_DESC *d, UINT rank, dmlc_error *err)
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
static bool check_reduced_sizes(const validate_ctx *v, const DML_ARGMAX_OPERATOR_DESC *d,
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

static bool check_arg_reduce(const validate_ctx *v, const void *desc, dmlc_error *err)
{
    const DML_ARGMAX_OPERATOR_DESC *d = desc; /* same layout for ARGMIN: see _Static_assert */
    const DML_BUFFER_TENSOR_DESC *in = NULL, *out = NULL;
    return validate_tensor(v, &arg_reduce_input, d->InputTensor, &in, err)
        && validate_tensor(v, &arg_reduce_output, d->OutputTensor, &out, err)
        && check_axes(v, d, in->DimensionCount, err)
        && check_direction(d->AxisDirection, err)
        && check_reduced_sizes(v, d, in, out, err);
}


/* ---- Descriptor and case file ----------------------------------------------------------- */

static const op_field arg_reduce_fields[] = {
    { "Axes", OP_FIELD_UINTS, true, 0, offsetof(dml_case, axes), offsetof(dml_case, axis_count),
      DML_MAX_RANK, "axes" },
    { "AxisDirection", OP_FIELD_DIRECTION, true, 0, offsetof(dml_case, direction), 0, 0,
      "direction" },
    { NULL, 0, false, 0, 0, 0, 0, NULL },
};

static void arg_reduce_link(dml_case *c)
{
    /* ARGMIN and ARGMAX descriptors have identical layouts (the _Static_assert above). */
    c->dml.argmax = (DML_ARGMAX_OPERATOR_DESC){
        &c->input.desc, &c->output.desc, c->axis_count, c->axes, c->direction,
    };
    c->op_desc.Desc = &c->dml.argmax;
}

static bool arg_reduce_from_desc(const void *desc, dml_case *c, dmlc_error *err)
{
    const DML_ARGMAX_OPERATOR_DESC *d = desc; /* same layout for ARGMIN: see _Static_assert */
    if (!case_tensor_from_desc(&c->input, d->InputTensor, "InputTensor", err)
        || !case_tensor_from_desc(&c->output, d->OutputTensor, "OutputTensor", err))
        return false;
    if (d->AxisCount > DML_MAX_RANK || (d->AxisCount && !d->Axes))
        return err_set(err, "AxisCount is %u (Axes %s); a case holds at most %u axes", d->AxisCount,
                       d->Axes ? "set" : "NULL", DML_MAX_RANK);
    c->axis_count = d->AxisCount;
    if (c->axis_count) /* no axes may come as Axes NULL, which memcpy must not get */
        memcpy(c->axes, d->Axes, c->axis_count * sizeof c->axes[0]);
    c->direction = d->AxisDirection;
    return true;
}

/* ---- Geometry ------------------------------------------------------------------------------ */

/* SPEC: output rank = input rank; reduced axes have size 1. */
static bool arg_reduce_output_sizes(const dml_case *c, bool ceil, UINT *rank, UINT *sizes)
{
    (void)ceil;
    *rank = c->input.rank;
    memcpy(sizes, c->input.sizes, sizeof(UINT) * c->input.rank);
    for (UINT a = 0; a < c->axis_count; a++)
        if (c->axes[a] < c->input.rank)
            sizes[c->axes[a]] = 1;
    return true;
}

/* The reduced axes in ascending order (SEMANTICS D2: the index counts them that way). */
static unsigned sorted_axes(const dml_case *c, unsigned *axes)
{
    bool reduced[DML_MAX_RANK] = { false };
    for (unsigned i = 0; i < c->axis_count && i < DML_MAX_RANK; i++)
        if (c->axes[i] < DML_MAX_RANK)
            reduced[c->axes[i]] = true;
    unsigned n = 0;
    for (unsigned d = 0; d < c->input.rank; d++)
        if (reduced[d])
            axes[n++] = d;
    return n;
}

static bool arg_reduce_input_of_index(const dml_case *c, const uint32_t *out, uint64_t index,
                                      uint32_t *in)
{
    unsigned axes[DML_MAX_RANK];
    unsigned n = sorted_axes(c, axes);
    memcpy(in, out, sizeof(uint32_t) * c->input.rank);
    for (unsigned i = n; i-- > 0;) {
        UINT size = c->input.sizes[axes[i]];
        in[axes[i]] = (uint32_t)(index % size);
        index /= size;
    }
    return index == 0;
}

/* How many elements one output element reduces. */
static uint64_t reduced_count(const dml_case *c)
{
    unsigned axes[DML_MAX_RANK];
    unsigned n = sorted_axes(c, axes);
    uint64_t count = 1;
    for (unsigned i = 0; i < n; i++)
        count *= c->input.sizes[axes[i]];
    return count;
}

static bool arg_reduce_visit_deciders(const dml_case *c, const uint32_t *out, decider_visit visit,
                                      void *ctx, decider_facts *facts)
{
    if (facts)
        *facts = (decider_facts){ .has_padding = false, .all_padding = false };
    if (!visit)
        return false;
    /* Index order (arg_reduce_input_of_index): an odometer over the reduced axes in
     * ascending order, the last fastest; the fingerprint walks every row this way. */
    unsigned axes[DML_MAX_RANK];
    unsigned n = sorted_axes(c, axes);
    uint32_t in[DML_MAX_RANK];
    memcpy(in, out, sizeof(uint32_t) * c->input.rank);
    for (unsigned i = 0; i < n; i++)
        in[axes[i]] = 0;
    for (;;) {
        if (visit(c, in, ctx))
            return true;
        unsigned i = n;
        while (i-- > 0 && ++in[axes[i]] == c->input.sizes[axes[i]])
            in[axes[i]] = 0;
        if (i == (unsigned)-1)
            return false;
    }
}

/* "axis 2" or "axes 0,1,3": the input axes one grid axis stands for. */
static void name_grid_axis(const unsigned *axes, unsigned count, char *name, size_t size)
{
    size_t used = (size_t)snprintf(name, size, "%s", count == 1 ? "axis " : "axes ");
    for (unsigned i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(name + used, size - used, "%s%u", i ? "," : "", axes[i]);
}

/* The reduced axes longer than 1, ascending, as the grid's axes labelled with their input
 * coordinates (an axis of one element adds nothing to a picture); more than
 * DECIDER_GRID_RANK: the outer ones folded into the first grid axis, labelled with their
 * row-major index.  Row-major grid order is then the index order. */
static void plan_reduction_grid(const dml_case *c, decider_grid *grid)
{
    unsigned axes[DML_MAX_RANK], kept[DML_MAX_RANK], k = 0;
    unsigned n = sorted_axes(c, axes);
    for (unsigned i = 0; i < n; i++)
        if (c->input.sizes[axes[i]] > 1)
            kept[k++] = axes[i];
    *grid = (decider_grid){ .rank = 1, .extent = { 1 }, .first = { 0 } };
    if (k == 0) {
        name_grid_axis(&axes[n - 1], 1, grid->axis_name[0], sizeof grid->axis_name[0]);
        return;
    }
    unsigned folded = k > DECIDER_GRID_RANK ? k - (DECIDER_GRID_RANK - 1) : 1;
    grid->rank = k - folded + 1;
    for (unsigned i = 0; i < folded; i++)
        grid->extent[0] *= c->input.sizes[kept[i]];
    name_grid_axis(kept, folded, grid->axis_name[0], sizeof grid->axis_name[0]);
    for (unsigned g = 1; g < grid->rank; g++) {
        grid->extent[g] = c->input.sizes[kept[folded + g - 1]];
        name_grid_axis(&kept[folded + g - 1], 1, grid->axis_name[g], sizeof grid->axis_name[g]);
    }
}

static void arg_reduce_visit_grid(const dml_case *c, const uint32_t *out, decider_grid *grid,
                                  decider_cell_visit visit, void *ctx)
{
    plan_reduction_grid(c, grid);
    decider_cell cell = { .decides = true, .padding = false };
    uint64_t count = reduced_count(c);
    for (uint64_t r = 0; visit && r < count; r++) {
        uint64_t rest = r;
        for (unsigned g = grid->rank; g-- > 0; rest /= grid->extent[g])
            cell.at[g] = rest % grid->extent[g];
        arg_reduce_input_of_index(c, out, r, cell.in);
        if (visit(&cell, ctx))
            return;
    }
}


/* ---- Generation ------------------------------------------------------------------------- */

/* The output's coordinates are 0 on the reduced axes, so they address the first element;
 * the last is size - 1 further along each reduced axis. */
static bool arg_reduce_decider_ends(const dml_case *c, const tensor_view *in, const uint32_t *out,
                                    uint64_t *first, uint64_t *last)
{
    *first = tensor_view_offset_coords(in, out);
    *last = *first;
    for (UINT a = 0; a < c->axis_count; a++)
        *last += (uint64_t)(in->sizes[c->axes[a]] - 1) * in->strides[c->axes[a]];
    return true;
}

/* One axis, several, or all, in shuffled array order (D2: no duplicates, never none). */
static void draw_axes(prng *p, dml_case *c)
{
    unsigned rank = c->input.rank, perm[DML_MAX_RANK], kind = (unsigned)prng_below(p, 3);
    unsigned count = kind == 0 || rank == 1 ? 1 : kind == 2 ? rank : 2 + (unsigned)prng_below(p, rank - 1);
    draw_permutation(p, rank, perm);
    c->axis_count = count;
    for (unsigned i = 0; i < count; i++)
        c->axes[i] = perm[i];
}

/* Half the time all axes, a quarter at least half of them, else as draw_axes draws them; in
 * shuffled order. */
static void draw_many_axes(prng *p, dml_case *c)
{
    unsigned rank = c->input.rank, half = rank / 2, perm[DML_MAX_RANK], kind = (unsigned)prng_below(p, 4);
    if (kind == 3 || rank < 2) {
        draw_axes(p, c);
        return;
    }
    unsigned count = kind < 2 ? rank : half + (unsigned)prng_below(p, rank - half);
    draw_permutation(p, rank, perm);
    c->axis_count = count ? count : 1;
    for (unsigned i = 0; i < c->axis_count; i++)
        c->axes[i] = perm[i];
}

/* A reduction over more than rq->long_extent_over elements: every dimension drawn small,
 * then one reduced axis grown until the reduced elements pass the size. */
static void draw_long_reduction(prng *p, const shape_request *rq, dml_case *c)
{
    uint32_t reduced = 0;
    for (UINT a = 0; a < c->axis_count; a++)
        reduced |= 1u << c->axes[a];
    draw_dims(p, c->input.rank, rq->budget / (rq->long_extent_over + 1), c->input.sizes);
    unsigned grow = c->axes[prng_below(p, c->axis_count)];
    draw_grow_extent(p, c->input.rank, reduced, grow, rq->long_extent_over, rq->budget,
                     c->input.sizes);
}

static void arg_reduce_draw_shape(prng *p, const shape_request *rq, dml_case *c)
{
    bool deepest = rq->deepest && rq->budget >> DML_MAX_RANK;
    if (rq->long_extent_over && rq->budget > rq->long_extent_over) {
        c->input.rank = 1 + (UINT)prng_below(p, DML_MAX_RANK);
        draw_axes(p, c);
        draw_long_reduction(p, rq, c);
    } else if (deepest) {
        c->input.rank = DML_MAX_RANK;
        draw_dims_split(p, c->input.rank, rq->budget, c->input.sizes);
        if (rq->many_axes)
            draw_many_axes(p, c);
        else
            draw_axes(p, c);
    } else {
        c->input.rank = 1 + (UINT)prng_below(p, DML_MAX_RANK);
        draw_dims(p, c->input.rank, rq->budget, c->input.sizes);
        draw_axes(p, c);
    }
    c->direction = prng_chance(p, 1, 2) ? DML_AXIS_DIRECTION_INCREASING : DML_AXIS_DIRECTION_DECREASING;
    arg_reduce_output_sizes(c, false, &c->output.rank, c->output.sizes);
}


/* ---- Shrinking -------------------------------------------------------------------------- */

static bool arg_reduce_drop_dims(const dml_case *c, const bool *dropped, const unsigned *new_of_old,
                                 dml_case *n)
{
    n->axis_count = 0;
    for (unsigned i = 0; i < c->axis_count; i++)
        if (!dropped[c->axes[i]])
            n->axes[n->axis_count++] = new_of_old[c->axes[i]];
    return n->axis_count > 0;
}

/* Variant k: reduce one axis fewer (the k-th left out). */
static bool arg_reduce_simplify(const dml_case *c, unsigned k, dml_case *n)
{
    if (c->axis_count < 2 || k >= c->axis_count)
        return false;
    memmove(&n->axes[k], &n->axes[k + 1], sizeof(UINT) * (n->axis_count - k - 1));
    n->axis_count--;
    return true;
}

/* ---- Must-reject cases -------------------------------------------------------------------- */

/* SEMANTICS D2: a repeated axis, an axis past the rank, or a direction that is neither. */
static bool arg_reduce_invalidate(prng *p, dml_case *c)
{
    switch (prng_below(p, 3)) {
    case 0:
        if (c->axis_count >= c->input.rank)
            return false;
        c->axes[c->axis_count] = c->axes[0];
        c->axis_count++;
        return true;
    case 1:
        c->axes[prng_below(p, c->axis_count)] = c->input.rank + (UINT)prng_below(p, 3);
        return true;
    default:
        c->direction = (DML_AXIS_DIRECTION)(2 + prng_below(p, 2));
        return true;
    }
}

/* ---- Text ------------------------------------------------------------------------------- */

static const char *direction_name(DML_AXIS_DIRECTION d)
{
    return d == DML_AXIS_DIRECTION_DECREASING ? "DECREASING" : "INCREASING";
}

static void arg_reduce_describe(const dml_case *c, char *buf, size_t size)
{
    char axes[128];
    snprintf(buf, size, "axes=%s direction=%s", op_uints_text(c->axes, c->axis_count, axes, sizeof axes),
             direction_name(c->direction));
}

static bool arg_reduce_params_json(const dml_case *c, char *buf, size_t size)
{
    op_text t;
    op_text_init(&t, buf, size);
    op_text_put(&t, "{\"axes\":");
    op_text_uints(&t, c->axes, c->axis_count);
    op_text_put(&t, ",\"direction\":\"");
    op_text_put(&t, direction_name(c->direction));
    op_text_put(&t, "\"}");
    return !t.overflow;
}

/* ---- Coverage --------------------------------------------------------------------------- */

/* 'one' | 'several' | 'all', with '_shuffled' when the Axes array is not ascending. */
static const char *axis_kind(const dml_case *c)
{
    bool ascending = true;
    for (unsigned i = 1; i < c->axis_count; i++)
        ascending &= c->axes[i - 1] < c->axes[i];
    if (c->axis_count == 1)
        return "one";
    if (c->axis_count == c->input.rank)
        return ascending ? "all" : "all_shuffled";
    return ascending ? "several" : "several_shuffled";
}

static unsigned arg_reduce_coverage(const dml_case *c, const char **dims, const char **values,
                                    unsigned max)
{
    if (max < 3)
        return 0;
    uint64_t reduced = 1;
    for (UINT a = 0; a < c->axis_count && a < DML_MAX_RANK; a++)
        reduced *= c->axes[a] < c->input.rank ? c->input.sizes[c->axes[a]] : 1;
    dims[0] = OP_COVERAGE_AXES;
    values[0] = axis_kind(c);
    dims[1] = "argmin/argmax direction";
    values[1] = c->direction == DML_AXIS_DIRECTION_DECREASING ? "decreasing" : "increasing";
    dims[2] = "argmin/argmax elements reduced per output";
    values[2] = size_tier_name(reduced);
    return 3;
}

static unsigned arg_reduce_coverage_buckets(const char **dims, const char **values, unsigned max)
{
    static const char *const all[] = { "one", "several", "several_shuffled", "all", "all_shuffled",
                                       "increasing", "decreasing" };
    unsigned n = 0;
    for (; n < max && n < sizeof all / sizeof all[0]; n++) {
        dims[n] = n < 5 ? OP_COVERAGE_AXES : "argmin/argmax direction";
        values[n] = all[n];
    }
    unsigned tiers = size_tier_names(values + n, max - n);
    for (unsigned i = 0; i < tiers; i++)
        dims[n + i] = "argmin/argmax elements reduced per output";
    return n + tiers;
}

static const op_tensor_rules arg_reduce_tensors = { &arg_reduce_input, &arg_reduce_output, NULL, false };

const op_module op_module_arg_reduce = {
    .name = "arg_reduce",
    .output_is_index = true,
    .fields = arg_reduce_fields,
    .tensors = &arg_reduce_tensors,
    .link = arg_reduce_link,
    .from_desc = arg_reduce_from_desc,
    .check = check_arg_reduce,
    .output_sizes = arg_reduce_output_sizes,
    .input_of_index = arg_reduce_input_of_index,
    .visit_deciders = arg_reduce_visit_deciders,
    .decider_ends = arg_reduce_decider_ends,
    .visit_grid = arg_reduce_visit_grid,
    .draw_shape = arg_reduce_draw_shape,
    .has_padding = false,
    .channel_dims = false,
    .drop_dims = arg_reduce_drop_dims,
    .simplify = arg_reduce_simplify,
    .invalidate = arg_reduce_invalidate,
    .coverage = arg_reduce_coverage,
    .coverage_buckets = arg_reduce_coverage_buckets,
    .describe = arg_reduce_describe,
    .params_json = arg_reduce_params_json,
};
