#!/usr/bin/env bash
# submit.sh: a dmlcheck run on Slurm in one command: an array of N shards (shard.sbatch)
# and a merge job (merge.sbatch) that runs only when every shard succeeded.
#   deploy/slurm/submit.sh [--shards N] [--out DIR] [--dmlcheck PATH] [--no-wait]
#                          [--sbatch "ARGS"] -- RUN-ARGS...
#   e.g. submit.sh --shards 32 --out /shared/run1 -- --backend plugin:/shared/libmine.so --cases 1000000
# RUN-ARGS are `dmlcheck run`'s; a --seed is added when they have none (every shard must
# draw from the same one).  DIR (default ./dmlcheck-slurm-SEED) must be new or empty: it
# receives shard-K.sqlite, the logs, merged.sqlite and report.html.  DMLCHECK (default: the
# dmlcheck on PATH) and DIR must be reachable from every node.
# By default it waits for the merge and exits as `dmlcheck run` would: 0 no mismatch, 1
# mismatches, 2 a shard or the merge failed (named, with its log).  It reads the merge job's
# final state from scontrol rather than trusting `sbatch --wait`, which returns 0 for a job
# cancelled because a shard failed.  --no-wait prints the job ids and exits 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=4 out="" dmlcheck=$(command -v dmlcheck || true) wait=1 extra=""
while [ $# -gt 0 ]; do
    case $1 in
    --shards) shards=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --dmlcheck) dmlcheck=$2; shift 2 ;;
    --no-wait) wait=0; shift ;;
    --sbatch) extra=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown option $1 (RUN-ARGS go after --)" >&2; exit 2 ;;
    esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: --shards N: a positive count" >&2; exit 2; }
[ -x "$dmlcheck" ] || { echo "submit.sh: no dmlcheck program (--dmlcheck PATH)" >&2; exit 2; }
dmlcheck=$(cd "$(dirname "$dmlcheck")" && pwd)/$(basename "$dmlcheck")
run_args=("$@")
seed=""
for ((i = 0; i < ${#run_args[@]}; i++)); do
    [ "${run_args[i]}" = --seed ] && seed=${run_args[i + 1]:-}
done
if [ -z "$seed" ]; then
    seed=$(date +%s%3N)
    run_args+=(--seed "$seed")
fi
out=${out:-dmlcheck-slurm-$seed}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -n "$(ls -A "$out")" ]; then
    echo "submit.sh: $out is not empty: its files could be another run's; name a new --out" >&2
    exit 2
fi
read -r -a sbatch_extra <<<"$extra"
array=$(sbatch --parsable "${sbatch_extra[@]}" --array="0-$((shards - 1))" -o "$out/shard-%a.log" \
    "$here/shard.sbatch" "$shards" "$out" "$dmlcheck" "${run_args[@]}")
array=${array%%;*}
merge=$(sbatch --parsable "${sbatch_extra[@]}" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    -o "$out/merge.log" "$here/merge.sbatch" "$shards" "$out" "$dmlcheck")
merge=${merge%%;*}
echo "submit.sh: seed $seed: shards in job $array (array 0-$((shards - 1))), merge in job $merge; results in $out"
[ "$wait" = 1 ] || exit 0

state_of() { scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2; }
while :; do
    state=$(state_of "$merge")
    case $state in
    PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | REQUEUED | "") sleep 0.5 ;;
    *) break ;;
    esac
    [ -n "$state" ] || [ -e "$out/merged.sqlite" ] || continue
    [ -n "$state" ] || break # purged from the controller: the files say how it went
done
if [ "${state:-COMPLETED}" != COMPLETED ] || [ ! -e "$out/merged.sqlite" ]; then
    echo "submit.sh: the merge job $merge ended ${state:-without its result}" >&2
    for ((k = 0; k < shards; k++)); do
        if [ ! -e "$out/shard-$k.rc" ]; then
            echo "submit.sh: shard $k/$shards failed; its log ($out/shard-$k.log) ends:" >&2
            tail -n 5 "$out/shard-$k.log" 2>/dev/null | sed 's/^/  /' >&2
        fi
    done
    [ ! -s "$out/merge.log" ] || { echo "submit.sh: the merge's log ends:" >&2; tail -n 5 "$out/merge.log" | sed 's/^/  /' >&2; }
    exit 2
fi
echo "submit.sh: merged into $out/merged.sqlite; report $out/report.html"
grep -qx 1 "$out"/shard-*.rc && exit 1
exit 0
