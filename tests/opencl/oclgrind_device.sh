#!/bin/sh
# oclgrind_device.sh: Oclgrind as a run device (`--device oclgrind`, backends/opencl/cl_oclgrind.h).
#   1. A few hundred generated cases on Oclgrind, with its invalid-access, data-race and
#      uninitialised-read checks on, pass: the kernels make no access Oclgrind objects to.
#   2. The same kernels with a planted read of the byte just past the device buffer (the
#      test-only build option -DDMLCHECK_FAULT_READ_PAST_ARENA, loaded as a plug-in with
#      build_options=...) fail every case they run as invalid_access, with Oclgrind's first
#      line as the detail and a replay line that reproduces it.
#   3. On the default device (no checks) the planted read changes nothing: every case passes.
# TAP; skipped where Oclgrind is not installed (Debian package oclgrind, .ci/install-deps.sh).
# Usage: oclgrind_device.sh DMLCHECK LIBDMLCHECK_OPENCL_SO
set -u
dmlcheck=$1 lib=$2
. "$(dirname "$0")/../lib/cli_tap.sh"
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "1..0 # SKIP Oclgrind is not installed (Debian package oclgrind)"
    exit 0
fi
# Small cases: Oclgrind simulates every work-item one by one.
cases="--max-elements 64 --seed 2026"
planted="plugin:$lib,build_options=-DDMLCHECK_FAULT_READ_PAST_ARENA"

run devices --device oclgrind
check oclgrind_device_listed eval 'rc_is 0 && out_has "Oclgrind Simulator"'

run run --backend opencl --device oclgrind --cases 300 $cases --db "$tmp/clean.sqlite"
check oclgrind_clean_kernels_pass eval 'rc_is 0 && ! out_has "fail kind="'
run report --db "$tmp/clean.sqlite" --format md
check oclgrind_clean_run_ran_on_oclgrind out_has "| platform | Oclgrind |"

run run --backend "$planted" --device oclgrind --cases 40 $cases --db "$tmp/planted.sqlite"
cp "$tmp/out" "$tmp/planted.out"
check oclgrind_planted_read_fails_exit_1 rc_is 1
check oclgrind_planted_read_is_invalid_access \
    out_has "fail: invalid_access: Oclgrind: Invalid read of size 1 at global memory address"
check oclgrind_planted_read_every_signature_invalid_access eval \
    'grep -qE "^(new-)?signature " "$tmp/out" &&
     ! grep -E "^(new-)?signature " "$tmp/out" | grep -vq "kind=invalid_access"'
check oclgrind_planted_read_no_case_passes eval \
    'grep -q "^feature-level .* fail=[1-9]" "$tmp/out" && ! grep -q "^feature-level .* pass=[1-9]" "$tmp/out"'
replay=$(grep -m1 '^  replay: dmlcheck replay ' "$tmp/planted.out" | sed 's/^  replay: dmlcheck //')
check oclgrind_planted_read_replay_line_names_device eval \
    'case "$replay" in *"--device oclgrind"*) true ;; *) false ;; esac'
eval "run $replay"
check oclgrind_planted_read_replays_as_invalid_access eval \
    'rc_is 1 && out_has "verdict: fail: invalid_access: Oclgrind: Invalid read"'

if "$dmlcheck" devices >/dev/null 2>&1; then
    run run --backend "$planted" --cases 100 $cases --db "$tmp/default.sqlite"
    check planted_read_invisible_on_default_device eval 'rc_is 0 && ! out_has "fail kind="'
else
    skip planted_read_invisible_on_default_device "no other OpenCL device"
fi
finish
