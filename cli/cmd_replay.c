/*
 * cmd_replay.c: `dmlcheck replay gN:SEED:INDEX`: regenerates one case exactly as `run` did
 * (same generator version and options, checked by runner_check_case_id), runs it on the reference and, in a worker process, on the
 * backend, judges it as `run` does, and prints what a person needs to act on it: the case,
 * both outputs with the first differences, and the inputs that decided each differing
 * element (floats as hex-float and raw bits), for ARGMIN/ARGMAX the values at both indices,
 * for MAX_POOLING2 the window.  The verdict, the first difference and the replay line are
 * the check's own (check.h), judged and worded as `run` and `exec` do.  Exit 0 when the case
 * passes (or differs only in an unjudged class), 1 on a judged mismatch, 2 on usage or setup
 * errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "check.h"
#include "op_module.h"
#include "classify.h"
#include "compare.h"
#include "dtype.h"
#include "error.h"
#include "run_options.h"
#include "runner.h"
#include "session.h"

int cmd_replay(int argc, char **argv);

#define MAX_SHOWN_DIFFERENCES 8
#define MAX_SHOWN_WINDOW 32

static void usage(FILE *f)
{
    fprintf(f,
        "usage: dmlcheck replay gN:SEED:INDEX [--backend NAME] [--device SEL] [--feature-level L]\n"
        "                       [--ops LIST] [--types LIST] [--max-elements N] [--reject-rate R]\n"
        "                       [--nan-policy ignore|propagate] [--strict] [--case-timeout MS]\n"
        "                       [--db FILE]\n\n"
        "Regenerates case gN:SEED:INDEX (give the generator options the run used; every replay\n"
        "command `run` prints has them) and shows the reference and backend outputs, the first\n"
        "differences and the inputs that decided them.\n\n"
        "gN is the generator version that drew the case; this dmlcheck draws versions %d to %d\n"
        "(an id's own version draws its case) and refuses any other (exit 2), which could\n"
        "name a different case here.  A bare SEED:INDEX (printed before ids had a version)\n"
        "is replayed as version %d with a warning.  --db FILE looks up the run that recorded the case and refuses when its\n"
        "generator version or options differ from this command's, naming the option and\n"
        "printing the command with the run's options.\n", GEN_OLDEST_VERSION, GEN_VERSION,
        GEN_VERSION);
}

static void print_uints(const char *name, const UINT *v, unsigned n)
{
    printf(" %s=[", name);
    for (unsigned i = 0; i < n; i++)
        printf("%s%u", i ? "," : "", v[i]);
    printf("]");
}

static void print_tensor(const char *name, const case_tensor *t)
{
    printf("  %s: %s", name, dtype_name(t->type));
    print_uints("sizes", t->sizes, t->rank);
    if (t->has_strides)
        print_uints("strides", t->strides, t->rank);
    printf(" bytes=%llu\n", (unsigned long long)case_tensor_bytes(t));
}

static void print_case(const dml_case *c, const gen_info *info, unsigned classes)
{
    char buf[64];
    printf("case: %s at feature level %s, layout %s, distribution %s, classes %s\n",
           op_table[c->op].name, fl_name(c->feature_level), gen_layout_name(info->layout),
           gen_distribution_name(info->dist), classes ? case_classes_str(classes, buf, sizeof buf) : "none");
    print_tensor("input", &c->input);
    print_tensor("output", &c->output);
    if (c->indices.present)
        print_tensor("indices", &c->indices);
    char params[512];
    case_module(c)->describe(c, params, sizeof params);
    printf("  %s\n", params);
}

static void print_input_element(const char *label, const dml_case *c, const picked_input *p)
{
    char buf[96];
    if (!p->valid) {
        printf("    %s: no such input element\n", label);
        return;
    }
    tensor_view v;
    uint32_t coords[DML_MAX_RANK];
    case_tensor_view(&c->input, &v);
    tensor_view_coords(&v, p->logical, coords);
    printf("    %s: input[", label);
    for (unsigned d = 0; d < v.rank; d++)
        printf("%s%u", d ? "," : "", coords[d]);
    printf("] (flat %" PRIu64 ") = %s\n", p->logical, compare_format_value(c->input.type, p->bits, buf, sizeof buf));
}

static uint64_t bits_at(const uint8_t *buf, const case_tensor *t, uint64_t i)
{
    tensor_view v;
    case_tensor_view(t, &v);
    return dtype_load_bits(buf, t->type, tensor_view_offset(&v, i));
}

/* The inputs that decided output element i. */
static void print_deciding_inputs(const dml_case *c, uint64_t i, uint64_t expected_index, uint64_t got_index)
{
    if (case_module(c)->output_is_index) {
        picked_input e = classify_picked_input(c, i, expected_index);
        picked_input g = classify_picked_input(c, i, got_index);
        print_input_element("at expected index", c, &e);
        print_input_element("at returned index", c, &g);
        return;
    }
    picked_input items[MAX_SHOWN_WINDOW];
    bool padding;
    unsigned n = classify_window(c, i, items, MAX_SHOWN_WINDOW, &padding);
    printf("    window: %u real element(s)%s\n", n, padding ? ", some positions in padding" : "");
    for (unsigned k = 0; k < n && k < MAX_SHOWN_WINDOW; k++)
        print_input_element("", c, &items[k]);
    if (c->indices.present) {
        picked_input g = classify_picked_input(c, i, got_index);
        print_input_element("at returned index", c, &g);
    }
}

