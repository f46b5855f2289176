/* cl_case.c: DirectML descriptors -> cl_case (cl_case.h). */
#include "cl_case.h"

#include <stdio.h>
#include <string.h>

unsigned cl_dtype_size(DML_TENSOR_DATA_TYPE t)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT64:
    case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64:
        return 8;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_INT32:
        return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_UINT16:
    case DML_TENSOR_DATA_TYPE_INT16:
        return 2;
    case DML_TENSOR_DATA_TYPE_UINT8:
    case DML_TENSOR_DATA_TYPE_INT8:
        return 1;
    case DML_TENSOR_DATA_TYPE_UNKNOWN:
        break;
    }
    return 0;
}

static bool view_from(const DML_TENSOR_DESC *d, cl_view *v)
{
    memset(v, 0, sizeof *v);
    if (!d || d->Type != DML_TENSOR_TYPE_BUFFER || !d->Desc)
        return false;
    const DML_BUFFER_TENSOR_DESC *b = d->Desc;
    if (b->DimensionCount == 0 || b->DimensionCount > CL_MAX_RANK || !b->Sizes)
        return false;
    v->present = true;
    v->type = b->DataType;
    v->rank = b->DimensionCount;
    v->total_bytes = b->TotalTensorSizeInBytes;
    v->elements = 1;
    for (unsigned i = v->rank; i-- > 0;) {
        v->sizes[i] = b->Sizes[i];
        v->strides[i] = b->Strides ? b->Strides[i] : v->elements;
        v->elements *= b->Sizes[i];
    }
    return true;
}

static bool arg_reduce_from(const DML_ARGMAX_OPERATOR_DESC *d, cl_case *c, char *why, size_t size)
{
    c->family = CL_FAMILY_ARG_REDUCE;
    if (!view_from(d->InputTensor, &c->input) || !view_from(d->OutputTensor, &c->output)
        || d->AxisCount == 0 || d->AxisCount > c->input.rank || !d->Axes) {
        snprintf(why, size, "the tensors or axes are not ones the OpenCL backend can hold");
        return false;
    }
    for (UINT a = 0; a < d->AxisCount; a++)
        if (d->Axes[a] >= c->input.rank) {
            snprintf(why, size, "Axes[%u] is %u, beyond the input's rank %u", a, d->Axes[a],
                     c->input.rank);
            return false;
        }
    c->axis_count = d->AxisCount;
    memcpy(c->axes, d->Axes, d->AxisCount * sizeof *c->axes);
    c->decreasing = d->AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    return true;
}

/* MAX_POOLING1's struct is MAX_POOLING2's without Dilations: never read past it. */
static bool pooling_from(const DML_MAX_POOLING2_OPERATOR_DESC *d, bool dilations, cl_case *c,
                         char *why, size_t size)
{
    c->family = CL_FAMILY_MAX_POOLING;
    if (!view_from(d->InputTensor, &c->input) || !view_from(d->OutputTensor, &c->output)
        || (d->OutputIndicesTensor && !view_from(d->OutputIndicesTensor, &c->indices))
        || d->DimensionCount < 2 || d->DimensionCount > CL_MAX_SPATIAL
        || d->DimensionCount + 2 != c->input.rank || !d->Strides || !d->WindowSize
        || !d->StartPadding || (dilations && !d->Dilations)) {
        snprintf(why, size, "the tensors or pooling arrays are not ones the OpenCL backend can hold");
        return false;
    }
    c->spatial_count = d->DimensionCount;
    for (unsigned s = 0; s < c->spatial_count; s++) {
        c->pool_strides[s] = d->Strides[s];
        c->window[s] = d->WindowSize[s];
        c->start_padding[s] = d->StartPadding[s];
        c->dilations[s] = dilations ? d->Dilations[s] : 1;
    }
    return true;
}

bool cl_case_from_desc(const DML_OPERATOR_DESC *desc, cl_case *c, char *why, size_t size)
{
    memset(c, 0, sizeof *c);
    if (!desc || !desc->Desc) {
        snprintf(why, size, "no operator descriptor");
        return false;
    }
    switch (desc->Type) {
    case DML_OPERATOR_ARGMIN:
        c->minimize = true;
        return arg_reduce_from(desc->Desc, c, why, size); /* ARGMIN has ARGMAX's layout */
    case DML_OPERATOR_ARGMAX:
        return arg_reduce_from(desc->Desc, c, why, size);
    case DML_OPERATOR_MAX_POOLING1:
        return pooling_from(desc->Desc, false, c, why, size);
    case DML_OPERATOR_MAX_POOLING2:
        return pooling_from(desc->Desc, true, c, why, size);
    default:
        snprintf(why, size, "the OpenCL backend has no kernel for operator type %u",
                 (unsigned)desc->Type);
        return false;
    }
}
