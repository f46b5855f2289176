/*
 * store.c: the SQLite results database.  Every statement lives in `statement_sql` below,
 * prepared once at open and reused with bound parameters only (no SQL is ever assembled
 * from values).  Writes happen inside batches (BEGIN IMMEDIATE ... COMMIT) in WAL mode, so
 * a reader (reports) never blocks the run and a killed run loses at most its open batch.
 *
 * Schema versions: schema.sql (embedded at build time as store_schema_sql) creates version
 * STORE_SCHEMA_VERSION on a fresh file.  An older file is brought up one version at a time
 * by `migrations` (each step in its own transaction, bumping user_version); a newer file is
 * refused before anything is written to it.  store_find_case_origin reads a database on its
 * own read-only connection (replay --db), with the statement of the file's schema version.
 */
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "case_id.h"

/* How long a write waits for another writer's lock before it fails. */
#define STORE_BUSY_TIMEOUT_MS 10000
#define STORE_BUSY_TIMEOUT_TEXT "10 s"
/* How often a waiting writer tries again, and how long a run leaves the lock free after
 * each batch it commits: longer than one try, so a waiting run gets its turn. */
#define STORE_BUSY_POLL_MS 1
#define STORE_COMMIT_YIELD_MS 3
#include "clock.h"

/* Generated from results/schema.sql by the build (meson custom_target). */
extern const char store_schema_sql[];

/* One row per statement; the enum and the SQL come from the same list. */
#define STORE_STATEMENTS(X)                                                                   \
    X(BEGIN, "BEGIN IMMEDIATE")                                                               \
    X(COMMIT, "COMMIT")                                                                       \
    X(ROLLBACK, "ROLLBACK")                                                                   \
    X(RUN_INSERT,                                                                             \
      "INSERT INTO runs (started_at, seed, options, command_line, git_revision,"              \
      " dmlcheck_version, host, backend, nan_policy, strict, cases_requested,"                \
      " time_requested_s, gen_version, gen_options, elapsed_s)"                               \
      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,0)")                                              \
    X(DEVICE_FIND,                                                                            \
      "SELECT id FROM devices WHERE backend = ? AND platform = ? AND device = ?"              \
      " AND driver = ? AND c_version = ? AND fp_config = ? AND flushes_denormals = ?")        \
    X(DEVICE_INSERT,                                                                          \
      "INSERT INTO devices (backend, platform, device, driver, c_version, fp_config,"         \
      " flushes_denormals) VALUES (?,?,?,?,?,?,?) ON CONFLICT DO NOTHING")                    \
    X(RUN_SET_DEVICE, "UPDATE runs SET device_id = ?, claims = ? WHERE id = ?")               \
    X(RUN_PROGRESS,                                                                           \
      "UPDATE runs SET cases_done = ?, failures = ?, elapsed_s = ? WHERE id = ?")             \
    X(RUN_FINISH, "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?")                 \
    X(CASE_INSERT,                                                                            \
      "INSERT INTO cases (run_id, case_index, op, feature_level, input_type, output_type,"    \
      " indices_type, rank, elements, input_sizes, input_strides, output_sizes, params,"      \
      " axis_kind, layout, distribution, classes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)") \
    X(RESULT_INSERT,                                                                          \
      "INSERT INTO results (case_id, verdict, kind, mismatch_count, first_mismatch, detail,"  \
      " time_us, nan_policies, also_kinds) VALUES (?,?,?,?,?,?,?,?,?)")                                     \
    X(SIGNATURE_FIND,                                                                         \
      "SELECT id, rep_elements, representative FROM signatures WHERE backend = ? AND ifnull(device_id, 0) = ?" \
      " AND op = ? AND feature_level = ? AND input_type = ? AND output_type = ?"              \
      " AND ifnull(indices_type, '') = ? AND layout = ? AND distribution = ? AND kind = ?"    \
      " AND verdict = ?")                                                                     \
    X(SIGNATURE_INSERT,                                                                       \
      "INSERT INTO signatures (backend, device_id, op, feature_level, input_type,"            \
      " output_type, indices_type, layout, distribution, kind, verdict, count,"               \
      " first_seen_run, first_seen_at, last_seen_run, last_seen_at, representative,"          \
      " rep_elements, first_mismatch, replay)"                                                \
      " VALUES (?,?,?,?,?,?,?,?,?,?,?,1,?,?,?,?,?,?,?,?)")                                    \
    X(SIGNATURE_COUNT,                                                                        \
      "UPDATE signatures SET count = count + 1, last_seen_run = ?, last_seen_at = ?"          \
      " WHERE id = ?")                                                                        \
    X(SIGNATURE_REPRESENT,                                                                    \
      "UPDATE signatures SET representative = ?, rep_elements = ?, first_mismatch = ?,"       \
      " replay = ? WHERE id = ?")                                                             \
    X(SIGNATURE_SHRUNK, "UPDATE signatures SET shrunk_case = ?, shrunk_mismatch = ? WHERE id = ?")              \
    X(SIGNATURE_NONDETERMINISTIC, "UPDATE signatures SET nondeterministic = 1 WHERE id = ?")   \
    X(SIGNATURE_DIAGNOSED, "UPDATE signatures SET cause = ?, diagnosis = ? WHERE id = ?")

