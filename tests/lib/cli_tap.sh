# cli_tap.sh: what the shell tests share (sourced, not run).  They test dmlcheck from outside:
# a private temporary folder ($tmp, removed on exit), `run ARGS...` (dmlcheck, with its output
# and exit code kept in $tmp), `check NAME CONDITION...` (one TAP line; on failure the end of
# what dmlcheck printed), `skip NAME REASON`, the usual conditions, and `finish` (the plan and
# the exit status).  The sourcing script sets $dmlcheck first.
tmp=${TMPDIR:-/tmp}/dmlcheck-$(basename "$0" .sh).$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

run() {
    "$dmlcheck" "$@" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
}

check() {
    name=$1
    shift
    n=$((n + 1))
    if "$@"; then
        echo "ok $n - $name"
    else
        failed=$((failed + 1))
        echo "not ok $n - $name"
        tail -n 40 "$tmp/out" | sed 's/^/# stdout: /'
        tail -n 40 "$tmp/err" | sed 's/^/# stderr: /'
        echo "# exit code: $(cat "$tmp/rc")"
    fi
}

skip() {
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}

# Skips the whole script (TAP "1..0 # SKIP REASON") unless COMMAND... succeeds; its output is
# discarded.  skip_all_unless "no OpenCL device" "$dmlcheck" devices
skip_all_unless() {
    reason=$1
    shift
    "$@" >/dev/null 2>&1 && return 0
    echo "1..0 # SKIP $reason"
    exit 0
}

rc_is() { [ "$(cat "$tmp/rc")" = "$1" ]; }
out_is() { [ "$(cat "$tmp/out")" = "$1" ]; }
err_has() { grep -qF -- "$1" "$tmp/err"; }
out_has() { grep -qF -- "$1" "$tmp/out"; }
all_has() { cat "$tmp/out" "$tmp/err" | grep -qF -- "$1"; }
err_empty() { [ ! -s "$tmp/err" ]; }

finish() {
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
