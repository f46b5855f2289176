/* replay.c: shell-quoting for replay command lines.  Arguments made only of characters no
 * POSIX shell treats specially are left bare, so the common case reads naturally. */
#include "replay.h"

#include <stdbool.h>
#include <string.h>

static bool needs_quotes(const char *arg)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "_-./,:=+@%";
    return !*arg || arg[strspn(arg, plain)] != 0;
}

static void append(char *buf, size_t size, size_t *used, const char *text, size_t n)
{
    if (*used + 1 >= size)
        return;
    if (n > size - 1 - *used)
        n = size - 1 - *used;
    memcpy(buf + *used, text, n);
    *used += n;
    buf[*used] = 0;
}

void replay_append_arg(char *buf, size_t size, const char *arg)
{
    size_t used = strnlen(buf, size);
    if (used >= size)
        return;
    append(buf, size, &used, " ", 1);
    if (!needs_quotes(arg)) {
        append(buf, size, &used, arg, strlen(arg));
        return;
    }
    /* Inside single quotes nothing is special except the quote itself: ' becomes '\''. */
    append(buf, size, &used, "'", 1);
    for (const char *p = arg; *p; p++) {
        if (*p == '\'')
            append(buf, size, &used, "'\\''", 4);
        else
            append(buf, size, &used, p, 1);
    }
    append(buf, size, &used, "'", 1);
}
