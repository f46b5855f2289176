/*
 * gen_values.c: value distributions of the generator.  Every value is built as raw bits from
 * PRNG output with integer arithmetic (no floating point), so the same (seed, index) gives
 * the same bytes everywhere.  The input buffer is written in three passes:
 *   1. poison: every element slot of the buffer gets the value that would win the reduction
 *      (so a backend that reads a gap or the oversized tail shows it);
 *   2. body: logical elements in row-major order, each stored at its strided address;
 *      under broadcast each address is written once, by the first logical element there;
 *   3. stamps (extreme_at_both_ends only): the extreme value at the first and last position
 *      of every reduction group / pooling window; since version 4, in the long reductions
 *      of the size tiers (deep_winners), a tied pair of extremes deep inside instead (always
 *      for uniform and ties values, for half the outputs of extreme_at_both_ends; version 5
 *      places them per case: deep_plan).
 * Invariant: only addresses that belong to a logical element are written in passes 2 and 3.
 */
#include "gen_values.h"

#include "op_module.h"

#include <string.h>

#include "dtype.h"

/* IEEE binary formats by field width; bias is (1 << (exp - 1)) - 1. */
typedef struct float_fmt {
    unsigned man_bits, exp_bits;
} float_fmt;

/* How one case draws values: the type's shape plus the per-case parameters of `dist`. */
typedef struct value_source {
    DML_TENSOR_DATA_TYPE type;
    gen_distribution dist;
    bool is_float;
    float_fmt ff;       /* floats */
    unsigned esize;     /* bytes per element */
    unsigned bits;      /* integer width */
    bool is_signed;     /* integers */
    unsigned special;   /* share of "special" values out of 256 */
    unsigned alphabet_size;
    uint64_t alphabet[4];
    bool extreme_high;  /* the stamped extreme is the top (argmax, pooling) or the bottom */
    uint64_t extreme;   /* bits of the stamped extreme */
} value_source;

/* ---- Raw-bit constructors ------------------------------------------------------------ */

static uint64_t bit_mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

static uint64_t float_make(float_fmt f, uint64_t sign, uint64_t exp, uint64_t man)
{
    return (sign << (f.exp_bits + f.man_bits)) | (exp << f.man_bits) | (man & bit_mask(f.man_bits));
}

static uint64_t float_exp_max(float_fmt f) { return bit_mask(f.exp_bits); }
static uint64_t float_bias(float_fmt f) { return bit_mask(f.exp_bits - 1); }

/* A normal number of moderate magnitude (2^-10 .. 2^11) from 32 random bits: the mantissa
 * from the low bits, the exponent from bits 23-31. */
static uint64_t float_moderate(float_fmt f, uint64_t sign, uint32_t bits)
{
    uint64_t exp = float_bias(f) - 10 + (((uint64_t)(bits >> 23) * 21) >> 9);
    return float_make(f, sign, exp, bits);
}

static uint64_t float_inf(float_fmt f, uint64_t sign) { return float_make(f, sign, float_exp_max(f), 0); }

static uint64_t float_max_finite(float_fmt f, uint64_t sign)
{
    return float_make(f, sign, float_exp_max(f) - 1, bit_mask(f.man_bits));
}

/* A NaN from 32 random bits: quiet with a random payload, or signalling (quiet bit clear,
 * payload non-zero) one time in four. */
static uint64_t float_nan(float_fmt f, uint64_t sign, uint32_t bits)
{
    uint64_t quiet = 1ull << (f.man_bits - 1), payload = bits & (quiet - 1);
    uint64_t man = ((bits >> 24) & 3) == 0 ? (payload ? payload : 1) : (quiet | payload);
    return float_make(f, sign, float_exp_max(f), man);
}

/* A denormal (exponent field 0, mantissa non-zero) from 32 random bits. */
static uint64_t float_denormal(float_fmt f, uint64_t sign, uint32_t bits)
{
    uint64_t man = bits & bit_mask(f.man_bits);
    return float_make(f, sign, 0, man ? man : 1);
}

