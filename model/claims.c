/*
 * claims.c: an implementation's claims per operator and data type (claims.h): whether a case
 * or a report cell is within them, the reason a case is not, one line that names them, and
 * their JSON for the results database and the process protocol.
 */
#include "claims.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

static bool in_mask(uint32_t mask, DML_TENSOR_DATA_TYPE t)
{
    return !mask || ((unsigned)t < 32 && ((mask >> t) & 1u));
}

void claims_all(backend_claims *c)
{
    memset(c, 0, sizeof *c);
    for (int op = 0; op < OP_COUNT; op++)
        c->ops[op].claimed = true;
}

/* Whether the claims leave anything out: only then is "for what it claims" news. */
static bool narrower_than_all(const backend_claims *c)
{
    for (int op = 0; op < OP_COUNT; op++) {
        const op_claim *o = &c->ops[op];
        if (!o->claimed || o->input_types || o->output_types || o->indices_types
            || o->without_indices)
            return true;
    }
    return c->max_feature_level && c->max_feature_level < fl_tested[FL_TESTED_COUNT - 1];
}

void claims_settle(backend_claims *c)
{
    c->limited = narrower_than_all(c);
}

void claims_uniform(backend_claims *c, DML_FEATURE_LEVEL max_level, uint32_t input_types)
{
    for (int op = 0; op < OP_COUNT; op++)
        if (c->ops[op].claimed)
            c->ops[op].input_types = input_types;
    c->max_feature_level = max_level;
    c->limited = narrower_than_all(c);
}

bool claims_cover(const backend_claims *c, op_id op, DML_FEATURE_LEVEL fl,
                  DML_TENSOR_DATA_TYPE input, DML_TENSOR_DATA_TYPE output,
                  DML_TENSOR_DATA_TYPE indices)
{
    if (!c->limited)
        return true;
    if (op >= OP_COUNT || !c->ops[op].claimed)
        return false;
    const op_claim *o = &c->ops[op];
    return (!c->max_feature_level || fl <= c->max_feature_level) && in_mask(o->input_types, input)
           && in_mask(o->output_types, output)
           && (indices == DML_TENSOR_DATA_TYPE_UNKNOWN
               || (!o->without_indices && in_mask(o->indices_types, indices)));
}

const char *claims_beyond(const backend_claims *c, const dml_case *k, const char *who,
                          char *buf, size_t size)
{
    const char *op = op_table[k->op].name;
    const op_claim *o = &c->ops[k->op];
    if (!c->limited)
        return NULL;
    if (!o->claimed)
        snprintf(buf, size, "%s does not claim %s", who, op);
    else if (c->max_feature_level && k->feature_level > c->max_feature_level)
        snprintf(buf, size, "the case is at feature level %s, above %s's highest, %s",
                 fl_name(k->feature_level), who + (strncmp(who, "the ", 4) ? 0 : 4),
                 fl_name(c->max_feature_level));
    else if (!in_mask(o->input_types, k->input.type))
        snprintf(buf, size, "%s does not claim %s for %s", who, dtype_name(k->input.type), op);
    else if (!in_mask(o->output_types, k->output.type))
        snprintf(buf, size, "%s does not claim %s outputs for %s", who,
                 dtype_name(k->output.type), op);
    else if (k->indices.present && o->without_indices)
        snprintf(buf, size, "%s does not claim %s with indices (an OutputIndicesTensor)", who, op);
    else if (k->indices.present && !in_mask(o->indices_types, k->indices.type))
        snprintf(buf, size, "%s does not claim %s indices for %s", who,
                 dtype_name(k->indices.type), op);
    else
        return NULL;
    return buf;
}

/* ---- one line ------------------------------------------------------------------------ */

static void append(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);
    if (used < size)
        snprintf(buf + used, size - used, "%s", text);
}

/* "FLOAT32, INT32" in dtypes.def order. */
static void append_types(char *buf, size_t size, uint32_t mask)
{
    bool first = true;
    for (size_t i = 0; i < DTYPE_COUNT; i++)
        if ((mask >> dtype_table[i].type) & 1u) {
            append(buf, size, first ? "" : ", ");
            append(buf, size, dtype_table[i].name);
            first = false;
        }
}

static bool same_claim(const op_claim *a, const op_claim *b)
{
    return a->input_types == b->input_types && a->output_types == b->output_types
           && a->indices_types == b->indices_types && a->without_indices == b->without_indices;
}

/* " on FLOAT32 (outputs UINT32; indices UINT32)" for one group's types. */
static void append_claim_types(char *buf, size_t size, const op_claim *o)
{
    append(buf, size, " on ");
    if (o->input_types)
        append_types(buf, size, o->input_types);
    else
        append(buf, size, "every type");
    if (o->output_types || o->indices_types)
        append(buf, size, " (");
    if (o->output_types) {
        append(buf, size, "outputs ");
        append_types(buf, size, o->output_types);
    }
    if (o->indices_types) {
        append(buf, size, o->output_types ? "; indices " : "indices ");
        append_types(buf, size, o->indices_types);
    }
    if (o->output_types || o->indices_types)
        append(buf, size, ")");
    if (o->without_indices)
        append(buf, size, " without indices");
}

