/*
 * error.h: the one error type passed down every fallible call.  A message names the field
 * and the rule that failed, e.g. "OutputTensor.Sizes[1] is 3 but axis 1 is reduced, so it
 * must be 1"; callers print it and choose the exit code.
 */
#ifndef DMLCHECK_ERROR_H
#define DMLCHECK_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define ERR_MSG_MAX 1024

typedef struct dmlc_error {
    char msg[ERR_MSG_MAX];
} dmlc_error;

/* Formats the message into err (when err is not NULL) and returns false, so callers can
 * write `return err_set(err, "...")`. */
bool err_set(dmlc_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool err_setv(dmlc_error *err, const char *fmt, va_list ap);
/* Prepends "prefix: " to an existing message (context added on the way up). */
bool err_prefix(dmlc_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Copies text into out (size bytes, NUL-terminated, cut short rather than overflowed) with
 * each control character (C0, DEL, C1 as UTF-8) and each byte that is not valid UTF-8
 * written as \xHH: the one escaping for terminals, so that what a file, a backend or a database says
 * reaches a terminal as text, never as an escape sequence; newlines and tabs stay when
 * keep_lines.  Returns out.  Every err_set message goes through it (keep_lines true). */
const char *err_printable(const char *text, bool keep_lines, char *out, size_t size);

#endif
