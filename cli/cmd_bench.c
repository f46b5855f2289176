/*
 * cmd_bench.c: `dmlcheck bench`: times a backend on fixed, large benchmark scenarios and
 * reports ns per element (ARGMIN/ARGMAX) or per output (MAX_POOLING2) next to the memory read
 * bandwidth measured in the same run, and whether the reference engine meets its goals
 * (issue 2).  Registered as a meson benchmark(), never a timed test.
 *
 * Structure: a table of scenarios (each builds its case from a fixed seed and states its
 * goal), bench_backend_case() that times any backend_vtable on a case, and the report.  A
 * backend other than the reference is timed the same way; goals are only judged for the
 * reference, since they are the reference's goals.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "backend.h"
#include "clock.h"
#include "case.h"
#include "dtype.h"
#include "error.h"
#include "half.h"
#include "prng.h"
#include "reference.h"

#define BENCH_SEED 0xbe7c4u

typedef enum bench_unit { BENCH_PER_ELEMENT, BENCH_PER_OUTPUT } bench_unit;

typedef struct bench_scenario {
    const char *name;
    const char *summary;
    void (*build)(dml_case *c, prng *p);
    bench_unit unit;
    double goal_ns;            /* goal per unit, single thread, default build, or 0 */
    double goal_bandwidth_pct; /* at least this % of read bandwidth, or 0 */
    const char *peer_goal;     /* a goal against a peer library, judged by bench/peers.py */
} bench_scenario;

/* Large buffers (inputs and the bandwidth buffer alike) are 2 MiB aligned and, where the
 * kernel offers it, backed by transparent huge pages, as numpy's and PyTorch's large arrays
 * are: with 4 KiB pages a read-only pass here measured a third slower (TLB misses), which is
 * the allocator's doing, not the engine's.  Freed with free(). */
