#!/bin/sh
# hostile_text.sh: every string from outside reaches every output escaped for it (issue 23,
# defect 7).  Outside strings: an adapter's platform, device and driver names and its
# messages (tests/process/hostile_adapter.py --text), skip reasons and details read from the
# database, and file names given on the command line.  Each holds HTML tags, ESC and BEL (an
# OSC title and a colour), a newline, `|` and Markdown specials.  The outputs:
#   - terminal (run's lines, validate's error, merge's summary, export --out's listing): no
#     ESC, BEL or DEL byte;
#   - Markdown (report, --summary): no control byte, no raw tag outside code fences, and every
#     matrix row has the header's cell count (a `|` or newline in a reason adds or breaks none);
#   - HTML and JUnit XML: no control byte, well-formed XML, no raw tag.
# One escaping function per format does this: err_printable (terminal), report_md_escape,
# report_xml_escape (HTML and JUnit, both XML).
# Usage: hostile_text.sh DMLCHECK SOURCE_ROOT SQLITE3.  Prints TAP.
set -u
dmlcheck=$1 src=$2 sqlite=${3:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
if [ -z "$sqlite" ]; then
    echo "1..0 # SKIP no sqlite3 program"
    exit 0
fi
esc=$(printf '\033') bel=$(printf '\007') del=$(printf '\177')
text='<b>x</b>|\e]0;TITLE\a\e[31mRED\nNEWLINE `tick` *star* [l](u) &amp;'
# No ESC, BEL or DEL byte in the files named.
clean() { ! cat "$@" | grep -q "[$esc$bel$del]"; }
# No raw tag in a Markdown file outside its code fences.
md_no_tag() { ! awk '/^```/ { fence = !fence; next } !fence' "$1" | grep -q '<b>x'; }
# Every table row holds as many unescaped | as the header row before it.
md_rows_whole() {
    awk '/^```/ { fence = !fence; next }
         fence { next }
         /^\|/ { line = $0; gsub(/\\\|/, "", line); n = gsub(/\|/, "", line)
                 if (!inrow) { want = n; inrow = 1 } else if (n != want) bad = 1; next }
         { inrow = 0 }
         END { exit bad }' "$1"
}
xml_ok() { python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"; }

run run --backend "process:python3 $src/tests/process/hostile_adapter.py --text '$text'" \
    --cases 200 --seed 5 --shrink-budget 0 --db "$tmp/db.sqlite"
check "run_terminal_output_is_clean" eval 'rc_is 1 && clean "$tmp/out" "$tmp/err"'
# Skip reasons and details from the database: a skip on every MAX_POOLING2 case.
"$sqlite" "$tmp/db.sqlite" "UPDATE results SET verdict = 'skip', kind = NULL,
    detail = 'why <b>x</b>|' || char(27) || ']0;T' || char(7) || char(27) || '[31mRED'
             || char(10) || 'NL | cell' || char(127)
    WHERE case_id IN (SELECT id FROM cases WHERE op = 'MAX_POOLING2')"
for format in md html junit; do
    run report --db "$tmp/db.sqlite" --format "$format" -o "$tmp/report.$format"
    check "report_${format}_written" eval 'rc_is 0 || rc_is 1'
    check "report_${format}_has_no_control_byte" clean "$tmp/report.$format"
done
run report --db "$tmp/db.sqlite" --summary -o "$tmp/summary.md"
check "summary_has_no_control_byte" clean "$tmp/summary.md"
check "report_md_shows_the_skip_reason_escaped" grep -qF 'why \<b\>x\</b\>\|' "$tmp/report.md"
for f in report.md summary.md; do
    check "${f}_has_no_raw_tag" md_no_tag "$tmp/$f"
    check "${f}_rows_keep_their_cells" md_rows_whole "$tmp/$f"
done
for f in report.html report.junit; do
    check "${f}_is_well_formed_xml" xml_ok "$tmp/$f"
    check "${f}_has_no_raw_tag" eval '! grep -q "<b>x" "$tmp/$f"'
done

# File names on the terminal.
bad_name=$(printf 'case\033]0;TITLE\007\033[31mRED\nNL.json')
printf '{ "op": "ARGMAX" }\n' >"$tmp/$bad_name"
run validate "$tmp/$bad_name"
check "validate_error_prints_the_name_as_text" eval 'rc_is 2 && clean "$tmp/out" "$tmp/err" && err_has "\x1b" && err_has "replay: dmlcheck validate"'
bad_db=$(printf 'out\033[31m\007.sqlite')
run merge "$tmp/db.sqlite" -o "$tmp/$bad_db"
check "merge_summary_prints_the_name_as_text" eval 'rc_is 0 && clean "$tmp/out" "$tmp/err" && out_has "\x1b"'
run run --backend "process:python3 $src/tests/process/hostile_adapter.py" --cases 60 --seed 5 \
    --db "$tmp/shrunk.sqlite"
bad_dir=$(printf 'dir\033[31m\007')
run export --out "$tmp/$bad_dir" --db "$tmp/shrunk.sqlite"
check "export_out_listing_prints_names_as_text" eval 'rc_is 0 && clean "$tmp/out" "$tmp/err" && out_has "family-01"'
finish
