/*
 * test_op_module.c: every operator's module is complete (no hook left NULL, so a new
 * operator cannot fall through to another family's code), its fields name DirectML members,
 * and its type tables agree with the validator on a minimal case of each type.
 */
#include <stdio.h>
#include <string.h>

#include "op_module.h"
#include "tap.h"

static bool hooks_complete(const op_module *m)
{
    const void *hooks[] = {
        (const void *)m->fields, (const void *)m->tensors, (const void *)m->link,
        (const void *)m->from_desc,
        (const void *)m->check, (const void *)m->output_sizes, (const void *)m->input_of_index,
        (const void *)m->visit_deciders, (const void *)m->decider_ends, (const void *)m->draw_shape,
        (const void *)m->drop_dims, (const void *)m->simplify, (const void *)m->coverage,
        (const void *)m->coverage_buckets,
        (const void *)m->describe, (const void *)m->params_json,
    };
    for (size_t i = 0; i < sizeof hooks / sizeof hooks[0]; i++)
        if (!hooks[i])
            return false;
    return m->name && m->tensors->input && m->tensors->output;
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
    return tap_done(&t);
}
