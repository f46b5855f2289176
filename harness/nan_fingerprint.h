/*
 * nan_fingerprint.h: which NaN policies (reference/nan_policies.h) explain a backend's
 * answers on the rows (ARGMIN, ARGMAX) or windows (MAX_POOLING2) of one case that hold a
 * NaN (SEMANTICS "NaN-policy fingerprint").  Reports AND the masks of a backend's cases per
 * operator and input type into its fingerprint.
 */
#ifndef DMLCHECK_NAN_FINGERPRINT_H
#define DMLCHECK_NAN_FINGERPRINT_H

#include <stdint.h>

#include "case.h"
#include "nan_policies.h"

/* Decider visits one case may spend; the rows after it are left out (the mask then
 * describes the rows examined). */
#define NAN_FINGERPRINT_MAX_VISITS (UINT64_C(1) << 16)

typedef struct nan_fingerprint {
    uint64_t nan_rows; /* rows or windows holding a NaN that were examined; 0: none */
    unsigned policies; /* 1u << nan_policy_id of every policy that explains all of them */
} nan_fingerprint;

/* The fingerprint of the answer `got` to case c (a float input; other types hold no NaN,
 * and give nan_rows 0).  Walks every output element's deciders, so callers ask only for
 * cases of class nan; stops early once no policy is left. */
nan_fingerprint nan_fingerprint_case(const dml_case *c, const case_outputs *got);

#endif
