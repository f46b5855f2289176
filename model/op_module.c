/* op_module.c: the helpers every operator module shares (op_module.h). */
#include "op_module.h"

#include <stdio.h>

uint64_t op_logical_of_coords(const case_tensor *t, const uint32_t *coords)
{
    uint64_t logical = 0;
    for (unsigned d = 0; d < t->rank; d++)
        logical = logical * t->sizes[d] + coords[d];
    return logical;
}

const char *op_uints_text(const UINT *v, UINT n, char *buf, size_t size)
{
    size_t used = 0;
    int k = snprintf(buf, size, "[");
    used += k > 0 ? (size_t)k : 0;
    for (UINT i = 0; i < n && used < size; i++) {
        k = snprintf(buf + used, size - used, i ? ",%u" : "%u", v[i]);
        used += k > 0 ? (size_t)k : 0;
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}
