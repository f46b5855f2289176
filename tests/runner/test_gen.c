/* test_gen.c: the case generator.  Determinism (same SEED:INDEX -> same descriptor and
 * bytes; another index -> another case), coverage over 10,000 cases (every operator, level,
 * type allowed at each level, rank, direction, distribution, layout kind, indices with and
 * without, ceil output sizes; printed as a table), every case valid at its level, layouts and
 * distributions doing what their names say, filters, the generator's type table agreeing
 * with the validator, the reference seeing what the distributions promise (padding windows,
 * NaN decisions, denormals that matter, directions told apart), case-id parsing, and a
 * golden pin of the first case of seed 1. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "casefile.h"
#include "gen.h"
#include "op_module.h"
#include "reference.h"
#include "tap.h"
#include "validate.h"

#define COVERAGE_CASES 10000
#define COVERAGE_SEED 1

/* ---- Case fingerprint and one-line description --------------------------------------- */

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv(h, b, 8);
}

static uint64_t tensor_fingerprint(uint64_t h, const case_tensor *t)
{
    h = fnv_u64(h, t->present);
    h = fnv_u64(h, t->type);
    h = fnv_u64(h, t->rank);
    for (UINT i = 0; i < t->rank; i++)
        h = fnv_u64(fnv_u64(h, t->sizes[i]), t->has_strides ? t->strides[i] : ~0ull);
    return fnv_u64(fnv_u64(fnv_u64(h, case_tensor_bytes(t)), t->base_alignment), t->flags);
}

/* FNV-1a over every descriptor field (little-endian, so the same on every host) and the
 * input bytes. */
static uint64_t case_fingerprint(const dml_case *c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv_u64(fnv_u64(h, c->op), c->feature_level);
    h = tensor_fingerprint(h, &c->input);
    h = tensor_fingerprint(h, &c->output);
    h = tensor_fingerprint(h, &c->indices);
    h = fnv_u64(fnv_u64(h, c->axis_count), c->direction);
    for (UINT i = 0; i < c->axis_count; i++)
        h = fnv_u64(h, c->axes[i]);
    h = fnv_u64(h, c->spatial_count);
    for (UINT i = 0; i < c->spatial_count; i++) {
        h = fnv_u64(fnv_u64(h, c->pool_strides[i]), c->window[i]);
        h = fnv_u64(fnv_u64(fnv_u64(h, c->start_padding[i]), c->end_padding[i]), c->dilations[i]);
    }
    return fnv(h, c->input_data, case_tensor_bytes(&c->input));
}

static int append_uints(char *buf, size_t size, const char *name, const UINT *v, UINT n)
{
    int used = snprintf(buf, size, " %s{", name);
    for (UINT i = 0; i < n && used > 0 && (size_t)used < size; i++)
        used += snprintf(buf + used, size - used, "%s%u", i ? "," : "", v[i]);
    if (used > 0 && (size_t)used < size)
        used += snprintf(buf + used, size - used, "}");
    return used;
}

/* "ARGMAX 3_0 f16->i32 sizes{..} strides{..} axes{..} dir 1 ..." */
static void describe(const dml_case *c, const gen_info *info, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s %s %s->%s %s %s", op_table[c->op].name, fl_name(c->feature_level),
                     dtype_stem(c->input.type), dtype_stem(c->output.type),
                     gen_layout_name(info->layout), gen_distribution_name(info->dist));
    n += append_uints(buf + n, size - n, "sizes", c->input.sizes, c->input.rank);
    if (c->input.has_strides)
        n += append_uints(buf + n, size - n, "strides", c->input.strides, c->input.rank);
    n += append_uints(buf + n, size - n, "out", c->output.sizes, c->output.rank);
    if (op_table[c->op].module == &op_module_arg_reduce) {
        n += append_uints(buf + n, size - n, "axes", c->axes, c->axis_count);
        snprintf(buf + n, size - n, " dir %d", (int)c->direction);
        return;
    }
    n += append_uints(buf + n, size - n, "window", c->window, c->spatial_count);
    n += append_uints(buf + n, size - n, "stride", c->pool_strides, c->spatial_count);
    n += append_uints(buf + n, size - n, "dil", c->dilations, c->spatial_count);
    n += append_uints(buf + n, size - n, "pad", c->start_padding, c->spatial_count);
    n += append_uints(buf + n, size - n, "", c->end_padding, c->spatial_count);
    snprintf(buf + n, size - n, " indices %s", c->indices.present ? dtype_stem(c->indices.type) : "none");
}

/* ---- Determinism and the golden pin --------------------------------------------------- */

static bool generate(uint64_t seed, uint64_t index, const gen_options *opt, dml_case *c, gen_info *info)
{
    dmlc_error err;
    if (gen_case(seed, index, opt, c, info, &err))
        return true;
    tap_diag("gen_case %" PRIu64 ":%" PRIu64 " failed: %s", seed, index, err.msg);
    return false;
}

/* Must-reject cases: their share, each refused by the validator at its level (and every other
 * case accepted), the rule kinds they break, and no effect on the cases that stay valid. */
static void test_must_reject(tap *t)
{
    gen_options with, without;
    gen_options_default(&with);
    gen_options_default(&without);
    without.reject_per_mille = 0;
    unsigned n = 5000, rejected = 0, wrong = 0, changed = 0;
    bool type = false, size = false, family = false;
    for (uint64_t i = 0; i < n; i++) {
        dml_case a, b;
        gen_info ia, ib;
        dmlc_error err = { "" };
        if (!generate(31, i, &with, &a, &ia) || !generate(31, i, &without, &b, &ib))
            return;
        bool valid = validate_case(&a, &err);
        wrong += a.must_reject == valid || (a.must_reject != (ia.dist == GEN_DIST_must_reject));
        if (a.must_reject) {
            rejected++;
            type |= strstr(err.msg, "DataType") != NULL;
            size |= strstr(err.msg, "Sizes[") != NULL;
            family |= strstr(err.msg, "Axes") || strstr(err.msg, "AxisDirection")
                      || strstr(err.msg, "Strides[") || strstr(err.msg, "Dilations[")
                      || strstr(err.msg, "WindowSize[");
        } else {
            char *ta = casefile_write(&a, NULL), *tb = casefile_write(&b, NULL);
            changed += !ta || !tb || strcmp(ta, tb);
            free(ta);
            free(tb);
        }
        case_free(&a);
        case_free(&b);
    }
    tap_ok(t, rejected >= n / 100 && rejected <= 3 * n / 100,
           "must-reject cases near 20 per thousand (%u of %u)", rejected, n);
    tap_ok(t, wrong == 0, "must-reject cases are refused at their level, the others accepted (%u wrong)",
           wrong);
    tap_ok(t, type && size && family, "must-reject cases break types, sizes and family rules");
    tap_ok(t, changed == 0, "cases that stay valid are drawn as without must-reject (%u changed)",
           changed);
}

/* --inputs-per-desc K: K consecutive cases share a descriptor and differ in inputs; K = 1
 * draws exactly the default cases. */
