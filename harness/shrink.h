/*
 * shrink.h: minimizing a failing case.  Starting from a case that fails, tries smaller
 * variants one at a time (fewer dimensions, smaller sizes, fewer axes, plainer pooling
 * parameters, one layout property less, simpler values) and keeps each one the caller's
 * predicate says still fails the same way, until no variant does or the budget is spent.
 * Strided, broadcast, padded and permuted layouts and ceil output sizes are kept while the
 * dimensions shrink, and dropped only as variants of their own.  Every
 * candidate is valid at the case's feature level before the predicate sees it.
 */
#ifndef DMLCHECK_SHRINK_H
#define DMLCHECK_SHRINK_H

#include <stdbool.h>

#include "case.h"

/* True when `candidate` still fails the way the original did. */
typedef bool (*shrink_predicate)(const dml_case *candidate, void *ctx);

typedef struct shrink_stats {
    unsigned tried;      /* candidates given to the predicate */
    unsigned accepted;   /* candidates kept */
} shrink_stats;

/* Minimizes c into *out (initialised or freed by the caller; always set, to a copy of c
 * when nothing smaller fails).  budget bounds the predicate calls.  False only on
 * allocation failure. */
bool shrink_case(const dml_case *c, shrink_predicate still_fails, void *ctx, unsigned budget,
                 dml_case *out, shrink_stats *stats);

/* A size measure: smaller is simpler (input elements, then rank, then parameters). */
uint64_t shrink_weight(const dml_case *c);

#endif
