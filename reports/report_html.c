/*
 * report_html.c: the conformance report as one self-contained HTML file: inline CSS, an
 * inline SVG heat map (operator x input type x feature level), no script, no network.  The
 * markup is also well-formed XML (every element closed, attributes quoted, text escaped) so
 * tests can check it with an XML parser.  Every string from the database goes through
 * report_xml_escape.  Sections, in order: summary, verdict per feature level, heat map,
 * matrix, mismatch signatures, differs from our policy, coverage, provenance.
 */
#include "report_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "report_drawing.h"

static const char html_style[] =
    "*{box-sizing:border-box}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1f2328;"
    "margin:0 auto;max-width:1200px;padding:16px 24px}"
    /* Nothing may widen the page: long words wrap, wide tables scroll inside their box. */
    "td,th,p,li,summary{overflow-wrap:break-word}code{overflow-wrap:anywhere}"
    "table{display:block;overflow-x:auto;max-width:100%}.scroll{overflow-x:auto;max-width:100%}"
    ".heatmaps{display:flex;flex-wrap:wrap;gap:8px 24px}.heatmaps svg{max-width:100%;height:auto}"
    "svg.drawing{display:block;max-width:100%;height:auto;margin:6px 0}"
    ".failure{border:1px solid #d0d7de;border-radius:6px;padding:4px 12px;margin:10px 0}"
    "h1{font-size:24px;margin:8px 0}h2{font-size:19px;border-bottom:1px solid #d0d7de;"
    "padding-bottom:4px;margin-top:32px}h3{font-size:16px;margin:18px 0 6px}"
    "p.lead{color:#57606a;margin:4px 0}nav a{margin-right:14px}"
    "table{border-collapse:collapse;margin:6px 0 12px}"
    "th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "code,pre{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
    "pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;overflow-x:auto;margin:4px 0}"
    ".cards{display:flex;gap:12px;flex-wrap:wrap}"
    ".card{flex:1 1 220px;border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;"
    "border-top-width:6px}"
    ".card .fl{font-size:13px;color:#57606a}.card .v{font-size:18px;font-weight:600}"
    ".card .why{font-size:13px}"
    ".pass{background:#dafbe1}.few{background:#eaeef2}.expected{background:#fff8c5}"
    ".fail{background:#ffebe9}.error{background:#fbefff}.differs{background:#ddf4ff}"
    ".card.pass,.card.CONFORMANT,.card.CONFORMANT_CLAIMS{border-top-color:#2da44e;background:#fff}"
    ".card.NOT_CONFORMANT{border-top-color:#cf222e}.card.KNOWN_BUGS{border-top-color:#d4a72c}"
    ".card.INSUFFICIENT{border-top-color:#8c959f}.card.NOT_TESTED{border-top-color:#d0d7de}"
    ".card.INCOMPLETE{border-top-color:#bf8700}"
    ".badge{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;"
    "font-weight:600;border:1px solid #d0d7de}"
    ".legend span{display:inline-block;margin-right:12px}"
    ".legend i{display:inline-block;width:12px;height:12px;border:1px solid #8c959f;"
    "margin-right:4px;vertical-align:-1px}"
    ".sig{border:1px solid #d0d7de;border-left:5px solid #cf222e;border-radius:4px;"
    "padding:6px 12px;margin:10px 0}.sig.expected{border-left-color:#d4a72c}"
    ".sig.differs{border-left-color:#0969da}.sig h3{margin:4px 0}"
    ".sig.fail,.sig.expected,.sig.differs{background:#fff}"
    ".bar{display:inline-block;height:10px;background:#54aeff;vertical-align:middle}"
    ".zero{color:#cf222e;font-weight:600}details summary{cursor:pointer;font-weight:600;"
    "margin:8px 0}";

/* Worst-first order of statuses, for aggregating cells into one heat-map square. */
static int status_severity(report_cell_status s)
{
    static const int severity[] = { [REPORT_CELL_PASS] = 1, [REPORT_CELL_FEW] = 2,
                                    [REPORT_CELL_EXPECTED] = 3, [REPORT_CELL_ERROR] = 4,
                                    [REPORT_CELL_FAIL] = 5 };
    return severity[s];
}

static const char *status_class(report_cell_status s)
{
    static const char *const names[] = { "pass", "few", "expected", "fail", "error" };
    return names[s];
}

static const char *verdict_class(report_verdict_kind v)
{
    static const char *const names[] = { "CONFORMANT", "NOT_CONFORMANT", "KNOWN_BUGS",
                                         "INSUFFICIENT", "NOT_TESTED", "INCOMPLETE",
                                         "CONFORMANT_CLAIMS" };
    _Static_assert(REPORT_VERDICT_CONFORMANT_CLAIMS == 6, "one class per verdict");
    return names[v];
}

static void esc(FILE *out, const char *s)
{
    report_xml_escape(out, s);
}

static void html_head(const report_model *m, FILE *out)
{
    char subject[600];
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                 "<title>");
    esc(out, m->title);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>", html_style);
    esc(out, m->title);
    fprintf(out, "</h1>\n<p class=\"lead\"><b>");
    esc(out, report_subject(m, subject, sizeof subject));
    fprintf(out, "</b> &#8212; ");
    esc(out, m->selection);
    fprintf(out, ", %" PRIu64 " cases &#8212; database <code>", m->total_cases);
    esc(out, report_omitted(m, m->db_path));
    fprintf(out, "</code></p>\n");
    char claims[600];
    if (report_claims_line(m, claims, sizeof claims)[0]) {
        fprintf(out, "<p class=\"lead\"><b>");
        esc(out, claims);
        fprintf(out, "</b></p>\n");
    }
    if (m->baseline) {
        char counts[160];
        fprintf(out, "<p class=\"lead\">Compared with the baseline: ");
        esc(out, m->baseline);
        fprintf(out, ". <b>");
        esc(out, report_baseline_counts(m, counts, sizeof counts));
        fprintf(out, "</b></p>\n");
        char changes[2048];
        if (report_nan_changes(m, changes, sizeof changes)[0]) {
            fprintf(out, "<p class=\"lead\"><b>NaN behaviour: ");
            esc(out, changes);
            fprintf(out, "</b></p>\n");
        }
    }
    fprintf(out, "<nav><a href=\"#verdict\">Verdict</a><a href=\"#families\">Families</a>"
                 "<a href=\"#heatmap\">Heat map</a>"
                 "<a href=\"#matrix\">Matrix</a><a href=\"#signatures\">Signatures</a>"
                 "<a href=\"#differs\">Differs from policy</a><a href=\"#coverage\">Coverage</a>"
                 "<a href=\"#provenance\">Provenance</a></nav>\n</header>\n");
}

