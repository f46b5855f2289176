/*
 * worker.c: the backend's own process (see worker.h).  Wire format, both directions raw
 * structs (parent and child are the same binary, forked, so layouts agree):
 *
 *   parent -> child  request {type, count, first}            RANGE: count generated cases
 *                    request {type = CASE} + dml_case + input bytes   one explicit case
 *   child -> parent  hello {token, status, info, message}     once, after opening the backend
 *                    answer {token, status, time, sizes} + output + indices + message   per case
 *
 * The child speaks first on a pipe the backend shares a process with, so what comes up is
 * checked before it is believed: every header carries a random token drawn for this worker
 * (a backend that writes to a descriptor it does not own, or a copy of the worker it forked,
 * cannot forge it), and the sizes must be the case's.  A breach costs the case in flight
 * (a crash) and the worker, not the run.  The pipes sit at high descriptors, close-on-exec,
 * out of the way of a backend that writes to the low ones it did not open.
 *
 * Invariants: the backend is opened only in the child; the parent never blocks on the child
 * longer than the per-case limit; the child never touches the parent's SQLite connection or
 * stdio buffers (the parent flushes before fork, the child leaves with _exit).
 */
#include "worker.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipe_io.h"
#include "proc_tree.h"
#include "validate.h"

#define WIRE_MAGIC 0x444d4c57u /* "DMLW" */
#define READ_BUFFER_BYTES (256u * 1024u)
/* Answer status for a case the worker could not generate or validate (the parent knows). */
#define WIRE_NOT_RUN (-1)
/* Answer status for a case the worker had no memory for (the case's input or the guarded
 * outputs): the backend did not run and is not to blame; the message says what and how big. */
#define WIRE_OUT_OF_MEMORY (-2)
/* Not an answer: the next output_len answers come from one backend call (a batch), which
 * may take indices_len ms in all.  Sent before the call, so a death during it is known to
 * belong to the batch, not to the first case whose answer was due. */
#define WIRE_BATCH (-3)

/* A backend batch (backend_info.batches): at most this many cases, of at most this many
 * input elements together; a bigger case runs alone. */
#define BATCH_CASES 64
#define BATCH_ELEMENTS (1u << 18)

/* A worker that closed its pipes without ending (a backend that closed its descriptors and
 * hangs) gets this long to end before it is killed. */
#define EXIT_GRACE_MS 300
/* The worker moves its pipes to descriptors at or above this (or the top of its limit). */
#define HIGH_FD 512
/* An answer's message is a line or a few; more is garbage, not a reason to read on. */
#define MAX_MESSAGE_BYTES (1u << 20)

/* REQUEST_RANGE_ALONE: a range whose cases run one backend call each (after a batch died,
 * to find the case to blame). */
enum request_type { REQUEST_RANGE = 1, REQUEST_CASE = 2, REQUEST_RANGE_ALONE = 3 };

typedef struct request {
    uint32_t magic, type, count, pad;
    uint64_t first;
} request;

typedef struct hello {
    uint64_t token;
    int32_t ok;
    backend_info info;
    char message[ERR_MSG_MAX];
} hello;

typedef struct answer_header {
    uint64_t token;
    int32_t status;
    uint32_t message_len;
    double time_us;
    uint64_t output_len, indices_len;
} answer_header;

/* A backend batch that died (worker_batch_lost) while its cases are re-run one by one
 * (worker_send_range_alone).  If none of them dies alone, the death still happened: the
 * re-run's last answer is charged with it (charge_lost_batch), so it is recorded. */
typedef struct lost_batch {
    mismatch_kind kind;         /* KIND_NONE: no lost batch awaits its re-run */
    uint32_t count, left;       /* its cases; re-run answers still due */
    uint64_t first;             /* its first case's index */
    char how[160];              /* how the worker died during it */
} lost_batch;

