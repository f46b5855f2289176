#!/bin/sh
# papercuts.sh: issue 20's papercuts from outside.
#   - `run --feature-level 3_1` (a level dmlcheck does not test) is refused with the tested
#     levels and the one whose rules it has, instead of running and printing 3_0's results;
#     a tested level runs;
#   - `report` without -o on a terminal prints a dozen lines (the verdicts, how to write the
#     report), not thousands; into a pipe or with -o it writes the whole report;
#   - several -o from one read of the database (issue 22, item 5a) pair with --format's list.
# Usage: papercuts.sh DMLCHECK.  Prints TAP.
set -u
dmlcheck=$1
. "$(dirname "$0")/../lib/cli_tap.sh"

run run --backend reference --feature-level 3_1 --cases 50 --db "$tmp/fl.sqlite"
check "untested_level_refused" eval 'rc_is 2 && err_has "feature level 3_1 is not one dmlcheck tests (tested: 2_0, 2_1, 3_0, 4_1, 5_0)" && err_has "use --feature-level 3_0"'
check "untested_level_runs_nothing" eval '! out_has "feature-level 3_0:" && [ ! -e "$tmp/fl.sqlite" ]'
run run --backend reference --feature-level 6_4 --cases 50 --db "$tmp/fl.sqlite"
check "level_above_tested_refused" eval 'rc_is 2 && err_has "use --feature-level 5_0"'
run run --backend reference --feature-level 3_0 --cases 300 --seed 3 --db "$tmp/fl.sqlite"
check "tested_level_runs" eval 'rc_is 0 && out_has "feature-level 3_0: cases=300"'

DMLCHECK_REPORT_TTY=1 "$dmlcheck" report --db "$tmp/fl.sqlite" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "terminal_gets_a_short_summary" eval '[ $(wc -l <"$tmp/out") -le 20 ] && out_has "3_0" && out_has "standard output is a terminal" && out_has "dmlcheck report --db $tmp/fl.sqlite -o report.html"'
check "terminal_summary_keeps_the_exit_code" rc_is 0
run report --db "$tmp/fl.sqlite"
check "pipe_gets_the_whole_report" eval 'rc_is 0 && [ $(wc -l <"$tmp/out") -gt 40 ] && ! out_has "standard output is a terminal"'
DMLCHECK_REPORT_TTY=1 "$dmlcheck" report --db "$tmp/fl.sqlite" -o "$tmp/r.md" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "o_writes_the_whole_report" eval 'rc_is 0 && [ $(wc -l <"$tmp/r.md") -gt 40 ]'
# Issue 22, item 5a: several formats from one read; a list that does not pair with the -o
# files is refused, naming what is wrong.
run report --db "$tmp/fl.sqlite" --format html,junit -o "$tmp/m.out" -o "$tmp/j.out"
check "format_list_pairs_with_each_o" eval 'rc_is 0 && grep -q "<!DOCTYPE html>" "$tmp/m.out" && grep -q "<testsuites" "$tmp/j.out"'
run report --db "$tmp/fl.sqlite" --format html,md -o "$tmp/x.html"
check "format_list_longer_than_o_refused" eval 'rc_is 2 && err_has "--format names 2 formats for 1 -o file"'
run report --db "$tmp/fl.sqlite" --format html -o "$tmp/a.html" -o "$tmp/b.md"
check "one_format_for_two_o_refused" eval 'rc_is 2 && err_has "one --format for 2 -o files"'
run report --db "$tmp/fl.sqlite" --format html,pdf -o "$tmp/a.html" -o "$tmp/b.pdf"
check "unknown_format_in_list_refused" eval "rc_is 2 && err_has \"not 'pdf'\""
run report --db "$tmp/fl.sqlite" -o "$tmp/a.md" -o "$tmp/a.md"
check "same_o_twice_refused" eval 'rc_is 2 && err_has "given twice"'
finish
