/*
 * check.c: the one differential check and its one explanation (see check.h).
 *
 * Invariants: the backend always writes into buffers filled with CASE_CANARY_BYTE, framed by
 * GUARD_BYTES of canary that must survive the run; the input is compared byte for byte after
 * the run; a classed difference is "unspecified" only where the caller did not ask for an
 * exact check, and a case file's expected arrays are always exact; a flushing device is
 * excused only through judge_outputs' flushed-answer rule.  Nothing here knows which operator
 * a case is: the inputs an index picked come from classify_picked_input via the judgement.
 */
#include "check.h"
#include "clock.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "dtype.h"
#include "reference.h"

#define GUARD_BYTES 64
#define EXPLAIN_MAX 4096

/* ---- The oracle half ---------------------------------------------------------------- */

bool check_prepare(const dml_case *c, const exec_options *exec, check_oracle *o, dmlc_error *err)
{
    memset(o, 0, sizeof *o);
    if (c->must_reject) /* no answer exists: the descriptor must be refused */
        return true;
    if (!case_outputs_alloc(&o->expected, c))
        return err_set(err, "out of memory: cannot allocate the reference outputs, %llu bytes",
                       (unsigned long long)(case_tensor_bytes(&c->output)
                           + (c->indices.present ? case_tensor_bytes(&c->indices) : 0)));
    /* Only fp32 denormals are ever flushed (SEMANTICS D6): other cases need no second answer. */
    bool fp32 = c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32;
    o->classes = ref_classify(c, exec, &o->expected, fp32 ? &o->flushed : NULL);
    return true;
}

void check_oracle_free(check_oracle *o)
{
    case_outputs_free(&o->expected);
    case_outputs_free(&o->flushed);
}

/* ---- The backend half --------------------------------------------------------------- */

void check_buffers_free(check_buffers *b)
{
    free(b->output_block);
    free(b->indices_block);
    free(b->input_copy);
    memset(b, 0, sizeof *b);
}

static bool grow(uint8_t **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    uint8_t *q = realloc(*p, need);
    if (!q)
        return false;
    *p = q;
    *cap = need;
    return true;
}

/* An output buffer with a guard band on both sides, all canary. */
static uint8_t *guarded(uint8_t **block, size_t *cap, UINT64 bytes)
{
    if (!grow(block, cap, bytes + 2 * GUARD_BYTES))
        return NULL;
    memset(*block, CASE_CANARY_BYTE, bytes + 2 * GUARD_BYTES);
    return *block + GUARD_BYTES;
}

static bool guards_intact(const uint8_t *buffer, UINT64 bytes)
{
    for (size_t i = 0; i < GUARD_BYTES; i++)
        if (buffer[-1 - (ptrdiff_t)i] != CASE_CANARY_BYTE || buffer[bytes + i] != CASE_CANARY_BYTE)
            return false;
    return true;
}

/* Canary-filled, guarded outputs for c in buf; false when memory runs out. */
static bool guarded_outputs(const dml_case *c, check_buffers *buf, case_outputs *o)
{
    memset(o, 0, sizeof *o);
    o->output_bytes = case_tensor_bytes(&c->output);
    o->output = guarded(&buf->output_block, &buf->output_cap, o->output_bytes);
    if (c->indices.present) {
        o->indices_bytes = case_tensor_bytes(&c->indices);
        o->indices = guarded(&buf->indices_block, &buf->indices_cap, o->indices_bytes);
    }
    return o->output && (!c->indices.present || o->indices);
}

static bool backend_validates(const backend_vtable *vt, backend *b)
{
    backend_info info;
    vt->info(b, &info);
    return info.validates;
}

/* Before the backend runs c: guarded outputs, the input's copy, and whether it may be sent
 * at all.  False when the answer is already known (in a). */
