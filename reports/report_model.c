/*
 * report_model.c: the judgements of a conformance report, computed once from the counts the
 * loader gathered: which cells each feature level requires (asked of the validator, so the
 * report and the validator can never disagree about what a level allows), each cell's
 * status and statistical bound, the verdict per feature level, expected failures and the
 * comparison with a baseline, and the verdict's sentence.  The words and table cells every
 * renderer prints from the finished model are report_text.c's.
 */
#include "report_model.h"

#include "cause.h"
#include "op_module.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dtype.h"

/* ---- ownership ---------------------------------------------------------------------- */

char *report_strdup(const char *s)
{
    return strdup(s ? s : "");
}

void report_model_init(report_model *m)
{
    memset(m, 0, sizeof *m);
    m->min_cases = REPORT_DEFAULT_MIN_CASES;
}

static void signature_free(report_signature *s)
{
    free(s->layout);
    free(s->distribution);
    free(s->kind);
    free(s->classes);
    free(s->first_seen);
    free(s->last_seen);
    free(s->backend);
    free(s->replay);
    free(s->gen_args);
    free(s->tensor);
    free(s->detail);
    free(s->explanation);
}

static void run_free(report_run *r)
{
    char **fields[] = { &r->version, &r->git_revision, &r->host, &r->options,
                        &r->command_line, &r->backend, &r->status, &r->nan_policy,
                        &r->started, &r->finished, &r->platform, &r->device, &r->driver,
                        &r->runtime, &r->fp_config, &r->shard, &r->claims };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        free(*fields[i]);
}

static void expectation_free(report_expectation *e)
{
    char **fields[] = { &e->device, &e->op, &e->input, &e->output, &e->indices, &e->layout,
                        &e->distribution, &e->kind, &e->cause, &e->reason };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        free(*fields[i]);
}

void report_model_free(report_model *m)
{
    free(m->title);
    free(m->db_path);
    free(m->selection);
    free(m->baseline);
    for (size_t i = 0; i < m->cell_count; i++)
        free(m->cells[i].skip_reason);
    free(m->cells);
    for (size_t i = 0; i < m->coverage_count; i++) {
        free(m->coverage[i].dimension);
        free(m->coverage[i].value);
    }
    free(m->coverage);
    for (size_t i = 0; i < m->signature_count; i++)
        signature_free(&m->signatures[i]);
    free(m->signatures);
    for (size_t i = 0; i < m->gone_count; i++)
        signature_free(&m->gone[i]);
    free(m->gone);
    free(m->cell_failures);
    families_free(&m->families);
    for (size_t i = 0; i < m->run_count; i++)
        run_free(&m->runs[i]);
    free(m->runs);
    for (size_t i = 0; i < m->expectation_count; i++)
        expectation_free(&m->expectations[i]);
    free(m->expectations);
    for (size_t i = 0; i < m->nan_print_count; i++)
        free(m->nan_prints[i].subject);
    free(m->nan_prints);
    memset(m, 0, sizeof *m);
}

