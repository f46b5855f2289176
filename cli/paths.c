/*
 * paths.c: dmlcheck's data directories for the running program (paths.h).  The build writes
 * dmlcheck_paths.h (cli/meson.build): the install directories relative to bindir and
 * absolute, and the source and build roots.
 */
#include "paths.h"
#include "dmlcheck_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *name, *summary;
} keys[PATH_COUNT] = {
    [PATH_CORPUS] = { "corpus", "the conformance corpus: exec --corpus, or CORPUS/*/*.json" },
    [PATH_PYTHON] = { "python", "the Python helper dmlcheck_adapter.py: PYTHONPATH=$(dmlcheck path python)" },
    [PATH_ADAPTERS] = { "adapters", "the adapters: python3 ADAPTERS/numpy/numpy_adapter.py" },
    [PATH_EXAMPLES] = { "examples", "the example plug-in's source, example_plugin.c" },
    [PATH_EXAMPLE_PLUGIN] = { "example-plugin", "the example plug-in, built: --backend plugin:PATH" },
    [PATH_PLUGINS] = { "plugins", "dmlcheck's own plug-ins (libdmlcheck_opencl.so)" },
    [PATH_DATA] = { "data", "dmlcheck's data directory" },
};

const char *paths_key_name(paths_key k) { return keys[k].name; }
const char *paths_key_summary(paths_key k) { return keys[k].summary; }

bool paths_key_from_name(const char *name, paths_key *k)
{
    for (int i = 0; i < PATH_COUNT; i++)
        if (!strcmp(name, keys[i].name)) {
            *k = (paths_key)i;
            return true;
        }
    return false;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* text into out[PATH_MAX], cut at its end (a path that long is unusable anyway). */
static void copy_path(char *out, const char *text)
{
    size_t n = strlen(text);
    if (n >= PATH_MAX)
        n = PATH_MAX - 1;
    memcpy(out, text, n);
    out[n] = '\0';
}

/* dir/rel, made canonical when it exists. */
static void join(char *out, const char *dir, const char *rel)
{
    char joined[PATH_MAX * 2];
    if (snprintf(joined, sizeof joined, "%s/%s", dir, rel) >= (int)sizeof joined)
        joined[0] = '\0';
    char *real = realpath(joined, NULL);
    copy_path(out, real ? real : joined);
    free(real);
}

static void fill(dmlcheck_paths *p, const char *data, const char *plugins, const char *origin)
{
    join(p->path[PATH_DATA], data, ".");
    join(p->path[PATH_CORPUS], data, "corpus/conformance");
    join(p->path[PATH_ADAPTERS], data, "adapters");
    join(p->path[PATH_PYTHON], data, "adapters/python");
    join(p->path[PATH_EXAMPLES], data, "examples/plugin");
    join(p->path[PATH_PLUGINS], plugins, ".");
    join(p->path[PATH_EXAMPLE_PLUGIN], plugins, "libdmlcheck_example.so");
    p->origin = origin;
}

void paths_find(dmlcheck_paths *p)
{
    char exe[PATH_MAX], exe_dir[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            copy_path(exe_dir, exe);
        }
    }
    char *build = realpath(DMLCHECK_BUILD_ROOT, NULL), *here = realpath(exe_dir, NULL);
    bool in_build_tree = build && here && !strcmp(build, here);
    free(build);
    free(here);
    if (in_build_tree) {
        /* The example plug-in is built in its own folder; dmlcheck's own plug-in in another. */
        fill(p, DMLCHECK_SOURCE_ROOT, DMLCHECK_BUILD_ROOT "/examples/plugin", "build tree");
        join(p->path[PATH_PLUGINS], DMLCHECK_BUILD_ROOT, "backends/opencl");
        return;
    }
    char data[PATH_MAX * 2], plugins[PATH_MAX * 2], corpus[PATH_MAX * 3];
    if (snprintf(data, sizeof data, "%s/%s", exe_dir, DMLCHECK_DATA_FROM_BINDIR) >= (int)sizeof data ||
        snprintf(plugins, sizeof plugins, "%s/%s", exe_dir, DMLCHECK_PLUGINS_FROM_BINDIR) >= (int)sizeof plugins ||
        snprintf(corpus, sizeof corpus, "%s/corpus/conformance", data) >= (int)sizeof corpus)
        exe_dir[0] = '\0';
    bool relocatable = strlen(DMLCHECK_DATA_FROM_BINDIR) > 0; /* a build-time constant */
    if (exe_dir[0] && relocatable && is_dir(corpus))
        fill(p, data, plugins, "installed");
    else
        fill(p, DMLCHECK_DATA_DIR, DMLCHECK_PLUGINS_DIR, "configured prefix");
}
