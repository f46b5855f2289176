#!/bin/sh
# nan_fingerprint.sh: the NaN-policy fingerprint end to end (docs/SEMANTICS.md "NaN-policy
# fingerprint").  The reference fingerprints as the policy it ran (--nan-policy ignore:
# ignore; propagate: propagate-first), the example plug-in as ignore healthy and as
# first-sticky with its planted bug=nan_sticky, and as ignore with bug=ties once the NaN cases
# its tie bug changed are left out; `run` prints one line per operator, the
# report a table, and against a baseline the changed policy at the top.  The typed test
# plug-in with a NaN policy and another bug whose rows share the NaN row's kind reads as that
# policy: only the other bug's own cases leave the fingerprint.
# Usage: nan_fingerprint.sh DMLCHECK EXAMPLE_SO TYPED_SO.  Prints TAP.
set -u
dmlcheck=$1 example=$2 typed=$3
. "$(dirname "$0")/../lib/cli_tap.sh"

common="--types FLOAT32,FLOAT16 --ops ARGMAX,ARGMIN,MAX_POOLING2 --cases 600 --seed 5 --shrink-budget 0"
# Every operator's line names the policy among those that explain all its NaN cases.
lines_name() {
    for op in ARGMAX ARGMIN MAX_POOLING2; do
        grep -q "^nan policy $op: FLOAT16 [^;]*$1[^;]*(.*NaN cases); FLOAT32 [^;]*$1[^;]*(.*NaN cases)$" \
            "$tmp/out" || return 1
    done
}

run run --backend reference --nan-policy ignore $common --db "$tmp/ignore.sqlite"
check "reference_ignore_fingerprints_as_ignore" eval 'rc_is 0 && lines_name ignore'
run run --backend reference --nan-policy propagate $common --db "$tmp/propagate.sqlite"
check "reference_propagate_fingerprints_as_propagate_first" \
    eval 'rc_is 0 && lines_name propagate-first && ! out_has "ignore"'

common="--types FLOAT32 --ops ARGMAX,ARGMIN,MAX_POOLING2 --cases 600 --seed 5 --shrink-budget 0"
run run --backend "plugin:$example" $common --db "$tmp/healthy.sqlite"
check "example_plugin_fingerprints_as_ignore" \
    eval 'rc_is 0 && out_has "nan policy ARGMAX: FLOAT32 ignore (" && out_has "nan policy ARGMIN: FLOAT32 ignore (" &&
          out_has "nan policy MAX_POOLING2: FLOAT32 ignore ("'
run run --backend "plugin:$example,bug=nan_sticky" $common --db "$tmp/sticky.sqlite"
check "example_nan_sticky_fingerprints_as_first_sticky_alone" \
    eval 'rc_is 0 && out_has "nan policy ARGMAX: FLOAT32 first-sticky (" && out_has "nan policy ARGMIN: FLOAT32 first-sticky (" &&
          out_has "nan policy MAX_POOLING2: FLOAT32 first-sticky ("'
# bug=ties flips ties in rows holding a NaN too, where the difference is unspecified (class
# nan) and no policy explains it: those cases belong to the family confirmed as
# tie_direction_flipped, so they leave the fingerprint, counted, and the rest read ignore
# (before: ARGMAX "inconsistent (of 18 NaN cases: ignore 16, ...)").
run run --backend "plugin:$example,bug=ties" $common --db "$tmp/ties.sqlite"
check "example_ties_fingerprints_as_ignore_without_the_cases_the_tie_bug_changed" \
    eval 'rc_is 1 && grep -q "^nan policy ARGMAX: FLOAT32 ignore (.*; [1-9][0-9]* more left out: another bug changed them (root cause tie_direction_flipped)$" "$tmp/out" &&
          grep -q "^nan policy ARGMIN: FLOAT32 ignore (.*; [1-9][0-9]* more left out: another bug changed them (root cause tie_direction_flipped)$" "$tmp/out"'
run report --db "$tmp/ties.sqlite" --format md
check "report_leaves_them_out_too" \
    eval 'grep -q "| ARGMIN | FLOAT32 | ignore (.*another bug changed them (root cause tie\\\\_direction\\\\_flipped) |" "$tmp/out"'

# bug=seed_zero with bug=nan_last: both give judged padding_selected rows, one confirmed as
# best_seeded_with_zero, one as nan_propagates_last.  The NaN cases that leave the fingerprint
# are those of the seed bug's groups, not every NaN case of its kinds (before: FLOAT16 ARGMAX
# read "ignore, propagate-first, propagate-last, first-sticky, nan-restarts (6 NaN cases); 19
# more left out: another bug changed them", the NaN row's cases counted as the seed bug's).
# Every operator's line names `$1` alone, for FLOAT16 and FLOAT32.
every_operator_reads() {
    for op in ARGMAX ARGMIN MAX_POOLING1 MAX_POOLING2; do
        grep -q "^nan policy $op: FLOAT16 $1 (.*; FLOAT32 $1 (" "$tmp/out" || return 1
    done
}
for seed in 5 6; do
    run run --backend "plugin:$typed,bug=seed_zero,bug=nan_last" --types FLOAT32,FLOAT16 --cases 2000 \
        --seed "$seed" --db "$tmp/two-$seed.sqlite"
    check "seed_${seed}_nan_last_with_another_bug_fingerprints_as_propagate_last" \
        eval 'rc_is 1 && every_operator_reads propagate-last'
done

run report --db "$tmp/sticky.sqlite" --format md
check "report_has_the_fingerprint_table" \
    eval 'out_has "## NaN-policy fingerprint" && grep -q "| ARGMIN | FLOAT32 | first-sticky (" "$tmp/out"'
run report --db "$tmp/sticky.sqlite" --summary
check "summary_has_the_fingerprint_table" eval 'out_has "## NaN-policy fingerprint"'
run report --db "$tmp/sticky.sqlite" --baseline "$tmp/healthy.sqlite" --format md
check "baseline_calls_out_the_changed_policy" \
    eval 'out_has "**NaN behaviour:** ARGMAX FLOAT32: NaN policy changed from ignore to first-sticky" &&
          out_has "MAX\_POOLING2 FLOAT32: NaN policy changed from ignore to first-sticky" &&
          grep -q "| ARGMAX | FLOAT32 | first-sticky (.*| ignore (.* \*\*CHANGED\*\* |" "$tmp/out"'
run report --db "$tmp/sticky.sqlite" --baseline "$tmp/healthy.sqlite" --format html
check "html_calls_out_the_changed_policy" \
    eval 'out_has "NaN behaviour: ARGMAX FLOAT32: NaN policy changed from ignore to first-sticky" &&
          out_has "<h2>NaN-policy fingerprint</h2>"'
run report --db "$tmp/healthy.sqlite" --baseline "$tmp/healthy.sqlite" --format md
check "an_unchanged_policy_is_not_called_out" eval 'rc_is 0 && out_has "## NaN-policy fingerprint" && ! out_has "NaN behaviour" && ! out_has "**CHANGED**"'
finish