static void html_legend(FILE *out)
{
    fprintf(out, "<p class=\"legend\"><span><i style=\"background:#4ac26b\"></i>pass</span>"
                 "<span><i style=\"background:#d0d7de\"></i>no failure, too few cases</span>"
                 "<span><i style=\"background:#eac54f\"></i>expected failure (known bug)</span>"
                 "<span><i style=\"background:#ff8182\"></i>FAIL</span>"
                 "<span><i style=\"background:#c297ff\"></i>harness error</span>"
                 "<span><i style=\"background:#f6f8fa\"></i>not claimed by the backend</span>"
                 "<span><i style=\"background:#ffffff\"></i>&#8212; not applicable: no level "
                 "allows it here</span></p>\n");
}

static void html_verdicts(const report_model *m, FILE *out)
{
    fprintf(out, "<section id=\"verdict\">\n<h2>Verdict per feature level</h2>\n"
                 "<p>A <i>cell</i> is one operator with one combination of tensor data types at "
                 "one DirectML feature level. A level is <b>CONFORMANT</b> when every cell it "
                 "requires passed with at least %u judged cases (<code>--min-cases</code>). "
                 "Mismatches where DirectML leaves the result open (NaN, denormals, windows "
                 "entirely in padding) count as <i>differs from our policy</i>, not as "
                 "failures, unless the run was <code>--strict</code>.</p>\n<div class=\"cards\">\n",
            m->min_cases);
    for (size_t i = 0; i < m->verdict_count; i++) {
        const report_verdict *v = &m->verdicts[i];
        char why[256];
        fprintf(out, "<div class=\"card %s\"><div class=\"fl\">Feature level %s</div>"
                     "<div class=\"v\">%s</div><div class=\"why\">",
                verdict_class(v->kind), fl_name(v->fl), report_verdict_name(v->kind));
        esc(out, report_verdict_text(m, v, why, sizeof why));
        fprintf(out, "</div><div class=\"why\">%zu required cells: %zu pass, %zu too few, %zu fail,"
                     " %zu expected<br/>cases: %" PRIu64 " passed, %" PRIu64 " failed, %" PRIu64
                     " differ from policy, %" PRIu64 " skipped</div></div>\n",
                v->required_cells, v->pass_cells, v->few_cells, v->fail_cells + v->error_cells,
                v->expected_cells, v->n.passed, v->n.failed, v->n.differs, v->n.skipped);
    }
    fprintf(out, "</div>\n</section>\n");
}

