/*
 * report_md.c: the conformance report as Markdown (GitHub-flavoured tables), for a pull
 * request or a wiki.  Same sections, same words as the HTML report: summary, verdict per
 * feature level, matrix, signatures, differs-from-policy, coverage, provenance.  Every
 * string that came from the database goes through report_md_escape (or a fenced block that
 * cannot be closed by its content); our own fixed text is written as is.
 */
#include "report_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "report_drawing.h"

/* Rows of long lists (cells lacking cases) shown before "and N more". */
#define MD_LIST_LIMIT 12

static void md_text(FILE *out, const char *s)
{
    report_md_escape(out, s);
}

/* One line of a fenced code block, verbatim: only a line that starts with ``` ends the fence,
 * and a command line starts with "dmlcheck" and holds no newline (replay_append_arg writes
 * control characters as $'\xHH'), so its backticks are the command's own and stay. */
static void md_code_line(FILE *out, const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p != '\n')
            fputc(*p, out);
    fputc('\n', out);
}

/* The news in one line: what it claims passed, or each tested level's verdict. */
static void md_headline(const report_model *m, FILE *out)
{
    char line[600];
    fprintf(out, "**Verdict:** ");
    if (report_claims_line(m, line, sizeof line)[0]) {
        md_text(out, line);
        fprintf(out, "  \n");
        return;
    }
    const char *sep = "";
    for (size_t i = 0; i < m->verdict_count; i++)
        if (m->verdicts[i].kind != REPORT_VERDICT_NOT_TESTED) {
            fprintf(out, "%s%s %s", sep, fl_name(m->verdicts[i].fl),
                    report_verdict_name(m->verdicts[i].kind));
            sep = ", ";
        }
    fprintf(out, "%s  \n", sep[0] ? "" : "nothing tested");
}

static void md_summary(const report_model *m, FILE *out)
{
    char subject[600];
    fprintf(out, "# ");
    md_text(out, m->title);
    fprintf(out, "\n\n");
    md_headline(m, out);
    fprintf(out, "**Subject:** ");
    md_text(out, report_subject(m, subject, sizeof subject));
    fprintf(out, "  \n**Runs:** ");
    md_text(out, m->selection);
    fprintf(out, ", %" PRIu64 " cases  \n**Database:** ", m->total_cases);
    md_text(out, report_omitted(m, m->db_path));
    if (m->baseline) {
        char counts[160];
        fprintf(out, "  \n**Baseline:** ");
        md_text(out, m->baseline);
        fprintf(out, "  \n**Against it:** ");
        md_text(out, report_baseline_counts(m, counts, sizeof counts));
        char changes[2048];
        if (report_nan_changes(m, changes, sizeof changes)[0]) {
            fprintf(out, "  \n**NaN behaviour:** ");
            md_text(out, changes);
        }
    }
    fprintf(out, "\n\n");
}

/* What a cell and a level's verdict mean. */
static void md_intro(const report_model *m, FILE *out)
{
    fprintf(out, "A *cell* is one operator with one combination of tensor data types at one "
                 "feature level. A level is **CONFORMANT** when every cell it requires passed "
                 "with at least %u judged cases. Mismatches where DirectML leaves the result "
                 "open (NaN, denormals, windows entirely in padding) are reported as *differs "
                 "from our policy*, not as failures, unless the run was `--strict`.\n\n",
            m->min_cases);
}

/* SEMANTICS "NaN-policy fingerprint": one row per backend, operator and float input type;
 * only when some case held a NaN, after `before`.  At most `limit` rows (0: all). */
/* One table row of plain-text cells, escaped; `mark` (Markdown, may be "") after the last. */
static void md_row(FILE *out, char cells[][REPORT_CELL_SIZE], unsigned n, const char *mark)
{
    for (unsigned c = 0; c < n; c++) {
        fprintf(out, "| ");
        md_text(out, cells[c]);
        fputc(' ', out);
    }
    fprintf(out, "%s|\n", mark);
}

