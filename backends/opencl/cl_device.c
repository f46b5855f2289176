/*
 * cl_device.c: enumerates OpenCL platforms and devices through the ICD loader and picks
 * one for --device.  Strings from the driver are copied into fixed buffers, always
 * NUL-terminated and trimmed of trailing spaces (some drivers pad names).
 */
#include "cl_device.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cl_error.h"

/* The ICD loader's code for "no platform installed" (cl_ext.h, cl_khr_icd). */
#define CL_PLATFORM_NOT_FOUND_CODE (-1001)

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

static bool device_string(cl_device_id d, cl_device_info what, char *buf, size_t size,
                          cl_msg *err)
{
    cl_int rc = clGetDeviceInfo(d, what, size - 1, buf, NULL);
    if (rc == CL_INVALID_VALUE) { /* longer than our buffer: keep a prefix */
        size_t full = 0;
        clGetDeviceInfo(d, what, 0, NULL, &full);
        char *tmp = malloc(full + 1);
        if (!tmp)
            return cl_msg_set(err, "out of memory reading device information");
        rc = clGetDeviceInfo(d, what, full, tmp, NULL);
        tmp[full] = '\0';
        snprintf(buf, size, "%s", tmp);
        free(tmp);
    }
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clGetDeviceInfo", rc);
    buf[size - 1] = '\0';
    trim(buf);
    return true;
}

/* True when the device's extension string lists `name` as a whole word. */
static bool has_extension(cl_device_id d, const char *name)
{
    size_t size = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return false;
    char *ext = malloc(size + 1);
    if (!ext)
        return false;
    bool found = false;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, size, ext, NULL) == CL_SUCCESS) {
        ext[size] = '\0';
        size_t len = strlen(name);
        for (const char *p = strstr(ext, name); p && !found; p = strstr(p + 1, name))
            found = (p == ext || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0');
    }
    free(ext);
    return found;
}

static bool describe(cl_device_entry *e, cl_msg *err)
{
    cl_int rc;
    if (!device_string(e->device, CL_DEVICE_NAME, e->name, sizeof e->name, err)
        || !device_string(e->device, CL_DEVICE_VENDOR, e->vendor, sizeof e->vendor, err)
        || !device_string(e->device, CL_DRIVER_VERSION, e->driver, sizeof e->driver, err)
        || !device_string(e->device, CL_DEVICE_VERSION, e->version, sizeof e->version, err)
        || !device_string(e->device, CL_DEVICE_OPENCL_C_VERSION, e->c_version,
                          sizeof e->c_version, err)
        || !device_string(e->device, CL_DEVICE_PROFILE, e->profile, sizeof e->profile, err))
        return false;
    struct {
        cl_device_info what;
        void *dst;
        size_t size;
    } fixed[] = {
        { CL_DEVICE_TYPE, &e->type, sizeof e->type },
        { CL_DEVICE_SINGLE_FP_CONFIG, &e->fp_config, sizeof e->fp_config },
        { CL_DEVICE_MAX_WORK_GROUP_SIZE, &e->max_work_group, sizeof e->max_work_group },
        { CL_DEVICE_MAX_MEM_ALLOC_SIZE, &e->max_alloc, sizeof e->max_alloc },
        { CL_DEVICE_GLOBAL_MEM_SIZE, &e->global_mem, sizeof e->global_mem },
        { CL_DEVICE_MAX_COMPUTE_UNITS, &e->compute_units, sizeof e->compute_units },
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if ((rc = clGetDeviceInfo(e->device, fixed[i].what, fixed[i].size, fixed[i].dst, NULL))
            != CL_SUCCESS)
            return cl_fail(err, "clGetDeviceInfo", rc);
    /* OpenCL C: long is required in the full profile, optional (cles_khr_int64) in the
     * embedded one. */
    e->int64 = !strcmp(e->profile, "FULL_PROFILE") || has_extension(e->device, "cles_khr_int64");
    return true;
}

static bool platform_name(cl_platform_id p, char *buf, size_t size, cl_msg *err)
{
    cl_int rc = clGetPlatformInfo(p, CL_PLATFORM_NAME, size - 1, buf, NULL);
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clGetPlatformInfo(CL_PLATFORM_NAME)", rc);
    buf[size - 1] = '\0';
    trim(buf);
    return true;
}

/* Appends the devices of platform pi to the list. */
static bool list_platform(cl_device_list *list, cl_platform_id platform, unsigned pi,
                          cl_msg *err)
{
    char pname[128];
    if (!platform_name(platform, pname, sizeof pname, err))
        return false;
    cl_uint n = 0;
    cl_int rc = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (rc == CL_DEVICE_NOT_FOUND || n == 0)
        return true;
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clGetDeviceIDs", rc);
    cl_device_id *ids = calloc(n, sizeof *ids);
    cl_device_entry *grown = realloc(list->items, (list->count + n) * sizeof *grown);
    if (!ids || !grown) {
        free(ids);
        if (grown)
            list->items = grown;
        return cl_msg_set(err, "out of memory listing OpenCL devices");
    }
    list->items = grown;
    if ((rc = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, ids, NULL)) != CL_SUCCESS) {
        free(ids);
        return cl_fail(err, "clGetDeviceIDs", rc);
    }
    for (cl_uint d = 0; d < n; d++) {
        cl_device_entry *e = &list->items[list->count];
        memset(e, 0, sizeof *e);
        e->platform = platform;
        e->device = ids[d];
        e->platform_index = pi;
        e->device_index = d;
        snprintf(e->platform_name, sizeof e->platform_name, "%s", pname);
        if (!describe(e, err)) {
            free(ids);
            return cl_msg_prefix(err, "platform %u (%s) device %u", pi, pname, d);
        }
        list->count++;
    }
    free(ids);
    return true;
}

