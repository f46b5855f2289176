/*
 * test_op_module.c: every operator's module is complete (no hook left NULL, so a new
 * operator cannot fall through to another family's code), its fields name DirectML members,
 * and its type tables agree with the validator on a minimal case of each type.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_module.h"
#include "tap.h"
#include "validate.h"

static bool hooks_complete(const op_module *m)
{
    const void *hooks[] = {
        (const void *)m->fields, (const void *)m->tensors, (const void *)m->link,
        (const void *)m->from_desc,
        (const void *)m->check, (const void *)m->output_sizes, (const void *)m->input_of_index,
        (const void *)m->visit_deciders, (const void *)m->decider_ends, (const void *)m->visit_grid,
        (const void *)m->draw_shape,
        (const void *)m->drop_dims, (const void *)m->simplify, (const void *)m->coverage,
        (const void *)m->coverage_buckets, (const void *)m->invalidate,
        (const void *)m->describe, (const void *)m->params_json,
    };
    for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++)
        if (!hooks[i])
            return false;
    return m->name && m->tensors->input && m->tensors->output;
}

/* A MAX_POOLING1 descriptor in a heap block of exactly its size, so that a validator reading
 * a Dilations member past its end is caught by ASan and valgrind. */
typedef struct pool1_fixture {
    UINT in_sizes[4], out_sizes[4], strides[2], window[2], pad[2];
    DML_BUFFER_TENSOR_DESC in_b, out_b;
    DML_TENSOR_DESC in, out;
    DML_MAX_POOLING1_OPERATOR_DESC *desc;
} pool1_fixture;

static void pool1_init(pool1_fixture *f)
{
    memset(f, 0, sizeof *f);
    UINT in[4] = { 1, 1, 4, 4 }, out[4] = { 1, 1, 2, 2 };
    memcpy(f->in_sizes, in, sizeof in);
    memcpy(f->out_sizes, out, sizeof out);
    f->strides[0] = f->strides[1] = f->window[0] = f->window[1] = 2;
    f->in_b = (DML_BUFFER_TENSOR_DESC){ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4,
                                        f->in_sizes, NULL, 64, 0 };
    f->out_b = f->in_b;
    f->out_b.Sizes = f->out_sizes;
    f->out_b.TotalTensorSizeInBytes = 16;
    f->in = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &f->in_b };
    f->out = (DML_TENSOR_DESC){ DML_TENSOR_TYPE_BUFFER, &f->out_b };
    f->desc = malloc(sizeof *f->desc);
    *f->desc = (DML_MAX_POOLING1_OPERATOR_DESC){ &f->in, &f->out, NULL, 2, f->strides, f->window,
                                                 f->pad, f->pad };
}

static void test_max_pooling1_descriptor(tap *t)
{
    pool1_fixture f;
    pool1_init(&f);
    dmlc_error err = { "" };
    DML_OPERATOR_DESC op = { DML_OPERATOR_MAX_POOLING1, f.desc };
    tap_ok(t, f.desc && validate_operator(&op, DML_FEATURE_LEVEL_2_0, &err),
           "max_pooling1_valid_at_2_0 (%s)", f.desc ? err.msg : "out of memory");
    tap_ok(t, !validate_operator(&op, DML_FEATURE_LEVEL_1_0, &err) && strstr(err.msg, "below 2_0"),
           "max_pooling1_rejected_at_1_0 (%s)", err.msg);
    dml_case c;
    case_init(&c);
    bool read = case_from_desc(OP_MAX_POOLING1, f.desc, DML_FEATURE_LEVEL_2_0, &c, &err);
    tap_ok(t, read && c.spatial_count == 2 && c.window[1] == 2 && c.dilations[0] == 1
                  && c.dilations[1] == 1 && c.output.sizes[3] == 2 && validate_case(&c, &err),
           "max_pooling1_case_from_desc_round_trip");
    case_free(&c);
    f.desc->DimensionCount = 4;
    tap_ok(t, !validate_operator(&op, DML_FEATURE_LEVEL_2_0, &err)
                  && strstr(err.msg, "MAX_POOLING1 pools 2 or 3"),
           "max_pooling1_messages_name_max_pooling1 (%s)", err.msg);
    free(f.desc);
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    for (int op = 0; op < OP_COUNT; op++) {
        const op_info *info = &op_table[op];
        tap_ok(&t, info->module && hooks_complete(info->module), "%s_module_complete", info->stem);
        tap_ok(&t, !strcmp(info->module->name, info->module_name), "%s_module_named_%s", info->stem,
               info->module_name);
        bool any_type = false;
        for (size_t l = 0; l < FL_TESTED_COUNT; l++)
            any_type |= op_types_at((op_id)op, fl_tested[l]).input != 0;
        tap_ok(&t, any_type, "%s_has_input_types_at_some_tested_level", info->stem);
        tap_ok(&t, op_types_at((op_id)op, fl_effective(info->since) ? info->since : fl_tested[0]).input
                       != 0 || !fl_effective(info->since),
               "%s_exists_at_its_introduction_level_%s", info->stem, fl_name(info->since));
    }
    test_max_pooling1_descriptor(&t);
    return tap_done(&t);
}
