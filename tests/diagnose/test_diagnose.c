/*
 * test_diagnose.c: diagnosis by probing (diagnose/, docs/DIAGNOSIS.md) measured on a
 * plug-in's planted bugs, in this process: the example plug-in's (FLOAT32) or the typed test
 * plug-in's (tests/diagnose/typed_plugin.c, every input type).  For each planted bug: failing
 * cases drawn by the generator on two seeds, each diagnosed through an asker that runs the
 * plug-in; the planted root cause must be confirmed, and no diagnosis of any planted bug may
 * confirm a cause it does not have.  A conformant backend and an asker that answers garbage
 * must leave every failure undiagnosed, and the variant oracle with no hook must be the
 * reference.
 *
 * Usage: test_diagnose example|typed PLUGIN.so [SEEDS [FIRST]]: SEEDS (default 2) seeds
 * searched per planted bug, from seed FIRST (default 1) on, for measuring on more seeds than
 * the suite runs, or on seeds no test uses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "compare.h"
#include "diagnose.h"
#include "dtype.h"
#include "gen.h"
#include "op_module.h"
#include "probe.h"
#include "reference.h"
#include "scan.h"
#include "tap.h"
#include "validate.h"

/* Failing cases diagnosed per planted bug and seed. */
#define FAILS_PER_SEED 2
/* Cases drawn per seed while looking for failures. */
#define SEARCH_CASES 3000

typedef struct planted_bug {
    const char *arg;   /* bug=ARG of the plug-in */
    const char *cause; /* the catalogue id it must be confirmed as */
    unsigned ops;      /* operators whose cases can show it */
    uint32_t types;    /* input types whose cases can show it */
    /* Why some failing cases of it stay undiagnosed (a known probe weakness: those lines are
     * TAP TODOs), or NULL: every one must be confirmed. */
    const char *weak;
} planted_bug;

#define ARG_OPS ((1u << OP_ARGMIN) | (1u << OP_ARGMAX))
#define POOL_OPS ((1u << OP_MAX_POOLING1) | (1u << OP_MAX_POOLING2))
#define TYPE(t) (1u << DML_TENSOR_DATA_TYPE_##t)
#define F32 TYPE(FLOAT32)
#define FLOATS (TYPE(FLOAT32) | TYPE(FLOAT16))
#define UNSIGNED (TYPE(UINT8) | TYPE(UINT16) | TYPE(UINT32) | TYPE(UINT64))
#define SIGNED_INTS (TYPE(INT8) | TYPE(INT16) | TYPE(INT32) | TYPE(INT64))
#define ALL_TYPES (FLOATS | UNSIGNED | SIGNED_INTS)

/* The example plug-in's root causes (examples/plugin/example_plugin.c), FLOAT32 only. */
static const planted_bug example_bugs[] = {
    { "ties", "tie_direction_flipped", ARG_OPS, F32, NULL },
    { "signed_zero", "signed_zero_not_tied", ARG_OPS | POOL_OPS, F32, NULL },
    { "float_bits", "float_compared_as_int_bits", ARG_OPS | POOL_OPS, F32, NULL },
    { "seed_lowest", "best_seeded_with_lowest_finite", ARG_OPS | POOL_OPS, F32, NULL },
    { "nan_sticky", "nan_first_sticky", ARG_OPS | POOL_OPS, F32, NULL },
    { "strides", "input_strides_ignored", ARG_OPS | POOL_OPS, F32, NULL },
    { "out_strides", "output_strides_ignored", ARG_OPS | POOL_OPS, F32, NULL },
    { "axes_order", "axes_in_listed_order", ARG_OPS, F32, NULL },
    { "column_major", "reduced_index_column_major", ARG_OPS, F32, NULL },
    { "padding", "padding_as_zero_value", POOL_OPS, F32, NULL },
    { "dilation", "dilation_ignored", 1u << OP_MAX_POOLING2, F32, NULL },
    { "plane_index", "pool_index_within_plane", POOL_OPS, F32, NULL },
    { "offset_index", "pool_index_is_buffer_offset", POOL_OPS, F32, NULL },
};

/* The typed test plug-in's root causes (tests/diagnose/typed_plugin.c), on every type that
 * can show them.  bug=daz is denormals_flushed on ARGMIN/ARGMAX (no value is written there),
 * so its cases are pooling ones; bug=seed_zero's pooling of an unsigned type, where 0 is the
 * lowest value, is best_seeded_with_type_min (docs/DIAGNOSIS.md, "Fresh seeds"). */
