/*
 * process_backend.c: the "process" backend.  `--backend process:'CMD ARGS'` runs CMD (split
 * into words like a shell without expansions, then execvp) as ONE persistent child and speaks the framed protocol of docs/PROTOCOL.md
 * (version 1) over a Unix socket that is the child's stdin and stdout; the child's stderr is
 * dmlcheck's.  Each case is one RUN frame (the descriptor in case-file field names and the
 * input bytes) answered by one OK, UNSUPPORTED, INVALID or ERROR frame.
 *
 * Invariants:
 *  - nothing the child says is believed unchecked: the handshake's version and claims, each
 *    reply's magic, kind, id and exact byte count.  A breach, a death or a silence past the
 *    deadline costs the case in flight (RUN_BACKEND_ERROR, with what happened) and the child:
 *    it is killed with its process group, and a new one is started for the next case;
 *  - only logical output elements are copied into the harness's buffers, so the bytes a
 *    strided child leaves in gaps never reach the judge, and a packed child's answer is
 *    scattered to the strided addresses the case asks for (SEMANTICS D1);
 *  - a write to a dead child never raises SIGPIPE (send with MSG_NOSIGNAL), and no read or
 *    write blocks past the deadline (non-blocking socket, poll).
 * One request is in flight at a time; the id field leaves room for pipelining later.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "backend.h"
#include "casefile.h"
#include "clock.h"
#include "dtype.h"
#include "proc_tree.h"

#define PROTOCOL_VERSION 1
#define FRAME_MAGIC "DMLP"
#define FRAME_HEADER_BYTES 24
/* A reply's JSON is a few hundred bytes; more is garbage, not a reason to allocate. */
#define MAX_JSON_BYTES (1u << 20)
#define DEFAULT_TIMEOUT_MS 30000u
#define TIMEOUT_ENV "DMLCHECK_PROCESS_TIMEOUT_MS"
/* How long a child that closed its socket may take to be reaped before it is killed. */
#define EXIT_GRACE_MS 200

enum frame_kind {
    FRAME_HELLO = 1, FRAME_WELCOME = 2, FRAME_RUN = 3,
    FRAME_OK = 4, FRAME_UNSUPPORTED = 5, FRAME_INVALID = 6, FRAME_ERROR = 7,
};

/* What the child claimed in its WELCOME frame. */
typedef struct claims {
    char name[64], version[64], platform[128], device[128], driver[128];
    backend_claims per_op;         /* operators, types and level (claims.h) */
    bool flushes_denormals, packed;
    bool validates; /* WELCOME.validates: it checks descriptors, so must-reject cases are sent */
} claims;

#define MAX_WORDS 256

struct backend {
    char *command;                 /* as given, for messages */
    char *words;                   /* owns the strings argv points into */
    char *argv[MAX_WORDS + 1];
    char *device;
    unsigned timeout_ms;
    pid_t pid;                     /* <= 0: no child; the next case starts one */
    int fd;                        /* our end of the child's stdin/stdout socket */
    uint64_t next_id;
    claims caps;
    uint8_t *scratch;              /* packed input, then the reply's buffers */
    size_t scratch_cap;
    /* What the last request's failure was: the child died or timed out (a RUN_CRASHED or
     * RUN_HUNG for the case), or neither. */
    enum { CHILD_FINE, CHILD_CRASHED, CHILD_HUNG } fault;
};

/* ---- Time and plain I/O with a deadline ---------------------------------------------- */

/* How often a wait looks whether the child is still alive: a grandchild that keeps the
 * socket open must not turn the child's death into a hang. */
#define CHILD_WATCH_MS 50

/* Waits for `events` on fd until the deadline: 1 ready, 0 timed out, -1 failed or the child
 * (pid > 0) ended with nothing left to read. */
static int wait_fd(int fd, short events, double deadline, pid_t child)
{
    for (;;) {
        double left = deadline - clock_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = { .fd = fd, .events = events };
        int r = poll(&p, 1, child > 0 && left > CHILD_WATCH_MS ? CHILD_WATCH_MS : (int)left + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != 0)
            return r < 0 ? -1 : 1;
        if (child > 0 && proc_ended(child)) /* what it wrote before it ended comes first */
            return poll(&p, 1, 0) > 0 ? 1 : -1;
    }
}

