/* test_casefile.c: the case-file reader and writer.  One test per error kind, each checking
 * that the message names the field path; the float notation (-0, denormals, NaN payloads,
 * fp16 overflow, values that double rounding would get wrong); correctly rounded conversion
 * against the compiler's own (float) and (_Float16) casts on random doubles; and
 * parse(write(c)) == c on random cases of every operator and data type. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "op_module.h"
#include "dtype.h"
#include "half.h"
#include "prng.h"
#include "tap.h"
#include "validate.h"

/* Test JSON is written with single quotes for readability; this turns them into JSON's. */
static char *json_text(const char *single_quoted)
{
    char *s = strdup(single_quoted);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    return s;
}

static bool parse_text(const char *single_quoted, dml_case *c, dmlc_error *err)
{
    char *text = json_text(single_quoted);
    case_init(c);
    err->msg[0] = 0;
    bool ok = casefile_parse(text, strlen(text), c, err);
    free(text);
    return ok;
}

/* The parse must fail and the message must contain every needle. */
static bool fails_with(const char *single_quoted, const char *needle1, const char *needle2)
{
    dml_case c;
    dmlc_error err;
    if (parse_text(single_quoted, &c, &err)) {
        tap_diag("parsed, but should have failed");
        case_free(&c);
        return false;
    }
    bool ok = strstr(err.msg, needle1) && (!needle2 || strstr(err.msg, needle2));
    if (!ok)
        tap_diag("message: %s", err.msg);
    return ok;
}

#define ARGMAX_HEAD "{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [3,3]}, " \
                    "'OutputTensor': {'DataType': 'UINT32', 'Sizes': [1,3]}, 'Axes': [0], "   \
                    "'AxisDirection': 'INCREASING', "

#define MAX_POOLING1_HEAD "{'op': 'MAX_POOLING1', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,2,2]}, " \
                          "'OutputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,1,1]}, 'Strides': [1, 1], "  \
                          "'WindowSize': [2, 2], 'StartPadding': [0, 0], 'EndPadding': [0, 0], "

/* A MAX_POOLING1 file parses, validates at 2_0, and its descriptor is the shorter struct
 * while the case pools with every dilation 1. */
static bool parses_as_undilated(const char *single_quoted)
{
    dml_case c;
    dmlc_error err;
    if (!parse_text(single_quoted, &c, &err)) {
        tap_diag("%s", err.msg);
        return false;
    }
    c.feature_level = DML_FEATURE_LEVEL_2_0;
    bool ok = c.op_desc.Type == DML_OPERATOR_MAX_POOLING1 && c.dilations[0] == 1 && c.dilations[1] == 1
        && validate_case(&c, &err);
    if (!ok)
        tap_diag("type %u, dilations %u %u: %s", (unsigned)c.op_desc.Type, c.dilations[0], c.dilations[1],
                 err.msg);
    case_free(&c);
    return ok;
}