static void test_inputs_per_desc(tap *t)
{
    gen_options one, five;
    gen_options_default(&one);
    gen_options_default(&five);
    five.inputs_per_desc = 5;
    one.inputs_per_desc = 1;
    unsigned shared = 0, groups = 0, inputs_differ = 0, pairs = 0;
    for (uint64_t g = 0; g < 40; g++) {
        dml_case first;
        gen_info info;
        if (!generate(41, g * 5, &five, &first, &info))
            return;
        json_t *fj = casefile_descriptor_json(&first);
        char *ft = fj ? json_dumps(fj, JSON_COMPACT) : NULL;
        bool all_same = ft != NULL;
        for (uint64_t k = 1; k < 5; k++) {
            dml_case c;
            if (!generate(41, g * 5 + k, &five, &c, &info))
                return;
            json_t *cj = casefile_descriptor_json(&c);
            char *ct = cj ? json_dumps(cj, JSON_COMPACT) : NULL;
            all_same &= ct && ft && !strcmp(ct, ft);
            bool values = !first.must_reject && all_same;
            pairs += values;
            inputs_differ += values && memcmp(first.input_data, c.input_data,
                                              case_tensor_bytes(&c.input)) != 0;
            free(ct);
            json_decref(cj);
            case_free(&c);
        }
        shared += all_same;
        groups++;
        free(ft);
        json_decref(fj);
        case_free(&first);
    }
    tap_ok(t, shared == groups, "inputs-per-desc 5: each group of 5 shares its descriptor (%u of %u)",
           shared, groups);
    tap_ok(t, inputs_differ * 10 >= pairs * 8, "inputs-per-desc 5: the group's inputs differ (%u of %u)",
           inputs_differ, pairs);
    dml_case a, b;
    gen_info ia, ib;
    gen_options def;
    gen_options_default(&def);
    bool same = generate(41, 7, &one, &a, &ia) && generate(41, 7, &def, &b, &ib);
    char *ta = same ? casefile_write(&a, NULL) : NULL, *tb = same ? casefile_write(&b, NULL) : NULL;
    tap_ok(t, ta && tb && !strcmp(ta, tb), "inputs-per-desc 1 draws the default cases");
    free(ta);
    free(tb);
    if (same) {
        case_free(&a);
        case_free(&b);
    }
}

static void test_determinism(tap *t)
{
    gen_options opt;
    gen_options_default(&opt);
    unsigned same = 0, differs = 0, cases = 500;
    for (uint64_t i = 0; i < cases; i++) {
        dml_case a, b, next;
        gen_info ia, ib, in;
        if (!generate(77, i, &opt, &a, &ia) || !generate(77, i, &opt, &b, &ib)
            || !generate(77, i + 1, &opt, &next, &in))
            break;
        bool bytes_equal = case_tensor_bytes(&a.input) == case_tensor_bytes(&b.input)
            && !memcmp(a.input_data, b.input_data, case_tensor_bytes(&a.input));
        same += bytes_equal && case_fingerprint(&a) == case_fingerprint(&b) && ia.layout == ib.layout
            && ia.dist == ib.dist;
        differs += case_fingerprint(&a) != case_fingerprint(&next);
        case_free(&a);
        case_free(&b);
        case_free(&next);
    }
    tap_ok(t, same == cases, "same SEED:INDEX gives the same descriptor and bytes (%u/%u)", same, cases);
    tap_ok(t, differs == cases, "INDEX and INDEX+1 give different cases (%u/%u)", differs, cases);
}

/* The first case of seed 1 and cases 0..GOLDEN_SPAN-1 folded into one number, pinned per
 * generator version.  A change to the generator (draw order, weights, a new draw) renames
 * every SEED:INDEX, so recorded cases stop replaying: when you change the generator ON
 * PURPOSE, bump GEN_VERSION, keep the older versions' pins (their draws must not move: their
 * ids still replay), add the new version's (run this test, copy the "got" lines) and say so
 * in the commit message.  Version 2's pins were taken from the generator before version 3
 * existed. */
#define GOLDEN_SPAN 2000
static const struct {
    unsigned version;
    const char *description;
    uint64_t fingerprint, span;
} goldens[] = {
    { 2, "ARGMAX 5_0 i32->u64 padded must_reject sizes{7} strides{2} out{1} axes{1} dir 0",
      UINT64_C(0x3c4e57e24afef528), UINT64_C(0xa84268ce5b3e7c95) },
    { 3, "ARGMAX 5_0 i32->u64 permuted must_reject sizes{1,5,1,1,1,12,1} strides{60,12,60,12,12,1,12} "
         "out{1,5,1,1,1,12,1} axes{6,7} dir 1",
      UINT64_C(0x04be5338b325ea58), UINT64_C(0x1a55905c20a0e894) },
    /* Version 4 changed only the tiers: case 1:0 is version 3's, the span is not. */
    { 4, "ARGMAX 5_0 i32->u64 permuted must_reject sizes{1,5,1,1,1,12,1} strides{60,12,60,12,12,1,12} "
         "out{1,5,1,1,1,12,1} axes{6,7} dir 1",
      UINT64_C(0x04be5338b325ea58), UINT64_C(0xba1d268029f7d916) },
    /* Version 5 changed only ARGMIN/ARGMAX's large tier and the deep winners: case 1:0 is
     * version 4's, the span is not. */
    { 5, "ARGMAX 5_0 i32->u64 permuted must_reject sizes{1,5,1,1,1,12,1} strides{60,12,60,12,12,1,12} "
         "out{1,5,1,1,1,12,1} axes{6,7} dir 1",
      UINT64_C(0x04be5338b325ea58), UINT64_C(0x14974f28825925c3) },
};

static uint64_t span_fingerprint(const gen_options *opt)
{
    uint64_t folded = UINT64_C(0xcbf29ce484222325);
    for (uint64_t i = 0; i < GOLDEN_SPAN; i++) {
        dml_case c;
        gen_info info;
        if (!generate(1, i, opt, &c, &info))
            return 0;
        folded = (folded ^ case_fingerprint(&c) ^ ((uint64_t)info.dist << 8 | info.layout))
                 * UINT64_C(0x100000001b3);
        case_free(&c);
    }
    return folded;
}

static void test_golden(tap *t)
{
    for (size_t g = 0; g < sizeof goldens / sizeof goldens[0]; g++) {
        gen_options opt;
        gen_options_default(&opt);
        opt.version = goldens[g].version;
        dml_case c;
        gen_info info;
        char text[1024];
        if (!generate(1, 0, &opt, &c, &info)) {
            tap_ok(t, false, "golden g%u: case 1:0 generates", opt.version);
            continue;
        }
        describe(&c, &info, text, sizeof text);
        uint64_t fp = case_fingerprint(&c), span = span_fingerprint(&opt);
        if (!tap_ok(t, !strcmp(text, goldens[g].description), "golden g%u: case 1:0 descriptor is pinned",
                    opt.version))
            tap_diag("got \"%s\"", text);
        if (!tap_ok(t, fp == goldens[g].fingerprint,
                    "golden g%u: case 1:0 fingerprint (descriptor + bytes) is pinned", opt.version))
            tap_diag("got UINT64_C(0x%016" PRIx64 ")", fp);
        if (!tap_ok(t, span == goldens[g].span, "golden g%u: cases 1:0 to 1:%d are pinned",
                    opt.version, GOLDEN_SPAN - 1))
            tap_diag("got UINT64_C(0x%016" PRIx64 ")", span);
        case_free(&c);
    }
}

/* The size tiers' cases pinned on their own: the span above holds only a few of them (a
 * large-tier case is 1 in 512), so a change to how large or deepest cases are drawn or
 * filled could slip past it.  Cases 1:0 to 1:TIER_SPAN-1 whose input passes the small
 * tiers' budget or has rank 8 are folded, with their count, per generator version. */
#define TIER_SPAN 8192
static const struct {
    unsigned version, count;
    uint64_t span;
} tier_goldens[] = {
    { 3, 624, UINT64_C(0x9e51caa7fcd34b71) },
    { 4, 624, UINT64_C(0x49c365e571d56557) },
    { 5, 631, UINT64_C(0x71959b33ae87ada8) },
};

