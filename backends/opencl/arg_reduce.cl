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

/* ---- Lanes: 16 elements per step, 32-bit keys ----
 *
 * Every type of at most 32 bits has a 32-bit key with the same order as its 64-bit key
 * (order.cl): float32 magnitudes stay below 0x7f800001, float16 and the small integers far
 * below, uint32 takes the offset 0x80000000; a NaN gets INT_MAX (propagate) or INT_MIN
 * (ignore), beyond every other key either way, with or without the orientation's ~.
 * 32-bit keys let a work-item compare 16 elements per vector operation (AVX-512 on PoCL:
 * one instruction each), which 64-bit keys would halve; only the winner's key is converted
 * back, by reading its element again with order_key. */
#define AR_LANES 16

/* Keys of the 16 elements in, elem .. elem + 15 (dtype of at most 32 bits, a constant at
 * each call site); nan_key is the policy's 32-bit NaN key. */
ALWAYS_INLINE int16 ar_lane_keys(global const uchar *in, ulong elem, uint dtype, int orient,
                                 int nan_key, bool flush)
{
    switch (dtype) {
    case CLP_T_FLOAT32: {
        int16 bits = as_int16(vload16(0, (global const uint *)in + elem));
        int16 magnitude = bits & 0x7fffffff;
        int16 judged = flush ? select(magnitude, (int16)0, magnitude < 0x00800000) : magnitude;
        int16 key = select(judged, -judged, bits < 0) ^ orient;
        return select(key, (int16)nan_key, magnitude > 0x7f800000);
    }
    case CLP_T_FLOAT16: {
        int16 bits = convert_int16(vload16(0, (global const ushort *)in + elem));
        int16 magnitude = bits & 0x7fff;
        int16 key = select(magnitude, -magnitude, bits > 0x7fff) ^ orient;
        return select(key, (int16)nan_key, magnitude > 0x7c00);
    }
    case CLP_T_UINT8:
        return convert_int16(vload16(0, in + elem)) ^ orient;
    case CLP_T_UINT16:
        return convert_int16(vload16(0, (global const ushort *)in + elem)) ^ orient;
    case CLP_T_UINT32:
        return (as_int16(vload16(0, (global const uint *)in + elem)) ^ INT_MIN) ^ orient;
    case CLP_T_INT8:
        return convert_int16(vload16(0, (global const char *)in + elem)) ^ orient;
    case CLP_T_INT16:
        return convert_int16(vload16(0, (global const short *)in + elem)) ^ orient;
    default: /* CLP_T_INT32 */
        return vload16(0, (global const int *)in + elem) ^ orient;
    }
}

/* The 32-bit key of a NaN under the policy whose 64-bit key is nan_key. */
ALWAYS_INLINE int ar_lane_nan_key(long nan_key)
{
    return nan_key < 0 ? INT_MIN : INT_MAX;
}

/* Bytes of an element of a type of at most 32 bits. */
ALWAYS_INLINE uint ar_lane_element_bytes(uint dtype)
{
    switch (dtype) {
    case CLP_T_UINT8:
    case CLP_T_INT8: return 1;
    case CLP_T_FLOAT16:
    case CLP_T_UINT16:
    case CLP_T_INT16: return 2;
    default: return 4;
    }
}

/* Software prefetch, this far ahead of a contiguous scan, where the host asks for it
 * (cl_program.c: CPU devices; __builtin_prefetch because OpenCL's prefetch() is a no-op on
 * PoCL): one PoCL thread scanned 64 MiB of float32 at 0.40 ns/element without it, 0.26 with
 * it (4 KiB ahead; 2, 8 and 16 KiB were no better).  The hardware prefetchers alone keep too
 * few lines in flight for one load per loop iteration. */
#define AR_PREFETCH_BYTES 4096
#ifdef DMLCHECK_CL_PREFETCH
#define AR_PREFETCH(address) __builtin_prefetch((const global void *)(address))
#else
#define AR_PREFETCH(address) ((void)0)
#endif