/* The header of a table: its columns' names, the numeric ones (1 bit each) right-aligned. */
static void md_head(FILE *out, const char *const *head, unsigned n, unsigned numeric)
{
    for (unsigned c = 0; c < n; c++)
        fprintf(out, "| %s ", head[c]);
    fprintf(out, "|\n");
    for (unsigned c = 0; c < n; c++)
        fprintf(out, "|%s", (numeric >> c) & 1u ? "--:" : "---");
    fprintf(out, "|\n");
}

static void md_nan_prints(const report_model *m, const char *before, size_t limit, FILE *out)
{
    if (!report_has_nan_cases(m))
        return;
    fprintf(out, "%s## NaN-policy fingerprint\n\nThe NaN policies that explain every case of a "
                 "backend whose rows or windows hold a NaN (docs/SEMANTICS.md).\n\n", before);
    size_t shown = 0;
    for (size_t i = 0; i < m->nan_print_count && (!limit || shown < limit); i++, shown++) {
        char cells[REPORT_NAN_COLUMNS][REPORT_CELL_SIZE];
        unsigned n = report_nan_cells(m, i, cells);
        if (i == 0)
            md_head(out, report_nan_head, n, 0);
        md_row(out, cells, n, m->nan_prints[i].changed ? "**CHANGED** " : "");
    }
    if (shown < m->nan_print_count)
        fprintf(out, "\n... and %zu more rows in the full report.\n", m->nan_print_count - shown);
    fprintf(out, "\n");
}

static void md_verdict_table(const report_model *m, FILE *out)
{
    fprintf(out, "## Verdict per feature level\n\n"
                 "| Level | Verdict | Required cells: pass / too few / fail / expected | "
                 "Cases: passed / failed / differs / skipped | Why |\n"
                 "|---|---|---|---|---|\n");
    for (size_t i = 0; i < m->verdict_count; i++) {
        const report_verdict *v = &m->verdicts[i];
        char why[256];
        fprintf(out, "| %s | **%s** | %zu / %zu / %zu / %zu | %" PRIu64 " / %" PRIu64 " / %" PRIu64
                     " / %" PRIu64 " | %s |\n",
                fl_name(v->fl), report_verdict_name(v->kind), v->pass_cells, v->few_cells,
                v->fail_cells + v->error_cells, v->expected_cells, v->n.passed, v->n.failed,
                v->n.differs, v->n.skipped, report_verdict_text(m, v, why, sizeof why));
    }
    fputc('\n', out);
}

/* One level's notes: its failing cells, then (up to MD_LIST_LIMIT) the claimed cells that
 * lack cases, then one line for the cells it does not claim. */
static void md_level_notes(const report_model *m, const report_verdict *v, FILE *out)
{
    fprintf(out, "**%s, %s:**\n\n", fl_name(v->fl), report_verdict_name(v->kind));
    size_t few_shown = 0, few_total = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t j = 0; j < m->cell_count; j++) {
            const report_cell *c = &m->cells[j];
            bool few = c->status == REPORT_CELL_FEW;
            if (c->key.fl != v->fl || c->status == REPORT_CELL_PASS || few != (pass == 1)
                || (few && !c->required) || report_cell_unclaimed(c))
                continue;
            if (few && few_total++ >= MD_LIST_LIMIT)
                continue;
            few_shown += few;
            char types[64], bound[160];
            fprintf(out, "- %s %s: %s, ", op_table[c->key.op].name,
                    report_cell_types(&c->key, types, sizeof types),
                    report_cell_status_name(c->status));
            md_text(out, report_bound_text(c, bound, sizeof bound)); /* a skip reason */
            fputc('\n', out);
        }
    if (few_total > few_shown)
        fprintf(out, "- and %zu more cells with fewer than %u judged cases (see the matrix)\n",
                few_total - few_shown, m->min_cases);
    if (v->unclaimed_cells) {
        char what[400];
        fprintf(out, "- %zu required cell%s not claimed by the backend, which claims ",
                v->unclaimed_cells, v->unclaimed_cells == 1 ? " is" : "s are");
        md_text(out, claims_describe(&m->claims, what, sizeof what));
        fputc('\n', out);
    }
    fputc('\n', out);
}

