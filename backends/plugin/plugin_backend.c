/*
 * plugin_backend.c: the "plugin" backend.  `--backend plugin:PATH[,key=value...]` loads a
 * shared library implementing the public ABI of dmlcheck/plugin.h and runs cases on it.
 *
 * The library is opened where the backend is opened: for `dmlcheck run` and `replay` that is
 * the forked worker process, so a plug-in that crashes or hangs costs one case, not the run.
 * Everything the plug-in says is checked before it is believed: the ABI version, the table's
 * size and its required functions (each failure names the library), its capabilities (cases
 * beyond them are skipped as unsupported, with the reason), and after each execution the
 * guard bands around the outputs and the bytes of the input.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin_backend.h"

#include "dtype.h"

#define MAX_PLUGIN_ARGS 64
/* Bytes of guard band before and after each output buffer. */
#define GUARD_BYTES 64
#define GUARD_BYTE 0x5A
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

struct backend {
    void *library;
    const dmlcheck_plugin *api;
    void *context;
    char path[4096];                    /* PATH_MAX: a library anywhere a file can be */
    bool linked;                        /* a table linked into dmlcheck: path is its label */
    char *args_text;                    /* owns the strings args[] points into */
    const char *args[MAX_PLUGIN_ARGS + 1];
    dmlcheck_capabilities caps;
    backend_claims claims;              /* caps read into per-operator claims (claims.h) */
    dmlcheck_info info;
    /* The last created operator and the case it was created for (its descriptor fields only:
     * no values): consecutive cases with one descriptor (--inputs-per-desc) create it once. */
    dml_case cached_case;
    void *cached_op;
    /* During a batch, operators replaced in the cache wait here until the batch has run:
     * its earlier cases still use them.  Room for the batch's cases. */
    void **retired;
    size_t retired_count;
    bool batching;
    /* The guarded copies' memory, one per case of a batch (a single run uses the first),
     * kept across runs: a fresh 64 MiB block per run faulted its pages in every time, which
     * cost more than the copy itself. */
    struct run_memory *memory;
    size_t memory_count;
    backend_run_profile profile; /* the last single run's copies and checks */
};

static void run_memory_free(struct run_memory *m, size_t count);

/* Splits "PATH,k=v,k=v" (with_path) or "k=v,k=v" into b->path and b->args; --device
 * becomes "device=SEL". */
static bool split_args(backend *b, const char *text, bool with_path, const char *device,
                       dmlc_error *err)
{
    text = text ? text : "";
    size_t extra = device ? strlen(device) + 8 : 0;
    b->args_text = malloc(strlen(text) + extra + 2);
    if (!b->args_text)
        return err_set(err, "out of memory");
    strcpy(b->args_text, text);
    char *save = NULL, *word = strtok_r(b->args_text, ",", &save);
    size_t n = 0;
    if (with_path) {
        if (!word)
            return err_set(err, "plugin: '%s' names no library (--backend plugin:PATH[,key=value...])",
                           text);
        if (strlen(word) >= sizeof b->path)
            return err_set(err, "plugin: the library's path is %zu bytes, longer than a path can "
                           "be (%zu)", strlen(word), sizeof b->path - 1);
        snprintf(b->path, sizeof b->path, "%s", word);
        word = strtok_r(NULL, ",", &save);
    }
    for (; word && n < MAX_PLUGIN_ARGS; word = strtok_r(NULL, ",", &save))
        b->args[n++] = word;
    if (word)
        return err_set(err, "plugin %s: more than %d arguments", b->path, MAX_PLUGIN_ARGS);
    if (device && n < MAX_PLUGIN_ARGS) {
        char *d = b->args_text + strlen(text) + 1;
        sprintf(d, "device=%s", device);
        b->args[n++] = d;
    }
    b->args[n] = NULL;
    return true;
}

/* The function table, checked against what this harness needs. */
static bool check_api(backend *b, dmlc_error *err);