static bool is_tier_case(const dml_case *c)
{
    return tensor_element_count(c->input.rank, c->input.sizes) > GEN_SMALL_TIERS_ELEMENTS
           || c->input.rank == DML_MAX_RANK;
}

static void test_tier_golden(tap *t)
{
    for (size_t g = 0; g < sizeof tier_goldens / sizeof tier_goldens[0]; g++) {
        gen_options opt;
        gen_options_default(&opt);
        opt.version = tier_goldens[g].version;
        uint64_t folded = UINT64_C(0xcbf29ce484222325);
        unsigned count = 0;
        for (uint64_t i = 0; i < TIER_SPAN; i++) {
            dml_case c;
            gen_info info;
            if (!generate(1, i, &opt, &c, &info))
                break;
            if (is_tier_case(&c)) {
                count++;
                folded = (folded ^ case_fingerprint(&c) ^ ((uint64_t)info.dist << 8 | info.layout))
                         * UINT64_C(0x100000001b3);
            }
            case_free(&c);
        }
        if (!tap_ok(t, count == tier_goldens[g].count && folded == tier_goldens[g].span,
                    "golden g%u: the tier cases among 1:0 to 1:%d are pinned", opt.version,
                    TIER_SPAN - 1))
            tap_diag("got %u, UINT64_C(0x%016" PRIx64 ")", count, folded);
    }
}

/* ---- Layout and distribution checks -------------------------------------------------- */

static bool has_zero_stride(const case_tensor *t)
{
    for (UINT i = 0; i < t->rank; i++)
        if (t->has_strides && t->strides[i] == 0)
            return true;
    return false;
}

/* True when strides are not in row-major (non-increasing, by dimensions of size > 1) order. */
static bool is_permuted(const case_tensor *t)
{
    uint64_t prev = UINT64_MAX;
    for (UINT i = 0; i < t->rank && t->has_strides; i++) {
        if (t->sizes[i] == 1)
            continue;
        if (t->strides[i] > prev)
            return true;
        prev = t->strides[i];
    }
    return false;
}

static uint64_t span_elements(const case_tensor *t)
{
    tensor_view v;
    case_tensor_view(t, &v);
    uint64_t last = 0;
    for (UINT i = 0; i < v.rank; i++)
        last += (uint64_t)(v.sizes[i] - 1) * v.strides[i];
    return last + 1;
}

/* The descriptor shows the layout kind the generator recorded. */
static bool layout_matches(const dml_case *c, gen_layout kind)
{
    const case_tensor *in = &c->input;
    uint64_t n = case_tensor_elements(in), needed = dml_calc_buffer_tensor_size(
        in->type, in->rank, in->sizes, in->has_strides ? in->strides : NULL);
    switch (kind) {
    case GEN_LAYOUT_packed: return span_elements(in) == n && !has_zero_stride(in) && !in->has_total_bytes;
    case GEN_LAYOUT_padded: return (span_elements(in) > n || n == 1) && !has_zero_stride(in);
    case GEN_LAYOUT_permuted: return !has_zero_stride(in) && (is_permuted(in) || n == span_elements(in));
    case GEN_LAYOUT_broadcast: return has_zero_stride(in);
    case GEN_LAYOUT_oversized: return in->has_total_bytes && in->total_bytes > needed && in->total_bytes % 4 == 0;
    default: return false;
    }
}

static uint64_t input_bits(const dml_case *c, const tensor_view *v, uint64_t logical)
{
    return dtype_load_bits(c->input_data, c->input.type, tensor_view_offset(v, logical));
}

/* Elements one ARGMIN/ARGMAX output element reduces. */
static uint64_t reduction_length(const dml_case *c)
{
    uint64_t group = 1;
    for (UINT a = 0; a < c->axis_count; a++)
        group *= c->input.sizes[c->axes[a]];
    return group;
}

/* Since version 4 a reduction of the size tiers (past the small tiers' budget) may have its
 * winners deep inside instead (gen_values.c), which check_deep_winners checks. */
static bool long_reduction(const dml_case *c)
{
    return op_table[c->op].module == &op_module_arg_reduce
           && reduction_length(c) > GEN_SMALL_TIERS_ELEMENTS;
}

/* extreme_at_both_ends on ARGMIN/ARGMAX: the first and the last element of the first
 * reduction group hold the same value (so the two directions pick different indices). */
static bool extremes_at_both_ends(const dml_case *c, const tensor_view *v)
{
    uint32_t last[DML_MAX_RANK] = { 0 };
    for (UINT a = 0; a < c->axis_count; a++)
        last[c->axes[a]] = v->sizes[c->axes[a]] - 1;
    return dtype_load_bits(c->input_data, c->input.type, tensor_view_offset_coords(v, last))
        == input_bits(c, v, 0);
}

/* The values show the distribution the generator recorded, where that is certain. */
static bool distribution_matches(const dml_case *c, gen_distribution dist)
{
    tensor_view v;
    case_tensor_view(&c->input, &v);
    bool is_float = dtype_is_float(c->input.type);
    switch (dist) {
    case GEN_DIST_nan_all:
        for (uint64_t i = 0; i < v.elements; i++)
            if (!dtype_bits_is_nan(c->input.type, input_bits(c, &v, i)))
                return false;
        return true;
    case GEN_DIST_all_equal:
        for (uint64_t i = 1; i < v.elements; i++)
            if (input_bits(c, &v, i) != input_bits(c, &v, 0))
                return false;
        return true;
    case GEN_DIST_signed_zero: case GEN_DIST_inf: case GEN_DIST_nan_some: case GEN_DIST_denormal:
        return is_float;
    case GEN_DIST_int_extremes:
        return !is_float;
    case GEN_DIST_padding_window:
        return op_table[c->op].module->has_padding;
    case GEN_DIST_extreme_at_both_ends:
        return !(op_table[c->op].module == &op_module_arg_reduce) || long_reduction(c)
               || extremes_at_both_ends(c, &v);
    default:
        return true;
    }
}

/* ---- Coverage ------------------------------------------------------------------------ */

typedef struct coverage {
    unsigned op[OP_COUNT], level[OP_COUNT][8], type[OP_COUNT][8][16], out_type[OP_COUNT][8][16];
    unsigned rank[OP_COUNT][DML_MAX_RANK + 1], direction[2], axes_all, axes_several, axes_unsorted;
    unsigned dist[GEN_DIST_COUNT], layout[GEN_LAYOUT_COUNT], out_layout[GEN_LAYOUT_COUNT];
    unsigned indices_with, indices_without, ceil_sizes, dilated, asym_padding, budget_edge;
    unsigned invalid, layout_wrong, dist_wrong, over_budget;
    /* What the reference sees: per distribution, cases whose classes include the one the
     * distribution aims at; extreme_at_both_ends arg cases whose directions disagree. */
    unsigned ref_padding_window, ref_nan, ref_denormal, ref_nan_outside;
    unsigned extreme_checked, extreme_split;
    /* Version 4's long reductions: cases checked, whose winners were as promised, and those
     * whose winners were a deep pair rather than the ends. */
    unsigned deep_checked, deep_right, deep_pairs;
    char first_invalid[1200];
} coverage;

static unsigned level_slot(DML_FEATURE_LEVEL fl)
{
    for (unsigned i = 0; i < FL_TESTED_COUNT; i++)
        if (fl_tested[i] == fl)
            return i;
    return 7;
}

