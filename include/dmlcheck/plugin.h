/*
 * dmlcheck/plugin.h: the dmlcheck plug-in ABI, version 1.1 (major 1: what a plug-in
 * built against any 1.x header keeps loading with; minor 1: per-operator claims).  Implement it in a shared library
 * and `dmlcheck run --backend plugin:/path/libyours.so[,key=value...]` tests your
 * implementation of the operators in dmlcheck/directml.h against dmlcheck's reference.
 *
 * The contract, in the order dmlcheck calls you (all in one worker process, which dmlcheck
 * forks and restarts if you crash or hang; one thread):
 *   1. dmlcheck_plugin_entry(DMLCHECK_PLUGIN_ABI_VERSION) returns your function table.  Return
 *      NULL if you cannot serve that ABI version.
 *   2. open(args): the key=value words after the library path (NULL-terminated; "device=1"),
 *      -> a context of yours.
 *   3. capabilities and info, once.
 *   4. For every case: create(descriptor, feature level) -> DMLCHECK_OK with an operator
 *      handle, DMLCHECK_INVALID (DirectML requires this descriptor to be refused at that
 *      level), DMLCHECK_UNSUPPORTED (valid, but you cannot run it: say why) or DMLCHECK_ERROR;
 *      then execute(handle, buffers) once or more, then destroy(handle).  The descriptor and
 *      everything it points to live only during create: copy what you keep.  A plug-in with
 *      execute_batch gets several created cases in one call instead (see there).
 *   5. close.
 * Buffers belong to dmlcheck and are exactly TotalTensorSizeInBytes long, laid out by the
 * tensors' Strides (bytes between logical elements hold decoy values that must not win);
 * outputs are pre-filled with a canary and sit between guard bands; the input must not
 * change.  Write every logical output element; leave every other byte alone.
 *
 * Threads: dmlcheck makes one call at a time, from one thread of its worker process.  You may
 * start threads of your own (in open, say); a case's work must be done when execute returns,
 * and nothing may touch its buffers after.  After a crash or hang the worker, your threads
 * with it, is killed and a new one calls open again.
 *
 * What to compute (docs/PLUGIN.md "What your operator must get right"; the why in
 * docs/SEMANTICS.md, D1-D9):
 *   - Feature levels tested: 2_0, 2_1, 3_0, 4_1, 5_0.  MAX_POOLING1 from 2_0, MAX_POOLING2
 *     from 2_1, ARGMIN/ARGMAX from 3_0; the types allowed grow with the level.
 *   - ARGMIN/ARGMAX: OutputTensor is INT32, INT64, UINT32 or UINT64, each holding the same
 *     index: the row-major position inside the reduced sub-tensor, the reduced axes taken in
 *     ascending order whatever the order of Axes (D2).  Ties: INCREASING returns the first
 *     extreme, DECREASING the last (D3).
 *   - MAX_POOLING1/2: the value is the exact bits of the first maximum of a row-major scan of
 *     the window; OutputIndicesTensor (UINT32, UINT64 from 5_0) holds its flat logical
 *     row-major index over the whole input, N and C included, from Sizes alone (strides never
 *     change an index, D1).  Padding never wins (it is no zero, D7).  A window wholly in
 *     padding has no candidate: whatever you write there is unspecified, not failed (the
 *     reference writes the type's lowest value and an all-ones index), but write it.
 *   - Strides never change a value or an index (D1); NaN behaviour is unspecified (D4);
 *     -infinity is an ordinary value (D5); fp32 denormals are exact unless you claim
 *     DMLCHECK_CAP_FLUSHES_DENORMALS (D6).
 *
 * Growth: a struct this header defines starts with its struct_size as the side that filled
 * it knew it; fields are only ever appended, so either side reads what both know.  The ABI
 * version changes only when a call's meaning changes.  Messages are UTF-8, NUL-terminated,
 * truncated to the size given.  Installed with dmlcheck (pkg-config dmlcheck-plugin); see
 * docs/PLUGIN.md and examples/plugin/.
 */
#ifndef DMLCHECK_PLUGIN_H
#define DMLCHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "dmlcheck/directml.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DMLCHECK_PLUGIN_ABI_VERSION 1u
/* Additions within ABI version 1, each appended to a struct (its struct_size tells whether the
 * other side knows it): 1 = dmlcheck_capabilities.claims.  Informative: the ABI version a
 * plug-in returns stays DMLCHECK_PLUGIN_ABI_VERSION. */
#define DMLCHECK_PLUGIN_ABI_MINOR 1u
/* The one symbol a plug-in exports. */
#define DMLCHECK_PLUGIN_ENTRY_SYMBOL "dmlcheck_plugin_entry"

