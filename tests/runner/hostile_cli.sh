#!/bin/bash
# hostile_cli.sh: every kind of command dmlcheck prints, made from hostile inputs, is one line
# that bash parses and that, run with eval in a sandbox folder, reproduces the same case (the
# same case id, the same verdict) and runs nothing else (no PWNED file appears); and no
# terminal escape sequence from a device name, a case file or the database reaches the output.
# The commands: run's failure lines and summary (`replay: ...`), replay's own line, exec's
# replay line, the report's replay and export lines (Markdown and HTML), and the refusal line
# of `replay --db` with other generator options.  The inputs: a --device selector and a
# database path with spaces, both quotes, $(touch PWNED), backticks, a newline and ESC[31m;
# a case-file path of the same kind; a --backend process:'...' command whose script path holds
# a single quote and $(...) (double-quoted inside CMD, docs/PROTOCOL.md).  The process backend
# is the one that accepts any --device (it hands the selector to the child, which here names
# its device after it: tests/process/echo_adapter.py --echo-device); the reference backend
# refuses one, and the example plug-in takes --device as an argument it does not know.
# bash, not sh: the commands are checked with bash -n and run with bash's eval, which reads
# the $'\xHH' that dmlcheck writes for control characters.
# Usage: hostile_cli.sh DMLCHECK SOURCE_ROOT.  Prints TAP.
set -u
dmlcheck=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") src=$2
. "$(dirname "$0")/../lib/cli_tap.sh"
if ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP no python3 for the process backend's echo adapter"
    exit 0
fi

esc=$(printf '\033')
nl='
'
sb=$tmp/sand\ box
mkdir -p "$sb"
hostile="a b\"c'd \$(touch PWNED) \`touch PWNED\`;${nl}e${esc}[31mf"
adapter_dir="$sb/it's \$(touch PWNED) dir"
mkdir -p "$adapter_dir"
cp "$src/tests/process/echo_adapter.py" "$src/adapters/python/dmlcheck_adapter.py" "$adapter_dir/"
backend="process:python3 \"$adapter_dir/echo_adapter.py\" --echo-device"
db="$sb/d b'\"\$(touch PWNED)\`touch PWNED\`${esc}[31m.sqlite"
case_file="$sb/c a'se \$(touch PWNED) \`touch PWNED\`${esc}[31m.json"

# The first line of the last command's stdout and stderr that starts (after blanks) with
# PREFIX, without the blanks and "replay: ".
command_line() {
    cat "$tmp/out" "$tmp/err" | grep -m1 "^ *$1" | sed 's/^ *//; s/^replay: //'
}

# Runs LINE (a command starting with `dmlcheck`) with bash's eval in the sandbox, where
# `dmlcheck` is this build; its output and exit code land where `run` puts them.
eval_in_sandbox() {
    (cd "$sb" && DMLCHECK=$dmlcheck bash -c 'dmlcheck() { "$DMLCHECK" "$@"; }; eval "$1"' _ "$1") \
        >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
}

parses() { [ -n "$1" ] && printf '%s\n' "$1" | bash -n; }
no_pwned() { [ -z "$(find "$tmp" -name 'PWNED*')" ]; }
no_escape_printed() { ! cat "$tmp/out" "$tmp/err" | grep -qF "$esc"; }

# check_command NAME LINE RC [TEXT]: LINE parses, runs with exit code RC, prints TEXT (when
# given), creates no PWNED file and prints no escape character.
check_command() {
    what=$1 line=$2 want_rc=$3 text=${4:-}
    check "${what}_parses_in_bash" parses "$line"
    eval_in_sandbox "$line"
    check "${what}_reproduces" eval 'rc_is "$want_rc" && { [ -z "$text" ] || all_has "$text"; }'
    check "${what}_runs_nothing_else" no_pwned
    check "${what}_prints_no_escape" no_escape_printed
}

