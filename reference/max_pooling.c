/*
 * max_pooling2.c: DML_OPERATOR_MAX_POOLING2 on 4-D {N,C,H,W} and 5-D {N,C,D,H,W} inputs (a
 * 4-D input is pooled as 5-D with a depth of 1 and a 1-wide window).
 *
 * Padding is never tested per element: for each output position and spatial axis, the range
 * of window taps that land inside the input is computed once per case (SEMANTICS D7: padding
 * never wins, so it is simply not visited).  The output is the exact bits of the chosen
 * element (D3: -0.0 stays -0.0), and the index is the flat logical index over the whole
 * input, N and C included.  Each (n, c) plane takes one of two paths:
 *   - keys (any type): the plane is converted once into a packed plane of order keys
 *     (keys.c), then every window is scanned over it in row-major order, so the first of
 *     equal keys (the smallest flat input index, D3) wins under order_beats;
 *   - floats (float32 without flushing, where the kernel table has pooling kernels:
 *     kernels.h): per output row, the window's input rows are folded column by column, then
 *     each output picks among its columns by value and then position;
 *   - channels (the same, when channels are packed and W is not, as in NHWC): all planes of
 *     a batch at once, each window computed for many channels per kernel call.
 * Float comparison is the key order on numbers; a plane (or, by channels, a batch) holding
 * a NaN goes through keys instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "half.h"
#include "kernels.h"
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

/* What every plane of one execution shares. */
typedef struct pool_run {
    pool_axis ax[POOL_AXES];
    DML_TENSOR_DATA_TYPE type;
    unsigned elem;
    bool is_float, flush;
    key_rule rule;
    key_convert_fn convert;
    uint64_t out_strides[5], idx_strides[5];
    unsigned idx_bytes;
    case_outputs *out;
    unsigned classes;
    /* The float path (pool_plane_floats): kernels, and per input column the best of the
     * window's rows so far; row_best/row_at NULL when the case cannot take it. */
    const ref_kernels *kernels;
    float *row_best;
    uint32_t *row_at;
    uint32_t *w_start, *w_taps; /* the W axis's start and taps, 32-bit */
    float *pick_value;          /* pool_pick's answer for one output row */
    uint32_t *pick_at;
} pool_run;

/* Writes one output element (and index) of plane (n, ch) at spatial position o: the chosen
 * element's exact bits, or for a window entirely in padding (SEMANTICS D7) the type's lowest
 * value and an all-ones index. */
static void pool_store(pool_run *r, uint64_t n, uint64_t ch, const uint64_t o[POOL_AXES],
                       bool found, uint64_t value, uint64_t index)
{
    if (found && r->flush) /* SEMANTICS D6: judged as flushed, moved as flushed */
        value = float_bits_flush_denormal((uint32_t)value);
    if (!found) {
        value = dtype_lowest_bits(r->type);
        index = UINT64_MAX;
        r->classes |= CASE_CLASS_PADDING_WINDOW;
    }
    const uint64_t *os = r->out_strides;
    uint64_t out_at = n * os[0] + ch * os[1] + o[0] * os[2] + o[1] * os[3] + o[2] * os[4];
    key_store_raw(r->out->output + out_at * r->elem, r->elem, value);
    if (r->idx_bytes) {
        const uint64_t *is = r->idx_strides;
        uint64_t idx_at = n * is[0] + ch * is[1] + o[0] * is[2] + o[1] * is[3] + o[2] * is[4];
        key_store_raw(r->out->indices + idx_at * r->idx_bytes, r->idx_bytes, index);
    }
}

/* One (n, c) plane through order keys: any type, NaN and flushing included. */
static void pool_plane_keys(pool_run *r, const uint8_t *base, uint64_t n, uint64_t ch,
                            uint64_t plane_index, int64_t *keys)
{
    const pool_axis *ax = r->ax;
    for (uint64_t d = 0; d < ax[0].in_size; d++)
        for (uint64_t h = 0; h < ax[1].in_size; h++)
            r->convert(base + d * ax[0].in_stride + h * ax[1].in_stride, ax[2].in_size,
                       ax[2].in_stride, &r->rule, keys + (d * ax[1].in_size + h) * ax[2].in_size);
    uint64_t o[POOL_AXES];
    for (o[0] = 0; o[0] < ax[0].out_size; o[0]++)
        for (o[1] = 0; o[1] < ax[1].out_size; o[1]++)
            for (o[2] = 0; o[2] < ax[2].out_size; o[2]++) {
                pool_pick pick = pool_window(keys, ax, o, r->rule.nan_key);
                if (r->is_float && pick.saw_nan)
                    r->classes |= CASE_CLASS_NAN;
                uint64_t value = pick.found ? key_load_raw(base + pick.offset, r->elem) : 0;
                pool_store(r, n, ch, o, pick.found, value, plane_index + pick.position);
            }
}

