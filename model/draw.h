/*
 * draw.h: seeded draws of dimension sizes and permutations, for the operator modules'
 * draw_shape hooks (op_module.h) and the generator's layouts.  Sizes are biased to small
 * values and to edges (1, primes, one more than a power of two, the largest that fits).
 */
#ifndef DMLCHECK_DRAW_H
#define DMLCHECK_DRAW_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlcheck/directml.h"
#include "prng.h"

/* What an operator module's draw_shape is asked for (op_module.h). */
typedef struct shape_request {
    uint64_t budget;          /* input elements at most */
    /* 0, or a size the operator's long extent must exceed: the elements one ARGMIN/ARGMAX
     * output reduces, one N,C plane of pooling.  Past 2^16 and 2^20 elements is where real
     * implementations split work over work-items, tile, and overflow narrow counters. */
    uint64_t long_extent_over;
    /* The operator's highest rank with every dimension at least 2 (when the budget holds
     * 2^rank elements): the most dimensions a kernel cannot merge away. */
    bool deepest;
    /* With deepest, since version 4: many reduced axes (ARGMIN/ARGMAX: all of them half the
     * time, at least half a quarter of the time), so that the dimensions a kernel cannot
     * merge are mostly the reduction's. */
    bool many_axes;
    bool padding_window;      /* an output element whose window lies wholly in padding */
} shape_request;

/* The size tiers reports show, by the long extent's element count (the one home of their
 * bounds): "up to 4096", "4097 to 65536", "65537 to 1048576", "over 1048576". */
const char *size_tier_name(uint64_t long_extent);
/* Every size_tier_name, smallest first; returns how many (at most max). */
unsigned size_tier_names(const char **names, unsigned max);

/* A dimension size in [1, limit]. */
UINT draw_size(prng *p, uint64_t limit);
/* Fisher-Yates shuffle of 0..n-1 into perm. */
void draw_permutation(prng *p, unsigned n, unsigned *perm);
/* Sizes of `rank` dimensions whose product stays within budget, drawn in shuffled order so
 * no position is always the one squeezed by the budget. */
void draw_dims(prng *p, unsigned rank, uint64_t budget, UINT *sizes);
/* draw_dims with every size at least 2; the product stays within budget, which must hold
 * 2^rank elements. */
void draw_dims_split(prng *p, unsigned rank, uint64_t budget, UINT *sizes);
/* Sets sizes[grow] so that the product of the dimensions in `group` (a bit per dimension,
 * grow's included) exceeds `over` while the product of all stays within budget.  The other
 * sizes are drawn already, their product within budget / (over + 1); sizes[grow] is
 * ignored. */
void draw_grow_extent(prng *p, unsigned rank, uint32_t group, unsigned grow, uint64_t over,
                      uint64_t budget, UINT *sizes);

#endif
