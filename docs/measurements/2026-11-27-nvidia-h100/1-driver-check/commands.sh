#!/bin/bash
# dmlcheck's OpenCL backend on NVIDIA's OpenCL driver, main at 92a0594 (binaries from build/) (generator v5,
# diagnosis by probing). Outputs under $OUT.
export LD_LIBRARY_PATH=$PWD/.devrun/lib
B=$PWD/.devrun/bin
export DMLCHECK_CL_CACHE_DIR=/tmp/clcache
exec > >(tee $OUT/host.txt) 2>&1
echo "== host"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc
lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
[ -n "$lib" ] || lib=$(find /usr/local/nvidia /usr/lib -name 'libnvidia-opencl.so.1*' 2>/dev/null | head -1)
echo "driver library: ${lib:-NONE}"; [ -n "$lib" ] || exit 3
mkdir -p /etc/OpenCL/vendors /tmp/icd; echo "$lib" > /tmp/icd/nvidia.icd; cp /tmp/icd/nvidia.icd /etc/OpenCL/vendors/
export OCL_ICD_VENDORS=/tmp/icd
$B/dmlcheck --version
backends/opencl/driver_check.sh .devrun/bin $OUT/check 30 8; echo "driver_check rc=$?"
mkdir -p $OUT/seeds
echo "== fresh seeds, generator v5"
for s in 101 102 103 104 105 106; do
  start=$(date +%s%N)
  timeout 100 $B/dmlcheck run --backend opencl --seed $s --cases 20000 --jobs 8 --db $OUT/seeds/s$s.sqlite > $OUT/seeds/s$s.txt 2>&1
  rc=$?; echo "seed $s: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms"; grep -E "^summary|^feature-level|^signatures|^diagnos|^probe" $OUT/seeds/s$s.txt | head -9
done
tar czf $OUT/all.tgz -C $OUT --exclude='*.sqlite' check seeds && rm -rf $OUT/check $OUT/seeds
ls -la $OUT