/* Stores an index of `bytes` bytes at byte `offset` of `indices` (bytes 0: there is no
 * indices tensor, and `indices` may be NULL, which no offset may be added to), the common 4
 * bytes without key_store_raw's switch. */
static inline void pool_store_index(uint8_t *indices, uint64_t offset, unsigned bytes, uint64_t index)
{
    uint8_t *at = bytes ? indices + offset : NULL;
    if (bytes == sizeof(uint32_t)) {
        uint32_t narrow = (uint32_t)index;
        memcpy(at, &narrow, sizeof narrow);
    } else if (bytes) {
        key_store_raw(at, bytes, index);
    }
}

/* Picks and stores the output row o[0], o[1] of plane (n, ch) from the column bests.  The
 * general pool_store, hoisted: addresses advance by the W strides. */
static void pool_row_store(pool_run *r, uint64_t n, uint64_t ch, uint64_t o[POOL_AXES],
                           uint64_t plane_index)
{
    const uint64_t *os = r->out_strides, *is = r->idx_strides;
    uint8_t *value_at = r->out->output
        + (n * os[0] + ch * os[1] + o[0] * os[2] + o[1] * os[3]) * sizeof(float);
    uint64_t index_at = (n * is[0] + ch * is[1] + o[0] * is[2] + o[1] * is[3]) * r->idx_bytes;
    const uint64_t value_step = os[4] * sizeof(float), index_step = is[4] * r->idx_bytes;
    const pool_axis *aw = &r->ax[2];
    r->kernels->pool_pick(r->row_best, r->row_at, aw->out_size, r->w_start, r->w_taps,
                          (uint32_t)aw->dilation, r->pick_value, r->pick_at);
    for (o[2] = 0; o[2] < aw->out_size; o[2]++, value_at += value_step, index_at += index_step) {
        if (!aw->taps[o[2]]) {
            pool_store(r, n, ch, o, false, 0, 0);
            continue;
        }
        memcpy(value_at, &r->pick_value[o[2]], sizeof(float));
        pool_store_index(r->out->indices, index_at, r->idx_bytes, plane_index + r->pick_at[o[2]]);
    }
}

/* One float32 plane without keys, output row by output row: the window's input rows are
 * folded column by column (kernels.h pool_fold: the first row taken, later ones where
 * strictly larger, so each column keeps its first maximum), then each output column picks
 * among its window's columns.  Float comparison is the key order on numbers (kernels.h);
 * returns false at a NaN, and the caller redoes the plane through keys. */
static bool pool_plane_floats(pool_run *r, const uint8_t *base, uint64_t n, uint64_t ch,
                              uint64_t plane_index)
{
    const pool_axis *ad = &r->ax[0], *ah = &r->ax[1], *aw = &r->ax[2];
    const uint64_t height = ah->in_size, width = aw->in_size;
    uint64_t o[POOL_AXES];
    for (o[0] = 0; o[0] < ad->out_size; o[0]++)
        for (o[1] = 0; o[1] < ah->out_size; o[1]++) {
            uint64_t d_taps = ad->taps[o[0]], h_taps = ah->taps[o[1]];
            bool first = true;
            for (uint64_t td = 0; td < d_taps; td++)
                for (uint64_t th = 0; th < h_taps; th++) {
                    uint64_t d = ad->start[o[0]] + td * ad->dilation;
                    uint64_t h = ah->start[o[1]] + th * ah->dilation;
                    const uint8_t *row = base + d * ad->in_stride + h * ah->in_stride;
                    if (!r->kernels->pool_fold(row, width, aw->in_stride,
                                               (uint32_t)((d * height + h) * width), first,
                                               r->row_best, r->row_at))
                        return false;
                    first = false;
                }
            if (first) { /* no input row in these windows: all padding */
                for (o[2] = 0; o[2] < aw->out_size; o[2]++)
                    pool_store(r, n, ch, o, false, 0, 0);
                continue;
            }
            pool_row_store(r, n, ch, o, plane_index);
        }
    return true;
}

