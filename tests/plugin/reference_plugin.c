/*
 * reference_plugin.c: dmlcheck's reference engine behind the plug-in ABI, for one measurement:
 * what the plug-in path itself costs.  `--backend plugin:libreference_plugin.so` and
 * `--backend reference` then run the same code on the same cases, so the difference in
 * cases/s is dlopen'd calls, the descriptor round trip (case -> DML_OPERATOR_DESC -> case) and
 * the plug-in backend's guards (issue 10's target: within 10%).  Built for tests only; a
 * plug-in of one's own includes only dmlcheck/plugin.h (examples/plugin/).
 *
 * With the argument delay_ms=N it sleeps N ms before each answer: a slow but right backend,
 * for the tests that stop a run or an exec while a case is in flight (tests/runner/stop_cli.sh).
 * With us_per_element=N it sleeps N microseconds per input element more: slow in proportion to
 * the case, as real backends are (tests/casefile/case_limits.sh: a large case is not a hang).
 * With crash_elements=N it crashes, with hang_elements=N it hangs, on every case of exactly N
 * input elements.  Built a second time with REFERENCE_PLUGIN_BATCHES, it has execute_batch
 * (each entry executed in turn), so the worker hands it batches: tests/plugin/batch_blame.sh
 * checks that such a death is charged to its case, not to the first case of its batch.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dmlcheck/plugin.h"
#include "op_module.h"
#include "reference.h"

typedef struct reference_op {
    dml_case c;
} reference_op;

static dmlcheck_status say(char *message, size_t size, dmlcheck_status s, const char *text)
{
    snprintf(message, size, "%s", text);
    return s;
}

typedef struct reference_context {
    unsigned long delay_ms;        /* slept before each answer */
    unsigned long us_per_element;  /* and this per input element */
    unsigned long crash_elements;  /* crash on a case of this many input elements (0: never) */
    unsigned long hang_elements;   /* hang on one */
} reference_context;

/* Sleeps `us` microseconds, whatever signals arrive. */
static void sleep_us(unsigned long long us)
{
    struct timespec pause = { .tv_sec = (time_t)(us / 1000000),
                              .tv_nsec = (long)(us % 1000000) * 1000L };
    while (nanosleep(&pause, &pause) != 0)
        continue;
}

static dmlcheck_status reference_open(const char *const *args, void **context, char *message,
                                      size_t size)
{
    reference_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return say(message, size, DMLCHECK_ERROR, "out of memory");
    for (size_t i = 0; args && args[i]; i++) {
        char *end = NULL;
        const char *value = strchr(args[i], '=') ? strchr(args[i], '=') + 1 : args[i];
        if (!strncmp(args[i], "delay_ms=", 9))
            ctx->delay_ms = strtoul(value, &end, 10);
        else if (!strncmp(args[i], "us_per_element=", 15))
            ctx->us_per_element = strtoul(value, &end, 10);
        else if (!strncmp(args[i], "crash_elements=", 15))
            ctx->crash_elements = strtoul(value, &end, 10);
        else if (!strncmp(args[i], "hang_elements=", 14))
            ctx->hang_elements = strtoul(value, &end, 10);
        if (!end || *end || end == value) {
            snprintf(message, size, "the reference plug-in takes only delay_ms=N, "
                     "us_per_element=N, crash_elements=N and hang_elements=N (got '%s')", args[i]);
            free(ctx);
            return DMLCHECK_ERROR;
        }
    }
    *context = ctx;
    return DMLCHECK_OK;
}

static dmlcheck_status reference_capabilities(void *context, dmlcheck_capabilities *caps)
{
    static const DML_OPERATOR_TYPE operators[] = {
#define OP(id, stem, module, since, flags) DML_OPERATOR_##id,
#include "ops.def"
    };
    (void)context;
    caps->max_feature_level = fl_tested[FL_TESTED_COUNT - 1];
    caps->operators = operators;
    caps->operator_count = OP_COUNT;
    caps->input_types = 0;
    caps->flags = 0;
    return DMLCHECK_OK;
}