# --- run: failure lines and the summary's lines ---
run run --backend "$backend" --device "$hostile" --cases 12 --seed 9 --shrink-budget 0 --db "$db"
check run_fails_on_the_echo_adapter eval 'rc_is 1 && out_has "new-signature fail kind="'
check run_prints_no_escape no_escape_printed
run_line=$(command_line "replay: dmlcheck replay g5:9:")
case_id=$(printf '%s\n' "$run_line" | sed 's/^dmlcheck replay \([^ ]*\) .*/\1/')
kind=$(grep -m1 "case=$case_id\$" "$tmp/out" | sed 's/.* kind=\([^ ]*\) .*/\1/')
check run_names_the_case eval '[ -n "$case_id" ] && [ -n "$kind" ]'
# The summary's family lines end with the command that replays the family's smallest case.
summary_line=$(grep -m1 "^    smallest (" "$tmp/out" | sed 's/^ *smallest ([^)]*): //')
check run_summary_family_line_is_a_command eval '[ -n "$summary_line" ]'
check_command run_summary_family_line "$summary_line" 1 "verdict: fail:"
check_command run_failure_line "$run_line" 1 "verdict: fail: $kind:"
# replay ends with its own line: the same command, so it replays the same case again.
replay_line=$(command_line "replay: dmlcheck replay ")
check replay_prints_the_same_command eval '[ "$replay_line" = "$run_line" ]'
check replay_names_the_device_escaped eval 'out_has "backend: process on echo / a b\"c'"'"'d \$(touch PWNED) \`touch PWNED\`;\x0ae\x1b[31mf"'
check_command replay_own_line "$replay_line" 1 "verdict: fail: $kind:"

# --- replay --db with other generator options: refused, with the run's command ---
run replay "$case_id" --backend "$backend" --device "$hostile" --max-elements 64 --db "$db"
check replay_db_refuses_other_options eval 'rc_is 2 && err_has "--max-elements: the run used 3145728, this command gives 64"'
check replay_db_refusal_prints_no_escape no_escape_printed
refusal_line=$(tail -n 1 "$tmp/err" | sed 's/^replay: //')
check_command replay_db_refusal_line "$refusal_line" 1 "verdict: fail: $kind:"
check replay_db_refusal_line_checks_the_same_run err_has "case $case_id matches run 1 in"

# --- exec: a case file with a hostile path and an escape sequence in its comment ---
python3 - "$src/corpus/conformance/argmax/argmax_spec_example1_columns.json" "$case_file" <<'EOF'
import json, sys
case = json.load(open(sys.argv[1]))
case["comment"] = "\x1b[31mred\x1b]0;title\x07 " + case.get("comment", "")
json.dump(case, open(sys.argv[2], "w"))
EOF
run exec --backend "$backend" --device "$hostile" "$case_file"
check exec_fails_on_the_echo_adapter eval 'rc_is 1 && err_has "fail: wrong_index:"'
check exec_prints_no_escape no_escape_printed
exec_line=$(command_line "replay: dmlcheck exec ")
check_command exec_replay_line "$exec_line" 1 "fail: wrong_index:"
check exec_replay_line_names_the_same_file eval '[ "$(command_line "replay: dmlcheck exec ")" = "$exec_line" ]'
run exec --backend "$backend" --device "$hostile" "$case_file" "$case_file"
check exec_several_files_print_no_escape eval 'rc_is 1 && no_escape_printed'

# --- report: replay and export lines, Markdown and HTML ---
for format in md html; do
    run report --db "$db" --format "$format" -o "$sb/report.$format"
    if [ "$format" = html ]; then
        python3 -c 'import html, sys; sys.stdout.write(html.unescape(open(sys.argv[1]).read()))' \
            "$sb/report.html" | sed 's/^<pre>//; s/<\/pre>$//' >"$tmp/out"
    else
        cp "$sb/report.md" "$tmp/out"
    fi
    : >"$tmp/err"
    check "report_${format}_prints_no_escape" no_escape_printed
    report_replay=$(command_line "dmlcheck replay $case_id ")
    export_line=$(command_line "dmlcheck export $case_id ")
    check "report_${format}_replay_line_is_the_runs" eval '[ "$report_replay" = "$run_line" ]'
    check_command "report_${format}_replay_line" "$report_replay" 1 "verdict: fail: $kind:"
    rm -f "$sb/case.json"
    check_command "report_${format}_export_line" "$export_line" 0
    run exec --backend reference "$sb/case.json"
    check "report_${format}_export_writes_the_case" \
        eval 'rc_is 0 && grep -qF "\"comment\": \"dmlcheck export $case_id: " "$sb/case.json"'
done

finish
