/* clock.c: see clock.h. */
#include "clock.h"

#include <time.h>

double clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double clock_ms(void)
{
    return clock_seconds() * 1e3;
}

const char *clock_utc_text(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}