/* Per-level notes for every level not plainly CONFORMANT; folded in <details> (the summary)
 * when `folded`. */
static void md_cell_notes(const report_model *m, bool folded, FILE *out)
{
    size_t levels = 0;
    for (size_t i = 0; i < m->verdict_count; i++)
        levels += m->verdicts[i].kind != REPORT_VERDICT_CONFORMANT
                  && m->verdicts[i].kind != REPORT_VERDICT_NOT_TESTED;
    if (!levels)
        return;
    if (folded)
        fprintf(out, "<details><summary>Per-cell notes of %zu level%s</summary>\n\n", levels,
                levels == 1 ? "" : "s");
    for (size_t i = 0; i < m->verdict_count; i++)
        if (m->verdicts[i].kind != REPORT_VERDICT_CONFORMANT
            && m->verdicts[i].kind != REPORT_VERDICT_NOT_TESTED)
            md_level_notes(m, &m->verdicts[i], out);
    if (folded)
        fprintf(out, "</details>\n\n");
}

static void md_verdicts(const report_model *m, FILE *out)
{
    md_verdict_table(m, out);
    md_cell_notes(m, false, out);
}

/* The check's explanation of a representative, as `run` printed it (values at the expected and
 * the returned index and what they show), as an indented block. */
static void md_explanation(const report_signature *s, FILE *out)
{
    if (!s->explanation || !s->explanation[0])
        return;
    fprintf(out, "\n\n```text\n");
    const char *line = s->explanation;
    while (*line) {
        size_t n = strcspn(line, "\n");
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf - 1 ? n : sizeof buf - 1), line);
        md_code_line(out, buf);
        line += n + (line[n] == '\n');
    }
    fprintf(out, "```");
}

/* The shrunk cases small enough to read inline (a few elements, as shrinking leaves most). */
#define SHRUNK_INLINE_MAX 1500
#define SUMMARY_SHRUNK_INLINE 5

/* Family i's drawing as a fenced text block (GitHub shows no inline SVG), with the answers
 * in words; nothing when there is none to draw. */
static void md_drawing(const family *f, failure_drawing *d, FILE *out)
{
    dmlc_error err;
    if (!d || !drawing_of_shrunk(f->shrunk_case, f->shrunk_mismatch, d, &err))
        return;
    fprintf(out, "```text\n%s\n", d->what);
    report_drawing_text(d, out);
    fprintf(out, "%s\n%s\n%s%s```\n\n", d->expected, d->returned, d->note, d->note[0] ? "\n" : "");
}

static void md_shrunk_cases(const report_model *m, size_t shown, FILE *out)
{
    failure_drawing *d = malloc(sizeof *d);
    for (size_t i = 0; i < shown; i++) {
        const family *f = &m->families.items[i];
        if (!f->shrunk_case)
            continue;
        fprintf(out, "Family %zu, shrunk:\n\n", i + 1);
        md_drawing(f, d, out);
        if (strlen(f->shrunk_case) <= SHRUNK_INLINE_MAX) {
            fprintf(out, "```json\n");
            md_code_line(out, f->shrunk_case);
            fprintf(out, "```\n\n");
        }
        fprintf(out, "Exported as `family-%zu.json`, it runs on the backend with\n\n```sh\n", i + 1);
        report_emit(out, md_code_line, report_family_exec_command(report_family_signature(m, f), i));
        fprintf(out, "```\n\n");
    }
    free(d);
}

/* One row per family (families.h) and the replay command of each one's smallest case;
 * `limit` rows at most (the summary's budget), 0 for all. */
