/*
 * fuzz_common.c: the two-ended byte reader and its writer twin, the special-value alphabets,
 * and failure reporting shared by every fuzz target (see fuzz_common.h).  Invariant: for any
 * sequence of draws, writing values with fuzz_io then reading the finished bytes with the
 * same sequence of draws gives back the (clamped) values written.
 */
#include "fuzz_common.h"

#include <errno.h> /* program_invocation_name (_GNU_SOURCE) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_input_init(fuzz_input *in, const uint8_t *data, size_t size)
{
    in->data = data;
    in->head = 0;
    in->tail = size;
}

size_t fuzz_input_left(const fuzz_input *in)
{
    return in->tail - in->head;
}

uint64_t fuzz_head_bits(fuzz_input *in, unsigned bytes)
{
    uint64_t bits = 0;
    for (unsigned i = 0; i < bytes && in->head < in->tail; i++)
        bits |= (uint64_t)in->data[in->head++] << (8 * i);
    return bits;
}

size_t fuzz_head_copy(fuzz_input *in, uint8_t *dst, size_t bytes)
{
    size_t n = in->tail - in->head < bytes ? in->tail - in->head : bytes;
    if (n)
        memcpy(dst, in->data + in->head, n);
    in->head += n;
    return n;
}

/* Bytes a draw over [0, range] consumes: enough to cover every value of the range. */
static unsigned range_bytes(uint64_t range)
{
    unsigned n = 0;
    for (; range; range >>= 8)
        n++;
    return n;
}

static uint64_t read_range(fuzz_input *in, uint64_t lo, uint64_t hi)
{
    uint64_t range = hi - lo, bits = 0;
    for (unsigned i = range_bytes(range); i > 0 && in->tail > in->head; i--)
        bits = (bits << 8) | in->data[--in->tail];
    return lo + (range == UINT64_MAX ? bits : bits % (range + 1));
}

static bool sink_push(uint8_t **buf, size_t *len, size_t *cap, uint8_t byte)
{
    if (*len == *cap) {
        size_t new_cap = *cap ? *cap * 2 : 64;
        uint8_t *grown = realloc(*buf, new_cap);
        if (!grown)
            return false;
        *buf = grown;
        *cap = new_cap;
    }
    (*buf)[(*len)++] = byte;
    return true;
}

static void write_range(fuzz_sink *s, uint64_t value, uint64_t lo, uint64_t hi)
{
    uint64_t offset = value - lo;
    /* Most significant byte first: the reader shifts each new byte in at the bottom. */
    for (unsigned i = range_bytes(hi - lo); i > 0; i--)
        if (!sink_push(&s->tail, &s->tail_len, &s->tail_cap, (uint8_t)(offset >> (8 * (i - 1)))))
            s->failed = true;
}

uint64_t fuzz_io_range(fuzz_io *io, uint64_t value, uint64_t lo, uint64_t hi)
{
    if (io->in)
        return read_range(io->in, lo, hi);
    value = value < lo ? lo : value > hi ? hi : value;
    write_range(io->out, value, lo, hi);
    return value;
}

void fuzz_sink_init(fuzz_sink *s)
{
    memset(s, 0, sizeof *s);
}

void fuzz_sink_free(fuzz_sink *s)
{
    free(s->head);
    free(s->tail);
    fuzz_sink_init(s);
}

void fuzz_sink_head_bits(fuzz_sink *s, uint64_t bits, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        if (!sink_push(&s->head, &s->head_len, &s->head_cap, (uint8_t)(bits >> (8 * i))))
            s->failed = true;
}

uint8_t *fuzz_sink_finish(fuzz_sink *s, size_t *size)
{
    size_t n = s->head_len + s->tail_len;
    uint8_t *data = s->failed ? NULL : malloc(n ? n : 1);
    if (!data)
        return NULL;
    if (s->head_len)
        memcpy(data, s->head, s->head_len);
    for (size_t i = 0; i < s->tail_len; i++)
        data[n - 1 - i] = s->tail[i];
    *size = n;
    return data;
}

/* Each table starts with +0, -0 (or its integer stand-ins), 1, -1 so that drawing among the
 * first four entries gives heavy ties, signed zeros included. */