#define BENCH_HUGE_PAGE ((size_t)2 << 20)
static void *bench_alloc(size_t bytes)
{
    size_t rounded = (bytes + BENCH_HUGE_PAGE - 1) / BENCH_HUGE_PAGE * BENCH_HUGE_PAGE;
    void *p = aligned_alloc(BENCH_HUGE_PAGE, rounded ? rounded : BENCH_HUGE_PAGE);
    if (!p) {
        fprintf(stderr, "dmlcheck bench: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE); /* advice only: without it the figures are lower */
#endif
    return p;
}

/* Uniform float32 bits in [-1, 1): ties are rare, as in real data. */
static void fill_f32(dml_case *c, prng *p)
{
    uint64_t bytes = case_tensor_bytes(&c->input);
    c->input_data = bench_alloc(bytes);
    for (uint64_t i = 0; i < bytes / 4; i++) {
        float v = (float)((double)(prng_next(p) >> 11) * 0x1p-52 - 1.0);
        memcpy(c->input_data + i * 4, &v, 4);
    }
}

static void fill_f16(dml_case *c, prng *p)
{
    uint64_t bytes = case_tensor_bytes(&c->input);
    c->input_data = bench_alloc(bytes);
    for (uint64_t i = 0; i < bytes / 2; i++) {
        uint16_t h = float_to_half((float)((double)(prng_next(p) >> 11) * 0x1p-52 - 1.0));
        memcpy(c->input_data + i * 2, &h, 2);
    }
}

static void arg_case(dml_case *c, DML_TENSOR_DATA_TYPE type, const UINT sizes[2],
                     const UINT *strides, UINT axis)
{
    case_init(c);
    c->op = OP_ARGMAX;
    case_tensor_set(&c->input, type, 2, sizes, strides);
    UINT out_sizes[2] = { sizes[0], sizes[1] };
    out_sizes[axis] = 1;
    case_tensor_set(&c->output, DML_TENSOR_DATA_TYPE_UINT32, 2, out_sizes, NULL);
    c->axis_count = 1;
    c->axes[0] = axis;
    c->direction = DML_AXIS_DIRECTION_INCREASING;
    case_link(c);
}

/* 64 MiB of float32, reduced along the contiguous axis. */
static void build_argmax_f32_inner(dml_case *c, prng *p)
{
    arg_case(c, DML_TENSOR_DATA_TYPE_FLOAT32, (const UINT[]){ 256, 65536 }, NULL, 1);
    fill_f32(c, p);
}

/* Reduced along the outer axis: a row of 16384 running bests. */
static void build_argmax_f32_outer(dml_case *c, prng *p)
{
    arg_case(c, DML_TENSOR_DATA_TYPE_FLOAT32, (const UINT[]){ 1024, 16384 }, NULL, 0);
    fill_f32(c, p);
}

/* A transposed view: logical {16384, 1024} stored column-major, reduced along axis 1, which
 * is the outer axis in memory. */
static void build_argmax_f32_permuted(dml_case *c, prng *p)
{
    arg_case(c, DML_TENSOR_DATA_TYPE_FLOAT32, (const UINT[]){ 16384, 1024 },
             (const UINT[]){ 1, 16384 }, 1);
    fill_f32(c, p);
}

static void build_argmax_f16_inner(dml_case *c, prng *p)
{
    arg_case(c, DML_TENSOR_DATA_TYPE_FLOAT16, (const UINT[]){ 256, 65536 }, NULL, 1);
    fill_f16(c, p);
}

/* ResNet's first pooling: 3x3 window, stride 2, padding 1, with UINT32 indices; NCHW, or
 * NHWC (channels innermost) for input, output and indices alike, as PyTorch's
 * channels_last. */
static void pool_case(dml_case *c, prng *p, bool nhwc)
{
    const UINT in[4] = { 8, 64, 112, 112 }, out[4] = { 8, 64, 56, 56 };
    const UINT in_nhwc[4] = { 112 * 112 * 64, 1, 112 * 64, 64 };
    const UINT out_nhwc[4] = { 56 * 56 * 64, 1, 56 * 64, 64 };
    case_init(c);
    c->op = OP_MAX_POOLING2;
    case_tensor_set(&c->input, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in, nhwc ? in_nhwc : NULL);
    case_tensor_set(&c->output, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out, nhwc ? out_nhwc : NULL);
    case_tensor_set(&c->indices, DML_TENSOR_DATA_TYPE_UINT32, 4, out, nhwc ? out_nhwc : NULL);
    c->spatial_count = 2;
    for (unsigned s = 0; s < 2; s++) {
        c->window[s] = 3;
        c->pool_strides[s] = 2;
        c->start_padding[s] = 1;
        c->end_padding[s] = 0;
        c->dilations[s] = 1;
    }
    case_link(c);
    fill_f32(c, p);
}

static void build_pool_3x3s2p1(dml_case *c, prng *p)
{
    pool_case(c, p, false);
}

static void build_pool_3x3s2p1_nhwc(dml_case *c, prng *p)
{
    pool_case(c, p, true);
}

/* Goals of issue 13 on the 2-core development machine: ratios to the read bandwidth of the
 * same run (for ARGMAX float16, of its 2-byte elements), an absolute figure for NCHW pooling,
 * and peers measured by bench/peers.py in the same run. */
static const bench_scenario scenarios[] = {
    { "argmax_f32_inner", "ARGMAX float32 {256,65536} over the contiguous axis 1",
      build_argmax_f32_inner, BENCH_PER_ELEMENT, 0, 90.0, "no slower than numpy" },
    { "argmax_f32_outer", "ARGMAX float32 {1024,16384} over the outer axis 0",
      build_argmax_f32_outer, BENCH_PER_ELEMENT, 0, 50.0, NULL },
    { "argmax_f32_permuted", "ARGMAX float32 {16384,1024} strides {1,16384} over axis 1",
      build_argmax_f32_permuted, BENCH_PER_ELEMENT, 0, 50.0, NULL },
    { "argmax_f16_inner", "ARGMAX float16 {256,65536} over the contiguous axis 1",
      build_argmax_f16_inner, BENCH_PER_ELEMENT, 0, 50.0, NULL },
    { "max_pooling2_3x3s2p1", "MAX_POOLING2 float32 8x64x112x112, 3x3 stride 2 pad 1, indices",
      build_pool_3x3s2p1, BENCH_PER_OUTPUT, 8.0, 0, NULL },
    { "max_pooling2_3x3s2p1_nhwc", "the same, input, output and indices NHWC (channels last)",
      build_pool_3x3s2p1_nhwc, BENCH_PER_OUTPUT, 0, 0, "no slower than PyTorch channels_last" },
};
#define SCENARIO_COUNT (sizeof scenarios / sizeof scenarios[0])

/* One read-only pass over `bytes` bytes (a multiple of 128), summed so it cannot be
 * skipped: four accumulators of 64-bit words, or of 32-byte vectors with software prefetch
 * where the CPU has AVX2 (only the vector loads reach the cache's bandwidth; from memory both
 * are alike).  The best of both is the yardstick. */
static uint64_t read_pass_words(const uint8_t *p, size_t bytes)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, w[4];
    for (size_t i = 0; i < bytes; i += sizeof w) {
        memcpy(w, p + i, sizeof w);
        s0 += w[0];
        s1 += w[1];
        s2 += w[2];
        s3 += w[3];
    }
    return s0 + s1 + s2 + s3;
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2"))) static uint64_t read_pass_avx2(const uint8_t *p, size_t bytes)
{
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < bytes; i += 128) {
        /* 8 KiB ahead, as the reference's scans do: the yardstick reads as fast as they can */
        _mm_prefetch((const char *)(p + i + 8192), _MM_HINT_T0);
        _mm_prefetch((const char *)(p + i + 8192 + 64), _MM_HINT_T0);
        s0 = _mm256_add_epi64(s0, _mm256_loadu_si256((const __m256i *)(p + i)));
        s1 = _mm256_add_epi64(s1, _mm256_loadu_si256((const __m256i *)(p + i + 32)));
        s2 = _mm256_add_epi64(s2, _mm256_loadu_si256((const __m256i *)(p + i + 64)));
        s3 = _mm256_add_epi64(s3, _mm256_loadu_si256((const __m256i *)(p + i + 96)));
    }
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes,
                        _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3)));
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#endif

