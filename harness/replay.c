/* replay.c: shell-quoting for replay command lines.  Arguments made only of characters no
 * POSIX shell treats specially are left bare, so the common case reads naturally; the rest
 * are single-quoted, with control characters written as $'\xHH' between the quotes. */
#include "replay.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A control character (a newline, ESC, DEL) cannot sit inside '...' without ending the line
 * or reaching the terminal as a command when the line is printed. */
static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
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
    if (!*arg)
        append(buf, size, &used, "''", 2);
    /* Inside single quotes nothing is special except the quote itself: ' becomes '\''.  A
     * control character leaves the quotes as $'\xHH' (bash, ksh, zsh, POSIX.1-2024 shells),
     * so the word stays one printable line and the shell still rebuilds it byte for byte. */
    bool quoted = false;
    for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
        if (is_control(*p)) {
            char hex[16];
            snprintf(hex, sizeof hex, "%s$'\\x%02x'", quoted ? "'" : "", *p);
            append(buf, size, &used, hex, strlen(hex));
            quoted = false;
            continue;
        }
        if (!quoted)
            append(buf, size, &used, "'", 1);
        quoted = true;
        if (*p == '\'')
            append(buf, size, &used, "'\\''", 4);
        else
            append(buf, size, &used, (const char *)p, 1);
    }
    if (quoted)
        append(buf, size, &used, "'", 1);
}

/* The value of hex digit c, or -1. */
static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One escape inside $'...' at s (just after the backslash) into *out; returns the characters
 * it took.  \xH and \xHH, \n, \t, \r, \e, \\, \' and \"; any other keeps its backslash. */
static size_t dollar_escape(const char *s, char *out)
{
    static const char plain[] = "ntre\\'\"", means[] = "\n\t\r\033\\'\"";
    if (*s == 'x' && hex_value(s[1]) >= 0) {
        int v = hex_value(s[1]);
        size_t n = 2;
        if (hex_value(s[2]) >= 0)
            v = v * 16 + hex_value(s[n++]);
        *out = (char)v;
        return n;
    }
    const char *at = *s ? strchr(plain, *s) : NULL;
    if (at) {
        *out = means[at - plain];
        return 1;
    }
    *out = '\\';
    return 0;
}

/* One word from *p into out (NUL-terminated); *p is left after it.  False on an unterminated
 * quote. */
static bool next_word(const char **p, char *out)
{
    const char *s = *p;
    char quote = 0;
    for (; *s && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
        if (quote == '\'') {
            if (*s == '\'')
                quote = 0;
            else
                *out++ = *s;
        } else if (quote == '$') {
            if (*s == '\'')
                quote = 0;
            else if (*s == '\\')
                s += dollar_escape(s + 1, out++);
            else
                *out++ = *s;
        } else if (quote == '"') {
            if (*s == '"')
                quote = 0;
            else if (*s == '\\' && s[1] && strchr("\\\"$`", s[1]))
                *out++ = *++s;
            else
                *out++ = *s;
        } else if (*s == '$' && s[1] == '\'') {
            quote = *s++;
        } else if (*s == '\'' || *s == '"') {
            quote = *s;
        } else if (*s == '\\' && s[1]) {
            *out++ = *++s;
        } else {
            *out++ = *s;
        }
    }
    *out = 0;
    *p = s;
    return !quote;
}

bool replay_split_args(const char *line, char ***words, size_t *count)
{
    /* Words never outgrow the line: the pointers and every word's text fit in one block. */
    size_t len = strlen(line), max_words = len / 2 + 2;
    char **v = malloc(max_words * sizeof *v + len + max_words);
    if (!v)
        return false;
    char *text = (char *)(v + max_words);
    size_t n = 0;
    for (const char *p = line;;) {
        p += strspn(p, " \t\n");
        if (!*p)
            break;
        v[n] = text;
        if (!next_word(&p, text)) {
            free(v);
            return false;
        }
        text += strlen(text) + 1;
        n++;
    }
    v[n] = NULL;
    *words = v;
    *count = n;
    return true;
}

const char *replay_case_line(char *buf, size_t size, const char *case_id, const char *options)
{
    snprintf(buf, size, "dmlcheck replay %s %s", case_id,
             options ? options : "(the options: too long to print)");
    return buf;
}