/* Independent chains of lane bests in ar_scan_lanes: one chain waits on its own compare and
 * select every step. */
#define AR_CHAINS 2

/* ar_scan_contiguous for a type of at most 32 bits and end - begin >= AR_LANES.  Each lane
 * of each chain keeps its own best (key, k) over the elements it sees; then every lane's best
 * meets the others through order_beats.  A lane sees its elements in increasing k: vectors
 * go forward, and one that would pass `end` is moved back to end there, still after the one
 * before it in its chain (it may repeat elements, each with its own k, and a candidate seen
 * twice is still one candidate).  So INCREASING replaces on a strictly better key and
 * DECREASING on an equal one too (SEMANTICS D3 within a lane), and the tie ranks decide
 * between lanes. */
ALWAYS_INLINE ar_best ar_scan_lanes(global const uchar *in, ulong base, ulong begin, ulong end,
                                    ulong last, uint dtype, long orient, long nan_key,
                                    bool flush, bool decreasing)
{
    const int orient32 = (int)orient, nan32 = ar_lane_nan_key(nan_key);
    const uint16 lane = (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const ulong final_at = end - AR_LANES;
    int16 lane_key[AR_CHAINS];
    uint16 lane_at[AR_CHAINS]; /* k - begin of each lane's best */
#pragma unroll
    for (uint c = 0; c < AR_CHAINS; c++) {
        const ulong at = min(begin + c * AR_LANES, final_at);
        lane_key[c] = ar_lane_keys(in, base + at, dtype, orient32, nan32, flush);
        lane_at[c] = (uint16)(uint)(at - begin) + lane;
    }
    const uint bytes = ar_lane_element_bytes(dtype);
    for (ulong next = begin + AR_CHAINS * AR_LANES; next < end; next += AR_CHAINS * AR_LANES) {
#pragma unroll
        for (uint c = 0; c < AR_CHAINS; c++) {
            const ulong at = min(next + c * AR_LANES, final_at);
            AR_PREFETCH(in + (base + at) * bytes + AR_PREFETCH_BYTES);
            int16 keys = ar_lane_keys(in, base + at, dtype, orient32, nan32, flush);
            int16 take = decreasing ? keys >= lane_key[c] : keys > lane_key[c];
            lane_key[c] = select(lane_key[c], keys, take);
            lane_at[c] = select(lane_at[c], (uint16)(uint)(at - begin) + lane, take);
        }
    }
    ar_best best = { LONG_MIN, ORDER_TIE_NONE };
    ulong best_k = begin;
    int best_key = INT_MIN;
    for (uint c = 0; c < AR_CHAINS; c++) {
        int keys[AR_LANES];
        uint ats[AR_LANES];
        vstore16(lane_key[c], 0, keys);
        vstore16(lane_at[c], 0, ats);
        for (uint j = 0; j < AR_LANES; j++) {
            const ulong k = begin + ats[j], rank = ar_rank(k, last, decreasing);
            if (order_beats(keys[j], rank, best_key, best.rank)) {
                best_key = keys[j];
                best_k = k;
                best.rank = rank;
            }
        }
    }
    best.key = order_key(in, base + best_k, dtype, orient, nan_key, flush);
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
        if (stride == 1 && step == 1 && dtype != CLP_T_UINT64 && dtype != CLP_T_INT64
            && end - begin >= AR_LANES)
            return ar_scan_lanes(in, base, begin, end, last, dtype, orient, nan_key, flush,
                                 decreasing);
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

/* ---- Column blocks: up to AR_COLUMNS neighbouring outputs per work-item ----
 *
 * For a reduction over a strided axis whose outputs sit next to each other in memory (the
 * innermost kept dimension has input stride 1), one work-item walks k once for a block of
 * neighbouring outputs of one row of that dimension: CLP_AR_COLUMN_VECTORS vectors of
 * AR_LANES (the host takes as many as the row holds, up to AR_COLUMN_VECTORS).  Each step
 * reads that many neighbouring elements (up to four cache lines of float32, so the CPU's
 * prefetchers see a stream within the step and each page is visited for several lines), as
 * vectors of 32-bit keys for types of at most 32 bits.  k is visited in increasing order,
 * so INCREASING keeps the first extreme element (replace on a strictly better key) and
 * DECREASING the last (replace on an equal key too): SEMANTICS D3 without tie ranks. */
#define AR_COLUMN_VECTORS 4
#define AR_COLUMNS (AR_COLUMN_VECTORS * AR_LANES)

/* Steps ahead of a column walk that its software prefetch reaches (AR_PREFETCH): one thread
 * walked the 1024 x 16384 float32 benchmark at 0.67 ns/element without, 0.43 with 16 (8: 0.57,
 * 32: 0.46). */
#define AR_COLUMN_AHEAD 16

/* What a column walk reads from the parameter block. */
typedef struct ar_walk {
    global const uchar *in;
    long orient, nan_key;
    bool flush, decreasing;
    uint red_rank, count;
} ar_walk;

ALWAYS_INLINE ar_walk ar_walk_of(global const uchar *arena, global const ulong *p)
{
    ar_walk w = { arena + p[CLP_IN_OFFSET], (long)p[CLP_ORIENT], (long)p[CLP_NAN_KEY],
                  p[CLP_FLUSH] != 0, p[CLP_AR_DECREASING] != 0, (uint)p[CLP_AR_RED_RANK],
                  (uint)p[CLP_AR_RED_COUNT] };
    return w;
}

/* Input element offset of step k of a column walk. */
ALWAYS_INLINE ulong ar_column_step(global const ulong *p, uint red_rank, uint k)
{
    return red_rank == 1 ? k * p[CLP_AR_RED_IN_STRIDE] : ar_reduced_offset(p, red_rank, k);
}

/* Writes the index of column j of a block (j >= first_lane: the columns this block owns). */
ALWAYS_INLINE void ar_columns_write(global uchar *arena, global const ulong *p, ulong out_base,
                                    uint j, uint first_lane, ulong k)
{
    const ulong kept_rank = p[CLP_AR_KEPT_RANK];
    const ulong out_stride = p[CLP_AR_KEPT_OUT_STRIDE + kept_rank - 1];
    if (j >= first_lane)
        store_raw(arena + p[CLP_OUT_OFFSET], out_base + j * out_stride, (uint)p[CLP_OUT_BYTES], k);
}

/* Scans outputs base + j, j < vectors * AR_LANES, and writes those with j >= first_lane:
 * 32-bit keys, AR_LANES columns per vector (dtype of at most 32 bits; see ar_lane_keys). */
ALWAYS_INLINE void ar_columns_lanes(global uchar *arena, global const ulong *p, ulong base,
                                    ulong out_base, uint first_lane, uint vectors, uint dtype)
{
    const ar_walk w = ar_walk_of(arena, p);
    const int orient = (int)w.orient, nan_key = ar_lane_nan_key(w.nan_key);
    int16 best_key[AR_COLUMN_VECTORS];
    uint16 best_k[AR_COLUMN_VECTORS];
    for (uint v = 0; v < vectors; v++) {
        best_key[v] = ar_lane_keys(w.in, base + v * AR_LANES, dtype, orient, nan_key, w.flush);
        best_k[v] = (uint16)0;
    }
    const uint bytes = ar_lane_element_bytes(dtype);
    for (uint k = 1; k < w.count; k++) {
        const ulong row = base + ar_column_step(p, w.red_rank, k);
        const ulong ahead = base + ar_column_step(p, w.red_rank, min(k + AR_COLUMN_AHEAD, w.count - 1));
        for (uint v = 0; v < vectors; v++) {
            AR_PREFETCH(w.in + (ahead + v * AR_LANES) * bytes);
            int16 key = ar_lane_keys(w.in, row + v * AR_LANES, dtype, orient, nan_key, w.flush);
            int16 take = w.decreasing ? key >= best_key[v] : key > best_key[v];
            best_key[v] = select(best_key[v], key, take);
            best_k[v] = select(best_k[v], (uint16)k, take);
        }
    }
    for (uint v = 0; v < vectors; v++) {
        uint k[AR_LANES];
        vstore16(best_k[v], 0, k);
        for (uint j = 0; j < AR_LANES; j++)
            ar_columns_write(arena, p, out_base, v * AR_LANES + j, first_lane, k[j]);
    }
}

/* The same for 64-bit types: 64-bit keys, one column at a time. */
ALWAYS_INLINE void ar_columns_scan(global uchar *arena, global const ulong *p, ulong base,
                                   ulong out_base, uint first_lane, uint columns, uint dtype)
{
    const ar_walk w = ar_walk_of(arena, p);
    long best_key[AR_COLUMNS];
    uint best_k[AR_COLUMNS];
    for (uint j = 0; j < columns; j++) {
        best_key[j] = order_key(w.in, base + j, dtype, w.orient, w.nan_key, w.flush);
        best_k[j] = 0;
    }
    for (uint k = 1; k < w.count; k++) {
        const ulong row = base + ar_column_step(p, w.red_rank, k);
        for (uint j = 0; j < columns; j++) {
            long key = order_key(w.in, row + j, dtype, w.orient, w.nan_key, w.flush);
            bool take = w.decreasing ? key >= best_key[j] : key > best_key[j];
            best_key[j] = take ? key : best_key[j];
            best_k[j] = take ? k : best_k[j];
        }
    }
    for (uint j = 0; j < columns; j++)
        ar_columns_write(arena, p, out_base, j, first_lane, best_k[j]);
}

kernel void arg_reduce_columns(global uchar *arena)
{
    global const ulong *p;
    ulong gid;
    if (!batch_case(arena, CLK_ARG_REDUCE_COLUMNS, get_global_id(0), &p, &gid))
        return;
    const ulong kept_rank = p[CLP_AR_KEPT_RANK];
    const ulong width = p[CLP_AR_KEPT_SIZE + kept_rank - 1];
    const uint vectors = (uint)p[CLP_AR_COLUMN_VECTORS];
    const uint columns = vectors * AR_LANES;
    const ulong blocks_per_row = (width + columns - 1) / columns;
    const ulong rows = p[CLP_AR_OUT_COUNT] / width;
    if (gid >= rows * blocks_per_row)
        return;
    const ulong row = gid / blocks_per_row, block = gid - row * blocks_per_row;
    /* The last block of a row is moved left to end at the row's end (the host guarantees
     * width >= columns); it writes only the outputs the previous block did not. */
    const ulong first_column = block * columns;
    const ulong start = min(first_column, width - columns);
    const uint first_lane = (uint)(first_column - start);
    ulong out_base;
    const ulong base = ar_kept_offsets(p, row * width + start, &out_base);

    switch ((uint)p[CLP_DTYPE]) {
#define AR_COLUMNS_TYPE(t)                                                   \
    case t:                                                                  \
        ar_columns_lanes(arena, p, base, out_base, first_lane, vectors, t);  \
        break;
    AR_COLUMNS_TYPE(CLP_T_FLOAT32)
    AR_COLUMNS_TYPE(CLP_T_FLOAT16)
    AR_COLUMNS_TYPE(CLP_T_UINT8)
    AR_COLUMNS_TYPE(CLP_T_UINT16)
    AR_COLUMNS_TYPE(CLP_T_UINT32)
    AR_COLUMNS_TYPE(CLP_T_INT8)
    AR_COLUMNS_TYPE(CLP_T_INT16)
    AR_COLUMNS_TYPE(CLP_T_INT32)
    case CLP_T_UINT64:
        ar_columns_scan(arena, p, base, out_base, first_lane, columns, CLP_T_UINT64);
        break;
    default:
        ar_columns_scan(arena, p, base, out_base, first_lane, columns, CLP_T_INT64);
        break;
#undef AR_COLUMNS_TYPE
    }
    fault_inject(arena, p, gid);
}
