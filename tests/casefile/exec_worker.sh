#!/bin/sh
# exec_worker.sh: `dmlcheck exec` runs the backend in the worker process, as `run` does.
#   - a backend that crashes on a file fails that file as `crash`, with a replay line; the
#     worker restarts and the next file runs (the example plug-in's bug=crash, which aborts on
#     inputs of 2000 elements and more);
#   - a backend that outlives --case-timeout fails that file as `hang` and the next file runs
#     (the reference plug-in with delay_ms); the replay line keeps --case-timeout;
#   - but the limit grows with the case (worker_case_limit_ms): a case of 2^20 elements on a
#     backend that takes 1 us per element (us_per_element) is not a hang with --case-timeout 300;
#   - a backend that cannot be opened is still exit 2, naming the reason.
# Usage: exec_worker.sh DMLCHECK EXAMPLE_PLUGIN_SO REFERENCE_PLUGIN_SO CORPUS_DIR.  Prints TAP.
set -u
dmlcheck=$1 example=$2 slow=$3 corpus=$4
. "$(dirname "$0")/../lib/cli_tap.sh"
one=$corpus/argmax/argmax_spec_example1_columns.json
big=$tmp/argmax_2048.json
printf '{"op": "ARGMAX", "feature_level": "3_0", "InputTensor": {"DataType": "FLOAT32", "Sizes": [2048]},
 "OutputTensor": {"DataType": "UINT32", "Sizes": [1]}, "Axes": [0], "AxisDirection": "INCREASING",
 "input": [%s]}\n' "$(seq -s, 1 2048)" >"$big"
err_count_is() { [ "$(grep -cF -- "$2" "$tmp/err")" = "$1" ]; }
out_lines_are() { [ "$(wc -l <"$tmp/out")" -eq "$1" ]; }

run exec --backend "plugin:$example,bug=crash" "$one" "$big" "$one"
check exec_crash_fails_with_exit_1 rc_is 1
check exec_crash_is_reported_as_kind_crash_for_its_file err_has "$big: fail: crash: worker killed by signal 6"
check exec_crash_ends_with_its_replay_line \
    err_has "replay: dmlcheck exec --backend plugin:$example,bug=crash $big"
check exec_crash_the_files_around_it_still_run \
    eval 'out_lines_are 3 && [ "$(grep -c "\"result\": \"agree\", \"output\": \[1, 2, 1\]}" "$tmp/out")" -eq 2 ]'
check exec_crash_line_names_the_file_and_kind out_has "{\"file\": \"$big\", \"result\": \"fail\", \"kind\": \"crash\"}"
check exec_crash_summary_counts_it eval '[ "$(tail -n 1 "$tmp/err")" = "exec: 3 files: 2 agree, 1 fail" ]'
run exec --backend "plugin:$example,bug=crash" "$big" "$big"
check exec_crash_worker_restarts_for_each_file err_count_is 2 "fail: crash:"

run exec --backend "plugin:$slow,delay_ms=20000" --case-timeout 300 "$one" "$one"
check exec_hang_fails_with_exit_1 rc_is 1
check exec_hang_is_reported_as_kind_hang_for_each_file err_count_is 2 "$one: fail: hang: no answer within 300 ms"
check exec_hang_replay_keeps_the_case_timeout \
    err_has "replay: dmlcheck exec --backend plugin:$slow,delay_ms=20000 --case-timeout 300 $one"
check exec_hang_message_names_the_limit_rule \
    err_has "no answer within 300 ms (--case-timeout 300 ms + 10 us for each of 9 input elements)"
# A large case on a slow but correct backend is not a hang: 2^20 elements at 1 us each take
# 1 s, past --case-timeout 300, but the limit grows by 10 us per input element (10.5 s here).
large=$tmp/argmax_1m.json
printf '{"op": "ARGMAX", "feature_level": "3_0", "InputTensor": {"DataType": "FLOAT32", "Sizes": [1048576]},
 "OutputTensor": {"DataType": "UINT32", "Sizes": [1]}, "Axes": [0], "AxisDirection": "INCREASING",
 "input": [%s]}\n' "$(yes 0 | head -n 1048576 | paste -sd, -)" >"$large"
run exec --backend "plugin:$slow,us_per_element=1" --case-timeout 300 "$large"
check exec_large_case_on_a_slow_backend_is_not_hang \
    eval 'rc_is 0 && out_has "{\"output\": [0]}" && ! err_has "hang"'
run exec --case-timeout 0 "$one"
check exec_bad_case_timeout_exits_2 eval 'rc_is 2 && err_has "--case-timeout wants milliseconds"'
run exec --help
check exec_help_names_case_timeout_and_its_default eval 'rc_is 0 && out_has "--case-timeout MS" && out_has "10000"'

run exec --backend "plugin:$tmp/no-such-library.so" "$one"
check exec_backend_that_cannot_open_exits_2_naming_why \
    eval 'rc_is 2 && err_has "dmlcheck exec: cannot open backend plugin:" && err_has "no-such-library.so: cannot load it"'

finish
