/*
 * report_drawing_render.c: a failure drawing (report_drawing.h) as inline SVG for the HTML
 * report and as a fenced text block for Markdown, which GitHub shows without SVG.  The SVG
 * scales with its viewBox (the page's CSS caps it at the column's width) and carries a
 * <title> and <desc>; every marked cell names its input element (data-input) so tests can
 * read what is marked.
 */
#include "report_drawing.h"

#include <inttypes.h>
#include <string.h>

#include "report_model.h"

enum { CELL_W = 56, CELL_H = 30, LABEL_W = 34, TOP_H = 18, PANEL_TITLE_H = 16, PANEL_GAP = 18,
       LEGEND_H = 26, LEGEND_W = 470 };
/* A gap's label: "…" in SVG; "..." in text, which keeps a fixed-width block aligned. */
static const char svg_ellipsis[] = "\xe2\x80\xa6", text_ellipsis[] = "...";

/* The drawing's panels, rows and columns: a row is one panel of one row; pooling's depth
 * slices are panels. */
typedef struct layout {
    unsigned panels, rows, cols;
    int top, width, height;
    int cell_w, font; /* a cell's width and its value's font size: wide enough for the longest */
} layout;

/* The longest value drawn (a 64-bit integer has up to 20 characters): every value is shown
 * whole, so a cell or a text column grows to hold it rather than cut it. */
static unsigned longest_value(const failure_drawing *d)
{
    unsigned longest = 0;
    for (unsigned i = 0; i < d->count; i++)
        if (!d->cells[i].elided && !d->cells[i].padding && strlen(d->cells[i].value) > longest)
            longest = (unsigned)strlen(d->cells[i].value);
    return longest;
}

static layout layout_of(const failure_drawing *d)
{
    layout l = { 1, 1, d->slots[d->rank - 1], TOP_H, 0, 0, CELL_W, 11 };
    unsigned longest = longest_value(d);
    if (longest > 7) {
        /* 9 px digits are at most 5.5 px wide in the sans-serif fonts the page names. */
        l.font = 9;
        if ((int)longest * 6 + 10 > l.cell_w)
            l.cell_w = (int)longest * 6 + 10;
    }
    if (d->rank >= 2)
        l.rows = d->slots[d->rank - 2];
    if (d->rank == 3) {
        l.panels = d->slots[0];
        l.top += PANEL_TITLE_H;
    }
    if (d->rank >= 2 && d->reduction)
        l.top += PANEL_TITLE_H; /* the caption naming the input axes of rows and columns */
    l.width = LABEL_W + (int)(l.panels * l.cols) * l.cell_w + (int)(l.panels - 1) * PANEL_GAP + 4;
    if (l.width < LEGEND_W)
        l.width = LEGEND_W;
    l.height = l.top + (int)l.rows * CELL_H + 8 + LEGEND_H;
    return l;
}

/* A panel's title: "axis 0 = 1" (folded axes: their row-major index), or pooling's
 * "depth 1". */
static void panel_title(const failure_drawing *d, const char *label, char *buf, size_t size)
{
    if (d->axis_name[0][0])
        snprintf(buf, size, "%s = %s", d->axis_name[0], label);
    else
        snprintf(buf, size, "depth %s", label);
}

/* "rows: axis 1, columns: axis 3" (a reduction over several axes), or "" (the drawing's own
 * words say it: a reduced row, a pooling window). */
static void axes_caption(const failure_drawing *d, char *buf, size_t size)
{
    buf[0] = '\0';
    if (d->rank >= 2 && d->reduction)
        snprintf(buf, size, "rows: %s, columns: %s", d->axis_name[d->rank - 2],
                 d->axis_name[d->rank - 1]);
}

/* The coordinate of a drawn position, or `ellipsis` for a gap. */
static void label_text(const failure_drawing *d, unsigned axis, unsigned slot, const char *ellipsis,
                       char *buf, size_t size)
{
    if (d->gap[axis][slot])
        snprintf(buf, size, "%s", ellipsis);
    else
        snprintf(buf, size, "%" PRId64, d->label[axis][slot]);
}

