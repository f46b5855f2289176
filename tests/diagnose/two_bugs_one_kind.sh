#!/bin/sh
# two_bugs_one_kind.sh: two bugs that fail alike are two rows, each named by its own cause.
# The typed test plug-in with NaN restarts (`!(v <= best)`) and UINT64 read as a signed 32-bit
# integer (OpenVINO has both; its seed 1015 put a UINT64 ties case in the NaN row): both give
# `wrong_index` failures of ARGMIN/ARGMAX and pooling, one operator family, kind and verdict.
# Every new signature is checked against the bugs already confirmed in the run, on its own
# case (harness/run_diagnose.c), so the NaN row holds no UINT64 case and the UINT64 row no
# float one, on every seed.
# Usage: two_bugs_one_kind.sh DMLCHECK TYPED_SO [SEEDS] [CASES].  Prints TAP.
set -u
dmlcheck=$1 typed=$2 seeds=${3:-"5 6"} cases=${4:-3000}
. "$(dirname "$0")/../lib/cli_tap.sh"

# The markdown report's families section ($tmp/f.md): its table row and breakdown line of the
# row named $1.
row_of() { grep "^| [0-9]* | [A-Z]* | [^|]* | $1 |" "$tmp/f.md"; }
breakdown_of() {
    number=$(row_of "$1" | sed -n 's/^| \([0-9]*\) |.*/\1/p' | head -n 1)
    [ -n "$number" ] && grep "^$number\. input " "$tmp/f.md"
}
judged_rows() { grep -c '^| [0-9]* | FAIL |' "$tmp/f.md"; }
# Rows named by a cause other than the two planted (undiagnosed rows say so and pass).
other_causes() { grep '^| [0-9]* | [A-Z]* |' "$tmp/f.md" | grep -v '| nan\\_restarts |' \
                     | grep -v '| uint64\\_read\\_as\\_int32 |' | grep -vc '| undiagnosed |'; }

for seed in $seeds; do
    db="$tmp/db-$seed.sqlite"
    run run --backend "plugin:$typed,bug=nan_restarts,bug=u64_as_i32" --cases "$cases" \
        --seed "$seed" --jobs 1 --db "$db"
    check "seed_${seed}_fails" rc_is 1
    "$dmlcheck" report --db "$db" -o "$tmp/r.md" >/dev/null 2>&1
    sed -n '/^## Families/,/^## [^F]/p' "$tmp/r.md" >"$tmp/f.md"
    check "seed_${seed}_two_judged_rows ($(judged_rows))" [ "$(judged_rows)" -eq 2 ]
    check "seed_${seed}_no_other_cause_named" [ "$(other_causes)" -eq 0 ]
    nan=$(breakdown_of 'nan\\_restarts') u64=$(breakdown_of 'uint64\\_read\\_as\\_int32')
    check "seed_${seed}_nan_restarts_row_has_no_uint64_case (${nan%%;*})" \
        eval '[ -n "$nan" ] && ! echo "$nan" | grep -q UINT64'
    check "seed_${seed}_uint64_row_has_uint64_cases_alone (${u64%%;*})" \
        eval 'echo "$u64" | grep -q "^[0-9]*\. input UINT64 [0-9]*;"'
done
finish