/* The failing cells of each level, listed under the heat map. */
static void html_failing_cells(const report_model *m, FILE *out)
{
    fprintf(out, "<section id=\"failing\">\n");
    for (size_t i = 0; i < m->verdict_count; i++) {
        const report_verdict *v = &m->verdicts[i];
        if (v->fail_cells + v->error_cells + v->expected_cells == 0)
            continue;
        fprintf(out, "<h3>Feature level %s: cells that failed</h3>\n<ul>\n", fl_name(v->fl));
        for (size_t j = 0; j < m->cell_count; j++) {
            const report_cell *c = &m->cells[j];
            if (c->key.fl != v->fl || status_severity(c->status) < 3)
                continue;
            char types[64], bound[160];
            fprintf(out, "<li><span class=\"badge %s\">%s</span> %s ", status_class(c->status),
                    report_cell_status_name(c->status), op_table[c->key.op].name);
            esc(out, report_cell_types(&c->key, types, sizeof types));
            fprintf(out, ": ");
            esc(out, report_bound_text(c, bound, sizeof bound));
            fprintf(out, "</li>\n");
        }
        fprintf(out, "</ul>\n");
    }
    fprintf(out, "</section>\n");
}

/* Aggregate of one heat-map square: every required cell of (fl, op, input type), and any cell
 * the level does not require that failed (the backend ran a descriptor it had to refuse).
 * A square without either is not applicable, blank: never grey "too few cases". */
typedef struct square {
    bool any_allowed;
    bool any_claimed;
    int severity;
    report_cell_status status;
    uint64_t judged, failed;
} square;

static square square_of(const report_model *m, DML_FEATURE_LEVEL fl, op_id op,
                        DML_TENSOR_DATA_TYPE input)
{
    square q = { false, false, 0, REPORT_CELL_PASS, 0, 0 };
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell *c = &m->cells[i];
        if (c->key.fl != fl || c->key.op != op || c->key.input != input)
            continue;
        if (!c->required && c->status != REPORT_CELL_FAIL)
            continue;
        q.any_allowed = true;
        q.any_claimed |= !report_cell_unclaimed(c);
        q.judged += c->n.passed + c->n.failed;
        q.failed += c->n.failed;
        if (status_severity(c->status) > q.severity) {
            q.severity = status_severity(c->status);
            q.status = c->status;
        }
    }
    return q;
}

static const char *square_fill(const square *q)
{
    if (!q->any_allowed)
        return "#ffffff";
    if (!q->any_claimed)
        return "#f6f8fa";
    static const char *const fills[] = { "#4ac26b", "#d0d7de", "#eac54f", "#ff8182", "#c297ff" };
    return fills[q->status];
}

enum { HM_LABEL_W = 48, HM_CELL_W = 66, HM_CELL_H = 26, HM_TOP = 46 };

/* Input types with a cell some level requires (or a failing one) for some operator: the heat
 * map's rows, the same in every block so they line up. */