typedef enum statement_id {
#define X(id, sql) STMT_##id,
    STORE_STATEMENTS(X)
#undef X
    STMT_COUNT
} statement_id;

static const char *const statement_sql[STMT_COUNT] = {
#define X(id, sql) sql,
    STORE_STATEMENTS(X)
#undef X
};

struct store {
    sqlite3 *db;
    sqlite3_stmt *stmt[STMT_COUNT];
    int found_version;
    bool in_batch;
    double seconds; /* wall time spent in SQLite calls */
    char *path;
    double busy_since; /* when the wait for another writer's lock began (busy_poll) */
};

/* One migration step: brings a database at version `from` to `from + 1`.  Version 0 is a
 * fresh file, which gets the whole current schema at once. */
typedef struct migration {
    int from;
    const char *sql;
} migration;

static const migration migrations[] = {
    /* 2: runs record the generator that drew their cases (gen.h GEN_VERSION); every run
     * before that is version 1.  case_list names cases gN:SEED:INDEX.  The view's text is
     * schema.sql's, repeated because a migration is history and must not follow later edits. */
    { 1, "ALTER TABLE runs ADD COLUMN gen_version INTEGER NOT NULL DEFAULT 1;"
         "ALTER TABLE runs ADD COLUMN gen_options TEXT;"
         "DROP VIEW case_list;"
         "CREATE VIEW case_list AS"
         " SELECT c.id, c.run_id, 'g' || r.gen_version || ':' || r.seed || ':' || c.case_index"
         " AS case_id, c.op, c.feature_level, c.input_type, c.output_type, c.indices_type,"
         " c.rank, c.elements, c.input_sizes, c.input_strides, c.output_sizes, c.params,"
         " c.axis_kind, c.layout, c.distribution, c.classes, x.verdict, x.kind,"
         " x.mismatch_count, x.first_mismatch, x.detail, x.time_us"
         " FROM cases c JOIN runs r ON r.id = c.run_id LEFT JOIN results x ON x.case_id = c.id;"
         "PRAGMA user_version = 2;" },
    /* 3: a signature whose case passed when run again is marked nondeterministic. */
    { 2, "ALTER TABLE signatures ADD COLUMN nondeterministic INTEGER NOT NULL DEFAULT 0;"
         "PRAGMA user_version = 3;" },
    /* 4: the backend's first difference at the shrunk case, which its drawing marks; each
     * result's NaN-policy fingerprint (older results have none: NULL). */
    { 3, "ALTER TABLE signatures ADD COLUMN shrunk_mismatch TEXT;"
         "ALTER TABLE results ADD COLUMN nan_policies INTEGER;"
         "ALTER TABLE results ADD COLUMN also_kinds TEXT;"
         "PRAGMA user_version = 4;" },
    /* 5: what the backend claimed (runs.claims; older runs have none: NULL, read as all), a
     * signature's root cause confirmed by probing the backend, and the evidence. */
    { 4, "ALTER TABLE runs ADD COLUMN claims TEXT;"
         "ALTER TABLE signatures ADD COLUMN cause TEXT;"
         "ALTER TABLE signatures ADD COLUMN diagnosis TEXT;"
         "PRAGMA user_version = 5;" },
    { 0, NULL }, /* sentinel */
};

/* What a lock held past the busy timeout means, said where SQLite says only "database is
 * locked": another writer (another dmlcheck run or merge on the same file) held it. */
static const char *lock_hint(store *s)
{
    int code = sqlite3_errcode(s->db) & 0xff;
    return code == SQLITE_BUSY || code == SQLITE_LOCKED
        ? " (another process, most likely another dmlcheck run or merge on this database, held "
          "its write lock for more than " STORE_BUSY_TIMEOUT_TEXT "; what this run recorded before "
          "is kept: wait for the other to finish, or give each run its own --db and merge them)"
        : "";
}

/* The busy handler of a writing connection.  SQLite's own backs off to 100 ms sleeps, while
 * a run commits a batch and begins the next at once: a second run (or a merge) waiting for
 * the lock would find it taken at each try and give up after the whole timeout, although
 * the lock was free a moment every second.  Trying every millisecond, against the pause
 * store_batch_commit leaves, lets concurrent runs take turns. */
static int busy_poll(void *ctx, int tries)
{
    store *s = ctx;
    if (tries == 0)
        s->busy_since = clock_ms();
    if (clock_ms() - s->busy_since >= STORE_BUSY_TIMEOUT_MS)
        return 0;
    nanosleep(&(struct timespec){ .tv_nsec = STORE_BUSY_POLL_MS * 1000000L }, NULL);
    return 1;
}

static bool sql_fail(store *s, dmlc_error *err, const char *what)
{
    return err_set(err, "%s: %s: %s%s", s->path, what, sqlite3_errmsg(s->db), lock_hint(s));
}

static bool exec_sql(store *s, const char *sql, const char *what, dmlc_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return true;
    err_set(err, "%s: %s: %s%s", s->path, what, msg ? msg : sqlite3_errmsg(s->db), lock_hint(s));
    sqlite3_free(msg);
    return false;
}

/* Runs a one-row query and copies its first column into buf; SQLITE_ROW when it did, else
 * SQLite's result code with its message in buf ("database disk image is malformed"). */
