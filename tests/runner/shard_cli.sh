#!/bin/sh
# shard_cli.sh: `run --shard K/N` and `merge`.  A run of CASES cases of the example plug-in
# with a planted tie bug (hundreds of signatures, three families) is run whole and in 4
# shards in 4 parallel processes; the shards' databases merged are the whole run: the same
# case ids, verdict counts per cell, signatures (counts, representatives, replay lines) and
# the same Markdown report but for the lines that name times, the database, the options and
# the command line.  With shrinking on (per shard), the merged families are still one row per
# family, the same rows.  Then merge's refusals: a missing, corrupt, foreign or newer input,
# an existing output, a shard given twice (each leaving the output as it was); an older
# schema is read through a migrated copy, the input left unchanged; runs of two seeds stay
# two runs; and --shard's own errors.
# Usage: shard_cli.sh DMLCHECK EXAMPLE_SO CASES [SQLITE3] [SCHEMA_V1_SQL].  Prints TAP.
set -u
dmlcheck=$1 example=$2 cases=$3 sqlite=${4:-} schema_v1=${5:-}
. "$(dirname "$0")/../lib/cli_tap.sh"

backend="plugin:$example,bug=ties"
q() { "$sqlite" "$@"; }

# Runs the whole run and its 4 shards (in parallel) into $tmp/$1-whole.sqlite and
# $tmp/$1-K.sqlite, then merges the shards into $tmp/$1-merged.sqlite.
whole_and_shards() {
    set_name=$1
    shift
    "$dmlcheck" run --backend "$backend" --cases "$cases" --seed 11 "$@" \
        --db "$tmp/$set_name-whole.sqlite" >"$tmp/$set_name-whole.out" 2>&1
    for k in 0 1 2 3; do
        "$dmlcheck" run --backend "$backend" --cases "$cases" --seed 11 --shard "$k/4" "$@" \
            --db "$tmp/$set_name-$k.sqlite" >"$tmp/$set_name-$k.out" 2>&1 &
    done
    wait
    run merge "$tmp/$set_name-3.sqlite" "$tmp/$set_name-1.sqlite" "$tmp/$set_name-0.sqlite" \
        "$tmp/$set_name-2.sqlite" -o "$tmp/$set_name-merged.sqlite"
}

# The Markdown report without what differs between any two runs of the same cases.
report_md() {
    "$dmlcheck" report --db "$1" --format md 2>&1 \
        | grep -v -e '^\*\*Database:\*\*' -e '^- First seen' -e '^| \(options\|command line\|shard\|started\|finished\|run time\|cases/s\|host\) |'
}

whole_and_shards exact --shrink-budget 0
check "merge_of_4_shards_succeeds" eval 'rc_is 0 && out_has "4 runs in, 1 out; $cases cases"'
check "every_shard_ran_its_share" \
    eval 'grep -q "^summary: $(( (cases + 3) / 4 )) cases" "$tmp/exact-0.out" && grep -q "^summary: $((cases / 4)) cases" "$tmp/exact-3.out"'
check "a_shard_says_its_outlook_is_its_own" \
    eval 'grep -q "^outlook [0-9_]*, shard 1/4 alone" "$tmp/exact-1.out" || ! grep -q "^outlook" "$tmp/exact-whole.out"'
report_md "$tmp/exact-whole.sqlite" >"$tmp/whole.md"
report_md "$tmp/exact-merged.sqlite" >"$tmp/merged.md"
check "merged_report_equals_the_whole_runs" \
    eval 'grep -q "^| 1 | FAIL | ARGMIN/ARGMAX | tie" "$tmp/whole.md" && diff "$tmp/whole.md" "$tmp/merged.md" >&2'
