/*
 * gen.c: the seeded random case generator.  gen_case(seed, index) reseeds a xoshiro256**
 * from (seed, index) and draws, in this fixed order: operator, feature level, data types,
 * value distribution, shape and operator parameters, tensor layouts, then the input values
 * (gen_values.c).  Changing the order or any draw renames every SEED:INDEX, so it must bump
 * GEN_VERSION (model/case_id.h), keeping the older versions' draws behind a version test;
 * the golden test in tests/runner/test_gen.c pins the first case of
 * seed 1 so that happens only on purpose.  The options text is at the end; case ids are
 * model/case_id.c's.
 *
 * Invariants: every case is valid at its feature level (SEMANTICS.md, validate_case); only
 * integer arithmetic decides anything, so a case is bit-identical on every machine; the
 * input element count stays within gen_options.max_elements (outputs within four times it);
 * no state outside the arguments.
 */
#include "gen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "draw.h"
#include "gen_values.h"
#include "layout.h"
#include "op_module.h"
#include "prng.h"

/* The budget without --max-elements: version 2's whole budget; since version 3 the cap of
 * the largest size tier (three times 2^20 elements: 12 MiB of FLOAT32, 24 MiB of INT64). */
#define GEN_V2_DEFAULT_MAX_ELEMENTS 4096
#define GEN_DEFAULT_MAX_ELEMENTS (3ull << 20)
/* The values' own stream when several cases share a descriptor ("values" in ASCII). */
#define VALUES_STREAM UINT64_C(0x76616c756573)
/* Larger budgets are clamped: keeps strides and spans far from UINT overflow. */
#define GEN_MAX_ELEMENTS_CAP (1ull << 28)

const char *gen_layout_name(gen_layout l)
{
    static const char *const names[] = {
#define X(name) #name,
        GEN_LAYOUTS(X)
#undef X
    };
    return l < GEN_LAYOUT_COUNT ? names[l] : "?";
}

const char *gen_distribution_name(gen_distribution d)
{
    static const char *const names[] = {
#define X(name) #name,
        GEN_DISTRIBUTIONS(X)
#undef X
    };
    return d < GEN_DIST_COUNT ? names[d] : "?";
}

void gen_options_default(gen_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->version = GEN_VERSION;
    opt->reject_per_mille = GEN_DEFAULT_REJECT_PER_MILLE;
    opt->inputs_per_desc = 1;
}

/* ---- Data types per operator and feature level --------------------------------------- */


static unsigned popcount32(uint32_t m) { return (unsigned)__builtin_popcount(m); }

/* The k-th set bit of mask (lowest first), k drawn uniformly; mask must be non-zero. */
static unsigned draw_bit(prng *p, uint32_t mask)
{
    uint64_t k = prng_below(p, popcount32(mask));
    for (unsigned bit = 0;; bit++)
        if ((mask & (1u << bit)) && k-- == 0)
            return bit;
}

/* ---- Operator, feature level, types -------------------------------------------------- */

/* Feature levels the options allow: the given one, or every tested level. */
static size_t candidate_levels(const gen_options *opt, DML_FEATURE_LEVEL *levels)
{
    if (opt->feature_level) {
        levels[0] = opt->feature_level;
        return 1;
    }
    for (size_t i = 0; i < FL_TESTED_COUNT; i++)
        levels[i] = fl_tested[i];
    return FL_TESTED_COUNT;
}

/* Bit i set when candidate level i has an input type for op that the options allow. */
static uint32_t usable_levels(op_id op, const gen_options *opt, const DML_FEATURE_LEVEL *levels,
                              size_t count)
{
    uint32_t type_mask = opt->input_type_mask ? opt->input_type_mask : ~0u, usable = 0;
    for (size_t i = 0; i < count; i++)
        if (op_input_types_at(op, levels[i]) & type_mask)
            usable |= 1u << i;
    return usable;
}