static bool load_api(backend *b, dmlc_error *err)
{
    dlerror();
    b->library = dlopen(b->path, RTLD_NOW | RTLD_LOCAL);
    /* dlopen looks a name without a slash up in the library path, not here: say so. */
    if (!b->library && !strchr(b->path, '/'))
        return err_set(err, "plugin %s: cannot load it: %s (a name without '/' is looked up "
                       "in the system's library path, not the current folder: write ./%s or "
                       "an absolute path)", b->path, dlerror(), b->path);
    if (!b->library)
        return err_set(err, "plugin %s: cannot load it: %s", b->path, dlerror());
    dmlcheck_plugin_entry_fn entry;
    *(void **)&entry = dlsym(b->library, DMLCHECK_PLUGIN_ENTRY_SYMBOL);
    if (!entry)
        return err_set(err, "plugin %s: no symbol %s, so it is not a dmlcheck plug-in (see "
                       "dmlcheck/plugin.h)", b->path, DMLCHECK_PLUGIN_ENTRY_SYMBOL);
    b->api = entry(DMLCHECK_PLUGIN_ABI_VERSION);
    if (!b->api)
        return err_set(err, "plugin %s: refuses plug-in ABI version %u, the one this dmlcheck "
                       "speaks", b->path, DMLCHECK_PLUGIN_ABI_VERSION);
    return check_api(b, err);
}

static bool check_api(backend *b, dmlc_error *err)
{
    if (b->api->abi_version != DMLCHECK_PLUGIN_ABI_VERSION)
        return err_set(err, "plugin %s: built for plug-in ABI version %u; this dmlcheck speaks "
                       "version %u", b->path, b->api->abi_version, DMLCHECK_PLUGIN_ABI_VERSION);
    if (b->api->struct_size < DMLCHECK_PLUGIN_TABLE_MIN_SIZE)
        return err_set(err, "plugin %s: its function table is %u bytes, smaller than the %zu of "
                       "ABI version %u", b->path, b->api->struct_size,
                       (size_t)DMLCHECK_PLUGIN_TABLE_MIN_SIZE, DMLCHECK_PLUGIN_ABI_VERSION);
    const struct { const char *name; bool present; } required[] = {
        { "name", b->api->name != NULL }, { "version", b->api->version != NULL },
        { "open", b->api->open != NULL }, { "capabilities", b->api->capabilities != NULL },
        { "info", b->api->info != NULL }, { "create", b->api->create != NULL },
        { "execute", b->api->execute != NULL }, { "destroy", b->api->destroy != NULL },
        { "close", b->api->close != NULL },
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!required[i].present)
            return err_set(err, "plugin %s: dmlcheck_plugin.%s is NULL", b->path, required[i].name);
    return true;
}

/* The plug-in's execute_batch, or NULL when its table has none (ABI 1's first tables end
 * before it). */
static dmlcheck_status (*batch_entry(const backend *b))(void *, dmlcheck_batch_entry *const *, uint32_t)
{
    size_t end = offsetof(dmlcheck_plugin, execute_batch) + sizeof b->api->execute_batch;
    return b->api->struct_size >= end ? b->api->execute_batch : NULL;
}

static void drop_cached(backend *b)
{
    if (b->cached_op && b->batching)
        b->retired[b->retired_count++] = b->cached_op;
    else if (b->cached_op)
        b->api->destroy(b->context, b->cached_op);
    b->cached_op = NULL;
}

void plugin_close(backend *b)
{
    if (b->context && b->api)
        drop_cached(b);
    if (b->context && b->api)
        b->api->close(b->context);
    if (b->library)
        dlclose(b->library);
    free(b->retired);
    run_memory_free(b->memory, b->memory_count);
    free(b->args_text);
    free(b);
}

