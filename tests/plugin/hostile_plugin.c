/*
 * hostile_plugin.c: the reference plug-in (reference_plugin.c: right answers) made to misbehave
 * on request, for the regression tests of issue 23 (tests/plugin/hostile.sh).  Its arguments,
 * besides the reference plug-in's own:
 *   write_past=N    after a right answer, writes N (1 to 64) bytes past the output's end
 *   write_before=N  ... or N bytes before its start
 *   batch=crash     execute_batch crashes (SIGKILL) on a batch of more than one case; a batch of one
 *                   (the worker's one-by-one re-run) runs right: a death that does not recur
 *   batch=hang      ... or hangs
 *   unterminated=open|info|create|execute
 *                   that call fills its message buffer (info: every field) to the last byte
 *                   with no NUL; open, create and execute then fail
 *   hang=open|close that call never returns
 *   closefds=execute|close
 *                   that call closes every descriptor above stderr, then never returns
 *   scribble=1      execute writes bytes that are no answer to every descriptor above stderr
 *                   (the worker's pipe among them), then answers right
 *   fork=linger     execute forks a child that sleeps for an hour, holding whatever the
 *                   worker holds; fork=setsid: ... in a session of its own (out of the
 *                   worker's process group); fork=return: the child returns from execute too,
 *                   a second worker; fork=crash: fork=setsid, then the worker crashes
 *   marker=PATH     close creates PATH first (a test knows when the close began)
 * Built twice: with HOSTILE_PLUGIN_BATCHES it has execute_batch, so the worker batches it.
 *
 * The reference plug-in is compiled into this file, its entry renamed, so the hostile layer
 * wraps exactly the healthy plug-in the other tests use rather than a copy of it.
 */
#define dmlcheck_plugin_entry reference_plugin_entry
#include "reference_plugin.c"
#undef dmlcheck_plugin_entry

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#define HOSTILE_MAX_ARGS 64
/* The harness's guard bands are 64 bytes: writing further would corrupt the heap itself. */
#define HOSTILE_MAX_STRAY_BYTES 64

typedef struct hostile_context {
    const dmlcheck_plugin *healthy;
    void *inner;                 /* the reference plug-in's context */
    unsigned long write_past, write_before;
    bool batch_crash, batch_hang;
    char unterminated[16];       /* the call whose message has no NUL, or "" */
    char hang[16], closefds[16]; /* the call that never returns (closing descriptors first) */
    char fork_mode[16];          /* linger, setsid, return, crash or "" */
    bool scribble, forked;
    char marker[512];
} hostile_context;

/* Sleeps for good (a hang the harness must end). */
static void hang_forever(void)
{
    for (;;)
        pause();
}

/* Closes every descriptor above stderr, the worker's pipes among them. */
static void close_descriptors(void)
{
    for (int fd = 3; fd < 4096; fd++)
        close(fd);
}

/* Writes what is no answer to every descriptor above stderr that takes it. */
static void scribble_descriptors(void)
{
    static const char junk[] = "hostile plug-in bytes, not an answer\n";
    for (int fd = 3; fd < 4096; fd++)
        if (fcntl(fd, F_GETFD) >= 0 && write(fd, junk, sizeof junk - 1) < 0)
            continue;
}

/* fork=...: a child that outlives its case, or returns into the worker (fork_mode=return). */
static void fork_child(hostile_context *ctx, const char *mode)
{
    if (!strcmp(mode, "return") && ctx->forked)
        return; /* once: a copy that returns forks again on its next case, a fork bomb */
    ctx->forked = true;
    pid_t pid = fork();
    if (pid != 0 || !strcmp(mode, "return"))
        return;
    if (strcmp(mode, "linger"))
        setsid();
    sleep(3600);
    _exit(0);
}

/* Fills a message buffer to its last byte, leaving no NUL. */
static void fill_unterminated(char *buffer, size_t size)
{
    memset(buffer, 'x', size);
}

