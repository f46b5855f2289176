#!/bin/sh
# until_verdict.sh: `run` without --cases or --time goes on after its 10,000 cases until every
# feature level has a verdict (each required cell --min-cases judged cases, at the run's rate),
# within --max-cases; --cases N alone runs exactly N and says what is missing (docs/USAGE.md "A default run reaches a verdict").
# Usage: until_verdict.sh DMLCHECK SQLITE3_OR_EMPTY.  Prints TAP.
set -u
dmlcheck=$1 sqlite=$2
. "$(dirname "$0")/../lib/cli_tap.sh"
cases_in() { "$sqlite" "$1" "SELECT cases_done FROM runs ORDER BY id DESC LIMIT 1"; }

run run --backend reference --seed 1 --shrink-budget 0 --db "$tmp/default.sqlite"
check default_run_passes rc_is 0
check default_run_goes_on out_has "going on to "
check default_run_prints_no_outlook eval '! out_has "outlook "'
run report --db "$tmp/default.sqlite" --summary
check default_run_reaches_every_verdict eval '! out_has "INSUFFICIENT CASES" && [ "$(grep -c "| \*\*CONFORMANT\*\* |" "$tmp/out")" -ge 4 ]'

run run --backend reference --seed 1 --cases 2000 --shrink-budget 0 --db "$tmp/exact.sqlite"
check cases_alone_does_not_go_on eval 'rc_is 0 && ! out_has "going on"'
check cases_alone_says_what_is_missing out_has "outlook 5_0: "

run run --backend reference --seed 1 --cases 2000 --until-verdict --max-cases 5000 --shrink-budget 0 --db "$tmp/capped.sqlite"
check until_verdict_goes_on_from_cases out_has "going on to 5000 cases"
check max_cases_caps_it out_has "outlook 5_0: "
if [ -n "$sqlite" ]; then
    check exact_run_has_its_cases eval '[ "$(cases_in "$tmp/exact.sqlite")" = 2000 ]'
    check capped_run_stops_at_max_cases eval '[ "$(cases_in "$tmp/capped.sqlite")" = 5000 ]'
    check default_run_ran_more_than_10000 eval '[ "$(cases_in "$tmp/default.sqlite")" -gt 10000 ]'
    check options_record_the_rule eval '"$sqlite" "$tmp/capped.sqlite" "SELECT json_extract(options, '"'"'$.go_on'"'"') FROM runs" | grep -q "until every required cell has 20 judged cases, at most 5000 cases"'
else
    for t in exact_run_has_its_cases capped_run_stops_at_max_cases default_run_ran_more_than_10000 options_record_the_rule; do
        skip $t "no sqlite3"
    done
fi
run replay g5:1:4999 --backend reference --db "$tmp/capped.sqlite"
check a_case_past_cases_replays eval 'rc_is 0'

run run --backend reference --until-verdict --time 1 --db "$tmp/bad.sqlite"
check until_verdict_with_time_is_refused eval 'rc_is 2 && err_has "--until-verdict goes on from --cases"'
run run --backend reference --max-cases 0 --db "$tmp/bad.sqlite"
check max_cases_zero_is_refused eval 'rc_is 2 && err_has "--max-cases"'
finish