/* A message buffer of `size` bytes the plug-in filled, terminated at its last byte whatever
 * the plug-in left there: plugin.h asks for a NUL within the size given, and a plug-in that
 * ignores it must not make dmlcheck read past the buffer. */
static const char *plugin_message(char *message, size_t size)
{
    message[size - 1] = 0;
    return message;
}

/* The plug-in's per-operator claims (ABI 1.1), or false with err when an entry is smaller
 * than ABI 1.1's or the entries disagree about their size. */
static bool read_operator_claims(backend *b, dmlc_error *err)
{
    const dmlcheck_operator_claim *first = b->caps.claims;
    uint32_t stride = first->struct_size;
    if (stride < DMLCHECK_OPERATOR_CLAIM_MIN_SIZE)
        return err_set(err, "plugin %s: capabilities: claims[0].struct_size is %u, smaller "
                       "than the %zu bytes of ABI 1.1's dmlcheck_operator_claim", b->path, stride,
                       (size_t)DMLCHECK_OPERATOR_CLAIM_MIN_SIZE);
    for (uint32_t i = 0; i < b->caps.claim_count; i++) {
        const dmlcheck_operator_claim *e =
            (const dmlcheck_operator_claim *)((const char *)first + (size_t)i * stride);
        if (e->struct_size != stride)
            return err_set(err, "plugin %s: capabilities: claims[%u].struct_size is %u, not "
                           "claims[0]'s %u", b->path, i, e->struct_size, stride);
        op_id op = op_from_dml_type(e->op);
        if (op != OP_COUNT) /* an operator this dmlcheck does not test is nobody's concern */
            b->claims.ops[op] = (op_claim){ .claimed = true, .input_types = e->input_types,
                                            .output_types = e->output_types,
                                            .indices_types = e->indices_types };
    }
    b->claims.max_feature_level = b->caps.max_feature_level;
    claims_settle(&b->claims);
    return true;
}

/* caps into b->claims: per operator when the plug-in gave claims (ABI 1.1), else its operator
 * list with one input-type mask for all, as ABI 1's first plug-ins meant it. */
static bool read_claims(backend *b, dmlc_error *err)
{
    memset(&b->claims, 0, sizeof b->claims);
    if (b->caps.claims && b->caps.claim_count > 0)
        return read_operator_claims(b, err);
    for (uint32_t i = 0; b->caps.operators && i < b->caps.operator_count; i++) {
        op_id op = op_from_dml_type(b->caps.operators[i]);
        if (op != OP_COUNT)
            b->claims.ops[op].claimed = true;
    }
    claims_uniform(&b->claims, b->caps.max_feature_level, b->caps.input_types);
    return true;
}

/* Opens the checked table's context and reads its claims; closes b on failure. */
static backend *start(backend *b, dmlc_error *err)
{
    char message[1024] = "";
    bool opened = b->api->open(b->args, &b->context, message, sizeof message) == DMLCHECK_OK;
    plugin_message(message, sizeof message);
    bool ok = opened
        || (b->linked ? err_set(err, "%s", message[0] ? message : "open failed")
                      : err_set(err, "plugin %s: open failed: %s", b->path,
                                message[0] ? message : "(no message)"));
    b->caps.struct_size = sizeof b->caps;
    b->info.struct_size = sizeof b->info;
    if (ok && b->api->capabilities(b->context, &b->caps) != DMLCHECK_OK)
        ok = err_set(err, "plugin %s: capabilities failed", b->path);
    ok = ok && read_claims(b, err);
    if (!ok) {
        plugin_close(b);
        return NULL;
    }
    b->api->info(b->context, &b->info);
    /* Terminated whatever the plug-in wrote. */
    b->info.platform[sizeof b->info.platform - 1] = 0;
    b->info.device[sizeof b->info.device - 1] = 0;
    b->info.driver[sizeof b->info.driver - 1] = 0;
    b->info.runtime[sizeof b->info.runtime - 1] = 0;
    b->info.fp_config[sizeof b->info.fp_config - 1] = 0;
    return b;
}

