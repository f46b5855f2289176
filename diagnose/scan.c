/*
 * scan.c: the variant oracle (scan.h).  Plain loops, one output element at a time: gather the
 * element's candidates in the order the tie rule counts them, pick the winner the way the
 * variant says, write what the variant says where it says.  Slow on purpose; probes are tiny.
 */
#include "scan.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "op_module.h"
#include "order.h"

/* The candidates of one output element, grown as needed and reused from element to element. */
typedef struct gather {
    const scan_variant *v;
    const scan_env *e;
    scan_item *items;
    size_t count, cap;
    uint64_t position;   /* arg reduce: the D2 index of the next element visited; pooling:
                          * the next window position's ordinal */
    bool out_of_memory, out_of_bounds;
} gather;

uint64_t scan_strided_offset(const case_tensor *t, const uint32_t *coords)
{
    tensor_view view;
    case_tensor_view(t, &view);
    return tensor_view_offset_coords(&view, coords);
}

int64_t scan_spec_number_key(const scan_env *e, uint64_t bits, bool *is_nan)
{
    DML_TENSOR_DATA_TYPE t = e->seen->input.type;
    *is_nan = dtype_bits_is_nan(t, bits);
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return order_key_f32((uint32_t)bits, e->exec->flush_denormals);
    case DML_TENSOR_DATA_TYPE_FLOAT16: return order_key_f16((uint16_t)bits);
    case DML_TENSOR_DATA_TYPE_FLOAT64: /* sign-magnitude, as order.h reads every float */
        return (bits >> 63) ? -(int64_t)(bits & INT64_MAX) : (int64_t)bits;
    default:
        return dtype_is_signed_int(t) ? order_key_signed(dtype_bits_to_i64(t, bits))
                                      : order_key_unsigned(bits);
    }
}

int64_t scan_final_key(const scan_env *e, int64_t key, bool is_nan)
{
    return order_final_key(key, is_nan, order_orient_mask(e->minimize), order_nan_key(e->exec->nan));
}

bool scan_spec_replaces(const scan_env *e, const scan_item *cand, const scan_item *best)
{
    /* D3: INCREASING keeps the first of equals, DECREASING takes the last; pooling the first. */
    return cand->key > best->key || (cand->key == best->key && e->decreasing);
}

static bool gather_push(gather *g, const scan_item *item)
{
    if (g->count == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        scan_item *grown = realloc(g->items, cap * sizeof *grown);
        if (!grown) {
            g->out_of_memory = true;
            return false;
        }
        g->items = grown;
        g->cap = cap;
    }
    g->items[g->count++] = *item;
    return true;
}

static void item_key(const gather *g, scan_item *item)
{
    int64_t key = g->v->number_key ? g->v->number_key(g->e, item->bits, &item->is_nan)
                                   : scan_spec_number_key(g->e, item->bits, &item->is_nan);
    item->key = scan_final_key(g->e, key, item->is_nan);
}

/* Adds the real input element at `in`; false stops the walk (memory, or a read past the
 * buffer, which no prediction can say anything about). */
static bool gather_element(gather *g, const uint32_t *in, uint64_t index, uint64_t tap)
{
    const dml_case *c = g->e->seen;
    uint64_t offset = g->v->input_offset ? g->v->input_offset(g->e, in)
                                         : scan_strided_offset(&c->input, in);
    unsigned size = dtype_size(c->input.type);
    if ((offset + 1) * size > case_tensor_bytes(&c->input)) {
        g->out_of_bounds = true;
        return false;
    }
    scan_item item = { .bits = dtype_load_bits(c->input_data, c->input.type, offset), .index = index,
                       .tap = tap };
    memcpy(item.in, in, sizeof item.in);
    item_key(g, &item);
    return gather_push(g, &item);
}

static bool visit_reduced(const dml_case *c, const uint32_t *in, void *ctx)
{
    (void)c;
    gather *g = ctx;
    uint64_t position = g->position++;
    return !gather_element(g, in, position, position);
}

static bool visit_window_cell(const decider_cell *cell, void *ctx)
{
    gather *g = ctx;
    if (!cell->decides)
        return false;
    uint64_t tap = g->position++;
    if (!cell->padding)
        return !gather_element(g, cell->in, op_logical_of_coords(&g->e->seen->input, cell->in), tap);
    scan_item item = { .padding = true, .index = UINT64_MAX, .tap = tap };
    if (!g->v->padding_bits || !g->v->padding_bits(g->e, &item.bits))
        return false; /* D7: padding is no candidate */
    memcpy(item.in, cell->in, sizeof item.in);
    item_key(g, &item);
    return !gather_push(g, &item);
}

/* The winner among the gathered candidates; false when there is none (all padding, no
 * seed). */
static bool pick(const gather *g, scan_item *best)
{
    const scan_env *e = g->e;
    const scan_variant *v = g->v;
    if (!g->count) /* no candidate: a seeded best is still there */
        return v->seed && v->seed(e, NULL, best);
    bool backwards = v->backwards && v->backwards(e);
    const scan_item *first = &g->items[backwards ? g->count - 1 : 0];
    size_t from = 0;
    if (!v->seed || !v->seed(e, first, best)) {
        *best = *first;
        from = 1;
    }
    for (size_t k = from; k < g->count; k++) {
        const scan_item *cand = &g->items[backwards ? g->count - 1 - k : k];
        if (v->replaces ? v->replaces(e, cand, best) : scan_spec_replaces(e, cand, best))
            *best = *cand;
    }
    return true;
}

static uint64_t output_offset(const scan_env *e, const scan_variant *v, const case_tensor *t,
                              uint64_t logical)
{
    if (v->output_offset)
        return v->output_offset(e, t, logical);
    tensor_view view;
    case_tensor_view(t, &view);
    return tensor_view_offset(&view, logical);
}