bool cl_devices_list(cl_device_list *list, cl_msg *err)
{
    memset(list, 0, sizeof *list);
    cl_uint n = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &n);
    if (rc == CL_PLATFORM_NOT_FOUND_CODE || (rc == CL_SUCCESS && n == 0))
        return true;
    if (rc != CL_SUCCESS)
        return cl_fail(err, "clGetPlatformIDs", rc);
    cl_platform_id *platforms = calloc(n, sizeof *platforms);
    if (!platforms)
        return cl_msg_set(err, "out of memory listing OpenCL platforms");
    if ((rc = clGetPlatformIDs(n, platforms, NULL)) != CL_SUCCESS) {
        free(platforms);
        return cl_fail(err, "clGetPlatformIDs", rc);
    }
    list->platform_count = n;
    for (cl_uint p = 0; p < n; p++)
        if (!list_platform(list, platforms[p], p, err)) {
            free(platforms);
            cl_devices_free(list);
            return false;
        }
    free(platforms);
    return true;
}

void cl_devices_free(cl_device_list *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

static bool contains_nocase(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (!strncasecmp(haystack, needle, n))
            return true;
    return n == 0;
}

/* How many .icd files the ICD loader reads (OCL_ICD_VENDORS when it names a folder, else
 * /etc/OpenCL/vendors), their names listed into names; -1 when the folder cannot be read. */
static int installed_icds(char *names, size_t size, const char **folder)
{
    const char *env = getenv("OCL_ICD_VENDORS");
    *folder = env && *env ? env : "/etc/OpenCL/vendors";
    DIR *dir = opendir(*folder);
    if (!dir) {
        /* ocl-icd also takes OCL_ICD_VENDORS naming one .icd file. */
        size_t n = strlen(*folder);
        const char *base = strrchr(*folder, '/');
        if (n < 5 || strcmp(*folder + n - 4, ".icd") || access(*folder, R_OK))
            return -1;
        snprintf(names, size, "%s", base ? base + 1 : *folder);
        return 1;
    }
    int count = 0;
    size_t used = 0;
    names[0] = '\0';
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".icd"))
            continue;
        if (used < size)
            used += (size_t)snprintf(names + used, size - used, "%s%s", count ? ", " : "", e->d_name);
        count++;
    }
    closedir(dir);
    return count;
}