/* Makes room for one more element in a growable array; the new element is zeroed. */
static void *grow(void **array, size_t *count, size_t *cap, size_t elem_size)
{
    if (*count == *cap) {
        size_t cap2 = *cap ? *cap * 2 : 16;
        void *p = realloc(*array, cap2 * elem_size);
        if (!p)
            return NULL;
        *array = p;
        *cap = cap2;
    }
    void *slot = (char *)*array + *count * elem_size;
    memset(slot, 0, elem_size);
    (*count)++;
    return slot;
}
#define GROW(m, array, prefix) \
    grow((void **)&(m)->array, &(m)->prefix##_count, &(m)->prefix##_cap, sizeof *(m)->array)

static bool key_equal(const report_cell_key *a, const report_cell_key *b)
{
    return a->fl == b->fl && a->op == b->op && a->input == b->input && a->output == b->output
           && a->indices == b->indices;
}

static report_cell *find_cell(const report_model *m, const report_cell_key *key)
{
    for (size_t i = 0; i < m->cell_count; i++)
        if (key_equal(&m->cells[i].key, key))
            return &m->cells[i];
    return NULL;
}

report_cell *report_model_cell(report_model *m, const report_cell_key *key)
{
    report_cell *c = find_cell(m, key);
    if (c)
        return c;
    c = GROW(m, cells, cell);
    if (c) {
        c->key = *key;
        c->failure_bound = 1;
    }
    return c;
}

report_coverage *report_model_add_coverage(report_model *m, const char *dimension,
                                           const char *value, uint64_t cases, uint64_t failed)
{
    report_coverage *r = GROW(m, coverage, coverage);
    if (!r)
        return NULL;
    r->dimension = report_strdup(dimension);
    r->value = report_strdup(value);
    r->cases = cases;
    r->failed = failed;
    return r->dimension && r->value ? r : NULL;
}

report_signature *report_model_add_signature(report_model *m)
{
    return GROW(m, signatures, signature);
}

report_run *report_model_add_run(report_model *m)
{
    return GROW(m, runs, run);
}

report_nan_fingerprint *report_model_add_nan_print(report_model *m)
{
    return GROW(m, nan_prints, nan_print);
}

bool report_model_add_cell_failure(report_model *m, const report_cell_key *key,
                                   size_t signature, uint64_t count)
{
    report_cell_failure *f = GROW(m, cell_failures, cell_failure);
    if (!f)
        return false;
    *f = (report_cell_failure){ *key, signature, count };
    return true;
}

/* ---- names -------------------------------------------------------------------------- */

const char *report_mark_name(report_mark m)
{
    static const char *const names[] = { "", "NEW", "FIXED", "REGRESSED", "UNCHANGED" };
    return m <= REPORT_MARK_UNCHANGED ? names[m] : "";
}

const char *report_cell_status_name(report_cell_status s)
{
    static const char *const names[] = { "pass", "too few cases", "expected failure", "FAIL",
                                         "harness error" };
    return s <= REPORT_CELL_ERROR ? names[s] : "?";
}

const char *report_verdict_name(report_verdict_kind v)
{
    static const char *const names[] = { "CONFORMANT", "NOT CONFORMANT", "KNOWN BUGS ONLY",
                                         "INSUFFICIENT CASES", "NOT TESTED", "INCOMPLETE RUN",
                                         "CONFORMANT FOR ITS CLAIMS" };
    return v <= REPORT_VERDICT_CONFORMANT_CLAIMS ? names[v] : "?";
}

/* ---- which cells a feature level requires ------------------------------------------- */

/* A minimal tensor {1,1,1,1} (rank 4 suits every operator). */
static bool type_in(uint32_t set, DML_TENSOR_DATA_TYPE t)
{
    return t < 32 && (set >> t) & 1;
}

/* A cell exists when the operator's type tables (op_types_at) allow its combination. */
bool report_cell_allowed(const report_cell_key *key)
{
    if (key->op >= OP_COUNT)
        return false;
    const op_module *m = op_table[key->op].module;
    op_type_sets t = op_types_at(key->op, key->fl);
    bool output_ok = m->tensors->output_is_input_type ? key->output == key->input
                                                      : type_in(t.output, key->output);
    bool indices_ok = key->indices == DML_TENSOR_DATA_TYPE_UNKNOWN
        ? true : m->tensors->indices && type_in(t.indices, key->indices);
    return type_in(t.input, key->input) && output_ok && indices_ok;
}

bool report_cell_unclaimed(const report_cell *c)
{
    return c->required && !c->claimed && c->status == REPORT_CELL_FEW
           && c->n.passed + c->n.failed == 0;
}

/* Adds a zero cell for every type combination fl_tested[*] allows and no case hit. */
static bool add_required_cells(report_model *m)
{
    for (size_t f = 0; f < FL_TESTED_COUNT; f++)
        for (int op = 0; op < OP_COUNT; op++)
            for (size_t i = 0; i < DTYPE_COUNT; i++)
                for (size_t o = 0; o < DTYPE_COUNT; o++)
                    for (size_t x = 0; x <= DTYPE_COUNT; x++) {
                        report_cell_key k = {
                            fl_tested[f], (op_id)op, dtype_table[i].type, dtype_table[o].type,
                            x ? dtype_table[x - 1].type : DML_TENSOR_DATA_TYPE_UNKNOWN,
                        };
                        if (!report_cell_allowed(&k))
                            continue;
                        report_cell *c = report_model_cell(m, &k);
                        if (!c)
                            return false;
                        c->required = true;
                    }
    return true;
}

/* ---- ordering ----------------------------------------------------------------------- */

/* Position in dtypes.def; UNKNOWN (no tensor) first. */
static int dtype_rank(DML_TENSOR_DATA_TYPE t)
{
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (dtype_table[i].type == t)
            return (int)i + 1;
    return t == DML_TENSOR_DATA_TYPE_UNKNOWN ? 0 : 1000 + (int)t;
}

static int cmp_int(long long a, long long b)
{
    return (a > b) - (a < b);
}

static int key_compare(const report_cell_key *a, const report_cell_key *b)
{
    int r = cmp_int(a->fl, b->fl);
    if (!r)
        r = cmp_int(a->op, b->op);
    if (!r)
        r = cmp_int(dtype_rank(a->input), dtype_rank(b->input));
    if (!r)
        r = cmp_int(dtype_rank(a->output), dtype_rank(b->output));
    if (!r)
        r = cmp_int(dtype_rank(a->indices), dtype_rank(b->indices));
    return r;
}

static int cell_compare(const void *a, const void *b)
{
    return key_compare(&((const report_cell *)a)->key, &((const report_cell *)b)->key);
}

/* ---- statistics --------------------------------------------------------------------- */

/* Continued fraction of the regularized incomplete beta function (modified Lentz). */
static double beta_continued_fraction(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 100000; m++) {
        /* Even step then odd step of the fraction's terms. */
        double num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 + num * d;
        c = 1 + num / c;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + num * d;
        c = 1 + num / c;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = fabs(c) < tiny ? tiny : c;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1) < eps)
            break;
    }
    return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double beta_regularized(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    /* The fraction converges fast below the mean; use the symmetry I_x(a,b) = 1-I_{1-x}(b,a). */
    if (x < (a + 1) / (a + b + 2))
        return front * beta_continued_fraction(a, b, x) / a;
    return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double report_failure_upper_bound(uint64_t n, uint64_t k, double conf)
{
    if (n == 0 || k >= n)
        return 1;
    if (k == 0) /* P(0 failures) = (1-p)^n = 1-conf */
        return 1 - pow(1 - conf, 1.0 / (double)n);
    /* Clopper-Pearson: the p at which P(X <= k) = 1-conf, i.e. I_p(k+1, n-k) = conf. */
    double lo = 0, hi = 1, a = (double)k + 1, b = (double)(n - k);
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2;
        if (beta_regularized(a, b, mid) < conf)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

const char *report_percent(double p, char *buf, size_t size)
{
    double pc = p * 100;
    if (pc >= 10)
        snprintf(buf, size, "%.0f%%", pc);
    else if (pc >= 1)
        snprintf(buf, size, "%.1f%%", pc);
    else if (pc >= 0.01)
        snprintf(buf, size, "%.2f%%", pc);
    else
        snprintf(buf, size, "%.2g%%", pc);
    return buf;
}

const char *report_bound_text(const report_cell *c, char *buf, size_t size)
{
    uint64_t judged = c->n.passed + c->n.failed;
    char pct[32], obs[32];
    if (judged == 0 && c->skip_reason)
        snprintf(buf, size, "no judged cases: %" PRIu64 " skipped (%s)", c->n.skipped, c->skip_reason);
    else if (judged == 0)
        snprintf(buf, size, "no judged cases");
    else if (c->n.failed == 0)
        snprintf(buf, size, "failure rate < %s at 95%% confidence (%" PRIu64 " of %" PRIu64
                 " passed)", report_percent(c->failure_bound, pct, sizeof pct), c->n.passed,
                 judged);
    else if (c->n.failed == judged)
        snprintf(buf, size, "all %" PRIu64 " judged cases failed", judged);
    else
        snprintf(buf, size, "%" PRIu64 " of %" PRIu64 " failed (%s); failure rate < %s at 95%%"
                 " confidence", c->n.failed, judged,
                 report_percent((double)c->n.failed / (double)judged, obs, sizeof obs),
                 report_percent(c->failure_bound, pct, sizeof pct));
    return buf;
}

/* ---- expectations ------------------------------------------------------------------- */

static bool pattern_matches(const char *pattern, const char *text)
{
    return !pattern || fnmatch(pattern, text ? text : "", FNM_CASEFOLD) == 0;
}

/* A type pattern matches the DirectML name ("FLOAT16"), the stem ("f16") or, for an absent
 * indices tensor, "none". */
static bool type_matches(const char *pattern, DML_TENSOR_DATA_TYPE t)
{
    if (!pattern)
        return true;
    if (t == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return pattern_matches(pattern, "none");
    return pattern_matches(pattern, dtype_name(t)) || pattern_matches(pattern, dtype_stem(t));
}

static bool device_matches(const report_model *m, const char *pattern)
{
    if (!pattern)
        return true;
    for (size_t i = 0; i < m->run_count; i++) {
        const report_run *r = &m->runs[i];
        char text[1024];
        snprintf(text, sizeof text, "%s / %s / %s", r->platform, r->device, r->driver);
        if (pattern_matches(pattern, text) || pattern_matches(pattern, r->device))
            return true;
    }
    return false;
}

/* The family holding s's group (operator family, kind, verdict and root-cause key: two bugs
 * of one kind are two rows), as results/families.c grouped it: a signature never diagnosed
 * is in the row of the key it took there. */
const family *report_model_family_of(const report_model *m, const report_signature *s)
{
    return families_holding(&m->families, s->id);
}

/* An expectation's cause pattern against the root cause of s's family: "undiagnosed" matches
 * a row no cause was confirmed for (so that an entry by operator, type and kind, written for a
 * behaviour outside the catalogue, cannot also excuse a bug that probing names), a pattern
 * matches a confirmed cause's id. */
static bool cause_matches(const report_model *m, const char *pattern, const report_signature *s)
{
    if (!pattern)
        return true;
    const family *f = report_model_family_of(m, s);
    if (!strcasecmp(pattern, "undiagnosed"))
        return !f || !f->cause[0];
    if (!f || !f->cause[0])
        return false;
    if (pattern_matches(pattern, f->cause))
        return true;
    char either[sizeof f->cause]; /* "a|b" is either bug: a pattern of one of them matches */
    snprintf(either, sizeof either, "%s", strchr(f->cause, '|') ? f->cause : "");
    for (char *save = NULL, *id = strtok_r(either, "|", &save); id; id = strtok_r(NULL, "|", &save))
        if (pattern_matches(pattern, id))
            return true;
    return false;
}

const report_expectation *report_model_expectation_for(const report_model *m,
                                                       const report_signature *s)
{
    for (size_t i = 0; i < m->expectation_count; i++) {
        const report_expectation *e = &m->expectations[i];
        if (!cause_matches(m, e->cause, s))
            continue;
        bool op_ok = s->op < OP_COUNT && (pattern_matches(e->op, op_table[s->op].name)
                                          || pattern_matches(e->op, op_table[s->op].stem));
        if (op_ok && type_matches(e->input, s->input) && type_matches(e->output, s->output)
            && type_matches(e->indices, s->indices) && pattern_matches(e->layout, s->layout)
            && pattern_matches(e->distribution, s->distribution)
            && pattern_matches(e->kind, s->kind) && device_matches(m, e->device))
            return e;
    }
    return NULL;
}

/* Sets each signature's expected_reason and each cell's expected count. */
static void apply_expectations(report_model *m)
{
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_expectation *e = report_model_expectation_for(m, &m->signatures[i]);
        m->signatures[i].expected_reason = e ? e->reason : NULL;
    }
    for (size_t i = 0; i < m->cell_count; i++)
        m->cells[i].n.expected = 0;
    for (size_t i = 0; i < m->cell_failure_count; i++) {
        const report_cell_failure *f = &m->cell_failures[i];
        report_cell *c = find_cell(m, &f->key);
        if (c && f->signature < m->signature_count
            && m->signatures[f->signature].expected_reason)
            c->n.expected += f->count;
    }
    for (size_t i = 0; i < m->cell_count; i++)
        if (m->cells[i].n.expected > m->cells[i].n.failed)
            m->cells[i].n.expected = m->cells[i].n.failed;
}

/* ---- statuses and verdicts ---------------------------------------------------------- */

static report_cell_status cell_status(const report_cell *c, unsigned min_cases)
{
    if (c->n.failed > c->n.expected)
        return REPORT_CELL_FAIL;
    if (c->n.errors > 0)
        return REPORT_CELL_ERROR;
    if (c->n.failed > 0)
        return REPORT_CELL_EXPECTED;
    return c->n.passed >= min_cases ? REPORT_CELL_PASS : REPORT_CELL_FEW;
}

static void add_counts(report_counts *sum, const report_counts *n)
{
    sum->run += n->run;
    sum->passed += n->passed;
    sum->failed += n->failed;
    sum->differs += n->differs;
    sum->skipped += n->skipped;
    sum->errors += n->errors;
    sum->expected += n->expected;
    sum->seconds += n->seconds;
}

/* The first run of the selection that did not finish ('running' after a kill -9 or while it
 * runs, 'interrupted', 'error'), or NULL. */
static const report_run *unfinished_run(const report_model *m)
{
    for (size_t i = 0; i < m->run_count; i++)
        if (strcmp(m->runs[i].status, "finished"))
            return &m->runs[i];
    return NULL;
}

static void compute_verdict(const report_model *m, DML_FEATURE_LEVEL fl, report_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->fl = fl;
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell *c = &m->cells[i];
        if (c->key.fl != fl)
            continue;
        add_counts(&v->n, &c->n);
        if (!c->required)
            continue;
        v->required_cells++;
        v->differs_cells += c->n.differs > 0;
        /* A cell beyond the claims that ran nothing is the claims' news, not a shortfall. */
        if (report_cell_unclaimed(c)) {
            v->unclaimed_cells++;
            continue;
        }
        switch (c->status) {
        case REPORT_CELL_PASS: v->pass_cells++; break;
        case REPORT_CELL_FEW: v->few_cells++; break;
        case REPORT_CELL_EXPECTED: v->expected_cells++; break;
        case REPORT_CELL_FAIL: v->fail_cells++; break;
        case REPORT_CELL_ERROR: v->error_cells++; break;
        }
    }
    /* A failure in a cell the level does not require still fails the level: the backend ran
     * the case and got it wrong. */
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell *c = &m->cells[i];
        if (c->key.fl == fl && !c->required && c->status == REPORT_CELL_FAIL)
            v->fail_cells++;
    }
    if (v->n.run == 0)
        v->kind = REPORT_VERDICT_NOT_TESTED;
    else if (v->fail_cells || v->error_cells)
        v->kind = REPORT_VERDICT_NOT_CONFORMANT;
    else if (unfinished_run(m)) /* a killed run's cases are a sample nobody chose */
        v->kind = REPORT_VERDICT_INCOMPLETE;
    else if (v->few_cells)
        v->kind = REPORT_VERDICT_INSUFFICIENT;
    else if (v->expected_cells)
        v->kind = REPORT_VERDICT_KNOWN_BUGS;
    else if (v->unclaimed_cells && v->pass_cells)
        v->kind = REPORT_VERDICT_CONFORMANT_CLAIMS;
    else if (v->unclaimed_cells) /* it claims nothing here: nothing passed */
        v->kind = REPORT_VERDICT_INSUFFICIENT;
    else
        v->kind = REPORT_VERDICT_CONFORMANT;
}