/* Writes one output element: the index (arg reduce) or the value and its index (pooling);
 * with no candidate, what D7 has the reference write (the type's lowest, index all ones).  A
 * winner that names no element (a seeded best still standing, index all ones) keeps its
 * index: index_of maps an element's position, and a seed has none (its coordinates are
 * zeros, which buffer-offset or window-position hooks would turn into index 0 of the plane,
 * a confident name for an answer neither bug gives). */
static void write_element(const scan_env *e, const scan_variant *v, uint64_t logical,
                          const scan_item *winner, case_outputs *out)
{
    const dml_case *c = e->seen;
    uint64_t index = !winner ? UINT64_MAX
                   : v->index_of && winner->index != UINT64_MAX ? v->index_of(e, winner)
                   : winner->index;
    if (v->stored_index)
        index = v->stored_index(e, index);
    if (!e->pooling) {
        dtype_store_bits(out->output, c->output.type, output_offset(e, v, &c->output, logical), index);
        return;
    }
    uint64_t bits = !winner ? dtype_lowest_bits(c->input.type)
                  : v->value_of ? v->value_of(e, winner) : winner->bits;
    dtype_store_bits(out->output, c->output.type, output_offset(e, v, &c->output, logical), bits);
    if (c->indices.present && out->indices)
        dtype_store_bits(out->indices, c->indices.type, output_offset(e, v, &c->indices, logical), index);
}

static bool scan_all(const scan_env *whole, const scan_variant *v, case_outputs *out, dmlc_error *err)
{
    const dml_case *c = whole->seen;
    const op_module *m = case_module(c);
    tensor_view out_view;
    case_tensor_view(&c->output, &out_view);
    scan_env element = *whole;
    const scan_env *e = &element;
    gather g = { .v = v, .e = e };
    for (uint64_t logical = 0; logical < out_view.elements; logical++) {
        uint32_t coords[DML_MAX_RANK];
        tensor_view_coords(&out_view, logical, coords);
        element.out = coords;
        if (v->written && !v->written(e, logical, coords))
            continue; /* the canary stays */
        g.count = 0;
        g.position = 0;
        if (e->pooling) {
            decider_grid grid;
            m->visit_grid(c, coords, &grid, visit_window_cell, &g);
        } else {
            m->visit_deciders(c, coords, visit_reduced, &g, NULL);
        }
        if (g.out_of_memory || g.out_of_bounds)
            break;
        scan_item winner;
        write_element(e, v, logical, pick(&g, &winner) ? &winner : NULL, out);
    }
    free(g.items);
    if (g.out_of_memory)
        return err_set(err, "out of memory gathering a probe's candidates");
    if (g.out_of_bounds)
        return err_set(err, "the hypothesis reads past the input buffer");
    return true;
}

/* The reshaped case must keep the probe's buffers: the backend wrote into buffers of the
 * probe's sizes, and the prediction is read back at the probe's addresses. */
static bool same_buffers(const dml_case *probe, const dml_case *seen)
{
    return case_tensor_bytes(&seen->input) <= case_tensor_bytes(&probe->input)
        && case_tensor_bytes(&seen->output) == case_tensor_bytes(&probe->output)
        && seen->indices.present == probe->indices.present
        && (!seen->indices.present
            || case_tensor_bytes(&seen->indices) == case_tensor_bytes(&probe->indices));
}

bool scan_predict(const scan_variant *v, const dml_case *probe, const exec_options *exec,
                  case_outputs *out, dmlc_error *err)
{
    dml_case seen;
    case_init(&seen);
    if (!case_copy(&seen, probe))
        return err_set(err, "out of memory copying a probe");
    bool ok = !v->reshape || v->reshape(probe, &seen);
    if (!ok || !same_buffers(probe, &seen)) {
        case_free(&seen);
        return err_set(err, "the hypothesis has no reading of this probe");
    }
    scan_env e = {
        .seen = &seen,
        .exec = exec,
        .minimize = (op_table[seen.op].flags & OPF_MINIMIZES) != 0,
        .pooling = !case_module(&seen)->output_is_index,
    };
    e.decreasing = !e.pooling && seen.direction == DML_AXIS_DIRECTION_DECREASING;
    *out = (case_outputs){ 0 };
    if (!case_outputs_alloc(out, probe))
        ok = err_set(err, "out of memory allocating a prediction");
    else
        ok = scan_all(&e, v, out, err);
    if (!ok)
        case_outputs_free(out);
    case_free(&seen);
    return ok;
}

/* One hook of the composition: the one that is set; false when both are. */
#define COMPOSE_HOOK(name)                                                                   \
    do {                                                                                     \
        if (a->name && b->name)                                                              \
            return false;                                                                    \
        out->name = a->name ? a->name : b->name;                                             \
    } while (0)

/* A hook added to scan_variant must be composed too. */
_Static_assert(sizeof(scan_variant) == 12 * sizeof(void (*)(void)),
               "scan_variant_compose names every hook");

bool scan_variant_compose(const scan_variant *a, const scan_variant *b, scan_variant *out)
{
    *out = (scan_variant){ 0 };
    COMPOSE_HOOK(reshape);
    COMPOSE_HOOK(input_offset);
    COMPOSE_HOOK(padding_bits);
    COMPOSE_HOOK(number_key);
    COMPOSE_HOOK(backwards);
    COMPOSE_HOOK(seed);
    COMPOSE_HOOK(replaces);
    COMPOSE_HOOK(index_of);
    COMPOSE_HOOK(value_of);
    COMPOSE_HOOK(output_offset);
    COMPOSE_HOOK(written);
    COMPOSE_HOOK(stored_index);
    return true;
}
