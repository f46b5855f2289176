#!/bin/sh
# jobs_cli.sh: `run --jobs N`, the run as N shard processes merged into --db as one run.
# A run of the example plug-in with a planted tie bug (hundreds of signatures, new families
# shrunk and diagnosed) by one process and by --jobs 2 gives the same rows, verdicts,
# signatures (shrunk cases and root causes included), families, exit code and summary but for
# its times; again when both append to a database holding that run; again when the run goes
# on until a verdict.  Then: one summary and the families once; Ctrl-C (SIGINT to the parent
# only) stops every shard within a second, keeps the cases merged, exit 130; a shard killed
# outright is reported by number, the others stopped, exit 2, its cases kept as an 'error'
# run; no private folder left behind; --jobs 0 and --jobs with --shard.
# Usage: jobs_cli.sh DMLCHECK EXAMPLE_SO REFERENCE_PLUGIN_SO CASES SQLITE3.  Prints TAP.
set -u
dmlcheck=$1 example=$2 slow=$3 cases=$4 sqlite=$5
. "$(dirname "$0")/../lib/cli_tap.sh"
backend="plugin:$example,bug=ties"

# The tables a run's identity lies in (the run's options apart from "jobs").
tables() {
    "$sqlite" "$1" "
        SELECT feature_level, op, input_type, output_type, indices_type, cases, passed, failed,
               unspecified, skipped, errors FROM verdict_counts ORDER BY 1, 2, 3, 4, 5;
        SELECT case_id, verdict, ifnull(kind, '') FROM case_list ORDER BY case_id;
        SELECT c.case_index, x.nan_policies FROM results x JOIN cases c ON c.id = x.case_id
               WHERE x.nan_policies IS NOT NULL ORDER BY 1;
        SELECT backend, op, feature_level, input_type, output_type, indices_type, layout,
               distribution, kind, verdict, count, representative, rep_elements, first_mismatch,
               replay, shrunk_case, shrunk_mismatch, nondeterministic, cause, diagnosis,
               first_seen_run, last_seen_run FROM signatures ORDER BY id;
        SELECT id, cases_done, failures, status, seed, cases_requested, command_line IS NOT NULL,
               json_remove(options, '$.jobs') FROM runs ORDER BY id"
}
# What run prints but for times, rates and the database's name; the live lines a shard
# keeps to itself (new-signature blocks) are not printed by --jobs.
summary_of() {
    sed -n '/^summary:/,$p' "$1" | grep -v -e '^summary:' -e '^cpu:' -e '^diagnosis:' -e '^database:' \
        | sed 's/--db [^ ]*/--db DB/'
}
same_run() { # NAME WHOLE_DB JOBS_DB WHOLE_OUT JOBS_OUT
    tables "$2" >"$tmp/a" && tables "$3" >"$tmp/b"
    check "$1_tables_equal" eval '[ -s "$tmp/a" ] && diff "$tmp/a" "$tmp/b" >&2'
    summary_of "$4" >"$tmp/a" && summary_of "$5" >"$tmp/b"
    check "$1_summary_equal" eval 'grep -q "^feature-level" "$tmp/a" && diff "$tmp/a" "$tmp/b" >&2'
}

# --- one process and --jobs 2, shrinking and diagnosis on (the defaults) ----------------
for i in 1 2; do
    "$dmlcheck" run --backend "$backend" --cases "$cases" --seed 11 --db "$tmp/whole.sqlite" \
        >"$tmp/whole$i.out" 2>&1
    echo $? >"$tmp/whole$i.rc"
    "$dmlcheck" run --backend "$backend" --cases "$cases" --seed 11 --jobs 2 \
        --db "$tmp/jobs.sqlite" >"$tmp/jobs$i.out" 2>&1
    echo $? >"$tmp/jobs$i.rc"
done
cp "$tmp/jobs1.out" "$tmp/out"
echo "$(cat "$tmp/jobs1.rc")" >"$tmp/rc"
check "jobs_exit_code_is_one_runs" eval '[ "$(cat "$tmp/whole1.rc")" = 1 ] && rc_is 1'
check "jobs_prints_one_summary" eval '[ "$(grep -c "^summary: $cases cases" "$tmp/out")" = 1 ]'
check "jobs_prints_the_families_once" eval '[ "$(grep -c "^families:" "$tmp/out")" = 1 ] &&
    [ "$(grep -c "^  family 1:" "$tmp/out")" = 1 ]'