/* Adds run r's claims to the selection's (m->claims): what any run claims is claimed. */
static void unite_claims(backend_claims *all, const backend_claims *r, bool first)
{
    if (first || !r->limited || !all->limited) {
        if (first || !r->limited)
            *all = *r;
        return;
    }
    all->max_feature_level = !all->max_feature_level || !r->max_feature_level ? 0
        : all->max_feature_level > r->max_feature_level ? all->max_feature_level : r->max_feature_level;
    for (int op = 0; op < OP_COUNT; op++) {
        op_claim *a = &all->ops[op];
        const op_claim *b = &r->ops[op];
        if (!b->claimed)
            continue;
        if (!a->claimed) {
            *a = *b;
            continue;
        }
        /* A mask of 0 is every type: the union stays 0. */
        a->input_types = a->input_types && b->input_types ? a->input_types | b->input_types : 0;
        a->output_types = a->output_types && b->output_types ? a->output_types | b->output_types : 0;
        a->indices_types = a->indices_types && b->indices_types ? a->indices_types | b->indices_types : 0;
        a->without_indices = a->without_indices && b->without_indices;
    }
}

/* m->claims from the runs, and each cell's claimed flag. */
static bool apply_claims(report_model *m, dmlc_error *err)
{
    claims_all(&m->claims);
    for (size_t i = 0; i < m->run_count; i++) {
        backend_claims r;
        if (!claims_from_json(m->runs[i].claims, &r, err))
            return err_prefix(err, "run %lld", (long long)m->runs[i].id);
        unite_claims(&m->claims, &r, i == 0);
    }
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell_key *k = &m->cells[i].key;
        m->cells[i].claimed = claims_cover(&m->claims, k->op, k->fl, k->input, k->output, k->indices);
    }
    return true;
}

