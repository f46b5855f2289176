#!/bin/sh
# memory_cli.sh: an allocation that fails (here under `ulimit -v`) ends `run` with exit 2 and
# a message naming the case and what could not be allocated, with the run stored as 'error'
# and every case checked before it kept; `exec` names what and how big and goes on to the
# next file.  docs/USAGE.md "Memory per case".
#   - run --seed 1 --cases 11499: case g5:1:11498 is the first of the huge size tier (1.4e6
#     elements of MAX_POOLING2, whose reference asks for 11 MB of scratch); 40 MB of address
#     space fits every case before it and not that one;
#   - exec: an ARGMAX case whose output buffer is declared 10^9 bytes (TotalTensorSizeInBytes)
#     cannot get its reference outputs under 300 MB.
# Usage: memory_cli.sh DMLCHECK SQLITE3_OR_EMPTY CORPUS_DIR.  Prints TAP.
set -u
dmlcheck=$1 sqlite=$2 corpus=$3
. "$(dirname "$0")/../lib/cli_tap.sh"
. "$(dirname "$0")/../lib/memory_limit.sh"
skip_unless_starts_under 40000 run --backend reference --cases 10 --seed 1 --db "$tmp/probe.sqlite"

limited 40000 run --backend reference --cases 11499 --seed 1 --shrink-budget 0 --db "$tmp/db.sqlite"
check run_out_of_memory_exits_2 rc_is 2
check run_out_of_memory_names_the_case err_has "dmlcheck run: case g5:1:11498: "
check run_out_of_memory_says_what_ran_out err_has "out of memory"
if [ -n "$sqlite" ]; then
    check run_out_of_memory_is_stored_as_error \
        eval '[ "$("$sqlite" "$tmp/db.sqlite" "SELECT status FROM runs")" = error ]'
    check run_out_of_memory_keeps_the_cases_checked_before \
        eval '[ "$("$sqlite" "$tmp/db.sqlite" "SELECT count(*) FROM cases")" -ge 10000 ]'
else
    skip run_out_of_memory_is_stored_as_error "no sqlite3"
    skip run_out_of_memory_keeps_the_cases_checked_before "no sqlite3"
fi

big=$tmp/argmax_huge_output.json
printf '{"op": "ARGMAX", "feature_level": "4_1", "InputTensor": {"DataType": "FLOAT32", "Sizes": [3, 3]},
 "OutputTensor": {"DataType": "UINT32", "Sizes": [1, 3], "TotalTensorSizeInBytes": 1000000000},
 "Axes": [0], "AxisDirection": "INCREASING", "input": [1, 2, 3, 3, 0, 4, 2, 5, 2]}\n' >"$big"
one=$corpus/argmax/argmax_spec_example1_columns.json
limited 300000 exec --backend reference "$big" "$one"
check exec_out_of_memory_names_what_and_how_big \
    err_has "$big: not checked: out of memory: cannot allocate the reference outputs, 1000000000 bytes"
check exec_out_of_memory_exits_2_and_runs_the_next_file \
    eval 'rc_is 2 && out_has "\"result\": \"agree\""'
finish
