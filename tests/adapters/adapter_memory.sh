#!/bin/sh
# adapter_memory.sh: a pooling case with a large window (1x1x160x160 FLOAT32, window 80x80:
# 6,561 windows of 6,400 taps, a 100 KB input) through an adapter whose address space is
# limited to LIMIT_MB (ulimit -v): an adapter that gathers every window tap at once needs
# gigabytes and fails; one that keeps to a small multiple of the case's size passes.  The
# input is a ramp (element i holds i), so each window's maximum is its last tap: value and
# flat index (r + 79) * 160 + (c + 79) for window (r, c).
# Usage: adapter_memory.sh DMLCHECK PYTHON ADAPTER LIMIT_MB.  TAP.
set -u
dmlcheck=$1 python=$2 adapter=$3 limit_mb=$4
. "$(dirname "$0")/../lib/cli_tap.sh"

"$python" - "$tmp/case.json" <<'PY'
import json, sys
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
json.dump(case, open(sys.argv[1], "w"))
PY
printf '#!/bin/sh\nulimit -v %s\nexec "%s" "%s" "$@"\n' "$((limit_mb * 1024))" "$python" "$adapter" >"$tmp/limited"
chmod +x "$tmp/limited"
run exec --backend "process:$tmp/limited" --case-timeout 60000 "$tmp/case.json"
check "large_window_within_${limit_mb}_MB" rc_is 0
finish
