/*
 * directml.h mirror: the subset of DirectML's public types that the operators under test
 * use (ARGMIN, ARGMAX, MAX_POOLING1, MAX_POOLING2), with
 * DirectML's names, field order and enum values (from microsoft/DirectX-Headers
 * include/directx/DirectML.h), so code written against DirectML can hand dmlcheck the same
 * structs.  Plain C17, no Windows headers.
 */
#ifndef DMLCHECK_DIRECTML_H
#define DMLCHECK_DIRECTML_H

#include <stdint.h>

typedef uint32_t UINT;
typedef uint64_t UINT64;

typedef enum DML_TENSOR_DATA_TYPE {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32 = 3,
    DML_TENSOR_DATA_TYPE_UINT16 = 4,
    DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6,
    DML_TENSOR_DATA_TYPE_INT16 = 7,
    DML_TENSOR_DATA_TYPE_INT8 = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64 = 10,
    DML_TENSOR_DATA_TYPE_INT64 = 11,
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE {
    DML_TENSOR_TYPE_INVALID = 0,
    DML_TENSOR_TYPE_BUFFER = 1,
} DML_TENSOR_TYPE;

typedef enum DML_TENSOR_FLAGS {
    DML_TENSOR_FLAG_NONE = 0x0,
    DML_TENSOR_FLAG_OWNED_BY_DML = 0x1,
} DML_TENSOR_FLAGS;

typedef struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT *Sizes;
    const UINT *Strides; /* optional: NULL means packed row-major; counts elements */
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
    DML_TENSOR_TYPE Type;
    const void *Desc;
} DML_TENSOR_DESC;

typedef enum DML_AXIS_DIRECTION {
    DML_AXIS_DIRECTION_INCREASING = 0,
    DML_AXIS_DIRECTION_DECREASING = 1,
} DML_AXIS_DIRECTION;

typedef enum DML_FEATURE_LEVEL {
    DML_FEATURE_LEVEL_1_0 = 0x1000,
    DML_FEATURE_LEVEL_2_0 = 0x2000,
    DML_FEATURE_LEVEL_2_1 = 0x2100,
    DML_FEATURE_LEVEL_3_0 = 0x3000,
    DML_FEATURE_LEVEL_3_1 = 0x3100,
    DML_FEATURE_LEVEL_4_0 = 0x4000,
    DML_FEATURE_LEVEL_4_1 = 0x4100,
    DML_FEATURE_LEVEL_5_0 = 0x5000,
    DML_FEATURE_LEVEL_5_1 = 0x5100,
    DML_FEATURE_LEVEL_5_2 = 0x5200,
    DML_FEATURE_LEVEL_6_0 = 0x6000,
    DML_FEATURE_LEVEL_6_1 = 0x6100,
    DML_FEATURE_LEVEL_6_2 = 0x6200,
    DML_FEATURE_LEVEL_6_3 = 0x6300,
    DML_FEATURE_LEVEL_6_4 = 0x6400,
} DML_FEATURE_LEVEL;

/* Only the operator types this harness covers; values from DirectML.h. */
typedef enum DML_OPERATOR_TYPE {
    DML_OPERATOR_INVALID = 0,
    DML_OPERATOR_MAX_POOLING1 = 91,
    DML_OPERATOR_MAX_POOLING2 = 110,
    DML_OPERATOR_ARGMIN = 137,
    DML_OPERATOR_ARGMAX = 138,
} DML_OPERATOR_TYPE;

typedef struct DML_OPERATOR_DESC {
    DML_OPERATOR_TYPE Type;
    const void *Desc;
} DML_OPERATOR_DESC;

typedef struct DML_ARGMIN_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT AxisCount;
    const UINT *Axes;
    DML_AXIS_DIRECTION AxisDirection;
} DML_ARGMIN_OPERATOR_DESC;

typedef struct DML_ARGMAX_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT AxisCount;
    const UINT *Axes;
    DML_AXIS_DIRECTION AxisDirection;
} DML_ARGMAX_OPERATOR_DESC;

/* MAX_POOLING2 without Dilations (identical to MAX_POOLING2 with every dilation 1). */
typedef struct DML_MAX_POOLING1_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    const DML_TENSOR_DESC *OutputIndicesTensor; /* optional */
    UINT DimensionCount;
    const UINT *Strides;
    const UINT *WindowSize;
    const UINT *StartPadding;
    const UINT *EndPadding;
} DML_MAX_POOLING1_OPERATOR_DESC;

typedef struct DML_MAX_POOLING2_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    const DML_TENSOR_DESC *OutputIndicesTensor; /* optional */
    UINT DimensionCount;
    const UINT *Strides;
    const UINT *WindowSize;
    const UINT *StartPadding;
    const UINT *EndPadding;
    const UINT *Dilations;
} DML_MAX_POOLING2_OPERATOR_DESC;

#endif /* DMLCHECK_DIRECTML_H */
