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
# Cells beyond the plug-in's claims (ARGMIN/ARGMAX on FLOAT32 and INT32, pooling on FLOAT32)
# are one line per level naming the claims, never a bullet each.
run report --db "$db" --summary
check "unclaimed_cells_are_one_line_per_level" \
    eval 'out_has "required cells are not claimed by the backend, which claims ARGMIN, ARGMAX on FLOAT32, INT32; " && ! out_has "does not claim FLOAT16"'
# The news first (issue 20): the verdict line, then the verdict table, then the families
# table within the first 40 lines; per-cell notes and one- or two-case signatures folded.
fam=$(grep -n '^| # | Status | Operators |' "$tmp/out" | head -1 | cut -d: -f1)
check "verdict_line_first" eval 'sed -n 3p "$tmp/out" | grep -q "^\*\*Verdict:\*\* .*3_0 NOT CONFORMANT"'
check "families_table_within_40_lines" eval '[ -n "$fam" ] && [ "$fam" -le 40 ]'
check "cell_notes_and_small_signatures_folded" \
    eval 'out_has "<details><summary>Per-cell notes of" && out_has "<details><summary>Failing signatures of one or two cases</summary>"'
run report --db "$db" --summary --format html
check "summary_is_markdown_only" eval 'rc_is 2 && err_has "--summary is Markdown"'
finish
