-- results/schema.sql: the dmlcheck results database (`dmlcheck run --db FILE`, default
-- dmlcheck.sqlite).  Embedded into the binary at build time and applied to a fresh database
-- in one transaction.  Every statement over it lives in results/: store.c writes it (runs,
-- cases, results, signatures) and answers replay --db; merge.c copies one database into
-- another (`dmlcheck merge`; its header gives the rules); reader.c reads it for reports and
-- families.c reads it for families (`run`'s summary, `report`, `export --family`).
--
-- Sharded runs (`dmlcheck run --shard K/N`) record {"count":N,"indices":[K]} as
-- runs.options' "shard"; their cases keep the whole run's case_index.  `dmlcheck merge`
-- combines the shards of one run (same seed, options but the shard, backend, device,
-- generator, build) into ONE runs row whose "shard" lists every merged index, with
-- cases_done and failures summed, the earliest started_at, the latest finished_at and the
-- longest elapsed_s; reports read it as one run.
--
-- Invariants and conventions (reports rely on them):
--   * PRAGMA user_version is the schema version.  Changes are additive only: a new version
--     adds tables/columns/views and store.c migrates an older database step by step
--     (1 -> 2 -> ...).  A database with a NEWER version than the binary is refused.
--   * The database runs in WAL mode; a run inserts in batched transactions, so a killed run
--     (even kill -9) leaves every case of every committed batch, each with its result row.
--   * Names are the harness's names: op 'ARGMIN' | 'ARGMAX' | 'MAX_POOLING1' | 'MAX_POOLING2'
--     (model/ops.def); data types 'FLOAT32', 'FLOAT16', 'UINT32', ...
--     (DML_TENSOR_DATA_TYPE_ suffixes); feature levels '2_0', '2_1', '3_0', '4_1', '5_0'
--     (text, so they sort in level order); layout and distribution
--     names are gen.h's (GEN_LAYOUTS, GEN_DISTRIBUTIONS).
--   * A case is named gN:SEED:INDEX: runs.gen_version, runs.seed (decimal text, full uint64
--     range) and cases.case_index.  The view case_list spells the name out as case_id.
--     signatures.representative and .replay carry the name as the run wrote it: 'g2:7:49'
--     since schema version 2, a bare '7:49' before, which was drawn by generator version 1
--     (reports show it as g1:7:49).
--   * Times are UTC ISO-8601 text ('2024-05-01T12:34:56Z'); durations are numbers.
--   * JSON columns hold compact JSON text; read them with json_extract / json_each.

PRAGMA user_version = 5;

-- One row per `dmlcheck run`.  A second run on the same file appends a new row.
CREATE TABLE runs (
    id               INTEGER PRIMARY KEY,
    started_at       TEXT NOT NULL,
    finished_at      TEXT,            -- NULL while running or after kill -9
    elapsed_s        REAL,            -- wall time so far; updated at every committed batch
    seed             TEXT NOT NULL,   -- decimal uint64; cases are SEED:INDEX
    options          TEXT NOT NULL,   -- JSON of every run option, e.g.
                                      -- {"ops":["ARGMAX"],"types":["FLOAT16"],"cases":1000,
                                      --  "time_s":null,"max_elements":4096,"feature_level":null,
                                      --  "device":null,"time_limit_ms":2000,"batch":...}
    command_line     TEXT,            -- the argv as typed, for reproduction
    git_revision     TEXT,            -- `git describe --always --dirty` at build time, or NULL
    dmlcheck_version TEXT NOT NULL,
    host             TEXT,            -- uname: nodename sysname release machine
    backend          TEXT NOT NULL,   -- --backend NAME (e.g. 'opencl', 'reference')
    device_id        INTEGER REFERENCES devices(id), -- NULL until the backend opened
    nan_policy       TEXT NOT NULL,   -- 'ignore' | 'propagate'
    strict           INTEGER NOT NULL DEFAULT 0,     -- 1: every class judged (--strict)
    cases_requested  INTEGER,         -- --cases N, or NULL for --time
    time_requested_s REAL,            -- --time SECONDS, or NULL
    cases_done       INTEGER NOT NULL DEFAULT 0,     -- committed cases; updated per batch
    failures         INTEGER NOT NULL DEFAULT 0,     -- cases with verdict 'fail'
    status           TEXT NOT NULL DEFAULT 'running'
                     CHECK (status IN ('running', 'finished', 'interrupted', 'error')),
                     -- 'running' with finished_at NULL after the run is gone: killed (-9)
    -- Added by schema version 2 (store.c's migration appends them, so they come last):
    gen_version      INTEGER NOT NULL DEFAULT 1, -- gen.h GEN_VERSION that drew the cases;
                                      -- 1: a run recorded before versions were stored
    gen_options      TEXT,            -- gen_options_text: what decides the draw, e.g.
                                      -- 'feature-level=any max-elements=4096 ops=any types=any';
                                      -- NULL for version-1 runs
    -- Added by schema version 5:
    claims           TEXT             -- what the backend claims to implement (model/claims.h
                                      -- claims_to_json), e.g. {"max_feature_level":"5_0",
                                      -- "operators":[{"op":"ARGMAX","input_types":["FLOAT32",
                                      -- "INT32"]},{"op":"MAX_POOLING2","input_types":
                                      -- ["FLOAT32"]}]} (a type list absent: every type);
                                      -- NULL: everything (the reference, or a run recorded
                                      -- before version 5, which reports read as claiming all)
);

-- One row per distinct device a run used (shared by runs on the same device).
CREATE TABLE devices (
    id                INTEGER PRIMARY KEY,
    backend           TEXT NOT NULL,
    platform          TEXT NOT NULL,
    device            TEXT NOT NULL,
    driver            TEXT NOT NULL,
    c_version         TEXT NOT NULL,  -- the backend's runtime (backend_info.runtime, a plug-in's
                                      -- dmlcheck_info.runtime): 'OpenCL C 1.2', 'CUDA 12.4';
                                      -- '' when none.  Named when only OpenCL filled it
    fp_config         TEXT NOT NULL,  -- e.g. 'denorm,inf_nan,round_to_nearest'
    flushes_denormals INTEGER NOT NULL, -- 1: fp32 denormals may be flushed (no CL_FP_DENORM)
    UNIQUE (backend, platform, device, driver, c_version, fp_config, flushes_denormals)
);

-- One row per generated case, as the generator drew it.
CREATE TABLE cases (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    case_index    INTEGER NOT NULL,  -- INDEX of SEED:INDEX (seed in runs)
    op            TEXT NOT NULL,
    feature_level TEXT NOT NULL,
    input_type    TEXT NOT NULL,
    output_type   TEXT NOT NULL,     -- ARGMIN/ARGMAX: the index type of the output
    indices_type  TEXT,              -- MAX_POOLING1/2's OutputIndicesTensor; NULL when absent
    rank          INTEGER NOT NULL,  -- input rank (4-5 for pooling)
    elements      INTEGER NOT NULL,  -- input logical element count
    input_sizes   TEXT NOT NULL,     -- JSON array
    input_strides TEXT,              -- JSON array, NULL when packed (no strides given)
    output_sizes  TEXT NOT NULL,     -- JSON array
    params        TEXT NOT NULL,     -- JSON object; ARGMIN/ARGMAX:
                                     --   {"axes":[..],"direction":"INCREASING"|"DECREASING"}
                                     -- MAX_POOLING1, MAX_POOLING2: {"window":[..],"strides":[..],
                                     --   "dilations":[..],"start_padding":[..],
                                     --   "end_padding":[..],"indices":true|false}
                                     --   (MAX_POOLING1 has no Dilations: all 1)
    axis_kind     TEXT,              -- ARGMIN/ARGMAX: 'one' | 'several' | 'several_shuffled'
                                     --   | 'all' | 'all_shuffled'; NULL for pooling
    layout        TEXT NOT NULL,     -- packed | padded | permuted | broadcast | oversized
    distribution  TEXT NOT NULL,     -- uniform | ties | all_equal | ... (gen.h)
    classes       TEXT NOT NULL      -- SEMANTICS.md classes present: '' or e.g. 'nan,denormal'
);

-- One row per case: how the backend did against the reference.  case_id = cases.id.
CREATE TABLE results (
    case_id        INTEGER PRIMARY KEY REFERENCES cases(id),
    verdict        TEXT NOT NULL
                   CHECK (verdict = 'pass' OR verdict = 'fail' OR verdict = 'unspecified'
                          OR verdict = 'skip' OR verdict = 'error'),
                   -- (the same rule as verdict IN (...), which version-1 files made before
                   -- this spelling hold; SQLite builds a temporary table for an IN list of
                   -- more than two values on every insert, which doubled the cost of a row)
                   -- pass: bit-exact; fail: a judged mismatch; unspecified: a mismatch only in
                   -- a class SEMANTICS.md leaves open (nan/denormal/padding_window, not
                   -- --strict); skip: the backend cannot run the case on this device
                   -- (detail says why); error: the harness itself failed (a dmlcheck bug)
    kind           TEXT,             -- NULL for pass/skip/error; else one of: wrong_index,
                                     -- tie_other_way, padding_selected, value_bits_differ,
                                     -- nan_handling, out_of_bounds_write, input_modified,
                                     -- invalid_access, data_race, uninitialised_read (what
                                     -- a checking device such as Oclgrind reported; detail
                                     -- holds its first line),
                                     -- backend_error, crash, hang, rejected_valid (refused
                                     -- as invalid a descriptor DirectML accepts),
                                     -- unsupported_required (unsupported within the
                                     -- backend's own claims)
    mismatch_count INTEGER NOT NULL DEFAULT 0, -- differing logical elements (all tensors)
    first_mismatch TEXT,             -- JSON: {"tensor":"output"|"indices","element":N,
                                     --  "coords":[..],"expected":"0x..","got":"0x..",
                                     --  "expected_value":"..","got_value":"..",
                                     --  "explanation":"the check's words (check_explain)",
                                     --  "input_at_expected"/"input_at_got": {...} for index
                                     --  mismatches}
    detail         TEXT,             -- backend message, skip reason, signal name
    time_us        REAL,             -- backend time for this case (µs)
    -- Added by schema version 4 (store.c's migration appends them, so they come last):
    nan_policies   INTEGER,          -- NaN-policy fingerprint of the answer (SEMANTICS.md
                                     -- "NaN-policy fingerprint"): bit p set when policy p
                                     -- explains every row or window of the case holding a
                                     -- NaN; bits in reference/nan_policies.h order: 1 ignore,
                                     -- 2 propagate-first, 4 propagate-last, 8 first-sticky,
                                     -- 16 nan-restarts; 0: none does; NULL: no such row
                                     -- (no NaN, or no answer)
    also_kinds     TEXT              -- other root-cause kinds whose evidence
                                     -- holds at the reported element too, "a,b" (classify.h
                                     -- judgement.also_kinds); NULL: none.  families.c joins
                                     -- a family whose every case another family's kind
                                     -- explains too to that family
);
CREATE INDEX results_not_passed ON results(verdict, kind) WHERE verdict <> 'pass';

-- One row per distinct failure: a thousand failures of one bug are one row.
CREATE TABLE signatures (
    id              INTEGER PRIMARY KEY,
    backend         TEXT NOT NULL,
    device_id       INTEGER REFERENCES devices(id),
    op              TEXT NOT NULL,
    feature_level   TEXT NOT NULL,
    input_type      TEXT NOT NULL,
    output_type     TEXT NOT NULL,
    indices_type    TEXT,
    layout          TEXT NOT NULL,
    distribution    TEXT NOT NULL,
    kind            TEXT NOT NULL,   -- as results.kind
    verdict         TEXT NOT NULL,   -- 'fail' or 'unspecified' (judged or not)
    count           INTEGER NOT NULL DEFAULT 0, -- cases with this signature, all runs
    first_seen_run  INTEGER NOT NULL REFERENCES runs(id),
    first_seen_at   TEXT NOT NULL,
    last_seen_run   INTEGER NOT NULL REFERENCES runs(id),
    last_seen_at    TEXT NOT NULL,
    representative  TEXT NOT NULL,   -- 'gN:SEED:INDEX' of the smallest failing case found
                                     -- (bare 'SEED:INDEX' when written by schema version 1)
    rep_elements    INTEGER,         -- its input element count (smaller replaces it)
    first_mismatch  TEXT,            -- JSON as results.first_mismatch, of the representative
    shrunk_case     TEXT,            -- case-file JSON (casefile_write) of the minimized case,
                                     -- with the reference's expected outputs; `dmlcheck exec`
                                     -- accepts it.  NULL when shrinking found nothing smaller
    replay          TEXT NOT NULL,   -- 'dmlcheck replay gN:SEED:INDEX --backend ...'
    nondeterministic INTEGER NOT NULL DEFAULT 0, -- 1: its first case of a run passed when run
                                     -- again (a race, an uninitialised read: news too)
    shrunk_mismatch TEXT,            -- (version 4) JSON as results.first_mismatch, of the
                                     -- backend's answer at shrunk_case: what its drawing
                                     -- marks.  NULL before version 4 or when not shrunk
    cause           TEXT,            -- (version 5) the root cause diagnosis confirmed by
                                     -- probing (diagnose/causes.def id); NULL: not diagnosed,
                                     -- or undiagnosed (diagnosis then holds the evidence)
    diagnosis       TEXT             -- (version 5) diagnosis_json: the probes asked, what the
                                     -- spec, the cause and the backend said; NULL: not diagnosed
);
CREATE UNIQUE INDEX signatures_key ON signatures(
    backend, ifnull(device_id, 0), op, feature_level, input_type, output_type,
    ifnull(indices_type, ''), layout, distribution, kind, verdict);

-- Every case with its result and its gN:SEED:INDEX name.
CREATE VIEW case_list AS
SELECT c.id, c.run_id, 'g' || r.gen_version || ':' || r.seed || ':' || c.case_index AS case_id,
       c.op, c.feature_level, c.input_type, c.output_type, c.indices_type, c.rank,
       c.elements, c.input_sizes, c.input_strides, c.output_sizes, c.params, c.axis_kind,
       c.layout, c.distribution, c.classes,
       x.verdict, x.kind, x.mismatch_count, x.first_mismatch, x.detail, x.time_us
FROM cases c
JOIN runs r ON r.id = c.run_id
LEFT JOIN results x ON x.case_id = c.id;

-- Verdict counts per run x feature level x operator x data types.  Sum over run_id for the
-- whole database, e.g. "how many cases passed at FL 3_0 for ARGMAX FLOAT16":
--   SELECT sum(passed) FROM verdict_counts
--   WHERE feature_level = '3_0' AND op = 'ARGMAX' AND input_type = 'FLOAT16';
CREATE VIEW verdict_counts AS
SELECT c.run_id, c.feature_level, c.op, c.input_type, c.output_type, c.indices_type,
       count(*)                         AS cases,
       sum(x.verdict = 'pass')          AS passed,
       sum(x.verdict = 'fail')          AS failed,
       sum(x.verdict = 'unspecified')   AS unspecified,
       sum(x.verdict = 'skip')          AS skipped,
       sum(x.verdict = 'error')         AS errors
FROM cases c
JOIN results x ON x.case_id = c.id
GROUP BY c.run_id, c.feature_level, c.op, c.input_type, c.output_type, c.indices_type;
