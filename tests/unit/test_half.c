/* test_half.c: binary16 conversions, exhaustively.  All 65,536 half values go through
 * half_bits_to_float_bits and are checked against gcc's _Float16 (an independent path: the
 * compiler's own conversion, F16C where available); float -> half rounding is checked at every
 * rounding boundary of every half exponent, and on a large sample of random floats.  The
 * reference's hardware path (halves_to_floats_f16c) is checked against the portable one
 * (halves_to_floats) on all 65,536 halves and on every tail length. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "half.h"
#include "prng.h"
#include "tap.h"

#if !defined(__FLT16_MAX__)
int main(void) { return tap_skip_all("compiler has no _Float16 to compare with"); }
#else
static uint32_t independent_half_to_float_bits(uint16_t h)
{
    _Float16 x;
    memcpy(&x, &h, 2);
    return float_to_bits((float)x);
}

static uint16_t independent_float_to_half_bits(uint32_t f)
{
    _Float16 x = (_Float16)float_from_bits(f);
    uint16_t h;
    memcpy(&h, &x, 2);
    return h;
}

static bool is_nan16(uint16_t h) { return (h & 0x7fff) > 0x7c00; }

static bool check_all_halves(void)
{
    for (uint32_t h = 0; h < 65536; h++) {
        uint32_t ours = half_bits_to_float_bits((uint16_t)h);
        uint32_t theirs = independent_half_to_float_bits((uint16_t)h);
        if (is_nan16((uint16_t)h)) {
            /* The compiler may quiet a signalling NaN; the payload we keep must be a NaN
             * with the same sign and the same payload bits. */
            if (!isnan(float_from_bits(ours)) || (ours >> 31) != (h >> 15)
                || ((ours >> 13) & 0x3ff) != (h & 0x3ff)) {
                tap_diag("half 0x%04x -> 0x%08x (NaN payload lost)", h, ours);
                return false;
            }
            continue;
        }
        if (ours != theirs) {
            tap_diag("half 0x%04x: ours 0x%08x, _Float16 0x%08x", h, ours, theirs);
            return false;
        }
        if (float_bits_to_half_bits(ours) != h) {
            tap_diag("half 0x%04x does not round-trip (got 0x%04x)", h, float_bits_to_half_bits(ours));
            return false;
        }
    }
    return true;
}

/* Every float at, just below and just above the midpoint between consecutive halves. */
static bool check_rounding_boundaries(void)
{
    for (uint32_t h = 0; h < 0x7c00; h++) {
        for (uint32_t sign = 0; sign <= 0x8000; sign += 0x8000) {
            uint32_t lo = half_bits_to_float_bits((uint16_t)(h | sign));
            uint32_t hi = half_bits_to_float_bits((uint16_t)((h + 1) | sign));
            double mid = ((double)float_from_bits(lo) + (double)float_from_bits(hi)) / 2;
            uint32_t m = float_to_bits((float)mid); /* exact: halves have 11-bit significands */
            for (int d = -1; d <= 1; d++) {
                uint32_t f = m + (uint32_t)d;
                uint16_t ours = float_bits_to_half_bits(f);
                uint16_t theirs = independent_float_to_half_bits(f);
                if (ours != theirs) {
                    tap_diag("float 0x%08x (%a): ours 0x%04x, _Float16 0x%04x", f,
                             float_from_bits(f), ours, theirs);
                    return false;
                }
            }
        }
    }
    return true;
}

static bool check_random_floats(void)
{
    prng p;
    prng_seed2(&p, 1, prng_hash_str("half_random"));
    for (int i = 0; i < 4000000; i++) {
        uint32_t f = (uint32_t)prng_next(&p);
        if (isnan(float_from_bits(f)))
            continue;
        if (float_bits_to_half_bits(f) != independent_float_to_half_bits(f)) {
            tap_diag("float 0x%08x: ours 0x%04x, _Float16 0x%04x", f, float_bits_to_half_bits(f),
                     independent_float_to_half_bits(f));
            return false;
        }
    }
    return true;
}

