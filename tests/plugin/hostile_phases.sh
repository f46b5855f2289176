#!/bin/sh
# hostile_phases.sh: a plug-in that hangs, closes descriptors, writes into dmlcheck's pipe or
# forks cannot hang the harness, end the run or outlive it (issue 23, defects 4 and 5).  The
# hostile plug-in (hostile_plugin.c, right answers otherwise), alone and batched, through
# `run`, `exec` and `replay`:
#   - hang=close, closefds=close: the run ends within --case-timeout of its last case, says
#     the backend did not close, and keeps every case;
#   - hang=open, and a hang in close: SIGTERM or SIGINT ends dmlcheck within 1.5 s;
#   - closefds=execute, scribble=1, fork=crash: each case is one failure of kind crash, the run
#     goes on to the end (exit 1, never 2) and the database holds every case;
#   - fork=linger, fork=setsid, fork=return: the run passes, answers are not doubled;
#   - after every command, no process the plug-in started is left (each command line holds
#     this test's folder, so `pgrep -f` finds them).
# Usage: hostile_phases.sh DMLCHECK HOSTILE_PLUGIN HOSTILE_BATCH_PLUGIN SOURCE_ROOT SQLITE3.  TAP.
set -u
dmlcheck=$1 plugin=$2 batch_plugin=$3 src=$4 sqlite=${5:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
common="--cases 40 --seed 7 --max-elements 256 --shrink-budget 0 --case-timeout 1000"
case_file=$src/corpus/conformance/argmax/argmax_spec_example1_columns.json
tag="marker=$tmp/closing"
q() { "$sqlite" "$tmp/db.sqlite" "$1"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# A command that must end by itself: killed after 60 s (the defects hung forever).
run_limited() {
    timeout -s KILL 60 "$dmlcheck" "$@" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
}
# Nothing started by this test's commands is still running (forks of the worker carry the
# worker's command line, which names $tmp).
none_left() {
    sleep 0.2
    ! pgrep -f "$tmp/closing" >/dev/null
}
sql_is() { [ -z "$sqlite" ] || [ "$(q "$2")" = "$1" ]; }
every_case_recorded() { sql_is 40 "SELECT count(*) FROM cases" && sql_is 40 "SELECT count(*) FROM results"; }
# Every executed case failed as KIND (skips: cases beyond the claims).
every_case_is() {
    sql_is 0 "SELECT count(*) FROM results WHERE verdict NOT IN ('skip', 'fail')
              OR (verdict = 'fail' AND kind != '$1')" &&
    [ -z "$sqlite" ] || [ "$(q "SELECT count(*) FROM results WHERE kind = '$1'")" -gt 30 ]
}
# Starts dmlcheck ARGS in the background, waits for FILE (or 1 s when FILE is -), sends
# SIGNAL and records in $tmp/stop_ms how long dmlcheck took to end.
stop_after() {
    file=$1 sig=$2
    shift 2
    rm -f "$tmp/closing"
    timeout -s KILL 60 "$dmlcheck" "$@" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 100); do
        if [ "$file" = - ] || [ -e "$file" ]; then break; fi
        sleep 0.1
    done
    [ "$file" = - ] && sleep 1
    start=$(now_ms)
    pkill "-$sig" -P "$pid" -x dmlcheck
    wait "$pid"
    echo $? >"$tmp/rc"
    echo $(($(now_ms) - start)) >"$tmp/stop_ms"
}
stopped_within() { [ "$(cat "$tmp/stop_ms")" -le "$1" ]; }

# Defect 4: close and open get deadlines, and a stop ends every phase.
for mode in hang=close closefds=close; do
    for p in "$plugin" "$batch_plugin"; do
        how=$([ "$p" = "$plugin" ] && echo alone || echo batched)
        rm -f "$tmp/db.sqlite"*
        start=$(now_ms)
        run_limited run --backend "plugin:$p,$mode,$tag" $common --db "$tmp/db.sqlite"
        took=$(($(now_ms) - start))
        check "${mode}_${how}_ends_and_says_so" eval \
            'rc_is 0 && err_has "did not close within 1000 ms" && [ "$took" -lt 10000 ]'
        check "${mode}_${how}_keeps_every_case" every_case_recorded
        check "${mode}_${how}_leaves_no_process" none_left
    done
done
run_limited exec --backend "plugin:$plugin,hang=close,$tag" --case-timeout 1000 "$case_file"
check "exec_hang_close_ends" eval 'rc_is 0 && err_has "did not close within"'
for sig in TERM INT; do
    stop_after "$tmp/closing" "$sig" run --backend "plugin:$plugin,hang=close,$tag" \
        --cases 40 --seed 7 --max-elements 256 --case-timeout 60000 --db :memory:
    check "sig${sig}_ends_a_hang_in_close_within_a_second" eval 'stopped_within 1500 && none_left'
    stop_after - "$sig" run --backend "plugin:$plugin,hang=open,$tag" --cases 40 --db :memory:
    check "sig${sig}_ends_a_hang_in_open_within_a_second" eval \
        'rc_is 130 && stopped_within 1500 && none_left'
done

# Defect 5: descriptors, pipes and forks cost one case each, never the run.
for mode in closefds=execute scribble=1 fork=crash; do
    for p in "$plugin" "$batch_plugin"; do
        how=$([ "$p" = "$plugin" ] && echo alone || echo batched)
        rm -f "$tmp/db.sqlite"*
        run_limited run --backend "plugin:$p,$mode,$tag" $common --db "$tmp/db.sqlite"
        check "${mode}_${how}_fails_cases_not_the_run" eval \
            'rc_is 1 && out_has "kind=crash" && out_has "40 cases in"'
        check "${mode}_${how}_is_crash_on_every_case" every_case_is crash
        check "${mode}_${how}_keeps_every_case" every_case_recorded
        check "${mode}_${how}_leaves_no_process" none_left
    done
    run_limited exec --backend "plugin:$plugin,$mode,$tag" "$case_file"
    check "exec_${mode}_is_a_crash" eval 'rc_is 1 && all_has crash && none_left'
done
# replay: each mode is the replayed case's verdict, of its kind, and leaves nothing running.
for pair in write_past=1:out_of_bounds_write write_before=1:out_of_bounds_write \
            unterminated=execute:backend_error closefds=execute:crash scribble=1:crash \
            fork=crash:crash hang=close:pass closefds=close:pass fork=setsid:pass fork=return:pass; do
    mode=${pair%%:*} want=${pair#*:}
    run_limited replay g5:7:5 --backend "plugin:$plugin,$mode,$tag" --max-elements 256 --case-timeout 1000
    if [ "$want" = pass ]; then
        check "replay_${mode}_passes" eval 'rc_is 0 && out_has "verdict: pass" && none_left'
    else
        check "replay_${mode}_is_${want}" eval \
            'rc_is 1 && grep -q "^verdict: fail: $want" "$tmp/out" && none_left'
    fi
done
for mode in fork=linger fork=setsid fork=return; do
    for p in "$plugin" "$batch_plugin"; do
        how=$([ "$p" = "$plugin" ] && echo alone || echo batched)
        rm -f "$tmp/db.sqlite"*
        run_limited run --backend "plugin:$p,$mode,$tag" $common --db "$tmp/db.sqlite"
        check "${mode}_${how}_passes" eval 'rc_is 0 && out_has "40 cases in"'
        check "${mode}_${how}_keeps_every_case_once" every_case_recorded
        check "${mode}_${how}_leaves_no_process" none_left
    done
done
finish
