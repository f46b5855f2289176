/*
 * max_pooling2.cl: MAX_POOLING2 on 4-D and 5-D inputs, seen as 5-D {N, C, D, H, W} (the host
 * gives a 4-D case a depth of 1 and a 1-wide depth window).  Compiled after cl_params.h and
 * order.cl.  A work-item pools a short run of neighbouring outputs of one output row, each
 * by scanning its window in row-major order.
 *
 * SEMANTICS D7: taps outside the input (padding) are skipped, never compared; a window with
 * no tap inside writes the type's lowest value and an all-ones index.
 * SEMANTICS D3: the tie rank is the flat logical input index (N and C included), so the
 * first element met wins; the output is the chosen element's raw bits (-0.0 stays -0.0),
 * flushed only when fp32 denormals are judged flushed (D6), as the reference does.
 * SEMANTICS D8: the output sizes the host passes decide the windows; each starts at
 * o * stride - start_padding, so a ceil-sized last window may reach past the end padding,
 * where its taps are skipped like padding.
 */

/* Lowest value of a type as raw bits (SEMANTICS D7). */
inline ulong mp_lowest_bits(uint dtype)
{
    switch (dtype) {
    case CLP_T_FLOAT32: return 0xff800000u;   /* -inf */
    case CLP_T_FLOAT16: return 0xfc00u;       /* -inf */
    case CLP_T_INT8: return 0x80u;
    case CLP_T_INT16: return 0x8000u;
    case CLP_T_INT32: return 0x80000000u;
    case CLP_T_INT64: return 0x8000000000000000ul;
    default: return 0;                        /* unsigned types */
    }
}

typedef struct mp_best {
    long key;
    ulong rank;   /* flat logical input index; ORDER_TIE_NONE while nothing was found */
    ulong offset; /* its input element offset */
} mp_best;

/* The taps [*begin, *end) of a window axis that land inside the input (SEMANTICS D7:
 * the others are padding, never visited).  Divides only at the edges of the input. */
ALWAYS_INLINE void mp_taps(long first, long size, long dilation, ulong window, ulong *begin,
                           ulong *end)
{
    *begin = first < 0 ? (ulong)((-first + dilation - 1) / dilation) : 0;
    long last = first + (long)(window - 1) * dilation;
    if (first >= size)
        *end = 0;
    else if (last < size)
        *end = window;
    else
        *end = (ulong)((size - 1 - first) / dilation) + 1;
    if (*begin > *end)
        *begin = *end;
}

/* Scans the window whose first tap sits at input coordinates first[3] of plane (n, c),
 * visiting only taps inside the input, in row-major order: the flat index grows with every
 * tap, so a later tap wins only with a strictly larger key (SEMANTICS D3, the same choice
 * as order_beats with the index as tie rank).  dtype is a constant at each call site. */
ALWAYS_INLINE mp_best mp_scan(global const ulong *p, global const uchar *in, ulong plane_offset,
                              ulong plane_index, const long first[3], uint dtype, long nan_key,
                              bool flush)
{
    mp_best best = { LONG_MIN, ORDER_TIE_NONE, 0 };
    const ulong size_h = p[CLP_MP_IN_SIZE + 3], size_w = p[CLP_MP_IN_SIZE + 4];
    const ulong stride_d = p[CLP_MP_IN_STRIDE + 2], stride_h = p[CLP_MP_IN_STRIDE + 3],
                stride_w = p[CLP_MP_IN_STRIDE + 4];
    const ulong dil_d = p[CLP_MP_DILATION], dil_h = p[CLP_MP_DILATION + 1],
                dil_w = p[CLP_MP_DILATION + 2];
    ulong d_begin, d_end, h_begin, h_end, w_begin, w_end;
    mp_taps(first[0], (long)p[CLP_MP_IN_SIZE + 2], (long)dil_d, p[CLP_MP_WINDOW], &d_begin,
            &d_end);
    mp_taps(first[1], (long)size_h, (long)dil_h, p[CLP_MP_WINDOW + 1], &h_begin, &h_end);
    mp_taps(first[2], (long)size_w, (long)dil_w, p[CLP_MP_WINDOW + 2], &w_begin, &w_end);
    for (ulong td = d_begin; td < d_end; td++) {
        ulong d = (ulong)(first[0] + (long)(td * dil_d));
        for (ulong th = h_begin; th < h_end; th++) {
            ulong h = (ulong)(first[1] + (long)(th * dil_h));
            ulong row_index = plane_index + (d * size_h + h) * size_w;
            ulong row_offset = plane_offset + d * stride_d + h * stride_h;
            for (ulong tw = w_begin; tw < w_end; tw++) {
                ulong w = (ulong)(first[2] + (long)(tw * dil_w));
                ulong offset = row_offset + w * stride_w;
                long key = order_key(in, offset, dtype, 0, nan_key, flush);
                if (best.rank == ORDER_TIE_NONE || key > best.key) {
                    best.key = key;
                    best.rank = row_index + w;
                    best.offset = offset;
                }
            }
        }
    }
    return best;
}