static void md_families(const report_model *m, size_t limit, FILE *out)
{
    const family_list *fl = &m->families;
    fprintf(out, "## Families: one bug, one row\n\n%s\n\n", report_family_intro);
    if (!fl->count) {
        fprintf(out, "None.\n\n");
        return;
    }
    size_t shown = limit && fl->count > limit ? limit : fl->count;
    md_head(out, report_family_head, REPORT_FAMILY_COLUMNS, 1u << 0 | 1u << 4 | 1u << 5);
    for (size_t i = 0; i < shown; i++) {
        char cells[REPORT_FAMILY_COLUMNS][REPORT_CELL_SIZE];
        report_family_cells(m, i, cells);
        md_row(out, cells, REPORT_FAMILY_COLUMNS, "");
    }
    if (shown < fl->count)
        fprintf(out, "\n... and %zu more families: the full report lists them.\n", fl->count - shown);
    fprintf(out, "\nWhere each family's cases fall:\n\n");
    for (size_t i = 0; i < shown; i++) {
        fprintf(out, "%zu. ", i + 1);
        md_text(out, fl->items[i].breakdown);
        fputc('\n', out);
    }
    fprintf(out, "\nThe smallest case of each family, and the smallest shrinking found (a case "
                 "file: `dmlcheck exec --backend ... case.json` runs it):\n\n```sh\n");
    for (size_t i = 0; i < shown; i++) {
        const report_signature *s = report_family_signature(m, &fl->items[i]);
        fprintf(out, "# %zu\n", i + 1);
        if (s)
            report_emit(out, md_code_line, report_replay_command(s));
        if (fl->items[i].shrunk_case)
            report_emit(out, md_code_line, report_family_export_command(m, i));
    }
    fprintf(out, "```\n\n");
    size_t explained = limit && shown > SUMMARY_SHRUNK_INLINE ? SUMMARY_SHRUNK_INLINE : shown;
    for (size_t i = 0; i < explained; i++) {
        const report_signature *s = report_family_signature(m, &fl->items[i]);
        if (s && s->explanation && s->explanation[0]) {
            fprintf(out, "Family %zu, its smallest case's first difference:", i + 1);
            md_explanation(s, out);
            fprintf(out, "\n\n");
        }
    }
    /* The summary inlines the first few: it must stay under its size. */
    md_shrunk_cases(m, limit && shown > SUMMARY_SHRUNK_INLINE ? SUMMARY_SHRUNK_INLINE : shown, out);
}

static void md_matrix(const report_model *m, FILE *out)
{
    fprintf(out, "## Matrix\n\nEach row is a cell. *Differs*: mismatches in an unspecified class "
                 "(not failures). The last column says what the passes prove: with n passes "
                 "and no failure, the failure rate is below about 3/n at 95%% confidence.\n\n");
    bool baseline = m->baseline != NULL;
    for (size_t f = 0; f < m->verdict_count; f++) {
        DML_FEATURE_LEVEL fl = m->verdicts[f].fl;
        fprintf(out, "### Feature level %s\n\n| Operator | Types | Run | Passed | Failed | Differs "
                     "| Skipped | Status | What the passes mean |%s\n|---|---|--:|--:|--:|--:|--:|---|---|%s\n",
                fl_name(fl), baseline ? " vs baseline |" : "", baseline ? "---|" : "");
        size_t rows = 0;
        for (size_t i = 0; i < m->cell_count; i++) {
            const report_cell *c = &m->cells[i];
            if (c->key.fl != fl || (!c->required && c->n.run == 0))
                continue;
            char types[64], bound[160];
            fprintf(out, "| %s | %s%s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                         " | %s | ",
                    op_table[c->key.op].name, report_cell_types(&c->key, types, sizeof types),
                    c->required ? "" : " (not required)", c->n.run, c->n.passed, c->n.failed,
                    c->n.differs, c->n.skipped, report_cell_status_name(c->status));
            /* The bound may hold a backend's skip reason: outside text, escaped for a cell. */
            md_text(out, report_bound_text(c, bound, sizeof bound));
            fprintf(out, " |");
            if (baseline)
                fprintf(out, " %s |", report_mark_name(c->mark));
            fputc('\n', out);
            rows++;
        }
        if (!rows)
            fprintf(out, "| (no cell) | | | | | | | | |%s\n", baseline ? " |" : "");
        fputc('\n', out);
    }
}

