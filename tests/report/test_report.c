/*
 * test_report.c: `dmlcheck report` end to end (suite 'report', TAP).
 *   - statistics: the Clopper-Pearson bound against a directly summed binomial tail;
 *   - which cells a level requires, against SEMANTICS.md's type tables;
 *   - escaping of hostile strings;
 *   - golden Markdown and JUnit reports of fixture databases (report_fixture.h) and a golden
 *     Markdown report of a real `dmlcheck run --backend reference --seed 7`; the JUnit
 *     checked by xmllint against tests/report/junit.xsd, the HTML well-formed with every
 *     section;
 *   - injected failures: the model's cells, verdicts and signatures against the fixture's own
 *     tally of what it injected; baseline marks both ways; expectations;
 *   - missing, empty, foreign and newer databases: exit 2 with a clear message.
 * Regenerate the goldens after an intended change of the report's text with
 *   DMLCHECK_REGEN_GOLDEN=1 meson test -C BUILD --suite report
 * and review the diff of tests/report/golden/ before committing it.
 * argv: dmlcheck executable, tests/report source dir, results/schema.sql, xmllint or "".
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dtype.h"
#include "gen.h"
#include "report_fixture.h"
#include "report_model.h"
#include "tap.h"

typedef struct ctx {
    tap t;
    const char *dmlcheck, *srcdir, *schema, *xmllint;
    char tmp[256];
} ctx;

/* ---- helpers ------------------------------------------------------------------------ */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) == (size_t)n)
        s[n] = 0;
    else {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* Runs a shell command; returns its exit status (-1 when it did not exit normally). */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void tmp_path(const ctx *c, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", c->tmp, name);
}

/* Compares a produced file with tests/report/golden/<name>, or rewrites the golden. */
static void check_golden(ctx *c, const char *produced, const char *name)
{
    char golden[512];
    snprintf(golden, sizeof golden, "%s/golden/%s", c->srcdir, name);
    if (getenv("DMLCHECK_REGEN_GOLDEN")) {
        int rc = run("cp '%s' '%s'", produced, golden);
        tap_ok(&c->t, rc == 0, "golden %s regenerated (review the diff)", name);
        return;
    }
    char *want = slurp(golden), *got = slurp(produced);
    bool same = want && got && !strcmp(want, got);
    if (!tap_ok(&c->t, same, "%s matches golden/%s", produced, name))
        tap_diag("diff -u %s %s   (regenerate: DMLCHECK_REGEN_GOLDEN=1 meson test --suite report)",
                 golden, produced);
    free(want);
    free(got);
}

static bool file_contains(const char *path, const char *needle)
{
    char *s = slurp(path);
    bool found = s && strstr(s, needle);
    free(s);
    return found;
}

/* ---- statistics, required cells, escaping ------------------------------------------- */

/* P(X <= k) for X ~ Binomial(n, p), summed term by term in logs. */
static double binomial_cdf(uint64_t n, uint64_t k, double p)
{
    double sum = 0;
    for (uint64_t i = 0; i <= k; i++)
        sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1)
                   + (double)i * log(p) + (double)(n - i) * log1p(-p));
    return sum;
}

static void test_bounds(ctx *c)
{
    static const uint64_t ns[] = { 1, 10, 300, 100000 };
    for (size_t i = 0; i < 4; i++) {
        double b = report_failure_upper_bound(ns[i], 0, 0.95);
        tap_ok(&c->t, fabs(pow(1 - b, (double)ns[i]) - 0.05) < 1e-9,
               "bound n=%" PRIu64 " k=0: (1-p)^n = 5%% at p = %g", ns[i], b);
    }
    tap_ok(&c->t, fabs(report_failure_upper_bound(300, 0, 0.95) * 300 - 3) < 0.02,
           "bound with 300 passes is about 3/n");
    static const uint64_t nk[][2] = { { 10, 1 }, { 100, 3 }, { 1000, 50 }, { 100000, 7 } };
    for (size_t i = 0; i < 4; i++) {
        double b = report_failure_upper_bound(nk[i][0], nk[i][1], 0.95);
        double tail = binomial_cdf(nk[i][0], nk[i][1], b);
        tap_ok(&c->t, fabs(tail - 0.05) < 1e-6 && b > (double)nk[i][1] / (double)nk[i][0],
               "Clopper-Pearson n=%" PRIu64 " k=%" PRIu64 ": P(X<=k | p=%g) = %g", nk[i][0],
               nk[i][1], b, tail);
    }
    tap_ok(&c->t, report_failure_upper_bound(0, 0, 0.95) == 1
                      && report_failure_upper_bound(5, 5, 0.95) == 1,
           "bound is 1 with nothing judged or everything failed");
}

