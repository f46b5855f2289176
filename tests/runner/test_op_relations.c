/*
 * test_op_relations.c: relations between operators, on every backend of the registry.
 * MAX_POOLING1 is MAX_POOLING2 with every dilation 1 (docs/SEMANTICS.md "MAX_POOLING1"): a
 * generated MAX_POOLING2 case with its dilations set to 1, run as itself and as the same case
 * relabelled MAX_POOLING1, must give bit-identical outputs and indices.  A backend that cannot
 * be opened here (no OpenCL platform) is skipped, not failed.
 *
 * Usage: test_op_relations [BACKEND...]: the given --backend texts ("plugin:/x/lib.so",
 * "process:'...'"), or every registered backend that opens without arguments.
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "compare.h"
#include "gen.h"
#include "op_module.h"
#include "tap.h"
#include "validate.h"

#define CASES 300

/* c with every dilation 1 and outputs resized and packed for it; false when invalid. */
static bool undilate(dml_case *c)
{
    UINT rank, sizes[DML_MAX_RANK];
    for (UINT s = 0; s < c->spatial_count; s++)
        c->dilations[s] = 1;
    if (!case_module(c)->output_sizes(c, false, &rank, sizes))
        return false;
    case_tensor_set(&c->output, c->output.type, rank, sizes, NULL);
    if (c->indices.present)
        case_tensor_set(&c->indices, c->indices.type, rank, sizes, NULL);
    case_link(c);
    dmlc_error err;
    return validate_case(c, &err);
}

static bool run_case(const backend_vtable *vt, backend *b, const dml_case *c, case_outputs *out)
{
    exec_options opt = { .nan = NAN_POLICY_IGNORE, .flush_denormals = false };
    dmlc_error err;
    return case_outputs_alloc(out, c) && vt->run(b, c, &opt, out, &err) == RUN_OK;
}

/* Returns how many pairs disagreed; *compared counts the pairs run. */
static unsigned check_backend(const backend_vtable *vt, backend *b, unsigned *compared)
{
    gen_options opt;
    gen_options_default(&opt);
    opt.reject_per_mille = 0;
    opt.op_mask = 1u << OP_MAX_POOLING2;
    unsigned bad = 0;
    for (uint64_t i = 0; i < CASES; i++) {
        dml_case two, one;
        gen_info info;
        dmlc_error err;
        case_init(&one);
        if (!gen_case(97, i, &opt, &two, &info, &err) || !undilate(&two) || !case_copy(&one, &two)) {
            case_free(&two);
            continue;
        }
        one.op = OP_MAX_POOLING1;
        one.feature_level = two.feature_level;
        case_link(&one);
        case_outputs o2 = { 0 }, o1 = { 0 };
        if (validate_case(&one, &err) && run_case(vt, b, &two, &o2) && run_case(vt, b, &one, &o1)) {
            mismatch m;
            (*compared)++;
            if (!compare_outputs(&two, &o2, &o1, &m)) {
                if (!bad)
                    tap_diag("%s: case 97:%llu: %s element %llu differs between MAX_POOLING2 and "
                             "MAX_POOLING1", vt->name, (unsigned long long)i, m.tensor,
                             (unsigned long long)m.logical_index);
                bad++;
            }
        }
        case_outputs_free(&o2);
        case_outputs_free(&o1);
        case_free(&one);
        case_free(&two);
    }
    return bad;
}

/* One TAP line for the relation on backend `text`; a backend that does not open is skipped. */
static void relation_on(tap *t, const char *text)
{
    const char *args = NULL;
    const backend_vtable *vt = backend_select(text, &args);
    char name[160];
    snprintf(name, sizeof name, "%.40s_max_pooling2_undilated_equals_max_pooling1", vt ? vt->name : text);
    dmlc_error err = { "" };
    backend *b = vt ? vt->open(NULL, args, &err) : NULL;
    if (!b) {
        tap_skip(t, vt ? err.msg : "no such backend", "%s", name);
        return;
    }
    /* A backend that claims only some types compares fewer pairs; ten still show the rule. */
    unsigned compared = 0, bad = check_backend(vt, b, &compared);
    tap_ok(t, bad == 0 && compared >= 10, "%s (%u of %u pairs differ)", name, bad, compared);
    vt->close(b);
}

int main(int argc, char **argv)
{
    tap t;
    tap_plan(&t, 0);
    for (int i = 1; i < argc; i++)
        relation_on(&t, argv[i]);
    for (size_t k = 0; argc == 1 && backend_registry[k]; k++)
        relation_on(&t, backend_registry[k]->name);
    return tap_done(&t);
}