/* Moves n bytes through the socket, sending (POLLOUT) or receiving (POLLIN), waiting for
 * it until deadline: 1 done, 0 timed out, -1 the child is gone (end of file or error). */
static int transfer_by(int fd, uint8_t *p, size_t n, short direction, double deadline,
                       pid_t child)
{
    while (n) {
        ssize_t k = direction == POLLOUT ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int w = wait_fd(fd, direction, deadline, child);
            if (w <= 0)
                return w;
            continue;
        }
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 1;
}

static int send_by(const backend *b, const void *data, size_t n, double deadline)
{
    /* send() only reads the bytes: the cast lets one loop serve both directions. */
    return transfer_by(b->fd, (uint8_t *)(uintptr_t)data, n, POLLOUT, deadline, b->pid);
}

static int recv_by(const backend *b, void *dst, size_t n, double deadline)
{
    return transfer_by(b->fd, dst, n, POLLIN, deadline, b->pid);
}

static bool grow(backend *b, size_t n)
{
    if (n <= b->scratch_cap)
        return true;
    uint8_t *p = realloc(b->scratch, n);
    if (!p)
        return false;
    b->scratch = p;
    b->scratch_cap = n;
    return true;
}

/* ---- The child's life ---------------------------------------------------------------- */

/* Splits CMD into words the way a POSIX shell would if it did no expansion: blanks separate
 * words; inside '...' every character is literal; inside "..." a backslash escapes " \ $ `
 * and itself; elsewhere a backslash escapes the next character.  argv points into `buf`
 * (strlen(cmd) + 1 bytes).  False with err for an unterminated quote or too many words. */
static bool split_words(const char *cmd, char *buf, char **argv, size_t max, dmlc_error *err)
{
    size_t n = 0;
    const char *p = cmd;
    char *out = buf;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (n + 1 >= max)
            return err_set(err, "more than %zu words", max - 1);
        argv[n++] = out;
        for (char quote = 0; *p && (quote || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
            if (!quote && (*p == '\'' || *p == '"'))
                quote = *p;
            else if (quote && *p == quote)
                quote = 0;
            else if (*p == '\\' && quote != '\'' && p[1]
                     && (!quote || strchr("\"\\$`", p[1])))
                *out++ = *++p;
            else
                *out++ = *p;
            if (quote && !p[1])
                return err_set(err, "an unterminated %c quote", quote);
        }
        *out++ = 0;
    }
    argv[n] = NULL;
    if (!n)
        return err_set(err, "no command given (--backend process:'CMD ARGS')");
    return true;
}

/* In the forked child: the socket becomes stdin and stdout, nothing else of ours stays open
 * but the pipe that reports a failed exec (close-on-exec, so a successful one closes it), and
 * the child leads its own process group (so one kill reaches whatever it starts, and Ctrl-C
 * reaches only dmlcheck, which decides) and dies with its parent, the worker. */
