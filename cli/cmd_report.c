/*
 * cmd_report.c: `dmlcheck report`: reads a results database (read-only, never re-running a
 * case) and writes a conformance report as HTML, Markdown or JUnit XML, optionally compared
 * with a baseline run and with known driver bugs turned into expected failures.
 * Exit code: 0 when nothing needs acting on, 1 when a cell fails unexpectedly or regressed,
 * 2 on usage errors or a database that cannot be read.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_args.h"
#include "replay.h"
#include "report_model.h"

typedef enum report_format { FORMAT_AUTO, FORMAT_HTML, FORMAT_MD, FORMAT_JUNIT } report_format;

/* One report per -o, all from one read of the database (issue 22). */
#define REPORT_OUTPUTS_MAX 8

typedef struct report_args {
    const char *db, *baseline_db, *expectations;
    const char *outputs[REPORT_OUTPUTS_MAX]; /* -o FILE, each time it is given */
    report_format formats[REPORT_OUTPUTS_MAX]; /* --format's list, then each output's format */
    unsigned output_count, format_count;
    int64_t run_id, baseline_run;
    bool all_runs, deterministic, summary;
    unsigned min_cases;
} report_args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck report [--db FILE] [--run ID | --all] [--format F[,F...]]\n"
            "                       [-o FILE]... [--baseline OLD.sqlite] [--baseline-run ID]\n"
            "                       [--expectations FILE] [--min-cases N] [--deterministic]\n"
            "                       [--summary]\n\n"
            "Writes a conformance report from a results database written by `dmlcheck run`.\n"
            "The database is opened read-only; nothing is re-run.\n\n"
            "  --db FILE            results database (default dmlcheck.sqlite)\n"
            "  --run ID             report on run ID (default: the latest run)\n"
            "  --all                report on every run in the database\n"
            "  --format F           html, md or junit (default: from -o's extension, else md);\n"
            "                       a list (html,md,junit) names the format of each -o in turn\n"
            "  -o, --output FILE    write there instead of standard output (a terminal gets a\n"
            "                       dozen lines: the verdicts and how to write the report); give\n"
            "                       it again for more formats from one read of the database:\n"
            "                       -o report.html -o report.md -o junit.xml (up to %d)\n"
            "  --baseline FILE      mark cells and signatures NEW/FIXED/REGRESSED/UNCHANGED\n"
            "                       against the latest run of another database\n"
            "  --baseline-run ID    ... against run ID (of --baseline, or of --db)\n"
            "  --expectations FILE  known bugs (JSON, see reports/README.md) become \"expected\"\n"
            "  --min-cases N        judged cases a cell needs to count as passed (default %d)\n"
            "  --deterministic      leave out times, host, paths and versions (golden files)\n"
            "  --summary            Markdown under 65,536 characters for any run (a pull-request\n"
            "                       comment): verdicts, failing signatures with the most cases\n"
            "                       first as far as they fit, replay commands for the largest\n\n"
            "exit: 0 nothing to act on, 1 unexpected failures or regressions, 2 error\n",
            REPORT_OUTPUTS_MAX, REPORT_DEFAULT_MIN_CASES);
}

static report_format format_from_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot)
        return FORMAT_MD;
    if (!strcmp(dot, ".html") || !strcmp(dot, ".htm"))
        return FORMAT_HTML;
    if (!strcmp(dot, ".xml"))
        return FORMAT_JUNIT;
    return FORMAT_MD;
}

/* --format's list ("html,md") into a->formats; false with a message. */
static bool parse_formats(const char *list, report_args *a)
{
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", list);
    a->format_count = 0;
    for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        report_format format = !strcmp(f, "html") ? FORMAT_HTML : !strcmp(f, "md") ? FORMAT_MD
                               : !strcmp(f, "junit") ? FORMAT_JUNIT : FORMAT_AUTO;
        if (format == FORMAT_AUTO || a->format_count == REPORT_OUTPUTS_MAX) {
            fprintf(stderr, format == FORMAT_AUTO
                                ? "dmlcheck report: --format is html, md or junit (or a list of "
                                  "them, one per -o), not '%s'\n"
                                : "dmlcheck report: --format '%s': at most %d formats\n",
                    format == FORMAT_AUTO ? f : list, REPORT_OUTPUTS_MAX);
            return false;
        }
        a->formats[a->format_count++] = format;
    }
    if (!a->format_count) {
        fprintf(stderr, "dmlcheck report: --format needs html, md or junit\n");
        return false;
    }
    return true;
}

/* Each output's format: --format's list in -o order, else each file's extension.  False
 * with a message when they do not pair up. */
