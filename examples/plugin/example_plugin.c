/*
 * example_plugin.c: a complete, minimal dmlcheck plug-in (dmlcheck/plugin.h) that a newcomer
 * can copy.  It implements ARGMIN and ARGMAX on FLOAT32 and INT32 inputs, MAX_POOLING1 and
 * MAX_POOLING2 on FLOAT32, and claims exactly that per operator (dmlcheck_operator_claim, ABI
 * 1.1), with plain loops over logical coordinates, reading every tensor through its Strides, and
 * follows docs/SEMANTICS.md: ties go to the first element (the last for ARGMIN/ARGMAX
 * DECREASING), +0 and -0 tie, padding never wins, a NaN never beats a number.
 *
 * Build it against the installed header:
 *     cc -shared -fPIC $(pkg-config --cflags dmlcheck-plugin) example_plugin.c -o libexample.so
 *     dmlcheck run --backend plugin:./libexample.so --cases 2000
 *
 * Arguments (after the path, comma-separated): bug=ties, bug=padding or bug=crash plant a
 * classic implementation bug, bug=index16 (indices held in 16 bits) and bug=last_chunk (a
 * reduction split into 4096-element chunks that drops a partial last chunk) two that only
 * large tensors show, bug=rank16 (the winner's rank counted from where the scan starts, the
 * reduction's end under DECREASING, held in 16 bits: right while the winner is within 65,535
 * of that end) and bug=merge_ties (the reduction split into 4096-element chunks whose winners
 * are merged with ties broken by their rank within the chunk, not in the reduction: right
 * while the tied winners sit at the reduction's ends) two that only winners deep inside long
 * reductions show, bug=rank8 (room for seven dimensions once mergeable ones are merged:
 * an eighth loses its stride) one that only rank 8 shows, bug=flaky (one execution in 499
 * answers wrong, as a race would) one that does not repeat, bug=refuse (5-D pooling refused as invalid) and bug=unsupported
 * (rank-8 inputs unsupported) a gap in what the plug-in claims, and bug=nan_sticky (a running
 * `if (v > best)` seeded with the scan's first element: a NaN there is never replaced, later
 * NaNs never win) a NaN behaviour, first-sticky in the report's NaN-policy fingerprint, and
 * bug=dilation (pooling windows read as if every dilation were 1) a geometry bug, so a
 * first run shows what a failing report looks like (several bug= arguments plant several):
 *     dmlcheck run --backend plugin:./libexample.so,bug=ties --types FLOAT32 --cases 2000
 * without=NAME (ARGMIN, ARGMAX, MAX_POOLING1 or MAX_POOLING2; may be repeated) leaves an
 * operator out of what the plug-in implements and claims: a partial implementation, which
 * earns "CONFORMANT for what it claims" when the rest passes.
 *
 * More planted root causes, each a few lines where real code goes wrong, each named after the
 * diagnosis catalogue's id it must be confirmed as (docs/DIAGNOSIS.md):
 *   bug=signed_zero    -0 below +0 (a total order)                   signed_zero_not_tied
 *   bug=float_bits     floats compared as their bits read as int32    float_compared_as_int_bits
 *   bug=seed_lowest    running best seeded with -FLT_MAX (ARGMIN: FLT_MAX)
 *                                                                    best_seeded_with_lowest_finite
 *   bug=strides        input Strides ignored when the buffer holds a packed tensor
 *                                                                    input_strides_ignored
 *   bug=out_strides    output Strides ignored (the same test)          output_strides_ignored
 *   bug=axes_order     reduced axes walked in Axes' listed order       axes_in_listed_order
 *   bug=column_major   reduced axes walked first-fastest               reduced_index_column_major
 *   bug=plane_index    pooling index counted within the N,C plane      pool_index_within_plane
 *   bug=offset_index   pooling index = the winner's buffer offset      pool_index_is_buffer_offset
 * and the older ones: ties -> tie_direction_flipped, padding -> padding_as_zero_value,
 * dilation -> dilation_ignored, index16 -> index_narrowed_16, nan_sticky -> nan_first_sticky.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmlcheck/plugin.h>

#define MAX_RANK 8

#define BUGS(X) X(NONE, "") X(TIES, "ties") X(PADDING, "padding") X(CRASH, "crash") \
    X(INDEX16, "index16") X(LAST_CHUNK, "last_chunk") X(RANK8, "rank8") X(FLAKY, "flaky")            \
    X(RANK16, "rank16") X(MERGE_TIES, "merge_ties")                                                     \
    X(REFUSE, "refuse") X(UNSUPPORTED, "unsupported") X(NAN_STICKY, "nan_sticky")          \
    X(DILATION, "dilation") X(SIGNED_ZERO, "signed_zero") X(FLOAT_BITS, "float_bits")              \
    X(SEED_LOWEST, "seed_lowest") X(STRIDES, "strides") X(OUT_STRIDES, "out_strides")      \
    X(AXES_ORDER, "axes_order") X(COLUMN_MAJOR, "column_major") X(PLANE_INDEX, "plane_index") \
    X(OFFSET_INDEX, "offset_index")

typedef enum bug {
#define X(id, name) BUG_##id,
    BUGS(X)
#undef X
} bug;

static const char *const bug_names[] = {
#define X(id, name) name,
    BUGS(X)
#undef X
};

/* The planted split: work-items each take this many elements of a reduction. */
#define CHUNK_ELEMENTS 4096

