/*
 * run_case_id.c: whether a case id given to `dmlcheck replay` or `dmlcheck export` names
 * the case this dmlcheck would draw.  An id carries the version of the generator that drew
 * it (gN:SEED:INDEX, gen.h GEN_VERSION); an id of another version is refused, since the same
 * seed and index may draw another case here.  A bare SEED:INDEX (what dmlcheck printed
 * before ids carried a version) names no version: it is replayed as this version, with a
 * warning saying so.  With --db FILE, the run that recorded the case is looked up
 * (store_find_case_origin) and must have this generator version and the same generator
 * options (gen_options_text); a refusal names what differs and, when only options differ,
 * ends with the command that replays the case as that run drew it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "replay.h"
#include "run_options.h"
#include "runner.h"
#include "store.h"

/* The value of `key` in a gen_options_text ("feature-level=any max-elements=4096 ..."),
 * into buf; "" when the text has no such key. */
static const char *option_value(const char *text, const char *key, char *buf, size_t size)
{
    size_t n = strlen(key);
    buf[0] = 0;
    for (const char *p = text; *p; p += strcspn(p, " "), p += *p == ' ') {
        if (!strncmp(p, key, n) && p[n] == '=') {
            snprintf(buf, size, "%.*s", (int)strcspn(p + n + 1, " "), p + n + 1);
            break;
        }
    }
    return buf;
}

/* The key of the "KEY=VALUE" word at p, into buf (truncated to size - 1 characters).  Not
 * snprintf("%.*s", ..., p): with -fsanitize=undefined, GCC 12 wrongly warns that p is null
 * (-Wformat-truncation), which -Werror turns into a failed sanitizer build. */
static void option_key(const char *p, char *buf, size_t size)
{
    size_t n = strcspn(p, "=");
    if (n >= size)
        n = size - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
}

/* One "  --KEY: the run used X, this command gives Y" line per option whose value differs
 * between the stored text and ours.  A key may be in one text only (gen_options_text writes
 * inputs-per-desc only when it is not 1), so both texts' keys are visited. */
static void print_option_differences(const char *stored, const char *ours)
{
    const char *texts[2] = { ours, stored };
    for (int t = 0; t < 2; t++)
        for (const char *p = texts[t]; *p; p += strcspn(p, " "), p += *p == ' ') {
            char key[32], theirs[GEN_OPTIONS_TEXT_SIZE], mine[GEN_OPTIONS_TEXT_SIZE];
            option_key(p, key, sizeof key);
            option_value(stored, key, theirs, sizeof theirs);
            option_value(ours, key, mine, sizeof mine);
            if (t == 1 && mine[0]) /* seen from ours already */
                continue;
            if (strcmp(theirs, mine))
                fprintf(stderr, "  --%s: the run used %s, this command gives %s\n", key,
                        theirs[0] ? theirs : "(not recorded)", mine[0] ? mine : "the default");
        }
}

/* o with its generator options replaced by the stored text's ("any" means not given).
 * False when this build cannot spell them (an op or type it does not know). */
static bool with_stored_options(const runner_options *o, const char *stored, runner_options *out)
{
    *out = *o;
    gen_options_default(&out->gen);
    for (const char *p = stored; *p; p += strcspn(p, " "), p += *p == ' ') {
        char key[32], value[GEN_OPTIONS_TEXT_SIZE];
        dmlc_error err;
        option_key(p, key, sizeof key);
        option_value(stored, key, value, sizeof value);
        /* A run from before untested levels were refused may have stored one (3_1). */
        if (!strcmp(key, "feature-level") && strcmp(value, "any")) {
            if (!fl_from_name(value, &out->gen.feature_level) || !fl_effective(out->gen.feature_level))
                return false;
            continue;
        }
        if (strcmp(value, "any") && !runner_parse_common(out, key, value, &err))
            return false;
    }
    return true;
}

