/* bench_gen.c: cases per second of gen_case alone (default options, one seed), for the
 * runner's overhead budget.  A meson benchmark, never a test: timings assert nothing.
 * Usage: bench_gen [CASES [MAX_ELEMENTS]]. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gen.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    uint64_t cases = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
    gen_options opt;
    gen_options_default(&opt);
    if (argc > 2)
        opt.max_elements = strtoull(argv[2], NULL, 10);
    uint64_t elements = 0, bytes = 0;
    double start = now_seconds();
    for (uint64_t i = 0; i < cases; i++) {
        dml_case c;
        gen_info info;
        dmlc_error err;
        if (!gen_case(1, i, &opt, &c, &info, &err)) {
            fprintf(stderr, "bench_gen: case 1:%" PRIu64 ": %s\n", i, err.msg);
            return 2;
        }
        elements += case_tensor_elements(&c.input);
        bytes += case_tensor_bytes(&c.input);
        case_free(&c);
    }
    double seconds = now_seconds() - start;
    printf("gen_case: %" PRIu64 " cases (max_elements %" PRIu64 ") in %.3f s: %.0f cases/s, "
           "%.2f us/case, mean %.0f input elements, %.0f input bytes\n",
           cases, opt.max_elements, seconds, (double)cases / seconds, seconds * 1e6 / (double)cases,
           (double)elements / (double)cases, (double)bytes / (double)cases);
    return 0;
}
