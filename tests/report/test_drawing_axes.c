/*
 * test_drawing_axes.c: the card of an arg reduction over several axes shows them as a grid
 * labelled with input coordinates (issue 20's papercut: it was a flat row without
 * coordinates).  Two reduced axes are rows and columns named by their input axes; three are
 * panels, rows and columns; more fold the outer ones into the panels; an axis of one element
 * is left out.  The expected and returned elements are marked where their coordinates are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_drawing.h"
#include "tap.h"

static char *render(const failure_drawing *d, bool svg)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (svg)
        report_drawing_svg(d, "t", f);
    else
        report_drawing_text(d, f);
    fclose(f);
    return text;
}

/* An ARGMAX case over `axes` of a tensor of `sizes` whose values are 0 but 9 at the two input
 * elements (logical indices) `expected_at` and `got_at`, with the first difference at output
 * element `coords` naming them. */
static bool draw(failure_drawing *d, const char *sizes, const char *out_sizes, const char *axes,
                 unsigned elements, unsigned expected_at, unsigned got_at, const char *coords,
                 dmlc_error *err)
{
    char input[4096], case_json[8192], mismatch_json[1024];
    size_t used = 0;
    for (unsigned i = 0; i < elements; i++)
        used += (size_t)snprintf(input + used, sizeof input - used, "%s%d", i ? ", " : "",
                                 i == expected_at || i == got_at ? 9 : 0);
    snprintf(case_json, sizeof case_json,
             "{\"op\": \"ARGMAX\", \"feature_level\": \"3_0\","
             " \"InputTensor\": {\"DataType\": \"INT32\", \"Sizes\": [%s]},"
             " \"OutputTensor\": {\"DataType\": \"UINT32\", \"Sizes\": [%s]},"
             " \"Axes\": [%s], \"AxisDirection\": \"INCREASING\", \"input\": [%s]}",
             sizes, out_sizes, axes, input);
    snprintf(mismatch_json, sizeof mismatch_json,
             "{\"tensor\": \"output\", \"element\": 0, \"coords\": [%s],"
             " \"expected\": \"0x0\", \"got\": \"0x1\", \"expected_value\": \"e\", \"got_value\": \"g\","
             " \"input_at_expected\": {\"index\": %u, \"bits\": \"0x9\", \"value\": \"9\"},"
             " \"input_at_got\": {\"index\": %u, \"bits\": \"0x9\", \"value\": \"9\"}}",
             coords, expected_at, got_at);
    return drawing_of_shrunk(case_json, mismatch_json, d, err);
}

static const drawing_cell *marked(const failure_drawing *d, unsigned mark)
{
    for (unsigned i = 0; i < d->count; i++)
        if (d->cells[i].marks & mark)
            return &d->cells[i];
    return NULL;
}

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    static failure_drawing d;
    dmlc_error err = { "" };

    /* 2x3x4 over axes 2 and 0 (listed out of order): output [0,1,0]; expected index 5 =
     * input (1,1,1) = element 17, returned index 2 = input (0,1,2) = element 6. */
    if (tap_ok(&t, draw(&d, "2, 3, 4", "1, 3, 1", "2, 0", 24, 17, 6, "0, 1, 0", &err), "two axes drawn: %s",
               err.msg)) {
        char *text = render(&d, false), *svg = render(&d, true);
        tap_diag("%s", text);
        tap_ok(&t, d.rank == 2 && d.slots[0] == 2 && d.slots[1] == 4, "two axes: a 2x4 grid (rank %u)",
               d.rank);
        tap_ok(&t, strstr(text, "rows: axis 0, columns: axis 2\n") == text, "two axes: the text names them");
        const drawing_cell *e = marked(&d, DRAWING_EXPECTED), *g = marked(&d, DRAWING_RETURNED);
        tap_ok(&t, e && g && e->slot[0] == 1 && e->slot[1] == 1 && g->slot[0] == 0 && g->slot[1] == 2,
               "two axes: expected at (1,1), returned at (0,2)");
        tap_ok(&t, strstr(svg, ">rows: axis 0, columns: axis 2</text>") != NULL, "two axes: the SVG names them");
        tap_ok(&t, strstr(svg, "reduced element") && !strstr(svg, "padding"),
               "two axes: the legend is a reduction's");
        free(text);
        free(svg);
    }

    /* 2x1x3x2 over all axes: the size-1 axis 1 is left out; axes 0, 2, 3 are panels, rows and
     * columns.  Expected index 7 = (1,0,0,1) = element 7; returned index 4 = (0,0,2,0) = 4. */
    if (tap_ok(&t, draw(&d, "2, 1, 3, 2", "1, 1, 1, 1", "0, 1, 2, 3", 12, 7, 4, "0, 0, 0, 0", &err),
               "three long axes drawn: %s", err.msg)) {
        char *text = render(&d, false);
        tap_diag("%s", text);
        tap_ok(&t, d.rank == 3 && d.slots[0] == 2 && d.slots[1] == 3 && d.slots[2] == 2,
               "three long axes: 2 panels of 3x2");
        tap_ok(&t, strstr(text, "rows: axis 2, columns: axis 3\naxis 0 = 0:\n") == text
                   && strstr(text, "\naxis 0 = 1:\n"), "three long axes: panels titled by axis 0");
        const drawing_cell *e = marked(&d, DRAWING_EXPECTED), *g = marked(&d, DRAWING_RETURNED);
        tap_ok(&t, e && g && e->slot[0] == 1 && e->slot[1] == 0 && e->slot[2] == 1 && g->slot[0] == 0
                   && g->slot[1] == 2 && g->slot[2] == 0, "three long axes: marks at their coordinates");
        free(text);
    }

    /* 2x2x2x3 over all four axes: axes 0 and 1 fold into the panels (row-major index 0..3).
     * Expected index 20 = (1,1,0,2) = element 20, panel 3; returned index 3 = (0,0,1,0), panel 0. */
    if (tap_ok(&t, draw(&d, "2, 2, 2, 3", "1, 1, 1, 1", "3, 2, 1, 0", 24, 20, 3, "0, 0, 0, 0", &err),
               "four long axes drawn: %s", err.msg)) {
        char *text = render(&d, false);
        tap_diag("%s", text);
        tap_ok(&t, d.rank == 3 && d.slots[0] == 4 && strstr(text, "\naxes 0,1 = 3:\n"),
               "four long axes: axes 0 and 1 folded into 4 panels");
        const drawing_cell *e = marked(&d, DRAWING_EXPECTED), *g = marked(&d, DRAWING_RETURNED);
        tap_ok(&t, e && g && e->slot[0] == 3 && e->slot[1] == 0 && e->slot[2] == 2 && g->slot[0] == 0
                   && g->slot[1] == 1 && g->slot[2] == 0, "four long axes: marks at their coordinates");
        free(text);
    }
    return tap_done(&t);
}
