#!/bin/sh
# hostile.sh: a plug-in that misbehaves cannot hide it (issue 23, defects 1 to 3 and 9).  The
# hostile plug-in (hostile_plugin.c: the reference plug-in, so every answer is right) with:
#   - write_past=N / write_before=N: stray bytes around an output are out_of_bounds_write, on
#     every executed case, one by one and in batches, and `exec` says so too;
#   - batch=crash / batch=hang: a batch of several cases dies, each case alone does not; the
#     death is still one recorded failure of its kind, the run exits 1, the report is not
#     CONFORMANT, and the printed failure ends with its replay line;
#   - unterminated=open|info|create|execute: a message buffer with no NUL is read only to its
#     end (an ASan build reports any read past it on stderr; the test looks for that too);
#   - none of these: a run without failures is clean under UBSan too.
# Usage: hostile.sh DMLCHECK HOSTILE_PLUGIN HOSTILE_BATCH_PLUGIN SOURCE_ROOT SQLITE3.  TAP.
set -u
dmlcheck=$1 plugin=$2 batch_plugin=$3 src=$4 sqlite=${5:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
common="--cases 40 --seed 7 --max-elements 256 --shrink-budget 0"
case_file=$src/corpus/conformance/argmax/argmax_spec_example1_columns.json
# Nothing from AddressSanitizer or UndefinedBehaviorSanitizer (an ASan+UBSan build: TESTING.md).
no_sanitizer_report() { ! all_has "Sanitizer" && ! all_has "runtime error:"; }
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

# Defect 2: a death in a batch that does not recur alone.  150 cases are three batches (the
# worker's batches hold at most 64 cases, within --batch's 128), each of which dies once.
for death in crash hang; do
    rm -f "$tmp/db.sqlite"
    run run --backend "plugin:$batch_plugin,batch=$death" $common --cases 150 --case-timeout 300 \
        --db "$tmp/db.sqlite"
    check "batch_${death}_fails_the_run" rc_is 1
    check "batch_${death}_is_printed_with_its_replay_line" replay_follows "$death"
    check "batch_${death}_says_it_did_not_recur_alone" out_has "did not recur when each case was re-run alone"
    if [ -n "$sqlite" ]; then
        check "batch_${death}_is_recorded_on_one_case_of_each_batch" eval \
            '[ "$(q "SELECT count(*) FROM results WHERE kind = '"'$death'"'
                    AND detail LIKE '"'%did not recur%'"'")" -ge 2 ] &&
             [ "$(q "SELECT count(*) FROM results WHERE verdict = '"'fail'"' AND kind != '"'$death'"'")" = 0 ] &&
             [ "$(q "SELECT count(*) FROM cases")" = 150 ]'
    else
        skip "batch_${death}_is_recorded_on_one_case_of_each_batch" "no sqlite3 program"
    fi
    run report --db "$tmp/db.sqlite" --format md
    check "batch_${death}_report_is_not_conformant" out_has "**NOT CONFORMANT**"
done
run run --backend "plugin:$plugin,batch=crash" $common --db "$tmp/alone.sqlite"
check "batch_modes_leave_an_unbatched_plugin_healthy" rc_is 0
# Issue 23, defect 9: a run without families sorted a NULL list (UBSan: qsort's nonnull).
check "a_run_without_failures_is_sanitizer_clean" no_sanitizer_report

# Defect 3: unterminated messages.
run run --backend "plugin:$plugin,unterminated=open" $common --db :memory:
check "unterminated_open_message_is_cut_at_its_end" \
    eval 'rc_is 2 && err_has "open failed: xxxxxxxx" && no_sanitizer_report'
run run --backend "plugin:$plugin,unterminated=info" $common --db :memory:
check "unterminated_info_is_cut_at_its_end" eval 'rc_is 0 && no_sanitizer_report'
for call in create execute; do
    for p in "$plugin" "$batch_plugin"; do
        how=$([ "$p" = "$plugin" ] && echo alone || echo batched)
        run run --backend "plugin:$p,unterminated=$call" $common --db :memory:
        check "unterminated_${call}_message_${how}_is_a_backend_error" \
            eval 'rc_is 1 && out_has "kind=backend_error" && ! out_has "kind=crash" && no_sanitizer_report'
    done
    run exec --backend "plugin:$plugin,unterminated=$call" "$case_file"
    check "exec_unterminated_${call}_message" eval 'rc_is 1 && all_has xxxxxxxx && no_sanitizer_report'
done
finish