typedef uint64_t (*read_pass_fn)(const uint8_t *, size_t);

/* The read passes this CPU has: the word pass, and the AVX2 one where it exists. */
static unsigned read_passes(read_pass_fn passes[2])
{
    passes[0] = read_pass_words;
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx2")) {
        passes[1] = read_pass_avx2;
        return 2;
    }
#endif
    return 1;
}

/* One thread's share of a concurrent pass: its slice, and the seconds it took. */
typedef struct read_slice {
    read_pass_fn pass;
    const uint8_t *p;
    size_t bytes;
    pthread_barrier_t *start;
    double seconds;
    uint64_t sum;
} read_slice;

static void *read_slice_pass(void *arg)
{
    read_slice *s = arg;
    pthread_barrier_wait(s->start);
    double t0 = clock_seconds();
    s->sum = s->pass(s->p, s->bytes);
    s->seconds = clock_seconds() - t0;
    return NULL;
}

/* Seconds for `threads` threads to read p together, each its own slice (a multiple of 128
 * bytes): the slowest thread's time, from a common start; negative when a thread cannot
 * be started. */
static double read_pass_threads(read_pass_fn pass, const uint8_t *p, size_t bytes,
                                unsigned threads, volatile uint64_t *sink)
{
    enum { MAX_THREADS = 2 };
    read_slice slices[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, threads);
    size_t share = bytes / threads / 128 * 128;
    unsigned started = 0;
    for (unsigned t = 0; t < threads; t++) {
        slices[t] = (read_slice){ pass, p + t * share, t + 1 < threads ? share : bytes - t * share,
                                  &start, 0, 0 };
        if (t > 0 && pthread_create(&ids[t], NULL, read_slice_pass, &slices[t]))
            break;
        started = t + 1;
    }
    double slowest = -1;
    if (started == threads) {
        read_slice_pass(&slices[0]);
        slowest = 0;
    }
    for (unsigned t = 1; t < started; t++)
        pthread_join(ids[t], NULL);
    pthread_barrier_destroy(&start);
    for (unsigned t = 0; slowest >= 0 && t < threads; t++) {
        *sink += slices[t].sum;
        slowest = slices[t].seconds > slowest ? slices[t].seconds : slowest;
    }
    return slowest;
}

