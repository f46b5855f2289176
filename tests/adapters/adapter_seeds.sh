#!/bin/sh
# adapter_seeds.sh: a real library's published expectations hold on seeds that were not used to
# write them (issue 19: keyed by root cause, not by one seed's cells).  For each seed: a
# differential run of CASES cases (--shrink-budget 0; each new family is still diagnosed;
# --case-timeout 60000, since on a busy shared machine a large pooling case through a Python
# adapter can pass the default limit and count as a hang: 3 of 10 numpy seeds did), then
# `dmlcheck report` with the library's expectations, which must find nothing unexpected.  One
# TAP line per seed, with the run's judged failures, families and wall time; a seed that fails
# prints the report's unexpected signatures.  A benchmark (suite adapters-seeds), not a test:
#   meson test -C build --benchmark --suite adapters-seeds
#   sh tests/adapters/adapter_seeds.sh build/dmlcheck 'process:PY ADAPTER' EXPECTATIONS CASES "SEEDS" [RUN OPTIONS...]
# DMLCHECK_SEEDS_KEEP=DIR keeps each seed's database (run-SEED.sqlite) in DIR, for `dmlcheck
# report` or tests/adapters/expectation_usage.sh (which entries the seeds need).
set -u
dmlcheck=$1 backend=$2 expectations=$3 cases=$4 seeds=$5
shift 5
. "$(dirname "$0")/../lib/cli_tap.sh"

for seed in $seeds; do
    start=$(date +%s)
    run run --backend "$backend" --cases "$cases" --seed "$seed" --shrink-budget 0 --case-timeout 60000 --db "$tmp/run-$seed.sqlite" "$@"
    wall=$(( $(date +%s) - start ))
    grep -q "^summary: $cases cases" "$tmp/out" || { check "seed $seed: run completes" false; continue; }
    fails=$(sed -n 's/^feature-level [^ ]* cases=[0-9]* pass=[0-9]* fail=\([0-9]*\).*/\1/p' "$tmp/out" | awk '{s += $1} END {print s + 0}')
    families=$(sed -n 's/^families: \([0-9]*\).*/\1/p' "$tmp/out")
    diagnosed=$(grep '^    root cause: ' "$tmp/out" | grep -vc 'root cause: undiagnosed')
    run report --db "$tmp/run-$seed.sqlite" --expectations "$expectations" -o "$tmp/report-$seed.md"
    if [ -n "${DMLCHECK_SEEDS_KEEP:-}" ]; then
        mkdir -p "$DMLCHECK_SEEDS_KEEP" && cp "$tmp/run-$seed.sqlite"* "$DMLCHECK_SEEDS_KEEP/" ||
            echo "# could not keep run-$seed.sqlite in $DMLCHECK_SEEDS_KEEP"
    fi
    check "seed $seed: $cases cases, $fails judged failures, ${families:-0} families ($diagnosed by confirmed cause), ${wall} s: nothing unexpected" rc_is 0
    [ "$(cat "$tmp/rc")" = 0 ] ||
        awk '/^## Mismatch signatures/{f=1} /^## Differs/{f=0} f && /^\| [0-9]+ \| FAIL/' "$tmp/report-$seed.md" | head -n 20 | sed 's/^/# /'
done
finish
