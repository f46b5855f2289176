#!/bin/sh
# claims.sh: claims per operator and data type (issue 20).  The example plug-in claims ARGMIN
# and ARGMAX on FLOAT32 and INT32, MAX_POOLING1 and MAX_POOLING2 on FLOAT32 (ABI 1.1):
#   - a default run (go on until a verdict) is CONFORMANT for what it claims, in one line from
#     `run` and in the report, while each level's strict verdict stays what it is;
#   - a case beyond the claims is a skip that names the claim it lacks;
#   - the same plug-in with bug=ties fails, the report naming the family;
#   - without=MAX_POOLING1 (ARGMIN/ARGMAX on FLOAT32 and INT32, MAX_POOLING2 on FLOAT32: issue
#     20's partial implementation) is conformant for that; with bug=padding it fails, named;
#   - JUnit of two seeds has the same testcase names, none twice, valid against junit.xsd,
#     no testcase for cells only must-reject descriptors hit, real times.
# Usage: claims.sh DMLCHECK EXAMPLE_SO JUNIT_XSD.  Prints TAP.
set -u
dmlcheck=$1 example=$2 xsd=$3
. "$(dirname "$0")/../lib/cli_tap.sh"
claimed="CONFORMANT for what it claims: ARGMIN, ARGMAX on FLOAT32, INT32; MAX_POOLING2, MAX_POOLING1 on FLOAT32"
have_sqlite=$(command -v sqlite3 || true)
have_xmllint=$(command -v xmllint || true)

run run --backend "plugin:$example" --seed 1 --db "$tmp/ok.sqlite"
check "default_run_passes" rc_is 0
check "run_says_conformant_for_its_claims" out_has "$claimed"
run report --db "$tmp/ok.sqlite" --summary
check "summary_verdict_line_names_the_claims" \
    out_has '**Verdict:** CONFORMANT for what it claims: ARGMIN, ARGMAX on FLOAT32, INT32; MAX\_POOLING2, MAX\_POOLING1 on FLOAT32'
check "levels_conformant_for_their_claims" out_has "| 3_0 | **CONFORMANT FOR ITS CLAIMS** |"
check "claims_in_the_provenance" eval "\"$dmlcheck\" report --db '$tmp/ok.sqlite' | grep -qF '| claims | ARGMIN, ARGMAX on FLOAT32, INT32;'"
# The heat map: a square no level allows is blank, never grey "too few cases"; a square
# beyond the claims is "not claimed".
"$dmlcheck" report --db "$tmp/ok.sqlite" --format html -o "$tmp/ok.html" >/dev/null 2>&1
check "heat_map_no_grey_square" eval '! grep -q "<rect [^>]*fill=\"#d0d7de\"" "$tmp/ok.html"'
check "heat_map_no_row_no_level_allows" eval '! grep -q ">f64</text>" "$tmp/ok.html"'
check "heat_map_marks_unclaimed" eval 'grep -q "FL 3_0: not claimed" "$tmp/ok.html"'
check "html_lead_names_the_claims" eval 'grep -qF "<b>CONFORMANT for what it claims: ARGMIN, ARGMAX on FLOAT32, INT32;" "$tmp/ok.html"'
if [ -n "$have_sqlite" ]; then
    check "skip_names_the_missing_claim" eval "[ \$(sqlite3 '$tmp/ok.sqlite' \"SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.op = 'MAX_POOLING2' AND c.input_type = 'FLOAT16' AND r.detail = 'the plug-in does not claim FLOAT16 for MAX_POOLING2'\") -gt 0 ]"
    check "int32_argmax_is_run" eval "[ \$(sqlite3 '$tmp/ok.sqlite' \"SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.op = 'ARGMAX' AND c.input_type = 'INT32' AND r.verdict = 'pass'\") -ge 20 ]"
else
    skip "skip_names_the_missing_claim" "no sqlite3"
    skip "int32_argmax_is_run" "no sqlite3"
fi

