/*
 * report_junit.c: the conformance report as JUnit XML for CI systems, stable from run to run
 * so a CI's history means something.  One <testsuite> per feature level that ran cases
 * ("feature level 3_0": the verdict is a property, not part of the name, so the history
 * survives a verdict change) with one <testcase> per cell the level requires, whether or not
 * a case hit it, and one "must reject" testcase for the cells no level requires (drawn only
 * from descriptors DirectML must refuse: a backend that runs one fails there).  So two seeds
 * of the same options give the same testcase names.  Names are unique in the file: the level
 * and the cell ("fl_3_0_argmax_f32_idx_u32", classname dmlcheck.fl_3_0.argmax); they never
 * carry a verdict or a run-dependent number.  time= is the backend's time on the cell's
 * cases (results.time_us), 0 in a --deterministic report.  Mapping:
 *   cell FAIL -> <failure> listing the signatures that fail it (first difference, replay),
 *   harness ERROR -> <error>, expected failure, too few cases or not claimed -> <skipped>,
 *   pass -> none; every cell's <system-out> has its failure-rate bound, its mark against a
 *   baseline and its other signatures (expected, differing from policy, fixed since the
 *   baseline).
 * A failure is counted once, in its cell: signatures are not testcases of their own.
 * Valid against tests/report/junit.xsd, a subset of Jenkins' junit-10.xsd (no skipped count
 * on <testsuites>); every attribute value and text node goes through report_xml_escape.
 * Counts in each suite's attributes are computed from the same decisions as its testcases.
 */
#include "report_model.h"

#include <inttypes.h>
#include <string.h>

#include "gen.h"

typedef struct junit_tally {
    size_t tests, failures, errors, skipped;
} junit_tally;

/* A required cell is a testcase of its own; the others are the level's "must reject" one. */
static bool cell_listed(const report_cell *c)
{
    return c->required;
}

/* The level's cells no level requires, as one testcase: what must-reject descriptors drew. */
typedef struct reject_cell {
    report_counts n;
    report_cell_status status;
} reject_cell;

static reject_cell reject_cell_of(const report_model *m, DML_FEATURE_LEVEL fl)
{
    reject_cell r = { .status = REPORT_CELL_PASS };
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell *c = &m->cells[i];
        if (c->key.fl != fl || c->required)
            continue;
        r.n.run += c->n.run;
        r.n.passed += c->n.passed;
        r.n.failed += c->n.failed;
        r.n.skipped += c->n.skipped;
        r.n.errors += c->n.errors;
        r.n.seconds += c->n.seconds;
        if (c->status == REPORT_CELL_FAIL || (c->status == REPORT_CELL_ERROR
                                              && r.status != REPORT_CELL_FAIL))
            r.status = c->status;
    }
    if (r.status == REPORT_CELL_PASS && r.n.passed == 0)
        r.status = REPORT_CELL_FEW; /* nothing was refused: nothing shown */
    return r;
}

static void tally_status(junit_tally *t, report_cell_status s)
{
    t->tests++;
    t->failures += s == REPORT_CELL_FAIL;
    t->errors += s == REPORT_CELL_ERROR;
    t->skipped += s == REPORT_CELL_FEW || s == REPORT_CELL_EXPECTED;
}

static void tally_cell(junit_tally *t, const report_cell *c)
{
    tally_status(t, c->status);
}

/* Suites: the levels that ran cases (a level nothing was drawn at has no history to keep). */
static bool level_listed(const report_verdict *v)
{
    return v->kind != REPORT_VERDICT_NOT_TESTED;
}

/* " time=\"S\"": the backend's seconds, 0 when the report is deterministic. */
static void xml_time(const report_model *m, FILE *out, double seconds)
{
    fprintf(out, " time=\"%.6f\"", m->deterministic ? 0.0 : seconds);
}

static void xml_attr(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    report_xml_escape(out, value);
    fputc('"', out);
}

static bool signature_in_cell(const report_signature *s, const report_cell *c)
{
    return s->fl == c->key.fl && s->op == c->key.op && s->input == c->key.input
           && s->output == c->key.output && s->indices == c->key.indices;
}

/* One signature as a line of a testcase body: kind, count, layout, distribution, its state
 * (judged, expected, unspecified, fixed), first difference and replay command. */
