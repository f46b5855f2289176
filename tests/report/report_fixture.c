/*
 * report_fixture.c: see report_fixture.h.  Writes with the schema's own tables and bound
 * parameters only; JSON columns are built with jansson.  Times and hosts are fixed strings
 * so reports of these databases are reproducible byte for byte.
 */
#include "report_fixture.h"
#include "op_module.h"

#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "dtype.h"
#include "gen.h"
#include "reference.h"

enum { S_RUN, S_DEVICE, S_CASE, S_RESULT, S_SIGNATURE, S_COUNT };
static const char *const fixture_sql[S_COUNT] = {
    [S_RUN] = "INSERT INTO runs (id, started_at, finished_at, elapsed_s, seed, options,"
              " command_line, git_revision, dmlcheck_version, host, backend, device_id,"
              " nan_policy, strict, cases_requested, cases_done, failures, status, gen_version,"
              " gen_options)"
              " VALUES (?1, '2024-01-01T00:00:00Z', '2024-01-01T00:00:02Z', 2.0, ?2,"
              " '{\"cases\":300,\"max_elements\":4096}', ?3, 'v0-fixture', '0.1.0',"
              " 'fixture-host Linux', ?4, ?5, 'ignore', 0, 300, ?6, ?7, 'finished', ?8, ?9)",
    [S_DEVICE] = "INSERT INTO devices (id, backend, platform, device, driver, c_version,"
                 " fp_config, flushes_denormals) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0)",
    [S_CASE] = "INSERT INTO cases (run_id, case_index, op, feature_level, input_type,"
               " output_type, indices_type, rank, elements, input_sizes, input_strides,"
               " output_sizes, params, axis_kind, layout, distribution, classes)"
               " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    [S_RESULT] = "INSERT INTO results (case_id, verdict, kind, mismatch_count, first_mismatch,"
                 " detail, time_us) VALUES (last_insert_rowid(), ?1, ?2, ?3, ?4, ?5, 10.0)",
    [S_SIGNATURE] = "INSERT INTO signatures (backend, device_id, op, feature_level, input_type,"
                    " output_type, indices_type, layout, distribution, kind, verdict, count,"
                    " first_seen_run, first_seen_at, last_seen_run, last_seen_at,"
                    " representative, rep_elements, first_mismatch, replay) VALUES (?1, ?2, ?3,"
                    " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, '2024-01-01T00:00:01Z', ?13,"
                    " '2024-01-01T00:00:01Z', ?14, ?15, ?16, ?17)",
};

typedef struct fixture_db {
    sqlite3 *db;
    sqlite3_stmt *stmt[S_COUNT];
} fixture_db;

/* One signature being gathered: its key text, count and smallest case. */
typedef struct pending_signature {
    char key[256];
    report_cell_key cell;
    char layout[32], distribution[32], kind[32], verdict[16];
    uint64_t count, rep_index, rep_elements;
    char *first_mismatch;
} pending_signature;

typedef struct injection {
    const char *verdict, *kind;
    const char *tensor;
    uint64_t expected, got;
} injection;

static bool sql_ok(fixture_db *f, int rc, dmlc_error *err)
{
    return rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW
           || err_set(err, "sqlite: %s", sqlite3_errmsg(f->db));
}

static bool step(fixture_db *f, sqlite3_stmt *s, dmlc_error *err)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return sql_ok(f, rc, err);
}

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
    if (t)
        sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

static char *json_uints(const UINT *v, unsigned n)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    char *text = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return text;
}

static json_t *json_uint_array(const UINT *v, unsigned n)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static char *case_params(const dml_case *c)
{
    json_t *o = json_object();
    if (op_table[c->op].module == &op_module_arg_reduce) {
        json_object_set_new(o, "axes", json_uint_array(c->axes, c->axis_count));
        json_object_set_new(o, "direction", json_string(c->direction == DML_AXIS_DIRECTION_DECREASING
                                                            ? "DECREASING" : "INCREASING"));
    } else {
        json_object_set_new(o, "window", json_uint_array(c->window, c->spatial_count));
        json_object_set_new(o, "strides", json_uint_array(c->pool_strides, c->spatial_count));
        json_object_set_new(o, "dilations", json_uint_array(c->dilations, c->spatial_count));
        json_object_set_new(o, "start_padding", json_uint_array(c->start_padding, c->spatial_count));
        json_object_set_new(o, "end_padding", json_uint_array(c->end_padding, c->spatial_count));
        json_object_set_new(o, "indices", json_boolean(c->indices.present));
    }
    char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return text;
}

