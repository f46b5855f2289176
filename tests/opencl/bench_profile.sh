#!/bin/sh
# bench_profile.sh: `dmlcheck bench --backend opencl` judges the whole call against the kernels
# alone (goal 2x) and accounts for where the rest went (issue 22, item 5b): the phases of the
# best run add up to that run's whole time, the gap names as many passes over the input as the
# phases do, and the plain transfers of the input's size are measured.  TAP; a missing OpenCL
# platform skips.
# Usage: bench_profile.sh DMLCHECK
set -u
dmlcheck=$1
. "$(dirname "$0")/../lib/cli_tap.sh"
skip_all_unless "no OpenCL device" "$dmlcheck" devices
# ARGMAX float16 {256,65536}: 16,777,216 elements, 32 MiB of input.
run bench --backend opencl --repeat 1 --scenario argmax_f16_inner
check bench_exits_0 rc_is 0
check judges_whole_over_kernels eval 'grep -Eq "^argmax_f16_inner +whole call / kernels alone: [0-9.]+x, goal <= 2x: (met|MISSED, gap: [0-9]+ passes over the input outside the kernels costing [0-9.]+ ms)$" "$tmp/out"'
phases_add_up() {
    awk '$1 == "argmax_f16_inner" && $2 == "opencl" { whole = $3 * 16777216 / 1e6 }
         /^    / && !/plain/ { for (i = 2; i <= NF; i++) if ($i == "ms") { sum += $(i - 1); break } }
         END { printf "# whole %.3f ms, phases %.3f ms\n", whole, sum
               exit !(whole > 0 && sum >= 0.8 * whole && sum <= 1.05 * whole) }' "$tmp/out"
}
check phases_add_up_to_the_whole_call phases_add_up
gap_counts_the_phases() {
    grep -q "goal <= 2x: met" "$tmp/out" && return 0
    awk '/MISSED, gap:/ { for (i = 1; i <= NF; i++) if ($i == "gap:") gap = $(i + 1) }
         /^    / && !/device: kernels/ { for (i = 1; i <= NF; i++) if ($i ~ /^pass(es)?,$/) passes += $(i - 1) }
         END { printf "# gap names %d passes, the phases %d\n", gap, passes; exit !(gap > 0 && gap == passes) }' "$tmp/out"
}
check gap_counts_the_phases gap_counts_the_phases
check measures_plain_transfers eval 'grep -Eq "^    plain copies of the input.s 32 MiB: to the device [0-9.]+ GB/s, back [0-9.]+ GB/s" "$tmp/out"'
finish
