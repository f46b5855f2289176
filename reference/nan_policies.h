/*
 * nan_policies.h: what each NaN policy a real library follows answers for one row (ARGMIN,
 * ARGMAX) or one window (MAX_POOLING2), written once (SEMANTICS "NaN-policy fingerprint").
 * The reference itself implements two of them (order.h: ignore, propagate-first); the
 * fingerprint (harness/nan_fingerprint.c) asks which of all of them a backend's answers
 * follow.
 *
 * A scan is fed the row's or window's real elements (padding is no element) in the order
 * the tie rule counts them, ascending (the module's visit_deciders order), with each
 * element's oriented key (order.h: larger is better, ARGMIN reversed).  The policies speak
 * of the direction's scan order: INCREASING scans that order forwards, DECREASING backwards
 * (pooling always scans forwards), so "first" is the element the tie rule prefers.
 */
#ifndef DMLCHECK_NAN_POLICIES_H
#define DMLCHECK_NAN_POLICIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(ID, name): every policy, in the order reports list them.  Names are stored nowhere:
 * a database stores the mask, whose bits follow this order, so rows are only appended. */
#define NAN_POLICIES(X)                                                                 \
    X(IGNORE, "ignore")                   /* best number; all NaN: the first NaN */     \
    X(PROPAGATE_FIRST, "propagate-first") /* the first NaN; no NaN: the best number */  \
    X(PROPAGATE_LAST, "propagate-last")   /* the last NaN; no NaN: the best number */   \
    X(FIRST_STICKY, "first-sticky")       /* the first element if NaN, else ignore */   \
    X(NAN_RESTARTS, "nan-restarts")       /* a NaN replaces the running best, any number \
                                           * replaces a NaN: best number after the last \
                                           * NaN, or that NaN when nothing follows it */

typedef enum nan_policy_id {
#define X(id, name) NAN_POLICY_ID_##id,
    NAN_POLICIES(X)
#undef X
    NAN_POLICY_COUNT
} nan_policy_id;

#define NAN_POLICIES_ALL ((1u << NAN_POLICY_COUNT) - 1)

/* "propagate-first"... */
const char *nan_policy_id_name(nan_policy_id p);
/* The policies of a mask as "ignore, first-sticky"; "none" for 0.  Returns buf. */
const char *nan_policies_text(unsigned mask, char *buf, size_t size);

/* One element the scan keeps: its caller-given position (a logical input index). */
typedef struct nan_pick {
    bool found, is_nan;
    int64_t key;
    uint64_t position;
} nan_pick;

typedef struct nan_scan {
    bool backwards;           /* DECREASING: scan order is the visit order reversed */
    bool saw_nan;
    nan_pick best;            /* the best number, ties to the first in scan order */
    nan_pick first_visited_nan, last_visited_nan, first_visited, last_visited;
    nan_pick before_first_nan; /* best number visited before the first NaN visited */
    nan_pick after_last_nan;   /* best number visited since the last NaN visited */
} nan_scan;

static inline void nan_scan_init(nan_scan *s, bool backwards)
{
    *s = (nan_scan){ .backwards = backwards };
}

/* Keeps candidate `e` in `p` when it is the better number (ties: first in scan order). */
static inline void nan_keep_best(const nan_scan *s, nan_pick *p, const nan_pick *e)
{
    if (!p->found || e->key > p->key || (e->key == p->key && s->backwards))
        *p = *e;
}

/* The next element in visit order (ascending). */
static inline void nan_scan_step(nan_scan *s, int64_t key, bool is_nan, uint64_t position)
{
    nan_pick e = { true, is_nan, key, position };
    if (!s->first_visited.found)
        s->first_visited = e;
    s->last_visited = e;
    if (is_nan) {
        if (!s->saw_nan)
            s->first_visited_nan = e;
        s->saw_nan = true;
        s->last_visited_nan = e;
        s->after_last_nan.found = false;
        return;
    }
    nan_keep_best(s, &s->best, &e);
    nan_keep_best(s, &s->after_last_nan, &e);
    if (!s->saw_nan)
        nan_keep_best(s, &s->before_first_nan, &e);
}

/* The element policy p picks; found is false only for a scan that saw no element. */
nan_pick nan_scan_answer(const nan_scan *s, nan_policy_id p);

#endif
