/*
 * oracle_guard.h: the oracle half of a check (check_prepare) under a time limit and the
 * caller's stop flag.  The reference engine runs to the end once started and looks at no
 * flag, so a large case is computed in a child process that the parent can kill: a stop
 * acts within PIPE_STOP_POLL_MS (pipe_io.h), and a reference that outlives its limit costs that case (the
 * caller records it as not checked), never the run.  Cases of less work, whose reference
 * takes at most tenths of a second, are computed in this process: a fork costs a large-tier
 * case more than its reference (it cut a default run's cases/s by a sixth), and a stop still
 * acts within a second; their limit is checked when they finish.
 *
 * The child is forked from a process that may have other threads (the recorder's writer):
 * it only computes with the reference engine, writes the answer to a pipe and leaves with
 * _exit, so it never touches the parent's SQLite connection or stdio buffers.
 */
#ifndef DMLCHECK_ORACLE_GUARD_H
#define DMLCHECK_ORACLE_GUARD_H

#include <signal.h>

#include "check.h"

/* Cases whose reference does more work than this (input elements, or for pooling outputs
 * times window taps: at most ~100 ns each), or reads more input elements than the second
 * (its scratch memory grows with them, and the engine aborts when that runs out), compute
 * their oracle in a child process. */
#define ORACLE_GUARD_CHILD_WORK (1u << 22)
#define ORACLE_GUARD_CHILD_ELEMENTS (1u << 20)

typedef enum oracle_outcome {
    ORACLE_READY,       /* *o holds the oracle */
    ORACLE_OUT_OF_TIME, /* the reference outlived limit_ms; err says so */
    ORACLE_STOPPED,     /* the stop flag was raised first */
    ORACLE_FAILED,      /* out of memory (err names what and how much) */
} oracle_outcome;

typedef struct oracle_limits {
    unsigned limit_ms;                        /* for this case */
    const volatile sig_atomic_t *stop;        /* or NULL */
} oracle_limits;

/* check_prepare for case c within the limits.  Anything but ORACLE_READY leaves *o empty. */
oracle_outcome oracle_prepare(const dml_case *c, const exec_options *exec,
                              const oracle_limits *limits, check_oracle *o, dmlc_error *err);

#endif
