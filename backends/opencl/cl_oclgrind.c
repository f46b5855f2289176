/*
 * cl_oclgrind.c: Oclgrind as a run device (cl_oclgrind.h).  Checked by hand against Oclgrind
 * 21.10 with ocl-icd 2.3.1 (Debian bookworm):
 *
 *   - ocl-icd loads $OCL_ICD_VENDORS as the ICD library itself when it names neither a
 *     folder nor a .icd file, and reads it at the process's first OpenCL call: setting it to
 *     liboclgrind-rt-icd.so makes Oclgrind the only platform, whatever /etc/OpenCL/vendors
 *     holds (the device selection still asks for the platform by name, cl_device.c).
 *   - Oclgrind opens $OCLGRIND_LOG when the context is created and writes each report as
 *     "\n<first line>\n\t<details>...\n", flushed at once: after a blocking read-back the
 *     run's reports are all in the file.  The name can be removed once the context exists.
 *   - It stops reporting after $OCLGRIND_MAX_ERRORS reports per process (default 1000):
 *     without a higher limit, every case after the thousandth report would pass unseen.
 *   - It keeps writing at its own position after the file is truncated (the file becomes
 *     sparse), so truncating after each read keeps a long run with a buggy kernel from
 *     filling the disk.
 *   - OCLGRIND_CHECK_API reports API misuse on stderr, not in the log: it shows in the
 *     worker's stderr, and the failing call's own error code reaches the case as usual.
 */
#include "cl_oclgrind.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <unistd.h>

/* Where the Oclgrind package puts its ICD library (Debian first; the same list as
 * tests/opencl/meson.build). */
static const char *const icd_candidates[] = {
    "/usr/lib/oclgrind/liboclgrind-rt-icd.so",
    "/usr/lib/x86_64-linux-gnu/oclgrind/liboclgrind-rt-icd.so",
    "/usr/lib64/oclgrind/liboclgrind-rt-icd.so",
    "/usr/local/lib/oclgrind/liboclgrind-rt-icd.so",
    "/usr/local/lib/liboclgrind-rt-icd.so",
};

/* The checks a run on Oclgrind has on (Oclgrind reads them at context creation). */
static const struct {
    const char *name, *value;
} check_settings[] = {
    { "OCLGRIND_CHECK_API", "1" },
    { "OCLGRIND_DATA_RACES", "1" },
    { "OCLGRIND_UNINITIALIZED", "1" },
    { "OCLGRIND_MAX_ERRORS", "4000000000" }, /* no per-process limit in practice (see above) */
};

/* A report's kind from its first line, first match wins.  Oclgrind 21.10's first lines:
 * "Invalid read of size 4 at global memory address 0x...", "Invalid memory load - source
 * pointer is not aligned ...", "Read-write data race at ...", "Write-write data race at ...",
 * "Uninitialized value written to ...", "Uninitialized address used to ...", "Controlflow
 * depends on uninitialized value", "Instruction depends on an uninitialized index value". */
static const struct {
    const char *needle;
    cl_oclgrind_finding finding;
} report_kinds[] = {
    { "Invalid ", CL_OCLGRIND_INVALID_ACCESS },
    { "data race", CL_OCLGRIND_DATA_RACE },
    { "ninitialized", CL_OCLGRIND_UNINITIALISED_READ },
};

struct cl_oclgrind {
    int log_fd;          /* our own descriptor of Oclgrind's log */
    off_t read_to;       /* what has been read: where Oclgrind writes its next report */
    char log_path[512];  /* "" once removed */
};

/* What one read of the log found. */
typedef struct log_scan {
    unsigned reports;
    char first[256];     /* the first report's first line */
    char kernel[128];    /* the kernel named in its details */
    char line[256];      /* the line being read (cut at 255 characters) */
    size_t line_len;
} log_scan;

bool cl_oclgrind_selected(const char *selector)
{
    return selector && !strcasecmp(selector, CL_OCLGRIND_SELECTOR);
}

bool cl_oclgrind_register(cl_msg *err)
{
    for (size_t i = 0; i < sizeof icd_candidates / sizeof icd_candidates[0]; i++)
        if (!access(icd_candidates[i], R_OK))
            return setenv("OCL_ICD_VENDORS", icd_candidates[i], 1) == 0
                   || cl_msg_set(err, "cannot set OCL_ICD_VENDORS for Oclgrind");
    return cl_msg_set(err, "--device oclgrind: Oclgrind is not installed (no "
                           "liboclgrind-rt-icd.so in %s or the usual places; Debian package "
                           "'oclgrind')", icd_candidates[0]);
}

