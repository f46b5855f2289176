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
 * keys); the inner loops compare int64 keys only.  Contiguous float32 runs first try a plain
 * float scan, which agrees with order.h whenever it sees no NaN and selects something; when
 * it sees a NaN or an all-(-inf) run, the run is rescanned exactly through keys.
 */
#include "reference.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
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
    bool fast_f32;   /* float32 without flushing: runs may take the float scan */
    bool input_f16;  /* float16: runs use the fused float16 scan */
    bool minimize;
    bool decreasing;
    uint64_t last_index;
    int64_t *best_key;   /* per output slot (row-major over the output sizes) */
    uint64_t *best_rank; /* ORDER_TIE_NONE until a candidate arrives */
    bool saw_nan;
    int64_t keys[KEY_BLOCK];
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

/* Does v beat best in the float scan?  True for a better value and for a NaN
 * ("!(v <= best)" holds for both), so a NaN is always noticed. */
static inline __attribute__((always_inline)) bool
f32_takes(float v, float best, bool minimize, bool later_wins)
{
    return minimize ? (later_wins ? !(v > best) : !(v >= best))
                    : (later_wins ? !(v < best) : !(v <= best));
}

/* The float scan for one orientation and tie direction (constants after inlining).  Blocks
 * of F32_BLOCK elements are first tested as a whole, a fixed-length loop the compiler turns
 * into vector compares; only a block holding a winner or a NaN is walked element by element.
 * A NaN aborts the scan.  From -inf (+inf for ARGMIN) with strict comparison, an all-(-inf)
 * run selects nothing, which also aborts: both cases go to the exact path. */
#define F32_BLOCK 16
static inline __attribute__((always_inline)) bool
f32_scan(const uint8_t *p, uint64_t n, uint64_t stride, bool minimize, bool later_wins,
         uint64_t *best_i)
{
    float best = minimize ? INFINITY : -INFINITY;
    uint64_t chosen = UINT64_MAX, i = 0;
    if (stride == sizeof(float))
        for (; i + F32_BLOCK <= n; i += F32_BLOCK) {
            float block[F32_BLOCK];
            memcpy(block, p + i * sizeof(float), sizeof block);
            unsigned any = 0;
            for (unsigned k = 0; k < F32_BLOCK; k++)
                any |= f32_takes(block[k], best, minimize, later_wins);
            if (__builtin_expect(!any, 1))
                continue;
            for (unsigned k = 0; k < F32_BLOCK; k++)
                if (f32_takes(block[k], best, minimize, later_wins)) {
                    if (isnan(block[k]))
                        return false;
                    best = block[k];
                    chosen = i + k;
                }
        }
    for (; i < n; i++) {
        float v;
        memcpy(&v, p + i * stride, 4);
        if (f32_takes(v, best, minimize, later_wins)) {
            if (isnan(v))
                return false;
            best = v;
            chosen = i;
        }
    }
    *best_i = chosen;
    return chosen != UINT64_MAX;
}

/* SEMANTICS D3 in float terms: strict comparison keeps the first extreme (INCREASING),
 * non-strict the last (DECREASING); +0 == -0 so they tie; no NaN reaches a comparison. */
static bool f32_run_fast(const uint8_t *p, uint64_t n, uint64_t stride, bool minimize,
                         bool decreasing, uint64_t *best_i)
{
    if (minimize)
        return decreasing ? f32_scan(p, n, stride, true, true, best_i)
                          : f32_scan(p, n, stride, true, false, best_i);
    return decreasing ? f32_scan(p, n, stride, false, true, best_i)
                      : f32_scan(p, n, stride, false, false, best_i);
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
    if (st->fast_f32 && f32_run_fast(p, d->size, d->in_stride, st->minimize, st->decreasing, &best_i))
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

/* Walks the outer dimensions like an odometer, handing each innermost run or row over. */
static void walk(arg_state *st, const arg_plan *plan, const uint8_t *input)
{
    const loop_dim *inner = &plan->dims[plan->rank - 1];
    uint64_t coord[DML_MAX_RANK] = { 0 };
    uint64_t offset = 0, slot = 0, index = 0;
    for (;;) {
        if (inner->scratch_stride == 0)
            reduce_run(st, input + offset, inner, slot, index);
        else
            reduce_row(st, input + offset, inner, slot, index);
        unsigned k = plan->rank - 1;
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

/* ARGMIN and ARGMAX differ only in the orientation of the order (OPF_MINIMIZES). */
unsigned ref_arg_reduce(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    const bool minimize = op_table[c->op].flags & OPF_MINIMIZES;
    arg_plan plan;
    plan_build(c, &plan);
    /* Only the fields before the key scratch block need zeroing: keys[] is always written
     * by a conversion before it is read, and zeroing its 8 KiB cost more than small cases. */
    arg_state *st = malloc(sizeof *st);
    if (st) {
        memset(st, 0, offsetof(arg_state, keys));
        st->best_key = malloc(plan.out_count * sizeof *st->best_key);
        st->best_rank = malloc(plan.out_count * sizeof *st->best_rank);
    }
    if (!st || !st->best_key || !st->best_rank) {
        /* The reference has no error channel (ref_fn); a case too large for memory cannot
         * be judged, and pretending otherwise would be worse than stopping. */
        fprintf(stderr, "dmlcheck reference: out of memory for %llu output elements\n",
                (unsigned long long)plan.out_count);
        abort();
    }
    key_rule_init(&st->rule, minimize, opt);
    st->convert = key_converter(c->input.type, &st->rule);
    st->fast_f32 = c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32 && !opt->flush_denormals;
    st->input_f16 = c->input.type == DML_TENSOR_DATA_TYPE_FLOAT16;
    st->minimize = minimize;
    st->decreasing = c->direction == DML_AXIS_DIRECTION_DECREASING;
    st->last_index = plan.last_index;
    for (uint64_t s = 0; s < plan.out_count; s++) {
        st->best_key[s] = ORDER_KEY_NONE;
        st->best_rank[s] = ORDER_TIE_NONE;
    }
    walk(st, &plan, c->input_data);
    write_indices(c, st, plan.out_count, out);
    unsigned classes = st->saw_nan ? CASE_CLASS_NAN : 0;
    free(st->best_key);
    free(st->best_rank);
    free(st);
    return classes;
}