#define OPERATOR_COUNT 4

typedef struct context {
    unsigned bugs;            /* bit (1u << BUG_x) per planted bug: several may be given */
    unsigned long executions; /* bug=flaky: which execution this is */
    /* What this instance implements and claims: all four operators unless without=OP left
     * some out (a partial implementation, as most are). */
    DML_OPERATOR_TYPE operators[OPERATOR_COUNT];
    dmlcheck_operator_claim claims[OPERATOR_COUNT];
    size_t operator_count;
} context;

static bool planted(const context *ctx, bug b)
{
    return (ctx->bugs >> b) & 1u;
}

/* bug=flaky: one execution in this many answers wrong, as a race would. */
#define FLAKY_PERIOD 499

/* A tensor as this plug-in keeps it: sizes and element strides, copied from the descriptor. */
typedef struct tensor {
    DML_TENSOR_DATA_TYPE type;
    unsigned rank;
    uint32_t sizes[MAX_RANK];
    uint64_t strides[MAX_RANK];
    uint64_t elements;
    uint64_t bytes; /* TotalTensorSizeInBytes */
} tensor;

typedef struct op {
    DML_OPERATOR_TYPE type;
    tensor in, out, idx;
    bool has_idx;
    bool reduced[MAX_RANK];         /* ARGMIN/ARGMAX */
    unsigned axes[MAX_RANK], axis_count; /* as Axes lists them */
    bool decreasing;
    unsigned spatial;               /* pooling */
    uint32_t stride[3], window[3], start[3], dilation[3];
} op;

static dmlcheck_status fail(char *message, size_t size, dmlcheck_status s, const char *text)
{
    snprintf(message, size, "%s", text);
    return s;
}

static bool tensor_from(const DML_TENSOR_DESC *d, tensor *t)
{
    if (!d || d->Type != DML_TENSOR_TYPE_BUFFER || !d->Desc)
        return false;
    const DML_BUFFER_TENSOR_DESC *b = d->Desc;
    if (b->DimensionCount == 0 || b->DimensionCount > MAX_RANK)
        return false;
    t->type = b->DataType;
    t->rank = b->DimensionCount;
    t->bytes = b->TotalTensorSizeInBytes;
    t->elements = 1;
    for (unsigned i = t->rank; i-- > 0;) {
        t->sizes[i] = b->Sizes[i];
        t->strides[i] = b->Strides ? b->Strides[i] : t->elements; /* packed: row-major */
        t->elements *= b->Sizes[i];
    }
    return true;
}