static int single_text(store *s, const char *sql, char *buf, size_t size)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    const unsigned char *text = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    snprintf(buf, size, "%s", rc == SQLITE_ROW ? (text ? (const char *)text : "")
                                               : sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return rc;
}

static bool read_user_version(store *s, int *version, dmlc_error *err)
{
    char text[32];
    if (single_text(s, "PRAGMA user_version", text, sizeof text) != SQLITE_ROW)
        return sql_fail(s, err, "reading the schema version");
    *version = atoi(text);
    return true;
}

/* True when the file already holds tables (a version-0 file with tables is not ours). */
static bool has_tables(store *s, bool *any, dmlc_error *err)
{
    char text[32];
    if (single_text(s, "SELECT count(*) FROM sqlite_master", text, sizeof text) != SQLITE_ROW)
        return sql_fail(s, err, "reading the schema");
    *any = atoi(text) > 0;
    return true;
}

/* A run must not append to a damaged file (SQLite may go on writing into it, and the
 * report would count what it can still read): quick_check reads every page once, about
 * 2 ms per MB here. */
static bool intact(store *s, const char *advice, dmlc_error *err)
{
    char finding[256]; /* SQLite may refuse to read the file at all: its message then */
    if (single_text(s, "PRAGMA quick_check(1)", finding, sizeof finding) == SQLITE_ROW
        && !strcmp(finding, "ok"))
        return true;
    return err_set(err, "%s is damaged (SQLite's quick_check: %s); %s", s->path, finding, advice);
}

bool store_path_in_memory(const char *path)
{
    return !path[0] || !strcmp(path, ":memory:") || !strncmp(path, "file::memory:", 13);
}

/* In WAL mode, or one that has no file to switch. */
static bool in_wal_mode(store *s)
{
    char mode[32];
    if (single_text(s, "PRAGMA journal_mode", mode, sizeof mode) != SQLITE_ROW)
        return false;
    /* An in-memory database (":memory:") keeps its journal in memory: nothing to switch. */
    return !strcmp(mode, "wal") || !strcmp(mode, "memory");
}

/* WAL persists in the file: switching needs an exclusive lock that another run's reads and
 * writes keep from it (SQLite answers "database is locked" at once, without waiting), so the
 * switch is only tried on a file not yet in WAL, and losing that race to another run that
 * switched it is fine. */
static bool enable_wal(store *s, dmlc_error *err)
{
    for (int attempt = 0; attempt < 100; attempt++) { /* 10 s, as the busy timeout */
        if (in_wal_mode(s))
            return true;
        if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK
            && in_wal_mode(s))
            return true;
        sqlite3_sleep(100);
    }
    return sql_fail(s, err, "enabling WAL");
}

/* Inside a write transaction: creates the schema or applies the migrations from the version
 * the file holds now. */
static bool upgrade_locked(store *s, dmlc_error *err)
{
    int version = 0;
    if (!read_user_version(s, &version, err))
        return false;
    if (version == 0) {
        /* Read in the same transaction as the version: outside it, another run's schema
         * could commit between the two reads and look like a foreign file. */
        bool any = false;
        if (!has_tables(s, &any, err))
            return false;
        if (any)
            return err_set(err, "%s is an SQLite database but not a dmlcheck results database "
                           "(it has tables and no schema version); use another --db file", s->path);
        return exec_sql(s, store_schema_sql, "creating the schema", err);
    }
    for (const migration *m = migrations; m->sql; m++)
        if (m->from == version) {
            if (!exec_sql(s, m->sql, "migrating the schema", err))
                return false;
            version++;
        }
    if (version != STORE_SCHEMA_VERSION)
        return err_set(err, "%s: no migration from results schema version %d to %d", s->path,
                       version, STORE_SCHEMA_VERSION);
    return true;
}

/* A file without a schema version: refused when it has tables (someone else's database),
 * before dmlcheck changes anything in it.  Tables may also be another run's schema that
 * committed after *version was read: the version is read again to tell the two apart. */
static bool foreign_checked(store *s, int *version, dmlc_error *err)
{
    bool any = false;
    if (!has_tables(s, &any, err))
        return false;
    if (!any)
        return true;
    if (!read_user_version(s, version, err))
        return false;
    if (*version == 0)
        return err_set(err, "%s is an SQLite database but not a dmlcheck results database "
                       "(it has tables and no schema version); use another --db file", s->path);
    return true;
}

/* Creates or migrates the schema; refuses newer or foreign files. */
static bool bring_schema_up(store *s, dmlc_error *err)
{
    int version = 0;
    if (!read_user_version(s, &version, err))
        return false;
    s->found_version = version;
    if (version > STORE_SCHEMA_VERSION)
        return err_set(err, "%s has results schema version %d, newer than the version %d this "
                       "dmlcheck %s understands; use a newer dmlcheck, or another --db file",
                       s->path, version, STORE_SCHEMA_VERSION, DMLCHECK_VERSION);
    if (version == 0 && !foreign_checked(s, &version, err))
        return false;
    if (version > 0 && !intact(s, "nothing was written to it. Use another --db file; `dmlcheck "
                               "report` may still read what it holds", err))
        return false;
    /* WAL: readers never block the run; a killed writer leaves every committed batch. */
    if (!enable_wal(s, err)
        || !exec_sql(s, "PRAGMA synchronous = NORMAL", "setting synchronous", err)
        || !exec_sql(s, "PRAGMA foreign_keys = ON", "enabling foreign keys", err))
        return false;
    if (version == STORE_SCHEMA_VERSION)
        return true;
    /* Another run may be creating or migrating this file right now: decide again under the
     * write lock, from the version found there, so that two runs started together on a new
     * file do not both create the tables. */
    if (!exec_sql(s, "BEGIN IMMEDIATE", "locking the schema", err))
        return false;
    bool ok = upgrade_locked(s, err);
    if (!ok)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return ok && exec_sql(s, "COMMIT", "committing the schema", err);
}

