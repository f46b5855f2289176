/*
 * fuzz_oracle.h: checks one execution of a valid case against the spec's words, sharing no
 * code with the reference engine (no order keys: values are compared as the C types they
 * are, floats natively so +0 == -0, NaN handled by the policy's own clause).
 *
 * ARGMIN/ARGMAX: every output index lies in [0, size of the reduced sub-tensor), and the
 * element it names is extreme: no element of its group is strictly better, and no equal
 * element comes before it (INCREASING) or after it (DECREASING) in the group's row-major
 * order over the reduced axes taken in ascending order (SEMANTICS D2, D3).
 * MAX_POOLING2: each window is scanned in row-major order; the winner is the first element
 * no other beats (D3), padding is skipped (D7); the output holds the winner's exact bits and
 * the index its flat logical index; a window entirely in padding outputs the type's lowest
 * value and index all-ones (SEMANTICS D7).
 * NaN (D4): under `ignore` a NaN never beats a number and NaNs tie with one another; under
 * `propagate` a NaN beats every number and NaNs tie.
 *
 * With fp32 denormals flushed, the pooling output is the winner's flushed bits (the answer
 * on flushed inputs, as ref_classify defines it).
 * Every violation ends in fuzz_fail with the case as a case file, the output coordinates,
 * and the values involved as hex-float and raw bits.
 */
#ifndef DMLCHECK_FUZZ_ORACLE_H
#define DMLCHECK_FUZZ_ORACLE_H

#include <stdbool.h>

#include "case.h"

/* Checks `out`, an execution of c under opt labelled `who` (e.g. "reference").  With
 * opt->flush_denormals, fp32 denormal inputs are judged as zeros of their sign, which is the
 * answer a device without denormals gives (SEMANTICS D6). */
void fuzz_oracle_check(const dml_case *c, const exec_options *opt, const case_outputs *out,
                       const char *who);

/* True when c's input is FLOAT32 and some logical input element is a denormal: only then do
 * the checks above read different values with opt->flush_denormals than without. */
bool fuzz_oracle_flush_changes_input(const dml_case *c);

/* Checks the classes the reference reported for c: `nan` only when some logical input
 * element is a NaN; `padding_window` exactly when some pooling window lies entirely in
 * padding; `denormal` exactly when the flushed answer differs from the exact one. */
void fuzz_oracle_check_classes(const dml_case *c, unsigned classes, const case_outputs *exact,
                               const case_outputs *flushed);

/* Prints c as a case file on stderr (for failure reports). */
void fuzz_print_case(const dml_case *c);

#endif
