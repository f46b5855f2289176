/*
 * arg_reduce.c: ARGMIN and ARGMAX over any axes of a strided tensor of rank 1-8.
 *
 * The input is walked once, in memory order: its dimensions are sorted by stride (largest
 * outermost), size-1 dimensions dropped and contiguous neighbours merged.  The innermost
 * loop then has one of two shapes:
 *   - a run: the innermost dimension is reduced, so the run feeds a single output element;
 *   - a row: the innermost dimension is kept, so element j of the run feeds output slot j,
 *     and a row of running bests (one per output element) absorbs it.
 * Every candidate carries its key and tie rank (order.h), and the rule is a total order, so
 * the answer does not depend on the walk order: strides never change indices (SEMANTICS D1).
 *
 * Type dispatch happens once per run (keys.c converts a block of up to KEY_BLOCK elements to
 * keys); the inner loops compare int64 keys only.  Float runs and rows first try the float
 * kernels of kernels.h (portable C, or AVX2/F16C where the CPU has them): float32 runs, packed
 * float16 runs widened exactly to float32, and float32 rows whose slots see their candidates
 * in increasing index.  Float comparison agrees with order.h on numbers; a NaN, or a run of
 * -inf that a scan from -inf never takes, sends the run (for rows: the whole walk) back
 * through keys.
 */
#include "reference.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "kernels.h"
#include "keys.h"
#include "order.h"

/* Elements converted per typed call: amortises the call and stays in L1. */
#define KEY_BLOCK 1024

typedef struct loop_dim {
    uint64_t size;
    uint64_t in_stride;      /* bytes */
    uint64_t scratch_stride; /* output slots per step; 0 exactly on reduced dimensions */
    uint64_t weight;         /* step of the reduced index (SEMANTICS D2); 0 on kept ones */
} loop_dim;

typedef struct arg_plan {
    unsigned rank;
    loop_dim dims[DML_MAX_RANK]; /* outermost first */
    uint64_t out_count;
    uint64_t last_index; /* reduced element count - 1: the largest index an output holds */
} arg_plan;

typedef struct arg_state {
    key_rule rule;
    key_convert_fn convert;
    const ref_kernels *kernels;
    bool fast_f32;   /* float32 without flushing: runs may take the float scan */
    bool input_f16;  /* float16: runs use the fused float16 scan */
    bool rows_fast;  /* rows merge as floats into row_best/row_at (rows_may_be_fast) */
    bool gave_up;    /* a fast row saw a NaN: the walk is redone through keys */
    bool minimize;
    bool decreasing;
    uint64_t last_index;
    int64_t *best_key;   /* per output slot (row-major over the output sizes) */
    uint64_t *best_rank; /* ORDER_TIE_NONE until a candidate arrives */
    float *row_best;     /* per output slot, when rows_fast */
    uint32_t *row_at;    /* the reduced index of row_best */
    bool saw_nan;
    int64_t keys[KEY_BLOCK];
    float widened[KEY_BLOCK];
} arg_state;

/* Merges loop dimensions that address memory, output slots and reduced indices as one. */
static void plan_coalesce(arg_plan *plan)
{
    unsigned kept = 0;
    for (unsigned k = 1; k < plan->rank; k++) {
        loop_dim *outer = &plan->dims[kept];
        const loop_dim *inner = &plan->dims[k];
        if (outer->in_stride == inner->in_stride * inner->size
            && outer->scratch_stride == inner->scratch_stride * inner->size
            && outer->weight == inner->weight * inner->size) {
            *outer = (loop_dim){ outer->size * inner->size, inner->in_stride,
                                 inner->scratch_stride, inner->weight };
        } else {
            plan->dims[++kept] = *inner;
        }
    }
    plan->rank = kept + 1;
}

