#!/bin/sh
# long_commands.sh: no command is cut short (issue 23, defect 8).  A plug-in behind a path of
# about 750 bytes fails every case (write_past=1); the replay and export commands printed by
# run and written into the Markdown, HTML and JUnit reports and --summary are whole (they were
# cut at 511 bytes), and validate's replay line for a file behind a path of 2,500 bytes is
# whole (it was cut at 2 KiB).
# Usage: long_commands.sh DMLCHECK HOSTILE_PLUGIN.  Prints TAP.
set -u
dmlcheck=$1 plugin=$2
. "$(dirname "$0")/../lib/cli_tap.sh"
long=$tmp
for _ in $(seq 7); do long=$long/a_long_folder_name_of_one_hundred_bytes_for_a_path_that_a_command_must_keep_whole_xxxxxxxxxxxxxxx; done
mkdir -p "$long"
cp "$plugin" "$long/libhostile.so"
run run --backend "plugin:$long/libhostile.so,write_past=1" --cases 20 --seed 7 --max-elements 256 \
    --shrink-budget 0 --db "$tmp/db.sqlite"
whole="--backend plugin:$long/libhostile.so,write_past=1 --max-elements 256"
check "run_prints_the_whole_replay_line" eval 'rc_is 1 && out_has "$whole"'
for format in md html junit; do
    run report --db "$tmp/db.sqlite" --format "$format" -o "$tmp/report.$format"
    check "report_${format}_has_whole_replay_commands" grep -qF -- "$whole" "$tmp/report.$format"
done
check "report_md_has_whole_export_commands" grep -qF -- "> case.json" "$tmp/report.md"
run report --db "$tmp/db.sqlite" --summary -o "$tmp/summary.md"
check "summary_has_whole_replay_commands" grep -qF -- "$whole" "$tmp/summary.md"
deeper=$long
for _ in $(seq 15); do deeper=$deeper/another_folder_name_of_one_hundred_bytes_to_pass_two_kibibytes_of_path_xxxxxxxxxxxxxxxxxxxxxxxxxxx; done
mkdir -p "$deeper"
printf '{ "op": "ARGMAX" }\n' >"$deeper/case.json"
run validate "$deeper/case.json"
check "validate_replay_line_is_whole" eval 'rc_is 2 && err_has "replay: dmlcheck validate $deeper/case.json"'
finish