static size_t heatmap_rows(const report_model *m, DML_TENSOR_DATA_TYPE *rows)
{
    size_t n = 0;
    for (size_t t = 0; t < DTYPE_COUNT; t++)
        for (size_t i = 0; i < m->cell_count; i++) {
            const report_cell *c = &m->cells[i];
            if (c->key.input == dtype_table[t].type
                && (c->required || c->status == REPORT_CELL_FAIL)) {
                rows[n++] = dtype_table[t].type;
                break;
            }
        }
    return n;
}

static void heatmap_block(const report_model *m, op_id op, int x0, const DML_TENSOR_DATA_TYPE *rows,
                          size_t row_count, FILE *out)
{
    fprintf(out, "<text x=\"%d\" y=\"16\" font-weight=\"600\">%s</text>\n",
            x0 + HM_LABEL_W, op_table[op].name);
    for (size_t f = 0; f < m->verdict_count; f++)
        fprintf(out, "<text x=\"%d\" y=\"36\" text-anchor=\"middle\" fill=\"#57606a\">FL %s</text>\n",
                x0 + HM_LABEL_W + (int)f * HM_CELL_W + HM_CELL_W / 2, fl_name(m->verdicts[f].fl));
    for (size_t t = 0; t < row_count; t++) {
        int y = HM_TOP + (int)t * HM_CELL_H;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                x0 + HM_LABEL_W - 6, y + 17, dtype_stem(rows[t]));
        for (size_t f = 0; f < m->verdict_count; f++) {
            square q = square_of(m, m->verdicts[f].fl, op, rows[t]);
            int x = x0 + HM_LABEL_W + (int)f * HM_CELL_W;
            fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                         "stroke=\"#ffffff\" stroke-width=\"2\"><title>%s %s at FL %s: %s, %"
                         PRIu64 " judged, %" PRIu64 " failed</title></rect>\n",
                    x, y, HM_CELL_W, HM_CELL_H, square_fill(&q), op_table[op].name,
                    dtype_stem(rows[t]), fl_name(m->verdicts[f].fl),
                    !q.any_allowed ? "not applicable" : !q.any_claimed ? "not claimed"
                    : report_cell_status_name(q.status), q.judged, q.failed);
            if (q.any_allowed && !q.any_claimed)
                fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                             "fill=\"#8c959f\">n/c</text>\n", x + HM_CELL_W / 2, y + 17);
            else if (q.any_allowed)
                fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%" PRIu64
                             "%s</text>\n",
                        x + HM_CELL_W / 2, y + 17, q.failed ? q.failed : q.judged,
                        q.failed ? " fail" : "");
            else
                fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                             "fill=\"#8c959f\">&#8212;</text>\n", x + HM_CELL_W / 2, y + 17);
        }
    }
}

/* The card of family i that shrinking minimized: the drawing of its first difference, the
 * answers in words, the shrunk case and the commands that export and run it. */
static void html_failure_card(const report_model *m, size_t i, failure_drawing *d, FILE *out)
{
    const family *f = &m->families.items[i];
    const report_signature *s = report_family_signature(m, f);
    char id[48];
    dmlc_error err;
    fprintf(out, "<div class=\"failure\" id=\"family-%zu\">\n<h3>Family %zu: ", i + 1, i + 1);
    esc(out, f->kind);
    fprintf(out, " (");
    esc(out, f->op);
    fprintf(out, ")</h3>\n");
    if (drawing_of_shrunk(f->shrunk_case, f->shrunk_mismatch, d, &err)) {
        snprintf(id, sizeof id, "family-%zu-drawing", i + 1);
        report_drawing_svg(d, id, out);
        fprintf(out, "<ul><li>");
        esc(out, d->what);
        fprintf(out, "</li><li>");
        esc(out, d->expected);
        fprintf(out, "</li><li>");
        esc(out, d->returned);
        fprintf(out, "</li>");
        if (d->note[0]) {
            fprintf(out, "<li>");
            esc(out, d->note);
            fprintf(out, "</li>");
        }
        fprintf(out, "</ul>\n");
    } else {
        fprintf(out, "<p>No drawing: ");
        esc(out, err.msg);
        fprintf(out, ".</p>\n");
    }
    fprintf(out, "<pre>");
    esc(out, f->shrunk_case);
    fprintf(out, "</pre>\n<p>Export it, run it on the backend, replay the smallest generated "
                 "case:</p>\n<pre>");
    report_emit(out, esc, report_family_export_command(m, i));
    fprintf(out, "\n");
    report_emit(out, esc, report_family_exec_command(s, i));
    fprintf(out, "\n");
    if (s)
        report_emit(out, esc, report_replay_command(s));
    else
        esc(out, "-");
    fprintf(out, "</pre>\n</div>\n");
}

