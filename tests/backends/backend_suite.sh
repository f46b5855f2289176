#!/bin/sh
# backend_suite.sh: one conformance suite, the same for every backend the build has (issue 10:
# reference, OpenCL, the example C plug-in, the numpy adapter through the process protocol).
#   - the conformance corpus (exec): every file agrees, or is skipped with a reason;
#   - a differential run: no judged failure, every case recorded;
#   - a replay line of that run, pasted, replays through the same backend;
#   - the cross-operator relation (MAX_POOLING2 with unit dilations equals MAX_POOLING1).
# Usage: backend_suite.sh DMLCHECK BACKEND SOURCE_ROOT RELATIONS_EXE [RUN OPTIONS...].  TAP.
set -u
dmlcheck=$1 backend=$2 src=$3 relations=$4
shift 4
. "$(dirname "$0")/../lib/cli_tap.sh"

run exec --backend "$backend" "$src"/corpus/conformance/*/*.json
check "corpus" rc_is 0
run run --backend "$backend" --cases 1500 --seed 17 --db "$tmp/run.sqlite" "$@"
check "differential_run_has_no_failure" sh -c "[ \$(cat '$tmp/rc') = 0 ] && grep -q '^summary: 1500 cases' '$tmp/out' && ! grep -q ' fail=[1-9]' '$tmp/out'"
# The first case of the run, replayed by the command a failure line would print.
run replay g2:17:0 --backend "$backend" "$@"
check "replay_through_the_same_backend" sh -c "[ \$(cat '$tmp/rc') = 0 ] && grep -q '^verdict: ' '$tmp/out'"
"$relations" "$backend" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "relations" sh -c "[ \$(cat '$tmp/rc') = 0 ] && grep -q '^ok ' '$tmp/out' && ! grep -q SKIP '$tmp/out'"
finish
