/*
 * draw.c: the seeded draws of shapes that every operator module's generator uses (draw.h).
 * Moved here from the generator unchanged: the same PRNG calls in the same order, so every
 * SEED:INDEX still names the case it named.
 */
#include "draw.h"

#include <stddef.h>

#include "tensor.h"

static const UINT primes[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 61,
                               67, 97, 127, 251, 509, 1021, 2039, 4093, 8191, 16381, 65521,
                               131071, 524287, 1048573, 4194301, 16777213, 67108859, 268435399 };

static UINT draw_prime(prng *p, uint64_t limit)
{
    size_t n = 0;
    while (n < sizeof primes / sizeof primes[0] && primes[n] <= limit)
        n++;
    return n ? primes[prng_below(p, n)] : 1;
}

/* 2^k + 1 <= limit for a random k >= 1 (limit itself when below 3). */
static UINT draw_pow2_plus_one(prng *p, uint64_t limit)
{
    unsigned kmax = 0;
    while (kmax < 31 && (1ull << (kmax + 1)) + 1 <= limit)
        kmax++;
    return kmax ? (UINT)(1u << (1 + prng_below(p, kmax))) + 1 : (UINT)limit;
}

/* A dimension size in [1, limit], biased to small sizes and to edges: 1, primes, one more
 * than a power of two, and the largest size that fits. */
UINT draw_size(prng *p, uint64_t limit)
{
    uint64_t r = prng_below(p, 16);
    if (r < 4 || limit < 2)
        return 1;
    if (r < 9)
        return (UINT)(2 + prng_below(p, limit < 6 ? limit - 1 : 5));
    if (r < 11)
        return draw_prime(p, limit);
    if (r < 13)
        return draw_pow2_plus_one(p, limit);
    if (r < 14)
        return (UINT)limit;
    return (UINT)(1 + prng_below(p, limit < 32 ? limit : 32));
}

/* Fisher-Yates shuffle of 0..n-1. */
void draw_permutation(prng *p, unsigned n, unsigned *perm)
{
    for (unsigned i = 0; i < n; i++)
        perm[i] = i;
    for (unsigned i = n; i > 1; i--) {
        unsigned j = (unsigned)prng_below(p, i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

/* Sizes of `rank` dimensions whose product stays within budget; dimensions are drawn in a
 * shuffled order so no position is always the one squeezed by the budget. */
void draw_dims(prng *p, unsigned rank, uint64_t budget, UINT *sizes)
{
    unsigned order[DML_MAX_RANK];
    uint64_t product = 1;
    draw_permutation(p, rank, order);
    for (unsigned i = 0; i < rank; i++) {
        sizes[order[i]] = draw_size(p, budget / product);
        product *= sizes[order[i]];
    }
}


void draw_dims_split(prng *p, unsigned rank, uint64_t budget, UINT *sizes)
{
    /* s + 1 <= 2s for every s >= 1, so the grown product stays within 2^rank * (budget >> rank). */
    draw_dims(p, rank, budget >> rank, sizes);
    for (unsigned i = 0; i < rank; i++)
        sizes[i] += 1;
}

void draw_grow_extent(prng *p, unsigned rank, uint32_t group, unsigned grow, uint64_t over,
                      uint64_t budget, UINT *sizes)
{
    uint64_t in_group = 1, outside = 1;
    for (unsigned i = 0; i < rank; i++)
        if (i != grow)
            *((group & (1u << i)) ? &in_group : &outside) *= sizes[i];
    /* A target product T in [over + 1, cap - in_group + 1] rounds up to a multiple of
     * in_group that still fits: cap >= (over + 1) * in_group keeps the range non-empty. */
    uint64_t cap = budget / outside;
    uint64_t target = over + 1 + prng_below(p, cap - in_group + 1 - over);
    sizes[grow] = (UINT)((target + in_group - 1) / in_group);
}

static const struct {
    uint64_t up_to;
    const char *name;
} size_tiers[] = {
    { 4096, "up to 4096" },
    { 65536, "4097 to 65536" },
    { 1048576, "65537 to 1048576" },
    { UINT64_MAX, "over 1048576" },
};

const char *size_tier_name(uint64_t long_extent)
{
    size_t i = 0;
    while (long_extent > size_tiers[i].up_to)
        i++;
    return size_tiers[i].name;
}

unsigned size_tier_names(const char **names, unsigned max)
{
    unsigned n = 0;
    for (; n < max && n < sizeof size_tiers / sizeof size_tiers[0]; n++)
        names[n] = size_tiers[n].name;
    return n;
}