static gen_layout output_layout_of(const case_tensor *t)
{
    if (t->has_total_bytes)
        return GEN_LAYOUT_oversized;
    if (is_permuted(t))
        return GEN_LAYOUT_permuted;
    return span_elements(t) > case_tensor_elements(t) ? GEN_LAYOUT_padded : GEN_LAYOUT_packed;
}

static void count_pooling(coverage *cv, const dml_case *c)
{
    if (c->indices.present)
        cv->indices_with++;
    else
        cv->indices_without++;
    bool ceil = false, dilated = false, asym = false;
    for (UINT s = 0; s < c->spatial_count; s++) {
        UINT dw = (c->window[s] - 1) * c->dilations[s] + 1;
        UINT floor_out = (c->input.sizes[s + 2] + c->start_padding[s] + c->end_padding[s] - dw)
            / c->pool_strides[s] + 1;
        ceil |= c->output.sizes[s + 2] == floor_out + 1;
        dilated |= c->dilations[s] > 1;
        asym |= c->start_padding[s] != c->end_padding[s];
    }
    cv->ceil_sizes += ceil;
    cv->dilated += dilated;
    cv->asym_padding += asym;
}

static void count_arg_reduce(coverage *cv, const dml_case *c)
{
    cv->direction[c->direction]++;
    cv->axes_all += c->axis_count == c->input.rank && c->input.rank > 1;
    cv->axes_several += c->axis_count > 1 && c->axis_count < c->input.rank;
    for (UINT a = 1; a < c->axis_count; a++)
        if (c->axes[a] < c->axes[a - 1]) {
            cv->axes_unsorted++;
            break;
        }
}

/* Index the reference returns for output element 0 (always at offset 0) under `dir`. */
static uint64_t first_index(dml_case *c, DML_AXIS_DIRECTION dir)
{
    DML_AXIS_DIRECTION saved = c->direction;
    exec_options opt = { NAN_POLICY_IGNORE, false };
    case_outputs out;
    c->direction = dir;
    case_link(c);
    uint64_t index = UINT64_MAX;
    if (case_outputs_alloc(&out, c)) {
        ref_run(c, &opt, &out);
        index = dtype_load_bits(out.output, c->output.type, 0);
        case_outputs_free(&out);
    }
    c->direction = saved;
    case_link(c);
    return index;
}

/* extreme_at_both_ends: INCREASING finds the first element of group 0, DECREASING the last
 * (D3), whenever the group has more than one element. */
static void check_extremes_split(coverage *cv, dml_case *c)
{
    uint64_t group = 1;
    for (UINT a = 0; a < c->axis_count; a++)
        group *= c->input.sizes[c->axes[a]];
    if (group < 2)
        return;
    cv->extreme_checked++;
    cv->extreme_split += first_index(c, DML_AXIS_DIRECTION_INCREASING) == 0
        && first_index(c, DML_AXIS_DIRECTION_DECREASING) == group - 1;
}

/* Winners a tied pair deep inside (gen_values.c draw_deep_pair): INCREASING finds the first,
 * DECREASING the second, a multiple of a power of two 2^j an odd distance below 2^j after
 * the first (2^j is 4096 or more where such a multiple fits, which is wherever the reduction
 * holds more than 2^16 + 4096 elements), both 2^16 from both ends when the reduction holds
 * 2^17 + 8192 elements (version 5), else from one end. */
static bool deep_pair_ok(uint64_t first, uint64_t second, uint64_t length, bool decreasing)
{
    const uint64_t far = UINT64_C(1) << 16;
    bool one_end = length <= far || first >= far || (decreasing && second < length - far);
    bool ends_far = length < 2 * far + 8192 ? one_end : first >= far && second < length - far;
    uint64_t power = second & (~second + 1); /* the largest power of two dividing second */
    bool chunked = power > second - first && (power >= 4096 || length <= far + 4096);
    return first < second && (second - first) % 2 == 1 && second - first < far && chunked
           && ends_far;
}

/* Output element 0 of a long reduction (not broadcast: an address shared by several
 * elements may hold a winner earlier than the one stamped). */
static void check_deep_winners(coverage *cv, dml_case *c, gen_distribution dist)
{
    uint64_t length = reduction_length(c);
    uint64_t first = first_index(c, DML_AXIS_DIRECTION_INCREASING);
    uint64_t second = first_index(c, DML_AXIS_DIRECTION_DECREASING);
    bool ends = dist == GEN_DIST_extreme_at_both_ends && first == 0 && second == length - 1;
    bool deep = deep_pair_ok(first, second, length, c->direction == DML_AXIS_DIRECTION_DECREASING);
    cv->deep_checked++;
    cv->deep_right += ends || deep;
    cv->deep_pairs += deep;
}

static void count_reference(coverage *cv, dml_case *c, gen_distribution dist, gen_layout layout)
{
    exec_options opt = { NAN_POLICY_IGNORE, false };
    case_outputs out;
    if (!case_outputs_alloc(&out, c))
        return;
    unsigned classes = ref_classify(c, &opt, &out, NULL);
    case_outputs_free(&out);
    bool nan_dist = dist == GEN_DIST_nan_some || dist == GEN_DIST_nan_all;
    cv->ref_padding_window += dist == GEN_DIST_padding_window && (classes & CASE_CLASS_PADDING_WINDOW);
    cv->ref_nan += nan_dist && (classes & CASE_CLASS_NAN);
    cv->ref_nan_outside += !nan_dist && (classes & CASE_CLASS_NAN);
    cv->ref_denormal += dist == GEN_DIST_denormal && (classes & CASE_CLASS_DENORMAL);
    bool deep_dist = dist == GEN_DIST_uniform || dist == GEN_DIST_ties
                     || dist == GEN_DIST_extreme_at_both_ends;
    if (long_reduction(c) && deep_dist && layout != GEN_LAYOUT_broadcast)
        check_deep_winners(cv, c, dist);
    else if (dist == GEN_DIST_extreme_at_both_ends && !long_reduction(c)
             && (op_table[c->op].module == &op_module_arg_reduce))
        check_extremes_split(cv, c);
}

static void count_case(coverage *cv, dml_case *c, const gen_info *info, uint64_t index,
                       const gen_options *opt)
{
    unsigned fl = level_slot(c->feature_level);
    cv->op[c->op]++;
    cv->level[c->op][fl]++;
    cv->type[c->op][fl][c->input.type]++;
    cv->out_type[c->op][fl][c->indices.present ? c->indices.type : c->output.type]++;
    cv->rank[c->op][c->input.rank]++;
    cv->dist[info->dist]++;
    cv->layout[info->layout]++;
    cv->out_layout[output_layout_of(&c->output)]++;
    uint64_t budget = gen_max_elements(opt);
    cv->budget_edge += case_tensor_elements(&c->input)
                       == (budget < GEN_SMALL_TIERS_ELEMENTS ? budget : GEN_SMALL_TIERS_ELEMENTS);
    if (case_tensor_elements(&c->input) > budget || case_tensor_elements(&c->output) > 4 * budget) {
        char text[1024];
        describe(c, info, text, sizeof text);
        if (cv->over_budget++ == 0)
            tap_diag("over budget: %d:%" PRIu64 " %s", COVERAGE_SEED, index, text);
    }
    cv->layout_wrong += !layout_matches(c, info->layout);
    cv->dist_wrong += !distribution_matches(c, info->dist);
    if (op_table[c->op].module == &op_module_arg_reduce)
        count_arg_reduce(cv, c);
    else
        count_pooling(cv, c);
    dmlc_error err;
    if (!validate_case(c, &err)) {
        if (cv->invalid++ == 0)
            snprintf(cv->first_invalid, sizeof cv->first_invalid, "%d:%" PRIu64 ": %s",
                     COVERAGE_SEED, index, err.msg);
        return;
    }
    count_reference(cv, c, info->dist, info->layout);
}