static void error_tests(tap *t)
{
    tap_ok(t, fails_with("{'op': 'ARGMAX',\n 'InputTensor': }", "line 2, column", NULL),
           "error_malformed_json_names_line_and_column");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'Colour': 1}", "Colour: unknown field",
                         "allowed: op"),
           "error_unknown_top_level_field");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [3], 'Sizez': [1]}}",
                         "InputTensor.Sizez: unknown field", NULL),
           "error_unknown_tensor_field_has_path");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'expected': {'outputs': [1,2,1]}}",
                         "expected.outputs: unknown field", NULL),
           "error_unknown_expected_field_has_path");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'WindowSize': [1]}",
                         "WindowSize: unknown field for ARGMAX", NULL),
           "error_pooling_field_in_argmax_case");
    tap_ok(t, fails_with(MAX_POOLING1_HEAD "'Dilations': [1, 1], 'input': [1, 2, 3, 4]}",
                         "Dilations: unknown field for MAX_POOLING1", "allowed: op"),
           "error_dilations_in_max_pooling1_case");
    tap_ok(t, parses_as_undilated(MAX_POOLING1_HEAD "'input': [1, 2, 3, 4]}"),
           "max_pooling1_case_pools_with_unit_dilations");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': '3'}}",
                         "InputTensor.Sizes: must be an array", "a string"),
           "error_wrong_type_names_field");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [3, true]}}",
                         "InputTensor.Sizes[1]: must be an integer", "a boolean"),
           "error_wrong_element_type_names_element");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [3, 0]}}",
                         "InputTensor.Sizes[1]: must be an integer >= 1", NULL),
           "error_size_zero");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT33', 'Sizes': [3]}}",
                         "InputTensor.DataType: unknown data type \"FLOAT33\"", "FLOAT16"),
           "error_unknown_data_type");
    tap_ok(t, fails_with("{'op': 'ARGMEDIAN'}", "op: unknown operator \"ARGMEDIAN\"", NULL),
           "error_unknown_operator");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [3]}}",
                         "OutputTensor: missing", NULL),
           "error_missing_field");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'op': 'ARGMIN'}", "duplicate object key", NULL),
           "error_duplicate_key");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'INT8', 'Sizes': [3]}, "
                         "'OutputTensor': {'DataType': 'UINT32', 'Sizes': [1]}, 'Axes': [0], "
                         "'AxisDirection': 'INCREASING', 'input': [1, 128, 3]}",
                         "input[1]: 128 does not fit INT8 [-128, 127]", NULL),
           "error_integer_out_of_range_names_element");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'expected': {'output': [1,-1,1]}}",
                         "expected.output[1]: -1 does not fit UINT32", NULL),
           "error_expected_out_of_range_names_element");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'expected': {'output': [1,2.5,1]}}",
                         "expected.output[1]: UINT32 needs an integer; got 2.5", NULL),
           "error_real_for_integer_type");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [2,2], "
                         "'Strides': [0,1]}, 'OutputTensor': {'DataType': 'UINT32', 'Sizes': [1,2]}, "
                         "'Axes': [0], 'AxisDirection': 'INCREASING', 'input': [1, 2, 3, 2]}",
                         "input[0] (coordinates [0,0]) and input[2] (coordinates [1,0])",
                         "share buffer element 0"),
           "error_broadcast_disagreement_names_both_elements");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,'nanx',3,0,4,2,5,2]}",
                         "input[2]: \"nanx\" is not a FLOAT32 value", NULL),
           "error_bad_float_string");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,'0x1ffffffff',3,0,4,2,5,2]}",
                         "input[2]: raw bits \"0x1ffffffff\" do not fit FLOAT32", NULL),
           "error_raw_bits_too_wide");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5]}",
                         "input: has 8 values but InputTensor has 9 elements", NULL),
           "error_input_count_mismatch_names_field");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'expected': {'output': [1,2]}}",
                         "expected.output: has 2 values but OutputTensor has 3 elements", NULL),
           "error_expected_count_mismatch_names_field");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', "
                         "'Sizes': [1,1,1,1,1,1,1,1,1]}}",
                         "InputTensor.Sizes: has 9 entries; at most 8", NULL),
           "error_rank_above_8");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [1]}, "
                         "'OutputTensor': {'DataType': 'UINT32', 'Sizes': [1]}, 'Axes': [0,0,0,0,0,0,0,0,0]}",
                         "Axes: has 9 entries; at most 8", NULL),
           "error_more_than_8_axes");
    tap_ok(t, fails_with("{'op': 'MAX_POOLING2', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,1,1]}, "
                         "'OutputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,1,1]}, "
                         "'Strides': [1,1,1,1]}",
                         "Strides: has 4 entries; at most 3", NULL),
           "error_more_than_3_pooling_dimensions");
    tap_ok(t, fails_with("{'op': 'MAX_POOLING2', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,1,1]}, "
                         "'OutputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,1,1]}, "
                         "'Strides': [1,1], 'WindowSize': [1,1], 'StartPadding': [0], 'EndPadding': [0,0], "
                         "'Dilations': [1,1]}",
                         "StartPadding: has 1 entries but Strides has 2", NULL),
           "error_pooling_arrays_disagree_on_dimension_count");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', "
                         "'Sizes': [65536,65536,65536]}}",
                         "InputTensor: ", "exceeds dmlcheck's limit"),
           "error_huge_tensor_is_refused_not_allocated");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [3], "
                         "'TotalTensorSizeInBytes': 4294967296000}}",
                         "InputTensor: ", "exceeds dmlcheck's limit"),
           "error_huge_total_size_is_refused");
    tap_ok(t, fails_with("{'op': 'ARGMAX', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [3], "
                         "'TotalTensorSizeInBytes': 8}, 'OutputTensor': {'DataType': 'UINT32', 'Sizes': [1]}, "
                         "'Axes': [0], 'AxisDirection': 'INCREASING', 'input': [1,2,3]}",
                         "InputTensor.TotalTensorSizeInBytes: 8 is less than the 12 bytes", NULL),
           "error_input_total_size_too_small_to_lay_out");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'expected': {'indices': [1,2,1]}}",
                         "expected.indices: the case has no OutputIndicesTensor", NULL),
           "error_indices_without_indices_tensor");
    tap_ok(t, fails_with("[1, 2]", "the case must be a JSON object, got an array", NULL),
           "error_top_level_not_object");
    tap_ok(t, fails_with(ARGMAX_HEAD "'input': [1,2,3,3,0,4,2,5,2], 'comment': 7}",
                         "comment: must be a string", NULL),
           "error_comment_not_string");
}

