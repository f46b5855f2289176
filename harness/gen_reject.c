/*
 * gen_reject.c: must-reject cases (gen.h, reject_per_mille).  A small share of generated
 * cases get a descriptor DirectML requires to be refused at the case's feature level, so a
 * backend that validates is tested on refusing as well as on computing.
 *
 * The decision and the breaks come from a PRNG stream of their own, so every case that stays
 * valid is drawn exactly as it would be without them.  A break is kept only when the
 * validator (model/validate.c, DirectML's rules) refuses the result: the rules decide what
 * must be refused, never this file.
 */
#include "gen.h"

#include <string.h>

#include "op_module.h"
#include "validate.h"

/* Distinct from every stream gen_case seeds ("must_rej" in ASCII). */
#define REJECT_STREAM UINT64_C(0x6d7573745f72656a)
#define BREAK_TRIES 8

/* An input type this operator does not take at this level (FLOAT64: no operator's); not
 * when the options choose the input types (--types asks for cases of those types). */
static bool break_type(prng *p, const gen_options *opt, dml_case *c)
{
    if (opt->input_type_mask)
        return false;
    uint32_t allowed = op_types_at(c->op, c->feature_level).input, refused[16];
    unsigned n = 0;
    for (unsigned t = DML_TENSOR_DATA_TYPE_FLOAT32; t <= DML_TENSOR_DATA_TYPE_INT64; t++)
        if (!((allowed >> t) & 1))
            refused[n++] = t;
    if (!n)
        return false;
    c->input.type = (DML_TENSOR_DATA_TYPE)refused[prng_below(p, n)];
    return true;
}

/* One output dimension one larger than the operator's size rule gives. */
static bool break_output_size(prng *p, dml_case *c)
{
    if (!c->output.rank)
        return false;
    c->output.sizes[prng_below(p, c->output.rank)] += 1;
    return true;
}

static bool break_once(prng *p, const gen_options *opt, dml_case *c)
{
    switch (prng_below(p, 3)) {
    case 0: return break_type(p, opt, c);
    case 1: return break_output_size(p, c);
    default: return case_module(c)->invalidate(p, c);
    }
}

bool gen_reject_maybe(uint64_t seed, uint64_t group, const gen_options *opt, dml_case *c)
{
    prng q;
    prng_seed2(&q, seed ^ REJECT_STREAM, group);
    if (prng_below(&q, 1000) >= opt->reject_per_mille)
        return false;
    /* Before the input buffer exists, a plain copy holds the whole case. */
    const dml_case valid = *c;
    for (int t = 0; t < BREAK_TRIES; t++) {
        if (break_once(&q, opt, c)) {
            case_link(c);
            if (!validate_case(c, NULL)) {
                c->must_reject = true;
                return true;
            }
        }
        *c = valid;
        case_link(c);
    }
    return false;
}
