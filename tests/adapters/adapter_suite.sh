#!/bin/sh
# adapter_suite.sh: a real library, through its adapter, against its published conformance:
# a differential run, then `dmlcheck report` with the library's expectations file
# (reports/published/<library>-<version>/expectations.json), which must find nothing
# unexpected: every known divergence is explained there, and anything new fails this test.
# Usage: adapter_suite.sh DMLCHECK BACKEND EXPECTATIONS CASES [RUN OPTIONS...].  TAP.
set -u
dmlcheck=$1 backend=$2 expectations=$3 cases=$4
shift 4
. "$(dirname "$0")/../lib/cli_tap.sh"

run run --backend "$backend" --cases "$cases" --seed 2026 --shrink-budget 0 --db "$tmp/run.sqlite" "$@"
check "run_completes" sh -c "grep -q '^summary: $cases cases' '$tmp/out'"
run report --db "$tmp/run.sqlite" --expectations "$expectations" -o "$tmp/report.md"
check "only_published_divergences" rc_is 0
[ "$(cat "$tmp/rc")" = 0 ] || grep -m 20 'UNEXPECTED\|unexpected' "$tmp/report.md" | sed 's/^/# /'
finish