/* Unexpected failures first, then expected ones, then differs-from-policy; most cases first. */
static int signature_compare(const void *pa, const void *pb)
{
    const report_signature *a = pa, *b = pb;
    int ra = a->unspecified ? 2 : a->expected_reason ? 1 : 0;
    int rb = b->unspecified ? 2 : b->expected_reason ? 1 : 0;
    if (ra != rb)
        return ra - rb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    int r = key_compare(&(report_cell_key){ a->fl, a->op, a->input, a->output, a->indices },
                        &(report_cell_key){ b->fl, b->op, b->input, b->output, b->indices });
    if (!r)
        r = strcmp(a->layout, b->layout);
    if (!r)
        r = strcmp(a->distribution, b->distribution);
    return r ? r : strcmp(a->kind, b->kind);
}

bool report_model_finish(report_model *m, dmlc_error *err)
{
    if (!add_required_cells(m))
        return err_set(err, "out of memory");
    if (m->cell_count)
        qsort(m->cells, m->cell_count, sizeof *m->cells, cell_compare);
    apply_expectations(m);
    /* cell_failures index the signatures; they are spent once expectations are applied. */
    free(m->cell_failures);
    m->cell_failures = NULL;
    m->cell_failure_count = m->cell_failure_cap = 0;
    if (m->signature_count) /* qsort on NULL is undefined even for 0 elements */
        qsort(m->signatures, m->signature_count, sizeof *m->signatures, signature_compare);
    m->total_cases = 0;
    for (size_t i = 0; i < m->cell_count; i++) {
        report_cell *c = &m->cells[i];
        c->status = cell_status(c, m->min_cases);
        c->failure_bound = report_failure_upper_bound(c->n.passed + c->n.failed, c->n.failed,
                                                      REPORT_CONFIDENCE);
        m->total_cases += c->n.run;
    }
    if (!apply_claims(m, err))
        return false;
    m->verdict_count = FL_TESTED_COUNT;
    for (size_t f = 0; f < FL_TESTED_COUNT; f++)
        compute_verdict(m, fl_tested[f], &m->verdicts[f]);
    return true;
}

