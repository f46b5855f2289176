#!/bin/sh
# check_layers.sh SRC BUILD CC: the folders are layers (docs/ARCHITECTURE.md) and includes
# point only down.  TAP.
#   1. Every quoted #include in a layer resolves to its own folder, include/, or a lower
#      layer; none spells a path with "..".  backends/ and diagnose/ are siblings (both above
#      reference/, both below harness/): neither includes the other.  The OpenCL engine (backends/opencl/, the
#      OpenCL plug-in) includes only its own folder and the public headers of include/.
#   2. The build enforces it: a probe that includes a header of a higher layer, compiled with
#      the include path meson gives that layer's library (read from compile_commands.json),
#      fails; the same probe including the layer's own header compiles (the control).
set -u
src=$1 build=$2 cc=$3
layers="model reference backends diagnose results harness reports cli"
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }

# rank LAYER: position of LAYER in $layers (1 = lowest)
rank() { i=1; for l in $layers; do [ "$l" = "$1" ] && echo $i && return; i=$((i + 1)); done; echo 0; }

# --- 1. static: where each include resolves ---
for layer in $layers; do
  r=$(rank "$layer") bad=""
  for f in $(find "$src/$layer" -name '*.[ch]' | sort); do
    dir=$(dirname "$f")
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
      case $inc in *..*) bad="$bad ${f#$src/}:$inc(dotdot)"; continue ;; esac
      [ -e "$dir/$inc" ] && continue
      [ -e "$src/include/$inc" ] && continue
      found=""   # the layer holding the header, in any of its folders
      for l in $layers; do
        [ -n "$(find "$src/$l" -path "*/$inc" -print -quit)" ] && found=$l && break
      done
      case $inc in cl_sources.h|git_revision.h|dmlcheck_paths.h) continue ;; esac   # generated in the build tree
      if [ -z "$found" ]; then bad="$bad ${f#$src/}:$inc(unresolved)"
      elif [ "$(rank "$found")" -gt "$r" ]; then bad="$bad ${f#$src/}:$inc(up:$found)"
      fi
      # Siblings: the diagnosis never runs a backend (its caller passes an asker), and no
      # backend knows the diagnosis.
      case ${f#$src/}:$found in diagnose/*:backends|backends/*:diagnose) bad="$bad ${f#$src/}:$inc(sibling:$found)" ;; esac
      # The OpenCL engine (backends/opencl/*.c, not glue/) is also a plug-in: it sees its
      # own folder and include/ (the public headers) only.
      case ${f#$src/} in backends/opencl/glue/*) ;; backends/opencl/*) bad="$bad ${f#$src/}:$inc(opencl-core->$found)" ;; esac
    done
  done
  if [ -z "$bad" ]; then ok "${layer}_includes_point_down"; else not_ok "${layer}_includes_point_down:$bad"; fi
done

# --- 2. the build refuses an upward include ---
cmds=$build/compile_commands.json
# include flags of the first compile command whose source lies in folder $1 (the source path
# is relative to the build folder: "../model/x.c", or "../../src/model/x.c" from outside)
flags_of() {
  grep '"command"' "$cmds" | grep -- "-c \([^ ]*/\)\{0,1\}\.\./\([^ ]*/\)\{0,1\}$1/[^/ ]*\.c\"" |
    grep -v -- "-c [^ ]*/tests/" | head -n 1 |
    grep -o ' -I[^ ]*' | sed "s| -I| -I$build/|; s|$build/\(/\)|\1|" | tr -d '\n'
}
probe_dir=$(mktemp -d) && trap 'rm -rf "$probe_dir"' EXIT
# compiles: 0 when '#include "$2"' compiles with flags $1
compiles() {
  printf '#include "%s"\n' "$2" > "$probe_dir/probe.c"
  # shellcheck disable=SC2086
  $cc -fsyntax-only -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=120 $1 "$probe_dir/probe.c" >/dev/null 2>&1
}
# one header per layer that exists only there
own_header() { case $1 in model) echo case.h ;; reference) echo reference.h ;; backends) echo backend.h ;;
               diagnose) echo diagnose.h ;; results) echo store.h ;; harness) echo gen.h ;;
               reports) echo report_model.h ;; opencl) echo cl_plan.h ;; esac; }
check_layer() { # name folder-for-flags higher-layers...
  name=$1 folder=$2; shift 2
  flags=$(flags_of "$folder")
  if [ -z "$flags" ]; then not_ok "${name}_probe_flags # no compile command for $folder in $cmds"; return; fi
  if compiles "$flags" "$(own_header "$name")"; then ok "${name}_sees_its_own_headers"
  else not_ok "${name}_sees_its_own_headers"; fi
  for up in "$@"; do
    h=$(own_header "$up")
    if compiles "$flags" "$h"; then not_ok "${name}_cannot_include_${up} ($h compiled)"
    else ok "${name}_cannot_include_${up}"; fi
  done
}
check_layer model model reference backends diagnose results harness reports
check_layer reference reference backends diagnose results harness reports
check_layer backends backends/reference diagnose results harness reports
check_layer diagnose diagnose backends results harness reports
[ -d "$src/backends/opencl" ] && grep -q 'backends/opencl/' "$cmds" && check_layer opencl backends/opencl model reference backends diagnose results harness reports
check_layer results results harness reports
check_layer harness harness reports
echo "1..$n"
exit $failed
