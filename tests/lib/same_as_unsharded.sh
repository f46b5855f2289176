# same_as_unsharded.sh: the check every sharded deployment's test makes (sourced after
# cli_tap.sh, not run; $dmlcheck and $sqlite set).  `same_as_unsharded PREFIX WHOLE MERGED`
# prints one TAP line per part of the run, PREFIX_<part>_equal_the_unsharded_runs: the merged
# database MERGED holds what the unsharded run's database WHOLE holds, row for row: its cells,
# case ids with their verdicts and kinds, signatures (in id order: merge renumbers them as first
# seen), the runs row, and the families of the Markdown report.
same_as_unsharded() {
    prefix=$1 whole=$2 merged=$3
    for what in \
        "cells:SELECT feature_level, op, input_type, output_type, indices_type, cases, passed, failed, unspecified, skipped, errors FROM verdict_counts ORDER BY 1, 2, 3, 4, 5" \
        "case_ids:SELECT case_id, verdict, ifnull(kind, '') FROM case_list ORDER BY case_id" \
        "signatures:SELECT op, feature_level, input_type, output_type, indices_type, layout, distribution, kind, verdict, count, representative, rep_elements, first_mismatch, replay FROM signatures ORDER BY id" \
        "runs:SELECT cases_done, failures, status, seed, cases_requested FROM runs"; do
        name=${what%%:*} sql=${what#*:}
        "$sqlite" "$whole" "$sql" >"$tmp/a"
        "$sqlite" "$merged" "$sql" >"$tmp/b" 2>&1
        check "${prefix}_${name}_equal_the_unsharded_runs" eval '[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"'
    done
    report_families "$whole" >"$tmp/a"
    report_families "$merged" >"$tmp/b"
    check "${prefix}_families_equal_the_unsharded_runs" eval '[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"'
}

report_families() { # DB: the family rows of its Markdown report
    "$dmlcheck" report --db "$1" --format md | grep '^| [0-9]* | \(FAIL\|differs\) |'
}
