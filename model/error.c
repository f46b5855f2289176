/* error.c: formatting for dmlc_error; messages are truncated, never overflowed. */
#include "error.h"

#include <stdio.h>
#include <string.h>

const char *err_printable(const char *text, bool keep_lines, char *out, size_t size)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && o + 1 < size; p++) {
        bool line = *p == '\n' || *p == '\t';
        bool control = (*p < 0x20 && !(keep_lines && line)) || *p == 0x7f;
        if (!control) {
            out[o++] = (char)*p;
            continue;
        }
        if (o + 5 > size)
            break;
        o += (size_t)snprintf(out + o, size - o, "\\x%02x", *p);
    }
    if (size)
        out[o] = 0;
    return out;
}

/* Messages quote what files and plug-ins say, and end up on terminals: a control character
 * (an escape sequence that recolours or retitles the terminal, a carriage return that hides
 * text) is written as \xHH.  Newlines and tabs stay: messages may span lines. */
static void escape_controls(char *msg, size_t size)
{
    char out[ERR_MSG_MAX];
    err_printable(msg, true, out, sizeof out);
    snprintf(msg, size, "%s", out);
}

bool err_setv(dmlc_error *err, const char *fmt, va_list ap)
{
    if (err) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        escape_controls(err->msg, sizeof err->msg);
    }
    return false;
}

bool err_set(dmlc_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_setv(err, fmt, ap);
    va_end(ap);
    return false;
}

bool err_prefix(dmlc_error *err, const char *fmt, ...)
{
    if (!err)
        return false;
    char prefix[ERR_MSG_MAX], old[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Truncation is acceptable: the message stays NUL-terminated and keeps its start. */
    if (snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old) < 0)
        err->msg[0] = 0;
    return false;
}