/* Buffer element offset of logical element `logical` (row-major over Sizes). */
static uint64_t offset_of(const tensor *t, uint64_t logical)
{
    uint64_t off = 0;
    for (unsigned i = t->rank; i-- > 0;) {
        off += (logical % t->sizes[i]) * t->strides[i];
        logical /= t->sizes[i];
    }
    return off;
}

static float load_f32(const void *buf, uint64_t elem)
{
    float v;
    memcpy(&v, (const char *)buf + elem * 4, 4);
    return v;
}

/* An ARGMIN/ARGMAX input element as a double: exact for FLOAT32 (NaN, infinities and the
 * sign of zero kept) and for INT32, the two types this plug-in claims for them. */
static double load_value(DML_TENSOR_DATA_TYPE type, const void *buf, uint64_t elem)
{
    if (type == DML_TENSOR_DATA_TYPE_INT32) {
        int32_t v;
        memcpy(&v, (const char *)buf + elem * 4, 4);
        return v;
    }
    return load_f32(buf, elem);
}

/* Writes an index in the output's integer type (bug=index16: as a 16-bit counter held it). */
static void store_index(const context *ctx, const tensor *t, void *buf, uint64_t elem, uint64_t value)
{
    char *p = buf;
    if (planted(ctx, BUG_INDEX16))
        value = (uint16_t)value;
    if (t->type == DML_TENSOR_DATA_TYPE_UINT64 || t->type == DML_TENSOR_DATA_TYPE_INT64)
        memcpy(p + elem * 8, &value, 8);
    else {
        uint32_t v = (uint32_t)value;
        memcpy(p + elem * 4, &v, 4);
    }
}

/* > 0 when a should replace b as the maximum: NaN never beats a number (D4, ignore). */
static int compare(const context *ctx, double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) == isnan(b) ? 0 : isnan(a) ? -1 : 1;
    if (planted(ctx, BUG_SIGNED_ZERO) && a == b && signbit(a) != signbit(b))
        return signbit(a) ? -1 : 1; /* the bug: -0 < +0, as totalOrder says */
    return a > b ? 1 : a < b ? -1 : 0; /* +0 == -0: a tie (D3) */
}

/* bug=float_bits: the bits compared as int32, as a radix sort's key before its sign flip. */
static int compare_bits(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    return ia > ib ? 1 : ia < ib ? -1 : 0;
}

/* > 0 when v should replace best in the operator's order (ARGMIN reversed). */
static int order_of(const context *ctx, double v, double best, bool minimize)
{
    if (planted(ctx, BUG_FLOAT_BITS))
        return minimize ? compare_bits((float)best, (float)v) : compare_bits((float)v, (float)best);
    return minimize ? compare(ctx, -v, -best) : compare(ctx, v, best);
}

/* bug=nan_sticky: does v replace the running best?  Plain comparison, so with a NaN on
 * either side nothing is replaced; equal values keep the first met. */
static bool sticky_beats(double v, double best, bool minimize)
{
    return minimize ? v < best : v > best;
}

/* Dimensions left once those of size 1 go and neighbours that walk memory as one (both
 * reduced or both kept, the outer stride the inner's span) merge: what a kernel's parameter
 * block must hold. */
static unsigned unmergeable_dims(const op *o)
{
    unsigned count = 0, last = MAX_RANK;
    for (unsigned i = 0; i < o->in.rank; i++) {
        if (o->in.sizes[i] == 1)
            continue;
        bool merges = last < MAX_RANK && o->reduced[last] == o->reduced[i]
                      && o->in.strides[last] == o->in.strides[i] * o->in.sizes[i];
        count += !merges;
        last = i;
    }
    return count;
}

/* Input coordinates rc of position r of the reduction next to output coordinates oc:
 * row-major over the reduced axes in ascending order (D2), or as a planted bug walks them. */
