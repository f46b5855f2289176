/*
 * report_drawing.c: the picture of a family's shrunk case (report_drawing.h).  Two walks over
 * the module's grid of the differing output element: the first finds the marked cells, the
 * second keeps the cells of every drawn position.  An axis longer than the drawing allows
 * keeps its ends and the neighbourhood of each marked cell; each run left out becomes one
 * gap position.  Marks come from the first difference's inputs at both indices; an answer
 * that holds a value (pooling without indices) marks the first deciding cell, in the tie
 * rule's order, that holds that value.
 */
#include "report_drawing.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "casefile.h"
#include "dtype.h"
#include "op.h"

/* Positions kept around a marked cell on each side, and at each end of a long axis. */
enum { AROUND_MARK_ROW = 3, AROUND_MARK_PLANE = 2, KEPT_AT_ENDS = 1 };
/* Longest plane side drawn whole (a reduced row: DRAWING_AXIS_MAX). */
enum { PLANE_SIDE_MAX = 12 };

/* How the first difference names the expected and the returned answer. */
typedef struct answer_marks {
    bool by_index[2];       /* an input element: logical[k] */
    uint64_t logical[2];
    bool by_value[2];       /* a value: bits[k] (the first deciding cell holding it) */
    uint64_t bits[2];
    bool found[2];          /* a cell is marked for it */
    uint64_t found_at[2][DECIDER_GRID_RANK];
} answer_marks;

typedef struct axis_plan {
    uint64_t start[DRAWING_AXIS_MAX]; /* first grid coordinate of each drawn position */
    unsigned slots;
} axis_plan;

typedef struct walk {
    const dml_case *c;
    tensor_view in;
    answer_marks *marks;
    failure_drawing *d;
    axis_plan *plan;
    bool *taken;  /* per drawn-position combination: a cell holds it */
} walk;

static uint64_t cell_bits(const walk *w, const decider_cell *cell)
{
    return dtype_load_bits(w->c->input_data, w->in.type, tensor_view_offset_coords(&w->in, cell->in));
}

static unsigned marks_of(const walk *w, const decider_cell *cell)
{
    unsigned m = 0;
    for (unsigned k = 0; k < 2; k++)
        if (w->marks->found[k]
            && !memcmp(w->marks->found_at[k], cell->at, sizeof cell->at[0] * w->d->rank))
            m |= 1u << k;
    return m;
}

/* First walk: where the answers lie. */
static bool find_marks(const decider_cell *cell, void *ctx)
{
    walk *w = ctx;
    answer_marks *a = w->marks;
    for (unsigned k = 0; k < 2 && !cell->padding; k++) {
        if (a->found[k])
            continue;
        bool hit = a->by_index[k] ? a->logical[k] == op_logical_of_coords(&w->c->input, cell->in)
                                  : a->by_value[k] && cell->decides && cell_bits(w, cell) == a->bits[k];
        if (hit) {
            a->found[k] = true;
            memcpy(a->found_at[k], cell->at, sizeof cell->at);
        }
    }
    return false;
}

static void add_interval(uint64_t *lo, uint64_t *hi, unsigned *n, uint64_t a, uint64_t b)
{
    lo[*n] = a;
    hi[*n] = b;
    (*n)++;
}

/* The drawn positions of one axis: all of it when short, else its ends and the marks'
 * neighbourhoods, each gap between them one position. */
static void plan_axis(const decider_grid *g, const answer_marks *a, unsigned axis, axis_plan *p)
{
    uint64_t extent = g->extent[axis];
    uint64_t longest = g->rank == 1 ? DRAWING_AXIS_MAX : PLANE_SIDE_MAX;
    uint64_t around = g->rank == 1 ? AROUND_MARK_ROW : AROUND_MARK_PLANE;
    uint64_t lo[4], hi[4];
    unsigned n = 0;
    if (extent <= longest) {
        add_interval(lo, hi, &n, 0, extent - 1);
    } else {
        add_interval(lo, hi, &n, 0, KEPT_AT_ENDS - 1);
        add_interval(lo, hi, &n, extent - KEPT_AT_ENDS, extent - 1);
        for (unsigned k = 0; k < 2; k++)
            if (a->found[k]) {
                uint64_t at = a->found_at[k][axis];
                add_interval(lo, hi, &n, at > around ? at - around : 0,
                             at + around < extent ? at + around : extent - 1);
            }
    }
    /* Sort the few intervals by start, then walk them. */
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && lo[j] < lo[j - 1]; j--) {
            uint64_t t = lo[j]; lo[j] = lo[j - 1]; lo[j - 1] = t;
            t = hi[j]; hi[j] = hi[j - 1]; hi[j - 1] = t;
        }
    uint64_t next = 0;
    p->slots = 0;
    for (unsigned i = 0; i < n; i++) {
        if (hi[i] < next)
            continue;
        if (lo[i] > next)
            p->start[p->slots++] = next; /* a gap */
        for (uint64_t x = lo[i] > next ? lo[i] : next; x <= hi[i]; x++)
            p->start[p->slots++] = x;
        next = hi[i] + 1;
    }
    if (next < extent)
        p->start[p->slots++] = next;
}

