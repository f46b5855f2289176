/*
 * oracle_guard.c: check_prepare under a time limit and a stop flag (oracle_guard.h).
 *
 * Child -> parent, one message: a header {ok, classes, has_flushed, message}, then the
 * expected output and indices bytes, then the flushed answer's when has_flushed.  Sizes are
 * not sent: both sides derive them from the same case (case_outputs_alloc).  The parent
 * allocates its copy only once the header arrived, so parent and child never hold two
 * copies of the outputs in one address space.
 */
#include "oracle_guard.h"
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipe_io.h"

typedef struct oracle_header {
    int32_t ok;
    uint32_t classes;
    uint32_t has_flushed;
    char message[ERR_MSG_MAX];
} oracle_header;

enum { PIPE_DONE, PIPE_TIMED_OUT, PIPE_CLOSED, PIPE_STOPPED };

/* Reads exactly n bytes by the deadline, looking at the stop flag (pipe_io.h). */
static int read_within(int fd, void *dst, size_t n, double deadline_ms, const oracle_limits *limits)
{
    uint8_t *p = dst;
    while (n) {
        int wait = pipe_wait_readable(fd, deadline_ms, limits->stop);
        if (wait != WAIT_READABLE)
            return wait == WAIT_STOPPED ? PIPE_STOPPED : wait == WAIT_TIMED_OUT ? PIPE_TIMED_OUT
                                                                               : PIPE_CLOSED;
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return PIPE_CLOSED;
        p += k;
        n -= (size_t)k;
    }
    return PIPE_DONE;
}

static bool write_outputs(int fd, const case_outputs *o)
{
    return pipe_write_all(fd, o->output, o->output_bytes)
           && (!o->indices || pipe_write_all(fd, o->indices, o->indices_bytes));
}

static int read_outputs(int fd, case_outputs *o, double deadline_ms, const oracle_limits *limits)
{
    int r = read_within(fd, o->output, o->output_bytes, deadline_ms, limits);
    if (r == PIPE_DONE && o->indices)
        r = read_within(fd, o->indices, o->indices_bytes, deadline_ms, limits);
    return r;
}

/* The child: the reference, its answer down the pipe, _exit.  Ctrl-C reaches the whole
 * process group: the parent decides when the child ends. */
static _Noreturn void child_compute(const dml_case *c, const exec_options *exec, int out)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    check_oracle o;
    dmlc_error err = { "" };
    oracle_header h = { .ok = check_prepare(c, exec, &o, &err) };
    h.classes = o.classes;
    h.has_flushed = h.ok && o.flushed.output != NULL;
    snprintf(h.message, sizeof h.message, "%s", err.msg);
    bool sent = pipe_write_all(out, &h, sizeof h)
                && (!h.ok || (write_outputs(out, &o.expected)
                              && (!h.has_flushed || write_outputs(out, &o.flushed))));
    _exit(sent ? 0 : 3);
}

/* What the parent allocates for the answer, named for a person. */
static oracle_outcome out_of_memory(const dml_case *c, const char *what, dmlc_error *err)
{
    unsigned long long out = case_tensor_bytes(&c->output);
    unsigned long long idx = c->indices.present ? case_tensor_bytes(&c->indices) : 0;
    err_set(err, "out of memory: cannot allocate %s, %llu bytes (output %llu + indices %llu)",
            what, out + idx, out, idx);
    return ORACLE_FAILED;
}

