#!/bin/sh
# three_bugs.sh: one bug, one row (issue 11).  The example plug-in with three planted bugs in
# one run (bug=ties, bug=padding, bug=dilation; 10,000 FLOAT32 cases) gives three judged
# families, not the signatures' hundreds: the tie rule applied the other way (ARGMIN/ARGMAX),
# zero padding that wins (pooling; its +0s that a real +0 could also have been join it through
# results.also_kinds), and windows read undilated (pooling; values from outside the window,
# indices outside it and smaller window elements, joined because they need exactly the same:
# a dilated window).  Each is shrunk to a case of a few elements whose card in the HTML report
# holds a drawing.  With bug=crash in place of bug=dilation the third family is the crash,
# one family across operators, shrunk to the 2,000 input elements it needs (a crash leaves no
# output to draw).
# Usage: three_bugs.sh DMLCHECK EXAMPLE_SO.  Prints TAP.
set -u
dmlcheck=$1 example=$2
. "$(dirname "$0")/../lib/cli_tap.sh"

judged_families() { grep -c '^  family [0-9]*: fail ' "$tmp/run.out"; }
family_number() { sed -n "s|^  family \([0-9]*\): fail $1,.*|\1|p" "$tmp/run.out" | head -n 1; }
# Input elements of a case file: the product of InputTensor.Sizes.
elements_of() {
    python3 -c 'import json, sys; n = 1
for s in json.load(open(sys.argv[1]))["InputTensor"]["Sizes"]: n *= s
print(n)' "$1"
}
# check_shrunk NAME FAMILY MIN MAX: family FAMILY's exported shrunk case has MIN..MAX elements.
check_shrunk() {
    if [ -z "$2" ]; then
        skip "family_$1_is_shrunk" "no such family"
        return
    fi
    "$dmlcheck" export --family "$2" --db "$db" >"$tmp/$1.json" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    size=$(elements_of "$tmp/$1.json" 2>/dev/null) lo=$3 hi=$4
    check "family_$1_is_shrunk_to_$3_to_$4_elements ($size)" \
        eval 'rc_is 0 && [ -n "$size" ] && [ "$size" -ge "$lo" ] && [ "$size" -le "$hi" ]'
}
card_has_drawing() {
    sed -n "/<div class=\"failure\" id=\"family-$1\">/,/<\/div>/p" "$tmp/r.html" \
        | grep -q '<svg xmlns="http://www.w3.org/2000/svg" class="drawing"'
}

db=$tmp/db.sqlite
run run --backend "plugin:$example,bug=ties,bug=padding,bug=dilation" --types FLOAT32 \
    --cases 10000 --seed 1 --db "$db"
cp "$tmp/out" "$tmp/run.out"
check "three_bugs_fail_the_run" rc_is 1
check "three_bugs_are_three_judged_families ($(judged_families))" eval '[ "$(judged_families)" = 3 ]'
ties=$(family_number 'tie_other_way ARGMIN/ARGMAX')
padding=$(family_number 'padding_selected MAX_POOLING2/MAX_POOLING1')
dilation=$(sed -n 's|^  family \([0-9]*\): fail .*only dilated window yes.*|\1|p' "$tmp/run.out" | head -n 1)
check "the_families_are_ties_padding_and_dilation ($ties, $padding, $dilation)" \
    eval '[ -n "$ties" ] && [ -n "$padding" ] && [ -n "$dilation" ] && [ "$padding" != "$dilation" ]'
check_shrunk ties "$ties" 1 8
check_shrunk padding "$padding" 1 8
check_shrunk dilation "$dilation" 1 8
run report --db "$db" -o "$tmp/r.html"
for f in ties padding dilation; do
    eval "number=\$$f"
    check "the_${f}_card_has_a_drawing" card_has_drawing "$number"
done

rm -f "$db"*
run run --backend "plugin:$example,bug=ties,bug=padding,bug=crash" --types FLOAT32 \
    --cases 10000 --seed 1 --db "$db"
cp "$tmp/out" "$tmp/run.out"
check "ties_padding_crash_are_three_judged_families ($(judged_families))" \
    eval '[ "$(judged_families)" = 3 ]'
crash=$(family_number 'crash any operator')
check_shrunk crash "$crash" 2000 2010

run run --backend "plugin:$example,bug=dilation" --types FLOAT32 --cases 10000 --seed 1 \
    --shrink-budget 0 --db "$tmp/dilation.sqlite"
cp "$tmp/out" "$tmp/run.out"
check "bug_dilation_alone_is_one_family_needing_a_dilated_window" \
    eval 'rc_is 1 && [ "$(judged_families)" = 1 ] && grep -q "^  family 1: fail .*only dilated window yes" "$tmp/run.out"'
finish