static bool allowed(DML_FEATURE_LEVEL fl, op_id op, DML_TENSOR_DATA_TYPE in,
                    DML_TENSOR_DATA_TYPE out, DML_TENSOR_DATA_TYPE idx)
{
    report_cell_key k = { fl, op, in, out, idx };
    return report_cell_allowed(&k);
}

/* A level short of cases names its known bugs instead of saying "no failure". */
static void test_verdict_words(ctx *c)
{
    report_model m = { .min_cases = 20 };
    report_verdict v = { .kind = REPORT_VERDICT_INSUFFICIENT, .required_cells = 80,
                         .few_cells = 24, .expected_cells = 16 };
    char text[256];
    report_verdict_text(&m, &v, text, sizeof text);
    tap_ok(&c->t, strstr(text, "known bugs in 16 cells") && !strstr(text, "no failure"),
           "insufficient_cases_with_known_bugs_names_them: %s", text);
    v.expected_cells = 0;
    report_verdict_text(&m, &v, text, sizeof text);
    tap_ok(&c->t, !strcmp(text, "no failure, but 24 of 80 required cells have fewer than 20 judged cases"),
           "insufficient_cases_without_failures_says_so: %s", text);
}

static void test_required(ctx *c)
{
    /* SEMANTICS.md "Feature levels". */
    tap_ok(&c->t, !allowed(DML_FEATURE_LEVEL_2_1, OP_ARGMAX, DML_TENSOR_DATA_TYPE_FLOAT32,
                           DML_TENSOR_DATA_TYPE_UINT32, 0),
           "ARGMAX does not exist at 2_1");
    tap_ok(&c->t, allowed(DML_FEATURE_LEVEL_3_0, OP_ARGMIN, DML_TENSOR_DATA_TYPE_INT8,
                          DML_TENSOR_DATA_TYPE_INT64, 0)
                      && !allowed(DML_FEATURE_LEVEL_3_0, OP_ARGMIN, DML_TENSOR_DATA_TYPE_INT64,
                                  DML_TENSOR_DATA_TYPE_UINT32, 0)
                      && allowed(DML_FEATURE_LEVEL_4_1, OP_ARGMIN, DML_TENSOR_DATA_TYPE_INT64,
                                 DML_TENSOR_DATA_TYPE_UINT32, 0),
           "ARGMIN: int8 from 3_0, int64 input from 4_1");
    tap_ok(&c->t, allowed(DML_FEATURE_LEVEL_2_1, OP_MAX_POOLING2, DML_TENSOR_DATA_TYPE_FLOAT16,
                          DML_TENSOR_DATA_TYPE_FLOAT16, 0)
                      && !allowed(DML_FEATURE_LEVEL_2_1, OP_MAX_POOLING2, DML_TENSOR_DATA_TYPE_UINT8,
                                  DML_TENSOR_DATA_TYPE_UINT8, 0)
                      && !allowed(DML_FEATURE_LEVEL_4_1, OP_MAX_POOLING2, DML_TENSOR_DATA_TYPE_FLOAT32,
                                  DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT64)
                      && allowed(DML_FEATURE_LEVEL_5_0, OP_MAX_POOLING2, DML_TENSOR_DATA_TYPE_FLOAT32,
                                 DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT64),
           "MAX_POOLING2: f16 at 2_1, u8 from 3_0, UINT64 indices from 5_0");
    tap_ok(&c->t, !allowed(DML_FEATURE_LEVEL_5_0, OP_MAX_POOLING2, DML_TENSOR_DATA_TYPE_FLOAT32,
                           DML_TENSOR_DATA_TYPE_FLOAT16, 0),
           "MAX_POOLING2 output type must equal the input type");
}

