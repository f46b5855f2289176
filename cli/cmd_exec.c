/*
 * cmd_exec.c: `dmlcheck exec`: runs case files on a backend.  For each file: read it, validate
 * it (at its feature level, or the lowest level where it is valid), run it, print its outputs
 * as one JSON line on stdout, and where the file holds expected outputs compare bit-exactly
 * (NaN by NaN-ness).  Diagnostics go to stderr, each ending with the command that replays it.
 * Exit status: 0 all agree, 1 a mismatch or a misbehaving backend, 2 a usage, file or
 * validation error (the worst over all files).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_exec.h"

#include "casefile.h"
#include "op_module.h"
#include "compare.h"
#include "dtype.h"
#include "reference.h"
#include "replay.h"
#include "validate.h"

enum { EXIT_AGREE = 0, EXIT_MISMATCH = 1, EXIT_SETUP = 2 };


static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck exec [--backend NAME] [--device SEL] [--nan-policy ignore|propagate] FILE...\n\n"
            "Runs each case file on a backend and prints its outputs as one JSON line per file:\n"
            "  {\"output\": [...], \"indices\": [...]}\n"
            "Where a file holds \"expected\", compares bit-exactly (NaN by NaN-ness) and names the\n"
            "first differing element.  A case without \"feature_level\" runs at the lowest level\n"
            "where it is valid.\n\n"
            "options:\n"
            "  --backend NAME       implementation under test (default: reference); one of:");
    for (size_t i = 0; backend_registry[i]; i++)
        fprintf(f, " %s", backend_registry[i]->name);
    fprintf(f, "\n"
            "  --device SEL         device selector passed to the backend\n"
            "  --nan-policy POLICY  ignore (default: NaN never beats a number) or propagate\n"
            "                       (NaN beats everything); see docs/SEMANTICS.md D4\n"
            "  -h, --help           this text\n\n"
            "exit status: 0 every file agrees (or was skipped as unsupported by the backend),\n"
            "1 a mismatch or a backend misbehaved (error, write out of bounds, input modified),\n"
            "2 usage, unreadable or invalid case file (worst over all files)\n");
}

/* "replay: dmlcheck exec --backend NAME [options] FILE" on stderr. */
static void print_replay(const exec_run *r, const char *file)
{
    char line[2048] = "dmlcheck exec --backend";
    replay_append_arg(line, sizeof line, r->vt->name);
    if (r->device) {
        replay_append_arg(line, sizeof line, "--device");
        replay_append_arg(line, sizeof line, r->device);
    }
    if (r->opt.nan != NAN_POLICY_IGNORE) {
        replay_append_arg(line, sizeof line, "--nan-policy");
        replay_append_arg(line, sizeof line, nan_policy_name(r->opt.nan));
    }
    replay_append_arg(line, sizeof line, file);
    fprintf(stderr, "replay: %s\n", line);
}

static void format_coords(const uint32_t *coords, unsigned rank, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (unsigned d = 0; d < rank && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRIu32, d ? "," : "", coords[d]);
}

/* An index element as a number; false when negative (signed index types). */
static bool index_value(DML_TENSOR_DATA_TYPE t, uint64_t bits, uint64_t *index)
{
    int64_t v = dtype_bits_to_i64(t, bits);
    if (dtype_is_signed_int(t) && v < 0)
        return false;
    *index = dtype_is_signed_int(t) ? (uint64_t)v : bits;
    return true;
}

/* For an index that differs, the input value each side points at: equal values there mean a
 * tie-rule bug, different ones a comparison bug. */
static void describe_indexed_inputs(const dml_case *c, const mismatch *m, DML_TENSOR_DATA_TYPE index_type)
{
    tensor_view in;
    case_tensor_view(&c->input, &in);
    const char *side[2] = { "expected", "got" };
    uint64_t bits[2] = { m->expected_bits, m->got_bits }, values[2];
    bool found[2];
    for (int s = 0; s < 2; s++) {
        uint64_t index;
        uint32_t coords[DML_MAX_RANK];
        char where[128], value[96];
        found[s] = index_value(index_type, bits[s], &index)
            && case_module(c)->input_of_index(c, m->coords, index, coords);
        if (!found[s]) {
            fprintf(stderr, "  %s index names no input element\n", side[s]);
            continue;
        }
        values[s] = dtype_load_bits(c->input_data, in.type, tensor_view_offset_coords(&in, coords));
        format_coords(coords, in.rank, where, sizeof where);
        fprintf(stderr, "  %s index %" PRIu64 " -> input[%s] = %s\n", side[s], index, where,
                compare_format_value(in.type, values[s], value, sizeof value));
    }
    if (found[0] && found[1] && compare_bits_equal(in.type, values[0], values[1]))
        fprintf(stderr, "  the two input values are equal: a tie-rule difference (SEMANTICS D3)\n");
}

/* Classes say whether the spec is silent on this case (SEMANTICS D4, D6, D7). */
static void describe_classes(const dml_case *c, const exec_options *opt)
{
    case_outputs scratch;
    if (!case_outputs_alloc(&scratch, c))
        return;
    char names[64];
    unsigned classes = ref_classify(c, opt, &scratch, NULL);
    case_outputs_free(&scratch);
    if (classes)
        fprintf(stderr, "  case classes: %s (DirectML's spec is silent here; see docs/SEMANTICS.md)\n",
                case_classes_str(classes, names, sizeof names));
}

