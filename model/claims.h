/*
 * claims.h: what an implementation under test says it implements, per operator and per
 * tensor data type (the plug-in ABI's dmlcheck_capabilities, the process protocol's WELCOME).
 * Backends skip a case beyond the claims with claims_beyond's reason; runs store the claims
 * as JSON (claims_to_json, results/schema.sql runs.claims) and reports read them back
 * (claims_from_json) to tell the cells an implementation claims from those it does not, so a
 * partial implementation can be "CONFORMANT for what it claims".
 *
 * A type mask holds bit (1u << DML_TENSOR_DATA_TYPE) per type; 0 means every type DirectML
 * allows there, so an implementation that claims an operator without naming types claims it
 * whole, as the ABI's first capabilities did.
 */
#ifndef DMLCHECK_CLAIMS_H
#define DMLCHECK_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "error.h"
#include "op.h"

typedef struct op_claim {
    bool claimed;
    uint32_t input_types, output_types, indices_types; /* 0: every type */
    /* Pooling claimed only without an OutputIndicesTensor (a library whose max pooling
     * returns values alone; the protocol's "indices": false) */
    bool without_indices;
} op_claim;

typedef struct backend_claims {
    /* false: the backend claims everything (the reference; a backend that states nothing) */
    bool limited;
    DML_FEATURE_LEVEL max_feature_level; /* 0: no limit */
    op_claim ops[OP_COUNT];
} backend_claims;

/* Everything: what a backend that states no claims is held to. */
void claims_all(backend_claims *c);
/* Every operator claimed with one input-type mask (0: all), as the ABI's first capabilities
 * and the protocol's "operators"/"input_types" say; `limited` stays false only when every
 * operator and type is claimed. */
void claims_uniform(backend_claims *c, DML_FEATURE_LEVEL max_level, uint32_t input_types);

/* After filling ops and max_feature_level by hand: `limited` unless they cover everything. */
void claims_settle(backend_claims *c);
/* True when the claims cover op with these types at level fl (indices UNKNOWN: no indices
 * tensor, always covered). */
bool claims_cover(const backend_claims *c, op_id op, DML_FEATURE_LEVEL fl,
                  DML_TENSOR_DATA_TYPE input, DML_TENSOR_DATA_TYPE output,
                  DML_TENSOR_DATA_TYPE indices);
/* Why case k is beyond the claims ("the plug-in does not claim INT32 for MAX_POOLING2"),
 * `who` naming the implementation ("the plug-in", "the child"); NULL when within. */
const char *claims_beyond(const backend_claims *c, const dml_case *k, const char *who,
                          char *buf, size_t size);
/* One line: "ARGMIN, ARGMAX on FLOAT32, INT32; MAX_POOLING2 on FLOAT32", operators with the
 * same types grouped, output and indices types and the highest level added where limited;
 * "everything" when not limited. */
const char *claims_describe(const backend_claims *c, char *buf, size_t size);

/* Compact JSON: {"max_feature_level":"5_0","operators":[{"op":"ARGMIN","input_types":
 * ["FLOAT32"],...}]} (masks of 0 and a level of 0 left out); NULL when not limited (nothing
 * to store) or out of memory (*oom set).  Free with free(). */
char *claims_to_json(const backend_claims *c, bool *oom);
/* The reverse; "" or NULL text: everything.  False with err for malformed text. */
bool claims_from_json(const char *text, backend_claims *c, dmlc_error *err);
/* One operator entry of the JSON above, or of the protocol's WELCOME "claims" list, into c
 * (an unknown operator name is ignored: a newer implementation may claim operators this
 * dmlcheck does not test).  json is a json_t * (jansson); false with err when malformed. */
bool claims_add_json_entry(backend_claims *c, const void *json, dmlc_error *err);

#endif
