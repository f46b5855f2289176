/*
 * order.cl: the ordering rule of the three operators on the device, the same rule as
 * reference/order.h, written for OpenCL C 1.2.  Compiled after cl_params.h and before the
 * operator families (cl_program.c hands the sources to the compiler in that order).
 *
 * Every element becomes a signed 64-bit key read from its raw bits, never from a converted
 * value, so no float arithmetic runs on the device: fp16 needs no cl_khr_fp16, and a device
 * that flushes denormals in its float unit still orders them exactly.  Larger key wins;
 * equal keys fall to the tie rank (smaller wins).  The order is total, so partial results
 * combined across work-items in any grouping give the same winner: the answer does not
 * depend on the work-group size.
 *
 * Also here: raw loads and stores of 1, 2, 4 and 8-byte elements at element offsets of a
 * byte arena (offsets are multiples of CLP_ALIGN, so every access is naturally aligned),
 * and the fault-injection hooks that only the guard-band tests compile in.
 *
 * Portability note for all kernels: a remainder is written q = a / b; r = a - q * b, never
 * a % b next to a / b.  LLVM turns that pair into IR with a `freeze` instruction, which
 * Oclgrind 21.10's uninitialized-value checker cannot execute (it aborts the kernel).
 */

/* Functions called with a constant data type (the typed scans) must be inlined for the
 * switch on the type to fold away; left to its heuristics the compiler keeps them out of
 * line and the switch runs for every element (3-4x slower on PoCL).  Every OpenCL C
 * compiler in use is clang-based and knows the attribute. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* SEMANTICS D3: "no candidate yet" ranks after every real candidate. */
#define ORDER_TIE_NONE ULONG_MAX

/* Does candidate (key, rank) beat the best so far?  D3-D6 live in the keys; ties in ranks. */
ALWAYS_INLINE bool order_beats(long key, ulong rank, long best_key, ulong best_rank)
{
    return key > best_key || (key == best_key && rank < best_rank);
}

/* The key of element `elem` of type `dtype` at `in`, oriented (ARGMIN passes orient -1,
 * which reverses the order with ~key) and with NaN mapped to the policy's key.
 * Called with a constant dtype from the typed scans, so the switch folds away. */
ALWAYS_INLINE long order_key(global const uchar *in, ulong elem, uint dtype, long orient, long nan_key,
                      bool flush)
{
    switch (dtype) {
    case CLP_T_FLOAT32: {
        uint bits = ((global const uint *)in)[elem];
        long magnitude = bits & 0x7fffffffu;
        /* SEMANTICS D4: NaN takes the policy's key, applied after orientation. */
        if (magnitude > 0x7f800000)
            return nan_key;
        /* SEMANTICS D6: judged as the zero of its sign when flushing. */
        if (flush && magnitude < 0x00800000)
            magnitude = 0;
        /* D3: -0 and +0 both give key 0; D5: infinities are ordinary extremes. */
        return ((bits >> 31) ? -magnitude : magnitude) ^ orient;
    }
    case CLP_T_FLOAT16: {
        /* SEMANTICS "FLOAT16": sign-magnitude of the bits orders halves exactly; never
         * flushed. */
        uint bits = ((global const ushort *)in)[elem];
        long magnitude = bits & 0x7fffu;
        if (magnitude > 0x7c00)
            return nan_key;
        return ((bits >> 15) ? -magnitude : magnitude) ^ orient;
    }
    case CLP_T_UINT8:
        return ((long)((global const uchar *)in)[elem] ^ LONG_MIN) ^ orient;
    case CLP_T_UINT16:
        return ((long)((global const ushort *)in)[elem] ^ LONG_MIN) ^ orient;
    case CLP_T_UINT32:
        return ((long)((global const uint *)in)[elem] ^ LONG_MIN) ^ orient;
    case CLP_T_UINT64:
        return ((long)((global const ulong *)in)[elem] ^ LONG_MIN) ^ orient;
    case CLP_T_INT8:
        return (long)((global const char *)in)[elem] ^ orient;
    case CLP_T_INT16:
        return (long)((global const short *)in)[elem] ^ orient;
    case CLP_T_INT32:
        return (long)((global const int *)in)[elem] ^ orient;
    default: /* CLP_T_INT64 */
        return ((global const long *)in)[elem] ^ orient;
    }
}

