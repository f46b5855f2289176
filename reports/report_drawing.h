/*
 * report_drawing.h: the picture of a family's shrunk case.  From the case file of the shrunk
 * case and the backend's first difference there (signatures.shrunk_mismatch), the deciders
 * of the differing output element as the operator module lays them out (op_module
 * visit_grid): a reduced row, or a pooling window over its input with the padding; each cell
 * with its value, the expected and the returned position marked.  Long axes are elided
 * around the marked cells.  report_html.c draws it as SVG, report_md.c as text.
 */
#ifndef DMLCHECK_REPORT_DRAWING_H
#define DMLCHECK_REPORT_DRAWING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "op_module.h"

/* Most drawn positions along one axis (a reduced row; a pooling plane's side), and most
 * cells in all. */
#define DRAWING_AXIS_MAX 64
#define DRAWING_CELLS_MAX 512

enum { DRAWING_EXPECTED = 1u, DRAWING_RETURNED = 2u };

typedef struct drawing_cell {
    unsigned slot[DECIDER_GRID_RANK]; /* drawn position along each axis */
    bool elided;       /* stands for the cells left out there ("…") */
    bool decides;      /* in the window / the reduced row */
    bool padding;      /* in padding: no value */
    unsigned marks;    /* DRAWING_EXPECTED | DRAWING_RETURNED */
    uint64_t logical;  /* the input element (logical row-major index), when not padding */
    char value[24];    /* its value, short ("3.5", "-0", "nan") */
} drawing_cell;

typedef struct failure_drawing {
    unsigned rank;                            /* the grid's axes (op_module visit_grid) */
    unsigned slots[DECIDER_GRID_RANK];        /* drawn positions per axis */
    int64_t label[DECIDER_GRID_RANK][DRAWING_AXIS_MAX]; /* coordinate of each position */
    bool gap[DECIDER_GRID_RANK][DRAWING_AXIS_MAX];      /* a position standing for left-out ones */
    drawing_cell cells[DRAWING_CELLS_MAX];
    unsigned count;
    char what[200];     /* "ARGMAX output[0]: the reduced row (axes=[0] ...)" */
    char expected[200]; /* "expected 0: input[0] = 3" */
    char returned[200]; /* "returned 4: input[4] = 3" */
    char note[160];     /* what is not marked and why, or "" */
    bool reduction;     /* an arg reduction's elements (else a pooling window) */
    char axis_name[DECIDER_GRID_RANK][24]; /* decider_grid's: which input axes, or "" */
} failure_drawing;

/* The drawing of a shrunk case (case-file JSON) and the first difference at it
 * (check_first_json); false, with err saying why, when there is none to draw. */
bool drawing_of_shrunk(const char *case_json, const char *mismatch_json, failure_drawing *d,
                       dmlc_error *err);

/* The cell at drawn position `slot`, or NULL (a position no cell reaches). */
const drawing_cell *drawing_cell_at(const failure_drawing *d, const unsigned *slot);

/* The drawing as inline SVG; `id` (unique in the page, XML-name characters) prefixes its
 * element ids. */
void report_drawing_svg(const failure_drawing *d, const char *id, FILE *out);
/* The drawing as lines of fixed-width text for a fenced block, with its legend. */
void report_drawing_text(const failure_drawing *d, FILE *out);

#endif