store *store_open(const char *path, dmlc_error *err)
{
    store *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "out of memory opening %s", path);
        return NULL;
    }
    s->path = strdup(path);
    if (!s->path) {
        err_set(err, "out of memory opening %s", path);
        free(s);
        return NULL;
    }
    /* NOMUTEX: one connection, used by one thread at a time (the run's writer thread hands it
     * back through recorder_drain, whose mutex orders the accesses), so SQLite's own
     * per-call connection mutex only cost time (a tenth of an insert). */
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        err_set(err, "cannot open results database %s: %s", path,
                s->db ? sqlite3_errmsg(s->db) : "out of memory");
        store_close(s);
        return NULL;
    }
    sqlite3_busy_handler(s->db, busy_poll, s);
    if (!bring_schema_up(s, err)) {
        store_close(s);
        return NULL;
    }
    for (int i = 0; i < STMT_COUNT; i++)
        if (sqlite3_prepare_v3(s->db, statement_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
                               &s->stmt[i], NULL) != SQLITE_OK) {
            sql_fail(s, err, "preparing a statement");
            store_close(s);
            return NULL;
        }
    return s;
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->in_batch && s->stmt[STMT_ROLLBACK])
        sqlite3_step(s->stmt[STMT_ROLLBACK]);
    for (int i = 0; i < STMT_COUNT; i++)
        sqlite3_finalize(s->stmt[i]);
    sqlite3_close(s->db);
    free(s->path);
    free(s);
}

int store_found_version(const store *s) { return s->found_version; }
double store_seconds(const store *s) { return s->seconds; }

/* ---- Binding and stepping ----------------------------------------------------------- */

static void bind_text(sqlite3_stmt *st, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    sqlite3_bind_int64(st, i, v > INT64_MAX ? INT64_MAX : (sqlite3_int64)v);
}

/* Steps a bound statement to completion (no rows expected) and resets it. */
static bool step_done(store *s, statement_id id, const char *what, dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[id];
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return sql_fail(s, err, what);
    return true;
}

static bool run_plain(store *s, statement_id id, const char *what, dmlc_error *err)
{
    double t0 = clock_seconds();
    bool ok = step_done(s, id, what, err);
    s->seconds += clock_seconds() - t0;
    return ok;
}

/* ---- Runs and devices --------------------------------------------------------------- */

bool store_run_begin(store *s, const store_run_start *r, int64_t *run_id, dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[STMT_RUN_INSERT];
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, r->seed);
    bind_text(st, 1, r->started_at);
    bind_text(st, 2, seed);
    bind_text(st, 3, r->options_json);
    bind_text(st, 4, r->command_line);
    bind_text(st, 5, r->git_revision);
    bind_text(st, 6, DMLCHECK_VERSION);
    bind_text(st, 7, r->host);
    bind_text(st, 8, r->backend);
    bind_text(st, 9, r->nan_policy);
    sqlite3_bind_int(st, 10, r->strict);
    if (r->cases_requested >= 0)
        sqlite3_bind_int64(st, 11, r->cases_requested);
    else
        sqlite3_bind_null(st, 11);
    if (r->time_requested_s >= 0)
        sqlite3_bind_double(st, 12, r->time_requested_s);
    else
        sqlite3_bind_null(st, 12);
    sqlite3_bind_int64(st, 13, r->gen_version);
    bind_text(st, 14, r->gen_options);
    if (!run_plain(s, STMT_RUN_INSERT, "recording the run", err))
        return false;
    *run_id = sqlite3_last_insert_rowid(s->db);
    return true;
}

static void bind_device(sqlite3_stmt *st, const char *backend, const backend_info *info)
{
    bind_text(st, 1, backend);
    bind_text(st, 2, info->platform);
    bind_text(st, 3, info->device);
    bind_text(st, 4, info->driver);
    bind_text(st, 5, info->runtime); /* column c_version: see schema.sql */
    bind_text(st, 6, info->fp_config);
    sqlite3_bind_int(st, 7, info->flushes_denormals);
}

/* The id of the device row, or 0 when there is none; SQLite's result code in *rc. */
static int64_t find_device(store *s, const char *backend, const backend_info *info, int *rc)
{
    sqlite3_stmt *find = s->stmt[STMT_DEVICE_FIND];
    bind_device(find, backend, info);
    *rc = sqlite3_step(find);
    int64_t id = *rc == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
    sqlite3_reset(find);
    sqlite3_clear_bindings(find);
    return id;
}