static uint64_t int_max_bits(const value_source *vs)
{
    return vs->is_signed ? bit_mask(vs->bits - 1) : bit_mask(vs->bits);
}

static uint64_t int_min_bits(const value_source *vs)
{
    return vs->is_signed ? 1ull << (vs->bits - 1) : 0;
}

/* The value that wins a max-like reduction (top) or a min-like one (bottom). */
static uint64_t top_bits(const value_source *vs, bool high)
{
    if (vs->is_float)
        return float_inf(vs->ff, !high);
    return high ? int_max_bits(vs) : int_min_bits(vs);
}

/* ---- Distributions ------------------------------------------------------------------- */

/* Each element costs one PRNG word w (integers wider than 32 bits draw a second one for
 * their value): bits 56-63 decide whether the value is "special", bit 55 is a sign, bits
 * 32-54 make a small choice (multiply-shift: integer-only and deterministic; its bias of
 * under n/2^23 does not matter for test data), bits 0-31 make the value. */
static bool w_special(uint64_t w, const value_source *vs) { return (w >> 56) < vs->special; }
static uint64_t w_sign(uint64_t w) { return (w >> 55) & 1; }
static unsigned w_choice(uint64_t w, unsigned n) { return (unsigned)((((w >> 32) & 0x7fffff) * n) >> 23); }

/* An ordinary value: a moderate normal float, or any integer of the type. */
static inline __attribute__((always_inline)) uint64_t ordinary(prng *p, const value_source *vs,
                                                               uint64_t w)
{
    if (vs->is_float)
        return float_moderate(vs->ff, w_sign(w), (uint32_t)w);
    return (vs->bits > 32 ? prng_next(p) : w) & bit_mask(vs->bits);
}

/* An ordinary value that is never the stamped extreme: for integers the draw is nudged one
 * step towards the middle (bits +-1 moves the value +-1 at both ends of every integer type);
 * moderate floats never reach the largest finite value. */
static uint64_t ordinary_below_extreme(prng *p, const value_source *vs, uint64_t w)
{
    uint64_t v = ordinary(p, vs, w);
    if (!vs->is_float && v == vs->extreme)
        v = vs->extreme_high ? v - 1 : v + 1;
    return v;
}

/* Type minimum, minimum + 1, maximum - 1, maximum, zero, or all bits set. */
static uint64_t int_extreme(const value_source *vs, uint64_t w)
{
    uint64_t lo = int_min_bits(vs), hi = int_max_bits(vs);
    uint64_t picks[] = { lo, lo + 1, hi - 1, hi, 0, bit_mask(vs->bits) };
    return picks[w_choice(w, sizeof picks / sizeof picks[0])];
}

/* Inlined into the row loops (one call per element was a third of filling an input). */
static inline __attribute__((always_inline)) uint64_t sample(prng *p, const value_source *vs)
{
    float_fmt f = vs->ff;
    uint64_t w = prng_next(p), sign = w_sign(w);
    switch (vs->dist) {
    case GEN_DIST_ties:
        return vs->alphabet[w_choice(w, vs->alphabet_size)];
    case GEN_DIST_all_equal:
        return vs->alphabet[0];
    case GEN_DIST_extreme_at_both_ends:
        return ordinary_below_extreme(p, vs, w);
    case GEN_DIST_signed_zero: /* D3: +0 and -0 tie. */
        return w_special(w, vs) ? float_make(f, sign, 0, 0) : ordinary(p, vs, w);
    case GEN_DIST_inf: /* D5: infinities are ordinary ordered values. */
        return w_special(w, vs) ? float_inf(f, sign) : ordinary(p, vs, w);
    case GEN_DIST_nan_some: /* D4 */
        return w_special(w, vs) ? float_nan(f, sign, (uint32_t)w) : ordinary(p, vs, w);
    case GEN_DIST_nan_all:
        return float_nan(f, sign, (uint32_t)w);
    case GEN_DIST_denormal: /* D6: denormals among signed zeros and moderate normals. */
        if (w_special(w, vs))
            return float_denormal(f, sign, (uint32_t)w);
        return w_choice(w, 2) ? float_make(f, sign, 0, 0) : ordinary(p, vs, w);
    case GEN_DIST_int_extremes:
        return w_special(w, vs) ? int_extreme(vs, w) : ordinary(p, vs, w);
    case GEN_DIST_uniform:
    case GEN_DIST_padding_window: /* the shape makes this case; values are uniform */
    default:
        return ordinary(p, vs, w);
    }
}

