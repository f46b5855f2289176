# shellcheck shell=bash
# engine_options.sh: sourced by run-fuzzers.sh and bench.sh, so both run a target with the
# same libFuzzer options.  engine_options SRC TARGET prints them: the common limits, the
# target's dictionary fuzz/TARGET.dict, and the [libfuzzer] section of fuzz/TARGET.options
# (the OSS-Fuzz / ClusterFuzzLite format, "name = value" lines; '#' starts a comment).
engine_options() {
    local src=$1 target=$2
    echo "-rss_limit_mb=2048 -timeout=25 -max_len=8192"
    if [ -f "$src/fuzz/$target.dict" ]; then echo "-dict=$src/fuzz/$target.dict"; fi
    if [ -f "$src/fuzz/$target.options" ]; then
        awk '/^[ \t]*(#|;|$)/ { next }
             /^[ \t]*\[/ { section = $0; gsub(/[][ \t]/, "", section); next }
             section == "libfuzzer" { split($0, kv, "="); name = kv[1]; value = kv[2]
                                      gsub(/[ \t]/, "", name); gsub(/^[ \t]+|[ \t]+$/, "", value)
                                      print "-" name "=" value }' "$src/fuzz/$target.options"
    fi
}
