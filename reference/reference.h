/*
 * reference.h: the bit-exact reference engine.  One file per operator family
 * (reference/<module>.c defines ref_<module>, ops.def's module column), plain loops in
 * memory order.  The ordering rule (NaN, +-0, ties) is
 * written once, in reference/order.h.  Every entry point takes a case the validator
 * accepted; behaviour on an invalid case is undefined.
 */
#ifndef DMLCHECK_REFERENCE_H
#define DMLCHECK_REFERENCE_H

#include "case.h"

/* Runs c under opt, writing each logical output element at its strided address in out.
 * Returns the classes observed in this single run (CASE_CLASS_NAN, CASE_CLASS_PADDING_WINDOW;
 * never CASE_CLASS_DENORMAL, which needs a second run: see ref_classify). */
typedef unsigned (*ref_fn)(const dml_case *c, const exec_options *opt, case_outputs *out);

#define OP(id, stem, module, since, flags) unsigned ref_##module(const dml_case *c, const exec_options *opt, case_outputs *out);
#include "ops.def"

/* The name of the kernel table the next execution will use: "avx2" where the CPU has AVX2
 * and F16C, else (or with DMLCHECK_REFERENCE_PORTABLE=1 in the environment) "portable". */
const char *ref_kernels_name(void);

/* Dispatches on c->op through the table built from ops.def. */
unsigned ref_run(const dml_case *c, const exec_options *opt, case_outputs *out);

/* Runs c and returns all of its classes, CASE_CLASS_DENORMAL included (computed with a second
 * run on fp32-denormal-flushed inputs).  When flushed_out is not NULL it receives the
 * flushed-input answer (allocated here; the caller frees it with case_outputs_free), which is
 * the answer a device without denormal support is judged against. */
unsigned ref_classify(const dml_case *c, const exec_options *opt, case_outputs *out,
                      case_outputs *flushed_out);

#endif
