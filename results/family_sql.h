/*
 * family_sql.h: what families.c and family_sql.c share (not installed): the reader of a run
 * range, the macros every family query is written with, the dimensions compared, and the
 * temporary tables of families_find.
 */
#ifndef DMLCHECK_FAMILY_SQL_H
#define DMLCHECK_FAMILY_SQL_H

#include "families.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* Each reads temp.family_cases.  ?3 is the family's module ("*": every operator), ?4 its
 * kinds (",a,b,"), ?5 its verdicts (",fail,": one; a root cause's row may hold both). */
#define IN_VERDICTS(column) "instr(?5, ',' || " column " || ',') > 0"
#define IN_KINDS(column) "instr(?4, ',' || " column " || ',') > 0"
/* ?8 its groups (family.groups): the cases of a group of the first grouping, whose module is
 * '*' for the process kinds, carry their signature's root-cause key. */
#define IN_GROUPS(t, key)                                                                    \
    "instr(?8, ',' || " t ".module || ':' || " t ".kind || ':' || " t ".verdict || ':' || "    \
    key " || ',') > 0"
#define FROM_FAMILY " FROM temp.family_failing c WHERE " IN_GROUPS("c", "c.cause_key")
/* The family's rows, as describe() copied them for its questions (temp.family_rows): the
 * same conditions, over the family alone. */
#define FROM_OWN                                                                             \
    " FROM temp.family_rows c WHERE " IN_GROUPS("c", "c.cause_key")
/* The family's signatures (temp.family_signatures t, with their keys). */
#define FROM_SIGNATURES " FROM temp.family_signatures t WHERE " IN_GROUPS("t", "t.key")
/* A family's own judged cases (its hits). */
#define FROM_HITS FROM_OWN " AND c.verdict IN ('pass', 'fail', 'unspecified')"
/* The judged cases of the family's operators per value of dimension ?6 (family_judged). */
#define FROM_DIMENSION                                                                       \
    " FROM temp.family_judged j WHERE j.d = ?6 AND (?3 = '*' OR j.module = ?3)"
/* Kinds the harness sees in the worker process, whichever operator ran: one family each. */
#define PROCESS_KINDS "('crash', 'hang')"

typedef struct family_reader {
    sqlite3 *db;
    int64_t lo, hi;
    dmlc_error *err;
    char module_of[512]; /* SQL: c.op's operator family, from op_table */
    char module_of_signature[512]; /* the same of s.op */
    bool has_nondeterministic;     /* signatures.nondeterministic exists (schema 3) */
    bool has_shrunk_mismatch;      /* signatures.shrunk_mismatch exists (schema 4) */
    bool has_also_kinds;           /* results.also_kinds exists (schema 4) */
    bool has_cause;                /* signatures.cause and .diagnosis exist (schema 5) */
} family_reader;

/* The generator dimensions compared (family_sql.c): how a person reads them and their SQL
 * over temp.family_cases c. */
typedef struct family_dimension {
    const char *label, *expr;
    bool numeric;
} family_dimension;
extern const family_dimension family_dimensions[];
extern const size_t family_dimension_count;

/* A reader of the run range, with the columns the file's schema version has. */
bool family_reader_open(sqlite3 *db, int64_t run_lo, int64_t run_hi, dmlc_error *err, family_reader *rd);
/* sql prepared with the run range and, when f is given, the family's op, kinds, verdicts and
 * groups bound; NULL with the error set. */
sqlite3_stmt *family_sql_prepare(const family_reader *rd, const char *sql, const family *f);
/* Steps s once more; false at the end, and on an error (with *failed and the error set). */
bool family_sql_step(const family_reader *rd, sqlite3_stmt *s, bool *failed);
/* Runs one statement of no rows, with the run range and f's fields (when given) bound. */
bool family_sql_run(const family_reader *rd, const char *sql, const family *f);
/* Column col of the current row as text, "" for NULL. */
const char *family_sql_text(sqlite3_stmt *s, int col);
/* "ARGMIN/ARGMAX" of operator family `module` ("any operator" for "*"). */
void family_sql_module_operators(const char *module, char *buf, size_t size);

/* Whether the range holds a failure a family is made of. */
bool family_tables_any_failure(const family_reader *rd, bool *found);
/* The temporary tables every family query reads (temp.family_cases, _failing, _judged,
 * _signatures), in place of any left before. */
bool family_tables_fill(const family_reader *rd);
/* Drops them; keeps ok (and the error that made it false). */
bool family_tables_drop(const family_reader *rd, bool ok);
#endif
