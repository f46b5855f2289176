#!/usr/bin/env bash
# bench.sh: fuzzing throughput.  Runs each target (or the named ones) as one libFuzzer process
# for a given time, starting from its seed corpus in corpus/fuzz/<target>/ (read-only: new
# inputs go to a scratch directory), with run-fuzzers.sh's engine options, and prints per
# target the executions, exec/s of wall time and exec/s of the process's own CPU time (user +
# system).  The CPU figure is the one to compare: it does not depend on what else the machine
# runs, while the wall figure drops when other processes share the core.  It never fails on
# speed: exit 0 when every target ran, 2 on a usage or setup error or a target that stopped
# early (a finding: its log is printed).
#
#   fuzz/bench.sh [--build DIR] [--time SECONDS] [TARGET...]
#
#   --build DIR   a clang build configured with -Dfuzzing=true (default build-fuzz)
#   --time S      seconds per target (default 30)
#   TARGET        default: fuzz_reference, fuzz_differential (where built)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=engine_options.sh
. "$src/fuzz/engine_options.sh"
build=$src/build-fuzz
seconds=30
targets=()

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --time) seconds=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
    esac
done
case $seconds in
''|*[!0-9]*|0) echo "bench.sh: --time wants a positive number of seconds, not '$seconds'" >&2; exit 2 ;;
esac
if [ ${#targets[@]} -eq 0 ]; then
    for t in fuzz_reference fuzz_differential; do
        [ -x "$build/fuzz/$t" ] && targets+=("$t")
    done
    [ ${#targets[@]} -gt 0 ] ||
        { echo "bench.sh: no fuzz targets in $build/fuzz (configure with CC=clang meson setup $build -Dfuzzing=true)" >&2; exit 2; }
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "bench.sh: $seconds s per target, one process, build $build, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for t in "${targets[@]}"; do
    bin=$build/fuzz/$t
    [ -x "$bin" ] || { echo "bench.sh: no target $bin" >&2; exit 2; }
    # A target that needs libFuzzer (not the replay build) answers -help=1 with its flags.
    "$bin" -help=1 >"$scratch/$t.help" 2>&1 || true
    grep -q -- "-max_total_time" "$scratch/$t.help" ||
        { echo "bench.sh: $bin is not a libFuzzer binary (configure with -Dfuzzing=true)" >&2; exit 2; }
    mkdir -p "$scratch/$t"
    log=$scratch/$t.log
    rc=0
    # The same engine options as run-fuzzers.sh (engine_options.sh).
    # shellcheck disable=SC2046
    /usr/bin/time -f "cpu_s %U %S" -o "$scratch/$t.time" "$bin" $(engine_options "$src" "$t") \
        -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$scratch/" "$scratch/$t" "$src/corpus/fuzz/$t" >"$log" 2>&1 || rc=$?
    if [ $rc != 0 ]; then
        echo "bench.sh: $t stopped with exit status $rc; its log:" >&2
        tail -40 "$log" >&2
        exit 2
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    wall=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    read -r _ user sys <"$scratch/$t.time"
    awk -v t="$t" -v runs="$runs" -v wall="$wall" -v cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
        'BEGIN { printf "%-18s %8d execs  %6d exec/s (wall)  %6.0f exec/s (CPU, %.1f s)\n", t, runs, wall, runs / cpu, cpu }'
done
