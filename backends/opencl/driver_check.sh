#!/bin/bash
# Checks an OpenCL driver with dmlcheck's backend: the device's facts, the conformance corpus,
# a batched differential set, the split-reduction determinism and guard tests, a long
# differential run against the reference on every core, its report, and `bench`.
# Everything it prints also goes to OUT/log.txt; the TAP files and the database stay in OUT.
#
#   backends/opencl/driver_check.sh BUILD OUT [RUN_SECONDS] [JOBS]
#
# BUILD is a build folder (or a flat folder holding dmlcheck and the test_cl_* programs);
# RUN_SECONDS (default 90) is each shard's time in the differential run, JOBS (default: one
# per online CPU, at most 8) its shard processes.  Select the device with
# DMLCHECK_TEST_DEVICE (tests) and DMLCHECK_DEVICE (run), as `--device` takes it; bench
# times the default device (the first GPU, else the first device).
# Exit status: 0 when every step passed, 1 when one failed (each is named), 2 on usage.
set -u
if [ $# -lt 2 ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
build=$1 out=$2 seconds=${3:-90}
jobs=${4:-$(n=$(nproc); [ "$n" -gt 8 ] && n=8; echo "$n")}
corpus=$(cd "$(dirname "$0")/../../corpus/conformance" && pwd)
mkdir -p "$out" || exit 2
exec > >(tee "$out/log.txt") 2>&1

find_program() {
    for candidate in "$build/$1" "$build/tests/opencl/$1"; do
        [ -x "$candidate" ] && { echo "$candidate"; return 0; }
    done
    echo "driver_check: no $1 under $build" >&2
    return 1
}
dmlcheck=$(find_program dmlcheck) || exit 2
device_args=()
[ -n "${DMLCHECK_DEVICE:-}" ] && device_args=(--device "$DMLCHECK_DEVICE")
failed=()

step() {   # step NAME TIMEOUT COMMAND...: runs it, times it, remembers a failure
    local name=$1 limit=$2 start rc
    shift 2
    echo "== $name"
    start=$(date +%s%N)
    timeout "$limit" "$@"
    rc=$?
    echo "$name: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms"
    [ "$rc" -eq 0 ] || failed+=("$name (exit $rc)")
}

tap_step() {   # tap_step NAME TIMEOUT PROGRAM ARGS...: a TAP test into OUT/NAME.tap
    local name=$1 limit=$2 program
    program=$(find_program "$3") || { failed+=("$name (not built)"); return; }
    shift 3
    # shellcheck disable=SC2016  # $0 and $@ are the inner shell's
    step "$name" "$limit" sh -c '"$@" > "$0"' "$out/$name.tap" "$program" "$@"
    grep -c '^ok' "$out/$name.tap" | sed 's/$/ ok/'
    grep -A4 '^not ok' "$out/$name.tap" | head -40
}

step devices 120 "$dmlcheck" devices
tap_step corpus 300 test_cl_corpus "$corpus"
tap_step diff 300 test_cl_diff --count 20000
tap_step determinism 300 test_cl_determinism
tap_step guard 300 test_cl_guard
rm -f "$out/run.sqlite"
step run $((seconds * 3 + 120)) "$dmlcheck" run --backend opencl "${device_args[@]}" --seed 2026 \
    --time "$seconds" --jobs "$jobs" --db "$out/run.sqlite"
step report 600 "$dmlcheck" report --db "$out/run.sqlite" -o "$out/report.md"
step bench 300 "$dmlcheck" bench --backend opencl --repeat 3
step bench_reference 120 "$dmlcheck" bench --repeat 3

if [ ${#failed[@]} -gt 0 ]; then
    printf 'driver_check: FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "driver_check: every step passed"
