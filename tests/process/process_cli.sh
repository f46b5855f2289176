#!/bin/sh
# process_cli.sh: the out-of-process protocol (docs/PROTOCOL.md) seen from outside.
#   - the numpy adapter agrees with the corpus, strided and packed, and in a differential run;
#     a packed child is recorded as such (stride handling not tested);
#   - each fault of tests/process/echo_adapter.py costs its cases (backend_error, or hang when
#     the worker's --case-timeout fires first), the child restarts, the run goes on to the end;
#   - a wrong protocol version, a refusal, a missing program and a bad quote are refused at
#     the handshake with exit 2, naming the command;
#   - printed replay lines, pasted, replay through the process backend (with a path that holds
#     a space and a quote).
# Usage: process_cli.sh DMLCHECK SOURCE_ROOT.  Prints TAP.
set -u
dmlcheck=$1 src=$2
. "$(dirname "$0")/../lib/cli_tap.sh"
echo_py=$src/tests/process/echo_adapter.py
numpy_py=$src/adapters/numpy/numpy_adapter.py
corpus=$src/corpus/conformance
one=$corpus/argmax/argmax_spec_example1_columns.json
two=$corpus/argmin/argmin_spec_example2_rows.json

# A Python 3 that has numpy (Debian's python3-numpy lives in /usr/bin/python3's path), and one
# for the echo adapter, which needs only the standard library.
py=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import numpy' >/dev/null 2>&1; then py=$p; break; fi
done
echo_python=${py:-python3}




# How many lines of stderr hold TEXT.
err_count_is() { [ "$(grep -cF -- "$2" "$tmp/err")" = "$1" ]; }
# The answer of an SQL query on the last run's database, when sqlite3 exists.
have_sqlite=$(command -v sqlite3 || true)
sql_is() { [ "$(sqlite3 "$tmp/db.sqlite" "$2")" = "$1" ]; }

echo_run() { # echo_run CASES ARGS...: a differential run on the echo adapter
    cases=$1
    shift
    rm -f "$tmp/db.sqlite"*
    run run --backend "process:$echo_python $echo_py $*" --cases "$cases" --seed 5 \
        --shrink-budget 0 --case-timeout 2000 --db "$tmp/db.sqlite"
}

