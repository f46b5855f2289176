/* half.c: binary16 conversions.  Checked against an independent path for all 65,536 half
 * values and at every float->half rounding boundary by tests/unit/test_half.c. */
#include "half.h"

#ifdef HALF_HAVE_F16C
#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>
#endif

uint32_t half_bits_to_float_bits(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) /* inf or NaN: keep the payload */
        return sign | 0x7f800000u | (man << 13);
    if (exp != 0)
        return sign | ((exp + 112u) << 23) | (man << 13);
    if (man == 0)
        return sign;
    /* Denormal half: normalise.  value = man * 2^-24; find the leading one. */
    int shift = 0;
    while (!(man & 0x400u)) {
        man <<= 1;
        shift++;
    }
    man &= 0x3ffu;
    return sign | ((uint32_t)(113 - shift) << 23) | (man << 13);
}

uint16_t float_bits_to_half_bits(uint32_t f)
{
    uint16_t sign = (uint16_t)((f >> 16) & 0x8000u);
    uint32_t exp = (f >> 23) & 0xffu;
    uint32_t man = f & 0x7fffffu;
    if (exp == 0xff) {
        if (man == 0)
            return sign | 0x7c00u;
        uint16_t payload = (uint16_t)(man >> 13);
        return sign | 0x7c00u | (payload ? payload : 0x200u);
    }
    int e = (int)exp - 127 + 15; /* biased half exponent */
    if (e >= 0x1f)
        return sign | 0x7c00u;
    if (e <= 0) {
        /* Result is a half denormal or zero: value = (1.man) * 2^(exp-127); half denormal
         * unit is 2^-24, so shift the 24-bit significand right by (14 - e). */
        if (e < -10)
            return sign; /* below half the smallest denormal: rounds to zero */
        uint32_t sig = man | 0x800000u;
        unsigned shift = (unsigned)(14 - e);
        uint32_t q = sig >> shift;
        uint32_t rem = sig & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (q & 1)))
            q++;
        return sign | (uint16_t)q; /* q may carry into the smallest normal: still correct */
    }
    uint32_t q = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1)))
        q++; /* may carry into the exponent, up to infinity: correct rounding */
    return sign | (uint16_t)q;
}

void halves_to_floats(const uint8_t *p, size_t n, float *out)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        out[i] = half_to_float(h);
    }
}

#ifdef HALF_HAVE_F16C
__attribute__((target("avx,f16c"))) void halves_to_floats_f16c(const uint8_t *p, size_t n,
                                                                 float *out)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 2 * i))));
    if (i < n) { /* the tail through a zero-padded block */
        uint8_t tail[16] = { 0 };
        float wide[8];
        memcpy(tail, p + 2 * i, 2 * (n - i));
        _mm256_storeu_ps(wide, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)tail)));
        memcpy(out + i, wide, (n - i) * sizeof *out);
    }
}
#endif

#ifdef HALF_HAVE_F16C
/* Asked once per process: CPUID traps to the hypervisor in a virtual machine (measured 17 us
 * per call here, against 65 ns for a whole small reference execution).  The answer is a fact
 * of the hardware, the same for every thread, so a racing first call only repeats the work:
 * 0 not asked yet, 1 no, 2 yes. */
bool half_cpu_has_f16c(void)
{
    static _Atomic int known;
    int answer = atomic_load_explicit(&known, memory_order_relaxed);
    if (!answer) {
        unsigned eax, ebx, ecx, edx;
        bool has = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C)
            && __builtin_cpu_supports("avx");
        answer = has ? 2 : 1;
        atomic_store_explicit(&known, answer, memory_order_relaxed);
    }
    return answer == 2;
}
#endif
