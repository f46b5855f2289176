/*
 * nan_policies.c: the answer of each NaN policy from one scan (nan_policies.h), and the
 * policies' names.
 */
#include "nan_policies.h"

#include <stdio.h>
#include <string.h>

static const char *const policy_names[NAN_POLICY_COUNT] = {
#define X(id, name) name,
    NAN_POLICIES(X)
#undef X
};

const char *nan_policy_id_name(nan_policy_id p)
{
    return p < NAN_POLICY_COUNT ? policy_names[p] : "?";
}

const char *nan_policies_text(unsigned mask, char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (unsigned p = 0; p < NAN_POLICY_COUNT; p++)
        if (mask & (1u << p)) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", policy_names[p]);
            if (n < 0 || (size_t)n >= size - used)
                return buf;
            used += (size_t)n;
        }
    if (!used)
        snprintf(buf, size, "none");
    return buf;
}

nan_pick nan_scan_answer(const nan_scan *s, nan_policy_id p)
{
    /* The visit order is ascending; DECREASING scans it backwards, so its firsts are the
     * visit's lasts and the run after its last NaN is the run before the first visited. */
    bool back = s->backwards;
    nan_pick scan_first = back ? s->last_visited : s->first_visited;
    nan_pick first_nan = back ? s->last_visited_nan : s->first_visited_nan;
    nan_pick last_nan = back ? s->first_visited_nan : s->last_visited_nan;
    nan_pick run_after_last_nan = back ? s->before_first_nan : s->after_last_nan;
    nan_pick ignore = s->best.found ? s->best : first_nan;
    switch (p) {
    case NAN_POLICY_ID_IGNORE: return ignore;
    case NAN_POLICY_ID_PROPAGATE_FIRST: return s->saw_nan ? first_nan : s->best;
    case NAN_POLICY_ID_PROPAGATE_LAST: return s->saw_nan ? last_nan : s->best;
    case NAN_POLICY_ID_FIRST_STICKY: return scan_first.is_nan ? scan_first : ignore;
    case NAN_POLICY_ID_NAN_RESTARTS:
        return !s->saw_nan ? s->best : run_after_last_nan.found ? run_after_last_nan : last_nan;
    case NAN_POLICY_COUNT: break;
    }
    return (nan_pick){ .found = false };
}
