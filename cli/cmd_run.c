/*
 * cmd_run.c: `dmlcheck run`: option parsing, the seed, signals and the terminal; the work
 * is runner_run()'s.  The seed is printed first so any run can be repeated with --seed.
 * SIGINT/SIGTERM only set a flag: the runner drops the case in flight (within ~100 ms, even
 * on a slow backend), commits what it recorded, marks the run interrupted, and run exits 130.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtype.h"
#include "report_model.h"
#include "run_options.h"
#include "runner.h"
#include "store.h"

/* What a level that lacks cases needs: its required cells short of min_cases judged cases,
 * how many cases in all would, at this run's rate, judge each of those that ran any
 * min_cases times, and those no run length helps (every case skipped by the backend) or
 * that were never drawn. */
typedef struct level_needs {
    size_t short_cells, skipped_cells, undrawn_cells;
    size_t unclaimed_cells; /* beyond the backend's claims, never run: not short */
    uint64_t cases_needed; /* 0: no short cell ran a judged case */
} level_needs;

static level_needs needs_of_level(const report_model *m, DML_FEATURE_LEVEL fl)
{
    level_needs n = { 0 };
    for (size_t i = 0; i < m->cell_count; i++) {
        const report_cell *c = &m->cells[i];
        uint64_t judged = c->n.passed + c->n.failed;
        if (c->key.fl != fl || !c->required || c->status != REPORT_CELL_FEW)
            continue;
        if (!c->claimed && judged == 0) {
            n.unclaimed_cells++;
            continue;
        }
        n.short_cells++;
        if (judged == 0) {
            n.skipped_cells += c->n.run > 0;
            n.undrawn_cells += c->n.run == 0;
            continue;
        }
        uint64_t total = (m->min_cases * m->total_cases + judged - 1) / judged;
        n.cases_needed = total > n.cases_needed ? total : n.cases_needed;
    }
    return n;
}

static void print_level_outlook(const report_model *m, const report_verdict *v,
                                const runner_options *o)
{
    level_needs n = needs_of_level(m, v->fl);
    /* A shard judges about 1/N of each cell's cases: its short cells may be long enough once
     * merged.  Its rate per case is the whole run's, so `needed` is the whole run's --cases. */
    if (o->shard_count)
        printf("outlook %s, shard %" PRIu64 "/%" PRIu64 " alone (its cells hold about 1/%" PRIu64
               " of the merged run's; `dmlcheck report` on the merged shards judges them)",
               fl_name(v->fl), o->shard_index, o->shard_count, o->shard_count);
    else
        printf("outlook %s", fl_name(v->fl));
    printf(": %zu of %zu required cells have fewer than %u judged cases", n.short_cells,
           v->required_cells, m->min_cases);
    if (n.cases_needed)
        printf("; at this run's rate about %" PRIu64 " cases in all judge each of the others "
               "%u times (--cases %" PRIu64 "%s)", n.cases_needed, m->min_cases, n.cases_needed,
               o->shard_count ? ", which counts every shard's cases" : "");
    if (n.skipped_cells)
        printf("; %zu ran none of their cases (the backend skipped them: not claimed or "
               "unsupported; no run length helps)", n.skipped_cells);
    if (n.undrawn_cells)
        printf("; %zu were never drawn (this run's --types or --ops left them out, or they are "
               "rare: --types and --ops draw them more often)", n.undrawn_cells);
    if (n.unclaimed_cells)
        printf("; %zu more are not claimed by the backend", n.unclaimed_cells);
    printf("\n");
}

/* One line per operator, when some case of the run held a NaN: "nan policy ARGMAX: FLOAT32
 * ignore (4 NaN cases); FLOAT16 no NaN cases" (the report's fingerprints, by operator). */
static void print_nan_prints(const report_model *m)
{
    for (size_t i = 0; report_has_nan_cases(m) && i < m->nan_print_count; i++) {
        const report_nan_fingerprint *f = &m->nan_prints[i];
        bool first_of_op = i == 0 || m->nan_prints[i - 1].op != f->op
                           || strcmp(m->nan_prints[i - 1].subject, f->subject);
        bool last_of_op = i + 1 == m->nan_print_count || m->nan_prints[i + 1].op != f->op
                          || strcmp(m->nan_prints[i + 1].subject, f->subject);
        char text[512];
        if (first_of_op)
            printf("nan policy %s:", op_table[f->op].name);
        printf("%s %s %s", first_of_op ? "" : ";", dtype_name(f->input),
               report_nan_fingerprint_text(f, false, text, sizeof text));
        if (last_of_op)
            printf("\n");
    }
}

