#!/bin/sh
# slurm.sh: deploy/slurm/ on a real, throwaway single-node Slurm cluster (deploy/slurm/
# cluster.sh: munged, slurmctld and slurmd on free local ports, everything in one private
# folder, stopped by pid at the end).  A run of the example plug-in with a planted bug,
# submitted as 4 array shards and a merge job (submit.sh), equals the unsharded run: the same
# cells, case ids, signatures and families; submit.sh exits 1 as run would.  A failing shard
# cancels the merge (--kill-on-invalid-dep), and submit.sh exits 2 naming it, where
# `sbatch --wait` would have said 0.  A used --out is refused.  Skipped (TAP plan 1..0)
# without slurm-wlm and munge (.ci/install-deps.sh installs them).
# Usage: slurm.sh DMLCHECK EXAMPLE_SO SOURCE_ROOT SQLITE3.  Prints TAP.
set -u
dmlcheck=$1 example=$2 root=$3 sqlite=$4
for p in munged slurmctld slurmd sbatch scontrol sinfo python3 bash "$sqlite"; do
    command -v "$p" >/dev/null 2>&1 || { echo "1..0 # SKIP no $p (slurm-wlm, munge: .ci/install-deps.sh)"; exit 0; }
done
. "$root/tests/lib/cli_tap.sh"
. "$root/tests/lib/same_as_unsharded.sh"
cluster=$tmp/cluster
trap 'bash "$root/deploy/slurm/cluster.sh" stop "$cluster"; rm -rf "$tmp"' EXIT
submit() { bash "$root/deploy/slurm/submit.sh" --dmlcheck "$dmlcheck" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }

if ! bash "$root/deploy/slurm/cluster.sh" start "$cluster" >"$tmp/out" 2>"$tmp/err"; then
    echo "not ok 1 - a_throwaway_cluster_starts"
    sed 's/^/# /' "$tmp/err"
    echo "1..1"
    exit 1
fi
export SLURM_CONF="$cluster/slurm.conf"
check "a_throwaway_cluster_starts" eval 'sinfo -h -o %t | grep -qx idle'

backend="plugin:$example,bug=ties"
args="--backend $backend --cases 4000 --seed 11 --shrink-budget 0"
# shellcheck disable=SC2086 # args is words
"$dmlcheck" run $args --db "$tmp/whole.sqlite" >/dev/null 2>&1
# shellcheck disable=SC2086
submit --shards 4 --out "$tmp/run" -- $args
check "submit_exits_1_for_mismatches_as_run_does" eval 'rc_is 1 && out_has "merged into"'
same_as_unsharded slurm "$tmp/whole.sqlite" "$tmp/run/merged.sqlite"
check "slurm_writes_the_report" eval '[ -s "$tmp/run/report.html" ]'

# Shard 3 of 4 gets no case of --cases 3: it fails, the merge is cancelled, not left pending.
submit --shards 4 --out "$tmp/failing" -- --backend reference --cases 3 --seed 11
check "a_failing_shard_makes_submit_exit_2" rc_is 2
check "a_failing_shard_cancels_the_merge" eval 'err_has "ended CANCELLED" && [ ! -e "$tmp/failing/merged.sqlite" ]'
check "a_failing_shard_is_named_with_its_log" eval 'err_has "shard 3/4 failed" && err_has "gets no case"'
check "nothing_is_left_in_the_queue" eval '[ -z "$(squeue -h)" ]'
submit --shards 2 --out "$tmp/run" -- --backend reference --cases 10
check "a_used_out_folder_is_refused" eval 'rc_is 2 && err_has "is not empty"'

pids=$(cat "$cluster"/*.pid)
bash "$root/deploy/slurm/cluster.sh" stop "$cluster"
# shellcheck disable=SC2086
check "the_daemons_stop_by_pid" eval '! kill -0 $pids 2>/dev/null'
finish
