/*
 * test_shrink.c: the shrinker keeps what a bug needs (issue 11).  Simulated backends whose
 * bug shows only with a strided, broadcast, padded or permuted input, or with ceil-sized
 * pooling outputs, fail on generated cases; shrinking each must end in a small case that
 * still fails and still has that layout.  A shrinker that packs the case first, or derives
 * output sizes with the floor formula, ends where it started (no candidate fails).
 * Also: every generated layout (of a valid case) round-trips through layout_describe / layout_apply, so the
 * generator and the shrinker speak of the same layouts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "gen.h"
#include "layout.h"
#include "op_module.h"
#include "reference.h"
#include "shrink.h"
#include "tap.h"

#define SEED 20261123u

static bool same_layout(const case_tensor *t)
{
    tensor_layout l;
    if (!layout_describe(t, &l))
        return false;
    case_tensor u = *t;
    layout_apply(&l, &u);
    return u.has_strides == t->has_strides && u.has_total_bytes == t->has_total_bytes
        && (!t->has_total_bytes || u.total_bytes == t->total_bytes)
        && (!t->has_strides || !memcmp(u.strides, t->strides, sizeof(UINT) * t->rank));
}

static void test_round_trip(tap *t)
{
    gen_options opt;
    gen_options_default(&opt);
    unsigned bad = 0, checked = 0;
    for (uint64_t i = 0; i < 3000; i++) {
        dml_case c;
        gen_info info;
        dmlc_error err;
        case_init(&c);
        if (gen_case(SEED, i, &opt, &c, &info, &err) && !c.must_reject) {
            bool ok = same_layout(&c.input) && same_layout(&c.output)
                   && (!c.indices.present || same_layout(&c.indices));
            if (!ok && bad++ < 3)
                tap_diag("case g3:%u:%llu: a layout does not round-trip", SEED, (unsigned long long)i);
            checked++;
        }
        case_free(&c);
    }
    tap_ok(t, bad == 0 && checked > 2800, "layout_describe/layout_apply reproduce the strides and "
           "sizes of %u generated cases' tensors (%u do not)", checked, bad);
}

/* A backend that ignores the input's strides: it reads the buffer as a packed tensor. */
static bool ignores_strides_fails(const dml_case *c, void *ctx)
{
    (void)ctx;
    dml_case packed;
    if (!c->input.has_strides || !case_copy(&packed, c))
        return false;
    packed.input.has_strides = false;
    packed.input.has_total_bytes = false;
    case_link(&packed);
    uint64_t have = case_tensor_bytes(&c->input), need = case_tensor_bytes(&packed.input);
    uint8_t *bytes = calloc(1, need + 1);
    memcpy(bytes, c->input_data, have < need ? have : need);
    free(packed.input_data);
    packed.input_data = bytes;
    exec_options exec = { 0 };
    case_outputs right = { 0 }, wrong = { 0 };
    bool differ = false;
    if (case_outputs_alloc(&right, c) && case_outputs_alloc(&wrong, c)) {
        ref_run(c, &exec, &right);
        ref_run(&packed, &exec, &wrong);
        differ = memcmp(right.output, wrong.output, right.output_bytes) != 0
              || (right.indices && memcmp(right.indices, wrong.indices, right.indices_bytes) != 0);
    }
    case_outputs_free(&right);
    case_outputs_free(&wrong);
    case_free(&packed);
    return differ;
}

/* A backend that can only write floor-sized pooling outputs. */
static bool rejects_ceil_fails(const dml_case *c, void *ctx)
{
    (void)ctx;
    UINT rank, floor_sizes[DML_MAX_RANK];
    return case_module(c)->output_sizes(c, false, &rank, floor_sizes)
        && memcmp(floor_sizes, c->output.sizes, sizeof(UINT) * rank) != 0;
}

