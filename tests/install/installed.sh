#!/bin/sh
# installed.sh BUILD SOURCE: installs BUILD into a DESTDIR and runs the documented commands
# against the installed tree alone, from a folder outside both trees.  Every path dmlcheck
# names must lie in the DESTDIR; BUILD and SOURCE are used only to install and to say that
# nothing points back at them.  Prints TAP.
set -u
build=$1 src=$2
dmlcheck=/nonexistent # set once installed
. "$(dirname "$0")/../lib/cli_tap.sh"
dest=$tmp/dest
work=$tmp/work
mkdir -p "$work"
cd "$work" || exit 2

if ! meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/out" 2>"$tmp/err"; then
    echo 1 >"$tmp/rc"
    check "meson_install_to_destdir" false
    finish
    exit 1
fi
dmlcheck=$(find "$dest" -path '*/bin/dmlcheck' -type f | head -n 1)
check "installed_program" test -x "$dmlcheck"

# --- dmlcheck path: every directory in the installed tree ---
run path
check "path_says_installed" eval 'rc_is 0 && out_has "(installed)"'
check "paths_all_in_destdir" eval "! grep -v '^(installed)' '$tmp/out' | awk '{print \$2}' | grep -v '^$dest/'"
check "paths_not_in_the_trees" eval "! grep -qF -e '$src/' -e '$build/' '$tmp/out'"
corpus=$("$dmlcheck" path corpus)
python=$("$dmlcheck" path python)
adapters=$("$dmlcheck" path adapters)
examples=$("$dmlcheck" path examples)
example_so=$("$dmlcheck" path example-plugin)
files=$(ls "$corpus"/*/*.json | wc -l)
check "corpus_installed" eval "[ $files -eq $(ls "$src"/corpus/conformance/*/*.json | wc -l) ]"
check "example_source_installed" test -f "$examples/example_plugin.c"
check "example_plugin_installed" test -f "$example_so"
check "helper_installed" test -f "$python/dmlcheck_adapter.py"
# The ONNX adapters (onnxruntime, onnx_reference) import their shared mapping from beside it.
check "onnx_mapping_installed" test -f "$python/onnx_mapping.py"
run exec --help
check "exec_help_names_the_installed_corpus" eval "out_has '$corpus/*/*.json'"

# pkg-config names the same directories (under the prefix; the DESTDIR is not in them).
pc=$(find "$dest" -name dmlcheck-plugin.pc | head -n 1)
pkg() { PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$(dirname "$pc") pkg-config "$@"; }
pkgvar() { PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable="$1" dmlcheck-plugin; }
check "pkg_config_corpusdir" eval "[ \"$dest\$(pkgvar corpusdir)\" = '$corpus' ]"
check "pkg_config_pythondir" eval "[ \"$dest\$(pkgvar pythondir)\" = '$python' ]"

# --- docs/PLUGIN.md: start from the example, build it, run it ---
cp "$examples/example_plugin.c" yours.c
cc=${CC:-cc}
if $cc -std=c17 -Wall -Wextra -Werror -shared -fPIC $(pkg --cflags dmlcheck-plugin) yours.c \
       -o libyours.so -lm >"$tmp/out" 2>"$tmp/err"; then echo 0; else echo 1; fi >"$tmp/rc"
