#!/bin/sh
# adapter_regressions.sh: every regression case of a library (corpus/regressions/<library>/,
# one per root cause of its publication) still reproduces through its adapter: `dmlcheck exec`
# judges the library against the case file's DirectML answer, and each file must fail (a wrong
# answer or a refusal).  A file that agrees means the library changed: its publication, its
# expectations and the case need a look.  One TAP line per file; one exec, so the library
# starts once.
# Usage: adapter_regressions.sh DMLCHECK BACKEND DIRECTORY.  TAP.
set -u
dmlcheck=$1 backend=$2 dir=$3
. "$(dirname "$0")/../lib/cli_tap.sh"

run exec --backend "$backend" "$dir"/*.json
for file in "$dir"/*.json; do
    check "$(basename "$file"): still differs from DirectML" \
        grep -qF "{\"file\": \"$file\", \"result\": \"fail\"" "$tmp/out"
done
finish