/* 'one' | 'several' | 'several_shuffled' | 'all' | 'all_shuffled', as schema.sql says. */
static const char *axis_kind(const dml_case *c)
{
    if (!(op_table[c->op].module == &op_module_arg_reduce))
        return NULL;
    bool ascending = true;
    for (unsigned i = 1; i < c->axis_count; i++)
        ascending = ascending && c->axes[i] > c->axes[i - 1];
    if (c->axis_count == 1)
        return "one";
    if (c->axis_count == c->input.rank)
        return ascending ? "all" : "all_shuffled";
    return ascending ? "several" : "several_shuffled";
}

static char *mismatch_json(const injection *in)
{
    char e[24], g[24];
    snprintf(e, sizeof e, "0x%" PRIx64, in->expected);
    snprintf(g, sizeof g, "0x%" PRIx64, in->got);
    json_t *o = json_pack("{s:s, s:i, s:[i], s:s, s:s}", "tensor", in->tensor, "element", 0,
                          "coords", 0, "expected", e, "got", g);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* The rules of run 2 of "two": what the faulty backend gets wrong. */
static injection inject(const dml_case *c, const gen_info *info, unsigned classes, uint64_t index)
{
    if (index == 5)
        return (injection){ "skip", NULL, NULL, 0, 0 };
    if (classes & CASE_CLASS_NAN)
        return (injection){ "unspecified", "nan_handling", "output", 0, 1 };
    if (c->op == OP_ARGMAX && info->dist == GEN_DIST_ties)
        return (injection){ "fail", "tie_other_way", "output", 0, 1 };
    if (c->op == OP_MAX_POOLING2 && c->input.type == DML_TENSOR_DATA_TYPE_FLOAT16)
        return (injection){ "fail", "value_bits_differ", "output", 0x3c00, 0x3c01 };
    return (injection){ "pass", NULL, NULL, 0, 0 };
}

static void tally_add(fixture_tally *t, const report_cell_key *k, const char *verdict)
{
    size_t i = 0;
    while (i < t->count && memcmp(&t->keys[i], k, sizeof *k))
        i++;
    if (i == t->count) {
        if (t->count == sizeof t->keys / sizeof t->keys[0])
            return;
        memset(&t->n[i], 0, sizeof t->n[i]);
        t->keys[t->count++] = *k;
    }
    report_counts *n = &t->n[i];
    n->run++;
    if (!strcmp(verdict, "pass"))
        n->passed++;
    else if (!strcmp(verdict, "fail"))
        n->failed++;
    else if (!strcmp(verdict, "unspecified"))
        n->differs++;
    else if (!strcmp(verdict, "skip"))
        n->skipped++;
}

static const char *type_or_null(const case_tensor *t)
{
    return t->present ? dtype_name(t->type) : NULL;
}

static bool insert_case(fixture_db *f, int64_t run, uint64_t index, const dml_case *c,
                        const gen_info *info, unsigned classes, const injection *in,
                        dmlc_error *err)
{
    char cls[64];
    case_classes_str(classes, cls, sizeof cls);
    char *in_sizes = json_uints(c->input.sizes, c->input.rank);
    char *in_strides = c->input.has_strides ? json_uints(c->input.strides, c->input.rank) : NULL;
    char *out_sizes = json_uints(c->output.sizes, c->output.rank);
    char *params = case_params(c);
    sqlite3_stmt *s = f->stmt[S_CASE];
    sqlite3_bind_int64(s, 1, run);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)index);
    bind_text(s, 3, op_table[c->op].name);
    bind_text(s, 4, fl_name(c->feature_level));
    bind_text(s, 5, dtype_name(c->input.type));
    bind_text(s, 6, dtype_name(c->output.type));
    bind_text(s, 7, type_or_null(&c->indices));
    sqlite3_bind_int(s, 8, (int)c->input.rank);
    sqlite3_bind_int64(s, 9, (sqlite3_int64)case_tensor_elements(&c->input));
    bind_text(s, 10, in_sizes);
    bind_text(s, 11, in_strides);
    bind_text(s, 12, out_sizes);
    bind_text(s, 13, params);
    bind_text(s, 14, axis_kind(c));
    bind_text(s, 15, gen_layout_name(info->layout));
    bind_text(s, 16, gen_distribution_name(info->dist));
    bind_text(s, 17, cls);
    bool ok = step(f, s, err);
    free(in_sizes);
    free(in_strides);
    free(out_sizes);
    free(params);
    if (!ok)
        return false;
    char *mm = in->tensor ? mismatch_json(in) : NULL;
    s = f->stmt[S_RESULT];
    bind_text(s, 1, in->verdict);
    bind_text(s, 2, in->kind);
    sqlite3_bind_int(s, 3, in->kind ? 1 : 0);
    bind_text(s, 4, mm);
    bind_text(s, 5, !strcmp(in->verdict, "skip") ? "fixture: skipped on purpose" : NULL);
    ok = step(f, s, err);
    free(mm);
    return ok;
}

