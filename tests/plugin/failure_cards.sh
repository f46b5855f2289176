#!/bin/sh
# failure_cards.sh: the example plug-in with planted bugs (bug=ties, then bug=padding, into
# one database) gives families whose shrunk cases the HTML report draws:
#   - every shrunk family's card holds an SVG drawing;
#   - the tie family's marks are the right cells: the expected ring on the input element
#     `dmlcheck exec` of the exported case names at the expected index, the returned ring on
#     the one at the returned index (an independent reading of the same case);
#   - the padding family's drawing hatches padding;
#   - the Markdown report carries the text drawing;
#   - export --out writes one file per family and never overwrites one.
# Usage: failure_cards.sh DMLCHECK EXAMPLE_SO.  Prints TAP.
set -u
dmlcheck=$1 example=$2
. "$(dirname "$0")/../lib/cli_tap.sh"

db=$tmp/db.sqlite
for bug in ties padding; do
    run run --backend "plugin:$example,bug=$bug" --types FLOAT32 --cases 2000 --seed 11 --db "$db"
done
run report --db "$db" --all -o "$tmp/r.html"
html=$tmp/r.html
cards=$(grep -c '<div class="failure"' "$html")
drawings=$(grep -c '<svg xmlns="http://www.w3.org/2000/svg" class="drawing"' "$html")
# Two planted bugs: a family (a card) per root cause, each with its drawing.
check "every_shrunk_family_has_a_card_with_a_drawing" sh -c "[ '$cards' -ge 2 ] && [ '$cards' = '$drawings' ]"

run export --out "$tmp/fam" --all --db "$db"
check "export_out_writes_each_family" sh -c "[ \$(ls '$tmp/fam' | wc -l) = '$cards' ] && ls '$tmp/fam' | grep -qx 'family-0[0-9]-tie_other_way.json'"
tie=$(ls "$tmp/fam"/family-*-tie_other_way.json | head -n 1)
number=$(basename "$tie" | sed 's/^family-0*\([0-9]*\)-.*/\1/')
cp "$tie" "$tmp/tie.json"
echo "{}" > "$tie"
run export --out "$tmp/fam" --all --db "$db"
check "export_out_never_overwrites" sh -c "[ \$(cat '$tmp/rc') = 2 ] && grep -q 'never overwrites' '$tmp/err' && [ \"\$(cat '$tie')\" = '{}' ]"

# What the plug-in answers at the shrunk tie case, read by exec: "(flat N)" at each index.
run exec --backend "plugin:$example,bug=ties" "$tmp/tie.json"
want_expected=$(cat "$tmp/out" "$tmp/err" | grep "input at the expected index" | sed 's/.*(flat \([0-9]*\)).*/\1/')
want_returned=$(cat "$tmp/out" "$tmp/err" | grep "input at the returned index" | sed 's/.*(flat \([0-9]*\)).*/\1/')
card=$(sed -n "/<div class=\"failure\" id=\"family-$number\">/,/<\/div>/p" "$html")
got_expected=$(printf '%s\n' "$card" | sed -n 's/.*class="mark expected" data-input="\([0-9]*\)".*/\1/p')
got_returned=$(printf '%s\n' "$card" | sed -n 's/.*class="mark returned" data-input="\([0-9]*\)".*/\1/p')
check "tie_drawing_rings_the_expected_element ($got_expected, exec says $want_expected)" \
    sh -c "[ -n '$want_expected' ] && [ '$got_expected' = '$want_expected' ]"
check "tie_drawing_rings_the_returned_element ($got_returned, exec says $want_returned)" \
    sh -c "[ -n '$want_returned' ] && [ '$got_returned' = '$want_returned' ] && [ '$want_returned' != '$want_expected' ]"

pad=$(ls "$tmp/fam"/family-*-padding_selected.json | head -n 1)
pad_number=$(basename "$pad" | sed 's/^family-0*\([0-9]*\)-.*/\1/')
pad_card=$(sed -n "/<div class=\"failure\" id=\"family-$pad_number\">/,/<\/div>/p" "$html")
check "padding_drawing_hatches_padding" sh -c "printf '%s' '$(printf '%s' "$pad_card" | grep -c "hatch)")' | grep -qv '^0$'"

run report --db "$db" --all --format md
check "markdown_has_the_text_drawing" sh -c "grep -q '^(x) expected  <x> returned' '$tmp/out' && grep -q 'dmlcheck exec --backend' '$tmp/out'"
finish