/* Receives the child's answer into o: a PIPE_* status, or -1 when o cannot be allocated. */
static int receive_answer(int fd, const dml_case *c, const oracle_limits *limits, check_oracle *o,
                          dmlc_error *err)
{
    double deadline = clock_ms() + limits->limit_ms;
    oracle_header h;
    int r = read_within(fd, &h, sizeof h, deadline, limits);
    if (r != PIPE_DONE)
        return r;
    if (!h.ok) {
        err_set(err, "%s", h.message);
        return -1;
    }
    o->classes = h.classes;
    if (!case_outputs_alloc(&o->expected, c))
        return out_of_memory(c, "the reference outputs", err), -1;
    if (h.has_flushed && !case_outputs_alloc(&o->flushed, c))
        return out_of_memory(c, "the reference outputs on flushed inputs", err), -1;
    r = read_outputs(fd, &o->expected, deadline, limits);
    if (r == PIPE_DONE && h.has_flushed)
        r = read_outputs(fd, &o->flushed, deadline, limits);
    return r;
}

/* check_prepare in a child process; false when no child could be started. */
static bool prepare_in_child(const dml_case *c, const exec_options *exec,
                             const oracle_limits *limits, check_oracle *o, dmlc_error *err,
                             oracle_outcome *outcome)
{
    int fds[2];
    if (pipe(fds) < 0)
        return false;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        child_compute(c, exec, fds[1]);
    }
    close(fds[1]);
    int r = receive_answer(fds[0], c, limits, o, err);
    close(fds[0]);
    if (r != PIPE_DONE && r != PIPE_CLOSED)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    *outcome = r == PIPE_DONE ? ORACLE_READY : r == PIPE_STOPPED ? ORACLE_STOPPED
             : r == PIPE_TIMED_OUT ? ORACLE_OUT_OF_TIME : ORACLE_FAILED;
    if (r == PIPE_TIMED_OUT)
        err_set(err, "the reference took longer than %u ms (--reference-timeout)", limits->limit_ms);
    else if (r == PIPE_CLOSED) /* the engine aborts when its own scratch memory runs out */
        err_set(err, "the reference's process ended without an answer (%s %d; what it said, "
                "e.g. that it ran out of memory and how much it asked for, is above)",
                WIFSIGNALED(status) ? "signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    if (*outcome != ORACLE_READY)
        check_oracle_free(o);
    return true;
}

/* The reference's work for c: every input element read, and for pooling every window tap of
 * every output (a wide window makes a small input expensive). */
static uint64_t reference_work(const dml_case *c)
{
    uint64_t taps = case_tensor_elements(&c->output);
    for (UINT s = 0; s < c->spatial_count && s < DML_MAX_RANK; s++)
        taps *= c->window[s] ? c->window[s] : 1;
    uint64_t elements = case_tensor_elements(&c->input);
    return taps > elements ? taps : elements;
}

/* Whether this process runs under a memory limit (ulimit -v or -d).  The reference has no
 * error channel and aborts when its scratch memory runs out (reference.h); under a limit
 * that can happen on any case, and an abort in the parent would end the run with its row
 * left 'running'.  A child's abort is one case's error instead, said and recorded. */
static bool memory_limited(void)
{
    struct rlimit as, data;
    return (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        || (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
}

oracle_outcome oracle_prepare(const dml_case *c, const exec_options *exec,
                              const oracle_limits *limits, check_oracle *o, dmlc_error *err)
{
    memset(o, 0, sizeof *o);
    oracle_outcome outcome;
    bool guarded = reference_work(c) > ORACLE_GUARD_CHILD_WORK
                   || case_tensor_elements(&c->input) > ORACLE_GUARD_CHILD_ELEMENTS
                   || memory_limited();
    if (!c->must_reject && guarded && prepare_in_child(c, exec, limits, o, err, &outcome))
        return outcome;
    /* Less work, or no process to spare (fork failed): here, as fast as it goes, the limit
     * judged when it is done. */
    double start = clock_ms();
    if (!check_prepare(c, exec, o, err))
        return ORACLE_FAILED;
    if (limits && limits->limit_ms && clock_ms() - start > limits->limit_ms) {
        check_oracle_free(o);
        err_set(err, "the reference took longer than %u ms (--reference-timeout)", limits->limit_ms);
        return ORACLE_OUT_OF_TIME;
    }
    return ORACLE_READY;
}
