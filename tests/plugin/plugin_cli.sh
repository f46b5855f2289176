#!/bin/sh
# plugin_cli.sh: the plug-in ABI (include/dmlcheck/plugin.h) seen from outside.
#   - the example plug-in conforms on the corpus (exec) and in a differential run;
#   - each planted bug fails the run with the kind that names it; a crash costs its cases,
#     not the run; failure lines replay through the plug-in;
#   - broken plug-ins are refused with exit 2 and a message naming the library;
#   - the example builds out of the tree against the installed header (pkg-config).
# Usage: plugin_cli.sh DMLCHECK EXAMPLE_SO BAD_DIR SOURCE_ROOT BUILD_ROOT.  Prints TAP.
set -u
dmlcheck=$1 example=$2 bad=$3 src=$4 build=$5
. "$(dirname "$0")/../lib/cli_tap.sh"




# A differential run of FLOAT32 cases on the plug-in with ARGS ("" or ",bug=...").
plugin_run() { # plugin_run ARGS CASES [RUN OPTIONS...]
    args=$1 cases=$2
    shift 2
    rm -f "$tmp/db.sqlite"*
    run run --backend "plugin:$example$args" --types FLOAT32 --cases "$cases" --seed 11 \
        --db "$tmp/db.sqlite" "$@"
}

# --- the example conforms ---
run exec --backend "plugin:$example" "$src"/corpus/conformance/*/*.json
check "exec_corpus_on_the_example_plugin" rc_is 0
plugin_run "" 3000
check "run_example_plugin_conforms" sh -c "[ $(cat "$tmp/rc") = 0 ] && grep -q 'fail=0' '$tmp/out'"
check "run_records_the_plugin_as_the_backend" \
    sh -c "sqlite3 '$tmp/db.sqlite' 'SELECT backend FROM runs' 2>/dev/null | grep -qF 'plugin:$example' || ! command -v sqlite3 >/dev/null"

# One created operator serves ten cases (--inputs-per-desc): still every answer right.
plugin_run "" 3000 --inputs-per-desc 10
check "inputs_per_desc_reuses_operators_correctly" sh -c "[ \$(cat '$tmp/rc') = 0 ] && grep -q 'fail=0' '$tmp/out'"

# --- each planted bug is caught and named ---
plugin_run ",bug=ties" 3000
check "bug_ties_fails_the_run" rc_is 1
check "bug_ties_is_named_tie_other_way" all_has "kind=tie_other_way"
check "bug_ties_replay_line_names_the_plugin" all_has "replay: dmlcheck replay g5:11:"
# The printed replay line, pasted, fails the same way.
line=$(cat "$tmp/out" "$tmp/err" | grep -m1 'replay: dmlcheck replay g5:11:' | sed 's/^ *replay: dmlcheck //')
if [ -n "$line" ]; then
    eval "set -- $line"
    run "$@"
    check "bug_ties_replay_line_reproduces" rc_is 1
else
    check "bug_ties_replay_line_reproduces" false
fi
plugin_run ",bug=padding" 3000
check "bug_padding_fails_the_run" rc_is 1
check "bug_padding_is_named_padding_selected" all_has "kind=padding_selected"
plugin_run ",bug=crash" 1500
check "bug_crash_fails_the_run" rc_is 1
check "bug_crash_is_named_crash" all_has "kind=crash"
check "bug_crash_run_goes_on_to_the_end" out_has "1500 cases"

# --- gaps in what a plug-in claims fail the run ---
plugin_run ",bug=refuse" 1500
check "refusing_a_valid_descriptor_fails" rc_is 1
check "refusing_is_named_rejected_valid" all_has "kind=rejected_valid"
plugin_run ",bug=unsupported" 1500
check "unsupported_within_claims_fails" rc_is 1
check "unsupported_within_claims_is_named_unsupported_required" all_has "kind=unsupported_required"

# --- descriptors DirectML requires to be refused (must-reject cases) ---
vlib=$bad/libvalidating_plugin.so
run export g2:1:0 >/dev/null 2>&1   # case 1:0 of this generator is a must-reject case
"$dmlcheck" export g2:1:0 >"$tmp/reject.json" 2>/dev/null
check "export_writes_must_reject_cases" sh -c "grep -q '\"must_reject\": true' '$tmp/reject.json'"
run exec --backend "plugin:$vlib,mode=refuse" "$tmp/reject.json"
check "refusing_a_must_reject_descriptor_passes" rc_is 0
run exec --backend "plugin:$vlib,mode=accept" "$tmp/reject.json"
check "accepting_a_must_reject_descriptor_fails" sh -c "[ $(cat "$tmp/rc") = 1 ] && grep -q accepted_invalid '$tmp/err'"
run exec --backend reference "$tmp/reject.json"
check "a_backend_that_does_not_validate_skips_must_reject" sh -c "[ $(cat "$tmp/rc") = 0 ] && grep -q 'does not check descriptors' '$tmp/err'"
rm -f "$tmp/db.sqlite"*
run run --backend "plugin:$vlib,mode=accept" --reject-rate 1000 --cases 200 --seed 3 --db "$tmp/db.sqlite"
check "run_names_accepted_invalid" sh -c "[ $(cat "$tmp/rc") = 1 ] && cat '$tmp/out' '$tmp/err' | grep -q 'kind=accepted_invalid'"
rm -f "$tmp/db.sqlite"*
run run --backend "plugin:$vlib,mode=refuse" --reject-rate 1000 --cases 200 --seed 3 --db "$tmp/db.sqlite"
check "run_refusing_must_reject_never_accepted_invalid" sh -c "! cat '$tmp/out' '$tmp/err' | grep -q accepted_invalid && grep -q 'pass=' '$tmp/out'"

# --- broken plug-ins are refused, naming the library ---
run run --backend "plugin:$bad/libbad_plugin_no_entry.so" --cases 5 --db "$tmp/bad.sqlite"
check "no_entry_symbol_refused" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q 'libbad_plugin_no_entry.so: no symbol dmlcheck_plugin_entry' '$tmp/err'"
run run --backend "plugin:$bad/libbad_plugin_abi.so" --cases 5 --db "$tmp/bad.sqlite"
check "wrong_abi_version_refused" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q 'built for plug-in ABI version 99' '$tmp/err'"
run run --backend "plugin:$bad/libbad_plugin_null_execute.so" --cases 5 --db "$tmp/bad.sqlite"
check "null_function_refused" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q 'dmlcheck_plugin.execute is NULL' '$tmp/err'"
run run --backend "plugin:$bad/libbad_plugin_open.so" --cases 5 --db "$tmp/bad.sqlite"
check "failed_open_reported" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q 'open failed: no such device' '$tmp/err'"
run run --backend "plugin:$tmp/no-such-library.so" --cases 5 --db "$tmp/bad.sqlite"
check "missing_library_refused" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q 'no-such-library.so: cannot load it' '$tmp/err'"
run run --backend "plugin:$example,bug=nonsense" --cases 5 --db "$tmp/bad.sqlite"
check "plugin_argument_error_reported" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q \"unknown argument 'bug=nonsense'\" '$tmp/err'"
run exec --backend plugin "$src/corpus/conformance/argmax/argmax_spec_example1_columns.json"
check "plugin_without_library_refused" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q 'no library given' '$tmp/err'"
run exec --backend reference:extra "$src/corpus/conformance/argmax/argmax_spec_example1_columns.json"
check "builtin_backend_refuses_arguments" sh -c "[ $(cat "$tmp/rc") = 2 ] && grep -q 'takes no arguments' '$tmp/err'"

# --- the plug-in host code under valgrind (dlopen, guarded buffers, the example itself) ---
if [ -n "${VALGRIND:-}" ]; then
    vg="$VALGRIND --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect -q"
    $vg "$dmlcheck" exec --backend "plugin:$example" "$src"/corpus/conformance/*/*.json >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check "exec_corpus_through_plugin_valgrind_clean" rc_is 0
    $vg "$dmlcheck" exec --backend "plugin:$bad/libbad_plugin_abi.so" "$src/corpus/conformance/argmax/argmax_spec_example1_columns.json" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check "refused_plugin_valgrind_clean" rc_is 2
