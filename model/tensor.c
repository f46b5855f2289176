/* tensor.c: buffer-size and addressing arithmetic for DML_BUFFER_TENSOR_DESC. */
#include "tensor.h"

#include "dtype.h"

static bool mul_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static bool add_u64(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_add_overflow(a, b, r); }

UINT64 dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type, UINT dimension_count,
                                   const UINT *sizes, const UINT *strides)
{
    uint64_t elem = dtype_size(type), last = 0;
    if (!elem || !sizes)
        return 0;
    if (strides) {
        for (UINT i = 0; i < dimension_count; i++) {
            uint64_t term;
            if (sizes[i] == 0)
                return 0;
            if (!mul_u64((uint64_t)sizes[i] - 1, strides[i], &term) || !add_u64(last, term, &last))
                return 0;
        }
        if (!add_u64(last, 1, &last))
            return 0;
    } else {
        last = tensor_element_count(dimension_count, sizes);
        if (last == 0 || last == UINT64_MAX)
            return 0;
    }
    uint64_t bytes;
    if (!mul_u64(last, elem, &bytes) || !add_u64(bytes, 3, &bytes))
        return 0;
    return bytes & ~(uint64_t)3;
}

uint64_t tensor_element_count(UINT dimension_count, const UINT *sizes)
{
    uint64_t n = 1;
    for (UINT i = 0; i < dimension_count; i++)
        if (!mul_u64(n, sizes[i], &n))
            return UINT64_MAX;
    return n;
}

void tensor_packed_strides(UINT dimension_count, const UINT *sizes, uint64_t *strides)
{
    uint64_t s = 1;
    for (UINT i = dimension_count; i-- > 0;) {
        strides[i] = s;
        s *= sizes[i];
    }
}

void tensor_view_from_desc(tensor_view *v, const DML_BUFFER_TENSOR_DESC *d)
{
    v->type = d->DataType;
    v->rank = d->DimensionCount;
    for (unsigned i = 0; i < v->rank; i++)
        v->sizes[i] = d->Sizes[i];
    if (d->Strides)
        for (unsigned i = 0; i < v->rank; i++)
            v->strides[i] = d->Strides[i];
    else
        tensor_packed_strides(v->rank, d->Sizes, v->strides);
    v->elements = tensor_element_count(v->rank, d->Sizes);
}