static void reduction_coords(const context *ctx, const op *o, uint64_t r, const uint32_t *oc,
                             uint32_t *rc)
{
    memcpy(rc, oc, sizeof(uint32_t) * o->in.rank);
    unsigned walk[MAX_RANK], n = 0; /* the reduced axes, slowest first */
    if (planted(ctx, BUG_AXES_ORDER)) /* the bug: Axes as listed */
        for (unsigned i = 0; i < o->axis_count; i++)
            walk[n++] = o->axes[i];
    else
        for (unsigned i = 0; i < o->in.rank; i++)
            if (o->reduced[i])
                walk[n++] = i;
    for (unsigned k = n; k-- > 0;) {
        unsigned i = planted(ctx, BUG_COLUMN_MAJOR) ? walk[n - 1 - k] : walk[k]; /* first fastest */
        rc[i] = (uint32_t)(r % o->in.sizes[i]);
        r /= o->in.sizes[i];
    }
}

/* bug=merge_ties: whether r, tied in value with the running best, replaces it when chunk
 * winners are merged by their rank within their chunk.  Within one chunk that order is the
 * reduction's, so it differs from the right one only between chunks. */
static bool merge_tie_replaces(uint64_t r, uint64_t best, bool decreasing)
{
    uint64_t rank = r % CHUNK_ELEMENTS, best_rank = best % CHUNK_ELEMENTS;
    return decreasing ? rank >= best_rank : rank < best_rank;
}

/* bug=rank16: the winner's rank from the end the scan starts at (the last element under
 * DECREASING), held in 16 bits, turned back into an index over the whole reduction. */
static uint64_t rank16_index(uint64_t best, uint64_t group, bool decreasing)
{
    uint64_t rank = (uint16_t)(decreasing ? group - 1 - best : best);
    return decreasing ? group - 1 - rank : rank;
}

static void run_arg_reduce(const context *ctx, const op *o, const dmlcheck_buffers *b)
{
    bool minimize = o->type == DML_OPERATOR_ARGMIN;
    uint64_t strides[MAX_RANK];
    memcpy(strides, o->in.strides, sizeof strides);
    if (planted(ctx, BUG_RANK8) && unmergeable_dims(o) > 7)
        strides[0] = 0; /* the planted overflow: the eighth dimension's stride had no slot */
    for (uint64_t out = 0; out < o->out.elements; out++) {
        uint32_t oc[MAX_RANK], rc[MAX_RANK];
        uint64_t rem = out;
        for (unsigned i = o->out.rank; i-- > 0;) {
            oc[i] = (uint32_t)(rem % o->out.sizes[i]);
            rem /= o->out.sizes[i];
        }
        uint64_t group = 1;
        for (unsigned i = 0; i < o->in.rank; i++)
            group *= o->reduced[i] ? o->in.sizes[i] : 1;
        uint64_t reduced = group;
        bool merges_chunks = planted(ctx, BUG_MERGE_TIES) && group > CHUNK_ELEMENTS;
        if (planted(ctx, BUG_LAST_CHUNK) && group > CHUNK_ELEMENTS)
            group -= group % CHUNK_ELEMENTS; /* the partial last chunk is never looked at */
        uint64_t best = 0;
        /* bug=seed_lowest: the running best starts at the lowest finite value, not at the
         * first element, so a losing infinity never beats it. */
        bool seeded = planted(ctx, BUG_SEED_LOWEST);
        double best_v = minimize ? FLT_MAX : -FLT_MAX;
        /* bug=nan_sticky walks the reduction in the direction's order (DECREASING from its end). */
        bool sticky = planted(ctx, BUG_NAN_STICKY), backwards = sticky && o->decreasing;
        for (uint64_t step = 0; step < group; step++) {
            uint64_t r = backwards ? group - 1 - step : step, off = 0;
            reduction_coords(ctx, o, r, oc, rc);
            for (unsigned i = 0; i < o->in.rank; i++)
                off += rc[i] * strides[i];
            double v = load_value(o->in.type, b->input, off);
            int c = order_of(ctx, v, best_v, minimize);
            bool later_wins = o->decreasing || planted(ctx, BUG_TIES);
            bool tie_replaces = merges_chunks ? merge_tie_replaces(r, best, o->decreasing) : later_wins;
            bool replaces = sticky ? sticky_beats(v, best_v, minimize) : c > 0 || (c == 0 && tie_replaces);
            if ((step == 0 && !seeded) || replaces) {
                best = r;
                best_v = v;
            }
        }
        if (planted(ctx, BUG_RANK16))
            best = rank16_index(best, reduced, o->decreasing);
        store_index(ctx, &o->out, b->output, offset_of(&o->out, out), best);
    }
}

