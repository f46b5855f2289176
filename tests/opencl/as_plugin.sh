#!/bin/sh
# as_plugin.sh: the OpenCL backend loaded the way a user's plug-in is, from
# libdmlcheck_opencl.so through --backend plugin:..., agrees with the reference on the
# conformance corpus and in a differential run.  TAP; a missing OpenCL platform skips.
# Usage: as_plugin.sh DMLCHECK LIBDMLCHECK_OPENCL_SO CORPUS_DIR
set -u
dmlcheck=$1 lib=$2 corpus=$3
tmp=${TMPDIR:-/tmp}/dmlcheck-clplugin.$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT
if ! "$dmlcheck" devices >/dev/null 2>&1; then
    echo "1..0 # SKIP no OpenCL device"
    exit 0
fi
n=0 failed=0
check() { # NAME EXPECTED-EXIT COMMAND...
    name=$1 want=$2
    shift 2
    n=$((n + 1))
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = "$want" ]; then
        echo "ok $n - $name"
    else
        failed=1
        echo "not ok $n - $name (exit $rc, wanted $want)"
        tail -n 15 "$tmp/err" | sed 's/^/# /'
    fi
}
check opencl_plugin_exec_corpus 0 "$dmlcheck" exec --backend "plugin:$lib" "$corpus"/*/*.json
check opencl_plugin_differential_run 0 "$dmlcheck" run --backend "plugin:$lib" --cases 2000 \
    --seed 5 --db "$tmp/run.sqlite"
check opencl_plugin_refuses_unknown_argument 2 "$dmlcheck" run --backend "plugin:$lib,fast=1" \
    --cases 1 --db "$tmp/run.sqlite"
echo "1..$n"
exit $failed