static void reference_info(void *context, dmlcheck_info *info)
{
    (void)context;
    snprintf(info->platform, sizeof info->platform, "dmlcheck reference plug-in");
    snprintf(info->device, sizeof info->device, "reference (host C, single thread)");
    snprintf(info->driver, sizeof info->driver, "%s", DMLCHECK_VERSION);
    snprintf(info->fp_config, sizeof info->fp_config, "denorm,inf_nan,exact");
}

static dmlcheck_status reference_create(void *context, const DML_OPERATOR_DESC *desc,
                                        DML_FEATURE_LEVEL feature_level, void **op_out,
                                        char *message, size_t size)
{
    (void)context;
    op_id id = op_from_dml_type(desc->Type);
    if (id == OP_COUNT)
        return say(message, size, DMLCHECK_UNSUPPORTED, "not an operator dmlcheck knows");
    reference_op *o = calloc(1, sizeof *o);
    if (!o)
        return say(message, size, DMLCHECK_ERROR, "out of memory");
    case_init(&o->c);
    dmlc_error err = { 0 };
    if (!case_from_desc(id, desc->Desc, feature_level, &o->c, &err)) {
        case_free(&o->c);
        free(o);
        return say(message, size, DMLCHECK_INVALID, err.msg);
    }
    *op_out = o;
    return DMLCHECK_OK;
}

static dmlcheck_status reference_execute(void *context, void *op, const dmlcheck_buffers *b,
                                         char *message, size_t size)
{
    reference_op *o = op;
    const reference_context *ctx = context;
    (void)message;
    (void)size;
    uint64_t elements = case_tensor_elements(&o->c.input);
    if (ctx->crash_elements && elements == ctx->crash_elements)
        raise(SIGSEGV);
    while (ctx->hang_elements && elements == ctx->hang_elements)
        pause();
    sleep_us(1000ull * ctx->delay_ms + (unsigned long long)ctx->us_per_element * elements);
    exec_options opt = { .nan = (b->hints & DMLCHECK_HINT_NAN_PROPAGATE) ? NAN_POLICY_PROPAGATE
                                                                          : NAN_POLICY_IGNORE };
    case_outputs out = { .output = b->output, .output_bytes = b->output_size,
                         .indices = b->output_indices, .indices_bytes = b->output_indices_size };
    /* The engine reads input_data only; the case never owns the harness's buffer. */
    o->c.input_data = (uint8_t *)(uintptr_t)b->input;
    ref_run(&o->c, &opt, &out);
    o->c.input_data = NULL;
    return DMLCHECK_OK;
}

#ifdef REFERENCE_PLUGIN_BATCHES
static dmlcheck_status reference_execute_batch(void *context, dmlcheck_batch_entry *const *entries,
                                               uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        entries[i]->status = reference_execute(context, entries[i]->op, entries[i]->buffers,
                                               entries[i]->message, entries[i]->message_size);
    return DMLCHECK_OK;
}
#endif

static void reference_destroy(void *context, void *op)
{
    reference_op *o = op;
    (void)context;
    case_free(&o->c);
    free(o);
}

static void reference_close(void *context)
{
    free(context);
}

static const dmlcheck_plugin reference_plugin = {
    .abi_version = DMLCHECK_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(dmlcheck_plugin),
    .name = "reference",
    .version = DMLCHECK_VERSION,
    .open = reference_open,
    .capabilities = reference_capabilities,
    .info = reference_info,
    .create = reference_create,
    .execute = reference_execute,
    .destroy = reference_destroy,
    .close = reference_close,
#ifdef REFERENCE_PLUGIN_BATCHES
    .execute_batch = reference_execute_batch,
#endif
};

DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t harness_abi_version)
{
    return harness_abi_version == DMLCHECK_PLUGIN_ABI_VERSION ? &reference_plugin : NULL;
}