static void run_pooling(const context *ctx, const op *o, const dmlcheck_buffers *b)
{
    for (uint64_t out = 0; out < o->out.elements; out++) {
        uint32_t oc[5];
        uint64_t rem = out, taps = 1;
        for (unsigned i = o->out.rank; i-- > 0;) {
            oc[i] = (uint32_t)(rem % o->out.sizes[i]);
            rem /= o->out.sizes[i];
        }
        for (unsigned s = 0; s < o->spatial; s++)
            taps *= o->window[s];
        bool found = planted(ctx, BUG_SEED_LOWEST); /* the seed bug: a best before any tap */
        float best_v = found ? -FLT_MAX : -INFINITY;
        uint64_t best = UINT64_MAX;
        for (uint64_t k = 0; k < taps; k++) { /* row-major over the window: first wins (D3) */
            uint32_t ic[5] = { oc[0], oc[1] };
            uint64_t kk = k;
            bool inside = true;
            for (unsigned s = o->spatial; s-- > 0;) {
                uint32_t dilation = planted(ctx, BUG_DILATION) ? 1 : o->dilation[s];
                int64_t pos = (int64_t)oc[2 + s] * o->stride[s] + (int64_t)(kk % o->window[s]) * dilation
                    - (int64_t)o->start[s];
                kk /= o->window[s];
                inside &= pos >= 0 && pos < (int64_t)o->in.sizes[2 + s];
                ic[2 + s] = inside ? (uint32_t)pos : 0;
            }
            if (!inside && !planted(ctx, BUG_PADDING))
                continue; /* D7: padding never wins */
            uint64_t flat = 0, off = 0;
            for (unsigned i = 0; i < o->in.rank; i++) {
                flat = flat * o->in.sizes[i] + ic[i];
                off += ic[i] * o->in.strides[i];
            }
            float v = inside ? load_f32(b->input, off) : 0.0f; /* the padding bug: zeros */
            bool replaces = planted(ctx, BUG_NAN_STICKY) ? sticky_beats(v, best_v, false)
                                                         : order_of(ctx, v, best_v, false) > 0;
            if (!found || replaces) {
                found = true;
                best_v = v;
                best = planted(ctx, BUG_OFFSET_INDEX) ? off : flat; /* the bug: where, not which */
                if (planted(ctx, BUG_PLANE_INDEX)) /* the bug: counted within the N,C plane */
                    best %= o->in.elements / ((uint64_t)o->in.sizes[0] * o->in.sizes[1]);
            }
        }
        memcpy((char *)b->output + offset_of(&o->out, out) * 4, &best_v, 4);
        if (o->has_idx)
            store_index(ctx, &o->idx, b->output_indices, offset_of(&o->idx, out), found ? best : UINT64_MAX);
    }
}

static const DML_OPERATOR_TYPE example_operators[OPERATOR_COUNT] = {
    DML_OPERATOR_ARGMIN, DML_OPERATOR_ARGMAX, DML_OPERATOR_MAX_POOLING1, DML_OPERATOR_MAX_POOLING2,
};

