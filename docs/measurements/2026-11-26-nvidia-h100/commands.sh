#!/bin/bash
# dmlcheck's OpenCL backend on NVIDIA's OpenCL driver. Outputs under $OUT.
export LD_LIBRARY_PATH=$PWD/.devrun/lib
B=$PWD/.devrun/bin
export DMLCHECK_CL_CACHE_DIR=/tmp/clcache
exec > >(tee $OUT/log.txt) 2>&1
echo "== host"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc
lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
[ -n "$lib" ] || lib=$(find / -xdev -name 'libnvidia-opencl.so.1*' 2>/dev/null | head -1)
[ -n "$lib" ] || lib=$(find /usr/local/nvidia /usr/lib -name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
echo "driver library: ${lib:-NONE}"; [ -n "$lib" ] || { ls /usr/local/nvidia/lib* 2>&1 | head -50; exit 3; }
ls /etc/OpenCL/vendors 2>/dev/null
mkdir -p /etc/OpenCL/vendors /tmp/icd; echo "$lib" > /tmp/icd/nvidia.icd; cp /tmp/icd/nvidia.icd /etc/OpenCL/vendors/
export OCL_ICD_VENDORS=/tmp/icd
echo "== devices"; timeout 60 $B/dmlcheck devices || { echo "devices failed"; OCL_ICD_DEBUG=7 timeout 60 $B/dmlcheck devices; exit 4; }
echo "== corpus"; time timeout 120 $B/test_cl_corpus corpus/conformance > $OUT/corpus.tap 2>&1; echo "rc=$?"; grep -c '^ok' $OUT/corpus.tap; grep '^not ok' $OUT/corpus.tap | head -20; tail -3 $OUT/corpus.tap
echo "== diff"; time timeout 150 $B/test_cl_diff --count 20000 > $OUT/diff.tap 2>&1; echo "rc=$?"; grep -c '^ok' $OUT/diff.tap; grep -A3 '^not ok' $OUT/diff.tap | head -40; tail -3 $OUT/diff.tap
echo "== determinism"; time timeout 120 $B/test_cl_determinism > $OUT/determinism.tap 2>&1; echo "rc=$?"; grep '^not ok' $OUT/determinism.tap | head; tail -2 $OUT/determinism.tap
echo "== guard"; time timeout 90 $B/test_cl_guard > $OUT/guard.tap 2>&1; echo "rc=$?"; grep '^not ok' $OUT/guard.tap | head; tail -2 $OUT/guard.tap
echo "== run"; time timeout 240 $B/dmlcheck run --backend opencl --seed 2026 --time 90 --jobs 8 --db $OUT/gpu.sqlite; echo "rc=$?"
timeout 60 $B/dmlcheck report --db $OUT/gpu.sqlite --format md -o $OUT/report.md; echo "report rc=$?"
echo "== bench"; time timeout 120 $B/dmlcheck bench --backend opencl --repeat 3; echo "rc=$?"
echo "== bench reference"; time timeout 60 $B/dmlcheck bench --repeat 3; echo "rc=$?"
