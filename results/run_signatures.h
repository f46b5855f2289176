/*
 * run_signatures.h: the signatures one run saw, read back from its database in the order the
 * run met them.  `run --jobs` (harness/run_jobs_after.c) shrinks and diagnoses the new
 * families of its merged shards from these rows, as a run of one process does from the list
 * it kept while running.
 */
#ifndef DMLCHECK_RUN_SIGNATURES_H
#define DMLCHECK_RUN_SIGNATURES_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

typedef struct run_signature_row {
    int64_t id;
    const char *op, *feature_level, *kind, *verdict, *input_type; /* names, as stored */
    bool is_new;            /* first seen in this run */
    uint64_t first_index;   /* the run's first case with it */
    uint64_t count;         /* its cases in this run */
} run_signature_row;

/* Calls fn for each signature run_id saw, by its first case in the run (ties: by id); stops
 * at fn's false (err set by fn).  False with err on a database error. */
bool run_signatures_each(store *s, int64_t run_id,
                         bool (*fn)(void *ctx, const run_signature_row *row, dmlc_error *err),
                         void *ctx, dmlc_error *err);

#endif
