/*
 * tensor.h: DML_BUFFER_TENSOR_DESC arithmetic.  All size arithmetic is 64-bit and checked:
 * a descriptor whose sizes overflow reports it instead of wrapping.  Strides count elements;
 * indices that operators produce always count logical row-major positions (SEMANTICS D1).
 */
#ifndef DMLCHECK_TENSOR_H
#define DMLCHECK_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlcheck/directml.h"

#define DML_MAX_RANK 8
#define DML_MAX_SPATIAL 3

/* DMLCalcBufferTensorSize: with strides roundup((dot(Sizes-1, Strides)+1)*elemSize, 4),
 * without roundup(prod(Sizes)*elemSize, 4).  Returns 0 when a size is 0, the type is
 * unknown, or the arithmetic overflows 64 bits (no valid tensor has size 0). */
UINT64 dml_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type, UINT dimension_count,
                                   const UINT *sizes, const UINT *strides);

/* Product of sizes, or UINT64_MAX on overflow. */
uint64_t tensor_element_count(UINT dimension_count, const UINT *sizes);
/* Row-major packed strides for sizes (last dimension stride 1). */
void tensor_packed_strides(UINT dimension_count, const UINT *sizes, uint64_t *strides);

/* A validated tensor, flattened for fast addressing: effective element strides (packed when
 * the descriptor has none). */
typedef struct tensor_view {
    DML_TENSOR_DATA_TYPE type;
    unsigned rank;
    uint32_t sizes[DML_MAX_RANK];
    uint64_t strides[DML_MAX_RANK];
    uint64_t elements;
} tensor_view;

void tensor_view_from_desc(tensor_view *v, const DML_BUFFER_TENSOR_DESC *d);
/* These are inline: the generator, the comparison, the judge and the fuzz oracles call
 * them per element (an out-of-line call into the coverage-instrumented model library cost the
 * fuzz oracles, which are built without that instrumentation, most of their time). */
/* Element offset in the buffer of the logical element with row-major index `logical`. */
static inline uint64_t tensor_view_offset(const tensor_view *v, uint64_t logical)
{
    uint64_t off = 0;
    for (unsigned i = v->rank; i-- > 0;) {
        off += (logical % v->sizes[i]) * v->strides[i];
        logical /= v->sizes[i];
    }
    return off;
}
/* Element offset of coordinates coords[0..rank). */
static inline uint64_t tensor_view_offset_coords(const tensor_view *v, const uint32_t *coords)
{
    uint64_t off = 0;
    for (unsigned i = 0; i < v->rank; i++)
        off += coords[i] * v->strides[i];
    return off;
}
/* Advances row-major coordinates by one, keeping the element offset in step. */
static inline void tensor_view_step(const tensor_view *v, uint32_t *coords, uint64_t *offset)
{
    for (unsigned d = v->rank; d-- > 0;) {
        *offset += v->strides[d];
        if (++coords[d] < v->sizes[d])
            return;
        *offset -= v->strides[d] * v->sizes[d];
        coords[d] = 0;
    }
}
/* Splits a logical row-major index into coordinates. */
static inline void tensor_view_coords(const tensor_view *v, uint64_t logical, uint32_t *coords)
{
    for (unsigned i = v->rank; i-- > 0;) {
        coords[i] = (uint32_t)(logical % v->sizes[i]);
        logical /= v->sizes[i];
    }
}

#endif