static void plan_build(const dml_case *c, arg_plan *plan)
{
    tensor_view in;
    case_tensor_view(&c->input, &in);
    bool reduced[DML_MAX_RANK] = { false };
    for (UINT a = 0; a < c->axis_count; a++)
        reduced[c->axes[a]] = true;

    /* SEMANTICS D2: the index is row-major over the reduced axes taken in ascending order,
     * whatever the order of the Axes array; output slots are row-major over the kept axes. */
    uint64_t weight[DML_MAX_RANK], scratch[DML_MAX_RANK], reduced_count = 1, kept_count = 1;
    for (unsigned a = in.rank; a-- > 0;) {
        weight[a] = reduced[a] ? reduced_count : 0;
        scratch[a] = reduced[a] ? 0 : kept_count;
        if (reduced[a])
            reduced_count *= in.sizes[a];
        else
            kept_count *= in.sizes[a];
    }
    plan->out_count = kept_count;
    plan->last_index = reduced_count - 1;

    unsigned elem = dtype_size(in.type);
    plan->rank = 0;
    for (unsigned a = 0; a < in.rank; a++) {
        if (in.sizes[a] == 1)
            continue;
        loop_dim d = { in.sizes[a], in.strides[a] * elem, scratch[a], weight[a] };
        unsigned k = plan->rank++;
        while (k > 0 && plan->dims[k - 1].in_stride < d.in_stride) { /* stable: memory order */
            plan->dims[k] = plan->dims[k - 1];
            k--;
        }
        plan->dims[k] = d;
    }
    if (plan->rank == 0)
        plan->dims[plan->rank++] = (loop_dim){ 1, 0, 0, 0 };
    plan_coalesce(plan);
}

/* The float scan of a strided float32 run (kernels.h has the contiguous one). */
static inline __attribute__((always_inline)) bool
f32_scan_strided(const uint8_t *p, uint64_t n, uint64_t stride, bool minimize, bool later_wins,
                 f32_best *best)
{
    for (uint64_t i = 0; i < n; i++) {
        float v;
        memcpy(&v, p + i * stride, sizeof v);
        if (f32_takes(v, best->value, minimize, later_wins)) {
            if (isnan(v))
                return false;
            *best = (f32_best){ v, i };
        }
    }
    return true;
}

/* The float scan of a whole run from the worst value: true with the winner's position when
 * it saw no NaN and took something (an all-(-inf) run under ARGMAX takes nothing). */
static bool f32_run_fast(const arg_state *st, const uint8_t *p, uint64_t n, uint64_t stride,
                         uint64_t *best_i)
{
    const bool minimize = st->minimize, later = st->decreasing;
    f32_best best = { minimize ? INFINITY : -INFINITY, F32_NONE };
    bool clean;
    if (stride == sizeof(float))
        clean = st->kernels->f32_scan[minimize][later](p, n, 0, &best);
    else if (minimize)
        clean = later ? f32_scan_strided(p, n, stride, true, true, &best)
                      : f32_scan_strided(p, n, stride, true, false, &best);
    else
        clean = later ? f32_scan_strided(p, n, stride, false, true, &best)
                      : f32_scan_strided(p, n, stride, false, false, &best);
    *best_i = best.at;
    return clean && best.at != F32_NONE;
}

/* The same for a packed float16 run, widened block by block (exactly: half.h) into floats
 * whose comparison is the halves' order. */
static bool f16_run_fast(arg_state *st, const uint8_t *p, uint64_t n, uint64_t *best_i)
{
    const bool minimize = st->minimize, later = st->decreasing;
    f32_best best = { minimize ? INFINITY : -INFINITY, F32_NONE };
    for (uint64_t start = 0; start < n; start += KEY_BLOCK) {
        uint64_t len = n - start < KEY_BLOCK ? n - start : KEY_BLOCK;
        st->kernels->f16_widen(p + start * 2, len, st->widened);
        if (!st->kernels->f32_scan[minimize][later]((const uint8_t *)st->widened, len, start, &best))
            return false;
    }
    *best_i = best.at;
    return best.at != F32_NONE;
}

/* run_exact for float16: the key is computed in the scanning loop itself. */
static uint64_t run_exact_f16(arg_state *st, const uint8_t *p, uint64_t n, uint64_t stride,
                              int64_t *winner_key)
{
    int64_t best_key = ORDER_KEY_NONE;
    uint64_t best_rank = ORDER_TIE_NONE;
    bool any_nan = false;
    for (uint64_t i = 0; i < n; i++) {
        bool is_nan;
        int64_t key = key_of_f16(p + i * stride, &st->rule, &is_nan);
        any_nan |= is_nan;
        uint64_t rank = order_tie_rank(i, st->decreasing, n - 1);
        if (order_beats(key, rank, best_key, best_rank)) {
            best_key = key;
            best_rank = rank;
        }
    }
    st->saw_nan |= any_nan;
    *winner_key = best_key;
    return order_tie_index(best_rank, st->decreasing, n - 1);
}

