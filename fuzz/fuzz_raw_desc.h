/*
 * fuzz_raw_desc.h: bytes <-> a RAW DirectML operator descriptor, for fuzz_validate.
 *
 * Nothing is repaired: the descriptor may have any operator type (unknown ones included),
 * any feature level value, NULL where a pointer is required (the operator's Desc, a tensor,
 * a tensor's Desc, Sizes, Axes, a pooling array), any DataType/Flags/Type enum value, any
 * DimensionCount/AxisCount (0, 9, 0xffffffff), sizes and strides up to 0xffffffff, any
 * TotalTensorSizeInBytes (exact, oversized, too small, arbitrary) and OutputIndicesTensor
 * pointing at OutputTensor's own desc.  Each UINT is drawn as a small value, an edge value
 * (0, 1, 2^31, 2^32-1, ...) or raw 32 bits.
 *
 * Arrays are allocated with exactly their count of entries up to RAW_ARRAY_CAP; a larger
 * count is absurd for these operators (rank <= 8), so its array holds RAW_ARRAY_CAP entries
 * and the validator must reject the count before following the pointer (validate.h: absurd
 * counts are reported, not followed), and ASan reports it if it does not.
 *
 * Writing (io->out) records the bytes that rebuild a raw descriptor filled by
 * fuzz_raw_desc_from_case, so valid cases become seeds.
 */
#ifndef DMLCHECK_FUZZ_RAW_DESC_H
#define DMLCHECK_FUZZ_RAW_DESC_H

#include <stdbool.h>

#include "case.h"
#include "fuzz_common.h"

#define RAW_ARRAY_CAP 4096u
#define RAW_DRAWN_ENTRIES 16u /* entries drawn from the input; later ones are 1 */

typedef struct raw_tensor {
    bool present;      /* the operator's pointer to this DML_TENSOR_DESC is not NULL */
    bool has_buffer;   /* DML_TENSOR_DESC.Desc is not NULL */
    DML_TENSOR_DESC desc;
    DML_BUFFER_TENSOR_DESC buffer;
    UINT *sizes, *strides; /* owned; NULL when the descriptor's pointer is NULL */
} raw_tensor;

typedef enum raw_indices { RAW_INDICES_NONE, RAW_INDICES_OWN, RAW_INDICES_SAME_AS_OUTPUT } raw_indices;

enum { RAW_POOL_STRIDES, RAW_POOL_WINDOW, RAW_POOL_START, RAW_POOL_END, RAW_POOL_DILATIONS, RAW_POOL_ARRAYS };

typedef struct raw_desc {
    DML_OPERATOR_DESC op;      /* op.Desc points at arg or pool, or is NULL */
    bool has_desc;
    DML_FEATURE_LEVEL feature_level;
    nan_policy nan;
    raw_tensor input, output, indices;
    raw_indices indices_kind;  /* MAX_POOLING2 */
    DML_ARGMAX_OPERATOR_DESC arg; /* ARGMIN and ARGMAX share this layout */
    DML_MAX_POOLING2_OPERATOR_DESC pool;
    UINT *axes;                   /* owned */
    UINT *pool_arrays[RAW_POOL_ARRAYS]; /* owned */
} raw_desc;

void fuzz_raw_desc_init(raw_desc *r);
void fuzz_raw_desc_free(raw_desc *r);
/* Reading: draws a descriptor into r (initialised).  Writing: records r.  Pointers are
 * (re)linked either way.  False only on allocation failure. */
bool fuzz_raw_desc_draw(fuzz_io *io, raw_desc *r);
/* Fills r (initialised) with c's descriptor, for writing.  False on allocation failure. */
bool fuzz_raw_desc_from_case(raw_desc *r, const dml_case *c, const exec_options *opt);

#endif