/* No platform: none installed, or installed ones that failed to load or start (a driver's
 * library missing, or its start-up failing, as PoCL's does under a tight `ulimit -v`). */
static bool no_platform(cl_msg *err)
{
    char names[256];
    const char *folder;
    int icds = installed_icds(names, sizeof names, &folder);
    if (icds <= 0)
        return cl_msg_set(err, "no OpenCL platform found (no .icd file in %s: is an OpenCL "
                               "driver installed, or OCL_ICD_VENDORS set?)", folder);
    return cl_msg_set(err, "no OpenCL platform started although %s holds %d driver%s (%s): its "
                           "library failed to load or to start (a missing dependency, or a "
                           "memory limit such as ulimit -v too tight for it; OCL_ICD_DEBUG=15 "
                           "shows the loader's reasons)", folder, icds, icds == 1 ? "" : "s", names);
}

bool cl_devices_select(const cl_device_list *list, const char *selector, size_t *index,
                       cl_msg *err)
{
    if (list->count == 0 && list->platform_count == 0)
        return no_platform(err);
    if (list->count == 0)
        return cl_msg_set(err, "the OpenCL platforms found have no devices");
    if (!selector || !*selector) {
        for (size_t i = 0; i < list->count; i++)
            if (list->items[i].type & CL_DEVICE_TYPE_GPU) {
                *index = i;
                return true;
            }
        *index = 0;
        return true;
    }
    unsigned p, d;
    char tail;
    if (sscanf(selector, "%u:%u%c", &p, &d, &tail) == 2) {
        for (size_t i = 0; i < list->count; i++)
            if (list->items[i].platform_index == p && list->items[i].device_index == d) {
                *index = i;
                return true;
            }
        return cl_msg_set(err, "--device %s: no device %u on platform %u ('dmlcheck devices' "
                            "lists them)", selector, d, p);
    }
    /* A platform's whole name first, so `oclgrind` means the Oclgrind platform even where
     * another platform's device name happens to contain the word. */
    for (size_t i = 0; i < list->count; i++)
        if (!strcasecmp(list->items[i].platform_name, selector)) {
            *index = i;
            return true;
        }
    for (size_t i = 0; i < list->count; i++)
        if (contains_nocase(list->items[i].name, selector)
            || contains_nocase(list->items[i].platform_name, selector)) {
            *index = i;
            return true;
        }
    return cl_msg_set(err, "--device %s: no device or platform name contains '%s' "
                        "('dmlcheck devices' lists them)", selector, selector);
}

const char *cl_fp_config_str(cl_device_fp_config fp, char *buf, size_t size)
{
    static const struct {
        cl_device_fp_config bit;
        const char *name;
    } bits[] = {
        { CL_FP_DENORM, "denorm" },
        { CL_FP_INF_NAN, "inf_nan" },
        { CL_FP_ROUND_TO_NEAREST, "round_to_nearest" },
        { CL_FP_ROUND_TO_ZERO, "round_to_zero" },
        { CL_FP_ROUND_TO_INF, "round_to_inf" },
        { CL_FP_FMA, "fma" },
        { CL_FP_SOFT_FLOAT, "soft_float" },
        { CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, "correctly_rounded_divide_sqrt" },
    };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (fp & bits[i].bit) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? "," : "", bits[i].name);
            if (n < 0 || (size_t)n >= size - used)
                break;
            used += (size_t)n;
        }
    return buf;
}

const char *cl_device_type_str(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (type & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "ACCELERATOR";
    return "OTHER";
}