check "plugin_builds_from_installed_source_and_header" rc_is 0
run run --backend plugin:./libyours.so --cases 300 --seed 1 --db run.sqlite
check "plugin_md_run" eval 'rc_is 0 && out_has "database: run.sqlite"'
run exec --backend plugin:./libyours.so --corpus
check "plugin_md_exec_corpus_option" eval 'rc_is 0 && err_has "exec: $files files: " && ! err_has fail'
run exec --backend plugin:./libyours.so "$corpus"/*/*.json
check "plugin_md_exec_corpus_glob" eval 'rc_is 0 && err_has "exec: $files files: " && ! err_has fail'
run exec --backend "plugin:$example_so" --corpus
check "installed_example_plugin_runs" rc_is 0
run run --backend "plugin:$example_so,bug=ties" --types FLOAT32 --cases 2000 --seed 1 --db ties.sqlite
check "installed_example_plugin_bug_fails" eval 'rc_is 1 && out_has "replay: dmlcheck replay"'

# --- README "Test your implementation": its lines as written, with the installed dmlcheck on PATH ---
mkdir -p "$work/readme" && cd "$work/readme" || exit 2
readme_lines=$(sed -n '/^## Test your implementation/,/^## /p' "$src/README.md" |
               grep -e '^cp "$(dmlcheck path' -e '^cc -shared' -e '^dmlcheck run --backend plugin:' -e '^export PYTHONPATH')
echo "$readme_lines" | sed 's/^/# README: /'
readme_plugin=$(echo "$readme_lines" | grep -v -e numpy -e PYTHONPATH)
(PATH=$(dirname "$dmlcheck"):$PATH PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$(dirname "$pc") \
    sh -ec "$readme_plugin") >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "readme_plugin_lines_work" eval '[ $(echo "$readme_plugin" | wc -l) = 3 ] && rc_is 0 && out_has "CONFORMANT for what it claims" && [ -s report.html ]'
readme_python=$(echo "$readme_lines" | grep -e numpy -e PYTHONPATH)
if python3 -c 'import numpy' 2>/dev/null; then
    (PATH=$(dirname "$dmlcheck"):$PATH sh -ec "$readme_python
dmlcheck exec --backend process:'python3 mine.py' --corpus") >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check "readme_python_lines_work" eval '[ $(echo "$readme_python" | wc -l) = 2 ] && rc_is 0'
else
    skip "readme_python_lines_work" "no numpy"
fi
cd "$work" || exit 2

# --- docs/PROTOCOL.md: the Python helper from PYTHONPATH, the numpy adapter installed ---
cat >mine.py <<'PY'
# mine.py: ARGMAX over one axis in plain Python (docs/USAGE.md "Testing your implementation at length")
import dmlcheck_adapter as dml

def run(desc, tensors):
    x, out = tensors["input"], tensors["output"]
    if len(desc["Axes"]) != 1:
        raise dml.Unsupported("one axis only")
    axis, v = desc["Axes"][0], x.values()
    n, inner = x.shape[axis], dml.packed_strides(x.shape)[axis]
    idx = []
    for o in range(out.elements):
        base = o // inner * n * inner + o % inner
        col = [v[base + k * inner] for k in range(n)]
        best = max(col)
        last = desc["AxisDirection"] == "DECREASING"
        idx.append(n - 1 - col[::-1].index(best) if last else col.index(best))
    return {"output": out.pack_values(idx)}

dml.serve(run, name="mine", version="1.0", operators=["ARGMAX"], layout="packed")
PY
if command -v python3 >/dev/null; then
    PYTHONPATH=$python python3 -c 'import dmlcheck_adapter, sys; print(dmlcheck_adapter.__file__)' >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check "python_helper_imports_from_installed_path" eval "rc_is 0 && out_has '$dest/'"
    # as the installed onnxruntime_adapter.py finds it: ../python beside its own folder
    python3 -c 'import os, sys; sys.path.insert(0, os.path.join(sys.argv[1], "..", "python")); import onnx_mapping; print(onnx_mapping.__file__)' \
        "$adapters/onnxruntime" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    check "onnx_mapping_imports_beside_installed_adapter" eval "rc_is 0 && out_has '$dest/'"
    export PYTHONPATH="$python"
    run exec --backend "process:python3 mine.py" "$corpus/argmax/argmax_spec_example1_columns.json" \
        "$corpus/argmax/argmax_spec_tie_decreasing.json" "$corpus/argmin/argmin_spec_example1_columns.json"
    check "python_adapter_through_installed_helper" eval 'rc_is 0 && err_has "2 agree, 1 skip"'
    unset PYTHONPATH
    if python3 -c 'import numpy' 2>/dev/null; then
        run exec --backend "process:python3 $adapters/numpy/numpy_adapter.py" --corpus
        check "installed_numpy_adapter_on_installed_corpus" eval 'rc_is 0 && err_has "exec: $files files"'
    else
        skip "installed_numpy_adapter_on_installed_corpus" "no numpy"
    fi
else
    skip "python_helper_imports_from_installed_path" "no python3"
    skip "onnx_mapping_imports_beside_installed_adapter" "no python3"
    skip "python_adapter_through_installed_helper" "no python3"
    skip "installed_numpy_adapter_on_installed_corpus" "no python3"
fi
finish
