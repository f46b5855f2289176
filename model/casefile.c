/*
 * casefile.c: JSON case files <-> dml_case, with jansson.
 *
 * Reading is strict and never trusts the file: every field is type-checked, unknown fields
 * are errors, every count is checked before anything is allocated from it, and no tensor may
 * exceed CASEFILE_MAX_TENSOR_BYTES.  Every error names its field path ("InputTensor.Sizes[2]",
 * "input[17]", "expected.indices[0]").
 *
 * Floats are rounded to nearest-even from the decimal text itself, never through an
 * intermediate type: jansson hands us a double (already one rounding), so for every number we
 * also find its text (numbers are lexed in document order, and jansson keeps object keys in
 * document order) and, in the rare case where that double lies exactly on a rounding midpoint
 * of the target type, ask strtod which side of the midpoint the decimal really lies on.
 *
 * The notation of one value lives in casefile_notation.c, the writer in casefile_write.c.
 * Writing uses the same notation, chosen so that casefile_parse(casefile_write(c)) gives c
 * back bit for bit: floats as the shortest decimal that reads back to the same bits, else
 * "nan"/"-nan"/"inf"/"-inf" or "0x..." raw bits (-0, NaN payloads).
 */
#include "casefile.h"
#include "casefile_notation.h"

#include <errno.h>
#include <fenv.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "compare.h"
#include "dtype.h"
#include "op_module.h"

#define PATH_MAX_LEN 96

/* ---- Parser ------------------------------------------------------------------------------- */

typedef struct parser {
    char *text;           /* NUL-terminated copy of the JSON text */
    size_t *numbers;      /* offset of every number token, in document order */
    size_t number_count;
    dmlc_error *err;
} parser;

static size_t skip_string(const char *text, size_t i)
{
    for (i++; text[i] && text[i] != '"'; i++)
        if (text[i] == '\\' && text[i + 1])
            i++;
    return text[i] ? i + 1 : i;
}

/* Records where each number starts; called only on text jansson accepted. */
static bool lex_numbers(parser *p)
{
    size_t capacity = 0;
    for (size_t i = 0; p->text[i];) {
        char ch = p->text[i];
        if (ch == '"') {
            i = skip_string(p->text, i);
            continue;
        }
        if (ch != '-' && (ch < '0' || ch > '9')) {
            i++;
            continue;
        }
        if (p->number_count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            size_t *grown = realloc(p->numbers, capacity * sizeof *grown);
            if (!grown)
                return err_set(p->err, "out of memory reading numbers");
            p->numbers = grown;
        }
        p->numbers[p->number_count++] = i;
        i += strspn(p->text + i, "-+.eE0123456789");
    }
    return true;
}

static size_t count_numbers(const json_t *v)
{
    size_t n = 0;
    if (json_is_number(v))
        return 1;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            n += count_numbers(json_array_get(v, i));
    } else if (json_is_object(v)) {
        const char *key;
        json_t *value;
        json_object_foreach((json_t *)v, key, value)
            n += count_numbers(value);
    }
    return n;
}

/* Index of the first number inside obj[key] in document order. */
static size_t numbers_before(const json_t *obj, const char *key)
{
    size_t n = 0;
    const char *k;
    json_t *value;
    json_object_foreach((json_t *)obj, k, value) {
        if (!strcmp(k, key))
            break;
        n += count_numbers(value);
    }
    return n;
}

/* "base[i]" into buf; a path too long for buf is cut short, never overflowed. */
static const char *path_index(char *buf, size_t size, const char *base, uint64_t i)
{
    if (snprintf(buf, size, "%s[%" PRIu64 "]", base, i) < 0)
        buf[0] = 0;
    return buf;
}

/* "base.field" into buf. */
static const char *path_field(char *buf, size_t size, const char *base, const char *field)
{
    if (snprintf(buf, size, "%s.%s", base, field) < 0)
        buf[0] = 0;
    return buf;
}

