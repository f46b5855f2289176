/*
 * store.h: the SQLite results database (schema in results/schema.sql).  One writer per
 * database: `dmlcheck run` opens it, records a run row, then cases and results in batched
 * transactions (store_batch_begin / store_batch_commit), signatures as they appear, and the
 * run's end.  Every row written between a begin and a commit becomes visible atomically, so
 * a killed run leaves every committed batch and nothing half-written.
 *
 * A fresh database gets the embedded schema; an older one is migrated step by step; one
 * with a newer schema version than this binary knows is refused, never touched.
 */
#ifndef DMLCHECK_STORE_H
#define DMLCHECK_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "error.h"

/* The schema version this binary writes (schema.sql's PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 5

typedef struct store store;

/* Opens (creating if absent) the database at path, applies or migrates the schema, and
 * refuses a newer one.  NULL with err on failure; the file is then left as it was. */
store *store_open(const char *path, dmlc_error *err);
/* Commits nothing: an open batch is rolled back.  Accepts NULL. */
void store_close(store *s);
/* The schema version found in the file before any migration (0: it was created now). */
int store_found_version(const store *s);

/* The runs row, as a run starts. */
typedef struct store_run_start {
    const char *started_at;     /* UTC ISO-8601 */
    uint64_t seed;
    const char *options_json;   /* every run option */
    const char *command_line;
    const char *git_revision;   /* NULL when unknown */
    const char *host;
    const char *backend;
    const char *nan_policy;
    bool strict;
    int64_t cases_requested;    /* < 0: none (--time) */
    double time_requested_s;    /* < 0: none */
    unsigned gen_version;       /* GEN_VERSION of the generator drawing the cases */
    const char *gen_options;    /* gen_options_text of the run */
} store_run_start;

bool store_run_begin(store *s, const store_run_start *r, int64_t *run_id, dmlc_error *err);
/* Finds or inserts the devices row for (backend, info) and links the run to it; stores
 * info->claims with the run (runs.claims, NULL when it claims everything). */
bool store_run_device(store *s, int64_t run_id, const char *backend, const backend_info *info,
                      int64_t *device_id, dmlc_error *err);
/* Counters of a run, written with every batch so a killed run's row stays truthful. */
bool store_run_progress(store *s, int64_t run_id, uint64_t cases_done, uint64_t failures,
                        double elapsed_s, dmlc_error *err);
/* status: "finished", "interrupted" or "error". */
bool store_run_finish(store *s, int64_t run_id, const char *status, const char *finished_at,
                      dmlc_error *err);
/* The merged shards of a `run --jobs` run read as one run: the shard key leaves its
 * options; status replaces the merged status unless NULL. */
bool store_run_unshard(store *s, int64_t run_id, const char *status, dmlc_error *err);

/* Batches: all case rows between begin and commit land in one transaction. */
bool store_batch_begin(store *s, dmlc_error *err);
bool store_batch_commit(store *s, dmlc_error *err);

/* One case and its result (a cases row and a results row).  Text fields are NUL-terminated;
 * the optional ones may be NULL. */
typedef struct store_case_row {
    int64_t run_id;
    uint64_t case_index;
    const char *op, *feature_level, *input_type, *output_type, *indices_type;
    unsigned rank;
    uint64_t elements;
    const char *input_sizes, *input_strides, *output_sizes, *params; /* JSON */
    const char *axis_kind;
    const char *layout, *distribution, *classes;
    /* result */
    const char *verdict;        /* pass | fail | unspecified | skip | error */
    const char *kind;           /* NULL for pass/skip/error */
    uint64_t mismatch_count;
    const char *first_mismatch; /* JSON or NULL */
    const char *detail;
    double time_us;
    bool has_nan_policies;      /* the case has a NaN-policy fingerprint */
    unsigned nan_policies;      /* its mask (reference/nan_policies.h) */
    const char *also_kinds;     /* other kinds its evidence shows ("a,b"), or NULL */
} store_case_row;

bool store_case(store *s, const store_case_row *row, dmlc_error *err);

/* A failure's signature and the facts of this occurrence. */
typedef struct store_signature_row {
    const char *backend;
    int64_t device_id;          /* <= 0: none */
    const char *op, *feature_level, *input_type, *output_type, *indices_type;
    const char *layout, *distribution, *kind, *verdict;
    int64_t run_id;
    const char *seen_at;
    const char *case_id;        /* gN:SEED:INDEX of this occurrence */
    uint64_t elements;          /* its size, to keep the smallest representative */
    const char *first_mismatch; /* JSON or NULL */
    const char *replay;
} store_signature_row;

