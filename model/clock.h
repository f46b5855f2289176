/*
 * clock.h: the clocks every layer reads, in one place.  Durations and deadlines use the
 * monotonic clock (a wall-clock step must not fire a time limit); records of when something
 * happened use UTC wall time.
 */
#ifndef DMLCHECK_CLOCK_H
#define DMLCHECK_CLOCK_H

#include <stddef.h>

/* Monotonic time in seconds, for durations. */
double clock_seconds(void);
/* Monotonic time in milliseconds, for deadlines. */
double clock_ms(void);
/* The UTC wall time as "2026-11-26T16:20:00Z" into buf (at least 21 bytes).  Returns buf. */
const char *clock_utc_text(char *buf, size_t size);

#endif