static backend *plugin_open(const char *device, const char *args, dmlc_error *err)
{
    if (!args || !*args) {
        err_set(err, "plugin: no library given (--backend plugin:PATH[,key=value...])");
        return NULL;
    }
    backend *b = calloc(1, sizeof *b);
    if (!b) {
        err_set(err, "out of memory");
        return NULL;
    }
    if (!split_args(b, args, true, device, err) || !load_api(b, err)) {
        plugin_close(b);
        return NULL;
    }
    return start(b, err);
}

backend *plugin_open_table(const dmlcheck_plugin *api, const char *label, const char *device,
                           const char *args, dmlc_error *err)
{
    backend *b = calloc(1, sizeof *b);
    if (!b) {
        err_set(err, "out of memory");
        return NULL;
    }
    b->api = api;
    b->linked = true;
    snprintf(b->path, sizeof b->path, "%s", label);
    if (!split_args(b, args, false, device, err) || !check_api(b, err)) {
        b->api = NULL; /* nothing was opened */
        plugin_close(b);
        return NULL;
    }
    return start(b, err);
}

void *plugin_context(backend *b)
{
    return b->context;
}

/* A block kept across runs: grown (never copied: every run fills what it uses) and
 * shrunk again when a run needs far less.  Blocks of a huge page or more are aligned to
 * one and advised as huge pages, as the inputs dmlcheck allocates are: copies and
 * comparisons over 4 KiB pages ran a third slower here. */
typedef struct kept_block {
    uint8_t *bytes;
    uint64_t capacity;
} kept_block;

#define HUGE_PAGE_BYTES ((uint64_t)2 << 20)