bool store_run_device(store *s, int64_t run_id, const char *backend, const backend_info *info,
                      int64_t *device_id, dmlc_error *err)
{
    double t0 = clock_seconds();
    int rc;
    *device_id = find_device(s, backend, info, &rc);
    if (rc == SQLITE_DONE) {
        /* Another run may record the same device between the two statements: the insert
         * then does nothing, and the second look-up finds that run's row. */
        bind_device(s->stmt[STMT_DEVICE_INSERT], backend, info);
        if (!run_plain(s, STMT_DEVICE_INSERT, "recording the device", err))
            return false;
        *device_id = find_device(s, backend, info, &rc);
    }
    s->seconds += clock_seconds() - t0;
    if (rc != SQLITE_ROW)
        return sql_fail(s, err, "looking up the device");
    bool oom;
    char *claims = claims_to_json(&info->claims, &oom); /* NULL: it claims everything */
    if (oom)
        return err_set(err, "out of memory");
    sqlite3_stmt *link = s->stmt[STMT_RUN_SET_DEVICE];
    sqlite3_bind_int64(link, 1, *device_id);
    if (claims)
        sqlite3_bind_text(link, 2, claims, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(link, 2);
    sqlite3_bind_int64(link, 3, run_id);
    free(claims);
    return run_plain(s, STMT_RUN_SET_DEVICE, "linking the run to its device and claims", err);
}

bool store_run_progress(store *s, int64_t run_id, uint64_t cases_done, uint64_t failures,
                        double elapsed_s, dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[STMT_RUN_PROGRESS];
    bind_u64(st, 1, cases_done);
    bind_u64(st, 2, failures);
    sqlite3_bind_double(st, 3, elapsed_s);
    sqlite3_bind_int64(st, 4, run_id);
    return run_plain(s, STMT_RUN_PROGRESS, "updating the run's counters", err);
}

bool store_run_finish(store *s, int64_t run_id, const char *status, const char *finished_at,
                      dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[STMT_RUN_FINISH];
    bind_text(st, 1, status);
    bind_text(st, 2, finished_at);
    sqlite3_bind_int64(st, 3, run_id);
    return run_plain(s, STMT_RUN_FINISH, "finishing the run", err);
}

/* A run's one statement with two bound values (run id ?1, text ?2), to its end. */
static bool run_update(store *s, const char *sql, int64_t run_id, const char *text,
                       const char *what, dmlc_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(s, err, what);
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, text);
    bool ok = sqlite3_step(st) == SQLITE_DONE || sql_fail(s, err, what);
    sqlite3_finalize(st);
    return ok;
}

bool store_run_unshard(store *s, int64_t run_id, const char *status, dmlc_error *err)
{
    return run_update(s, "UPDATE runs SET options = json_remove(options, '$.shard'),"
                      " status = ifnull(?2, status) WHERE id = ?1", run_id, status,
                      "making the shards one run", err);
}

/* ---- Batches ------------------------------------------------------------------------ */

bool store_batch_begin(store *s, dmlc_error *err)
{
    if (s->in_batch)
        return true;
    if (!run_plain(s, STMT_BEGIN, "starting a batch", err))
        return false;
    s->in_batch = true;
    return true;
}

bool store_batch_commit(store *s, dmlc_error *err)
{
    if (!s->in_batch)
        return true;
    s->in_batch = false;
    if (!run_plain(s, STMT_COMMIT, "committing a batch", err))
        return false;
    /* The lock stays free a moment before this run's next batch takes it (busy_poll). */
    nanosleep(&(struct timespec){ .tv_nsec = STORE_COMMIT_YIELD_MS * 1000000L }, NULL);
    return true;
}

/* ---- Cases, results, signatures ----------------------------------------------------- */

bool store_case(store *s, const store_case_row *r, dmlc_error *err)
{
    double t0 = clock_seconds();
    sqlite3_stmt *st = s->stmt[STMT_CASE_INSERT];
    sqlite3_bind_int64(st, 1, r->run_id);
    bind_u64(st, 2, r->case_index);
    bind_text(st, 3, r->op);
    bind_text(st, 4, r->feature_level);
    bind_text(st, 5, r->input_type);
    bind_text(st, 6, r->output_type);
    bind_text(st, 7, r->indices_type);
    sqlite3_bind_int(st, 8, (int)r->rank);
    bind_u64(st, 9, r->elements);
    bind_text(st, 10, r->input_sizes);
    bind_text(st, 11, r->input_strides);
    bind_text(st, 12, r->output_sizes);
    bind_text(st, 13, r->params);
    bind_text(st, 14, r->axis_kind);
    bind_text(st, 15, r->layout);
    bind_text(st, 16, r->distribution);
    bind_text(st, 17, r->classes);
    bool ok = step_done(s, STMT_CASE_INSERT, "recording a case", err);
    if (ok) {
        st = s->stmt[STMT_RESULT_INSERT];
        sqlite3_bind_int64(st, 1, sqlite3_last_insert_rowid(s->db));
        bind_text(st, 2, r->verdict);
        bind_text(st, 3, r->kind);
        bind_u64(st, 4, r->mismatch_count);
        bind_text(st, 5, r->first_mismatch);
        bind_text(st, 6, r->detail);
        sqlite3_bind_double(st, 7, r->time_us);
        if (r->has_nan_policies)
            sqlite3_bind_int(st, 8, (int)r->nan_policies);
        else
            sqlite3_bind_null(st, 8);
        bind_text(st, 9, r->also_kinds);
        ok = step_done(s, STMT_RESULT_INSERT, "recording a result", err);
    }
    s->seconds += clock_seconds() - t0;
    return ok;
}

