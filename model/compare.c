/* compare.c: logical-element comparison of output buffers. */
#include "compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"

bool compare_bits_equal(DML_TENSOR_DATA_TYPE t, uint64_t a, uint64_t b)
{
    if (dtype_bits_is_nan(t, a) && dtype_bits_is_nan(t, b))
        return true;
    return a == b;
}

/* get(i) yields the bits of logical element i of each side; one side may be an array. */
typedef struct side {
    const uint8_t *buf;     /* strided buffer, or NULL when `array` is used */
    const uint64_t *array;  /* logical row-major bits */
} side;

/* Logical element i, which sits at element offset `offset` of a strided buffer. */
static uint64_t side_get(const side *s, const tensor_view *v, uint64_t i, uint64_t offset)
{
    if (s->array)
        return s->array[i];
    return dtype_load_bits(s->buf, v->type, offset);
}

static void compare_tensor(const char *name, const case_tensor *t, const side *a, const side *b,
                           mismatch *first, uint64_t *count)
{
    tensor_view v;
    case_tensor_view(t, &v);
    uint32_t coords[DML_MAX_RANK] = { 0 };
    uint64_t offset = 0;
    for (uint64_t i = 0; i < v.elements; i++, tensor_view_step(&v, coords, &offset)) {
        uint64_t x = side_get(a, &v, i, offset), y = side_get(b, &v, i, offset);
        if (compare_bits_equal(v.type, x, y))
            continue;
        if (*count == 0 && first) {
            first->tensor = name;
            first->logical_index = i;
            first->rank = v.rank;
            memcpy(first->coords, coords, sizeof first->coords);
            first->expected_bits = x;
            first->got_bits = y;
        }
        ++*count;
    }
}

/* Both buffers of one tensor hold the same bytes, gaps included: then every logical element
 * agrees, and the element walk is not needed.  Only for buffers of the tensor's full size. */
static bool same_bytes(const case_tensor *t, const uint8_t *a, uint64_t a_bytes, const uint8_t *b,
                       uint64_t b_bytes)
{
    uint64_t bytes = case_tensor_bytes(t);
    return a_bytes == bytes && b_bytes == bytes && !memcmp(a, b, bytes);
}

bool compare_outputs(const dml_case *c, const case_outputs *expected, const case_outputs *got,
                     mismatch *first)
{
    if (same_bytes(&c->output, expected->output, expected->output_bytes, got->output, got->output_bytes)
        && (!c->indices.present || same_bytes(&c->indices, expected->indices, expected->indices_bytes,
                                              got->indices, got->indices_bytes))) {
        if (first)
            first->count = 0;
        return true;
    }
    uint64_t count = 0;
    side a = { expected->output, NULL }, b = { got->output, NULL };
    compare_tensor("output", &c->output, &a, &b, first, &count);
    if (c->indices.present) {
        a = (side){ expected->indices, NULL };
        b = (side){ got->indices, NULL };
        compare_tensor("indices", &c->indices, &a, &b, first, &count);
    }
    if (first)
        first->count = count;
    return count == 0;
}

bool compare_with_expected(const dml_case *c, const case_outputs *got, mismatch *first)
{
    uint64_t count = 0;
    if (c->has_expected_output) {
        side a = { NULL, c->expected_output }, b = { got->output, NULL };
        compare_tensor("output", &c->output, &a, &b, first, &count);
    }
    if (c->has_expected_indices && c->indices.present) {
        side a = { NULL, c->expected_indices }, b = { got->indices, NULL };
        compare_tensor("indices", &c->indices, &a, &b, first, &count);
    }
    if (first)
        first->count = count;
    return count == 0;
}

const char *compare_format_value(DML_TENSOR_DATA_TYPE t, uint64_t bits, char *buf, unsigned size)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT32 || t == DML_TENSOR_DATA_TYPE_FLOAT16)
        snprintf(buf, size, "%a (0x%0*" PRIx64 ")", dtype_bits_to_double(t, bits),
                 (int)dtype_size(t) * 2, bits);
    else if (dtype_is_signed_int(t))
        snprintf(buf, size, "%" PRId64, dtype_bits_to_i64(t, bits));
    else
        snprintf(buf, size, "%" PRIu64, bits);
    return buf;
}