/* Operator uniformly among those usable at some allowed level, then a level where it is. */
static bool draw_op_and_level(prng *p, const gen_options *opt, dml_case *c, dmlc_error *err)
{
    DML_FEATURE_LEVEL levels[16];
    size_t count = candidate_levels(opt, levels);
    uint32_t op_mask = opt->op_mask ? opt->op_mask : (1u << OP_COUNT) - 1, usable_ops = 0;
    for (int op = 0; op < OP_COUNT; op++)
        if ((op_mask & (1u << op)) && usable_levels((op_id)op, opt, levels, count))
            usable_ops |= 1u << op;
    if (!usable_ops)
        return err_set(err, "no operator, feature level and input type satisfy the options "
                            "(op mask 0x%x, feature level %s, type mask 0x%x)",
                       opt->op_mask, opt->feature_level ? fl_name(opt->feature_level) : "any",
                       opt->input_type_mask);
    c->op = (op_id)draw_bit(p, usable_ops);
    c->feature_level = levels[draw_bit(p, usable_levels(c->op, opt, levels, count))];
    return true;
}

static void draw_types(prng *p, const gen_options *opt, dml_case *c)
{
    op_type_sets s = op_types_at(c->op, c->feature_level);
    uint32_t type_mask = opt->input_type_mask ? opt->input_type_mask : ~0u;
    c->input.type = (DML_TENSOR_DATA_TYPE)draw_bit(p, s.input & type_mask);
    if (!case_module(c)->tensors->output_is_input_type) {
        c->output.type = (DML_TENSOR_DATA_TYPE)draw_bit(p, s.output);
        return;
    }
    c->output.type = c->input.type;
    c->indices.present = prng_chance(p, 1, 2);
    if (c->indices.present)
        c->indices.type = (DML_TENSOR_DATA_TYPE)draw_bit(p, s.indices);
}

/* ---- Distribution -------------------------------------------------------------------- */

/* Relative weights, in GEN_DISTRIBUTIONS order; padding_window is rare on purpose. */
static const unsigned dist_weights[GEN_DIST_COUNT] = {
    [GEN_DIST_uniform] = 6, [GEN_DIST_ties] = 5, [GEN_DIST_all_equal] = 2,
    [GEN_DIST_extreme_at_both_ends] = 4, [GEN_DIST_signed_zero] = 2, [GEN_DIST_inf] = 2,
    [GEN_DIST_nan_some] = 2, [GEN_DIST_nan_all] = 1, [GEN_DIST_denormal] = 2,
    [GEN_DIST_int_extremes] = 3, [GEN_DIST_padding_window] = 1, [GEN_DIST_must_reject] = 0,
};
/* The large tiers look for where the work is split, so they favour values whose winner is
 * at an end or among many ties (the last element wins under DECREASING): a dropped last
 * chunk or a lost carry shows there.  Value semantics get their cases in the small tiers. */
static const unsigned dist_weights_large[GEN_DIST_COUNT] = {
    [GEN_DIST_uniform] = 2, [GEN_DIST_ties] = 4, [GEN_DIST_all_equal] = 2,
    [GEN_DIST_extreme_at_both_ends] = 6, [GEN_DIST_signed_zero] = 1, [GEN_DIST_inf] = 1,
    [GEN_DIST_nan_some] = 1, [GEN_DIST_nan_all] = 1, [GEN_DIST_denormal] = 1,
    [GEN_DIST_int_extremes] = 1, [GEN_DIST_padding_window] = 1, [GEN_DIST_must_reject] = 0,
};

static gen_distribution draw_distribution(prng *p, const dml_case *c, const unsigned *weights)
{
    unsigned total = 0;
    for (int d = 0; d < GEN_DIST_COUNT; d++)
        if (gen_distribution_applies((gen_distribution)d, c->op, c->input.type))
            total += weights[d];
    uint64_t pick = prng_below(p, total);
    for (int d = 0;; d++)
        if (gen_distribution_applies((gen_distribution)d, c->op, c->input.type)) {
            if (pick < weights[d])
                return (gen_distribution)d;
            pick -= weights[d];
        }
}

/* ---- Sizes --------------------------------------------------------------------------- */

uint64_t gen_max_elements(const gen_options *opt)
{
    uint64_t budget = opt->max_elements ? opt->max_elements
                      : opt->version == 2 ? GEN_V2_DEFAULT_MAX_ELEMENTS
                                          : GEN_DEFAULT_MAX_ELEMENTS;
    return budget < GEN_MAX_ELEMENTS_CAP ? budget : GEN_MAX_ELEMENTS_CAP;
}

static uint64_t at_most(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Version 2's element cap of one case: most cases are small (cheap, and small tensors meet
 * the edges as often), one in ten may use the whole budget. */
