/*
 * cl_params.h: the layout of the parameter block that opens every device arena, shared by
 * the host (C17) and the kernels (OpenCL C 1.2): only #defines, valid in both languages.
 * The host writes each block as an array of 64-bit words (ulong on the device) into the
 * arena, after the dispatch block that leads the kernels to them, so a kernel needs a single
 * argument (the arena) and the host never calls clSetKernelArg per case.  Byte offsets into
 * the arena are multiples of CLP_ALIGN.
 *
 * Invariant: every word index below is < CLP_WORDS, and the two operator families use
 * disjoint ranges after the common header.
 */
#ifndef DMLCHECK_CL_PARAMS_H
#define DMLCHECK_CL_PARAMS_H

#define CLP_ALIGN 128 /* bytes; regions of the arena start on this boundary */

/* The dispatch block at byte 0 of the arena: one launch of a kernel serves every case of a
 * batch that uses it.  Word 2k of the block is the byte offset of kernel k's case table,
 * word 2k + 1 the number of cases in it (0: the kernel has nothing to do).  A table holds,
 * for each of its cases in order, the first work-item of the launch that belongs to it and
 * the byte offset of its parameter block, then one last word: the launch's work-items.  A
 * work-item finds its case by binary search and runs as work-item (gid - first) of that
 * case, so a batch of one case is the plain run.  Kernel ids: */
#define CLK_ARG_REDUCE 0
#define CLK_ARG_REDUCE_COMBINE 1
#define CLK_ARG_REDUCE_COLUMNS 2
#define CLK_MAX_POOLING2 3
#define CLK_COUNT 4
#define CLP_DISPATCH_WORDS (2 * CLK_COUNT)

/* The parameter block of one case (at the offset its table entry gives).  Every byte offset
 * in it counts from the start of the arena.  Common header: */
#define CLP_DTYPE 0          /* DML_TENSOR_DATA_TYPE of the input */
#define CLP_IN_OFFSET 1      /* byte offset of the input tensor's buffer in the arena */
#define CLP_OUT_OFFSET 2     /* byte offset of the output tensor's buffer */
#define CLP_OUT_BYTES 3      /* output element size in bytes */
#define CLP_OUT_TOTAL 4      /* output TotalTensorSizeInBytes (fault injection only) */
#define CLP_IDX_OFFSET 5     /* byte offset of MAX_POOLING2's indices buffer */
#define CLP_IDX_BYTES 6      /* indices element size; 0 when there is no indices tensor */
#define CLP_SCRATCH_OFFSET 7 /* byte offset of the partial results of split reductions */
#define CLP_NAN_KEY 8        /* key of a NaN under the NaN policy (as a signed 64-bit) */
#define CLP_ORIENT 9         /* key orientation mask: 0 maximise, -1 minimise (ARGMIN) */
#define CLP_FLUSH 10         /* 1: fp32 denormals are judged and moved as signed zeros */
#define CLP_IN_TOTAL 11      /* input TotalTensorSizeInBytes (fault injection only) */
#define CLP_ARENA_BYTES 12   /* size of the device buffer holding the arena (fault injection only) */

/* ARGMIN / ARGMAX (arg_reduce.cl).  Dimensions are coalesced on the host: "kept" dimensions
 * address an output element (row-major over them gives the output's logical index), reduced
 * dimensions are in ascending axis order (row-major over them gives the index, D2). */
#define CLP_AR_OUT_COUNT 16  /* M: output elements */
#define CLP_AR_RED_COUNT 17  /* K: elements reduced into each output (< 2^32) */
#define CLP_AR_SPLIT 18      /* S: work-items per output; 1 means no combine pass */
#define CLP_AR_DECREASING 19 /* 1: ties go to the last index (DML_AXIS_DIRECTION_DECREASING) */
#define CLP_AR_KEPT_RANK 20
#define CLP_AR_RED_RANK 21
#define CLP_AR_CHUNK 22      /* 0: work-item s takes k = s + j * S; else k in [s * CHUNK, + CHUNK) */
#define CLP_AR_COLUMN_VECTORS 23 /* arg_reduce_columns: 16-column vectors per work-item (1-4) */
#define CLP_AR_KEPT_SIZE 24       /* [8] */
#define CLP_AR_KEPT_IN_STRIDE 32  /* [8] elements */
#define CLP_AR_KEPT_OUT_STRIDE 40 /* [8] elements */
#define CLP_AR_RED_SIZE 48        /* [8] */
#define CLP_AR_RED_IN_STRIDE 56   /* [8] elements */

/* MAX_POOLING2 (max_pooling2.cl), always as 5-D {N, C, D, H, W}: a 4-D case has D = 1 and a
 * 1-wide, unpadded, undilated depth window. */
#define CLP_MP_ROWS 16         /* output rows: N * C * D_out * H_out */
#define CLP_MP_RUN 17          /* outputs of a row per work-item */
#define CLP_MP_RUNS_PER_ROW 18 /* ceil(W_out / CLP_MP_RUN) */
#define CLP_MP_IN_SIZE 24     /* [5] N, C, D, H, W */
#define CLP_MP_IN_STRIDE 32   /* [5] elements */
#define CLP_MP_OUT_SIZE 40    /* [5] */
#define CLP_MP_OUT_STRIDE 48  /* [5] elements */
#define CLP_MP_IDX_STRIDE 56  /* [5] elements */
#define CLP_MP_STRIDE 64      /* [3] D, H, W */
#define CLP_MP_WINDOW 72      /* [3] */
#define CLP_MP_START_PAD 80   /* [3] */
#define CLP_MP_DILATION 88    /* [3] */

#define CLP_WORDS 96

/* DML_TENSOR_DATA_TYPE values the kernels switch on (directml.h, SEMANTICS "Tensors"). */
#define CLP_T_FLOAT32 1
#define CLP_T_FLOAT16 2
#define CLP_T_UINT32 3
#define CLP_T_UINT16 4
#define CLP_T_UINT8 5
#define CLP_T_INT32 6
#define CLP_T_INT16 7
#define CLP_T_INT8 8
#define CLP_T_UINT64 10
#define CLP_T_INT64 11

#endif
