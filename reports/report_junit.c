/*
 * report_junit.c: the conformance report as JUnit XML for CI systems.  One <testsuite> per
 * tested feature level with one <testcase> per matrix cell (required or run), and one
 * "signatures" suite with one <testcase> per mismatch signature.  Mapping:
 *   cell FAIL -> <failure>, harness ERROR -> <error>, expected failure -> <skipped>,
 *   too few cases -> <skipped>, pass -> empty testcase;
 *   signature FAIL -> <failure> (message: first difference; body: replay and export),
 *   expected / differs from policy -> <skipped>; baseline signatures now FIXED -> passing.
 * Valid against the common JUnit schema (tests/report/junit.xsd); every attribute value and
 * text node goes through report_xml_escape.  Counts in each suite's attributes are computed
 * from the same decisions as its testcases.
 */
#include "report_model.h"

#include <inttypes.h>
#include <string.h>

#include "gen.h"

typedef struct junit_tally {
    size_t tests, failures, errors, skipped;
} junit_tally;

static bool cell_listed(const report_cell *c)
{
    return c->required || c->n.run > 0;
}

static void tally_cell(junit_tally *t, const report_cell *c)
{
    t->tests++;
    t->failures += c->status == REPORT_CELL_FAIL;
    t->errors += c->status == REPORT_CELL_ERROR;
    t->skipped += c->status == REPORT_CELL_FEW || c->status == REPORT_CELL_EXPECTED;
}

static void xml_attr(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    report_xml_escape(out, value);
    fputc('"', out);
}

/* Signatures of this cell, with their replay commands, for the failure body. */
static void cell_failure_body(const report_model *m, const report_cell *c, FILE *out)
{
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_signature *s = &m->signatures[i];
        if (s->fl != c->key.fl || s->op != c->key.op || s->input != c->key.input
            || s->output != c->key.output || s->indices != c->key.indices || s->unspecified)
            continue;
        char buf[512];
        fprintf(out, "signature %zu: ", i + 1);
        report_xml_escape(out, s->kind);
        fprintf(out, " (%" PRIu64 " cases, layout ", s->count);
        report_xml_escape(out, s->layout);
        fprintf(out, ", distribution ");
        report_xml_escape(out, s->distribution);
        fprintf(out, ")&#10;  ");
        report_xml_escape(out, report_first_difference(s, buf, sizeof buf));
        fprintf(out, "&#10;  ");
        report_xml_escape(out, report_replay_command(s, buf, sizeof buf));
        fprintf(out, "&#10;");
    }
}

static void cell_testcase(const report_model *m, const report_cell *c, FILE *out)
{
    char id[96], cls[64], bound[200], msg[300];
    snprintf(cls, sizeof cls, "dmlcheck.fl_%s.%s", fl_name(c->key.fl), op_table[c->key.op].stem);
    fprintf(out, "    <testcase");
    xml_attr(out, "name", report_cell_id(&c->key, id, sizeof id));
    xml_attr(out, "classname", cls);
    fprintf(out, " time=\"0\"");
    report_bound_text(c, bound, sizeof bound);
    switch (c->status) {
    case REPORT_CELL_PASS:
        fprintf(out, ">\n      <system-out>");
        report_xml_escape(out, bound);
        if (c->mark != REPORT_MARK_NONE) {
            fprintf(out, "; ");
            report_xml_escape(out, report_mark_name(c->mark));
            fprintf(out, " vs baseline");
        }
        fprintf(out, "</system-out>\n    </testcase>\n");
        return;
    case REPORT_CELL_FEW:
        snprintf(msg, sizeof msg, "too few cases: %s (need %u judged)", bound, m->min_cases);
        fprintf(out, ">\n      <skipped");
        xml_attr(out, "message", msg);
        fprintf(out, "/>\n    </testcase>\n");
        return;
    case REPORT_CELL_EXPECTED:
        snprintf(msg, sizeof msg, "expected failure (known bug): %s", bound);
        fprintf(out, ">\n      <skipped");
        xml_attr(out, "message", msg);
        fprintf(out, "/>\n    </testcase>\n");
        return;
    case REPORT_CELL_ERROR:
        snprintf(msg, sizeof msg, "%" PRIu64 " cases hit a harness error (a dmlcheck bug)",
                 c->n.errors);
        fprintf(out, ">\n      <error");
        xml_attr(out, "message", msg);
        xml_attr(out, "type", "harness_error");
        fprintf(out, "/>\n    </testcase>\n");
        return;
    case REPORT_CELL_FAIL:
        snprintf(msg, sizeof msg, "%s%s", bound,
                 c->mark == REPORT_MARK_REGRESSED ? " (REGRESSED vs baseline)" : "");
        fprintf(out, ">\n      <failure");
        xml_attr(out, "message", msg);
        xml_attr(out, "type", "mismatch");
        fputc('>', out);
        cell_failure_body(m, c, out);
        fprintf(out, "</failure>\n    </testcase>\n");
        return;
    }
}

