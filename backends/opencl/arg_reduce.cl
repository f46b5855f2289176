/*
 * arg_reduce.cl: ARGMIN and ARGMAX (one kernel family: they differ only in the key
 * orientation CLP_ORIENT).  Compiled after cl_params.h and order.cl.
 *
 * Work-item (m, s) of M * S scans a share of output m's reduced elements k < K and keeps
 * the best (key, tie rank): either k = s, s + S, s + 2S, ... (interleaved: neighbouring
 * work-items read neighbouring elements, as GPUs want) or the s-th contiguous chunk of
 * CLP_AR_CHUNK elements (CPUs: each core streams through memory, and a contiguous chunk of a
 * contiguous axis is scanned in two vectorizable passes).  With S == 1 it writes the index itself; otherwise it stores a partial
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

/* Candidate k of a reduction with `last` + 1 elements, and its tie rank (SEMANTICS D3). */
ALWAYS_INLINE ulong ar_rank(ulong k, ulong last, bool decreasing)
{
    return decreasing ? last - k : k;
}

/* Elements per block of ar_scan_contiguous. */
#define AR_BLOCK 64

/* Best of a contiguous run of elements k in [begin, end) (input element base + k), block by
 * block: first the block's best key, in a loop with no index bookkeeping that compilers
 * vectorize; only when that key can change the answer, the block is searched for the first
 * (INCREASING) or last (DECREASING) k holding it.  Blocks come in increasing k, so a later
 * block with an equal key wins only under DECREASING: SEMANTICS D3 exactly.  On random data
 * the answer changes in a handful of blocks, so nearly all the work is the vector loop. */
ALWAYS_INLINE ar_best ar_scan_contiguous(global const uchar *in, ulong base, ulong begin,
                                         ulong end, ulong last, uint dtype, long orient,
                                         long nan_key, bool flush, bool decreasing)
{
    ar_best best = { LONG_MIN, ORDER_TIE_NONE };
    for (ulong block = begin; block < end; block += AR_BLOCK) {
        const ulong block_end = min(block + AR_BLOCK, end);
        long top = LONG_MIN;
        for (ulong k = block; k < block_end; k++)
            top = max(top, order_key(in, base + k, dtype, orient, nan_key, flush));
        const bool found = best.rank != ORDER_TIE_NONE;
        if (found && (top < best.key || (top == best.key && !decreasing)))
            continue; /* this block cannot change the answer */
        ulong k;
        if (decreasing) {
            for (k = block_end - 1; k > block; k--)
                if (order_key(in, base + k, dtype, orient, nan_key, flush) == top)
                    break;
        } else {
            for (k = block; k + 1 < block_end; k++)
                if (order_key(in, base + k, dtype, orient, nan_key, flush) == top)
                    break;
        }
        best.key = top;
        best.rank = ar_rank(k, last, decreasing);
    }
    return best;
}

/* Best of elements k = begin, begin + step, ... < end of one output, whose reduced elements
 * start at input element `base`; `last` is K - 1.  dtype is a constant at each call site. */
