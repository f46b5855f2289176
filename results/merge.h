/*
 * merge.h: `dmlcheck merge`: several results databases (results/schema.sql) into one new
 * file.  Devices are deduplicated by their identity (the devices table's UNIQUE key), ids are
 * remapped, and signatures are deduplicated by their key with counts summed.  The runs that
 * are shards of one run (`run --shard K/N`: the same seed, options but the shard, backend,
 * device, build and generator) become ONE run row, so a report treats them as the run they
 * split; every other run stays a run of its own.  The rules, field by field, are in
 * merge.c's header and README "Sharded runs".
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

#endif
