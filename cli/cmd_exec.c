/*
 * cmd_exec.c: `dmlcheck exec`: runs case files on a backend.  For each file: read it, validate
 * it (at its feature level, or the lowest level where it is valid), then check it (check.h):
 * the backend's outputs are printed as one JSON line on stdout and judged bit-exactly (NaN by
 * NaN-ness) against the reference and, where the file holds expected outputs, against those,
 * which are exact (no class excuses a difference from them; a device that may flush fp32
 * denormals passes with the flushed answer, SEMANTICS D6).  Diagnostics are the check's
 * explanation on stderr, each ending with the command that replays it.
 * Exit status: 0 all agree, 1 a mismatch or a misbehaving backend, 2 a usage, file or
 * validation error (the worst over all files).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd_exec.h"

#include "casefile.h"
#include "check.h"
#include "replay.h"
#include "validate.h"

/* A judged mismatch exits 1 through check_exit_code. */
enum { EXIT_AGREE = 0, EXIT_SETUP = 2 };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck exec [--backend NAME] [--device SEL] [--nan-policy ignore|propagate] FILE...\n\n"
            "Runs each case file on a backend and prints its outputs as one JSON line per file:\n"
            "  {\"output\": [...], \"indices\": [...]}\n"
            "Compares bit-exactly (NaN by NaN-ness) with the reference and, where a file holds\n"
            "\"expected\", with that, and names the first differing element.  A case without\n"
            "\"feature_level\" runs at the lowest level where it is valid.\n\n"
            "options:\n"
            "  --backend NAME       implementation under test (default: reference); one of:");
    for (size_t i = 0; backend_registry[i]; i++)
        fprintf(f, " %s", backend_registry[i]->name);
    fprintf(f, "\n"
            "  --device SEL         device selector passed to the backend\n"
            "  --nan-policy POLICY  ignore (default: NaN never beats a number) or propagate\n"
            "                       (NaN beats everything); see docs/SEMANTICS.md D4\n"
            "  -h, --help           this text\n\n"
            "exit status: 0 every file agrees (or was skipped: outside what the backend claims,\n"
            "or a must-reject case for a backend that does not validate; or differs from the\n"
            "reference only where DirectML's spec is silent: \"unspecified\"),\n"
            "1 a mismatch or a backend misbehaved (error, crash, hang, write out of bounds, input\n"
            "modified, UNSUPPORTED for what it claims, INVALID for a valid descriptor, a run of\n"
            "one DirectML must refuse),\n"
            "2 usage, unreadable or invalid case file (worst over all files)\n");
}

/* "dmlcheck exec --backend NAME [options] FILE", each argument quoted for the shell. */
static const char *replay_command(const exec_run *r, const char *file, char *line, size_t size)
{
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
    replay_append_arg(line, size, file);
    return line;
}

/* The outputs as one JSON line, whenever the backend produced some (a write out of bounds or
 * into the input still leaves outputs worth seeing). */
static void print_outputs(const exec_run *r, const dml_case *c, const check_answer *a)
{
    /* Only these statuses come with outputs the backend wrote. */
    bool wrote = a->status == RUN_OK || a->status == RUN_OUT_OF_BOUNDS_WRITE
        || a->status == RUN_INPUT_MODIFIED;
    if (a->died != KIND_NONE || !wrote || c->must_reject) /* a refused case has no outputs */
        return;
    char *line = casefile_outputs_json(c, &a->outputs);
    FILE *out = r->out ? r->out : stdout;
    fprintf(out, "%s\n", line ? line : "{}");
    fflush(out);
    free(line);
}

/* The check's explanation on stderr after the file name, unless the case simply passed. */
static void explain(const exec_run *r, const char *file, const dml_case *c, const check_result *res)
{
    if (res->j.verdict == VERDICT_PASS && !res->flushed_pass)
        return;
    /* Room for a quoted PATH_MAX file name, backend text and device: the line is never cut. */
    char line[32768], text[sizeof line + 4096];
    check_explain(c, res, replay_command(r, file, line, sizeof line), text, sizeof text);
    fprintf(stderr, "%s: %s", file, text);
}

