/* replay.c: shell-quoting for replay command lines.  Arguments made only of characters no
 * POSIX shell treats specially are left bare, so the common case reads naturally. */
#include "replay.h"

#include <stdbool.h>
#include <stdint.h>
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
        } else if (quote == '"') {
            if (*s == '"')
                quote = 0;
            else if (*s == '\\' && s[1] && strchr("\\\"$`", s[1]))
                *out++ = *++s;
            else
                *out++ = *s;
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
