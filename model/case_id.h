/*
 * case_id.h: what names a case, gN:SEED:INDEX: the version of the generator that drew it
 * (harness/gen.c), the run's seed and the case's index.  An id regenerates the same case
 * with the same generator options (gen_options_text).  Here, below every layer that prints,
 * stores or reads ids (the runner, the results store, the reports), so that the store need
 * not see the generator.  The names keep their gen_ prefix: they name the generator's ids.
 */
#ifndef DMLCHECK_CASE_ID_H
#define DMLCHECK_CASE_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The generator's version, carried by every case id ("g2:7:49").  Bump it whenever the same
 * SEED:INDEX and the same gen_options_text would draw a different case: any change to a
 * draw in harness/gen.c, to their order, to gen_values.c or to the type tables; move the
 * golden case in tests/runner/test_gen.c with it.  Replay refuses an id of another version,
 * so an old id fails loudly instead of silently naming a different case.
 * Version 1 is every generator before ids carried a version (bare "SEED:INDEX", runs stored
 * without gen_version).  It named no single generator, so nothing drawn then is replayed as
 * version 2 without the user saying so. */
#define GEN_VERSION 5
/* Version 3 added the size tiers (gen.c draw_request) and nothing else: version 2's cases
 * are drawn by the same code with the tiers left out, so ids printed by version 2 (the
 * published conformance reports hold thousands) still replay.  Version 4 changed only the
 * tiers: ARGMIN/ARGMAX winners deep inside long reductions (gen_values.c deep_winners), many
 * reduced axes and unmergeable layouts at the deepest tier; version 3's cases are drawn by
 * the same code with those left out.  Version 5 changed only the large tier and the deep
 * winners: ARGMIN/ARGMAX draw the large tier twice as often, and each case's deep winners
 * sit in consecutive chunks with DECREASING ones far from alternate ends (gen_values.c
 * deep_plan); version 4's cases are drawn by the same code with version 4's rates and draws. */
#define GEN_OLDEST_VERSION 2

/* Whether this generator draws the cases of that version's ids. */
bool gen_version_supported(unsigned version);

typedef struct gen_case_id {
    unsigned version;    /* the generator version; 0: a bare legacy SEED:INDEX, which names none */
    uint64_t seed, index;
} gen_case_id;

/* Room for the longest id: "g4294967295:" and two 20-digit numbers. */
#define GEN_CASE_ID_SIZE 56

/* Parses "gN:SEED:INDEX" (N decimal, >= 1) or the legacy "SEED:INDEX" (version 0); SEED and
 * INDEX are decimal or 0x-hex.  False on anything else, id untouched. */
bool gen_parse_case_id(const char *text, gen_case_id *id);
/* "gN:SEED:INDEX" (decimal), or "SEED:INDEX" for version 0, into buf; returns buf. */
const char *gen_format_case_id(const gen_case_id *id, char *buf, size_t size);

#endif
