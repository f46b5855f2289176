/*
 * cl_program.c: builds the program from the embedded sources, or loads it from the binary
 * cache (cl_program.h says how files are named and where they live).
 *
 * A cache file is: the magic line CACHE_MAGIC, the 16-byte key, the binary's length as 8
 * little-endian bytes, then the binary.  A file whose magic, key or length disagrees is
 * ignored.  Files are written to a temporary name and renamed, so a reader running at the
 * same time (parallel tests) sees either no file or a whole one.
 */
#include "cl_program.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cl_error.h"
#include "cl_oclgrind.h"
#include "cl_sources.h"

#define CACHE_MAGIC "dmlcheck-cl-binary-1\n"
#define KEY_BYTES 16

/* Build options every program gets: none change semantics (no fast-math, no
 * -cl-denorms-are-zero: the kernels do no float arithmetic). */
#define BASE_OPTIONS ""

/* Options for what the device is: CPU devices get software prefetch in the long scans
 * (arg_reduce.cl, AR_PREFETCH), which their caches need and which GPUs do not; Oclgrind,
 * which checks every access, none. */
static const char *device_options(const cl_device_entry *dev)
{
    bool cpu = dev->type & CL_DEVICE_TYPE_CPU;
    return cpu && strcmp(dev->platform_name, CL_OCLGRIND_PLATFORM) ? "-DDMLCHECK_CL_PREFETCH" : "";
}

typedef struct cache_key {
    uint64_t h[2];
} cache_key;

/* FNV-1a over each part, two independent 64-bit lanes; parts are separated by a NUL so
 * ("ab","c") and ("a","bc") differ. */
static void key_add(cache_key *k, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0;; i++) {
        unsigned char byte = p[i];
        k->h[0] = (k->h[0] ^ byte) * 0x100000001b3ull;
        k->h[1] = (k->h[1] ^ byte) * 0x100000001b3ull;
        k->h[1] ^= k->h[1] >> 29;
        if (!byte)
            break;
    }
}

static cache_key key_compute(const cl_device_entry *dev, const char *options)
{
    cache_key k = { { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull } };
    for (size_t i = 0; i < cl_embedded_count; i++)
        key_add(&k, cl_embedded_sources[i]);
    const char *parts[] = { options, dev->platform_name, dev->name, dev->vendor, dev->version,
                            dev->driver, dev->c_version };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        key_add(&k, parts[i]);
    return k;
}

static void key_bytes(const cache_key *k, unsigned char out[KEY_BYTES])
{
    for (unsigned i = 0; i < KEY_BYTES; i++)
        out[i] = (unsigned char)(k->h[i / 8] >> (8 * (i % 8)));
}

/* mkdir -p for the (at most a few levels deep) cache folder. */
static bool make_dirs(const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return false;
            *p = '/';
        }
    return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

/* The cache file path for key k, or false when the cache is off or has no home. */
static bool cache_path(const cache_key *k, char *path, size_t size, char *dir, size_t dir_size)
{
    const char *off = getenv("DMLCHECK_CL_CACHE");
    if (off && !strcmp(off, "0"))
        return false;
    const char *explicit_dir = getenv("DMLCHECK_CL_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (explicit_dir && *explicit_dir)
        snprintf(dir, dir_size, "%s", explicit_dir);
    else if (xdg && *xdg)
        snprintf(dir, dir_size, "%s/dmlcheck", xdg);
    else if (home && *home)
        snprintf(dir, dir_size, "%s/.cache/dmlcheck", home);
    else
        return false;
    int n = snprintf(path, size, "%s/cl-%016llx%016llx.bin", dir, (unsigned long long)k->h[0],
                     (unsigned long long)k->h[1]);
    return n > 0 && (size_t)n < size;
}

/* Reads a cache file; returns the malloc'd binary and its length, or NULL. */
static unsigned char *cache_read(const char *path, const cache_key *k, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char magic[sizeof CACHE_MAGIC - 1];
    unsigned char key[KEY_BYTES], want[KEY_BYTES], size_le[8];
    unsigned char *bin = NULL;
    key_bytes(k, want);
    if (fread(magic, 1, sizeof magic, f) == sizeof magic
        && !memcmp(magic, CACHE_MAGIC, sizeof magic)
        && fread(key, 1, KEY_BYTES, f) == KEY_BYTES && !memcmp(key, want, KEY_BYTES)
        && fread(size_le, 1, 8, f) == 8) {
        uint64_t size = 0;
        for (int i = 7; i >= 0; i--)
            size = size << 8 | size_le[i];
        if (size > 0 && size < (1ull << 31) && (bin = malloc(size)) != NULL) {
            if (fread(bin, 1, size, f) == size && fgetc(f) == EOF) {
                *len = size;
            } else {
                free(bin);
                bin = NULL;
            }
        }
    }
    fclose(f);
    return bin;
}

static bool cache_write(const char *dir, const char *path, const cache_key *k,
                        const unsigned char *bin, size_t len)
{
    if (!make_dirs(dir))
        return false;
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    unsigned char key[KEY_BYTES], size_le[8];
    key_bytes(k, key);
    for (int i = 0; i < 8; i++)
        size_le[i] = (unsigned char)((uint64_t)len >> (8 * i));
    bool ok = fwrite(CACHE_MAGIC, 1, sizeof CACHE_MAGIC - 1, f) == sizeof CACHE_MAGIC - 1
              && fwrite(key, 1, KEY_BYTES, f) == KEY_BYTES && fwrite(size_le, 1, 8, f) == 8
              && fwrite(bin, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) == 0)
        return true;
    remove(tmp);
    return false;
}

