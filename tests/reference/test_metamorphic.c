/*
 * test_metamorphic.c: relations the reference must satisfy whatever the data:
 *   - layouts: packed, padded, permuted and broadcast input strides holding the same logical
 *     data give identical outputs (SEMANTICS D1), and padded output strides change nothing
 *     but where elements land (bytes between them keep the canary);
 *   - DECREASING on x equals INCREASING on x with every reduced axis reversed, index mapped
 *     back (i -> R-1-i);
 *   - argmin(x) = argmax(-x) where negation is exact (floats: sign flip; signed integers
 *     with the minimum excluded);
 *   - MAX_POOLING2: every output equals the input at its returned index, bit for bit.
 * Usage: test_metamorphic [SEED].
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_builder.h"
#include "dtype.h"
#include "prng.h"
#include "ref_check.h"
#include "reference.h"
#include "tap.h"
#include "value_pool.h"

#define DEFAULT_SEED 777u
#define ROUNDS 150

typedef struct shape {
    unsigned rank;
    UINT sizes[DML_MAX_RANK];
    bool broadcast[DML_MAX_RANK]; /* data constant along this dimension */
} shape;

typedef enum layout { LAYOUT_PACKED, LAYOUT_PADDED, LAYOUT_PERMUTED, LAYOUT_BROADCAST, LAYOUT_COUNT } layout;
static const char *const layout_names[] = { "packed", "padded", "permuted", "broadcast" };

/* Input strides for a layout; false for packed. */
static bool layout_strides(prng *p, const shape *s, layout l, UINT *strides)
{
    if (l == LAYOUT_PACKED)
        return false;
    unsigned order[DML_MAX_RANK];
    for (unsigned i = 0; i < s->rank; i++)
        order[i] = i;
    if (l == LAYOUT_PERMUTED)
        for (unsigned i = s->rank; i > 1; i--) {
            unsigned j = (unsigned)prng_below(p, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    UINT next = l == LAYOUT_PADDED ? 2 : 1;
    for (unsigned k = s->rank; k-- > 0;) {
        strides[order[k]] = next;
        next = next * s->sizes[order[k]] + (l == LAYOUT_PADDED ? 1 + (UINT)prng_below(p, 2) : 0);
    }
    if (l == LAYOUT_BROADCAST)
        for (unsigned i = 0; i < s->rank; i++)
            if (s->broadcast[i])
                strides[i] = 0;
    return true;
}

/* Logical data constant along the shape's broadcast dimensions. */
static uint64_t *make_data(prng *p, const shape *s, DML_TENSOR_DATA_TYPE type)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < s->rank; i++)
        n *= s->sizes[i];
    uint64_t *data = calloc(n, sizeof *data), picks[4];
    if (!data)
        abort();
    value_pool_pick(type, p, 4, picks);
    unsigned distinct = 1 + (unsigned)prng_below(p, 4);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t rest = i, source = 0, weight = 1;
        for (unsigned d = s->rank; d-- > 0;) {
            uint64_t coord = rest % s->sizes[d];
            rest /= s->sizes[d];
            source += (s->broadcast[d] ? 0 : coord) * weight;
            weight *= s->sizes[d];
        }
        data[i] = source == i ? picks[prng_below(p, distinct)] : data[source];
    }
    return data;
}

static void fill(dml_case *c, const uint64_t *data)
{
    cb_alloc_input(c);
    for (uint64_t i = 0; i < case_tensor_elements(&c->input); i++)
        cb_set_input(c, i, data[i]);
}

static bool same_arrays(const uint64_t *a, const uint64_t *b, uint64_t n)
{
    return !memcmp(a, b, n * sizeof *a);
}

/* Runs c with padded output strides and checks the elements match `expected` and every
 * byte between elements still holds the canary. */
