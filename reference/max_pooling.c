/*
 * max_pooling2.c: DML_OPERATOR_MAX_POOLING2 on 4-D {N,C,H,W} and 5-D {N,C,D,H,W} inputs (a
 * 4-D input is pooled as 5-D with a depth of 1 and a 1-wide window).
 *
 * Per (n, c) plane the input is converted once into a packed plane of order keys (keys.c),
 * then every window is scanned over that plane.  Padding is never tested per element: for
 * each output position and spatial axis, the range of window taps that land inside the input
 * is computed once per case (SEMANTICS D7: padding never wins, so it is simply not visited),
 * and the taps are visited in row-major order, so the first of equal keys (the smallest flat
 * input index, D3) wins under order_beats.  The output is the exact bits of the chosen
 * element (D3: -0.0 stays -0.0), and the index is the flat logical index over the whole
 * input, N and C included.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dtype.h"
#include "half.h"
#include "keys.h"
#include "order.h"
#include "reference.h"

#define POOL_AXES 3 /* depth, height, width */

/* One spatial axis, with the in-input tap range of each output position. */
typedef struct pool_axis {
    uint64_t in_size;
    uint64_t in_stride;  /* bytes */
    uint64_t out_size;
    uint64_t dilation;
    uint64_t *start;     /* input coordinate of the first in-input tap of each output position */
    uint64_t *taps;      /* how many taps of each output position lie inside the input */
} pool_axis;

static void *pool_alloc(uint64_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        /* ref_fn has no error channel; see arg_reduce.c. */
        fprintf(stderr, "dmlcheck reference: out of memory (%llu bytes) for pooling\n",
                (unsigned long long)bytes);
        abort();
    }
    return p;
}

/* SEMANTICS D8: the caller's output sizes (validated: floor or ceil of the dilated formula)
 * decide how many windows there are; each window starts at o*stride - start_padding. */
static void pool_axis_init(pool_axis *a, uint64_t in_size, uint64_t in_stride, uint64_t out_size,
                           uint64_t window, uint64_t stride, uint64_t start_padding,
                           uint64_t dilation)
{
    a->in_size = in_size;
    a->in_stride = in_stride;
    a->out_size = out_size;
    a->dilation = dilation;
    a->start = pool_alloc(out_size * sizeof *a->start);
    a->taps = pool_alloc(out_size * sizeof *a->taps);
    for (uint64_t o = 0; o < out_size; o++) {
        int64_t first = (int64_t)(o * stride) - (int64_t)start_padding;
        uint64_t begin = first < 0 ? ((uint64_t)-first + dilation - 1) / dilation : 0;
        uint64_t end = first >= (int64_t)in_size ? 0 : ((int64_t)in_size - 1 - first) / dilation + 1;
        if (end > window)
            end = window;
        if (begin > end)
            begin = end;
        a->taps[o] = end - begin;
        a->start[o] = begin < end ? (uint64_t)(first + (int64_t)(begin * dilation)) : 0;
    }
}

static void pool_axis_free(pool_axis *a)
{
    free(a->start);
    free(a->taps);
}

/* The winner of one window over a key plane of sizes {D,H,W}: its position in the plane
 * and its byte offset from the plane's first input element.  found is false when every tap
 * is padding. */
typedef struct pool_pick {
    bool found, saw_nan;
    uint64_t position;
    uint64_t offset;
} pool_pick;

static pool_pick pool_window(const int64_t *keys, const pool_axis ax[POOL_AXES],
                             const uint64_t o[POOL_AXES], int64_t nan_key)
{
    const pool_axis *ad = &ax[0], *ah = &ax[1], *aw = &ax[2];
    const uint64_t d_taps = ad->taps[o[0]], h_taps = ah->taps[o[1]], w_taps = aw->taps[o[2]];
    if (!d_taps || !h_taps || !w_taps)
        return (pool_pick){ false, false, 0, 0 };
    const uint64_t d0 = ad->start[o[0]], h0 = ah->start[o[1]], w0 = aw->start[o[2]];
    const uint64_t height = ah->in_size, width = aw->in_size;
    /* Steps between consecutive taps along each axis, in plane positions and input bytes:
     * rows and planes advance by additions only. */
    const uint64_t d_step = ad->dilation * height * width, d_bytes = ad->dilation * ad->in_stride;
    const uint64_t h_step = ah->dilation * width, h_bytes = ah->dilation * ah->in_stride;
    const uint64_t w_step = aw->dilation, w_bytes = aw->dilation * aw->in_stride;
    uint64_t plane_position = (d0 * height + h0) * width + w0;
    uint64_t plane_offset = d0 * ad->in_stride + h0 * ah->in_stride + w0 * aw->in_stride;
    /* The first tap is the first candidate; the taps then come in increasing position
     * (row-major scan), so order_beats reduces to "strictly larger key" (SEMANTICS D3: the
     * smallest flat input index wins among equal maxima) and the first tap, seen again,
     * changes nothing.  Winners are selected with conditional moves: random data makes them
     * unpredictable. */
    int64_t best_key = keys[plane_position];
    uint64_t best_position = plane_position, best_offset = plane_offset;
    bool saw_nan = false;
    for (uint64_t td = 0; td < d_taps; td++, plane_position += d_step, plane_offset += d_bytes) {
        uint64_t row_position = plane_position, row_offset = plane_offset;
        for (uint64_t th = 0; th < h_taps; th++, row_position += h_step, row_offset += h_bytes) {
            uint64_t position = row_position, offset = row_offset;
            for (uint64_t tw = 0; tw < w_taps; tw++, position += w_step, offset += w_bytes) {
                int64_t key = keys[position];
                saw_nan |= key == nan_key;
                bool larger = key > best_key;
                best_key = larger ? key : best_key;
                best_position = larger ? position : best_position;
                best_offset = larger ? offset : best_offset;
            }
        }
    }
    return (pool_pick){ true, saw_nan, best_position, best_offset };
}