static bool note_signature(pending_signature *sigs, size_t *count, const dml_case *c,
                           const gen_info *info, uint64_t index, const injection *in)
{
    char key[256];
    snprintf(key, sizeof key, "%s|%s|%s|%s|%s|%s|%s|%s|%s", fl_name(c->feature_level),
             op_table[c->op].name, dtype_name(c->input.type), dtype_name(c->output.type),
             c->indices.present ? dtype_name(c->indices.type) : "",
             gen_layout_name(info->layout), gen_distribution_name(info->dist), in->kind,
             in->verdict);
    uint64_t elements = case_tensor_elements(&c->input);
    for (size_t i = 0; i < *count; i++)
        if (!strcmp(sigs[i].key, key)) {
            sigs[i].count++;
            if (elements < sigs[i].rep_elements) {
                sigs[i].rep_elements = elements;
                sigs[i].rep_index = index;
            }
            return true;
        }
    if (*count == 256)
        return false;
    pending_signature *p = &sigs[(*count)++];
    memset(p, 0, sizeof *p);
    snprintf(p->key, sizeof p->key, "%s", key);
    p->cell = (report_cell_key){ c->feature_level, c->op, c->input.type, c->output.type,
                                 c->indices.present ? c->indices.type : DML_TENSOR_DATA_TYPE_UNKNOWN };
    snprintf(p->layout, sizeof p->layout, "%s", gen_layout_name(info->layout));
    snprintf(p->distribution, sizeof p->distribution, "%s", gen_distribution_name(info->dist));
    snprintf(p->kind, sizeof p->kind, "%s", in->kind);
    snprintf(p->verdict, sizeof p->verdict, "%s", in->verdict);
    p->count = 1;
    p->rep_index = index;
    p->rep_elements = elements;
    p->first_mismatch = mismatch_json(in);
    return true;
}

static bool insert_signatures(fixture_db *f, pending_signature *sigs, size_t count,
                              const char *backend, int64_t device, int64_t run, dmlc_error *err)
{
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        pending_signature *p = &sigs[i];
        char rep[64], replay[160];
        snprintf(rep, sizeof rep, "g%d:%d:%" PRIu64, GEN_VERSION, FIXTURE_SEED, p->rep_index);
        snprintf(replay, sizeof replay, "dmlcheck replay %s --backend %s --max-elements 4096",
                 rep, backend);
        sqlite3_stmt *s = f->stmt[S_SIGNATURE];
        bind_text(s, 1, backend);
        sqlite3_bind_int64(s, 2, device);
        bind_text(s, 3, op_table[p->cell.op].name);
        bind_text(s, 4, fl_name(p->cell.fl));
        bind_text(s, 5, dtype_name(p->cell.input));
        bind_text(s, 6, dtype_name(p->cell.output));
        bind_text(s, 7, p->cell.indices ? dtype_name(p->cell.indices) : NULL);
        bind_text(s, 8, p->layout);
        bind_text(s, 9, p->distribution);
        bind_text(s, 10, p->kind);
        bind_text(s, 11, p->verdict);
        sqlite3_bind_int64(s, 12, (sqlite3_int64)p->count);
        sqlite3_bind_int64(s, 13, run);
        bind_text(s, 14, rep);
        sqlite3_bind_int64(s, 15, (sqlite3_int64)p->rep_elements);
        bind_text(s, 16, p->first_mismatch);
        bind_text(s, 17, replay);
        ok = step(f, s, err);
    }
    for (size_t i = 0; i < count; i++)
        free(sigs[i].first_mismatch);
    return ok;
}

