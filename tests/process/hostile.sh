#!/bin/sh
# hostile.sh: a process adapter whose grandchild (setsid, out of the adapter's process group)
# keeps the socket open (issue 23, defect 5; tests/process/hostile_adapter.py).  The adapter's
# death is its case's crash, seen at once (not a hang after the whole case limit), the run
# goes on to the end, and no grandchild outlives the command (run and exec).
# Usage: hostile.sh DMLCHECK SOURCE_ROOT SQLITE3.  Prints TAP.
set -u
dmlcheck=$1 src=$2 sqlite=${3:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
adapter=$src/tests/process/hostile_adapter.py
case_file=$src/corpus/conformance/argmax/argmax_spec_example1_columns.json
# The adapter's path is copied into $tmp, so the processes this test starts are the ones whose
# command line names $tmp.
cp "$adapter" "$src/adapters/python/dmlcheck_adapter.py" "$tmp/"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
none_left() {
    sleep 0.3
    ! pgrep -f "$tmp/hostile_adapter.py" >/dev/null
}
sql_is() { [ -z "$sqlite" ] || [ "$("$sqlite" "$tmp/db.sqlite" "$2")" = "$1" ]; }

for mode in crash exit; do
    rm -f "$tmp/db.sqlite"*
    start=$(now_ms)
    timeout -s KILL 120 "$dmlcheck" run --backend "process:python3 $tmp/hostile_adapter.py --grandchild $mode --every 5" \
        --cases 30 --seed 5 --shrink-budget 0 --case-timeout 10000 --db "$tmp/db.sqlite" \
        >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    took=$(($(now_ms) - start))
    check "grandchild_${mode}_is_a_crash_not_a_hang" eval \
        'rc_is 1 && out_has "kind=crash" && ! out_has "kind=hang" && out_has "30 cases in"'
    check "grandchild_${mode}_costs_exactly_its_cases" sql_is 6 "SELECT count(*) FROM results WHERE kind = 'crash'"
    check "grandchild_${mode}_keeps_every_case" sql_is 30 "SELECT count(*) FROM results"
    # Six deaths at the case limit took a minute before; seen at once, the run takes seconds.
    check "grandchild_${mode}_is_seen_at_once" [ "$took" -lt 20000 ]
    check "grandchild_${mode}_leaves_no_process" none_left
done
run run --backend "process:python3 $tmp/hostile_adapter.py --grandchild linger" --cases 30 --seed 5 \
    --shrink-budget 0 --db :memory:
check "lingering_grandchildren_do_not_outlive_run" eval 'out_has "30 cases in" && none_left'
timeout -s KILL 60 "$dmlcheck" exec --backend "process:python3 $tmp/hostile_adapter.py --grandchild crash" \
    --case-timeout 10000 "$case_file" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "exec_grandchild_crash_is_a_crash" eval 'rc_is 1 && all_has "crash" && ! all_has "hang" && none_left'
finish