static void md_signature_detail(const report_model *m, const report_signature *s, size_t number,
                                FILE *out)
{
    char buf[512];
    fprintf(out, "#### %zu. %s %s at %s: ", number, op_table[s->op].name,
            report_cell_types(&(report_cell_key){ s->fl, s->op, s->input, s->output, s->indices },
                              buf, sizeof buf),
            fl_name(s->fl));
    md_text(out, s->kind);
    fprintf(out, "\n\n- Status: %s", s->expected_reason ? "expected (known bug: "
                                     : s->unspecified ? "differs from our policy"
                                                      : "FAIL");
    if (s->expected_reason) {
        md_text(out, s->expected_reason);
        fputc(')', out);
    }
    if (s->mark != REPORT_MARK_NONE)
        fprintf(out, ", %s vs baseline", report_mark_name(s->mark));
    fprintf(out, "\n- Cases: %" PRIu64 "; layout ", s->count);
    md_text(out, s->layout);
    fprintf(out, ", distribution ");
    md_text(out, s->distribution);
    if (s->classes[0]) {
        fprintf(out, ", classes ");
        md_text(out, s->classes);
    }
    fprintf(out, "\n- First seen ");
    md_text(out, report_omitted(m, s->first_seen));
    fprintf(out, ", last seen ");
    md_text(out, report_omitted(m, s->last_seen));
    fprintf(out, "\n- Representative case %s", report_case_id(s, buf, sizeof buf));
    if (s->rep_elements)
        fprintf(out, " (%" PRIu64 " input elements)", s->rep_elements);
    fprintf(out, "\n- First difference: ");
    md_text(out, report_first_difference(s, buf, sizeof buf));
    if (s->tensor[0] && s->detail[0]) {
        fprintf(out, "\n- Detail: ");
        md_text(out, s->detail);
    }
    md_explanation(s, out);
    fprintf(out, "\n\n```sh\n");
    report_emit(out, md_code_line, report_replay_command(s));
    report_emit(out, md_code_line, report_export_command(s));
    fprintf(out, "```\n\n");
}

static void md_signature_row(const report_signature *s, size_t number, bool baseline, FILE *out)
{
    char types[64];
    report_cell_key k = { s->fl, s->op, s->input, s->output, s->indices };
    fprintf(out, "| %zu | %s | %s | %s | %s | ", number,
            s->expected_reason ? "expected" : s->unspecified ? "differs" : "FAIL", fl_name(s->fl),
            op_table[s->op].name, report_cell_types(&k, types, sizeof types));
    md_text(out, s->layout);
    fprintf(out, " | ");
    md_text(out, s->distribution);
    fprintf(out, " | ");
    md_text(out, s->kind);
    fprintf(out, " | %" PRIu64 " |", s->count);
    if (baseline)
        fprintf(out, " %s |", report_mark_name(s->mark));
    fputc('\n', out);
}

/* Signatures whose unspecified flag equals `unspecified`, as a table and details. */
static void md_signature_list(const report_model *m, bool unspecified, FILE *out)
{
    bool baseline = m->baseline != NULL;
    size_t shown = 0;
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_signature *s = &m->signatures[i];
        if (s->unspecified != unspecified)
            continue;
        if (!shown++)
            fprintf(out, "| # | Status | Level | Operator | Types | Layout | Distribution | Kind "
                         "| Cases |%s\n|--:|---|---|---|---|---|---|---|--:|%s\n",
                    baseline ? " vs baseline |" : "", baseline ? "---|" : "");
        md_signature_row(s, i + 1, baseline, out);
    }
    if (!shown) {
        fprintf(out, "None.\n\n");
        return;
    }
    fputc('\n', out);
    for (size_t i = 0; i < m->signature_count; i++)
        if (m->signatures[i].unspecified == unspecified)
            md_signature_detail(m, &m->signatures[i], i + 1, out);
}