/* Parses a one-element ARGMAX input of type `type` written as `value`; returns its bits. */
static bool element_bits(const char *type, const char *value, uint64_t *bits)
{
    char text[512];
    snprintf(text, sizeof text,
             "{'op': 'ARGMAX', 'InputTensor': {'DataType': '%s', 'Sizes': [1]}, "
             "'OutputTensor': {'DataType': 'UINT32', 'Sizes': [1]}, 'Axes': [0], "
             "'AxisDirection': 'INCREASING', 'input': [%s]}", type, value);
    dml_case c;
    dmlc_error err;
    if (!parse_text(text, &c, &err)) {
        tap_diag("%s %s: %s", type, value, err.msg);
        return false;
    }
    *bits = dtype_load_bits(c.input_data, c.input.type, 0);
    case_free(&c);
    return true;
}

static bool reads_as(const char *type, const char *value, uint64_t want)
{
    uint64_t got;
    if (!element_bits(type, value, &got))
        return false;
    if (got != want)
        tap_diag("%s %s: got 0x%" PRIx64 ", want 0x%" PRIx64, type, value, got, want);
    return got == want;
}

static void notation_tests(tap *t)
{
    tap_ok(t, reads_as("FLOAT32", "-0.0", 0x80000000) && reads_as("FLOAT32", "-0", 0x80000000)
               && reads_as("FLOAT16", "-0.0", 0x8000) && reads_as("FLOAT32", "'0x80000000'", 0x80000000)
               && reads_as("FLOAT32", "0", 0) && reads_as("FLOAT32", "0.0", 0),
           "notation_negative_zero");
    tap_ok(t, reads_as("FLOAT32", "'0x00000001'", 1) && reads_as("FLOAT32", "1e-45", 1)
               && reads_as("FLOAT32", "'0x007fffff'", 0x7fffff) && reads_as("FLOAT16", "'0x0001'", 1)
               && reads_as("FLOAT16", "5.9604644775390625e-8", 1)
               && reads_as("FLOAT16", "2.98023223876953125e-8", 0) /* tie: even is 0 */,
           "notation_denormals_hex_and_decimal");
    tap_ok(t, reads_as("FLOAT32", "'0x7fc00001'", 0x7fc00001) && reads_as("FLOAT32", "'0xff800001'", 0xff800001)
               && reads_as("FLOAT32", "'nan'", 0x7fc00000) && reads_as("FLOAT32", "'-nan'", 0xffc00000)
               && reads_as("FLOAT16", "'nan'", 0x7e00) && reads_as("FLOAT16", "'0x7c01'", 0x7c01)
               && reads_as("FLOAT32", "'inf'", 0x7f800000) && reads_as("FLOAT16", "'-inf'", 0xfc00),
           "notation_nan_payloads_and_infinities");
    tap_ok(t, reads_as("FLOAT16", "65520", 0x7c00) && reads_as("FLOAT16", "65519", 0x7bff)
               && reads_as("FLOAT16", "65519.999999999", 0x7bff) && reads_as("FLOAT16", "-65520", 0xfc00)
               && reads_as("FLOAT16", "65504", 0x7bff) && reads_as("FLOAT32", "3.5e38", 0x7f800000),
           "notation_fp16_65520_rounds_to_inf");
    tap_ok(t, reads_as("FLOAT32", "0.3333333333333333", 0x3eaaaaab) && reads_as("FLOAT16", "0.3333333333333333", 0x3555)
               && reads_as("FLOAT32", "0.1", 0x3dcccccd) && reads_as("FLOAT16", "0.1", 0x2e66),
           "notation_one_third_and_one_tenth");
    /* Decimals whose nearest double is exactly a FLOAT32/FLOAT16 midpoint: reading through the
     * double (or through float for FLOAT16) rounds them the wrong way. */
    tap_ok(t, reads_as("FLOAT32", "1.0000001788139343", 0x3f800001)         /* below 1+3*2^-24 */
               && reads_as("FLOAT32", "1.000000178813934326171875", 0x3f800002) /* exact tie: even */
               && reads_as("FLOAT32", "1.0000000596046448", 0x3f800001)     /* above 1+2^-24 */
               && reads_as("FLOAT32", "-1.0000000596046448", 0xbf800001)
               && reads_as("FLOAT16", "1.00048828125", 0x3c00)              /* exact tie: even */
               && reads_as("FLOAT16", "1.0004882812500001", 0x3c01)         /* just above the tie */
               && reads_as("FLOAT16", "1.00146484374999995", 0x3c01)        /* just below a tie */
               && reads_as("FLOAT16", "1.000488282181322574615478515625", 0x3c01), /* 1+2^-11+2^-30 */
           "notation_no_double_rounding_at_midpoints");
    tap_ok(t, reads_as("INT8", "-128", 0x80) && reads_as("INT8", "'0xff'", 0xff)
               && reads_as("UINT64", "'18446744073709551615'", UINT64_MAX)
               && reads_as("UINT64", "'0xffffffffffffffff'", UINT64_MAX)
               && reads_as("INT64", "-9223372036854775808", 0x8000000000000000ull)
               && reads_as("INT64", "'-9223372036854775808'", 0x8000000000000000ull)
               && reads_as("UINT32", "4294967295", 0xffffffffu),
           "notation_integer_extremes");
    uint64_t bits;
    tap_ok(t, !element_bits("UINT64", "'18446744073709551616'", &bits)
               && !element_bits("INT16", "32768", &bits) && !element_bits("UINT8", "'-1'", &bits),
           "notation_integers_outside_the_type_are_refused");
}

