/*
 * pipe_io.c: pipe I/O shared by the worker and the reference guard (pipe_io.h).
 */
#include "pipe_io.h"

#include "clock.h"
#include "proc_tree.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

bool pipe_write_all(int fd, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

bool pipe_read_all(int fd, void *data, size_t n)
{
    uint8_t *p = data;
    while (n) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

int pipe_wait_readable(int fd, double deadline_ms, const volatile sig_atomic_t *stop)
{
    return pipe_wait_from(fd, deadline_ms, stop, 0);
}

int pipe_wait_from(int fd, double deadline_ms, const volatile sig_atomic_t *stop, pid_t writer)
{
    for (;;) {
        if (stop && *stop)
            return WAIT_STOPPED;
        double left = deadline_ms - clock_ms();
        if (left <= 0)
            return WAIT_TIMED_OUT;
        bool slices = stop || writer > 0;
        int slice = slices && left > PIPE_STOP_POLL_MS ? PIPE_STOP_POLL_MS : (int)left + 1;
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        int r = poll(&pf, 1, slice);
        if (r > 0)
            return WAIT_READABLE;
        if (r < 0 && errno != EINTR)
            return WAIT_FAILED;
        /* Nothing to read and the writer is gone: a descendant that kept the pipe open must
         * not turn its death into a hang. */
        if (writer > 0 && proc_ended(writer)) /* what it wrote before it ended comes first */
            return poll(&pf, 1, 0) > 0 ? WAIT_READABLE : WAIT_FAILED;
    }
}