/* Writes the build log of a failed build to stderr, and its start into err. */
static bool report_build_failure(cl_program program, const cl_device_entry *dev, cl_int rc,
                                 const char *origin, cl_msg *err)
{
    size_t size = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size)
            == CL_SUCCESS
        && (log = malloc(size + 1)) != NULL
        && clGetProgramBuildInfo(program, dev->device, CL_PROGRAM_BUILD_LOG, size, log, NULL)
               == CL_SUCCESS) {
        log[size] = '\0';
    } else {
        free(log);
        log = NULL;
    }
    fprintf(stderr, "dmlcheck: OpenCL build log (%s, device %s):\n%s\n", origin, dev->name,
            log ? log : "(no build log)");
    cl_msg_set(err, "clBuildProgram (%s) failed: %s (%d); build log: %.600s", origin,
            cl_error_name(rc), (int)rc, log ? log : "(none)");
    free(log);
    return false;
}

static bool build_from_source(cl_context ctx, const cl_device_entry *dev, const char *options,
                              cl_program *out, cl_msg *err)
{
    cl_int rc;
    cl_program program = clCreateProgramWithSource(ctx, (cl_uint)cl_embedded_count,
                                                   (const char **)cl_embedded_sources, NULL,
                                                   &rc);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clCreateProgramWithSource", rc);
    rc = clBuildProgram(program, 1, &dev->device, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        report_build_failure(program, dev, rc, "from source", err);
        clReleaseProgram(program);
        return false;
    }
    *out = program;
    return true;
}

/* The built program's binary for dev (malloc'd), or NULL when the driver gives none. */
static unsigned char *program_binary(cl_program program, size_t *len)
{
    size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL)
            != CL_SUCCESS
        || size == 0)
        return NULL;
    unsigned char *bin = malloc(size);
    if (!bin)
        return NULL;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    *len = size;
    return bin;
}

static bool load_from_binary(cl_context ctx, const cl_device_entry *dev, const char *options,
                             const unsigned char *bin, size_t len, cl_program *out)
{
    cl_int rc, status;
    cl_program program = clCreateProgramWithBinary(ctx, 1, &dev->device, &len, &bin, &status,
                                                   &rc);
    if (rc != CL_SUCCESS || status != CL_SUCCESS)
        return false;
    if (clBuildProgram(program, 1, &dev->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(program);
        return false;
    }
    *out = program;
    return true;
}

bool cl_program_build(cl_context ctx, const cl_device_entry *dev, const char *extra_options,
                      cl_program_result *res, cl_msg *err)
{
    memset(res, 0, sizeof *res);
    char options[512];
    snprintf(options, sizeof options, "%s %s %s", BASE_OPTIONS, device_options(dev),
             extra_options ? extra_options : "");

    cache_key key = key_compute(dev, options);
    char dir[400];
    bool cached = cache_path(&key, res->cache_path, sizeof res->cache_path, dir, sizeof dir);
    if (cached) {
        size_t len = 0;
        unsigned char *bin = cache_read(res->cache_path, &key, &len);
        if (bin) {
            res->from_cache = load_from_binary(ctx, dev, options, bin, len, &res->program);
            free(bin);
            if (res->from_cache)
                return true;
        }
    } else {
        res->cache_path[0] = '\0';
    }
    if (!build_from_source(ctx, dev, options, &res->program, err))
        return false;
    if (cached) {
        size_t len = 0;
        unsigned char *bin = program_binary(res->program, &len);
        if (bin) {
            res->saved = cache_write(dir, res->cache_path, &key, bin, len);
            free(bin);
        }
    }
    return true;
}
