/*
 * test_report_png.c: renders the HTML report of the two-run fixture database with headless
 * Chromium and checks that a real PNG of page size came out, and that at 800 and 1400 px
 * nothing makes the page scroll sideways (suite 'report').  Skipped where
 * Chromium is absent (.ci/install-deps.sh installs it).
 * The picture is kept when DMLCHECK_REPORT_PNG names a path, so a person can look at it:
 *   DMLCHECK_REPORT_PNG=/tmp/report.png meson test -C BUILD report_png
 * argv: dmlcheck executable, tests/report source dir, results/schema.sql, chromium or "".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_fixture.h"
#include "tap.h"

/* Width and height from a PNG's IHDR chunk; false when the file is not a PNG. */
static bool png_size(const char *path, uint32_t *w, uint32_t *h)
{
    static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    unsigned char head[24];
    FILE *f = fopen(path, "rb");
    bool ok = f && fread(head, 1, sizeof head, f) == sizeof head && !memcmp(head, magic, 8)
              && !memcmp(head + 12, "IHDR", 4);
    if (f)
        fclose(f);
    if (ok) {
        *w = (uint32_t)head[16] << 24 | (uint32_t)head[17] << 16 | (uint32_t)head[18] << 8 | head[19];
        *h = (uint32_t)head[20] << 24 | (uint32_t)head[21] << 16 | (uint32_t)head[22] << 8 | head[23];
    }
    return ok;
}

/* How many pixels the page is wider than a window `width` px wide: a copy of the report gets
 * a script that writes document scrollWidth - clientWidth into its title, and Chromium dumps
 * the DOM after running it (the report itself has no script).  -1 when it did not render. */
static long overflow_at(const char *chromium, const char *html, const char *dir, int width)
{
    char probe[256], dom[256], cmd[2048];
    snprintf(probe, sizeof probe, "%s/probe.html", dir);
    snprintf(dom, sizeof dom, "%s/dom.txt", dir);
    snprintf(cmd, sizeof cmd, "sed 's|</body>|<script>document.title=\"overflow=\"+(document."
             "documentElement.scrollWidth-document.documentElement.clientWidth)</script></body>|' "
             "'%s' > '%s' && '%s' --headless --no-sandbox --disable-gpu --hide-scrollbars "
             "--window-size=%d,900 --dump-dom 'file://%s' > '%s' 2>/dev/null", html, probe,
             chromium, width, probe, dom);
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    FILE *f = fopen(dom, "r");
    char line[4096];
    long overflow = -1;
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "<title>overflow=");
        if (at)
            overflow = strtol(at + strlen("<title>overflow="), NULL, 10);
    }
    if (f)
        fclose(f);
    return overflow;
}

int main(int argc, char **argv)
{
    if (argc < 5 || !argv[4][0])
        return tap_skip_all("chromium not installed (.ci/install-deps.sh installs it)");
    tap t;
    tap_plan(&t, 5);
    char dir[] = "/tmp/dmlcheck-report-png-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char db[256], html[256], png[256], cmd[2048];
    snprintf(db, sizeof db, "%s/two.sqlite", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    const char *keep = getenv("DMLCHECK_REPORT_PNG");
    snprintf(png, sizeof png, "%s", keep ? keep : "");
    if (!keep)
        snprintf(png, sizeof png, "%s/report.png", dir);
    dmlc_error err = { "" };
    bool built = fixture_build(argv[3], db, "two", NULL, &err);
    snprintf(cmd, sizeof cmd, "'%s' report --db '%s' --run 2 --baseline-run 1 "
             "--expectations '%s/expectations.json' -o '%s'", argv[1], db, argv[2], html);
    int st = built ? system(cmd) : -1;
    tap_ok(&t, built && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
           "HTML report of the faulty run written %s", err.msg);
    snprintf(cmd, sizeof cmd, "'%s' --headless --no-sandbox --disable-gpu --hide-scrollbars "
             "--window-size=1366,2400 --screenshot='%s' 'file://%s' >/dev/null 2>&1",
             argv[4], png, html);
    st = system(cmd);
    tap_ok(&t, st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "chromium rendered it");
    uint32_t w = 0, h = 0;
    bool is_png = png_size(png, &w, &h);
    tap_ok(&t, is_png && w == 1366 && h == 2400, "%s is a 1366x2400 PNG (%ux%u)", png, w, h);
    if (keep)
        tap_diag("picture kept at %s", png);
    for (int width = 800; width <= 1400; width += 600) {
        long overflow = overflow_at(argv[4], html, dir, width);
        tap_ok(&t, overflow == 0, "at %d px the page does not scroll sideways (%ld px too wide)",
               width, overflow);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done(&t);
}