#define F32 (1u << DML_TENSOR_DATA_TYPE_FLOAT32)
#define I32 (1u << DML_TENSOR_DATA_TYPE_INT32)
/* What this file implements, per operator (ABI 1.1); output and indices types: all (0). */
static const dmlcheck_operator_claim example_claims[OPERATOR_COUNT] = {
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_ARGMIN, F32 | I32, 0, 0 },
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_ARGMAX, F32 | I32, 0, 0 },
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_MAX_POOLING1, F32, 0, 0 },
    { sizeof(dmlcheck_operator_claim), DML_OPERATOR_MAX_POOLING2, F32, 0, 0 },
};
static const char *const example_operator_names[OPERATOR_COUNT] = {
    "ARGMIN", "ARGMAX", "MAX_POOLING1", "MAX_POOLING2",
};

/* Keeps in ctx's operators and claims all but those that without=NAME arguments leave out. */
static void keep_operators(context *ctx, const bool left_out[OPERATOR_COUNT])
{
    ctx->operator_count = 0;
    for (size_t i = 0; i < OPERATOR_COUNT; i++)
        if (!left_out[i]) {
            ctx->operators[ctx->operator_count] = example_operators[i];
            ctx->claims[ctx->operator_count++] = example_claims[i];
        }
}

static bool implemented(const context *ctx, DML_OPERATOR_TYPE type)
{
    for (size_t i = 0; i < ctx->operator_count; i++)
        if (ctx->operators[i] == type)
            return true;
    return false;
}

/* without=NAME: which operator NAME is (OPERATOR_COUNT if none). */
static size_t operator_named(const char *name)
{
    size_t i = 0;
    while (i < OPERATOR_COUNT && strcmp(name, example_operator_names[i]))
        i++;
    return i;
}



static dmlcheck_status example_open(const char *const *args, void **context_out, char *message,
                                    size_t size)
{
    context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return fail(message, size, DMLCHECK_ERROR, "out of memory");
    bool left_out[OPERATOR_COUNT] = { false };
    for (size_t i = 0; args && args[i]; i++) {
        if (!strncmp(args[i], "without=", 8)) {
            size_t which = operator_named(args[i] + 8);
            if (which == OPERATOR_COUNT) {
                free(ctx);
                snprintf(message, size, "unknown operator in '%s' (without=ARGMIN, ARGMAX, "
                         "MAX_POOLING1 or MAX_POOLING2)", args[i]);
                return DMLCHECK_ERROR;
            }
            left_out[which] = true;
            continue;
        }
        size_t k = 1;
        while (k < sizeof bug_names / sizeof bug_names[0]
               && (strncmp(args[i], "bug=", 4) || strcmp(args[i] + 4, bug_names[k])))
            k++;
        if (k == sizeof bug_names / sizeof bug_names[0]) {
            size_t n = (size_t)snprintf(message, size, "unknown argument '%s' (bug=", args[i]);
            for (size_t b = 1; b < sizeof bug_names / sizeof bug_names[0] && n < size; b++)
                n += (size_t)snprintf(message + n, size - n, "%s%s", bug_names[b],
                                      b + 1 < sizeof bug_names / sizeof bug_names[0] ? ", bug=" : ")");
            free(ctx);
            return DMLCHECK_ERROR;
        }
        ctx->bugs |= 1u << k;
    }
    keep_operators(ctx, left_out);
    *context_out = ctx;
    return DMLCHECK_OK;
}

static dmlcheck_status example_capabilities(void *context_in, dmlcheck_capabilities *caps)
{
    const context *ctx = context_in;
    caps->max_feature_level = DML_FEATURE_LEVEL_5_0;
    /* For a dmlcheck before ABI 1.1, which reads no claims: the types every operator takes. */
    caps->operators = ctx->operators;
    caps->operator_count = ctx->operator_count;
    caps->input_types = F32;
    caps->flags = 0;
    if (DMLCHECK_CAPS_HAS_CLAIMS(caps)) {
        caps->claims = ctx->claims;
        caps->claim_count = ctx->operator_count;
    }
    return DMLCHECK_OK;
}

