/*
 * make_seeds.c: writes seed inputs for every fuzz target from generated cases (harness/gen.h).
 *
 *   make_seeds OUTDIR [SEED [OPERATOR]]
 *
 * For every operator x input type the generator allows, it draws cases until each value
 * distribution, layout kind and rank it can reach has appeared (or an attempt limit), and
 * writes each case that brings something new as:
 *   OUTDIR/fuzz_case_json/    the case file, with the reference's answer as "expected";
 *   OUTDIR/fuzz_validate/     the raw-descriptor bytes (fuzz_raw_desc.c) + input bytes;
 *   OUTDIR/fuzz_reference/    the builder bytes (fuzz_case_builder.c), both NaN policies;
 *   OUTDIR/fuzz_differential/ the same bytes as fuzz_reference.
 * Each binary seed is decoded again and compared with the case it encodes; the tool reports
 * how many rebuilt exactly (a repair or the builder's budget may change a few) and fails if
 * a seed decodes into an invalid case.  fuzz/run-fuzzers.sh --reseed merges the output into
 * corpus/fuzz/ with libFuzzer's -merge=1, which keeps only inputs that add coverage and
 * names them by content hash.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "casefile.h"
#include "dtype.h"
#include "fuzz_case_builder.h"
#include "fuzz_raw_desc.h"
#include "gen.h"
#include "reference.h"
#include "validate.h"

/* Small cases make small seeds; the fuzzer grows them where coverage pays. */
#define SEED_MAX_ELEMENTS 96
#define ATTEMPTS_PER_COMBINATION 400

typedef struct seed_stats {
    unsigned written, exact, inexact;
} seed_stats;

static bool write_file(const char *dir, const char *target, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f))
        ok = false;
    if (!ok)
        fprintf(stderr, "make_seeds: cannot write %s: %s\n", path, strerror(errno));
    return ok;
}

/* Same descriptor and same logical input values. */
static bool cases_match(const dml_case *a, const dml_case *b)
{
    char *x = casefile_write(a, NULL), *y = casefile_write(b, NULL);
    bool same = x && y && !strcmp(x, y);
    free(x);
    free(y);
    return same;
}

/* The builder bytes of c; checks that they rebuild a valid case, ideally c itself. */
static bool builder_seed(const dml_case *c, const exec_options *opt, uint8_t **data, size_t *size,
                         seed_stats *stats)
{
    dml_case copy, rebuilt;
    exec_options o = *opt, ro;
    fuzz_sink sink;
    fuzz_io out = { NULL, &sink };
    fuzz_sink_init(&sink);
    case_init(&rebuilt);
    if (!case_copy(&copy, c))
        return false;
    bool ok = fuzz_build_case(&out, &copy, &o) && (*data = fuzz_sink_finish(&sink, size));
    fuzz_sink_free(&sink);
    if (ok) {
        fuzz_input in;
        fuzz_io io = { &in, NULL };
        dmlc_error err;
        fuzz_input_init(&in, *data, *size);
        ok = fuzz_build_case(&io, &rebuilt, &ro);
        if (ok && !validate_case(&rebuilt, &err)) {
            fprintf(stderr, "make_seeds: a builder seed decodes into an invalid case: %s\n", err.msg);
            ok = false;
        }
        if (ok && cases_match(c, &rebuilt) && ro.nan == opt->nan)
            stats->exact++;
        else if (ok)
            stats->inexact++;
    }
    case_free(&copy);
    case_free(&rebuilt);
    return ok;
}

/* The raw-descriptor bytes of c followed by its input bytes. */
static bool validate_seed(const dml_case *c, const exec_options *opt, uint8_t **data, size_t *size)
{
    raw_desc r;
    fuzz_sink sink;
    fuzz_io out = { NULL, &sink };
    fuzz_raw_desc_init(&r);
    fuzz_sink_init(&sink);
    bool ok = fuzz_raw_desc_from_case(&r, c, opt) && fuzz_raw_desc_draw(&out, &r);
    for (UINT64 i = 0; ok && i < case_tensor_bytes(&c->input); i++)
        fuzz_sink_head_bits(&sink, c->input_data[i], 1);
    ok = ok && (*data = fuzz_sink_finish(&sink, size));
    fuzz_sink_free(&sink);
    fuzz_raw_desc_free(&r);
    return ok;
}