else
    n=$((n + 1)); echo "ok $n - exec_corpus_through_plugin_valgrind_clean # SKIP no valgrind, or a sanitizer build"
fi

# --- out of the tree: the installed header and pkg-config file are enough ---
dest=$tmp/destdir
if meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/out" 2>"$tmp/err"; then
    pc=$(find "$dest" -name dmlcheck-plugin.pc | head -n 1)
    cflags=$(PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags dmlcheck-plugin 2>"$tmp/err")
    cc=${CC:-cc}
    if $cc -std=c17 -Wall -Wextra -Werror -shared -fPIC $cflags "$src/examples/plugin/example_plugin.c" \
          -o "$tmp/libout_of_tree.so" -lm >"$tmp/out" 2>"$tmp/err"; then
        echo 0 >"$tmp/rc"
    else
        echo 1 >"$tmp/rc"
    fi
    check "example_builds_against_installed_header_via_pkg_config" rc_is 0
    check "installed_include_path_is_the_destdir_one" sh -c "echo '$cflags' | grep -q '$dest'"
    run exec --backend "plugin:$tmp/libout_of_tree.so" "$src/corpus/conformance/argmax/argmax_spec_example1_columns.json"
    check "out_of_tree_plugin_runs" rc_is 0
else
    check "meson_install_to_destdir" false
fi

finish
