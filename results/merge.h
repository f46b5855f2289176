/*
 * merge.h: `dmlcheck merge`: several results databases (results/schema.sql) into one new
 * file.  Devices are deduplicated by their identity (the devices table's UNIQUE key), ids are
 * remapped, and signatures are deduplicated by their key with counts summed.  The runs that
 * are shards of one run (`run --shard K/N`: the same seed, options but the shard, backend,
 * device, build and generator) become ONE run row, so a report treats them as the run they
 * split; every other run stays a run of its own.  The rules, field by field, are in
 * merge.c's header and docs/USAGE.md "Sharded runs".
 */
#ifndef DMLCHECK_MERGE_H
#define DMLCHECK_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "error.h"

typedef struct merge_summary {
    size_t runs_read;     /* runs in the inputs */
    size_t runs_written;  /* runs in the output: shard sets count once */
    uint64_t cases;       /* cases copied */
    size_t signatures;    /* distinct signatures in the output */
    size_t devices;       /* distinct devices in the output */
    int64_t last_run;     /* merge_append: the output's id of the input's last run */
} merge_summary;

/* Merges inputs[0..count-1] into out_path, which must not exist or be empty unless replace
 * is set.  The output is written to a temporary file beside out_path and renamed over it
 * only when everything was merged: on any error out_path is left as it was, and no input
 * is ever changed (an older schema version is migrated in a temporary copy).  Notes (a
 * shard set that misses shards) go to `notes`.  A raised *stop (SIGINT/SIGTERM; may be NULL)
 * interrupts the merge: false, out_path as it was, the temporary files removed.  An input
 * given twice (under one name or another) or a copy of an input's run is refused: its cases
 * would count twice.  False with err naming the file and what is
 * wrong. */
bool merge_databases(const char *const *inputs, size_t count, const char *out_path, bool replace,
                     FILE *notes, const volatile sig_atomic_t *stop, merge_summary *summary,
                     dmlc_error *err);

/* What a merge accepts beyond intact inputs (merge_sets.c).  By default an output holding
 * more than one shard run where some set is partial (shards of different seeds, builds,
 * options, backends or devices, or of another shard count) is refused, naming the field that
 * differs; allow_mixed keeps each such run apart instead (with a note for a partial one).
 * expect_shards N > 0: refused unless the output is one finished run with shards 0..N-1. */
typedef struct merge_rules {
    bool allow_mixed;
    unsigned expect_shards;
} merge_rules;

/* merge_databases under rules (merge_databases: the defaults, all zero). */
bool merge_databases_checked(const char *const *inputs, size_t count, const char *out_path,
                             bool replace, const merge_rules *rules, FILE *notes,
                             const volatile sig_atomic_t *stop, merge_summary *summary,
                             dmlc_error *err);

/* merge_sets.c: rules checked on the output's connection, with merge.c's temp tables. */
struct sqlite3;
bool merge_check_sets(struct sqlite3 *db, const merge_rules *rules, dmlc_error *err);

/* Appends the database at input (of this schema version) to out_path, created when absent,
 * in place: `run --jobs` adds its merged run to --db as a run of one process adds its rows.
 * Rules as merge_databases's; False with err when input or out_path cannot be used (out_path
 * then holds the input's rows or none). */
bool merge_append(const char *input, const char *out_path, merge_summary *summary,
                  dmlc_error *err);

#endif