static const planted_bug typed_bugs[] = {
    { "seed_zero", "best_seeded_with_zero", ARG_OPS, ALL_TYPES, NULL },
    { "seed_zero", "best_seeded_with_zero", POOL_OPS, FLOATS | SIGNED_INTS, NULL },
    { "seed_zero", "best_seeded_with_type_min", POOL_OPS, UNSIGNED, NULL },
    { "seed_type_min", "best_seeded_with_type_min", POOL_OPS, ALL_TYPES, NULL },
    { "unsigned_signed", "unsigned_read_as_signed", ARG_OPS | POOL_OPS, UNSIGNED, NULL },
    { "int64_32", "int64_compared_as_32_bits", ARG_OPS | POOL_OPS, TYPE(INT64) | TYPE(UINT64), NULL },
    { "u64_as_i32", "uint64_read_as_int32", ARG_OPS | POOL_OPS, TYPE(UINT64), NULL },
    { "fp16_bits", "float_compared_as_int_bits", ARG_OPS | POOL_OPS, TYPE(FLOAT16), NULL },
    { "ftz", "denormals_flushed", ARG_OPS | POOL_OPS, FLOATS, NULL },
    { "daz", "denormals_compared_as_zero", POOL_OPS, FLOATS, NULL },
    { "nan_first", "nan_propagates_first", ARG_OPS | POOL_OPS, FLOATS, NULL },
    { "nan_last", "nan_propagates_last", ARG_OPS | POOL_OPS, FLOATS, NULL },
    { "nan_restarts", "nan_restarts", ARG_OPS | POOL_OPS, FLOATS, NULL },
    { "ties", "tie_direction_flipped", ARG_OPS | POOL_OPS, ALL_TYPES, NULL },
    { "window_index", "pool_index_within_window", POOL_OPS, ALL_TYPES, NULL },
    { "out_index", "pool_index_from_output_strides", POOL_OPS, ALL_TYPES, NULL },
    { "idx_strides", "indices_strides_ignored", POOL_OPS, ALL_TYPES, NULL },
    { "stride0", "zero_stride_read_as_packed", ARG_OPS | POOL_OPS, ALL_TYPES, NULL },
    { "pad_lowest", "padding_as_lowest_value", POOL_OPS, ALL_TYPES, NULL },
    { "dilation_w", "dilation_ignored_last_axis", 1u << OP_MAX_POOLING2, ALL_TYPES, NULL },
    { "stride_w", "window_stride_ignored_last_axis", POOL_OPS, ALL_TYPES, NULL },
    { "ceil", "ceil_output_never_written", POOL_OPS, ALL_TYPES, NULL },
    { "launch64", "outputs_rounded_down_64", ARG_OPS | POOL_OPS, ALL_TYPES, NULL },
    { "seed_plane_start", "best_seeded_at_plane_start", POOL_OPS, ALL_TYPES, NULL },
    { "int_via_f32", "integers_pooled_as_float32", POOL_OPS,
      TYPE(INT32) | TYPE(UINT32) | TYPE(INT64) | TYPE(UINT64), NULL },
};

typedef struct opened {
    const backend_vtable *vt;
    backend *b;
    exec_options exec;
} opened;

static bool open_backend(const char *text, opened *o)
{
    const char *args = NULL;
    dmlc_error err = { "" };
    o->vt = backend_select(text, &args);
    o->b = o->vt ? o->vt->open(NULL, args, &err) : NULL;
    o->exec = (exec_options){ .nan = NAN_POLICY_IGNORE };
    if (!o->b)
        tap_diag("cannot open %s: %s", text, err.msg);
    return o->b != NULL;
}

/* The asker of a backend in this process. */
static bool ask_backend(void *ctx, const dml_case *probe, probe_answer *got, dmlc_error *err)
{
    opened *o = ctx;
    got->ran = o->vt->run(o->b, probe, &o->exec, &got->outputs, err) == RUN_OK;
    return true;
}

/* An asker that answers random bytes: what no root cause can explain. */
static bool ask_garbage(void *ctx, const dml_case *probe, probe_answer *got, dmlc_error *err)
{
    (void)probe;
    (void)err;
    prng *p = ctx;
    for (UINT64 i = 0; i < got->outputs.output_bytes; i++)
        got->outputs.output[i] = (uint8_t)prng_next(p);
    for (UINT64 i = 0; got->outputs.indices && i < got->outputs.indices_bytes; i++)
        got->outputs.indices[i] = (uint8_t)prng_next(p);
    got->ran = true;
    return true;
}

static void search_options(const planted_bug *bug, gen_options *opt)
{
    gen_options_default(opt);
    opt->reject_per_mille = 0;
    opt->max_elements = 4096;
    opt->op_mask = bug->ops;
    opt->input_type_mask = bug->types;
}