static bool run_begin(const backend_vtable *vt, backend *b, const dml_case *c, check_buffers *buf,
                      check_answer *a)
{
    memset(a, 0, sizeof *a);
    UINT64 in_bytes = case_tensor_bytes(&c->input);
    if (!guarded_outputs(c, buf, &a->outputs) || !grow(&buf->input_copy, &buf->input_cap, in_bytes)) {
        UINT64 out_bytes = case_tensor_bytes(&c->output)
                           + (c->indices.present ? case_tensor_bytes(&c->indices) : 0);
        unsigned guards = (c->indices.present ? 4 : 2) * GUARD_BYTES;
        a->status = RUN_BACKEND_ERROR;
        a->out_of_memory = true;
        snprintf(a->message, sizeof a->message, "out of memory: cannot allocate the backend's "
                 "guarded outputs and the input's copy, %llu bytes (outputs %llu + guard bands "
                 "%u + input %llu)", (unsigned long long)(out_bytes + guards + in_bytes),
                 (unsigned long long)out_bytes, guards, (unsigned long long)in_bytes);
        return false;
    }
    memcpy(buf->input_copy, c->input_data, in_bytes);
    if (c->must_reject && !backend_validates(vt, b)) {
        a->status = RUN_UNSUPPORTED;
        snprintf(a->message, sizeof a->message, "the backend does not check descriptors, so it is "
                 "not sent ones it must refuse");
        return false;
    }
    return true;
}

/* After the backend ran c with status s: the guards and the input, whatever it said. */
static void run_end(const dml_case *c, const check_buffers *buf, run_status s, dmlc_error *err,
                    check_answer *a)
{
    a->status = s;
    const case_outputs *o = &a->outputs;
    if (a->status == RUN_OK && (!guards_intact(o->output, o->output_bytes)
                                || (o->indices && !guards_intact(o->indices, o->indices_bytes)))) {
        a->status = RUN_OUT_OF_BOUNDS_WRITE;
        snprintf(err->msg, sizeof err->msg, "a byte just outside an output buffer was written");
    }
    if (a->status == RUN_OK && memcmp(buf->input_copy, c->input_data, case_tensor_bytes(&c->input))) {
        a->status = RUN_INPUT_MODIFIED;
        snprintf(err->msg, sizeof err->msg, "the input buffer changed during the run");
    }
    if (a->status != RUN_OK) /* cut to fit, as the message's size says */
        snprintf(a->message, sizeof a->message, "%.*s", (int)sizeof a->message - 1, err->msg);
}

void check_run(const backend_vtable *vt, backend *b, const dml_case *c, const exec_options *exec,
               check_buffers *buf, check_answer *a)
{
    if (!run_begin(vt, b, c, buf, a))
        return;
    dmlc_error err = { "" };
    double t0 = (clock_seconds() * 1e6);
    run_status s = vt->run(b, c, exec, &a->outputs, &err);
    a->time_us = (clock_seconds() * 1e6) - t0;
    run_end(c, buf, s, &err, a);
}