static void test_escaping(ctx *c)
{
    char path[512];
    tmp_path(c, "escape.txt", path, sizeof path);
    FILE *f = fopen(path, "w");
    report_xml_escape(f, "a<b>&\"'\x01\xff\xc3\xa9|");
    fputc('\n', f);
    report_md_escape(f, "x|y*z_\n`w`");
    fclose(f);
    char *s = slurp(path);
    tap_ok(&c->t, s && !strcmp(s, "a&lt;b&gt;&amp;&quot;&#39;&#xFFFD;&#xFFFD;\xc3\xa9|\n"
                                  "x\\|y\\*z\\_ \\`w\\`"),
           "XML and Markdown escaping (control bytes and bad UTF-8 replaced)");
    free(s);
}

/* ---- fixture reports ---------------------------------------------------------------- */

static void report_to(ctx *c, const char *args, const char *out_name, int want_rc)
{
    char out[512], err[600];
    tmp_path(c, out_name, out, sizeof out);
    snprintf(err, sizeof err, "%s.stderr", out);
    int rc = run("'%s' report %s -o '%s' 2>'%s'", c->dmlcheck, args, out, err);
    if (!tap_ok(&c->t, rc == want_rc, "report %s -> exit %d (want %d)", args, rc, want_rc)) {
        char *e = slurp(err);
        tap_diag("stderr: %s", e ? e : "");
        free(e);
    }
}

static void check_xml(ctx *c, const char *name, bool junit)
{
    char path[512];
    tmp_path(c, name, path, sizeof path);
    if (!c->xmllint[0]) {
        tap_skip(&c->t, "xmllint not found", "%s is well-formed XML", name);
        return;
    }
    tap_ok(&c->t, run("'%s' --noout '%s'", c->xmllint, path) == 0, "%s is well-formed XML", name);
    if (!junit)
        return;
    tap_ok(&c->t, run("'%s' --noout --schema '%s/junit.xsd' '%s' 2>/dev/null", c->xmllint,
                      c->srcdir, path) == 0,
           "%s is valid against junit.xsd", name);
    /* The schema must be able to say no: a testcase without its name is invalid. */
    tap_ok(&c->t, run("sed '0,/<testcase name=\"[^\"]*\"/s//<testcase/' '%s' > '%s.broken' && "
                      "! '%s' --noout --schema '%s/junit.xsd' '%s.broken' 2>/dev/null",
                      path, path, c->xmllint, c->srcdir, path) == 0,
           "junit.xsd rejects %s with a nameless testcase", name);
    char counts[1400];
    snprintf(counts, sizeof counts, "'%s' --xpath 'count(//testcase) = /testsuites/@tests and "
             "count(//testcase/failure) = /testsuites/@failures and "
             "count(//testcase/error) = /testsuites/@errors and "
             "not(//testsuite[count(testcase) != @tests or count(testcase/failure) != @failures "
             "or count(testcase/skipped) != @skipped or count(testcase/error) != @errors])' '%s' "
             "| grep -qx true", c->xmllint, path);
    tap_ok(&c->t, run("%s", counts) == 0, "%s: the suite counts agree with its testcases", name);
    /* CI keeps a test's history by suite and test name: neither may carry the verdict or a
     * number that depends on the run, and one failing cell is one failure, not also a
     * signature's. */
    char stable[1400];
    snprintf(stable, sizeof stable, "'%s' --xpath 'not(//testsuite[contains(@name, \"CONFORMANT\") "
             "or contains(@name, \"INSUFFICIENT\") or contains(@name, \"KNOWN\") or "
             "contains(@name, \"INCOMPLETE\") or contains(@name, \"NOT TESTED\")]) and "
             "not(//testcase[translate(substring(@name, 1, 1), \"0123456789\", \"\") = \"\"])' "
             "'%s' | grep -qx true && [ -z \"$(grep -o '<testcase name=\"[^\"]*\" classname=\"[^\"]*\"' "
             "'%s' | sort | uniq -d)\" ]", c->xmllint, path, path);
    tap_ok(&c->t, run("%s", stable) == 0, "%s: suite and test names are stable and unique", name);
}

