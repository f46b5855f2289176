/*
 * prng.h: xoshiro256** (Blackman and Vigna), seeded through splitmix64.  Ours because the
 * generator must regenerate a case bit-identically on any machine from (seed, index); libc
 * rand() promises nothing of the kind.
 */
#ifndef DMLCHECK_PRNG_H
#define DMLCHECK_PRNG_H

#include <stdint.h>

typedef struct prng {
    uint64_t s[4];
} prng;

void prng_seed(prng *p, uint64_t seed);
/* Seeds from a (seed, stream) pair: the stream is a case index or a hashed test name. */
void prng_seed2(prng *p, uint64_t seed, uint64_t stream);
/* Inline: the generator draws one word per input element, and a call per draw was a fifth of
 * filling an input. */
static inline uint64_t prng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t prng_next(prng *p)
{
    uint64_t *s = p->s;
    uint64_t result = prng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = prng_rotl(s[3], 45);
    return result;
}
/* Uniform in [0, n) without modulo bias; n == 0 returns 0. */
uint64_t prng_below(prng *p, uint64_t n);
/* Uniform in [lo, hi]. */
int64_t prng_range(prng *p, int64_t lo, int64_t hi);
/* True with probability num/den. */
int prng_chance(prng *p, uint64_t num, uint64_t den);
/* FNV-1a of a string, to turn a test name into a stream number. */
uint64_t prng_hash_str(const char *s);

#endif
