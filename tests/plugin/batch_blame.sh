#!/bin/sh
# batch_blame.sh: a crash or a hang inside a backend batch is charged to the case that causes
# it, not to the first case of its batch.  The reference plug-in built with execute_batch
# (libreference_batch_plugin.so) gets up to 64 small cases per call; crash_elements=N / hang_elements=N make it
# die on every case of exactly N input elements.  N is picked from a clean run so that its
# first case is not the first of a batch.
# Usage: batch_blame.sh DMLCHECK REFERENCE_BATCH_PLUGIN SQLITE3.  TAP.
set -u
dmlcheck=$1 plugin=$2 sqlite=${3:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
if [ -z "$sqlite" ]; then
    echo "1..0 # SKIP no sqlite3 program"
    exit 0
fi
common="--cases 200 --seed 3 --max-elements 256 --shrink-budget 0"
q() { "$sqlite" "$1" "$2"; }

run run --backend "plugin:$plugin" $common --db "$tmp/clean.sqlite"
check "clean_run_passes" rc_is 0
# Element counts of executed cases whose first case is not the first of a 64-case batch.
N=$(q "$tmp/clean.sqlite" "SELECT c.elements FROM cases c JOIN results r ON r.case_id = c.id
      WHERE r.verdict = 'pass' GROUP BY c.elements HAVING min(c.case_index) % 64 != 0
      ORDER BY count(*), c.elements LIMIT 1")
expected=$(q "$tmp/clean.sqlite" "SELECT count(*) FROM cases c JOIN results r ON r.case_id = c.id
      WHERE r.verdict = 'pass' AND c.elements = $N")
echo "# blamed cases have $N input elements ($expected of them)"

# blamed DB KIND: the cases recorded as KIND are exactly the executed cases of N elements,
# and every other executed case passed.
blamed() {
    got=$(q "$1" "SELECT count(*) FROM cases c JOIN results r ON r.case_id = c.id
          WHERE r.kind = '$2' AND c.elements = $N")
    others=$(q "$1" "SELECT count(*) FROM cases c JOIN results r ON r.case_id = c.id
          WHERE r.verdict NOT IN ('pass', 'skip') AND NOT (r.kind = '$2' AND c.elements = $N)")
    total=$(q "$1" "SELECT count(*) FROM cases")
    echo "# $2: $got blamed (want $expected), $others others failed, $total cases recorded"
    [ "$got" = "$expected" ] && [ "$others" = 0 ] && [ "$total" = 200 ]
}

run run --backend "plugin:$plugin,crash_elements=$N" $common --db "$tmp/crash.sqlite"
check "crash_run_ends_with_failure" rc_is 1
check "crash_charged_to_its_case" blamed "$tmp/crash.sqlite" crash

# Default sizes: a case too big to join the batch before it starts the next one (the worker
# moves it; seed 42's case 200 is one), and must keep its own descriptor.
run run --backend "plugin:$plugin" --cases 400 --seed 42 --shrink-budget 0 --db "$tmp/split.sqlite"
check "batches_split_by_size_keep_each_case" rc_is 0

run run --backend "plugin:$plugin,hang_elements=$N" $common --case-timeout 300 --db "$tmp/hang.sqlite"
check "hang_run_ends_with_failure" rc_is 1
check "hang_charged_to_its_case" blamed "$tmp/hang.sqlite" hang
finish
