/*
 * ref_check.h: what the reference tests share: running the reference on a built case,
 * comparing it with the naive implementation element by element (exact bits, classes
 * included), and describing a case for a person when something disagrees.
 */
#ifndef DMLCHECK_TESTS_REF_CHECK_H
#define DMLCHECK_TESTS_REF_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "tap.h"

/* Runs ref_classify and the naive implementation on c under opt; true when every logical
 * output (and index) element has identical bits and the classes are equal.  Where the CPU
 * selects a faster kernel table (reference/kernels.h), the reference also runs with the
 * portable table forced, and the two must agree bit for bit as well.  On failure `why`
 * names the first difference and describes the case. */
bool check_against_naive(const dml_case *c, const exec_options *opt, char *why, size_t size);

/* One line describing c (op, types, sizes, strides, axes or pooling parameters) and, when
 * it has at most 64 elements, its logical input values as raw bits. */
void describe_case(const dml_case *c, char *buf, size_t size);

/* Reference outputs of c by logical element, as raw bits; indices NULL for ARGMIN/ARGMAX
 * and pooling without indices.  Caller frees both. */
unsigned ref_logical(const dml_case *c, const exec_options *opt, uint64_t **output,
                     uint64_t **indices);

/* Tallies one group of cases checked against the naive implementation: how many, the first
 * difference and the first case the validator rejected (a test that builds an invalid case
 * checks nothing, so a rejection fails the group too). */
#define REF_WHY_SIZE 4096
typedef struct ref_group {
    unsigned cases, failures, rejected;
    char first_failure[REF_WHY_SIZE];
    char first_rejection[REF_WHY_SIZE];
} ref_group;

/* Validates c and, when valid, checks it against the naive implementation under opt. */
void ref_group_check(ref_group *g, dml_case *c, const exec_options *opt);

/* One TAP line for the group (ok when it checked at least one case and none differed or was
 * rejected), with the first failure, the first rejection and `replay` as diagnostics; then
 * clears the group for the next one. */
void ref_group_report(tap *t, ref_group *g, const char *replay, const char *name);

#endif