#if defined(__FLT16_MAX__)
static uint64_t independent_half(double x)
{
    _Float16 h = (_Float16)x;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}
#endif

/* Random finite doubles (random bits; exponents near the formats' ranges) through "%a" text
 * must round exactly as the compiler's direct conversions do. */
static bool conversion_matches_compiler(void)
{
    prng p;
    prng_seed2(&p, 1, prng_hash_str("casefile_conversion"));
    char text[64];
    for (int i = 0; i < 400000; i++) {
        uint64_t mantissa = prng_next(&p) & 0xfffffffffffffull;
        uint64_t exponent = (uint64_t)prng_range(&p, 1023 - 30, 1023 + 20); /* halves and floats */
        if (i % 4 == 0)
            exponent = (uint64_t)prng_range(&p, 1023 - 160, 1023 + 130);     /* float denormals, overflow */
        if (i % 8 == 1) /* land on or near a FLOAT16 midpoint */
            mantissa = (mantissa & ~0x7ffffffffffull) | 0x20000000000ull | (prng_next(&p) & 3);
        double x;
        uint64_t u = (prng_next(&p) & 0x8000000000000000ull) | (exponent << 52) | mantissa;
        memcpy(&x, &u, 8);
        snprintf(text, sizeof text, "%a", x);
        uint64_t f32, f16;
        if (!casefile_number_to_float_bits(text, DML_TENSOR_DATA_TYPE_FLOAT32, &f32)
            || !casefile_number_to_float_bits(text, DML_TENSOR_DATA_TYPE_FLOAT16, &f16))
            return false;
        if (f32 != float_to_bits((float)x)) {
            tap_diag("%s: FLOAT32 0x%08" PRIx64 ", (float) 0x%08x", text, f32, float_to_bits((float)x));
            return false;
        }
#if defined(__FLT16_MAX__)
        if (f16 != independent_half(x)) {
            tap_diag("%s: FLOAT16 0x%04" PRIx64 ", (_Float16) 0x%04" PRIx64, text, f16, independent_half(x));
            return false;
        }
#endif
    }
    return true;
}

