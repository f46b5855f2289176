#!/bin/bash
# bench_report.sh: `dmlcheck report` on a big merged run, in µs of CPU per case per format,
# against a peer measured in the same run: sqlite3 reading every row of the cases table
# once, its descriptor texts included (the least any report of the run must read); and all
# three formats from one read (-o report.html -o report.md -o report.xml), per case and per
# format.  The run: the example plug-in with bug=ties,dilation,padding planted, `run --jobs
# 2` (two shards merged, as after a big merge), input sizes kept small so the run itself is
# quick.
# Usage: bench_report.sh DMLCHECK PLUGIN SQLITE3 [CASES] (default 200000).  Prints TAP.
set -u
dmlcheck=$1 plugin=$2 sqlite3=$3 cases=${4:-200000}
if [ -z "$sqlite3" ]; then
    echo "1..0 # SKIP sqlite3 is not installed (the peer)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%U %S'
# CPU seconds (user + system) of a command, its output thrown away.
cpu_of() {
    local t
    t=$( { time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
    awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f", a[1] + a[2] }'
}
echo "1..5"
"$dmlcheck" run --backend "plugin:$plugin,bug=ties,bug=dilation,bug=padding" --max-elements 256 \
    --cases "$cases" --seed 7 --jobs 2 --db "$tmp/run.sqlite" >"$tmp/run.out" 2>&1
rc=$?
if [ $rc -gt 1 ]; then
    echo "Bail out! the run exited $rc: $(tail -3 "$tmp/run.out")"
    exit 1
fi
peer=$(cpu_of "$sqlite3" "$tmp/run.sqlite" "SELECT count(*), sum(length(op)), sum(length(params)),
    sum(length(input_sizes)), sum(length(output_sizes)), sum(length(layout)),
    sum(length(classes)), sum(elements) FROM cases")
echo "ok 1 - peer: sqlite3 full scan of cases: $peer s CPU for $cases cases," \
     "$(awk -v s="$peer" -v n="$cases" 'BEGIN { printf "%.2f", s * 1e6 / n }') us/case"
i=1
for format in html md junit; do
    i=$((i + 1))
    cpu=$(cpu_of "$dmlcheck" report --db "$tmp/run.sqlite" --format $format -o "$tmp/report.$format")
    if [ ! -s "$tmp/report.$format" ]; then
        echo "not ok $i - report --format $format wrote nothing"
        echo "# replay: $dmlcheck report --db RUN.sqlite --format $format -o report.$format"
        continue
    fi
    awk -v s="$cpu" -v p="$peer" -v n="$cases" -v f="$format" -v i="$i" 'BEGIN {
        printf "ok %d - report --format %s: %.3f s CPU, %.2f us/case, %.1fx the peer\n",
               i, f, s, s * 1e6 / n, (p > 0 ? s / p : 0) }'
done
cpu=$(cpu_of "$dmlcheck" report --db "$tmp/run.sqlite" -o "$tmp/all.html" -o "$tmp/all.md" \
    -o "$tmp/all.xml")
if [ ! -s "$tmp/all.html" ] || [ ! -s "$tmp/all.md" ] || [ ! -s "$tmp/all.xml" ]; then
    echo "not ok 5 - report with three -o left a file empty"
    echo "# replay: $dmlcheck report --db RUN.sqlite -o report.html -o report.md -o report.xml"
else
    awk -v s="$cpu" -v p="$peer" -v n="$cases" 'BEGIN {
        printf "ok 5 - report -o html -o md -o xml (one read): %.3f s CPU, %.2f us/case, %.2f us/case per format, %.1fx the peer\n",
               s, s * 1e6 / n, s * 1e6 / n / 3, (p > 0 ? s / p : 0) }'
fi
