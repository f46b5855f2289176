#!/bin/sh
# cold_cache.sh: a run that starts on empty kernel caches (PoCL's POCL_CACHE_DIR and the
# backend's DMLCHECK_CL_CACHE_DIR) is not charged for the driver's compiler: the OpenCL
# plug-in compiles every kernel while it opens (the open has its own, long time limit), so
# with a --case-timeout shorter than one compile the first cases are not `hang`; and what it
# compiled stays on disk, so the next worker (a restart, or the next run) opens fast.
# TAP; a missing OpenCL platform skips.  Usage: cold_cache.sh DMLCHECK
set -u
dmlcheck=$1
. "$(dirname "$0")/../lib/cli_tap.sh"
skip_all_unless "no OpenCL device" "$dmlcheck" devices
export POCL_CACHE_DIR="$tmp/pocl" DMLCHECK_CL_CACHE_DIR="$tmp/dmlcheck"
mkdir -p "$POCL_CACHE_DIR" "$DMLCHECK_CL_CACHE_DIR"

# One PoCL compile takes 0.4-4 s on this 2-core machine; a small case runs in well under a
# millisecond, so 300 ms is a limit only a compile inside the case breaks.
cold_run() {
    run run --backend opencl --cases 64 --max-elements 4096 --seed "$1" --case-timeout 300 \
        --shrink-budget 0 --db "$tmp/db$1.sqlite"
}
cold_run 1
check cold_cache_first_cases_are_not_hang eval '! all_has "kind=hang"'
check cold_cache_run_passes rc_is 0
# The compiled kernels were kept: a second run on the same caches is not hang either.
cold_run 2
check warm_cache_next_run_is_not_hang eval '! all_has "kind=hang" && rc_is 0'
finish
