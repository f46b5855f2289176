/*
 * run_options.h (cli): parsing the options run, replay, export and exec share into
 * runner_options.
 */
#ifndef DMLCHECK_CLI_RUN_OPTIONS_H
#define DMLCHECK_CLI_RUN_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "runner.h"

/* The most shards a run may be split into (RUNNER_SHARDS_MAX): more would leave most
 * shards a handful of cases, and the merged run's shard list would outgrow its options. */
#define RUNNER_SHARDS_MAX 65536
/* Parses --shard's "K/N" (shards numbered 0..N-1) into o->shard_index/shard_count.  False
 * with err naming what is wrong: not K/N, N of 0 or above RUNNER_SHARDS_MAX, K >= N (a
 * 1-based "4/4" gets the 0-based spelling). */
bool runner_parse_shard(runner_options *o, const char *text, dmlc_error *err);

/* Parses the options shared by run, replay and export (--backend, --device,
 * --feature-level, --ops, --types, --max-elements, --nan-policy, --strict) from one
 * getopt_long option; `name` is the long option's name.  False with err on a bad value. */
bool runner_parse_common(runner_options *o, const char *name, const char *value, dmlc_error *err);

/* Parses `dmlcheck replay|export gN:SEED:INDEX [options] [--db FILE]` into o (the seed,
 * db_path) and *index, and checks the id with runner_check_case_id.  Returns -1 when the
 * command should go on, else its exit code (0 after --help, 2 on a usage error or a refused
 * id). */
int runner_parse_case_command(const char *command, int argc, char **argv,
                              void (*usage)(FILE *f), runner_options *o, uint64_t *index);

/* Whether case id may be replayed with o's generator options (runner_case_id.c): an id of
 * another generator version is refused; a bare legacy id is replayed as this version with a
 * warning; with o->db_path, the run that recorded the case must have this generator version
 * and the same gen_options_text, else the refusal names what differs and, for options,
 * ends with the command that replays the case as that run drew it.  Messages go to stderr,
 * prefixed "dmlcheck COMMAND: ".  Returns -1 to go on, else the exit code (2). */
int runner_check_case_id(const char *command, const gen_case_id *id, const runner_options *o);

#endif
