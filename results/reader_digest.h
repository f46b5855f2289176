/*
 * reader_digest.h: results/-internal (reader.c and reader_digest.c only).  A report used to
 * ask the cases x results join ten questions, one join each; the digest reads the join once,
 * case by case, and keeps every answer a report asks of it: cells, skip reasons, coverage per
 * dimension, NaN fingerprints, and each failing key's count for the signatures.  A case costs
 * a row step and a few hash lookups of short keys; nothing is parsed.  Each walk of reader.h
 * then lists what the digest holds in the order its SQL listed it.
 */
#ifndef DMLCHECK_READER_DIGEST_H
#define DMLCHECK_READER_DIGEST_H

#include <sqlite3.h>

#include "reader.h"

typedef struct reader_digest reader_digest;

/* Reads the cases of run ids lo..hi of db (schema `version`) once; each case's descriptor
 * goes to `each` on the way when it is not NULL (cases 1, failed 0 or 1).  Fills the
 * temporary tables reader.c's signature and skip queries read (digest_signature_rows,
 * digest_skip_rows).  NULL with err set (messages name `path`). */
reader_digest *digest_read(sqlite3 *db, const char *path, int version, int64_t lo, int64_t hi,
                           bool (*each)(void *ctx, const reader_params *row, dmlc_error *err),
                           void *ctx, dmlc_error *err);
/* Accepts NULL; drops the temporary tables. */
void digest_free(reader_digest *g, sqlite3 *db);
/* Whether g was read for run ids lo..hi. */
bool digest_covers(const reader_digest *g, int64_t lo, int64_t hi);

bool digest_cells(const reader_digest *g,
                  bool (*each)(void *ctx, const reader_cell *row, dmlc_error *err), void *ctx,
                  dmlc_error *err);
bool digest_coverage(const reader_digest *g, reader_dimension dimension,
                     bool (*each)(void *ctx, const reader_coverage *row, dmlc_error *err),
                     void *ctx, dmlc_error *err);
bool digest_nan_prints(const reader_digest *g,
                       bool (*each)(void *ctx, const reader_nan_print *row, dmlc_error *err),
                       void *ctx, dmlc_error *err);

#endif