/* The run's verdicts as the report judges them (so both say the same); false on error. */
static bool load_verdicts(report_model *m, const char *db, int64_t run_id, unsigned min_cases)
{
    dmlc_error err;
    report_model_init(m);
    m->min_cases = min_cases;
    if ((m->title = report_strdup("outlook")) && report_load_verdicts(m, db, run_id, &err)
        && report_model_finish(m, &err))
        return true;
    fprintf(stderr, "dmlcheck run: the run's verdicts could not be read: %s\n", err.msg);
    return false;
}

/* After a run: for each level that cannot reach a verdict for lack of cases, what it needs
 * (the report's own judgement of the run, so both say the same); then its NaN-policy
 * fingerprints. */
static void print_outlook(const runner_options *o, int64_t run_id, unsigned min_cases)
{
    if (store_path_in_memory(o->db_path)) {
        printf("outlook: none (the results were kept in memory and are gone with the run)\n");
        return;
    }
    report_model m;
    if (load_verdicts(&m, o->db_path, run_id, min_cases)) {
        char line[600];
        for (size_t i = 0; i < m.verdict_count; i++)
            if (m.verdicts[i].kind == REPORT_VERDICT_INSUFFICIENT && m.verdicts[i].few_cells)
                print_level_outlook(&m, &m.verdicts[i], o);
        if (report_claims_line(&m, line, sizeof line)[0])
            printf("%s\n", line);
        print_nan_prints(&m);
    }
    report_model_free(&m);
}

/* Going on until a verdict (runner_options.more_cases): while a level without failures lacks
 * judged cases in cells that ran some (a failing level has its verdict already), run to the
 * largest count its cells need at the run's rate (at least a tenth more, so that an estimate
 * a little short still makes progress), up to max_cases. */
typedef struct go_on_rule {
    unsigned min_cases;
    uint64_t max_cases;
} go_on_rule;

static uint64_t cases_for_a_verdict(void *ctx, const char *db, int64_t run_id, uint64_t done)
{
    const go_on_rule *rule = ctx;
    report_model m;
    uint64_t needed = 0;
    char levels[64] = "";
    size_t short_cells = 0, level_count = 0;
    if (done >= rule->max_cases)
        return 0;
    if (!load_verdicts(&m, db, run_id, rule->min_cases)) {
        report_model_free(&m);
        return 0;
    }
    for (size_t i = 0; i < m.verdict_count; i++) {
        /* The run is unfinished (INCOMPLETE RUN) until it ends: judge by the cells. */
        const report_verdict *v = &m.verdicts[i];
        if (!v->few_cells || v->fail_cells || v->error_cells)
            continue;
        level_needs n = needs_of_level(&m, m.verdicts[i].fl);
        if (!n.cases_needed)
            continue;
        needed = n.cases_needed > needed ? n.cases_needed : needed;
        short_cells += n.short_cells - n.skipped_cells - n.undrawn_cells;
        level_count++;
        size_t used = strlen(levels);
        snprintf(levels + used, sizeof levels - used, "%s%s", used ? ", " : "", fl_name(m.verdicts[i].fl));
    }
    unsigned min_cases = m.min_cases;
    report_model_free(&m);
    if (!needed)
        return 0;
    uint64_t target = needed > done + done / 10 ? needed : done + done / 10;
    target = target < rule->max_cases ? target : rule->max_cases;
    printf("going on to %" PRIu64 " cases: level%s %s %s %zu required cell%s with fewer than %u "
           "judged cases (--max-cases %" PRIu64 " caps this; --cases N alone runs exactly N)\n",
           target, level_count == 1 ? "" : "s", levels, level_count == 1 ? "has" : "have",
           short_cells, short_cells == 1 ? "" : "s", min_cases, rule->max_cases);
    fflush(stdout);
    return target;
}

