/*
 * pipe_io.h: the pipe I/O the worker and the reference guard share with their child
 * processes: whole buffers with EINTR retried, a monotonic clock in milliseconds, and a wait
 * for readability that keeps to a deadline and looks at a stop flag (SIGINT/SIGTERM) every
 * PIPE_STOP_POLL_MS, so a stop acts within a tenth of a second whatever the child does.
 */
#ifndef DMLCHECK_PIPE_IO_H
#define DMLCHECK_PIPE_IO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PIPE_STOP_POLL_MS 100

enum { WAIT_READABLE = 1, WAIT_TIMED_OUT = 0, WAIT_FAILED = -1, WAIT_STOPPED = -2 };

bool pipe_write_all(int fd, const void *data, size_t n);
bool pipe_read_all(int fd, void *data, size_t n);
/* Waits until fd is readable (WAIT_READABLE), deadline_ms (clock_ms time) passes
 * (WAIT_TIMED_OUT), poll fails (WAIT_FAILED) or *stop is raised (WAIT_STOPPED; stop may be
 * NULL). */
int pipe_wait_readable(int fd, double deadline_ms, const volatile sig_atomic_t *stop);
/* As pipe_wait_readable, and WAIT_FAILED once child `writer` (> 0) has ended with nothing
 * left to read, though a process it started still holds the pipe's other end. */
int pipe_wait_from(int fd, double deadline_ms, const volatile sig_atomic_t *stop, pid_t writer);

#endif