/* Whether the backend's answer to c differs from the reference's. */
static bool fails_on(opened *o, const dml_case *c)
{
    case_outputs want = { 0 }, got = { 0 };
    dmlc_error err;
    bool fails = false;
    if (case_outputs_alloc(&want, c) && case_outputs_alloc(&got, c)) {
        ref_run(c, &o->exec, &want);
        fails = o->vt->run(o->b, c, &o->exec, &got, &err) == RUN_OK
                && !compare_outputs(c, &want, &got, NULL);
    }
    case_outputs_free(&want);
    case_outputs_free(&got);
    return fails;
}

/* The next failing case of seed from *index on; false when none within SEARCH_CASES. */
static bool next_failure(opened *o, const planted_bug *bug, uint64_t seed, uint64_t *index, dml_case *c)
{
    gen_options opt;
    search_options(bug, &opt);
    for (; *index < SEARCH_CASES; (*index)++) {
        gen_info info;
        dmlc_error err;
        if (!gen_case(seed, *index, &opt, c, &info, &err))
            continue;
        if (fails_on(o, c)) {
            (*index)++;
            return true;
        }
        case_free(c);
    }
    return false;
}

typedef struct tally {
    unsigned failures, right, wrong, undiagnosed;
    char wrong_ids[256];
} tally;

static void count_diagnosis(const diagnosis *d, const char *want, const dml_case *c, tally *t)
{
    bool right = false;
    for (unsigned i = 0; i < d->confirmed_count; i++) {
        if (!strcmp(d->confirmed[i]->id, want)) {
            right = true;
            continue;
        }
        t->wrong++;
        size_t n = strlen(t->wrong_ids);
        snprintf(t->wrong_ids + n, sizeof t->wrong_ids - n, " %s", d->confirmed[i]->id);
    }
    t->right += right;
    t->undiagnosed += !d->confirmed_count;
    if (!right) {
        char text[4096], params[256], sizes[96];
        case_module(c)->describe(c, params, sizeof params);
        op_uints_text(c->input.sizes, c->input.rank, sizes, sizeof sizes);
        tap_diag("%s on %s %s %s (strides %s): %s", want, op_table[c->op].name, sizes, params,
                 c->input.has_strides ? "given" : "packed", diagnosis_text(d, text, sizeof text));
    }
}

/* Diagnoses the failing cases of one planted bug on `seeds` seeds from `first` on. */
static void diagnose_bug(tap *t, const char *plugin, const planted_bug *bug, uint64_t first,
                         uint64_t seeds, diagnosis *d)
{
    char text[512];
    snprintf(text, sizeof text, "plugin:%s,bug=%s", plugin, bug->arg);
    opened o;
    if (!open_backend(text, &o)) {
        tap_ok(t, false, "bug=%s opens", bug->arg);
        return;
    }
    tally n = { 0 };
    for (uint64_t seed = first; seed < first + seeds; seed++) {
        uint64_t index = 0;
        dml_case c;
        for (unsigned k = 0; k < FAILS_PER_SEED && next_failure(&o, bug, seed, &index, &c); k++) {
            diagnose_options opt = { .exec = o.exec, .seed = seed * 1000003u + index };
            dmlc_error err;
            n.failures++;
            if (diagnose_case(&c, &opt, ask_backend, &o, d, &err))
                count_diagnosis(d, bug->cause, &c, &n);
            else
                tap_diag("bug=%s: %s", bug->arg, err.msg);
            diagnosis_free(d);
            case_free(&c);
        }
    }
    tap_ok(t, n.failures > 0 && n.right > 0, "bug=%s confirmed as %s on some failing case",
           bug->arg, bug->cause);
    tap_ok_todo(t, n.failures > 0 && n.right == n.failures, bug->weak,
                "bug=%s confirmed as %s on %u of %u failing cases", bug->arg, bug->cause, n.right,
                n.failures);
    tap_ok(t, n.wrong == 0, "bug=%s never confirmed as another cause (%u:%s)", bug->arg, n.wrong, n.wrong_ids);
    o.vt->close(o.b);
}

/* A case too large for the generator's small tiers, which bug=index16 fails: ARGMAX along
 * 70,000 elements with the maximum at 69,000, or 2x2 max pooling of a 280x280 plane with
 * indices (distinct values, so every window past row 234 has its winner past 2^16). */
