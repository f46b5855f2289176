/*
 * report_model.h: everything a conformance report says, in memory, independent of where it
 * came from (report_load.c fills it from the SQLite store, read-only) and of how it is
 * written (report_html.c, report_md.c, report_junit.c).  The renderers only read the model;
 * every judgement (cell status, verdict per feature level, baseline mark, expected failure,
 * statistical bound) is computed once here, so the three formats can never disagree.
 *
 * Invariants kept by report_model_finish():
 *  - cells are sorted by (feature level, op, input, output, indices) and keys are unique;
 *  - every cell the feature level requires exists (with zero counts when no case hit it);
 *  - for each cell, passed + failed + differs + skipped + errors == run, expected <= failed;
 *  - verdicts[i] describes fl_tested[i];
 *  - signatures are sorted: unexpected failures, then expected ones, then differs-from-policy,
 *    each by descending count.
 * All strings are owned by the model (malloc'd, never NULL once set; "" when unknown).
 */
#ifndef DMLCHECK_REPORT_MODEL_H
#define DMLCHECK_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlcheck/directml.h"
#include "claims.h"
#include "error.h"
#include "families.h"
#include "nan_policies.h"
#include "op.h"

#define REPORT_DEFAULT_MIN_CASES 20
/* One-sided confidence of every statistical statement in a report. */
#define REPORT_CONFIDENCE 0.95

/* How a cell or signature compares with the baseline (REPORT_MARK_NONE: no baseline). */
typedef enum report_mark {
    REPORT_MARK_NONE,
    REPORT_MARK_NEW,       /* absent from the baseline */
    REPORT_MARK_FIXED,     /* failed in the baseline, passes now (signature: gone) */
    REPORT_MARK_REGRESSED, /* passed in the baseline, fails now */
    REPORT_MARK_UNCHANGED, /* same status as in the baseline */
} report_mark;
const char *report_mark_name(report_mark m); /* "NEW", ...; "" for NONE */

/* A matrix cell: one operator, one combination of tensor data types, one feature level.
 * indices is DML_TENSOR_DATA_TYPE_UNKNOWN when the case has no indices tensor (ARGMIN and
 * ARGMAX always; MAX_POOLING2 without OutputIndicesTensor). */
typedef struct report_cell_key {
    DML_FEATURE_LEVEL fl;
    op_id op;
    DML_TENSOR_DATA_TYPE input, output, indices;
} report_cell_key;

typedef struct report_counts {
    uint64_t run;      /* cases recorded */
    uint64_t passed;   /* outputs matched bit-exactly (any class) */
    uint64_t failed;   /* mismatches in judged classes (every class under --strict) */
    uint64_t differs;  /* mismatches only in unspecified classes: differs from our policy */
    uint64_t skipped;  /* the backend could not run the case (unsupported) */
    uint64_t errors;   /* the harness itself failed (a dmlcheck bug, not the backend's) */
    uint64_t expected; /* of `failed`, those whose signature an expectation names */
    double seconds;    /* the backend's time on these cases (results.time_us); 0: unknown */
} report_counts;

typedef enum report_cell_status {
    REPORT_CELL_PASS,     /* no failure, at least min_cases judged cases */
    REPORT_CELL_FEW,      /* no failure, fewer than min_cases judged cases (maybe none) */
    REPORT_CELL_EXPECTED, /* failures, every one of them expected */
    REPORT_CELL_FAIL,     /* at least one unexpected failure */
    REPORT_CELL_ERROR,    /* no backend failure, but the harness failed on some case */
} report_cell_status;
const char *report_cell_status_name(report_cell_status s); /* "pass", "few cases", ... */

typedef struct report_cell {
    report_cell_key key;
    report_counts n;
    bool required;              /* the feature level allows (so requires) this combination */
    bool claimed;               /* within the runs' claims (report_model.claims) */
    report_cell_status status;  /* set by report_model_finish */
    double failure_bound;       /* 95% upper bound on the failure rate; 1 when nothing judged */
    /* Why its cases did not run: the most common detail of its skipped cases ("the plug-in
     * does not claim FLOAT16 inputs"), or NULL. */
    char *skip_reason;
    report_mark mark;
} report_cell;

