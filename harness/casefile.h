/*
 * casefile.h: JSON case files (one case per file, DirectML's field names), read and written
 * with jansson.  Values are in logical row-major order; floats are JSON numbers rounded to
 * nearest-even into the type, or "nan", "-nan", "inf", "-inf", or "0x..." raw bits.  Every
 * error names the field path, e.g. `InputTensor.Sizes[2]: must be an integer >= 1`.
 */
#ifndef DMLCHECK_CASEFILE_H
#define DMLCHECK_CASEFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "case.h"
#include "error.h"

/* Parses JSON text into c (initialised by the caller; freed on failure).  Structural checks
 * only (fields, types, value ranges, broadcast agreement); DirectML's rules are the
 * validator's.  feature_level stays 0 when the file does not give one. */
bool casefile_parse(const char *text, size_t len, dml_case *c, dmlc_error *err);
/* Reads and parses a file; the error is prefixed with the path. */
bool casefile_load(const char *path, dml_case *c, dmlc_error *err);
/* Serialises c as a case file; when expected is not NULL its outputs become "expected".
 * Returns a malloc'd NUL-terminated string, or NULL on allocation failure. */
char *casefile_write(const dml_case *c, const case_outputs *expected);
/* {"output": [...], "indices": [...]} in case-file notation, one line, malloc'd. */
char *casefile_outputs_json(const dml_case *c, const case_outputs *o);

#endif