/* Whether the number token tok[0..n) is an integer beyond int64, jansson's json_int_t. */
static bool integer_beyond_int64(const char *tok, size_t n)
{
    char digits[32];
    if (memchr(tok, '.', n) || memchr(tok, 'e', n) || memchr(tok, 'E', n))
        return false;
    if (n >= sizeof digits)
        return true;
    memcpy(digits, tok, n);
    digits[n] = 0;
    errno = 0;
    (void)strtoll(digits, NULL, 10);
    return errno == ERANGE;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

/* The text of number token `index`, checked against jansson's value so a lexing slip can
 * never silently shift values. */
static const char *number_text(const parser *p, size_t index, const json_t *v, const char *path)
{
    if (index >= p->number_count) {
        err_set(p->err, "%s: internal error: number %zu has no text", path, index);
        return NULL;
    }
    const char *text = p->text + p->numbers[index];
    double from_text = strtod(text, NULL);
    double from_json = json_is_real(v) ? json_real_value(v) : (double)json_integer_value(v);
    if (from_text != from_json || signbit(from_text) != signbit(from_json)) {
        if (!(json_is_integer(v) && from_text == 0 && from_json == 0)) { /* "-0" is integer 0 */
            err_set(p->err, "%s: internal error: number text '%.20s' does not match its value",
                    path, text);
            return NULL;
        }
    }
    return text;
}

static bool parse_integer_element(const parser *p, const json_t *v, const char *text,
                                  DML_TENSOR_DATA_TYPE t, const char *path, uint64_t *bits)
{
    if (!json_is_integer(v))
        return err_set(p->err, "%s: %s needs an integer; got %.*s", path, dtype_name(t),
                       (int)strspn(text, "-+.eE0123456789"), text);
    json_int_t value = json_integer_value(v);
    int64_t min;
    uint64_t max;
    notation_int_range(t, &min, &max);
    if (value < min || (value > 0 && (uint64_t)value > max))
        return err_set(p->err, "%s: %" PRId64 " does not fit %s [%" PRId64 ", %" PRIu64 "]", path,
                       (int64_t)value, dtype_name(t), min, max);
    *bits = (uint64_t)value & notation_type_mask(t);
    return true;
}

/* One element of type t; *next_number counts the number tokens met so far. */
static bool parse_element(const parser *p, const json_t *v, size_t *next_number,
                          DML_TENSOR_DATA_TYPE t, const char *path, uint64_t *bits)
{
    if (json_is_string(v))
        return notation_parse_string(json_string_value(v), t, path, bits, p->err);
    if (!json_is_number(v))
        return err_set(p->err, "%s: must be a number or a string, got %s", path, json_kind(v));
    const char *text = number_text(p, (*next_number)++, v, path);
    if (!text)
        return false;
    if (!dtype_is_float(t))
        return parse_integer_element(p, v, text, t, path, bits);
    if (!casefile_number_to_float_bits(text, t, bits))
        return err_set(p->err, "%s: cannot read %.20s as %s", path, text, dtype_name(t));
    return true;
}

/* A JSON array of exactly `count` elements of type t into out[count] (logical order). */
static bool parse_values(const parser *p, const json_t *array, size_t first_number,
                         DML_TENSOR_DATA_TYPE t, uint64_t count, const char *path, uint64_t *out)
{
    size_t next = first_number;
    char element_path[PATH_MAX_LEN];
    for (uint64_t i = 0; i < count; i++) {
        path_index(element_path, sizeof element_path, path, i);
        if (!parse_element(p, json_array_get(array, i), &next, t, element_path, &out[i]))
            return false;
    }
    return true;
}

static bool check_count(const json_t *array, uint64_t count, const char *path, const char *what,
                        dmlc_error *err)
{
    if (!json_is_array(array))
        return err_set(err, "%s: must be an array, got %s", path, json_kind(array));
    if (json_array_size(array) != count)
        return err_set(err, "%s: has %zu values but %s has %" PRIu64 " elements", path,
                       json_array_size(array), what, count);
    return true;
}

static bool parse_uint(const json_t *v, const char *path, uint64_t max, uint64_t *out,
                       dmlc_error *err)
{
    const char *str = json_is_string(v) ? json_string_value(v) : NULL;
    if (str && str[0] && str[strspn(str, "-0123456789")] == 0 && integer_beyond_int64(str, strlen(str)))
        return err_set(err, "%s: %s is out of range [0, %" PRIu64 "]", path, str, max);
    if (!json_is_integer(v))
        return err_set(err, "%s: must be an integer, got %s", path, json_kind(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x > max)
        return err_set(err, "%s: %" PRId64 " is out of range [0, %" PRIu64 "]", path, (int64_t)x, max);
    *out = (uint64_t)x;
    return true;
}

/* An array of UINT, each >= min, at most max_count entries (the DirectML struct's capacity). */
static bool parse_uint_array(const json_t *v, const char *path, UINT min, unsigned max_count,
                             UINT *out, UINT *count, dmlc_error *err)
{
    if (!json_is_array(v))
        return err_set(err, "%s: must be an array, got %s", path, json_kind(v));
    if (json_array_size(v) > max_count)
        return err_set(err, "%s: has %zu entries; at most %u are allowed", path, json_array_size(v),
                       max_count);
    char element_path[PATH_MAX_LEN];
    for (size_t i = 0; i < json_array_size(v); i++) {
        uint64_t x;
        path_index(element_path, sizeof element_path, path, i);
        if (!parse_uint(json_array_get(v, i), element_path, UINT32_MAX, &x, err))
            return false;
        if (x < min)
            return err_set(err, "%s: must be an integer >= %u", element_path, min);
        out[i] = (UINT)x;
    }
    *count = (UINT)json_array_size(v);
    return true;
}

/* Fails naming the first key of obj that is not in allowed (NULL-terminated). */
static bool check_fields(const json_t *obj, const char *path, const char *const *allowed,
                         const char *what, dmlc_error *err)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value) {
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], key))
            i++;
        if (allowed[i])
            continue;
        char list[256] = "";
        for (size_t j = 0, used = 0; allowed[j] && used < sizeof list; j++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "", allowed[j]);
        return err_set(err, "%s%s%s: unknown field for %s (allowed: %s)", path, *path ? "." : "", key,
                       what, list);
    }
    return true;
}

