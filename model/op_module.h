/*
 * op_module.h: an operator family's module.  Everything that differs between operators is a
 * member of one op_module (model/ops/<module>.c defines op_module_<module>, ops.def names it
 * per operator): case-file fields, the DML descriptor, validation rules and type tables per
 * feature level, the geometry (output sizes, which input elements decide an output element,
 * what an index points at), shape generation and shrink moves, and the text that describes a
 * case's parameters.  Code outside model/ops/ reaches operators only through this table, so
 * a new operator is a row of ops.def plus, for a new family, one module; a hook a module
 * leaves NULL is a failing test (tests/unit/test_op_module.c), never a silent fall-through.
 *
 * Every hook takes a case of the module's family; hooks never allocate.
 */
#ifndef DMLCHECK_OP_MODULE_H
#define DMLCHECK_OP_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "error.h"
#include "prng.h"
#include "validate_kit.h"

/* ---- Case-file fields (read and written by model/casefile.c from this table) ---------- */

typedef enum op_field_kind {
    OP_FIELD_UINTS,     /* an array of UINT, its length in a count member of dml_case */
    OP_FIELD_DIRECTION, /* DML_AXIS_DIRECTION: "INCREASING", "DECREASING" or its number */
    OP_FIELD_TENSOR,    /* an optional second output tensor (case_tensor) */
} op_field_kind;

typedef struct op_field {
    const char *name;    /* the JSON key, DirectML's member name: "Axes", "WindowSize" */
    op_field_kind kind;
    bool required;
    unsigned needs_flags; /* OPF_* an operator must have for the field to exist; 0: always */
    size_t offset;       /* of the value in dml_case */
    size_t count_offset; /* OP_FIELD_UINTS: of the UINT count; arrays sharing it must agree */
    unsigned max_count;  /* OP_FIELD_UINTS: most entries */
    const char *param;   /* its key in the stored parameters JSON (params_json); a tensor's is
                          * true when present */
} op_field;

/* Whether field f belongs to operator op's descriptor (its flags include f's needs). */
static inline bool op_field_exists(const op_field *f, op_id op)
{
    return (op_table[op].flags & f->needs_flags) == f->needs_flags;
}

/* ---- Geometry ------------------------------------------------------------------------- */

/* What the deciders of one output element look like. */
typedef struct decider_facts {
    bool has_padding; /* some window position lies in padding */
    bool all_padding; /* every window position does (class padding_window) */
} decider_facts;

/* Called for each input element (coordinates) that decides an output element, in the order
 * the spec's tie rule counts them; returning true stops the walk. */
typedef bool (*decider_visit)(const dml_case *c, const uint32_t *in, void *ctx);

/* The deciders of one output element laid out for a drawing (reports): a grid of up to
 * DECIDER_GRID_RANK axes, the last drawn across, the one before it down, a first of three as
 * panels side by side.  Arg reduce: the reduced elements in index order (SEMANTICS D2), one
 * grid axis per reduced input axis longer than 1 (more than three: the outer ones folded
 * into the first), labelled with input coordinates; pooling: the spatial input the window
 * covers, padding included (depth slices as panels for 5-D). */
#define DECIDER_GRID_RANK 3
typedef struct decider_grid {
    unsigned rank;                         /* axes used, 1 to DECIDER_GRID_RANK */
    uint64_t extent[DECIDER_GRID_RANK];    /* cells along each axis */
    int64_t first[DECIDER_GRID_RANK];      /* the label of cell 0 along each axis: an input
                                            * coordinate (negative in start padding) or the
                                            * index of a reduced element */
    char axis_name[DECIDER_GRID_RANK][24]; /* "axis 2", "axes 0,1,3": which input axes a grid
                                            * axis stands for; "" where the drawing's own
                                            * words do (pooling's depth, rows, columns) */
} decider_grid;

typedef struct decider_cell {
    uint64_t at[DECIDER_GRID_RANK]; /* its grid position */
    bool decides;                   /* a window position / an element of the reduced row */
    bool padding;                   /* lies in padding: `in` is not set */
    uint32_t in[DML_MAX_RANK];      /* the input element's coordinates */
} decider_cell;

