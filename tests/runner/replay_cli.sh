#!/bin/sh
# replay_cli.sh: `dmlcheck replay` and `dmlcheck export` case ids seen from outside: gN:SEED:INDEX
# ids of this generator replay, ids of another generator version are refused (exit 2, both
# versions named), a bare legacy SEED:INDEX replays with a warning, malformed ids are usage
# errors, and --db checks the id against the run that recorded it (generator version and
# options; the refusal ends with a replay command, --db included, that, pasted, works).
# Usage: replay_cli.sh DMLCHECK DATA_DIR [SQLITE3].  Prints TAP.
set -u
dmlcheck=$1 data=$2 sqlite3=${3:-}
. "$(dirname "$0")/../lib/cli_tap.sh"




db=$tmp/run.sqlite
opts="--backend reference --ops argmax --max-elements 64"
run run $opts --cases 20 --seed 7 --db "$db"
check run_records_cases rc_is 0

run replay g5:7:3 $opts
check replay_current_version_passes eval 'rc_is 0 && out_has "verdict: pass" && err_empty'

# Version 2 (before the size tiers) is still drawn for its own ids: published reports hold them.
run replay g2:7:3 $opts
check replay_version_2_still_replays eval 'rc_is 0 && out_has "verdict: pass" && err_empty'
# Version 3 (the size tiers before version 4's deep winners) likewise, and version 4 (before
# version 5's deep winners and ARGMIN/ARGMAX's more frequent large tier).
run replay g3:7:3 $opts
check replay_version_3_still_replays eval 'rc_is 0 && out_has "verdict: pass" && err_empty'
run replay g4:7:3 $opts
check replay_version_4_still_replays eval 'rc_is 0 && out_has "verdict: pass" && err_empty'
run replay g2:7:3 $opts --db "$db"
check replay_version_2_against_a_version_5_run_refused \
    eval 'rc_is 2 && err_has "recorded case g2:7:3 with generator version 5"'

run replay g1:7:3 $opts
check replay_other_version_refused \
    eval 'rc_is 2 && err_has "case g1:7:3 was drawn by generator version 1" && err_has "draws versions 2 to 5"'

run replay 7:3 $opts
check replay_legacy_id_warns_and_replays \
    eval 'rc_is 0 && out_has "verdict: pass" && err_has "warning: case id 7:3 names no generator version; replaying it as g5:7:3"'

for id in g:7:3 gx:7:3 g99999999999999999999:7:3 g0:7:3 g2:7 7:3:1; do
    run replay "$id" $opts
    check "replay_malformed_id_${id}_is_usage_error" eval 'rc_is 2 && err_has "give one case id gN:SEED:INDEX"'
done

run replay g5:7:3 $opts --db "$db"
check replay_db_same_options eval 'rc_is 0 && err_has "case g5:7:3 matches run 1"'

run replay g5:7:3 --backend reference --ops argmax --db "$db"
check replay_db_other_option_refused_naming_it \
    eval 'rc_is 2 && err_has "--max-elements: the run used 64, this command gives 3145728" && ! err_has "--ops:"'
check replay_db_refusal_ends_with_the_run_options_command \
    eval '[ "$(tail -n 1 "$tmp/err")" = "replay: dmlcheck replay g5:7:3 --backend reference --ops argmax --max-elements 64 --db $db" ]'
pasted=$(tail -n 1 "$tmp/err" | sed 's/^replay: dmlcheck //')
eval "run $pasted"
check replay_db_pasted_command_replays eval 'rc_is 0 && out_has "verdict: pass" && err_has "case g5:7:3 matches run 1"'

run replay g5:7:99 $opts --db "$db"
check replay_db_unrecorded_case_refused eval 'rc_is 2 && err_has "holds no run of seed 7 that recorded case index 99"'

run export g5:7:3 --ops argmax --max-elements 64 --db "$db"
check export_current_version_with_db eval 'rc_is 0 && out_has "\"comment\": \"dmlcheck export g5:7:3: "'

run export g1:7:3 --ops argmax --max-elements 64
check export_other_version_refused eval 'rc_is 2 && err_has "generator version 1" && [ ! -s "$tmp/out" ]'

run replay --help
check replay_help_explains_versions eval 'rc_is 0 && out_has "gN is the generator version" && out_has "--db FILE"'

