/*
 * cl_device.h: the platforms and devices the ICD loader finds, what dmlcheck needs to know
 * about each, and the --device selector (P:D; a platform's whole name, case-insensitive,
 * for its first device; else a case-insensitive substring of the device or platform name;
 * default the first GPU, else the first device).  `oclgrind` also makes the ICD loader load
 * Oclgrind (cl_oclgrind.h).
 */
#ifndef DMLCHECK_CL_DEVICE_H
#define DMLCHECK_CL_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include <CL/cl.h>

#include <stdio.h>

#include "cl_error.h"

typedef struct cl_device_entry {
    cl_platform_id platform;
    cl_device_id device;
    unsigned platform_index, device_index; /* the P:D of --device */
    char platform_name[128];
    char name[128];
    char vendor[128];
    char driver[128];         /* CL_DRIVER_VERSION */
    char version[128];        /* CL_DEVICE_VERSION */
    char c_version[64];       /* CL_DEVICE_OPENCL_C_VERSION */
    char profile[32];         /* FULL_PROFILE or EMBEDDED_PROFILE */
    cl_device_type type;
    cl_device_fp_config fp_config; /* CL_DEVICE_SINGLE_FP_CONFIG */
    bool int64;               /* 64-bit integers in kernels (full profile or cles_khr_int64) */
    size_t max_work_group;
    cl_ulong max_alloc;       /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    cl_ulong global_mem;
    cl_uint compute_units;
} cl_device_entry;

typedef struct cl_device_list {
    cl_device_entry *items;
    size_t count;
    unsigned platform_count;
} cl_device_list;

/* Lists every device of every platform.  No platform at all is not an error: the list is
 * empty and platform_count is 0.  False (err says which call failed) on a real failure. */
bool cl_devices_list(cl_device_list *list, cl_msg *err);
void cl_devices_free(cl_device_list *list);

/* Index into list of the device `selector` names (NULL or "" for the default). */
bool cl_devices_select(const cl_device_list *list, const char *selector, size_t *index,
                       cl_msg *err);

/* "denorm,inf_nan,round_to_nearest,fma" style list of CL_DEVICE_SINGLE_FP_CONFIG bits. */
const char *cl_fp_config_str(cl_device_fp_config fp, char *buf, size_t size);
/* "GPU", "CPU", "ACCELERATOR", ... */
const char *cl_device_type_str(cl_device_type type);
/* backend_vtable.list_devices (cl_device_list.c). */
int cl_list_devices(FILE *f, const char *selector, cl_msg *err);

#endif
