/*
 * draw.h: seeded draws of dimension sizes and permutations, for the operator modules'
 * draw_shape hooks (op_module.h) and the generator's layouts.  Sizes are biased to small
 * values and to edges (1, primes, one more than a power of two, the largest that fits).
 */
#ifndef DMLCHECK_DRAW_H
#define DMLCHECK_DRAW_H

#include <stdint.h>

#include "dmlcheck/directml.h"
#include "prng.h"

/* A dimension size in [1, limit]. */
UINT draw_size(prng *p, uint64_t limit);
/* Fisher-Yates shuffle of 0..n-1 into perm. */
void draw_permutation(prng *p, unsigned n, unsigned *perm);
/* Sizes of `rank` dimensions whose product stays within budget, drawn in shuffled order so
 * no position is always the one squeezed by the budget. */
void draw_dims(prng *p, unsigned rank, uint64_t budget, UINT *sizes);

#endif