static bool pair_formats(report_args *a)
{
    if (a->format_count > 1 && a->format_count != a->output_count) {
        fprintf(stderr, "dmlcheck report: --format names %u formats for %u -o file%s: give one "
                        "-o per format (-o report.html -o report.md), or leave out --format and "
                        "let each extension say\n", a->format_count, a->output_count,
                a->output_count == 1 ? "" : "s");
        return false;
    }
    if (a->format_count == 1 && a->output_count > 1) {
        fprintf(stderr, "dmlcheck report: one --format for %u -o files: give a list (--format "
                        "html,md) or leave it out and let each extension say\n", a->output_count);
        return false;
    }
    for (unsigned i = 0; i < a->output_count; i++)
        if (a->format_count <= i)
            a->formats[i] = format_from_path(a->outputs[i]);
    if (!a->output_count && !a->format_count)
        a->formats[0] = FORMAT_MD;
    if (a->summary && (a->output_count > 1 || a->formats[0] != FORMAT_MD)) {
        fprintf(stderr, "dmlcheck report: --summary is Markdown, one file: leave out --format or "
                        "give md, and give one -o at most\n");
        return false;
    }
    return true;
}

/* 0 ok, 1 --help printed, 2 usage error. */
static int parse_args(int argc, char **argv, report_args *a)
{
    enum { OPT_DB = 256, OPT_RUN, OPT_ALL, OPT_FORMAT, OPT_BASELINE, OPT_BASELINE_RUN,
           OPT_EXPECTATIONS, OPT_MIN_CASES, OPT_DETERMINISTIC, OPT_SUMMARY };
    static const struct option options[] = {
        { "db", required_argument, NULL, OPT_DB },
        { "run", required_argument, NULL, OPT_RUN },
        { "all", no_argument, NULL, OPT_ALL },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "output", required_argument, NULL, 'o' },
        { "baseline", required_argument, NULL, OPT_BASELINE },
        { "baseline-run", required_argument, NULL, OPT_BASELINE_RUN },
        { "expectations", required_argument, NULL, OPT_EXPECTATIONS },
        { "min-cases", required_argument, NULL, OPT_MIN_CASES },
        { "deterministic", no_argument, NULL, OPT_DETERMINISTIC },
        { "summary", no_argument, NULL, OPT_SUMMARY },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    *a = (report_args){ .db = "dmlcheck.sqlite", .min_cases = REPORT_DEFAULT_MIN_CASES };
    optind = 1;
    int c;
    int64_t n;
    while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
        switch (c) {
        case OPT_DB: a->db = optarg; break;
        case OPT_ALL: a->all_runs = true; break;
        case 'o':
            if (a->output_count == REPORT_OUTPUTS_MAX) {
                fprintf(stderr, "dmlcheck report: at most %d -o files\n", REPORT_OUTPUTS_MAX);
                return 2;
            }
            for (unsigned i = 0; i < a->output_count; i++)
                if (!strcmp(a->outputs[i], optarg)) {
                    fprintf(stderr, "dmlcheck report: -o %s given twice\n", optarg);
                    return 2;
                }
            a->outputs[a->output_count++] = optarg;
            break;
        case OPT_BASELINE: a->baseline_db = optarg; break;
        case OPT_EXPECTATIONS: a->expectations = optarg; break;
        case OPT_DETERMINISTIC: a->deterministic = true; break;
        case OPT_SUMMARY: a->summary = true; break;
        case 'h': usage(stdout); return 1;
        case OPT_RUN:
        case OPT_BASELINE_RUN:
            if (!cli_parse_positive(optarg, c == OPT_RUN ? &a->run_id : &a->baseline_run)) {
                fprintf(stderr, "dmlcheck report: %s needs a run id (a positive integer), not "
                                "'%s'\n", c == OPT_RUN ? "--run" : "--baseline-run", optarg);
                return 2;
            }
            break;
        case OPT_MIN_CASES:
            if (!cli_parse_positive(optarg, &n) || n > 1000000000) {
                fprintf(stderr, "dmlcheck report: --min-cases needs a positive integer, not '%s'\n",
                        optarg);
                return 2;
            }
            a->min_cases = (unsigned)n;
            break;
        case OPT_FORMAT:
            if (!parse_formats(optarg, a))
                return 2;
            break;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dmlcheck report: unexpected argument '%s'\n\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (a->all_runs && a->run_id) {
        fprintf(stderr, "dmlcheck report: --run and --all exclude each other\n");
        return 2;
    }
    if (!a->output_count && a->format_count > 1) {
        fprintf(stderr, "dmlcheck report: several formats need one -o file each\n");
        return 2;
    }
    return pair_formats(a) ? 0 : 2;
}

/* Loads and judges one model (the report's or the baseline's). */
static bool build_model(report_model *m, const report_args *a, const char *db, int64_t run_id,
                        bool all_runs, dmlc_error *err)
{
    report_model_init(m);
    m->min_cases = a->min_cases;
    m->deterministic = a->deterministic;
    m->title = report_strdup("dmlcheck conformance report");
    if (!m->title)
        return err_set(err, "out of memory");
    if (a->expectations && !report_expectations_load(m, a->expectations, err))
        return false;
    return report_load(m, db, run_id, all_runs, err) && report_model_finish(m, err);
}

static bool add_baseline(report_model *m, const report_args *a, dmlc_error *err)
{
    const char *db = a->baseline_db ? a->baseline_db : a->db;
    report_model base;
    bool ok = build_model(&base, a, db, a->baseline_run, false, err)
              || err_prefix(err, "baseline");
    if (ok) {
        char text[1200];
        snprintf(text, sizeof text, "%s of %s", base.selection,
                 a->deterministic ? "the baseline database" : db);
        ok = (m->baseline = report_strdup(text)) != NULL || err_set(err, "out of memory");
    }
    ok = ok && report_model_compare(m, &base, err);
    report_model_free(&base);
    return ok;
}

static bool render(const report_model *m, const report_args *a, report_format format, FILE *out,
                   dmlc_error *err)
{
    if (a->summary)
        return report_render_md_summary(m, out, err);
    switch (format) {
    case FORMAT_HTML: return report_render_html(m, out, err);
    case FORMAT_JUNIT: return report_render_junit(m, out, err);
    default: return report_render_md(m, out, err);
    }
}

/* For a terminal without -o: the verdict per level, the claims line and the count of bugs in a
 * dozen lines, and how to get the whole report (thousands of lines) into a file or a pager. */
static void write_terminal_summary(const report_model *m, const report_args *a)
{
    char buf[1024];
    printf("dmlcheck report: %s of %s (%s)\n", m->selection, a->db, report_subject(m, buf, sizeof buf));
    for (size_t i = 0; i < m->verdict_count; i++) {
        const report_verdict *v = &m->verdicts[i];
        if (v->kind == REPORT_VERDICT_NOT_TESTED)
            continue;
        printf("  %-5s %-26s %s\n", fl_name(v->fl), report_verdict_name(v->kind),
               report_verdict_text(m, v, buf, sizeof buf));
    }
    if (report_claims_line(m, buf, sizeof buf)[0])
        printf("%s\n", buf);
    if (m->families.count)
        printf("%zu famil%s of failures (one per bug): the report's families table names them\n",
               m->families.count, m->families.count == 1 ? "y" : "ies");
    /* The same selection in the commands shown ("" for the default database, latest run). */
    char sel[1400] = "";
    if (strcmp(a->db, "dmlcheck.sqlite")) {
        replay_append_arg(sel, sizeof sel, "--db");
        replay_append_arg(sel, sizeof sel, a->db);
    }
    if (a->run_id) {
        char id[32];
        snprintf(id, sizeof id, "%" PRId64, a->run_id);
        replay_append_arg(sel, sizeof sel, "--run");
        replay_append_arg(sel, sizeof sel, id);
    } else if (a->all_runs) {
        replay_append_arg(sel, sizeof sel, "--all");
    }
    printf("\nThe whole report is long; standard output is a terminal, so write it to a file:\n"
           "  dmlcheck report%s -o report.html     (or report.md; report.xml for JUnit)\n"
           "  dmlcheck report%s --summary -o summary.md     (a pull-request comment)\n"
           "or read it in a pager: dmlcheck report%s | less\n", sel, sel, sel);
}

/* The report in one format into path; a file left half-written is removed. */
static bool write_file(const report_model *m, const report_args *a, report_format format,
                       const char *path, dmlc_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set(err, "%s: %s", path, strerror(errno));
    bool ok = render(m, a, format, f, err);
    if (fclose(f) != 0 && ok)
        ok = err_set(err, "%s: %s", path, strerror(errno));
    if (!ok)
        remove(path);
    return ok;
}

static bool write_report(const report_model *m, const report_args *a, dmlc_error *err)
{
    /* DMLCHECK_REPORT_TTY=1 stands for a terminal in tests (a pipe is never one). */
    const char *tty = getenv("DMLCHECK_REPORT_TTY");
    if (!a->output_count && (tty ? !strcmp(tty, "1") : isatty(STDOUT_FILENO))) {
        write_terminal_summary(m, a);
        return true;
    }
    if (!a->output_count)
        return render(m, a, a->formats[0], stdout, err);
    for (unsigned i = 0; i < a->output_count; i++)
        if (!write_file(m, a, a->formats[i], a->outputs[i], err))
            return false;
    return true;
}

int cmd_report(int argc, char **argv)
{
    report_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    dmlc_error err = { "" };
    report_model m;
    bool ok = build_model(&m, &a, a.db, a.run_id, a.all_runs, &err);
    if (ok && (a.baseline_db || a.baseline_run))
        ok = add_baseline(&m, &a, &err);
    ok = ok && write_report(&m, &a, &err);
    if (!ok) {
        fprintf(stderr, "dmlcheck report: %s\n", err.msg);
        report_model_free(&m);
        return 2;
    }
    rc = report_model_has_unexpected_failures(&m) ? 1 : 0;
    report_model_free(&m);
    return rc;
}