/* A card for every family with a shrunk case. */
static void html_failure_cards(const report_model *m, FILE *out)
{
    failure_drawing *d = malloc(sizeof *d);
    size_t shrunk = 0;
    for (size_t i = 0; i < m->families.count; i++)
        shrunk += m->families.items[i].shrunk_case != NULL;
    if (!shrunk || !d) {
        if (shrunk)
            fprintf(out, "<p>Failure cards left out: out of memory.</p>\n");
        free(d);
        return;
    }
    fprintf(out, "<h3>Failure cards: each family's shrunk case</h3>\n");
    for (size_t i = 0; i < m->families.count; i++)
        if (m->families.items[i].shrunk_case)
            html_failure_card(m, i, d, out);
    free(d);
}

/* One row per family (families.h): status, operators, kind, cases, signatures, what its
 * failures need and the command that replays its smallest case. */
/* Table header cells and plain-text cells, escaped. */
static void html_head_cells(FILE *out, const char *const *head, unsigned n)
{
    for (unsigned c = 0; c < n; c++)
        fprintf(out, "<th>%s</th>", head[c]);
}

static void html_cells(FILE *out, char cells[][REPORT_CELL_SIZE], unsigned n)
{
    for (unsigned c = 0; c < n; c++) {
        fprintf(out, "<td>");
        esc(out, cells[c]);
        fprintf(out, "</td>");
    }
}

static void html_families(const report_model *m, FILE *out)
{
    const family_list *fl = &m->families;
    fprintf(out, "<section id=\"families\">\n<h2>Families: one bug, one row</h2>\n<p>%s</p>\n",
            report_family_intro);
    if (!fl->count) {
        fprintf(out, "<p>None.</p>\n</section>\n");
        return;
    }
    static const char *const smallest[] = { "Smallest case" };
    fprintf(out, "<div class=\"scroll\"><table>\n<tr>");
    html_head_cells(out, report_family_head, REPORT_FAMILY_COLUMNS);
    html_head_cells(out, smallest, 1);
    fprintf(out, "</tr>\n");
    for (size_t i = 0; i < fl->count; i++) {
        const family *f = &fl->items[i];
        const report_signature *s = report_family_signature(m, f);
        char cells[REPORT_FAMILY_COLUMNS][REPORT_CELL_SIZE];
        report_family_cells(m, i, cells);
        fprintf(out, "<tr>");
        html_cells(out, cells, REPORT_FAMILY_COLUMNS - 1);
        fprintf(out, "<td>");
        esc(out, cells[REPORT_FAMILY_COLUMNS - 1]); /* needs, with the breakdown under it */
        fprintf(out, "<br/><small>");
        esc(out, f->breakdown);
        fprintf(out, "</small></td><td><code>");
        if (s)
            report_emit(out, esc, report_replay_command(s));
        else
            esc(out, "-");
        fprintf(out, "</code>");
        if (s && s->explanation && s->explanation[0]) {
            fprintf(out, "<details><summary>first difference</summary><pre>");
            esc(out, s->explanation);
            fprintf(out, "</pre></details>");
        }
        if (f->shrunk_case) {
            fprintf(out, "<details><summary>shrunk case</summary><pre>");
            esc(out, f->shrunk_case);
            fprintf(out, "</pre><code>");
            report_emit(out, esc, report_family_export_command(m, i));
            fprintf(out, "</code></details>");
        }
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table></div>\n");
    html_failure_cards(m, out);
    fprintf(out, "</section>\n");
}

static void html_heatmap(const report_model *m, FILE *out)
{
    int block_w = HM_LABEL_W + (int)m->verdict_count * HM_CELL_W;
    DML_TENSOR_DATA_TYPE rows[32];
    size_t row_count = heatmap_rows(m, rows);
    int height = HM_TOP + (int)row_count * HM_CELL_H + 4;
    fprintf(out, "<section id=\"heatmap\">\n<h2>Heat map: operator &#215; input type &#215; "
                 "feature level</h2>\n<p>Each square gathers the cells of one operator and input "
                 "type at one level (all output and indices types). The number is the count of "
                 "judged cases, or of failures when there are any. Hover for details.</p>\n");
    html_legend(out);
    /* One picture per operator, side by side as far as the page is wide: all four need
     * about 1,650 px, one fits a phone; each keeps its full size, so its text stays legible. */
    fprintf(out, "<div class=\"heatmaps\">\n");
    for (int op = 0; op < OP_COUNT; op++) {
        fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                     "viewBox=\"0 0 %d %d\" font-family=\"system-ui,sans-serif\" font-size=\"12\" "
                     "role=\"img\" aria-label=\"heat map of %s\">\n",
                block_w + 4, height, block_w + 4, height, op_table[op].name);
        heatmap_block(m, (op_id)op, 0, rows, row_count, out);
        fprintf(out, "</svg>\n");
    }
    fprintf(out, "</div>\n</section>\n");
}

