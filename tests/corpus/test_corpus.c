/* test_corpus.c: every conformance case file (corpus/conformance/<stem>/NAME.json) through
 * the reference, in process: read, validate at its level, run, compare bit-exactly with the file's
 * expected outputs.  One TAP line per file, named after it; a failing line's diagnostics name
 * the first differing element and end with the command that replays it.  A final line checks
 * that every file survives casefile_write -> casefile_parse unchanged, and the run fails when
 * an operator of ops.def has no conformance files at all. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "compare.h"
#include "reference.h"
#include "tap.h"
#include "validate.h"

#define MAX_FILES 1024

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted paths of the .json files in dir; returns how many (at most MAX_FILES). */
static size_t list_cases(const char *dir, char **paths)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_FILES;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
            paths[n] = malloc(strlen(dir) + len + 2);
            sprintf(paths[n++], "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    qsort(paths, n, sizeof *paths, compare_names);
    return n;
}

/* Reads, validates, runs and compares one file; diagnostics on failure. */
static bool reference_agrees(const char *path)
{
    dml_case c;
    dmlc_error err;
    case_init(&c);
    if (!casefile_load(path, &c, &err) || !validate_case(&c, &err)) {
        tap_diag("%s", err.msg);
        case_free(&c);
        return false;
    }
    case_outputs out;
    exec_options opt = { NAN_POLICY_IGNORE, false };
    mismatch m;
    bool ok = case_outputs_alloc(&out, &c) && (ref_run(&c, &opt, &out), true)
        && (c.has_expected_output || c.has_expected_indices) && compare_with_expected(&c, &out, &m);
    if (!ok && out.output) {
        char e[96], g[96];
        const case_tensor *t = m.tensor && !strcmp(m.tensor, "indices") ? &c.indices : &c.output;
        if (!c.has_expected_output && !c.has_expected_indices)
            tap_diag("%s has no expected outputs", path);
        else
            tap_diag("%s[%" PRIu64 "]: expected %s, got %s", m.tensor, m.logical_index,
                     compare_format_value(t->type, m.expected_bits, e, sizeof e),
                     compare_format_value(t->type, m.got_bits, g, sizeof g));
        tap_diag("replay: dmlcheck exec --backend reference %s", path);
    }
    case_outputs_free(&out);
    case_free(&c);
    return ok;
}

/* write(parse(file)) parses back to the same text: the writer loses nothing a file says. */
static bool round_trips(const char *path)
{
    dml_case c, back;
    dmlc_error err;
    case_init(&c);
    case_init(&back);
    bool ok = casefile_load(path, &c, &err);
    char *first = ok ? casefile_write(&c, NULL) : NULL;
    ok = first && casefile_parse(first, strlen(first), &back, &err);
    char *second = ok ? casefile_write(&back, NULL) : NULL;
    ok = second && !strcmp(first, second)
        && !memcmp(c.input_data, back.input_data, case_tensor_bytes(&c.input));
    if (!ok)
        tap_diag("%s does not round-trip: %s", path, err.msg);
    free(first);
    free(second);
    case_free(&c);
    case_free(&back);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_corpus CORPUS_DIR (corpus/conformance)\n");
        return 2;
    }
    tap t;
    tap_plan(&t, 0);
    bool all_round_trip = true;
    for (int op = 0; op < OP_COUNT; op++) {
        char dir[4096], *paths[MAX_FILES];
        snprintf(dir, sizeof dir, "%s/%s", argv[1], op_table[op].stem);
        size_t n = list_cases(dir, paths);
        tap_ok(&t, n > 0, "%s_has_conformance_files", op_table[op].stem);
        for (size_t i = 0; i < n; i++) {
            const char *name = strrchr(paths[i], '/') + 1;
            tap_ok(&t, reference_agrees(paths[i]), "%.*s", (int)(strlen(name) - 5), name);
            all_round_trip &= round_trips(paths[i]);
            free(paths[i]);
        }
    }
    tap_ok(&t, all_round_trip, "every_conformance_file_round_trips_through_the_writer");
    return tap_done(&t);
}
