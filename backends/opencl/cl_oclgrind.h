/*
 * cl_oclgrind.h: Oclgrind as a run device (`--device oclgrind`).  Oclgrind is an OpenCL
 * simulator that checks every memory access of every work-item; it reports what it finds as
 * text in a log, not through the OpenCL API.  This module makes the ICD loader load it,
 * turns its invalid-access, data-race and uninitialised-value checks on, and reads its log
 * after each run, so that each run's reports become that run's status:
 *
 *   Oclgrind --(OCLGRIND_LOG, a private unlinked file)--> cl_oclgrind_findings after each
 *   run --> CL_RUN_INVALID_ACCESS / DATA_RACE / UNINITIALISED_READ with the first report's
 *   first line --> DMLCHECK_* statuses (cl_plugin.c) --> the failure kinds of the same names.
 *
 * Everything here works through the environment, which the ICD loader (ocl-icd) and
 * Oclgrind read once, at the process's first OpenCL call and at context creation: so
 * cl_oclgrind_prepare must run before anything else in the process touches OpenCL.  dmlcheck
 * opens the backend in a freshly forked worker, where that holds.
 */
#ifndef DMLCHECK_CL_OCLGRIND_H
#define DMLCHECK_CL_OCLGRIND_H

#include <stdbool.h>

#include "cl_error.h"

/* The --device word that selects Oclgrind (case-insensitive). */
#define CL_OCLGRIND_SELECTOR "oclgrind"
/* The platform name Oclgrind reports: the selector picks exactly this platform. */
#define CL_OCLGRIND_PLATFORM "Oclgrind"

typedef struct cl_oclgrind cl_oclgrind;

/* What Oclgrind reported during one run. */
typedef enum cl_oclgrind_finding {
    CL_OCLGRIND_NOTHING,
    CL_OCLGRIND_INVALID_ACCESS,     /* a load or store outside every buffer, or misaligned */
    CL_OCLGRIND_DATA_RACE,          /* read-write or write-write race between work-items */
    CL_OCLGRIND_UNINITIALISED_READ, /* a value nobody wrote was used or stored */
    CL_OCLGRIND_OTHER,              /* anything else (e.g. barrier divergence) */
} cl_oclgrind_finding;

/* True when `selector` asks for Oclgrind. */
bool cl_oclgrind_selected(const char *selector);

/* Registers Oclgrind's ICD as the only one the loader loads (for `dmlcheck devices` as
 * well as for runs).  False with err when Oclgrind is not installed. */
bool cl_oclgrind_register(cl_msg *err);

/* Registers the ICD, turns the checks on and opens the private log.  Before the first
 * OpenCL call of the process; NULL with err on failure. */
cl_oclgrind *cl_oclgrind_prepare(cl_msg *err);
/* After the context exists (Oclgrind has opened its log by then): removes the log's name,
 * so no file is left behind however the process ends. */
void cl_oclgrind_context_created(cl_oclgrind *o);
/* Reads what Oclgrind logged since the last call: the first report's kind, with its first
 * line (and kernel, and the number of reports) in err.  Accepts NULL (nothing). */
cl_oclgrind_finding cl_oclgrind_findings(cl_oclgrind *o, cl_msg *err);
/* Accepts NULL. */
void cl_oclgrind_close(cl_oclgrind *o);

#endif