/* Read bandwidth over p in bytes per second with one or two threads reading it together:
 * the best of `repeat` passes of each kind (two threads read half each, at once; a machine
 * with two cores is bounded by what they reach together, not by twice one thread's). */
static double read_bandwidth_of(const uint8_t *p, size_t bytes, unsigned repeat, unsigned threads)
{
    bytes -= bytes % 128;
    read_pass_fn passes[2];
    unsigned kinds = read_passes(passes);
    double best = 1e30;
    volatile uint64_t sink = 0;
    for (unsigned k = 0; k < kinds; k++)
        for (unsigned r = 0; r < repeat; r++) {
            double t = read_pass_threads(passes[k], p, bytes, threads, &sink);
            if (t < 0) {
                fprintf(stderr, "dmlcheck bench: cannot start a reading thread\n");
                exit(2);
            }
            best = t < best ? t : best;
        }
    return (double)bytes / best;
}

/* Memory read bandwidth in bytes per second, over a 256 MiB buffer, with 1 or 2 threads. */
static void measure_read_bandwidth(unsigned repeat, double *one, double *two)
{
    const size_t words = (size_t)32 << 20;
    uint64_t *buf = bench_alloc(words * sizeof *buf);
    for (size_t i = 0; i < words; i++)
        buf[i] = i * 0x9e3779b97f4a7c15ull;
    *one = read_bandwidth_of((const uint8_t *)buf, words * sizeof *buf, repeat, 1);
    *two = read_bandwidth_of((const uint8_t *)buf, words * sizeof *buf, repeat, 2);
    free(buf);
}

/* Times `repeat` runs of backend b on c (after one warm-up run) and returns the best time
 * in seconds, or a negative value when the backend fails (message printed).  *kernels is
 * the best device time of the kernels alone where the backend reports it, else -1;
 * *profile the phases of the best run where the backend records them (else count 0). */
static double bench_backend_case(const backend_vtable *vt, backend *b, const dml_case *c,
                                 unsigned repeat, double *kernels, backend_run_profile *profile)
{
    *kernels = -1;
    *profile = (backend_run_profile){ 0 };
    case_outputs out;
    if (!case_outputs_alloc(&out, c)) {
        fprintf(stderr, "dmlcheck bench: out of memory for outputs\n");
        return -1;
    }
    exec_options opt = { NAN_POLICY_IGNORE, false };
    double best = 1e30;
    for (unsigned r = 0; r <= repeat; r++) {
        dmlc_error err = { { 0 } };
        double t0 = clock_seconds();
        run_status s = vt->run(b, c, &opt, &out, &err);
        double t = clock_seconds() - t0;
        if (s != RUN_OK) {
            fprintf(stderr, "dmlcheck bench: backend %s failed: %s: %s\n", vt->name,
                    run_status_name(s), err.msg);
            case_outputs_free(&out);
            return -1;
        }
        if (r > 0 && t < best) { /* run 0 warms caches, pages and kernels */
            best = t;
            if (!vt->run_profile || !vt->run_profile(b, profile))
                *profile = (backend_run_profile){ 0 };
        }
        double k = vt->kernel_seconds ? vt->kernel_seconds(b) : -1;
        if (r > 0 && k >= 0 && (*kernels < 0 || k < *kernels))
            *kernels = k;
    }
    case_outputs_free(&out);
    return best;
}

static uint64_t scenario_units(const bench_scenario *s, const dml_case *c)
{
    return s->unit == BENCH_PER_ELEMENT ? case_tensor_elements(&c->input)
                                        : case_tensor_elements(&c->output);
}

/* Outcome of one scenario. */
enum { SCENARIO_OK, SCENARIO_MISSED, SCENARIO_FAILED };

/* What one scenario measured on one backend (seconds; kernels -1 when not reported). */
typedef struct scenario_times {
    double seconds, kernels;
} scenario_times;

/* The whole call's time over the kernels' alone may be at most this (issue 22). */
#define WHOLE_OVER_KERNELS_GOAL 2.0

/* Whole call against kernels alone, and where the rest went: the best run's phases, and the
 * plain host<->device copies of the same bytes measured now, which a discrete device
 * cannot avoid. */
