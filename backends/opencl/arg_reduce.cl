/*
 * arg_reduce.cl: ARGMIN and ARGMAX (one kernel family: they differ only in the key
 * orientation CLP_ORIENT).  Compiled after cl_params.h and order.cl.
 *
 * Work-item (m, s) of M * S scans output m's reduced elements k = s, s + S, s + 2S, ... < K
 * (interleaved, so neighbouring work-items read neighbouring elements) and keeps the best
 * (key, tie rank).  With S == 1 it writes the index itself; otherwise it stores a partial
 * result in the scratch region and arg_reduce_combine folds the S partials of each output.
 * The rule is a total order (order.cl), so any S and any work-group size give the same bits.
 *
 * SEMANTICS D2: k is the row-major index over the reduced axes in ascending order (the host
 * coalesces those axes without changing k); SEMANTICS D3: the tie rank is k under
 * INCREASING and K-1-k under DECREASING, so the first (last) extreme element wins.
 */

typedef struct ar_best {
    long key;
    ulong rank; /* tie rank; ORDER_TIE_NONE before the first candidate */
} ar_best;

/* Byte pointer to the input and the word view of the parameters. */
#define AR_PARAMS(arena) ((global const ulong *)(arena))

/* Input and output element offsets of output element m (row-major over the kept dims). */
inline ulong ar_kept_offsets(global const ulong *p, ulong m, ulong *out_offset)
{
    uint rank = (uint)p[CLP_AR_KEPT_RANK];
    ulong in_offset = 0, o_offset = 0;
    for (uint d = rank; d-- > 0;) {
        ulong size = p[CLP_AR_KEPT_SIZE + d];
        ulong quotient = m / size;
        ulong coord = m - quotient * size; /* not m % size: see order.cl on "freeze" */
        m = quotient;
        in_offset += coord * p[CLP_AR_KEPT_IN_STRIDE + d];
        o_offset += coord * p[CLP_AR_KEPT_OUT_STRIDE + d];
    }
    *out_offset = o_offset;
    return in_offset;
}

/* Input element offset of reduced index k (< 2^32, so 32-bit division suffices). */
inline ulong ar_reduced_offset(global const ulong *p, uint rank, uint k)
{
    ulong offset = 0;
    for (uint d = rank; d-- > 0;) {
        uint size = (uint)p[CLP_AR_RED_SIZE + d];
        uint quotient = k / size;
        offset += (ulong)(k - quotient * size) * p[CLP_AR_RED_IN_STRIDE + d];
        k = quotient;
    }
    return offset;
}

/* Best of elements k = first, first + step, ... < count of one output, whose reduced
 * elements start at input element `base`.  dtype is a constant at each call site. */
inline ar_best ar_scan(global const ulong *p, global const uchar *in, ulong base, ulong first,
                       ulong step, ulong count, uint dtype, long orient, long nan_key,
                       bool flush, bool decreasing)
{
    ar_best best = { LONG_MIN, ORDER_TIE_NONE };
    uint red_rank = (uint)p[CLP_AR_RED_RANK];
    ulong last = count - 1;
    if (red_rank <= 1) {
        ulong stride = red_rank ? p[CLP_AR_RED_IN_STRIDE] : 0;
        for (ulong k = first; k < count; k += step) {
            long key = order_key(in, base + k * stride, dtype, orient, nan_key, flush);
            ulong rank = decreasing ? last - k : k;
            if (order_beats(key, rank, best.key, best.rank)) {
                best.key = key;
                best.rank = rank;
            }
        }
    } else {
        for (ulong k = first; k < count; k += step) {
            ulong offset = base + ar_reduced_offset(p, red_rank, (uint)k);
            long key = order_key(in, offset, dtype, orient, nan_key, flush);
            ulong rank = decreasing ? last - k : k;
            if (order_beats(key, rank, best.key, best.rank)) {
                best.key = key;
                best.rank = rank;
            }
        }
    }
    return best;
}