static void html_matrix(const report_model *m, FILE *out)
{
    bool baseline = m->baseline != NULL;
    fprintf(out, "<section id=\"matrix\">\n<h2>Matrix</h2>\n<p>One row per cell. <i>Differs</i>: "
                 "mismatches in an unspecified class (not failures). The last column says what "
                 "the passes prove: with n passes and no failure, the failure rate is below "
                 "about 3/n at 95%% confidence.</p>\n");
    for (size_t f = 0; f < m->verdict_count; f++) {
        const report_verdict *v = &m->verdicts[f];
        fprintf(out, "<details%s><summary>Feature level %s &#8212; %s (%zu required cells)"
                     "</summary>\n<table>\n<tr><th>Operator</th><th>Types</th><th>Run</th>"
                     "<th>Passed</th><th>Failed</th><th>Differs</th><th>Skipped</th>"
                     "<th>Status</th><th>What the passes mean</th>%s</tr>\n",
                v->kind == REPORT_VERDICT_CONFORMANT || v->kind == REPORT_VERDICT_NOT_TESTED
                    ? "" : " open=\"open\"",
                fl_name(v->fl), report_verdict_name(v->kind), v->required_cells,
                baseline ? "<th>vs baseline</th>" : "");
        for (size_t i = 0; i < m->cell_count; i++) {
            const report_cell *c = &m->cells[i];
            if (c->key.fl != v->fl || (!c->required && c->n.run == 0))
                continue;
            char types[64], bound[160];
            fprintf(out, "<tr><td>%s</td><td>", op_table[c->key.op].name);
            esc(out, report_cell_types(&c->key, types, sizeof types));
            fprintf(out, "%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                         "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                         "</td><td class=\"n\">%" PRIu64 "</td><td class=\"%s\">%s</td><td>",
                    c->required ? "" : " (not required)", c->n.run, c->n.passed, c->n.failed,
                    c->n.differs, c->n.skipped, status_class(c->status),
                    report_cell_status_name(c->status));
            esc(out, report_bound_text(c, bound, sizeof bound));
            fprintf(out, "</td>");
            if (baseline)
                fprintf(out, "<td>%s</td>", report_mark_name(c->mark));
            fprintf(out, "</tr>\n");
        }
        fprintf(out, "</table>\n</details>\n");
    }
    fprintf(out, "</section>\n");
}

