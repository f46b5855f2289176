/*
 * run_options.c: a run's options (runner.h): their defaults, the replay arguments that make
 * replay and export draw and judge a case as the run did, the options JSON stored with the
 * run, and the session a run checks its cases through.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "op_module.h"
#include "replay.h"
#include "run_internal.h"

#define DEFAULT_BATCH 128
#define DEFAULT_COMMIT_CASES 4096

void runner_options_default(runner_options *o)
{
    memset(o, 0, sizeof *o);
    gen_options_default(&o->gen);
    o->nan = NAN_POLICY_IGNORE;
    o->batch = DEFAULT_BATCH;
    o->commit_cases = DEFAULT_COMMIT_CASES;
    o->case_timeout_ms = 10000;
    o->reference_timeout_ms = 300000;
    o->open_timeout_ms = 300000;
    o->shrink_budget = 300;
    o->shrink_seconds = 60;
    o->diagnose = true;
    o->out = stdout;
}

/* The distance between a shard's consecutive indices (1: the whole run). */
uint64_t runner_index_step(const runner_options *o)
{
    return o->shard_count ? o->shard_count : 1;
}

/* How many of the first `cases` indices are this run's (all of them without a shard). */
uint64_t runner_shard_cases(const runner_options *o, uint64_t cases)
{
    uint64_t step = runner_index_step(o);
    return cases > o->shard_index ? (cases - o->shard_index + step - 1) / step : 0;
}


/* "argmax,max_pooling2" / "f16,u8" lists of the masks, into buf. */
static void mask_list(char *buf, size_t size, unsigned op_mask, uint32_t type_mask)
{
    buf[0] = 0;
    for (int op = 0; op < OP_COUNT; op++)
        if (op_mask & (1u << op))
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "," : "", op_table[op].stem);
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (type_mask & (1u << dtype_table[i].type))
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "," : "",
                     dtype_table[i].name);
}

const char *runner_backend_text(const runner_options *o, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", o->backend->name, o->backend_args ? ":" : "",
             o->backend_args ? o->backend_args : "");
    return buf;
}

const char *runner_replay_args(const runner_options *o, char *buf, size_t size)
{
    char list[256];
    gen_options def;
    gen_options_default(&def);
    buf[0] = 0;
    replay_append_arg(buf, size, "--backend");
    char backend[RUNNER_BACKEND_TEXT];
    replay_append_arg(buf, size, o->backend ? runner_backend_text(o, backend, sizeof backend) : "reference");
    if (o->device) {
        replay_append_arg(buf, size, "--device");
        replay_append_arg(buf, size, o->device);
    }
    if (o->gen.feature_level) {
        replay_append_arg(buf, size, "--feature-level");
        replay_append_arg(buf, size, fl_name(o->gen.feature_level));
    }
    if (o->gen.op_mask) {
        mask_list(list, sizeof list, o->gen.op_mask, 0);
        replay_append_arg(buf, size, "--ops");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.input_type_mask) {
        mask_list(list, sizeof list, 0, o->gen.input_type_mask);
        replay_append_arg(buf, size, "--types");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.max_elements != def.max_elements) {
        snprintf(list, sizeof list, "%" PRIu64, o->gen.max_elements);
        replay_append_arg(buf, size, "--max-elements");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.inputs_per_desc > 1) {
        snprintf(list, sizeof list, "%u", o->gen.inputs_per_desc);
        replay_append_arg(buf, size, "--inputs-per-desc");
        replay_append_arg(buf, size, list);
    }
    if (o->gen.reject_per_mille != def.reject_per_mille) {
        snprintf(list, sizeof list, "%u", o->gen.reject_per_mille);
        replay_append_arg(buf, size, "--reject-rate");
        replay_append_arg(buf, size, list);
    }
    if (o->nan != NAN_POLICY_IGNORE) {
        replay_append_arg(buf, size, "--nan-policy");
        replay_append_arg(buf, size, nan_policy_name(o->nan));
    }
    if (o->strict)
        replay_append_arg(buf, size, "--strict");
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return NULL;
    if (buf[0] == ' ')
        memmove(buf, buf + 1, used);
    return buf;
}

const char *runner_replay_line(const runner_options *o, const gen_case_id *id, char *buf,
                               size_t size)
{
    char args[RUNNER_REPLAY_ARGS_MAX], name[GEN_CASE_ID_SIZE];
    return replay_case_line(buf, size, gen_format_case_id(id, name, sizeof name),
                            runner_replay_args(o, args, sizeof args));
}