static bool large_case(bool pooling, dml_case *c)
{
    UINT in_sizes[4] = { 1, 1, 280, 280 }, out_sizes[4] = { 1, 1, 140, 140 }, line = 70000, one = 1;
    case_init(c);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
    c->op = pooling ? OP_MAX_POOLING2 : OP_ARGMAX;
    case_tensor_set(&c->input, DML_TENSOR_DATA_TYPE_FLOAT32, pooling ? 4 : 1, pooling ? in_sizes : &line, NULL);
    case_tensor_set(&c->output, pooling ? DML_TENSOR_DATA_TYPE_FLOAT32 : DML_TENSOR_DATA_TYPE_INT32,
                    pooling ? 4 : 1, pooling ? out_sizes : &one, NULL);
    if (pooling)
        case_tensor_set(&c->indices, DML_TENSOR_DATA_TYPE_UINT32, 4, out_sizes, NULL);
    c->axis_count = 1;
    c->spatial_count = 2;
    for (unsigned s = 0; s < 2; s++) {
        c->pool_strides[s] = c->window[s] = 2;
        c->dilations[s] = 1;
    }
    case_link(c);
    uint64_t n = case_tensor_elements(&c->input);
    float *values = malloc(n * sizeof *values);
    for (uint64_t i = 0; values && i < n; i++)
        values[i] = (float)i - (i == 69000 ? 0 : 1e5f * !pooling);
    c->input_data = (uint8_t *)values;
    dmlc_error err;
    return values && validate_case(c, &err);
}

/* bug=index16 on the large cases: confirmed as index_narrowed_16 in both families. */
static void index16_diagnosed(tap *t, const char *plugin, diagnosis *d)
{
    char text[512];
    snprintf(text, sizeof text, "plugin:%s,bug=index16", plugin);
    opened o;
    if (!open_backend(text, &o))
        return;
    for (int pooling = 0; pooling <= 1; pooling++) {
        dml_case c;
        diagnose_options opt = { .exec = o.exec, .seed = 16 };
        dmlc_error err;
        bool failing = large_case(pooling, &c) && fails_on(&o, &c);
        bool ok = failing && diagnose_case(&c, &opt, ask_backend, &o, d, &err);
        const cause *found = ok ? diagnosis_cause(d) : NULL;
        tap_ok(t, found && !strcmp(found->id, "index_narrowed_16"),
               "bug=index16 on a large %s case (failing: %s) confirmed as index_narrowed_16 (%s)",
               pooling ? "MAX_POOLING2" : "ARGMAX", failing ? "yes" : "no", found ? found->id : "none");
        diagnosis_free(d);
        case_free(&c);
    }
    o.vt->close(o.b);
}

/* ARGMAX of FLOAT32 along `length` elements, distinct values below 0 but for the maxima (1)
 * at `at`: the deep winners generator version 4 draws, built by hand. */
static bool long_argmax(UINT length, bool decreasing, const uint64_t *at, unsigned count, dml_case *c)
{
    UINT one = 1;
    case_init(c);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
    c->op = OP_ARGMAX;
    case_tensor_set(&c->input, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &length, NULL);
    case_tensor_set(&c->output, DML_TENSOR_DATA_TYPE_INT32, 1, &one, NULL);
    c->axis_count = 1;
    c->direction = decreasing ? DML_AXIS_DIRECTION_DECREASING : DML_AXIS_DIRECTION_INCREASING;
    case_link(c);
    float *values = malloc((size_t)length * sizeof *values);
    for (uint64_t i = 0; values && i < length; i++)
        values[i] = -(float)(i + 1);
    for (unsigned k = 0; values && k < count; k++)
        values[at[k]] = 1;
    c->input_data = (uint8_t *)values;
    dmlc_error err;
    return values && validate_case(c, &err);
}

/* bug=rank16 (DECREASING, the winner more than 65535 from the end) and bug=merge_ties (a tie
 * between chunks 0 and 1, the later at the lower rank in its chunk) confirmed as their causes
 * on long reductions, which the generator's small tiers never draw. */
static void deep_winners_diagnosed(tap *t, const char *plugin, diagnosis *d)
{
    static const uint64_t early[] = { 1000 }, tied[] = { 4000, 4096 + 5 };
    static const struct {
        const char *bug, *cause;
        UINT length;
        bool decreasing;
        const uint64_t *at;
        unsigned count;
    } deep[] = {
        { "rank16", "rank_narrowed_16_from_scan_start", 70000, true, early, 1 },
        { "merge_ties", "chunk_ties_merged_by_rank", 3 * 4096, false, tied, 2 },
    };
    for (size_t k = 0; k < sizeof deep / sizeof deep[0]; k++) {
        char text[512];
        snprintf(text, sizeof text, "plugin:%s,bug=%s", plugin, deep[k].bug);
        opened o;
        if (!open_backend(text, &o))
            continue;
        dml_case c;
        diagnose_options opt = { .exec = o.exec, .seed = 19 };
        dmlc_error err;
        bool failing = long_argmax(deep[k].length, deep[k].decreasing, deep[k].at, deep[k].count, &c)
                       && fails_on(&o, &c);
        bool ok = failing && diagnose_case(&c, &opt, ask_backend, &o, d, &err);
        const cause *found = ok ? diagnosis_cause(d) : NULL;
        tap_ok(t, found && !strcmp(found->id, deep[k].cause),
               "bug=%s on an ARGMAX of %u elements (failing: %s) confirmed as %s (%s)", deep[k].bug,
               deep[k].length, failing ? "yes" : "no", deep[k].cause, found ? found->id : "none");
        diagnosis_free(d);
        case_free(&c);
        o.vt->close(o.b);
    }
}

