#!/bin/sh
# adapter_bench.sh: cases/s a real library reaches through its adapter, with every case a
# descriptor of its own and with --inputs-per-desc 16 (16 input sets per created descriptor:
# what compile-heavy libraries gain from reuse).  A benchmark, not a test:
#   meson test -C build --benchmark --suite adapters
#   sh tests/adapters/adapter_bench.sh build/dmlcheck LABEL 'process:PY ADAPTER' [CASES]
set -u
dmlcheck=$1 label=$2 backend=$3 cases=${4:-3000}
tmp=${TMPDIR:-/tmp}/dmlcheck-adapter-bench.$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT

rate() { # rate K -> cases/s of one run
    rm -f "$tmp/db.sqlite"*
    "$dmlcheck" run --backend "$backend" --cases "$cases" --seed 1 --shrink-budget 0 \
        --inputs-per-desc "$1" --db "$tmp/db.sqlite" >"$tmp/out" 2>&1
    sed -n 's/^summary: .*(\([0-9]*\) cases\/s.*/\1/p' "$tmp/out"
}
one=$(rate 1) sixteen=$(rate 16)
printf '%-12s %7s cases/s, %7s cases/s with --inputs-per-desc 16   (%s cases, seed 1)\n' \
    "$label" "${one:-?}" "${sixteen:-?}" "$cases"
