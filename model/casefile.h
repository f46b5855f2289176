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
#include <stdio.h>

#include <jansson.h>

#include "case.h"
#include "error.h"

/* What dmlcheck will allocate for one tensor (its TotalTensorSizeInBytes or computed size),
 * and the largest case file it reads: larger cases are errors, never out-of-memory crashes. */
#define CASEFILE_MAX_TENSOR_BYTES ((UINT64)1 << 30)
#define CASEFILE_MAX_FILE_BYTES ((size_t)1 << 31)
/* The largest case read from a stream (`dmlcheck exec -`): less than a file may hold, since a
 * stream's size is unknown until it ends; a larger case is saved to a file instead. */
#define CASEFILE_MAX_STREAM_BYTES ((size_t)1 << 26)
/* Significant digits of reals in written files: enough for every FLOAT32 and FLOAT16 value;
 * a value that needs more (FLOAT64) is written as raw bits. */
#define CASEFILE_REAL_DIGITS 9

/* Parses JSON text into c (initialised by the caller; freed on failure).  Structural checks
 * only (fields, types, value ranges, broadcast agreement); DirectML's rules are the
 * validator's.  feature_level stays 0 when the file does not give one. */
bool casefile_parse(const char *text, size_t len, dml_case *c, dmlc_error *err);
/* Reads and parses a file; the error is prefixed with the path. */
bool casefile_load(const char *path, dml_case *c, dmlc_error *err);
/* Reads f to its end (at most CASEFILE_MAX_STREAM_BYTES - 1 bytes: the refusal comes as soon
 * as the stream passes that, naming the limit) and parses it; the error is prefixed with name
 * ("standard input"). */
bool casefile_load_stream(FILE *f, const char *name, dml_case *c, dmlc_error *err);
/* Serialises c as a case file; when expected is not NULL its outputs become "expected",
 * otherwise c's own expected arrays (if any) are written.  Strides and
 * TotalTensorSizeInBytes appear when the case states them; Flags and
 * GuaranteedBaseOffsetAlignment always.  casefile_parse(casefile_write(c)) reproduces c bit
 * for bit.  Returns a malloc'd NUL-terminated string, or NULL on allocation failure or an
 * invalid c->op. */
char *casefile_write(const dml_case *c, const case_outputs *expected);
/* The descriptor part of casefile_write's object (op, feature_level, must_reject, the
 * tensors and the operator's fields, the same names and notation), without comment, values
 * or expectations:
 * what the out-of-process protocol sends (docs/PROTOCOL.md).  A new reference; NULL on
 * allocation failure or an invalid c->op. */
json_t *casefile_descriptor_json(const dml_case *c);
/* {"output": [...], "indices": [...]} in case-file notation, one line, malloc'd. */
char *casefile_outputs_json(const dml_case *c, const case_outputs *o);
/* The same object, as a new reference to add members to (NULL on allocation failure); dump
 * it with JSON_REAL_PRECISION(CASEFILE_REAL_DIGITS) as casefile_outputs_json does. */
json_t *casefile_outputs_object(const dml_case *c, const case_outputs *o);

/* The text of a JSON number (or a C hex-float) as raw bits of FLOAT32, FLOAT16 or FLOAT64,
 * rounded to nearest-even from the decimal itself: never through an intermediate type, so no
 * double rounding.  False for other types, non-numbers and overflowing exponents. */
bool casefile_number_to_float_bits(const char *text, DML_TENSOR_DATA_TYPE t, uint64_t *bits);

#endif
