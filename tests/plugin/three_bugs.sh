#!/bin/sh
# three_bugs.sh: one bug, one row (issue 11).  The example plug-in with three planted bugs in
# one run (bug=ties, bug=padding, bug=crash; 10,000 FLOAT32 cases) gives three judged
# families, not the signatures' hundreds: the tie rule applied the other way (ARGMIN/ARGMAX),
# zero padding that wins (pooling; its +0s that a real +0 could also have been join it through
# results.also_kinds), and a crash (one family across operators).  Each is shrunk: the two
# value bugs to cases of a few elements whose cards in the HTML report hold a drawing, the
# crash to the 2,000 input elements it needs (a crash leaves no output to draw).  A fourth
# bug alone, bug=dilation (pooling windows read undilated), is at most two families, each
# saying it needs a dilated window.
# Usage: three_bugs.sh DMLCHECK EXAMPLE_SO.  Prints TAP.
set -u
dmlcheck=$1 example=$2
. "$(dirname "$0")/../lib/cli_tap.sh"

judged_families() { grep -c '^  family [0-9]*: fail ' "$tmp/out"; }
family_number() { sed -n "s|^  family \([0-9]*\): fail $1,.*|\1|p" "$tmp/run.out" | head -n 1; }
# Input elements of a case file: the product of InputTensor.Sizes.
elements_of() {
    python3 -c 'import json, sys; n = 1
for s in json.load(open(sys.argv[1]))["InputTensor"]["Sizes"]: n *= s
print(n)' "$1"
}

db=$tmp/db.sqlite
run run --backend "plugin:$example,bug=ties,bug=padding,bug=crash" --types FLOAT32 --cases 10000 \
    --seed 1 --db "$db"
cp "$tmp/out" "$tmp/run.out"
check "three_bugs_fail_the_run" rc_is 1
check "three_bugs_are_three_judged_families ($(judged_families))" eval '[ "$(judged_families)" = 3 ]'
ties=$(family_number 'tie_other_way ARGMIN/ARGMAX')
padding=$(family_number 'padding_selected MAX_POOLING2/MAX_POOLING1')
crash=$(family_number 'crash any operator')
check "the_families_are_ties_padding_and_crash ($ties, $padding, $crash)" \
    eval '[ -n "$ties" ] && [ -n "$padding" ] && [ -n "$crash" ]'

for f in ties padding crash; do
    eval "number=\$$f"
    if [ -z "$number" ]; then
        skip "family_${f}_is_shrunk" "no such family"
        continue
    fi
    "$dmlcheck" export --family "$number" --db "$db" >"$tmp/$f.json" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    size=$(elements_of "$tmp/$f.json" 2>/dev/null)
    case $f in
    crash) check "family_crash_is_shrunk_to_the_2000_elements_it_needs ($size)" \
               eval 'rc_is 0 && [ "$size" -ge 2000 ] && [ "$size" -le 2010 ]' ;;
    *) check "family_${f}_is_shrunk_to_a_few_elements ($size)" \
           eval 'rc_is 0 && [ -n "$size" ] && [ "$size" -le 8 ]' ;;
    esac
done

run report --db "$db" -o "$tmp/r.html"
card_has_drawing() {
    sed -n "/<div class=\"failure\" id=\"family-$1\">/,/<\/div>/p" "$tmp/r.html" \
        | grep -q '<svg xmlns="http://www.w3.org/2000/svg" class="drawing"'
}
check "the_ties_card_has_a_drawing" card_has_drawing "$ties"
check "the_padding_card_has_a_drawing" card_has_drawing "$padding"

run run --backend "plugin:$example,bug=dilation" --types FLOAT32 --cases 10000 --seed 1 \
    --shrink-budget 0 --db "$tmp/dilation.sqlite"
check "bug_dilation_is_at_most_two_families ($(judged_families))" \
    eval 'rc_is 1 && [ "$(judged_families)" -ge 1 ] && [ "$(judged_families)" -le 2 ]'
check "bug_dilation_families_need_a_dilated_window" \
    eval '[ "$(grep "^  family [0-9]*: fail " "$tmp/out" | grep -vc "only dilated window yes")" = 0 ]'
finish