struct worker {
    worker_config cfg;
    pid_t pid;
    uint64_t token;             /* this child's: its answers carry it */
    int to_child, from_child;   /* parent's ends */
    uint8_t *buf;               /* read buffer for answers */
    size_t start, end;
    bool interrupted;           /* the last wait ended on the stop flag */
    uint32_t batch_left;        /* answers still due from the announced backend batch */
    double batch_deadline_ms;   /* by when they are due */
    unsigned batch_limit_ms;    /* the time that batch was given */
    uint32_t batch_lost;        /* the last death: cases of its batch without an answer */
    lost_batch lost;
};

/* The statuses whose answers carry the outputs the backend wrote (run_status_has_outputs). */
static bool status_has_outputs(int32_t status)
{
    return status >= 0 && run_status_has_outputs((run_status)status);
}

enum { READ_DONE = WAIT_READABLE, READ_TIMED_OUT = WAIT_TIMED_OUT, READ_EOF = WAIT_FAILED,
       READ_STOPPED = WAIT_STOPPED };

/* Waits until the child's pipe is readable, the deadline passes or the stop flag is raised
 * (pipe_io.h): READ_DONE (readable), READ_TIMED_OUT, READ_EOF (poll failed) or READ_STOPPED. */
static int wait_readable(worker *w, double deadline_ms)
{
    return pipe_wait_from(w->from_child, deadline_ms, w->cfg.stop, w->pid);
}

/* ---- The child ---------------------------------------------------------------------- */

/* What the child keeps across cases: the backend and the guarded buffers of check_run, one
 * set per case of a backend batch. */
typedef struct child_state {
    backend *b;
    const worker_config *cfg;
    int in, out;
    uint64_t token;
    pid_t self;                 /* the worker's pid: a copy the backend forked is not it */
    bool batches;               /* the backend runs small cases faster in batches */
    check_buffers buf[BATCH_CASES];
} child_state;

/* A backend that forked returns twice: the copy must not answer for the worker nor read
 * its requests.  Called after every backend call. */
static void leave_if_copy(const child_state *s)
{
    if (getpid() != s->self)
        _exit(0);
}

static void child_answer(child_state *s, int32_t status, double time_us, const case_outputs *o,
                         const char *message)
{
    answer_header h = { .token = s->token, .status = status, .time_us = time_us };
    h.message_len = message ? (uint32_t)strlen(message) : 0;
    struct iovec iov[4] = { { &h, sizeof h } };
    int n = 1;
    if (status_has_outputs(status)) {
        h.output_len = o->output_bytes;
        iov[n++] = (struct iovec){ o->output, o->output_bytes };
        if (o->indices) {
            h.indices_len = o->indices_bytes;
            iov[n++] = (struct iovec){ o->indices, o->indices_bytes };
        }
    }
    if (h.message_len)
        iov[n++] = (struct iovec){ (void *)message, h.message_len };
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    ssize_t k;
    do
        k = writev(s->out, iov, n);
    while (k < 0 && errno == EINTR);
    if (k < 0)
        _exit(3);
    if ((size_t)k < total) { /* a short writev: send the rest piece by piece */
        size_t skip = (size_t)k;
        for (int i = 0; i < n; i++) {
            if (skip >= iov[i].iov_len) {
                skip -= iov[i].iov_len;
                continue;
            }
            if (!pipe_write_all(s->out, (uint8_t *)iov[i].iov_base + skip, iov[i].iov_len - skip))
                _exit(3);
            skip = 0;
        }
    }
}

/* Runs one valid case on the backend (the backend half of check.h) and answers. */
static void child_run(child_state *s, const dml_case *c)
{
    check_answer a;
    check_run(s->cfg->backend, s->b, c, &s->cfg->exec, &s->buf[0], &a);
    leave_if_copy(s);
    child_answer(s, a.out_of_memory ? WIRE_OUT_OF_MEMORY : (int32_t)a.status, a.time_us, &a.outputs,
                 a.status == RUN_OK ? NULL : a.message);
}

/* One case of a backend batch: generated, or not (err says why). */
typedef struct batch_case {
    dml_case c;
    bool generated;
    dmlc_error err;
} batch_case;

/* The time a batch of cases may take: --case-timeout once (the batch is one backend call)
 * plus each case's allowance per input element. */
