/*
 * fuzz_common.h: what every fuzz target shares.
 *
 * Bytes in, zstd-producer style: a target draws its *parameters* (operator, shapes, types,
 * flags) from the TAIL of the input, one value at a time, and its *values* (tensor elements)
 * from the HEAD.  The two ends never overlap: once they meet, every draw returns 0.  So a
 * mutation at the end of an input changes the shape of the case while one at the front
 * changes its data, and libFuzzer's mutators work on both independently.
 *
 * The same draws can be run backwards: a fuzz_io in write mode records the value each draw
 * would have to read, so a seed tool builds the exact input that makes a target construct a
 * chosen case (fuzz/make_seeds.c).  Code that draws parameters is written once, against
 * fuzz_io, and serves both directions; a value that does not fit the draw's range is
 * clamped when written, so a write followed by a read always gives back what was written.
 *
 * Also here: the special-value alphabet of each data type, failure reporting that ends in
 * abort() (so libFuzzer keeps the input), and fuzz_unavailable() for targets that cannot run
 * on this machine.
 */
#ifndef DMLCHECK_FUZZ_COMMON_H
#define DMLCHECK_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlcheck/directml.h"

/* libFuzzer's entry points, also called by fuzz/replay_main.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Reading: parameters from the tail, values from the head. */
typedef struct fuzz_input {
    const uint8_t *data;
    size_t head; /* next unread byte at the front */
    size_t tail; /* one past the next unread byte at the back; head <= tail */
} fuzz_input;

void fuzz_input_init(fuzz_input *in, const uint8_t *data, size_t size);
/* Bytes neither end has consumed. */
size_t fuzz_input_left(const fuzz_input *in);
/* The next `bytes` (1..8) head bytes as a little-endian number; missing bytes read as 0. */
uint64_t fuzz_head_bits(fuzz_input *in, unsigned bytes);
/* Copies up to `bytes` head bytes to dst and returns how many there were: the bytes that
 * fuzz_head_bits would read, little-endian number after number, without a loop per byte. */
size_t fuzz_head_copy(fuzz_input *in, uint8_t *dst, size_t bytes);

/* Writing: the bytes a fuzz_input must hold so that the same draws return given values. */
typedef struct fuzz_sink {
    uint8_t *head;      /* value bytes in draw order */
    size_t head_len, head_cap;
    uint8_t *tail;      /* parameter bytes in draw order (stored reversed at the end) */
    size_t tail_len, tail_cap;
    bool failed;        /* an allocation failed; fuzz_sink_finish returns NULL */
} fuzz_sink;

void fuzz_sink_init(fuzz_sink *s);
void fuzz_sink_free(fuzz_sink *s);
void fuzz_sink_head_bits(fuzz_sink *s, uint64_t bits, unsigned bytes);
/* The finished input (head bytes, then the tail bytes reversed), malloc'd; NULL on failure. */
uint8_t *fuzz_sink_finish(fuzz_sink *s, size_t *size);

/* One direction or the other: exactly one of `in` and `out` is set. */
typedef struct fuzz_io {
    fuzz_input *in;
    fuzz_sink *out;
} fuzz_io;

/* Draws an integer in [lo, hi] from the tail, using as few bytes as the range needs (none
 * when lo == hi).  Reading: returns the drawn value (`value` is ignored).  Writing: records
 * `value` clamped into [lo, hi] and returns it. */
uint64_t fuzz_io_range(fuzz_io *io, uint64_t value, uint64_t lo, uint64_t hi);
static inline bool fuzz_io_bool(fuzz_io *io, bool value)
{
    return fuzz_io_range(io, value, 0, 1) != 0;
}

/* The special values of a data type, as raw bits: the extremes, +-0, +-1, infinities,
 * denormals and several NaNs for floats; minimum, maximum and their neighbours for integers.
 * Returns the count (>= 1); *table points at static constant data. */
unsigned fuzz_special_values(DML_TENSOR_DATA_TYPE t, const uint64_t **table);

/* Prints "fuzz: <message>" and a hint on stderr, then abort()s: libFuzzer saves the input and
 * the replay test fails on that file.  Used for every broken invariant. */
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A target that cannot run on this machine (no OpenCL platform) calls this from
 * LLVMFuzzerInitialize.  Under libFuzzer it prints why and exits 1; the replay main
 * overrides it to print TAP "1..0 # SKIP why" and exit 0. */
_Noreturn void fuzz_unavailable(const char *why);

#endif
