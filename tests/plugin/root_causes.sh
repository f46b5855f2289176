#!/bin/sh
# root_causes.sh: one row per root cause on any seed (issue 19).  Each of the example
# plug-in's planted bugs, run on two seeds, gives families named by the root cause probing
# confirmed: exactly one judged family (one row for the nan_sticky bug, whose differences are
# all in the unspecified NaN class), named by the planted cause, and no family confirmed as a
# cause the bug does not have.  A bug whose probes cannot yet tell its cause from others is
# listed in `weak`: when its "exactly one row" (or baseline, or expectation) line fails it is a TAP TODO (known, written
# down, not hidden; meson would count a passing TODO as an unexpected pass).
# Usage: root_causes.sh DMLCHECK EXAMPLE_SO [SEEDS].  Prints TAP.
set -u
dmlcheck=$1 example=$2 seeds=${3:-"1 2"}
. "$(dirname "$0")/../lib/cli_tap.sh"

# bug=NAME:cause_id, as examples/plugin/example_plugin.c plants them (docs/DIAGNOSIS.md).
bugs="ties:tie_direction_flipped padding:padding_as_zero_value dilation:dilation_ignored
signed_zero:signed_zero_not_tied float_bits:float_compared_as_int_bits
seed_lowest:best_seeded_with_lowest_finite strides:input_strides_ignored
out_strides:output_strides_ignored axes_order:axes_in_listed_order
column_major:reduced_index_column_major plane_index:pool_index_within_plane
offset_index:pool_index_is_buffer_offset nan_sticky:nan_first_sticky"
# Probes that cannot yet always part these causes from their rivals on every seed (none
# now: signed_zero and seed_lowest are one confirmed row on seeds 1, 2, 41 and 42 since
# probes have several rows).  A bug listed here turns its row lines into TAP TODOs.
weak=" "

for pair in $bugs; do
    bug=${pair%%:*} cause=${pair#*:}
    for seed in $seeds; do
        run run --backend "plugin:$example,bug=$bug" --types FLOAT32 --cases 3000 --seed "$seed" \
            --db "$tmp/$bug-$seed.sqlite"
        cp "$tmp/out" "$tmp/run"
        rows=$(grep -c '^  family ' "$tmp/run")
        judged=$(grep -c '^  family [0-9]*: fail' "$tmp/run")
        named=$(grep -c "^    root cause: $cause, confirmed" "$tmp/run")
        others=$(grep '^    root cause: .*, confirmed' "$tmp/run" | grep -vc "root cause: $cause,")
        echo "# bug=$bug seed=$seed: $rows rows, $judged judged, $named named $cause, $others other causes"
        check "bug_${bug}_seed_${seed}_is_confirmed_as_${cause}" test "$named" -ge 1
        check "bug_${bug}_seed_${seed}_is_never_confirmed_as_another_cause" test "$others" = 0
        want_rows=$judged
        [ "$bug" = nan_sticky ] && want_rows=$rows
        todo=""
        case "$weak" in *" $bug "*) todo=" # TODO probes do not yet part $cause from its rivals on every seed" ;; esac
        n=$((n + 1))
        if [ "$want_rows" = 1 ] && [ "$named" = 1 ]; then
            echo "ok $n - bug_${bug}_seed_${seed}_is_one_row" # a TODO that passes is not marked
        else
            [ -z "$todo" ] && failed=$((failed + 1))
            echo "not ok $n - bug_${bug}_seed_${seed}_is_one_row$todo"
            grep -E '^  family |^    root cause' "$tmp/run" | sed 's/^/# /'
        fi
    done
    # The same bug on two seeds: nothing new, nothing gone, against a baseline; an expectation
    # that names the cause (no cell, kind or type list) excuses every failure on both seeds.
    set -- $seeds
    run report --db "$tmp/$bug-$2.sqlite" --baseline "$tmp/$bug-$1.sqlite" --summary -o "$tmp/b.md"
    todo=""
    case "$weak" in *" $bug "*) todo=" # TODO undiagnosed families of $bug differ by seed" ;; esac
    n=$((n + 1))
    if grep -q "; 0 bugs new, 0 gone" "$tmp/b.md"; then
        echo "ok $n - bug_${bug}_baseline_of_another_seed_has_no_bug_new_or_gone"
    else
        [ -z "$todo" ] && failed=$((failed + 1))
        echo "not ok $n - bug_${bug}_baseline_of_another_seed_has_no_bug_new_or_gone$todo"
        grep 'Against it' "$tmp/b.md" | sed 's/^/# /'
    fi
    printf '{"expectations": [{"cause": "%s", "reason": "planted bug=%s"}]}\n' "$cause" "$bug" \
        >"$tmp/expect.json"
    for seed in $seeds; do
        run report --db "$tmp/$bug-$seed.sqlite" --expectations "$tmp/expect.json" --summary \
            -o "$tmp/e.md"
        unexpected=$(grep -c '| \*\*NOT CONFORMANT\*\*' "$tmp/e.md")
        todo=""
        case "$weak" in *" $bug "*) todo=" # TODO undiagnosed families of $bug stay unexpected" ;; esac
        n=$((n + 1))
        if [ "$unexpected" = 0 ]; then
            echo "ok $n - bug_${bug}_seed_${seed}_expectation_by_cause_excuses_it"
        else
            [ -z "$todo" ] && failed=$((failed + 1))
            echo "not ok $n - bug_${bug}_seed_${seed}_expectation_by_cause_excuses_it$todo"
        fi
    done
    # An entry for rows probing did not name ("cause": "undiagnosed", as published expectations
    # keep for behaviours outside the catalogue) excuses none of a confirmed bug's judged rows.
    printf '{"expectations": [{"cause": "undiagnosed", "reason": "not bug=%s"}]}\n' "$bug" \
        >"$tmp/undiagnosed.json"
    run report --db "$tmp/$bug-$1.sqlite" --expectations "$tmp/undiagnosed.json" --summary -o "$tmp/u.md"
    unexpected=$(grep -c '| \*\*NOT CONFORMANT\*\*' "$tmp/u.md")
    [ "$bug" = nan_sticky ] || check "bug_${bug}_undiagnosed_entry_does_not_excuse_it" test "$unexpected" -gt 0
done
finish