/* Raw bits of an element of `bytes` bytes, zero-extended. */
inline ulong load_raw(global const uchar *base, ulong elem, uint bytes)
{
    switch (bytes) {
    case 1: return ((global const uchar *)base)[elem];
    case 2: return ((global const ushort *)base)[elem];
    case 4: return ((global const uint *)base)[elem];
    default: return ((global const ulong *)base)[elem];
    }
}

/* Writes the low `bytes` bytes of bits as element `elem`. */
inline void store_raw(global uchar *base, ulong elem, uint bytes, ulong bits)
{
    switch (bytes) {
    case 1: ((global uchar *)base)[elem] = (uchar)bits; break;
    case 2: ((global ushort *)base)[elem] = (ushort)bits; break;
    case 4: ((global uint *)base)[elem] = (uint)bits; break;
    default: ((global ulong *)base)[elem] = bits; break;
    }
}

/* The case of this launch's work-item `gid` of kernel `kernel_id` (cl_params.h, "dispatch
 * block"): false when the work-item is past the last case; else *params is the case's
 * parameter block and *item the work-item's number within the case.  The table is sorted by
 * first work-item, so the case is the last entry whose first work-item is <= gid. */
inline bool batch_case(global const uchar *arena, uint kernel_id, ulong gid,
                       global const ulong **params, ulong *item)
{
    global const ulong *dispatch = (global const ulong *)arena;
    const ulong count = dispatch[2 * kernel_id + 1];
    if (count == 0)
        return false;
    global const ulong *table = (global const ulong *)(arena + dispatch[2 * kernel_id]);
    if (gid >= table[2 * count])
        return false;
    ulong low = 0, high = count; /* table[2 * low] <= gid < table[2 * high] */
    while (high - low > 1) {
        ulong mid = (low + high) / 2;
        if (table[2 * mid] <= gid)
            low = mid;
        else
            high = mid;
    }
    *params = (global const ulong *)(arena + table[2 * low + 1]);
    *item = gid - table[2 * low];
    return true;
}

#ifdef DMLCHECK_FAULT_BUILD /* test-only: proves a failed build is reported with its log */
#error "dmlcheck test-only build failure"
#endif

/* Test-only faults (tests/opencl/test_cl_guard.c builds the program with these defines):
 * the first work-item writes one element just past the end of the output buffer, changes
 * the input, writes the guard byte just before the output, or a parameter word.  DMLCHECK_FAULT_READ_PAST_ARENA (tests/opencl/oclgrind_device.sh) reads
 * the byte just past the device buffer and discards it: the answer does not change and no
 * guard sees it, so only a checking device (Oclgrind) can report it; volatile keeps the
 * compiler from dropping the unused load.  Without the defines this compiles to nothing. */
inline void fault_inject(global uchar *arena, global const ulong *p, ulong gid)
{
#ifdef DMLCHECK_FAULT_READ_PAST_ARENA
    if (gid == 0) {
        uchar discarded = ((volatile global const uchar *)arena)[p[CLP_ARENA_BYTES]];
        (void)discarded;
    }
#endif
#ifdef DMLCHECK_FAULT_WRITE_PAST_END
    if (gid == 0)
        store_raw(arena + p[CLP_OUT_OFFSET] + p[CLP_OUT_TOTAL], 0, (uint)p[CLP_OUT_BYTES], 0);
#endif
#ifdef DMLCHECK_FAULT_WRITE_INPUT
    if (gid == 0)
        arena[p[CLP_IN_OFFSET]] ^= (uchar)0x5a;
#endif
#ifdef DMLCHECK_FAULT_WRITE_BEFORE_START /* the last guard byte before the output */
    if (gid == 0)
        arena[p[CLP_OUT_OFFSET] - 1] = (uchar)0x5a;
#endif
#ifdef DMLCHECK_FAULT_WRITE_PARAMS /* a word of the parameter block no kernel reads */
    if (gid == 0)
        ((global ulong *)p)[CLP_IN_TOTAL] = ~(ulong)0;
#endif
    (void)arena;
    (void)p;
    (void)gid;
}