/* ---- Round trip ------------------------------------------------------------------------- */

static const DML_TENSOR_DATA_TYPE value_types[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT64,
    DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_FLOAT64,
};

/* Values that exercise every notation: special floats, extremes, small integers, random bits. */
static uint64_t random_bits(prng *p, DML_TENSOR_DATA_TYPE t)
{
    static const uint64_t f32_specials[] = { 0x80000000, 0x7fc00000, 0xffc00000, 0x7fc00001, 0x7f800001,
                                             0x7f800000, 0xff800000, 0x00000001, 0x3dcccccd, 0x3f800000 };
    static const uint64_t f16_specials[] = { 0x8000, 0x7e00, 0xfe00, 0x7c01, 0x7c00, 0xfc00, 0x0001, 0x2e66, 0x3c00 };
    uint64_t mask = dtype_size(t) >= 8 ? UINT64_MAX : ((uint64_t)1 << (dtype_size(t) * 8)) - 1;
    uint64_t r = prng_below(p, 4);
    if (r == 0 && t == DML_TENSOR_DATA_TYPE_FLOAT32)
        return f32_specials[prng_below(p, sizeof f32_specials / sizeof f32_specials[0])];
    if (r == 0 && t == DML_TENSOR_DATA_TYPE_FLOAT16)
        return f16_specials[prng_below(p, sizeof f16_specials / sizeof f16_specials[0])];
    if (r == 1) /* small integers, as the corpus uses */
        return dtype_is_float(t) ? (t == DML_TENSOR_DATA_TYPE_FLOAT16 ? float_to_half((float)prng_range(p, -9, 9))
                                                                    : float_to_bits((float)prng_range(p, -9, 9)))
                                 : (uint64_t)prng_range(p, -9, 9) & mask;
    if (r == 2)
        return prng_chance(p, 1, 2) ? mask : mask >> 1; /* all ones, and the top bit clear */
    return prng_next(p) & mask;
}