static bool parse_data_type(const json_t *v, const char *path, DML_TENSOR_DATA_TYPE *t,
                            dmlc_error *err)
{
    if (!json_is_string(v))
        return err_set(err, "%s: must be a string such as \"FLOAT32\", got %s", path, json_kind(v));
    const char *name = json_string_value(v);
    if (!strncmp(name, "DML_TENSOR_DATA_TYPE_", 21))
        name += 21;
    *t = dtype_from_name(name);
    if (*t != DML_TENSOR_DATA_TYPE_UNKNOWN)
        return true;
    char list[256] = "";
    for (size_t i = 0, used = 0; i < DTYPE_COUNT && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 dtype_table[i].name);
    return err_set(err, "%s: unknown data type \"%s\" (one of %s)", path, json_string_value(v), list);
}

static bool parse_flags(const json_t *v, const char *path, DML_TENSOR_FLAGS *flags, dmlc_error *err)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (!strncmp(s, "DML_TENSOR_FLAG_", 16))
            s += 16;
        if (!strcmp(s, "NONE"))
            *flags = DML_TENSOR_FLAG_NONE;
        else if (!strcmp(s, "OWNED_BY_DML"))
            *flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        else
            return err_set(err, "%s: unknown flag \"%s\" (NONE, OWNED_BY_DML or an integer)", path,
                           json_string_value(v));
        return true;
    }
    uint64_t x;
    if (!parse_uint(v, path, UINT32_MAX, &x, err))
        return false;
    *flags = (DML_TENSOR_FLAGS)x;
    return true;
}

static const char *const tensor_fields[] = {
    "DataType", "Sizes", "Strides", "TotalTensorSizeInBytes", "Flags",
    "GuaranteedBaseOffsetAlignment", NULL,
};

static bool check_tensor_size(const case_tensor *t, const char *name, dmlc_error *err)
{
    UINT64 computed = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes,
                                                  t->has_strides ? t->strides : NULL);
    if (computed == 0)
        return err_set(err, "%s: Sizes and Strides overflow 64-bit byte arithmetic", name);
    if (computed > CASEFILE_MAX_TENSOR_BYTES || (t->has_total_bytes && t->total_bytes > CASEFILE_MAX_TENSOR_BYTES))
        return err_set(err, "%s: %" PRIu64 " bytes exceeds dmlcheck's limit of %llu bytes per tensor",
                       name, t->has_total_bytes && t->total_bytes > computed ? t->total_bytes : computed,
                       (unsigned long long)CASEFILE_MAX_TENSOR_BYTES);
    return true;
}