static unsigned batch_limit_ms(unsigned case_timeout_ms, const batch_case *cases, size_t n)
{
    uint64_t limit = case_timeout_ms;
    for (size_t i = 0; i < n; i++)
        if (cases[i].generated)
            limit += worker_case_limit_ms(case_timeout_ms, &cases[i].c) - case_timeout_ms;
    return limit < UINT32_MAX ? (unsigned)limit : UINT32_MAX;
}

/* Announces, runs and answers the cases of one backend batch, then frees them. */
static void child_batch(child_state *s, batch_case *cases, size_t n)
{
    if (n > 1) {
        answer_header h = { .token = s->token, .status = WIRE_BATCH, .output_len = n,
                            .indices_len = batch_limit_ms(s->cfg->case_timeout_ms, cases, n) };
        if (!pipe_write_all(s->out, &h, sizeof h))
            _exit(3);
    }
    const dml_case *run[BATCH_CASES] = { NULL };
    check_answer answers[BATCH_CASES];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (cases[i].generated)
            run[m++] = &cases[i].c;
    check_run_batch(s->cfg->backend, s->b, run, m, &s->cfg->exec, s->buf, answers);
    leave_if_copy(s);
    for (size_t i = 0, k = 0; i < n; i++) {
        if (!cases[i].generated) {
            child_answer(s, gen_out_of_memory(&cases[i].c) ? WIRE_OUT_OF_MEMORY : WIRE_NOT_RUN, 0,
                         NULL, cases[i].err.msg);
        } else {
            const check_answer *a = &answers[k++];
            child_answer(s, a->out_of_memory ? WIRE_OUT_OF_MEMORY : (int32_t)a->status,
                         a->time_us, &a->outputs, a->status == RUN_OK ? NULL : a->message);
        }
        case_free(&cases[i].c);
    }
}

/* Cases first, first + step, ...: one backend call each, or, for a backend that batches and
 * unless `alone`, in batches of consecutive small cases. */
static void child_range(child_state *s, uint64_t first, uint32_t count, bool alone)
{
    uint64_t step = s->cfg->index_step ? s->cfg->index_step : 1;
    size_t most = s->batches && !alone ? BATCH_CASES : 1;
    batch_case cases[BATCH_CASES];
    size_t n = 0;
    uint64_t elements = 0;
    for (uint32_t i = 0; i < count; i++) {
        batch_case *bc = &cases[n];
        gen_info info;
        bc->generated = worker_generate(s->cfg, first + i * step, &bc->c, &info, &bc->err);
        uint64_t e = bc->generated ? case_tensor_elements(&bc->c.input) : 0;
        if (n > 0 && elements + e > BATCH_ELEMENTS) { /* too big to join: the batch runs first */
            batch_case held = *bc;
            child_batch(s, cases, n);
            cases[0] = held;
            if (cases[0].generated) /* its descriptor points into the case: moved, relinked */
                case_link(&cases[0].c);
            n = 0;
            elements = 0;
        }
        elements += e;
        if (++n == most) {
            child_batch(s, cases, n);
            n = 0;
            elements = 0;
        }
    }
    if (n)
        child_batch(s, cases, n);
}

static void child_explicit_case(child_state *s)
{
    dml_case c;
    if (!pipe_read_all(s->in, &c, sizeof c))
        _exit(3);
    c.expected_output = c.expected_indices = NULL;
    c.comment = NULL;
    UINT64 bytes = case_tensor_bytes(&c.input);
    c.input_data = malloc(bytes ? bytes : 1);
    if (!c.input_data) { /* the parent waits for an answer: tell it, then skip the bytes */
        char message[128];
        snprintf(message, sizeof message, "out of memory: cannot allocate the input, %llu bytes",
                 (unsigned long long)bytes);
        child_answer(s, WIRE_OUT_OF_MEMORY, 0, NULL, message);
        _exit(3);
    }
    if (!pipe_read_all(s->in, c.input_data, bytes))
        _exit(3);
    case_link(&c);
    child_run(s, &c);
    case_free(&c);
}

