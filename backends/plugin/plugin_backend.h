/*
 * plugin_backend.h: the plug-in backend (plugin_backend.c), also for backends that are
 * plug-ins linked into dmlcheck (the OpenCL backend): the same checks, the same calls, the
 * table taken from the link instead of dlopen.
 */
#ifndef DMLCHECK_PLUGIN_BACKEND_H
#define DMLCHECK_PLUGIN_BACKEND_H

#include <dmlcheck/plugin.h>

#include "backend.h"

extern const backend_vtable plugin_backend;

/* Opens a linked plug-in's table as a backend; `label` names it in messages ("opencl");
 * args are its key=value words, comma-separated (NULL: none). */
backend *plugin_open_table(const dmlcheck_plugin *api, const char *label, const char *device,
                           const char *args, dmlc_error *err);
/* The context the plug-in's open returned. */
void *plugin_context(backend *b);
run_status plugin_run(backend *b, const dml_case *c, const exec_options *opt, case_outputs *out,
                      dmlc_error *err);
/* backend_vtable.run_batch: through the plug-in's execute_batch where it has one, else case
 * by case. */
void plugin_run_batch(backend *b, backend_batch_item *items, size_t count);
void plugin_info(backend *b, backend_info *info);
/* backend_vtable.run_profile: the last single run's harness phases (the input's copy, the
 * plug-in's execute, the checks).  A linked plug-in (the OpenCL backend) adds its own. */
bool plugin_run_profile(backend *b, backend_run_profile *profile);
void plugin_close(backend *b);

#endif