/* Allocates what pool_plane_floats needs, which marks the case as taking it, when the
 * kernel table has float pooling kernels. */
static void pool_floats_init(pool_run *r)
{
    const pool_axis *aw = &r->ax[2];
    r->kernels = ref_kernels_select();
    if (!r->kernels->pool_fold)
        return;
    r->row_best = pool_alloc(aw->in_size * sizeof *r->row_best);
    r->row_at = pool_alloc(aw->in_size * sizeof *r->row_at);
    r->w_start = pool_alloc(aw->out_size * sizeof *r->w_start);
    r->w_taps = pool_alloc(aw->out_size * sizeof *r->w_taps);
    r->pick_value = pool_alloc(aw->out_size * sizeof *r->pick_value);
    r->pick_at = pool_alloc(aw->out_size * sizeof *r->pick_at);
    for (uint64_t o = 0; o < aw->out_size; o++) {
        r->w_start[o] = (uint32_t)aw->start[o];
        r->w_taps[o] = (uint32_t)aw->taps[o];
    }
}

/* Channels per kernel call of the channels path: the stack arrays of its answers. */
#define POOL_LANES 64

/* The window taps of output position o, for pool_lanes; false when the window is all
 * padding. */
static bool pool_taps_of(const pool_run *r, const uint64_t o[POOL_AXES], pool_taps *t,
                         uint64_t *first_offset)
{
    const pool_axis *ax = r->ax;
    uint64_t position = 0, offset = 0, plane_step = 1;
    for (unsigned a = POOL_AXES; a-- > 0;) {
        t->count[a] = (uint32_t)ax[a].taps[o[a]];
        t->bytes[a] = ax[a].dilation * ax[a].in_stride;
        t->positions[a] = (uint32_t)(ax[a].dilation * plane_step);
        position += ax[a].start[o[a]] * plane_step;
        offset += ax[a].start[o[a]] * ax[a].in_stride;
        plane_step *= ax[a].in_size;
    }
    t->first_position = (uint32_t)position;
    *first_offset = offset;
    return t->count[0] && t->count[1] && t->count[2];
}

/* Stores the answers of channels c0 .. c0+lanes-1 at output position o: pool_store,
 * hoisted (addresses advance by the C strides). */
static void pool_store_lanes(pool_run *r, uint64_t n, uint64_t c0, uint64_t lanes,
                             const uint64_t o[POOL_AXES], const float *value,
                             const uint32_t *position, uint64_t channels, uint64_t plane)
{
    const uint64_t *os = r->out_strides, *is = r->idx_strides;
    uint8_t *value_at = r->out->output
        + (n * os[0] + c0 * os[1] + o[0] * os[2] + o[1] * os[3] + o[2] * os[4]) * sizeof(float);
    uint64_t index_at = (n * is[0] + c0 * is[1] + o[0] * is[2] + o[1] * is[3] + o[2] * is[4])
        * r->idx_bytes;
    const uint64_t value_step = os[1] * sizeof(float), index_step = is[1] * r->idx_bytes;
    uint64_t plane_index = (n * channels + c0) * plane;
    for (uint64_t k = 0; k < lanes; k++, value_at += value_step, index_at += index_step,
                  plane_index += plane) {
        memcpy(value_at, &value[k], sizeof(float));
        pool_store_index(r->out->indices, index_at, r->idx_bytes, plane_index + position[k]);
    }
}

/* All the planes of batch n at once, for a layout whose channels are packed (NHWC): each
 * output position takes its window for POOL_LANES channels per kernel call, reading each
 * tap's channels as one contiguous block.  Float comparison is the key order on numbers
 * (kernels.h); returns false at a NaN, and the caller redoes the batch through keys. */
