/*
 * naive.h: a second, deliberately naive implementation of the three operators, written from
 * the words of the spec pages and SEMANTICS.md and sharing no code with reference/.  For
 * every output element it scans every input element by logical coordinates.  It is slow on
 * purpose (O(outputs x inputs)); the tests only feed it tiny cases.
 */
#ifndef DMLCHECK_TESTS_NAIVE_H
#define DMLCHECK_TESTS_NAIVE_H

#include <stdint.h>

#include "case.h"

/* Results by logical row-major output element: raw bits. */
typedef struct naive_result {
    uint64_t *output;  /* output element count entries */
    uint64_t *indices; /* MAX_POOLING2 with an indices tensor only, else NULL */
    unsigned classes;  /* CASE_CLASS_* */
} naive_result;

/* Computes c under opt; classes include CASE_CLASS_DENORMAL (a second, flushed run). */
void naive_run(const dml_case *c, const exec_options *opt, naive_result *r);
void naive_result_free(naive_result *r);

#endif
