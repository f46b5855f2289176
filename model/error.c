/* error.c: formatting for dmlc_error; messages are truncated, never overflowed. */
#include "error.h"

#include <stdio.h>
#include <string.h>

bool err_setv(dmlc_error *err, const char *fmt, va_list ap)
{
    if (err)
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