/* A count of stray bytes, 1 to HOSTILE_MAX_STRAY_BYTES, into *n; false when it is not one. */
static bool stray_bytes(const char *value, unsigned long *n)
{
    char *end = NULL;
    *n = strtoul(value, &end, 10);
    return end != value && !*end && *n >= 1 && *n <= HOSTILE_MAX_STRAY_BYTES;
}

/* One hostile argument into ctx: true when `arg` was one (a bad value sets *bad). */
static bool hostile_arg(hostile_context *ctx, const char *arg, bool *bad)
{
    const char *value = strchr(arg, '=') ? strchr(arg, '=') + 1 : "";
    if (!strncmp(arg, "write_past=", 11)) {
        *bad = !stray_bytes(value, &ctx->write_past);
    } else if (!strncmp(arg, "write_before=", 13)) {
        *bad = !stray_bytes(value, &ctx->write_before);
    } else if (!strncmp(arg, "batch=", 6)) {
        ctx->batch_crash = !strcmp(value, "crash");
        ctx->batch_hang = !strcmp(value, "hang");
        *bad = !ctx->batch_crash && !ctx->batch_hang;
    } else if (!strncmp(arg, "hang=", 5) || !strncmp(arg, "closefds=", 9)) {
        char *field = arg[0] == 'h' ? ctx->hang : ctx->closefds;
        snprintf(field, sizeof ctx->hang, "%s", value);
        *bad = strcmp(value, arg[0] == 'h' ? "open" : "execute") && strcmp(value, "close");
    } else if (!strncmp(arg, "fork=", 5)) {
        snprintf(ctx->fork_mode, sizeof ctx->fork_mode, "%s", value);
        *bad = strcmp(value, "linger") && strcmp(value, "setsid") && strcmp(value, "return")
            && strcmp(value, "crash");
    } else if (!strcmp(arg, "scribble=1")) {
        ctx->scribble = true;
    } else if (!strncmp(arg, "marker=", 7)) {
        snprintf(ctx->marker, sizeof ctx->marker, "%s", value);
    } else if (!strncmp(arg, "unterminated=", 13)) {
        snprintf(ctx->unterminated, sizeof ctx->unterminated, "%s", value);
        *bad = strcmp(value, "open") && strcmp(value, "info") && strcmp(value, "create")
            && strcmp(value, "execute");
    } else {
        return false;
    }
    return true;
}

static dmlcheck_status hostile_open(const char *const *args, void **context, char *message,
                                    size_t size)
{
    hostile_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return say(message, size, DMLCHECK_ERROR, "out of memory");
    ctx->healthy = reference_plugin_entry(DMLCHECK_PLUGIN_ABI_VERSION);
    const char *rest[HOSTILE_MAX_ARGS + 1];
    size_t n = 0;
    bool bad = false;
    for (size_t i = 0; args && args[i] && !bad; i++)
        if (!hostile_arg(ctx, args[i], &bad) && n < HOSTILE_MAX_ARGS)
            rest[n++] = args[i];
    rest[n] = NULL;
    if (!bad && !strcmp(ctx->hang, "open"))
        hang_forever();
    dmlcheck_status s = bad ? say(message, size, DMLCHECK_ERROR, "bad hostile argument (see "
                                  "tests/plugin/hostile_plugin.c)")
        : !strcmp(ctx->unterminated, "open") ? (fill_unterminated(message, size), DMLCHECK_ERROR)
        : ctx->healthy->open(rest, &ctx->inner, message, size);
    if (s != DMLCHECK_OK) {
        free(ctx);
        return s;
    }
    *context = ctx;
    return DMLCHECK_OK;
}

static dmlcheck_status hostile_capabilities(void *context, dmlcheck_capabilities *caps)
{
    hostile_context *ctx = context;
    return ctx->healthy->capabilities(ctx->inner, caps);
}

