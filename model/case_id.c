/*
 * case_id.c: case ids gN:SEED:INDEX (case_id.h), parsed and printed.  Below the generator so
 * that the results store, which keeps a signature's smallest case by its id, and
 * the reports read ids without the generator.
 */
#include "case_id.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gen_version_supported(unsigned version)
{
    return version >= GEN_OLDEST_VERSION && version <= GEN_VERSION;
}

/* An unsigned 64-bit number: decimal, or hex after 0x; nothing else before `end`. */
static bool parse_u64(const char *text, const char *end, uint64_t *out)
{
    int base = 10;
    if (end - text > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text += 2;
    }
    if (text >= end || !isxdigit((unsigned char)text[0]))
        return false;
    char *stop;
    errno = 0;
    unsigned long long v = strtoull(text, &stop, base);
    if (errno || stop != end)
        return false;
    *out = v;
    return true;
}

/* "SEED:INDEX" between text and its end. */
static bool parse_seed_index(const char *text, uint64_t *seed, uint64_t *index)
{
    const char *colon = strchr(text, ':');
    return colon && parse_u64(text, colon, seed)
           && parse_u64(colon + 1, colon + strlen(colon), index);
}

/* The N of a "gN:" prefix: decimal digits only, 1 to UINT32_MAX; *rest after the colon. */
static bool parse_version(const char *text, unsigned *version, const char **rest)
{
    const char *colon = strchr(text, ':');
    size_t digits = colon ? (size_t)(colon - text - 1) : 0;
    uint64_t v;
    if (text[0] != 'g' || !digits || strspn(text + 1, "0123456789") != digits
        || !parse_u64(text + 1, colon, &v) || v < 1 || v > UINT32_MAX)
        return false;
    *version = (unsigned)v;
    *rest = colon + 1;
    return true;
}

bool gen_parse_case_id(const char *text, gen_case_id *id)
{
    gen_case_id got = { 0 };
    const char *rest = text;
    if (!text || (text[0] == 'g' && !parse_version(text, &got.version, &rest))
        || !parse_seed_index(rest, &got.seed, &got.index))
        return false;
    *id = got;
    return true;
}

const char *gen_format_case_id(const gen_case_id *id, char *buf, size_t size)
{
    if (id->version)
        snprintf(buf, size, "g%u:%" PRIu64 ":%" PRIu64, id->version, id->seed, id->index);
    else
        snprintf(buf, size, "%" PRIu64 ":%" PRIu64, id->seed, id->index);
    return buf;
}