bool gen_distribution_applies(gen_distribution dist, op_id op, DML_TENSOR_DATA_TYPE t)
{
    switch (dist) {
    case GEN_DIST_signed_zero:
    case GEN_DIST_inf:
    case GEN_DIST_nan_some:
    case GEN_DIST_nan_all:
    case GEN_DIST_denormal:
        return dtype_is_float(t);
    case GEN_DIST_int_extremes:
        return !dtype_is_float(t);
    case GEN_DIST_padding_window:
        return op_table[op].module->has_padding;
    case GEN_DIST_must_reject:
        return false; /* a label set by gen_case, never a drawn distribution */
    default:
        return dist < GEN_DIST_COUNT;
    }
}

static void source_init(prng *p, gen_distribution dist, const dml_case *c, value_source *vs)
{
    static const unsigned special_shares[] = { 8, 48, 128, 224 };
    memset(vs, 0, sizeof *vs);
    vs->type = c->input.type;
    vs->dist = dist;
    vs->is_float = dtype_is_float(vs->type);
    vs->ff = vs->type == DML_TENSOR_DATA_TYPE_FLOAT16 ? (float_fmt){ 10, 5 } : (float_fmt){ 23, 8 };
    vs->esize = dtype_size(vs->type);
    vs->bits = vs->esize * 8;
    vs->is_signed = dtype_is_signed_int(vs->type);
    vs->special = special_shares[prng_below(p, 4)];
    vs->alphabet_size = 2 + (unsigned)prng_below(p, 3);
    for (unsigned i = 0; i < vs->alphabet_size; i++)
        vs->alphabet[i] = ordinary(p, vs, prng_next(p));
    vs->extreme_high = !(op_table[c->op].flags & OPF_MINIMIZES);
    if (vs->is_float)
        vs->extreme = float_max_finite(vs->ff, !vs->extreme_high);
    else
        vs->extreme = top_bits(vs, vs->extreme_high);
}

/* ---- Passes -------------------------------------------------------------------------- */

/* dtype_store_bits without the type lookup: this runs once per element. */
static inline __attribute__((always_inline)) void store(const value_source *vs, uint8_t *buf, uint64_t elem, uint64_t bits)
{
    switch (vs->esize) {
    case 1: buf[elem] = (uint8_t)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(buf + elem * 2, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(buf + elem * 4, &v, 4); break; }
    default: memcpy(buf + elem * 8, &bits, 8); break;
    }
}

/* Poisons every element slot no logical element owns.  When the logical elements fill
 * [0, span) exactly (no gaps, no stride 0: the generator's layouts never alias otherwise,
 * so span == element count means every slot below it is owned), only the slots past the
 * span are poisoned;
 * otherwise all of them, and pass 2 overwrites the owned ones.  Bytes after the last whole
 * slot are zeroed. */
static void poison_buffer(const value_source *vs, const tensor_view *v, uint8_t *buf, uint64_t bytes)
{
    uint64_t slots = bytes / vs->esize, poison = top_bits(vs, vs->extreme_high), span = 1;
    bool dense = true;
    for (unsigned d = 0; d < v->rank; d++) {
        span += (uint64_t)(v->sizes[d] - 1) * v->strides[d];
        dense &= v->strides[d] != 0 || v->sizes[d] == 1;
    }
    for (uint64_t i = dense && span == v->elements ? span : 0; i < slots; i++)
        store(vs, buf, i, poison);
    memset(buf + slots * vs->esize, 0, bytes - slots * vs->esize);
}

