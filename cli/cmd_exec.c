/*
 * cmd_exec.c: `dmlcheck exec`: runs case files on a backend.  For each file: read it, validate
 * it (at its feature level, or the lowest level where it is valid), then check it (check.h):
 * the backend's outputs are printed as one JSON line on stdout and judged bit-exactly (NaN by
 * NaN-ness) against the reference and, where the file holds expected outputs, against those,
 * by the same rules: a difference in a class the spec leaves open is "unspecified" unless
 * --strict, as `run` and `replay` judge the same case; a device that may flush fp32
 * denormals passes with the flushed answer, SEMANTICS D6.  Diagnostics are the check's
 * explanation on stderr, each ending with the command that replays it.  With several files
 * each JSON line names its file and result, and stderr ends with a summary line.  FILE "-" is
 * one case on standard input (CASEFILE_MAX_STREAM_BYTES); its replay line says to save it.
 *
 * Each file is checked through a session (harness/session.h), exactly as `dmlcheck run`
 * checks a case: this process reads, validates and judges; the session's worker process opens
 * the backend and runs each case into guarded buffers.  A backend that crashes or outlives --case-timeout on a file fails
 * that file (`crash`, `hang`); the worker is restarted and the next file runs.  SIGINT and
 * SIGTERM abandon the file in flight within ~100 ms and exit 130.
 * Exit status: 0 all agree, 1 a mismatch or a misbehaving backend, 2 a usage, file or
 * validation error (the worst over all files), 130 stopped by a signal.
 */
#include <getopt.h>
#include <glob.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_exec.h"

#include "casefile.h"
#include "check.h"
#include "error.h"
#include "paths.h"
#include "replay.h"
#include "run_options.h"
#include "runner.h"
#include "session.h"
#include "validate.h"

enum { EXIT_AGREE = 0, EXIT_FAIL = 1, EXIT_SETUP = 2, EXIT_STOPPED = RUNNER_EXIT_INTERRUPTED };

int cmd_exec(int argc, char **argv);

/* Set by SIGINT/SIGTERM, read by the worker's waits (exec_run.stop). */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* The installed conformance corpus (or the source tree's, for a build-tree dmlcheck). */
static const char *corpus_dir(void)
{
    static dmlcheck_paths p;
    if (!p.origin)
        paths_find(&p);
    return p.path[PATH_CORPUS];
}

/* run's --case-timeout default, so that exec and run call the same case a hang. */
static unsigned default_case_timeout_ms(void)
{
    runner_options o;
    runner_options_default(&o);
    return o.case_timeout_ms;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck exec [--backend NAME] [--device SEL] [--nan-policy ignore|propagate]\n"
            "                     [--strict] [--case-timeout MS] [--reference-timeout MS]\n"
            "                     [--corpus] FILE...\n\n"
            "Runs each case file on a backend and prints its outputs as one JSON line:\n"
            "  {\"output\": [...], \"indices\": [...]}\n"
            "With several files, every file gets one line that names it and its result (agree,\n"
            "unspecified, skip, fail, invalid or error), the check's kind when it names one, and\n"
            "the outputs when the backend wrote some:\n"
            "  {\"file\": \"a.json\", \"result\": \"fail\", \"kind\": \"wrong_index\", \"output\": [...]}\n"
            "and stderr ends with one summary line: \"exec: 5 files: 3 agree, 1 fail, 1 invalid\".\n"
            "Compares bit-exactly (NaN by NaN-ness) with the reference and, where a file holds\n"
            "\"expected\", with that (judged alike: a difference only where the spec is silent is\n"
            "\"unspecified\", as in run and replay), and names the first differing element.  A\n"
            "case without"
            " \"feature_level\" runs at the lowest level where it is valid.\n"
            "FILE - reads one case from standard input, at most %zu bytes (a larger case: save it\n"
            "to a file, which may hold %zu); its replay line says to save it first.\n\n"
            "The conformance corpus (every example of the spec pages, hand-derived pooling\n"
            "cases) is in %s/*/*.json\n"
            "(`dmlcheck path corpus`); --corpus runs all of it, after any FILE given.\n\n"
            "options:\n"
            "  --backend NAME       implementation under test (default: reference); one of:",
            CASEFILE_MAX_STREAM_BYTES - 1, CASEFILE_MAX_FILE_BYTES - 1, corpus_dir());
    for (size_t i = 0; backend_registry[i]; i++)
        fprintf(f, " %s", backend_registry[i]->name);
    fprintf(f, "\n"
            "  --device SEL         device selector passed to the backend\n"
            "  --nan-policy POLICY  ignore (default: NaN never beats a number) or propagate\n"
            "                       (NaN beats everything); see docs/SEMANTICS.md D4\n"
            "  --strict             a difference where the spec is silent fails instead of being\n"
            "                       \"unspecified\"\n"
            "  --case-timeout MS    one file on the backend longer than this is a hang (default\n"
            "                       %u, as in run), plus 10 us per input element\n"
            "  --reference-timeout MS  one file's reference computation longer than this is an\n"
            "                       error, not checked (default 300000, as in run)\n"
            "  --corpus             run every file of the conformance corpus too\n"
            "  -h, --help           this text\n\n"
            "The backend runs in a worker process, as in `dmlcheck run`: a backend that crashes or\n"
            "hangs on a file fails that file (kind crash or hang), the worker is restarted and the\n"
            "next file runs.  Ctrl-C (SIGINT) or SIGTERM stops at once, abandoning the file in flight.\n\n"
            "exit status: 0 every file agrees (or was skipped: outside what the backend claims,\n"
            "or a must-reject case for a backend that does not validate; or differs from the\n"
            "reference only where DirectML's spec is silent: \"unspecified\"),\n"
            "1 a mismatch or a backend misbehaved (error, crash, hang, write out of bounds, input\n"
            "modified, UNSUPPORTED for what it claims, INVALID for a valid descriptor, a run of\n"
            "one DirectML must refuse),\n"
            "2 usage, unreadable or invalid case file, or a backend that cannot be opened (worst\n"
            "over all files),\n"
            "130 stopped by SIGINT or SIGTERM\n", default_case_timeout_ms());
}