static void test_goldens(ctx *c, const char *clean, const char *two)
{
    char args[1024], path[512];
    snprintf(args, sizeof args, "--db '%s' --deterministic --min-cases 1 --format md", clean);
    report_to(c, args, "clean.md", 0);
    tmp_path(c, "clean.md", path, sizeof path);
    check_golden(c, path, "clean.md");
    snprintf(args, sizeof args, "--db '%s' --deterministic --min-cases 1 --format junit", clean);
    report_to(c, args, "clean.xml", 0);
    tmp_path(c, "clean.xml", path, sizeof path);
    check_golden(c, path, "clean.xml");
    check_xml(c, "clean.xml", true);

    const char *common = "--deterministic --min-cases 1 --run 2 --baseline-run 1";
    snprintf(args, sizeof args, "--db '%s' %s --expectations '%s/expectations.json' --format md",
             two, common, c->srcdir);
    report_to(c, args, "faulty.md", 1);
    tmp_path(c, "faulty.md", path, sizeof path);
    check_golden(c, path, "faulty.md");
    snprintf(args, sizeof args, "--db '%s' %s --expectations '%s/expectations.json' --format junit",
             two, common, c->srcdir);
    report_to(c, args, "faulty.xml", 1);
    tmp_path(c, "faulty.xml", path, sizeof path);
    check_golden(c, path, "faulty.xml");
    check_xml(c, "faulty.xml", true);
    snprintf(args, sizeof args, "--db '%s' %s --expectations '%s/expectations.json' --summary",
             two, common, c->srcdir);
    report_to(c, args, "faulty_summary.md", 1);
    tmp_path(c, "faulty_summary.md", path, sizeof path);
    check_golden(c, path, "faulty_summary.md");

    snprintf(args, sizeof args, "--db '%s' %s --expectations '%s/expectations.json'", two, common,
             c->srcdir);
    report_to(c, args, "faulty.html", 1);
    check_xml(c, "faulty.html", false);
    tmp_path(c, "faulty.html", path, sizeof path);
    static const char *const sections[] = { "id=\"verdict\"", "id=\"heatmap\"", "id=\"matrix\"",
                                            "id=\"signatures\"", "id=\"differs\"",
                                            "id=\"coverage\"", "id=\"provenance\"", "<svg" };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        tap_ok(&c->t, file_contains(path, sections[i]), "HTML has %s", sections[i]);
    tap_ok(&c->t, !file_contains(path, "<script") && !file_contains(path, "src=")
                      && !file_contains(path, "href=\"http") && !file_contains(path, "url("),
           "HTML is self-contained (no script, no external resource)");
}

/* A real `dmlcheck run` on the reference backend, reported: the runner's rows as the report
 * reads them (catches drift between the store's writer and this reader). */
/* A cleanly closed database in a folder the reader cannot write (a read-only mount, another
 * user's results) is reported, not called "not a dmlcheck results database".  Root writes
 * anywhere, so as root the report runs as nobody (setpriv), where that user can reach it. */
static void test_read_only_folder(ctx *c, const char *db)
{
    const char *name = "report_reads_a_database_in_a_folder_it_cannot_write";
    char dir[] = "/tmp/dmlcheck-report-ro-XXXXXX", as[128] = "";
    if (!mkdtemp(dir)) {
        tap_ok(&c->t, false, "%s: mkdtemp", name);
        return;
    }
    run("cp '%s' '%s/run.sqlite' && chmod 0444 '%s/run.sqlite' && chmod 0555 '%s'", db, dir, dir, dir);
    if (geteuid() == 0) {
        snprintf(as, sizeof as, "setpriv --reuid=65534 --regid=65534 --clear-groups ");
        if (run("%stest -x '%s' -a -r '%s/run.sqlite' 2>/dev/null", as, c->dmlcheck, dir) != 0) {
            tap_skip(&c->t, "running as root, and user nobody cannot reach the build", "%s", name);
            run("rm -rf '%s'", dir);
            return;
        }
    }
    int rc = run("%s'%s' report --db '%s/run.sqlite' --format md >/dev/null 2>&1", as, c->dmlcheck, dir);
    tap_ok(&c->t, rc == 0, "%s (exit %d)", name, rc);
    run("chmod 0755 '%s' && rm -rf '%s'", dir, dir);
}

static void test_real_run(ctx *c)
{
    char db[512], args[1024], path[512];
    tmp_path(c, "run.sqlite", db, sizeof db);
    int rc = run("'%s' run --backend reference --cases 300 --seed 7 --db '%s' >/dev/null 2>&1",
                 c->dmlcheck, db);
    if (!tap_ok(&c->t, rc == 0, "dmlcheck run --backend reference --cases 300 --seed 7 (exit %d)", rc))
        return;
    snprintf(args, sizeof args, "--db '%s' --deterministic --min-cases 1 --format md", db);
    report_to(c, args, "run_reference.md", 0);
    tmp_path(c, "run_reference.md", path, sizeof path);
    check_golden(c, path, "run_reference.md");
    snprintf(args, sizeof args, "--db '%s' --deterministic --min-cases 1 --format junit", db);
    report_to(c, args, "run_reference.xml", 0);
    check_xml(c, "run_reference.xml", true);
    test_read_only_folder(c, db);
}

