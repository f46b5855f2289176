#!/bin/bash
# dmlcheck's OpenCL shell tests that had only met PoCL and Oclgrind, on NVIDIA's OpenCL
# driver, and the size tiers' cost on a real GPU (gen_size_tiers_cost).  Outputs under $OUT.
export LD_LIBRARY_PATH=$PWD/.devrun/lib
B=$PWD/.devrun/bin
export DMLCHECK_CL_CACHE_DIR=/tmp/clcache
exec > >(tee $OUT/log.txt) 2>&1
lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
[ -n "$lib" ] || lib=$(find /usr/local/nvidia /usr/lib -name 'libnvidia-opencl.so.1*' 2>/dev/null | head -1)
echo "driver library: ${lib:-NONE}"; [ -n "$lib" ] || exit 3
mkdir -p /etc/OpenCL/vendors /tmp/icd; echo "$lib" > /tmp/icd/nvidia.icd; cp /tmp/icd/nvidia.icd /etc/OpenCL/vendors/
export OCL_ICD_VENDORS=/tmp/icd
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
t() { local name=$1 s; shift; echo "== $name"; s=$(date +%s%N); timeout 280 "$@" > /tmp/$name.tap 2>&1; echo "$name: exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms, $(grep -c '^ok' /tmp/$name.tap) ok"; grep -A6 '^not ok' /tmp/$name.tap | head -30; grep '^1\.\.' /tmp/$name.tap; }
t cache $B/test_cl_cache
t as_plugin sh tests/opencl/as_plugin.sh $B/dmlcheck $B/libdmlcheck_opencl.so corpus/conformance
t cold_cache sh tests/opencl/cold_cache.sh $B/dmlcheck
t memory_limit sh tests/opencl/memory_limit.sh $B/dmlcheck
t bench_profile sh tests/opencl/bench_profile.sh $B/dmlcheck
echo "== tiers (twice)"
for i in 1 2; do timeout 200 sh tests/runner/bench_tiers.sh $B/dmlcheck 20000; done
tar czf $OUT/taps.tgz -C /tmp cache.tap as_plugin.tap cold_cache.tap memory_limit.tap bench_profile.tap
