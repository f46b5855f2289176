/*
 * cmd_export.c: `dmlcheck export gN:SEED:INDEX > case.json`: regenerates one case (with the
 * generator version and options the run used, checked as replay checks them) and writes it as a case file whose expected outputs are
 * the reference's, so `dmlcheck exec case.json` checks any backend against it.  No backend
 * runs here.  `dmlcheck export --family N` writes instead the smallest case shrinking stored
 * for family N of a results database (the numbering `run` and `report` print); `--out DIR`
 * writes every family's (or family N's) into DIR, one file each, never over an existing one.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "casefile.h"

#include <jansson.h>
#include "cli_args.h"
#include "families.h"
#include "reference.h"
#include "run_options.h"
#include "runner.h"
#include "worker.h"

int cmd_export(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f,
        "usage: dmlcheck export --family N [--probe K] [--db FILE] [--run ID | --all] > case.json\n"
        "       dmlcheck export --out DIR [--family N] [--db FILE] [--run ID | --all]\n"
        "       dmlcheck export gN:SEED:INDEX [--feature-level L] [--ops LIST] [--types LIST]\n"
        "                       [--max-elements N] [--reject-rate R] [--nan-policy ignore|propagate]\n"
        "                       [--db FILE] > case.json\n\n"
        "--family N writes the smallest case shrinking stored for family N (numbered as `run`\n"
        "and `report` number them) of the latest run of --db (default dmlcheck.sqlite), of run\n"
        "ID, or of every run.  --out DIR writes every shrunk family (or family N) into DIR,\n"
        "created if missing, as family-NN-KIND.json (family-01-tie_other_way.json); a file\n"
        "that exists is never overwritten: export stops there with exit 2, keeping the files\n"
        "written before it.  --family N --probe K writes the K-th probe its diagnosis asked (the\n"
        "root cause's evidence, `run` names how many) as a case file with the spec's answer.\n"
        "Writes case gN:SEED:INDEX as a case file with the reference's\n"
        "expected outputs.\n"
        "--backend, --device, --strict and --case-timeout are accepted (so a replay command's\n"
        "options can be reused) and ignored.\n\n"
        "gN is the generator version that drew the case; this dmlcheck draws versions %d to %d\n"
        "and refuses any other (exit 2).  A bare SEED:INDEX is exported as version %d with a\n"
        "warning.  --db FILE checks the id against the run that recorded it, as\n"
        "`dmlcheck replay --help` describes.\n", GEN_OLDEST_VERSION, GEN_VERSION, GEN_VERSION);
}

/* Probe K of family f's diagnosis as a case file on stdout; the exit code. */
static int write_probe(const family *f, int64_t number, int64_t probe)
{
    json_t *d = f->diagnosis ? json_loads(f->diagnosis, 0, NULL) : NULL;
    json_t *evidence = json_object_get(d, "evidence");
    json_t *file = json_object_get(json_array_get(evidence, (size_t)probe - 1), "case");
    int code = 2;
    char *text = json_is_object(file) ? json_dumps(file, JSON_REAL_PRECISION(CASEFILE_REAL_DIGITS))
                                      : NULL;
    if (!f->diagnosis)
        fprintf(stderr, "dmlcheck export: family %" PRId64 " was not diagnosed: it has no probes\n",
                number);
    else if (!text)
        fprintf(stderr, "dmlcheck export: family %" PRId64 "'s diagnosis has %zu probes, no probe %"
                PRId64 " with a case file\n", number, json_array_size(evidence), probe);
    else if (printf("%s\n", text) > 0 && fflush(stdout) == 0)
        code = 0;
    else
        perror("dmlcheck export: writing the case file");
    free(text);
    json_decref(d);
    return code;
}

static int export_family(int64_t number, int64_t probe, const char *db, int64_t run_id,
                         bool all_runs)
{
    family_list fams;
    dmlc_error err;
    if (!families_read_file(db, run_id, all_runs, &fams, &err)) {
        fprintf(stderr, "dmlcheck export: %s\n", err.msg);
        return 2;
    }
    int code = 2;
    char shown[CLI_SHOWN_MAX];
    if ((size_t)number > fams.count)
        fprintf(stderr, "dmlcheck export: %s has %zu families in the runs read, no family %" PRId64
                        "\n", err_printable(db, false, shown, sizeof shown), fams.count, number);
    else if (probe)
        code = write_probe(&fams.items[number - 1], number, probe);
    else if (!fams.items[number - 1].shrunk_case)
        fprintf(stderr, "dmlcheck export: family %" PRId64 " (%s %s %s) has no shrunk case: its "
                        "run did not shrink it (--shrink-budget 0, its time limit, or a stop); "
                        "export its smallest case by id, as `run` printed it\n", number,
                fams.items[number - 1].verdict, fams.items[number - 1].kind, fams.items[number - 1].op);
    else if (printf("%s\n", fams.items[number - 1].shrunk_case) > 0 && fflush(stdout) == 0)
        code = 0;
    else
        perror("dmlcheck export: writing the case file");
    families_free(&fams);
    return code;
}

/* Writes family i's shrunk case as DIR/family-NN-KIND.json unless that file exists; 0, 1
 * (nothing to write: not shrunk) or 2 (an error, said on stderr). */