int cmd_run(int argc, char **argv);

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: dmlcheck run [--backend NAME] [--device SEL] [--feature-level L] [--ops LIST]\n"
        "                    [--types LIST] [--cases N | --time SECONDS] [--seed S] [--db FILE]\n"
        "                    [--shard K/N | --jobs N]\n"
        "                    [--strict] [--max-elements N] [--reject-rate R] [--inputs-per-desc K]\n"
        "                    [--nan-policy ignore|propagate]\n"
        "                    [--dry-run] [--case-timeout MS] [--batch N] [--shrink-budget N]\n"
        "                    [--no-diagnose]\n"
        "                    [--shrink-time SECONDS] [--reference-timeout MS]\n"
        "                    [--until-verdict] [--min-cases N] [--max-cases N]\n\n"
        "Generates cases SEED:0, SEED:1, ..., runs each on the reference and on the backend,\n"
        "compares bit-exactly and records every case in the results database.\n\n"
        "  --backend NAME        implementation under test (default: opencl when built, else reference)\n"
        "  --device SEL          backend device selector (OpenCL: P:D, a name, or oclgrind\n"
        "                        for Oclgrind's memory, race and uninitialised-value checks)\n"
        "  --feature-level L     only this tested level (2_0, 2_1, 3_0, 4_1, 5_0; another is\n"
        "                        refused, naming the tested one whose rules it has); default: all\n"
        "  --ops LIST            operators, e.g. argmax,max_pooling2; default: all\n"
        "  --types LIST          input data types, e.g. FLOAT16,u8; default: all\n"
        "  --cases N             number of cases (default: 10000, then --until-verdict)\n"
        "  --time SECONDS        run for this long instead\n"
        "  --until-verdict       after the cases, go on while a feature level lacks judged\n"
        "                        cases: to the count its required cells need at the run's\n"
        "                        rate (the default when neither --cases nor --time is given)\n"
        "  --min-cases N         judged cases a required cell needs (default 20, as report)\n"
        "  --max-cases N         --until-verdict stops here (default 100000)\n"
        "  --seed S              seed (default: from the clock; printed first)\n"
        "  --db FILE             results database (default dmlcheck.sqlite); runs append\n"
        "  --shard K/N           run shard K of N (K = 0..N-1): the case indices i of the seed\n"
        "                        with i mod N == K; --cases counts the whole run's cases (each\n"
        "                        shard runs its share), --time is per shard; case ids and\n"
        "                        replay lines are the whole run's; `dmlcheck merge` combines\n"
        "                        the shards' databases into one run (give every shard the\n"
        "                        same --seed and options)\n"
        "  --jobs N              run as N shard processes at once (default 1; 0: one per\n"
        "                        online CPU), merged into --db as one run when they end:\n"
        "                        the same rows, verdicts, signatures and families as one\n"
        "                        process; their databases wait in a folder beside --db\n"
        "  --strict              judge the nan, denormal and padding_window classes too\n"
        "  --max-elements N      input element budget per case, every size tier included\n"
        "                        (default 3145728; 4096 keeps every case in the small tiers)\n"
        "  --reject-rate R       cases per thousand whose descriptor DirectML requires to be\n"
        "                        refused (default 20; 0 for none): a backend that validates\n"
        "                        passes by refusing them, a backend that does not skips them\n"
        "  --inputs-per-desc K   K consecutive cases share one descriptor, each with its own\n"
        "                        inputs (default 1): backends that compile per descriptor do\n"
        "                        so once per K cases\n"
        "  --nan-policy P        NaN rule the reference follows (default ignore)\n"
        "  --dry-run             generate only; print the generator's coverage table\n"
        "  --case-timeout MS     per-case limit before a case counts as a hang (default 10000),\n"
        "                        plus 10 us per input element of the case\n"
        "  --reference-timeout MS  limit of one case's reference computation (default 300000);\n"
        "                        a case past it is recorded as not checked (verdict error)\n"
        "  --batch N             cases per worker request (default 128)\n"
        "  --shrink-budget N     backend runs spent minimizing each new signature (default 300)\n"
        "  --shrink-time S       seconds all shrinking may take (default 60); candidates past\n"
        "                        it are not run, the families left keep their first case\n"
        "  --no-diagnose         do not probe each new family's root cause after shrinking\n"
        "                        (docs/DIAGNOSIS.md); its rows keep their generic kind\n\n"
        "Ctrl-C (SIGINT) or SIGTERM stops the run within about a second, even in the middle of a\n"
        "long case: the case in flight is dropped, every case checked before it is committed, and\n"
        "the run is stored as interrupted (its report says INCOMPLETE RUN).\n\n"
        "Exit status: 0 no mismatch in a judged class, 1 mismatches, 2 usage or setup error,\n"
        "130 stopped by SIGINT or SIGTERM.\n");
}

