#!/bin/sh
# adapter_bench.sh: cases/s a real library reaches through its adapter, as a ratio to the echo
# adapter (tests/process/echo_adapter.py, which computes nothing: the protocol's and dmlcheck's
# own cost) measured in the same run on the same cases: default cases (every case a descriptor
# of its own), ARGMIN/ARGMAX only, and --inputs-per-desc 16 (16 input sets per created
# descriptor: what compile-heavy libraries gain from reuse).  A benchmark, not a test:
#   meson test -C build --benchmark --suite adapters
#   sh tests/adapters/adapter_bench.sh build/dmlcheck LABEL 'process:PY ADAPTER' 'process:PY ECHO' [CASES]
set -u
dmlcheck=$1 label=$2 backend=$3 echo_backend=$4 cases=${5:-3000}
. "$(dirname "$0")/../lib/bench_rate.sh"

ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "?" }'; }
line() {  # line WHAT [RUN OPTIONS...]: the adapter's rate, the echo's, their ratio
    what=$1
    shift
    mine=$(rate "$backend" "$@") echo_rate=$(rate "$echo_backend" "$@")
    printf '%-12s %-22s %7s cases/s, echo %7s cases/s, ratio %s   (%s cases, seed 1)\n' \
        "$label" "$what" "${mine:-?}" "${echo_rate:-?}" "$(ratio "$mine" "$echo_rate")" "$cases"
}
line "default cases"
line "ARGMIN/ARGMAX" --ops argmin,argmax
line "--inputs-per-desc 16" --inputs-per-desc 16