typedef enum report_verdict_kind {
    REPORT_VERDICT_CONFORMANT,     /* every required cell PASS */
    REPORT_VERDICT_NOT_CONFORMANT, /* some cell FAIL (or ERROR: conformance unproven) */
    REPORT_VERDICT_KNOWN_BUGS,     /* failures, all of them expected; otherwise conformant */
    REPORT_VERDICT_INSUFFICIENT,   /* no failure, but some required cell has too few cases */
    REPORT_VERDICT_NOT_TESTED,     /* no case at this level */
    REPORT_VERDICT_INCOMPLETE,     /* no failure, but a run of the selection did not finish */
    /* Every required cell the backend claims PASS, the others not claimed (never run): a
     * partial implementation's green, distinct from CONFORMANT at the level. */
    REPORT_VERDICT_CONFORMANT_CLAIMS,
} report_verdict_kind;
const char *report_verdict_name(report_verdict_kind v); /* "CONFORMANT", ... */

typedef struct report_verdict {
    DML_FEATURE_LEVEL fl;
    report_verdict_kind kind;
    size_t required_cells, pass_cells, few_cells, fail_cells, expected_cells, error_cells;
    /* Required cells beyond the claims that no case ran in: not counted in few_cells. */
    size_t unclaimed_cells;
    size_t differs_cells;      /* required cells with differs-from-policy cases */
    report_counts n;           /* summed over the level's cells */
} report_verdict;

/* One row of the coverage tables: how many cases hit one value of a generator dimension. */
typedef struct report_coverage {
    char *dimension; /* "rank", "layout", "distribution", "axes", "window", ... */
    char *value;     /* "4", "permuted", "ties", "several (shuffled)", ... */
    uint64_t cases, failed;
} report_coverage;

/* One distinct mismatch signature (level, op, types, layout, distribution, kind, verdict). */
typedef struct report_signature {
    DML_FEATURE_LEVEL fl;
    op_id op;
    DML_TENSOR_DATA_TYPE input, output, indices;
    char *layout, *distribution, *kind;
    bool unspecified;          /* every case of it is in an unspecified class (not --strict) */
    char *classes;             /* "nan,denormal" of the representative case, or "" */
    uint64_t count;            /* cases that showed it (in the selected runs) */
    char *first_seen, *last_seen;
    /* Representative case and its first differing element. */
    unsigned gen_version;      /* generator version that drew it (1: stored as a bare id) */
    uint64_t seed, index;
    uint64_t rep_elements;     /* its input element count, 0 when unknown */
    char *backend;             /* --backend of the run that found it */
    char *replay;              /* the runner's replay command for the representative */
    char *gen_args;            /* generator options the replay needs, e.g. "--max-elements 4096" */
    bool has_shrunk_case;      /* the store holds a minimized case file for it */
    char *tensor;              /* "output" or "indices" ("" when no element differs, e.g. a crash) */
    uint64_t element;          /* logical row-major index */
    DML_TENSOR_DATA_TYPE element_type;
    uint64_t expected_bits, got_bits;
    char *detail;              /* backend error text or other free text, or "" */
    /* The check's explanation of the representative's first difference (the lines `run`
     * printed: values at the expected and the returned index, what they show), or "". */
    char *explanation;
    /* signatures.id in the file it was read from (a gone signature's is the baseline's; 0 in
     * a model built without a file): its family and root cause (report_model_family_of). */
    int64_t id;
    /* Judgement. */
    const char *expected_reason; /* the expectation that names it, or NULL (points into model) */
    report_mark mark;
} report_signature;

/* The NaN-policy fingerprint of one backend on one device for one operator and input type
 * (SEMANTICS "NaN-policy fingerprint"): the policies that explain all its NaN cases. */
