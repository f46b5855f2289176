/*
 * reader.h: the read side of a results database (schema.sql), for `dmlcheck report`.  The
 * file is opened read-only and only read (a report's temporary tables live in SQLite's temp
 * schema, never in the file); every statement lives in reader.c and reader_digest.c, so the
 * reports layer sees rows, never SQL.  A selection is a range of run ids; each reader_* walk
 * calls `each` once per row, in the order the report lists them, with text that lives until
 * `each` returns ("" for NULL, never NULL).  A walk stops at the first `each` that returns
 * false, whose err it returns.
 */
#ifndef DMLCHECK_READER_H
#define DMLCHECK_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "families.h"
#include "nan_policies.h"

typedef struct reader reader;

/* Opens path read-only and checks that it is ours: a schema version this binary knows
 * (STORE_SCHEMA_VERSION at most) and the schema's tables.  A missing file, an empty file,
 * someone else's database and a newer dmlcheck's database each get their own message. */
reader *reader_open(const char *path, dmlc_error *err);
/* Accepts NULL. */
void reader_close(reader *r);
/* The file's schema version. */
int reader_version(const reader *r);

/* The runs read: ids lo..hi, and how a person reads the choice. */
typedef struct reader_range {
    int64_t lo, hi;
    char text[96]; /* "run 3 (the latest)", "all runs (3 runs, ids 1-3)" */
} reader_range;

/* --run ID (0: the latest run) or --all into a range; false when the database has no run or
 * no run ID. */
bool reader_select(reader *r, int64_t run_id, bool all_runs, reader_range *range, dmlc_error *err);

/* A cell of the matrix as the rows name it: feature level, operator, input, output and
 * indices types ("" when the case has no indices tensor). */
typedef struct reader_cell_key {
    const char *fl, *op, *input, *output, *indices;
} reader_cell_key;

/* One run, joined with its device (empty texts when the run recorded none). */
typedef struct reader_run {
    int64_t id;
    const char *version, *git_revision, *host, *options, *command_line, *backend, *status,
        *nan_policy;
    uint64_t seed;
    const char *started, *finished;
    double seconds;
    uint64_t cases;
    bool strict;
    /* devices.c_version holds the backend's runtime: the plug-in ABI's dmlcheck_info.runtime
     * ("OpenCL C 1.2", "CUDA 12.4"), "" when it names none (schema.sql). */
    const char *platform, *device, *driver, *runtime, *fp_config;
    /* "1/4", or a merged set "0, 1, 3 of 4 (merged; 1 missing)"; "" for a whole run. */
    const char *shard;
    /* runs.claims (claims.h JSON); "" when the run claimed everything or predates them. */
    const char *claims;
} reader_run;

bool reader_runs(reader *r, const reader_range *range,
                 bool (*each)(void *ctx, const reader_run *row, dmlc_error *err), void *ctx,
                 dmlc_error *err);

/* A cell's verdict counts (as the verdict_counts view has them) and its cases' backend time. */
typedef struct reader_cell {
    reader_cell_key key;
    uint64_t cases, passed, failed, unspecified, skipped, errors;
    double seconds; /* results.time_us summed: the backend's time on the cell's cases */
} reader_cell;

bool reader_cells(reader *r, const reader_range *range,
                  bool (*each)(void *ctx, const reader_cell *row, dmlc_error *err), void *ctx,
                  dmlc_error *err);

/* Why a cell's cases were skipped: each cell's reasons, the most common first. */
typedef struct reader_skip {
    reader_cell_key key;
    const char *detail;
    uint64_t count;
} reader_skip;

bool reader_skips(reader *r, const reader_range *range,
                  bool (*each)(void *ctx, const reader_skip *row, dmlc_error *err), void *ctx,
                  dmlc_error *err);

/* A signature with the count of its cases in the range (a case belongs to it when every key
 * field matches: schema.sql's signatures_key); fail before unspecified, most cases first. */
typedef struct reader_signature {
    reader_cell_key key;
    const char *layout, *distribution, *kind, *verdict, *first_seen, *last_seen;
    const char *representative; /* the case id as the run wrote it: "g2:7:49", or "7:49" */
    uint64_t rep_elements;
    const char *backend, *replay;
    bool has_shrunk_case;
    /* The representative's first difference (signatures.first_mismatch): "" and 0 when none. */
    const char *tensor;
    uint64_t element;
    const char *expected, *got; /* the elements' bits, hex */
    const char *explanation;
    uint64_t count;
    const char *classes; /* its cases' unspecified classes, "nan,denormal" */
    const char *detail;  /* one of its cases' details */
    int64_t id; /* signatures.id: its family (and root cause) is families_holding's */
} reader_signature;

bool reader_signatures(reader *r, const reader_range *range,
                       bool (*each)(void *ctx, const reader_signature *row, dmlc_error *err),
                       void *ctx, dmlc_error *err);

/* Coverage of one generator dimension: each value with its judged cases and failures. */
typedef enum reader_dimension {
    READER_RANK,           /* "1".."8", in order */
    READER_ELEMENTS,       /* input element buckets "1", "2-16", ... "> 1048576", in order */
    READER_LAYOUT,
    READER_DISTRIBUTION,
    READER_CLASSES,        /* the case's class list, "" or "nan,denormal" */
} reader_dimension;

typedef struct reader_coverage {
    const char *value;
    uint64_t cases, failed;
} reader_coverage;

bool reader_coverage_of(reader *r, const reader_range *range, reader_dimension dimension,
                        bool (*each)(void *ctx, const reader_coverage *row, dmlc_error *err),
                        void *ctx, dmlc_error *err);

/* One case's operator, parameters (JSON) and sizes (JSON arrays), for the operator modules'
 * own coverage (op_case_from_params); cases is 1, failed 1 for a judged failure. */
typedef struct reader_params {
    const char *op, *params, *input_sizes, *output_sizes;
    uint64_t cases, failed;
} reader_params;

/* Reads the range's cases once (results/reader_digest.h), handing each case's descriptor to
 * `each` when it is not NULL; reader_cells, reader_skips, reader_signatures,
 * reader_coverage_of and reader_nan_prints then answer from what it read.  A walk of a range
 * not read yet reads it first, without descriptors. */
bool reader_scan(reader *r, const reader_range *range,
                 bool (*each)(void *ctx, const reader_params *row, dmlc_error *err), void *ctx,
                 dmlc_error *err);

/* NaN-policy fingerprints (schema version 4; none before): per backend and device, operator
 * and float input type, the cases with a fingerprint and how many each policy explains. */
typedef struct reader_nan_print {
    const char *subject; /* "opencl on DEVICE", or the backend alone */
    const char *op, *input;
    uint64_t cases;
    uint64_t explained[NAN_POLICY_COUNT];
    uint64_t left_out;   /* NaN cases left out: they fail for a judged reason */
} reader_nan_print;

bool reader_nan_prints(reader *r, const reader_range *range,
                       bool (*each)(void *ctx, const reader_nan_print *row, dmlc_error *err),
                       void *ctx, dmlc_error *err);

/* The families of the range (families.h). */
bool reader_families(reader *r, const reader_range *range, family_list *out, dmlc_error *err);
/* families_nan_cases of family f in the selected runs. */
bool reader_family_nan_cases(reader *r, const reader_range *range, const family *f,
                             bool (*each)(void *ctx, const family_nan_cases *row, dmlc_error *err),
                             void *ctx, dmlc_error *err);

#endif
