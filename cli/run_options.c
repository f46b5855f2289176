/*
 * run_options.c (cli): the command-line options shared by run, replay, export and exec,
 * parsed into runner_options (harness/runner.h).  Messages go back in err; the commands
 * print them.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "op.h"
#include "run_options.h"

static bool parse_u64_text(const char *text, uint64_t *v)
{
    char *end;
    if (!text || !*text || *text == '-')
        return false;
    *v = strtoull(text, &end, 0);
    return *end == 0;
}

/* Splits a comma list and calls add for each item; false on the first unknown item. */
static bool parse_list(const char *value, bool (*add)(runner_options *, const char *),
                       runner_options *o, const char *what, dmlc_error *err)
{
    char *copy = strdup(value), *save = NULL;
    if (!copy)
        return err_set(err, "out of memory");
    bool ok = true;
    for (char *item = strtok_r(copy, ",", &save); item && ok; item = strtok_r(NULL, ",", &save))
        if (!add(o, item))
            ok = err_set(err, "unknown %s '%s'", what, item);
    free(copy);
    return ok;
}

static bool add_op(runner_options *o, const char *name)
{
    op_id op = op_from_name(name);
    if (op == OP_COUNT)
        return false;
    o->gen.op_mask |= 1u << op;
    return true;
}

static bool add_type(runner_options *o, const char *name)
{
    DML_TENSOR_DATA_TYPE t = dtype_from_name(name);
    if (t == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return false;
    o->gen.input_type_mask |= 1u << t;
    return true;
}

/* A decimal number of at most 9 digits (shard numbers), nothing before or after it. */
static bool parse_shard_number(const char *text, size_t len, uint64_t *v)
{
    if (len == 0 || len > 9)
        return false;
    *v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        *v = *v * 10 + (uint64_t)(text[i] - '0');
    }
    return true;
}

bool runner_parse_shard(runner_options *o, const char *text, dmlc_error *err)
{
    const char *slash = strchr(text, '/');
    uint64_t k, n;
    if (!slash || !parse_shard_number(text, (size_t)(slash - text), &k)
        || !parse_shard_number(slash + 1, strlen(slash + 1), &n))
        return err_set(err, "--shard '%s' is not K/N (shard K of N, numbered from 0: --shard 0/4 "
                       "... --shard 3/4)", text);
    if (n == 0 || n > RUNNER_SHARDS_MAX)
        return err_set(err, "--shard '%s': N must be 1 to %d", text, RUNNER_SHARDS_MAX);
    if (k >= n)
        return err_set(err, "--shard '%s': shards are numbered from 0, so K must be below N "
                       "(the shards of %" PRIu64 " are 0/%" PRIu64 " ... %" PRIu64 "/%" PRIu64 ")",
                       text, n, n, n - 1, n);
    o->shard_index = k;
    o->shard_count = n;
    return true;
}

/* "2_0, 2_1, 3_0, 4_1, 5_0": the levels dmlcheck tests, from the one list (op.h). */
static const char *tested_levels(char *buf, size_t size)
{
    buf[0] = 0;
    for (size_t i = 0; i < FL_TESTED_COUNT; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "", fl_name(fl_tested[i]));
    return buf;
}