static void print_table(const coverage *cv)
{
    tap_diag("coverage over %d cases of seed %d:", COVERAGE_CASES, COVERAGE_SEED);
    for (int op = 0; op < OP_COUNT; op++) {
        tap_diag("  %-12s %5u cases", op_table[op].name, cv->op[op]);
        for (unsigned l = 0; l < FL_TESTED_COUNT; l++) {
            char row[512];
            int n = snprintf(row, sizeof row, "    FL %s %5u:", fl_name(fl_tested[l]), cv->level[op][l]);
            for (size_t t = 0; t < DTYPE_COUNT && n > 0 && (size_t)n < sizeof row; t++)
                if (cv->type[op][l][dtype_table[t].type])
                    n += snprintf(row + n, sizeof row - n, " %s %u", dtype_table[t].stem,
                                  cv->type[op][l][dtype_table[t].type]);
            tap_diag("%s", row);
        }
        tap_diag("    ranks 1..8: %u %u %u %u %u %u %u %u", cv->rank[op][1], cv->rank[op][2],
                 cv->rank[op][3], cv->rank[op][4], cv->rank[op][5], cv->rank[op][6],
                 cv->rank[op][7], cv->rank[op][8]);
    }
    for (int d = 0; d < GEN_DIST_COUNT; d++)
        tap_diag("  distribution %-22s %5u", gen_distribution_name((gen_distribution)d), cv->dist[d]);
    for (int l = 0; l < GEN_LAYOUT_COUNT; l++)
        tap_diag("  layout %-10s input %5u  output %5u", gen_layout_name((gen_layout)l), cv->layout[l],
                 cv->out_layout[l]);
    tap_diag("  directions increasing %u decreasing %u; axes several %u all %u unsorted %u",
             cv->direction[0], cv->direction[1], cv->axes_several, cv->axes_all, cv->axes_unsorted);
    tap_diag("  pooling: indices with %u without %u; ceil sizes %u; dilated %u; asymmetric padding %u",
             cv->indices_with, cv->indices_without, cv->ceil_sizes, cv->dilated, cv->asym_padding);
    tap_diag("  inputs at exactly the element budget: %u", cv->budget_edge);
    tap_diag("  reference: padding_window cases with a padding window %u/%u; nan cases with a NaN "
             "decision %u/%u (other cases %u); denormal cases where flushing matters %u/%u; "
             "extreme_at_both_ends directions split %u/%u",
             cv->ref_padding_window, cv->dist[GEN_DIST_padding_window], cv->ref_nan,
             cv->dist[GEN_DIST_nan_some] + cv->dist[GEN_DIST_nan_all], cv->ref_nan_outside,
             cv->ref_denormal, cv->dist[GEN_DIST_denormal], cv->extreme_split, cv->extreme_checked);
    tap_diag("  reference: long ARGMIN/ARGMAX reductions (uniform, ties, extreme_at_both_ends) "
             "whose winners are as drawn %u/%u, a tied pair deep inside %u",
             cv->deep_right, cv->deep_checked, cv->deep_pairs);
}

/* Every (op, level, type) the generator's table allows was drawn; and every index type. */
static bool every_allowed_type_drawn(const coverage *cv)
{
    bool all = true;
    for (int op = 0; op < OP_COUNT; op++)
        for (unsigned l = 0; l < FL_TESTED_COUNT; l++) {
            op_type_sets s = op_types_at((op_id)op, fl_tested[l]);
            uint32_t outs = (op_table[(op_id)op].module == &op_module_arg_reduce) ? s.output : s.indices;
            for (unsigned t = 0; t < 16; t++) {
                bool miss = ((s.input >> t) & 1 && !cv->type[op][l][t])
                    || ((outs >> t) & 1 && !cv->out_type[op][l][t]);
                if (miss)
                    tap_diag("never drawn: %s FL %s type %s", op_table[op].name,
                             fl_name(fl_tested[l]), dtype_name((DML_TENSOR_DATA_TYPE)t));
                all &= !miss;
            }
        }
    return all;
}

static bool all_nonzero(const unsigned *counts, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (!counts[i])
            return false;
    return true;
}

static void test_coverage(tap *t)
{
    gen_options opt;
    gen_options_default(&opt);
    opt.reject_per_mille = 0; /* valid cases only: test_must_reject covers the others */
    coverage *cv = calloc(1, sizeof *cv);
    unsigned generated = 0;
    for (uint64_t i = 0; i < COVERAGE_CASES; i++) {
        dml_case c;
        gen_info info;
        if (!generate(COVERAGE_SEED, i, &opt, &c, &info))
            break;
        generated++;
        count_case(cv, &c, &info, i, &opt);
        case_free(&c);
    }
    print_table(cv);
    tap_ok(t, generated == COVERAGE_CASES, "%u cases generated", generated);
    if (!tap_ok(t, cv->invalid == 0, "every case passes validate_case at its level (%u invalid)", cv->invalid))
        tap_diag("first invalid: %s (replay: dmlcheck replay %s)", cv->first_invalid, cv->first_invalid);
    tap_ok(t, cv->layout_wrong == 0, "every input layout has the recorded kind (%u wrong)", cv->layout_wrong);
    tap_ok(t, cv->dist_wrong == 0, "every distribution fits its values and type (%u wrong)", cv->dist_wrong);
    tap_ok(t, cv->over_budget == 0, "inputs within max_elements, outputs within 4x (%u over)", cv->over_budget);
    /* must_reject is a label, not drawn values: this run draws none (test_must_reject). */
    tap_ok(t, all_nonzero(cv->dist, GEN_DIST_must_reject), "every distribution produced");
    tap_ok(t, all_nonzero(cv->layout, GEN_LAYOUT_COUNT), "every input layout kind produced");
    tap_ok(t, cv->out_layout[GEN_LAYOUT_padded] && cv->out_layout[GEN_LAYOUT_permuted]
                  && cv->out_layout[GEN_LAYOUT_oversized] && cv->out_layout[GEN_LAYOUT_packed],
           "output tensors packed, padded, permuted and oversized");
    tap_ok(t, all_nonzero(cv->op, OP_COUNT), "every operator produced");
    tap_ok(t, every_allowed_type_drawn(cv), "every type allowed at each level drawn, per operator");
    bool ranks = true;
    for (UINT r = 1; r <= DML_MAX_RANK; r++)
        ranks &= cv->rank[OP_ARGMIN][r] && cv->rank[OP_ARGMAX][r] && (r < 4 || r > 5 || cv->rank[OP_MAX_POOLING2][r]);
    tap_ok(t, ranks, "ranks 1..8 for ARGMIN/ARGMAX, 4..5 for MAX_POOLING2");
    tap_ok(t, cv->direction[0] && cv->direction[1], "both directions");
    tap_ok(t, cv->axes_several && cv->axes_all && cv->axes_unsorted, "one, several, all axes, unsorted order");
    tap_ok(t, cv->indices_with && cv->indices_without, "pooling with and without indices");
    tap_ok(t, cv->ceil_sizes && cv->dilated && cv->asym_padding, "ceil output sizes, dilations, asymmetric padding");
    tap_ok(t, cv->budget_edge > 0, "some inputs exactly at the small tiers' element budget");
    tap_ok(t, cv->ref_padding_window == cv->dist[GEN_DIST_padding_window],
           "reference: every padding_window case has a window entirely in padding");
    tap_ok(t, cv->ref_nan > 0 && cv->ref_denormal > 0,
           "reference: nan and denormal distributions produce the nan and denormal classes");
    tap_ok(t, cv->extreme_checked > 0 && cv->extreme_split == cv->extreme_checked,
           "reference: extreme_at_both_ends makes INCREASING and DECREASING pick first and last");
    tap_ok(t, cv->deep_pairs > 0 && cv->deep_right == cv->deep_checked,
           "reference: long reductions' winners are a tied pair deep inside (%u of %u) or, for "
           "extreme_at_both_ends, the ends (%u)", cv->deep_pairs, cv->deep_checked,
           cv->deep_checked - cv->deep_pairs);
    free(cv);
}