/* Output strides in elements, as a 5-D view (a 4-D tensor gets a depth of 1). */
static void pool_out_strides(const case_tensor *t, uint64_t strides[5])
{
    tensor_view v;
    case_tensor_view(t, &v);
    unsigned skip = v.rank == 4 ? 1 : 0;
    strides[2] = 0;
    for (unsigned i = 0; i < v.rank; i++)
        strides[i < 2 ? i : i + skip] = v.strides[i];
}

unsigned ref_max_pooling(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    tensor_view in;
    case_tensor_view(&c->input, &in);
    const DML_TENSOR_DATA_TYPE type = in.type;
    const unsigned elem = dtype_size(type);
    const bool is_float = dtype_is_float(type);
    const bool flush = opt->flush_denormals && type == DML_TENSOR_DATA_TYPE_FLOAT32;
    const unsigned spatial_first = POOL_AXES - c->spatial_count; /* 1 for 4-D inputs */

    pool_axis ax[POOL_AXES];
    for (unsigned a = 0; a < POOL_AXES; a++) {
        if (a < spatial_first) {
            pool_axis_init(&ax[a], 1, 0, 1, 1, 1, 0, 1);
            continue;
        }
        unsigned s = a - spatial_first, dim = 2 + s;
        pool_axis_init(&ax[a], in.sizes[dim], in.strides[dim] * elem, c->output.sizes[dim],
                       c->window[s], c->pool_strides[s], c->start_padding[s], c->dilations[s]);
    }
    uint64_t out_strides[5], idx_strides[5] = { 0 };
    pool_out_strides(&c->output, out_strides);
    unsigned idx_bytes = 0;
    if (c->indices.present && out->indices) {
        pool_out_strides(&c->indices, idx_strides);
        idx_bytes = dtype_size(c->indices.type);
    }

    key_rule rule;
    key_rule_init(&rule, false, opt);
    key_convert_fn convert = key_converter(type, &rule);
    const uint64_t plane = ax[0].in_size * ax[1].in_size * ax[2].in_size;
    int64_t *keys = pool_alloc(plane * sizeof *keys);
    unsigned classes = 0;

    for (uint64_t n = 0; n < in.sizes[0]; n++)
        for (uint64_t ch = 0; ch < in.sizes[1]; ch++) {
            const uint8_t *base = c->input_data + (n * in.strides[0] + ch * in.strides[1]) * elem;
            for (uint64_t d = 0; d < ax[0].in_size; d++)
                for (uint64_t h = 0; h < ax[1].in_size; h++)
                    convert(base + d * ax[0].in_stride + h * ax[1].in_stride, ax[2].in_size,
                            ax[2].in_stride, &rule, keys + (d * ax[1].in_size + h) * ax[2].in_size);
            /* Flat logical index of the plane's first element (N and C included). */
            uint64_t plane_index = (n * in.sizes[1] + ch) * plane;
            uint64_t o[POOL_AXES];
            for (o[0] = 0; o[0] < ax[0].out_size; o[0]++)
                for (o[1] = 0; o[1] < ax[1].out_size; o[1]++)
                    for (o[2] = 0; o[2] < ax[2].out_size; o[2]++) {
                        pool_pick pick = pool_window(keys, ax, o, rule.nan_key);
                        uint64_t value, index;
                        if (pick.found) {
                            value = key_load_raw(base + pick.offset, elem);
                            if (flush) /* SEMANTICS D6: judged as flushed, moved as flushed */
                                value = float_bits_flush_denormal((uint32_t)value);
                            index = plane_index + pick.position;
                            if (is_float && pick.saw_nan)
                                classes |= CASE_CLASS_NAN;
                        } else {
                            /* SEMANTICS D7: a window entirely in padding writes the type's
                             * lowest value and an all-ones index. */
                            value = dtype_lowest_bits(type);
                            index = UINT64_MAX;
                            classes |= CASE_CLASS_PADDING_WINDOW;
                        }
                        uint64_t out_at = n * out_strides[0] + ch * out_strides[1]
                                        + o[0] * out_strides[2] + o[1] * out_strides[3]
                                        + o[2] * out_strides[4];
                        key_store_raw(out->output + out_at * elem, elem, value);
                        if (idx_bytes) {
                            uint64_t idx_at = n * idx_strides[0] + ch * idx_strides[1]
                                            + o[0] * idx_strides[2] + o[1] * idx_strides[3]
                                            + o[2] * idx_strides[4];
                            key_store_raw(out->indices + idx_at * idx_bytes, idx_bytes, index);
                        }
                    }
        }
    free(keys);
    for (unsigned a = 0; a < POOL_AXES; a++)
        pool_axis_free(&ax[a]);
    return classes;
}
