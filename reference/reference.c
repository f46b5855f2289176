/*
 * reference.c: the reference engine's entry points.  ref_run dispatches on the operator
 * through a table built from ops.def (ref_<module> in reference/<module>.c for each
 * operator's family); ref_classify adds the class that needs a second run (SEMANTICS D6).
 */
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

static const ref_fn ref_table[OP_COUNT] = {
#define OP(id, stem, module, since, flags) [OP_##id] = ref_##module,
#include "ops.def"
};

unsigned ref_run(const dml_case *c, const exec_options *opt, case_outputs *out)
{
    return ref_table[c->op](c, opt, out);
}

static void classify_out_of_memory(void)
{
    /* ref_classify has no error channel (see reference.h); stopping beats a wrong class. */
    fprintf(stderr, "dmlcheck reference: out of memory allocating flushed outputs\n");
    abort();
}

/* True when some 32-bit word of the fp32 input buffer is a denormal.  Scanning the whole
 * buffer (gaps included) is conservative: it can only make us do the second run needlessly. */
static bool input_has_fp32_denormal(const dml_case *c)
{
    const uint8_t *p = c->input_data;
    uint64_t words = case_tensor_bytes(&c->input) / 4;
    for (uint64_t i = 0; i < words; i++) {
        uint32_t u;
        memcpy(&u, p + i * 4, 4);
        if ((u & 0x7f800000u) == 0 && (u & 0x007fffffu) != 0)
            return true;
    }
    return false;
}

static void copy_outputs(case_outputs *dst, const case_outputs *src)
{
    memcpy(dst->output, src->output, src->output_bytes);
    if (dst->indices && src->indices)
        memcpy(dst->indices, src->indices, src->indices_bytes);
}

unsigned ref_classify(const dml_case *c, const exec_options *opt, case_outputs *out,
                      case_outputs *flushed_out)
{
    unsigned classes = ref_run(c, opt, out);
    /* SEMANTICS D6: only fp32 denormals are ever flushed (FLOAT16's are exact on every
     * device), so without one in the input the flushed answer is the answer itself and the
     * second run (half the harness's reference time on fp32 cases) is skipped. */
    bool rerun = c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32 && !opt->flush_denormals
        && input_has_fp32_denormal(c);
    if (!rerun && !flushed_out)
        return classes;
    case_outputs flushed;
    if (!case_outputs_alloc(&flushed, c))
        classify_out_of_memory();
    if (rerun) {
        exec_options flushed_opt = *opt;
        flushed_opt.flush_denormals = true;
        ref_run(c, &flushed_opt, &flushed);
        if (!compare_outputs(c, out, &flushed, NULL))
            classes |= CASE_CLASS_DENORMAL;
    } else {
        copy_outputs(&flushed, out);
    }
    if (flushed_out)
        *flushed_out = flushed;
    else
        case_outputs_free(&flushed);
    return classes;
}
