#!/bin/sh
# adapter_memory.sh: a pooling case far smaller than the memory a careless adapter needs for it,
# through an adapter whose address space is limited to LIMIT_MB (ulimit -v): an adapter that
# keeps to a small multiple of the case's size passes, one that does not fails.  CASE is
#   window   (the default) 1x1x160x160 FLOAT32, window 80x80: 6,561 windows of 6,400 taps, a
#            100 KB input; gathering every window tap at once needs gigabytes.  The input is a
#            ramp (element i holds i), so each window's maximum is its last tap: value and flat
#            index (r + 79) * 160 + (c + 79) for window (r, c).
#   padding  1x1x2x2x2 FLOAT32, window 2x2x2, StartPadding and Strides 800 in every dimension:
#            8 outputs, of which only the last window holds elements (the whole ramp: 7 at
#            index 7); the others lie wholly in padding (SEMANTICS D7: -inf, no element).
#            Padding the input to its full padded size (F.pad) is 802^3 elements, 2 GB.
# Usage: adapter_memory.sh DMLCHECK PYTHON ADAPTER LIMIT_MB [CASE].  TAP.
set -u
dmlcheck=$1 python=$2 adapter=$3 limit_mb=$4 kind=${5:-window}
. "$(dirname "$0")/../lib/cli_tap.sh"

"$python" - "$tmp/case.json" "$kind" <<'PY'
import json, sys
if sys.argv[2] == "window":
    side, window = 160, 80
    out = side - window + 1
    last = [(r + window - 1) * side + (c + window - 1) for r in range(out) for c in range(out)]
    case = {"op": "MAX_POOLING2", "feature_level": "4_1",
            "comment": "a ramp pooled by an 80x80 window: each window's maximum is its last tap",
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, side, side]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, out, out]},
            "OutputIndicesTensor": {"DataType": "UINT32", "Sizes": [1, 1, out, out]},
            "Strides": [1, 1], "WindowSize": [window, window], "StartPadding": [0, 0],
            "EndPadding": [0, 0], "Dilations": [1, 1],
            "input": list(range(side * side)), "expected": {"output": last, "indices": last}}
elif sys.argv[2] == "padding":
    pad, none = 800, 2**32 - 1
    case = {"op": "MAX_POOLING2", "feature_level": "4_1",
            "comment": "a 2x2x2 ramp behind 800 elements of start padding, stride 800: only "
                       "the last window holds elements",
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2, 2]},
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2, 2]},
            "OutputIndicesTensor": {"DataType": "UINT32", "Sizes": [1, 1, 2, 2, 2]},
            "Strides": [pad] * 3, "WindowSize": [2, 2, 2], "StartPadding": [pad] * 3,
            "EndPadding": [0, 0, 0], "Dilations": [1, 1, 1], "input": list(range(8)),
            "expected": {"output": ["-inf"] * 7 + [7], "indices": [none] * 7 + [7]}}
else:
    sys.exit("adapter_memory.sh: CASE is window or padding, not %r" % sys.argv[2])
json.dump(case, open(sys.argv[1], "w"))
PY
[ -s "$tmp/case.json" ] || exit 2
printf '#!/bin/sh\nulimit -v %s\nexec "%s" "%s" "$@"\n' "$((limit_mb * 1024))" "$python" "$adapter" >"$tmp/limited"
chmod +x "$tmp/limited"
run exec "$tmp/case.json"
check "${kind}_case_agrees_with_the_reference" rc_is 0
run exec --backend "process:$tmp/limited" --case-timeout 60000 "$tmp/case.json"
check "large_${kind}_within_${limit_mb}_MB" rc_is 0
finish
