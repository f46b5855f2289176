#!/bin/sh
# cli.sh: `dmlcheck exec` and `dmlcheck validate` seen from outside: exit codes, the JSON
# line on stdout, mismatch messages and their replay lines, help texts, and (when meson passes
# VALGRIND, i.e. in a build without sanitizers) the CLI under valgrind on the whole corpus.
# Usage: cli.sh DMLCHECK DATA_DIR CORPUS_DIR.  Prints TAP.
set -u
dmlcheck=$1 data=$2 corpus=$3
. "$(dirname "$0")/../lib/cli_tap.sh"




spec1=$corpus/argmax/argmax_spec_example1_columns.json

run exec "$spec1"
check exec_spec_example_prints_outputs_and_exits_0 \
    eval 'rc_is 0 && out_is "{\"output\": [1, 2, 1]}"'

run exec "$data/argmax_wrong_expected.json"
check exec_wrong_expected_exits_1_naming_element_and_replay \
    eval 'rc_is 1 && err_has "output[0,1] (logical element 1): expected 0, got 2" \
          && err_has "replay: dmlcheck exec --backend reference $data/argmax_wrong_expected.json"'

run exec "$data/argmax_tie_wrong_expected.json"
check exec_tie_mismatch_shows_both_input_values \
    eval 'rc_is 1 && err_has "input at the expected index: input[4] (flat 4) = 0x1.8p+1 (0x40400000)" \
          && err_has "input at the returned index: input[0] (flat 0) = 0x1.8p+1 (0x40400000)" \
          && err_has "tie-rule"'

run exec --nan-policy propagate "$data/argmax_wrong_expected.json"
check exec_replay_keeps_options \
    eval 'rc_is 1 && err_has "replay: dmlcheck exec --backend reference --nan-policy propagate"'

run exec "$spec1" "$data/argmax_wrong_expected.json" "$spec1"
check exec_several_files_one_line_each_worst_exit \
    eval 'rc_is 1 && [ "$(wc -l <"$tmp/out")" -eq 3 ]'

# Several files: each JSON line names its file and result, stderr ends with the summary; one
# file keeps the bare outputs line and no summary.
run exec "$spec1" "$data/argmax_wrong_expected.json" "$data/malformed.json"
check exec_several_files_lines_name_file_and_result \
    eval '[ "$(sed -n 1p "$tmp/out")" = "{\"file\": \"$spec1\", \"result\": \"agree\", \"output\": [1, 2, 1]}" ] \
          && [ "$(sed -n 2p "$tmp/out")" = "{\"file\": \"$data/argmax_wrong_expected.json\", \"result\": \"fail\", \"kind\": \"wrong_index\", \"output\": [1, 2, 1]}" ] \
          && [ "$(sed -n 3p "$tmp/out")" = "{\"file\": \"$data/malformed.json\", \"result\": \"invalid\"}" ]'
check exec_several_files_end_with_a_summary_line \
    eval 'rc_is 2 && [ "$(tail -n 1 "$tmp/err")" = "exec: 3 files: 1 agree, 1 fail, 1 invalid" ]'
if command -v python3 >/dev/null 2>&1; then
    check exec_several_files_every_line_is_json \
        python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out"
else
    skip exec_several_files_every_line_is_json "no python3"
fi
run exec "$spec1"
check exec_one_file_has_no_summary err_empty
run exec --help
check exec_help_documents_file_lines_and_summary \
    eval 'out_has "{\"file\": \"a.json\", \"result\": \"fail\"" && out_has "exec: 5 files: 3 agree, 1 fail, 1 invalid"'

# A file to fix, not a failure to replay: the message, and no replay line.
run exec "$data/argmax_invalid_output_size.json"
check exec_invalid_case_exits_2_with_validator_message \
    eval 'rc_is 2 && err_has "OutputTensor.Sizes[0] is 3 but axis 0 is reduced" && ! err_has "replay:"'

run exec "$data/malformed.json"
check exec_malformed_json_exits_2_with_line_and_column \
    eval 'rc_is 2 && err_has "malformed.json: line 2, column" && ! err_has "replay:"'

run exec "$data/no_such_file.json"
check exec_missing_file_exits_2 eval 'rc_is 2 && err_has "cannot open"'

run exec --nan-policy sometimes "$spec1"
check exec_bad_option_value_exits_2 eval 'rc_is 2 && err_has "--nan-policy must be ignore or propagate"'

run exec --backend no_such_backend "$spec1"
check exec_unknown_backend_exits_2 eval 'rc_is 2 && err_has "unknown backend"'

run exec
check exec_without_files_exits_2_with_usage eval 'rc_is 2 && err_has "usage: dmlcheck exec"'

run exec --help
check exec_help_exits_0 eval 'rc_is 0 && out_has "usage: dmlcheck exec" && out_has "--nan-policy"'

run validate "$spec1"
check validate_valid_case_prints_its_level eval 'rc_is 0 && out_is "$spec1: valid at 3_0"'

run validate "$data/argmax_invalid_output_size.json"
check validate_invalid_case_exits_2_with_validator_message \
    eval 'rc_is 2 && err_has "OutputTensor.Sizes[0] is 3 but axis 0 is reduced, so it must be 1" \
          && err_has "replay: dmlcheck validate"'

run validate --feature-level 2_1 "$spec1"
check validate_feature_level_below_introduction_exits_2 \
    eval 'rc_is 2 && err_has "invalid at 2_1" && err_has "replay: dmlcheck validate --feature-level 2_1"'