static bool padded_output_agrees(dml_case *c, const exec_options *opt, const uint64_t *expected)
{
    UINT strides[DML_MAX_RANK];
    UINT next = 2;
    for (unsigned k = c->output.rank; k-- > 0;) {
        strides[k] = next;
        next = next * c->output.sizes[k] + 1;
    }
    cb_set_output_strides(c, strides, NULL);
    case_outputs o;
    if (!case_outputs_alloc(&o, c))
        abort();
    ref_run(c, opt, &o);
    unsigned bytes = dtype_size(c->output.type);
    uint8_t *owned = calloc(o.output_bytes, 1);
    bool ok = owned != NULL;
    tensor_view v;
    case_tensor_view(&c->output, &v);
    for (uint64_t i = 0; ok && i < v.elements; i++) {
        ok = cb_output_at(c, &o, i) == expected[i];
        memset(owned + tensor_view_offset(&v, i) * bytes, 1, bytes);
    }
    for (uint64_t b = 0; ok && b < o.output_bytes; b++)
        ok = owned[b] || o.output[b] == CASE_CANARY_BYTE;
    free(owned);
    case_outputs_free(&o);
    return ok;
}

typedef struct tally {
    unsigned cases, failures;
    char first[4096];
} tally;

static void tally_case(tally *t, bool ok, const dml_case *c, const char *what)
{
    t->cases++;
    if (!ok && !t->failures++) {
        int n = snprintf(t->first, sizeof t->first, "%s: ", what);
        describe_case(c, t->first + n, sizeof t->first - (size_t)n);
    }
}

static void tally_report(tap *t, tally *y, const char *replay, const char *name)
{
    if (y->failures)
        tap_diag("%u of %u cases break the relation; first: %s\n# replay: %s", y->failures,
                 y->cases, y->first, replay);
    tap_ok(t, y->cases > 0 && !y->failures, "%s (%u cases)", name, y->cases);
    memset(y, 0, sizeof *y);
}

static void random_shape(prng *p, shape *s, unsigned max_rank)
{
    s->rank = 1 + (unsigned)prng_below(p, max_rank);
    for (unsigned i = 0; i < s->rank; i++) {
        s->sizes[i] = 1 + (UINT)prng_below(p, 4);
        s->broadcast[i] = prng_chance(p, 1, 4);
    }
}

/* Reverses every reduced axis of logical data. */
static void reverse_reduced(const shape *s, const bool *reduced, const uint64_t *in, uint64_t *out)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < s->rank; i++)
        n *= s->sizes[i];
    for (uint64_t i = 0; i < n; i++) {
        uint64_t rest = i, target = 0, weight = 1;
        for (unsigned d = s->rank; d-- > 0;) {
            uint64_t coord = rest % s->sizes[d];
            rest /= s->sizes[d];
            target += (reduced[d] ? s->sizes[d] - 1 - coord : coord) * weight;
            weight *= s->sizes[d];
        }
        out[target] = in[i];
    }
}

/* Exact negation of raw bits: sign flip for floats; two's complement for signed integers
 * (the caller keeps the minimum out). */
static uint64_t negate_bits(DML_TENSOR_DATA_TYPE type, uint64_t bits)
{
    unsigned size = dtype_size(type);
    uint64_t mask = size == 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT32)
        return bits ^ 0x80000000u;
    if (type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return bits ^ 0x8000u;
    return (0 - bits) & mask;
}