void check_run_batch(const backend_vtable *vt, backend *b, const dml_case *const *cases,
                     size_t count, const exec_options *exec, check_buffers *bufs,
                     check_answer *answers)
{
    backend_batch_item *items = malloc((count ? count : 1) * sizeof *items);
    size_t *case_of = malloc((count ? count : 1) * sizeof *case_of);
    if (!vt->run_batch || !items || !case_of) {
        free(items);
        free(case_of);
        for (size_t i = 0; i < count; i++)
            check_run(vt, b, cases[i], exec, &bufs[i], &answers[i]);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (run_begin(vt, b, cases[i], &bufs[i], &answers[i])) {
            items[n] = (backend_batch_item){ .c = cases[i], .exec = *exec, .out = &answers[i].outputs };
            case_of[n++] = i;
        }
    double t0 = (clock_seconds() * 1e6);
    if (n)
        vt->run_batch(b, items, n);
    double share_us = n ? ((clock_seconds() * 1e6) - t0) / (double)n : 0;
    for (size_t k = 0; k < n; k++) {
        check_answer *a = &answers[case_of[k]];
        a->time_us = share_us;
        run_end(cases[case_of[k]], &bufs[case_of[k]], items[k].status, &items[k].err, a);
    }
    free(items);
    free(case_of);
}

/* ---- Judging ------------------------------------------------------------------------ */

/* An exact check: a difference that only a class excused is a failure after all. */
static void make_exact(judgement *j)
{
    if (j->verdict == VERDICT_UNSPECIFIED)
        j->verdict = VERDICT_FAIL;
}

static void store_elements(const case_tensor *t, uint8_t *buf, const uint64_t *bits)
{
    tensor_view v;
    case_tensor_view(t, &v);
    uint64_t n = case_tensor_elements(t);
    for (uint64_t i = 0; i < n; i++)
        dtype_store_bits(buf, t->type, tensor_view_offset(&v, i), bits[i]);
}

/* The case file's answer laid out like an execution; a tensor the file gives no array for
 * is the reference's, so only what the file states is compared. */
static bool file_answer(const dml_case *c, const check_oracle *o, case_outputs *file)
{
    if (!case_outputs_alloc(file, c))
        return false;
    memcpy(file->output, o->expected.output, file->output_bytes);
    if (file->indices)
        memcpy(file->indices, o->expected.indices, file->indices_bytes);
    if (c->has_expected_output)
        store_elements(&c->output, file->output, c->expected_output);
    if (c->has_expected_indices && file->indices)
        store_elements(&c->indices, file->indices, c->expected_indices);
    return true;
}

/* Judges got against the case file's expected arrays by the rules the reference's answer is
 * judged by (an unspecified class stays unspecified unless strict; a flushing device's
 * flushed answer passes on a denormal case, D6), so a case checked from its file gets the
 * verdict `run` and `replay` give it.  A verdict worse than the reference's is the result. */
static void judge_file(const dml_case *c, const check_oracle *o, const case_outputs *got,
                       const check_options *opt, check_result *r)
{
    if (compare_with_expected(c, got, NULL))
        return;
    case_outputs file;
    if (!file_answer(c, o, &file)) {
        r->j = (judgement){ .verdict = VERDICT_ERROR };
        snprintf(r->message, sizeof r->message, "out of memory for the case file's answer");
        return;
    }
    const case_outputs *flushed = o->classes & CASE_CLASS_DENORMAL ? &o->flushed : NULL;
    judgement jf;
    judge_outputs(c, &file, flushed, got, &opt->rules, &jf);
    if (opt->exact)
        make_exact(&jf);
    case_outputs_free(&file);
    bool worse = jf.verdict == VERDICT_FAIL
        || (jf.verdict == VERDICT_UNSPECIFIED && r->j.verdict == VERDICT_PASS);
    if (worse) {
        r->j = jf;
        r->against_file = true;
        r->flushed_pass = false;
    }
}

/* A descriptor DirectML requires to be refused: refusing passes, running fails, a backend
 * that cannot check descriptors skips; a crash or an error is still what it is. */
static void judge_must_reject(const check_answer *a, check_result *r)
{
    snprintf(r->message, sizeof r->message, "%s", a->message);
    if (a->died == KIND_NONE && a->status == RUN_REJECTED)
        r->j = (judgement){ .verdict = VERDICT_PASS };
    else if (a->died == KIND_NONE && a->status == RUN_OK) {
        r->j = (judgement){ .verdict = VERDICT_FAIL, .kind = KIND_accepted_invalid };
        snprintf(r->message, sizeof r->message, "the backend accepted a descriptor DirectML "
                 "requires to be refused at this feature level");
    } else if (a->died == KIND_NONE
               && (a->status == RUN_UNSUPPORTED || a->status == RUN_UNSUPPORTED_CLAIMED))
        r->j = (judgement){ .verdict = VERDICT_SKIP };
    else
        judge_status(a->status, a->died, &r->j);
}

void check_judge(const dml_case *c, const check_oracle *o, const check_answer *a,
                 const check_options *opt, check_result *r)
{
    memset(r, 0, sizeof *r);
    r->classes = o->classes;
    r->status = a->status;
    if (c->must_reject) {
        judge_must_reject(a, r);
        return;
    }
    if (a->died != KIND_NONE || a->status != RUN_OK) {
        judge_status(a->status, a->died, &r->j);
        snprintf(r->message, sizeof r->message, "%s", a->message);
        return;
    }
    const case_outputs *flushed = o->flushed.output ? &o->flushed : NULL;
    judge_outputs(c, &o->expected, flushed, &a->outputs, &opt->rules, &r->j);
    if ((o->classes & CASE_CLASS_NAN) && !opt->skip_nan_fingerprint) /* cases without a NaN pay nothing */
        r->nan = nan_fingerprint_case(c, &a->outputs);
    /* A differing case is class nan only where a NaN decided a differing element (SEMANTICS
     * "Classes"): a NaN elsewhere in it excuses nothing, so it is not named either. */
    if (r->j.has_first && !(r->j.classes & CASE_CLASS_NAN))
        r->classes &= ~(unsigned)CASE_CLASS_NAN;
    if (opt->exact)
        make_exact(&r->j);
    /* A pass that the exact answer does not explain came from the flushed-answer rule. */
    r->flushed_pass = r->j.verdict == VERDICT_PASS && opt->rules.device_flushes
        && (o->classes & CASE_CLASS_DENORMAL) && !compare_outputs(c, &o->expected, &a->outputs, NULL);
    if (c->has_expected_output || c->has_expected_indices)
        judge_file(c, o, &a->outputs, opt, r);
}

/* ---- In one process ----------------------------------------------------------------- */

void check_init(checker *k, const backend_vtable *vt, backend *b, const check_options *opt)
{
    memset(k, 0, sizeof *k);
    k->vt = vt;
    k->b = b;
    k->opt = *opt;
}

void check_fini(checker *k)
{
    check_buffers_free(&k->buf);
    memset(&k->last, 0, sizeof k->last);
}

bool check_case(checker *k, const dml_case *c, check_result *r, dmlc_error *err)
{
    check_oracle o;
    if (!check_prepare(c, &k->opt.exec, &o, err)) {
        check_oracle_free(&o);
        return false;
    }
    check_run(k->vt, k->b, c, &k->opt.exec, &k->buf, &k->last);
    check_judge(c, &o, &k->last, &k->opt, r);
    check_oracle_free(&o);
    return true;
}

int check_exit_code(const check_result *r)
{
    return r->j.verdict == VERDICT_FAIL ? 1 : r->j.verdict == VERDICT_ERROR ? 2 : 0;
}

/* ---- The explanation ---------------------------------------------------------------- */

typedef struct text {
    char *buf;
    size_t size, used;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    if (t->used + 1 >= t->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->size - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n < t->size - t->used ? (size_t)n : t->size - t->used - 1;
}

static const char *coords_text(const uint32_t *coords, unsigned rank, char *buf, size_t size)
{
    text t = { buf, size, 0 };
    buf[0] = 0;
    for (unsigned d = 0; d < rank; d++)
        put(&t, "%s%" PRIu32, d ? "," : "", coords[d]);
    return buf;
}

/* The line for a run that produced no outputs to compare. */
static void explain_status(text *t, const check_result *r)
{
    const judgement *j = &r->j;
    if (j->verdict == VERDICT_SKIP)
        put(t, "skip: the backend cannot run this case: %s\n", r->message);
    else
        put(t, "%s: %s%s%s\n", verdict_name(j->verdict), j->kind ? mismatch_kind_name(j->kind) : "error",
            r->message[0] ? ": " : "", r->message);
}

const char *check_describe_difference(const dml_case *c, const mismatch *m, char *buf, size_t size)
{
    text t = { buf, size, 0 };
    DML_TENSOR_DATA_TYPE type = strcmp(m->tensor, "indices") ? c->output.type : c->indices.type;
    char where[128], expected[96], got[96];
    buf[0] = 0;
    put(&t, "%s[%s] (logical element %" PRIu64 "): expected %s, got %s", m->tensor,
        coords_text(m->coords, m->rank, where, sizeof where), m->logical_index,
        compare_format_value(type, m->expected_bits, expected, sizeof expected),
        compare_format_value(type, m->got_bits, got, sizeof got));
    return buf;
}

static void explain_first(text *t, const dml_case *c, const check_result *r)
{
    const judgement *j = &r->j;
    char first[512];
    put(t, "%s: %s: %s; %" PRIu64 " element%s differ%s from %s\n", verdict_name(j->verdict),
        mismatch_kind_name(j->kind), check_describe_difference(c, &j->first, first, sizeof first),
        j->count, j->count == 1 ? "" : "s", j->count == 1 ? "s" : "",
        r->against_file ? "the case file's expected outputs" : "the reference");
}

/* The input element an index picked: equal values on both sides mean a tie-rule bug. */
static void explain_picked(text *t, const dml_case *c, const char *side, const picked_input *p)
{
    if (!p->valid) {
        put(t, "  the %s index names no input element\n", side);
        return;
    }
    tensor_view v;
    uint32_t coords[DML_MAX_RANK];
    char where[128], value[96];
    case_tensor_view(&c->input, &v);
    tensor_view_coords(&v, p->logical, coords);
    put(t, "  input at the %s index: input[%s] (flat %" PRIu64 ") = %s\n", side,
        coords_text(coords, v.rank, where, sizeof where), p->logical,
        compare_format_value(c->input.type, p->bits, value, sizeof value));
}

static void explain_classes(text *t, const check_result *r)
{
    char names[64];
    if (!r->classes)
        return;
    put(t, "  case classes: %s (DirectML's spec is silent here; see docs/SEMANTICS.md)%s\n",
        case_classes_str(r->classes, names, sizeof names),
        r->j.verdict == VERDICT_UNSPECIFIED ? ": only such elements differ, so not a failure" : "");
}

const char *check_explain(const dml_case *c, const check_result *r, const char *replay, char *buf,
                          size_t size)
{
    text t = { buf, size, 0 };
    const judgement *j = &r->j;
    buf[0] = 0;
    if (j->verdict == VERDICT_PASS) {
        put(&t, "%s\n", r->flushed_pass ? "pass: matches the answer with fp32 denormals flushed "
            "(class denormal; the device may flush, SEMANTICS D6)" : "pass");
        return buf;
    }
    if (!j->has_first) {
        explain_status(&t, r);
    } else {
        explain_first(&t, c, r);
        if (j->at_expected.valid || j->at_got.valid) {
            explain_picked(&t, c, "expected", &j->at_expected);
            explain_picked(&t, c, "returned", &j->at_got);
        }
        if (j->why) /* the evidence for the kind's root cause */
            put(&t, "  %s\n", j->why);
        explain_classes(&t, r);
    }
    if (replay && j->verdict != VERDICT_SKIP)
        put(&t, "replay: %s\n", replay);
    return buf;
}

void check_print(FILE *f, const char *prefix, const dml_case *c, const check_result *r,
                 const char *replay)
{
    char buf[EXPLAIN_MAX];
    check_explain(c, r, replay, buf, sizeof buf);
    for (const char *line = buf; *line;) {
        size_t n = strcspn(line, "\n");
        fprintf(f, "%s%.*s\n", prefix, (int)n, line);
        line += n + (line[n] == '\n');
    }
    fflush(f);
}

/* ---- As JSON ------------------------------------------------------------------------ */

static json_t *value_json(DML_TENSOR_DATA_TYPE t, uint64_t bits)
{
    char buf[96];
    return json_string(compare_format_value(t, bits, buf, sizeof buf));
}

static json_t *bits_json(uint64_t bits)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, bits);
    return json_string(buf);
}