/* The drawn position of grid coordinate x (the last whose start is at or before it). */
static unsigned slot_of(const axis_plan *p, uint64_t x)
{
    unsigned s = 0;
    while (s + 1 < p->slots && p->start[s + 1] <= x)
        s++;
    return s;
}

static bool is_gap(const axis_plan *p, unsigned s, uint64_t extent)
{
    uint64_t end = s + 1 < p->slots ? p->start[s + 1] : extent;
    return end - p->start[s] > 1;
}

static void short_value(DML_TENSOR_DATA_TYPE t, uint64_t bits, char *buf, size_t size)
{
    if (dtype_is_float(t))
        snprintf(buf, size, "%.4g", dtype_bits_to_double(t, bits));
    else if (dtype_is_signed_int(t))
        snprintf(buf, size, "%" PRId64, dtype_bits_to_i64(t, bits));
    else
        snprintf(buf, size, "%" PRIu64, bits);
}

/* Second walk: one cell per drawn-position combination. */
static bool keep_cell(const decider_cell *cell, void *ctx)
{
    walk *w = ctx;
    failure_drawing *d = w->d;
    drawing_cell dc = { .decides = cell->decides, .padding = cell->padding };
    size_t flat = 0;
    for (unsigned a = 0; a < d->rank; a++) {
        dc.slot[a] = slot_of(&w->plan[a], cell->at[a]);
        dc.elided |= d->gap[a][dc.slot[a]];
        flat = flat * d->slots[a] + dc.slot[a];
    }
    if (w->taken[flat] || d->count == DRAWING_CELLS_MAX)
        return false;
    w->taken[flat] = true;
    if (!dc.elided && !cell->padding) {
        dc.logical = op_logical_of_coords(&w->c->input, cell->in);
        dc.marks = marks_of(w, cell);
        short_value(w->c->input.type, cell_bits(w, cell), dc.value, sizeof dc.value);
    }
    d->cells[d->count++] = dc;
    return false;
}

static bool hex_bits(json_t *v, uint64_t *bits)
{
    const char *s = json_string_value(v);
    char *end;
    if (!s)
        return false;
    *bits = strtoull(s, &end, 16);
    return end != s && !*end;
}

/* The input element an index picked (input_at_expected / input_at_got), when there is one. */
static bool picked_index(json_t *picked, uint64_t *logical)
{
    json_t *index = json_object_get(picked, "index");
    if (!json_is_integer(index) || json_integer_value(index) < 0)
        return false;
    *logical = (uint64_t)json_integer_value(index);
    return true;
}

static const char *const answer_names[2] = { "expected", "returned" };

/* "expected 0: input[0] = 0x1p+0 (0x3f800000)" into buf. */
static void answer_text(json_t *m, unsigned k, char *buf, size_t size)
{
    json_t *picked = json_object_get(m, k ? "input_at_got" : "input_at_expected");
    const char *value = json_string_value(json_object_get(m, k ? "got_value" : "expected_value"));
    const char *at = json_string_value(json_object_get(picked, "value"));
    json_t *index = json_object_get(picked, "index");
    if (at && json_is_integer(index))
        snprintf(buf, size, "%s %s: input element %" JSON_INTEGER_FORMAT " = %s", answer_names[k],
                 value ? value : "?", json_integer_value(index), at);
    else
        snprintf(buf, size, "%s %s", answer_names[k], value ? value : "?");
}

/* The output element the first difference names; false when it does not fit c. */
static bool output_element(json_t *m, const dml_case *c, uint32_t *out)
{
    json_t *coords = json_object_get(m, "coords");
    if (json_array_size(coords) != c->output.rank)
        return false;
    for (unsigned i = 0; i < c->output.rank; i++) {
        json_t *v = json_array_get(coords, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0
            || json_integer_value(v) >= (json_int_t)c->output.sizes[i])
            return false;
        out[i] = (uint32_t)json_integer_value(v);
    }
    return true;
}

static const char *tensor_name(json_t *m)
{
    const char *t = json_string_value(json_object_get(m, "tensor"));
    return t ? t : "output";
}