run run --backend "plugin:$example,bug=ties" --seed 1 --cases 5000 --shrink-budget 0 --db "$tmp/bug.sqlite"
check "planted_bug_fails" eval 'rc_is 1 && ! out_has "CONFORMANT for what it claims"'
run report --db "$tmp/bug.sqlite" --summary
check "planted_bug_report_names_it" eval 'out_has "3_0 NOT CONFORMANT" && out_has "| 1 | FAIL | ARGMIN/ARGMAX | tie\_direction\_flipped |"'

# Issue 20's partial implementation: ARGMIN/ARGMAX on FLOAT32 and INT32, MAX_POOLING2 on
# FLOAT32 and nothing else (without=MAX_POOLING1): conformant for that in a default run; the
# same with a planted bug fails naming it.
run run --backend "plugin:$example,without=MAX_POOLING1" --seed 4 --db "$tmp/partial.sqlite"
check "partial_default_run_conformant_for_its_claims" eval 'rc_is 0 && out_has "CONFORMANT for what it claims: ARGMIN, ARGMAX on FLOAT32, INT32; MAX_POOLING2 on FLOAT32"'
run run --backend "plugin:$example,without=MAX_POOLING1,bug=padding" --seed 4 --db "$tmp/partial_bug.sqlite"
check "partial_with_planted_bug_fails" eval 'rc_is 1 && ! out_has "CONFORMANT for what it claims"'
run report --db "$tmp/partial_bug.sqlite" --summary
check "partial_with_planted_bug_report_names_it" out_has "| FAIL | MAX\\_POOLING2/MAX\\_POOLING1 | padding\\_as\\_zero\\_value |"
run run --backend "plugin:$example,without=MAX_POOLING3" --cases 3 --db "$tmp/bad.sqlite"
check "unknown_operator_left_out_is_refused" eval 'rc_is 2 && err_has "unknown operator in '"'"'without=MAX_POOLING3'"'"'"'

# JUnit: the same testcase names for two seeds, none twice, valid.
for seed in 2 3; do
    "$dmlcheck" run --backend "plugin:$example" --seed $seed --cases 3000 --db "$tmp/j$seed.sqlite" >/dev/null 2>&1
    "$dmlcheck" report --db "$tmp/j$seed.sqlite" --format junit -o "$tmp/j$seed.xml" >/dev/null 2>&1
    sed -n 's/.*<testcase name="\([^"]*\)".*/\1/p' "$tmp/j$seed.xml" >"$tmp/names$seed"
done
check "junit_has_testcases" eval '[ $(wc -l <"$tmp/names2") -gt 100 ]'
check "junit_names_unique" eval '[ -z "$(sort "$tmp/names2" | uniq -d)" ] && [ -z "$(sort "$tmp/names3" | uniq -d)" ]'
check "junit_same_names_for_two_seeds" eval 'sort "$tmp/names2" >"$tmp/s2" && sort "$tmp/names3" >"$tmp/s3" && cmp -s "$tmp/s2" "$tmp/s3"'
check "junit_no_testcase_for_must_reject_cells" eval '! grep -q "f64" "$tmp/names2" && grep -q "^fl_3_0_must_reject$" "$tmp/names2"'
check "junit_times_are_real" eval 'grep -q "<testcase name=\"fl_3_0_argmax_f32_u32\"[^>]* time=\"0\.0*[1-9]" "$tmp/j2.xml"'
if [ -n "$have_xmllint" ]; then
    check "junit_valid" eval "xmllint --noout --schema '$xsd' '$tmp/j2.xml' '$tmp/j3.xml' 2>/dev/null"
else
    skip "junit_valid" "no xmllint"
fi
# A library named without a slash: dlopen's message, and how to name it here.
run run --backend plugin:libdmlcheck_no_such_plugin.so --cases 1 --db "$tmp/none.sqlite"
check "plugin_without_slash_says_use_dot_slash" \
    eval 'rc_is 2 && err_has "write ./libdmlcheck_no_such_plugin.so or an absolute path"'
finish
