/*
 * recorder.c: the run's writer thread (see recorder.h).
 *
 * A fixed ring of items under one mutex: the caller fills the slot at `head` and advances
 * it; the writer applies the slot at `tail` with the mutex released and only then advances
 * `tail`, so "the ring is empty" means "the writer is not inside SQLite" and a drained
 * recorder leaves the store to the caller.  Every string of a queued row is copied into the
 * item (the caller's buffers are reused at once); the names are short, so the copy costs
 * far less than the insert it feeds.
 */
#include "recorder.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

#define RING_SLOTS 1024 /* cases in flight; a full ring makes the caller wait */
#define ITEM_TEXT 1024  /* inline room for a row's strings; longer rows use the heap */
#define WAKE_AFTER 64   /* a sleeping writer is woken once this many rows wait (or at a commit) */

typedef enum item_kind { ITEM_CASE, ITEM_COMMIT } item_kind;

typedef struct item {
    item_kind kind;
    store_case_row row;     /* strings point into text or heap */
    int64_t run_id;         /* ITEM_COMMIT */
    uint64_t cases_done, failures;
    double elapsed_s;
    char *heap;
    char text[ITEM_TEXT];
} item;

struct recorder {
    store *db;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t queued, applied;
    item *ring;
    uint64_t head, tail;    /* items [tail, head) are queued; indices grow without bound */
    bool stopping, failed;
    bool writer_sleeps, caller_waits; /* wake-ups (futex calls) only when someone sleeps */
    dmlc_error err;         /* the writer's first error */
    double wait_seconds;
};

static bool apply_item(store *db, const item *it, dmlc_error *err)
{
    if (it->kind == ITEM_CASE)
        return store_case(db, &it->row, err);
    return store_run_progress(db, it->run_id, it->cases_done, it->failures, it->elapsed_s, err)
        && store_batch_commit(db, err) && store_batch_begin(db, err);
}

static void *writer_main(void *opaque)
{
    recorder *rec = opaque;
    pthread_mutex_lock(&rec->lock);
    for (;;) {
        while (rec->head == rec->tail && !rec->stopping) {
            rec->writer_sleeps = true;
            pthread_cond_wait(&rec->queued, &rec->lock);
            rec->writer_sleeps = false;
        }
        if (rec->head == rec->tail)
            break;
        item *it = &rec->ring[rec->tail % RING_SLOTS];
        bool skip = rec->failed; /* after an error nothing more is written */
        pthread_mutex_unlock(&rec->lock);
        dmlc_error err;
        bool ok = skip || apply_item(rec->db, it, &err);
        free(it->heap);
        it->heap = NULL;
        pthread_mutex_lock(&rec->lock);
        if (!ok && !rec->failed) {
            rec->failed = true;
            rec->err = err;
        }
        rec->tail++;
        if (rec->caller_waits)
            pthread_cond_signal(&rec->applied);
    }
    pthread_mutex_unlock(&rec->lock);
    return NULL;
}

recorder *recorder_start(store *db, dmlc_error *err)
{
    recorder *rec = calloc(1, sizeof *rec);
    if (rec)
        rec->ring = calloc(RING_SLOTS, sizeof *rec->ring);
    if (!rec || !rec->ring) {
        if (rec)
            free(rec->ring);
        free(rec);
        err_set(err, "out of memory for the results writer");
        return NULL;
    }
    rec->db = db;
    pthread_mutex_init(&rec->lock, NULL);
    pthread_cond_init(&rec->queued, NULL);
    pthread_cond_init(&rec->applied, NULL);
    if (pthread_create(&rec->thread, NULL, writer_main, rec) != 0) {
        pthread_cond_destroy(&rec->applied);
        pthread_cond_destroy(&rec->queued);
        pthread_mutex_destroy(&rec->lock);
        free(rec->ring);
        free(rec);
        err_set(err, "cannot start the results writer thread");
        return NULL;
    }
    return rec;
}

/* With the lock held: waits for a free slot; false (with the writer's error) after a failure. */
static bool wait_for_slot(recorder *rec, dmlc_error *err)
{
    if (rec->head - rec->tail == RING_SLOTS && !rec->failed) {
        double t0 = clock_seconds();
        rec->caller_waits = true;
        pthread_cond_signal(&rec->queued);
        while (rec->head - rec->tail == RING_SLOTS && !rec->failed)
            pthread_cond_wait(&rec->applied, &rec->lock);
        rec->caller_waits = false;
        rec->wait_seconds += clock_seconds() - t0;
    }
    if (rec->failed && err)
        *err = rec->err;
    return !rec->failed;
}