static void bind_signature_key(sqlite3_stmt *st, const store_signature_row *r)
{
    bind_text(st, 1, r->backend);
    sqlite3_bind_int64(st, 2, r->device_id > 0 ? r->device_id : 0);
    bind_text(st, 3, r->op);
    bind_text(st, 4, r->feature_level);
    bind_text(st, 5, r->input_type);
    bind_text(st, 6, r->output_type);
    bind_text(st, 7, r->indices_type ? r->indices_type : "");
    bind_text(st, 8, r->layout);
    bind_text(st, 9, r->distribution);
    bind_text(st, 10, r->kind);
    bind_text(st, 11, r->verdict);
}

static bool signature_insert(store *s, const store_signature_row *r, int64_t *id, dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[STMT_SIGNATURE_INSERT];
    bind_text(st, 1, r->backend);
    if (r->device_id > 0)
        sqlite3_bind_int64(st, 2, r->device_id);
    else
        sqlite3_bind_null(st, 2);
    bind_text(st, 3, r->op);
    bind_text(st, 4, r->feature_level);
    bind_text(st, 5, r->input_type);
    bind_text(st, 6, r->output_type);
    bind_text(st, 7, r->indices_type);
    bind_text(st, 8, r->layout);
    bind_text(st, 9, r->distribution);
    bind_text(st, 10, r->kind);
    bind_text(st, 11, r->verdict);
    sqlite3_bind_int64(st, 12, r->run_id);
    bind_text(st, 13, r->seen_at);
    sqlite3_bind_int64(st, 14, r->run_id);
    bind_text(st, 15, r->seen_at);
    bind_text(st, 16, r->case_id);
    bind_u64(st, 17, r->elements);
    bind_text(st, 18, r->first_mismatch);
    bind_text(st, 19, r->replay);
    if (!step_done(s, STMT_SIGNATURE_INSERT, "recording a signature", err))
        return false;
    *id = sqlite3_last_insert_rowid(s->db);
    return true;
}

static bool signature_count(store *s, const store_signature_row *r, int64_t id,
                            bool representative, dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[STMT_SIGNATURE_COUNT];
    sqlite3_bind_int64(st, 1, r->run_id);
    bind_text(st, 2, r->seen_at);
    sqlite3_bind_int64(st, 3, id);
    if (!step_done(s, STMT_SIGNATURE_COUNT, "counting a signature", err))
        return false;
    if (!representative)
        return true;
    st = s->stmt[STMT_SIGNATURE_REPRESENT];
    bind_text(st, 1, r->case_id);
    bind_u64(st, 2, r->elements);
    bind_text(st, 3, r->first_mismatch);
    bind_text(st, 4, r->replay);
    sqlite3_bind_int64(st, 5, id);
    return step_done(s, STMT_SIGNATURE_REPRESENT, "updating a signature's representative", err);
}

/* Whether a stored representative id was drawn by this generator (bare ids: version 1). */
static bool current_generator(const char *case_id)
{
    gen_case_id id;
    return case_id && gen_parse_case_id(case_id, &id) && id.version == GEN_VERSION;
}

bool store_representative_better(const char *candidate, uint64_t candidate_elements,
                                 const char *current, uint64_t current_elements)
{
    if (!current_generator(current))
        return current_generator(candidate) || !current;
    if (!current_generator(candidate) || candidate_elements != current_elements)
        return current_generator(candidate) && candidate_elements < current_elements;
    gen_case_id a, b;
    gen_parse_case_id(candidate, &a);
    gen_parse_case_id(current, &b);
    return a.seed == b.seed && a.index < b.index;
}

bool store_signature(store *s, const store_signature_row *r, int64_t *id, bool *is_new,
                     dmlc_error *err)
{
    double t0 = clock_seconds();
    sqlite3_stmt *find = s->stmt[STMT_SIGNATURE_FIND];
    bind_signature_key(find, r);
    int rc = sqlite3_step(find);
    bool found = rc == SQLITE_ROW;
    bool better = found && store_representative_better(r->case_id, r->elements,
        (const char *)sqlite3_column_text(find, 2), (uint64_t)sqlite3_column_int64(find, 1));
    if (found)
        *id = sqlite3_column_int64(find, 0);
    sqlite3_reset(find);
    sqlite3_clear_bindings(find);
    bool ok;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ok = sql_fail(s, err, "looking up a signature");
    else if (found)
        ok = signature_count(s, r, *id, better, err);
    else
        ok = signature_insert(s, r, id, err);
    *is_new = !found;
    s->seconds += clock_seconds() - t0;
    return ok;
}

bool store_signature_nondeterministic(store *s, int64_t id, dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[STMT_SIGNATURE_NONDETERMINISTIC];
    sqlite3_bind_int64(st, 1, id);
    return run_plain(s, STMT_SIGNATURE_NONDETERMINISTIC, "marking a signature nondeterministic", err);
}