static uint64_t draw_case_budget(prng *p, uint64_t budget)
{
    uint64_t r = prng_below(p, 10), cap = r < 5 ? 64 : r < 9 ? 512 : budget;
    return at_most(cap, budget);
}

/* Size tiers since version 3, drawn per GEN_TIER_DRAWS before the values: the large and
 * huge tiers reach the long extents (shape_request) where kernels split, tile and overflow
 * 16-bit counters; the deepest tier the most dimensions that cannot be merged away.  They
 * are rare because a large case costs as much as hundreds of small ones (issue 12's budget:
 * a default run within 20% of its cases/s without them, `meson test --benchmark --suite
 * runner`; met on the OpenCL backend, not on the reference one, and version 5's more frequent
 * ARGMIN/ARGMAX large tier costs the reference about 8% more CPU: docs/MEASUREMENTS.md,
 * "Generator version 5"); each stays within --max-elements (a smaller budget leaves the case
 * small). */
typedef enum gen_tier { TIER_SMALL, TIER_DEEPEST, TIER_MEDIUM, TIER_LARGE, TIER_HUGE } gen_tier;
#define GEN_TIER_DRAWS 32768
#define GEN_TIER_HUGE 1        /* long extent past 2^20, within 3 * 2^20 elements */
#define GEN_TIER_LARGE 64      /* long extent past 2^16, within 3 * 2^16 elements */
/* Since version 5, ARGMIN/ARGMAX's large tier: twice as often, so that a bug only a winner
 * past 2^16 from one end shows (a 16-bit index or rank) fails on every seed of 10,000 cases
 * (docs/MEASUREMENTS.md, "Generator version 5"); pooling keeps GEN_TIER_LARGE. */
#define GEN_TIER_LARGE_REDUCTION_V5 128
#define GEN_TIER_MEDIUM 128    /* long extent past 2^12, within 3 * 2^12 elements */
#define GEN_TIER_DEEPEST 1024  /* highest rank, every dimension >= 2, within 4096 elements */

static uint64_t tier_extent(gen_tier tier)
{
    return tier == TIER_HUGE ? 1u << 20 : tier == TIER_LARGE ? 1u << 16 : tier == TIER_MEDIUM ? 1u << 12 : 0;
}

/* Version 2 has no tiers and draws nothing here. */
static gen_tier draw_tier(prng *p, unsigned version, const dml_case *c, uint64_t budget)
{
    if (version == 2)
        return TIER_SMALL;
    uint64_t r = prng_below(p, GEN_TIER_DRAWS);
    bool reduction = version >= 5 && case_module(c)->output_is_index;
    const struct { gen_tier tier; unsigned draws; } tiers[] = {
        { TIER_HUGE, GEN_TIER_HUGE },
        { TIER_LARGE, reduction ? GEN_TIER_LARGE_REDUCTION_V5 : GEN_TIER_LARGE },
        { TIER_MEDIUM, GEN_TIER_MEDIUM }, { TIER_DEEPEST, GEN_TIER_DEEPEST },
    };
    gen_tier tier = TIER_SMALL;
    for (size_t i = 0; i < sizeof tiers / sizeof tiers[0] && tier == TIER_SMALL; i++) {
        if (r < tiers[i].draws)
            tier = tiers[i].tier;
        r -= tiers[i].draws;
    }
    return tier_extent(tier) && budget <= tier_extent(tier) ? TIER_DEEPEST : tier;
}

static shape_request draw_request(prng *p, gen_tier tier, uint64_t budget)
{
    shape_request rq = { 0 };
    if (tier_extent(tier)) {
        rq.long_extent_over = tier_extent(tier);
        rq.budget = at_most(3 * rq.long_extent_over, budget);
    } else {
        rq.deepest = tier == TIER_DEEPEST;
        rq.budget = draw_case_budget(p, at_most(GEN_SMALL_TIERS_ELEMENTS, budget));
    }
    return rq;
}

/* ---- Layouts ------------------------------------------------------------------------- */

/* Strides packed in memory order `order` (outermost first) over extents sizes + pad, the
 * innermost dimension `pitch` elements apart. */
static void strides_in_order(case_tensor *t, const unsigned *order, const UINT *pad, UINT pitch)
{
    tensor_layout l;
    layout_init(&l, t->rank);
    l.explicit_strides = true;
    memcpy(l.order, order, sizeof(unsigned) * t->rank);
    memcpy(l.pad, pad, sizeof(UINT) * t->rank);
    l.pitch = pitch;
    layout_apply(&l, t);
}