static void svg_labels(const failure_drawing *d, const layout *l, FILE *out)
{
    char text[24], caption[80], title[64];
    axes_caption(d, caption, sizeof caption);
    if (caption[0])
        fprintf(out, "<text x=\"4\" y=\"12\" fill=\"#57606a\">%s</text>\n", caption);
    int title_y = caption[0] ? 12 + PANEL_TITLE_H : 12;
    for (unsigned p = 0; p < l->panels; p++) {
        int x0 = LABEL_W + (int)p * ((int)l->cols * l->cell_w + PANEL_GAP);
        if (d->rank == 3) {
            label_text(d, 0, p, svg_ellipsis, text, sizeof text);
            panel_title(d, text, title, sizeof title);
            fprintf(out, "<text x=\"%d\" y=\"%d\" font-weight=\"600\">%s</text>\n", x0, title_y,
                    title);
        }
        for (unsigned col = 0; col < l->cols; col++) {
            label_text(d, d->rank - 1, col, svg_ellipsis, text, sizeof text);
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#57606a\">%s</text>\n",
                    x0 + (int)col * l->cell_w + l->cell_w / 2, l->top - 5, text);
        }
    }
    for (unsigned row = 0; d->rank >= 2 && row < l->rows; row++) {
        label_text(d, d->rank - 2, row, svg_ellipsis, text, sizeof text);
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#57606a\">%s</text>\n",
                LABEL_W - 6, l->top + (int)row * CELL_H + 19, text);
    }
}

static void svg_cell(const drawing_cell *c, const layout *l, int x, int y, const char *hatch,
                     FILE *out)
{
    const int cell_w = l->cell_w;
    if (c->elided) {
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#57606a\">"
                     "\xe2\x80\xa6</text>\n", x + cell_w / 2, y + 19);
        return;
    }
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" "
                 "stroke-width=\"%s\"/>\n", x + 1, y + 1, cell_w - 2, CELL_H - 2,
            c->padding ? hatch : c->decides ? "#ffffff" : "#f6f8fa",
            c->decides ? "#1f2328" : "#afb8c1", c->decides ? "2" : "1");
    if (!c->padding)
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" fill=\"%s\">"
                     "%s</text>\n", x + cell_w / 2, y + 19, l->font,
                c->decides ? "#1f2328" : "#8c959f", c->value);
    /* Expected: a solid green ring; returned: a dashed red one, inside it when both. */
    if (c->marks & DRAWING_EXPECTED)
        fprintf(out, "<rect class=\"mark expected\" data-input=\"%" PRIu64 "\" x=\"%d\" y=\"%d\" "
                     "width=\"%d\" height=\"%d\" rx=\"7\" fill=\"none\" stroke=\"#1a7f37\" "
                     "stroke-width=\"3\"/>\n", c->logical, x + 3, y + 3, cell_w - 6, CELL_H - 6);
    if (c->marks & DRAWING_RETURNED) {
        int inset = c->marks & DRAWING_EXPECTED ? 7 : 3;
        fprintf(out, "<rect class=\"mark returned\" data-input=\"%" PRIu64 "\" x=\"%d\" y=\"%d\" "
                     "width=\"%d\" height=\"%d\" rx=\"6\" fill=\"none\" stroke=\"#cf222e\" "
                     "stroke-width=\"2.5\" stroke-dasharray=\"4 2\"/>\n", c->logical, x + inset,
                y + inset, cell_w - 2 * inset, CELL_H - 2 * inset);
    }
}

static void svg_legend(const failure_drawing *d, int y, const char *hatch, FILE *out)
{
    fprintf(out, "<g font-size=\"11\">"
                 "<rect x=\"4\" y=\"%d\" width=\"22\" height=\"14\" rx=\"4\" fill=\"none\" "
                 "stroke=\"#1a7f37\" stroke-width=\"3\"/><text x=\"30\" y=\"%d\">expected</text>"
                 "<rect x=\"96\" y=\"%d\" width=\"22\" height=\"14\" rx=\"4\" fill=\"none\" "
                 "stroke=\"#cf222e\" stroke-width=\"2.5\" stroke-dasharray=\"4 2\"/>"
                 "<text x=\"122\" y=\"%d\">returned</text>"
                 "<rect x=\"190\" y=\"%d\" width=\"22\" height=\"14\" fill=\"#fff\" stroke=\"#1f2328\" "
                 "stroke-width=\"2\"/><text x=\"216\" y=\"%d\">%s</text>",
            y, y + 11, y, y + 11, y, y + 11, d->reduction ? "reduced element" : "window");
    if (!d->reduction)
        fprintf(out, "<rect x=\"276\" y=\"%d\" width=\"22\" height=\"14\" fill=\"%s\" "
                     "stroke=\"#afb8c1\"/><text x=\"302\" y=\"%d\">padding</text>"
                     "<rect x=\"360\" y=\"%d\" width=\"22\" height=\"14\" fill=\"#f6f8fa\" "
                     "stroke=\"#afb8c1\"/><text x=\"386\" y=\"%d\">around it</text>",
                y, hatch, y + 11, y, y + 11);
    fprintf(out, "</g>\n");
}