/* A signature's two text columns (statement q: ?1, ?2 and the id as ?3). */
static bool set_two_texts(store *s, statement_id q, const char *a, const char *b, int64_t id,
                          const char *what, dmlc_error *err)
{
    sqlite3_stmt *st = s->stmt[q];
    bind_text(st, 1, a);
    bind_text(st, 2, b);
    sqlite3_bind_int64(st, 3, id);
    return run_plain(s, q, what, err);
}

bool store_signature_shrunk(store *s, int64_t id, const char *case_json, const char *mismatch_json,
                            dmlc_error *err)
{
    return set_two_texts(s, STMT_SIGNATURE_SHRUNK, case_json, mismatch_json, id,
                         "storing a shrunk case", err);
}

bool store_signature_diagnosis(store *s, int64_t id, const char *cause, const char *diagnosis_json,
                               dmlc_error *err)
{
    return set_two_texts(s, STMT_SIGNATURE_DIAGNOSED, cause, diagnosis_json, id,
                         "storing a diagnosis", err);
}

/* ---- Where a case came from (replay --db) ------------------------------------------- */

/* The runs with seed ?1 that recorded case index ?2, best first, by the file's schema
 * version: the newest whose generator version and options are ?3 and ?4, else the newest.
 * Version 1 files predate gen_version: every run there is version 1. */
/* Versions 2 and later read runs the same way (later versions changed other tables). */
#define ORIGIN_SQL_SINCE_V2                                                                  \
    "SELECT id, gen_version, ifnull(gen_options, ''), dmlcheck_version,"                     \
    " ifnull(git_revision, '') FROM runs"                                                    \
    " WHERE seed = ?1 AND id IN (SELECT run_id FROM cases WHERE case_index = ?2)"            \
    " ORDER BY gen_version = ?3 AND gen_options IS ?4 DESC, id DESC LIMIT 1"
static const char *const origin_sql[STORE_SCHEMA_VERSION + 1] = {
    [1] = "SELECT id, 1, '', dmlcheck_version, ifnull(git_revision, '') FROM runs"
          " WHERE seed = ?1 AND id IN (SELECT run_id FROM cases WHERE case_index = ?2)"
          " ORDER BY id DESC LIMIT 1",
    [2] = ORIGIN_SQL_SINCE_V2,
    [3] = ORIGIN_SQL_SINCE_V2,
    [4] = ORIGIN_SQL_SINCE_V2,
    [5] = ORIGIN_SQL_SINCE_V2,
};

static void copy_column(sqlite3_stmt *st, int col, char *buf, size_t size)
{
    const unsigned char *text = sqlite3_column_text(st, col);
    snprintf(buf, size, "%s", text ? (const char *)text : "");
}

/* Runs the origin query of schema `version` on s; *found when a row came back. */
static bool query_origin(store *s, int version, uint64_t seed, uint64_t index, unsigned gen_version,
                         const char *gen_options, store_case_origin *o, bool *found,
                         dmlc_error *err)
{
    sqlite3_stmt *st;
    char seed_text[24];
    snprintf(seed_text, sizeof seed_text, "%" PRIu64, seed);
    /* Versions after 3 add nothing this lookup reads: they use version 3's query. */
    if (sqlite3_prepare_v2(s->db, origin_sql[version < 3 ? version : 3], -1, &st, NULL) != SQLITE_OK)
        return sql_fail(s, err, "looking up the case's run");
    sqlite3_bind_text(st, 1, seed_text, -1, SQLITE_STATIC);
    bind_u64(st, 2, index);
    if (sqlite3_bind_parameter_count(st) >= 4) {
        sqlite3_bind_int64(st, 3, gen_version);
        bind_text(st, 4, gen_options);
    }
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (*found) {
        o->run_id = sqlite3_column_int64(st, 0);
        o->gen_version = (unsigned)sqlite3_column_int64(st, 1);
        copy_column(st, 2, o->gen_options, sizeof o->gen_options);
        copy_column(st, 3, o->dmlcheck_version, sizeof o->dmlcheck_version);
        copy_column(st, 4, o->git_revision, sizeof o->git_revision);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? true : sql_fail(s, err, "looking up the case's run");
}

bool store_find_case_origin(const char *path, uint64_t seed, uint64_t index, unsigned gen_version,
                            const char *gen_options, store_case_origin *origin, bool *found,
                            dmlc_error *err)
{
    store s = { .path = strdup(path) };
    int version = 0;
    bool ok = s.path != NULL || err_set(err, "out of memory opening %s", path);
    ok = ok && store_open_read_only_db(path, &s.db, err);
    ok = ok && read_user_version(&s, &version, err);
    if (ok && version > STORE_SCHEMA_VERSION)
        ok = err_set(err, "%s has results schema version %d, newer than the version %d this "
                     "dmlcheck %s understands; use a newer dmlcheck", path, version,
                     STORE_SCHEMA_VERSION, DMLCHECK_VERSION);
    if (ok && version < 1)
        ok = err_set(err, "%s is not a dmlcheck results database (no schema version)", path);
    ok = ok && query_origin(&s, version, seed, index, gen_version, gen_options, origin, found, err);
    sqlite3_close(s.db);
    free(s.path);
    return ok;
}

/* ---- Reading another database (merge) ---------------------------------------------- */

/* Whether path must be read as immutable: a WAL database (header bytes 18 and 19 are 2)
 * with no -wal file, or an empty one (cleanly closed: nothing uncommitted, nobody writing through WAL) whose
 * -shm file SQLite can neither create nor write (a read-only mount, another user's folder).
 * SQLite's read-only open needs that file, and fails as if the database were not one. */
static bool needs_immutable(const char *path)
{
    unsigned char header[20];
    FILE *f = fopen(path, "rb");
    bool wal = f && fread(header, 1, sizeof header, f) == sizeof header && header[18] == 2
               && header[19] == 2;
    if (f)
        fclose(f);
    char side[4200], folder[4200];
    struct stat st;
    if (!wal || (size_t)snprintf(side, sizeof side, "%s-wal", path) >= sizeof side
        || (stat(side, &st) == 0 && st.st_size > 0))
        return false;
    snprintf(side, sizeof side, "%s-shm", path);
    if (access(side, F_OK) == 0)
        return access(side, W_OK) != 0;
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (!slash)
        snprintf(folder, sizeof folder, ".");
    else
        slash[slash == folder] = 0;
    return access(folder, W_OK) != 0;
}

char *store_read_uri(const char *path)
{
    char *uri = malloc(strlen(path) * 3 + 16), *p = uri;
    if (!uri)
        return NULL;
    p += sprintf(p, "file:");
    for (const char *c = path; *c; c++)
        p += strchr("%?#", *c) ? sprintf(p, "%%%02X", (unsigned char)*c) : sprintf(p, "%c", *c);
    strcpy(p, needs_immutable(path) ? "?immutable=1" : "?mode=ro");
    return uri;
}

bool store_open_read_only_db(const char *path, sqlite3 **db, dmlc_error *err)
{
    *db = NULL;
    char *uri = store_read_uri(path);
    if (!uri)
        return err_set(err, "out of memory opening %s", path);
    int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        err_set(err, "cannot open results database %s: %s", path,
                *db ? sqlite3_errmsg(*db) : "out of memory");
        sqlite3_close(*db);
        *db = NULL;
        return false;
    }
    sqlite3_busy_timeout(*db, 10000); /* a run may be writing it right now */
    return true;
}