/* Window, dilation, stride and padding along one axis of a pooling case. */
typedef struct pool_axis {
    UINT window, dilation, stride, start, end;
} pool_axis;

/* A MAX_POOLING2 case of N = 2, C = 1, an H x W plane with distinct values, the window,
 * dilation, stride and padding `a` along H (along W when !along_h; the other axis 1, 1, 1). */
static bool padded_pool(DML_TENSOR_DATA_TYPE type, bool along_h, UINT height, UINT width, pool_axis a,
                        dml_case *c)
{
    UINT in_sizes[4] = { 2, 1, height, width }, out_rank, out_sizes[DML_MAX_RANK];
    unsigned axis = along_h ? 0 : 1;
    case_init(c);
    c->feature_level = DML_FEATURE_LEVEL_5_0;
    c->op = OP_MAX_POOLING2;
    c->spatial_count = 2;
    for (unsigned s = 0; s < 2; s++)
        c->pool_strides[s] = c->window[s] = c->dilations[s] = 1;
    c->window[axis] = a.window;
    c->dilations[axis] = a.dilation;
    c->pool_strides[axis] = a.stride;
    c->start_padding[axis] = a.start;
    c->end_padding[axis] = a.end;
    case_tensor_set(&c->input, type, 4, in_sizes, NULL);
    if (!case_module(c)->output_sizes(c, false, &out_rank, out_sizes))
        return false;
    case_tensor_set(&c->output, type, out_rank, out_sizes, NULL);
    case_link(c);
    uint64_t n = case_tensor_elements(&c->input);
    if (!(c->input_data = calloc(1, case_tensor_bytes(&c->input))))
        return false;
    for (uint64_t i = 0; i < n; i++)
        dtype_store_bits(c->input_data, type, i, probe_value_bits(type, (double)(i % 200) - 100.0));
    dmlc_error err;
    return validate_case(c, &err);
}

/* bug=launch64 on pooling whose padding or window leaves no probe of 97 planes of one output
 * each: end padding past the window (every plane several outputs, the failing case's unwritten
 * tail wholly in padding; fresh seed 101), a window of 512 with 252 of start padding (97
 * planes past the probe's budget; fresh seed 104), and taps -1 and 2 over a height of 2 (start
 * padding 1, dilation 3: every window wholly in padding along H, as one 5-D failing case of
 * `test_diagnose typed PLUGIN 20` had).  All three were undiagnosed. */
static void launch64_on_padded_pools(tap *t, const char *plugin, diagnosis *d)
{
    static const struct {
        DML_TENSOR_DATA_TYPE type;
        bool along_h;
        UINT height, width;
        pool_axis axis;
    } pools[] = {
        { DML_TENSOR_DATA_TYPE_INT8, true, 1, 5, { 1, 1, 1, 0, 6 } },
        { DML_TENSOR_DATA_TYPE_UINT8, false, 1, 512, { 512, 1, 1, 252, 0 } },
        { DML_TENSOR_DATA_TYPE_UINT16, true, 2, 40, { 2, 3, 4, 1, 2 } },
    };
    char text[512];
    snprintf(text, sizeof text, "plugin:%s,bug=launch64", plugin);
    opened o;
    if (!open_backend(text, &o))
        return;
    for (size_t k = 0; k < sizeof pools / sizeof pools[0]; k++) {
        const pool_axis *a = &pools[k].axis;
        dml_case c;
        diagnose_options opt = { .exec = o.exec, .seed = 64 + k };
        dmlc_error err;
        bool failing = padded_pool(pools[k].type, pools[k].along_h, pools[k].height, pools[k].width, *a, &c)
                       && fails_on(&o, &c);
        bool ok = failing && diagnose_case(&c, &opt, ask_backend, &o, d, &err);
        const cause *found = ok ? diagnosis_cause(d) : NULL;
        tap_ok(t, found && !strcmp(found->id, "outputs_rounded_down_64"),
               "bug=launch64 on MAX_POOLING2, window %u, dilation %u, padding %u/%u (failing: %s) "
               "confirmed as outputs_rounded_down_64 (%s)", a->window, a->dilation, a->start, a->end,
               failing ? "yes" : "no", found ? found->id : "none");
        diagnosis_free(d);
        case_free(&c);
    }
    o.vt->close(o.b);
}

/* A suite: the plug-in's planted bugs, and those whose failing cases are asked of a
 * conformant backend and of garbage. */
typedef struct suite {
    const char *name;
    const planted_bug *bugs;
    size_t count;
    const char *quiet[4]; /* bug= arguments, NULL-terminated */
} suite;