/* One row of the innermost dimension, with the element size fixed so the store inlines. */
#define FILL_ROW(T)                                                                           \
    for (uint64_t i = 0; i < n; i++) {                                                        \
        T value = (T)sample(p, vs);                                                            \
        memcpy(buf + (offset + i * stride) * sizeof(T), &value, sizeof(T));                   \
    }

static void fill_row(prng *p, const value_source *vs, uint8_t *buf, uint64_t offset, uint64_t n,
                     uint64_t stride)
{
    switch (vs->esize) {
    case 1: FILL_ROW(uint8_t) break;
    case 2: FILL_ROW(uint16_t) break;
    case 4: FILL_ROW(uint32_t) break;
    default: FILL_ROW(uint64_t) break;
    }
}

/* Logical elements in row-major order, one PRNG draw per written address, a row at a time.
 * Under broadcast only the first logical element at each address draws and writes (the one
 * whose stride-0 coordinates are all 0), and those elements in row-major order are exactly
 * the row-major walk of the view with every stride-0 dimension cut to size 1. */
static void fill_body(prng *p, const value_source *vs, const tensor_view *full, uint8_t *buf)
{
    uint32_t coords[DML_MAX_RANK] = { 0 };
    uint64_t offset = 0;
    if (full->rank == 0) {
        for (uint64_t i = 0; i < full->elements; i++)
            store(vs, buf, 0, sample(p, vs));
        return;
    }
    tensor_view distinct = *full;
    const tensor_view *v = &distinct;
    distinct.elements = 1;
    for (unsigned d = 0; d < distinct.rank; d++) {
        if (distinct.strides[d] == 0)
            distinct.sizes[d] = 1;
        distinct.elements *= distinct.sizes[d];
    }
    /* The row: the innermost dimension of size > 1, grown outwards while the next dimension
     * continues it in memory (stride == row stride * row length) or has size 1. */
    unsigned k = v->rank - 1;
    while (k > 0 && v->sizes[k] == 1)
        k--;
    uint64_t n = v->sizes[k], stride = v->strides[k];
    while (k > 0 && (v->sizes[k - 1] == 1 || v->strides[k - 1] == stride * n))
        n *= v->sizes[--k];
    tensor_view rows = *v; /* the outer dimensions, stepped once per row */
    for (unsigned d = k; d < v->rank; d++)
        rows.sizes[d] = 1;
    for (uint64_t done = 0; done < v->elements; done += n) {
        fill_row(p, vs, buf, offset, n, stride);
        tensor_view_step(&rows, coords, &offset);
    }
}

/* ---- Winners deep inside long reductions (versions 4 and 5) ---------------------------- */

/* How far from an end a deep winner sits: past what a 16-bit index or rank can count. */
#define DEEP_WINNER_DISTANCE (UINT64_C(1) << 16)
/* Chunk sizes the tied pair is placed for: 2^12 to 2^16 elements (work-groups, tiles). */
#define DEEP_CHUNK_LOG2_MIN 12
#define DEEP_CHUNK_LOG2_SPAN 5

/* How one case places its deep pairs.  Version 4 draws every output's pair alone (its chunk
 * size, its multiple of it, and under DECREASING a coin for the end it is far from).
 * Version 5 draws the chunk size once per case and gives output i the (start + i)-th
 * multiple of it that fits, so consecutive outputs' winners lie in different chunks (a
 * split-merge race or a chunk shared between outputs shows), and alternates the end a
 * DECREASING winner is far from, from a coin drawn per case, so that a case of several
 * outputs fails both a 16-bit index (counted from the start) and a 16-bit rank (counted from
 * the end a DECREASING scan starts at). */