ALWAYS_INLINE ar_best ar_scan(global const ulong *p, global const uchar *in, ulong base,
                              ulong begin, ulong end, ulong step, ulong last, uint dtype,
                              long orient, long nan_key, bool flush, bool decreasing)
{
    ar_best best = { LONG_MIN, ORDER_TIE_NONE };
    uint red_rank = (uint)p[CLP_AR_RED_RANK];
    if (red_rank <= 1) {
        ulong stride = red_rank ? p[CLP_AR_RED_IN_STRIDE] : 0;
        if (stride == 1 && step == 1)
            return ar_scan_contiguous(in, base, begin, end, last, dtype, orient, nan_key, flush,
                                      decreasing);
        for (ulong k = begin; k < end; k += step) {
            long key = order_key(in, base + k * stride, dtype, orient, nan_key, flush);
            ulong rank = ar_rank(k, last, decreasing);
            if (order_beats(key, rank, best.key, best.rank)) {
                best.key = key;
                best.rank = rank;
            }
        }
    } else {
        for (ulong k = begin; k < end; k += step) {
            ulong offset = base + ar_reduced_offset(p, red_rank, (uint)k);
            long key = order_key(in, offset, dtype, orient, nan_key, flush);
            ulong rank = ar_rank(k, last, decreasing);
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
    global const ulong *p;
    ulong gid;
    if (!batch_case(arena, CLK_ARG_REDUCE, get_global_id(0), &p, &gid))
        return;
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

    /* Work-item s of output m takes a contiguous chunk of k (CPUs: one core streams through
     * memory) or every S-th k (GPUs: neighbouring work-items read neighbouring elements). */
    const ulong chunk = p[CLP_AR_CHUNK];
    ulong begin = s, end = count, step = split;
    if (chunk) {
        begin = min(s * chunk, count);
        end = min(begin + chunk, count);
        step = 1;
    }
    const ulong last = count - 1;

    ar_best best;
    switch ((uint)p[CLP_DTYPE]) {
#define AR_SCAN_TYPE(t)                                                                      \
    case t:                                                                                  \
        best = ar_scan(p, in, base, begin, end, step, last, t, orient, nan_key, flush,       \
                       decreasing);                                                          \
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
        best = ar_scan(p, in, base, begin, end, step, last, CLP_T_INT64, orient, nan_key, flush,
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
    global const ulong *p;
    ulong m;
    if (!batch_case(arena, CLK_ARG_REDUCE_COMBINE, get_global_id(0), &p, &m))
        return;
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

/* ---- Column blocks: AR_COLUMNS neighbouring outputs per work-item ----
 *
 * For a reduction over a strided axis whose outputs sit next to each other in memory (the
 * innermost kept dimension has input stride 1), one work-item walks k once for a block of
 * AR_COLUMNS neighbouring outputs of one row of that dimension: each step reads AR_COLUMNS
 * neighbouring elements (a cache line of float32), which CPUs load as vectors.  k is visited in increasing order,
 * so INCREASING keeps the first extreme element (replace on a strictly better key) and
 * DECREASING the last (replace on an equal key too): SEMANTICS D3 without tie ranks. */
#define AR_COLUMNS 16

/* Scans outputs base + j, j in [0, AR_COLUMNS), and writes those with j >= first_lane. */
ALWAYS_INLINE void ar_columns_scan(global uchar *arena, global const ulong *p, ulong base,
                                   ulong out_base, uint first_lane, uint dtype)
{
    global const uchar *in = arena + p[CLP_IN_OFFSET];
    const long orient = (long)p[CLP_ORIENT], nan_key = (long)p[CLP_NAN_KEY];
    const bool flush = p[CLP_FLUSH] != 0, decreasing = p[CLP_AR_DECREASING] != 0;
    const uint red_rank = (uint)p[CLP_AR_RED_RANK];
    const ulong count = p[CLP_AR_RED_COUNT];
    const ulong kept_rank = p[CLP_AR_KEPT_RANK];
    const ulong out_stride = p[CLP_AR_KEPT_OUT_STRIDE + kept_rank - 1];
    long best_key[AR_COLUMNS];
    uint best_k[AR_COLUMNS];
    for (uint j = 0; j < AR_COLUMNS; j++) {
        best_key[j] = order_key(in, base + j, dtype, orient, nan_key, flush);
        best_k[j] = 0;
    }
    for (uint k = 1; k < count; k++) {
        ulong offset = red_rank == 1 ? k * p[CLP_AR_RED_IN_STRIDE] : ar_reduced_offset(p, red_rank, k);
        for (uint j = 0; j < AR_COLUMNS; j++) {
            long key = order_key(in, base + offset + j, dtype, orient, nan_key, flush);
            bool take = decreasing ? key >= best_key[j] : key > best_key[j];
            best_key[j] = take ? key : best_key[j];
            best_k[j] = take ? k : best_k[j];
        }
    }
    for (uint j = first_lane; j < AR_COLUMNS; j++)
        store_raw(arena + p[CLP_OUT_OFFSET], out_base + j * out_stride, (uint)p[CLP_OUT_BYTES],
                  best_k[j]);
}

kernel void arg_reduce_columns(global uchar *arena)
{
    global const ulong *p;
    ulong gid;
    if (!batch_case(arena, CLK_ARG_REDUCE_COLUMNS, get_global_id(0), &p, &gid))
        return;
    const ulong kept_rank = p[CLP_AR_KEPT_RANK];
    const ulong width = p[CLP_AR_KEPT_SIZE + kept_rank - 1];
    const ulong blocks_per_row = (width + AR_COLUMNS - 1) / AR_COLUMNS;
    const ulong rows = p[CLP_AR_OUT_COUNT] / width;
    if (gid >= rows * blocks_per_row)
        return;
    const ulong row = gid / blocks_per_row, block = gid - row * blocks_per_row;
    /* The last block of a row is moved left to end at the row's end (the host guarantees
     * width >= AR_COLUMNS); it writes only the outputs the previous block did not. */
    const ulong first_column = block * AR_COLUMNS;
    const ulong start = min(first_column, width - AR_COLUMNS);
    const uint first_lane = (uint)(first_column - start);
    ulong out_base;
    const ulong base = ar_kept_offsets(p, row * width + start, &out_base);

    switch ((uint)p[CLP_DTYPE]) {
#define AR_COLUMNS_TYPE(t)                                          \
    case t:                                                         \
        ar_columns_scan(arena, p, base, out_base, first_lane, t);   \
        break;
    AR_COLUMNS_TYPE(CLP_T_FLOAT32)
    AR_COLUMNS_TYPE(CLP_T_FLOAT16)
    AR_COLUMNS_TYPE(CLP_T_UINT8)
    AR_COLUMNS_TYPE(CLP_T_UINT16)
    AR_COLUMNS_TYPE(CLP_T_UINT32)
    AR_COLUMNS_TYPE(CLP_T_UINT64)
    AR_COLUMNS_TYPE(CLP_T_INT8)
    AR_COLUMNS_TYPE(CLP_T_INT16)
    AR_COLUMNS_TYPE(CLP_T_INT32)
    default:
        ar_columns_scan(arena, p, base, out_base, first_lane, CLP_T_INT64);
        break;
#undef AR_COLUMNS_TYPE
    }
    fault_inject(arena, p, gid);
}
