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

/* Whether the id of n characters at at is one of key's ids. */
static bool key_has_id(const char *key, const char *at, size_t n)
{
    for (const char *k = key; *k;) {
        size_t m = key_id_length(k);
        if (m == n && !memcmp(k, at, n))
            return true;
        k = k[m] ? k + m + 1 : k + m;
    }
    return false;
}

/* Whether some id of a is an id of b. */
static bool keys_share_id(const char *a, const char *b)
{
    for (const char *k = a; *k;) {
        size_t m = key_id_length(k);
        if (key_has_id(b, k, m))
            return true;
        k = k[m] ? k + m + 1 : k + m;
    }
    return false;
}

/* One bug's row: the same key; or a single cause and a pair or either-key holding it; or two
 * either-keys with a cause in common.  (Two pairs sharing one cause are two bugs' rows.) */
bool cause_keys_same_bug(const char *a, const char *b)
{
    if (!a || !b || !a[0] || !b[0])
        return false;
    bool a_single = !strpbrk(a, "+|"), b_single = !strpbrk(b, "+|");
    bool both_either = strchr(a, '|') && strchr(b, '|');
    return !strcmp(a, b) || ((a_single != b_single || both_either) && keys_share_id(a, b));
}

const char *cause_key_preferred(const char *a, const char *b)
{
    return strpbrk(a, "+|") && !strpbrk(b, "+|") ? b : a;
}

/* The CAUSE_* family of c's operator. */
static unsigned case_family(const dml_case *c)
{
    return case_module(c)->output_is_index ? CAUSE_ARG_REDUCE : CAUSE_POOLING;
}

const cause *cause_also_possible(const cause *named, const dml_case *c)
{
    for (size_t k = 0; k < CAUSE_COUNT; k++) {
        const cause *h = cause_catalogue[k];
        if (h->named_instead_by && !strcmp(h->named_instead_by, named->id)
            && (h->families & case_family(c)) && !cause_applies(h, c))
            return h;
    }
    return NULL;
}

bool cause_applies(const cause *h, const dml_case *c)
{
    return (h->families & case_family(c)) && (!h->applies || h->applies(c));
}