typedef struct deep_plan {
    gen_deep_winners version;
    unsigned chunk_log2;   /* version 5 */
    uint64_t start;        /* version 5: the first output's multiple, before it is reduced */
    bool far_from_end;     /* version 5: where output 0's DECREASING winner goes */
} deep_plan;

static void deep_plan_draw(prng *p, gen_deep_winners version, deep_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->version = version;
    if (version != GEN_DEEP_WINNERS_V5)
        return;
    plan->chunk_log2 = DEEP_CHUNK_LOG2_MIN + (unsigned)prng_below(p, DEEP_CHUNK_LOG2_SPAN);
    plan->start = prng_next(p);
    plan->far_from_end = prng_chance(p, 1, 2);
}

/* Whether output `output`'s DECREASING winner in a reduction too short to be far from both
 * ends is far from its end (else from its start). */
static bool deep_far_from_end(prng *p, const deep_plan *plan, uint64_t output)
{
    if (plan->version == GEN_DEEP_WINNERS_V5)
        return plan->far_from_end ^ (output & 1);
    return !prng_chance(p, 1, 2);
}

/* A tied pair of positions first < second in a reduction of `length` elements: second is a
 * multiple of 2^j and first = second - d with d odd and below 2^j, so for every
 * power-of-two chunk size up to 2^j the two lie in different chunks and the later one has
 * the lower rank within its chunk (a merge that breaks ties by that rank takes the wrong
 * one in either direction).  Both lie 2^16 or more from both ends when the reduction is
 * long enough (2^17 + 2^12 elements, version 5: 2^17 + 2^13), else from the start when the
 * winner is the first (INCREASING: a 16-bit index or rank counts from there), and under
 * DECREASING from the end deep_far_from_end says (a 16-bit index counts from the start, a
 * 16-bit rank from the end).  j is drawn (version 5: the plan's), then lowered until a pair
 * fits; false when none does. */
static bool draw_deep_pair(prng *p, const deep_plan *plan, uint64_t output, uint64_t length,
                           bool decreasing, uint64_t *first, uint64_t *second)
{
    uint64_t lo = 0, hi = length; /* first >= lo, second < hi */
    /* Version 4's margin holds no multiple of 2^12 between 2^16 and length - 2^16 when the
     * length is 2^17 + 2^12 exactly; version 5's always holds one. */
    uint64_t margin = (plan->version == GEN_DEEP_WINNERS_V5 ? 2 : 1) << DEEP_CHUNK_LOG2_MIN;
    if (length >= 2 * DEEP_WINNER_DISTANCE + margin) {
        lo = DEEP_WINNER_DISTANCE;
        hi = length - DEEP_WINNER_DISTANCE;
    } else if (length > DEEP_WINNER_DISTANCE) {
        if (decreasing && deep_far_from_end(p, plan, output))
            hi = length - DEEP_WINNER_DISTANCE;
        else
            lo = DEEP_WINNER_DISTANCE;
    }
    unsigned j = plan->version == GEN_DEEP_WINNERS_V5
                 ? plan->chunk_log2
                 : DEEP_CHUNK_LOG2_MIN + (unsigned)prng_below(p, DEEP_CHUNK_LOG2_SPAN);
    for (; j > 0; j--) {
        uint64_t step = UINT64_C(1) << j;
        uint64_t m_lo = (lo + 2 * step - 2) / step, m_hi = (hi - 1) / step;
        m_lo = m_lo ? m_lo : 1;
        if (m_lo <= m_hi) {
            uint64_t count = m_hi - m_lo + 1;
            uint64_t m = plan->version == GEN_DEEP_WINNERS_V5 ? (plan->start + output) % count
                                                              : prng_below(p, count);
            *second = (m_lo + m) * step;
            *first = *second - (1 + 2 * prng_below(p, step / 2));
            return true;
        }
    }
    return false;
}

/* The tied pair for output element oc (the output-th), stamped with the extreme; false when
 * none fits. */