static const backend_vtable *default_backend(void)
{
    const backend_vtable *b = backend_find("opencl");
    return b ? b : backend_registry[0];
}

/* The argv as one line, for the runs table. */
static char *join_args(int argc, char **argv)
{
    size_t n = 16;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = malloc(n);
    if (!s)
        return NULL;
    strcpy(s, "dmlcheck");
    for (int i = 0; i < argc; i++) {
        strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static bool parse_count(const char *text, uint64_t *v)
{
    char *end;
    if (!text || !*text || *text == '-')
        return false;
    *v = strtoull(text, &end, 0);
    return *end == 0;
}

static uint64_t seed_from_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Milliseconds since the epoch: distinct per run and short enough to type back. */
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* --jobs 0 is one per online CPU; more shards than cases would leave some without one.
 * False (said) when --jobs meets --shard. */
static bool resolve_jobs(const runner_options *o, uint64_t *jobs)
{
    if (*jobs == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        *jobs = cpus > 0 ? (uint64_t)cpus : 1;
    }
    if (o->cases && *jobs > o->cases)
        *jobs = o->cases;
    if (*jobs > 1 && o->shard_count) {
        fprintf(stderr, "dmlcheck run: --jobs shards the run itself; with --shard K/N, start "
                "one process per shard (deploy/slurm/ does)\n");
        return false;
    }
    return true;
}

int cmd_run(int argc, char **argv)
{
    static const struct option options[] = {
        { "backend", required_argument, NULL, 0 },   { "device", required_argument, NULL, 0 },
        { "feature-level", required_argument, NULL, 0 }, { "ops", required_argument, NULL, 0 },
        { "types", required_argument, NULL, 0 },     { "max-elements", required_argument, NULL, 0 },
        { "reject-rate", required_argument, NULL, 0 }, { "inputs-per-desc", required_argument, NULL, 0 },
        { "nan-policy", required_argument, NULL, 0 }, { "strict", no_argument, NULL, 0 },
        { "cases", required_argument, NULL, 'n' },   { "time", required_argument, NULL, 't' },
        { "seed", required_argument, NULL, 's' },    { "db", required_argument, NULL, 'd' },
        { "dry-run", no_argument, NULL, 'D' },       { "case-timeout", required_argument, NULL, 'T' },
        { "batch", required_argument, NULL, 'b' },   { "shrink-budget", required_argument, NULL, 'S' },
        { "shrink-time", required_argument, NULL, 'W' }, { "reference-timeout", required_argument, NULL, 0 },
        { "until-verdict", no_argument, NULL, 'U' }, { "min-cases", required_argument, NULL, 'm' },
        { "max-cases", required_argument, NULL, 'M' }, { "no-diagnose", no_argument, NULL, 'G' },
        { "shard", required_argument, NULL, 'K' },  { "jobs", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },          { 0, 0, 0, 0 },
    };
    runner_options o;
    runner_options_default(&o);
    o.backend = default_backend();
    o.db_path = "dmlcheck.sqlite";
    bool seed_given = false, until_verdict = false;
    go_on_rule rule = { .min_cases = REPORT_DEFAULT_MIN_CASES, .max_cases = 100000 };
    uint64_t v = 0, jobs = 1;
    dmlc_error err;
    int index, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, &index)) != -1) {
        bool ok = true;
        switch (c) {
        case 0: ok = runner_parse_common(&o, options[index].name, optarg, &err); break;
        case 'n': ok = parse_count(optarg, &o.cases) && o.cases > 0; break;
        case 't': o.time_s = strtod(optarg, NULL); ok = o.time_s > 0; break;
        case 's': ok = parse_count(optarg, &o.seed); seed_given = ok; break;
        case 'd': o.db_path = optarg; break;
        case 'D': o.dry_run = true; break;
        case 'T': ok = parse_count(optarg, &v) && v > 0 && v < 86400000; o.case_timeout_ms = (unsigned)v; break;
        case 'b': ok = parse_count(optarg, &v) && v > 0 && v <= 65536; o.batch = (unsigned)v; break;
        case 'S': ok = parse_count(optarg, &v) && v < 1000000; o.shrink_budget = (unsigned)v; break;
        case 'W': ok = parse_count(optarg, &v) && v <= 86400; o.shrink_seconds = (double)v; break;
        case 'U': until_verdict = true; break;
        case 'G': o.diagnose = false; break;
        case 'm': ok = parse_count(optarg, &v) && v > 0 && v <= 1000000; rule.min_cases = (unsigned)v; break;
        case 'M': ok = parse_count(optarg, &rule.max_cases) && rule.max_cases > 0; break;
        case 'K': ok = runner_parse_shard(&o, optarg, &err); break;
        case 'j': ok = parse_count(optarg, &jobs) && jobs <= 1024; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (!ok) {
            if (c == 0 || c == 'K')
                fprintf(stderr, "dmlcheck run: %s\n", err.msg);
            else
                fprintf(stderr, "dmlcheck run: bad value '%s' for --%s\n", optarg,
                        options[index].name ? options[index].name : "?");
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dmlcheck run: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (o.cases && o.time_s > 0) { /* which would end the run is a guess nobody should make */
        fprintf(stderr, "dmlcheck run: --cases and --time are exclusive: give one\n");
        return 2;
    }
    if (until_verdict && o.time_s > 0) {
        fprintf(stderr, "dmlcheck run: --until-verdict goes on from --cases, not from --time\n");
        return 2;
    }
    if (!o.cases && o.time_s <= 0) {
        o.cases = 10000;
        until_verdict = !o.shard_count; /* a shard's cells hold 1/N of the run's: merge judges */
    }
    if (!resolve_jobs(&o, &jobs))
        return 2;
    if (until_verdict && o.shard_count) {
        fprintf(stderr, "dmlcheck run: --until-verdict judges one database; shards run exactly "
                "--cases: merge them (dmlcheck merge), report, and run more shards if it says so\n");
        return 2;
    }
    if (o.shard_count && o.cases && o.shard_index >= o.cases) {
        fprintf(stderr, "dmlcheck run: --shard %" PRIu64 "/%" PRIu64 " gets no case of --cases %" PRIu64
                " (which counts the whole run's cases): use fewer shards or more cases\n",
                o.shard_index, o.shard_count, o.cases);
        return 2;
    }
    char rule_text[128];
    if (until_verdict && !o.dry_run) {
        snprintf(rule_text, sizeof rule_text, "until every required cell has %u judged cases, "
                 "at most %" PRIu64 " cases", rule.min_cases, rule.max_cases);
        o.more_cases = cases_for_a_verdict;
        o.more_cases_ctx = &rule;
        o.more_cases_rule = rule_text;
    }
    if (!seed_given)
        o.seed = seed_from_clock();
    /* SEED first, so even a run that dies at once can be repeated. */
    printf("seed %" PRIu64 " (repeat with --seed %" PRIu64 ")\n", o.seed, o.seed);
    fflush(stdout);

    char *command_line = join_args(argc, argv);
    o.command_line = command_line;
    o.progress = isatty(STDOUT_FILENO);
    o.stop = &stop_requested;
    struct sigaction sa = { .sa_handler = on_stop_signal }, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    runner_report report;
    int code = jobs > 1 && !o.dry_run ? runner_run_jobs(&o, (unsigned)jobs, &report, &err)
                                      : runner_run(&o, &report, &err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (code == 2 && err.msg[0])
        fprintf(stderr, "dmlcheck run: %s\n", err.msg);
    if ((code == 0 || code == 1) && report.run_id && !o.dry_run && !o.quiet)
        print_outlook(&o, report.run_id, rule.min_cases);
    if (code == RUNNER_EXIT_INTERRUPTED && report.run_id)
        fprintf(stderr, "dmlcheck run: stopped by a signal; %" PRIu64 " cases recorded in run %" PRId64
                " of %s, %s\n", report.cases, report.run_id, o.db_path,
                report.interrupted ? "marked interrupted" : "every case checked, shrinking cut short");
    else if (code == RUNNER_EXIT_INTERRUPTED)
        fprintf(stderr, "dmlcheck run: stopped by a signal before any case was recorded\n");
    free(command_line);
    return code;
}