static bool kept_block_fit(kept_block *k, uint64_t want)
{
    want = want ? want : 1;
    bool wasteful = k->capacity > HUGE_PAGE_BYTES && k->capacity / 4 > want;
    if (k->bytes && want <= k->capacity && !wasteful) {
#if defined(__SANITIZE_ADDRESS__)
        /* A plug-in reading past its buffer must still meet ASan's redzone. */
        ASAN_UNPOISON_MEMORY_REGION(k->bytes, k->capacity);
        ASAN_POISON_MEMORY_REGION(k->bytes + want, k->capacity - want);
#endif
        return true;
    }
    free(k->bytes);
    k->capacity = 0;
    if (want >= HUGE_PAGE_BYTES) {
        uint64_t rounded = (want + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
        k->bytes = aligned_alloc(HUGE_PAGE_BYTES, rounded);
#ifdef MADV_HUGEPAGE
        if (k->bytes)
            madvise(k->bytes, rounded, MADV_HUGEPAGE); /* advice only */
#endif
#if defined(__SANITIZE_ADDRESS__)
        if (k->bytes)
            ASAN_POISON_MEMORY_REGION(k->bytes + want, rounded - want);
#endif
    } else {
        k->bytes = malloc(want);
    }
    if (k->bytes)
        k->capacity = want;
    return k->bytes != NULL;
}

/* The memory of one execution's guarded copies. */
typedef struct run_memory {
    kept_block input, output, indices;
} run_memory;

static void run_memory_free(run_memory *m, size_t count)
{
    for (size_t i = 0; m && i < count; i++) {
        free(m[i].input.bytes);
        free(m[i].output.bytes);
        free(m[i].indices.bytes);
    }
    free(m);
}

/* At least `count` run memories in b (new ones empty). */
static bool run_memory_reserve(backend *b, size_t count)
{
    if (count <= b->memory_count)
        return true;
    run_memory *m = realloc(b->memory, count * sizeof *m);
    if (!m)
        return false;
    memset(m + b->memory_count, 0, (count - b->memory_count) * sizeof *m);
    b->memory = m;
    b->memory_count = count;
    return true;
}

/* An output buffer between guard bands: [guard][body][guard]. */
typedef struct guarded {
    uint8_t *block;
    uint64_t bytes;
} guarded;

static bool guarded_fill(guarded *g, kept_block *k, const uint8_t *body, uint64_t bytes)
{
    g->bytes = bytes;
    if (!kept_block_fit(k, bytes + 2 * GUARD_BYTES))
        return false;
    g->block = k->bytes;
    memset(g->block, GUARD_BYTE, GUARD_BYTES);
    memcpy(g->block + GUARD_BYTES, body, bytes);
    memset(g->block + GUARD_BYTES + bytes, GUARD_BYTE, GUARD_BYTES);
    return true;
}

/* True when a guard byte was overwritten; err then names the one farthest from the buffer
 * before it, or the first one past its end.  (err_set returns false, the error convention, so
 * its value is not this function's answer.) */
static bool guard_broken(const guarded *g, const char *name, dmlc_error *err)
{
    for (uint64_t i = GUARD_BYTES; i-- > 0;)
        if (g->block[GUARD_BYTES - 1 - i] != GUARD_BYTE) {
            err_set(err, "wrote %" PRIu64 " byte(s) before the %s buffer", i + 1, name);
            return true;
        }
    for (uint64_t i = 0; i < GUARD_BYTES; i++)
        if (g->block[GUARD_BYTES + g->bytes + i] != GUARD_BYTE) {
            err_set(err, "wrote byte %" PRIu64 " past the end of the %s buffer (%" PRIu64
                    " bytes)", i, name, g->bytes);
            return true;
        }
    return false;
}

/* True when execute's status s reports a finding (backend.h RUN_FINDINGS): *status is the
 * run status of the same name. */
static bool finding_of(dmlcheck_status s, run_status *status)
{
    static const struct {
        dmlcheck_status plugin;
        run_status run;
    } findings[] = {
#define X(kind, name) { DMLCHECK_##name, RUN_##name },
        RUN_FINDINGS(X)
#undef X
    };
    for (size_t i = 0; i < sizeof findings / sizeof findings[0]; i++)
        if (findings[i].plugin == s) {
            *status = findings[i].run;
            return true;
        }
    return false;
}

/* One execution on guarded copies of the caller's buffers: the plug-in sees only these.
 * The copies live in a run_memory of the backend, reused by the next run. */
typedef struct guarded_run {
    uint8_t *input;
    guarded o, idx;
    dmlcheck_buffers bufs;
    char message[1024];
} guarded_run;

/* The copies and the buffers for c in memory m; false with err when memory runs out. */
static bool guarded_run_start(guarded_run *g, run_memory *m, const dml_case *c,
                              const exec_options *opt, const case_outputs *out, dmlc_error *err)
{
    memset(g, 0, sizeof *g);
    UINT64 in_bytes = case_tensor_bytes(&c->input);
    if (!kept_block_fit(&m->input, in_bytes) || !guarded_fill(&g->o, &m->output, out->output, out->output_bytes)
        || (out->indices && !guarded_fill(&g->idx, &m->indices, out->indices, out->indices_bytes)))
        return err_set(err, "out of memory for the plug-in's buffers");
    g->input = m->input.bytes;
    memcpy(g->input, c->input_data, in_bytes);
    g->bufs = (dmlcheck_buffers){
        .struct_size = sizeof g->bufs,
        .hints = (opt->nan == NAN_POLICY_PROPAGATE ? DMLCHECK_HINT_NAN_PROPAGATE : 0)
                 | (opt->flush_denormals ? DMLCHECK_HINT_FLUSH_DENORMALS : 0),
        .input = g->input, .input_size = in_bytes,
        .output = g->o.block + GUARD_BYTES, .output_size = out->output_bytes,
        .output_indices = out->indices ? g->idx.block + GUARD_BYTES : NULL,
        .output_indices_size = out->indices ? out->indices_bytes : 0,
    };
    return true;
}

/* The verdict on execute's status s and on the buffers' checks; the outputs are copied to
 * the caller's. */
static run_status guarded_run_finish(guarded_run *g, dmlcheck_status s, const dml_case *c,
                                     case_outputs *out, dmlc_error *err)
{
    run_status status = RUN_BACKEND_ERROR;
    const char *message = plugin_message(g->message, sizeof g->message);
    if (s == DMLCHECK_UNSUPPORTED)
        status = (err_set(err, "execute: unsupported within the plug-in's claims: %s", message),
                  RUN_UNSUPPORTED_CLAIMED);
    else if (finding_of(s, &status))
        err_set(err, "%s", message);
    else if (s != DMLCHECK_OK)
        err_set(err, "execute failed: %s", message[0] ? message : "(no message)");
    else if (guard_broken(&g->o, "output", err) || (out->indices && guard_broken(&g->idx, "indices", err)))
        status = RUN_OUT_OF_BOUNDS_WRITE;
    else if (memcmp(g->input, c->input_data, case_tensor_bytes(&c->input)))
        status = (err_set(err, "the plug-in changed its input buffer"), RUN_INPUT_MODIFIED);
    else
        status = RUN_OK;
    memcpy(out->output, g->o.block + GUARD_BYTES, out->output_bytes);
    if (out->indices)
        memcpy(out->indices, g->idx.block + GUARD_BYTES, out->indices_bytes);
    return status;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs one created operator on guarded copies in memory m; the verdict of the buffers'
 * checks.  The time of the copies and of the checks goes to b->profile (dmlcheck bench). */
static run_status execute_guarded(backend *b, run_memory *m, void *op, const dml_case *c,
                                  const exec_options *opt, case_outputs *out, dmlc_error *err)
{
    guarded_run g;
    double t0 = seconds_now();
    if (!guarded_run_start(&g, m, c, opt, out, err))
        return RUN_BACKEND_ERROR;
    g.message[0] = 0;
    double t1 = seconds_now();
    dmlcheck_status s = b->api->execute(b->context, op, &g.bufs, g.message, sizeof g.message);
    double t2 = seconds_now();
    run_status status = guarded_run_finish(&g, s, c, out, err);
    double t3 = seconds_now();
    b->profile = (backend_run_profile){ 0 };
    backend_profile_add(&b->profile, "harness: the plug-in's copy of the input, guarded outputs",
                        t1 - t0, 1);
    backend_profile_add(&b->profile, "plug-in execute", t2 - t1, 0);
    backend_profile_add(&b->profile, "harness: guards, input compared, outputs copied", t3 - t2, 1);
    return status;
}

bool plugin_run_profile(backend *b, backend_run_profile *profile)
{
    *profile = b->profile;
    return b->profile.count > 0;
}

/* A descriptor that must be refused is only created, never run: refused is what DirectML
 * does (RUN_REJECTED); created means accepted (RUN_OK, judged accepted_invalid). */
static run_status must_reject_outcome(backend *b, dmlcheck_status s, void *op, const char *message,
                                      dmlc_error *err)
{
    if (s == DMLCHECK_OK) {
        b->api->destroy(b->context, op);
        err_set(err, "create accepted it");
        return RUN_OK;
    }
    err_set(err, "%s", message[0] ? message : "(no message)");
    return s == DMLCHECK_INVALID ? RUN_REJECTED
        : s == DMLCHECK_UNSUPPORTED ? RUN_UNSUPPORTED : RUN_BACKEND_ERROR;
}

/* The operator for c: the cached one when c has the last descriptor, else a new one (cached
 * when created). */
static dmlcheck_status operator_for(backend *b, const dml_case *c, void **op, char *message,
                                    size_t size)
{
    if (b->cached_op && case_same_descriptor(c, &b->cached_case)) {
        *op = b->cached_op;
        return DMLCHECK_OK;
    }
    drop_cached(b);
    dmlcheck_status s = b->api->create(b->context, &c->op_desc, c->feature_level, op, message, size);
    if (s == DMLCHECK_OK) {
        b->cached_op = *op;
        /* A copy of the fields alone: the buffers stay the caller's. */
        b->cached_case = *c;
        b->cached_case.input_data = NULL;
        b->cached_case.expected_output = b->cached_case.expected_indices = NULL;
        b->cached_case.comment = NULL;
        case_link(&b->cached_case);
    }
    return s;
}

/* Everything before execute: the claims, a descriptor to refuse, the operator.  True with
 * *op when the case is to be executed; false with its answer in *answer otherwise. */
static bool operator_ready(backend *b, const dml_case *c, void **op, run_status *answer,
                           dmlc_error *err)
{
    char why[160], message[1024] = "";
    *op = NULL;
    if (claims_beyond(&b->claims, c, "the plug-in", why, sizeof why)) {
        err_set(err, "%s", why);
        *answer = RUN_UNSUPPORTED;
        return false;
    }
    if (c->must_reject) {
        dmlcheck_status s = b->api->create(b->context, &c->op_desc, c->feature_level, op,
                                           message, sizeof message);
        *answer = must_reject_outcome(b, s, *op, plugin_message(message, sizeof message), err);
        return false;
    }
    dmlcheck_status s = operator_for(b, c, op, message, sizeof message);
    plugin_message(message, sizeof message);
    if (s == DMLCHECK_OK)
        return true;
    /* Within its claims (claims_beyond passed), unsupported is a gap in them. */
    if (s == DMLCHECK_UNSUPPORTED) {
        err_set(err, "create: unsupported, although the plug-in claims %s, %s inputs and level "
                "%s: %s", op_table[c->op].name, dtype_name(c->input.type), fl_name(c->feature_level),
                message[0] ? message : "(no reason given)");
        *answer = RUN_UNSUPPORTED_CLAIMED;
    } else if (s == DMLCHECK_INVALID) {
        /* The harness only sends descriptors DirectML accepts at the case's level. */
        err_set(err, "create %s at feature level %s: refused as invalid, but DirectML accepts "
                "this descriptor: %s", op_table[c->op].name, fl_name(c->feature_level),
                message[0] ? message : "(no reason given)");
        *answer = RUN_REJECTED;
    } else {
        err_set(err, "create %s at feature level %s failed: %s", op_table[c->op].name,
                fl_name(c->feature_level), message[0] ? message : "(no message)");
        *answer = RUN_BACKEND_ERROR;
    }
    return false;
}

run_status plugin_run(backend *b, const dml_case *c, const exec_options *opt,
                             case_outputs *out, dmlc_error *err)
{
    void *op;
    run_status answer;
    if (!operator_ready(b, c, &op, &answer, err))
        return answer;
    if (!run_memory_reserve(b, 1))
        return (err_set(err, "out of memory for the plug-in's buffers"), RUN_BACKEND_ERROR);
    return execute_guarded(b, &b->memory[0], op, c, opt, out, err);
}

/* The executions of a batch: one guarded run and one entry per case to execute. */
typedef struct batch_run {
    backend_batch_item *item;
    guarded_run g;
    dmlcheck_batch_entry entry;
} batch_run;

/* Hands the cases that reached execute to execute_batch; if the plug-in declines the batch,
 * each runs alone. */
static void execute_batch_guarded(backend *b, batch_run *runs, size_t n)
{
    dmlcheck_batch_entry **entries = malloc((n ? n : 1) * sizeof *entries);
    dmlcheck_status s = DMLCHECK_ERROR;
    if (entries) {
        for (size_t i = 0; i < n; i++)
            entries[i] = &runs[i].entry;
        s = batch_entry(b)(b->context, entries, (uint32_t)n);
        free(entries);
    }
    for (size_t i = 0; i < n; i++) {
        backend_batch_item *it = runs[i].item;
        if (s == DMLCHECK_OK) {
            it->status = guarded_run_finish(&runs[i].g, runs[i].entry.status, it->c, it->out, &it->err);
            continue;
        }
        it->status = execute_guarded(b, &b->memory[i], runs[i].entry.op, it->c, &it->exec,
                                     it->out, &it->err);
    }
}

/* backend_vtable.run_batch: each case's claims, refusal and operator as plugin_run has them,
 * then one execute_batch for every case that reached execute.  Operators the cache replaces
 * live until the batch has run. */
void plugin_run_batch(backend *b, backend_batch_item *items, size_t count)
{
    batch_run *runs = calloc(count ? count : 1, sizeof *runs);
    void **retired = realloc(b->retired, (count ? count : 1) * sizeof *retired);
    if (retired)
        b->retired = retired;
    if (!batch_entry(b) || !runs || !retired || !run_memory_reserve(b, count)) {
        free(runs);
        for (size_t i = 0; i < count; i++)
            items[i].status = plugin_run(b, items[i].c, &items[i].exec, items[i].out, &items[i].err);
        return;
    }
    b->batching = true;
    b->retired_count = 0;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        backend_batch_item *it = &items[i];
        void *op;
        if (!operator_ready(b, it->c, &op, &it->status, &it->err))
            continue;
        if (!guarded_run_start(&runs[n].g, &b->memory[n], it->c, &it->exec, it->out, &it->err)) {
            it->status = RUN_BACKEND_ERROR;
            continue;
        }
        runs[n].item = it;
        runs[n].entry = (dmlcheck_batch_entry){ .struct_size = sizeof runs[n].entry, .op = op,
            .buffers = &runs[n].g.bufs, .status = DMLCHECK_ERROR, .message = runs[n].g.message,
            .message_size = sizeof runs[n].g.message };
        n++;
    }
    if (n)
        execute_batch_guarded(b, runs, n);
    b->batching = false;
    for (size_t i = 0; i < b->retired_count; i++)
        b->api->destroy(b->context, b->retired[i]);
    b->retired_count = 0;
    free(runs);
}

void plugin_info(backend *b, backend_info *info)
{
    memset(info, 0, sizeof *info);
    /* The plug-in's name is its own string: read no more of it than fits. */
    snprintf(info->platform, sizeof info->platform, "%.*s", (int)sizeof info->platform - 1,
             b->info.platform[0] ? b->info.platform : b->api->name);
    snprintf(info->device, sizeof info->device, "%s", b->info.device);
    /* "name version; driver", cut to fit (snprintf's truncation is the intent). */
    int n = snprintf(info->driver, sizeof info->driver, "%.40s %.24s", b->api->name, b->api->version);
    if (b->info.driver[0] && n > 0 && (size_t)n + 2 < sizeof info->driver)
        snprintf(info->driver + n, sizeof info->driver - (size_t)n, "; %.*s",
                 (int)(sizeof info->driver - (size_t)n - 3), b->info.driver);
    snprintf(info->runtime, sizeof info->runtime, "%s", b->info.runtime);
    snprintf(info->fp_config, sizeof info->fp_config, "%s", b->info.fp_config);
    info->flushes_denormals = b->caps.flags & DMLCHECK_CAP_FLUSHES_DENORMALS;
    info->validates = b->caps.flags & DMLCHECK_CAP_VALIDATES;
    info->batches = batch_entry(b) != NULL;
    info->claims = b->claims;
}

const backend_vtable plugin_backend = {
    .name = "plugin",
    .summary = "a shared library implementing dmlcheck/plugin.h: --backend plugin:PATH[,key=value...]",
    .open = plugin_open,
    .run = plugin_run,
    .info = plugin_info,
    .close = plugin_close,
    .run_batch = plugin_run_batch,
    .run_profile = plugin_run_profile,
};
