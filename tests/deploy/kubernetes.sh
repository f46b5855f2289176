#!/bin/sh
# kubernetes.sh: deploy/kubernetes/dmlcheck-indexed-job.yaml without a cluster (there is none
# here).  The manifest must parse (every document, the Indexed Job's completions = parallelism
# = SHARDS, the RUN_ID of both Jobs the same, no ServiceAccount needed: the merge uses no API).
# Then the two container scripts, taken from the manifest as written, run with sh on this
# machine with the manifest's environment (SCRATCH and RESULTS pointed at folders here, one
# scratch folder per "pod", dmlcheck first in PATH, the example plug-in with bug=ties as
# BACKEND): the merge started first waits for the shards; its merged run equals the unsharded
# run (cells, case ids, signatures, families); a stale shard of another seed in the run's
# folder is refused (exit 2, nothing merged); a missing shard makes the merge give up after
# WAIT_S with exit 2; another run's folder is never read.
# Usage: kubernetes.sh DMLCHECK EXAMPLE_SO SOURCE_ROOT SQLITE3.  Prints TAP.
set -u
dmlcheck=$1 example=$2 root=$3 sqlite=$4
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
dmlcheck=$(absolute "$dmlcheck") example=$(absolute "$example") # the pods run elsewhere
manifest=$root/deploy/kubernetes/dmlcheck-indexed-job.yaml
py=/usr/bin/python3
for p in "$py" "$sqlite"; do
    command -v "$p" >/dev/null 2>&1 || { echo "1..0 # SKIP no $p"; exit 0; }
done
"$py" -c 'import yaml' 2>/dev/null || { echo "1..0 # SKIP no PyYAML (python3-yaml)"; exit 0; }
. "$root/tests/lib/cli_tap.sh"
. "$root/tests/lib/same_as_unsharded.sh"
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

# extract JOB FIELD: a Job's script ("script") or its environment as shell assignments ("env").
extract() {
    "$py" - "$manifest" "$1" "$2" <<'PY'
import shlex, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
job = next(d for d in docs if d["kind"] == "Job" and d["metadata"]["name"] == sys.argv[2])
c = job["spec"]["template"]["spec"]["containers"][0]
if sys.argv[3] == "script":
    assert c["command"] == ["/bin/sh", "-c"], c["command"]
    sys.stdout.write(c["args"][0])
else:
    for e in c.get("env", []):
        print(f"{e['name']}={shlex.quote(str(e['value']))}")
PY
}
"$py" - "$manifest" >"$tmp/shape" 2>&1 <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = sorted(d["kind"] for d in docs)
jobs = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Job"}
env = lambda j: {e["name"]: e["value"] for e in jobs[j]["spec"]["template"]["spec"]["containers"][0]["env"]}
spec = jobs["dmlcheck-shards"]["spec"]
shards = int(env("dmlcheck-shards")["SHARDS"])
assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"] == shards
assert env("dmlcheck-merge")["SHARDS"] == env("dmlcheck-shards")["SHARDS"]
assert env("dmlcheck-merge")["RUN_ID"] == env("dmlcheck-shards")["RUN_ID"]
vols = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
assert "emptyDir" in vols["scratch"], "the shard's database is not on local storage"
print("kinds", " ".join(kinds))
PY
echo $? >"$tmp/rc"
check "manifest_parses_and_agrees_with_itself" eval 'rc_is 0 && grep -qx "kinds Job Job PersistentVolumeClaim" "$tmp/shape"'
extract dmlcheck-shards script >"$tmp/shard.sh" && extract dmlcheck-shards env >"$tmp/shard.env" &&
extract dmlcheck-merge script >"$tmp/merge.sh" && extract dmlcheck-merge env >"$tmp/merge.env"
check "scripts_extracted" eval '[ -s "$tmp/shard.sh" ] && [ -s "$tmp/merge.sh" ] && grep -q "JOB_COMPLETION_INDEX" "$tmp/shard.sh"'

mkdir -p "$tmp/bin" "$tmp/results"
ln -s "$dmlcheck" "$tmp/bin/dmlcheck"
shards=$(sed -n 's/^SHARDS=//p' "$tmp/shard.env" | tr -d "'")
run_id=$(sed -n 's/^RUN_ID=//p' "$tmp/shard.env" | tr -d "'")
backend="plugin:$example,bug=ties"
cases=3000 seed=11
# pod SCRIPT ENV INDEX [VAR=VALUE...]: the script with the manifest's env, then the test's.
pod() {
    script=$1 env=$2 index=$3
    shift 3
    mkdir -p "$tmp/scratch-$index"
    (set -a; . "$env"; set +a
     export PATH="$tmp/bin:$PATH" JOB_COMPLETION_INDEX="$index" SCRATCH="$tmp/scratch-$index" \
            RESULTS="$tmp/results" BACKEND="$backend" CASES="$cases" SEED="$seed" "$@"
     sh "$script")
}
# Another run's folder, complete and stale: never read.
mkdir -p "$tmp/results/other-run"
for k in $(seq 0 $((shards - 1))); do
    "$dmlcheck" run --backend reference --cases 40 --seed 99 --shard "$k/$shards" \
        --db "$tmp/results/other-run/shard-$k.sqlite" >/dev/null 2>&1
done
"$dmlcheck" run --backend "$backend" --cases $cases --seed $seed --db "$tmp/whole.sqlite" >/dev/null 2>&1
pod "$tmp/merge.sh" "$tmp/merge.env" m WAIT_S=120 >"$tmp/merge.out" 2>"$tmp/merge.err" &
merge_pid=$!
sleep 1
pids=""
for k in $(seq 0 $((shards - 1))); do
    pod "$tmp/shard.sh" "$tmp/shard.env" "$k" >"$tmp/shard-$k.out" 2>&1 &
    pids="$pids $!"
done
shard_rcs=""
for p in $pids; do wait "$p"; shard_rcs="$shard_rcs $?"; done
wait "$merge_pid"
echo $? >"$tmp/rc"
check "shards_succeed_with_mismatches_found" eval '[ "$(echo $shard_rcs | tr -d " 0")" = "" ]'
check "each_shard_copies_one_whole_file" eval '[ $(ls "$tmp/results/$run_id" | grep -c "^shard-[0-9]*\.sqlite$") -eq $shards ] && ! ls -a "$tmp/results/$run_id" | grep -q partial'
check "merge_waits_then_merges_and_reports" eval 'rc_is 0 && [ -s "$tmp/results/$run_id/report.html" ] && [ -s "$tmp/results/$run_id/report.xml" ] && grep -q "merged $shards databases" "$tmp/merge.out"'
m=$tmp/results/$run_id/merged.sqlite
same_as_unsharded kubernetes "$tmp/whole.sqlite" "$m"

# A reused RUN_ID: shard 1 is of another seed.  --expect-shards refuses the set.
rm -f "$m"
cp "$tmp/results/other-run/shard-1.sqlite" "$tmp/results/$run_id/shard-1.sqlite"
pod "$tmp/merge.sh" "$tmp/merge.env" m WAIT_S=10 >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "a_stale_shard_is_refused" eval 'rc_is 2 && [ ! -e "$m" ] && err_has "differ in seed ($seed vs 99)"'
# A shard that never came: the merge gives up after WAIT_S.
rm -f "$tmp/results/$run_id/shard-1.sqlite"
pod "$tmp/merge.sh" "$tmp/merge.env" m WAIT_S=5 >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "a_missing_shard_makes_the_merge_give_up" eval 'rc_is 2 && err_has "$((shards - 1)) of $shards shards" && [ ! -e "$m" ]'
finish