static void identity_order(unsigned rank, unsigned *order)
{
    for (unsigned i = 0; i < rank; i++)
        order[i] = i;
}

/* Packed row-major, with or without explicit strides. */
static void layout_packed(prng *p, case_tensor *t)
{
    unsigned order[DML_MAX_RANK];
    UINT pad[DML_MAX_RANK] = { 0 };
    identity_order(t->rank, order);
    if (prng_chance(p, 1, 2))
        strides_in_order(t, order, pad, 1);
}

/* Row-major with gaps: rows of some dimensions get 1-3 extra elements of pitch (the span
 * staying within 2x elements + 64), and now and then elements are 2 apart.  A padding that
 * shows nowhere (only the outermost dimension padded, or dimensions of size 1 outside it)
 * becomes a pitch of 2, so the span exceeds the element count whenever there are two
 * elements. */
static void layout_padded(prng *p, case_tensor *t)
{
    unsigned order[DML_MAX_RANK];
    UINT pad[DML_MAX_RANK] = { 0 };
    uint64_t elements = tensor_element_count(t->rank, t->sizes), span = elements;
    uint64_t outer = t->sizes[0]; /* elements of the dimensions outside d */
    for (unsigned d = 1; d < t->rank; d++) {
        UINT extra = prng_chance(p, 1, 3) ? 1 + (UINT)prng_below(p, 3) : 0;
        uint64_t grown = span / t->sizes[d] * (t->sizes[d] + extra);
        if (extra && outer > 1 && grown <= 2 * elements + 64) {
            pad[d] = extra;
            span = grown;
        }
        outer *= t->sizes[d];
    }
    UINT pitch = span == elements || prng_chance(p, 1, 8) ? 2 : 1;
    identity_order(t->rank, order);
    strides_in_order(t, order, pad, pitch);
}

/* Since version 4, for the deepest tier: dimensions stored in an order where no dimension
 * sits just outside the next one (no i with order[k] = i - 1, order[k + 1] = i), so no two
 * neighbours can be merged into one however they are reduced: a kernel must keep every
 * dimension.  A few shuffles are tried, then the reversed order, which never has one. */
static void layout_unmergeable(prng *p, case_tensor *t)
{
    unsigned order[DML_MAX_RANK], rank = t->rank;
    UINT pad[DML_MAX_RANK] = { 0 };
    bool mergeable = true;
    for (unsigned tries = 0; tries < 4 && mergeable; tries++) {
        draw_permutation(p, rank, order);
        mergeable = false;
        for (unsigned k = 0; k + 1 < rank; k++)
            mergeable |= order[k] + 1 == order[k + 1];
    }
    for (unsigned i = 0; mergeable && i < rank; i++)
        order[i] = rank - 1 - i;
    strides_in_order(t, order, pad, 1);
}

/* Dimensions stored in another order: channels-last (NHWC / NDHWC) for pooling-shaped
 * tensors half the time, else a random order that is never the identity. */
static void layout_permuted(prng *p, case_tensor *t, bool pooling)
{
    unsigned order[DML_MAX_RANK], rank = t->rank;
    UINT pad[DML_MAX_RANK] = { 0 };
    if (pooling && prng_chance(p, 1, 2)) {
        order[0] = 0;
        for (unsigned i = 1; i + 1 < rank; i++)
            order[i] = i + 1;
        order[rank - 1] = 1;
    } else {
        draw_permutation(p, rank, order);
        bool identity = true;
        for (unsigned i = 0; i < rank; i++)
            identity &= order[i] == i;
        if (identity) /* reverse: a rank >= 2 identity becomes a real permutation */
            for (unsigned i = 0; i < rank; i++)
                order[i] = rank - 1 - i;
    }
    strides_in_order(t, order, pad, 1);
}

/* Stride 0 on a non-empty set of dimensions (those of size > 1 when there are any); the
 * others packed among themselves. */
