/*
 * reference.c: the reference engine's entry points.  ref_run dispatches on the operator
 * through a table built from ops.def (one row per operator, ref_<stem> in
 * reference/<stem>.c); ref_classify adds the class that needs a second run (SEMANTICS D6).
 */
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

static const ref_fn ref_table[OP_COUNT] = {
#define OP(id, stem) [OP_##id] = ref_##stem,
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

unsigned ref_classify(const dml_case *c, const exec_options *opt, case_outputs *out,
                      case_outputs *flushed_out)
{
    unsigned classes = ref_run(c, opt, out);
    case_outputs flushed;
    if (!case_outputs_alloc(&flushed, c))
        classify_out_of_memory();
    /* SEMANTICS D6: only fp32 denormals are ever flushed (FLOAT16's are exact on every
     * device), so for other types the flushed answer is the answer itself. */
    if (c->input.type == DML_TENSOR_DATA_TYPE_FLOAT32) {
        exec_options flushed_opt = *opt;
        flushed_opt.flush_denormals = true;
        ref_run(c, &flushed_opt, &flushed);
        if (!compare_outputs(c, out, &flushed, NULL))
            classes |= CASE_CLASS_DENORMAL;
    } else {
        memcpy(flushed.output, out->output, out->output_bytes);
        if (flushed.indices && out->indices)
            memcpy(flushed.indices, out->indices, out->indices_bytes);
    }
    if (flushed_out)
        *flushed_out = flushed;
    else
        case_outputs_free(&flushed);
    return classes;
}
