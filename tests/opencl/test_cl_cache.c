/*
 * test_cl_cache.c: the program binary cache.  In a fresh cache folder the first open builds
 * from source and saves the binary; the second loads it and gives the same answers; a
 * corrupted cache file is ignored (rebuilt from source and saved again), never loaded.
 * Different build options never share a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../reference/case_builder.h"
#include "check.h"
#include "cl_test.h"
#include "validate.h"

/* Opens, checks where the program came from, runs one case through the exact check (the
 * failure is explained without a replay line: rerunning this test is the replay). */
static void open_and_check(tap *t, const char *options, bool want_cached, const char *what,
                           char *path_out, size_t path_size)
{
    backend *b;
    if (!tap_ok(t, cl_test_open(options, &b) == CL_TEST_OPENED, "%s: open", what))
        return;
    const cl_open_stats *st = cl_backend_open_stats(b);
    if (!tap_ok(t, st->program_from_cache == want_cached, "%s: program %s", what,
                want_cached ? "loaded from the cache" : "built from source"))
        tap_diag("cache file %s", st->cache_path);
    if (!want_cached)
        tap_ok(t, st->program_saved, "%s: binary saved to the cache", what);
    tap_diag("%s: program ready in %.1f ms", what, st->program_seconds * 1e3);
    if (path_out)
        snprintf(path_out, path_size, "%s", st->cache_path);

    dml_case c;
    case_init(&c);
    /* No denormals in this integer case, so the device's flushing does not matter. */
    UINT sizes[1] = { 9 }, axes[1] = { 0 };
    cb_arg_case(&c, OP_ARGMAX, DML_TENSOR_DATA_TYPE_INT16, 1, sizes, NULL, 1, axes,
                DML_AXIS_DIRECTION_DECREASING, DML_TENSOR_DATA_TYPE_UINT64);
    cb_alloc_input(&c);
    for (uint64_t i = 0; i < 9; i++)
        cb_set_input(&c, i, (i * 5) % 4);
    dmlc_error err = { "" };
    check_result r;
    check_options opt = { .exec = { NAN_POLICY_IGNORE, false }, .exact = true };
    checker k;
    check_init(&k, &opencl_backend, b, &opt);
    bool ok = validate_case(&c, &err) && check_case(&k, &c, &r, &err) && r.j.verdict == VERDICT_PASS;
    if (!ok && err.msg[0])
        tap_diag("%s", err.msg);
    else if (!ok)
        check_print(stdout, "# ", &c, &r, NULL);
    check_fini(&k);
    tap_ok(t, ok, "%s: the program computes the reference's answer", what);
    case_free(&c);
    cl_test_close(t, b);
}

int main(void)
{
    char dir[] = "/tmp/dmlcheck-cl-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        printf("1..1\nnot ok 1 - create a temporary cache folder\n");
        return 1;
    }
    setenv("DMLCHECK_CL_CACHE_DIR", dir, 1);
    unsetenv("DMLCHECK_CL_CACHE");
    backend *probe;
    cl_test_open_result r = cl_test_open("-DDMLCHECK_CACHE_PROBE", &probe);
    if (r != CL_TEST_OPENED) {
        rmdir(dir);
        return cl_test_open_exit_code(r);
    }
    char probe_path[512];
    snprintf(probe_path, sizeof probe_path, "%s", cl_backend_open_stats(probe)->cache_path);
    opencl_backend.close(probe);

    tap t;
    tap_plan(&t, 0);
    char path[512] = "";
    open_and_check(&t, NULL, false, "cold", path, sizeof path);
    open_and_check(&t, NULL, true, "warm", NULL, 0);
    tap_ok(&t, strcmp(path, probe_path) != 0, "other build options use another cache file");

    FILE *f = fopen(path, "r+b");
    if (tap_ok(&t, f != NULL, "open the cache file to corrupt it")) {
        fseek(f, 30, SEEK_SET); /* inside the key */
        int byte = fgetc(f);
        fseek(f, 30, SEEK_SET);
        fputc(byte ^ 0xff, f);
        fclose(f);
    }
    open_and_check(&t, NULL, false, "after corruption", NULL, 0);
    open_and_check(&t, NULL, true, "rebuilt cache", NULL, 0);

    remove(path);
    remove(probe_path);
    rmdir(dir);
    return tap_done(&t);
}