static bool pool_batch_channels(pool_run *r, const uint8_t *batch, uint64_t n, uint64_t channels,
                                uint64_t plane)
{
    float value[POOL_LANES];
    uint32_t position[POOL_LANES];
    const pool_axis *ax = r->ax;
    uint64_t o[POOL_AXES];
    for (o[0] = 0; o[0] < ax[0].out_size; o[0]++)
        for (o[1] = 0; o[1] < ax[1].out_size; o[1]++)
            for (o[2] = 0; o[2] < ax[2].out_size; o[2]++) {
                pool_taps taps;
                uint64_t offset;
                bool found = pool_taps_of(r, o, &taps, &offset);
                for (uint64_t c0 = 0; c0 < channels; c0 += POOL_LANES) {
                    uint64_t lanes = channels - c0 < POOL_LANES ? channels - c0 : POOL_LANES;
                    if (found && !r->kernels->pool_lanes(batch + offset + c0 * sizeof(float), lanes,
                                                         &taps, value, position))
                        return false;
                    if (found)
                        pool_store_lanes(r, n, c0, lanes, o, value, position, channels, plane);
                    for (uint64_t k = 0; k < lanes && !found; k++)
                        pool_store(r, n, c0 + k, o, false, 0, 0);
                }
            }
    return true;
}

unsigned ref_max_pooling(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    tensor_view in;
    case_tensor_view(&c->input, &in);
    pool_run r = { .type = in.type, .elem = dtype_size(in.type), .out = out };
    r.is_float = dtype_is_float(r.type);
    r.flush = opt->flush_denormals && r.type == DML_TENSOR_DATA_TYPE_FLOAT32;
    const unsigned spatial_first = POOL_AXES - c->spatial_count; /* 1 for 4-D inputs */
    pool_axis *ax = r.ax;
    for (unsigned a = 0; a < POOL_AXES; a++) {
        if (a < spatial_first) {
            pool_axis_init(&ax[a], 1, 0, 1, 1, 1, 0, 1);
            continue;
        }
        unsigned s = a - spatial_first, dim = 2 + s;
        pool_axis_init(&ax[a], in.sizes[dim], in.strides[dim] * r.elem, c->output.sizes[dim],
                       c->window[s], c->pool_strides[s], c->start_padding[s], c->dilations[s]);
    }
    pool_out_strides(&c->output, r.out_strides);
    if (c->indices.present && out->indices) {
        pool_out_strides(&c->indices, r.idx_strides);
        r.idx_bytes = dtype_size(c->indices.type);
    }
    key_rule_init(&r.rule, false, opt);
    r.convert = key_converter(r.type, &r.rule);
    const uint64_t plane = ax[0].in_size * ax[1].in_size * ax[2].in_size;
    /* Plane positions and columns are below 2^31 in the float path (pool_pick). */
    if (r.type == DML_TENSOR_DATA_TYPE_FLOAT32 && !r.flush && plane < INT32_MAX)
        pool_floats_init(&r);
    /* Channels packed and the W axis not: the channels path. */
    const bool by_channels = r.row_best && r.kernels->pool_lanes && in.strides[1] == 1
        && ax[2].in_stride != sizeof(float);
    int64_t *keys = NULL;
    for (uint64_t n = 0; n < in.sizes[0]; n++) {
        const uint8_t *batch = c->input_data + n * in.strides[0] * r.elem;
        bool batch_done = by_channels && pool_batch_channels(&r, batch, n, in.sizes[1], plane);
        for (uint64_t ch = 0; ch < in.sizes[1] && !batch_done; ch++) {
            const uint8_t *base = batch + ch * in.strides[1] * r.elem;
            /* Flat logical index of the plane's first element (N and C included). */
            uint64_t plane_index = (n * in.sizes[1] + ch) * plane;
            if (r.row_best && !by_channels && pool_plane_floats(&r, base, n, ch, plane_index))
                continue;
            if (!keys)
                keys = pool_alloc(plane * sizeof *keys);
            pool_plane_keys(&r, base, n, ch, plane_index, keys);
        }
    }
    free(keys);
    free(r.row_best);
    free(r.row_at);
    free(r.w_start);
    free(r.w_taps);
    free(r.pick_value);
    free(r.pick_at);
    for (unsigned a = 0; a < POOL_AXES; a++)
        pool_axis_free(&ax[a]);
    return r.classes;
}
