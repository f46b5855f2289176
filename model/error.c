/* error.c: formatting for dmlc_error; messages are truncated, never overflowed. */
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 character at p that is no C1 control (U+0080 to U+009F,
 * which some terminals obey as escapes), or 0. */
static size_t utf8_printable_length(const unsigned char *p)
{
    size_t len = *p >= 0xF0 && *p <= 0xF4 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 && *p < 0xE0 ? 2 : 0;
    if (len == 2 && *p == 0xC2 && p[1] < 0xA0)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((len == 3 && *p == 0xE0 && p[1] < 0xA0) || (len == 4 && *p == 0xF0 && p[1] < 0x90)
        || (len == 4 && *p == 0xF4 && p[1] > 0x8F) || (len == 3 && *p == 0xED && p[1] > 0x9F))
        return 0; /* overlong, beyond U+10FFFF, or a surrogate */
    return len;
}

const char *err_printable(const char *text, bool keep_lines, char *out, size_t size)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && o + 1 < size;) {
        bool line = *p == '\n' || *p == '\t';
        size_t len = *p < 0x80 ? 1 : utf8_printable_length(p);
        bool control = (*p < 0x20 && !(keep_lines && line)) || *p == 0x7f || !len;
        if (!control) {
            if (o + len >= size)
                break;
            memcpy(out + o, p, len);
            o += len;
            p += len;
            continue;
        }
        if (o + 5 > size)
            break;
        o += (size_t)snprintf(out + o, size - o, "\\x%02x", *p++);
    }
    if (size)
        out[o] = 0;
    return out;
}

/* Copies text (len bytes) into msg (size bytes), cutting it in the middle when it is longer
 * ("... [N bytes cut] ..."): a message names where (a path, a case) before it says what went
 * wrong, so its end is the part to keep; its start stays too.  Cuts between UTF-8 characters. */
static void keep_both_ends(char *msg, size_t size, const char *text, size_t len)
{
    if (len < size) {
        memcpy(msg, text, len + 1);
        return;
    }
    char marker[48];
    size_t head = size / 4, tail = size - 1 - head - sizeof marker;
    while (head && ((unsigned char)text[head] & 0xC0) == 0x80)
        head--;
    size_t from = len - tail;
    while (from < len && ((unsigned char)text[from] & 0xC0) == 0x80)
        from++;
    int m = snprintf(marker, sizeof marker, " ... [%zu bytes cut] ... ", from - head);
    memcpy(msg, text, head);
    memcpy(msg + head, marker, (size_t)m);
    memcpy(msg + head + (size_t)m, text + from, len - from + 1);
}

/* Messages quote what files and plug-ins say, and end up on terminals: a control character
 * (an escape sequence that recolours or retitles the terminal, a carriage return that hides
 * text) is written as \xHH.  Newlines and tabs stay: messages may span lines.  A message
 * longer than msg is cut in its middle, not at its end. */
static void set_message(char *msg, size_t size, const char *text)
{
    size_t room = 4 * strlen(text) + 1;
    char *out = malloc(room);
    if (!out) { /* no memory for the whole: the start, escaped, is still the message */
        char cut[ERR_MSG_MAX];
        err_printable(text, true, cut, sizeof cut);
        snprintf(msg, size, "%s", cut);
        return;
    }
    err_printable(text, true, out, room);
    keep_both_ends(msg, size, out, strlen(out));
    free(out);
}

bool err_setv(dmlc_error *err, const char *fmt, va_list ap)
{
    if (!err)
        return false;
    /* Formatted apart from err->msg: an argument may be err->msg itself. */
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char small[ERR_MSG_MAX];
    char *whole = n >= (int)sizeof small ? malloc((size_t)n + 1) : NULL;
    char *text = whole ? whole : small;
    if (n < 0 || vsnprintf(text, whole ? (size_t)n + 1 : sizeof small, fmt, again) < 0)
        text[0] = 0;
    va_end(again);
    set_message(err->msg, sizeof err->msg, text);
    free(whole);
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
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t old_len = strlen(err->msg);
    char *whole = n < 0 ? NULL : malloc((size_t)n + old_len + 3);
    if (whole) { /* prefix and the old message whole, then cut in the middle if need be */
        vsnprintf(whole, (size_t)n + 1, fmt, again);
        memcpy(whole + n, ": ", 2);
        memcpy(whole + n + 2, err->msg, old_len + 1);
        set_message(err->msg, sizeof err->msg, whole);
    }
    va_end(again);
    free(whole);
    return false;
}