typedef enum dmlcheck_status {
    DMLCHECK_OK = 0,
    DMLCHECK_INVALID = 1,     /* create: the descriptor must be refused (as DirectML would) */
    DMLCHECK_UNSUPPORTED = 2, /* valid, but this implementation cannot run it */
    DMLCHECK_ERROR = 3,       /* anything else went wrong; the message says what */
    /* execute, for implementations that check memory dmlcheck cannot see (device buffers
     * with guard bands of their own): a write outside an output, or a change to the input,
     * was found there.  Recorded as out_of_bounds_write / input_modified. */
    DMLCHECK_OUT_OF_BOUNDS_WRITE = 4,
    DMLCHECK_INPUT_MODIFIED = 5,
    /* execute, for implementations that run on a checking device (a simulator such as
     * Oclgrind, a sanitizer): it reported a load or store outside every buffer, a data race
     * between work-items, or the use of a value nobody wrote.  The message should carry the
     * device's first line about it.  Recorded as invalid_access / data_race /
     * uninitialised_read; a dmlcheck older than these values records backend_error. */
    DMLCHECK_INVALID_ACCESS = 6,
    DMLCHECK_DATA_RACE = 7,
    DMLCHECK_UNINITIALISED_READ = 8,
} dmlcheck_status;

/* One operator as the implementation claims it (ABI 1.1): the data types it takes in each of
 * the operator's tensors.  A mask holds bit (1u << DML_TENSOR_DATA_TYPE) per type; 0 means
 * every type DirectML allows there.  "ARGMIN/ARGMAX on FLOAT32 and INT32, MAX_POOLING2 on
 * FLOAT32" is three entries. */
typedef struct dmlcheck_operator_claim {
    uint32_t struct_size;     /* sizeof(dmlcheck_operator_claim), the same in every entry */
    DML_OPERATOR_TYPE op;
    uint32_t input_types;     /* InputTensor */
    uint32_t output_types;    /* OutputTensor (ARGMIN/ARGMAX: its index type) */
    uint32_t indices_types;   /* OutputIndicesTensor (MAX_POOLING2), when the case has one */
} dmlcheck_operator_claim;

/* What the implementation claims; dmlcheck holds it to these claims.  A case beyond them is
 * never sent: it is skipped with the reason, and reports count only claimed cells towards
 * "CONFORMANT for what it claims". */
typedef struct dmlcheck_capabilities {
    uint32_t struct_size;                 /* sizeof(dmlcheck_capabilities) as dmlcheck filled it */
    DML_FEATURE_LEVEL max_feature_level;  /* highest level whose rules it implements */
    const DML_OPERATOR_TYPE *operators;   /* the operators it implements (static storage) */
    uint32_t operator_count;
    uint32_t input_types;  /* bit (1u << DML_TENSOR_DATA_TYPE) per input type of every
                              operator above; 0: all */
    uint32_t flags;        /* DMLCHECK_CAP_* */

    /* ABI 1.1, appended: per-operator claims (static storage).  With claim_count > 0 they
     * replace operators, operator_count and input_types: an operator is claimed exactly when
     * an entry names it, with that entry's types (an operator dmlcheck does not know is
     * ignored).  Entry i sits at (const char *)claims + i * claims[0].struct_size.  Write
     * these only when DMLCHECK_CAPS_HAS_CLAIMS(caps): a dmlcheck older than 1.1 passes a
     * smaller struct, and then reads operators and input_types alone; fill those too (for
     * such a dmlcheck, the types every operator takes). */
    const dmlcheck_operator_claim *claims;
    uint32_t claim_count;
} dmlcheck_capabilities;
/* Whether the dmlcheck that filled caps->struct_size reads claims and claim_count. */
#define DMLCHECK_CAPS_HAS_CLAIMS(caps) \
    ((caps)->struct_size >= offsetof(dmlcheck_capabilities, claim_count) + sizeof(uint32_t))
/* The size of a claims entry as ABI 1.1 defined it: dmlcheck accepts entries at least this big. */
#define DMLCHECK_OPERATOR_CLAIM_MIN_SIZE \
    (offsetof(dmlcheck_operator_claim, indices_types) + sizeof(uint32_t))

/* fp32 denormals may be flushed to zero: cases whose answer depends on that are judged
 * against the flushed-input answer too (docs/SEMANTICS.md D6). */
#define DMLCHECK_CAP_FLUSHES_DENORMALS 0x1u
/* create checks descriptors as DirectML does: dmlcheck then also sends descriptors DirectML
 * requires to be refused at the given level, and expects DMLCHECK_INVALID for them (they are
 * only created, never executed).  Without this flag such cases are skipped. */
#define DMLCHECK_CAP_VALIDATES 0x2u

/* Shown in run reports; empty strings are fine. */
typedef struct dmlcheck_info {
    uint32_t struct_size; /* sizeof(dmlcheck_info) */
    char platform[128];   /* "PyTorch", "Acme DirectML" */
    char device[128];     /* "CPU", "GPU 0: ..." */
    char driver[128];     /* library or driver version */
    char runtime[64];     /* the language or runtime version: "OpenCL C 1.2", "CUDA 12.4" */
    char fp_config[128];  /* floating-point facts: "denorm,inf_nan,round_to_nearest" */
} dmlcheck_info;

