/*
 * cmd_export.c: `dmlcheck export SEED:INDEX > case.json`: regenerates one case (with the
 * generator options the run used) and writes it as a case file whose expected outputs are
 * the reference's, so `dmlcheck exec case.json` checks any backend against it.  No backend
 * runs here.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "reference.h"
#include "runner.h"
#include "worker.h"

int cmd_export(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f,
        "usage: dmlcheck export SEED:INDEX [--feature-level L] [--ops LIST] [--types LIST]\n"
        "                       [--max-elements N] [--nan-policy ignore|propagate] > case.json\n\n"
        "Writes case SEED:INDEX as a case file with the reference's expected outputs.\n"
        "--backend, --device and --strict are accepted (so a replay command's options can be\n"
        "reused) and ignored.\n");
}

int cmd_export(int argc, char **argv)
{
    static const struct option options[] = {
        { "backend", required_argument, NULL, 0 },   { "device", required_argument, NULL, 0 },
        { "feature-level", required_argument, NULL, 0 }, { "ops", required_argument, NULL, 0 },
        { "types", required_argument, NULL, 0 },     { "max-elements", required_argument, NULL, 0 },
        { "nan-policy", required_argument, NULL, 0 }, { "strict", no_argument, NULL, 0 },
        { "help", no_argument, NULL, 'h' },          { 0, 0, 0, 0 },
    };
    runner_options o;
    runner_options_default(&o);
    dmlc_error err;
    int index, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, &index)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c != 0) {
            usage(stderr);
            return 2;
        }
        if (!runner_parse_common(&o, options[index].name, optarg, &err)) {
            fprintf(stderr, "dmlcheck export: %s\n", err.msg);
            return 2;
        }
    }
    uint64_t case_index;
    if (optind != argc - 1 || !gen_parse_case_id(argv[optind], &o.seed, &case_index)) {
        fprintf(stderr, "dmlcheck export: give one case id SEED:INDEX\n");
        usage(stderr);
        return 2;
    }
    worker_config cfg = { .seed = o.seed, .gen = o.gen, .exec = { .nan = o.nan } };
    dml_case k;
    gen_info info;
    case_outputs expected = { 0 };
    char *json = NULL;
    int code = 2;
    if (!worker_generate(&cfg, case_index, &k, &info, &err))
        fprintf(stderr, "dmlcheck export: %s\n", err.msg);
    else if (!case_outputs_alloc(&expected, &k))
        fprintf(stderr, "dmlcheck export: out of memory\n");
    else {
        char comment[160];
        snprintf(comment, sizeof comment, "dmlcheck export %s: %s values, %s layout", argv[optind],
                 gen_distribution_name(info.dist), gen_layout_name(info.layout));
        free(k.comment);
        k.comment = strdup(comment);
        ref_run(&k, &cfg.exec, &expected);
        json = casefile_write(&k, &expected);
        if (!json)
            fprintf(stderr, "dmlcheck export: out of memory writing the case file\n");
        else if (fputs(json, stdout) >= 0 && fputc('\n', stdout) != EOF && fflush(stdout) == 0)
            code = 0;
        else
            perror("dmlcheck export: writing the case file");
    }
    free(json);
    case_outputs_free(&expected);
    case_free(&k);
    return code;
}
