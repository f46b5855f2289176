/*
 * ref_check.c: see ref_check.h.
 */
#include "ref_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_builder.h"
#include "dtype.h"
#include "kernels.h"
#include "naive.h"
#include "op_module.h"
#include "reference.h"

/* Appends printf-style text to buf at *used, never overflowing. */
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n < size - *used ? (size_t)n : size - *used - 1;
}

static void append_uints(char *buf, size_t size, size_t *used, const char *name,
                         unsigned n, const UINT *v)
{
    append(buf, size, used, " %s {", name);
    for (unsigned i = 0; i < n; i++)
        append(buf, size, used, "%s%u", i ? "," : "", v[i]);
    append(buf, size, used, "}");
}

static void append_tensor(char *buf, size_t size, size_t *used, const char *name,
                          const case_tensor *t)
{
    append(buf, size, used, " %s %s", name, dtype_name(t->type));
    append_uints(buf, size, used, "sizes", t->rank, t->sizes);
    if (t->has_strides)
        append_uints(buf, size, used, "strides", t->rank, t->strides);
}

void describe_case(const dml_case *c, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    append(buf, size, &used, "%s", op_table[c->op].name);
    append_tensor(buf, size, &used, "input", &c->input);
    append_tensor(buf, size, &used, "output", &c->output);
    if (!op_table[c->op].module->output_is_index) {
        if (c->indices.present)
            append_tensor(buf, size, &used, "indices", &c->indices);
        append_uints(buf, size, &used, "window", c->spatial_count, c->window);
        append_uints(buf, size, &used, "strides", c->spatial_count, c->pool_strides);
        append_uints(buf, size, &used, "start", c->spatial_count, c->start_padding);
        append_uints(buf, size, &used, "end", c->spatial_count, c->end_padding);
        append_uints(buf, size, &used, "dilations", c->spatial_count, c->dilations);
    } else {
        append_uints(buf, size, &used, "axes", c->axis_count, c->axes);
        append(buf, size, &used, " %s",
               c->direction == DML_AXIS_DIRECTION_DECREASING ? "DECREASING" : "INCREASING");
    }
    uint64_t n = case_tensor_elements(&c->input);
    if (n <= 64) {
        append(buf, size, &used, " input bits [");
        for (uint64_t i = 0; i < n; i++)
            append(buf, size, &used, "%s0x%llx", i ? "," : "",
                   (unsigned long long)cb_get_input(c, i));
        append(buf, size, &used, "]");
    }
}

unsigned ref_logical(const dml_case *c, const exec_options *opt, uint64_t **output,
                     uint64_t **indices)
{
    case_outputs o;
    if (!case_outputs_alloc(&o, c))
        abort();
    unsigned classes = ref_classify(c, opt, &o, NULL);
    uint64_t n = case_tensor_elements(&c->output);
    *output = calloc(n, sizeof **output);
    *indices = NULL;
    bool has_indices = !op_table[c->op].module->output_is_index && c->indices.present;
    if (has_indices)
        *indices = calloc(n, sizeof **indices);
    if (!*output || (has_indices && !*indices))
        abort();
    for (uint64_t i = 0; i < n; i++) {
        (*output)[i] = cb_output_at(c, &o, i);
        if (has_indices)
            (*indices)[i] = cb_index_at(c, &o, i);
    }
    case_outputs_free(&o);
    return classes;
}

/* ref_logical with the portable kernel table forced (kernels.h), the environment restored
 * afterwards. */
static unsigned ref_logical_portable(const dml_case *c, const exec_options *opt,
                                     uint64_t **output, uint64_t **indices)
{
    const char *was = getenv("DMLCHECK_REFERENCE_PORTABLE");
    char *saved = was ? strdup(was) : NULL;
    setenv("DMLCHECK_REFERENCE_PORTABLE", "1", 1);
    unsigned classes = ref_logical(c, opt, output, indices);
    if (saved)
        setenv("DMLCHECK_REFERENCE_PORTABLE", saved, 1);
    else
        unsetenv("DMLCHECK_REFERENCE_PORTABLE");
    free(saved);
    return classes;
}

/* The checkasm rule: where this CPU selects a faster kernel table, its answer must be the
 * portable table's, bit for bit (outputs, indices and classes). */