static void signature_lines(const report_signature *s, size_t number, FILE *out)
{
    char buf[512];
    fprintf(out, "signature %zu: ", number);
    report_xml_escape(out, s->kind);
    fprintf(out, " (%" PRIu64 " cases, layout ", s->count);
    report_xml_escape(out, s->layout);
    fprintf(out, ", distribution ");
    report_xml_escape(out, s->distribution);
    fprintf(out, ")");
    if (s->mark == REPORT_MARK_FIXED)
        fprintf(out, " FIXED: occurred in the baseline, not in this run");
    else if (s->expected_reason) {
        fprintf(out, " expected (known bug: ");
        report_xml_escape(out, s->expected_reason);
        fputc(')', out);
    } else if (s->unspecified) {
        fprintf(out, " differs from dmlcheck's policy where DirectML is silent (");
        report_xml_escape(out, s->classes);
        fputc(')', out);
    }
    fprintf(out, "&#10;  ");
    report_xml_escape(out, report_first_difference(s, buf, sizeof buf));
    fprintf(out, "&#10;  ");
    report_emit(out, report_xml_escape, report_replay_command(s));
    fprintf(out, "&#10;");
}

/* Signatures listed per cell and part (failure, system-out): a CI page shows the first ones;
 * the HTML and Markdown reports list every one. */
#define CELL_SIGNATURES_SHOWN 12

/* The cell's signatures, those of this run and those gone since the baseline, numbered as
 * the other formats number them; judged: only the ones that fail it. */
static void cell_signatures(const report_model *m, const report_cell *c, bool judged, FILE *out)
{
    size_t found = 0;
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_signature *s = &m->signatures[i];
        bool fails = !s->unspecified && !s->expected_reason;
        if (signature_in_cell(s, c) && (!judged || fails) && found++ < CELL_SIGNATURES_SHOWN)
            signature_lines(s, i + 1, out);
    }
    for (size_t i = 0; i < m->gone_count && !judged; i++)
        if (signature_in_cell(&m->gone[i], c) && found++ < CELL_SIGNATURES_SHOWN)
            signature_lines(&m->gone[i], m->signature_count + i + 1, out);
    if (found > CELL_SIGNATURES_SHOWN)
        fprintf(out, "and %zu more signatures in this cell: the HTML or Markdown report lists "
                     "them all&#10;", found - CELL_SIGNATURES_SHOWN);
}

/* The cell's other signatures (expected, unspecified, fixed) after its status line. */
static void cell_system_out(const report_model *m, const report_cell *c, const char *status,
                            FILE *out)
{
    fprintf(out, "      <system-out>");
    report_xml_escape(out, status);
    if (c->mark != REPORT_MARK_NONE) {
        fprintf(out, "; ");
        report_xml_escape(out, report_mark_name(c->mark));
        fprintf(out, " vs baseline");
    }
    fprintf(out, "&#10;");
    cell_signatures(m, c, false, out);
    fprintf(out, "</system-out>\n");
}

static void outcome(FILE *out, const char *element, const char *message, const char *type)
{
    fprintf(out, "      <%s", element);
    xml_attr(out, "message", message);
    if (type)
        xml_attr(out, "type", type);
}

static void cell_testcase(const report_model *m, const report_cell *c, FILE *out)
{
    char id[96], name[128], cls[64], bound[200], msg[300];
    snprintf(cls, sizeof cls, "dmlcheck.fl_%s.%s", fl_name(c->key.fl), op_table[c->key.op].stem);
    snprintf(name, sizeof name, "fl_%s_%s", fl_name(c->key.fl),
             report_cell_id(&c->key, id, sizeof id));
    fprintf(out, "    <testcase");
    xml_attr(out, "name", name);
    xml_attr(out, "classname", cls);
    xml_time(m, out, c->n.seconds);
    fprintf(out, ">\n");
    report_bound_text(c, bound, sizeof bound);
    switch (c->status) {
    case REPORT_CELL_PASS:
        break;
    case REPORT_CELL_FEW:
        if (report_cell_unclaimed(c))
            snprintf(msg, sizeof msg, "not claimed by the backend: %s", bound);
        else
            snprintf(msg, sizeof msg, "too few cases: %s (need %u judged)", bound, m->min_cases);
        outcome(out, "skipped", msg, NULL);
        fprintf(out, "/>\n");
        break;
    case REPORT_CELL_EXPECTED:
        snprintf(msg, sizeof msg, "expected failure (known bug): %s", bound);
        outcome(out, "skipped", msg, NULL);
        fprintf(out, "/>\n");
        break;
    case REPORT_CELL_ERROR:
        snprintf(msg, sizeof msg, "%" PRIu64 " cases hit a harness error (a dmlcheck bug)",
                 c->n.errors);
        outcome(out, "error", msg, "harness_error");
        fprintf(out, "/>\n");
        break;
    case REPORT_CELL_FAIL:
        snprintf(msg, sizeof msg, "%s%s", bound,
                 c->mark == REPORT_MARK_REGRESSED ? " (REGRESSED vs baseline)" : "");
        outcome(out, "failure", msg, "mismatch");
        fputc('>', out);
        cell_signatures(m, c, true, out);
        fprintf(out, "</failure>\n");
        break;
    }
    cell_system_out(m, c, bound, out);
    fprintf(out, "    </testcase>\n");
}