static json_t *picked_json(const dml_case *c, const picked_input *p)
{
    if (!p->valid)
        return json_null();
    return json_pack("{s:I, s:o, s:o}", "index", (json_int_t)p->logical, "bits", bits_json(p->bits),
                     "value", value_json(c->input.type, p->bits));
}

char *check_first_json(const dml_case *c, const check_result *r)
{
    const judgement *j = &r->j;
    if (!j->has_first)
        return NULL;
    const mismatch *m = &j->first;
    DML_TENSOR_DATA_TYPE t = !strcmp(m->tensor, "indices") ? c->indices.type : c->output.type;
    json_t *coords = json_array();
    for (unsigned d = 0; d < m->rank; d++)
        json_array_append_new(coords, json_integer(m->coords[d]));
    char explained[EXPLAIN_MAX];
    json_t *o = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:s}", "tensor", m->tensor, "element",
                          (json_int_t)m->logical_index, "coords", coords, "expected",
                          bits_json(m->expected_bits), "got", bits_json(m->got_bits),
                          "expected_value", value_json(t, m->expected_bits), "got_value",
                          value_json(t, m->got_bits), "explanation",
                          check_explain(c, r, NULL, explained, sizeof explained));
    if (o && (j->at_expected.valid || j->at_got.valid)) {
        json_object_set_new(o, "input_at_expected", picked_json(c, &j->at_expected));
        json_object_set_new(o, "input_at_got", picked_json(c, &j->at_got));
    }
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}
