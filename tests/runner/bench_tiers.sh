#!/bin/sh
# bench_tiers.sh: what the generator's size tiers cost a default run (issue 12's budget: at
# most a 20% loss of cases/s).  The same seeds run with the default budget (every tier) and
# with --max-elements 4096 (the small tiers only), alternately, on the reference backend (the
# fastest there is, so the tiers' share is the largest) and, where an OpenCL platform exists,
# on the default backend; prints total cases over total seconds per side and the ratio.
# Several seeds, because a huge-tier case comes once in 32,768 and one seed's total swings
# with it.  A benchmark, not a test: `meson test --benchmark --suite runner`, or
#   sh tests/runner/bench_tiers.sh build/dmlcheck [CASES]
set -u
dmlcheck=$1 cases=${2:-20000}
. "$(dirname "$0")/../lib/bench_rate.sh"

# Prints "SECONDS" of one run: cases / (cases/s).
seconds() {
    r=$(rate "$@")
    [ -n "$r" ] && awk -v c="$cases" -v r="$r" 'BEGIN { printf "%.4f\n", c / r }'
}

compare() {
    backend=$1
    tiers=0 small=0
    for seed in 1 2 3 4 5 6; do
        export seed
        t=$(seconds "$backend") s=$(seconds "$backend" --max-elements 4096)
        [ -n "$t" ] && [ -n "$s" ] || { echo "$backend: a run failed: $(tail -n 3 "$tmp/out")"; return; }
        tiers=$(awk -v a="$tiers" -v b="$t" 'BEGIN { print a + b }')
        small=$(awk -v a="$small" -v b="$s" 'BEGIN { print a + b }')
    done
    awk -v b="$backend" -v c="$cases" -v t="$tiers" -v s="$small" 'BEGIN {
        printf "%-10s every tier %8.0f cases/s, small tiers only %8.0f cases/s: %.3f (target >= 0.80)\n",
               b, 6 * c / t, 6 * c / s, s / t }'
}

echo "dmlcheck run --cases $cases, seeds 1-6, no shrinking: default budget vs --max-elements 4096"
compare reference
if "$dmlcheck" devices >/dev/null 2>&1; then
    cases=$((cases / 4))
    compare opencl
else
    echo "opencl: no OpenCL platform here"
fi