static const uint64_t specials_f32[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, /* +0 -0 1 -1 */
    0x7f800000, 0xff800000, 0x7f7fffff, 0xff7fffff, /* +-inf, +-FLT_MAX */
    0x00000001, 0x80000001, 0x007fffff, 0x807fffff, /* denormals: +-min, +-max */
    0x00800000, 0x80800000, 0x40000000, 0x3f800001, /* +-FLT_MIN, 2, 1+ulp */
    0x7fc00000, 0xffc00000, 0x7f800001, 0x7fc00001, /* quiet, negative, signalling, payload NaN */
    0xffffffff,
};
static const uint64_t specials_f16[] = {
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001, 0x8001, 0x03ff,
    0x83ff, 0x0400, 0x8400, 0x4000, 0x3c01, 0x7e00, 0xfe00, 0x7c01, 0x7e01, 0xffff,
};
static const uint64_t specials_f64[] = {
    0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x0000000000000001ull, 0x7ff8000000000000ull,
};
static const uint64_t specials_u8[] = { 0, 0xff, 1, 2, 0x7f, 0x80, 0xfe, 3 };
static const uint64_t specials_u16[] = { 0, 0xffff, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xff, 0x100 };
static const uint64_t specials_u32[] = { 0, 0xffffffff, 1, 2, 0x7fffffff, 0x80000000,
                                         0xfffffffe, 0xffff, 0x10000, 0x01000001 };
static const uint64_t specials_u64[] = { 0, UINT64_MAX, 1, 2, INT64_MAX, 0x8000000000000000ull,
                                         UINT64_MAX - 1, 0xffffffff, 0x100000000ull,
                                         0x0020000000000001ull };
/* Signed types: 0, -1, 1, 2, then the minimum, the maximum and their neighbours (raw bits). */
static const uint64_t specials_i8[] = { 0, 0xff, 1, 2, 0x80, 0x7f, 0x81, 0x7e };
static const uint64_t specials_i16[] = { 0, 0xffff, 1, 2, 0x8000, 0x7fff, 0x8001, 0x7ffe, 0xff80 };
static const uint64_t specials_i32[] = { 0, 0xffffffff, 1, 2, 0x80000000, 0x7fffffff,
                                         0x80000001, 0x7ffffffe, 0x01000001 };
static const uint64_t specials_i64[] = { 0, UINT64_MAX, 1, 2, 0x8000000000000000ull, INT64_MAX,
                                         0x8000000000000001ull, INT64_MAX - 1,
                                         0x0020000000000001ull };

#define TABLE(t) (*table = t, (unsigned)(sizeof t / sizeof t[0]))

unsigned fuzz_special_values(DML_TENSOR_DATA_TYPE t, const uint64_t **table)
{
    switch (t) {
    case DML_TENSOR_DATA_TYPE_FLOAT32: return TABLE(specials_f32);
    case DML_TENSOR_DATA_TYPE_FLOAT16: return TABLE(specials_f16);
    case DML_TENSOR_DATA_TYPE_FLOAT64: return TABLE(specials_f64);
    case DML_TENSOR_DATA_TYPE_UINT8: return TABLE(specials_u8);
    case DML_TENSOR_DATA_TYPE_UINT16: return TABLE(specials_u16);
    case DML_TENSOR_DATA_TYPE_UINT32: return TABLE(specials_u32);
    case DML_TENSOR_DATA_TYPE_UINT64: return TABLE(specials_u64);
    case DML_TENSOR_DATA_TYPE_INT8: return TABLE(specials_i8);
    case DML_TENSOR_DATA_TYPE_INT16: return TABLE(specials_i16);
    case DML_TENSOR_DATA_TYPE_INT32: return TABLE(specials_i32);
    case DML_TENSOR_DATA_TYPE_INT64: return TABLE(specials_i64);
    default: return TABLE(specials_u8);
    }
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    /* libFuzzer saves the input (crash-<sha1> under -artifact_prefix); the replay main names
     * the file it was replaying in its TAP log. */
    fprintf(stderr, "\nfuzz: replay the input with: %s INPUT_FILE\n", program_invocation_name);
    abort();
}

/* Weak: fuzz/replay_main.c defines the TAP-skip version, which wins when linked. */
__attribute__((weak)) void fuzz_unavailable(const char *why)
{
    fprintf(stderr, "fuzz: this target cannot run here: %s\n", why);
    exit(1);
}