/* ---- Size tiers ------------------------------------------------------------------------ */

#define TIER_CASES 100000

typedef struct tier_counts {
    unsigned medium, reduce_over_2_16, plane_over_2_16, over_2_20, over_budget, invalid;
    unsigned deepest_axes[DML_MAX_RANK + 1]; /* rank-8 ARGMIN/ARGMAX, every size >= 2, unmergeable */
    unsigned all_axes_unmerged; /* of those, every axis reduced and no two neighbours mergeable */
} tier_counts;

/* No two neighbouring dimensions walk memory as one (the outer's stride the inner's span),
 * so a kernel merging dimensions keeps all eight. */
static bool no_neighbours_merge(const case_tensor *t)
{
    UINT strides[DML_MAX_RANK];
    for (UINT d = 0; d < t->rank; d++)
        strides[d] = t->has_strides ? t->strides[d] : 0;
    if (!t->has_strides) /* packed: every neighbour merges */
        return false;
    for (UINT d = 1; d < t->rank; d++)
        if ((uint64_t)strides[d - 1] == (uint64_t)strides[d] * t->sizes[d])
            return false;
    return true;
}

static uint64_t long_extent(const dml_case *c)
{
    uint64_t n = 1;
    if (op_table[c->op].module == &op_module_arg_reduce)
        for (UINT a = 0; a < c->axis_count && a < DML_MAX_RANK; a++)
            n *= c->axes[a] < c->input.rank ? c->input.sizes[c->axes[a]] : 1; /* must-reject axes */
    else
        for (UINT s = 0; s < c->spatial_count; s++)
            n *= c->input.sizes[c->input.rank - c->spatial_count + s];
    return n;
}

static void count_tier(tier_counts *k, dml_case *c, const gen_info *info)
{
    bool reduce = op_table[c->op].module == &op_module_arg_reduce;
    uint64_t extent = long_extent(c);
    k->medium += extent > 4096 && extent <= 65536;
    k->reduce_over_2_16 += reduce && extent > 65536;
    k->plane_over_2_16 += !reduce && extent > 65536;
    k->over_2_20 += extent > (1u << 20);
    k->over_budget += case_tensor_elements(&c->input) > (3u << 20);
    if (extent > 65536 && !c->must_reject)
        k->invalid += !validate_case(c, NULL);
    bool split = c->input.rank == DML_MAX_RANK;
    for (UINT d = 0; d < c->input.rank; d++)
        split &= c->input.sizes[d] >= 2;
    bool unmergeable = info->layout == GEN_LAYOUT_permuted || info->layout == GEN_LAYOUT_padded;
    if (reduce && split && unmergeable && !c->must_reject) {
        k->deepest_axes[c->axis_count]++;
        k->all_axes_unmerged += c->axis_count == DML_MAX_RANK && no_neighbours_merge(&c->input);
    }
}

/* The tiers reach what the small cases never do: reductions and planes past 2^16 and 2^20
 * elements, and rank 8 with every dimension split, each number of reduced axes, in layouts
 * no kernel can merge. */
static void test_tiers(tap *t)
{
    gen_options opt;
    gen_options_default(&opt);
    tier_counts k = { 0 };
    for (uint64_t i = 0; i < TIER_CASES; i++) {
        dml_case c;
        gen_info info;
        if (!generate(1, i, &opt, &c, &info))
            break;
        count_tier(&k, &c, &info);
        case_free(&c);
    }
    tap_ok(t, k.reduce_over_2_16 >= 20 && k.plane_over_2_16 >= 20,
           "tiers: ARGMIN/ARGMAX reductions (%u) and pooling planes (%u) past 2^16 elements",
           k.reduce_over_2_16, k.plane_over_2_16);
    tap_ok(t, k.medium >= 100, "tiers: long extents of 4097 to 65536 elements (%u)", k.medium);
    tap_ok(t, k.over_2_20 >= 1, "tiers: long extents past 2^20 elements (%u)", k.over_2_20);
    tap_ok(t, k.over_budget == 0 && k.invalid == 0, "tiers: within 3 * 2^20 input elements (%u over), "
           "valid (%u invalid)", k.over_budget, k.invalid);
    bool every = true;
    for (unsigned axes = 1; axes <= DML_MAX_RANK; axes++)
        every &= k.deepest_axes[axes] > 0;
    tap_ok(t, every, "tiers: rank 8, every size >= 2, permuted or padded, with 1..8 reduced axes "
           "(%u %u %u %u %u %u %u %u)", k.deepest_axes[1], k.deepest_axes[2], k.deepest_axes[3],
           k.deepest_axes[4], k.deepest_axes[5], k.deepest_axes[6], k.deepest_axes[7], k.deepest_axes[8]);
    /* Version 3 drew 20 in these 100,000 cases of seed 1 (a third of its deepest cases reduce
     * every axis, a fifth of those are permuted, a third of those with no neighbours in
     * order); version 4 draws 269 (gen.c layout_unmergeable, arg_reduce.c draw_many_axes),
     * version 5 270 (its tier draws differ from version 4's only in ARGMIN/ARGMAX's large tier). */
    tap_ok(t, k.all_axes_unmerged >= 200, "tiers: rank 8 reducing every axis with no two "
           "neighbours mergeable: %u in %d cases", k.all_axes_unmerged, TIER_CASES);
    gen_options_default(&opt);
    opt.max_elements = GEN_SMALL_TIERS_ELEMENTS;
    uint64_t largest = 0;
    for (uint64_t i = 0; i < 20000; i++) {
        dml_case c;
        gen_info info;
        if (!generate(1, i, &opt, &c, &info))
            break;
        largest = case_tensor_elements(&c.input) > largest ? case_tensor_elements(&c.input) : largest;
        case_free(&c);
    }
    tap_ok(t, largest <= GEN_SMALL_TIERS_ELEMENTS, "tiers: --max-elements 4096 keeps every case small "
           "(largest %" PRIu64 ")", largest);
}

/* ---- Version 5's deep winners across outputs ------------------------------------------- */

/* The index the reference returns for every output element, in logical order; false when the
 * outputs cannot be allocated. */
static bool output_indices(const dml_case *c, uint64_t *indices, uint64_t count)
{
    exec_options opt = { NAN_POLICY_IGNORE, false };
    case_outputs out;
    if (!case_outputs_alloc(&out, c))
        return false;
    ref_run(c, &opt, &out);
    tensor_view v;
    case_tensor_view(&c->output, &v);
    for (uint64_t i = 0; i < count; i++)
        indices[i] = dtype_load_bits(out.output, c->output.type, tensor_view_offset(&v, i));
    case_outputs_free(&out);
    return true;
}

typedef struct deep_outputs {
    unsigned both_ends, both_ends_wrong, one_end, one_end_wrong;
} deep_outputs;