static int refuse_version(const char *command, const char *name, unsigned version)
{
    fprintf(stderr, "dmlcheck %s: case %s was drawn by generator version %u, but this dmlcheck "
            "draws versions %d to %d, which may draw a different case for the same seed and "
            "index; replay it with the dmlcheck that printed it, or run again to find the "
            "failure anew\n", command, name, version, GEN_OLDEST_VERSION, GEN_VERSION);
    return 2;
}

/* The run in o->db_path that recorded the case must match this generator and o's options. */
static int check_against_db(const char *command, const gen_case_id *id, const runner_options *o)
{
    /* args: room for the run's options and a PATH_MAX database path of control characters
     * ($'\xHH' each); db: the path as the messages print it (\xHH, never an escape). */
    char ours[GEN_OPTIONS_TEXT_SIZE], name[GEN_CASE_ID_SIZE], args[RUNNER_REPLAY_ARGS_MAX + 7 * 4096];
    char db[4 * 4096 + 1];
    err_printable(o->db_path, false, db, sizeof db);
    gen_case_id current = { .version = o->gen.version, .seed = id->seed, .index = id->index };
    store_case_origin run;
    bool found;
    dmlc_error err;
    gen_options_text(&o->gen, ours, sizeof ours);
    gen_format_case_id(id, name, sizeof name);
    if (!store_find_case_origin(o->db_path, id->seed, id->index, o->gen.version, ours, &run, &found, &err)) {
        fprintf(stderr, "dmlcheck %s: %s\n", command, err.msg);
        return 2;
    }
    if (!found) {
        fprintf(stderr, "dmlcheck %s: %s holds no run of seed %" PRIu64 " that recorded case "
                "index %" PRIu64 "; check the id, or leave out --db\n", command, db,
                id->seed, id->index);
        return 2;
    }
    if (run.gen_version != o->gen.version) {
        fprintf(stderr, "dmlcheck %s: %s: run %lld (dmlcheck %s%s%s) recorded case %s with "
                "generator version %u\n", command, db, (long long)run.run_id,
                run.dmlcheck_version, run.git_revision[0] ? ", " : "", run.git_revision, name,
                run.gen_version);
        return refuse_version(command, name, run.gen_version);
    }
    gen_format_case_id(&current, name, sizeof name);
    if (!strcmp(run.gen_options, ours)) {
        fprintf(stderr, "dmlcheck %s: case %s matches run %lld in %s (generator version %d, "
                "same generator options)\n", command, name, (long long)run.run_id, db,
                o->gen.version);
        return -1;
    }
    fprintf(stderr, "dmlcheck %s: %s: run %lld drew case %s with other generator options, so "
            "these would draw another case:\n", command, db, (long long)run.run_id, name);
    print_option_differences(run.gen_options, ours);
    runner_options stored;
    if (with_stored_options(o, run.gen_options, &stored) && runner_replay_args(&stored, args, sizeof args)) {
        /* With --db again, the command checks itself against the same run. */
        replay_append_arg(args, sizeof args, "--db");
        replay_append_arg(args, sizeof args, o->db_path);
        fprintf(stderr, "replay: dmlcheck %s %s %s\n", command, name, args);
    }
    return 2;
}

int runner_check_case_id(const char *command, const gen_case_id *id, const runner_options *o)
{
    char name[GEN_CASE_ID_SIZE];
    gen_format_case_id(id, name, sizeof name);
    if (id->version && !gen_version_supported(id->version))
        return refuse_version(command, name, id->version);
    if (o->db_path)
        return check_against_db(command, id, o);
    if (!id->version)
        fprintf(stderr, "dmlcheck %s: warning: case id %s names no generator version; replaying "
                "it as g%d:%s.  Ids printed without a version came from generator version 1 "
                "and may name another case now; add --db FILE to check it against the run "
                "that recorded it\n", command, name, GEN_VERSION, name);
    return -1;
}