run validate --feature-level 5_0 "$spec1"
check validate_feature_level_option_overrides_file eval 'rc_is 0 && out_is "$spec1: valid at 5_0"'

run validate "$data/malformed.json"
check validate_malformed_json_exits_2 eval 'rc_is 2 && err_has "line 2, column"'

run validate --help
check validate_help_exits_0 eval 'rc_is 0 && out_has "usage: dmlcheck validate"'
run help validate
check help_command_prints_that_commands_help eval 'rc_is 0 && out_has "usage: dmlcheck validate"'
run help nosuchcommand
check help_unknown_command_exits_2_naming_it eval 'rc_is 2 && err_has "unknown command '"'"'nosuchcommand'"'"'"'

# What is no case file is refused at once, by what it is.
run exec "$data"
check exec_directory_is_named_a_directory eval 'rc_is 2 && err_has "is a directory, not a case file"'
run exec /dev/zero
check exec_dev_zero_refused_at_its_first_byte eval 'rc_is 2 && err_has "byte 0 is NUL: not a JSON text"'
printf '{"op": "ARGMAX", "feature_level": 0}' >"$tmp/fl0.json"
run validate "$tmp/fl0.json"
check feature_level_0_is_refused_not_taken_as_absent \
    eval 'rc_is 2 && err_has "feature_level: 0 is no feature level"'
# UINT64 values above 2^63 as plain numbers are read exactly; a size that big is out of range.
u64=$data/argmax_u64_plain_numbers_above_2_63.json
run exec "$u64"
check exec_reads_uint64_above_2_63_written_as_plain_numbers eval 'rc_is 0 && out_is "{\"output\": [1]}"'
sed 's/"Sizes": \[4\]}/"Sizes": [99999999999999999999]}/' "$u64" >"$tmp/u64_size.json"
run validate "$tmp/u64_size.json"
check a_size_beyond_64_bits_is_out_of_range \
    eval 'rc_is 2 && err_has "InputTensor.Sizes[0]: 99999999999999999999 is out of range"'

# The same, written by Python's json (plain numbers for UINT64 and INT64 extremes).
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp" <<'PY'
import json, sys
base = {"op": "ARGMAX", "feature_level": "4_1", "Axes": [0], "AxisDirection": "DECREASING",
        "OutputTensor": {"DataType": "UINT64", "Sizes": [1]}}
u = dict(base, InputTensor={"DataType": "UINT64", "Sizes": [4]},
         input=[2**64 - 1, 0, 2**63, 2**64 - 1], expected={"output": [3]})
i = dict(base, InputTensor={"DataType": "INT64", "Sizes": [3]},
         input=[-2**63, 2**63 - 1, -2**63], expected={"output": [1]})
for name, case in (("py_u64", u), ("py_i64", i)):
    with open(f"{sys.argv[1]}/{name}.json", "w") as f:
        json.dump(case, f)
PY
    run exec "$tmp/py_u64.json" "$tmp/py_i64.json"
    check exec_reads_uint64_and_int64_extremes_written_by_python_json \
        eval 'rc_is 0 && out_has "py_u64.json\", \"result\": \"agree\", \"output\": [3]}" \
              && out_has "py_i64.json\", \"result\": \"agree\", \"output\": [1]}"'
else
    n=$((n + 1)); echo "ok $n - exec_reads_uint64_and_int64_extremes_written_by_python_json # SKIP no python3"
fi

# A terminal escape sequence in a file's string reaches the terminal as text, not as a command.
printf '{"op": "ARG\\u001b[31mMAX"}' >"$tmp/esc.json"
run validate "$tmp/esc.json"
check escape_sequences_from_files_are_printed_as_text \
    eval 'rc_is 2 && err_has "ARG\\x1b[31mMAX" && ! grep -q "$(printf "\033")" "$tmp/err"'

# FILE - is one case on standard input, with a limit that an endless stream reaches quickly.
run exec - <"$spec1"
check exec_dash_reads_a_case_from_stdin eval 'rc_is 0 && out_is "{\"output\": [1, 2, 1]}"'
run exec - <"$data/argmax_wrong_expected.json"
check exec_stdin_failure_replay_says_to_save_the_case \
    eval 'rc_is 1 && err_has "standard input: fail: wrong_index" \
          && err_has "replay: save the case from standard input as case.json, then: dmlcheck exec --backend reference case.json" \
          && ! grep -q "^replay: dmlcheck exec" "$tmp/err"'
yes | run exec -
check exec_endless_stdin_refused_at_the_stream_limit \
    eval 'rc_is 2 && err_has "standard input: 67108864 bytes and more: larger than dmlcheck'"'"'s limit for a case read from a stream (67108863 bytes)"'
head -c 2G /dev/zero 2>/dev/null | run exec -
check exec_zero_stream_refused_at_its_first_byte eval 'rc_is 2 && err_has "standard input: byte 0 is NUL"'
run exec --help
check exec_help_documents_stdin_and_its_limit eval 'out_has "FILE - reads one case from standard input, at most 67108863 bytes"'

# Under valgrind: every corpus file, and the error paths.
if [ -n "${VALGRIND:-}" ]; then
    vg="$VALGRIND --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect -q"
    $vg "$dmlcheck" exec "$corpus"/*/*.json >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check exec_corpus_valgrind_clean rc_is 0
    $vg "$dmlcheck" exec "$data"/*.json >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check exec_error_paths_valgrind_clean rc_is 2
else
    n=$((n + 1)); echo "ok $n - exec_corpus_valgrind_clean # SKIP no valgrind, or a sanitizer build"
fi

finish
