# memory_limit.sh: dmlcheck under a memory limit, for the shell tests that source cli_tap.sh
# (sourced after it, not run).  `limited KILOBYTES ARGS...` runs dmlcheck ARGS under
# `ulimit -v KILOBYTES`, with its output and exit code kept in $tmp as `run` keeps them.
# `skip_unless_starts_under KILOBYTES ARGS...` runs it once so and, unless it exits 0, ends the
# test with a TAP skip plan: a sanitizer build reserves terabytes of shadow memory and cannot
# start under any limit.
limited() {
    limit=$1
    shift
    (ulimit -v "$limit" && exec "$dmlcheck" "$@") >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
}

skip_unless_starts_under() {
    limited "$@"
    if ! rc_is 0; then
        echo "1..0 # SKIP dmlcheck does not start under ulimit -v $1 (a sanitizer build?)"
        exit 0
    fi
}