static void describe_mismatch(const exec_run *r, const char *file, const dml_case *c, const mismatch *m)
{
    const case_tensor *t = strcmp(m->tensor, "indices") ? &c->output : &c->indices;
    char where[128], expected[96], got[96];
    format_coords(m->coords, m->rank, where, sizeof where);
    fprintf(stderr, "%s: %s[%s] (logical element %" PRIu64 "): expected %s, got %s; %" PRIu64
            " element%s differ%s\n", file, m->tensor, where, m->logical_index,
            compare_format_value(t->type, m->expected_bits, expected, sizeof expected),
            compare_format_value(t->type, m->got_bits, got, sizeof got), m->count,
            m->count == 1 ? "" : "s", m->count == 1 ? "s" : "");
    if (case_module(c)->output_is_index || t == &c->indices)
        describe_indexed_inputs(c, m, t->type);
    describe_classes(c, &r->opt);
    print_replay(r, file);
}

/* SEMANTICS D6: a device that may flush fp32 denormals passes a `denormal` case when it
 * matches the answer computed on flushed inputs. */
static bool matches_flushed_answer(const exec_run *r, const dml_case *c, const case_outputs *got)
{
    if (!r->flushes_denormals)
        return false;
    case_outputs exact, flushed;
    if (!case_outputs_alloc(&exact, c))
        return false;
    unsigned classes = ref_classify(c, &r->opt, &exact, &flushed);
    bool ok = (classes & CASE_CLASS_DENORMAL) && compare_outputs(c, &flushed, got, NULL);
    case_outputs_free(&exact);
    case_outputs_free(&flushed);
    return ok;
}

/* Reports a run status other than RUN_OK; returns the exit code it deserves. */
static int report_status(const exec_run *r, const char *file, run_status status, const dmlc_error *err)
{
    if (status == RUN_UNSUPPORTED) {
        fprintf(stderr, "%s: skipped: backend %s cannot run this case: %s\n", file, r->vt->name, err->msg);
        return EXIT_AGREE;
    }
    fprintf(stderr, "%s: backend %s: %s%s%s\n", file, r->vt->name, run_status_name(status),
            err->msg[0] ? ": " : "", err->msg);
    print_replay(r, file);
    return EXIT_MISMATCH;
}

static int run_case(const exec_run *r, const char *file, dml_case *c)
{
    case_outputs out;
    dmlc_error err = { "" };
    if (!case_outputs_alloc(&out, c)) {
        fprintf(stderr, "%s: out of memory for the outputs\n", file);
        return EXIT_SETUP;
    }
    run_status status = r->vt->run(r->b, c, &r->opt, &out, &err);
    int rc = EXIT_AGREE;
    if (status != RUN_BACKEND_ERROR && status != RUN_UNSUPPORTED) {
        char *line = casefile_outputs_json(c, &out);
        FILE *out = r->out ? r->out : stdout;
        fprintf(out, "%s\n", line ? line : "{}");
        fflush(out);
        free(line);
    }
    if (status != RUN_OK) {
        rc = report_status(r, file, status, &err);
    } else if (c->has_expected_output || c->has_expected_indices) {
        mismatch m;
        if (!compare_with_expected(c, &out, &m)) {
            if (matches_flushed_answer(r, c, &out)) {
                fprintf(stderr, "%s: matches the answer with fp32 denormals flushed (class denormal; "
                        "the device may flush, SEMANTICS D6)\n", file);
            } else {
                describe_mismatch(r, file, c, &m);
                rc = EXIT_MISMATCH;
            }
        }
    }
    case_outputs_free(&out);
    return rc;
}

int exec_case_file(const exec_run *r, const char *file)
{
    dml_case c;
    dmlc_error err;
    case_init(&c);
    if (!casefile_load(file, &c, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        print_replay(r, file);
        return EXIT_SETUP;
    }
    int rc;
    if (!validate_case(&c, &err)) {
        /* Without a level the validator's message already says "invalid at every level". */
        if (c.feature_level)
            fprintf(stderr, "%s: invalid at %s: %s\n", file, fl_name(c.feature_level), err.msg);
        else
            fprintf(stderr, "%s: %s\n", file, err.msg);
        print_replay(r, file);
        rc = EXIT_SETUP;
    } else {
        rc = run_case(r, file, &c);
    }
    case_free(&c);
    return rc;
}

int cmd_exec(int argc, char **argv)
{
    static const struct option options[] = {
        { "backend", required_argument, NULL, 'b' },
        { "device", required_argument, NULL, 'd' },
        { "nan-policy", required_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    exec_run r = { .vt = backend_registry[0] };
    int ch;
    while ((ch = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (ch == 'h') {
            usage(stdout);
            return EXIT_AGREE;
        } else if (ch == 'b' && !(r.vt = backend_find(optarg))) {
            fprintf(stderr, "dmlcheck exec: unknown backend '%s'\n", optarg);
            return EXIT_SETUP;
        } else if (ch == 'd') {
            r.device = optarg;
        } else if (ch == 'n' && !nan_policy_from_name(optarg, &r.opt.nan)) {
            fprintf(stderr, "dmlcheck exec: --nan-policy must be ignore or propagate, not '%s'\n", optarg);
            return EXIT_SETUP;
        } else if (ch == '?') {
            usage(stderr);
            return EXIT_SETUP;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return EXIT_SETUP;
    }
    dmlc_error err = { "" };
    if (!(r.b = r.vt->open(r.device, &err))) {
        fprintf(stderr, "dmlcheck exec: cannot open backend %s: %s\n", r.vt->name, err.msg);
        return EXIT_SETUP;
    }
    backend_info info;
    r.vt->info(r.b, &info);
    r.flushes_denormals = info.flushes_denormals;
    int worst = EXIT_AGREE;
    for (int i = optind; i < argc; i++) {
        int rc = exec_case_file(&r, argv[i]);
        if (rc > worst)
            worst = rc;
    }
    r.vt->close(r.b);
    return worst;
}
