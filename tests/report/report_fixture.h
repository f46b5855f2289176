/*
 * report_fixture.h: builds small results databases for the report tests, from the real
 * schema (results/schema.sql) and real generated cases (gen_case with a fixed seed, classes
 * from the reference), with failures injected by rule, and keeps its own tally of what it
 * injected so tests can check the report against it rather than against hard-coded numbers.
 *
 * Databases:
 *   "clean"  one run (id 1), backend "reference", every case passes;
 *   "two"    run 1 as "clean", then run 2 of backend "faulty" over the same cases with:
 *            ARGMAX cases of distribution `ties` fail (tie_other_way),
 *            MAX_POOLING2 FLOAT16 cases fail (value_bits_differ; tests/report/expectations.json
 *            names this one a known bug), cases of class nan differ from policy
 *            (unspecified, nan_handling), and case index 5 is skipped;
 *   "newer"  "clean" with a schema version from the future.
 */
#ifndef DMLCHECK_REPORT_FIXTURE_H
#define DMLCHECK_REPORT_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "report_model.h"

#define FIXTURE_SEED 7
#define FIXTURE_CASES 300

/* What run 2 of "two" was made to contain, per cell. */
typedef struct fixture_tally {
    report_cell_key keys[512];
    report_counts n[512];
    size_t count;
    size_t signatures; /* distinct (judged or unspecified) signatures */
} fixture_tally;

/* Builds database `mode` at path (removed first) from the schema file; tally may be NULL. */
bool fixture_build(const char *schema_path, const char *path, const char *mode,
                   fixture_tally *tally, dmlc_error *err);

#endif
