#!/bin/sh
# plugin_bench.sh: what the C plug-in path costs.  The same engine (dmlcheck's reference) runs
# in the tree (--backend reference) and behind the plug-in ABI (libreference_plugin.so), on
# the same default-size cases, alternately, three times each; prints cases/s and the ratio of
# the medians.  Issue 10's target: the plug-in path within 10% of the in-tree backend.
# A benchmark, not a test: `meson test --benchmark --suite plugin`, or
#   sh tests/plugin/plugin_bench.sh build/dmlcheck build/tests/plugin/libreference_plugin.so [CASES]
set -u
dmlcheck=$1 plugin=$2 cases=${3:-20000}
. "$(dirname "$0")/../lib/bench_rate.sh"
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

echo "dmlcheck run --cases $cases --seed 1, default-size cases, the reference engine on both sides"
in_tree= plugged=
for round in 1 2 3; do
    in_tree="$in_tree $(rate reference)"
    plugged="$plugged $(rate "plugin:$plugin")"
done
a=$(median3 $in_tree) b=$(median3 $plugged)
printf '%-34s %8s cases/s   (runs:%s)\n' "in tree (--backend reference)" "$a" "$in_tree"
printf '%-34s %8s cases/s   (runs:%s)\n' "plug-in (libreference_plugin.so)" "$b" "$plugged"
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ]; then
    awk -v a="$a" -v b="$b" 'BEGIN { printf "plug-in / in tree: %.3f (target >= 0.90)\n", b / a }'
fi