# --- the numpy adapter: the corpus and a differential run, strided and packed ---
if [ -n "$py" ]; then
    run exec --backend "process:$py $numpy_py" "$corpus"/*/*.json
    check "exec_corpus_numpy_strided" rc_is 0
    check "exec_corpus_numpy_prints_every_output" sh -c "[ \$(grep -c '\"output\"' '$tmp/out') = \$(ls '$corpus'/*/*.json | wc -l) ]"
    run exec --backend "process:$py $numpy_py --layout packed" "$corpus"/*/*.json
    check "exec_corpus_numpy_packed" rc_is 0
    rm -f "$tmp/db.sqlite"*
    run run --backend "process:$py $numpy_py --layout packed" --nan-policy propagate --cases 1500 \
        --seed 3 --db "$tmp/db.sqlite"
    check "run_numpy_packed_propagate_conforms" sh -c "[ \$(cat '$tmp/rc') = 0 ] && grep -q 'fail=0' '$tmp/out'"
    if [ -n "$have_sqlite" ]; then
        check "packed_child_recorded_as_stride_untested" \
            sql_is 1 "SELECT count(*) FROM devices WHERE fp_config LIKE '%packed buffers: stride handling not tested%'"
        check "all_padding_windows_answered_not_skipped" \
            sh -c "[ \$(sqlite3 '$tmp/db.sqlite' \"SELECT count(*) FROM results x JOIN cases c ON c.id = x.case_id WHERE x.verdict='skip' AND c.distribution <> 'must_reject'\") -eq 0 ]"
    else
        skip "packed_child_recorded_as_stride_untested" "no sqlite3"
        skip "all_padding_windows_answered_not_skipped" "no sqlite3"
    fi
else
    for t in exec_corpus_numpy_strided exec_corpus_numpy_prints_every_output exec_corpus_numpy_packed \
             run_numpy_packed_propagate_conforms packed_child_recorded_as_stride_untested \
             all_padding_windows_answered_not_skipped; do
        skip "$t" "no python3 with numpy (apt-get install python3-numpy)"
    done
fi

# --- faults cost their cases; the child restarts and the run goes on ---
echo_run 100 --fault crash --every 7
check "crash_fails_the_run" rc_is 1
check "crash_run_goes_on_to_the_end" out_has "100 cases in"
check "crash_names_the_signal" all_has "crash: the child died before its reply: killed by signal 11"
if [ -n "$have_sqlite" ]; then
    check "crash_costs_exactly_its_cases" \
        sql_is 14 "SELECT count(*) FROM results WHERE kind='crash' AND detail LIKE 'crash:%signal 11%'"
    check "strided_child_recorded_as_strided" \
        sql_is 1 "SELECT count(*) FROM devices WHERE fp_config = 'process protocol 1, strided buffers'"
else
    skip "crash_costs_exactly_its_cases" "no sqlite3"
    skip "strided_child_recorded_as_strided" "no sqlite3"
fi
echo_run 50 --fault hang --every 20
check "hang_run_goes_on_to_the_end" out_has "50 cases in"
if [ -n "$have_sqlite" ]; then
    check "hang_is_the_workers_hang" sql_is 2 "SELECT count(*) FROM results WHERE kind='hang'"
else
    skip "hang_is_the_workers_hang" "no sqlite3"
fi
echo_run 60 --fault garbage --every 6 --layout packed
check "garbage_run_goes_on_to_the_end" out_has "60 cases in"
if [ -n "$have_sqlite" ]; then
    check "garbage_costs_exactly_its_cases" \
        sql_is 10 "SELECT count(*) FROM results WHERE kind='backend_error' AND detail LIKE 'garbage:%'"
else
    skip "garbage_costs_exactly_its_cases" "no sqlite3"
fi
echo_run 40 --ops ARGMAX
if [ -n "$have_sqlite" ]; then
    check "cases_beyond_the_claims_are_skipped" sql_is 0 \
        "SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.op <> 'ARGMAX' AND (r.verdict <> 'skip' OR r.detail NOT LIKE 'the child does not claim %')"
    check "claimed_cases_are_sent" sh -c "[ \$(sqlite3 '$tmp/db.sqlite' \"SELECT count(*) FROM results WHERE verdict <> 'skip'\") -gt 0 ]"
else
    skip "cases_beyond_the_claims_are_skipped" "no sqlite3"
    skip "claimed_cases_are_sent" "no sqlite3"
fi
# Claims per operator and type (WELCOME "claims"): only ARGMAX on INT32 and MAX_POOLING2 on
# FLOAT32 are sent; the rest is skipped with the claim it lacks, and the run stores them.
echo_run 300 --claims "'{\"ARGMAX\": [\"INT32\"], \"MAX_POOLING2\": {\"input_types\": [\"FLOAT32\"]}}'"
if [ -n "$have_sqlite" ]; then
    check "per_operator_claims_only_claimed_cells_are_sent" sql_is 0 \
        "SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE r.verdict <> 'skip' AND NOT ((c.op = 'ARGMAX' AND c.input_type = 'INT32') OR (c.op = 'MAX_POOLING2' AND c.input_type = 'FLOAT32'))"
    check "per_operator_claims_skip_names_the_type" sh -c "[ \$(sqlite3 '$tmp/db.sqlite' \"SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.op = 'MAX_POOLING2' AND c.input_type = 'FLOAT16' AND r.detail = 'the child does not claim FLOAT16 for MAX_POOLING2'\") -gt 0 ]"
    check "per_operator_claims_stored_with_the_run" sql_is \
        '{"operators":[{"op":"ARGMAX","input_types":["INT32"]},{"op":"MAX_POOLING2","input_types":["FLOAT32"]}]}' \
        "SELECT claims FROM runs ORDER BY id DESC LIMIT 1"
else
    skip "per_operator_claims_only_claimed_cells_are_sent" "no sqlite3"
    skip "per_operator_claims_skip_names_the_type" "no sqlite3"
    skip "per_operator_claims_stored_with_the_run" "no sqlite3"
fi

# Pooling claimed without indices ("indices": false, a library whose max pooling returns
# values only): a case with an OutputIndicesTensor is skipped naming that, one without is sent,
# and the run stores the claim as sent.
echo_run 300 --claims "'{\"MAX_POOLING2\": {\"indices\": false}}'"
if [ -n "$have_sqlite" ]; then
    check "claims_without_indices_skip_indices_cases" sql_is 0 \
        "SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.op = 'MAX_POOLING2' AND c.indices_type IS NOT NULL AND r.verdict <> 'skip'"
    check "claims_without_indices_skip_names_it" sh -c "[ \$(sqlite3 '$tmp/db.sqlite' \"SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.op = 'MAX_POOLING2' AND c.indices_type IS NOT NULL AND r.detail = 'the child does not claim MAX_POOLING2 with indices (an OutputIndicesTensor)'\") -gt 0 ]"
    check "claims_without_indices_send_the_others" sh -c "[ \$(sqlite3 '$tmp/db.sqlite' \"SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.op = 'MAX_POOLING2' AND c.indices_type IS NULL AND r.verdict <> 'skip'\") -gt 0 ]"
    check "claims_without_indices_stored_with_the_run" sql_is \
        '{"operators":[{"op":"MAX_POOLING2","indices":false}]}' \
        "SELECT claims FROM runs ORDER BY id DESC LIMIT 1"
else
    skip "claims_without_indices_skip_indices_cases" "no sqlite3"
    skip "claims_without_indices_skip_names_it" "no sqlite3"
    skip "claims_without_indices_send_the_others" "no sqlite3"
    skip "claims_without_indices_stored_with_the_run" "no sqlite3"
fi
# A claim whose "indices" is no boolean is refused at the handshake, naming the key (sent
# unchecked by the echo adapter; the Python helper refuses to build it).
run run --backend "process:$echo_python $echo_py --claims '[{\"op\": \"MAX_POOLING2\", \"indices\": 1}]'" --cases 5
check "claims_indices_not_boolean_refused" eval 'rc_is 2 && err_has "\"indices\" is not true or false"'

# Each fault in `exec`, two files: both are recorded, each with the fault's own words.
exec_fault() { # exec_fault NAME EXPECTED_RC TEXT ECHO_ARGS...
    fault=$1 want=$2 text=$3
    shift 3
    run exec --backend "process:$echo_python $echo_py $*" "$one" "$two"
    check "exec_${fault}_exit_status" rc_is "$want"
    check "exec_${fault}_recorded_for_both_cases" err_count_is 2 "$text"
}
exec_fault crash 1 "killed by signal 11 (Segmentation fault); the child was ended" --fault crash
exec_fault exit 1 "crash: the child died before its reply: exited with status 3" --fault exit
exec_fault garbage 1 "garbage: the reply starts with bytes 54 72 61 63" --fault garbage
exec_fault wrong_sizes 1 "wrong sizes: the OK reply carries 11 bytes of buffers; the request asked for 12" --fault short
exec_fault wrong_id 1 "wrong frame order: a reply of kind 4 with id" --fault order
exec_fault wrong_kind 1 "wrong frame order: a frame of kind 2 in reply to RUN" --fault kind
exec_fault error 1 "the child's error: RuntimeError: echo_adapter --fault error" --fault error
exec_fault invalid 1 "rejected_valid: refused as invalid at 3_0" --fault invalid
exec_fault unsupported 1 "unsupported_required: unsupported within the child's claims" --fault unsupported
DMLCHECK_PROCESS_TIMEOUT_MS=3000 "$dmlcheck" exec --backend "process:$echo_python $echo_py --fault hang --every 2" \
    "$one" "$two" "$one" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "exec_hang_times_out_per_case" err_count_is 1 "hang: no reply within 3000 ms (DMLCHECK_PROCESS_TIMEOUT_MS)"
check "exec_hang_the_next_case_runs" sh -c "[ \$(grep -c '\"output\"' '$tmp/out') = 2 ]"

# --- refused at the handshake: exit 2, naming the command ---
run exec --backend "process:$echo_python $echo_py --protocol 2" "$one"
check "wrong_protocol_version_refused" sh -c "[ \$(cat '$tmp/rc') = 2 ] && grep -qF \"process '$echo_python $echo_py --protocol 2': it speaks protocol version 2; this dmlcheck speaks version 1\" '$tmp/err'"
run run --backend "process:$echo_python $echo_py --refuse 'no such device'" --cases 5 --db "$tmp/bad.sqlite"
check "refusal_at_hello_reported" sh -c "[ \$(cat '$tmp/rc') = 2 ] && grep -q 'it refused to start: no such device' '$tmp/err'"
run exec --backend "process:$tmp/no-such-program --flag" "$one"
check "missing_program_refused" sh -c "[ \$(cat '$tmp/rc') = 2 ] && grep -q \"process '$tmp/no-such-program --flag': cannot run $tmp/no-such-program: No such file\" '$tmp/err'"
run exec --backend "process:python3 'unterminated" "$one"
check "unterminated_quote_refused" sh -c "[ \$(cat '$tmp/rc') = 2 ] && grep -q 'an unterminated . quote' '$tmp/err'"
run exec --backend "process:" "$one"
check "empty_command_refused" sh -c "[ \$(cat '$tmp/rc') = 2 ] && grep -q 'no command given' '$tmp/err'"

# --- replay lines, pasted, replay through the process backend; quoting survives a path with
# a space and a single quote (inside CMD it is double-quoted, as docs/PROTOCOL.md says) ---
odd="$tmp/it's an adapter"
# Python puts the script's own folder first on sys.path, so the helper beside it is found.
mkdir -p "$odd" && cp "$echo_py" "$src/adapters/python/dmlcheck_adapter.py" "$odd/"
rm -f "$tmp/db.sqlite"*
run run --backend "process:$echo_python \"$odd/echo_adapter.py\" --fault error" --cases 12 --seed 9 \
    --shrink-budget 0 --db "$tmp/db.sqlite"
check "odd_path_run_fails" rc_is 1
# The replay line printed under the backend_error signature (the child's own ERROR reply).
line=$(grep -A3 'kind=backend_error' "$tmp/out" | grep -m1 'replay: dmlcheck replay g5:9:' | sed 's/^ *replay: dmlcheck //')
if [ -n "$line" ]; then
    eval "set -- $line"
    run "$@"
    check "replay_line_reproduces_through_the_process_backend" rc_is 1
    check "replay_line_reaches_the_same_child" all_has "the child's error: RuntimeError: echo_adapter --fault error"
else
    check "replay_line_reproduces_through_the_process_backend" false
    check "replay_line_reaches_the_same_child" false
fi
run exec --backend "process:$echo_python \"$odd/echo_adapter.py\" --fault error" "$one"
line=$(grep -m1 '^replay: dmlcheck exec' "$tmp/err" | sed 's/^replay: dmlcheck //')
if [ -n "$line" ]; then
    eval "set -- $line"
    run "$@"
    check "exec_replay_line_reproduces" sh -c "[ \$(cat '$tmp/rc') = 1 ] && grep -q 'echo_adapter --fault error' '$tmp/err'"
else
    check "exec_replay_line_reproduces" false
fi

# --- the host side under valgrind: framing, restarts and refusals leak nothing ---
if [ -n "${VALGRIND:-}" ]; then
    vg="$VALGRIND --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect -q"
    $vg "$dmlcheck" exec --backend "process:$echo_python $echo_py --fault garbage --every 2 --layout packed" \
        "$corpus"/*/*.json >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check "exec_corpus_with_faults_valgrind_clean" rc_is 1
    $vg "$dmlcheck" exec --backend "process:$echo_python $echo_py --protocol 2" "$one" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check "refused_child_valgrind_clean" rc_is 2
else
    skip "exec_corpus_with_faults_valgrind_clean" "no valgrind, or a sanitizer build"
    skip "refused_child_valgrind_clean" "no valgrind, or a sanitizer build"
fi

finish
