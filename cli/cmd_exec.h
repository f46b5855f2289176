/*
 * cmd_exec.h: the per-file core of `dmlcheck exec`, exposed so tests can drive it with a
 * backend of their own (one that misbehaves on purpose).
 */
#ifndef DMLCHECK_CMD_EXEC_H
#define DMLCHECK_CMD_EXEC_H

#include <stdbool.h>
#include <stdio.h>

#include "backend.h"

typedef struct exec_run {
    const backend_vtable *vt;
    const char *backend_text; /* --backend as given ("plugin:PATH,..."); NULL: vt->name */
    backend *b;              /* opened with vt->open */
    bool flushes_denormals;  /* from vt->info: judge `denormal` cases by the flushed answer too */
    const char *device;      /* --device, for replay lines; NULL when not given */
    exec_options opt;
    FILE *out;               /* where the outputs' JSON lines go; NULL means stdout */
} exec_run;

/* Reads, validates, runs and compares one case file, printing its outputs on r->out (stdout when NULL) and any
 * diagnostics (ending with a replay line) on stderr.  Returns 0 agree or skipped, 1 mismatch
 * or misbehaving backend, 2 unreadable or invalid file. */
int exec_case_file(const exec_run *r, const char *file);

#endif
