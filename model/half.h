/*
 * half.h: IEEE 754 binary16 <-> binary32 by bit manipulation.  Product code must not rely
 * on _Float16 (clang 14 lacks it on x86).  half -> float is exact for every input (NaN
 * payloads are kept, shifted into the top of the float mantissa, quiet bit preserved as
 * is); float -> half rounds to nearest, ties to even, overflows to infinity, and keeps NaN
 * a NaN (payload truncated, forced non-zero).
 */
#ifndef DMLCHECK_HALF_H
#define DMLCHECK_HALF_H

#include <stdint.h>
#include <string.h>

#include <stdbool.h>
#include <stddef.h>

uint32_t half_bits_to_float_bits(uint16_t h);
uint16_t float_bits_to_half_bits(uint32_t f);

/* Converts n packed halves at p (any alignment) to floats, each as half_bits_to_float_bits. */
void halves_to_floats(const uint8_t *p, size_t n, float *out);

#if defined(__x86_64__) || defined(__i386__)
#define HALF_HAVE_F16C 1
/* halves_to_floats with the F16C instruction VCVTPH2PS: call it only where
 * half_cpu_has_f16c().  Equal to halves_to_floats on every half but the
 * signalling NaNs, which the instruction quiets (sets the float's bit 22): they stay NaNs of
 * the same sign and payload, which is all a comparison can see (SEMANTICS D4).  Checked on
 * all 65,536 halves by tests/unit/test_half.c. */
void halves_to_floats_f16c(const uint8_t *p, size_t n, float *out);

/* Whether this CPU runs AVX and F16C (CPUID, with the operating system's AVX state:
 * __builtin_cpu_supports has no "f16c" in clang 14). */
bool half_cpu_has_f16c(void);
#endif

static inline float float_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t float_to_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static inline float half_to_float(uint16_t h) { return float_from_bits(half_bits_to_float_bits(h)); }
static inline uint16_t float_to_half(float f) { return float_bits_to_half_bits(float_to_bits(f)); }

/* fp32 denormals flushed to zero of the same sign (what a device without CL_FP_DENORM may do). */
static inline uint32_t float_bits_flush_denormal(uint32_t u)
{
    return (u & 0x7f800000u) == 0 ? (u & 0x80000000u) : u;
}

#endif
