/*
 * keys.h: typed loops that turn a strided run of input elements into order keys
 * (reference/order.h).  This is the only place that knows how each data type is laid out in
 * memory; everything after it (arg_reduce.c, max_pooling2.c) compares plain int64 keys, so
 * the type is dispatched once per run, never per element.
 */
#ifndef DMLCHECK_REF_KEYS_H
#define DMLCHECK_REF_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "case.h"
#include "order.h"

/* How keys are formed for one execution: orientation (ARGMIN reverses), the NaN key of the
 * policy, and whether fp32 denormals are judged as flushed. */
typedef struct key_rule {
    int64_t orient_mask;
    int64_t nan_key;
    bool flush_f32_denormals;
} key_rule;

void key_rule_init(key_rule *rule, bool minimize, const exec_options *opt);

/* The key of one float32 element (not flushed), and whether it is a NaN.  Inline here so
 * arg_reduce.c can fuse it into its float32 row loop. */
static inline int64_t key_of_f32(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    uint32_t bits;
    memcpy(&bits, p, 4);
    *is_nan = order_f32_is_nan(bits);
    return order_final_key(order_key_f32(bits, false), *is_nan, rule->orient_mask, rule->nan_key);
}

/* The key of one float16 element, and whether it is a NaN (fused into float16 runs). */
static inline int64_t key_of_f16(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    uint16_t bits;
    memcpy(&bits, p, 2);
    *is_nan = order_f16_is_nan(bits);
    return order_final_key(order_key_f16(bits), *is_nan, rule->orient_mask, rule->nan_key);
}

/* Writes the keys of n elements starting at p, stride_bytes apart, into keys[0..n).
 * Returns true when one of them is a NaN. */
typedef bool (*key_convert_fn)(const uint8_t *p, uint64_t n, uint64_t stride_bytes,
                               const key_rule *rule, int64_t *keys);

/* The converter for a data type under a rule; NULL for UNKNOWN. */
key_convert_fn key_converter(DML_TENSOR_DATA_TYPE type, const key_rule *rule);

/* Raw bits of one element of `bytes` bytes (1, 2, 4 or 8), zero-extended.  Inline, with a
 * fixed-size copy per width, because it runs once per output element. */
static inline uint64_t key_load_raw(const uint8_t *p, unsigned bytes)
{
    switch (bytes) {
    case 1: return p[0];
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Writes the low `bytes` bytes (1, 2, 4 or 8) of bits at p. */
static inline void key_store_raw(uint8_t *p, unsigned bytes, uint64_t bits)
{
    switch (bytes) {
    case 1: p[0] = (uint8_t)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
    default: memcpy(p, &bits, 8); break;
    }
}

#endif