void report_drawing_svg(const failure_drawing *d, const char *id, FILE *out)
{
    layout l = layout_of(d);
    char hatch[64];
    snprintf(hatch, sizeof hatch, "url(#%s-hatch)", id);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"drawing\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"system-ui,sans-serif\" "
                 "font-size=\"11\" role=\"img\" aria-labelledby=\"%s-title %s-desc\">\n<title "
                 "id=\"%s-title\">", l.width, l.height, l.width, l.height, id, id, id);
    report_xml_escape(out, d->what);
    fprintf(out, "</title>\n<desc id=\"%s-desc\">", id);
    report_xml_escape(out, d->expected);
    fprintf(out, "; ");
    report_xml_escape(out, d->returned);
    if (d->note[0]) {
        fprintf(out, "; ");
        report_xml_escape(out, d->note);
    }
    fprintf(out, "</desc>\n<defs><pattern id=\"%s-hatch\" width=\"6\" height=\"6\" "
                 "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
                 "<rect width=\"6\" height=\"6\" fill=\"#fff8c5\"/><line x1=\"0\" y1=\"0\" "
                 "x2=\"0\" y2=\"6\" stroke=\"#bf8700\" stroke-width=\"2\"/></pattern></defs>\n", id);
    svg_labels(d, &l, out);
    for (unsigned i = 0; i < d->count; i++) {
        const drawing_cell *c = &d->cells[i];
        unsigned panel = d->rank == 3 ? c->slot[0] : 0;
        unsigned row = d->rank >= 2 ? c->slot[d->rank - 2] : 0, col = c->slot[d->rank - 1];
        int x = LABEL_W + (int)panel * ((int)l.cols * l.cell_w + PANEL_GAP) + (int)col * l.cell_w;
        svg_cell(c, &l, x, l.top + (int)row * CELL_H, hatch, out);
    }
    svg_legend(d, l.height - LEGEND_H + 6, hatch, out);
    fprintf(out, "</svg>\n");
}

/* One cell as text, width + 2 wide: "(3)" expected, "<3>" returned, "{3}" both, "[3]" window,
 * "  3 " around it, "///" padding.  The value is whole: width holds the longest. */
static void text_cell(const drawing_cell *c, int width, FILE *out)
{
    char v[sizeof c->value];
    const char *open = " ", *close = " ";
    if (c->elided)
        snprintf(v, sizeof v, "...");
    else if (c->padding)
        snprintf(v, sizeof v, "///");
    else
        snprintf(v, sizeof v, "%s", c->value);
    if (c->marks == (DRAWING_EXPECTED | DRAWING_RETURNED))
        open = "{", close = "}";
    else if (c->marks & DRAWING_EXPECTED)
        open = "(", close = ")";
    else if (c->marks & DRAWING_RETURNED)
        open = "<", close = ">";
    else if (c->decides && !c->elided)
        open = "[", close = "]";
    fprintf(out, "%s%*s%s", open, width, v, close);
}

void report_drawing_text(const failure_drawing *d, FILE *out)
{
    unsigned panels = d->rank == 3 ? d->slots[0] : 1;
    unsigned rows = d->rank >= 2 ? d->slots[d->rank - 2] : 1, cols = d->slots[d->rank - 1];
    char label[24], caption[80], title[64];
    int width = (int)longest_value(d) > 7 ? (int)longest_value(d) : 7;
    axes_caption(d, caption, sizeof caption);
    if (caption[0])
        fprintf(out, "%s\n", caption);
    for (unsigned p = 0; p < panels; p++) {
        if (d->rank == 3) {
            label_text(d, 0, p, text_ellipsis, label, sizeof label);
            panel_title(d, label, title, sizeof title);
            fprintf(out, "%s:\n", title);
        }
        fprintf(out, "%6s", "");
        for (unsigned col = 0; col < cols; col++) {
            label_text(d, d->rank - 1, col, text_ellipsis, label, sizeof label);
            fprintf(out, " %*s%s", width, label, col + 1 < cols ? " " : "");
        }
        fprintf(out, "\n");
        for (unsigned row = 0; row < rows; row++) {
            if (d->rank >= 2)
                label_text(d, d->rank - 2, row, text_ellipsis, label, sizeof label);
            fprintf(out, "%6s", d->rank >= 2 ? label : "");
            for (unsigned col = 0; col < cols; col++) {
                unsigned slot[DECIDER_GRID_RANK] = { 0 }, k = 0;
                if (d->rank == 3)
                    slot[k++] = p;
                if (d->rank >= 2)
                    slot[k++] = row;
                slot[k] = col;
                const drawing_cell *c = drawing_cell_at(d, slot);
                if (c)
                    text_cell(c, width, out);
                else
                    fprintf(out, "%*s", width + 2, "");
            }
            fprintf(out, "\n");
        }
    }
    fprintf(out, "(x) expected  <x> returned  {x} both  [x] %s%s\n",
            d->reduction ? "reduced element" : "window", d->reduction ? "" : "  /// padding");
}