# A database written before generator versions: its run is generator version 1.
if [ -n "$sqlite3" ]; then
    old=$tmp/v1.sqlite
    { cat "$data/schema_v1.sql"
      echo "INSERT INTO runs (id, started_at, seed, options, dmlcheck_version, backend, nan_policy)"
      echo "  VALUES (1, '2024-01-01T00:00:00Z', '7', '{}', '0.1.0', 'reference', 'ignore');"
      echo "INSERT INTO cases (run_id, case_index, op, feature_level, input_type, output_type, rank,"
      echo "  elements, input_sizes, output_sizes, params, layout, distribution, classes)"
      echo "  VALUES (1, 3, 'ARGMAX', '4_1', 'FLOAT32', 'UINT32', 1, 4, '[4]', '[1]', '{}', 'packed', 'ties', '');"
    } | "$sqlite3" "$old"
    run replay 7:3 $opts --db "$old"
    check replay_db_version_1_run_refused \
        eval 'rc_is 2 && err_has "recorded case 7:3 with generator version 1" && err_has "draws versions 2 to 5"'
    check replay_db_leaves_old_database_unmigrated \
        eval '[ "$("$sqlite3" "$old" "PRAGMA user_version")" = 1 ]'
else
    n=$((n + 1)); echo "ok $n - replay_db_version_1_run_refused # SKIP no sqlite3 program"
fi

# A replay line is never cut short: options too long to replay are refused before the run.
long=$(printf 'x%.0s' $(seq 1 1100))
run run --backend "process:python3 $long" --cases 1 --db "$tmp/long.sqlite"
check run_refuses_a_backend_text_it_would_store_cut \
    eval 'rc_is 2 && err_has "--backend: the text is longer than 1022 bytes"'
long=$(printf 'd%.0s' $(seq 1 9000))
run run --device "$long" --cases 1 --db "$tmp/long.sqlite"
check run_refuses_options_whose_replay_line_would_be_cut \
    eval 'rc_is 2 && err_has "replay command longer than 8192 bytes"'

# Three runs started together on one new file: each creates or finds the schema and WAL under
# SQLite's locks, none stops with "table runs already exists" or "database is locked".
if [ -n "$sqlite3" ]; then
    shared=$tmp/shared.sqlite
    for k in 1 2 3; do
        "$dmlcheck" run --backend reference --cases 20000 --seed $k --shrink-budget 0 \
            --db "$shared" >"$tmp/writer$k" 2>&1 &
    done
    wait
    check three_concurrent_runs_on_a_new_file_all_finish \
        eval '[ "$("$sqlite3" "$shared" "SELECT count(*), sum(status = '"'finished'"'), sum(cases_done) FROM runs")" = "3|3|60000" ] \
              || { cat "$tmp"/writer? >&2; false; }'
else
    n=$((n + 1)); echo "ok $n - three_concurrent_runs_on_a_new_file_all_finish # SKIP no sqlite3 program"
fi

# A damaged file is refused before anything is appended to it.
"$dmlcheck" run --backend reference --cases 3000 --seed 1 --db "$tmp/damaged.sqlite" >/dev/null 2>&1
# Pages 2-6 hold the first tables' roots (schema order): zeroed, no b-tree survives.
dd if=/dev/zero of="$tmp/damaged.sqlite" bs=4096 seek=1 count=5 conv=notrunc 2>/dev/null
size_before=$(wc -c <"$tmp/damaged.sqlite")
run run --backend reference --cases 300 --seed 2 --db "$tmp/damaged.sqlite"
check run_refuses_to_append_to_a_damaged_database \
    eval 'rc_is 2 && err_has "is damaged (SQLite'"'"'s quick_check:" \
          && [ "$(wc -c <"$tmp/damaged.sqlite")" = "$size_before" ]'

# --cases and --time together: refused, not one of them silently dropped.
run run --backend reference --cases 5 --time 1 --db "$tmp/both.sqlite"
check run_refuses_cases_and_time_together \
    eval 'rc_is 2 && err_has "--cases and --time are exclusive" && [ ! -e "$tmp/both.sqlite" ]'

# An in-memory database is gone when the run closes it: the run says so, and no error about
# reading its verdicts afterwards.
run run --backend reference --cases 50 --seed 1 --db :memory:
check run_in_memory_database_quiet \
    eval 'rc_is 0 && err_empty && out_has "outlook: none (the results were kept in memory"'

finish
