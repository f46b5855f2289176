/*
 * evidence.c: a diagnosis written out (diagnose.h): as JSON for the results store and
 * reports, and as a few lines for a person.  Elements are listed by logical row-major
 * position; float values as their raw bits in hex (exact), integers in decimal.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diagnose.h"

#include "casefile.h"
#include "dtype.h"
#include "op_module.h"

/* Logical element `logical` of tensor t in buf (raw bits). */
static uint64_t element_bits(const case_tensor *t, const uint8_t *buf, uint64_t logical)
{
    tensor_view view;
    case_tensor_view(t, &view);
    return dtype_load_bits(buf, t->type, tensor_view_offset(&view, logical));
}

static json_t *value_json(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    if (dtype_is_float(t) || bits > INT64_MAX) {
        char hex[24];
        snprintf(hex, sizeof hex, "0x%" PRIx64, bits);
        return json_string(hex);
    }
    return json_integer(dtype_is_signed_int(t) ? dtype_bits_to_i64(t, bits) : (json_int_t)bits);
}

/* The logical elements of t in buf as a JSON array. */
static json_t *tensor_json(const case_tensor *t, const uint8_t *buf)
{
    json_t *a = json_array();
    uint64_t n = case_tensor_elements(t);
    for (uint64_t i = 0; a && i < n; i++)
        json_array_append_new(a, value_json(t->type, element_bits(t, buf, i)));
    return a;
}

static json_t *outputs_json(const dml_case *c, const case_outputs *o)
{
    json_t *j = json_object();
    json_object_set_new(j, "output", tensor_json(&c->output, o->output));
    if (c->indices.present && o->indices)
        json_object_set_new(j, "indices", tensor_json(&c->indices, o->indices));
    return j;
}

