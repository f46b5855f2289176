/*
 * casefile_notation.c: the notation of one value in a case file: floats rounded to nearest-even
 * from their decimal text (see casefile.c), "nan"/"inf" names, "0x..." raw bits and decimal
 * strings for integers JSON cannot hold, each checked against its type's range.
 */
#include "casefile.h"
#include "casefile_notation.h"

#include <errno.h>
#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compare.h"
#include "dtype.h"

/* ---- Correctly rounded conversion to FLOAT32 / FLOAT16 ---------------------------------- */

typedef struct float_format {
    unsigned frac_bits, exp_bits;
} float_format;

static bool float_format_of(DML_TENSOR_DATA_TYPE t, float_format *f)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT32)
        *f = (float_format){ 23, 8 };
    else if (t == DML_TENSOR_DATA_TYPE_FLOAT16)
        *f = (float_format){ 10, 5 };
    else if (t == DML_TENSOR_DATA_TYPE_FLOAT64)
        *f = (float_format){ 52, 11 };
    else
        return false;
    return true;
}

/* Rounds x to nearest-even in format f, where the true value lies on `side` of x (-1 below,
 * 0 exactly x, +1 above, by at most half an ulp of x).  The side matters only when x sits
 * exactly on a midpoint of f: every midpoint of a narrower format is a double, so a decimal
 * and its nearest double can never lie on different sides of one. */
static uint64_t round_double_to_format(double x, int side, float_format f)
{
    const int bias = (1 << (f.exp_bits - 1)) - 1;
    const uint64_t inf_bits = (((uint64_t)1 << f.exp_bits) - 1) << f.frac_bits;
    const uint64_t sign_bit = (uint64_t)(signbit(x) ? 1 : 0) << (f.frac_bits + f.exp_bits);
    const int side_in_magnitude = signbit(x) ? -side : side;
    double a = fabs(x);
    if (a == 0)
        return sign_bit;
    int e2;
    double fraction = frexp(a, &e2);                   /* a = fraction * 2^e2, [0.5, 1) */
    uint64_t sig = (uint64_t)ldexp(fraction, 53);      /* a = sig * 2^(e2 - 53), exactly */
    int top = e2 - 1;                                  /* a in [2^top, 2^(top+1)) */
    if (top > bias)
        return sign_bit | inf_bits;                    /* at least twice the largest finite */
    int target_exp = top < 1 - bias ? 1 - bias : top;  /* denormals share the lowest exponent */
    int shift = (target_exp - (int)f.frac_bits) - (e2 - 53);
    uint64_t q;
    if (shift <= 0) {
        q = sig << -shift;
    } else if (shift > 63) {
        q = 0; /* below half the smallest denormal */
    } else {
        q = sig >> shift;
        uint64_t rem = sig & (((uint64_t)1 << shift) - 1), half = (uint64_t)1 << (shift - 1);
        bool up = rem > half
            || (rem == half && (side_in_magnitude > 0 || (side_in_magnitude == 0 && (q & 1))));
        q += up;
    }
    /* q carries the hidden bit, so adding it to the biased exponent minus one encodes normals,
     * denormals and a carry into the next binade (or into infinity) alike. */
    uint64_t bits = ((uint64_t)(target_exp + bias - 1) << f.frac_bits) + q;
    return sign_bit | (bits >= inf_bits ? inf_bits : bits);
}

/* Which side of its nearest double x the decimal `text` lies on.  glibc's strtod rounds in
 * the current rounding mode, so rounding down and up brackets the decimal; the mode is
 * restored before returning. */
static int decimal_side_of(const char *text, double x)
{
    int saved = fegetround();
    fesetround(FE_DOWNWARD);
    double below = strtod(text, NULL);
    fesetround(FE_UPWARD);
    double above = strtod(text, NULL);
    fesetround(saved);
    if (below == above)
        return 0;
    return below == x ? +1 : -1;
}

bool casefile_number_to_float_bits(const char *text, DML_TENSOR_DATA_TYPE t, uint64_t *bits)
{
    float_format f;
    if (!float_format_of(t, &f))
        return false;
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || isnan(x) || (isinf(x) && errno == ERANGE))
        return false;
    if (isinf(x)) /* "inf" spelled out: not a number text */
        return false;
    uint64_t low = round_double_to_format(x, -1, f), high = round_double_to_format(x, +1, f);
    *bits = low == high ? low : round_double_to_format(x, decimal_side_of(text, x), f);
    return true;
}