/* Exact scan of a run through keys; returns the position of the winner and its key. */
static uint64_t run_exact(arg_state *st, const uint8_t *p, uint64_t n, uint64_t stride,
                          int64_t *winner_key)
{
    if (st->input_f16)
        return run_exact_f16(st, p, n, stride, winner_key);
    int64_t best_key = ORDER_KEY_NONE;
    uint64_t best_rank = ORDER_TIE_NONE;
    for (uint64_t start = 0; start < n; start += KEY_BLOCK) {
        uint64_t len = n - start < KEY_BLOCK ? n - start : KEY_BLOCK;
        st->saw_nan |= st->convert(p + start * stride, len, stride, &st->rule, st->keys);
        for (uint64_t i = 0; i < len; i++) {
            /* Within a run the reduced index grows with i, so the run-local rank orders
             * candidates as their true ranks do. */
            uint64_t rank = order_tie_rank(start + i, st->decreasing, n - 1);
            if (order_beats(st->keys[i], rank, best_key, best_rank)) {
                best_key = st->keys[i];
                best_rank = rank;
            }
        }
    }
    *winner_key = best_key;
    return order_tie_index(best_rank, st->decreasing, n - 1);
}

/* A run feeding output slot `slot`; its first element has reduced index `index`. */
static void reduce_run(arg_state *st, const uint8_t *p, const loop_dim *d, uint64_t slot,
                       uint64_t index)
{
    uint64_t best_i;
    int64_t key;
    bool fast = st->fast_f32 ? f32_run_fast(st, p, d->size, d->in_stride, &best_i)
              : st->input_f16 && d->in_stride == 2 ? f16_run_fast(st, p, d->size, &best_i)
              : false;
    if (fast)
        st->convert(p + best_i * d->in_stride, 1, 0, &st->rule, &key);
    else
        best_i = run_exact(st, p, d->size, d->in_stride, &key);
    uint64_t rank = order_tie_rank(index + best_i * d->weight, st->decreasing, st->last_index);
    if (order_beats(key, rank, st->best_key[slot], st->best_rank[slot])) {
        st->best_key[slot] = key;
        st->best_rank[slot] = rank;
    }
}

/* reduce_row for float32 without flushing: the key is computed in the merging loop itself,
 * saving a pass over a key block (the row shape of outer-axis and transposed reductions). */
static void reduce_row_f32(arg_state *st, const uint8_t *p, const loop_dim *d, uint64_t slot,
                           uint64_t rank)
{
    int64_t *best_key = st->best_key + slot;
    uint64_t *best_rank = st->best_rank + slot;
    bool any_nan = false;
    for (uint64_t j = 0; j < d->size; j++) {
        bool is_nan;
        int64_t key = key_of_f32(p + j * d->in_stride, &st->rule, &is_nan);
        any_nan |= is_nan;
        uint64_t s = j * d->scratch_stride;
        if (order_beats(key, rank, best_key[s], best_rank[s])) {
            best_key[s] = key;
            best_rank[s] = rank;
        }
    }
    st->saw_nan |= any_nan;
}

/* reduce_row as floats (kernels.h), for `rows` rows `row_stride` bytes apart that feed the
 * same slots with reduced indices index, index + index_step, ...: a slot's first candidate,
 * at reduced index 0, is taken as it is; later ones by f32_takes, which is the order of
 * order.h because every slot sees its candidates in increasing index (rows_may_be_fast).
 * A NaN gives up the whole walk. */