typedef struct report_nan_fingerprint {
    char *subject;             /* "reference", "opencl on pthread-cpu" */
    op_id op;
    DML_TENSOR_DATA_TYPE input;
    uint64_t cases;            /* cases with a fingerprint (a row or window holding a NaN) */
    uint64_t explained[NAN_POLICY_COUNT]; /* of them, those each policy explains */
    uint64_t left_out;         /* NaN cases not counted: they fail for a judged reason */
    /* NaN cases not counted either: not judged failures, but of a family whose root cause
     * probing confirmed as another bug than a NaN policy (a tie rule, a stride), which
     * changed them; changed_by names that cause (the first, when several did). */
    uint64_t changed_by_bug;
    char changed_by[96];
    /* With a baseline: the baseline's fingerprint of the same subject (or the only one of
     * the same operator and type) when it had NaN cases, and whether this one changed. */
    bool has_baseline, changed;
    uint64_t baseline_cases;
    uint64_t baseline_explained[NAN_POLICY_COUNT];
} report_nan_fingerprint;

/* Policies that explain every case of f (the AND of the cases' masks); 0: inconsistent. */
unsigned report_nan_policies(const report_nan_fingerprint *f);
/* "ignore (40 NaN cases)", "inconsistent (of 40 NaN cases: ignore 31, propagate-first 9)",
 * "no NaN cases"; `baseline` reads the baseline's side.  Returns buf. */
const char *report_nan_fingerprint_text(const report_nan_fingerprint *f, bool baseline, char *buf,
                                        size_t size);

/* One run of the selection, for the provenance section. */
typedef struct report_run {
    int64_t id;
    char *version, *git_revision, *host, *options, *command_line, *backend, *status;
    char *nan_policy;
    uint64_t seed;
    char *started, *finished;
    double seconds;          /* wall time; 0 when unknown */
    uint64_t cases;
    bool strict;
    char *platform, *device, *driver, *runtime, *fp_config;
    char *shard;             /* "K/N", a merged shard set, or "" (reader.h reader_run) */
    char *claims;            /* runs.claims JSON (claims.h), "" when it claims everything */
} report_run;

/* Judged failures of one cell attributed to one signature (filled by the loader), so that
 * expectations, which name signatures, can excuse a cell's failures. */
typedef struct report_cell_failure {
    report_cell_key key;
    size_t signature; /* index into report_model.signatures */
    uint64_t count;
} report_cell_failure;

/* A known driver bug: when every pattern matches (fnmatch; NULL matches anything), a
 * signature is "expected" instead of failing.  `cause` names a root cause (diagnose/
 * causes.def): it matches the signatures of the family probing confirmed as that cause,
 * whatever seed drew them, so an expectation by cause holds on any seed. */
typedef struct report_expectation {
    char *device;  /* matched against "platform / device / driver" of the run */
    char *op, *input, *output, *indices, *layout, *distribution, *kind, *cause;
    char *reason;  /* shown in the report, e.g. "PoCL issue #1234" */
} report_expectation;

typedef struct report_model {
    char *title;          /* e.g. "dmlcheck conformance report" */
    char *db_path;        /* as given on the command line */
    char *selection;      /* "run 3" or "all runs (1-3)" */
    char *baseline;       /* description of the baseline, or NULL when none */
    unsigned min_cases;
    bool deterministic;   /* provenance times, host and revision left out (golden tests) */

    report_cell *cells;   size_t cell_count, cell_cap;
    report_verdict verdicts[8]; size_t verdict_count;
    report_coverage *coverage; size_t coverage_count, coverage_cap;
    report_signature *signatures; size_t signature_count, signature_cap;
    family_list families;   /* one row per bug (families.h), judged failures first */
    /* Against a baseline: families (bugs: a root cause, or an undiagnosed family's operator
     * family, kind and verdict) this run has and the baseline not, and the other way round. */
    size_t bugs_new, bugs_gone;
    /* Baseline signatures that no longer occur (mark FIXED); listed for the reader. */
    report_signature *gone; size_t gone_count, gone_cap;
    report_cell_failure *cell_failures; size_t cell_failure_count, cell_failure_cap;
    report_run *runs;     size_t run_count, run_cap;
    report_expectation *expectations; size_t expectation_count, expectation_cap;
    /* Per subject, operator and float input type that ran; sorted by subject, op, type. */
    report_nan_fingerprint *nan_prints; size_t nan_print_count, nan_print_cap;
    uint64_t total_cases;
    double total_seconds;
    /* What the selection's runs claim, together (a cell any run claims is claimed); not
     * limited when some run claims everything.  Set by report_model_finish. */
    backend_claims claims;
} report_model;

