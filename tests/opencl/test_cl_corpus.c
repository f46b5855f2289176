/*
 * test_cl_corpus.c: every case file under the folders given on the command line (the
 * conformance corpus) runs on the OpenCL backend and must agree bit for bit with the
 * file's expected outputs, with no out-of-bounds write and an unchanged input.  One TAP line
 * per file, named by its path below the folder; a failure prints the difference and the
 * command that replays it.  A device that flushes fp32 denormals passes a `denormal` case
 * by matching the flushed answer (SEMANTICS D6), as `dmlcheck exec` judges it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "casefile.h"
#include "cl_test.h"
#include "compare.h"
#include "reference.h"
#include "validate.h"

typedef struct file_list {
    char **paths;
    size_t count, capacity;
} file_list;

static bool list_push(file_list *l, const char *path)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 64;
        char **grown = realloc(l->paths, capacity * sizeof *grown);
        if (!grown)
            return false;
        l->paths = grown;
        l->capacity = capacity;
    }
    return (l->paths[l->count++] = strdup(path)) != NULL;
}

/* Appends every *.json file below dir (recursively) to l. */
static bool collect_dir(const char *dir, file_list *l)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            ok = false;
        else if (S_ISDIR(st.st_mode))
            ok = collect_dir(path, l);
        else if (strlen(e->d_name) > 5 && !strcmp(e->d_name + strlen(e->d_name) - 5, ".json"))
            ok = list_push(l, path);
    }
    closedir(d);
    return ok;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool collect(const char *dir, file_list *l)
{
    if (!collect_dir(dir, l))
        return false;
    qsort(l->paths, l->count, sizeof *l->paths, compare_paths);
    return true;
}

/* True when got is the answer a device that flushes fp32 denormals may give. */
static bool flushed_answer(const dml_case *c, const exec_options *opt, const case_outputs *got)
{
    case_outputs exact, flushed;
    if (!case_outputs_alloc(&exact, c))
        return false;
    unsigned classes = ref_classify(c, opt, &exact, &flushed);
    bool ok = (classes & CASE_CLASS_DENORMAL) && compare_outputs(c, &flushed, got, NULL);
    case_outputs_free(&exact);
    case_outputs_free(&flushed);
    return ok;
}

static void run_file(tap *t, backend *b, bool flushes, const char *path, const char *name)
{
    dml_case c;
    dmlc_error err;
    case_init(&c);
    exec_options opt = { .nan = NAN_POLICY_IGNORE, .flush_denormals = false };
    if (!casefile_load(path, &c, &err) || !validate_case(&c, &err)) {
        tap_ok(t, false, "%s", name);
        tap_diag("%s", err.msg);
        case_free(&c);
        return;
    }
    case_outputs out;
    if (!case_outputs_alloc(&out, &c)) {
        tap_ok(t, false, "%s (out of memory)", name);
        case_free(&c);
        return;
    }
    run_status s = opencl_backend.run(b, &c, &opt, &out, &err);
    mismatch m;
    bool same = s == RUN_OK && (!c.has_expected_output || compare_with_expected(&c, &out, &m)
                                || (flushes && flushed_answer(&c, &opt, &out)));
    if (!tap_ok(t, same && c.has_expected_output, "%s", name)) {
        if (s != RUN_OK)
            tap_diag("%s: %s", run_status_name(s), err.msg);
        else if (!c.has_expected_output)
            tap_diag("the case file has no expected outputs");
        else
            tap_diag("%s[%llu]: expected 0x%llx, got 0x%llx (%llu elements differ)", m.tensor,
                     (unsigned long long)m.logical_index, (unsigned long long)m.expected_bits,
                     (unsigned long long)m.got_bits, (unsigned long long)m.count);
        tap_diag("replay: dmlcheck exec --backend opencl %s", path);
    }
    case_outputs_free(&out);
    case_free(&c);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS-FOLDER...\n", argv[0]);
        return 2;
    }
    backend *b;
    cl_test_open_result r = cl_test_open(NULL, &b);
    if (r != CL_TEST_OPENED)
        return cl_test_open_exit_code(r);
    backend_info info;
    opencl_backend.info(b, &info);

    tap t;
    tap_plan(&t, 0);
    for (int a = 1; a < argc; a++) {
        file_list files = { 0 };
        if (!tap_ok(&t, collect(argv[a], &files) && files.count > 0, "%s holds case files",
                    argv[a]))
            continue;
        size_t prefix = strlen(argv[a]) + 1;
        for (size_t i = 0; i < files.count; i++) {
            run_file(&t, b, info.flushes_denormals, files.paths[i], files.paths[i] + prefix);
            free(files.paths[i]);
        }
        free(files.paths);
    }
    cl_test_close(&t, b);
    return tap_done(&t);
}