/* ---- baseline ----------------------------------------------------------------------- */

static bool cell_fails(const report_cell *c)
{
    return c->status == REPORT_CELL_FAIL || c->status == REPORT_CELL_EXPECTED;
}

static bool same_signature(const report_signature *a, const report_signature *b)
{
    return a->fl == b->fl && a->unspecified == b->unspecified && a->op == b->op
           && a->input == b->input && a->output == b->output
           && a->indices == b->indices && !strcmp(a->layout, b->layout)
           && !strcmp(a->distribution, b->distribution) && !strcmp(a->kind, b->kind);
}

/* Judged cases and failures of the cell a signature belongs to (its level, op and types). */
static void signature_cells(const report_model *m, const report_signature *s, uint64_t *judged,
                            uint64_t *failed)
{
    *judged = *failed = 0;
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell_key *k = &m->cells[i].key;
        if (k->fl == s->fl && k->op == s->op && k->input == s->input && k->output == s->output
            && k->indices == s->indices) {
            *judged += m->cells[i].n.passed + m->cells[i].n.failed;
            *failed += m->cells[i].n.failed;
        }
    }
}

static bool signature_copy(report_signature *dst, const report_signature *src)
{
    *dst = *src;
    dst->layout = report_strdup(src->layout);
    dst->distribution = report_strdup(src->distribution);
    dst->kind = report_strdup(src->kind);
    dst->classes = report_strdup(src->classes);
    dst->first_seen = report_strdup(src->first_seen);
    dst->last_seen = report_strdup(src->last_seen);
    dst->backend = report_strdup(src->backend);
    dst->replay = report_strdup(src->replay);
    dst->gen_args = report_strdup(src->gen_args);
    dst->tensor = report_strdup(src->tensor);
    dst->detail = report_strdup(src->detail);
    dst->explanation = report_strdup(src->explanation);
    dst->expected_reason = NULL;
    return dst->layout && dst->distribution && dst->kind && dst->classes && dst->first_seen
           && dst->last_seen && dst->backend && dst->replay && dst->gen_args && dst->tensor && dst->detail
           && dst->explanation;
}