/* FILE "-" is standard input. */
static bool is_stdin(const char *file)
{
    return !strcmp(file, "-");
}

/* Room for a PATH_MAX file name whose every byte is a control character (\xHH). */
#define SHOWN_NAME_SIZE (4 * 4096 + 1)

/* The name diagnostics give a file, written into buf: a control character in the name (an
 * escape sequence, a newline) is printed as \xHH, so it reaches the terminal as text.  The
 * JSON lines and the replay line quote the name their own ways. */
static const char *shown_name(const char *file, char *buf, size_t size)
{
    return is_stdin(file) ? "standard input" : err_printable(file, false, buf, size);
}

/* "dmlcheck exec --backend NAME [options] FILE", each argument quoted for the shell.  A case
 * read from standard input is gone once read: the line says to save it first. */
static const char *replay_command(const exec_run *r, const char *file, char *line, size_t size)
{
    const char *saved_as = "case.json";
    if (is_stdin(file))
        snprintf(line, size, "save the case from standard input as %s, then: dmlcheck exec --backend",
                 saved_as);
    else
        snprintf(line, size, "dmlcheck exec --backend");
    replay_append_arg(line, size, r->backend_text ? r->backend_text : r->vt->name);
    if (r->device) {
        replay_append_arg(line, size, "--device");
        replay_append_arg(line, size, r->device);
    }
    if (r->opt.nan != NAN_POLICY_IGNORE) {
        replay_append_arg(line, size, "--nan-policy");
        replay_append_arg(line, size, nan_policy_name(r->opt.nan));
    }
    if (r->strict)
        replay_append_arg(line, size, "--strict");
    if (r->case_timeout_ms != default_case_timeout_ms()) { /* a hang replays as a hang */
        char ms[16];
        snprintf(ms, sizeof ms, "%u", r->case_timeout_ms);
        replay_append_arg(line, size, "--case-timeout");
        replay_append_arg(line, size, ms);
    }
    replay_append_arg(line, size, is_stdin(file) ? saved_as : file);
    return line;
}

/* The outputs the backend wrote, or NULL: a write out of bounds or into the input still
 * leaves outputs worth seeing; a death or a refused case leaves none. */
static const case_outputs *written_outputs(const dml_case *c, const check_answer *a)
{
    bool wrote = run_status_has_outputs(a->status);
    /* casefile_outputs_json would print the file's expected arrays for missing outputs. */
    return a->died == KIND_NONE && wrote && !c->must_reject && a->outputs.output ? &a->outputs : NULL;
}

static void print_line(const exec_run *r, const char *line)
{
    FILE *out = r->out ? r->out : stdout;
    fprintf(out, "%s\n", line ? line : "{}");
    fflush(out);
}

/* The file's name as a JSON string: bytes that are not UTF-8 (which JSON cannot hold) become
 * '?'. */