static void layout_broadcast(prng *p, case_tensor *t)
{
    uint32_t candidates = 0, zeroed = 0;
    for (unsigned d = 0; d < t->rank; d++)
        if (t->sizes[d] > 1)
            candidates |= 1u << d;
    if (!candidates)
        candidates = (1u << t->rank) - 1;
    for (unsigned d = 0; d < t->rank; d++)
        if ((candidates & (1u << d)) && prng_chance(p, 1, 2))
            zeroed |= 1u << d;
    if (!zeroed)
        zeroed = 1u << draw_bit(p, candidates);
    tensor_layout l;
    layout_init(&l, t->rank);
    l.explicit_strides = true;
    l.broadcast = zeroed;
    layout_apply(&l, t);
}

/* Packed, with TotalTensorSizeInBytes larger than needed (by a multiple of 4). */
static void layout_oversized(prng *p, case_tensor *t)
{
    layout_packed(p, t);
    UINT64 needed = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes,
                                                t->has_strides ? t->strides : NULL);
    uint64_t extra = prng_chance(p, 3, 4) ? 1 + prng_below(p, 16) : 1 + prng_below(p, 1024);
    t->has_total_bytes = true;
    t->total_bytes = needed + 4 * extra;
}

static void apply_layout(prng *p, gen_layout kind, case_tensor *t, bool pooling)
{
    switch (kind) {
    case GEN_LAYOUT_padded: layout_padded(p, t); break;
    case GEN_LAYOUT_permuted: layout_permuted(p, t, pooling); break;
    case GEN_LAYOUT_broadcast: layout_broadcast(p, t); break;
    case GEN_LAYOUT_oversized: layout_oversized(p, t); break;
    case GEN_LAYOUT_packed:
    default: layout_packed(p, t); break;
    }
    /* GuaranteedBaseOffsetAlignment: 0, or now and then a power of two >= the element size. */
    t->base_alignment = prng_chance(p, 1, 8) ? 16 : 0;
}

/* The input's layout: every kind equally often (permuted needs two dimensions). */
static gen_layout draw_input_layout(prng *p, const case_tensor *t)
{
    gen_layout kind = (gen_layout)prng_below(p, GEN_LAYOUT_COUNT);
    if (kind == GEN_LAYOUT_permuted && t->rank < 2)
        kind = GEN_LAYOUT_padded;
    return kind;
}

/* Outputs never alias (no stride 0): mostly packed, sometimes padded, permuted, oversized. */
static gen_layout draw_output_layout(prng *p, const case_tensor *t)
{
    static const gen_layout kinds[] = { GEN_LAYOUT_packed, GEN_LAYOUT_packed, GEN_LAYOUT_packed,
                                        GEN_LAYOUT_packed, GEN_LAYOUT_packed, GEN_LAYOUT_padded,
                                        GEN_LAYOUT_padded, GEN_LAYOUT_permuted,
                                        GEN_LAYOUT_permuted, GEN_LAYOUT_oversized };
    gen_layout kind = kinds[prng_below(p, sizeof kinds / sizeof kinds[0])];
    return kind == GEN_LAYOUT_permuted && t->rank < 2 ? GEN_LAYOUT_padded : kind;
}

/* unmergeable (version 4's deepest tier): half the inputs get layout_unmergeable. */
static void draw_layouts(prng *p, dml_case *c, gen_info *info, bool unmergeable)
{
    bool pooling = case_module(c)->channel_dims;
    if (unmergeable && c->input.rank >= 2 && prng_chance(p, 1, 2)) {
        info->layout = GEN_LAYOUT_permuted;
        layout_unmergeable(p, &c->input);
        c->input.base_alignment = prng_chance(p, 1, 8) ? 16 : 0;
    } else {
        info->layout = draw_input_layout(p, &c->input);
        apply_layout(p, info->layout, &c->input, pooling);
    }
    apply_layout(p, draw_output_layout(p, &c->output), &c->output, pooling);
    if (c->indices.present)
        apply_layout(p, draw_output_layout(p, &c->indices), &c->indices, pooling);
}

/* ---- The case ------------------------------------------------------------------------ */

/* The long reductions of the size tiers place their winners deep inside since version 4. */
static gen_deep_winners deep_winners_of(unsigned version, gen_tier tier)
{
    if (version < 4 || !tier_extent(tier))
        return GEN_DEEP_WINNERS_NONE;
    return version == 4 ? GEN_DEEP_WINNERS_V4 : GEN_DEEP_WINNERS_V5;
}

