#!/usr/bin/env bash
# run-fuzzers.sh: continuous fuzzing on one machine.  Fuzzes every target (or the named ones)
# for a given time with the machine's cores, merges inputs that add coverage back into
# corpus/fuzz/<target>/ (libFuzzer -merge=1: minimal, named by SHA-1), and reports findings
# (crashes, leaks, timeouts, out-of-memory) with the first lines of each report and the
# command that replays it.  Per-target libFuzzer options live in fuzz/<target>.options
# (engine_options.sh); a leak found only at exit (-detect_leaks=0) is a finding too.
# Exit status: 0 no finding, 1 findings, 2 usage or setup error.
#
#   fuzz/run-fuzzers.sh [--build DIR] [--time SECONDS] [--jobs N] [--no-merge]
#                       [--reseed] [--minimize] [TARGET...]
#
#   --build DIR   a clang build configured with -Dfuzzing=true (default build-fuzz-clang; set up
#                 with CC=clang meson setup DIR -Dfuzzing=true when missing)
#   --time S      seconds of fuzzing per target (default 600; 0: only reseed/minimize)
#   --jobs N      fuzzing processes per target (default: nproc); N > 1 uses libFuzzer's -fork
#   --no-merge    leave corpus/fuzz/ alone (findings are still reported)
#   --reseed      before fuzzing, copy every conformance case into corpus/fuzz/fuzz_case_json/
#                 (named by SHA-1) and merge fresh generated seeds (fuzz/make_seeds) in
#   --minimize    rebuild each corpus from scratch with -merge=1: conformance copies, the
#                 generated seeds that add features, then one input per edge found beyond them
#   TARGET        fuzz_case_json, fuzz_validate, fuzz_reference, fuzz_differential
#
# Work files (the growing corpus, findings, logs) live in DIR/fuzz-work/<target>/; a finding
# is listed by every run until its file is removed from DIR/fuzz-work/<target>/findings/.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-fuzz-clang
seconds=600
jobs=$(nproc)
merge=1
reseed=0
minimize=0
targets=()

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$(realpath -m "$2"); shift 2 ;;
    --time) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-merge) merge=0; shift ;;
    --reseed) reseed=1; shift ;;
    --minimize) minimize=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run-fuzzers.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
    esac
done

if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" "$src" -Dfuzzing=true || exit 2
fi
if ! grep -q "fuzzing.*true" <(meson introspect --buildoptions "$build" | tr '{' '\n' | grep '"name": "fuzzing"'); then
    echo "run-fuzzers.sh: $build is not configured with -Dfuzzing=true" >&2
    exit 2
fi
ninja -C "$build" >/dev/null || { echo "run-fuzzers.sh: build failed (ninja -C $build)" >&2; exit 2; }

