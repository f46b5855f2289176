/*
 * replay_main.c: the main a fuzz target links when it is not linked with libFuzzer, so every
 * build (gcc included) replays the corpora under `meson test` (suite fuzz-corpus).
 *
 *   fuzz_<target> PATH...
 *
 * Each PATH is a file or a directory, walked recursively (names starting with '.' are
 * skipped); the files are replayed in sorted order, each through LLVMFuzzerTestOneInput
 * from an exact-size heap copy (so ASan sees reads past the end), as one TAP test.  A target
 * reports a broken invariant by aborting: the TAP stream stops, the test fails, and the
 * "# replaying PATH" line just before names the file.  Arguments that start with '-' are
 * libFuzzer flags and are ignored, so scripts can hand both kinds of binary the same command.
 * A target that cannot run here (fuzz_unavailable) prints "1..0 # SKIP why".
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"
#include "tap.h"

/* Optional in a target; libFuzzer calls it before the first input when it exists. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Overrides fuzz_common.c's weak version: under `meson test` a missing device is a skip. */
void fuzz_unavailable(const char *why)
{
    tap_skip_all("%s", why);
    exit(0);
}

typedef struct path_list {
    char **paths;
    size_t count, cap;
    bool failed; /* allocation failure */
} path_list;

static void list_add(path_list *l, const char *path)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **grown = realloc(l->paths, cap * sizeof *grown);
        if (!grown) {
            l->failed = true;
            return;
        }
        l->paths = grown;
        l->cap = cap;
    }
    if (!(l->paths[l->count] = strdup(path)))
        l->failed = true;
    else
        l->count++;
}

/* Adds a file, or every file under a directory.  A path that cannot be read is added as is,
 * so it is reported as a failing test rather than silently skipped. */
static void collect(path_list *l, const char *path)
{
    struct stat st;
    DIR *dir;
    if (stat(path, &st) || !S_ISDIR(st.st_mode) || !(dir = opendir(path))) {
        list_add(l, path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(n);
        if (!child) {
            l->failed = true;
            break;
        }
        snprintf(child, n, "%s/%s", path, e->d_name);
        collect(l, child);
        free(child);
    }
    closedir(dir);
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads a whole file into an exact-size buffer (1 byte allocated for an empty file). */
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = NULL;
    if (!fseek(f, 0, SEEK_END)) {
        long n = ftell(f);
        if (n >= 0 && !fseek(f, 0, SEEK_SET) && (data = malloc(n ? (size_t)n : 1))) {
            *size = fread(data, 1, (size_t)n, f);
            if (*size != (size_t)n) {
                free(data);
                data = NULL;
            }
        }
    }
    fclose(f);
    return data;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: %s FILE|DIR...\nreplays every file through the fuzz target as a TAP "
                "test (libFuzzer flags starting with '-' are ignored)\n", argv[0]);
        return argc < 2 ? 2 : 0;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    path_list list = { 0 };
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            collect(&list, argv[i]);
    if (list.failed) {
        fprintf(stderr, "%s: out of memory listing the corpus\n", argv[0]);
        return 2;
    }
    if (list.count == 0)
        return tap_skip_all("no corpus files under the given paths");
    qsort(list.paths, list.count, sizeof *list.paths, compare_paths);
    tap t;
    tap_plan(&t, (unsigned)list.count);
    for (size_t i = 0; i < list.count; i++) {
        size_t size = 0;
        errno = 0;
        uint8_t *data = read_file(list.paths[i], &size);
        if (!data) {
            tap_ok(&t, false, "%s: cannot read (%s)", list.paths[i], strerror(errno ? errno : EIO));
        } else {
            tap_diag("replaying %s (%zu bytes)", list.paths[i], size);
            LLVMFuzzerTestOneInput(data, size);
            tap_ok(&t, true, "%s", list.paths[i]);
        }
        free(data);
        free(list.paths[i]);
    }
    free(list.paths);
    return tap_done(&t);
}