static void md_signatures(const report_model *m, FILE *out)
{
    fprintf(out, "## Mismatch signatures\n\nA signature groups the mismatches of one bug: same "
                 "level, operator, types, layout, value distribution and kind. Each has a "
                 "representative case (the smallest found) and the commands that replay it and "
                 "export it as a case file.\n\n");
    md_signature_list(m, false, out);
    if (m->gone_count) {
        fprintf(out, "**Fixed since the baseline** (signatures of the baseline that no longer "
                     "occur although their cells were tested):\n\n");
        for (size_t i = 0; i < m->gone_count; i++) {
            char types[64];
            const report_signature *s = &m->gone[i];
            report_cell_key k = { s->fl, s->op, s->input, s->output, s->indices };
            fprintf(out, "- FIXED: %s %s at %s, ", op_table[s->op].name,
                    report_cell_types(&k, types, sizeof types), fl_name(s->fl));
            md_text(out, s->layout);
            fprintf(out, ", ");
            md_text(out, s->distribution);
            fprintf(out, ": ");
            md_text(out, s->kind);
            fprintf(out, " (%" PRIu64 " cases in the baseline)\n", s->count);
        }
        fputc('\n', out);
    }
    fprintf(out, "## Differs from our policy\n\nMismatches only in classes DirectML leaves "
                 "unspecified (`nan`, `denormal`, `padding_window`; see SEMANTICS.md). They "
                 "are not failures; run with `--strict` to judge them.\n\n");
    md_signature_list(m, true, out);
}

static void md_coverage(const report_model *m, FILE *out)
{
    fprintf(out, "## Coverage\n\nHow many cases hit each value of each generator dimension "
                 "(failures in brackets). A **0** was not exercised.\n\n"
                 "| Dimension | Cases per value |\n|---|---|\n");
    for (size_t i = 0; i < m->coverage_count;) {
        const char *dim = m->coverage[i].dimension;
        fprintf(out, "| ");
        md_text(out, dim);
        fprintf(out, " | ");
        for (size_t first = i; i < m->coverage_count && !strcmp(m->coverage[i].dimension, dim); i++) {
            const report_coverage *c = &m->coverage[i];
            fprintf(out, "%s", i > first ? " · " : "");
            md_text(out, c->value);
            if (c->cases == 0)
                fprintf(out, ": **0**");
            else if (c->failed)
                fprintf(out, ": %" PRIu64 " (%" PRIu64 " failed)", c->cases, c->failed);
            else
                fprintf(out, ": %" PRIu64, c->cases);
        }
        fprintf(out, " |\n");
    }
    fputc('\n', out);
}

static void md_provenance(const report_model *m, FILE *out)
{
    static const report_provenance_format md = {
        .run_head = "### Run %" PRId64 "\n\n| Field | Value |\n|---|---|\n", .run_tail = "\n",
        .row_head = "| %s | ", .row_tail = " |\n", .escape = md_text,
    };
    fprintf(out, "## Provenance\n\n");
    report_print_provenance(m, &md, out);
}

bool report_render_md(const report_model *m, FILE *out, dmlc_error *err)
{
    md_summary(m, out);
    md_intro(m, out);
    md_verdicts(m, out);
    md_families(m, 0, out);
    md_matrix(m, out);
    md_nan_prints(m, "", 0, out);
    md_signatures(m, out);
    md_coverage(m, out);
    md_provenance(m, out);
    fflush(out);
    return !ferror(out) || err_set(err, "writing the Markdown report failed");
}

/* ---- the summary (report --summary) ---------------------------------------------------- */