static bool has_broadcast(const dml_case *c)
{
    for (unsigned d = 0; d < c->input.rank; d++)
        if (c->input.has_strides && c->input.strides[d] == 0 && c->input.sizes[d] > 1)
            return true;
    return false;
}

static bool has_gap(const dml_case *c)
{
    tensor_layout l;
    if (!layout_describe(&c->input, &l))
        return false;
    for (unsigned d = 0; d < c->input.rank; d++)
        if (l.pad[d])
            return true;
    return l.explicit_strides && l.pitch > 1;
}

static bool is_permuted(const dml_case *c)
{
    tensor_layout l;
    return layout_describe(&c->input, &l) && layout_is_permuted(&l, c->input.rank);
}

static bool always(const dml_case *c)
{
    (void)c;
    return true;
}

typedef struct scenario {
    const char *name;
    unsigned op_mask;
    gen_layout layout;           /* generated input layout to start from; GEN_LAYOUT_COUNT: any */
    shrink_predicate fails;
    bool (*keeps)(const dml_case *c);
    uint64_t max_elements;       /* the shrunk case has at most this many input elements */
} scenario;

static void shrink_scenario(tap *t, const scenario *sc)
{
    gen_options opt;
    gen_options_default(&opt);
    opt.op_mask = sc->op_mask;
    opt.max_elements = 4096;
    opt.reject_per_mille = 0;
    opt.input_type_mask = 1u << DML_TENSOR_DATA_TYPE_FLOAT32;
    unsigned found = 0, good = 0;
    for (uint64_t i = 0; i < 20000 && found < 4; i++) {
        dml_case c, small;
        gen_info info;
        dmlc_error err;
        case_init(&c);
        if (!gen_case(SEED, i, &opt, &c, &info, &err)
            || (sc->layout != GEN_LAYOUT_COUNT && info.layout != sc->layout)
            || case_tensor_elements(&c.input) < 32 || !sc->fails(&c, NULL)) {
            case_free(&c);
            continue;
        }
        found++;
        case_init(&small);
        shrink_stats st;
        bool ok = shrink_case(&c, sc->fails, NULL, 2000, &small, &st);
        uint64_t before = case_tensor_elements(&c.input), after = case_tensor_elements(&small.input);
        ok = ok && sc->fails(&small, NULL) && sc->keeps(&small) && after <= sc->max_elements;
        good += ok;
        tap_diag("%s: case g3:%u:%llu, %llu -> %llu input elements (rank %u) in %u tries%s",
                 sc->name, SEED, (unsigned long long)i, (unsigned long long)before,
                 (unsigned long long)after, small.input.rank, st.tried, ok ? "" : ": NOT SHRUNK AS REQUIRED");
        case_free(&small);
        case_free(&c);
    }
    tap_ok(t, found == 4 && good == found, "%s: %u of %u failing cases shrink to <= %llu input "
           "elements keeping what the bug needs", sc->name, good, found,
           (unsigned long long)sc->max_elements);
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    test_round_trip(&t);
    const unsigned arg = (1u << OP_ARGMIN) | (1u << OP_ARGMAX), pool = 1u << OP_MAX_POOLING2;
    const scenario scenarios[] = {
        { "strides ignored, broadcast input (stride 0)", arg, GEN_LAYOUT_broadcast,
          ignores_strides_fails, has_broadcast, 4 },
        { "strides ignored, padded input", arg, GEN_LAYOUT_padded, ignores_strides_fails, has_gap, 4 },
        { "strides ignored, permuted input", arg, GEN_LAYOUT_permuted, ignores_strides_fails,
          is_permuted, 8 },
        { "strides ignored, permuted pooling input", pool, GEN_LAYOUT_permuted,
          ignores_strides_fails, is_permuted, 8 },
        { "ceil-sized pooling outputs refused", pool, GEN_LAYOUT_COUNT, rejects_ceil_fails, always, 6 },
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        shrink_scenario(&t, &scenarios[i]);
    return tap_done(&t);
}