/* One case whose winners version 5 placed (uniform or ties values: no output keeps the ends;
 * no broadcast: an address shared by several elements may hold an earlier winner).  Past
 * 2^17 + 8192 elements every winner lies 2^16 from both ends (such a reduction fills the large
 * tier's budget alone: one output); a shorter DECREASING reduction of several outputs has an
 * output whose winner is 2^16 from the end (a 16-bit rank fails) and one whose winner is 2^16
 * from the start (a 16-bit index fails), and consecutive outputs' winners lie in different
 * 4096-element chunks. */
static void check_deep_outputs(deep_outputs *d, const dml_case *c)
{
    const uint64_t far = UINT64_C(1) << 16;
    uint64_t count = case_tensor_elements(&c->output), length = reduction_length(c);
    bool decreasing = c->direction == DML_AXIS_DIRECTION_DECREASING;
    if (length < 2 * far + 8192 && (!decreasing || count < 2))
        return;
    uint64_t *w = malloc(sizeof *w * count);
    if (!w || !output_indices(c, w, count)) {
        free(w);
        return;
    }
    bool inside = true, from_start = false, from_end = false, apart = true;
    for (uint64_t i = 0; i < count; i++) {
        inside &= w[i] >= far && length - 1 - w[i] >= far;
        from_start |= w[i] >= far;
        from_end |= length - 1 - w[i] >= far;
        apart &= i == 0 || w[i] / 4096 != w[i - 1] / 4096;
    }
    if (length >= 2 * far + 8192) {
        d->both_ends++;
        d->both_ends_wrong += !inside;
    } else {
        d->one_end++;
        d->one_end_wrong += !(from_start && from_end && apart);
    }
    free(w);
}

static void test_deep_outputs(tap *t)
{
    gen_options opt;
    gen_options_default(&opt);
    opt.op_mask = (1u << OP_ARGMIN) | (1u << OP_ARGMAX);
    opt.input_type_mask = 1u << DML_TENSOR_DATA_TYPE_FLOAT32;
    opt.reject_per_mille = 0;
    deep_outputs d = { 0 };
    for (uint64_t i = 0; i < 40000; i++) {
        dml_case c;
        gen_info info;
        if (!generate(3, i, &opt, &c, &info))
            break;
        if (long_reduction(&c) && reduction_length(&c) > (UINT64_C(1) << 16)
            && (info.dist == GEN_DIST_uniform || info.dist == GEN_DIST_ties)
            && info.layout != GEN_LAYOUT_broadcast)
            check_deep_outputs(&d, &c);
        case_free(&c);
    }
    tap_ok(t, d.both_ends > 0 && d.both_ends_wrong == 0,
           "version 5: winners of reductions past 2^17 + 8192 lie 2^16 from both ends "
           "(%u of %u cases wrong)", d.both_ends_wrong, d.both_ends);
    tap_ok(t, d.one_end > 0 && d.one_end_wrong == 0,
           "version 5: shorter DECREASING reductions of several outputs have winners 2^16 from the "
           "start and from the end, consecutive ones in different 4096-element chunks (%u of %u "
           "cases wrong)", d.one_end_wrong, d.one_end);
}

/* ---- Filters ------------------------------------------------------------------------- */

typedef bool (*case_predicate)(const dml_case *c);

static bool all_cases(const gen_options *opt, case_predicate pred, unsigned count)
{
    for (uint64_t i = 0; i < count; i++) {
        dml_case c;
        gen_info info;
        dmlc_error err;
        if (!generate(9, i, opt, &c, &info))
            return false;
        /* Valid, or refused when drawn as must-reject (test_must_reject). */
        bool ok = pred(&c) && (c.must_reject ? !validate_case(&c, NULL) : validate_case(&c, &err));
        case_free(&c);
        if (!ok) {
            tap_diag("case 9:%" PRIu64 " breaks the filter", i);
            return false;
        }
    }
    return true;
}

static bool is_argmin(const dml_case *c) { return c->op == OP_ARGMIN; }
/* A 64-bit input at 3_0 is exactly what a must-reject case may be (its type break). */
static bool is_fl_3_0_no_64bit_arg(const dml_case *c)
{
    return c->feature_level == DML_FEATURE_LEVEL_3_0 && (c->must_reject || dtype_size(c->input.type) < 8);
}
static bool is_f16(const dml_case *c) { return c->input.type == DML_TENSOR_DATA_TYPE_FLOAT16; }
static bool is_pool_2_1(const dml_case *c)
{
    return (c->op == OP_MAX_POOLING2 || c->op == OP_MAX_POOLING1)
        && c->feature_level == DML_FEATURE_LEVEL_2_1;
}
static bool is_fl_6_0(const dml_case *c) { return c->feature_level == DML_FEATURE_LEVEL_6_0; }
static bool within_100(const dml_case *c) { return case_tensor_elements(&c->input) <= 100; }
static bool within_65536(const dml_case *c)
{
    return case_tensor_elements(&c->input) <= 65536 && case_tensor_elements(&c->output) <= 4 * 65536;
}
static bool is_u64_arg(const dml_case *c)
{
    return (op_table[c->op].module == &op_module_arg_reduce) && c->input.type == DML_TENSOR_DATA_TYPE_UINT64
        && c->feature_level >= DML_FEATURE_LEVEL_4_1;
}

static void test_filters(tap *t)
{
    gen_options opt;
    gen_options_default(&opt);
    opt.op_mask = 1u << OP_ARGMIN;
    tap_ok(t, all_cases(&opt, is_argmin, 300), "op_mask ARGMIN: only ARGMIN");
    gen_options_default(&opt);
    opt.feature_level = DML_FEATURE_LEVEL_3_0;
    tap_ok(t, all_cases(&opt, is_fl_3_0_no_64bit_arg, 300), "feature level 3_0: only 3_0, no 64-bit inputs");
    gen_options_default(&opt);
    opt.input_type_mask = 1u << DML_TENSOR_DATA_TYPE_FLOAT16;
    tap_ok(t, all_cases(&opt, is_f16, 300), "input_type_mask FLOAT16: only FLOAT16 inputs");
    gen_options_default(&opt);
    opt.feature_level = DML_FEATURE_LEVEL_2_1;
    tap_ok(t, all_cases(&opt, is_pool_2_1, 300), "feature level 2_1: only MAX_POOLING1 and MAX_POOLING2 exist");
    gen_options_default(&opt);
    opt.feature_level = DML_FEATURE_LEVEL_6_0;
    tap_ok(t, all_cases(&opt, is_fl_6_0, 300), "feature level 6_0 (untested level): cases at 6_0, valid");
    gen_options_default(&opt);
    opt.max_elements = 100;
    tap_ok(t, all_cases(&opt, within_100, 300), "max_elements 100 respected");
    gen_options_default(&opt);
    opt.max_elements = 65536;
    tap_ok(t, all_cases(&opt, within_65536, 100), "max_elements 65536: larger cases stay within it, valid");
    gen_options_default(&opt);
    opt.op_mask = (1u << OP_ARGMIN) | (1u << OP_ARGMAX);
    opt.input_type_mask = 1u << DML_TENSOR_DATA_TYPE_UINT64;
    tap_ok(t, all_cases(&opt, is_u64_arg, 300), "UINT64 arg-reduce inputs only from 4_1");

    dml_case c;
    gen_info info;
    dmlc_error err;
    gen_options_default(&opt);
    opt.op_mask = 1u << OP_ARGMAX;
    opt.feature_level = DML_FEATURE_LEVEL_2_1;
    bool refused = !gen_case(1, 0, &opt, &c, &info, &err);
    if (tap_ok(t, refused && strstr(err.msg, "no operator"), "ARGMAX at 2_1 is refused with a message"))
        tap_diag("message: %s", err.msg);
    else
        case_free(&c);
}