/* Writes output m's index (SEMANTICS: every output type carries the same index value). */
inline void ar_write(global uchar *arena, global const ulong *p, ulong out_offset, ar_best best)
{
    bool decreasing = p[CLP_AR_DECREASING] != 0;
    ulong index = decreasing ? p[CLP_AR_RED_COUNT] - 1 - best.rank : best.rank;
    store_raw(arena + p[CLP_OUT_OFFSET], out_offset, (uint)p[CLP_OUT_BYTES], index);
}

kernel void arg_reduce(global uchar *arena)
{
    global const ulong *p = AR_PARAMS(arena);
    const ulong gid = get_global_id(0);
    const ulong split = p[CLP_AR_SPLIT], outputs = p[CLP_AR_OUT_COUNT];
    if (gid >= outputs * split)
        return;
    const ulong m = gid / split, s = gid - m * split;
    ulong out_offset;
    const ulong base = ar_kept_offsets(p, m, &out_offset);
    global const uchar *in = arena + p[CLP_IN_OFFSET];
    const ulong count = p[CLP_AR_RED_COUNT];
    const long orient = (long)p[CLP_ORIENT], nan_key = (long)p[CLP_NAN_KEY];
    const bool flush = p[CLP_FLUSH] != 0, decreasing = p[CLP_AR_DECREASING] != 0;

    ar_best best;
    switch ((uint)p[CLP_DTYPE]) {
#define AR_SCAN_TYPE(t)                                                                   \
    case t:                                                                               \
        best = ar_scan(p, in, base, s, split, count, t, orient, nan_key, flush, decreasing); \
        break;
    AR_SCAN_TYPE(CLP_T_FLOAT32)
    AR_SCAN_TYPE(CLP_T_FLOAT16)
    AR_SCAN_TYPE(CLP_T_UINT8)
    AR_SCAN_TYPE(CLP_T_UINT16)
    AR_SCAN_TYPE(CLP_T_UINT32)
    AR_SCAN_TYPE(CLP_T_UINT64)
    AR_SCAN_TYPE(CLP_T_INT8)
    AR_SCAN_TYPE(CLP_T_INT16)
    AR_SCAN_TYPE(CLP_T_INT32)
    default:
        best = ar_scan(p, in, base, s, split, count, CLP_T_INT64, orient, nan_key, flush,
                       decreasing);
        break;
#undef AR_SCAN_TYPE
    }

    if (split == 1) {
        ar_write(arena, p, out_offset, best);
        fault_inject(arena, p, gid);
        return;
    }
    /* Partial results: keys then ranks, indexed by gid (m * S + s). */
    global long *keys = (global long *)(arena + p[CLP_SCRATCH_OFFSET]);
    global ulong *ranks = (global ulong *)(keys + outputs * split);
    keys[gid] = best.key;
    ranks[gid] = best.rank;
}

/* Folds the S partial results of output m (S > 1) and writes its index. */
kernel void arg_reduce_combine(global uchar *arena)
{
    global const ulong *p = AR_PARAMS(arena);
    const ulong m = get_global_id(0);
    const ulong split = p[CLP_AR_SPLIT], outputs = p[CLP_AR_OUT_COUNT];
    if (m >= outputs)
        return;
    global const long *keys = (global const long *)(arena + p[CLP_SCRATCH_OFFSET]);
    global const ulong *ranks = (global const ulong *)(keys + outputs * split);
    ar_best best = { LONG_MIN, ORDER_TIE_NONE };
    for (ulong s = m * split; s < (m + 1) * split; s++)
        if (order_beats(keys[s], ranks[s], best.key, best.rank)) {
            best.key = keys[s];
            best.rank = ranks[s];
        }
    ulong out_offset;
    ar_kept_offsets(p, m, &out_offset);
    ar_write(arena, p, out_offset, best);
    fault_inject(arena, p, m);
}