static void arg_relations(tap *t, uint64_t seed, const char *replay)
{
    tally layouts = { 0 }, outputs = { 0 }, reversed = { 0 }, negated = { 0 };
    for (unsigned ti = 0; ti < ARG_INPUT_TYPE_COUNT; ti++) {
        DML_TENSOR_DATA_TYPE type = arg_input_types[ti];
        prng p;
        prng_seed2(&p, seed, prng_hash_str(dtype_stem(type)));
        for (unsigned round = 0; round < ROUNDS; round++) {
            shape s;
            random_shape(&p, &s, 4);
            UINT axes[DML_MAX_RANK];
            bool reduced[DML_MAX_RANK] = { false };
            unsigned count = 0;
            uint64_t mask = 1 + prng_below(&p, (1u << s.rank) - 1);
            for (unsigned a = 0; a < s.rank; a++)
                if (mask & (1u << a)) {
                    axes[count++] = a;
                    reduced[a] = true;
                }
            exec_options opt = { prng_chance(&p, 1, 2) ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
            op_id op = prng_chance(&p, 1, 2) ? OP_ARGMAX : OP_ARGMIN;
            DML_TENSOR_DATA_TYPE out_type = arg_output_types[prng_below(&p, ARG_OUTPUT_TYPE_COUNT)];
            uint64_t *data = make_data(&p, &s, type);

            /* Layouts. */
            uint64_t *base_out = NULL;
            for (layout l = 0; l < LAYOUT_COUNT; l++) {
                UINT strides[DML_MAX_RANK];
                bool strided = layout_strides(&p, &s, l, strides);
                dml_case c;
                cb_arg_case(&c, op, type, s.rank, s.sizes, strided ? strides : NULL, count, axes,
                            DML_AXIS_DIRECTION_INCREASING, out_type);
                fill(&c, data);
                uint64_t *out, *idx;
                ref_logical(&c, &opt, &out, &idx);
                if (!base_out) {
                    base_out = out;
                    tally_case(&outputs, padded_output_agrees(&c, &opt, base_out), &c,
                               "padded output strides");
                } else {
                    tally_case(&layouts, same_arrays(base_out, out, case_tensor_elements(&c.output)),
                               &c, layout_names[l]);
                    free(out);
                }
                free(idx);
                case_free(&c);
            }

            /* DECREASING(x) == R-1 - INCREASING(reverse(x)). */
            uint64_t total = 1, reduced_count = 1;
            for (unsigned a = 0; a < s.rank; a++) {
                total *= s.sizes[a];
                if (reduced[a])
                    reduced_count *= s.sizes[a];
            }
            uint64_t *rev = calloc(total, sizeof *rev);
            if (!rev)
                abort();
            reverse_reduced(&s, reduced, data, rev);
            dml_case dec, inc;
            cb_arg_case(&dec, op, type, s.rank, s.sizes, NULL, count, axes, DML_AXIS_DIRECTION_DECREASING, out_type);
            cb_arg_case(&inc, op, type, s.rank, s.sizes, NULL, count, axes, DML_AXIS_DIRECTION_INCREASING, out_type);
            fill(&dec, data);
            fill(&inc, rev);
            uint64_t *dec_out, *inc_out, *unused;
            ref_logical(&dec, &opt, &dec_out, &unused);
            ref_logical(&inc, &opt, &inc_out, &unused);
            bool ok = true;
            for (uint64_t i = 0; i < case_tensor_elements(&dec.output); i++)
                ok &= dec_out[i] == reduced_count - 1 - inc_out[i];
            tally_case(&reversed, ok, &dec, "DECREASING vs reversed INCREASING");
            free(dec_out);
            free(inc_out);
            case_free(&inc);

            /* argmin(x) == argmax(-x), negation exact. */
            if (dtype_is_float(type) || dtype_is_signed_int(type)) {
                uint64_t lowest = dtype_lowest_bits(type);
                dml_case mn, mx;
                cb_arg_case(&mn, OP_ARGMIN, type, s.rank, s.sizes, NULL, count, axes, dec.direction, out_type);
                cb_arg_case(&mx, OP_ARGMAX, type, s.rank, s.sizes, NULL, count, axes, dec.direction, out_type);
                cb_alloc_input(&mn);
                cb_alloc_input(&mx);
                for (uint64_t i = 0; i < total; i++) {
                    uint64_t v = data[i];
                    if (!dtype_is_float(type) && v == lowest)
                        v += 1; /* the minimum has no exact negation */
                    cb_set_input(&mn, i, v);
                    cb_set_input(&mx, i, negate_bits(type, v));
                }
                uint64_t *min_out, *max_out;
                ref_logical(&mn, &opt, &min_out, &unused);
                ref_logical(&mx, &opt, &max_out, &unused);
                tally_case(&negated, same_arrays(min_out, max_out, case_tensor_elements(&mn.output)),
                           &mn, "argmin(x) vs argmax(-x)");
                free(min_out);
                free(max_out);
                case_free(&mn);
                case_free(&mx);
            }
            case_free(&dec);
            free(rev);
            free(base_out);
            free(data);
        }
    }
    tally_report(t, &layouts, replay, "arg_layouts_agree");
    tally_report(t, &outputs, replay, "arg_padded_output_strides");
    tally_report(t, &reversed, replay, "arg_decreasing_is_reversed_increasing");
    tally_report(t, &negated, replay, "argmin_is_argmax_of_negation");
}

static void pool_relations(tap *t, uint64_t seed, const char *replay)
{
    tally layouts = { 0 }, picked = { 0 };
    for (unsigned ti = 0; ti < POOL_TYPE_COUNT; ti++) {
        DML_TENSOR_DATA_TYPE type = pool_types[ti];
        prng p;
        prng_seed2(&p, seed, prng_hash_str(dtype_stem(type)) ^ 0x900d);
        for (unsigned round = 0; round < ROUNDS; round++) {
            shape s;
            s.rank = 4 + (unsigned)prng_below(&p, 2);
            cb_pool_axis axes[3];
            UINT out_sizes[3];
            bool valid = true;
            for (unsigned d = 0; d < s.rank; d++) {
                s.sizes[d] = 1 + (UINT)prng_below(&p, d < 2 ? 2 : 5);
                s.broadcast[d] = prng_chance(&p, 1, 4);
            }
            for (unsigned k = 0; k < s.rank - 2; k++) {
                axes[k] = (cb_pool_axis){ 1 + (UINT)prng_below(&p, 3), 1 + (UINT)prng_below(&p, 2),
                                          (UINT)prng_below(&p, 2), (UINT)prng_below(&p, 2),
                                          1 + (UINT)prng_below(&p, 2) };
                out_sizes[k] = cb_pool_out_size(s.sizes[2 + k], &axes[k], false);
                valid &= out_sizes[k] != 0;
            }
            if (!valid)
                continue;
            exec_options opt = { prng_chance(&p, 1, 2) ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false };
            uint64_t *data = make_data(&p, &s, type);
            uint64_t *base_out = NULL, *base_idx = NULL;
            for (layout l = 0; l < LAYOUT_COUNT; l++) {
                UINT strides[DML_MAX_RANK];
                bool strided = layout_strides(&p, &s, l, strides);
                dml_case c;
                cb_pool_case(&c, type, s.rank, s.sizes, strided ? strides : NULL, axes, out_sizes,
                             DML_TENSOR_DATA_TYPE_UINT64);
                fill(&c, data);
                uint64_t *out, *idx;
                unsigned classes = ref_logical(&c, &opt, &out, &idx);
                uint64_t n = case_tensor_elements(&c.output);
                if (!base_out) {
                    base_out = out;
                    base_idx = idx;
                    bool ok = true;
                    for (uint64_t i = 0; i < n; i++)
                        ok &= idx[i] == UINT64_MAX ? (classes & CASE_CLASS_PADDING_WINDOW) != 0
                                                   : out[i] == data[idx[i]];
                    tally_case(&picked, ok, &c, "output is the input at its index");
                } else {
                    tally_case(&layouts, same_arrays(base_out, out, n) && same_arrays(base_idx, idx, n),
                               &c, layout_names[l]);
                    free(out);
                    free(idx);
                }
                case_free(&c);
            }
            free(base_out);
            free(base_idx);
            free(data);
        }
    }
    tally_report(t, &layouts, replay, "max_pooling2_layouts_agree");
    tally_report(t, &picked, replay, "max_pooling2_output_is_input_at_index");
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : DEFAULT_SEED;
    char replay[512];
    snprintf(replay, sizeof replay, "%s %" PRIu64, argv[0], seed);
    tap t;
    tap_plan(&t, 0);
    tap_diag("seed %" PRIu64 "; replay with: %s", seed, replay);
    arg_relations(&t, seed, replay);
    pool_relations(&t, seed, replay);
    return tap_done(&t);
}
