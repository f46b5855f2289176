#!/bin/sh
# adapter_suite.sh: a real library, through its adapter, against its published conformance on
# several seeds: for each, a differential run, then `dmlcheck report` with the library's
# expectations file (reports/published/<library>-<version>/expectations.json), which must find
# nothing unexpected: every known divergence is explained there, and anything new fails this
# test.  More than one seed, so that no expectation holds only for the cases of one.
# Usage: adapter_suite.sh DMLCHECK BACKEND EXPECTATIONS CASES 'SEED...' [RUN OPTIONS...].  TAP.
set -u
dmlcheck=$1 backend=$2 expectations=$3 cases=$4 seeds=$5
shift 5
. "$(dirname "$0")/../lib/cli_tap.sh"

for seed in $seeds; do
    rm -f "$tmp/run.sqlite"*
    run run --backend "$backend" --cases "$cases" --seed "$seed" --shrink-budget 0 --db "$tmp/run.sqlite" "$@"
    check "seed_${seed}_run_completes" sh -c "grep -q '^summary: $cases cases' '$tmp/out'"
    run report --db "$tmp/run.sqlite" --expectations "$expectations" -o "$tmp/report.md"
    check "seed_${seed}_only_published_divergences" rc_is 0
    [ "$(cat "$tmp/rc")" = 0 ] || grep -m 20 'UNEXPECTED\|unexpected' "$tmp/report.md" | sed 's/^/# /'
done
finish