check "jobs_diagnoses_once" eval '[ "$(grep -c "^diagnosis:" "$tmp/out")" = 1 ]'
check "jobs_names_its_shards" out_has "jobs: 2 shard processes"
check "jobs_records_jobs_not_shards" eval '[ "$("$sqlite" "$tmp/jobs.sqlite" \
    "SELECT json_extract(options, \"\$.jobs\") || \",\" || ifnull(json_extract(options, \"\$.shard\"), \"-\") FROM runs WHERE id = 1")" = "2,-" ]'
check "jobs_leaves_no_folder" eval '! ls "$tmp" | grep -q "jobs.sqlite.jobs-"'
same_run "jobs_2" "$tmp/whole.sqlite" "$tmp/jobs.sqlite" "$tmp/whole1.out" "$tmp/jobs1.out"
# The second runs appended: the signatures seen before are not new, not shrunk again.
same_run "jobs_2_appended" "$tmp/whole.sqlite" "$tmp/jobs.sqlite" "$tmp/whole2.out" "$tmp/jobs2.out"

# --- going on until a verdict: the shards wait, the merged cells decide ------------------
for j in 1 2; do
    "$dmlcheck" run --backend "plugin:$example" --cases 1000 --until-verdict --max-cases 4000 \
        --seed 5 --jobs "$j" --db "$tmp/verdict$j.sqlite" >"$tmp/verdict$j.out" 2>&1
done
check "jobs_going_on_says_so_once" eval '[ "$(grep -c "^going on to" "$tmp/verdict2.out")" -ge 1 ] &&
    [ "$(grep "^going on to" "$tmp/verdict1.out")" = "$(grep "^going on to" "$tmp/verdict2.out")" ]'
same_run "jobs_until_verdict" "$tmp/verdict1.sqlite" "$tmp/verdict2.sqlite" "$tmp/verdict1.out" "$tmp/verdict2.out"

# --- Ctrl-C to the parent alone: every shard stops, what they checked is merged ----------
now_ms() { date +%s%3N; }
"$dmlcheck" run --backend "plugin:$slow,delay_ms=200" --cases 1000 --seed 3 --jobs 2 \
    --db "$tmp/stop.sqlite" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 2
sent=$(now_ms)
kill -INT "$pid"
wait "$pid"
echo $? >"$tmp/rc"
took=$(($(now_ms) - sent))
check "jobs_sigint_exits_130" rc_is 130
check "jobs_sigint_stops_within_a_second_and_a_half" eval '[ "$took" -lt 1500 ]'
check "jobs_sigint_keeps_the_cases_merged" eval '[ "$("$sqlite" "$tmp/stop.sqlite" \
    "SELECT status, cases_done >= 4, cases_done = (SELECT count(*) FROM cases) FROM runs")" = "interrupted|1|1" ]'
check "jobs_sigint_leaves_no_folder" eval '! ls "$tmp" | grep -q "stop.sqlite.jobs-"'

# --- a shard killed outright --------------------------------------------------------------
"$dmlcheck" run --backend "plugin:$slow,delay_ms=100" --cases 1000 --seed 3 --jobs 2 \
    --db "$tmp/dead.sqlite" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 2
victim=$(ps -o pid= --ppid "$pid" | head -n 1)
kill -9 $victim
wait "$pid"
echo $? >"$tmp/rc"
check "jobs_dead_shard_exits_2" rc_is 2
check "jobs_dead_shard_is_named" eval 'err_has "died of signal 9" && grep -q "shard [01]/2 died" "$tmp/err"'
check "jobs_dead_shard_keeps_the_others_cases" eval '[ "$("$sqlite" "$tmp/dead.sqlite" \
    "SELECT status, cases_done > 0 FROM runs")" = "error|1" ]'

# --- options ------------------------------------------------------------------------------
run run --backend reference --cases 50 --seed 1 --jobs 0 --db "$tmp/zero.sqlite"
cpus=$(getconf _NPROCESSORS_ONLN)
check "jobs_0_is_one_per_cpu" eval 'rc_is 0 && [ "$("$sqlite" "$tmp/zero.sqlite" \
    "SELECT ifnull(json_extract(options, \"\$.jobs\"), 1) FROM runs")" = "$cpus" ]'
run run --backend reference --cases 50 --jobs 2 --shard 0/2 --db "$tmp/bad.sqlite"
check "jobs_with_shard_is_refused" eval 'rc_is 2 && err_has "--jobs shards the run itself"'
run run --backend reference --cases 50 --jobs 2000 --db "$tmp/bad.sqlite"
check "jobs_past_1024_is_refused" eval 'rc_is 2 && err_has "bad value"'
finish