static void html_signature(const report_model *m, const report_signature *s, size_t number,
                           FILE *out)
{
    char buf[512];
    const char *cls = s->expected_reason ? "expected" : s->unspecified ? "differs" : "fail";
    report_cell_key k = { s->fl, s->op, s->input, s->output, s->indices };
    fprintf(out, "<div class=\"sig %s\" id=\"sig%zu\">\n<h3>%zu. <span class=\"badge %s\">%s</span> "
                 "%s ", cls, number, number, cls,
            s->expected_reason ? "expected" : s->unspecified ? "differs" : "FAIL",
            op_table[s->op].name);
    esc(out, report_cell_types(&k, buf, sizeof buf));
    fprintf(out, " at FL %s: ", fl_name(s->fl));
    esc(out, s->kind);
    if (s->mark != REPORT_MARK_NONE)
        fprintf(out, " <span class=\"badge\">%s</span>", report_mark_name(s->mark));
    fprintf(out, "</h3>\n<p>%" PRIu64 " cases; layout <code>", s->count);
    esc(out, s->layout);
    fprintf(out, "</code>, distribution <code>");
    esc(out, s->distribution);
    fprintf(out, "</code>");
    if (s->classes[0]) {
        fprintf(out, ", classes <code>");
        esc(out, s->classes);
        fprintf(out, "</code>");
    }
    fprintf(out, "; first seen ");
    esc(out, report_omitted(m, s->first_seen));
    fprintf(out, ", last seen ");
    esc(out, report_omitted(m, s->last_seen));
    if (s->expected_reason) {
        fprintf(out, "<br/>Known bug: ");
        esc(out, s->expected_reason);
    }
    fprintf(out, "<br/>Representative case <code>%s</code>", report_case_id(s, buf, sizeof buf));
    if (s->rep_elements)
        fprintf(out, " (%" PRIu64 " input elements)", s->rep_elements);
    fprintf(out, "<br/>First difference: <code>");
    esc(out, report_first_difference(s, buf, sizeof buf));
    fprintf(out, "</code>");
    if (s->tensor[0] && s->detail[0]) {
        fprintf(out, "<br/>Detail: ");
        esc(out, s->detail);
    }
    fprintf(out, "</p>\n<pre>");
    report_emit(out, esc, report_replay_command(s));
    fprintf(out, "\n");
    report_emit(out, esc, report_export_command(s));
    fprintf(out, "</pre>\n</div>\n");
}

static void html_signature_list(const report_model *m, bool unspecified, FILE *out)
{
    size_t shown = 0;
    for (size_t i = 0; i < m->signature_count; i++)
        if (m->signatures[i].unspecified == unspecified) {
            html_signature(m, &m->signatures[i], i + 1, out);
            shown++;
        }
    if (!shown)
        fprintf(out, "<p><b>None.</b></p>\n");
}

static void html_signatures(const report_model *m, FILE *out)
{
    fprintf(out, "<section id=\"signatures\">\n<h2>Mismatch signatures</h2>\n<p>A signature "
                 "groups the mismatches of one bug: same level, operator, types, layout, value "
                 "distribution and kind. Each has a representative case (the smallest found), "
                 "its first differing element (floats as hex-float and raw bits) and the "
                 "commands that replay it and export it as a case file.</p>\n");
    html_signature_list(m, false, out);
    if (m->gone_count) {
        fprintf(out, "<h3>Fixed since the baseline</h3>\n<ul>\n");
        for (size_t i = 0; i < m->gone_count; i++) {
            const report_signature *s = &m->gone[i];
            char types[64];
            report_cell_key k = { s->fl, s->op, s->input, s->output, s->indices };
            fprintf(out, "<li><span class=\"badge pass\">FIXED</span> %s ", op_table[s->op].name);
            esc(out, report_cell_types(&k, types, sizeof types));
            fprintf(out, " at FL %s: ", fl_name(s->fl));
            esc(out, s->layout);
            fprintf(out, ", ");
            esc(out, s->distribution);
            fprintf(out, ", ");
            esc(out, s->kind);
            fprintf(out, " (%" PRIu64 " cases in the baseline)</li>\n", s->count);
        }
        fprintf(out, "</ul>\n");
    }
    fprintf(out, "</section>\n<section id=\"differs\">\n<h2>Differs from our policy</h2>\n"
                 "<p>Mismatches only in classes DirectML leaves unspecified (<code>nan</code>, "
                 "<code>denormal</code>, <code>padding_window</code>; see SEMANTICS.md). They "
                 "are not failures; run with <code>--strict</code> to judge them.</p>\n");
    html_signature_list(m, true, out);
    fprintf(out, "</section>\n");
}