/* Whether case id `candidate` (with that many input elements) should replace `current` as a
 * signature's representative: when current names another generator version (it could no
 * longer be replayed) and candidate does not; else when it has fewer input elements; on a
 * tie, when both are of one seed and candidate's index is lower (so a run's representative
 * is its first such case, whether the run ran whole or in shards). */
bool store_representative_better(const char *candidate, uint64_t candidate_elements,
                                 const char *current, uint64_t current_elements);

/* Counts one occurrence: inserts the signature or bumps its count; the occurrence becomes
 * the representative when store_representative_better says so.
 * *id gets the row id and *is_new whether the row was created now. */
bool store_signature(store *s, const store_signature_row *row, int64_t *id, bool *is_new,
                     dmlc_error *err);
/* Stores the minimized case file (JSON) of a signature and the backend's first difference at
 * it (check_first_json; NULL when it did not differ when run for the record). */
bool store_signature_shrunk(store *s, int64_t id, const char *case_json, const char *mismatch_json,
                            dmlc_error *err);
/* Stores the diagnosis of a signature's case: the confirmed root cause's id (NULL:
 * undiagnosed) and the evidence (diagnosis_json). */
bool store_signature_diagnosis(store *s, int64_t id, const char *cause, const char *diagnosis_json,
                               dmlc_error *err);
/* Marks signature id nondeterministic: a case of it passed when run again. */
bool store_signature_nondeterministic(store *s, int64_t id, dmlc_error *err);

/* The run that recorded a case, as replay --db and export --db check it. */
typedef struct store_case_origin {
    int64_t run_id;
    unsigned gen_version;        /* 1 for runs recorded before schema version 2 */
    char gen_options[256];       /* gen_options_text; "" when not recorded (version 1) */
    char dmlcheck_version[64];
    char git_revision[64];       /* "" when unknown */
} store_case_origin;

/* Opens the database at path read-only (never creating or migrating it) and finds the run
 * with this seed that recorded case `index`: among several, the newest whose gen_version
 * and gen_options equal the given ones, else the newest.  *found is false when no run
 * did.  False with err when the file is missing, not ours, or of a newer schema. */
bool store_find_case_origin(const char *path, uint64_t seed, uint64_t index, unsigned gen_version,
                            const char *gen_options, store_case_origin *origin, bool *found,
                            dmlc_error *err);

/* The `sqlite3_stmt`s are prepared once at open; time spent inside SQLite calls so far, for
 * the "SQLite share of the run" figure. */
double store_seconds(const store *s);

/* Whether path names a database SQLite keeps in memory (":memory:", "file::memory:..." or "",
 * a private temporary one): gone when the run closes it, so nothing can read it afterwards. */
bool store_path_in_memory(const char *path);

/* Checks, without changing it, that path is a results database this binary can read: it
 * exists, is ours, is not of a newer schema version, and SQLite's quick_check finds it
 * intact.  *version gets its schema version.  False with err saying which check failed. */
bool store_check_readable(const char *path, int *version, dmlc_error *err);
/* Copies the database at path (which store_check_readable accepts) to copy_path, a new file,
 * and brings the copy to STORE_SCHEMA_VERSION with store_open's migrations; path is only
 * read. */
bool store_copy_migrated(const char *path, const char *copy_path, dmlc_error *err);

/* Opens path read-only into *db (busy timeout set): the normal way, or as immutable when it
 * is a cleanly closed WAL database whose -shm file cannot be made (a read-only mount); SQLite
 * would otherwise fail as if it were no database.  False with err (then *db is NULL). */
struct sqlite3;
bool store_open_read_only_db(const char *path, struct sqlite3 **db, dmlc_error *err);
/* The URI the same open uses ("file:PATH?mode=ro" or "?immutable=1", PATH's URI specials
 * escaped), for ATTACH; malloc'd, NULL when out of memory. */
char *store_read_uri(const char *path);

/* Deletes a results database with its WAL and shared-memory files (absent ones are fine). */
void store_remove_files(const char *path);

/* The connection, for read-only analyses over the recorded rows (families.h); only on the
 * thread that uses the store, between batches. */
struct sqlite3;
struct sqlite3 *store_connection(store *s);

#endif