static void mark_cells(report_model *m, const report_model *base)
{
    for (size_t i = 0; i < m->cell_count; i++) {
        report_cell *c = &m->cells[i];
        const report_cell *b = find_cell(base, &c->key);
        uint64_t judged = c->n.passed + c->n.failed;
        if (judged == 0)
            c->mark = REPORT_MARK_NONE;
        else if (!b || b->n.passed + b->n.failed == 0)
            c->mark = REPORT_MARK_NEW;
        else if (cell_fails(b) && !cell_fails(c) && c->n.passed >= m->min_cases)
            c->mark = REPORT_MARK_FIXED;
        else if (cell_fails(b) && !cell_fails(c)) /* too few passes to call it fixed */
            c->mark = REPORT_MARK_NONE;
        else if (!cell_fails(b) && cell_fails(c))
            /* A cell failing only by known bugs is declared, not regressed: it never reads
             * "expected failure" and REGRESSED at once. */
            c->mark = c->status == REPORT_CELL_EXPECTED ? REPORT_MARK_NONE : REPORT_MARK_REGRESSED;
        else
            c->mark = REPORT_MARK_UNCHANGED;
    }
}

/* The baseline's fingerprint for f: the same subject, operator and type, or else the only one
 * of that operator and type (a library's new version often runs under another path). */
static const report_nan_fingerprint *baseline_nan_print(const report_model *base,
                                                        const report_nan_fingerprint *f)
{
    const report_nan_fingerprint *only = NULL;
    size_t same_type = 0;
    for (size_t j = 0; j < base->nan_print_count; j++) {
        const report_nan_fingerprint *b = &base->nan_prints[j];
        if (b->op != f->op || b->input != f->input)
            continue;
        if (!strcmp(b->subject, f->subject))
            return b;
        only = b;
        same_type++;
    }
    return same_type == 1 ? only : NULL;
}

