/*
 * layout.h: a tensor's memory layout as a few named properties instead of raw strides, so
 * that the layout survives a change of sizes.  The generator draws layouts in these terms
 * (harness/gen.c) and the shrinker keeps them while it shrinks the dimensions
 * (harness/shrink.c): a bug that needs a permuted, padded or broadcast input still has one
 * in every candidate, and each property can be dropped on its own.
 *
 * A layout: the dimensions in memory order (outermost first) with the elements of pad
 * after each dimension's extent, the innermost dimension `pitch` elements apart; dimensions
 * in `broadcast` have stride 0 and take no room; TotalTensorSizeInBytes may exceed the
 * needed size by `extra_bytes`.  Strides of any other form (overlapping, not nested) have
 * no description.
 */
#ifndef DMLCHECK_LAYOUT_H
#define DMLCHECK_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "case.h"

typedef struct tensor_layout {
    bool explicit_strides;      /* the descriptor states strides (even packed ones) */
    unsigned order[DML_MAX_RANK]; /* memory order, outermost first; broadcast ones included */
    UINT pad[DML_MAX_RANK];     /* by dimension: extra elements after its extent */
    UINT pitch;                 /* distance of consecutive innermost elements */
    uint32_t broadcast;         /* by dimension: bit d set = stride 0 */
    UINT64 extra_bytes;         /* TotalTensorSizeInBytes beyond the needed size */
} tensor_layout;

/* Packed row-major without explicit strides, for a tensor of `rank` dimensions. */
void layout_init(tensor_layout *l, unsigned rank);
/* Describes t's strides; false when they have no description (see above). */
bool layout_describe(const case_tensor *t, tensor_layout *l);
/* Sets t's strides and TotalTensorSizeInBytes from l and t's sizes. */
void layout_apply(const tensor_layout *l, case_tensor *t);
/* The layout of the dimensions kept_old[0..new_rank) of l, renumbered 0..new_rank. */
void layout_select(const tensor_layout *l, unsigned old_rank, const unsigned *kept_old,
                   unsigned new_rank, tensor_layout *out);
/* Whether the stored dimensions are in another order than the logical one. */
bool layout_is_permuted(const tensor_layout *l, unsigned rank);
/* Stores the dimensions in logical order (pads stay with their dimensions). */
void layout_unpermute(tensor_layout *l, unsigned rank);
/* How many properties set l apart from packed (0 = packed, each one removable alone). */
unsigned layout_complexity(const tensor_layout *l, unsigned rank);

#endif