static bool stamp_deep_pair(prng *p, const deep_plan *plan, const value_source *vs,
                            const dml_case *c, const tensor_view *in, const uint32_t *oc,
                            uint64_t output, uint64_t length, uint8_t *buf)
{
    uint64_t pos[2];
    bool decreasing = c->direction == DML_AXIS_DIRECTION_DECREASING;
    if (!draw_deep_pair(p, plan, output, length, decreasing, &pos[0], &pos[1]))
        return false;
    for (unsigned k = 0; k < 2; k++) {
        uint32_t ic[DML_MAX_RANK];
        if (case_module(c)->input_of_index(c, oc, pos[k], ic))
            store(vs, buf, tensor_view_offset_coords(in, ic), vs->extreme);
    }
    return true;
}

/* Per output element: with deep winners a tied pair deep inside its reduction (half the
 * outputs of extreme_at_both_ends, `ends`, keep the ends, where a dropped last chunk shows),
 * else for extreme_at_both_ends the first and last input element deciding it get the extreme: for
 * ARGMIN/ARGMAX, INCREASING and DECREASING must then pick different indices (D3); for
 * pooling the first one wins and a backend scanning backwards picks the last.  Every store
 * writes the same value, so the order of the walk does not matter. */
static void stamp_winners(prng *p, const value_source *vs, const dml_case *c, const tensor_view *in,
                          gen_deep_winners deep_winners, bool ends, uint8_t *buf)
{
    const op_module *m = case_module(c);
    tensor_view out;
    case_tensor_view(&c->output, &out);
    uint64_t length = out.elements ? in->elements / out.elements : 0;
    uint32_t oc[DML_MAX_RANK] = { 0 };
    deep_plan plan;
    deep_plan_draw(p, deep_winners, &plan);
    for (uint64_t i = 0; i < out.elements; i++) {
        uint64_t first, last;
        bool deep = deep_winners && (!ends || prng_chance(p, 1, 2))
                    && stamp_deep_pair(p, &plan, vs, c, in, oc, i, length, buf);
        if (!deep && ends && m->decider_ends(c, in, oc, &first, &last)) {
            store(vs, buf, first, vs->extreme);
            store(vs, buf, last, vs->extreme);
        }
        uint64_t unused = 0;
        tensor_view_step(&out, oc, &unused);
    }
}

bool gen_deep_winners_apply(gen_distribution dist)
{
    return dist == GEN_DIST_uniform || dist == GEN_DIST_ties || dist == GEN_DIST_extreme_at_both_ends;
}

/* Under deep_winners no drawn value may equal the stamped extreme, or an earlier one would
 * win: uniform values are drawn as extreme_at_both_ends's (the same draws, an integer equal
 * to the extreme nudged one step), and a ties alphabet's such letter is nudged the same way. */
static void keep_body_below_extreme(value_source *vs)
{
    if (vs->dist == GEN_DIST_uniform)
        vs->dist = GEN_DIST_extreme_at_both_ends;
    for (unsigned i = 0; !vs->is_float && i < vs->alphabet_size; i++)
        if (vs->alphabet[i] == vs->extreme)
            vs->alphabet[i] = vs->extreme_high ? vs->extreme - 1 : vs->extreme + 1;
}

void gen_fill_input(prng *p, gen_distribution dist, gen_deep_winners deep_winners, dml_case *c)
{
    value_source vs;
    tensor_view in;
    source_init(p, dist, c, &vs);
    if (!gen_deep_winners_apply(dist) || !case_module(c)->output_is_index)
        deep_winners = GEN_DEEP_WINNERS_NONE;
    if (deep_winners)
        keep_body_below_extreme(&vs);
    case_tensor_view(&c->input, &in);
    poison_buffer(&vs, &in, c->input_data, case_tensor_bytes(&c->input));
    fill_body(p, &vs, &in, c->input_data);
    if (dist == GEN_DIST_extreme_at_both_ends || deep_winners)
        stamp_winners(p, &vs, c, &in, deep_winners, dist == GEN_DIST_extreme_at_both_ends,
                      c->input_data);
}