static int write_family_file(const char *dir, size_t i, const family *f)
{
    if (!f->shrunk_case) {
        fprintf(stderr, "dmlcheck export: family %zu (%s %s %s) has no shrunk case; left out\n",
                i + 1, f->verdict, f->kind, f->op);
        return 1;
    }
    /* The kind comes from the database: only name characters reach the file name. */
    char kind[sizeof f->kind], path[4200];
    for (size_t k = 0; k < sizeof kind; k++) {
        char ch = f->kind[k];
        kind[k] = !ch || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ? ch : '_';
    }
    char shown[CLI_SHOWN_MAX]; /* the path as a terminal must see it */
    if ((size_t)snprintf(path, sizeof path, "%s/family-%02zu-%s.json", dir, i + 1, kind) >= sizeof path) {
        fprintf(stderr, "dmlcheck export: --out %s: too long a folder name for the files\n",
                err_printable(dir, false, shown, sizeof shown));
        return 2;
    }
    err_printable(path, false, shown, sizeof shown);
    FILE *out = fopen(path, "wx"); /* x: an existing file is an error, not overwritten */
    if (!out) {
        fprintf(stderr, "dmlcheck export: %s: %s%s\n", shown, strerror(errno),
                errno == EEXIST ? " (export never overwrites; remove it or choose another --out)" : "");
        return 2;
    }
    bool ok = fprintf(out, "%s\n", f->shrunk_case) > 0;
    ok = fclose(out) == 0 && ok;
    if (!ok) {
        fprintf(stderr, "dmlcheck export: writing %s: %s\n", shown, strerror(errno));
        return 2;
    }
    printf("%s\n", shown);
    return 0;
}

/* Every family's shrunk case (or family `number`'s when not 0) into dir. */
static int export_families_to(const char *dir, int64_t number, const char *db, int64_t run_id,
                              bool all_runs)
{
    char shown[CLI_SHOWN_MAX];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dmlcheck export: --out %s: %s\n", err_printable(dir, false, shown, sizeof shown),
                strerror(errno));
        return 2;
    }
    family_list fams;
    dmlc_error err;
    if (!families_read_file(db, run_id, all_runs, &fams, &err)) {
        fprintf(stderr, "dmlcheck export: %s\n", err.msg);
        return 2;
    }
    int code = 0;
    size_t written = 0;
    if ((size_t)number > fams.count) {
        fprintf(stderr, "dmlcheck export: %s has %zu families in the runs read, no family %" PRId64
                        "\n", err_printable(db, false, shown, sizeof shown), fams.count, number);
        code = 2;
    }
    for (size_t i = 0; i < fams.count && code != 2; i++) {
        if (number && (size_t)number != i + 1)
            continue;
        int one = write_family_file(dir, i, &fams.items[i]);
        written += one == 0;
        code = one == 2 ? 2 : code;
    }
    if (code != 2 && !written) {
        fprintf(stderr, "dmlcheck export: no shrunk case to write from %s\n",
                err_printable(db, false, shown, sizeof shown));
        code = 2;
    }
    families_free(&fams);
    return code;
}

/* `export --family N | --out DIR [--db FILE] [--run ID | --all]`; -1 when argv is neither. */
static int family_command(int argc, char **argv)
{
    bool family = false;
    for (int i = 1; i < argc && !family; i++)
        family = !strcmp(argv[i], "--family") || !strncmp(argv[i], "--family=", 9)
                 || !strcmp(argv[i], "--out") || !strncmp(argv[i], "--out=", 6);
    if (!family)
        return -1;
    static const struct option options[] = {
        { "family", required_argument, NULL, 'f' }, { "db", required_argument, NULL, 'd' },
        { "run", required_argument, NULL, 'r' },     { "all", no_argument, NULL, 'a' },
        { "out", required_argument, NULL, 'o' },     { "help", no_argument, NULL, 'h' },
        { "probe", required_argument, NULL, 'p' },   { NULL, 0, NULL, 0 },
    };
    int64_t number = 0, run_id = 0, probe = 0;
    const char *db = "dmlcheck.sqlite", *dir = NULL;
    bool all_runs = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        bool ok = c == 'd' || c == 'a' || c == 'o' || (c == 'f' && cli_parse_positive(optarg, &number))
                  || (c == 'r' && cli_parse_positive(optarg, &run_id))
                  || (c == 'p' && cli_parse_positive(optarg, &probe));
        if (c == 'd')
            db = optarg;
        if (c == 'o')
            dir = optarg;
        all_runs |= c == 'a';
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (!ok) {
            fprintf(stderr, "dmlcheck export: --family takes a family number, --run a run id, "
                            "--probe a probe number; with --family or --out, only --db, --run, "
                            "--all and --probe apply\n");
            return 2;
        }
    }
    if (optind < argc || (all_runs && run_id)) {
        fprintf(stderr, "dmlcheck export: --family N and --out DIR take no case id, and --run "
                        "and --all exclude each other\n");
        return 2;
    }
    if (probe && (dir || !number)) {
        fprintf(stderr, "dmlcheck export: --probe K needs --family N (one family's probe K)\n");
        return 2;
    }
    if (dir)
        return export_families_to(dir, number, db, run_id, all_runs);
    return export_family(number, probe, db, run_id, all_runs);
}

int cmd_export(int argc, char **argv)
{
    int by_family = family_command(argc, argv);
    if (by_family >= 0)
        return by_family;
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