/* A DML_BUFFER_TENSOR_DESC object. */
static bool parse_tensor(const json_t *obj, const char *name, case_tensor *t, dmlc_error *err)
{
    char path[PATH_MAX_LEN];
    if (!json_is_object(obj))
        return err_set(err, "%s: must be an object, got %s", name, json_kind(obj));
    if (!check_fields(obj, name, tensor_fields, "a tensor", err))
        return false;
    memset(t, 0, sizeof *t);
    t->present = true;
    const json_t *type = json_object_get(obj, "DataType"), *sizes = json_object_get(obj, "Sizes");
    if (!type || !sizes)
        return err_set(err, "%s.%s: missing (required)", name, type ? "Sizes" : "DataType");
    path_field(path, sizeof path, name, "DataType");
    if (!parse_data_type(type, path, &t->type, err))
        return false;
    path_field(path, sizeof path, name, "Sizes");
    /* SPEC: DimensionCount is at most 8 for every tensor of these operators. */
    if (!parse_uint_array(sizes, path, 1, DML_MAX_RANK, t->sizes, &t->rank, err))
        return false;
    const json_t *v;
    if ((v = json_object_get(obj, "Strides"))) {
        UINT count;
        path_field(path, sizeof path, name, "Strides");
        if (!parse_uint_array(v, path, 0, DML_MAX_RANK, t->strides, &count, err))
            return false;
        if (count != t->rank)
            return err_set(err, "%s: has %u entries but Sizes has %u", path, count, t->rank);
        t->has_strides = true;
    }
    if ((v = json_object_get(obj, "TotalTensorSizeInBytes"))) {
        path_field(path, sizeof path, name, "TotalTensorSizeInBytes");
        if (!parse_uint(v, path, INT64_MAX, &t->total_bytes, err))
            return false;
        t->has_total_bytes = true;
    }
    if ((v = json_object_get(obj, "Flags"))) {
        path_field(path, sizeof path, name, "Flags");
        if (!parse_flags(v, path, &t->flags, err))
            return false;
    }
    if ((v = json_object_get(obj, "GuaranteedBaseOffsetAlignment"))) {
        uint64_t x;
        path_field(path, sizeof path, name, "GuaranteedBaseOffsetAlignment");
        if (!parse_uint(v, path, UINT32_MAX, &x, err))
            return false;
        t->base_alignment = (UINT)x;
    }
    return check_tensor_size(t, name, err);
}

static bool parse_direction(const json_t *v, DML_AXIS_DIRECTION *d, dmlc_error *err)
{
    if (json_is_integer(v)) { /* raw enum values, so invalid descriptors can be written too */
        uint64_t x;
        if (!parse_uint(v, "AxisDirection", UINT32_MAX, &x, err))
            return false;
        *d = (DML_AXIS_DIRECTION)x;
        return true;
    }
    if (!json_is_string(v))
        return err_set(err, "AxisDirection: must be \"INCREASING\" or \"DECREASING\", got %s",
                       json_kind(v));
    const char *s = json_string_value(v);
    if (!strncmp(s, "DML_AXIS_DIRECTION_", 19))
        s += 19;
    if (!strcmp(s, "INCREASING"))
        *d = DML_AXIS_DIRECTION_INCREASING;
    else if (!strcmp(s, "DECREASING"))
        *d = DML_AXIS_DIRECTION_DECREASING;
    else
        return err_set(err, "AxisDirection: \"%s\" is neither \"INCREASING\" nor \"DECREASING\"",
                       json_string_value(v));
    return true;
}

static bool parse_feature_level(const json_t *v, DML_FEATURE_LEVEL *fl, dmlc_error *err)
{
    if (json_is_integer(v)) {
        uint64_t x;
        if (!parse_uint(v, "feature_level", UINT32_MAX, &x, err))
            return false;
        if (x == 0) /* 0 means "not given" inside dmlcheck: the file must say so by omission */
            return err_set(err, "feature_level: 0 is no feature level; leave the field out for "
                           "the lowest level where the case is valid, or write one such as \"4_1\"");
        *fl = (DML_FEATURE_LEVEL)x;
        return true;
    }
    if (!json_is_string(v) || !fl_from_name(json_string_value(v), fl))
        return err_set(err, "feature_level: must be a level such as \"4_1\" (1_0 to 6_4)");
    return true;
}

/* Fields every case file may hold; the operator's module adds its own (op_module.h). */
static const char *const common_fields[] = {
    "op", "feature_level", "comment", "must_reject", "InputTensor", "OutputTensor", "input",
    "expected",
};
#define COMMON_FIELD_COUNT (sizeof common_fields / sizeof common_fields[0])
#define MAX_CASE_FIELDS 32