/* ---- injected failures through the library ------------------------------------------ */

static bool load(report_model *m, const char *db, int64_t run_id, const char *expectations,
                 dmlc_error *err)
{
    report_model_init(m);
    m->min_cases = 1;
    m->title = report_strdup("t");
    return (!expectations || report_expectations_load(m, expectations, err))
           && report_load(m, db, run_id, false, err) && report_model_finish(m, err);
}

static const report_cell *find(const report_model *m, const report_cell_key *k)
{
    for (size_t i = 0; i < m->cell_count; i++)
        if (!memcmp(&m->cells[i].key, k, sizeof *k))
            return &m->cells[i];
    return NULL;
}

static void test_injected(ctx *c, const char *two, const fixture_tally *tally)
{
    char exp[512];
    snprintf(exp, sizeof exp, "%s/expectations.json", c->srcdir);
    report_model m, base;
    dmlc_error err = { "" };
    bool ok = load(&m, two, 2, exp, &err) && load(&base, two, 1, exp, &err);
    if (!tap_ok(&c->t, ok, "load run 2 and run 1 of the two-run database: %s", err.msg))
        return;
    size_t mismatched = 0, failing_cells = 0, any_failure_cells = 0;
    bool level_fails[8] = { false };
    for (size_t i = 0; i < tally->count; i++) {
        const report_cell *cell = find(&m, &tally->keys[i]);
        const report_counts *n = &tally->n[i];
        if (!cell || cell->n.run != n->run || cell->n.passed != n->passed
            || cell->n.failed != n->failed || cell->n.differs != n->differs
            || cell->n.skipped != n->skipped)
            mismatched++;
        bool pooling_f16 = tally->keys[i].op == OP_MAX_POOLING2
                           && tally->keys[i].input == DML_TENSOR_DATA_TYPE_FLOAT16;
        /* Expected only for the known bug the expectations file names. */
        if (cell && n->failed && cell->status != (pooling_f16 ? REPORT_CELL_EXPECTED : REPORT_CELL_FAIL))
            mismatched++;
        any_failure_cells += n->failed > 0;
        if (n->failed && !pooling_f16) {
            failing_cells++;
            for (size_t f = 0; f < FL_TESTED_COUNT; f++)
                level_fails[f] |= fl_tested[f] == tally->keys[i].fl;
        }
    }
    tap_ok(&c->t, mismatched == 0 && tally->count > 20,
           "every cell's counts and status equal what the fixture injected (%zu cells)",
           tally->count);
    tap_ok(&c->t, failing_cells > 0, "the fixture injected unexpected failures in %zu cells",
           failing_cells);
    bool verdicts_ok = true;
    for (size_t f = 0; f < m.verdict_count; f++)
        verdicts_ok &= (m.verdicts[f].kind == REPORT_VERDICT_NOT_CONFORMANT) == level_fails[f];
    tap_ok(&c->t, verdicts_ok, "a level is NOT CONFORMANT exactly where a failure was injected");
    tap_ok(&c->t, m.signature_count == tally->signatures, "%zu signatures (injected %zu)",
           m.signature_count, tally->signatures);
    size_t bad_sig = 0;
    char replay_prefix[64];
    snprintf(replay_prefix, sizeof replay_prefix, "dmlcheck replay g%d:7:", GEN_VERSION);
    for (size_t i = 0; i < m.signature_count; i++) {
        const report_signature *s = &m.signatures[i];
        bool nan = !strcmp(s->kind, "nan_handling"), tie = !strcmp(s->kind, "tie_other_way");
        bool expected = s->op == OP_MAX_POOLING2 && s->input == DML_TENSOR_DATA_TYPE_FLOAT16 && !nan;
        bad_sig += s->unspecified != nan || (s->expected_reason != NULL) != expected
                   || (tie && s->op != OP_ARGMAX) || !strstr(s->replay, replay_prefix)
                   || (nan && !strstr(s->classes, "nan"));
    }
    tap_ok(&c->t, bad_sig == 0, "signatures: ties fail, pooling f16 expected, NaN differs from policy");

    ok = report_model_compare(&m, &base, &err);
    size_t bad_marks = 0;
    for (size_t i = 0; i < m.cell_count; i++) {
        const report_cell *cell = &m.cells[i];
        /* A cell failing only by known bugs is declared, not regressed (no mark). */
        report_mark want = cell->status == REPORT_CELL_FAIL ? REPORT_MARK_REGRESSED
                           : cell->status == REPORT_CELL_EXPECTED ? REPORT_MARK_NONE
                                                                  : REPORT_MARK_UNCHANGED;
        bad_marks += cell->n.passed + cell->n.failed && cell->mark != want;
    }
    for (size_t i = 0; i < m.signature_count; i++)
        bad_marks += m.signatures[i].mark != REPORT_MARK_REGRESSED
                     && m.signatures[i].mark != REPORT_MARK_NEW;
    tap_ok(&c->t, ok && bad_marks == 0, "against the clean run: failing cells REGRESSED, cells "
           "failing only by known bugs unmarked, others UNCHANGED");
    tap_ok(&c->t, report_model_has_unexpected_failures(&m), "unexpected failures decide exit 1");

    report_model_free(&base);
    ok = load(&base, two, 1, exp, &err) && report_model_compare(&base, &m, &err);
    size_t fixed = 0, judged_sigs = 0;
    for (size_t i = 0; i < base.cell_count; i++)
        fixed += base.cells[i].mark == REPORT_MARK_FIXED;
    for (size_t i = 0; i < m.signature_count; i++)
        judged_sigs += !m.signatures[i].unspecified;
    tap_ok(&c->t, ok && fixed == any_failure_cells && base.gone_count == judged_sigs,
           "the clean run against the faulty one: %zu cells and %zu signatures FIXED", fixed,
           base.gone_count);
    report_model_free(&base);
    report_model_free(&m);
}