static const suite suites[] = {
    { "example", example_bugs, sizeof example_bugs / sizeof example_bugs[0], { "ties", "padding", NULL } },
    { "typed", typed_bugs, sizeof typed_bugs / sizeof typed_bugs[0],
      { "unsigned_signed", "nan_last", "ceil", "launch64" } },
};

static const planted_bug *bug_named(const suite *s, const char *arg)
{
    for (size_t k = 0; k < s->count; k++)
        if (!strcmp(s->bugs[k].arg, arg))
            return &s->bugs[k];
    return NULL;
}

/* Diagnoses up to `want` failing cases of o on the reference and on garbage; returns how
 * many confirmed something (a failed diagnosis counts as one). */
static unsigned confirmed_without_bug(opened *o, opened *reference, const planted_bug *bug, unsigned want,
                                      unsigned *cases, diagnosis *d)
{
    uint64_t index = 0;
    unsigned confirmed = 0;
    dml_case c;
    for (unsigned k = 0; k < want && next_failure(o, bug, 3, &index, &c); k++) {
        prng garbage;
        prng_seed(&garbage, index);
        diagnose_options opt = { .exec = o->exec, .seed = index };
        dmlc_error err;
        (*cases)++;
        confirmed += !diagnose_case(&c, &opt, ask_backend, reference, d, &err) || d->confirmed_count;
        diagnosis_free(d);
        confirmed += !diagnose_case(&c, &opt, ask_garbage, &garbage, d, &err) || d->confirmed_count;
        diagnosis_free(d);
        case_free(&c);
    }
    return confirmed;
}

/* Failing cases of the suite's quiet bugs (4 in all) asked of the reference and of garbage:
 * nothing may be confirmed. */
static void undiagnosed_without_bug(tap *t, const suite *s, const char *plugin, diagnosis *d)
{
    opened reference;
    if (!open_backend("reference", &reference))
        return;
    unsigned cases = 0, confirmed = 0, bugs = 0;
    while (bugs < 4 && s->quiet[bugs])
        bugs++;
    for (unsigned k = 0; k < bugs; k++) {
        char text[512];
        snprintf(text, sizeof text, "plugin:%s,bug=%s", plugin, s->quiet[k]);
        opened o;
        const planted_bug *bug = bug_named(s, s->quiet[k]);
        if (!bug || !open_backend(text, &o))
            continue;
        confirmed += confirmed_without_bug(&o, &reference, bug, 4 / bugs, &cases, d);
        o.vt->close(o.b);
    }
    tap_ok(t, cases == 4 && confirmed == 0,
           "a conformant backend and a garbage asker confirm nothing (%u of %u cases)", confirmed, cases);
    reference.vt->close(reference.b);
}

/* The variant oracle with every hook NULL is the reference, on every type and operator. */
static void scan_is_the_spec(tap *t)
{
    static const scan_variant spec = { 0 };
    gen_options opt;
    gen_options_default(&opt);
    opt.reject_per_mille = 0;
    opt.max_elements = 2048;
    exec_options policies[] = { { .nan = NAN_POLICY_IGNORE }, { .nan = NAN_POLICY_PROPAGATE } };
    unsigned compared = 0, differ = 0;
    for (uint64_t i = 0; i < 600; i++) {
        dml_case c;
        gen_info info;
        dmlc_error err;
        if (!gen_case(11, i, &opt, &c, &info, &err))
            continue;
        const exec_options *exec = &policies[i % 2];
        case_outputs want = { 0 }, got = { 0 };
        if (case_outputs_alloc(&want, &c) && scan_predict(&spec, &c, exec, &got, &err)) {
            ref_run(&c, exec, &want);
            compared++;
            if (!compare_outputs(&c, &want, &got, NULL) && differ++ == 0)
                tap_diag("scan differs from the reference on g%u:11:%llu", GEN_VERSION, (unsigned long long)i);
        }
        case_outputs_free(&want);
        case_outputs_free(&got);
        case_free(&c);
    }
    tap_ok(t, compared >= 500 && differ == 0, "the variant oracle with no hook is the reference (%u of %u differ)",
           differ, compared);
}

/* A seeded best that no element beats names no element: an index_of hook (buffer offset,
 * position in the window) must not turn its all-ones index into one of an element.  Before,
 * best_seeded_with_type_min + pool_index_is_buffer_offset predicted index 0 of the plane for
 * a window of -inf, which confirmed that pair for OpenVINO's MaxPool (its seed's index is the
 * plane's first element: neither cause). */