/* Where the summary stops adding signature rows (room left for the replay commands and the
 * closing lines), and where the whole text is cut if its fixed parts alone grow too long:
 * both under REPORT_SUMMARY_MAX_CHARS, what a GitHub pull-request comment takes. */
#define SUMMARY_BUDGET (REPORT_SUMMARY_MAX_CHARS - 8000)
#define SUMMARY_CUT (REPORT_SUMMARY_MAX_CHARS - 200)
#define SUMMARY_REPLAYS 8
#define SUMMARY_FAMILIES 40
#define SUMMARY_NAN_PRINTS 32

typedef struct ranked {
    uint64_t count;
    size_t index;
} ranked;

/* Most cases first; equal counts in the model's order. */
static int by_count(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static bool signature_fails(const report_signature *s)
{
    return !s->unspecified && !s->expected_reason;
}

/* Signatures with this few cases are folded in the summary: the families above hold them. */
#define SUMMARY_FOLD_CASES 2

static void summary_signature_head(bool baseline, FILE *out)
{
    fprintf(out, "| # | Status | Level | Operator | Types | Layout | Distribution | Kind "
                 "| Cases |%s\n|--:|---|---|---|---|---|---|---|--:|%s\n",
            baseline ? " vs baseline |" : "", baseline ? "---|" : "");
}

/* Rows of the ranked signatures with more than SUMMARY_FOLD_CASES cases (`folded` false) or
 * at most that many (true), while the budget lasts; *left and *left_cases count the rest. */
static size_t summary_signature_rows(const report_model *m, const ranked *order, size_t n,
                                     bool folded, size_t *left, uint64_t *left_cases, FILE *out)
{
    size_t shown = 0;
    for (size_t k = 0; k < n; k++) {
        const report_signature *s = &m->signatures[order[k].index];
        if ((s->count <= SUMMARY_FOLD_CASES) != folded)
            continue;
        if (ftell(out) > SUMMARY_BUDGET) {
            (*left)++;
            *left_cases += s->count;
            continue;
        }
        if (!shown++) {
            if (folded)
                fprintf(out, "\n<details><summary>%s</summary>\n\n", "Failing signatures of "
                        "one or two cases");
            summary_signature_head(m->baseline != NULL, out);
        }
        md_signature_row(s, order[k].index + 1, m->baseline != NULL, out);
    }
    if (folded && shown)
        fprintf(out, "\n</details>\n");
    return shown;
}

static void summary_signatures(const report_model *m, const ranked *order, size_t n, FILE *out)
{
    size_t left = 0;
    uint64_t left_cases = 0;
    fprintf(out, "## Failing signatures\n\n");
    size_t shown = summary_signature_rows(m, order, n, false, &left, &left_cases, out);
    summary_signature_rows(m, order, n, true, &left, &left_cases, out);
    if (!n)
        fprintf(out, "None.\n");
    else if (!shown)
        fprintf(out, "Each of them has one or two cases (folded below).\n");
    if (left)
        fprintf(out, "\n... and %zu more failing signatures (%" PRIu64 " cases): the full "
                     "report (`dmlcheck report` without `--summary`) lists them all.\n",
                left, left_cases);
    if (n) {
        fprintf(out, "\nReplay the largest:\n\n```sh\n");
        for (size_t k = 0; k < n && k < SUMMARY_REPLAYS; k++)
            report_emit(out, md_code_line, report_replay_command(&m->signatures[order[k].index]));
        fprintf(out, "```\n");
    }
}

/* Known bugs, one row per reason of the expectations that named a signature: how many
 * signatures and cases it covers, and the replay command of its largest signature. */
static void summary_known_bugs(const report_model *m, FILE *out)
{
    const char *seen[64];
    size_t reasons = 0;
    for (size_t i = 0; i < m->signature_count; i++) {
        const char *reason = m->signatures[i].expected_reason;
        bool known = !reason || m->signatures[i].unspecified;
        for (size_t r = 0; r < reasons && !known; r++)
            known = !strcmp(seen[r], reason);
        if (known || reasons == sizeof seen / sizeof seen[0] || ftell(out) > SUMMARY_BUDGET)
            continue;
        seen[reasons++] = reason;
        size_t count = 0, largest = i;
        uint64_t cases = 0;
        for (size_t k = i; k < m->signature_count; k++) {
            const report_signature *s = &m->signatures[k];
            if (!s->expected_reason || strcmp(s->expected_reason, reason) || s->unspecified)
                continue;
            count++;
            cases += s->count;
            largest = s->count > m->signatures[largest].count ? k : largest;
        }
        if (reasons == 1)
            fprintf(out, "\n## Known bugs\n\nOne row per expectation (`--expectations`) that "
                         "named a signature of this run.\n\n| Known bug | Signatures | Cases | "
                         "Replay the largest |\n|---|--:|--:|---|\n");
        fprintf(out, "| ");
        md_text(out, reason);
        fprintf(out, " | %zu | %" PRIu64 " | `", count, cases);
        report_emit(out, md_text, report_replay_command(&m->signatures[largest]));
        fprintf(out, "` |\n");
    }
}

static void summary_others(const report_model *m, FILE *out)
{
    size_t differs = 0, expected = 0;
    uint64_t differs_cases = 0, expected_cases = 0;
    for (size_t i = 0; i < m->signature_count; i++) {
        const report_signature *s = &m->signatures[i];
        differs += s->unspecified;
        differs_cases += s->unspecified ? s->count : 0;
        expected += !s->unspecified && s->expected_reason;
        expected_cases += !s->unspecified && s->expected_reason ? s->count : 0;
    }
    fprintf(out, "\n%zu signatures (%" PRIu64 " cases) differ from our policy where DirectML is "
                 "silent, %zu (%" PRIu64 " cases) are known bugs, %zu are fixed since the "
                 "baseline.\n", differs, differs_cases, expected, expected_cases, m->gone_count);
}

/* The summary text, cut at a line end if its fixed parts alone outgrow the budget (a very
 * long title or database path, thousands of failing cells). */
static bool summary_text(const report_model *m, char **text, size_t *len)
{
    FILE *mem = open_memstream(text, len);
    if (!mem)
        return false;
    ranked *order = malloc((m->signature_count + 1) * sizeof *order);
    size_t n = 0;
    if (!order) {
        fclose(mem);
        return false;
    }
    for (size_t i = 0; i < m->signature_count; i++)
        if (signature_fails(&m->signatures[i]))
            order[n++] = (ranked){ m->signatures[i].count, i };
    qsort(order, n, sizeof *order, by_count);
    /* The news first: the verdict line and table, the families (root causes) with their
     * cases and commands; then the rest, per-cell notes and small signatures folded. */
    md_summary(m, mem);
    md_verdict_table(m, mem);
    md_families(m, SUMMARY_FAMILIES, mem);
    md_cell_notes(m, true, mem);
    summary_signatures(m, order, n, mem);
    summary_known_bugs(m, mem);
    summary_others(m, mem);
    md_nan_prints(m, "\n", SUMMARY_NAN_PRINTS, mem);
    md_intro(m, mem);
    free(order);
    return fclose(mem) == 0;
}

bool report_render_md_summary(const report_model *m, FILE *out, dmlc_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (!summary_text(m, &text, &len)) {
        free(text);
        return err_set(err, "out of memory writing the summary");
    }
    bool cut = len > SUMMARY_CUT;
    if (cut) {
        char *end = memrchr(text, '\n', SUMMARY_CUT);
        len = end ? (size_t)(end - text) + 1 : SUMMARY_CUT;
    }
    fwrite(text, 1, len, out);
    if (cut)
        fprintf(out, "\n... (cut to fit %d characters; the full report has the rest)\n",
                REPORT_SUMMARY_MAX_CHARS);
    free(text);
    fflush(out);
    return !ferror(out) || err_set(err, "writing the summary failed");
}