/* An entry with "cause": "undiagnosed" matches the fixture's rows (no cause was confirmed for
 * them), and one naming a cause matches none of them. */
static void test_undiagnosed_entries(ctx *c, const char *two)
{
    static const char *const causes[] = { "undiagnosed", "UNDIAGNOSED", "tie_direction_flipped" };
    for (size_t k = 0; k < sizeof causes / sizeof causes[0]; k++) {
        char path[512];
        tmp_path(c, "undiagnosed.json", path, sizeof path);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "{\"expectations\": [{\"op\": \"MAX_POOLING2\", \"input\": \"f16\", "
                    "\"kind\": \"value_bits_differ\", \"cause\": \"%s\", \"reason\": \"r\"}]}\n",
                    causes[k]);
            fclose(f);
        }
        report_model m;
        dmlc_error err = { "" };
        bool ok = f && load(&m, two, 2, path, &err);
        size_t pooling_f16 = 0, expected = 0;
        for (size_t i = 0; ok && i < m.signature_count; i++) {
            const report_signature *s = &m.signatures[i];
            if (s->op == OP_MAX_POOLING2 && s->input == DML_TENSOR_DATA_TYPE_FLOAT16
                && !strcmp(s->kind, "value_bits_differ")) {
                pooling_f16++;
                expected += s->expected_reason != NULL;
            }
        }
        bool want_all = k < 2;
        tap_ok(&c->t, ok && pooling_f16 > 0 && expected == (want_all ? pooling_f16 : 0),
               "an entry with cause \"%s\" excuses %s of the undiagnosed pooling FLOAT16 rows "
               "(%zu of %zu) %s", causes[k], want_all ? "all" : "none", expected, pooling_f16, err.msg);
        if (ok)
            report_model_free(&m);
    }
}

/* ---- unreadable databases ----------------------------------------------------------- */

static void expect_error(ctx *c, const char *db, const char *args, const char *message,
                         const char *what)
{
    char err[512];
    tmp_path(c, "error.stderr", err, sizeof err);
    int rc = run("'%s' report --db '%s' %s >/dev/null 2>'%s'", c->dmlcheck, db, args, err);
    bool said = file_contains(err, message);
    if (!tap_ok(&c->t, rc == 2 && said, "%s: exit 2 and says \"%s\"", what, message)) {
        char *e = slurp(err);
        tap_diag("exit %d, stderr: %s", rc, e ? e : "");
        free(e);
    }
}

