/*
 * fuzz_oracle.c: the spec-literal checks of fuzz_oracle.h.  Plain loops over logical
 * coordinates; values are compared as doubles (floats, exact for FLOAT32 and FLOAT16) or as
 * 64-bit integers, never through the reference's order keys, so a key bug in the reference
 * cannot hide behind the same bug here.
 */
#include "fuzz_oracle.h"
#include "op_module.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "compare.h"
#include "dtype.h"
#include "fuzz_common.h"
#include "half.h"

typedef struct value {
    bool nan;
    DML_TENSOR_DATA_TYPE type;
    double f;   /* floats */
    int64_t s;  /* signed integers */
    uint64_t u; /* unsigned integers */
} value;

void fuzz_print_case(const dml_case *c)
{
    /* A case whose input is not filled yet is printed with zeros, when that is affordable. */
    dml_case copy = *c;
    UINT64 bytes = case_tensor_bytes(&c->input);
    if (!c->input_data && bytes > (1u << 20)) {
        fprintf(stderr, "fuzz: the case's input is %llu bytes, too large to print\n",
                (unsigned long long)bytes);
        return;
    }
    if (!c->input_data)
        copy.input_data = calloc(bytes ? bytes : 1, 1);
    case_link(&copy);
    char *json = copy.input_data ? casefile_write(&copy, NULL) : NULL;
    fprintf(stderr, "fuzz: the case:\n%s\n", json ? json : "(casefile_write failed)");
    free(json);
    if (copy.input_data != c->input_data)
        free(copy.input_data);
}

/* Prints the case, then fails with the formatted message. */
__attribute__((format(printf, 2, 3))) static _Noreturn void oracle_fail(const dml_case *c,
                                                                        const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fuzz_print_case(c);
    fuzz_fail("%s", msg);
}

/* SEMANTICS D6: with `flush`, an fp32 denormal is judged as the zero of its sign. */
static value value_of(DML_TENSOR_DATA_TYPE t, uint64_t bits, bool flush)
{
    value v = { .type = t };
    if (t == DML_TENSOR_DATA_TYPE_FLOAT32) {
        uint32_t b = (uint32_t)bits;
        v.f = float_from_bits(flush ? float_bits_flush_denormal(b) : b);
    } else if (t == DML_TENSOR_DATA_TYPE_FLOAT16) {
        v.f = half_to_float((uint16_t)bits); /* exact; FLOAT16 is never flushed */
    } else if (dtype_is_signed_int(t)) {
        v.s = dtype_bits_to_i64(t, bits);
    } else {
        v.u = bits;
    }
    v.nan = dtype_is_float(t) && isnan(v.f);
    return v;
}

/* -1, 0, 1 for two non-NaN values; +0 and -0 compare equal (D3). */
static int compare_numbers(const value *a, const value *b)
{
    if (dtype_is_float(a->type))
        return a->f < b->f ? -1 : a->f > b->f;
    if (dtype_is_signed_int(a->type))
        return a->s < b->s ? -1 : a->s > b->s;
    return a->u < b->u ? -1 : a->u > b->u;
}

/* Is a strictly better than b?  SEMANTICS D4: `ignore`: a number beats a NaN; `propagate`:
 * a NaN beats a number; two NaNs tie. */
static bool beats(const value *a, const value *b, bool minimize, nan_policy policy)
{
    if (a->nan || b->nan) {
        if (a->nan && b->nan)
            return false;
        return policy == NAN_POLICY_PROPAGATE ? a->nan : b->nan;
    }
    int cmp = compare_numbers(a, b);
    return minimize ? cmp < 0 : cmp > 0;
}

static bool ties(const value *a, const value *b)
{
    if (a->nan || b->nan)
        return a->nan && b->nan;
    return compare_numbers(a, b) == 0;
}

static const char *fmt_bits(DML_TENSOR_DATA_TYPE t, uint64_t bits, char *buf, unsigned size)
{
    return compare_format_value(t, bits, buf, size);
}

