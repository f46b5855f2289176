#!/bin/sh
# fresh_seeds.sh: every planted bug of the example plug-in (FLOAT32) and of the typed test
# plug-in (every type it claims) run on seeds no test uses, one line per bug and seed: the
# rows (families) the run's summary prints, how many are judged, the root causes confirmed
# and whether one is not the planted cause (docs/DIAGNOSIS.md, "Fresh seeds"); then, per bug,
# `dmlcheck report --baseline` of its first seed against each other seed (bugs new and gone).
# A measurement, not a test: it prints a table and exits 1 when some bug is confirmed as a
# cause it does not have (never a confident wrong name) or a baseline names a bug new or gone.
# Usage: fresh_seeds.sh DMLCHECK EXAMPLE_SO TYPED_SO [SEEDS] [CASES] [BUGS]  (default "31 32",
# 3000, every bug; BUGS: plugin:bug words, such as "example:index16 typed:ties", run only those)
set -u
dmlcheck=$1 example=$2 typed=$3 seeds=${4:-"31 32"} cases=${5:-3000} only=${6:-}
tmp=${TMPDIR:-/tmp}/dmlcheck-fresh-seeds.$$
mkdir -p "$tmp" || exit 2
trap 'rm -rf "$tmp"' EXIT

# bug:cause, or bug:cause/cause where either is the planted bug's (bug=daz is
# denormals_flushed on ARGMIN/ARGMAX, which write no value; bug=seed_zero on the pooling of an
# unsigned type is best_seeded_with_type_min, 0 being that type's lowest value:
# docs/DIAGNOSIS.md); "-": no cause of the catalogue is planted, nothing may be confirmed.
example_bugs="ties:tie_direction_flipped signed_zero:signed_zero_not_tied
float_bits:float_compared_as_int_bits seed_lowest:best_seeded_with_lowest_finite
nan_sticky:nan_first_sticky strides:input_strides_ignored out_strides:output_strides_ignored
axes_order:axes_in_listed_order column_major:reduced_index_column_major
padding:padding_as_zero_value dilation:dilation_ignored plane_index:pool_index_within_plane
offset_index:pool_index_is_buffer_offset index16:index_narrowed_16
rank16:rank_narrowed_16_from_scan_start merge_ties:chunk_ties_merged_by_rank"
typed_bugs="seed_zero:best_seeded_with_zero/best_seeded_with_type_min seed_type_min:best_seeded_with_type_min
unsigned_signed:unsigned_read_as_signed int64_32:int64_compared_as_32_bits
u64_as_i32:uint64_read_as_int32
fp16_bits:float_compared_as_int_bits ftz:denormals_flushed daz:denormals_compared_as_zero/denormals_flushed
nan_first:nan_propagates_first nan_last:nan_propagates_last nan_restarts:nan_restarts
ties:tie_direction_flipped window_index:pool_index_within_window
out_index:pool_index_from_output_strides idx_strides:indices_strides_ignored
stride0:zero_stride_read_as_packed pad_lowest:padding_as_lowest_value
dilation_w:dilation_ignored_last_axis stride_w:window_stride_ignored_last_axis
ceil:ceil_output_never_written launch64:outputs_rounded_down_64 pad_window_zero:-
seed_plane_start:best_seeded_at_plane_start int_via_f32:integers_pooled_as_float32"

wrong_total=0 moved_total=0
one() { # PLUGIN_NAME SO TYPES BUG CAUSE SEED
    name=$1 so=$2 types=$3 bug=$4 cause=$5 seed=$6
    db="$tmp/$name-$bug-$seed.sqlite"
    set -- --backend "plugin:$so,bug=$bug" --cases "$cases" --seed "$seed" --jobs 1 --db "$db"
    [ -n "$types" ] && set -- "$@" --types "$types"
    rm -f "$db"*
    "$dmlcheck" run "$@" >"$tmp/out" 2>&1
    rc=$?
    rows=$(grep -c '^  family ' "$tmp/out")
    judged=$(grep -c '^  family [0-9]*: fail' "$tmp/out")
    named=$(grep '^    root cause: .*, confirmed' "$tmp/out" | sed 's/^    root cause: //; s/, confirmed.*//' \
            | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
    undiagnosed=$(grep -c '^    root cause: undiagnosed' "$tmp/out")
    planted=$(echo "$cause" | sed 's#/#[,+|]\\\|root cause: #g')
    wrong=$(grep '^    root cause: .*, confirmed' "$tmp/out" | grep -vc "root cause: $planted[,+|]")
    wrong_total=$((wrong_total + wrong))
    printf '%s bug=%s seed=%s (exit %s): %s rows, %s judged, %s undiagnosed; confirmed: %s; wrong: %s\n' \
        "$name" "$bug" "$seed" "$rc" "$rows" "$judged" "$undiagnosed" "${named:-none}" "$wrong"
}

# The same bug on another seed against the first as a baseline: "0 bugs new, 0 gone".
baselines() { # PLUGIN_NAME BUG
    set -- "$1" "$2" $seeds
    name=$1 bug=$2 first=$3
    shift 3
    for seed in "$@"; do
        "$dmlcheck" report --db "$tmp/$name-$bug-$seed.sqlite" \
            --baseline "$tmp/$name-$bug-$first.sqlite" --summary -o "$tmp/b.md" >/dev/null 2>&1
        against=$(grep -o '[0-9]* bugs\? new, [0-9]* gone' "$tmp/b.md" | head -1)
        case "$against" in "0 bugs new, 0 gone") ;; *) moved_total=$((moved_total + 1)) ;; esac
        printf '%s bug=%s baseline seed %s, seed %s: %s\n' "$name" "$bug" "$first" "$seed" \
            "${against:-no baseline line}"
    done
    rm -f "$tmp/$name-$bug-"*
}

# Whether plug-in $1's bug $2 is one to run.
wanted() {
    [ -z "$only" ] && return 0
    case " $only " in *" $1:$2 "*) return 0 ;; esac
    return 1
}

for pair in $example_bugs; do
    wanted example "${pair%%:*}" || continue
    for seed in $seeds; do
        one example "$example" FLOAT32 "${pair%%:*}" "${pair#*:}" "$seed"
    done
    baselines example "${pair%%:*}"
done
for pair in $typed_bugs; do
    wanted typed "${pair%%:*}" || continue
    for seed in $seeds; do
        one typed "$typed" "" "${pair%%:*}" "${pair#*:}" "$seed"
    done
    baselines typed "${pair%%:*}"
done
echo "confirmed as a cause not planted: $wrong_total"
echo "baselines with a bug new or gone: $moved_total"
[ "$wrong_total" = 0 ] && [ "$moved_total" = 0 ]