static _Noreturn void exec_child(char **argv, int sock, int report)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(sock, 0) < 0 || dup2(sock, 1) < 0)
        _exit(127);
    for (int fd = 3; fd < 1024; fd++)
        if (fd != report)
            close(fd);
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGPIPE, &dfl, NULL);
    execvp(argv[0], argv);
    int e = errno;
    if (write(report, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

/* The child's errno from a failed exec, or 0 once the exec succeeded (the pipe closed). */
static int exec_outcome(int report)
{
    int e = 0;
    ssize_t k;
    do
        k = read(report, &e, sizeof e);
    while (k < 0 && errno == EINTR);
    close(report);
    return k == (ssize_t)sizeof e ? e : 0;
}

static bool spawn(backend *b, dmlc_error *err)
{
    int sv[2], report[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return err_set(err, "cannot create a socket for the child: %s", strerror(errno));
    if (pipe2(report, O_CLOEXEC) < 0) {
        close(sv[0]);
        close(sv[1]);
        return err_set(err, "cannot create a pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        exec_child(b->argv, sv[1], report[1]);
    close(sv[1]);
    close(report[1]);
    if (pid < 0) {
        int e = errno;
        close(report[0]);
        close(sv[0]);
        return err_set(err, "cannot fork the child: %s", strerror(e));
    }
    int e = exec_outcome(report[0]);
    if (e) {
        close(sv[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            continue;
        return err_set(err, "cannot run %s: %s", b->argv[0], strerror(e));
    }
    setpgid(pid, pid); /* as the child does: whichever runs first, the group exists */
    /* A grandchild that leaves the child's group (setsid) is ours once the child is gone,
     * and end_child kills it. */
    proc_adopt_orphans();
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    b->pid = pid;
    b->fd = sv[0];
    return true;
}

/* How a reaped child ended, for messages. */
static void describe_status(int status, char *how, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(how, size, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(how, size, "exited with status %d", WEXITSTATUS(status));
}

/* Ends the child: waits up to grace_ms for it to exit by itself, then kills its process
 * group.  True when it had ended by itself; *how (may be NULL) then says how. */
static bool end_child(backend *b, unsigned grace_ms, char *how, size_t size)
{
    if (!grace_ms && b->pid > 0) /* before its socket closes, so it has nothing to complain of */
        kill(-b->pid, SIGKILL);
    if (b->fd >= 0)
        close(b->fd);
    b->fd = -1;
    if (b->pid <= 0)
        return false;
    int status = 0;
    pid_t r = 0;
    for (double until = clock_ms() + grace_ms; (r = waitpid(b->pid, &status, WNOHANG)) == 0 && clock_ms() < until;)
        nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
    kill(-b->pid, SIGKILL); /* and whatever it started */
    if (r == 0) {
        kill(b->pid, SIGKILL);
        while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR)
            continue;
        if (how)
            snprintf(how, size, "it was still running and was killed");
    } else if (how && r > 0) {
        describe_status(status, how, size);
    }
    b->pid = -1;
    proc_kill_children(0); /* what it started outside its group, orphaned now */
    return r > 0;
}

/* ---- Frames ---------------------------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Sends one frame: header, JSON text, then the binary part.  False with err. */
static bool frame_send(backend *b, uint32_t kind, json_t *j, const void *bin, uint64_t bin_len,
                       double deadline, dmlc_error *err)
{
    char *text = json_dumps(j, JSON_COMPACT);
    if (!text)
        return err_set(err, "out of memory for a request");
    size_t len = strlen(text);
    uint8_t header[FRAME_HEADER_BYTES];
    memcpy(header, FRAME_MAGIC, 4);
    put_u32(header + 4, kind);
    put_u32(header + 8, (uint32_t)len);
    put_u32(header + 12, 0);
    put_u64(header + 16, bin_len);
    int r = send_by(b, header, sizeof header, deadline);
    if (r > 0)
        r = send_by(b, text, len, deadline);
    if (r > 0 && bin_len)
        r = send_by(b, bin, bin_len, deadline);
    free(text);
    if (r == 0) {
        b->fault = CHILD_HUNG;
        return err_set(err, "hang: the child read nothing for %u ms", b->timeout_ms);
    }
    char how[128] = "closed its input";
    if (r < 0) {
        end_child(b, EXIT_GRACE_MS, how, sizeof how);
        b->fault = CHILD_CRASHED;
        return err_set(err, "crash: the child stopped reading: %s", how);
    }
    return true;
}

/* A received frame's header and parsed JSON; the binary part is still on the socket. */
typedef struct frame {
    uint32_t kind;
    uint64_t bin_len;
    json_t *json;
} frame;

/* A read that failed, worded: timed out, or the child died (how, once reaped). */
static bool read_failed(backend *b, int r, const char *what, dmlc_error *err)
{
    if (r == 0) {
        b->fault = CHILD_HUNG;
        return err_set(err, "hang: no %s within %u ms (%s)", what, b->timeout_ms, TIMEOUT_ENV);
    }
    char how[128] = "closed its output";
    end_child(b, EXIT_GRACE_MS, how, sizeof how);
    b->fault = CHILD_CRASHED;
    return err_set(err, "crash: the child died before its %s: %s", what, how);
}

static bool frame_recv(backend *b, frame *f, double deadline, dmlc_error *err)
{
    uint8_t h[FRAME_HEADER_BYTES];
    f->json = NULL;
    int r = recv_by(b, h, sizeof h, deadline);
    if (r <= 0)
        return read_failed(b, r, "reply", err);
    if (memcmp(h, FRAME_MAGIC, 4))
        return err_set(err, "garbage: the reply starts with bytes %02x %02x %02x %02x, not the "
                       "frame magic \"DMLP\"", h[0], h[1], h[2], h[3]);
    f->kind = (uint32_t)get_le(h + 4, 4);
    uint32_t json_len = (uint32_t)get_le(h + 8, 4);
    f->bin_len = get_le(h + 16, 8);
    if (json_len > MAX_JSON_BYTES || get_le(h + 12, 4))
        return err_set(err, "garbage: a frame header with JSON length %" PRIu32 " and reserved "
                       "word %" PRIu64, json_len, get_le(h + 12, 4));
    char *text = malloc(json_len + 1u);
    if (!text)
        return err_set(err, "out of memory for a reply");
    r = recv_by(b, text, json_len, deadline);
    json_error_t jerr;
    if (r > 0 && !(f->json = json_loadb(text, json_len, 0, &jerr)))
        err_set(err, "garbage: the reply's JSON does not parse: %s", jerr.text);
    free(text);
    if (r <= 0)
        return read_failed(b, r, "reply's JSON", err);
    return f->json != NULL;
}

/* Reads and drops a frame's binary part (of a reply whose buffers are not wanted). */
static bool skip_binary(backend *b, uint64_t n, double deadline, dmlc_error *err)
{
    uint8_t sink[4096];
    while (n) {
        size_t k = n < sizeof sink ? (size_t)n : sizeof sink;
        int r = recv_by(b, sink, k, deadline);
        if (r <= 0)
            return read_failed(b, r, "reply's buffers", err);
        n -= k;
    }
    return true;
}

/* ---- The handshake ------------------------------------------------------------------- */

static void copy_text(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

/* Bits 1u << value for the names in a JSON array, as `from_name` maps them. */
static bool name_mask(json_t *array, const char *field, uint32_t (*bit_of)(const char *),
                      uint32_t *mask, dmlc_error *err)
{
    size_t i;
    json_t *v;
    *mask = 0;
    if (!json_is_array(array))
        return err_set(err, "WELCOME.%s: must be an array of names", field);
    json_array_foreach(array, i, v) {
        uint32_t bit = json_is_string(v) ? bit_of(json_string_value(v)) : 0;
        if (!bit)
            return err_set(err, "WELCOME.%s[%zu]: not a name dmlcheck knows", field, i);
        *mask |= bit;
    }
    return true;
}

static uint32_t op_bit(const char *name)
{
    op_id op = op_from_name(name);
    return op < OP_COUNT ? 1u << op : 0;
}

static uint32_t type_bit(const char *name)
{
    DML_TENSOR_DATA_TYPE t = dtype_from_name(name);
    return t != DML_TENSOR_DATA_TYPE_UNKNOWN ? 1u << t : 0;
}

/* WELCOME's operators and input_types, or its per-operator "claims" list when it has one
 * (which then replaces both: docs/PROTOCOL.md, "Claims per operator"). */
static bool read_claims(json_t *ops, json_t *types, json_t *list, DML_FEATURE_LEVEL level,
                        backend_claims *c, dmlc_error *err)
{
    uint32_t op_mask = 0, type_mask = 0;
    if (!name_mask(ops, "operators", op_bit, &op_mask, err)
        || (types && !name_mask(types, "input_types", type_bit, &type_mask, err)))
        return false;
    memset(c, 0, sizeof *c);
    if (list && (!json_is_array(list) || json_array_size(list) > 0)) {
        size_t i;
        json_t *entry;
        if (!json_is_array(list))
            return err_set(err, "WELCOME.claims: must be an array of {\"op\": ...} objects");
        json_array_foreach(list, i, entry)
            if (!claims_add_json_entry(c, entry, err))
                return err_prefix(err, "WELCOME.claims[%zu]", i);
        c->max_feature_level = level;
        claims_settle(c);
        return true;
    }
    for (int op = 0; op < OP_COUNT; op++)
        c->ops[op].claimed = (op_mask >> op) & 1u;
    claims_uniform(c, level, type_mask);
    return true;
}

/* The WELCOME frame's JSON into claims (docs/PROTOCOL.md, "Handshake"). */
static bool parse_welcome(json_t *j, claims *c, dmlc_error *err)
{
    json_int_t version = 0;
    const char *name = NULL, *ver = NULL, *level = NULL, *layout = NULL;
    const char *platform = NULL, *device = NULL, *driver = NULL;
    json_t *ops = NULL, *types = NULL, *list = NULL;
    DML_FEATURE_LEVEL max_level = 0;
    int flushes = 0, validates = 0;
    json_error_t jerr;
    memset(c, 0, sizeof *c);
    if (json_unpack_ex(j, &jerr, 0, "{s:I}", "protocol", &version))
        return err_set(err, "WELCOME: %s", jerr.text);
    if (version != PROTOCOL_VERSION)
        return err_set(err, "it speaks protocol version %" JSON_INTEGER_FORMAT "; this dmlcheck "
                       "speaks version %d (docs/PROTOCOL.md)", version, PROTOCOL_VERSION);
    if (json_unpack_ex(j, &jerr, 0, "{s:s, s:s, s:o, s:s, s?s, s?o, s?b, s?b, s?s, s?s, s?s, s?o}",
                       "name", &name, "version", &ver, "operators", &ops, "layout", &layout,
                       "max_feature_level", &level, "input_types", &types,
                       "flushes_denormals", &flushes, "validates", &validates, "platform", &platform,
                       "device", &device, "driver", &driver, "claims", &list))
        return err_set(err, "WELCOME: %s", jerr.text);
    if (strcmp(layout, "strided") && strcmp(layout, "packed"))
        return err_set(err, "WELCOME.layout: \"%s\" is neither \"strided\" nor \"packed\"", layout);
    if (level && !fl_from_name(level, &max_level))
        return err_set(err, "WELCOME.max_feature_level: \"%s\" is no feature level", level);
    if (!read_claims(ops, types, list, max_level, &c->per_op, err))
        return false;
    copy_text(c->name, sizeof c->name, name);
    copy_text(c->version, sizeof c->version, ver);
    copy_text(c->platform, sizeof c->platform, platform);
    copy_text(c->device, sizeof c->device, device);
    copy_text(c->driver, sizeof c->driver, driver);
    c->flushes_denormals = flushes;
    c->validates = validates;
    c->packed = !strcmp(layout, "packed");
    return true;
}

/* A refusal frame's text ("reason" or "message"), or a placeholder. */
static const char *frame_text(json_t *j)
{
    const char *s = json_string_value(json_object_get(j, "reason"));
    if (!s)
        s = json_string_value(json_object_get(j, "message"));
    return s && *s ? s : "(no reason given)";
}

/* Starts the child and shakes hands; on failure the child is gone and err says why. */
static bool start(backend *b, dmlc_error *err)
{
    if (!spawn(b, err))
        return false;
    double deadline = clock_ms() + b->timeout_ms;
    json_t *hello = json_pack("{s:i, s:s, s:s?}", "protocol", PROTOCOL_VERSION,
                              "dmlcheck", DMLCHECK_VERSION, "device", b->device);
    frame f = { 0 };
    bool ok = hello && frame_send(b, FRAME_HELLO, hello, NULL, 0, deadline, err)
        && frame_recv(b, &f, deadline, err);
    json_decref(hello);
    if (ok && f.kind == FRAME_ERROR)
        ok = err_set(err, "it refused to start: %s", frame_text(f.json));
    else if (ok && f.kind != FRAME_WELCOME)
        ok = err_set(err, "it answered HELLO with a frame of kind %" PRIu32 ", not WELCOME (2)", f.kind);
    else if (ok && f.bin_len)
        ok = err_set(err, "its WELCOME frame carries %" PRIu64 " binary bytes; it must carry none", f.bin_len);
    ok = ok && parse_welcome(f.json, &b->caps, err);
    json_decref(f.json);
    if (!ok)
        end_child(b, 0, NULL, 0);
    return ok;
}

/* ---- One case -------------------------------------------------------------------------- */

/* Copies the logical elements of t from src to dst; each side is laid out by t's strides or,
 * where *_packed, row-major with no gaps. */
static void copy_elements(const case_tensor *t, uint8_t *dst, bool dst_packed, const uint8_t *src,
                          bool src_packed)
{
    tensor_view v;
    case_tensor_view(t, &v);
    unsigned size = dtype_size(t->type);
    uint32_t coords[DML_MAX_RANK] = { 0 };
    uint64_t strided = 0;
    for (uint64_t i = 0; i < v.elements; i++) {
        memcpy(dst + (dst_packed ? i : strided) * size, src + (src_packed ? i : strided) * size, size);
        /* Next coordinates, row-major, and their strided offset. */
        for (unsigned d = v.rank; d-- > 0;) {
            strided += v.strides[d];
            if (++coords[d] < v.sizes[d])
                break;
            strided -= (uint64_t)coords[d] * v.strides[d];
            coords[d] = 0;
        }
    }
}

/* Bytes of t's buffer as the child sees it: the whole strided buffer, or the packed array. */
static uint64_t wire_bytes(const backend *b, const case_tensor *t)
{
    return b->caps.packed ? case_tensor_elements(t) * dtype_size(t->type) : case_tensor_bytes(t);
}

/* The descriptor the child is sent: the case's own, or for a packed child the same tensors
 * without Strides and TotalTensorSizeInBytes (its buffers are packed). */
static json_t *descriptor_for(const backend *b, const dml_case *c)
{
    if (!b->caps.packed)
        return casefile_descriptor_json(c);
    dml_case packed = *c; /* shallow: only plain fields change, and nothing is freed */
    case_tensor *tensors[] = { &packed.input, &packed.output, &packed.indices };
    for (size_t i = 0; i < 3; i++)
        tensors[i]->has_strides = tensors[i]->has_total_bytes = false;
    case_link(&packed);
    return casefile_descriptor_json(&packed);
}

static json_t *buffer_list(const char *name, uint64_t bytes, const char *name2, uint64_t bytes2)
{
    json_t *list = json_pack("[{s:s, s:I}]", "name", name, "bytes", (json_int_t)bytes);
    if (list && name2)
        json_array_append_new(list, json_pack("{s:s, s:I}", "name", name2, "bytes", (json_int_t)bytes2));
    return list;
}

/* Sends the RUN frame of case c with request id `id`. */
static bool send_request(backend *b, const dml_case *c, const exec_options *opt, uint64_t id,
                         double deadline, dmlc_error *err)
{
    uint64_t in_bytes = wire_bytes(b, &c->input);
    const uint8_t *input = c->input_data;
    if (b->caps.packed) {
        if (!grow(b, in_bytes ? in_bytes : 1))
            return err_set(err, "out of memory for the packed input");
        copy_elements(&c->input, b->scratch, true, c->input_data, false);
        input = b->scratch;
    }
    json_t *req = json_pack("{s:I, s:o, s:s, s:s, s:o, s:o}", "id", (json_int_t)id,
                            "case", descriptor_for(b, c), "nan_policy", nan_policy_name(opt->nan),
                            "layout", b->caps.packed ? "packed" : "strided",
                            "inputs", buffer_list("input", in_bytes, NULL, 0),
                            "outputs", buffer_list("output", wire_bytes(b, &c->output),
                                                   c->indices.present ? "indices" : NULL,
                                                   wire_bytes(b, &c->indices)));
    if (!req)
        return err_set(err, "out of memory for a request");
    bool ok = frame_send(b, FRAME_RUN, req, input, in_bytes, deadline, err);
    json_decref(req);
    return ok;
}

/* An OK reply's buffers: exactly the requested bytes, output then indices; only their
 * logical elements are copied into the harness's buffers. */
static bool take_outputs(backend *b, const dml_case *c, const frame *f, case_outputs *out,
                         double deadline, dmlc_error *err)
{
    uint64_t o_bytes = wire_bytes(b, &c->output);
    uint64_t i_bytes = c->indices.present ? wire_bytes(b, &c->indices) : 0;
    if (f->bin_len != o_bytes + i_bytes)
        return err_set(err, "wrong sizes: the OK reply carries %" PRIu64 " bytes of buffers; the "
                       "request asked for %" PRIu64 " (output %" PRIu64 " + indices %" PRIu64 ")",
                       f->bin_len, o_bytes + i_bytes, o_bytes, i_bytes);
    if (!grow(b, f->bin_len ? f->bin_len : 1))
        return err_set(err, "out of memory for the reply's buffers");
    int r = recv_by(b, b->scratch, f->bin_len, deadline);
    if (r <= 0)
        return read_failed(b, r, "reply's buffers", err);
    copy_elements(&c->output, out->output, false, b->scratch, b->caps.packed);
    if (c->indices.present)
        copy_elements(&c->indices, out->indices, false, b->scratch + o_bytes, b->caps.packed);
    return true;
}

/* The reply to request `id`, as a run status (RUN_BACKEND_ERROR with err for a refusal the
 * protocol does not allow or a breach).  After a breach the stream cannot be trusted, so the
 * child is ended and the next case starts a new one. */
static run_status take_reply(backend *b, const dml_case *c, uint64_t id, case_outputs *out,
                             double deadline, dmlc_error *err)
{
    frame f;
    if (!frame_recv(b, &f, deadline, err)) {
        end_child(b, 0, NULL, 0);
        return RUN_BACKEND_ERROR;
    }
    run_status s = RUN_BACKEND_ERROR;
    bool breach = false;
    json_t *jid = json_object_get(f.json, "id");
    if (!json_is_integer(jid) || (uint64_t)json_integer_value(jid) != id) {
        breach = true;
        err_set(err, "wrong frame order: a reply of kind %" PRIu32 " with id %" JSON_INTEGER_FORMAT
                "%s while request %" PRIu64 " is in flight", f.kind, json_integer_value(jid),
                json_is_integer(jid) ? "" : " (none)", id);
    } else if (f.kind == FRAME_OK) {
        breach = !take_outputs(b, c, &f, out, deadline, err);
        s = breach ? RUN_BACKEND_ERROR : RUN_OK;
    } else if (f.kind == FRAME_UNSUPPORTED) {
        /* Within the child's claims (claims_beyond passed): a gap in them, unsupported_required. */
        s = RUN_UNSUPPORTED_CLAIMED;
        err_set(err, "unsupported within the child's claims: %s", frame_text(f.json));
    } else if (f.kind == FRAME_INVALID) {
        /* Right for a must-reject case; rejected_valid for any other (check.c judges). */
        s = RUN_REJECTED;
        err_set(err, "refused as invalid at %s: %s", fl_name(c->feature_level), frame_text(f.json));
    } else if (f.kind == FRAME_ERROR) {
        err_set(err, "the child's error: %s", frame_text(f.json));
    } else {
        breach = true;
        err_set(err, "wrong frame order: a frame of kind %" PRIu32 " in reply to RUN", f.kind);
    }
    /* A refusal may carry bytes: read and dropped, so the next frame starts where it should. */
    if (!breach && s != RUN_OK && f.bin_len)
        breach = !skip_binary(b, f.bin_len, deadline, err);
    json_decref(f.json);
    if (breach)
        end_child(b, 0, NULL, 0);
    return s;
}

/* Adds to err that the child was ended (after a breach, a death or a hang). */
static void note_restart(dmlc_error *err)
{
    size_t used = strlen(err->msg);
    snprintf(err->msg + used, sizeof err->msg - used, "; the child was ended, and a new one "
             "starts for the next case");
}

static run_status process_run(backend *b, const dml_case *c, const exec_options *opt,
                              case_outputs *out, dmlc_error *err)
{
    char why[160];
    if (claims_beyond(&b->caps.per_op, c, "the child", why, sizeof why)) {
        err_set(err, "%s", why);
        return RUN_UNSUPPORTED;
    }
    if (b->pid <= 0 && !start(b, err)) {
        err_prefix(err, "cannot restart the child '%s'", b->command);
        return RUN_BACKEND_ERROR;
    }
    double deadline = clock_ms() + b->timeout_ms;
    uint64_t id = b->next_id++;
    run_status s = RUN_BACKEND_ERROR;
    b->fault = CHILD_FINE;
    if (send_request(b, c, opt, id, deadline, err))
        s = take_reply(b, c, id, out, deadline, err);
    else
        end_child(b, 0, NULL, 0);
    if (s == RUN_BACKEND_ERROR && b->fault != CHILD_FINE)
        s = b->fault == CHILD_CRASHED ? RUN_CRASHED : RUN_HUNG;
    if (b->pid <= 0)
        note_restart(err);
    return s;
}

/* ---- Open, info, close ------------------------------------------------------------------ */

static void process_close(backend *b)
{
    if (b->fd >= 0)
        shutdown(b->fd, SHUT_WR); /* end of input: a well-behaved child exits */
    end_child(b, 2000, NULL, 0);
    free(b->command);
    free(b->words);
    free(b->device);
    free(b->scratch);
    free(b);
}

static unsigned timeout_from_env(void)
{
    const char *s = getenv(TIMEOUT_ENV);
    char *end = NULL;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    return s && *s && !*end && v > 0 && v < 86400000ul ? (unsigned)v : DEFAULT_TIMEOUT_MS;
}

static backend *process_open(const char *device, const char *args, dmlc_error *err)
{
    if (!args || !*args) {
        err_set(err, "process: no command given (--backend process:'CMD ARGS')");
        return NULL;
    }
    backend *b = calloc(1, sizeof *b);
    if (!b || !(b->command = strdup(args)) || (device && !(b->device = strdup(device)))) {
        if (b)
            free(b->command);
        free(b);
        err_set(err, "out of memory");
        return NULL;
    }
    b->pid = -1;
    b->fd = -1;
    b->timeout_ms = timeout_from_env();
    if (!(b->words = malloc(strlen(args) + 1))) {
        err_set(err, "out of memory");
        process_close(b);
        return NULL;
    }
    if (!split_words(args, b->words, b->argv, MAX_WORDS + 1, err) || !start(b, err)) {
        err_prefix(err, "process '%s'", b->command);
        process_close(b);
        return NULL;
    }
    return b;
}

static void process_info(backend *b, backend_info *info)
{
    const claims *c = &b->caps;
    memset(info, 0, sizeof *info);
    snprintf(info->platform, sizeof info->platform, "%s", c->platform[0] ? c->platform : c->name);
    snprintf(info->device, sizeof info->device, "%s", c->device);
    /* "name version; driver", cut to fit (snprintf's truncation is the intent). */
    snprintf(info->driver, sizeof info->driver, "%.40s %.24s%s%.56s", c->name, c->version,
             c->driver[0] ? "; " : "", c->driver);
    /* The one place reports show how buffers travelled: a packed child never saw a stride. */
    snprintf(info->fp_config, sizeof info->fp_config, "process protocol %d, %s", PROTOCOL_VERSION,
             c->packed ? "packed buffers: stride handling not tested" : "strided buffers");
    info->flushes_denormals = c->flushes_denormals;
    info->validates = c->validates;
    info->claims = c->per_op;
}

const backend_vtable process_backend = {
    .name = "process",
    .summary = "a child process speaking docs/PROTOCOL.md on stdin/stdout: --backend process:'CMD ARGS'",
    .open = process_open,
    .run = process_run,
    .info = process_info,
    .close = process_close,
};
