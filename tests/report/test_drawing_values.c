/*
 * test_drawing_values.c: a failure card shows every value whole (issue 20's papercut: 64-bit
 * values overlapped in the HTML card and were cut to 7 digits in Markdown, so another number
 * was shown).  The corpus's INT64 ARGMAX case, with a tie answered the wrong way, drawn as
 * text and as SVG: each input value appears whole in both, text columns line up, and each
 * SVG cell is wide enough for its 20 characters at the font it uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_drawing.h"
#include "tap.h"

static const char case_json[] =
    "{\"op\": \"ARGMAX\", \"feature_level\": \"4_1\","
    " \"InputTensor\": {\"DataType\": \"INT64\", \"Sizes\": [4]},"
    " \"OutputTensor\": {\"DataType\": \"INT64\", \"Sizes\": [1]},"
    " \"Axes\": [0], \"AxisDirection\": \"INCREASING\","
    " \"input\": [-9223372036854775808, 9223372036854775807, 9223372036854775807, 0]}";
static const char mismatch_json[] =
    "{\"tensor\": \"output\", \"element\": 0, \"coords\": [0],"
    " \"expected\": \"0x1\", \"got\": \"0x2\", \"expected_value\": \"1\", \"got_value\": \"2\","
    " \"explanation\": \"tie\","
    " \"input_at_expected\": {\"index\": 1, \"bits\": \"0x7fffffffffffffff\", \"value\": \"9223372036854775807\"},"
    " \"input_at_got\": {\"index\": 2, \"bits\": \"0x7fffffffffffffff\", \"value\": \"9223372036854775807\"}}";

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

int main(void)
{
    tap t;
    tap_plan(&t, 0);
    static failure_drawing d;
    dmlc_error err = { "" };
    if (!tap_ok(&t, drawing_of_shrunk(case_json, mismatch_json, &d, &err), "drawn: %s", err.msg))
        return tap_done(&t);
    char *text = render(&d, false), *svg = render(&d, true);
    tap_diag("%s", text);
    if (getenv("SHOW_SVG"))
        tap_diag("%s", svg);
    tap_ok(&t, strstr(text, "-9223372036854775808") && strstr(text, " 9223372036854775807)")
               && strstr(text, " 9223372036854775807>"), "text: every 64-bit value whole, marked");
    /* The lines of the grid (header, row) are as wide as each other: columns line up. */
    char *nl = strchr(text, '\n');
    size_t header = (size_t)(nl - text), row = (size_t)(strchr(nl + 1, '\n') - nl - 1);
    tap_ok(&t, header + 2 >= row && row >= header, "text: header %zu and row %zu line up", header, row);
    tap_ok(&t, strstr(svg, ">-9223372036854775808</text>") && strstr(svg, ">9223372036854775807</text>"),
           "svg: every 64-bit value whole");
    /* Each cell's box: at a 9 px font, 20 characters need about 110 px. */
    int width = 0;
    const char *rect = strstr(svg, "<rect x=\"35\"");
    if (rect && sscanf(strstr(rect, "width=\""), "width=\"%d\"", &width) != 1)
        width = 0;
    tap_ok(&t, width >= 110,
           "svg: a cell is %d px wide, room for 20 characters", width);
    tap_ok(&t, strstr(svg, "font-size=\"9\" fill=\"#1f2328\">-9223372036854775808<") != NULL,
           "svg: the long value at 9 px");
    free(text);
    free(svg);
    return tap_done(&t);
}
