/*
 * gen_values.h: the value half of the generator (internal to gen.c).  Given a case whose
 * descriptor is complete, fills its input buffer with values of a named distribution.
 * Values are built as raw bits with integer arithmetic only, so a case is bit-identical on
 * every machine.
 */
#ifndef DMLCHECK_GEN_VALUES_H
#define DMLCHECK_GEN_VALUES_H

#include <stdbool.h>

#include "case.h"
#include "gen.h"
#include "prng.h"

/* True when `dist` makes sense for input type `t` of operator `op` (e.g. nan_all needs a
 * float type, padding_window needs pooling). */
bool gen_distribution_applies(gen_distribution dist, op_id op, DML_TENSOR_DATA_TYPE t);

/* Whether deep_winners changes a case of `dist`: uniform, ties, extreme_at_both_ends. */
bool gen_deep_winners_apply(gen_distribution dist);

/* Where the winners of the size tiers' long ARGMIN/ARGMAX reductions go (gen_values.c
 * draw_deep_pair): nowhere in particular (versions 2 and 3, and every small-tier case);
 * version 4's tied pair deep inside, drawn per output; version 5's, whose chunk size is drawn
 * per case, whose outputs take consecutive chunk multiples, and whose DECREASING winners
 * alternate the end they are far from. */
typedef enum gen_deep_winners {
    GEN_DEEP_WINNERS_NONE, GEN_DEEP_WINNERS_V4, GEN_DEEP_WINNERS_V5
} gen_deep_winners;

/* Fills c->input_data (already allocated, case_tensor_bytes(&c->input) bytes): bytes outside
 * every logical element get a "poison" value that would win if a backend read them, then
 * every logical element gets a value of `dist` in logical order, stored at its strided
 * address (elements sharing an address under broadcast share the value of the first).
 * deep_winners (since version 4, the long reductions of the size tiers): for ARGMIN/ARGMAX
 * and a distribution gen_deep_winners_apply names, each reduction's winners are a tied pair
 * of extremes deep inside it, in different chunks (gen_values.c draw_deep_pair);
 * GEN_DEEP_WINNERS_NONE draws exactly what version 3 drew. */
void gen_fill_input(prng *p, gen_distribution dist, gen_deep_winners deep_winners, dml_case *c);

#endif