static bool emit_case(const char *dir, const dml_case *c, const char *stem, seed_stats *stats)
{
    case_outputs out;
    exec_options opt = { NAN_POLICY_IGNORE, false };
    if (!case_outputs_alloc(&out, c))
        return false;
    ref_run(c, &opt, &out);
    char *json = casefile_write(c, &out);
    case_outputs_free(&out);
    char name[256];
    snprintf(name, sizeof name, "%s.json", stem);
    bool ok = json && write_file(dir, "fuzz_case_json", name, json, strlen(json));
    free(json);
    for (int policy = 0; ok && policy < 2; policy++) {
        uint8_t *data = NULL;
        size_t size = 0;
        opt.nan = policy ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE;
        snprintf(name, sizeof name, "%s-%s", stem, nan_policy_name(opt.nan));
        ok = builder_seed(c, &opt, &data, &size, stats)
            && write_file(dir, "fuzz_reference", name, data, size)
            && write_file(dir, "fuzz_differential", name, data, size);
        free(data);
        data = NULL;
        ok = ok && validate_seed(c, &opt, &data, &size) && write_file(dir, "fuzz_validate", name, data, size);
        free(data);
    }
    stats->written += ok;
    return ok;
}

static bool make_dirs(const char *dir)
{
    static const char *const targets[] = { "", "/fuzz_case_json", "/fuzz_validate", "/fuzz_reference",
                                           "/fuzz_differential" };
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", dir, targets[i]);
        if (mkdir(path, 0777) && errno != EEXIST) {
            fprintf(stderr, "make_seeds: cannot create %s: %s\n", path, strerror(errno));
            return false;
        }
    }
    return true;
}

/* Draws cases of one operator and input type; writes those that show a new distribution,
 * layout or rank.  Returns false on a write or allocation failure. */
static bool seeds_for(const char *dir, uint64_t seed, op_id op, DML_TENSOR_DATA_TYPE type,
                      seed_stats *stats)
{
    gen_options go;
    gen_options_default(&go);
    go.reject_per_mille = 0; /* seeds are valid cases; the targets break them themselves */
    go.max_elements = SEED_MAX_ELEMENTS;
    go.op_mask = 1u << op;
    go.input_type_mask = 1u << type;
    bool dist_seen[GEN_DIST_COUNT] = { false }, layout_seen[GEN_LAYOUT_COUNT] = { false };
    bool rank_seen[DML_MAX_RANK + 1] = { false };
    for (uint64_t index = 0; index < ATTEMPTS_PER_COMBINATION; index++) {
        dml_case c;
        gen_info info;
        dmlc_error err;
        case_init(&c);
        if (!gen_case(seed, index, &go, &c, &info, &err))
            return true; /* the generator never makes this combination */
        bool is_new = !dist_seen[info.dist] || !layout_seen[info.layout] || !rank_seen[c.input.rank];
        dist_seen[info.dist] = layout_seen[info.layout] = rank_seen[c.input.rank] = true;
        char stem[128];
        snprintf(stem, sizeof stem, "%s-%s-%s-%s-r%u-%" PRIu64, op_table[op].stem, dtype_stem(type),
                 gen_distribution_name(info.dist), gen_layout_name(info.layout), c.input.rank, index);
        bool ok = !is_new || emit_case(dir, &c, stem, stats);
        case_free(&c);
        if (!ok)
            return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: %s OUTDIR [SEED [OPERATOR]]\nwrites seed inputs for each fuzz target "
                "under OUTDIR/<target>/ (see fuzz/run-fuzzers.sh --reseed), for every operator or "
                "only OPERATOR (e.g. MAX_POOLING1, for a new one)\n", argv[0]);
        return argc < 2 ? 2 : 0;
    }
    uint64_t seed = argc >= 3 ? strtoull(argv[2], NULL, 0) : 1;
    op_id only = argc == 4 ? op_from_name(argv[3]) : OP_COUNT;
    if (argc == 4 && only == OP_COUNT) {
        fprintf(stderr, "make_seeds: unknown operator '%s'\n", argv[3]);
        return 2;
    }
    if (!make_dirs(argv[1]))
        return 2;
    seed_stats stats = { 0 };
    for (int op = 0; op < OP_COUNT; op++)
        if (only == OP_COUNT || op == (int)only)
            for (size_t t = 0; t < DTYPE_COUNT; t++)
                if (!seeds_for(argv[1], seed, (op_id)op, dtype_table[t].type, &stats))
                    return 2;
    printf("make_seeds: %u cases written; builder seeds rebuilding their case exactly: %u, "
           "changed by a repair or the budget: %u\n", stats.written, stats.exact, stats.inexact);
    return 0;
}