/* One run over cases SEED:0..FIXTURE_CASES-1; faulty selects the injections. */
static bool insert_run(fixture_db *f, int64_t run, bool faulty, fixture_tally *tally,
                       dmlc_error *err)
{
    const char *backend = faulty ? "faulty" : "reference";
    sqlite3_stmt *s = f->stmt[S_DEVICE];
    sqlite3_bind_int64(s, 1, run);
    bind_text(s, 2, backend);
    bind_text(s, 3, faulty ? "Fixture Platform" : "dmlcheck");
    bind_text(s, 4, faulty ? "faulty test device" : "reference engine");
    bind_text(s, 5, faulty ? "1.2.3" : "0.1.0");
    bind_text(s, 6, faulty ? "OpenCL C 1.2" : "");
    bind_text(s, 7, faulty ? "denorm,inf_nan,round_to_nearest" : "");
    if (!step(f, s, err))
        return false;

    gen_options opt;
    gen_options_default(&opt);
    opt.reject_per_mille = 0; /* cases with answers: the fixture stores the reference's */
    exec_options exec = { NAN_POLICY_IGNORE, false };
    pending_signature *sigs = calloc(256, sizeof *sigs);
    size_t sig_count = 0;
    uint64_t failures = 0;
    bool ok = sigs != NULL || err_set(err, "out of memory");
    for (uint64_t i = 0; ok && i < FIXTURE_CASES; i++) {
        dml_case c;
        gen_info info;
        case_outputs out;
        case_init(&c);
        ok = gen_case(FIXTURE_SEED, i, &opt, &c, &info, err)
             && (case_outputs_alloc(&out, &c) || err_set(err, "out of memory"));
        if (!ok)
            break;
        unsigned classes = ref_classify(&c, &exec, &out, NULL);
        injection in = faulty ? inject(&c, &info, classes, i)
                              : (injection){ "pass", NULL, NULL, 0, 0 };
        ok = insert_case(f, run, i, &c, &info, classes, &in, err);
        if (ok && in.kind)
            ok = note_signature(sigs, &sig_count, &c, &info, i, &in)
                 || err_set(err, "too many signatures");
        failures += !strcmp(in.verdict, "fail");
        report_cell_key k = { c.feature_level, c.op, c.input.type, c.output.type,
                              c.indices.present ? c.indices.type : DML_TENSOR_DATA_TYPE_UNKNOWN };
        if (tally && faulty)
            tally_add(tally, &k, in.verdict);
        case_outputs_free(&out);
        case_free(&c);
    }
    if (tally && faulty)
        tally->signatures = sig_count;
    ok = ok && insert_signatures(f, sigs, sig_count, backend, run, run, err);
    free(sigs);
    if (!ok)
        return false;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "dmlcheck run --backend %s --cases %d --seed %d", backend,
             FIXTURE_CASES, FIXTURE_SEED);
    s = f->stmt[S_RUN];
    sqlite3_bind_int64(s, 1, run);
    bind_text(s, 2, "7");
    bind_text(s, 3, cmd);
    bind_text(s, 4, backend);
    sqlite3_bind_int64(s, 5, run);
    sqlite3_bind_int64(s, 6, FIXTURE_CASES);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)failures);
    sqlite3_bind_int64(s, 8, GEN_VERSION);
    bind_text(s, 9, "feature-level=any max-elements=4096 ops=any types=any");
    return step(f, s, err);
}

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text && fread(text, 1, (size_t)n, fp) == (size_t)n)
        text[n] = 0;
    else {
        free(text);
        text = NULL;
    }
    fclose(fp);
    return text;
}

bool fixture_build(const char *schema_path, const char *path, const char *mode,
                   fixture_tally *tally, dmlc_error *err)
{
    if (tally)
        memset(tally, 0, sizeof *tally);
    unlink(path);
    char *schema = read_file(schema_path);
    if (!schema)
        return err_set(err, "%s: cannot read", schema_path);
    fixture_db f = { 0 };
    bool ok = sqlite3_open(path, &f.db) == SQLITE_OK || err_set(err, "%s: cannot create", path);
    ok = ok && sql_ok(&f, sqlite3_exec(f.db, schema, NULL, NULL, NULL), err);
    free(schema);
    for (int i = 0; ok && i < S_COUNT; i++)
        ok = sql_ok(&f, sqlite3_prepare_v2(f.db, fixture_sql[i], -1, &f.stmt[i], NULL), err);
    ok = ok && sql_ok(&f, sqlite3_exec(f.db, "BEGIN", NULL, NULL, NULL), err);
    ok = ok && insert_run(&f, 1, false, tally, err);
    if (ok && !strcmp(mode, "two"))
        ok = insert_run(&f, 2, true, tally, err);
    ok = ok && sql_ok(&f, sqlite3_exec(f.db, "COMMIT", NULL, NULL, NULL), err);
    if (ok && !strcmp(mode, "newer"))
        ok = sql_ok(&f, sqlite3_exec(f.db, "PRAGMA user_version = 99", NULL, NULL, NULL), err);
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(f.stmt[i]);
    sqlite3_close(f.db);
    return ok;
}
