#!/bin/sh
# shrink_time_bench.sh: how long shrinking takes against its limit, --shrink-time.  The run of
# test plugin_large_tensor_bugs whose failures are large (bug=index16, 10,000 FLOAT32 cases,
# seed 1: families of up to 185,159 input elements) is run with --shrink-time 1 and 4, each
# three times; each line dmlcheck prints is stamped as it comes (stdout line-buffered), and
# shrinking lasts from its announcement ("shrinking N new signature families") to the line
# that ends it ("shrinking stopped at its time limit", or the last "shrunk signature" when it
# finished in time).  Printed per limit: the median seconds, the overrun past the limit, and
# their ratio to the limit.  The limit is checked between candidate runs, so the overrun is
# the candidate run in flight plus the one run kept for the record of the family cut short:
# bounded by those runs, not a share of the limit.  A benchmark, not a test (the test checks, without a clock, that
# shrinking stopped at the limit by its own count): `meson test -C build --benchmark --suite
# plugin plugin_shrink_time`, or
#   sh tests/plugin/shrink_time_bench.sh build/dmlcheck build/examples/plugin/libdmlcheck_example.so
set -u
dmlcheck=$1 example=$2
tmp=${TMPDIR:-/tmp}/dmlcheck-$(basename "$0" .sh).$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT
command -v stdbuf >/dev/null 2>&1 || { echo "no stdbuf (coreutils): lines cannot be stamped as they come"; exit 1; }
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# shrink_seconds LIMIT: seconds from the announcement of shrinking to its last line.
shrink_seconds() {
    rm -f "$tmp/db.sqlite"*
    stdbuf -oL "$dmlcheck" run --backend "plugin:$example,bug=index16" --types FLOAT32 \
        --cases 10000 --seed 1 --shrink-time "$1" --db "$tmp/db.sqlite" 2>"$tmp/err" |
        while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$tmp/out"
    awk '/^[0-9.]+ shrinking [0-9]+ new signature famil/ { start = $1 }
         start && /^[0-9.]+ (shrunk signature |shrinking stopped at its time limit)/ { end = $1 }
         END { if (start && end) printf "%.2f\n", end - start }' "$tmp/out"
}

echo "dmlcheck run --backend plugin:EXAMPLE,bug=index16 --types FLOAT32 --cases 10000 --seed 1"
for limit in 1 4; do
    runs=
    for round in 1 2 3; do
        runs="$runs $(shrink_seconds "$limit")"
    done
    took=$(median3 $runs)
    if [ -z "$took" ]; then
        echo "--shrink-time $limit: no shrinking seen (runs:$runs); the run printed:"
        tail -n 20 "$tmp/out"
        exit 1
    fi
    awk -v l="$limit" -v t="$took" -v runs="$runs" 'BEGIN {
        printf "--shrink-time %s: shrinking took %.2f s (median; runs:%s), %.2f s past the limit, %.2f x the limit\n",
               l, t, runs, t - l, t / l }'
done
grep -q "shrinking stopped at its time limit" "$tmp/out" ||
    echo "(the last run shrank every family within its limit)"
