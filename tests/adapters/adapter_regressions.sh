#!/bin/sh
# adapter_regressions.sh: a library's regression cases (corpus/regressions/<library>/) still show
# its bugs, and still state DirectML's answer: each case file agrees with dmlcheck's reference
# (`dmlcheck exec FILE`) and does not agree through the library's adapter (`exec --backend`:
# its verdict fail, or unspecified for a difference DirectML leaves open).  A case that starts
# to agree through the adapter means the library changed (a fixed bug: update its publication)
# or the adapter's mapping did.  With REPRO_PYTHON and a repro folder, each standalone
# reproduction must exit 1 (the bug present) as well.
# REGRESSION_DIRS is one folder or several joined by ':' (a library with two kernel sets keeps
# the cases both show in one folder and each set's own in another).
# Usage: adapter_regressions.sh DMLCHECK BACKEND REGRESSION_DIRS [REPRO_PYTHON REPRO_DIR].  TAP.
set -u
dmlcheck=$1 backend=$2 dirs=$3 repro_python=${4:-} repro_dir=${5:-}
. "$(dirname "$0")/../lib/cli_tap.sh"

saved_ifs=$IFS
IFS=:
set -- $dirs
IFS=$saved_ifs
for dir in "$@"; do
    for case_file in "$dir"/*.json; do
        if [ ! -f "$case_file" ]; then
            echo "adapter_regressions.sh: no case files (*.json) in $dir" >&2
            exit 2
        fi
        case_name=$(basename "$case_file" .json)
        run exec "$case_file"
        check "$case_name: agrees with the reference" rc_is 0
        run exec --backend "$backend" "$case_file"
        check "$case_name: still differs through the adapter" \
            grep -qE "^$case_file: (fail|unspecified): " "$tmp/err"
    done
done
if [ -n "$repro_dir" ]; then
    for script in "$repro_dir"/*.py; do
        "$repro_python" -W ignore "$script" >"$tmp/out" 2>"$tmp/err"
        echo $? >"$tmp/rc"
        check "$(basename "$script"): exits 1 (the bug is present)" rc_is 1
    done
fi
finish
