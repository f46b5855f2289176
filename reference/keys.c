/*
 * keys.c: one plain loop per data type turning elements into order keys.  Each reads through
 * memcpy (inputs may be unaligned) and applies exactly one order.h key function, then
 * order_final_key for orientation and NaN (SEMANTICS D3-D6 live there, not here).
 */
#include "keys.h"

#include <string.h>

#include "order.h"

void key_rule_init(key_rule *rule, bool minimize, const exec_options *opt)
{
    rule->orient_mask = order_orient_mask(minimize);
    rule->nan_key = order_nan_key(opt->nan);
    rule->flush_f32_denormals = opt->flush_denormals;
}

/* The key of one element, and whether it is a NaN: one function per data type, each
 * applying exactly one order.h key function. */
typedef int64_t (*key_of_fn)(const uint8_t *p, const key_rule *rule, bool *is_nan);

/* SEMANTICS D6: float32 with denormals judged as signed zeros. */
static inline int64_t key_of_f32_flushed(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    uint32_t bits;
    memcpy(&bits, p, 4);
    *is_nan = order_f32_is_nan(bits);
    return order_final_key(order_key_f32(bits, true), *is_nan, rule->orient_mask, rule->nan_key);
}

/* FLOAT64 is in dtypes.def although no operator here accepts it; keyed the same way. */
static inline int64_t key_of_f64(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    uint64_t bits;
    memcpy(&bits, p, 8);
    int64_t magnitude = (int64_t)(bits & 0x7fffffffffffffffull);
    *is_nan = magnitude > 0x7ff0000000000000ll;
    int64_t key = (bits >> 63) ? -magnitude : magnitude;
    return order_final_key(key, *is_nan, rule->orient_mask, rule->nan_key);
}

static inline int64_t key_of_i8(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    *is_nan = false;
    return order_key_signed((int8_t)p[0]) ^ rule->orient_mask;
}

static inline int64_t key_of_i16(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    int16_t v;
    memcpy(&v, p, 2);
    *is_nan = false;
    return order_key_signed(v) ^ rule->orient_mask;
}

static inline int64_t key_of_i32(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    int32_t v;
    memcpy(&v, p, 4);
    *is_nan = false;
    return order_key_signed(v) ^ rule->orient_mask;
}

static inline int64_t key_of_i64(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    int64_t v;
    memcpy(&v, p, 8);
    *is_nan = false;
    return order_key_signed(v) ^ rule->orient_mask;
}

static inline int64_t key_of_u8(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    *is_nan = false;
    return order_key_unsigned(p[0]) ^ rule->orient_mask;
}

static inline int64_t key_of_u16(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    uint16_t v;
    memcpy(&v, p, 2);
    *is_nan = false;
    return order_key_unsigned(v) ^ rule->orient_mask;
}

static inline int64_t key_of_u32(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    uint32_t v;
    memcpy(&v, p, 4);
    *is_nan = false;
    return order_key_unsigned(v) ^ rule->orient_mask;
}

static inline int64_t key_of_u64(const uint8_t *p, const key_rule *rule, bool *is_nan)
{
    uint64_t v;
    memcpy(&v, p, 8);
    *is_nan = false;
    return order_key_unsigned(v) ^ rule->orient_mask;
}

/* The loop every converter shares; key_of and size are constants once inlined into the
 * typed converters below, so each of them is a plain typed loop with no call inside. */
static inline __attribute__((always_inline)) bool
keys_loop(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule, int64_t *keys,
          key_of_fn key_of)
{
    bool any_nan = false;
    for (uint64_t i = 0; i < n; i++) {
        bool is_nan;
        keys[i] = key_of(p + i * stride, rule, &is_nan);
        any_nan |= is_nan;
    }
    return any_nan;
}

static bool keys_f32(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_f32);
}

static bool keys_f32_flushed(const uint8_t *p, uint64_t n, uint64_t stride,
                             const key_rule *rule, int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_f32_flushed);
}

static bool keys_f16(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_f16);
}

static bool keys_f64(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_f64);
}

static bool keys_i8(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                    int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_i8);
}

static bool keys_i16(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_i16);
}

static bool keys_i32(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_i32);
}

static bool keys_i64(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_i64);
}

static bool keys_u8(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                    int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_u8);
}

static bool keys_u16(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_u16);
}

static bool keys_u32(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_u32);
}

static bool keys_u64(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    return keys_loop(p, n, stride, rule, keys, key_of_u64);
}

key_convert_fn key_converter(DML_TENSOR_DATA_TYPE type, const key_rule *rule)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32:
        return rule->flush_f32_denormals ? keys_f32_flushed : keys_f32;
    case DML_TENSOR_DATA_TYPE_FLOAT16: return keys_f16;
    case DML_TENSOR_DATA_TYPE_FLOAT64: return keys_f64;
    case DML_TENSOR_DATA_TYPE_INT8: return keys_i8;
    case DML_TENSOR_DATA_TYPE_INT16: return keys_i16;
    case DML_TENSOR_DATA_TYPE_INT32: return keys_i32;
    case DML_TENSOR_DATA_TYPE_INT64: return keys_i64;
    case DML_TENSOR_DATA_TYPE_UINT8: return keys_u8;
    case DML_TENSOR_DATA_TYPE_UINT16: return keys_u16;
    case DML_TENSOR_DATA_TYPE_UINT32: return keys_u32;
    case DML_TENSOR_DATA_TYPE_UINT64: return keys_u64;
    default: return NULL;
    }
}
