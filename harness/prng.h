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
uint64_t prng_next(prng *p);
/* Uniform in [0, n) without modulo bias; n == 0 returns 0. */
uint64_t prng_below(prng *p, uint64_t n);
/* Uniform in [lo, hi]. */
int64_t prng_range(prng *p, int64_t lo, int64_t hi);
/* True with probability num/den. */
int prng_chance(prng *p, uint64_t num, uint64_t den);
/* FNV-1a of a string, to turn a test name into a stream number. */
uint64_t prng_hash_str(const char *s);

#endif