static void read_marks(json_t *m, const dml_case *c, answer_marks *a)
{
    for (unsigned k = 0; k < 2; k++) {
        json_t *picked = json_object_get(m, k ? "input_at_got" : "input_at_expected");
        a->by_index[k] = picked_index(picked, &a->logical[k]);
        /* A value answer (pooling's output) names its winner by value, in the input's type. */
        a->by_value[k] = !a->by_index[k] && !case_module(c)->output_is_index
            && !strcmp(tensor_name(m), "output")
            && hex_bits(json_object_get(m, k ? "got" : "expected"), &a->bits[k]);
    }
}

static void describe_drawing(json_t *m, const dml_case *c, const answer_marks *a, failure_drawing *d)
{
    char params[160], coords[96] = "";
    json_t *jc = json_object_get(m, "coords");
    size_t used = 0;
    for (size_t i = 0; i < json_array_size(jc) && used < sizeof coords; i++)
        used += (size_t)snprintf(coords + used, sizeof coords - used, "%s%" JSON_INTEGER_FORMAT,
                                 i ? "," : "", json_integer_value(json_array_get(jc, i)));
    case_module(c)->describe(c, params, sizeof params);
    snprintf(d->what, sizeof d->what, "%s %s[%s] (%s)", op_table[c->op].name,
             tensor_name(m), coords, params);
    for (unsigned k = 0; k < 2; k++)
        answer_text(m, k, k ? d->returned : d->expected, sizeof d->expected);
    if (!a->found[0] && !a->found[1])
        snprintf(d->note, sizeof d->note, "neither answer is a drawn input element (a window wholly "
                 "in padding has no winner; a value from padding is no input)");
    else if (!a->found[0] || !a->found[1])
        snprintf(d->note, sizeof d->note, "the %s answer is no input element of the drawing",
                 answer_names[a->found[0] ? 1 : 0]);
}

static bool draw_case(json_t *m, const dml_case *c, failure_drawing *d, dmlc_error *err)
{
    uint32_t out[DML_MAX_RANK];
    if (!output_element(m, c, out))
        return err_set(err, "the first difference names no output element of the shrunk case");
    answer_marks a;
    memset(&a, 0, sizeof a);
    read_marks(m, c, &a);
    decider_grid g;
    walk w = { .c = c, .marks = &a, .d = d };
    case_tensor_view(&c->input, &w.in);
    case_module(c)->visit_grid(c, out, &g, find_marks, &w);
    axis_plan plan[DECIDER_GRID_RANK];
    size_t combos = 1;
    d->rank = g.rank;
    d->reduction = case_module(c)->output_is_index;
    memcpy(d->axis_name, g.axis_name, sizeof d->axis_name);
    for (unsigned ax = 0; ax < g.rank; ax++) {
        plan_axis(&g, &a, ax, &plan[ax]);
        d->slots[ax] = plan[ax].slots;
        combos *= plan[ax].slots;
        for (unsigned s = 0; s < plan[ax].slots; s++) {
            d->label[ax][s] = g.first[ax] + (int64_t)plan[ax].start[s];
            d->gap[ax][s] = is_gap(&plan[ax], s, g.extent[ax]);
        }
    }
    w.plan = plan;
    w.taken = calloc(combos, 1);
    if (!w.taken)
        return err_set(err, "out of memory drawing a shrunk case");
    case_module(c)->visit_grid(c, out, &g, keep_cell, &w);
    free(w.taken);
    describe_drawing(m, c, &a, d);
    return true;
}

bool drawing_of_shrunk(const char *case_json, const char *mismatch_json, failure_drawing *d,
                       dmlc_error *err)
{
    memset(d, 0, sizeof *d);
    if (!case_json || !mismatch_json)
        return err_set(err, "no first difference was recorded at the shrunk case");
    json_error_t jerr;
    json_t *m = json_loads(mismatch_json, 0, &jerr);
    if (!m)
        return err_set(err, "the first difference at the shrunk case does not parse: %s", jerr.text);
    dml_case c;
    case_init(&c);
    bool ok = casefile_parse(case_json, strlen(case_json), &c, err);
    if (ok && !c.input_data)
        ok = err_set(err, "the shrunk case has no input values to draw");
    ok = ok && draw_case(m, &c, d, err);
    case_free(&c);
    json_decref(m);
    return ok;
}

const drawing_cell *drawing_cell_at(const failure_drawing *d, const unsigned *slot)
{
    for (unsigned i = 0; i < d->count; i++)
        if (!memcmp(d->cells[i].slot, slot, sizeof(unsigned) * d->rank))
            return &d->cells[i];
    return NULL;
}