static void reduce_rows_floats(arg_state *st, const uint8_t *p, const loop_dim *row,
                               uint64_t rows, uint64_t row_stride, uint64_t slot,
                               uint64_t index, uint64_t index_step)
{
    float *best = st->row_best + slot;
    uint32_t *at = st->row_at + slot;
    if (index == 0) {
        bool any_nan = false;
        memcpy(best, p, row->size * sizeof *best);
        for (uint64_t j = 0; j < row->size; j++) {
            any_nan |= isnan(best[j]);
            at[j] = 0;
        }
        st->gave_up |= any_nan;
        p += row_stride;
        index += index_step;
        rows--;
    }
    if (rows)
        st->gave_up |= !st->kernels->f32_rows[st->minimize][st->decreasing](
            p, row_stride, rows, row->size, (uint32_t)index, (uint32_t)index_step, best, at);
}

/* A row: element j feeds output slot slot + j * scratch_stride, all with reduced index
 * `index`. */
static void reduce_row(arg_state *st, const uint8_t *p, const loop_dim *d, uint64_t slot,
                       uint64_t index)
{
    uint64_t rank = order_tie_rank(index, st->decreasing, st->last_index);
    if (st->fast_f32) {
        reduce_row_f32(st, p, d, slot, rank);
        return;
    }
    for (uint64_t start = 0; start < d->size; start += KEY_BLOCK) {
        uint64_t len = d->size - start < KEY_BLOCK ? d->size - start : KEY_BLOCK;
        st->saw_nan |= st->convert(p + start * d->in_stride, len, d->in_stride, &st->rule, st->keys);
        int64_t *best_key = st->best_key + slot + start * d->scratch_stride;
        uint64_t *best_rank = st->best_rank + slot + start * d->scratch_stride;
        for (uint64_t j = 0; j < len; j++) {
            uint64_t s = j * d->scratch_stride;
            if (order_beats(st->keys[j], rank, best_key[s], best_rank[s])) {
                best_key[s] = st->keys[j];
                best_rank[s] = rank;
            }
        }
    }
}

/* Walks the outer dimensions like an odometer, handing each innermost run or row over;
 * stops early when a fast row gives up.  Rows that merge as floats go over by the whole
 * extent of the dimension around them when it is reduced (its rows feed the same slots), so
 * that the kernel merges several rows per pass over the slots' bests. */
static void walk(arg_state *st, const arg_plan *plan, const uint8_t *input)
{
    const loop_dim *inner = &plan->dims[plan->rank - 1];
    const loop_dim *around = plan->rank >= 2 ? &plan->dims[plan->rank - 2] : NULL;
    const bool batched = st->rows_fast && around && around->scratch_stride == 0;
    const unsigned unit = batched ? 2 : 1; /* dimensions each hand-over covers */
    uint64_t coord[DML_MAX_RANK] = { 0 };
    uint64_t offset = 0, slot = 0, index = 0;
    for (;;) {
        if (batched)
            reduce_rows_floats(st, input + offset, inner, around->size, around->in_stride, slot,
                               index, around->weight);
        else if (st->rows_fast)
            reduce_rows_floats(st, input + offset, inner, 1, 0, slot, index, 0);
        else if (inner->scratch_stride == 0)
            reduce_run(st, input + offset, inner, slot, index);
        else
            reduce_row(st, input + offset, inner, slot, index);
        if (st->gave_up)
            return;
        unsigned k = plan->rank - unit;
        for (;;) {
            if (k == 0)
                return;
            const loop_dim *d = &plan->dims[--k];
            offset += d->in_stride;
            slot += d->scratch_stride;
            index += d->weight;
            if (++coord[k] < d->size)
                break;
            offset -= d->size * d->in_stride;
            slot -= d->size * d->scratch_stride;
            index -= d->size * d->weight;
            coord[k] = 0;
        }
    }
}

/* Stores each output slot's index at its strided address.  SEMANTICS: INT32, INT64, UINT32
 * and UINT64 outputs all carry the same index value. */
static void write_indices(const dml_case *c, const arg_state *st, uint64_t out_count,
                          case_outputs *out)
{
    tensor_view ov;
    case_tensor_view(&c->output, &ov);
    unsigned bytes = dtype_size(ov.type);
    uint32_t coords[DML_MAX_RANK] = { 0 };
    uint64_t offset = 0;
    for (uint64_t slot = 0; slot < out_count; slot++) {
        uint64_t index = order_tie_index(st->best_rank[slot], st->decreasing, st->last_index);
        key_store_raw(out->output + offset * bytes, bytes, index);
        for (unsigned a = ov.rank; a-- > 0;) {
            offset += ov.strides[a];
            if (++coords[a] < ov.sizes[a])
                break;
            offset -= coords[a] * ov.strides[a];
            coords[a] = 0;
        }
    }
}

