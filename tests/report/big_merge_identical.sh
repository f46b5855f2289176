#!/bin/sh
# big_merge_identical.sh: the report of a merged run with families is byte for byte the one
# dmlcheck wrote before the report got faster (issue 22, item 4: families read a temporary
# table, coverage tallies through a hash index).  data/big_merge_fixture.sql.gz holds two
# runs, each merged from 2 shards (`run --jobs 2`) of the example plug-in: seed 11 with
# bug=ties,dilation,padding and diagnosis (families joined by root cause), seed 12 with
# bug=nan_sticky,index16,signed_zero without (undiagnosed families, number and set needs).
# data/big_merge_fixture.sha256 holds the SHA-256 of each report `main` ac19c9e wrote of it
# (--deterministic; --run 1, --run 2, --all; md, html, junit; rewritten for two intended
# changes since: multi-axis failure cards, NaN cases another bug changed left out of the
# fingerprint): the reports are 2.7 MB, too big to keep as goldens.  Each selection is also
# written in every format by one report with three -o (issue 22, item 5a): each file must
# equal the single-format report.  After an intended change to a report, write the digests
# again:
#   DMLCHECK_REGEN_GOLDEN=1 meson test -C BUILD report_big_merge_identical
# Usage: big_merge_identical.sh DMLCHECK DATA_DIR SQLITE3.  Prints TAP.
set -u
dmlcheck=$1 data=$2 sqlite3=$3
if [ -z "$sqlite3" ]; then
    echo "1..0 # SKIP sqlite3 is not installed (it loads the fixture)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc "$data/big_merge_fixture.sql.gz" | "$sqlite3" "$tmp/fixture.sqlite" || {
    echo "Bail out! cannot load $data/big_merge_fixture.sql.gz"
    exit 1
}
mkdir "$tmp/out"
for sel in run1 run2 all; do
    case $sel in run1) opt="--run 1" ;; run2) opt="--run 2" ;; all) opt="--all" ;; esac
    for format in md html junit; do
        # shellcheck disable=SC2086
        "$dmlcheck" report --db "$tmp/fixture.sqlite" --deterministic $opt --format $format \
            -o "$tmp/out/$sel.$format" 2>"$tmp/err"
        rc=$?
        [ $rc -le 1 ] || { echo "Bail out! report $opt --format $format exited $rc: $(cat "$tmp/err")"; exit 1; }
    done
    # Every format from one read of the database (issue 22, item 5a), each from -o's extension.
    mkdir -p "$tmp/multi"
    # shellcheck disable=SC2086
    "$dmlcheck" report --db "$tmp/fixture.sqlite" --deterministic $opt -o "$tmp/multi/$sel.md" \
        -o "$tmp/multi/$sel.html" -o "$tmp/multi/$sel.xml" 2>"$tmp/err"
    rc=$?
    [ $rc -le 1 ] || { echo "Bail out! report $opt with three -o exited $rc: $(cat "$tmp/err")"; exit 1; }
done
if [ -n "${DMLCHECK_REGEN_GOLDEN:-}" ]; then
    (cd "$tmp/out" && sha256sum -- *) >"$data/big_merge_fixture.sha256"
    echo "1..0 # SKIP digests written to $data/big_merge_fixture.sha256"
    exit 0
fi
n=$(wc -l <"$data/big_merge_fixture.sha256")
echo "1..$((n + 9))"
i=0
while read -r want name; do
    i=$((i + 1))
    got=$(sha256sum "$tmp/out/$name" | cut -d' ' -f1)
    if [ "$got" = "$want" ]; then
        echo "ok $i - $name identical"
    else
        set -- $(echo "$name" | tr . ' ')
        echo "not ok $i - $name differs from the recorded report (sha256 $got, want $want)"
        echo "# replay: gzip -dc $data/big_merge_fixture.sql.gz | sqlite3 fixture.sqlite &&" \
             "$dmlcheck report --db fixture.sqlite --deterministic" \
             "$( [ "$1" = all ] && echo --all || echo "--run ${1#run}")" "--format $2"
    fi
done <"$data/big_merge_fixture.sha256"
for sel in run1 run2 all; do
    for format in md html junit; do
        i=$((i + 1))
        multi=$sel.$format
        [ $format = junit ] && multi=$sel.xml
        if cmp -s "$tmp/out/$sel.$format" "$tmp/multi/$multi"; then
            echo "ok $i - $sel: -o $multi of one report with three -o equals --format $format alone"
        else
            echo "not ok $i - $sel: -o $multi of one report with three -o differs from --format $format alone"
            echo "# replay: gzip -dc $data/big_merge_fixture.sql.gz | sqlite3 fixture.sqlite &&" \
                 "$dmlcheck report --db fixture.sqlite --deterministic" \
                 "$( [ "$sel" = all ] && echo --all || echo "--run ${sel#run}")" \
                 "-o $sel.md -o $sel.html -o $sel.xml"
        fi
    done
done
