/*
 * cli_args.c: option values the commands share the parsing of (cli_args.h).
 */
#include "cli_args.h"

#include <errno.h>
#include <stdlib.h>

bool cli_parse_positive(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || *end || end == text || v <= 0)
        return false;
    *out = v;
    return true;
}
