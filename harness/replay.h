/*
 * replay.h: the command line that replays a failure.  Every failure dmlcheck prints ends with
 * "replay: <command>", a line a person can paste into a POSIX shell as it is.
 */
#ifndef DMLCHECK_REPLAY_H
#define DMLCHECK_REPLAY_H

#include <stddef.h>

/* Appends " arg" to buf (NUL-terminated, of size bytes), single-quoting arg when the shell
 * would otherwise split or expand it.  Text that does not fit is cut short, never overflowed. */
void replay_append_arg(char *buf, size_t size, const char *arg);

#endif