static void print_whole_over_kernels(const bench_scenario *s, const backend_vtable *vt,
                                     backend *b, const dml_case *c, unsigned repeat,
                                     double seconds, double kernels,
                                     const backend_run_profile *profile)
{
    double ratio = seconds / kernels;
    printf("%-26s whole call / kernels alone: %.1fx, goal <= %.0fx: %s", s->name, ratio,
           WHOLE_OVER_KERNELS_GOAL, ratio <= WHOLE_OVER_KERNELS_GOAL ? "met" : "MISSED");
    if (ratio > WHOLE_OVER_KERNELS_GOAL && profile->count) {
        unsigned passes = 0;
        double outside = 0;
        for (unsigned i = 0; i < profile->count; i++)
            if (strcmp(profile->phases[i].name, "device: kernels")) {
                passes += profile->phases[i].input_passes;
                outside += profile->phases[i].seconds;
            }
        printf(", gap: %u passes over the input outside the kernels costing %.2f ms", passes,
               outside * 1e3);
    }
    printf("\n");
    double in_bytes = (double)case_tensor_bytes(&c->input);
    for (unsigned i = 0; i < profile->count; i++) {
        const backend_run_phase *ph = &profile->phases[i];
        printf("    %-56s %8.3f ms", ph->name, ph->seconds * 1e3);
        if (ph->input_passes && ph->seconds > 0)
            printf("  %u pass%s, %5.1f GB/s of input", ph->input_passes,
                   ph->input_passes == 1 ? "" : "es", in_bytes * ph->input_passes / ph->seconds * 1e-9);
        printf("\n");
    }
    double to, from;
    dmlc_error err = { { 0 } };
    if (!vt->transfer_bandwidth)
        return;
    if (!vt->transfer_bandwidth(b, (uint64_t)in_bytes, repeat, &to, &from, &err)) {
        printf("    plain transfers not measured: %s\n", err.msg);
        return;
    }
    double out_bytes = (double)case_tensor_bytes(&c->output)
                       + (c->indices.present ? (double)case_tensor_bytes(&c->indices) : 0);
    double floor = in_bytes / to + out_bytes / from;
    printf("    plain copies of the input's %.0f MiB: to the device %.1f GB/s, back %.1f GB/s; input "
           "in + outputs back %.3f ms: the whole call is %.1fx that, the kernels %.2fx\n",
           in_bytes / (1 << 20), to * 1e-9, from * 1e-9, floor * 1e3, seconds / floor,
           kernels / floor);
}

/* Runs one scenario, prints its line and fills *times. */
static int run_scenario(const bench_scenario *s, const backend_vtable *vt, backend *b,
                        unsigned repeat, bool judge_goals, scenario_times *times)
{
    prng p;
    prng_seed2(&p, BENCH_SEED, prng_hash_str(s->name));
    dml_case c;
    s->build(&c, &p);
    double kernels;
    backend_run_profile profile;
    double seconds = bench_backend_case(vt, b, &c, repeat, &kernels, &profile);
    times->seconds = seconds;
    times->kernels = kernels;
    if (seconds < 0) {
        case_free(&c);
        return SCENARIO_FAILED;
    }
    uint64_t units = scenario_units(s, &c);
    double ns = seconds * 1e9 / (double)units;
    const char *unit = s->unit == BENCH_PER_ELEMENT ? "element" : "output";
    printf("%-26s %-10s %8.3f ns/%-7s", s->name, vt->name, ns, unit);
    bool met = true;
    if (s->unit == BENCH_PER_ELEMENT) {
        /* The same bytes at the same place: a 64 MiB input may sit in a large last-level
         * cache, where the 256 MiB buffer of the first line does not. */
        double input_bytes = (double)case_tensor_bytes(&c.input);
        double read = read_bandwidth_of(c.input_data, case_tensor_bytes(&c.input), repeat, 1);
        double pct = 100.0 * (input_bytes / seconds) / read;
        printf("  %5.1f%% of its input's read bandwidth (%.1f GB/s)", pct, read * 1e-9);
        if (s->goal_bandwidth_pct > 0)
            met &= pct >= s->goal_bandwidth_pct;
        if (kernels >= 0) {
            /* Kernels on every core are bounded by what two threads read together. */
            double read2 = read_bandwidth_of(c.input_data, case_tensor_bytes(&c.input), repeat, 2);
            printf("\n%-26s %-10s %8.3f ns/%-7s  %5.1f%% of its input's 2-thread read bandwidth "
                   "(%.1f GB/s)", "", "kernels", kernels * 1e9 / (double)units, unit,
                   100.0 * (input_bytes / kernels) / read2, read2 * 1e-9);
        }
    } else {
        printf("  %52s", "");
        if (kernels >= 0)
            printf("\n%-26s %-10s %8.3f ns/%-7s", "", "kernels", kernels * 1e9 / (double)units,
                   unit);
    }
    if (s->goal_ns > 0)
        met &= ns <= s->goal_ns;
    if (judge_goals) {
        printf("  goal");
        if (s->goal_ns > 0)
            printf(" <= %.1f ns", s->goal_ns);
        if (s->goal_bandwidth_pct > 0)
            printf(" >= %.0f%% bw", s->goal_bandwidth_pct);
        if (s->goal_ns > 0 || s->goal_bandwidth_pct > 0)
            printf(": %s", met ? "met" : "MISSED");
        if (s->peer_goal)
            printf("%s%s: bench/peers.py", s->goal_ns > 0 || s->goal_bandwidth_pct > 0 ? "; " : " ",
                   s->peer_goal);
        printf("\n");
    } else {
        printf("\n");
    }
    if (kernels > 0)
        print_whole_over_kernels(s, vt, b, &c, repeat, seconds, kernels, &profile);
    case_free(&c);
    return met || !judge_goals ? SCENARIO_OK : SCENARIO_MISSED;
}

