/* op.c: the operator table and feature-level names. */
#include "op.h"

#include "op_module.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Every module a row names must exist: a row with a new family fails to link until its
 * module does. */
const op_info op_table[OP_COUNT] = {
#define OP(id, stem, module, since, flags)                                                \
    { OP_##id, #id, #stem, DML_OPERATOR_##id, &op_module_##module, #module,               \
      DML_FEATURE_LEVEL_##since, flags },
#include "ops.def"
};

const char *op_names_list(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < OP_COUNT && used < size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == OP_COUNT ? " or " : ", ";
        int n = snprintf(buf + used, size - used, "%s%s", sep, op_table[i].name);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

op_id op_from_name(const char *name)
{
    for (int i = 0; name && i < OP_COUNT; i++)
        if (!strcasecmp(name, op_table[i].name) || !strcasecmp(name, op_table[i].stem))
            return (op_id)i;
    return OP_COUNT;
}

op_id op_from_dml_type(DML_OPERATOR_TYPE t)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (op_table[i].dml_type == t)
            return (op_id)i;
    return OP_COUNT;
}

const DML_FEATURE_LEVEL fl_tested[] = {
    DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
};
const size_t FL_TESTED_COUNT = sizeof fl_tested / sizeof fl_tested[0];

static const struct { DML_FEATURE_LEVEL fl; const char *name; } fl_names[] = {
    { DML_FEATURE_LEVEL_1_0, "1_0" }, { DML_FEATURE_LEVEL_2_0, "2_0" },
    { DML_FEATURE_LEVEL_2_1, "2_1" }, { DML_FEATURE_LEVEL_3_0, "3_0" },
    { DML_FEATURE_LEVEL_3_1, "3_1" }, { DML_FEATURE_LEVEL_4_0, "4_0" },
    { DML_FEATURE_LEVEL_4_1, "4_1" }, { DML_FEATURE_LEVEL_5_0, "5_0" },
    { DML_FEATURE_LEVEL_5_1, "5_1" }, { DML_FEATURE_LEVEL_5_2, "5_2" },
    { DML_FEATURE_LEVEL_6_0, "6_0" }, { DML_FEATURE_LEVEL_6_1, "6_1" },
    { DML_FEATURE_LEVEL_6_2, "6_2" }, { DML_FEATURE_LEVEL_6_3, "6_3" },
    { DML_FEATURE_LEVEL_6_4, "6_4" },
};

bool fl_from_name(const char *name, DML_FEATURE_LEVEL *out)
{
    if (!name)
        return false;
    if (!strncasecmp(name, "DML_FEATURE_LEVEL_", 18))
        name += 18;
    char norm[8];
    size_t n = strlen(name);
    if (n != 3)
        return false;
    snprintf(norm, sizeof norm, "%c_%c", name[0], name[2]);
    if (name[1] != '_' && name[1] != '.')
        return false;
    for (size_t i = 0; i < sizeof fl_names / sizeof fl_names[0]; i++)
        if (!strcmp(norm, fl_names[i].name)) {
            *out = fl_names[i].fl;
            return true;
        }
    return false;
}

const char *fl_name(DML_FEATURE_LEVEL fl)
{
    for (size_t i = 0; i < sizeof fl_names / sizeof fl_names[0]; i++)
        if (fl_names[i].fl == fl)
            return fl_names[i].name;
    return "?";
}

DML_FEATURE_LEVEL fl_effective(DML_FEATURE_LEVEL fl)
{
    DML_FEATURE_LEVEL best = 0;
    for (size_t i = 0; i < FL_TESTED_COUNT; i++)
        if (fl_tested[i] <= fl)
            best = fl_tested[i];
    return best;
}
