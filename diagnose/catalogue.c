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

/* The length of the id that starts key (up to its '+' or '|'). */
static size_t key_id_length(const char *key)
{
    return strcspn(key, "+|");
}

/* The entry of the id of n characters at at; NULL when none. */
static const cause *find_id(const char *at, size_t n)
{
    char id[128];
    if (n >= sizeof id)
        return NULL;
    memcpy(id, at, n);
    id[n] = 0;
    return cause_find(id);
}

bool cause_key_is_other_bug(const char *key)
{
    bool any = false;
    for (const char *at = key; at && *at;) {
        size_t n = key_id_length(at);
        const cause *h = find_id(at, n);
        if (!h || h->nan_policy)
            return false;
        any = true;
        at = at[n] ? at + n + 1 : NULL;
    }
    return any;
}

const cause *cause_key_first(const char *key)
{
    return key ? find_id(key, key_id_length(key)) : NULL;
}

/* Whether the id of n characters at at is one of key's ids, joined by `joiner`. */
static bool key_has_id(const char *key, char joiner, const char *at, size_t n)
{
    if (!strchr(key, joiner))
        return false;
    for (const char *k = key; *k;) {
        size_t m = key_id_length(k);
        if (m == n && !memcmp(k, at, n))
            return true;
        k = k[m] ? k + m + 1 : k + m;
    }
    return false;
}

/* Whether single-cause key a is a part of pair or either-key b. */
static bool part_of(const char *a, const char *b)
{
    return !strpbrk(a, "+|") && (key_has_id(b, '+', a, strlen(a)) || key_has_id(b, '|', a, strlen(a)));
}

/* Whether either-keys a and b share a cause. */
static bool either_keys_meet(const char *a, const char *b)
{
    if (!strchr(a, '|') || !strchr(b, '|'))
        return false;
    for (const char *k = a; *k;) {
        size_t m = key_id_length(k);
        if (key_has_id(b, '|', k, m))
            return true;
        k = k[m] ? k + m + 1 : k + m;
    }
    return false;
}

bool cause_keys_same_bug(const char *a, const char *b)
{
    return a && b && a[0] && b[0]
           && (!strcmp(a, b) || part_of(a, b) || part_of(b, a) || either_keys_meet(a, b));
}

const char *cause_key_preferred(const char *a, const char *b)
{
    return strpbrk(a, "+|") && !strpbrk(b, "+|") ? b : a;
}

const cause *cause_also_possible(const cause *named, const dml_case *c)
{
    for (size_t k = 0; k < CAUSE_COUNT; k++) {
        const cause *h = cause_catalogue[k];
        if (h->named_instead_by && !strcmp(h->named_instead_by, named->id)
            && !cause_applies(h, c) && (h->families & (case_module(c)->output_is_index
                                                           ? CAUSE_ARG_REDUCE : CAUSE_POOLING)))
            return h;
    }
    return NULL;
}

bool cause_applies(const cause *h, const dml_case *c)
{
    unsigned family = case_module(c)->output_is_index ? CAUSE_ARG_REDUCE : CAUSE_POOLING;
    return (h->families & family) && (!h->applies || h->applies(c));
}