bool gen_case(uint64_t seed, uint64_t index, const gen_options *opt, dml_case *c,
              gen_info *info, dmlc_error *err)
{
    prng p;
    unsigned version = opt->version ? opt->version : GEN_VERSION;
    if (!gen_version_supported(version))
        return err_set(err, "generator version %u is not one this dmlcheck draws (%d to %d)",
                       version, GEN_OLDEST_VERSION, GEN_VERSION);
    /* The descriptor comes from the case's group; with one case per group (the default) the
     * values continue on the same stream, as they always did. */
    uint64_t per = opt->inputs_per_desc > 1 ? opt->inputs_per_desc : 1, group = index / per;
    prng_seed2(&p, seed, group);
    case_init(c);
    if (!draw_op_and_level(&p, opt, c, err))
        return false;
    c->input.present = c->output.present = true;
    draw_types(&p, opt, c);
    uint64_t budget = gen_max_elements(opt);
    gen_tier tier = draw_tier(&p, version, c, budget);
    info->dist = draw_distribution(&p, c, tier_extent(tier) ? dist_weights_large : dist_weights);
    shape_request rq = version == 2 ? (shape_request){ .budget = draw_case_budget(&p, budget) }
                                    : draw_request(&p, tier, budget);
    rq.padding_window = info->dist == GEN_DIST_padding_window;
    rq.many_axes = version >= 4 && tier == TIER_DEEPEST;
    case_module(c)->draw_shape(&p, &rq, c);
    draw_layouts(&p, c, info, version >= 4 && tier == TIER_DEEPEST);
    case_link(c);
    bool reject = gen_reject_maybe(seed, group, opt, c);
    /* A descriptor that must be refused is never computed: its input is zeros. */
    c->input_data = reject ? calloc(1, case_tensor_bytes(&c->input) + 1)
                           : malloc(case_tensor_bytes(&c->input));
    if (!c->input_data)
        return err_set(err, "out of memory: cannot allocate the input, %llu bytes",
                       (unsigned long long)case_tensor_bytes(&c->input));
    if (reject)
        info->dist = GEN_DIST_must_reject;
    else {
        if (per > 1) /* the group's other cases: the same descriptor, inputs of their own */
            prng_seed2(&p, seed ^ VALUES_STREAM, index);
        gen_fill_input(&p, info->dist, deep_winners_of(version, tier), c);
    }
    return true;
}

bool gen_out_of_memory(const dml_case *c)
{
    return c->input.present && !c->input_data;
}

/* Appends ",name" (or "name" first) to buf. */
static void append_name(char *buf, size_t size, const char *name, bool *first)
{
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s", *first ? "" : ",", name);
    *first = false;
}

/* The op list of a mask ("any" when it allows every op, as gen_case reads it). */
static void ops_text(unsigned mask, char *buf, size_t size)
{
    const unsigned all = (1u << OP_COUNT) - 1;
    bool first = true;
    buf[0] = 0;
    if ((mask & all) == 0 || (mask & all) == all) {
        snprintf(buf, size, "any");
        return;
    }
    for (int op = 0; op < OP_COUNT; op++)
        if (mask & (1u << op))
            append_name(buf, size, op_table[op].stem, &first);
}

/* The type list of a mask ("any" when it allows every type the tables know). */
static void types_text(uint32_t mask, char *buf, size_t size)
{
    uint32_t all = 0;
    bool first = true;
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        all |= 1u << dtype_table[i].type;
    buf[0] = 0;
    if ((mask & all) == 0 || (mask & all) == all) {
        snprintf(buf, size, "any");
        return;
    }
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (mask & (1u << dtype_table[i].type))
            append_name(buf, size, dtype_table[i].name, &first);
}

const char *gen_options_text(const gen_options *opt, char *buf, size_t size)
{
    char ops[96], types[160];
    /* The budget exactly as gen_case computes it, so equal texts draw equal cases. */
    uint64_t budget = gen_max_elements(opt);
    ops_text(opt->op_mask, ops, sizeof ops);
    types_text(opt->input_type_mask, types, sizeof types);
    int n = snprintf(buf, size, "feature-level=%s max-elements=%" PRIu64 " ops=%s types=%s "
                     "reject-rate=%u", opt->feature_level ? fl_name(opt->feature_level) : "any",
                     budget, ops, types, opt->reject_per_mille);
    /* Written only when not 1, so the texts of runs before it stay what they were. */
    if (opt->inputs_per_desc > 1 && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " inputs-per-desc=%u", opt->inputs_per_desc);
    return buf;
}
