#!/bin/sh
# memory_limit.sh: under a memory limit (ulimit -v 20000) run ends with a clear error and its
# run row marked 'error', never an abort in the parent's reference that leaves the row
# 'running' (issue 23, defect 10).  Seeds 1, 2 and 7 each drew a case whose reference ran out
# of memory in the parent (exit 134).  Skipped in a sanitizer build (ASan reserves more
# address space than the limit allows).
# Usage: memory_limit.sh DMLCHECK SQLITE3 SANITIZE.  Prints TAP.
set -u
dmlcheck=$1 sqlite=${2:-} sanitize=${3:-none}
. "$(dirname "$0")/../lib/cli_tap.sh"
. "$(dirname "$0")/../lib/memory_limit.sh"
if [ "$sanitize" != none ] || [ -z "$sqlite" ]; then
    echo "1..0 # SKIP a sanitizer build, or no sqlite3 program"
    exit 0
fi
for seed in 1 2 7; do
    rm -f "$tmp/db.sqlite"*
    limited 20000 run --backend reference --cases 5000 --seed "$seed" --shrink-budget 0 \
        --db "$tmp/db.sqlite"
    check "seed_${seed}_ends_with_an_error_not_an_abort" eval \
        'rc_is 2 && err_has "out of memory" || rc_is 0'
    check "seed_${seed}_run_row_is_not_left_running" eval \
        '[ "$("$sqlite" "$tmp/db.sqlite" "SELECT count(*) FROM runs WHERE status = '"'running'"'")" = 0 ]'
done
finish
