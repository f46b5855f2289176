/*
 * cmd_merge.c: `dmlcheck merge A.sqlite B.sqlite ... -o OUT.sqlite`: the work is
 * merge_databases()'s (results/merge.h); this parses the options and prints what came out.
 */
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_args.h"
#include "merge.h"

int cmd_merge(int argc, char **argv);

/* Set by SIGINT/SIGTERM: the merge stops and removes its temporary files. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: dmlcheck merge DB.sqlite... -o OUT.sqlite [--force] [--allow-mixed]\n"
        "                      [--expect-shards N]\n\n"
        "Combines results databases into a new one: the shards of one run (`dmlcheck run\n"
        "--shard K/N` with the same seed and options) become one run, which `dmlcheck report`\n"
        "reports as it would report the unsharded run; every other run stays a run of its own.\n"
        "Devices and signatures are deduplicated (signature counts summed), ids renumbered;\n"
        "case ids gN:SEED:INDEX and replay commands are unchanged.  An input of an older\n"
        "schema version is read through a migrated copy; no input is changed.\n\n"
        "  -o, --output FILE   the merged database; must not exist (or be empty)\n"
        "  --force             replace FILE if it exists\n"
        "  --allow-mixed       keep shards of different runs (another seed, build, option,\n"
        "                      backend, device or shard count) as runs of their own; without\n"
        "                      it a merge whose shards do not all form complete runs, and\n"
        "                      hold more than one run, is refused naming what differs\n"
        "  --expect-shards N   refuse unless the output is one finished run of shards 0..N-1\n"
        "                      (for automation: every shard came back, none twice or stale)\n\n"
        "OUT is written to a temporary file beside it and renamed when complete: after an error\n"
        "it is as it was.  Exit status: 0 merged, 2 usage error or an input that cannot be\n"
        "merged (missing, damaged, not a dmlcheck database, of a newer schema version, a shard\n"
        "given twice, shards of different runs, or not the set --expect-shards names).\n");
}

int cmd_merge(int argc, char **argv)
{
    static const struct option options[] = {
        { "output", required_argument, NULL, 'o' }, { "force", no_argument, NULL, 'f' },
        { "allow-mixed", no_argument, NULL, 'm' },  { "expect-shards", required_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },         { 0, 0, 0, 0 },
    };
    merge_rules rules = { 0 };
    char *end;
    unsigned long n;
    const char *out = NULL;
    bool force = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': force = true; break;
        case 'm': rules.allow_mixed = true; break;
        case 'e':
            n = strtoul(optarg, &end, 10);
            if (*optarg < '1' || *optarg > '9' || *end || n > 1000000) {
                fprintf(stderr, "dmlcheck merge: bad value '%s' for --expect-shards\n", optarg);
                return 2;
            }
            rules.expect_shards = (unsigned)n;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!out || optind >= argc) {
        fprintf(stderr, "dmlcheck merge: %s\n", !out ? "-o OUT.sqlite is required"
                                                      : "no input databases given");
        return 2;
    }
    merge_summary sum;
    dmlc_error err;
    struct sigaction sa = { .sa_handler = on_stop_signal }, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    bool merged = merge_databases_checked((const char *const *)argv + optind,
                                          (size_t)(argc - optind), out, force, &rules, stderr,
                                          &stop_requested, &sum, &err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!merged) {
        fprintf(stderr, "dmlcheck merge: %s\n", err.msg);
        return stop_requested ? 130 : 2;
    }
    char shown[CLI_SHOWN_MAX]; /* the name as a terminal must see it: text, no escapes */
    printf("merged %d database%s: %zu run%s in, %zu out; %" PRIu64 " cases, %zu signatures, "
           "%zu device%s into %s\n", argc - optind, argc - optind == 1 ? "" : "s", sum.runs_read,
           sum.runs_read == 1 ? "" : "s", sum.runs_written, sum.cases, sum.signatures, sum.devices,
           sum.devices == 1 ? "" : "s", err_printable(out, false, shown, sizeof shown));
    return 0;
}