/* ---- Value notation ----------------------------------------------------------------------- */

uint64_t notation_type_mask(DML_TENSOR_DATA_TYPE t)
{
    unsigned bytes = dtype_size(t);
    return bytes >= 8 ? UINT64_MAX : ((uint64_t)1 << (bytes * 8)) - 1;
}

uint64_t notation_sign_bit(DML_TENSOR_DATA_TYPE t)
{
    return (uint64_t)1 << (dtype_size(t) * 8 - 1);
}

/* The quiet NaN with an empty payload: what "nan" means. */
uint64_t notation_canonical_nan(DML_TENSOR_DATA_TYPE t)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT16: return 0x7e00u;
    case DML_TENSOR_DATA_TYPE_FLOAT64: return 0x7ff8000000000000ull;
    default: return 0x7fc00000u;
    }
}

uint64_t notation_infinity(DML_TENSOR_DATA_TYPE t)
{
    return dtype_lowest_bits(t) & ~notation_sign_bit(t);
}

void notation_int_range(DML_TENSOR_DATA_TYPE t, int64_t *min, uint64_t *max)
{
    unsigned bits = dtype_size(t) * 8;
    if (dtype_is_signed_int(t)) {
        *max = ((uint64_t)1 << (bits - 1)) - 1;
        *min = -(int64_t)*max - 1;
    } else {
        *min = 0;
        *max = notation_type_mask(t);
    }
}

static bool parse_hex_bits(const char *s, DML_TENSOR_DATA_TYPE t, const char *path, uint64_t *bits,
                           dmlc_error *err)
{
    const char *digits = s + 2;
    size_t n = strspn(digits, "0123456789abcdefABCDEF");
    if (n == 0 || digits[n] || n > 16)
        return err_set(err, "%s: \"%s\" is not raw bits (\"0x\" and 1 to 16 hex digits)", path, s);
    uint64_t v = strtoull(digits, NULL, 16);
    if (v & ~notation_type_mask(t))
        return err_set(err, "%s: raw bits \"%s\" do not fit %s (%u bytes)", path, s, dtype_name(t),
                       dtype_size(t));
    *bits = v;
    return true;
}

/* Decimal strings carry integers jansson cannot (UINT64 above INT64_MAX). */
static bool parse_decimal_string(const char *s, DML_TENSOR_DATA_TYPE t, const char *path,
                                 uint64_t *bits, dmlc_error *err)
{
    const char *digits = s[0] == '-' ? s + 1 : s;
    size_t n = strspn(digits, "0123456789");
    if (n == 0 || digits[n])
        return err_set(err, "%s: \"%s\" is not a value: write a number, a decimal integer string "
                       "or \"0x...\" raw bits", path, s);
    int64_t min;
    uint64_t max;
    notation_int_range(t, &min, &max);
    errno = 0;
    if (s[0] == '-') {
        long long v = strtoll(s, NULL, 10);
        if (errno == ERANGE || v < min)
            return err_set(err, "%s: %s does not fit %s [%" PRId64 ", %" PRIu64 "]", path, s,
                           dtype_name(t), min, max);
        *bits = (uint64_t)v & notation_type_mask(t);
        return true;
    }
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE || v > max)
        return err_set(err, "%s: %s does not fit %s [%" PRId64 ", %" PRIu64 "]", path, s,
                       dtype_name(t), min, max);
    *bits = v;
    return true;
}

bool notation_parse_string(const char *s, DML_TENSOR_DATA_TYPE t, const char *path,
                                 uint64_t *bits, dmlc_error *err)
{
    if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
        return parse_hex_bits(s, t, path, bits, err);
    if (!dtype_is_float(t))
        return parse_decimal_string(s, t, path, bits, err);
    bool negative = s[0] == '-';
    const char *word = negative ? s + 1 : s;
    if (!strcmp(word, "nan"))
        *bits = notation_canonical_nan(t);
    else if (!strcmp(word, "inf"))
        *bits = notation_infinity(t);
    else
        return err_set(err, "%s: \"%s\" is not a %s value: write a JSON number, \"nan\", \"-nan\", "
                       "\"inf\", \"-inf\" or \"0x...\" raw bits", path, s, dtype_name(t));
    if (negative)
        *bits |= notation_sign_bit(t);
    return true;
}

