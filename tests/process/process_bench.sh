#!/bin/sh
# process_bench.sh: cases per second through the out-of-process protocol, default-size cases
# (`dmlcheck run`, default --max-elements), next to the in-tree reference backend:
#   - the echo adapter (tests/process/echo_adapter.py: zero-filled replies, so nearly every
#     case fails; --shrink-budget 0 keeps shrinking out of the figure), strided and packed;
#   - the numpy adapter, strided and packed (skipped without numpy).
# A benchmark, not a test: `meson benchmark -C build` or
#   sh tests/process/process_bench.sh build/dmlcheck . [CASES]
# The protocol target (issue 10) is >= 5,000 cases/s for the echo adapter.
set -u
dmlcheck=$1 src=$2 cases=${3:-20000}
. "$(dirname "$0")/../lib/bench_rate.sh"
py=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import numpy' >/dev/null 2>&1; then py=$p; break; fi
done

bench() { # bench LABEL BACKEND
    r=$(rate "$2")
    printf '%-28s %8s cases/s   (%s)\n' "$1" "${r:-?}" "$2"
}

echo "dmlcheck run --cases $cases --seed 1 --shrink-budget 0, default-size cases"
bench "reference (in process)" reference
bench "echo adapter, strided" "process:${py:-python3} $src/tests/process/echo_adapter.py"
bench "echo adapter, packed" "process:${py:-python3} $src/tests/process/echo_adapter.py --layout packed"
if [ -n "$py" ]; then
    bench "numpy adapter, strided" "process:$py $src/adapters/numpy/numpy_adapter.py"
    bench "numpy adapter, packed" "process:$py $src/adapters/numpy/numpy_adapter.py --layout packed"
else
    echo "numpy adapter: skipped (no python3 with numpy)"
fi