static bool fast_equals_portable(const dml_case *c, const exec_options *opt, unsigned classes,
                                 const uint64_t *out, const uint64_t *idx, char *why,
                                 size_t size, size_t *used)
{
    const ref_kernels *fast = ref_kernels_select();
    if (fast == &ref_kernels_portable)
        return true;
    uint64_t *plain_out, *plain_idx;
    unsigned plain_classes = ref_logical_portable(c, opt, &plain_out, &plain_idx);
    uint64_t n = case_tensor_elements(&c->output);
    bool ok = classes == plain_classes;
    if (!ok)
        append(why, size, used, "classes: %s kernels 0x%x, portable 0x%x;", fast->name, classes,
               plain_classes);
    for (uint64_t i = 0; ok && i < n; i++)
        if (out[i] != plain_out[i] || (idx && idx[i] != plain_idx[i])) {
            append(why, size, used, "element %llu: %s kernels 0x%llx index %llu, portable 0x%llx "
                   "index %llu;", (unsigned long long)i, fast->name, (unsigned long long)out[i],
                   (unsigned long long)(idx ? idx[i] : 0), (unsigned long long)plain_out[i],
                   (unsigned long long)(idx ? plain_idx[i] : 0));
            ok = false;
        }
    free(plain_out);
    free(plain_idx);
    return ok;
}

bool check_against_naive(const dml_case *c, const exec_options *opt, char *why, size_t size)
{
    uint64_t *out, *idx;
    unsigned classes = ref_logical(c, opt, &out, &idx);
    naive_result r;
    naive_run(c, opt, &r);
    uint64_t n = case_tensor_elements(&c->output);
    size_t used = 0;
    bool ok = fast_equals_portable(c, opt, classes, out, idx, why, size, &used);
    for (uint64_t i = 0; ok && i < n; i++) {
        if (out[i] != r.output[i]) {
            append(why, size, &used, "output[%llu]: reference 0x%llx, naive 0x%llx;",
                   (unsigned long long)i, (unsigned long long)out[i],
                   (unsigned long long)r.output[i]);
            ok = false;
        } else if (idx && idx[i] != r.indices[i]) {
            append(why, size, &used, "indices[%llu]: reference %llu, naive %llu;",
                   (unsigned long long)i, (unsigned long long)idx[i],
                   (unsigned long long)r.indices[i]);
            ok = false;
        }
    }
    if (ok && classes != r.classes) {
        char a[64], b[64];
        append(why, size, &used, "classes: reference '%s', naive '%s';",
               case_classes_str(classes, a, sizeof a), case_classes_str(r.classes, b, sizeof b));
        ok = false;
    }
    if (!ok) {
        append(why, size, &used, " nan policy %s, flush %d:", nan_policy_name(opt->nan),
               opt->flush_denormals);
        describe_case(c, why + used, size - used);
    }
    free(out);
    free(idx);
    naive_result_free(&r);
    return ok;
}

void ref_group_check(ref_group *g, dml_case *c, const exec_options *opt)
{
    char why[REF_WHY_SIZE] = "";
    g->cases++;
    if (!cb_validate(c, why, sizeof why)) {
        if (!g->rejected++) {
            int used = snprintf(g->first_rejection, REF_WHY_SIZE, "%.3000s: ", why);
            describe_case(c, g->first_rejection + used, REF_WHY_SIZE - (size_t)used);
        }
        return;
    }
    if (!check_against_naive(c, opt, why, sizeof why) && !g->failures++)
        snprintf(g->first_failure, sizeof g->first_failure, "%s", why);
}

void ref_group_report(tap *t, ref_group *g, const char *replay, const char *name)
{
    if (g->failures)
        tap_diag("%u of %u cases differ; first: %s", g->failures, g->cases, g->first_failure);
    if (g->rejected)
        tap_diag("%u of %u cases rejected by the validator; first: %s", g->rejected, g->cases,
                 g->first_rejection);
    if (g->failures || g->rejected)
        tap_diag("replay: %s", replay);
    tap_ok(t, g->cases > 0 && !g->failures && !g->rejected, "%s (%u cases)", name, g->cases);
    memset(g, 0, sizeof *g);
}