bool runner_parse_common(runner_options *o, const char *name, const char *value, dmlc_error *err)
{
    char levels[128];
    uint64_t n;
    if (!strcmp(name, "backend")) {
        o->backend = backend_select(value, &o->backend_args);
        if (o->backend)
            return true;
        char names[256] = "";
        for (size_t i = 0; backend_registry[i]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), " %s",
                     backend_registry[i]->name);
        return err_set(err, "unknown backend '%s'; this build has:%s", value, names);
    }
    if (!strcmp(name, "device")) {
        o->device = value;
        return true;
    }
    if (!strcmp(name, "feature-level")) {
        if (!fl_from_name(value, &o->gen.feature_level) || !fl_effective(o->gen.feature_level))
            return err_set(err, "unknown feature level '%s' (tested: %s)", value,
                           tested_levels(levels, sizeof levels));
        /* A level between or above the tested ones would run at that level and be judged and
         * printed as its predecessor's: say so and let the user name the tested one. */
        if (fl_effective(o->gen.feature_level) != o->gen.feature_level)
            return err_set(err, "feature level %s is not one dmlcheck tests (tested: %s); its "
                           "rules are those of %s, the highest tested level below it: use "
                           "--feature-level %s", fl_name(o->gen.feature_level),
                           tested_levels(levels, sizeof levels),
                           fl_name(fl_effective(o->gen.feature_level)),
                           fl_name(fl_effective(o->gen.feature_level)));
        return true;
    }
    if (!strcmp(name, "ops"))
        return parse_list(value, add_op, o, "operator", err);
    if (!strcmp(name, "types"))
        return parse_list(value, add_type, o, "data type", err);
    if (!strcmp(name, "max-elements")) {
        if (!parse_u64_text(value, &n) || n < 1)
            return err_set(err, "--max-elements wants a count >= 1, not '%s'", value);
        o->gen.max_elements = n;
        return true;
    }
    if (!strcmp(name, "inputs-per-desc")) {
        if (!parse_u64_text(value, &n) || n < 1 || n > 1000000)
            return err_set(err, "--inputs-per-desc wants a count from 1 to 1000000, not '%s'", value);
        o->gen.inputs_per_desc = (unsigned)n;
        return true;
    }
    if (!strcmp(name, "reject-rate")) {
        if (!parse_u64_text(value, &n) || n > 1000)
            return err_set(err, "--reject-rate wants cases per thousand, 0 to 1000, not '%s'", value);
        o->gen.reject_per_mille = (unsigned)n;
        return true;
    }
    if (!strcmp(name, "nan-policy")) {
        if (!nan_policy_from_name(value, &o->nan))
            return err_set(err, "--nan-policy is 'ignore' or 'propagate', not '%s'", value);
        return true;
    }
    if (!strcmp(name, "strict")) {
        o->strict = true;
        return true;
    }
    if (!strcmp(name, "case-timeout")) {
        if (!parse_u64_text(value, &n) || n < 1 || n > UINT32_MAX)
            return err_set(err, "--case-timeout wants milliseconds >= 1, not '%s'", value);
        o->case_timeout_ms = (unsigned)n;
        return true;
    }
    if (!strcmp(name, "reference-timeout")) {
        if (!parse_u64_text(value, &n) || n < 1 || n > UINT32_MAX)
            return err_set(err, "--reference-timeout wants milliseconds >= 1, not '%s'", value);
        o->reference_timeout_ms = (unsigned)n;
        return true;
    }
    return err_set(err, "unknown option --%s", name);
}

int runner_parse_case_command(const char *command, int argc, char **argv,
                              void (*usage)(FILE *f), runner_options *o, uint64_t *index)
{
    /* One table for replay and export, so a replay line's options work for both. */
    static const struct option options[] = {
        { "backend", required_argument, NULL, 0 },   { "device", required_argument, NULL, 0 },
        { "feature-level", required_argument, NULL, 0 }, { "ops", required_argument, NULL, 0 },
        { "types", required_argument, NULL, 0 },     { "max-elements", required_argument, NULL, 0 },
        { "reject-rate", required_argument, NULL, 0 }, { "inputs-per-desc", required_argument, NULL, 0 },
        { "nan-policy", required_argument, NULL, 0 }, { "strict", no_argument, NULL, 0 },
        { "case-timeout", required_argument, NULL, 0 }, { "help", no_argument, NULL, 'h' },
        { "db", required_argument, NULL, 'd' },      { 0, 0, 0, 0 },
    };
    dmlc_error err;
    int which, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, &which)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == 'd') {
            o->db_path = optarg;
            continue;
        }
        if (c != 0) {
            usage(stderr);
            return 2;
        }
        if (!runner_parse_common(o, options[which].name, optarg, &err)) {
            fprintf(stderr, "dmlcheck %s: %s\n", command, err.msg);
            return 2;
        }
    }
    gen_case_id id;
    if (optind != argc - 1 || !gen_parse_case_id(argv[optind], &id)) {
        fprintf(stderr, "dmlcheck %s: give one case id gN:SEED:INDEX (e.g. g%d:7:49)\n", command,
                GEN_VERSION);
        usage(stderr);
        return 2;
    }
    o->seed = id.seed;
    *index = id.index;
    /* An older generator still supported draws its own ids' cases (gen.h GEN_OLDEST_VERSION). */
    if (gen_version_supported(id.version))
        o->gen.version = id.version;
    return runner_check_case_id(command, &id, o);
}

