/* tap.c: TAP 13 producer.  Output is flushed per line so a crash keeps what passed. */
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>

void tap_plan(tap *t, unsigned n)
{
    t->planned = n;
    t->run = t->failed = 0;
    if (n)
        printf("1..%u\n", n);
    fflush(stdout);
}

int tap_skip_all(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("1..0 # SKIP ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    return 0;
}

bool tap_ok(tap *t, bool cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %u - ", cond ? "" : "not ", ++t->run);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    if (!cond)
        t->failed++;
    return cond;
}

bool tap_ok_todo(tap *t, bool cond, const char *todo, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool counted_failure = !cond && !todo;
    printf("%s %u - ", cond ? "ok" : "not ok", ++t->run);
    vprintf(fmt, ap);
    if (!cond && todo)
        printf(" # TODO %s", todo);
    printf("\n");
    va_end(ap);
    t->failed += counted_failure;
    fflush(stdout);
    return cond;
}

void tap_skip(tap *t, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("ok %u - ", ++t->run);
    vprintf(fmt, ap);
    printf(" # SKIP %s\n", reason);
    va_end(ap);
    fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

int tap_done(tap *t)
{
    if (!t->planned)
        printf("1..%u\n", t->run);
    fflush(stdout);
    return t->failed || (t->planned && t->run != t->planned) ? 1 : 0;
}