static void random_tensor(prng *p, case_tensor *t, DML_TENSOR_DATA_TYPE type, UINT rank, bool strided)
{
    memset(t, 0, sizeof *t);
    t->present = true;
    t->type = type;
    t->rank = rank;
    for (UINT d = 0; d < rank; d++)
        t->sizes[d] = (UINT)prng_range(p, 1, 3);
    if (strided) {
        t->has_strides = true;
        for (UINT d = 0; d < rank; d++)
            t->strides[d] = (UINT)prng_range(p, 0, 7); /* 0 broadcasts, others pad or permute */
    }
    if (prng_chance(p, 1, 3)) {
        t->has_total_bytes = true;
        t->total_bytes = dml_calc_buffer_tensor_size(type, rank, t->sizes, strided ? t->strides : NULL)
                       + 4 * (UINT64)prng_below(p, 3);
    }
    t->flags = (DML_TENSOR_FLAGS)prng_below(p, 2);
    t->base_alignment = prng_chance(p, 1, 3) ? 16 : 0;
}

static uint64_t *random_logical(prng *p, const case_tensor *t)
{
    uint64_t n = case_tensor_elements(t), *v = malloc(n * sizeof *v);
    for (uint64_t i = 0; i < n; i++)
        v[i] = random_bits(p, t->type);
    return v;
}

/* A structurally sound case; not necessarily one DirectML accepts (round trips need no more). */
static void random_case(prng *p, dml_case *c)
{
    case_init(c);
    c->op = (op_id)prng_below(p, OP_COUNT);
    c->feature_level = prng_chance(p, 1, 2) ? fl_tested[prng_below(p, FL_TESTED_COUNT)] : 0;
    DML_TENSOR_DATA_TYPE in = value_types[prng_below(p, sizeof value_types / sizeof value_types[0])];
    UINT rank = (op_table[c->op].module == &op_module_arg_reduce) ? (UINT)prng_range(p, 1, 8) : (UINT)prng_range(p, 4, 5);
    random_tensor(p, &c->input, in, rank, prng_chance(p, 1, 2));
    if (op_table[c->op].module == &op_module_arg_reduce) {
        static const DML_TENSOR_DATA_TYPE index_types[] = { DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT32,
                                                            DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64 };
        random_tensor(p, &c->output, index_types[prng_below(p, 4)], rank, false);
        c->axis_count = (UINT)prng_range(p, 1, rank);
        for (UINT i = 0; i < c->axis_count; i++)
            c->axes[i] = (UINT)prng_below(p, rank);
        c->direction = (DML_AXIS_DIRECTION)prng_below(p, 2);
    } else {
        random_tensor(p, &c->output, in, rank, prng_chance(p, 1, 4));
        if (prng_chance(p, 1, 2)) {
            random_tensor(p, &c->indices, prng_chance(p, 1, 2) ? DML_TENSOR_DATA_TYPE_UINT32
                                                               : DML_TENSOR_DATA_TYPE_UINT64, rank, false);
            memcpy(c->indices.sizes, c->output.sizes, sizeof c->output.sizes);
            c->indices.has_total_bytes = false;
        }
        c->spatial_count = rank - 2;
        for (UINT i = 0; i < c->spatial_count; i++) {
            c->pool_strides[i] = (UINT)prng_range(p, 1, 3);
            c->window[i] = (UINT)prng_range(p, 1, 3);
            c->start_padding[i] = (UINT)prng_below(p, 2);
            c->end_padding[i] = (UINT)prng_below(p, 2);
            c->dilations[i] = (UINT)prng_range(p, 1, 2);
        }
    }
    case_link(c);
    /* The buffer: each logical element at its strided address (a later element sharing an
     * address overwrites an earlier one, so broadcast values agree by construction). */
    c->input_data = calloc(case_tensor_bytes(&c->input), 1);
    tensor_view v;
    case_tensor_view(&c->input, &v);
    for (uint64_t i = 0; i < v.elements; i++)
        dtype_store_bits(c->input_data, in, tensor_view_offset(&v, i), random_bits(p, in));
    if (prng_chance(p, 2, 3)) {
        c->has_expected_output = true;
        c->expected_output = random_logical(p, &c->output);
    }
    if (c->indices.present && prng_chance(p, 2, 3)) {
        c->has_expected_indices = true;
        c->expected_indices = random_logical(p, &c->indices);
    }
    if (prng_chance(p, 1, 2))
        c->comment = strdup("derived by hand: \"quotes\", back\\slash, ±0, 1/3 ≈ 0.333");
}