/* fd moved to a high descriptor, close-on-exec (the old one closed); fd itself when that
 * fails.  A backend that writes to low descriptors it never opened then hits nothing of ours. */
static int move_high(int fd)
{
    struct rlimit l;
    int floor = HIGH_FD;
    if (getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur != RLIM_INFINITY
        && l.rlim_cur < (rlim_t)HIGH_FD + 16)
        floor = l.rlim_cur > 32 ? (int)l.rlim_cur - 16 : fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (high < 0)
        return fd;
    close(fd);
    return high;
}

/* Closes every descriptor above stderr but the worker's two pipes: what the parent holds (the
 * results database, above all) is not the backend's to write, even by mistake. */
static void close_inherited(int keep_a, int keep_b)
{
    int lo = keep_a < keep_b ? keep_a : keep_b, hi = keep_a < keep_b ? keep_b : keep_a;
    struct rlimit l;
    long top = getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur != RLIM_INFINITY
               && l.rlim_cur < 65536 ? (long)l.rlim_cur : 65536;
    if (lo > 3)
        close_range(3, (unsigned)lo - 1, 0);
    if (hi > lo + 1)
        close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
    if (close_range((unsigned)hi + 1, ~0u, 0) != 0) /* an old kernel: one by one */
        for (long fd = 3; fd < top; fd++)
            if (fd != keep_a && fd != keep_b)
                close((int)fd);
}

static _Noreturn void child_main(const worker_config *cfg, int in, int out, pid_t parent,
                                 uint64_t token)
{
    /* The parent decides when the worker stops, and kills what it forked with its group. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    child_state s = { .cfg = cfg, .in = move_high(in), .out = move_high(out), .token = token,
                      .self = getpid() };
    out = s.out;
    in = s.in;
    close_inherited(in, out);
    hello h = { .token = token };
    dmlc_error err = { "" };
    s.b = cfg->backend->open(cfg->device, cfg->backend_args, &err);
    leave_if_copy(&s);
    h.ok = s.b != NULL;
    if (s.b)
        cfg->backend->info(s.b, &h.info);
    else
        snprintf(h.message, sizeof h.message, "%s", err.msg);
    leave_if_copy(&s);
    s.batches = h.info.batches && cfg->backend->run_batch;
    if (!pipe_write_all(out, &h, sizeof h) || !s.b)
        _exit(0);
    request r;
    while (pipe_read_all(in, &r, sizeof r) && r.magic == WIRE_MAGIC) {
        if (r.type == REQUEST_RANGE || r.type == REQUEST_RANGE_ALONE)
            child_range(&s, r.first, r.count, r.type == REQUEST_RANGE_ALONE);
        else if (r.type == REQUEST_CASE)
            child_explicit_case(&s);
        else
            break;
    }
    cfg->backend->close(s.b);
    leave_if_copy(&s);
    _exit(0);
}

bool worker_generate(const worker_config *cfg, uint64_t index, dml_case *c, gen_info *info,
                     dmlc_error *err)
{
    if (!gen_case(cfg->seed, index, &cfg->gen, c, info, err))
        return false;
    /* The generator's promise, checked: valid, or refused when it says must_reject. */
    if (c->must_reject ? !validate_case(c, NULL) : validate_case(c, err))
        return true;
    if (c->must_reject)
        err_set(err, "drawn as must-reject, but the validator accepts it");
    return err_prefix(err, "generated case %llu:%llu is invalid", (unsigned long long)cfg->seed,
                      (unsigned long long)index);
}

/* ---- The parent --------------------------------------------------------------------- */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Reaps the child, giving it grace_ms to end by itself (0: killed at once; a stop cuts the
 * grace), then kills what it left behind: its process group and, once it is gone, its
 * descendants' orphans, which are ours (proc_adopt_orphans).  Describes how it ended; true
 * when it ended by itself. */