/* ---- The generator's type table agrees with the validator ---------------------------- */

/* Sets one tensor's type and returns whether the validator accepts the case; the case is
 * restored afterwards. */
static bool valid_with_type(dml_case *c, case_tensor *tensor, bool pooling_value, DML_TENSOR_DATA_TYPE t)
{
    DML_TENSOR_DATA_TYPE in = c->input.type, out = c->output.type, old = tensor->type;
    dmlc_error err;
    tensor->type = t;
    if (pooling_value)
        c->input.type = c->output.type = t;
    case_link(c);
    bool ok = validate_case(c, &err);
    c->input.type = in;
    c->output.type = out;
    tensor->type = old;
    case_link(c);
    return ok;
}

static bool not_oversized(const dml_case *c)
{
    return !c->input.has_total_bytes && !c->output.has_total_bytes && !c->indices.has_total_bytes;
}

/* For one case: every type is accepted by the validator exactly when op_types_at lists it. */
static bool types_agree(dml_case *c)
{
    op_type_sets s = op_types_at(c->op, c->feature_level);
    bool pooling = !op_table[c->op].module->output_is_index, agree = true;
    for (size_t i = 0; i < DTYPE_COUNT; i++) {
        DML_TENSOR_DATA_TYPE t = dtype_table[i].type;
        bool in_ok = valid_with_type(c, &c->input, pooling, t);
        agree &= in_ok == (((s.input >> t) & 1) != 0);
        if (!pooling)
            agree &= valid_with_type(c, &c->output, false, t) == (((s.output >> t) & 1) != 0);
        else if (c->indices.present)
            agree &= valid_with_type(c, &c->indices, false, t) == (((s.indices >> t) & 1) != 0);
        if (!agree) {
            tap_diag("%s FL %s: generator and validator disagree about %s", op_table[c->op].name,
                     fl_name(c->feature_level), dtype_table[i].name);
            return false;
        }
    }
    return true;
}

static void test_types_agree_with_validator(tap *t)
{
    gen_options opt;
    gen_options_default(&opt);
    unsigned checked = 0;
    bool agree = true;
    for (uint64_t i = 0; i < 400 && agree; i++) {
        dml_case c;
        gen_info info;
        if (!generate(5, i, &opt, &c, &info))
            break;
        if (not_oversized(&c) && !c.must_reject) {
            agree = types_agree(&c);
            checked++;
        }
        case_free(&c);
    }
    tap_ok(t, agree && checked > 100, "type table agrees with the validator on every type (%u cases)", checked);
}

/* ---- Case ids ------------------------------------------------------------------------ */

/* id parses to (version, seed, index). */
static bool parses_to(const char *id, unsigned version, uint64_t seed, uint64_t index)
{
    gen_case_id got = { 99, 99, 99 };
    return gen_parse_case_id(id, &got) && got.version == version && got.seed == seed
           && got.index == index;
}

static void test_parse_case_id(tap *t)
{
    tap_ok(t, parses_to("g2:7:49", 2, 7, 49), "parse g2:7:49");
    tap_ok(t, parses_to("g1:0x1F:30", 1, 31, 30), "parse g1:0x1F:30 (another version parses; replay refuses it)");
    tap_ok(t, parses_to("g4294967295:1:2", UINT32_MAX, 1, 2), "parse the largest version");
    tap_ok(t, parses_to("1:2", 0, 1, 2), "parse legacy 1:2 as version 0 (none named)");
    tap_ok(t, parses_to("0x1F:30", 0, 31, 30), "parse legacy 0x1F:30");
    tap_ok(t, parses_to("18446744073709551615:0", 0, UINT64_MAX, 0), "parse the largest seed");
    static const char *const bad[] = { "", ":", "1:", ":2", "1", "a:1", "1:2x", "-1:2", " 1:2",
                                       "1: 2", "1:0x", "18446744073709551616:0", "1:2:3", "012a:1",
                                       "g:1:2", "gx:1:2", "g99999999999999999999:1:2", "g0:1:2",
                                       "g4294967296:1:2", "g0x2:1:2", "g-2:1:2", "g 2:1:2", "G2:1:2",
                                       "g2:", "g2:1", "g2:1:", "g2:1:2:3", "g2:g2:1:2", "g2", "g" };
    bool rejected = true;
    gen_case_id id = { 7, 7, 7 };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        if (gen_parse_case_id(bad[k], &id)) {
            tap_diag("accepted \"%s\"", bad[k]);
            rejected = false;
        }
    tap_ok(t, rejected && id.version == 7 && id.seed == 7 && id.index == 7,
           "malformed case ids are rejected and leave the id untouched");
    char buf[GEN_CASE_ID_SIZE];
    gen_case_id big = { UINT32_MAX, UINT64_MAX, UINT64_MAX };
    tap_ok(t, !strcmp(gen_format_case_id(&big, buf, sizeof buf),
                      "g4294967295:18446744073709551615:18446744073709551615")
                  && parses_to(buf, UINT32_MAX, UINT64_MAX, UINT64_MAX),
           "the longest id fits GEN_CASE_ID_SIZE and round-trips: %s", buf);
    gen_case_id legacy = { 0, 7, 49 };
    tap_ok(t, !strcmp(gen_format_case_id(&legacy, buf, sizeof buf), "7:49"),
           "a version-0 id formats bare: %s", buf);
}

/* The options text: stable spelling, equal exactly when gen_case would draw the same. */
static void test_options_text(tap *t)
{
    gen_options a, b;
    char ta[GEN_OPTIONS_TEXT_SIZE], tb[GEN_OPTIONS_TEXT_SIZE];
    gen_options_default(&a);
    tap_ok(t, !strcmp(gen_options_text(&a, ta, sizeof ta),
                      "feature-level=any max-elements=3145728 ops=any types=any reject-rate=20"),
           "default options text: %s", ta);
    b = a;
    b.version = 2;
    tap_ok(t, !strcmp(gen_options_text(&b, tb, sizeof tb),
                      "feature-level=any max-elements=4096 ops=any types=any reject-rate=20"),
           "generator version 2's default budget stays 4096: %s", tb);
    b = a;
    b.max_elements = 0; /* gen_case reads 0 as the default budget */
    b.op_mask = (1u << OP_COUNT) - 1;
    tap_ok(t, !strcmp(gen_options_text(&b, tb, sizeof tb), ta),
           "options that draw the same cases have the same text: %s", tb);
    b = a;
    b.feature_level = DML_FEATURE_LEVEL_4_1;
    b.op_mask = (1u << OP_ARGMIN) | (1u << OP_MAX_POOLING2);
    b.input_type_mask = (1u << DML_TENSOR_DATA_TYPE_FLOAT16) | (1u << DML_TENSOR_DATA_TYPE_UINT8);
    b.max_elements = 100;
    gen_options_text(&b, tb, sizeof tb);
    tap_ok(t, !strcmp(tb, "feature-level=4_1 max-elements=100 ops=argmin,max_pooling2 "
                          "types=FLOAT16,UINT8 reject-rate=20"),
           "restricted options text: %s", tb);
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    test_parse_case_id(&t);
    test_options_text(&t);
    test_determinism(&t);
    test_must_reject(&t);
    test_inputs_per_desc(&t);
    test_golden(&t);
    test_tier_golden(&t);
    test_coverage(&t);
    test_tiers(&t);
    test_deep_outputs(&t);
    test_filters(&t);
    test_types_agree_with_validator(&t);
    return tap_done(&t);
}