/* Creates the private log file and points OCLGRIND_LOG at it. */
static bool open_log(cl_oclgrind *o, cl_msg *err)
{
    const char *dir = getenv("TMPDIR");
    snprintf(o->log_path, sizeof o->log_path, "%s/dmlcheck-oclgrind-XXXXXX",
             dir && *dir ? dir : "/tmp");
    o->log_fd = mkstemp(o->log_path);
    if (o->log_fd < 0)
        return cl_msg_set(err, "--device oclgrind: cannot create its log file %s", o->log_path);
    return setenv("OCLGRIND_LOG", o->log_path, 1) == 0
           || cl_msg_set(err, "cannot set OCLGRIND_LOG");
}

cl_oclgrind *cl_oclgrind_prepare(cl_msg *err)
{
    cl_oclgrind *o = calloc(1, sizeof *o);
    if (!o) {
        cl_msg_set(err, "out of memory preparing Oclgrind");
        return NULL;
    }
    o->log_fd = -1;
    bool ok = cl_oclgrind_register(err) && open_log(o, err);
    for (size_t i = 0; ok && i < sizeof check_settings / sizeof check_settings[0]; i++)
        ok = setenv(check_settings[i].name, check_settings[i].value, 1) == 0
             || cl_msg_set(err, "cannot set %s", check_settings[i].name);
    if (!ok) {
        cl_oclgrind_close(o);
        return NULL;
    }
    return o;
}

void cl_oclgrind_context_created(cl_oclgrind *o)
{
    if (o && o->log_path[0]) {
        unlink(o->log_path);
        o->log_path[0] = '\0';
    }
}

/* One whole line of the log: a line that starts without a tab opens a report. */
static void scan_line(log_scan *s)
{
    s->line[s->line_len] = '\0';
    s->line_len = 0;
    if (!s->line[0])
        return;
    if (s->line[0] != '\t') {
        if (s->reports++ == 0)
            snprintf(s->first, sizeof s->first, "%s", s->line);
        return;
    }
    const char *kernel = strstr(s->line, "Kernel: ");
    if (s->reports == 1 && kernel && !s->kernel[0])
        snprintf(s->kernel, sizeof s->kernel, "%s", kernel + strlen("Kernel: "));
}

/* Reads the log from where the last read stopped to its end. */
static void scan_log(cl_oclgrind *o, log_scan *s)
{
    char chunk[65536];
    ssize_t n;
    while ((n = pread(o->log_fd, chunk, sizeof chunk, o->read_to)) > 0) {
        o->read_to += n;
        for (ssize_t i = 0; i < n; i++) {
            if (chunk[i] == '\n')
                scan_line(s);
            else if (s->line_len < sizeof s->line - 1)
                s->line[s->line_len++] = chunk[i];
        }
    }
    if (s->line_len)
        scan_line(s);
}

static cl_oclgrind_finding kind_of_report(const char *first_line)
{
    for (size_t i = 0; i < sizeof report_kinds / sizeof report_kinds[0]; i++)
        if (strstr(first_line, report_kinds[i].needle))
            return report_kinds[i].finding;
    return CL_OCLGRIND_OTHER;
}

cl_oclgrind_finding cl_oclgrind_findings(cl_oclgrind *o, cl_msg *err)
{
    if (!o)
        return CL_OCLGRIND_NOTHING;
    log_scan s = { 0 };
    scan_log(o, &s);
    if (s.reports == 0)
        return CL_OCLGRIND_NOTHING;
    /* Read: the bytes before read_to are never needed again (see the file's comment). */
    if (ftruncate(o->log_fd, 0) != 0)
        perror("dmlcheck: truncating the Oclgrind log");
    cl_msg_set(err, "Oclgrind: %s (kernel %s; %u report%s in this run)", s.first,
               s.kernel[0] ? s.kernel : "?", s.reports, s.reports == 1 ? "" : "s");
    return kind_of_report(s.first);
}

void cl_oclgrind_close(cl_oclgrind *o)
{
    if (!o)
        return;
    cl_oclgrind_context_created(o);
    if (o->log_fd >= 0)
        close(o->log_fd);
    free(o);
}