/* The reference's time over the backend's: above 1, the backend is faster. */
static void print_speedup(const bench_scenario *s, const char *name, const scenario_times *mine,
                          const scenario_times *reference)
{
    printf("%-26s speed-up over the reference: %s %.2fx", s->name, name,
           reference->seconds / mine->seconds);
    if (mine->kernels > 0)
        printf(", its kernels alone %.2fx", reference->seconds / mine->kernels);
    printf("\n");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: dmlcheck bench [--backend NAME] [--scenario NAME]... [--repeat N]\n"
            "                      [--check-goals] [--list]\n\n"
            "Times a backend (default: reference) on large benchmark cases, single thread,\n"
            "and prints ns per element (ARGMIN/ARGMAX) or per output (MAX_POOLING2) next\n"
            "to the memory read bandwidth measured in the same run.  For the reference,\n"
            "each scenario's goal is printed with 'met' or 'MISSED'.\n\n"
            "  --backend NAME    backend to time (see 'dmlcheck --help')\n"
            "  --scenario NAME   run only this scenario (repeatable)\n"
            "  --repeat N        timed runs per scenario, best kept (default 5)\n"
            "  --check-goals     exit 1 when a goal is missed\n"
            "  --list            list the scenarios and exit\n");
}

static int bench_in_child(const char *backend_name, const bool *selected, bool any_selected,
                          unsigned repeat, bool check_goals);