static bool tensors_equal(const case_tensor *a, const case_tensor *b)
{
    if (a->present != b->present)
        return false;
    if (!a->present)
        return true;
    return a->type == b->type && a->rank == b->rank
        && !memcmp(a->sizes, b->sizes, a->rank * sizeof a->sizes[0]) && a->has_strides == b->has_strides
        && (!a->has_strides || !memcmp(a->strides, b->strides, a->rank * sizeof a->strides[0]))
        && a->has_total_bytes == b->has_total_bytes && (!a->has_total_bytes || a->total_bytes == b->total_bytes)
        && a->base_alignment == b->base_alignment && a->flags == b->flags;
}

static bool cases_equal(const dml_case *a, const dml_case *b)
{
    bool same = a->op == b->op && a->feature_level == b->feature_level && tensors_equal(&a->input, &b->input)
        && tensors_equal(&a->output, &b->output) && tensors_equal(&a->indices, &b->indices)
        && !memcmp(a->input_data, b->input_data, case_tensor_bytes(&a->input))
        && a->has_expected_output == b->has_expected_output
        && a->has_expected_indices == b->has_expected_indices
        && (!a->comment == !b->comment) && (!a->comment || !strcmp(a->comment, b->comment));
    if (same && (op_table[a->op].module == &op_module_arg_reduce))
        same = a->axis_count == b->axis_count && !memcmp(a->axes, b->axes, a->axis_count * sizeof a->axes[0])
            && a->direction == b->direction;
    else if (same)
        same = a->spatial_count == b->spatial_count
            && !memcmp(a->pool_strides, b->pool_strides, sizeof a->pool_strides)
            && !memcmp(a->window, b->window, sizeof a->window)
            && !memcmp(a->start_padding, b->start_padding, sizeof a->start_padding)
            && !memcmp(a->end_padding, b->end_padding, sizeof a->end_padding)
            && !memcmp(a->dilations, b->dilations, sizeof a->dilations);
    if (same && a->has_expected_output)
        same = !memcmp(a->expected_output, b->expected_output,
                       case_tensor_elements(&a->output) * sizeof(uint64_t));
    if (same && a->has_expected_indices)
        same = !memcmp(a->expected_indices, b->expected_indices,
                       case_tensor_elements(&a->indices) * sizeof(uint64_t));
    return same;
}

static bool round_trips(unsigned count)
{
    prng p;
    prng_seed2(&p, 1, prng_hash_str("casefile_round_trip"));
    for (unsigned i = 0; i < count; i++) {
        dml_case c, back;
        dmlc_error err;
        random_case(&p, &c);
        case_init(&back);
        char *text = casefile_write(&c, NULL);
        bool ok = text && casefile_parse(text, strlen(text), &back, &err);
        if (!ok)
            tap_diag("case %u: %s\n# %s", i, text ? err.msg : "write failed", text ? text : "");
        else if (!(ok = cases_equal(&c, &back)))
            tap_diag("case %u differs after a round trip:\n# %s", i, text);
        free(text);
        case_free(&c);
        case_free(&back);
        if (!ok)
            return false;
    }
    return true;
}