/* Opens path read-only after checking it exists (SQLite's "unable to open" names no reason). */
static bool open_read_only(store *s, const char *path, dmlc_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return err_set(err, "%s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return err_set(err, "%s is not a file", path);
    if (!(s->path = strdup(path)))
        return err_set(err, "out of memory opening %s", path);
    return store_open_read_only_db(path, &s->db, err);
}

/* The checks of store_check_readable on an open connection. */
static bool readable(store *s, int *version, dmlc_error *err)
{
    char text[256];
    if (single_text(s, "PRAGMA user_version", text, sizeof text) != SQLITE_ROW)
        return err_set(err, "%s is not a dmlcheck results database (SQLite: %s)", s->path, text);
    *version = atoi(text);
    bool any = false;
    if (*version > STORE_SCHEMA_VERSION)
        return err_set(err, "%s has results schema version %d, newer than the version %d this "
                       "dmlcheck %s understands; use a newer dmlcheck", s->path, *version,
                       STORE_SCHEMA_VERSION, DMLCHECK_VERSION);
    if (!has_tables(s, &any, err))
        return false;
    if (*version < 1)
        return err_set(err, "%s is not a dmlcheck results database (%s)", s->path,
                       any ? "it has tables and no schema version" : "it is empty");
    return intact(s, "it is read no further", err);
}

bool store_check_readable(const char *path, int *version, dmlc_error *err)
{
    store s = { 0 };
    bool ok = open_read_only(&s, path, err) && readable(&s, version, err);
    sqlite3_close(s.db);
    free(s.path);
    return ok;
}

bool store_copy_migrated(const char *path, const char *copy_path, dmlc_error *err)
{
    store src = { 0 };
    sqlite3 *copy = NULL;
    int version = 0;
    bool ok = open_read_only(&src, path, err) && readable(&src, &version, err);
    if (ok && sqlite3_open_v2(copy_path, &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL)
        != SQLITE_OK)
        ok = err_set(err, "cannot create %s: %s", copy_path, copy ? sqlite3_errmsg(copy) : "out of memory");
    if (ok) {
        sqlite3_backup *b = sqlite3_backup_init(copy, "main", src.db, "main");
        int rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(copy);
        sqlite3_backup_finish(b);
        if (rc != SQLITE_DONE)
            ok = err_set(err, "copying %s to %s: %s", path, copy_path, sqlite3_errstr(rc));
    }
    sqlite3_close(copy);
    sqlite3_close(src.db);
    free(src.path);
    store *migrated = ok ? store_open(copy_path, err) : NULL;
    store_close(migrated);
    return migrated != NULL;
}

void store_remove_files(const char *path)
{
    static const char *const suffixes[] = { "", "-wal", "-shm" };
    char p[4096];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if ((size_t)snprintf(p, sizeof p, "%s%s", path, suffixes[i]) < sizeof p)
            unlink(p);
}

sqlite3 *store_connection(store *s)
{
    return s->db;
}