/* Called for each cell of a decider grid in row-major grid order; true stops the walk. */
typedef bool (*decider_cell_visit)(const decider_cell *cell, void *ctx);

/* Which tensor of a family each type table applies to, for validation and generation. */
typedef struct op_tensor_rules {
    const tensor_rule *input, *output, *indices; /* indices NULL: the family has none */
    bool output_is_input_type;                   /* OutputTensor.DataType == InputTensor's */
} op_tensor_rules;

struct shape_request; /* draw.h */

struct op_module {
    const char *name; /* "arg_reduce" */
    /* True when OutputTensor holds positions (ARGMIN/ARGMAX); false when it holds the chosen
     * values, with positions in an optional OutputIndicesTensor (pooling). */
    bool output_is_index;
    const op_field *fields; /* terminated by a NULL name */
    const op_tensor_rules *tensors;

    /* Rebuilds c->dml and c->op_desc.Desc from the plain fields (case_link calls it). */
    void (*link)(dml_case *c);
    /* The inverse: c's tensors and parameters from a descriptor of c->op that the validator
     * accepted (the plug-in's and the fuzzers' way in); false, with err, when the descriptor
     * is not one a case can hold (a count beyond the arrays, a NULL array or tensor). */
    bool (*from_desc)(const void *desc, dml_case *c, dmlc_error *err);
    /* Every rule of the family beyond the op's availability; desc is DirectML's struct. */
    bool (*check)(const validate_ctx *v, const void *desc, dmlc_error *err);
    /* OutputTensor sizes (and rank) for c's input and parameters; ceil: the larger size where
     * the spec allows two (SEMANTICS D8).  False when no output exists (a window that does
     * not fit).  The one home of the output-size formula. */
    bool (*output_sizes)(const dml_case *c, bool ceil, UINT *rank, UINT *sizes);
    /* Input coordinates that index value `index` of output element `out` names (D2 for arg
     * reduce, the flat input index for pooling); false when it names none. */
    bool (*input_of_index)(const dml_case *c, const uint32_t *out, uint64_t index, uint32_t *in);
    /* Visits the input elements that decide output element `out`; fills *facts (may be NULL).
     * Returns true when visit stopped the walk. */
    bool (*visit_deciders)(const dml_case *c, const uint32_t *out, decider_visit visit, void *ctx,
                           decider_facts *facts);

    /* The first and the last input element that decide output element `out`, in the tie
     * rule's order, as element offsets in the input view `in`; false when none does (a window
     * wholly in padding).  Offsets, not coordinates: the generator stamps every output. */
    bool (*decider_ends)(const dml_case *c, const tensor_view *in, const uint32_t *out,
                         uint64_t *first, uint64_t *last);

    /* The deciders of output element `out` as a grid for a drawing: fills *grid, then, when
     * visit is not NULL, visits every cell of it. */
    void (*visit_grid)(const dml_case *c, const uint32_t *out, decider_grid *grid,
                       decider_cell_visit visit, void *ctx);

    /* Generation.  Draws the input shape, the parameters and the output (and indices)
     * sizes as the request asks (shape_request, draw.h); c->op, types and feature level
     * are set.  A plain request (no long extent, not deepest) must draw exactly as the
     * generator always did: older case ids replay through it. */
    void (*draw_shape)(prng *p, const struct shape_request *rq, dml_case *c);
    bool has_padding;  /* windows can reach into padding (distribution padding_window) */
    bool channel_dims; /* dimensions 0 and 1 are N and C (layouts try channels-last) */

    /* Shrinking.  The parameters of c mapped into n when the input dimensions marked in
     * `dropped` (by old dimension) go and the others get numbers new_of_old[]; false when
     * the result is no case of the family (no reduced axis left, N or C dropped...). */
    bool (*drop_dims)(const dml_case *c, const bool *dropped, const unsigned *new_of_old,
                      dml_case *n);
    /* The k-th simpler variant of c's parameters, written into n (a copy of c): fewer axes,
     * a smaller window...; false when there is no k-th.  Output sizes are redone after. */
    bool (*simplify)(const dml_case *c, unsigned k, dml_case *n);