static void seed_index_not_remapped(tap *t)
{
    const cause *seed = cause_find("best_seeded_with_type_min");
    const char *hooks[] = { "pool_index_is_buffer_offset", "pool_index_within_window",
                            "pool_index_within_plane", "pool_index_from_output_strides" };
    gen_options opt;
    gen_options_default(&opt);
    opt.reject_per_mille = 0;
    opt.max_elements = 512;
    unsigned cases = 0, bad = 0;
    exec_options exec = { .nan = NAN_POLICY_IGNORE };
    for (uint64_t i = 0; i < 4000 && cases < 20; i++) {
        dml_case c;
        gen_info info;
        dmlc_error err;
        if (!gen_case(5, i, &opt, &c, &info, &err))
            continue;
        if (c.op != OP_MAX_POOLING2 || !c.indices.present || c.input.type != DML_TENSOR_DATA_TYPE_FLOAT32) {
            case_free(&c);
            continue;
        }
        tensor_view in;
        case_tensor_view(&c.input, &in);
        for (uint64_t k = 0; k < in.elements; k++)
            dtype_store_bits(c.input_data, c.input.type, tensor_view_offset(&in, k),
                             probe_value_bits(c.input.type, -INFINITY));
        cases++;
        for (size_t h = 0; h < sizeof hooks / sizeof hooks[0]; h++) {
            scan_variant pair;
            case_outputs got = { 0 };
            if (!seed || !cause_find(hooks[h])
                || !scan_variant_compose(&seed->variant, &cause_find(hooks[h])->variant, &pair)
                || !scan_predict(&pair, &c, &exec, &got, &err)) {
                bad++;
                continue;
            }
            tensor_view iv;
            case_tensor_view(&c.indices, &iv);
            for (uint64_t k = 0; k < iv.elements; k++)
                if (dtype_load_bits(got.indices, c.indices.type, tensor_view_offset(&iv, k))
                    != dtype_load_bits(&(uint64_t){ UINT64_MAX }, c.indices.type, 0)) {
                    if (bad++ == 0)
                        tap_diag("%s: g%u:5:%llu index %llu is not all ones", hooks[h], GEN_VERSION,
                                 (unsigned long long)i, (unsigned long long)k);
                    break;
                }
            case_outputs_free(&got);
        }
        case_free(&c);
    }
    tap_ok(t, cases >= 10 && bad == 0,
           "a seed no element beats keeps its all-ones index under every index hook (%u cases, %u wrong)",
           cases, bad);
}

/* bug=pad_window_zero writes 0 (index 0) for a window wholly in padding, as OpenVINO's INT16
 * MaxPool does: the spec's answer there is dmlcheck's choice (D7, unspecified), so the
 * failures it gives must stay undiagnosed.  Before probes had to differ from the spec in a
 * window that mixes padding and real elements, they were confirmed as padding_as_zero_value. */
static void all_padding_windows_confirm_nothing(tap *t, const char *plugin, diagnosis *d)
{
    static const planted_bug bug = { "pad_window_zero", NULL, POOL_OPS, ALL_TYPES, NULL };
    char text[512];
    snprintf(text, sizeof text, "plugin:%s,bug=%s", plugin, bug.arg);
    opened o;
    if (!open_backend(text, &o)) {
        tap_ok(t, false, "bug=%s opens", bug.arg);
        return;
    }
    tally n = { 0 };
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t index = 0;
        dml_case c;
        for (unsigned k = 0; k < 8 && next_failure(&o, &bug, seed, &index, &c); k++) {
            diagnose_options opt = { .exec = o.exec, .seed = seed * 1000003u + index };
            dmlc_error err;
            n.failures++;
            if (!diagnose_case(&c, &opt, ask_backend, &o, d, &err))
                n.wrong++;
            else if (d->confirmed_count) /* never "right": counted and shown as wrong */
                count_diagnosis(d, "", &c, &n);
            diagnosis_free(d);
            case_free(&c);
        }
    }
    tap_ok(t, n.failures >= 4 && n.wrong == 0,
           "bug=%s (all-padding windows only) confirms no cause on %u failing cases (%u:%s)", bug.arg,
           n.failures, n.wrong, n.wrong_ids);
    o.vt->close(o.b);
}

/* The evidence of one confirmed diagnosis, as JSON and as text. */
static void evidence_written(tap *t, const char *plugin, diagnosis *d)
{
    char text[512];
    snprintf(text, sizeof text, "plugin:%s,bug=dilation", plugin);
    opened o;
    uint64_t index = 0;
    dml_case c;
    static const planted_bug dilation = { "dilation", "dilation_ignored", 1u << OP_MAX_POOLING2, F32, NULL };
    if (!open_backend(text, &o) || !next_failure(&o, &dilation, 1, &index, &c)) {
        tap_ok(t, false, "evidence: a failing case of bug=dilation");
        return;
    }
    diagnose_options opt = { .exec = o.exec, .seed = 7 };
    dmlc_error err;
    bool ok = diagnose_case(&c, &opt, ask_backend, &o, d, &err);
    json_t *j = ok ? diagnosis_json(d) : NULL;
    json_t *evidence = json_object_get(j, "evidence");
    const char *status = json_string_value(json_object_get(j, "status"));
    char *words = malloc(8192);
    ok = ok && words && j && status && !strcmp(status, "confirmed")
         && json_array_size(evidence) == d->probe_count
         && json_object_get(json_array_get(evidence, 0), "spec")
         && strstr(diagnosis_text(d, words, 8192), "confirmed root cause dilation_ignored");
    tap_ok(t, ok, "evidence as JSON (status, one entry per probe) and as text");
    free(words);
    json_decref(j);
    diagnosis_free(d);
    case_free(&c);
    o.vt->close(o.b);
}