/* Copies the row's strings into the item (its text, or one heap block when they do not fit). */
static bool copy_row(item *it, const store_case_row *row)
{
    store_case_row *r = &it->row;
    *r = *row;
    const char **fields[] = { &r->op, &r->feature_level, &r->input_type, &r->output_type,
                              &r->indices_type, &r->input_sizes, &r->input_strides,
                              &r->output_sizes, &r->params, &r->axis_kind, &r->layout,
                              &r->distribution, &r->classes, &r->verdict, &r->kind,
                              &r->first_mismatch, &r->detail, &r->also_kinds };
    size_t n = sizeof fields / sizeof fields[0], lengths[sizeof fields / sizeof fields[0]], total = 0;
    for (size_t i = 0; i < n; i++) {
        lengths[i] = *fields[i] ? strlen(*fields[i]) + 1 : 0;
        total += lengths[i];
    }
    char *at = it->text;
    if (total > sizeof it->text && !(at = it->heap = malloc(total)))
        return false;
    for (size_t i = 0; i < n; i++)
        if (*fields[i]) {
            memcpy(at, *fields[i], lengths[i]);
            *fields[i] = at;
            at += lengths[i];
        }
    return true;
}

static bool enqueue(recorder *rec, item_kind kind, const store_case_row *row, int64_t run_id,
                    uint64_t cases_done, uint64_t failures, double elapsed_s, dmlc_error *err)
{
    pthread_mutex_lock(&rec->lock);
    bool ok = wait_for_slot(rec, err);
    pthread_mutex_unlock(&rec->lock);
    if (!ok)
        return false;
    /* Only this thread writes the slot at head; the writer reads it after head moves. */
    item *it = &rec->ring[rec->head % RING_SLOTS];
    it->kind = kind;
    it->heap = NULL;
    if (kind == ITEM_CASE && !copy_row(it, row))
        return err_set(err, "out of memory queueing a case row");
    it->run_id = run_id;
    it->cases_done = cases_done;
    it->failures = failures;
    it->elapsed_s = elapsed_s;
    pthread_mutex_lock(&rec->lock);
    rec->head++;
    if (rec->writer_sleeps && (kind == ITEM_COMMIT || rec->head - rec->tail >= WAKE_AFTER))
        pthread_cond_signal(&rec->queued);
    pthread_mutex_unlock(&rec->lock);
    return true;
}

bool recorder_case(recorder *rec, const store_case_row *row, dmlc_error *err)
{
    return enqueue(rec, ITEM_CASE, row, 0, 0, 0, 0, err);
}

bool recorder_commit(recorder *rec, int64_t run_id, uint64_t cases_done, uint64_t failures,
                     double elapsed_s, dmlc_error *err)
{
    return enqueue(rec, ITEM_COMMIT, NULL, run_id, cases_done, failures, elapsed_s, err);
}

bool recorder_drain(recorder *rec, dmlc_error *err)
{
    pthread_mutex_lock(&rec->lock);
    if (rec->head != rec->tail) {
        double t0 = clock_seconds();
        rec->caller_waits = true;
        pthread_cond_signal(&rec->queued);
        while (rec->head != rec->tail)
            pthread_cond_wait(&rec->applied, &rec->lock);
        rec->caller_waits = false;
        rec->wait_seconds += clock_seconds() - t0;
    }
    bool ok = !rec->failed;
    if (!ok && err)
        *err = rec->err;
    pthread_mutex_unlock(&rec->lock);
    return ok;
}

double recorder_wait_seconds(const recorder *rec)
{
    return rec ? rec->wait_seconds : 0;
}

void recorder_stop(recorder *rec)
{
    if (!rec)
        return;
    pthread_mutex_lock(&rec->lock);
    rec->stopping = true;
    pthread_cond_signal(&rec->queued);
    pthread_mutex_unlock(&rec->lock);
    pthread_join(rec->thread, NULL);
    pthread_cond_destroy(&rec->applied);
    pthread_cond_destroy(&rec->queued);
    pthread_mutex_destroy(&rec->lock);
    free(rec->ring);
    free(rec);
}
