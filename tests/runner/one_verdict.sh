#!/bin/sh
# one_verdict.sh: a case gets the same verdict and kind whichever command checks it.  For a
# plug-in bug in a class the spec leaves open (bug=nan_sticky: unspecified) and a judged one
# (bug=ties: fail), the cases `run` recorded are checked again by `replay`, by `exec` of the
# case `export` writes, and each shrunk family by `exec` of its shrunk case file: verdict and
# kind agree with the run's, and so do the exit codes (1 only for a judged failure).
# Usage: one_verdict.sh DMLCHECK EXAMPLE_PLUGIN SQLITE3.  TAP.
set -u
dmlcheck=$1 plugin=$2 sqlite=${3:-}
. "$(dirname "$0")/../lib/cli_tap.sh"
if [ -z "$sqlite" ]; then
    echo "1..0 # SKIP no sqlite3 program"
    exit 0
fi
q() { "$sqlite" "$1" "$2"; }
common="--types FLOAT32 --cases 300 --seed 5 --shrink-budget 100"

# verdict_of: "VERDICT KIND" from replay's "verdict: VERDICT: KIND: ..." line.
replayed_as() { sed -n 's/^verdict: \([a-z]*\): \([a-z_]*\):.*/\1 \2/p' "$tmp/out" | head -n 1; }
# "VERDICT KIND" from exec's named JSON line ("result": "unspecified", "kind": "nan_handling").
executed_as() {
    line=$(grep -F "\"file\": \"$1\"" "$tmp/out" | head -n 1)
    result=$(echo "$line" | sed -n 's/.*"result": "\([a-z]*\)".*/\1/p')
    kind=$(echo "$line" | sed -n 's/.*"kind": "\([a-z_]*\)".*/\1/p')
    echo "$result $kind"
}
exit_for() { [ "$1" = fail ] && echo 1 || echo 0; }

for bug in nan_sticky ties; do
    db="$tmp/$bug.sqlite"
    backend="plugin:$plugin,bug=$bug"
    run run --backend "$backend" $common --db "$db"
    cp "$tmp/out" "$tmp/run_out"
    # The live line says what was asked (issue 20): the descriptor under each new signature.
    check "${bug}_live_line_names_the_descriptor" grep -q '^  descriptor: input sizes \[[0-9,]*\]; ' "$tmp/run_out"
    check "${bug}_run_finds_it" sh -c "[ \$(\"$sqlite\" '$db' 'SELECT count(*) FROM signatures') -gt 0 ]"
    # Up to four recorded signatures, each by its representative case.
    q "$db" "SELECT representative, verdict, kind FROM signatures ORDER BY id LIMIT 4" >"$tmp/sigs"
    while IFS='|' read -r id verdict kind; do
        want="$verdict $kind"
        run replay "$id" --backend "$backend" --types FLOAT32
        got=$(replayed_as)
        check "${bug}_${id}_replay_says_${verdict}_${kind}" sh -c "[ '$got' = '$want' ] && [ \$(cat '$tmp/rc') = $(exit_for "$verdict") ]"
        # replay probes the failure for a person: bug=ties is named by its cause, and the
        # replay line stays the last line.
        [ "$bug" = ties ] && check "${bug}_${id}_replay_names_the_root_cause" \
            sh -c "grep -q '^root cause: confirmed root cause tie_direction_flipped' '$tmp/out' && tail -n 1 '$tmp/out' | grep -q '^replay: dmlcheck replay'"
        "$dmlcheck" export "$id" --types FLOAT32 >"$tmp/case.json" 2>"$tmp/err"
        run exec --backend "$backend" "$tmp/case.json" "$tmp/case.json"
        got=$(executed_as "$tmp/case.json")
        check "${bug}_${id}_exec_of_its_export_says_${verdict}_${kind}" sh -c "[ '$got' = '$want' ] && [ \$(cat '$tmp/rc') = $(exit_for "$verdict") ]"
    done <"$tmp/sigs"
    # Each shrunk family's case file: the family's verdict and kind.
    grep '^  family ' "$tmp/run_out" >"$tmp/families"
    while read -r _ number verdict rest; do
        number=${number%:}
        kind=$(echo "$rest" | cut -d' ' -f1)
        "$dmlcheck" export --family "$number" --run 1 --db "$db" >"$tmp/f$number.json" 2>/dev/null || continue
        run exec --backend "$backend" "$tmp/f$number.json" "$tmp/f$number.json"
        got=$(executed_as "$tmp/f$number.json")
        verdict=${verdict% (nondeterministic)}
        check "${bug}_family_${number}_shrunk_case_says_${verdict}_${kind}" sh -c "[ '$got' = '$verdict $kind' ] && [ \$(cat '$tmp/rc') = $(exit_for "$verdict") ]"
        echo "$number" >>"$tmp/shrunk_checked"
    done <"$tmp/families"
done
check "some_shrunk_families_were_checked" test -s "$tmp/shrunk_checked"
finish