static const char *fmt_coords(const uint32_t *coords, unsigned rank, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < rank && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%u", i ? "," : "{", coords[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    if (used < size)
        snprintf(buf + used, size - used, "}");
    return buf;
}

/* Bits of the input element at logical coordinates. */
static uint64_t input_bits(const dml_case *c, const tensor_view *v, const uint32_t *coords)
{
    return dtype_load_bits(c->input_data, c->input.type, tensor_view_offset_coords(v, coords));
}

/* An index read from an index tensor; negative signed values become UINT64_MAX. */
static uint64_t index_value(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    if (dtype_is_signed_int(t)) {
        int64_t s = dtype_bits_to_i64(t, bits);
        return s < 0 ? UINT64_MAX : (uint64_t)s;
    }
    return bits;
}

/* Coordinates of member r of the reduction group of output coords `out`: SEMANTICS D2, the
 * row-major flat index over the reduced axes in ascending order (last one fastest). */
static void group_member(const tensor_view *in, const bool *reduced, const uint32_t *out,
                         uint64_t r, uint32_t *coords)
{
    for (unsigned a = in->rank; a-- > 0;) {
        coords[a] = out[a];
        if (reduced[a]) {
            coords[a] = (uint32_t)(r % in->sizes[a]);
            r /= in->sizes[a];
        }
    }
}

static void check_arg_reduce(const dml_case *c, const exec_options *opt, const case_outputs *out,
                             const char *who)
{
    tensor_view in, ov;
    case_tensor_view(&c->input, &in);
    case_tensor_view(&c->output, &ov);
    bool reduced[DML_MAX_RANK] = { false }, minimize = op_table[c->op].flags & OPF_MINIMIZES;
    bool decreasing = c->direction == DML_AXIS_DIRECTION_DECREASING;
    uint64_t group = 1;
    for (UINT i = 0; i < c->axis_count; i++)
        reduced[c->axes[i]] = true;
    for (unsigned a = 0; a < in.rank; a++)
        group *= reduced[a] ? in.sizes[a] : 1;
    const char *op = op_table[c->op].name;
    for (uint64_t o = 0; o < ov.elements; o++) {
        uint32_t oc[DML_MAX_RANK], mc[DML_MAX_RANK];
        char cs[128], b1[96], b2[96];
        tensor_view_coords(&ov, o, oc);
        uint64_t bits = dtype_load_bits(out->output, ov.type, tensor_view_offset(&ov, o));
        uint64_t chosen = index_value(ov.type, bits);
        if (chosen >= group)
            oracle_fail(c, "%s %s: output %s holds index %s, outside the reduced sub-tensor of %" PRIu64
                        " elements", who, op, fmt_coords(oc, ov.rank, cs, sizeof cs),
                        fmt_bits(ov.type, bits, b1, sizeof b1), group);
        group_member(&in, reduced, oc, chosen, mc);
        uint64_t chosen_bits = input_bits(c, &in, mc);
        value best = value_of(in.type, chosen_bits, opt->flush_denormals);
        for (uint64_t r = 0; r < group; r++) {
            group_member(&in, reduced, oc, r, mc);
            uint64_t rb = input_bits(c, &in, mc);
            value v = value_of(in.type, rb, opt->flush_denormals);
            bool wrong_tie = ties(&v, &best) && (decreasing ? r > chosen : r < chosen);
            if (beats(&v, &best, minimize, opt->nan) || wrong_tie)
                oracle_fail(c, "%s %s (%s, nan policy %s): output %s is index %" PRIu64 " (value %s) "
                            "but group element %" PRIu64 " (value %s) %s", who, op,
                            decreasing ? "DECREASING" : "INCREASING", nan_policy_name(opt->nan),
                            fmt_coords(oc, ov.rank, cs, sizeof cs), chosen,
                            fmt_bits(in.type, chosen_bits, b1, sizeof b1), r,
                            fmt_bits(in.type, rb, b2, sizeof b2),
                            wrong_tie ? (decreasing ? "ties it and comes later (DECREASING takes the last)"
                                                    : "ties it and comes first (INCREASING takes the first)")
                                      : "is strictly better");
        }
    }
}

/* The in-input taps of one spatial axis of one window (SEMANTICS D7: padding taps are left
 * out): tap k sits at out_pos*Stride - StartPadding + k*Dilation; the taps inside the input
 * are *first, *first + Dilation, ... (*count of them).  No overflow: the validator bounds
 * the dilated window by the padded input (D9), so every term is below 2^35. */
static void window_taps(const dml_case *c, unsigned axis, uint32_t out_pos, int64_t *first,
                        uint64_t *count)
{
    int64_t dil = c->dilations[axis], in = c->input.sizes[2 + axis];
    int64_t base = (int64_t)out_pos * c->pool_strides[axis] - c->start_padding[axis];
    int64_t k_lo = base >= 0 ? 0 : (-base + dil - 1) / dil;
    int64_t k_hi = in - 1 - base < 0 ? -1 : (in - 1 - base) / dil;
    if (k_hi > (int64_t)c->window[axis] - 1)
        k_hi = (int64_t)c->window[axis] - 1;
    *first = base + k_lo * dil;
    *count = k_hi >= k_lo ? (uint64_t)(k_hi - k_lo + 1) : 0;
}

/* Winner of the window of output coords `oc`: the first element (row-major over the window)
 * that no later element beats.  Returns false when the window lies entirely in padding. */
static bool pool_winner(const dml_case *c, const exec_options *opt, const tensor_view *in,
                        const uint32_t *oc, uint64_t *flat, uint64_t *bits)
{
    int64_t first[DML_MAX_SPATIAL];
    uint64_t count[DML_MAX_SPATIAL], k[DML_MAX_SPATIAL] = { 0 };
    unsigned s = c->spatial_count;
    for (unsigned a = 0; a < s; a++) {
        window_taps(c, a, oc[2 + a], &first[a], &count[a]);
        if (count[a] == 0)
            return false;
    }
    bool found = false;
    value best = { 0 };
    for (;;) {
        uint32_t ic[DML_MAX_RANK] = { oc[0], oc[1] };
        for (unsigned a = 0; a < s; a++)
            ic[2 + a] = (uint32_t)(first[a] + (int64_t)k[a] * c->dilations[a]);
        uint64_t b = input_bits(c, in, ic);
        value v = value_of(in->type, b, opt->flush_denormals);
        if (!found || beats(&v, &best, false, opt->nan)) {
            found = true;
            best = v;
            /* Flushed: the answer on flushed inputs holds the flushed bits (reference.h). */
            *bits = opt->flush_denormals && in->type == DML_TENSOR_DATA_TYPE_FLOAT32
                ? float_bits_flush_denormal((uint32_t)b) : b;
            *flat = 0;
            for (unsigned a = 0; a < in->rank; a++)
                *flat = *flat * in->sizes[a] + ic[a];
        }
        unsigned a = s; /* odometer, last axis fastest: row-major over the window */
        while (a-- > 0 && ++k[a] == count[a])
            k[a] = 0;
        if (a == (unsigned)-1)
            return true;
    }
}

static void check_pooling(const dml_case *c, const exec_options *opt, const case_outputs *out,
                          const char *who)
{
    tensor_view in, ov, iv;
    case_tensor_view(&c->input, &in);
    case_tensor_view(&c->output, &ov);
    if (c->indices.present)
        case_tensor_view(&c->indices, &iv);
    DML_TENSOR_DATA_TYPE t = in.type;
    for (uint64_t o = 0; o < ov.elements; o++) {
        uint32_t oc[DML_MAX_RANK];
        char cs[128], b1[96], b2[96];
        tensor_view_coords(&ov, o, oc);
        uint64_t flat = 0, bits = 0;
        bool inside = pool_winner(c, opt, &in, oc, &flat, &bits);
        if (!inside) { /* SEMANTICS D7: the padding_window convention */
            bits = dtype_lowest_bits(t);
            flat = c->indices.type == DML_TENSOR_DATA_TYPE_UINT64 ? UINT64_MAX : 0xffffffffu;
        }
        uint64_t got = dtype_load_bits(out->output, t, tensor_view_offset(&ov, o));
        if (got != bits)
            oracle_fail(c, "%s MAX_POOLING2 (nan policy %s): output %s is %s but the %s is %s%s", who,
                        nan_policy_name(opt->nan), fmt_coords(oc, ov.rank, cs, sizeof cs),
                        fmt_bits(t, got, b1, sizeof b1),
                        inside ? "window's first maximal element" : "all-padding window's convention",
                        fmt_bits(t, bits, b2, sizeof b2),
                        inside ? "" : " (the type's lowest value, SEMANTICS D7)");
        if (!c->indices.present)
            continue;
        uint64_t got_index = dtype_load_bits(out->indices, iv.type, tensor_view_offset(&iv, o));
        if (got_index != flat) {
            uint32_t gc[DML_MAX_RANK];
            bool in_range = got_index < in.elements;
            if (in_range)
                tensor_view_coords(&in, got_index, gc);
            char gcs[128] = "";
            oracle_fail(c, "%s MAX_POOLING2 (nan policy %s): indices %s is %" PRIu64 "%s%s%s but %s %" PRIu64
                        " (value %s)%s", who, nan_policy_name(opt->nan),
                        fmt_coords(oc, ov.rank, cs, sizeof cs), got_index,
                        in_range ? " (input " : " (outside the input)",
                        in_range ? fmt_coords(gc, in.rank, gcs, sizeof gcs) : "",
                        in_range ? ")" : "",
                        inside ? "the window's first maximal element is" : "an all-padding window gives",
                        flat, fmt_bits(t, bits, b1, sizeof b1),
                        in_range ? "" : "");
        }
    }
}

void fuzz_oracle_check(const dml_case *c, const exec_options *opt, const case_outputs *out,
                       const char *who)
{
    /* This oracle derives each family's semantics again, on purpose (fuzz_oracle.h); a
     * family it does not know is a failure, never another family's check. */
    const char *family = op_table[c->op].module_name;
    if (!strcmp(family, "arg_reduce"))
        check_arg_reduce(c, opt, out, who);
    else if (!strcmp(family, "max_pooling"))
        check_pooling(c, opt, out, who);
    else
        fuzz_fail("%s: the fuzz oracle has no check for operator family %s", who, family);
}

bool fuzz_oracle_flush_changes_input(const dml_case *c)
{
    if (c->input.type != DML_TENSOR_DATA_TYPE_FLOAT32)
        return false;
    tensor_view v;
    case_tensor_view(&c->input, &v);
    uint32_t coords[DML_MAX_RANK] = { 0 };
    uint64_t offset = 0;
    for (uint64_t i = 0; i < v.elements; i++, tensor_view_step(&v, coords, &offset)) {
        uint32_t bits = (uint32_t)dtype_load_bits(c->input_data, v.type, offset);
        if (float_bits_flush_denormal(bits) != bits)
            return true;
    }
    return false;
}

static bool input_has_nan(const dml_case *c)
{
    tensor_view v;
    case_tensor_view(&c->input, &v);
    for (uint64_t i = 0; dtype_is_float(v.type) && i < v.elements; i++)
        if (dtype_bits_is_nan(v.type, dtype_load_bits(c->input_data, v.type, tensor_view_offset(&v, i))))
            return true;
    return false;
}

/* SEMANTICS D7: some window of some axis has no tap inside the input. */
static bool has_padding_window(const dml_case *c)
{
    for (unsigned a = 0; a < c->spatial_count; a++) /* 0 outside pooling */
        for (uint32_t o = 0; o < c->output.sizes[2 + a]; o++) {
            int64_t first;
            uint64_t count;
            window_taps(c, a, o, &first, &count);
            if (count == 0)
                return true;
        }
    return false;
}

void fuzz_oracle_check_classes(const dml_case *c, unsigned classes, const case_outputs *exact,
                               const case_outputs *flushed)
{
    char names[64];
    if ((classes & CASE_CLASS_NAN) && !input_has_nan(c))
        oracle_fail(c, "reference classes '%s' include nan but no input element is a NaN",
                    case_classes_str(classes, names, sizeof names));
    bool padding = has_padding_window(c);
    if (!(classes & CASE_CLASS_PADDING_WINDOW) != !padding)
        oracle_fail(c, "reference classes '%s' %s padding_window but %s pooling window lies entirely "
                    "in padding", case_classes_str(classes, names, sizeof names),
                    padding ? "lack" : "include", padding ? "a" : "no");
    bool differs = !compare_outputs(c, exact, flushed, NULL);
    if (!(classes & CASE_CLASS_DENORMAL) != !differs)
        oracle_fail(c, "reference classes '%s' %s denormal but the fp32-denormal-flushed answer %s",
                    case_classes_str(classes, names, sizeof names), differs ? "lack" : "include",
                    differs ? "differs" : "is the same");
}