/* SEMANTICS "NaN-policy fingerprint": a fingerprint changed when no policy explains both the
 * baseline's NaN cases and these (two inconsistent ones are not compared). */
static void mark_nan_prints(report_model *m, const report_model *base)
{
    for (size_t i = 0; i < m->nan_print_count; i++) {
        report_nan_fingerprint *f = &m->nan_prints[i];
        const report_nan_fingerprint *b = baseline_nan_print(base, f);
        f->has_baseline = b && b->cases > 0;
        if (!f->has_baseline)
            continue;
        f->baseline_cases = b->cases;
        memcpy(f->baseline_explained, b->explained, sizeof f->baseline_explained);
        unsigned now = report_nan_policies(f), before = report_nan_policies(b);
        f->changed = f->cases > 0 && (now || before) && !(now & before);
    }
}

/* Whether two families are one bug: the same confirmed root cause or, neither confirmed,
 * the same operator family, kind and verdict. */
static bool same_bug(const family *a, const family *b)
{
    if (a->cause[0] || b->cause[0])
        return cause_keys_same_bug(a->cause, b->cause);
    return !strcmp(a->module, b->module) && !strcmp(a->kind, b->kind)
           && !strcmp(a->verdict, b->verdict);
}

/* Whether signature s of `of` is a bug `in` has too: its own signature there or, since a
 * seed's draws split one bug into other signatures, its family's bug. */
static bool bug_known(const report_model *of, const report_signature *s, const report_model *in)
{
    for (size_t j = 0; j < in->signature_count; j++)
        if (same_signature(s, &in->signatures[j]))
            return true;
    const family *f = report_model_family_of(of, s);
    for (size_t j = 0; f && j < in->families.count; j++)
        if (same_bug(f, &in->families.items[j]))
            return true;
    return false;
}

/* Whether family f is a bug to count: judged, or named by a confirmed cause.  A row of
 * unspecified cases no cause explains is a difference from dmlcheck's policy where the spec is
 * silent (the all-padding window, a sign of zero), which a seed draws or does not: it stays in
 * the report and its signatures are marked new, but it is not a bug new or gone. */
static bool counts_as_bug(const family *f)
{
    return f->cause[0] || strstr(f->verdicts, ",fail,");
}

/* How many families of `of` are no bug of `in`. */
static size_t bugs_missing_from(const report_model *of, const report_model *in)
{
    size_t n = 0;
    for (size_t i = 0; i < of->families.count; i++) {
        if (!counts_as_bug(&of->families.items[i]))
            continue;
        bool found = false;
        for (size_t j = 0; j < in->families.count && !found; j++)
            found = same_bug(&of->families.items[i], &in->families.items[j]);
        n += !found;
    }
    return n;
}

bool report_model_compare(report_model *m, const report_model *base, dmlc_error *err)
{
    mark_cells(m, base);
    mark_nan_prints(m, base);
    m->bugs_new = bugs_missing_from(m, base);
    m->bugs_gone = bugs_missing_from(base, m);
    for (size_t i = 0; i < m->signature_count; i++) {
        report_signature *s = &m->signatures[i];
        bool known = bug_known(m, s, base);
        uint64_t judged, failed;
        signature_cells(base, s, &judged, &failed);
        /* New to the baseline: a regression where the baseline ran those types cleanly. */
        s->mark = known ? REPORT_MARK_UNCHANGED
                        : judged > 0 && failed == 0 ? REPORT_MARK_REGRESSED : REPORT_MARK_NEW;
    }
    for (size_t j = 0; j < base->signature_count; j++) {
        const report_signature *b = &base->signatures[j];
        bool still = bug_known(base, b, m);
        uint64_t judged, failed;
        signature_cells(m, b, &judged, &failed);
        /* Fixed only where this run judged the same types at least --min-cases times, without
         * a failure; otherwise it was not retested enough to say. */
        if (still || judged - failed < m->min_cases || b->unspecified)
            continue;
        report_signature *g = GROW(m, gone, gone);
        if (!g || !signature_copy(g, b))
            return err_set(err, "out of memory");
        g->mark = REPORT_MARK_FIXED;
    }
    return true;
}

bool report_model_has_unexpected_failures(const report_model *m)
{
    for (size_t i = 0; i < m->cell_count; i++)
        if (m->cells[i].status == REPORT_CELL_FAIL || m->cells[i].status == REPORT_CELL_ERROR
            || m->cells[i].mark == REPORT_MARK_REGRESSED)
            return true;
    return false;
}

/* ---- verdict text ------------------------------------------------------------------- */

