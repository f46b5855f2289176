/* backend.c: the backend registry.  The OpenCL backend registers itself here when built. */
#include "backend.h"

#include <string.h>

extern const backend_vtable reference_backend;
extern const backend_vtable plugin_backend;
extern const backend_vtable process_backend;
#ifdef DMLCHECK_HAVE_OPENCL
extern const backend_vtable opencl_backend;
#endif

const backend_vtable *const backend_registry[] = {
    &reference_backend,
#ifdef DMLCHECK_HAVE_OPENCL
    &opencl_backend,
#endif
    &plugin_backend,
    &process_backend,
    NULL,
};

const backend_vtable *backend_find(const char *name)
{
    for (size_t i = 0; backend_registry[i]; i++)
        if (!strcmp(backend_registry[i]->name, name))
            return backend_registry[i];
    return NULL;
}

const backend_vtable *backend_select(const char *text, const char **args)
{
    const char *colon = text ? strchr(text, ':') : NULL;
    size_t len = colon ? (size_t)(colon - text) : (text ? strlen(text) : 0);
    *args = colon ? colon + 1 : NULL;
    for (size_t i = 0; text && backend_registry[i]; i++)
        if (strlen(backend_registry[i]->name) == len && !strncmp(backend_registry[i]->name, text, len))
            return backend_registry[i];
    return NULL;
}

bool backend_no_args(const char *name, const char *args, dmlc_error *err)
{
    if (!args)
        return true;
    return err_set(err, "backend %s takes no arguments, but --backend gave '%s:%s'", name, name, args);
}

bool run_status_has_outputs(run_status s)
{
    switch (s) {
    case RUN_OK:
#define X(kind, status) case RUN_##status:
        RUN_FINDINGS(X)
#undef X
        return true;
    default:
        return false;
    }
}

const char *run_status_name(run_status s)
{
    switch (s) {
    case RUN_OK: return "ok";
    case RUN_BACKEND_ERROR: return "backend_error";
    case RUN_UNSUPPORTED: return "unsupported";
#define X(kind, status) case RUN_##status: return #kind;
    RUN_FINDINGS(X)
#undef X
    case RUN_REJECTED: return "rejected";
    case RUN_UNSUPPORTED_CLAIMED: return "unsupported_claimed";
    case RUN_CRASHED: return "crashed";
    case RUN_HUNG: return "hung";
    }
    return "?";
}