run report --db "$tmp/exact-merged.sqlite" --format md
check "merged_provenance_names_the_shards" out_has "| shard | 0, 1, 2, 3 of 4 (merged) |"
run report --db "$tmp/exact-2.sqlite" --format md
check "a_shards_provenance_names_it" out_has "| shard | 2/4 |"
if [ -n "$sqlite" ]; then
    for what in \
        "cells:SELECT feature_level, op, input_type, output_type, indices_type, cases, passed, failed, unspecified, skipped, errors FROM verdict_counts ORDER BY 1, 2, 3, 4, 5" \
        "case_ids:SELECT case_id, verdict, ifnull(kind, '') FROM case_list ORDER BY case_id" \
        "nan_fingerprints:SELECT c.case_index, x.nan_policies FROM results x JOIN cases c ON c.id = x.case_id WHERE x.nan_policies IS NOT NULL ORDER BY 1" \
        "signatures:SELECT backend, op, feature_level, input_type, output_type, indices_type, layout, distribution, kind, verdict, count, representative, rep_elements, first_mismatch, replay FROM signatures ORDER BY id" \
        "run_counters:SELECT cases_done, failures, status, seed, cases_requested FROM runs"; do
        name=${what%%:*} sql=${what#*:}
        q "$tmp/exact-whole.sqlite" "$sql" >"$tmp/a"
        q "$tmp/exact-merged.sqlite" "$sql" >"$tmp/b"
        check "merged_${name}_equal_the_whole_runs" eval '[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"'
    done
else
    skip "merged_tables_equal_the_whole_runs" "no sqlite3 program"
fi

# Shrinking happens per shard: the merged families are the whole run's, one row each.
whole_and_shards shrunk
families() { "$dmlcheck" report --db "$1" --format md | grep '^| [0-9]* | \(FAIL\|differs\) |'; }
families "$tmp/shrunk-whole.sqlite" >"$tmp/a"
families "$tmp/shrunk-merged.sqlite" >"$tmp/b"
check "shrunk_shards_merge_into_the_same_families" eval 'rc_is 0 && [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"'
run export --family 1 --db "$tmp/shrunk-merged.sqlite"
check "a_merged_family_exports_its_shrunk_case" eval 'rc_is 0 && out_has "\"expected\""'

# --- merge's refusals: the output is never half-written --------------------------------
shard0="$tmp/exact-0.sqlite"
run merge "$tmp/absent.sqlite" "$shard0" -o "$tmp/out.sqlite"
check "merge_refuses_a_missing_input" \
    eval 'rc_is 2 && err_has "absent.sqlite: No such file or directory" && [ ! -e "$tmp/out.sqlite" ]'
head -c 8192 /dev/urandom >"$tmp/corrupt.sqlite"
run merge "$shard0" "$tmp/corrupt.sqlite" -o "$tmp/out.sqlite"
check "merge_refuses_a_corrupt_input" \
    eval 'rc_is 2 && err_has "corrupt.sqlite is not a dmlcheck results database" && [ ! -e "$tmp/out.sqlite" ]'
echo "not a database" >"$tmp/out.sqlite"
cp "$tmp/out.sqlite" "$tmp/out.before"
run merge "$shard0" -o "$tmp/out.sqlite"
check "merge_refuses_an_existing_output" \
    eval 'rc_is 2 && err_has "out.sqlite exists" && err_has "--force" && cmp -s "$tmp/out.sqlite" "$tmp/out.before"'
run merge "$shard0" "$shard0" -o "$tmp/out.sqlite" --force
check "merge_refuses_a_shard_given_twice" \
    eval 'rc_is 2 && err_has "count twice" && cmp -s "$tmp/out.sqlite" "$tmp/out.before"'
run merge "$shard0" -o "$shard0" --force
check "merge_refuses_to_write_over_an_input" eval 'rc_is 2 && err_has "is also an input"'
run merge "$shard0" -o "$tmp/out.sqlite" --force
check "merge_force_replaces_the_output" eval 'rc_is 0 && ! cmp -s "$tmp/out.sqlite" "$tmp/out.before"'
check "merge_leaves_no_temporary_file" eval '! ls "$tmp" | grep -q merging'
run merge -o "$tmp/x.sqlite"
check "merge_without_inputs_is_a_usage_error" eval 'rc_is 2 && err_has "no input databases"'

if [ -n "$sqlite" ]; then
    cp "$shard0" "$tmp/newer.sqlite"
    q "$tmp/newer.sqlite" "PRAGMA user_version = 99"
    run merge "$tmp/newer.sqlite" -o "$tmp/out2.sqlite"
    check "merge_refuses_a_newer_schema" \
        eval 'rc_is 2 && err_has "schema version 99, newer than" && [ ! -e "$tmp/out2.sqlite" ]'
    q "$tmp/foreign.sqlite" "CREATE TABLE t (x)"
    run merge "$tmp/foreign.sqlite" -o "$tmp/out2.sqlite"
    check "merge_refuses_a_foreign_database" eval 'rc_is 2 && err_has "it has tables and no schema version"'
    # Two seeds: two runs; the signatures they share are one row with both counts.
    "$dmlcheck" run --backend "$backend" --cases 2000 --seed 12 --shrink-budget 0 \
        --db "$tmp/seed12.sqlite" >/dev/null 2>&1
    run merge "$tmp/exact-whole.sqlite" "$tmp/seed12.sqlite" -o "$tmp/seeds.sqlite"
    check "runs_of_two_seeds_stay_two_runs" eval 'rc_is 0 && [ "$(q "$tmp/seeds.sqlite" "SELECT group_concat(seed) FROM runs")" = "11,12" ]'
    check "signature_counts_add_up_across_seeds" eval '[ "$(q "$tmp/seeds.sqlite" "SELECT sum(count) FROM signatures")" = "$(( $(q "$tmp/exact-whole.sqlite" "SELECT sum(count) FROM signatures") + $(q "$tmp/seed12.sqlite" "SELECT sum(count) FROM signatures") ))" ]'
    check "devices_are_deduplicated" eval '[ "$(q "$tmp/seeds.sqlite" "SELECT count(*) FROM devices")" = 1 ]'
    if [ -n "$schema_v1" ]; then
        q "$tmp/v1.sqlite" <"$schema_v1"
        q "$tmp/v1.sqlite" "INSERT INTO runs (started_at, seed, options, dmlcheck_version, backend, nan_policy, cases_done) VALUES ('2024-01-01T00:00:00Z', '7', '{}', '0.0.1', 'reference', 'ignore', 1);
            INSERT INTO cases (run_id, case_index, op, feature_level, input_type, output_type, rank, elements, input_sizes, output_sizes, params, layout, distribution, classes) VALUES (1, 0, 'ARGMAX', '3_0', 'FLOAT32', 'UINT32', 1, 3, '[3]', '[1]', '{}', 'packed', 'uniform', '');
            INSERT INTO results (case_id, verdict) VALUES (1, 'pass')"
        run merge "$tmp/v1.sqlite" "$shard0" -o "$tmp/v1-merged.sqlite"
        check "merge_reads_an_older_schema_through_a_migrated_copy" \
            eval 'rc_is 0 && [ "$(q "$tmp/v1-merged.sqlite" "PRAGMA user_version; SELECT count(*) FROM runs; SELECT gen_version FROM runs WHERE id = 1")" = "$(printf "5\n2\n1")" ]'
        check "merge_leaves_the_older_input_unchanged" \
            eval '[ "$(q "$tmp/v1.sqlite" "PRAGMA user_version")" = 1 ]'
    fi
else
    skip "merge_schema_checks" "no sqlite3 program"
fi

# --- shards of different runs are refused, naming what differs (issue 22) ----------------
small() { # NAME K/N ARGS...: a 200-case shard of the reference backend into $tmp/NAME.sqlite
    name=$1 shard=$2
    shift 2
    "$dmlcheck" run --backend reference --cases 200 --seed 11 --shard "$shard" "$@" \
        --db "$tmp/$name.sqlite" >/dev/null 2>&1
}
for k in 0 1 2 3; do
    small "s11-$k" "$k/4"
    small "s12-$k" "$k/4" --seed 12
done
small timeout-1 1/4 --case-timeout 5000
small eight-5 5/8
refused() { # NAME DIFFERENCE INPUTS...: merge refuses, exit 2, the output not written
    name=$1 why=$2
    shift 2
    rm -f "$tmp/mixed.sqlite"
    run merge "$@" -o "$tmp/mixed.sqlite"
    check "merge_refuses_$name" eval 'rc_is 2 && err_has "shards of different runs" &&
        err_has "$why" && err_has "--allow-mixed" && [ ! -e "$tmp/mixed.sqlite" ]'
}
refused shards_of_another_seed "differ in seed (11 vs 12)" \
    "$tmp/s11-0.sqlite" "$tmp/s11-1.sqlite" "$tmp/s12-2.sqlite" "$tmp/s12-3.sqlite"
refused a_shard_with_another_case_timeout "option case_timeout_ms (10000 vs 5000)" \
    "$tmp/s11-0.sqlite" "$tmp/timeout-1.sqlite" "$tmp/s11-2.sqlite" "$tmp/s11-3.sqlite"
refused a_stale_shard_of_another_shard_count "shard count (4 vs 8)" \
    "$tmp/s11-0.sqlite" "$tmp/s11-1.sqlite" "$tmp/s11-2.sqlite" "$tmp/s11-3.sqlite" "$tmp/eight-5.sqlite"
if [ -n "$sqlite" ]; then
    cp "$tmp/s11-3.sqlite" "$tmp/older-3.sqlite"
    q "$tmp/older-3.sqlite" "UPDATE runs SET git_revision = 'abc1234'"
    refused a_shard_of_another_build "git revision (build)" \
        "$tmp/s11-0.sqlite" "$tmp/s11-1.sqlite" "$tmp/s11-2.sqlite" "$tmp/older-3.sqlite"
    check "merge_names_the_stale_input" err_has "older-3.sqlite"
fi
run merge "$tmp/s11-0.sqlite" "$tmp/s11-1.sqlite" "$tmp/s12-2.sqlite" "$tmp/s12-3.sqlite" \
    --allow-mixed -o "$tmp/mixed.sqlite"
check "merge_allow_mixed_keeps_two_partial_runs" eval 'rc_is 0 && out_has "4 runs in, 2 out" && err_has "holds 2 of its 4 shards"'
run merge "$tmp/s11-0.sqlite" "$tmp/s11-1.sqlite" "$tmp/s11-2.sqlite" "$tmp/s11-3.sqlite" \
    "$tmp/s12-0.sqlite" "$tmp/s12-1.sqlite" "$tmp/s12-2.sqlite" "$tmp/s12-3.sqlite" -o "$tmp/two.sqlite"
check "merge_accepts_two_complete_runs" eval 'rc_is 0 && out_has "8 runs in, 2 out"'
run merge "$tmp/s11-3.sqlite" "$tmp/s11-1.sqlite" "$tmp/s11-0.sqlite" "$tmp/s11-2.sqlite" \
    --expect-shards 4 -o "$tmp/expected.sqlite"
check "merge_expect_shards_accepts_the_whole_set" eval 'rc_is 0 && out_has "4 runs in, 1 out"'
run merge "$tmp/s11-0.sqlite" "$tmp/s11-1.sqlite" "$tmp/s11-2.sqlite" --expect-shards 4 -o "$tmp/short.sqlite"
check "merge_expect_shards_refuses_a_missing_shard" eval 'rc_is 2 && err_has "--expect-shards 4: the output holds shards [0,1,2] of 4" && [ ! -e "$tmp/short.sqlite" ]'
run merge "$tmp/s11-0.sqlite" "$tmp/s11-1.sqlite" "$tmp/s11-2.sqlite" "$tmp/s11-3.sqlite" \
    "$tmp/s12-0.sqlite" --expect-shards 4 --allow-mixed -o "$tmp/short.sqlite"
check "merge_expect_shards_refuses_a_second_run" eval 'rc_is 2 && err_has "not one run of 4 shards"'
# The report's value classes per signature do not follow the inputs' order.
run merge "$tmp/exact-0.sqlite" "$tmp/exact-1.sqlite" "$tmp/exact-2.sqlite" "$tmp/exact-3.sqlite" \
    -o "$tmp/forward.sqlite"
report_md "$tmp/forward.sqlite" | grep -v '^| shard |' >"$tmp/a"
report_md "$tmp/exact-merged.sqlite" | grep -v '^| shard |' >"$tmp/b"
check "merged_report_does_not_follow_the_input_order" eval 'grep -q "classes" "$tmp/a" && diff "$tmp/a" "$tmp/b" >&2'
if [ -n "$sqlite" ]; then
    # Two classes per case, listed in one order in one file and the other in the other:
    # each class once, in one order (group_concat would list them as the rows come).
    cp "$tmp/forward.sqlite" "$tmp/nd.sqlite"
    cp "$tmp/forward.sqlite" "$tmp/dn.sqlite"
    q "$tmp/nd.sqlite" "UPDATE cases SET classes = 'nan,denormal'"
    q "$tmp/dn.sqlite" "UPDATE cases SET classes = CASE id % 2 WHEN 0 THEN 'denormal,nan' ELSE 'nan,denormal' END"
    "$dmlcheck" report --db "$tmp/nd.sqlite" --format md | grep -o 'classes [a-z_,]*' >"$tmp/a"
    "$dmlcheck" report --db "$tmp/dn.sqlite" --format md | grep -o 'classes [a-z_,]*' >"$tmp/b"
    check "signature_classes_listed_once_each_in_one_order" eval 'grep -qx "classes denormal,nan" "$tmp/a" && cmp -s "$tmp/a" "$tmp/b"'
fi

# --- --shard's own errors ------------------------------------------------------------------
for bad in "4/4:numbered from 0" "x:is not K/N" "3:is not K/N" "1/0:N must be 1 to" \
    "0/99999999:N must be 1 to" "-1/4:is not K/N" "1/4x:is not K/N" "1/+4:is not K/N"; do
    value=${bad%%:*} why=${bad#*:}
    run run --backend reference --cases 10 --shard "$value" --db "$tmp/bad.sqlite"
    check "shard_$(printf '%s' "$value" | tr -c 'a-z0-9' _)_is_refused" eval 'rc_is 2 && err_has "$why"'
done
run run --backend reference --cases 5 --shard 7/8 --db "$tmp/bad.sqlite"
check "a_shard_without_cases_is_refused" eval 'rc_is 2 && err_has "gets no case of --cases 5"'
check "refused_shards_record_nothing" eval '[ ! -e "$tmp/bad.sqlite" ]'
finish