void report_model_init(report_model *m);
void report_model_free(report_model *m);
/* Returns the cell with this key, appending a zeroed one when absent; NULL on ENOMEM. */
report_cell *report_model_cell(report_model *m, const report_cell_key *key);
report_coverage *report_model_add_coverage(report_model *m, const char *dimension,
                                           const char *value, uint64_t cases, uint64_t failed);
report_signature *report_model_add_signature(report_model *m);
report_run *report_model_add_run(report_model *m);
report_nan_fingerprint *report_model_add_nan_print(report_model *m);
/* "ARGMAX FLOAT32: NaN policy changed from propagate-first to ignore; ..." for every changed
 * fingerprint (SEMANTICS "NaN-policy fingerprint"), "" when none did.  Returns buf. */
const char *report_nan_changes(const report_model *m, char *buf, size_t size);
/* True when some fingerprint of the selection has NaN cases (the reports' table and `run`'s
 * lines are shown only then). */
bool report_has_nan_cases(const report_model *m);
bool report_model_add_cell_failure(report_model *m, const report_cell_key *key,
                                   size_t signature, uint64_t count);
/* malloc'd copy of s; "" for NULL; NULL only on allocation failure. */
char *report_strdup(const char *s);

/* Adds the required cells each tested feature level lacks, applies the expectations to the
 * signatures (the caller has filled each cell's `expected` from the per-signature counts),
 * sorts, and computes statuses, bounds and verdicts.  False only on allocation failure. */
bool report_model_finish(report_model *m, dmlc_error *err);
/* Marks cells and signatures of m against the finished baseline model. */
bool report_model_compare(report_model *m, const report_model *baseline, dmlc_error *err);
/* The comparison in one line for the top of a report: "2 regressions, 1 fixed (cells);
 * 3 signatures new, 1 gone"; "" without a baseline. */
const char *report_baseline_counts(const report_model *m, char *buf, size_t size);
/* The family's signature with the smallest representative (its replay and export commands);
 * NULL when none of the model's signatures belongs to it. */
const report_signature *report_family_signature(const report_model *m, const family *f);
/* "FAIL", "expected" (every signature of it is a known bug) or "differs" (unspecified);
 * ", nondeterministic" after FAIL or differs when a case of it passed when run again. */
const char *report_family_status(const report_model *m, const family *f);
/* "dmlcheck export --family N --db FILE [--run ID | --all] > family-N.json" for family index
 * i (0-based) of the report's selection, quoted for the shell. */
char *report_family_export_command(const report_model *m, size_t i);
/* "dmlcheck exec --backend B family-N.json": the family's exported shrunk case run on the
 * backend of its signature s, quoted for the shell. */
char *report_family_exec_command(const report_signature *s, size_t i);
/* The rows both renderers print as tables: what each column says has one home here, how
 * a cell is escaped and laid out is the renderer's.  Cells are plain text. */
#define REPORT_CELL_SIZE 512
/* What a family is, one paragraph both formats print (plain text: no markup to escape). */
extern const char *const report_family_intro;
/* A family's root cause as its row names it: the confirmed cause's id, "undiagnosed (KIND)"
 * when probing confirmed none, the kind alone when it was not probed.  Returns buf. */