int cmd_bench(int argc, char **argv)
{
    static const struct option options[] = {
        { "backend", required_argument, NULL, 'b' }, { "scenario", required_argument, NULL, 's' },
        { "repeat", required_argument, NULL, 'r' },  { "check-goals", no_argument, NULL, 'c' },
        { "list", no_argument, NULL, 'l' },          { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *backend_name = "reference";
    bool selected[SCENARIO_COUNT] = { false }, any_selected = false, check_goals = false;
    unsigned repeat = 5;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "b:s:r:clh", options, NULL)) != -1) {
        switch (opt) {
        case 'b': backend_name = optarg; break;
        case 'r': {
            char *end;
            unsigned long n = strtoul(optarg, &end, 10);
            if (*end || n < 1 || n > 1000) {
                fprintf(stderr, "dmlcheck bench: --repeat must be 1..1000, got '%s'\n", optarg);
                return 2;
            }
            repeat = (unsigned)n;
            break;
        }
        case 's': {
            size_t i = 0;
            while (i < SCENARIO_COUNT && strcmp(scenarios[i].name, optarg))
                i++;
            if (i == SCENARIO_COUNT) {
                fprintf(stderr, "dmlcheck bench: unknown scenario '%s' (see --list)\n", optarg);
                return 2;
            }
            selected[i] = any_selected = true;
            break;
        }
        case 'c': check_goals = true; break;
        case 'l':
            for (size_t i = 0; i < SCENARIO_COUNT; i++)
                printf("%-26s %s\n", scenarios[i].name, scenarios[i].summary);
            return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "dmlcheck bench: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    return bench_in_child(backend_name, selected, any_selected, repeat, check_goals);
}

/* The measurement itself: what `dmlcheck bench` prints, and its exit code. */
static int bench_backend(const char *backend_name, const bool *selected, bool any_selected,
                         unsigned repeat, bool check_goals)
{
    const char *args = NULL;
    const backend_vtable *vt = backend_select(backend_name, &args);
    if (!vt) {
        fprintf(stderr, "dmlcheck bench: unknown backend '%s'\n", backend_name);
        return 2;
    }
    dmlc_error err = { { 0 } };
    backend *b = vt->open(NULL, args, &err);
    if (!b) {
        fprintf(stderr, "dmlcheck bench: cannot open backend %s: %s\n", vt->name, err.msg);
        return 2;
    }
    bool judge = !strcmp(vt->name, "reference");
    double bandwidth, bandwidth2;
    measure_read_bandwidth(repeat < 3 ? 3 : repeat, &bandwidth, &bandwidth2);
    printf("memory read bandwidth (256 MiB): %.2f GB/s (%.3f ns per 4-byte element), best of %u runs\n",
           bandwidth * 1e-9, 4e9 / bandwidth, repeat < 3 ? 3 : repeat);
    printf("  two threads reading together: %.2f GB/s (%.2fx one thread)\n", bandwidth2 * 1e-9,
           bandwidth2 / bandwidth);
    if (judge)
        printf("reference kernels: %s (DMLCHECK_REFERENCE_PORTABLE=1 selects the portable ones)\n",
               ref_kernels_name());
    bool missed = false, failed = false;
    /* Another backend's figures are printed next to the reference's on the same case. */
    const backend_vtable *ref_vt = judge ? NULL : backend_find("reference");
    backend *ref = ref_vt ? ref_vt->open(NULL, NULL, &err) : NULL;
    for (size_t i = 0; i < SCENARIO_COUNT; i++)
        if (!any_selected || selected[i]) {
            scenario_times mine, theirs;
            int outcome = run_scenario(&scenarios[i], vt, b, repeat, judge, &mine);
            missed |= outcome == SCENARIO_MISSED;
            failed |= outcome == SCENARIO_FAILED;
            if (ref && run_scenario(&scenarios[i], ref_vt, ref, repeat, false, &theirs) == SCENARIO_OK
                && outcome != SCENARIO_FAILED)
                print_speedup(&scenarios[i], vt->name, &mine, &theirs);
        }
    if (ref)
        ref_vt->close(ref);
    /* Figures only this backend has (OpenCL: tiny-case overhead and start-up). */
    if (vt->bench_extra && !vt->bench_extra(stdout, NULL, b, &err)) {
        fprintf(stderr, "dmlcheck bench: %s\n", err.msg);
        failed = true;
    }
    vt->close(b);
    return failed ? 2 : check_goals && missed ? 1 : 0;
}

/* Code under test may crash where it runs in this process (PoCL writes through a failed
 * allocation while loading a program under a tight `ulimit -v`): the measurement runs in a
 * child, so such a crash is reported as the backend's, with exit 2, not inherited. */
static int bench_in_child(const char *backend_name, const bool *selected, bool any_selected,
                          unsigned repeat, bool check_goals)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "dmlcheck bench: cannot start the measurement: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        int rc = bench_backend(backend_name, selected, any_selected, repeat, check_goals);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "dmlcheck bench: lost the measurement: %s\n", strerror(errno));
            return 2;
        }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    char name[512];
    fprintf(stderr, "dmlcheck bench: the measurement died of signal %d (%s) in backend %s's code "
                    "or the driver's; a memory limit (ulimit -v) too tight for the driver does "
                    "this\n", WTERMSIG(status), strsignal(WTERMSIG(status)),
            err_printable(backend_name, false, name, sizeof name));
    return 2;
}
