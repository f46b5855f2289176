/*
 * test_cl_corpus.c: every case file under the folders given on the command line (the
 * conformance corpus) runs on the OpenCL backend and must agree bit for bit with the
 * file's expected outputs and with the reference, with no out-of-bounds write and an
 * unchanged input: the one check of harness/check.h, exact.  One TAP line per file, named by
 * its path below the folder; a failure prints the check's explanation, which ends with the
 * command that replays it.  A device that flushes fp32 denormals passes a `denormal` case by
 * matching the flushed answer (SEMANTICS D6), as `dmlcheck exec` judges it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "casefile.h"
#include "check.h"
#include "cl_test.h"
#include "replay.h"
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
    if (l->count) /* an empty folder leaves paths NULL, which qsort must not get */
        qsort(l->paths, l->count, sizeof *l->paths, compare_paths);
    return true;
}

/* One file through the check (exact: our backend implements dmlcheck's policies), against
 * the reference and the file's expected outputs, which every corpus file must have. */
static void run_file(tap *t, checker *k, const char *path, const char *name)
{
    dml_case c;
    dmlc_error err;
    check_result r;
    case_init(&c);
    if (!casefile_load(path, &c, &err) || !validate_case(&c, &err) || !check_case(k, &c, &r, &err)) {
        tap_ok(t, false, "%s", name);
        tap_diag("%s", err.msg);
        case_free(&c);
        return;
    }
    bool has_expected = c.has_expected_output || c.has_expected_indices;
    if (!tap_ok(t, r.j.verdict == VERDICT_PASS && has_expected, "%s", name)) {
        char replay[4200] = "dmlcheck exec --backend opencl";
        replay_append_arg(replay, sizeof replay, path);
        if (!has_expected)
            tap_diag("the case file has no expected outputs");
        check_print(stdout, "# ", &c, &r, replay);
    }
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
    /* The corpus files state dmlcheck's default policies: ignore NaNs, exact denormals. */
    check_options opt = { .exec = { .nan = NAN_POLICY_IGNORE },
                          .rules = { .device_flushes = info.flushes_denormals }, .exact = true };
    checker k;
    check_init(&k, &opencl_backend, b, &opt);

    tap t;
    tap_plan(&t, 0);
    for (int a = 1; a < argc; a++) {
        file_list files = { 0 };
        if (!tap_ok(&t, collect(argv[a], &files) && files.count > 0, "%s holds case files",
                    argv[a]))
            continue;
        size_t prefix = strlen(argv[a]) + 1;
        for (size_t i = 0; i < files.count; i++) {
            run_file(&t, &k, files.paths[i], files.paths[i] + prefix);
            free(files.paths[i]);
        }
        free(files.paths);
    }
    check_fini(&k);
    cl_test_close(&t, b);
    return tap_done(&t);
}