static void example_info(void *context_in, dmlcheck_info *info)
{
    const context *ctx = context_in;
    size_t size = sizeof info->platform;
    size_t n = (size_t)snprintf(info->platform, size, "dmlcheck example plug-in");
    const char *separator = " (bug=";
    for (size_t k = 1; k < sizeof bug_names / sizeof bug_names[0]; k++)
        if (planted(ctx, (bug)k) && n < size) {
            n += (size_t)snprintf(info->platform + n, size - n, "%s%s", separator, bug_names[k]);
            separator = "+";
        }
    if (ctx->bugs && n < size)
        snprintf(info->platform + n, size - n, ")");
    snprintf(info->device, sizeof info->device, "host CPU");
    snprintf(info->driver, sizeof info->driver, "1.0");
}

/* bug=strides, bug=out_strides: a buffer with room for the tensor packed is taken to hold
 * it packed, the "is it contiguous?" test done on the size alone. */
static void packed_if_room(tensor *t)
{
    unsigned element = t->type == DML_TENSOR_DATA_TYPE_UINT64 || t->type == DML_TENSOR_DATA_TYPE_INT64 ? 8 : 4;
    if (t->bytes < t->elements * element)
        return;
    uint64_t packed = 1;
    for (unsigned i = t->rank; i-- > 0; packed *= t->sizes[i])
        t->strides[i] = packed;
}

static dmlcheck_status create_arg_reduce(op *o, const DML_ARGMAX_OPERATOR_DESC *d)
{
    if (!tensor_from(d->InputTensor, &o->in) || !tensor_from(d->OutputTensor, &o->out)
        || d->AxisCount > MAX_RANK)
        return DMLCHECK_INVALID;
    o->axis_count = d->AxisCount;
    for (UINT i = 0; i < d->AxisCount; i++)
        if ((o->axes[i] = d->Axes[i]) < o->in.rank)
            o->reduced[d->Axes[i]] = true;
    o->decreasing = d->AxisDirection == DML_AXIS_DIRECTION_DECREASING;
    return DMLCHECK_OK;
}

/* MAX_POOLING1's struct is MAX_POOLING2's without Dilations: read it as such, dilation 1. */
static dmlcheck_status create_pooling(op *o, const DML_MAX_POOLING2_OPERATOR_DESC *d, bool dilations)
{
    if (!tensor_from(d->InputTensor, &o->in) || !tensor_from(d->OutputTensor, &o->out)
        || d->DimensionCount < 2 || d->DimensionCount > 3 || d->DimensionCount + 2 != o->in.rank)
        return DMLCHECK_INVALID;
    o->has_idx = d->OutputIndicesTensor != NULL;
    if (o->has_idx && !tensor_from(d->OutputIndicesTensor, &o->idx))
        return DMLCHECK_INVALID;
    o->spatial = d->DimensionCount;
    for (unsigned s = 0; s < o->spatial; s++) {
        o->stride[s] = d->Strides[s];
        o->window[s] = d->WindowSize[s];
        o->start[s] = d->StartPadding[s];
        o->dilation[s] = dilations ? d->Dilations[s] : 1;
    }
    return DMLCHECK_OK;
}

