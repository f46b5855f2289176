/*
 * recorder.h: records a run's case rows on a writer thread, so SQLite's cost overlaps the
 * next cases' work instead of adding to it (the machine has two cores; the worker process
 * and this process's case work rarely fill both).
 *
 * The caller's thread queues rows and commit points in order; the writer thread applies
 * them in that order, so the database stays a prefix of the run: a commit point writes the
 * run's counters, commits the open batch (durable as before: kill -9 keeps every committed
 * batch) and opens the next.  While the queue is drained (recorder_drain returned true) the
 * writer does not touch the store, and the caller may use it directly (signatures,
 * shrinking, the run's end).  A SQLite error on the writer thread is kept and returned by
 * the next recorder call.
 */
#ifndef DMLCHECK_RECORDER_H
#define DMLCHECK_RECORDER_H

#include "store.h"

typedef struct recorder recorder;

/* Starts the writer thread over an open store (a batch may already be open). */
recorder *recorder_start(store *db, dmlc_error *err);

/* Queues a copy of the row (every string is copied): waits only when the queue is full. */
bool recorder_case(recorder *rec, const store_case_row *row, dmlc_error *err);

/* Queues a commit point: store_run_progress with these counters, then commit and begin. */
bool recorder_commit(recorder *rec, int64_t run_id, uint64_t cases_done, uint64_t failures,
                     double elapsed_s, dmlc_error *err);

/* Waits until every queued item is applied; false (and the writer's error) if one failed. */
bool recorder_drain(recorder *rec, dmlc_error *err);

/* Seconds the caller spent waiting for the writer (full queue or drain). */
double recorder_wait_seconds(const recorder *rec);

/* Drains (errors are dropped: call recorder_drain first to see them) and joins the thread. */
void recorder_stop(recorder *rec);

#endif