static bool reap(worker *w, unsigned grace_ms, char *how, size_t size)
{
    if (w->pid <= 0)
        return true;
    int status = 0;
    bool by_itself = proc_end(w->pid, grace_ms, w->cfg.stop, &status);
    proc_kill_children(0);
    if (how && !by_itself && grace_ms)
        snprintf(how, size, "worker still running after %u ms; killed", grace_ms);
    else if (how && WIFSIGNALED(status))
        snprintf(how, size, "worker killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (how)
        snprintf(how, size, "worker exited with status %d", WEXITSTATUS(status));
    w->pid = -1;
    return by_itself;
}

/* A token no backend can guess: random, or, without randomness, time and pid mixed. */
static uint64_t new_token(void)
{
    uint64_t t = 0;
    if (getrandom(&t, sizeof t, GRND_NONBLOCK) != (ssize_t)sizeof t)
        t = (uint64_t)(clock_ms() * 1e6) ^ ((uint64_t)getpid() << 40) ^ 0x9E3779B97F4A7C15u;
    return t | 1; /* never 0: a zero-filled header is no answer */
}

static bool fork_child(worker *w, backend_info *info, dmlc_error *err)
{
    int down[2], up[2];
    if (pipe(down) < 0)
        return err_set(err, "cannot create a pipe to the worker: %s", strerror(errno));
    if (pipe(up) < 0) {
        close(down[0]);
        close(down[1]);
        return err_set(err, "cannot create a pipe from the worker: %s", strerror(errno));
    }
    fcntl(up[0], F_SETPIPE_SZ, 1 << 20); /* fewer wake-ups; best effort */
    fflush(NULL);
    pid_t parent = getpid();
    w->token = new_token();
    pid_t pid = fork();
    if (pid < 0) {
        for (int i = 0; i < 2; i++) {
            close(down[i]);
            close(up[i]);
        }
        return err_set(err, "cannot fork the worker: %s", strerror(errno));
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        child_main(&w->cfg, down[0], up[1], parent, w->token);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first, the group exists */
    close(down[0]);
    close(up[1]);
    w->pid = pid;
    w->to_child = down[1];
    w->from_child = up[0];
    w->start = w->end = 0;
    w->batch_left = 0;
    hello h;
    int ready = wait_readable(w, clock_ms() + w->cfg.open_timeout_ms);
    if (ready <= 0 || !pipe_read_all(w->from_child, &h, sizeof h) || h.token != w->token) {
        char how[256];
        reap(w, 0, how, sizeof how);
        close_fd(&w->to_child);
        close_fd(&w->from_child);
        return err_set(err, "the %s backend did not open: %s", w->cfg.backend->name,
                       ready == 0 ? "no answer within the open time limit"
                       : ready == READ_STOPPED ? "stopped while it opened" : how);
    }
    if (!h.ok) {
        reap(w, EXIT_GRACE_MS, NULL, 0);
        close_fd(&w->to_child);
        close_fd(&w->from_child);
        return err_set(err, "%s", h.message);
    }
    if (info)
        *info = h.info;
    return true;
}

worker *worker_start(const worker_config *cfg, backend_info *info, dmlc_error *err)
{
    worker *w = calloc(1, sizeof *w);
    if (!w || !(w->buf = malloc(READ_BUFFER_BYTES))) {
        free(w);
        err_set(err, "out of memory starting the worker");
        return NULL;
    }
    w->cfg = *cfg;
    w->to_child = w->from_child = -1;
    /* What the backend forks and abandons comes back to us to be killed (proc_tree.h). */
    proc_adopt_orphans();
    if (!fork_child(w, info, err)) {
        free(w->buf);
        free(w);
        return NULL;
    }
    return w;
}

bool worker_stop(worker *w, dmlc_error *err)
{
    if (!w)
        return true;
    close_fd(&w->to_child); /* EOF: the child closes its backend and exits */
    close_fd(&w->from_child);
    /* Closing is a phase like any other: a backend that hangs in it is killed in time. */
    unsigned limit = w->cfg.case_timeout_ms;
    bool closed = reap(w, limit, NULL, 0);
    bool stopped = w->cfg.stop && *w->cfg.stop;
    free(w->buf);
    free(w);
    if (closed || stopped)
        return true;
    return err_set(err, "the backend did not close within %u ms (--case-timeout); its worker "
                   "was killed", limit);
}

bool worker_restart(worker *w, dmlc_error *err)
{
    close_fd(&w->to_child);
    close_fd(&w->from_child);
    reap(w, 0, NULL, 0);
    return fork_child(w, NULL, err);
}

bool worker_send_range(worker *w, uint64_t first, uint32_t count, dmlc_error *err)
{
    request r = { .magic = WIRE_MAGIC, .type = REQUEST_RANGE, .count = count, .first = first };
    if (!pipe_write_all(w->to_child, &r, sizeof r))
        return err_set(err, "the worker stopped reading requests");
    return true;
}

bool worker_send_range_alone(worker *w, uint64_t first, uint32_t count, dmlc_error *err)
{
    if (w->lost.kind != KIND_NONE) { /* the re-run of the batch that died last */
        w->lost.first = first;
        w->lost.left = count;
    }
    request r = { .magic = WIRE_MAGIC, .type = REQUEST_RANGE_ALONE, .count = count, .first = first };
    if (!pipe_write_all(w->to_child, &r, sizeof r))
        return err_set(err, "the worker stopped reading requests");
    return true;
}

bool worker_send_case(worker *w, const dml_case *c, dmlc_error *err)
{
    request r = { .magic = WIRE_MAGIC, .type = REQUEST_CASE, .count = 1 };
    if (!pipe_write_all(w->to_child, &r, sizeof r) || !pipe_write_all(w->to_child, c, sizeof *c)
        || !pipe_write_all(w->to_child, c->input_data, case_tensor_bytes(&c->input)))
        return err_set(err, "the worker stopped reading requests");
    return true;
}

/* Reads exactly n bytes by the deadline: READ_DONE, READ_TIMED_OUT, READ_EOF, or
 * READ_STOPPED when the stop flag was raised first. */
static int read_by(worker *w, void *dst, size_t n, double deadline_ms)
{
    uint8_t *p = dst;
    while (n) {
        if (w->start < w->end) {
            size_t k = w->end - w->start < n ? w->end - w->start : n;
            memcpy(p, w->buf + w->start, k);
            w->start += k;
            p += k;
            n -= k;
            continue;
        }
        w->start = w->end = 0;
        int r = wait_readable(w, deadline_ms);
        if (r != READ_DONE) /* READ_EOF too: the worker ended though its pipe is still open */
            return r;
        /* Large payloads go straight to their destination. */
        uint8_t *target = n >= READ_BUFFER_BYTES ? p : w->buf;
        size_t cap = n >= READ_BUFFER_BYTES ? n : READ_BUFFER_BYTES;
        ssize_t k = read(w->from_child, target, cap);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return READ_EOF;
        if (target == p) {
            p += k;
            n -= (size_t)k;
        } else {
            w->end = (size_t)k;
        }
    }
    return READ_DONE;
}

void worker_abandon(worker *w)
{
    w->lost = (lost_batch){ .kind = KIND_NONE };
    reap(w, 0, NULL, 0);
    close_fd(&w->to_child);
    close_fd(&w->from_child);
    w->interrupted = true;
}

/* The stop flag ended the wait: the case in flight is abandoned and the worker killed. */
static bool abandon_for_stop(worker *w, dmlc_error *err)
{
    worker_abandon(w);
    return err_set(err, "stopped while waiting for the backend's answer");
}

unsigned worker_case_limit_ms(unsigned case_timeout_ms, const dml_case *c)
{
    uint64_t extra_ms = case_tensor_elements(&c->input) * WORKER_CASE_US_PER_ELEMENT / 1000;
    uint64_t limit = (uint64_t)case_timeout_ms + extra_ms;
    return limit < UINT32_MAX ? (unsigned)limit : UINT32_MAX;
}

/* A death: of one case, or of a backend batch (then remembered in w->lost for its re-run;
 * a death in that re-run has its culprit, so it forgets the batch). */
static bool died(worker *w, const dml_case *c, worker_answer *a, mismatch_kind kind,
                 const char *corrupt)
{
    a->died = kind;
    w->batch_lost = w->batch_left;
    w->batch_left = 0;
    if (kind == KIND_hang && w->batch_lost > 1) {
        snprintf(a->message, sizeof a->message, "no answer within %u ms (--case-timeout %u ms "
                 "once + %u us for each input element of the batch); worker killed",
                 w->batch_limit_ms, w->cfg.case_timeout_ms, WORKER_CASE_US_PER_ELEMENT);
        reap(w, 0, NULL, 0);
    } else if (kind == KIND_hang) {
        snprintf(a->message, sizeof a->message, "no answer within %u ms (--case-timeout %u ms "
                 "+ %u us for each of %llu input elements); worker killed",
                 worker_case_limit_ms(w->cfg.case_timeout_ms, c), w->cfg.case_timeout_ms,
                 WORKER_CASE_US_PER_ELEMENT, (unsigned long long)case_tensor_elements(&c->input));
        reap(w, 0, NULL, 0);
    } else if (corrupt) {
        snprintf(a->message, sizeof a->message, "the worker's answer was corrupt (%s): the "
                 "backend wrote into dmlcheck's pipe, or a process it forked answered; worker "
                 "killed", corrupt);
        reap(w, 0, NULL, 0);
    } else { /* it closed its pipe: it ended, or it hangs with its descriptors closed */
        reap(w, EXIT_GRACE_MS, a->message, sizeof a->message);
    }
    w->lost = (lost_batch){ .kind = w->batch_lost > 1 ? kind : KIND_NONE, .count = w->batch_lost };
    /* How it died takes a line; a rarely longer one is cut, not what is said after it. */
    snprintf(w->lost.how, sizeof w->lost.how, "%.*s", (int)sizeof w->lost.how - 1, a->message);
    close_fd(&w->to_child);
    close_fd(&w->from_child);
    return true;
}

/* The last answer of a lost batch's one-by-one re-run, in which no case died: the batch's
 * death becomes this case's (the batch's last).  A crash that needs its batch, or that does
 * not come back, is exactly what a user must hear about, and the case's failure is what the
 * run records, counts and reports. */
static void charge_lost_batch(worker *w, worker_answer *a)
{
    const lost_batch *l = &w->lost;
    uint64_t step = w->cfg.index_step ? w->cfg.index_step : 1;
    gen_case_id first = { .version = GEN_VERSION, .seed = w->cfg.seed, .index = l->first };
    gen_case_id last = first;
    last.index = l->first + (uint64_t)(l->count - 1) * step;
    char first_text[GEN_CASE_ID_SIZE], last_text[GEN_CASE_ID_SIZE];
    double time_us = a->time_us;
    worker_answer_free(a);
    memset(a, 0, sizeof *a);
    a->died = l->kind;
    a->time_us = time_us;
    snprintf(a->message, sizeof a->message, "%s, during a backend batch of %u cases, %s to %s; "
             "it did not recur when each case was re-run alone, so the %s depends on the batch "
             "or is flaky (charged to the batch's last case)", l->how, l->count,
             gen_format_case_id(&first, first_text, sizeof first_text),
             gen_format_case_id(&last, last_text, sizeof last_text), mismatch_kind_name(l->kind));
    w->lost = (lost_batch){ .kind = KIND_NONE };
}

/* The worker had no memory for a case: its message, as an error that ends the run. */
static bool out_of_memory_answer(worker *w, const answer_header *h, double deadline,
                                 dmlc_error *err)
{
    char message[ERR_MSG_MAX - 64] = "";
    size_t keep = h->message_len < sizeof message - 1 ? h->message_len : sizeof message - 1;
    if (read_by(w, message, keep, deadline) != READ_DONE)
        message[0] = 0;
    message[keep] = 0;
    return err_set(err, "the worker process: %s", message[0] ? message : "out of memory");
}

/* What is wrong with an answer's header, or NULL: anything but the worker's own token, a
 * known status and a sane message length is a breach of the pipe. */
static const char *answer_breach(const worker *w, const answer_header *h)
{
    if (h->token != w->token)
        return "it does not carry this worker's token";
    if (h->status < WIRE_BATCH || h->status > (int32_t)RUN_HUNG)
        return "an unknown status";
    if (h->message_len > MAX_MESSAGE_BYTES)
        return "a message longer than 1 MiB";
    if (h->status == WIRE_BATCH && (h->output_len < 2 || h->output_len > BATCH_CASES))
        return "a batch of an impossible size";
    return NULL;
}

bool worker_receive(worker *w, const dml_case *c, worker_answer *a, dmlc_error *err)
{
    memset(a, 0, sizeof *a);
    w->interrupted = false;
    if (w->pid <= 0)
        return err_set(err, "the worker is not running");
    w->batch_lost = 0;
    double deadline = clock_ms() + worker_case_limit_ms(w->cfg.case_timeout_ms, c);
    answer_header h;
    int r;
    do { /* an announced batch: its answers are due by the batch's deadline */
        if (w->batch_left && w->batch_deadline_ms > deadline)
            deadline = w->batch_deadline_ms;
        r = read_by(w, &h, sizeof h, deadline);
        if (r == READ_STOPPED)
            return abandon_for_stop(w, err);
        if (r <= 0)
            return died(w, c, a, r == 0 ? KIND_hang : KIND_crash, NULL);
        const char *breach = answer_breach(w, &h);
        if (breach)
            return died(w, c, a, KIND_crash, breach);
        if (h.status == WIRE_BATCH) {
            w->batch_left = (uint32_t)h.output_len;
            w->batch_deadline_ms = clock_ms() + (double)h.indices_len;
            w->batch_limit_ms = (unsigned)h.indices_len;
        }
    } while (h.status == WIRE_BATCH);
    if (w->batch_left)
        w->batch_left--;
    if (h.status == WIRE_OUT_OF_MEMORY)
        return out_of_memory_answer(w, &h, deadline, err);
    a->status = h.status == WIRE_NOT_RUN ? RUN_BACKEND_ERROR : (run_status)h.status;
    a->time_us = h.time_us;
    if (status_has_outputs(h.status)) {
        if (h.output_len != case_tensor_bytes(&c->output)
            || h.indices_len != (c->indices.present ? case_tensor_bytes(&c->indices) : 0))
            return died(w, c, a, KIND_crash, "an answer for a different case: output sizes differ");
        if (!case_outputs_alloc(&a->outputs, c))
            return err_set(err, "out of memory: cannot allocate the backend's outputs received "
                           "from the worker, %llu bytes",
                           (unsigned long long)(h.output_len + h.indices_len));
        r = read_by(w, a->outputs.output, h.output_len, deadline);
        if (r > 0 && h.indices_len)
            r = read_by(w, a->outputs.indices, h.indices_len, deadline);
    }
    char message[sizeof a->message];
    size_t keep = h.message_len < sizeof message - 1 ? h.message_len : sizeof message - 1;
    if (r > 0 && h.message_len) {
        r = read_by(w, message, keep, deadline);
        for (size_t skip = h.message_len - keep; r > 0 && skip; skip--)
            r = read_by(w, &(char){ 0 }, 1, deadline);
        message[keep] = 0;
        const char *prefix = h.status == WIRE_NOT_RUN ? "not run: " : "";
        size_t off = strlen(prefix), len = strlen(message);
        if (len > sizeof a->message - 1 - off)
            len = sizeof a->message - 1 - off;
        memcpy(a->message, prefix, off);
        memcpy(a->message + off, message, len);
        a->message[off + len] = 0;
    }
    if (r <= 0) {
        worker_answer_free(a);
        return r == READ_STOPPED ? abandon_for_stop(w, err) : died(w, c, a, r == 0 ? KIND_hang : KIND_crash, NULL);
    }
    if (w->lost.left && --w->lost.left == 0 && w->lost.kind != KIND_NONE)
        charge_lost_batch(w, a);
    return true;
}

uint32_t worker_batch_lost(const worker *w)
{
    return w->batch_lost;
}

bool worker_interrupted(const worker *w)
{
    return w->interrupted;
}

void worker_answer_free(worker_answer *a)
{
    case_outputs_free(&a->outputs);
}
