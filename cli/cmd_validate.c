/*
 * cmd_validate.c: `dmlcheck validate`: checks case files against DirectML's rules (the
 * validator, model/validate.c and the operator modules) at a feature level: the one given with --feature-level, else
 * the file's, else the lowest level dmlcheck tests at which the case is valid.  Prints
 * "FILE: valid at L" on stdout; an invalid or unreadable file gets the message on stderr,
 * followed by the command that replays it.  Exit 0 all valid, 2 any invalid or unreadable.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "cli_args.h"
#include "replay.h"
#include "validate.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck validate [--feature-level L] FILE...\n\n"
            "Checks each case file against DirectML's rules for its operator.  The level is\n"
            "--feature-level when given (e.g. 4_1, 4.1 or DML_FEATURE_LEVEL_4_1), else the file's\n"
            "\"feature_level\", else the lowest level dmlcheck tests (2_0, 2_1, 3_0, 4_1, 5_0) at which\n"
            "the case is valid; a later level behaves as its highest known predecessor.\n\n"
            "options:\n"
            "  --feature-level L  validate at level L\n"
            "  -h, --help         this text\n\n"
            "exit status: 0 every file is valid, 2 a file is invalid, unreadable or malformed\n");
}

/* The replay line, as long as the file name needs: quoted, a byte takes at most 10 characters
 * ($'\xHH' between closed and reopened quotes). */
static void print_replay(const char *level, const char *file)
{
    size_t size = 64 + 10 * (strlen(file) + (level ? strlen(level) : 0));
    char *line = malloc(size);
    if (!line) {
        fprintf(stderr, "replay: (out of memory writing the command)\n");
        return;
    }
    snprintf(line, size, "dmlcheck validate");
    if (level) {
        replay_append_arg(line, size, "--feature-level");
        replay_append_arg(line, size, level);
    }
    replay_append_arg(line, size, file);
    fprintf(stderr, "replay: %s\n", line);
    free(line);
}

/* 0 when valid, 2 otherwise. */
static int validate_file(const char *file, const char *level_name, DML_FEATURE_LEVEL level)
{
    dml_case c;
    dmlc_error err;
    case_init(&c);
    char shown[CLI_SHOWN_MAX]; /* the name as a terminal must see it: text, no escapes */
    err_printable(file, false, shown, sizeof shown);
    if (!casefile_load(file, &c, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        print_replay(level_name, file);
        return 2;
    }
    if (level) {
        c.feature_level = level;
        case_link(&c);
    }
    int rc = 0;
    if (validate_case(&c, &err)) {
        printf("%s: valid at %s\n", shown, fl_name(c.feature_level));
    } else {
        if (c.feature_level)
            fprintf(stderr, "%s: invalid at %s: %s\n", shown, fl_name(c.feature_level), err.msg);
        else
            fprintf(stderr, "%s: %s\n", shown, err.msg); /* "invalid at every level ..." */
        print_replay(level_name, file);
        rc = 2;
    }
    case_free(&c);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option options[] = {
        { "feature-level", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    DML_FEATURE_LEVEL level = 0;
    const char *level_name = NULL;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            return 0;
        } else if (ch == 'l') {
            if (!fl_from_name(optarg, &level)) {
                fprintf(stderr, "dmlcheck validate: unknown feature level '%s' (1_0 to 6_4)\n", optarg);
                return 2;
            }
            level_name = optarg;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    int worst = 0;
    for (int i = optind; i < argc; i++)
        if (validate_file(argv[i], level_name, level))
            worst = 2;
    return worst;
}
