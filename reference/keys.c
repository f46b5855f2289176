/*
 * keys.c: one plain loop per data type turning elements into order keys.  Each loop reads
 * through memcpy (inputs may be unaligned) and applies exactly one order.h key function,
 * then order_final_key for orientation and NaN (SEMANTICS D3-D6 live there, not here).
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

static bool keys_f32(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    bool any_nan = false;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, p + i * stride, 4);
        bool is_nan = order_f32_is_nan(bits);
        any_nan |= is_nan;
        keys[i] = order_final_key(order_key_f32(bits, false), is_nan, rule->orient_mask,
                                  rule->nan_key);
    }
    return any_nan;
}

/* SEMANTICS D6: the same loop with fp32 denormals judged as signed zeros. */
static bool keys_f32_flushed(const uint8_t *p, uint64_t n, uint64_t stride,
                             const key_rule *rule, int64_t *keys)
{
    bool any_nan = false;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, p + i * stride, 4);
        bool is_nan = order_f32_is_nan(bits);
        any_nan |= is_nan;
        keys[i] = order_final_key(order_key_f32(bits, true), is_nan, rule->orient_mask,
                                  rule->nan_key);
    }
    return any_nan;
}

static bool keys_f16(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    bool any_nan = false;
    for (uint64_t i = 0; i < n; i++) {
        uint16_t bits;
        memcpy(&bits, p + i * stride, 2);
        bool is_nan = order_f16_is_nan(bits);
        any_nan |= is_nan;
        keys[i] = order_final_key(order_key_f16(bits), is_nan, rule->orient_mask, rule->nan_key);
    }
    return any_nan;
}

/* FLOAT64 is in dtypes.def although no operator here accepts it; keyed the same way. */
static bool keys_f64(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    bool any_nan = false;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, p + i * stride, 8);
        int64_t magnitude = (int64_t)(bits & 0x7fffffffffffffffull);
        bool is_nan = magnitude > 0x7ff0000000000000ll;
        any_nan |= is_nan;
        int64_t key = (bits >> 63) ? -magnitude : magnitude;
        keys[i] = order_final_key(key, is_nan, rule->orient_mask, rule->nan_key);
    }
    return any_nan;
}

static bool keys_i8(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                    int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++)
        keys[i] = order_key_signed((int8_t)p[i * stride]) ^ rule->orient_mask;
    return false;
}

static bool keys_i16(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++) {
        int16_t v;
        memcpy(&v, p + i * stride, 2);
        keys[i] = order_key_signed(v) ^ rule->orient_mask;
    }
    return false;
}

static bool keys_i32(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++) {
        int32_t v;
        memcpy(&v, p + i * stride, 4);
        keys[i] = order_key_signed(v) ^ rule->orient_mask;
    }
    return false;
}

static bool keys_i64(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++) {
        int64_t v;
        memcpy(&v, p + i * stride, 8);
        keys[i] = order_key_signed(v) ^ rule->orient_mask;
    }
    return false;
}

static bool keys_u8(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                    int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++)
        keys[i] = order_key_unsigned(p[i * stride]) ^ rule->orient_mask;
    return false;
}

static bool keys_u16(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++) {
        uint16_t v;
        memcpy(&v, p + i * stride, 2);
        keys[i] = order_key_unsigned(v) ^ rule->orient_mask;
    }
    return false;
}

static bool keys_u32(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, p + i * stride, 4);
        keys[i] = order_key_unsigned(v) ^ rule->orient_mask;
    }
    return false;
}

static bool keys_u64(const uint8_t *p, uint64_t n, uint64_t stride, const key_rule *rule,
                     int64_t *keys)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, p + i * stride, 8);
        keys[i] = order_key_unsigned(v) ^ rule->orient_mask;
    }
    return false;
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

uint64_t key_load_raw(const uint8_t *p, unsigned bytes)
{
    uint64_t bits = 0;
    memcpy(&bits, p, bytes); /* little-endian hosts only, as everywhere in dmlcheck */
    return bits;
}

void key_store_raw(uint8_t *p, unsigned bytes, uint64_t bits)
{
    memcpy(p, &bits, bytes);
}
