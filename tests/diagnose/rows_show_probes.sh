#!/bin/sh
# rows_show_probes.sh: every row a confirmed cause names shows the probes that confirmed it,
# as a command that exports them.  The example plug-in with three bugs (dilations ignored,
# pooling indices within the N,C plane, input strides ignored): their failures overlap, so some
# signatures are explained by a pair of causes (a+b) and some by a cause confirmed on another
# signature.  A row whose only probed signature came to it through a join showed no probes:
# the dilation row did on every seed tried (results/families.c keeps the joiner's probes now).
# Usage: rows_show_probes.sh DMLCHECK EXAMPLE_SO [SEEDS] [CASES].  Prints TAP.
set -u
dmlcheck=$1 example=$2 seeds=${3:-"21 22"} cases=${4:-3000}
. "$(dirname "$0")/../lib/cli_tap.sh"

# Rows of the summary in $tmp/out named by a confirmed cause, and of those the ones followed by
# their probes line.
named_rows() { grep -c '^    root cause: [a-z_0-9|+]*, confirmed by probing' "$tmp/out"; }
rows_with_probes() {
    grep -A1 '^    root cause: [a-z_0-9|+]*, confirmed by probing' "$tmp/out" | grep -c '^    its [0-9]* probes\{0,1\} '
}

for seed in $seeds; do
    db="$tmp/db-$seed.sqlite"
    run run --backend "plugin:$example,bug=dilation,bug=plane_index,bug=strides" --types FLOAT32 \
        --cases "$cases" --seed "$seed" --jobs 1 --db "$db"
    check "seed_${seed}_fails" rc_is 1
    named=$(named_rows) shown=$(rows_with_probes)
    check "seed_${seed}_three_rows_named ($named)" [ "$named" -eq 3 ]
    check "seed_${seed}_each_named_row_shows_its_probes ($shown of $named)" [ "$shown" -eq "$named" ]
    for cause in dilation_ignored pool_index_within_plane input_strides_ignored; do
        check "seed_${seed}_row_$cause" out_has "root cause: $cause, confirmed by probing"
    done
    # Its probes, exported: at least one (the one built for dilation_ignored; the others are
    # rival causes' and may show nothing of this bug) fails on bug=dilation alone.
    family=$(awk '/^  family [0-9]*:/ { n = $2 } /^    root cause: dilation_ignored,/ { sub(":", "", n); print n }' "$tmp/out")
    probes=$(grep -A2 '^    root cause: dilation_ignored,' "$tmp/out" | sed -n 's/^    its \([0-9]*\) probe.*/\1/p')
    exported=0 failing=0 k=1
    while [ "$k" -le "${probes:-0}" ]; do
        "$dmlcheck" export --family "$family" --probe "$k" --db "$db" >"$tmp/probe.json" 2>"$tmp/err" &&
            [ -s "$tmp/probe.json" ] && exported=$((exported + 1))
        "$dmlcheck" exec "$tmp/probe.json" --backend "plugin:$example,bug=dilation" >/dev/null 2>&1
        [ $? -eq 1 ] && failing=$((failing + 1))
        k=$((k + 1))
    done
    check "seed_${seed}_dilation_probes_exported ($exported of ${probes:-0})" \
        [ "${probes:-0}" -gt 0 ] && [ "$exported" -eq "$probes" ]
    check "seed_${seed}_a_dilation_probe_fails_on_the_bug ($failing of ${probes:-0})" [ "$failing" -ge 1 ]
done
finish