/* The fields a case file of op may hold, NULL-terminated, into out[MAX_CASE_FIELDS]. */
static void allowed_fields(op_id op, const char **out)
{
    size_t n = 0;
    for (size_t i = 0; i < COMMON_FIELD_COUNT; i++)
        out[n++] = common_fields[i];
    for (const op_field *f = op_table[op].module->fields; f->name && n + 1 < MAX_CASE_FIELDS; f++)
        if (op_field_exists(f, op))
            out[n++] = f->name;
    out[n] = NULL;
}

static bool require(const json_t *root, const char *key, const json_t **out, dmlc_error *err)
{
    *out = json_object_get(root, key);
    return *out ? true : err_set(err, "%s: missing (required)", key);
}

/* An array field sharing its count with an earlier one (the pooling arrays share
 * DimensionCount) must have as many entries. */
static bool check_shared_count(const op_field *fields, const op_field *f, const dml_case *c,
                               UINT count, dmlc_error *err)
{
    for (const op_field *g = fields; g < f; g++)
        if (g->kind == OP_FIELD_UINTS && g->count_offset == f->count_offset && op_field_exists(g, c->op)) {
            UINT first = *(const UINT *)((const char *)c + g->count_offset);
            if (count != first)
                return err_set(err, "%s: has %u entries but %s has %u (they share DimensionCount)",
                               f->name, count, g->name, first);
            return true;
        }
    return true;
}

static bool parse_op_field(const json_t *root, const op_field *fields, const op_field *f,
                           dml_case *c, dmlc_error *err)
{
    const json_t *v = json_object_get(root, f->name);
    if (!v)
        return f->required ? err_set(err, "%s: missing (required)", f->name) : true;
    void *at = (char *)c + f->offset;
    switch (f->kind) {
    case OP_FIELD_DIRECTION:
        return parse_direction(v, at, err);
    case OP_FIELD_TENSOR:
        return parse_tensor(v, f->name, at, err);
    case OP_FIELD_UINTS: {
        /* >= 1 rules are the validator's (it names them), so the minimum here is 0. */
        UINT count;
        if (!parse_uint_array(v, f->name, 0, f->max_count, at, &count, err)
            || !check_shared_count(fields, f, c, count, err))
            return false;
        *(UINT *)((char *)c + f->count_offset) = count;
        return true;
    }
    }
    return err_set(err, "%s: internal error: unknown field kind %d", f->name, (int)f->kind);
}

/* The operator's fields, tensors last (a file with several errors reports the same first
 * error as before tensors were fields). */
static bool parse_operator_fields(const json_t *root, dml_case *c, dmlc_error *err)
{
    const op_field *fields = op_table[c->op].module->fields;
    for (int tensors = 0; tensors < 2; tensors++)
        for (const op_field *f = fields; f->name; f++)
            if (op_field_exists(f, c->op) && (f->kind == OP_FIELD_TENSOR) == tensors
                && !parse_op_field(root, fields, f, c, err))
                return false;
    return true;
}