/* One tensor's element i on both sides, in the check's words, when it differs. */
static bool print_difference(const dml_case *c, const char *name, const case_tensor *t, const uint8_t *exp,
                             const uint8_t *got, uint64_t i, uint64_t *exp_bits, uint64_t *got_bits)
{
    *exp_bits = bits_at(exp, t, i);
    *got_bits = bits_at(got, t, i);
    if (compare_bits_equal(t->type, *exp_bits, *got_bits))
        return false;
    tensor_view v;
    mismatch m = { .tensor = name, .logical_index = i, .rank = t->rank, .expected_bits = *exp_bits,
                   .got_bits = *got_bits };
    case_tensor_view(t, &v);
    tensor_view_coords(&v, i, m.coords);
    char line[512];
    printf("  %s\n", check_describe_difference(c, &m, line, sizeof line));
    return true;
}

/* The first differing elements, each with the inputs that decided it. */
static void print_differences(const dml_case *c, const case_outputs *exp, const case_outputs *got)
{
    uint64_t n = case_tensor_elements(&c->output);
    unsigned shown = 0;
    printf("differences (at most %d):\n", MAX_SHOWN_DIFFERENCES);
    for (uint64_t i = 0; i < n && shown < MAX_SHOWN_DIFFERENCES; i++) {
        uint64_t eo, go, ei = 0, gi = 0;
        bool differs = print_difference(c, "output", &c->output, exp->output, got->output, i, &eo, &go);
        if (c->indices.present)
            differs |= print_difference(c, "indices", &c->indices, exp->indices, got->indices, i, &ei, &gi);
        if (!differs)
            continue;
        shown++;
        if (case_module(c)->output_is_index)
            print_deciding_inputs(c, i, eo, go);
        else
            print_deciding_inputs(c, i, ei, gi);
    }
}

static void print_outputs(const char *who, const dml_case *c, const case_outputs *o)
{
    char *json = casefile_outputs_json(c, o);
    if (!json)
        return;
    if (strlen(json) <= 2000)
        printf("%s: %s\n", who, json);
    else
        printf("%s: (%zu characters; `dmlcheck export` writes the case file)\n", who, strlen(json));
    free(json);
}

/* The backend, the outputs and the differences of one judged case. */
static void show_judged(const runner_options *o, const dml_case *k,
                       const check_oracle *oracle, const check_answer *a, const check_result *res,
                       const backend_info *binfo)
{
    /* The backend names its platform and device (a process child any way it likes): what
     * it says reaches the terminal as text. */
    char platform[4 * sizeof binfo->platform], device[4 * sizeof binfo->device];
    printf("backend: %s on %s / %s\n", o->backend->name,
           err_printable(binfo->platform, false, platform, sizeof platform),
           err_printable(binfo->device, false, device, sizeof device));
    if (!k->must_reject) /* refused descriptors have no reference answer */
        print_outputs("reference", k, &oracle->expected);
    bool ran = a->died == KIND_NONE && a->status == RUN_OK && !k->must_reject;
    if (ran)
        print_outputs("backend  ", k, &a->outputs);
    if (ran && res->j.verdict != VERDICT_PASS)
        print_differences(k, &oracle->expected, &a->outputs);
}

