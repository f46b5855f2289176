/*
 * order.h: the ordering rule of the three operators, written once.  Every comparison the
 * reference makes goes through these functions (or, in the float32 fast path of
 * arg_reduce.c, through plain float comparisons proven equal to them and guarded by a
 * fallback to them).
 *
 * The rule is a total order on candidates (key, tie) compared lexicographically: the larger
 * key wins; among equal keys the smaller tie rank wins.  A key is a signed 64-bit integer
 * that orders the element's exact value the way the operator wants ("larger is better", so
 * ARGMIN reverses it); the tie rank turns the axis direction into "smaller is better".
 * Because the order is total, the winner does not depend on the order in which candidates
 * are visited, which lets the engine walk memory in whatever order is fastest.
 *
 * Invariants: keys of numbers of a float type lie strictly between the two NaN keys; equal
 * keys mean equal values (+0 and -0 included); the tie rank of a real candidate is never
 * ORDER_TIE_NONE, so any candidate beats "no candidate yet".
 */
#ifndef DMLCHECK_ORDER_H
#define DMLCHECK_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "case.h"

/* "No candidate yet" is (ORDER_KEY_NONE, ORDER_TIE_NONE): the lowest key with a rank every
 * real candidate beats, so the first candidate always wins, whatever its key. */
#define ORDER_KEY_NONE INT64_MIN
#define ORDER_TIE_NONE UINT64_MAX

/* SEMANTICS D4 (policy ignore): NaN never beats a number, so it takes the lowest key; all
 * NaNs are equal to one another, so among NaNs the tie rule (D3) picks the first (the last
 * under DECREASING).
 * SEMANTICS D4 (policy propagate): NaN beats everything, so it takes the highest key.  Our
 * choice where numpy/PyTorch are silent: NaNs are equal to one another, so the tie rule
 * picks the first NaN under INCREASING and the LAST NaN under DECREASING, exactly as for
 * any other tied value.
 * The NaN key is applied after the ARGMIN reversal, so it means the same for both ops.
 * Integer types have no NaN, so their keys may reach INT64_MIN/INT64_MAX without clashing. */
static inline int64_t order_nan_key(nan_policy policy)
{
    return policy == NAN_POLICY_PROPAGATE ? INT64_MAX : INT64_MIN;
}

/* True for a float32 NaN given by its bits. */
static inline bool order_f32_is_nan(uint32_t bits)
{
    return (bits & 0x7fffffffu) > 0x7f800000u;
}

static inline bool order_f16_is_nan(uint16_t bits)
{
    return (bits & 0x7fffu) > 0x7c00u;
}

/* Key of a non-NaN float32 given by its bits: IEEE magnitudes order like their bit
 * patterns, so the key is the sign-magnitude bit pattern read as a signed number.
 * SEMANTICS D3: -0 and +0 both map to key 0, so they compare equal and tie.
 * SEMANTICS D5: infinities are the ordinary extremes (+-0x7f800000); nothing is clamped,
 * so -inf stays selectable.
 * SEMANTICS D6: a denormal keeps its exact (non-zero) key unless `flush` is set, in which
 * case it is judged as the zero of its sign (key 0) like a device without denormals would. */
static inline int64_t order_key_f32(uint32_t bits, bool flush)
{
    int64_t magnitude = bits & 0x7fffffffu;
    if (flush && magnitude < 0x00800000)
        magnitude = 0;
    return (bits & 0x80000000u) ? -magnitude : magnitude;
}

/* Key of a non-NaN float16: the same sign-magnitude reading, which orders halves exactly
 * as their float values do (half -> float is exact and monotone).  SEMANTICS "FLOAT16":
 * float16 denormals are never flushed.  D3/D5 as for float32. */
static inline int64_t order_key_f16(uint16_t bits)
{
    int64_t magnitude = bits & 0x7fffu;
    return (bits & 0x8000u) ? -magnitude : magnitude;
}

/* Key of a signed integer widened to 64 bits: its value. */
static inline int64_t order_key_signed(int64_t value)
{
    return value;
}

/* Key of an unsigned integer widened to 64 bits: flipping the top bit maps [0, 2^64) onto
 * [INT64_MIN, INT64_MAX] monotonically. */
static inline int64_t order_key_unsigned(uint64_t value)
{
    return (int64_t)(value ^ 0x8000000000000000ull);
}

/* The mask that orients keys for an operator: ARGMIN wants the smallest value, so its keys
 * are reversed with bitwise NOT (~k == -k-1 reverses the order and never overflows). */
static inline int64_t order_orient_mask(bool minimize)
{
    return minimize ? -1 : 0;
}

/* The key as the comparison uses it: NaN gets the policy's key (D4), numbers the oriented
 * key.  Written without branches so typed loops stay branch-free here. */
static inline int64_t order_final_key(int64_t key, bool is_nan, int64_t orient_mask,
                                      int64_t nan_key)
{
    return is_nan ? nan_key : (key ^ orient_mask);
}

/* SEMANTICS D3: ties.  INCREASING returns the first extreme element, so the smaller index
 * ranks first; DECREASING the last, so the rank counts down from the largest index
 * `last_index` (never ORDER_TIE_NONE, since last_index < 2^64-1).  MAX_POOLING2 always ranks
 * like INCREASING: the smallest flat input index wins. */
static inline uint64_t order_tie_rank(uint64_t index, bool decreasing, uint64_t last_index)
{
    return decreasing ? last_index - index : index;
}

/* Inverse of order_tie_rank. */
static inline uint64_t order_tie_index(uint64_t rank, bool decreasing, uint64_t last_index)
{
    return decreasing ? last_index - rank : rank;
}

/* The rule itself: does candidate (key, rank) beat the current best (best_key, best_rank)?
 * Larger key wins (D3-D6 live in the keys); equal keys fall to the tie rank (D3). */
static inline bool order_beats(int64_t key, uint64_t rank, int64_t best_key, uint64_t best_rank)
{
    /* Bitwise, not short-circuit: lets callers pick the winner with conditional moves
     * instead of branches that random data would mispredict. */
    return (key > best_key) | ((key == best_key) & (rank < best_rank));
}

#endif
