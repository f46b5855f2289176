/*
 * test_fuzz_io.c: the two directions of fuzz_io agree.  Writing a sequence of draws and
 * reading the finished bytes back with the same draws gives the written values (clamped into
 * their ranges); head bytes come back in order after the tail is consumed; an exhausted input
 * reads as zeros.  And the case builder's writer rebuilds generated cases exactly (the seed
 * tool relies on both).
 */
#include <stdlib.h>
#include <string.h>

#include "casefile.h"
#include "fuzz_case_builder.h"
#include "fuzz_common.h"
#include "gen.h"
#include "prng.h"
#include "tap.h"
#include "validate.h"

#define DRAWS 2000

/* Random ranges of every width, written then read. */
static bool roundtrip_ranges(uint64_t seed)
{
    prng p;
    prng_seed(&p, seed);
    uint64_t lo[DRAWS], hi[DRAWS], value[DRAWS], head[16];
    fuzz_sink sink;
    fuzz_io out = { NULL, &sink };
    fuzz_sink_init(&sink);
    for (int i = 0; i < DRAWS; i++) {
        unsigned bits = (unsigned)prng_below(&p, 65);
        uint64_t a = bits == 64 ? prng_next(&p) : bits ? prng_next(&p) >> (64 - bits) : 0;
        uint64_t b = a + (bits == 64 ? prng_next(&p) : prng_below(&p, (uint64_t)1 << (bits / 2)));
        lo[i] = a < b ? a : b;
        hi[i] = a < b ? b : a;
        value[i] = fuzz_io_range(&out, prng_next(&p), lo[i], hi[i]); /* clamped */
    }
    for (int i = 0; i < 16; i++)
        fuzz_sink_head_bits(&sink, head[i] = prng_below(&p, 256), 1);
    size_t size;
    uint8_t *data = fuzz_sink_finish(&sink, &size);
    fuzz_sink_free(&sink);
    if (!data)
        return false;
    fuzz_input in;
    fuzz_io io = { &in, NULL };
    fuzz_input_init(&in, data, size);
    bool ok = true;
    for (int i = 0; ok && i < DRAWS; i++)
        ok = fuzz_io_range(&io, 0, lo[i], hi[i]) == value[i] && value[i] >= lo[i] && value[i] <= hi[i];
    for (int i = 0; ok && i < 16; i++)
        ok = fuzz_head_bits(&in, 1) == head[i];
    ok = ok && fuzz_input_left(&in) == 0 && fuzz_head_bits(&in, 8) == 0
        && fuzz_io_range(&io, 0, 5, 1000) == 5;
    free(data);
    return ok;
}

/* A generated case, written by the builder and read back, is the same case file. */
static bool roundtrip_case(uint64_t index, bool verbose)
{
    gen_options go;
    dml_case c, copy, rebuilt;
    gen_info info;
    dmlc_error err;
    exec_options opt = { index % 2 ? NAN_POLICY_PROPAGATE : NAN_POLICY_IGNORE, false }, ropt;
    gen_options_default(&go);
    go.reject_per_mille = 0;
    go.max_elements = 256;
    case_init(&c);
    case_init(&rebuilt);
    if (!gen_case(7, index, &go, &c, &info, &err) || !case_copy(&copy, &c))
        return false;
    fuzz_sink sink;
    fuzz_io out = { NULL, &sink };
    fuzz_sink_init(&sink);
    size_t size = 0;
    uint8_t *data = fuzz_build_case(&out, &copy, &opt) ? fuzz_sink_finish(&sink, &size) : NULL;
    fuzz_sink_free(&sink);
    fuzz_input in;
    fuzz_io io = { &in, NULL };
    fuzz_input_init(&in, data, size);
    bool ok = data && fuzz_build_case(&io, &rebuilt, &ropt) && validate_case(&rebuilt, &err)
        && ropt.nan == opt.nan;
    char *a = casefile_write(&c, NULL), *b = ok ? casefile_write(&rebuilt, NULL) : NULL;
    ok = ok && a && b && !strcmp(a, b);
    if (!ok && verbose)
        tap_diag("case 7:%llu rebuilt differently:\n#   %s\n#   %s", (unsigned long long)index,
                 a ? a : "?", b ? b : "?");
    free(a);
    free(b);
    free(data);
    case_free(&c);
    case_free(&copy);
    case_free(&rebuilt);
    return ok;
}

int main(void)
{
    tap t;
    tap_plan(&t, 2);
    bool ranges = true;
    for (uint64_t seed = 1; seed <= 20; seed++)
        ranges = ranges && roundtrip_ranges(seed);
    tap_ok(&t, ranges, "fuzz_io: written draws read back, head after tail, zeros when exhausted");
    unsigned exact = 0, total = 300;
    for (uint64_t i = 0; i < total; i++)
        exact += roundtrip_case(i, exact == i); /* details of the first difference only */
    /* Repairs change only what the budget or the nested-layout test forbids: rare. */
    tap_ok(&t, exact >= total * 95 / 100, "builder: %u of %u generated cases rebuild exactly", exact, total);
    return tap_done(&t);
}
