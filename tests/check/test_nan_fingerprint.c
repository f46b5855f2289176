/*
 * test_nan_fingerprint.c: the NaN-policy fingerprint of one case (harness/nan_fingerprint.h).
 * Three rows whose NaNs make every policy answer differently; a planted answer takes each
 * policy's picks, written by hand from the definitions in SEMANTICS "NaN-policy
 * fingerprint", and must be explained by that policy alone; a mix of two policies by none.
 * ARGMAX and ARGMIN in both directions, MAX_POOLING2 with indices; then the check itself
 * fingerprints the reference under both of its policies.
 */
#include <stdio.h>
#include <string.h>

#include "../reference/case_builder.h"
#include "check.h"
#include "dtype.h"
#include "nan_fingerprint.h"
#include "reference.h"
#include "tap.h"

#define ROWS 3
#define COLS 5
#define NAN_BITS 0x7fc00000u

/* ARGMAX rows (ARGMIN negates the numbers, which keeps every pick):
 *   A {NaN, 1, NaN, 5, 2}   B {4, NaN, 1, 2, NaN}   C {2, NaN, 1, 2, 0} (a tie) */
static const float row_values[ROWS][COLS] = {
    { -1, 1, -1, 5, 2 }, { 4, -1, 1, 2, -1 }, { 2, -1, 1, 2, 0 },
};
static const bool row_nan[ROWS][COLS] = {
    { true, false, true, false, false }, { false, true, false, false, true },
    { false, true, false, false, false },
};

/* Each policy's pick per row, by column, read off the definitions by hand. */
static const unsigned picks_increasing[NAN_POLICY_COUNT][ROWS] = {
    [NAN_POLICY_ID_IGNORE] = { 3, 0, 0 },          /* the best number */
    [NAN_POLICY_ID_PROPAGATE_FIRST] = { 0, 1, 1 }, /* the first NaN */
    [NAN_POLICY_ID_PROPAGATE_LAST] = { 2, 4, 1 },  /* the last NaN */
    [NAN_POLICY_ID_FIRST_STICKY] = { 0, 0, 0 },    /* A starts with a NaN; B, C as ignore */
    [NAN_POLICY_ID_NAN_RESTARTS] = { 3, 4, 3 },    /* best after the last NaN: {5,2}, -, {1,2,0} */
};
/* DECREASING scans each row from its end. */
static const unsigned picks_decreasing[NAN_POLICY_COUNT][ROWS] = {
    [NAN_POLICY_ID_IGNORE] = { 3, 0, 3 },          /* C: the last of the tied 2s */
    [NAN_POLICY_ID_PROPAGATE_FIRST] = { 2, 4, 1 },
    [NAN_POLICY_ID_PROPAGATE_LAST] = { 0, 1, 1 },
    [NAN_POLICY_ID_FIRST_STICKY] = { 3, 4, 3 },    /* B ends with a NaN */
    [NAN_POLICY_ID_NAN_RESTARTS] = { 0, 0, 0 },    /* after A's index 0: nothing; {4}; {2} */
};

static uint64_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint64_t value_bits(bool minimize, unsigned row, unsigned col)
{
    return row_nan[row][col] ? NAN_BITS : f32_bits(minimize ? -row_values[row][col] : row_values[row][col]);
}

