/*
 * families.h: one bug, one row.  A root cause that probing confirmed (diagnose.h) is the key:
 * its signatures are one family whatever their operators, kinds and verdicts, and two causes
 * of one operator family, kind and verdict are two families (each signature carries the key
 * its own diagnosis stored).  Failures no cause explains are grouped as before.  A signature splits one bug by feature level, data
 * types, layout and value distribution (a planted ARGMIN-ignores-DECREASING bug made 748 of them in
 * 10,000 cases); a family is what is left of it: the operator family (ARGMIN/ARGMAX share
 * their code in every implementation seen so far), the kind and the verdict, with
 * the few case features its failures need, found by comparing the family's failing cases
 * with the operator's other judged cases dimension by dimension ("only direction INCREASING",
 * "only input FLOAT16", "rank >= 6").  Read from a results database (results/schema.sql), so
 * `run` and `report` show the same families.
 */
#ifndef DMLCHECK_FAMILIES_H
#define DMLCHECK_FAMILIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "error.h"

typedef struct family {
    char module[32];      /* the operator family (op_info.module_name): "arg_reduce"; "*" for
                           * a crash or a hang, which the harness sees in the process, not in
                           * an operator: one family across operators */
    char op[48];          /* its operators as a person reads them: "ARGMIN/ARGMAX" */
    char kind[48];        /* results.kind (the kind of most of its cases) */
    /* Every kind of its cases, ",a,b,": a family of one kind whose every case the evidence of
     * another family's kind explains too (results.also_kinds) is that family: a +0 taken from
     * the padding, which a real +0 in the window could also have been, is the padding bug. */
    char kinds[512];      /* a set: every kind of the catalogue fits */
    char verdict[16];     /* "fail" or "unspecified": the worst of its cases */
    char verdicts[32];    /* every verdict of its cases, ",fail,unspecified," (a root cause's
                           * row may hold judged and unspecified cases) */
    /* The root cause probing confirmed (diagnose/causes.def id; schema version 5), "" when
     * none: undiagnosed (diagnosed true: probed, no cause explained it) or not probed.
     * Families of one cause are one row, whatever operators and kinds it touched. */
    char cause[96];       /* "a+b": two causes confirmed only together */
    /* Its cases exactly: the groups of the first grouping (operator family, kind, verdict,
     * root-cause key) it is made of, ",m:k:v:c,...", allocated.  The sets above say what they
     * hold; a product of them would also hold another row's groups.  A signature's key is its
     * own root cause ("" undiagnosed); one never diagnosed takes the key most of its operator
     * family, kind and verdict got (a run stopped while diagnosing; a file of schema version 5
     * that probed one signature a family). */
    char *groups;
    bool diagnosed;
    /* The evidence of its diagnosis (diagnosis_json: probes, each with a case file under
     * "case"), or NULL when it was not diagnosed. */
    char *diagnosis;
    uint64_t cases;       /* the family's cases in the runs read */
    uint64_t signatures;  /* distinct signatures among them */
    /* The smallest failing case (fewest input elements, then lowest index). */
    int64_t run_id;
    uint64_t case_index, elements;
    /* What its failures need, "; "-separated, "" when nothing sets them apart. */
    char needs[400];
    /* How its cases spread over input types, layouts and values, most first: "input FLOAT32
     * 300, FLOAT16 41; layout packed 90, permuted 80, ...; values ties 120, ..." */
    char breakdown[400];
    /* The smallest case shrinking stored for one of its signatures (a case file, JSON, with
     * the reference's expected outputs; `dmlcheck exec` runs it), or NULL: not shrunk. */
    char *shrunk_case;
    /* The backend's first difference at shrunk_case (check_first_json), or NULL: not recorded
     * (before schema version 4, or the case did not differ when run for the record). */
    char *shrunk_mismatch;
    /* A case of it passed when run again (schema version 3 records it; false before). */
    bool nondeterministic;
} family;

typedef struct family_list {
    family *items; /* judged failures first, then by case count */
    size_t count;
    /* Every failing signature of the runs read (signatures.id, ascending) and the index in
     * items of the family holding its group: two rows of one kind hold different
     * signatures, and a signature never diagnosed is in the row of the key it took. */
    int64_t *signature_ids;
    size_t *signature_family;
    size_t signature_count;
} family_list;

/* The family holding signature `id` (signatures.id), or NULL: not failing in the runs read. */
const family *families_holding(const family_list *l, int64_t id);

/* The families of runs run_lo..run_hi of db (read-only use). */
bool families_find(sqlite3 *db, int64_t run_lo, int64_t run_hi, family_list *out, dmlc_error *err);
void families_free(family_list *l);
/* The families of a results database file, opened read-only: run `run_id`, the latest run
 * when 0, every run when all_runs. */
bool families_read_file(const char *path, int64_t run_id, bool all_runs, family_list *out,
                        dmlc_error *err);

/* A family's NaN cases that are not judged failures, per subject (backend and device),
 * operator and float input type, with how many each NaN policy explains (reader.h's
 * reader_nan_print columns): what the report leaves out of the NaN-policy fingerprint when
 * the family's root cause is a bug other than a NaN policy. */
#define FAMILY_NAN_POLICIES 5
typedef struct family_nan_cases {
    const char *subject, *op, *input;
    uint64_t cases;
    uint64_t explained[FAMILY_NAN_POLICIES];
} family_nan_cases;
bool families_nan_cases(sqlite3 *db, int64_t run_lo, int64_t run_hi, const family *f,
                        bool (*each)(void *ctx, const family_nan_cases *row, dmlc_error *err),
                        void *ctx, dmlc_error *err);
#endif