const char *claims_describe(const backend_claims *c, char *buf, size_t size)
{
    buf[0] = 0;
    if (!c->limited)
        return snprintf(buf, size, "everything"), buf;
    bool done[OP_COUNT] = { false }, any = false;
    for (int op = 0; op < OP_COUNT; op++) {
        if (done[op] || !c->ops[op].claimed)
            continue;
        append(buf, size, any ? "; " : "");
        any = true;
        /* Every later operator with the same types joins this group. */
        for (int other = op; other < OP_COUNT; other++)
            if (c->ops[other].claimed && !done[other] && same_claim(&c->ops[op], &c->ops[other])) {
                append(buf, size, other == op ? "" : ", ");
                append(buf, size, op_table[other].name);
                done[other] = true;
            }
        append_claim_types(buf, size, &c->ops[op]);
    }
    if (!any)
        append(buf, size, "no operator");
    if (c->max_feature_level && c->max_feature_level < fl_tested[FL_TESTED_COUNT - 1]) {
        append(buf, size, "; feature levels up to ");
        append(buf, size, fl_name(c->max_feature_level));
    }
    return buf;
}

/* ---- JSON ---------------------------------------------------------------------------- */

static json_t *types_json(uint32_t mask)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < DTYPE_COUNT; i++)
        if ((mask >> dtype_table[i].type) & 1u)
            json_array_append_new(a, json_string(dtype_table[i].name));
    return a;
}

static const char *const mask_keys[] = { "input_types", "output_types", "indices_types" };

static uint32_t *mask_of(op_claim *o, size_t key)
{
    return key == 0 ? &o->input_types : key == 1 ? &o->output_types : &o->indices_types;
}

static json_t *op_json(op_id op, const op_claim *o)
{
    json_t *j = json_pack("{s:s}", "op", op_table[op].name);
    for (size_t k = 0; j && k < 3; k++) {
        uint32_t mask = *mask_of((op_claim *)o, k);
        if (mask)
            json_object_set_new(j, mask_keys[k], types_json(mask));
    }
    if (j && o->without_indices)
        json_object_set_new(j, "indices", json_false());
    return j;
}

char *claims_to_json(const backend_claims *c, bool *oom)
{
    *oom = false;
    if (!c->limited)
        return NULL;
    json_t *root = json_object(), *ops = json_array();
    if (root && ops && c->max_feature_level)
        json_object_set_new(root, "max_feature_level", json_string(fl_name(c->max_feature_level)));
    for (int op = 0; root && ops && op < OP_COUNT; op++)
        if (c->ops[op].claimed)
            json_array_append_new(ops, op_json((op_id)op, &c->ops[op]));
    char *text = NULL;
    if (root && ops && !json_object_set(root, "operators", ops))
        text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(ops);
    json_decref(root);
    *oom = text == NULL;
    return text;
}

/* A list of type names into a mask; an empty or absent list is 0 (every type). */
static bool types_from_json(const json_t *list, const char *key, uint32_t *mask, dmlc_error *err)
{
    *mask = 0;
    if (!list)
        return true;
    if (!json_is_array(list))
        return err_set(err, "claims: \"%s\" is not a list of type names", key);
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) {
        DML_TENSOR_DATA_TYPE t = dtype_from_name(json_string_value(v));
        if (t == DML_TENSOR_DATA_TYPE_UNKNOWN || (unsigned)t >= 32)
            return err_set(err, "claims: \"%s\" names %s, not a data type", key,
                           json_is_string(v) ? json_string_value(v) : "a non-string");
        *mask |= 1u << t;
    }
    return true;
}

bool claims_add_json_entry(backend_claims *c, const void *json, dmlc_error *err)
{
    const json_t *j = json;
    const char *name = json_string_value(json_object_get(j, "op"));
    if (!json_is_object(j) || !name)
        return err_set(err, "claims: an entry is not an object with an \"op\" name");
    op_id op = op_from_name(name);
    op_claim o = { .claimed = true };
    for (size_t k = 0; k < 3; k++)
        if (!types_from_json(json_object_get(j, mask_keys[k]), mask_keys[k], mask_of(&o, k), err))
            return false;
    const json_t *indices = json_object_get(j, "indices");
    if (indices && !json_is_boolean(indices))
        return err_set(err, "claims: %s's \"indices\" is not true or false", name);
    o.without_indices = indices && json_is_false(indices);
    if (op != OP_COUNT) /* an operator this dmlcheck does not test: nothing to hold it to */
        c->ops[op] = o;
    c->limited = true;
    return true;
}

bool claims_from_json(const char *text, backend_claims *c, dmlc_error *err)
{
    claims_all(c);
    if (!text || !text[0])
        return true;
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    const json_t *ops = json_object_get(root, "operators");
    const char *level = json_string_value(json_object_get(root, "max_feature_level"));
    bool ok = json_is_array(ops) || err_set(err, "claims: no \"operators\" list in %.80s", text);
    ok = ok && (!level || fl_from_name(level, &c->max_feature_level)
                || err_set(err, "claims: unknown feature level %s", level));
    memset(c->ops, 0, sizeof c->ops);
    size_t i;
    const json_t *entry;
    if (ok)
        json_array_foreach(ops, i, entry)
            if (!(ok = claims_add_json_entry(c, entry, err)))
                break;
    claims_settle(c);
    json_decref(root);
    return ok;
}
