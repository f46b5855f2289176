#!/bin/sh
# memory_limit.sh: the OpenCL backend under memory limits too tight for the driver (issue 23,
# defect 10): PoCL dereferences a failed allocation while loading a program binary under
# `ulimit -v 300000`, and cannot start at all under 200000.  dmlcheck must say so and exit 2,
# never die of the driver's signal; a folder of drivers that none could start is not "no
# platform installed".
# Usage: memory_limit.sh DMLCHECK.  Prints TAP.
set -u
dmlcheck=$1
. "$(dirname "$0")/../lib/cli_tap.sh"
. "$(dirname "$0")/../lib/memory_limit.sh"
skip_unless_starts_under 200000 bench --list
# Once without a limit, so the program binary is cached (the load that crashed PoCL).
"$dmlcheck" bench --backend opencl --repeat 1 --scenario argmax_f32_inner >/dev/null 2>&1

for limit in 200000 300000 400000; do
    limited $limit bench --backend opencl --repeat 1 --scenario argmax_f32_inner
    check "bench_under_${limit}k_exits_0_or_2" eval 'rc_is 0 || rc_is 2'
    check "bench_under_${limit}k_names_why" eval 'rc_is 0 || err_has "dmlcheck bench: "'
done
limited 200000 run --backend opencl --cases 10 --db "$tmp/run.sqlite"
check "run_under_200000k_exits_0_or_2" eval 'rc_is 0 || rc_is 2'
if [ -n "$(ls "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}" 2>/dev/null | grep '\.icd$')" ]; then
    check "run_under_200000k_names_the_driver_that_did_not_start" \
        eval 'rc_is 0 || err_has "no OpenCL platform started although"'
else
    skip "run_under_200000k_names_the_driver_that_did_not_start" "no .icd file installed"
fi
finish
