/*
 * paths.h: where dmlcheck's data is for the program that is running: an installed tree
 * (share/dmlcheck and <libdir>/dmlcheck, found relative to the executable, so a DESTDIR or a
 * moved prefix works), the source and build trees for a dmlcheck run from its build directory,
 * else the configured prefix.  `dmlcheck path` prints them; `exec --corpus` uses the corpus.
 */
#ifndef DMLCHECK_CLI_PATHS_H
#define DMLCHECK_CLI_PATHS_H

#include <limits.h>
#include <stdbool.h>

typedef enum paths_key {
    PATH_CORPUS,         /* the conformance corpus: CORPUS/<operator>/<case>.json */
    PATH_PYTHON,         /* the directory holding dmlcheck_adapter.py (for PYTHONPATH) */
    PATH_ADAPTERS,       /* adapters/<name>/<name>_adapter.py, the Python helper among them */
    PATH_EXAMPLES,       /* the example plug-in's source, example_plugin.c */
    PATH_EXAMPLE_PLUGIN, /* the example plug-in built: libdmlcheck_example.so */
    PATH_PLUGINS,        /* dmlcheck's own plug-ins (libdmlcheck_opencl.so) */
    PATH_DATA,           /* share/dmlcheck (the source tree for a build-tree dmlcheck) */
    PATH_COUNT
} paths_key;

typedef struct dmlcheck_paths {
    char path[PATH_COUNT][PATH_MAX];
    const char *origin; /* "installed", "build tree" or "configured prefix" */
} dmlcheck_paths;

/* Fills p for this executable. */
void paths_find(dmlcheck_paths *p);
/* The key's name as `dmlcheck path` takes it ("corpus", "example-plugin"), and back. */
const char *paths_key_name(paths_key k);
bool paths_key_from_name(const char *name, paths_key *k);
/* What the key is, in a few words. */
const char *paths_key_summary(paths_key k);

#endif