/* Writes output element (n, c, od, oh, ow) (coords) and its index. */
ALWAYS_INLINE void mp_write(global uchar *arena, global const ulong *p, const ulong coord[5],
                            global const uchar *in, mp_best best, uint dtype, bool flush)
{
    const uint bytes = (uint)p[CLP_OUT_BYTES];
    ulong value, index;
    if (best.rank != ORDER_TIE_NONE) {
        value = load_raw(in, best.offset, bytes);
        /* SEMANTICS D6: judged as flushed, moved as flushed (fp32 only). */
        if (flush && dtype == CLP_T_FLOAT32 && (value & 0x7f800000u) == 0)
            value &= 0x80000000u;
        index = best.rank;
    } else {
        value = mp_lowest_bits(dtype);
        index = ULONG_MAX;
    }
    ulong out_offset = 0, idx_offset = 0;
    for (uint d = 0; d < 5; d++) {
        out_offset += coord[d] * p[CLP_MP_OUT_STRIDE + d];
        idx_offset += coord[d] * p[CLP_MP_IDX_STRIDE + d];
    }
    store_raw(arena + p[CLP_OUT_OFFSET], out_offset, bytes, value);
    const uint idx_bytes = (uint)p[CLP_IDX_BYTES];
    if (idx_bytes)
        store_raw(arena + p[CLP_IDX_OFFSET], idx_offset, idx_bytes, index);
}

/* Pools outputs ow in [ow_begin, ow_end) of output row (n, c, od, oh) = coord[0..4). */
ALWAYS_INLINE void mp_run(global uchar *arena, global const ulong *p, ulong coord[5],
                          uint ow_begin, uint ow_end, uint dtype)
{
    global const uchar *in = arena + p[CLP_IN_OFFSET];
    const long nan_key = (long)p[CLP_NAN_KEY];
    const bool flush = p[CLP_FLUSH] != 0;
    const ulong plane = p[CLP_MP_IN_SIZE + 2] * p[CLP_MP_IN_SIZE + 3] * p[CLP_MP_IN_SIZE + 4];
    const ulong plane_index = (coord[0] * p[CLP_MP_IN_SIZE + 1] + coord[1]) * plane;
    const ulong plane_offset = coord[0] * p[CLP_MP_IN_STRIDE] + coord[1] * p[CLP_MP_IN_STRIDE + 1];
    long first[3];
    for (uint s = 0; s < 2; s++)
        first[s] = (long)(coord[2 + s] * p[CLP_MP_STRIDE + s]) - (long)p[CLP_MP_START_PAD + s];
    for (uint ow = ow_begin; ow < ow_end; ow++) {
        coord[4] = ow;
        first[2] = (long)(ow * p[CLP_MP_STRIDE + 2]) - (long)p[CLP_MP_START_PAD + 2];
        mp_best best = mp_scan(p, in, plane_offset, plane_index, first, dtype, nan_key, flush);
        mp_write(arena, p, coord, in, best, dtype, flush);
    }
}

/* Work-item gid pools a run of up to CLP_MP_RUN neighbouring outputs of one output row, so
 * the row's coordinates are divided out once per run, not once per output. */
kernel void max_pooling2(global uchar *arena)
{
    global const ulong *p;
    ulong gid;
    if (!batch_case(arena, CLK_MAX_POOLING2, get_global_id(0), &p, &gid))
        return;
    const uint runs_per_row = (uint)p[CLP_MP_RUNS_PER_ROW];
    if (gid >= p[CLP_MP_ROWS] * runs_per_row)
        return;

    /* Row coordinates {n, c, od, oh}.  Element counts are below 2^32 (SEMANTICS "Tensors"),
     * so 32-bit division, several times cheaper than 64-bit division, is exact. */
    uint row = (uint)gid / runs_per_row;
    const uint run = (uint)gid - row * runs_per_row; /* not %: see order.cl on "freeze" */
    ulong coord[5];
    for (uint d = 4; d-- > 0;) {
        uint size = (uint)p[CLP_MP_OUT_SIZE + d];
        uint quotient = row / size;
        coord[d] = row - quotient * size;
        row = quotient;
    }
    const uint run_length = (uint)p[CLP_MP_RUN], width = (uint)p[CLP_MP_OUT_SIZE + 4];
    const uint ow_begin = run * run_length;
    const uint ow_end = min(ow_begin + run_length, width);

    switch ((uint)p[CLP_DTYPE]) {
#define MP_RUN_TYPE(t)                                         \
    case t:                                                    \
        mp_run(arena, p, coord, ow_begin, ow_end, t);          \
        break;
    MP_RUN_TYPE(CLP_T_FLOAT32)
    MP_RUN_TYPE(CLP_T_FLOAT16)
    MP_RUN_TYPE(CLP_T_UINT8)
    MP_RUN_TYPE(CLP_T_UINT16)
    MP_RUN_TYPE(CLP_T_UINT32)
    MP_RUN_TYPE(CLP_T_UINT64)
    MP_RUN_TYPE(CLP_T_INT8)
    MP_RUN_TYPE(CLP_T_INT16)
    MP_RUN_TYPE(CLP_T_INT32)
    default:
        mp_run(arena, p, coord, ow_begin, ow_end, CLP_T_INT64);
        break;
#undef MP_RUN_TYPE
    }
    fault_inject(arena, p, gid);
}
