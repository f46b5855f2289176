#!/bin/sh
# stop_cli.sh: SIGTERM and SIGINT stop `dmlcheck run` and `dmlcheck exec` promptly, with exit
# 130, even while a case is in flight on a slow backend (the reference plug-in with delay_ms,
# tests/plugin/reference_plugin.c), and the stopped run keeps what it recorded: its report says
# INCOMPLETE RUN and its cases are in the database.  The same while the reference (in the
# dmlcheck process) computes a long case, which also has its own limit, --reference-timeout.
# Usage: stop_cli.sh DMLCHECK REFERENCE_PLUGIN_SO CORPUS_DIR SQLITE3_OR_EMPTY.  Prints TAP.
set -u
dmlcheck=$1 plugin=$2 corpus=$3 sqlite=$4
. "$(dirname "$0")/../lib/cli_tap.sh"
one=$corpus/argmax/argmax_spec_example1_columns.json

now_ms() { date +%s%3N; }

# stop_after SECONDS SIGNAL ARGS...: starts dmlcheck ARGS in the background, sends SIGNAL
# after SECONDS, and waits for it at most 20 s more (then kill -9: a stop that does not act).
# Leaves the exit code in $tmp/rc and the milliseconds from the signal to the exit in $took.
# Standard input is $stdin (a background command's is /dev/null otherwise).
stdin=/dev/null
stop_after() {
    delay=$1 sig=$2
    shift 2
    "$dmlcheck" "$@" <"$stdin" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    sleep "$delay"
    sent=$(now_ms)
    kill "-$sig" "$pid"
    waited=0
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 200 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid"
    echo $? >"$tmp/rc"
    took=$(($(now_ms) - sent))
}
took_under() { [ "$took" -lt "$1" ]; }
sql_is() { [ "$("$sqlite" "$tmp/db.sqlite" "$1")" = "$2" ]; }

# A run on a backend that takes 400 ms per case: a batch of 128 cases is 51 s of work, so only
# a stop that acts inside a batch ends it within 3 s.
stop_after 3 TERM run --backend "plugin:$plugin,delay_ms=400" --cases 1000 --seed 3 \
    --shrink-budget 0 --db "$tmp/db.sqlite"
check run_sigterm_exits_130 rc_is 130
check run_sigterm_acts_within_3_seconds_in_a_slow_batch took_under 3000
check run_sigterm_says_it_stopped err_has "stopped by a signal"
if [ -n "$sqlite" ]; then
    check run_stopped_is_stored_interrupted sql_is "SELECT status FROM runs" interrupted
    check run_stopped_keeps_the_cases_it_checked \
        sh -c "[ \$('$sqlite' '$tmp/db.sqlite' 'SELECT count(*) FROM cases') -ge 2 ]"
else
    skip run_stopped_is_stored_interrupted "no sqlite3"
    skip run_stopped_keeps_the_cases_it_checked "no sqlite3"
fi
run report --db "$tmp/db.sqlite" --format md -o "$tmp/report.md"
cp "$tmp/report.md" "$tmp/out" 2>/dev/null
check run_stopped_report_says_incomplete_run out_has "INCOMPLETE RUN"

# The same with Ctrl-C's signal.
rm -f "$tmp/db.sqlite"*
stop_after 2 INT run --backend "plugin:$plugin,delay_ms=400" --cases 1000 --seed 3 \
    --shrink-budget 0 --db "$tmp/db.sqlite"
check run_sigint_exits_130_within_3_seconds eval 'rc_is 130 && took_under 3000'

# exec: a case that takes 10 s is abandoned at once.
stop_after 1 TERM exec --backend "plugin:$plugin,delay_ms=10000" "$one" "$one"
check exec_sigterm_exits_130_within_3_seconds eval 'rc_is 130 && took_under 3000'
stop_after 1 INT exec --backend "plugin:$plugin,delay_ms=10000" "$one"
check exec_sigint_exits_130_within_3_seconds eval 'rc_is 130 && took_under 3000'
check exec_stopped_says_so err_has "stopped by a signal"
# A stop while the reference computes a large case: MAX_POOLING2 768x768 with a 256x256
# window is 17e9 window taps, seconds of reference time, which the reference engine spends
# without looking at any flag; dmlcheck computes it in a child process it can end.  UINT8:
# the reference visits every tap for integer types (about 14 s here); its float32 path folds
# window rows first and takes this case in 0.2 s.
heavy=$tmp/max_pooling2_heavy.json
printf '{"op": "MAX_POOLING2", "feature_level": "3_0", "InputTensor": {"DataType": "UINT8", "Sizes": [1, 1, 768, 768]},
 "OutputTensor": {"DataType": "UINT8", "Sizes": [1, 1, 513, 513]}, "Strides": [1, 1], "WindowSize": [256, 256],
 "StartPadding": [0, 0], "EndPadding": [0, 0], "Dilations": [1, 1], "input": [%s]}\n' \
    "$(yes 0 | head -n 589824 | paste -sd, -)" >"$heavy"
stop_after 1.5 TERM exec --backend "plugin:$plugin" "$heavy"
check exec_sigterm_during_a_long_reference_exits_130_within_3_seconds \
    eval 'rc_is 130 && took_under 3000'
# The reference's own limit: past --reference-timeout the file is an error, not checked, and
# not a hang of the backend.
run exec --backend "plugin:$plugin" --reference-timeout 200 "$heavy"
check exec_reference_past_its_limit_is_an_error_not_a_hang \
    eval 'rc_is 2 && err_has "not checked: the reference took longer than 200 ms (--reference-timeout)" && ! err_has hang'

# The same in run: case g5:1:11498, the first huge case of seed 1 (MAX_POOLING2 over 1.4e6
# elements, tens of milliseconds of reference time), is recorded as not checked, and the run
# goes on to its end.
run run --backend reference --cases 11499 --seed 1 --shrink-budget 0 --reference-timeout 1 \
    --db "$tmp/limit.sqlite"
check run_reference_past_its_limit_is_not_checked eval 'rc_is 0 && err_has \
    "case g5:1:11498 not checked: the reference took longer than 1 ms (--reference-timeout)"'
if [ -n "$sqlite" ]; then
    check run_reference_past_its_limit_is_recorded_as_error eval '[ "$("$sqlite" "$tmp/limit.sqlite" \
        "SELECT verdict FROM results JOIN cases ON cases.id = results.case_id WHERE case_index = 11498")" = error ]'
else
    skip run_reference_past_its_limit_is_recorded_as_error "no sqlite3"
fi

# exec -: a stop while standard input is still open ends the read, not a file to fix.
mkfifo "$tmp/fifo"
sleep 20 >"$tmp/fifo" &
writer=$!
stdin=$tmp/fifo
stop_after 1 INT exec -
stdin=/dev/null
kill "$writer" 2>/dev/null
check exec_sigint_while_reading_stdin_exits_130 \
    eval 'rc_is 130 && took_under 3000 && err_has "exec: 1 file: stopped by a signal, 1 not checked"'

finish
