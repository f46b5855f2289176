/*
 * catalogue.c: the table of root causes, built from causes.def.
 */
#include <string.h>

#include "cause.h"
#include "op_module.h"

#define CAUSE(name) extern const cause cause_##name;
#include "causes.def"
#undef CAUSE

const cause *const cause_catalogue[CAUSE_COUNT] = {
#define CAUSE(name) &cause_##name,
#include "causes.def"
#undef CAUSE
};

/* Masks of candidates and rivals are 64-bit words. */
_Static_assert(CAUSE_COUNT <= 64, "a diagnosis keeps its causes in 64-bit masks");

const cause *cause_find(const char *id)
{
    for (size_t k = 0; k < CAUSE_COUNT; k++)
        if (!strcmp(cause_catalogue[k]->id, id))
            return cause_catalogue[k];
    return NULL;
}

bool cause_key_is_other_bug(const char *key)
{
    char id[128];
    bool any = false;
    for (const char *at = key; at && *at;) {
        const char *plus = strchr(at, '+');
        size_t n = plus ? (size_t)(plus - at) : strlen(at);
        if (n >= sizeof id)
            return false;
        memcpy(id, at, n);
        id[n] = 0;
        const cause *h = cause_find(id);
        if (!h || h->nan_policy)
            return false;
        any = true;
        at = plus ? plus + 1 : NULL;
    }
    return any;
}

bool cause_applies(const cause *h, const dml_case *c)
{
    unsigned family = case_module(c)->output_is_index ? CAUSE_ARG_REDUCE : CAUSE_POOLING;
    return (h->families & family) && (!h->applies || h->applies(c));
}
