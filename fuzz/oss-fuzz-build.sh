#!/bin/bash -eu
# oss-fuzz-build.sh: builds the fuzz targets the way OSS-Fuzz and ClusterFuzzLite expect, so
# their build.sh can be this one line:  "$SRC/dmlcheck/fuzz/oss-fuzz-build.sh"
#
# From the environment (set by the fuzzing infrastructure, or by hand to try it locally):
#   CC, CXX, CFLAGS, CXXFLAGS   compiler and the job's sanitizer/coverage flags
#   LIB_FUZZING_ENGINE          the fuzzing engine to link (-fsanitize=fuzzer for libFuzzer)
#   OUT                         where binaries, <target>_seed_corpus.zip and <target>.dict go
#   WORK                        scratch space (default: a temporary directory)
# The library is built by meson with these flags (-Dfuzzing=false: the job's flags, not ours,
# decide sanitizers and instrumentation); the targets are compiled here and linked with the
# engine.  jansson is linked statically so the binaries run on the bare runner image.
# fuzz_differential is left out: fuzzing infrastructure has no OpenCL device.
#
# Local try-out:
#   CC=clang CXX=clang++ CFLAGS="-O1 -g -fsanitize=address,undefined,fuzzer-no-link" \
#   CXXFLAGS="$CFLAGS" LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out fuzz/oss-fuzz-build.sh
src=$(cd "$(dirname "$0")/.." && pwd)
: "${CC:?}" "${CXX:?}" "${CFLAGS:=}" "${CXXFLAGS:=}" "${LIB_FUZZING_ENGINE:?}" "${OUT:?}"
work=${WORK:-$(mktemp -d)}
build=$work/dmlcheck-build
mkdir -p "$OUT"

rm -rf "$build"
CC=$CC CFLAGS=$CFLAGS LDFLAGS="$CFLAGS ${LDFLAGS:-}" meson setup "$build" "$src" -Dfuzzing=false -Dopencl=disabled \
    -Dbuildtype=plain -Dwerror=false >/dev/null
layers="model/libdmlcheck_model.a reference/libdmlcheck_reference.a backends/libdmlcheck_backends.a
        results/libdmlcheck_results.a harness/libdmlcheck_harness.a reports/libdmlcheck_reports.a"
# shellcheck disable=SC2086
ninja -C "$build" $layers fuzz/libfuzz_support.a fuzz/libfuzz_oracle.a >/dev/null

defines="-D_GNU_SOURCE"
defines="$defines -DDMLCHECK_FUZZ_HAVE_NAIVE=1"   # as fuzz/meson.build
includes="-I$src/include -I$src/fuzz"
for layer in model reference backends results harness reports; do includes="$includes -I$src/$layer"; done
libs="$build/fuzz/libfuzz_support.a $build/fuzz/libfuzz_oracle.a"
for l in $layers; do libs="$libs $build/$l"; done

for target in fuzz_case_json fuzz_validate fuzz_reference; do
    # shellcheck disable=SC2086
    $CC $CFLAGS -std=c17 $defines $includes $(pkg-config --cflags jansson) \
        -c "$src/fuzz/$target.c" -o "$build/$target.o"
    # shellcheck disable=SC2086
    $CXX $CXXFLAGS "$build/$target.o" -Wl,--start-group $libs -Wl,--end-group \
        $LIB_FUZZING_ENGINE -Wl,-Bstatic $(pkg-config --libs jansson sqlite3) -Wl,-Bdynamic -lm -lpthread \
        -o "$OUT/$target"

    rm -f "$OUT/${target}_seed_corpus.zip"
    (cd "$src/corpus/fuzz/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    if [ "$target" = fuzz_case_json ]; then
        (cd "$src/corpus/conformance" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
    if [ -f "$src/fuzz/$target.dict" ]; then
        cp "$src/fuzz/$target.dict" "$OUT/$target.dict"
    fi
done