static json_t *mask_json(unsigned op_mask, uint32_t type_mask)
{
    if (!op_mask && !type_mask)
        return json_null();
    json_t *a = json_array();
    for (int op = 0; op < OP_COUNT; op++)
        if (op_mask & (1u << op))
            json_array_append_new(a, json_string(op_table[op].name));
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if (type_mask & (1u << dtype_table[i].type))
            json_array_append_new(a, json_string(dtype_table[i].name));
    return a;
}

char *runner_options_json(const runner_options *o)
{
    char seed[24], backend[RUNNER_BACKEND_TEXT];
    snprintf(seed, sizeof seed, "%" PRIu64, o->seed);
    json_t *j = json_pack("{s:s, s:s?, s:s, s:s?, s:o, s:o, s:I, s:I, s:I, s:s, s:b, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:f}",
                          "backend", o->backend ? runner_backend_text(o, backend, sizeof backend) : "?",
                          "device", o->device,
                          "seed", seed,
                          "feature_level", o->gen.feature_level ? fl_name(o->gen.feature_level) : NULL,
                          "ops", mask_json(o->gen.op_mask, 0),
                          "types", mask_json(0, o->gen.input_type_mask),
                          "max_elements", (json_int_t)gen_max_elements(&o->gen),
                          "reject_per_mille", (json_int_t)o->gen.reject_per_mille,
                          "inputs_per_desc", (json_int_t)o->gen.inputs_per_desc,
                          "nan_policy", nan_policy_name(o->nan),
                          "strict", o->strict,
                          "cases", o->cases ? json_integer((json_int_t)o->cases) : json_null(),
                          "time_s", o->time_s > 0 ? json_real(o->time_s) : json_null(),
                          "batch", (json_int_t)o->batch,
                          "commit_cases", (json_int_t)o->commit_cases,
                          "case_timeout_ms", (json_int_t)o->case_timeout_ms,
                          "shrink_budget", (json_int_t)o->shrink_budget,
                          "reference_timeout_ms", (json_int_t)o->reference_timeout_ms,
                          "shrink_time_s", o->shrink_seconds);
    if (j && o->more_cases && o->more_cases_rule
        && json_object_set_new(j, "go_on", json_string(o->more_cases_rule)) != 0) {
        json_decref(j);
        j = NULL;
    }
    if (j && !o->diagnose) /* recorded only when off: runs before diagnosis read the same */
        json_object_set_new(j, "diagnose", json_false());
    if (j && o->jobs > 1) /* recorded only for --jobs N: a run of one process reads the same */
        json_object_set_new(j, "jobs", json_integer((json_int_t)o->jobs));
    /* A shard names itself as `dmlcheck merge` combines shards: {"count":N,"indices":[K]}. */
    if (j && o->shard_count)
        json_object_set_new(j, "shard", json_pack("{s:I, s:[I]}", "count", (json_int_t)o->shard_count,
                                                  "indices", (json_int_t)o->shard_index));
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return text;
}


session_config runner_session_config(const runner_options *o)
{
    exec_options exec = { .nan = o->nan, .flush_denormals = false };
    return (session_config){
        .worker = { .backend = o->backend, .backend_args = o->backend_args, .device = o->device,
                    .seed = o->seed, .index_step = runner_index_step(o), .gen = o->gen, .exec = exec,
                    .open_timeout_ms = o->open_timeout_ms, .case_timeout_ms = o->case_timeout_ms,
                    .stop = o->stop },
        .check = { .exec = exec, .rules = { .strict = o->strict } },
        .reference_timeout_ms = o->reference_timeout_ms,
    };
}


/* The id of case `index` of this run: gN:SEED:INDEX with this generator's version. */
const char *runner_case_name(uint64_t seed, uint64_t index, char buf[GEN_CASE_ID_SIZE])
{
    gen_case_id id = { .version = GEN_VERSION, .seed = seed, .index = index };
    return gen_format_case_id(&id, buf, GEN_CASE_ID_SIZE);
}

size_t runner_fl_slot(DML_FEATURE_LEVEL fl)
{
    DML_FEATURE_LEVEL eff = fl_effective(fl);
    for (size_t i = 0; i < FL_TESTED_COUNT; i++)
        if (fl_tested[i] == eff)
            return i;
    return 0;
}