const char *report_family_cause_text(const family *f, char *buf, size_t size);
#define REPORT_FAMILY_COLUMNS 7
extern const char *const report_family_head[REPORT_FAMILY_COLUMNS];
/* #, status, operators, kind, cases, signatures, needs of family index i. */
void report_family_cells(const report_model *m, size_t i,
                         char cells[REPORT_FAMILY_COLUMNS][REPORT_CELL_SIZE]);
/* Backend, operator, input, NaN policy (and, with a baseline, the baseline's policy) of NaN
 * fingerprint row i; the count of columns (4, or 5 with a baseline). */
#define REPORT_NAN_COLUMNS 5
extern const char *const report_nan_head[REPORT_NAN_COLUMNS];
unsigned report_nan_cells(const report_model *m, size_t i,
                          char cells[REPORT_NAN_COLUMNS][REPORT_CELL_SIZE]);

/* The family (one bug) a signature belongs to, or NULL. */
const family *report_model_family_of(const report_model *m, const report_signature *s);
/* Which expectation (if any) names this signature for the runs of the model. */
const report_expectation *report_model_expectation_for(const report_model *m,
                                                       const report_signature *s);
/* Fills m from the results database at path, opened read-only: run run_id (0: the latest),
 * or every run when all_runs.  Call report_model_finish afterwards.  False with a message
 * for a missing, empty, foreign or newer database, or an unknown run. */
/* report_load of one run with only what the verdicts need (runs and cells): for `run`'s
 * outlook, which must not cost as much as a report. */
bool report_load_verdicts(report_model *m, const char *path, int64_t run_id, dmlc_error *err);
bool report_load(report_model *m, const char *path, int64_t run_id, bool all_runs,
                 dmlc_error *err);
/* Loads expectations from a file (JSON, see reports/README.md) into m. */
bool report_expectations_load(report_model *m, const char *path, dmlc_error *err);

/* Whether the combination of types is valid for op at level fl (asks the validator). */
bool report_cell_allowed(const report_cell_key *key);
/* A required cell beyond the claims that ran no judged case: counted once per level ("N
 * required cells are not claimed"), never listed a cell at a time. */
bool report_cell_unclaimed(const report_cell *c);

/* True when the report shows a failure a person must act on: an unexpected failure, or a
 * regression against the baseline.  Decides `dmlcheck report`'s exit code. */
bool report_model_has_unexpected_failures(const report_model *m);

/* Statistics. */
/* One-sided Clopper-Pearson upper bound on a failure probability after k failures in n
 * trials at confidence `conf`; with k == 0 it is 1 - (1-conf)^(1/n) (about 3/n at 95%).
 * 1 when n == 0. */
double report_failure_upper_bound(uint64_t n, uint64_t k, double conf);
/* "failure rate < 1.0% at 95% confidence (300 passed, 0 failed)"-style sentence. */
const char *report_bound_text(const report_cell *c, char *buf, size_t size);
/* One sentence explaining a verdict, e.g. "3 of 40 required cells fail". */
const char *report_verdict_text(const report_model *m, const report_verdict *v, char *buf,
                                size_t size);
/* "CONFORMANT for what it claims: ARGMIN, ARGMAX on FLOAT32, INT32; MAX_POOLING2 on FLOAT32"
 * when some tested level is CONFORMANT FOR ITS CLAIMS and none fails; "" otherwise. */
const char *report_claims_line(const report_model *m, char *buf, size_t size);
/* The "backend on device" line of the runs ("opencl on pthread-cpu (PoCL 5.0)"). */
const char *report_subject(const report_model *m, char *buf, size_t size);

/* value, or "(omitted: --deterministic)" in a deterministic report, or "unknown" for "". */
const char *report_omitted(const report_model *m, const char *value);

/* A run's provenance table: one (label, value) per row, in the order every format prints
 * them, so the formats cannot drift apart. */