static void arg_case(dml_case *c, op_id op, DML_AXIS_DIRECTION direction)
{
    UINT sizes[2] = { ROWS, COLS }, axes[1] = { 1 };
    case_init(c);
    cb_arg_case(c, op, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL, 1, axes, direction,
                DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(c);
    for (unsigned r = 0; r < ROWS; r++)
        for (unsigned k = 0; k < COLS; k++)
            cb_set_input(c, r * COLS + k, value_bits(op == OP_ARGMIN, r, k));
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

/* 1x1xROWSxCOLS, a 1xCOLS window: one window per row, with indices. */
static void pool_case(dml_case *c)
{
    UINT sizes[4] = { 1, 1, ROWS, COLS }, out[2] = { ROWS, 1 };
    cb_pool_axis axes[2] = { { 1, 1, 0, 0, 1 }, { COLS, 1, 0, 0, 1 } };
    case_init(c);
    cb_pool_case(c, DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL, axes, out, DML_TENSOR_DATA_TYPE_UINT32);
    cb_alloc_input(c);
    for (unsigned r = 0; r < ROWS; r++)
        for (unsigned k = 0; k < COLS; k++)
            cb_set_input(c, r * COLS + k, value_bits(false, r, k));
    c->feature_level = DML_FEATURE_LEVEL_5_0;
}

static void store_at(const case_tensor *t, uint8_t *buf, uint64_t logical, uint64_t bits)
{
    tensor_view v;
    case_tensor_view(t, &v);
    dtype_store_bits(buf, t->type, tensor_view_offset(&v, logical), bits);
}

/* The answer that picks column cols[r] in every row r. */
static void plant(const dml_case *c, const unsigned *cols, case_outputs *o)
{
    for (unsigned r = 0; r < ROWS; r++) {
        uint64_t in = r * COLS + cols[r];
        if (c->op == OP_MAX_POOLING2) {
            store_at(&c->output, o->output, r, cb_get_input(c, in));
            store_at(&c->indices, o->indices, r, in);
        } else
            store_at(&c->output, o->output, r, cols[r]);
    }
}

static void expect_mask(tap *t, const dml_case *c, const unsigned *cols, unsigned want, const char *name)
{
    case_outputs o;
    if (!case_outputs_alloc(&o, c)) {
        tap_ok(t, false, "%s (out of memory)", name);
        return;
    }
    plant(c, cols, &o);
    nan_fingerprint f = nan_fingerprint_case(c, &o);
    char got_text[128], want_text[128];
    /* Once no policy is left the walk stops: an inconsistent case may examine fewer rows. */
    bool rows_ok = want ? f.nan_rows == ROWS : f.nan_rows >= 1;
    if (!tap_ok(t, rows_ok && f.policies == want, "%s", name))
        tap_diag("rows %llu, policies %s, want %s", (unsigned long long)f.nan_rows,
                 nan_policies_text(f.policies, got_text, sizeof got_text),
                 nan_policies_text(want, want_text, sizeof want_text));
    case_outputs_free(&o);
}

/* Every policy's picks fingerprint as that policy alone; a mix as none. */
static void test_planted(tap *t, dml_case *c, const char *label,
                         const unsigned picks[NAN_POLICY_COUNT][ROWS])
{
    for (unsigned p = 0; p < NAN_POLICY_COUNT; p++) {
        char name[128];
        snprintf(name, sizeof name, "nan_fingerprint_%s_planted_%s", label, nan_policy_id_name(p));
        expect_mask(t, c, picks[p], 1u << p, name);
    }
    unsigned mix[ROWS] = { picks[NAN_POLICY_ID_IGNORE][0], picks[NAN_POLICY_ID_PROPAGATE_FIRST][1],
                           picks[NAN_POLICY_ID_PROPAGATE_FIRST][2] };
    char name[128];
    snprintf(name, sizeof name, "nan_fingerprint_%s_planted_mix_is_inconsistent", label);
    expect_mask(t, c, mix, 0, name);
    case_free(c);
}

static void test_no_nan(tap *t)
{
    dml_case c;
    arg_case(&c, OP_ARGMAX, DML_AXIS_DIRECTION_INCREASING);
    for (unsigned i = 0; i < ROWS * COLS; i++)
        cb_set_input(&c, i, f32_bits((float)i));
    case_outputs o;
    bool ok = case_outputs_alloc(&o, &c);
    nan_fingerprint f = ok ? nan_fingerprint_case(&c, &o) : (nan_fingerprint){ 1, 0 };
    tap_ok(t, ok && f.nan_rows == 0, "nan_fingerprint_no_nan_rows_without_a_nan");
    if (ok)
        case_outputs_free(&o);
    case_free(&c);
}

/* The reference backend under each of its policies, through the one check. */
static void test_reference(tap *t)
{
    static const struct { nan_policy policy; nan_policy_id id; } runs[] = {
        { NAN_POLICY_IGNORE, NAN_POLICY_ID_IGNORE }, { NAN_POLICY_PROPAGATE, NAN_POLICY_ID_PROPAGATE_FIRST },
    };
    const backend_vtable *vt = backend_find("reference");
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        dmlc_error err = { "" };
        backend *b = vt ? vt->open(NULL, NULL, &err) : NULL;
        check_options opt = { .exec = { .nan = runs[i].policy } };
        checker k;
        check_init(&k, vt, b, &opt);
        dml_case c;
        arg_case(&c, OP_ARGMIN, DML_AXIS_DIRECTION_DECREASING);
        check_result r;
        bool ok = b && check_case(&k, &c, &r, &err);
        if (!tap_ok(t, ok && r.nan.nan_rows == ROWS && (r.nan.policies & (1u << runs[i].id)),
                    "nan_fingerprint_check_reference_%s", nan_policy_name(runs[i].policy)))
            tap_diag("%s", err.msg);
        case_free(&c);
        check_fini(&k);
        if (b)
            vt->close(b);
    }
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    dml_case c;
    arg_case(&c, OP_ARGMAX, DML_AXIS_DIRECTION_INCREASING);
    test_planted(&t, &c, "argmax_increasing", picks_increasing);
    arg_case(&c, OP_ARGMAX, DML_AXIS_DIRECTION_DECREASING);
    test_planted(&t, &c, "argmax_decreasing", picks_decreasing);
    arg_case(&c, OP_ARGMIN, DML_AXIS_DIRECTION_INCREASING);
    test_planted(&t, &c, "argmin_increasing", picks_increasing);
    arg_case(&c, OP_ARGMIN, DML_AXIS_DIRECTION_DECREASING);
    test_planted(&t, &c, "argmin_decreasing", picks_decreasing);
    pool_case(&c);
    test_planted(&t, &c, "max_pooling2", picks_increasing);
    test_no_nan(&t);
    test_reference(&t);
    return tap_done(&t);
}
