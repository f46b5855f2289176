/*
 * max_pooling2.cl: MAX_POOLING2 on 4-D and 5-D inputs, seen as 5-D {N, C, D, H, W} (the host
 * gives a 4-D case a depth of 1 and a 1-wide depth window).  Compiled after cl_params.h and
 * order.cl.  One work-item per output element scans its window in row-major order.
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

/* Scans the window whose first tap sits at input coordinates first[3] of plane (n, c).
 * dtype is a constant at each call site. */
inline mp_best mp_scan(global const ulong *p, global const uchar *in, ulong plane_offset,
                       ulong plane_index, const long first[3], uint dtype, long nan_key,
                       bool flush)
{
    mp_best best = { LONG_MIN, ORDER_TIE_NONE, 0 };
    const long size_d = (long)p[CLP_MP_IN_SIZE + 2], size_h = (long)p[CLP_MP_IN_SIZE + 3],
               size_w = (long)p[CLP_MP_IN_SIZE + 4];
    const ulong stride_d = p[CLP_MP_IN_STRIDE + 2], stride_h = p[CLP_MP_IN_STRIDE + 3],
                stride_w = p[CLP_MP_IN_STRIDE + 4];
    const long dil_d = (long)p[CLP_MP_DILATION], dil_h = (long)p[CLP_MP_DILATION + 1],
               dil_w = (long)p[CLP_MP_DILATION + 2];
    const ulong win_d = p[CLP_MP_WINDOW], win_h = p[CLP_MP_WINDOW + 1], win_w = p[CLP_MP_WINDOW + 2];
    for (ulong td = 0; td < win_d; td++) {
        long d = first[0] + (long)td * dil_d;
        if (d < 0 || d >= size_d)
            continue;
        for (ulong th = 0; th < win_h; th++) {
            long h = first[1] + (long)th * dil_h;
            if (h < 0 || h >= size_h)
                continue;
            ulong row_index = plane_index + ((ulong)d * (ulong)size_h + (ulong)h) * (ulong)size_w;
            ulong row_offset = plane_offset + (ulong)d * stride_d + (ulong)h * stride_h;
            for (ulong tw = 0; tw < win_w; tw++) {
                long w = first[2] + (long)tw * dil_w;
                if (w < 0 || w >= size_w)
                    continue;
                ulong offset = row_offset + (ulong)w * stride_w;
                long key = order_key(in, offset, dtype, 0, nan_key, flush);
                if (order_beats(key, row_index + (ulong)w, best.key, best.rank)) {
                    best.key = key;
                    best.rank = row_index + (ulong)w;
                    best.offset = offset;
                }
            }
        }
    }
    return best;
}

kernel void max_pooling2(global uchar *arena)
{
    global const ulong *p = (global const ulong *)arena;
    const ulong gid = get_global_id(0);
    if (gid >= p[CLP_MP_OUT_COUNT])
        return;

    /* Output coordinates {n, c, od, oh, ow} of logical output element gid. */
    ulong coord[5], rest = gid;
    for (uint d = 5; d-- > 0;) {
        ulong size = p[CLP_MP_OUT_SIZE + d];
        ulong quotient = rest / size;
        coord[d] = rest - quotient * size; /* not rest % size: see order.cl on "freeze" */
        rest = quotient;
    }
    long first[3];
    for (uint s = 0; s < 3; s++)
        first[s] = (long)(coord[2 + s] * p[CLP_MP_STRIDE + s]) - (long)p[CLP_MP_START_PAD + s];
    const ulong plane = p[CLP_MP_IN_SIZE + 2] * p[CLP_MP_IN_SIZE + 3] * p[CLP_MP_IN_SIZE + 4];
    const ulong plane_index = (coord[0] * p[CLP_MP_IN_SIZE + 1] + coord[1]) * plane;
    const ulong plane_offset = coord[0] * p[CLP_MP_IN_STRIDE] + coord[1] * p[CLP_MP_IN_STRIDE + 1];
    global const uchar *in = arena + p[CLP_IN_OFFSET];
    const uint dtype = (uint)p[CLP_DTYPE];
    const long nan_key = (long)p[CLP_NAN_KEY];
    const bool flush = p[CLP_FLUSH] != 0;

    mp_best best;
    switch (dtype) {
#define MP_SCAN_TYPE(t)                                                                   \
    case t:                                                                               \
        best = mp_scan(p, in, plane_offset, plane_index, first, t, nan_key, flush);       \
        break;
    MP_SCAN_TYPE(CLP_T_FLOAT32)
    MP_SCAN_TYPE(CLP_T_FLOAT16)
    MP_SCAN_TYPE(CLP_T_UINT8)
    MP_SCAN_TYPE(CLP_T_UINT16)
    MP_SCAN_TYPE(CLP_T_UINT32)
    MP_SCAN_TYPE(CLP_T_UINT64)
    MP_SCAN_TYPE(CLP_T_INT8)
    MP_SCAN_TYPE(CLP_T_INT16)
    MP_SCAN_TYPE(CLP_T_INT32)
    default:
        best = mp_scan(p, in, plane_offset, plane_index, first, CLP_T_INT64, nan_key, flush);
        break;
#undef MP_SCAN_TYPE
    }

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
    fault_inject(arena, p, gid);
}