/* One execution's buffers, yours from execute's call until it returns.  Each output starts
 * filled with the canary byte 0xA5 (not zeros) between guard bands: you may read an output,
 * but it holds the canary, so never accumulate into it; an element left unwritten keeps 0xA5
 * and fails; a byte written before or after the buffer is out_of_bounds_write.  Read only the
 * input's logical elements (the bytes between them are decoys) and never write it
 * (input_modified). */
typedef struct dmlcheck_buffers {
    uint32_t struct_size;     /* sizeof(dmlcheck_buffers) as dmlcheck filled it */
    uint32_t hints;           /* DMLCHECK_HINT_*: may be ignored */
    const void *input;        /* InputTensor */
    uint64_t input_size;
    void *output;             /* OutputTensor */
    uint64_t output_size;
    void *output_indices;     /* OutputIndicesTensor, NULL when the descriptor has none */
    uint64_t output_indices_size;
} dmlcheck_buffers;

/* How dmlcheck judges NaN in this run (docs/SEMANTICS.md D4): an implementation with a
 * choice may follow it; one without ignores it (NaN-dependent answers are then reported as
 * unspecified, not failed, unless --strict). */
#define DMLCHECK_HINT_NAN_PROPAGATE 0x1u
/* This case judges fp32 denormals as flushed to the zero of their sign (docs/SEMANTICS.md
 * D6), in comparisons and in the values written: an implementation that can flush on
 * request may follow it; one that cannot ignores it.  `run` never sets it (a device that
 * flushes says so with DMLCHECK_CAP_FLUSHES_DENORMALS); tests that drive a backend through
 * both paths do.  Added within ABI 1: an unknown hint is ignored by every plug-in. */
#define DMLCHECK_HINT_FLUSH_DENORMALS 0x2u

/* One case of a batch (execute_batch below): what one execute call would get, and what it
 * would return.  dmlcheck fills struct_size, op and buffers; the plug-in fills status and,
 * when status is not DMLCHECK_OK, message (message_size bytes, as execute's).  Added within
 * ABI 1. */
typedef struct dmlcheck_batch_entry {
    uint32_t struct_size;            /* sizeof(dmlcheck_batch_entry) as dmlcheck filled it */
    void *op;                        /* from create; several entries may share one */
    const dmlcheck_buffers *buffers; /* this case's own buffers and hints */
    dmlcheck_status status;
    char *message;
    size_t message_size;
} dmlcheck_batch_entry;

typedef struct dmlcheck_plugin {
    uint32_t abi_version;     /* DMLCHECK_PLUGIN_ABI_VERSION the plug-in was built with */
    uint32_t struct_size;     /* sizeof(dmlcheck_plugin) as the plug-in was built */
    const char *name;         /* short: "example", "onnxruntime" */
    const char *version;      /* the plug-in's own version */

    dmlcheck_status (*open)(const char *const *args, void **context, char *message, size_t size);
    dmlcheck_status (*capabilities)(void *context, dmlcheck_capabilities *caps);
    void (*info)(void *context, dmlcheck_info *info);
    dmlcheck_status (*create)(void *context, const DML_OPERATOR_DESC *desc,
                              DML_FEATURE_LEVEL feature_level, void **op, char *message, size_t size);
    dmlcheck_status (*execute)(void *context, void *op, const dmlcheck_buffers *buffers,
                               char *message, size_t size);
    void (*destroy)(void *context, void *op);
    void (*close)(void *context);

    /* Optional, appended within ABI 1: a table that ends before it (struct_size) or leaves it
     * NULL is driven one execute at a time, as always.  For implementations whose launch or
     * synchronisation cost dominates small cases: runs count entries, each exactly as
     * execute(op, buffers) would (its own buffers, guard bands, hints and status), in any
     * order or all at once.  No two entries' buffers overlap.  Return DMLCHECK_OK once every
     * entry has its status; any other return means the batch did not run, and dmlcheck runs
     * its entries one by one with execute.  A crash or hang costs the whole batch: dmlcheck
     * then runs the batch's cases one by one in a fresh worker to find the one to blame; if
     * none dies alone, the batch's last case is charged with the death. */
    dmlcheck_status (*execute_batch)(void *context, dmlcheck_batch_entry *const *entries,
                                     uint32_t count);
} dmlcheck_plugin;
/* The size of ABI 1's first table, without what was appended since: dmlcheck accepts any
 * table at least this big. */
#define DMLCHECK_PLUGIN_TABLE_MIN_SIZE offsetof(dmlcheck_plugin, execute_batch)

#if defined(_WIN32)
# define DMLCHECK_PLUGIN_EXPORT __declspec(dllexport)
#else
# define DMLCHECK_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Implemented by the plug-in: its table for the harness's ABI version, or NULL. */
DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t harness_abi_version);
typedef const dmlcheck_plugin *(*dmlcheck_plugin_entry_fn)(uint32_t harness_abi_version);

#ifdef __cplusplus
}
#endif

#endif