/* "; 9 of them ran none of their cases (the backend skipped every one)": an INSUFFICIENT
 * level whose cells were never run reads differently from one that only needs a longer run. */
static void append_not_run(const report_model *m, const report_verdict *v, char *buf, size_t size)
{
    size_t none = 0;
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell *c = &m->cells[i];
        none += c->key.fl == v->fl && c->required && c->claimed && c->status == REPORT_CELL_FEW
                && c->n.passed + c->n.failed == 0 && c->n.skipped > 0;
    }
    size_t used = strlen(buf);
    if (none)
        snprintf(buf + used, size - used, "; %zu of them ran none of their cases (the backend "
                 "skipped every one; the matrix says why)", none);
    used = strlen(buf);
    if (v->unclaimed_cells)
        snprintf(buf + used, size - used, "; %zu more are not claimed", v->unclaimed_cells);
}

const char *report_claims_line(const report_model *m, char *buf, size_t size)
{
    /* Some level green for its claims, and every other tested level green or claiming none
     * of its cells: everything claimed passed. */
    bool claims_green = false, short_somewhere = false;
    for (size_t i = 0; i < m->verdict_count; i++) {
        const report_verdict *v = &m->verdicts[i];
        claims_green |= v->kind == REPORT_VERDICT_CONFORMANT_CLAIMS;
        short_somewhere |= v->kind != REPORT_VERDICT_CONFORMANT_CLAIMS
                           && v->kind != REPORT_VERDICT_CONFORMANT
                           && v->kind != REPORT_VERDICT_NOT_TESTED
                           && !(v->kind == REPORT_VERDICT_INSUFFICIENT && !v->few_cells);
    }
    buf[0] = 0;
    if (claims_green && !short_somewhere) {
        char what[400];
        snprintf(buf, size, "CONFORMANT for what it claims: %s",
                 claims_describe(&m->claims, what, sizeof what));
    }
    return buf;
}

const char *report_verdict_text(const report_model *m, const report_verdict *v, char *buf,
                                size_t size)
{
    switch (v->kind) {
    case REPORT_VERDICT_CONFORMANT:
        snprintf(buf, size, "all %zu required cells passed, each with at least %u judged cases",
                 v->required_cells, m->min_cases);
        break;
    case REPORT_VERDICT_NOT_CONFORMANT:
        if (v->error_cells)
            snprintf(buf, size, "%zu cell(s) failed; the harness itself failed in %zu cell(s) "
                     "(a dmlcheck bug: conformance unproven)", v->fail_cells, v->error_cells);
        else
            snprintf(buf, size, "%zu cell%s failed", v->fail_cells, v->fail_cells == 1 ? "" : "s");
        break;
    case REPORT_VERDICT_KNOWN_BUGS:
        snprintf(buf, size, "only expected failures (known bugs) in %zu cell%s; %zu of %zu "
                 "required cells passed", v->expected_cells, v->expected_cells == 1 ? "" : "s",
                 v->pass_cells, v->required_cells);
        break;
    case REPORT_VERDICT_INSUFFICIENT:
        if (v->expected_cells) /* "no failure" would hide the known bugs */
            snprintf(buf, size, "no unexpected failure (known bugs in %zu cell%s), but %zu of %zu "
                     "required cells have fewer than %u judged cases", v->expected_cells,
                     v->expected_cells == 1 ? "" : "s", v->few_cells, v->required_cells,
                     m->min_cases);
        else if (!v->few_cells) /* every required cell is beyond the claims */
            snprintf(buf, size, "the backend claims none of the %zu required cells",
                     v->required_cells);
        else
            snprintf(buf, size, "no failure, but %zu of %zu required cells have fewer than %u "
                     "judged cases", v->few_cells, v->required_cells, m->min_cases);
        if (v->few_cells)
            append_not_run(m, v, buf, size);
        break;
    case REPORT_VERDICT_NOT_TESTED:
        snprintf(buf, size, "no case was generated at this level");
        break;
    case REPORT_VERDICT_CONFORMANT_CLAIMS:
        snprintf(buf, size, "all %zu claimed cells passed, each with at least %u judged cases; "
                 "%zu of the %zu required cells are not claimed", v->pass_cells, m->min_cases,
                 v->unclaimed_cells, v->required_cells);
        break;
    case REPORT_VERDICT_INCOMPLETE: {
        const report_run *r = unfinished_run(m);
        snprintf(buf, size, "no failure so far, but run %lld did not finish (status %s%s), so "
                 "its cases are not the sample it asked for", r ? (long long)r->id : 0LL,
                 r ? r->status : "?", r && !strcmp(r->status, "running")
                 ? ": killed, or still running" : "");
        break;
    }
    }
    return buf;
}