static void format_coords(const tensor_view *v, uint64_t logical, char *buf, size_t size)
{
    uint32_t coords[DML_MAX_RANK];
    tensor_view_coords(v, logical, coords);
    size_t used = (size_t)snprintf(buf, size, "[");
    for (unsigned d = 0; d < v->rank && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRIu32, d ? "," : "", coords[d]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* Names the two logical elements that share a buffer element but were given different values. */
static bool broadcast_conflict(const tensor_view *v, const uint8_t *data, uint64_t later,
                               uint64_t later_bits, dmlc_error *err)
{
    uint64_t offset = tensor_view_offset(v, later), earlier = 0;
    while (tensor_view_offset(v, earlier) != offset)
        earlier++;
    char c1[128], c2[128], b1[64], b2[64];
    format_coords(v, earlier, c1, sizeof c1);
    format_coords(v, later, c2, sizeof c2);
    return err_set(err, "input[%" PRIu64 "] (coordinates %s) and input[%" PRIu64 "] (coordinates %s) "
                   "share buffer element %" PRIu64 " through InputTensor.Strides but differ: %s vs %s",
                   earlier, c1, later, c2, offset,
                   compare_format_value(v->type, dtype_load_bits(data, v->type, offset), b1, sizeof b1),
                   compare_format_value(v->type, later_bits, b2, sizeof b2));
}

/* Lays `input` out in the buffer by InputTensor's strides.  Several logical elements may share
 * a buffer element (stride 0: broadcast); their values must then agree bit for bit. */
static bool parse_input(const parser *p, const json_t *root, dml_case *c)
{
    case_tensor *t = &c->input;
    UINT64 computed = dml_calc_buffer_tensor_size(t->type, t->rank, t->sizes,
                                                  t->has_strides ? t->strides : NULL);
    if (t->has_total_bytes && t->total_bytes < computed)
        return err_set(p->err, "InputTensor.TotalTensorSizeInBytes: %" PRIu64 " is less than the %"
                       PRIu64 " bytes its Sizes and Strides address, so the input cannot be laid out",
                       t->total_bytes, computed);
    const json_t *values;
    if (!require(root, "input", &values, p->err)
        || !check_count(values, case_tensor_elements(t), "input", "InputTensor", p->err))
        return false;
    UINT64 bytes = case_tensor_bytes(t);
    uint64_t buffer_elements = bytes / dtype_size(t->type);
    c->input_data = calloc(bytes ? bytes : 1, 1);
    uint8_t *written = calloc(buffer_elements / 8 + 1, 1); /* one bit per buffer element */
    if (!c->input_data || !written) {
        free(written);
        return err_set(p->err, "input: out of memory for %" PRIu64 " bytes", bytes);
    }
    tensor_view v;
    case_link(c);
    case_tensor_view(t, &v);
    size_t next = numbers_before(root, "input");
    bool ok = true;
    char path[PATH_MAX_LEN];
    for (uint64_t i = 0; ok && i < v.elements; i++) {
        uint64_t bits, offset = tensor_view_offset(&v, i);
        path_index(path, sizeof path, "input", i);
        ok = parse_element(p, json_array_get(values, i), &next, t->type, path, &bits);
        if (!ok)
            break;
        bool seen = written[offset / 8] & (1u << (offset % 8));
        if (seen && dtype_load_bits(c->input_data, t->type, offset) != bits)
            ok = broadcast_conflict(&v, c->input_data, i, bits, p->err);
        dtype_store_bits(c->input_data, t->type, offset, bits);
        written[offset / 8] |= (uint8_t)(1u << (offset % 8));
    }
    free(written);
    return ok;
}

static bool parse_expected_array(const parser *p, const json_t *expected, const char *key,
                                 const case_tensor *t, const char *tensor_name, size_t base,
                                 uint64_t **out)
{
    const json_t *values = json_object_get(expected, key);
    char path[PATH_MAX_LEN];
    path_field(path, sizeof path, "expected", key);
    uint64_t count = case_tensor_elements(t);
    if (!check_count(values, count, path, tensor_name, p->err))
        return false;
    *out = malloc(count ? count * sizeof **out : 1);
    if (!*out)
        return err_set(p->err, "%s: out of memory", path);
    return parse_values(p, values, base + numbers_before(expected, key), t->type, count, path, *out);
}

static bool parse_expected(const parser *p, const json_t *root, dml_case *c)
{
    static const char *const fields[] = { "output", "indices", NULL };
    const json_t *expected = json_object_get(root, "expected");
    if (!expected)
        return true;
    if (!json_is_object(expected))
        return err_set(p->err, "expected: must be an object, got %s", json_kind(expected));
    if (!check_fields(expected, "expected", fields, "expected outputs", p->err))
        return false;
    size_t base = numbers_before(root, "expected");
    if (json_object_get(expected, "output")) {
        if (!parse_expected_array(p, expected, "output", &c->output, "OutputTensor", base,
                                  &c->expected_output))
            return false;
        c->has_expected_output = true;
    }
    if (json_object_get(expected, "indices")) {
        if (!c->indices.present)
            return err_set(p->err, "expected.indices: the case has no OutputIndicesTensor");
        if (!parse_expected_array(p, expected, "indices", &c->indices, "OutputIndicesTensor", base,
                                  &c->expected_indices))
            return false;
        c->has_expected_indices = true;
    }
    if (!c->has_expected_output && !c->has_expected_indices)
        return err_set(p->err, "expected: must hold \"output\" and/or \"indices\"");
    return true;
}

static bool parse_op(const json_t *root, dml_case *c, dmlc_error *err)
{
    const json_t *op;
    if (!require(root, "op", &op, err))
        return false;
    if (!json_is_string(op))
        return err_set(err, "op: must be a string, got %s", json_kind(op));
    const char *name = json_string_value(op);
    if (!strncmp(name, "DML_OPERATOR_", 13))
        name += 13;
    c->op = op_from_name(name);
    char names[128];
    if (c->op == OP_COUNT)
        return err_set(err, "op: unknown operator \"%s\" (%s)", json_string_value(op),
                       op_names_list(names, sizeof names));
    return true;
}

static bool parse_header(const json_t *root, dml_case *c, dmlc_error *err)
{
    const json_t *v;
    if (!parse_op(root, c, err))
        return false;
    const char *fields[MAX_CASE_FIELDS];
    allowed_fields(c->op, fields);
    if (!check_fields(root, "", fields, op_table[c->op].name, err))
        return false;
    if ((v = json_object_get(root, "feature_level")) && !parse_feature_level(v, &c->feature_level, err))
        return false;
    if ((v = json_object_get(root, "must_reject"))) {
        if (!json_is_boolean(v))
            return err_set(err, "must_reject: must be true or false, got %s", json_kind(v));
        c->must_reject = json_is_true(v);
        if (c->must_reject && !c->feature_level)
            return err_set(err, "must_reject: needs a feature_level (a descriptor is refused at "
                                "a level)");
    }
    if ((v = json_object_get(root, "comment"))) {
        if (!json_is_string(v))
            return err_set(err, "comment: must be a string, got %s", json_kind(v));
        if (!(c->comment = strdup(json_string_value(v))))
            return err_set(err, "comment: out of memory");
    }
    return true;
}

static bool parse_root(const parser *p, const json_t *root, dml_case *c)
{
    const json_t *input_tensor, *output_tensor;
    if (!json_is_object(root))
        return err_set(p->err, "the case must be a JSON object, got %s", json_kind(root));
    if (count_numbers(root) != p->number_count)
        return err_set(p->err, "internal error: %zu numbers in the text, %zu in the document",
                       p->number_count, count_numbers(root));
    if (!parse_header(root, c, p->err)
        || !require(root, "InputTensor", &input_tensor, p->err)
        || !parse_tensor(input_tensor, "InputTensor", &c->input, p->err)
        || !require(root, "OutputTensor", &output_tensor, p->err)
        || !parse_tensor(output_tensor, "OutputTensor", &c->output, p->err))
        return false;
    if (!parse_operator_fields(root, c, p->err) || !parse_input(p, root, c)
        || !parse_expected(p, root, c))
        return false;
    if (c->must_reject && (c->has_expected_output || c->has_expected_indices))
        return err_set(p->err, "expected: a case that must be refused (must_reject) has no outputs");
    case_link(c);
    return true;
}

/* text with every integer token beyond int64 turned into a decimal string (malloc'd, NUL-
 * terminated; NULL when out of memory).  jansson refuses such numbers ("too big integer"),
 * yet a UINT64 above 2^63 is a plain number in what Python's json and ONNX tools write; as a
 * string, an element value reads it exactly, and any other field says it is too big. */
static char *quote_big_integers(const char *text, size_t len)
{
    char *copy = malloc(len + 1), *out = malloc(2 * len + 3), *o = out;
    if (!copy || !out) {
        free(copy);
        free(out);
        return NULL;
    }
    memcpy(copy, text, len);
    copy[len] = 0;
    for (size_t i = 0; copy[i];) {
        size_t n = 1;
        bool quote = false;
        if (copy[i] == '"') {
            n = skip_string(copy, i) - i;
        } else if (copy[i] == '-' || (copy[i] >= '0' && copy[i] <= '9')) {
            n = strspn(copy + i, "-+.eE0123456789");
            quote = integer_beyond_int64(copy + i, n);
        }
        if (quote)
            *o++ = '"';
        memcpy(o, copy + i, n);
        o += n;
        if (quote)
            *o++ = '"';
        i += n;
    }
    *o = 0;
    free(copy);
    return out;
}

bool casefile_parse(const char *text, size_t len, dml_case *c, dmlc_error *err)
{
    json_error_t jerr;
    case_free(c);
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    char *requoted = NULL;
    if (!root && json_error_code(&jerr) == json_error_numeric_overflow) {
        if (!(requoted = quote_big_integers(text, len)))
            return err_set(err, "out of memory");
        text = requoted;
        len = strlen(requoted);
        root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    }
    if (!root) {
        free(requoted);
        return err_set(err, "line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    }
    parser p = { .err = err };
    bool ok = (p.text = malloc(len + 1)) != NULL;
    if (ok) {
        memcpy(p.text, text, len);
        p.text[len] = 0;
        ok = lex_numbers(&p) && parse_root(&p, root, c);
    } else {
        err_set(err, "out of memory");
    }
    free(requoted);
    free(p.text);
    free(p.numbers);
    json_decref(root);
    if (!ok)
        case_free(c);
    return ok;
}

/* A JSON text holds no NUL byte: a stream that does (/dev/zero, a binary) is refused at the
 * first one instead of being read up to the size limit. */
static bool holds_nul(const char *buf, size_t from, size_t to, dmlc_error *err)
{
    const char *nul = memchr(buf + from, 0, to - from);
    if (nul)
        err_set(err, "byte %zu is NUL: not a JSON text (a case file is UTF-8 JSON)",
                (size_t)(nul - buf));
    return nul != NULL;
}

/* Refuses what is no regular file before reading: a directory, or a file over the limit. */
static bool readable_kind(FILE *f, dmlc_error *err)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return err_set(err, "cannot stat: %s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return err_set(err, "is a directory, not a case file");
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size >= CASEFILE_MAX_FILE_BYTES)
        return err_set(err, "%" PRIu64 " bytes: larger than dmlcheck's case-file limit (%zu bytes)",
                       (uint64_t)st.st_size, CASEFILE_MAX_FILE_BYTES - 1);
    return true;
}

/* Reads f to its end into a malloc'd buffer, refusing a NUL byte and anything of `limit`
 * bytes or more (stopping there, so an endless stream costs `limit` bytes, not memory and
 * time without end).  *over_limit tells that refusal apart; the others are in err. */
static char *read_to_end(FILE *f, size_t limit, size_t *len, bool *over_limit, dmlc_error *err)
{
    size_t capacity = 4096, used = 0;
    char *buf = malloc(capacity);
    bool nul = false;
    while (buf) {
        size_t before = used;
        used += fread(buf + used, 1, capacity - used, f);
        if ((nul = holds_nul(buf, before, used, err)) || used < capacity || used >= limit)
            break;
        size_t grown_capacity = capacity * 2 < limit ? capacity * 2 : limit;
        char *grown = realloc(buf, grown_capacity);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        capacity = grown_capacity;
    }
    bool failed = ferror(f);
    int read_errno = errno;
    *over_limit = buf && !nul && !failed && used >= limit;
    if (!buf || nul || failed || *over_limit) {
        if (!buf)
            err_set(err, "out of memory");
        else if (failed)
            err_set(err, "read error: %s", strerror(read_errno));
        free(buf);
        return NULL;
    }
    *len = used;
    return buf;
}

static char *read_file(const char *path, size_t *len, dmlc_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, "cannot open: %s", strerror(errno));
        return NULL;
    }
    bool over_limit = false;
    char *text = readable_kind(f, err) ? read_to_end(f, CASEFILE_MAX_FILE_BYTES, len, &over_limit, err)
                                       : NULL;
    fclose(f);
    if (over_limit)
        err_set(err, "larger than dmlcheck's case-file limit (%zu bytes)", CASEFILE_MAX_FILE_BYTES - 1);
    return text;
}

bool casefile_load(const char *path, dml_case *c, dmlc_error *err)
{
    size_t len;
    char *text = read_file(path, &len, err);
    bool ok = text && casefile_parse(text, len, c, err);
    free(text);
    if (!ok)
        err_prefix(err, "%s", path);
    return ok;
}

bool casefile_load_stream(FILE *f, const char *name, dml_case *c, dmlc_error *err)
{
    size_t len;
    bool over_limit = false;
    char *text = read_to_end(f, CASEFILE_MAX_STREAM_BYTES, &len, &over_limit, err);
    if (over_limit)
        err_set(err, "%zu bytes and more: larger than dmlcheck's limit for a case read from a "
                "stream (%zu bytes); save the case to a file (limit %zu bytes) and give its name",
                CASEFILE_MAX_STREAM_BYTES, CASEFILE_MAX_STREAM_BYTES - 1, CASEFILE_MAX_FILE_BYTES - 1);
    bool ok = text && casefile_parse(text, len, c, err);
    free(text);
    if (!ok)
        err_prefix(err, "%s", name);
    return ok;
}