static void html_coverage(const report_model *m, FILE *out)
{
    fprintf(out, "<section id=\"coverage\">\n<h2>Coverage</h2>\n<p>How many cases hit each value "
                 "of each generator dimension. A <span class=\"zero\">0</span> was not "
                 "exercised.</p>\n<table>\n<tr><th>Dimension</th><th>Value</th><th>Cases</th>"
                 "<th>Failed</th><th></th></tr>\n");
    for (size_t i = 0; i < m->coverage_count; i++) {
        const report_coverage *c = &m->coverage[i];
        bool first = i == 0 || strcmp(m->coverage[i - 1].dimension, c->dimension);
        uint64_t most = 1;
        for (size_t j = 0; j < m->coverage_count; j++)
            if (!strcmp(m->coverage[j].dimension, c->dimension) && m->coverage[j].cases > most)
                most = m->coverage[j].cases;
        fprintf(out, "<tr><td>");
        if (first)
            esc(out, c->dimension);
        fprintf(out, "</td><td>");
        esc(out, c->value);
        fprintf(out, "</td><td class=\"n%s\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
                     "</td><td><span class=\"bar\" style=\"width:%dpx\"></span></td></tr>\n",
                c->cases ? "" : " zero", c->cases, c->failed,
                (int)(200.0 * (double)c->cases / (double)most));
    }
    fprintf(out, "</table>\n</section>\n");
}

static void html_provenance(const report_model *m, FILE *out)
{
    static const report_provenance_format html = {
        .run_head = "<h3>Run %" PRId64 "</h3>\n<table>\n", .run_tail = "</table>\n",
        .row_head = "<tr><th>%s</th><td>", .row_tail = "</td></tr>\n", .escape = esc,
    };
    fprintf(out, "<section id=\"provenance\">\n<h2>Provenance</h2>\n");
    report_print_provenance(m, &html, out);
    fprintf(out, "</section>\n");
}

/* SEMANTICS "NaN-policy fingerprint": one row per backend, operator and float input type;
 * only when some case held a NaN. */
static void html_nan_prints(const report_model *m, FILE *out)
{
    if (!report_has_nan_cases(m))
        return;
    fprintf(out, "<section id=\"nan-policy\">\n<h2>NaN-policy fingerprint</h2>\n<p>The NaN "
                 "policies that explain every case of a backend whose rows or windows hold a NaN "
                 "(docs/SEMANTICS.md).</p>\n<table>\n");
    for (size_t i = 0; i < m->nan_print_count; i++) {
        char cells[REPORT_NAN_COLUMNS][REPORT_CELL_SIZE];
        unsigned n = report_nan_cells(m, i, cells);
        if (i == 0) {
            fprintf(out, "<tr>");
            html_head_cells(out, report_nan_head, n);
            fprintf(out, "</tr>\n");
        }
        fprintf(out, "<tr>");
        html_cells(out, cells, n - 1);
        fprintf(out, "<td>");
        esc(out, cells[n - 1]);
        fprintf(out, "%s</td></tr>\n", m->nan_prints[i].changed ? " <b>CHANGED</b>" : "");
    }
    fprintf(out, "</table>\n</section>\n");
}

bool report_render_html(const report_model *m, FILE *out, dmlc_error *err)
{
    html_head(m, out);
    html_verdicts(m, out);
    html_families(m, out);
    html_heatmap(m, out);
    html_failing_cells(m, out);
    html_matrix(m, out);
    html_nan_prints(m, out);
    html_signatures(m, out);
    html_coverage(m, out);
    html_provenance(m, out);
    fprintf(out, "<footer><p class=\"lead\">Written by <code>dmlcheck report</code>; the "
                 "database was read, nothing was re-run.</p></footer>\n</body>\n</html>\n");
    fflush(out);
    return !ferror(out) || err_set(err, "writing the HTML report failed");
}