/* Checks one valid case on the backend against the reference and the file's expected arrays. */
static int run_case(const exec_run *r, const char *file, const dml_case *c)
{
    check_options opt = { .exec = r->opt, .rules = { .device_flushes = r->flushes_denormals } };
    checker k;
    check_result res;
    dmlc_error err = { "" };
    int rc;
    check_init(&k, r->vt, r->b, &opt);
    if (!check_case(&k, c, &res, &err)) {
        fprintf(stderr, "%s: %s\n", file, err.msg);
        rc = EXIT_SETUP;
    } else {
        print_outputs(r, c, &k.last);
        explain(r, file, c, &res);
        rc = check_exit_code(&res);
    }
    check_fini(&k);
    return rc;
}

int exec_case_file(const exec_run *r, const char *file)
{
    dml_case c;
    dmlc_error err;
    case_init(&c);
    /* A file that cannot be read or describes no valid case is a setup error: the message
     * says what to fix in the file; a replay line would replay nothing. */
    if (!casefile_load(file, &c, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return EXIT_SETUP;
    }
    int rc;
    bool valid = validate_case(&c, &err);
    if (c.must_reject && valid) {
        /* The file claims DirectML refuses it; dmlcheck's rules say otherwise. */
        fprintf(stderr, "%s: must_reject, but DirectML's rules (as dmlcheck knows them) accept it "
                        "at %s\n", file, fl_name(c.feature_level));
        rc = EXIT_SETUP;
    } else if (c.must_reject) {
        rc = run_case(r, file, &c); /* the backend must refuse it too */
    } else if (!valid) {
        /* Without a level the validator's message already says "invalid at every level". */
        if (c.feature_level)
            fprintf(stderr, "%s: invalid at %s: %s\n", file, fl_name(c.feature_level), err.msg);
        else
            fprintf(stderr, "%s: %s\n", file, err.msg);
        rc = EXIT_SETUP;
    } else {
        rc = run_case(r, file, &c);
    }
    case_free(&c);
    return rc;
}

int cmd_exec(int argc, char **argv)
{
    static const struct option options[] = {
        { "backend", required_argument, NULL, 'b' },
        { "device", required_argument, NULL, 'd' },
        { "nan-policy", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    exec_run r = { .vt = backend_registry[0] };
    const char *args = NULL;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            return EXIT_AGREE;
        } else if (ch == 'b' && !(r.vt = backend_select(optarg, &args))) {
            fprintf(stderr, "dmlcheck exec: unknown backend '%s'\n", optarg);
            return EXIT_SETUP;
        } else if (ch == 'b') {
            r.backend_text = optarg;
        } else if (ch == 'd') {
            r.device = optarg;
        } else if (ch == 'n' && !nan_policy_from_name(optarg, &r.opt.nan)) {
            fprintf(stderr, "dmlcheck exec: --nan-policy must be ignore or propagate, not '%s'\n", optarg);
            return EXIT_SETUP;
        } else if (ch == '?') {
            usage(stderr);
            return EXIT_SETUP;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return EXIT_SETUP;
    }
    dmlc_error err = { "" };
    if (!(r.b = r.vt->open(r.device, args, &err))) {
        fprintf(stderr, "dmlcheck exec: cannot open backend %s: %s\n", r.vt->name, err.msg);
        return EXIT_SETUP;
    }
    backend_info info;
    r.vt->info(r.b, &info);
    r.flushes_denormals = info.flushes_denormals;
    int worst = EXIT_AGREE;
    for (int i = optind; i < argc; i++) {
        int rc = exec_case_file(&r, argv[i]);
        if (rc > worst)
            worst = rc;
    }
    r.vt->close(r.b);
    return worst;
}
