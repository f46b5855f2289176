/*
 * cl_test.h: what every OpenCL test shares: opening the backend (TAP `1..0 # SKIP` only when
 * the ICD loader finds no platform at all; any other failure to open fails the test), and
 * Oclgrind's report check (when OCLGRIND_LOG names a file, Oclgrind writes every report
 * there, and a test that ends with a non-empty log fails).
 */
#ifndef DMLCHECK_CL_TEST_H
#define DMLCHECK_CL_TEST_H

#include <stdbool.h>

#include "backend.h"
#include "cl_link.h"
#include "tap.h"

typedef enum cl_test_open_result {
    CL_TEST_OPENED,
    CL_TEST_NO_PLATFORM, /* TAP skip line printed; exit 0 */
    CL_TEST_OPEN_FAILED, /* TAP failure printed; exit 1 */
} cl_test_open_result;

/* Opens the device named by $DMLCHECK_TEST_DEVICE (default device when unset) with extra
 * build options (NULL for none).  Truncates the Oclgrind log first. */
cl_test_open_result cl_test_open(const char *build_options, backend **out);
/* Closes b, then adds a TAP line "oclgrind reported nothing" when OCLGRIND_LOG is set
 * (with the log as diagnostics when it is not empty). */
void cl_test_close(tap *t, backend *b);
/* Exit code for an open result other than CL_TEST_OPENED. */
int cl_test_open_exit_code(cl_test_open_result r);

#endif
