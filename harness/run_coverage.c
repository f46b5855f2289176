/*
 * run_coverage.c: `dmlcheck run --dry-run`: draws the run's cases without a backend or a
 * database and prints how they cover each generator dimension.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "op_module.h"
#include "reference.h"
#include "run_internal.h"
#include "worker.h"

/* Counters of one generator dimension, printed as "name: value=count ...". */
typedef struct tally {
    const char *name;
    const char *values[32];
    uint64_t counts[32];
    unsigned n;
} tally;

static void tally_add(tally *t, const char *value)
{
    for (unsigned i = 0; i < t->n; i++)
        if (!strcmp(t->values[i], value)) {
            t->counts[i]++;
            return;
        }
    if (t->n < 32) {
        t->values[t->n] = value;
        t->counts[t->n++] = 1;
    }
}

static void tally_print(FILE *f, const tally *t)
{
    fprintf(f, "%-14s", t->name);
    for (unsigned i = 0; i < t->n; i++)
        fprintf(f, " %s=%" PRIu64, t->values[i], t->counts[i]);
    fputc('\n', f);
}

enum { T_OP_FL, T_INPUT, T_OUTPUT, T_INDICES, T_RANK, T_LAYOUT, T_DIST, T_CLASSES, T_FIXED,
       T_COUNT = T_FIXED + 16 /* room for the modules' parameter dimensions */ };

/* The module's coverage pairs of a case (the same dimensions the report shows), each into
 * the tally of its dimension, added on first sight. */
static void tally_parameters(tally *t, unsigned *used, const dml_case *c)
{
    const char *dims[OP_COVERAGE_MAX], *values[OP_COVERAGE_MAX];
    unsigned n = case_module(c)->coverage(c, dims, values, OP_COVERAGE_MAX);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = T_FIXED;
        while (k < *used && strcmp(t[k].name, dims[i]))
            k++;
        if (k == *used && *used < T_COUNT)
            t[(*used)++].name = dims[i];
        if (k < T_COUNT)
            tally_add(&t[k], values[i]);
    }
}

int runner_dry_run(const runner_options *o, dmlc_error *err)
{
    static const char *const names[T_FIXED] = { "op@level", "input_type", "output_type",
        "indices_type", "rank", "layout", "distribution", "classes" };
    static const char *const ranks[] = { "0", "1", "2", "3", "4", "5", "6", "7", "8" };
    char labels[OP_COUNT][8][32];
    tally t[T_COUNT];
    memset(t, 0, sizeof t);
    for (int i = 0; i < T_FIXED; i++)
        t[i].name = names[i];
    unsigned used = T_FIXED;
    session_config scfg = runner_session_config(o);
    const worker_config *cfg = &scfg.worker;
    const exec_options *exec = &scfg.check.exec;
    uint64_t n = o->cases ? o->cases : 10000, invalid = 0, drawn = 0;
    for (uint64_t i = o->shard_index; i < n && !(o->stop && *o->stop); i += runner_index_step(o), drawn++) {
        dml_case c;
        gen_info info;
        if (!worker_generate(cfg, i, &c, &info, err)) {
            char name[GEN_CASE_ID_SIZE];
            fprintf(stderr, "dmlcheck: case %s: %s\n", runner_case_name(o->seed, i, name), err->msg);
            invalid++;
            case_free(&c);
            continue;
        }
        char *label = labels[c.op][runner_fl_slot(c.feature_level)];
        snprintf(label, 32, "%s@%s", op_table[c.op].stem, fl_name(c.feature_level));
        tally_add(&t[T_OP_FL], label);
        tally_add(&t[T_INPUT], dtype_name(c.input.type));
        tally_add(&t[T_OUTPUT], dtype_name(c.output.type));
        tally_add(&t[T_INDICES], c.indices.present ? dtype_name(c.indices.type) : "none");
        tally_add(&t[T_RANK], ranks[c.input.rank <= 8 ? c.input.rank : 0]);
        tally_add(&t[T_LAYOUT], gen_layout_name(info.layout));
        tally_add(&t[T_DIST], gen_distribution_name(info.dist));
        tally_parameters(t, &used, &c);
        case_outputs out;
        if (!c.must_reject && case_outputs_alloc(&out, &c)) { /* refused cases have no classes */
            unsigned classes = ref_classify(&c, exec, &out, NULL);
            tally_add(&t[T_CLASSES], classes & CASE_CLASS_NAN ? "nan" : "no_nan");
            tally_add(&t[T_CLASSES], classes & CASE_CLASS_DENORMAL ? "denormal" : "no_denormal");
            tally_add(&t[T_CLASSES], classes & CASE_CLASS_PADDING_WINDOW ? "padding_window"
                                                                          : "no_padding_window");
            case_outputs_free(&out);
        }
        case_free(&c);
    }
    fprintf(o->out, "dry run: %" PRIu64 " cases of seed %" PRIu64 ", %" PRIu64 " invalid\n", drawn,
            o->seed, invalid);
    for (unsigned i = 0; i < used; i++)
        tally_print(o->out, &t[i]);
    err->msg[0] = 0;
    return invalid ? 1 : 0;
}

