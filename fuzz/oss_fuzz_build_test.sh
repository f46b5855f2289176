#!/bin/bash
# oss_fuzz_build_test.sh: fuzz/oss-fuzz-build.sh run as OSS-Fuzz and ClusterFuzzLite run it,
# so the one line their build.sh holds cannot rot unnoticed: the environment they set (CC,
# CXX, CFLAGS and CXXFLAGS of an ASan libFuzzer job, LIB_FUZZING_ENGINE, OUT, WORK), then
# every target, its seed corpus and dictionary in OUT, and each target run over its seed
# corpus and a few hundred mutations as the infrastructure's check_build does.  Skipped
# where clang, zip or unzip is missing.
# Usage: oss_fuzz_build_test.sh SOURCE_ROOT.  Prints TAP.
set -u
src=$1
n=0 failed=0
tmp=${TMPDIR:-/tmp}/dmlcheck-oss-fuzz.$$
trap 'rm -rf "$tmp"' EXIT
for tool in clang clang++ zip unzip pkg-config; do
    if ! command -v "$tool" >/dev/null; then
        echo "1..0 # SKIP $tool not installed"
        exit 0
    fi
done
check() { # NAME CONDITION...
    n=$((n + 1))
    if "${@:2}"; then echo "ok $n - $1"; else failed=$((failed + 1)); echo "not ok $n - $1"; fi
}

mkdir -p "$tmp"
flags="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address"
flags="$flags -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
    OUT="$tmp/out" WORK="$tmp/work" bash "$src/fuzz/oss-fuzz-build.sh" >"$tmp/build.log" 2>&1
status=$?
check "oss_fuzz_build_succeeds" [ "$status" = 0 ]
[ "$status" = 0 ] || sed 's/^/# /' "$tmp/build.log" | tail -n 30

for target in fuzz_case_json fuzz_validate fuzz_reference; do
    check "${target}_built_with_its_seed_corpus" \
        test -x "$tmp/out/$target" -a -s "$tmp/out/${target}_seed_corpus.zip"
    rm -rf "$tmp/corpus" && mkdir -p "$tmp/corpus"
    unzip -q "$tmp/out/${target}_seed_corpus.zip" -d "$tmp/corpus" 2>/dev/null
    dict=()
    [ -f "$tmp/out/$target.dict" ] && dict=("-dict=$tmp/out/$target.dict")
    "$tmp/out/$target" "${dict[@]}" -runs=300 -max_total_time=60 "$tmp/corpus" \
        >"$tmp/$target.log" 2>&1
    status=$?
    check "${target}_runs_its_corpus_and_mutations" [ "$status" = 0 ]
    [ "$status" = 0 ] || tail -n 20 "$tmp/$target.log" | sed 's/^/# /'
done
check "fuzz_case_json_has_its_dictionary" test -s "$tmp/out/fuzz_case_json.dict"
echo "1..$n"
[ "$failed" = 0 ]