/* The level's "must reject" testcase: every cell no level requires (their cases were drawn
 * from descriptors DirectML must refuse), failing when the backend ran one. */
static void reject_testcase(const report_model *m, DML_FEATURE_LEVEL fl, FILE *out)
{
    reject_cell r = reject_cell_of(m, fl);
    char name[64], cls[64], text[300];
    snprintf(name, sizeof name, "fl_%s_must_reject", fl_name(fl));
    snprintf(cls, sizeof cls, "dmlcheck.fl_%s.must_reject", fl_name(fl));
    fprintf(out, "    <testcase");
    xml_attr(out, "name", name);
    xml_attr(out, "classname", cls);
    xml_time(m, out, r.n.seconds);
    fprintf(out, ">\n");
    snprintf(text, sizeof text, "descriptors of types no level allows, which DirectML must "
             "refuse: %" PRIu64 " refused, %" PRIu64 " run (failed), %" PRIu64 " skipped",
             r.n.passed, r.n.failed, r.n.skipped);
    if (r.status == REPORT_CELL_FAIL || r.status == REPORT_CELL_ERROR)
        outcome(out, r.status == REPORT_CELL_FAIL ? "failure" : "error", text,
                r.status == REPORT_CELL_FAIL ? "accepted_invalid" : "harness_error");
    else if (r.status == REPORT_CELL_FEW)
        outcome(out, "skipped", "no such descriptor was refused (the backend does not check "
                "descriptors, or none was drawn)", NULL);
    if (r.status != REPORT_CELL_PASS)
        fprintf(out, "/>\n");
    fprintf(out, "      <system-out>");
    report_xml_escape(out, text);
    fprintf(out, "</system-out>\n    </testcase>\n");
}

static void level_suite(const report_model *m, const report_verdict *v, FILE *out)
{
    junit_tally t = { 0 };
    double seconds = 0;
    for (size_t i = 0; i < m->cell_count; i++)
        if (m->cells[i].key.fl == v->fl) {
            seconds += m->cells[i].n.seconds;
            if (cell_listed(&m->cells[i]))
                tally_cell(&t, &m->cells[i]);
        }
    tally_status(&t, reject_cell_of(m, v->fl).status);
    char name[64], why[256];
    snprintf(name, sizeof name, "feature level %s", fl_name(v->fl));
    fprintf(out, "  <testsuite");
    xml_attr(out, "name", name);
    fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"",
            t.tests, t.failures, t.errors, t.skipped);
    xml_time(m, out, seconds);
    fprintf(out, ">\n");
    fprintf(out, "    <properties>\n      <property name=\"verdict\"");
    xml_attr(out, "value", report_verdict_name(v->kind));
    fprintf(out, "/>\n      <property name=\"why\"");
    xml_attr(out, "value", report_verdict_text(m, v, why, sizeof why));
    fprintf(out, "/>\n    </properties>\n");
    for (size_t i = 0; i < m->cell_count; i++)
        if (m->cells[i].key.fl == v->fl && cell_listed(&m->cells[i]))
            cell_testcase(m, &m->cells[i], out);
    reject_testcase(m, v->fl, out);
    fprintf(out, "  </testsuite>\n");
}

bool report_render_junit(const report_model *m, FILE *out, dmlc_error *err)
{
    junit_tally all = { 0 };
    double seconds = 0;
    for (size_t f = 0; f < m->verdict_count; f++) {
        const report_verdict *v = &m->verdicts[f];
        if (!level_listed(v))
            continue;
        for (size_t i = 0; i < m->cell_count; i++)
            if (m->cells[i].key.fl == v->fl && cell_listed(&m->cells[i]))
                tally_cell(&all, &m->cells[i]);
        tally_status(&all, reject_cell_of(m, v->fl).status);
        seconds += v->n.seconds;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", m->title);
    /* junit-10 has no skipped count here; each suite carries its own. */
    fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\"", all.tests, all.failures,
            all.errors);
    xml_time(m, out, seconds);
    fprintf(out, ">\n");
    for (size_t i = 0; i < m->verdict_count; i++)
        if (level_listed(&m->verdicts[i]))
            level_suite(m, &m->verdicts[i], out);
    fprintf(out, "</testsuites>\n");
    fflush(out);
    return !ferror(out) || err_set(err, "writing the JUnit report failed");
}