static void level_suite(const report_model *m, const report_verdict *v, FILE *out)
{
    junit_tally t = { 0 };
    for (size_t i = 0; i < m->cell_count; i++)
        if (m->cells[i].key.fl == v->fl && cell_listed(&m->cells[i]))
            tally_cell(&t, &m->cells[i]);
    char name[64], why[256];
    snprintf(name, sizeof name, "feature level %s: %s", fl_name(v->fl), report_verdict_name(v->kind));
    fprintf(out, "  <testsuite");
    xml_attr(out, "name", name);
    fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"0\">\n",
            t.tests, t.failures, t.errors, t.skipped);
    fprintf(out, "    <properties>\n      <property name=\"verdict\"");
    xml_attr(out, "value", report_verdict_name(v->kind));
    fprintf(out, "/>\n      <property name=\"why\"");
    xml_attr(out, "value", report_verdict_text(m, v, why, sizeof why));
    fprintf(out, "/>\n    </properties>\n");
    for (size_t i = 0; i < m->cell_count; i++)
        if (m->cells[i].key.fl == v->fl && cell_listed(&m->cells[i]))
            cell_testcase(m, &m->cells[i], out);
    fprintf(out, "  </testsuite>\n");
}

static void signature_testcase(const report_signature *s, size_t number, FILE *out)
{
    char name[256], types[64], buf[512], cls[64];
    report_cell_key k = { s->fl, s->op, s->input, s->output, s->indices };
    snprintf(name, sizeof name, "%zu %s %s at %s: %s, %s, %s", number, op_table[s->op].stem,
             report_cell_types(&k, types, sizeof types), fl_name(s->fl), s->layout,
             s->distribution, s->kind);
    snprintf(cls, sizeof cls, "dmlcheck.signatures.%s", op_table[s->op].stem);
    fprintf(out, "    <testcase");
    xml_attr(out, "name", name);
    xml_attr(out, "classname", cls);
    fprintf(out, " time=\"0\">\n");
    if (s->mark == REPORT_MARK_FIXED) {
        fprintf(out, "      <system-out>FIXED: occurred in the baseline, not in this run</system-out>\n");
    } else if (s->expected_reason || s->unspecified) {
        if (s->expected_reason)
            snprintf(buf, sizeof buf, "expected failure (known bug): %s", s->expected_reason);
        else
            snprintf(buf, sizeof buf, "differs from our policy (unspecified class %s)", s->classes);
        fprintf(out, "      <skipped");
        xml_attr(out, "message", buf);
        fprintf(out, "/>\n");
    } else {
        fprintf(out, "      <failure");
        xml_attr(out, "message", report_first_difference(s, buf, sizeof buf));
        xml_attr(out, "type", s->kind);
        char id[GEN_CASE_ID_SIZE];
        fprintf(out, ">%" PRIu64 " cases; representative %s%s%s&#10;", s->count,
                report_case_id(s, id, sizeof id), s->mark != REPORT_MARK_NONE ? "; " : "",
                report_mark_name(s->mark));
        report_xml_escape(out, report_replay_command(s, buf, sizeof buf));
        fprintf(out, "&#10;");
        report_xml_escape(out, report_export_command(s, buf, sizeof buf));
        fprintf(out, "</failure>\n");
    }
    fprintf(out, "    </testcase>\n");
}

static void signature_suite(const report_model *m, FILE *out)
{
    junit_tally t = { 0 };
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_signature *s = &m->signatures[i];
        t.tests++;
        if (s->expected_reason || s->unspecified)
            t.skipped++;
        else
            t.failures++;
    }
    t.tests += m->gone_count;
    fprintf(out, "  <testsuite name=\"mismatch signatures\" tests=\"%zu\" failures=\"%zu\" "
                 "errors=\"0\" skipped=\"%zu\" time=\"0\">\n", t.tests, t.failures, t.skipped);
    for (size_t i = 0; i < m->signature_count; i++)
        signature_testcase(&m->signatures[i], i + 1, out);
    for (size_t i = 0; i < m->gone_count; i++)
        signature_testcase(&m->gone[i], m->signature_count + i + 1, out);
    fprintf(out, "  </testsuite>\n");
}

bool report_render_junit(const report_model *m, FILE *out, dmlc_error *err)
{
    junit_tally all = { 0 };
    for (size_t i = 0; i < m->cell_count; i++)
        if (cell_listed(&m->cells[i]))
            tally_cell(&all, &m->cells[i]);
    for (size_t i = 0; i < m->signature_count; i++) {
        all.tests++;
        all.skipped += m->signatures[i].expected_reason || m->signatures[i].unspecified;
        all.failures += !(m->signatures[i].expected_reason || m->signatures[i].unspecified);
    }
    all.tests += m->gone_count;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", m->title);
    fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"0\">\n",
            all.tests, all.failures, all.errors, all.skipped);
    for (size_t i = 0; i < m->verdict_count; i++)
        level_suite(m, &m->verdicts[i], out);
    signature_suite(m, out);
    fprintf(out, "</testsuites>\n");
    fflush(out);
    return !ferror(out) || err_set(err, "writing the JUnit report failed");
}
