/*
 * causes/types.c: root causes in how an element of a type is read before it is compared:
 * unsigned integers sign-extended, 64-bit integers held in 32 bits (UINT64 as signed ones),
 * float denormals flushed
 * (SEMANTICS D6: the reference computes with exact values).
 */
#include <math.h>

#include "cause.h"
#include "dtype.h"
#include "order.h"
#include "probe.h"

static int64_t sign_extend(uint64_t bits, unsigned width)
{
    return width == 64 ? (int64_t)bits : (int64_t)(bits << (64 - width)) >> (64 - width);
}

/* ---- unsigned_read_as_signed -------------------------------------------------------- */

static bool unsigned_input(const dml_case *c)
{
    return dtype_get(c->input.type)->kind == DTYPE_KIND_UNSIGNED;
}

/* The bits sign-extended: the upper half of the range below the lower one. */
static int64_t signed_reading_key(const scan_env *e, uint64_t bits, bool *is_nan)
{
    *is_nan = false;
    return order_key_signed(sign_extend(bits, dtype_size(e->seen->input.type) * 8));
}

/* Values on both sides of the sign bit, as they are for ARGMIN too (an unsigned mirror is 0). */
static void fill_both_halves(prng *p, dml_case *probe)
{
    double half = ldexp(1.0, (int)dtype_size(probe->input.type) * 8 - 1);
    const double pool[] = { half + half / 2, half / 2, half - 1, half, 2 * half - 1, 3 };
    probe_fill_values(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_unsigned_read_as_signed = {
    .id = "unsigned_read_as_signed",
    .sentence = "Unsigned elements are read as signed integers of the same width: values with "
                "the top bit set compare below the small ones",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = unsigned_input,
    .variant = { .number_key = signed_reading_key },
    .plan = { .fill = fill_both_halves },
};

/* ---- int64_compared_as_32_bits ------------------------------------------------------ */

static bool wide_integer_input(const dml_case *c)
{
    return !dtype_is_float(c->input.type) && dtype_size(c->input.type) == 8;
}

/* The low 32 bits, signed for INT64, unsigned for UINT64. */
static int64_t low_word_key(const scan_env *e, uint64_t bits, bool *is_nan)
{
    *is_nan = false;
    if (dtype_is_signed_int(e->seen->input.type))
        return order_key_signed(sign_extend(bits & 0xFFFFFFFFu, 32));
    return order_key_unsigned(bits & 0xFFFFFFFFu);
}

/* Values whose order differs above and below bit 32: 2^32 + 1 is larger than 7, its low word
 * smaller; 2^33 - 1 has the low word -1 (INT64) or 2^32 - 1 (UINT64). */
static void fill_high_words(prng *p, dml_case *probe)
{
    static const double pool[] = { 4294967297.0, 7, 8589934591.0, 3, 4294967305.0, -4294967291.0 };
    probe_fill_values(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_int64_compared_as_32_bits = {
    .id = "int64_compared_as_32_bits",
    .sentence = "64-bit integers are compared after truncation to their low 32 bits (held in a "
                "32-bit variable): values past 2^32 compare by their remainder",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = wide_integer_input,
    .variant = { .number_key = low_word_key },
    .plan = { .fill = fill_high_words },
};

/* ---- uint64_read_as_int32 ----------------------------------------------------------- */

static bool uint64_input(const dml_case *c)
{
    return c->input.type == DML_TENSOR_DATA_TYPE_UINT64;
}

/* The low 32 bits sign-extended: the 64-bit element read into a signed 32-bit variable. */
static int64_t low_word_signed_key(const scan_env *e, uint64_t bits, bool *is_nan)
{
    (void)e;
    *is_nan = false;
    return order_key_signed(sign_extend(bits & 0xFFFFFFFFu, 32));
}

/* Low words on both sides of bit 31 (2^31 reads as -2^31), values past 2^32 (2^32 + 3 reads
 * as 3, which int64_compared_as_32_bits also says) and 2^33 - 1 (-1 here, 2^32 - 1 there). */
static void fill_low_word_signs(prng *p, dml_case *probe)
{
    static const double pool[] = { 2147483648.0, 5, 8589934591.0, 4294967299.0, 2147483655.0, 1 };
    probe_fill_values(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_uint64_read_as_int32 = {
    .id = "uint64_read_as_int32",
    .sentence = "UINT64 elements are read as 32-bit signed integers (their low 32 bits, "
                "sign-extended): values past 2^32 compare by their remainder and a low word "
                "of 2^31 or more compares below the small ones",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = uint64_input,
    .variant = { .number_key = low_word_signed_key },
    .plan = { .fill = fill_low_word_signs },
};

/* ---- denormals_flushed, denormals_compared_as_zero ---------------------------------- */

static bool narrow_float_input(const dml_case *c)
{
    return c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32 || c->input.type == DML_TENSOR_DATA_TYPE_FLOAT16;
}

/* A denormal's bits (exponent field 0) as the zero of its sign; other bits as they are. */
static uint64_t flush_bits(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    uint64_t sign = 1ull << (dtype_size(t) * 8 - 1);
    uint64_t exponent = t == DML_TENSOR_DATA_TYPE_FLOAT16 ? 0x7C00u : 0x7F800000u;
    return (bits & exponent) ? bits : bits & sign;
}

static int64_t flushed_key(const scan_env *e, uint64_t bits, bool *is_nan)
{
    return scan_spec_number_key(e, flush_bits(e->seen->input.type, bits), is_nan);
}

static uint64_t flushed_value(const scan_env *e, const scan_item *winner)
{
    return flush_bits(e->seen->input.type, winner->bits);
}

/* Denormals of both signs and zeros: the smallest denormal of the type times small
 * integers, so flushing ties what the spec orders. */
static void fill_denormals(prng *p, dml_case *probe)
{
    double tiny = ldexp(1.0, probe->input.type == DML_TENSOR_DATA_TYPE_FLOAT16 ? -24 : -149);
    const double pool[] = { 3 * tiny, tiny, 2 * tiny, 0.0, -tiny, -0.0, 5 * tiny, -1 };
    probe_fill_pool(p, probe, pool, sizeof pool / sizeof pool[0]);
}

const cause cause_denormals_flushed = {
    .id = "denormals_flushed",
    .sentence = "FLOAT32/FLOAT16 denormals are flushed to the zero of their sign, in "
                "comparisons and in the pooled value written (FTZ and DAZ), where the reference "
                "computes with exact values (D6)",
    .families = CAUSE_ARG_REDUCE | CAUSE_POOLING,
    .applies = narrow_float_input,
    .variant = { .number_key = flushed_key, .value_of = flushed_value },
    .plan = { .fill = fill_denormals },
};

const cause cause_denormals_compared_as_zero = {
    .id = "denormals_compared_as_zero",
    .sentence = "FLOAT32/FLOAT16 denormals are compared as zeros (DAZ), but the pooled value "
                "written is the winner's own bits, as TensorFlow's pooling does; on "
                "ARGMIN/ARGMAX this is denormals_flushed (D6)",
    .families = CAUSE_POOLING,
    .applies = narrow_float_input,
    .variant = { .number_key = flushed_key },
    .plan = { .fill = fill_denormals },
};