static void test_errors(ctx *c, const char *clean)
{
    char path[512];
    dmlc_error err;
    tmp_path(c, "missing.sqlite", path, sizeof path);
    expect_error(c, path, "", "No such file", "missing database");
    tmp_path(c, "empty.sqlite", path, sizeof path);
    fclose(fopen(path, "w"));
    expect_error(c, path, "", "empty file, not a dmlcheck results database", "empty file");
    tmp_path(c, "text.sqlite", path, sizeof path);
    FILE *f = fopen(path, "w");
    fputs("this is not a database, just text that is long enough to have a header......\n", f);
    fclose(f);
    expect_error(c, path, "", "not a dmlcheck results database", "text file");
    tmp_path(c, "foreign.sqlite", path, sizeof path);
    unlink(path);
    run("sqlite3 '%s' 'CREATE TABLE runs(x); CREATE TABLE photos(y)' 2>/dev/null", path);
    if (access(path, F_OK) == 0)
        expect_error(c, path, "", "not a dmlcheck results database", "foreign SQLite database");
    else
        tap_skip(&c->t, "sqlite3 shell absent", "foreign SQLite database");
    tmp_path(c, "newer.sqlite", path, sizeof path);
    bool built = fixture_build(c->schema, path, "newer", NULL, &err);
    expect_error(c, path, "", built ? "written by a newer dmlcheck" : err.msg, "newer schema");
    expect_error(c, clean, "--run 99", "no run 99", "unknown run");
    expect_error(c, clean, "--format pdf", "--format is html, md or junit", "unknown format");
}

/* The summary stays under a pull-request comment's size however many signatures fail (here
 * 5,000, with long kinds), saying how many it left out, and keeps the largest. */
static void test_summary_bound(ctx *c)
{
    report_model m;
    report_model_init(&m);
    m.deterministic = true;
    m.title = report_strdup("summary bound");
    m.selection = report_strdup("run 1");
    m.db_path = report_strdup("summary.sqlite");
    bool ok = m.title && m.selection && m.db_path;
    for (unsigned i = 0; ok && i < 5000; i++) {
        report_signature *s = report_model_add_signature(&m);
        ok = s != NULL;
        if (!ok)
            break;
        memset(s, 0, sizeof *s);
        *s = (report_signature){ .fl = DML_FEATURE_LEVEL_4_1, .op = OP_ARGMAX,
                                 .input = DML_TENSOR_DATA_TYPE_FLOAT32,
                                 .output = DML_TENSOR_DATA_TYPE_UINT32, .count = 1 + i % 97,
                                 .gen_version = GEN_VERSION, .seed = 1, .index = i };
        s->layout = report_strdup("packed");
        s->distribution = report_strdup("ties");
        s->kind = report_strdup("a_rather_long_kind_name_to_fill_the_table_row_quickly");
        s->classes = report_strdup("");
        s->first_seen = report_strdup("");
        s->last_seen = report_strdup("");
        s->backend = report_strdup("reference");
        s->replay = report_strdup("dmlcheck replay g3:1:0 --backend reference");
        s->gen_args = report_strdup("");
        s->tensor = report_strdup("");
        s->detail = report_strdup("");
    }
    char *text = NULL;
    size_t len = 0;
    dmlc_error err = { "" };
    FILE *mem = open_memstream(&text, &len);
    ok = ok && mem && report_model_finish(&m, &err) && report_render_md_summary(&m, mem, &err);
    if (mem)
        fclose(mem);
    tap_ok(&c->t, ok && len < REPORT_SUMMARY_MAX_CHARS && strstr(text, "more failing signatures")
                  && strstr(text, "| 96 | FAIL |"),
           "summary of 5,000 failing signatures: %zu characters, names what it left out, keeps "
           "the largest first %s", len, err.msg);
    free(text);
    report_model_free(&m);
}

/* A run's provenance is one table (report_run_provenance) that HTML and Markdown both print
 * row for row, and the runtime row says what the backend reported: a plug-in's runtime is
 * not an OpenCL C version. */