static void hostile_info(void *context, dmlcheck_info *info)
{
    hostile_context *ctx = context;
    ctx->healthy->info(ctx->inner, info);
    if (strcmp(ctx->unterminated, "info"))
        return;
    fill_unterminated(info->platform, sizeof info->platform);
    fill_unterminated(info->device, sizeof info->device);
    fill_unterminated(info->driver, sizeof info->driver);
    fill_unterminated(info->runtime, sizeof info->runtime);
    fill_unterminated(info->fp_config, sizeof info->fp_config);
}

static dmlcheck_status hostile_create(void *context, const DML_OPERATOR_DESC *desc,
                                      DML_FEATURE_LEVEL feature_level, void **op, char *message,
                                      size_t size)
{
    hostile_context *ctx = context;
    if (!strcmp(ctx->unterminated, "create")) {
        fill_unterminated(message, size);
        return DMLCHECK_ERROR;
    }
    return ctx->healthy->create(ctx->inner, desc, feature_level, op, message, size);
}

static dmlcheck_status hostile_execute(void *context, void *op, const dmlcheck_buffers *b,
                                       char *message, size_t size)
{
    hostile_context *ctx = context;
    if (!strcmp(ctx->unterminated, "execute")) {
        fill_unterminated(message, size);
        return DMLCHECK_ERROR;
    }
    if (!strcmp(ctx->closefds, "execute")) {
        close_descriptors();
        hang_forever();
    }
    if (ctx->fork_mode[0])
        fork_child(ctx, ctx->fork_mode);
    if (!strcmp(ctx->fork_mode, "crash"))
        raise(SIGKILL); /* not SIGSEGV: ASan's handler can report past a short case limit */
    if (ctx->scribble)
        scribble_descriptors();
    dmlcheck_status s = ctx->healthy->execute(ctx->inner, op, b, message, size);
    uint8_t *output = b->output;
    if (ctx->write_past)
        memset(output + b->output_size, 0xA5, ctx->write_past);
    if (ctx->write_before)
        memset(output - ctx->write_before, 0xA5, ctx->write_before);
    return s;
}

#ifdef HOSTILE_PLUGIN_BATCHES
static dmlcheck_status hostile_execute_batch(void *context, dmlcheck_batch_entry *const *entries,
                                             uint32_t count)
{
    const hostile_context *ctx = context;
    if (ctx->batch_crash && count > 1)
        raise(SIGKILL); /* not SIGSEGV: ASan's handler can report past a short case limit */
    while (ctx->batch_hang && count > 1)
        pause();
    for (uint32_t i = 0; i < count; i++)
        entries[i]->status = hostile_execute(context, entries[i]->op, entries[i]->buffers,
                                             entries[i]->message, entries[i]->message_size);
    return DMLCHECK_OK;
}
#endif

static void hostile_destroy(void *context, void *op)
{
    hostile_context *ctx = context;
    ctx->healthy->destroy(ctx->inner, op);
}

static void hostile_close(void *context)
{
    hostile_context *ctx = context;
    FILE *marker = ctx->marker[0] ? fopen(ctx->marker, "w") : NULL;
    if (marker)
        fclose(marker);
    if (!strcmp(ctx->closefds, "close"))
        close_descriptors();
    if (!strcmp(ctx->hang, "close") || !strcmp(ctx->closefds, "close"))
        hang_forever();
    ctx->healthy->close(ctx->inner);
    free(ctx);
}

static const dmlcheck_plugin hostile_plugin = {
    .abi_version = DMLCHECK_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(dmlcheck_plugin),
    .name = "hostile",
    .version = DMLCHECK_VERSION,
    .open = hostile_open,
    .capabilities = hostile_capabilities,
    .info = hostile_info,
    .create = hostile_create,
    .execute = hostile_execute,
    .destroy = hostile_destroy,
    .close = hostile_close,
#ifdef HOSTILE_PLUGIN_BATCHES
    .execute_batch = hostile_execute_batch,
#endif
};

DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t harness_abi_version)
{
    return harness_abi_version == DMLCHECK_PLUGIN_ABI_VERSION ? &hostile_plugin : NULL;
}