static dmlcheck_status example_create(void *context_in, const DML_OPERATOR_DESC *desc,
                                      DML_FEATURE_LEVEL feature_level, void **op_out, char *message,
                                      size_t size)
{
    const context *ctx = context_in;
    (void)feature_level;
    op *o = calloc(1, sizeof *o);
    if (!o)
        return fail(message, size, DMLCHECK_ERROR, "out of memory");
    o->type = desc->Type;
    dmlcheck_status s;
    if (!implemented(ctx, desc->Type))
        s = fail(message, size, DMLCHECK_UNSUPPORTED, "left out by a without= argument");
    else if (desc->Type == DML_OPERATOR_ARGMIN || desc->Type == DML_OPERATOR_ARGMAX)
        s = create_arg_reduce(o, desc->Desc); /* ARGMIN's struct has ARGMAX's layout */
    else if (desc->Type == DML_OPERATOR_MAX_POOLING1 || desc->Type == DML_OPERATOR_MAX_POOLING2)
        s = create_pooling(o, desc->Desc, desc->Type == DML_OPERATOR_MAX_POOLING2);
    else
        s = fail(message, size, DMLCHECK_UNSUPPORTED, "only ARGMIN, ARGMAX and MAX_POOLING1/2");
    bool arg_reduce = desc->Type == DML_OPERATOR_ARGMIN || desc->Type == DML_OPERATOR_ARGMAX;
    if (s == DMLCHECK_OK && o->in.type != DML_TENSOR_DATA_TYPE_FLOAT32
        && !(arg_reduce && o->in.type == DML_TENSOR_DATA_TYPE_INT32))
        s = fail(message, size, DMLCHECK_UNSUPPORTED, "only FLOAT32 inputs (and INT32 for ARGMIN/ARGMAX)");
    if (s == DMLCHECK_OK && planted(ctx, BUG_STRIDES))
        packed_if_room(&o->in);
    if (s == DMLCHECK_OK && planted(ctx, BUG_OUT_STRIDES)) {
        packed_if_room(&o->out);
        if (o->has_idx)
            packed_if_room(&o->idx);
    }
    if (s == DMLCHECK_OK && planted(ctx, BUG_REFUSE) && o->spatial == 3) /* the planted gaps */
        s = fail(message, size, DMLCHECK_INVALID, "5-D pooling is not valid here");
    if (s == DMLCHECK_OK && planted(ctx, BUG_UNSUPPORTED) && o->in.rank == 8)
        s = fail(message, size, DMLCHECK_UNSUPPORTED, "rank 8 is not supported");
    if (s == DMLCHECK_INVALID && !message[0])
        snprintf(message, size, "a tensor is not a buffer tensor of rank 1 to 8, or the pooling "
                 "DimensionCount does not fit the input");
    if (s != DMLCHECK_OK) {
        free(o);
        return s;
    }
    *op_out = o;
    return DMLCHECK_OK;
}

static dmlcheck_status example_execute(void *context_in, void *op_in, const dmlcheck_buffers *b,
                                       char *message, size_t size)
{
    context *ctx = context_in;
    /* The flaky bug answers as if ties went the other way, now and then. */
    bool flaked = planted(ctx, BUG_FLAKY) && ++ctx->executions % FLAKY_PERIOD == 0;
    context answered = *ctx;
    answered.bugs |= flaked ? 1u << BUG_TIES : 0;
    const op *o = op_in;
    (void)message;
    (void)size;
    if (planted(ctx, BUG_CRASH) && o->in.elements >= 2000)
        abort(); /* the planted crash: large inputs only, so the run goes on around it */
    if (o->type == DML_OPERATOR_ARGMIN || o->type == DML_OPERATOR_ARGMAX)
        run_arg_reduce(&answered, o, b);
    else
        run_pooling(&answered, o, b);
    return DMLCHECK_OK;
}

static void example_destroy(void *context_in, void *op_in)
{
    (void)context_in;
    free(op_in);
}

static void example_close(void *context_in)
{
    free(context_in);
}

static const dmlcheck_plugin example_plugin = {
    .abi_version = DMLCHECK_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(dmlcheck_plugin),
    .name = "example",
    .version = "1.0",
    .open = example_open,
    .capabilities = example_capabilities,
    .info = example_info,
    .create = example_create,
    .execute = example_execute,
    .destroy = example_destroy,
    .close = example_close,
};

DMLCHECK_PLUGIN_EXPORT const dmlcheck_plugin *dmlcheck_plugin_entry(uint32_t harness_abi_version)
{
    return harness_abi_version == DMLCHECK_PLUGIN_ABI_VERSION ? &example_plugin : NULL;
}