/* Can rows merge as floats (reduce_row_floats)?  Float32 without flushing, packed rows of
 * packed slots, indices that fit the float path's 32 bits, and a walk that brings each slot
 * its candidates in increasing reduced index: the reduced loop dimensions, outermost first,
 * have decreasing weights (row-major over the reduced axes, SEMANTICS D2). */
static bool rows_may_be_fast(const arg_state *st, const arg_plan *plan)
{
    const loop_dim *inner = &plan->dims[plan->rank - 1];
    if (!st->fast_f32 || inner->scratch_stride != 1 || inner->in_stride != sizeof(float)
        || plan->last_index >= UINT32_MAX)
        return false;
    uint64_t previous = UINT64_MAX;
    for (unsigned k = 0; k + 1 < plan->rank; k++)
        if (plan->dims[k].weight) {
            if (plan->dims[k].weight >= previous)
                return false;
            previous = plan->dims[k].weight;
        }
    return true;
}

/* Sets every output slot to "no candidate yet" and clears what a walk found. */
static void state_reset(arg_state *st, uint64_t out_count)
{
    for (uint64_t s = 0; s < out_count; s++) {
        st->best_key[s] = ORDER_KEY_NONE;
        st->best_rank[s] = ORDER_TIE_NONE;
    }
    st->saw_nan = st->gave_up = false;
}

static void *arg_alloc(uint64_t count, size_t size)
{
    void *p = malloc(count * size);
    if (!p) {
        /* The reference has no error channel (ref_fn); a case too large for memory cannot
         * be judged, and pretending otherwise would be worse than stopping. */
        fprintf(stderr, "dmlcheck reference: out of memory for %llu output elements\n",
                (unsigned long long)count);
        abort();
    }
    return p;
}

/* ARGMIN and ARGMAX differ only in the orientation of the order (OPF_MINIMIZES). */
unsigned ref_arg_reduce(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    const bool minimize = op_table[c->op].flags & OPF_MINIMIZES;
    arg_plan plan;
    plan_build(c, &plan);
    /* Only the fields before the scratch blocks need zeroing: keys[] and widened[] are always
     * written before they are read, and zeroing 12 KiB cost more than small cases. */
    arg_state *st = arg_alloc(1, sizeof *st);
    memset(st, 0, offsetof(arg_state, keys));
    st->best_key = arg_alloc(plan.out_count, sizeof *st->best_key);
    st->best_rank = arg_alloc(plan.out_count, sizeof *st->best_rank);
    key_rule_init(&st->rule, minimize, opt);
    st->convert = key_converter(c->input.type, &st->rule);
    st->kernels = ref_kernels_select();
    st->fast_f32 = c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32 && !opt->flush_denormals;
    st->input_f16 = c->input.type == DML_TENSOR_DATA_TYPE_FLOAT16;
    st->minimize = minimize;
    st->decreasing = c->direction == DML_AXIS_DIRECTION_DECREASING;
    st->last_index = plan.last_index;
    st->rows_fast = rows_may_be_fast(st, &plan);
    if (st->rows_fast) {
        st->row_best = arg_alloc(plan.out_count, sizeof *st->row_best);
        st->row_at = arg_alloc(plan.out_count, sizeof *st->row_at);
    }
    state_reset(st, plan.out_count);
    walk(st, &plan, c->input_data);
    if (st->gave_up) { /* a NaN: the keys decide (SEMANTICS D4) */
        st->rows_fast = false;
        state_reset(st, plan.out_count);
        walk(st, &plan, c->input_data);
    } else if (st->rows_fast) {
        for (uint64_t s = 0; s < plan.out_count; s++)
            st->best_rank[s] = order_tie_rank(st->row_at[s], st->decreasing, st->last_index);
    }
    write_indices(c, st, plan.out_count, out);
    unsigned classes = st->saw_nan ? CASE_CLASS_NAN : 0;
    free(st->row_best);
    free(st->row_at);
    free(st->best_key);
    free(st->best_rank);
    free(st);
    return classes;
}
