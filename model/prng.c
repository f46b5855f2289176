/* prng.c: xoshiro256** and splitmix64. */
#include "prng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void prng_seed(prng *p, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        p->s[i] = splitmix64(&seed);
}

void prng_seed2(prng *p, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed;
    uint64_t mixed = splitmix64(&x) ^ (stream * 0xd1342543de82ef95ull + 0x632be59bd9b4e019ull);
    prng_seed(p, mixed);
}

/* prng_next is inline in prng.h. */

uint64_t prng_below(prng *p, uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t limit = -n % n; /* 2^64 mod n: reject the biased low tail */
    for (;;) {
        uint64_t r = prng_next(p);
        if (r >= limit)
            return r % n;
    }
}

int64_t prng_range(prng *p, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span == 0)
        return (int64_t)prng_next(p);
    return (int64_t)((uint64_t)lo + prng_below(p, span));
}

int prng_chance(prng *p, uint64_t num, uint64_t den)
{
    return prng_below(p, den) < num;
}

uint64_t prng_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
    return h;
}
