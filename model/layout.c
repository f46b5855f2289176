/*
 * layout.c: strides from and to layout properties (layout.h).
 */
#include "layout.h"

#include <string.h>

#include "tensor.h"

void layout_init(tensor_layout *l, unsigned rank)
{
    memset(l, 0, sizeof *l);
    for (unsigned i = 0; i < rank; i++)
        l->order[i] = i;
    l->pitch = 1;
}

static bool is_broadcast(const tensor_layout *l, unsigned d)
{
    return (l->broadcast >> d) & 1u;
}

/* Whether stored dimension a lies outside b: larger stride; on equal strides (possible only
 * when one of them has size 1) the larger size, then the logical order. */
static bool outside(const case_tensor *t, unsigned a, unsigned b)
{
    if (t->strides[a] != t->strides[b])
        return t->strides[a] > t->strides[b];
    if (t->sizes[a] != t->sizes[b])
        return t->sizes[a] > t->sizes[b];
    return a < b;
}

/* Stored dimensions outermost first, then the broadcast ones; returns the stored count. */
static unsigned memory_order(const case_tensor *t, const tensor_layout *l, unsigned *order)
{
    unsigned stored = 0;
    for (unsigned d = 0; d < t->rank; d++)
        if (!is_broadcast(l, d)) {
            unsigned j = stored++;
            for (; j > 0 && outside(t, d, order[j - 1]); j--) /* insertion sort, rank <= 8 */
                order[j] = order[j - 1];
            order[j] = d;
        }
    unsigned n = stored;
    for (unsigned d = 0; d < t->rank; d++)
        if (is_broadcast(l, d))
            order[n++] = d;
    return stored;
}

bool layout_describe(const case_tensor *t, tensor_layout *l)
{
    layout_init(l, t->rank);
    if (t->has_strides) {
        l->explicit_strides = true;
        for (unsigned d = 0; d < t->rank; d++)
            if (t->strides[d] == 0)
                l->broadcast |= 1u << d;
        unsigned stored = memory_order(t, l, l->order);
        if (stored)
            l->pitch = t->strides[l->order[stored - 1]];
        /* Each stored dimension's stride is the next one inward's times its padded extent. */
        for (unsigned i = 0; i + 1 < stored; i++) {
            unsigned outer = l->order[i], inner = l->order[i + 1];
            UINT so = t->strides[outer], si = t->strides[inner];
            if (so % si || so / si < t->sizes[inner])
                return false;
            l->pad[inner] = so / si - t->sizes[inner];
        }
    }
    UINT64 needed = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes,
                                                t->has_strides ? t->strides : NULL);
    if (t->has_total_bytes && t->total_bytes > needed)
        l->extra_bytes = t->total_bytes - needed;
    return true;
}

void layout_apply(const tensor_layout *l, case_tensor *t)
{
    t->has_strides = l->explicit_strides;
    if (l->explicit_strides) {
        uint64_t stride = l->pitch;
        for (unsigned i = t->rank; i-- > 0;) {
            unsigned d = l->order[i];
            if (is_broadcast(l, d)) {
                t->strides[d] = 0;
                continue;
            }
            t->strides[d] = (UINT)stride;
            stride *= (uint64_t)t->sizes[d] + l->pad[d];
        }
    }
    t->has_total_bytes = l->extra_bytes != 0;
    t->total_bytes = 0;
    if (t->has_total_bytes)
        t->total_bytes = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes,
                                                     t->has_strides ? t->strides : NULL)
                       + l->extra_bytes;
}

void layout_select(const tensor_layout *l, unsigned old_rank, const unsigned *kept_old,
                   unsigned new_rank, tensor_layout *out)
{
    unsigned new_of_old[DML_MAX_RANK];
    for (unsigned d = 0; d < old_rank; d++)
        new_of_old[d] = DML_MAX_RANK;
    for (unsigned i = 0; i < new_rank; i++)
        new_of_old[kept_old[i]] = i;
    *out = *l;
    out->broadcast = 0;
    memset(out->pad, 0, sizeof out->pad);
    unsigned n = 0;
    for (unsigned i = 0; i < old_rank; i++) {
        unsigned old = l->order[i], d = new_of_old[old];
        if (d == DML_MAX_RANK)
            continue;
        out->order[n++] = d;
        out->pad[d] = l->pad[old];
        if (is_broadcast(l, old))
            out->broadcast |= 1u << d;
    }
}

bool layout_is_permuted(const tensor_layout *l, unsigned rank)
{
    unsigned last = 0;
    bool any = false;
    for (unsigned i = 0; i < rank; i++) {
        unsigned d = l->order[i];
        if (is_broadcast(l, d))
            continue;
        if (any && d < last)
            return true;
        last = d;
        any = true;
    }
    return false;
}

void layout_unpermute(tensor_layout *l, unsigned rank)
{
    for (unsigned d = 0; d < rank; d++)
        l->order[d] = d;
}

unsigned layout_complexity(const tensor_layout *l, unsigned rank)
{
    unsigned n = l->explicit_strides + (l->pitch > 1) + (l->extra_bytes != 0)
               + layout_is_permuted(l, rank);
    for (unsigned d = 0; d < rank; d++)
        n += (l->pad[d] != 0) + is_broadcast(l, d);
    return n;
}
