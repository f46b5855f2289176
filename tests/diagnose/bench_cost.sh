#!/bin/sh
# bench_cost.sh: what diagnosis by probing costs a run (issue 19, docs/DIAGNOSIS.md "Cost").
# A default run (10,000 cases) of a conformant backend with and without --no-diagnose,
# alternated ROUNDS times so that the machine's other load falls on both alike: diagnosis
# runs only on failures, so the two should differ by noise alone.  Then failing runs (3,000
# cases) of planted bugs, each with and without --no-diagnose: the summary's own line says how
# many probes were asked and how long they took.  Prints TAP; fails when the conformant run
# asks a probe or its median wall time with diagnosis exceeds the one without by more than 10%.
# Usage: bench_cost.sh DMLCHECK EXAMPLE_SO TYPED_SO [ROUNDS]  (default 3)
set -u
dmlcheck=$1 example=$2 typed=$3 rounds=${4:-3}
tmp=${TMPDIR:-/tmp}/dmlcheck-bench-cost.$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

# Wall seconds of one run (its output in $tmp/out).
timed_run() {
    rm -f "$tmp"/db.sqlite*
    start=$(date +%s.%N)
    "$dmlcheck" run --jobs 1 --db "$tmp/db.sqlite" "$@" >"$tmp/out" 2>&1
    end=$(date +%s.%N)
    echo "$start $end" | awk '{printf "%.2f", $2 - $1}'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

with="" without="" probes=0
for r in $(seq "$rounds"); do
    t=$(timed_run --backend "plugin:$example" --seed 7)
    with="$with $t"
    p=$(sed -n 's/^diagnosis: \([0-9]*\) probes.*/\1/p' "$tmp/out")
    probes=$((probes + ${p:-0}))
    without="$without $(timed_run --backend "plugin:$example" --seed 7 --no-diagnose)"
done
mw=$(echo "$with" | median) mo=$(echo "$without" | median)
echo "# conformant (example plug-in, no bug, 10,000 cases, seed 7): with diagnosis$with s, without$without s; medians $mw and $mo s"
n=$((n + 1))
if [ "$probes" = 0 ] && awk -v a="$mw" -v b="$mo" 'BEGIN {exit !(a <= 1.10 * b)}'; then
    echo "ok $n - a conformant run asks no probe and diagnosis adds at most 10% (ratio $(awk -v a="$mw" -v b="$mo" 'BEGIN {printf "%.3f", a / b}'))"
else
    failed=$((failed + 1))
    echo "not ok $n - a conformant run asks no probe ($probes asked) and diagnosis adds at most 10% ($mw s vs $mo s)"
fi

for spec in "$example|ties|FLOAT32" "$example|index16|FLOAT32" "$typed|ties|" "$typed|pad_lowest|"; do
    so=${spec%%|*} rest=${spec#*|}
    bug=${rest%%|*} types=${rest#*|}
    set -- --backend "plugin:$so,bug=$bug" --cases 3000 --seed 7
    [ -n "$types" ] && set -- "$@" --types "$types"
    t1=$(timed_run "$@")
    line=$(grep '^diagnosis:' "$tmp/out")
    loop=$(sed -n 's/^summary: [0-9]* cases in \([0-9.]*\) s.*/\1/p' "$tmp/out")
    t0=$(timed_run "$@" --no-diagnose)
    echo "# failing ${so##*/},bug=$bug ${types:-every type}: run $t1 s with diagnosis, $t0 s without (case loop $loop s); ${line:-no probes asked}"
done
echo "1..$n"
[ "$failed" = 0 ]
