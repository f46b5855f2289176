/*
 * cmd_export.c: `dmlcheck export gN:SEED:INDEX > case.json`: regenerates one case (with the
 * generator version and options the run used, checked as replay checks them) and writes it as a case file whose expected outputs are
 * the reference's, so `dmlcheck exec case.json` checks any backend against it.  No backend
 * runs here.
 */
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
        "usage: dmlcheck export gN:SEED:INDEX [--feature-level L] [--ops LIST] [--types LIST]\n"
        "                       [--max-elements N] [--reject-rate R] [--nan-policy ignore|propagate]\n"
        "                       [--db FILE] > case.json\n\n"
        "Writes case gN:SEED:INDEX as a case file with the reference's expected outputs.\n"
        "--backend, --device, --strict and --case-timeout are accepted (so a replay command's\n"
        "options can be reused) and ignored.\n\n"
        "gN is the generator version that drew the case; this dmlcheck draws versions %d to %d\n"
        "and refuses any other (exit 2).  A bare SEED:INDEX is exported as version %d with a\n"
        "warning.  --db FILE checks the id against the run that recorded it, as\n"
        "`dmlcheck replay --help` describes.\n", GEN_OLDEST_VERSION, GEN_VERSION, GEN_VERSION);
}

int cmd_export(int argc, char **argv)
{
    runner_options o;
    runner_options_default(&o);
    uint64_t case_index;
    int parsed = runner_parse_case_command("export", argc, argv, usage, &o, &case_index);
    if (parsed >= 0)
        return parsed;
    dmlc_error err;
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
        char comment[160], name[GEN_CASE_ID_SIZE];
        gen_case_id id = { .version = o.gen.version, .seed = o.seed, .index = case_index };
        snprintf(comment, sizeof comment, "dmlcheck export %s: %s values, %s layout",
                 gen_format_case_id(&id, name, sizeof name), gen_distribution_name(info.dist),
                 gen_layout_name(info.layout));
        free(k.comment);
        k.comment = strdup(comment);
        /* A descriptor that must be refused has no answer to write. */
        if (!k.must_reject)
            ref_run(&k, &cfg.exec, &expected);
        json = casefile_write(&k, k.must_reject ? NULL : &expected);
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
