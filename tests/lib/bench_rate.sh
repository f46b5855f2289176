# bench_rate.sh: what the benchmark scripts share (sourced, not run): a private temporary
# folder ($tmp, removed on exit) and `rate BACKEND [RUN OPTIONS...]`, which prints the cases/s
# of one `dmlcheck run` of $cases cases, seed $seed (default 1), no shrinking, on a fresh database.  The
# sourcing script sets $dmlcheck and $cases first.
tmp=${TMPDIR:-/tmp}/dmlcheck-$(basename "$0" .sh).$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT

rate() {
    backend=$1
    shift
    rm -f "$tmp/db.sqlite"*
    "$dmlcheck" run --backend "$backend" --cases "$cases" --seed "${seed:-1}" --shrink-budget 0 \
        --db "$tmp/db.sqlite" "$@" >"$tmp/out" 2>&1
    sed -n 's/^summary: .*(\([0-9]*\) cases\/s.*/\1/p' "$tmp/out"
}