/* Root-cause keys that name one bug's row (cause_keys_same_bug), and the cause the probes
 * cannot tell from best_seeded_with_type_min on unsigned pooling (cause_also_possible). */
static void keys_name_one_bug(tap *t)
{
    static const struct { const char *a, *b; bool same; } pairs[] = {
        { "tie_direction_flipped", "tie_direction_flipped", true },
        { "tie_direction_flipped", "dilation_ignored", false },
        { "dilation_ignored+input_strides_ignored", "input_strides_ignored", true },
        { "dilation_ignored", "dilation_ignored+input_strides_ignored", true },
        { "dilation_ignored+input_strides_ignored", "dilation_ignored_last_axis", false },
        { "best_seeded_with_type_min|best_seeded_with_zero", "best_seeded_with_zero", true },
        { "best_seeded_with_type_min", "best_seeded_with_type_min|best_seeded_with_zero", true },
        { "best_seeded_with_type_min|best_seeded_with_zero", "best_seeded_with_zero|x", true },
        { "best_seeded_with_type_min|best_seeded_with_zero", "best_seeded_with_lowest_finite", false },
        { "best_seeded_with_zero", "best_seeded_with_zero_x", false },
        { "", "", false },
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        tap_ok(t, cause_keys_same_bug(pairs[k].a, pairs[k].b) == pairs[k].same,
               "keys '%s' and '%s' are %s bug", pairs[k].a, pairs[k].b, pairs[k].same ? "one" : "not one");
    const char *either = "best_seeded_with_type_min|best_seeded_with_zero", *one = "best_seeded_with_zero";
    tap_ok(t, cause_key_preferred(either, one) == one && cause_key_preferred(one, either) == one,
           "a row of an either-key and a single cause is named by the single cause");
    tap_ok(t, cause_key_first(either) == cause_find("best_seeded_with_type_min"),
           "an either-key's first cause is found");

    dml_case c;
    bool made = large_case(true, &c);
    const cause *type_min = cause_find("best_seeded_with_type_min");
    tap_ok(t, made && !cause_also_possible(type_min, &c),
           "on FLOAT32 pooling best_seeded_with_type_min is told from best_seeded_with_zero");
    c.input.type = c.output.type = DML_TENSOR_DATA_TYPE_UINT8;
    tap_ok(t, made && cause_also_possible(type_min, &c) == cause_find("best_seeded_with_zero"),
           "on UINT8 pooling best_seeded_with_type_min may be best_seeded_with_zero");
    case_free(&c);
}

int main(int argc, char **argv)
{
    const suite *s = NULL;
    for (size_t k = 0; argc >= 3 && k < sizeof suites / sizeof suites[0]; k++)
        s = !strcmp(argv[1], suites[k].name) ? &suites[k] : s;
    if (!s || argc > 5)
        return tap_skip_all("usage: test_diagnose example|typed PLUGIN.so [SEEDS [FIRST]]");
    const char *plugin = argv[2];
    uint64_t seeds = argc >= 4 ? strtoull(argv[3], NULL, 10) : 2;
    uint64_t first = argc == 5 ? strtoull(argv[4], NULL, 10) : 1;
    tap t;
    tap_plan(&t, 0);
    diagnosis *d = calloc(1, sizeof *d);
    if (!d)
        return 1;
    if (s == &suites[0]) {
        scan_is_the_spec(&t);
        seed_index_not_remapped(&t);
        keys_name_one_bug(&t);
    }
    for (size_t k = 0; k < s->count; k++)
        diagnose_bug(&t, plugin, &s->bugs[k], first ? first : 1, seeds ? seeds : 2, d);
    if (s == &suites[0]) { /* the example's own bugs: index16 and the evidence */
        index16_diagnosed(&t, plugin, d);
        deep_winners_diagnosed(&t, plugin, d);
        evidence_written(&t, plugin, d);
    } else {
        all_padding_windows_confirm_nothing(&t, plugin, d);
        launch64_on_padded_pools(&t, plugin, d);
    }
    undiagnosed_without_bug(&t, s, plugin, d);
    free(d);
    return tap_done(&t);
}
