#!/bin/sh
# expectation_usage.sh: which entries of an expectations file a set of runs needs.  For each
# entry, in the file's order: the signatures it is the first match for (report's signatures
# marked expected with entries 1..i, less those with 1..i-1; report takes the first entry that
# matches), on how many databases, and on how many databases `dmlcheck report` finds something
# unexpected without it (leave one out).  An entry that is the first match for signatures but
# that no database needs has a later entry matching the same signatures: the pass does not rest
# on it.  A by-hand tool (needs jq), not a test; keep the databases of adapter_seeds.sh (or of
# any runs) and pass them:
#   sh tests/adapters/expectation_usage.sh build/dmlcheck EXPECTATIONS RUN.sqlite...
set -u
[ $# -ge 3 ] || { echo "usage: $0 DMLCHECK EXPECTATIONS DATABASE..." >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: needs jq (apt-get install jq)" >&2; exit 2; }
dmlcheck=$1 expectations=$2
shift 2
count=$(jq '.expectations | length' "$expectations" 2>/dev/null)
case $count in
    '' | *[!0-9]*) echo "$0: $expectations: not an expectations file (no .expectations array)" >&2; exit 2 ;;
esac
for db in "$@"; do
    [ -f "$db" ] || { echo "$0: $db: no such database" >&2; exit 2; }
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# Expected signatures of $1's report with expectations file $2; the exit code is report's.
expected_signatures() {
    "$dmlcheck" report --db "$1" --expectations "$2" -o "$tmp/report.md" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -le 1 ] || { cat "$tmp/err" >&2; exit 2; }
    awk '/^## Mismatch signatures/{f=1; next} /^## /{f=0} f && /^\| [0-9]+ \| expected \|/' \
        "$tmp/report.md" | wc -l
    return $rc
}

n=0
for db in "$@"; do
    n=$((n + 1))
    echo 0 >"$tmp/before-$n"
done
i=0
while [ $i -lt "$count" ]; do
    jq "{expectations: .expectations[0:$((i + 1))]}" "$expectations" >"$tmp/prefix.json"
    jq "{expectations: (.expectations[0:$i] + .expectations[$((i + 1)):])}" "$expectations" >"$tmp/without.json"
    first=0 on=0 needed=0 n=0
    for db in "$@"; do
        n=$((n + 1))
        now=$(expected_signatures "$db" "$tmp/prefix.json")
        [ $? -le 1 ] || exit 2
        gained=$((now - $(cat "$tmp/before-$n")))
        echo "$now" >"$tmp/before-$n"
        first=$((first + gained))
        [ $gained -eq 0 ] || on=$((on + 1))
        expected_signatures "$db" "$tmp/without.json" >/dev/null || needed=$((needed + 1))
    done
    printf '%2d first match of %5d signatures on %2d of %d; %2d fail without it  %s\n' \
        $((i + 1)) $first $on $# $needed "$(jq -c ".expectations[$i] | del(.reason)" "$expectations")"
    i=$((i + 1))
done
