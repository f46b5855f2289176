#!/bin/sh
# hostile.sh: a plug-in that misbehaves cannot hide it (issue 23, defect 1).  The hostile
# plug-in (hostile_plugin.c: the reference plug-in, so every answer is right) with:
#   - write_past=N / write_before=N: stray bytes around an output are out_of_bounds_write, on
#     every executed case, one by one and in batches, and `exec` says so too.
# Usage: hostile.sh DMLCHECK HOSTILE_PLUGIN HOSTILE_BATCH_PLUGIN SOURCE_ROOT SQLITE3.  TAP.
set -u
dmlcheck=$1 plugin=$2 batch_plugin=$3 src=$4 sqlite=${5:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
common="--cases 40 --seed 7 --max-elements 256 --shrink-budget 0"
case_file=$src/corpus/conformance/argmax/argmax_spec_example1_columns.json
no_sanitizer_report() { ! all_has "Sanitizer"; }
q() { "$sqlite" "$tmp/db.sqlite" "$1"; }
# Every executed case failed as KIND and none passed (skips: cases beyond the claims).
every_case_is() {
    [ "$(q "SELECT count(*) FROM results WHERE verdict = 'pass'")" = 0 ] &&
    [ "$(q "SELECT count(*) FROM results WHERE kind = '$1'")" -gt 0 ] &&
    [ "$(q "SELECT count(*) FROM results WHERE verdict NOT IN ('skip', 'fail')
            OR (verdict = 'fail' AND kind != '$1')")" = 0 ]
}
# The printed failure of KIND ends with a replay command of this run's backend.
replay_follows() {
    sed -n "/kind=$1 /,\$p" "$tmp/out" | grep -q "^ *replay: dmlcheck replay g[0-9]*:7:[0-9]* --backend"
}

# Defect 1: the guard bands around an output.
for stray in write_past=1 write_past=3 write_past=64 write_before=1 write_before=64; do
    for p in "$plugin" "$batch_plugin"; do
        how=$([ "$p" = "$plugin" ] && echo alone || echo batched)
        rm -f "$tmp/db.sqlite"
        run run --backend "plugin:$p,$stray" $common --db "$tmp/db.sqlite"
        check "${stray}_${how}_fails_the_run" rc_is 1
        if [ -n "$sqlite" ]; then
            check "${stray}_${how}_is_out_of_bounds_write_on_every_case" every_case_is out_of_bounds_write
        else
            skip "${stray}_${how}_is_out_of_bounds_write_on_every_case" "no sqlite3 program"
        fi
    done
done
run exec --backend "plugin:$plugin,write_past=1" "$case_file"
check "exec_reports_a_write_past_the_output" eval 'rc_is 1 && all_has out_of_bounds_write'
run exec --backend "plugin:$plugin,write_before=2" "$case_file"
check "exec_reports_a_write_before_the_output" eval 'rc_is 1 && all_has "before the output"'

finish