    /* Coverage: up to max (dimension, value) pairs describing c's parameters, as run reports
     * and `run --dry-run` show them: ("argmin/argmax axes", "several_shuffled"),
     * ("pooling padding", "asymmetric"); static strings.  Returns how many.  Reports rebuild
     * c from the stored row (op_case_from_params), so only sizes and parameters may count. */
    unsigned (*coverage)(const dml_case *c, const char **dims, const char **values, unsigned max);
    /* Every (dimension, value) pair coverage can give that reports list even at 0 cases;
     * returns how many (at most max). */
    unsigned (*coverage_buckets)(const char **dims, const char **values, unsigned max);

    /* Must-reject cases (harness/gen_reject.c): breaks one of the family's own rules in c
     * (a repeated axis, a stride of 0, a window larger than the padded input...); false
     * when it has none to break here.  The validator decides whether the result is refused. */
    bool (*invalidate)(prng *p, dml_case *c);

    /* The parameters for a person, one line: "axes=[1,0] direction=DECREASING". */
    void (*describe)(const dml_case *c, char *buf, size_t size);
    /* The parameters as a JSON object text, stored with every case and read by reports:
     * {"axes":[1],"direction":"INCREASING"}.  False when size is too small. */
    bool (*params_json)(const dml_case *c, char *buf, size_t size);
};

/* Most pairs one coverage call gives; the dimension whose value is stored in cases.axis_kind. */
#define OP_COVERAGE_MAX 32
#define OP_COVERAGE_AXES "argmin/argmax axes"

#define OP(id, stem, module, since, flags) extern const op_module op_module_##module;
#include "ops.def"

/* The module of c's operator. */
static inline const op_module *case_module(const dml_case *c) { return op_table[c->op].module; }

/* Types op accepts at feature level fl, as masks of 1u << DML_TENSOR_DATA_TYPE: inputs,
 * outputs (positions for ARGMIN/ARGMAX; the input's type for pooling) and indices.  All zero
 * when op does not exist at fl.  From the modules' type tables, which validation also uses. */
typedef struct op_type_sets {
    uint32_t input, output, indices;
} op_type_sets;
op_type_sets op_types_at(op_id op, DML_FEATURE_LEVEL fl);
/* op_types_at(op, fl).input alone (the generator asks it for every operator and level). */
uint32_t op_input_types_at(op_id op, DML_FEATURE_LEVEL fl);

/* A case of operator op from its DirectML descriptor (op_module.from_desc), linked; c must be
 * initialised.  Input values are not part of a descriptor: c->input_data stays NULL. */
bool case_from_desc(op_id op, const void *desc, DML_FEATURE_LEVEL fl, dml_case *c, dmlc_error *err);
/* A case tensor from a buffer tensor description; false when it is not one (NULL, not a
 * buffer, rank over DML_MAX_RANK, NULL Sizes).  `field` names it in err. */
bool case_tensor_from_desc(case_tensor *t, const DML_TENSOR_DESC *d, const char *field, dmlc_error *err);

/* A case of operator `op` rebuilt from a stored results row: the parameters JSON
 * (params_json's form) and the input and output sizes as JSON arrays.  Only what coverage
 * needs: no types, strides or values.  False when the texts do not parse. */
bool op_case_from_params(op_id op, const char *params, const char *input_sizes,
                         const char *output_sizes, dml_case *c);

/* Logical row-major index of coordinates in t (inline: the NaN fingerprint calls it per
 * decider). */
static inline uint64_t op_logical_of_coords(const case_tensor *t, const uint32_t *coords)
{
    uint64_t logical = 0;
    for (unsigned d = 0; d < t->rank; d++)
        logical = logical * t->sizes[d] + coords[d];
    return logical;
}
/* "[1,2,3]" into buf (cut short, still terminated, when it does not fit). */
const char *op_uints_text(const UINT *v, UINT n, char *buf, size_t size);

/* Text built piece by piece into a fixed buffer, without format parsing (params_json runs
 * for every recorded case); `overflow` once a piece did not fit. */
typedef struct op_text {
    char *buf;
    size_t size, used;
    bool overflow;
} op_text;
void op_text_init(op_text *t, char *buf, size_t size);
void op_text_put(op_text *t, const char *s);
void op_text_uints(op_text *t, const UINT *v, UINT n);

#endif
