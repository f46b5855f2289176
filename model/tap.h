/*
 * tap.h: Test Anything Protocol output for meson's `protocol: 'tap'`.  Ours because no
 * Debian package offers a C TAP producer this small.  The state is a struct owned by the
 * test's main, not a global.
 */
#ifndef DMLCHECK_TAP_H
#define DMLCHECK_TAP_H

#include <stdbool.h>

typedef struct tap {
    unsigned planned, run, failed;
} tap;

/* Prints "1..n" (n may be 0 to print the plan at the end with tap_done). */
void tap_plan(tap *t, unsigned n);
/* Prints "1..0 # SKIP reason" and returns 0 (the process exit code). */
int tap_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ok N - name" or "not ok N - name"; returns cond. */
bool tap_ok(tap *t, bool cond, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tap_skip(tap *t, const char *reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* As tap_ok for a known weakness: a failure is "not ok N - name # TODO todo" (reported, not
 * counted); with todo NULL it is tap_ok.  A pass prints a plain "ok": meson counts a passing
 * TODO as an unexpected pass. */
bool tap_ok_todo(tap *t, bool cond, const char *todo, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "# ..." diagnostic line. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the trailing plan if none was given; returns the process exit code. */
int tap_done(tap *t);

#endif
