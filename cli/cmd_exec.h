/*
 * cmd_exec.h: the per-file core of `dmlcheck exec`, exposed so tests can drive it with a
 * backend of their own (one that misbehaves on purpose).  Each file is checked through a
 * session (harness/session.h), as `dmlcheck run` checks its cases: the backend runs in a
 * worker process, so a crash or a hang costs one file.
 */
#ifndef DMLCHECK_CMD_EXEC_H
#define DMLCHECK_CMD_EXEC_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "backend.h"
#include "session.h"

/* What became of one file; exec_exit_code maps it to the exit status. */
typedef enum exec_outcome {
    EXEC_AGREE,        /* passes (also: a device's flushed answer to a denormal case) */
    EXEC_UNSPECIFIED,  /* differs only where DirectML's spec is silent */
    EXEC_SKIP,         /* outside the backend's claims, or a must-reject case it cannot check */
    EXEC_FAIL,         /* a mismatch, or the backend misbehaved (error, crash, hang, ...) */
    EXEC_INVALID,      /* unreadable or invalid case file: a file to fix */
    EXEC_ERROR,        /* dmlcheck could not check it (out of memory, the worker broke) */
    EXEC_STOPPED,      /* SIGINT or SIGTERM came first */
    EXEC_OUTCOME_COUNT
} exec_outcome;

typedef struct exec_run {
    const backend_vtable *vt;
    const char *backend_text; /* --backend as given ("plugin:PATH,..."); NULL: vt->name */
    const char *backend_args; /* after "NAME:" in --backend: the worker opens the backend with it */
    const char *device;       /* --device, for the backend and replay lines; NULL when not given */
    exec_options opt;
    unsigned case_timeout_ms; /* one file on the backend; longer is a hang (run's default) */
    unsigned reference_timeout_ms; /* one file's reference (run's default) */
    unsigned open_timeout_ms; /* opening the backend in the worker */
    bool name_files;          /* several files: each JSON line names its file and result */
    FILE *out;                /* where the outputs' JSON lines go; NULL means stdout */
    const volatile sig_atomic_t *stop; /* the caller's SIGINT/SIGTERM flag, or NULL */
    bool strict;              /* --strict: a difference in a class the spec leaves open fails */
    /* Set by exec_start: the backend in its worker, the oracle and the judgement. */
    session *s;
} exec_run;

/* Fills r's defaults (timeouts) for the fields a caller has not chosen. */
void exec_defaults(exec_run *r);
/* Forks the worker, which opens the backend.  False with err (the backend's message) when it
 * cannot be opened. */
bool exec_start(exec_run *r, dmlc_error *err);
void exec_stop(exec_run *r);

/* Reads ("-": standard input), validates, runs and compares one case file, printing its JSON
 * line on r->out (stdout when NULL) and any diagnostics (ending with a replay line) on
 * stderr.  A crash or hang of the backend is the file's failure; the worker is restarted for
 * the next file. */
exec_outcome exec_case_file(exec_run *r, const char *file);

/* 0 agree, unspecified or skip; 1 fail; 2 invalid or error; 130 stopped. */
int exec_exit_code(exec_outcome o);
/* "agree", "unspecified", "skip", "fail", "invalid", "error", "stopped". */
const char *exec_outcome_name(exec_outcome o);

#endif