/* The writer's notation, checked on the text itself. */
static bool writer_notation(void)
{
    dml_case c;
    dmlc_error err;
    if (!parse_text("{'op': 'MAX_POOLING2', 'InputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,1,8]}, "
                    "'OutputTensor': {'DataType': 'FLOAT32', 'Sizes': [1,1,1,8]}, "
                    "'OutputIndicesTensor': {'DataType': 'UINT64', 'Sizes': [1,1,1,8]}, "
                    "'Strides': [1,1], 'WindowSize': [1,1], 'StartPadding': [0,0], 'EndPadding': [0,0], "
                    "'Dilations': [1,1], "
                    "'input': [0.1, -0.0, 'nan', '0x7fc00001', '-inf', 1, 1e-45, 16777216],"
                    "'expected': {'indices': [0, 1, 2, 3, 4, 5, 6, '18446744073709551615']}}", &c, &err)) {
        tap_diag("%s", err.msg);
        return false;
    }
    char *text = casefile_write(&c, NULL);
    const char *want = "\"input\": [0.1, \"0x80000000\", \"nan\", \"0x7fc00001\", \"-inf\", 1, 1e-45, 16777216], "
                       "\"expected\": {\"indices\": [0, 1, 2, 3, 4, 5, 6, \"18446744073709551615\"]}}";
    bool ok = text && strstr(text, want) && !strncmp(text, "{\"op\": \"MAX_POOLING2\", \"InputTensor\"", 35);
    if (!ok)
        tap_diag("wrote: %s", text ? text : "(null)");
    case_outputs o;
    char *line = NULL;
    if (ok && case_outputs_alloc(&o, &c)) {
        memcpy(o.output, c.input_data, 32);
        memset(o.indices, 0, o.indices_bytes);
        o.indices[8] = 9; /* element 1 = 9 */
        line = casefile_outputs_json(&c, &o);
        ok = line && !strcmp(line, "{\"output\": [0.1, \"0x80000000\", \"nan\", \"0x7fc00001\", \"-inf\", 1, 1e-45, "
                                   "16777216], \"indices\": [0, 9, 0, 0, 0, 0, 0, 0]}");
        if (!ok)
            tap_diag("outputs: %s", line ? line : "(null)");
        case_outputs_free(&o);
    }
    free(line);
    free(text);
    case_free(&c);
    return ok;
}

/* Every field the issue's example names, read into the right place. */
static bool issue_example(void)
{
    dml_case c;
    dmlc_error err;
    if (!parse_text("{'op': 'ARGMAX', 'feature_level': '4_1',\n"
                    " 'InputTensor':  {'DataType': 'FLOAT32', 'Sizes': [3,3], 'Strides': [3,1], "
                    "'TotalTensorSizeInBytes': 36},\n"
                    " 'OutputTensor': {'DataType': 'UINT32', 'Sizes': [1,3]},\n"
                    " 'Axes': [0], 'AxisDirection': 'DML_AXIS_DIRECTION_INCREASING',\n"
                    " 'input': [1, 2, 3, 3, 0, 4, 2, 5, 2],\n"
                    " 'expected': {'output': [1, 2, 1]}}", &c, &err)) {
        tap_diag("%s", err.msg);
        return false;
    }
    const DML_BUFFER_TENSOR_DESC *in = c.dml.argmax.InputTensor->Desc;
    bool ok = c.op == OP_ARGMAX && c.feature_level == DML_FEATURE_LEVEL_4_1 && c.op_desc.Type == DML_OPERATOR_ARGMAX
        && in->DimensionCount == 2 && in->Strides && in->Strides[0] == 3 && in->TotalTensorSizeInBytes == 36
        && c.dml.argmax.AxisCount == 1 && c.dml.argmax.Axes[0] == 0
        && c.dml.argmax.AxisDirection == DML_AXIS_DIRECTION_INCREASING
        && dtype_load_bits(c.input_data, c.input.type, 7) == float_to_bits(5.0f)
        && c.has_expected_output && !c.has_expected_indices && c.expected_output[1] == 2;
    case_free(&c);
    return ok;
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    error_tests(&t);
    notation_tests(&t);
    tap_ok(&t, issue_example(), "parse_issue_example_fields");
    tap_ok(&t, writer_notation(), "write_notation_shortest_decimal_raw_bits_and_names");
    tap_ok(&t, conversion_matches_compiler(), "conversion_matches_float_and_float16_casts_on_random_doubles");
    tap_ok(&t, round_trips(3000), "round_trip_parse_write_3000_random_cases");
    return tap_done(&t);
}