#define REPORT_PROVENANCE_ROWS 25
typedef struct report_provenance_row {
    const char *label, *value;
} report_provenance_row;
typedef struct report_provenance {
    unsigned count;
    report_provenance_row rows[REPORT_PROVENANCE_ROWS];
    char seed[24], cases[24], seconds[32], rate[32]; /* the numbers the rows point at */
    char claims[400];                                /* claims_describe of the run's claims */
} report_provenance;

/* Fills p with run r's rows; the values point into r, m and p itself (do not copy p). */
void report_run_provenance(const report_model *m, const report_run *r, report_provenance *p);
/* How a renderer writes the provenance tables: the text before each run's table (a printf
 * format whose one argument is the run id) and after it, before each row (a format taking the
 * row's label, a fixed text of ours) and after it, and the renderer's one escaping function
 * for the values, which come from outside. */
typedef struct report_provenance_format {
    const char *run_head, *run_tail; /* run_head: "%" PRId64 " is the run id */
    const char *row_head, *row_tail; /* row_head: "%s" is the label */
    void (*escape)(FILE *out, const char *text);
} report_provenance_format;
/* Every run's provenance table in format f (HTML and Markdown print the same rows). */
void report_print_provenance(const report_model *m, const report_provenance_format *f, FILE *out);
/* "0.99%" / "3.2e-05" style percentage for bounds. */
const char *report_percent(double p, char *buf, size_t size);

/* Text helpers shared by the renderers. */
/* "argmax f16 -> u32" style label of a cell's types ("max_pooling2 f16, indices u32"). */
const char *report_cell_types(const report_cell_key *k, char *buf, size_t size);
/* Test-name style id: "argmax_f16_u32", "max_pooling2_f16_idx_u32". */
const char *report_cell_id(const report_cell_key *k, char *buf, size_t size);
/* "g2:7:49": the representative's case id, with the version of the generator that drew it. */
const char *report_case_id(const report_signature *s, char *buf, size_t size);
/* "dmlcheck replay gN:SEED:INDEX --backend X ..." and "dmlcheck export ... > case.json".
 * Every command here is allocated as long as it needs (no length cuts it: a command cut
 * short replays something else), NULL when out of memory; report_emit prints and frees. */
char *report_replay_command(const report_signature *s);
char *report_export_command(const report_signature *s);
/* A renderer's one escaping function for its format. */
typedef void report_escape_fn(FILE *out, const char *text);
/* Writes command (report_*_command's; NULL says memory ran out) through escape; frees it. */
void report_emit(FILE *out, report_escape_fn *escape, char *command);
/* "expected ..., got ..." of a signature's first differing element. */
const char *report_first_difference(const report_signature *s, char *buf, size_t size);
/* Writes s escaped for XML/HTML text and attribute values: & < > " ' escaped; control
 * characters and invalid UTF-8 replaced by U+FFFD, so any byte string yields valid XML. */
void report_xml_escape(FILE *out, const char *s);
/* Writes s for a Markdown table cell: | \ ` * _ [ ] < > # escaped, newlines as spaces;
 * control characters and invalid UTF-8 replaced. */
void report_md_escape(FILE *out, const char *s);

/* Renderers: write the whole report to out; false (with err) on a write error. */
bool report_render_html(const report_model *m, FILE *out, dmlc_error *err);
bool report_render_md(const report_model *m, FILE *out, dmlc_error *err);
/* A pull-request comment's worth of the Markdown report, under REPORT_SUMMARY_MAX_CHARS
 * characters for any run: the verdicts, the failing signatures with the most cases first
 * (as many as fit), replay commands for the first few, and how many were left out. */
#define REPORT_SUMMARY_MAX_CHARS 65536
bool report_render_md_summary(const report_model *m, FILE *out, dmlc_error *err);
bool report_render_junit(const report_model *m, FILE *out, dmlc_error *err);

#endif