/* The verdict in the check's words, ending with the replay line (the last line printed). */
static int show_verdict(const runner_options *o, uint64_t case_index, const dml_case *k,
                        const check_result *res)
{
    char replay[RUNNER_REPLAY_LINE_MAX];
    gen_case_id id = { .version = o->gen.version, .seed = o->seed, .index = case_index };
    printf("verdict: ");
    check_print(stdout, "", k, res, runner_replay_line(o, &id, replay, sizeof replay));
    return check_exit_code(res);
}

/* For a person looking at a failure: its root cause, asked of the backend by probing, with
 * every probe's evidence (docs/DIAGNOSIS.md).  Nothing for a pass or a failure that left no
 * answer (a crash, a hang, a refusal). */
static void show_root_cause(session *s, const dml_case *k, const check_result *res,
                            uint64_t case_index, uint64_t seed)
{
    if ((res->j.verdict != VERDICT_FAIL && res->j.verdict != VERDICT_UNSPECIFIED)
        || !mismatch_kind_from_outputs(res->j.kind) || k->must_reject)
        return;
    diagnosis *d = calloc(1, sizeof *d);
    dmlc_error err;
    char *text = malloc(16384);
    if (d && text && session_diagnose(s, k, seed ^ case_index, d, &err))
        printf("root cause: %s", diagnosis_text(d, text, 16384));
    else
        printf("root cause: not probed (%s)\n", d && text ? err.msg : "out of memory");
    if (d)
        diagnosis_free(d);
    free(d);
    free(text);
}

/* Asks the session for the case as `run` did (the worker draws it), judges the answer and
 * shows it.  Returns the exit code. */
static int replay_case(const runner_options *o, uint64_t case_index, const dml_case *k,
                       const check_oracle *oracle, session *s, const backend_info *binfo)
{
    dmlc_error err;
    check_answer a;
    check_result res;
    uint64_t index;
    session_request(s, case_index, 1);
    session_status got = session_receive(s, k, oracle, &a, &res, &index, &err);
    int code = 2;
    if (got == SESSION_JUDGED) {
        show_judged(o, k, oracle, &a, &res, binfo);
        show_root_cause(s, k, &res, case_index, o->seed);
        code = show_verdict(o, case_index, k, &res);
    }
    else if (got == SESSION_STOPPED)
        code = RUNNER_EXIT_INTERRUPTED;
    else
        fprintf(stderr, "dmlcheck replay: %s\n", err.msg);
    worker_answer_free(&a);
    return code;
}

int cmd_replay(int argc, char **argv)
{
    runner_options o;
    runner_options_default(&o);
    o.backend = backend_find("opencl") ? backend_find("opencl") : backend_registry[0];
    uint64_t case_index;
    int parsed = runner_parse_case_command("replay", argc, argv, usage, &o, &case_index);
    if (parsed >= 0)
        return parsed;
    dmlc_error err;
    session_config cfg = runner_session_config(&o);
    backend_info binfo;
    session *s = session_start(&cfg, &binfo, &err);
    if (!s) {
        fprintf(stderr, "dmlcheck replay: %s\n", err.msg);
        return 2;
    }
    dml_case k;
    gen_info info;
    check_oracle oracle = { 0 };
    int code = 2;
    oracle_outcome prepared = ORACLE_FAILED;
    if (session_generate(s, case_index, &k, &info, &err))
        prepared = session_oracle(s, &k, &oracle, &err);
    if (prepared == ORACLE_READY) {
        print_case(&k, &info, oracle.classes);
        code = replay_case(&o, case_index, &k, &oracle, s, &binfo);
    } else if (prepared == ORACLE_STOPPED) {
        code = RUNNER_EXIT_INTERRUPTED;
    } else {
        fprintf(stderr, "dmlcheck replay: %s\n", err.msg);
    }
    session_stop(s);
    check_oracle_free(&oracle);
    case_free(&k);
    return code;
}