static bool rendered_has_rows(const report_model *m, bool html, const report_provenance *p)
{
    char *text = NULL;
    size_t len = 0;
    dmlc_error err = { "" };
    FILE *mem = open_memstream(&text, &len);
    bool ok = mem && (html ? report_render_html(m, mem, &err) : report_render_md(m, mem, &err));
    if (mem)
        fclose(mem);
    for (unsigned k = 0; ok && k < p->count; k++) {
        char row[256];
        snprintf(row, sizeof row, html ? "<tr><th>%s</th><td>%s</td></tr>" : "| %s | %s |",
                 p->rows[k].label, p->rows[k].value);
        ok = strstr(text, row) != NULL;
    }
    free(text);
    return ok;
}

static void test_provenance(ctx *c)
{
    report_model m;
    report_model_init(&m);
    m.deterministic = true;
    m.title = report_strdup("provenance");
    m.selection = report_strdup("run 1");
    m.db_path = report_strdup("provenance.sqlite");
    report_run *r = report_model_add_run(&m);
    bool ok = r && m.title && m.selection && m.db_path;
    if (r) {
        memset(r, 0, sizeof *r);
        char **text[] = { &r->version, &r->git_revision, &r->host, &r->options, &r->command_line,
                          &r->status, &r->nan_policy, &r->started, &r->finished, &r->driver,
                          &r->fp_config, &r->shard };
        for (size_t i = 0; i < sizeof text / sizeof *text; i++)
            ok = ok && (*text[i] = report_strdup("x"));
        r->id = 1;
        ok = ok && (r->backend = report_strdup("plugin:libacme.so"))
             && (r->platform = report_strdup("Acme")) && (r->device = report_strdup("GPU 0"))
             && (r->runtime = report_strdup("CUDA 12.4"));
    }
    dmlc_error err = { "" };
    ok = ok && report_model_finish(&m, &err);
    report_provenance p = { 0 };
    if (ok)
        report_run_provenance(&m, r, &p);
    bool labels = false;
    for (unsigned k = 0; k < p.count; k++)
        labels |= !strcmp(p.rows[k].label, "runtime") && !strcmp(p.rows[k].value, "CUDA 12.4");
    tap_ok(&c->t, ok && labels && rendered_has_rows(&m, true, &p) && rendered_has_rows(&m, false, &p),
           "provenance: HTML and Markdown print the same %u rows; a plug-in's CUDA 12.4 is its "
           "runtime %s", p.count, err.msg);
    free(r ? r->runtime : NULL);
    if (r)
        r->runtime = report_strdup("OpenCL C 1.2");
    if (ok)
        report_run_provenance(&m, r, &p);
    labels = false;
    for (unsigned k = 0; k < p.count; k++)
        labels |= !strcmp(p.rows[k].label, "OpenCL C version");
    tap_ok(&c->t, ok && labels, "provenance: OpenCL's runtime is labelled its OpenCL C version");
    report_model_free(&m);
}

int main(int argc, char **argv)
{
    ctx c = { .dmlcheck = argc > 1 ? argv[1] : "dmlcheck", .srcdir = argc > 2 ? argv[2] : ".",
              .schema = argc > 3 ? argv[3] : "schema.sql", .xmllint = argc > 4 ? argv[4] : "" };
    snprintf(c.tmp, sizeof c.tmp, "/tmp/dmlcheck-report-XXXXXX");
    if (!mkdtemp(c.tmp)) {
        perror("mkdtemp");
        return 1;
    }
    tap_plan(&c.t, 0);
    test_bounds(&c);
    test_required(&c);
    test_verdict_words(&c);
    test_escaping(&c);
    test_summary_bound(&c);
    test_provenance(&c);

    char clean[512], two[512];
    fixture_tally *tally = calloc(1, sizeof *tally);
    dmlc_error err = { "" };
    tmp_path(&c, "clean.sqlite", clean, sizeof clean);
    tmp_path(&c, "two.sqlite", two, sizeof two);
    bool built = fixture_build(c.schema, clean, "clean", NULL, &err)
                 && fixture_build(c.schema, two, "two", tally, &err);
    if (tap_ok(&c.t, built, "fixture databases built: %s", err.msg)) {
        test_goldens(&c, clean, two);
        test_injected(&c, two, tally);
        test_undiagnosed_entries(&c, two);
        test_errors(&c, clean);
    }
    test_real_run(&c);
    free(tally);
    if (c.t.failed == 0)
        run("rm -rf '%s'", c.tmp);
    else
        tap_diag("outputs kept in %s", c.tmp);
    return tap_done(&c.t);
}