static json_t *uints_json(const UINT *v, unsigned n)
{
    json_t *a = json_array();
    for (unsigned i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The probe as a case: operator, types, sizes, strides, parameters and input values. */
static json_t *probe_json(const dml_case *c)
{
    json_t *j = json_object();
    char params[512];
    json_object_set_new(j, "operator", json_string(op_table[c->op].name));
    json_object_set_new(j, "feature_level", json_string(fl_name(c->feature_level)));
    json_object_set_new(j, "input_type", json_string(dtype_name(c->input.type)));
    json_object_set_new(j, "output_type", json_string(dtype_name(c->output.type)));
    json_object_set_new(j, "input_sizes", uints_json(c->input.sizes, c->input.rank));
    json_object_set_new(j, "input_strides", c->input.has_strides
                                                ? uints_json(c->input.strides, c->input.rank) : json_null());
    json_object_set_new(j, "output_strides", c->output.has_strides
                                                 ? uints_json(c->output.strides, c->output.rank) : json_null());
    json_object_set_new(j, "indices", json_boolean(c->indices.present));
    if (case_module(c)->params_json(c, params, sizeof params))
        json_object_set_new(j, "params", json_loads(params, 0, NULL));
    json_object_set_new(j, "input", tensor_json(&c->input, c->input_data));
    return j;
}

static json_t *ids_json(uint64_t mask)
{
    json_t *a = json_array();
    for (size_t k = 0; a && k < CAUSE_COUNT; k++)
        if ((mask >> k) & 1)
            json_array_append_new(a, json_string(cause_catalogue[k]->id));
    return a;
}

/* The cause whose prediction a probe's evidence shows: the confirmed one, else the one the
 * probe was built for. */
static size_t shown_cause(const diagnosis *d, const diagnosis_probe *r)
{
    const cause *h = d->confirmed_count ? d->confirmed[0] : r->built_for;
    for (size_t k = 0; k < CAUSE_COUNT; k++)
        if (cause_catalogue[k] == h)
            return k;
    return 0;
}

static json_t *evidence_json(const diagnosis *d, const diagnosis_probe *r)
{
    json_t *j = json_object();
    size_t shown = shown_cause(d, r);
    json_object_set_new(j, "built_for", json_string(r->built_for->id));
    json_object_set_new(j, "probe", probe_json(&r->probe));
    /* The probe as a case file with the spec's answer as "expected", for `dmlcheck exec`
     * (`dmlcheck export --family N --probe K` writes it). */
    char *file = casefile_write(&r->probe, &r->spec);
    json_object_set_new(j, "case", file ? json_loads(file, 0, NULL) : json_null());
    free(file);
    json_object_set_new(j, "spec", outputs_json(&r->probe, &r->spec));
    json_object_set_new(j, "predicted_by", json_string(cause_catalogue[shown]->id));
    json_object_set_new(j, "predicted", (r->predicts >> shown) & 1
                                            ? outputs_json(&r->probe, &r->predicted[shown]) : json_null());
    json_object_set_new(j, "got", r->got.ran ? outputs_json(&r->probe, &r->got.outputs) : json_null());
    json_object_set_new(j, "explained_by", ids_json(r->holds & d->rivals));
    return j;
}

json_t *diagnosis_json(const diagnosis *d)
{
    json_t *j = json_object(), *causes = json_array(), *evidence = json_array();
    if (!j || !causes || !evidence) {
        json_decref(j);
        json_decref(causes);
        json_decref(evidence);
        return NULL;
    }
    json_object_set_new(j, "status", json_string(d->interacting ? "confirmed together"
                                                 : d->confirmed_count ? "confirmed" : "undiagnosed"));
    for (unsigned i = 0; i < d->confirmed_count; i++) {
        json_t *c = json_object();
        json_object_set_new(c, "id", json_string(d->confirmed[i]->id));
        json_object_set_new(c, "sentence", json_string(d->confirmed[i]->sentence));
        json_array_append_new(causes, c);
    }
    json_object_set_new(j, "causes", causes);
    if (d->also_possible) /* the probes cannot tell it from causes[0] on this case */
        json_object_set_new(j, "or", json_string(d->also_possible->id));
    json_object_set_new(j, "candidates", ids_json(d->candidates));
    json_object_set_new(j, "probes_asked", json_integer(d->probe_count));
    for (unsigned i = 0; i < d->probe_count; i++)
        json_array_append_new(evidence, evidence_json(d, &d->probes[i]));
    json_object_set_new(j, "evidence", evidence);
    return j;
}

/* ---- text --------------------------------------------------------------------------- */

/* Appends printf-style text at *used, cut short (still terminated) when buf is full. */
static void put(char *buf, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    *used = n < 0 ? size : *used + (size_t)n;
}

/* Shows this many elements of a tensor, then "...". */
#define TEXT_ELEMENTS 8

static void put_tensor(char *buf, size_t size, size_t *used, const case_tensor *t, const uint8_t *data)
{
    uint64_t n = case_tensor_elements(t);
    put(buf, size, used, "[");
    for (uint64_t i = 0; i < n && i < TEXT_ELEMENTS; i++) {
        uint64_t bits = element_bits(t, data, i);
        if (dtype_is_float(t->type))
            put(buf, size, used, "%s%g", i ? "," : "", dtype_bits_to_double(t->type, bits));
        else if (dtype_is_signed_int(t->type))
            put(buf, size, used, "%s%" PRId64, i ? "," : "", dtype_bits_to_i64(t->type, bits));
        else
            put(buf, size, used, "%s%" PRIu64, i ? "," : "", bits);
    }
    put(buf, size, used, "%s]", n > TEXT_ELEMENTS ? ",..." : "");
}

/* "spec [..], predicted [..], got [..]" for the tensor that shows the cause: the index
 * tensor where the probe has one, else the output. */
static void put_answers(char *buf, size_t size, size_t *used, const diagnosis_probe *r, size_t shown)
{
    const dml_case *c = &r->probe;
    bool indices = c->indices.present;
    const case_tensor *t = indices ? &c->indices : &c->output;
    const case_outputs *answers[] = { &r->spec, (r->predicts >> shown) & 1 ? &r->predicted[shown] : NULL,
                                      r->got.ran ? &r->got.outputs : NULL };
    const char *names[] = { "spec", "predicted", "got" };
    for (size_t i = 0; i < 3; i++) {
        put(buf, size, used, "%s%s%s ", i ? ", " : "", names[i], indices ? " indices" : "");
        if (!answers[i])
            put(buf, size, used, "(none)");
        else
            put_tensor(buf, size, used, t, indices ? answers[i]->indices : answers[i]->output);
    }
}

/* The other causes whose prediction is what came back: the look-alikes that kept a probe
 * from counting for one cause alone. */
static void put_look_alikes(char *buf, size_t size, size_t *used, uint64_t held)
{
    const char *sep = "; also by ";
    for (size_t k = 0; k < CAUSE_COUNT; k++)
        if ((held >> k) & 1) {
            put(buf, size, used, "%s%s", sep, cause_catalogue[k]->id);
            sep = ", ";
        }
}

const char *diagnosis_text(const diagnosis *d, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!d->confirmed_count)
        put(buf, size, &used, "undiagnosed: no root cause's predictions held alone on %d probes "
            "(%u asked)\n", DIAGNOSE_CONFIRMATIONS, d->probe_count);
    if (d->interacting)
        put(buf, size, &used, "two root causes confirmed together (neither explains the answers "
            "alone):\n");
    for (unsigned i = 0; i < d->confirmed_count; i++)
        put(buf, size, &used, "confirmed root cause %s: %s\n", d->confirmed[i]->id, d->confirmed[i]->sentence);
    for (unsigned i = 0; i < d->probe_count; i++) {
        const diagnosis_probe *r = &d->probes[i];
        char params[256], sizes[96];
        size_t shown = shown_cause(d, r);
        case_module(&r->probe)->describe(&r->probe, params, sizeof params);
        op_uints_text(r->probe.input.sizes, r->probe.input.rank, sizes, sizeof sizes);
        put(buf, size, &used, "  probe %u for %s: %s %s %s %s: ", i + 1, r->built_for->id,
            op_table[r->probe.op].name, dtype_name(r->probe.input.type), sizes, params);
        put_answers(buf, size, &used, r, shown);
        put(buf, size, &used, " (%s by %s", (r->holds >> shown) & 1 ? "predicted" : "not predicted",
            cause_catalogue[shown]->id);
        put_look_alikes(buf, size, &used, r->holds & r->differs & ~(1ull << shown));
        put(buf, size, &used, ")\n");
    }
    return buf;
}
