#!/bin/sh
# summary_size.sh: `dmlcheck report --summary` fits a pull-request comment (65,536 characters)
# whatever the run found.  A run of the example plug-in with bug=ties fails hundreds of
# signatures; its full Markdown report is several times the limit, its summary is under it,
# lists the failing signatures with the most cases first as far as they fit, says how many
# it left out, and replays the largest with a command that works.
# Usage: summary_size.sh DMLCHECK EXAMPLE_SO.  Prints TAP.
set -u
dmlcheck=$1 example=$2
. "$(dirname "$0")/../lib/cli_tap.sh"

db=$tmp/db.sqlite
run run --backend "plugin:$example,bug=ties" --cases 30000 --seed 3 --shrink-budget 0 --db "$db"
check "the_run_fails" rc_is 1
"$dmlcheck" report --db "$db" -o "$tmp/full.md" >/dev/null 2>&1
run report --db "$db" --summary
check "full_report_is_over_the_limit" eval '[ "$(wc -c <"$tmp/full.md")" -gt 65536 ]'
check "summary_is_under_65536_characters" eval '[ "$(wc -m <"$tmp/out")" -lt 65536 ] && rc_is 1'
# Every failing signature of the full report is a row of the summary or counted as left out.
failing=$(grep -c '^| [0-9]* | FAIL | [0-9]_[0-9] |' "$tmp/full.md")
rows=$(sed -n '/^## Failing signatures/,/^Replay the largest/p' "$tmp/out" | grep -c '^| [0-9]* | FAIL | [0-9]_[0-9] |')
left=$(sed -n 's/^\.\.\. and \([0-9]*\) more failing signatures.*/\1/p' "$tmp/out")
check "summary_lists_or_counts_every_failing_signature" \
    eval '[ "$failing" -gt 100 ] && [ $((rows + ${left:-0})) = "$failing" ]'
line=$(sed -n '/^Replay the largest:/,/^```$/p' "$tmp/out" | grep -m1 '^dmlcheck replay ' | sed 's/^dmlcheck //')
eval "run $line"
check "its_first_replay_command_reproduces_a_failure" eval 'rc_is 1 && out_has "verdict: fail"'
# Cells the plug-in never ran say why (it claims only FLOAT32), not just "too few cases".
run report --db "$db" --summary
check "cells_not_run_say_why" \
    eval 'out_has "no judged cases:" && out_has "skipped (the plug-in does not claim FLOAT16 inputs)" && out_has "ran none of their cases"'
run report --db "$db" --summary --format html
check "summary_is_markdown_only" eval 'rc_is 2 && err_has "--summary is Markdown"'
finish
