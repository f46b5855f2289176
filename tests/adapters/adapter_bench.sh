#!/bin/sh
# adapter_bench.sh: cases/s a real library reaches through its adapter, with every case a
# descriptor of its own and with --inputs-per-desc 16 (16 input sets per created descriptor:
# what compile-heavy libraries gain from reuse).  A benchmark, not a test:
#   meson test -C build --benchmark --suite adapters
#   sh tests/adapters/adapter_bench.sh build/dmlcheck LABEL 'process:PY ADAPTER' [CASES]
set -u
dmlcheck=$1 label=$2 backend=$3 cases=${4:-3000}
. "$(dirname "$0")/../lib/bench_rate.sh"

one=$(rate "$backend") sixteen=$(rate "$backend" --inputs-per-desc 16)
printf '%-12s %7s cases/s, %7s cases/s with --inputs-per-desc 16   (%s cases, seed 1)\n' \
    "$label" "${one:-?}" "${sixteen:-?}" "$cases"
