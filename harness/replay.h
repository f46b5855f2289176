/*
 * replay.h: the command line that replays a failure.  Every failure dmlcheck prints ends with
 * "replay: <command>", a line a person can paste into a POSIX shell as it is.
 */
#ifndef DMLCHECK_REPLAY_H
#define DMLCHECK_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

/* Appends " arg" to buf (NUL-terminated, of size bytes), single-quoting arg when the shell
 * would otherwise split or expand it; a control character (newline, ESC, ...) is written as
 * $'\xHH' outside the quotes, so the command is one line and prints nothing a terminal obeys.
 * Text that does not fit is cut short, never overflowed. */
void replay_append_arg(char *buf, size_t size, const char *arg);

/* "dmlcheck replay CASE_ID OPTIONS" into buf: the one spelling of a case's replay line.
 * options are runner_replay_args' (already quoted); NULL says they were too long to print.
 * Returns buf. */
const char *replay_case_line(char *buf, size_t size, const char *case_id, const char *options);

/* Splits a command line as a POSIX shell would split it without expanding anything: blanks
 * separate words; '...' keeps everything, "..." keeps everything but \\, \", \$ and \`
 * escapes, $'...' reads \xHH, \n, \t, \r, \e, \\, \' and \" escapes, a backslash outside
 * quotes keeps the next character.  Reads back what
 * replay_append_arg writes.  On success *words is a NULL-terminated array in one allocation
 * (free(*words) frees all) and *count its length; false on an unterminated quote or when out
 * of memory. */
bool replay_split_args(const char *line, char ***words, size_t *count);

#endif
