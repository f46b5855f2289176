/*
 * cli_args.h: option values the commands share the parsing of.
 */
#ifndef DMLCHECK_CLI_ARGS_H
#define DMLCHECK_CLI_ARGS_H

/* Room for a file name written for a terminal by err_printable (each byte at most \xHH). */
#define CLI_SHOWN_MAX (4 * 4096 + 16)

#include <stdbool.h>
#include <stdint.h>

/* A positive decimal number with nothing after it (a run id, a family number); false, out
 * untouched, on anything else. */
bool cli_parse_positive(const char *text, int64_t *out);

#endif
