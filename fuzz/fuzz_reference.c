/*
 * fuzz_reference.c: libFuzzer target.  Bytes -> a valid case (parameters from the tail,
 * values from the head; fuzz_case_builder.c) -> the reference engine, checked against the
 * spec's words by fuzz_oracle.c, plus:
 * - the validator accepts every built case (the builder is valid by design, so a rejection
 *   is a disagreement between two readings of the rules);
 * - the same case run twice gives identical bytes (outputs are canary-filled first, so bytes
 *   the reference leaves alone must match too);
 * - the reported classes agree with the input (nan, padding_window, denormal).
 * - the naive spec-literal implementation (reference/naive.c, O(outputs x inputs), so
 *   only on cases where that product is at most NAIVE_MAX_WORK) gives the same bits and
 *   classes.
 * The exact answer and the fp32-denormal-flushed one (ref_classify) are both checked by the
 * oracle; the flushed one only where flushing changes a logical input element or the
 * flushed bytes differ from the exact ones (otherwise its check is the exact one again).
 */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "dtype.h"

#include "fuzz_case_builder.h"
#include "fuzz_common.h"
#include "fuzz_oracle.h"
#include "reference.h"
#ifdef DMLCHECK_FUZZ_HAVE_NAIVE
# include "naive.h"
#endif

#define NAIVE_MAX_WORK (1u << 16)

static void alloc_outputs(case_outputs *o, const dml_case *c)
{
    if (!case_outputs_alloc(o, c))
        fuzz_fail("out of memory allocating outputs");
}

static bool identical(const dml_case *c, const case_outputs *a, const case_outputs *b)
{
    return a->output_bytes == b->output_bytes && !memcmp(a->output, b->output, a->output_bytes)
        && (!c->indices.present || !memcmp(a->indices, b->indices, a->indices_bytes));
}

static void check_identical(const dml_case *c, const case_outputs *a, const case_outputs *b)
{
    if (!identical(c, a, b)) {
        fuzz_print_case(c);
        fuzz_fail("the reference gave different bytes for the same case run twice");
    }
}

#ifdef DMLCHECK_FUZZ_HAVE_NAIVE
/* The reference and the naive implementation agree on every logical element and class. */
static void check_naive(const dml_case *c, const exec_options *opt, const case_outputs *ref,
                        unsigned ref_classes)
{
    if (case_tensor_elements(&c->output) * case_tensor_elements(&c->input) > NAIVE_MAX_WORK)
        return;
    naive_result r;
    naive_run(c, opt, &r);
    const case_tensor *tensors[2] = { &c->output, &c->indices };
    const uint8_t *bufs[2] = { ref->output, ref->indices };
    const uint64_t *naive[2] = { r.output, r.indices };
    for (int k = 0; k < 2; k++) {
        if (!tensors[k]->present || !naive[k])
            continue;
        tensor_view v;
        case_tensor_view(tensors[k], &v);
        for (uint64_t i = 0; i < v.elements; i++) {
            uint64_t got = dtype_load_bits(bufs[k], v.type, tensor_view_offset(&v, i));
            if (got != naive[k][i]) {
                char a[96], b[96];
                fuzz_print_case(c);
                fuzz_fail("reference and naive disagree on %s logical element %llu: naive %s, "
                          "reference %s (nan policy %s)", k ? "indices" : "output",
                          (unsigned long long)i, compare_format_value(v.type, naive[k][i], a, sizeof a),
                          compare_format_value(v.type, got, b, sizeof b), nan_policy_name(opt->nan));
            }
        }
    }
    if (r.classes != ref_classes) {
        char a[64], b[64];
        fuzz_print_case(c);
        fuzz_fail("reference classes '%s' but naive classes '%s'",
                  case_classes_str(ref_classes, a, sizeof a), case_classes_str(r.classes, b, sizeof b));
    }
    naive_result_free(&r);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dml_case c;
    exec_options opt;
    fuzz_build_valid_case(data, size, &c, &opt);

    case_outputs first, second, flushed;
    alloc_outputs(&first, &c);
    alloc_outputs(&second, &c);
    unsigned classes = ref_run(&c, &opt, &first);
    unsigned all_classes = ref_classify(&c, &opt, &second, &flushed);
    check_identical(&c, &first, &second);
    if ((all_classes & ~(unsigned)CASE_CLASS_DENORMAL) != classes) {
        fuzz_print_case(&c);
        fuzz_fail("ref_run reported classes 0x%x but ref_classify 0x%x (beyond denormal)", classes,
                  all_classes);
    }
    fuzz_oracle_check(&c, &opt, &first, "reference");
    /* Without a logical fp32 denormal the oracle reads the same values flushed or not, so on
     * the same bytes the flushed walk would repeat the exact one (half the oracle's time). */
    if (fuzz_oracle_flush_changes_input(&c) || !identical(&c, &first, &flushed)) {
        exec_options flushed_opt = opt;
        flushed_opt.flush_denormals = c.input.type == DML_TENSOR_DATA_TYPE_FLOAT32;
        fuzz_oracle_check(&c, &flushed_opt, &flushed, "reference (fp32 denormals flushed)");
    }
    fuzz_oracle_check_classes(&c, all_classes, &first, &flushed);
#ifdef DMLCHECK_FUZZ_HAVE_NAIVE
    check_naive(&c, &opt, &first, all_classes);
#endif

    case_outputs_free(&first);
    case_outputs_free(&second);
    case_outputs_free(&flushed);
    case_free(&c);
    return 0;
}