static json_t *file_name_json(const char *file)
{
    json_t *name = json_string(file);
    if (name)
        return name;
    char *copy = strdup(file);
    for (char *p = copy; p && *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    name = copy ? json_string(copy) : NULL;
    free(copy);
    return name;
}

/* Several files: one JSON line per file, {"file": F, "result": R, "kind": K, "output": [...],
 * "indices": [...]}; kind when the check named one, the outputs when the backend wrote some. */
static void print_named_line(const exec_run *r, const char *file, exec_outcome got,
                             mismatch_kind kind, const dml_case *c, const case_outputs *o)
{
    json_t *line = json_object();
    json_object_set_new(line, "file", file_name_json(file));
    json_object_set_new(line, "result", json_string(exec_outcome_name(got)));
    if (kind != KIND_NONE)
        json_object_set_new(line, "kind", json_string(mismatch_kind_name(kind)));
    json_t *outputs = o ? casefile_outputs_object(c, o) : NULL;
    if (outputs)
        json_object_update(line, outputs);
    json_decref(outputs);
    char *text = json_dumps(line, JSON_REAL_PRECISION(CASEFILE_REAL_DIGITS));
    print_line(r, text);
    free(text);
    json_decref(line);
}

/* The file's JSON line: with several files every file has one naming it; with one file only
 * outputs are printed, as {"output": [...], "indices": [...]}. */
static void report_file(const exec_run *r, const char *file, exec_outcome got, mismatch_kind kind,
                        const dml_case *c, const case_outputs *o)
{
    if (r->name_files) {
        print_named_line(r, file, got, kind, c, o);
    } else if (o) {
        char *text = casefile_outputs_json(c, o);
        print_line(r, text);
        free(text);
    }
}

/* The check's explanation on stderr after the file name, unless the case simply passed. */
static void explain(const exec_run *r, const char *file, const dml_case *c, const check_result *res)
{
    if (res->j.verdict == VERDICT_PASS && !res->flushed_pass)
        return;
    /* Room for a quoted PATH_MAX file name, backend text and device: the line is never cut. */
    char line[32768], text[sizeof line + 4096];
    char shown[SHOWN_NAME_SIZE];
    check_explain(c, res, replay_command(r, file, line, sizeof line), text, sizeof text);
    fprintf(stderr, "%s: %s", shown_name(file, shown, sizeof shown), text);
}

/* The outcome a judged result stands for. */
static exec_outcome outcome_of(const check_result *res)
{
    switch (res->j.verdict) {
    case VERDICT_PASS: return EXEC_AGREE;
    case VERDICT_UNSPECIFIED: return EXEC_UNSPECIFIED;
    case VERDICT_SKIP: return EXEC_SKIP;
    case VERDICT_FAIL: return EXEC_FAIL;
    default: return EXEC_ERROR;
    }
}

/* Checks one valid case through the session (the backend in its worker, the oracle here)
 * and reports it: against the reference and the file's expected arrays, each judged by the
 * same rules (an unspecified class stays unspecified unless --strict). */
static exec_outcome run_case(exec_run *r, const char *file, const dml_case *c)
{
    char shown[SHOWN_NAME_SIZE];
    const char *name = shown_name(file, shown, sizeof shown);
    session_case sc;
    dmlc_error err = { "" };
    session_status got = session_check(r->s, c, &sc, &err);
    exec_outcome outcome = EXEC_ERROR;
    if (got == SESSION_JUDGED) {
        outcome = outcome_of(&sc.result);
        report_file(r, file, outcome, sc.result.j.kind, c, written_outputs(c, &sc.answer));
        explain(r, file, c, &sc.result);
        if (sc.backend_lost)
            fprintf(stderr, "dmlcheck exec: the backend cannot be opened again after it died on "
                            "%s: %s\n", name, err.msg);
    } else if (got == SESSION_STOPPED) {
        outcome = EXEC_STOPPED;
    } else {
        fprintf(stderr, got == SESSION_NOT_CHECKED ? "%s: not checked: %s\n" : "%s: %s\n", name,
                err.msg);
        report_file(r, file, EXEC_ERROR, KIND_NONE, c, NULL);
    }
    session_case_free(&sc);
    return outcome;
}

exec_outcome exec_case_file(exec_run *r, const char *file)
{
    if (r->stop && *r->stop)
        return EXEC_STOPPED;
    dml_case c;
    dmlc_error err;
    char shown[SHOWN_NAME_SIZE];
    const char *name = shown_name(file, shown, sizeof shown);
    case_init(&c);
    /* A file that cannot be read or describes no valid case is a file to fix: the message
     * says what to fix in it; a replay line would replay nothing. */
    bool loaded = is_stdin(file) ? casefile_load_stream(stdin, name, &c, &err)
                                 : casefile_load(file, &c, &err);
    if (!loaded && r->stop && *r->stop) /* the signal cut the read short (c is freed) */
        return EXEC_STOPPED;
    if (!loaded) {
        fprintf(stderr, "%s\n", err.msg);
        report_file(r, file, EXEC_INVALID, KIND_NONE, &c, NULL);
        return EXEC_INVALID;
    }
    exec_outcome got;
    bool valid = validate_case(&c, &err);
    if (c.must_reject && valid) {
        /* The file claims DirectML refuses it; dmlcheck's rules say otherwise. */
        fprintf(stderr, "%s: must_reject, but DirectML's rules (as dmlcheck knows them) accept it "
                        "at %s\n", name, fl_name(c.feature_level));
        got = EXEC_INVALID;
    } else if (c.must_reject) {
        got = run_case(r, file, &c); /* the backend must refuse it too */
    } else if (!valid) {
        /* Without a level the validator's message already says "invalid at every level". */
        if (c.feature_level)
            fprintf(stderr, "%s: invalid at %s: %s\n", name, fl_name(c.feature_level), err.msg);
        else
            fprintf(stderr, "%s: %s\n", name, err.msg);
        got = EXEC_INVALID;
    } else {
        got = run_case(r, file, &c);
    }
    if (got == EXEC_INVALID)
        report_file(r, file, got, KIND_NONE, &c, NULL);
    case_free(&c);
    return got;
}

int exec_exit_code(exec_outcome o)
{
    switch (o) {
    case EXEC_AGREE: case EXEC_UNSPECIFIED: case EXEC_SKIP: return EXIT_AGREE;
    case EXEC_FAIL: return EXIT_FAIL;
    case EXEC_STOPPED: return EXIT_STOPPED;
    default: return EXIT_SETUP;
    }
}

const char *exec_outcome_name(exec_outcome o)
{
    static const char *const names[EXEC_OUTCOME_COUNT] = { "agree", "unspecified", "skip", "fail",
                                                           "invalid", "error", "stopped" };
    return o < EXEC_OUTCOME_COUNT ? names[o] : "?";
}

void exec_defaults(exec_run *r)
{
    runner_options o;
    runner_options_default(&o);
    if (!r->case_timeout_ms)
        r->case_timeout_ms = o.case_timeout_ms;
    if (!r->reference_timeout_ms)
        r->reference_timeout_ms = o.reference_timeout_ms;
    if (!r->open_timeout_ms)
        r->open_timeout_ms = o.open_timeout_ms;
}

bool exec_start(exec_run *r, dmlc_error *err)
{
    exec_defaults(r);
    session_config cfg = {
        .worker = { .backend = r->vt, .backend_args = r->backend_args, .device = r->device,
                    .exec = r->opt, .open_timeout_ms = r->open_timeout_ms,
                    .case_timeout_ms = r->case_timeout_ms, .stop = r->stop },
        .check = { .exec = r->opt, .rules = { .strict = r->strict } },
        .reference_timeout_ms = r->reference_timeout_ms,
    };
    return (r->s = session_start(&cfg, NULL, err)) != NULL;
}

void exec_stop(exec_run *r)
{
    session_stop(r->s);
    r->s = NULL;
}

/* Parses the options into r; -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, exec_run *r, bool *corpus)
{
    static const struct option options[] = {
        { "backend", required_argument, NULL, 'b' },
        { "device", required_argument, NULL, 'd' },
        { "nan-policy", required_argument, NULL, 'n' },
        { "strict", no_argument, NULL, 's' },
        { "case-timeout", required_argument, NULL, 'T' },
        { "reference-timeout", required_argument, NULL, 'R' },
        { "corpus", no_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    runner_options timeouts;
    runner_options_default(&timeouts);
    dmlc_error err;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            return EXIT_AGREE;
        } else if (ch == 'b' && !(r->vt = backend_select(optarg, &r->backend_args))) {
            fprintf(stderr, "dmlcheck exec: unknown backend '%s'\n", optarg);
            return EXIT_SETUP;
        } else if (ch == 'b') {
            r->backend_text = optarg;
        } else if (ch == 'd') {
            r->device = optarg;
        } else if (ch == 's') {
            r->strict = true;
        } else if (ch == 'C') {
            *corpus = true;
        } else if (ch == 'n' && !nan_policy_from_name(optarg, &r->opt.nan)) {
            fprintf(stderr, "dmlcheck exec: --nan-policy must be ignore or propagate, not '%s'\n", optarg);
            return EXIT_SETUP;
        } else if (ch == 'R' && !runner_parse_common(&timeouts, "reference-timeout", optarg, &err)) {
            fprintf(stderr, "dmlcheck exec: %s\n", err.msg);
            return EXIT_SETUP;
        } else if (ch == 'R') {
            r->reference_timeout_ms = timeouts.reference_timeout_ms;
        } else if (ch == 'T' && !runner_parse_common(&timeouts, "case-timeout", optarg, &err)) {
            fprintf(stderr, "dmlcheck exec: %s\n", err.msg);
            return EXIT_SETUP;
        } else if (ch == 'T') {
            r->case_timeout_ms = timeouts.case_timeout_ms;
        } else if (ch == '?') {
            usage(stderr);
            return EXIT_SETUP;
        }
    }
    if (optind >= argc && !*corpus) {
        usage(stderr);
        return EXIT_SETUP;
    }
    return -1;
}

/* The last line on stderr after several files, or a stop: "exec: 5 files: 3 agree, 1 fail,
 * 1 invalid", and "; stopped by a signal, K not checked" after a stop. */
static void print_summary(int count, const int tally[EXEC_OUTCOME_COUNT], bool stopped)
{
    fprintf(stderr, "exec: %d file%s", count, count == 1 ? "" : "s");
    const char *sep = ": ";
    for (int o = 0; o < EXEC_STOPPED; o++)
        if (tally[o]) {
            fprintf(stderr, "%s%d %s", sep, tally[o], exec_outcome_name((exec_outcome)o));
            sep = ", ";
        }
    if (stopped)
        fprintf(stderr, "%sstopped by a signal, %d not checked", sep[0] == ':' ? ": " : "; ",
                tally[EXEC_STOPPED]);
    fputc('\n', stderr);
}

/* Runs every file; returns the worst exit code (130 after a stop, which ends the loop). */
static int exec_files(exec_run *r, int count, char **files)
{
    int tally[EXEC_OUTCOME_COUNT] = { 0 }, worst = EXIT_AGREE;
    for (int i = 0; i < count; i++) {
        exec_outcome got = exec_case_file(r, files[i]);
        if (got != EXEC_STOPPED) {
            tally[got]++;
            if (exec_exit_code(got) > worst)
                worst = exec_exit_code(got);
        }
        if (r->stop && *r->stop) {
            tally[EXEC_STOPPED] = count - i - (got != EXEC_STOPPED);
            worst = EXIT_STOPPED;
            break;
        }
    }
    if (r->name_files || worst == EXIT_STOPPED)
        print_summary(count, tally, worst == EXIT_STOPPED);
    return worst;
}

int cmd_exec(int argc, char **argv)
{
    exec_run r = { .vt = backend_registry[0], .stop = &stop_requested };
    bool corpus = false;
    int parsed = parse_options(argc, argv, &r, &corpus);
    if (parsed >= 0)
        return parsed;
    glob_t found = { 0 };
    int count = argc - optind;
    char **files = argv + optind;
    if (corpus) {
        char pattern[PATH_MAX + 16];
        snprintf(pattern, sizeof pattern, "%s/*/*.json", corpus_dir());
        if (glob(pattern, 0, NULL, &found) != 0 || !found.gl_pathc) {
            fprintf(stderr, "dmlcheck exec: --corpus: no case files in %s (dmlcheck path corpus); "
                            "is dmlcheck installed? meson install -C build\n", corpus_dir());
            globfree(&found);
            return EXIT_SETUP;
        }
        files = malloc((size_t)(count + (int)found.gl_pathc) * sizeof *files);
        if (!files) {
            globfree(&found);
            fprintf(stderr, "dmlcheck exec: out of memory\n");
            return EXIT_SETUP;
        }
        memcpy(files, argv + optind, (size_t)count * sizeof *files);
        memcpy(files + count, found.gl_pathv, found.gl_pathc * sizeof *files);
        count += (int)found.gl_pathc;
    }
    struct sigaction sa = { .sa_handler = on_stop_signal }, ignore = { .sa_handler = SIG_IGN };
    struct sigaction old_int, old_term, old_pipe;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGPIPE, &ignore, &old_pipe); /* a dead worker must not kill us on write */
    dmlc_error err = { "" };
    int code;
    r.name_files = count > 1;
    if (exec_start(&r, &err)) {
        code = exec_files(&r, count, files);
    } else if (stop_requested) {
        fprintf(stderr, "dmlcheck exec: stopped by a signal while the backend opened\n");
        code = EXIT_STOPPED;
    } else {
        fprintf(stderr, "dmlcheck exec: cannot open backend %s: %s\n", r.vt->name, err.msg);
        code = EXIT_SETUP;
    }
    exec_stop(&r);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (corpus) {
        free(files);
        globfree(&found);
    }
    return code;
}