static bool check_named_values(void)
{
    return float_to_half(65504.0f) == 0x7bff && float_to_half(65520.0f) == 0x7c00 /* ties to inf */
        && float_to_half(65519.99f) == 0x7bff && float_to_half(-0.0f) == 0x8000
        && float_to_half(0x1p-24f) == 0x0001 && float_to_half(0x1p-25f) == 0x0000 /* tie to even 0 */
        && float_to_half(0x1.8p-25f) == 0x0001 && float_to_half(0x3p-25f) == 0x0002 /* 1.5 ulp: even */
        && float_to_half(INFINITY) == 0x7c00 && is_nan16(float_to_half(NAN))
        && half_to_float(0x3c00) == 1.0f && half_to_float(0x0001) == 0x1p-24f;
}

#ifdef HALF_HAVE_F16C
/* F16C against the portable block conversion: identical bits for every half but the
 * signalling NaNs, which F16C quiets (half.h); then every length 1..40 at every byte offset
 * 0..3, so the vector body and the tail agree on where each half lands. */
static bool f16c_agrees(uint16_t h, float hw, float sw)
{
    uint32_t a = float_to_bits(hw), b = float_to_bits(sw);
    bool signalling = is_nan16(h) && !(h & 0x200);
    return signalling ? a == (b | 0x00400000u) : a == b;
}

static bool check_f16c_block(void)
{
    static uint16_t all[65536];
    static float hw[65536], sw[65536];
    for (uint32_t h = 0; h < 65536; h++)
        all[h] = (uint16_t)h;
    halves_to_floats_f16c((const uint8_t *)all, 65536, hw);
    halves_to_floats((const uint8_t *)all, 65536, sw);
    for (uint32_t h = 0; h < 65536; h++)
        if (!f16c_agrees((uint16_t)h, hw[h], sw[h])) {
            tap_diag("half 0x%04x: F16C 0x%08x, portable 0x%08x", h, float_to_bits(hw[h]),
                     float_to_bits(sw[h]));
            return false;
        }
    uint8_t bytes[2 * 40 + 4];
    for (unsigned i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(0x35 + 7 * i);
    for (unsigned offset = 0; offset < 4; offset++)
        for (unsigned n = 1; n <= 40; n++) {
            float a[41], b[41];
            a[n] = b[n] = 7.0f; /* nothing past n is written */
            halves_to_floats_f16c(bytes + offset, n, a);
            halves_to_floats(bytes + offset, n, b);
            for (unsigned i = 0; i < n; i++) {
                uint16_t h;
                memcpy(&h, bytes + offset + 2 * i, 2);
                if (!f16c_agrees(h, a[i], b[i])) {
                    tap_diag("%u halves at byte offset %u: element %u differs", n, offset, i);
                    return false;
                }
            }
            if (a[n] != 7.0f) {
                tap_diag("%u halves at byte offset %u: F16C wrote past the end", n, offset);
                return false;
            }
        }
    return true;
}
#endif

static void check_hardware_conversion(tap *t)
{
#ifdef HALF_HAVE_F16C
    if (half_cpu_has_f16c()) {
        tap_ok(t, check_f16c_block(), "half_to_float_f16c_equals_portable_all_65536_values");
        return;
    }
#endif
    tap_skip(t, "no F16C on this CPU", "half_to_float_f16c_equals_portable_all_65536_values");
}

int main(void)
{
    tap t;
    tap_plan(&t, 5);
    tap_ok(&t, check_all_halves(), "half_to_float_all_65536_values_match_float16");
    tap_ok(&t, check_rounding_boundaries(), "float_to_half_nearest_even_at_every_boundary");
    tap_ok(&t, check_random_floats(), "float_to_half_matches_float16_on_4m_random_floats");
    tap_ok(&t, check_named_values(), "float_to_half_named_values");
    check_hardware_conversion(&t);
    return tap_done(&t);
}
#endif