if [ ${#targets[@]} -eq 0 ]; then
    for t in fuzz_case_json fuzz_validate fuzz_reference fuzz_differential; do
        [ -x "$build/fuzz/$t" ] && targets+=("$t")
    done
fi

# Extra read-only corpora a target also starts from.
extra_corpora() {
    if [ "$1" = fuzz_case_json ]; then echo "$src/corpus/conformance"; fi
}

# Options every libFuzzer run of a target gets: engine_options SRC TARGET.
# shellcheck source-path=SCRIPTDIR source=engine_options.sh
. "$src/fuzz/engine_options.sh"

# Every conformance case, named by SHA-1 of its content, into DIR.
copy_conformance() {
    mkdir -p "$1"
    find "$src/corpus/conformance" -type f -name '*.json' -print0 |
        while IFS= read -r -d '' f; do
            cp "$f" "$1/$(sha1sum "$f" | cut -d' ' -f1)"
        done
}

# An in-tree corpus is a seed base (generated seeds that bring new features, hit counts
# included, so every operator/type/rank/distribution the coverage can tell apart keeps a
# seed) plus one input per coverage edge the fuzzer found beyond it (-use_counters=0: hit
# counts alone do not earn a place).  The work corpus in the build dir keeps everything.
merge_into() { # TARGET LOG DEST [-use_counters=0] SOURCE...
    local t=$1 log=$2 dst=$3; shift 3
    mkdir -p "$dst"
    # shellcheck disable=SC2046
    "$build/fuzz/$t" -merge=1 $(engine_options "$src" "$t") "$@" "$dst" "${sources[@]}" >"$log" 2>&1 ||
        { echo "run-fuzzers.sh: merging into $dst failed, see $log" >&2; exit 2; }
}

work_root=$build/fuzz-work
findings=0
seeds=$work_root/seeds
if [ $reseed = 1 ] || [ $minimize = 1 ]; then
    rm -rf "$seeds"
    mkdir -p "$work_root"
    "$build/fuzz/make_seeds" "$seeds" >/dev/null
fi

for t in "${targets[@]}"; do
    bin=$build/fuzz/$t
    [ -x "$bin" ] || { echo "run-fuzzers.sh: no target $bin" >&2; exit 2; }
    work=$work_root/$t
    mkdir -p "$work/corpus" "$work/findings"
    corpus=$src/corpus/fuzz/$t
    mkdir -p "$corpus"
    if [ $minimize = 1 ]; then
        # Rebuild from scratch: conformance copies (fuzz_case_json), the seed base, then the
        # inputs of the old corpus and the work corpus that still reach a new edge.
        fresh=$work/minimized
        rm -rf "$fresh"
        mkdir -p "$fresh"
        if [ "$t" = fuzz_case_json ]; then copy_conformance "$fresh"; fi
        sources=("$seeds/$t")
        merge_into "$t" "$work/merge.log" "$fresh"
        sources=("$corpus" "$work/corpus")
        merge_into "$t" "$work/merge.log" "$fresh" -use_counters=0
        rm -rf "$corpus"
        mv "$fresh" "$corpus"
    elif [ $reseed = 1 ]; then
        if [ "$t" = fuzz_case_json ]; then copy_conformance "$corpus"; fi
        sources=("$seeds/$t")
        merge_into "$t" "$work/merge.log" "$corpus"
    fi

    if [ "$seconds" = 0 ]; then
        echo "== $t: corpus/fuzz/$t: $(find "$corpus" -type f | wc -l) files, $(du -sk --apparent-size "$corpus" | cut -f1) KiB"
        continue
    fi
    echo "== $t: fuzzing ${seconds}s with $jobs process(es)"
    # shellcheck disable=SC2046
    set -- $(engine_options "$src" "$t") -max_total_time="$seconds" -artifact_prefix="$work/findings/" \
        -print_final_stats=1
    if [ "$jobs" -gt 1 ]; then
        set -- "$@" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1
    fi
    # shellcheck disable=SC2046
    "$bin" "$@" "$work/corpus" "$corpus" $(extra_corpora "$t") >"$work/fuzz.log" 2>&1 || true
    # One process prints DONE and stat:: lines; -fork prints progress lines with exec/s.
    { grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" "$work/fuzz.log" ||
        grep -E "exec/s" "$work/fuzz.log" | tail -1; } | sed 's/^/   /'

    if [ $merge = 1 ]; then
        sources=("$work/corpus")
        merge_into "$t" "$work/merge.log" "$corpus" -use_counters=0
        echo "   corpus/fuzz/$t: $(find "$corpus" -type f | wc -l) files, $(du -sk --apparent-size "$corpus" | cut -f1) KiB"
    fi

    for f in "$work"/findings/*; do
        [ -e "$f" ] || continue
        findings=$((findings + 1))
        echo "   FINDING $f"
        "$bin" "$f" 2>&1 | grep -E "^fuzz:|ERROR: |SUMMARY: |^    #[0-3] " | head -12 | sed 's/^/     /' || true
        echo "     replay: $bin $f"
    done
    # A target run with -detect_leaks=0 (its fuzz/<target>.options) saves no input for a leak:
    # LeakSanitizer reports it when the fuzzer exits, in the log, with the allocation's stack.
    if grep -q "ERROR: LeakSanitizer" "$work/fuzz.log"; then
        findings=$((findings + 1))
        echo "   FINDING a leak reported at exit (no input saved; see $work/fuzz.log)"
        grep -E "ERROR: LeakSanitizer|SUMMARY: |^    #[0-3] " "$work/fuzz.log" | head -8 | sed 's/^/     /' || true
        echo "     replay: $(printf '%q ' "$build/fuzz/${t}_replay" "$corpus" "$work/corpus")"
    fi
done

if [ $findings -gt 0 ]; then
    echo "run-fuzzers.sh: $findings finding(s); fix, then copy each input into corpus/fuzz/<target>/ as a regression"
    exit 1
fi
echo "run-fuzzers.sh: no findings"
